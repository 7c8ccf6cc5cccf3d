"""Ground-truth bench, conformer: lucidrains' Conformer, its block, convolution module and attention.

conformer 0.3.2 is one file. ``Conformer`` stacks ``ConformerBlock``s; a block is a macaron of two
half-scaled pre-norm ``FeedForward``s (``Scale(0.5, PreNorm(...))``, Swish activations) around a pre-norm
``Attention`` (multi-head attention over ``to_q`` / ``to_kv`` with Shaw's relative position embedding, the
distances clamped to ``max_pos_emb``, an optional context for cross-attention and boolean masks on the
queries and the keys) and a ``ConformerConvModule`` (layer norm, pointwise convolution, ``GLU``,
``DepthWiseConv1d`` with same padding, or left padding when causal, batch norm unless causal, Swish,
pointwise convolution), then a post layer norm. So the tables cover, at width 32 (2 heads of 16), 12
frames and batch 2:

- ``CONV``: ``ConformerConvModule`` default, causal, with an even kernel (asymmetric same padding), a wider
  expansion, with dropout;
- ``ATTENTION``: ``Attention`` without a mask, with a query mask, with a context and both masks, with a
  small ``max_pos_emb`` (clamped distances), with dropout; ``FeedForward``, ``Scale(PreNorm(FeedForward))``,
  ``GLU`` and ``DepthWiseConv1d`` alone;
- ``BLOCK``: ``ConformerBlock`` default, with a padding mask, causal convolution, dropouts, other
  multipliers and heads, an even kernel;
- ``CONFORMER``: ``Conformer`` of depth 2 default, causal, with dropouts, wide expansion, in bfloat16, on
  one frame, and a train step (a linear head and cross-entropy per frame, as a speech model trains it).

Masks are boolean (``Attention`` negates them with ``~``); with a context both masks are given (the
library's default for a missing one is a lambda or a float tensor, which fails eagerly as well) and the
context is as long as the queries (the relative position term is square).
Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
DIM = 32
FRAMES = 12
SMALL: dict[str, Any] = {"dim_head": 16, "heads": 2, "conv_kernel_size": 7}

# ``ConformerConvModule`` name -> keywords.
CONV: dict[str, dict[str, Any]] = {
    "ConformerConvModule": {"kernel_size": 7},
    "ConformerConvModule.causal": {"kernel_size": 7, "causal": True},
    "ConformerConvModule.even_kernel": {"kernel_size": 4},
    "ConformerConvModule.expansion4": {"kernel_size": 5, "expansion_factor": 4},
    "ConformerConvModule.dropout": {"kernel_size": 7, "dropout": 0.1},
}
# ``Attention`` and helper name -> (keywords, call: "plain", "mask", "context", "helper").
ATTENTION: dict[str, tuple[dict[str, Any], str]] = {
    "Attention": ({"heads": 2, "dim_head": 16}, "plain"),
    "Attention.mask": ({"heads": 2, "dim_head": 16}, "mask"),
    "Attention.context.masks": ({"heads": 2, "dim_head": 16}, "context"),
    "Attention.max_pos_emb": ({"heads": 2, "dim_head": 16, "max_pos_emb": 4}, "mask"),
    "Attention.dropout": ({"heads": 4, "dim_head": 8, "dropout": 0.1}, "plain"),
    "FeedForward": ({"mult": 2, "dropout": 0.1}, "helper"),
    "Scale.PreNorm.FeedForward": ({"mult": 4}, "helper"),
    "GLU": ({}, "helper"),
    "DepthWiseConv1d": ({}, "helper"),
}
# ``ConformerBlock`` name -> (keywords over ``SMALL``, with a padding mask).
BLOCK: dict[str, tuple[dict[str, Any], bool]] = {
    "ConformerBlock": ({}, False),
    "ConformerBlock.mask": ({}, True),
    "ConformerBlock.causal": ({"conv_causal": True}, False),
    "ConformerBlock.causal.mask": ({"conv_causal": True}, True),
    "ConformerBlock.dropouts": ({"attn_dropout": 0.1, "ff_dropout": 0.1, "conv_dropout": 0.1}, True),
    "ConformerBlock.ff_mult2.heads4": ({"ff_mult": 2, "heads": 4, "dim_head": 8, "conv_expansion_factor": 1}, False),
    "ConformerBlock.even_kernel": ({"conv_kernel_size": 6}, False),
}
# ``Conformer`` name -> (keywords over ``SMALL``, what is compiled: "forward", "bf16", "one_frame", "train").
CONFORMER: dict[str, tuple[dict[str, Any], str]] = {
    "Conformer": ({"depth": 2}, "forward"),
    "Conformer.causal": ({"depth": 2, "conv_causal": True}, "forward"),
    "Conformer.dropouts": ({"depth": 2, "attn_dropout": 0.1, "ff_dropout": 0.1, "conv_dropout": 0.1}, "forward"),
    "Conformer.expansion4.ff_mult2": ({"depth": 2, "conv_expansion_factor": 4, "ff_mult": 2}, "forward"),
    "Conformer.depth1": ({"depth": 1, "heads": 1, "dim_head": 32}, "forward"),
    "Conformer.bfloat16": ({"depth": 2}, "bf16"),
    "Conformer.one_frame": ({"depth": 2, "conv_causal": True}, "one_frame"),
    "train_step.Conformer": ({"depth": 2}, "train"),
    "train_step.Conformer.causal": ({"depth": 2, "conv_causal": True}, "train"),
}


def names() -> list[str]:
    return list(CONV) + list(ATTENTION) + list(BLOCK) + list(CONFORMER)


def _frames(length: int = FRAMES, seed: int = 1, dim: int = DIM) -> Any:
    import torch

    return torch.randn(BATCH, length, dim, generator=torch.Generator().manual_seed(seed))


def _mask(length: int = FRAMES) -> Any:
    """A padding mask: the second sequence is three frames shorter."""
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, length - 3:] = False
    return mask


def _attention(name: str) -> Built:
    import torch
    from conformer import conformer as cf

    from gt_calls import Keywords

    keywords, call = ATTENTION[name]
    if call == "helper":
        if name == "FeedForward":
            return cf.FeedForward(DIM, **keywords), (_frames(),), {}
        if name == "Scale.PreNorm.FeedForward":
            return cf.Scale(0.5, cf.PreNorm(DIM, cf.FeedForward(DIM, **keywords))), (_frames(),), {}
        if name == "GLU":
            return cf.GLU(dim=1), (torch.randn(BATCH, 2 * DIM, FRAMES, generator=torch.Generator().manual_seed(2)),), {}
        conv = cf.DepthWiseConv1d(DIM, DIM, kernel_size=5, padding=cf.calc_same_padding(5))
        return conv, (torch.randn(BATCH, DIM, FRAMES, generator=torch.Generator().manual_seed(3)),), {}
    attention = cf.Attention(DIM, **keywords)
    if call == "plain":
        return attention, (_frames(),), {}
    if call == "mask":
        return Keywords(attention, mask=_mask()), (_frames(),), {}
    context = _frames(seed=4)  # the relative positions assume a context as long as the queries
    context_mask = torch.ones(BATCH, FRAMES, dtype=torch.bool)
    context_mask[0, FRAMES - 2:] = False
    return Keywords(attention, mask=_mask(), context_mask=context_mask), (_frames(), context), {}


def _conformer(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from conformer import Conformer
    from torch import nn

    from gt_calls import Run

    keywords, what = CONFORMER[name]
    model = Conformer(DIM, **{**SMALL, **keywords})
    if what == "forward":
        return model, (_frames(),), {}
    if what == "bf16":
        return model.to(torch.bfloat16), (_frames().to(torch.bfloat16),), {}
    if what == "one_frame":
        return model, (_frames(1),), {}
    head = nn.Linear(DIM, 10)
    labels = torch.randint(0, 10, (BATCH, FRAMES), generator=torch.Generator().manual_seed(5))

    def train_step(owner: Any, frames: Any, labels_: Any) -> Any:
        """Frame-level classification over the encoder: logits, cross-entropy, its gradients."""
        logits = head(owner(frames))
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels_.reshape(-1))
        if torch.is_grad_enabled():
            loss.backward()
        return loss

    run = Run(model, train_step, [Conformer])
    run.head = head
    return run, (_frames(), labels), {}


def build(name: str) -> Built:
    import torch
    from conformer import ConformerBlock, ConformerConvModule

    from gt_calls import Keywords

    torch.manual_seed(0)
    if name in CONV:
        return ConformerConvModule(DIM, **CONV[name]), (_frames(),), {}
    if name in ATTENTION:
        return _attention(name)
    if name in BLOCK:
        keywords, masked = BLOCK[name]
        block = ConformerBlock(dim=DIM, **{**SMALL, **keywords})
        if masked:
            return Keywords(block, mask=_mask()), (_frames(),), {}
        return block, (_frames(),), {}
    return _conformer(name)
