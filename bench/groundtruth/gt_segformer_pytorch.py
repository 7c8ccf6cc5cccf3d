"""Ground-truth bench, segformer_pytorch: SegFormer (Xie 2021), a hierarchical transformer for semantic segmentation.

segformer-pytorch 0.0.6 (lucidrains) has ``Segformer``: the Mix Transformer encoder ``MiT`` (four stages, each an
overlapping patch embedding by ``nn.Unfold`` and a 1 x 1 convolution, the unfolded patches folded back into a
grid whose side the forward works out from the patch count, then layers of ``PreNorm`` (a channel ``LayerNorm``
of its own) around ``EfficientSelfAttention`` (keys and values from a strided convolution, reduced by
``reduction_ratio``) and around ``MixFeedForward`` (1 x 1 convolutions around a depthwise-separable ``DsConv2d``)),
then an all-MLP decoder: each stage's output projected and upsampled, concatenated, and projected to the classes.
Every constructor argument is a value or a tuple of four (one a stage, spread by ``cast_tuple``). ``MiT.forward``
returns the last stage or, with ``return_layer_outputs``, every stage's. The tables cover, at widths (8, 16, 24,
32), 32 x 32 images, a batch of 2:

- ``MODELS``: ``Segformer.forward`` with per-stage and single-value arguments (widths, heads, expansion,
  reduction ratios, layers), one or two layers a stage, no spatial reduction, one head, one channel,
  rectangular and larger images, a narrow decoder, one class, a batch of one; ``MiT.forward`` with and without
  ``return_layer_outputs``;
- ``PARTS``: ``EfficientSelfAttention`` (reduction 1, 2 and 4, rectangular maps), ``MixFeedForward``, ``DsConv2d``
  (stride 1 and 2, no bias), the channel ``LayerNorm``, ``PreNorm`` around attention and feedforward;
- ``TRAIN``: training steps: pixel-wise cross-entropy of the logits upsampled to the image (as the segmentation
  head is used), backward and an Adam or SGD step, for several configurations, a feature loss on the encoder's
  stages, and one attention block.

Nothing was left out: every class and option of the package is exercised. Random weights and inputs from fixed
generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SIDE, CLASSES = 2, 32, 4
BASE: dict[str, Any] = {"dims": (8, 16, 24, 32), "heads": (1, 2, 2, 4), "ff_expansion": (2, 2, 2, 2),
                        "reduction_ratio": (4, 2, 1, 1), "num_layers": 1, "decoder_dim": 16, "num_classes": CLASSES}
IMAGE = (BATCH, 3, SIDE, SIDE)

# Model name -> (constructor keywords over BASE, image shape).
MODELS: dict[str, tuple[dict[str, Any], tuple[int, ...]]] = {
    "Segformer": ({}, IMAGE),
    "Segformer.layers2": ({"num_layers": 2}, IMAGE),
    "Segformer.layers_per_stage": ({"num_layers": (2, 1, 1, 2)}, IMAGE),
    "Segformer.scalar_dims_heads": ({"dims": 16, "heads": 2, "ff_expansion": 2}, IMAGE),
    "Segformer.no_reduction": ({"reduction_ratio": 1}, IMAGE),
    "Segformer.reduction_default": ({"reduction_ratio": (8, 4, 2, 1)}, (BATCH, 3, 64, 64)),
    "Segformer.heads1": ({"heads": 1}, IMAGE),
    "Segformer.expansion4": ({"ff_expansion": (4, 4, 2, 2)}, IMAGE),
    "Segformer.channels1": ({"channels": 1}, (BATCH, 1, SIDE, SIDE)),
    "Segformer.channels4": ({"channels": 4}, (BATCH, 4, SIDE, SIDE)),
    "Segformer.rectangular": ({}, (BATCH, 3, SIDE, 64)),
    "Segformer.image64": ({}, (BATCH, 3, 64, 64)),
    "Segformer.decoder8": ({"decoder_dim": 8}, IMAGE),
    "Segformer.classes1": ({"num_classes": 1}, IMAGE),
    "Segformer.batch1": ({}, (1, 3, SIDE, SIDE)),
    "Segformer.defaults_small": ({"dims": (8, 16, 40, 64)}, IMAGE),
    "MiT": ({}, IMAGE),
    "MiT.return_layer_outputs": ({}, IMAGE),
    "MiT.layers2.rectangular": ({"num_layers": 2}, (BATCH, 3, 64, SIDE)),
}
PARTS = ("EfficientSelfAttention.r1", "EfficientSelfAttention.r2", "EfficientSelfAttention.r4.heads4",
         "EfficientSelfAttention.rectangular", "MixFeedForward", "MixFeedForward.expansion1", "DsConv2d",
         "DsConv2d.stride2.no_bias", "LayerNorm", "LayerNorm.eps", "PreNorm.EfficientSelfAttention",
         "PreNorm.MixFeedForward")
# Train step name -> (model name in MODELS or "", optimizer).
TRAIN: dict[str, tuple[str, str]] = {
    "train.Segformer.adam": ("Segformer", "adam"),
    "train.Segformer.layers2.sgd": ("Segformer.layers2", "sgd"),
    "train.Segformer.no_reduction.adam": ("Segformer.no_reduction", "adam"),
    "train.Segformer.rectangular.adam": ("Segformer.rectangular", "adam"),
    "train.Segformer.scalar_dims_heads.sgd": ("Segformer.scalar_dims_heads", "sgd"),
    "train.MiT.features.adam": ("MiT.return_layer_outputs", "adam"),
    "train.PreNorm.EfficientSelfAttention.adam": ("", "adam"),
}


def names() -> list[str]:
    return [*MODELS, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _network(name: str) -> Any:
    """The model of ``MODELS[name]``: a ``Segformer``, or the ``MiT`` encoder configured as ``Segformer`` does."""
    from segformer_pytorch import segformer_pytorch as sp

    keywords = {**BASE, **MODELS[name][0]}
    if not name.startswith("MiT"):
        return sp.Segformer(**keywords)
    tuples = {k: sp.cast_tuple(keywords[k], depth=4)
              for k in ("dims", "heads", "ff_expansion", "reduction_ratio", "num_layers")}
    return sp.MiT(channels=keywords.get("channels", 3), **tuples)


def _model(name: str) -> Built:
    from gt_calls import Keywords

    network = _network(name)
    image = _randn(*MODELS[name][1])
    if name.startswith("MiT."):
        return Keywords(network, return_layer_outputs=name.endswith("return_layer_outputs")), (image,), {}
    return network, (image,), {}


def _part(name: str) -> Built:
    from segformer_pytorch import segformer_pytorch as sp

    grid = _randn(BATCH, 16, 8, 8)
    if name.startswith("EfficientSelfAttention"):
        ratio = {"r1": 1, "r2": 2, "r4": 4, "rectangular": 2}[name.split(".")[1]]
        heads = 4 if name.endswith("heads4") else 2
        block = sp.EfficientSelfAttention(dim=16, heads=heads, reduction_ratio=ratio)
        return block, (_randn(BATCH, 16, 8, 12) if name.endswith("rectangular") else grid,), {}
    if name == "MixFeedForward":
        return sp.MixFeedForward(dim=16, expansion_factor=2), (grid,), {}
    if name == "MixFeedForward.expansion1":
        return sp.MixFeedForward(dim=16, expansion_factor=1), (_randn(BATCH, 16, 4, 6),), {}
    if name == "DsConv2d":
        return sp.DsConv2d(16, 24, 3, padding=1), (grid,), {}
    if name == "DsConv2d.stride2.no_bias":
        return sp.DsConv2d(16, 8, 3, padding=1, stride=2, bias=False), (grid,), {}
    if name == "LayerNorm":
        return sp.LayerNorm(16), (grid,), {}
    if name == "LayerNorm.eps":
        return sp.LayerNorm(16, eps=1e-3), (_randn(1, 16, 3, 5),), {}
    if name == "PreNorm.EfficientSelfAttention":
        return sp.PreNorm(16, sp.EfficientSelfAttention(dim=16, heads=2, reduction_ratio=2)), (grid,), {}
    if name == "PreNorm.MixFeedForward":
        return sp.PreNorm(16, sp.MixFeedForward(dim=16, expansion_factor=2)), (grid,), {}
    raise KeyError(name)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from segformer_pytorch import segformer_pytorch as sp

    model_name, optimizer_name = TRAIN[name]
    if not model_name:
        model: Any = sp.PreNorm(16, sp.EfficientSelfAttention(dim=16, heads=2, reduction_ratio=2))
        inputs: tuple[Any, ...] = (_randn(BATCH, 16, 8, 8),)
        target = _randn(BATCH, 16, 8, 8, seed=3)
        entries: list[Any] = [sp.PreNorm, sp.EfficientSelfAttention, sp.LayerNorm]

        def loss_of(owner: Any, x: Any) -> Any:
            return F.mse_loss(owner(x) + x, target)
    elif model_name.startswith("MiT"):
        model = _network(model_name)
        inputs = (_randn(*MODELS[model_name][1]),)
        targets = [torch.zeros(()) + i for i in range(4)]
        entries = [sp.MiT]

        def loss_of(owner: Any, x: Any) -> Any:
            stages = owner(x, return_layer_outputs=True)
            return sum(F.mse_loss(s.mean(dim=(2, 3)), t.expand(s.shape[:2])) for s, t in zip(stages, targets))
    else:
        model = _network(model_name)
        shape = MODELS[model_name][1]
        inputs = (_randn(*shape),)
        labels = torch.randint(0, CLASSES, (shape[0], *shape[2:]), generator=torch.Generator().manual_seed(2))
        entries = [sp.Segformer]

        def loss_of(owner: Any, x: Any) -> Any:
            logits = F.interpolate(owner(x), size=x.shape[-2:], mode="bilinear", align_corners=False)
            return F.cross_entropy(logits, labels)

    params = list(model.parameters())
    optimizer: Any = torch.optim.Adam(params, lr=1e-3) if optimizer_name == "adam" else torch.optim.SGD(params, lr=0.1)

    def step(owner: Any, x: Any) -> Any:
        """The loss, its gradients and an optimizer step."""
        loss = loss_of(owner, x)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, entries), inputs, {}


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
