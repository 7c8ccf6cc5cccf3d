"""Value analysis: a method that ``torch.Tensor`` does not have, called on a tensor, is a subclass's own, and what it
gives is not known to be a tensor.

flowtorch's ``BijectiveTensor.from_forward()`` answers with a Python bool, so ``if isinstance(x, BijectiveTensor) and
x.from_forward():`` traces; the analysis used to take the result for a tensor and flag the branch (DYN102). A
method of ``torch.Tensor`` on the same value still gives a tensor, and branching on it breaks. Measured on torch 2.13
by the torch test.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


class Tagged(torch.Tensor):
    def from_forward(self):
        return True


def f(x):
    if isinstance(x, Tagged) and x.from_forward():
        x = x * 2
    if x.sum() > 0:
        return x + 1
    return x


torch.compile(f, backend="eager")(torch.rand(3).as_subclass(Tagged))
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "tagged.py", Config())}


def test_only_the_tensor_methods_result_is_a_tensor() -> None:
    assert flagged() == {12}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
