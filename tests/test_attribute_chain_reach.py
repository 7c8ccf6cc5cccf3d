"""Reach: a method called through a chain of attributes, read off what each one is declared as.

Framework code reaches its collaborators through properties and attributes: ``self.trainer.results.log(...)``, or
``results = self.trainer.results`` then ``results.log(...)``, where ``trainer`` and ``results`` are properties whose
return is annotated (``-> "Trainer"``, ``-> Optional[Results]``). ``log`` is also a tensor method, so resolving it by
its name alone is refused. A property's annotated return is now recorded as what the attribute is declared as, a
local bound to ``self.<a>.<b>`` records that chain (``summarize._assignment``), and the program follows the chain
through the declared or held classes at each step (``Program._chained``). Measured on torch 2.13 by the torch test:
the ``print`` inside ``Results.log`` breaks (GB0059) where DYN201 flags it, reached both ways.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
from typing import Optional

import torch


class Results:
    def log(self, name, value):
        print(name)


class Trainer:
    def __init__(self):
        self._results = Results()

    @property
    def results(self) -> Optional[Results]:
        return self._results


class Module(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._trainer = None

    @property
    def trainer(self) -> "Trainer":
        return self._trainer

    def training_step(self, x):
        results = self.trainer.results
        results.log("loss", x)
        return x * 2

    def validation_step(self, x):
        self.trainer.results.log("val_loss", x)
        return x * 3


m = Module()
m._trainer = Trainer()
torch.compile(m.training_step, backend="eager")(torch.rand(2))
torch.compile(m.validation_step, backend="eager")(torch.rand(2))
"""


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "module.py", Config())}


def test_the_chain_of_annotated_properties_is_followed() -> None:
    assert flagged() == {8}


def test_the_chain_written_out_is_followed_too() -> None:
    only_written = PROGRAM.replace('        results = self.trainer.results\n        results.log("loss", x)\n', "")
    assert flagged(only_written) == {8}


def test_an_unannotated_property_is_not_followed() -> None:
    assert flagged(PROGRAM.replace("def results(self) -> Optional[Results]:", "def results(self):")) == set()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
