"""Ground-truth bench, torchjd: Jacobian descent on small multi-task and multi-objective models.

torchjd replaces ``loss.backward()`` by Jacobian descent. ``autojac.backward(losses)`` fills each parameter's
``.jac`` with the Jacobian of several losses (``Jac`` transforms over ``torch.autograd.grad``, vectorized by
``vmap`` unless ``parallel_chunk_size`` asks for chunks); ``autojac.mtl_backward(losses, features)`` does the
same for a shared trunk under task heads (the heads get plain ``.grad``); ``autojac.jac`` returns the Jacobians;
``autojac.jac_to_grad(params, aggregator)`` aggregates the ``.jac`` fields into ``.grad`` (the concatenated
Jacobian, or the sum of per-parameter Gramians with ``optimize_gramian_computation``). The aggregators
(``UPGrad``, ``MGDA``, ``DualProj``, ``AlignedMTL``, ``IMTLG``, ``PCGrad``, ``ConFIG``, ``GradDrop``, ``Krum``,
``TrimmedMean``, ``GradVac``, ``PCD``, ``FairGrad``, ``ExcessMTL``, ``Mean``, ``Sum``, ``Constant``, ``Random``)
are modules over a Jacobian matrix, most of them a ``Weighting`` of its Gramian; the ``autogram.Engine`` computes
that Gramian layer by layer with module hooks, so a weighting's weights can go straight into
``losses.backward(weights)``; the ``scalarization`` modules (``Mean``, ``Sum``, ``Constant``, ``COSMOS``,
``DWA``, ``FAMO``, ``GeometricMean``, ``IMTLL``, ``PBI``, ``Random``, ``STCH``, ``UW``) reduce the losses to one.
So the tables cover, on an MLP trunk with two or three regression heads (batch 4):

- ``MTL``: training steps ``mtl_backward`` + ``jac_to_grad`` + an SGD step, per aggregator;
- ``IWRM``: training steps ``backward`` on per-sample losses + ``jac_to_grad``, for six aggregators, and the options
  ``parallel_chunk_size=1``, ``retain_graph``, given ``inputs``, ``jac_tensors`` and
  ``optimize_gramian_computation``; ``jac`` chained into ``backward``; ``mtl_backward`` with ``grad_tensors``
  and given task and shared parameters;
- ``AUTOGRAM`` (built, not compiled: ``HELD_OUT``): a model hooked by an ``autogram.Engine`` (``batch_dim=0`` and
  ``None``; an MLP, a conv net, a transformer layer, vector and matrix losses), its Gramian by
  ``Engine.compute_gramian``, weights through a weighting and ``losses.backward(weights)``. They run eagerly, but
  once the hooked forward is compiled the engine's Gramian comes back ``None`` (its hooks' autograd side effects are
  not replayed), even with ``compute_gramian`` called outside the compiled step, so they are left out;
- ``AGGREGATORS`` and ``WEIGHTINGS``: aggregators on a Jacobian matrix (those the steps above leave out, and a
  few more), and weightings on a Gramian (the
  stateful ``CRMOGMWeighting``, ``MoDoWeighting``, ``SDMGradWeighting``, which no aggregator wraps, and two more);
- ``SCALARIZERS``: each scalarizer on a loss vector, and training steps through one (``DWA.step``,
  ``FAMO.update``).

``jac_to_grad`` runs with ``retain_jac=True`` and the bench frees the ``.jac`` fields outside the compiled step:
``retain_jac=False`` deletes them with ``del param.jac``, on which Dynamo fails (its fake parameters lack the
attribute), and that failure would hide the rest of the step. ``UPGrad`` and ``DualProj`` default to a quadprog
solver, which is not installed: they are given a projector written here (a ``DualConeProjector`` solving the
dual-cone QP by projected gradient in torch), as the API lets users. ``CAGrad`` and ``NashMTL`` need cvxpy, which
is not installed, and are left out. Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, FEAT, BATCH = 6, 12, 8, 4

# Aggregator key -> (class name, keywords; "projector" gets the bench projector, "weights" a constant vector).
AGGS: dict[str, tuple[str, dict[str, Any]]] = {
    "UPGrad": ("UPGrad", {"projector": True}),
    "UPGrad.pref_vector": ("UPGrad", {"projector": True, "pref_vector": True}),
    "MGDA": ("MGDA", {}),
    "DualProj": ("DualProj", {"projector": True}),
    "AlignedMTL": ("AlignedMTL", {}),
    "AlignedMTL.median": ("AlignedMTL", {"scale_mode": "median"}),
    "AlignedMTL.rmse": ("AlignedMTL", {"scale_mode": "rmse"}),
    "IMTLG": ("IMTLG", {}),
    "PCGrad": ("PCGrad", {}),
    "ConFIG": ("ConFIG", {}),
    "GradDrop": ("GradDrop", {}),
    "Krum": ("Krum", {"n_byzantine": 1, "n_selected": 2}),
    "TrimmedMean": ("TrimmedMean", {"trim_number": 1}),
    "GradVac": ("GradVac", {}),
    "PCD": ("PCD", {}),
    "FairGrad": ("FairGrad", {"alpha": 1.0}),
    "ExcessMTL": ("ExcessMTL", {}),
    "Mean": ("Mean", {}),
    "Sum": ("Sum", {}),
    "Constant": ("Constant", {"weights": True}),
    "Random": ("Random", {}),
}
# Aggregators that need more rows than two tasks give (Krum, TrimmedMean): only with per-sample losses.
MANY_ROWS = {"Krum", "TrimmedMean"}
MTL = tuple(f"mtl_backward.{key}" for key in AGGS if key not in MANY_ROWS | {"Sum", "AlignedMTL.median",
                                                                          "AlignedMTL.rmse"}) + (
    "mtl_backward.UPGrad.three_tasks", "mtl_backward.UPGrad.grad_tensors", "mtl_backward.UPGrad.params_given",
    "mtl_backward.Mean.parallel_chunk_size", "mtl_backward.UPGrad.optimize_gramian")
IWRM = tuple(f"backward.{key}" for key in ("UPGrad", "MGDA", "Mean", "GradDrop", "Krum", "TrimmedMean")) + (
    "backward.UPGrad.parallel_chunk_size", "backward.UPGrad.retain_graph", "backward.UPGrad.inputs",
    "backward.UPGrad.jac_tensors", "backward.UPGrad.optimize_gramian", "backward.MGDA.optimize_gramian",
    "backward.Mean.two_losses", "jac.then_backward", "jac.chunked")
# Autogram model name -> (net kind, batch_dim, weighting key).
AUTOGRAM: dict[str, tuple[str, int | None, str]] = {
    "Engine.mlp.UPGradWeighting": ("mlp", 0, "UPGradWeighting"),
    "Engine.mlp.MGDAWeighting": ("mlp", 0, "MGDAWeighting"),
    "Engine.mlp.batch_dim_none": ("mlp", None, "UPGradWeighting"),
    "Engine.mlp.batch_dim_none.IMTLGWeighting": ("mlp", None, "IMTLGWeighting"),
    "Engine.conv.UPGradWeighting": ("conv", 0, "UPGradWeighting"),
    "Engine.conv.AlignedMTLWeighting": ("conv", 0, "AlignedMTLWeighting"),
    "Engine.transformer.UPGradWeighting": ("transformer", 0, "UPGradWeighting"),
    "Engine.mlp.CRMOGMWeighting": ("mlp", 0, "CRMOGMWeighting"),
    "Engine.mlp.compute_gramian_only": ("mlp", 0, ""),
    "Engine.mlp.matrix_losses": ("mlp2d", 0, "UPGradWeighting"),
}
# Autogram models that run eagerly but whose Gramian is ``None`` when the hooked forward is compiled.
HELD_OUT = tuple(AUTOGRAM)
AGGREGATORS = tuple(f"aggregate.{key}" for key in ("Krum", "TrimmedMean", "Sum", "AlignedMTL.median",
                                                    "AlignedMTL.rmse", "UPGrad", "GradDrop", "ConFIG"))
# Weightings on a Gramian: those no aggregator wraps, and two whose aggregator is also compiled (the weighting
# called alone, as with the autogram engine).
WEIGHTINGS = ("UPGradWeighting", "KrumWeighting", "CRMOGMWeighting", "MoDoWeighting", "SDMGradWeighting")
SCALARS = ("Mean", "Sum", "Constant", "COSMOS", "DWA", "FAMO", "GeometricMean", "IMTLL", "PBI", "Random", "STCH",
           "UW")
SCALARIZERS = tuple(f"scalarize.{key}" for key in SCALARS) + (
    "scalarize.STCH.reference", "scalarize.PBI.reference", "train_step.scalarize.UW", "train_step.scalarize.DWA",
    "train_step.scalarize.FAMO", "train_step.scalarize.IMTLL")


def names() -> list[str]:
    autogram = [key for key in AUTOGRAM if key not in HELD_OUT]
    return list(MTL) + list(IWRM) + autogram + list(AGGREGATORS) + [f"weighting.{w}" for w in WEIGHTINGS] + \
        list(SCALARIZERS)


def _projector() -> Any:
    import torch
    from torchjd.linalg import DualConeProjector

    class _TorchProjector(DualConeProjector):
        """Solves min_v v^T G v subject to v >= u by projected gradient descent, in torch (no QP solver)."""

        def __call__(self, U: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
            G = G / (torch.diagonal(G).max() + 1e-4) + 1e-4 * torch.eye(G.shape[0], dtype=G.dtype)
            step = 1.0 / (torch.linalg.matrix_norm(G, ord=2) + 1e-6)
            v = U.clone()
            for _ in range(20):
                v = torch.maximum(U, v - step * (v @ G))
            return v

    return _TorchProjector()


def _aggregator(key: str, m: int = 2) -> Any:
    import torch
    import torchjd.aggregation as agg

    cls_name, options = AGGS[key]
    keywords = dict(options)
    if keywords.pop("projector", False):
        keywords["projector"] = _projector()
    if keywords.pop("pref_vector", False):
        keywords["pref_vector"] = torch.ones(m) / m
    if keywords.pop("weights", False):
        keywords["weights"] = torch.linspace(0.5, 1.5, m)
    return getattr(agg, cls_name)(**keywords)


def _weighting(key: str, m: int) -> Any:
    import torch
    import torchjd.aggregation as agg

    if key in ("UPGradWeighting", "DualProjWeighting"):
        return getattr(agg, key)(projector=_projector())
    if key == "ConstantWeighting":
        return agg.ConstantWeighting(torch.linspace(0.5, 1.5, m))
    if key == "KrumWeighting":
        return agg.KrumWeighting(n_byzantine=1, n_selected=2)
    if key == "FairGradWeighting":
        return agg.FairGradWeighting(alpha=1.0)
    if key == "CRMOGMWeighting":
        return agg.CRMOGMWeighting(agg.MGDAWeighting(), alpha=0.8)
    return getattr(agg, key)()


def _free_jacs(params: Any) -> None:
    """Deletes the ``.jac`` fields that ``jac_to_grad(..., retain_jac=True)`` kept, outside the compiled step: Dynamo
    fails on ``del param.jac`` (its fake parameters have no such attribute), which ``retain_jac=False`` runs."""
    import torch

    @torch._dynamo.disable
    def free(params: list[Any]) -> None:
        for p in params:
            if hasattr(p, "jac"):
                del p.jac

    free(list(params))


def _gramian(engine: Any, losses: Any) -> Any:
    """``engine.compute_gramian(losses)`` outside the compiled step: under Dynamo it returns ``None`` (the Gramian is
    accumulated by autograd hooks that the traced call does not run), so the bench compiles the hooked model's
    forward (the engine's module hooks), the weighting and the backward, as users compile the model."""
    import torch

    return torch._dynamo.disable(engine.compute_gramian)(losses)


def _key_variant(rest: str) -> tuple[str, str]:
    """An aggregator key (itself maybe dotted: ``UPGrad.pref_vector``) and the variant that follows it."""
    if rest in AGGS:
        return rest, ""
    key, variant = rest.split(".", 1)
    return key, variant


class _Trunk:
    """Builds a shared trunk with task heads (a tiny multi-task regression) and its data."""

    @staticmethod
    def make(tasks: int = 2) -> tuple[Any, Any, Any, Any]:
        import torch
        from torch import nn

        shared = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, FEAT), nn.ReLU())
        heads = nn.ModuleList(nn.Linear(FEAT, 1) for _ in range(tasks))
        gen = torch.Generator().manual_seed(1)
        x = torch.randn(BATCH, DIM, generator=gen)
        ys = torch.randn(tasks, BATCH, 1, generator=gen)
        return shared, heads, x, ys


