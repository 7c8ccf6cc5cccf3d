"""Files stage, for Jupyter notebooks: a ``.ipynb`` file as the Python text of its code cells.

The cells of a notebook run one after another in one namespace, so a function defined in cell 2 and
compiled in cell 5 is one program: the code cells are joined into one module, each cell starting on a
line of its own, and that module goes through the pipeline like any ``.py`` file (its summary, its
regions, its ``# noqa`` comments). ``Notebook.place`` then turns a line of the joined text back into
the cell it came from: ``cell`` is the cell's 1-based position among *all* the notebook's cells
(markdown included), as ruff counts, and the line is the line inside that cell.

IPython syntax that is not Python is blanked, one line for one line, so that ``ast`` and LibCST parse
the rest and every position still maps: line magics (``%time f()``), shell escapes (``!pip install``),
their assigned forms (``files = !ls``), help (``obj?``, ``??obj``), and cell magics (``%%bash``: the
whole cell, whose body is another language; ``%%time`` and the other magics whose body is Python
keep the body). A line counts as IPython syntax only where a logical line starts, so ``% (a, b)``
continuing a bracketed expression stays Python. A blanked line becomes ``pass`` at its indentation,
so that a block whose only line was a magic still parses.

A file that is not JSON, or not a notebook (no ``cells`` list, a cell without a usable ``source``), is
a DYN902 diagnostic; a notebook whose kernel is not Python has no code to lint.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dynalint.model import diagnostics
from dynalint.model.finding import ChainLink, Finding, Position

SUFFIX = ".ipynb"
# Cell magics whose body is Python run under the magic: the magic line is blanked, the body is linted.
PYTHON_BODY_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})

_HELP = re.compile(r"\s*(\?{1,2}[\w.*]+|[\w.*]+\?{1,2})\s*$")
_ASSIGNED_MAGIC = re.compile(r"\s*[A-Za-z_][\w.\[\]'\", ]*=\s*[!%]")
_CELL_MAGIC = re.compile(r"\s*%%(\w+)")
_LINE_END = re.compile(r"\r\n|\r|\n")


def is_notebook(path: Path | str) -> bool:
    return str(path).lower().endswith(SUFFIX)


@dataclass(frozen=True)
class Notebook:
    """The Python of a notebook's code cells, and where each cell starts in it."""

    text: str
    starts: tuple[int, ...] = ()  # the first line (1-based) of each code cell in ``text``, ascending
    numbers: tuple[int, ...] = ()  # each of those cells' 1-based position in the notebook

    def locate(self, line: int) -> tuple[int, int] | None:
        """``(cell, line in cell)`` for a line of ``text``; ``None`` before the first code cell."""
        index = bisect.bisect_right(self.starts, line) - 1
        if index < 0:
            return None
        return self.numbers[index], line - self.starts[index] + 1

    def place(self, finding: Finding) -> Finding:
        """The finding with its cell set and its lines counted inside that cell."""
        start = self.locate(finding.start.line)
        if start is None:
            return finding
        cell, line = start
        end = self.locate(finding.end.line)
        end_position = Position(end[1], finding.end.column) if end is not None and end[0] == cell else (
            Position(line, finding.start.column))
        return replace(finding, cell=cell, start=Position(line, finding.start.column), end=end_position)

    def place_link(self, link: ChainLink) -> ChainLink:
        where = self.locate(link.line) if link.line > 0 else None
        return link if where is None else replace(link, cell=where[0], line=where[1])


def place_all(findings: Sequence[Finding], notebooks: dict[str, Notebook]) -> list[Finding]:
    """Every finding in notebook coordinates where its file, or a link of its why-chain, is a notebook."""
    if not notebooks:
        return list(findings)
    placed = []
    for finding in findings:
        own = notebooks.get(finding.filename)
        if own is not None:
            finding = own.place(finding)
        region = finding.region
        if region is not None and any(link.filename in notebooks for link in region.chain):
            chain = tuple(notebooks[link.filename].place_link(link) if link.filename in notebooks else link
                          for link in region.chain)
            finding = replace(finding, region=replace(region, chain=chain))
        placed.append(finding)
    return placed


