"""The differential tester in the suite: Dynamo judges generated programs line by line (``bench/difftest``).

- A fixed slice of 200 distinct programs that the bench run (seeds 0..9999) never generates, taken in
  order from seed 100000, must agree with Dynamo on at least 99 % of the lines it traced (torch).
- The shrunk disagreements kept in ``tests/difftest_cases/`` (each found by the tester on the analysis
  before value analysis v3 and cut down by ``shrink.py``) must agree with the Dynamo verdict recorded
  beside them; a torch-marked test measures those verdicts again, so they cannot go stale.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "difftest"))

from compare import agreement, compare, predicted_breaks  # noqa: E402
from grammar import LATER_USES, USES, generate  # noqa: E402
from oracle import Verdict, judge  # noqa: E402

BENCH_SEEDS = range(10000)
CASES = sorted((ROOT / "tests" / "difftest_cases").glob("*.py"))


def held_out_slice(size: int = 200, start: int = 100000) -> list:
    """``size`` distinct programs, from ``start`` on, none of which the bench run generates."""
    seen = {generate(seed).source for seed in BENCH_SEEDS}
    programs = []
    seed = start
    while len(programs) < size:
        program = generate(seed)
        seed += 1
        if program.source not in seen:
            seen.add(program.source)
            programs.append(program)
    return programs


def test_the_generator_is_reproducible_and_covers_every_use() -> None:
    programs = held_out_slice()
    assert [p.source for p in programs[:20]] == [generate(p.seed).source for p in programs[:20]]
    for program in programs:
        compile(program.source, f"prog_{program.seed}.py", "exec")  # valid Python, every one
        assert program.probe_lines and all(program.source.splitlines()[n - 1].strip() for n in program.probe_lines)
    uses = {generate(seed).construct.split("/")[0] for seed in range(2000)}
    assert len(uses) == len(USES) + len(LATER_USES)  # (some small uses are all taken by the bench seeds: not in the slice)


@pytest.mark.torch
def test_a_fixed_slice_agrees_with_dynamo_on_traced_lines() -> None:
    programs = held_out_slice()
    verdicts = judge([p.source for p in programs], jobs=2)
    judged = [compare(p, v, predicted_breaks(p.source, f"prog_{p.seed}.py"))
              for p, v in zip(programs, verdicts) if v.error is None]
    assert len(judged) >= 190, [v.error for v in verdicts if v.error]
    total: Counter[str] = Counter(line.outcome for result in judged for line in result.lines)
    shown = [f"seed {r.program.seed} line {o.line} {o.outcome}: {r.program.source.splitlines()[o.line - 1].strip()}"
             for r in judged for o in r.disagreements]
    assert total["tp"] > 100 and total["tn"] > 500  # the slice exercises both sides
    assert agreement(total) >= 0.99, "\n".join(shown)


def _case(path: Path) -> tuple[str, dict[str, object]]:
    return path.read_text(encoding="utf-8"), json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_a_shrunk_case_agrees_with_its_recorded_verdict(path: Path) -> None:
    source, recorded = _case(path)
    line = recorded["line"]
    assert isinstance(line, int)
    verdict = Verdict.from_json(recorded["dynamo"])  # type: ignore[arg-type]
    broke = line in verdict.breaks
    predicted = predicted_breaks(source, path.name).get(line, ())
    assert bool(predicted) == broke, f"{path.name}:{line}: Dynamo {'broke' if broke else 'traced it clean'}, " \
                                     f"dynalint predicted {predicted or 'nothing'}"


@pytest.mark.torch
@pytest.mark.skipif(not CASES, reason="no shrunk cases")
def test_the_recorded_verdicts_still_hold() -> None:
    cases = [_case(path) for path in CASES]
    measured = judge([source for source, _ in cases], jobs=2)
    for path, (_, recorded), verdict in zip(CASES, cases, measured):
        kept = Verdict.from_json(recorded["dynamo"])  # type: ignore[arg-type]
        assert verdict.error is None, (path.name, verdict.error)
        assert set(verdict.breaks) == set(kept.breaks), path.name
