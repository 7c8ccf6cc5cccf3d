"""DYN518 on calls of generic aliases, and DYN004 on ``types.MethodType``, next to subscripted calls that trace.

Measured on torch 2.13: ``list[T]()``, ``OrderedDict[K, V]()``, ``typing.DefaultDict(list)``, ``Box[T](x)`` for a
``Generic`` class, and binding a method with ``types.MethodType`` (accelerate, deepspeed and poutyne do it in code
their models compile) break with GB0147 (``Box`` with GB0116 too). A call of an item of a ``ModuleList`` or of a
dict of functions is a subscript call as well, and traces: it is never flagged.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import types
    import typing
    from collections import OrderedDict
    from typing import Generic, TypeVar

    import torch

    T = TypeVar("T")
    ACTIVATIONS = {"relu": torch.relu, "tanh": torch.tanh}


    class Box(Generic[T]):
        def __init__(self, value):
            self.value = value


    class Plain:
        pass


    def doubled(self, y):
        return y * 2


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)])

        def forward(self, x):
            for i in range(2):
                x = self.layers[i](x)
            x = ACTIVATIONS["relu"](x)
            parts = list[torch.Tensor]()
            parts.append(x)
            named = OrderedDict[str, torch.Tensor]()
            named["x"] = x
            legacy = typing.DefaultDict(list)
            legacy["x"].append(x)
            box = Box[torch.Tensor](x)
            kinds = dict[str, int]
            bound = types.MethodType(doubled, Plain())
            return bound(parts[0] + named["x"] + legacy["x"][0] + box.value) + len(kinds.__args__)


    torch.compile(Net(), backend="eager")(torch.randn(2, 3))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM, "net.py", Config())}


def test_alias_calls_are_flagged_and_item_calls_are_not() -> None:
    assert flagged() == {34: "DYN518", 36: "DYN518", 38: "DYN518", 40: "DYN518", 42: "DYN004"}


def test_the_fixes_call_the_class() -> None:
    fixes = {f.start.line: f.fix for f in lint_source(PROGRAM, "net.py", Config()) if f.code == "DYN518"}
    assert fixes[40] is None, "a Generic class of the tree loses __orig_class__ without its subscript: no fix"
    assert all(fixes[line] is not None for line in (34, 36, 38))


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
