"""DYN520: ``next()`` of an iterator made before the compiled code started.

Measured on torch 2.13: an iterator that existed before tracing started (a generator or ``iter()`` object on an
attribute, an item of one, a module-level name, an argument) breaks at ``next()`` (GB4347; GB0008 for a data
loader's iterator), with or without a default. An iterator made in the traced code (``iter()`` of a list, a
generator function called there, ``self.parameters()``, an attribute assigned first, an object built there)
traces.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.model.finding import Confidence
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import itertools

    import torch
    from torch import nn


    def stream():
        while True:
            yield torch.ones(2)


    class Sampler:
        def __init__(self):
            self.points = stream()
            self.batches = iter([torch.ones(2)] * 8)
            self.cycle = itertools.cycle([torch.ones(2)])
            self.by_name = {"a": iter([torch.ones(2)] * 8)}


    sampler = Sampler()
    SHARED = iter([torch.ones(2)] * 8)


    def from_attributes(x):
        a = next(sampler.points)
        b = next(sampler.batches)
        c = next(sampler.cycle, None)
        d = next(sampler.by_name["a"])
        return x + a + b + c + d


    def from_module_level(x):
        return x + next(SHARED)


    def from_argument(x, it):
        return x + next(it)


    def through_alias(x):
        pending = sampler.batches
        return x + next(pending)


    def made_here(x, xs):
        it = iter(xs)
        first = next(it)
        fresh = Sampler()
        sampler.pending = iter(xs)
        return x + first + next(iter(xs)) + next(fresh.points) + next(sampler.pending) + next(stream())


    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(2, 2)

        def forward(self, x):
            device = next(self.parameters()).device
            return self.proj(x.to(device))


    xs = [torch.ones(2)] * 3
    torch.compile(from_attributes, backend="eager")(torch.ones(2))
    torch.compile(from_module_level, backend="eager")(torch.ones(2))
    torch.compile(from_argument, backend="eager")(torch.ones(2), iter(xs))
    torch.compile(through_alias, backend="eager")(torch.ones(2))
    torch.compile(made_here, backend="eager")(torch.ones(2), xs)
    torch.compile(Head(), backend="eager")(torch.ones(2))
""")


def findings() -> dict[int, Confidence]:
    return {f.start.line: f.confidence for f in lint_source(PROGRAM, "iterators.py", Config()) if f.code == "DYN520"}


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if text in line)


def test_iterators_made_before_tracing_are_flagged() -> None:
    certain = [line_of(text) for text in ("next(sampler.points)", "next(sampler.batches)", "next(sampler.cycle, None)",
                                          'next(sampler.by_name["a"])', "next(SHARED)", "next(pending)")]
    assert {line: findings().get(line) for line in certain} == dict.fromkeys(certain, Confidence.CERTAIN)


def test_an_argument_is_likely() -> None:
    assert findings().get(line_of("return x + next(it)")) is Confidence.LIKELY


def test_iterators_made_in_the_traced_code_are_left_alone() -> None:
    for text in ("first = next(it)", "next(fresh.points) + next(sampler.pending)", "next(self.parameters())"):
        assert line_of(text) not in findings(), text


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {f.start.line for f in lint_source(PROGRAM, "iterators.py", Config())}
