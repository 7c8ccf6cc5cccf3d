"""Region provider for the lint stage: where am I, is it compiled, and why?

The engine walks one file's LibCST tree and calls ``LintContext.enter`` / ``leave`` around every node;
rules read ``context.region`` (``None`` outside compiled code), ``context.values`` (the value analysis
of the current function) and the name helpers. Which functions are compiled is decided for the whole
tree by ``program.py``; this module only maps LibCST nodes onto those functions and adds the one
intra-function rule: code under ``if not torch.compiler.is_compiling():`` (or the ``else`` of
``if torch.compiler.is_compiling():``) is never traced, so it is not a region.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from dynalint.analysis.compile_guards import CST, Untraced, guard, statements_after_early_exit
from dynalint.analysis.kinds import ValueType
from dynalint.analysis.program import Callee, Program
from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.summary import ModuleSummary
from dynalint.analysis.torch_facts import IS_COMPILING, PYTHON_TYPES, TENSOR_TYPES
from dynalint.analysis.values import Kind, ValueScope
from dynalint.model.dynamo_settings import CompileSettings, DynamoSettings
from dynalint.model.finding import Region


@dataclass(frozen=True)
class _Frame:
    kind: str  # "class" | "function" | "block"
    qualname: str  # the enclosing class or function, inside the module
    function: str | None  # module-qualified name of the innermost function, if any
    region: Region | None
    values: ValueScope


class LintContext:
    """Per-file state shared by every rule during one traversal."""

    def __init__(self, summary: ModuleSummary, program: Program) -> None:
        self.summary = summary
        self.program = program
        self.imports = summary.imports
        self._stack: list[_Frame] = [_Frame("module", "", None, None, ValueScope(summary.imports))]
        self._uncompiled_blocks: set[int] = set()
        self._compiling_names: set[str] = set()  # ``compiling = torch.compiler.is_compiling()``
        # ``if isinstance(x, float):`` -> inside that block ``x`` is of that kind (block id -> name, kind).
        self._narrowed: dict[int, tuple[str, Kind]] = {}
        self._saved: dict[int, Kind | None] = {}
        # ``if`` statements being walked: id -> (the bindings before it, those at the end of its body).
        self._branches: dict[int, tuple[dict[str, Kind], dict[str, Kind] | None]] = {}
        self._body_of: dict[int, int] = {}  # id of an ``if`` body -> id of its ``if``
        # Comprehensions being walked: id -> what their target names held outside them.
        self._comprehension_saved: dict[int, list[tuple[str, Kind | None, ValueType | None]]] = {}

    # -- what rules read ------------------------------------------------------------------------
    @property
    def region(self) -> Region | None:
        return self._stack[-1].region

    @property
    def settings(self) -> DynamoSettings:
        """The Dynamo settings in force for the current region (config, tree, compile site)."""
        region = self.region
        return self.program.settings.at_site(CompileSettings(fullgraph=bool(region and region.fullgraph)))

    @property
    def values(self) -> ValueScope:
        return self._stack[-1].values

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """Qualified name of a ``Name`` / ``Attribute`` chain, through the module's imports.

        Names bound locally in the current function (parameters, assignments) shadow imports.
        """
        return self.values.resolve(node)

    def resolve_call(self, func: cst.BaseExpression) -> Callee | None:
        """The function in the tree that a call's ``func`` expression reaches, if known."""
        dotted = dotted_name(func)
        function = self._stack[-1].function
        if dotted is None or function is None:
            return None
        return self.program.resolve_call(function, dotted)

    def kind(self, node: cst.BaseExpression) -> Kind:
        return self.values.kind(node)

    def is_compiling_check(self, node: cst.BaseExpression) -> bool:
        """``torch.compiler.is_compiling()``, a name assigned from it, or a call of a function of the tree
        that returns it: ``True`` whenever Dynamo traces."""
        if isinstance(node, cst.Name) and node.value in self._compiling_names:
            return True
        if not isinstance(node, cst.Call):
            return False
        if self.resolve(node.func) in IS_COMPILING:
            return True
        dotted, function = dotted_name(node.func), self._stack[-1].function
        return bool(dotted and function and self.program.is_compile_guard(function, dotted))

    def never_evaluated(self, node: cst.BooleanOperation) -> bool:
        """Whether the right operand is skipped whenever Dynamo traces: ``not is_compiling() and X``,
        ``is_compiling() or X``."""
        left = guard(node.left, self.is_compiling_check, CST)
        return left is (Untraced.BODY if isinstance(node.operator, cst.And) else Untraced.ELSE)

    def enter_scope(self, qualname: str, summary: ModuleSummary) -> None:
        """Stand inside the classes and functions enclosing ``qualname`` (a function about to be walked)."""
        parts = qualname.split(".")[:-1]
        for index in range(len(parts)):
            enclosing = ".".join(parts[: index + 1])
            top = self._stack[-1]
            kind = "class" if enclosing in summary.classes else "function"
            values = top.values if kind == "class" else ValueScope(self.imports)
            self._stack.append(_Frame(kind, enclosing, top.function if kind == "class" else
                                      summary.qualify(enclosing), None, values))

    def leave_scope(self) -> None:
        del self._stack[1:]

    # -- what the engine drives -----------------------------------------------------------------
    def enter(self, node: cst.CSTNode) -> None:
        # Called for every node: exact type tests (LibCST's node classes are ABCs, whose ``isinstance``
        # runs a Python-level hook, and none of these is subclassed), and the id lookups only when
        # their tables hold anything.
        node_type = type(node)
        top = self._stack[-1]
        if node_type is cst.ClassDef:
            qualname = _join(top.qualname, node.name.value)
            self._stack.append(_Frame("class", qualname, top.function, None, top.values))
        elif node_type is cst.FunctionDef:
            self._enter_function(node, top)
        elif self._uncompiled_blocks and id(node) in self._uncompiled_blocks:
            self._stack.append(_Frame("block", top.qualname, top.function, None, top.values))
        if node_type is cst.BooleanOperation and self.never_evaluated(node):
            self._uncompiled_blocks.add(id(node.right))
        if self._narrowed and id(node) in self._narrowed:
            name, kind = self._narrowed[id(node)]
            self._saved[id(node)] = self.values.env.get(name)
            self.values.env[name] = kind
        if node_type is cst.If:
            self._mark_uncompiled_branch(node)
            self._narrow(node)
            self._branches[id(node)] = (dict(self.values.env), None)
            self._body_of[id(node.body)] = id(node)
        elif node_type is cst.IndentedBlock or node_type is cst.Module:
            after = statements_after_early_exit(node.body, self.is_compiling_check, CST)
            self._uncompiled_blocks.update(map(id, after))
        elif node_type is cst.For:
            self.values.bind_loop_target(node.target, node.iter)
        elif node_type in _COMPREHENSIONS:
            self._enter_comprehension(node)

    def leave(self, node: cst.CSTNode) -> None:
        node_type = type(node)
        if node_type in _COMPREHENSIONS:
            self._leave_comprehension(node)
        if self._narrowed and id(node) in self._narrowed:
            name, _ = self._narrowed.pop(id(node))
            _put_back(self.values.env, name, self._saved.pop(id(node)))
        if self._body_of and id(node) in self._body_of:
            self._end_of_body(self._body_of.pop(id(node)))
        elif node_type is cst.If and id(node) in self._branches:
            self._join_branches(self._branches.pop(id(node)))
            self._narrow_after_exit(node)
        if (node_type is cst.ClassDef or node_type is cst.FunctionDef
                or (self._uncompiled_blocks and id(node) in self._uncompiled_blocks)):
            self._stack.pop()
        elif node_type is cst.Assign:
            for target in node.targets:
                self.values.bind(target.target, node.value)
                if type(target.target) is cst.Name and self.is_compiling_check(node.value):
                    self._compiling_names.add(target.target.value)
        elif node_type is cst.AnnAssign:
            if node.value is not None:
                self.values.bind(node.target, node.value)
        elif node_type is cst.AugAssign:
            if type(node.target) is cst.Name:
                combined = max(self.values.kind(node.target), self.values.kind(node.value))
                self.values.bind(node.target, None, combined)
        elif node_type is cst.NamedExpr:
            self.values.bind(node.target, node.value)
        elif node_type is cst.WithItem and node.asname is not None:
            self.values.bind(node.asname.name, None, Kind.UNKNOWN)
        elif node_type is cst.Call:
            self.values.record_append(node)

    def _enter_comprehension(self, node: cst.BaseComp) -> None:
        """Bind every ``for`` target of the comprehension before its element is walked (LibCST holds the
        element first), each from what its ``for`` iterates; the names are the comprehension's own, so
        what they held outside is kept to be put back when it ends."""
        values = self.values
        saved: list[tuple[str, Kind | None, ValueType | None]] = []
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            for name in _target_names(clause.target):
                saved.append((name, values.env.get(name), values.structures.get(name)))
            values.bind_loop_target(clause.target, clause.iter)
            clause = clause.inner_for_in
        self._comprehension_saved[id(node)] = saved

    def _leave_comprehension(self, node: cst.BaseComp) -> None:
        values = self.values
        for name, kind, structure in reversed(self._comprehension_saved.pop(id(node), [])):
            _put_back(values.env, name, kind)
            _put_back(values.structures, name, structure)

    def _end_of_body(self, statement: int) -> None:
        """The ``if`` body is done: keep what it bound, and walk the ``else`` from the bindings before the ``if``."""
        before, _ = self._branches[statement]
        self._branches[statement] = (before, dict(self.values.env))
        self.values.env.clear()
        self.values.env.update(before)

    def _join_branches(self, branches: tuple[dict[str, Kind], dict[str, Kind] | None]) -> None:
        """After an ``if``, a name holds what either branch bound: the larger kind (a tensor on one path is a tensor)."""
        _, body = branches
        if body is None:
            return
        other = self.values.env
        joined = {name: max(body.get(name, other.get(name, Kind.UNKNOWN)), other.get(name, body.get(name, Kind.UNKNOWN)))
                  for name in {*body, *other}}
        other.clear()
        other.update(joined)

    def _enter_function(self, node: cst.FunctionDef, top: _Frame) -> None:
        qualname = _join(top.qualname, node.name.value)
        qualified = self.summary.qualify(qualname)
        is_method = top.kind == "class"
        class_qualified = self.summary.qualify(top.qualname) if is_method else None
        tensor_attrs, layer_attrs = self._class_attributes(class_qualified) if class_qualified else (set(), set())
        parent_values = top.values if top.kind in ("function", "block") else None
        values = ValueScope.for_function(
            node, self.imports, is_method, frozenset(tensor_attrs), frozenset(layer_attrs), parent_values,
            self._call_type, self.program.parameter_types(qualified),
        )
        # A ``def`` nested in uncompiled code stays uncompiled; otherwise the program decides.
        region = None if top.kind == "block" and top.region is None else self.program.region_of(qualified)
        self._stack.append(_Frame("function", qualname, qualified, region, values))

    def _call_type(self, node: cst.Call) -> ValueType | None:
        """What a call of a function *in the linted tree* returns, from its summary; ``None`` otherwise.

        The tree's own summary wins over the ``torch.*`` tables: linting torch itself, a call of
        ``torch.nn.functional._mha_shape_check`` is a call of a function we have read, not an op.
        """
        dotted = dotted_name(node.func)
        function = self._stack[-1].function
        if dotted is None or function is None:
            return None
        return self.program.call_type(function, dotted)

    def _class_attributes(self, class_qualified: str) -> tuple[set[str], set[str]]:
        """``self.<attr>`` names that hold parameters or buffers, and those that hold ``torch.nn`` layers."""
        held = self.program.attribute_types(class_qualified)
        return {a for a, t in held.items() if t.is_tensor}, {a for a, t in held.items() if t.is_torch_layer}

    def _isinstance_test(self, test: cst.BaseExpression) -> tuple[cst.Name, set[str | None]] | None:
        """``isinstance(name, T)`` / ``isinstance(name, (T, U))``: the name and the qualified types."""
        if not (isinstance(test, cst.Call) and self.resolve(test.func) == "builtins.isinstance" and len(test.args) == 2):
            return None
        subject, types = test.args[0].value, test.args[1].value
        if not isinstance(subject, cst.Name):
            return None
        named = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
        return subject, {self.resolve(t) for t in named}

    def _narrow_after_exit(self, node: cst.If) -> None:
        """After ``if isinstance(x, torch.Tensor): ... return`` (no ``else``), ``x`` is not a tensor."""
        tested = self._isinstance_test(node.test) if node.orelse is None and CST.body_exits(node) else None
        if tested is None:
            return
        subject, resolved = tested
        if resolved <= TENSOR_TYPES and self.values.env.get(subject.value, Kind.UNKNOWN).is_tensor_like:
            self.values.bind(subject, None, Kind.UNKNOWN)

    def _narrow(self, node: cst.If) -> None:
        tested = self._isinstance_test(node.test)
        if tested is None:
            return
        subject, resolved = tested
        if resolved <= TENSOR_TYPES:
            # A shape value (``embed_dim`` from ``x.shape``) is a tensor only under tracing by TorchScript
            # or ``torch.fx``; under Dynamo that block is dead, and its bindings must not make sizes tensors.
            if self.values.env.get(subject.value) is not Kind.META:
                self._narrowed[id(node.body)] = (subject.value, Kind.TENSOR)
        elif resolved <= PYTHON_TYPES:
            self._narrowed[id(node.body)] = (subject.value, Kind.CONST)

    def _mark_uncompiled_branch(self, node: cst.If) -> None:
        untraced = guard(node.test, self.is_compiling_check, CST)
        if untraced is Untraced.BODY:
            self._uncompiled_blocks.add(id(node.body))
        elif untraced is Untraced.ELSE and node.orelse is not None:
            # ``else:`` holds a block; ``elif`` is a nested ``If`` that is untraced as a whole.
            orelse = node.orelse
            self._uncompiled_blocks.add(id(orelse.body if isinstance(orelse, cst.Else) else orelse))


_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})


def _put_back(table: dict[str, Any], name: str, previous: Any) -> None:
    """Restore what ``name`` held in ``table`` before a block or comprehension (``None``: it held nothing)."""
    if previous is None:
        table.pop(name, None)
    else:
        table[name] = previous


def _target_names(target: cst.BaseExpression) -> list[str]:
    """The names a ``for`` target binds: ``i``, ``(offset, n)``, ``[a, *rest]``."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    return []  # ``self.x`` or ``d[k]``: nothing the value analysis binds


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name
