"""DYN505 where ``__init__`` builds the attribute as a recurrent layer on one of its paths only.

Measured on torch 2.13: Dynamo refuses to wrap an ``nn.LSTM`` / ``nn.GRU`` (GB0014) at the first read of the
attribute in compiled code, whichever path of ``__init__`` built it, also when a local was built first and
then stored (``lstm = nn.GRU(...)``, ``self.rnn = lstm``). Such an attribute is reported at ``likely``: the
other path builds another module, which Dynamo traces. Built as a recurrent layer on every path, it is certain.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.model.finding import Confidence
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch
    from torch import nn


    class Tagger(nn.Module):
        def __init__(self, packed):
            super().__init__()
            if packed:
                self.lstm = nn.LSTM(4, 4, batch_first=True)
            else:
                self.lstm = nn.Linear(4, 4)

        def forward(self, x):
            y = x * 2
            out = self.lstm(y)
            return out


    class Encoder(nn.Module):
        def __init__(self, kind):
            super().__init__()
            if kind == "gru":
                cell = nn.GRU(4, 4, batch_first=True)
            else:
                cell = nn.LSTM(4, 4, batch_first=True)
            self.rnn = cell

        def forward(self, x):
            y = x + 1
            return self.rnn(y)[0]


    class Plain(nn.Module):
        def __init__(self, wide):
            super().__init__()
            if wide:
                self.proj = nn.Linear(4, 8)
            else:
                self.proj = nn.Linear(4, 4)

        def forward(self, x):
            return self.proj(x)


    torch.compile(Tagger(True), backend="eager")(torch.randn(2, 3, 4))
    torch.compile(Encoder("gru"), backend="eager")(torch.randn(2, 3, 4))
    torch.compile(Plain(True), backend="eager")(torch.randn(2, 4))
""")


def findings() -> dict[int, Confidence]:
    return {f.start.line: f.confidence for f in lint_source(PROGRAM, "paths.py", Config()) if f.code == "DYN505"}


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if text in line)


def test_a_recurrent_layer_built_on_one_path_is_likely() -> None:
    assert findings().get(line_of("out = self.lstm(y)")) is Confidence.LIKELY


def test_a_recurrent_layer_built_on_every_path_is_certain() -> None:
    assert findings().get(line_of("return self.rnn(y)[0]")) is Confidence.CERTAIN


def test_other_layers_built_on_two_paths_are_left_alone() -> None:
    assert line_of("return self.proj(x)") not in findings()


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(findings())
