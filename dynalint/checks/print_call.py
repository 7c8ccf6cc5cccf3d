"""DYN201 ``print-call``: console output inside compiled code. Page: ``rules/DYN201-print-call.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rewrites import Rewrite, eager_only
from dynalint.lint.rule import CallRule
from dynalint.model.finding import Applicability


class PrintCall(CallRule):
    code = "DYN201"
    name = "print-call"
    message = "`{call}` in compiled code breaks the graph"
    help = "Move the output out of the compiled function, or guard it with `if not torch.compiler.is_compiling():`"
    gb_ids = ("GB0059", "GB0156", "GB0569")
    fix = Applicability.UNSAFE
    calls = frozenset({"builtins.print", "sys.stdout.write", "sys.stderr.write", "pprint.pprint", "pprint.pp"})

    def applies(self, node: cst.Call, resolved: str) -> bool:
        return resolved not in self.context.settings.reorderable_logging_functions

    def rewrite(self, node: cst.Call, resolved: str) -> Rewrite:
        return eager_only(node)
