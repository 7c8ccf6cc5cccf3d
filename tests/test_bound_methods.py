"""Functions bound to an object as its methods (``fn.__get__(obj)``, ``types.MethodType(fn, obj)``) run where it is called.

ptflops gives the model it counts methods this way (``model.start_flops_count =
start_flops_count.__get__(model)``) and calls them from the compiled code. Measured on torch 2.13: Dynamo
traces the bound function, so a ``print`` in it breaks at its own line (GB0059). The call graph takes
``obj.name()`` to run each function the tree binds under ``name`` (on a value of unknown class, or of a
class that does not define the method), and ``self.name = fn.__get__(self)`` gives ``self.name`` that function.
Not followed: a function bound on an instance under the name of a method its class defines (the instance's
attribute wins at run time; the call graph takes the class's method).
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import types

    import torch
    from torch import nn


    def start_count(self):
        print("start")
        self.counting = True


    def stop_count(self):
        print("stop")
        self.counting = False


    def reset_count(self):
        print("reset")


    def add_counting(model):
        model.start_count = start_count.__get__(model)
        model.stop_count = types.MethodType(stop_count, model)
        return model


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Linear(2, 2)
            self.reset = reset_count.__get__(self)

        def forward(self, x):
            self.reset()
            return self.inner(x)


    class Plain:
        pass


    net = add_counting(Net())
    plain = Plain()
    plain.start_count = start_count.__get__(plain)


    def counted(model, x):
        model.start_count()
        y = model(x)
        return y


    def on_plain(x):
        plain.start_count()
        net.stop_count()
        return x + 1


    torch.compile(counted, backend="eager")(net, torch.randn(2, 2))
    torch.compile(on_plain, backend="eager")(torch.randn(2, 2))
""")


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "counting.py", Config())}


def test_functions_bound_as_methods_are_compiled_where_called() -> None:
    lines = PROGRAM.splitlines()
    assert sorted(lines[n - 1].strip() for n in flagged()) == ['print("reset")', 'print("start")', 'print("stop")']


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
