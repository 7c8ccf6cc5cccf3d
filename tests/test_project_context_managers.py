"""DYN211 on the project's own context managers, measured on torch 2.13: entering an instance built
before the trace (an attribute set in ``__init__``, a module-level object) breaks ("Dynamo does not know
how to enter a ``Plain`` context manager"); one the compiled code builds, or a ``contextlib`` generator,
is traced."""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import contextlib

    import torch
    from torch import nn


    class Plain:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None


    SHARED = Plain()


    @contextlib.contextmanager
    def scope():
        yield


    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ctx = Plain()

        def forward(self, x):
            with self.ctx:
                x = x + 1
            with SHARED:
                x = x + 2
            with Plain():
                x = x + 3
            local = Plain()
            with local:
                x = x + 4
            with scope():
                x = x + 5
            return x


    model = torch.compile(Block())
""")
LINES = SOURCE.splitlines()


def test_an_instance_built_before_the_trace_is_reported_and_one_built_inside_is_not() -> None:
    found = [LINES[f.start.line - 1].strip() for f in lint_source(SOURCE, "block.py", Config(select=("DYN211",)))]
    assert found == ["with self.ctx:", "with SHARED:"]
