"""A name that ``__init__`` gives a Python value and a later method registers as a buffer may hold either.

torchrl's SAC loss keeps ``self._target_entropy = target_entropy`` (``str | float``) and, the first time its
``target_entropy`` property runs, deletes it and registers a buffer of that name. The property compares the
attribute with ``"auto"`` before that: a string comparison, which Dynamo traces (measured on torch 2.13; the
torch test runs the program). A buffer with no Python value assigned to its name is still a tensor.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch
from torch import nn


class Loss(nn.Module):
    def __init__(self, target: str | float = "auto", floor: float = 0.0):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))
        self._target = target
        self._floor = 0.5
        self.register_buffer("_steps", torch.zeros(()))

    @property
    def target(self):
        held = self._buffers.get("_target", None)
        if held is not None:
            return held
        value = self._target
        if value == "auto":
            value = -1.0
        delattr(self, "_target")
        self.register_buffer("_target", torch.tensor(value))
        return self._target

    def forward(self, x):
        if self._steps > 0:
            x = x * 2
        return x * self.target * self.scale


torch.compile(Loss(), backend="eager")(torch.randn(3))
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "loss.py", Config(select=("DYN102",)))}


def test_a_registered_name_also_given_a_python_value_is_no_tensor() -> None:
    assert 19 not in flagged()


def test_a_buffer_never_given_a_python_value_is_still_a_tensor() -> None:
    assert 26 in flagged()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged() == {26}