def _mtl(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torchjd.autojac import jac_to_grad, mtl_backward

    key, variant = _key_variant(name.split(".", 1)[1])
    tasks = 3 if variant == "three_tasks" else 2
    shared, heads, x, ys = _Trunk.make(tasks)
    aggregator = _aggregator(key, tasks)

    class _MTLStep(nn.Module):
        """Shared trunk, per-task losses, ``mtl_backward`` on the losses and features, ``jac_to_grad``, SGD."""

        def __init__(self) -> None:
            super().__init__()
            self.shared = shared
            self.heads = heads
            self.optimizer = torch.optim.SGD(self.parameters(), lr=1e-2)

        def forward(self, x: torch.Tensor, ys: torch.Tensor) -> Any:
            with torch.enable_grad():
                features = self.shared(x)
                outputs = [head(features) for head in self.heads]
                options: dict[str, Any] = {}
                if variant == "grad_tensors":
                    losses = [F.mse_loss(o, y, reduction="none") for o, y in zip(outputs, ys)]
                    options["grad_tensors"] = [torch.full_like(loss, 1.0 / loss.numel()) for loss in losses]
                else:
                    losses = [F.mse_loss(o, y) for o, y in zip(outputs, ys)]
                if variant == "params_given":
                    options["tasks_params"] = [list(h.parameters()) for h in self.heads]
                    options["shared_params"] = list(self.shared.parameters())
                if variant == "parallel_chunk_size":
                    options["parallel_chunk_size"] = 1
                mtl_backward(losses, features, **options)
                to_grad: dict[str, Any] = {"retain_jac": True}
                if variant == "optimize_gramian":
                    to_grad["optimize_gramian_computation"] = True
                weights = jac_to_grad(self.shared.parameters(), aggregator, **to_grad)
            self.optimizer.step()
            self.optimizer.zero_grad()
            _free_jacs(self.shared.parameters())
            return torch.stack([loss.detach().sum() for loss in losses]), weights

        def entry_points(self) -> list[Any]:
            return [mtl_backward, jac_to_grad, type(aggregator)]

    return _MTLStep(), (x, ys), {}


def _iwrm(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torchjd.autojac import backward, jac, jac_to_grad

    parts = name.split(".")
    key, variant = _key_variant(name.split(".", 1)[1]) if parts[0] == "backward" else ("UPGrad", parts[1])
    model = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(BATCH, DIM, generator=gen), torch.randn(BATCH, 1, generator=gen)
    m = 2 if variant == "two_losses" else BATCH
    aggregator = _aggregator(key, m)

    class _IWRMStep(nn.Module):
        """Per-sample losses, ``backward`` (or ``jac`` then ``backward``), ``jac_to_grad``, an SGD step."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.optimizer = torch.optim.SGD(self.model.parameters(), lr=1e-2)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            params = list(self.model.parameters())
            with torch.enable_grad():
                if parts[0] == "jac":
                    hidden = self.model[1](self.model[0](x))
                    losses = F.mse_loss(self.model[2](hidden), y, reduction="none").squeeze(-1)
                    chunk = 1 if variant == "chunked" else None
                    (jac_hidden,) = jac(losses, hidden, retain_graph=True, parallel_chunk_size=chunk)
                    backward(hidden, jac_tensors=jac_hidden, inputs=params[:2])
                    backward(losses, inputs=params[2:])
                else:
                    out = self.model(x)
                    if variant == "two_losses":
                        losses = torch.stack([F.mse_loss(out, y), F.l1_loss(out, y)])
                    else:
                        losses = F.mse_loss(out, y, reduction="none").squeeze(-1)
                    options: dict[str, Any] = {}
                    if variant == "parallel_chunk_size":
                        options["parallel_chunk_size"] = 1
                    if variant == "retain_graph":
                        options["retain_graph"] = True
                    if variant == "inputs":
                        options["inputs"] = params
                    if variant == "jac_tensors":
                        options["jac_tensors"] = torch.eye(losses.shape[0]) * 0.5
                    backward(losses, **options)
                to_grad: dict[str, Any] = {"retain_jac": True}
                if variant == "optimize_gramian":
                    to_grad["optimize_gramian_computation"] = True
                weights = jac_to_grad(params, aggregator, **to_grad)
            self.optimizer.step()
            self.optimizer.zero_grad()
            _free_jacs(params)
            return losses.detach(), weights

        def entry_points(self) -> list[Any]:
            return [backward, jac_to_grad, type(aggregator)] + ([jac] if parts[0] == "jac" else [])

    return _IWRMStep(), (x, y), {}


def _autogram(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torchjd.autogram import Engine

    kind, batch_dim, wkey = AUTOGRAM[name]
    gen = torch.Generator().manual_seed(1)
    if kind == "conv":
        model: nn.Module = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(),
                                         nn.Linear(4 * 6 * 6, 1))
        x = torch.randn(BATCH, 3, 6, 6, generator=gen)
    elif kind == "transformer":
        model = nn.Sequential(nn.TransformerEncoderLayer(FEAT, 2, 16, dropout=0.0, batch_first=True), nn.Flatten(),
                              nn.Linear(3 * FEAT, 1))
        x = torch.randn(BATCH, 3, FEAT, generator=gen)
    else:
        model = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 2 if kind == "mlp2d" else 1))
        x = torch.randn(BATCH, DIM, generator=gen)
    y = torch.randn(BATCH, 2 if kind == "mlp2d" else 1, generator=gen)
    engine = Engine(model, batch_dim=batch_dim)
    weighting = _weighting(wkey, BATCH) if wkey else None

    class _GramianStep(nn.Module):
        """Losses per sample, their Gramian by the engine, weights from it, ``losses.backward(weights)``, SGD."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.optimizer = torch.optim.SGD(self.model.parameters(), lr=1e-2)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            with torch.enable_grad():
                losses = F.mse_loss(self.model(x), y, reduction="none")
                if kind != "mlp2d":
                    losses = losses.squeeze(-1)
                gramian = _gramian(engine, losses)
                if weighting is None:
                    return gramian
                if kind == "mlp2d":
                    gramian = gramian.reshape(losses.numel(), losses.numel())
                    weights = weighting(gramian).reshape(losses.shape)
                else:
                    weights = weighting(gramian)
                losses.backward(weights)
            self.optimizer.step()
            self.optimizer.zero_grad()
            return weights

        def entry_points(self) -> list[Any]:
            return [Engine.compute_gramian] + ([type(weighting)] if weighting is not None else [])

    return _GramianStep(), (x, y), {}


def _matrix(m: int, n: int = 10) -> Any:
    import torch

    return torch.randn(m, n, generator=torch.Generator().manual_seed(3))


def _scalarizer(key: str, m: int) -> Any:
    import torch
    import torchjd.scalarization as sc

    weights = torch.linspace(0.5, 1.5, m)
    if key == "Constant":
        return sc.Constant(weights)
    if key == "COSMOS":
        return sc.COSMOS(lambda_=0.5, weights=weights)
    if key == "DWA":
        return sc.DWA(temperature=2.0)
    if key in ("FAMO", "IMTLL", "UW"):
        return getattr(sc, key)(m)
    if key == "PBI":
        return sc.PBI(theta=2.0, weights=weights)
    if key == "STCH":
        return sc.STCH(mu=0.5, weights=weights)
    return getattr(sc, key)()


def _scalarize(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    parts = name.split(".")
    m = 3
    if parts[0] == "scalarize":
        key = parts[1]
        if len(parts) == 3:
            import torchjd.scalarization as sc

            ref = torch.full((m,), 0.1)
            weights = torch.linspace(0.5, 1.5, m)
            scalarizer = sc.STCH(mu=0.5, weights=weights, reference=ref) if key == "STCH" else \
                sc.PBI(theta=2.0, weights=weights, reference=ref)
        else:
            scalarizer = _scalarizer(key, m)
        return scalarizer, (torch.rand(m, generator=torch.Generator().manual_seed(4)) + 0.1,), {}
    key = parts[2]
    shared, heads, x, ys = _Trunk.make(m)
    scalarizer = _scalarizer(key, m)

    class _ScalarStep(nn.Module):
        """Per-task losses reduced by the scalarizer, a plain backward, an Adam step (and the scalarizer's own
        update: ``DWA.step`` at the epoch's end, ``FAMO.update`` on the losses after the step)."""

        def __init__(self) -> None:
            super().__init__()
            self.shared = shared
            self.heads = heads
            self.scalarizer = scalarizer
            self.optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)

        def losses(self, x: torch.Tensor, ys: torch.Tensor) -> torch.Tensor:
            features = self.shared(x)
            return torch.stack([F.mse_loss(head(features), y) for head, y in zip(self.heads, ys)])

        def forward(self, x: torch.Tensor, ys: torch.Tensor) -> Any:
            with torch.enable_grad():
                losses = self.losses(x, ys)
                loss = self.scalarizer(losses)
                loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            if key == "DWA":
                self.scalarizer.step()
            if key == "FAMO":
                with torch.no_grad():
                    self.scalarizer.update(self.losses(x, ys))
            return loss.detach()

        def entry_points(self) -> list[Any]:
            return [type(scalarizer)]

    return _ScalarStep(), (x, ys), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in MTL:
        return _mtl(name)
    if name in IWRM:
        return _iwrm(name)
    if name in AUTOGRAM:
        return _autogram(name)
    if name in AGGREGATORS:
        key = name.split(".", 1)[1]
        return _aggregator(key, 5), (_matrix(5),), {}
    if name.startswith("weighting."):
        key = name.split(".", 1)[1]
        jacobian = _matrix(5)
        return _weighting(key, 5), (jacobian @ jacobian.T,), {}
    return _scalarize(name)
