"""Lint stage, the program post-pass: breaks at a call that come from where the callee breaks, across files.

It lives in ``pipeline/``, above ``checks/``, whose rules it reads (a wing imports only the wings below it).

Rules see one function at a time, so a break that depends on what a callee does, in another file, is
found here, after every file of the run has been linted (``pipeline/stages.py`` calls ``findings``
for the files it linted afresh, and caches what it returns with their own findings). The facts:

- ``CalleeBreaks.may_break``: whether a function breaks when Dynamo inlines it. It does when one of
  its lines holds a finding of a break rule, or when a function it calls (``Program.callees``, the
  ones Dynamo traces) may break; ``likely`` when every break it rests on is.
- DYN508 (``checks/built_object_method.py``), measured on torch 2.13: a method that breaks, called on
  an object built in the compiled code itself (``solver = Solver(...)``, a factory's result, a
  registry's class called), breaks a second time at the call. Dynamo cannot rebuild the new object to
  resume inside the method ("Reconstruction failure", GB0092), so it breaks at the caller's line, runs
  the method as a frame of its own, and runs the rest of the caller eagerly: after a certain finding,
  later calls of the function are not reported.
- DYN507's second cause (``checks/module_construction.py``), measured on torch 2.13: the caller Dynamo
  gave up (at a certain DYN508 call, or at a certain break in its own loop body or ``try`` block, which
  the lint stage marks ``Finding.gives_up_frame``) runs eagerly from its last resumable point (its start, or the break before), and each
  ``nn.Module`` it builds there has its ``__init__`` compiled as a frame of its own, on a module not yet
  initialized: "Uninitialized nn.Module" (GB0119) at the ``super().__init__()`` call of every class of
  the chain. Those lines are in the classes' files: the finding is cached with the caller's, whose import
  closure covers them, and is reported only when that file is part of the run.

Only the findings of this run count: a callee in a file that was not linted is not known to break.
"""

from __future__ import annotations

import ast
import textwrap
from collections import defaultdict
from pathlib import Path
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from dynalint.analysis import dispatch
from dynalint.analysis.summary import CallSite
from dynalint.model.finding import Confidence, Finding, Position, Region

# The rules whose findings (some of them, for DYN507 and DYN111) come from this pass: DYN507
# (``ModuleConstruction``), DYN508 (``BuiltObjectMethod``) and DYN111 (``ComprehensionResume``,
# ``comprehension_breaks.py``). Written out, not read from the rules: a warm run answered from the cache
# filters its findings by them (``reported``) and must not import the rules, and LibCST with them, for it
# (tests/test_eager_module_construction.py checks the two agree).
POST_PASS_CODES = ("DYN507", "DYN508", "DYN111")

if TYPE_CHECKING:
    from dynalint.analysis.program import Program
    from dynalint.analysis.summary import FunctionSummary, ModuleSummary
    from dynalint.lint.rule import Rule

def inputs(codes: Sequence[str]) -> tuple[str, ...]:
    """The break rules to run beside ``codes`` only for the post-pass to read: every one not selected, when
    DYN508 or DYN507 is (``select = ["DYN508"]`` still sees the breaks inside methods); none otherwise."""
    from dynalint.checks import ALL_RULES

    if not set(POST_PASS_CODES) & set(codes):
        return ()
    return tuple(rule.code for rule in ALL_RULES if rule.code not in codes and _breaks(rule.code))


def _breaks(code: str) -> bool:
    """Whether findings of ``code`` are graph breaks (not DYN9xx diagnostics, which name no rule, recompiles or
    stale values)."""
    from dynalint.checks import lookup
    from dynalint.lint.rule import BREAK_HAZARDS

    rule = lookup(code)
    return rule is not None and bool(rule.gb_ids) and rule.hazard in BREAK_HAZARDS


