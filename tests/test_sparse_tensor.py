"""DYN506 ``sparse-tensor`` beyond its page's examples: a conversion only on the branch a sparse-layout test
takes (norse's cells) is no break of its own; a local bound to a sparse tensor breaks again at its first use,
in the frame that resumes, which then runs eagerly (measured on torch 2.13)."""

from __future__ import annotations

import textwrap

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

BRANCHES = textwrap.dedent("""\
    import torch


    @torch.compile(backend="eager")
    def initial_state(x: torch.Tensor):
        z = torch.zeros(2, 2).to_sparse() if x.is_sparse else torch.zeros(2, 2)
        if not x.is_sparse:
            v = torch.ones(2)
        else:
            v = torch.ones(2).to_sparse()
        w = x.to_sparse()
        kept = dict(w=1).get("w")
        n = w.shape[0]
        print("after")
        return z, v, n


    initial_state(torch.ones(2, 2))
""")


def test_a_conversion_only_on_a_sparse_branch_is_not_flagged_and_a_sparse_local_breaks_at_its_first_use() -> None:
    lines = BRANCHES.splitlines()
    findings = lint_source(BRANCHES, "cells.py", Config(select=("DYN5", "DYN201")))
    found = [lines[f.start.line - 1].strip() for f in findings]
    assert found == ["w = x.to_sparse()", "n = w.shape[0]"]  # the print after runs eagerly


@pytest.mark.torch
def test_dynamo_breaks_only_at_the_conversion_a_dense_input_reaches() -> None:
    from conftest import dynamo_break_lines

    found = {f.start.line for f in lint_source(BRANCHES, "cells.py", Config(select=("DYN5", "DYN201")))}
    assert found == dynamo_break_lines(BRANCHES) == {11, 13}
