"""Ground-truth bench, kan (pykan): Kolmogorov-Arnold networks, their training step, grid updates, layers and splines.

pykan's model is ``KAN`` (``MultKAN``): layers of learnable B-spline activations (``KANLayer``) summed
with a symbolic branch (``Symbolic_KANLayer``), optional multiplication nodes, and node affine
transforms; ``fit`` trains it with a loss plus the library's regularisation (``get_reg``) and refreshes
the spline grids from the data (``update_grid``) every few steps. Every model is built with
``auto_save=False`` (no checkpoint folder, nothing written) on a batch of 16 points in ``[-1, 1]``:

- ``MODELS``: ``KAN.forward`` at tiny widths and grids in the configurations that change its code:
  deeper, other grids and spline orders (also one per layer), multiplication nodes (arity 2, 3 and a
  list of arities), ``base_fun`` ``identity`` and ``zero``, ``symbolic_enabled=False``,
  ``affine_trainable``, ``sparse_init``, ``save_act=False``, the speed mode ``model.speed()`` (what its
  ``speed(compile=True)`` compiles), and symbolic activations fixed with ``fix_symbolic`` (also the
  ``singularity_avoiding`` forward);
- ``TRAIN``: bench train steps (``_TrainStep``) running what ``fit``'s closure computes before the
  backward pass: the forward, the mean squared error and, when activations are saved, ``lamb *
  get_reg(reg_metric, ...)`` for each regularisation metric (the ``edge_backward`` and
  ``node_backward`` ones run ``attribute`` / ``node_attribute`` first, as ``fit`` does); with
  ``update_grid`` first, as ``fit`` does on grid-update steps; and the PDE tutorials' loss through
  ``kan.utils.batch_jacobian``. ``disable_symbolic_in_fit`` is applied at build time, as ``fit`` starts;
- ``GRID``: ``KAN.update_grid_from_samples``, ``initialize_grid_from_another_model`` and ``get_act``
  (``update_grid``, which calls the first, runs in the grid-updating train step);
- ``LAYERS``: ``KANLayer`` (forward, ``update_grid_from_samples`` in both modes,
  ``initialize_grid_from_parent``), ``Symbolic_KANLayer`` (zero, fixed functions, singularity
  avoiding), and the comparison ``kan.MLP`` with its regularised loss;
- ``SPLINES``: ``kan.spline``'s ``B_batch``, ``coef2curve``, ``curve2coef`` and ``extend_grid``
  (``gt_calls.Call``).

Pruning, plotting and symbolic regression (``auto_symbolic``, sympy) are left out: they are not what a
compiled model runs. Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import copy
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 16
SMALL: dict[str, Any] = {"width": [2, 3, 1], "grid": 3, "k": 3}
MULT: dict[str, Any] = {"width": [[2, 0], [2, 2], [1, 0]], "grid": 3, "k": 3}
# Symbolic activations fixed with ``fix_symbolic(l, i, j, name, fit_params_bool=False)``.
SYMBOLIC = [(0, 0, 0, "sin"), (0, 1, 1, "x^2"), (1, 0, 0, "exp")]
SINGULAR = [(0, 0, 0, "1/x"), (0, 1, 1, "log"), (0, 0, 2, "sqrt"), (1, 0, 0, "exp")]

# Model name -> (``KAN`` keywords, symbolic functions to fix, forward keywords). ``speed`` in the
# keywords stands for ``model.speed()`` after construction.
MODELS: dict[str, tuple[dict[str, Any], list[tuple[int, int, int, str]], dict[str, Any]]] = {
    "KAN": (SMALL, [], {}),
    "KAN.deep": ({"width": [3, 4, 3, 1], "grid": 3, "k": 3}, [], {}),
    "KAN.grid5_k2": ({**SMALL, "grid": 5, "k": 2}, [], {}),
    "KAN.k1": ({**SMALL, "k": 1}, [], {}),
    "KAN.grid_k_per_layer": ({**SMALL, "grid": [3, 5], "k": [3, 2]}, [], {}),
    "KAN.mult": (MULT, [], {}),
    "KAN.mult_arity3": ({**MULT, "width": [[2, 0], [1, 1], [1, 0]], "mult_arity": 3}, [], {}),
    "KAN.mult_arity_list": ({**MULT, "width": [[2, 0], [1, 2], [1, 0]], "mult_arity": [[], [2, 3], []]}, [], {}),
    "KAN.base_identity": ({**SMALL, "base_fun": "identity"}, [], {}),
    "KAN.base_zero": ({**SMALL, "base_fun": "zero"}, [], {}),
    "KAN.no_symbolic": ({**SMALL, "symbolic_enabled": False}, [], {}),
    "KAN.affine_trainable": ({**SMALL, "affine_trainable": True}, [], {}),
    "KAN.sparse_init": ({"width": [3, 5, 2], "grid": 3, "k": 3, "sparse_init": True}, [], {}),
    "KAN.no_save_act": ({**SMALL, "save_act": False}, [], {}),
    "KAN.speed": ({**SMALL, "speed": True}, [], {}),
    "KAN.mult.no_symbolic.no_save_act": ({**MULT, "symbolic_enabled": False, "save_act": False}, [], {}),
    "KAN.symbolic": (SMALL, SYMBOLIC, {}),
    "KAN.symbolic.singularity_avoiding": (SMALL, SINGULAR, {"singularity_avoiding": True, "y_th": 10.0}),
    "KAN.symbolic.mult": (MULT, [(0, 0, 0, "sin"), (0, 1, 3, "tanh")], {}),
}
# Train step name -> (``KAN`` keywords, symbolic functions, ``fit`` options: ``lamb``, ``reg_metric``,
# ``lamb_coef``, ``lamb_coefdiff``, ``update_grid``).
REG = {"lamb": 0.01, "reg_metric": "edge_forward_spline_n"}
TRAIN: dict[str, tuple[dict[str, Any], list[tuple[int, int, int, str]], dict[str, Any]]] = {
    "train_step.KAN": (SMALL, [], {"lamb": 0.0}),
    "train_step.KAN.reg": (SMALL, [], REG),
    "train_step.KAN.reg.coef": (SMALL, [], {**REG, "lamb_coef": 1.0, "lamb_coefdiff": 1.0}),
    "train_step.KAN.reg.edge_forward_sum": (SMALL, [], {**REG, "reg_metric": "edge_forward_sum"}),
    "train_step.KAN.reg.edge_forward_spline_u": (SMALL, [], {**REG, "reg_metric": "edge_forward_spline_u"}),
    "train_step.KAN.reg.edge_backward": (SMALL, [], {**REG, "reg_metric": "edge_backward"}),
    "train_step.KAN.reg.node_backward": (SMALL, [], {**REG, "reg_metric": "node_backward"}),
    "train_step.KAN.mult.reg": (MULT, [], REG),
    "train_step.KAN.symbolic.reg": (SMALL, SYMBOLIC, REG),
    "train_step.KAN.update_grid": (SMALL, [], {**REG, "update_grid": True}),
}
GRID = ("KAN.update_grid_from_samples", "KAN.initialize_grid_from_another_model", "KAN.get_act")
LAYERS = ("KANLayer", "KANLayer.k1_grid5", "KANLayer.sparse_init", "KANLayer.update_grid_from_samples",
          "KANLayer.update_grid_from_samples.grid_mode", "KANLayer.initialize_grid_from_parent",
          "KANLayer.initialize_grid_from_parent.grid_mode", "Symbolic_KANLayer", "Symbolic_KANLayer.fixed",
          "Symbolic_KANLayer.singularity_avoiding", "MLP", "MLP.train_step")
SPLINES = ("B_batch", "B_batch.k0", "coef2curve", "curve2coef", "extend_grid")


def names() -> list[str]:
    return (list(MODELS) + list(TRAIN) + ["train_step.KAN.pde"] + list(GRID) + [f"layer.{n}" for n in LAYERS]
            + [f"spline.{n}" for n in SPLINES])


def points(dim: int, seed: int = 1) -> Any:
    import torch

    return torch.rand(BATCH, dim, generator=torch.Generator().manual_seed(seed)) * 2 - 1


def _kan(keywords: dict[str, Any], symbolic: list[tuple[int, int, int, str]] | None = None) -> Any:
    """A ``KAN`` with ``auto_save=False`` (the constructor mutates ``width``, so it gets a copy), with the
    ``symbolic`` activations fixed."""
    from kan import KAN

    keywords = copy.deepcopy(keywords)
    speed = keywords.pop("speed", False)
    model = KAN(**keywords, seed=1, auto_save=False)
    for layer, i, j, function in symbolic or []:
        model.fix_symbolic(layer, i, j, function, fit_params_bool=False, verbose=False, log_history=False)
    return model.speed() if speed else model


def _inputs(model: Any) -> Any:
    return points(model.width_in[0])


def _train_step(name: str) -> Built:
    import torch
    from torch import nn

    keywords, symbolic, options = TRAIN[name]
    model = _kan(keywords, symbolic)
    lamb = options["lamb"]
    model.disable_symbolic_in_fit(lamb)  # as ``fit`` starts: no saved activations at lamb 0, no unused symbolic branch

    class _TrainStep(nn.Module):
        """``fit``'s closure up to ``backward``: (a grid update on grid-update steps,) the forward, the
        mean squared error and the weighted regularisation."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            if options.get("update_grid"):
                self.model.update_grid(x)
            pred = self.model(x)
            train_loss = torch.mean((pred - y) ** 2)
            if self.model.save_act:
                if options["reg_metric"] == "edge_backward":
                    self.model.attribute()
                if options["reg_metric"] == "node_backward":
                    self.model.node_attribute()
                reg = self.model.get_reg(options["reg_metric"], 1.0, 2.0, options.get("lamb_coef", 0.0),
                                         options.get("lamb_coefdiff", 0.0))
            else:
                reg = torch.tensor(0.0)
            return train_loss + lamb * reg

        def entry_points(self) -> list[Any]:
            entered = [type(self.model), type(self.model).get_reg]
            if options.get("update_grid"):
                entered.append(type(self.model).update_grid)
            if options.get("reg_metric") in ("edge_backward", "node_backward"):
                entered.append(type(self.model).attribute)
            return entered

    x = _inputs(model)
    y = torch.sin(torch.pi * x[:, :1]) + x[:, 1:2] ** 2
    return _TrainStep(), (x, y), {}


