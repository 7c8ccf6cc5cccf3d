"""Rule lookup by code, name or prefix, and the select / ignore arithmetic (used by config and engine).

``select`` and ``ignore`` accept full codes (``DYN101``), prefixes (``DYN1``, ``DYN``) and ``ALL``, as
ruff does, and rule names (``print-call``), which stand for their code. The enabled set is ``(select or defaults) + extend_select - ignore``; the more specific of a
select and an ignore entry wins, so ``select = ["DYN101"]`` with ``ignore = ["DYN1"]`` keeps DYN101.
"""

from __future__ import annotations

from collections.abc import Iterable

from dynalint.checks import ALL_RULES
from dynalint.diagnostics import ALL_DIAGNOSTICS
from dynalint.rule import Rule

BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
BY_NAME: dict[str, type[Rule]] = {rule.name: rule for rule in ALL_RULES}
DIAGNOSTIC_CODES = frozenset(d.code for d in ALL_DIAGNOSTICS)
KNOWN_CODES = frozenset(BY_CODE) | DIAGNOSTIC_CODES


class UnknownSelector(ValueError):
    """A select / ignore entry that names no rule."""


def lookup(code_or_name: str) -> type[Rule] | None:
    return BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name.lower())


def _matches(selector: str, code: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


DIAGNOSTIC_BY_NAME = {d.name: d.code for d in ALL_DIAGNOSTICS}


def check_selectors(selectors: Iterable[str]) -> None:
    resolve_selectors(selectors)


def resolve_selectors(selectors: Iterable[str]) -> tuple[str, ...]:
    """The selectors as codes and prefixes (a rule name becomes its code); ``UnknownSelector`` for one
    that names nothing."""
    resolved = []
    for selector in selectors:
        name = selector.strip().lower()
        code = BY_NAME[name].code if name in BY_NAME else DIAGNOSTIC_BY_NAME.get(name, selector.strip().upper())
        if code != "ALL" and not any(known.startswith(code) for known in KNOWN_CODES):
            raise UnknownSelector(selector)
        resolved.append(code)
    return tuple(resolved)


def _specificity(selectors: Iterable[str], code: str) -> int:
    """Length of the longest selector matching ``code`` (``ALL`` counts as 0), -1 when none does."""
    return max((0 if s == "ALL" else len(s) for s in selectors if _matches(s, code)), default=-1)


def _selected(code: str, chosen: list[str], ignore: list[str]) -> bool:
    return _specificity(chosen, code) > _specificity(ignore, code)


def enabled(select: Iterable[str] | None, extend_select: Iterable[str], ignore: Iterable[str]) -> list[type[Rule]]:
    """The rules switched on by these selectors, in code order.

    Without ``select`` the default rules are selected as if by ``ALL`` (the least specific selector),
    so any ``ignore`` entry, even ``ALL`` or a prefix, switches them off.
    """
    ignored, extended = list(ignore), list(extend_select)
    if select is None:
        return [
            rule
            for rule in ALL_RULES
            if (rule.default and _selected(rule.code, ["ALL"], ignored)) or _selected(rule.code, extended, ignored)
        ]
    return [rule for rule in ALL_RULES if _selected(rule.code, [*select, *extended], ignored)]


def diagnostic_enabled(code: str, select: Iterable[str] | None, extend_select: Iterable[str],
                       ignore: Iterable[str]) -> bool:
    """DYN9xx problems with the input are always shown unless an ignore entry names them specifically."""
    chosen = [*(select or []), *extend_select]
    return _specificity(list(ignore), code) <= _specificity(chosen, code)
