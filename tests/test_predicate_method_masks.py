"""DYN105: a mask made by a comparison method on a value whose type nothing tells.

torchbearer's metrics read the batch from a state dict, ``y_true = state[self.target_key]``, build ``mask =
y_true.eq(self.ignore_index).eq(0)`` and index with it (``y_pred[mask]``). Nothing says ``y_true`` is a tensor, but
only a tensor has ``eq`` / ``ne`` / ``lt`` / ``isnan`` and the other elementwise predicates as methods (pandas aside,
which compiled code does not index with): the result is taken for a ``likely`` mask, as ``x.bool()`` and ``x >= k``
already were (``DynamicOutputShape._mask_of_unknown_values``). Measured on torch 2.13 by the torch test: the indexing
breaks (GB0036) on the flagged line.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


class TopK:
    def __init__(self, pred_key, target_key, ignore_index=-100):
        self.pred_key = pred_key
        self.target_key = target_key
        self.ignore_index = ignore_index

    def process(self, state):
        y_pred = state[self.pred_key]
        y_true = state[self.target_key]
        mask = y_true.eq(self.ignore_index).eq(0)
        y_pred = y_pred[mask]
        return y_pred.sum()


metric = TopK("y_pred", "y_true")
torch.compile(metric.process, backend="eager")({"y_pred": torch.rand(4), "y_true": torch.tensor([0, 1, -100, 2])})
"""


def flagged(source: str = PROGRAM) -> list[tuple[int, str]]:
    return [(f.start.line, f.confidence.value) for f in lint_source(source, "metric.py", Config(select=("DYN105",)))]


def test_a_predicate_methods_result_is_a_likely_mask() -> None:
    assert flagged() == [(14, "likely")]


def test_an_index_made_by_another_method_is_not() -> None:
    assert flagged(PROGRAM.replace(".eq(self.ignore_index).eq(0)", ".long()")) == []


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {line for line, _ in flagged()}
