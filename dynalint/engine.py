"""Lint stage: run the enabled rules over the compiled functions of one file, in one shared walk.

LibCST is spent only where compiled code lives. For each outermost compiled function of the file
(known from the program stage), ``lint_module`` cuts the function's lines out of the source, parses
just that with LibCST (a method is wrapped in a one-line ``class _:`` header, so its indentation and
columns stay as they are, and lines shift by a constant) and walks it with a light traversal of its
own: LibCST's visitor framework rebuilds nodes as it goes and costs several times more than the walk
itself. The walk keeps the region provider (``regions.LintContext``) up to date and calls every rule's
``visit_*`` / ``leave_*`` method. A rule that raises is dropped for the rest of the file and reported
as a DYN903 internal error naming the rule; the other rules go on. Positions are computed only for
functions with something to report.
"""

from __future__ import annotations

import dataclasses
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from dynalint import diagnostics
from dynalint.finding import Confidence, Finding, Position
from dynalint.program import Program
from dynalint.regions import LintContext
from dynalint.rule import Report, Rule
from dynalint.summary import FunctionSummary, ModuleSummary

VisitorMethod = Callable[[cst.CSTNode], object]

# Fields that only hold layout (whitespace, brackets, commas, operators' tokens): never walked.
_LAYOUT_FIELDS = frozenset(
    {"lpar", "rpar", "lbrace", "rbrace", "lbracket", "rbracket", "leading_lines", "lines_after_decorators",
     "header", "footer", "comma", "semicolon", "colon", "first_colon", "second_colon", "equal", "dot",
     "newline", "indent", "asynchronous", "empty_lines", "trailing_whitespace", "leading_whitespace",
     "trailing_comma", "separator", "comment", "posonly_ind", "operator", "relative", "star"}
)


@lru_cache(maxsize=None)
def _child_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    return tuple(
        f.name
        for f in dataclasses.fields(node_type)
        if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace")
    )


@lru_cache(maxsize=None)
def _visitor_names(rule_class: type[Rule]) -> tuple[str, ...]:
    """The ``visit_*`` / ``leave_*`` methods a rule defines (not LibCST's hundreds of inherited no-ops)."""
    own = (cls for cls in rule_class.__mro__ if issubclass(cls, Rule))
    return tuple(sorted({name for cls in own for name in vars(cls) if name.startswith(("visit_", "leave_"))}))


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


class _Walker:
    """One traversal for all rules; every rule callback is gated on ``context.region``."""

    def __init__(self, context: LintContext, rules: Sequence[Rule]) -> None:
        self.context = context
        self.failures: dict[type[Rule], str] = {}
        self._visitors: dict[str, list[tuple[Rule, VisitorMethod]]] = {}
        for rule in rules:
            for name in _visitor_names(type(rule)):
                self._visitors.setdefault(name, []).append((rule, getattr(rule, name)))

    def walk(self, node: cst.CSTNode) -> None:
        context = self.context
        context.enter(node)
        type_name = type(node).__name__
        if context.region is not None:
            self._call(f"visit_{type_name}", node)
        for child in _children(node):
            self.walk(child)
        if context.region is not None:
            self._call(f"leave_{type_name}", node)
        context.leave(node)

    def _call(self, method_name: str, node: cst.CSTNode) -> None:
        for rule, method in self._visitors.get(method_name, ()):
            if type(rule) in self.failures:
                continue
            try:
                method(node)
            except Exception as error:  # a broken rule must not lose the other rules' findings
                frame = traceback.extract_tb(error.__traceback__)[-1]
                self.failures[type(rule)] = (
                    f"{type(error).__name__}: {error} (at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})"
                )


@dataclass(frozen=True)
class _Segment:
    """One compiled function cut out of its file and parsed on its own."""

    function: FunctionSummary
    node: cst.FunctionDef
    module: cst.Module
    line_offset: int  # add to a line of ``module`` to get the file's line


def lint_module(
    source: str,
    filename: str,
    summary: ModuleSummary,
    program: Program,
    rule_classes: Sequence[type[Rule]],
) -> list[Finding]:
    """Findings of ``rule_classes`` in the compiled functions of one file (which ``ast`` has parsed)."""
    lines = source.splitlines(keepends=True)
    context = LintContext(summary, program)
    rules = [rule_class(context) for rule_class in rule_classes]
    walker = _Walker(context, rules)
    findings: list[Finding] = []
    for function in _outermost_compiled(summary, program):
        try:
            segment = _parse_segment(lines, function)
        except cst.ParserSyntaxError as error:
            line = error.raw_line + function.start_line - 1
            return [diagnostics.parse_error(filename, line, error.raw_column + 1, str(error.message))]
        before = {id(rule): len(rule.reports) for rule in rules}
        context.enter_scope(function.qualname, summary)
        walker.walk(segment.node)
        context.leave_scope()
        reports = [r for rule in rules if type(rule) not in walker.failures for r in rule.reports[before[id(rule)]:]]
        if reports:
            findings += _to_findings(reports, segment, filename)
    findings += [
        diagnostics.rule_crash(filename, rule_class.code, rule_class.name, message)
        for rule_class, message in walker.failures.items()
    ]
    return findings


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


def _parse_segment(lines: list[str], function: FunctionSummary) -> _Segment:
    text = "".join(lines[function.start_line - 1: function.end_line])
    indented = bool(text[:1].isspace())
    module = cst.parse_module(f"class _:\n{text}" if indented else text)
    statement = module.body[0]
    if indented:
        statement = statement.body.body[0]  # type: ignore[union-attr]
    assert isinstance(statement, cst.FunctionDef), "a function's lines must parse to a function"
    return _Segment(function, statement, module, function.start_line - 1 - int(indented))


def _to_findings(reports: list[Report], segment: _Segment, filename: str) -> list[Finding]:
    positions = MetadataWrapper(segment.module, unsafe_skip_copy=True).resolve(PositionProvider)
    findings = []
    for report in reports:
        span = positions[report.node]
        rule = report.rule
        region_confidence = report.region.confidence if report.region else None
        likely = Confidence.LIKELY in (report.confidence, region_confidence)
        offset = segment.line_offset
        findings.append(
            Finding(
                code=rule.code,
                name=rule.name,
                message=report.message,
                filename=filename,
                start=Position(span.start.line + offset, span.start.column + 1),
                end=Position(span.end.line + offset, span.end.column + 1),
                help=rule.help,
                confidence=Confidence.LIKELY if likely else Confidence.CERTAIN,
                gb_ids=rule.gb_ids,
                region=report.region,
            )
        )
    return findings
