"""Ground-truth bench, performer-pytorch: PerformerLM, Performer, its attention layers, the wrapper and PerformerEncDec.

performer-pytorch 1.1.4 is a set of ``nn.Module`` s (linear attention through random features, FAVOR+) that users
compile as they are; each is built here at a tiny size (width 32, 2 heads of 16, 16 random features, 8 tokens
of a 64-token vocabulary, depth 1, or 2 where layers differ: per-layer local heads, reversible and cross-attending
stacks), in the options of its README that change its code:

- ``LM``: ``PerformerLM`` causal and not, with a mask, reversible layers, local attention heads (on every layer
  or per layer, causal and not), generalized attention (ReLU kernel, causal and not), no projection (softmax
  kernels), feature redraw every call (``feature_redraw_interval=1``), fixed projections
  (``fix_projection_matrices_()``), no automatic redraw check, absolute, axial or rotary (default) positions,
  tied embeddings, scale norm, ReZero, chunked and GLU feed-forwards, token shifting (causal and not, with a
  mask), dropout, query-key-value biases, ``return_encodings`` and cross-attention to a context with its mask.
  Its causal attention runs the library's non-CUDA fallback (``causal_linear_attention_noncuda``), since the
  CUDA kernel of ``fast_transformers`` is absent here, as on any CPU;
- ``PERFORMER``: ``Performer`` on embeddings (causal, cross-attending, with local heads and a mask);
  ``ATTENTION``: ``SelfAttention``, ``CrossAttention`` and ``FastAttention`` on their own;
- ``WRAPPER``: ``AutoregressiveWrapper`` around a causal ``PerformerLM``: its forward (the next-token loss, with
  a mask one longer than the input, which it trims) and ``generate`` (2 tokens from a 4-token prompt) with
  top-k or top-p filtering, an end token and a repetition penalty;
- ``ENCDEC``: ``PerformerEncDec`` forward (the decoder's loss on an encoded source, with an encoder mask and tied
  token embeddings) and its ``generate`` (with an encoder mask).

Random weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SEQ, DIM, HEADS, DIM_HEAD, FEATURES, TOKENS, MAX_SEQ, CONTEXT = 2, 8, 32, 2, 16, 16, 64, 32, 6
SMALL = {"dim": DIM, "depth": 1, "heads": HEADS, "dim_head": DIM_HEAD, "nb_features": FEATURES}
LM_SMALL = {**SMALL, "num_tokens": TOKENS, "max_seq_len": MAX_SEQ}
LOCAL = {"local_attn_heads": 1, "local_window_size": 4}

# Name -> (``PerformerLM`` keywords, call options: "mask", "return_encodings", "context" (cross-attention to a
# context and its mask), "fix" (``fix_projection_matrices_()`` after building)).
LM: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "PerformerLM": ({}, ()),
    "PerformerLM.causal": ({"causal": True}, ()),
    "PerformerLM.mask": ({}, ("mask",)),
    "PerformerLM.causal.mask": ({"causal": True}, ("mask",)),
    "PerformerLM.reversible": ({"depth": 2, "reversible": True}, ()),
    "PerformerLM.reversible.mask": ({"reversible": True}, ("mask",)),
    "PerformerLM.local_attn_heads": ({**LOCAL}, ()),
    "PerformerLM.local_attn_heads.causal": ({**LOCAL, "causal": True}, ()),
    "PerformerLM.local_attn_heads.per_layer.mask": ({"depth": 2, "local_attn_heads": (1, 0),
                                                     "local_window_size": 4}, ("mask",)),
    "PerformerLM.generalized_attention": ({"generalized_attention": True}, ()),
    "PerformerLM.generalized_attention.causal": ({"generalized_attention": True, "causal": True}, ()),
    "PerformerLM.no_projection": ({"no_projection": True}, ()),
    "PerformerLM.no_projection.causal": ({"no_projection": True, "causal": True}, ()),
    "PerformerLM.feature_redraw_interval_1": ({"feature_redraw_interval": 1}, ()),
    "PerformerLM.fixed_projections": ({}, ("fix",)),
    "PerformerLM.no_auto_check_redraw": ({"auto_check_redraw": False}, ()),
    "PerformerLM.absolute_pos_emb": ({"rotary_position_emb": False}, ()),
    "PerformerLM.axial_pos_emb": ({"rotary_position_emb": False, "axial_position_emb": True,
                                   "axial_position_shape": (4, 8)}, ()),
    "PerformerLM.tie_embed": ({"tie_embed": True}, ()),
    "PerformerLM.use_scalenorm": ({"use_scalenorm": True}, ()),
    "PerformerLM.use_rezero": ({"use_rezero": True}, ()),
    "PerformerLM.ff_chunks_glu": ({"ff_chunks": 2, "ff_glu": True}, ()),
    "PerformerLM.shift_tokens": ({"shift_tokens": True}, ()),
    "PerformerLM.shift_tokens.causal.mask": ({"shift_tokens": True, "causal": True}, ("mask",)),
    "PerformerLM.dropout": ({"emb_dropout": 0.1, "ff_dropout": 0.1, "attn_dropout": 0.1}, ()),
    "PerformerLM.qkv_bias": ({"qkv_bias": True, "attn_out_bias": True}, ()),
    "PerformerLM.return_encodings": ({}, ("return_encodings",)),
    "PerformerLM.cross_attend": ({"depth": 2, "cross_attend": True}, ("context",)),
}
# Name -> (``Performer`` keywords, call options: "mask", "context").
PERFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "Performer": ({}, ()),
    "Performer.causal": ({"causal": True}, ()),
    "Performer.cross_attend": ({"cross_attend": True}, ("context",)),
    "Performer.local_attn_heads.mask": ({**LOCAL}, ("mask",)),
}
# Name -> (class, keywords, call options: "mask", "context", "qkv" (q, k, v of 2 x 2 heads x 8 x 16)).
ATTENTION: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "SelfAttention": ("SelfAttention", {}, ()),
    "SelfAttention.causal.mask": ("SelfAttention", {"causal": True}, ("mask",)),
    "SelfAttention.local_heads": ("SelfAttention", {"local_heads": 1, "local_window_size": 4}, ()),
    "SelfAttention.generalized_attention": ("SelfAttention", {"generalized_attention": True}, ()),
    "CrossAttention": ("CrossAttention", {}, ("context",)),
    "FastAttention": ("FastAttention", {}, ("qkv",)),
    "FastAttention.causal": ("FastAttention", {"causal": True}, ("qkv",)),
    "FastAttention.generalized_attention": ("FastAttention", {"generalized_attention": True}, ("qkv",)),
    "FastAttention.no_projection": ("FastAttention", {"no_projection": True}, ("qkv",)),
}
# Name -> ``generate`` keywords ("top_p" stands for the wrapper module's filter), or None for the wrapper's
# forward (its loss).
WRAPPER: dict[str, dict[str, Any] | None] = {
    "AutoregressiveWrapper": None,
    "AutoregressiveWrapper.mask": None,
    "AutoregressiveWrapper.generate": {},
    "AutoregressiveWrapper.generate.top_p": {"filter_logits_fn": "top_p", "filter_thres": 0.9},
    "AutoregressiveWrapper.generate.eos_token": {"eos_token": 1},
    "AutoregressiveWrapper.generate.repetition_penalty": {"repetition_penalty": 1.2},
}
# Name -> call options: "enc_mask", "tie" (tied token embeddings), "generate".
ENCDEC: dict[str, tuple[str, ...]] = {
    "PerformerEncDec": (),
    "PerformerEncDec.enc_mask": ("enc_mask",),
    "PerformerEncDec.tie_token_embeds": ("tie",),
    "PerformerEncDec.generate.enc_mask": ("generate", "enc_mask", "tie"),
}


def names() -> list[str]:
    return list(LM) + list(PERFORMER) + list(ATTENTION) + list(WRAPPER) + list(ENCDEC)


def _tensor(*shape: int, seed: int = 0) -> Any:
    return gt_inputs.randn(*shape, seed=seed)


def _tokens(*shape: int, seed: int = 0) -> Any:
    return gt_inputs.tokens(TOKENS, *shape, seed=seed)


def _mask(length: int) -> Any:
    """A padding mask: the second sequence ends 3 positions early."""
    return gt_inputs.padding_mask(BATCH, length, hidden=3)


def _calls(options: tuple[str, ...]) -> dict[str, Any]:
    call: dict[str, Any] = {}
    if "mask" in options:
        call["mask"] = _mask(SEQ)
    if "context" in options:
        call["context"] = _tensor(BATCH, CONTEXT, DIM, seed=5)
        call["context_mask"] = _mask(CONTEXT)
    if "return_encodings" in options:
        call["return_encodings"] = True
    return call


def _lm(name: str) -> Built:
    from performer_pytorch import PerformerLM

    keywords, options = LM[name]
    model = PerformerLM(**{**LM_SMALL, **keywords})
    if "fix" in options:
        model.fix_projection_matrices_()
    return model, (_tokens(BATCH, SEQ),), _calls(options)


def _performer(name: str) -> Built:
    from performer_pytorch import Performer

    keywords, options = PERFORMER[name]
    return Performer(**{**SMALL, **keywords}), (_tensor(BATCH, SEQ, DIM, seed=1),), _calls(options)


def _attention(name: str) -> Built:
    import performer_pytorch

    cls, keywords, options = ATTENTION[name]
    if cls == "FastAttention":
        attention = performer_pytorch.FastAttention(DIM_HEAD, nb_features=FEATURES, **keywords)
        return attention, tuple(_tensor(BATCH, HEADS, SEQ, DIM_HEAD, seed=s) for s in (1, 2, 3)), {}
    attention = getattr(performer_pytorch, cls)(DIM, heads=HEADS, dim_head=DIM_HEAD, nb_features=FEATURES, **keywords)
    return attention, (_tensor(BATCH, SEQ, DIM, seed=1),), _calls(options)


def _wrapper(name: str) -> Built:
    from performer_pytorch import AutoregressiveWrapper, PerformerLM
    from performer_pytorch.autoregressive_wrapper import top_p

    from gt_calls import Method

    wrapper = AutoregressiveWrapper(PerformerLM(**LM_SMALL, causal=True))
    static = WRAPPER[name]
    if static is None:  # the training loss on 9 tokens (8 in, 8 shifted targets)
        call = {"mask": _mask(SEQ + 1)} if name.endswith(".mask") else {}
        return wrapper, (_tokens(BATCH, SEQ + 1),), call
    static = dict(static)
    if static.get("filter_logits_fn") == "top_p":
        static["filter_logits_fn"] = top_p
    return Method(wrapper, "generate", seq_len=2, **static), (_tokens(BATCH, 4),), {}


def _encdec(name: str) -> Built:
    from performer_pytorch import PerformerEncDec

    from gt_calls import Method

    options = ENCDEC[name]
    side = {"num_tokens": TOKENS, "depth": 1, "heads": HEADS, "dim_head": DIM_HEAD, "nb_features": FEATURES}
    keywords = {f"{prefix}_{key}": value for prefix in ("enc", "dec") for key, value in side.items()}
    model = PerformerEncDec(dim=DIM, enc_max_seq_len=MAX_SEQ, dec_max_seq_len=MAX_SEQ,
                            tie_token_embeds="tie" in options, **keywords)
    source = _tokens(BATCH, SEQ, seed=1)
    call = {"enc_mask": _mask(SEQ)} if "enc_mask" in options else {}
    if "generate" in options:  # 2 tokens after a start token, attending to the encoded source
        return Method(model, "generate", seq_len=2, **call), (source, _tokens(BATCH, 1, seed=2)), {}
    return model, (source, _tokens(BATCH, 7, seed=2)), call


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    for table, builder in ((LM, _lm), (PERFORMER, _performer), (ATTENTION, _attention), (WRAPPER, _wrapper),
                           (ENCDEC, _encdec)):
        if name in table:
            return builder(name)
    raise KeyError(name)
