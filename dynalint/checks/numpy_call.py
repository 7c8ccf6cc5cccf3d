"""DYN210 ``numpy-call``: a NumPy function Dynamo cannot map onto ``torch._numpy``. Page: ``rules/DYN210-numpy-call.md``.

Torch 2.13 traces NumPy code by running ``torch._numpy`` in its place, so ``np.exp(x.numpy())`` stays
in the graph; a function of ``numpy``, ``numpy.fft`` or ``numpy.linalg`` that ``torch._numpy`` lacks
(``np.isin``, ``np.setdiff1d``, ``np.lexsort``) breaks when called from compiled code, even on
constants (measured). Which functions are traced is data in ``torch_facts.NUMPY_TRACED``; ``numpy.random``
is DYN205's.
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.torch_facts import NUMPY_TRACED
from dynalint.lint.rule import Rule


class NumpyCall(Rule):
    code = "DYN210"
    name = "numpy-call"
    message = "`{call}` in compiled code breaks the graph: torch.compile cannot trace this NumPy function"
    help = "Use the torch equivalent (`torch.isin`, `torch.unique`, ...), or call NumPy before or after the compiled function"
    gb_ids = ("GB0294",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved is None or not resolved.startswith("numpy."):
            return
        module, _, function = resolved.rpartition(".")
        traced = NUMPY_TRACED.get(module)
        if traced is not None and function not in traced and not function.startswith("_"):
            self.report(node, call=f"{resolved.replace('numpy.', 'np.', 1)}()")
