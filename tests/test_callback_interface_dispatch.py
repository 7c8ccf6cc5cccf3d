"""Reach: a hook called on a value of unknown class, defined by many overrides of one base's method.

A training framework's runner calls ``callback.on_step(...)`` for each callback in a list it was given: the callback's
class is not known, and the call is resolved by the method's name. That resolution gives up past ``_MAX_BY_NAME``
classes, since a name many unrelated classes define (``update``, ``step``) says little. But fifteen callbacks that
each override ``Callback.on_step`` are one interface, not fifteen (torchtnt's, skorch's and poutyne's callbacks):
``Program._interfaces_defining`` counts the classes that define the method while no base of theirs does. Measured on
torch 2.13 by the torch test: the printing callback's ``print`` breaks (GB0059) at the line dynalint flags.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

_OVERRIDES = "".join(f"class Quiet{n}(Callback):\n    def on_step(self, x):\n        return x\n\n\n" for n in range(14))

PROGRAM = f"""\
import torch


class Callback:
    def on_step(self, x):
        pass


{_OVERRIDES}class Printer(Callback):
    def on_step(self, x):
        print("step")


class Runner:
    def __init__(self, callbacks):
        self.callbacks = callbacks

    def step(self, x):
        for callback in self.callbacks:
            callback.on_step(x)
        return x * 2


runner = Runner([Printer(), Quiet0()])
torch.compile(runner.step, backend="eager")(torch.rand(2))
"""

PRINT_LINE = PROGRAM.splitlines().index('        print("step")') + 1

# The same names on unrelated classes: more interfaces than ``_MAX_BY_NAME``, the call is not followed.
UNRELATED = PROGRAM.replace("(Callback):", ":")


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "runner.py", Config())}


def test_overrides_of_one_base_method_are_one_interface() -> None:
    assert flagged() == {PRINT_LINE}


def test_as_many_unrelated_classes_are_not_followed() -> None:
    assert flagged(UNRELATED) == set()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
