"""DYN521 ``tensorclass-positional``: a tensordict tensorclass built with positional arguments in compiled code.

Page: ``rules/DYN521-tensorclass-positional.md``. A tensorclass (a subclass of ``tensordict.TensorClass``, frozen or
not, or a class decorated ``@tensorclass``) is a dataclass of tensors; posteriors returns each step's state as one
(``SGLDState(params, log_post, step + 1)``). The ``__init__`` tensordict generates refuses positional fields while
Dynamo traces it (it raises, and matches them only eagerly). Measured on torch 2.13: built in compiled code with its
fields given by position, it breaks at the call ("Observed exception", GB0088, with GB4347 after it) whether the
class is frozen, ``nocast`` or plain; given by keyword (``SGLDState(params=params, ...)``), it is built in the
graph. Reading a tensorclass passed in traces too. Dynamo gives the function up at that exception: the rest of it
runs eagerly, and a second such call in it does not break (measured), so the first one in each function is
reported, as giving the frame up. The class is found among the tree's (``Program.is_tensorclass``: its bases and
decorators along its MRO), so a tensorclass of another package is not known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.lint.rule import Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


class TensorclassPositional(Rule):
    code = "DYN521"
    name = "tensorclass-positional"
    message = ("`{call}` builds a tensorclass from positional arguments, which its `__init__` refuses while Dynamo "
               "traces it: the graph breaks here")
    help = "Pass the fields by keyword: `State(params=params, step=step)`"
    gb_ids = ("GB0088",)

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._reported: list[bool] = [False]  # per function being walked: whether its first one was reported

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._reported.append(False)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._reported.pop()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        program = self.context.program
        if last not in program.tensorclass_names or self._reported[-1] or self.context.region is None:
            return  # the last name first: most trees have no tensorclass, and this runs at every call
        if not any(arg.keyword is None and arg.star != "**" for arg in node.args):
            return
        written = self.context.module_level_name(func)
        if written is None:
            return
        built = program.resolve_class(self.context.summary, written)
        if built is not None and program.is_tensorclass(built):
            self._reported[-1] = True
            self.report(node, gives_up_frame=True, call=f"{written}(...)")
