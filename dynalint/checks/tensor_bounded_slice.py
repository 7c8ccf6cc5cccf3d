"""DYN103 ``tensor-bounded-slice``: slice bounds, or an index, taken from tensor data.

Page: ``rules/DYN103-tensor-bounded-slice.md``. A slice bound must be a Python int, so a tensor there is
read into Python (GB0124). An index that is a 0-d tensor (``scores[scores.argmax()]``) is read the same
way, through ``__index__`` (GB0033, measured on torch 2.13); an index tensor of one or more dimensions is
advanced indexing, which traces, so only indexes the value analysis knows to be 0-d count
(``ValueScope.is_scalar_tensor``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


class TensorBoundedSlice(Rule):
    code = "DYN103"
    name = "tensor-bounded-slice"
    message = "{subject} in compiled code reads {read} into Python and breaks the graph"
    help = "Pass the bounds as Python ints, or use `narrow` / `index_select` with `torch.arange`"
    gb_ids = ("GB0124", "GB0033")
    supersedes = ("DYN104",)  # ``x[: int(t.sum())]``: the conversion is this slice's break

    _statement_reported = False  # a 0-d index of the current statement (or compound statement's header) was reported

    def _next_statement(self, node: cst.CSTNode) -> None:
        self._statement_reported = False

    visit_SimpleStatementLine = visit_If = visit_While = visit_For = visit_With = _next_statement

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.context.settings.capture_scalar_outputs:
            return
        for element, bounds in _reported_bounds(self.context, node):
            self.report(element, confidence=max(self.context.kind(b) for b in bounds).confidence,
                        gb_ids=("GB0124",), pattern="slice", subject="A slice bounded by a tensor value", read="the bound")
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Index) and self.context.values.is_scalar_tensor(index.value):
                if self._statement_reported:
                    continue  # the first read breaks, and Dynamo runs the rest of the statement eagerly
                self._statement_reported = True
                kind = self.context.kind(index.value)
                self.report(element, confidence=kind.confidence if kind.is_tensor_like else Confidence.LIKELY,
                            gb_ids=("GB0033",), pattern="index", subject="Indexing with a 0-d tensor", read="the index")


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
