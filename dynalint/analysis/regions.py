"""Region provider for the lint stage: where am I, is it compiled, and why?

The engine walks one file's LibCST tree and calls ``LintContext.enter`` / ``leave`` around every node;
rules read ``context.region`` (``None`` outside compiled code), ``context.values`` (the value analysis
of the current function, kept in step with the walk by ``values/flow.py``) and the name helpers. Which functions are compiled is decided for the whole
tree by ``program.py``; this module only maps LibCST nodes onto those functions and adds the one
intra-function rule: code under ``if not torch.compiler.is_compiling():`` (or the ``else`` of
``if torch.compiler.is_compiling():``) is never traced, so it is not a region.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from dynalint.analysis.compile_guards import CST, Untraced, guard, statements_after_early_exit
from dynalint.analysis.loop_exits import returns_before_backedge
from dynalint.analysis.program import Callee, Program
from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.summary import ModuleSummary
from dynalint.analysis.torch_facts import IS_COMPILING
from dynalint.analysis.type_hints import Annotation, classes_named
from dynalint.analysis.values.flow import ValueFlow, isinstance_test
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
        # Names bound to a test whose value Dynamo knows while tracing: ``compiling = is_compiling()`` (True),
        # ``eager = not is_compiling()`` (False), and combinations holding a guard.
        self._guard_names: dict[str, bool] = {}
        self._flow = ValueFlow()  # narrowing, branch joins, loop and comprehension bindings
        # Parts of the code the walk counts its depth in, per function (node id -> _SKIPS_FRAME and/or
        # _CONDITIONAL): where a graph break makes Dynamo give up the whole frame (a loop's body, a
        # ``try``), and code that runs only on some paths (an ``if``'s branches, a conditional
        # expression's arms, the right operand of ``and``/``or``). One lookup per node.
        self._parts: dict[int, int] = {}
        # Node id -> whether it is free of side effects (``lint/rewrites.is_pure``), for this parsed function.
        self.pure: dict[int, bool] = {}
        self._depth: dict[tuple[str | None, int], int] = {}  # (function, part kind) -> how deep
        # Node id -> whether Dynamo's scan for a loop from a break there meets a ``return`` first, for the nodes of
        # each loop's body (its innermost loop's answer): such a break resumes, it does not give up the frame.
        self._returns_first: dict[int, bool] = {}

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

    def module_level_name(self, func: cst.BaseExpression) -> str | None:
        """A callee written as a dotted name whose head is not a local of the function (``Fn.apply``,
        ``mod.Site``): what the program looks up in the module's own table. ``None`` for anything else."""
        dotted = dotted_name(func)
        return None if dotted is None or dotted.split(".")[0] in self.values.env else dotted

    def resolve_call(self, func: cst.BaseExpression) -> Callee | None:
        """The function in the tree that a call's ``func`` expression reaches, if known."""
        dotted = dotted_name(func)
        function = self._stack[-1].function
        if dotted is None or function is None:
            return None
        return self.program.resolve_call(function, dotted)

    def kind(self, node: cst.BaseExpression) -> Kind:
        return self.values.kind(node)

    @property
    def current_function(self) -> str | None:
        """The module-qualified name of the innermost function being walked (``None`` at module level)."""
        return self._stack[-1].function

    @property
    def is_entry_point(self) -> bool:
        """Whether the current function is where compiling starts (its callers are outside the tree)."""
        function, region = self._stack[-1].function, self.region
        return function is not None and region is not None and region.entry == function

    def annotation(self, parameter: str) -> Annotation | None:
        """What ``parameter`` is annotated with (names qualified), as a parameter of the current function, else of
        the innermost enclosing function that has it as a parameter, where the current function does not bind it
        itself (a closure such as ignite's ``update`` inside ``supervised_training_step``)."""
        functions = [frame.function for frame in self._stack if frame.kind == "function" and frame.function is not None]
        for depth, function in enumerate(reversed(functions)):
            entry = self.program.functions.get(function)
            if entry is None:
                return None
            if parameter in entry.definition.annotations:
                return entry.definition.annotations[parameter]
            if depth == 0 and parameter in self.values.env and parameter not in self.values.closure:
                return None  # a local (or unannotated parameter) of the current function shadows the closure
            if parameter in {param for param, _ in entry.definition.params}:
                return None
        return None

    def declared(self, node: cst.BaseExpression) -> list[str]:
        """The qualified classes a parameter's annotation allows (``base: torch.optim.Optimizer``; one of an
        enclosing function too, see ``annotation``), or what ``self.attr`` is declared as where ``__init__`` stores
        such a parameter in it."""
        if isinstance(node, cst.Name):
            return [c for c in classes_named(self.annotation(node.value)) if c]
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
            function = self._stack[-1].function
            owner = self.program.owner_class(function) if function is not None else None
            named = self.program.declared_name(owner, node.attr.value) if owner is not None else None
            return [named] if named else []
        return []

    def passed_masks(self) -> frozenset[str]:
        """The current function's parameters that every call of it in compiled code passes a boolean mask."""
        function = self._stack[-1].function
        return self.program.passed_masks(function) if function is not None else frozenset()

    def returns_mask(self, call: cst.Call, element: int) -> bool:
        """Whether ``call`` runs only functions of the tree that return a boolean mask in ``element``
        (``-1``: the whole result) on every ``return``."""
        dotted = dotted_name(call.func)
        function = self._stack[-1].function
        return dotted is not None and function is not None and self.program.returns_mask(function, dotted, element)

    @property
    def in_autograd_backward(self) -> bool:
        """Whether the current function is ``backward`` of an autograd ``Function`` of the tree, which Dynamo
        traces while it traces the ``apply`` call (``Program._applied_backward``)."""
        function = self._stack[-1].function
        owner = self.program.owner_class(function) if function is not None and function.endswith(".backward") else None
        return owner is not None and self.program.is_autograd_function(owner)

    @property
    def skips_frame(self) -> bool:
        """Whether a break here makes Dynamo run the rest of the function eagerly: inside a loop's body or
        a ``try`` statement, where it cannot resume, it gives up the frame, and no later line is traced.
        Only a break on every path counts: not one under an ``if``, a conditional arm or a short circuit."""
        function = self._stack[-1].function
        return self._depth.get((function, _SKIPS_FRAME), 0) > 0 and not self._depth.get((function, _CONDITIONAL), 0)

    def skips_frame_at(self, node: cst.CSTNode) -> bool:
        """``skips_frame`` for a break at ``node``: in a ``try``, or in a loop's body where no ``return`` comes
        before the jump back (``loop_exits``: Dynamo then takes the break for one outside any loop)."""
        if not self.skips_frame:
            return False
        function = self._stack[-1].function
        return self._depth.get((function, _IN_TRY), 0) > 0 or not self._returns_first.get(id(node), False)

    def is_compiling_check(self, node: cst.BaseExpression) -> bool:
        """``torch.compiler.is_compiling()``, a name assigned from it, or a call of a function of the tree
        that returns it: ``True`` whenever Dynamo traces. So is ``x is None`` for a name that is ``None``
        whenever Dynamo traces this function (a parameter no caller in compiled code passes)."""
        if isinstance(node, cst.Name) and self._guard_names.get(node.value) is True:
            return True
        if self._none_test(node) is True:
            return True
        if not isinstance(node, cst.Call):
            return False
        if self.resolve(node.func) in IS_COMPILING:
            return True
        dotted, function = dotted_name(node.func), self._stack[-1].function
        return bool(dotted and function and self.program.is_compile_guard(function, dotted))

    def is_not_compiling_check(self, node: cst.BaseExpression) -> bool:
        """A name bound to a test that is ``False`` whenever Dynamo traces (``eager = not is_compiling()``),
        or a test on a name that is ``None`` then: ``x is not None``, ``isinstance(x, dict)``."""
        return (isinstance(node, cst.Name) and self._guard_names.get(node.value) is False) or self._none_test(node) is False

    def _none_test(self, node: cst.BaseExpression) -> bool | None:
        """The value of ``x is None`` / ``x is not None`` / ``isinstance(x, T)`` for a name ``x`` that is
        ``None`` whenever Dynamo traces; ``None`` for any other test."""
        nones = self.values.nones
        if not nones:
            return None
        if (type(node) is cst.Comparison and len(node.comparisons) == 1 and type(node.left) is cst.Name
                and node.left.value in nones and type(node.comparisons[0].comparator) is cst.Name
                and node.comparisons[0].comparator.value == "None"):
            operator = type(node.comparisons[0].operator)
            return True if operator is cst.Is else False if operator is cst.IsNot else None
        tested = isinstance_test(node, self.values)
        # ``isinstance(None, dict)`` is false; ``type(None)``, ``NoneType`` or an unknown name may not be
        if tested is not None and tested[0].value in nones and not tested[1] & {None, "types.NoneType"}:
            return False
        return None

    def guard(self, test: cst.BaseExpression) -> Untraced | None:
        """Which side of a test on ``test`` Dynamo never traces (``compile_guards.guard`` with this walk's names)."""
        return guard(test, self.is_compiling_check, CST, self.is_not_compiling_check)

    def never_evaluated(self, node: cst.BooleanOperation) -> bool:
        """Whether the right operand is skipped whenever Dynamo traces: ``not is_compiling() and X``,
        ``is_compiling() or X``."""
        return self.guard(node.left) is (Untraced.BODY if isinstance(node.operator, cst.And) else Untraced.ELSE)

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
        if type(node) is cst.BooleanOperation:
            if self.never_evaluated(node):
                self._uncompiled_blocks.add(id(node.right))
            self._mark(_CONDITIONAL, node.right)
        elif type(node) is cst.For or type(node) is cst.While:
            self._mark(_SKIPS_FRAME, node.body, node.orelse)
            self._returns_first.update(returns_before_backedge(node))
        elif type(node) is cst.Try or type(node) is cst.TryStar:
            self._mark(_SKIPS_FRAME | _IN_TRY, node)
        elif type(node) is cst.If:
            self._mark(_CONDITIONAL, node.body, node.orelse)
            self._mark_uncompiled_branch(node)
        elif type(node) is cst.IfExp:
            self._mark(_CONDITIONAL, node.body, node.orelse)
        elif type(node) is cst.IndentedBlock or type(node) is cst.Module:
            after = statements_after_early_exit(node.body, self.is_compiling_check, CST)
            self._uncompiled_blocks.update(map(id, after))
        part = self._parts.get(id(node))
        if part:
            self._step_in(part, 1)
        self._flow.enter(node, self.values)

    def _mark(self, kind: int, *parts: cst.CSTNode | None) -> None:
        for part in parts:
            if part is not None:
                self._parts[id(part)] = self._parts.get(id(part), 0) | kind

    def _step_in(self, part: int, step: int) -> None:
        function = self._stack[-1].function
        for kind in (_SKIPS_FRAME, _CONDITIONAL, _IN_TRY):
            if part & kind:
                self._depth[function, kind] = self._depth.get((function, kind), 0) + step

    def leave(self, node: cst.CSTNode) -> None:
        self._flow.leave(node, self.values)
        part = self._parts.get(id(node))
        if part:
            self._step_in(part, -1)
        if (type(node) is cst.ClassDef or type(node) is cst.FunctionDef
                or (self._uncompiled_blocks and id(node) in self._uncompiled_blocks)):
            self._stack.pop()
            return
        ValueFlow.bind(node, self.values)
        if type(node) is cst.Assign:
            # A name bound to a test that is true whenever Dynamo traces (``is_compiling()``, or a
            # combination holding it: ``torch.jit.is_scripting() or is_compiling()``) is one more guard.
            untraced = self.guard(node.value) if self._python_bool(node.value) else None
            known = None if untraced is None else untraced is Untraced.ELSE
            for target in node.targets:
                if type(target.target) is cst.Name:
                    if known is None:
                        self._guard_names.pop(target.target.value, None)
                    else:
                        self._guard_names[target.target.value] = known

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
            (lambda held, attr: self._held_tensor(class_qualified, held, attr)) if class_qualified else None,
            self.program.passed_none(qualified),
            lambda name, attr: self._declared_tensor(qualified, name, attr),
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

    def _python_bool(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` gives a Python bool, never a tensor: ``a or b`` gives ``a`` itself when ``a`` is
        true, so ``t.any() or is_compiling()`` may give the tensor, which a later test asks again."""
        if isinstance(node, cst.BooleanOperation):
            if self.never_evaluated(node):  # ``is_compiling() or t``: the result is the left operand
                return self._python_bool(node.left)
            return self._python_bool(node.left) and self._python_bool(node.right)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            return True
        return not self.values.truth_kind(node).is_data_dependent

    def _held_tensor(self, class_qualified: str, held: str, attr: str) -> bool:
        """Whether every class ``self.<held>`` may hold stores a tensor in ``attr``."""
        return self._hold_tensor(self.program.attribute_classes(class_qualified, held), attr)

    def _declared_tensor(self, function: str, name: str, attr: str) -> bool:
        """Whether parameter ``name`` of ``function`` is declared classes of the tree that each hold a tensor in
        ``attr`` (its annotation, ``Optional`` allowed: ``None`` has no attributes to read)."""
        entry = self.program.functions.get(function)
        written = entry.definition.annotations.get(name) if entry is not None else None
        if entry is None or written is None:
            return False
        return self._hold_tensor([self.program.resolve_class(entry.module, c) if c else None
                                  for c in classes_named(written)], attr)

    def _hold_tensor(self, classes: Sequence[str | None], attr: str) -> bool:
        """Whether there are ``classes`` and every one is a class of the tree that stores a tensor in ``attr``."""
        return bool(classes) and all(
            c is not None and (found := self.program.attribute_types(c).get(attr)) is not None and found.is_tensor
            for c in classes)

    def _class_attributes(self, class_qualified: str) -> tuple[set[str], set[str]]:
        """``self.<attr>`` names that hold parameters or buffers, and those that hold ``torch.nn`` layers."""
        held = self.program.attribute_types(class_qualified)
        return {a for a, t in held.items() if t.is_tensor}, {a for a, t in held.items() if t.is_torch_layer}

    def _mark_uncompiled_branch(self, node: cst.If) -> None:
        untraced = self.guard(node.test)
        if untraced is Untraced.BODY:
            self._uncompiled_blocks.add(id(node.body))
        elif untraced is Untraced.ELSE and node.orelse is not None:
            # ``else:`` holds a block; ``elif`` is a nested ``If`` that is untraced as a whole.
            orelse = node.orelse
            self._uncompiled_blocks.add(id(orelse.body if isinstance(orelse, cst.Else) else orelse))


_SKIPS_FRAME, _CONDITIONAL, _IN_TRY = 1, 2, 4  # kinds of part in LintContext._parts


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name
