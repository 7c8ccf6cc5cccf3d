"""DYN105: a mask made by a comparison method on a value whose type nothing tells.

torchbearer's metrics read the batch from a state dict, ``y_true = state[self.target_key]``, build ``mask =
y_true.eq(self.ignore_index).eq(0)`` and index with it (``y_pred[mask]``). Nothing says ``y_true`` is a tensor, but
only a tensor has ``eq`` / ``ne`` / ``lt`` / ``isnan`` and the other elementwise predicates as methods (pandas aside,
which compiled code does not index with): the result is taken for a ``likely`` mask, as ``x.bool()`` and ``x >= k``
already were (``DynamicOutputShape._mask_of_unknown_values``). So is a cast to ``torch.bool`` (``.to(torch.bool)``,
``.to(dtype=torch.bool)``), catalyst's CMC metric's ``query_mask = (self.storage[key] == 1).to(torch.bool)``.
Measured on torch 2.13 by the torch tests: the indexing breaks (GB0036) on the flagged lines.
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


CAST_PROGRAM = """\
import torch


class Metric:
    def __init__(self):
        self.storage = {}

    def update(self, emb, is_query):
        self.storage["emb"] = emb
        self.storage["q"] = is_query

    def compute(self):
        query_mask = (self.storage["q"] == 1).to(torch.bool)
        embeddings = self.storage["emb"].float()
        query = embeddings[query_mask]
        gallery = embeddings[~query_mask]
        flags = self.storage["q"].bool()
        picked = embeddings[flags]
        typed = self.storage["q"].to(dtype=torch.bool)
        other = embeddings[typed]
        return query.sum() + gallery.sum() + picked.sum() + other.sum()


m = Metric()
m.update(torch.rand(4, 2), torch.tensor([1, 0, 1, 0]))
torch.compile(m.compute, backend="eager")()
"""


def flagged(source: str = PROGRAM) -> list[tuple[int, str]]:
    return [(f.start.line, f.confidence.value) for f in lint_source(source, "metric.py", Config(select=("DYN105",)))]


def test_a_predicate_methods_result_is_a_likely_mask() -> None:
    assert flagged() == [(14, "likely")]


def test_an_index_made_by_another_method_is_not() -> None:
    assert flagged(PROGRAM.replace(".eq(self.ignore_index).eq(0)", ".long()")) == []


def test_a_cast_to_bool_is_a_likely_mask() -> None:
    assert flagged(CAST_PROGRAM) == [(15, "likely"), (16, "likely"), (18, "likely"), (20, "likely")]


def test_a_cast_to_another_dtype_is_not() -> None:
    other = CAST_PROGRAM.replace(".to(torch.bool)", ".to(torch.long)").replace("dtype=torch.bool", "dtype=torch.long")
    assert flagged(other) == [(18, "likely")]


@pytest.mark.torch
@pytest.mark.parametrize("program", [PROGRAM, CAST_PROGRAM], ids=["predicate", "cast"])
def test_dynamo_breaks_where_dynalint_says(program: str) -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(program) == {line for line, _ in flagged(program)}
