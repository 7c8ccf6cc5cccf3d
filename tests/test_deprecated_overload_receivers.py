"""DYN517 leaves alone a value of unknown type when a class of the tree defines the method itself.

asdl's conjugate gradient calls ``x.add_(p, alpha)`` on its own ``ParamVector``, whose ``add_(other, alpha)``
is plain Python: Dynamo traces it (measured on torch 2.13). The same call on a tensor is the deprecated
overload and breaks (GB0117), so a value the analysis knows is a tensor is still flagged, and so is a value of
unknown type where no class of the tree defines ``add_``.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch


    class Vector:
        def __init__(self, values):
            self.values = values

        def add_(self, other, alpha=1.0):
            self.values = [v + alpha * o for v, o in zip(self.values, other.values)]
            return self


    def solve(start, p, alpha):
        x = Vector([torch.zeros(2)]) if start is None else start
        x.add_(p, alpha)
        return x.values[0]


    def momentum(buf: torch.Tensor, grad: torch.Tensor):
        buf.add_(0.9, grad)
        return buf


    torch.compile(solve, backend="eager")(None, Vector([torch.ones(2)]), 0.5)
    torch.compile(momentum, backend="eager")(torch.ones(2), torch.ones(2))
""")

ELSEWHERE = textwrap.dedent("""\
    import torch


    def step(x, p, lr):
        x.add_(lr, p)
        return x


    torch.compile(step)(torch.ones(2), torch.ones(2), 0.1)
""")


def flagged(program: str) -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(program, "overloads.py", Config()) if f.code == "DYN517"}


def line_of(text: str, program: str = PROGRAM) -> int:
    return next(n for n, line in enumerate(program.splitlines(), 1) if text in line)


def test_a_receiver_that_may_be_a_class_defining_the_method_is_left_alone() -> None:
    assert line_of("x.add_(p, alpha)") not in flagged(PROGRAM)


def test_a_tensor_is_still_flagged() -> None:
    assert flagged(PROGRAM) == {line_of("buf.add_(0.9, grad)"): "DYN517"}


def test_an_unknown_value_is_flagged_where_no_class_defines_the_method() -> None:
    assert flagged(ELSEWHERE) == {line_of("x.add_(lr, p)", ELSEWHERE): "DYN517"}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {f.start.line for f in lint_source(PROGRAM, "overloads.py", Config())}
