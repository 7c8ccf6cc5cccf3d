"""Ground-truth bench, halonet_pytorch: blocked local self-attention with halos (HaloNet, Vaswani 2021).

halonet-pytorch 0.0.5 (lucidrains) exports ``HaloAttention``: a feature map cut into ``block_size`` x
``block_size`` query blocks (einops), keys and values from each block widened by ``halo_size`` on every side
(``F.unfold`` with padding), multi-head attention inside each neighbourhood with a relative position bias
(``RelPosEmb``: ``relative_logits_1d`` along width and height, each through ``rel_to_abs``), the padding
masked out (a mask built by unfolding a map of ones), and the blocks merged back into the map. So the tables
cover, at a batch of 2 and maps of 8 channels:

- ``LAYERS``: ``HaloAttention`` with blocks of 2, 4 and 8 (one block per map) and halos of 1 to 3 (a halo
  wider than the block too), one to four heads, other head widths, a rectangular map, a batch of one, a
  single-channel map, float64;
- ``PARTS``: ``RelPosEmb`` alone, and the helpers ``rel_to_abs``, ``relative_logits_1d`` and ``expand_dim``
  as functions;
- ``USAGES`` (bench modules holding the library layer, ``entry_points`` ``HaloAttention``): the HaloNet
  bottleneck block (1 x 1 down, halo attention, 1 x 1 up, batch norms, a residual; a strided projection and an
  average pool where it downsamples) and a tiny HaloNet (a convolutional stem, two blocks, a pooled head);
- ``TRAIN``: training steps (a regression loss through the layer, cross-entropy through the network,
  ``backward``, an SGD or Adam step for some).

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
DIM = 8
SIDE = 8
CLASSES = 5
BASE: dict[str, Any] = {"dim": DIM, "block_size": 4, "halo_size": 1, "dim_head": 8, "heads": 2}
# Layer name -> (keywords, input (batch, channels, height, width), dtype name).
LAYERS: dict[str, tuple[dict[str, Any], tuple[int, int, int, int], str]] = {
    "HaloAttention": (BASE, (BATCH, DIM, SIDE, SIDE), "float32"),
    "HaloAttention.block2.halo1": ({**BASE, "block_size": 2}, (BATCH, DIM, SIDE, SIDE), "float32"),
    "HaloAttention.block4.halo2": ({**BASE, "halo_size": 2}, (BATCH, DIM, SIDE, SIDE), "float32"),
    "HaloAttention.block2.halo3": ({**BASE, "block_size": 2, "halo_size": 3}, (BATCH, DIM, SIDE, SIDE), "float32"),
    "HaloAttention.block8.halo1": ({**BASE, "block_size": 8}, (BATCH, DIM, SIDE, SIDE), "float32"),
    "HaloAttention.heads1": ({**BASE, "heads": 1, "dim_head": 16}, (BATCH, DIM, SIDE, SIDE), "float32"),
    "HaloAttention.heads4.dim_head4": ({**BASE, "heads": 4, "dim_head": 4}, (BATCH, DIM, SIDE, SIDE), "float32"),
    "HaloAttention.defaults": ({"dim": DIM, "block_size": 4, "halo_size": 1}, (BATCH, DIM, SIDE, SIDE), "float32"),
    "HaloAttention.rectangular": (BASE, (BATCH, DIM, SIDE, 12), "float32"),
    "HaloAttention.rectangular.block2.halo2": ({**BASE, "block_size": 2, "halo_size": 2}, (BATCH, DIM, 4, SIDE),
                                               "float32"),
    "HaloAttention.batch1": (BASE, (1, DIM, SIDE, SIDE), "float32"),
    "HaloAttention.dim1": ({**BASE, "dim": 1}, (BATCH, 1, SIDE, SIDE), "float32"),
    "HaloAttention.float64": (BASE, (BATCH, DIM, SIDE, SIDE), "float64"),
}
PARTS = ("RelPosEmb.block4.halo1", "RelPosEmb.block2.halo2", "rel_to_abs", "relative_logits_1d", "expand_dim")
# Usage name -> (what runs: "block", "block.downsample" or "net", block size, halo size).
USAGES: dict[str, tuple[str, int, int]] = {
    "HaloBlock": ("block", 4, 1),
    "HaloBlock.block2.halo1": ("block", 2, 1),
    "HaloBlock.downsample": ("block.downsample", 4, 2),
    "HaloNet": ("net", 4, 1),
    "HaloNet.block2.halo2": ("net", 2, 2),
}
# Train step name -> (layer name in ``LAYERS`` or usage name in ``USAGES``, optimizer: None, "sgd" or "adam").
TRAIN: dict[str, tuple[str, str | None]] = {
    "train.HaloAttention": ("HaloAttention", None),
    "train.HaloAttention.block2.halo3.sgd": ("HaloAttention.block2.halo3", "sgd"),
    "train.HaloAttention.rectangular.adam": ("HaloAttention.rectangular", "adam"),
    "train.HaloNet": ("HaloNet", None),
    "train.HaloNet.adam": ("HaloNet.block2.halo2", "adam"),
    "train.HaloBlock.downsample.sgd": ("HaloBlock.downsample", "sgd"),
}


def names() -> list[str]:
    return [*LAYERS, *PARTS, *USAGES, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: str = "float32") -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=getattr(torch, dtype))


def _layer(name: str) -> Built:
    from halonet_pytorch import HaloAttention

    keywords, shape, dtype = LAYERS[name]
    layer = HaloAttention(**keywords)
    if dtype == "float64":
        layer = layer.double()
    return layer, (_randn(*shape, dtype=dtype),), {}


def _part(name: str) -> Built:
    from gt_calls import Call
    from halonet_pytorch import halonet_pytorch as halo

    dim_head = 8
    if name.startswith("RelPosEmb"):
        block, halo_size = (4, 1) if name == "RelPosEmb.block4.halo1" else (2, 2)
        embedding = halo.RelPosEmb(block_size=block, rel_size=block + 2 * halo_size, dim_head=dim_head)
        # Queries per block of pixels, as ``HaloAttention`` passes them: (blocks x heads, block^2, dim_head).
        return embedding, (_randn(6, block * block, dim_head),), {}
    if name == "rel_to_abs":
        # (batch x rows, block, 2 x (block + 2 halo) - 1) relative logits.
        return Call(halo.rel_to_abs), (_randn(6, 4, 11),), {}
    if name == "relative_logits_1d":
        return Call(halo.relative_logits_1d), (_randn(3, 4, 4, dim_head), _randn(11, dim_head, seed=2)), {}
    return Call(halo.expand_dim, dim=2, k=3), (_randn(3, 4, 5),), {}


def _usage_module(what: str, block: int, halo_size: int) -> Any:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from halonet_pytorch import HaloAttention

    class HaloBlock(nn.Module):
        """The HaloNet bottleneck: 1 x 1 down, halo attention (an average pool of stride 2 after it where it
        downsamples), batch norm and ReLU, 1 x 1 up, and a shortcut (a strided 1 x 1 projection where shapes
        change)."""

        def __init__(self, dim_in: int, dim_out: int, stride: int = 1) -> None:
            super().__init__()
            mid = dim_out // 2
            self.reduce = nn.Sequential(nn.Conv2d(dim_in, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU())
            self.attention = HaloAttention(dim=mid, block_size=block, halo_size=halo_size, dim_head=4, heads=2)
            self.pool = nn.AvgPool2d(2) if stride > 1 else nn.Identity()
            self.norm = nn.Sequential(nn.BatchNorm2d(mid), nn.ReLU())
            self.expand = nn.Sequential(nn.Conv2d(mid, dim_out, 1, bias=False), nn.BatchNorm2d(dim_out))
            self.shortcut = nn.Identity() if stride == 1 and dim_in == dim_out else nn.Sequential(
                nn.Conv2d(dim_in, dim_out, 1, stride, bias=False), nn.BatchNorm2d(dim_out))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.norm(self.pool(self.attention(self.reduce(x))))
            return F.relu(self.expand(h) + self.shortcut(x))

        def entry_points(self) -> list[Any]:
            return [HaloAttention]

    class HaloNet(nn.Module):
        """A tiny HaloNet: a strided 3 x 3 stem, a block at 8 x 8, a downsampling one, a pooled linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
            self.blocks = nn.Sequential(HaloBlock(16, 16), HaloBlock(16, 32, stride=2))
            self.head = nn.Linear(32, CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.blocks(self.stem(x)).mean(dim=(-2, -1)))

        def entry_points(self) -> list[Any]:
            return [HaloAttention]

    if what == "block":
        return HaloBlock(16, 16)
    if what == "block.downsample":
        return HaloBlock(16, 32, stride=2)
    return HaloNet()


