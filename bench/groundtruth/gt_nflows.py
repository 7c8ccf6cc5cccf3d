"""Ground-truth bench, nflows: normalizing flows assembled from its transforms, trained and sampled.

An nflows ``Flow`` is an ``nn.Module`` whose ``forward`` is not used: users call its methods. Each
model therefore compiles one method of a flow through ``gt_calls.Method`` (whose entry point is that
method), on 3-dimensional data with a 2-dimensional context where the flow takes one:

- ``CONDITIONAL``: the flows of nflows' README and examples, built from ``nflows.transforms`` (masked
  autoregressive and coupling layers, affine, additive and piecewise linear / quadratic / cubic /
  rational-quadratic splines, permutations, LU layers, batch norm) on a standard or a conditional
  normal base;
- ``UNCONDITIONAL``: the two ready-made flows of ``nflows.flows`` and one linear or normalising
  transform (``LULinear``, ``SVDLinear``, ``ActNorm`` ...) before a masked autoregressive layer;
- ``glow``: a squeeze, an invertible 1x1 convolution and an activation norm on a small image batch.

Every flow runs ``STEPS``: the training loss from ``log_prob``, and ``sample_and_log_prob`` (the
inverse pass); a few run ``sample`` too, and those of ``TRAINED_ONLY`` only the loss. ``MADEMoG`` is
nflows' mixture-of-Gaussians MADE density, scored and sampled the same way. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

FEATURES, CONTEXT, HIDDEN = 3, 2, 8
# Conditional flows, by the layer each of their two blocks uses (``_layer`` builds it).
CONDITIONAL = ("MAF", "MAF.batchnorm", "MAF.conditional_base", "RealNVP", "NICE", "NSF.autoregressive",
               "NSF.coupling", "quadratic.autoregressive", "cubic.autoregressive", "linear.autoregressive",
               "quadratic.coupling", "cubic.coupling", "linear.coupling")
# Unconditional flows: the ready-made flows, and one linear or normalising transform ahead of a MAF layer.
UNCONDITIONAL = ("MaskedAutoregressiveFlow", "SimpleRealNVP", "LULinear", "NaiveLinear", "SVDLinear",
                 "QRLinear", "HouseholderSequence", "ActNorm", "BatchNorm", "RandomPermutation", "glow")
STEPS = ("log_prob", "sample_and_log_prob")
SAMPLED = ("MAF", "NSF.coupling", "MaskedAutoregressiveFlow")  # flows whose ``sample`` is compiled too
# Flows trained only: batch norm has no inverse in train mode (users sample in eval mode), and
# ``NaiveLinear``'s inverse calls ``torch.solve``, which torch 2.13 no longer has.
TRAINED_ONLY = ("MAF.batchnorm", "BatchNorm", "NaiveLinear")


def names() -> list[str]:
    flows = [f"{flow}.{step}" for flow in CONDITIONAL + UNCONDITIONAL for step in STEPS
             if step == "log_prob" or flow not in TRAINED_ONLY]
    return flows + [f"{flow}.sample" for flow in SAMPLED] + ["MADEMoG.log_prob", "MADEMoG.sample"]


def _net(context: int | None) -> Callable[[int, int], Any]:
    """The coupling layers' conditioner: a residual MLP that reads the context."""
    from nflows.nn import nets

    def create(in_features: int, out_features: int) -> Any:
        return nets.ResidualNet(in_features, out_features, hidden_features=HIDDEN, context_features=context,
                                num_blocks=1)
    return create


def _layer(kind: str, block: int, context: int | None) -> list[Any]:
    """One block of a conditional flow: its main transform and what follows it."""
    from nflows import transforms as T
    from nflows.utils import torchutils

    mask = torchutils.create_alternating_binary_mask(FEATURES, even=block % 2 == 0)
    spline = {"num_bins": 4, "tails": "linear", "tail_bound": 3.0}
    autoregressive = {"features": FEATURES, "hidden_features": HIDDEN, "context_features": context, "num_blocks": 1}
    table: dict[str, Callable[[], list[Any]]] = {
        "MAF": lambda: [T.MaskedAffineAutoregressiveTransform(**autoregressive), T.ReversePermutation(FEATURES)],
        "MAF.batchnorm": lambda: [T.MaskedAffineAutoregressiveTransform(**autoregressive, use_batch_norm=True),
                                  T.BatchNorm(FEATURES), T.ReversePermutation(FEATURES)],
        "RealNVP": lambda: [T.AffineCouplingTransform(mask, _net(context))],
        "NICE": lambda: [T.AdditiveCouplingTransform(mask, _net(context))],
        "NSF.autoregressive": lambda: [
            T.MaskedPiecewiseRationalQuadraticAutoregressiveTransform(**autoregressive, **spline),
            T.LULinear(FEATURES)],
        "NSF.coupling": lambda: [T.PiecewiseRationalQuadraticCouplingTransform(mask, _net(context), **spline),
                                 T.LULinear(FEATURES)],
        "quadratic.autoregressive": lambda: [
            T.MaskedPiecewiseQuadraticAutoregressiveTransform(**autoregressive, **spline),
            T.RandomPermutation(FEATURES)],
        "cubic.autoregressive": lambda: [T.MaskedPiecewiseCubicAutoregressiveTransform(4, **autoregressive),
                                         T.ReversePermutation(FEATURES)],
        "linear.autoregressive": lambda: [T.MaskedPiecewiseLinearAutoregressiveTransform(4, **autoregressive),
                                          T.ReversePermutation(FEATURES)],
        "quadratic.coupling": lambda: [T.PiecewiseQuadraticCouplingTransform(mask, _net(context), **spline)],
        "cubic.coupling": lambda: [T.PiecewiseCubicCouplingTransform(mask, _net(context), **spline)],
        "linear.coupling": lambda: [T.PiecewiseLinearCouplingTransform(mask, _net(context), **spline)],
    }
    return table[kind.replace(".conditional_base", "")]()


