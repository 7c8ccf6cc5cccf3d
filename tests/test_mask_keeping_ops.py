"""DYN105 on a boolean mask carried through an op that keeps its dtype: ``triu`` / ``tril`` (a causal or
upper-triangle mask built from ``torch.ones(..., dtype=torch.bool)``), ``flip``, ``roll``, and ``.to(device)``,
as methods and as ``torch.<name>`` functions.

Measured on torch 2.13 (the torch test runs the program under Dynamo): indexing with each of these masks has a
data-dependent size and breaks with GB0036, as indexing with the mask itself does. ``.to(torch.float)`` makes a
float tensor of the mask, and multiplying by it traces.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def upper_triangle(x: torch.Tensor):
    mask = torch.ones(x.shape[-2:], dtype=torch.bool).triu(1)
    return x[:, mask]


def lower_function(x: torch.Tensor):
    keep = torch.tril(x > 0)
    return x[keep]


def flipped_and_moved(x: torch.Tensor):
    keep = (x > 0).flip(0).to(x.device)
    return x[keep]


def rolled(x: torch.Tensor, y: torch.Tensor):
    return x[torch.roll(y != 0, 1, 0)]


def weights(x: torch.Tensor):
    allowed = torch.ones(4, 4, dtype=torch.bool).triu(1).to(torch.float)
    return x * allowed


def as_float_index(x: torch.Tensor):
    order = (x > 0).to(torch.long).flip(0)
    return x[order]


x = torch.randn(4, 4)
torch.compile(upper_triangle, backend="eager")(torch.randn(2, 4, 4))
torch.compile(lower_function, backend="eager")(x)
torch.compile(flipped_and_moved, backend="eager")(x)
torch.compile(rolled, backend="eager")(x, torch.randn(4, 4))
torch.compile(weights, backend="eager")(x)
torch.compile(as_float_index, backend="eager")(x)
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "masks.py", Config(select=("DYN105",)))}


def test_a_mask_kept_through_triangles_flips_rolls_and_device_moves() -> None:
    assert flagged() == {6, 11, 16, 20}


def test_a_mask_made_another_dtype_is_no_mask() -> None:
    assert not flagged() & {25, 30}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged() == {6, 11, 16, 20}
