"""DYN207 on a copy of a value whose name says it is a network (``model``, ``strategy.model``, ``target_net``).

avalanche's plugins run ``self.prev_model = copy.deepcopy(strategy.model)`` in the training step; nothing in the
plugin says what ``strategy.model`` is, but a value held under such a name is a network almost always, and copying
one breaks (GB4198: the copy reaches its parameters). Measured on torch 2.13 by the torch test; a value whose name
only starts so (``model_name``) is left alone, and copies of it trace.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import copy

    import torch


    class Strategy:
        def __init__(self, model):
            self.model = model


    class Plugin:
        def after(self, strategy, x):
            self.prev_model = copy.deepcopy(strategy.model)
            return x + 1

        def snapshot(self, model, x):
            prev = copy.deepcopy(model)
            return x + 2

        def names(self, model_name, x):
            other = copy.deepcopy(model_name)
            return x + 3


    strategy = Strategy(torch.nn.Linear(2, 2))
    plugin = Plugin()
    torch.compile(plugin.after, backend="eager")(strategy, torch.randn(2))
    torch.compile(plugin.snapshot, backend="eager")(torch.nn.Linear(2, 2), torch.randn(2))
    torch.compile(plugin.names, backend="eager")("lin", torch.randn(2))
""")


def findings() -> list:
    return [f for f in lint_source(PROGRAM, "plugin.py", Config()) if f.code == "DYN207"]


def test_copies_of_values_named_as_networks_are_likely_module_copies() -> None:
    assert {f.start.line for f in findings()} == {13, 17}
    assert all("of an nn.Module" in f.message and f.confidence.value == "likely" for f in findings())


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == {f.start.line for f in findings()}
