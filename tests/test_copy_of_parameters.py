"""DYN207 on deep copies of a module's parameters or buffers gathered into a builtin container.

x_mlps_pytorch's ``noised_params = deepcopy(dict(self.model.named_parameters()))`` (through a local). Measured on
torch 2.13: deep-copying ``dict(m.named_parameters())``, ``list(m.parameters())`` or ``dict(m.named_buffers())``
breaks (GB4198, each value is a tensor), in place or through a local bound to it; a ``state_dict()``, deep or
shallow, copies without a break, and so does a dict of plain values.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import copy
    from copy import deepcopy

    import torch
    from torch import nn

    net = nn.Linear(2, 2)
    norm = nn.BatchNorm1d(2)


    def named(x):
        params = dict(net.named_parameters())
        snapshot = deepcopy(params)
        return x + 1


    def listed(x):
        snapshot = copy.deepcopy(list(net.parameters()))
        return x + 1


    def buffers(x):
        snapshot = deepcopy(dict(norm.named_buffers()))
        return x + 1


    def state(x):
        sd = net.state_dict()
        snapshot = copy.deepcopy(sd)
        return x + 1


    def rebound(x):
        params = dict(net.named_parameters())
        params = {"n": 1}
        snapshot = deepcopy(params)
        return x + 1


    torch.compile(named, backend="eager")(torch.randn(2))
    torch.compile(listed, backend="eager")(torch.randn(2))
    torch.compile(buffers, backend="eager")(torch.randn(2))
    torch.compile(state, backend="eager")(torch.randn(2))
    torch.compile(rebound, backend="eager")(torch.randn(2))
""")


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "copies.py", Config(select=("DYN207",)))}


def test_deep_copies_of_gathered_parameters_are_flagged() -> None:
    lines = PROGRAM.splitlines()
    assert [lines[n - 1].strip() for n in sorted(flagged())] == [
        "snapshot = deepcopy(params)",
        "snapshot = copy.deepcopy(list(net.parameters()))",
        "snapshot = deepcopy(dict(norm.named_buffers()))",
    ]


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
