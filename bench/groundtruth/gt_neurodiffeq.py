"""Ground-truth bench, neurodiffeq: neural solvers of ODEs and PDEs, trained on the residuals of the equations.

neurodiffeq trains networks whose outputs, re-parameterized by a condition so that the initial or boundary
conditions hold exactly, make the residuals of a differential equation small. ``SOLVERS`` builds its solvers
on small problems at tiny sizes and compiles what a user's training runs: ``Solver1D`` (an exponential decay,
an oscillator with an initial derivative, a Dirichlet boundary value problem, three of the Dirichlet and Neumann
ends of ``DoubleEndedBVP1D``, a Lotka-Volterra system, one network under an ``EnsembleCondition``,
``NoCondition``, a ``Resnet``), its options (the named losses ``infinity``, ``h1`` and ``h1 semi``, ``l1`` set
by a callback, a ``torch.nn`` loss, a callable one, metrics, the deprecated analytic solutions, several
batches, SGD and L-BFGS, whose step takes a closure, an ``additional_loss`` and a ``_do_optimizer_step``
overridden by a subclass), ``BundleSolver1D`` (bundles over an initial value, an equation parameter, an
initial time and a boundary value), ``Solver2D`` (Laplace's equation under ``DirichletBVP2D``, the heat
equation under three ``IBVP1D`` variants, a two-output network under an ensemble of conditions),
``GenericSolver`` (a 3-D Poisson problem on a ``GeneratorND``) and ``SolverSpherical``
(``DirichletBVPSpherical``, ``InfDirichletBVPSpherical``, spherical-harmonic coefficient networks under
``DirichletBVPSphericalBasis`` with a custom enforcer, and ``InfDirichletBVPSphericalBasis`` under the
solver's own enforcement). The compiled call is one training epoch (``run_train_epoch``), a validation epoch
(``run_valid_epoch``), ``fit`` for one epoch (with callbacks: ``SetLossFn``, ``SetOptimizer``,
``ReportCallback``, ``StopCallback`` under combined condition callbacks), the solution that ``get_solution``
returns called on points, or ``get_residuals``. The solver is built (and, for its solution, fitted for one
epoch) in ``build``.

``LEGACY`` compiles the deprecated one-call functions (``ode.solve``, ``ode.solve_system``, ``pde.solve2D``,
``pde.solve2D_system``, ``pde_spherical.solve_spherical``) for one epoch, ``HYPERSOLVER`` the hypersolver's
``fit`` and its Euler solution, ``TEMPORAL`` the loss of ``neurodiffeq.temporal``'s single-network
approximators, ``CONDITIONS`` each condition's ``enforce`` on a network, ``GENERATORS`` each point sampler's
``get_examples`` (the random, noisy, log-spaced, Chebyshev and Latin-hypercube methods of ``Generator1D``,
``Generator2D``, ``Generator3D`` and ``GeneratorND``, ``GeneratorSpherical``, and the composite samplers:
concatenation, ensemble, mesh, predefined, transform, filter, resample, batch), ``NETWORKS`` the networks
(``FCNN`` with ``Tanh``, ``SinActv``, ``Swish``, ``APTx`` activations, ``Resnet``, ``MonomialNN``),
``OPERATORS`` the differential operators (``diff`` and its unsafe form, ``grad``, ``div``, ``curl``,
``laplacian``, their spherical and cylindrical forms, the coordinate changes) on a network's output, ``BASES``
the function bases and their Laplacians, and ``MONITORS`` the spherical monitors' evaluation of the solution
(``_compute_us``; the other monitors only plot). The residuals need gradients with respect to the inputs, so
the bench wrappers turn them on in eval mode too, as neurodiffeq validates with them on. Random weights and
sampled points, nothing downloaded; ``names()`` needs no torch and ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
HIDDEN, POINTS = (8, 8), 12

# problem -> the actions compiled on its solver
SOLVERS: dict[str, tuple[str, ...]] = {
    "ode.exp_decay": ("train_epoch", "valid_epoch", "fit", "fit_tqdm", "solution", "solution_last",
                      "residuals", "fit_callbacks", "fit_conditions"),
    "ode.ivp_prime": ("train_epoch", "solution"),
    "ode.dirichlet_bvp": ("train_epoch",),
    "ode.double_ended_dd": ("train_epoch",),
    "ode.double_ended_dn": ("train_epoch", "solution"),
    "ode.double_ended_nn": ("train_epoch",),
    "ode.lotka_volterra": ("train_epoch", "valid_epoch", "solution", "residuals"),
    "ode.single_net_ensemble": ("train_epoch", "solution"),
    "ode.no_condition": ("train_epoch",),
    "ode.resnet": ("train_epoch",),
    "ode.loss_infinity": ("train_epoch",),
    "ode.loss_h1": ("train_epoch",),
    "ode.loss_h1_semi": ("train_epoch",),
    "ode.loss_module": ("train_epoch",),
    "ode.loss_callable": ("train_epoch",),
    "ode.metrics": ("train_epoch", "valid_epoch"),
    "ode.analytic_solutions": ("train_epoch",),
    "ode.batches": ("train_epoch",),
    "ode.sgd": ("train_epoch",),
    "ode.lbfgs": ("train_epoch", "fit"),
    "ode.additional_loss": ("train_epoch",),
    "ode.clip_step": ("train_epoch",),
    "ode.default_generators": ("train_epoch",),
    "bundle.ivp_u0": ("train_epoch", "valid_epoch", "solution"),
    "bundle.eq_param": ("train_epoch",),
    "bundle.ivp_t0_prime": ("train_epoch",),
    "bundle.dirichlet_bvp": ("train_epoch", "solution"),
    "pde.laplace": ("train_epoch", "valid_epoch", "fit", "solution", "residuals"),
    "pde.heat_dd": ("train_epoch", "solution"),
    "pde.heat_dn": ("train_epoch",),
    "pde.heat_nn": ("train_epoch",),
    "pde.ensemble_system": ("train_epoch",),
    "generic.poisson_3d": ("train_epoch", "valid_epoch", "solution"),
    "spherical.dirichlet": ("train_epoch", "solution"),
    "spherical.inf_dirichlet": ("train_epoch",),
    "spherical.harmonics": ("train_epoch", "solution"),
    "spherical.inf_basis": ("train_epoch",),
}
LEGACY = ("ode.solve", "ode.solve_system", "pde.solve2D", "pde.solve2D_system", "pde_spherical.solve_spherical")
HYPERSOLVER = ("fit", "get_solution")
TEMPORAL = ("1d_spatial_temporal", "2d_spatial", "2d_spatial_system", "2d_spatial_temporal",
            "2d_spatial_temporal.second_order")
CONDITIONS = (
    "IVP.prime", "IVP.callable", "DirichletBVP", "NoCondition", "EnsembleCondition", "BundleIVP", "BundleIVP.t_0",
    "BundleDirichletBVP", "DirichletBVP2D", "IBVP1D.dd", "IBVP1D.dn", "IBVP1D.nn", "DoubleEndedBVP1D.dd",
    "DoubleEndedBVP1D.nn", "DirichletBVPSpherical.inner", "InfDirichletBVPSpherical", "DirichletBVPSphericalBasis",
    "InfDirichletBVPSphericalBasis",
)
GENERATORS = (
    "Generator1D.uniform", "Generator1D.equally-spaced-noisy", "Generator1D.log-spaced-noisy",
    "Generator1D.chebyshev2-noisy", "Generator1D.latin-hypercube", "Generator2D.equally-spaced-noisy",
    "Generator2D.chebyshev2", "Generator2D.latin-hypercube", "Generator3D.equally-spaced-noisy",
    "GeneratorND.noisy", "GeneratorND.log_exp", "GeneratorND.uniform_abs", "GeneratorSpherical.equally-spaced-noisy",
    "ConcatGenerator.2d", "EnsembleGenerator", "MeshGenerator", "PredefinedGenerator",
    "TransformGenerator.transforms", "FilterGenerator", "ResampleGenerator.replacement", "BatchGenerator",
)
NETWORKS = ("FCNN", "FCNN.SinActv", "FCNN.Swish_trainable", "FCNN.APTx_trainable", "FCNN.deprecated_sizes", "Resnet",
            "MonomialNN")
OPERATORS = (
    "diff", "diff.order2", "diff.unsafe", "grad", "div", "curl", "laplacian", "vector_laplacian", "spherical_grad",
    "spherical_div", "spherical_curl", "spherical_laplacian", "spherical_vector_laplacian", "cylindrical_div",
    "cylindrical_laplacian", "cartesian_to_spherical", "cylindrical_to_cartesian",
)
BASES = ("LegendreBasis", "ZonalSphericalHarmonics", "RealFourierSeries", "RealSphericalHarmonics",
         "ZonalSphericalHarmonicsLaplacian", "FourierLaplacian", "HarmonicsLaplacian")
MONITORS = ("MonitorSpherical", "MonitorSphericalHarmonics")


def names() -> list[str]:
    return ([f"solver.{p}.{a}" for p, actions in SOLVERS.items() for a in actions]
            + [f"legacy.{f}" for f in LEGACY] + [f"hypersolver.{a}" for a in HYPERSOLVER]
            + [f"temporal.{t}" for t in TEMPORAL] + [f"conditions.{c}" for c in CONDITIONS]
            + [f"generators.{g}" for g in GENERATORS] + [f"networks.{n}" for n in NETWORKS]
            + [f"operators.{o}" for o in OPERATORS] + [f"bases.{b}" for b in BASES]
            + [f"monitors.{m}" for m in MONITORS])


def _wrappers() -> tuple[type, type]:
    """``(WithGrad, Stepper)``: the bench modules, made once torch is imported."""
    import torch
    from torch import nn

    class WithGrad(nn.Module):
        """``fn(owner, *inputs)`` with gradients on and the inputs made leaves that require them (the
        coordinates a residual is differentiated by, unless ``leaves`` is off); ``entries`` are the library
        functions it enters."""

        def __init__(self, owner: Any, fn: Callable[..., Any], entries: list[Any], nets: Any = (),
                     leaves: bool = True) -> None:
            super().__init__()
            self.owner = owner
            self.fn = fn
            self.entries = entries
            self.nets = nn.ModuleList([n for n in nets if isinstance(n, nn.Module)])
            self.leaves = leaves

        def forward(self, *inputs: Any) -> Any:
            with torch.enable_grad():
                if self.leaves:
                    inputs = tuple(x.detach().clone().requires_grad_(True) for x in inputs)
                return self.fn(self.owner, *inputs)

        def entry_points(self) -> list[Any]:
            return self.entries

    class Stepper(WithGrad):
        """A solver's method (an epoch, ``fit``, the solution, the residuals) with gradients on."""

    return WithGrad, Stepper


