"""DYN204 on the clock readings a training loop times itself with: ``time.time()``, ``time.perf_counter_ns()`` and
``timeit.default_timer()`` (poutyne's loops), each a function Dynamo skips (GB0007) and breaks at its line (measured
on torch 2.13 by the torch test). ``time.strftime(fmt, time.gmtime(0))`` reads no clock, yet both are C functions
Dynamo skips and break the same way.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import time
import timeit

import torch


def step(x):
    started = timeit.default_timer()
    y = x * 2
    wall = time.time()
    stamp = time.strftime("%H", time.gmtime(0))
    ticks = time.perf_counter_ns()
    return y + 1, started, wall, stamp, ticks


torch.compile(step, backend="eager")(torch.rand(3))
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "loop.py", Config(select=("DYN204",)))}


def test_each_clock_reading_is_flagged() -> None:
    assert flagged() == {8, 10, 11, 12}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