class CalleeBreaks:
    """Which functions of the program break when compiled code calls them, from a run's findings."""

    def __init__(self, program: Program, modules: Mapping[str, ModuleSummary], findings: Iterable[Finding]) -> None:
        """``modules``: each linted file's summary, by the display name its findings carry."""
        self.program = program
        spans: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
        for display, module in modules.items():
            for function in module.functions.values():
                spans[display].append((function.start_line, function.end_line, module.qualify(function.qualname)))
        self.own: dict[str, Confidence] = {}  # function -> how sure its surest break finding is
        self.certain_lines: dict[str, list[int]] = defaultdict(list)  # function -> lines of its certain breaks
        self.given_up_at: dict[str, int] = {}  # function -> the line of its break that gives its frame up
        for finding in findings:
            if finding.cell is not None or not _breaks(finding.code):
                continue
            holding = [(end - start, name) for start, end, name in spans.get(finding.filename, ())
                       if start <= finding.start.line <= end]
            if holding:
                name = min(holding)[1]
                if finding.confidence is Confidence.CERTAIN:
                    self.certain_lines[name].append(finding.start.line)
                if finding.gives_up_frame:
                    self.given_up_at[name] = min(finding.start.line, self.given_up_at.get(name, finding.start.line))
                if self.own.get(name) is not Confidence.CERTAIN:
                    self.own[name] = finding.confidence
        self._memo: dict[str, Confidence | None] = {}

    def may_break(self, qualified: str) -> Confidence | None:
        """``certain`` or ``likely`` when the function, or one it calls, holds a break; ``None`` when none is known."""
        if qualified in self._memo:
            return self._memo[qualified]
        self._memo[qualified] = None  # a cycle adds nothing
        found = self.own.get(qualified)
        for _, callee in self.program.callees(qualified):
            if found is Confidence.CERTAIN:
                break
            if callee.disabled or not self.program.is_traced(callee.function):
                continue
            inner = self.may_break(callee.function)
            if inner is not None:
                surest = inner if not callee.via else Confidence.LIKELY
                found = Confidence.CERTAIN if Confidence.CERTAIN in (found, surest) else Confidence.LIKELY
        self._memo[qualified] = found
        return found


