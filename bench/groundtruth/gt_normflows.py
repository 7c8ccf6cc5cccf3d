"""Ground-truth bench, normflows: its flow layers assembled into flows, trained and sampled, as its examples do.

A normflows model (``NormalizingFlow``, ``ConditionalNormalizingFlow``, ``MultiscaleFlow``, ``ClassCondFlow``)
is an ``nn.Module`` whose training losses and sampler are methods, so each model compiles one method of a
flow through ``gt_calls.Method`` (its entry point is that method), on 2-dimensional data (the library's
examples are 2-D) or a small image batch:

- ``INVERTIBLE``: flows built from the layers of ``normflows.flows`` that have an inverse (RealNVP's
  ``MaskedAffineFlow`` with ``ActNorm``, NICE, ``AffineCouplingBlock``, the masked affine autoregressive
  flow, the neural spline flows, autoregressive and coupling, plain and circular with ``PeriodicShift``
  and ``PeriodicWrap``, the residual flow, ``InvertibleAffine``), on a ``DiagGaussian`` base: the
  maximum-likelihood loss ``forward_kld(x)`` and ``sample(n)``. A few run the losses against a target
  density too (``reverse_kld``, ``reverse_alpha_div``) or ``log_prob``;
- ``FORWARD_ONLY``: flows whose layers have no inverse (planar, radial, ``BatchNorm``, the stochastic
  flow with Metropolis-Hastings and Hamiltonian Monte Carlo layers, run with autograd on as its leapfrog
  steps need): trained against the two-moons target with ``reverse_kld`` and sampled;
- ``CONDITIONAL``: ``ConditionalNormalizingFlow`` with a 4-dimensional context (the mean and scale of
  the conditional Gaussian target), ``forward_kld(x, context)`` and ``sample(n, context)``;
- ``Glow``: the multiscale Glow of the library's example (``GlowBlock``, ``Squeeze``, ``Merge``) on 1x4x4
  images with class-conditional bases (``Glow.GlowBase``: Glow's own base, plain 1x1 convolutions and a
  ``Logit`` transform of the data), and ``ClassCondFlow``: ``forward_kld(x, y)`` and ``sample(n, y)``;
- ``VAE.planar``: ``NormalizingFlowVAE`` (a Gaussian encoder, planar flows, a Bernoulli decoder), its
  negative ELBO; ``HAIS.sample``: Hamiltonian annealed importance sampling of ``normflows.sampling``.

``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, HIDDEN, BATCH, SAMPLES, LAYERS = 2, 8, 4, 4, 2
CONTEXT = 2 * DIM  # the conditional target's mean and scale

# Flows with an inverse, trained by maximum likelihood and sampled.
INVERTIBLE = ("RealNVP", "NICE", "AffineCouplingBlock", "MAF", "NSF.autoregressive", "NSF.coupling",
              "NSF.circular.autoregressive", "NSF.circular.coupling", "Residual", "InvertibleAffine")
# Further steps of some invertible flows: the losses against a target density, and the log-density.
EXTRA_STEPS = ("RealNVP.reverse_kld", "RealNVP.reverse_alpha_div", "NSF.autoregressive.reverse_kld",
               "NSF.autoregressive.log_prob", "Residual.reverse_kld")
# Flows with layers that only run forward: trained against a target density and sampled.
FORWARD_ONLY = ("Planar", "Planar.leaky_relu", "Radial", "BatchNorm", "SNF")
CONDITIONAL = ("MAF", "NSF.autoregressive", "NSF.coupling", "NSF.autoregressive.conditional_base")
IMAGE = ("Glow", "Glow.GlowBase", "ClassCondFlow")


def names() -> list[str]:
    models = [f"{flow}.{step}" for flow in INVERTIBLE for step in ("forward_kld", "sample")] + list(EXTRA_STEPS)
    models += [f"{flow}.{step}" for flow in FORWARD_ONLY for step in ("reverse_kld", "sample")]
    models += [f"context.{flow}.{step}" for flow in CONDITIONAL for step in ("forward_kld", "sample")]
    models += [f"{flow}.{step}" for flow in IMAGE for step in ("forward_kld", "sample")]
    return models + ["VAE.planar", "HAIS.sample"]


def _mlp(sizes: list[int], **keywords: Any) -> Any:
    import normflows as nf

    return nf.nets.MLP(sizes, **keywords)


def _layers(kind: str, block: int, context: int | None = None) -> list[Any]:
    """One block of a flow of kind ``kind``: its layers, as the library's examples stack them."""
    import math

    import normflows as nf
    import torch

    F = nf.flows
    mask = torch.tensor([float((i + block) % 2 == 0) for i in range(DIM)])
    bound = torch.tensor([3.0, math.pi])  # the circular flows: a linear first and a periodic second coordinate
    table: dict[str, Callable[[], list[Any]]] = {
        "RealNVP": lambda: [F.MaskedAffineFlow(mask, _mlp([DIM, HIDDEN, DIM], init_zeros=True),
                                               _mlp([DIM, HIDDEN, DIM], init_zeros=True)), F.ActNorm(DIM)],
        "NICE": lambda: [F.MaskedAffineFlow(mask, _mlp([DIM, HIDDEN, DIM], init_zeros=True))],
        "AffineCouplingBlock": lambda: [F.AffineCouplingBlock(_mlp([DIM // 2, HIDDEN, DIM], init_zeros=True)),
                                        F.Permute(DIM, mode="swap")],
        "MAF": lambda: [F.MaskedAffineAutoregressive(DIM, HIDDEN, context_features=context, num_blocks=1),
                        F.Permute(DIM, mode="swap")],
        "NSF.autoregressive": lambda: [F.AutoregressiveRationalQuadraticSpline(
            DIM, 1, HIDDEN, num_context_channels=context, num_bins=4), F.LULinearPermute(DIM)],
        "NSF.coupling": lambda: [F.CoupledRationalQuadraticSpline(
            DIM, 1, HIDDEN, num_context_channels=context, num_bins=4, reverse_mask=block % 2 == 1),
            F.LULinearPermute(DIM)],
        "NSF.circular.autoregressive": lambda: [F.CircularAutoregressiveRationalQuadraticSpline(
            DIM, 1, HIDDEN, [1], num_bins=4, tail_bound=bound, permute_mask=True)],
        "NSF.circular.coupling": lambda: [F.CircularCoupledRationalQuadraticSpline(
            DIM, 1, HIDDEN, [1], num_bins=4, tail_bound=bound, reverse_mask=block % 2 == 1)],
        "Residual": lambda: [F.Residual(nf.nets.LipschitzMLP([DIM, HIDDEN, DIM], init_zeros=True,
                                                             lipschitz_const=0.9), reduce_memory=True),
                             F.ActNorm(DIM)],
        "InvertibleAffine": lambda: [F.MaskedAffineFlow(mask, _mlp([DIM, HIDDEN, DIM], init_zeros=True),
                                                        _mlp([DIM, HIDDEN, DIM], init_zeros=True)),
                                     F.InvertibleAffine(DIM, use_lu=True)],
        "Planar": lambda: [F.Planar((DIM,))],
        "Planar.leaky_relu": lambda: [F.Planar((DIM,), act="leaky_relu")],
        "Radial": lambda: [F.Radial((DIM,))],
        "BatchNorm": lambda: [F.Planar((DIM,)), F.BatchNorm()],
    }
    return table[kind]()


def _flow(kind: str) -> Any:
    """An unconditional ``NormalizingFlow`` of ``LAYERS`` blocks, with the two-moons target for the
    losses that need a density."""
    import math

    import normflows as nf
    import torch

    target = nf.distributions.TwoMoons()
    if kind == "SNF":  # a stochastic normalizing flow: RealNVP blocks with MCMC layers between them
        layers: list[Any] = []
        for block in range(LAYERS):
            layers += _layers("RealNVP", block)
            layers += [nf.flows.MetropolisHastings(target, nf.distributions.DiagGaussianProposal((DIM,), 0.1), 1),
                       nf.flows.HamiltonianMonteCarlo(target, 2, torch.log(torch.full((DIM,), 0.05)),
                                                      torch.zeros(DIM))]
        return nf.NormalizingFlow(nf.distributions.DiagGaussian(DIM), layers, target)
    layers = [layer for block in range(LAYERS) for layer in _layers(kind, block)]
    if kind.startswith("NSF.circular"):  # a Gaussian and a uniform (angular) coordinate, as in the example
        # the angle is shifted between the blocks and wrapped into [-pi, pi) at the data end
        layers = [layers[0], nf.flows.PeriodicShift([1], bound=math.pi, shift=math.pi / 2), *layers[1:],
                  nf.flows.PeriodicWrap([1], bound=math.pi)]
        base: Any = nf.distributions.UniformGaussian(DIM, [1], torch.tensor([1.0, 2 * math.pi]))
    else:
        base = nf.distributions.DiagGaussian(DIM, trainable=kind != "RealNVP")
    return nf.NormalizingFlow(base, layers, target)


def _conditional(kind: str) -> Any:
    import normflows as nf

    layers = [layer for block in range(LAYERS)
              for layer in _layers(kind.replace(".conditional_base", ""), block, CONTEXT)]
    if kind.endswith(".conditional_base"):  # the base's mean and log-scale come from the context
        base: Any = nf.distributions.base.ConditionalDiagGaussian(DIM, _mlp([CONTEXT, HIDDEN, 2 * DIM]))
    else:
        base = nf.distributions.DiagGaussian(DIM, trainable=False)
    return nf.ConditionalNormalizingFlow(base, layers, nf.distributions.target.ConditionalDiagGaussian())


IMAGE_SHAPE, CLASSES, LEVELS = (1, 4, 4), 3, 2


def _glow(kind: str) -> Any:
    """The multiscale Glow of the library's example at two levels of one ``GlowBlock`` each."""
    import normflows as nf

    channels, height, width = IMAGE_SHAPE
    q0, flows, merges = [], [], []
    for level in range(LEVELS):
        blocks: list[Any] = [nf.flows.GlowBlock(channels * 2 ** (LEVELS + 1 - level), HIDDEN, split_mode="channel",
                                                scale=True, use_lu=kind == "Glow")]
        flows.append(blocks + [nf.flows.Squeeze()])
        if level > 0:
            merges.append(nf.flows.Merge())
            factor = 2 ** (LEVELS - level)
            shape = (channels * factor, height // factor, width // factor)
        else:
            shape = (channels * 2 ** (LEVELS + 1), height // 2 ** LEVELS, width // 2 ** LEVELS)
        if kind == "Glow":
            q0.append(nf.distributions.ClassCondDiagGaussian(shape, CLASSES))
        else:
            q0.append(nf.distributions.GlowBase(shape, CLASSES))
    if kind == "Glow":
        return nf.MultiscaleFlow(q0, flows, merges)
    return nf.MultiscaleFlow(q0, flows, merges, transform=nf.transforms.Logit())  # data in (0, 1) to logits


def _class_cond() -> Any:
    """``ClassCondFlow``: RealNVP blocks on a class-conditional Gaussian base."""
    import normflows as nf

    layers = [layer for block in range(LAYERS) for layer in _layers("RealNVP", block)]
    return nf.ClassCondFlow(nf.distributions.ClassCondDiagGaussian(DIM, CLASSES), layers)


def _vae() -> Built:
    import normflows as nf
    import torch
    from torch import nn

    features, latent = 6, DIM
    model = nf.NormalizingFlowVAE(
        nf.distributions.DiagGaussian(latent, trainable=False),
        nf.distributions.NNDiagGaussian(_mlp([features, HIDDEN, 2 * latent])),
        [nf.flows.Planar((latent,)) for _ in range(LAYERS)],
        nf.distributions.NNBernoulliDecoder(_mlp([latent, HIDDEN, features])))

    class ELBO(nn.Module):
        """The training loss of the flow VAE: the negative evidence lower bound over two draws per point."""

        def __init__(self) -> None:
            super().__init__()
            self.vae = model

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            _, log_q, log_p = self.vae(x, num_samples=2)
            return torch.mean(log_q) - torch.mean(log_p)

        def entry_points(self) -> list[Any]:
            return [nf.NormalizingFlowVAE]

    gen = torch.Generator().manual_seed(3)
    x = (torch.rand(BATCH, features, generator=gen) > 0.5).float()
    return ELBO(), (x,), {}


def _hais() -> Built:
    import normflows as nf
    import torch
    from torch import nn

    prior = nf.distributions.DiagGaussian(DIM, trainable=False)
    target = nf.distributions.TwoMoons()
    sampler = nf.sampling.HAIS(torch.linspace(1.0, 0.0, 4), prior, target, 2, torch.full((DIM,), 0.05),
                               torch.zeros(DIM))

    class HAISSample(nn.Module):
        """Hamiltonian annealed importance sampling: weighted draws from the target."""

        def __init__(self) -> None:
            super().__init__()
            self.prior, self.target = prior, target
            self.layers = nn.ModuleList(sampler.layers)  # the HMC transitions, registered for train / eval

        def forward(self) -> Any:
            with torch.enable_grad():  # the leapfrog steps differentiate the log-densities
                return sampler.sample(SAMPLES)

        def entry_points(self) -> list[Any]:
            return [nf.sampling.HAIS.sample]

    return HAISSample(), (), {}


def _with_grad(owner: Any, method: str, **static: Any) -> Any:
    """A method of a flow with Hamiltonian Monte Carlo layers, run with gradients on: the leapfrog steps
    differentiate the target's log-density, so users sample such flows with autograd enabled."""
    import torch
    from gt_calls import Method

    class WithGrad(Method):
        def forward(self, *args: Any, **kwargs: Any) -> Any:
            with torch.enable_grad():
                return super().forward(*args, **kwargs)

    return WithGrad(owner, method, **static)


def build(name: str) -> Built:
    import torch
    from gt_calls import Method

    if name == "VAE.planar":
        return _vae()
    if name == "HAIS.sample":
        return _hais()
    kind, step = name.rsplit(".", 1)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(BATCH, DIM, generator=gen)
    if kind.startswith("context."):
        kind = kind.split(".", 1)[1]
        loc, scale = torch.randn(BATCH, DIM, generator=gen), torch.rand(BATCH, DIM, generator=gen) + 0.5
        context = torch.cat([loc, scale], dim=1)
        model = _conditional(kind)
        if step == "sample":  # one draw per context row
            return Method(model, "sample", num_samples=BATCH), (), {"context": context}
        return Method(model, step), (x, context), {}
    if kind in IMAGE:
        model = _class_cond() if kind == "ClassCondFlow" else _glow(kind)
        y = torch.tensor([0, 1, 2, 1])
        if kind != "ClassCondFlow":
            x = torch.rand(BATCH, *IMAGE_SHAPE, generator=gen)
        if step == "sample":
            return Method(model, "sample", num_samples=BATCH), (), {"y": y}
        return Method(model, step), (x, y), {}
    model = _flow(kind)
    if kind == "SNF":
        return _with_grad(model, step, num_samples=SAMPLES), (), {}
    if kind.startswith("NSF.circular"):  # the angle lives in [-pi, pi)
        x[:, 1] = torch.rand(BATCH, generator=gen) * 6.0 - 3.0
    if step in ("sample", "reverse_kld", "reverse_alpha_div"):
        return Method(model, step, num_samples=SAMPLES), (), {}
    return Method(model, step), (x,), {}
