"""A boolean mask is known by how it was made, through calls too: a parameter every caller in compiled
code passes a mask is a mask, and so is what a helper returns as one on every ``return``. A name says
nothing, except for an entry point's inputs, which nothing in the tree made (there the name is the only
evidence, reported at ``likely``).
"""

from __future__ import annotations

import textwrap

import pytest

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


HELPER_PARAMETERS = textwrap.dedent("""\
    import torch
    from torch import nn


    def spline(inputs, widths, tail_bound=1.0):
        inside = (inputs >= -tail_bound) & (inputs <= tail_bound)
        outputs = torch.zeros_like(inputs)
        outputs[~inside] = inputs[~inside]
        return inputs[inside], widths[inside, :], outputs


    def pairs(mat, pos_mask, sizes, n):
        chosen = pos_mask.bool()
        names = ("one", "many")[n > 1]
        wide = sizes[sizes.shape[0] > 2]
        return mat[chosen], names, wide


    class Flow(nn.Module):
        def forward(self, x, w, n: int):
            return spline(x, w), pairs(x, x, w, n)


    torch.compile(Flow())
""")


def test_a_comparison_or_bool_of_values_nothing_types_is_a_likely_mask_where_it_indexes() -> None:
    # nflows' splines index their inputs with ``(inputs >= -tail_bound) & (inputs <= tail_bound)``, and
    # Dynamo breaks there (GB0036, measured by the ground-truth bench); a Python flag or a shape test is no mask.
    lines = HELPER_PARAMETERS.splitlines()
    found = [(lines[f.start.line - 1].strip(), f.confidence.value)
             for f in lint_source(HELPER_PARAMETERS, "flow.py", Config(select=("DYN105",)))]
    assert found == [
        ("outputs[~inside] = inputs[~inside]", "likely"),
        ("return inputs[inside], widths[inside, :], outputs", "likely"),
        ("return inputs[inside], widths[inside, :], outputs", "likely"),
        ("return mat[chosen], names, wide", "likely"),
    ]


def test_any_and_all_over_a_dimension_as_torch_functions_make_masks() -> None:
    # ignite's HitRate: ``valid_mask = torch.any(y > 0, dim=-1)`` then ``y_pred[valid_mask]`` broke on the ground-truth
    # bench (GB0036), as ``(y > 0).any(-1)`` does; ``torch.argmax`` gives indices, no mask.
    source = textwrap.dedent("""\
        import torch


        @torch.compile
        def update(output: tuple[torch.Tensor, torch.Tensor]):
            y_pred, y = output
            valid_mask = torch.any(y > 0, dim=-1)
            every = torch.all(y > 0, dim=-1)
            best = torch.argmax(y, dim=-1)
            return y_pred[valid_mask], y[every], y[best]
    """)
    found = lint_source(source, "hitrate.py", Config(select=("DYN105",)))
    assert [(f.start.line, f.start.column) for f in found] == [(10, 12), (10, 32)]


RESHAPED_MASK = """\
import torch


def correct(x, g1, g2):
    keep = ~((x == 0) | (g2 <= 0)).squeeze(-1)
    flat = (g1 > 0).view(-1)
    order = torch.argsort(g1).squeeze(-1)
    return x[keep] * g2[keep], g1.view(-1)[flat], x[order]


torch.compile(correct, backend="eager")(torch.randn(4, 1), torch.rand(4, 1), torch.randn(4, 1))
"""


def test_a_mask_reshaped_by_squeeze_or_view_is_still_a_mask() -> None:
    """pypose's robust-kernel corrector indexes with ``~((x == 0) | (g2 <= 0)).squeeze(-1)`` (GB0036 on the
    ground-truth bench); indices from ``argsort`` squeezed stay indices."""
    lines = RESHAPED_MASK.splitlines()
    found = {lines[f.start.line - 1].strip() for f in lint_source(RESHAPED_MASK, "corrector.py", Config(select=("DYN105",)))}
    columns = [f.start.column for f in lint_source(RESHAPED_MASK, "corrector.py", Config(select=("DYN105",)))]
    assert found == {"return x[keep] * g2[keep], g1.view(-1)[flat], x[order]"}
    assert columns == [12, 22, 32]  # x[keep], g2[keep], g1.view(-1)[flat]; not x[order]


@pytest.mark.torch
def test_dynamo_breaks_on_indexing_with_a_reshaped_mask() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(RESHAPED_MASK, "corrector.py", Config(select=("DYN105",)))
    assert dynamo_break_lines(RESHAPED_MASK) == {f.start.line for f in found} == {8}
