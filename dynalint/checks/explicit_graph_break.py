"""DYN001 ``explicit-graph-break``: ``torch._dynamo.graph_break()``. Page: ``rules/DYN001-explicit-graph-break.md``."""

from __future__ import annotations

from dynalint.lint.rule import CallRule


class ExplicitGraphBreak(CallRule):
    code = "DYN001"
    name = "explicit-graph-break"
    message = "`{call}` in compiled code splits the graph on purpose"
    help = "Remove the call; to get two graphs, compile the two halves as separate functions"
    gb_ids = ("GB0025",)
    calls = frozenset({"torch._dynamo.graph_break", "torch._dynamo.decorators.graph_break"})
