"""Ground-truth bench, zuko: every normalizing flow of ``zuko.flows``, trained and sampled, and its distributions.

A zuko flow is a lazy distribution: an ``nn.Module`` whose forward takes a context ``c`` (or nothing)
and returns a ``torch.distributions`` object. Users compile the step that calls it, so each model is a
small bench module (``_Step``) around a flow of ``FLOWS`` that runs one of ``STEPS``:

- ``log_prob``: the training loss ``-flow(c).log_prob(x).mean()`` (maximum likelihood);
- ``rsample``: a reparametrised draw ``flow(c).rsample((n,))`` (``sample`` where the distribution has
  no reparametrised sampler: the Gaussian mixture);
- ``rsample_and_log_prob``: a draw and its log-density together, the variational-inference step.

Each flow is built with a 2-dimensional context (``MAF.context.log_prob``, ``MAF.context.rsample``),
in the configurations of ``VARIANTS`` too and as the hand-assembled ``Flow`` of zuko's tutorial
(``CUSTOM``), and unconditional (``MAF.rsample_and_log_prob``). ``DISTRIBUTIONS`` are the distributions of
``zuko.distributions`` that users build directly (priors, truncations, order statistics): log-density
of a draw. ``bayesian`` samples a flow's weights from ``zuko.bayesian.BayesianModel`` and scores data.
The compiled module is bench code, so its entry points name the zuko code it calls.
``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

FEATURES, CONTEXT = 3, 2  # the data's and the context's dimensions

# Flow name -> (class of ``zuko.flows``, its keywords at tiny sizes).
FLOWS: dict[str, tuple[str, dict[str, Any]]] = {
    "MAF": ("MAF", {"transforms": 2, "hidden_features": (8,)}),
    "NSF": ("NSF", {"transforms": 2, "bins": 4, "hidden_features": (8,)}),
    "NCSF": ("NCSF", {"transforms": 2, "bins": 4, "hidden_features": (8,)}),
    "SOSPF": ("SOSPF", {"transforms": 2, "degree": 2, "polynomials": 2, "hidden_features": (8,)}),
    "BPF": ("BPF", {"transforms": 2, "degree": 4, "hidden_features": (8,)}),
    "NAF": ("NAF", {"transforms": 2, "signal": 4, "hidden_features": (8,), "network": {"hidden_features": (8,)}}),
    "UNAF": ("UNAF", {"transforms": 2, "signal": 4, "hidden_features": (8,), "network": {"hidden_features": (8,)}}),
    "CNF": ("CNF", {"freqs": 2, "hidden_features": (8,)}),
    "GF": ("GF", {"transforms": 2, "components": 3}),
    "NICE": ("NICE", {"transforms": 2, "hidden_features": (8,)}),
    "RealNVP": ("RealNVP", {"transforms": 2, "hidden_features": (8,)}),
    "GMM": ("GMM", {"components": 2}),
}
# Further configurations that users pick, trained and sampled too (name -> class, keywords).
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "MAF.passes2": ("MAF", {"transforms": 2, "passes": 2, "hidden_features": (8,)}),
    "MAF.randperm": ("MAF", {"transforms": 2, "randperm": True, "hidden_features": (8, 8), "residual": True}),
    "CNF.hutchinson": ("CNF", {"freqs": 2, "exact": False, "hidden_features": (8,)}),
    "GMM.diagonal": ("GMM", {"components": 2, "covariance_type": "diagonal"}),
}
CUSTOM = ("Flow.custom",)  # zuko's tutorial flow: rotation, autoregressive transform, permutation, base
STEPS = ("log_prob", "rsample", "rsample_and_log_prob")
DISTRIBUTIONS = ("BoxUniform", "DiagNormal", "GeneralizedNormal", "Joint", "Mixture", "Truncated", "Sort",
                 "TopK", "Minimum", "Maximum")


def names() -> list[str]:
    # Conditional (the amortised-inference use): trained and sampled. Unconditional (variational
    # inference): a draw with its log-density, the likelihood for the Gaussian mixture that has no
    # reparametrised sampler.
    flows = [f"{flow}.context.{step}" for flow in list(FLOWS) + list(VARIANTS) + list(CUSTOM) for step in STEPS[:2]]
    flows += [f"{flow}.{'log_prob' if flow.startswith('GMM') else STEPS[2]}" for flow in FLOWS]
    return flows + [f"dist.{d}" for d in DISTRIBUTIONS] + ["bayesian.MAF.log_prob"]


def _custom_flow(context: int) -> Any:
    """The flow that zuko's tutorial assembles by hand from lazy transforms and a lazy base."""
    import torch
    import zuko
    from zuko.flows import Flow, MaskedAutoregressiveTransform, UnconditionalDistribution, UnconditionalTransform

    gen = torch.Generator().manual_seed(1)
    return Flow(
        transform=[
            UnconditionalTransform(zuko.transforms.RotationTransform, torch.randn(FEATURES, FEATURES, generator=gen)),
            MaskedAutoregressiveTransform(FEATURES, context, hidden_features=(8,)),
            UnconditionalTransform(zuko.transforms.PermutationTransform, torch.tensor([2, 0, 1]), buffer=True),
            MaskedAutoregressiveTransform(FEATURES, context, univariate=zuko.transforms.MonotonicRQSTransform,
                                          shapes=[(4,), (4,), (3,)], hidden_features=(8,)),
        ],
        base=UnconditionalDistribution(zuko.distributions.DiagNormal, torch.zeros(FEATURES), torch.ones(FEATURES),
                                       buffer=True),
    )


