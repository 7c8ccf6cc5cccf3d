"""Ground-truth bench, nystrom_attention (nystrom-attention): Nystrom self-attention and the Nystromformer encoder.

nystrom-attention (lucidrains) approximates softmax attention with ``num_landmarks`` landmarks: the sequence
is left-padded to a multiple of the landmark count, queries and keys are summed into landmarks (a masked
mean under a padding mask), three softmax kernels are formed and the middle one is inverted by
``moore_penrose_iter_pinv`` (``pinv_iterations`` Newton-Schulz steps); a depth-wise convolution over the
values is added as a residual (``residual``, ``residual_conv_kernel``). ``Nystromformer`` stacks pre-norm
``NystromAttention`` and feed-forward blocks. The tables cover, at width 16 with 2 heads of 8 and 4
landmarks (batch 2):

- ``ATTENTION``: ``NystromAttention`` on sequences that divide the landmarks, that do not (padding), that
  are shorter than them and that equal them; without the residual, with other residual kernels, one and
  zero pseudo-inverse iterations, dropout, the library's defaults (256 landmarks, 8 heads of 64, kernel
  33); a boolean padding mask (partial, all true, with padding of the sequence), and
  ``return_attn`` / ``return_attn_matrices`` with and without a mask;
- ``ENCODER``: ``Nystromformer`` (depth 2) on the same kinds of sequence and mask, without the values'
  residual, other kernels and iterations, dropout, and the defaults (also under its alias ``Nystromer``);
- ``BLOCKS``: the encoder's blocks ``PreNorm`` (around the attention, with the mask) and ``FeedForward``;
- ``PINV``: ``moore_penrose_iter_pinv`` on batches of softmax matrices (several iteration counts);
- ``TRAIN``: training steps (loss, ``backward`` under ``enable_grad``, an AdamW step): the attention layer,
  and a token classifier built on ``Nystromformer`` with a mask.

Half precision is left out: it fails eagerly (the pseudo-inverse's identity matrix is always float32).
Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, DIM, VOCAB, CLASSES = 2, 16, 20, 3
TINY: dict[str, Any] = {"dim": DIM, "dim_head": 8, "heads": 2, "num_landmarks": 4, "pinv_iterations": 6,
                        "residual": True, "residual_conv_kernel": 3}
TINY_ENCODER: dict[str, Any] = {"dim": DIM, "depth": 2, "dim_head": 8, "heads": 2, "num_landmarks": 4,
                                "pinv_iterations": 6, "attn_values_residual": True,
                                "attn_values_residual_conv_kernel": 3}

# Model name -> (keywords over TINY, sequence length, mask: None, "partial" or "all", call keywords).
ATTENTION: dict[str, tuple[dict[str, Any], int, str | None, dict[str, Any]]] = {
    "NystromAttention": ({}, 16, None, {}),
    "NystromAttention.remainder": ({}, 13, None, {}),
    "NystromAttention.shorter_than_landmarks": ({}, 3, None, {}),
    "NystromAttention.landmarks_equal_length": ({"num_landmarks": 8}, 8, None, {}),
    "NystromAttention.one_landmark": ({"num_landmarks": 1}, 6, None, {}),
    "NystromAttention.no_residual": ({"residual": False}, 16, None, {}),
    "NystromAttention.no_residual.remainder": ({"residual": False}, 10, None, {}),
    "NystromAttention.residual_kernel5": ({"residual_conv_kernel": 5}, 16, None, {}),
    "NystromAttention.residual_kernel1": ({"residual_conv_kernel": 1}, 12, None, {}),
    "NystromAttention.pinv_iterations1": ({"pinv_iterations": 1}, 16, None, {}),
    "NystromAttention.pinv_iterations0": ({"pinv_iterations": 0}, 16, None, {}),
    "NystromAttention.dropout": ({"dropout": 0.1}, 13, None, {}),
    "NystromAttention.defaults": ({"dim": DIM, "dim_head": 64, "heads": 8, "num_landmarks": 256,
                                   "pinv_iterations": 6, "residual": True, "residual_conv_kernel": 33}, 40, None, {}),
    "NystromAttention.mask": ({}, 16, "partial", {}),
    "NystromAttention.mask.remainder": ({}, 13, "partial", {}),
    "NystromAttention.mask.all_true": ({}, 16, "all", {}),
    "NystromAttention.mask.no_residual": ({"residual": False}, 14, "partial", {}),
    "NystromAttention.mask.shorter_than_landmarks": ({}, 3, "partial", {}),
    "NystromAttention.return_attn": ({}, 16, None, {"return_attn": True}),
    "NystromAttention.return_attn.remainder": ({}, 13, None, {"return_attn": True}),
    "NystromAttention.return_attn.mask": ({}, 16, "partial", {"return_attn": True}),
    "NystromAttention.return_attn_matrices": ({}, 16, None, {"return_attn_matrices": True}),
    "NystromAttention.return_attn_matrices.mask.remainder": ({}, 11, "partial", {"return_attn_matrices": True}),
}
# Model name -> (keywords over TINY_ENCODER, sequence length, mask).
ENCODER: dict[str, tuple[dict[str, Any], int, str | None]] = {
    "Nystromformer": ({}, 16, None),
    "Nystromformer.remainder": ({}, 13, None),
    "Nystromformer.shorter_than_landmarks": ({}, 3, None),
    "Nystromformer.mask": ({}, 16, "partial"),
    "Nystromformer.mask.remainder": ({}, 13, "partial"),
    "Nystromformer.mask.all_true": ({}, 12, "all"),
    "Nystromformer.no_values_residual": ({"attn_values_residual": False}, 16, None),
    "Nystromformer.residual_kernel5.pinv_iterations2": ({"attn_values_residual_conv_kernel": 5,
                                                         "pinv_iterations": 2}, 16, None),
    "Nystromformer.dropout": ({"attn_dropout": 0.1, "ff_dropout": 0.1}, 13, "partial"),
    "Nystromformer.depth1.landmarks8": ({"depth": 1, "num_landmarks": 8}, 20, None),
    "Nystromformer.defaults": ({"dim": DIM, "depth": 1, "dim_head": 64, "heads": 8, "num_landmarks": 256,
                                "pinv_iterations": 6, "attn_values_residual": True,
                                "attn_values_residual_conv_kernel": 33}, 40, None),
    "Nystromer.mask.no_values_residual": ({"attn_values_residual": False}, 9, "partial"),
}
# Model name -> (block, sequence length, mask).
BLOCKS: dict[str, tuple[str, int, str | None]] = {
    "PreNorm.NystromAttention": ("prenorm", 16, None),
    "PreNorm.NystromAttention.mask.remainder": ("prenorm", 13, "partial"),
    "FeedForward": ("feedforward", 16, None),
}
# Model name -> (matrix size, iterations).
PINV: dict[str, tuple[int, int]] = {
    "moore_penrose_iter_pinv": (4, 6),
    "moore_penrose_iter_pinv.iters2": (8, 2),
    "moore_penrose_iter_pinv.iters0": (4, 0),
}
TRAIN = ("train_step.NystromAttention.remainder", "train_step.NystromAttention.mask",
         "train_step.Nystromformer.classifier.mask", "train_step.Nystromformer.classifier")


def names() -> list[str]:
    return [*ATTENTION, *ENCODER, *BLOCKS, *PINV, *TRAIN]


def _inputs(length: int, mask: str | None) -> tuple[Any, Any]:
    """A batch of ``length`` tokens of width ``DIM`` and its boolean mask: ``partial`` hides the second row's
    last third, ``all`` hides nothing, None gives no mask."""
    import torch

    gen = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, length, DIM, generator=gen)
    if mask is None:
        return x, None
    keep = torch.ones(BATCH, length, dtype=torch.bool)
    if mask == "partial":
        keep[1, length - max(1, length // 3):] = False
    return x, keep


def _train_step(net: Any, inputs: tuple[Any, ...], loss_fn: Any, entries: list[Any]) -> Built:
    """A compiled training step over ``net``: AdamW's ``zero_grad``, ``loss_fn(net, *inputs)``, ``backward``
    (under ``enable_grad``), ``step``; it returns the loss. ``entries``: the library classes it enters."""
    import torch
    from torch import nn

    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)

    class _TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, *tensors: Any) -> Any:
            optimizer.zero_grad()
            with torch.enable_grad():
                loss = loss_fn(self.net, *tensors)
                loss.backward()
            optimizer.step()
            return loss.detach()

        def entry_points(self) -> list[Any]:
            return entries

    return _TrainStep(), inputs, {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from nystrom_attention import NystromAttention, Nystromformer
    from torch import nn

    if name.startswith("train_step.NystromAttention"):
        masked = name.endswith(".mask")
        x, mask = _inputs(16 if masked else 13, "partial" if masked else None)
        target = torch.randn_like(x)

        def attention_loss(net: Any, x: torch.Tensor, target: torch.Tensor, *mask: torch.Tensor) -> torch.Tensor:
            return F.mse_loss(net(x, mask=mask[0] if mask else None), target)

        inputs = (x, target, mask) if masked else (x, target)
        return _train_step(NystromAttention(**TINY), inputs, attention_loss, [NystromAttention])

    class _Classifier(nn.Module):
        """Token embedding, ``Nystromformer``, masked mean pooling and a linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, DIM)
            self.encoder = Nystromformer(**TINY_ENCODER)
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            hidden = self.encoder(self.embed(tokens), mask=mask)
            weights = mask.unsqueeze(-1).to(hidden.dtype)
            return self.head((hidden * weights).sum(1) / weights.sum(1))

    gen = torch.Generator().manual_seed(2)
    length = 13
    tokens = torch.randint(0, VOCAB, (BATCH, length), generator=gen)
    labels = torch.randint(0, CLASSES, (BATCH,), generator=gen)
    _, mask = _inputs(length, "partial" if name.endswith(".mask") else "all")

    def classifier_loss(net: Any, tokens: torch.Tensor, labels: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(net(tokens, mask), labels)

    return _train_step(_Classifier(), (tokens, labels, mask), classifier_loss, [Nystromformer])


def build(name: str) -> Built:
    import warnings

    import torch
    from nystrom_attention import NystromAttention, Nystromformer, Nystromer
    from nystrom_attention.nystrom_attention import FeedForward, PreNorm, moore_penrose_iter_pinv

    from gt_calls import Call

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in ATTENTION:
        keywords, length, mask_kind, call = ATTENTION[name]
        layer = NystromAttention(**{**TINY, **keywords})
        x, mask = _inputs(length, mask_kind)
        return layer, (x,), {**call, **({"mask": mask} if mask is not None else {})}
    if name in ENCODER:
        keywords, length, mask_kind = ENCODER[name]
        cls = Nystromer if name.startswith("Nystromer.") else Nystromformer
        encoder = cls(**{**TINY_ENCODER, **keywords})
        x, mask = _inputs(length, mask_kind)
        return encoder, (x,), ({"mask": mask} if mask is not None else {})
    if name in BLOCKS:
        block, length, mask_kind = BLOCKS[name]
        x, mask = _inputs(length, mask_kind)
        if block == "feedforward":
            return FeedForward(DIM), (x,), {}
        return PreNorm(DIM, NystromAttention(**TINY)), (x,), ({"mask": mask} if mask is not None else {})
    if name in PINV:
        size, iterations = PINV[name]
        gen = torch.Generator().manual_seed(3)
        matrices = torch.randn(BATCH, 2, size, size, generator=gen).softmax(dim=-1)
        return Call(moore_penrose_iter_pinv, iters=iterations), (matrices,), {}
    return _train(name)
