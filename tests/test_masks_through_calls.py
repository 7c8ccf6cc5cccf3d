"""A boolean mask is known by how it was made, through calls too: a parameter every caller in compiled
code passes a mask is a mask, and so is what a helper returns as one on every ``return``. A name says
nothing, except for an entry point's inputs, which nothing in the tree made (there the name is the only
evidence, reported at ``likely``).
"""

from __future__ import annotations

import textwrap

from dynalint.api import lint_source
from dynalint.project.config import Config

SOURCE = textwrap.dedent("""\
    import torch
    from torch import nn


    def keep_edges(edges, sel):
        return edges[:, sel]


    def reorder(rows, order_mask: torch.Tensor):
        return rows[order_mask]


    def dense(x, lengths):
        valid = torch.zeros(x.shape[0], 8, dtype=torch.bool)
        valid = valid[:, :4]
        return x.new_zeros(x.shape[0], 4), valid


    class Net(nn.Module):
        def forward(self, x, edges, kinds, text_mask):
            kept = keep_edges(edges, kinds == 1)
            ordered = reorder(x, torch.argsort(x[:, 0]))
            out, chosen = dense(x, kinds)
            picked = out[chosen]
            visible = x[text_mask]
            return kept, ordered, picked, visible


    torch.compile(Net())
""")
LINES = SOURCE.splitlines()


def flagged() -> list[tuple[str, str]]:
    return [(LINES[f.start.line - 1].strip(), f.confidence.value)
            for f in lint_source(SOURCE, "net.py", Config(select=("DYN105",)))]


def test_a_parameter_every_caller_passes_a_comparison_is_a_mask() -> None:
    assert ("return edges[:, sel]", "likely") in flagged()


def test_a_helper_result_made_as_a_mask_on_every_return_is_a_mask() -> None:
    assert ("picked = out[chosen]", "likely") in flagged()


def test_a_parameter_named_mask_that_callers_pass_indices_is_no_mask() -> None:
    assert "return rows[order_mask]" not in [line for line, _ in flagged()]


def test_an_entry_points_input_is_read_by_its_name_at_likely() -> None:
    assert ("visible = x[text_mask]", "likely") in flagged()


def test_a_mask_on_one_branch_and_of_unknown_dtype_on_the_other_may_be_a_mask() -> None:
    source = textwrap.dedent("""\
        import torch


        def pick(helper, x, subset):
            if subset.dtype != torch.bool:
                keep = torch.zeros(x.shape[0], dtype=torch.bool)
            else:
                keep = helper(subset)
            return x[keep]


        @torch.compile
        def run(x):
            return pick(len, x, x > 0)
    """)
    found = [(f.start.line, f.confidence.value) for f in lint_source(source, "pick.py", Config(select=("DYN105",)))]
    assert found == [(9, "likely")]
