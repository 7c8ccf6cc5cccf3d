"""Ground-truth bench, axial_positional_embedding: factorized (axial) positional embeddings, learned and continuous.

axial_positional_embedding 0.3.12 exports three modules. ``AxialPositionalEmbedding`` keeps one learned parameter
per axis of an ``axial_shape`` whose product is the longest sequence; the forward expands each along the full
grid, flattens it to ``(batch, max_seq_len, d)``, sums the axes (or concatenates them when ``axial_dims`` split the
width) and slices the first ``seq_len`` positions, cast like the input. ``AxialPositionalEmbeddingImage`` wraps it
for ``(b, c, h, w)`` images (einops rearrange, pack and unpack). ``ContinuousAxialPositionalEmbedding`` gives each
axis a small MLP over the coordinate: ``forward(axial_dims)`` evaluates every axis and combines them by broadcasting
(optionally flattened, or returned factorized); ``forward_with_seq_len`` derives an outer axis from a sequence
length and the inner axes and slices the flattened grid; ``forward_with_pos`` embeds integer positions, with the
largest position read by ``item()`` and unravelled (``torch.unravel_index``). The tables cover, at width 8, a batch
of 2:

- ``LEARNED``: ``AxialPositionalEmbedding`` summed and split over two and three axes, full and short sequences,
  a float64 input; ``AxialPositionalEmbeddingImage`` on images, with split widths;
- ``CONTINUOUS``: ``ContinuousAxialPositionalEmbedding`` forwards over tuples and ``torch.Size`` shapes (taken from
  an input), flattened and factorized, ``combine_factorized``, ``forward_with_seq_len`` (derived and full axes,
  precomputed factorized embeddings, both returned) and ``forward_with_pos`` (1-d and 2-d positions, given and
  derived axes);
- ``PIPELINES``: how models use them: token embeddings plus axial positions into a transformer layer, an image
  feature map plus its positions into a convolution, continuous positions for a video-like grid of tokens;
- ``TRAIN``: training steps (an MSE loss backward and an Adam step) through each kind.

The axial sizes are also given as a tensor (the type hints allow it), to ``forward`` and to
``forward_with_seq_len``. Nothing was left out: every model runs eagerly. Random weights and inputs from
fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM = 2, 8

# Learned model name -> (class: "seq" | "image", axial_shape, axial_dims or None, input shape, float64 input).
LEARNED: dict[str, tuple[str, tuple[int, ...], tuple[int, ...] | None, tuple[int, ...], bool]] = {
    "AxialPositionalEmbedding.summed": ("seq", (4, 4), None, (BATCH, 16, DIM), False),
    "AxialPositionalEmbedding.summed.short_seq": ("seq", (4, 4), None, (BATCH, 10, DIM), False),
    "AxialPositionalEmbedding.split_dims": ("seq", (4, 4), (4, 4), (BATCH, 16, DIM), False),
    "AxialPositionalEmbedding.split_dims.short_seq": ("seq", (4, 4), (2, 6), (BATCH, 7, DIM), False),
    "AxialPositionalEmbedding.three_axes": ("seq", (2, 3, 4), None, (BATCH, 24, DIM), False),
    "AxialPositionalEmbedding.three_axes.split_dims": ("seq", (2, 3, 4), (2, 2, 4), (BATCH, 20, DIM), False),
    "AxialPositionalEmbedding.float64": ("seq", (4, 4), None, (BATCH, 12, DIM), True),
    "AxialPositionalEmbedding.batch1": ("seq", (3, 5), None, (1, 15, DIM), False),
    "AxialPositionalEmbeddingImage": ("image", (4, 5), None, (BATCH, DIM, 4, 5), False),
    "AxialPositionalEmbeddingImage.split_dims": ("image", (4, 4), (4, 4), (BATCH, DIM, 4, 4), False),
    "AxialPositionalEmbeddingImage.float64": ("image", (3, 3), (6, 2), (BATCH, DIM, 3, 3), True),
}
# Continuous model name -> (num_axial_dims, mlp keywords, call, call arguments).
CONTINUOUS: dict[str, tuple[int, dict[str, Any], str, tuple[Any, ...]]] = {
    "ContinuousAxialPositionalEmbedding.tuple": (2, {}, "forward", ((3, 4),)),
    "ContinuousAxialPositionalEmbedding.tuple.flatten": (2, {}, "forward.flatten", ((3, 4),)),
    "ContinuousAxialPositionalEmbedding.three_axes": (3, {}, "forward", ((2, 3, 4),)),
    "ContinuousAxialPositionalEmbedding.return_factorized": (3, {}, "forward.factorized", ((2, 3, 4),)),
    "ContinuousAxialPositionalEmbedding.mlp_depth1.expansion4": (2, {"mlp_depth": 1, "mlp_expansion": 4.0},
                                                                 "forward.flatten", ((4, 4),)),
    "ContinuousAxialPositionalEmbedding.mlp_depth3": (2, {"mlp_depth": 3}, "forward", ((2, 5),)),
    "ContinuousAxialPositionalEmbedding.input_shape": (2, {}, "forward.shape", ()),
    "ContinuousAxialPositionalEmbedding.tensor_dims": (2, {}, "forward.tensor", ((3, 4),)),
    "ContinuousAxialPositionalEmbedding.forward_with_seq_len.tensor_dims": (2, {}, "seq_len.tensor", (10, (4,))),
    "ContinuousAxialPositionalEmbedding.combine_factorized": (2, {}, "combine_factorized", ()),
    "ContinuousAxialPositionalEmbedding.combine_factorized.sliced": (3, {}, "combine_factorized.sliced", ()),
    "ContinuousAxialPositionalEmbedding.forward_with_seq_len.derived": (2, {}, "seq_len", (10, (4,))),
    "ContinuousAxialPositionalEmbedding.forward_with_seq_len.full_axes": (2, {}, "seq_len", (10, (3, 4))),
    "ContinuousAxialPositionalEmbedding.forward_with_seq_len.three_axes": (3, {}, "seq_len", (20, (3, 4))),
    "ContinuousAxialPositionalEmbedding.forward_with_seq_len.return_factorized": (2, {}, "seq_len.factorized",
                                                                                   (9, (4,))),
    "ContinuousAxialPositionalEmbedding.forward_with_seq_len.factorized_given": (2, {}, "seq_len.given", (9, (4,))),
    "ContinuousAxialPositionalEmbedding.forward_with_pos": (2, {}, "pos", ((4,),)),
    "ContinuousAxialPositionalEmbedding.forward_with_pos.full_axes": (2, {}, "pos", ((4, 4),)),
    "ContinuousAxialPositionalEmbedding.forward_with_pos.seq": (3, {}, "pos.seq", ((2, 3),)),
}
PIPELINES = ("transformer.AxialPositionalEmbedding", "transformer.AxialPositionalEmbedding.split_dims",
             "conv.AxialPositionalEmbeddingImage", "video.ContinuousAxialPositionalEmbedding",
             "transformer.ContinuousAxialPositionalEmbedding.seq_len")
TRAIN = ("train.AxialPositionalEmbedding.adam", "train.AxialPositionalEmbeddingImage.adam",
         "train.ContinuousAxialPositionalEmbedding.adam", "train.ContinuousAxialPositionalEmbedding.pos.adam")


def names() -> list[str]:
    return [*LEARNED, *CONTINUOUS, *PIPELINES, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _learned(name: str) -> Built:
    import torch

    from axial_positional_embedding import AxialPositionalEmbedding, AxialPositionalEmbeddingImage

    kind, shape, dims, input_shape, double = LEARNED[name]
    cls = AxialPositionalEmbedding if kind == "seq" else AxialPositionalEmbeddingImage
    module = cls(DIM, shape, dims)
    x = _randn(*input_shape)
    return module, (x.to(torch.float64) if double else x,), {}


def _continuous(name: str) -> Built:
    import torch

    from axial_positional_embedding import ContinuousAxialPositionalEmbedding
    from gt_calls import Run

    ndims, keywords, call, args = CONTINUOUS[name]
    module = ContinuousAxialPositionalEmbedding(DIM, ndims, **keywords)
    entry = ContinuousAxialPositionalEmbedding
    inputs: tuple[Any, ...] = ()

    if call == "forward":
        def run(m: Any) -> Any:
            return m(*args)
    elif call == "forward.flatten":
        def run(m: Any) -> Any:
            return m(*args, flatten=True)
    elif call == "forward.factorized":
        def run(m: Any) -> Any:
            return m(*args, return_factorized=True)
    elif call == "forward.tensor":
        inputs = (torch.tensor(args[0]),)

        def run(m: Any, dims: Any) -> Any:
            return m(dims, flatten=True)
    elif call == "seq_len.tensor":
        entry = ContinuousAxialPositionalEmbedding.forward_with_seq_len
        inputs = (torch.tensor(args[1]),)

        def run(m: Any, dims: Any) -> Any:
            return m.forward_with_seq_len(args[0], dims)
    elif call == "forward.shape":
        inputs = (_randn(BATCH, 3, 4, DIM),)

        def run(m: Any, x: Any) -> Any:
            return x + m(x.shape[1:3])
    elif call.startswith("combine_factorized"):
        entry = ContinuousAxialPositionalEmbedding.combine_factorized
        inputs = tuple(_randn(n, DIM, seed=i) for i, n in enumerate((3, 4, 5)[:ndims]))

        def run(m: Any, *factorized: Any) -> Any:
            if call.endswith("sliced"):
                return m.combine_factorized(list(factorized), (2, 3, 4), flatten=True)
            return m.combine_factorized(list(factorized))
    elif call == "seq_len":
        entry = ContinuousAxialPositionalEmbedding.forward_with_seq_len

        def run(m: Any) -> Any:
            return m.forward_with_seq_len(*args)
    elif call == "seq_len.factorized":
        entry = ContinuousAxialPositionalEmbedding.forward_with_seq_len

        def run(m: Any) -> Any:
            embeds, factorized = m.forward_with_seq_len(*args, return_factorized=True)
            return embeds, *factorized
    elif call == "seq_len.given":
        entry = ContinuousAxialPositionalEmbedding.forward_with_seq_len
        inputs = (_randn(3, DIM), _randn(4, DIM, seed=2))

        def run(m: Any, outer: Any, inner: Any) -> Any:
            return m.forward_with_seq_len(args[0], factorized=[outer, inner])
    else:
        entry = ContinuousAxialPositionalEmbedding.forward_with_pos
        if call == "pos.seq":
            inputs = (torch.tensor([[0, 1, 2, 5, 7], [3, 4, 8, 9, 11]]),)
        else:
            inputs = (torch.tensor([0, 3, 5, 6, 9, 10, 13]),)

        def run(m: Any, pos: Any) -> Any:
            return m.forward_with_pos(pos, *args)

    return Run(module, run, [entry]), inputs, {}


def _pipeline_module(name: str) -> Any:
    import torch
    from torch import nn

    from axial_positional_embedding import (AxialPositionalEmbedding, AxialPositionalEmbeddingImage,
                                            ContinuousAxialPositionalEmbedding)

    class Pipeline(nn.Module):
        """A small model around one of the library's embeddings."""

        def __init__(self) -> None:
            super().__init__()
            self.tokens = nn.Embedding(20, DIM)
            if name.startswith("transformer.AxialPositionalEmbedding"):
                dims = (4, 4) if name.endswith("split_dims") else None
                self.pos: Any = AxialPositionalEmbedding(DIM, (4, 4), dims)
            elif name.startswith("conv"):
                self.pos = AxialPositionalEmbeddingImage(DIM, (4, 4))
            else:
                self.pos = ContinuousAxialPositionalEmbedding(DIM, 3 if name.startswith("video") else 2)
            self.layer = nn.TransformerEncoderLayer(DIM, 2, 16, dropout=0.0, batch_first=True)
            self.conv = nn.Conv2d(DIM, DIM, 3, padding=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if name.startswith("conv"):
                return self.conv(x + self.pos(x))
            if name.startswith("video"):
                frames = x  # (batch, time, height, width, dim)
                pos = self.pos(frames.shape[1:4])
                return self.layer((frames + pos).flatten(1, 3))
            tokens = self.tokens(x)
            if name.endswith("seq_len"):
                return self.layer(tokens + self.pos.forward_with_seq_len(x.shape[1], (4,)))
            return self.layer(tokens + self.pos(tokens))

        def entry_points(self) -> list[Any]:
            if name.endswith("seq_len"):
                return [ContinuousAxialPositionalEmbedding.forward_with_seq_len]
            return [type(self.pos)]

    return Pipeline()


def _pipeline_inputs(name: str) -> tuple[Any, ...]:
    import torch

    if name.startswith("conv"):
        return (_randn(BATCH, DIM, 4, 4),)
    if name.startswith("video"):
        return (_randn(BATCH, 2, 3, 3, DIM),)
    return (torch.randint(0, 20, (BATCH, 14), generator=torch.Generator().manual_seed(3)),)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run

    if name == "train.AxialPositionalEmbedding.adam":
        model = _pipeline_module("transformer.AxialPositionalEmbedding")
        inputs = _pipeline_inputs("transformer.AxialPositionalEmbedding")
    elif name == "train.AxialPositionalEmbeddingImage.adam":
        model = _pipeline_module("conv.AxialPositionalEmbeddingImage")
        inputs = _pipeline_inputs("conv.AxialPositionalEmbeddingImage")
    elif name == "train.ContinuousAxialPositionalEmbedding.adam":
        model = _pipeline_module("video.ContinuousAxialPositionalEmbedding")
        inputs = _pipeline_inputs("video.ContinuousAxialPositionalEmbedding")
    else:
        from axial_positional_embedding import ContinuousAxialPositionalEmbedding

        pos_module = ContinuousAxialPositionalEmbedding(DIM, 2)

        class PosModel(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.pos = pos_module
                self.out = torch.nn.Linear(DIM, DIM)

            def forward(self, pos: torch.Tensor) -> torch.Tensor:
                return self.out(self.pos.forward_with_pos(pos, (4,)))

            def entry_points(self) -> list[Any]:
                return [ContinuousAxialPositionalEmbedding.forward_with_pos]

        model = PosModel()
        inputs = (torch.tensor([[0, 2, 5, 9], [1, 3, 4, 6]]),)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(m: Any, *tensors: Any) -> Any:
        """An MSE loss to zero, its gradients and an Adam step (the forward alone under ``no_grad``)."""
        out = m(*tensors)
        loss = F.mse_loss(out, torch.zeros_like(out))
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, model.entry_points()), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LEARNED:
        return _learned(name)
    if name in CONTINUOUS:
        return _continuous(name)
    if name in PIPELINES:
        return _pipeline_module(name), _pipeline_inputs(name), {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
