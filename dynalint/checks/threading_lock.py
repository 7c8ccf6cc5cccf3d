"""DYN208 ``threading-lock``: locks and semaphores inside compiled code. Page: ``rules/DYN208-threading-lock.md``.

A lock is recognised by what built it, never by its name: a module-level ``NAME = threading.Lock()`` or
an attribute set in ``__init__`` (``self.lock = threading.RLock()``), both read from the summaries, a local
of the function or of an enclosing one (captum's forward hook takes ``lock``, built by the function that
registers it), or the constructor called in place (``with threading.Lock():``).
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.instances import constructed_by
from dynalint.analysis.qualified_names import dotted_name
from dynalint.lint.rule import LocalObjectRule

LOCK_TYPES = frozenset(
    f"{module}.{cls}"
    for module in ("threading", "multiprocessing")
    for cls in ("Lock", "RLock", "Condition", "Semaphore", "BoundedSemaphore")
)
LOCK_METHODS = frozenset({"acquire", "release"})


class ThreadingLock(LocalObjectRule):
    code = "DYN208"
    name = "threading-lock"
    message = "{construct} in compiled code breaks the graph"
    help = "Take the lock around the compiled call, outside the compiled function"
    gb_ids = ("GB0142", "GB0007", "GB0156")

    def visit_WithItem(self, node: cst.WithItem) -> None:
        item = node.item
        if not isinstance(item, cst.Call) and self._built(item) in LOCK_TYPES:
            self.report(node, construct=f"`with {dotted_name(item) or 'lock'}:` on a lock")

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved in LOCK_TYPES:
            self.report(node, construct=f"Creating a `{resolved}`")
            return
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in LOCK_METHODS
            and self._built(func.value) in LOCK_TYPES
        ):
            self.report(node, construct=f"`{dotted_name(func) or func.attr.value}()` on a lock")

    def _built(self, node: cst.BaseExpression) -> str | None:
        return self.locals.built(node) or constructed_by(self.context, node)
