"""Summarize stage: one cheap pass over a file's ``ast`` that fills its ``ModuleSummary`` (``summary.py``).

``summarize`` reads definitions, classes and their bases, imports, call sites, ``self.attr = Cls(...)``
attribute types, disabled functions and ``torch.compile`` sites, and what dynamic dispatch needs
(``dispatch.py`` words each value as sources: every value ``self.attr`` is given, module-level
registries of callables, functions that store a parameter into one, decorators). It uses the standard library's
``ast`` (tens of times cheaper than LibCST with metadata) so that every file can be summarized and only
files holding compiled code pay for a LibCST parse in the lint stage. ``program.py`` links summaries.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from dynalint.analysis import dispatch, higher_order_calls, hook_handles, type_hints
from dynalint.analysis.call_arguments import WHOLE, FunctionArguments, makes_tensor, tensor_if_parameters
from dynalint.analysis.compile_guards import AST, Untraced, guard, statements_after_early_exit
from dynalint.analysis.qualified_names import ImportTable, absolute_module, dotted_name, names_a_class
from dynalint.analysis.eager_library_calls import runs_eagerly
from dynalint.analysis.summary import (
    UNREAD_ARGUMENTS,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    Arguments,
    ClassSummary,
    CompileSite,
    FunctionSummary,
    ModuleSummary,
    attribute_pattern,
    formatted_pattern,
    unread_arguments,
)
from dynalint.analysis.tensor_method_names import TENSOR_METHOD_NAMES
from dynalint.analysis.torch_facts import (
    BACKWARD_HOOK_METHODS,
    COLLECTIVES,
    COMPILE,
    CONTAINERS,
    DISABLE,
    DYNAMO_CONFIG,
    FORWARD_HOOK_METHODS,
    GLOBAL_BACKWARD_HOOKS,
    GLOBAL_FORWARD_HOOKS,
    IS_COMPILING,
    MODULE_RETURNING_METHODS,
    NOT_REQUIRED,
    NOT_TRACED,
    PARAMETERS,
    PARTIAL,
    PYTHON_TYPES,
    TENSOR_TYPES,
    TYPED_DICTS,
    TorchResult,
    torch_result,
)
from dynalint.analysis.type_hints import Annotation, classes_named
from dynalint.model.dynamo_settings import CompileSettings


def summarize(tree: ast.Module, path: str, module: str, is_package: bool = False) -> ModuleSummary:
    """Build the summary of one parsed file."""
    imports = _collect_imports(tree, module, is_package)
    summary = ModuleSummary(path=path, module=module, imports=imports)
    summarizer = _Summarizer(summary, is_package)
    summarizer.compiling_callables = _compile_guard_aliases(tree, imports)
    summarizer.guard_functions = _compile_guard_functions(tree, summarizer._is_compiling)
    summarizer.visit(tree)
    summary.nesting = summarizer.deepest
    handles = summarizer.hook_handles
    summary.hook_handles = (frozenset(handles.attributes), frozenset(handles.containers))
    return summary


def _collect_imports(tree: ast.Module, module: str, is_package: bool) -> ImportTable:
    """Module-level imports and definitions; imports nested in functions are added during the visit."""
    table = ImportTable(module=module)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _add_import(table, node, module, is_package)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            table.local_names.add(node.name)
        elif isinstance(node, ast.Assign):
            table.local_names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.If, ast.Try)):  # ``try: import x`` / ``if TYPE_CHECKING: import y``
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    _add_import(table, inner, module, is_package)
    renamed, optional = _renamed_imports(tree, table)
    # An import shadows nothing defined later in the same file and vice versa; imports win when both.
    table.local_names -= set(table.aliases)
    for name, target in renamed.items():
        table.aliases.setdefault(name, target)
        table.local_names.discard(name)
    table.optional = optional & set(renamed)
    return table


def _renamed_imports(tree: ast.Module, table: ImportTable) -> tuple[dict[str, str], set[str]]:
    """Module-level names bound to an imported function under another name: ``einsum = torch.einsum``,
    ``einsum = functools.partial(contract, backend="torch")`` (a call through the partial calls
    ``contract``). Statements are read in source order, a ``try`` body (and its ``else``) before its handlers and
    an ``if`` before its ``else``, and the first binding of a name wins: the optional accelerator a library
    imports in a ``try`` is what runs where it is installed. The second result names those bound more
    than once (in the other branch too): ``ImportTable.optional``."""
    renamed: dict[str, str] = {}
    bound: dict[str, int] = {}  # name -> how many module-level assignments bind it
    for node in _module_level_assignments(tree.body):
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        bound[node.targets[0].id] = bound.get(node.targets[0].id, 0) + 1
        value = node.value
        if isinstance(value, ast.Call) and table.resolve(dotted_name(value.func)) in PARTIAL and value.args:
            value = value.args[0]
        written = dotted_name(value)
        if written is None or written.partition(".")[0] not in table.aliases:
            continue  # not an imported name: a constant, a local function, a call's result
        renamed.setdefault(node.targets[0].id, table.resolve(written) or written)
    return renamed, {name for name, count in bound.items() if count > 1}


def _module_level_assignments(body: list[ast.stmt]) -> Iterator[ast.Assign]:
    """The assignments run at module level, in source order: inside ``if`` and ``try`` blocks too, never
    inside a ``def`` or ``class``."""
    for statement in body:
        if isinstance(statement, ast.Assign):
            yield statement
        elif isinstance(statement, ast.If):
            yield from _module_level_assignments(statement.body)
            yield from _module_level_assignments(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _module_level_assignments(statement.body)
            yield from _module_level_assignments(statement.orelse)  # the rest of the path without an error
            for handler in statement.handlers:
                yield from _module_level_assignments(handler.body)
            yield from _module_level_assignments(statement.finalbody)


def _add_import(table: ImportTable, node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                table.aliases[alias.asname] = alias.name
            else:
                head = alias.name.split(".")[0]
                table.aliases.setdefault(head, head)
        return
    base = absolute_module(module, node.level, node.module, is_package)
    for alias in node.names:
        if alias.name != "*":
            table.aliases[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
        elif base and base not in table.star_imports:
            table.star_imports.append(base)


def _constant(node: ast.expr) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def compile_settings(keywords: list[ast.keyword]) -> CompileSettings:
    values = {kw.arg: _constant(kw.value) for kw in keywords if kw.arg}
    dynamic = values.get("dynamic")
    backend = values.get("backend")
    return CompileSettings(
        fullgraph=values.get("fullgraph") is True,
        dynamic=dynamic if isinstance(dynamic, bool) else None,
        backend=backend if isinstance(backend, str) else None,
    )


# The methods a metric registers a state attribute with, its default value as the second argument or ``default=``.
METRIC_STATE_ADDERS = frozenset({"add_state", "_add_state"})
_LEAVES = (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.cmpop, ast.unaryop, ast.boolop, ast.alias)
_BLOCK_OWNERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
                 ast.AsyncWith, ast.Try)
# Fields that never hold a node worth visiting: names, flags and the leaves above (contexts, operators).
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "level",
                          "type_comment", "kind", "asname", "conversion", "is_async", "simple"})


def _concrete_subclasses(bases: tuple[type, ...]) -> frozenset[type]:
    found, pending = set(), list(bases)
    while pending:
        current = pending.pop()
        found.add(current)
        pending.extend(current.__subclasses__())
    return frozenset(found)


# The summarizer visits every node of every file: exact-type set lookups instead of tuple ``isinstance``.
_LEAF_TYPES = _concrete_subclasses(_LEAVES)
_BLOCK_OWNER_TYPES = frozenset(_BLOCK_OWNERS)
_VISITED_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def _visited_fields(node_type: type[ast.AST]) -> tuple[str, ...]:
    visited = _VISITED_FIELDS.get(node_type)
    if visited is None:
        visited = _VISITED_FIELDS[node_type] = tuple(f for f in node_type._fields if f not in _LEAF_FIELDS)
    return visited


def _subtree_depth(root: ast.AST) -> int:
    """Levels of nesting below ``root`` (iterative: the subtree may be deeper than any stack)."""
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


class _Summarizer(ast.NodeVisitor):
    def __init__(self, summary: ModuleSummary, is_package: bool) -> None:
        self.summary = summary
        self.is_package = is_package
        self.imports = summary.imports
        self.scopes: list[tuple[str, str]] = []  # ("class"|"function", name)
        self._current: tuple[int, FunctionSummary | None] | None = None  # (scope depth, innermost function)
        self.untraced: set[int] = set()  # statements Dynamo never traces (``is_compiling()`` guards)
        self.compiling_names: set[str] = set()  # ``compiling = torch.compiler.is_compiling()``
        # Module-level aliases of the function: ``_is_compiling = getattr(torch.compiler, "is_compiling", None)``.
        self.compiling_callables: set[str] = set()
        self.guard_functions: set[str] = set()  # module-level ``def is_tracing(): return is_compiling()``
        self._dispatch: dict[type[ast.AST], Callable[[ast.AST], None]] = {}  # ``visit_<type>`` methods
        self._depth = 0  # of the node being visited
        self._set_plainly: dict[str, set[str]] = {}  # class -> names ``setattr(self, name, <not a tensor>)`` sets
        # class -> names ``self.name = <a Python value>`` assigns (a constant, a parameter annotated ``str | float``),
        # and those ``register_buffer`` registers: a name in both may hold either (torchrl's ``_target_entropy``).
        self._assigned_python: dict[str, set[str]] = {}
        self._registered: dict[str, set[str]] = {}
        self.deepest = 0  # deepest depth reached since the innermost function began (the file's, at the end)
        self._arguments: list[FunctionArguments] = []  # per enclosing function: what its calls are passed
        self._called_attributes: set[int] = set()  # ``obj.method`` nodes that are called, not read
        self._reads: set[str] = set()  # attribute reads recorded for the innermost function
        self.hook_handles = hook_handles.HookHandles(self.imports.resolve)  # attributes keeping a hook's handle

    def visit(self, node: ast.AST) -> None:
        if id(node) in self.untraced:
            # Not summarized, but the lint stage still parses these lines: their depth counts.
            self.deepest = max(self.deepest, self._depth + _subtree_depth(node))
            return
        node_type = type(node)
        if node_type in _BLOCK_OWNER_TYPES:
            for block in ("body", "orelse", "finalbody"):
                statements = getattr(node, block, None)
                if statements:
                    self.untraced.update(map(id, statements_after_early_exit(statements, self._is_compiling, AST)))
        method = self._dispatch.get(node_type)
        if method is None:
            method = self._dispatch[node_type] = getattr(self, f"visit_{node_type.__name__}", self.generic_visit)
        self._depth += 1
        if self._depth > self.deepest:
            self.deepest = self._depth
        method(node)
        self._depth -= 1

    def generic_visit(self, node: ast.AST) -> None:
        # ``ast.NodeVisitor``'s own loop, minus the leaves (names, constants, operators), which are most
        # of a tree and hold nothing a summary records: the summarize stage's largest saving.
        for field_name in _visited_fields(type(node)):
            value = getattr(node, field_name, None)
            if type(value) is list:
                for item in value:
                    if type(item) not in _LEAF_TYPES and isinstance(item, ast.AST):
                        self.visit(item)
            elif type(value) not in _LEAF_TYPES and isinstance(value, ast.AST):
                self.visit(value)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        _add_import(self.imports, node, self.summary.module, self.is_package)

    visit_ImportFrom = visit_Import

    def _is_compiling(self, node: ast.expr) -> bool:
        """``is_compiling()`` as the file spells it: torch's, a guard function or alias of the file, a name
        bound to one, ``bool(...)`` of one, or one with a constant fallback (``g() if g is not None else False``)."""
        if isinstance(node, ast.Name) and node.id in self.compiling_names:
            return True
        if isinstance(node, ast.IfExp):  # the fallback is for a torch without the function, never this one
            return self._is_compiling(node.body) and isinstance(node.orelse, ast.Constant)
        if not isinstance(node, ast.Call):
            return False
        written = dotted_name(node.func)
        if written == "bool" and len(node.args) == 1 and not node.keywords:
            return self._is_compiling(node.args[0])
        return (self.imports.resolve(written) in IS_COMPILING or written in self.guard_functions
                or written in self.compiling_callables)

    def visit_If(self, node: ast.If) -> None:
        untraced = guard(node.test, self._is_compiling, AST)
        if untraced is not None:
            self.untraced.update(map(id, node.body if untraced is Untraced.BODY else node.orelse))
        self.generic_visit(node)

    # -- scopes ---------------------------------------------------------------------------------
    def _qualname(self, name: str) -> str:
        return ".".join([n for _, n in self.scopes] + [name])

    def _current_class(self) -> str | None:
        if self.scopes and self.scopes[-1][0] == "class":
            return ".".join(n for _, n in self.scopes)
        return None

    def _current_function(self) -> FunctionSummary | None:
        # Asked at every call and assignment: answered once per scope (``_push`` / ``_pop`` forget it).
        if self._current is not None and self._current[0] == len(self.scopes):
            return self._current[1]
        found = self._innermost_function()
        self._current = (len(self.scopes), found)
        return found

    def _push(self, scope: tuple[str, str]) -> None:
        self.scopes.append(scope)
        self._current = None

    def _pop(self) -> None:
        self.scopes.pop()
        self._current = None

    def _innermost_function(self) -> FunctionSummary | None:
        for index in range(len(self.scopes) - 1, -1, -1):
            if self.scopes[index][0] == "function":
                return self.summary.functions.get(".".join(n for _, n in self.scopes[: index + 1]))
        return None

    def _scope_name(self) -> str:
        """The innermost function's qualname, ``""`` at module level."""
        function = self._current_function()
        return function.qualname if function else ""

    def _enclosing_class_of_function(self) -> str | None:
        function = self._current_function()
        return function.class_name if function else None

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        qualname = self._qualname(node.name)
        # A generic base is the class it subscripts: ``NormBased[Tensor]`` derives from ``NormBased``.
        written = [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]
        bases = [self.imports.resolve(dotted_name(b)) or dotted_name(b) or "" for b in written]
        self.summary.classes[qualname] = ClassSummary(qualname, node.lineno, bases)
        self.summary.classes[qualname].decorators = dispatch.decorators(node)
        metaclass = next((dotted_name(k.value) for k in node.keywords if k.arg == "metaclass"), None)
        if metaclass:
            self.summary.classes[qualname].metaclass = self.imports.resolve(metaclass) or metaclass
        if any(base in TYPED_DICTS for base in bases):
            self.summary.classes[qualname].optional_keys = self._has_optional_keys(node)
        self.summary.classes[qualname].default_functions = _stored_default_functions(node)
        # Fields declared tensors in the class body (a ``NamedTuple``'s or dataclass's ``t: torch.Tensor``).
        self.summary.classes[qualname].tensor_attrs.update(
            statement.target.id for statement in node.body
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
            and self.imports.resolve(dotted_name(statement.annotation)) in TENSOR_TYPES)
        self._push(("class", node.name))
        self.generic_visit(node)
        self._pop()
        # A name registered as a buffer on one path and ``setattr`` to a plain value on another (e2cnn's
        # ``setattr(self, f"{name}_indices", [lo, hi])`` for contiguous fields): not known to be a tensor.
        self.summary.classes[qualname].tensor_attrs -= self._set_plainly.pop(qualname, set())
        self.summary.classes[qualname].tensor_attrs -= (
            self._assigned_python.pop(qualname, set()) & self._registered.pop(qualname, set()))

    def _has_optional_keys(self, node: ast.ClassDef) -> bool:
        """``class M(TypedDict, total=False)``, or a field ``b: NotRequired[Tensor]`` in its body."""
        if any(k.arg == "total" and isinstance(k.value, ast.Constant) and k.value.value is False for k in node.keywords):
            return True
        return any(isinstance(statement, ast.AnnAssign) and isinstance(statement.annotation, ast.Subscript)
                   and self.imports.resolve(dotted_name(statement.annotation.value)) in NOT_REQUIRED
                   for statement in node.body)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qualname = self._qualname(node.name)
        class_name = self._current_class()
        args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        params = [(a.arg, dotted_name(a.annotation) if a.annotation else None) for a in args]
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        function = FunctionSummary(qualname, node.lineno, class_name, params, start, node.end_lineno or node.lineno)
        returned = dotted_name(node.returns) if node.returns else None
        function.returns_tensor = self.imports.resolve(returned) in TENSOR_TYPES
        function.returns = type_hints.read(node.returns, self.imports)
        function.annotations = {
            a.arg: read for a in args if (read := type_hints.read(a.annotation, self.imports)) is not None
        }
        if names_a_class(returned) and not function.returns_tensor:
            function.returns_class = returned  # ``def build() -> Model``; kept only if it names a class
        for name, annotation in params:
            resolved = self.imports.resolve(annotation)
            if annotation and resolved not in TENSOR_TYPES and not (resolved or "").startswith("builtins."):
                function.local_types[name] = annotation  # ``model: Model``; kept only if it names a class
        function.param_defaults = dispatch.parameter_defaults(node)
        function.none_defaults = dispatch.none_defaults(node)
        positional = len(node.args.posonlyargs) + len(node.args.args)
        function.signature = (positional, positional - len(node.args.defaults),
                              (VAR_POSITIONAL if node.args.vararg else 0) | (VAR_KEYWORD if node.args.kwarg else 0))
        function.decorators = dispatch.decorators(node)
        self.summary.functions[qualname] = function
        if class_name in self.summary.classes and "property" in function.decorators:
            if _only_tensors(function.returns):
                # ``@property def threshold(self) -> Optional[torch.Tensor]``: reading ``self.threshold`` gives a
                # tensor (torchtnt's early-stop checker branches on it, GB0170)
                self.summary.classes[class_name].tensor_attrs.add(node.name)
            elif (declared := _declared_class_written(node.returns, self.imports)) is not None:
                # ``@property def trainer(self) -> "pl.Trainer"``: ``self.trainer.fit_loop.run()`` is followed
                # through that class, as through an annotated parameter stored (``Program._chained``)
                self.summary.classes[class_name].attr_declared.setdefault(node.name, declared)
        for decorator in node.decorator_list:
            self._decorator(decorator, function, node)
        self._push(("function", node.name))
        bound_first = class_name is not None and "staticmethod" not in function.decorators  # ``self``, ``cls``
        own = [name for name, _ in params[1 if bound_first else 0:]]
        self._arguments.append(FunctionArguments(self.imports, frozenset(own)))
        outer_deepest, self.deepest = self.deepest, self._depth
        outer_reads, self._reads = self._reads, set()
        self.generic_visit(node)
        self._reads = outer_reads
        function.python_returns, function.mask_returns = self._arguments.pop().returned_elements()
        function.nesting = self.deepest - self._depth
        function.is_compile_guard = returns_compile_guard(node, self._is_compiling)
        self.deepest = max(outer_deepest, self.deepest)
        self._pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def _decorator(self, decorator: ast.expr, function: FunctionSummary, node: ast.AST) -> None:
        call = decorator if isinstance(decorator, ast.Call) else None
        name = self.imports.resolve(dotted_name(call.func if call else decorator))
        if name in DISABLE:
            function.disabled = True
        elif name in NOT_TRACED:
            function.not_traced = True
        elif name in COMPILE:
            how = "@torch.compile(...)" if call else "@torch.compile"
            settings = compile_settings(call.keywords) if call else CompileSettings()
            self.summary.compile_sites.append(
                CompileSite(decorator.lineno, how, "function", self.summary.qualify(function.qualname),
                            function.class_name, settings)
            )

    # -- statements -----------------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        self._assignment(node.targets, node.value)
        self.generic_visit(node)
        if self._arguments:  # after the value's own calls were read: ``n = helper(n)`` passes the old ``n``
            for target in node.targets:
                self._arguments[-1].bind(target, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        class_name = self._enclosing_class_of_function()
        target = node.target
        if (class_name in self.summary.classes and isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name) and target.value.id == "self"
                and _only_tensors(type_hints.read(node.annotation, self.imports))):
            # ``self._threshold: Optional[torch.Tensor] = None if t is None else torch.tensor([t])``
            self.summary.classes[class_name].tensor_attrs.add(target.attr)
        elif (class_name in self.summary.classes and isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name) and target.value.id == "self"
                and (declared := _declared_class_written(node.annotation, self.imports)) is not None
                and (self.imports.resolve(declared) or "") not in TENSOR_TYPES):
            # ``self._strategy: Strategy = self._connector.strategy`` (lightning's ``Fabric``): what the attribute
            # holds is followed through the declared class and its subclasses, as for a stored annotated parameter
            self.summary.classes[class_name].attr_declared.setdefault(target.attr, declared)
        if node.value is not None:
            self._assignment([node.target], node.value)
        self.generic_visit(node)
        if self._arguments and node.value is not None:
            self._arguments[-1].bind(node.target, node.value)

    def _type_alias(self, targets: list[ast.expr], value: ast.expr) -> None:
        if not self.scopes and type_hints.is_type_alias(value, self.imports):
            for target in targets:
                if isinstance(target, ast.Name):
                    self.summary.type_aliases[target.id] = type_hints.read(value, self.imports) or Annotation(None)

    def _assignment(self, targets: list[ast.expr], value: ast.expr) -> None:
        self._type_alias(targets, value)
        self.hook_handles.assigned(self._scope_name(), targets, value)
        if not self.scopes and isinstance(value, ast.Attribute) and value.attr == "apply":
            applied = self.imports.resolve(dotted_name(value))  # ``_norm = _Norm.apply``: calls of it run ``forward``
            if applied:
                self.imports.aliases.update((t.id, applied) for t in targets if isinstance(t, ast.Name))
        if self._is_compiling(value):
            self.compiling_names.update(t.id for t in targets if isinstance(t, ast.Name))
        for target in targets:
            resolved = self.imports.resolve(dotted_name(target))
            if resolved and resolved.startswith(DYNAMO_CONFIG):
                self.summary.dynamo_config[resolved[len(DYNAMO_CONFIG):]] = self._config_value(value)
        class_name = self._enclosing_class_of_function()
        function = self._current_function()
        dispatch.record_assignment(self.summary, function, class_name, bool(self.scopes), targets, value)
        read = dotted_name(value) if isinstance(value, ast.Attribute) else None
        if function is not None and read and not read.startswith("self."):
            # ``results = trainer._results`` after ``trainer = self._trainer`` (lightning's ``LightningModule.log``):
            # the chain read through a local that holds one chain of ``self``'s attributes, and only that
            head, _, rest = read.partition(".")
            held = function.local_sources.get(head, [])
            if len(held) == 1 and held[0].startswith(dispatch.REF + "self."):
                read = f"{held[0][len(dispatch.REF):]}.{rest}"
        if function is not None and class_name is not None and read and read.startswith("self.") and len(targets) == 1 \
                and isinstance(targets[0], ast.Name):
            # ``results = self.trainer.results``: the local is what that chain of attributes holds (``Program._chained``)
            held = function.local_sources.setdefault(targets[0].id, [])
            if dispatch.REF + read not in held:
                held.append(dispatch.REF + read)
        for target in targets:
            dotted = dotted_name(target)
            if dotted is None:
                continue
            if (class_name is not None and dotted.startswith("self.") and dotted.count(".") == 1
                    and self._python_value(function, value)):
                self._assigned_python.setdefault(class_name, set()).add(dotted[5:])
            if isinstance(value, ast.Call):
                value = _strip_module_methods(value)
                callee = dotted_name(value.func)
                resolved = self.imports.resolve(callee)
                if resolved in DISABLE and value.args and not self.scopes:
                    wrapped = dotted_name(value.args[0])
                    if wrapped:
                        self.summary.disabled_aliases[dotted] = wrapped
                    continue
                if callee and dotted.startswith("self.") and dotted.count(".") == 1 and class_name:
                    self._self_attribute(class_name, dotted[5:], value, resolved or callee)
                elif callee and "." not in dotted and (function is not None or not self.scopes):
                    types = function.local_types if function is not None else self.summary.module_types
                    earlier = types.get(dotted, callee)
                    if function is not None and earlier != callee and names_a_class(earlier) and names_a_class(callee):
                        # ``jacobian = BroydenFirst(...)`` on one branch, ``LinearMixing(...)`` on another (xitorch's
                        # root solvers): an instance of either, for dispatch (``local_sources``), not of the last.
                        held = function.local_sources.setdefault(dotted, [])
                        for written in (types.pop(dotted), callee):
                            if dispatch.NEW + written not in held:
                                held.append(dispatch.NEW + written)
                    elif function is not None and names_a_class(callee) and dotted in function.local_sources:
                        function.local_sources[dotted].append(dispatch.NEW + callee)
                    else:
                        types[dotted] = callee
            elif (isinstance(value, ast.Name) and dotted.startswith("self.") and dotted.count(".") == 1
                    and function is not None and class_name in self.summary.classes):
                declared = self._declared_class(function, value.id)
                if declared:  # ``self.encoder = encoder`` with ``encoder: Encoder``: held as declared
                    self.summary.classes[class_name].attr_declared[dotted[5:]] = declared
            else:
                self._tensor_attribute(dotted, class_name, value)  # ``self.span = end - start``

    def _declared_class(self, function: FunctionSummary, name: str) -> str | None:
        """The class parameter ``name`` is annotated with, as written; ``None`` for a union
        (``SyntheticDataGenerator | Module | None``), a tensor, a builtin, or no annotation."""
        annotation = next((written for param, written in function.params if param == name), None)
        resolved = self.imports.resolve(annotation) or ""
        if (not annotation or resolved in TENSOR_TYPES or resolved.startswith("builtins.")
                or not names_a_class(annotation)):
            return None
        return annotation

    def _config_value(self, value: ast.expr) -> object:
        if isinstance(value, ast.Constant):
            return value.value
        if isinstance(value, (ast.Set, ast.List, ast.Tuple)):
            names = (self.imports.resolve(dotted_name(e)) or dotted_name(e) for e in value.elts)
            return [name for name in names if name]
        return None

    @staticmethod
    def _python_value(function: FunctionSummary | None, value: ast.expr) -> bool:
        """Whether ``value`` is surely no tensor: a string or number written out, or a parameter annotated with
        Python types only (``target_entropy: str | float``)."""
        if isinstance(value, ast.Constant):
            return isinstance(value.value, (str, int, float)) and not isinstance(value.value, bool)
        if isinstance(value, ast.Name) and function is not None and value.id in function.annotations:
            named = classes_named(function.annotations[value.id])
            return bool(named) and all(name in PYTHON_TYPES for name in named)
        return False

    def _self_attribute(self, class_name: str, attr: str, value: ast.Call, resolved: str) -> None:
        cls = self.summary.classes.get(class_name)
        if cls is None:
            return
        if resolved in CONTAINERS:
            cls.container_items[attr] = [
                dotted_name(item.func) or "" for arg in value.args for item in _container_elements(arg)
            ]
        elif resolved in PARAMETERS or (resolved.startswith("torch.") and torch_result(resolved) is TorchResult.TENSOR):
            cls.tensor_attrs.add(attr)  # nn.Parameter(...), torch.zeros(...), ... (not torch.device(...))
        elif self._makes_tensor(value):
            cls.tensor_attrs.add(attr)  # ``self.longest = lengths.max()``, in a module or a plain helper class
        else:
            cls.attr_types[attr] = resolved

    def visit_Return(self, node: ast.Return) -> None:
        function = self._current_function()
        if self._arguments:
            self._arguments[-1].returns(node.value)
        if function is not None and isinstance(node.value, ast.Tuple):
            shape = tuple(self._makes_tensor(element) for element in node.value.elts)
            if function.returns_elements is None or len(function.returns_elements) == len(shape):
                function.returns_elements = tuple(
                    a or b for a, b in zip(shape, function.returns_elements or shape))
            else:
                function.returns_elements = ()  # tuples of different lengths: nothing is known
        elif function is not None and not isinstance(node.value, ast.Call) and node.value is not None:
            function.returns_tensor = function.returns_tensor or self._makes_tensor(node.value)
        if function is not None and not function.returns_tensor and node.value is not None:
            parameters = frozenset(name for name, _ in function.params)
            calls, tensors = function.returns_through
            found = tensor_if_parameters(node.value, parameters) - set(tensors)
            called = self._returned_through_locals(node.value, parameters)
            if found or called:
                function.returns_through = (calls + tuple(c for c in called if c not in calls),
                                            tensors + tuple(sorted(found)))
        if function is not None and isinstance(node.value, ast.Call):
            callee = dotted_name(_strip_module_methods(node.value).func)
            resolved = self.imports.resolve(callee) or ""
            if (resolved.startswith("torch.") and torch_result(resolved) is TorchResult.TENSOR) or (
                    self._makes_tensor(node.value)):
                function.returns_tensor = True
            elif names_a_class(callee):
                function.returns_class = callee
            elif callee and callee not in function.returns_through[0]:
                function.returns_through = (function.returns_through[0] + (callee,), function.returns_through[1])
        elif function is not None and isinstance(node.value, ast.Name) and node.value.id in function.local_types:
            function.returns_class = function.local_types[node.value.id]
        self.generic_visit(node)

    def _returned_through_locals(self, returned: ast.expr, parameters: frozenset[str]) -> list[str]:
        """The calls whose results make ``returned`` a tensor through the locals bound to them, for the program
        to follow as it follows a returned call: ``error_ratio = _compute_error_ratio(...)`` then ``return
        error_ratio < 1`` (torchdiffeq's ``_has_converged``) is a tensor where that function returns one."""
        if not self._arguments:
            return []
        bound = self._arguments[-1].bound
        found = []
        for name in sorted(tensor_if_parameters(returned, frozenset(bound) - parameters)):
            value, element, _ = bound[name]
            callee = dotted_name(value.func) if type(value) is ast.Call and element == WHOLE else None
            if callee:
                found.append(callee)
        return found

    def _tensor_attribute(self, dotted: str | None, class_name: str | None, value: ast.expr) -> None:
        """Record ``self.<attr>`` as holding a tensor where ``value``, given to it, is one by its syntax."""
        if (dotted and dotted.startswith("self.") and dotted.count(".") == 1 and class_name in self.summary.classes
                and self._makes_tensor(value)):
            self.summary.classes[class_name].tensor_attrs.add(dotted[5:])

    def _makes_tensor(self, node: ast.expr) -> bool:
        """Syntax alone says ``node`` is a tensor (``call_arguments.makes_tensor``)."""
        return makes_tensor(node, self.imports)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if self._arguments and not self._arguments[-1].is_python(node.value):
            self._arguments[-1].bind(node.target, None)
        # ``self.unclipped += (factor < 1).sum()``: a count kept as ``0`` until a tensor is added to it
        self._tensor_attribute(dotted_name(node.target), self._enclosing_class_of_function(), node.value)
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.generic_visit(node)
        if self._arguments:
            self._arguments[-1].bind(node.target, node.value)

    def visit_withitem(self, node: ast.withitem) -> None:
        if self._arguments and node.optional_vars is not None:
            self._arguments[-1].bind(node.optional_vars, None)
        function = self._current_function()
        made = dotted_name(node.context_expr.func) if isinstance(node.context_expr, ast.Call) else None
        if function is not None and made:
            # ``with Seeded(3):`` runs the new object's ``__enter__`` and ``__exit__``, which Dynamo traces (measured)
            for method in ("__enter__", "__exit__"):
                function.calls.append((node.context_expr.lineno, f"{made}{dispatch.INSTANCE_METHOD}{method}"))
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        if self._arguments:
            self._arguments[-1].bind_loop(node.target, node.iter)
        function = self._current_function()
        container = self._note_loop_container(function, node.target, node.iter)
        if function is not None and container and "." not in container:
            # ``for train, valid in epoch_iterator:`` runs the class's ``__iter__`` (poutyne's ``EpochIterator``, a
            # generator that fires the callbacks' epoch hooks), resolved as a call of it would be
            function.calls.append((node.lineno, f"{container}.__iter__"))
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        # ``[layer(x) for layer in self.layers]`` calls the held layers as the ``for`` statement does
        self._note_loop_container(self._current_function(), node.target, node.iter)
        self.generic_visit(node)

    @staticmethod
    def _note_loop_container(function: FunctionSummary | None, target: ast.expr, iterated: ast.expr) -> str | None:
        """What a loop iterates, as written (through ``enumerate`` / ``reversed``); a loop over ``self.<attr>``
        binding one name is recorded in ``loop_containers``."""
        if isinstance(iterated, ast.Call) and dotted_name(iterated.func) in ("enumerate", "reversed") and iterated.args:
            iterated = iterated.args[0]
            target = target.elts[-1] if isinstance(target, ast.Tuple) and target.elts else target
        container = dotted_name(iterated)
        if function is not None and isinstance(target, ast.Name) and container and container.startswith("self."):
            function.loop_containers[target.id] = container[5:]
        return container

    def _hook(self, node: ast.Call, function: FunctionSummary | None,
              hooks: dict[str, tuple[tuple[int, str], ...]]) -> None:
        """``module.register_forward_hook(self.post_forward)``: the hook handed over (the first argument, or ``hook=``;
        through ``functools.partial``), recorded in ``hooks`` (the summary's forward or backward hooks) for
        ``Program`` to take as compiled code where the module's call, or backward, is."""
        hook = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "hook"), None)
        if isinstance(hook, ast.Call) and self.imports.resolve(dotted_name(hook.func)) in PARTIAL and hook.args:
            hook = hook.args[0]
        written = dotted_name(hook) if isinstance(hook, (ast.Name, ast.Attribute)) else None
        if written:
            owner = function.qualname if function is not None else ""
            hooks[owner] = (*hooks.get(owner, ()), (node.lineno, written))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        """``x.p`` read: Dynamo runs ``p``'s getter when it is a property (``Program.callees``)."""
        function = self._current_function()
        if function is not None and type(node.ctx) is ast.Load and id(node) not in self._called_attributes:
            written = dotted_name(node)
            if written and _may_be_property(node.attr) and written not in self._reads:
                self._reads.add(written)
                function.reads.append((node.lineno, written))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        node = _unwrapped(node)
        self._called_attributes.add(id(node.func))
        callee = dotted_name(node.func)
        resolved = self.imports.resolve(callee)
        function = self._current_function()
        if function is not None and callee:
            if not (node.args or node.keywords):
                function.calls.append((node.lineno, callee))
            elif self._arguments and _may_call_the_tree(callee, resolved, function):
                function.calls.append((node.lineno, callee, self._arguments[-1].call(node)))
            else:  # arguments not read: which parameter gets what is as unknown as behind a splat
                function.calls.append((node.lineno, callee, _unread(node)))
            # ``map(step, xs)``, ``model.apply(init)``: the function handed on runs here, its arguments unknown
            for run_here in higher_order_calls.called_arguments(node, resolved, self.imports.resolve):
                function.calls.append((node.lineno, run_here, UNREAD_ARGUMENTS))
            if resolved in COLLECTIVES:
                function.collectives.append(resolved)
            if resolved and runs_eagerly(resolved):
                handed = tuple(written for value in (*node.args, *(k.value for k in node.keywords))
                               if isinstance(value, (ast.Name, ast.Attribute)) and (written := dotted_name(value)))
                if handed:
                    handed_on = self.summary.callbacks.get(function.qualname, ())
                    self.summary.callbacks[function.qualname] = (*handed_on, (node.lineno, resolved, handed))
        self.hook_handles.called(self._scope_name(), node)
        if callee and (callee.rpartition(".")[2] in FORWARD_HOOK_METHODS or resolved in GLOBAL_FORWARD_HOOKS):
            self._hook(node, function, self.summary.forward_hooks)
        elif callee and (callee.rpartition(".")[2] in BACKWARD_HOOK_METHODS or resolved in GLOBAL_BACKWARD_HOOKS):
            self._hook(node, function, self.summary.backward_hooks)
        dispatched_callee = dispatch.record_call(self.summary, function, node, callee)
        if dispatched_callee and function is not None:
            function.calls.append((node.lineno, dispatched_callee))
        if resolved in COMPILE and node.args:
            self._compile_call(node, node.args[0], f"torch.compile({ast.unparse(node.args[0])})",
                               compile_settings(node.keywords))
        elif callee and callee.endswith(".compile") and not resolved and isinstance(node.func, ast.Attribute):
            owner = dotted_name(node.func.value)
            if owner:
                self._compile_call(node, node.func.value, f"{owner}.compile()", compile_settings(node.keywords))
        if (
            function is not None
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("register_buffer", "register_parameter")
            and dotted_name(node.func.value) == "self"
            and node.args
            and function.class_name in self.summary.classes
        ):
            registered = _registered_name(node.args[0])
            value = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg in ("tensor", "param")), None)
            # ``register_buffer("clip_value", clip_value)`` with ``clip_value=None`` by default (torchrl's losses):
            # the attribute may hold ``None``, and a test of it is then no test of a tensor.
            maybe_none = (isinstance(value, ast.Constant) and value.value is None) or (
                isinstance(value, ast.Name) and value.id in function.none_defaults)
            if registered is not None and not maybe_none:
                self._register_tensor(function.class_name, registered)
        if (function is not None and isinstance(node.func, ast.Attribute) and node.func.attr in METRIC_STATE_ADDERS
                and dotted_name(node.func.value) == "self" and node.args and function.class_name in self.summary.classes):
            # ``self.add_state("total", default=torch.tensor(0.0))`` (torchmetrics' and tsl's metrics;
            # ``self._add_state`` in torcheval): the metric holds its state in that attribute. A list default
            # (``default=[]``) keeps a list, and is left alone.
            default = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "default"), None)
            registered = _registered_name(node.args[0])
            if registered is not None and default is not None and self._makes_tensor(default):
                self._register_tensor(function.class_name, registered)
        if (function is not None and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                and len(node.args) == 3 and dotted_name(node.args[0]) == "self" and function.class_name is not None
                and not self._makes_tensor(node.args[2])):
            named = _registered_name(node.args[1])
            if named is not None:
                self._set_plainly.setdefault(function.class_name, set()).add(named)
        self.generic_visit(node)

    def _register_tensor(self, class_name: str, attribute: str) -> None:
        """``self.<attribute>`` of ``class_name`` is a tensor the class registered (a buffer, a parameter, a metric
        state)."""
        self.summary.classes[class_name].tensor_attrs.add(attribute)
        self._registered.setdefault(class_name, set()).add(attribute)

    def _compile_call(self, node: ast.Call, target: ast.expr, how: str, settings: CompileSettings) -> None:
        function = self._current_function()
        scope_class = function.class_name if function else None

        def site(kind: str, ref: str) -> CompileSite:
            return CompileSite(node.lineno, how, kind, ref, scope_class, settings)

        if isinstance(target, ast.Lambda):
            # A compiled lambda: everything it calls is compiled (the lambda's own line is not linted).
            for inner in ast.walk(target.body):
                if isinstance(inner, ast.Call) and dotted_name(inner.func):
                    self._compile_call(node, inner.func, how, settings)
            return
        if isinstance(target, ast.Call) and self.imports.resolve(dotted_name(target.func)) in PARTIAL and target.args:
            self._compile_call(node, target.args[0], how, settings)
            return
        if isinstance(target, ast.Call):
            cls = dotted_name(target.func)
            if cls:
                self.summary.compile_sites.append(site("class", cls))
            return
        dotted = dotted_name(target)
        if dotted is None:
            return
        if dotted.startswith("self.") and scope_class:
            member = dotted[5:]
            class_summary = self.summary.classes.get(scope_class)
            if class_summary and member in class_summary.attr_types:
                self.summary.compile_sites.append(site("class", class_summary.attr_types[member]))
            else:
                self.summary.compile_sites.append(site("function", self.summary.qualify(f"{scope_class}.{member}")))
            return
        types = function.local_types if function is not None else self.summary.module_types
        if dotted in types:
            self.summary.compile_sites.append(site("class", types[dotted]))
            return
        if function is not None and f"{function.qualname}.{dotted}" in self.summary.functions:
            # ``torch.compile(step)`` of a function defined just above in the same body (a closure over its locals)
            self.summary.compile_sites.append(site("function", self.summary.qualify(f"{function.qualname}.{dotted}")))
            return
        owner, _, method = dotted.rpartition(".")
        if owner in types and "." not in owner:  # ``torch.compile(model.forward)``
            self.summary.compile_sites.append(site("method", f"{types[owner]}:{method}"))
            return
        self.summary.compile_sites.append(site("name", dotted))


