"""Lint stage: run the enabled rules over the compiled functions of one file, in one shared walk.

LibCST is spent only where compiled code lives. For each outermost compiled function of the file
(known from the program stage), ``lint_module`` cuts the function's lines out of the source, parses
just that with LibCST (a method is wrapped in a one-line ``class _:`` header, so its indentation and
columns stay as they are, and lines shift by a constant) and walks it with a light traversal of its
own: LibCST's visitor framework rebuilds nodes as it goes and costs several times more than the walk
itself. The walk keeps the region provider (``regions.LintContext``) up to date and calls every rule's
``visit_*`` / ``leave_*`` method. Rules and the region provider are built afresh for each parsed
function, so no state outlives the tree it describes. A rule that raises is dropped for the rest of
the file and reported as a DYN903 internal error naming the rule; the other rules go on. A function
nested deeper than LibCST can take is reported (DYN904) and skipped, the rest of the file is linted.
Lines are cut the way Python cuts them (``source_lines.py``). Positions are computed only for functions with
something to report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from dynalint.analysis.cst_walk import children
from dynalint.analysis.program import Program
from dynalint.analysis.regions import LintContext
from dynalint.analysis.summary import FunctionSummary, ModuleSummary
from dynalint.lint.failsafe import NO_DEADLINE, Deadline, describe
from dynalint.lint.rewrites import FileText, to_fix
from dynalint.lint.rule import Report, Rule
from dynalint.model import diagnostics
from dynalint.model.finding import Confidence, Finding, Position
from dynalint.project.source_lines import indentation, python_lines

VisitorMethod = Callable[[cst.CSTNode], object]

# Deeper than this (in ``ast`` levels, as the summary stage counts them) a function is not handed to
# LibCST: its native parser overflows the stack between 5,000 and 6,000 levels (measured with the
# deep stack of failsafe.run_deep), and Python itself compiles up to about 2,500. Real code
# stays under 50; generated expressions (a 900-term ``a + b + ...``) reach the hundreds.
MAX_NESTING = 2500
# LibCST's native parser cannot be stopped once it runs, and it is the slowest step on a huge function
# (1.5 MB in one function: 22 s and 1 GB on a loaded 2-core machine, about 70 KB/s). A function larger
# than the per-file time budget lets it parse at this rate is not handed to it (DYN904): with the
# default 60 s that is 3 MB, above the 2 MB file-size cap, so only a budget someone lowered applies.
LIBCST_BYTES_PER_SECOND = 50_000

@cache
def _visitor_names(rule_class: type[Rule]) -> tuple[str, ...]:
    """The ``visit_*`` / ``leave_*`` methods a rule and its rule base classes define."""
    own = (cls for cls in rule_class.__mro__ if issubclass(cls, Rule))
    return tuple(sorted({name for cls in own for name in vars(cls) if name.startswith(("visit_", "leave_"))}))


class _Walker:
    """One traversal for all rules; every rule callback is gated on ``context.region``."""

    def __init__(self, context: LintContext, rules: Sequence[Rule], deadline: Deadline = NO_DEADLINE) -> None:
        self.context = context
        self.deadline = deadline
        self.walked = 0  # nodes; every 4,096th checks the file's time budget (one huge function included)
        self.failures: dict[type[Rule], str] = {}
        self._visitors: dict[str, list[tuple[Rule, VisitorMethod]]] = {}
        for rule in rules:
            for name in _visitor_names(type(rule)):  # type: ignore[arg-type]  # mypy#11470: a class object is hashable
                self._visitors.setdefault(name, []).append((rule, getattr(rule, name)))
        # node type -> (its visit_ callbacks, its leave_ callbacks): the names are formed once per type.
        self._by_type: dict[type, tuple[Sequence[tuple[Rule, VisitorMethod]], Sequence[tuple[Rule, VisitorMethod]]]] = {}

    def walk(self, node: cst.CSTNode) -> None:
        self.walked += 1
        if not self.walked & 0xFFF:
            self.deadline.check()
        context = self.context
        context.enter(node)
        node_type = type(node)
        callbacks = self._by_type.get(node_type)
        if callbacks is None:
            name = node_type.__name__
            callbacks = self._by_type[node_type] = (
                self._visitors.get(f"visit_{name}", ()), self._visitors.get(f"leave_{name}", ())
            )
        visits, leaves = callbacks
        if visits and context.region is not None:
            self._call(visits, node)
        for child in children(node):
            self.walk(child)
        if leaves and context.region is not None:
            self._call(leaves, node)
        context.leave(node)

    def _call(self, callbacks: Sequence[tuple[Rule, VisitorMethod]], node: cst.CSTNode) -> None:
        for rule, method in callbacks:
            if type(rule) in self.failures:
                continue
            try:
                method(node)
            except Exception as error:  # noqa: BLE001 - a broken rule must not lose the other rules' findings
                self.failures[type(rule)] = describe(error)


@dataclass(frozen=True)
class _Segment:
    """One compiled function cut out of its file and parsed on its own."""

    function: FunctionSummary
    node: cst.FunctionDef
    module: cst.Module
    line_offset: int  # add to a line of ``module`` to get the file's line
    column_shifts: dict[int, int]  # file line -> columns cut from its start (form feed indentation)

    def position(self, line: int, column: int) -> Position:
        """The file's 1-based position of LibCST's (1-based line, 0-based column) in this segment."""
        in_file = line + self.line_offset
        return Position(in_file, column + 1 + self.column_shifts.get(in_file, 0))


def lint_module(
    source: str,
    filename: str,
    summary: ModuleSummary,
    program: Program,
    rule_classes: Sequence[type[Rule]],
    deadline: Deadline = NO_DEADLINE,
    *,
    every_rule: Sequence[type[Rule]],
) -> list[Finding]:
    """Findings of ``rule_classes`` in the compiled functions of one file (which ``ast`` has parsed).

    ``every_rule`` is the whole catalogue in code order (``checks.ALL_RULES``): a selected post-pass rule
    reads the reports of every break rule, selected or not.
    """
    lines = python_lines(source)
    running = _with_inputs(rule_classes, every_rule)
    findings: list[Finding] = []
    failures: dict[type[Rule], str] = {}
    for function in _outermost_compiled(summary, program):
        deadline.check()
        if function.nesting > MAX_NESTING:
            findings.append(diagnostics.too_complex(
                filename, function.lineno,
                f"`{function.qualname}` nests {function.nesting} levels deep, more than the LibCST stage "
                f"takes ({MAX_NESTING}); its lines were not linted",
            ))
            continue
        too_big = _too_big_for_budget(lines, function, deadline)
        if too_big is not None:
            findings.append(diagnostics.too_complex(filename, function.lineno, too_big))
            continue
        try:
            segment = _parse_segment(lines, function)
        except (cst.ParserSyntaxError, SegmentError) as error:
            findings.append(_unparsable(source, summary, function, filename, error))
            continue
        # Rule and region state is keyed by the nodes of one parsed tree: it is built for each tree
        # and dropped with it, so no state can leak into (or be mistaken for) another function's nodes.
        context = LintContext(summary, program)
        rules = [rule_class(context) for rule_class in running if rule_class not in failures]
        walker = _Walker(context, rules, deadline)
        context.enter_scope(function.qualname, summary)
        walker.walk(segment.node)
        context.leave_scope()
        _post_pass(rules, walker)
        failures.update(walker.failures)
        reports = [r for rule in rules if type(rule) in rule_classes and type(rule) not in failures for r in rule.reports]
        if reports:
            text = FileText(lines, summary.imports.aliases, source)
            findings += _without_follow_ons(reports, _to_findings(reports, segment, filename, text))
    findings += [
        diagnostics.rule_crash(filename, rule_class.code, rule_class.name, message)
        for rule_class, message in failures.items()
    ]
    return findings


def _too_big_for_budget(lines: list[str], function: FunctionSummary, deadline: Deadline) -> str | None:
    """Why a function is not handed to LibCST within the file's time budget, or ``None`` when it is."""
    if deadline.seconds is None:
        return None
    size = sum(len(line) for line in lines[function.start_line - 1: function.end_line])
    if size <= deadline.seconds * LIBCST_BYTES_PER_SECOND:
        return None
    return (f"`{function.qualname}` is {size / 1024:,.0f} KiB of code, more than LibCST parses within the "
            f"{deadline.seconds:g} s per-file limit (`max-file-seconds`); its lines were not linted")


