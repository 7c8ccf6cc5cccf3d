"""DYN501 ``autograd-call``: which calls run autograd eagerly in compiled code.

Measured on torch 2.13 (the page's Examples are compiled again by the verify tests and the release matrix):
``torch.autograd.functional``'s ``jacobian``, ``hessian``, ``vjp`` and ``jvp`` break (GB0055), called or through
``functools.partial`` (torchdyn's ``map(partial(jacobian, lagrangian), batch)``); ``torch.func.jacrev`` and
``torch.func.grad`` trace.
"""

from __future__ import annotations

import textwrap

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
