"""Ground-truth bench, flowtorch: its bijectors run both ways, and its ``Flow`` distributions trained and sampled.

flowtorch (Meta's normalizing-flow library) builds everything lazily: ``flowtorch.bijectors.X(...)``
without a ``shape`` is a ``Lazy`` that ``flowtorch.distributions.Flow(base, lazy)`` (or ``lazy(shape=...)``)
instantiates. A bijector's ``forward`` / ``inverse`` return ``BijectiveTensor`` (a tensor subclass with
``__torch_function__``) that remembers its parent and log-det-Jacobian while the flow graph is recorded, so
that ``log_prob`` of a draw reads the cache instead of inverting. The tables cover, on 3-dimensional data
at batch 4 with tiny autoregressive networks (``DenseAutoregressive(hidden_dims=(8,))``):

- ``BIJECTORS``: every standard bijector of ``flowtorch.bijectors`` (``Affine``, ``AffineAutoregressive``,
  ``AffineFixed``, ``ELU``, ``Exp``, ``LeakyReLU``, ``Permute`` with a given and a random permutation,
  ``Power``, ``Sigmoid``, ``Softplus``, ``Spline`` and ``SplineAutoregressive`` of linear and quadratic
  order, ``Tanh``) and the meta bijectors ``Invert`` and ``Compose``, instantiated with a shape: their
  ``forward`` and ``inverse`` (the autoregressive inverse loops over the dimensions), and for ``LADJ``
  ``log_abs_det_jacobian`` on plain tensors (the uncached path) and after a ``forward`` (the cached one);
- ``FLOWS``: ``Flow`` distributions as its README builds them (an inverse autoregressive flow, neural spline
  flows, a masked autoregressive flow through ``Invert``, ``Compose`` stacks with ``Permute``, elementwise
  flows into bounded or positive supports, a batched and a scalar base), each with ``log_prob`` of data and
  a maximum-likelihood train step (``-log_prob(x).mean()``, backward, Adam step); the flows of ``FULL``
  also with ``rsample``, ``sample`` and ``rsample_log_prob`` (a draw scored through the cache);
- ``EXTRA``: the same steps with the flow graph not recorded (``set_record_flow_graph(False)``, and
  ``set_requires_log_detJ(False)``), ``normalize`` / ``rnormalize``, ``NealsFunnel``
  (``rsample`` and ``log_prob``) and the variational-inference step of flowtorch's tutorial (fit a flow to
  Neal's funnel by the reverse KL), and ``flowtorch.ops.monotonic_rational_spline`` called directly.

Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, BATCH, HIDDEN, BINS = 3, 4, 8, 4

# Bijector name -> (class of ``flowtorch.bijectors``, keywords, autoregressive params, the data's support).
# Supports: "real" (normal draws), "positive", "unit" (inside (0, 1)), "sym" (inside (-1, 1)).
BIJECTORS: dict[str, tuple[str, dict[str, Any], bool, str]] = {
    "Affine": ("Affine", {}, False, "real"),
    "AffineAutoregressive": ("AffineAutoregressive", {}, True, "real"),
    "AffineFixed": ("AffineFixed", {"loc": 1.0, "scale": 2.0}, False, "real"),
    "ELU": ("ELU", {}, False, "real"),
    "Exp": ("Exp", {}, False, "real"),
    "LeakyReLU": ("LeakyReLU", {}, False, "real"),
    "Permute": ("Permute", {"permutation": [2, 0, 1]}, False, "real"),
    "Permute.random": ("Permute", {}, False, "real"),
    "Power": ("Power", {"exponent": 3.0}, False, "positive"),
    "Sigmoid": ("Sigmoid", {}, False, "real"),
    "Softplus": ("Softplus", {}, False, "real"),
    "Spline": ("Spline", {"count_bins": BINS}, False, "real"),
    "Spline.quadratic": ("Spline", {"count_bins": BINS, "order": "quadratic"}, False, "real"),
    "SplineAutoregressive": ("SplineAutoregressive", {"count_bins": BINS}, True, "real"),
    "SplineAutoregressive.quadratic": ("SplineAutoregressive", {"count_bins": BINS, "order": "quadratic"}, True,
                                       "real"),
    "Tanh": ("Tanh", {}, False, "real"),
    "Invert.AffineAutoregressive": ("Invert", {}, True, "real"),
    "Compose": ("Compose", {}, True, "real"),
}
# Bijectors whose ``log_abs_det_jacobian`` is compiled too (uncached and cached).
LADJ = ("Affine", "AffineAutoregressive", "Permute", "Power", "Sigmoid", "Spline",
        "SplineAutoregressive", "Invert.AffineAutoregressive", "Compose")
# What the inverse of each bijector takes: a point of its codomain.
CODOMAIN = {"Exp": "positive", "Power": "positive", "Softplus": "positive", "Sigmoid": "unit", "Tanh": "sym",
            "ELU": "positive"}

# Flow name -> the data's support (the flow's codomain); ``_flow_bijector`` builds each.
FLOWS: dict[str, str] = {
    "IAF": "real", "IAF.hidden2_elu": "real", "IAF.permutation": "real", "NSF": "real", "NSF.quadratic": "real",
    "MAF": "real", "Spline": "real", "Affine": "real", "Compose.stack": "real", "Compose.tanh": "sym",
    "Compose.sigmoid": "unit", "Compose.leaky": "real",
    "LogNormal": "positive", "Power": "positive", "batched": "real", "scalar": "real",
}
FULL = ("IAF", "NSF", "MAF", "Compose.stack", "Spline")  # flows sampled too
STEPS = ("log_prob", "train")
SAMPLING = ("rsample", "sample", "rsample_log_prob")
EXTRA = ("nocache.IAF.rsample_log_prob", "nocache.Compose.stack.rsample_log_prob", "nocache.IAF.train",
         "no_log_detJ.IAF.rsample", "no_log_detJ.LogNormal.rsample", "IAF.normalize", "IAF.rnormalize",
         "NealsFunnel.rsample_log_prob", "NealsFunnel.vi_train",
         "ops.monotonic_rational_spline", "ops.monotonic_rational_spline.inverse")


def names() -> list[str]:
    models = [f"bijector.{b}.{m}" for b in BIJECTORS for m in ("forward", "inverse")]
    models += [f"bijector.{b}.{m}" for b in LADJ for m in ("log_abs_det_jacobian", "log_abs_det_jacobian.cached")]
    models += [f"flow.{f}.{s}" for f in FLOWS for s in STEPS + (SAMPLING if f in FULL else ())]
    return models + list(EXTRA)


def _data(support: str, shape: tuple[int, ...] = (BATCH, DIM), seed: int = 1) -> Any:
    import torch

    gen = torch.Generator().manual_seed(seed)
    if support == "positive":
        return torch.rand(*shape, generator=gen) + 0.5
    if support == "unit":
        return torch.rand(*shape, generator=gen) * 0.8 + 0.1
    if support == "sym":
        return torch.rand(*shape, generator=gen) * 1.6 - 0.8
    return torch.randn(*shape, generator=gen)


def _dense(**keywords: Any) -> Any:
    import flowtorch.parameters as P

    return P.DenseAutoregressive(hidden_dims=keywords.pop("hidden_dims", (HIDDEN,)), **keywords)


def _lazy_bijector(name: str) -> Any:
    """The lazy bijector ``name`` of ``BIJECTORS`` (no shape yet)."""
    import torch

    import flowtorch.bijectors as B

    cls, keywords, autoregressive, _ = BIJECTORS[name]
    keywords = dict(keywords)
    if "permutation" in keywords:
        keywords["permutation"] = torch.tensor(keywords["permutation"])
    if cls == "Invert":
        return B.Invert(B.AffineAutoregressive(_dense()))
    if cls == "Compose":
        return B.Compose([B.AffineAutoregressive(_dense()), B.Permute(permutation=torch.tensor([2, 0, 1])),
                          B.SplineAutoregressive(_dense(), count_bins=BINS)])
    if autoregressive:
        return getattr(B, cls)(_dense(), **keywords)
    return getattr(B, cls)(**keywords)


def _flow_bijector(name: str) -> Any:
    """The lazy bijector of flow ``name`` of ``FLOWS``."""
    import torch
    from torch import nn

    import flowtorch.bijectors as B

    table: dict[str, Callable[[], Any]] = {
        "IAF": lambda: B.AffineAutoregressive(_dense()),
        "IAF.hidden2_elu": lambda: B.AffineAutoregressive(_dense(hidden_dims=(HIDDEN, HIDDEN), nonlinearity=nn.ELU)),
        "IAF.permutation": lambda: B.AffineAutoregressive(_dense(permutation=torch.tensor([0, 1, 2]))),
        "NSF": lambda: B.SplineAutoregressive(_dense(), count_bins=BINS),
        "NSF.quadratic": lambda: B.SplineAutoregressive(_dense(), count_bins=BINS, order="quadratic"),
        "MAF": lambda: B.Invert(B.AffineAutoregressive(_dense())),
        "Spline": lambda: B.Spline(count_bins=BINS),
        "Affine": lambda: B.Affine(),
        "Compose.stack": lambda: B.Compose([
            B.AffineAutoregressive(_dense()), B.Permute(permutation=torch.tensor([2, 0, 1])),
            B.SplineAutoregressive(_dense(), count_bins=BINS), B.Permute(permutation=torch.tensor([1, 2, 0])),
            B.AffineAutoregressive(_dense())]),
        "Compose.tanh": lambda: B.Compose([B.Affine(), B.Tanh()]),
        "Compose.sigmoid": lambda: B.Compose([B.Affine(), B.Sigmoid()]),
        "Compose.leaky": lambda: B.Compose([B.Affine(), B.LeakyReLU(), B.AffineFixed(loc=0.5, scale=2.0)]),
        "LogNormal": lambda: B.Compose([B.Affine(), B.AffineFixed(loc=0.5, scale=0.5), B.Exp()]),
        "Power": lambda: B.Compose([B.Affine(), B.Exp(), B.Power(exponent=0.5)]),
        "batched": lambda: B.AffineAutoregressive(_dense()),
        "scalar": lambda: B.Affine(),
    }
    return table[name]()


def _flow(name: str) -> Any:
    import torch
    from torch.distributions import Independent, Normal

    import flowtorch.distributions as D

    if name == "scalar":  # a univariate base: event shape ()
        base: Any = Normal(torch.zeros(()), torch.ones(()))
    elif name == "batched":  # two independent 3-dimensional flows' worth of base: batch shape (2,)
        base = Independent(Normal(torch.zeros(2, DIM), torch.ones(2, DIM)), 1)
    else:
        base = Independent(Normal(torch.zeros(DIM), torch.ones(DIM)), 1)
    return D.Flow(base, _flow_bijector(name))


def _flow_data(name: str) -> Any:
    if name == "scalar":
        return _data("real", (BATCH,))
    if name == "batched":
        return _data("real", (BATCH, 2, DIM))
    return _data(FLOWS[name])


class _Flow:
    """Runners of a flow's steps, as users write them (each ``run(flow, *inputs)``)."""

    @staticmethod
    def log_prob(flow: Any, x: Any) -> Any:
        return flow.log_prob(x)

    @staticmethod
    def rsample(flow: Any) -> Any:
        return flow.rsample((BATCH,))

    @staticmethod
    def sample(flow: Any) -> Any:
        return flow.sample((BATCH,))

    @staticmethod
    def rsample_log_prob(flow: Any) -> Any:
        z = flow.rsample((BATCH,))
        return z, flow.log_prob(z)