def _fcnn(n_in: int = 1, n_out: int = 1, **keywords: Any) -> Any:
    from neurodiffeq.networks import FCNN

    return FCNN(n_input_units=n_in, n_output_units=n_out, hidden_units=HIDDEN, **keywords)


def _make_solver(problem: str) -> tuple[Any, tuple[Any, ...]]:
    """``(solver, coordinates of evaluation points)`` of one of ``SOLVERS``."""
    import torch
    from torch import nn

    from neurodiffeq import conditions as C
    from neurodiffeq import diff
    from neurodiffeq import generators as G
    from neurodiffeq.function_basis import RealSphericalHarmonics
    from neurodiffeq.networks import Resnet
    from neurodiffeq.operators import laplacian, spherical_laplacian
    from neurodiffeq.solvers import BundleSolver1D, GenericSolver, Solver1D, Solver2D, SolverSpherical

    ts = torch.linspace(0, 1, 7)

    def gens1d(lo: float = 0.0, hi: float = 1.0) -> dict[str, Any]:
        return {"train_generator": G.Generator1D(POINTS, lo, hi, method="equally-spaced-noisy"),
                "valid_generator": G.Generator1D(POINTS, lo, hi, method="equally-spaced")}

    def decay(u: torch.Tensor, t: torch.Tensor) -> list[torch.Tensor]:
        return [diff(u, t) + u]

    def oscillator(u: torch.Tensor, t: torch.Tensor) -> list[torch.Tensor]:
        return [diff(u, t, order=2) + u]

    common: dict[str, Any] = {"n_batches_valid": 1}
    if problem.startswith("ode."):
        kind = problem.split(".", 1)[1]
        conditions: list[Any] = [C.IVP(t_0=0.0, u_0=1.0)]
        equation: Callable[..., Any] = decay
        nets: list[Any] = [_fcnn()]
        keywords: dict[str, Any] = dict(common, **gens1d())
        cls: type = Solver1D
        if kind == "ivp_prime":
            conditions, equation = [C.IVP(t_0=0.0, u_0=0.0, u_0_prime=1.0)], oscillator
        elif kind == "dirichlet_bvp":
            conditions, equation = [C.DirichletBVP(t_0=0.0, u_0=0.0, t_1=1.0, u_1=1.0)], oscillator
        elif kind.startswith("double_ended_"):
            ends = {"dd": {"x_min_val": 1.0, "x_max_val": 2.0}, "dn": {"x_min_val": 1.0, "x_max_prime": 0.5},
                    "nd": {"x_min_prime": 0.5, "x_max_val": 1.0}, "nn": {"x_min_prime": 0.5, "x_max_prime": 1.0}}
            conditions = [C.DoubleEndedBVP1D(0.0, 1.0, **ends[kind.rsplit("_", 1)[1]])]
            equation = oscillator
        elif kind == "lotka_volterra":
            def lotka(r: torch.Tensor, p: torch.Tensor, t: torch.Tensor) -> list[torch.Tensor]:
                return [diff(r, t) - (2 * r - r * p), diff(p, t) - (r * p - p)]

            conditions, equation, nets = [C.IVP(0.0, 1.0), C.IVP(0.0, 0.5)], lotka, [_fcnn(), _fcnn()]
        elif kind == "single_net_ensemble":
            def pair(u: torch.Tensor, t: torch.Tensor) -> list[torch.Tensor]:
                return [diff(u[:, 0:1], t) - u[:, 1:2], diff(u[:, 1:2], t) + u[:, 0:1]]

            conditions = [C.EnsembleCondition(C.IVP(0.0, 0.0), C.IVP(0.0, 1.0))]
            equation, nets = pair, [_fcnn(1, 2)]
        elif kind == "no_condition":
            conditions = [C.NoCondition()]
        elif kind == "resnet":
            nets = [Resnet(n_input_units=1, n_output_units=1, hidden_units=HIDDEN)]
        elif kind.startswith("loss_"):
            losses: dict[str, Any] = {"loss_l1": "l1", "loss_infinity": "infinity", "loss_h1": "h1",
                                      "loss_h1_semi": "h1 semi", "loss_module": nn.SmoothL1Loss(),
                                      "loss_callable": lambda r, f, x: (r ** 2).sum() / len(r) + (f[0] ** 2).mean()}
            keywords["loss_fn"] = losses[kind]
        elif kind == "metrics":
            keywords["metrics"] = {"mse": lambda u, t: ((u - torch.exp(-t)) ** 2).mean(),
                                   "max": lambda u, t: (u - torch.exp(-t)).abs().max()}
        elif kind == "analytic_solutions":
            keywords["analytic_solutions"] = lambda t: [torch.exp(-t)]
        elif kind == "batches":
            keywords.update(n_batches_train=2, n_batches_valid=2)
        elif kind == "sgd":
            keywords["optimizer"] = torch.optim.SGD(nets[0].parameters(), lr=1e-2, momentum=0.9)
        elif kind == "lbfgs":
            keywords["optimizer"] = torch.optim.LBFGS(nets[0].parameters(), lr=0.1, max_iter=2)
        elif kind == "additional_loss":
            class PenalizedSolver1D(Solver1D):
                def additional_loss(self, residual: Any, funcs: Any, coords: Any) -> Any:
                    return 1e-2 * (funcs[0] ** 2).mean() + 1e-3 * self.global_epoch

            cls = PenalizedSolver1D
        elif kind == "clip_step":
            class ClippedSolver1D(Solver1D):
                def _do_optimizer_step(self, closure: Any = None) -> Any:
                    nn.utils.clip_grad_norm_([p for n in self.nets for p in n.parameters()], 1.0)
                    return super()._do_optimizer_step(closure=closure)

            cls = ClippedSolver1D
        elif kind == "default_generators":
            keywords = dict(common)
        solver = cls(equation, conditions, t_min=0.0, t_max=1.0, nets=nets, **keywords)
        return solver, (ts,)
    if problem.startswith("bundle."):
        kind = problem.split(".", 1)[1]
        mesh = {"train_generator": G.Generator1D(6, 0.0, 1.0, method="equally-spaced-noisy")
                ^ G.Generator1D(3, 0.5, 1.5, method="uniform"),
                "valid_generator": G.Generator1D(6, 0.0, 1.0, method="equally-spaced")
                ^ G.Generator1D(3, 0.5, 1.5, method="equally-spaced")}
        bundle: dict[str, Any] = dict(common, t_min=0.0, t_max=1.0, theta_min=0.5, theta_max=1.5,
                                      nets=[_fcnn(2)], **mesh)
        if kind == "ivp_u0":
            solver = BundleSolver1D(decay, [C.BundleIVP(t_0=0.0, bundle_param_lookup={"u_0": 0})], **bundle)
        elif kind == "eq_param":
            def rate(u: torch.Tensor, t: torch.Tensor, k: torch.Tensor) -> list[torch.Tensor]:
                return [diff(u, t) + k * u]

            solver = BundleSolver1D(rate, [C.BundleIVP(t_0=0.0, u_0=1.0)], eq_param_index=(0,), **bundle)
        elif kind == "ivp_t0_prime":
            condition = C.BundleIVP(u_0=0.0, u_0_prime=1.0, bundle_param_lookup={"t_0": 0})
            solver = BundleSolver1D(oscillator, [condition], **bundle)
        else:
            condition = C.BundleDirichletBVP(t_0=0.0, u_0=0.0, t_1=1.0, u_1=None, bundle_param_lookup={"u_1": 0})
            solver = BundleSolver1D(oscillator, [condition], **bundle)
        return solver, (ts, torch.full_like(ts, 0.8))
    xs = torch.linspace(0.1, 0.9, 6)
    ys = torch.linspace(0.2, 0.8, 6)
    if problem.startswith("pde."):
        kind = problem.split(".", 1)[1]
        grids = {"train_generator": G.Generator2D((4, 4), method="equally-spaced-noisy"),
                 "valid_generator": G.Generator2D((4, 4), method="equally-spaced")}
        if kind == "laplace":
            condition = C.DirichletBVP2D(0.0, lambda y: torch.sin(math.pi * y), 1.0, lambda y: 0 * y,
                                         0.0, lambda x: 0 * x, 1.0, lambda x: 0 * x)
            solver = Solver2D(lambda u, x, y: [laplacian(u, x, y)], [condition], nets=[_fcnn(2)],
                              **grids, **common)
        elif kind.startswith("heat_"):
            zero, one = (lambda t: 0 * t), (lambda t: 0 * t + 1)
            ends = {"dd": {"x_min_val": zero, "x_max_val": one}, "dn": {"x_min_val": zero, "x_max_prime": one},
                    "nd": {"x_min_prime": one, "x_max_val": zero}, "nn": {"x_min_prime": one, "x_max_prime": one}}
            condition = C.IBVP1D(x_min=0.0, x_max=1.0, t_min=0.0, t_min_val=lambda x: torch.sin(math.pi * x),
                                 **ends[kind.split("_")[1]])

            def heat(u: torch.Tensor, x: torch.Tensor, t: torch.Tensor) -> list[torch.Tensor]:
                return [diff(u, t) - 0.1 * diff(u, x, order=2)]

            solver = Solver2D(heat, [condition], nets=[_fcnn(2)], **grids, **common)
        else:  # a velocity-like pair from one two-output network: u under Dirichlet sides, v free
            condition = C.EnsembleCondition(
                C.DirichletBVP2D(0.0, lambda y: 0 * y, 1.0, lambda y: 0 * y, 0.0, lambda x: 0 * x, 1.0,
                                 lambda x: torch.sin(math.pi * x)),
                C.NoCondition(),
            )

            def system(uv: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:
                u, v = uv[:, 0:1], uv[:, 1:2]
                return [diff(u, x) + diff(v, y), laplacian(u, x, y) - v]

            solver = Solver2D(system, [condition], nets=[_fcnn(2, 2)], **grids, **common)
        return solver, (xs, ys)
    if problem == "generic.poisson_3d":
        train = G.GeneratorND((3, 3, 3), r_min=(0.0, 0.0, 0.0), r_max=(1.0, 1.0, 1.0),
                              methods=["equally-spaced"] * 3, noisy=True)
        solver = GenericSolver(lambda u, x, y, z: [laplacian(u, x, y, z) + 1], [C.NoCondition()], nets=[_fcnn(3)],
                               train_generator=train, valid_generator=G.Generator3D((3, 3, 3), method="chebyshev2"),
                               **common)
        return solver, (xs, ys, torch.linspace(0.3, 0.7, 6))
    rs, thetas, phis = torch.linspace(0.2, 0.9, 6), torch.linspace(0.3, 2.8, 6), torch.linspace(0.1, 6.0, 6)
    spheres = {"train_generator": G.GeneratorSpherical(POINTS, 0.1, 1.0),
               "valid_generator": G.GeneratorSpherical(POINTS, 0.1, 1.0, method="equally-radius-noisy")}
    poisson = lambda u, r, th, ph: [spherical_laplacian(u, r, th, ph) + 1]  # noqa: E731
    kind = problem.split(".", 1)[1]
    if kind == "dirichlet":
        condition = C.DirichletBVPSpherical(r_0=0.1, f=lambda th, ph: 0 * th, r_1=1.0, g=lambda th, ph: torch.sin(th))
        solver = SolverSpherical(poisson, [condition], nets=[_fcnn(3)], **spheres, **common)
    elif kind == "inf_dirichlet":
        condition = C.InfDirichletBVPSpherical(r_0=0.1, f=lambda th, ph: 0 * th, g=lambda th, ph: torch.cos(ph))
        solver = SolverSpherical(poisson, [condition], nets=[_fcnn(3)], **spheres, **common)
    elif kind == "harmonics":
        harmonics = RealSphericalHarmonics(max_degree=1)
        condition = C.DirichletBVPSphericalBasis(r_0=0.1, R_0=torch.zeros(4), r_1=1.0, R_1=torch.ones(4))

        def enforcer(net: Any, cond: Any, coords: Any) -> torch.Tensor:
            r, th, ph = coords
            return torch.sum(cond.enforce(net, r) * harmonics(th, ph), dim=1, keepdim=True)

        solver = SolverSpherical(poisson, [condition], nets=[_fcnn(1, 4)], enforcer=enforcer, **spheres, **common)
    else:  # the solver picks the condition's inputs from its parameterize signature
        condition = C.InfDirichletBVPSphericalBasis(r_0=0.1, R_0=0.0, R_inf=1.0, order=1)
        solver = SolverSpherical(lambda u, r, th, ph: [diff(u * r, r, order=2) / r + u], [condition],
                                 nets=[_fcnn(1, 1)], **spheres, **common)
    return solver, (rs, thetas, phis)


def _solver(problem: str, action: str) -> Built:
    import io

    import torch

    from neurodiffeq import callbacks as cb
    from neurodiffeq.function_basis import RealSphericalHarmonics

    _, Stepper = _wrappers()
    solver, coords = _make_solver(problem)
    cls = type(solver)
    if action == "train_epoch":
        return Stepper(solver, lambda s: s.run_train_epoch(), [cls.run_train_epoch], solver.nets), (), {}
    if action == "valid_epoch":
        return Stepper(solver, lambda s: s.run_valid_epoch(), [cls.run_valid_epoch], solver.nets), (), {}
    if action in ("fit", "fit_tqdm", "fit_callbacks", "fit_conditions"):
        callbacks: list[Any] = []
        if action == "fit_callbacks":
            callbacks = [cb.SetLossFn("l1").conditioned_on(cb.OnFirstLocal()),
                         cb.SetOptimizer(torch.optim.SGD, optimizer_kwargs={"lr": 1e-3}).conditioned_on(
                             cb.PeriodGlobal(period=2)),
                         cb.ReportCallback().conditioned_on(cb.OnLastLocal())]
        if action == "fit_conditions":
            stop = (cb.RepeatedMetricDown(at_least_by=0.0, repetition=1) | cb.ClosedIntervalLocal(min=5, max=9)) \
                & ~cb.FalseCallback() ^ cb.RepeatedMetricConverge(epsilon=1e-12, use_train=False)
            callbacks = [stop.set_action_callback(cb.StopCallback()),
                         cb.SetLossFn("h1").conditioned_on(cb.TrueCallback() & cb.PeriodLocal(period=1))]
        tqdm_file = io.StringIO() if action == "fit_tqdm" else None

        def fit(s: Any) -> Any:
            return s.fit(1, callbacks=callbacks, tqdm_file=tqdm_file)

        return Stepper(solver, fit, [cls.fit], solver.nets), (), {}
    solver.fit(1, tqdm_file=None)
    if action == "residuals":
        def residuals(s: Any, *points: Any) -> Any:
            return s.get_residuals(*points, best=True)

        return Stepper(solver, residuals, [cls.get_residuals], solver.nets), coords, {}
    if problem == "spherical.harmonics":
        solution = solver.get_solution(harmonics_fn=RealSphericalHarmonics(max_degree=1))
    else:
        solution = solver.get_solution(copy=True, best=action == "solution")
    flat = problem == "ode.single_net_ensemble"  # two outputs of one net: kept as columns

    def call(sol: Any, *points: Any) -> Any:
        return sol(*points, no_reshape=flat)

    return Stepper(solution, call, [type(solution).__call__], solution.nets), coords, {}


def _legacy(name: str) -> Built:
    import torch

    from neurodiffeq import conditions as C
    from neurodiffeq import diff, ode, pde, pde_spherical
    from neurodiffeq import generators as G
    from neurodiffeq.operators import laplacian, spherical_laplacian

    WithGrad, _ = _wrappers()
    g1 = {"train_generator": G.Generator1D(POINTS, 0.0, 1.0, method="equally-spaced-noisy"),
          "valid_generator": G.Generator1D(POINTS, 0.0, 1.0, method="equally-spaced")}
    g2 = {"train_generator": G.Generator2D((4, 4)), "valid_generator": G.Generator2D((4, 4), method="equally-spaced")}
    dirichlet = C.DirichletBVP2D(0.0, lambda y: 0 * y, 1.0, lambda y: 0 * y, 0.0, lambda x: 0 * x, 1.0,
                                 lambda x: torch.sin(math.pi * x))
    # the networks and their optimizer made here, as users pass them
    net = _fcnn({"ode.solve": 1, "ode.solve_system": 1, "pde_spherical.solve_spherical": 3}.get(name, 2),
                2 if name == "ode.solve_system" else 1)
    adam = torch.optim.Adam(net.parameters(), lr=1e-3)
    if name == "ode.solve":
        def run(_: Any) -> Any:
            return ode.solve(lambda u, t: diff(u, t) + u, C.IVP(0.0, 1.0), net=net, max_epochs=1,
                             optimizer=adam, n_batches_valid=1, **g1)

        fn: Any = ode.solve
    elif name == "ode.solve_system":
        def run(_: Any) -> Any:
            return ode.solve_system(lambda u, v, t: [diff(u, t) - v, diff(v, t) + u], [C.IVP(0.0, 0.0),
                                    C.IVP(0.0, 1.0)], 0.0, 1.0, single_net=net, max_epochs=1, optimizer=adam,
                                    n_batches_valid=1, return_internal=True, **g1)

        fn = ode.solve_system
    elif name == "pde.solve2D":
        def run(_: Any) -> Any:
            return pde.solve2D(lambda u, x, y: laplacian(u, x, y), dirichlet, xy_min=(0, 0), xy_max=(1, 1),
                               net=net, optimizer=adam, max_epochs=1, n_batches_valid=1, **g2)

        fn = pde.solve2D
    elif name == "pde.solve2D_system":
        def run(_: Any) -> Any:
            return pde.solve2D_system(lambda u, x, y: [laplacian(u, x, y)], [dirichlet], xy_min=(0, 0),
                                      xy_max=(1, 1), nets=[net], optimizer=adam, max_epochs=1, n_batches_valid=1,
                                      additional_loss_term=lambda u, x, y: (u ** 2).mean(), **g2)

        fn = pde.solve2D_system
    else:
        def run(_: Any) -> Any:
            condition = C.DirichletBVPSpherical(r_0=0.1, f=lambda th, ph: 0 * th, r_1=1.0,
                                                g=lambda th, ph: torch.sin(th))
            return pde_spherical.solve_spherical(
                lambda u, r, th, ph: spherical_laplacian(u, r, th, ph), condition, r_min=0.1, r_max=1.0,
                net=net, optimizer=adam, max_epochs=1, train_generator=G.GeneratorSpherical(POINTS, 0.1, 1.0),
                valid_generator=G.GeneratorSpherical(POINTS, 0.1, 1.0))

        fn = pde_spherical.solve_spherical
    return WithGrad(None, run, [fn], [net]), (), {}


def _hypersolver(action: str) -> Built:
    import torch

    from neurodiffeq.hypersolver import Euler, Hypersolver

    WithGrad, _ = _wrappers()
    hyper = Hypersolver(func=lambda u, t: [-u], u0=1.0, t0=0.0, tn=1.0, n_steps=8,
                        sol=lambda ts: [torch.exp(-ts)], numerical_solver=Euler(), net=_fcnn(2, 1))
    if action == "fit":
        return WithGrad(hyper, lambda h: h.fit(1), [Hypersolver.fit], [hyper.net]), (), {}

    def solve(h: Any, ts: torch.Tensor) -> Any:
        return h.get_solution()(ts)

    return WithGrad(hyper, solve, [Hypersolver.get_solution], [hyper.net]), (torch.linspace(0.05, 0.95, 5),), {}


def _temporal(kind: str) -> Built:
    import torch

    from neurodiffeq import diff
    from neurodiffeq import temporal as T

    WithGrad, _ = _wrappers()
    x, y, t = torch.linspace(0.1, 0.9, 4), torch.linspace(0.2, 0.8, 4), torch.linspace(0.0, 1.0, 3)
    if kind == "1d_spatial_temporal":
        def heat(u: torch.Tensor, xx: torch.Tensor, tt: torch.Tensor) -> torch.Tensor:
            return diff(u, tt, shape_check=False) - diff(u, xx, order=2, shape_check=False)

        bcs = [T.BoundaryCondition(lambda u, xx, tt: u, T.generator_1dspatial(1, 0.0, 0.0)),
               T.BoundaryCondition(lambda u, xx, tt: diff(u, xx, shape_check=False),
                                   T.generator_1dspatial(1, 1.0, 1.0, random=False))]
        approx: Any = T.SingleNetworkApproximator1DSpatialTemporal(
            _fcnn(2), heat, T.FirstOrderInitialCondition(lambda xx: torch.sin(math.pi * xx)), bcs)

        def loss(a: Any, xs: torch.Tensor, ts: torch.Tensor) -> Any:
            xx, tt = T._cartesian_prod_dims(xs, ts)
            metrics = {"mean": lambda u, a, b: u.mean()}
            return a.calculate_loss(xx, tt, xs, ts), a.calculate_metrics(xx, tt, xs, ts, metrics)

        return WithGrad(approx, loss, [type(approx).calculate_loss], [approx.single_network], False), (x, t), {}
    if kind in ("2d_spatial", "2d_spatial_system"):
        gen = T.generator_2dspatial_segment(4, (0.0, 0.0), (1.0, 0.0))
        rect = T.generator_2dspatial_rectangle((3, 3), 0.0, 1.0, 0.0, 1.0, random=False)
        if kind == "2d_spatial":
            def laplace(u: torch.Tensor, xx: torch.Tensor, yy: torch.Tensor) -> torch.Tensor:
                return diff(u, xx, order=2, shape_check=False) + diff(u, yy, order=2, shape_check=False)

            bcs = [T.BoundaryCondition(lambda u, xx, yy: u, gen), T.BoundaryCondition(lambda u, xx, yy: u - 1, rect)]
            approx = T.SingleNetworkApproximator2DSpatial(_fcnn(2), laplace, bcs, boundary_strictness=2.0)
        else:
            def stokes(u: torch.Tensor, v: torch.Tensor, xx: torch.Tensor, yy: torch.Tensor) -> list[torch.Tensor]:
                return [diff(u, xx, shape_check=False) + diff(v, yy, shape_check=False), u - v]

            bcs = [T.BoundaryCondition(lambda u, v, xx, yy: u, gen)]
            approx = T.SingleNetworkApproximator2DSpatialSystem(_fcnn(2, 2), stokes, bcs)

        def loss2(a: Any, xs: torch.Tensor, ys: torch.Tensor) -> Any:
            xy = torch.cartesian_prod(xs, ys)
            xx, yy = xy[:, 0].clone().requires_grad_(True), xy[:, 1].clone().requires_grad_(True)
            return a.calculate_loss(xx, yy), a.calculate_metrics(xx, yy, {"n": lambda *args: args[0].mean()})

        return WithGrad(approx, loss2, [type(approx).calculate_loss], [approx.single_network], False), (x, y), {}
    second = kind.endswith("second_order")

    def wave(u: torch.Tensor, xx: torch.Tensor, yy: torch.Tensor, tt: torch.Tensor) -> torch.Tensor:
        return diff(u, tt, order=2 if second else 1, shape_check=False) - diff(u, xx, order=2, shape_check=False)

    initial: Any = T.SecondOrderInitialCondition(lambda xx, yy: xx * yy, lambda xx, yy: 0 * xx) if second \
        else T.FirstOrderInitialCondition(lambda xx, yy: torch.sin(xx) * yy)
    bcs = [T.BoundaryCondition(lambda u, xx, yy, tt: u, T.generator_2dspatial_segment(3, (0.0, 0.0), (0.0, 1.0)))]
    approx = T.SingleNetworkApproximator2DSpatialTemporal(_fcnn(3), wave, initial, bcs)

    def loss3(a: Any, xs: torch.Tensor, ys: torch.Tensor, ts: torch.Tensor) -> Any:
        xx, tt = T._cartesian_prod_dims(xs, ts)
        yy, _ = T._cartesian_prod_dims(ys, ts)
        return a.calculate_loss(xx, yy, tt, xs, ys, ts)

    return WithGrad(approx, loss3, [type(approx).calculate_loss], [approx.single_network], False), (x, y, t), {}


def _condition(name: str) -> Built:
    import torch

    from neurodiffeq import conditions as C

    WithGrad, _ = _wrappers()
    t = torch.linspace(0.05, 0.95, POINTS).reshape(-1, 1)
    theta = torch.linspace(0.5, 1.5, POINTS).reshape(-1, 1)
    zero, one = (lambda s: 0 * s), (lambda s: 0 * s + 1)
    spherical = (t + 0.1, torch.linspace(0.2, 3.0, POINTS).reshape(-1, 1),
                 torch.linspace(0.1, 6.0, POINTS).reshape(-1, 1))
    table: dict[str, tuple[Any, int, int, tuple[Any, ...]]] = {
        "IVP": (C.IVP(0.0, 1.0), 1, 1, (t,)),
        "IVP.prime": (C.IVP(0.0, 1.0, 0.5), 1, 1, (t,)),
        "IVP.callable": (C.IVP(0.0, lambda s: torch.sin(s), lambda s: torch.cos(s)), 2, 1, (t, theta)),
        "DirichletBVP": (C.DirichletBVP(0.0, 0.0, 1.0, 1.0), 1, 1, (t,)),
        "NoCondition": (C.NoCondition(), 2, 3, (t, theta)),
        "EnsembleCondition": (C.EnsembleCondition(C.IVP(0.0, 1.0), C.NoCondition(),
                                                  C.DirichletBVP(0.0, 0.0, 1.0, 1.0)), 1, 3, (t,)),
        "BundleIVP": (C.BundleIVP(t_0=0.0, u_0_prime=1.0, bundle_param_lookup={"u_0": 0}), 2, 1, (t, theta)),
        "BundleIVP.t_0": (C.BundleIVP(u_0=1.0, bundle_param_lookup={"t_0": 0}), 2, 1, (t, theta - 0.5)),
        "BundleDirichletBVP": (C.BundleDirichletBVP(0.0, 0.0, None, 1.0, bundle_param_lookup={"t_1": 0}), 2, 1,
                               (t, theta + 1.0)),
        "DirichletBVP2D": (C.DirichletBVP2D(0.0, zero, 1.0, torch.sin, 0.0, zero, 1.0, one), 2, 1, (t, theta - 0.5)),
        "IBVP1D.dd": (C.IBVP1D(0.0, 1.0, 0.0, torch.sin, x_min_val=zero, x_max_val=one), 2, 1, (t, theta)),
        "IBVP1D.dn": (C.IBVP1D(0.0, 1.0, 0.0, torch.sin, x_min_val=zero, x_max_prime=one), 2, 1, (t, theta)),
        "IBVP1D.nd": (C.IBVP1D(0.0, 1.0, 0.0, torch.sin, x_min_prime=one, x_max_val=zero), 2, 1, (t, theta)),
        "IBVP1D.nn": (C.IBVP1D(0.0, 1.0, 0.0, torch.sin, x_min_prime=one, x_max_prime=one), 2, 1, (t, theta)),
        "DoubleEndedBVP1D.dd": (C.DoubleEndedBVP1D(0.0, 1.0, x_min_val=1.0, x_max_val=2.0), 1, 1, (t,)),
        "DoubleEndedBVP1D.dn": (C.DoubleEndedBVP1D(0.0, 1.0, x_min_val=1.0, x_max_prime=2.0), 1, 1, (t,)),
        "DoubleEndedBVP1D.nd": (C.DoubleEndedBVP1D(0.0, 1.0, x_min_prime=1.0, x_max_val=2.0), 1, 1, (t,)),
        "DoubleEndedBVP1D.nn": (C.DoubleEndedBVP1D(0.0, 1.0, x_min_prime=1.0, x_max_prime=2.0), 1, 1, (t,)),
        "DirichletBVPSpherical": (C.DirichletBVPSpherical(0.1, lambda th, ph: 0 * th, 1.1,
                                                          lambda th, ph: torch.sin(th) * torch.cos(ph)), 3, 1,
                                  spherical),
        "DirichletBVPSpherical.inner": (C.DirichletBVPSpherical(0.0, lambda th, ph: torch.cos(th)), 3, 1, spherical),
        "InfDirichletBVPSpherical": (C.InfDirichletBVPSpherical(0.1, lambda th, ph: 0 * th,
                                                                lambda th, ph: torch.sin(ph), order=2), 3, 1,
                                     spherical),
        "DirichletBVPSphericalBasis": (C.DirichletBVPSphericalBasis(0.1, torch.zeros(4), 1.1, torch.ones(4)), 1, 4,
                                       (t + 0.1,)),
        "DirichletBVPSphericalBasis.inner": (C.DirichletBVPSphericalBasis(0.0, torch.ones(4)), 1, 4, (t,)),
        "InfDirichletBVPSphericalBasis": (C.InfDirichletBVPSphericalBasis(0.1, torch.zeros(4), torch.ones(4)), 1, 4,
                                          (t + 0.1,)),
    }
    condition, n_in, n_out, coords = table[name]

    def enforce(net: Any, *xs: Any) -> Any:
        return condition.enforce(net, *xs)

    net = _fcnn(n_in, n_out)
    return WithGrad(net, enforce, [type(condition).enforce], [net]), coords, {}


def _generator(name: str) -> Built:
    import torch

    from neurodiffeq import generators as G

    WithGrad, _ = _wrappers()
    kind, _, variant = name.partition(".")
    gen: Any
    if kind == "Generator1D":
        lo = 0.1 if variant.startswith("log") else 0.0
        gen = G.Generator1D(POINTS, lo, 1.0, method=variant)
    elif kind == "Generator2D":
        gen = G.Generator2D((4, 3), (0.0, -1.0), (1.0, 1.0), method=variant)
    elif kind == "Generator3D":
        gen = G.Generator3D((3, 3, 2), method=variant)
    elif kind == "GeneratorND":
        if variant == "noisy":
            gen = G.GeneratorND((3, 4), (0.0, 0.0), (1.0, 2.0), methods=["equally-spaced", "chebyshev2"])
        elif variant == "log_exp":
            gen = G.GeneratorND((3, 3, 2), (0.1, 0.0, 0.0), (1.0, 1.0, 1.0),
                                methods=["log-spaced", "exp-spaced", "chebyshev1"], noisy=False,
                                cut=((None, None), (0, 3), (None, None)), base=(10, 2, 10))
        else:
            gen = G.GeneratorND(5, -1.0, 1.0, methods="uniform", abs_value=True, r_noise_std=0.1)
    elif kind == "GeneratorSpherical":
        gen = G.GeneratorSpherical(POINTS, 0.1, 1.0, method=variant)
    else:
        base = G.Generator1D(POINTS, 0.0, 1.0, method="equally-spaced-noisy")
        plane = G.Generator2D((3, 4), method="equally-spaced-noisy")
        if name == "ConcatGenerator":
            gen = base + G.Generator1D(4, 1.0, 2.0, method="uniform")
        elif name == "ConcatGenerator.2d":
            gen = plane + G.Generator2D((2, 2), (1.0, 1.0), (2.0, 2.0), method="equally-spaced")
        elif name == "EnsembleGenerator":
            gen = base * G.Generator1D(POINTS, 0.0, 2.0, method="uniform") * plane
        elif name == "MeshGenerator":
            gen = (G.Generator1D(3, method="uniform") ^ G.Generator1D(4, method="chebyshev2")) \
                ^ G.Generator1D(2, method="equally-spaced")
        elif name == "StaticGenerator":
            gen = G.StaticGenerator(plane)
        elif name == "PredefinedGenerator":
            gen = G.PredefinedGenerator([0.1, 0.2, 0.3, 0.4], torch.tensor([1.0, 2.0, 3.0, 4.0]))
        elif name == "TransformGenerator.transforms":
            gen = G.TransformGenerator(plane, transforms=[None, torch.exp])
        elif name == "TransformGenerator.transform":
            gen = G.TransformGenerator(plane, transform=lambda x, y: (x + y, x - y))
        elif name == "FilterGenerator":
            gen = G.FilterGenerator(plane, filter_fn=lambda xs: (xs[0] ** 2 + xs[1] ** 2) < 1.0)
        elif name == "ResampleGenerator":
            gen = G.ResampleGenerator(plane, size=6)
        elif name == "ResampleGenerator.replacement":
            gen = G.ResampleGenerator(base, size=20, replacement=True)
        elif name == "BatchGenerator":
            gen = G.BatchGenerator(base, batch_size=5)
        else:
            gen = G.SamplerGenerator(plane)
    return WithGrad(gen, lambda g: g.get_examples(), [type(gen).get_examples]), (), {}


def _network(name: str) -> Built:
    import torch

    from neurodiffeq import networks as N

    x = torch.rand(POINTS, 2, generator=torch.Generator().manual_seed(1))
    kind, _, actv = name.partition(".")
    if kind == "Resnet":
        return N.Resnet(2, 3, hidden_units=HIDDEN, actv=N.SinActv), (x,), {}
    if kind == "MonomialNN":
        return N.MonomialNN([1, 2, 4]), (x,), {}
    if actv == "deprecated_sizes":
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return N.FCNN(2, 2, n_hidden_units=8, n_hidden_layers=2), (x,), {}
    activations: dict[str, Any] = {
        "": torch.nn.Tanh, "SinActv": N.SinActv, "Swish": N.Swish, "Swish_trainable": lambda: N.Swish(0.5, True),
        "APTx": N.APTx, "APTx_trainable": lambda: N.APTx(1.0, 0.5, 0.5, trainable=True),
    }
    return N.FCNN(2, 2, hidden_units=HIDDEN, actv=activations[actv]), (x,), {}


def _operator(name: str) -> Built:
    import torch

    from neurodiffeq import neurodiffeq as core
    from neurodiffeq import operators as O

    WithGrad, _ = _wrappers()
    gen = torch.Generator().manual_seed(2)
    coords = tuple(torch.rand(POINTS, 1, generator=gen) + 0.2 for _ in range(3))
    if name.startswith("diff"):
        net = _fcnn(1, 1)

        def d(n: Any, t: Any) -> Any:
            u = n(t)
            if name == "diff":
                return core.diff(u, t)
            if name == "diff.order2":
                return core.diff(u, t, order=2)
            if name == "diff.unsafe":
                return core.unsafe_diff(u.reshape(-1), t, order=2)
            return core.diff(u, t, shape_check=False)

        entry = {"diff": core.diff, "diff.order2": core.diff, "diff.unsafe": core.unsafe_diff,
                 "diff.no_shape_check": core.diff}[name]
        return WithGrad(net, d, [entry], [net]), coords[:1], {}
    function = getattr(O, name)
    if name in ("grad", "laplacian") or name.endswith(("_grad", "_laplacian")) and "vector" not in name:
        net = _fcnn(3, 1)

        def scalar(n: Any, *xs: Any) -> Any:
            return function(n(torch.cat(xs, 1)), *xs)

        return WithGrad(net, scalar, [function], [net]), coords, {}
    if name.endswith("_to_cartesian") or name.startswith("cartesian_to"):
        return WithGrad(None, lambda _, *xs: function(*xs), [function]), coords, {}
    net = _fcnn(3, 3)

    def vector(n: Any, *xs: Any) -> Any:
        u = n(torch.cat(xs, 1))
        return function(u[:, 0:1], u[:, 1:2], u[:, 2:3], *xs)

    return WithGrad(net, vector, [function], [net]), coords, {}


def _basis(name: str) -> Built:
    import torch

    from neurodiffeq import function_basis as F

    WithGrad, _ = _wrappers()
    gen = torch.Generator().manual_seed(3)
    r = torch.rand(POINTS, 1, generator=gen) + 0.5
    theta, phi = torch.rand(POINTS, 1, generator=gen) * math.pi, torch.rand(POINTS, 1, generator=gen) * 2 * math.pi
    if name == "LegendreBasis":
        basis: Any = F.LegendreBasis(max_degree=3)
        return WithGrad(basis, lambda b, x: b(x), [type(basis)]), (r - 1,), {}
    if name == "ZonalSphericalHarmonics":
        basis = F.ZonalSphericalHarmonics(max_degree=3)
        return WithGrad(basis, lambda b, th, ph: b(th, ph), [type(basis)]), (theta, phi), {}
    if name == "RealFourierSeries":
        basis = F.RealFourierSeries(max_degree=3)
        return WithGrad(basis, lambda b, ph: b(ph), [type(basis)]), (phi,), {}
    if name == "RealSphericalHarmonics":
        basis = F.RealSphericalHarmonics(max_degree=4)
        return WithGrad(basis, lambda b, th, ph: b(th, ph), [type(basis)]), (theta, phi), {}
    if name == "FourierLaplacian":
        operator: Any = F.FourierLaplacian(max_degree=2)
        net = _fcnn(1, 5)
        return (WithGrad(net, lambda n, rr, ph: operator(n(rr), rr, ph), [type(operator)], [net]), (r, phi), {})
    if name == "ZonalSphericalHarmonicsLaplacian":
        operator = F.ZonalSphericalHarmonicsLaplacian(degrees=[0, 1, 3])
        net = _fcnn(1, 3)
    else:
        operator = F.HarmonicsLaplacian(max_degree=2)
        net = _fcnn(1, 9)
    return (WithGrad(net, lambda n, rr, th, ph: operator(n(rr).to(rr.dtype), rr, th, ph), [type(operator)], [net]),
            (r, theta, phi), {})


def _monitor(name: str) -> Built:
    import matplotlib
    import torch

    matplotlib.use("Agg")
    from neurodiffeq import conditions as C
    from neurodiffeq import monitors as M
    from neurodiffeq.function_basis import RealSphericalHarmonics

    WithGrad, _ = _wrappers()
    if name == "MonitorSpherical":
        monitor: Any = M.MonitorSpherical(0.1, 1.0, shape=(3, 3, 3))
        nets = [_fcnn(3), _fcnn(3)]
        conditions: list[Any] = [C.NoCondition(), C.DirichletBVPSpherical(0.1, lambda th, ph: 0 * th)]
    else:
        monitor = M.MonitorSphericalHarmonics(0.1, 1.0, shape=(3, 3, 3), r_scale="log",
                                              harmonics_fn=RealSphericalHarmonics(max_degree=1))
        nets = [_fcnn(1, 4)]
        conditions = [C.DirichletBVPSphericalBasis(0.1, torch.zeros(4), 1.0, torch.ones(4))]
    return (WithGrad(monitor, lambda m: m._compute_us(nets, conditions), [type(monitor)._compute_us], nets), (), {})


def build(name: str) -> Built:
    import warnings

    import torch

    import neurodiffeq  # noqa: F401  (sets float64 as the default type, as users get it)

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    family, _, rest = name.partition(".")
    if family == "solver":
        problem, _, action = rest.rpartition(".")
        return _solver(problem, action)
    if family == "legacy":
        return _legacy(rest)
    if family == "hypersolver":
        return _hypersolver(rest)
    if family == "temporal":
        return _temporal(rest)
    if family == "conditions":
        return _condition(rest)
    if family == "generators":
        return _generator(rest)
    if family == "networks":
        return _network(rest)
    if family == "operators":
        return _operator(rest)
    if family == "bases":
        return _basis(rest)
    if family == "monitors":
        return _monitor(rest)
    raise KeyError(name)
