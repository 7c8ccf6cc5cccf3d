"""Ground-truth bench, torchode: its parallel ODE solver loop over a learnable vector field.

torchode solves a batch of initial value problems at once, each sample with its own step size. Its
vector field here is a small MLP (``Field``, bench code) on 4 samples of 3 features. Two entry points:

- ``SOLVE_IVP``: the functional ``solve_ivp`` with each registered method (``tsit5``, ``dopri5``,
  ``heun``) and the options that change its code: an ``ODETerm`` given directly (without statistics, or
  with extra ``args``), an explicit ``t_span``, ``max_steps``, a reversed time axis, a
  ``FixedStepController``, and ``IntegralController``/``PIDController`` instances (``heun`` gets one at
  the README's tolerances: under the default controller's 1e-7 a second-order method takes thousands
  of steps);
- ``SOLVERS``: the object API of its README: ``ODETerm``, a step method (``Dopri5``, ``Tsit5``, ``Heun``,
  ``Euler``) and a step-size controller (``IntegralController``, ``PIDController``,
  ``FixedStepController``) joined by ``AutoDiffAdjoint`` (the JIT-free solver loop, compiled as the
  ``solve`` of an ``InitialValueProblem``), with per-sample time spans, evaluation at the end points
  only, a given ``dt0``, bounded steps and step-size control kept out of backpropagation; and the
  adjoint solvers ``BacksolveAdjoint`` and ``JointBacksolveAdjoint``.

``TRAIN_STEPS`` compute a regression loss on the solution, up to the backward pass. The compiled
module (``Solve``) is bench code, so its entry points name what it calls. Random weights, nothing
downloaded; ``names()`` needs no torch and ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, FEATURES, HIDDEN, POINTS = 4, 3, 16, 5  # samples, state features, MLP width, evaluation points
ATOL, RTOL = 1e-6, 1e-3  # the README's tolerances

# name -> ``solve_ivp`` options; ``_controller``, ``_term``, ``_t_span``, ``_reversed``, ``_args`` and
# ``_euler`` are read by ``_solve_ivp``.
SOLVE_IVP: dict[str, dict[str, Any]] = {
    "solve_ivp.tsit5": {"method": "tsit5"},
    "solve_ivp.dopri5": {"method": "dopri5"},
    "solve_ivp.heun": {"method": "heun", "_controller": "PIDController"},
    "solve_ivp.heun.fixed": {"method": "heun", "_fixed": True},
    "solve_ivp.tsit5.integral_controller": {"method": "tsit5", "_controller": "IntegralController"},
    "solve_ivp.dopri5.pid_controller": {"method": "dopri5", "_controller": "PIDController"},
    "solve_ivp.tsit5.odeterm_no_stats": {"method": "tsit5", "_term": True},
    "solve_ivp.tsit5.args": {"method": "tsit5", "_args": True},
    "solve_ivp.dopri5.t_span": {"method": "dopri5", "_t_span": True},
    "solve_ivp.tsit5.max_steps": {"method": "tsit5", "max_steps": 8},
    "solve_ivp.dopri5.reversed": {"method": "dopri5", "_reversed": True},
}
# name -> (adjoint, step method, controller, options). Options: ``spans`` (a time span per sample),
# ``no_t_eval`` (end points only), ``dt0``, ``dt_bounds``, ``detach_dt`` (no backpropagation through
# step-size control), ``pid_d`` (a derivative term in the PID controller).
SOLVERS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "AutoDiffAdjoint.Dopri5.IntegralController": ("AutoDiffAdjoint", "Dopri5", "IntegralController", ()),
    "AutoDiffAdjoint.Tsit5.IntegralController": ("AutoDiffAdjoint", "Tsit5", "IntegralController", ()),
    "AutoDiffAdjoint.Heun.IntegralController": ("AutoDiffAdjoint", "Heun", "IntegralController", ()),
    "AutoDiffAdjoint.Dopri5.PIDController": ("AutoDiffAdjoint", "Dopri5", "PIDController", ()),
    "AutoDiffAdjoint.Tsit5.PIDController": ("AutoDiffAdjoint", "Tsit5", "PIDController", ()),
    "AutoDiffAdjoint.Heun.PIDController": ("AutoDiffAdjoint", "Heun", "PIDController", ()),
    "AutoDiffAdjoint.Tsit5.PIDController.derivative": ("AutoDiffAdjoint", "Tsit5", "PIDController", ("pid_d",)),
    "AutoDiffAdjoint.Euler.FixedStepController": ("AutoDiffAdjoint", "Euler", "FixedStepController", ("dt0",)),
    "AutoDiffAdjoint.Heun.FixedStepController": ("AutoDiffAdjoint", "Heun", "FixedStepController", ("dt0",)),
    "AutoDiffAdjoint.Tsit5.FixedStepController": ("AutoDiffAdjoint", "Tsit5", "FixedStepController", ("dt0",)),
    "AutoDiffAdjoint.Dopri5.IntegralController.spans": ("AutoDiffAdjoint", "Dopri5", "IntegralController",
                                                        ("spans",)),
    "AutoDiffAdjoint.Tsit5.IntegralController.no_t_eval": ("AutoDiffAdjoint", "Tsit5", "IntegralController",
                                                           ("no_t_eval",)),
    "AutoDiffAdjoint.Tsit5.IntegralController.dt0": ("AutoDiffAdjoint", "Tsit5", "IntegralController", ("dt0",)),
    "AutoDiffAdjoint.Dopri5.PIDController.dt_bounds": ("AutoDiffAdjoint", "Dopri5", "PIDController",
                                                       ("dt_bounds",)),
    "AutoDiffAdjoint.Tsit5.IntegralController.detach_dt": ("AutoDiffAdjoint", "Tsit5", "IntegralController",
                                                           ("detach_dt",)),
    "BacksolveAdjoint.Dopri5.IntegralController": ("BacksolveAdjoint", "Dopri5", "IntegralController", ()),
    "BacksolveAdjoint.Tsit5.PIDController": ("BacksolveAdjoint", "Tsit5", "PIDController", ()),
    "JointBacksolveAdjoint.Tsit5.IntegralController": ("JointBacksolveAdjoint", "Tsit5", "IntegralController",
                                                       ()),
    "JointBacksolveAdjoint.Dopri5.PIDController": ("JointBacksolveAdjoint", "Dopri5", "PIDController", ()),
}
TRAIN_STEPS = ("train_step.solve_ivp.tsit5", "train_step.AutoDiffAdjoint.Dopri5",
               "train_step.BacksolveAdjoint.Tsit5")


def names() -> list[str]:
    return list(SOLVE_IVP) + list(SOLVERS) + list(TRAIN_STEPS)


def _field(with_args: bool = False) -> Any:
    import torch
    from torch import nn

    class Field(nn.Module):
        """dy/dt = MLP(y), optionally scaled by a per-sample argument."""

        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, FEATURES))

        def forward(self, t: torch.Tensor, y: torch.Tensor, args: Any = None) -> torch.Tensor:
            dy = self.net(y)
            return dy * args[:, None] if with_args else dy

    return Field()


def _inputs() -> tuple[Any, Any]:
    import torch

    y0 = torch.randn(BATCH, FEATURES, generator=torch.Generator().manual_seed(1))
    t_eval = torch.linspace(0, 1, POINTS).repeat(BATCH, 1)
    return y0, t_eval


def _controller(kind: str, term: Any = None, options: tuple[str, ...] = ()) -> Any:
    import torchode

    bounds = {"dt_min": 1e-4, "dt_max": 0.3} if "dt_bounds" in options else {}
    if kind == "IntegralController":
        return torchode.IntegralController(atol=ATOL, rtol=RTOL, term=term, **bounds)
    if kind == "PIDController":
        dcoeff = 0.1 if "pid_d" in options else 0.0
        return torchode.PIDController(atol=ATOL, rtol=RTOL, pcoeff=0.2, icoeff=0.5, dcoeff=dcoeff, term=term,
                                      **bounds)
    return torchode.FixedStepController()


def _solve_ivp(name: str) -> Built:
    import torch
    import torchode
    from torch import nn

    options = dict(SOLVE_IVP[name])
    with_args = options.pop("_args", False)
    field = _field(with_args)
    f: Any = torchode.ODETerm(field, with_stats=False) if options.pop("_term", False) else field
    if "_controller" in options:
        options["controller"] = _controller(options.pop("_controller"))
    if options.pop("_fixed", False):
        options.update(controller=torchode.FixedStepController(), dt0=torch.full((BATCH,), 0.1))
    y0, t_eval = _inputs()
    if options.pop("_t_span", False):
        options["t_span"] = (torch.zeros(BATCH), torch.full((BATCH,), 1.2))
    if options.pop("_reversed", False):
        t_eval = t_eval.flip(1)
    if with_args:
        options["args"] = torch.linspace(0.5, 1.5, BATCH)

    class Solve(nn.Module):
        """``solve_ivp`` on the field: the evaluation times and the solution at them."""

        def __init__(self) -> None:
            super().__init__()
            self.field = field
            self.f = f

        def forward(self, y0: torch.Tensor, t_eval: torch.Tensor) -> Any:
            solution = torchode.solve_ivp(self.f, y0, t_eval, **options)
            return solution.ts, solution.ys

        def entry_points(self) -> list[Any]:
            return [torchode.solve_ivp]

    return Solve(), (y0, t_eval), {}


def _solver(name: str) -> Any:
    """``SOLVERS[name]``: the term, step method and controller joined by the adjoint, as the README builds them."""
    import torchode

    adjoint, method, controller, options = SOLVERS[name]
    term = torchode.ODETerm(_field())
    step_method = getattr(torchode, method)(term=term)
    step_size_controller = _controller(controller, term, options)
    if adjoint == "AutoDiffAdjoint":
        return torchode.AutoDiffAdjoint(step_method, step_size_controller,
                                        backprop_through_step_size_control="detach_dt" not in options)
    return getattr(torchode, adjoint)(term, step_method, step_size_controller)


def _solve(name: str, solver: Any, options: tuple[str, ...]) -> Any:
    import torch
    import torchode
    from torch import nn

    class Solve(nn.Module):
        """``solver.solve`` of the initial value problem from ``y0`` over ``t_eval``."""

        def __init__(self) -> None:
            super().__init__()
            self.solver = solver

        def forward(self, y0: torch.Tensor, t_eval: torch.Tensor) -> Any:
            if "spans" in options:  # each sample integrated over its own interval
                t_end = torch.linspace(0.6, 1.2, y0.shape[0])
                problem = torchode.InitialValueProblem(y0, torch.zeros_like(t_end), t_end,
                                                       t_eval * t_end[:, None])
            elif "no_t_eval" in options:
                problem = torchode.InitialValueProblem(y0, t_eval[:, 0], t_eval[:, -1])
            else:
                problem = torchode.InitialValueProblem(y0=y0, t_eval=t_eval)
            dt0 = torch.full((y0.shape[0],), 0.05) if "dt0" in options else None
            solution = self.solver.solve(problem, dt0=dt0)
            return solution.ts, solution.ys

        def entry_points(self) -> list[Any]:
            return [type(self.solver).solve]

    return Solve()


def _train_step(name: str) -> Built:
    import torch
    import torchode
    from torch import nn
    from torch.nn import functional as F

    y0, t_eval = _inputs()
    target = torch.randn(BATCH, POINTS, FEATURES, generator=torch.Generator().manual_seed(2))
    kind = name.split(".", 1)[1]
    if kind == "solve_ivp.tsit5":
        field = _field()

        class SolveIvpLoss(nn.Module):
            """The mean squared error of ``solve_ivp``'s solution against a target trajectory."""

            def __init__(self) -> None:
                super().__init__()
                self.field = field

            def forward(self, y0: torch.Tensor, t_eval: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
                solution = torchode.solve_ivp(self.field, y0, t_eval, method="tsit5",
                                              controller=_controller("IntegralController"))
                return F.mse_loss(solution.ys, target)

            def entry_points(self) -> list[Any]:
                return [torchode.solve_ivp]

        return SolveIvpLoss(), (y0, t_eval, target), {}
    adjoint, method = kind.split(".")
    controller = "IntegralController" if method == "Dopri5" else "PIDController"
    solve = _solve(name, _solver(f"{adjoint}.{method}.{controller}"), ())

    class Loss(nn.Module):
        """The mean squared error of the solver's solution against a target trajectory."""

        def __init__(self) -> None:
            super().__init__()
            self.solve = solve

        def forward(self, y0: torch.Tensor, t_eval: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            _, ys = self.solve(y0, t_eval)
            return F.mse_loss(ys, target)

        def entry_points(self) -> list[Any]:
            return self.solve.entry_points()

    return Loss(), (y0, t_eval, target), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in SOLVE_IVP:
        return _solve_ivp(name)
    if name in TRAIN_STEPS:
        return _train_step(name)
    y0, t_eval = _inputs()
    return _solve(name, _solver(name), SOLVERS[name][3]), (y0, t_eval), {}
