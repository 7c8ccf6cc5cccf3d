"""Reach: a function nested in a method calls the method's ``self`` (skorch's ``train_step`` defines ``step_fn``,
which runs ``self._zero_grad_optimizer()`` and ``self.train_step_single(...)``).

The nested function has no class of its own, so ``self.<method>(...)`` in it used to resolve to nothing and what it
runs was in no compiled region. It now resolves against the class of the method that encloses it
(``Program._closed_over_class``). Measured on torch 2.13 by the torch test: the clock read in the method reached
that way breaks (GB0007) at the line dynalint flags. The rules read the nested function's ``self.<attr>`` as the
enclosing method's class holds it too (``instances.enclosing_class``): an optimizer built in ``__init__`` and zeroed
in ``step_fn`` breaks there (GB0008).
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import time

import torch


class Net:
    def __init__(self, module):
        self.module_ = module

    def _clock(self):
        self.started = time.time()

    def _single(self, x):
        return self.module_(x).sum()

    def train_step(self, x):
        def step_fn():
            loss = self._single(x)
            self._clock()
            return loss * 2

        return step_fn()


net = Net(torch.nn.Linear(3, 3))
torch.compile(net.train_step, backend="eager")(torch.rand(2, 3))
"""


PROGRAM_ATTRIBUTE = """\
import torch


class Net:
    def __init__(self, module):
        self.module_ = module
        self.optim = torch.optim.SGD(module.parameters(), lr=0.1)

    def train_step(self, x):
        def step_fn():
            loss = self.module_(x).sum()
            self.optim.zero_grad()
            return loss * 2

        return step_fn()


net = Net(torch.nn.Linear(3, 3))
torch.compile(net.train_step, backend="eager")(torch.rand(2, 3))
"""


def flagged(program: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(program, "net.py", Config())}


def test_the_enclosing_methods_self_is_followed() -> None:
    assert flagged() == {11}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()


def test_the_enclosing_methods_attributes_are_known() -> None:
    assert flagged(PROGRAM_ATTRIBUTE) == {12}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says_of_the_attribute() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM_ATTRIBUTE) == flagged(PROGRAM_ATTRIBUTE)
