"""DYN102 where Python asks a tensor for its truth out of sight: ``any()`` / ``all()`` of a generator or list of
tensors, and ``t in [0, 1]``.

Measured on torch 2.13 (the torch test runs the program under Dynamo): ``any(p.sum() > 0 for p in parts)`` and
``all([torch.isfinite(p).all() for p in parts])`` break with GB0170, as ``any(x > 0)`` does; ``x[0] in [1.0, 2.0]``
breaks under an ``if`` (GB0170) and in a conditional expression (GB0033), since the list compares ``x[0]`` with
each item and asks the result's truth; used as a value (``x * (x[0] in [1.0, 2.0])``), whose truth nothing asks,
it traces. A set on the right hashes instead and traces; ``any()`` of Python bools about shapes and
``4 in x.shape`` trace too.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def in_list(x: torch.Tensor):
    if x[0] in [1.0, 2.0]:
        return x
    return x + 1


def in_tuple(x: torch.Tensor):
    return x + 1 if x[0] not in (1.0, 2.0) else x


def in_set(x: torch.Tensor):
    if x[0] in {1.0, 2.0}:
        return x
    return x + 1


def contains(x: torch.Tensor):
    if 1.0 in x:
        return x
    return x + 1


def any_tensor(x: torch.Tensor):
    if any(x > 0):
        return x
    return x + 1


def any_gen(x: torch.Tensor, parts: list[torch.Tensor]):
    if any(p.sum() > 0 for p in parts):
        return x
    return x + 1


def all_list(x: torch.Tensor, parts: list[torch.Tensor]):
    ok = all([torch.isfinite(p).all() for p in parts])
    return x + 1 if ok else x


def any_flags(x: torch.Tensor):
    flags = [x.dim() > 0, x.shape[0] > 2]
    if any(flags):
        return x
    return x + 1


def in_shape(x: torch.Tensor):
    if 4 in x.shape:
        return x
    return x + 1


def in_list_as_value(x: torch.Tensor):
    return x * (x[0] in [1.0, 2.0])


x = torch.randn(4)
parts = [torch.randn(2), torch.randn(3)]
torch.compile(in_list, backend="eager")(x)
torch.compile(in_tuple, backend="eager")(x)
torch.compile(in_set, backend="eager")(x)
torch.compile(contains, backend="eager")(x)
torch.compile(any_tensor, backend="eager")(x)
torch.compile(any_flags, backend="eager")(x)
torch.compile(in_shape, backend="eager")(x)
torch.compile(any_gen, backend="eager")(x, parts)
torch.compile(all_list, backend="eager")(x, parts)
torch.compile(in_list_as_value, backend="eager")(x)
"""
LINES = PROGRAM.splitlines()


def flagged() -> dict[int, str]:
    found = lint_source(PROGRAM, "truths.py", Config(select=("DYN102",)))
    return {f.start.line: LINES[f.start.line - 1].strip() for f in found}


def test_any_and_all_of_a_generator_or_list_of_tensors() -> None:
    found = flagged()
    assert found[33] == "if any(p.sum() > 0 for p in parts):"
    assert found[39] == "ok = all([torch.isfinite(p).all() for p in parts])"


def test_a_tensor_looked_up_in_a_list_or_tuple_of_numbers() -> None:
    found = flagged()
    assert found[5] == "if x[0] in [1.0, 2.0]:"
    assert found[11] == "return x + 1 if x[0] not in (1.0, 2.0) else x"


def test_a_set_shapes_and_python_flags_are_not_flagged() -> None:
    found = flagged()
    assert not [line for line in found.values() if "{1.0, 2.0}" in line or "x.shape" in line or "any(flags)" in line]


def test_a_lookup_whose_truth_is_not_asked_is_not_flagged() -> None:
    assert "return x * (x[0] in [1.0, 2.0])" not in flagged().values()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged()) == {5, 11, 21, 27, 33, 39}
