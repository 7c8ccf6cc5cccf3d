"""DYN111 ``comprehension-resume``: a break inside a list comprehension over ``zip`` / ``enumerate`` / ``map``.

Page: ``rules/DYN111-comprehension-resume.md``. Measured on torch 2.13: when a graph break happens in
the body of ``[... for a, b in zip(...)]``, Dynamo must resume in the middle of the comprehension and
cannot rebuild the half-used iterator, so it breaks again at the comprehension itself ("Missing
tp_iternext", GB4347), on the line of its ``[``. The same comprehension over a list or a tensor, a
``for`` statement, a dict comprehension or a generator expression gives no GB4347, and neither does a
comprehension whose body does not break. What breaks in the body is whatever another rule flags: this
rule is a post-pass (``reads_reports``) over the function's break reports.

A list or dict comprehension over a dict's view (``d.items()``, ``d.values()``, ``d.keys()``) breaks again
the same way, on the comprehension's opening line: Dynamo cannot rebuild the half-used view iterator
("Reconstruction failure", GB0092, and for ``keys()`` GB4347 too; measured on torch 2.13, one-line and
multi-line). A generator expression over one does not.

Python 3.12 inlines comprehensions into their function (PEP 709), where the loop resumes like a ``for``
statement: on the GPU machine (Python 3.12, torch 2.11) the page's three Examples broke only where the
rule inside flags them, so there the rule stays silent (``applies_here``), as DYN112 does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants
from dynalint.analysis.qualified_names import dotted_name
from dynalint.lint.rule import COMPREHENSION_FRAMES, Report, Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

ITERATOR_BUILTINS = frozenset({"builtins.zip", "builtins.enumerate", "builtins.map"})
DICT_VIEWS = frozenset({"items", "values", "keys"})


class ComprehensionResume(Rule):
    code = "DYN111"
    name = "comprehension-resume"
    message = "A graph break inside this comprehension over `{iterator}()` breaks the graph again here: Dynamo cannot resume the half-used iterator"
    help = "Fix the break inside, or write the loop as a `for` statement (or over a list: `list(zip(...))`)"
    gb_ids = ("GB4347", "GB0092")
    applies_here = COMPREHENSION_FRAMES

    reads_reports = True

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._comprehensions: list[tuple[cst.ListComp | cst.DictComp, str]] = []

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._note(node)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._note(node)

    def _note(self, node: cst.ListComp | cst.DictComp) -> None:
        loop = node.for_in
        if loop.inner_for_in is not None or not isinstance(loop.iter, cst.Call):
            return  # nested loops over an iterator were measured not to raise GB4347
        func = loop.iter.func
        if isinstance(func, cst.Attribute) and func.attr.value in DICT_VIEWS and not loop.iter.args:
            self._comprehensions.append((node, dotted_name(func) or func.attr.value))
            return
        iterator = self.context.resolve(func)
        if iterator in ITERATOR_BUILTINS and isinstance(node, cst.ListComp):
            self._comprehensions.append((node, iterator.removeprefix("builtins.")))

    def after(self, reports: list[Report]) -> None:
        if not self.applies_here:
            return
        breaking = self.other_breaks(reports)
        for comprehension, iterator in self._comprehensions:
            made = (comprehension.elt,) if isinstance(comprehension, cst.ListComp) else (
                comprehension.key, comprehension.value)
            body = {id(n) for part in (*made, *comprehension.for_in.ifs) for n in descendants(part)}
            inside = [r for r in breaking if id(r.node) in body]
            if inside:
                self.report(comprehension, confidence=self.resting_on(inside), region=inside[0].region, iterator=iterator)
