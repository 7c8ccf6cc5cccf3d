"""Backward hooks are compiled code when compiled code runs backward.

Measured on torch 2.13: ``loss.backward()`` in a compiled function breaks there and runs autograd eagerly, but
while Dynamo's callback is still active, so each Python hook autograd runs (a module's
``register_full_backward_hook``, a tensor's ``register_hook``) is compiled as a frame of its own: a ``print`` in
it breaks at its line (GB0059). Where no compiled code runs backward, the hooks run eagerly and do not break.
Which backward reaches which hook is not known statically: the hooks are ``likely`` regions.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.model.finding import Confidence
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from torch import nn


    def module_hook(module, grad_in, grad_out):
        print("module backward hook")


    def tensor_hook(grad):
        print("tensor hook")
        return grad * 2


    model = nn.Linear(2, 2)
    model.register_full_backward_hook(module_hook)


    def backward_of(loss):
        loss.backward()
        return loss.detach()


    def scaled_step(x):
        y = x * 2
        y.register_hook(tensor_hook)
        loss = y.sum()
        loss.backward()
        return loss


    torch.compile(backward_of, backend="eager")(model(torch.ones(2, 2)).sum())
    torch.compile(scaled_step, backend="eager")(torch.ones(2, 2, requires_grad=True))
""")

FORWARD_ONLY = textwrap.dedent("""\
    import torch
    from torch import nn


    def module_hook(module, grad_in, grad_out):
        print("module backward hook")


    model = nn.Linear(2, 2)
    model.register_full_backward_hook(module_hook)


    def predict(x):
        return x.relu()


    torch.compile(predict)(torch.ones(2))
""")


def line_of(text: str, program: str = PROGRAM) -> int:
    return next(n for n, line in enumerate(program.splitlines(), 1) if text in line)


def test_hooks_run_by_a_compiled_backward_are_compiled() -> None:
    found = {f.start.line: f for f in lint_source(PROGRAM, "hooks.py", Config())}
    for text in ('print("module backward hook")', 'print("tensor hook")'):
        finding = found.get(line_of(text))
        assert finding is not None and finding.code == "DYN201", text
        assert finding.confidence is Confidence.LIKELY
        assert "backward hook" in finding.region.chain[0].how


def test_hooks_are_left_alone_when_no_compiled_code_runs_backward() -> None:
    found = {f.start.line for f in lint_source(FORWARD_ONLY, "forward_only.py", Config())}
    assert line_of('print("module backward hook")', FORWARD_ONLY) not in found


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {f.start.line for f in lint_source(PROGRAM, "hooks.py", Config())}
