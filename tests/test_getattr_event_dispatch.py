"""Reach: ``getattr(receiver, name)(...)`` where ``name`` is a parameter its callers pass a method's name for.

Training frameworks fire their events by name: pytorch-accelerated's ``CallbackHandler.call_event(event, ...)`` runs
``getattr(callback, event)(...)`` for each callback, skorch's ``notify(method_name)`` runs
``getattr(cb, method_name)(...)``. The summary records such a call as ``callback.{event}`` and every identifier string
a call passes as ``name:<string>`` (``dispatch._looked_up_call``); the program resolves it as ``callback.<string>``
for each string the function's callers pass (``Program._looked_up``). A literal name, ``getattr(self, "hook")(...)``,
is read as ``self.hook(...)``. Measured on torch 2.13 by the torch test: the callback's ``print`` and the runner's own
hook's ``time.time()`` break (GB0059, GB0007) at the lines dynalint flags, the hook nobody fires does not run.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import time

import torch


class Callback:
    def on_step_end(self, trainer):
        pass

    def on_run_end(self, trainer):
        pass


class Printer(Callback):
    def on_step_end(self, trainer):
        print("step", trainer.steps)

    def on_run_end(self, trainer):
        print("never fired in a step")


class Handler:
    def __init__(self, callbacks):
        self.callbacks = callbacks

    def call_event(self, event, *args):
        for callback in self.callbacks:
            getattr(callback, event)(*args)


class Trainer:
    def __init__(self, callbacks):
        self.handler = Handler(callbacks)
        self.steps = 0

    def on_step_end(self):
        self.stamp = time.time()

    def notify(self, hook):
        getattr(self, hook)()

    def step(self, x):
        y = x * 2
        self.handler.call_event("on_step_end", self)
        self.notify("on_step_end")
        return y


trainer = Trainer([Printer()])
torch.compile(trainer.step, backend="eager")(torch.rand(2))
"""


def line_of(text: str) -> int:
    return PROGRAM.splitlines().index(text) + 1


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "trainer.py", Config())}


def test_the_methods_named_by_callers_are_reached() -> None:
    assert flagged() == {line_of('        print("step", trainer.steps)'), line_of("        self.stamp = time.time()")}


def test_a_literal_name_is_the_method_it_names() -> None:
    source = PROGRAM.replace("getattr(self, hook)()", 'getattr(self, "on_step_end")()')
    assert line_of("        self.stamp = time.time()") in {f.start.line for f in lint_source(source, "trainer.py", Config())}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
