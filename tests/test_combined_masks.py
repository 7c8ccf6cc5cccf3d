"""DYN105: masks combined by a product, or chosen by a conditional expression.

pytorch-metric-learning's ranked-list loss indexes with ``(~y) * (mat < self.alpha)``: the product of two boolean
tensors is their ``&``, a mask. Its pair-margin miner builds ``pos_mask = pos_pair < m if inverted else pos_pair > m``,
a mask whichever branch runs. A product with a side that is no mask (a number, a float tensor) is no mask.
Measured on torch 2.13 by the torch test: each indexing breaks (GB0036) on the flagged lines.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def ranked(mat, labels, alpha: float):
    y = labels.unsqueeze(1) == labels.unsqueeze(0)
    out = torch.zeros_like(mat)
    out[(~y) * (mat < alpha)] = mat[(~y) * (mat < alpha)]
    return out


def margin(pos_pair, neg_pair, inverted: bool, a, p):
    pos_mask = pos_pair < 0.5 if inverted else pos_pair > 0.5
    return a[pos_mask], p[pos_mask]


torch.compile(ranked, backend="eager")(torch.rand(4, 4), torch.tensor([0, 1, 0, 1]), 0.5)
torch.compile(margin, backend="eager")(torch.rand(4), torch.rand(4), False, torch.rand(4), torch.rand(4))
"""


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "losses.py", Config(select=("DYN105",)))}


def test_a_product_of_masks_and_a_conditional_mask_are_masks() -> None:
    assert flagged() == {7, 13}


def test_a_mask_times_a_number_is_not_a_mask() -> None:
    scaled = PROGRAM.replace("out[(~y) * (mat < alpha)] = mat[(~y) * (mat < alpha)]",
                             "out[(~y) * 2.0] = mat[(mat < alpha) * alpha]")
    assert 7 not in flagged(scaled)


def test_a_conditional_with_one_branch_not_a_mask_is_not() -> None:
    assert 13 not in flagged(PROGRAM.replace("pos_pair < 0.5 if inverted else pos_pair > 0.5",
                                             "pos_pair < 0.5 if inverted else pos_pair.long()"))


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
