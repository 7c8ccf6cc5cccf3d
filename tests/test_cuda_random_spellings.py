"""DYN205 on the CUDA seeding functions spelled through ``torch.cuda.random``, the module that defines them.

torchattacks seeds with ``torch.cuda.random.manual_seed(self.seed)``: the same function as ``torch.cuda.manual_seed``,
which Dynamo skips (GB0007, measured on torch 2.13 on the CPU by the torch test). ``torch.cuda.seed()`` traces on a
machine without CUDA and is not flagged.
"""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = textwrap.dedent("""\
    import torch


    def reseed(x, seed):
        torch.cuda.random.manual_seed(seed)
        torch.cuda.random.manual_seed_all(seed)
        torch.cuda.seed()
        return x + 1


    torch.compile(reseed, backend="eager")(torch.randn(2), 0)
""")


def flagged() -> set[int]:
    return {f.start.line for f in lint_source(PROGRAM, "reseed.py", Config()) if f.code == "DYN205"}


def test_both_spellings_of_cuda_seeding_are_flagged() -> None:
    assert flagged() == {5, 6}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    # the first break gives nothing up: each seeding call breaks on its own line
    assert dynamo_break_lines(PROGRAM) == flagged()
