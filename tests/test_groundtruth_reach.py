"""The ground truth's reach diagnostic (``gt_reach``): which traced functions no region holds, and the
sealed half refused. No torch, no cache: plain values."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "groundtruth"))

import gt_halves  # noqa: E402
import gt_reach  # noqa: E402

SPANS = {"solver.py": [(1, 20, "lib.solver.Solver.integrate"), (5, 8, "lib.solver.Solver.integrate.step"),
                       (30, 40, "lib.solver.interp"), (50, 60, "lib.solver.Solver.forward")]}


def test_traced_functions_outside_every_region_are_listed_break_holders_first_innermost_first() -> None:
    traced = {"solver.py": {6, 12, 35, 55}}
    breaks = {"solver.py": {35}}
    calls = {"lib.solver.Solver.forward": ["self.integrate", "interp"], "lib.other.unreached": ["interp"]}
    found = gt_reach.unreached(traced, breaks, SPANS, compiled={"lib.solver.Solver.forward"}, calls=calls)
    assert [(u.function, u.holds_break) for u in found] == [
        ("lib.solver.interp", True), ("lib.solver.Solver.integrate", False), ("lib.solver.Solver.integrate.step", False)]
    # Only calls written in reached functions are shown: those are where a call-graph rule is missing.
    assert found[0].calls == ("lib.solver.Solver.forward: interp",)
    assert found[1].calls == ("lib.solver.Solver.forward: self.integrate",)


def test_a_traced_line_in_no_function_names_nothing() -> None:
    assert gt_reach.innermost(SPANS["solver.py"], 25) is None
    assert gt_reach.unreached({"solver.py": {25}}, {}, SPANS, compiled=set(), calls={}) == []


def test_the_sealed_half_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(gt_halves, "load", lambda: gt_halves.Sealed(("secretlib",), "python x.py --sealed"))
    with pytest.raises(SystemExit) as stopped:
        gt_reach.main(["secretlib"])
    assert stopped.value.code == 2
    assert "sealed half" in capsys.readouterr().err
