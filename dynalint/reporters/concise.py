"""Concise reporter: one line per finding, ``path:line:col: CODE message``, as ruff's ``concise``.

The text format's first line alone (``text.headline``): for grep, editors' quickfix lists and logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from dynalint.finding import Finding
from dynalint.reporters import text
from dynalint.reporters.run import Run


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    for finding in findings:
        out.write(text.headline(finding, run.color) + "\n")
