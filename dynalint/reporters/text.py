"""Text reporter (the default): ``path:line:col: CODE message``, then indented ``help:`` and ``compiled via:`` lines.

Its pieces (``headline``, ``describe``, ``details``) are what the concise, github and junit formats
show, so that a finding reads the same everywhere. ``summary`` is the line the CLI writes to stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from dynalint.finding import Confidence, Finding
from dynalint.reporters.run import Run


def format_finding(finding: Finding) -> str:
    """The finding as the ``text`` format shows it: the headline, then its indented details."""
    return "\n".join([headline(finding), *(f"  {line}" for line in details(finding))])


def headline(finding: Finding) -> str:
    """``path:line:col: CODE message [likely]``: the first line, and all of the ``concise`` format."""
    return f"{finding.filename}:{finding.start.line}:{finding.start.column}: {describe(finding)}"


def describe(finding: Finding) -> str:
    """``CODE message`` with the confidence and verdict tags, without a position."""
    confidence = " [likely]" if finding.confidence is Confidence.LIKELY else ""
    return f"{finding.code} {finding.message}{confidence}{_verdict(finding)}"


def details(finding: Finding) -> list[str]:
    """The ``help:`` and ``compiled via:`` lines, unindented."""
    lines = []
    if finding.help:
        lines.append(f"help: {finding.help}")
    if finding.region is not None:
        lines.append(f"compiled via: {finding.region.describe()}")
    return lines


def _verdict(finding: Finding) -> str:
    """`` [confirmed GB0170]``, `` [refuted for ...]``, `` [not reached: why]``, `` [unverifiable: why]``
    after ``--verify`` (a refuted verdict's reason names the inputs: ``for factory `m:f`'s inputs ...``)."""
    verify = finding.verify
    if verify is None:
        return ""
    if verify.verdict == "confirmed":
        return f" [confirmed {', '.join(verify.gb_ids)}]".replace(" ]", "]")
    if not verify.reason:
        return f" [{verify.verdict}]"
    return f" [{verify.verdict}{' ' if verify.verdict == 'refuted' else ': '}{verify.reason}]"


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    for finding in findings:
        out.write(format_finding(finding) + "\n")


def summary(findings: Sequence[Finding], files_checked: int, skipped: Sequence[str] = ()) -> str:
    return _counts(findings, files_checked) + _skipped(skipped)


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