def _train(flow: Any, entries: list[Any]) -> Any:
    """A maximum-likelihood step: ``-flow.log_prob(x).mean()``, backward, Adam."""
    import torch

    from gt_calls import OptimizerStep

    optimizer = torch.optim.Adam(flow.parameters(), lr=1e-2)

    def loss(x: torch.Tensor) -> torch.Tensor:
        return -flow.log_prob(x).mean()

    class _FlowStep(OptimizerStep):
        def entry_points(self) -> list[Any]:
            return entries + [type(optimizer).step]

    return _FlowStep(flow, optimizer, loss)


def _bijector(name: str) -> Built:
    import torch

    from gt_calls import Method, Run

    parts = name.split(".")
    cached = parts[-1] == "cached"
    method = parts[-2] if cached else parts[-1]
    key = ".".join(parts[1:-2] if cached else parts[1:-1])
    bijector = _lazy_bijector(key)(shape=torch.Size([DIM]))
    x = _data(BIJECTORS[key][3])
    if method == "forward":
        return Method(bijector, "forward"), (x,), {}
    if method == "inverse":
        return Method(bijector, "inverse"), (_data(CODOMAIN.get(key, "real"), seed=2),), {}
    if cached:  # the log-det-Jacobian read from the ``BijectiveTensor`` that ``forward`` returned
        def forward_ladj(owner: Any, x: torch.Tensor) -> Any:
            y = owner.forward(x)
            return y, owner.log_abs_det_jacobian(x, y)

        return Run(bijector, forward_ladj, [type(bijector).forward, type(bijector).log_abs_det_jacobian]), (x,), {}
    with torch.no_grad():
        y = bijector.forward(x).as_subclass(torch.Tensor).clone()  # a plain tensor: nothing cached
    return Method(bijector, "log_abs_det_jacobian"), (x, y), {}


