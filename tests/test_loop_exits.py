"""Whether a break inside a loop's body gives up the frame (``analysis/loop_exits.py``).

Dynamo decides by scanning the bytecode after the break: a jump backward first means a loop (it gives
the frame up, and the later breaks of the function never happen), a ``return`` first means none (it
resumes after the break, and the later breaks happen too). The torch test runs the same program under
Dynamo and compares the lines it breaks on with the lines dynalint reports.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

LOOPS = """\
import torch


@torch.compile(backend="eager")
def plain(x):
    for i in range(3):
        print("a", i)
        if x.sum() > 0:
            x = x - 1
    return x


@torch.compile(backend="eager")
def returns_after(x):
    for i in range(3):
        print("b", i)
        if x.sum() > 0:
            return x - 1
    return x


@torch.compile(backend="eager")
def tail_else(x):
    for i in range(3):
        print("c", i)
        if x.sum() > 100:
            x = x - 1
        else:
            return x
    return x


@torch.compile(backend="eager")
def mid_else(x):
    for i in range(3):
        print("d", i)
        if x.sum() > 100:
            x = x - 1
        else:
            return x
        x = x * 2
    return x


@torch.compile(backend="eager")
def inner_loop_returns(x, ws):
    for i in range(3):
        print("e", i)
        for w in ws:
            if w > 5:
                return x
        if x.sum() > 0:
            x = x - 1
    return x


@torch.compile(backend="eager")
def continue_first(x):
    for i in range(3):
        print("f", i)
        if i == 0:
            continue
        if x.sum() > 0:
            return x
    return x


x = torch.ones(2)
for f in (plain, returns_after, tail_else, mid_else, continue_first):
    f(x)
inner_loop_returns(x, [1, 2])
"""

SELECT = Config(select=("DYN102", "DYN201"))


def test_a_return_before_the_jump_back_keeps_the_later_breaks() -> None:
    """``returns_after``, ``mid_else`` and ``inner_loop_returns`` have a ``return`` between the ``print`` and the
    loop's jump back: their ``if`` on a tensor breaks too. In ``plain``, after a ``continue``, and where the
    ``return`` stands in an ``else`` that the body's threaded jump back skips (``tail_else``), it does not."""
    found = [(f.start.line, f.code) for f in lint_source(LOOPS, "loops.py", SELECT)]
    assert found == [
        (7, "DYN201"),
        (16, "DYN201"), (17, "DYN102"),
        (25, "DYN201"),
        (36, "DYN201"), (37, "DYN102"),
        (48, "DYN201"), (52, "DYN102"),
        (60, "DYN201"),
    ]


def test_the_break_that_gives_up_the_frame_says_so_and_one_that_resumes_does_not() -> None:
    messages = {f.start.line: f.message for f in lint_source(LOOPS, "loops.py", SELECT)}
    assert "runs the rest of `plain` eagerly" in messages[7]
    assert "eagerly" not in messages[16]


@pytest.mark.torch
def test_dynamo_breaks_where_the_scan_for_a_loop_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(LOOPS) == {f.start.line for f in lint_source(LOOPS, "loops.py", SELECT)}
