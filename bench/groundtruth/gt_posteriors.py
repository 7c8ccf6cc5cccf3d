"""Ground-truth bench, posteriors: Bayesian posterior approximations built on ``torch.func``, as transforms.

posteriors gives every method the same shape: ``transform = method.build(log_posterior, ...)``, then
``state = transform.init(params)`` (a frozen ``tensordict.TensorClass``) and ``state, aux =
transform.update(state, batch, inplace=...)``, over parameter trees (``optree``) and a ``log_posterior(params,
batch) -> (value, aux)`` the user writes with ``torch.func.functional_call``. The updates take gradients,
Jacobians, Hessians and GGNs with ``torch.func`` (``grad_and_value``, ``jacrev``, ``vmap`` through
``per_samplify``, ``jvp`` / ``vjp`` in the curvature helpers), map over trees with ``flexi_tree_map`` (in place or
not) and write scalars back with ``tree_insert_``. So the tables cover, on a tiny classifier (an MLP 3 -> 5 -> 2,
batch 4) or a linear regression on a single tensor:

- ``UPDATES``: ``transform.update`` of every method but VI, out of place and (mostly) in place: the SG-MCMC
  samplers (``sgld``, ``sghmc``, ``sgnht``, ``baoa``, ``sglrw``) with their options (gradient noise ``beta``,
  ``temperature`` and ``lr`` as schedules, scalar momenta, ``xi``); the Laplace approximations (``diag_fisher``,
  ``dense_fisher`` with ``per_sample`` on and off, ``diag_ggn``, ``dense_ggn``, ``dense_hessian`` with
  ``epsilon`` and ``rescale``); the extended Kalman filters (``ekf.diag_fisher``, ``ekf.dense_fisher``, with
  transition noise and per-sample log likelihoods); ``posteriors.optim`` (a ``torch.optim`` optimizer, its
  backward and step) and ``posteriors.torchopt`` (a functional torchopt SGD). The VI updates (``vi.diag``,
  ``vi.dense``) and torchopt's Adam run eagerly, but Dynamo fails inside torchopt's tree maps over their states, so
  they are left out; VI is covered by its ``init``, ``nelbo`` and ``sample``;
- ``CALLS``: ``init`` of transforms of each family, ``sample`` of each Gaussian state (one and several samples),
  ``vi.diag.nelbo`` and ``vi.dense.nelbo``, the curvature helpers (``hvp``, ``fvp``, ``empirical_fisher``,
  ``ggnvp``, ``ggn``, ``diag_ggn``, ``cg``, ``linearized_forward_diag``), the Gaussian helpers
  (``diag_normal_log_prob``, ``diag_normal_sample``, ``L_from_flat``, ``L_to_flat``, ``cumulative_mean_and_cov``),
  ``per_samplify``, ``model_to_function`` and the tree helpers (``tree_size``, ``tree_extract``, ``tree_insert``,
  ``tree_insert_``, ``extract_requires_grad``, ``insert_requires_grad``, ``extract_requires_grad_and_func``,
  ``inplacify``, ``tree_map_inplacify_``, ``flexi_tree_map``);
- ``LOOPS``: a few updates in a row, what a compiled sampling loop runs (SGLD, SGHMC).

Random weights and data, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, CLASSES, BATCH = 3, 5, 2, 4

# Update model name -> (module under ``posteriors``, ``build`` keywords, log density kind, inplace).
# Kinds: "post" (log posterior, scalar), "post_ps" (per-sample vector), "ggn" (forward + outer log likelihood),
# "lik" / "lik_ps" (log likelihood, for the EKF), "loss" (negative, for posteriors.optim / torchopt), "linreg"
# (a log posterior over one tensor, not a dict).
_SGMCMC: dict[str, tuple[str, dict[str, Any]]] = {
    "sgld": ("sgmcmc.sgld", {"lr": 1e-3}),
    "sgld.beta_temperature": ("sgmcmc.sgld", {"lr": 1e-3, "beta": 0.1, "temperature": 0.5}),
    "sgld.schedules": ("sgmcmc.sgld", {"lr": "schedule", "temperature": "schedule"}),
    "sghmc": ("sgmcmc.sghmc", {"lr": 1e-3}),
    "sghmc.beta_sigma.momenta": ("sgmcmc.sghmc", {"lr": 1e-3, "beta": 0.1, "sigma": 0.5, "momenta": 0.0}),
    "sghmc.schedules": ("sgmcmc.sghmc", {"lr": "schedule", "temperature": "schedule"}),
    "sgnht": ("sgmcmc.sgnht", {"lr": 1e-3}),
    "sgnht.xi_momenta": ("sgmcmc.sgnht", {"lr": 1e-3, "xi": 0.1, "momenta": 0.0, "beta": 0.1}),
    "baoa": ("sgmcmc.baoa", {"lr": 1e-3}),
    "baoa.momenta_temperature": ("sgmcmc.baoa", {"lr": 1e-3, "momenta": 0.0, "temperature": 0.5, "alpha": 0.1}),
    "sglrw": ("sgmcmc.sglrw", {"lr": 1e-3}),
    "sglrw.schedules": ("sgmcmc.sglrw", {"lr": "schedule", "temperature": "schedule"}),
}
UPDATES: dict[str, tuple[str, dict[str, Any], str, bool]] = {}
for _key, (_module, _kw) in _SGMCMC.items():
    UPDATES[f"{_key}.update"] = (_module, _kw, "post", False)
    if _key in ("sgld", "sghmc"):
        UPDATES[f"{_key}.update.inplace"] = (_module, _kw, "post", True)
UPDATES.update({
    "sgld.update.linreg": ("sgmcmc.sgld", {"lr": 1e-3}, "linreg", False),
    "sghmc.update.linreg.inplace": ("sgmcmc.sghmc", {"lr": 1e-3}, "linreg", True),
    "laplace.diag_fisher.update": ("laplace.diag_fisher", {}, "post", False),
    "laplace.diag_fisher.update.inplace": ("laplace.diag_fisher", {"init_prec_diag": 1.0}, "post", True),
    "laplace.diag_fisher.update.per_sample": ("laplace.diag_fisher", {"per_sample": True}, "post_ps", False),
    "laplace.dense_fisher.update": ("laplace.dense_fisher", {}, "post", False),
    "laplace.dense_fisher.update.inplace": ("laplace.dense_fisher", {"init_prec": 1.0}, "post", True),
    "laplace.dense_fisher.update.linreg": ("laplace.dense_fisher", {"init_prec": 1.0}, "linreg", False),
    "laplace.dense_fisher.update.per_sample": ("laplace.dense_fisher", {"per_sample": True}, "post_ps", False),
    "laplace.diag_ggn.update": ("laplace.diag_ggn", {}, "ggn", False),
    "laplace.dense_ggn.update": ("laplace.dense_ggn", {}, "ggn", False),
    "laplace.dense_hessian.update": ("laplace.dense_hessian", {}, "post", False),
    "laplace.dense_hessian.update.epsilon_rescale": ("laplace.dense_hessian", {"epsilon": 1e-3, "rescale": 2.0},
                                                     "post", False),
    "laplace.dense_hessian.update.linreg": ("laplace.dense_hessian", {"init_prec": 1.0}, "linreg", False),
    "ekf.diag_fisher.update": ("ekf.diag_fisher", {"lr": 1e-2}, "lik", False),
    "ekf.diag_fisher.update.inplace": ("ekf.diag_fisher", {"lr": 1e-2, "transition_sd": 0.1}, "lik", True),
    "ekf.diag_fisher.update.per_sample": ("ekf.diag_fisher", {"lr": 1e-2, "per_sample": True}, "lik_ps", False),
    "ekf.diag_fisher.update.schedule": ("ekf.diag_fisher", {"lr": "schedule"}, "lik", False),
    "ekf.dense_fisher.update": ("ekf.dense_fisher", {"lr": 1e-2}, "lik", False),
    "ekf.dense_fisher.update.inplace": ("ekf.dense_fisher", {"lr": 1e-2, "transition_cov": 0.1}, "lik", True),
    "ekf.dense_fisher.update.per_sample": ("ekf.dense_fisher", {"lr": 1e-2, "per_sample": True}, "lik_ps", False),
    # Built, not compiled (see ``HELD_OUT``): the states ``sample`` and ``init`` take.
    "vi.diag.update": ("vi.diag", {}, "post", False),
    "vi.dense.update": ("vi.dense", {}, "post", False),
    "optim.update.SGD": ("optim", {"optimizer": "SGD"}, "loss", True),
    "optim.update.Adam": ("optim", {"optimizer": "Adam"}, "loss", True),
    "torchopt.update.sgd.inplace": ("torchopt", {"optimizer": "sgd"}, "loss", True),
})
# Init model name -> the update model whose transform's ``init`` it compiles.
INITS = {f"{key.split('.update')[0]}.init": key for key in (
    "sgld.update", "sghmc.beta_sigma.momenta.update", "laplace.dense_fisher.update", "vi.diag.update",
    "vi.dense.update")}
# (The dense Laplace ``sample`` reshapes its draws as if every leaf were a vector and flattens a single draw to
# two dimensions: it runs on a vector of parameters with a sample shape only; the dense EKF and VI ``sample``
# ``vmap`` over the draws, so they too need a sample shape.)
SAMPLES = ("laplace.diag_fisher.sample", "laplace.diag_fisher.sample.shape", "vi.diag.sample", "vi.diag.sample.shape",
           "laplace.diag_ggn.sample", "ekf.diag_fisher.sample", "laplace.dense_fisher.sample.shape",
           "laplace.dense_hessian.sample.shape", "ekf.dense_fisher.sample.shape", "vi.dense.sample.shape")
FUNCTIONS = ("vi.diag.nelbo", "vi.dense.nelbo", "hvp", "fvp", "empirical_fisher", "empirical_fisher.normalize",
             "ggnvp", "ggn", "diag_ggn", "cg", "linearized_forward_diag", "diag_normal_log_prob",
             "diag_normal_sample", "L_from_flat", "L_to_flat", "cumulative_mean_and_cov",
             "per_samplify", "model_to_function", "tree_size", "tree_extract", "tree_insert_",
             "extract_requires_grad", "insert_requires_grad",
             "extract_requires_grad_and_func", "inplacify", "tree_map_inplacify_", "flexi_tree_map",
             "flexi_tree_map.inplace")
LOOPS = ("loop.sgld", "loop.sghmc.inplace")
# Update models that build and run eagerly but on which Dynamo fails inside the optimizer's tree maps: the VI updates
# and torchopt's Adam (its state trees do not match their updates' under Dynamo: "length mismatch"). Left out.
HELD_OUT = ("vi.diag.update", "vi.dense.update")


def names() -> list[str]:
    updates = [key for key in UPDATES if key not in HELD_OUT]
    return updates + list(INITS) + list(SAMPLES) + list(FUNCTIONS) + list(LOOPS)


class _Problem:
    """A tiny classifier as a function of its parameter tree, with the log densities posteriors takes."""

    def __init__(self) -> None:
        import torch
        from torch import nn

        self.model = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, CLASSES))
        self.params = {k: v.detach().clone() for k, v in self.model.named_parameters()}
        gen = torch.Generator().manual_seed(1)
        self.x = torch.randn(BATCH, DIM, generator=gen)
        self.y = torch.randint(0, CLASSES, (BATCH,), generator=gen)
        self.w = torch.randn(DIM, generator=gen)
        self.t = self.x @ self.w + 0.1 * torch.randn(BATCH, generator=gen)

    def logits(self, params: Any, x: Any) -> Any:
        from torch.func import functional_call

        return functional_call(self.model, params, (x,))

    def log_lik_ps(self, params: Any, batch: Any) -> Any:
        import torch

        x, y = batch
        logits = self.logits(params, x)
        return torch.distributions.Categorical(logits=logits).log_prob(y), logits

    def log_lik(self, params: Any, batch: Any) -> Any:
        values, logits = self.log_lik_ps(params, batch)
        return values.sum(), logits

    def log_post(self, params: Any, batch: Any) -> Any:
        import posteriors

        values, logits = self.log_lik_ps(params, batch)
        prior = posteriors.diag_normal_log_prob(params, sd_diag=1.0, normalize=False)
        return values.mean() + prior / 100.0, logits

    def log_post_ps(self, params: Any, batch: Any) -> Any:
        import posteriors

        values, logits = self.log_lik_ps(params, batch)
        prior = posteriors.diag_normal_log_prob(params, sd_diag=1.0, normalize=False)
        return values + prior / 100.0, logits

    def loss(self, params: Any, batch: Any) -> Any:
        value, logits = self.log_post(params, batch)
        return -value, logits

    def forward(self, params: Any, batch: Any) -> Any:
        logits = self.logits(params, batch[0])
        return logits, logits

    def outer_log_lik(self, logits: Any, batch: Any) -> Any:
        import torch

        return torch.distributions.Categorical(logits=logits).log_prob(batch[1]).sum()

    def linreg(self, w: Any, batch: Any) -> Any:
        x, t = batch
        pred = x @ w
        return -((pred - t) ** 2).sum() - 0.5 * (w**2).sum(), pred


def _schedule(step: Any) -> Any:
    """A decaying schedule of the step index (what posteriors calls with ``state.step``)."""
    return 1e-3 / (1.0 + step) ** 0.55


def _transform(name: str, problem: _Problem) -> tuple[Any, Any, Any]:
    """The transform of an update model, its module and its initial parameters."""
    import importlib

    import torch

    module_name, keywords, kind, _ = UPDATES[name]
    module = importlib.import_module(f"posteriors.{module_name}")
    kw = {k: (_schedule if v == "schedule" else v) for k, v in keywords.items()}
    params: Any = problem.params
    if kind == "linreg":
        params = torch.zeros(DIM)
    density = {"post": problem.log_post, "post_ps": problem.log_post_ps, "lik": problem.log_lik,
               "lik_ps": problem.log_lik_ps, "loss": problem.loss, "linreg": problem.linreg}.get(kind)
    if module_name == "optim":
        params = {k: v.clone().requires_grad_() for k, v in params.items()}
        return module.build(density, getattr(torch.optim, kw["optimizer"]), lr=1e-2), module, params
    if module_name == "torchopt":
        import torchopt

        return module.build(density, getattr(torchopt, kw["optimizer"])(lr=1e-2)), module, params
    if module_name.startswith("vi."):
        import torchopt

        return module.build(density, torchopt.adam(lr=1e-2), **kw), module, params
    if kind == "ggn":
        return module.build(problem.forward, problem.outer_log_lik, **kw), module, params
    return module.build(density, **kw), module, params


def _batch(problem: _Problem, name: str) -> tuple[Any, Any]:
    return (problem.x, problem.t) if UPDATES[name][2] == "linreg" else (problem.x, problem.y)


def _update(name: str) -> Built:
    import contextlib

    import torch

    from gt_calls import Run

    problem = _Problem()
    transform, module, params = _transform(name, problem)
    inplace = UPDATES[name][3]
    optimizer = UPDATES[name][0] == "optim"  # posteriors.optim runs ``loss.backward()``: gradients on in eval too

    class _Holder:
        state = transform.init(params)

    def update(owner: Any, x: Any, y: Any) -> Any:
        """One ``transform.update`` of the held state on the batch; in place, the state carries over."""
        with torch.enable_grad() if optimizer else contextlib.nullcontext():
            state, aux = transform.update(owner.state, (x, y), inplace=inplace)
        return state.params, aux

    return Run(_Holder(), update, [module.update]), _batch(problem, name), {}


def _init(name: str) -> Built:
    from gt_calls import Call

    problem = _Problem()
    key = INITS[name]
    transform, module, params = _transform(key, problem)
    return Call(transform.init), (params,), {}


def _sample(name: str) -> Built:
    import importlib

    import torch
    from optree import tree_map

    from gt_calls import Run

    method = name.split(".sample")[0]
    # The dense Laplace states sampled from are a linear regression's, from a unit precision: positive definite.
    key = {"laplace.dense_fisher": "laplace.dense_fisher.update.linreg",
           "laplace.dense_hessian": "laplace.dense_hessian.update.linreg"}.get(method, f"{method}.update")
    problem = _Problem()
    transform, module, params = _transform(key, problem)
    state = transform.init(params)
    state, _ = transform.update(state, _batch(problem, key), inplace=False)
    if method.startswith("laplace") or method.startswith("ekf"):
        state, _ = transform.update(state, _batch(problem, key), inplace=False)
    sample = importlib.import_module(f"posteriors.{method}").sample
    shape = torch.Size([3]) if name.endswith(".shape") else torch.Size([])

    def draw(owner: Any, scale: Any) -> Any:
        """Samples from the held Gaussian state (scaled, so the input is used)."""
        return tree_map(lambda v: v * scale, sample(owner, shape))

    return Run(state, draw, [sample]), (torch.tensor(1.0),), {}


def _call(entry: Any, body: Any) -> Any:
    """A ``gt_calls.Call`` of ``body`` (a bench lambda around a library function) entering ``entry``."""
    from gt_calls import Call

    class _Entered(Call):
        def entry_points(self) -> list[Any]:
            return [entry]

    return _Entered(body)


def _functions(name: str) -> Built:  # noqa: C901 (one table of small cases)
    import torch
    from torch.func import jacrev

    import posteriors
    import posteriors.tree_utils as tu
    import posteriors.utils as pu
    from gt_calls import Call, Run

    problem = _Problem()
    params, batch = problem.params, (problem.x, problem.y)
    tangents = {k: torch.ones_like(v) * 0.1 for k, v in params.items()}
    call_of = name.split(".")[0] if not name.startswith("vi.") else name

    def run(function: Any, body: Any, *inputs: Any) -> Built:
        return Run(problem.model, body, [function]), inputs, {}

    if name in ("vi.diag.nelbo", "vi.dense.nelbo"):
        import importlib

        module = importlib.import_module(f"posteriors.{name.rsplit('.', 1)[0]}")
        if name == "vi.diag.nelbo":
            sd = {k: torch.full_like(v, 0.3) for k, v in params.items()}
            return run(module.nelbo, lambda o, x, y: module.nelbo(params, sd, (x, y), problem.log_post,
                                                                   n_samples=2), *batch)
        size = posteriors.tree_size(params)
        L = posteriors.L_to_flat(torch.eye(size) * 0.3)
        return run(module.nelbo, lambda o, x, y: module.nelbo(params, L, (x, y), problem.log_post, stl=False),
                   *batch)
    if call_of == "hvp":
        return run(pu.hvp, lambda o, x, y: pu.hvp(lambda p: problem.log_post(p, (x, y)), (params,), (tangents,),
                                                  has_aux=True), *batch)
    if call_of == "fvp":
        norm = name.endswith("normalize")
        return run(pu.fvp, lambda o, x, y: pu.fvp(lambda p: problem.log_lik_ps(p, (x, y)), (params,),
                                                  (tangents,), has_aux=True, normalize=norm), *batch)
    if call_of == "empirical_fisher":
        norm = name.endswith("normalize")
        return run(pu.empirical_fisher, lambda o, x, y: pu.empirical_fisher(
            lambda p: problem.log_lik_ps(p, (x, y)), has_aux=True, normalize=norm)(params), *batch)
    if call_of == "ggnvp":
        return run(pu.ggnvp, lambda o, x, y: pu.ggnvp(
            lambda p: problem.logits(p, x), lambda z: -problem.outer_log_lik(z, (x, y)), (params,), (tangents,)),
            *batch)
    if call_of == "ggn":
        norm = name.endswith("normalize")
        return run(pu.ggn, lambda o, x, y: pu.ggn(lambda p: problem.logits(p, x),
                                                  lambda z: -problem.outer_log_lik(z, (x, y)), normalize=norm)(params),
                   *batch)
    if call_of == "diag_ggn":
        return run(pu.diag_ggn, lambda o, x, y: pu.diag_ggn(
            lambda p: problem.forward(p, (x, y)), lambda z: -problem.outer_log_lik(z, (x, y)),
            forward_has_aux=True)(params), *batch)
    if call_of == "cg":
        damping = 0.1 if name.endswith("damping") else 0.0
        gen = torch.Generator().manual_seed(5)
        a = torch.randn(6, 6, generator=gen)
        matrix = a @ a.T + torch.eye(6)
        return _call(pu.cg, lambda b: pu.cg(lambda v: matrix @ v, b, maxiter=10, damping=damping)), \
            (torch.randn(6, generator=gen),), {}
    if call_of == "linearized_forward_diag":
        sd = {k: torch.full_like(v, 0.1) for k, v in params.items()}
        return run(pu.linearized_forward_diag, lambda o, x, y: pu.linearized_forward_diag(
            problem.forward, params, (x, y), sd), *batch)
    if call_of == "diag_normal_log_prob":
        norm = not name.endswith("unnormalized")
        mean = {k: torch.zeros_like(v) for k, v in params.items()}
        sd = {k: torch.full_like(v, 0.5) for k, v in params.items()}
        return _call(pu.diag_normal_log_prob, lambda p: pu.diag_normal_log_prob(p, mean, sd, normalize=norm)), \
            (params,), {}
    if call_of == "diag_normal_sample":
        shape = torch.Size([2]) if name.endswith("shape") else torch.Size([])
        return _call(pu.diag_normal_sample, lambda m: pu.diag_normal_sample(m, 0.5, sample_shape=shape)), (params,), {}
    if name == "L_from_flat":
        return Call(pu.L_from_flat), (torch.randn(10, generator=torch.Generator().manual_seed(6)),), {}
    if name == "L_to_flat":
        return Call(pu.L_to_flat), (torch.tril(torch.randn(4, 4, generator=torch.Generator().manual_seed(6))),), {}
    if name == "cumulative_mean_and_cov":
        return Call(pu.cumulative_mean_and_cov), (torch.randn(5, 3, generator=torch.Generator().manual_seed(6)),), {}
    if name == "per_samplify":
        return run(pu.per_samplify, lambda o, x, y: pu.per_samplify(problem.log_post)(params, (x, y)), *batch)
    if name == "model_to_function":
        function = pu.model_to_function(problem.model)
        return run(pu.model_to_function, lambda o, x: function(params, x), problem.x)
    if name == "tree_size":
        return _call(tu.tree_size, lambda p: torch.tensor(float(tu.tree_size(p))) + p["0.bias"].sum()), (params,), {}
    if name == "tree_extract":
        return _call(tu.tree_extract, lambda p: tu.tree_extract(p, lambda t: t.ndim > 1)), (params,), {}
    if name in ("tree_insert", "tree_insert_"):
        sub = {k: v * 2.0 for k, v in params.items()}
        function = getattr(tu, name)
        return _call(function, lambda p: function({k: v.clone() for k, v in p.items()}, sub, lambda t: t.ndim > 1)), \
            (params,), {}
    if name == "extract_requires_grad":
        mixed = {k: v.clone().requires_grad_(k.endswith("weight")) for k, v in params.items()}
        return Call(tu.extract_requires_grad), (mixed,), {}
    if name in ("insert_requires_grad", "insert_requires_grad_"):
        mixed = {k: v.clone().requires_grad_(k.endswith("weight")) for k, v in params.items()}
        sub = {k: v.detach() * 2.0 for k, v in mixed.items()}
        function = getattr(tu, name)
        if name.endswith("_"):
            fresh = {k: v.detach().clone() for k, v in mixed.items()}
            return _call(function, lambda s: function(fresh, s)), (sub,), {}
        return _call(function, lambda s: function(mixed, s)), (sub,), {}
    if name == "extract_requires_grad_and_func":
        mixed = {k: v.clone().requires_grad_(k.endswith("weight")) for k, v in params.items()}

        def body(owner: Any, x: Any, y: Any) -> Any:
            sub, func = tu.extract_requires_grad_and_func(mixed, problem.log_post)
            grads = jacrev(lambda p: func(p, (x, y))[0])(sub)
            return grads

        return run(tu.extract_requires_grad_and_func, body, *batch)
    if name == "inplacify":
        return _call(tu.inplacify, lambda p: tu.inplacify(torch.mul)(p.clone(), 2.0)), (problem.x,), {}
    if name == "tree_map_inplacify_":
        return _call(tu.tree_map_inplacify_, lambda p: tu.tree_map_inplacify_(
            lambda a, b: a + b, {k: v.clone() for k, v in p.items()}, tangents)), (params,), {}
    inplace = name.endswith("inplace")
    return _call(tu.flexi_tree_map, lambda p: tu.flexi_tree_map(
        lambda a, b: a * 0.9 + b, {k: v.clone() for k, v in p.items()}, tangents, inplace=inplace)), (params,), {}


def _loop(name: str) -> Built:
    import posteriors

    from gt_calls import Run

    key = {"loop.sgld": "sgld.update", "loop.sghmc.inplace": "sghmc.update.inplace"}[name]
    problem = _Problem()
    transform, module, params = _transform(key, problem)
    inplace = UPDATES[key][3]

    class _Holder:
        state = transform.init(params)

    def loop(owner: Any, x: Any, y: Any) -> Any:
        """Three updates over halves and the whole of the batch, then the state's parameters' size."""
        state = owner.state
        for batch in ((x[:2], y[:2]), (x[2:], y[2:]), (x, y)):
            state, _ = transform.update(state, batch, inplace=inplace)
        if inplace:
            owner.state = state
        return state.params, posteriors.tree_size(state.params)

    return Run(_Holder(), loop, [module.update]), (problem.x, problem.y), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in UPDATES:
        return _update(name)
    if name in INITS:
        return _init(name)
    if name in SAMPLES:
        return _sample(name)
    if name in LOOPS:
        return _loop(name)
    return _functions(name)
