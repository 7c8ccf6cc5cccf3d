"""``--add-noqa``: write ``# noqa: CODE`` on every line that has findings (the one command that edits files).

After the lint stage, in the CLI, only when asked. Each finding's line gets ``  # noqa: DYN201``
(codes merged into a ``# noqa: ...`` already there, added after any other comment). A line that ends
inside a multi-line string cannot hold a comment: the finding's last line is used instead, and if
that one cannot either, the finding is left and counted. Files are read and written as UTF-8 with
their own line endings, replaced atomically; a file in another encoding, or changed since it was
linted so that it no longer parses, is left untouched. ``noqa_lines`` is the merge on one text, which
the language server's quick fix applies to an unsaved buffer.
"""

from __future__ import annotations

import io
import os
import tempfile
import tokenize
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dynalint import registry, suppression
from dynalint.finding import Finding
from dynalint.lines import python_lines


@dataclass
class Added:
    directives: int = 0
    files: int = 0
    left: list[str] = field(default_factory=list)  # "path:line: why" for findings no comment could take


def add_noqa(findings: list[Finding]) -> Added:
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.code not in registry.DIAGNOSTIC_CODES:
            by_file[finding.filename].append(finding)
    added = Added()
    for filename, in_file in sorted(by_file.items()):
        count = _annotate(Path(filename), in_file, added.left)
        if count:
            added.directives += count
            added.files += 1
    return added


def _annotate(path: Path, findings: list[Finding], left: list[str]) -> int:
    try:
        text = path.read_bytes().decode("utf-8")
        rewritten, unplaced = noqa_lines(text, findings)
    except (OSError, UnicodeDecodeError, tokenize.TokenError, SyntaxError) as error:
        left.extend(f"{path}:{f.start.line}: file not annotated ({type(error).__name__})" for f in findings)
        return 0
    left.extend(f"{path}:{f.start.line}: the line ends inside a string" for f in unplaced)
    lines = python_lines(text)
    for number, line in rewritten.items():
        lines[number - 1] = line
    _replace(path, "".join(lines))
    return len(rewritten)


def noqa_lines(text: str, findings: Sequence[Finding]) -> tuple[dict[int, str], list[Finding]]:
    """The lines of ``text`` that take a directive (1-based number -> the line rewritten, its ending kept),
    and the findings whose lines cannot hold a comment. The language server's quick fix uses it too.

    Raises ``tokenize.TokenError`` or ``SyntaxError`` when ``text`` does not tokenize.
    """
    lines = python_lines(text)
    no_comment, comments = _line_facts(text)
    wanted: dict[int, set[str]] = defaultdict(set)
    unplaced = []
    for finding in findings:
        line = next((n for n in (finding.start.line, finding.end.line) if n not in no_comment), None)
        if line is None or not 0 < line <= len(lines):
            unplaced.append(finding)
            continue
        wanted[line].add(finding.code)
    rewritten = {
        number: _with_directive(lines[number - 1], sorted(codes), comments.get(number))
        for number, codes in wanted.items()
    }
    return rewritten, unplaced


def _line_facts(text: str) -> tuple[set[int], dict[int, tuple[int, str]]]:
    """Lines that end inside a string token, and each line's comment (column, text)."""
    inside: set[int] = set()
    comments: dict[int, tuple[int, str]] = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            inside.update(range(token.start[0], token.end[0]))
        elif token.type == tokenize.COMMENT:
            comments[token.start[0]] = (token.start[1], token.string)
    return inside, comments


def _with_directive(line: str, codes: list[str], comment: tuple[int, str] | None) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    if comment is not None:
        column, existing = comment
        listed = suppression.suppressions(existing + "\n").get(1)
        if listed is not None and "*" in listed:
            return line  # a bare ``# noqa`` already silences every code
        if listed is not None:
            merged = ", ".join(sorted(set(listed) | set(codes)))
            return body[:column] + f"# noqa: {merged}" + ending
    return f"{body.rstrip()}  # noqa: {', '.join(codes)}{ending}"


def _replace(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
