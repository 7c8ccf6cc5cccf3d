"""DYN107 ``data-ptr-comparison``: computing with ``Tensor.data_ptr()``. Page: ``rules/DYN107-data-ptr-comparison.md``.

Dynamo models a data pointer as an opaque id: it can be stored, returned, hashed into a set or used
as a dict key, but comparing it with ``==`` / ``!=`` (also through ``in`` on a list or tuple) or doing
arithmetic on it breaks. Names last assigned ``x.data_ptr()`` in the same function count as pointers.
A storage's ``data_ptr()`` (``x.untyped_storage().data_ptr()``) breaks by itself, whatever is done with
it, and is not this rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

ORDERING = (cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
MEMBERSHIP = (cst.In, cst.NotIn)
STORAGE_METHODS = frozenset({"untyped_storage", "storage", "_typed_storage"})


class DataPtrComparison(Rule):
    code = "DYN107"
    name = "data-ptr-comparison"
    message = "{construct} on `Tensor.data_ptr()` in compiled code breaks the graph"
    help = "Compare pointers before calling the compiled function and pass the result in as a flag"
    gb_ids = ("GB5976", "GB0088")

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._pointers: list[dict[str, Confidence]] = [{}]  # local names holding a data pointer

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._pointers.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._pointers.pop()

    def leave_Assign(self, original_node: cst.Assign) -> None:
        pointer = self._pointer(original_node.value)
        for target in original_node.targets:
            self._bind(target.target, pointer)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if original_node.value is not None:
            self._bind(original_node.target, self._pointer(original_node.value))

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self._bind(original_node.target, None)

    def _bind(self, target: cst.BaseExpression, pointer: Confidence | None) -> None:
        if isinstance(target, cst.Name):
            if pointer is None:
                self._pointers[-1].pop(target.value, None)
            else:
                self._pointers[-1][target.value] = pointer
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, None)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for comparison in node.comparisons:
            right = comparison.comparator
            if isinstance(comparison.operator, ORDERING):
                found = [c for c in (self._pointer(left), self._pointer(right)) if c is not None]
            elif isinstance(comparison.operator, MEMBERSHIP) and isinstance(right, (cst.List, cst.Tuple)):
                # ``p in [q, r]`` compares with ``==``; a set or dict hashes and does not break.
                operands = [left, *(e.value for e in right.elements)]
                found = [c for c in map(self._pointer, operands) if c is not None]
            else:
                found = []
            if found:
                self.report(node, confidence=min(found, key=_rank), construct="A comparison")
                return
            left = right

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        found = [c for c in (self._pointer(node.left), self._pointer(node.right)) if c is not None]
        if found:
            self.report(node, confidence=min(found, key=_rank), construct="Arithmetic")

    def _pointer(self, node: cst.BaseExpression) -> Confidence | None:
        """The confidence that ``node`` is a tensor's data pointer, or ``None``."""
        if isinstance(node, cst.Name):
            return self._pointers[-1].get(node.value)
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return None
        if node.func.attr.value != "data_ptr" or node.args:
            return None
        receiver = node.func.value
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute):
            if receiver.func.attr.value in STORAGE_METHODS:
                return None
        kind = self.context.kind(receiver)
        if kind.is_tensor_like or kind in (Kind.INPUT, Kind.UNKNOWN):
            return kind.confidence
        return None


def _rank(confidence: Confidence) -> int:
    return 0 if confidence is Confidence.LIKELY else 1