class Definitions:
    """A file's function definitions, each parsed when first asked for from its own lines (the whole file
    only when they do not parse alone): the post-pass needs few of them, and parsing a large file costs
    more than the rest of its work on it (diffusers' ``attention_processor.py``)."""

    def __init__(self, text: str) -> None:
        self._lines = text.splitlines(keepends=True)
        self._text = text
        self._parsed: dict[int, tuple[ast.FunctionDef | ast.AsyncFunctionDef, int, int] | None] = {}
        self._whole: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] | None = None

    def of(self, function: FunctionSummary) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The definition of ``function``; ``None`` when the file cannot be parsed."""
        located = self.located(function)
        return located[0] if located is not None else None

    def located(self, function: FunctionSummary) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, int, int] | None:
        """The definition of ``function``, with what to add to its nodes' lines and columns to place them in
        the file (a definition parsed alone starts on line 1, dedented); ``None`` when the file cannot be parsed."""
        if function.lineno not in self._parsed:
            alone = self._alone(function)
            if alone is not None:
                first = self._lines[(function.start_line or function.lineno) - 1]
                self._parsed[function.lineno] = (alone, (function.start_line or function.lineno) - 1,
                                                  len(first) - len(first.lstrip()))
            else:
                whole = self._in_whole_file(function)
                self._parsed[function.lineno] = (whole, 0, 0) if whole is not None else None
        return self._parsed[function.lineno]

    def _alone(self, function: FunctionSummary) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        first, last = function.start_line or function.lineno, function.end_line
        if not 0 < first <= last <= len(self._lines):
            return None
        try:
            tree = ast.parse(textwrap.dedent("".join(self._lines[first - 1:last])))
        except (SyntaxError, ValueError):  # a string or a continuation line less indented than the ``def``
            return None
        node = tree.body[0] if len(tree.body) == 1 else None
        return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None

    def _in_whole_file(self, function: FunctionSummary) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        if self._whole is None:
            try:
                tree = ast.parse(self._text)
            except (SyntaxError, ValueError):
                self._whole = {}
            else:
                self._whole = {node.lineno: node for node in ast.walk(tree)
                               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return self._whole.get(function.lineno)


def only_calls_bind(definitions: Definitions | None, function: FunctionSummary, name: str) -> bool:
    """Whether every assignment to the local ``name`` in ``function`` (its own body, not nested functions')
    assigns a call's result. ``definitions``: the file's function definitions; where they are not known,
    or the file cannot be parsed, the summary's word stands."""
    node = definitions.of(function) if definitions is not None else None
    return node is None or all(isinstance(value, ast.Call) for value in _values_bound(node, name))


def _values_bound(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> Iterator[ast.AST]:
    """What each assignment to ``name`` in the function's own scope binds (a loop or ``with`` target: the statement)."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            yield node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            yield node.value if node.value is not None else node
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)) and any(
                isinstance(n, ast.Name) and n.id == name for t in _targets_of(node) for n in ast.walk(t)):
            yield node
        elif isinstance(node, ast.Assign) and any(
                isinstance(n, ast.Name) and n.id == name for t in node.targets for n in ast.walk(t)):
            yield node  # unpacked from a tuple: not a call's result alone
        stack.extend(ast.iter_child_nodes(node))


def _targets_of(node: ast.For | ast.AsyncFor | ast.With | ast.AsyncWith) -> list[ast.AST]:
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target]
    return [item.optional_vars for item in node.items if item.optional_vars is not None]


def built_in_frame(program: Program, module: ModuleSummary, function: FunctionSummary, name: str,
                   definitions: Definitions | None = None, breaks: CalleeBreaks | None = None) -> bool:
    """Whether ``name`` (a local, or ``Helper()`` written as a call's receiver) holds an object built in the
    function: a class of the tree called, a factory that returns one, or an instance picked from a
    registry (``SOLVERS[method](...)``). Not one whose ``__init__`` is certain to break (``breaks``): the
    object is then built eagerly, and its method resumes as an argument's would (measured)."""
    if name.endswith(dispatch.INSTANCE_CALL):
        return _new_instance(program, module, name[: -len(dispatch.INSTANCE_CALL)], breaks)
    if "." in name or name in ("self", "cls") or any(name == param for param, _ in function.params):
        return False
    if not only_calls_bind(definitions, function, name):
        return False  # ``nx = NumpyBackend()`` on one path, ``nx = backend`` on another: maybe not new
    written = function.local_types.get(name)
    if written is not None and program.instance_class(module, written) is not None:
        return _new_instance(program, module, written, breaks)
    if written is not None and any(written == param for param, _ in function.params):
        # ``m = subproblem(x, closure)`` with ``subproblem`` a parameter given classes (torchmin's trust regions)
        classes = program.parameter_classes(module, function, written)
        return bool(classes) and all(_builds_traced(program, cls, breaks) for cls in classes)
    sources = [source for source in function.local_sources.get(name, ()) if source.startswith(dispatch.INSTANCES)]
    classes = [cls for source in sources for cls in program.instances(module, source)]
    return bool(sources) and all(_builds_traced(program, cls, breaks) for cls in classes)


def _builds_traced(program: Program, cls: str, breaks: CalleeBreaks | None) -> bool:
    """Whether building ``cls`` stays in the graph: its ``__init__`` (if it has one of the tree) is not
    certain to break (a likely break there is too weak to take the object for one built eagerly)."""
    init = program.method(cls, "__init__")
    return init is None or breaks is None or breaks.may_break(init) is not Confidence.CERTAIN


def _new_instance(program: Program, module: ModuleSummary, written: str, breaks: CalleeBreaks | None) -> bool:
    """Whether ``written(...)`` builds an instance of a class of the tree whose ``__init__`` does not break."""
    cls = program.instance_class(module, written)
    return cls is not None and _builds_traced(program, cls, breaks)


def findings(program: Program, linted: Sequence[tuple[str, ModuleSummary, str, frozenset[str]]],
             every_finding: Iterable[Finding], run_files: Mapping[str, str] | None = None) -> dict[str, list[Finding]]:
    """The post-pass's findings for each file of ``linted`` (display name, summary, text, the codes on
    there), given every finding of the run. ``run_files``: module name -> display name of every file the
    run reports on; a DYN507 finding in another file than its caller's is kept only when that file is one
    (it is still listed under the caller, whose cache entry holds it)."""
    from dynalint.checks.built_object_method import BuiltObjectMethod
    from dynalint.checks.comprehension_resume import ComprehensionResume
    from dynalint.checks.module_construction import ModuleConstruction
    from dynalint.lint.rule import COMPREHENSION_FRAMES
    from dynalint.pipeline import comprehension_breaks

    wanted = [item for item in linted if set(POST_PASS_CODES) & item[3]]
    if not wanted:
        return {}
    every_finding = list(every_finding)
    breaks = CalleeBreaks(program, {display: module for display, module, _, _ in linted}, every_finding)
    resumed: dict[str, set[int]] = defaultdict(set)  # the lines of the rule's own findings, by file
    file_breaks: dict[str, list[Finding]] = defaultdict(list)  # the break findings, by file
    for finding in every_finding:
        if finding.code == ComprehensionResume.code:
            resumed[finding.filename].add(finding.start.line)
        elif finding.cell is None and _breaks(finding.code):
            file_breaks[finding.filename].append(finding)
    out: dict[str, list[Finding]] = {}
    for display, module, text, codes in wanted:
        lines = text.splitlines()
        definitions = Definitions(text)
        for function in module.functions.values():
            qualified = module.qualify(function.qualname)
            region = program.region_of(qualified)
            if region is None:
                continue
            if ComprehensionResume.code in codes and COMPREHENSION_FRAMES and any(
                    "for " in line for line in lines[function.start_line - 1:function.end_line]):
                out.setdefault(display, []).extend(comprehension_breaks.findings(
                    program, breaks, module, function, region, definitions, display, resumed[display],
                    file_breaks[display]))
            given_up = _given_up_by_built_object(program, breaks, module, function, region, definitions,
                                                 out.setdefault(display, []) if BuiltObjectMethod.code in codes else [],
                                                 display, lines)
            if ModuleConstruction.code not in codes or run_files is None:
                continue
            skipping = breaks.given_up_at.get(qualified)
            given_up = min((line for line in (given_up, skipping) if line is not None), default=None)
            if given_up is not None:  # Dynamo gives the function up here: the rest of it runs eagerly
                out.setdefault(display, []).extend(eager_constructions(
                    program, module, function, given_up, breaks, run_files, region))
    return {display: found for display, found in out.items() if found}


def _given_up_by_built_object(program: Program, breaks: CalleeBreaks, module: ModuleSummary,
                              function: FunctionSummary, region: Region,
                              definitions: Definitions,
                              found: list[Finding], display: str, lines: list[str]) -> int | None:
    """DYN508's findings in ``function`` (appended to ``found``), and the line of the first that is certain:
    where Dynamo gives the function up."""
    from dynalint.checks.built_object_method import BuiltObjectMethod

    seen: set[tuple[int, str]] = set()
    calls = sorted(program.callees(module.qualify(function.qualname)), key=lambda pair: pair[0].line)
    # The receiver is a tensor subclass only when every function the call may run is a method of one:
    # ``manifold.expmap(x, u)`` may run a manifold's ``expmap`` as well as ``ManifoldTensor.expmap``.
    subclass_only: dict[tuple[int, str], bool] = {}
    for site, callee in calls:
        key = (site.line, site.callee)
        subclass_only[key] = subclass_only.get(key, True) and program.method_of_tensor_subclass(callee.function)
    for site, callee in calls:
        receiver, dot, method = site.callee.rpartition(".")
        if not dot or (site.line, site.callee) in seen or method in ("__iter__", "__enter__", "__exit__"):
            # ``for x in built:`` runs a generator ``__iter__`` inlined, ``with Built():`` its ``__enter__`` and
            # ``__exit__``: each breaks inside only (measured)
            continue
        if callee.disabled or not program.is_traced(callee.function) or program.is_property(callee.function):
            continue  # a property's getter resumes where it breaks (measured), as a method of an argument does
        breaking = breaks.may_break(callee.function)
        if breaking is None:
            continue
        on_subclass = subclass_only[(site.line, site.callee)]
        if not on_subclass and not built_in_frame(program, module, function, receiver, definitions, breaks):
            continue
        seen.add((site.line, site.callee))
        likely = Confidence.LIKELY in (breaking, region.confidence) or bool(callee.via)
        found.append(_finding(
            BuiltObjectMethod, display, lines, site.line, site.callee, program.display_name(callee.function),
            Confidence.LIKELY if likely else Confidence.CERTAIN, region,
            BuiltObjectMethod.SUBCLASS_RECEIVER if on_subclass else BuiltObjectMethod.BUILT_RECEIVER))
        if not likely:
            return site.line
    return None


def eager_constructions(program: Program, module: ModuleSummary, function: FunctionSummary, given_up: int,
                        breaks: CalleeBreaks, run_files: Mapping[str, str], region: Region) -> list[Finding]:
    """DYN507 at the ``super().__init__()`` calls of the ``nn.Module`` classes that ``function`` builds
    eagerly, Dynamo having given it up at line ``given_up``: from its last certain break before that line
    (where the graph before it was kept), or its start, to its end."""
    from dynalint.checks.module_construction import ModuleConstruction

    qualified = module.qualify(function.qualname)
    resumed = max((line for line in breaks.certain_lines.get(qualified, ()) if line < given_up),
                  default=function.start_line)
    built: dict[str, int] = {}  # class -> the line it is first built on
    for record in function.calls:
        site = CallSite(*record)
        if site.line <= resumed:
            continue
        if site.callee.endswith(dispatch.REGISTRY_CALL):  # ``METHODS[name](...)``: a registry's class called
            classes = program.instances(module, dispatch.NEW_ITEM + site.callee[: -len(dispatch.REGISTRY_CALL)])
        else:
            made = program.instance_class(module, site.callee)
            classes = [made] if made else []
        for cls in classes:
            if program.is_module_class(cls):
                built.setdefault(cls, site.line)
    out: list[Finding] = []
    caller = f"`{function.qualname}` ({Path(module.path).name})"
    for cls, line in built.items():
        for init_module, init_line in _super_inits(program, cls):
            display = run_files.get(init_module.module)
            if display is None:
                continue
            start, end = _statement_columns(init_module.path, init_line)
            name = program.classes[cls][1].qualname
            message = (f"`{name}` is built on line {line} of {caller}, which Dynamo gives up on line {given_up} and "
                       f"runs eagerly: its `__init__` becomes a frame of its own, where the module is not yet "
                       f"initialized, and `super().__init__()` breaks")
            out.append(Finding(
                code=ModuleConstruction.code, name=ModuleConstruction.name, message=message, filename=display,
                start=Position(init_line, start), end=Position(init_line, end), help=ModuleConstruction.help,
                confidence=Confidence.LIKELY, gb_ids=ModuleConstruction.gb_ids, region=region,
            ))
    return out


def _statement_columns(path: str, line: int) -> tuple[int, int]:
    """The 1-based columns of ``super(...).__init__`` on ``line`` of the file at ``path`` (the line's code when
    it is written otherwise, or the file cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = next((row for number, row in enumerate(handle, 1) if number == line), "")
    except OSError:
        return 1, 1
    start = text.find("super(")
    end = text.find(".__init__", start) if start >= 0 else -1
    if start < 0 or end < 0:
        start, end = len(text) - len(text.lstrip()), len(text.rstrip())
    else:
        end += len(".__init__")
    return start + 1, end + 1


def _super_inits(program: Program, cls: str) -> Iterator[tuple[ModuleSummary, int]]:
    """The ``super().__init__()`` calls of the ``__init__``s along the class's MRO in the tree: each class's
    own ``__init__`` that calls it (a chain of them breaks at each one, innermost first)."""
    for current in program.mro(cls):
        owner, summary = program.classes[current]
        init = program.functions.get(owner.qualify(f"{summary.qualname}.__init__"))
        if init is None:
            continue
        _, function = init
        for record in function.calls:
            if record[1] == "super().__init__":
                yield owner, record[0]
                break
        else:
            return  # an ``__init__`` that does not call its base's: the chain stops here


def reported(findings: Iterable[Finding], displays: Collection[str]) -> list[Finding]:
    """A run's findings as reported: a post-pass finding in a file that is not one of the run's (``displays``) left
    out, and its repeats too (a class's ``super().__init__()`` comes with each caller that builds it eagerly, and
    may match the file's own DYN507)."""
    codes = POST_PASS_CODES
    seen: set[tuple[str, str, int, int]] = set()
    kept: list[Finding] = []
    for finding in findings:
        if finding.code in codes:
            key = (finding.code, finding.filename, finding.start.line, finding.start.column)
            if key in seen or finding.filename not in displays:
                continue
            seen.add(key)
        kept.append(finding)
    return kept


def _finding(rule: type[Rule], display: str, lines: list[str], line: int, written: str, callee: str,
             confidence: Confidence, region: Region, receiver: str = "") -> Finding:
    """The finding at the call ``written`` (``solver.integrate``, ``Helper().run`` for ``Helper(...).run``) on
    ``line``: its first occurrence there, else the line's code."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    made, chained, name = written.partition(dispatch.INSTANCE_METHOD)
    if chained:  # ``Helper(...).run``: from the class's name to the method's
        start, end = _chained_call(text, made, name)
        shown = f"{made}(...).{name}()"
    else:
        start = text.find(written)
        end = start + len(written) if start >= 0 else -1
        shown = f"{written}()"
    if start < 0 or end < 0:
        start, end = len(text) - len(text.lstrip()), len(text.rstrip())
    return Finding(
        code=rule.code, name=rule.name, message=rule.message.format(call=shown, method=callee, receiver=receiver),
        filename=display, start=Position(line, start + 1), end=Position(line, end + 1), help=rule.help,
        confidence=confidence, gb_ids=rule.gb_ids, region=region,
    )


def _chained_call(text: str, made: str, name: str) -> tuple[int, int]:
    """Where ``made(...).name`` is written on the line: the columns of its start and of its end (0-based), or -1."""
    start = text.find(made + "(")
    while start >= 0:
        depth, index = 0, start + len(made)
        for index in range(start + len(made), len(text)):
            depth += {"(": 1, ")": -1}.get(text[index], 0)
            if depth == 0:
                break
        if text.startswith(f".{name}", index + 1):
            return start, index + 2 + len(name)
        start = text.find(made + "(", start + 1)
    return -1, -1
