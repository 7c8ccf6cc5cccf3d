"""Ground-truth bench, xitorch: differentiable scientific computing (linear algebra, optimization,
integration, interpolation) with implicit gradients.

xitorch's functionals take a ``LinearOperator`` or a function (a plain function with its parameters, a
method of a ``torch.nn.Module`` or of an ``xitorch.EditableModule``) and differentiate through the
solution: ``xitorch.linalg`` (``solve`` with ``exactsolve``, ``cg``, ``bicgstab``, ``gmres``
and ``broyden1``, with ``E`` / ``M`` and preconditioners; ``symeig`` / ``lsymeig`` /
``usymeig`` with ``exacteig`` and ``davidson``, generalized with ``M``, degenerate-aware backward;
``svd``), ``LinearOperator`` (``LinearOperator.m`` of a matrix, user subclasses implementing ``_mv`` /
``_mm`` / ``_rmv`` / ``_fullmatrix`` / ``_getparamnames``, and its algebra: ``mv``, ``mm``, ``rmv``,
``rmm``, ``fullmatrix``, ``H``, ``matmul``, sums, scaling), ``xitorch.optimize`` (``rootfinder`` with
``broyden1`` / ``broyden2`` / ``linearmixing`` and their options, ``equilibrium`` with those and
``anderson_acc``, ``minimize`` with ``gd``, ``adam`` and ``broyden1``), ``xitorch.integrate`` (``quad``
with Gauss-Legendre on finite and infinite bounds, ``solve_ivp`` with ``rk4``, ``rk38``, ``euler``,
``rk23`` and ``rk45``, ``mcquad`` with ``mh`` and ``mhcustom``, ``SQuad`` with ``cspline``, ``trapz``
and ``simpson``: ``cumsum`` and ``integrate``), ``xitorch.interpolate.Interp1D`` (``cspline`` with each
boundary condition and extrapolation, ``linear``, unsorted ``x`` with ``y`` given later, batched) and
``xitorch.grad`` (``jac``, ``hess``). Each model is a bench module holding the problem's parameters
(a matrix, a small network, an ``EditableModule``), whose forward calls one functional (or a chain of
``LinearOperator`` calls); in train mode it is a training step: the squared outputs summed, then
``backward()`` under ``enable_grad`` (through the implicit gradients of ``solve``, ``symeig``,
``rootfinder``, ``quad``, ``solve_ivp``, ``mcquad``), returning the loss.

Tiny problems (sizes 3-8, a few iterations, a few dozen Monte Carlo samples), random data, nothing
downloaded. Left out because they fail eagerly: ``solve`` with ``scipy_gmres`` (it passes ``tol``, which
SciPy 1.17's ``gmres`` no longer takes) and ``usymeig`` with Davidson's ``eye`` initial guess (its
Cholesky step fails on the 8 x 8 operator); ``jac`` / ``hess`` run under ``enable_grad`` in both modes. ``names()`` needs no torch;
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N = 4

# solve name -> keywords: "op" ("spd", "nonsym": LinearOperator.m of a matrix; "custom", "custom6": a
# user LinearOperator subclass of size 4 / 6; "batched"), "E" / "M" (the generalized problem), method and
# its options ("precond": an identity-scaled preconditioner).
SOLVE: dict[str, dict[str, Any]] = {
    "solve.default.matrix": {"op": "spd"},
    "solve.exactsolve.E": {"op": "spd", "method": "exactsolve", "E": True},
    "solve.exactsolve.E_M": {"op": "spd", "method": "exactsolve", "E": True, "M": True},
    "solve.default.custom_small": {"op": "custom"},
    "solve.default.custom_hermitian": {"op": "custom6"},
    "solve.cg": {"op": "spd", "method": "cg", "posdef": True, "max_niter": 8},
    "solve.cg.posdef_none": {"op": "spd", "method": "cg", "max_niter": 8},
    "solve.cg.precond": {"op": "spd", "method": "cg", "posdef": True, "precond": True, "max_niter": 8},
    "solve.cg.E_M": {"op": "spd", "method": "cg", "posdef": True, "E": True, "M": True, "max_niter": 8},
    "solve.bicgstab": {"op": "nonsym", "method": "bicgstab", "max_niter": 8},
    "solve.bicgstab.precond": {"op": "nonsym", "method": "bicgstab", "precond_lr": True, "max_niter": 8},
    "solve.gmres": {"op": "nonsym", "method": "gmres", "max_niter": 8},
    "solve.broyden1": {"op": "spd", "method": "broyden1", "maxiter": 20},
    "solve.cg.batched": {"op": "batched", "method": "cg", "posdef": True, "max_niter": 8},
    "solve.exactsolve.batched": {"op": "batched", "method": "exactsolve"},
}
# symeig name -> keywords: "fn" (symeig / lsymeig / usymeig / svd), "op", "neig" / "k", "mode", "M",
# method and its options, "bck" (backward options: degeneracy tolerances).
SYMEIG: dict[str, dict[str, Any]] = {
    "symeig.exacteig": {"fn": "symeig", "op": "spd"},
    "lsymeig.exacteig.neig": {"fn": "lsymeig", "op": "spd", "neig": 2},
    "usymeig.exacteig.neig": {"fn": "usymeig", "op": "spd", "neig": 2},
    "symeig.exacteig.M": {"fn": "symeig", "op": "spd", "M": True, "neig": 2},
    "symeig.exacteig.degen": {"fn": "symeig", "op": "spd", "bck": {"degen_atol": 1e-6, "degen_rtol": 1e-6}},
    "lsymeig.davidson": {"fn": "lsymeig", "op": "custom8", "neig": 2, "method": "davidson", "max_niter": 6},
    "lsymeig.davidson.eye": {"fn": "lsymeig", "op": "custom8", "neig": 2, "method": "davidson", "max_niter": 6,
                             "v_init": "eye"},
    "symeig.davidson.batched": {"fn": "symeig", "op": "batched", "neig": 2, "mode": "lowest",
                                "method": "davidson", "max_niter": 6},
    "svd.tall": {"fn": "svd", "op": "tall", "k": 2},
    "svd.wide": {"fn": "svd", "op": "wide", "k": 2, "mode": "lowest"},
    "svd.full": {"fn": "svd", "op": "tall"},
}
LINOP = ("LinearOperator.m.algebra", "LinearOperator.custom.mv_mm_rmv", "LinearOperator.custom.fullmatrix",
         "LinearOperator.custom.matmul_add", "LinearOperator.check")
# rootfinder / equilibrium / minimize name -> keywords: "fn", "fcn" ("function": a plain function with
# parameters; "module": an nn.Module's forward; "editable": an EditableModule method), method and options.
OPTIMIZE: dict[str, dict[str, Any]] = {
    "rootfinder.default": {"fn": "rootfinder", "fcn": "function"},
    "rootfinder.broyden1.module": {"fn": "rootfinder", "fcn": "module", "method": "broyden1", "maxiter": 20},
    "rootfinder.broyden1.no_line_search": {"fn": "rootfinder", "fcn": "function", "method": "broyden1",
                                           "line_search": False, "alpha": -1.0, "maxiter": 20},
    "rootfinder.broyden1.max_rank": {"fn": "rootfinder", "fcn": "function", "method": "broyden1", "max_rank": 2,
                                     "maxiter": 20, "f_tol": 1e-6},
    "rootfinder.broyden1.uv0_svd": {"fn": "rootfinder", "fcn": "function", "method": "broyden1",
                                    "uv0": "svd", "maxiter": 20},
    "rootfinder.broyden2": {"fn": "rootfinder", "fcn": "function", "method": "broyden2", "maxiter": 20},
    "rootfinder.linearmixing": {"fn": "rootfinder", "fcn": "function", "method": "linearmixing", "maxiter": 20,
                                "alpha": -0.5},
    "rootfinder.broyden1.editable": {"fn": "rootfinder", "fcn": "editable", "method": "broyden1", "maxiter": 20},
    "rootfinder.broyden1.bck_options": {"fn": "rootfinder", "fcn": "function", "method": "broyden1", "maxiter": 20,
                                        "bck": {"method": "cg", "max_niter": 8}},
    "equilibrium.broyden1": {"fn": "equilibrium", "fcn": "function", "method": "broyden1", "maxiter": 20},
    "equilibrium.anderson_acc": {"fn": "equilibrium", "fcn": "function", "method": "anderson_acc", "maxiter": 10,
                                 "msize": 3},
    "equilibrium.anderson_acc.module": {"fn": "equilibrium", "fcn": "module", "method": "anderson_acc",
                                        "maxiter": 10, "beta": 0.5},
    "equilibrium.linearmixing": {"fn": "equilibrium", "fcn": "function", "method": "linearmixing", "maxiter": 20},
    "minimize.gd": {"fn": "minimize", "fcn": "function", "method": "gd", "maxiter": 10, "step": 0.1},
    "minimize.adam": {"fn": "minimize", "fcn": "function", "method": "adam", "maxiter": 10, "step": 0.1},
    "minimize.adam.module": {"fn": "minimize", "fcn": "module", "method": "adam", "maxiter": 10, "step": 0.1},
    "minimize.broyden1": {"fn": "minimize", "fcn": "function", "method": "broyden1", "maxiter": 20},
}
# integrate name -> keywords: "fn" (quad / solve_ivp / mcquad / SQuad.cumsum / SQuad.integrate), "fcn", method
# and options.
INTEGRATE: dict[str, dict[str, Any]] = {
    "quad.leggauss": {"fn": "quad", "fcn": "function", "n": 8},
    "quad.default.module": {"fn": "quad", "fcn": "module"},
    "quad.infinite": {"fn": "quad", "fcn": "function", "n": 8, "bounds": "inf"},
    "solve_ivp.rk4": {"fn": "solve_ivp", "fcn": "function", "method": "rk4"},
    "solve_ivp.rk38": {"fn": "solve_ivp", "fcn": "function", "method": "rk38"},
    "solve_ivp.euler": {"fn": "solve_ivp", "fcn": "function", "method": "euler"},
    "solve_ivp.rk23": {"fn": "solve_ivp", "fcn": "function", "method": "rk23", "rtol": 1e-3, "atol": 1e-4},
    "solve_ivp.rk45.default": {"fn": "solve_ivp", "fcn": "function"},
    "solve_ivp.rk4.module": {"fn": "solve_ivp", "fcn": "module", "method": "rk4"},
    "solve_ivp.rk45.module": {"fn": "solve_ivp", "fcn": "module", "method": "rk45", "rtol": 1e-3, "atol": 1e-4},
    "solve_ivp.rk4.list_state": {"fn": "solve_ivp", "fcn": "list", "method": "rk4"},
    "mcquad.mh": {"fn": "mcquad", "method": "mh", "nsamples": 40, "nburnout": 5, "step_size": 0.5},
    "mcquad.mhcustom": {"fn": "mcquad", "method": "mhcustom", "nsamples": 40, "nburnout": 5},
    "SQuad.cspline.cumsum": {"fn": "SQuad.cumsum", "method": "cspline"},
    "SQuad.cspline.integrate": {"fn": "SQuad.integrate", "method": "cspline"},
    "SQuad.trapz.cumsum": {"fn": "SQuad.cumsum", "method": "trapz"},
    "SQuad.trapz.integrate": {"fn": "SQuad.integrate", "method": "trapz"},
    "SQuad.simpson.integrate": {"fn": "SQuad.integrate", "method": "simpson"},
}
# Interp1D name -> keywords of the constructor; "later": y given at the call (unsorted x), "batched".
INTERP: dict[str, dict[str, Any]] = {
    "Interp1D.cspline.default": {},
    "Interp1D.cspline.natural": {"bc_type": "natural"},
    "Interp1D.cspline.clamped": {"bc_type": "clamped"},
    "Interp1D.cspline.periodic": {"bc_type": "periodic", "periodic": True},
    "Interp1D.cspline.extrap_float": {"bc_type": "natural", "extrap": 0.5},
    "Interp1D.cspline.extrap_mirror": {"extrap": "mirror"},
    "Interp1D.cspline.extrap_bound": {"extrap": "bound"},
    "Interp1D.cspline.extrap_callable": {"extrap": "callable"},
    "Interp1D.cspline.y_later": {"later": True},
    "Interp1D.cspline.batched": {"batched": True},
    "Interp1D.linear": {"method": "linear"},
    "Interp1D.linear.extrap_periodic": {"method": "linear", "extrap": "periodic", "periodic": True},
    "Interp1D.linear.y_later": {"method": "linear", "later": True},
}
GRAD = ("jac.mv_rmv", "jac.fullmatrix", "hess.mv", "jac.idxs")


def names() -> list[str]:
    return (list(SOLVE) + list(SYMEIG) + list(LINOP) + list(OPTIMIZE) + list(INTEGRATE) + list(INTERP)
            + list(GRAD))


def _step(owner: Any, run: Callable[..., Any], entries: list[Any], backward: bool = True) -> Any:
    """A bench module holding ``owner`` (its parameters are the model's) whose forward is
    ``run(owner, *inputs)``; in train mode (with ``backward``) a training step: the squared outputs summed
    and ``backward()`` under ``enable_grad``, returning the loss."""
    import torch
    from torch import nn

    class Step(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.owner = owner

        def forward(self, *inputs: Any) -> Any:
            if not (self.training and backward):
                return run(self.owner, *inputs)
            with torch.enable_grad():
                out = run(self.owner, *inputs)
                outs = out if isinstance(out, (tuple, list)) else (out,)
                loss = sum(o.square().sum() for o in outs if isinstance(o, torch.Tensor) and o.requires_grad)
                if isinstance(loss, torch.Tensor):
                    loss.backward()
                    return loss.detach()
                return loss

        def entry_points(self) -> list[Any]:
            return entries

    return Step()


def _params() -> Any:
    """The problem's parameters: a matrix, a vector and a diagonal."""
    import torch
    from torch import nn

    gen = torch.Generator().manual_seed(11)
    holder = nn.Module()
    holder.a = nn.Parameter(0.3 * torch.randn(8, 8, generator=gen, dtype=torch.float64))
    holder.b = nn.Parameter(torch.randn(8, generator=gen, dtype=torch.float64))
    holder.d = nn.Parameter(1.0 + torch.rand(8, generator=gen, dtype=torch.float64))
    return holder


def _linop_classes() -> tuple[Any, Any]:
    import torch
    import xitorch

    class DiagLowRank(xitorch.LinearOperator):
        """A Hermitian ``diag(d) + u u^T`` (``_mv`` and ``_getparamnames`` only)."""

        def __init__(self, d: torch.Tensor, u: torch.Tensor) -> None:
            super().__init__(shape=(d.shape[-1], d.shape[-1]), is_hermitian=True, dtype=d.dtype, device=d.device)
            self.d = d
            self.u = u

        def _mv(self, x: torch.Tensor) -> torch.Tensor:
            return self.d * x + self.u * (self.u * x).sum(dim=-1, keepdim=True)

        def _getparamnames(self, prefix: str = "") -> list[str]:
            return [prefix + "d", prefix + "u"]

    class Dense(xitorch.LinearOperator):
        """A non-Hermitian dense operator implementing ``_mv``, ``_mm``, ``_rmv`` and ``_fullmatrix``."""

        def __init__(self, a: torch.Tensor) -> None:
            super().__init__(shape=a.shape, is_hermitian=False, dtype=a.dtype, device=a.device)
            self.a = a

        def _mv(self, x: torch.Tensor) -> torch.Tensor:
            return torch.matmul(self.a, x.unsqueeze(-1)).squeeze(-1)

        def _mm(self, x: torch.Tensor) -> torch.Tensor:
            return torch.matmul(self.a, x)

        def _rmv(self, x: torch.Tensor) -> torch.Tensor:
            return torch.matmul(self.a.transpose(-2, -1), x.unsqueeze(-1)).squeeze(-1)

        def _fullmatrix(self) -> torch.Tensor:
            return self.a

        def _getparamnames(self, prefix: str = "") -> list[str]:
            return [prefix + "a"]

    return DiagLowRank, Dense


def _operator(kind: str, holder: Any) -> Any:
    import torch
    import xitorch

    diag_low_rank, _ = _linop_classes()
    if kind in ("spd", "nonsym", "batched"):
        a = holder.a[:N, :N]
        eye = torch.eye(N, dtype=a.dtype)
        if kind == "nonsym":
            return xitorch.LinearOperator.m(a + 2.0 * eye)
        spd = a @ a.T + 2.0 * eye
        if kind == "batched":
            spd = torch.stack([spd, spd + eye])
        return xitorch.LinearOperator.m(spd, is_hermitian=True)
    if kind == "tall":
        return xitorch.LinearOperator.m(holder.a[:5, :3])
    if kind == "wide":
        return xitorch.LinearOperator.m(holder.a[:3, :5])
    size = {"custom": 4, "custom6": 6, "custom8": 8}[kind]
    return diag_low_rank(holder.d[:size], 0.3 * holder.b[:size])


def _solve(name: str) -> Built:
    import torch
    import xitorch
    from xitorch.linalg import solve

    spec = dict(SOLVE[name])
    kind = spec.pop("op")
    use_e, use_m = spec.pop("E", False), spec.pop("M", False)
    precond, precond_lr = spec.pop("precond", False), spec.pop("precond_lr", False)
    holder = _params()

    def run(owner: Any, rhs: torch.Tensor) -> Any:
        a = _operator(kind, owner)
        options = dict(spec)
        if use_e:
            options["E"] = 0.1 * owner.d[: rhs.shape[-1]]
        if use_m:
            options["M"] = xitorch.LinearOperator.m(torch.diag(owner.d[: a.shape[-1]]), is_hermitian=True)
        if precond:
            options["precond"] = xitorch.LinearOperator.m(0.5 * torch.eye(a.shape[-1], dtype=rhs.dtype),
                                                          is_hermitian=True)
        if precond_lr:
            options["precond_l"] = xitorch.LinearOperator.m(torch.eye(a.shape[-1], dtype=rhs.dtype))
        return solve(a, rhs, **options)

    size = {"custom6": 6}.get(kind, N)
    rhs = torch.randn(size, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    if kind == "batched":
        rhs = rhs.expand(2, size, 2).clone()
    return _step(holder, run, [solve]), (rhs,), {}


def _symeig(name: str) -> Built:
    import torch
    import xitorch
    from xitorch import linalg

    spec = dict(SYMEIG[name])
    fn, kind = spec.pop("fn"), spec.pop("op")
    use_m, bck = spec.pop("M", False), spec.pop("bck", None)
    holder = _params()
    function = getattr(linalg, fn)

    def run(owner: Any, shift: torch.Tensor) -> Any:
        a = _operator(kind, owner)
        options = dict(spec)
        if use_m:
            options["M"] = xitorch.LinearOperator.m(torch.diag(owner.d[: a.shape[-1]]), is_hermitian=True)
        if bck is not None:
            options["bck_options"] = bck
        out = function(a, **options)
        return tuple(o * shift for o in out[:1]) + tuple(out[1:])

    return _step(holder, run, [function]), (torch.ones(1, dtype=torch.float64),), {}


def _linop(name: str) -> Built:
    import torch
    import xitorch

    diag_low_rank, dense = _linop_classes()
    holder = _params()

    def run(owner: Any, x: torch.Tensor) -> Any:
        if name == "LinearOperator.m.algebra":
            a = xitorch.LinearOperator.m(owner.a[:N, :N])
            b = xitorch.LinearOperator.m(torch.diag(owner.d[:N]), is_hermitian=True)
            c = (a + b) * 2.0 - b
            return c.mv(x), c.H.mm(x.unsqueeze(-1)), a.matmul(b).fullmatrix(), c.rmv(x)
        if name == "LinearOperator.check":
            op = diag_low_rank(owner.d[:N], owner.b[:N])
            op.check(warn=False)
            return op.mv(x)
        op = dense(owner.a[:N, :N])
        if name == "LinearOperator.custom.mv_mm_rmv":
            return op.mv(x), op.mm(torch.stack([x, 2 * x], dim=-1)), op.rmv(x), op.rmm(x.unsqueeze(-1))
        if name == "LinearOperator.custom.fullmatrix":
            lowrank = diag_low_rank(owner.d[:N], owner.b[:N])
            return op.fullmatrix(), lowrank.fullmatrix(), op.H.fullmatrix()
        lowrank = diag_low_rank(owner.d[:N], owner.b[:N])
        prod = op.matmul(lowrank)
        return prod.mv(x), (op + lowrank).mv(x), (op - lowrank).rmv(x), (3 * lowrank).mm(x.unsqueeze(-1))

    return _step(holder, run, [xitorch.LinearOperator]), (torch.linspace(-1.0, 1.0, N, dtype=torch.float64),), {}


def _optimize(name: str) -> Built:
    import torch
    import xitorch
    from torch import nn
    from xitorch import optimize

    spec = dict(OPTIMIZE[name])
    fn, fcn_kind = spec.pop("fn"), spec.pop("fcn")
    bck = spec.pop("bck", None)
    function = getattr(optimize, fn)
    holder = _params()

    class Residual(nn.Module):
        """``tanh(a y) + 2 y - b`` (root finding), ``0.3 tanh(a y) + b`` (a contraction: equilibrium) or a
        convex quartic (minimization), with ``a`` and ``b`` the holder's parameters."""

        def __init__(self, owner: Any) -> None:
            super().__init__()
            self.owner = owner

        def forward(self, y: torch.Tensor) -> torch.Tensor:
            return _objective(fn, y, self.owner.a[:N, :N], self.owner.b[:N])

    class EditableResidual(xitorch.EditableModule):
        def __init__(self, a: torch.Tensor, b: torch.Tensor) -> None:
            self.a = a
            self.b = b

        def residual(self, y: torch.Tensor) -> torch.Tensor:
            return _objective(fn, y, self.a, self.b)

        def getparamnames(self, methodname: str, prefix: str = "") -> list[str]:
            return [prefix + "a", prefix + "b"]

    def run(owner: Any, y0: torch.Tensor) -> Any:
        options = dict(spec)
        if bck is not None:
            options["bck_options"] = bck
        if fcn_kind == "module":
            return function(Residual(owner).forward, y0, **options)
        if fcn_kind == "editable":
            return function(EditableResidual(owner.a[:N, :N], owner.b[:N]).residual, y0, **options)
        return function(_objective_fcn(fn), y0, params=(owner.a[:N, :N], owner.b[:N]), **options)

    return _step(holder, run, [function]), (torch.zeros(N, dtype=torch.float64),), {}


def _objective(fn: str, y: Any, a: Any, b: Any) -> Any:
    import torch

    if fn == "rootfinder":
        return torch.tanh(0.3 * (a @ y)) + 2.0 * y - b
    if fn == "equilibrium":
        return 0.3 * torch.tanh(a @ y) + 0.5 * b
    return ((y - b) ** 2).sum() + 0.1 * (y ** 4).sum() + 0.05 * (a @ y).square().sum()


def _objective_fcn(fn: str) -> Callable[..., Any]:
    def fcn(y: Any, a: Any, b: Any) -> Any:
        return _objective(fn, y, a, b)

    return fcn


def _integrate(name: str) -> Built:
    import torch
    from torch import nn
    from xitorch import integrate

    spec = dict(INTEGRATE[name])
    fn = spec.pop("fn")
    fcn_kind = spec.pop("fcn", "function")
    holder = _params()

    class Dynamics(nn.Module):
        def __init__(self, owner: Any) -> None:
            super().__init__()
            self.owner = owner

        def forward(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return -self.owner.d[: y.shape[-1]] * y + 0.1 * torch.sin(t)

    class Integrand(nn.Module):
        def __init__(self, owner: Any) -> None:
            super().__init__()
            self.owner = owner

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.exp(-self.owner.d[:3] * x * x) * self.owner.b[:3] + self.owner.a[0, :3] * x

    if fn == "quad":
        infinite = spec.pop("bounds", None) == "inf"

        def run_quad(owner: Any, xl: torch.Tensor, xu: torch.Tensor) -> Any:
            upper = torch.tensor(float("inf"), dtype=xu.dtype) if infinite else xu
            if fcn_kind == "module":
                return integrate.quad(Integrand(owner).forward, xl, upper, **spec)

            def integrand(x: torch.Tensor, d: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
                return torch.exp(-d * x * x) * b

            return integrate.quad(integrand, xl, upper, params=(owner.d[:3], owner.b[:3]), **spec)

        bounds = (torch.tensor(0.0, dtype=torch.float64), torch.tensor(1.5, dtype=torch.float64))
        return _step(holder, run_quad, [integrate.quad]), bounds, {}
    if fn == "solve_ivp":
        def run_ivp(owner: Any, ts: torch.Tensor, y0: torch.Tensor) -> Any:
            if fcn_kind == "module":
                return integrate.solve_ivp(Dynamics(owner).forward, ts, y0, **spec)
            if fcn_kind == "list":
                def coupled(t: torch.Tensor, state: list[torch.Tensor], d: torch.Tensor) -> Any:
                    y, v = state
                    return [v, -d * y]

                return integrate.solve_ivp(coupled, ts, [y0, torch.zeros_like(y0)], params=(owner.d[:3],), **spec)

            def decay(t: torch.Tensor, y: torch.Tensor, d: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
                return -d * y + 0.1 * b

            return integrate.solve_ivp(decay, ts, y0, params=(owner.d[:3], owner.b[:3]), **spec)

        ts = torch.linspace(0.0, 0.5, 4, dtype=torch.float64)
        return _step(holder, run_ivp, [integrate.solve_ivp]), (ts, torch.ones(3, dtype=torch.float64)), {}
    if fn == "mcquad":
        def custom_step(x: torch.Tensor, *params: Any) -> torch.Tensor:
            return x + 0.5 * torch.randn_like(x)

        if spec["method"] == "mhcustom":
            spec["custom_step"] = custom_step

        def run_mc(owner: Any, x0: torch.Tensor) -> Any:
            def ffcn(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
                return (x * b).sum(dim=-1, keepdim=True) + x.square()

            def log_pfcn(x: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
                return -0.5 * (d * x * x).sum()

            torch.manual_seed(3)
            return integrate.mcquad(ffcn, log_pfcn, x0, fparams=(owner.b[:2],), pparams=(owner.d[:2],), **spec)

        return _step(holder, run_mc, [integrate.mcquad]), (torch.zeros(2, dtype=torch.float64),), {}
    method = spec.pop("method")
    x = torch.sort(torch.rand(7, dtype=torch.float64, generator=torch.Generator().manual_seed(4))).values * 2.0

    def run_squad(owner: Any, xs: torch.Tensor) -> Any:
        squad = integrate.SQuad(xs, method=method)
        y = torch.sin(xs)[None, :] * owner.d[:2, None]
        return squad.cumsum(y) if fn == "SQuad.cumsum" else squad.integrate(y)

    return _step(holder, run_squad, [integrate.SQuad]), (x,), {}


def _interp(name: str) -> Built:
    import torch
    from xitorch.interpolate import Interp1D

    spec = dict(INTERP[name])
    later, batched, periodic = spec.pop("later", False), spec.pop("batched", False), spec.pop("periodic", False)
    if spec.get("extrap") == "callable":
        spec["extrap"] = lambda xq: torch.zeros_like(xq) + 0.25
    holder = _params()
    gen = torch.Generator().manual_seed(6)
    x = torch.sort(torch.rand(6, dtype=torch.float64, generator=gen)).values * 3.0
    x = torch.cat([torch.zeros(1, dtype=torch.float64), x[1:-1], torch.full((1,), 3.0, dtype=torch.float64)])
    xq = torch.linspace(-0.5, 3.5, 7, dtype=torch.float64)
    if batched:
        x = torch.stack([x, x * 1.1])
        xq = torch.linspace(0.2, 2.8, 5, dtype=torch.float64).expand(2, 5).clone()
    if later:
        x = x.flip(-1)

    def run(owner: Any, xs: torch.Tensor, xq_: torch.Tensor) -> Any:
        y = torch.sin(xs) * owner.d[:1] + owner.b[:1] * xs
        if periodic:
            y = torch.cos(2 * torch.pi * xs / 3.0) * owner.d[:1]
        if later:
            return Interp1D(xs, **spec)(xq_, y)
        return Interp1D(xs, y, **spec)(xq_)

    return _step(holder, run, [Interp1D]), (x, xq), {}


def _grad(name: str) -> Built:
    import torch
    from xitorch.grad import hess, jac

    holder = _params()

    def fcn(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        return torch.tanh(a @ x) + x ** 3

    def scalar(x: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        return (a @ x).square().sum() + (x ** 4).sum()

    def run(owner: Any, v: torch.Tensor) -> Any:
        with torch.enable_grad():  # the Jacobian's products differentiate the function
            return products(owner, v)

    def products(owner: Any, v: torch.Tensor) -> Any:
        a, x = owner.a[:N, :N], owner.b[:N]
        if name == "hess.mv":
            return hess(scalar, (x, a), idxs=0).mv(v)
        if name == "jac.idxs":
            jx, ja = jac(fcn, (x, a), idxs=[0, 1])
            return jx.mv(v), ja.rmv(v)
        j = jac(fcn, (x, a), idxs=0)
        if name == "jac.fullmatrix":
            return j.fullmatrix()
        return j.mv(v), j.rmv(v)

    entry = hess if name.startswith("hess") else jac
    return _step(holder, run, [entry]), (torch.ones(N, dtype=torch.float64),), {}


def build(name: str) -> Built:
    for table, builder in ((SOLVE, _solve), (SYMEIG, _symeig), (OPTIMIZE, _optimize), (INTEGRATE, _integrate),
                           (INTERP, _interp)):
        if name in table:
            return builder(name)
    if name in LINOP:
        return _linop(name)
    return _grad(name)
