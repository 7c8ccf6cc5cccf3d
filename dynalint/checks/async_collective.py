"""DYN302 ``async-collective``: ``async_op=True`` collectives and ``wait()`` on their handles. Page: ``rules/DYN302-async-collective.md``.

Dynamo rewrites the synchronous in-place collectives into functional collectives, but refuses
``async_op=True`` (GB0172): the ``Work`` handle it would return has no graph representation. Waiting on
a handle is an unsupported method call of its own (GB0156). The value analysis has no kind for work
handles, so this rule tracks them itself, per function: names bound to an ``async_op=True`` call of any
collective, and lists built from such calls. ``broadcast`` / ``reduce`` / ``barrier`` and the other
collectives that break whether or not they are asynchronous are DYN303's; only their handles' ``wait()``
is reported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from dynalint.lint.rewrites import Combined, RemoveStatement, Replace
from dynalint.lint.rule import Rule
from dynalint.model.finding import Applicability

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

# Position of ``async_op`` among the positional parameters, for each collective that has one.
ASYNC_OP_POSITION = {
    "all_reduce": 3, "all_gather": 3, "all_gather_into_tensor": 3, "reduce_scatter_tensor": 4,
    "all_to_all_single": 5, "_all_gather_base": 3, "_reduce_scatter_base": 4, "broadcast": 3, "reduce": 4,
    "barrier": 1, "gather": 4, "scatter": 4, "reduce_scatter": 4, "all_to_all": 3, "all_reduce_coalesced": 3,
}
# The collectives Dynamo rewrites to functional collectives when synchronous (torch 2.13,
# ``traceable_collective_remaps``); with ``async_op=True`` they break with GB0172. The others break with
# GB0007 whether asynchronous or not, and DYN303 reports them.
TRACEABLE = frozenset(
    {"all_reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single",
     "_all_gather_base", "_reduce_scatter_base"}
)
PREFIXES = ("torch.distributed.distributed_c10d.", "torch.distributed.")


@dataclass
class _Handles:
    """Work handles of one function body: single handles and lists of them, by local name."""

    single: set[str] = field(default_factory=set)
    lists: set[str] = field(default_factory=set)
    loop_depth: int = 0


class AsyncCollective(Rule):
    code = "DYN302"
    name = "async-collective"
    message = "`{call}` {where} breaks the graph"
    help = "Drop `async_op=True` and call the collective synchronously, or use the functional collectives and `wait_tensor`"
    gb_ids = ("GB0172", "GB0156")
    fix = Applicability.UNSAFE

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._scopes: list[_Handles] = []
        # ``work = dist.all_reduce(t, async_op=True)`` statement lines, by the handle's name: the fix of the
        # ``work.wait()`` makes that call synchronous.
        self._started: dict[str, tuple[cst.SimpleStatementLine, cst.Call]] = {}

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        statement = node.body[0] if len(node.body) == 1 else None
        if (isinstance(statement, cst.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0].target, cst.Name) and isinstance(statement.value, cst.Call)
                and self._async_collective(statement.value) in TRACEABLE):
            self._started[statement.targets[0].target.value] = (node, statement.value)

    # -- scopes and loops ---------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(_Handles())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_For(self, node: cst.For) -> None:
        scope = self._scope
        if scope is None:
            return
        # ``for work in works:`` over a list of handles binds a handle.
        if isinstance(node.iter, cst.Name) and node.iter.value in scope.lists and isinstance(node.target, cst.Name):
            scope.single.add(node.target.value)
        elif isinstance(node.target, cst.Name):
            scope.single.discard(node.target.value)
        scope.loop_depth += 1

    def leave_For(self, original_node: cst.For) -> None:
        if self._scope is not None:
            self._scope.loop_depth -= 1

    def visit_While(self, node: cst.While) -> None:
        if self._scope is not None:
            self._scope.loop_depth += 1

    def leave_While(self, original_node: cst.While) -> None:
        if self._scope is not None:
            self._scope.loop_depth -= 1

    # -- handles ------------------------------------------------------------------------------------
    def leave_Assign(self, original_node: cst.Assign) -> None:
        for target in original_node.targets:
            self._bind(target.target, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if original_node.value is not None:
            self._bind(original_node.target, original_node.value)

    def visit_Call(self, node: cst.Call) -> None:
        name = self._async_collective(node)
        if name is not None and name in TRACEABLE:
            self.report(node, call=f"torch.distributed.{name}(async_op=True)", where="in compiled code")
            return
        func = node.func
        if not isinstance(func, cst.Attribute) or self._scope is None:
            return
        scope = self._scope
        receiver = func.value
        if func.attr.value == "append" and isinstance(receiver, cst.Name) and len(node.args) == 1:
            if self._tracked_async_call(node.args[0].value):
                scope.lists.add(receiver.value)
        elif func.attr.value == "wait" and not node.args and self._is_handle(receiver):
            self.report(node, call="Work.wait()", where="on an asynchronous collective's handle",
                        rewrite=self._synchronous(receiver, node))

    def _synchronous(self, handle: cst.BaseExpression, wait: cst.Call) -> Combined | None:
        """``work = dist.all_reduce(t, async_op=True)`` ... ``work.wait()`` -> ``dist.all_reduce(t)`` and no
        wait: the collective Dynamo traces. Unsafe: the communication no longer overlaps what ran between."""
        started = self._started.get(handle.value) if isinstance(handle, cst.Name) else None
        if started is None:
            return None
        line, call = started
        arguments = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "async_op")]
        if len(arguments) == len(call.args):  # ``async_op`` passed by position: left to a person
            return None
        arguments[-1] = arguments[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        synchronous = line.with_changes(body=[cst.Expr(call.with_changes(args=arguments))])
        return Combined((Replace(line, synchronous, "", Applicability.UNSAFE), RemoveStatement(wait, "")),
                        "call the collective synchronously (no `async_op`, no `wait()`), which Dynamo traces",
                        Applicability.UNSAFE)

    # -- helpers ------------------------------------------------------------------------------------
    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        scope = self._scope
        if scope is None or not isinstance(target, cst.Name):
            return
        scope.single.discard(target.value)
        scope.lists.discard(target.value)
        if self._tracked_async_call(value):
            scope.single.add(target.value)
        elif self._is_handle_list(value):
            scope.lists.add(target.value)

    @property
    def _scope(self) -> _Handles | None:
        return self._scopes[-1] if self._scopes else None

    def _async_collective(self, node: cst.BaseExpression) -> str | None:
        """The collective's short name if ``node`` calls one with a literal ``async_op=True``."""
        if not isinstance(node, cst.Call):
            return None
        resolved = self.context.resolve(node.func) or ""
        name = next((resolved[len(p):] for p in PREFIXES if resolved.startswith(p)), None)
        if name not in ASYNC_OP_POSITION:
            return None
        for index, arg in enumerate(node.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            is_async_op = keyword == "async_op" or (
                keyword is None and arg.star == "" and index == ASYNC_OP_POSITION[name]
            )
            if is_async_op:
                return name if isinstance(arg.value, cst.Name) and arg.value.value == "True" else None
        return None

    def _tracked_async_call(self, node: cst.BaseExpression) -> bool:
        """An asynchronous collective whose handle can reach a traced ``wait()``.

        A graph break inside a loop statement makes Dynamo run the rest of the frame eagerly, so
        handles produced in a loop are never waited on in traced code.
        """
        scope = self._scope
        return scope is not None and scope.loop_depth == 0 and self._async_collective(node) is not None

    def _is_handle_list(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.ListComp):
            return self._tracked_async_call(node.elt)
        if isinstance(node, (cst.List, cst.Tuple)) and node.elements:
            return all(self._tracked_async_call(e.value) for e in node.elements)
        return False

    def _is_handle(self, node: cst.BaseExpression) -> bool:
        scope = self._scope
        if scope is None:
            return False
        if isinstance(node, cst.Name):
            return node.value in scope.single
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            return node.value.value in scope.lists
        return False
