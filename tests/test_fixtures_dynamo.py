"""The fixture annotations, proven under real Dynamo (torch on the CPU).

``tests/test_fixtures.py`` checks statically that dynalint reports exactly the ``# error: CODE`` lines
of ``fixtures/cases``; this file checks that those lines are where torch.compile really breaks. Every
case file, and every module of ``fixtures/clean`` that defines one, has a module-level ``exercise()``
(see ``fixtures/README.md``) that calls its compiled code so that each annotated line is traced. One
subprocess (``python tests/harness/run_files.py``, backend ``eager``) runs them all; a case must
break on exactly its annotated lines, each with one of the GB ids of the rule it is annotated with,
and the clean project must compile without a single break. This file never imports torch.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_fixtures import CASES, CLEAN, annotations

from dynalint.checks import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
RULES = {rule.code: rule for rule in ALL_RULES}
EXERCISE = re.compile(r"^def exercise\(\)", re.M)
CLEAN_EXERCISED = sorted(p for p in CLEAN.glob("*.py") if EXERCISE.search(p.read_text(encoding="utf-8")))

# Annotations whose line breaks under Dynamo, but with a GB id the rule does not list yet: a gap in the
# rule's ``gb_ids`` (a linter bug), kept visible here as strict xfails until the rule is fixed.
KNOWN_GB_GAPS: dict[tuple[str, int, str], str] = {}


def break_annotations(path: Path) -> set[tuple[int, str]]:
    """Annotations of rules that predict a graph break (hazards such as recompiles are not observable
    as breaks here; their pages prove them with the harness's own modes)."""
    return {(line, code) for line, code in annotations(path) if RULES[code].hazard == "break"}


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _annotated_params() -> list[object]:
    params: list[object] = []
    for path in CASES:
        for line, code in sorted(break_annotations(path)):
            gap = KNOWN_GB_GAPS.get((path.name, line, code))
            marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
            params.append(pytest.param(path, line, code, id=f"{path.name}:{line}:{code}", marks=marks))
    return params


@pytest.fixture(scope="module")
def dynamo_results() -> dict[str, dict]:
    """``{relative path: {"breaks": [...], "graphs": n, "error": ...}}`` for every exercised fixture."""
    files = [_rel(p) for p in [*CASES, *CLEAN_EXERCISED]]
    completed = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "harness" / "run_files.py"), *files],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)


def _breaks_in(result: dict, path: Path) -> list[dict]:
    return [b for b in result["breaks"] if Path(b["file"]) == path.resolve()]


def test_every_fixture_defines_exercise() -> None:
    """The convention itself (static): each case, and each clean module that compiles something."""
    missing = [p.name for p in CASES if not EXERCISE.search(p.read_text(encoding="utf-8"))]
    assert not missing, f"cases without a module-level exercise(): {missing}"
    compiling = [p for p in CLEAN.glob("*.py") if "torch.compile(" in p.read_text(encoding="utf-8")]
    assert compiling and set(compiling) <= set(CLEAN_EXERCISED), [p.name for p in compiling]


@pytest.mark.torch
@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_case_breaks_exactly_on_its_annotated_lines(path: Path, dynamo_results: dict[str, dict]) -> None:
    result = dynamo_results[_rel(path)]
    assert result["error"] is None, result["error"]
    observed = {b["line"] for b in _breaks_in(result, path)}
    annotated = {line for line, _ in break_annotations(path)}
    assert observed == annotated, (
        f"annotated but no break: {sorted(annotated - observed)}; "
        f"break but not annotated: {sorted(observed - annotated)}; Dynamo saw "
        f"{sorted({(b['line'], b['gb_id'], b['reason']) for b in result['breaks']})}"
    )
    elsewhere = [b for b in result["breaks"] if Path(b["file"]) != path.resolve()]
    assert not elsewhere, f"breaks outside {path.name}: {elsewhere}"


@pytest.mark.torch
@pytest.mark.parametrize(("path", "line", "code"), _annotated_params())
def test_annotated_line_breaks_with_a_gb_id_of_its_rule(
    path: Path, line: int, code: str, dynamo_results: dict[str, dict]
) -> None:
    result = dynamo_results[_rel(path)]
    seen = {b["gb_id"] for b in _breaks_in(result, path) if b["line"] == line}
    assert seen & set(RULES[code].gb_ids), (
        f"{path.name}:{line} broke with {sorted(seen, key=str)}, none of {code}'s {RULES[code].gb_ids}"
    )


@pytest.mark.torch
@pytest.mark.parametrize("path", CLEAN_EXERCISED, ids=lambda p: p.name)
def test_clean_module_compiles_without_a_break(path: Path, dynamo_results: dict[str, dict]) -> None:
    result = dynamo_results[_rel(path)]
    assert result["error"] is None, result["error"]
    assert result["graphs"] > 0, "exercise() compiled nothing"
    assert result["breaks"] == [], result["breaks"]
