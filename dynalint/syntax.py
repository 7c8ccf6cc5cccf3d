"""LibCST tree traversal for the lint stage: the engine's walk and the rules' subtree questions share it.

``children`` reads a node's dataclass fields, skipping those that only hold layout (whitespace,
brackets, commas, operator tokens). It is several times cheaper than LibCST's ``CSTNode.children``,
which rebuilds a list of every field, layout included, on each call. ``descendants`` and
``names_read`` answer the questions rules ask of a subtree ("which calls are in this bound?", "does
this expression read ``n``?") with that same traversal, iteratively, so any nesting depth is fine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
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


def _is_node_type(value_type: type) -> bool:
    """Whether values of this type are LibCST nodes: one dict lookup per type instead of an ABC
    ``isinstance`` (LibCST's node classes are ABCs, whose check runs a Python-level hook) per value."""
    known = _NODE_TYPES.get(value_type)
    if known is None:
        known = _NODE_TYPES[value_type] = issubclass(value_type, cst.CSTNode)
    return known


_NODE_TYPES: dict[type, bool] = {tuple: False, list: False, str: False, type(None): False}


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
