"""DYN512 ``tensor-subclass-unwrap``: ``as_subclass(torch.Tensor)`` in compiled code.

Page: ``rules/DYN512-tensor-subclass-unwrap.md``. Measured on torch 2.13: turning a tensor back into a
plain ``torch.Tensor`` with ``as_subclass`` breaks the graph ("Argument of `as_subclass` must be a
non-dispatcher-style tensor subclass", GB0001), written as a method (``t.as_subclass(torch.Tensor)``) or
through the class (``torch.Tensor.as_subclass(t, torch.Tensor)``, pypose's ``LieTensor.tensor()``), on a
plain tensor or on a subclass instance. ``as_subclass`` to a subclass of ``Tensor`` traces.

A method of a tensor subclass that breaks this way breaks a second time where it is called (DYN508).
"""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rule import Rule

PLAIN_TENSOR = "torch.Tensor"
THROUGH_THE_CLASS = f"{PLAIN_TENSOR}.as_subclass"


class TensorSubclassUnwrap(Rule):
    code = "DYN512"
    name = "tensor-subclass-unwrap"
    message = "`{call}` in compiled code breaks the graph: Dynamo cannot turn a tensor into a plain `torch.Tensor` with `as_subclass`"
    help = "Read the data as a plain tensor with an op that returns one (`t.clone()`, `t.view_as(t)` on the base), or unwrap outside the compiled code"
    gb_ids = ("GB0001",)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "as_subclass"):
            return
        through_class = self.context.resolve(func) == THROUGH_THE_CLASS
        target = _argument(node, 1 if through_class else 0)
        if target is not None and self.context.resolve(target) == PLAIN_TENSOR:
            self.report(node, call=cst.Module([]).code_for_node(node))


def _argument(node: cst.Call, position: int) -> cst.BaseExpression | None:
    """The class argument of ``as_subclass``: by position, or as ``cls=``."""
    positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
    if len(positional) > position:
        return positional[position]
    return next((arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "cls"), None)
