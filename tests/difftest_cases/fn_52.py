import logging

import torch
import torch.nn as nn

logger = logging.getLogger("difftest")


def is_tracing():
    return torch.jit.is_scripting() or torch.compiler.is_compiling()


def positive(t):
    return t.sum() > 0


def shape_of(t):
    return t.shape[0] + 1


class Spans:
    def __init__(self, t):
        self.longest = t.max()
        self.count = 3


class Gate(nn.Module):
    def forward(self, h):
        return h.argmax(-1), h.softmax(-1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.gate = Gate()
        self.spans = Spans(torch.tensor([2, 3]))
        self.scale = 2
        self.under_trace = False

    def forward(self, x, idx, mask, n, flag):
        y = x.clone()
        for _ in range(2):
            assert (self.proj(x).mean() < 0) or True
        return y


model = Model().eval()
compiled = torch.compile(model, backend="eager")
with torch.no_grad():
    for flag in (False, True):  # both sides of every test on the flag: a static linter cannot know which runs
        compiled(torch.randn(4, 8), torch.tensor([0, 1, 2, 3]), torch.tensor([True, False, True, True]), 3, flag)
