"""The rule pages are the catalogue's documentation *and* its proof.

Statically, every Example block yields exactly its ``# error: CODE`` (line, code) pairs with only its
rule enabled, and every Use-instead (or When-this-does-not-apply) block yields nothing. Under real Dynamo (torch 2.13 on the CPU,
all blocks in one subprocess), every annotated line of an Example breaks the graph with one of the
rule's GB ids, no other line of it breaks, and every Use-instead block compiles without any break.
"""

from __future__ import annotations

import re

import pytest

from dynalint import catalog
from dynalint.api import lint_source
from dynalint.checks import ALL_RULES
from dynalint.config import Config

from conftest import run_snippets

PAGES = catalog.load_pages()
RULES = {rule.code: rule for rule in ALL_RULES}
SECTIONS = ("What it does", "Why does it break the graph?", "Example", "Use instead", "When this does not apply",
            "References")
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
    assert [s for s in page.sections if s in SECTIONS] == list(SECTIONS), "sections missing or out of order"
    metadata = page.text.splitlines()[2]
    for gb_id in rule.gb_ids:
        assert gb_id in metadata, f"{gb_id} missing from the metadata line"
        assert f"gb/gb{gb_id[2:]}.html" in page.sections["References"], f"no reference page for {gb_id}"
    assert page.blocks("Example") and page.blocks("Use instead")


def _lint_pairs(block: catalog.Block) -> set[tuple[int, str]]:
    findings = lint_source(block.source, f"{block.id}.py", Config(select=(block.page,)))
    return {(f.start.line, f.code) for f in findings}


@pytest.mark.parametrize("block", EXAMPLES, ids=lambda b: b.id)
def test_example_yields_exactly_its_annotations(block: catalog.Block) -> None:
    expected = block.expected()
    assert expected, "an Example block must annotate at least one line with # error: CODE"
    assert {code for _, code in expected} == {block.page}
    assert _lint_pairs(block) == expected


@pytest.mark.parametrize("block", USE_INSTEAD, ids=lambda b: b.id)
def test_use_instead_yields_nothing(block: catalog.Block) -> None:
    assert not re.search(r"#\s*error:", block.source)
    assert _lint_pairs(block) == set()


@pytest.fixture(scope="session")
def dynamo_results() -> dict[str, dict]:
    return run_snippets([{"id": b.id, "source": b.source} for b in EXAMPLES + USE_INSTEAD])


@pytest.mark.torch
@pytest.mark.parametrize("block", EXAMPLES, ids=lambda b: b.id)
def test_example_really_breaks_under_dynamo(block: catalog.Block, dynamo_results: dict[str, dict]) -> None:
    result = dynamo_results[block.id]
    assert result["error"] is None, result["error"]
    rule = RULES[block.page]
    observed = {(b["line"], b["gb_id"]) for b in result["breaks"]}
    annotated = {line for line, _ in block.expected()}
    for line in annotated:
        assert any(gb in rule.gb_ids for seen_line, gb in observed if seen_line == line), (
            f"line {line} did not break with one of {rule.gb_ids}; Dynamo saw {sorted(observed)}"
        )
    unexplained = {(line, gb) for line, gb in observed if line not in annotated}
    assert not unexplained, f"breaks on lines the page does not annotate: {sorted(unexplained)}"


@pytest.mark.torch
@pytest.mark.parametrize("block", USE_INSTEAD, ids=lambda b: b.id)
def test_use_instead_compiles_without_a_break(block: catalog.Block, dynamo_results: dict[str, dict]) -> None:
    result = dynamo_results[block.id]
    assert result["error"] is None, result["error"]
    assert result["breaks"] == [], result["breaks"]


def test_readme_lists_every_rule_with_its_page() -> None:
    readme = (catalog.CHECKOUT.parent / "README.md").read_text(encoding="utf-8")
    for rule in ALL_RULES:
        assert f"[{rule.code}](rules/{rule.code}-{rule.name}.md)" in readme, f"{rule.code} missing from README"
