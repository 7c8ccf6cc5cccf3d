"""DYN105 on a helper's mask used as an index: ``logits[is_known(labels)]`` with ``def is_known(labels): return
labels >= 0`` (pytorch-ood's losses). The helper makes a mask on every ``return``; given a value that may be a tensor,
indexing with its result has a data-dependent size and breaks (GB0036, measured on torch 2.13 by the torch test).
Given a Python number, the comparison is a Python bool and the index traces (``x[True]``): not flagged.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch
import torch.nn.functional as F


def is_known(labels):
    return labels >= 0


def loss(logits, targets):
    known = logits[is_known(targets)]
    first = logits[is_known(1)]
    return F.cross_entropy(known, targets[is_known(targets)]) + first.sum()


torch.compile(loss, backend="eager")(torch.rand(4, 3), torch.tensor([0, 1, -1, 2]))
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "ood.py", Config(select=("DYN105",)))}


def test_the_helpers_mask_is_flagged_where_a_tensor_is_given() -> None:
    assert flagged() == {10, 12}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
