"""DYN104 ``tensor-to-scalar``: ``int(t)``, ``float(t)``, ``complex(t)``. Page: ``rules/DYN104-tensor-to-scalar.md``.

``bool(t)`` is DYN102's (it is a branch in disguise). A conversion inside a slice bound that DYN103
reports is reported here too; DYN103 supersedes it, so the engine keeps only the slice's finding
when both rules are selected.
"""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rewrites import keep_tensor
from dynalint.lint.rule import TensorArithmeticRule
from dynalint.model.finding import Applicability

CONVERSIONS = {"builtins.int": "int", "builtins.float": "float", "builtins.complex": "complex"}


class TensorToScalar(TensorArithmeticRule):
    code = "DYN104"
    name = "tensor-to-scalar"
    message = "`{call}()` on a tensor in compiled code reads its value into Python and breaks the graph"
    help = "Keep the value a tensor (tensor arithmetic, `torch.where`), or convert it after the compiled call returns"
    gb_ids = ("GB0124", "GB0059")
    fix = Applicability.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        call = CONVERSIONS.get(self.context.resolve(node.func) or "")
        if call is None or len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        if call != "complex" and self.context.settings.capture_scalar_outputs:
            return  # traced as an unbacked symbol; ``complex()`` has no such path
        kind = self.context.kind(node.args[0].value)
        if kind.is_tensor_like:
            # ``float(t)`` only: ``int(t)`` truncates, which the tensor would not.
            keep = call == "float" and self.in_tensor_arithmetic(node)
            rewrite = keep_tensor(node, node.args[0].value) if keep else None
            self.report(node, confidence=kind.confidence, rewrite=rewrite, call=call)

