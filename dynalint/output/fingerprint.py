"""Fingerprints of findings that survive unrelated edits (read by reporters after the lint stage).

A fingerprint names a finding by what it is rather than where it is: the code, the file, the
qualified name of the function holding it and the tokens of its line (spacing and comment left out), plus
its rank among findings that share all four. Lines inserted or removed elsewhere in the file, or
the file reformatted around the finding, leave it unchanged; editing the flagged line itself changes
it. GitLab Code Quality and SARIF's ``partialFingerprints`` carry it, so that a CI server tracks a
finding across commits instead of seeing it fixed and reintroduced each time the code above moves.

DYN9xx diagnostics (a file that cannot be read or parsed) are named by code and file only: their
line may not be readable, and one such finding per file is the norm. In a notebook the line is read
from the finding's cell, as written (the cell number itself is left out: moving code to another cell
keeps its fingerprint).
"""

from __future__ import annotations

import hashlib
import io
import os
import tokenize
from collections import Counter
from collections.abc import Sequence

from dynalint.model import selection
from dynalint.model.finding import Finding
from dynalint.project import notebook

_LAYOUT = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                     tokenize.ENDMARKER})


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    """One fingerprint per finding, in order; findings must come sorted (as the engine returns them)."""
    sources = _SourceLines()
    seen: Counter[tuple[str, ...]] = Counter()
    prints = []
    for finding in findings:
        identity = _identity(finding, sources)
        seen[identity] += 1
        text = "\0".join([*identity, str(seen[identity])])
        prints.append(hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    return prints


def _identity(finding: Finding, sources: _SourceLines) -> tuple[str, ...]:
    if finding.code in selection.DIAGNOSTIC_CODES:
        return (finding.code, finding.filename)
    function = finding.region.function if finding.region is not None else ""
    return (finding.code, finding.filename, function, normalized(sources.line(finding.filename, finding.start.line, finding.cell)))


def normalized(line: str) -> str:
    """A line's tokens, one space apart, without its comment: what a formatter's spacing cannot change.

    A line is often part of a statement (an open bracket, a string that goes on): the tokens read
    before the tokenizer gives up are kept. Only where it reads none do the whitespace-split words stand in.
    """
    words: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type not in _LAYOUT:
                words.append(token.string)
    except (tokenize.TokenError, SyntaxError):
        pass
    return " ".join(words) if words else " ".join(line.split())


class _SourceLines:
    """The lines of each finding's file, read once (with its PEP 263 encoding; universal newlines)."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}
        self._cells: dict[str, dict[int, list[str]]] = {}

    def line(self, filename: str, number: int, cell: int | None = None) -> str:
        if cell is not None:
            if filename not in self._cells:
                self._cells[filename] = self._read_cells(filename)
            lines = self._cells[filename].get(cell, [])
        else:
            if filename not in self._lines:
                self._lines[filename] = self._read(filename)
            lines = self._lines[filename]
        return lines[number - 1] if 0 < number <= len(lines) else ""

    @staticmethod
    def _read_cells(filename: str) -> dict[int, list[str]]:
        if not os.path.isfile(filename):
            return {}
        try:
            with open(filename, "rb") as handle:
                return notebook.cell_lines(handle.read())
        except OSError:
            return {}

    @staticmethod
    def _read(filename: str) -> list[str]:
        # Standard input and files gone since the lint stage have no lines: the rest of the identity stays.
        # Only regular files are opened: a FIFO named like the stdin file would block.
        if not os.path.isfile(filename):
            return []
        try:
            with tokenize.open(filename) as handle:
                return handle.read().split("\n")
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            return []
