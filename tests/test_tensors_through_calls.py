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


LOOPS = textwrap.dedent("""\
    import torch
    from torch import nn


    class Solver(nn.Module):
        def interp(self, t0, t1, t):
            if t == t0:
                return t1
            return t

        def scale(self, x, k):
            if k > 2:
                return x * k
            return x

        def forward(self, x):
            grid = torch.linspace(0.0, 1.0, 5)
            for t0, t1 in zip(grid[:-1], grid[1:]):
                x = x + self.interp(t0, t1, grid[2])
            for k in range(3):
                x = self.scale(x, k)
            return x


    torch.compile(Solver())
""")


def test_loop_targets_take_the_kind_of_what_they_step_through() -> None:
    """``zip`` over slices of a tensor gives tensors to ``interp``; ``range`` gives Python ints to ``scale``,
    whose branch Dynamo decides while tracing (``if k > 2`` on a Python int breaks nothing)."""
    lines = LOOPS.splitlines()
    flagged = [lines[f.start.line - 1].strip() for f in lint_source(LOOPS, "solver.py", Config(select=("DYN102",)))]
    assert flagged == ["if t == t0:"]


def test_a_comparison_passed_on_is_no_tensor_and_one_with_a_string_no_mask() -> None:
    """opacus's ``forward_layer(..., reverse_layer=(direction == 1))`` with ``direction`` from a loop over a
    helper's result, torchmin's ``numpy = (method == 'trust-constr')``: Python bools under Dynamo (measured:
    no break at ``if reverse_layer:``). A comparison of something not known to be Python is taken for a
    mask by DYN105's reading, never for a tensor a branch would break on."""
    source = textwrap.dedent("""\
        import torch


        def forward_layer(x, reverse_layer, numpy=False):
            if reverse_layer:
                x = x.flip(0)
            if numpy:
                return x
            return x * 2


        @torch.compile
        def run(x, layers, method: str):
            for direction, cell in layers.items():
                x = forward_layer(x, reverse_layer=(direction == 1), numpy=(method == "trust-constr"))
            return x
    """)
    assert lint_source(source, "rnn.py", Config(select=("DYN102",))) == []


def test_a_comparison_with_a_known_tensor_passed_on_is_a_tensor() -> None:
    """torchmin's ``bound_hit``-style flags: ``hit = norm >= radius`` with ``norm`` a tensor is a boolean tensor,
    and a branch on the parameter it fills breaks (GB0170)."""
    source = textwrap.dedent("""\
        import torch


        def update(x, hit):
            if hit:
                return x * 2
            return x


        @torch.compile
        def step(x, radius: float):
            norm = torch.linalg.norm(x)
            return update(x, norm >= radius)
    """)
    assert [f.start.line for f in lint_source(source, "trust.py", Config(select=("DYN102",)))] == [5]
