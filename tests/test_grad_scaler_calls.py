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


# coqui's trainer hands ``scaler`` (typed ``"AMPScaler"``, a name it never defines) to its step. Named only
# ``scaler``, it is taken for the loss scaler at the calls only a loss scaler takes: ``get_scale()`` (measured GB0008
# too), ``unscale_(optimizer)``, ``update()`` and ``step(optimizer)``; ``scale(loss)`` and a feature scaler's
# ``transform`` are left alone.
PROGRAM_PLAIN_NAME = """\
import torch


class Normalizer:
    def transform(self, x):
        return x * 2


def step(net, optimizer, scaler: "AMPScaler", features, x):
    loss = net(features.transform(x)).sum()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    before = scaler.get_scale()
    scaler.step(optimizer)
    scaler.update()
    return loss + before


net = torch.nn.Linear(3, 3)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
torch.compile(step, backend="eager")(net, optimizer, torch.amp.GradScaler("cpu"), Normalizer(), torch.rand(2, 3))
"""


def test_a_scaler_named_only_scaler_at_the_calls_only_a_loss_scaler_takes() -> None:
    assert flagged(PROGRAM_PLAIN_NAME) == {12: "GradScaler.unscale_()", 13: "GradScaler.get_scale()",
                                           14: "GradScaler.step()", 15: "GradScaler.update()"}


@pytest.mark.torch
def test_dynamo_breaks_at_each_call_of_a_scaler_named_only_scaler() -> None:
    from conftest import dynamo_break_lines

    breaks = dynamo_break_lines(PROGRAM_PLAIN_NAME)
    assert set(flagged(PROGRAM_PLAIN_NAME)) <= breaks
    assert 11 in breaks  # ``scale(loss)`` breaks too: left alone on a value named only ``scaler`` (likely a miss)
