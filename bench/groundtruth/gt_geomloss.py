"""Ground-truth bench, geomloss: Sinkhorn divergences, kernel MMDs and OT solvers between point clouds.

geomloss (Jean Feydy) exports ``SamplesLoss``, a loss module between sampled measures (point clouds
with optional weights, batched or not): the debiased or raw, balanced or unbalanced Sinkhorn divergence
(``"sinkhorn"``, an epsilon-scaling loop of soft-C-transforms), kernel norms (``"energy"``,
``"gaussian"``, ``"laplacian"``) and the weighted Hausdorff distance (``"hausdorff"``); its
``"tensorized"`` backend runs these on dense cost matrices in plain torch. Version 0.3 adds the
functional ``geomloss.ot`` solvers (``solve``, ``solve_batch``, ``solve_sample``) returning an
``OTResult`` with lazily computed value, plan, marginals and potentials. So:

- ``SAMPLES``: ``SamplesLoss`` on 20 and 24 points in 3D (and batches of 2) in the options that change
  its code: every loss; weights given (as ``(N,)`` or ``(N, 1)`` columns) or generated; batched or not;
  ``p`` 1 or 2; ``blur`` and ``diameter`` (given, or estimated on the fly); ``reach``
  (unbalanced OT, with unequal masses); ``debias=False``; ``potentials=True``; a cost given as a
  callable (the tensorized backend's form), a kernel given as a callable, and the ``"multiscale"``
  backend on a batch (which falls back to ``"tensorized"`` with a warning);
- ``FUNCTIONS``: the lower-level routines users call directly (``gt_calls.Call``):
  ``sinkhorn_tensorized`` and ``kernel_tensorized`` with their options, the loop's parts
  (``softmin_tensorized``, ``log_weights``, ``max_diameter``, ``scaling_parameters``) and the
  distance helpers, and the Sinkhorn loop itself (``sinkhorn_loop`` then ``sinkhorn_cost``) as
  ``sinkhorn_tensorized`` runs it;
- ``OT``: ``geomloss.ot`` solvers (at ``max_iter=10``, the only stopping rule they accept) and the
  result's attributes users read (``value``, ``plan``, marginals, potentials);
- ``TRAIN``: the tutorials' steps: a gradient flow (the loss's gradient with respect to the sample
  positions, ``torch.autograd.grad``) and a tiny generator fitted to a target cloud.

Left out: the ``"online"`` and ``"multiscale"`` backends, KeOps cost formulas given as strings,
``sinkhorn_divergence`` on images and ``ImagesBarycenter`` (all need pykeops, which is not installed);
``SamplesLoss("hausdorff")`` without a kernel (it raises ``KeyError`` in this version, so the Hausdorff
models pass a kernel callable); ``ot.barycenter*`` and ``ot.solve_sample_batch`` (unimplemented stubs).
Inputs are seeded random clouds. Random weights, nothing downloaded. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, M, D, B = 20, 24, 3, 2

# ``SamplesLoss`` name -> (constructor keywords, input kind). Input kinds: ``pair`` (x, y), ``weighted``
# (a, x, b, y), ``column`` (weights as (N, 1) columns), ``unequal`` (weights of different total masses),
# ``batch`` (batched x, y), ``batch_weighted`` and ``batch_column`` ((B, N, 1) weights). ``cost`` and
# ``kernel`` values name a callable made in the worker.
SAMPLES: dict[str, tuple[dict[str, Any], str]] = {
    "sinkhorn": ({}, "pair"),
    "sinkhorn.p1": ({"p": 1}, "pair"),
    "sinkhorn.diameter": ({"diameter": 6.0}, "pair"),
    "sinkhorn.reach": ({"reach": 0.5}, "pair"),
    "sinkhorn.reach.unequal_mass": ({"reach": 1.0}, "unequal"),
    "sinkhorn.reach.p1": ({"reach": 1.0, "p": 1}, "pair"),
    "sinkhorn.no_debias": ({"debias": False}, "pair"),
    "sinkhorn.no_debias.reach": ({"debias": False, "reach": 0.5}, "pair"),
    "sinkhorn.potentials": ({"potentials": True}, "pair"),
    "sinkhorn.potentials.no_debias": ({"potentials": True, "debias": False}, "pair"),
    "sinkhorn.potentials.reach": ({"potentials": True, "reach": 0.5}, "weighted"),
    "sinkhorn.weighted": ({}, "weighted"),
    "sinkhorn.batch": ({}, "batch"),
    "sinkhorn.batch.weighted": ({}, "batch_weighted"),
    "sinkhorn.batch.reach.no_debias": ({"reach": 0.5, "debias": False}, "batch"),
    "sinkhorn.cost_callable": ({"cost": "sqdist", "backend": "tensorized"}, "pair"),
    "sinkhorn.cost_callable.p1": ({"cost": "cdist", "p": 1}, "weighted"),
    "sinkhorn.cost_callable.batch": ({"cost": "sqdist", "debias": False}, "batch"),
    "sinkhorn.multiscale.batch_fallback": ({"backend": "multiscale"}, "batch"),
    "hausdorff.kernel": ({"kernel": "gaussian"}, "pair"),
    "hausdorff.kernel.weighted": ({"kernel": "gaussian"}, "weighted"),
    "hausdorff.kernel.batch": ({"kernel": "laplacian", "backend": "tensorized"}, "batch"),
    "hausdorff.kernel.potentials": ({"kernel": "gaussian", "potentials": True}, "pair"),
    "energy": ({}, "pair"),
    "energy.weighted": ({}, "weighted"),
    "energy.batch": ({"backend": "tensorized"}, "batch"),
    "energy.potentials": ({"potentials": True}, "pair"),
    "gaussian": ({}, "pair"),
    "gaussian.blur": ({"blur": 0.5}, "pair"),
    "gaussian.weighted.column": ({"blur": 0.5}, "column"),
    "gaussian.batch.weighted": ({"blur": 0.5}, "batch_weighted"),
    "gaussian.batch.column": ({"blur": 0.5, "backend": "tensorized"}, "batch_column"),
    "gaussian.potentials": ({"blur": 0.5, "potentials": True}, "weighted"),
    "gaussian.kernel_callable": ({"kernel": "gaussian", "blur": 0.5}, "pair"),
    "laplacian": ({}, "pair"),
    "laplacian.weighted": ({"blur": 0.5}, "weighted"),
    "laplacian.batch": ({"blur": 0.5}, "batch"),
    "laplacian.potentials": ({"blur": 0.5, "potentials": True}, "batch_weighted"),
}

# Function name -> (module under ``geomloss._legacy``, function, fixed keywords, input kind). Kinds as
# above, batched; ``cost`` names a callable; ``softmin`` / ``cloud`` / ``weights`` / ``diameter`` are the
# inputs of the loop's parts.
FUNCTIONS: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "sinkhorn_tensorized": ("sinkhorn_samples", "sinkhorn_tensorized", {}, "batch_weighted"),
    "sinkhorn_tensorized.no_debias": ("sinkhorn_samples", "sinkhorn_tensorized", {"debias": False},
                                      "batch_weighted"),
    "sinkhorn_tensorized.potentials": ("sinkhorn_samples", "sinkhorn_tensorized",
                                       {"potentials": True, "diameter": 6.0}, "batch_weighted"),
    "sinkhorn_tensorized.cost": ("sinkhorn_samples", "sinkhorn_tensorized", {"cost": "sqdist", "diameter": 6.0},
                                 "batch_weighted"),
    "kernel_tensorized.gaussian": ("kernel_samples", "kernel_tensorized", {"name": "gaussian", "blur": 0.5},
                                   "batch_weighted"),
    "kernel_tensorized.laplacian": ("kernel_samples", "kernel_tensorized", {"name": "laplacian", "blur": 0.5},
                                    "batch_weighted"),
    "kernel_tensorized.energy": ("kernel_samples", "kernel_tensorized", {"name": "energy"}, "batch_weighted"),
    "kernel_tensorized.energy.potentials": ("kernel_samples", "kernel_tensorized",
                                            {"name": "energy", "potentials": True}, "batch_weighted"),
    "softmin_tensorized": ("sinkhorn_samples", "softmin_tensorized", {}, "softmin"),
    "log_weights": ("sinkhorn_divergence", "log_weights", {}, "weights"),
    "max_diameter": ("sinkhorn_divergence", "max_diameter", {}, "cloud"),
    "scaling_parameters": ("sinkhorn_divergence", "scaling_parameters", {"p": 2, "blur": 0.05, "reach": None,
                                                                         "diameter": None, "scaling": 0.5}, "cloud"),
    "squared_distances": ("utils", "squared_distances", {}, "cloud"),
    "squared_distances.batch": ("utils", "squared_distances", {}, "batch"),
    "distances.batch": ("utils", "distances", {}, "batch"),
    "kernel_samples.gaussian_kernel": ("kernel_samples", "gaussian_kernel", {"blur": 0.5}, "batch"),
    "kernel_samples.laplacian_kernel": ("kernel_samples", "laplacian_kernel", {"blur": 0.5}, "batch"),
    "kernel_samples.energy_kernel": ("kernel_samples", "energy_kernel", {}, "batch"),
}
LOOPS = ("sinkhorn_loop", "sinkhorn_loop.no_debias", "sinkhorn_loop.reach")

# ``geomloss.ot`` name -> (solver, keywords, attribute read, input kind: ``cost`` matrix, ``cost_weighted``,
# ``cost_batch``, ``pair`` or ``weighted`` clouds).
OT: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "ot.solve.value": ("solve", {"reg": 0.1}, "value", "cost"),
    "ot.solve.plan": ("solve", {"reg": 0.1}, "plan", "cost"),
    "ot.solve.weighted.marginals": ("solve", {"reg": 0.1}, "marginals", "cost_weighted"),
    "ot.solve.unbalanced.value": ("solve", {"reg": 0.1, "unbalanced": 1.0}, "value", "cost_weighted"),
    "ot.solve_batch.value": ("solve_batch", {"reg": 0.1}, "value", "cost_batch"),
    "ot.solve_batch.plan": ("solve_batch", {"reg": 0.1}, "plan", "cost_batch"),
    "ot.solve_sample.value": ("solve_sample", {"reg": 0.1}, "value", "pair"),
    "ot.solve_sample.blur.debias": ("solve_sample", {"blur": 0.1, "debias": True}, "value", "pair"),
    "ot.solve_sample.reach": ("solve_sample", {"blur": 0.1, "reach": 1.0}, "value", "weighted"),
    "ot.solve_sample.plan": ("solve_sample", {"reg": 0.1}, "plan", "weighted"),
    "ot.solve_sample.potentials": ("solve_sample", {"reg": 0.1}, "potentials", "pair"),
}
# Train step name -> (``SamplesLoss`` keywords, step kind: ``flow`` or ``fit``, batched).
TRAIN: dict[str, tuple[dict[str, Any], str, bool]] = {
    "gradient_flow.sinkhorn": ({"loss": "sinkhorn", "p": 2, "blur": 0.05}, "flow", False),
    "gradient_flow.gaussian": ({"loss": "gaussian", "blur": 0.5}, "flow", False),
    "gradient_flow.energy.batch": ({"loss": "energy"}, "flow", True),
    "fit.sinkhorn": ({"loss": "sinkhorn", "blur": 0.05, "diameter": 6.0}, "fit", False),
    "fit.sinkhorn.batch": ({"loss": "sinkhorn", "p": 1, "blur": 0.1}, "fit", True),
    "fit.laplacian": ({"loss": "laplacian", "blur": 0.5}, "fit", False),
}


def names() -> list[str]:
    return ([f"SamplesLoss.{n}" for n in SAMPLES] + list(FUNCTIONS) + list(LOOPS) + list(OT)
            + [f"train_step.{n}" for n in TRAIN])


def _clouds(kind: str) -> tuple[Any, ...]:
    """Seeded inputs of one kind (see the comment above ``SAMPLES``)."""
    import torch

    gen = torch.Generator().manual_seed(0)
    batched = kind.startswith("batch") or kind in ("softmin",)
    shape_x, shape_y = ((B, N, D), (B, M, D)) if batched else ((N, D), (M, D))
    x = torch.rand(*shape_x, generator=gen)
    y = torch.rand(*shape_y, generator=gen) * 0.8 + 0.3
    a = torch.rand(*shape_x[:-1], generator=gen) + 0.5
    b = torch.rand(*shape_y[:-1], generator=gen) + 0.5
    a, b = a / a.sum(-1, keepdim=True), b / b.sum(-1, keepdim=True)
    if kind in ("pair", "batch", "cloud"):
        return x, y
    if kind in ("weighted", "batch_weighted"):
        return a, x, b, y
    if kind in ("column", "batch_column"):
        return a.unsqueeze(-1), x, b.unsqueeze(-1), y
    if kind == "unequal":
        return a, x, 1.5 * b, y
    if kind == "weights":
        a = a.clone()
        a[..., :3] = 0.0  # empty points, which ``log_weights`` clamps
        return (a,)
    if kind == "softmin":  # (eps is fixed) C_xy, h_y
        from geomloss._legacy.utils import squared_distances

        return squared_distances(x, y) / 2, torch.log(b)
    raise KeyError(kind)


def _cost(name: str) -> Any:
    """A cost callable for the tensorized backend: batched ``(B, N, D), (B, M, D) -> (B, N, M)``."""
    import torch

    if name == "sqdist":
        return lambda x, y: ((x.unsqueeze(-2) - y.unsqueeze(-3)) ** 2).sum(-1) / 2
    return lambda x, y: torch.cdist(x, y)


def _kernel(name: str) -> Any:
    """A kernel callable, with the keywords ``kernel_loss`` passes (``blur``, ``use_keops``, ``ranges``)."""
    import torch

    def gaussian(x: Any, y: Any, blur: float = 0.5, use_keops: bool = False, ranges: Any = None) -> Any:
        return torch.exp(-((x.unsqueeze(-2) - y.unsqueeze(-3)) ** 2).sum(-1) / (2 * blur ** 2))

    def laplacian(x: Any, y: Any, blur: float = 0.5, use_keops: bool = False, ranges: Any = None) -> Any:
        return torch.exp(-torch.cdist(x, y) / blur)

    return {"gaussian": gaussian, "laplacian": laplacian}[name]


def _keywords(keywords: dict[str, Any]) -> dict[str, Any]:
    keywords = dict(keywords)
    if isinstance(keywords.get("cost"), str):
        keywords["cost"] = _cost(keywords["cost"])
    if isinstance(keywords.get("kernel"), str):
        keywords["kernel"] = _kernel(keywords["kernel"])
    return keywords


def _samples(name: str) -> Built:
    from geomloss import SamplesLoss

    keywords, kind = SAMPLES[name]
    loss = name.split(".", 1)[0]
    return SamplesLoss(loss, **_keywords(keywords)), _clouds(kind), {}


def _function(name: str) -> Built:
    import importlib

    from gt_calls import Call

    module, function, static, kind = FUNCTIONS[name]
    fn = getattr(importlib.import_module(f"geomloss._legacy.{module}"), function)
    args = _clouds(kind)
    static = _keywords(static)
    if name == "softmin_tensorized":  # softmin_tensorized(eps, C_xy, h_y)
        args = (0.1, *args)
    return Call(fn, **static), args, {}


def _loop(name: str) -> Built:
    """``sinkhorn_loop`` then ``sinkhorn_cost`` over dense cost matrices, as ``sinkhorn_tensorized`` runs
    them (``epsilon_schedule`` from a fixed diameter)."""
    import torch
    from geomloss._legacy import sinkhorn_divergence as sd
    from geomloss._legacy.sinkhorn_samples import softmin_tensorized
    from geomloss._legacy.utils import squared_distances
    from torch import nn

    debias = not name.endswith("no_debias")
    rho = 0.25 if name.endswith("reach") else None
    eps_list = sd.epsilon_schedule(2, 2.0, 0.05, 0.5)

    class SinkhornLoop(nn.Module):
        def forward(self, a: torch.Tensor, x: torch.Tensor, b: torch.Tensor, y: torch.Tensor) -> Any:
            C_xy = squared_distances(x, y.detach()) / 2
            C_yx = squared_distances(y, x.detach()) / 2
            C_xx = squared_distances(x, x.detach()) / 2 if debias else None
            C_yy = squared_distances(y, y.detach()) / 2 if debias else None
            f_aa, g_bb, g_ab, f_ba = sd.sinkhorn_loop(softmin_tensorized, sd.log_weights(a), sd.log_weights(b),
                                                      C_xx, C_yy, C_xy, C_yx, eps_list, rho, debias=debias)
            return sd.sinkhorn_cost(eps_list[-1], rho, a, b, f_aa, g_bb, g_ab, f_ba, batch=True, debias=debias)

        def entry_points(self) -> list[Any]:
            return [sd.sinkhorn_loop, sd.sinkhorn_cost, softmin_tensorized]

    return SinkhornLoop(), _clouds("batch_weighted"), {}


def _ot(name: str) -> Built:
    import torch
    from geomloss import ot
    from torch import nn

    solver_name, keywords, attribute, kind = OT[name]
    solver = getattr(ot, solver_name)

    class Solve(nn.Module):
        """``ot.<solver>(...)`` and the attribute of its result that the user reads."""

        def forward(self, *inputs: torch.Tensor) -> Any:
            if kind.startswith("cost"):
                C, *weights = inputs
                extra = dict(zip(("a", "b"), weights))
                result = solver(C, **keywords, **extra, max_iter=10)
            else:
                if len(inputs) == 4:
                    a, x, b, y = inputs
                    result = solver(x, y, a=a, b=b, **keywords, max_iter=10)
                else:
                    result = solver(*inputs, **keywords, max_iter=10)
            if attribute == "marginals":
                return result.marginal_a, result.marginal_b
            if attribute == "potentials":
                return result.potential_a, result.potential_b
            return getattr(result, attribute)

        def entry_points(self) -> list[Any]:
            return [solver]

    if kind.startswith("cost"):
        x, y = _clouds("batch" if kind == "cost_batch" else "pair")
        C = torch.cdist(x, y) ** 2
        if kind == "cost_weighted":
            a, _, b, _ = _clouds("weighted")
            return Solve(), (C, a, b), {}
        return Solve(), (C,), {}
    return Solve(), _clouds(kind), {}


def _train(name: str) -> Built:
    import torch
    from geomloss import SamplesLoss
    from torch import nn

    keywords, kind, batched = TRAIN[name]
    keywords = dict(keywords)
    loss = SamplesLoss(keywords.pop("loss"), **keywords)
    x, y = _clouds("batch" if batched else "pair")

    if kind == "flow":
        class GradientFlow(nn.Module):
            """One step of the tutorials' gradient flow: the loss's gradient with respect to the positions
            (gradients enabled whatever the mode), scaled by the number of points."""

            def __init__(self) -> None:
                super().__init__()
                self.loss = loss

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                with torch.enable_grad():
                    x = x.detach().requires_grad_(True)
                    value = self.loss(x, y).sum()
                    [g] = torch.autograd.grad(value, [x])
                return x.detach() - 0.1 * x.shape[-2] * g

            def entry_points(self) -> list[Any]:
                return [SamplesLoss]

        return GradientFlow(), (x, y), {}

    class Fit(nn.Module):
        """A tiny generator (noise -> points) and its loss to the target cloud."""

        def __init__(self) -> None:
            super().__init__()
            self.generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, D))
            self.loss = loss

        def forward(self, noise: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.loss(self.generator(noise), y).mean()

        def entry_points(self) -> list[Any]:
            return [SamplesLoss]

    noise = torch.randn(*x.shape[:-1], 4, generator=torch.Generator().manual_seed(3))
    return Fit(), (noise, y), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name.startswith("SamplesLoss."):
        return _samples(name.split(".", 1)[1])
    if name in FUNCTIONS:
        return _function(name)
    if name in LOOPS:
        return _loop(name)
    if name in OT:
        return _ot(name)
    return _train(name.split(".", 1)[1])