def _with_inputs(selected: Sequence[type[Rule]], every_rule: Sequence[type[Rule]]) -> list[type[Rule]]:
    """The rules to run: those selected, and the break rules a selected post-pass reads, in catalogue order."""
    if not any(rule.reads_reports for rule in selected):
        return list(selected)
    return [rule for rule in every_rule if rule in selected or (rule.gb_ids and not rule.reads_reports)]


def _post_pass(rules: Sequence[Rule], walker: _Walker) -> None:
    """Hand each post-pass rule the other rules' reports on the function just walked."""
    for rule in rules:
        if rule.reads_reports and type(rule) not in walker.failures:
            others = [r for other in rules if other is not rule and type(other) not in walker.failures for r in other.reports]
            try:
                rule.after(others)
            except Exception as error:  # noqa: BLE001 - like a visit: the rule is dropped, the rest goes on
                walker.failures[type(rule)] = describe(error)


def _outermost_compiled(summary: ModuleSummary, program: Program) -> list[FunctionSummary]:
    """This file's compiled functions, minus those nested in another compiled function (walked with it)."""
    compiled = [
        function
        for qualname, function in summary.functions.items()
        if program.regions.get(summary.qualify(qualname)) is not None
    ]
    names = {f.qualname for f in compiled}
    return [
        f for f in compiled
        if not any(".".join(f.qualname.split(".")[:i]) in names for i in range(1, f.qualname.count(".") + 1))
    ]


