"""DYN516: ``load_state_dict`` in compiled code (a target network synced inside ``forward``, weights restored).

Measured on torch 2.13 (the torch test runs the program under Dynamo): a module's ``load_state_dict`` breaks with
GB0208, from another module's ``state_dict()`` or from a dict saved before, with ``strict=False`` too; reading
``state_dict()`` and copying parameters in place under ``no_grad`` trace.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.model.finding import Confidence
from dynalint.project.config import Config

PROGRAM = """\
import torch

net = torch.nn.Linear(3, 3)
other = torch.nn.Linear(3, 3)
saved = {k: v.clone() for k, v in net.state_dict().items()}


class Agent(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.online = torch.nn.Linear(3, 3)
        self.target = torch.nn.Linear(3, 3)

    def forward(self, x):
        self.target.load_state_dict(self.online.state_dict(), strict=False)
        return self.target(x)


def sync(dst, src):
    dst.load_state_dict(src.state_dict())


def restore(x):
    net.load_state_dict(saved)
    return net(x)


def synced(x):
    sync(net, other)
    return net(x)


def copied(x):
    with torch.no_grad():
        for p, q in zip(net.parameters(), other.parameters()):
            p.copy_(q)
    return net(x) * len(net.state_dict())


x = torch.rand(2, 3)
torch.compile(Agent(), backend="eager")(x)
torch.compile(restore, backend="eager")(x)
torch.compile(synced, backend="eager")(x)
torch.compile(copied, backend="eager")(x)
"""


def findings() -> dict[int, Confidence]:
    return {f.start.line: f.confidence for f in lint_source(PROGRAM, "agent.py", Config(select=("DYN516",)))}


def test_loads_into_known_modules_are_certain_into_a_helper_parameter_likely() -> None:
    assert findings() == {15: Confidence.CERTAIN, 20: Confidence.LIKELY, 24: Confidence.CERTAIN}


def test_reading_a_state_dict_and_copying_in_place_are_not_flagged() -> None:
    assert not set(findings()) & {33, 34, 35}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(findings()) == {15, 20, 24}
