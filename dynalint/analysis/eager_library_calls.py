"""Which library calls Dynamo runs eagerly: DYN004's measured table read as one question (summarize stage
and lint stage).

``skipped_library_calls`` (generated) lists the calls measured to break and the packages taken whole
(SciPy), less the calls of theirs measured to trace. DYN004 reports such a call; the summary stage
records the functions handed to one (``scipy.optimize.minimize(objective, x0)``), since the library then
calls them from eager code and Dynamo compiles each as a frame of its own (measured on torch 2.13).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from dynalint.analysis.skipped_library_calls import (
    SKIPPED_LIBRARY_CALLS,
    SKIPPED_LIBRARY_PACKAGES,
    TRACED_LIBRARY_CALLS,
)
from dynalint.analysis.torch_facts import FRAMEWORK_MODULE_BASES

# A library base class under each name users import it by -> the name the measured table knows it under
# (``pl.LightningModule`` from ``pytorch_lightning`` is the same class as ``lightning.pytorch.LightningModule``).
MEASURED_BASE_NAMES: dict[str, str] = {
    base: "lightning.pytorch.LightningModule" for base in FRAMEWORK_MODULE_BASES if base.endswith(".LightningModule")
}


def breaking_call(resolved: str) -> tuple[str, bool] | None:
    """The GB id a call of ``resolved`` (a qualified name) breaks with, and whether it comes from a package
    taken whole; ``None`` when it is not known to break."""
    listed = SKIPPED_LIBRARY_CALLS.get(resolved)
    if listed is not None:
        return listed[0], False
    package = resolved.split(".", 1)[0]
    whole = SKIPPED_LIBRARY_PACKAGES.get(package) if "." in resolved and resolved not in TRACED_LIBRARY_CALLS else None
    return (whole, True) if whole is not None else None


def inherited_breaking_method(bases: Iterable[str], name: str) -> tuple[str, str] | None:
    """``self.log(...)`` in a ``LightningModule``: the measured method ``name`` of the first library base in ``bases``
    (qualified, along the class's MRO) that has one, as (its name in the table, the GB id it breaks with)."""
    for base in bases:
        measured = f"{MEASURED_BASE_NAMES.get(base, base)}.{name}"
        if measured in SKIPPED_LIBRARY_CALLS:
            return measured, SKIPPED_LIBRARY_CALLS[measured][0]
    return None


def runs_eagerly(resolved: str) -> bool:
    return breaking_call(resolved) is not None


def skipped_object(built: str) -> bool:
    """Whether every method of the object a call of ``built`` made runs eagerly: an object of a third-party
    package taken whole (``KMeans(...).fit``, ``pd.DataFrame(...).mean``, SimpleITK's transforms), or of one the
    trace rules skip (``networkx.Graph().add_edge``). Measured on torch 2.13: each method call broke, GB0008
    for Python methods, GB0007 for SWIG's. A standard-library call's result (a ``str``, a ``bytes``) is not one."""
    package = built.split(".", 1)[0]
    if package in sys.stdlib_module_names or built in TRACED_LIBRARY_CALLS:
        return False
    listed = SKIPPED_LIBRARY_CALLS.get(built)
    return package in SKIPPED_LIBRARY_PACKAGES or (listed is not None and listed[1] == "skipped")
