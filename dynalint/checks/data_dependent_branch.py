"""DYN102 ``data-dependent-branch``: Python asks a tensor for its truth. Page: ``rules/DYN102-data-dependent-branch.md``.

Python asks a value for its truth in more places than ``if``: the test of ``if``, ``while``, a
conditional expression and a comprehension's ``if``; the operand of ``not``; and every
operand of ``and`` / ``or`` but the last, wherever the operation stands (``keep = t.any() or force``
asks ``t.any()``; ``keep = force or t.any()`` only returns it). This rule follows those truth tests
down to the values they ask (``_tested``), and the value analysis says which of them are tensors.
A container of tensors is a Python object whose truth is its length (``if outs:``), never data. The
test of ``assert`` is the exception: Dynamo turns ``assert t.all()`` into a check in the graph, with no
break (measured on torch 2.13; DYN108's page proves it), so only the truth tests inside it count
(``assert t.all() or strict`` asks ``t.all()`` in its ``or``, and breaks).
An operand Dynamo never evaluates is skipped: the right side of ``is_compiling() or X`` and of
``not is_compiling() and X``, with the guard spelled through a helper or a name bound to a
combination holding it (``under_trace = torch.jit.is_scripting() or is_compiling()``). A data test that
runs only under a static test on metadata (``x.dtype == torch.float16 and torch.isinf(x).any()``) is
reported at ``likely``, the message naming the test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

_SHOWN_CONDITION = 60  # characters of a static guard quoted in the message


class DataDependentBranch(Rule):
    code = "DYN102"
    name = "data-dependent-branch"
    message = "{construct} on a tensor's value in compiled code breaks the graph"
    help = "Compute both sides and select with `torch.where`, or use `torch.cond`"
    gb_ids = ("GB0170", "GB0124")

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._judged: set[int] = set()  # ``and``/``or``/``not`` nodes already followed from an enclosing test

    def visit_If(self, node: cst.If) -> None:
        self._truth_test(node.test, "`if`")

    def visit_While(self, node: cst.While) -> None:
        self._truth_test(node.test, "`while`")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._truth_test(node.test, "A conditional expression")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._truth_test(node.test, "A comprehension's `if`")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not) and id(node) not in self._judged:
            self._truth_test(node, "`not`")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # Evaluated, not tested: only the operands before the last are asked for their truth.
        if id(node) not in self._judged:
            self._judged.add(id(node))
            construct = "`and`" if isinstance(node.operator, cst.And) else "`or`"
            self._report_first(self._tested(node.left), node, construct, self._static_guard(node))

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.resolve(node.func) == "builtins.bool" and len(node.args) == 1:
            kind = self.context.kind(node.args[0].value)
            if kind.is_tensor_like:
                self.report(node, confidence=kind.confidence, construct="`bool()`")

    def _truth_test(self, test: cst.BaseExpression, construct: str) -> None:
        self._report_first(self._tested(test), test, construct, self._static_guard(test))

    def _tested(self, expression: cst.BaseExpression,
                condition: str | None = None) -> list[tuple[cst.BaseExpression, str | None]]:
        """The values whose truth Python asks when it asks ``expression``'s, in evaluation order, each
        with the Python test under which it is asked at all (``(flag or t.any()) and n``: ``t.any()``
        only when ``not (flag)``), without the operands Dynamo never evaluates; the ``and``/``or``/``not``
        on the way count as judged (the walk reaches them later, standalone)."""
        if isinstance(expression, cst.BooleanOperation):
            self._judged.add(id(expression))
            tested = self._tested(expression.left, condition)
            known = self.context.values.static_truth(expression.left)
            short_circuits = known is (not isinstance(expression.operator, cst.And)) if known is not None else False
            if not self.context.never_evaluated(expression) and not short_circuits:
                reached = self.context.values.condition_of(expression)
                if reached is not None and condition is not None:
                    reached = f"{condition} and {reached}"
                tested += self._tested(expression.right, reached or condition)
            return tested
        if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Not):
            self._judged.add(id(expression))
            return self._tested(expression.expression, condition)
        if isinstance(expression, cst.Call) and self.context.resolve(expression.func) == "builtins.bool":
            return []  # reported once, at the ``bool()`` call
        return [(expression, condition)]

    def _report_first(self, tested: list[tuple[cst.BaseExpression, str | None]], node: cst.CSTNode,
                      construct: str, static: str | None) -> None:
        """One finding for the first tested value that is a tensor (Python stops at the first break)."""
        for value, reached_when in tested:
            if self.context.guard(value) is not None:
                continue  # its truth is known whenever Dynamo traces (``under = is_compiling() or t.any()``)
            kind = self.context.values.truth_kind(value)
            if kind is Kind.DATA and not self.context.settings.capture_scalar_outputs:
                continue  # the ``.item()`` / ``int()`` that produced the value breaks first, and is reported there
            if not kind.is_data_dependent:
                continue
            condition = static or reached_when or self.context.values.condition_of(value)
            if condition is not None:
                shown = condition if len(condition) <= _SHOWN_CONDITION else condition[: _SHOWN_CONDITION - 3] + "..."
                self.report(node, confidence=Confidence.LIKELY, construct=f"{construct} (only when `{shown}`)")
            else:
                self.report(node, confidence=kind.confidence, construct=construct)
            return

    def _static_guard(self, test: cst.BaseExpression) -> str | None:
        """In ``A and B`` (or ``A or B``) with ``A`` a static test (dtype, shape, flag) and ``B`` on data:
        the test under which ``B`` is asked (``A``, or ``not (A)``)."""
        return self.context.values.condition_of(test) if isinstance(test, cst.BooleanOperation) else None
