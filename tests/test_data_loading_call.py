"""DYN510 ``data-loading-call``: which objects are taken for ``torch.utils.data``'s, and which uses break.

Measured on torch 2.13 (the page's Examples are compiled again by the verify tests and the release
matrix; laplace's ``fit(train_loader: DataLoader)`` in the ground truth): ``len()`` of a loader or of its
dataset, ``iter()``, ``next()`` of the iterator, a ``for`` loop over a loader, ``enumerate()`` of one,
indexing a dataset and building either break (GB0008); ``loader.batch_size`` traces.
"""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.checks.data_loading_call import data_class
from dynalint.project.config import Config


def flagged(source: str) -> list[tuple[int, str]]:
    findings = lint_source(textwrap.dedent(source), "fit.py", Config(select=("DYN510",)))
    return [(f.start.line, f.message.split("`")[1]) for f in findings]


def test_data_classes_are_the_packages_classes_and_random_split() -> None:
    assert data_class("torch.utils.data.DataLoader") == "DataLoader"
    assert data_class("torch.utils.data.dataset.TensorDataset") == "TensorDataset"
    assert data_class("torch.utils.data.random_split") == "random_split"
    assert data_class("torch.utils.data.get_worker_info") is None
    assert data_class("mylib.data.DataLoader") is None


def test_annotated_parameters_built_objects_and_their_iterators() -> None:
    source = """
        from typing import Optional

        import torch
        from torch.utils.data import DataLoader, TensorDataset

        SAMPLES = TensorDataset(torch.randn(8, 3))

        class Fitter:
            def __init__(self):
                self.loader = DataLoader(SAMPLES, batch_size=4)

            @torch.compile
            def fit(self, x, train: DataLoader, val: Optional[DataLoader] = None, mixed: "DataLoader | dict" = None):
                n = len(train.dataset)
                first = next(iter(train))
                batches = iter(train)
                batch = next(batches)
                for (a,) in self.loader:
                    x = x + a.sum()
                for i, b in enumerate(val):
                    x = x + 1
                item = SAMPLES[0]
                size = train.batch_size
                m = len(mixed)
                k = len(x)
                return x * n * size
    """
    assert flagged(source) == [
        (15, "len()"),
        (16, "iter()"),
        (17, "iter()"),
        (18, "next()"),
        (19, "iter(self.loader)"),
        (21, "enumerate()"),
        (23, "SAMPLES[...]"),
        (25, "len()"),
    ]  # not the attribute read, not ``len(x)``; ``mixed`` may be a dict too: its finding is likely


def test_construction_in_compiled_code_and_rebinding() -> None:
    source = """
        import torch
        from torch.utils.data import DataLoader, random_split

        @torch.compile
        def split(x, dataset):
            train, test = random_split(dataset, [0.5, 0.5])
            loader = DataLoader(dataset)
            loader = [x]
            for item in loader:
                x = x + item
            rows = iter([x, x])
            return x + next(rows)
    """
    assert flagged(source) == [(7, "random_split()"), (8, "DataLoader()")]


def test_eager_code_is_not_flagged() -> None:
    source = """
        import torch
        from torch.utils.data import DataLoader

        def train(model, loader: DataLoader):
            for x, y in loader:
                model(x).sum().backward()
            return len(loader.dataset)
    """
    assert flagged(source) == []


def test_an_unannotated_parameter_named_as_a_loader_is_likely_one() -> None:
    """Measured on torch 2.13 with a DataLoader passed in: ``enumerate(train_loader)``, ``len(test_loader.dataset)``
    and ``for x, y in test_loader`` each broke on their line (GB0008). Known only by their names, they are
    likely; ``loader_size`` and ``loaders`` are no loader's names."""
    source = textwrap.dedent("""\
        import torch


        @torch.compile
        def fit(model, train_loader, test_loader, loader_size, loaders):
            for batch_idx, (x, y) in enumerate(train_loader):
                model(x)
            n = len(test_loader.dataset)
            for x, y in test_loader:
                model(x)
            for x in loaders:
                model(x)
            return n + loader_size
    """)
    found = lint_source(source, "fit.py", Config(select=("DYN510",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [(6, "likely"), (8, "likely"), (9, "likely")]


def test_a_parameter_whose_union_allows_a_loader_is_likely_one() -> None:
    """laplace's ``fit(self, train_loader: DataLoader | MutableMapping)`` runs ``next(iter(train_loader))`` (GB0008
    with a DataLoader passed in, on the ground-truth bench). A loader among other types is likely; a union
    without one is not flagged."""
    source = textwrap.dedent("""\
        from collections.abc import MutableMapping
        from typing import Union

        import torch
        from torch.utils.data import DataLoader


        @torch.compile
        def fit(model, train_loader: DataLoader | MutableMapping, other: Union[DataLoader, dict], data: dict | list):
            x = next(iter(train_loader))
            n = len(other)
            for y in data:
                model(y)
            return model(x) + n
    """)
    found = lint_source(source, "fit.py", Config(select=("DYN510",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [(10, "likely"), (11, "likely")]


def test_an_attribute_given_a_declared_loader_is_one() -> None:
    """laplace's ``FunctionalLaplace.fit(self, train_loader: DataLoader)`` stores ``self.train_loader = train_loader``
    and a later method loops over it: the loop broke (GB0008, torch 2.13, on the ground-truth bench and in a
    probe). An attribute stored from a parameter of another type is not taken for a loader."""
    source = """
        import torch
        from torch.utils.data import DataLoader


        class Approx:
            def fit(self, train_loader: DataLoader, rows: list) -> None:
                train_loader = self._subset(train_loader)
                self.train_loader = train_loader
                self.rows = rows

            def _subset(self, loader: DataLoader) -> DataLoader:
                return loader

            @torch.compile
            def variance(self, x):
                out = [xb.sum() * x for xb, _ in self.train_loader]
                for row in self.rows:
                    out.append(row * x)
                return out
    """
    assert flagged(source) == [(17, "iter(self.train_loader)")]
