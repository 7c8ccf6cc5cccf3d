"""The rule pages are the catalogue's documentation *and* its proof.

Statically, every Example block yields exactly its ``# error: CODE`` (line, code) pairs with only its
rule enabled, and every Use-instead (or When-this-does-not-apply) block yields nothing. Under real Dynamo
(torch 2.13 on the CPU, all blocks in one subprocess), what an Example must show depends on the page's
``Kind:`` (metadata line; ``break`` when absent), and every Use-instead block must show none of it:

- ``break``: every annotated line breaks the graph with one of the rule's GB ids and no other line breaks;
  Use-instead compiles without any break.
- ``recompile``: no break; some frame recompiles more than ``observations.RECOMPILES_ALLOWED`` times (one
  recompile is automatic dynamic shapes doing its job) and every annotated line installed a guard that
  failed; Use-instead: no break, no frame recompiled more than that.
- ``rank-divergence`` (run as rank 0 and rank 1 under the fake process group): every annotated line
  breaks on some ranks and not on others, no other line breaks, and the ranks compile different numbers
  of graphs; Use-instead breaks on no rank.
- ``stale-value`` (every compiled call replayed eagerly): no break, and some call returns something else
  than the eager replay; Use-instead: no break, no mismatch.

The version matrix (``rules/versions.json``, made by ``bench/versions/matrix.py`` under several torch
releases) must hold, for the installed torch, what these runs observe: both reduce a block's result with
``bench/versions/observations.py``, which also says which blocks there are and how each kind is run.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import sys

import pytest
from conftest import ROOT, run_snippets

from dynalint.api import lint_source
from dynalint.checks import ALL_RULES
from dynalint.lint import rule_pages
from dynalint.output import rule_table
from dynalint.pipeline import fixing
from dynalint.project.config import Config

sys.path.insert(0, str(ROOT / "bench" / "versions"))
import observations  # noqa: E402  (bench/versions/observations.py)

PAGES = rule_pages.load_pages()
RULES = {rule.code: rule for rule in ALL_RULES}
KINDS = ("break", "recompile", "rank-divergence", "stale-value")
WHY = {"break": "Why does it break the graph?", "recompile": "Why does it recompile?",
       "rank-divergence": "Why does it break the graph?", "stale-value": "Why is the value stale?"}
MATRIX_PATH = ROOT / "rules" / "versions.json"
MATRIX = json.loads(MATRIX_PATH.read_text(encoding="utf-8"))
REMAKE = "remake it: python bench/versions/matrix.py (see bench/versions/README.md)"

# Use-instead blocks include those under "When this does not apply" (held to the same standard).
EXAMPLES, USE_INSTEAD = observations.page_blocks(PAGES)


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
    sections = ("What it does", WHY[page.kind], "Example", "Use instead", "When this does not apply", "Fix",
                "References")
    assert [s for s in page.sections if s in set(WHY.values()) | set(sections)] == list(sections), \
        "sections missing or out of order"
    for gb_id in rule.gb_ids:
        assert gb_id in metadata, f"{gb_id} missing from the metadata line"
        assert f"gb/gb{gb_id[2:]}.html" in page.sections["References"], f"no reference page for {gb_id}"
    assert page.blocks("Example") and page.blocks("Use instead")


def _lint_pairs(block: rule_pages.Block, *codes: str) -> set[tuple[int, str]]:
    findings = lint_source(block.source, f"{block.id}.py", Config(select=(block.page, *codes)))
    return {(f.start.line, f.code) for f in findings}


@pytest.mark.parametrize("block", EXAMPLES, ids=lambda b: b.id)
def test_example_yields_exactly_its_annotations(block: rule_pages.Block) -> None:
    """An Example annotates its rule's lines; a post-pass rule's (``reads_reports``) also annotates the break
    it reads, with that rule's code, on a line of its own (DYN507: the ``print`` in ``__init__``)."""
    if not RULES[block.page].applies_here:
        pytest.skip(f"{block.page} warns of nothing on Python {sys.version_info[0]}.{sys.version_info[1]}")
    expected = block.expected()
    own = {(line, code) for line, code in expected if code == block.page}
    assert own, "an Example block must annotate at least one line with # error: CODE of its page"
    others = {code for _, code in expected} - {block.page}
    assert not others or RULES[block.page].reads_reports, "only a post-pass rule's Example annotates other rules"
    assert _lint_pairs(block) == own
    assert _lint_pairs(block, *others) == expected


@pytest.mark.parametrize("block", USE_INSTEAD, ids=lambda b: b.id)
def test_use_instead_yields_nothing(block: rule_pages.Block) -> None:
    assert not re.search(r"#\s*error:", block.source)
    assert _lint_pairs(block) == set()


