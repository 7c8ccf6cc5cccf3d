"""Ground-truth bench, point_transformer_pytorch: the Point Transformer layer (Zhao 2021), one head and many.

point-transformer-pytorch 0.1.5 (lucidrains) exports two layers over a point cloud (features ``x`` of shape
batch x points x dim, coordinates ``pos`` of batch x points x 3, an optional boolean ``mask`` of the points):
``PointTransformerLayer`` (vector attention: queries minus keys plus a relative position embedding from an MLP
over coordinate differences, an attention MLP of linear layers, a softmax over the neighbours, no output
projection) and ``MultiheadPointTransformerLayer`` (the same split into heads, its attention MLP grouped 1 x 1
convolutions, an output projection). Given ``num_neighbors`` under the number of points, each point keeps only
its nearest neighbours (``topk`` over the masked distances, then ``batched_index_select`` of values,
differences, embeddings and the mask). So the tables cover, at a batch of 2 and 8 points of width 16:

- ``LAYERS``: both layers with and without a mask (some points masked, every point kept), ``num_neighbors``
  under the point count (1, 3 or 4 neighbours, with and without a mask), equal to it and above it (the full
  path), other hidden sizes, one to four heads, a batch of one, float64 inputs;
- ``HELPERS``: ``batched_index_select`` of each module over the dimensions the layers use;
- ``USAGES`` (bench modules holding the library layers, ``entry_points`` the layer classes): the paper's
  point transformer block (linear, layer, linear, residual), a small classifier (an embedding, two blocks, a
  mean-pooled linear head) over masked and k-nearest-neighbour layers, a per-point segmentation head;
- ``TRAIN``: training steps (a cross-entropy or regression loss, ``backward`` through the layers, an Adam or
  SGD step for some) over each layer, with masks and neighbours.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
POINTS = 8
DIM = 16
CLASSES = 5
SINGLE: dict[str, Any] = {"dim": DIM, "pos_mlp_hidden_dim": 16, "attn_mlp_hidden_mult": 2}
MULTI: dict[str, Any] = {"dim": DIM, "heads": 2, "dim_head": 8, "pos_mlp_hidden_dim": 16, "attn_mlp_hidden_mult": 2}
# Layer name -> (class: "single" or "multi", keywords, batch, mask: None, "partial" or "full", dtype name).
LAYERS: dict[str, tuple[str, dict[str, Any], int, str | None, str]] = {
    "PointTransformerLayer": ("single", SINGLE, BATCH, None, "float32"),
    "PointTransformerLayer.mask": ("single", SINGLE, BATCH, "partial", "float32"),
    "PointTransformerLayer.mask.all_kept": ("single", SINGLE, BATCH, "full", "float32"),
    "PointTransformerLayer.num_neighbors4": ("single", {**SINGLE, "num_neighbors": 4}, BATCH, None, "float32"),
    "PointTransformerLayer.num_neighbors4.mask": ("single", {**SINGLE, "num_neighbors": 4}, BATCH, "partial",
                                                  "float32"),
    "PointTransformerLayer.num_neighbors1": ("single", {**SINGLE, "num_neighbors": 1}, BATCH, None, "float32"),
    "PointTransformerLayer.num_neighbors3.mask": ("single", {**SINGLE, "num_neighbors": 3}, BATCH, "partial",
                                                  "float32"),
    "PointTransformerLayer.num_neighbors_all": ("single", {**SINGLE, "num_neighbors": POINTS}, BATCH, None,
                                                "float32"),
    "PointTransformerLayer.num_neighbors_over.mask": ("single", {**SINGLE, "num_neighbors": 12}, BATCH, "partial",
                                                      "float32"),
    "PointTransformerLayer.hidden": ("single", {"dim": DIM, "pos_mlp_hidden_dim": 8, "attn_mlp_hidden_mult": 1},
                                     BATCH, None, "float32"),
    "PointTransformerLayer.defaults": ("single", {"dim": DIM}, BATCH, None, "float32"),
    "PointTransformerLayer.batch1": ("single", {**SINGLE, "num_neighbors": 4}, 1, "partial", "float32"),
    "PointTransformerLayer.float64": ("single", {**SINGLE, "num_neighbors": 4}, BATCH, "partial", "float64"),
    "MultiheadPointTransformerLayer": ("multi", MULTI, BATCH, None, "float32"),
    "MultiheadPointTransformerLayer.mask": ("multi", MULTI, BATCH, "partial", "float32"),
    "MultiheadPointTransformerLayer.mask.all_kept": ("multi", MULTI, BATCH, "full", "float32"),
    "MultiheadPointTransformerLayer.num_neighbors4": ("multi", {**MULTI, "num_neighbors": 4}, BATCH, None,
                                                      "float32"),
    "MultiheadPointTransformerLayer.num_neighbors4.mask": ("multi", {**MULTI, "num_neighbors": 4}, BATCH,
                                                           "partial", "float32"),
    "MultiheadPointTransformerLayer.num_neighbors1.mask": ("multi", {**MULTI, "num_neighbors": 1}, BATCH,
                                                           "partial", "float32"),
    "MultiheadPointTransformerLayer.num_neighbors_all": ("multi", {**MULTI, "num_neighbors": POINTS}, BATCH,
                                                         "partial", "float32"),
    "MultiheadPointTransformerLayer.heads1": ("multi", {**MULTI, "heads": 1, "dim_head": 16}, BATCH, None,
                                              "float32"),
    "MultiheadPointTransformerLayer.heads4.num_neighbors3": ("multi", {**MULTI, "heads": 4, "dim_head": 4,
                                                                       "num_neighbors": 3}, BATCH, None, "float32"),
    "MultiheadPointTransformerLayer.hidden": ("multi", {**MULTI, "pos_mlp_hidden_dim": 8, "attn_mlp_hidden_mult": 1},
                                              BATCH, "partial", "float32"),
    "MultiheadPointTransformerLayer.defaults": ("multi", {"dim": DIM}, BATCH, None, "float32"),
    "MultiheadPointTransformerLayer.batch1": ("multi", {**MULTI, "num_neighbors": 4}, 1, "partial", "float32"),
    "MultiheadPointTransformerLayer.float64": ("multi", {**MULTI, "num_neighbors": 4}, BATCH, "partial", "float64"),
}
# Helper name -> (module: "single" or "multi", values shape, indices shape, dim).
HELPERS: dict[str, tuple[str, tuple[int, ...], tuple[int, ...], int]] = {
    "batched_index_select.dim1": ("single", (BATCH, POINTS, DIM), (BATCH, 3), 1),
    "batched_index_select.dim2": ("single", (BATCH, POINTS, POINTS, DIM), (BATCH, POINTS, 3), 2),
    "batched_index_select.dim2.mask": ("single", (BATCH, POINTS, POINTS), (BATCH, POINTS, 3), 2),
    "multihead.batched_index_select.dim3": ("multi", (BATCH, 2, POINTS, POINTS, 8), (BATCH, 2, POINTS, 3), 3),
    "multihead.batched_index_select.dim2": ("multi", (BATCH, POINTS, POINTS), (BATCH, POINTS, 3), 2),
}
# Usage name -> (class: "single" or "multi", layer keywords, what runs: "block", "classifier", "segmenter",
# mask or not).
USAGES: dict[str, tuple[str, dict[str, Any], str, bool]] = {
    "PointTransformerBlock": ("single", SINGLE, "block", False),
    "PointTransformerBlock.num_neighbors4.mask": ("single", {**SINGLE, "num_neighbors": 4}, "block", True),
    "PointTransformerBlock.multihead.num_neighbors4": ("multi", {**MULTI, "num_neighbors": 4}, "block", False),
    "PointClassifier": ("single", {**SINGLE, "num_neighbors": 4}, "classifier", False),
    "PointClassifier.mask": ("single", SINGLE, "classifier", True),
    "PointClassifier.multihead.mask": ("multi", {**MULTI, "num_neighbors": 4}, "classifier", True),
    "PointSegmenter.multihead": ("multi", MULTI, "segmenter", False),
}
# Train step name -> (usage name in ``USAGES`` or layer name in ``LAYERS``, optimizer: None, "sgd" or "adam").
TRAIN: dict[str, tuple[str, str | None]] = {
    "train.PointTransformerLayer": ("PointTransformerLayer", None),
    "train.PointTransformerLayer.num_neighbors4.mask": ("PointTransformerLayer.num_neighbors4.mask", "sgd"),
    "train.MultiheadPointTransformerLayer.mask": ("MultiheadPointTransformerLayer.mask", None),
    "train.MultiheadPointTransformerLayer.num_neighbors4": ("MultiheadPointTransformerLayer.num_neighbors4", "adam"),
    "train.PointClassifier": ("PointClassifier", "adam"),
    "train.PointClassifier.multihead.mask": ("PointClassifier.multihead.mask", "sgd"),
    "train.PointSegmenter.multihead": ("PointSegmenter.multihead", None),
}


def names() -> list[str]:
    return [*LAYERS, *HELPERS, *USAGES, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: str = "float32") -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=getattr(torch, dtype))


def _mask(batch: int, kind: str | None) -> Any:
    """None, every point kept, or the last points of each cloud masked out (a different count per cloud)."""
    import torch

    if kind is None:
        return None
    mask = torch.ones(batch, POINTS, dtype=torch.bool)
    if kind == "partial":
        for row in range(batch):
            mask[row, POINTS - 2 - row:] = False
    return mask


def _layer_class(kind: str) -> Any:
    from point_transformer_pytorch import MultiheadPointTransformerLayer, PointTransformerLayer

    return PointTransformerLayer if kind == "single" else MultiheadPointTransformerLayer


def _inputs(batch: int, mask: str | None, dtype: str = "float32") -> tuple[tuple[Any, ...], dict[str, Any]]:
    features, coordinates = _randn(batch, POINTS, DIM, dtype=dtype), _randn(batch, POINTS, 3, seed=2, dtype=dtype)
    kwargs = {} if mask is None else {"mask": _mask(batch, mask)}
    return (features, coordinates), kwargs


def _layer(name: str) -> Built:
    kind, keywords, batch, mask, dtype = LAYERS[name]
    layer = _layer_class(kind)(**keywords)
    if dtype == "float64":
        layer = layer.double()
    args, kwargs = _inputs(batch, mask, dtype)
    return layer, args, kwargs


def _helper(name: str) -> Built:
    import torch

    from gt_calls import Call
    from point_transformer_pytorch import multihead_point_transformer_pytorch, point_transformer_pytorch

    kind, values_shape, indices_shape, dim = HELPERS[name]
    module = point_transformer_pytorch if kind == "single" else multihead_point_transformer_pytorch
    values = _randn(*values_shape)
    if len(values_shape) == 3 and dim == 2:
        values = values > 0
    indices = torch.randint(0, POINTS, indices_shape, generator=torch.Generator().manual_seed(3))
    return Call(module.batched_index_select, dim=dim), (values, indices), {}


def _usage_module(kind: str, keywords: dict[str, Any], what: str) -> Any:
    import torch
    from torch import nn

    layer_class = _layer_class(kind)

    class PointTransformerBlock(nn.Module):
        """The paper's block: a linear in, the point transformer layer, a linear out, a residual."""

        def __init__(self) -> None:
            super().__init__()
            self.linear_in = nn.Linear(DIM, DIM)
            self.layer = layer_class(**keywords)
            self.linear_out = nn.Linear(DIM, DIM)

        def forward(self, x: torch.Tensor, pos: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
            return x + self.linear_out(self.layer(self.linear_in(x), pos, mask=mask))

        def entry_points(self) -> list[Any]:
            return [layer_class]

    class PointNetwork(nn.Module):
        """An embedding of features and coordinates, two blocks, then a mean-pooled (masked) class head or a
        per-point head."""

        def __init__(self, per_point: bool) -> None:
            super().__init__()
            self.per_point = per_point
            self.embed = nn.Linear(DIM + 3, DIM)
            self.blocks = nn.ModuleList([PointTransformerBlock(), PointTransformerBlock()])
            self.norm = nn.LayerNorm(DIM)
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, x: torch.Tensor, pos: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
            h = self.embed(torch.cat((x, pos), dim=-1))
            for block in self.blocks:
                h = block(h, pos, mask=mask)
            h = self.norm(h)
            if self.per_point:
                return self.head(h)
            if mask is None:
                return self.head(h.mean(dim=1))
            weights = mask.unsqueeze(-1).to(h.dtype)
            return self.head((h * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0))

        def entry_points(self) -> list[Any]:
            return [layer_class]

    if what == "block":
        return PointTransformerBlock()
    return PointNetwork(what == "segmenter")


def _usage(name: str) -> Built:
    kind, keywords, what, masked = USAGES[name]
    args, kwargs = _inputs(BATCH, "partial" if masked else None)
    return _usage_module(kind, keywords, what), args, kwargs


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run

    source, optimizer_name = TRAIN[name]
    if source in LAYERS:
        kind, keywords, batch, mask, _ = LAYERS[source]
        network = _layer_class(kind)(**keywords)
        what = "layer"
    else:
        kind, keywords, what, masked = USAGES[source]
        network, batch, mask = _usage_module(kind, keywords, what), BATCH, "partial" if masked else None
    (features, coordinates), kwargs = _inputs(batch, mask)
    optimizer = None
    if optimizer_name == "sgd":
        optimizer = torch.optim.SGD(network.parameters(), lr=1e-2, momentum=0.9)
    elif optimizer_name == "adam":
        optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(4)
    if what == "classifier":
        targets = torch.randint(0, CLASSES, (batch,), generator=generator)
    elif what == "segmenter":
        targets = torch.randint(0, CLASSES, (batch, POINTS), generator=generator)
    else:
        targets = torch.randn(batch, POINTS, DIM, generator=generator)
    mask = kwargs.get("mask")

    def step(owner: Any, x: Any, pos: Any, target: Any) -> Any:
        """The loss of the network's output, its gradients and (given an optimizer) one step."""
        out = owner(x, pos, mask=mask)
        if what == "classifier":
            loss = F.cross_entropy(out, target)
        elif what == "segmenter":
            loss = F.cross_entropy(out.reshape(-1, CLASSES), target.reshape(-1))
        else:
            loss = F.mse_loss(out, target)
        if torch.is_grad_enabled():
            loss.backward()
            if optimizer is not None:
                optimizer.step()
                optimizer.zero_grad()
        return loss.detach()

    return Run(network, step, [_layer_class(kind)]), (features, coordinates, targets), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LAYERS:
        return _layer(name)
    if name in HELPERS:
        return _helper(name)
    if name in USAGES:
        return _usage(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
