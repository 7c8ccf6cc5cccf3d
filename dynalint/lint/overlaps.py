"""Engine stage: where two rules flag one spot, keep the stronger finding.

A rule declares the weaker rules it covers (``supersedes = ("DYN104",)`` on DYN103: a conversion inside a
slice bound is the slice's break). After the lint stage, and before suppressions, a finding whose code
is superseded is dropped when a finding of a superseding rule in the same file spans it. Rules stay
independent: each reports its own pattern in full, and selecting only the weaker rule still reports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from dynalint.model.finding import Finding

if TYPE_CHECKING:
    from dynalint.lint.rule import Rule


def superseded_by(rules: Sequence[type[Rule]]) -> dict[str, frozenset[str]]:
    """``weaker code -> the codes that supersede it`` among ``rules``."""
    stronger: dict[str, set[str]] = {}
    for rule in rules:
        for weaker in rule.supersedes:
            stronger.setdefault(weaker, set()).add(rule.code)
    return {code: frozenset(codes) for code, codes in stronger.items()}


def drop_superseded(findings: list[Finding], rules: Sequence[type[Rule]]) -> list[Finding]:
    """``findings`` (of one file) without those a stronger finding spans."""
    stronger = superseded_by(rules)
    if not stronger:
        return findings
    return [f for f in findings if not any(_spans(other, f) for other in findings if other.code in stronger.get(f.code, ()))]


def _spans(outer: Finding, inner: Finding) -> bool:
    return outer.filename == inner.filename and outer.start <= inner.start and inner.end <= outer.end
