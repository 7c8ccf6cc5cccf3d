"""DYN502's method form: ``t.requires_grad_()`` in compiled code (static; the measurements are in the rule).

Measured on torch 2.13 (CPU, ``tests/harness/run_snippets.py``): ``x.requires_grad_()`` /
``x.requires_grad_(True)`` on an input breaks (GB0125); ``x.clone().requires_grad_()``,
``x.detach().requires_grad_(True)`` and ``loss.requires_grad_()`` break with grad enabled (GB8985);
``(x * 2).requires_grad_(False)`` and ``x.detach().requires_grad_(x.requires_grad)`` on an input that does
not require grad do not break. A module's ``requires_grad_()`` is the module's method.
"""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.model.finding import Confidence
from dynalint.project.config import Config

ONLY = Config(select=("DYN502",))

SOURCE = """
import torch

lin = torch.nn.Linear(3, 3)


@torch.compile
def f(x):
    x.requires_grad_()
    a = x.requires_grad_(True)
    b = x.clone().requires_grad_()
    c = x.detach().requires_grad_(True)
    loss = (x * 2).sum()
    loss.requires_grad_()
    d = (x * 2).requires_grad_(False)
    e = x.detach().requires_grad_(x.requires_grad)
    lin.requires_grad_()
    return a + b + c + d + e + lin(x) + loss
"""


def test_requires_grad_on_calls_that_turn_grad_on_are_reported_likely_and_the_others_not() -> None:
    findings = lint_source(textwrap.dedent(SOURCE), "case.py", ONLY)
    text = textwrap.dedent(SOURCE).splitlines()
    flagged = {text[f.start.line - 1].strip() for f in findings}
    assert flagged == {
        "x.requires_grad_()", "a = x.requires_grad_(True)", "b = x.clone().requires_grad_()",
        "c = x.detach().requires_grad_(True)", "loss.requires_grad_()",
    }
    assert {f.confidence for f in findings} == {Confidence.LIKELY}
    assert all(f.message.startswith("Calling `") for f in findings)


def test_requires_grad_in_an_autograd_functions_backward_is_not_reported() -> None:
    """Measured on torch 2.13: Dynamo traces ``backward`` with the ``apply`` call, and
    ``g.detach().requires_grad_()`` there did not break, returned or not, under ``enable_grad`` too. The
    same call in ``forward`` is reported."""
    source = textwrap.dedent("""
    import torch


    class Rerouted(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            y = x.detach().requires_grad_()
            return y * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            with torch.enable_grad():
                a = x.detach().requires_grad_()
            return g.detach().requires_grad_() * a


    @torch.compile
    def f(x):
        return Rerouted.apply(x)
    """)
    found = lint_source(source, "case.py", ONLY)
    assert [(f.code, source.splitlines()[f.start.line - 1].strip()) for f in found] == [
        ("DYN502", "y = x.detach().requires_grad_()")]