def returns_compile_guard(function: ast.FunctionDef | ast.AsyncFunctionDef, is_compiling: Callable[[ast.expr], bool]) -> bool:
    """Whether every ``return`` of ``function`` gives ``is_compiling()``, alone or ``or``-ed with other tests.

    Runs for every function of the tree, so it reads statements only, stops at the first other
    ``return``, and skips nested definitions (their returns are not this function's)."""
    found = False
    for returned in _returns(function.body):
        value = returned.value
        if value is None or not (is_compiling(value) or (
            isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and any(map(is_compiling, value.values))
        )):
            return False
        found = True
    return found


# Statements that hold statements, other than definitions (whose returns are not the enclosing function's).
_STATEMENTS_WITH_BLOCKS = frozenset(
    getattr(ast, name) for name in ("If", "For", "AsyncFor", "While", "With", "AsyncWith", "Try", "TryStar", "Match")
    if hasattr(ast, name)
)


def _returns(statements: list[ast.stmt]) -> Iterator[ast.Return]:
    for statement in statements:
        if isinstance(statement, ast.Return):
            yield statement
        elif type(statement) in _STATEMENTS_WITH_BLOCKS:  # not a nested definition, nor a simple statement
            for block in ("body", "orelse", "finalbody"):
                yield from _returns(getattr(statement, block, []))
            for inner in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
                yield from _returns(inner.body)


