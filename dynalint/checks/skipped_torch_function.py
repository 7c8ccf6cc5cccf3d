"""DYN003 ``skipped-torch-function``: a call of a torch function that Dynamo skips. Page:
``rules/DYN003-skipped-torch-function.md``.

Dynamo keeps, in its trace rules, a list of torch functions it never traces (``torch.jit.isinstance``,
``pack_padded_sequence``, ``torch.to_dlpack``, ...): a call of one from compiled code ends the graph,
runs it eagerly and resumes after it. The list is data in ``torch_facts.SKIPPED_FUNCTIONS``, checked
against the installed torch's trace rules by the tests. Names are resolved through the imports, so
``from torch.nn.utils.rnn import pack_padded_sequence`` is found as well as the dotted call. Two queries Dynamo
does not skip but refuses while tracing break the same way (``torch_facts.UNTRACED_TORCH_QUERIES``:
``torch.is_inference_mode_enabled()``, GB0046, and ``torch.is_inference(t)``, GB0208; measured on torch 2.13).
A torch function that Dynamo inlines but that calls a skipped one breaks at its own call the same way
(``torch_facts.CALLING_SKIPPED_FUNCTIONS``: ``pack_sequence``).
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.torch_facts import CALLING_SKIPPED_FUNCTIONS, SKIPPED_FUNCTIONS, UNTRACED_TORCH_QUERIES
from dynalint.lint.rule import Rule


class SkippedTorchFunction(Rule):
    code = "DYN003"
    name = "skipped-torch-function"
    message = ("`{call}` is a torch function that torch.compile does not trace: calling it in compiled code breaks "
               "the graph")
    help = "Call it outside the compiled function (for `torch.jit.isinstance`, use `isinstance`)"
    gb_ids = ("GB0007", "GB0046", "GB0208")

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved in SKIPPED_FUNCTIONS or resolved in CALLING_SKIPPED_FUNCTIONS:
            self.report(node, call=f"{resolved}()")
        elif resolved in UNTRACED_TORCH_QUERIES:
            self.report(node, call=f"{resolved}()", gb_ids=(UNTRACED_TORCH_QUERIES[resolved],))
