"""What ``dynalint rules`` prints: one row per rule, from the registry and the rule pages.

A row joins the rule's metadata (code, name, GB ids, default, hazard) with its page's summary, so the
list is generated, never kept by hand. Rendered as aligned text, JSON, or a Markdown table with each
code linked to its page (the table the README points to).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from dynalint.lint import rule_pages

if TYPE_CHECKING:
    from dynalint.lint.rule import Rule

# What a hazard rule causes instead of a graph break, shown where GB ids would be.
HAZARD_EFFECTS = {"recompile": "recompiles", "stale-value": "stale value", "rank-divergence": "ranks diverge"}


@dataclass(frozen=True)
class RuleRow:
    code: str
    name: str
    summary: str
    gb_ids: list[str]
    hazard: str
    default: bool
    url: str


def rows(rules: Sequence[type[Rule]]) -> list[RuleRow]:
    pages = rule_pages.load_pages()
    return [
        RuleRow(
            rule.code, rule.name, pages[rule.code].summary if rule.code in pages else template_free(rule.message),
            list(rule.gb_ids), rule.hazard, rule.default, rule.url(),
        )
        for rule in rules
    ]


def effect(row: RuleRow) -> str:
    """The GB ids a rule predicts, or for a hazard what it causes instead."""
    if row.gb_ids:
        return ", ".join(row.gb_ids)
    return f"— ({HAZARD_EFFECTS.get(row.hazard, row.hazard)})"


def as_text(table: Sequence[RuleRow]) -> str:
    return "\n".join(f"{r.code}  {r.name:<24} {effect(r):<22} {r.summary}" for r in table)


def as_json(table: Sequence[RuleRow]) -> str:
    return json.dumps([asdict(r) for r in table], indent=2)


def as_markdown(table: Sequence[RuleRow]) -> str:
    lines = ["| code | name | what it flags | Dynamo ids |", "|---|---|---|---|"]
    lines += [
        f"| [{r.code}](rules/{r.code}-{r.name}.md) | `{r.name}` | {r.summary} | {effect(r)} |" for r in table
    ]
    return "\n".join(lines)


RENDERERS = {"text": as_text, "json": as_json, "markdown": as_markdown}


def template_free(message: str) -> str:
    """A rule's message template with its placeholders shown as ``...`` (an install without the pages)."""
    return re.sub(r"\{[a-z_]+\}", "...", message)
