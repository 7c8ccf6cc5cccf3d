"""Concise reporter: one line per finding, ``path:line:col: CODE message``, as ruff's ``concise``.

The text format's first line alone (``text.headline``): for grep, editors' quickfix lists and logs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from dynalint.model.finding import Finding
from dynalint.output.reporters import text
from dynalint.output.reporters.run import Run


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    for finding in findings:
        out.write(text.headline(finding, run.color) + "\n")
