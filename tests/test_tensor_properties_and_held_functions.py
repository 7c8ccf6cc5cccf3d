"""Value analysis: a tensor read through a property, or made by a torch function an attribute holds.

torchtnt's early-stop checker keeps its thresholds as ``self._stopping_threshold: Optional[torch.Tensor]``, reads them
through ``@property def stopping_threshold(self) -> Optional[torch.Tensor]``, branches on them (``if
stopping_threshold:``) and on ``self._mode_func(val, threshold)``, where ``__init__`` set ``self._mode_func = torch.lt
if mode == "min" else torch.gt``. The summary now records a ``self`` attribute annotated a tensor (``Optional``
allowed) and a property whose return is annotated one as tensor attributes (``summarize._only_tensors``), and a call
of an attribute given only torch functions that return tensors gives a tensor (``Program._holds_tensor_functions``).
Measured on torch 2.13 by the torch test: both ``if`` lines break (GB0170) where DYN102 flags them.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
from typing import Optional

import torch


class Checker:
    def __init__(self, threshold, mode="min"):
        self._threshold: Optional[torch.Tensor] = None if threshold is None else torch.tensor([threshold])
        self._mode_func = torch.lt if mode == "min" else torch.gt

    @property
    def threshold(self) -> Optional[torch.Tensor]:
        return self._threshold

    def check(self, val):
        threshold = self.threshold
        if threshold:
            threshold = threshold * 2
        if self._mode_func(val, threshold):
            return val
        return val + 1


c = Checker(0.5)
torch.compile(c.check, backend="eager")(torch.tensor([0.3]))
"""


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "checker.py", Config(select=("DYN102",)))}


def test_a_tensor_property_and_a_held_torch_function_give_tensors() -> None:
    assert flagged() == {17, 19}


def test_python_annotations_and_python_functions_give_no_tensor() -> None:
    python = PROGRAM.replace("def threshold(self) -> Optional[torch.Tensor]:", "def threshold(self) -> Optional[float]:")
    python = python.replace("torch.lt if mode", "min if mode")
    assert flagged(python) == set()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