def _compile_guard_aliases(tree: ast.Module, imports: ImportTable) -> set[str]:
    """Module-level names bound to torch's ``is_compiling`` itself, as version-tolerant code finds it:
    ``torch.compiler.is_compiling``, ``getattr(torch.compiler, "is_compiling", None)``, or an ``or`` of those."""

    def is_reference(value: ast.expr) -> bool:
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
            return any(map(is_reference, value.values)) and all(
                is_reference(v) or isinstance(v, ast.Constant) for v in value.values)
        if (isinstance(value, ast.Call) and dotted_name(value.func) == "getattr" and len(value.args) >= 2
                and isinstance(value.args[1], ast.Constant) and isinstance(value.args[1].value, str)):
            owner = imports.resolve(dotted_name(value.args[0]))
            return owner is not None and f"{owner}.{value.args[1].value}" in IS_COMPILING
        return imports.resolve(dotted_name(value)) in IS_COMPILING

    return {target.id for node in tree.body if isinstance(node, ast.Assign) and is_reference(node.value)
            for target in node.targets if isinstance(target, ast.Name)}


def _compile_guard_functions(tree: ast.Module, is_compiling: Callable[[ast.expr], bool]) -> set[str]:
    """Module-level functions of the file that are compile guards, so the file's own ``if`` tests see them."""
    return {
        node.name for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and returns_compile_guard(node, is_compiling)
    }


