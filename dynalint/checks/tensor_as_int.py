"""DYN110 ``tensor-as-int``: a tensor where Python needs an ``int``. Page: ``rules/DYN110-tensor-as-int.md``.

Two shapes, measured on torch 2.13: ``range(t)`` (any bound a tensor; GB0059, even with scalar
capture) and indexing a Python sequence with a tensor (``weights[t]``: GB0124, the index is read with
``.item()``, so not under ``capture_scalar_outputs``; ``layers[t]`` on an ``nn.ModuleList`` /
``nn.Sequential``: GB0124, and GB0059 with scalar capture). A sequence is recognised only where the
source shows one: a local name last bound to a list or tuple display, comprehension, ``list(...)`` or
``tuple(...)``; a module container held in ``self.<attr>`` or built at module level.
Indexing a tensor with a tensor is a gather, not this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.instances import constructed_by, holds_module_container
from dynalint.analysis.qualified_names import dotted_name
from dynalint.lint.rule import Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

SEQUENCE_CONSTRUCTORS = frozenset({"builtins.list", "builtins.tuple"})
# Containers of modules whose ``__getitem__`` turns the index into an int (both measured).
INDEXED_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential"})


class TensorAsInt(Rule):
    code = "DYN110"
    name = "tensor-as-int"
    message = "{construct} in compiled code reads the tensor's value as a Python int and breaks the graph"
    help = "Use a Python int (a loop counter, a shape), or keep the lookup in tensors (`torch.stack(seq)[t]`, `index_select`)"
    gb_ids = ("GB0059", "GB0124")

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._sequences: list[set[str]] = [set()]  # local names last bound to a Python list or tuple, per function

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._sequences.append(set())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._sequences.pop()

    def leave_Assign(self, original_node: cst.Assign) -> None:
        is_sequence = self._is_sequence_value(original_node.value)
        for target in original_node.targets:
            if isinstance(target.target, cst.Name):
                (self._sequences[-1].add if is_sequence else self._sequences[-1].discard)(target.target.value)

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.resolve(node.func) != "builtins.range":
            return
        kinds = [self.context.kind(a.value) for a in node.args if not a.star]
        tensors = [kind for kind in kinds if kind.is_tensor_like]
        if tensors:
            self.report(node, confidence=max(tensors).confidence, construct="`range()` over a tensor bound")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return
        index = self.context.kind(node.slice[0].slice.value)
        if not index.is_tensor_like:
            return
        # A list or tuple takes a captured scalar as its index; module containers still break (GB0059).
        if not self._is_module_container(node.value) and (
            self.context.settings.capture_scalar_outputs or not self._is_sequence(node.value)
        ):
            return
        name = dotted_name(node.value) or "a sequence"
        self.report(node, confidence=index.confidence, construct=f"Indexing `{name}` with a tensor")

    def _is_sequence(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, (cst.List, cst.Tuple)):
            return True
        return isinstance(node, cst.Name) and node.value in self._sequences[-1]

    def _is_module_container(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self" \
                and holds_module_container(self.context, node.attr.value):
            return True
        return isinstance(node, (cst.Name, cst.Attribute)) and constructed_by(self.context, node) in INDEXED_CONTAINERS

    def _is_sequence_value(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
            return True
        return isinstance(node, cst.Call) and self.context.resolve(node.func) in SEQUENCE_CONSTRUCTORS
