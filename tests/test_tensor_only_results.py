"""Value analysis: a method that only a tensor has gives a tensor, whatever its receiver was known to be.

A training framework's loss comes back from a callable it stores (``loss = self.loss_function(pred, y)``), so the
analysis does not know it is a tensor; ``float(loss.detach())`` then reads it (poutyne's batch step). ``detach``,
``clone``, ``contiguous`` and the other tensor-only methods succeed on nothing else, so their result is a tensor.
Measured on torch 2.13 by the torch test: each flagged line breaks with GB0124, and a ``len`` of the same
callable's result does not.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


class Trainer:
    def __init__(self, network, loss_function):
        self.network = network
        self.loss_function = loss_function

    def step(self, x, y):
        pred = self.network(x)
        loss = self.loss_function(pred, y)
        value = float(loss.detach())
        other = self.loss_function(pred, y)
        if other.clone() > 0:
            value = value + 1
        size = len(self.loss_function(pred, y).reshape(1))
        return value, size


trainer = Trainer(torch.nn.Linear(3, 4), torch.nn.functional.cross_entropy)
torch.compile(trainer.step, backend="eager")(torch.rand(5, 3), torch.randint(0, 4, (5,)))
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "trainer.py", Config())}


def test_a_tensor_only_methods_result_is_read_as_a_tensor() -> None:
    assert flagged() == {12, 14}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
