"""Ground-truth bench, ring_attention_pytorch: ring attention and its transformer, run in one process.

ring-attention-pytorch 0.5.20 (lucidrains) implements ring attention (Liu et al. 2023) over a blockwise, flash-
style attention written in PyTorch: ``RingFlashAttentionFunction`` (``ring_flash_attn``), a custom autograd
function whose forward and backward walk query and key buckets with running row maxima and sums, causal
masking per bucket (the striped variant of Brandon et al. 2023 for workload balance), a lookback limit in
buckets, grouped-query heads, a key padding mask and tanh soft-clamping, and passes keys and values around a
ring of ranks (``ring.py``). ``RingAttention`` puts projections, an RMS pre-norm and ring-aware rotary
embeddings (``RingRotaryEmbedding``: positions offset by the rank, or striped) around it, or plain attention
(``default_attention``) when forced; ``RingTransformer`` stacks it with feedforwards, a token embedding and the
next-token loss. Here everything runs in one process without ``torch.distributed``: a world of one, where the
ring options take their single-rank paths (one ring pass, rank 0, no sharding). The CUDA and Triton kernels,
tree attention decoding and zig-zag attention (collectives on a process group) are left out; the zig-zag
sharding helpers run. The tables cover, at width 32, 4 heads of 8, buckets of 8, a batch of 2 and 16 positions:

- ``ATTENTION``: ``RingAttention``: bidirectional and causal, a key padding mask, grouped query heads, rotary
  embeddings (plain, with ring offsets, striped), the ring flags with causal rotary attention, striped causal
  attention, a lookback limit, forced regular attention (masked, grouped), a length that leaves a ragged last
  bucket;
- ``TRANSFORMER``: ``RingTransformer``: causal logits, the loss from labels with ignored positions, the striped
  loss, lookbacks per layer (two layers);
- ``FUNCTIONS``: through ``gt_calls.Call`` / ``Run``: ``default_attention`` (soft-clamped; causal with fewer
  queries than keys), ``ring_flash_attn`` (soft-clamped; cross attention), ``RingRotaryEmbedding`` (striped
  buckets), ``maybe_pad_seq_and_mask`` with a mask and zig-zag ``zig_zag_shard``;
- ``TRAIN``: training steps (the custom backward of the blockwise attention): the striped transformer's loss
  backward, a bidirectional grouped-query one with a mask and labels, and soft-clamped ``ring_flash_attn`` over
  learned projections.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SEQ, DIM, HEADS, DIM_HEAD, BUCKET, TOKENS = 2, 16, 32, 4, 8, 8, 64
BASE: dict[str, Any] = {"dim": DIM, "heads": HEADS, "dim_head": DIM_HEAD, "bucket_size": BUCKET,
                        "use_cuda_kernel": False}
RING: dict[str, Any] = {"ring_attn": True, "ring_seq_size": 16}
STRIPED: dict[str, Any] = {**RING, "striped_ring_attn": True, "causal": True}
CAUSAL: dict[str, Any] = {"causal": True}
REGULAR: dict[str, Any] = {"force_regular_attn": True}

# Name -> (``RingAttention`` keywords, call options: "mask", "len:N", "batch1", "reduce_off", "ring_size",
# "rotary_emb" frequencies given).
ATTENTION: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "RingAttention": ({}, ()),
    "RingAttention.causal": (CAUSAL, ()),
    "RingAttention.mask": ({}, ("mask",)),
    "RingAttention.gqa": ({"num_grouped_query_heads": 2}, ()),
    "RingAttention.rotary": ({"rotary_embed": True}, ()),
    "RingAttention.ring.causal.rotary": ({**RING, **CAUSAL, "rotary_embed": True}, ()),
    "RingAttention.striped.rotary": ({**STRIPED, "rotary_embed": True}, ()),
    "RingAttention.max_lookback": ({**CAUSAL, "max_lookback_seq_len": 8}, ()),
    "RingAttention.force_regular_attn.mask.gqa": ({**REGULAR, "num_grouped_query_heads": 2}, ("mask",)),
    "RingAttention.ragged": (CAUSAL, ("len:14",)),
}
# Name -> (``RingTransformer`` keywords, call options: "mask", "len:N", "return_loss", "labels", "reduce_off").
TRANSFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "RingTransformer.causal": (CAUSAL, ()),
    "RingTransformer.labels": (CAUSAL, ("labels",)),
    "RingTransformer.striped.loss": (STRIPED, ("return_loss", "len:17")),
    "RingTransformer.max_lookback": ({**CAUSAL, "depth": 2, "max_lookback_seq_len": (16, 8)}, ()),
}
FUNCTIONS = (
    "default_attention.softclamp", "default_attention.causal.fewer_queries", "ring_flash_attn.softclamp",
    "ring_flash_attn.cross", "RingRotaryEmbedding.striped", "maybe_pad_seq_and_mask.mask", "zig_zag_shard",
)
TRAIN = ("train.RingTransformer.striped", "train.RingTransformer.gqa.mask", "train.ring_flash_attn.softclamp")


def names() -> list[str]:
    return list(ATTENTION) + list(TRANSFORMER) + list(FUNCTIONS) + list(TRAIN)


def _length(options: tuple[str, ...]) -> int:
    return next((int(o[4:]) for o in options if o.startswith("len:")), SEQ)


def _tokens(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randint(0, TOKENS, shape, generator=torch.Generator().manual_seed(seed))


def _qkv(length: int = SEQ, kv_heads: int = HEADS, kv_length: int | None = None) -> tuple[Any, Any, Any]:
    """Queries, keys and values laid out ``(batch, sequence, heads, dim_head)``, as the library expects."""
    kv_length = length if kv_length is None else kv_length
    return (gt_inputs.randn(BATCH, length, HEADS, DIM_HEAD, seed=1),
            gt_inputs.randn(BATCH, kv_length, kv_heads, DIM_HEAD, seed=2),
            gt_inputs.randn(BATCH, kv_length, kv_heads, DIM_HEAD, seed=3))


def _transformer(keywords: dict[str, Any]) -> Any:
    from ring_attention_pytorch import RingTransformer

    keywords = {"num_tokens": TOKENS, "dim": DIM, "depth": 1, "heads": HEADS, "dim_head": DIM_HEAD,
                "bucket_size": BUCKET, "ff_mult": 2, "use_cuda_kernel": False, **keywords}
    return RingTransformer(**keywords)


def _attention(name: str) -> Built:
    from ring_attention_pytorch import RingAttention, RingRotaryEmbedding

    keywords, options = ATTENTION[name]
    length = _length(options)
    batch = 1 if "batch1" in options else BATCH
    call: dict[str, Any] = {}
    if "mask" in options:
        call["mask"] = gt_inputs.padding_mask(batch, length, hidden=5)
    if "reduce_off" in options:
        call["force_ring_reduce_off"] = True
    if "ring_size" in options:
        call["ring_size"] = 1
    if "rotary_emb" in options:
        call["rotary_emb"] = RingRotaryEmbedding(DIM_HEAD)(length)
    return RingAttention(**{**BASE, **keywords}), (gt_inputs.randn(batch, length, DIM, seed=1),), call


def _transformer_model(name: str) -> Built:
    keywords, options = TRANSFORMER[name]
    length = _length(options)
    tokens = _tokens(BATCH, length)
    call: dict[str, Any] = {}
    if "mask" in options:
        call["mask"] = gt_inputs.padding_mask(BATCH, length, hidden=5)
    if "return_loss" in options:
        call["return_loss"] = True
    if "labels" in options:  # labels of their own, the padded tail ignored (ignore_index is -1)
        labels = _tokens(BATCH, length, seed=5)
        labels[1, -4:] = -1
        call["labels"] = labels
    if "reduce_off" in options:
        call["force_ring_reduce_off"] = True
    return _transformer(keywords), (tokens,), call


def _function(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Call, Run
    from ring_attention_pytorch import (
        RingRotaryEmbedding,
        apply_rotary_pos_emb,
        default_attention,
        ring_flash_attn,
        ring_flash_attn_,
    )
    from ring_attention_pytorch import ring_attention as ra
    from ring_attention_pytorch import zig_zag_attention as zz

    mask = gt_inputs.padding_mask(BATCH, SEQ, hidden=5)
    if name.startswith("default_attention"):
        variant = name.split(".", 1)[1] if "." in name else ""
        if variant == "gqa":
            return Call(default_attention), _qkv(kv_heads=2), {}
        if variant == "mask":
            return Call(default_attention), (*_qkv(), mask), {}
        if variant == "causal.fewer_queries":
            q, k, v = _qkv(kv_length=SEQ)
            return Call(default_attention, causal=True), (q[:, :6], k, v), {}
        static = {"causal": variant == "causal", "softclamp_qk_sim": variant == "softclamp"}
        return Call(default_attention, **static), _qkv(), {}
    if name == "ring_flash_attn_":
        args = (None, True, BUCKET, False, False, None, None, False, 50.0)
        return Run(nn.Identity(), lambda owner, q, k, v: ring_flash_attn_(q, k, v, *args), [ring_flash_attn_]), \
            _qkv(), {}
    if name.startswith("ring_flash_attn"):
        variant = name.split(".", 1)[1] if "." in name else ""
        static: dict[str, Any] = {"bucket_size": BUCKET}
        if variant == "mask":
            return Call(ring_flash_attn, **static), (*_qkv(), mask), {}
        if variant == "gqa":
            return Call(ring_flash_attn, causal=True, **static), _qkv(kv_heads=1), {}
        if variant == "cross":
            return Call(ring_flash_attn, **static), _qkv(length=8, kv_length=SEQ), {}
        static["causal"] = variant in ("causal", "striped", "lookback")
        if variant == "softclamp":
            static.update(softclamp_qk_sim=True, softclamp_value=5.0)
        if variant == "striped":
            static.update(ring_reduce_col=True, striped_ring_attn=True, ring_size=1)
        if variant == "lookback":
            static["max_lookback_seq_len"] = 8
        return Call(ring_flash_attn, **static), _qkv(), {}
    if name.startswith("apply_rotary_pos_emb"):
        freqs = RingRotaryEmbedding(DIM_HEAD)(SEQ)
        if name.endswith("head_dim_first"):
            t = gt_inputs.randn(BATCH, HEADS, SEQ, DIM_HEAD, seed=1)
            return Call(apply_rotary_pos_emb, head_dim_first=True), (freqs, t), {}
        return Call(apply_rotary_pos_emb), (freqs, gt_inputs.randn(BATCH, SEQ, HEADS, DIM_HEAD, seed=1)), {}
    if name.startswith("RingRotaryEmbedding"):
        if name == "RingRotaryEmbedding.positions":
            return RingRotaryEmbedding(DIM_HEAD), (torch.arange(SEQ) * 2,), {}
        if name == "RingRotaryEmbedding.ring":
            return RingRotaryEmbedding(DIM_HEAD, ring=True), (SEQ,), {}
        if name == "RingRotaryEmbedding.striped":
            return RingRotaryEmbedding(DIM_HEAD, ring=True, striped=True, buckets=2), (SEQ,), {}
        return RingRotaryEmbedding(DIM_HEAD, theta=500), (SEQ,), {}
    x = gt_inputs.randn(BATCH, 30, DIM, seed=1)
    if name == "pad_at_dim":
        return Call(ra.pad_at_dim, pad=(1, 3), dim=1, value=0.5), (x,), {}
    if name == "pad_to_multiple":
        return Run(nn.Identity(), lambda owner, t: ra.pad_to_multiple(t, 16)[0], [ra.pad_to_multiple]), (x,), {}
    if name.startswith("maybe_pad_seq_and_mask"):
        def pad(owner: Any, t: Any, *masks: Any) -> Any:
            return ra.maybe_pad_seq_and_mask(t, masks[0] if masks else None, 16)

        masks = (gt_inputs.padding_mask(BATCH, 30, hidden=4),) if name.endswith("mask") else ()
        return Run(nn.Identity(), pad, [ra.maybe_pad_seq_and_mask]), (x, *masks), {}
    if name == "zig_zag_pad_seq":
        return Run(nn.Identity(), lambda owner, t: zz.zig_zag_pad_seq(t)[0], [zz.zig_zag_pad_seq]), (x,), {}
    if name == "zig_zag_shard":
        def shard(owner: Any, t: Any) -> Any:
            output, _ = zz.zig_zag_shard(t)
            return output.local_sequence, output.query_positions, output.key_value_positions

        return Run(nn.Identity(), shard, [zz.zig_zag_shard]), (gt_inputs.randn(BATCH, SEQ, DIM, seed=1),), {}
    if name == "RMSNorm":
        return ra.RMSNorm(DIM), (x,), {}
    if name == "FeedForward":
        return ra.FeedForward(DIM, mult=2), (x,), {}
    raise KeyError(name)


def _train(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Run
    from ring_attention_pytorch import RingTransformer, ring_flash_attn

    def backward(loss: Any) -> Any:
        if torch.is_grad_enabled():
            loss.backward()
        return loss.detach()

    tokens = _tokens(BATCH, SEQ + 1)
    if name == "train.ring_flash_attn.softclamp":
        class Projected(nn.Module):
            """Learned query, key and value projections around the blockwise attention, soft-clamped."""

            def __init__(self) -> None:
                super().__init__()
                self.to_qkv = nn.Linear(DIM, 3 * HEADS * DIM_HEAD, bias=False)

            def forward(self, x: Any) -> Any:
                q, k, v = self.to_qkv(x).unflatten(-1, (3, HEADS, DIM_HEAD)).unbind(dim=2)
                return ring_flash_attn(q, k, v, None, True, BUCKET, softclamp_qk_sim=True, softclamp_value=5.0)

        return Run(Projected(), lambda owner, x: backward(owner(x).square().mean()), [ring_flash_attn]), \
            (gt_inputs.randn(BATCH, SEQ, DIM, seed=1),), {}
    keywords: dict[str, Any] = {
        "train.RingTransformer.causal": CAUSAL,
        "train.RingTransformer.striped": STRIPED,
        "train.RingTransformer.max_lookback": {**CAUSAL, "max_lookback_seq_len": 8},
        "train.RingTransformer.gqa.mask": {"num_grouped_query_heads": 2},
        "train.RingTransformer.force_regular_attn": {**REGULAR, **CAUSAL},
        "train.RingTransformer.adam": CAUSAL,
    }[name]
    model = _transformer(keywords)
    if name == "train.RingTransformer.gqa.mask":  # a bidirectional model: labels and a mask of the input's length
        labels = _tokens(BATCH, SEQ, seed=5)
        labels[1, -5:] = -1

        def masked(owner: Any, x: Any, mask: Any, y: Any) -> Any:
            return backward(owner(x, mask=mask, labels=y))

        return Run(model, masked, [RingTransformer]), (_tokens(BATCH, SEQ), gt_inputs.padding_mask(BATCH, SEQ, 5),
                                                       labels), {}
    if name == "train.RingTransformer.adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

        def step(owner: Any, x: Any) -> Any:
            loss = owner(x, return_loss=True)
            if torch.is_grad_enabled():
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(model, step, [RingTransformer]), (tokens,), {}
    return Run(model, lambda owner, x: backward(owner(x, return_loss=True)), [RingTransformer]), (tokens,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in ATTENTION:
        return _attention(name)
    if name in TRANSFORMER:
        return _transformer_model(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