class SegmentError(Exception):
    """A compiled function's lines did not parse back to that function."""


def _unparsable(
    source: str, summary: ModuleSummary, function: FunctionSummary, filename: str, error: Exception
) -> Finding:
    """LibCST refused a function that ``ast`` accepted: never the user's syntax error.

    When LibCST cannot parse the whole file either, the limit is LibCST's (it nests implicit string
    concatenation, for one, and gives up on a few thousand strings): DYN904. When the whole file parses
    but the function cut out of it does not, the cutting is wrong, a dynalint bug: DYN903.
    """
    detail = f"LibCST could not parse `{function.qualname}`, which Python accepts: {error}"
    if summary.nesting <= MAX_NESTING:  # deeper files are never handed to LibCST whole
        try:
            cst.parse_module(source)
        except Exception:  # noqa: BLE001 - any refusal of the whole file is LibCST's own limit
            return diagnostics.too_complex(filename, function.lineno, detail)
        return diagnostics.stage_crash(filename, "lint", detail)
    return diagnostics.too_complex(filename, function.lineno, detail)


def compiled_segments(source: str, summary: ModuleSummary, program: Program) -> list[str]:
    """The texts the lint stage hands LibCST for one file: its outermost compiled functions, each cut out
    as ``lint_module`` cuts it (``bench/speed.py`` times parsing them, the floor of this stage)."""
    lines = python_lines(source)
    return [_cut(lines, function)[0] for function in _outermost_compiled(summary, program)
            if function.nesting <= MAX_NESTING]


def _cut(lines: list[str], function: FunctionSummary) -> tuple[str, bool, dict[int, int]]:
    """A function's lines as LibCST will parse them; whether they are indented (a method, wrapped in a
    class header); the columns cut per file line (``_without_form_feed_indents``)."""
    cut, shifts = _without_form_feed_indents(lines[function.start_line - 1: function.end_line], function.start_line)
    # A backslash ending the function's last line joins it to a blank line (or the end of the file)
    # that is not part of the cut: dropping it ends the statement where Python ends it.
    cut[-1] = re.sub(r"\\(\r\n|\r|\n)?\Z", lambda m: m.group(1) or "", cut[-1])
    text = "".join(cut)
    indented = bool(indentation(text))
    return (f"class _:\n{text}" if indented else text), indented, shifts


def _parse_segment(lines: list[str], function: FunctionSummary) -> _Segment:
    text, indented, shifts = _cut(lines, function)
    module = cst.parse_module(text)
    statement: cst.CSTNode = module.body[0]
    if indented and isinstance(statement, cst.ClassDef):  # the ``class _:`` put around a method
        statement = statement.body.body[0]
    if not isinstance(statement, cst.FunctionDef):
        raise SegmentError(f"lines {function.start_line}-{function.end_line} hold a {type(statement).__name__}")
    return _Segment(function, statement, module, function.start_line - 1 - int(indented), shifts)


def _without_form_feed_indents(lines: list[str], first: int) -> tuple[list[str], dict[int, int]]:
    """The lines with their indentation as Python counts it, and the columns that changed per file line.

    Python's tokenizer starts counting indentation afresh after a form feed and counts a tab as up to
    eight columns; LibCST counts a form feed as a character and compares indentation as text, so it
    finds the blocks misaligned. When a form feed sits in some line's indentation, every line's
    indentation is rewritten as the spaces Python counts (what precedes the form feed dropped, tabs
    expanded): the same blocks, in a form LibCST reads. The change in length is added back to the
    columns of findings on those lines. Files without such form feeds are cut as they are.
    """
    def leading(line: str) -> int:
        return len(line) - len(line.lstrip(" \t\f"))

    if not any("\f" in line[: leading(line)] for line in lines):
        return lines, {}
    cut, shifts = [], {}
    for number, line in enumerate(lines, start=first):
        width = leading(line)
        counted = line[:width].rpartition("\f")[2]
        indent = " " * len(counted.expandtabs(8))
        if indent != line[:width]:
            shifts[number] = width - len(indent)
            line = indent + line[width:]
        cut.append(line)
    return cut, shifts


