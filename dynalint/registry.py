"""Rule lookup by code, name or prefix, and the select / ignore arithmetic (used by config and engine).

``select`` and ``ignore`` accept full codes (``DYN101``), prefixes (``DYN1``, ``DYN``) and ``ALL``, as
ruff does, and rule names (``print-call``), which stand for their code. The enabled set is ``(select or defaults) + extend_select - ignore``; the more specific of a
select and an ignore entry wins, so ``select = ["DYN101"]`` with ``ignore = ["DYN1"]`` keeps DYN101.

The rule classes stay the one source of every rule's metadata, but importing them imports LibCST and
every rule module, which a run with no compiled code (or one answered from the cache) never needs.
So selection works on ``rule_index.py``, a table of each rule's code, name, default and torch range
that ``write_index`` generates from the classes (a test checks that it matches them); the classes are
imported only when a file is linted or a caller asks for them (``lookup``, ``BY_CODE``, ``classes``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from dynalint.diagnostics import ALL_DIAGNOSTICS
from dynalint.rule_index import RULES

if TYPE_CHECKING:
    from dynalint.rule import Rule


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
INDEX_PATH = Path(__file__).with_name("rule_index.py")
DOCS_URL = "https://github.com/dynalint/dynalint/blob/main/rules/{code}-{name}.md"
_NAME_BY_CODE = {entry.code: entry.name for entry in INDEX}


class UnknownSelector(ValueError):
    """A select / ignore entry that names no rule."""


@lru_cache(maxsize=1)
def _classes() -> dict[str, type[Rule]]:
    from dynalint.checks import ALL_RULES

    return {rule.code: rule for rule in ALL_RULES}


def __getattr__(name: str) -> object:
    # The class tables, imported on first use (see the module docstring).
    if name == "BY_CODE":
        return _classes()
    if name == "BY_NAME":
        return {rule.name: rule for rule in _classes().values()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def lookup(code_or_name: str) -> type[Rule] | None:
    code = CODE_BY_NAME.get(code_or_name.lower(), code_or_name.upper())
    return _classes().get(code)


def docs_url(code: str) -> str | None:
    """The page of the rule ``code`` (``None`` for a DYN9xx diagnostic or an unknown code)."""
    name = _NAME_BY_CODE.get(code)
    return DOCS_URL.format(code=code, name=name) if name else None


def classes(codes: Iterable[str]) -> list[type[Rule]]:
    """The rule classes of ``codes``, in the order given."""
    by_code = _classes()
    return [by_code[code] for code in codes]


def _matches(selector: str, code: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def check_selectors(selectors: Iterable[str]) -> None:
    resolve_selectors(selectors)


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


def enabled(select: Iterable[str] | None, extend_select: Iterable[str], ignore: Iterable[str]) -> list[type[Rule]]:
    """The classes of ``enabled_entries``."""
    return classes(entry.code for entry in enabled_entries(select, extend_select, ignore))


def diagnostic_enabled(code: str, select: Iterable[str] | None, extend_select: Iterable[str],
                       ignore: Iterable[str]) -> bool:
    """DYN9xx problems with the input are always shown unless an ignore entry names them specifically."""
    chosen = [*(select or []), *extend_select]
    return _specificity(list(ignore), code) <= _specificity(chosen, code)


# -- the index ------------------------------------------------------------------------------------
def index_text() -> str:
    """``rule_index.py`` as the rule classes say it should read."""
    from dynalint.checks import ALL_RULES

    rows = "".join(f"    ({r.code!r}, {r.name!r}, {r.default!r}, {r.torch!r}),\n" for r in ALL_RULES)
    return (
        '"""Generated by ``registry.write_index()`` from the rule classes; do not edit (a test checks it).\n\n'
        "Each rule's code, name, whether it is on by default, and its torch range, in catalogue order:\n"
        'what selecting rules needs, without importing them (see ``registry.py``).\n"""\n\n'
        f"RULES: tuple[tuple[str, str, bool, str], ...] = (\n{rows})\n"
    )


def write_index() -> None:
    """Regenerate ``rule_index.py`` after adding or changing a rule: ``python -m dynalint.registry``."""
    INDEX_PATH.write_text(index_text(), encoding="utf-8")


if __name__ == "__main__":
    write_index()
