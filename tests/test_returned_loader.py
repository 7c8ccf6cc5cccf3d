"""DYN510 on a loader that a function of the tree is annotated to return, iterated where it is made.

laplace's ``fit`` loops ``for batch in subset_loader(loader, indices):`` over what ``subset_loader(...) -> DataLoader``
builds. Measured on torch 2.13: iterating it breaks (GB0008) at the ``for`` line, and so does the function that
builds it (at the ``tolist()`` of its indices).
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader, Subset, TensorDataset


    def subset_loader(loader: DataLoader, indices: torch.Tensor) -> DataLoader:
        return DataLoader(Subset(loader.dataset, indices.tolist()), batch_size=loader.batch_size)


    def scale(x: torch.Tensor) -> torch.Tensor:
        return x * 2


    def fit(model, loader: DataLoader, indices):
        total = 0.0
        for (batch,) in subset_loader(loader, indices):
            total = total + model(scale(batch)).sum()
        for _ in [scale(indices)]:
            total = total + 1
        return total


    LOADER = DataLoader(TensorDataset(torch.randn(8, 3)), batch_size=4)
    torch.compile(fit, backend="eager")(torch.nn.Linear(3, 1), LOADER, torch.arange(4))
""")


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "fit.py", Config())}


def test_iterating_a_loader_a_function_returns_is_flagged() -> None:
    found = {f.start.line: f.code for f in lint_source(PROGRAM, "fit.py", Config()) if f.start.line == 15}
    assert found == {15: "DYN510"}
    assert 17 not in flagged(), "a call of a function not annotated to return a loader is not one"


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
