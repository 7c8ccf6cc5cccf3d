"""A closure reads its enclosing function's annotated parameters: ignite's ``update`` inside
``supervised_training_step(model, optimizer: torch.optim.Optimizer, ...)`` zeroes and steps ``optimizer``.

The closure's value scope starts from the enclosing function's, so when the enclosing function is itself compiled,
``optimizer`` is already in the closure's environment; it is still the enclosing parameter, not a local of the
closure, and its annotation holds (``ValueScope.closure``). Before, DYN509 saw it only when the closure alone was
the compiled entry. Measured on torch 2.13 by the torch test: ``zero_grad`` breaks with GB0008 and ``step`` with
GB0025, at the lines dynalint flags.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def run(model: torch.nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor):
    def update(batch):
        optimizer.zero_grad()
        out = model(batch).sum()
        optimizer.step()
        return out

    return update(x) * 2


net = torch.nn.Linear(3, 3)
torch.compile(run, backend="eager")(net, torch.optim.SGD(net.parameters(), lr=0.1), torch.rand(2, 3))
"""

SHADOWED = PROGRAM.replace("    def update(batch):\n", "    def update(batch):\n        optimizer = batch\n")


def flagged(program: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(program, "train.py", Config(select=("DYN509",)))}


def test_the_closure_steps_the_enclosing_functions_optimizer() -> None:
    assert flagged() == {6, 8}


def test_a_local_of_the_closure_shadows_the_parameter() -> None:
    assert flagged(SHADOWED) == set()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
