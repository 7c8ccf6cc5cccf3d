"""DYN506 ``sparse-tensor``: building a sparse tensor in compiled code. Page: ``rules/DYN506-sparse-tensor.md``.

Torch 2.13 wraps no sparse tensor: the constructors (``torch.sparse_coo_tensor``, ``sparse_csr_tensor``
and the other compressed layouts) and the conversions (``Tensor.to_sparse*()``) break where they are
called, and the frame that resumes with the sparse value breaks again on its first use (GB0015).
Both lists are data in ``torchapi``. A conversion on a receiver of unknown type is ``likely``.
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.torch_facts import SPARSE_CONSTRUCTORS, SPARSE_CONVERSIONS
from dynalint.lint.rule import Rule


class SparseTensor(Rule):
    code = "DYN506"
    name = "sparse-tensor"
    message = "`{call}` builds a sparse tensor in compiled code, which torch.compile cannot trace: the graph breaks here and where it is used"
    help = "Keep the compiled region dense (`index_add`, `scatter`, dense `@`), or build and use the sparse tensor outside it"
    gb_ids = ("GB0277", "GB0015", "GB0374", "GB0007")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        resolved = self.context.resolve(func)
        if resolved in SPARSE_CONSTRUCTORS:
            self.report(node, call=f"{resolved}()")
        elif resolved is None and isinstance(func, cst.Attribute) and func.attr.value in SPARSE_CONVERSIONS:
            receiver = self.context.kind(func.value)
            if receiver.may_be_tensor:
                self.report(node, confidence=receiver.confidence, call=f"Tensor.{func.attr.value}()")
