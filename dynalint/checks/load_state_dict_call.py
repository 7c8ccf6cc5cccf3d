"""DYN516 ``load-state-dict-call``: ``module.load_state_dict(...)`` in compiled code.

Page: ``rules/DYN516-load-state-dict-call.md``. Measured on torch 2.13: loading a state dict into an ``nn.Module``
inside compiled code breaks the graph ("torch.* op returned non-Tensor", GB0208), whether the dict is another
module's ``state_dict()`` (a reinforcement-learning agent syncing its target network) or one saved before, and with
``strict=False`` too. Reading ``state_dict()`` alone traces, and so does copying the parameters in place under
``no_grad`` (``p.copy_(q)``), the rule's suggestion. The finding is ``certain`` where the receiver is known to be a
module (``self``, a layer of ``self``, a module-level module, a parameter declared one) and ``likely`` for any
other receiver (a helper's ``target_link``): the method name is torch's, though a class of the project may define
one that traces. A receiver built by ``torch.optim`` (an optimizer or a scheduler) is not reported: its
``load_state_dict`` breaks too (GB0008, measured for ``SGD``), but the optimizer's calls are DYN509's, which does
not cover this one yet.
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.instances import constructed_by, is_nn_module
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

_OPTIMIZATION = ("torch.optim.",)


class LoadStateDictCall(Rule):
    code = "DYN516"
    name = "load-state-dict-call"
    message = "`{call}` loads a state dict in compiled code, which breaks the graph"
    help = ("Copy the parameters in place under `torch.no_grad()` (`for p, q in zip(dst.parameters(), "
            "src.parameters()): p.copy_(q)`), or load the state dict outside the compiled code")
    gb_ids = ("GB0208",)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "load_state_dict":
            return
        receiver = func.value
        built = constructed_by(self.context, receiver) or ""
        if built.startswith(_OPTIMIZATION):
            return  # an optimizer or a scheduler: DYN509's
        module = is_nn_module(self.context, receiver)
        written = cst.Module([]).code_for_node(receiver)
        self.report(node, confidence=None if module else Confidence.LIKELY, call=f"{written}.load_state_dict()")
