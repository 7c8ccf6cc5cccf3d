"""Ground-truth bench, torchdyn: neural ODEs with its solvers, sensitivities, layers, model zoo and odeint functions.

torchdyn's main model is ``NeuralODE`` (a Lightning module around ``ODEProblem``): a vector field, a
solver chosen by name or instance, and a sensitivity algorithm. ``NEURAL_ODES`` builds it over a small
MLP field (8 states of 2 features) with each of its solvers (fixed-step ``euler``, ``midpoint``,
``rk4``, implicit ``ieuler``; adaptive ``dopri5``, ``tsit5``, whose step-size loops are data-dependent),
its three sensitivities (``autograd``, ``adjoint``, ``interpolated_adjoint``), and the options that change
its code (a dense-output interpolator, ``save_at``, ``return_t_eval=False``, second order, an integral
loss, a time-dependent field, ``trajectory``). ``LAYERS`` are the vector fields its tutorials build from
``torchdyn.nn`` (``DepthCat``, ``DataControl``, ``Augmenter``, Galerkin ``GalLinear`` with each basis
and ``GalConv2d``), a convolutional image field, the hypersolvers (``HyperEuler``, ``HyperMidpoint``,
``HyperRungeKutta4``) and the model zoo (``CNF`` with exact and Hutchinson traces, ``HNN``, ``LNN``,
``GNF``). ``HybridNeuralDE`` is left out: its module imports ``LSDEFunc``, which 1.0.6 lacks.
``SHOOTING`` are ``MultipleShootingLayer`` with its parallel-in-time solvers (``msbackward`` is left
out: its ``root_solve`` indexes past its shooting parameters, eagerly too), ``PROBLEMS`` are
``ODEProblem`` over its example systems, and ``FUNCTIONS`` call ``odeint``, ``odeint_symplectic``, ``odeint_mshooting`` and ``odeint_hybrid``
directly (``Integrate``, bench code, so its entry points name them). ``TRAIN_STEPS`` compute the
losses of its tutorials' training steps (regression, an augmented classifier, a CNF's likelihood), up
to the backward pass. Random weights, nothing downloaded; ``names()`` needs no torch and ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, DIM, HIDDEN, STEPS = 8, 2, 16, 5  # states, features per state, MLP width, points in ``t_span``

# name -> ``NeuralODE`` keywords over the MLP field; ``_order``/``_field``/``_method``/``_save_at`` are
# read by ``_neural_ode``.
NEURAL_ODES: dict[str, dict[str, Any]] = {
    "NeuralODE.euler": {"solver": "euler"},
    "NeuralODE.midpoint": {"solver": "midpoint"},
    "NeuralODE.rk4": {"solver": "rk4"},
    "NeuralODE.dopri5": {"solver": "dopri5"},
    "NeuralODE.tsit5": {"solver": "tsit5"},
    "NeuralODE.ieuler": {"solver": "ieuler"},
    "NeuralODE.adjoint.dopri5": {"solver": "dopri5", "sensitivity": "adjoint"},
    "NeuralODE.adjoint.tsit5": {"solver": "tsit5", "sensitivity": "adjoint"},
    "NeuralODE.adjoint.rk4": {"solver": "rk4", "sensitivity": "adjoint", "solver_adjoint": "dopri5"},
    "NeuralODE.interpolated_adjoint.dopri5": {"solver": "dopri5", "sensitivity": "interpolated_adjoint"},
    "NeuralODE.dopri5.interpolator": {"solver": "dopri5", "interpolator": "4th"},
    "NeuralODE.rk4.save_at": {"solver": "rk4", "_save_at": True},
    "NeuralODE.tsit5.no_t_eval": {"solver": "tsit5", "return_t_eval": False},
    "NeuralODE.rk4.order2": {"solver": "rk4", "order": 2, "_order": 2},
    "NeuralODE.dopri5.integral_loss": {"solver": "dopri5", "_integral_loss": True},
    "NeuralODE.rk4.integral_loss": {"solver": "rk4", "_integral_loss": True},
    "NeuralODE.dopri5.time_field": {"solver": "dopri5", "_field": "time"},
    "NeuralODE.trajectory": {"solver": "dopri5", "_method": "trajectory"},
}
# Vector fields and solvers built from ``torchdyn.nn``, ``torchdyn.numerics`` and ``torchdyn.models``.
GALERKIN_BASES = ("Fourier", "Polynomial", "Chebychev", "GaussianRBF", "VanillaRBF", "MultiquadRBF")
LAYERS = (
    ("DepthCat", "DataControl", "Augmenter", "Augmenter.func", "GalConv2d", "conv")
    + tuple(f"GalLinear.{basis}" for basis in GALERKIN_BASES)
    + ("HyperEuler", "HyperMidpoint", "HyperRungeKutta4")
    + ("CNF.autograd_trace", "CNF.hutch_trace", "HNN", "LNN", "GNF")
)
# ``MultipleShootingLayer``: name -> (parallel-in-time solver, sensitivity).
SHOOTING: dict[str, tuple[str, str]] = {
    "MultipleShootingLayer.mszero": ("mszero", "autograd"),
    "MultipleShootingLayer.ieuler": ("ieuler", "autograd"),
}
# ``ODEProblem`` over ``torchdyn.numerics.systems``: name -> (system, solver).
PROBLEMS: dict[str, tuple[str, str]] = {
    "ODEProblem.Lorenz.dopri5": ("Lorenz", "dopri5"),
    "ODEProblem.VanDerPol.tsit5": ("VanDerPol", "tsit5"),
    "ODEProblem.VanDerPol.rk4": ("VanDerPol", "rk4"),
    "ODEProblem.Lorenz.adjoint": ("Lorenz", "dopri5"),
}
FUNCTIONS = ("odeint.dopri5", "odeint.tsit5.return_all_eval", "odeint.dopri5.reversed", "odeint.rk4",
             "odeint.euler.solver_instance", "odeint.dopri5.seminorm", "odeint_symplectic.alf",
             "odeint_mshooting.mszero", "odeint_hybrid.bouncing_ball")
TRAIN_STEPS = ("train_step.dopri5", "train_step.adjoint.rk4", "train_step.augmented_classifier",
               "train_step.cnf_likelihood")


def names() -> list[str]:
    return (list(NEURAL_ODES) + [f"layer.{n}" for n in LAYERS] + list(SHOOTING) + list(PROBLEMS)
            + list(FUNCTIONS) + list(TRAIN_STEPS))


def _mlp(inputs: int = DIM, outputs: int = DIM) -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(inputs, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, outputs))


def _state(features: int = DIM, batch: int = BATCH) -> Any:
    import torch

    return torch.randn(batch, features, generator=torch.Generator().manual_seed(1))


def _t_span(steps: int = STEPS) -> Any:
    import torch

    return torch.linspace(0, 1, steps)


def _neural_ode(name: str) -> Built:
    import torch
    from torch import nn
    from torchdyn.core import NeuralODE

    from gt_calls import Method

    keywords = dict(NEURAL_ODES[name])
    order = keywords.pop("_order", 1)
    field_kind = keywords.pop("_field", "mlp")
    method = keywords.pop("_method", "forward")
    save_at = keywords.pop("_save_at", False)
    integral = keywords.pop("_integral_loss", False)
    field: Any = _mlp(DIM * order, DIM)
    if field_kind == "time":

        class TimeField(nn.Module):
            """dx/dt = MLP([x, t]): a field that takes the time as its first argument."""

            def __init__(self) -> None:
                super().__init__()
                self.net = _mlp(DIM + 1, DIM)

            def forward(self, t: torch.Tensor, x: torch.Tensor, args: Any = None) -> torch.Tensor:
                return self.net(torch.cat([x, t * torch.ones_like(x[:, :1])], 1))

        field = TimeField()
    if integral:  # the running cost integrated alongside the state, in the first column
        keywords["integral_loss"] = lambda t, x: (x ** 2).sum(1)
    model = NeuralODE(field, atol=1e-3, rtol=1e-3, **keywords)
    x = _state(DIM * order + (1 if integral else 0))
    if method == "trajectory":
        return Method(model, "trajectory"), (x, _t_span()), {}
    if save_at:
        return model, (x, _t_span()), {"save_at": torch.linspace(0, 1, 3)}
    return model, (x, _t_span()), {}


def _layer(name: str) -> Built:
    import torch
    from torch import nn
    from torchdyn import nn as dnn
    from torchdyn.core import NeuralODE
    from torchdyn.models import CNF, GNF, HNN, LNN, autograd_trace, hutch_trace
    from torchdyn.nn import galerkin
    from torchdyn.numerics.solvers import hyper

    class HyperNet(nn.Module):
        """The hypersolver's correction network, g(t, x)."""

        def __init__(self) -> None:
            super().__init__()
            self.net = _mlp()

        def forward(self, t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

    x, t_span = _state(), _t_span()
    if name == "DepthCat":
        field = nn.Sequential(dnn.DepthCat(1), nn.Linear(DIM + 1, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, DIM))
        return NeuralODE(field, solver="dopri5"), (x, t_span), {}
    if name == "DataControl":
        field = nn.Sequential(dnn.DataControl(), nn.Linear(2 * DIM, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, DIM))
        return NeuralODE(field, solver="rk4"), (x, t_span), {}
    if name == "Augmenter":  # augmented neural ODE: zeros appended to the state, then read out
        model = nn.Sequential(dnn.Augmenter(augment_idx=1, augment_dims=3),
                              NeuralODE(_mlp(DIM + 3, DIM + 3), solver="dopri5", return_t_eval=False),
                              nn.Linear(DIM + 3, DIM))
        return model, (x,), {}
    if name == "Augmenter.func":
        model = nn.Sequential(dnn.Augmenter(augment_idx=1, augment_func=nn.Linear(DIM, 3), order="last"),
                              NeuralODE(_mlp(DIM + 3, DIM + 3), solver="rk4", return_t_eval=False))
        return model, (x,), {}
    if name.startswith("GalLinear."):
        basis = getattr(galerkin, name.split(".", 1)[1])(deg=4)
        field = nn.Sequential(dnn.DepthCat(1), dnn.GalLinear(DIM, HIDDEN, expfunc=basis), nn.Tanh(),
                              nn.Linear(HIDDEN, DIM))
        return NeuralODE(field, solver="dopri5"), (x, t_span), {}
    image = torch.randn(2, 2, 6, 6, generator=torch.Generator().manual_seed(2))
    if name == "GalConv2d":
        field = nn.Sequential(dnn.DepthCat(1), dnn.GalConv2d(2, 2, kernel_size=3, padding=1,
                                                              expfunc=galerkin.Fourier(4)))
        return NeuralODE(field, solver="rk4"), (image, t_span), {}
    if name == "conv":
        field = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.Softplus(), nn.Conv2d(4, 2, 3, padding=1))
        return NeuralODE(field, solver="dopri5"), (image, t_span), {}
    if name.startswith("Hyper"):
        solver = {"HyperEuler": hyper.HyperEuler, "HyperMidpoint": hyper.HyperMidpoint,
                  "HyperRungeKutta4": hyper.HyperRungeKutta4}[name](HyperNet())
        return NeuralODE(_mlp(), solver=solver), (x, t_span), {}
    if name.startswith("CNF."):
        if name == "CNF.hutch_trace":  # the tutorial's FFJORD: Hutchinson traces, adjoint sensitivity
            noise = torch.distributions.MultivariateNormal(torch.zeros(DIM), torch.eye(DIM))
            cnf = CNF(_mlp(), trace_estimator=hutch_trace, noise_dist=noise)
            node = NeuralODE(cnf, solver="dopri5", sensitivity="adjoint", atol=1e-4, rtol=1e-4)
        else:
            node = NeuralODE(CNF(_mlp(), trace_estimator=autograd_trace), solver="dopri5", atol=1e-4, rtol=1e-4)
        return nn.Sequential(dnn.Augmenter(augment_idx=1, augment_dims=1), node), (x,), {}
    if name == "HNN":
        return NeuralODE(HNN(_mlp(DIM, 1)), solver="rk4"), (x, t_span), {}
    if name == "GNF":
        return NeuralODE(GNF(_mlp(DIM, 1)), solver="dopri5"), (x, t_span), {}
    # LNN: Lagrangian dynamics, a Jacobian and a Hessian per sample
    return NeuralODE(LNN(_mlp(DIM, 1)), solver="rk4"), (x[:4], torch.linspace(0, 1, 3)), {}