def _without_follow_ons(reports: Sequence[Report], findings: list[Finding]) -> list[Finding]:
    """After a break where Dynamo gives up the frame (in a ``try``, or in a loop's body with no ``return`` before
    the jump back: ``analysis/loop_exits.py``), the rest of the function
    runs eagerly: a later break in it never happens. The first is reported, naming the lines it hides, and
    marked ``gives_up_frame`` for the program post-pass.
    Only a certain finding on every path hides others: a likely one may not break at all. A break that the
    eager frame causes (``Rule.caused_by_eager_frame``) is never hidden, nor one in a callee's own frame, which
    Dynamo compiles even when it runs the caller eagerly (``Report.breaks_in_callee_frame``)."""
    breaking = sorted(
        ((f, r) for r, f in zip(reports, findings)
         if r.rule.hazard == "break" and f.region is not None and not r.rule.caused_by_eager_frame),
        key=lambda pair: pair[0].sort_key,
    )
    hidden: dict[int, list[Finding]] = {}  # id of the frame-skipping finding -> the later ones it hides
    first_in: dict[str, Finding] = {}  # function -> its first frame-skipping break
    for finding, report in breaking:
        function = finding.region.function if finding.region is not None else ""
        first = first_in.get(function)
        if first is not None and finding.start.line > first.start.line:
            if not report.breaks_in_callee_frame:
                hidden[id(first)].append(finding)
        elif first is None and report.skips_frame and finding.confidence is Confidence.CERTAIN:
            first_in[function] = finding
            hidden[id(finding)] = []
    dropped = {id(f) for later in hidden.values() for f in later}
    kept = []
    for finding in findings:
        if id(finding) in dropped:
            continue
        later = hidden.get(id(finding))
        if later:
            lines = ", ".join(str(line) for line in sorted({f.start.line for f in later}))
            finding = replace(finding, message=(
                f"{finding.message}; Dynamo then runs the rest of `{finding.region.function.rsplit('.', 1)[-1]}` "
                f"eagerly, so what would break later in it (line {lines}) does not" if finding.region else finding.message))
        if later is not None:
            finding = replace(finding, gives_up_frame=True)
        kept.append(finding)
    return kept


def _outermost_rewrites(reports: Sequence[Report], positions: Mapping[cst.CSTNode, CodeRange]) -> set[int]:
    """The reports whose rewrite is not inside another one's: a fix nested in another fix would overlap it
    and wait for the next pass anyway, and rendering every level of a nested expression costs the square
    of its size. ``ReplaceFunction`` rewrites are elsewhere in the file: always kept."""
    spans = []
    kept: set[int] = set()
    for report in reports:
        rewrite = report.rewrite
        if rewrite is None:
            continue
        node = getattr(rewrite, "node", None)
        if node is None or node not in positions:
            kept.add(id(report))
            continue
        where = positions[node]
        spans.append(((where.start.line, where.start.column), (where.end.line, where.end.column), id(report)))
    outer_end: tuple[int, int] | None = None
    for start, end, report_id in sorted(spans, key=lambda span: (span[0], (-span[1][0], -span[1][1]))):
        if outer_end is not None and end <= outer_end:
            continue  # inside the last outermost one
        kept.add(report_id)
        outer_end = end
    return kept


def _parents(module: cst.Module) -> dict[int, cst.CSTNode]:
    """Each node's parent, by the child's id (for the fixes that edit a flagged call's statement)."""
    parents: dict[int, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
    return parents


def _to_findings(reports: list[Report], segment: _Segment, filename: str, text: FileText) -> list[Finding]:
    positions = MetadataWrapper(segment.module, unsafe_skip_copy=True).resolve(PositionProvider)
    parent_map: list[dict[int, cst.CSTNode]] = []

    def parents() -> dict[int, cst.CSTNode]:
        if not parent_map:
            parent_map.append(_parents(segment.module))
        return parent_map[0]

    fixable = _outermost_rewrites(reports, positions)
    findings = []
    for report in reports:
        span = positions[report.node]
        start = span.start
        if report.statement is not None and positions[report.statement].start.line != start.line:
            start = positions[report.statement].start  # where Dynamo places the break: see ``Report.statement``
        rule = report.rule
        region_confidence = report.region.confidence if report.region else None
        likely = Confidence.LIKELY in (report.confidence, region_confidence)
        findings.append(
            Finding(
                code=rule.code,
                name=rule.name,
                message=report.message,
                filename=filename,
                start=segment.position(start.line, start.column),
                end=segment.position(span.end.line, span.end.column),
                help=rule.help,
                confidence=Confidence.LIKELY if likely else Confidence.CERTAIN,
                gb_ids=report.gb_ids if report.gb_ids is not None else rule.gb_ids,
                pattern=report.pattern,
                region=report.region,
                fix=None if report.rewrite is None or id(report) not in fixable else to_fix(
                    report.rewrite, segment.module, positions.__getitem__, segment.position, parents, text),
            )
        )
    return findings
