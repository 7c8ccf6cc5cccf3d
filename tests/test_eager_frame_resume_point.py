"""DYN112: a break in a loop gives the function up from where it last resumed, not from its start.

Measured on torch 2.13 (Python 3.11): a function that breaks outside its loops first (``print("early")``) keeps the
graph up to there and compiles the rest as a resume function; a break in a loop after it gives up that resume
function only. The comprehension before the early break stays in the graph, and the one after it runs in the
eager frame, compiled on its own, where it breaks at once (GB4347). Without the early break, the loop's break
gives up the whole function.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch


    def with_early(xs):
        before = [torch.cos(x) for x in xs]
        print("early")
        after = [torch.sin(x) for x in xs]
        for y in after:
            print("loop")
        return after, before


    def without_early(xs):
        ys = [torch.sin(x) for x in xs]
        for y in ys:
            print("loop")
        return ys


    torch.compile(with_early, backend="eager")([torch.ones(2)] * 2)
    torch.compile(without_early, backend="eager")([torch.ones(2)] * 2)
""")

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 inlines comprehensions (PEP 709)")


def flagged() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM, "resume.py", Config()) if f.code == "DYN112"}


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if text in line)


def test_only_the_comprehensions_after_the_last_resume_point_run_eagerly() -> None:
    assert flagged() == {line_of("after = [torch.sin(x)"): "DYN112", line_of("ys = [torch.sin(x)"): "DYN112"}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {f.start.line for f in lint_source(PROGRAM, "resume.py", Config())}
