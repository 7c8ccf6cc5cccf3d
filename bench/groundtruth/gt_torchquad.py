"""Ground-truth bench, torchquad: its integrators' ``integrate`` over small learnable integrands in 1 to 3 dimensions.

torchquad's integrators (``Trapezoid``, ``Simpson``, ``Boole``, ``GaussLegendre``, the plain ``Gaussian`` rule
on [-1, 1], ``MonteCarlo`` and ``VEGAS``) are plain objects whose ``integrate(fn, dim, N, integration_domain,
...)`` evaluates a vectorised integrand on a grid or on random points. Its tutorials integrate a function of
parameters that are fitted (the integral inside a loss), so each model is bench code (``Integrate``, an
``nn.Module``) that holds one integrator and a learnable integrand (``Integrand``, bench code too: a Gaussian
bump with a learnable centre, width and height, a small MLP, a vector-valued MLP, or a bump whose centre comes
in through ``integrate``'s ``args``) and calls ``integrate`` once in its forward. The integration domain is
what the model receives (a ``dim x 2`` tensor of bounds), except in the variants below:

- ``<integrator>.<d>d`` for d = 1, 2, 3: the bump over a ``d``-dimensional box;
- ``.mlp``, ``.vector``, ``.args``: the other integrands, in 2 dimensions (VEGAS has no vector integrands);
- ``.list_domain``: the domain as a Python list (converted by torchquad, as most examples write it);
- ``.default_domain``: no domain, torchquad's default [-1, 1]^d;
- ``.learnable_domain``: the bounds are a parameter of the model (gradients through the grid);
- ``MonteCarlo.seed``, ``.rng`` and ``.sobol``: seeded sampling, an ``RNG`` object and quasi-Monte Carlo
  with a ``Sobol`` sampler passed as ``rng``;
- ``VEGAS.return_error``, ``.no_warmup``, ``.no_grid_improve``, ``.eps_rel``: the options of its adaptive
  loop (few evaluations and iterations, so that a compile stays short).

``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Integrator -> total number of points per dimensionality (grid rules need a grid of n ** dim points:
# Simpson an odd n, Boole n = 4k + 1).
GRID = ("Trapezoid", "Simpson", "Boole", "GaussLegendre")
POINTS: dict[str, dict[int, int]] = {
    "Trapezoid": {1: 33, 2: 17 ** 2, 3: 9 ** 3},
    "Simpson": {1: 33, 2: 17 ** 2, 3: 9 ** 3},
    "Boole": {1: 33, 2: 17 ** 2, 3: 9 ** 3},
    "GaussLegendre": {1: 16, 2: 8 ** 2, 3: 6 ** 3},
    "Gaussian": {1: 16, 2: 8 ** 2, 3: 6 ** 3},
    "MonteCarlo": {1: 256, 2: 256, 3: 256},
    "VEGAS": {1: 1000, 2: 1000, 3: 1000},
}
VEGAS_OPTIONS: dict[str, dict[str, Any]] = {
    "return_error": {"return_error": True},
    "no_warmup": {"use_warmup": False},
    "no_grid_improve": {"use_grid_improve": False},
    "eps_rel": {"eps_rel": 1e-1},
}
DIMS = (1, 2, 3)
COMMON = ("mlp", "args", "list_domain", "default_domain", "learnable_domain")


def names() -> list[str]:
    models: list[str] = []
    for integrator in GRID + ("MonteCarlo",):
        models += [f"{integrator}.{d}d" for d in DIMS]
        models += [f"{integrator}.{v}" for v in COMMON + ("vector",)]
    models += ["Gaussian.1d", "Gaussian.2d"]
    models += ["MonteCarlo.seed", "MonteCarlo.rng", "MonteCarlo.sobol"]
    models += [f"VEGAS.{d}d" for d in DIMS] + [f"VEGAS.{v}" for v in COMMON]
    models += [f"VEGAS.{v}" for v in VEGAS_OPTIONS]
    return models


def build(name: str) -> Built:
    import torch
    import torchquad
    from torch import nn

    torchquad.set_up_backend("torch", data_type="float32")
    torch.manual_seed(0)

    class Integrand(nn.Module):
        """A learnable integrand over ``dim`` dimensions, vectorised over its first axis as torchquad wants."""

        def __init__(self, dim: int, kind: str) -> None:
            super().__init__()
            self.kind = kind
            self.centre = nn.Parameter(torch.full((dim,), 0.2))
            self.log_width = nn.Parameter(torch.zeros(()))
            self.height = nn.Parameter(torch.ones(()))
            outputs = 3 if kind == "vector" else 1
            self.net = nn.Sequential(nn.Linear(dim, 8), nn.Tanh(), nn.Linear(8, outputs))

        def forward(self, x: torch.Tensor, *args: torch.Tensor) -> torch.Tensor:
            x = x.to(self.centre.dtype)  # the Gauss-Legendre nodes come from NumPy in float64
            if self.kind == "mlp":
                return self.net(x).squeeze(-1)
            if self.kind == "vector":
                return self.net(x)
            centre = args[0] if args else self.centre
            return self.height * torch.exp(-((x - centre) ** 2).sum(-1) / self.log_width.exp())

    class Integrate(nn.Module):
        """One ``integrate`` call of a torchquad integrator over a learnable integrand."""

        def __init__(self, integrator: Any, dim: int, kind: str, domain: Any = None, **static: Any) -> None:
            super().__init__()
            self.integrator = integrator
            self.integrand = Integrand(dim, kind)
            self.dim = dim
            self.domain = domain  # a list, a parameter, or None: the domain comes in as an input
            self.static = static

        def forward(self, *inputs: torch.Tensor) -> Any:
            domain = inputs[0] if inputs else self.domain
            static = dict(self.static)
            if self.integrand.kind == "args":  # the centre passed through ``args``
                static["args"] = (self.integrand.centre * 0.5,)
            return self.integrator.integrate(self.integrand, self.dim, integration_domain=domain, **static)

        def entry_points(self) -> list[Any]:
            return [type(self.integrator).integrate]

    integrator_name, variant = name.split(".", 1)
    dim = int(variant[0]) if variant[0].isdigit() else 2
    kind = variant if variant in ("mlp", "vector", "args") else "bump"
    static: dict[str, Any] = {"N": POINTS[integrator_name][dim]}
    if integrator_name == "VEGAS":
        static.update(max_iterations=5, seed=0)
        static.update(VEGAS_OPTIONS.get(variant, {}))
    if integrator_name == "MonteCarlo":
        if variant == "seed":
            static["seed"] = 1
        elif variant == "rng":
            static["rng"] = torchquad.RNG(backend="torch", seed=2)
        elif variant == "sobol":
            static["rng"] = torchquad.Sobol(backend="torch", seed=3)
    integrator = getattr(torchquad, integrator_name)()
    bounds = [[-1.0, 1.0 + 0.5 * i] for i in range(dim)]
    domain: Any = None
    inputs: tuple[Any, ...] = (torch.tensor(bounds),)
    if variant == "list_domain":
        domain, inputs = bounds, ()
    elif variant == "default_domain" or integrator_name == "Gaussian":  # Gaussian integrates over [-1, 1]^d
        inputs = ()
    elif variant == "learnable_domain":
        domain, inputs = nn.Parameter(torch.tensor(bounds)), ()
    model = Integrate(integrator, dim, kind, domain, **static)
    return model, inputs, {}
