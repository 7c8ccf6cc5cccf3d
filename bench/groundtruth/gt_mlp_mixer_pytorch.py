"""Ground-truth bench, mlp_mixer_pytorch: MLP-Mixer (Tolstikhin 2021), its 3-d (video) variant and Vision Permutator.

mlp-mixer-pytorch 0.3.1 (lucidrains) exports three factories that return an ``nn.Sequential``: ``MLPMixer``
(patches rearranged by einops, a linear patch embedding, blocks of a token-mixing feedforward of 1-d
convolutions over the patches and a channel-mixing feedforward of linear layers, each a ``PreNormResidual``,
then a mean-pooled linear head), ``MLPMixer3D`` (the same over space-time patches of a video) and
``Permutator`` (Vision Permutator: a ``ParallelSum`` of height, width and channel mixing linear layers
between einops rearrangements, then a feedforward). What the compiled sequential runs of the library is
``PreNormResidual.forward`` and ``ParallelSum.forward`` (its other layers are torch's and einops'), so the
models are ``gt_calls.Run`` holders whose ``entry_points`` are those classes. The families:

- ``MODELS``: ``MLPMixer`` (depth one or two, a rectangular image, one channel, dropout, other expansion
  factors, patches of 2, a batch of one), ``MLPMixer3D`` (rectangular frames, dropout, a time patch of one,
  one channel) and ``Permutator`` (2, 4 or 8 segments, dropout, depth one, patches of 4);
- ``PARTS``: ``PreNormResidual`` around a token-mixing (convolutional) and a channel-mixing feedforward, the
  3-d module's ``PreNormResidual``, the permutator's ``PreNormResidual`` around a ``ParallelSum``, and a
  ``ParallelSum`` alone;
- ``TRAIN``: training steps (cross-entropy, ``backward`` through the network, and an SGD or Adam step) for
  each factory.

Sizes are tiny: a batch of 2, 8 x 8 images of 3 channels (8 x 12 for the rectangular one, videos of 4
frames), width 16, 5 classes. Random weights and inputs from fixed generators, nothing downloaded;
``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
DIM = 16
CLASSES = 5
SIDE = 8
FRAMES = 4
MIXER: dict[str, Any] = {"image_size": SIDE, "channels": 3, "patch_size": 4, "dim": DIM, "depth": 2,
                         "num_classes": CLASSES}
MIXER3D: dict[str, Any] = {**MIXER, "time_size": FRAMES, "time_patch_size": 2}
PERMUTATOR: dict[str, Any] = {"image_size": SIDE, "patch_size": 2, "dim": DIM, "depth": 2, "num_classes": CLASSES,
                              "segments": 4}
# Model name -> (factory: "MLPMixer", "MLPMixer3D" or "Permutator", its keywords, input shape).
MODELS: dict[str, tuple[str, dict[str, Any], tuple[int, ...]]] = {
    "MLPMixer": ("MLPMixer", MIXER, (BATCH, 3, SIDE, SIDE)),
    "MLPMixer.depth1": ("MLPMixer", {**MIXER, "depth": 1}, (BATCH, 3, SIDE, SIDE)),
    "MLPMixer.rectangular": ("MLPMixer", {**MIXER, "image_size": (SIDE, 12)}, (BATCH, 3, SIDE, 12)),
    "MLPMixer.channels1": ("MLPMixer", {**MIXER, "channels": 1}, (BATCH, 1, SIDE, SIDE)),
    "MLPMixer.dropout": ("MLPMixer", {**MIXER, "dropout": 0.1}, (BATCH, 3, SIDE, SIDE)),
    "MLPMixer.expansion": ("MLPMixer", {**MIXER, "expansion_factor": 2, "expansion_factor_token": 1},
                           (BATCH, 3, SIDE, SIDE)),
    "MLPMixer.patch2": ("MLPMixer", {**MIXER, "patch_size": 2}, (BATCH, 3, SIDE, SIDE)),
    "MLPMixer.batch1": ("MLPMixer", MIXER, (1, 3, SIDE, SIDE)),
    "MLPMixer3D": ("MLPMixer3D", MIXER3D, (BATCH, 3, FRAMES, SIDE, SIDE)),
    "MLPMixer3D.rectangular": ("MLPMixer3D", {**MIXER3D, "image_size": (SIDE, 12)}, (BATCH, 3, FRAMES, SIDE, 12)),
    "MLPMixer3D.dropout": ("MLPMixer3D", {**MIXER3D, "dropout": 0.1}, (BATCH, 3, FRAMES, SIDE, SIDE)),
    "MLPMixer3D.time_patch1": ("MLPMixer3D", {**MIXER3D, "time_patch_size": 1, "depth": 1},
                               (BATCH, 3, FRAMES, SIDE, SIDE)),
    "MLPMixer3D.channels1": ("MLPMixer3D", {**MIXER3D, "channels": 1}, (BATCH, 1, FRAMES, SIDE, SIDE)),
    "Permutator": ("Permutator", PERMUTATOR, (BATCH, 3, SIDE, SIDE)),
    "Permutator.segments2": ("Permutator", {**PERMUTATOR, "segments": 2}, (BATCH, 3, SIDE, SIDE)),
    "Permutator.segments8": ("Permutator", {**PERMUTATOR, "segments": 8}, (BATCH, 3, SIDE, SIDE)),
    "Permutator.dropout": ("Permutator", {**PERMUTATOR, "dropout": 0.1}, (BATCH, 3, SIDE, SIDE)),
    "Permutator.depth1": ("Permutator", {**PERMUTATOR, "depth": 1, "expansion_factor": 2}, (BATCH, 3, SIDE, SIDE)),
    "Permutator.patch4": ("Permutator", {**PERMUTATOR, "patch_size": 4}, (BATCH, 3, SIDE, SIDE)),
}
PARTS = ("PreNormResidual.token_mixing", "PreNormResidual.channel_mixing", "MLPMixer3D.PreNormResidual",
         "Permutator.PreNormResidual", "ParallelSum")
# Train step name -> (model name in ``MODELS``, optimizer: None, "sgd" or "adam").
TRAIN: dict[str, tuple[str, str | None]] = {
    "train.MLPMixer": ("MLPMixer", None),
    "train.MLPMixer.sgd": ("MLPMixer.dropout", "sgd"),
    "train.MLPMixer3D": ("MLPMixer3D", None),
    "train.MLPMixer3D.adam": ("MLPMixer3D.rectangular", "adam"),
    "train.Permutator": ("Permutator", None),
    "train.Permutator.adam": ("Permutator.dropout", "adam"),
}


def names() -> list[str]:
    return [*MODELS, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _entries(factory: str) -> list[Any]:
    """The library classes whose ``forward`` the factory's sequential runs."""
    from mlp_mixer_pytorch import mlp_mixer_3d_pytorch, mlp_mixer_pytorch, permutator

    if factory == "MLPMixer":
        return [mlp_mixer_pytorch.PreNormResidual]
    if factory == "MLPMixer3D":
        return [mlp_mixer_3d_pytorch.PreNormResidual]
    return [permutator.PreNormResidual, permutator.ParallelSum]


