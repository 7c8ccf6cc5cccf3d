"""Dynamo settings that change what breaks, as the lint stage sees them for one compiled region.

Three sources, later ones winning: ``[tool.dynalint.dynamo]`` in the config (what the user says their
runs use), ``torch._dynamo.config.X = value`` assignments found anywhere in the linted tree, and the
compile site's own keyword arguments. On torch 2.13 ``fullgraph=True`` turns on
``capture_scalar_outputs`` and ``capture_dynamic_output_shape_ops`` for that site (``.item()``,
tensor slice bounds and ``nonzero`` no longer break there; every remaining break becomes an error).
"""

from __future__ import annotations

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

    def updated(self, values: dict[str, object]) -> DynamoSettings:
        """A copy with ``torch._dynamo.config`` attribute values applied (unknown names ignored)."""
        known = {k: v for k, v in values.items() if k in BOOL_SETTINGS | SET_SETTINGS}
        for key in SET_SETTINGS & set(known):
            known[key] = frozenset(_qualify(name) for name in known[key])  # type: ignore[union-attr]
        return replace(self, **known) if known else self

    def at_site(self, site: CompileSettings | None) -> DynamoSettings:
        if site is None or not site.fullgraph:
            return self
        return replace(self, fullgraph=True, capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True)


def _qualify(name: str) -> str:
    return f"builtins.{name}" if "." not in name else name
