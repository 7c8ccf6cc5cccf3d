"""DYN001 ``explicit-graph-break``: ``torch._dynamo.graph_break()``. Page: ``rules/DYN001-explicit-graph-break.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rewrites import RemoveStatement, Rewrite
from dynalint.lint.rule import CallRule
from dynalint.model.finding import Applicability


class ExplicitGraphBreak(CallRule):
    code = "DYN001"
    name = "explicit-graph-break"
    message = "`{call}` in compiled code splits the graph on purpose"
    help = "Remove the call; to get two graphs, compile the two halves as separate functions"
    gb_ids = ("GB0025",)
    fix = Applicability.UNSAFE  # the numbers are kept; the split the user asked for is gone
    calls = frozenset({"torch._dynamo.graph_break", "torch._dynamo.decorators.graph_break"})

    def rewrite(self, node: cst.Call, resolved: str) -> Rewrite:
        return RemoveStatement(node, "remove the call: one graph instead of two")
