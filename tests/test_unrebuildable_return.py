"""DYN515: an object built in compiled code, holding a function from its constructor's default, returned.

Measured on torch 2.13 (the torch test runs the program under Dynamo): returning such an object, alone, in a
tuple or through a local, fails the frame with GB0092 at the ``return``, for a ``lambda`` default and for a
``def`` of the module alike. Passing the function, a default resolved inside ``__init__``, and using the object
without returning it trace.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def identity(x):
    return x


class LambdaDefault:
    def __init__(self, q, fmt=lambda x: x):
        self.q = q
        self.fmt = fmt

    def value(self):
        return self.fmt(self.q)


class FunctionDefault:
    def __init__(self, q, fmt=identity):
        self.q = q
        self.fmt = fmt


class Resolved:
    def __init__(self, q, fmt=None):
        self.q = q
        self.fmt = fmt if fmt is not None else identity


def alone(x):
    return LambdaDefault(x * 2)


def in_a_tuple(x):
    return FunctionDefault(x * 2), x


def through_a_local(x):
    made = LambdaDefault(x * 2)
    return made


def passed(x):
    return LambdaDefault(x * 2, identity)


def resolved(x):
    return Resolved(x * 2)


def used_inside(x):
    return LambdaDefault(x * 2).value()


x = torch.randn(3)
torch.compile(alone, backend="eager")(x)
torch.compile(in_a_tuple, backend="eager")(x)
torch.compile(through_a_local, backend="eager")(x)
torch.compile(passed, backend="eager")(x)
torch.compile(resolved, backend="eager")(x)
torch.compile(used_inside, backend="eager")(x)
"""
RETURNS_OUT = {30, 34, 39}


def flagged() -> dict[int, str]:
    found = lint_source(PROGRAM, "values.py", Config(select=("DYN515",)))
    return {f.start.line: f.message.split("`")[3] for f in found}


def test_an_object_holding_a_default_function_returned_alone_in_a_tuple_or_through_a_local() -> None:
    assert flagged() == dict.fromkeys(RETURNS_OUT, "fmt")


def test_the_function_passed_a_default_resolved_inside_init_or_the_object_used_inside_are_not_flagged() -> None:
    assert not set(flagged()) & {43, 47, 51}


def test_only_a_returned_construction_whose_defaults_are_left_is_flagged() -> None:
    source = PROGRAM.replace("return LambdaDefault(x * 2)\n", "return LambdaDefault(x * 2, fmt=identity)\n", 1)
    assert 30 not in {f.start.line for f in lint_source(source, "values.py", Config(select=("DYN515",)))}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged()) == RETURNS_OUT


def test_a_helper_inlined_into_its_caller_and_a_forward_with_no_compile_site_are_not_flagged() -> None:
    source = PROGRAM.split("def alone")[0] + (
        "def helper(x):\n    return LambdaDefault(x * 2)\n\n\n"
        "class Head(torch.nn.Module):\n    def forward(self, x):\n        return LambdaDefault(x)\n\n\n"
        "@torch.compile\ndef entry(x):\n    return helper(x).value() + Head()(x).q\n"
    )
    assert not lint_source(source, "values.py", Config(select=("DYN515",)))


def test_a_function_the_config_declares_compiled_is_not_flagged() -> None:
    source = PROGRAM.split("def alone")[0] + "def entry(x):\n    return LambdaDefault(x * 2)\n"
    declared = Config(select=("DYN515",), compiled=("values.entry",))
    assert not lint_source(source, "values.py", declared)
    compiled_here = source + "\n\ntorch.compile(entry)(torch.randn(3))\n"
    assert [f.start.line for f in lint_source(compiled_here, "values.py", Config(select=("DYN515",)))] == [30]
