"""Reach: a chain of attributes read through a local, and private class names.

lightning's ``LightningModule.log`` reads ``trainer = self._trainer``, then ``results = trainer._results``, then calls
``results.log(...)``, a method decorated ``torch.compiler.disable``. ``_trainer`` is declared ``Optional[Trainer]`` and
``_results`` is a property returning ``Optional[_ResultCollection]``. A local read off another local that holds one
chain of ``self``'s attributes is that longer chain (``summarize._assignment``), and a class whose name is private
(``_ResultCollection``) is a class as a capitalised one is (``summarize._names_class``). Measured on torch 2.13 by the
torch test: the disabled call breaks (GB0099) where DYN002 flags it.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
from typing import Optional

import torch


class _ResultCollection:
    @torch.compiler.disable
    def log(self, name, value):
        return None


class Trainer:
    def __init__(self):
        self._collection = _ResultCollection()

    @property
    def _results(self) -> Optional[_ResultCollection]:
        return self._collection


class Module(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._trainer: Optional[Trainer] = None

    def log(self, name, value):
        trainer = self._trainer
        results = trainer._results
        results.log(name, value)

    def training_step(self, x):
        loss = (x * 2).sum()
        self.log("loss", loss)
        return loss


m = Module()
m._trainer = Trainer()
torch.compile(m.training_step, backend="eager")(torch.rand(3))
"""


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "module.py", Config(select=("DYN002",)))}


def test_the_chain_through_a_local_reaches_the_disabled_method() -> None:
    assert flagged() == {29}


def test_the_chain_written_out_reaches_it_too() -> None:
    written = PROGRAM.replace("        trainer = self._trainer\n        results = trainer._results\n",
                              "        results = self._trainer._results\n")
    assert flagged(written) == {28}


def test_an_unannotated_property_is_not_followed() -> None:
    assert flagged(PROGRAM.replace("def _results(self) -> Optional[_ResultCollection]:", "def _results(self):")) == set()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
