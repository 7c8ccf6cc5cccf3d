"""Text reporter: ``path:line:col: CODE message``, then indented ``help:`` and ``compiled via:`` lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from dynalint.finding import Confidence, Finding


def format_finding(finding: Finding) -> str:
    confidence = " [likely]" if finding.confidence is Confidence.LIKELY else ""
    lines = [
        f"{finding.filename}:{finding.start.line}:{finding.start.column}: {finding.code} {finding.message}{confidence}"
    ]
    if finding.help:
        lines.append(f"  help: {finding.help}")
    if finding.region is not None:
        lines.append(f"  compiled via: {finding.region.describe()}")
    return "\n".join(lines)


def write(findings: Sequence[Finding], out: TextIO) -> None:
    for finding in findings:
        out.write(format_finding(finding) + "\n")


def summary(findings: Sequence[Finding], files_checked: int) -> str:
    noun = "file" if files_checked == 1 else "files"
    if not findings:
        return f"All checks passed ({files_checked} {noun} checked)."
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
    by_code = ", ".join(f"{code}: {count}" for code, count in sorted(counts.items()))
    plural = "finding" if len(findings) == 1 else "findings"
    return f"Found {len(findings)} {plural} in {files_checked} {noun} checked ({by_code})."
