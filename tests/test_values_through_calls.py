"""Values that reach a function through calls: a submodule's ``forward``, a helper that returns a tensor
expression, an object that keeps tensors in its attributes. Each case was judged by Dynamo in the
differential tester (``bench/difftest``); here the static side is pinned.
"""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import torch
    from torch import nn


    def above_zero(t):
        return t.mean() > 0


    class Router(nn.Module):
        def forward(self, h):
            return h.argmax(-1), h.softmax(-1)


    class Lengths:
        def __init__(self, lengths):
            self.lengths = lengths
            self.widest = lengths.amax()


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.router = Router()
            self.sizes = Lengths(torch.tensor([2, 3]))

        def forward(self, x):
            picked, weights = self.router(x)
            chosen = picked.ne(0)
            kept = x[chosen]
            if above_zero(weights):
                x = x + 1
            for step in range(int(self.sizes.widest)):
                x = x * step
            return kept, x


    torch.compile(Net())
""")
LINES = SOURCE.splitlines()


def findings(code: str) -> list[tuple[int, str]]:
    return [(f.start.line, LINES[f.start.line - 1].strip()) for f in lint_source(SOURCE, "net.py", Config(select=(code,)))]


def test_a_submodule_call_returns_its_forwards_tuple() -> None:
    assert findings("DYN105") == [(29, "kept = x[chosen]")]


def test_a_helper_that_returns_a_comparison_of_tensors_returns_a_tensor() -> None:
    assert findings("DYN102") == [(30, "if above_zero(weights):")]


def test_a_plain_object_keeps_the_tensor_its_constructor_computed() -> None:
    assert findings("DYN104") == [(32, "for step in range(int(self.sizes.widest)):")]
