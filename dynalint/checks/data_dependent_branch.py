"""DYN102 ``data-dependent-branch``: control flow on tensor values. Page: ``rules/DYN102-data-dependent-branch.md``.

Which conditions depend on tensor *values* (and not on shapes, dtypes or ``self.training``) is the
value analysis' answer (``values.py``); this rule only knows where Python turns a value into a bool.
"""

from __future__ import annotations

import libcst as cst

from dynalint.rule import Rule
from dynalint.values import Kind


class DataDependentBranch(Rule):
    code = "DYN102"
    name = "data-dependent-branch"
    message = "{construct} on a tensor's value in compiled code breaks the graph"
    help = "Compute both sides and select with `torch.where`, or use `torch.cond`"
    gb_ids = ("GB0170", "GB0124")

    def visit_If(self, node: cst.If) -> None:
        self._condition(node.test, "`if`")

    def visit_While(self, node: cst.While) -> None:
        self._condition(node.test, "`while`")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._condition(node.test, "A conditional expression")

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.resolve(node.func) == "builtins.bool" and len(node.args) == 1:
            kind = self.context.kind(node.args[0].value)
            if kind.is_tensor_like:
                self.report(node, confidence=kind.confidence, construct="`bool()`")

    def _condition(self, test: cst.BaseExpression, construct: str) -> None:
        if isinstance(test, cst.Call) and self.context.resolve(test.func) == "builtins.bool":
            return  # reported once, at the ``bool()`` call
        kind = self.context.kind(test)
        if kind is Kind.DATA and not self.context.settings.capture_scalar_outputs:
            return  # the ``.item()`` / ``int()`` that produced the value breaks first, and is reported there
        if kind.is_data_dependent:
            self.report(test, confidence=kind.confidence, construct=construct)
