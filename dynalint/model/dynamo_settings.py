"""Dynamo settings that change what breaks, as the lint stage sees them for one compiled region.

Three sources, later ones winning: ``[tool.dynalint.dynamo]`` in the config (what the user says their
runs use), ``torch._dynamo.config.X = value`` assignments found anywhere in the linted tree, and the
compile site's own keyword arguments. On torch 2.13 ``fullgraph=True`` turns on
``capture_scalar_outputs`` and ``capture_dynamic_output_shape_ops`` for that site (``.item()``,
tensor slice bounds and ``nonzero`` no longer break there; every remaining break becomes an error).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

# ``[tool.dynalint.dynamo]`` keys (kebab-case) -> ``torch._dynamo.config`` attribute names.
CONFIG_KEYS = {
    "capture-scalar-outputs": "capture_scalar_outputs",
    "capture-dynamic-output-shape-ops": "capture_dynamic_output_shape_ops",
    "reorderable-logging-functions": "reorderable_logging_functions",
    "ignore-logging-functions": "ignore_logging_functions",
}
BOOL_SETTINGS = frozenset({"capture_scalar_outputs", "capture_dynamic_output_shape_ops"})
SET_SETTINGS = frozenset({"reorderable_logging_functions", "ignore_logging_functions"})


@dataclass(frozen=True)
class CompileSettings:
    """The keyword arguments of one ``torch.compile`` site that change what breaks."""

    fullgraph: bool = False
    dynamic: bool | None = None
    backend: str | None = None


@dataclass(frozen=True)
class DynamoSettings:
    capture_scalar_outputs: bool = False
    capture_dynamic_output_shape_ops: bool = False
    # Qualified names: ``builtins.print``, ``logging.Logger.info``.
    reorderable_logging_functions: frozenset[str] = frozenset()
    ignore_logging_functions: frozenset[str] = frozenset()
    fullgraph: bool = False

    def updated(self, values: Mapping[str, object]) -> DynamoSettings:
        """A copy with ``torch._dynamo.config`` attribute values applied (unknown names ignored).

        A flag is set by the truth of its value; a set of functions by a list of names, and a value
        the tree gives it that is no list of names (a call, a constant) leaves it as it was.
        """
        if not any(key in values for key in BOOL_SETTINGS | SET_SETTINGS):
            return self
        return replace(
            self,
            capture_scalar_outputs=bool(values.get("capture_scalar_outputs", self.capture_scalar_outputs)),
            capture_dynamic_output_shape_ops=bool(
                values.get("capture_dynamic_output_shape_ops", self.capture_dynamic_output_shape_ops)),
            reorderable_logging_functions=_names(values.get("reorderable_logging_functions"),
                                                 self.reorderable_logging_functions),
            ignore_logging_functions=_names(values.get("ignore_logging_functions"), self.ignore_logging_functions),
        )

    def at_site(self, site: CompileSettings | None) -> DynamoSettings:
        if site is None or not site.fullgraph:
            return self
        return replace(self, fullgraph=True, capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True)


def _names(value: object, current: frozenset[str]) -> frozenset[str]:
    """The qualified names ``value`` lists (a list or tuple of strings), else ``current``."""
    if isinstance(value, (list, tuple)) and all(isinstance(name, str) for name in value):
        return frozenset(_qualify(name) for name in value)
    return current


def _qualify(name: str) -> str:
    return f"builtins.{name}" if "." not in name else name