# Callees resolved into these never run a function of the tree: their arguments need not be read.
_OUTSIDE_THE_TREE = ("torch.", "builtins.", "math.", "numpy.", "typing.", "os.", "logging.", "warnings.")


def _unread(node: ast.Call) -> Arguments:
    """What a call whose arguments are not read passes: only the slots it fills, when no ``*`` nor ``**`` hides some
    (``Program.accepts`` reads them)."""
    if any(type(value) is ast.Starred for value in node.args) or any(k.arg is None for k in node.keywords):
        return UNREAD_ARGUMENTS
    return unread_arguments((*range(len(node.args)), *(k.arg for k in node.keywords if k.arg is not None)))


def _may_call_the_tree(callee: str, resolved: str | None, function: FunctionSummary) -> bool:
    """Whether the program may resolve ``callee`` to a function of the tree, so that what the call
    passes matters (``Program.passed_python``): not ``torch.cat(...)`` nor ``x.view(...)`` on a local."""
    if resolved is not None:
        return not resolved.startswith(_OUTSIDE_THE_TREE)
    head, dot, _ = callee.partition(".")
    return not dot or head == "self" or head in function.local_types


def _may_be_property(name: str) -> bool:
    """Whether reading ``.name`` may run a property of the tree: not a dunder, nor a name a tensor has
    (``x.shape``, ``x.T``), which are most attribute reads in model code."""
    return not name.startswith("__") and name not in TENSOR_METHOD_NAMES


