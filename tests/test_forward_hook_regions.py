"""Forward hooks are compiled code: a function registered on an ``nn.Module`` with ``register_forward_hook`` or
``register_forward_pre_hook`` (or torch's global ``register_module_forward_hook``) runs in the module's call, so
Dynamo traces it wherever the module is called in compiled code (zennit's rules, captum's layer hooks, torchinfo's
summaries). Measured on torch 2.13 (and again by the torch test here): a ``print`` in each such hook breaks, in a
plain function, a bound method and a ``functools.partial``; a full backward hook and a tensor's hook run in autograd
and do not.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import functools

    import torch


    def before(module, inputs):
        print("before")


    def after(module, inputs, output):
        print("after")


    def backward(module, grad_in, grad_out):
        print("backward")


    def on_grad(grad):
        print("grad")


    def everywhere(module, inputs, output):
        print("everywhere")


    def tagged(tag, module, inputs, output):
        print(tag)


    class Recorder:
        def record(self, module, inputs, output):
            print("record")

        def attach(self, model):
            model.register_forward_hook(self.record)


    def unregistered(module, inputs, output):
        print("never run")


    layer = torch.nn.Linear(2, 2)
    layer.register_forward_pre_hook(before)
    layer.register_forward_hook(after)
    layer.register_forward_hook(functools.partial(tagged, "tag"))
    layer.register_full_backward_hook(backward)
    Recorder().attach(layer)
    everywhere_handle = torch.nn.modules.module.register_module_forward_hook(everywhere)


    def run(x):
        y = layer(x)
        y.register_hook(on_grad)
        return y.sum()


    out = torch.compile(run, backend="eager")(torch.randn(2, requires_grad=True))
    out.backward()
    everywhere_handle.remove()  # a global hook would run in every program the harness runs after this one
""")


def findings():
    return [f for f in lint_source(PROGRAM, "hooks.py", Config()) if f.code == "DYN201"]


def test_forward_hooks_are_compiled_code_and_backward_hooks_are_not() -> None:
    found = findings()
    assert sorted(f.start.line for f in found) == [7, 11, 23, 27, 32]
    after = next(f for f in found if f.start.line == 11)
    assert after.region is not None and after.region.chain[0].line == 44
    assert after.region.chain[0].how.startswith("registered as an nn.Module's forward hook (`after`)")


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {f.start.line for f in findings()}
