"""Value analysis: calling the value of a property is calling the function its getter returns.

torchtnt's early-stop checker branches on ``self._mode_func(val, threshold)``, where ``_mode_func`` is a property whose
getter returns ``torch.lt`` or ``torch.gt``, annotated ``-> Callable[[Tensor, ...], Tensor]``. What such a call gives
is the result of the function the getter returns, as the annotation's last argument says, not what the getter returns
(``Program._property_call_type``): here a tensor, so the ``if`` is on a tensor's value. Measured on torch 2.13 by the
torch test: the branch breaks (GB0170) on the flagged line; the ``Callable[[float], str]`` property's call does not.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
from typing import Callable, Union

import torch


class Checker:
    def __init__(self, mode: str):
        self.mode = mode

    @property
    def compare(self) -> Callable[[torch.Tensor, Union[torch.Tensor, float]], torch.Tensor]:
        return torch.lt if self.mode == "min" else torch.gt

    @property
    def label(self) -> Callable[[float], str]:
        return str

    def check(self, val, threshold):
        if threshold is not None and self.compare(val, threshold):
            return val * 2
        if self.label(1.0) == "1.0":
            return val * 3
        return val


checker = Checker("min")
torch.compile(checker.check, backend="eager")(torch.tensor(0.5), 1.0)
"""


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "checker.py", Config(select=("DYN102",)))}


def test_a_property_returning_a_tensor_function_gives_a_tensor_when_called() -> None:
    assert flagged() == {19}


def test_without_the_callable_annotation_nothing_is_known() -> None:
    bare = PROGRAM.replace(" -> Callable[[torch.Tensor, Union[torch.Tensor, float]], torch.Tensor]:", ":")
    assert flagged(bare) == set()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
