"""Where two rules flag one spot, the engine keeps the stronger finding; selection never silences a rule.

DYN103 (a slice bounded by tensor data) supersedes DYN104 (``int(t)``) for a conversion inside the bound;
DYN301 (a disabled helper that issues collectives) supersedes DYN002 (a call of a disabled function) on
the same call. With both selected one finding remains; with only the weaker one selected it reports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dynalint.api import lint_source
from dynalint.checks import ALL_RULES
from dynalint.project.config import Config

SLICE = """\
import torch


@torch.compile
def f(x: torch.Tensor):
    return x[: int(x.sum())]
"""

COLLECTIVE = """\
import torch
import torch.distributed as dist


@torch.compiler.disable
def sync(t):
    dist.all_reduce(t)


@torch.compile
def step(x):
    sync(x)
    return x
"""


def _codes(source: str, select: tuple[str, ...] | None = None) -> list[tuple[str, int]]:
    return [(f.code, f.start.line) for f in lint_source(source, "overlap.py", Config(select=select))]


@pytest.mark.parametrize(
    ("source", "stronger", "weaker", "line"),
    [(SLICE, "DYN103", "DYN104", 6), (COLLECTIVE, "DYN301", "DYN002", 12)],
    ids=["slice bound", "disabled collective"],
)
def test_the_stronger_rule_wins_and_the_weaker_still_reports_alone(
    source: str, stronger: str, weaker: str, line: int
) -> None:
    assert _codes(source) == [(stronger, line)]
    assert _codes(source, (stronger, weaker)) == [(stronger, line)]
    assert _codes(source, (weaker,)) == [(weaker, line)]
    assert _codes(source, (stronger,)) == [(stronger, line)]


def test_every_superseded_code_names_a_rule() -> None:
    codes = {rule.code for rule in ALL_RULES}
    for rule in ALL_RULES:
        assert set(rule.supersedes) <= codes - {rule.code}, rule.code


def test_no_rule_imports_another_rule_or_the_summary_stage() -> None:
    checks = Path(__file__).resolve().parent.parent / "dynalint" / "checks"
    for module in sorted(checks.glob("*.py")):
        if module.name in ("__init__.py", "__main__.py"):  # the rule list and the index generator
            continue
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        assert not {name for name in imported if name.startswith(("dynalint.checks", "dynalint.analysis.summar"))}, module.name