def _call(owner: Any, x: Any) -> Any:
    return owner(x)


def _model(name: str) -> Built:
    import mlp_mixer_pytorch
    from gt_calls import Run

    factory, keywords, shape = MODELS[name]
    network = getattr(mlp_mixer_pytorch, factory)(**keywords)
    return Run(network, _call, _entries(factory)), (_randn(*shape),), {}


def _part(name: str) -> Built:
    from functools import partial

    from gt_calls import Run
    from mlp_mixer_pytorch import mlp_mixer_3d_pytorch, mlp_mixer_pytorch, permutator
    from torch import nn

    tokens = _randn(BATCH, 4, DIM)
    if name == "PreNormResidual.token_mixing":
        feedforward = mlp_mixer_pytorch.FeedForward(4, 2 * DIM, 0.1, partial(nn.Conv1d, kernel_size=1))
        return mlp_mixer_pytorch.PreNormResidual(DIM, feedforward), (tokens,), {}
    if name == "PreNormResidual.channel_mixing":
        return mlp_mixer_pytorch.PreNormResidual(DIM, mlp_mixer_pytorch.FeedForward(DIM, DIM // 2)), (tokens,), {}
    if name == "MLPMixer3D.PreNormResidual":
        feedforward = mlp_mixer_3d_pytorch.FeedForward(4, 2 * DIM, 0.0, partial(nn.Conv1d, kernel_size=1))
        return mlp_mixer_3d_pytorch.PreNormResidual(DIM, feedforward), (tokens,), {}
    grid = _randn(BATCH, 4, 4, DIM)
    parallel = permutator.ParallelSum(nn.Linear(DIM, DIM), nn.Sequential(nn.Linear(DIM, DIM), nn.GELU()),
                                      nn.Identity())
    if name == "ParallelSum":
        return parallel, (grid,), {}
    block = permutator.PreNormResidual(DIM, nn.Sequential(parallel, nn.Linear(DIM, DIM)))
    return Run(block, _call, [permutator.PreNormResidual, permutator.ParallelSum]), (grid,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    import mlp_mixer_pytorch
    from gt_calls import Run

    model_name, optimizer_name = TRAIN[name]
    factory, keywords, shape = MODELS[model_name]
    network = getattr(mlp_mixer_pytorch, factory)(**keywords)
    optimizer = None
    if optimizer_name == "sgd":
        optimizer = torch.optim.SGD(network.parameters(), lr=1e-2, momentum=0.9)
    elif optimizer_name == "adam":
        optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)
    labels = torch.randint(0, CLASSES, (shape[0],), generator=torch.Generator().manual_seed(2))

    def step(owner: Any, images: Any, targets: Any) -> Any:
        """Cross-entropy over the logits, its gradients and (given an optimizer) one step."""
        loss = F.cross_entropy(owner(images), targets)
        if torch.is_grad_enabled():
            loss.backward()
            if optimizer is not None:
                optimizer.step()
                optimizer.zero_grad()
        return loss.detach()

    return Run(network, step, _entries(factory)), (_randn(*shape), labels), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        return _model(name)
    if name in PARTS:
        return _part(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
