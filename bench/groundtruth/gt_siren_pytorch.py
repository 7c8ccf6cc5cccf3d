"""Ground-truth bench, siren_pytorch: SIREN layers and networks (sine activations) fitting implicit images.

siren_pytorch 0.1.7 exports ``Sine``, ``Siren`` (a linear layer with its sine activation, or another, and dropout),
``SirenNet`` (a stack of them and a last layer with an optional final activation, each hidden layer optionally
multiplied by a modulation vector) and ``SirenWrapper`` (a ``SirenNet`` over the coordinate grid of an image:
returns the image, or the MSE loss against a given image; with ``latent_dim`` a ``Modulator`` MLP turns a latent
vector into the per-layer modulations). The families:

- ``Sine`` (a frequency ``w0``) and ``Siren`` (first layer, no bias, another activation, dropout);
- ``SirenNet`` over a batch of coordinates: depths, no bias, a final activation, dropout, modulations (one vector
  broadcast to every layer, or a tuple of one per layer, ``None`` among them);
- ``SirenWrapper``: the image (square or not), the loss against an image (the README's training step), with a
  latent and its modulator, and ``Modulator`` on its own (a latent to per-layer modulations);
- training steps a user writes (bench code through ``gt_calls.Run``): a ``SirenNet`` fit to target values at
  coordinates (with and without modulations), and the wrapper's loss averaged over a batch of images and their
  latents (an auto-decoder's step).

Sizes are tiny: images of 8 x 8 (or 6 x 10) pixels in 3 channels, 2-d coordinates, hidden width 16, 2 to 4
layers, latents of 8. Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

POINTS = 32  # coordinates in a batch
HIDDEN = 16
LATENT = 8
NET = {"dim_in": 2, "dim_hidden": HIDDEN, "dim_out": 3, "num_layers": 3}
# Layer name -> (class, keywords, input): "coords" (POINTS, 2), "hidden" (POINTS, HIDDEN), "latent" (LATENT,).
# "activation" keywords name a module resolved in the worker.
LAYERS: dict[str, tuple[str, dict[str, Any], str]] = {
    "Sine": ("Sine", {}, "hidden"),
    "Sine.w0": ("Sine", {"w0": 30.0}, "hidden"),
    "Siren": ("Siren", {"dim_in": HIDDEN, "dim_out": HIDDEN}, "hidden"),
    "Siren.first": ("Siren", {"dim_in": 2, "dim_out": HIDDEN, "w0": 30.0, "is_first": True}, "coords"),
    "Siren.no_bias": ("Siren", {"dim_in": HIDDEN, "dim_out": 4, "use_bias": False, "c": 3.0}, "hidden"),
    "Siren.relu": ("Siren", {"dim_in": HIDDEN, "dim_out": HIDDEN, "activation": "relu"}, "hidden"),
    "Siren.dropout": ("Siren", {"dim_in": HIDDEN, "dim_out": HIDDEN, "dropout": 0.2}, "hidden"),
    "Modulator": ("Modulator", {"dim_in": LATENT, "dim_hidden": HIDDEN, "num_layers": 3}, "latent"),
}
# SirenNet name -> (keywords over NET, modulations: None, "one" (a vector for every layer), "per_layer" (a tuple,
# one per layer), "some_layers" (a tuple with None among them)). "final_activation" names a module.
NETS: dict[str, tuple[dict[str, Any], str | None]] = {
    "SirenNet": ({}, None),
    "SirenNet.two_layers": ({"num_layers": 2}, None),
    "SirenNet.no_bias": ({"use_bias": False}, None),
    "SirenNet.final_sigmoid": ({"final_activation": "sigmoid"}, None),
    "SirenNet.dropout": ({"dropout": 0.1}, None),
    "SirenNet.w0": ({"w0": 2.0, "w0_initial": 10.0, "num_layers": 4}, None),
    "SirenNet.mods.one": ({}, "one"),
    "SirenNet.mods.per_layer": ({}, "per_layer"),
    "SirenNet.mods.some_layers": ({}, "some_layers"),
    "SirenNet.mods.dropout": ({"dropout": 0.1, "num_layers": 2}, "per_layer"),
}
# SirenWrapper name -> (net keywords over NET, image (height, width), latent, image given (the loss)).
WRAPPERS: dict[str, tuple[dict[str, Any], tuple[int, int], bool, bool]] = {
    "SirenWrapper": ({}, (8, 8), False, False),
    "SirenWrapper.loss": ({}, (8, 8), False, True),
    "SirenWrapper.rectangular": ({"num_layers": 2}, (6, 10), False, False),
    "SirenWrapper.rectangular.loss": ({"num_layers": 2, "final_activation": "sigmoid"}, (6, 10), False, True),
    "SirenWrapper.latent": ({}, (8, 8), True, False),
    "SirenWrapper.latent.loss": ({}, (8, 8), True, True),
    "SirenWrapper.latent.dropout.loss": ({"dropout": 0.1, "num_layers": 4}, (6, 10), True, True),
}
# Training steps a user writes around the library (bench code through ``gt_calls.Run``).
TRAIN = ("train.SirenNet.fit", "train.SirenNet.mods.fit", "train.SirenWrapper.latents")


def names() -> list[str]:
    return list(LAYERS) + list(NETS) + list(WRAPPERS) + list(TRAIN)


def _gen(seed: int = 1) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _net(keywords: dict[str, Any]) -> Any:
    from torch import nn

    from siren_pytorch import SirenNet

    resolved = {"sigmoid": nn.Sigmoid(), "relu": nn.ReLU()}
    keywords = {k: resolved[v] if isinstance(v, str) else v for k, v in {**NET, **keywords}.items()}
    return SirenNet(**keywords)


def _mods(kind: str | None, num_layers: int) -> Any:
    """The modulations passed to ``SirenNet``: None, one vector, or a tuple of one per layer (None among them)."""
    import torch

    gen = _gen(2)
    vectors = tuple(torch.rand(HIDDEN, generator=gen) + 0.5 for _ in range(num_layers))
    if kind == "one":
        return vectors[0]
    if kind == "some_layers":
        return tuple(v if i % 2 == 0 else None for i, v in enumerate(vectors))
    return vectors if kind == "per_layer" else None


def _layer(name: str) -> Built:
    import torch
    from torch import nn

    from siren_pytorch import siren_pytorch

    cls, keywords, spec = LAYERS[name]
    if "activation" in keywords:
        keywords = {**keywords, "activation": nn.ReLU()}
    inputs = {"coords": torch.rand(POINTS, 2, generator=_gen()) * 2 - 1,
              "hidden": torch.randn(POINTS, HIDDEN, generator=_gen()), "latent": torch.randn(LATENT, generator=_gen())}
    return getattr(siren_pytorch, cls)(**keywords), (inputs[spec],), {}


def _siren_net(name: str) -> Built:
    import torch

    from gt_calls import Keywords

    keywords, kind = NETS[name]
    net = _net(keywords)
    coords = torch.rand(POINTS, 2, generator=_gen()) * 2 - 1
    mods = _mods(kind, net.num_layers)
    if mods is None:
        return net, (coords,), {}
    return Keywords(net, mods=mods), (coords,), {}


def _wrapper(name: str) -> Built:
    import torch

    from siren_pytorch import SirenWrapper

    keywords, (height, width), latent, loss = WRAPPERS[name]
    wrapper = SirenWrapper(_net(keywords), image_width=width, image_height=height,
                           latent_dim=LATENT if latent else None)
    args = (torch.rand(1, NET["dim_out"], height, width, generator=_gen()),) if loss else ()
    kwargs = {"latent": torch.randn(LATENT, generator=_gen(3))} if latent else {}
    return wrapper, args, kwargs


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from siren_pytorch import SirenNet, SirenWrapper

    gen = _gen()
    coords = torch.rand(POINTS, 2, generator=gen) * 2 - 1
    if name.startswith("train.SirenNet"):
        net = _net({"final_activation": "sigmoid"})
        target = torch.rand(POINTS, NET["dim_out"], generator=gen)
        if name == "train.SirenNet.mods.fit":
            mods = _mods("per_layer", net.num_layers)
            return Run(net, lambda net, x, y: F.mse_loss(net(x, mods), y), [SirenNet]), (coords, target), {}
        return Run(net, lambda net, x, y: F.mse_loss(net(x), y), [SirenNet]), (coords, target), {}
    # A batch of (image, latent) pairs, each through the wrapper's loss, averaged (an auto-decoder's step).
    wrapper = SirenWrapper(_net({}), image_width=8, image_height=8, latent_dim=LATENT)
    images = torch.rand(2, 1, NET["dim_out"], 8, 8, generator=gen)
    latents = torch.randn(2, LATENT, generator=gen)

    def step(wrapper: Any, images: torch.Tensor, latents: torch.Tensor) -> torch.Tensor:
        losses = [wrapper(image, latent=latent) for image, latent in zip(images, latents)]
        return torch.stack(losses).mean()

    return Run(wrapper, step, [SirenWrapper]), (images, latents), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LAYERS:
        return _layer(name)
    if name in NETS:
        return _siren_net(name)
    if name in WRAPPERS:
        return _wrapper(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
