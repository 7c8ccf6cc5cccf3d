"""Ground-truth bench, axial_attention: axial attention over images and videos, and the axial image transformer.

axial-attention 0.6.1 (lucidrains) attends along one axis of a multi-dimensional tensor at a time:
``PermuteToFrom`` permutes the axis and the embedding dimension last, folds the other axes into the batch, runs a
``SelfAttention`` (heads merged into the batch, an optional ``kv`` input for cross attention) and permutes back.
``AxialAttention`` builds one such attention per axis for 1 to 3 axial dimensions and an embedding dimension
anywhere, and sums their outputs or chains them; ``AxialPositionalEmbedding`` adds one learned embedding per
axis. ``AxialImageTransformer`` stacks, per layer, height and width attention (pre-norm) and two convolutional
feedforwards (a channel layer norm), either as a plain residual ``Sequential`` or as a ``ReversibleSequence``
(reversible blocks whose forward runs under ``no_grad`` and records the RNG state, and whose custom autograd
function recomputes activations in the backward pass). The tables cover, at 16 channels, 2 heads, a batch of 2,
6 x 6 images (6 x 4 where rectangular) and 3-frame videos:

- ``AXIAL``: ``AxialAttention``: channels last or first, summed or chained axes, ``dim_heads`` other than
  ``dim / heads``, one head, videos (3 axial dimensions, the embedding between them), a sequence (one axis),
  rectangular images, a batch of one;
- ``POS_EMB``: ``AxialPositionalEmbedding`` with the embedding at index 1, last, or in a video, and followed
  by ``AxialAttention`` as users chain them;
- ``IMAGE``: ``AxialImageTransformer``: reversible or not, with a positional embedding, ``dim_heads``, one
  layer of one head, rectangular images;
- ``PARTS``: ``SelfAttention`` (self, a ``kv`` input of another length, ``dim_heads``), ``PermuteToFrom``,
  ``ChanLayerNorm``, ``PreNorm``, the residual ``Sequential``, ``ReversibleSequence`` (keyword arguments routed
  to ``f`` only), ``ReversibleBlock``, ``IrreversibleBlock``, ``Deterministic`` (recording the RNG state, and
  replaying it);
- ``TRAIN``: training steps: the reversible transformer's loss backward (its custom backward pass), the plain
  one's, an image classifier over ``AxialAttention`` with an SGD step, and a video regression.

Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, HEADS, BATCH, SIDE, FRAMES, CLASSES = 16, 2, 2, 6, 3, 5

# ``AxialAttention`` name -> (keywords, input shape).
AXIAL: dict[str, tuple[dict[str, Any], tuple[int, ...]]] = {
    "AxialAttention": ({}, (BATCH, SIDE, SIDE, DIM)),
    "AxialAttention.channels_first": ({"dim_index": 1}, (BATCH, DIM, SIDE, SIDE)),
    "AxialAttention.chained": ({"sum_axial_out": False}, (BATCH, SIDE, SIDE, DIM)),
    "AxialAttention.channels_first.chained": ({"dim_index": 1, "sum_axial_out": False}, (BATCH, DIM, SIDE, SIDE)),
    "AxialAttention.dim_heads": ({"dim_heads": 4}, (BATCH, SIDE, SIDE, DIM)),
    "AxialAttention.heads1": ({"heads": 1}, (BATCH, SIDE, SIDE, DIM)),
    "AxialAttention.video": ({"num_dimensions": 3, "dim_index": 2}, (BATCH, FRAMES, DIM, SIDE, SIDE)),
    "AxialAttention.video.chained": ({"num_dimensions": 3, "dim_index": 2, "sum_axial_out": False},
                                     (BATCH, FRAMES, DIM, SIDE, SIDE)),
    "AxialAttention.video.channels_last": ({"num_dimensions": 3}, (BATCH, FRAMES, SIDE, SIDE, DIM)),
    "AxialAttention.sequence": ({"num_dimensions": 1}, (BATCH, 10, DIM)),
    "AxialAttention.rectangular": ({"dim_index": 1}, (BATCH, DIM, SIDE, 4)),
    "AxialAttention.batch1": ({}, (1, SIDE, SIDE, DIM)),
}
# ``AxialPositionalEmbedding`` name -> (axial shape, embedding index, input shape).
POS_EMB: dict[str, tuple[tuple[int, ...], int, tuple[int, ...]]] = {
    "AxialPositionalEmbedding": ((SIDE, SIDE), 1, (BATCH, DIM, SIDE, SIDE)),
    "AxialPositionalEmbedding.channels_last": ((SIDE, SIDE), 3, (BATCH, SIDE, SIDE, DIM)),
    "AxialPositionalEmbedding.video": ((FRAMES, SIDE, SIDE), 2, (BATCH, FRAMES, DIM, SIDE, SIDE)),
    "AxialPositionalEmbedding.AxialAttention": ((SIDE, SIDE), 1, (BATCH, DIM, SIDE, SIDE)),
    "AxialPositionalEmbedding.AxialAttention.video": ((FRAMES, SIDE, SIDE), 2, (BATCH, FRAMES, DIM, SIDE, SIDE)),
}
# ``AxialImageTransformer`` name -> (keywords, input height and width).
IMAGE: dict[str, tuple[dict[str, Any], tuple[int, int]]] = {
    "AxialImageTransformer": ({}, (SIDE, SIDE)),
    "AxialImageTransformer.irreversible": ({"reversible": False}, (SIDE, SIDE)),
    "AxialImageTransformer.pos_emb": ({"axial_pos_emb_shape": (SIDE, SIDE)}, (SIDE, SIDE)),
    "AxialImageTransformer.irreversible.pos_emb": ({"reversible": False, "axial_pos_emb_shape": (SIDE, SIDE)},
                                                   (SIDE, SIDE)),
    "AxialImageTransformer.dim_heads": ({"dim_heads": 4}, (SIDE, SIDE)),
    "AxialImageTransformer.depth1.heads1": ({"depth": 1, "heads": 1}, (SIDE, SIDE)),
    "AxialImageTransformer.rectangular": ({"axial_pos_emb_shape": (SIDE, 4)}, (SIDE, 4)),
}
PARTS = ("SelfAttention", "SelfAttention.kv", "SelfAttention.dim_heads", "PermuteToFrom", "ChanLayerNorm", "PreNorm",
         "Sequential", "ReversibleSequence", "ReversibleSequence.f_args", "ReversibleBlock", "IrreversibleBlock",
         "Deterministic.record_rng", "Deterministic.set_rng")
TRAIN = ("train.AxialImageTransformer", "train.AxialImageTransformer.irreversible",
         "train.AxialImageTransformer.pos_emb", "train.AxialAttention.classifier.sgd", "train.AxialAttention.video")


def names() -> list[str]:
    return [*AXIAL, *POS_EMB, *IMAGE, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _axial(name: str) -> Built:
    from axial_attention import AxialAttention

    keywords, shape = AXIAL[name]
    return AxialAttention(DIM, **{"heads": HEADS, **keywords}), (_randn(*shape),), {}


def _pos_emb(name: str) -> Built:
    from axial_attention import AxialAttention, AxialPositionalEmbedding
    from torch import nn

    from gt_calls import Run

    axial, index, shape = POS_EMB[name]
    pos_emb = AxialPositionalEmbedding(DIM, axial, index)
    if not name.endswith(("AxialAttention", "AxialAttention.video")):
        return pos_emb, (_randn(*shape),), {}
    attention = AxialAttention(DIM, num_dimensions=len(axial), heads=HEADS, dim_index=index)
    return Run(nn.Sequential(pos_emb, attention), lambda owner, x: owner(x),
               [AxialPositionalEmbedding, AxialAttention]), (_randn(*shape),), {}


def _image(name: str) -> Built:
    from axial_attention import AxialImageTransformer

    keywords, (height, width) = IMAGE[name]
    model = AxialImageTransformer(DIM, **{"depth": 2, "heads": HEADS, **keywords})
    return model, (_randn(BATCH, DIM, height, width),), {}


def _feedforward() -> Any:
    from axial_attention.axial_attention import ChanLayerNorm
    from torch import nn

    return nn.Sequential(ChanLayerNorm(DIM), nn.Conv2d(DIM, DIM, 3, padding=1), nn.GELU())


def _row_attention() -> Any:
    """Attention along the width of a channels-first image (the library's permutation for that axis)."""
    from axial_attention.axial_attention import PermuteToFrom, PreNorm, SelfAttention

    return PermuteToFrom([0, 2, 3, 1], PreNorm(DIM, SelfAttention(DIM, HEADS)))


def _part(name: str) -> Built:
    from axial_attention import axial_attention as aa
    from axial_attention import reversible as rev
    from torch import nn

    from gt_calls import Run

    image = _randn(BATCH, DIM, SIDE, SIDE)
    tokens = _randn(BATCH, 10, DIM, seed=2)
    if name == "SelfAttention":
        return aa.SelfAttention(DIM, HEADS), (tokens,), {}
    if name == "SelfAttention.kv":
        return aa.SelfAttention(DIM, HEADS), (tokens,), {"kv": _randn(BATCH, 7, DIM, seed=3)}
    if name == "SelfAttention.dim_heads":
        return aa.SelfAttention(DIM, HEADS, dim_heads=4), (tokens,), {}
    if name == "PermuteToFrom":
        return aa.PermuteToFrom([0, 3, 2, 1], aa.SelfAttention(DIM, HEADS)), (image,), {}
    if name == "ChanLayerNorm":
        return aa.ChanLayerNorm(DIM), (image,), {}
    if name == "PreNorm":
        return aa.PreNorm(DIM, aa.SelfAttention(DIM, HEADS)), (tokens,), {}
    blocks = nn.ModuleList([nn.ModuleList([_row_attention(), _feedforward()]) for _ in range(2)])
    if name == "Sequential":
        return aa.Sequential(blocks), (image,), {}
    if name == "ReversibleSequence":
        return rev.ReversibleSequence(blocks), (image,), {}
    if name == "ReversibleSequence.f_args":
        class _KeyValueAttention(nn.Module):
            """Token attention with a ``kv`` keyword, routed to ``f`` only."""

            def __init__(self) -> None:
                super().__init__()
                self.attention = aa.SelfAttention(DIM, HEADS)

            def forward(self, x: Any, kv: Any = None) -> Any:
                return self.attention(x, kv=kv)

        sequence = rev.ReversibleSequence(nn.ModuleList([
            nn.ModuleList([_KeyValueAttention(), nn.Sequential(nn.LayerNorm(DIM), nn.Linear(DIM, DIM))])]))
        return Run(sequence, lambda owner, x, kv: owner(x, arg_route=(True, False), kv=kv),
                   [rev.ReversibleSequence]), (_randn(BATCH, 5, DIM), _randn(BATCH, 7, DIM, seed=3)), {}
    doubled = _randn(BATCH, 2 * DIM, SIDE, SIDE)
    if name == "ReversibleBlock":
        return rev.ReversibleBlock(_row_attention(), _feedforward()), (doubled,), {}
    if name == "IrreversibleBlock":
        return rev.IrreversibleBlock(_row_attention(), _feedforward()), (doubled, {}, {}), {}
    deterministic = rev.Deterministic(nn.Sequential(nn.Conv2d(DIM, DIM, 1), nn.Dropout(0.2)))
    if name == "Deterministic.record_rng":
        return deterministic, (image,), {"record_rng": True}

    def replay(owner: Any, x: Any) -> Any:
        """Record the RNG state in one pass, then replay it in another (as the backward pass does)."""
        first = owner(x, record_rng=True)
        return first - owner(x, set_rng=True)

    return Run(deterministic, replay, [rev.Deterministic]), (image,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from axial_attention import AxialAttention, AxialImageTransformer
    from torch import nn

    from gt_calls import Run

    def backward(loss: Any) -> Any:
        if torch.is_grad_enabled():
            loss.backward()
        return loss

    if name.startswith("train.AxialImageTransformer"):
        keywords: dict[str, Any] = {"reversible": not name.endswith("irreversible")}
        if name.endswith("pos_emb"):
            keywords["axial_pos_emb_shape"] = (SIDE, SIDE)
        # A convolutional stem before it: the reversible function's output needs an input that requires grad.
        model = nn.Sequential(nn.Conv2d(3, DIM, 3, padding=1), AxialImageTransformer(DIM, depth=2, heads=HEADS,
                                                                                      **keywords))
        return Run(model, lambda owner, x, target: backward(F.mse_loss(owner(x), target)), [AxialImageTransformer]), \
            (_randn(BATCH, 3, SIDE, SIDE), _randn(BATCH, DIM, SIDE, SIDE, seed=2)), {}
    if name == "train.AxialAttention.video":
        attention = AxialAttention(DIM, num_dimensions=3, heads=HEADS, dim_index=2)
        shape = (BATCH, FRAMES, DIM, SIDE, SIDE)
        return Run(attention, lambda owner, x, target: backward(F.mse_loss(owner(x), target)), [AxialAttention]), \
            (_randn(*shape), _randn(*shape, seed=2)), {}

    class _AxialClassifier(nn.Module):
        """A convolutional stem, two axial attention layers (residual), a pooled linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Conv2d(3, DIM, 3, padding=1)
            self.layers = nn.ModuleList([AxialAttention(DIM, heads=HEADS, dim_index=1) for _ in range(2)])
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, x: Any) -> Any:
            x = self.stem(x)
            for layer in self.layers:
                x = x + layer(x)
            return self.head(x.mean(dim=(-2, -1)))

    classifier = _AxialClassifier()
    optimizer = torch.optim.SGD(classifier.parameters(), lr=0.1, momentum=0.9)

    def step(owner: Any, images: Any, labels: Any) -> Any:
        """Cross-entropy, its gradients and an SGD step (when gradients are on)."""
        loss = F.cross_entropy(owner(images), labels)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    labels = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(3))
    return Run(classifier, step, [AxialAttention]), (_randn(BATCH, 3, SIDE, SIDE), labels), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in AXIAL:
        return _axial(name)
    if name in POS_EMB:
        return _pos_emb(name)
    if name in IMAGE:
        return _image(name)
    if name in PARTS:
        return _part(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
