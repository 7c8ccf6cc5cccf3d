"""Value analysis: what ``torch.load`` returns is whatever was saved, not a tensor.

pytorch-accelerated's ``load_checkpoint`` reads ``checkpoint = torch.load(path, ...)`` and asks ``if load_optimizer
and "optimizer_state_dict" in checkpoint:``. ``torch_result`` took every top-level ``torch.<name>()`` for a tensor
maker, so the membership test read as a tensor's and DYN102 flagged the line, where Dynamo breaks only at the load
itself (DYN206). ``torch.load``'s result is now of unknown kind (``torch_facts.UNKNOWN_RESULT_FUNCTIONS``). Measured on
torch 2.13 by the torch test: the load breaks (GB0007), the membership test does not.
"""

from __future__ import annotations

import pytest

from dynalint.analysis.torch_facts import TorchResult, torch_result
from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import os
import tempfile

import torch

PATH = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({"model_state_dict": {"w": torch.zeros(2)}, "optimizer_state_dict": {}}, PATH)


def restore(x, load_optimizer):
    checkpoint = torch.load(PATH, map_location="cpu", weights_only=True)
    if load_optimizer and "optimizer_state_dict" in checkpoint:
        x = x + 1
    return x


torch.compile(restore, backend="eager")(torch.rand(2), True)
"""


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "restore.py", Config())}


def test_a_loaded_checkpoint_is_no_tensor() -> None:
    assert torch_result("torch.load") is TorchResult.UNKNOWN
    assert torch_result("torch.zeros") is TorchResult.TENSOR
    assert flagged() == {11}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
