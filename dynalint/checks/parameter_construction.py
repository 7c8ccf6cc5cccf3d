"""DYN503 ``parameter-construction``: creating parameters (``nn.Parameter``, a ``torch.nn`` layer with weights) in compiled code.

Page: ``rules/DYN503-parameter-construction.md``. Torch 2.13 refuses the ``nn.Parameter`` constructor
while tracing (GB0264), so building any ``torch.nn`` layer whose ``__init__`` creates one breaks at
the construction. Which layers do is data (``torch_facts.PARAMETER_LAYERS``), measured by building every
``torch.nn`` class; layers built without parameters (``ReLU()``, ``LayerNorm(d, elementwise_affine=False)``,
``BatchNorm1d(c, affine=False)``, ``InstanceNorm1d(c)``) trace and are not reported. The name is
resolved through the imports, so the finding is ``certain``.

A tensor created with ``requires_grad=True`` (``torch.zeros(n, requires_grad=True)``,
``torch.tensor(v, requires_grad=True)``) is a new autograd leaf too: Dynamo refuses it (GB0225, measured).
"""

from __future__ import annotations

import libcst as cst

from dynalint.analysis.torch_facts import (
    AFFINE_KEYWORDS,
    OPTIONAL_AFFINE_LAYERS,
    PARAMETER_CONSTRUCTORS,
    PARAMETER_LAYERS,
    TorchResult,
    torch_result,
)
from dynalint.lint.rule import Rule

_PARAMETER = ("GB0264",)  # the ``nn.Parameter`` constructor
_LEAF = "an `nn.Parameter`"
_REQUIRES_GRAD = frozenset({"requires_grad"})


class ParameterConstruction(Rule):
    code = "DYN503"
    name = "parameter-construction"
    message = "{what} in compiled code creates {leaf} and breaks the graph"
    help = "Build layers and parameters once, in `__init__` or outside the compiled function, and reuse them"
    gb_ids = ("GB0264", "GB0225")

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.context.resolve(node.func)
        if resolved is None or not resolved.startswith("torch."):
            return
        if (not resolved.startswith("torch.nn.") and torch_result(resolved) is TorchResult.TENSOR
                and _literal_keyword(node, _REQUIRES_GRAD) is True):
            self.report(node, gb_ids=("GB0225",), pattern="requires_grad",
                        what=f"`{resolved}(..., requires_grad=True)`", leaf="an autograd leaf")
            return
        if resolved in PARAMETER_CONSTRUCTORS:
            self.report(node, gb_ids=_PARAMETER, what=f"`{resolved.rsplit('.', 1)[-1]}(...)`", leaf=_LEAF)
            return
        if not resolved.startswith("torch.nn."):
            return
        layer = resolved.rsplit(".", 1)[-1]
        affine = _literal_keyword(node, AFFINE_KEYWORDS)
        if (layer in PARAMETER_LAYERS and affine is not False) or (layer in OPTIONAL_AFFINE_LAYERS and affine is True):
            self.report(node, gb_ids=_PARAMETER, what=f"Building `nn.{layer}(...)`", leaf=_LEAF)


def _literal_keyword(node: cst.Call, names: frozenset[str]) -> bool | None:
    """The value of a ``True`` / ``False`` keyword argument among ``names``; ``None`` when absent or not literal."""
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value in names and isinstance(arg.value, cst.Name):
            if arg.value.value in ("True", "False"):
                return arg.value.value == "True"
    return None
