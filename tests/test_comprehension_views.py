"""DYN111 over a dict's view, measured on torch 2.13 (each function compiled alone): a list or dict
comprehension over ``d.items()``, ``d.values()`` or ``d.keys()`` whose body breaks breaks again on its
opening line (GB0092, and GB4347 for ``keys()``), multi-line too; a generator expression does not, and
neither does a body that does not break."""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import torch


    @torch.compile
    def multi_line(d: dict[str, torch.Tensor]):
        return {
            k: v[v > 0]
            for k, v in d.items()
        }


    @torch.compile
    def one_line(d: dict[str, torch.Tensor]):
        return [v[v > 0] for v in d.values()]


    @torch.compile
    def clean_body(d: dict[str, torch.Tensor]):
        return [d[k] * 2 for k in d.keys()]


    @torch.compile
    def generator(d: dict[str, torch.Tensor]):
        return sum(v[v > 0].sum() for v in d.values())
""")


def test_a_comprehension_over_a_dict_view_whose_body_breaks_breaks_again_on_its_opening_line() -> None:
    found = [(f.start.line, f.code) for f in lint_source(SOURCE, "views.py", Config(select=("DYN105", "DYN111")))]
    assert sorted(found) == [(6, "DYN111"), (7, "DYN105"), (14, "DYN105"), (14, "DYN111"), (24, "DYN105")]


MODULE_ITERATION = textwrap.dedent("""\
    import torch
    from torch import nn


    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
            self.scales = [1, 2]

        def forward(self, x):
            a = [print("scale") or x * s for s in self.scales]
            b = [print("layer") or layer(x) for layer in self.layers]
            return a, b


    class Named(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(2))

        def forward(self, x):
            names = {name for name, p in self.named_parameters() if print(name) is None}
            print("after")
            return x


    torch.compile(Stack(), backend="eager")(torch.ones(2))
    torch.compile(Named(), backend="eager")(torch.ones(2))
""")


def test_a_comprehension_over_a_module_list_or_a_module_generator_whose_body_breaks_breaks_again() -> None:
    """Over an ``nn.ModuleList``: GB4347 and GB0092 on the comprehension; over ``self.named_parameters()``, a set
    comprehension too: GB8335, and the function is given up (the ``print`` after it never breaks). Over a list,
    only the body breaks. The torch test measures the same program."""
    lines = MODULE_ITERATION.splitlines()
    found = lint_source(MODULE_ITERATION, "stack.py", Config(select=("DYN111", "DYN201")))
    assert [(f.code, lines[f.start.line - 1].strip().split(" = ")[0]) for f in found] == [
        ("DYN201", "a"), ("DYN111", "b"), ("DYN201", "b"), ("DYN111", "names"), ("DYN201", "names"),
    ]
    assert next(f for f in found if f.code == "DYN111" and f.start.line == 23).gb_ids == ("GB8335",)


@pytest.mark.torch
def test_dynamo_breaks_again_at_comprehensions_over_module_lists_and_generators() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(MODULE_ITERATION, "stack.py", Config(select=("DYN111", "DYN201")))
    assert dynamo_break_lines(MODULE_ITERATION) == {f.start.line for f in found}
