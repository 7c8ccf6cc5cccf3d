"""The rule pages are the catalogue's documentation *and* its proof.

Statically, every Example block yields exactly its ``# error: CODE`` (line, code) pairs with only its
rule enabled, and every Use-instead (or When-this-does-not-apply) block yields nothing. Under real Dynamo
(torch 2.13 on the CPU, all blocks in one subprocess), what an Example must show depends on the page's
``Kind:`` (metadata line; ``break`` when absent), and every Use-instead block must show none of it:

- ``break``: every annotated line breaks the graph with one of the rule's GB ids and no other line breaks;
  Use-instead compiles without any break.
- ``recompile``: no break; some frame recompiles more than ``RECOMPILES_ALLOWED`` times (one recompile is
  automatic dynamic shapes doing its job) and every annotated line installed a guard that failed;
  Use-instead: no break, no frame recompiled more than that.
- ``rank-divergence`` (run as rank 0 and rank 1 under the fake process group): every annotated line
  breaks on some ranks and not on others, no other line breaks, and the ranks compile different numbers
  of graphs; Use-instead breaks on no rank.
- ``stale-value`` (every compiled call replayed eagerly): no break, and some call returns something else
  than the eager replay; Use-instead: no break, no mismatch.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from conftest import run_snippets

from dynalint.api import lint_source
from dynalint.checks import ALL_RULES
from dynalint.lint import rule_pages
from dynalint.output import rule_table
from dynalint.project.config import Config

PAGES = rule_pages.load_pages()
RULES = {rule.code: rule for rule in ALL_RULES}
KINDS = ("break", "recompile", "rank-divergence", "stale-value")
WHY = {"break": "Why does it break the graph?", "recompile": "Why does it recompile?",
       "rank-divergence": "Why does it break the graph?", "stale-value": "Why is the value stale?"}
HARNESS_MODES = {"rank-divergence": {"ranks": [0, 1]}, "stale-value": {"compare_eager": True}}
RECOMPILES_ALLOWED = 1


EXAMPLES = [b for page in PAGES.values() for b in page.blocks("Example")]
# Blocks under "When this does not apply" show settings under which the construct does not break:
# they are held to the same standard as "Use instead" (no finding, no break).
USE_INSTEAD = [
    b for page in PAGES.values() for section in ("Use instead", "When this does not apply") for b in page.blocks(section)
]


def test_every_rule_has_a_page_and_every_page_a_rule() -> None:
    assert set(PAGES) == set(RULES)


@pytest.mark.parametrize("code", sorted(PAGES))
def test_page_structure(code: str) -> None:
    page, rule = PAGES[code], RULES[code]
    assert page.name == rule.name
    assert page.path.name == f"{rule.code}-{rule.name}.md"
    metadata = page.text.splitlines()[2]
    assert page.kind in KINDS
    assert page.kind == rule.hazard, "the page's Kind: and the rule's `hazard` must agree"
    sections = ("What it does", WHY[page.kind], "Example", "Use instead", "When this does not apply", "References")
    assert [s for s in page.sections if s in set(WHY.values()) | set(sections)] == list(sections), \
        "sections missing or out of order"
    for gb_id in rule.gb_ids:
        assert gb_id in metadata, f"{gb_id} missing from the metadata line"
        assert f"gb/gb{gb_id[2:]}.html" in page.sections["References"], f"no reference page for {gb_id}"
    assert page.blocks("Example") and page.blocks("Use instead")


def _lint_pairs(block: rule_pages.Block) -> set[tuple[int, str]]:
    findings = lint_source(block.source, f"{block.id}.py", Config(select=(block.page,)))
    return {(f.start.line, f.code) for f in findings}


@pytest.mark.parametrize("block", EXAMPLES, ids=lambda b: b.id)
def test_example_yields_exactly_its_annotations(block: rule_pages.Block) -> None:
    expected = block.expected()
    assert expected, "an Example block must annotate at least one line with # error: CODE"
    assert {code for _, code in expected} == {block.page}
    assert _lint_pairs(block) == expected


@pytest.mark.parametrize("block", USE_INSTEAD, ids=lambda b: b.id)
def test_use_instead_yields_nothing(block: rule_pages.Block) -> None:
    assert not re.search(r"#\s*error:", block.source)
    assert _lint_pairs(block) == set()


@pytest.fixture(scope="session")
def dynamo_results() -> dict[str, dict]:
    return run_snippets([
        {"id": b.id, "source": b.source, **HARNESS_MODES.get(PAGES[b.page].kind, {})}
        for b in EXAMPLES + USE_INSTEAD
    ])


def _annotated(block: rule_pages.Block) -> set[int]:
    return {line for line, _ in block.expected()}


def _breaks(result: dict) -> set[tuple[int, str]]:
    return {(b["line"], b["gb_id"]) for b in result["breaks"]}


def _most_recompiles(result: dict) -> int:
    """Recompilations of the most recompiled frame (``compile_id`` is ``frame/attempt``)."""
    per_frame = Counter((r.get("rank"), r["compile_id"].split("/")[0]) for r in result["recompiles"])
    return max(per_frame.values(), default=0)


def _example_breaks(block: rule_pages.Block, result: dict) -> None:
    gb_ids = RULES[block.page].gb_ids
    observed = _breaks(result)
    for line in _annotated(block):
        assert any(gb in gb_ids for seen_line, gb in observed if seen_line == line), (
            f"line {line} did not break with one of {gb_ids}; Dynamo saw {sorted(observed)}"
        )
    unexplained = {(line, gb) for line, gb in observed if line not in _annotated(block)}
    assert not unexplained, f"breaks on lines the page does not annotate: {sorted(unexplained)}"


def _example_recompiles(block: rule_pages.Block, result: dict) -> None:
    assert not result["breaks"], result["breaks"]
    assert _most_recompiles(result) > RECOMPILES_ALLOWED, f"recompiles: {result['recompiles']}"
    guard_lines = {r["line"] for r in result["recompiles"]}
    for line in _annotated(block):
        assert line in guard_lines, f"no failing guard from line {line}; recompiles: {result['recompiles']}"


def _example_diverges(block: rule_pages.Block, result: dict) -> None:
    per_rank = {rank: {line for line, _ in _breaks(r)} for rank, r in result["per_rank"].items()}
    for line in _annotated(block):
        breaking = {rank for rank, lines in per_rank.items() if line in lines}
        assert breaking and breaking != set(per_rank), f"line {line} broke on ranks {sorted(breaking)} of {sorted(per_rank)}"
    unexplained = {line for lines in per_rank.values() for line in lines} - _annotated(block)
    assert not unexplained, f"breaks on lines the page does not annotate: {sorted(unexplained)}"
    graphs = {rank: r["graphs"] for rank, r in result["per_rank"].items()}
    assert len(set(graphs.values())) > 1, f"every rank compiled the same number of graphs: {graphs}"


def _example_goes_stale(block: rule_pages.Block, result: dict) -> None:
    assert not result["breaks"], result["breaks"]
    assert result["mismatches"], "every compiled call matched its eager replay"


EXAMPLE_CHECKS = {"break": _example_breaks, "recompile": _example_recompiles,
                  "rank-divergence": _example_diverges, "stale-value": _example_goes_stale}


@pytest.mark.torch
@pytest.mark.parametrize("block", EXAMPLES, ids=lambda b: b.id)
def test_example_really_shows_its_hazard_under_dynamo(block: rule_pages.Block, dynamo_results: dict[str, dict]) -> None:
    result = dynamo_results[block.id]
    assert result["error"] is None, result["error"]
    EXAMPLE_CHECKS[PAGES[block.page].kind](block, result)


@pytest.mark.torch
@pytest.mark.parametrize("block", USE_INSTEAD, ids=lambda b: b.id)
def test_use_instead_compiles_without_a_break(block: rule_pages.Block, dynamo_results: dict[str, dict]) -> None:
    result = dynamo_results[block.id]
    assert result["error"] is None, result["error"]
    assert result["breaks"] == [], result["breaks"]  # in the ranks mode: the union over the ranks
    kind = PAGES[block.page].kind
    if kind == "recompile":
        assert _most_recompiles(result) <= RECOMPILES_ALLOWED, f"recompiles: {result['recompiles']}"
    elif kind == "stale-value":
        assert result["mismatches"] == [], result["mismatches"]


def test_rule_table_is_generated_from_the_registry_and_the_pages_field_by_field() -> None:
    table = rule_table.as_markdown(rule_table.rows(ALL_RULES)).splitlines()[2:]
    assert len(table) == len(ALL_RULES), "one row per rule, in registry order"
    for rule, row in zip(ALL_RULES, table):
        link, name, summary, gb_ids = (cell.strip() for cell in row.strip("|").split(" | "))
        assert link == f"[{rule.code}](rules/{rule.code}-{rule.name}.md)"
        assert (rule_pages.CHECKOUT.parent / link[link.index("(") + 1:-1]).is_file(), link
        assert name == f"`{rule.name}`"
        assert summary == PAGES[rule.code].summary and summary, rule.code
        if rule.gb_ids:
            assert gb_ids == ", ".join(rule.gb_ids), rule.code
        else:  # hazards (recompiles, stale values, rank divergence) name what they cause instead
            assert not re.search(r"GB\d{4}", gb_ids) and rule.hazard != "break", rule.code


def test_readme_names_the_family_of_every_rule() -> None:
    readme = (rule_pages.CHECKOUT.parent / "README.md").read_text(encoding="utf-8")
    families = set(re.findall(r"^\| (DYN\d)xx \|", readme, flags=re.MULTILINE))
    assert {rule.code[:4] for rule in ALL_RULES} <= families
    assert not re.search(r"^\| \[DYN\d{3}\]", readme, flags=re.MULTILINE), "no hand-kept rule rows"