def _pde_step() -> Built:
    """The PDE tutorials' loss: a Poisson equation's residual through ``batch_jacobian`` twice (the
    Laplacian) on interior points plus the boundary error, on a ``KAN`` of width ``[2, 2, 1]``."""
    import torch
    from kan.utils import batch_jacobian
    from torch import nn

    model = _kan({"width": [2, 2, 1], "grid": 3, "k": 3})
    model.disable_symbolic_in_fit(0.0)

    class _PDEStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x_i: torch.Tensor, x_b: torch.Tensor) -> torch.Tensor:
            sol_d1 = lambda x: batch_jacobian(self.model, x, create_graph=True)  # noqa: E731  (batch, 2)
            sol_d2 = batch_jacobian(sol_d1, x_i, create_graph=True, mode="vector")  # (batch, 2, 2)
            lap = torch.sum(torch.diagonal(sol_d2, dim1=1, dim2=2), dim=1, keepdim=True)
            source = -2 * torch.pi ** 2 * torch.sin(torch.pi * x_i[:, :1]) * torch.sin(torch.pi * x_i[:, 1:2])
            pde_loss = torch.mean((lap - source) ** 2)
            bc_loss = torch.mean(self.model(x_b) ** 2)
            return pde_loss + 0.01 * bc_loss

        def entry_points(self) -> list[Any]:
            return [type(self.model), batch_jacobian]

    return _PDEStep(), (points(2, 3), points(2, 4)), {}


