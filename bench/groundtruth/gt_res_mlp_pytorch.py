"""Ground-truth bench, res_mlp_pytorch: ResMLP (Touvron 2021), the all-MLP image classifier with affine norms.

res-mlp-pytorch 0.0.6 (lucidrains) exports ``ResMLP``, a factory returning an ``nn.Sequential``: patches
rearranged by einops, a linear patch embedding, per depth a cross-patch ``nn.Conv1d`` and a cross-channel
feedforward, each wrapped in ``PreAffinePostLayerScale`` (an ``Affine`` before, a learned per-channel
layer scale after, a residual; its initial scale depends on the depth), then an ``Affine``, an einops mean
``Reduce`` and a linear head. What the compiled sequential runs of the library is ``Affine.forward`` and
``PreAffinePostLayerScale.forward``, so the networks are ``gt_calls.Run`` holders whose ``entry_points`` are
those classes. The families:

- ``MODELS``: ``ResMLP`` at depth one, two and deeper (the depth past 18 sets another layer-scale start),
  patches of 2 and 4, a rectangular image, another expansion factor, one class, a batch of one, float64;
- ``PARTS``: ``Affine`` alone, ``PreAffinePostLayerScale`` around the cross-patch convolution and around
  the feedforward (shallow and deep), a bench classifier head over ResMLP features (``return`` before the
  head, as users take embeddings);
- ``TRAIN``: training steps (cross-entropy, ``backward`` through the network, an SGD, Adam or AdamW step
  for some).

Sizes are tiny: a batch of 2, 8 x 8 RGB images (8 x 12 for the rectangular one), width 16, 5 classes. Random
weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in
a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
DIM = 16
CLASSES = 5
SIDE = 8
BASE: dict[str, Any] = {"image_size": SIDE, "patch_size": 4, "dim": DIM, "depth": 2, "num_classes": CLASSES,
                        "expansion_factor": 2}
# Model name -> (keywords, input shape, dtype name).
MODELS: dict[str, tuple[dict[str, Any], tuple[int, ...], str]] = {
    "ResMLP": (BASE, (BATCH, 3, SIDE, SIDE), "float32"),
    "ResMLP.depth1": ({**BASE, "depth": 1}, (BATCH, 3, SIDE, SIDE), "float32"),
    "ResMLP.depth20": ({**BASE, "depth": 20, "expansion_factor": 1}, (BATCH, 3, SIDE, SIDE), "float32"),
    "ResMLP.patch2": ({**BASE, "patch_size": 2}, (BATCH, 3, SIDE, SIDE), "float32"),
    "ResMLP.rectangular": ({**BASE, "image_size": (SIDE, 12)}, (BATCH, 3, SIDE, 12), "float32"),
    "ResMLP.expansion4": ({**BASE, "expansion_factor": 4}, (BATCH, 3, SIDE, SIDE), "float32"),
    "ResMLP.classes1": ({**BASE, "num_classes": 1}, (BATCH, 3, SIDE, SIDE), "float32"),
    "ResMLP.batch1": (BASE, (1, 3, SIDE, SIDE), "float32"),
    "ResMLP.single_patch": ({**BASE, "image_size": 4}, (BATCH, 3, 4, 4), "float32"),
    "ResMLP.float64": (BASE, (BATCH, 3, SIDE, SIDE), "float64"),
}
PARTS = ("Affine", "PreAffinePostLayerScale.cross_patch", "PreAffinePostLayerScale.cross_channel",
         "PreAffinePostLayerScale.deep", "ResMLP.embeddings")
# Train step name -> (model name in ``MODELS``, optimizer: None, "sgd", "adam" or "adamw").
TRAIN: dict[str, tuple[str, str | None]] = {
    "train.ResMLP": ("ResMLP", None),
    "train.ResMLP.sgd": ("ResMLP", "sgd"),
    "train.ResMLP.adam": ("ResMLP.patch2", "adam"),
    "train.ResMLP.adamw.rectangular": ("ResMLP.rectangular", "adamw"),
    "train.ResMLP.depth1": ("ResMLP.depth1", None),
}


def names() -> list[str]:
    return [*MODELS, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: str = "float32") -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=getattr(torch, dtype))


def _entries() -> list[Any]:
    from res_mlp_pytorch.res_mlp_pytorch import Affine, PreAffinePostLayerScale

    return [Affine, PreAffinePostLayerScale]


def _call(owner: Any, x: Any) -> Any:
    return owner(x)


def _network(keywords: dict[str, Any]) -> Any:
    from res_mlp_pytorch import ResMLP

    return ResMLP(**keywords)


def _model(name: str) -> Built:
    from gt_calls import Run

    keywords, shape, dtype = MODELS[name]
    network = _network(keywords)
    if dtype == "float64":
        network = network.double()
    return Run(network, _call, _entries()), (_randn(*shape, dtype=dtype),), {}


def _part(name: str) -> Built:
    from torch import nn

    from gt_calls import Run
    from res_mlp_pytorch.res_mlp_pytorch import Affine, PreAffinePostLayerScale

    patches = 4
    tokens = _randn(BATCH, patches, DIM)
    if name == "Affine":
        return Affine(DIM), (tokens,), {}
    if name == "PreAffinePostLayerScale.cross_patch":
        return PreAffinePostLayerScale(DIM, 1, nn.Conv1d(patches, patches, 1)), (tokens,), {}
    if name == "PreAffinePostLayerScale.cross_channel":
        feedforward = nn.Sequential(nn.Linear(DIM, 2 * DIM), nn.GELU(), nn.Linear(2 * DIM, DIM))
        return PreAffinePostLayerScale(DIM, 2, feedforward), (tokens,), {}
    if name == "PreAffinePostLayerScale.deep":
        return PreAffinePostLayerScale(DIM, 30, nn.Linear(DIM, DIM)), (tokens,), {}
    # Embeddings: the network without its linear head (users take ``model[:-1]`` for features).
    network = _network(BASE)
    return Run(network[:-1], _call, _entries()), (_randn(BATCH, 3, SIDE, SIDE),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run

    model_name, optimizer_name = TRAIN[name]
    keywords, shape, _ = MODELS[model_name]
    network = _network(keywords)
    optimizer = None
    if optimizer_name == "sgd":
        optimizer = torch.optim.SGD(network.parameters(), lr=1e-2, momentum=0.9)
    elif optimizer_name == "adam":
        optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)
    elif optimizer_name == "adamw":
        optimizer = torch.optim.AdamW(network.parameters(), lr=1e-3, weight_decay=0.05)
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

    return Run(network, step, _entries()), (_randn(*shape), labels), {}


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
