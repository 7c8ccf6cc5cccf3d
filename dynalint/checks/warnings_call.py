"""DYN203 ``warnings-call``: the ``warnings`` module inside compiled code. Page: ``rules/DYN203-warnings-call.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rewrites import Rewrite, eager_only
from dynalint.lint.rule import CallRule
from dynalint.model.finding import Applicability


class WarningsCall(CallRule):
    code = "DYN203"
    name = "warnings-call"
    message = "`{call}` in compiled code breaks the graph"
    help = "Warn outside the compiled function, or guard it with `if not torch.compiler.is_compiling():`"
    gb_ids = ("GB0007",)
    fix = Applicability.UNSAFE
    # All are C functions of ``_warnings`` (or Python ones in a module Dynamo skips). ``catch_warnings``
    # is traced and is not here.
    calls = frozenset(
        {"warnings.warn", "warnings.warn_explicit", "warnings.simplefilter", "warnings.filterwarnings",
         "warnings.resetwarnings"}
    )

    def applies(self, node: cst.Call, resolved: str) -> bool:
        settings = self.context.settings
        return resolved not in settings.reorderable_logging_functions | settings.ignore_logging_functions

    def rewrite(self, node: cst.Call, resolved: str) -> Rewrite:
        return eager_only(node)
