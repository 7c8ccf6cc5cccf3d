"""DYN509 on the mixed-precision loss scaler: ``scaler.scale(loss)``, ``scaler.step(optimizer)`` and
``scaler.update()`` in compiled code (skrl's agents step their optimizers this way).

Measured on torch 2.13 (the torch test runs the program under Dynamo): each of the three is a function Dynamo skips
(GB0008) and breaks at its line, for a scaler held by ``self`` as for a module-level one. The optimizer's own
``step()``, which the skipped ``scaler.step`` runs eagerly, then calls ``torch._dynamo.graph_break()`` in a frame of
its own (GB0025), which Dynamo places on the module-level line that called the compiled function.

In a loop whose body breaks first (skrl's update: ``optimizer.zero_grad()`` under ``for batch in batches``), Dynamo
gives the frame up and runs it eagerly; the scaler's ``scale`` / ``unscale_`` / ``update`` then run without a break,
while ``scaler.step(optimizer)`` still breaks at its own line, in the optimizer's frame (GB0025). The scaler there is
built in an ``if`` / ``else`` from ``torch.amp`` or ``torch.cuda.amp``, as skrl does.
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


PROGRAM_GIVEN_UP_LOOP = """\
import torch


class Agent:
    def __init__(self, net, amp):
        self.net = net
        self.optimizer = torch.optim.Adam(net.parameters(), lr=0.1)
        if amp:
            self.scaler = torch.amp.GradScaler("cpu", enabled=False)
        else:
            self.scaler = torch.cuda.amp.GradScaler(enabled=False)

    def update(self, batches):
        total = 0
        for x in batches:
            loss = self.net(x).sum()
            self.optimizer.zero_grad()
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            total = total + loss.detach()
        return total


agent = Agent(torch.nn.Linear(3, 3), True)
torch.compile(agent.update, backend="eager")([torch.rand(2, 3), torch.rand(2, 3)])
"""


def flagged(program: str = PROGRAM) -> dict[int, str]:
    found = lint_source(program, "trainer.py", Config(select=("DYN509",)))
    return {f.start.line: f.message.split("`")[1] for f in found}


def test_the_scalers_scale_step_and_update() -> None:
    assert flagged() == {12: "GradScaler.scale()", 13: "GradScaler.step()", 14: "GradScaler.update()"}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    breaks = dynamo_break_lines(PROGRAM)
    assert set(flagged()) <= breaks
    assert breaks - set(flagged()) == {19}  # the optimizer's own step, placed on the calling line


def test_the_scalers_step_after_a_loop_gave_the_frame_up() -> None:
    assert flagged(PROGRAM_GIVEN_UP_LOOP) == {17: "Adam.zero_grad()", 20: "GradScaler.step()"}


@pytest.mark.torch
def test_dynamo_breaks_at_the_scalers_step_in_the_eager_frame() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM_GIVEN_UP_LOOP) == set(flagged(PROGRAM_GIVEN_UP_LOOP))
