"""DYN103 ``tensor-bounded-slice``: slice bounds taken from tensor data. Page: ``rules/DYN103-tensor-bounded-slice.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.rule import Rule
from dynalint.values import Kind


class TensorBoundedSlice(Rule):
    code = "DYN103"
    name = "tensor-bounded-slice"
    message = "A slice bounded by a tensor value in compiled code reads the bound into Python and breaks the graph"
    help = "Pass the bounds as Python ints, or use `narrow` / `index_select` with `torch.arange`"
    gb_ids = ("GB0124",)
    requires = ("not capture_scalar_outputs",)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.context.settings.capture_scalar_outputs:
            return
        for element in node.slice:
            bound = element.slice
            if not isinstance(bound, cst.Slice):
                continue
            parts = [p for p in (bound.lower, bound.upper, bound.step) if p is not None]
            kinds = [self.context.kind(p) for p in parts if self._reads_tensor_here(p)]
            if kinds:
                self.report(element, confidence=max(kinds).confidence)

    def _reads_tensor_here(self, bound: cst.BaseExpression) -> bool:
        """A tensor bound, or one converted to a number inside the slice (``a.item()``, ``int(t)``).

        A name bound earlier to ``t.item()`` is already a Python int here: the break happened at its
        assignment, which ``tensor-item`` / ``tensor-to-scalar`` report.
        """
        kind = self.context.kind(bound)
        if kind.is_tensor_like:
            return True
        if kind is not Kind.DATA:
            return False
        return any(
            self.context.kind(node) is Kind.DATA
            for node in _calls(bound)
        )


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class _Collect(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

    node.visit(_Collect())
    return found
