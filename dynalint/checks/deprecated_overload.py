"""DYN517 ``deprecated-overload``: an in-place tensor method called with its deprecated scalar-first signature.

Page: ``rules/DYN517-deprecated-overload.md``. torch still accepts the overloads of ``add_``, ``addcmul_`` and
``addcdiv_`` that take the scalar first (``exp_avg.mul_(beta1).add_(1 - beta1, grad)``,
``exp_avg_sq.addcmul_(1 - beta2, grad, grad)``), the spelling of optimizers written for torch before 1.5 and copied
into many projects since (catalyst's RAdam, Lamb, QHAdamW). Dynamo handles these three in-place methods itself, with
the signature of today's overload (the tensors, then ``alpha=`` / ``value=``); the old call does not bind to it, and
Dynamo gives up on it: "Unhandled args for method" (GB0117), measured on torch 2.13. The out-of-place ``add`` /
``addcmul`` / ``addcdiv`` and ``sub_`` with the old spelling trace. The arity is what tells the deprecated overload
(``add_`` with two positional arguments, the others with three), so the finding is ``certain`` on a tensor and
``likely`` on a value whose type nothing tells, unless a class of the tree defines a method of that name itself
(asdl's ``ParamVector.add_(other, alpha)``): the value may be one of those, whose call does not break. The fix
moves the scalar to its keyword, which is what the deprecated overload means: safe.
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rewrites import Replace
from dynalint.lint.rule import Rule
from dynalint.model.finding import Applicability, Confidence

# In-place method -> (positional arguments of its deprecated overload, the keyword today's takes the scalar as).
DEPRECATED_OVERLOADS: dict[str, tuple[int, str]] = {"add_": (2, "alpha"), "addcmul_": (3, "value"),
                                                   "addcdiv_": (3, "value")}
_TIGHT_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


class DeprecatedOverload(Rule):
    code = "DYN517"
    name = "deprecated-overload"
    message = "`{call}` with the scalar first is a deprecated overload that compiled code cannot bind, and breaks the graph"
    help = "Pass the tensors first and the scalar by keyword: `x.add_(t, alpha=s)`, `x.addcmul_(a, b, value=s)`"
    gb_ids = ("GB0117",)
    fix = Applicability.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in DEPRECATED_OVERLOADS:
            return
        arity, keyword = DEPRECATED_OVERLOADS[func.attr.value]
        if len(node.args) != arity or any(a.keyword is not None or a.star for a in node.args):
            return
        kind = self.context.kind(func.value)
        if not kind.may_be_tensor or self.context.resolve(func) is not None:
            return  # a Python value, or a name of a module (``torch.add_``), not a tensor's method
        program = self.context.program
        if kind.confidence is not Confidence.CERTAIN and any(
                not program.is_tensor_subclass(cls) for cls in program.classes_defining(func.attr.value)):
            return  # a value of unknown type, and a class of the tree has its own ``add_`` (asdl's ``ParamVector``)
        scalar, *tensors = node.args
        moved = [*(a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in tensors),
                 cst.Arg(scalar.value, keyword=cst.Name(keyword), equal=_TIGHT_EQUAL)]
        rewrite = Replace(node, node.with_changes(args=moved), f"pass the scalar as `{keyword}=`", Applicability.SAFE)
        self.report(node, confidence=kind.confidence, rewrite=rewrite, call=f"Tensor.{func.attr.value}()")
