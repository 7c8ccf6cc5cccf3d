"""DYN509: an optimizer parameter annotated with a ``typing.Protocol``.

lightning's precision plugins take ``optimizer: Optimizable`` (or ``Steppable``), ``Protocol`` classes of its own,
and call ``optimizer.step(**kwargs)``; what runs is the torch optimizer the caller passes. A parameter named as an
optimizer and annotated only with protocols of the tree is therefore taken as one, ``likely`` as an unannotated one
is (``Program.is_protocol``). A parameter so named but annotated with a concrete class of the tree is that class.
Measured on torch 2.13 by the torch test: ``step()`` breaks (GB0025) and ``zero_grad()`` breaks (GB0008) on the
plugin's lines; the concrete ``Tracker.step()`` traces.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
from typing import Any, Optional, Protocol

import torch


class Steppable(Protocol):
    def step(self, closure: Optional[Any] = ...) -> None:
        ...


class Optimizable(Steppable, Protocol):
    def zero_grad(self) -> None:
        ...


class Precision:
    def optimizer_step(self, optimizer: Optimizable, **kwargs):
        return optimizer.step(**kwargs)

    def clear_grads(self, optimizer: Optimizable):
        optimizer.zero_grad()


class Tracker:
    def step(self):
        return 1


class Logger:
    def record(self, optimizer: Tracker):
        return optimizer.step()


def train_step(model, opt, precision, logger, x):
    loss = model(x).sum()
    precision.optimizer_step(opt)
    precision.clear_grads(opt)
    logger.record(Tracker())
    return loss


model = torch.nn.Linear(2, 2)
torch.compile(train_step, backend="eager")(model, torch.optim.SGD(model.parameters(), lr=0.1), Precision(), Logger(),
                                           torch.rand(3, 2))
"""


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "module.py", Config()) if f.code == "DYN509"}


def test_an_optimizer_annotated_with_a_protocol_is_likely_an_optimizer() -> None:
    assert flagged() == {18, 21}


def test_a_concrete_class_so_named_is_not() -> None:
    concrete = PROGRAM.replace("class Optimizable(Steppable, Protocol):", "class Optimizable(Steppable):")
    # ``Optimizable`` is no protocol now but a class of the tree, whose own methods run
    assert flagged(concrete) == set()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
