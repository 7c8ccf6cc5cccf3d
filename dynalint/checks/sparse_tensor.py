"""DYN506 ``sparse-tensor``: building a sparse tensor in compiled code. Page: ``rules/DYN506-sparse-tensor.md``.

Torch 2.13 wraps no sparse tensor: the constructors (``torch.sparse_coo_tensor``, ``sparse_csr_tensor``
and the other compressed layouts) and the conversions (``Tensor.to_sparse*()``) break where they are
called, and the frame that resumes with the sparse value breaks again on its first use (GB0015).
Both lists are data in ``torchapi``. A conversion on a receiver of unknown type is ``likely``.

A conversion only on the branch of ``x.is_sparse`` (norse's ``torch.zeros(...).to_sparse() if
input_tensor.is_sparse else torch.zeros(...)``) is left alone: on a dense input Dynamo decides the test
while tracing and never runs it, and a sparse input has already broken where it was first used (GB0015).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants
from dynalint.analysis.torch_facts import SPARSE_CONSTRUCTORS, SPARSE_CONVERSIONS
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

SPARSE_LAYOUT_TESTS = frozenset({"is_sparse", "is_sparse_csr"})


class SparseTensor(Rule):
    code = "DYN506"
    name = "sparse-tensor"
    message = "{what} in compiled code, which torch.compile cannot trace: {then}"
    help = "Keep the compiled region dense (`index_add`, `scatter`, dense `@`), or build and use the sparse tensor outside it"
    gb_ids = ("GB0277", "GB0015", "GB0374", "GB0007")

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._only_when_sparse: set[int] = set()  # calls on the branch a sparse-layout test takes
        # Per function being walked: a local bound to a sparse tensor built here -> (the call, how sure, the
        # target's id).
        self._sparse_locals: list[dict[str, tuple[str, Confidence | None, int]]] = [{}]
        self._not_reads: set[int] = set()  # ``obj.sparse``'s and ``f(sparse=...)``'s names: no read of a local

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._sparse_locals.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._sparse_locals.pop()

    def leave_Assign(self, original_node: cst.Assign) -> None:
        built = self._built(original_node.value) if isinstance(original_node.value, cst.Call) else None
        for target in original_node.targets:
            if isinstance(target.target, cst.Name):
                if built is not None:
                    self._sparse_locals[-1][target.target.value] = (*built, id(target.target))
                else:
                    self._sparse_locals[-1].pop(target.target.value, None)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_reads.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_reads.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        bound = self._sparse_locals[-1].get(node.value)
        if bound is None or bound[2] == id(node) or id(node) in self._not_reads:
            return
        del self._sparse_locals[-1][node.value]
        self.report(node, confidence=bound[1], gb_ids=("GB0015",), pattern="first-use", gives_up_frame=True,
                    what=f"`{node.value}` holds the sparse tensor `{bound[0]}` built",
                    then="the frame that resumes after that break breaks again at its first use (GB0015), "
                         "and runs the rest of the function eagerly")

    def visit_If(self, node: cst.If) -> None:
        self._guard(node.test, node.body, node.orelse)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._guard(node.test, node.body, node.orelse)

    def _guard(self, test: cst.BaseExpression, body: cst.CSTNode, orelse: cst.CSTNode | None) -> None:
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        tested = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
        if not (isinstance(tested, cst.Attribute) and tested.attr.value in SPARSE_LAYOUT_TESTS):
            return
        branch = orelse if negated else body
        if branch is not None:
            self._only_when_sparse.update(id(n) for n in descendants(branch) if isinstance(n, cst.Call))

    def visit_Call(self, node: cst.Call) -> None:
        built = self._built(node)
        if built is not None:
            call, confidence = built
            self.report(node, confidence=confidence, what=f"`{call}` builds a sparse tensor",
                        then="the graph breaks here and where it is used")

    def _built(self, node: cst.Call) -> tuple[str, Confidence | None] | None:
        """The sparse constructor or conversion ``node`` calls, and how sure that is; ``None`` for any other call."""
        if id(node) in self._only_when_sparse:
            return None
        func = node.func
        resolved = self.context.resolve(func)
        if resolved in SPARSE_CONSTRUCTORS:
            return f"{resolved}()", None
        if resolved is None and isinstance(func, cst.Attribute) and func.attr.value in SPARSE_CONVERSIONS:
            receiver = self.context.kind(func.value)
            if receiver.may_be_tensor:
                return f"Tensor.{func.attr.value}()", receiver.confidence
        return None
