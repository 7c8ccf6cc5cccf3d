"""Text reporter (the default): ``path:line:col: CODE message``, then indented ``help:`` and ``compiled via:`` lines.

In a notebook the position is ruff's ``nb.ipynb:cell 3:4:5``: line 4, column 5 of the notebook's third cell.
With ``color`` (the CLI's choice: a terminal, no ``NO_COLOR``) the path is bold, the code red, ``[likely]``
yellow and the ``help:`` / ``compiled via:`` labels cyan; the other formats call these pieces without it.

Its pieces (``headline``, ``describe``, ``details``) are what the concise, github and junit formats
show, so that a finding reads the same everywhere. ``summary`` is the line the CLI writes to stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from dynalint.model.finding import Confidence, Finding, in_cell
from dynalint.output.reporters.run import Run

_STYLES = {"path": "1", "code": "1;31", "likely": "33", "label": "36", "passed": "1;32", "found": "1;31"}


def paint(text: str, style: str, color: bool) -> str:
    """``text`` in one of ``_STYLES``' ANSI styles, or as it is without ``color``."""
    return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if color else text


def format_finding(finding: Finding, color: bool = False) -> str:
    """The finding as the ``text`` format shows it: the headline, then its indented details."""
    return "\n".join([headline(finding, color), *(f"  {line}" for line in details(finding, color))])


def headline(finding: Finding, color: bool = False) -> str:
    """``path:line:col: CODE message [likely]``: the first line, and all of the ``concise`` format."""
    return f"{paint(position(finding), 'path', color)}: {describe(finding, color)}"


def position(finding: Finding) -> str:
    """``path:line:col``, or ``nb.ipynb:cell 3:4:5`` in a notebook."""
    return f"{finding.filename}:{in_cell(finding.cell)}{finding.start.line}:{finding.start.column}"


def in_notebook(finding: Finding) -> str:
    """``cell 3:4:5: `` for a finding in a notebook, else nothing: the formats whose line numbers count
    in the file (github, gitlab, junit, sarif) cannot point into a cell, so their message says where."""
    return "" if finding.cell is None else f"cell {finding.cell}:{finding.start.line}:{finding.start.column}: "


def describe(finding: Finding, color: bool = False) -> str:
    """``CODE message`` with the confidence and verdict tags, without a position."""
    confidence = paint(" [likely]", "likely", color) if finding.confidence is Confidence.LIKELY else ""
    return f"{paint(finding.code, 'code', color)} {finding.message}{confidence}{_verdict(finding)}"


def details(finding: Finding, color: bool = False) -> list[str]:
    """The ``help:`` and ``compiled via:`` lines, unindented."""
    lines = []
    if finding.help:
        lines.append(f"{paint('help:', 'label', color)} {finding.help}")
    if finding.region is not None:
        lines.append(f"{paint('compiled via:', 'label', color)} {finding.region.describe()}")
    return lines


def _verdict(finding: Finding) -> str:
    """`` [confirmed GB0170]``, `` [refuted for ...]``, `` [not reached: why]``, `` [unverifiable: why]``
    after ``--verify`` (a refuted verdict's reason names the inputs: ``for factory `m:f`'s inputs ...``)."""
    verify = finding.verify
    if verify is None:
        return ""
    if verify.verdict == "confirmed":
        because = f": {verify.reason}" if verify.reason else ""
        return f" [confirmed {', '.join(verify.gb_ids)}{because}]".replace(" ]", "]")
    if not verify.reason:
        return f" [{verify.verdict}]"
    return f" [{verify.verdict}{' ' if verify.verdict == 'refuted' else ': '}{verify.reason}]"


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    for finding in findings:
        out.write(format_finding(finding, run.color) + "\n")


def summary(findings: Sequence[Finding], files_checked: int, skipped: Sequence[str] = (), color: bool = False) -> str:
    counts = _counts(findings, files_checked)
    return paint(counts, "found" if findings else "passed", color) + _skipped(skipped)


def _skipped(folders: Sequence[str]) -> str:
    """What the run left out, so that an excluded sub-package never passes in silence."""
    if not folders:
        return ""
    shown = ", ".join(folders[:3]) + (f" and {len(folders) - 3} more" if len(folders) > 3 else "")
    noun = "folder" if len(folders) == 1 else "folders"
    return f" Skipped {len(folders)} excluded {noun} holding Python files: {shown}."


def _counts(findings: Sequence[Finding], files_checked: int) -> str:
    noun = "file" if files_checked == 1 else "files"
    if not findings:
        return f"All checks passed ({files_checked} {noun} checked)."
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
    by_code = ", ".join(f"{code}: {count}" for code, count in sorted(counts.items()))
    plural = "finding" if len(findings) == 1 else "findings"
    verdicts: dict[str, int] = {}
    for finding in findings:
        if finding.verify is not None:
            verdicts[finding.verify.verdict] = verdicts.get(finding.verify.verdict, 0) + 1
    verified = (" Verified: " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())) + ".") if verdicts else ""
    return f"Found {len(findings)} {plural} in {files_checked} {noun} checked ({by_code}).{verified}"
