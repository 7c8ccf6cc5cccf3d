"""DYN210 ``numpy-call``: a NumPy function Dynamo cannot map onto ``torch._numpy``. Page: ``rules/DYN210-numpy-call.md``.

Torch 2.13 traces NumPy code by running ``torch._numpy`` in its place, so ``np.exp(x.numpy())`` stays
in the graph; a function of ``numpy``, ``numpy.fft`` or ``numpy.linalg`` that ``torch._numpy`` lacks
(``np.isin``, ``np.setdiff1d``, ``np.lexsort``) breaks when called from compiled code, even on
constants (measured). Which functions are traced is data in ``torch_facts.NUMPY_TRACED``; ``numpy.random``
is DYN205's. A function of any other NumPy module (``np.polynomial.legendre.leggauss``, ``np.testing``,
``np.ma``, ``np.lib.stride_tricks``) is skipped with the rest of NumPy, a package the trace rules skip:
it breaks at the call (GB0007, or GB0156 for a C method; measured on torch 2.13).

Traced is not always kept: ``torch._numpy`` answers some functions with a Python value (``np.isscalar``,
``np.ndim``, ``np.size``, ``np.result_type``...), which Dynamo cannot hand back from the graph (GB0208), or
with one bool read from the arrays (``np.array_equal``, ``np.allclose``: GB0033); and the tensor an array
is traced as has no ``dtype`` / ``flags`` of NumPy's (reading them is GB0157). An array is known by how it
is made (``t.numpy()``, ``np.asarray(...)``) or by an ``isinstance(a, np.ndarray)`` test before it, in the
same ``and`` or around the block (``ValueScope.is_numpy_array``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants
from dynalint.analysis.torch_facts import (
    NUMPY_DATA_COMPARISONS,
    NUMPY_NON_ARRAY_RESULTS,
    NUMPY_TRACED,
    NUMPY_UNSUPPORTED_ATTRIBUTES,
)
from dynalint.analysis.values.flow import NUMPY_ARRAY, and_operands, isinstance_narrowed
from dynalint.lint.rule import Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

_UNTRACED = "torch.compile cannot trace this NumPy function"


class NumpyCall(Rule):
    code = "DYN210"
    name = "numpy-call"
    message = "`{call}` in compiled code breaks the graph: {why}"
    help = "Use the torch equivalent (`torch.isin`, `torch.unique`, ...), or call NumPy before or after the compiled function"
    gb_ids = ("GB0294", "GB0208", "GB0033", "GB0157", "GB0007", "GB0156")

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._reported: set[int] = set()  # attributes reported from an ``and`` chain that tested them
        self._inner_chains: set[int] = set()  # the nested ``and`` nodes of a chain already read from its outermost

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved is None or not resolved.startswith("numpy."):
            return
        module, _, function = resolved.rpartition(".")
        traced = NUMPY_TRACED.get(module)
        shown = f"{resolved.replace('numpy.', 'np.', 1)}()"
        if traced is not None and function not in traced and not function.startswith("_"):
            self.report(node, gb_ids=("GB0294",), pattern=resolved, call=shown, why=_UNTRACED)
        elif traced is None and not module.startswith("numpy.random") and not function.startswith("_"):
            # ``np.polynomial.legendre.leggauss``, ``np.testing``, ``np.ma``: modules ``torch._numpy`` does not map,
            # so the trace rules skip them with the rest of NumPy (GB0007; GB0156 for a C method, measured).
            self.report(node, gb_ids=("GB0007", "GB0156"), pattern="submodule", call=shown,
                        why="its module is not one torch.compile maps onto torch._numpy, so it is skipped")
        elif module == "numpy" and function in NUMPY_NON_ARRAY_RESULTS:
            self.report(node, gb_ids=("GB0208",), pattern=resolved, call=shown,
                        why="its answer is a Python value, which the graph cannot return")
        elif module == "numpy" and function in NUMPY_DATA_COMPARISONS:
            self.report(node, gb_ids=("GB0033",), pattern=resolved, call=shown,
                        why="it reads the arrays into one Python bool")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if (node.attr.value in NUMPY_UNSUPPORTED_ATTRIBUTES and id(node) not in self._reported
                and self.context.values.is_numpy_array(node.value)):
            self._report_attribute(node)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        """``isinstance(a, np.ndarray) and a.ndim > 0 and a.dtype == ...``: ``a`` is an array in every operand
        the ``and`` asks after the test (LibCST nests ``A and B and C`` as ``(A and B) and C``)."""
        if id(node) in self._inner_chains or not isinstance(node.operator, cst.And) or node.lpar:
            # read with its chain: each chain once, each operand's test once (linear in the chain's length); an
            # ``or``, or a parenthesised chain, is no chain of operands here (``and_operands``)
            return
        inner_chain = node.left
        while isinstance(inner_chain, cst.BooleanOperation) and isinstance(inner_chain.operator, cst.And) \
                and not inner_chain.lpar:
            self._inner_chains.add(id(inner_chain))
            inner_chain = inner_chain.left
        operands = and_operands(node)
        arrays: set[str] = set()
        for position, operand in enumerate(operands):
            if position:
                self._report_tested_attributes(operand, arrays)
            arrays |= isinstance_narrowed([operand], self.context.values, lambda types: types == {NUMPY_ARRAY})

    def _report_tested_attributes(self, operand: cst.BaseExpression, arrays: set[str]) -> None:
        """The unsupported attributes ``operand`` reads of the names earlier operands proved NumPy arrays."""
        if arrays:
            for inner in descendants(operand):
                if (type(inner) is cst.Attribute and inner.attr.value in NUMPY_UNSUPPORTED_ATTRIBUTES
                        and type(inner.value) is cst.Name and inner.value.value in arrays
                        and id(inner) not in self._reported):
                    self._report_attribute(inner)

    def _report_attribute(self, node: cst.Attribute) -> None:
        self._reported.add(id(node))
        attribute = node.attr.value
        self.report(node, gb_ids=("GB0157",), pattern=f"ndarray.{attribute}", call=f"ndarray.{attribute}",
                    why=f"the tensor Dynamo traces a NumPy array as has no NumPy `{attribute}`")
