"""DYN108 ``torch-assert``: ``torch._assert`` on a tensor condition. Page: ``rules/DYN108-torch-assert.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rewrites import Replace, module_name
from dynalint.lint.rule import Rule
from dynalint.model.finding import Applicability


class TorchAssert(Rule):
    code = "DYN108"
    name = "torch-assert"
    message = "`torch._assert()` of a tensor condition in compiled code reads it into Python and breaks the graph"
    help = "Use a plain `assert` or `torch._assert_async`, which Dynamo keeps in the graph"
    gb_ids = ("GB0033",)
    fix = Applicability.UNSAFE  # a failing check raises RuntimeError instead of AssertionError

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.resolve(node.func) != "torch._assert":
            return
        positional = [a for a in node.args if a.keyword is None and not a.star]
        condition = positional[0] if positional else next(
            (a for a in node.args if a.keyword is not None and a.keyword.value == "condition"), None
        )
        if condition is None:
            return
        kind = self.context.kind(condition.value)
        if kind.is_tensor_like:
            self.report(node, confidence=kind.confidence, rewrite=self._asynchronous(node))

    def _asynchronous(self, node: cst.Call) -> Replace | None:
        """``torch._assert(cond, msg)`` -> ``torch._assert_async(cond, msg)``, positional arguments only."""
        if any(a.keyword is not None or a.star for a in node.args):
            return None
        torch = module_name(self.context.imports.aliases, "torch")
        return Replace(node.func, cst.parse_expression(f"{torch}._assert_async"),
                       "check the condition in the graph with `torch._assert_async`", Applicability.UNSAFE,
                       imports=("torch",))
