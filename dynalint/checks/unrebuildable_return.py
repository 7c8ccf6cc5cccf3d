"""DYN515 ``unrebuildable-return``: returning, from compiled code, an object built there that holds a default function.

Page: ``rules/DYN515-unrebuildable-return.md``. Measured on torch 2.13: an instance of a class of the tree built in
compiled code (``QuantileActionValue(h)``), whose ``__init__`` stored on it a parameter left to a function default
(``def __init__(self, q, fmt=lambda x: x): self.fmt = fmt``; a ``lambda``, or a ``def`` of the tree), cannot be
rebuilt when it leaves the frame: returned (alone, in a tuple or a list, or through a local bound to it), Dynamo
fails the return ("Reconstruction failure", GB0092) and runs the whole function eagerly. The same object used
inside the frame (``return Value(h).q``), built with the function passed explicitly, or given a ``torch`` function
(``act=F.relu``), a class or ``None`` as default, traces. Only the frame Dynamo starts at returns to Python: a
helper inlined into it hands the object back to its caller (measured: the entry's ``return`` broke, the inlined
helper's did not). So the rule reports only in the function a compile site of the tree names. An
``nn.Module.forward`` with no compile site in the tree is usually a submodule inlined into its parent, and so is a
function the config's ``compiled`` declares, which code outside the tree calls from its own compiled frame (pfrl's
Q-functions on the ground-truth bench, called by the bench's own module: their ``return DiscreteActionValue(h)``
traced, where the same module compiled alone broke).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import named_parameters
from dynalint.analysis.program import DECLARED_COMPILED
from dynalint.analysis.qualified_names import dotted_name
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


class UnrebuildableReturn(Rule):
    code = "DYN515"
    name = "unrebuildable-return"
    message = ("`{call}` is returned from compiled code holding `{attribute}`, a function from `__init__`'s "
               "default, which Dynamo cannot rebuild: the return breaks the graph")
    help = "Pass the function explicitly, give the parameter a `None` default resolved inside `__init__`, or return tensors"
    gb_ids = ("GB0092",)

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._built: list[dict[str, cst.Call | None]] = [{}]  # per function: local -> the construction it holds

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._built.append(dict.fromkeys(p.name.value for p in named_parameters(node.params)))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._built.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._built[-1][target.target.value] = node.value if isinstance(node.value, cst.Call) else None

    def visit_Return(self, node: cst.Return) -> None:
        region = self.context.region
        if node.value is None or region is None or region.confidence is not Confidence.CERTAIN or not region.chain:
            return
        if self.context.summary.qualify(region.function) != region.entry:
            return  # a function inlined into its caller hands the object back to it, not to Python
        if region.chain[0].how.startswith(DECLARED_COMPILED):
            return  # entered from compiled code outside the tree, whose frame may hold the object
        for call in self._returned_calls(node.value):
            found = self._default_function_kept(call)
            if found is not None:
                self.report(node, call=found[0], attribute=found[1])
                return

    def _returned_calls(self, value: cst.BaseExpression) -> list[cst.Call]:
        """The constructions a ``return`` hands out: a call, the elements of a tuple or list, a local bound to one."""
        if isinstance(value, (cst.Tuple, cst.List)):
            return [c for element in value.elements for c in self._returned_calls(element.value)]
        if isinstance(value, cst.Call):
            return [value]
        if isinstance(value, cst.Name):
            built = self._built[-1].get(value.value)
            return [built] if built is not None else []
        return []

    def _default_function_kept(self, call: cst.Call) -> tuple[str, str] | None:
        """(the call as written, the parameter) where ``call`` builds a class of the tree that stores a function
        default it is not given; ``None`` otherwise, and for a call with ``*args`` / ``**kwargs``."""
        written = dotted_name(call.func)
        if written is None or any(a.star for a in call.args):
            return None
        program = self.context.program
        built = program.resolve_class(self.context.summary, written)
        if built is None:
            return None
        positional = sum(1 for a in call.args if a.keyword is None)
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        for parameter, position in program.stored_default_functions(built):
            if parameter not in keywords and not 0 <= position < positional:
                return f"{written}(...)", parameter
        return None
