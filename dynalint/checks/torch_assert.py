"""DYN108 ``torch-assert``: ``torch._assert`` on a tensor condition. Page: ``rules/DYN108-torch-assert.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rule import Rule


class TorchAssert(Rule):
    code = "DYN108"
    name = "torch-assert"
    message = "`torch._assert()` of a tensor condition in compiled code reads it into Python and breaks the graph"
    help = "Use a plain `assert` or `torch._assert_async`, which Dynamo keeps in the graph"
    gb_ids = ("GB0033",)

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
            self.report(node, confidence=kind.confidence)
