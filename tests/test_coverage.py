"""The coverage map of torch's graph-break registry: complete, consistent with the rules, and its page current.

Tests marked ``torch`` read the installed torch's ``graph_break_registry.json`` (as JSON, never importing
torch); the others need only ``rules/coverage.toml`` and the rules.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from dynalint.checks import ALL_RULES
from dynalint.cli import main
from dynalint.lint import rule_pages
from dynalint.lint.rule import Rule
from dynalint.output import gb_coverage

DATA = gb_coverage.load_data(rule_pages.CHECKOUT / gb_coverage.DATA_NAME)


def _registry() -> dict[str, str]:
    path = gb_coverage.registry_path()
    assert path is not None, "torch is installed but its graph_break_registry.json was not found"
    return gb_coverage.load_registry(path)


def _data(ids: dict[str, dict[str, str]]) -> gb_coverage.CoverageData:
    return gb_coverage.CoverageData(reasons=DATA.reasons, ids=ids)


class _PredictsGB0001(Rule):
    code, name, message, help = "DYN999", "fake-rule", "m", "h"
    gb_ids = ("GB0001",)


# --- the real map -------------------------------------------------------------------------------------


@pytest.mark.torch
def test_the_map_classifies_every_registry_id_and_agrees_with_the_registry() -> None:
    assert gb_coverage.audit(DATA, ALL_RULES, _registry()) == []


def test_the_map_is_consistent_with_the_rules_without_torch() -> None:
    assert gb_coverage.audit(DATA, ALL_RULES, None) == []


@pytest.mark.torch
def test_every_gb_id_named_by_a_rule_is_in_the_registry() -> None:
    registry = _registry()
    assert {gb_id for rule in ALL_RULES for gb_id in rule.gb_ids} - set(registry) == set()


def test_the_breaks_the_issue_names_are_on_the_work_list_or_predicted() -> None:
    """Measured on torch 2.13: the GB id each source shape reports; they must stay findable."""
    entries = {entry.gb_id: entry for entry in gb_coverage.build(DATA, ALL_RULES)}
    # id -> (the shape, the rule that flags that very shape once there is one)
    named = {
        "GB0123": ("Tensor.backward()", "DYN501"), "GB9186": ("torch.autograd.grad", "DYN501"),
        "GB0206": ("setting requires_grad", "DYN502"), "GB0125": ("requires_grad_() on an input", "DYN502"),
        "GB0142": ("untraceable context managers", "DYN211"), "GB0014": ("nn.RNN / LSTM / GRU", "DYN505"),
        "GB8977": ("class statement", "DYN504"), "GB0264": ("nn.Module construction", "DYN503"),
        "GB4347": ("tp_iternext", "DYN111"), "GB0811": ("tp_iter", None), "GB0033": ("data-dependent factory ops", "DYN109"),
        "GB0059": ("tensor used as an int (range)", "DYN110"), "GB0124": ("tensor used as an index", "DYN110"),
    }
    for gb_id, (shape, flagged_by) in named.items():
        entry = entries[gb_id]
        assert entry.kind in (gb_coverage.PREDICTED, gb_coverage.NOT_YET), f"{gb_id} ({shape})"
        # Predicted by a rule that does not flag this shape: the entry must name the gap.
        assert entry.kind == gb_coverage.NOT_YET or flagged_by in entry.rules or entry.detail, f"{gb_id}: name the gap"


def test_counts_add_up_to_the_ids() -> None:
    entries = gb_coverage.build(DATA, ALL_RULES)
    assert sum(gb_coverage.counts(entries).values()) == len(entries) == len(DATA.ids)


# --- the audit catches each way the map can go wrong ---------------------------------------------------


def test_an_unclassified_id_is_reported() -> None:
    problems = gb_coverage.audit(_data({"GB0002": {"title": "t"}}), (), None)
    assert problems == [f"GB0002 is unclassified: no rule predicts it and {gb_coverage.DATA_NAME} gives no class"]


def test_a_registry_id_missing_from_the_data_is_reported() -> None:
    assert gb_coverage.audit(_data({}), (), {"GB0002": "t"}) == [
        f"GB0002 (t) is in the registry but not in {gb_coverage.DATA_NAME}"
    ]


def test_an_id_both_predicted_and_classified_is_reported() -> None:
    ids = {"GB0001": {"title": "t", "class": "invisible", "reason": "runtime"}}
    assert gb_coverage.audit(_data(ids), (_PredictsGB0001,), None) == [
        f"GB0001 is classified twice: invisible in {gb_coverage.DATA_NAME}, predicted by DYN999"
    ]


def test_a_rule_id_missing_from_the_registry_is_reported() -> None:
    problems = gb_coverage.audit(_data({"GB0001": {"title": "t"}}), (_PredictsGB0001,), {})
    assert "GB0001 is named by DYN999 but not in the registry" in problems


def test_a_data_id_missing_from_the_registry_is_reported() -> None:
    ids = {"GB9999": {"title": "t", "class": "not-yet", "trigger": "x"}}
    assert gb_coverage.audit(_data(ids), (), {}) == [f"GB9999 is in {gb_coverage.DATA_NAME} but not in the registry"]


def test_unknown_reasons_and_missing_triggers_are_reported() -> None:
    ids = {
        "GB0002": {"title": "t", "class": "invisible", "reason": "because"},
        "GB0003": {"title": "t", "class": "not-yet"},
    }
    assert gb_coverage.audit(_data(ids), (), None) == [
        "GB0002 is invisible with an unknown reason 'because'",
        "GB0003 is not-yet without a trigger",
    ]


# --- the command ----------------------------------------------------------------------------------------


def test_rules_coverage_prints_the_counts_and_every_id() -> None:
    result = CliRunner().invoke(main, ["rules", "--coverage"])
    assert result.exit_code == 0, result.output
    tally = gb_coverage.counts(gb_coverage.build(DATA, ALL_RULES))
    assert result.output.splitlines()[0] == (
        f"{len(DATA.ids)} GB ids: {tally['predicted']} predicted, {tally['invisible']} invisible, "
        f"{tally['not-yet']} not-yet"
    )
    assert all(gb_id in result.output for gb_id in DATA.ids)


def test_rules_coverage_markdown_is_the_rendered_map() -> None:
    result = CliRunner().invoke(main, ["rules", "--coverage", "--output-format", "markdown"])
    assert result.exit_code == 0
    assert result.output == gb_coverage.render_markdown(gb_coverage.build(DATA, ALL_RULES), DATA.reasons)


def test_rules_as_markdown_is_the_rule_table_not_the_coverage_map() -> None:
    result = CliRunner().invoke(main, ["rules", "--output-format", "markdown"])
    assert result.exit_code == 0
    assert result.output.startswith("| code | name | what it flags | Dynamo ids |")
    assert "GB0020" not in result.output  # an internal id no rule names
