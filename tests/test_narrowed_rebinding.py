"""A name bound again inside an ``isinstance`` block keeps that binding after the block.

discrete-continuous-embed-readout's ``segmented_softmax`` normalizes its argument: ``if isinstance(lengths,
(tuple, list)): lengths = tensor(lengths)``. After the ``if``, ``lengths`` is a tensor on one path and whatever
was passed on the other; the value analysis joins the two as a tensor. It used to put back, on leaving the
block, what the name held before the test, and lost the new binding. Measured on torch 2.13, with a list and
with a tensor passed: ``repeat_interleave`` with those repeats breaks (GB0036), and ``x * 2`` where ``x`` was
narrowed to a number and not bound again traces.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from torch import tensor


    def segmented(flat, lengths):
        if isinstance(lengths, (tuple, list)):
            lengths = tensor(lengths, device=flat.device)
        return torch.repeat_interleave(flat, lengths, dim=0)


    def scaled(flat, factor):
        if isinstance(factor, float):
            flat = flat * factor
        return flat.sum() * 2


    torch.compile(segmented, backend="eager")(torch.ones(3), [1, 2, 3])
    torch.compile(segmented, backend="eager")(torch.ones(2), torch.tensor([2, 2]))
    torch.compile(scaled, backend="eager")(torch.ones(3), 0.5)
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM, "narrowed.py", Config())}


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if text in line)


def test_a_name_bound_again_in_the_block_keeps_the_new_binding() -> None:
    assert flagged() == {line_of("torch.repeat_interleave(flat, lengths, dim=0)"): "DYN105"}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
