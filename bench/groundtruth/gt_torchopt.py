"""Ground-truth bench, torchopt: differentiable optimizers, functional optimizers and meta-gradients.

torchopt (metaopt) offers optimizers in three styles and the tools of bilevel meta-learning. Each model
here is a bench module on a tiny MLP (8 -> 16 -> 4, batch 2) whose forward runs what a user's training
or meta-training step runs, under ``torch.enable_grad()`` (the harness calls eval mode under
``no_grad``, and each step differentiates):

- ``META``: a differentiable meta-optimizer (``MetaSGD``, ``MetaAdam``, ``MetaAdamW``, ``MetaRMSProp``,
  ``MetaAdagrad``, ``MetaAdadelta``, ``MetaRAdam``, and ``MetaOptimizer`` over a ``chain``) stepping on
  an inner loss inside forward (one or two steps of MAML's inner loop), then the outer loss of the
  adapted network. The network's and the optimizer's states are taken with ``extract_state_dict`` (by
  reference or copy) before the loop and put back with ``recover_state_dict`` after it, as torchopt's
  MAML example does; one variant calls ``outer.backward()`` and ``stop_gradient`` in the step, one
  keeps the adapted state across calls. Options that take other code paths: momentum, Nesterov,
  dampening, weight decay, ``maximize``, ``eps_root``, ``use_accelerated_op`` (the C++ op is
  unavailable on this build, so it falls back), a learning-rate schedule (``linear_schedule``),
  centered RMSProp. ``adamw``'s ``mask`` is left out: with a boolean mask 0.7.3's
  ``add_decayed_weights`` fails eagerly on its ``MaskedNode``;
- ``FUNC``: the functional API, ``GradientTransformation``s such as ``torchopt.adam()`` with
  ``init`` / ``update`` on a tuple of parameters and ``torchopt.apply_updates`` (in place or not), for
  ``adam``, ``sgd``, ``adamw``, ``rmsprop``, ``adamax`` and ``radam``, ``chain`` with
  ``clip_grad_norm``, ``nan_to_num`` and ``register_hook`` (its ``zero_nan_hook``), the schedules
  (``linear_schedule``, ``exponential_decay`` with staircase), low-level transforms (``trace``,
  ``add_decayed_weights``, ``scale``, ``scale_by_stddev``, ``scale_by_schedule``) and
  ``FuncOptimizer`` (``step(loss, params)``);
- ``OPTIM``: the ``torch.optim``-like wrappers (``torchopt.SGD``, ``Adam``, ``RMSProp``, ``Adadelta``,
  ``Optimizer(params, chain(...))``): one compiled ``step()`` after the gradients are assigned
  (``gt_calls.OptimizerStep``);
- ``IMPLICIT``: implicit differentiation of a ridge-regression inner problem with
  ``diff.implicit.custom_root`` (its default ``solve_normal_cg``, ``solve_cg``, ``solve_inv`` plain and
  with its Neumann series, ``has_aux``, two differentiated arguments), the meta-gradient taken with
  ``torch.autograd.grad`` inside forward; an ``ImplicitMetaGradientModule`` with an ``objective()``
  and one with an ``optimality()`` (its inner network built once and solved again at each call); the linear algebra
  itself (``linalg.cg``, ``linalg.ns``, ``linalg.ns_inv``);
- ``ZERO``: zero-order gradients, ``diff.zero_order.zero_order`` with a ``torch.distributions.Normal``
  (methods ``naive``, ``forward``, ``antithetic``) and a ``ZeroOrderGradientModule`` subclass, the
  estimated gradient taken inside forward;
- ``UTILS``: ``module_clone`` (by reference, deepcopy), ``stop_gradient`` after a meta step and
  ``nn.reparametrize`` around a forward.

Aliases and options that only change numbers were left out to keep the library's run short.
``torchopt.visual`` (graphviz) and ``torchopt.distributed`` are left out. Random weights, nothing
downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, OUT, BATCH = 8, 16, 4, 2

# Meta-optimizer model -> (class in ``torchopt``, keywords, options). Options: "steps" (inner steps),
# "by" (extract_state_dict's copy mode), "backward" (outer backward and stop_gradient), "keep" (state kept
# across calls, no recover). "schedule" in keywords stands for ``linear_schedule``; "chain" for
# ``MetaOptimizer(net, chain(clip_grad_norm, sgd))``.
META: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "MetaSGD": ("MetaSGD", {"lr": 0.1}, {}),
    "MetaSGD.momentum_nesterov": ("MetaSGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3},
                                  {"steps": 2}),
    "MetaSGD.dampening_maximize": ("MetaSGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "maximize": True}, {}),
    "MetaAdam": ("MetaAdam", {"lr": 0.1}, {}),
    "MetaAdam.two_steps": ("MetaAdam", {"lr": 0.1}, {"steps": 2}),
    "MetaAdam.weight_decay_eps_root": ("MetaAdam", {"lr": 0.1, "weight_decay": 1e-3, "eps_root": 1e-8}, {}),
    "MetaAdam.accelerated_op": ("MetaAdam", {"lr": 0.1, "use_accelerated_op": True}, {}),
    "MetaAdam.schedule": ("MetaAdam", {"lr": "schedule"}, {"steps": 2}),
    "MetaAdam.by_copy": ("MetaAdam", {"lr": 0.1}, {"by": "copy"}),
    "MetaAdam.outer_backward": ("MetaAdam", {"lr": 0.1}, {"backward": True}),
    "MetaAdam.keep_state": ("MetaAdam", {"lr": 0.1}, {"keep": True}),
    "MetaAdamW": ("MetaAdamW", {"lr": 0.1}, {}),
    "MetaRMSProp.centered_momentum": ("MetaRMSProp", {"lr": 0.1, "centered": True, "momentum": 0.9, "nesterov": True,
                                                      "weight_decay": 1e-3}, {"steps": 2}),
    "MetaAdagrad": ("MetaAdagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 1e-3}, {}),
    "MetaAdadelta": ("MetaAdadelta", {"lr": 0.1, "weight_decay": 1e-3}, {}),
    "MetaRAdam": ("MetaRAdam", {"lr": 0.1, "weight_decay": 1e-3}, {"steps": 2}),
    "MetaOptimizer.chain": ("MetaOptimizer", {}, {}),
}
# Functional model -> (transformation spec, options). A spec is a list of (function in ``torchopt`` or
# ``torchopt.transform``, keywords), chained when longer than one. Options: "inplace", "func_optimizer".
FUNC: dict[str, tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]] = {
    "adam": ([("adam", {"lr": 0.1})], {}),
    "adam.inplace": ([("adam", {"lr": 0.1, "weight_decay": 1e-3})], {"inplace": True}),
    "sgd.momentum_nesterov": ([("sgd", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3})], {}),
    "adamw": ([("adamw", {"lr": 0.1})], {}),
    "rmsprop.centered": ([("rmsprop", {"lr": 0.1, "centered": True, "momentum": 0.9})], {}),
    "adamax": ([("adamax", {"lr": 0.1})], {}),
    "radam": ([("radam", {"lr": 0.1})], {}),
    "chain.clip_grad_norm.adam": ([("clip_grad_norm", {"max_norm": 0.5}), ("adam", {"lr": 0.1})], {}),
    "chain.nan_to_num.zero_nan_hook.sgd": ([("nan_to_num", {"nan": 0.0, "posinf": 1.0, "neginf": -1.0}),
                                            ("register_hook", {"hook": "zero_nan_hook"}), ("sgd", {"lr": 0.1})], {}),
    "adam.linear_schedule": ([("adam", {"lr": ("linear_schedule", {"init_value": 0.1, "end_value": 0.01,
                                                                   "transition_steps": 4, "transition_begin": 1})})], {}),
    "adam.exponential_decay": ([("adam", {"lr": ("exponential_decay", {"init_value": 0.1, "decay_rate": 0.5,
                                                                       "transition_steps": 2, "staircase": True,
                                                                       "end_value": 0.01})})], {}),
    "transform.trace.add_decayed_weights": ([("add_decayed_weights", {"weight_decay": 1e-3}),
                                             ("trace", {"momentum": 0.9, "nesterov": True}),
                                             ("scale", {"step_size": -0.1})], {}),
    "transform.scale_by_stddev.schedule": ([("scale_by_stddev", {"alpha": 0.9}),
                                            ("scale_by_schedule", {"step_size_fn": ("linear_schedule", {
                                                "init_value": -0.1, "end_value": -0.01, "transition_steps": 4})})], {}),
    "FuncOptimizer.adam": ([("adam", {"lr": 0.1})], {"func_optimizer": True}),
}
# ``torch.optim``-like wrapper -> (class in ``torchopt``, keywords); "chain" builds
# ``Optimizer(params, chain(clip_grad_norm, adam))``.
OPTIM: dict[str, tuple[str, dict[str, Any]]] = {
    "SGD.momentum_nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}),
    "Adam": ("Adam", {}),
    "Adam.accelerated_op": ("Adam", {"use_accelerated_op": True}),
    "RMSProp.centered": ("RMSProp", {"centered": True, "momentum": 0.9}),
    "Adadelta": ("Adadelta", {}),
    "Optimizer.chain": ("Optimizer", {}),
}
IMPLICIT = (
    "custom_root", "custom_root.solve_cg", "custom_root.solve_inv", "custom_root.solve_inv.ns",
    "custom_root.has_aux", "custom_root.two_argnums",
    "ImplicitMetaGradientModule.objective", "ImplicitMetaGradientModule.optimality",
    "linalg.cg", "linalg.ns", "linalg.ns_inv",
)
ZERO = ("zero_order.naive", "zero_order.forward", "zero_order.antithetic", "ZeroOrderGradientModule")
UTILS = ("module_clone.reference", "module_clone.deepcopy", "stop_gradient", "nn.reparametrize")


def names() -> list[str]:
    return ([f"meta.{n}" for n in META] + [f"func.{n}" for n in FUNC] + [f"optim.{n}" for n in OPTIM]
            + [f"implicit.{n}" for n in IMPLICIT] + [f"zero.{n}" for n in ZERO] + [f"utils.{n}" for n in UTILS])


def _net() -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(DIM, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, OUT))


def _data(seed: int = 1) -> tuple[Any, Any, Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(BATCH, DIM, generator=gen), torch.randn(BATCH, OUT, generator=gen),
            torch.randn(BATCH, DIM, generator=gen), torch.randn(BATCH, OUT, generator=gen))


def _resolve(keywords: dict[str, Any]) -> dict[str, Any]:
    import torchopt

    out = {}
    for key, value in keywords.items():
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
            value = getattr(torchopt.schedule, value[0])(**value[1])
        elif value == "schedule":
            value = torchopt.schedule.linear_schedule(init_value=0.1, end_value=0.01, transition_steps=3)
        elif value == "zero_nan_hook":
            value = torchopt.hook.zero_nan_hook
        out[key] = value
    return out


def _meta(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torchopt
    from torch import nn

    cls, keywords, options = META[name]
    net = _net()
    if cls == "MetaOptimizer":
        optim: Any = torchopt.MetaOptimizer(net, torchopt.chain(torchopt.clip_grad_norm(max_norm=1.0),
                                                                torchopt.sgd(lr=0.1, moment_requires_grad=True)))
    else:
        optim = getattr(torchopt, cls)(net, **_resolve(keywords))
    steps, by = options.get("steps", 1), options.get("by", "reference")
    backward, keep = options.get("backward", False), options.get("keep", False)

    class _InnerOuter(nn.Module):
        """MAML's step: inner adaptation with the meta-optimizer, the adapted network's outer loss."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.optim = optim

        def forward(self, x: torch.Tensor, y: torch.Tensor, xq: torch.Tensor, yq: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                if not keep:
                    net_state = torchopt.extract_state_dict(self.net, by=by)
                    optim_state = torchopt.extract_state_dict(self.optim, by=by)
                for _ in range(steps):
                    inner = F.mse_loss(self.net(x), y)
                    self.optim.step(inner)
                outer = F.mse_loss(self.net(xq), yq)
                if backward:
                    outer.backward()
                if not keep:
                    torchopt.recover_state_dict(self.net, net_state)
                    torchopt.recover_state_dict(self.optim, optim_state)
                if backward:
                    torchopt.stop_gradient(self.net)
                    torchopt.stop_gradient(self.optim)
                if keep:
                    torchopt.stop_gradient(self.net)
                    torchopt.stop_gradient(self.optim)
            return outer.detach() if backward else outer

        def entry_points(self) -> list[Any]:
            return [type(self.optim).step, torchopt.extract_state_dict, torchopt.recover_state_dict]

    return _InnerOuter(), _data(), {}


def _mlp(params: tuple[Any, ...], x: Any) -> Any:
    import torch

    w1, b1, w2, b2 = params
    return torch.tanh(x @ w1.t() + b1) @ w2.t() + b2


def _params() -> tuple[Any, ...]:
    net = _net()
    return tuple(p.detach().clone().requires_grad_() for p in net.parameters())


def _transformation(spec: list[tuple[str, dict[str, Any]]]) -> Any:
    import torchopt

    parts = []
    for fn, keywords in spec:
        owner = torchopt if hasattr(torchopt, fn) else torchopt.transform
        parts.append(getattr(owner, fn)(**_resolve(keywords)))
    return parts[0] if len(parts) == 1 else torchopt.chain(*parts)


def _func(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torchopt
    from torch import nn

    spec, options = FUNC[name]
    impl = _transformation(spec)
    inplace = options.get("inplace", False)
    params = _params()

    if options.get("func_optimizer"):
        class _FuncOptimizerStep(nn.Module):
            """Two ``FuncOptimizer.step(loss, params)`` on a functional MLP, then the query loss."""

            def __init__(self) -> None:
                super().__init__()
                self.params = nn.ParameterList(params)

            def forward(self, x: torch.Tensor, y: torch.Tensor, xq: torch.Tensor, yq: torch.Tensor) -> torch.Tensor:
                with torch.enable_grad():
                    optimizer = torchopt.FuncOptimizer(impl, inplace=inplace)
                    current = tuple(self.params) if not inplace else tuple(p.clone() for p in self.params)
                    for _ in range(2):
                        current = optimizer.step(F.mse_loss(_mlp(current, x), y), current)
                    return F.mse_loss(_mlp(current, xq), yq)

            def entry_points(self) -> list[Any]:
                return [torchopt.FuncOptimizer.step]

        return _FuncOptimizerStep(), _data(), {}

    class _FunctionalStep(nn.Module):
        """Two updates of the functional API: ``init``, ``grad``, ``update``, ``apply_updates``."""

        def __init__(self) -> None:
            super().__init__()
            self.params = nn.ParameterList(params)

        def forward(self, x: torch.Tensor, y: torch.Tensor, xq: torch.Tensor, yq: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                current = tuple(self.params)
                if inplace:
                    current = tuple(p.detach().clone().requires_grad_() for p in current)
                state = impl.init(current)
                for _ in range(2):
                    loss = F.mse_loss(_mlp(current, x), y)
                    grads = torch.autograd.grad(loss, current, create_graph=not inplace)
                    updates, state = impl.update(grads, state, params=current, inplace=inplace)
                    if inplace:
                        with torch.no_grad():
                            current = torchopt.apply_updates(current, updates, inplace=True)
                    else:
                        current = torchopt.apply_updates(current, updates, inplace=False)
                return F.mse_loss(_mlp(current, xq), yq)

        def entry_points(self) -> list[Any]:
            return [impl.init, impl.update, torchopt.apply_updates]

    return _FunctionalStep(), _data(), {}


def _optim(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torchopt

    from gt_calls import OptimizerStep

    cls, keywords = OPTIM[name]
    net = _net()
    if cls == "Optimizer":
        optimizer = torchopt.Optimizer(net.parameters(), torchopt.chain(torchopt.clip_grad_norm(max_norm=0.5),
                                                                        torchopt.adam(lr=1e-2)))
    else:
        optimizer = getattr(torchopt, cls)(net.parameters(), **keywords)
    x, y, _, _ = _data()
    grads = torch.autograd.grad(F.mse_loss(net(x), y), list(net.parameters()))
    return OptimizerStep(net, optimizer), tuple(g.detach() for g in grads), {}


def _implicit(name: str) -> Built:
    import torch
    import torchopt
    from torch import nn
    from torchopt.diff.implicit import ImplicitMetaGradientModule, custom_root

    gen = torch.Generator().manual_seed(3)
    X, y = torch.randn(6, DIM, generator=gen), torch.randn(6, generator=gen)

    if name.startswith("implicit.linalg."):
        A = X.t() @ X + torch.eye(DIM)
        b = X.t() @ y
        fn = name.split(".")[-1]
        if fn == "cg":
            return _call(lambda A, b: torchopt.linalg.cg(lambda v: A @ v, b, maxiter=8), [torchopt.linalg.cg]), (A, b), {}
        if fn == "ns":
            return _call(lambda A, b: torchopt.linalg.ns(A / 40.0, b, maxiter=5), [torchopt.linalg.ns]), (A, b), {}
        return _call(lambda A, b: torchopt.linalg.ns_inv(A / 40.0, maxiter=5), [torchopt.linalg.ns_inv]), (A, b), {}

    if name.startswith("implicit.ImplicitMetaGradientModule"):
        if name.endswith("objective"):
            class InnerNet(ImplicitMetaGradientModule, linear_solve=torchopt.linear_solve.solve_normal_cg(maxiter=5)):
                def __init__(self, meta_net: nn.Module) -> None:
                    super().__init__()
                    self.meta_net = meta_net
                    self.net = _net()
                    self.lam = 1.0

                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    return self.net(x)

                def objective(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                    reg = sum(((p - q) ** 2).sum() for p, q in zip(self.net.parameters(), self.meta_net.parameters()))
                    return torch.nn.functional.mse_loss(self(x), y) + self.lam * reg

                def solve(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                    _descend(self, lambda: self.objective(x, y))
                    return self
        else:
            class InnerNet(ImplicitMetaGradientModule,  # type: ignore[no-redef]
                           linear_solve=torchopt.linear_solve.solve_cg(maxiter=5)):
                def __init__(self, meta_net: nn.Module) -> None:
                    super().__init__()
                    self.meta_net = meta_net
                    self.net = nn.Linear(DIM, OUT, bias=False)
                    with torch.no_grad():
                        self.net.weight.copy_(meta_net.weight)

                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    return self.net(x)

                def optimality(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                    """The gradient of ``0.5 |x W^T - y|^2 / B + 0.5 |W - W_meta|^2``, written out."""
                    w, meta_w = self.net.weight, self.meta_net.weight
                    return ((x @ w.t() - y).t() @ x / x.shape[0] + (w - meta_w),)

                def solve(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                    _descend(self, lambda: 0.5 * ((self(x) - y) ** 2).sum() / x.shape[0]
                             + 0.5 * ((self.net.weight - self.meta_net.weight) ** 2).sum())
                    return self

        meta_net = _net() if name.endswith("objective") else nn.Linear(DIM, OUT, bias=False)
        # Built here, not in forward: Dynamo fails internally on a ``MetaGradientModule`` constructed in a compiled
        # frame (its ``__new__`` runs before ``nn.Module.__init__``). The meta-network is in training mode now, as
        # torchopt requires of the meta-modules among the inner network's arguments.
        inner_net = InnerNet(meta_net)

        class _ImplicitModuleStep(nn.Module):
            """iMAML's step: solve the inner problem, the outer loss, its implicit meta-gradient."""

            def __init__(self) -> None:
                super().__init__()
                # Kept out of the module tree (the inner network's parameters stop being leaves after a solve).
                self.nets = [meta_net, inner_net]

            def forward(self, x: torch.Tensor, y: torch.Tensor, xq: torch.Tensor, yq: torch.Tensor) -> torch.Tensor:
                meta_net, inner = self.nets
                with torch.enable_grad():
                    optimal = inner.solve(x, y)
                    outer = torch.nn.functional.mse_loss(optimal(xq), yq)
                    grads = torch.autograd.grad(outer, tuple(meta_net.parameters()))
                return outer.detach() + sum(g.sum() for g in grads)

            def entry_points(self) -> list[Any]:
                return [InnerNet.solve, ImplicitMetaGradientModule]

        return _ImplicitModuleStep(), _data(), {}

    variant = name.split(".", 1)[1]
    solve: Any = None
    if variant == "custom_root.solve_cg":
        solve = torchopt.linear_solve.solve_cg(maxiter=10)
    elif variant == "custom_root.solve_inv":
        solve = torchopt.linear_solve.solve_inv()
    elif variant == "custom_root.solve_inv.ns":
        solve = torchopt.linear_solve.solve_inv(ns=True, maxiter=5, alpha=0.02)
    has_aux = variant == "custom_root.has_aux"
    two = variant == "custom_root.two_argnums"

    def optimality(w: torch.Tensor, lam: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The gradient of the ridge objective ``0.5 |X w - y|^2 + 0.5 lam |w|^2``."""
        return X.t() @ (X @ w - y) + lam * w

    def inner_solver(w0: torch.Tensor, lam: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> Any:
        A = X.t() @ X + lam * torch.eye(X.shape[1])
        w = torch.linalg.solve(A, X.t() @ y)
        return (w, {"residual": 0.0}) if has_aux else w

    solver = custom_root(optimality, argnums=(1, 2) if two else 1, has_aux=has_aux, solve=solve)(inner_solver)

    class _RidgeMetaGrad(nn.Module):
        """The ridge solution, a validation loss and its gradient to the regulariser (implicit)."""

        def __init__(self) -> None:
            super().__init__()
            self.log_lam = nn.Parameter(torch.zeros(()))

        def forward(self, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                lam = self.log_lam.exp()
                Xr = X.clone().requires_grad_(two)
                out = solver(torch.zeros(X.shape[1]), lam, Xr, y)
                w = out[0] if has_aux else out
                loss = ((X @ w - y) ** 2).mean()
                inputs = (self.log_lam, Xr) if two else (self.log_lam,)
                grads = torch.autograd.grad(loss, inputs)
            return loss.detach() + sum(g.sum() for g in grads)

        def entry_points(self) -> list[Any]:
            return [custom_root, solver]

    return _RidgeMetaGrad(), (X, y), {}


def _descend(module: Any, loss_fn: Any, steps: int = 2, lr: float = 0.1) -> None:
    """The inner solve of an ``ImplicitMetaGradientModule``: plain gradient descent on ``module.net``'s
    parameters, in place (after a first solve they are the implicit function's outputs, not leaves)."""
    import torch

    with torch.enable_grad():
        for _ in range(steps):
            params = tuple(module.net.parameters())
            grads = torch.autograd.grad(loss_fn(), params)
            with torch.no_grad():
                for p, g in zip(params, grads):
                    p.sub_(lr * g)


def _call(fn: Any, entries: list[Any]) -> Any:
    from torch import nn

    class _Call(nn.Module):
        def forward(self, *args: Any) -> Any:
            return fn(*args)

        def entry_points(self) -> list[Any]:
            return entries

    return _Call()


def _zero(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torchopt.diff.zero_order import ZeroOrderGradientModule, zero_order

    distribution = torch.distributions.Normal(torch.tensor(0.0), torch.tensor(1.0))
    if name == "zero.ZeroOrderGradientModule":
        class Net(ZeroOrderGradientModule, method="antithetic", num_samples=3, sigma=0.1):
            def __init__(self) -> None:
                super().__init__()
                self.net = _net()
                self.distribution = distribution

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                return F.mse_loss(self.net(x), y)

            def sample(self, sample_shape: torch.Size = torch.Size()) -> torch.Tensor:  # noqa: B008
                return self.distribution.sample(sample_shape)

        net = Net()

        class _ZeroModuleStep(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = net

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                with torch.enable_grad():
                    loss = self.net(x, y)
                    grads = torch.autograd.grad(loss, tuple(self.net.parameters()))
                return loss.detach() + sum(g.sum() for g in grads)

            def entry_points(self) -> list[Any]:
                return [Net.forward]

        x, y, _, _ = _data()
        return _ZeroModuleStep(), (x, y), {}

    method = name.split(".")[-1]

    @zero_order(distribution, method=method, argnums=0, num_samples=2, sigma=0.1)
    def loss_fn(params: tuple[torch.Tensor, ...], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(_mlp(params, x), y)

    params = _params()

    class _ZeroOrderStep(nn.Module):
        """A zero-order estimate of the loss's gradient and one SGD step with it."""

        def __init__(self) -> None:
            super().__init__()
            self.params = nn.ParameterList(params)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                current = tuple(self.params)
                loss = loss_fn(current, x, y)
                grads = torch.autograd.grad(loss, current)
            return F.mse_loss(_mlp(tuple(p - 0.1 * g for p, g in zip(current, grads)), x), y)

        def entry_points(self) -> list[Any]:
            return [zero_order, loss_fn]

    x, y, _, _ = _data()
    return _ZeroOrderStep(), (x, y), {}


def _utils(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torchopt
    from torch import nn

    net = _net()
    variant = name.split(".", 1)[1]
    optim = torchopt.MetaSGD(net, lr=0.1)

    class _UtilStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.optim = optim

        def forward(self, x: torch.Tensor, y: torch.Tensor, xq: torch.Tensor, yq: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                if variant.startswith("module_clone"):
                    clone = torchopt.module_clone(self.net, by=variant.split(".")[1])
                    return F.mse_loss(clone(xq), yq)
                if variant == "nn.reparametrize":
                    params = {k: v * 1.01 for k, v in self.net.named_parameters()}
                    with torchopt.nn.reparametrize(self.net, params):
                        return F.mse_loss(self.net(xq), yq)
                state = torchopt.extract_state_dict(self.net)
                self.optim.step(F.mse_loss(self.net(x), y))
                outer = F.mse_loss(self.net(xq), yq)
                torchopt.stop_gradient(self.net)
                torchopt.stop_gradient(self.optim)
                torchopt.recover_state_dict(self.net, state)
            return outer

        def entry_points(self) -> list[Any]:
            return {"module_clone": [torchopt.module_clone], "nn": [torchopt.nn.reparametrize],
                    "stop_gradient": [torchopt.stop_gradient]}[variant.split(".")[0]]

    return _UtilStep(), _data(), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    family, rest = name.split(".", 1)
    if family == "meta":
        return _meta(rest)
    if family == "func":
        return _func(rest)
    if family == "optim":
        return _optim(rest)
    if family == "implicit":
        return _implicit(name)
    if family == "zero":
        return _zero(name)
    return _utils(name)
