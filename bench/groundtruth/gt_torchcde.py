"""Ground-truth bench, torchcde: the neural CDE of its README, over each interpolation and solver.

A neural controlled differential equation (``NeuralCDE``, bench code, as torchcde's README writes it)
reads a batch of time series through an interpolated path ``X`` and integrates ``dz = f(z) dX`` with
``torchcde.cdeint``. ``MODELS`` picks, per model:

- the interpolation: natural cubic spline, Hermite cubic with backward differences, linear, and
  rectilinear (linear, time first), each with its coefficient function and path class;
- where its coefficients are computed: outside the compiled module (they are its input, the way the
  README caches them) or inside it, from the raw series (``inside``), once with missing values;
- the solver: ``rk4`` on a fixed step, adaptive ``dopri5`` (with the linear path's kinks as jump
  times), either through the adjoint or not, and torchsde's Stratonovich ``midpoint`` through the
  ``torchsde`` backend.

torchcde's log-signature functions need the ``signatory`` package, which the bench does not install,
so they are absent. The compiled module is bench code, so its entry points name the torchcde code it
calls. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Interpolation -> (coefficient function of torchcde, its keywords, path class of torchcde).
INTERPOLATIONS: dict[str, tuple[str, dict[str, Any], str]] = {
    "cubic": ("natural_cubic_coeffs", {}, "CubicSpline"),
    "hermite": ("hermite_cubic_coefficients_with_backward_differences", {}, "CubicSpline"),
    "linear": ("linear_interpolation_coeffs", {}, "LinearInterpolation"),
    "rectilinear": ("linear_interpolation_coeffs", {"rectilinear": 0}, "LinearInterpolation"),
}
# Solver -> cdeint keywords (the fixed step is one unit of the series' time channel).
SOLVERS: dict[str, dict[str, Any]] = {
    "rk4": {"method": "rk4", "adjoint": False, "options": {"step_size": 1.0}},
    "dopri5": {"method": "dopri5", "adjoint": False},
    "rk4.adjoint": {"method": "rk4", "adjoint": True, "options": {"step_size": 1.0},
                    "adjoint_options": {"step_size": 1.0}},
    "dopri5.adjoint": {"method": "dopri5", "adjoint": True},
    "midpoint.torchsde": {"method": "midpoint", "adjoint": False, "backend": "torchsde", "dt": 1.0},
}
# Model name -> (interpolation, solver, coefficients computed inside the compiled module, missing values).
MODELS: dict[str, tuple[str, str, bool, bool]] = {
    **{f"{i}.rk4": (i, "rk4", False, False) for i in INTERPOLATIONS},
    **{f"{i}.rk4.inside": (i, "rk4", True, False) for i in INTERPOLATIONS},
    "cubic.dopri5": ("cubic", "dopri5", False, False),
    "hermite.dopri5": ("hermite", "dopri5", False, False),
    "linear.dopri5": ("linear", "dopri5", False, False),
    "cubic.dopri5.adjoint": ("cubic", "dopri5.adjoint", False, False),
    "linear.rk4.adjoint": ("linear", "rk4.adjoint", False, False),
    "hermite.rk4.adjoint.inside": ("hermite", "rk4.adjoint", True, False),
    "cubic.rk4.missing.inside": ("cubic", "rk4", True, True),
    "linear.dopri5.missing.inside": ("linear", "dopri5", True, True),
    "cubic.midpoint.torchsde": ("cubic", "midpoint.torchsde", False, False),
}

BATCH, LENGTH, CHANNELS, HIDDEN = 2, 5, 3, 4  # the series: time plus two channels


def names() -> list[str]:
    return list(MODELS)


def build(name: str) -> Built:
    import torch
    import torchcde
    from torch import nn

    interpolation, solver, inside, missing = MODELS[name]
    coefficients_name, coefficient_keywords, path_name = INTERPOLATIONS[interpolation]
    coefficients = getattr(torchcde, coefficients_name)
    path = getattr(torchcde, path_name)
    keywords = {key: (dict(value) if isinstance(value, dict) else value) for key, value in SOLVERS[solver].items()}

    class CDEFunc(nn.Module):
        """f(z): the vector field, a (hidden x input channels) matrix from a small MLP."""

        def __init__(self) -> None:
            super().__init__()
            self.linear1 = nn.Linear(HIDDEN, 8)
            self.linear2 = nn.Linear(8, HIDDEN * CHANNELS)

        def forward(self, t: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
            z = self.linear2(self.linear1(z).relu()).tanh()
            return z.view(z.size(0), HIDDEN, CHANNELS)

    class NeuralCDE(nn.Module):
        """torchcde's README model: initial state from X(t0), cdeint over X's interval, linear readout."""

        def __init__(self) -> None:
            super().__init__()
            self.func = CDEFunc()
            self.initial = nn.Linear(CHANNELS, HIDDEN)
            self.readout = nn.Linear(HIDDEN, 1)

        def forward(self, data: torch.Tensor) -> torch.Tensor:
            coeffs = coefficients(data, **coefficient_keywords) if inside else data
            X = path(coeffs)
            z0 = self.initial(X.evaluate(X.interval[0]))
            options = dict(keywords.get("options", {}))
            if path is torchcde.LinearInterpolation and keywords["method"] == "dopri5":
                options["jump_t"] = X.grid_points  # the README's advice for a linear path and an adaptive solver
            extra = {"options": options} if options else {}
            z = torchcde.cdeint(X=X, func=self.func, z0=z0, t=X.interval, **{**keywords, **extra})
            return self.readout(z[:, 1])

        def entry_points(self) -> list[Any]:
            return [torchcde.cdeint, path] + ([coefficients] if inside else [])

    gen = torch.Generator().manual_seed(0)
    time = torch.arange(LENGTH, dtype=torch.float32).expand(BATCH, LENGTH).unsqueeze(-1)
    series = torch.cat([time, torch.randn(BATCH, LENGTH, CHANNELS - 1, generator=gen).cumsum(1)], dim=-1)
    if missing:  # two observations lost in one channel (not the first, so the fill stays causal)
        series[0, 2, 1] = series[1, 3, 2] = float("nan")
    data = series if inside else coefficients(series, **coefficient_keywords)
    return NeuralCDE(), (data,), {}
