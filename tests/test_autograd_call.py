"""DYN501 ``autograd-call``: which calls run autograd eagerly in compiled code.

Measured on torch 2.13 (the page's Examples are compiled again by the verify tests and the release matrix):
``torch.autograd.functional``'s ``jacobian``, ``hessian``, ``vjp`` and ``jvp`` break (GB0055), called or through
``functools.partial`` (torchdyn's ``map(partial(jacobian, lagrangian), batch)``); ``torch.func.jacrev`` and
``torch.func.grad`` trace.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config


def test_autograd_functional_derivatives_break_and_torch_func_transforms_do_not() -> None:
    source = textwrap.dedent("""\
        import functools

        import torch
        from torch.autograd import functional
        from torch.autograd.functional import hessian, jacobian


        def energy(q):
            return (q ** 2).sum()


        @torch.compile
        def derivatives(q):
            j = jacobian(energy, q)
            h = hessian(energy, q)
            _, v = functional.vjp(energy, q)
            batched = tuple(map(functools.partial(jacobian, energy, create_graph=True), (q, q)))
            traced = torch.func.jacrev(energy)(q) + torch.func.grad(energy)(q)
            named = functools.partial(energy, q)
            return j, h, v, batched, traced, named
    """)
    found = lint_source(source, "forces.py", Config(select=("DYN501",)))
    assert [(f.start.line, f.message.split("`")[1]) for f in found] == [
        (14, "torch.autograd.functional.jacobian()"), (15, "torch.autograd.functional.hessian()"),
        (16, "torch.autograd.functional.vjp()"), (17, "torch.autograd.functional.jacobian()")]
    assert {f.gb_ids for f in found} == {("GB0055",)}


PROGRAM_HOOK = textwrap.dedent("""\
    import weakref

    import torch


    class Hook:
        def backward(self, module, grad_input, grad_output):
            return grad_output * 2


    class Net(torch.nn.Module):
        def __init__(self, hook):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)
            self.ref = weakref.ref(hook)

        def forward(self, x):
            y = self.lin(x)
            hook = self.ref()
            out = hook.backward(self.lin, x, y)
            loss = out.sum()
            loss.backward()
            return loss


    HOOK = Hook()
    torch.compile(Net(HOOK), backend="eager")(torch.randn(2, 3))
""")


def hook_program_findings() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM_HOOK, "hooked.py", Config(select=("DYN501",)))}


def test_a_backward_method_given_three_arguments_on_an_unknown_receiver_is_not_tensor_backward() -> None:
    assert hook_program_findings() == {22: "DYN501"}


@pytest.mark.torch
def test_dynamo_breaks_at_loss_backward_and_not_at_the_hook() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM_HOOK) == set(hook_program_findings())
