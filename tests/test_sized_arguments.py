"""DYN109 on the size arguments of calls that are not factories: ``topk``'s ``k``, ``repeat``'s repeats and
``narrow``'s start and length.

Measured on torch 2.13 (the torch test runs the program under Dynamo): each, given a tensor computed in the
compiled function, reads it as a Python int and breaks with GB0033, as a factory's size does; given Python ints
they trace.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def topk_fn(x: torch.Tensor):
    k = (x > 0).sum() + 1
    return torch.topk(x, k).values


def topk_kw(x: torch.Tensor):
    k = (x > 0).sum() + 1
    return x.topk(k=k).values


def repeat_two(x: torch.Tensor):
    n = (x > 0).sum() + 1
    return x.view(1, -1).repeat(n, 1)


def narrow_fn(x: torch.Tensor):
    n = (x > 0).sum() + 1
    return torch.narrow(x, 0, 0, n)


def narrow_start(x: torch.Tensor):
    s = (x > 0).sum() * 0
    return x.narrow(0, s, 2)


def topk_int(x: torch.Tensor):
    return x.topk(2).values + x.repeat(2).sum() + x.narrow(0, 1, 2).sum()


# Fixed values, not random ones: with four positive values `k` and `n` would be 5, out of range for 4 elements.
x = torch.tensor([1.0, -1.0, 2.0, -2.0])
torch.compile(topk_fn, backend="eager")(x)
torch.compile(topk_kw, backend="eager")(x)
torch.compile(repeat_two, backend="eager")(x)
torch.compile(narrow_fn, backend="eager")(x)
torch.compile(narrow_start, backend="eager")(x)
torch.compile(topk_int, backend="eager")(x)
"""
LINES = PROGRAM.splitlines()


def flagged() -> dict[int, str]:
    found = lint_source(PROGRAM, "sized.py", Config(select=("DYN109",)))
    return {f.start.line: f.message.split("`")[1] for f in found}


def test_topk_repeat_and_narrow_given_a_tensor_computed_in_the_function() -> None:
    assert flagged() == {6: "torch.topk()", 11: "Tensor.topk()", 16: "Tensor.repeat()", 21: "torch.narrow()",
                         26: "Tensor.narrow()"}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged()) == {6, 11, 16, 21, 26}


# What is no size from a tensor's values: sizes spread out of ``*prompt.shape`` into names (speculative-decoding's
# ``batch, prompt_seq_len, out, device = *prompt.shape, prompt.clone(), prompt.device``), and a module's attribute
# that shares a tensor method's name (pytorch-toolbelt's squeeze-and-excitation ``self.expand = nn.Conv2d(...)``).
NO_SIZES = """\
import torch
from torch import nn


def spread(prompt):
    batch, seq_len, out, device = *prompt.shape, prompt.clone(), prompt.device
    batch_range = torch.arange(batch, device=device)[..., None]
    total = torch.arange(seq_len)
    return out + batch_range.sum() + total.sum()


class SCSE(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.squeeze = nn.Conv2d(channels, 1, kernel_size=1)
        self.expand = nn.Conv2d(1, channels, kernel_size=1)

    def forward(self, x: torch.Tensor):
        y = self.squeeze(x)
        y = self.expand(y)
        return x * y.sigmoid()


def spread_counts(x):
    head, n = *x.shape[:1], (x > 0).sum()
    return torch.arange(n) + head


torch.compile(spread, backend="eager")(torch.ones(2, 3, dtype=torch.long))
torch.compile(SCSE(4), backend="eager")(torch.randn(1, 4, 3, 3))
torch.compile(spread_counts, backend="eager")(torch.randn(3))
"""


def test_sizes_spread_from_a_shape_and_a_modules_attribute_are_no_tensor_sizes() -> None:
    """Only ``n``, the item after the spread shape, holds a tensor: ``torch.arange(n)`` is the one finding."""
    found = lint_source(NO_SIZES, "no_sizes.py", Config(select=("DYN109",)))
    assert [f.start.line for f in found] == [26]


@pytest.mark.torch
def test_dynamo_breaks_only_on_the_size_from_a_tensor() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(NO_SIZES, "no_sizes.py", Config(select=("DYN109",)))
    assert dynamo_break_lines(NO_SIZES) == {f.start.line for f in found}


# One-element tensors made from Python numbers and sizes: Dynamo's fake tensors carry their values, so a size read
# from one is known while tracing and does not break (measured on torch 2.13). Two elements, or another tensor's
# values mixed in, and it breaks.
PROGRAM_NUMBERS = """\
import torch


def repeat_const(x):
    n = torch.tensor(2)
    return x.repeat(n)


def narrow_size(x):
    n = torch.tensor(x.size(0)) // 2
    return x.narrow(0, 0, n)


def topk_max(x):
    k = torch.maximum(torch.tensor(1), torch.tensor(x.shape[0] // 3))
    return torch.topk(x, k=k).values


def zeros_min(x):
    n = min(torch.tensor(3), torch.tensor(len(x)).to(x.device))
    return torch.zeros(n) + x.sum()


def topk_mixed(x):
    k = torch.tensor(2) + (x > 100).sum()
    return x.topk(k).values


def two_elements(x):
    sizes = torch.tensor([2, 3])
    return torch.zeros(sizes[1]) + x.sum()


x = torch.randn(6)
torch.compile(repeat_const, backend="eager")(x)
torch.compile(narrow_size, backend="eager")(x)
torch.compile(topk_max, backend="eager")(x)
torch.compile(zeros_min, backend="eager")(x)
torch.compile(topk_mixed, backend="eager")(x)
torch.compile(two_elements, backend="eager")(x)
"""


def test_a_size_from_a_one_element_tensor_made_from_numbers_is_known_while_tracing() -> None:
    found = lint_source(PROGRAM_NUMBERS, "numbers.py", Config(select=("DYN109",)))
    assert {f.start.line for f in found} == {26, 31}


@pytest.mark.torch
def test_dynamo_breaks_only_where_the_size_tensor_is_not_made_from_numbers() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(PROGRAM_NUMBERS, "numbers.py", Config(select=("DYN109",)))
    assert dynamo_break_lines(PROGRAM_NUMBERS) == {f.start.line for f in found}
