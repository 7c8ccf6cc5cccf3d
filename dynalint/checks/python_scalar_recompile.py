"""DYN401 ``python-scalar-recompile``: a Python number argument whose every value compiles a new graph. Page: ``rules/DYN401-python-scalar-recompile.md``.

Measured on torch 2.13, an ``int`` / ``float`` parameter of the compiled function called with 10
distinct values:

- Most uses cost one recompile: Dynamo first specialises the value and on the first change retraces
  with it symbolic ("automatic dynamic"), 2 graphs whatever the count, for slice bounds, arithmetic,
  ``view`` / ``reshape`` sizes, ``torch.arange`` / factories, ``topk`` and ``F.pad``. Not flagged.
- Some uses need the exact value even so and compile one graph per value, 8 graphs and then
  ``recompile_limit`` and eager: the length of a ``range()`` (the loop is unrolled), an index or slice
  bound of an ``nn.ModuleList`` / ``nn.Sequential`` (``self.layers[:depth]``), a list repetition count
  (``[x] * n``) and the chunk count or split size of ``chunk`` / ``split`` (the number of outputs).
  Flagged.
- ``dynamic=False`` at the compile site turns automatic dynamic off, so any guarded use compiles one
  graph per value. Not flagged: it is what ``dynamic=False`` asks for, and arguments such as a sampling
  temperature usually keep one value for a whole run (one graph).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants, named_parameters, names_read
from dynalint.analysis.instances import holds_module_container
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

NUMBER_TYPES = {"builtins.int": "int", "builtins.float": "float"}
SPLITTING_METHODS = frozenset({"chunk", "split", "tensor_split"})
SPLITTING_FUNCTIONS = frozenset({"torch.chunk", "torch.split", "torch.tensor_split"})
OUTPUT_COUNT = "the chunk count or split size"


class PythonScalarRecompile(Rule):
    code = "DYN401"
    name = "python-scalar-recompile"
    message = "Python {type} argument `{param}` used as {use}: every distinct value compiles a new graph, and past the recompile limit the function runs eagerly"
    help = "Keep the loop, the layer choice or the split outside the compiled function, or compile the repeated part only"
    hazard = "recompile"

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._depth = 0
        self._scalars: dict[str, tuple[str, Confidence]] = {}  # parameter -> (type, confidence)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1
        if self._depth == 1:
            self._scalars = self._entry_scalars(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._scalars = {}

    # -- uses that need the exact value, automatic dynamic shapes or not ------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if not self._scalars:
            return
        resolved = self.context.resolve(node.func)
        if resolved == "builtins.range":
            self._report_args(node.args, "the length of a `range()`", node)
        elif resolved in SPLITTING_FUNCTIONS:
            self._report_args(node.args[1:2], OUTPUT_COUNT, node)
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in SPLITTING_METHODS \
                and self.context.kind(node.func.value).is_tensor_like:
            self._report_args(node.args[:1], OUTPUT_COUNT, node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not self._scalars or not isinstance(node.operator, cst.Multiply):
            return
        for sequence, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(sequence, (cst.List, cst.Tuple)):
                self._report_mentions(count, "a list repetition count", node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self._scalars:
            return
        value = node.value
        if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and value.value.value == "self" \
                and holds_module_container(self.context, value.attr.value):
            for element in node.slice:
                if isinstance(element.slice, cst.Index) and isinstance(element.slice.value, cst.BaseString):
                    continue  # ``self.heads[f"{size}"]``: a key per configured size, not per step
                self._report_mentions(element, "an index into a module container", node)

    # -- helpers ---------------------------------------------------------------------------------
    def _report_args(self, args: Sequence[cst.Arg], use: str, node: cst.CSTNode) -> None:
        for arg in args:
            if use == OUTPUT_COUNT and isinstance(arg.value, (cst.List, cst.Tuple)):
                continue  # ``split([n, 16 - n])``: a fixed number of outputs, sizes stay symbolic (2 graphs)
            self._report_mentions(arg.value, use, node)

    def _report_mentions(self, expr: cst.CSTNode, use: str, node: cst.CSTNode) -> None:
        for name in sorted(_mentioned(expr) & set(self._scalars)):
            self._report(node, name, use)
            return

    def _report(self, node: cst.CSTNode, name: str, use: str) -> None:
        kind, confidence = self._scalars[name]
        self.report(node, confidence=confidence, type=kind, param=name, use=use)

    def _entry_scalars(self, node: cst.FunctionDef) -> dict[str, tuple[str, Confidence]]:
        """The ``int`` / ``float`` parameters of the compiled entry function, if ``node`` is one."""
        region = self.context.region
        if region is None or not region.entry or self.context.summary.qualify(region.function) != region.entry:
            return {}
        params = named_parameters(node.params)
        scalars = {}
        for param in params:
            name = param.name.value
            if param.annotation is not None:
                kind = NUMBER_TYPES.get(self.context.resolve(param.annotation.annotation) or "")
                if kind:
                    scalars[name] = (kind, Confidence.CERTAIN)
            elif isinstance(param.default, cst.Integer):
                scalars[name] = ("int", Confidence.LIKELY)
            elif isinstance(param.default, cst.Float):
                scalars[name] = ("float", Confidence.LIKELY)
        if not scalars:  # the body's bindings are read only when some parameter could be a scalar
            return scalars
        rebound = _assigned(node.body)
        return {name: scalar for name, scalar in scalars.items() if name not in rebound}


def _mentioned(node: cst.CSTNode) -> set[str]:
    return set(names_read(node))


def _assigned(node: cst.CSTNode) -> set[str]:
    """Names bound by assignments, ``for`` targets and ``with ... as`` anywhere under ``node``."""
    found: set[str] = set()
    targets: list[cst.CSTNode] = []
    for child in descendants(node):
        if isinstance(child, cst.AssignTarget):
            targets.append(child.target)
        elif isinstance(child, (cst.AugAssign, cst.AnnAssign)):
            targets.append(child.target)
        elif isinstance(child, (cst.For, cst.CompFor)):
            targets.append(child.target)
        elif isinstance(child, cst.NamedExpr):
            targets.append(child.target)
    for target in targets:
        found |= {n.value for n in descendants(target) if isinstance(n, cst.Name)}
    return found

