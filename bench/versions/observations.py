"""Version matrix, the one reduction: what a rule page's block did under one torch release, as matrix data.

Shared by the bench script (``bench/versions/matrix.py``, which runs the blocks under each release in a
venv of its own and writes ``rules/versions.json``) and the page tests (``tests/test_rule_pages.py``,
which run them under the installed torch and check that the committed matrix says the same). Both build
the harness input with ``harness_snippets`` and reduce each ``tests/harness/run_snippets.py`` result with
``observed`` (or ``hazards``, for a Use-instead block's verdict), so the matrix and the tests cannot drift
apart. Standard library and ``dynalint.lint.rule_pages`` only: nothing here imports torch.

Which blocks there are and in what order (``page_blocks``), and how each page kind is run
(``HARNESS_MODES``), live here too: a block's result can depend on what ran before it in the process.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Any, Iterable

from dynalint.lint.rule_pages import Block, Page

EXAMPLE = "Example"
# Blocks under "When this does not apply" show settings under which the construct does not break: they
# are held to the same standard as "Use instead" (no finding, no break).
CLEAN_SECTIONS = ("Use instead", "When this does not apply")
HARNESS_MODES: dict[str, dict[str, Any]] = {"rank-divergence": {"ranks": [0, 1]},
                                            "stale-value": {"compare_eager": True}}
RECOMPILES_ALLOWED = 1  # one recompile is automatic dynamic shapes doing its job
ERROR_SHOWN = 200  # characters of a block's error kept in the matrix (its first line)

SCHEMA = [
    "Rule pages (rules/DYN*.md) measured under several torch releases by bench/versions/matrix.py; "
    "checked against the installed torch by tests/test_rule_pages.py. Lines are 1-based within the block.",
    "blocks: {block id: {rule, section, kind, source_sha256 (first 12 hex digits of the block's source), "
    "annotated: {line: {codes: [DYNxxx], text: the stripped source line}}}}; ids as rule_pages.Block.id, "
    "e.g. DYN303-example-2, DYN303-use-instead-1, DYN303-when-this-does-not-apply-1.",
    "releases: {release asked for, e.g. 2.14.1: {torch: the installed version string, python: X.Y, "
    "blocks: {block id: observation}}}.",
    "Example observation: error (first line, or null); lines: {annotated line: {breaks: bool, gb_ids: "
    "[sorted GB ids of the breaks on that line]}}; other_breaks: [[line, GB id], ...] on lines not "
    "annotated (line null when Dynamo placed it outside the block).",
    "Use-instead observation (also 'When this does not apply'): clean: bool (ran without error, no break "
    "and none of the page kind's hazard), error, breaks: [[line, GB id], ...].",
    "Per page kind, both observations add: recompile: recompiles (compilations after the first of the most "
    "recompiled frame; the hazard is > 1), and per Example line guard_failed (a failing guard came from it), "
    "other_guard_lines; rank-divergence (run as ranks 0 and 1 under the fake process group): breaks are "
    "the union over ranks, Example lines add ranks (those it broke on) and the Example adds graphs "
    "({rank: graphs compiled}); stale-value (each compiled call replayed eagerly): mismatch_lines (lines "
    "of the calls whose compiled result differed).",
]


def release_numbers(version: str) -> str:
    """A torch version's release numbers: ``2.13.0+cpu`` -> ``2.13.0`` (what matrix entries are matched by)."""
    match = re.match(r"\d+(?:\.\d+)*", version)
    return match.group(0) if match else version


def page_blocks(pages: dict[str, Page]) -> tuple[list[Block], list[Block]]:
    """Every page's Example blocks, and its Use-instead and When-this-does-not-apply blocks, in page order."""
    examples = [block for page in pages.values() for block in page.blocks(EXAMPLE)]
    clean = [block for page in pages.values() for section in CLEAN_SECTIONS for block in page.blocks(section)]
    return examples, clean


def harness_snippets(blocks: Iterable[Block], pages: dict[str, Page]) -> list[dict[str, Any]]:
    """The input of ``tests/harness/run_snippets.py``: each block, in the mode its page's kind asks for."""
    return [{"id": block.id, "source": block.source, **HARNESS_MODES.get(pages[block.page].kind, {})}
            for block in blocks]


def annotated_lines(block: Block) -> dict[int, list[str]]:
    """Each line annotated ``# error: CODE`` and its codes, sorted."""
    codes: dict[int, set[str]] = {}
    for line, code in block.expected():
        codes.setdefault(line, set()).add(code)
    return {line: sorted(codes[line]) for line in sorted(codes)}


