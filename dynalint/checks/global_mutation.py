"""DYN402 ``global-mutation``: compiled code that updates module-level state it depends on. Page: ``rules/DYN402-global-mutation.md``.

Measured on torch 2.13, 12 calls each: Dynamo guards on the Python values a frame reads from module
globals (``G['_STEP'] == 3``, ``G['_STATS']['calls'] == 3``, the length of a global list), so a
compiled function that changes one of them fails its own guard on the next call: 8 graphs, then
``recompile_limit`` (8) and eager from then on. That holds for ``global n; n += 1``, for
``d[k] += 1`` / ``d[k] = d.get(k, 0) + 1`` on a module-level dict, and for ``append`` / ``extend`` /
``insert`` on a module-level list, even of tensors (the guard is on the list's length).

Not flagged, because they do not recompile: rebinding a global without reading it (``global last;
last = y``: 1 graph), updating a global *tensor* (``total += x``: 1 graph), storing under a constant key
(``d["last"] = y``: 2 graphs, then stable), and module state read but changed only outside.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import names_read
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

GROWING = frozenset({"append", "extend", "insert"})
# What a module-level container may be built by and still be a plain list or dict Dynamo guards on.
CONTAINERS = frozenset(
    {"builtins.list", "builtins.dict", "collections.defaultdict", "collections.OrderedDict", "collections.Counter"}
)


class GlobalMutation(Rule):
    code = "DYN402"
    name = "global-mutation"
    message = "{what} in compiled code changes a value Dynamo guards on: every call recompiles until the recompile limit leaves the function running eagerly"
    help = "Keep the state outside the compiled function (update it from the returned values), or keep it in a tensor"
    hazard = "recompile"

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._globals: list[set[str]] = []  # names declared ``global``, per enclosing function

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._globals.append(set())

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._globals.pop()

    def visit_Global(self, node: cst.Global) -> None:
        if self._globals:
            self._globals[-1].update(item.name.value for item in node.names)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._update(node, node.target, node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            root = _root(target.target)
            if root is not None and _reads(node.value, root):
                self._update(node, target.target, node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in GROWING:
            return
        root = _root(func.value)
        if root is not None and self._module_level(root) and self._plain_container(root):
            self.report(node, what=f"Growing module-level list `{root}`")

    def _update(self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        kind = self.context.kind(value)
        if kind.is_tensor_like or kind is Kind.INPUT:
            return  # the state becomes (or stays) a tensor: guarded on metadata, not on its value
        confidence = Confidence.CERTAIN if kind is Kind.CONST else Confidence.LIKELY
        if isinstance(target, cst.Name) and self._declared_global(target.value) and not self._tensor_global(target.value):
            self.report(node, confidence=confidence, what=f"Updating module global `{target.value}`")
        elif isinstance(target, cst.Subscript):
            root = _root(target)
            if root is not None and self._module_level(root) and self._plain_container(root):
                self.report(node, confidence=confidence, what=f"Updating an item of module-level `{root}`")

    def _declared_global(self, name: str) -> bool:
        return bool(self._globals) and name in self._globals[-1]

    def _module_level(self, name: str) -> bool:
        """A name bound at module level and not shadowed by a local of the current function."""
        if self._declared_global(name):
            return True
        return name in self.context.imports.local_names and name not in self.context.values.env \
            and name not in self.context.summary.functions and name not in self.context.summary.classes

    def _built_by(self, name: str) -> str | None:
        written = self.context.summary.module_types.get(name)
        return None if written is None else (self.context.imports.resolve(written) or written)

    def _plain_container(self, name: str) -> bool:
        built = self._built_by(name)
        return built is None or built in CONTAINERS  # ``None``: a literal (``[]``, ``{}``) or a constant

    def _tensor_global(self, name: str) -> bool:
        built = self._built_by(name)
        return built is not None and built.startswith("torch.")


def _root(node: cst.BaseExpression) -> str | None:
    """The name a target or receiver hangs from: ``stats`` for ``stats["a"]["b"]`` or ``stats.setdefault(k, [])``."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None


def _reads(node: cst.CSTNode, name: str) -> bool:
    """Whether the expression mentions ``name`` (``n + 1``, ``d.get(k, 0) + 1``)."""
    return name in names_read(node)
