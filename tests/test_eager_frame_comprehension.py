"""DYN112: a comprehension in a function that a break in a loop makes Dynamo run eagerly.

Measured on torch 2.13, Python 3.11 (``rules/DYN112-eager-frame-comprehension.md`` holds the proven
examples): the break in the loop gives up the frame, and each comprehension of it whose code names a
``torch`` module (or reads a tensor or the method's module) is compiled as a frame of its own and breaks
on its opening line (GB4347) when it iterates a list, a dict view, ``zip`` and the like, before the loop
or after it; not over a tuple, a ``range`` or a tensor, not a generator expression, not when the break
follows the loop. These tests are static: what dynalint reports on such code. Run under Dynamo, SOURCE
breaks on lines 7, 8, 14, 18 (GB4347), 17, 28 and 37 (GB0124), and on 33 when ``flag`` is true.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.checks import eager_frame_comprehension
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F


    @torch.compile
    def in_loop(views: list[torch.Tensor], x: torch.Tensor):
        before = [F.relu(z) for z in views]
        pairs = {i: F.relu(z) for i, z in enumerate(views)}
        plain = [2.0 * z for z in views]
        ranged = [F.relu(x) * i for i in range(3)]
        tupled = [F.relu(z) for z in x.split(2)]
        rows = [F.relu(z) for z in x]
        lazy = sum(F.relu(z).sum() for z in views)
        nested = [[F.relu(z) for z in views] for _ in views]
        total = 0.0
        for z in views:
            total += z.sum().item()
        after = [z * x for z in views]
        return total


    @torch.compile
    def break_after_the_loop(views: list[torch.Tensor]):
        before = [F.relu(z) for z in views]
        total = views[0]
        for z in views:
            total = total + z
        return total.sum().item()


    @torch.compile
    def break_under_if_in_loop(views: list[torch.Tensor], flag: bool):
        before = [F.relu(z) for z in views]
        total = 0.0
        for z in views:
            if flag:
                total += z.sum().item()
        return total


    @torch.compile
    def break_in_the_body(views: list[torch.Tensor]):
        values = [F.relu(z).sum().item() for z in views]
        for z in views:
            print(z)
        return values
""")

SELECT = Config(select=("DYN101", "DYN201", "DYN112"))


def _found(source: str = SOURCE) -> list[tuple[int, str]]:
    return sorted((f.start.line, f.code) for f in lint_source(source, "frames.py", SELECT))


def test_each_comprehension_dynamo_compiles_on_its_own_in_a_function_a_loop_break_gives_up_is_flagged() -> None:
    flagged = [line for line, code in _found() if code == "DYN112"]
    # before (7), the dict comprehension over enumerate (8), the nested comprehension's outer one (14)
    # and the one after the loop (18, reading the tensor ``x``); not the one that names no torch module (9),
    # nor those over a range (10), a tuple (11) or a tensor (12), nor the generator expression (13).
    assert flagged == [7, 8, 14, 18]


def test_a_break_after_the_loop_gives_up_nothing_and_one_under_an_if_in_it_is_not_counted() -> None:
    # Measured: after the loop, no comprehension breaks. Under an ``if`` that Dynamo takes, line 33 does
    # break (GB4347); the rule counts only breaks on every path through the loop, which surely happen.
    lines = [line for line, code in _found() if code == "DYN112"]
    assert not [line for line in lines if 21 <= line <= 38]


def test_a_comprehension_whose_body_breaks_keeps_only_the_break_inside() -> None:
    assert [(line, code) for line, code in _found() if 41 <= line <= 46] == [(43, "DYN101"), (45, "DYN201")]


def test_the_finding_after_the_loop_is_not_hidden_as_a_follow_on_of_the_break_in_it() -> None:
    found = lint_source(SOURCE, "frames.py", SELECT)
    loop_break = next(f for f in found if f.code == "DYN101" and f.start.line == 17)
    assert (18, "DYN112") in [(f.start.line, f.code) for f in found]
    assert "line 18" not in loop_break.message


def test_python_3_12_inlines_comprehensions_so_the_rule_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eager_frame_comprehension, "COMPREHENSION_FRAMES", False)
    assert [line for line, code in _found() if code == "DYN112"] == []


def test_a_break_in_a_try_keeps_the_graph_before_it_and_is_not_counted() -> None:
    # Measured: one graph holds the comprehension, the ``.item()`` in the ``try`` breaks (GB0124), no GB4347.
    source = textwrap.dedent("""\
        import torch
        import torch.nn.functional as F


        @torch.compile
        def f(views: list[torch.Tensor]):
            normed = [F.relu(z) for z in views]
            try:
                total = normed[0].sum().item()
            except RuntimeError:
                total = 0.0
            return total
    """)
    assert _found(source) == [(9, "DYN101")]


AFTER_TRY = """\
import torch
import torch.nn.functional as F


def after_try(x, views):
    before = [F.relu(z) for z in views]
    try:
        print("in try")
    except ValueError:
        pass
    return before, [F.relu(z) for z in views]


def after_plain_break(x, views):
    print("plain")
    return [F.relu(z) for z in views]


x = torch.ones(2)
torch.compile(after_try, backend="eager")(x, [x, x])
torch.compile(after_plain_break, backend="eager")(x, [x, x])
"""


def test_a_break_in_a_try_gives_up_the_rest_of_the_function_and_the_comprehensions_after_it_break() -> None:
    """The graph before the ``try`` is kept, so the comprehension before it traces; the one after it runs in
    the eager frame, compiled on its own (GB4347 under Dynamo, torch 2.13). After a break that resumes, nothing."""
    assert _found(AFTER_TRY) == [(8, "DYN201"), (11, "DYN112"), (15, "DYN201")]


@pytest.mark.torch
def test_dynamo_breaks_on_the_comprehension_after_a_break_in_a_try() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(AFTER_TRY) == {line for line, _ in _found(AFTER_TRY)}
