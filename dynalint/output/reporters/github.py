"""GitHub Actions reporter: one workflow command per finding, shown as an annotation on the diff.

``::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=T::MESSAGE`` (``::warning`` for a
``likely`` finding). The runner splits a command on ``::``, ``,`` and newlines, so values are
escaped as its toolkit does: in the message ``%``, CR and LF become ``%25``, ``%0D``, ``%0A``; in
a property ``:`` and ``,`` also become ``%3A`` and ``%2C``. The message keeps the help and
``compiled via:`` lines, which the annotation shows as lines of their own. A finding in a notebook
is an annotation on the file (no line: the notebook's JSON lines are not its cells'), and its
message starts with the cell position, ``cell 3:4:5: DYN201 ...``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from dynalint.model.finding import Finding
from dynalint.output.reporters import levels, text
from dynalint.output.reporters.run import Run


def escape_data(value: str) -> str:
    """A command's message: ``%`` first, so that the escapes added next are not escaped again."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """A property's value, where ``:`` and ``,`` would end the value or the property list."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(finding: Finding) -> str:
    properties: dict[str, object] = {"file": finding.filename}
    if finding.cell is None:
        properties.update(line=finding.start.line, col=finding.start.column, endLine=finding.end.line,
                          endColumn=finding.end.column)
    properties["title"] = f"dynalint {finding.code} ({finding.name})"
    listed = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    message = "\n".join([text.in_notebook(finding) + text.describe(finding), *text.details(finding)])
    return f"::{levels.level(finding)} {listed}::{escape_data(message)}"


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    for finding in findings:
        out.write(command(finding) + "\n")
