"""DYN209 on a loop over ``enumerate`` (or ``zip``) of a progress bar: iterating it is still iterating the bar.

tez's and torch-rechub's trainers build ``tk0 = tqdm(loader)`` and loop ``for i, batch in enumerate(tk0):``. Measured
on torch 2.13 (and again by the torch test here): building the bar breaks (GB0007), and so does the loop, at its
``for`` line (GB0008, ``tqdm.__iter__``); a loop over ``enumerate`` of a plain list does not.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from tqdm import tqdm


    def train(batches, weights):
        bar = tqdm(batches)
        total = 0
        for step, batch in enumerate(bar):
            total = total + batch * step
        for batch, weight in zip(batches, weights):
            total = total + batch * weight
        return total


    torch.compile(train, backend="eager")([torch.ones(2), torch.ones(2)], [1.0, 2.0])
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.message for f in lint_source(PROGRAM, "loop.py", Config(select=("DYN209",)))}


def test_a_loop_over_enumerate_of_a_bar_is_flagged_and_one_over_a_list_is_not() -> None:
    found = flagged()
    assert sorted(found) == [6, 8]
    assert found[8] == "`iter(bar)` in compiled code breaks the graph"


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    pytest.importorskip("tqdm")
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
