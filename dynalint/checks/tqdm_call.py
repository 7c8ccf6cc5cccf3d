"""DYN209 ``tqdm-call``: ``tqdm`` progress bars inside compiled code. Page: ``rules/DYN209-tqdm-call.md``.

Constructors and helpers are recognised by qualified name (``tqdm.tqdm``, ``tqdm.auto.trange``, ...);
method calls on a bar, and a ``for`` loop over one (or over ``enumerate`` / ``zip`` of one), by what built it (a
local ``bar = tqdm(...)`` of the same function, a module-level ``BAR = tqdm(...)`` or ``self.bar = tqdm(...)``).
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.instances import constructed_by
from dynalint.analysis.qualified_names import dotted_name
from dynalint.lint.rewrites import eager_only
from dynalint.lint.rule import LocalObjectRule
from dynalint.model.finding import Applicability

FACTORIES = frozenset({"tqdm", "trange", "tenumerate", "tzip", "tmap"})
ITERTOOLS = "tqdm.contrib.itertools."  # ``product``, ``chain``, ...: iterators wrapped in a bar
BAR_METHODS = frozenset(
    {"update", "close", "refresh", "reset", "clear", "display", "unpause", "write", "set_description",
     "set_description_str", "set_postfix", "set_postfix_str"}
)


def _iterated(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What a ``for`` loop iterates: ``node``, or the arguments of ``enumerate(...)`` / ``zip(...)`` around it."""
    if (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("enumerate", "zip")
            and node.args):
        arguments = [a.value for a in node.args if a.keyword is None and not a.star]
        return arguments[:1] if node.func.value == "enumerate" else arguments
    return [node]


def _is_tqdm(qualified: str | None) -> bool:
    """``tqdm.tqdm``, ``tqdm.auto.tqdm``, ``tqdm.contrib.tenumerate``: a factory from the tqdm package."""
    if not qualified or qualified.split(".")[0] != "tqdm":
        return False
    return qualified.rsplit(".", 1)[-1] in FACTORIES or qualified.startswith(ITERTOOLS)


class TqdmCall(LocalObjectRule):
    code = "DYN209"
    name = "tqdm-call"
    message = "`{call}` in compiled code breaks the graph"
    help = "Drive the progress bar from the loop that calls the compiled function"
    gb_ids = ("GB0007", "GB0008")
    # Method calls on a bar (``tqdm.write``, ``bar.update``) that are statements of their own: run eagerly
    # only. A ``tqdm(...)`` around a loop's iterable has no fix: dropping it changes eager runs too.
    fix = Applicability.UNSAFE

    def visit_For(self, node: cst.For) -> None:
        # ``for step in bar:`` over a bar built before the loop: iterating it is a skipped method (GB0008); so is
        # ``for i, batch in enumerate(bar):`` (tez's and torch-rechub's trainers), or a bar zipped with another.
        for iterated in _iterated(node.iter):
            if self._is_bar(iterated):
                self.report(node.iter, call=f"iter({dotted_name(iterated)})")
                return

    def _is_bar(self, node: cst.BaseExpression) -> bool:
        return _is_tqdm(self.locals.built(node)) or _is_tqdm(constructed_by(self.context, node))

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        func = node.func
        if _is_tqdm(resolved):
            self.report(node, call=f"{resolved}()")
        elif isinstance(func, cst.Attribute) and func.attr.value in BAR_METHODS:
            owner = func.value
            # ``tqdm.write(...)``: a class method; ``bar.update(1)``: a bar built by a tqdm factory.
            if _is_tqdm(self.context.resolve(owner)):
                self.report(node, rewrite=eager_only(node), call=f"{resolved}()")
            elif self._is_bar(owner):
                self.report(node, rewrite=eager_only(node), call=f"{dotted_name(func) or func.attr.value}()")