def _usage_input(what: str) -> Any:
    if what == "net":
        return _randn(BATCH, 3, 2 * SIDE, 2 * SIDE)
    return _randn(BATCH, 16, SIDE, SIDE)


def _usage(name: str) -> Built:
    what, block, halo_size = USAGES[name]
    return _usage_module(what, block, halo_size), (_usage_input(what),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from halonet_pytorch import HaloAttention

    source, optimizer_name = TRAIN[name]
    generator = torch.Generator().manual_seed(3)
    if source in LAYERS:
        keywords, shape, _ = LAYERS[source]
        network = HaloAttention(**keywords)
        inputs = _randn(*shape)
        targets = torch.randn(*shape, generator=generator)
        classify = False
    else:
        what, block, halo_size = USAGES[source]
        network = _usage_module(what, block, halo_size)
        inputs = _usage_input(what)
        classify = what == "net"
        out_shape = (BATCH, 32, SIDE // 2, SIDE // 2) if what == "block.downsample" else tuple(inputs.shape)
        targets = (torch.randint(0, CLASSES, (BATCH,), generator=generator) if classify
                   else torch.randn(*out_shape, generator=generator))
    optimizer = None
    if optimizer_name == "sgd":
        optimizer = torch.optim.SGD(network.parameters(), lr=1e-2, momentum=0.9)
    elif optimizer_name == "adam":
        optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)

    def step(owner: Any, x: Any, target: Any) -> Any:
        """The loss of the output, its gradients and (given an optimizer) one step."""
        out = owner(x)
        loss = F.cross_entropy(out, target) if classify else F.mse_loss(out, target)
        if torch.is_grad_enabled():
            loss.backward()
            if optimizer is not None:
                optimizer.step()
                optimizer.zero_grad()
        return loss.detach()

    return Run(network, step, [HaloAttention]), (inputs, targets), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LAYERS:
        return _layer(name)
    if name in PARTS:
        return _part(name)
    if name in USAGES:
        return _usage(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
