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

The same holds for a comprehension over an ``nn.ModuleList`` (``ModuleDict``, ``Sequential``) held by the
module (GB4347 and GB0092), and, over a generator an ``nn.Module`` method returns (``self.parameters()``,
``named_parameters()``, ``modules()``...), list, dict and set comprehensions alike break with "Generator
reconstruction with mutations" (GB8335) and give the function up (measured on torch 2.13; a list, a
``range`` or ``iter()`` of a list gives nothing more).

Python 3.12 inlines comprehensions into their function (PEP 709), where the loop resumes like a ``for``
statement: on the GPU machine (Python 3.12, torch 2.11) the page's three Examples broke only where the
rule inside flags them, so there the rule stays silent (``applies_here``), as DYN112 does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import descendants
from dynalint.analysis.instances import constructed_by, holds_module_container
from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import CONTAINERS, DICT_VIEWS, MODULE_GENERATORS
from dynalint.lint.rule import COMPREHENSION_FRAMES, Report, Rule

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext

ITERATOR_BUILTINS = frozenset({"builtins.zip", "builtins.enumerate", "builtins.map"})


class ComprehensionResume(Rule):
    code = "DYN111"
    name = "comprehension-resume"
    message = "A graph break inside this comprehension over `{iterator}` breaks the graph again here: Dynamo cannot resume the half-used iterator"
    help = "Fix the break inside, or write the loop as a `for` statement (or over a list: `list(zip(...))`)"
    gb_ids = ("GB4347", "GB0092", "GB8335")
    applies_here = COMPREHENSION_FRAMES

    reads_reports = True

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        # A comprehension, what it iterates as shown, and whether a break inside gives the function up.
        self._comprehensions: list[tuple[cst.ListComp | cst.DictComp | cst.SetComp, str, bool]] = []

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._note(node)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._note(node)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._note(node)

    def _note(self, node: cst.ListComp | cst.DictComp | cst.SetComp) -> None:
        loop = node.for_in
        if loop.inner_for_in is not None:
            return  # nested loops over an iterator were measured not to raise GB4347
        if not isinstance(loop.iter, cst.Call):
            # ``[layer(x) for layer in self.layers]`` over an ``nn.ModuleList``: GB4347 and GB0092 (measured)
            if _module_container(self.context, loop.iter):
                self._comprehensions.append((node, f"iter({cst.Module([]).code_for_node(loop.iter)})", False))
            return
        func = loop.iter.func
        if isinstance(func, cst.Attribute) and func.attr.value in MODULE_GENERATORS:
            self._comprehensions.append((node, f"{dotted_name(func) or func.attr.value}()", True))
            return
        if isinstance(node, cst.SetComp):
            return  # the others were measured on list and dict comprehensions only
        if isinstance(func, cst.Attribute) and func.attr.value in DICT_VIEWS and not loop.iter.args:
            self._comprehensions.append((node, f"{dotted_name(func) or func.attr.value}()", False))
            return
        iterator = self.context.resolve(func)
        if iterator in ITERATOR_BUILTINS and isinstance(node, cst.ListComp):
            self._comprehensions.append((node, f"{iterator.removeprefix('builtins.')}()", False))

    def after(self, reports: list[Report]) -> None:
        if not self.applies_here:
            return
        breaking = self.other_breaks(reports)
        for comprehension, iterator, gives_up in self._comprehensions:
            made = (comprehension.key, comprehension.value) if isinstance(comprehension, cst.DictComp) else (
                comprehension.elt,)
            body = {id(n) for part in (*made, *comprehension.for_in.ifs) for n in descendants(part)}
            inside = [r for r in breaking if id(r.node) in body]
            if inside:
                self.report(comprehension, confidence=self.resting_on(inside), region=inside[0].region,
                            gb_ids=("GB8335",) if gives_up else None, gives_up_frame=gives_up, iterator=iterator)


def _module_container(context: LintContext, node: cst.BaseExpression) -> bool:
    """``self.layers`` built as an ``nn.ModuleList`` / ``ModuleDict`` / ``Sequential``, or a local or module-level
    name one of their constructors built."""
    if (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"
            and holds_module_container(context, node.attr.value)):
        return True
    return constructed_by(context, node) in CONTAINERS
