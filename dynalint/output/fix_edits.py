"""Output, fixes: apply the fixes of one file's findings to its text, or show them as a unified diff.

The lint stage gives each fixable finding a ``Fix`` (text edits, ``lint/rewrites.py``); this module decides
which of them one pass applies. Fixes are taken in the order of their first edit. A fix whose edits
overlap an edit already taken waits for the next pass (``pipeline/fixing.py`` lints the new text and
asks again, as ruff does). Edits that are the same (``import torch`` asked by two fixes) are made once.
A fix after which the file no longer parses is dropped and said so: the text is never made worse.
Nothing here writes a file; ``pipeline/fixing.py`` does, when ``--fix`` asks.
"""

from __future__ import annotations

import ast
import difflib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from dynalint.model.finding import Edit, Finding
from dynalint.project.source_lines import python_lines


@dataclass
class Applied:
    """One pass over one file's text."""

    text: str
    applied: list[Finding] = field(default_factory=list)
    waiting: list[Finding] = field(default_factory=list)  # overlapped a fix taken in this pass
    dropped: list[tuple[Finding, str]] = field(default_factory=list)  # would have broken the file


def apply(text: str, findings: Sequence[Finding]) -> Applied:
    """The text with the fixes of ``findings`` applied that do not overlap one another and keep it parsing."""
    offsets = _Offsets(text)
    outcome = Applied(text)
    chosen: list[tuple[Finding, list[tuple[int, int, str]]]] = []  # the fixes that overlap no earlier one
    taken: list[tuple[int, int, str]] = []  # (start, end, content) of their edits
    for finding in sorted((f for f in findings if f.fix is not None), key=_first_edit):
        assert finding.fix is not None
        spans = [(offsets.of(edit.start.line, edit.start.column), offsets.of(edit.end.line, edit.end.column),
                  edit.content) for edit in finding.fix.edits]
        new = [span for span in spans if span not in taken]
        if any(_overlap(span, other) for span in new for other in taken):
            outcome.waiting.append(finding)
            continue
        taken += new
        chosen.append((finding, new))
    edited = _edited(text, taken)
    if _parses(edited):  # one parse when every fix is sound; one per fix to find those that are not
        outcome.applied = [finding for finding, _ in chosen]
    else:
        taken, edited = [], text
        for finding, new in chosen:
            trial = _edited(text, [*taken, *new])
            if _parses(trial):
                taken += new
                edited = trial
                outcome.applied.append(finding)
            else:
                outcome.dropped.append((finding, "the file would no longer parse"))
    outcome.text = edited
    return outcome


def unified_diff(path: str, before: str, after: str) -> str:
    """The ``--diff`` text of one file: ``a/path`` and ``b/path``, three lines of context."""
    lines = difflib.unified_diff(python_lines(before), python_lines(after), fromfile=f"a/{path}", tofile=f"b/{path}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _first_edit(finding: Finding) -> tuple[Edit, str]:
    assert finding.fix is not None
    return min(finding.fix.edits), finding.code


def _overlap(one: tuple[int, int, str], other: tuple[int, int, str]) -> bool:
    """Two edits touch the same text; two insertions at one point overlap too (their order would matter)."""
    (start, end, _), (other_start, other_end, _) = one, other
    if start == end and other_start == other_end:
        return start == other_start
    return start < other_end and other_start < end or (start == end and other_start < start < other_end) or (
        other_start == other_end and start < other_start < end)


def _edited(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    for start, end, content in sorted(edits, reverse=True):
        text = text[:start] + content + text[end:]
    return text


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like: the user's, not ours
            ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


class _Offsets:
    """1-based (line, column) in code points -> offset in the text, lines cut as Python cuts them."""

    def __init__(self, text: str) -> None:
        self.starts = [0]
        for line in python_lines(text):
            self.starts.append(self.starts[-1] + len(line))

    def of(self, line: int, column: int) -> int:
        if line > len(self.starts) - 1:  # the end of the file (an insertion after the last line)
            return self.starts[-1]
        return self.starts[line - 1] + column - 1
