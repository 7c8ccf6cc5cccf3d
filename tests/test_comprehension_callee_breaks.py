"""DYN111 where the break inside a comprehension is in a function the comprehension calls (the post-pass).

Measured on torch 2.13 (Python 3.11): a comprehension whose body calls a function that breaks breaks again
on its own line when Dynamo cannot rebuild what it iterates: a dict view (list, dict and set
comprehensions), ``enumerate`` of a list, an ``nn.Module``'s parameter generator, or a module list the
module holds. Over ``zip``, ``map``, a plain list or ``enumerate`` of a dict view it does not, and neither
does a comprehension whose callee does not break. The callee may be in another file. A generator
expression that ``sum`` / ``any`` / ``all`` / ``set`` consume breaks again (GB8335) over anything, whether the
break is in a callee or on its own lines; one that ``tuple`` or ``max`` consume, or a ``for`` loops over, does not.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from torch import nn


    def noisy(x):
        print("inside")
        return x + 1


    def quiet(x):
        return x + 1


    def through(x):
        return noisy(x) * 2


    def over_items(d):
        return {k: noisy(v) for k, v in d.items()}


    def over_values(d):
        return [through(v) for v in d.values()]


    def over_keys(d):
        return [noisy(d[k]) for k in d.keys()]


    def set_over_items(d):
        return {noisy(v).sum() for _, v in d.items()}


    def over_enumerate(xs):
        return [noisy(x) * i for i, x in enumerate(xs)]


    def over_zip(xs, ys):
        return [noisy(x) + y for x, y in zip(xs, ys)]


    def over_map(xs):
        return [noisy(x) for x in map(torch.neg, xs)]


    def over_list(xs):
        return [noisy(x) for x in xs]


    def enumerate_values(d):
        return [noisy(v) * i for i, v in enumerate(d.values())]


    def quiet_items(d):
        return {k: quiet(v) for k, v in d.items()}


    def summed(xs):
        return sum(noisy(x) for x in xs)


    def any_positive(xs):
        return any(through(x).sum() > 0 for x in xs)


    def summed_inline(xs: list[torch.Tensor]):
        total = sum(
            x * x.sum().item()
            for x in xs
        )
        return total


    def positive(v: torch.Tensor):
        return v[v > 0].sum()


    def summed_positive(xs):
        return sum(positive(v) for v in xs)


    def as_tuple(xs):
        return tuple(noisy(x) for x in xs)


    def largest(xs):
        return max(noisy(x).sum() for x in xs)


    def looped(xs):
        out = xs[0]
        for y in (noisy(x) for x in xs):
            out = out + y
        return out


    class Layer(nn.Module):
        def forward(self, x):
            print("layer")
            return x * 2


    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([Layer(), Layer()])

        def forward(self, x):
            return [layer(x) for layer in self.layers]


    class Norms(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            return [noisy(p) for p in self.parameters()]


    d = {"a": torch.ones(2), "b": torch.ones(2)}
    xs = [torch.ones(2)] * 3
    torch.compile(over_items, backend="eager")(d)
    torch.compile(over_values, backend="eager")(d)
    torch.compile(over_keys, backend="eager")(d)
    torch.compile(set_over_items, backend="eager")(d)
    torch.compile(over_enumerate, backend="eager")(xs)
    torch.compile(over_zip, backend="eager")(xs, xs)
    torch.compile(over_map, backend="eager")(xs)
    torch.compile(over_list, backend="eager")(xs)
    torch.compile(enumerate_values, backend="eager")(d)
    torch.compile(quiet_items, backend="eager")(d)
    torch.compile(summed, backend="eager")(xs)
    torch.compile(any_positive, backend="eager")(xs)
    torch.compile(summed_inline, backend="eager")(xs)
    torch.compile(summed_positive, backend="eager")(xs)
    torch.compile(as_tuple, backend="eager")(xs)
    torch.compile(largest, backend="eager")(xs)
    torch.compile(looped, backend="eager")(xs)
    torch.compile(Stack(), backend="eager")(torch.ones(2))
    torch.compile(Norms(), backend="eager")(torch.ones(2))
""")


def line_of(text: str, program: str = PROGRAM) -> int:
    return next(n for n, line in enumerate(program.splitlines(), 1) if text in line)


def flagged(program: str = PROGRAM, name: str = "comprehensions.py") -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(program, name, Config()) if f.code == "DYN111"}


def test_a_callee_breaking_inside_an_unrebuildable_iteration_breaks_at_the_comprehension() -> None:
    found = flagged()
    expected = [line_of(text) for text in (
        "for k, v in d.items()}", "for v in d.values()]", "for k in d.keys()]", "for _, v in d.items()}",
        "for i, x in enumerate(xs)]", "for layer in self.layers]", "for p in self.parameters()]")]
    assert {line: found.get(line) for line in expected} == dict.fromkeys(expected, "DYN111")


def test_iterations_dynamo_resumes_and_quiet_callees_are_left_alone() -> None:
    found = flagged()
    for text in ("zip(xs, ys)]", "map(torch.neg, xs)]", "for x in xs]", "enumerate(d.values())]", "quiet(v) for"):
        assert line_of(text) not in found, text


def test_a_generator_expression_that_sum_any_all_or_set_consume_breaks_again() -> None:
    found = flagged()
    expected = [line_of(text) for text in ("sum(noisy(x) for x in xs)", "any(through(x).sum() > 0", "total = sum(",
                                           "sum(positive(v) for v in xs)")]
    assert {line: found.get(line) for line in expected} == dict.fromkeys(expected, "DYN111")


def test_generator_expressions_other_consumers_force_are_left_alone() -> None:
    found = flagged()
    for text in ("tuple(noisy(x) for x in xs)", "max(noisy(x).sum()", "for y in (noisy(x) for x in xs)"):
        assert line_of(text) not in found, text


def test_the_rule_reports_a_comprehension_once() -> None:
    program = textwrap.dedent("""\
        import torch

        def noisy(x):
            print("inside")
            return x

        def both(d):
            return {k: noisy(v) + v.sum().item() for k, v in d.items()}

        torch.compile(both)({"a": torch.ones(2)})
    """)
    findings = [f for f in lint_source(program, "once.py", Config()) if f.code == "DYN111"]
    assert [f.start.line for f in findings] == [line_of("for k, v in d.items()}", program)]


def test_the_callee_may_be_in_another_file(tmp_path: Path) -> None:
    from dynalint.api import lint_paths

    (tmp_path / "helpers.py").write_text("def noisy(x):\n    print('inside')\n    return x\n", encoding="utf-8")
    (tmp_path / "model.py").write_text(textwrap.dedent("""\
        import torch
        from helpers import noisy

        @torch.compile
        def run(d):
            return {k: noisy(v) for k, v in d.items()}
    """), encoding="utf-8")
    findings = [f for f in lint_paths([str(tmp_path)]).findings if f.code == "DYN111"]
    assert [(Path(f.filename).name, f.start.line, f.start.column) for f in findings] == [("model.py", 6, 12)]


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    every = {f.start.line for f in lint_source(PROGRAM, "comprehensions.py", Config())}
    assert dynamo_break_lines(PROGRAM) == every
