"""DYN201 ``print-call``: console output inside compiled code. Page: ``rules/DYN201-print-call.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.rule import Rule

CONSOLE_WRITERS = frozenset(
    {"builtins.print", "sys.stdout.write", "sys.stderr.write", "pprint.pprint", "pprint.pp"}
)


class PrintCall(Rule):
    code = "DYN201"
    name = "print-call"
    message = "`{call}` in compiled code breaks the graph"
    help = "Move the output out of the compiled function, or guard it with `if not torch.compiler.is_compiling():`"
    gb_ids = ("GB0059", "GB0156", "GB0569")

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved in CONSOLE_WRITERS and resolved not in self.context.settings.reorderable_logging_functions:
            self.report(node, call=f"{resolved.removeprefix('builtins.')}()")
