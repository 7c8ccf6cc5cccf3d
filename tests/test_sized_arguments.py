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


x = torch.randn(4)
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
