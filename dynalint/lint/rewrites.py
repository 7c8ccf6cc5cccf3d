"""Lint stage, fixes: what a rule says it would change (a LibCST rewrite), and its text edits in the file.

A rule that can fix what it reports passes ``report(node, rewrite=...)`` one of the rewrites below. They
are LibCST nodes of the function segment the engine parsed (``engine._Segment``), so a rule writes a fix
as it writes a pattern: in nodes. ``to_fix`` turns one into a ``model.finding.Fix``: the span of the node
it replaces, in the file's lines and columns, and the code LibCST renders for the new node. Everything
outside that span stays byte for byte; the edits are applied later, by ``output/fix_edits.py``, only
when ``--fix`` or ``--diff`` asks.

- ``Replace``: an expression or a whole statement becomes another (``x * s.item()`` -> ``x * s``).
- ``GuardStatement``: the statement that is exactly this call runs only eagerly
  (``if not torch.compiler.is_compiling():`` above it).
- ``RemoveStatement``: the statement that is exactly this call goes (``pass`` where it was alone).
- ``ReplaceFunction``: a function of the file, wherever it is, becomes what a transform makes of it (the
  ``disable``d helper around a collective, flagged at its call); the file is parsed whole for it.

A rewrite names the modules its new code refers to (``imports``); ``to_fix`` adds ``import torch`` after
the file's last top-level import when the file has no such binding, and the new code uses the file's own
name for the module (``import torch as th``: ``th.compiler.is_compiling()``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Union

import libcst as cst
from libcst.metadata import CodeRange

from dynalint.analysis.cst_walk import children
from dynalint.model.finding import Applicability, Edit, Fix, Position
from dynalint.project.source_lines import python_lines

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


@dataclass(frozen=True)
class Replace:
    """``node`` becomes ``replacement`` (both expressions, or both statements; a ``cst.Module`` stands for
    several statements in place of one)."""

    node: cst.CSTNode
    replacement: cst.CSTNode
    message: str
    applicability: Applicability
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class GuardStatement:
    """The statement whose whole expression is the call ``node`` runs only when Dynamo is not tracing."""

    node: cst.Call
    message: str
    applicability: Applicability = Applicability.UNSAFE
    imports: tuple[str, ...] = ("torch",)


@dataclass(frozen=True)
class RemoveStatement:
    """The statement whose whole expression is the call ``node`` is deleted."""

    node: cst.Call
    message: str
    applicability: Applicability = Applicability.UNSAFE
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReplaceFunction:
    """The function ``qualname`` of this file (``Class.method``) becomes ``transform(its node)``; no fix
    when the transform gives ``None``."""

    qualname: str
    transform: Callable[[cst.FunctionDef], cst.FunctionDef | None]
    message: str
    applicability: Applicability
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class Combined:
    """Several rewrites that only make sense together (a call made synchronous and the wait on its handle
    removed): one fix with all their edits."""

    parts: tuple[Replace | GuardStatement | RemoveStatement, ...]
    message: str
    applicability: Applicability
    imports: tuple[str, ...] = ()


Rewrite = Union[Replace, GuardStatement, RemoveStatement, ReplaceFunction, Combined]


_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)
# Tensor methods that change their receiver or read its data into Python: never in a fix's new code.
_IMPURE_METHODS = frozenset({"item", "tolist", "numpy", "backward", "cpu", "cuda", "to", "data_ptr", "copy_"})


def is_tensor_arithmetic(context: LintContext, operation: cst.BinaryOperation, other: cst.BaseExpression) -> bool:
    """Whether ``operation`` is arithmetic whose ``other`` operand is a tensor: where a Python number read
    from a tensor (``s.item()``, ``float(s)``) on the first side can stay the tensor it was read from."""
    return isinstance(operation.operator, _ARITHMETIC) and context.kind(other).is_tensor_like


# Expressions that need parentheses to be an operand or a method's receiver.
_LOOSE = (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp, cst.Lambda,
          cst.NamedExpr, cst.Await, cst.Tuple)


def parenthesized(expression: cst.BaseExpression) -> cst.BaseExpression:
    """``expression`` as it can stand as an operand or a receiver: in parentheses where it needs them."""
    if isinstance(expression, _LOOSE) and not expression.lpar:
        return expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expression


def where_call(torch: str, condition: cst.BaseExpression, when_true: cst.BaseExpression,
               when_false: cst.BaseExpression) -> cst.Call:
    """``torch.where(condition, when_true, when_false)``, the arguments without parentheses they do not need
    there (``torch`` is the file's name for the module)."""
    def bare(expression: cst.BaseExpression) -> cst.BaseExpression:
        return expression.with_changes(lpar=[], rpar=[]) if getattr(expression, "lpar", None) else expression

    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.Call(cst.Attribute(cst.Name(torch), cst.Name("where")),
                    [cst.Arg(bare(condition), comma=comma), cst.Arg(bare(when_true), comma=comma),
                     cst.Arg(bare(when_false))])


def keep_tensor(read: cst.Call, tensor: cst.BaseExpression) -> Replace:
    """``x * s.item()`` -> ``x * s``: the arithmetic stays in the graph. Unsafe: the result's dtype can
    follow the tensor's, and a tensor on another device than ``x`` raises where the number did not."""
    return Replace(read, parenthesized(tensor), "keep the value a tensor in the arithmetic (no read into Python)",
                   Applicability.UNSAFE)


def is_pure(context: LintContext, expression: cst.CSTNode) -> bool:
    """Whether evaluating ``expression`` changes nothing and reads no tensor data into Python: names,
    constants, operators, ``torch.*`` functions and tensor methods that are not in place (no ``_`` suffix).
    Answers are kept per node for the function being walked (``LintContext.pure``), so nested conditional
    expressions, each asked about, cost one pass over the tree, not one per level."""
    known = context.pure
    answer = known.get(id(expression))
    if answer is None:
        answer = _pure_here(context, expression) and all(is_pure(context, child) for child in children(expression))
        known[id(expression)] = answer
    return answer


def _pure_here(context: LintContext, node: cst.CSTNode) -> bool:
    if isinstance(node, (cst.Lambda, cst.Yield, cst.Await, cst.NamedExpr)) or isinstance(node, cst.BaseComp):
        return False
    if isinstance(node, cst.Call):
        resolved = context.resolve(node.func) or ""
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
        if resolved.startswith("torch."):
            return not (resolved.endswith("_") or ".rand" in resolved or "dropout" in resolved)
        return bool(method and not method.endswith("_") and method not in _IMPURE_METHODS
                    and context.kind(node.func.value).is_tensor_like)  # type: ignore[attr-defined]
    return True


def eager_only(call: cst.Call) -> GuardStatement:
    """The side-effect rules' fix (print, logging, warnings, I/O): the call runs eagerly as before and is
    dropped from what Dynamo traces, so the compiled program no longer does it (unsafe)."""
    return GuardStatement(call, "run the call only when not compiling (`if not torch.compiler.is_compiling():`); "
                                "under torch.compile it no longer runs")


def module_name(aliases: Mapping[str, str], module: str) -> str:
    """The name the file binds ``module`` to at its top (``import torch as th``: ``th``), else the module's."""
    for alias, qualified in aliases.items():
        if qualified == module:
            return alias
    return module


@dataclass(frozen=True)
class FileText:
    """What ``to_fix`` needs of the file: its lines, its top-level import bindings, and its source."""

    lines: list[str]  # as ``source_lines.python_lines`` cuts them, endings kept
    aliases: Mapping[str, str]
    source: str

    @cached_property
    def import_line(self) -> int:
        """Where a new top-level import goes (the file is parsed once, for its first fix that needs one)."""
        return _after_imports(self.source)


def to_fix(
    rewrite: Rewrite,
    module: cst.Module,
    span: Callable[[cst.CSTNode], CodeRange],
    position: Callable[[int, int], Position],
    parents: Callable[[], Mapping[int, cst.CSTNode]],
    text: FileText,
) -> Fix | None:
    """The fix of one rewrite; ``None`` when the node it needs is not where the rewrite expects it
    (a call that is not its statement's whole expression, a statement sharing its line)."""
    if isinstance(rewrite, ReplaceFunction):
        found = _replace_function(rewrite, text)
        edits = [found] if found is not None else []
    else:
        parts = rewrite.parts if isinstance(rewrite, Combined) else (rewrite,)
        edits = [edit for part in parts if (edit := _part(part, module, span, position, parents, text)) is not None]
        if len(edits) < len(parts):
            return None  # a part cannot be made: none is
    if not edits:
        return None
    edits += [_import_edit(line, text) for line in rewrite.imports if not _bound(line, text.aliases)]
    return Fix(rewrite.applicability, rewrite.message, tuple(sorted(set(edits))))


def _part(
    rewrite: Replace | GuardStatement | RemoveStatement, module: cst.Module, span: Callable[[cst.CSTNode], CodeRange],
    position: Callable[[int, int], Position], parents: Callable[[], Mapping[int, cst.CSTNode]], text: FileText,
) -> Edit | None:
    if isinstance(rewrite, Replace):
        return _replace(rewrite.node, rewrite.replacement, module, span, position, text)
    statement = _statement_of(rewrite.node, parents())
    if statement is None:
        return None
    if isinstance(rewrite, GuardStatement):
        torch = module_name(text.aliases, "torch")
        guarded = cst.If(
            test=cst.UnaryOperation(cst.Not(), cst.parse_expression(f"{torch}.compiler.is_compiling()")),
            body=cst.IndentedBlock([statement.with_changes(leading_lines=())]),
        )
        return _replace(statement, guarded, module, span, position, text)
    return _remove(statement, parents(), module, span, position, text)


def _statement_of(call: cst.Call, parents: Mapping[int, cst.CSTNode]) -> cst.SimpleStatementLine | None:
    """The statement line that holds ``call`` as its one and only statement's whole expression."""
    expression = parents.get(id(call))
    line = parents.get(id(expression)) if expression is not None else None
    if type(expression) is cst.Expr and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
        return line
    return None


def _replace(
    node: cst.CSTNode, replacement: cst.CSTNode, module: cst.Module, span: Callable[[cst.CSTNode], CodeRange],
    position: Callable[[int, int], Position], text: FileText,
) -> Edit | None:
    where = span(node)
    start = position(where.start.line, where.start.column)
    if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        # The statement's span stops before its trailing comment: the new statement carries the comment
        # (LibCST renders it), so the edit runs to the end of the last line, newline excluded. A
        # ``cst.Module`` replacement stands for several statements.
        end_line = position(where.end.line, 0).line
        line = text.lines[end_line - 1]
        end = Position(end_line, len(line.rstrip("\r\n")) + 1)
        indent = line_indent(text.lines[start.line - 1])
        if isinstance(replacement, cst.Module):  # rendered with the file's own newline and indentation
            code = replacement.with_changes(default_newline=module.default_newline,
                                            default_indent=module.default_indent).code
        else:
            code = module.code_for_node(replacement)
        rendered = code.rstrip("\r\n")
        content = rendered.replace("\n", "\n" + indent)
        # A blank line keeps no indentation, and keeps its ``\r`` in a CRLF file.
        content = "\n".join(part if part.strip() else "\r" * part.endswith("\r")
                            for part in content.split("\n"))
    else:
        end = position(where.end.line, where.end.column)
        content = module.code_for_node(replacement)
    return Edit(start, end, content)


def _remove(
    statement: cst.SimpleStatementLine, parents: Mapping[int, cst.CSTNode], module: cst.Module,
    span: Callable[[cst.CSTNode], CodeRange], position: Callable[[int, int], Position], text: FileText,
) -> Edit | None:
    block = parents.get(id(statement))
    if isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
        return _replace(statement, cst.SimpleStatementLine([cst.Pass()]), module, span, position, text)
    where = span(statement)
    first, last = position(where.start.line, 0).line, position(where.end.line, 0).line
    # Comment lines above it stay (they may describe what follows); its own lines go whole: from the start
    # of the first to the start of the line after the last.
    return Edit(Position(first, 1), Position(last + 1, 1), "")


def line_indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _bound(module: str, aliases: Mapping[str, str]) -> bool:
    """Whether the file binds ``module`` (``torch``, or ``pkg.mod as alias``) at its top already."""
    module, _, alias = module.partition(" as ")
    return aliases.get(alias or module.partition(".")[0]) == (module if alias else module.partition(".")[0])


def _import_edit(module: str, text: FileText) -> Edit:
    """``import module`` on a line of its own after the file's last top-level import (after its docstring
    and ``from __future__`` imports when it has none); identical for every fix of the file, so they merge."""
    line = text.import_line
    newline = "\r\n" if text.lines and text.lines[0].endswith("\r\n") else "\n"
    return Edit(Position(line, 1), Position(line, 1), f"import {module}{newline}")


def _replace_function(rewrite: ReplaceFunction, text: FileText) -> Edit | None:
    """The smallest edit that turns the file's text into its text with the function transformed."""
    try:
        whole = cst.parse_module(text.source)
    except Exception:  # noqa: BLE001 - LibCST's own limits: no fix, the finding stands
        return None
    found = _function(whole, rewrite.qualname.split("."))
    if found is None:
        return None
    new = rewrite.transform(found)
    if new is None:
        return None
    after = whole.deep_replace(found, new)
    assert isinstance(after, cst.Module)
    return _difference(text.source, after.code)


def _function(module: cst.Module, path: list[str]) -> cst.FunctionDef | None:
    body: Sequence[cst.CSTNode] = module.body
    for index, name in enumerate(path):
        node = next((s for s in body if isinstance(s, (cst.FunctionDef, cst.ClassDef)) and s.name.value == name), None)
        if node is None:
            return None
        if index == len(path) - 1:
            return node if isinstance(node, cst.FunctionDef) else None
        if not isinstance(node.body, cst.IndentedBlock):
            return None
        body = node.body.body
    return None


def _difference(before: str, after: str) -> Edit | None:
    """One edit from the first character that differs to the last (whole lines, so that it reads well)."""
    if before == after:
        return None
    old, new = python_lines(before), python_lines(after)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return Edit(Position(head + 1, 1), Position(len(old) - tail + 1, 1), "".join(new[head: len(new) - tail]))


def _after_imports(source: str) -> int:
    """The 1-based line where a new top-level import goes."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return 1
    after = 1
    for index, statement in enumerate(body):
        docstring = (index == 0 and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
                     and isinstance(statement.value.value, str))
        if isinstance(statement, (ast.Import, ast.ImportFrom)) or docstring:
            after = (statement.end_lineno or statement.lineno) + 1
        elif not isinstance(statement, ast.Expr):
            break
    return after
