"""DYN106 on a ``sorted()`` with no key whose elements hold tensors or modules.

Measured on torch 2.13 (the torch test runs the program under Dynamo): Dynamo sorts only Python constants,
so sorting the items of a dict of tensors breaks with GB0207 even when the string keys alone decide the
order (botorch's ``BufferDict.update``), and so do ``sorted(self.named_parameters())``,
``sorted(self.named_children())``, ``sorted(zip(names, tensors))`` and a list of tensors. Sorting the keys
(``sorted(buffers)``) or a dict of Python numbers traces.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch


def buffered(x: torch.Tensor):
    buffers = {"b": x * 2, "a": x + 1}
    buffers["c"] = x - 1
    out = x
    for key, value in sorted(buffers.items()):
        out = out + value
    return out


def stacked(x: torch.Tensor, parts: list[torch.Tensor]):
    return sorted(zip(["b", "a"], parts))[0][1] + x


def ranked(x: torch.Tensor, parts: list[torch.Tensor]):
    return sorted(parts)[0] + x


def plain(x: torch.Tensor):
    sizes = {"b": 2, "a": 1}
    buffers = {"b": x * 2, "a": x + 1}
    return x * sorted(sizes.items())[0][1] + sum(buffers[k] for k in sorted(buffers))


class Chain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.b = torch.nn.Linear(3, 3)
        self.a = torch.nn.Linear(3, 3)

    def forward(self, x):
        for name, child in sorted(self.named_children()):
            x = child(x)
        return x


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        for name, weight in sorted(self.named_parameters()):
            x = x * weight
        return x


x = torch.randn(3)
parts = [torch.randn(3), torch.randn(3)]
torch.compile(buffered, backend="eager")(x)
torch.compile(stacked, backend="eager")(x, [p.sum() for p in parts])
torch.compile(ranked, backend="eager")(x, [p.sum() for p in parts])
torch.compile(plain, backend="eager")(x)
torch.compile(Chain(), backend="eager")(x)
torch.compile(Scaled(), backend="eager")(x)
"""
LINES = PROGRAM.splitlines()


def flagged() -> dict[int, str]:
    found = lint_source(PROGRAM, "ordered.py", Config(select=("DYN106",)))
    assert all(f.message.startswith("`sorted()` of tensors or modules with no key") for f in found)
    return {f.start.line: LINES[f.start.line - 1].strip() for f in found}


def test_the_items_of_a_dict_of_tensors_written_in_the_function() -> None:
    assert flagged()[8] == "for key, value in sorted(buffers.items()):"


def test_a_modules_parameters_and_children() -> None:
    found = flagged()
    assert found[34] == "for name, child in sorted(self.named_children()):"
    assert found[45] == "for name, weight in sorted(self.named_parameters()):"


def test_tensors_and_pairs_holding_them() -> None:
    found = flagged()
    assert found[14].startswith("return sorted(zip(")
    assert found[18] == "return sorted(parts)[0] + x"


def test_keys_and_python_numbers_are_not_flagged() -> None:
    assert not [line for line in flagged().values() if "sizes" in line or "sorted(buffers)" in line]


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == set(flagged()) == {8, 14, 18, 34, 45}
