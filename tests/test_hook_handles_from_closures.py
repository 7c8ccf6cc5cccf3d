"""DYN511 follows hook handles that a nested function puts into its caller's list.

torchsummary and pytorch-model-summary register a forward hook on every module with ``model.apply(register_hook)``,
where ``register_hook`` appends each handle to the summary function's ``hooks`` list (bound after the nested
``def``), then remove them with ``for h in hooks: h.remove()``. Measured on torch 2.13 with the summary compiled:
the registration appended to the enclosing list breaks (GB0013, the handle leaves the nested frame), and so does
each removal.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from torch import nn


    def record(module, inputs, output):
        return None


    def summary(model, x):
        def register_hook(module):
            hooks.append(module.register_forward_hook(record))

        hooks = []
        model.apply(register_hook)
        y = model(x)
        for h in hooks:
            h.remove()
        return y


    torch.compile(summary, backend="eager")(nn.Sequential(nn.Linear(2, 2)), torch.ones(2))
""")


def flagged() -> dict[int, str]:
    return {f.start.line: f.code for f in lint_source(PROGRAM, "summary.py", Config())}


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if text in line)


def test_a_handle_a_closure_appended_to_the_callers_list_is_followed() -> None:
    assert flagged() == {line_of("hooks.append(module.register_forward_hook(record))"): "DYN511",
                         line_of("h.remove()"): "DYN511"}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged())
