"""Ground-truth bench, lambda_networks: the lambda layer (LambdaNetworks, Bello 2021) and λ-ResNet-style networks.

lambda_networks 0.4.0 exports ``LambdaLayer`` (also as ``λLayer``): queries, keys and values from 1 x 1
convolutions (batch-normed queries and values), a content lambda from the softmaxed keys, and a position lambda
either from a global relative position embedding over an ``n`` x ``n`` feature map (gathered by a precomputed
index) or from a local context, a 3-d convolution of receptive field ``r`` over the values. ``tfkeras.py`` is
TensorFlow and left out. The families:

- ``LambdaLayer`` alone: global (``n``) and local (``r`` of 3 or 5) contexts, one to four heads, the intra-depth
  ``dim_u`` of 1 or more, an output width other than the input's, a batch of one, a non-square map (local only);
- λ-ResNet usages (bench code holding the library layer, ``entry_points`` the layer): the paper's bottleneck
  block with the lambda layer in place of the 3 x 3 convolution (an average pool after it where it downsamples,
  a projection shortcut), and a tiny λ-ResNet (a convolutional stem, two such blocks, a pooled linear head), its
  logits and a training step's cross-entropy loss.

Sizes are tiny: a batch of 2, 8 x 8 maps of 16 channels (6 x 10 for the non-square one), keys of 8. Random
weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in
a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
DIM = 16
SIDE = 8
CLASSES = 5
GLOBAL = {"dim": DIM, "dim_k": 8, "n": SIDE}
LOCAL = {"dim": DIM, "dim_k": 8, "r": 3}
# Layer name -> (keywords, input (batch, height, width)).
LAYERS: dict[str, tuple[dict[str, Any], tuple[int, int, int]]] = {
    "LambdaLayer.global": (GLOBAL, (BATCH, SIDE, SIDE)),
    "LambdaLayer.global.heads1": ({**GLOBAL, "heads": 1}, (BATCH, SIDE, SIDE)),
    "LambdaLayer.global.heads2.dim_u4": ({**GLOBAL, "heads": 2, "dim_u": 4}, (BATCH, SIDE, SIDE)),
    "LambdaLayer.global.dim_out": ({**GLOBAL, "dim_out": 32, "dim_u": 2}, (BATCH, SIDE, SIDE)),
    "LambdaLayer.global.batch1": ({**GLOBAL, "n": 4}, (1, 4, 4)),
    "LambdaLayer.local": (LOCAL, (BATCH, SIDE, SIDE)),
    "LambdaLayer.local.r5.dim_u4": ({**LOCAL, "r": 5, "dim_u": 4}, (BATCH, SIDE, SIDE)),
    "LambdaLayer.local.heads1.dim_out": ({**LOCAL, "heads": 1, "dim_out": 8}, (BATCH, SIDE, SIDE)),
    "LambdaLayer.local.heads2": ({**LOCAL, "heads": 2, "dim_u": 2}, (BATCH, SIDE, SIDE)),
    "LambdaLayer.local.rectangular": ({**LOCAL, "dim_u": 2}, (BATCH, 6, 10)),
    "LambdaLayer.local.batch1": (LOCAL, (1, SIDE, SIDE)),
}
# λ-ResNet usages: name -> (context: "global" or "local", what runs: "block", "block.downsample", "net", "train").
RESNETS: dict[str, tuple[str, str]] = {
    "LambdaBottleneck.local": ("local", "block"),
    "LambdaBottleneck.global": ("global", "block"),
    "LambdaBottleneck.local.downsample": ("local", "block.downsample"),
    "LambdaResNet.local": ("local", "net"),
    "LambdaResNet.global": ("global", "net"),
    "train.LambdaResNet.local": ("local", "train"),
    "train.LambdaResNet.global": ("global", "train"),
}


def names() -> list[str]:
    return list(LAYERS) + list(RESNETS)


def _image(batch: int, height: int, width: int, channels: int = DIM) -> Any:
    import torch

    return torch.randn(batch, channels, height, width, generator=torch.Generator().manual_seed(1))


def _resnet(context: str, kind: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import Run
    from lambda_networks import LambdaLayer

    def lambda_layer(dim: int, side: int) -> LambdaLayer:
        if context == "global":
            return LambdaLayer(dim, dim_k=8, n=side, heads=4, dim_u=1)
        return LambdaLayer(dim, dim_k=8, r=5, heads=4, dim_u=1)

    class LambdaBottleneck(nn.Module):
        """The λ-ResNet bottleneck: 1 x 1 down, the lambda layer (then a 3 x 3 average pool of stride 2 where it
        downsamples), batch norm and ReLU, 1 x 1 up, and a shortcut (a strided 1 x 1 projection where shapes
        change)."""

        def __init__(self, dim_in: int, dim_out: int, side: int, stride: int = 1) -> None:
            super().__init__()
            mid = dim_out // 2
            self.reduce = nn.Sequential(nn.Conv2d(dim_in, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU())
            pool = nn.AvgPool2d(3, stride, padding=1) if stride > 1 else nn.Identity()
            self.mix = nn.Sequential(lambda_layer(mid, side), pool, nn.BatchNorm2d(mid), nn.ReLU())
            self.expand = nn.Sequential(nn.Conv2d(mid, dim_out, 1, bias=False), nn.BatchNorm2d(dim_out))
            self.shortcut = nn.Identity() if stride == 1 and dim_in == dim_out else nn.Sequential(
                nn.Conv2d(dim_in, dim_out, 1, stride, bias=False), nn.BatchNorm2d(dim_out))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return F.relu(self.expand(self.mix(self.reduce(x))) + self.shortcut(x))

        def entry_points(self) -> list[Any]:
            return [LambdaLayer]

    class LambdaResNet(nn.Module):
        """A tiny λ-ResNet: a strided 3 x 3 stem, a bottleneck at 8 x 8, a downsampling one to 4 x 4, a pooled head."""

        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, DIM, 3, 2, padding=1, bias=False), nn.BatchNorm2d(DIM), nn.ReLU())
            self.blocks = nn.Sequential(LambdaBottleneck(DIM, DIM, SIDE), LambdaBottleneck(DIM, 2 * DIM, SIDE, 2))
            self.head = nn.Linear(2 * DIM, CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.blocks(self.stem(x)).mean(dim=(-2, -1)))

        def entry_points(self) -> list[Any]:
            return [LambdaLayer]

    if kind == "block":
        return LambdaBottleneck(DIM, DIM, SIDE), (_image(BATCH, SIDE, SIDE),), {}
    if kind == "block.downsample":
        return LambdaBottleneck(DIM, 2 * DIM, SIDE, 2), (_image(BATCH, SIDE, SIDE),), {}
    images = _image(BATCH, 2 * SIDE, 2 * SIDE, channels=3)
    if kind == "net":
        return LambdaResNet(), (images,), {}
    labels = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(2))
    return Run(LambdaResNet(), lambda net, x, y: F.cross_entropy(net(x), y), [LambdaLayer]), (images, labels), {}


def build(name: str) -> Built:
    import warnings

    import torch

    from lambda_networks import LambdaLayer

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LAYERS:
        keywords, (batch, height, width) = LAYERS[name]
        keywords = dict(keywords)
        dim = keywords.pop("dim")
        return LambdaLayer(dim, **keywords), (_image(batch, height, width),), {}
    if name in RESNETS:
        return _resnet(*RESNETS[name])
    raise KeyError(name)
