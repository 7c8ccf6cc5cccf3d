"""DYN103 ``tensor-bounded-slice``: slice bounds taken from tensor data. Page: ``rules/DYN103-tensor-bounded-slice.md``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


class TensorBoundedSlice(Rule):
    code = "DYN103"
    name = "tensor-bounded-slice"
    message = "A slice bounded by a tensor value in compiled code reads the bound into Python and breaks the graph"
    help = "Pass the bounds as Python ints, or use `narrow` / `index_select` with `torch.arange`"
    gb_ids = ("GB0124",)
    supersedes = ("DYN104",)  # ``x[: int(t.sum())]``: the conversion is this slice's break

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.context.settings.capture_scalar_outputs:
            return
        for element, bounds in _reported_bounds(self.context, node):
            self.report(element, confidence=max(self.context.kind(b) for b in bounds).confidence)


def _reported_bounds(
    context: LintContext, node: cst.Subscript
) -> list[tuple[cst.SubscriptElement, list[cst.BaseExpression]]]:
    """The slices of ``node`` this rule reports, with the bounds that read tensor data there.

    A bound reads tensor data *here* when it is a tensor, or a number converted from one inside the
    bound (``a.item()``, ``int(t)``). A name bound earlier to ``t.item()`` is already a Python int: the
    break happened at its assignment, which ``tensor-item`` / ``tensor-to-scalar`` report.
    """
    reported = []
    for element in node.slice:
        bound = element.slice
        if not isinstance(bound, cst.Slice):
            continue
        parts = [p for p in (bound.lower, bound.upper, bound.step) if p is not None]
        reading = [p for p in parts if _reads_tensor_here(context, p)]
        if reading:
            reported.append((element, reading))
    return reported


def _reads_tensor_here(context: LintContext, bound: cst.BaseExpression) -> bool:
    kind = context.kind(bound)
    if kind.is_tensor_like:
        return True
    return kind is Kind.DATA and any(context.kind(call) is Kind.DATA for call in _calls_within(bound))


def _calls_within(node: cst.CSTNode) -> Iterator[cst.Call]:
    """Every call in ``node``'s subtree, ``node`` included."""
    return (inner for inner in descendants(node) if isinstance(inner, cst.Call))
