"""Ground-truth bench, glasflow: the ready-made normalizing flows of glasflow, trained and sampled.

glasflow wraps its bundled fork of nflows (``glasflow.nflows``) in ready-made flows configured by a few
arguments: ``RealNVP`` (affine or volume-preserving coupling), ``CouplingNSF`` (rational-quadratic
coupling splines), and the masked autoregressive flows (affine, and piecewise linear / quadratic / cubic /
rational-quadratic splines). Its ``Flow`` is an ``nn.Module`` whose users call its methods, so each model
compiles one method of a flow through ``gt_calls.Method`` on 3-dimensional data (a 2-dimensional
conditional input where the flow takes one):

- ``FLOWS``: every ready-made flow, in the configurations users pick (a linear transform between the
  couplings: ``permutation``, ``lu``, ``svd``; batch norm within the residual blocks or between the
  transforms; dropout; random masks (with plain MADE blocks, as residual ones refuse them) and permutations; glasflow's scale activations; a uniform latent
  distribution for the neural spline flow; the unit-cube splines on ``MultivariateUniform``), each with a
  ``.conditional`` twin for the main ones;
- ``STEPS``: the training loss's ``log_prob``, and ``sample_and_log_prob`` (the inverse pass); a few flows
  run ``sample``, ``forward_and_log_prob`` and ``inverse`` too (``EXTRA``);
- ``resampled``: a RealNVP on glasflow's ``ResampledGaussian`` (learned accept/reject sampling, with a
  ``glasflow.nets.MLP`` acceptance network): log_prob, sample;
- ``custom.*`` (``CUSTOM``): glasflow's ``Flow`` built by hand from the fork's transforms (LU, SVD, QR,
  Householder and naive linear layers, activation norm, pointwise nonlinearities, a rational-quadratic
  CDF, a trainable diagonal-normal latent space, one Glow step on small images); ``MADEMoG``: the fork's
  conditional mixture-of-Gaussians MADE density, scored and sampled;
- ``nflows.*``: the two ready-made flows of the bundled fork (``MaskedAutoregressiveFlow``,
  ``SimpleRealNVP``), which glasflow users reach as ``glasflow.nflows``.

Left out: sampling the flows with batch norm between transforms (``TRAINED_ONLY``): nflows' batch norm
has no inverse in train mode, where users never sample; so is ``NaiveLinear``'s (its inverse calls ``torch.solve``, which this torch no
longer has) and ``Tanh``'s (its inverse rejects the base's unbounded samples), and the fork's ``DiagonalNormal`` has
no sampler. The UMNN transforms need the
``UMNN`` package, absent here. ``ResampledGaussian.estimate_normalisation_constant``
is run once after training, under ``no_grad``, outside compiled code. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

FEATURES, CONTEXT, HIDDEN, BATCH = 3, 2, 8, 4

FLOWS = (
    "RealNVP", "RealNVP.conditional", "RealNVP.volume_preserving", "RealNVP.permutation", "RealNVP.lu",
    "RealNVP.svd", "RealNVP.batchnorm_between", "RealNVP.batchnorm_within", "RealNVP.dropout",
    "RealNVP.log3", "RealNVP.nflows_scale", "RealNVP.mask",
    "CouplingNSF", "CouplingNSF.conditional", "CouplingNSF.uniform", "CouplingNSF.lu", "CouplingNSF.svd",
    "CouplingNSF.batchnorm_between",
    "MAF", "MAF.conditional", "MAF.random_masks", "MAF.random_permutations", "MAF.log1",
    "MAF.batchnorm_between", "MAF.batchnorm_within",
    "MAF.linear", "MAF.quadratic", "MAF.cubic", "MAF.rq", "MAF.rq.conditional",
)
STEPS = ("log_prob", "sample_and_log_prob")
EXTRA = {
    "RealNVP": ("sample", "forward_and_log_prob", "inverse"),
    "RealNVP.conditional": ("sample", "forward_and_log_prob", "inverse"),
    "CouplingNSF": ("sample", "inverse"),
    "CouplingNSF.conditional": ("sample",),
    "MAF": ("sample", "forward_and_log_prob", "inverse"),
    "MAF.conditional": ("sample",),
    "MAF.rq": ("sample",),
}
# Batch norm between the transforms has no inverse in train mode: users train these, and sample in eval.
TRAINED_ONLY = ("RealNVP.batchnorm_between", "CouplingNSF.batchnorm_between", "MAF.batchnorm_between")
# Splines without tails live on the unit cube: data and latent space are uniform on it.
UNIT_CUBE = ("CouplingNSF.uniform", "MAF.linear", "MAF.cubic")
NFLOWS = ("nflows.MaskedAutoregressiveFlow", "nflows.SimpleRealNVP")
# glasflow's ``Flow`` assembled by hand from ``glasflow.nflows.transforms``: one transform ahead of an
# affine autoregressive layer (``glow`` is a squeeze, activation norm and 1x1 convolution on 1x4x4 images).
CUSTOM = ("LULinear", "SVDLinear", "QRLinear", "HouseholderSequence", "ActNorm", "NaiveLinear", "LeakyReLU",
          "Tanh", "PointwiseAffine", "rq_cdf", "diagonal_normal", "glow")
# Scored only: NaiveLinear's inverse calls the removed ``torch.solve``, Tanh's inverse rejects unbounded
# samples, and the fork's DiagonalNormal has no sampler.
CUSTOM_TRAINED_ONLY = ("NaiveLinear", "Tanh", "diagonal_normal")


def names() -> list[str]:
    out = [f"{flow}.{step}" for flow in FLOWS for step in STEPS if step == "log_prob" or flow not in TRAINED_ONLY]
    out += [f"{flow}.{step}" for flow, steps in EXTRA.items() for step in steps]
    out += ["resampled.log_prob", "resampled.sample", "resampled.sample_and_log_prob"]
    out += [f"{flow}.{step}" for flow in NFLOWS for step in ("log_prob", "sample_and_log_prob")]
    out += [f"custom.{kind}.{step}" for kind in CUSTOM for step in STEPS
            if step == "log_prob" or kind not in CUSTOM_TRAINED_ONLY]
    out += ["MADEMoG.log_prob", "MADEMoG.sample"]
    return out


def _flow(kind: str) -> Any:
    import torch
    from glasflow import CouplingNSF, RealNVP
    from glasflow import flows as F
    from glasflow.distributions import MultivariateUniform

    context = CONTEXT if kind.endswith(".conditional") else None
    base = kind.removesuffix(".conditional")
    common: dict[str, Any] = {"n_inputs": FEATURES, "n_transforms": 2, "n_conditional_inputs": context,
                              "n_neurons": HIDDEN, "n_blocks_per_transform": 1}
    unit = lambda: MultivariateUniform(torch.zeros(FEATURES), torch.ones(FEATURES))  # noqa: E731
    table: dict[str, Callable[[], Any]] = {
        "RealNVP": lambda: RealNVP(**common),
        "RealNVP.volume_preserving": lambda: RealNVP(**common, volume_preserving=True),
        "RealNVP.permutation": lambda: RealNVP(**common, linear_transform="permutation"),
        "RealNVP.lu": lambda: RealNVP(**common, linear_transform="lu"),
        "RealNVP.svd": lambda: RealNVP(**common, linear_transform="svd"),
        "RealNVP.batchnorm_between": lambda: RealNVP(**common, batch_norm_between_transforms=True),
        "RealNVP.batchnorm_within": lambda: RealNVP(**common, batch_norm_within_blocks=True),
        "RealNVP.dropout": lambda: RealNVP(**common, dropout_probability=0.1),
        "RealNVP.log3": lambda: RealNVP(**common, scale_activation="log3"),
        "RealNVP.nflows_scale": lambda: RealNVP(**common, scale_activation="nflows"),
        "RealNVP.mask": lambda: RealNVP(**common, mask=[1, -1, 1]),
        "CouplingNSF": lambda: CouplingNSF(**common),
        "CouplingNSF.uniform": lambda: CouplingNSF(**common, distribution="uniform"),
        "CouplingNSF.lu": lambda: CouplingNSF(**common, linear_transform="lu"),
        "CouplingNSF.svd": lambda: CouplingNSF(**common, linear_transform="svd"),
        "CouplingNSF.batchnorm_between": lambda: CouplingNSF(**common, batch_norm_between_transforms=True),
        "MAF": lambda: F.MaskedAffineAutoregressiveFlow(**common),
        "MAF.random_masks": lambda: F.MaskedAffineAutoregressiveFlow(
            **common, use_random_masks=True, use_residual_blocks=False),
        "MAF.random_permutations": lambda: F.MaskedAffineAutoregressiveFlow(**common, use_random_permutations=True),
        "MAF.log1": lambda: F.MaskedAffineAutoregressiveFlow(**common, scale_activation="log1"),
        "MAF.batchnorm_between": lambda: F.MaskedAffineAutoregressiveFlow(**common, batch_norm_between_transforms=True),
        "MAF.batchnorm_within": lambda: F.MaskedAffineAutoregressiveFlow(**common, batch_norm_within_blocks=True),
        "MAF.linear": lambda: F.MaskedPiecewiseLinearAutoregressiveFlow(**common, num_bins=4, distribution=unit()),
        "MAF.quadratic": lambda: F.MaskedPiecewiseQuadraticAutoregressiveFlow(
            **common, num_bins=4, tails="linear", tail_bound=4.0),
        "MAF.cubic": lambda: F.MaskedPiecewiseCubicAutoregressiveAutoregressiveFlow(
            **common, num_bins=4, distribution=unit()),
        "MAF.rq": lambda: F.MaskedPiecewiseRationalQuadraticAutoregressiveFlow(
            **common, num_bins=4, tails="linear", tail_bound=4.0),
    }
    return table[base]()


def _resampled() -> Any:
    import torch
    from glasflow import RealNVP
    from glasflow.distributions import ResampledGaussian
    from glasflow.nets import MLP

    acceptance = MLP(FEATURES, 1, [HIDDEN], activate_output=torch.sigmoid)
    base = ResampledGaussian([FEATURES], acceptance, truncation=4)
    return RealNVP(FEATURES, 2, n_neurons=HIDDEN, n_blocks_per_transform=1, distribution=base)


def _nflows(kind: str) -> Any:
    from glasflow.nflows import flows

    if kind == "nflows.MaskedAutoregressiveFlow":
        return flows.MaskedAutoregressiveFlow(FEATURES, HIDDEN, num_layers=2, num_blocks_per_layer=1)
    return flows.SimpleRealNVP(FEATURES + 1, HIDDEN, num_layers=2, num_blocks_per_layer=1)


def _custom(kind: str) -> Any:
    from glasflow.flows.base import Flow
    from glasflow.nflows import distributions
    from glasflow.nflows import transforms as T

    if kind == "glow":
        steps = [T.SqueezeTransform(), T.ActNorm(4), T.OneByOneConvolution(4)]
        return Flow(T.CompositeTransform(steps), distributions.StandardNormal([4, 2, 2]))
    table: dict[str, Callable[[], Any]] = {
        "LULinear": lambda: T.LULinear(FEATURES), "SVDLinear": lambda: T.SVDLinear(FEATURES, num_householder=2),
        "QRLinear": lambda: T.QRLinear(FEATURES, 2), "HouseholderSequence": lambda: T.HouseholderSequence(FEATURES, 2),
        "ActNorm": lambda: T.ActNorm(FEATURES), "NaiveLinear": lambda: T.NaiveLinear(FEATURES),
        "LeakyReLU": lambda: T.LeakyReLU(), "Tanh": lambda: T.Tanh(),
        "PointwiseAffine": lambda: T.PointwiseAffineTransform(shift=0.5, scale=2.0),
        "rq_cdf": lambda: T.PiecewiseRationalQuadraticCDF([FEATURES], num_bins=4, tails="linear", tail_bound=4.0),
        "diagonal_normal": lambda: T.ReversePermutation(FEATURES),
    }
    layers = [table[kind](), T.MaskedAffineAutoregressiveTransform(FEATURES, HIDDEN, num_blocks=1)]
    if kind == "diagonal_normal":  # a trainable diagonal Gaussian latent space
        return Flow(T.CompositeTransform(layers), distributions.DiagonalNormal([FEATURES]))
    return Flow(T.CompositeTransform(layers), distributions.StandardNormal([FEATURES]))


def build(name: str) -> Built:
    import torch
    from gt_calls import Method

    kind, step = name.rsplit(".", 1)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    features = FEATURES + (kind == "nflows.SimpleRealNVP")
    if kind == "MADEMoG":  # the bundled fork's mixture-of-Gaussians MADE density, conditional
        from glasflow.nflows.distributions import MADEMoG

        mog = MADEMoG(FEATURES, HIDDEN, CONTEXT, num_blocks=1, num_mixture_components=2)
        context = torch.randn(BATCH, CONTEXT, generator=gen)
        if step == "log_prob":
            return Method(mog, "log_prob"), (torch.randn(BATCH, FEATURES, generator=gen), context), {}
        return Method(mog, "sample", num_samples=2), (), {"context": context}
    if kind.startswith("custom."):
        model: Any = _custom(kind.removeprefix("custom."))
        if kind == "custom.glow":
            features = 0
    elif kind == "resampled":
        model = _resampled()
    elif kind in NFLOWS:
        model = _nflows(kind)
    else:
        model = _flow(kind)
    context = torch.randn(BATCH, CONTEXT, generator=gen) if kind.endswith(".conditional") else None
    if features == 0:  # glow: a batch of 1x4x4 images
        x = torch.randn(BATCH, 1, 4, 4, generator=gen)
    elif kind in UNIT_CUBE:
        x = torch.rand(BATCH, features, generator=gen) * 0.9 + 0.05
    else:
        x = torch.randn(BATCH, features, generator=gen)
    if kind in NFLOWS:  # nflows' own Flow: ``log_prob(inputs, context)``, ``sample_and_log_prob(n, context)``
        if step == "log_prob":
            return Method(model, "log_prob"), (x,), {}
        return Method(model, step, num_samples=2), (), {}
    extra: dict[str, Any] = {} if context is None else {"conditional": context}
    if step in ("log_prob", "forward_and_log_prob", "inverse"):
        return Method(model, step), (x,), extra
    # Sampling: a conditional flow draws one sample per conditional input.
    return Method(model, step, **{("N" if step == "sample_and_log_prob" else "num_samples"): BATCH}), (), extra