def _flow(name: str, context: int) -> Any:
    import zuko

    if name in CUSTOM:
        return _custom_flow(context)
    cls, keywords = {**FLOWS, **VARIANTS}[name]
    return getattr(zuko.flows, cls)(FEATURES, context, **keywords)


def _distribution(name: str) -> Any:
    """A function that builds distribution ``name`` of ``zuko.distributions`` from small fixed parameters."""
    import torch
    import zuko.distributions as D
    from torch.distributions import Normal

    gen = torch.Generator().manual_seed(2)
    loc, scale = torch.randn(FEATURES, generator=gen), torch.rand(FEATURES, generator=gen) + 0.5
    table = {
        "BoxUniform": lambda: D.BoxUniform(-torch.ones(FEATURES), torch.ones(FEATURES)),
        "DiagNormal": lambda: D.DiagNormal(loc, scale),
        "GeneralizedNormal": lambda: D.GeneralizedNormal(scale * 2),
        "Joint": lambda: D.Joint(D.BoxUniform(torch.zeros(1), torch.ones(1)), D.DiagNormal(loc[:2], scale[:2])),
        "Mixture": lambda: D.Mixture(D.DiagNormal(torch.stack([loc, -loc]), torch.stack([scale, scale])),
                                     torch.zeros(2)),
        "Truncated": lambda: D.Truncated(Normal(loc, scale), -1.0, 1.0),
        "Sort": lambda: D.Sort(Normal(0.0, 1.0), 3),
        "TopK": lambda: D.TopK(Normal(0.0, 1.0), 2, 4),
        "Minimum": lambda: D.Minimum(Normal(0.0, 1.0), 3),
        "Maximum": lambda: D.Maximum(Normal(0.0, 1.0), 3),
    }
    return table[name]


def build(name: str) -> Built:
    import torch
    from torch import nn

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(4, FEATURES, generator=gen)
    c = torch.randn(4, CONTEXT, generator=gen)

    if name.startswith("dist."):
        make = _distribution(name.split(".", 1)[1])

        class Dist(nn.Module):
            """Builds the distribution, draws from it (reparametrised where it can) and scores the draw."""

            def forward(self) -> Any:
                d = make()
                draw = d.rsample((4,)) if d.has_rsample else d.sample((4,))
                return d.log_prob(draw)

            def entry_points(self) -> list[Any]:
                return [type(make())]

        return Dist(), (), {}

    parts = name.split(".")
    step = parts[-1]
    conditional = "context" in parts
    flow_name = ".".join(p for p in parts[:-1] if p not in ("context", "bayesian"))
    flow = _flow(flow_name, CONTEXT if conditional else 0)
    inputs = (x, c) if conditional else (x,)

    if name.startswith("bayesian."):
        from zuko.bayesian import BayesianModel

        class Bayesian(nn.Module):
            """A flow with a Gaussian posterior over its weights: the likelihood of a sampled flow."""

            def __init__(self) -> None:
                super().__init__()
                self.posterior = BayesianModel(flow, init_logvar=-6.0)

            def forward(self, x: torch.Tensor) -> Any:
                with self.posterior.reparameterize() as sampled:
                    return -sampled().log_prob(x).mean()

            def entry_points(self) -> list[Any]:
                return [BayesianModel.reparameterize, type(flow)]

        return Bayesian(), inputs, {}

    distribution = type(flow(c if conditional else None))
    method = "sample" if step == "rsample" and not distribution.has_rsample else step

    class _Step(nn.Module):
        """One training or sampling step of a zuko flow, as users write and compile it."""

        def __init__(self) -> None:
            super().__init__()
            self.flow = flow

        def forward(self, x: torch.Tensor, c: torch.Tensor | None = None) -> Any:
            d = self.flow(c)
            if method == "log_prob":
                return -d.log_prob(x).mean()
            samples = getattr(d, method)((2,))
            return samples if method != "rsample_and_log_prob" else (samples[0], samples[1].mean())

        def entry_points(self) -> list[Any]:
            return [type(self.flow), getattr(distribution, method)]

    return _Step(), inputs, {}
