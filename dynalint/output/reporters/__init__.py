"""Report stage: format sorted findings for people and tools, one module per ``--output-format``.

``REPORTERS`` maps each format's name (ruff's names where ruff has the format) to its ``write``;
the CLI only looks a name up here. Reporters only format: they never filter, sort or decide the
exit code, which they are given in ``Run``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from dynalint.model.finding import Finding
from dynalint.output.reporters import concise, github, gitlab, json_lines, json_report, junit, sarif, text
from dynalint.output.reporters.run import Run

Reporter = Callable[[Sequence[Finding], TextIO, Run], None]
REPORTERS: dict[str, Reporter] = {
    "text": text.write,
    "concise": concise.write,
    "json": json_report.write,
    "json-lines": json_lines.write,
    "github": github.write,
    "sarif": sarif.write,
    "junit": junit.write,
    "gitlab": gitlab.write,
}

__all__ = ["REPORTERS", "Reporter", "Run"]
