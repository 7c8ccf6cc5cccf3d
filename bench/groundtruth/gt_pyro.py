"""Ground-truth bench, Pyro: its own distributions, normalizing flows, and ELBO losses of small models.

Four kinds of model, each a module whose forward runs Pyro code on fixed small inputs:

- ``DISTRIBUTIONS``: a distribution of ``pyro.distributions`` built inside the forward from tensors
  (with argument validation on, where its checks read the data), then ``log_prob`` of a sample;
- ``FLOWS``: a transform of ``pyro.distributions.transforms`` on a 4-dimensional standard normal,
  ``log_prob`` and ``rsample`` of the transformed distribution;
- ``OPS``: functions of ``pyro.ops`` (MCMC diagnostics, scoring rules, tensor helpers) on samples;
- ``INFERENCE``: the differentiable loss of an ELBO (trace, mean-field, vectorized particles, enumerated) for a
  tiny model and guide, which runs Pyro's effect handlers under compile.

``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DISTRIBUTIONS = (
    "AffineBeta", "AsymmetricLaplace", "BetaBinomial", "DirichletMultinomial", "GammaPoisson", "ZeroInflatedPoisson",
    "ZeroInflatedNegativeBinomial", "Logistic", "SkewLogistic", "SoftLaplace", "Stable", "ProjectedNormal", "SineBivariateVonMises", "MultivariateStudentT", "OrderedLogistic", "MixtureOfDiagNormals",
    "GaussianScaleMixture", "ExtendedBinomial", "ExtendedBetaBinomial", "Delta", "Unit", "TruncatedPolyaGamma",
    "DiscreteHMM", "GaussianHMM", "MaskedMixture", "Empirical", "FoldedDistribution",
    "VonMises", "SpanningTree", "OneOneMatching", "CoalescentTimes",
)
FLOWS = ("AffineAutoregressive", "AffineCoupling", "BlockAutoregressive", "Householder", "MatrixExponential",
         "Planar", "Radial", "Spline", "SplineAutoregressive", "SplineCoupling",
         "Sylvester", "BatchNorm", "GeneralizedChannelPermute", "Permute", "LowerCholeskyAffine", "LeakyReLUTransform", "DiscreteCosineTransform", "HaarTransform")
# Functions of ``pyro.ops``: MCMC diagnostics, summaries and scoring rules on samples, tensor helpers.
OPS = ("stats.hpdi", "stats.pi", "stats.quantile", "stats.effective_sample_size", "stats.gelman_rubin",
       "stats.split_gelman_rubin", "stats.autocorrelation", "stats.waic", "stats.fit_generalized_pareto",
       "stats.crps_empirical", "stats.energy_score_empirical", "stats.resample", "stats.weighed_quantile",
       "tensor_utils.convolve", "tensor_utils.repeated_matmul", "tensor_utils.dct", "tensor_utils.haar_transform",
       "tensor_utils.periodic_cumsum", "tensor_utils.safe_cholesky", "tensor_utils.precision_to_scale_tril")
INFERENCE = ("Trace_ELBO", "TraceMeanField_ELBO", "TraceEnum_ELBO", "Trace_ELBO.vectorized",
             "AutoNormal", "AutoDelta", "AutoDiagonalNormal")


def names() -> list[str]:
    return ([f"dist.{n}" for n in DISTRIBUTIONS] + [f"flow.{n}" for n in FLOWS] + [f"infer.{n}" for n in INFERENCE]
            + [f"ops.{n}" for n in OPS])


def _ops(name: str) -> Built:
    """One function of ``pyro.ops`` on samples of two chains (or a small matrix), through ``gt_calls.Call``."""
    import importlib

    import torch
    from gt_calls import Call

    gen = torch.Generator().manual_seed(0)
    samples = torch.randn(2, 50, 3, generator=gen)
    flat = samples[0]
    spd = torch.eye(3) + 0.1 * flat[:3].T @ flat[:3]
    arguments: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
        "stats.hpdi": ((flat,), {"prob": 0.9}), "stats.pi": ((flat,), {"prob": 0.9}),
        "stats.quantile": ((flat,), {"probs": [0.1, 0.5, 0.9]}), "stats.effective_sample_size": ((samples,), {}),
        "stats.gelman_rubin": ((samples,), {}), "stats.split_gelman_rubin": ((samples,), {}),
        "stats.autocorrelation": ((flat,), {}), "stats.waic": ((flat,), {}),
        "stats.fit_generalized_pareto": ((flat[:, 0].exp(),), {}),
        "stats.crps_empirical": ((flat, flat[0]), {}), "stats.energy_score_empirical": ((flat, flat[0]), {}),
        "stats.resample": ((flat,), {"num_samples": 20}),
        "stats.weighed_quantile": ((flat[:, 0],), {"probs": [0.1, 0.9], "log_weights": torch.zeros(50)}),
        "tensor_utils.convolve": ((flat[:, 0], flat[:10, 1]), {}),
        "tensor_utils.repeated_matmul": ((spd, 4), {}), "tensor_utils.dct": ((flat,), {}),
        "tensor_utils.haar_transform": ((flat[:32],), {}),
        "tensor_utils.periodic_cumsum": ((flat, 7), {"dim": 0}),
        "tensor_utils.safe_cholesky": ((spd,), {}), "tensor_utils.precision_to_scale_tril": ((spd,), {}),
    }
    module, function = name.rsplit(".", 1)
    tensors, static = arguments[name]
    fixed = [a for a in tensors if not isinstance(a, torch.Tensor)]
    if fixed:  # a number among the positional arguments: fixed with the keywords, in its place
        call = Call(lambda *t: getattr(importlib.import_module(f"pyro.ops.{module}"), function)(*t, *fixed, **static))
        call.entry_points = lambda: [getattr(importlib.import_module(f"pyro.ops.{module}"), function)]  # type: ignore
        return call, tuple(a for a in tensors if isinstance(a, torch.Tensor)), {}
    return Call(getattr(importlib.import_module(f"pyro.ops.{module}"), function), **static), tensors, {}


def _distribution(name: str) -> Callable[[], Any]:
    """A function that builds distribution ``name`` from small fixed parameters."""
    import pyro.distributions as D
    import torch

    gen = torch.Generator().manual_seed(0)
    pos = torch.rand(3, generator=gen) + 0.5
    loc = torch.randn(3, generator=gen)
    tril = torch.eye(3) + 0.1 * torch.randn(3, 3, generator=gen).tril(-1)
    table: dict[str, Callable[[], Any]] = {
        "AffineBeta": lambda: D.AffineBeta(pos, pos, loc, pos),
        "AsymmetricLaplace": lambda: D.AsymmetricLaplace(loc, pos, pos),
        "BetaBinomial": lambda: D.BetaBinomial(pos, pos, total_count=5),
        "DirichletMultinomial": lambda: D.DirichletMultinomial(pos, total_count=5),
        "GammaPoisson": lambda: D.GammaPoisson(pos, pos),
        "ZeroInflatedPoisson": lambda: D.ZeroInflatedPoisson(pos, gate=pos / 2),
        "ZeroInflatedNegativeBinomial": lambda: D.ZeroInflatedNegativeBinomial(pos * 3, logits=loc, gate=pos / 2),
        "Logistic": lambda: D.Logistic(loc, pos),
        "SkewLogistic": lambda: D.SkewLogistic(loc, pos, pos),
        "SoftLaplace": lambda: D.SoftLaplace(loc, pos),
        "Stable": lambda: D.Stable(pos.clamp(max=1.9), loc.tanh()),
        "VonMises3D": lambda: D.VonMises3D(loc * 3),
        "ProjectedNormal": lambda: D.ProjectedNormal(loc * 3),
        "SineBivariateVonMises": lambda: D.SineBivariateVonMises(loc, loc, pos, pos, weighted_correlation=pos / 4),
        "MultivariateStudentT": lambda: D.MultivariateStudentT(pos[0] * 4, loc, tril),
        "OrderedLogistic": lambda: D.OrderedLogistic(loc, torch.tensor([-1.0, 0.0, 1.0])),
        "MixtureOfDiagNormals": lambda: D.MixtureOfDiagNormals(torch.randn(2, 3, generator=gen), pos.expand(2, 3),
                                                               torch.zeros(2)),
        "GaussianScaleMixture": lambda: D.GaussianScaleMixture(pos, torch.zeros(2), torch.tensor([1.0, 2.0])),
        "ExtendedBinomial": lambda: D.ExtendedBinomial(torch.tensor([5.0, 6.0, 7.0]), pos / 2),
        "ExtendedBetaBinomial": lambda: D.ExtendedBetaBinomial(pos, pos, torch.tensor([5.0, 6.0, 7.0])),
        "Delta": lambda: D.Delta(loc),
        "Unit": lambda: D.Unit(loc),
        "TruncatedPolyaGamma": lambda: D.TruncatedPolyaGamma(torch.zeros(3)),
        "LogNormalNegativeBinomial": lambda: D.LogNormalNegativeBinomial(pos * 3, loc, pos / 2),
        "DiscreteHMM": lambda: D.DiscreteHMM(torch.zeros(2), torch.zeros(4, 2, 2), D.Normal(loc[:2], pos[:2])),
        "GaussianHMM": lambda: D.GaussianHMM(D.MultivariateNormal(torch.zeros(2), torch.eye(2)), torch.eye(2) * 0.5,
                                             D.MultivariateNormal(torch.zeros(2), torch.eye(2)), torch.eye(2, 3),
                                             D.MultivariateNormal(torch.zeros(3), torch.eye(3)), duration=4),
        "MaskedMixture": lambda: D.MaskedMixture(loc > 0, D.Normal(loc, pos), D.Normal(-loc, pos)),
        "Empirical": lambda: D.Empirical(torch.randn(5, 3, generator=gen), torch.zeros(5)),
        "FoldedDistribution": lambda: D.FoldedDistribution(D.Normal(loc, pos)),
        "VonMises": lambda: D.VonMises(loc, pos),
        "SineSkewed": lambda: D.SineSkewed(D.VonMises(loc, pos), pos.clamp(max=0.3) / 3),
        "SpanningTree": lambda: D.SpanningTree(torch.randn(6, generator=gen)),
        "OneOneMatching": lambda: D.OneOneMatching(torch.randn(3, 3, generator=gen)),
        "CoalescentTimes": lambda: D.CoalescentTimes(torch.tensor([0.0, 0.5, 1.0, 1.5])),
    }
    return table[name]


def _flow(name: str) -> Any:
    import pyro.distributions.transforms as T
    import torch
    from pyro.nn import AutoRegressiveNN, DenseNN

    dim = 4
    table: dict[str, Callable[[], Any]] = {
        "AffineAutoregressive": lambda: T.AffineAutoregressive(AutoRegressiveNN(dim, [8])),
        "AffineCoupling": lambda: T.AffineCoupling(2, DenseNN(2, [8], [2, 2])),
        "BlockAutoregressive": lambda: T.BlockAutoregressive(dim),
        "Householder": lambda: T.Householder(dim, count_transforms=2),
        "MatrixExponential": lambda: T.MatrixExponential(dim),
        "Planar": lambda: T.Planar(dim),
        "Radial": lambda: T.Radial(dim),
        "Spline": lambda: T.Spline(dim, count_bins=4),
        "SplineAutoregressive": lambda: T.spline_autoregressive(dim, hidden_dims=[8], count_bins=4),
        "SplineCoupling": lambda: T.spline_coupling(dim, hidden_dims=[8], count_bins=4),
        "Sylvester": lambda: T.Sylvester(dim, count_transforms=2),
        "BatchNorm": lambda: T.BatchNorm(dim),
        "GeneralizedChannelPermute": lambda: T.GeneralizedChannelPermute(channels=2),
        "Permute": lambda: T.Permute(torch.tensor([3, 1, 0, 2])),
        "LowerCholeskyAffine": lambda: T.LowerCholeskyAffine(torch.zeros(dim), torch.eye(dim)),
        "LeakyReLUTransform": lambda: T.LeakyReLUTransform(),
        "DiscreteCosineTransform": lambda: T.DiscreteCosineTransform(),
        "HaarTransform": lambda: T.HaarTransform(),
    }
    return table[name]()


def build(name: str) -> Built:
    import pyro
    import torch
    from torch import nn

    pyro.enable_validation(True)
    kind, item = name.split(".", 1)
    gen = torch.Generator().manual_seed(0)
    if kind == "ops":
        return _ops(item)
    if kind == "dist":
        make = _distribution(item)

        class Dist(nn.Module):
            """Builds the distribution, draws from it and scores the draw."""

            def forward(self) -> Any:
                distribution = make()
                return distribution.log_prob(distribution.sample())

            def entry_points(self) -> list[Any]:
                # What ``forward`` runs of it: the constructor, ``sample`` and ``log_prob`` (a distribution's
                # instances are not called; until 2026-11-28 the class alone was declared, which named nothing).
                made = type(make())
                return [made.__init__, made.sample, made.log_prob]

        return Dist(), (), {}
    if kind == "flow":
        transform = _flow(item)
        channels = item == "GeneralizedChannelPermute"

        class Flow(nn.Module):
            """A standard normal through one transform: log-density of pushed data and a reparametrised draw."""

            def __init__(self) -> None:
                super().__init__()
                self.transform = transform if isinstance(transform, nn.Module) else None

            def forward(self, x: torch.Tensor) -> Any:
                import pyro.distributions as D

                shape = x.shape[1:]
                base = D.Normal(torch.zeros(shape), torch.ones(shape)).to_event(len(shape))
                flow = D.TransformedDistribution(base, [transform])
                y = transform(x)  # pushed forward, so that log_prob inverts it from the transform's cache
                return flow.log_prob(y), flow.rsample((2,))

            def entry_points(self) -> list[Any]:
                return [type(transform)]

        x = torch.randn(3, 2, 4, 4, generator=gen) if channels else torch.randn(3, 4, generator=gen)
        return Flow(), (x,), {}
    return _inference(item), (torch.randn(10, generator=gen),), {}


def _inference(name: str) -> Any:
    import pyro
    import pyro.distributions as D
    import torch
    from pyro import infer
    from pyro.infer import autoguide
    from torch import nn

    def model(data: torch.Tensor) -> None:
        mu = pyro.sample("mu", D.Normal(0.0, 1.0))
        with pyro.plate("data", data.shape[0]):
            pyro.sample("obs", D.Normal(mu, 1.0), obs=data)

    def enum_model(data: torch.Tensor) -> None:
        weights = torch.tensor([0.3, 0.7])
        locs = pyro.param("locs", torch.tensor([-1.0, 1.0]))
        with pyro.plate("data", data.shape[0]):
            z = pyro.sample("z", D.Categorical(weights), infer={"enumerate": "parallel"})
            pyro.sample("obs", D.Normal(locs[z], 1.0), obs=data)

    class Guide(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.loc = nn.Parameter(torch.zeros(()))
            self.log_scale = nn.Parameter(torch.zeros(()))

        def forward(self, data: torch.Tensor) -> None:
            pyro.sample("mu", D.Normal(self.loc, self.log_scale.exp()))

    guide: Any = Guide()
    used_model: Any = model
    if name in ("AutoNormal", "AutoDelta", "AutoDiagonalNormal"):
        guide = getattr(autoguide, name)(model)
        guide(torch.zeros(10))  # sets up its parameters eagerly, as SVI's first step would
        elbo: Any = infer.Trace_ELBO()
    elif name == "TraceEnum_ELBO":
        used_model, guide = enum_model, (lambda data: None)
        elbo = infer.TraceEnum_ELBO(max_plate_nesting=1)
    elif name == "Trace_ELBO.vectorized":
        elbo = infer.Trace_ELBO(num_particles=2, vectorize_particles=True, max_plate_nesting=1)
    else:
        elbo = getattr(infer, name)()

    class Loss(nn.Module):
        """The ELBO's differentiable loss of ``model`` against ``guide`` on the data."""

        def __init__(self) -> None:
            super().__init__()
            self.guide = guide if isinstance(guide, nn.Module) else None

        def forward(self, data: torch.Tensor) -> Any:
            return elbo.differentiable_loss(used_model, guide, data)

        def entry_points(self) -> list[Any]:
            return [type(elbo).differentiable_loss]

    return Loss()