def _strip_module_methods(call: ast.Call) -> ast.Call:
    while (
        isinstance(call.func, ast.Attribute)
        and call.func.attr in MODULE_RETURNING_METHODS
        and isinstance(call.func.value, ast.Call)
    ):
        call = call.func.value
    return call


def _container_elements(arg: ast.expr) -> list[ast.Call]:
    """The constructor calls inside ``ModuleList([Block(), ...])`` / ``[Block() for _ in range(n)]``."""
    if isinstance(arg, (ast.List, ast.Tuple)):
        return [e for e in arg.elts if isinstance(e, ast.Call)]
    if isinstance(arg, (ast.ListComp, ast.GeneratorExp)) and isinstance(arg.elt, ast.Call):
        return [arg.elt]
    if isinstance(arg, ast.Call):
        return [arg]
    return []


def _registered_name(name: ast.expr) -> str | None:
    """The name ``register_buffer(name, ...)`` registers, or the ``attribute_pattern`` of an f-string one."""
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        return name.value
    if isinstance(name, ast.JoinedStr):
        return attribute_pattern([part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else None
                                  for part in name.values])
    if (isinstance(name, ast.Call) and isinstance(name.func, ast.Attribute) and name.func.attr == "format"
            and isinstance(name.func.value, ast.Constant) and isinstance(name.func.value.value, str)):
        return formatted_pattern(name.func.value.value)  # ``'indices_{}'.format(s)``
    return None