def _lone_surrogate(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return text[error.start]
    return None


def parse(data: bytes, display: str) -> Notebook | Finding:
    """The notebook in ``data``, or the DYN902 that says why it is not one."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        return diagnostics.unreadable(display, f"a notebook must be UTF-8 JSON: not valid UTF-8 at byte {error.start}")
    except json.JSONDecodeError as error:
        return diagnostics.unreadable(
            display, f"not a valid notebook: not JSON ({error.msg} at line {error.lineno}, column {error.colno})")
    except RecursionError:
        return diagnostics.unreadable(display, "not a valid notebook: JSON nested too deeply")
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        old = isinstance(document, dict) and "worksheets" in document
        why = ("an nbformat 3 notebook (`worksheets`); convert it with `jupyter nbconvert --to notebook`" if old
               else "no `cells` list")
        return diagnostics.unreadable(display, f"not a valid notebook: {why}")
    if not _python_kernel(document.get("metadata")):
        return Notebook("")
    pieces: list[str] = []
    starts: list[int] = []
    numbers: list[int] = []
    next_line = 1
    for number, cell in enumerate(document["cells"], start=1):
        if not isinstance(cell, dict):
            return diagnostics.unreadable(display, f"not a valid notebook: cell {number} is not an object")
        if cell.get("cell_type") != "code":
            continue
        source = _source(cell.get("source"))
        if source is None:
            return diagnostics.unreadable(
                display, f"not a valid notebook: cell {number}'s `source` is neither a string nor a list of strings")
        python = python_of_cell(source)
        if not python:
            continue
        surrogate = _lone_surrogate(python)
        if surrogate is not None:  # JSON can escape one (``"\\ud800"``); it is no character: unreadable, not syntax
            return diagnostics.unreadable(
                display, f"cell {number} holds a lone surrogate (U+{ord(surrogate):04X}), which is no Unicode character")
        starts.append(next_line)
        numbers.append(number)
        pieces.append(python)
        next_line += python.count("\n")
    return Notebook("".join(pieces), tuple(starts), tuple(numbers))


def _python_kernel(metadata: object) -> bool:
    """Whether the notebook's language is Python (or unstated: most notebooks dynalint is asked about are)."""
    if not isinstance(metadata, dict):
        return True
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        info = metadata.get(key)
        if isinstance(info, dict) and isinstance(info.get(field), str):
            return info[field].lower() == "python"
    return True


def _source(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(piece, str) for piece in value):
        return "".join(value)
    return None


def cell_lines(data: bytes) -> dict[int, list[str]]:
    """Each code cell's source lines as written (magics kept), by cell number; empty when not a notebook."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return {}
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        return {}
    lines = {}
    for number, cell in enumerate(cells, start=1):
        source = _source(cell.get("source")) if isinstance(cell, dict) else None
        if source is not None:
            lines[number] = split_lines(source)
    return lines


def split_lines(source: str) -> list[str]:
    """A cell's lines, cut where Python ends a line (``\\n``, ``\\r\\n``, a lone ``\\r``), without endings."""
    lines = _LINE_END.split(source)
    return lines[:-1] if lines and lines[-1] == "" else lines


def python_of_cell(source: str) -> str:
    """The cell as Python: IPython syntax blanked line for line, newline-terminated (``""`` when empty)."""
    lines = split_lines(source)
    if not any(line.strip() for line in lines):
        return ""
    first = next(line for line in lines if line.strip())
    cell_magic = _CELL_MAGIC.match(first)
    if cell_magic is not None:
        if cell_magic.group(1) not in PYTHON_BODY_CELL_MAGICS:
            return "\n" * len(lines)
        magic_line = lines.index(first)
        lines = [("" if index == magic_line else line) for index, line in enumerate(lines)]
    return "".join(f"{line}\n" for line in _blank_magics(lines))


def _blank_magics(lines: list[str]) -> Iterator[str]:
    scanner = _Scanner()
    in_magic = False  # the previous line was IPython syntax ending in a backslash: this one goes on with it
    for line in lines:
        if in_magic:
            in_magic = line.endswith("\\")
            yield ""
            continue
        if scanner.at_statement_start() and _is_ipython(line):
            in_magic = line.endswith("\\")
            indent = line[: len(line) - len(line.lstrip())]
            yield f"{indent}pass"
            continue
        scanner.feed(line)
        yield line


def _is_ipython(line: str) -> bool:
    stripped = line.lstrip()
    return (stripped.startswith(("%", "!")) or _HELP.match(line) is not None
            or _ASSIGNED_MAGIC.match(line) is not None)


class _Scanner:
    """Just enough of Python's tokenizer to know whether a line starts a logical line: open brackets,
    strings that go on over lines (triple quotes, a backslash), and backslash continuations."""

    def __init__(self) -> None:
        self.depth = 0
        self.string: str | None = None  # the closing quote of a string still open at the end of a line
        self.continued = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.string is None and not self.continued

    def feed(self, line: str) -> None:
        self.continued = False
        index, length = 0, len(line)
        while index < length:
            if self.string is not None:
                index = self._close(line, index)
                if self.string is not None:
                    return  # the string goes on to the next line
                continue
            char = line[index]
            if char == "#":
                return
            if char in "\"'":
                quote = line[index:index + 3] if line[index:index + 3] in ('"""', "'''") else char
                self.string = quote
                index += len(quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char == "\\" and index == length - 1:
                self.continued = True
            index += 1

    def _close(self, line: str, index: int) -> int:
        """Skip to the end of the open string on this line; it stays open if the line ends first."""
        quote = self.string or ""
        while index < len(line):
            if line[index] == "\\":
                if index == len(line) - 1:
                    return len(line)  # an escaped newline: the string goes on
                index += 2
                continue
            if line.startswith(quote, index):
                self.string = None
                return index + len(quote)
            index += 1
        if len(quote) == 1:
            self.string = None  # an unterminated one-line string: Python's error to report, not ours
        return index
