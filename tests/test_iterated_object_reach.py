"""Reach: a ``for`` loop runs the ``__iter__`` of the object it iterates, and a parameter's methods are those of what
the callers pass.

poutyne's fit loop builds an ``EpochIterator`` and hands it to ``_fit_generator_one_batch_per_step(epoch_iterator,
...)``, which runs ``for train_step_iterator, valid_step_iterator in epoch_iterator:``. The iterator's ``__iter__`` is
a generator that reads the clock (``timeit.default_timer()``) and fires the callbacks' epoch hooks: Dynamo inlines it.
The summary records such a loop over a name as a call of ``<name>.__iter__`` (``summarize.visit_For``), and a method
called on a parameter now resolves to that method of each class the function's callers pass for it, besides the
methods of that name (``Program._dispatched``). DYN508 does not take the loop for a call that rebuilds the object: the
loop did not break (measured). Measured on torch 2.13 by the torch test: the generator's ``time.time()`` breaks
(GB0007) where DYN204 flags it, and nowhere else.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import time

import torch


class EpochIterator:
    def __init__(self, epochs):
        self.epochs = epochs

    def __iter__(self):
        for epoch in range(self.epochs):
            started = time.time()
            yield epoch, started


class Model:
    def __init__(self, network):
        self.network = network

    def fit(self, x):
        epochs = EpochIterator(2)
        return self._run(epochs, x)

    def _run(self, epoch_iterator, x):
        for epoch, started in epoch_iterator:
            x = self.network(x)
        return x


model = Model(torch.nn.Linear(3, 3))
torch.compile(model.fit, backend="eager")(torch.rand(2, 3))
"""


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "fit.py", Config())}


def test_the_iterated_objects_generator_is_reached_through_the_parameter() -> None:
    assert flagged() == {12}


def test_iterating_a_local_instance_reaches_it_too() -> None:
    local = PROGRAM.replace("        return self._run(epochs, x)", "        for epoch, started in epochs:\n"
                            "            x = self.network(x)\n        return x")
    assert flagged(local) == {12}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
