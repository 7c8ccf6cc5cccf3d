"""Functions handed to a higher-order call (``map``, ``sorted(key=)``, ``model.apply``, ``checkpoint``...) are compiled.

Measured on torch 2.13: Dynamo traces into the function each of these runs, so a ``print`` in it breaks at
its own line (GB0059), as if it had been called directly. ``functools.partial(fn, ...)`` handed on runs
``fn``, and so does calling a local bound to one. A function handed to a call that does not run it (a
registry here) is not compiled by that, and an autograd Function's ``Cls.apply(x)`` is no module's
``apply``.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import functools
    from functools import partial

    import torch
    from torch import nn
    from torch.utils._pytree import tree_map
    from torch.utils.checkpoint import checkpoint

    def twice(x):
        print("map")
        return x * 2


    def keep(v):
        print("filter")
        return True


    def rank(v):
        print("key")
        return v


    def add(a, b):
        print("reduce")
        return a + b


    def leaf(x):
        print("tree")
        return x


    def block(x):
        print("checkpoint")
        return x.sin()


    def init(module):
        print("apply")


    def init_scaled(module, scale):
        print("partial", scale)


    def shifted(x, shift):
        print("bound partial")
        return x + shift


    def registered(x):
        print("registered")
        return x


    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, grad):
            return grad * 3


    def apply(x):
        print("not a module's apply")
        return x


    def run(model, x):
        ys = list(map(twice, [x]))
        kept = list(filter(keep, [1, 2]))
        first = sorted([2, 1], key=rank)
        low = min([2, 1], key=rank)
        total = functools.reduce(add, [x, x])
        leaves = tree_map(leaf, {"a": x})
        y = checkpoint(block, x, use_reentrant=False)
        model.apply(init)
        model.apply(partial(init_scaled, scale=2))
        step = partial(shifted, shift=1)
        z = step(x)
        handlers = [x]
        handlers.append(registered)
        w = Scale.apply(x)
        return model(y + z + w + total + ys[0] + leaves["a"])


    torch.compile(run, backend="eager")(nn.Linear(2, 2), torch.randn(2, 2))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM, "higher_order.py", Config())}


def test_functions_run_by_a_higher_order_call_are_compiled() -> None:
    found = flagged()
    prints = [number for number, line in enumerate(PROGRAM.splitlines(), 1) if "print(" in line]
    handed_on = prints[:9]  # twice ... shifted: each runs inside the compiled call
    assert {line: found.get(line) for line in handed_on} == dict.fromkeys(handed_on, "DYN201")


def test_functions_not_run_there_are_not_compiled() -> None:
    found = flagged()
    lines = PROGRAM.splitlines()
    registered = next(n for n, line in enumerate(lines, 1) if 'print("registered")' in line)
    module_level_apply = next(n for n, line in enumerate(lines, 1) if "not a module's apply" in line)
    assert registered not in found, "appended to a registry, not called"
    assert module_level_apply not in found, "Scale.apply(x) is the autograd Function's, not this function"


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
