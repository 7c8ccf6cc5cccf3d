"""DYN104 on a tensor given where a torch op takes a Python number, beyond ``alpha=`` / ``value=``: the
activations' constants (``F.leaky_relu``'s slope, ``F.elu``'s alpha, ``F.hardtanh``'s bounds, ``F.softplus``'s
beta), ``F.dropout``'s p, ``F.pad``'s value, ``nan_to_num``'s replacements and the fill value of ``full_like`` /
``new_full``, by keyword or by position.

Measured on torch 2.13 (the torch test runs the program under Dynamo): each reads the 0-d tensor with
``.item()`` and breaks with GB0033. The same value given where torch also takes a tensor traces: ``clamp``'s
bound, ``masked_fill``'s value, ``torch.where``'s branch, ``torch.full``'s fill value.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch
import torch.nn.functional as F


def slope(x: torch.Tensor):
    s = x.abs().mean() * 0.1
    return F.leaky_relu(x, s)


def activations(x: torch.Tensor):
    s = x.abs().mean() * 0.1
    return F.elu(x, alpha=s)


def bounds(x: torch.Tensor):
    s = x.abs().mean()
    return F.hardtanh(x, -s, s)


def drop(x: torch.Tensor):
    p = x.abs().mean() * 0.1
    return F.dropout(x, p=p)


def padded(x: torch.Tensor):
    s = x.sum()
    return F.pad(x, (1, 1), "constant", s)


def cleaned(x: torch.Tensor):
    s = x.mean()
    return x.nan_to_num(s)


def filled(x: torch.Tensor):
    s = x.max()
    return x.new_full((3,), s)


def like(x: torch.Tensor):
    s = x.mean()
    return torch.full_like(x, fill_value=s)


def tensors_taken(x: torch.Tensor):
    s = x.mean()
    return x.clamp(min=s) + x.masked_fill(x > 0, s) + torch.where(x > 0, x, s) + torch.full((4,), s)


def numbers(x: torch.Tensor):
    return F.leaky_relu(x, 0.2) + F.pad(x, (1, 1), value=0.5)[1:-1] + x.new_full((4,), 2.0)


x = torch.rand(4)
torch.compile(slope, backend="eager")(x)
torch.compile(activations, backend="eager")(x)
torch.compile(bounds, backend="eager")(x)
torch.compile(drop, backend="eager")(x)
torch.compile(padded, backend="eager")(x)
torch.compile(cleaned, backend="eager")(x)
torch.compile(filled, backend="eager")(x)
torch.compile(like, backend="eager")(x)
torch.compile(tensors_taken, backend="eager")(x)
torch.compile(numbers, backend="eager")(x)
"""
BREAKS = {7, 12, 17, 22, 27, 32, 37, 42}


def flagged() -> dict[int, str]:
    found = lint_source(PROGRAM, "numbers.py", Config(select=("DYN104",)))
    return {f.start.line: f.message.split("`")[1] for f in found}


def test_a_tensor_where_an_op_takes_a_number_by_keyword_or_position() -> None:
    assert flagged() == {7: "negative_slope=s", 12: "alpha=s", 17: "min_val=-s", 22: "p=p", 27: "value=s",
                         32: "nan=s", 37: "fill_value=s", 42: "fill_value=s"}


def test_arguments_torch_also_takes_as_tensors_and_python_numbers_are_not_flagged() -> None:
    assert not set(flagged()) & {47, 51}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged()) == BREAKS
