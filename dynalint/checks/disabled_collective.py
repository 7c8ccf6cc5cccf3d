"""DYN301 ``disabled-collective``: calls of ``disable``d helpers around collectives. Page: ``rules/DYN301-disabled-collective.md``."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import COLLECTIVES, DISABLE
from dynalint.lint.rewrites import ReplaceFunction, module_name
from dynalint.lint.rule import Rule
from dynalint.model.finding import Applicability


class DisabledCollective(Rule):
    code = "DYN301"
    name = "disabled-collective"
    message = "`{callee}` is excluded from compilation and issues collectives: each call breaks the graph"
    help = "Drop the `disable` and call the collective directly, or use `torch.distributed._functional_collectives`"
    gb_ids = ("GB0098", "GB0099", "GB0007")
    supersedes = ("DYN002",)  # the same call: its collectives are what the user needs to hear about
    # Display-only: measured with gloo at world size 2, the functional all_reduce's backward reduces the
    # gradient too (2.0 -> 4.0 per element), where the in-place one was invisible to autograd.
    fix = Applicability.DISPLAY_ONLY

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        # ``torch.compiler.disable(helper)(x)``: wrapped on the spot.
        if isinstance(func, cst.Call) and func.args and self.context.resolve(func.func) in DISABLE:
            target = self.context.resolve_call(func.args[0].value)
            if target is not None and self._issues_collectives(target.function):
                self.report(node, callee=self._short(target.function))
            return
        target = self.context.resolve_call(func)
        if target is not None and target.disabled and self._issues_collectives(target.function):
            self.report(node, callee=self._short(target.function), rewrite=self._functional(target.function))

    def _functional(self, function: str) -> ReplaceFunction | None:
        """The helper, when it is in this file, rewritten to the functional collectives."""
        summary = self.context.summary
        prefix = f"{summary.module}." if summary.module else ""
        if not function.startswith(prefix) or function[len(prefix):] not in summary.functions:
            return None
        imports = self.context.imports
        bound = module_name(imports.aliases, FUNCTIONAL)
        funcol = "funcol" if bound == FUNCTIONAL else bound  # the file's own name for it, else ``funcol``
        return ReplaceFunction(
            function[len(prefix):], lambda node: functional_collectives(node, imports.resolve, funcol),
            "trace the collective: drop the `disable` and call `torch.distributed._functional_collectives` "
            "(check the gradients: the functional all_reduce reduces them too)",
            Applicability.DISPLAY_ONLY, imports=(f"{FUNCTIONAL} as {funcol}",),
        )

    def _issues_collectives(self, function: str) -> bool:
        return self.context.program.issues_collectives(function)

    def _short(self, function: str) -> str:
        return self.context.program.display_name(function)


FUNCTIONAL = "torch.distributed._functional_collectives"
_REDUCE_OPS = {"SUM": "sum", "AVG": "avg", "PRODUCT": "product", "MIN": "min", "MAX": "max"}


def functional_collectives(function: cst.FunctionDef, resolve: Callable[[str | None], str | None],
                           funcol: str) -> cst.FunctionDef | None:
    """The helper without its ``disable`` decorator, each ``dist.all_reduce(t, ...)`` statement made
    ``t = funcol.all_reduce(t, "sum", group)``. ``None`` when it does anything else collective (another
    collective, ``async_op``, a reduce op not spelled ``ReduceOp.X``), or is not decorated with ``disable``
    (wrapped elsewhere): those need a person. Display-only: the caller's tensor is no longer reduced in
    place, and the gradient is reduced across ranks in the backward pass, which it was not."""
    decorators = [d for d in function.decorators if _decorator_name(d, resolve) not in DISABLE]
    if len(decorators) == len(function.decorators) or not isinstance(function.body, cst.IndentedBlock):
        return None
    body: list[cst.BaseStatement] = []
    rewritten = False
    for statement in function.body.body:
        calls = [c for c in _calls(statement) if resolve(dotted_name(c.func)) in COLLECTIVES]
        if not calls:
            body.append(statement)
            continue
        new = _functional_all_reduce(statement, resolve, funcol)
        if new is None:
            return None
        body.append(new)
        rewritten = True
    if not rewritten:
        return None
    return function.with_changes(decorators=decorators, body=function.body.with_changes(body=body))


def _decorator_name(decorator: cst.Decorator, resolve: Callable[[str | None], str | None]) -> str | None:
    expression = decorator.decorator
    return resolve(dotted_name(expression.func if isinstance(expression, cst.Call) else expression))


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

    node.visit(Calls())
    return found


def _functional_all_reduce(statement: cst.BaseStatement, resolve: Callable[[str | None], str | None],
                           funcol: str) -> cst.SimpleStatementLine | None:
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.Call)):
        return None
    call = statement.body[0].value
    if resolve(dotted_name(call.func)) != "torch.distributed.all_reduce" or not isinstance(call.func, cst.Attribute):
        return None
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or set(keywords) - {"op", "group", "tensor"}:
        return None
    tensor = keywords.get("tensor", positional[0] if positional else None)
    op = keywords.get("op", positional[1] if len(positional) > 1 else None)
    group = keywords.get("group", positional[2] if len(positional) > 2 else None)
    if not isinstance(tensor, cst.Name):
        return None
    reduce = "sum" if op is None else _REDUCE_OPS.get(op.attr.value if isinstance(op, cst.Attribute) else "")
    if reduce is None:
        return None
    dist = cst.Module([]).code_for_node(call.func.value)
    new = cst.parse_statement(f'{tensor.value} = {funcol}.all_reduce({tensor.value}, "{reduce}", {dist}.group.WORLD)\n')
    assert isinstance(new, cst.SimpleStatementLine)
    if group is not None:
        value = new.body[0]
        assert isinstance(value, cst.Assign) and isinstance(value.value, cst.Call)
        args = list(value.value.args)
        args[2] = args[2].with_changes(value=group)
        new = new.with_changes(body=[value.with_changes(value=value.value.with_changes(args=args))])
    return new.with_changes(leading_lines=statement.leading_lines, trailing_whitespace=statement.trailing_whitespace)
