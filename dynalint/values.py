"""The value analysis: is an expression a tensor, a tensor's *data*, only its *metadata*, or unknown?

Used by rules in the lint stage. One ``ValueScope`` per function: the engine creates it when it enters
a ``def`` and feeds it every assignment *after* the statement has been visited, so that a query at a
node sees the bindings made by the statements before it (straight-line, last writer wins; loops are not
iterated to a fixed point). Sources of tensors: parameters annotated ``Tensor``, ``forward`` arguments
other than ``self``, ``torch.*`` calls, tensor methods, ``self.<parameter or buffer>`` and calls of
``torch.nn`` layers held in ``self``. ``Kind`` is ordered so that combining two values is ``max``:
anything touched by a tensor is a tensor, and unknown stays unknown, never data.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from dynalint.finding import Confidence
from dynalint.names import ImportTable, dotted_name
from dynalint.torchapi import (
    CONST_BUILTINS, DATA_CONVERSIONS, DATA_METHODS, META_ATTRIBUTES, META_METHODS, PASSTHROUGH_BUILTINS, REDUCTIONS,
    SCALAR_TYPES, TENSOR_ATTRIBUTES, TENSOR_TYPES, TorchResult, torch_result,
)


class Kind(enum.IntEnum):
    CONST = 0  # a Python constant or a value known not to depend on tensors
    META = 1  # shape, dtype, device, dim, numel, len, requires_grad, self.training
    UNKNOWN = 2
    # An un-annotated ``forward`` input: a tensor as soon as a tensor method is called on it, but used
    # bare (``if flag:``, ``x[:, a:b]``) it may as well be a Python flag or int, so it is never data.
    INPUT = 3
    # Probably a tensor: the result of a reduction such as ``.sum()`` / ``.any()`` on a receiver of
    # unknown type. Rules report it at ``likely`` confidence; it never becomes ``TENSOR``.
    LIKELY_TENSOR = 4
    DATA = 5  # a Python value read from tensor contents: ``.item()``, ``int(t)``, ``bool(t)``
    TENSOR = 6

    @property
    def is_tensor_like(self) -> bool:
        return self in (Kind.TENSOR, Kind.LIKELY_TENSOR)

    @property
    def confidence(self) -> Confidence:
        """How sure a finding resting on a value of this kind can be."""
        return Confidence.CERTAIN if self in (Kind.TENSOR, Kind.DATA) else Confidence.LIKELY

    @property
    def may_be_tensor(self) -> bool:
        """A receiver that a tensor-only method may be called on: a tensor, probably one, or not known."""
        return self in (Kind.TENSOR, Kind.LIKELY_TENSOR, Kind.INPUT, Kind.UNKNOWN)

    @property
    def is_data_dependent(self) -> bool:
        """A tensor, a probable tensor or a value read out of one: what branches and slices must not use."""
        return self in (Kind.TENSOR, Kind.LIKELY_TENSOR, Kind.DATA)


_KIND_OF_RESULT = {
    TorchResult.TENSOR: Kind.TENSOR, TorchResult.METADATA: Kind.META, TorchResult.CONSTANT: Kind.CONST,
    TorchResult.UNKNOWN: Kind.UNKNOWN,
}


@dataclass
class ValueScope:
    """The value environment of one function body."""

    imports: ImportTable
    tensor_attrs: frozenset[str] = frozenset()  # ``self.<name>`` that hold parameters or buffers
    layer_attrs: frozenset[str] = frozenset()  # ``self.<name>`` that hold ``torch.nn`` layers
    env: dict[str, Kind] = field(default_factory=dict)
    # Kind of a call to a function in the linted tree (its summary says whether it returns tensors).
    call_kind: Callable[[cst.Call], Kind | None] | None = None

    @classmethod
    def for_function(
        cls,
        node: cst.FunctionDef,
        imports: ImportTable,
        is_method: bool,
        tensor_attrs: frozenset[str] = frozenset(),
        layer_attrs: frozenset[str] = frozenset(),
        parent: ValueScope | None = None,
        call_kind: Callable[[cst.Call], Kind | None] | None = None,
    ) -> ValueScope:
        scope = cls(imports, tensor_attrs, layer_attrs, dict(parent.env) if parent else {}, call_kind)
        params = node.params
        ordered = [*params.posonly_params, *params.params, *params.kwonly_params]
        is_forward = is_method and node.name.value == "forward"
        for index, param in enumerate(ordered):
            name = param.name.value
            if is_method and index == 0:
                scope.env[name] = Kind.UNKNOWN  # ``self``: attributes are typed separately
                continue
            scope.env[name] = scope._param_kind(param, is_forward)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.env[star.name.value] = Kind.UNKNOWN
        return scope

    def _param_kind(self, param: cst.Param, is_forward: bool) -> Kind:
        if param.annotation is not None:
            members = set(_union_members(param.annotation.annotation, self.imports)) - {"builtins.None"}
            if members and members <= TENSOR_TYPES:
                return Kind.TENSOR
            if members & TENSOR_TYPES:
                return Kind.LIKELY_TENSOR  # ``int | Tensor``: a tensor only sometimes
            if members and members <= SCALAR_TYPES:
                return Kind.CONST
            return Kind.UNKNOWN
        if not is_forward:
            return Kind.UNKNOWN
        default = param.default
        if default is None:
            return Kind.INPUT
        # ``mask=None`` is as often a flag (``output_attentions=None``) as an optional tensor.
        return Kind.CONST if isinstance(default, (cst.BaseNumber, cst.BaseString)) or (
            isinstance(default, cst.Name) and default.value in ("True", "False")
        ) else Kind.UNKNOWN

    # -- bindings -----------------------------------------------------------------------------
    def bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None, kind: Kind | None = None) -> None:
        """Record ``target = value`` (``kind`` overrides the value's own kind, e.g. loop targets)."""
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            sources = (
                [e.value for e in value.elements]
                if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(elements)
                else None
            )
            whole = kind if kind is not None else (self.kind(value) if value is not None else Kind.UNKNOWN)
            for index, element in enumerate(elements):
                inner = element.value if isinstance(element, cst.StarredElement) else element
                if sources is not None and kind is None:
                    self.bind(inner, sources[index])
                else:
                    self.bind(inner, None, whole)
        elif isinstance(target, cst.Name):
            self.env[target.value] = kind if kind is not None else (
                self.kind(value) if value is not None else Kind.UNKNOWN
            )

    # -- queries ------------------------------------------------------------------------------
    def kind(self, node: cst.BaseExpression) -> Kind:
        """The kind of value ``node`` evaluates to."""
        if isinstance(node, (cst.BaseNumber, cst.BaseString)):
            return Kind.CONST
        if isinstance(node, cst.Name):
            if node.value in self.env:
                return self.env[node.value]
            return Kind.CONST if node.value in ("None", "True", "False") else Kind.UNKNOWN
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.Subscript):
            base = self.kind(node.value)
            return base if base is not Kind.CONST else Kind.UNKNOWN
        if isinstance(node, cst.BinaryOperation):
            return max(self.kind(node.left), self.kind(node.right))
        if isinstance(node, cst.UnaryOperation):
            return self.kind(node.expression)
        if isinstance(node, cst.BooleanOperation):
            return max(self.kind(node.left), self.kind(node.right))
        if isinstance(node, cst.Comparison):
            return self._comparison(node)
        if isinstance(node, cst.IfExp):
            return max(self.kind(node.body), self.kind(node.orelse))
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            kinds = [self.kind(e.value) for e in node.elements]
            return max(kinds, default=Kind.CONST)
        if isinstance(node, cst.NamedExpr):
            return self.kind(node.value)
        return Kind.UNKNOWN

    def _attribute(self, node: cst.Attribute) -> Kind:
        attr = node.attr.value
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            if attr in self.tensor_attrs:
                return Kind.TENSOR
            return Kind.META if attr == "training" else Kind.UNKNOWN
        dotted = dotted_name(node)
        resolved = self.imports.resolve(dotted) if dotted and dotted.split(".")[0] not in self.env else None
        if resolved is not None:
            return Kind.CONST  # a module attribute such as ``torch.float32``
        base = self.kind(node.value)
        if attr in META_ATTRIBUTES and base in (Kind.TENSOR, Kind.LIKELY_TENSOR, Kind.INPUT, Kind.UNKNOWN):
            return Kind.META
        if base.is_tensor_like or base is Kind.INPUT:
            tensor = Kind.LIKELY_TENSOR if base is Kind.LIKELY_TENSOR else Kind.TENSOR
            return tensor if attr in TENSOR_ATTRIBUTES else Kind.UNKNOWN
        return Kind.META if base is Kind.META else Kind.UNKNOWN

    def _call(self, node: cst.Call) -> Kind:
        func = node.func
        if isinstance(func, cst.Attribute):
            receiver_is_local = not (dotted_name(func) or "").split(".")[0] in self.imports.aliases
            if receiver_is_local or dotted_name(func) is None:
                return self._method(func, node)
        dotted = dotted_name(func)
        if dotted is not None and dotted.split(".")[0] in self.env:
            return Kind.UNKNOWN  # a local callable
        in_tree = self.call_kind(node) if self.call_kind else None
        if in_tree is not None:
            return in_tree
        resolved = self.imports.resolve(dotted)
        if resolved is None:
            return Kind.UNKNOWN
        if resolved.startswith("torch."):
            return _KIND_OF_RESULT[torch_result(resolved)]
        args = [self.kind(a.value) for a in node.args]
        if resolved in DATA_CONVERSIONS:
            arg = args[0] if args else Kind.CONST
            return Kind.DATA if arg.is_data_dependent else (Kind.UNKNOWN if arg is Kind.INPUT else arg)
        if resolved == "builtins.len":
            return Kind.META if args and (args[0].is_tensor_like or args[0] in (Kind.META, Kind.INPUT)) else Kind.UNKNOWN
        if resolved in PASSTHROUGH_BUILTINS:
            return max(args, default=Kind.UNKNOWN)
        if resolved in CONST_BUILTINS:
            return Kind.CONST
        return Kind.UNKNOWN

    def _method(self, func: cst.Attribute, node: cst.Call) -> Kind:
        name = func.attr.value
        receiver = func.value
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            if name in self.layer_attrs:
                return Kind.TENSOR
            in_tree = self.call_kind(node) if self.call_kind else None
            return in_tree if in_tree is not None else Kind.UNKNOWN
        base = self.kind(receiver)
        if name in DATA_METHODS:
            # ``.item()`` of a shape value (a TorchScript-era ``if isinstance(n, Tensor): n = n.item()``) is
            # still that shape value; only a tensor's contents are data.
            return Kind.META if base is Kind.META else Kind.DATA
        if base in (Kind.TENSOR, Kind.INPUT):
            # A tensor method on a ``forward`` input confirms that the input is a tensor.
            return Kind.META if name in META_METHODS else Kind.TENSOR
        if base is Kind.LIKELY_TENSOR:
            return Kind.META if name in META_METHODS else Kind.LIKELY_TENSOR
        if base is Kind.META and name in ("index", "count", "numel"):
            return Kind.META
        if base is Kind.UNKNOWN and name in REDUCTIONS:
            return Kind.LIKELY_TENSOR
        return Kind.UNKNOWN

    def _comparison(self, node: cst.Comparison) -> Kind:
        operators = [c.operator for c in node.comparisons]
        if all(isinstance(op, (cst.Is, cst.IsNot)) for op in operators):
            return Kind.CONST
        if all(isinstance(op, (cst.In, cst.NotIn)) for op in operators):
            # ``"key" in kwargs`` asks a container; only membership in a tensor reads tensor data.
            containers = [self.kind(c.comparator) for c in node.comparisons]
            return Kind.TENSOR if Kind.TENSOR in containers else Kind.UNKNOWN
        kinds = [self.kind(node.left), *(self.kind(c.comparator) for c in node.comparisons)]
        return max(kinds)


def _union_members(node: cst.BaseExpression, imports: ImportTable) -> list[str | None]:
    """Top-level alternatives of an annotation: ``Optional[Tensor]`` / ``Tensor | None`` -> [torch.Tensor, None].

    A subscripted container (``list[Tensor]``, ``Dict[str, Tensor]``) is one opaque member (``None`` in the list).
    """
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return _union_members(node.left, imports) + _union_members(node.right, imports)
    if isinstance(node, cst.Subscript):
        outer = imports.resolve(dotted_name(node.value))
        if outer in ("typing.Optional", "typing.Union"):
            members: list[str | None] = ["builtins.None"] if outer == "typing.Optional" else []
            for element in node.slice:
                if isinstance(element.slice, cst.Index):
                    members += _union_members(element.slice.value, imports)
            return members
        return [None]
    if isinstance(node, (cst.Name, cst.Attribute)):
        return [imports.resolve(dotted_name(node))]
    return [None]  # string annotations and anything else: unknown
