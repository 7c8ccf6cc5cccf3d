"""``torch.compiler.is_compiling()`` guards: which branches Dynamo never traces.

Shared by the summarize stage (``ast``: calls under such a guard do not make their callees compiled)
and the region provider (LibCST: findings under such a guard are not reported). Under compile,
``is_compiling()`` is a constant ``True``, so Dynamo traces only one side of the test:

- ``if not is_compiling(): A`` / ``if not is_compiling() and x: A`` -> ``A`` is never traced;
- ``if is_compiling(): A else: B`` / ``elif ...`` / ``if is_compiling() or x: A else: B`` -> ``B`` is never traced;
- ``if is_compiling(): return`` -> nothing after it in the same block is traced.

``is_compiling()`` may also be read through a local name (``compiling = torch.compiler.is_compiling()``).
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable, Sequence

import libcst as cst

class Untraced(enum.Enum):
    BODY = "body"  # the ``if`` body is never traced
    ELSE = "else"  # the ``else`` / ``elif`` part is never traced


# -- ast ------------------------------------------------------------------------------------------
def ast_guard(test: ast.expr, is_compiling: Callable[[ast.expr], bool]) -> Untraced | None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and is_compiling(test.operand):
        return Untraced.BODY
    if is_compiling(test):
        return Untraced.ELSE
    if isinstance(test, ast.BoolOp):
        inner = [ast_guard(value, is_compiling) for value in test.values]
        if isinstance(test.op, ast.And) and Untraced.BODY in inner:
            return Untraced.BODY
        if isinstance(test.op, ast.Or) and Untraced.ELSE in inner:
            return Untraced.ELSE
    return None


def ast_statements_after_early_exit(body: Sequence[ast.stmt], is_compiling: Callable[[ast.expr], bool]) -> list[ast.stmt]:
    """Statements following ``if is_compiling(): return ...`` in one block."""
    for index, statement in enumerate(body):
        if (
            isinstance(statement, ast.If)
            and ast_guard(statement.test, is_compiling) is Untraced.ELSE
            and statement.body
            and isinstance(statement.body[-1], (ast.Return, ast.Raise))
        ):
            return list(body[index + 1:])
    return []


# -- LibCST ---------------------------------------------------------------------------------------
def cst_guard(test: cst.BaseExpression, is_compiling: Callable[[cst.BaseExpression], bool]) -> Untraced | None:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return Untraced.BODY if is_compiling(test.expression) else None
    if is_compiling(test):
        return Untraced.ELSE
    if isinstance(test, cst.BooleanOperation):
        inner = (cst_guard(test.left, is_compiling), cst_guard(test.right, is_compiling))
        if isinstance(test.operator, cst.And) and Untraced.BODY in inner:
            return Untraced.BODY
        if isinstance(test.operator, cst.Or) and Untraced.ELSE in inner:
            return Untraced.ELSE
    return None


def cst_statements_after_early_exit(
    body: Sequence[cst.BaseStatement], is_compiling: Callable[[cst.BaseExpression], bool]
) -> list[cst.BaseStatement]:
    for index, statement in enumerate(body):
        if isinstance(statement, cst.If) and cst_guard(statement.test, is_compiling) is Untraced.ELSE:
            last = statement.body.body[-1] if isinstance(statement.body, cst.IndentedBlock) else None
            small = last.body[-1] if isinstance(last, cst.SimpleStatementLine) and last.body else None
            if isinstance(small, (cst.Return, cst.Raise)) or (
                isinstance(statement.body, cst.SimpleStatementSuite)
                and isinstance(statement.body.body[-1], (cst.Return, cst.Raise))
            ):
                return list(body[index + 1:])
    return []
