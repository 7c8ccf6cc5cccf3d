"""Type annotations: read by the summarize stage, turned into value types by the program stage.

``read`` turns an ``ast`` annotation (``Optional[Tensor]``, ``Tensor | None``, ``Dict[str, Tensor]``,
``"torch.Tensor"``) into an ``Annotation`` whose names are qualified through the module's imports, so
that a summary can be cached and linked without its tree. ``value_type`` says what a value so
annotated is (``kinds.ValueType``), expanding type aliases (PyG's ``OptTensor = Optional[Tensor]``,
``Adj = Union[Tensor, SparseTensor]``) through a lookup the program provides, since an alias is often
defined in another module than the one that uses it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import NamedTuple

from dynalint.analysis.qualified_names import ImportTable, dotted_name
from dynalint.analysis.torch_facts import SCALAR_TYPES, TENSOR_TYPES
from dynalint.analysis.values.lattice import UNKNOWN_TYPE, Kind, ValueType

_NONE = "builtins.None"
_ELLIPSIS = "builtins.Ellipsis"
_UNION = "typing.Union"
_OPTIONAL = "typing.Optional"
# Containers whose items (the last type argument: a list's element, a dict's value) indexing gives.
_CONTAINERS = frozenset(
    {"typing.List", "typing.Dict", "typing.Sequence", "typing.Mapping", "typing.MutableMapping", "typing.Iterable",
     "typing.MutableSequence", "typing.Iterator", "builtins.list", "builtins.dict", "collections.abc.Sequence",
     "collections.abc.Mapping", "collections.abc.Iterable", "typing.OrderedDict", "collections.OrderedDict"}
)
_TUPLES = frozenset({"typing.Tuple", "builtins.tuple"})
_MAX_ALIAS_DEPTH = 8


class Annotation(NamedTuple):
    """An annotation with qualified names: ``typing.Optional[torch.Tensor]`` is
    ``Annotation("typing.Optional", (Annotation("torch.Tensor"),))``; ``name`` is ``None`` where unknown.
    A named tuple, for the size of pickled summaries (every annotated parameter of a tree has one)."""

    name: str | None
    args: tuple[Annotation, ...] = ()


def read(node: ast.expr | None, imports: ImportTable) -> Annotation | None:
    """The annotation written at ``node``, its names qualified; ``None`` for no annotation."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return Annotation(_NONE)
        if node.value is Ellipsis:
            return Annotation(_ELLIPSIS)
        if isinstance(node.value, str):  # a string (forward) annotation
            try:
                parsed = ast.parse(node.value.strip(), mode="eval").body
            except (SyntaxError, ValueError):
                return Annotation(None)
            return read(parsed, imports)
        return Annotation(None)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return Annotation(_UNION, (read(node.left, imports) or Annotation(None), read(node.right, imports) or Annotation(None)))
    if isinstance(node, ast.Subscript):
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        head = imports.resolve(dotted_name(node.value))
        return Annotation(head, tuple(read(a, imports) or Annotation(None) for a in inner))
    if isinstance(node, (ast.List, ast.Tuple)):  # ``Callable[[int], Tensor]``'s argument list
        return Annotation(None)
    return Annotation(imports.resolve(dotted_name(node)))


def classes_named(annotation: Annotation | None) -> list[str | None]:
    """The qualified classes an annotation allows, ``None`` left out: ``A | None``, ``Optional[A]`` and
    ``Union[A, None]`` give ``[A]``; a member that is no plain name (``List[A]``) is ``None`` in the list."""
    if annotation is None or annotation.name == _NONE:
        return []
    if annotation.name in (_UNION, _OPTIONAL):
        return [named for member in annotation.args for named in classes_named(member)]
    return [None if annotation.args else annotation.name]


def class_of_type(annotation: Annotation | None) -> str | None:
    """The class whose instances calling a value annotated ``annotation`` builds: ``C`` for ``type[C]`` and
    ``Type[C]`` (``optimizer_cls: Type[Optimizer] = Adam``; ``None`` default allowed), else ``None``."""
    members = [annotation] if annotation is None or annotation.name not in (_UNION, _OPTIONAL) else [
        member for member in annotation.args if member.name != _NONE]
    if len(members) != 1 or members[0] is None or members[0].name not in ("builtins.type", "typing.Type"):
        return None
    args = members[0].args
    return args[0].name if len(args) == 1 and not args[0].args else None


def is_type_alias(node: ast.expr, imports: ImportTable) -> bool:
    """Whether a module-level ``Name = <node>`` defines a type alias worth recording."""
    if isinstance(node, ast.Subscript):
        return (imports.resolve(dotted_name(node.value)) or "").startswith(("typing.", "builtins."))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return True
    return isinstance(node, (ast.Name, ast.Attribute)) and imports.resolve(dotted_name(node)) in TENSOR_TYPES


def value_type(annotation: Annotation | None, alias: Callable[[str], Annotation | None], depth: int = 0) -> ValueType:
    """What a value annotated ``annotation`` is; ``alias`` expands a qualified alias name (or ``None``)."""
    if annotation is None or annotation.name is None or depth > _MAX_ALIAS_DEPTH:
        return UNKNOWN_TYPE
    name, args = annotation.name, annotation.args
    if name in TENSOR_TYPES:
        return ValueType(Kind.TENSOR)
    if name in SCALAR_TYPES or name == _NONE:
        return ValueType(Kind.CONST)
    if name in (_UNION, _OPTIONAL):
        members = [value_type(a, alias, depth + 1) for a in args if a.name != _NONE]
        return _union(members)
    if name in _CONTAINERS and args:
        return ValueType(Kind.UNKNOWN, item=value_type(args[-1], alias, depth + 1).kind)
    if name in _TUPLES and args:
        if len(args) == 2 and args[1].name == _ELLIPSIS:
            return ValueType(Kind.UNKNOWN, item=value_type(args[0], alias, depth + 1).kind)
        return ValueType(Kind.UNKNOWN, elements=tuple(value_type(a, alias, depth + 1).kind for a in args))
    expanded = alias(name) if not args else None
    return value_type(expanded, alias, depth + 1) if expanded is not None else UNKNOWN_TYPE


def _union(members: list[ValueType]) -> ValueType:
    """``Optional[Tensor]`` is a tensor (its ``None`` is tested away); ``Union[Tensor, SparseTensor]`` probably."""
    kinds = {m.kind for m in members}
    if not kinds:
        return UNKNOWN_TYPE
    if kinds == {Kind.TENSOR}:
        return ValueType(Kind.TENSOR)
    if kinds & {Kind.TENSOR, Kind.LIKELY_TENSOR}:
        return ValueType(Kind.LIKELY_TENSOR)
    if kinds == {Kind.CONST}:
        return ValueType(Kind.CONST)
    if len(members) == 1:
        return members[0]  # ``Optional[Tuple[Tensor, Tensor]]``
    return UNKNOWN_TYPE
