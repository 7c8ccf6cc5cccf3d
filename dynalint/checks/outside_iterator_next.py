"""DYN520 ``outside-iterator-next``: ``next()`` of an iterator that was made before compiled code started.

Page: ``rules/DYN520-outside-iterator-next.md``. Measured on torch 2.13: Dynamo can advance an iterator it saw
being made (``it = iter(xs)``, a generator function called, ``self.parameters()``), also when a caller it inlined
made it. An iterator that comes from outside the traced code, a generator or ``iter()`` object kept on an
attribute (``next(self.batches)``, ``next(sampler.points)``, ``next(self.iterators[key])``), held by a module-level
name, or passed in as an argument, it cannot represent: ``next()`` of it breaks at the call ("Missing
tp_iternext", GB4347; GB0008 for a data loader's iterator), with or without a default. An attribute the function
itself assigned before the call holds an iterator made in the trace, and is left alone.

A parameter may be an iterator its caller made in the same compiled code (then it traces): ``likely``. So is a
name the function closes over. An attribute, an item of one, or a module-level name: ``certain``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import named_parameters
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


class OutsideIteratorNext(Rule):
    code = "DYN520"
    name = "outside-iterator-next"
    message = "`next({iterator})` advances an iterator made outside the compiled code, which Dynamo cannot trace"
    help = ("Take the item outside the compiled function and pass it in, or make the iterator inside it "
            "(`it = iter(items)`)")
    gb_ids = ("GB4347", "GB0008")

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._functions: list[cst.FunctionDef] = []
        self._scans: dict[int, _Bindings] = {}  # id of a function -> what it binds, scanned at its first ``next()``
        # Per function: local -> the attribute or item it aliases (``it = self.batches``), or ``None``; and the
        # attribute or item targets assigned so far. Nodes, written out only at a ``next()`` (most functions have none).
        self._assigned: list[dict[str, cst.BaseExpression | None]] = []
        self._set_attributes: list[list[cst.BaseExpression]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)
        self._assigned.append({})
        self._set_attributes.append([])

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()
        self._assigned.pop()
        self._set_attributes.pop()
        self._scans.pop(id(original_node), None)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self._functions:
            return
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                value = node.value
                outside = isinstance(value, (cst.Attribute, cst.Subscript)) and _held(value)
                self._assigned[-1][target.target.value] = value if outside else None
            elif isinstance(target.target, (cst.Attribute, cst.Subscript)):
                self._set_attributes[-1].append(target.target)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value == "next") or not self._functions or not node.args:
            return  # the name first: resolving every call of compiled code costs (farm-bench on diffusers)
        if self.context.region is None or node.args[0].keyword is not None:
            return
        if self.context.resolve(func) != "builtins.next":
            return
        argument = node.args[0].value
        confidence = self._outside(argument)
        if confidence is not None:
            self.report(node, confidence=None if confidence is Confidence.CERTAIN else confidence,
                        iterator=_code(argument))

    def _outside(self, argument: cst.BaseExpression) -> Confidence | None:
        """How sure it is that ``argument`` holds an iterator made outside the compiled code; ``None`` when it was
        made here, or may have been."""
        if isinstance(argument, (cst.Attribute, cst.Subscript)):
            if not _held(argument) or self._assigned_before(argument):
                return None
            head = _head(argument)
            if head in self._bindings().bound and self._assigned[-1].get(head) is None:
                return None  # ``sampler = Sampler(...)`` then ``next(sampler.points)``: made in the trace
            return Confidence.CERTAIN
        if not isinstance(argument, cst.Name):
            return None  # ``next(iter(xs))``, ``next(self.parameters())``: made here
        name = argument.value
        aliased = self._assigned[-1].get(name)
        if aliased is not None:  # ``it = self.batches``: as the attribute
            return None if self._assigned_before(aliased) else Confidence.CERTAIN
        bindings = self._bindings()
        if name in bindings.parameters and name not in bindings.bound:
            return Confidence.LIKELY  # its caller may have made it in the same compiled code
        if name in bindings.declared_global:
            return Confidence.CERTAIN
        if name in bindings.bound:
            return None  # a local made here (``it = iter(xs)``), or bound in a way this rule does not follow
        if name in self.context.values.closure:
            return Confidence.LIKELY
        return Confidence.CERTAIN if name in _module_names(self.context) else None

    def _assigned_before(self, held: cst.BaseExpression) -> bool:
        """Whether the function assigned ``held`` (or what it is an item or attribute of) before this point."""
        written = _code(held)
        return any(written.startswith(_code(target)) for target in self._set_attributes[-1])

    def _bindings(self) -> _Bindings:
        function = self._functions[-1]
        scan = self._scans.get(id(function))
        if scan is None:
            scan = self._scans[id(function)] = _Bindings(function)
        return scan


class _Bindings(cst.CSTVisitor):
    """The names a function binds in its own scope (any statement, a loop or comprehension target included), its
    parameters, and those it declares ``global``."""

    def __init__(self, function: cst.FunctionDef) -> None:
        super().__init__()
        self.parameters = {param.name.value for param in named_parameters(function.params)}
        self.bound: set[str] = set()
        self.declared_global: set[str] = set()
        function.body.visit(self)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.bound.add(node.name.value)
        return False  # a nested function's names are its own

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bound.add(node.name.value)
        return False

    def visit_Global(self, node: cst.Global) -> None:
        self.declared_global.update(item.name.value for item in node.names)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            self.bound.add(_code(node.name).split(".")[0])

    def _bind(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bound.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)


def _head(node: cst.BaseExpression) -> str:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


def _held(node: cst.BaseExpression) -> bool:
    """An attribute chain or an item of one, on a name (``self.batches``, ``state[ITERATOR]``): a value kept
    somewhere, not one a call or an operation makes (``make().it``)."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return isinstance(node, cst.Name)


def _module_names(context: LintContext) -> frozenset[str]:
    """The names the module binds at its top level that a summary records as variables."""
    return frozenset(context.summary.module_types) | frozenset(context.summary.registries)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)
