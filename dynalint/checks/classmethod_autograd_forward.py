"""DYN514 ``classmethod-autograd-forward``: applying an autograd ``Function`` whose ``forward`` is a ``classmethod``.

Page: ``rules/DYN514-classmethod-autograd-forward.md``. Measured on torch 2.13: Dynamo traces ``Fn.apply(x)`` by
binding ``forward`` to ``(ctx, *args)`` as a plain function; a ``forward(cls, ctx, x)`` declared a ``classmethod``
then fails to bind where an input requires grad ("failed to bind arguments when attempting to inline", GB7312),
or fails the compile outright when an argument is left to its default. Under ``no_grad``, or with no input that
requires grad, the ``Function`` is not traced as one and nothing breaks: the rule is ``likely``, since it
cannot see whether the call runs in training. The class must be defined in the analysed tree (entmax's
``SparsemaxFunction``, ``Entmax15Function``), called as ``Fn.apply(...)`` or through a module-level alias of
it (``sparsemax = SparsemaxFunction.apply``).
"""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence


class ClassmethodAutogradForward(Rule):
    code = "DYN514"
    name = "classmethod-autograd-forward"
    message = ("`{call}` applies an autograd Function whose `forward` is a classmethod: with an input that "
               "requires grad, Dynamo cannot bind it and breaks the graph")
    help = "Declare `forward` (and `backward`) with `@staticmethod` and drop the `cls` parameter"
    gb_ids = ("GB7312",)
    confidence = Confidence.LIKELY

    def visit_Call(self, node: cst.Call) -> None:
        written = self.context.module_level_name(node.func)
        if written is None:
            return  # not a name, or a local one
        program = self.context.program
        applied = program.applied_function(self.context.summary, written)
        if applied is not None and program.has_classmethod_forward(applied):
            self.report(node, call=f"{written}(...)")
