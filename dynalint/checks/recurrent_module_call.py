"""DYN505 ``recurrent-module-call``: using an ``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU`` from compiled code.

Page: ``rules/DYN505-recurrent-module-call.md``. Torch 2.13 refuses to wrap these modules (GB0014) and
the frame runs eagerly. Dynamo wraps the module at its first read, so the break lands there: on
``self.lstm.num_layers`` or ``assert self.lstm is not None`` as much as on ``self.lstm(x)`` (measured).
The finding goes on the first read in each function, and in each branch of an ``if`` (one of them runs:
the first read on the path taken is where the frame falls back); later reads are never traced. The module is
recognised by what built it, never by its name: ``self.<attr>`` assigned in ``__init__`` (or a
base's), or a module-level ``NAME = nn.GRU(...)``, both read from the summaries
(``instances.constructed_by``), including in-tree subclasses of those layers; an attribute that ``__init__``
builds as a recurrent layer on one of its paths only (``if packed: self.lstm = nn.LSTM(...) else: ...``), or
that only a subclass of the method's class builds as one, is reported at ``likely``. In a subclass of
those layers, ``super().forward(...)`` runs the layer's own ``forward``, where the frame breaks the same
way (measured: a ``class GRU(nn.GRU)`` whose ``forward`` calls it, GB0014 on that line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dynalint.analysis.cst_walk import is_super_call
from dynalint.analysis.instances import (
    constructed_by,
    constructed_in_subclasses,
    constructed_on_some_path,
    enclosing_class,
    lineage,
)
from dynalint.analysis.qualified_names import dotted_name
from dynalint.analysis.torch_facts import RECURRENT_LAYERS
from dynalint.lint.rule import Rule
from dynalint.model.finding import Confidence

if TYPE_CHECKING:
    from dynalint.analysis.regions import LintContext


class RecurrentModuleCall(Rule):
    code = "DYN505"
    name = "recurrent-module-call"
    message = "{use} `{callee}`, an `nn.{layer}`, from compiled code makes the frame fall back to eager"
    help = "Call the recurrent layer outside the compiled region (compile the layers around it), or unroll it with the matching `nn.*Cell`"
    gb_ids = ("GB0014",)

    def __init__(self, context: LintContext) -> None:
        super().__init__(context)
        self._reported: list[bool] = [False]  # per function being walked: its first read is reported
        self._callees: set[int] = set()  # ids of the ``func`` expressions of calls
        self._not_reads: set[int] = set()  # ids of names that read no variable: ``x.<attr>``, ``f(<kw>=...)``
        # ``if``/``else`` branches: one runs, so each has its own first read. The ``else`` (or ``elif``)
        # node's id -> whether a read was reported before the ``if``; then -> whether its body reported one.
        self._before_branch: dict[int, bool] = {}
        self._after_body: dict[int, bool] = {}
        self._paths: dict[tuple[str | None, str], list[str | None]] = {}  # (function, attribute) -> layers built

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._reported.append(False)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._reported.pop()

    def visit_If(self, node: cst.If) -> None:
        self._start_other_branch(node)  # an ``elif``
        if node.orelse is not None:
            self._before_branch[id(node.orelse)] = self._reported[-1]

    def leave_If(self, original_node: cst.If) -> None:
        self._end_other_branch(original_node)

    def visit_Else(self, node: cst.Else) -> None:
        self._start_other_branch(node)

    def leave_Else(self, original_node: cst.Else) -> None:
        self._end_other_branch(original_node)

    def _start_other_branch(self, node: cst.CSTNode) -> None:
        """Entering an ``else``/``elif``: its reads are first as if the ``if`` body had not run."""
        before = self._before_branch.pop(id(node), None)
        if before is not None:
            self._after_body[id(node)] = self._reported[-1]
            self._reported[-1] = before

    def _end_other_branch(self, node: cst.CSTNode) -> None:
        """Leaving it: a read after the ``if`` statement is first only where neither branch reported."""
        body = self._after_body.pop(id(node), None)
        if body is not None:
            self._reported[-1] = self._reported[-1] or body

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value
            if is_super_call(func) and not self._reported[-1] and self.context.region is not None:
                cls = enclosing_class(self.context)
                layer = self._recurrent_layer(cls) if cls else None
                if layer is not None:
                    self._reported[-1] = True
                    self.report(node, callee="super().forward", layer=layer, use="Calling")
        self._callees.add(id(func))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_reads.add(id(node.keyword))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_reads.add(id(node.attr))
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            self._read(node)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._not_reads:
            self._read(node)

    def _read(self, node: cst.BaseExpression) -> None:
        if self._reported[-1] or self.context.region is None:
            return
        built = constructed_by(self.context, node)
        layer = self._recurrent_layer(built) if built is not None else None
        confidence = None
        if layer is None:  # one path of ``__init__`` may build it as a recurrent layer, or a subclass may instead
            recurrent = self._recurrent_on_paths(node) if isinstance(node, cst.Attribute) else []
            layer = next(filter(None, recurrent), None)
            if layer is None:
                layer = next(filter(None, map(self._recurrent_layer, constructed_in_subclasses(self.context, node))),
                             None)
            confidence = None if recurrent and all(recurrent) else Confidence.LIKELY
        if layer is not None:
            self._reported[-1] = True
            self.report(node, confidence=confidence, callee=dotted_name(node) or "module", layer=layer,
                        use="Calling" if id(node) in self._callees else "Reading")

    def _recurrent_on_paths(self, node: cst.BaseExpression) -> list[str | None]:
        """For ``self.<attr>``: the recurrent layer each path of ``__init__`` builds it as (``None`` where another
        class), once per function and attribute."""
        if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"
                and node.attr.value in self.context.program.recurrent_attribute_names):
            return []
        key = (self.context.current_function, node.attr.value)  # its class is the function's: no lookup per read
        if key not in self._paths:
            self._paths[key] = [self._recurrent_layer(built) for built in constructed_on_some_path(self.context, node)]
        return self._paths[key]

    def _recurrent_layer(self, built: str) -> str | None:
        for qualified in lineage(self.context, built):
            if qualified and qualified.startswith("torch.nn.") and qualified.rsplit(".", 1)[-1] in RECURRENT_LAYERS:
                return qualified.rsplit(".", 1)[-1]
        return None
