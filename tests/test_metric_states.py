"""A metric's state registered with ``add_state`` (torchmetrics, tsl) or ``_add_state`` (torcheval) holds a tensor
when its default is one: a branch on it is a branch on a tensor's value.

Measured on torch 2.13: ``if self.count > 0:`` on a state registered with ``torch.tensor(0.0)`` as its default breaks
(GB0170); ``if self.seen:`` on a state whose default is a list traces, and is left alone.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch


    class Metric(torch.nn.Module):
        def add_state(self, name, default, dist_reduce_fx=None):
            setattr(self, name, default)


    class Mean(Metric):
        def __init__(self):
            super().__init__()
            self.add_state("total", default=torch.tensor(0.0), dist_reduce_fx="sum")
            self.add_state("count", torch.tensor(0.0))
            self.add_state("seen", default=[])

        def forward(self, x):
            self.total += x.sum()
            self.count += x.numel()
            self.seen.append(x)
            if self.count > 0:
                return self.total / self.count
            if self.seen:
                return x
            return self.total


    torch.compile(Mean(), backend="eager")(torch.randn(3))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM, "mean.py", Config())}


def test_a_branch_on_a_tensor_state_is_flagged_and_on_a_list_state_is_not() -> None:
    assert flagged() == {20: "DYN102"}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
