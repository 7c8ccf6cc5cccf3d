"""The rule pages (``rules/*.md``): found, parsed and split into sections and example blocks.

Used by ``dynalint rule`` (print a page), by ``dynalint rules`` and by the test suite, which lints
every Example / Use-instead block and runs it under real Dynamo. In a wheel the pages ship inside the
package as ``dynalint/_rules``; in a checkout they are read from the top-level ``rules/`` folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # dynalint/
PACKAGED = _PACKAGE / "_rules"  # where the wheel puts rules/
CHECKOUT = _PACKAGE.parent / "rules"
_BLOCK = re.compile(r"^```python\n(?P<code>.*?)^```", re.MULTILINE | re.DOTALL)
_ANNOTATION = re.compile(r"#\s*error:\s*(?P<codes>DYN\d{3}(?:\s*,\s*DYN\d{3})*)")
_TITLE = re.compile(r"^# (?P<code>DYN\d{3}) `(?P<name>[a-z0-9-]+)`: (?P<summary>[^\n]*)")
_KIND = re.compile(r"Kind:\s*(?P<kind>[a-z-]+)")


@dataclass(frozen=True)
class Block:
    """One fenced python block of a page."""

    page: str  # the page's code
    section: str  # "Example", "Use instead", ...
    index: int  # 1-based within its section
    source: str
    first_line: int  # line of the page where the code starts

    @property
    def id(self) -> str:
        return f"{self.page}-{self.section.lower().replace(' ', '-')}-{self.index}"

    def expected(self) -> set[tuple[int, str]]:
        """The ``(line, code)`` pairs annotated with ``# error: CODE`` in this block."""
        pairs = set()
        for number, line in enumerate(self.source.splitlines(), start=1):
            match = _ANNOTATION.search(line)
            if match:
                pairs |= {(number, code.strip()) for code in match.group("codes").split(",")}
        return pairs


@dataclass(frozen=True)
class Page:
    path: Path
    code: str
    name: str
    summary: str  # the title after the colon: what the rule flags
    kind: str  # "break", or the hazard it proves instead ("recompile", "rank-divergence", "stale-value")
    text: str
    sections: dict[str, str]

    def blocks(self, section: str) -> list[Block]:
        body = self.sections.get(section, "")
        offset = self.text.index(body) if body else 0
        blocks = []
        for index, match in enumerate(_BLOCK.finditer(body), start=1):
            first_line = self.text.count("\n", 0, offset + match.start("code")) + 1
            blocks.append(Block(self.code, section, index, match.group("code"), first_line))
        return blocks


def pages_dir() -> Path | None:
    for candidate in (PACKAGED, CHECKOUT):
        if candidate.is_dir() and any(candidate.glob("DYN*.md")):
            return candidate
    return None


def parse_page(path: Path) -> Page:
    text = path.read_text(encoding="utf-8")
    title = _TITLE.match(text)
    if title is None:
        raise ValueError(f"{path}: the first line must be '# DYNnnn `name`: summary'")
    sections: dict[str, str] = {}
    for chunk in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        heading, _, body = chunk.partition("\n")
        sections[heading.strip()] = body
    metadata = text.splitlines()[2] if text.count("\n") >= 2 else ""
    kind = _KIND.search(metadata)
    return Page(
        path, title.group("code"), title.group("name"), title.group("summary").strip(),
        kind.group("kind") if kind else "break", text, sections,
    )


def load_pages() -> dict[str, Page]:
    """Every page, by code."""
    directory = pages_dir()
    if directory is None:
        return {}
    return {page.code: page for page in map(parse_page, sorted(directory.glob("DYN*.md")))}
