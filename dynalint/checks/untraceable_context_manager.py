"""DYN211 ``untraceable-context-manager``: ``with`` on a torch context manager Dynamo refuses.

Page: ``rules/DYN211-untraceable-context-manager.md``.

The list, measured one by one on torch 2.13, is data in ``torch_facts.UNTRACEABLE_CONTEXT_MANAGERS``
(backend flag switches such as ``torch.backends.cudnn.flags``, the old ``sdp_kernel``, ``torch.device``
used as a context, autograd's anomaly and saved-tensor hooks). Only the ``with`` item is reported: the
same call outside a ``with`` is another question.

The project's own context managers too: ``with self.ctx:`` or ``with CONTEXT:`` on an object that a
class of the project with an ``__enter__`` built before the trace (in ``__init__``, at module level).
Dynamo enters such an object only when the compiled code built it itself (measured: ``with Plain():``
traces, ``with self.ctx:`` holding the same class breaks, "does not know how to enter").
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.instances import constructed_by
from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import UNTRACEABLE_CONTEXT_MANAGERS
from dynalint.lint.rule import Rule


class UntraceableContextManager(Rule):
    code = "DYN211"
    name = "untraceable-context-manager"
    message = "`with {call}:` in compiled code breaks the graph: torch.compile cannot trace this context manager"
    help = "Enter the context around the compiled call, outside the compiled function"
    gb_ids = ("GB0142", "GB0208")

    def visit_WithItem(self, node: cst.WithItem) -> None:
        item = node.item
        if not isinstance(item, cst.Call):
            self._built_before(node, item)
            return
        resolved = self.context.resolve(item.func)
        if resolved in UNTRACEABLE_CONTEXT_MANAGERS:
            self.report(node, call=f"{resolved}()")

    def _built_before(self, node: cst.WithItem, item: cst.BaseExpression) -> None:
        """``with self.ctx:`` / ``with CONTEXT:``: an instance of a project class with ``__enter__``."""
        built = constructed_by(self.context, item)
        program = self.context.program
        if built in program.classes and program.method(built, "__enter__"):
            self.report(node, call=dotted_name(item) or "context")
