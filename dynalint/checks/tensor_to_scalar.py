"""DYN104 ``tensor-to-scalar``: ``int(t)``, ``float(t)``, ``complex(t)``. Page: ``rules/DYN104-tensor-to-scalar.md``.

``bool(t)`` is DYN102's (it is a branch in disguise). A conversion inside a slice bound is DYN103's
finding whenever DYN103 reports that slice, so it is skipped here: ``visit_Subscript`` runs before the
calls inside the subscript are visited and records them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.checks.tensor_bounded_slice import calls_within, reported_bounds
from dynalint.rule import Rule

if TYPE_CHECKING:
    from dynalint.regions import LintContext

CONVERSIONS = {"builtins.int": "int", "builtins.float": "float", "builtins.complex": "complex"}


class TensorToScalar(Rule):
    code = "DYN104"
    name = "tensor-to-scalar"
    message = "`{call}()` on a tensor in compiled code reads its value into Python and breaks the graph"
    help = "Keep the value a tensor (tensor arithmetic, `torch.where`), or convert it after the compiled call returns"
    gb_ids = ("GB0124", "GB0059")
    requires = ("not capture_scalar_outputs (for int() and float(); complex() breaks regardless)",)

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._in_flagged_slice: set[int] = set()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        # Conversions inside a slice bound that DYN103 (tensor-bounded-slice) reports are its findings.
        if self.context.settings.capture_scalar_outputs:
            return
        for _, bounds in reported_bounds(self.context, node):
            self._in_flagged_slice.update(id(call) for bound in bounds for call in calls_within(bound))

    def visit_Call(self, node: cst.Call) -> None:
        call = CONVERSIONS.get(self.context.resolve(node.func) or "")
        if call is None or len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        if call != "complex" and self.context.settings.capture_scalar_outputs:
            return  # traced as an unbacked symbol; ``complex()`` has no such path
        if id(node) in self._in_flagged_slice:
            return
        kind = self.context.kind(node.args[0].value)
        if kind.is_tensor_like:
            self.report(node, confidence=kind.confidence, call=call)

