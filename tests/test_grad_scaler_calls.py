"""DYN509 on the mixed-precision loss scaler: ``scaler.scale(loss)``, ``scaler.step(optimizer)`` and
``scaler.update()`` in compiled code (skrl's agents step their optimizers this way).

Measured on torch 2.13 (the torch test runs the program under Dynamo): each of the three is a function Dynamo skips
(GB0008) and breaks at its line, for a scaler held by ``self`` as for a module-level one. The optimizer's own
``step()``, which the skipped ``scaler.step`` runs eagerly, then calls ``torch._dynamo.graph_break()`` in a frame of
its own (GB0025), which Dynamo places on the module-level line that called the compiled function.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


class Trainer:
    def __init__(self, net):
        self.net = net
        self.optimizer = torch.optim.Adam(net.parameters(), lr=0.1)
        self.scaler = torch.amp.GradScaler("cpu")

    def step(self, x):
        loss = self.net(x).sum()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss


trainer = Trainer(torch.nn.Linear(3, 3))
torch.compile(trainer.step, backend="eager")(torch.rand(2, 3))
"""


def flagged() -> dict[int, str]:
    found = lint_source(PROGRAM, "trainer.py", Config(select=("DYN509",)))
    return {f.start.line: f.message.split("`")[1] for f in found}


def test_the_scalers_scale_step_and_update() -> None:
    assert flagged() == {12: "GradScaler.scale()", 13: "GradScaler.step()", 14: "GradScaler.update()"}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    breaks = dynamo_break_lines(PROGRAM)
    assert set(flagged()) <= breaks
    assert breaks - set(flagged()) == {19}  # the optimizer's own step, placed on the calling line
