"""DYN301 ``disabled-collective``: calls of ``disable``d helpers around collectives. Page: ``rules/DYN301-disabled-collective.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.torch_facts import DISABLE
from dynalint.lint.rule import Rule


class DisabledCollective(Rule):
    code = "DYN301"
    name = "disabled-collective"
    message = "`{callee}` is excluded from compilation and issues collectives: each call breaks the graph"
    help = "Drop the `disable` and call the collective directly, or use `torch.distributed._functional_collectives`"
    gb_ids = ("GB0098", "GB0099", "GB0007")
    supersedes = ("DYN002",)  # the same call: its collectives are what the user needs to hear about

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
            self.report(node, callee=self._short(target.function))

    def _issues_collectives(self, function: str) -> bool:
        return self.context.program.issues_collectives(function)

    def _short(self, function: str) -> str:
        return self.context.program.display_name(function)
