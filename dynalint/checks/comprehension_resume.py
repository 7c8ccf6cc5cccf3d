"""DYN111 ``comprehension-resume``: a break inside a list comprehension over ``zip`` / ``enumerate`` / ``map``.

Page: ``rules/DYN111-comprehension-resume.md``. Measured on torch 2.13: when a graph break happens in
the body of ``[... for a, b in zip(...)]``, Dynamo must resume in the middle of the comprehension and
cannot rebuild the half-used iterator, so it breaks again at the comprehension itself ("Missing
tp_iternext", GB4347), on the line of its ``[``. The same comprehension over a list or a tensor, a
``for`` statement, a dict comprehension or a generator expression gives no GB4347, and neither does a
comprehension whose body does not break. What breaks in the body is whatever another rule flags: this
rule is a post-pass (``reads_reports``) over the function's break reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants
from dynalint.lint.rule import Report, Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

ITERATOR_BUILTINS = frozenset({"builtins.zip", "builtins.enumerate", "builtins.map"})


class ComprehensionResume(Rule):
    code = "DYN111"
    name = "comprehension-resume"
    message = "A graph break inside this comprehension over `{iterator}()` breaks the graph again here: Dynamo cannot resume the half-used iterator"
    help = "Fix the break inside, or write the loop as a `for` statement (or over a list: `list(zip(...))`)"
    gb_ids = ("GB4347",)

    reads_reports = True

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._comprehensions: list[tuple[cst.ListComp, str]] = []

    def visit_ListComp(self, node: cst.ListComp) -> None:
        loop = node.for_in
        if loop.inner_for_in is not None or not isinstance(loop.iter, cst.Call):
            return  # nested loops over an iterator were measured not to raise GB4347
        iterator = self.context.resolve(loop.iter.func)
        if iterator in ITERATOR_BUILTINS:
            self._comprehensions.append((node, iterator.removeprefix("builtins.")))

    def after(self, reports: list[Report]) -> None:
        breaking = self.other_breaks(reports)
        for comprehension, iterator in self._comprehensions:
            body = {id(n) for part in (comprehension.elt, *comprehension.for_in.ifs) for n in descendants(part)}
            inside = [r for r in breaking if id(r.node) in body]
            if inside:
                self.report(comprehension, confidence=self.resting_on(inside), region=inside[0].region, iterator=iterator)
