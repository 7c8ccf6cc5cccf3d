"""Qualified names from a module's import table, for both the summary and the lint stage.

LibCST's ``QualifiedNameProvider`` needs a full scope analysis of every file, the largest single cost
of a LibCST linter. Graph-break rules only ask "is this ``torch.compile`` / ``logging.info`` /
``torch.distributed.all_reduce``?", which the module's imports answer: ``ImportTable`` is built once per
file by the summary stage (from ``ast``) and rules resolve dotted expressions against it.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

BUILTIN_NAMES = frozenset(dir(builtins))



def names_a_class(dotted: str | None) -> bool:
    """``Model`` / ``models.Model``: a capitalised last name is taken for a class (PEP 8), a private one too
    (``_ResultCollection``, ``_BatchNorm``)."""
    return bool(dotted and dotted.split(".")[-1].lstrip("_")[:1].isupper())

@dataclass
class ImportTable:
    """Module-level bindings: ``alias -> qualified name`` for imports, plus locally defined names."""

    module: str = ""
    aliases: dict[str, str] = field(default_factory=dict)
    local_names: set[str] = field(default_factory=set)
    # Renamings bound in one branch of a ``try`` / ``if`` whose other branch binds the name otherwise
    # (``einsum`` = opt_einsum's ``contract`` where installed, else ``torch.einsum``): what runs depends on
    # the environment.
    optional: set[str] = field(default_factory=set)
    # The modules ``from module import *`` binds every public name of (``tntorch/__init__.py``'s ``from .round
    # import *``): what ``import tntorch as tn`` then ``tn.truncated_svd`` reaches (``Program.canonical``).
    star_imports: list[str] = field(default_factory=list)

    def resolve(self, dotted: str | None) -> str | None:
        """Qualify ``dotted`` (``nn.functional.relu`` -> ``torch.nn.functional.relu``).

        Names bound by an import are expanded; names defined in the module get the module's prefix;
        unbound builtins become ``builtins.X``; anything else (locals, parameters) is ``None``.
        """
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            base = self.aliases[head]
        elif head in self.local_names:
            base = f"{self.module}.{head}" if self.module else head
        elif head in BUILTIN_NAMES:
            base = f"builtins.{head}"
        else:
            return None
        return f"{base}.{rest}" if rest else base


_LIBCST_NAME_TYPES: tuple[type[cst.Name], type[cst.Attribute]] | None = None  # once the lint stage asks


def _libcst_name_types() -> tuple[type[cst.Name], type[cst.Attribute]]:
    global _LIBCST_NAME_TYPES
    import libcst as cst  # loaded already: a LibCST node came from it

    _LIBCST_NAME_TYPES = (cst.Name, cst.Attribute)
    return _LIBCST_NAME_TYPES


def dotted_name(node: cst.BaseExpression | ast.expr) -> str | None:
    """``a.b.c`` for a chain of ``Name`` / ``Attribute`` nodes of either tree (LibCST or ``ast``), else ``None``."""
    # Exact type tests: both stages ask this of most expressions, and LibCST's node classes are ABCs,
    # whose ``isinstance`` goes through a Python-level hook (neither tree subclasses these node types).
    if type(node) is ast.Name:
        return node.id
    parts: list[str] = []
    if type(node) is ast.Attribute:  # the summary stage: no LibCST needed, nor imported
        while type(node) is ast.Attribute:
            parts.append(node.attr)
            node = node.value
        if type(node) is not ast.Name:
            return None
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.AST) or node is None:
        return None
    name_type, attribute_type = _LIBCST_NAME_TYPES or _libcst_name_types()
    if type(node) is name_type:
        return node.value
    if type(node) is not attribute_type:
        return None
    while type(node) is attribute_type:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not name_type:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def absolute_module(current: str, level: int, target: str | None, is_package: bool) -> str:
    """Resolve ``from ..x import y``'s module part against the importing module's dotted name."""
    if level == 0:
        return target or ""
    parts = current.split(".") if current else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    if target:
        parts.append(target)
    return ".".join(parts)