def _shooting(name: str) -> Built:
    from torchdyn.core import MultipleShootingLayer

    solver, sensitivity = SHOOTING[name]
    model = MultipleShootingLayer(_mlp(), solver=solver, sensitivity=sensitivity, maxiter=2, fine_steps=2)
    return model, (_state(), _t_span(4)), {}


def _problem(name: str) -> Built:
    from torchdyn.core import ODEProblem
    from torchdyn.numerics import systems

    system, solver = PROBLEMS[name]
    field = getattr(systems, system)()
    sensitivity = "adjoint" if name.endswith(".adjoint") else "autograd"
    model = ODEProblem(field, solver=solver, sensitivity=sensitivity, atol=1e-3, rtol=1e-3)
    features = 3 if system == "Lorenz" else 2
    return model, (_state(features), _t_span()), {}


def _function(name: str) -> Built:
    import torch
    from torch import nn
    from torchdyn import numerics
    from torchdyn.numerics.solvers.ode import AsynchronousLeapfrog, Euler
    from torchdyn.numerics.utils import EventCallback

    class Field(nn.Module):
        """dx/dt = MLP(x), with the call signature (t, x) that the odeint functions expect."""

        def __init__(self, features: int = DIM, outputs: int = DIM) -> None:
            super().__init__()
            self.net = _mlp(features, outputs)
            self.order = 1  # read by ``odeint_symplectic``

        def forward(self, t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

    class Integrate(nn.Module):
        """Calls one of torchdyn's odeint functions on ``Field``."""

        def __init__(self, function: Any, field: nn.Module, **static: Any) -> None:
            super().__init__()
            self.function = function
            self.field = field
            self.static = static

        def forward(self, x: torch.Tensor, t_span: torch.Tensor) -> Any:
            return self.function(self.field, x, t_span, **self.static)

        def entry_points(self) -> list[Any]:
            return [self.function]

    class BouncingBall(EventCallback):
        """The hybrid-systems tutorial's bounce: an event when the height crosses 0, velocity reversed."""

        def check_event(self, t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return (x[:, 0] <= 0).any()

        def jump_map(self, t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return torch.cat([x[:, :1].abs(), -0.8 * x[:, 1:2]], 1)

    class Ball(nn.Module):
        """Falling ball with a learnable drag."""

        def __init__(self) -> None:
            super().__init__()
            self.drag = nn.Parameter(torch.tensor(0.1))

        def forward(self, t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return torch.cat([x[:, 1:2], -9.81 - self.drag * x[:, 1:2]], 1)

    x, t_span = _state(), _t_span()
    kind, _, variant = name.partition(".")
    if kind == "odeint":
        static: dict[str, Any] = {"solver": variant.split(".")[0], "atol": 1e-3, "rtol": 1e-3}
        if variant.endswith("return_all_eval"):
            static["return_all_eval"] = True
        if variant.endswith("seminorm"):
            static["seminorm"] = (True, 1)
        if variant.endswith("solver_instance"):
            static["solver"] = Euler()
        if variant.endswith("reversed"):
            t_span = torch.linspace(1, 0, STEPS)
        return Integrate(numerics.odeint, Field(), **static), (x, t_span), {}
    if kind == "odeint_symplectic":  # positions and velocities; the field gives accelerations
        solver = AsynchronousLeapfrog()
        return Integrate(numerics.odeint_symplectic, Field(DIM, DIM), solver=solver), (_state(2 * DIM), t_span), {}
    if kind == "odeint_mshooting":
        return Integrate(numerics.odeint_mshooting, Field(), solver="mszero", fine_steps=2, maxiter=2), \
            (x, _t_span(4)), {}
    ball = Integrate(numerics.odeint_hybrid, Ball(), j_span=2, solver="dopri5", callbacks=[BouncingBall()])
    start = torch.tensor([[0.3, 0.0]]).repeat(2, 1)
    return ball, (start, torch.linspace(0, 0.6, 4)), {}


def _train_step(name: str) -> Built:
    import torch
    from torch import nn
    from torch.nn import functional as F
    from torchdyn import nn as dnn
    from torchdyn.core import NeuralODE
    from torchdyn.models import CNF, hutch_trace

    gen = torch.Generator().manual_seed(4)
    x, t_span = _state(), _t_span()

    class Step(nn.Module):
        """A tutorial's ``training_step`` up to the backward pass: the model, then its loss."""

        def __init__(self, model: nn.Module, kind: str) -> None:
            super().__init__()
            self.model = model
            self.kind = kind
            self.prior = torch.distributions.MultivariateNormal(torch.zeros(DIM), torch.eye(DIM))

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            if self.kind == "regression":
                _, trajectory = self.model(x, t_span)
                return F.mse_loss(trajectory[-1], y)
            if self.kind == "classifier":
                return F.cross_entropy(self.model(x)[-1], y)
            _, xtrJ = self.model(x)  # the CNF's state: the log-det in column 0, then the sample
            xtrJ = xtrJ[-1]
            return -torch.mean(self.prior.log_prob(xtrJ[:, 1:]) - xtrJ[:, 0])

        def entry_points(self) -> list[Any]:
            return [NeuralODE]

    if name == "train_step.dopri5":
        return Step(NeuralODE(_mlp(), solver="dopri5"), "regression"), (x, torch.randn(BATCH, DIM, generator=gen)), {}
    if name == "train_step.adjoint.rk4":
        model = NeuralODE(_mlp(), solver="rk4", sensitivity="adjoint", solver_adjoint="dopri5")
        return Step(model, "regression"), (x, torch.randn(BATCH, DIM, generator=gen)), {}
    if name == "train_step.augmented_classifier":
        model = nn.Sequential(dnn.Augmenter(augment_idx=1, augment_dims=2),
                              NeuralODE(_mlp(DIM + 2, DIM + 2), solver="dopri5", return_t_eval=False),
                              nn.Linear(DIM + 2, 2))
        return Step(model, "classifier"), (x, torch.randint(0, 2, (BATCH,), generator=gen)), {}
    noise = torch.distributions.MultivariateNormal(torch.zeros(DIM), torch.eye(DIM))
    cnf = CNF(_mlp(), trace_estimator=hutch_trace, noise_dist=noise)
    model = nn.Sequential(dnn.Augmenter(augment_idx=1, augment_dims=1),
                          NeuralODE(cnf, solver="dopri5", sensitivity="adjoint", atol=1e-4, rtol=1e-4))
    return Step(model, "likelihood"), (x, torch.zeros(BATCH)), {}


def build(name: str) -> Built:
    import contextlib
    import io
    import warnings

    import torch

    import gt_models

    gt_models.allow_torchvision_import()  # torchdyn imports pytorch_lightning, which imports torchvision
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    with contextlib.redirect_stdout(io.StringIO()):  # "we've wrapped it for you" notes on the fields
        if name in NEURAL_ODES:
            return _neural_ode(name)
        if name.startswith("layer."):
            return _layer(name.split(".", 1)[1])
        if name in SHOOTING:
            return _shooting(name)
        if name in PROBLEMS:
            return _problem(name)
        if name in TRAIN_STEPS:
            return _train_step(name)
        return _function(name)
