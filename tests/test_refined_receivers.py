"""DYN509: an optimizer or a scheduler handed back by a typing helper.

torchtnt steps its scheduler as ``none_throws(self.lr_scheduler).step()``: pyre's ``none_throws`` returns its argument
as it is (raising on ``None``), as ``typing.cast(T, x)`` returns ``x``. Such a call's value is its argument
(``torch_facts.IDENTITY_FUNCTIONS``), so what the argument is known to be is what the receiver is. Measured on torch
2.13 by the torch test: the optimizer's ``zero_grad()`` and the scheduler's ``step()`` break (GB0008) on the flagged
lines.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
from typing import cast

import torch


class Unit:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.lr_scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1)

    def on_epoch_end(self, x):
        loss = self.model(x).sum()
        cast(torch.optim.Optimizer, self.optimizer).zero_grad()
        cast(torch.optim.lr_scheduler.LRScheduler, self.lr_scheduler).step()
        return loss


unit = Unit(torch.nn.Linear(2, 2))
torch.compile(unit.on_epoch_end, backend="eager")(torch.rand(3, 2))
"""


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "unit.py", Config(select=("DYN509",)))}


def test_a_cast_hands_back_what_it_casts() -> None:
    assert flagged() == {14, 15}


def test_none_throws_hands_back_its_argument() -> None:
    pyre = PROGRAM.replace("from typing import cast\n", "from pyre_extensions import none_throws\n").replace(
        "cast(torch.optim.Optimizer, self.optimizer)", "none_throws(self.optimizer)").replace(
        "cast(torch.optim.lr_scheduler.LRScheduler, self.lr_scheduler)", "none_throws(self.lr_scheduler)")
    assert flagged(pyre) == {14, 15}


def test_another_functions_result_is_not_the_argument() -> None:
    other = PROGRAM.replace("from typing import cast\n", "from mylib import wrap\n").replace(
        "cast(torch.optim.Optimizer, self.optimizer)", "wrap(torch.optim.Optimizer, self.optimizer)").replace(
        "cast(torch.optim.lr_scheduler.LRScheduler, self.lr_scheduler)", "wrap(None, self.lr_scheduler)")
    assert flagged(other) == set()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()


def test_a_local_bound_to_a_cast_holds_what_it_casts() -> None:
    """The unwrapping is the analysis's (``instances.handed_back``), not DYN509's: a local bound to ``cast(T, x)``,
    or to ``x`` itself, alone or unpacked from a tuple, holds what ``x`` holds, here the optimizer and the
    scheduler ``__init__`` built (measured by the torch test below)."""
    assert flagged(ALIASES) == {15, 16}


ALIASES = PROGRAM.replace("""\
        loss = self.model(x).sum()
        cast(torch.optim.Optimizer, self.optimizer).zero_grad()
        cast(torch.optim.lr_scheduler.LRScheduler, self.lr_scheduler).step()
        return loss
""", """\
        scheduler = self.lr_scheduler
        opt, steps = cast(torch.optim.Optimizer, self.optimizer), 0
        opt.zero_grad()
        scheduler.step()
        return self.model(x).sum()
""")


@pytest.mark.torch
def test_dynamo_breaks_at_the_aliases_calls() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(ALIASES) == flagged(ALIASES)


def test_a_name_unpacked_from_an_unknown_value_forgets_what_it_held() -> None:
    """``opt, n = make()`` rebinds ``opt`` to something not known element-wise: it holds no known object after."""
    unpacked = ALIASES.replace("opt, steps = cast(torch.optim.Optimizer, self.optimizer), 0",
                               "opt = self.optimizer\n        opt, steps = self.model.state(), 0")
    assert flagged(unpacked) == {17}