# -- fixes -----------------------------------------------------------------------------------------
# A page says on its metadata line whether its rule has a fix (``Fix: safe``, ``unsafe`` or ``none``),
# and its "Fix" section shows each Example as ``--fix`` (``--unsafe-fixes``) leaves it, or says why there
# is no fix. Under Dynamo, each fixed Example breaks less than the Example and computes the same.
# How a Fix block is introduced, by the kind of fix the rule has.
LABELS = {"safe": "after `dynalint check --fix`", "unsafe": "after `dynalint check --fix --unsafe-fixes`",
          "display-only": "with its display-only fix applied (an editor's quick fix; `--fix` never applies it)"}
_AFTER = re.compile(r"Example (?P<index>\d+), (?P<label>" + "|".join(map(re.escape, LABELS.values())) + r"):\s*\Z")
_ANNOTATIONS = re.compile(r"  # error: DYN\d{3}(?:, DYN\d{3})*")
FIXABLE = sorted(code for code, rule in RULES.items() if rule.fix is not None)


def fixed(block: rule_pages.Block) -> str:
    """The block with every fix of its page's rule applied, display-only ones too (only that rule enabled)."""
    return every_fix(block.source, block.page)


def every_fix(source: str, code: str) -> str:
    config = Config(select=(code,))
    text, _ = fixing.fix_text(source, lambda current: lint_source(current, "block.py", config),
                              lambda finding: finding.fix is not None)
    return text


def _shown_fixes(page: rule_pages.Page) -> list[tuple[int, str, str]]:
    """The Fix section's blocks: (Example index, the kind of fix its label names, code)."""
    body = page.sections["Fix"]
    shown = []
    for match in re.finditer(r"^```python\n(?P<code>.*?)^```", body, re.MULTILINE | re.DOTALL):
        before = body[: match.start()].rstrip().rsplit("\n", 1)[-1]
        label = _AFTER.search(before + "\n")
        assert label, f"a Fix block must follow 'Example N, after `dynalint check --fix`:', not {before!r}"
        kind = next(kind for kind, text in LABELS.items() if text == label.group("label"))
        shown.append((int(label.group("index")), kind, match.group("code")))
    return shown


@pytest.mark.parametrize("code", sorted(PAGES))
def test_page_classifies_its_fix(code: str) -> None:
    page, rule = PAGES[code], RULES[code]
    classified = re.search(r"Fix: (?P<fix>safe|unsafe|display-only|none)$", page.text.splitlines()[2])
    assert classified, "the metadata line ends with `Fix: safe|unsafe|display-only|none`"
    assert classified.group("fix") == (rule.fix.value if rule.fix else "none")
    if rule.fix is None:
        assert page.sections["Fix"].strip().startswith("No fix: "), "a rule without a fix says why"
        assert "```" not in page.sections["Fix"]
    else:
        assert _shown_fixes(page), "a fixable rule shows a fixed Example"


@pytest.mark.parametrize("code", FIXABLE)
def test_fix_section_shows_what_fix_makes_of_each_fixed_example(code: str) -> None:
    """Every Example the fix changes is shown after the fix, exactly as ``--fix`` writes it, and nothing else."""
    page = PAGES[code]
    examples = page.blocks("Example")
    made = {index: _ANNOTATIONS.sub("", fixed(block)) for index, block in enumerate(examples, start=1)
            if fixed(block) != block.source}
    shown = {index: source for index, _, source in _shown_fixes(page)}
    assert shown == made
    assert all(kind == RULES[code].fix.value for _, kind, _ in _shown_fixes(page))


@pytest.mark.parametrize("code", FIXABLE)
def test_fixed_examples_have_fewer_findings_and_fix_again_to_themselves(code: str) -> None:
    for index, _, source in _shown_fixes(PAGES[code]):
        original = PAGES[code].blocks("Example")[index - 1]
        left = lint_source(source, "fixed.py", Config(select=(code,)))
        assert len(left) < len(original.expected())
        assert all(finding.fix is None for finding in left), "a fix left behind that --fix did not apply"
        assert every_fix(source, code) == source  # idempotent


FIXED_EXAMPLES = [(PAGES[code], index, source) for code in FIXABLE for index, _, source in _shown_fixes(PAGES[code])]


@pytest.fixture(scope="session")
def fix_results() -> dict[str, dict]:
    """Each fixed Example and its original, run with every compiled call replayed eagerly."""
    snippets = []
    for page, index, source in FIXED_EXAMPLES:
        original = page.blocks("Example")[index - 1]
        snippets += [{"id": f"{original.id}-before", "source": original.source, "compare_eager": True},
                     {"id": f"{original.id}-after", "source": source, "compare_eager": True}]
    return run_snippets(snippets, fresh=True)


