"""Ground-truth bench, torchmin (pytorch-minimize): unconstrained, bounded and least-squares minimization in PyTorch.

pytorch-minimize solves small optimization problems with autograd derivatives. ``minimize`` dispatches to
one routine per method (BFGS and L-BFGS, nonlinear conjugate gradient, Newton with CG or with the exact
Hessian, the trust-region methods dogleg, Newton-CG (Steihaug), Krylov (GLTR) and nearly exact), each with
a strong-Wolfe line search or none; ``minimize_constr`` runs L-BFGS-B, Frank-Wolfe (trace-norm ball,
Birkhoff polytope) and SciPy's trust-constr; ``least_squares`` is a port of SciPy's trust-region
reflective solver (tr solvers ``exact``, ``lsmr``, ``cgls``); ``Minimizer`` and ``ScipyMinimizer`` are
``torch.optim`` optimizers whose ``step(closure)`` runs a whole minimization over a model's parameters.
Users compile the call that runs the solver, so each model of the tables is one of:

- ``MINIMIZE``: ``torchmin.minimize`` on a 4-variable Rosenbrock function or a convex quartic (methods
  that need a positive-definite Hessian) for each method, with the options that change its code path
  (line search ``strong-wolfe`` / ``none``, the Hessian instead of its inverse for BFGS, L-BFGS's history,
  twice-differentiability for Newton-CG, Newton-exact's handling of a non-positive-definite Hessian and its
  Tikhonov term, trust-region radii, ``tol``, ``callback`` and ``return_all``, a 2-D ``x0``);
- ``CONSTR``: ``minimize_constr`` with L-BFGS-B (tensor, float and ``scipy.optimize.Bounds`` bounds, the
  default method), Frank-Wolfe on both constraint sets and trust-constr (a SciPy call, with bounds and a
  nonlinear constraint);
- ``LSTSQ``: ``least_squares`` (trust-region reflective, unbounded) with each trust-region solver, a
  scaled problem and the ``lsmr`` regularisation switched off, and the ``lstsq`` helpers: ``lsmr`` on a
  matrix and on an autograd Jacobian operator, ``cg`` and ``cgls``, ``jacobian_dense``,
  ``jacobian_linop`` with its products and ``TorchLinearOperator.matmat``, and the functions of
  ``lstsq.common`` (the 1-D and 2-D trust-region pieces, a right-multiplied operator, bounds handling);
- ``OPTIM``: a train step of ``Minimizer`` on a tiny linear regression for each method family (plain
  gradient, Hessian-vector products, explicit Hessian; line search or trust region) and
  ``ScipyMinimizer.step`` (BFGS, bounded L-BFGS-B);
- ``LOW``: the building blocks: ``line_search.strong_wolfe`` (PyTorch's and the extra-condition variant),
  ``backtracking`` and ``brent``; ``ScalarFunction.closure`` (Hessian-vector operator, Hessian) and
  ``dir_evaluate``; ``VectorFunction.closure`` (Jacobian operator, Jacobian); the trust-region
  subproblems (dogleg, CG-Steihaug, iterative exact) solved for one radius, Krylov's tridiagonal GLTR step
  and the exact solver's helpers; the BFGS / L-BFGS / L-BFGS-B Hessian updates; Newton's inner CG; the
  Rosenbrock Hessian and Hessian-vector product of ``benchmarks``.

Every problem is tiny (4 variables, at most 3 iterations) so each model compiles in seconds. Random data,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
ITERS = 3

# ``minimize`` model name -> (method, objective: "rosen" or "quartic", keywords of ``minimize``; "callback"
# stands for a callback collecting the iterates, "x0_2d" for a 2 x 2 starting point).
MINIMIZE: dict[str, tuple[str, str, dict[str, Any]]] = {
    "minimize.bfgs": ("bfgs", "rosen", {}),
    "minimize.bfgs.no_line_search": ("bfgs", "rosen", {"options": {"line_search": "none", "lr": 0.05}}),
    "minimize.bfgs.hessian": ("bfgs", "rosen", {"options": {"inv_hess": False}}),
    "minimize.bfgs.return_all.callback": ("bfgs", "rosen", {"return_all": True, "callback": "callback"}),
    "minimize.bfgs.x0_2d": ("bfgs", "quartic", {"x0_2d": True}),
    "minimize.l-bfgs": ("l-bfgs", "rosen", {}),
    "minimize.l-bfgs.no_line_search": ("l-bfgs", "rosen", {"options": {"line_search": "none", "lr": 0.05}}),
    "minimize.l-bfgs.history": ("l-bfgs", "rosen", {"options": {"history_size": 2}, "tol": 1e-6}),
    "minimize.cg": ("cg", "rosen", {}),
    "minimize.cg.return_all.tol": ("cg", "rosen", {"return_all": True, "tol": 1e-6, "callback": "callback"}),
    "minimize.newton-cg": ("newton-cg", "rosen", {}),
    "minimize.newton-cg.no_line_search": ("newton-cg", "quartic", {"options": {"line_search": "none"}}),
    "minimize.newton-cg.not_twice_diffable": ("newton-cg", "rosen", {"options": {"twice_diffable": False,
                                                                                 "cg_max_iter": 4}}),
    "minimize.newton-cg.return_all": ("newton-cg", "quartic", {"return_all": True, "callback": "callback"}),
    "minimize.newton-exact": ("newton-exact", "rosen", {}),
    "minimize.newton-exact.no_line_search": ("newton-exact", "quartic", {"options": {"line_search": "none"}}),
    "minimize.newton-exact.lu": ("newton-exact", "rosen", {"options": {"handle_npd": "lu"}}),
    "minimize.newton-exact.cauchy": ("newton-exact", "rosen", {"options": {"handle_npd": "cauchy"}}),
    "minimize.newton-exact.eig": ("newton-exact", "rosen", {"options": {"handle_npd": "eig"}}),
    "minimize.newton-exact.tikhonov": ("newton-exact", "quartic", {"options": {"tikhonov": 0.1},
                                                                   "return_all": True, "callback": "callback"}),
    "minimize.dogleg": ("dogleg", "quartic", {}),
    "minimize.dogleg.radius": ("dogleg", "quartic", {"options": {"initial_trust_radius": 0.1,
                                                                 "max_trust_radius": 1.0}}),
    "minimize.trust-ncg": ("trust-ncg", "rosen", {}),
    "minimize.trust-ncg.return_all": ("trust-ncg", "rosen", {"return_all": True, "callback": "callback",
                                                             "tol": 1e-6}),
    "minimize.trust-krylov": ("trust-krylov", "rosen", {}),
    "minimize.trust-exact": ("trust-exact", "rosen", {}),
    "minimize.trust-exact.quartic": ("trust-exact", "quartic", {"options": {"initial_trust_radius": 0.5}}),
}
# ``minimize_constr`` model name -> (objective, keywords; bounds "tensor" / "float" / "scipy", constraint
# "nonlinear" stands for a constraint on the squared norm).
CONSTR: dict[str, tuple[str, dict[str, Any]]] = {
    "minimize_constr.l-bfgs-b": ("rosen", {"method": "l-bfgs-b", "bounds": "tensor"}),
    "minimize_constr.l-bfgs-b.float_bounds": ("rosen", {"method": "l-bfgs-b", "bounds": "float", "tol": 1e-6}),
    "minimize_constr.l-bfgs-b.scipy_bounds": ("rosen", {"method": "l-bfgs-b", "bounds": "scipy"}),
    "minimize_constr.default": ("quartic", {"bounds": "tensor", "options": {"history_size": 2}}),
    "minimize_constr.frank-wolfe.tracenorm": ("matrix", {"constr": "tracenorm", "options": {"t": 2.0}}),
    "minimize_constr.frank-wolfe.birkhoff": ("matrix", {"method": "frank-wolfe", "constr": "birkhoff"}),
    "minimize_constr.trust-constr": ("rosen", {"method": "trust-constr", "constr": "nonlinear"}),
    "minimize_constr.trust-constr.bounds": ("quartic", {"method": "trust-constr", "bounds": "tensor"}),
}
# ``least_squares`` model name -> keywords (all unbounded: the bounded reflective solver is not implemented).
LEAST_SQUARES: dict[str, dict[str, Any]] = {
    "least_squares.lsmr": {},
    "least_squares.exact": {"tr_solver": "exact"},
    "least_squares.cgls": {"tr_solver": "cgls"},
    "least_squares.lsmr.no_regularize": {"tr_options": {"regularize": False}, "x_scale": "tensor"},
}
LSTSQ_PARTS = (
    "lsmr.matrix", "lsmr.jacobian_linop", "cg", "cgls", "jacobian_dense", "jacobian_linop",
    "TorchLinearOperator.matmat", "common.solve_lsq_trust_region",
    "common.build_quadratic_1d", "common.minimize_quadratic_1d", "common.evaluate_quadratic",
    "common.solve_trust_region_2d",
    "common.make_strictly_feasible", "common.right_multiplied_operator",
)
# ``Minimizer`` train step name -> (method, extra keywords), and ``ScipyMinimizer`` steps.
OPTIM: dict[str, tuple[str, dict[str, Any]]] = {
    "Minimizer.bfgs": ("bfgs", {}),
    "Minimizer.newton-cg": ("newton-cg", {}),
    "Minimizer.trust-ncg": ("trust-ncg", {}),
    "Minimizer.newton-exact": ("newton-exact", {}),
    "Minimizer.dogleg": ("dogleg", {}),
    "ScipyMinimizer.bfgs": ("bfgs", {}),
    "ScipyMinimizer.l-bfgs-b.bounds": ("l-bfgs-b", {"bounds": [(-1.0, 1.0), None]}),
}
LOW = (
    "strong_wolfe", "strong_wolfe.extra_condition", "backtracking", "brent",
    "ScalarFunction.closure.hessp", "ScalarFunction.closure.hess",
    "ScalarFunction.dir_evaluate", "VectorFunction.closure.jacp", "VectorFunction.closure.jac",
    "DoglegSubproblem.solve", "CGSteihaugSubproblem.solve", "KrylovSubproblem.tridiag_subproblem",
    "IterativeSubproblem.solve",
    "exact.estimate_smallest_singular_value", "exact.gershgorin_bounds", "exact.singular_leading_submatrix",
    "BFGS.update_solve", "L_BFGS.update_solve", "L_BFGS_B.solve", "newton._cg_iters",
    "benchmarks.rosen_hess", "benchmarks.rosen_hess_prod",
)


def names() -> list[str]:
    return list(MINIMIZE) + list(CONSTR) + list(LEAST_SQUARES) + list(LSTSQ_PARTS) + list(OPTIM) + list(LOW)


def _quartic(x: Any) -> Any:
    """A strictly convex objective (positive-definite Hessian everywhere): a quadratic plus a quartic term."""
    scale = x.new_tensor([1.0, 2.0, 3.0, 4.0])[: x.shape[-1]]
    return (scale * (x - 0.5) ** 2).sum() + 0.1 * (x ** 4).sum()


def _objective(kind: str) -> Callable[[Any], Any]:
    from torchmin.benchmarks import rosen

    return {"rosen": rosen, "quartic": _quartic, "matrix": _matrix_objective}[kind]


def _matrix_objective(x: Any) -> Any:
    import torch

    target = torch.linspace(-1.0, 1.0, x.numel(), dtype=x.dtype).view_as(x)
    return (x - target).square().sum()


def _x0(kind: str, two_d: bool = False) -> Any:
    import torch

    if kind == "matrix":
        return torch.full((3, 3), 1.0 / 3.0)
    x0 = torch.tensor([-1.2, 1.0, 0.8, 1.5])
    return x0.view(2, 2) if two_d else x0


def _run(owner: Any, run: Callable[..., Any], entries: list[Any]) -> Any:
    """A bench module holding ``owner`` whose forward is ``run(owner, *inputs)`` (``gt_calls.Run``)."""
    from gt_calls import Run

    return Run(owner, run, entries)


def _minimize(name: str) -> Built:
    import torchmin

    from gt_calls import Call

    method, objective, keywords = MINIMIZE[name]
    keywords = dict(keywords)
    two_d = keywords.pop("x0_2d", False)
    if keywords.get("callback") == "callback":
        seen: list[Any] = []
        keywords["callback"] = seen.append
    keywords.setdefault("max_iter", ITERS)
    return Call(torchmin.minimize, method=method, **keywords), (_objective(objective), _x0(objective, two_d)), {}


def _constr(name: str) -> Built:
    import torch
    import torchmin

    from gt_calls import Call

    objective, keywords = CONSTR[name]
    keywords = dict(keywords)
    bounds = keywords.pop("bounds", None)
    if bounds == "tensor":
        keywords["bounds"] = (torch.full((4,), -1.0), torch.tensor([1.0, 1.0, 0.5, 2.0]))
    elif bounds == "float":
        keywords["bounds"] = (-1.0, 1.0)
    elif bounds == "scipy":
        from scipy.optimize import Bounds

        keywords["bounds"] = Bounds(-1.5, 1.5)
    if keywords.get("constr") == "nonlinear":
        keywords["constr"] = {"fun": lambda x: x.square().sum(), "ub": 4.0}
    keywords.setdefault("max_iter", ITERS)
    return Call(torchmin.minimize_constr, **keywords), (_objective(objective), _x0(objective)), {}


def _residuals(x: Any) -> Any:
    """Residuals of an exponential-decay fit at six points (a small nonlinear least-squares problem)."""
    import torch

    t = torch.linspace(0.0, 1.0, 6, dtype=x.dtype)
    y = 2.0 * torch.exp(-1.5 * t) + 0.3
    return x[0] * torch.exp(-x[1] * t) + x[2] - y + 0.01 * x[3] * t


def _least_squares(name: str) -> Built:
    import torch
    from torchmin import least_squares

    from gt_calls import Call

    keywords = dict(LEAST_SQUARES[name])
    if keywords.get("x_scale") == "tensor":
        keywords["x_scale"] = torch.tensor([1.0, 2.0, 1.0, 0.5])
    return Call(least_squares, max_nfev=ITERS, **keywords), (_residuals, torch.tensor([1.0, 1.0, 0.0, 0.0])), {}


def _lstsq_part(name: str) -> Built:
    import torch
    from torchmin.lstsq import cg as lcg
    from torchmin.lstsq import common, linear_operator, lsmr

    from gt_calls import Call

    gen = torch.Generator().manual_seed(5)
    a = torch.randn(6, 4, generator=gen)
    b = torch.randn(6, generator=gen)
    x = torch.tensor([1.0, 1.0, 0.0, 0.0])
    spd = a.T @ a + 0.5 * torch.eye(4)
    if name == "lsmr.matrix":
        return Call(lsmr.lsmr, maxiter=4), (a, b), {}
    if name == "lsmr.damp":
        return Call(lsmr.lsmr, damp=0.1, maxiter=4, atol=1e-3, btol=1e-3), (a, b), {}
    if name == "lsmr.jacobian_linop":
        def solve_linop(owner: Any, x_: Any) -> Any:
            jac, f = linear_operator.jacobian_linop(_residuals, x_, return_f=True)
            return lsmr.lsmr(jac, -f, maxiter=4)

        return _run(None, solve_linop, [linear_operator.jacobian_linop, lsmr.lsmr]), (x,), {}
    if name == "cg":
        return Call(lcg.cg, max_iter=12), (linear_operator.aslinearoperator(spd), a.T @ b), {}
    if name == "cgls":
        return Call(lcg.cgls, alpha=0.1, max_iter=12), (a, b), {}
    if name == "jacobian_dense":
        return Call(linear_operator.jacobian_dense), (_residuals, x), {}
    if name in ("jacobian_linop", "TorchLinearOperator.matmat", "TorchLinearOperator.transpose"):
        def products(owner: Any, x_: Any, v: Any, u: Any) -> Any:
            jac = linear_operator.jacobian_linop(_residuals, x_)
            if name == "jacobian_linop":
                return jac.mv(v), jac.rmv(u)
            if name == "TorchLinearOperator.matmat":
                return jac.matmat(torch.eye(4))
            return jac.T.mv(u), jac.t().rmv(v)

        entries = [linear_operator.jacobian_linop, linear_operator.TorchLinearOperator]
        return _run(None, products, entries), (x, torch.ones(4), torch.ones(6)), {}
    if name == "common.solve_lsq_trust_region":
        u, s, vt = torch.linalg.svd(a, full_matrices=False)
        return Call(common.solve_lsq_trust_region), (4, 6, u.T @ b, s, vt.T, torch.tensor(0.5)), {}
    if name == "common.build_quadratic_1d":
        jac = linear_operator.aslinearoperator(a)
        return Call(common.build_quadratic_1d), (jac, b[:4], x, torch.ones(4), x * 0.5), {}
    if name == "common.minimize_quadratic_1d":
        return Call(common.minimize_quadratic_1d), (torch.tensor(2.0), torch.tensor(-1.0), -1.0, 2.0), {}
    if name == "common.evaluate_quadratic":
        jac = linear_operator.aslinearoperator(a)
        return Call(common.evaluate_quadratic), (jac, b[:4], x, torch.ones(4)), {}
    if name == "common.solve_trust_region_2d":
        return Call(common.solve_trust_region_2d), (torch.tensor([[2.0, 0.3], [0.3, 1.0]]), torch.tensor([3.0, -2.0]),
                                                    torch.tensor(0.5)), {}
    if name == "common.update_tr_radius":
        return Call(common.update_tr_radius), (torch.tensor(1.0), torch.tensor(0.1), torch.tensor(0.8),
                                               torch.tensor(0.9), True), {}
    if name == "common.check_termination":
        return Call(common.check_termination), (torch.tensor(1e-3), torch.tensor(1.0), torch.tensor(1e-9),
                                                torch.tensor(1.0), 0.5, 1e-8, 1e-8), {}
    lb, ub = torch.tensor([-1.0, 0.0, -2.0, 1.0]), torch.tensor([1.0, 1.0, 0.0, float("inf")])
    if name == "common.make_strictly_feasible":
        return Call(common.make_strictly_feasible, rstep=1e-6), (torch.tensor([-1.0, 0.5, 0.0, 1.0]), lb, ub), {}
    if name == "common.find_active_constraints":
        return Call(common.find_active_constraints), (torch.tensor([-1.0, 0.5, 0.0, 1.0]), lb, ub), {}

    def right_multiplied(owner: Any, x_: Any, d: Any) -> Any:
        jac = common.right_multiplied_operator(linear_operator.jacobian_linop(_residuals, x_), d)
        return jac.mv(torch.ones(4)), jac.rmv(torch.ones(6))

    return _run(None, right_multiplied, [common.right_multiplied_operator]), (x, torch.tensor([1.0, 2.0, 0.5, 1.0])), {}


def _optim(name: str) -> Built:
    import torch
    from torch import nn
    from torchmin import Minimizer, ScipyMinimizer

    method, keywords = OPTIM[name]
    net = nn.Linear(3, 1)
    if name.startswith("ScipyMinimizer"):
        optimizer: Any = ScipyMinimizer(net.parameters(), method=method, options={"maxiter": ITERS}, **keywords)
    else:
        optimizer = Minimizer(net.parameters(), method=method, max_iter=2, **keywords)

    class TrainStep(nn.Module):
        """One ``step(closure)``: the closure evaluates the mean squared error (``Minimizer`` runs backward
        itself; ``ScipyMinimizer``'s closure runs it)."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            def closure() -> torch.Tensor:
                optimizer.zero_grad()
                loss = (self.net(x) - y).square().mean()
                if isinstance(optimizer, ScipyMinimizer):
                    loss.backward()
                return loss

            return optimizer.step(closure)

        def entry_points(self) -> list[Any]:
            return [type(optimizer).step]

    gen = torch.Generator().manual_seed(7)
    x = torch.randn(8, 3, generator=gen)
    return TrainStep(), (x, x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3), {}


def _line_search(name: str) -> Built:
    import torch
    from torchmin import line_search
    from torchmin.benchmarks import rosen
    from torchmin.function import ScalarFunction

    x = torch.tensor([-1.2, 1.0, 0.8, 1.5])
    sf = ScalarFunction(rosen, x.shape)
    if name == "brent":
        return _run(sf, lambda f, x_, d: line_search.brent(f.fun, x_, d, bounds=(0, 1)), [line_search.brent]), \
            (x, torch.tensor([1.0, 0.0, 0.0, -1.0])), {}
    if name == "backtracking":
        def step(x_: Any, t: Any, d: Any) -> Any:
            x_new = x_ + t * d
            return sf.fun(x_new), x_new

        def run_backtracking(f: Any, x_: Any) -> Any:
            value = f.closure(x_)
            return line_search.backtracking(step, x_, torch.tensor(1.0), -value.grad, value.f, value.grad, max_ls=6)

        return _run(sf, run_backtracking, [line_search.backtracking]), (x,), {}
    extra = {"extra_condition": lambda t, f, g: True} if name.endswith("extra_condition") else {}

    def run_strong_wolfe(f: Any, x_: Any) -> Any:
        value = f.closure(x_)
        return line_search.strong_wolfe(f.dir_evaluate, x_, 1.0, -value.grad, value.f, value.grad, max_ls=5, **extra)

    return _run(sf, run_strong_wolfe, [line_search.strong_wolfe]), (x,), {}


def _functions(name: str) -> Built:
    import torch
    from torchmin.benchmarks import rosen
    from torchmin.function import ScalarFunction, VectorFunction

    x = torch.tensor([-1.2, 1.0, 0.8, 1.5])
    v = torch.tensor([1.0, 0.5, -0.5, 0.0])
    if name.startswith("ScalarFunction"):
        sf = ScalarFunction(rosen, x.shape, hessp=name.endswith("hessp"), hess=name.endswith("hess"))
        if name == "ScalarFunction.dir_evaluate":
            return _run(sf, lambda f, x_, d: f.dir_evaluate(x_, 0.5, d), [ScalarFunction.dir_evaluate]), (x, v), {}

        def scalar(f: Any, x_: Any, v_: Any) -> Any:
            value = f.closure(x_)
            if value.hessp is not None:
                return value.f, value.grad, value.hessp.mv(v_)
            if value.hess is not None:
                return value.f, value.grad, value.hess @ v_
            return value.f, value.grad

        return _run(sf, scalar, [ScalarFunction.closure]), (x, v), {}
    vf = VectorFunction(_residuals, x.shape, jacp=name.endswith("jacp"), jac=name.endswith(".jac"))

    def vector(f: Any, x_: Any, v_: Any) -> Any:
        value = f.closure(x_)
        if value.jacp is not None:
            return value.f, value.jacp.mv(v_), value.jacp.rmv(torch.ones_like(value.f))
        return value.f, value.jac @ v_

    return _run(vf, vector, [VectorFunction.closure]), (x, v), {}


def _subproblem(name: str) -> Built:
    import torch
    from torchmin.benchmarks import rosen
    from torchmin.function import ScalarFunction
    from torchmin.trustregion import dogleg, exact, krylov, ncg

    cls, hessp = {"DoglegSubproblem.solve": (dogleg.DoglegSubproblem, False),
                  "CGSteihaugSubproblem.solve": (ncg.CGSteihaugSubproblem, True),
                  "KrylovSubproblem.tridiag_subproblem": (krylov.KrylovSubproblem, True),
                  "IterativeSubproblem.solve": (exact.IterativeSubproblem, False)}[name]
    objective = _quartic if cls is dogleg.DoglegSubproblem else rosen
    sf = ScalarFunction(objective, torch.Size([4]), hessp=hessp, hess=not hessp)

    if cls is krylov.KrylovSubproblem:  # the GLTR step on a Lanczos tridiagonal matrix (its ``solve`` raises on
        # this torch: the norms it writes with ``out=`` into a 0-d view stay zero, so ``minimize`` covers it)
        def tridiagonal(f: Any, x_: Any, ta: Any, tb: Any) -> Any:
            return cls(x_, f.closure).tridiag_subproblem(ta, tb, 0.5)

        return _run(sf, tridiagonal, [cls, cls.tridiag_subproblem]), \
            (torch.tensor([-1.2, 1.0, 0.8, 1.5]), torch.tensor([2.0, 1.5, -0.5]), torch.tensor([0.7, 0.4])), {}

    def solve(f: Any, x_: Any) -> Any:
        subproblem = cls(x_, f.closure)
        p, hits_boundary = subproblem.solve(0.5)
        return p, subproblem(p), hits_boundary

    return _run(sf, solve, [cls, cls.solve]), (torch.tensor([-1.2, 1.0, 0.8, 1.5]),), {}


def _low(name: str) -> Built:
    import torch
    from torchmin import benchmarks, bfgs, newton
    from torchmin.constrained import lbfgsb
    from torchmin.trustregion import exact

    from gt_calls import Call

    if name.startswith(("strong_wolfe", "backtracking", "brent")):
        return _line_search(name)
    if name.startswith(("ScalarFunction", "VectorFunction")):
        return _functions(name)
    if "Subproblem." in name:
        return _subproblem(name)
    gen = torch.Generator().manual_seed(11)
    a = torch.randn(4, 4, generator=gen)
    spd = a @ a.T + torch.eye(4)
    x = torch.tensor([-1.2, 1.0, 0.8, 1.5])
    if name == "exact.estimate_smallest_singular_value":
        return Call(exact.estimate_smallest_singular_value), (torch.linalg.cholesky(spd).T,), {}
    if name == "exact.gershgorin_bounds":
        return Call(exact.gershgorin_bounds), (spd,), {}
    if name == "exact.singular_leading_submatrix":
        indefinite = spd - 3.0 * torch.eye(4)
        return Call(exact.singular_leading_submatrix), (indefinite, torch.linalg.cholesky(spd).T, 2), {}
    if name.startswith(("BFGS", "L_BFGS.")):
        strategy = (bfgs.L_BFGS(x, history_size=2) if name.startswith("L_BFGS")
                    else bfgs.BFGS(x, inverse=".hessian" not in name))

        def update_solve(h: Any, s: Any, y: Any, g: Any) -> Any:
            h.update(s, y)
            h.update(s * 0.5, y + 0.1)
            return h.solve(g)

        return _run(strategy, update_solve, [type(strategy).update, type(strategy).solve]), \
            (torch.tensor([0.1, -0.2, 0.05, 0.3]), torch.tensor([0.4, -0.1, 0.2, 0.5]), x), {}
    if name == "L_BFGS_B.solve":
        strategy = lbfgsb.L_BFGS_B(x, history_size=3)

        def solve_bounded(h: Any, s: Any, y: Any, g: Any) -> Any:
            h.update(s, y)
            return h.solve(g, x, torch.full((4,), -1.5), torch.full((4,), 1.5))

        return _run(strategy, solve_bounded, [lbfgsb.L_BFGS_B.update, lbfgsb.L_BFGS_B.solve]), \
            (torch.tensor([0.1, -0.2, 0.05, 0.3]), torch.tensor([0.4, -0.1, 0.2, 0.5]), x), {}
    if name == "newton._cg_iters":
        from torchmin.lstsq.linear_operator import aslinearoperator

        return Call(newton._cg_iters, max_iter=8), (x, aslinearoperator(spd)), {}
    function = getattr(benchmarks, name.split(".", 1)[1])
    args = (x, x.flip(0)) if name.endswith("hess_prod") else (x,)
    return Call(function), args, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MINIMIZE:
        return _minimize(name)
    if name in CONSTR:
        return _constr(name)
    if name in LEAST_SQUARES:
        return _least_squares(name)
    if name in LSTSQ_PARTS:
        return _lstsq_part(name)
    if name in OPTIM:
        return _optim(name)
    return _low(name)
