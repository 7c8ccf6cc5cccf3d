"""``torch.compiler.is_compiling()`` guards: which branches Dynamo never traces.

Shared by the summarize stage (``ast``: calls under such a guard do not make their callees compiled)
and the region provider (LibCST: findings under such a guard are not reported). Under compile,
``is_compiling()`` is a constant ``True``, so Dynamo traces only one side of the test:

- ``if not is_compiling(): A`` / ``if not is_compiling() and x: A`` -> ``A`` is never traced;
- ``if is_compiling(): A else: B`` / ``elif ...`` / ``if is_compiling() or x: A else: B`` -> ``B`` is never traced;
- ``if is_compiling(): return`` -> nothing after it in the same block is traced.

``is_compiling()`` may also be read through a local name (``compiling = torch.compiler.is_compiling()``).
The decision is written once; ``AST`` and ``CST`` are the two readers that show it a tree's ``not``,
``and`` / ``or`` and ``if`` statements. ``CST`` is built on first use: the summarize stage needs no LibCST,
and a run with no compiled code never imports it.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any


class Untraced(enum.Enum):
    BODY = "body"  # the ``if`` body is never traced
    ELSE = "else"  # the ``else`` / ``elif`` part is never traced


@dataclass(frozen=True)
class Syntax:
    """How one tree library spells what guards look at."""

    negated: Callable[[Any], Any]  # the operand of ``not X``, else ``None``
    conjunction: Callable[[Any], tuple[bool, list[Any]] | None]  # (is ``and``, operands) of a boolean operation
    if_test: Callable[[Any], Any]  # the test of an ``if`` statement, else ``None``
    body_exits: Callable[[Any], bool]  # the ``if`` body's last statement is a ``return`` or ``raise``


def guard(test: Any, is_compiling: Callable[[Any], bool], syntax: Syntax,
          is_not_compiling: Callable[[Any], bool] = lambda test: False) -> Untraced | None:
    """Which side of ``if <test>:`` Dynamo never traces, if the test is an ``is_compiling()`` guard.

    ``is_not_compiling`` recognises what is false whenever Dynamo traces (a name bound to
    ``not is_compiling()``)."""
    operand = syntax.negated(test)
    if operand is not None:
        inner_guard = guard(operand, is_compiling, syntax, is_not_compiling)
        return {Untraced.ELSE: Untraced.BODY, Untraced.BODY: Untraced.ELSE, None: None}[inner_guard]
    if is_compiling(test):
        return Untraced.ELSE
    if is_not_compiling(test):
        return Untraced.BODY
    parts = syntax.conjunction(test)
    if parts is not None:
        is_and, operands = parts
        inner = [guard(operand, is_compiling, syntax, is_not_compiling) for operand in operands]
        if is_and and Untraced.BODY in inner:
            return Untraced.BODY
        if not is_and and Untraced.ELSE in inner:
            return Untraced.ELSE
    return None


def statements_after_early_exit(body: Sequence[Any], is_compiling: Callable[[Any], bool], syntax: Syntax) -> list[Any]:
    """Statements following ``if is_compiling(): return ...`` in one block: never traced."""
    for index, statement in enumerate(body):
        test = syntax.if_test(statement)
        if test is not None and guard(test, is_compiling, syntax) is Untraced.ELSE and syntax.body_exits(statement):
            return list(body[index + 1:])
    return []


# -- the two readers ------------------------------------------------------------------------------
def _ast_conjunction(test: ast.expr) -> tuple[bool, list[ast.expr]] | None:
    return (isinstance(test.op, ast.And), test.values) if isinstance(test, ast.BoolOp) else None


AST = Syntax(
    negated=lambda test: test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else None,
    conjunction=_ast_conjunction,
    if_test=lambda statement: statement.test if isinstance(statement, ast.If) else None,
    body_exits=lambda statement: bool(statement.body) and isinstance(statement.body[-1], (ast.Return, ast.Raise)),
)


def __getattr__(name: str) -> Syntax:
    if name == "CST":
        return _cst_reader()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=1)
def _cst_reader() -> Syntax:
    import libcst as cst

    def conjunction(test: cst.BaseExpression) -> tuple[bool, list[cst.BaseExpression]] | None:
        if not isinstance(test, cst.BooleanOperation):
            return None
        return isinstance(test.operator, cst.And), [test.left, test.right]

    def body_exits(statement: cst.If) -> bool:
        block = statement.body
        last = block.body[-1] if block.body else None
        if isinstance(last, cst.SimpleStatementLine):  # an indented block's last line
            last = last.body[-1] if last.body else None
        return isinstance(last, (cst.Return, cst.Raise))

    return Syntax(
        negated=lambda test: (
            test.expression if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) else None
        ),
        conjunction=conjunction,
        if_test=lambda statement: statement.test if isinstance(statement, cst.If) else None,
        body_exits=body_exits,
    )
