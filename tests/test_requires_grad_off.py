"""DYN502 on ``requires_grad_(False)``: it breaks on a tensor the caller passed that requires grad (captum's gradient
helpers switch their inputs off), and not on a tensor the function made. Measured on torch 2.13 by the torch test
(GB0125 on the passed input); reported ``likely``, since an input that does not require grad traces.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def release(x, w):
    x.requires_grad_(False)
    return x * w


def made(x):
    y = torch.ones(3)
    y.requires_grad_(False)
    x = x.detach() + 1
    x.requires_grad_(False)
    return y + x


torch.compile(release, backend="eager")(torch.rand(3, requires_grad=True), torch.rand(3))
torch.compile(made, backend="eager")(torch.rand(3, requires_grad=True))
"""


def flagged() -> dict[int, str]:
    return {f.start.line: f.confidence.value for f in lint_source(PROGRAM, "grad.py", Config(select=("DYN502",)))}


def test_a_passed_tensor_switched_off_is_flagged_likely() -> None:
    assert flagged() == {5: "likely"}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
