"""DYN507 ``module-construction``: an ``nn.Module`` built in compiled code whose ``__init__`` breaks.

Page: ``rules/DYN507-module-construction.md``. Dynamo traces the constructor of a class built in compiled
code (``program.py`` makes that ``__init__`` a region). When an ``nn.Module`` subclass's ``__init__``
breaks anywhere (``print``, ``.item()``, ``nn.Parameter(...)``), torch 2.13 also breaks at its
``super().__init__()`` call, before or after the break ("Uninitialized nn.Module", GB0119, measured): the
module is half built when the graph is cut. This rule is a post-pass (``reads_reports``) over the
``__init__``'s break reports: it adds the ``super().__init__()`` line, where the other break has its own
finding. Its second cause, a module built where Dynamo gave the function up and runs it eagerly, needs
the breaks of other files: the program post-pass reports it (``pipeline/callee_breaks.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.lint.rule import Report, Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


class ModuleConstruction(Rule):
    code = "DYN507"
    name = "module-construction"
    message = "This `nn.Module` is built in compiled code and its `__init__` breaks: `super().__init__()` breaks too"
    help = "Build the module once, in the parent's `__init__` or outside the compiled function, and reuse it"
    gb_ids = ("GB0119",)

    reads_reports = True

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._super_inits: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call)
                and self.context.resolve(func.value.func) == "builtins.super" and self._in_module_constructor()):
            self._super_inits.append(node)

    def after(self, reports: list[Report]) -> None:
        calls, self._super_inits = self._super_inits, []
        breaking = self.other_breaks(reports)
        if not calls or not breaking:
            return
        for call in calls:
            self.report(call, confidence=self.resting_on(breaking), region=breaking[0].region)

    def _in_module_constructor(self) -> bool:
        region = self.context.region
        if region is None or not region.function.endswith(".__init__"):
            return False
        owner = f"{self.context.summary.module}.{region.function.rsplit('.', 1)[0]}"
        return self.context.program.is_module_class(owner)