def _unwrapped(call: ast.Call) -> ast.Call:
    """``nt.attribute.__wrapped__(nt, x)`` or ``super().attribute.__wrapped__(self, x)`` (captum's methods under a
    ``functools.wraps`` decorator) as the call of the function the decorator wraps, ``nt.attribute(x)``: Dynamo
    traces that function. The object handed as the first argument is the receiver, and is left out."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__wrapped__"):
        return call
    inner = func.value
    receiver = inner.value if isinstance(inner, ast.Attribute) else None
    first = call.args[0] if call.args else None
    hands_receiver = isinstance(first, ast.Name) and (
        (isinstance(receiver, ast.Name) and receiver.id == first.id)
        or (isinstance(receiver, ast.Call) and dotted_name(receiver.func) == "super" and first.id == "self"))
    unwrapped = ast.Call(func=inner, args=call.args[1:] if hands_receiver else call.args, keywords=call.keywords)
    return ast.copy_location(unwrapped, call)


def _stored_default_functions(node: ast.ClassDef) -> tuple[tuple[str, int, str], ...]:
    """The parameters of the class's own ``__init__`` whose default is a ``lambda`` or a name, and that it stores on
    ``self`` as they are (``self.fmt = fmt``): (parameter, position after ``self``, ``"lambda"`` or the name)."""
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return ()
    positional = [*init.args.posonlyargs, *init.args.args][1:]
    first_default = len(positional) - len(init.args.defaults)
    given = [*((positional[first_default + i], first_default + i, d) for i, d in enumerate(init.args.defaults)),
             *((arg, -1, d) for arg, d in zip(init.args.kwonlyargs, init.args.kw_defaults))]
    defaults: dict[str, tuple[int, str]] = {}
    for arg, position, default in given:
        written = "lambda" if isinstance(default, ast.Lambda) else (dotted_name(default) if default else None)
        if written and written not in ("None", "True", "False"):
            defaults[arg.arg] = (position, written)
    if not defaults:
        return ()
    stored = {statement.value.id for statement in ast.walk(init) if isinstance(statement, ast.Assign)
              and isinstance(statement.value, ast.Name) and statement.value.id in defaults
              and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                      for t in statement.targets)}
    return tuple((name, *defaults[name]) for name in sorted(stored))


def _only_tensors(annotation: Annotation | None) -> bool:
    """An annotation that allows tensors and nothing else but ``None`` (``Tensor``, ``Optional[torch.Tensor]``)."""
    named = classes_named(annotation)
    return bool(named) and all(name in TENSOR_TYPES for name in named)


def _declared_class_written(node: ast.expr | None, imports: ImportTable) -> str | None:
    """The one class an annotation names, as written (``"Trainer"``, ``Optional[pl.Trainer]``, ``Trainer | None``);
    ``None`` for anything else (a container, a union of classes, a builtin)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value.strip(), mode="eval").body
        except (SyntaxError, ValueError):
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members = [node.left, node.right]
    elif isinstance(node, ast.Subscript) and imports.resolve(dotted_name(node.value)) in ("typing.Optional", "typing.Union"):
        members = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    else:
        members = [node] if node is not None else []
    named = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
    if len(named) != 1:
        return None
    written = dotted_name(named[0]) if isinstance(named[0], (ast.Name, ast.Attribute)) else (
        _declared_class_written(named[0], imports) if isinstance(named[0], ast.Constant) and node is not named[0]
        else None)  # ``Optional["Model"]``; not an annotation that is itself a constant (``channels: 16``)
    return written if written and names_a_class(written) else None
