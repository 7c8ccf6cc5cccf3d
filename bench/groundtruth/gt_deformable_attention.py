"""Ground-truth bench, deformable_attention: deformable attention (Xia et al. 2022, DAT) in one, two and three dims.

deformable-attention 0.0.20 (lucidrains) exports ``DeformableAttention1D``, ``DeformableAttention2D`` (also as
``DeformableAttention``) and ``DeformableAttention3D``: grouped 1 x 1 convolutions to queries, an offset network
per offset group (a depthwise strided convolution, GELU, a pointwise one to 1, 2 or 3 offsets, tanh and a
scale), keys and values sampled with ``grid_sample`` at the offset grid (1-d through a 2-d reshape), a
continuous relative position bias from SwinV2 (``CPB``, an MLP over log-spaced distances) and softmax
attention over the sampled keys. The tables cover, at 16 channels, 2 heads of 8 and a batch of 2:

- ``ONE``: ``DeformableAttention1D`` on 32 positions: the default, one offset group, 4 heads in 2 groups,
  ungrouped queries, ungrouped keys and values, a downsampling of 2, a fixed offset scale, linear distances in
  the bias (``cpb_log_distance=False``), dropout, ``return_vgrid``, an odd length, a batch of one;
- ``TWO``: ``DeformableAttention2D`` on 8 x 8 maps (the same options, a non-square 8 x 12 map, an odd 9 x 9
  one) and the ``DeformableAttention`` alias;
- ``THREE``: ``DeformableAttention3D`` on 4 x 8 x 8 volumes with a per-axis downsampling (the same options,
  an isotropic downsampling, a per-axis offset scale);
- ``PARTS``: each module's ``CPB`` alone, and its tensor helpers through ``gt_calls.Call``
  (``grid_sample_1d``, ``normalize_grid``, ``create_grid_like``);
- ``TRAIN``: training steps (bench code holding the library module): a regression loss backward through each
  of the three, and a small convolutional classifier with a deformable attention stage, its cross-entropy
  backward and an Adam step.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, DIM, HEADS, DIM_HEAD, CLASSES = 2, 16, 2, 8, 5
BASE: dict[str, Any] = {"dim": DIM, "heads": HEADS, "dim_head": DIM_HEAD}
# Shared option tables: name suffix -> keywords. Call options: "vgrid" return_vgrid, "shape:AxB.." the input's
# spatial shape, "batch1".
COMMON: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "": ({}, ()),
    ".offset_groups1": ({"offset_groups": 1}, ()),
    ".heads4.offset_groups2": ({"heads": 4, "offset_groups": 2}, ()),
    ".ungrouped_queries": ({"group_queries": False}, ()),
    ".ungrouped_key_values": ({"group_key_values": False, "offset_groups": 1}, ()),
    ".dropout": ({"dropout": 0.1}, ()),
    ".return_vgrid": ({}, ("vgrid",)),
    ".batch1": ({}, ("batch1",)),
}
ONE: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    **{f"DeformableAttention1D{k}": v for k, v in COMMON.items()},
    "DeformableAttention1D.downsample2": ({"downsample_factor": 2, "offset_kernel_size": 4}, ()),
    "DeformableAttention1D.offset_scale": ({"offset_scale": 2.0}, ()),
    "DeformableAttention1D.linear_distance": ({"cpb_log_distance": False}, ()),
    "DeformableAttention1D.odd_length": ({}, ("shape:30",)),
}
TWO: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    **{f"DeformableAttention2D{k}": v for k, v in COMMON.items()},
    "DeformableAttention2D.downsample2": ({"downsample_factor": 2, "offset_kernel_size": 4}, ()),
    "DeformableAttention2D.offset_scale": ({"offset_scale": 2.0}, ()),
    "DeformableAttention2D.rectangular": ({}, ("shape:8x12",)),
    "DeformableAttention2D.odd": ({}, ("shape:9x9",)),
    "DeformableAttention": ({}, ()),
}
KERNEL3 = {"downsample_factor": (2, 4, 4), "offset_kernel_size": (4, 6, 6)}
THREE: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    **{f"DeformableAttention3D{k}": ({**KERNEL3, **v[0]}, v[1]) for k, v in COMMON.items()},
    "DeformableAttention3D.isotropic": ({"downsample_factor": 2, "offset_kernel_size": (4, 4, 4)}, ()),
    "DeformableAttention3D.offset_scale": ({**KERNEL3, "offset_scale": (1.0, 2.0, 2.0)}, ()),
}
PARTS = ("CPB.1d", "CPB.1d.linear_distance", "CPB.2d", "CPB.3d", "grid_sample_1d", "normalize_grid.1d",
         "normalize_grid.2d", "normalize_grid.3d", "create_grid_like.2d", "create_grid_like.3d")
TRAIN = ("train.DeformableAttention1D", "train.DeformableAttention2D", "train.DeformableAttention3D",
         "train.classifier")
SHAPES = {1: (32,), 2: (8, 8), 3: (4, 8, 8)}


def names() -> list[str]:
    return list(ONE) + list(TWO) + list(THREE) + list(PARTS) + list(TRAIN)


def _module(dims: int, keywords: dict[str, Any]) -> Any:
    from deformable_attention import DeformableAttention1D, DeformableAttention2D, DeformableAttention3D

    cls = {1: DeformableAttention1D, 2: DeformableAttention2D, 3: DeformableAttention3D}[dims]
    return cls(**{**BASE, **keywords})


def _attention(dims: int, keywords: dict[str, Any], options: tuple[str, ...]) -> Built:
    shape = SHAPES[dims]
    for option in options:
        if option.startswith("shape:"):
            shape = tuple(int(s) for s in option[6:].split("x"))
    batch = 1 if "batch1" in options else BATCH
    call = {"return_vgrid": True} if "vgrid" in options else {}
    return _module(dims, keywords), (gt_inputs.randn(batch, DIM, *shape, seed=1),), call


def _part(name: str) -> Built:
    import torch

    from deformable_attention import deformable_attention_1d as d1
    from deformable_attention import deformable_attention_2d as d2
    from deformable_attention import deformable_attention_3d as d3
    from gt_calls import Call

    if name.startswith("CPB."):
        if name.startswith("CPB.1d"):
            cpb = d1.CPB(8, heads=HEADS, offset_groups=HEADS, depth=2, log_distance=not name.endswith("distance"))
            grid_q = torch.linspace(-1, 1, 16)
            grid_kv = gt_inputs.randn(BATCH * HEADS, 4, seed=2).tanh()
            return cpb, (grid_q, grid_kv), {}
        module, side = (d2, (4, 4)) if name == "CPB.2d" else (d3, (2, 4, 4))
        cpb = module.CPB(8, heads=HEADS, offset_groups=HEADS, depth=2)
        grid_q = module.normalize_grid(module.create_grid_like(gt_inputs.randn(1, *side)), dim=0)
        grid_kv = gt_inputs.randn(BATCH * HEADS, *(s // 2 for s in side), len(side), seed=2).tanh()
        return cpb, (grid_q, grid_kv), {}
    if name == "grid_sample_1d":
        feats = gt_inputs.randn(BATCH, DIM, 32, seed=1)
        grid = gt_inputs.randn(BATCH, 8, seed=2).tanh()
        return Call(d1.grid_sample_1d, mode="bilinear", padding_mode="zeros", align_corners=False), (feats, grid), {}
    if name == "normalize_grid.1d":
        return Call(d1.normalize_grid), (torch.arange(8).float() + gt_inputs.randn(BATCH, 8, seed=2),), {}
    if name == "normalize_grid.2d":
        return Call(d2.normalize_grid), (gt_inputs.randn(BATCH, 2, 4, 6, seed=2) * 3,), {}
    if name == "normalize_grid.3d":
        return Call(d3.normalize_grid), (gt_inputs.randn(BATCH, 3, 2, 4, 6, seed=2) * 3,), {}
    if name == "create_grid_like.2d":
        return Call(d2.create_grid_like), (gt_inputs.randn(BATCH, 2, 4, 6, seed=2),), {}
    if name == "create_grid_like.3d":
        return Call(d3.create_grid_like), (gt_inputs.randn(BATCH, 3, 2, 4, 6, seed=2),), {}
    raise KeyError(name)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from deformable_attention import DeformableAttention1D, DeformableAttention2D, DeformableAttention3D
    from gt_calls import Run

    def step(owner: Any, x: Any, target: Any) -> Any:
        loss = F.mse_loss(owner(x), target)
        if torch.is_grad_enabled():
            loss.backward()
        return loss.detach()

    if name != "train.classifier":
        dims = int(name[-2])
        module = _module(dims, KERNEL3 if dims == 3 else {})
        entry = {1: DeformableAttention1D, 2: DeformableAttention2D, 3: DeformableAttention3D}[dims]
        shape = (BATCH, DIM, *SHAPES[dims])
        return Run(module, step, [entry]), (gt_inputs.randn(*shape, seed=1), gt_inputs.randn(*shape, seed=2)), {}

    class Classifier(nn.Module):
        """A strided convolutional stem, a residual deformable attention stage, a pooled linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, DIM, 3, 2, padding=1), nn.BatchNorm2d(DIM), nn.GELU())
            self.attention = DeformableAttention2D(**BASE)
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, x: Any) -> Any:
            x = self.stem(x)
            x = x + self.attention(x)
            return self.head(x.mean(dim=(-2, -1)))

    classifier = Classifier()
    optimizer = torch.optim.Adam(classifier.parameters(), lr=1e-3)

    def classify(owner: Any, images: Any, labels: Any) -> Any:
        loss = F.cross_entropy(owner(images), labels)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.detach()

    labels = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(3))
    return Run(classifier, classify, [DeformableAttention2D]), (gt_inputs.randn(BATCH, 3, 16, 16, seed=1), labels), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in ONE:
        return _attention(1, *ONE[name])
    if name in TWO:
        return _attention(2, *TWO[name])
    if name in THREE:
        return _attention(3, *THREE[name])
    if name in PARTS:
        return _part(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
