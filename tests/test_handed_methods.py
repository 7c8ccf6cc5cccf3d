"""A method handed on as ``self.<method>`` runs where the callee calls it.

pytorch_pfn_extras' trainer calls ``self.handler.train_step(self, idx, x, complete_fn=self._complete_step)`` and
the handler calls ``complete_fn(batch_idx, outs)``. The argument is recorded under the caller's class
(``Trainer._complete_step``), since the callee that calls it has another ``self``. Measured on torch 2.13: Dynamo
traces the handed method there, so a ``print`` in it breaks at its own line (GB0059).
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch


    class Handler:
        def train_step(self, trainer, idx, x, complete_fn):
            outs = x * 2
            complete_fn(idx, outs)
            return outs


    class Trainer:
        def __init__(self, handler: Handler):
            self.handler = handler

        def _complete_step(self, idx, outs):
            print("completed", idx)

        def _unused(self, idx, outs):
            print("never handed on")

        def run(self, x):
            return self.handler.train_step(self, 0, x, complete_fn=self._complete_step)


    trainer = Trainer(Handler())
    torch.compile(trainer.run, backend="eager")(torch.randn(2))
""")


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "trainer.py", Config())}


def test_a_method_handed_on_is_compiled_where_the_callee_calls_it() -> None:
    lines = PROGRAM.splitlines()
    assert [lines[n - 1].strip() for n in sorted(flagged())] == ['print("completed", idx)']


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()
