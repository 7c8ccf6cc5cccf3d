"""DYN510: a loader known by its name where a framework hands it over.

laplace's GP ``fit(self, train_loader: DataLoader | MutableMapping)`` rebinds ``train_loader`` to what a method of
its own returns (``self._get_SoD_data_loader(train_loader)``), stores it in ``self.train_loader``, and another method
loops over ``self.train_loader``. The rebound local is named as a loader and made by a function's call, not a class's,
so it is likely a loader, as a parameter so named is; the attribute is named as one and no class of the tree is known
to build it (DYN509 takes optimizers the same way). Measured on torch 2.13 by the torch test: both loops break
(GB0008) on the flagged lines.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch
from torch.utils.data import DataLoader, TensorDataset


class GP:
    def __init__(self):
        self.train_loader = None

    def _subset_loader(self, loader):
        return loader

    def fit(self, train_loader: DataLoader | dict):
        train_loader = self._subset_loader(train_loader)
        self.train_loader = train_loader
        loader = enumerate(train_loader)
        total = 0
        for i, (x, y) in loader:
            total = total + x.sum()
        return total

    def variance(self, x):
        out = []
        for x_batch, _ in self.train_loader:
            out.append(x_batch @ x)
        return torch.cat(out)


gp = GP()
data = DataLoader(TensorDataset(torch.rand(4, 3), torch.rand(4)), batch_size=2)
torch.compile(gp.fit, backend="eager")(data)
torch.compile(gp.variance, backend="eager")(torch.rand(3, 2))
"""


def flagged(source: str = PROGRAM) -> list[tuple[int, str]]:
    found = lint_source(source, "gp.py", Config(select=("DYN510",)))
    return sorted((f.start.line, f.confidence.value) for f in found)


def test_a_rebound_local_and_an_attribute_named_as_loaders_are_likely_loaders() -> None:
    assert flagged() == [(17, "likely"), (23, "likely")]


def test_other_names_are_not() -> None:
    renamed = PROGRAM.replace("train_loader", "train_source")
    assert flagged(renamed) == []


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {line for line, _ in flagged()}