def _from_parent(child: Any, parent: Any, method: str, **static: Any) -> Any:
    """``child.<method>(parent, x)``: a finer model or layer initialised from a coarser one and samples (both
    registered as submodules)."""
    import torch
    from torch import nn

    class FromParent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.child, self.parent = child, parent

        def forward(self, x: torch.Tensor) -> Any:
            return getattr(self.child, method)(self.parent, x, **static)

        def entry_points(self) -> list[Any]:
            return [getattr(type(self.child), method)]

    return FromParent()


def _grid(name: str) -> Built:
    from gt_calls import Method

    if name == "KAN.initialize_grid_from_another_model":
        parent = _kan(SMALL)
        child = _kan({**SMALL, "grid": 5})
        return _from_parent(child, parent, "initialize_grid_from_another_model"), (points(2),), {}
    model = _kan(SMALL)
    method = name.rsplit(".", 1)[1]
    return Method(model, method), (_inputs(model),), {}


def _layer(name: str) -> Built:
    import torch
    from kan.KANLayer import KANLayer
    from kan.MLP import MLP
    from kan.Symbolic_KANLayer import Symbolic_KANLayer
    from torch import nn

    from gt_calls import Method

    x = points(3)
    if name == "KANLayer":
        return KANLayer(in_dim=3, out_dim=2, num=5, k=3), (x,), {}
    if name == "KANLayer.k1_grid5":
        return KANLayer(in_dim=3, out_dim=2, num=5, k=1, base_fun=nn.Identity()), (x,), {}
    if name == "KANLayer.sparse_init":
        return KANLayer(in_dim=3, out_dim=4, num=3, k=3, sparse_init=True), (x,), {}
    mode = {"mode": "grid"} if name.endswith(".grid_mode") else {}
    if name.startswith("KANLayer.update_grid_from_samples"):
        return Method(KANLayer(in_dim=3, out_dim=2, num=5, k=3), "update_grid_from_samples", **mode), (x * 2,), {}
    if name.startswith("KANLayer.initialize_grid_from_parent"):
        parent = KANLayer(in_dim=3, out_dim=2, num=3, k=3)
        child = KANLayer(in_dim=3, out_dim=2, num=6, k=3)
        return _from_parent(child, parent, "initialize_grid_from_parent", **mode), (x,), {}
    if name.startswith("Symbolic_KANLayer"):
        layer = Symbolic_KANLayer(in_dim=3, out_dim=2)
        if name == "Symbolic_KANLayer":
            return layer, (x,), {}
        functions = (["sin", "x^2", "exp", "tanh", "gaussian", "abs"] if name.endswith("fixed")
                     else ["1/x", "log", "sqrt", "exp", "arctanh", "1/x^2"])
        for n, function in enumerate(functions):
            layer.fix_symbolic(n % 3, n // 3, function, verbose=False)
            layer.mask.data[n // 3, n % 3] = 1.0
        return layer, (x,), ({"singularity_avoiding": True, "y_th": 10.0} if "singularity" in name else {})
    mlp = MLP(width=[3, 8, 1], seed=0)
    if name == "MLP":
        return mlp, (x,), {}

    class _MLPTrainStep(nn.Module):
        """``MLP.fit``'s closure before ``backward``: the loss and ``lamb * get_reg('w', ...)``."""

        def __init__(self) -> None:
            super().__init__()
            self.model = mlp

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            pred = self.model(x)
            return torch.mean((pred - y) ** 2) + 0.01 * self.model.get_reg("w", 1.0, 2.0)

        def entry_points(self) -> list[Any]:
            return [MLP, MLP.get_reg]

    return _MLPTrainStep(), (x, torch.sin(x[:, :1])), {}


def _spline(name: str) -> Built:
    import torch
    from kan import spline

    from gt_calls import Call

    dims, grid_points, k = 3, 6, 3
    grid = torch.linspace(-1, 1, steps=grid_points)[None, :].expand(dims, grid_points)
    extended = spline.extend_grid(grid, k_extend=k)
    x = points(dims)
    if name == "extend_grid":
        return Call(spline.extend_grid, k_extend=k), (grid,), {}
    if name == "B_batch":
        return Call(spline.B_batch, k=k), (x, extended), {}
    if name == "B_batch.k0":
        return Call(spline.B_batch, k=0), (x, grid), {}
    coef = torch.randn(dims, 2, grid_points - 1 + k, generator=torch.Generator().manual_seed(5)) * 0.1
    if name == "coef2curve":
        return Call(spline.coef2curve, k=k), (x, extended, coef), {}
    y = spline.coef2curve(x, extended, coef, k)
    return Call(spline.curve2coef, k=k), (x, y, extended), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        keywords, symbolic, call = MODELS[name]
        model = _kan(keywords, symbolic)
        return model, (_inputs(model),), dict(call)
    if name in TRAIN:
        return _train_step(name)
    if name == "train_step.KAN.pde":
        return _pde_step()
    if name in GRID:
        return _grid(name)
    kind, rest = name.split(".", 1)
    return _layer(rest) if kind == "layer" else _spline(rest)