def _flow_model(name: str) -> Built:
    from gt_calls import Method, Run

    import flowtorch.distributions as D

    flow_name, step = name[len("flow."):].rsplit(".", 1)
    flow = _flow(flow_name)
    if step == "train":
        return _train(flow, [D.Flow.log_prob]), (_flow_data(flow_name),), {}
    if step == "log_prob":
        return Method(flow, "log_prob"), (_flow_data(flow_name),), {}
    entries = [getattr(D.Flow, "rsample" if step == "rsample_log_prob" else step)]
    if step == "rsample_log_prob":
        entries.append(D.Flow.log_prob)
    return Run(flow, getattr(_Flow, step), entries), (), {}


def _extra(name: str) -> Built:
    import torch

    import flowtorch.distributions as D
    from flowtorch.bijectors.utils import set_record_flow_graph, set_requires_log_detJ
    from gt_calls import Call, Method, Run

    if name.startswith("nocache.") or name.startswith("no_log_detJ."):
        switch, rest = name.split(".", 1)
        flow_name, step = rest.rsplit(".", 1)
        flow = _flow(flow_name)
        context = set_record_flow_graph if switch == "nocache" else set_requires_log_detJ
        if step == "train":
            inner = _train(flow, [D.Flow.log_prob])

            def train(owner: Any, x: torch.Tensor) -> Any:
                with context(False):
                    return inner(x)

            return Run(inner, train, [D.Flow.log_prob, type(inner.optimizer).step]), (_flow_data(flow_name),), {}
        run = getattr(_Flow, step)

        def step_without(owner: Any) -> Any:
            with context(False):
                return run(owner)

        entries = [D.Flow.rsample] + ([D.Flow.log_prob] if step == "rsample_log_prob" else [])
        return Run(flow, step_without, entries), (), {}
    if name in ("IAF.normalize", "IAF.rnormalize"):
        return Method(_flow("IAF"), name.split(".")[1]), (_flow_data("IAF"),), {}
    if name == "NealsFunnel.rsample_log_prob":
        def funnel(owner: Any) -> Any:
            target = D.NealsFunnel()
            z = target.rsample(torch.Size([BATCH]))
            return target.log_prob(z)

        return Run(torch.nn.Module(), funnel, [D.NealsFunnel.rsample, D.NealsFunnel.log_prob]), (), {}
    if name == "NealsFunnel.vi_train":
        from gt_calls import OptimizerStep

        from torch.distributions import Independent, Normal

        import flowtorch.bijectors as B

        base = Independent(Normal(torch.zeros(2), torch.ones(2)), 1)
        flow = D.Flow(base, B.AffineAutoregressive(_dense()))
        target = D.NealsFunnel()
        optimizer = torch.optim.Adam(flow.parameters(), lr=1e-2)

        def kl() -> torch.Tensor:
            """The reverse KL to the funnel, estimated from reparametrised draws scored through the cache."""
            z = flow.rsample(torch.Size([BATCH]))
            return (flow.log_prob(z) - target.log_prob(z)).mean()

        class _VIStep(OptimizerStep):
            def entry_points(self) -> list[Any]:
                return [D.Flow.rsample, D.Flow.log_prob, D.NealsFunnel.log_prob, type(optimizer).step]

        return _VIStep(flow, optimizer, kl), (), {}
    # ``monotonic_rational_spline`` on unconstrained bin parameters, as ``Spline`` calls it.
    from flowtorch.ops import monotonic_rational_spline

    gen = torch.Generator().manual_seed(3)
    widths = torch.softmax(torch.randn(DIM, BINS, generator=gen), -1)
    heights = torch.softmax(torch.randn(DIM, BINS, generator=gen), -1)
    derivatives = torch.nn.functional.softplus(torch.randn(DIM, BINS - 1, generator=gen))
    lambdas = torch.sigmoid(torch.randn(DIM, BINS, generator=gen))
    inverse = name.endswith(".inverse")
    return Call(monotonic_rational_spline, inverse=inverse, bound=3.0), \
        (_data("real") * 2.0, widths, heights, derivatives, lambdas), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore", message=".*(input_dim = 1|from cache).*")
    torch.manual_seed(0)
    if name.startswith("bijector."):
        return _bijector(name)
    if name.startswith("flow."):
        return _flow_model(name)
    return _extra(name)
