"""DYN510: ``enumerate`` of a data loader is lazy under Dynamo.

laplace writes ``loader = enumerate(train_loader)`` and then ``for i, data in loader:``. Measured on torch 2.13 (the
torch test): the loader's skipped ``__iter__`` runs where the bound ``enumerate`` is first iterated or ``next`` is
called, and that line breaks (GB0008), not the ``enumerate`` line.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch
from torch.utils.data import DataLoader, TensorDataset


class Fitter:
    def __init__(self, net):
        self.net = net
        self.train_loader = None

    def fit(self, train_loader: DataLoader):
        self.train_loader = train_loader
        total = 0
        loader = enumerate(train_loader)
        for i, (x, y) in loader:
            total = total + self.net(x).sum()
        return total

    def first(self, train_loader: DataLoader):
        batches = enumerate(train_loader)
        _, (x, y) = next(batches)
        return self.net(x)


f = Fitter(torch.nn.Linear(3, 3))
dl = DataLoader(TensorDataset(torch.rand(4, 3), torch.rand(4)), batch_size=2)
torch.compile(f.fit, backend="eager")(dl)
torch.compile(f.first, backend="eager")(dl)
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "fit.py", Config(select=("DYN510",)))}


def test_the_break_is_where_the_bound_enumerate_is_iterated() -> None:
    assert flagged() == {14, 20}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
