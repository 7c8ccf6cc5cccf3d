"""Rule selection without the rule classes: the select / ignore arithmetic over the rule index.

``select`` and ``ignore`` accept full codes (``DYN101``), prefixes (``DYN1``, ``DYN``) and ``ALL``, as
ruff does, and rule names (``print-call``), which stand for their code. The enabled set is ``(select or defaults) + extend_select - ignore``; the more specific of a
select and an ignore entry wins, so ``select = ["DYN101"]`` with ``ignore = ["DYN1"]`` keeps DYN101.

The rule classes stay the one source of every rule's metadata, but importing them imports LibCST and
every rule module, which a run with no compiled code (or one answered from the cache) never needs.
So selection works on ``rule_index.py``, a table of each rule's code, name, default and torch range
that ``python -m dynalint.checks`` generates from the classes (a test checks that it matches them); the
classes are looked up in ``dynalint.checks`` (``lookup``, ``BY_CODE``, ``classes``), which only the
stages that need them import.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from dynalint.model.diagnostics import ALL_DIAGNOSTICS
from dynalint.model.finding import Applicability
from dynalint.model.rule_index import RULES


class IndexEntry(NamedTuple):
    """What selection needs of a rule, without importing it."""

    code: str
    name: str
    default: bool
    torch: str


INDEX: tuple[IndexEntry, ...] = tuple(IndexEntry(*row) for row in RULES)
CODE_BY_NAME = {entry.name: entry.code for entry in INDEX}
DIAGNOSTIC_CODES = frozenset(d.code for d in ALL_DIAGNOSTICS)
KNOWN_CODES = frozenset(entry.code for entry in INDEX) | DIAGNOSTIC_CODES
DIAGNOSTIC_BY_NAME = {d.name: d.code for d in ALL_DIAGNOSTICS}
INDEX_PATH = Path(__file__).with_name("rule_index.py")  # rewritten by ``python -m dynalint.checks``
DOCS_URL = "https://github.com/dynalint/dynalint/blob/main/rules/{code}-{name}.md"
_NAME_BY_CODE = {entry.code: entry.name for entry in INDEX}


class UnknownSelector(ValueError):
    """A select / ignore entry that names no rule."""


def docs_url(code: str) -> str | None:
    """The page of the rule ``code`` (``None`` for a DYN9xx diagnostic or an unknown code)."""
    name = _NAME_BY_CODE.get(code)
    return DOCS_URL.format(code=code, name=name) if name else None


GB_PAGE_URL = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{lower}.html"


def gb_page(gb_id: str) -> str:
    """The graph-break site's page of a GB id (``GB0059`` -> ``.../gb/gb0059.html``)."""
    return GB_PAGE_URL.format(lower=gb_id.lower())


def finding_url(code: str, gb_ids: tuple[str, ...]) -> str | None:
    """Where a finding is explained: its rule's page; for a break no rule predicted (DYN090), the page
    of the GB id Dynamo gave; ``None`` for other diagnostics."""
    return docs_url(code) or (gb_page(gb_ids[0]) if gb_ids else None)


def _matches(selector: str, code: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def resolve_selectors(selectors: Iterable[str]) -> tuple[str, ...]:
    """The selectors as codes and prefixes (a rule name becomes its code); ``UnknownSelector`` for one
    that names nothing."""
    resolved = []
    for selector in selectors:
        name = selector.strip().lower()
        code = CODE_BY_NAME.get(name) or DIAGNOSTIC_BY_NAME.get(name, selector.strip().upper())
        if code != "ALL" and not any(known.startswith(code) for known in KNOWN_CODES):
            raise UnknownSelector(selector)
        resolved.append(code)
    return tuple(resolved)


def _specificity(selectors: Iterable[str], code: str) -> int:
    """Length of the longest selector matching ``code`` (``ALL`` counts as 0), -1 when none does."""
    return max((0 if s == "ALL" else len(s) for s in selectors if _matches(s, code)), default=-1)


def _selected(code: str, chosen: list[str], ignore: list[str]) -> bool:
    return _specificity(chosen, code) > _specificity(ignore, code)


def enabled_entries(select: Iterable[str] | None, extend_select: Iterable[str],
                    ignore: Iterable[str]) -> list[IndexEntry]:
    """The rules switched on by these selectors, in code order.

    Without ``select`` the default rules are selected as if by ``ALL`` (the least specific selector),
    so any ``ignore`` entry, even ``ALL`` or a prefix, switches them off.
    """
    ignored, extended = list(ignore), list(extend_select)
    if select is None:
        return [
            entry
            for entry in INDEX
            if (entry.default and _selected(entry.code, ["ALL"], ignored)) or _selected(entry.code, extended, ignored)
        ]
    return [entry for entry in INDEX if _selected(entry.code, [*select, *extended], ignored)]


def diagnostic_enabled(code: str, select: Iterable[str] | None, extend_select: Iterable[str],
                       ignore: Iterable[str]) -> bool:
    """DYN9xx problems with the input are always shown unless an ignore entry names them specifically."""
    chosen = [*(select or []), *extend_select]
    return _specificity(list(ignore), code) <= _specificity(chosen, code)


def fix_applicability(
    code: str, applicability: Applicability, *, fixable: Iterable[str] | None, unfixable: Iterable[str],
    extend_safe: Iterable[str], extend_unsafe: Iterable[str],
) -> Applicability | None:
    """How a rule's fix counts under the config (ruff's keys): ``None`` when ``fixable`` / ``unfixable``
    rule it out; an unsafe fix becomes safe under ``extend-safe-fixes`` and a safe one unsafe under
    ``extend-unsafe-fixes`` (the more specific selector wins). Display-only fixes stay display-only."""
    if not _selected(code, list(fixable) if fixable is not None else ["ALL"], list(unfixable)):
        return None
    if applicability is Applicability.DISPLAY_ONLY:
        return applicability
    safe, unsafe = _specificity(extend_safe, code), _specificity(extend_unsafe, code)
    if safe > unsafe:
        return Applicability.SAFE
    if unsafe > safe:
        return Applicability.UNSAFE
    return applicability
