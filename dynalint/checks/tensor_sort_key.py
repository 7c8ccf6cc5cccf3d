"""DYN106 ``tensor-sort-key``: Python sorts keyed on tensor values. Page: ``rules/DYN106-tensor-sort-key.md``.

The key is evaluated as the value analysis would see it applied to one element of unknown type: a
lambda's body with its parameters unknown, any other key as a call ``key(element)``. So
``key=lambda t: t.sum()`` is a (probable) tensor, ``key=lambda t: t.shape[0]`` metadata and
``key=lambda kv: kv[0]`` unknown, which is never flagged.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from dynalint.analysis.cst_walk import named_parameters
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule

_ELEMENT = "__dynalint_sort_element__"


class TensorSortKey(Rule):
    code = "DYN106"
    name = "tensor-sort-key"
    message = "{construct} with a key computed from tensor values in compiled code breaks the graph"
    help = "Stack the keys into one tensor and order with `torch.argsort`, or sort by a Python value such as a size"
    gb_ids = ("GB0207",)

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
            return
        kind = self._key_kind(key)
        # A key read out with ``.item()`` / ``float()`` breaks there first (DYN101, DYN104), unless scalar
        # capture is on: then the sort itself breaks on the symbolic keys.
        if kind.is_tensor_like or (kind is Kind.DATA and self.context.settings.capture_scalar_outputs):
            self.report(node, confidence=kind.confidence, construct=construct)

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
