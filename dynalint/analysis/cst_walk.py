"""LibCST tree traversal for the lint stage: the engine's walk and the rules' subtree questions share it.

``children`` reads a node's dataclass fields, skipping those that only hold layout (whitespace,
brackets, commas, operator tokens). It is several times cheaper than LibCST's ``CSTNode.children``,
which rebuilds a list of every field, layout included, on each call. ``descendants`` and
``names_read`` answer the questions rules ask of a subtree ("which calls are in this bound?", "does
this expression read ``n``?") with that same traversal, iteratively, so any nesting depth is fine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from functools import lru_cache

import libcst as cst

# Fields that only hold layout (whitespace, brackets, commas, operators' tokens): never walked.
_LAYOUT_FIELDS = frozenset(
    {"lpar", "rpar", "lbrace", "rbrace", "lbracket", "rbracket", "leading_lines", "lines_after_decorators",
     "header", "footer", "comma", "semicolon", "colon", "first_colon", "second_colon", "equal", "dot",
     "newline", "indent", "asynchronous", "empty_lines", "trailing_whitespace", "leading_whitespace",
     "trailing_comma", "separator", "comment", "posonly_ind", "operator", "relative", "star"}
)


@lru_cache(maxsize=None)
def _child_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    return tuple(
        f.name
        for f in dataclasses.fields(node_type)
        if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace")
    )


def subclass_test(*bases: type) -> Callable[[type], bool]:
    """``is_kind(type(value))``: whether values of a type derive from ``bases``, answered from a memo.

    LibCST's node classes are ABCs, whose ``isinstance`` runs a Python-level hook on every call; the
    walk and the value analysis ask of every node, so they ask once per type instead.
    """
    known: dict[type, bool] = {}

    def is_kind(value_type: type) -> bool:
        answer = known.get(value_type)
        if answer is None:
            answer = known[value_type] = issubclass(value_type, bases)
        return answer

    return is_kind


_is_node_type = subclass_test(cst.CSTNode)


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The node's children that hold code, in source order."""
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        value_type = type(value)
        if value_type is tuple or value_type is list:
            for item in value:
                if _is_node_type(type(item)):
                    yield item
        elif _is_node_type(value_type):
            yield value


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it that holds code, in source order (pre-order)."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(reversed(tuple(children(current))))


def names_read(node: cst.CSTNode) -> Iterator[str]:
    """The variable names an expression mentions: ``n`` in ``d.get(n, 0) + 1``, never ``get`` or a keyword."""
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.Name):
            yield current.value
        elif isinstance(current, cst.Attribute):
            pending.append(current.value)
        elif isinstance(current, cst.Arg):
            pending.append(current.value)
        else:
            pending.extend(children(current))


def is_super_call(node: cst.BaseExpression) -> bool:
    """``super()``, the receiver of ``super().forward(x)``: the call that names the next class of the MRO."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


def named_parameters(params: cst.Parameters) -> list[cst.Param]:
    """The parameters that have a name of their own: positional-only, positional and keyword-only (not ``*args``
    nor ``**kwargs``), in order."""
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def display_sources(target: cst.Tuple | cst.List, value: cst.BaseExpression | None
                    ) -> list[cst.BaseExpression | cst.StarredElement] | None:
    """What each element of an unpacking ``target`` gets from a tuple or list display ``value``, position by
    position. One starred item of the display (``batch, n, out = *prompt.shape, prompt.clone()``) stands for the
    targets between those the items before and after it take, each given as that ``StarredElement``. With a starred
    target, items are paired position by position where the counts match. ``None`` where the display does not line
    up, or ``value`` is no display."""
    if not isinstance(value, (cst.Tuple, cst.List)):
        return None
    items = list(value.elements)
    stars = [i for i, e in enumerate(items) if isinstance(e, cst.StarredElement)]
    if not stars or any(isinstance(e, cst.StarredElement) for e in target.elements):
        return [e.value for e in items] if len(items) == len(target.elements) else None
    if len(stars) > 1 or len(items) - 1 > len(target.elements):
        return None
    star = stars[0]
    spreading = items[star]
    assert isinstance(spreading, cst.StarredElement)
    before: list[cst.BaseExpression | cst.StarredElement] = [e.value for e in items[:star]]
    after: list[cst.BaseExpression | cst.StarredElement] = [e.value for e in items[star + 1:]]
    starred: list[cst.BaseExpression | cst.StarredElement] = [spreading] * (len(target.elements) - len(items) + 1)
    return [*before, *starred, *after]
