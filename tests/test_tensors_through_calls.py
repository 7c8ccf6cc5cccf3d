"""A tensor is known by how it was made, through calls too: a parameter that every caller in compiled code
passes a tensor (``steps[i + 1]`` of ``steps = torch.linspace(...)``, a ``torch.*`` call's result, an
arithmetic of those) is a tensor, whatever its name, so a branch on its value is a data-dependent break
(measured on torch 2.13: ``if time_next == 0:`` in the diffusion samplers' ``p_sample`` breaks with
GB0170). One caller passing something else (a Python number, a parameter of its own) leaves it unknown,
as for masks: the call that passes a tensor does break there, and dynalint does not claim it (a known
miss, kept for precision: the kind of a parameter is decided by all its callers or by none).
"""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import torch
    from torch import nn


    class Sampler(nn.Module):
        def p_sample(self, x, time, time_next):
            if time_next == 0:
                return x
            return x * time

        def step(self, x, scale):
            if scale > 1:
                return x * scale
            return x

        def shift(self, x, by):
            if by > 0:
                return x + by
            return x

        def forward(self, x, given):
            steps = torch.linspace(1.0, 0.0, 5)
            for i in range(4):
                times = steps[i]
                x = self.p_sample(x, times, time_next=steps[i + 1])
            x = self.step(x, x.abs().max() * 2)
            x = self.step(x, 0.5)
            x = self.shift(x, given)
            return x


    torch.compile(Sampler())
""")
LINES = SOURCE.splitlines()


def flagged() -> list[str]:
    return [LINES[f.start.line - 1].strip() for f in lint_source(SOURCE, "sampler.py", Config(select=("DYN102",)))]


def test_a_parameter_every_caller_passes_a_tensor_is_a_tensor() -> None:
    assert "if time_next == 0:" in flagged()  # a keyword argument, an index of a ``torch.linspace`` result


def test_a_parameter_one_caller_passes_a_python_number_is_not_known_to_be_a_tensor() -> None:
    assert "if scale > 1:" not in flagged()  # ``x.abs().max() * 2`` once, ``0.5`` once


def test_a_callers_own_parameter_says_nothing() -> None:
    assert "if by > 0:" not in flagged()  # ``given``: the entry point's input, of no known kind