@pytest.mark.torch
@pytest.mark.parametrize("page, index, source", FIXED_EXAMPLES, ids=lambda v: v.code if hasattr(v, "code") else str(v)[:8])
def test_fix_removes_breaks_and_keeps_the_eager_output(page: rule_pages.Page, index: int, source: str,
                                                       fix_results: dict[str, dict]) -> None:
    block_id = page.blocks("Example")[index - 1].id
    before, after = fix_results[f"{block_id}-before"], fix_results[f"{block_id}-after"]
    assert after["error"] is None, after["error"]
    assert len(after["breaks"]) < len(before["breaks"]), (before["breaks"], after["breaks"])
    assert before["eager_outputs"] and _close(after["eager_outputs"], before["eager_outputs"]), (
        "eager output changed", before["eager_outputs"], after["eager_outputs"])
    assert after["mismatches"] == [], "the fixed code computes something else once compiled"


def _close(got: object, want: object) -> bool:
    """``torch.allclose`` on the harness's plain values (rtol 1e-5, atol 1e-6, NaN equal to NaN)."""
    if isinstance(want, dict) and "values" in want and isinstance(got, dict):
        return got.keys() == want.keys() and got["dtype"] == want["dtype"] and got["shape"] == want["shape"] and all(
            _close(g, w) for g, w in zip(got["values"], want["values"]))
    if isinstance(want, float) and isinstance(got, (int, float)):
        return (want != want and got != got) or abs(got - want) <= 1e-6 + 1e-5 * abs(want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(map(_close, got, want))
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(_close(got[k], want[k]) for k in want)
    return got == want


@pytest.fixture(scope="session")
def dynamo_results() -> dict[str, dict]:
    return run_snippets(observations.harness_snippets(EXAMPLES + USE_INSTEAD, PAGES), fresh=True)


def _annotated(block: rule_pages.Block) -> set[int]:
    return {line for line, _ in block.expected()}


def _example_breaks(block: rule_pages.Block, result: dict) -> None:
    observed = observations.break_pairs(result)
    for line, code in sorted(block.expected()):
        gb_ids = RULES[code].gb_ids
        assert any(gb in gb_ids for seen_line, gb in observed if seen_line == line), (
            f"line {line} did not break with one of {code}'s {gb_ids}; Dynamo saw {sorted(observed)}"
        )
    unexplained = {(line, gb) for line, gb in observed if line not in _annotated(block)}
    assert not unexplained, f"breaks on lines the page does not annotate: {sorted(unexplained)}"


def _example_recompiles(block: rule_pages.Block, result: dict) -> None:
    assert not result["breaks"], result["breaks"]
    assert observations.most_recompiles(result) > observations.RECOMPILES_ALLOWED, (
        f"recompiles: {result['recompiles']}")
    guard_lines = observations.guard_lines(result)
    for line in _annotated(block):
        assert line in guard_lines, f"no failing guard from line {line}; recompiles: {result['recompiles']}"


def _example_diverges(block: rule_pages.Block, result: dict) -> None:
    per_rank = {rank: {line for line, _ in observations.break_pairs(r)} for rank, r in result["per_rank"].items()}
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
    # An error, a break (in the ranks mode: on any rank), or the page kind's hazard.
    hazards = observations.hazards(PAGES[block.page].kind, dynamo_results[block.id])
    assert not hazards, hazards


# -- the version matrix ----------------------------------------------------------------------------
def test_version_matrix_describes_the_blocks_of_the_pages() -> None:
    """Every block as the pages have it now, and an observation of each under every release measured."""
    described = {block.id: observations.block_description(block, PAGES[block.page].kind)
                 for block in EXAMPLES + USE_INSTEAD}
    assert MATRIX["blocks"] == described, f"{MATRIX_PATH.name} describes other blocks than the pages; {REMAKE}"
    assert MATRIX["about"] == observations.SCHEMA, REMAKE
    assert MATRIX["releases"], REMAKE
    for release, entry in MATRIX["releases"].items():
        assert set(entry["blocks"]) == set(described), release
        assert observations.release_numbers(entry["torch"]) == release


def _matrix_entry_for_installed_torch() -> dict:
    """The matrix's release whose torch has the release numbers of the installed one (metadata only)."""
    installed = importlib.metadata.version("torch")
    for entry in MATRIX["releases"].values():
        if observations.release_numbers(entry["torch"]) == observations.release_numbers(installed):
            return entry
    raise AssertionError(f"{MATRIX_PATH.name} has no entry for the installed torch {installed}; {REMAKE}")


@pytest.mark.torch
@pytest.mark.parametrize("block", EXAMPLES + USE_INSTEAD, ids=lambda b: b.id)
def test_version_matrix_agrees_with_the_installed_torch(block: rule_pages.Block,
                                                        dynamo_results: dict[str, dict]) -> None:
    """The committed observation of this block for this torch is what the page tests observe now."""
    measured = observations.observed(block, PAGES[block.page].kind, dynamo_results[block.id])
    committed = _matrix_entry_for_installed_torch()["blocks"].get(block.id)
    assert committed == measured, f"{MATRIX_PATH.name} says {committed}, this torch gives {measured}; {REMAKE}"


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
