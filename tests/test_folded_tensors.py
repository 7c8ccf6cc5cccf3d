"""The value analysis on builtins that fold an iterable: ``sum`` / ``max`` / ``min`` of a generator or list of
tensors is a tensor, so a branch on it is DYN102's (pfrl's ACER: ``kk_dot = sum(torch.dot(kp, kp) for kp in k)``,
then ``if kk_dot > 0:``).

Measured on torch 2.13 (the torch test runs the program under Dynamo): the branch on the folded tensor breaks with
GB0170; ``max`` of tensors used as a value traces, and so does a branch on the sum of a shape's sizes.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def summed(x: torch.Tensor, parts: list[torch.Tensor]):
    kk = sum(torch.dot(p.flatten(), p.flatten()) for p in parts)
    if kk > 0:
        return x
    return x * 2


def largest(x: torch.Tensor, parts: list[torch.Tensor]):
    top = max([p.sum() for p in parts])
    return x * top


def sizes(x: torch.Tensor):
    n = sum(d for d in x.shape)
    if n > 3:
        return x
    return x * 2


parts = [torch.rand(3), torch.rand(2)]
torch.compile(summed, backend="eager")(torch.rand(3), parts)
torch.compile(largest, backend="eager")(torch.rand(3), parts)
torch.compile(sizes, backend="eager")(torch.rand(3))
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "folds.py", Config(select=("DYN102",)))}


def test_a_branch_on_the_sum_of_tensors_and_not_on_the_sum_of_sizes() -> None:
    assert flagged() == {6}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged() == {6}
