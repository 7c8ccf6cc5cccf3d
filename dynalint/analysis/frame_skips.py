"""Where a break makes Dynamo give a whole frame up, read from a function's ``ast`` (program post-pass).

The lint stage knows this while it walks a function (``LintContext.skips_frame``); the program post-pass
(``pipeline/callee_breaks.py``) only has the file's text and the lines of the run's findings, so it asks
here. Measured on torch 2.13: a graph break inside a loop's body or a ``try`` block cannot be resumed
from, so Dynamo drops the frame and runs the function eagerly (from the last break it could resume
from); one under an ``if`` (or in a conditional expression's arm, or the right operand of ``and`` /
``or``) happens only on some paths and is not counted, as in the lint stage.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_CONDITIONAL_EXPRESSIONS = (ast.IfExp, ast.BoolOp)
_TRIES = (ast.Try, getattr(ast, "TryStar", ast.Try))  # ``try: ... except* E:`` from Python 3.11


def first_frame_skipping(function: ast.FunctionDef | ast.AsyncFunctionDef, lines: Iterable[int]) -> int | None:
    """The first of ``lines`` (lines of certain breaks in ``function``'s own code) where a break gives the
    frame up: inside a loop's body or a ``try`` block, on every path through the function."""
    return min((line for line in set(lines) if _skips_frame(function.body, line, inside=False)), default=None)


def _skips_frame(body: Sequence[ast.stmt], line: int, inside: bool) -> bool:
    statement = next((s for s in body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
    if statement is None or isinstance(statement, _NESTED_SCOPES):
        return False
    if isinstance(statement, (ast.If, ast.Match)):
        return False  # on some paths only
    if isinstance(statement, _LOOPS):
        if _holds(statement.body, line):
            return _skips_frame(statement.body, line, inside=True)
        return _skips_frame(statement.orelse, line, inside) if _holds(statement.orelse, line) else False
    if isinstance(statement, _TRIES):
        if _holds(statement.body, line):
            return _skips_frame(statement.body, line, inside=True)
        return _skips_frame(statement.finalbody, line, inside) if _holds(statement.finalbody, line) else False
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return _skips_frame(statement.body, line, inside) if _holds(statement.body, line) else inside
    return inside and not any(isinstance(node, _CONDITIONAL_EXPRESSIONS) for node in ast.walk(statement))


def _holds(body: Sequence[ast.stmt], line: int) -> bool:
    return any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in body)
