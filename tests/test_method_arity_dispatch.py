"""Dispatch by a method's name keeps only the methods the call's arguments can bind to, and reads a parameter named
like a builtin as the parameter.

pypose's ``def Exp(input): return input.Exp()`` runs ``LieTensor.Exp(self)``, a method of a tensor subclass that
breaks (through ``tensor()``, DYN512), so Dynamo breaks again at the call (GB0092, DYN508). The analysis used to
miss it twice over: the parameter ``input`` was read as the builtin ``input``, so the call was not dispatched at
all; and the Lie types' ``Exp(self, x)``, which no call without an argument can run, made the receiver possibly a
plain object, so DYN508 did not take it for a tensor subclass. Measured on torch 2.13 by the torch test: Dynamo
breaks on exactly the flagged lines.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.analysis.summary import CallSite, unread_arguments
from dynalint.api import lint_source, lint_paths
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from torch import Tensor


    class Lie(Tensor):
        def tensor(self):
            return Tensor.as_subclass(self, Tensor)

        def Exp(self):
            return self.tensor().exp()

        def Act(self, p):
            return self.tensor() * p


    class LieType:
        def Exp(self, x):
            return x.exp()

        def Act(self, x, p):
            return x * p


    def Exp(input):
        return input.Exp()


    def Act(X, p):
        return X.Act(p)


    def f(x, p):
        return Exp(x) + Act(x, p)


    torch.compile(f, backend="eager")(torch.randn(3).as_subclass(Lie), torch.randn(3))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM, "lie.py", Config())}


def line_of(text: str) -> int:
    return next(number for number, line in enumerate(PROGRAM.splitlines(), 1) if line.strip() == text)


def test_calls_through_a_parameter_named_like_a_builtin_and_with_one_binding_are_taken_for_the_subclass() -> None:
    assert flagged() == {
        line_of("return Tensor.as_subclass(self, Tensor)"): "DYN512",
        line_of("return self.tensor().exp()"): "DYN508",
        line_of("return self.tensor() * p"): "DYN508",
        line_of("return input.Exp()"): "DYN508",
        line_of("return X.Act(p)"): "DYN508",
    }


def test_a_method_the_arguments_cannot_bind_to_is_not_a_callee_and_one_they_can_is(tmp_path) -> None:
    (tmp_path / "lie.py").write_text(PROGRAM)
    program = lint_paths([str(tmp_path)], Config(root=tmp_path, select=("DYN508",))).program
    assert program is not None

    def callees(caller: str, written: str) -> list[str]:
        return sorted(callee.function for site, callee in program.callees(f"lie.{caller}") if site.callee == written)

    assert callees("Exp", "input.Exp") == ["lie.Lie.Exp"]
    assert callees("Act", "X.Act") == ["lie.Lie.Act"]
    # resolving by the name alone still finds both: only the call's arguments tell them apart
    assert sorted(c.function for c in program.resolve_calls("lie.Act", "X.Act")) == ["lie.Lie.Act", "lie.LieType.Act"]
    two = CallSite(1, "X.Act", unread_arguments((0, 1)))
    keyword = CallSite(1, "X.Act", unread_arguments((0, "p")))
    unknown_keyword = CallSite(1, "X.Act", unread_arguments(("q",)))
    assert program.accepts("lie.LieType.Act", two) and not program.accepts("lie.Lie.Act", two)
    assert program.accepts("lie.LieType.Act", keyword) and not program.accepts("lie.Lie.Act", unknown_keyword)


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
