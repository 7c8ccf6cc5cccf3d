"""DYN101 ``tensor-item``: ``Tensor.item()`` / ``Tensor.tolist()``, and the comparisons that answer with a
Python bool (``torch.allclose``, ``torch.equal``). Page: ``rules/DYN101-tensor-item.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.torch_facts import DATA_COMPARISON_FUNCTIONS, DATA_COMPARISONS
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rewrites import keep_tensor
from dynalint.lint.rule import TensorArithmeticRule
from dynalint.model.finding import Applicability


class TensorItem(TensorArithmeticRule):
    code = "DYN101"
    name = "tensor-item"
    message = "`{call}` in compiled code reads tensor data into Python and breaks the graph"
    help = "Keep the value a tensor (use `torch.where`, tensor arithmetic), or read it outside the compiled function"
    gb_ids = ("GB0124", "GB0109", "GB0033")
    fix = Applicability.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        resolved = self.context.resolve(func)
        if resolved in DATA_COMPARISON_FUNCTIONS:
            self.report(node, gb_ids=("GB0033",), pattern=resolved, call=f"{resolved}()")
            return
        if isinstance(func, cst.Attribute) and func.attr.value in DATA_COMPARISONS and resolved is None:
            receiver = self.context.kind(func.value)
            if receiver.is_tensor_like or receiver is Kind.INPUT:
                self.report(node, confidence=receiver.confidence, gb_ids=("GB0033",), pattern=f"Tensor.{func.attr.value}",
                            call=f"Tensor.{func.attr.value}()")
            return
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("item", "tolist") or node.args:
            return
        if func.attr.value == "item" and self.context.settings.capture_scalar_outputs:
            return  # traced as an unbacked symbol; ``.tolist()`` on floats breaks even then
        receiver = self.context.kind(func.value)
        if receiver.is_tensor_like or receiver in (Kind.UNKNOWN, Kind.INPUT):
            rewrite = keep_tensor(node, func.value) if func.attr.value == "item" and self.in_tensor_arithmetic(node) else None
            self.report(node, confidence=receiver.confidence, rewrite=rewrite, pattern=f"Tensor.{func.attr.value}",
                        call=f"Tensor.{func.attr.value}()")
