"""DYN502 ``tensor-attribute-write``: assigning ``requires_grad`` or ``data`` on a tensor in compiled code.

Page: ``rules/DYN502-tensor-attribute-write.md``. Measured on torch 2.13: ``t.requires_grad = ...``
breaks on every tensor (input, parameter, intermediate; GB0206). ``t.data = v`` breaks when ``t`` was
made inside the compiled function, by any op, ``detach()`` and views included (GB0056), and on an
input or a parameter only when ``v`` has another dtype (GB0220); ``t.data = v`` of the same dtype on
an input or parameter is traced. So ``data`` writes are reported on names this rule saw bound to a
tensor-producing expression in the same function, and on any tensor when the value is a cast to a
non-default dtype (``.half()``, ``.to(torch.float16)``, ``likely``: the source rarely shows the old dtype).

The method form, ``t.requires_grad_()`` / ``t.requires_grad_(True)``, measured too: on an input that does
not require grad it breaks in any grad mode (GB0125); on a tensor made in the function (``x.detach()``,
``x.clone()``, a loss) it breaks with grad enabled (GB8985), and under ``no_grad`` only when that tensor
is returned. It does not break on an input that already requires grad, and ``requires_grad_(False)`` on
an intermediate does not break: so the call is reported ``likely``. ``requires_grad_(False)`` on a tensor the
caller passed (a parameter not rebound) breaks when that tensor requires grad (GB0125): ``likely`` too.
In an autograd ``Function``'s ``backward``, which Dynamo traces with the ``apply`` call, it never broke
(``x.detach().requires_grad_()``, returned or not, under ``enable_grad`` too): not reported there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import named_parameters
from dynalint.analysis.instances import is_nn_module
from dynalint.analysis.torch_facts import (
    DATA_ATTRIBUTE,
    DTYPE_CAST_METHODS,
    NON_DEFAULT_DTYPES,
    REQUIRES_GRAD_ATTRIBUTE,
    REQUIRES_GRAD_METHOD,
)
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

NOT_TENSORS = (Kind.CONST, Kind.META, Kind.DATA)
# Expressions that make a new tensor object (an alias such as ``z = x`` does not).
_MAKES_TENSOR = (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Subscript)


class TensorAttributeWrite(Rule):
    code = "DYN502"
    name = "tensor-attribute-write"
    message = "{action} `{target}` in compiled code breaks the graph{why}"
    help = ("Use `detach()` instead of `requires_grad = False`, in-place ops under `torch.no_grad()` (`copy_`) "
            "instead of `.data =`, and call `requires_grad_()` on the inputs before the compiled function")
    gb_ids = ("GB0206", "GB0056", "GB0220", "GB0125", "GB8985")

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        # Per function being walked: names bound to a tensor made in that function, and their kind.
        self._made: list[dict[str, Kind]] = []
        # Per function being walked: its parameters not rebound so far (what the caller passed).
        self._passed: list[set[str]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._made.append({})
        self._passed.append({param.name.value for param in named_parameters(node.params)})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if self._made:
            self._made.pop()
            self._passed.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Attribute):
                self._check(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Attribute) and node.value is not None:
            self._check(node.target, node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == REQUIRES_GRAD_METHOD):
            return
        receiver = func.value
        flag = _grad_flag(node)
        if flag is not True:
            # ``requires_grad_(False)`` on a tensor the caller passed: it breaks when that tensor requires grad
            # (GB0125, measured on torch 2.13; captum's gradient helpers), and not on one made in the function.
            if (flag is False and isinstance(receiver, cst.Name) and self._passed
                    and receiver.value in self._passed[-1] and self._may_be_tensor(receiver)
                    and not self.context.in_autograd_backward):
                self.report(node, confidence=Confidence.LIKELY, action="Calling",
                            target=f"{_text(receiver)}.{REQUIRES_GRAD_METHOD}(False)",
                            why=" when the tensor passed in requires grad")
            return
        if not self._may_be_tensor(receiver):
            return  # ``module.requires_grad_()`` freezes or unfreezes parameters: a module's method
        if self.context.in_autograd_backward:
            return  # traced with the ``apply`` call, where it never broke (returned too, under ``enable_grad``)
        self.report(node, confidence=Confidence.LIKELY, action="Calling", target=f"{_text(receiver)}.{REQUIRES_GRAD_METHOD}()",
                    why=" (unless the tensor already requires grad, or is made in the function under `no_grad` and not returned)")

    def leave_Assign(self, original_node: cst.Assign) -> None:
        for target in original_node.targets:
            self._remember(target.target, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        if original_node.value is not None:
            self._remember(original_node.target, original_node.value)

    def _remember(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if not self._made or not isinstance(target, cst.Name):
            return
        self._passed[-1].discard(target.value)
        kind = self.context.kind(value)  # the value analysis binds after the rules leave the statement
        if isinstance(value, _MAKES_TENSOR) and kind.is_tensor_like:
            self._made[-1][target.value] = kind
        else:
            self._made[-1].pop(target.value, None)

    def _check(self, target: cst.Attribute, value: cst.BaseExpression) -> None:
        attr, receiver = target.attr.value, target.value
        if attr == REQUIRES_GRAD_ATTRIBUTE:
            if not self._may_be_tensor(receiver):
                return  # a module's or an object's own attribute
            self.report(target, confidence=self.context.kind(receiver).confidence, action="Assigning", target=_text(target), why="")
        elif attr == DATA_ATTRIBUTE:
            made = self._made[-1].get(receiver.value) if self._made and isinstance(receiver, cst.Name) else None
            if made is not None:
                self.report(target, confidence=made.confidence, action="Assigning", target=_text(target),
                            why=" (the tensor was made inside the compiled function)")
            elif self._casts_dtype(value) and self.context.kind(receiver) not in NOT_TENSORS:
                self.report(target, confidence=Confidence.LIKELY, action="Assigning", target=_text(target),
                            why=" when the new value has another dtype")

    def _may_be_tensor(self, receiver: cst.BaseExpression) -> bool:
        """Not a value known to be no tensor, nor an ``nn.Module`` (whose attributes and methods are its own)."""
        return self.context.kind(receiver) not in NOT_TENSORS and not is_nn_module(self.context, receiver)

    def _casts_dtype(self, value: cst.BaseExpression) -> bool:
        """``v.half()``, ``v.to(torch.float16)``, ``v.to(dtype=torch.bfloat16)``: a cast to a non-default dtype."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
            return False
        method = value.func.attr.value
        if method in DTYPE_CAST_METHODS and not value.args:
            return True
        if method in ("to", "type"):
            return any(self.context.resolve(arg.value) in NON_DEFAULT_DTYPES for arg in value.args)
        return False


def _grad_flag(call: cst.Call) -> bool | None:
    """What ``requires_grad_(...)`` sets: ``True`` with no argument or ``True`` (by position or as
    ``requires_grad=``), ``False`` with ``False``, and ``None`` for a value the source does not show."""
    if not call.args:
        return True
    value = call.args[0].value
    if len(call.args) != 1 or not isinstance(value, cst.Name):
        return None
    return {"True": True, "False": False}.get(value.value)


def _text(target: cst.BaseExpression) -> str:
    return cst.Module([]).code_for_node(target)
