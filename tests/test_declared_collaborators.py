"""Reach and DYN501: a framework's ``backward`` handed down through collaborators it declares.

lightning's ``Fabric.backward`` calls ``self._strategy.backward(...)``, with ``self._strategy: Strategy = ...`` an
annotated attribute; the strategy calls its precision plugin's ``backward``, which calls ``tensor.backward()``. And
lightning's precision plugin calls ``model.backward(tensor)`` with ``model: "pl.LightningModule"``, a string
annotation. Measured on torch 2.13 by the torch test: Dynamo reports the break once, on the innermost
``tensor.backward()`` (GB0123), never on the ``x.backward(...)`` calls of objects whose class defines ``backward``.
So an annotated ``self.<attr>: Class = ...`` is followed through that class (``summarize.visit_AnnAssign``), a method
called on a parameter annotated with one class as a string or inside ``Optional`` is that class's
(``Program._annotated_method``), and DYN501 leaves a ``.backward(...)`` call that resolves to a method of the tree to
the method itself.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
from typing import Optional

import torch


class Precision:
    def backward(self, tensor, module):
        tensor.backward()


class Strategy:
    def __init__(self):
        self.precision = Precision()

    def backward(self, tensor, module):
        self.precision.backward(tensor, module)


class Connector:
    def __init__(self):
        self.strategy = Strategy()


class Fabric:
    def __init__(self, connector):
        self._connector = connector
        self._strategy: Strategy = self._connector.strategy

    def backward(self, tensor, module=None):
        self._strategy.backward(tensor, module)


class Module(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self._fabric: Optional[Fabric] = None

    def backward(self, loss):
        self._fabric.backward(loss, self)


class Plugin:
    def run_backward(self, loss, model: "Module"):
        model.backward(loss)


def step(module, plugin, x):
    loss = module.lin(x).sum()
    plugin.run_backward(loss, module)
    return loss


m = Module()
m._fabric = Fabric(Connector())
torch.compile(step, backend="eager")(m, Plugin(), torch.rand(3, 2))
"""


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "module.py", Config()) if f.code == "DYN501"}


def test_the_innermost_tensor_backward_is_flagged_and_no_collaborators_backward() -> None:
    assert flagged() == {8}


def test_an_unannotated_attribute_is_followed_only_to_the_class_its_name_names() -> None:
    """Unannotated, ``self._strategy = self._connector.strategy`` resolves to no class; its name names ``Strategy``
    (``named_classes.py``), whose ``backward`` is then followed as the annotation would have it (and Dynamo breaks on
    the innermost ``tensor.backward()`` either way). Under a name that names no class (``self._impl``) nothing is
    known: the call on it may be a tensor's ``backward`` and is flagged where it is made."""
    unannotated = PROGRAM.replace("self._strategy: Strategy = ", "self._strategy = ")
    assert flagged(unannotated) == {8}
    assert flagged(unannotated.replace("self._strategy", "self._impl")) == {30}


def test_a_parameter_annotated_as_a_string_is_followed() -> None:
    assert flagged(PROGRAM.replace('model: "Module"', "model: Module")) == {8}
    # with no annotation the parameter's ``backward`` may be a tensor's: flagged where it is called
    assert flagged(PROGRAM.replace('model: "Module"', "model")) == {45}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
