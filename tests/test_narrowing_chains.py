"""The value analysis narrows through ``and`` / ``or`` chains of ``isinstance`` tests.

torchrl's ``TanhNormal`` checks its bounds three ways: ``if isinstance(high, Tensor) or isinstance(low, Tensor)``
compares tensors, ``elif isinstance(high, Number) and isinstance(low, Number)`` compares Python numbers, and the
``else`` neither. In the ``elif`` both names are numbers, and in the ``else`` neither is a tensor, so only the
first branch asks a tensor for its truth. Run under Dynamo with Python bounds and with tensor bounds (the torch
test), only that first branch breaks (GB0170, measured on torch 2.13).
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
from numbers import Number

import torch


def check(loc: torch.Tensor, low: torch.Tensor | float = -1.0, high: torch.Tensor | float = 1.0):
    if isinstance(high, torch.Tensor) or isinstance(low, torch.Tensor):
        if not (high > low).all():
            raise RuntimeError("bad")
    elif isinstance(high, Number) and isinstance(low, Number):
        if not high > low:
            raise RuntimeError("bad")
    else:
        if not all(high > low):
            raise RuntimeError("bad")
    return loc * 2


compiled = torch.compile(check, backend="eager")
compiled(torch.randn(3))
compiled(torch.randn(3), torch.tensor([-1.0]), torch.tensor([1.0]))
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "bounds.py", Config(select=("DYN102",)))}


def test_both_names_of_an_and_chain_are_numbers_in_the_body() -> None:
    assert 11 not in flagged()


def test_no_name_of_an_or_chain_of_tensor_tests_is_a_tensor_in_the_else() -> None:
    assert 14 not in flagged()


def test_the_tensor_branch_is_still_flagged() -> None:
    assert 8 in flagged()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged() == {8}
