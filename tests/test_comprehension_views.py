"""DYN111 over a dict's view, measured on torch 2.13 (each function compiled alone): a list or dict
comprehension over ``d.items()``, ``d.values()`` or ``d.keys()`` whose body breaks breaks again on its
opening line (GB0092, and GB4347 for ``keys()``), multi-line too; a generator expression does not, and
neither does a body that does not break."""

from __future__ import annotations

import textwrap

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
