"""Lint stage: run the enabled rules over one file's LibCST tree, in one shared traversal.

``lint_module`` parses the source with LibCST, walks it once with a dispatcher that keeps the region
provider (``regions.LintContext``) up to date and calls every rule's ``visit_*`` / ``leave_*`` method
for nodes inside compiled regions only. Rules that raise are dropped for the rest of the file and
reported as a DYN903 internal error naming the rule; the other rules go on. Positions are computed
only when a file has something to report (LibCST's position pass costs as much as a second parse).
"""

from __future__ import annotations

import traceback
from collections import defaultdict
from collections.abc import Callable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from dynalint import diagnostics
from dynalint.finding import Confidence, Finding, Position
from dynalint.program import Program
from dynalint.regions import LintContext
from dynalint.rule import Report, Rule
from dynalint.summary import ModuleSummary

VisitorMethod = Callable[[cst.CSTNode], object]


class _Dispatcher(cst.CSTVisitor):
    """One traversal for all rules; gates every rule callback on ``context.region``."""

    def __init__(self, context: LintContext, rules: Sequence[Rule]) -> None:
        super().__init__()
        self.context = context
        self.failures: dict[type[Rule], str] = {}
        self._visitors: dict[str, list[tuple[Rule, VisitorMethod]]] = defaultdict(list)
        for rule in rules:
            for method_name, method in rule.get_visitors().items():
                self._visitors[method_name].append((rule, method))

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.context.enter(node)
        if self.context.region is not None:
            self._call(f"visit_{type(node).__name__}", node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.context.region is not None:
            self._call(f"leave_{type(original_node).__name__}", original_node)
        self.context.leave(original_node)

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


def lint_module(
    source: str,
    filename: str,
    summary: ModuleSummary,
    program: Program,
    rule_classes: Sequence[type[Rule]],
) -> list[Finding]:
    """Findings of ``rule_classes`` in one file (already known to parse with ``ast``)."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        return [diagnostics.parse_error(filename, error.raw_line, error.raw_column + 1, str(error.message))]
    context = LintContext(summary, program)
    rules = [rule_class(context) for rule_class in rule_classes]
    dispatcher = _Dispatcher(context, rules)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    _visit_compiled(module.body, context, dispatcher, _compiled_scopes(summary, program))
    reports = [report for rule in rules if type(rule) not in dispatcher.failures for report in rule.reports]
    findings = _to_findings(reports, wrapper, filename) if reports else []
    findings += [
        diagnostics.rule_crash(filename, rule_class.code, rule_class.name, message)
        for rule_class, message in dispatcher.failures.items()
    ]
    return findings


def _compiled_scopes(summary: ModuleSummary, program: Program) -> frozenset[str]:
    """Qualified names of this module's compiled functions and of every scope that encloses one."""
    prefix = f"{summary.module}." if summary.module else ""
    scopes: set[str] = set()
    for qualified in program.regions:
        if qualified.startswith(prefix) and qualified in program.functions and program.functions[qualified][0] is summary:
            parts = qualified[len(prefix):].split(".")
            scopes.update(summary.qualify(".".join(parts[: i + 1])) for i in range(len(parts)))
    return frozenset(scopes)


def _visit_compiled(
    statements: Sequence[cst.BaseStatement], context: LintContext, dispatcher: _Dispatcher, scopes: frozenset[str]
) -> None:
    """Walk the statement skeleton and hand only compiled functions to the rules' traversal.

    Most of a model file (``__init__``, configuration, helpers no compiled code calls) is never visited
    node by node: that traversal, not parsing, is the lint stage's largest cost.
    """
    for statement in statements:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            qualified = context.qualify_child(statement.name.value)
            if qualified not in scopes:
                continue
            if isinstance(statement, cst.FunctionDef) and context.program.region_of(qualified) is not None:
                statement.visit(dispatcher)
                continue
            context.enter(statement)
            _visit_compiled(_statements(statement.body), context, dispatcher, scopes)
            context.leave(statement)
        elif isinstance(statement, cst.BaseCompoundStatement):
            for block in _blocks(statement):
                _visit_compiled(_statements(block), context, dispatcher, scopes)


def _statements(block: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    return block.body if isinstance(block, cst.IndentedBlock) else ()


def _blocks(statement: cst.BaseCompoundStatement) -> list[cst.BaseSuite]:
    """Every suite directly inside a compound statement (``if``/``else``, ``try``/``except``, loops, ``with``)."""
    blocks: list[cst.BaseSuite] = [statement.body]
    pending: list[cst.CSTNode | None] = [getattr(statement, "orelse", None), getattr(statement, "finalbody", None)]
    pending += list(getattr(statement, "handlers", ()))
    while pending:
        node = pending.pop()
        if isinstance(node, cst.If):
            blocks.append(node.body)
            pending.append(node.orelse)
        elif node is not None and hasattr(node, "body"):
            blocks.append(node.body)
    return blocks


def _to_findings(reports: list[Report], wrapper: MetadataWrapper, filename: str) -> list[Finding]:
    positions = wrapper.resolve(PositionProvider)
    findings = []
    for report in reports:
        span = positions[report.node]
        rule = report.rule
        region_confidence = report.region.confidence if report.region else None
        likely = Confidence.LIKELY in (report.confidence, region_confidence)
        findings.append(
            Finding(
                code=rule.code,
                name=rule.name,
                message=report.message,
                filename=filename,
                start=Position(span.start.line, span.start.column + 1),
                end=Position(span.end.line, span.end.column + 1),
                help=rule.help,
                confidence=Confidence.LIKELY if likely else Confidence.CERTAIN,
                gb_ids=rule.gb_ids,
                region=report.region,
            )
        )
    return findings
