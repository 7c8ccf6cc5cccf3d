"""Ground-truth bench, MEGABYTE_pytorch (MEGABYTE-pytorch): the multiscale byte-level transformer, trained and sampled.

MEGABYTE-pytorch (lucidrains) exports ``MEGABYTE``: a hierarchy of causal transformers (one per stage,
``depth`` and ``max_seq_len`` tuples of one entry a stage), each stage's patches embedded from the bytes
below it and projected down to the next stage. Its forward takes the ids as a grid (``batch`` then one
axis a stage) or flattened (``batch, seq``, padded to a whole number of patches), returns the logits or,
with ``return_loss=True``, the next-byte cross-entropy (the README's training step); an empty input
takes ``forward_empty`` (the start tokens only). ``generate`` samples byte by byte (top-k filtered
Gumbel sampling) until the whole hierarchy is filled. So each model is one of:

- ``FORWARD``: ``MEGABYTE`` at a tiny size (32 tokens, dim 16, two heads of 8, one layer a stage, a batch
  of 2) in the configurations that change its code: two stages of (4, 4), one stage, three stages of
  (4, 2, 2) with one width a stage; ids as a grid, flattened, flattened and padded, fewer patches than the
  maximum, empty; logits or the loss; rotary embeddings (``rel_pos``), absolute positions (``pos_emb``),
  the ``flash_attn`` path (``scaled_dot_product_attention`` under ``sdpa_kernel``), dropout, a
  ``pad_id`` the loss ignores, deeper stages;
- ``GENERATE``: ``MEGABYTE.generate`` through ``gt_calls.Method`` over a small hierarchy (6 or 8 bytes in
  all): from nothing (the default batch of 1, or of 2) or from a prime, rotary and absolute positions,
  flash attention, three stages; and ``forward_empty``;
- ``PARTS``: the stage ``Transformer`` (plain, rotary, flash), ``Attention`` (with and without rotary
  embeddings, flash), ``Attend`` (causal or not, single-headed keys and values, the flash path with and
  without a padding mask, dropout), ``RotaryEmbedding``, ``RMSNorm`` and ``FeedForward``;
- ``FUNCTIONS``: ``top_k``, ``gumbel_sample``, ``gumbel_noise``, ``token_shift`` and
  ``apply_rotary_pos_emb`` through ``gt_calls.Call``.

Left out: CUDA-only choices (``Attend`` picks its ``sdpa_kernel`` backends by GPU model; on the CPU it
keeps its default list) and options that only change a number (more heads, other widths, the
sampling temperature and filter threshold). ``Attend``'s flash path is given a mask only without
``causal`` (``scaled_dot_product_attention`` refuses both).

Every model is compiled in train and in eval mode (dropout differs). Random weights, nothing
downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TOKENS, DIM, BATCH, HEADS, DIM_HEAD = 32, 16, 2, 2, 8
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": (1, 1), "max_seq_len": (4, 4),
                        "dim_head": DIM_HEAD, "heads": HEADS}
THREE: dict[str, Any] = {"dim": (24, 16, 8), "depth": (1, 1, 1), "max_seq_len": (4, 2, 2)}
ONE: dict[str, Any] = {"depth": (2,), "max_seq_len": (16,)}
LOSS: dict[str, Any] = {"return_loss": True}
DROPOUT: dict[str, Any] = {"attn_dropout": 0.1, "ff_dropout": 0.1}

# ``MEGABYTE`` forward name -> (constructor keywords over ``BASE``, ids, call keywords). The ids are a
# "grid" (batch, then one axis a stage, full), "flat" (batch, all bytes), "flat_pad" (batch, three bytes
# short of whole patches), "short" (a grid with fewer first-stage patches than the maximum) or "empty".
FORWARD: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "MEGABYTE": ({}, "grid", {}),
    "MEGABYTE.loss": ({}, "grid", LOSS),
    "MEGABYTE.flat": ({}, "flat", {}),
    "MEGABYTE.flat.loss": ({}, "flat", LOSS),
    "MEGABYTE.flat_padded": ({}, "flat_pad", {}),
    "MEGABYTE.flat_padded.loss": ({}, "flat_pad", LOSS),
    "MEGABYTE.short": ({}, "short", {}),
    "MEGABYTE.short.loss": ({}, "short", LOSS),
    "MEGABYTE.empty": ({}, "empty", {}),
    "MEGABYTE.tuple_dim.loss": ({"dim": (24, 16)}, "grid", LOSS),
    "MEGABYTE.rel_pos": ({"rel_pos": True}, "grid", {}),
    "MEGABYTE.rel_pos.loss": ({"rel_pos": True}, "grid", LOSS),
    "MEGABYTE.pos_emb": ({"pos_emb": True}, "grid", {}),
    "MEGABYTE.pos_emb.short.loss": ({"pos_emb": True}, "short", LOSS),
    "MEGABYTE.flash_attn": ({"flash_attn": True}, "grid", {}),
    "MEGABYTE.flash_attn.loss": ({"flash_attn": True}, "grid", LOSS),
    "MEGABYTE.flash_attn.dropout.loss": ({"flash_attn": True, **DROPOUT}, "grid", LOSS),
    "MEGABYTE.dropout.loss": (DROPOUT, "grid", LOSS),
    "MEGABYTE.deeper.loss": ({"depth": (2, 2), "ff_mult": 2}, "grid", LOSS),
    "MEGABYTE.pad_id.loss": ({"pad_id": 3}, "flat_pad", LOSS),
    "MEGABYTE.one_stage": (ONE, "flat", {}),
    "MEGABYTE.one_stage.loss": (ONE, "flat", LOSS),
    "MEGABYTE.three_stages": (THREE, "grid", {}),
    "MEGABYTE.three_stages.loss": (THREE, "grid", LOSS),
    "MEGABYTE.three_stages.flat_padded.loss": (THREE, "flat_pad", LOSS),
    "MEGABYTE.three_stages.empty": (THREE, "empty", {}),
    "MEGABYTE.three_stages.all_options.loss": ({**THREE, "rel_pos": True, "pos_emb": True, "flash_attn": True},
                                               "grid", LOSS),
}
# ``generate`` name -> (constructor keywords over ``BASE`` and a hierarchy of 3 x 2 bytes, prime length
# or None, fixed keywords of ``generate``).
GEN_BASE: dict[str, Any] = {"max_seq_len": (3, 2)}
GENERATE: dict[str, tuple[dict[str, Any], int | None, dict[str, Any]]] = {
    "generate": ({}, None, {}),
    "generate.batch": ({}, None, {"default_batch_size": BATCH}),
    "generate.prime": ({}, 3, {}),
    "generate.rel_pos.pos_emb": ({"rel_pos": True, "pos_emb": True}, 3, {}),
    "generate.flash_attn": ({"flash_attn": True}, 3, {}),
    "generate.three_stages": ({"dim": (16, 16, 8), "depth": (1, 1, 1), "max_seq_len": (2, 2, 2)}, 3, {}),
}
PARTS = ("forward_empty", "Transformer", "Transformer.rel_pos", "Transformer.flash_attn", "Attention",
         "Attention.rotary", "Attention.flash", "Attend", "Attend.not_causal", "Attend.single_kv",
         "Attend.dropout", "Attend.flash", "Attend.flash.single_kv", "Attend.flash.mask", "RotaryEmbedding",
         "RMSNorm", "FeedForward")
FUNCTIONS = ("top_k", "gumbel_sample", "gumbel_noise", "token_shift", "apply_rotary_pos_emb")


def names() -> list[str]:
    return list(FORWARD) + list(GENERATE) + list(PARTS) + list(FUNCTIONS)


def _megabyte(keywords: dict[str, Any]) -> Any:
    from MEGABYTE_pytorch import MEGABYTE

    return MEGABYTE(**{**BASE, **keywords})


def _ids(kind: str, max_seq_len: tuple[int, ...]) -> Any:
    import math

    import torch

    gen = torch.Generator().manual_seed(1)
    total = math.prod(max_seq_len)
    if kind == "grid":
        shape: tuple[int, ...] = (BATCH, *max_seq_len)
    elif kind == "short":
        shape = (BATCH, max_seq_len[0] - 2, *max_seq_len[1:])
    elif kind == "flat":
        shape = (BATCH, total)
    elif kind == "flat_pad":
        shape = (BATCH, total - 3)
    else:
        shape = (BATCH, 0)
    return torch.randint(1, TOKENS, shape, generator=gen)


def _part(name: str) -> Built:
    import torch
    from MEGABYTE_pytorch.attend import Attend
    from MEGABYTE_pytorch.megabyte import Attention, FeedForward, RMSNorm, RotaryEmbedding, Transformer

    gen = torch.Generator().manual_seed(2)
    x = torch.randn(BATCH, 8, DIM, generator=gen)
    if name.startswith("Transformer"):
        return Transformer(dim=DIM, layers=2, dim_head=DIM_HEAD, heads=HEADS, rel_pos=name.endswith("rel_pos"),
                           flash_attn=name.endswith("flash_attn")), (x,), {}
    if name.startswith("Attention"):
        attention = Attention(dim=DIM, dim_head=DIM_HEAD, heads=HEADS, flash=name.endswith("flash"))
        if name.endswith("rotary"):
            return attention, (x,), {"rotary_emb": RotaryEmbedding(DIM_HEAD)(8)}
        return attention, (x,), {}
    if name.startswith("Attend"):
        flash = ".flash" in name
        causal = name != "Attend.not_causal" and not name.endswith("mask")
        attend = Attend(causal=causal, flash=flash, dropout=0.1 if name.endswith("dropout") else 0.0)
        q = torch.randn(BATCH, HEADS, 8, DIM_HEAD, generator=gen)
        kv_shape = (BATCH, 8, DIM_HEAD) if name.endswith("single_kv") else (BATCH, HEADS, 8, DIM_HEAD)
        k, v = torch.randn(kv_shape, generator=gen), torch.randn(kv_shape, generator=gen)
        if name.endswith("mask"):
            mask = torch.arange(8).expand(BATCH, 8) < torch.tensor([[8], [5]])
            return attend, (q, k, v), {"mask": mask}
        return attend, (q, k, v), {}
    if name == "RotaryEmbedding":
        return RotaryEmbedding(DIM_HEAD), (8,), {}
    if name == "RMSNorm":
        return RMSNorm(DIM), (x,), {}
    return FeedForward(dim=DIM, mult=2, dropout=0.1), (x,), {}


def _function(name: str) -> Built:
    import torch
    from gt_calls import Call
    from MEGABYTE_pytorch import megabyte as M

    gen = torch.Generator().manual_seed(3)
    logits = torch.randn(BATCH, TOKENS, generator=gen)
    if name == "top_k":
        return Call(M.top_k, thres=0.9), (logits,), {}
    if name == "gumbel_sample":
        return Call(M.gumbel_sample, temperature=0.7, dim=-1), (logits,), {}
    if name == "gumbel_noise":
        return Call(M.gumbel_noise), (logits,), {}
    x = torch.randn(BATCH, HEADS, 8, DIM_HEAD, generator=gen)
    if name == "token_shift":
        return Call(M.token_shift), (x,), {}
    return Call(M.apply_rotary_pos_emb), (M.RotaryEmbedding(DIM_HEAD)(8), x), {}


def build(name: str) -> Built:
    import torch
    from gt_calls import Method

    torch.manual_seed(0)
    if name in FORWARD:
        keywords, ids, call = FORWARD[name]
        model = _megabyte(keywords)
        return model, (_ids(ids, model.max_seq_len),), dict(call)
    if name in GENERATE:
        keywords, prime, static = GENERATE[name]
        model = _megabyte({**GEN_BASE, **keywords})
        args = () if prime is None else (torch.randint(1, TOKENS, (BATCH, prime), generator=torch.Generator().manual_seed(4)),)
        return Method(model, "generate", **static), args, {}
    if name == "forward_empty":
        return Method(_megabyte({}), "forward_empty", batch_size=BATCH), (), {}
    if name in PARTS:
        return _part(name)
    return _function(name)
