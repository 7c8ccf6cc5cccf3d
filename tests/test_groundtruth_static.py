"""The ground truth's static side (``gt_static``): which entries the models declared compiled reach the
config. No torch, no cache: plain values."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench" / "groundtruth"))

import gt_static  # noqa: E402


def test_an_entry_with_no_qualified_name_is_left_out_alone() -> None:
    entries = {"lib.optim:Optimizer.roll", "lib.coeff:?", "lib.net:forward", "lib.net:outer.<locals>.inner"}
    assert gt_static._declarable(entries) == ("lib.net:forward", "lib.net:outer.<locals>.inner", "lib.optim:Optimizer.roll")


def test_no_entry_declares_nothing() -> None:
    assert gt_static._declarable(["lib.coeff:?"]) == ()


@pytest.mark.torch
def test_a_partial_a_bound_method_and_an_instance_are_named_by_what_they_run() -> None:
    import functools

    import gt_calls

    from dynalint.lint.rule import Rule

    class Bench:
        def __init__(self, entered: list[object]) -> None:
            self.entered = entered

        def entry_points(self) -> list[object]:
            return self.entered

    partial = functools.partial(functools.partial(gt_static.lint, "lib"), entries=())
    bound = gt_static.StaticResult(files=0, seconds=0.0).__repr__
    instance = Bench([])
    assert gt_calls.entry_points(Bench([partial, bound, instance, Rule])) == [
        "gt_static:lint", "gt_static:StaticResult.__repr__",
        f"{__name__}:test_a_partial_a_bound_method_and_an_instance_are_named_by_what_they_run.<locals>.Bench",
        "dynalint.lint.rule:Rule"]
