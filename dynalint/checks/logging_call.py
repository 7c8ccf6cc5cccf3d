"""DYN202 ``logging-call``: ``logging`` calls inside compiled code. Page: ``rules/DYN202-logging-call.md``.

A receiver is a logger when the source shows how it was made: the ``logging`` module itself, a call of
any ``getLogger`` / ``get_logger`` (a library's own factory included), a ``logging.Logger`` /
``LoggerAdapter`` built directly, an instance of an in-tree ``Logger`` subclass, or a module-level name of another
module of the tree bound there to such a call (``debug.logger``, or ``logger`` imported from it). Libraries' extra
methods (``warning_once``, ``info_once``) break like the standard ones (measured on torch 2.13).
"""

from __future__ import annotations

import re

import libcst as cst

from dynalint.analysis.instances import constructed_by, lineage
from dynalint.analysis.qualified_names import dotted_name
from dynalint.lint.rewrites import eager_only
from dynalint.lint.rule import Rule
from dynalint.model.finding import Applicability, Confidence

LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log", "isEnabledFor",
     "warning_once", "info_once"}
)
LOGGER_FACTORIES = frozenset({"getLogger", "get_logger"})
LOGGER_CLASSES = frozenset({"logging.Logger", "logging.LoggerAdapter", "logging.RootLogger"})
# Receivers that are loggers by every convention we have seen; used only at ``likely`` confidence.
LOGGER_NAME = re.compile(r"^(self\.|cls\.)?_*(logger|log|LOGGER|LOG|_logger|logging_?\w*)$")


class LoggingCall(Rule):
    code = "DYN202"
    name = "logging-call"
    message = "`{call}` in compiled code breaks the graph, even when the level is disabled"
    help = "Log outside the compiled function, or add the method to `torch._dynamo.config.ignore_logging_functions`"
    gb_ids = ("GB0291", "GB4841")
    fix = Applicability.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in LOG_METHODS:
            return
        confidence = self._logger_confidence(func.value)
        if confidence is not None and not self._allowed(func):
            receiver = dotted_name(func.value) or "logger"
            self.report(node, confidence=confidence, rewrite=eager_only(node), call=f"{receiver}.{func.attr.value}()")

    def _allowed(self, func: cst.Attribute) -> bool:
        """Dynamo drops (``ignore_logging_functions``) or defers (``reorderable_...``) these calls."""
        settings = self.context.settings
        allowed = settings.ignore_logging_functions | settings.reorderable_logging_functions
        module_function = self.context.resolve(func)
        return f"logging.Logger.{func.attr.value}" in allowed or (module_function in allowed)

    def _logger_confidence(self, receiver: cst.BaseExpression) -> Confidence | None:
        if self.context.resolve(receiver) == "logging":
            return Confidence.CERTAIN
        if isinstance(receiver, cst.Call) and _is_factory(dotted_name(receiver.func)):
            return Confidence.CERTAIN
        dotted = dotted_name(receiver)
        if dotted is None:
            return None
        if "." not in dotted and _is_factory(self.context.summary.module_types.get(dotted)):
            return Confidence.CERTAIN
        if self._imported_logger(receiver):
            return Confidence.CERTAIN
        if self._is_logger_instance(receiver):
            return Confidence.CERTAIN
        return Confidence.LIKELY if LOGGER_NAME.match(dotted) else None

    def _imported_logger(self, receiver: cst.BaseExpression) -> bool:
        """``debug.logger`` or an imported ``logger``: a module-level name of another module of the tree, bound there
        to a ``getLogger`` call (cherry's algorithms log through ``cherry.debug.logger``)."""
        owner, _, name = (self.context.resolve(receiver) or "").rpartition(".")
        program = self.context.program
        defining = program.modules.get(program.canonical(owner) or owner) if owner else None
        return defining is not None and _is_factory(defining.module_types.get(name))

    def _is_logger_instance(self, receiver: cst.BaseExpression) -> bool:
        """Built by ``logging.Logger(...)`` / ``LoggerAdapter(...)`` or by an in-tree subclass of one."""
        built = constructed_by(self.context, receiver)
        return built is not None and any(qualified in LOGGER_CLASSES for qualified in lineage(self.context, built))


def _is_factory(callee: str | None) -> bool:
    return callee is not None and callee.rsplit(".", 1)[-1] in LOGGER_FACTORIES
