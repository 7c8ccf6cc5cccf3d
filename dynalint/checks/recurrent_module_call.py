"""DYN505 ``recurrent-module-call``: calling an ``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU`` from compiled code.

Page: ``rules/DYN505-recurrent-module-call.md``. Torch 2.13 refuses to wrap these modules (GB0014) and
the calling frame runs eagerly. The module is recognised by what built it, never by its name:
``self.<attr>`` assigned in ``__init__`` (or a base's), or a module-level ``NAME = nn.GRU(...)``, both
read from the summaries (``instances.constructed_by``), including in-tree subclasses of those layers.
Both ``self.rnn(x)`` and ``self.rnn.forward(x)`` are reported.
"""

from __future__ import annotations

import libcst as cst

from dynalint.instances import constructed_by
from dynalint.names import dotted_name
from dynalint.rule import Rule
from dynalint.torchapi import RECURRENT_LAYERS


class RecurrentModuleCall(Rule):
    code = "DYN505"
    name = "recurrent-module-call"
    message = "Calling `{callee}`, an `nn.{layer}`, from compiled code makes the frame fall back to eager"
    help = "Call the recurrent layer outside the compiled region (compile the layers around it), or unroll it with the matching `nn.*Cell`"
    gb_ids = ("GB0014",)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value
        layer = self._recurrent_layer(func)
        if layer is not None:
            self.report(node, callee=dotted_name(func) or "module", layer=layer)

    def _recurrent_layer(self, node: cst.BaseExpression) -> str | None:
        built = constructed_by(self.context, node)
        if built is None:
            return None
        program = self.context.program
        candidates = [built]
        if built in program.classes:  # an in-tree subclass: look through its bases
            candidates = [program.canonical(base) or base for cls in program.mro(built)
                          for base in program.classes[cls].definition.bases]
        for qualified in candidates:
            if qualified and qualified.startswith("torch.nn.") and qualified.rsplit(".", 1)[-1] in RECURRENT_LAYERS:
                return qualified.rsplit(".", 1)[-1]
        return None
