"""DYN105: a mask kept on ``self``, known by its name and by a call that made it.

pytorch-metric-learning's sparse-centers regularizer builds ``self.same_class_mask = torch.zeros(...,
dtype=torch.bool)`` in ``__init__``, sets some entries and later indexes with it (``center_similarities[
self.same_class_mask]``). Nothing in the method says the attribute is boolean, but a ``self`` attribute named as a mask
that the class makes with a call is taken for a ``likely`` mask, as an entry point's input named so already was.
An attribute only ever given ``None`` or a parameter is not. Measured on torch 2.13 by the torch test: the indexing
breaks (GB0036) on the flagged line.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


class Regularizer(torch.nn.Module):
    def __init__(self, classes, labels=None):
        super().__init__()
        self.same_class_mask = torch.zeros(classes, classes, dtype=torch.bool)
        self.same_class_mask[0, 1] = True
        self.label_mask = labels
        self.scale = torch.ones(classes)

    def forward(self, weights):
        similarities = weights @ weights.T
        picked = similarities[self.same_class_mask].sum()
        given = similarities[self.label_mask].sum()
        scaled = similarities[self.scale.long()].sum()
        return picked + given + scaled


torch.compile(Regularizer(3), backend="eager")(torch.randn(3, 2))
"""


def test_an_attribute_made_by_a_call_and_named_as_a_mask_is_a_likely_mask() -> None:
    found = lint_source(PROGRAM, "regularizer.py", Config(select=("DYN105",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [(14, "likely")]


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(PROGRAM, "regularizer.py", Config(select=("DYN105",)))
    assert dynamo_break_lines(PROGRAM) == {f.start.line for f in found}