def block_description(block: Block, kind: str) -> dict[str, Any]:
    """What the matrix says of a block whatever the release: where it is, and its annotated lines."""
    source_lines = block.source.splitlines()
    return {
        "rule": block.page,
        "section": block.section,
        "kind": kind,
        "source_sha256": hashlib.sha256(block.source.encode("utf-8")).hexdigest()[:12],
        "annotated": {str(line): {"codes": codes, "text": source_lines[line - 1].strip()}
                      for line, codes in annotated_lines(block).items()},
    }


def break_pairs(result: dict[str, Any]) -> set[tuple[int | None, str]]:
    """The ``(line, GB id)`` of every break of a result (the union over ranks in the ranks mode)."""
    return {(brk["line"], brk["gb_id"]) for brk in result["breaks"]}


def most_recompiles(result: dict[str, Any]) -> int:
    """Recompilations of the most recompiled frame (``compile_id`` is ``frame/attempt``)."""
    per_frame = Counter((r.get("rank"), r["compile_id"].split("/")[0]) for r in result["recompiles"])
    return max(per_frame.values(), default=0)


def guard_lines(result: dict[str, Any]) -> set[int]:
    """The lines that installed a guard that failed (a recompile's reason names them)."""
    return {r["line"] for r in result["recompiles"] if r["line"] is not None}


def mismatch_lines(result: dict[str, Any]) -> list[int]:
    """The lines of the compiled calls whose result differed from the eager replay."""
    return sorted({m["line"] for m in result.get("mismatches", [])})


def hazards(kind: str, result: dict[str, Any]) -> list[str]:
    """Why a Use-instead block is not clean under its page's kind; empty when it is."""
    found = []
    if result["error"] is not None:
        found.append(f"error: {result['error']}")
    if result["breaks"]:
        found.append(f"breaks: {_pairs(break_pairs(result))}")
    if kind == "recompile" and most_recompiles(result) > RECOMPILES_ALLOWED:
        found.append(f"recompiles: {result['recompiles']}")
    if kind == "stale-value" and result.get("mismatches"):
        found.append(f"mismatches: {result['mismatches']}")
    return found


def observed(block: Block, kind: str, result: dict[str, Any]) -> dict[str, Any]:
    """A block's observation in the matrix, from its ``run_snippets`` result."""
    if block.section == EXAMPLE:
        return _example_observation(block, kind, result)
    return _clean_observation(kind, result)


def _example_observation(block: Block, kind: str, result: dict[str, Any]) -> dict[str, Any]:
    annotated = annotated_lines(block)
    breaks = break_pairs(result)
    lines = {}
    for line in annotated:
        gb_ids = sorted({gb for seen, gb in breaks if seen == line})
        lines[line] = {"breaks": bool(gb_ids), "gb_ids": gb_ids}
    observation: dict[str, Any] = {
        "error": _first_line(result["error"]),
        "other_breaks": _pairs({(line, gb) for line, gb in breaks if line not in annotated}),
    }
    if kind == "recompile":
        failed = guard_lines(result)
        for line, entry in lines.items():
            entry["guard_failed"] = line in failed
        observation["recompiles"] = most_recompiles(result)
        observation["other_guard_lines"] = sorted(failed - set(annotated))
    elif kind == "rank-divergence":
        per_rank = result.get("per_rank", {})
        for line, entry in lines.items():
            entry["ranks"] = sorted(int(rank) for rank, r in per_rank.items()
                                    if any(brk["line"] == line for brk in r["breaks"]))
        observation["graphs"] = {rank: per_rank[rank]["graphs"] for rank in sorted(per_rank, key=int)}
    elif kind == "stale-value":
        observation["mismatch_lines"] = mismatch_lines(result)
    observation["lines"] = {str(line): entry for line, entry in lines.items()}
    return observation


def _clean_observation(kind: str, result: dict[str, Any]) -> dict[str, Any]:
    observation: dict[str, Any] = {
        "clean": not hazards(kind, result),
        "error": _first_line(result["error"]),
        "breaks": _pairs(break_pairs(result)),
    }
    if kind == "recompile":
        observation["recompiles"] = most_recompiles(result)
    elif kind == "stale-value":
        observation["mismatch_lines"] = mismatch_lines(result)
    return observation


def _pairs(pairs: set[tuple[int | None, str]]) -> list[list[Any]]:
    """``[line, GB id]`` pairs as JSON lists, in line order (``None``, a break outside the block, last)."""
    return [[line, gb] for line, gb in sorted(pairs, key=lambda p: (p[0] is None, p[0] or 0, p[1]))]


def _first_line(error: str | None) -> str | None:
    return None if error is None else (error.strip().splitlines() or [""])[0][:ERROR_SHOWN]
