"""DYN509 on building an optimizer from a class held in a value named as one: an optimizer instance is not callable.

coqui's trainer builds ``optimizer = getattr(torch.optim, name)`` then ``optimizer(params, lr=lr)``; art's attacks
hold the class they are given (``self.optimizer(params=[adv])``); rectified-flow's sampler calls ``optim_klass([x])``.
Measured on torch 2.13 (and again by the torch test here): each call breaks where it builds the optimizer (GB0467 on
the first optimizer built in a process, GB0008 after). ``opt_model``, what ``torch.compile`` returned, is called
without a finding, and so is a function of the project named as an optimizer (its body is what runs).
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch


    def make(model, optimizer_name, lr):
        optimizer = getattr(torch.optim, optimizer_name)
        return optimizer(model.parameters(), lr=lr)


    class Attack:
        def __init__(self, optimizer=None):
            self.optimizer = optimizer

        def run(self, x):
            opt = self.optimizer(params=[x], lr=0.1)
            return opt


    def sample(x, optim_klass=torch.optim.SGD):
        optim = optim_klass([x], lr=0.1)
        return optim


    def optimizer_step(weights, grads):
        return weights - 0.1 * grads


    def update(weights, grads):
        return optimizer_step(weights, grads)


    model = torch.nn.Linear(2, 2)
    opt_model = torch.compile(model, backend="eager")
    opt_model(torch.randn(2))
    attack = Attack(torch.optim.SGD)
    torch.compile(make, backend="eager")(model, "Adam", 0.1)
    torch.compile(attack.run, backend="eager")(torch.randn(2, requires_grad=True))
    torch.compile(sample, backend="eager")(torch.randn(2, requires_grad=True))
    torch.compile(update, backend="eager")(torch.randn(2), torch.randn(2))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.message for f in lint_source(PROGRAM, "optim.py", Config(select=("DYN509",)))}


def test_calls_of_a_value_named_as_an_optimizer_build_one() -> None:
    found = flagged()
    assert sorted(found) == [6, 14, 19]
    assert found[14].startswith("`self.optimizer(...)` in compiled code breaks the graph")


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
