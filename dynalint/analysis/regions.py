"""Region provider for the lint stage: where am I, is it compiled, and why?

The engine walks one file's LibCST tree and calls ``LintContext.enter`` / ``leave`` around every node;
rules read ``context.region`` (``None`` outside compiled code), ``context.values`` (the value analysis
of the current function, kept in step with the walk by ``values/flow.py``) and the name helpers. Which functions are compiled is decided for the whole
tree by ``program.py``; this module only maps LibCST nodes onto those functions and adds the one
intra-function rule: code under ``if not torch.compiler.is_compiling():`` (or the ``else`` of
``if torch.compiler.is_compiling():``) is never traced, so it is not a region.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from dynalint.analysis.compile_guards import CST, Untraced, guard, statements_after_early_exit
from dynalint.analysis.program import Callee, Program
from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.summary import ModuleSummary
from dynalint.analysis.torch_facts import IS_COMPILING
from dynalint.analysis.values.flow import ValueFlow
from dynalint.analysis.values.lattice import Kind, ValueType
from dynalint.analysis.values.scope import ValueScope
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
        self._flow = ValueFlow()  # narrowing, branch joins, loop and comprehension bindings

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
        top = self._stack[-1]
        if type(node) is cst.ClassDef:
            qualname = _join(top.qualname, node.name.value)
            self._stack.append(_Frame("class", qualname, top.function, None, top.values))
        elif type(node) is cst.FunctionDef:
            self._enter_function(node, top)
        elif self._uncompiled_blocks and id(node) in self._uncompiled_blocks:
            self._stack.append(_Frame("block", top.qualname, top.function, None, top.values))
        if type(node) is cst.BooleanOperation and self.never_evaluated(node):
            self._uncompiled_blocks.add(id(node.right))
        if type(node) is cst.If:
            self._mark_uncompiled_branch(node)
        elif type(node) is cst.IndentedBlock or type(node) is cst.Module:
            after = statements_after_early_exit(node.body, self.is_compiling_check, CST)
            self._uncompiled_blocks.update(map(id, after))
        self._flow.enter(node, self.values)

    def leave(self, node: cst.CSTNode) -> None:
        self._flow.leave(node, self.values)
        if (type(node) is cst.ClassDef or type(node) is cst.FunctionDef
                or (self._uncompiled_blocks and id(node) in self._uncompiled_blocks)):
            self._stack.pop()
            return
        ValueFlow.bind(node, self.values)
        if type(node) is cst.Assign:
            for target in node.targets:
                if type(target.target) is cst.Name and self.is_compiling_check(node.value):
                    self._compiling_names.add(target.target.value)

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

    def _mark_uncompiled_branch(self, node: cst.If) -> None:
        untraced = guard(node.test, self.is_compiling_check, CST)
        if untraced is Untraced.BODY:
            self._uncompiled_blocks.add(id(node.body))
        elif untraced is Untraced.ELSE and node.orelse is not None:
            # ``else:`` holds a block; ``elif`` is a nested ``If`` that is untraced as a whole.
            orelse = node.orelse
            self._uncompiled_blocks.add(id(orelse.body if isinstance(orelse, cst.Else) else orelse))


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name
