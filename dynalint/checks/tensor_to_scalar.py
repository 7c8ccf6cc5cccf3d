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

_TENSOR_READ = ("GB0124", "GB0059")  # through ``.item()``; ``complex()``: not traced at all
CONVERSIONS = {"builtins.int": "int", "builtins.float": "float", "builtins.complex": "complex"}


class TensorToScalar(TensorArithmeticRule):
    code = "DYN104"
    name = "tensor-to-scalar"
    message = "`{call}()` on a tensor in compiled code reads its value into Python and breaks the graph"
    help = "Keep the value a tensor (tensor arithmetic, `torch.where`), or convert it after the compiled call returns"
    gb_ids = ("GB0124", "GB0059", "GB0033")
    fix = Applicability.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        call = CONVERSIONS.get(self.context.resolve(node.func) or "")
        if call is None or len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        if call != "complex" and self.context.settings.capture_scalar_outputs:
            return  # traced as an unbacked symbol; ``complex()`` has no such path
        value = node.args[0].value
        kind = self.context.kind(value)
        if kind.is_tensor_like:
            if self.context.values.is_numpy_array(value):  # ``int(np.prod([h, w]))``: a data-dependent read
                self.report(node, confidence=kind.confidence, gb_ids=("GB0033",), pattern="numpy", call=call)
                return
            # ``float(t)`` only: ``int(t)`` truncates, which the tensor would not.
            keep = call == "float" and self.in_tensor_arithmetic(node)
            rewrite = keep_tensor(node, value) if keep else None
            self.report(node, confidence=kind.confidence, rewrite=rewrite, gb_ids=_TENSOR_READ, call=call)

