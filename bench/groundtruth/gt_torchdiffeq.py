"""Ground-truth bench, torchdiffeq: neural ODEs integrated by each of its solvers.

An ODE whose right-hand side is a small MLP (``_Field``, bench code) is integrated over a few time
points by ``odeint`` with each solver in ``SOLVERS`` (adaptive ones loop until the error estimate
accepts a step: data-dependent control flow), by ``odeint_adjoint`` and ``odeint_event``. The compiled
module (``_Integrate``) is bench code too, so its entry points name the library functions it calls.
``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Solver name -> options (fixed-grid solvers get a step size).
SOLVERS: dict[str, dict[str, Any]] = {
    "dopri5": {}, "dopri8": {}, "bosh3": {}, "fehlberg2": {}, "adaptive_heun": {},
    "euler": {"step_size": 0.1}, "midpoint": {"step_size": 0.1}, "rk4": {"step_size": 0.1},
    "heun2": {"step_size": 0.1}, "heun3": {"step_size": 0.1},
    "explicit_adams": {"step_size": 0.1}, "implicit_adams": {"step_size": 0.1},
    "fixed_adams": {"step_size": 0.1},
}
VARIANTS = ("adjoint.dopri5", "adjoint.rk4", "event.dopri5", "grid_points.dopri5", "perturb.euler")


def names() -> list[str]:
    return list(SOLVERS) + list(VARIANTS)


def build(name: str) -> Built:
    import torch
    import torchdiffeq
    from torch import nn

    class Field(nn.Module):
        """dy/dt = MLP(y), a neural ODE's right-hand side."""

        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4))

        def forward(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.net(y)

    class Integrate(nn.Module):
        """Integrates ``Field`` from ``y0`` over ``t`` with one of torchdiffeq's entry functions."""

        def __init__(self, function: Any, **static: Any) -> None:
            super().__init__()
            self.field = Field()
            self.function = function
            self.static = static

        def forward(self, y0: torch.Tensor, t: torch.Tensor) -> Any:
            return self.function(self.field, y0, t, **self.static)

        def entry_points(self) -> list[Any]:
            return [self.function]

    kind, _, method = name.rpartition(".")
    options = dict(SOLVERS[method])
    static: dict[str, Any] = {"method": method, "rtol": 1e-3, "atol": 1e-4, "options": options}
    function = torchdiffeq.odeint
    if kind == "adjoint":
        function = torchdiffeq.odeint_adjoint
    elif kind == "grid_points":
        options["grid_points"] = torch.tensor([0.0, 0.25, 0.5])
    elif kind == "perturb":
        options["perturb"] = True
    elif kind == "event":
        def event(t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return t - 0.3  # fires at t = 0.3
        function = torchdiffeq.odeint_event
        static = {"event_fn": event, "method": method, "rtol": 1e-3, "atol": 1e-4}
        model = Integrate(function, **static)
        return model, (torch.randn(4), torch.tensor(0.0)), {}
    y0 = torch.randn(2, 4, generator=torch.Generator().manual_seed(0))
    return Integrate(function, **static), (y0, torch.linspace(0, 0.5, 4)), {}
