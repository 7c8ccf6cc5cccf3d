"""``--add-noqa``: write ``# noqa: CODE`` on every line that has findings (the one command that edits files).

After the lint stage, in the CLI, only when asked. Each finding's line gets ``  # noqa: DYN201``
(codes merged into a ``# noqa: ...`` already there, added after any other comment). A line that ends
inside a multi-line string cannot hold a comment: the finding's last line is used instead, and if
that one cannot either, the finding is left and counted. Files are read and written as UTF-8 with
their own line endings, replaced atomically; a file in another encoding, or changed since it was
linted so that it no longer parses, is left untouched. ``noqa_lines`` is the merge on one text, which
the language server's quick fix applies to an unsaved buffer.

In a notebook the directive goes on the finding's line of its cell (magic lines are read as the
``pass`` the linter saw, so they never confuse the tokenizer). The notebook's JSON is written back
only in the layout it was read in: dynalint finds the ``json.dumps`` settings (indent, key order,
escaping) that reproduce the file byte for byte, and a notebook no such setting reproduces is left
untouched, its findings listed; so is a cell whose ``source`` list is not split one line per string.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import tokenize
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dynalint.lint import suppression
from dynalint.model import selection
from dynalint.model.finding import Finding, in_cell
from dynalint.project import notebook
from dynalint.project.source_lines import python_lines


@dataclass
class Added:
    directives: int = 0
    files: int = 0
    left: list[str] = field(default_factory=list)  # "path:line: why" for findings no comment could take


def add_noqa(findings: list[Finding]) -> Added:
    by_file: dict[str, list[Finding]] = defaultdict(list)
    added = Added()
    for finding in findings:
        if finding.code not in selection.DIAGNOSTIC_CODES:
            by_file[finding.filename].append(finding)
    for filename, in_file in sorted(by_file.items()):
        annotate = _annotate_notebook if notebook.is_notebook(filename) else _annotate
        count = annotate(Path(filename), in_file, added.left)
        if count:
            added.directives += count
            added.files += 1
    return added


def _annotate(path: Path, findings: list[Finding], left: list[str]) -> int:
    try:
        text = path.read_bytes().decode("utf-8")
        annotated, count = _with_directives(text, text, findings, f"{path}:", left)
    except (OSError, UnicodeDecodeError, tokenize.TokenError, SyntaxError) as error:
        left.extend(f"{path}:{f.start.line}: file not annotated ({type(error).__name__})" for f in findings)
        return 0
    _replace(path, annotated)
    return count


def _with_directives(text: str, python: str, findings: list[Finding], where: str, left: list[str]) -> tuple[str, int]:
    """``text`` with a directive on each line its findings need, and how many lines got one.

    ``python`` is ``text`` as Python, line for line (a notebook cell with its magics blanked): it is
    what is tokenized for the lines' comments and strings.
    """
    rewritten, unplaced = noqa_lines(text, findings, python)
    left.extend(f"{where}{f.start.line}: the line ends inside a string" for f in unplaced)
    lines = python_lines(text)
    for number, line in rewritten.items():
        lines[number - 1] = line
    return "".join(lines), len(rewritten)


def noqa_lines(
    text: str, findings: Sequence[Finding], python: str | None = None
) -> tuple[dict[int, str], list[Finding]]:
    """The lines of ``text`` that take a directive (1-based number -> the line rewritten, its ending kept),
    and the findings whose lines cannot hold a comment. The language server's quick fix uses it too.
    ``python`` is ``text`` as Python line for line, when it differs (a notebook cell's magics blanked).

    Raises ``tokenize.TokenError`` or ``SyntaxError`` when the text does not tokenize.
    """
    lines = python_lines(text)
    no_comment, comments = _line_facts(text if python is None else python)
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


def _annotate_notebook(path: Path, findings: list[Finding], left: list[str]) -> int:
    def unannotated(why: str, which: list[Finding]) -> None:
        left.extend(f"{path}:{in_cell(f.cell)}{f.start.line}: notebook not annotated ({why})" for f in which)

    try:
        original = path.read_bytes().decode("utf-8")
        document = json.loads(original)
        cells = document["cells"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        unannotated(type(error).__name__, findings)
        return 0
    dump = _json_layout(document, original)
    if dump is None:
        unannotated("its JSON layout is not one dynalint can write back unchanged", findings)
        return 0
    by_cell: dict[int | None, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_cell[finding.cell].append(finding)
    count = 0
    for number, in_cell_findings in sorted(by_cell.items(), key=lambda item: item[0] or 0):
        cell = cells[number - 1] if number is not None and 0 < number <= len(cells) else None
        source = cell.get("source") if isinstance(cell, dict) else None
        text = source if isinstance(source, str) else "".join(source) if isinstance(source, list) else None
        if not isinstance(cell, dict) or text is None or (isinstance(source, list) and source != python_lines(text)):
            unannotated("the cell's source is not one string per line", in_cell_findings)
            continue
        try:
            annotated, added = _with_directives(text, notebook.python_of_cell(text), in_cell_findings,
                                                f"{path}:cell {number}:", left)
        except (tokenize.TokenError, SyntaxError) as error:
            unannotated(type(error).__name__, in_cell_findings)
            continue
        cell["source"] = annotated if isinstance(source, str) else python_lines(annotated)
        count += added
    if count:
        _replace(path, dump(document))
    return count


def _json_layout(document: object, original: str) -> Callable[[object], str] | None:
    """The ``json.dumps`` settings that write ``document`` back as ``original`` exactly (Jupyter's are the
    first tried: one-space indent, sorted keys, UTF-8 unescaped), or ``None`` when none does."""
    ending = "\n" if original.endswith("\n") else ""
    for indent in (1, 2, 4, None):
        for sort_keys in (True, False):
            for ensure_ascii in (False, True):
                def dump(value: object, indent: int | None = indent, sort_keys: bool = sort_keys,
                         ensure_ascii: bool = ensure_ascii) -> str:
                    return json.dumps(value, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii) + ending
                if dump(document) == original:
                    return dump
    return None


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
