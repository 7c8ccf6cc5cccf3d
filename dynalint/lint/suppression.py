"""Engine stage: drop findings that the source suppresses with a comment.

Two spellings, on the line where a finding starts (or ends, for a statement spread over lines):
``# noqa`` / ``# noqa: DYN101, DYN2`` (flake8 / ruff users' habit) and ``# dynalint: ignore[DYN101]``
(unambiguous next to other linters). Bare ``# noqa`` and ``# dynalint: ignore`` silence every code.
Comments are found with ``tokenize`` so that a ``#`` inside a string is never taken for one.
"""

from __future__ import annotations

import re
import tokenize

from dynalint.model.finding import Finding
from dynalint.project.source_lines import python_lines

ALL = frozenset({"*"})
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*dynalint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")


def suppressions(source: str) -> dict[int, frozenset[str]]:
    """``line -> codes`` (``{"*"}`` for all) for every suppression comment in ``source``."""
    found: dict[int, frozenset[str]] = {}
    try:
        # Lines cut as Python cuts them: a lone ``\r`` ends a line, a U+2028 in a comment does not.
        tokens = list(tokenize.generate_tokens(iter(python_lines(source)).__next__))
    except (tokenize.TokenError, SyntaxError):
        return found
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        codes = _codes(token.string)
        if codes is not None:
            found[token.start[0]] = found.get(token.start[0], frozenset()) | codes
    return found


def _codes(comment: str) -> frozenset[str] | None:
    for pattern in (_IGNORE, _NOQA):
        match = pattern.search(comment)
        if match:
            listed = match.group("codes")
            if not listed:
                return ALL
            return frozenset(c.upper() for c in re.split(r"[\s,]+", listed.strip()) if c)
    return None


def is_suppressed(finding: Finding, by_line: dict[int, frozenset[str]]) -> bool:
    for line in {finding.start.line, finding.end.line}:
        codes = by_line.get(line)
        if codes and (codes is ALL or "*" in codes or any(finding.code.startswith(c) for c in codes)):
            return True
    return False


def apply(findings: list[Finding], source: str) -> list[Finding]:
    if not findings or ("noqa" not in source.lower() and "dynalint:" not in source):
        return findings  # no comment can suppress anything: skip tokenizing the file
    by_line = suppressions(source)
    return [f for f in findings if not is_suppressed(f, by_line)] if by_line else findings