# The splines without tails live on the unit cube: their flows squash the data into it first.
UNIT_CUBE = ("cubic.autoregressive", "linear.autoregressive")


def _conditional(kind: str) -> Any:
    from nflows import distributions, flows
    from nflows import transforms as T
    from nflows.nn import nets

    layers = [layer for block in range(2) for layer in _layer(kind, block, CONTEXT)]
    if kind in UNIT_CUBE:  # sigmoid into (0, 1), the splines, logit back
        layers = [T.Sigmoid(), *layers, T.Logit()]
    if kind == "MAF.conditional_base":  # the base's mean and scale come from the context
        base: Any = distributions.ConditionalDiagonalNormal(
            [FEATURES], context_encoder=nets.MLP([CONTEXT], [2 * FEATURES], hidden_sizes=[HIDDEN]))
    else:
        base = distributions.StandardNormal([FEATURES])
    return flows.Flow(T.CompositeTransform(layers), base)


def _unconditional(kind: str) -> Any:
    from nflows import distributions, flows
    from nflows import transforms as T

    if kind == "MaskedAutoregressiveFlow":
        return flows.MaskedAutoregressiveFlow(FEATURES, HIDDEN, num_layers=2, num_blocks_per_layer=1)
    if kind == "SimpleRealNVP":
        return flows.SimpleRealNVP(FEATURES + 1, HIDDEN, num_layers=2, num_blocks_per_layer=1)
    if kind == "glow":  # one Glow step on 1x4x4 images: squeeze to 4x2x2, 1x1 convolution, activation norm
        steps = [T.SqueezeTransform(), T.ActNorm(4), T.OneByOneConvolution(4)]
        return flows.Flow(T.CompositeTransform(steps), distributions.StandardNormal([4, 2, 2]))
    table: dict[str, Callable[[], Any]] = {
        "LULinear": lambda: T.LULinear(FEATURES), "NaiveLinear": lambda: T.NaiveLinear(FEATURES),
        "SVDLinear": lambda: T.SVDLinear(FEATURES, num_householder=2), "QRLinear": lambda: T.QRLinear(FEATURES, 2),
        "HouseholderSequence": lambda: T.HouseholderSequence(FEATURES, 2), "ActNorm": lambda: T.ActNorm(FEATURES),
        "BatchNorm": lambda: T.BatchNorm(FEATURES), "RandomPermutation": lambda: T.RandomPermutation(FEATURES),
    }
    layers = [table[kind](), T.MaskedAffineAutoregressiveTransform(FEATURES, HIDDEN, num_blocks=1)]
    return flows.Flow(T.CompositeTransform(layers), distributions.StandardNormal([FEATURES]))


def build(name: str) -> Built:
    import torch
    from gt_calls import Method

    kind, step = name.rsplit(".", 1)
    gen = torch.Generator().manual_seed(0)
    context = torch.randn(4, CONTEXT, generator=gen)
    if kind == "MADEMoG":
        from nflows.distributions import MADEMoG

        model: Any = MADEMoG(FEATURES, HIDDEN, CONTEXT, num_blocks=1, num_mixture_components=2)
    elif kind in CONDITIONAL:
        model = _conditional(kind)
    else:
        model, context = _unconditional(kind), None
    if step == "log_prob":
        x = torch.randn(4, FEATURES + (kind == "SimpleRealNVP"), generator=gen)
        if kind == "glow":
            x = torch.randn(4, 1, 4, 4, generator=gen)
        args: tuple[Any, ...] = (x,) if context is None else (x, context)
        return Method(model, "log_prob"), args, {}
    # Sampling: the number of samples is fixed, the context (if any) is the input.
    return Method(model, step, num_samples=2), (), ({} if context is None else {"context": context})
