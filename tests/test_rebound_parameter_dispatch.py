"""Reach: a method called on a parameter that the function rebinds only when the caller passed none.

poutyne's batch step writes ``if callback is None: callback = Callback()`` and then ``callback.on_backward_end(...)``.
The summary types the local by the rebinding, so the call used to resolve to ``Callback``'s no-op alone, while the
fit loop passes a ``CallbackList`` whose method runs every callback (a learning-rate scheduler's step, a timer).
Such a call is now also resolved by the method's name (``Program._rebound_parameter``), as a call on a parameter
never rebound is. Measured on torch 2.13 by the torch test: the timer's ``time.time()`` breaks (GB0007) at the line
dynalint flags.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import time

import torch


class Callback:
    def on_backward_end(self, batch):
        pass


class Timer(Callback):
    def on_backward_end(self, batch):
        self.last = time.time()


class CallbackList(Callback):
    def __init__(self, callbacks):
        self.callbacks = callbacks

    def on_backward_end(self, batch):
        for callback in self.callbacks:
            callback.on_backward_end(batch)


class Model:
    def __init__(self, network):
        self.network = network

    def fit_batch(self, x, callback=None):
        if callback is None:
            callback = Callback()
        loss = self.network(x).sum()
        callback.on_backward_end(0)
        return loss


model = Model(torch.nn.Linear(3, 3))
torch.compile(model.fit_batch, backend="eager")(torch.rand(2, 3), CallbackList([Timer()]))
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "fit.py", Config())}


def test_the_passed_callbacks_method_is_reached() -> None:
    assert flagged() == {13}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
