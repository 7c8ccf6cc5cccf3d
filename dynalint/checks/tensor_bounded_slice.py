"""DYN103 ``tensor-bounded-slice``: slice bounds taken from tensor data. Page: ``rules/DYN103-tensor-bounded-slice.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.rule import Rule


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
            kinds = [k for k in map(self.context.kind, parts) if k.is_data_dependent]
            if kinds:
                self.report(element, confidence=max(kinds).confidence)
