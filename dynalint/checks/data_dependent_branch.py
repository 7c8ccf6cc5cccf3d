"""DYN102 ``data-dependent-branch``: control flow on tensor values. Page: ``rules/DYN102-data-dependent-branch.md``.

Which conditions depend on tensor *values* (and not on shapes, dtypes or ``self.training``) is the
value analysis' answer (``values.py``); this rule only knows where Python turns a value into a bool.
In ``A and B`` / ``A or B`` an operand Dynamo never evaluates (``not is_compiling() and B``) does not
count; one evaluated only under a static test on metadata (``x.dtype == torch.float16 and
torch.isinf(x).any()``, ``self.training and ...``) is reported at ``likely``, the message naming the test.
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

_SHOWN_CONDITION = 60  # characters of a static guard quoted in the message


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

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._condition(node.test, "A comprehension's `if`")

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.resolve(node.func) == "builtins.bool" and len(node.args) == 1:
            kind = self.context.kind(node.args[0].value)
            if kind.is_tensor_like:
                self.report(node, confidence=kind.confidence, construct="`bool()`")

    def _condition(self, test: cst.BaseExpression, construct: str) -> None:
        if isinstance(test, cst.Call) and self.context.resolve(test.func) == "builtins.bool":
            return  # reported once, at the ``bool()`` call
        kind = self._evaluated_kind(test)
        if kind is Kind.DATA and not self.context.settings.capture_scalar_outputs:
            return  # the ``.item()`` / ``int()`` that produced the value breaks first, and is reported there
        if not kind.is_data_dependent:
            return
        static = self._static_guard(test)
        if static is not None:
            shown = cst.Module([]).code_for_node(static)
            shown = shown if len(shown) <= _SHOWN_CONDITION else shown[: _SHOWN_CONDITION - 3] + "..."
            self.report(test, confidence=Confidence.LIKELY, construct=f"{construct} (only when `{shown}`)")
        else:
            self.report(test, confidence=kind.confidence, construct=construct)

    def _evaluated_kind(self, test: cst.BaseExpression) -> Kind:
        """The test's kind over the operands Dynamo evaluates (``not is_compiling() and B`` skips ``B``)."""
        if isinstance(test, cst.BooleanOperation):
            if self.context.never_evaluated(test):
                return self._evaluated_kind(test.left)
            return max(self._evaluated_kind(test.left), self._evaluated_kind(test.right))
        return self.context.kind(test)

    def _static_guard(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """In ``A and B`` with ``A`` a static test (dtype, shape, flag) and ``B`` on data: ``A``."""
        if not (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And)):
            return None
        left = test.left
        if isinstance(left, cst.Comparison) and all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in left.comparisons):
            return None  # ``mask is not None and mask.any()``: an optional argument, not a condition
        if self._evaluated_kind(left) is Kind.META and self._evaluated_kind(test.right).is_data_dependent:
            return left
        return None
