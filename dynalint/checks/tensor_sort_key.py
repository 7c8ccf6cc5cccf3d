"""DYN106 ``tensor-sort-key``: Python sorts keyed on tensor values. Page: ``rules/DYN106-tensor-sort-key.md``.

The key is evaluated as the value analysis would see it applied to one element of unknown type: a
lambda's body with its parameters unknown, any other key as a call ``key(element)``. So
``key=lambda t: t.sum()`` is a (probable) tensor, ``key=lambda t: t.shape[0]`` metadata and
``key=lambda kv: kv[0]`` unknown, which is never flagged.

A ``sorted()`` with no key compares the elements themselves, and Dynamo sorts only Python constants: the
items of a dict of tensors (``sorted(buffers.items())``, even with distinct string keys), an ``nn.Module``'s
``named_parameters()`` or ``named_children()``, ``zip`` with a sequence of tensors, and tensors themselves all
break with the same GB0207 (measured on torch 2.13). Elements are judged by what the value analysis knows
of them; a dict is known by its literal or its annotation.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import named_parameters
from dynalint.analysis.torch_facts import MODULE_GENERATORS
from dynalint.analysis.values.lattice import Kind, combined
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

_ELEMENT = "__dynalint_sort_element__"


class TensorSortKey(Rule):
    code = "DYN106"
    name = "tensor-sort-key"
    message = "{construct} in compiled code breaks the graph"
    help = "Stack the keys into one tensor and order with `torch.argsort`, or sort by a Python value such as a size"
    gb_ids = ("GB0207",)

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        # Per function: local names bound to a dict written out, and the kind of the values stored in it
        # (``buffers = {"w": w}``, then ``buffers["v"] = v``); forgotten when the name is bound otherwise.
        self._dicts: list[dict[str, Kind]] = [{}]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._dicts.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._dicts.pop()

    def leave_Assign(self, original_node: cst.Assign) -> None:
        dicts = self._dicts[-1]
        for target in original_node.targets:
            written = target.target
            if isinstance(written, cst.Name):
                if isinstance(original_node.value, cst.Dict):
                    dicts[written.value] = self._dict_values(original_node.value)
                else:
                    dicts.pop(written.value, None)
            elif (isinstance(written, cst.Subscript) and isinstance(written.value, cst.Name)
                    and written.value.value in dicts):
                dicts[written.value.value] = combined(dicts[written.value.value], self.context.kind(original_node.value))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.context.resolve(func) == "builtins.sorted":
            construct = "`sorted()`"
        elif isinstance(func, cst.Attribute) and func.attr.value == "sort":
            construct = "`list.sort()`"  # ``Tensor.sort`` has no ``key``
        else:
            return
        key = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "key"), None)
        if key is None or (isinstance(key, cst.Name) and key.value == "None"):
            if construct == "`sorted()`" and node.args and node.args[0].keyword is None and not node.args[0].star:
                held = self._elements(node.args[0].value)
                if held is not None:
                    self.report(node, confidence=held, construct="`sorted()` of tensors or modules with no key")
            return
        kind = self._key_kind(key)
        # A key read out with ``.item()`` / ``float()`` breaks there first (DYN101, DYN104), unless scalar
        # capture is on: then the sort itself breaks on the symbolic keys.
        if kind.is_tensor_like or (kind is Kind.DATA and self.context.settings.capture_scalar_outputs):
            self.report(node, confidence=kind.confidence, construct=f"{construct} with a key computed from tensor values")

    def _key_kind(self, key: cst.BaseExpression) -> Kind:
        values = self.context.values
        if isinstance(key, cst.Lambda):
            params = key.params
            names = [p.name.value for p in named_parameters(params)]
            names += [s.name.value for s in (params.star_arg, params.star_kwarg) if isinstance(s, cst.Param)]
            scope = replace(values, env={**values.env, **dict.fromkeys(names, Kind.UNKNOWN)})
            return scope.kind(key.body)
        if isinstance(key, (cst.Name, cst.Attribute)):
            return values.kind(cst.Call(func=key, args=[cst.Arg(cst.Name(_ELEMENT))]))
        return Kind.UNKNOWN

    def _elements(self, iterated: cst.BaseExpression) -> Confidence | None:
        """How sure we are that some element of ``iterated`` holds a tensor or a module, which a key-less sort
        compares; ``None`` when nothing says so."""
        if isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Attribute) and not iterated.args:
            method, owner = iterated.func.attr.value, iterated.func.value
            if method in MODULE_GENERATORS:
                return Confidence.CERTAIN  # ``self.named_parameters()``: pairs holding parameters, or modules
            if method in ("items", "values"):
                return _tensor_confidence(self._dict_values(owner))
        if isinstance(iterated, cst.Call) and self.context.resolve(iterated.func) == "builtins.zip":
            kinds = [self._item(arg.value) for arg in iterated.args if not arg.star]
            return _tensor_confidence(combined(*kinds)) if kinds else None
        return _tensor_confidence(self._item(iterated))

    def _item(self, iterated: cst.BaseExpression) -> Kind:
        """What one element of ``iterated`` is: one written out, else what iterating it gives."""
        values = self.context.values
        written = values.written_elements(iterated)
        return written if written is not None else values.loop_item(iterated)

    def _dict_values(self, owner: cst.BaseExpression) -> Kind:
        """What the values of the dict ``owner`` are: a literal's, or an annotated name's (``Dict[str, Tensor]``)."""
        if isinstance(owner, cst.Dict):
            kinds = [self.context.kind(e.value) for e in owner.elements if isinstance(e, cst.DictElement)]
            return combined(*kinds) if kinds else Kind.CONST
        if isinstance(owner, cst.Name) and owner.value in self._dicts[-1]:
            return self._dicts[-1][owner.value]
        structure = self.context.values.structure(owner)
        return structure.item if structure is not None else Kind.UNKNOWN


def _tensor_confidence(kind: Kind) -> Confidence | None:
    return kind.confidence if kind.is_tensor_like else None
