"""DYN501 ``autograd-call``: running autograd (``backward()``, ``torch.autograd.grad``) in compiled code.

Page: ``rules/DYN501-autograd-call.md``. With the default ``trace_autograd_ops=False``, torch 2.13 breaks
on ``Tensor.backward()`` (GB0123), ``torch.autograd.grad`` (GB9186) and ``torch.autograd.backward``
(a skipped function, GB0007), whatever the tensor, and on ``torch.autograd.functional``'s derivatives
(``jacobian``, ``hessian``, ``vjp``, ...: GB0055), called or wrapped by ``functools.partial``. A ``.backward()`` method call is reported unless its
receiver is known not to be a tensor (a Python value, tensor metadata, a global name such as an
``autograd.Function`` class, ``super()``, an object whose class in the tree defines the ``backward`` called: a
framework's strategy or precision plugin, whose own ``tensor.backward()`` is reported where it is written); it is
``certain`` only where the value analysis says tensor. On a receiver not known to be a tensor, a call with three
positional arguments or more is taken for another object's method (zennit's ``hook.backward(module, grad_input,
grad_output)`` on a hook read from a weak reference): ``Tensor.backward``'s third positional is ``create_graph``,
which no one passes so.
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.cst_walk import is_super_call
from dynalint.analysis.torch_facts import AUTOGRAD_CALLS, AUTOGRAD_FUNCTIONAL, BACKWARD_METHODS
from dynalint.analysis.values.lattice import Kind
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence


class AutogradCall(Rule):
    code = "DYN501"
    name = "autograd-call"
    message = "`{call}` in compiled code runs autograd eagerly and breaks the graph"
    help = "Compile only the forward and loss; call `backward()` / `torch.autograd.grad` on the result, outside the compiled function"
    gb_ids = ("GB0123", "GB9186", "GB0007", "GB0055")

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        resolved = self.context.resolve(func)
        if resolved in AUTOGRAD_CALLS:
            self.report(node, confidence=Confidence.CERTAIN, call=f"{resolved}()")
            return
        functional = self._functional(node, resolved)
        if functional is not None:
            self.report(node, confidence=Confidence.CERTAIN, gb_ids=("GB0055",), pattern="functional",
                        call=f"{functional}()")
            return
        if not isinstance(func, cst.Attribute) or func.attr.value not in BACKWARD_METHODS or resolved is not None:
            return
        receiver = func.value
        if isinstance(receiver, cst.Name) and receiver.value not in self.context.values.env:
            return  # a global: ``MyFunction.backward(ctx, grad)`` on an ``autograd.Function``, not a tensor
        if is_super_call(receiver) or self.context.resolve_call(func) is not None:
            return  # ``self._strategy.backward(loss, module)``: a method of the tree, followed where it leads
        kind = self.context.kind(receiver)
        if kind in (Kind.CONST, Kind.META, Kind.DATA):
            return
        if kind is not Kind.TENSOR and len([a for a in node.args if a.keyword is None and not a.star]) >= 3:
            return  # ``hook.backward(module, grad_input, grad_output)``: a hook's method, not ``Tensor.backward``
        self.report(node, confidence=kind.confidence, call="Tensor.backward()")

    def _functional(self, node: cst.Call, resolved: str | None) -> str | None:
        """``jacobian(f, x)`` of ``torch.autograd.functional``, or ``partial(jacobian, f)``: the derivative's name."""
        if resolved in AUTOGRAD_FUNCTIONAL:
            return resolved
        if resolved == "functools.partial" and node.args and not node.args[0].star:
            wrapped = self.context.resolve(node.args[0].value)
            return wrapped if wrapped in AUTOGRAD_FUNCTIONAL else None
        return None
