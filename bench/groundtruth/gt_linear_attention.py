"""Ground-truth bench, linear-attention-transformer: its LM, transformer, image attention and autoregressive wrapper.

linear-attention-transformer 0.19.1 is a set of ``nn.Module`` s (softmax-kernel linear attention, optionally mixed
with local attention heads) that users compile as they are. Each is built here at a tiny size (width 32, 2 heads
of 16, 16 tokens of a 64-token vocabulary, local windows of 8, depth 1, or 2 where layers differ: per-layer
local heads and reversible stacks) in the options of its README that change its code:

- ``LM``: ``LinearAttentionTransformerLM`` causal and not, with an input mask, a blind spot
  (``blindspot_size``: bucketed causal attention), local attention heads (``n_local_attn_heads``, causal and
  not, per layer), reversible layers, chunked and GLU feed-forwards (``ff_chunks``), an embedding width other
  than the model's (``emb_dim``), ``return_embeddings``, rotary, absolute and axial (default) positions,
  Linformer self-attention (``linformer_settings``), cross-attention to a context (``receives_context``, also
  with ``context_linformer_settings``), axial attention (``attend_axially``), token shifting (causal and not),
  a product-key memory layer (``pkm_layers``) and dropout;
- ``TRANSFORMER``: ``LinearAttentionTransformer`` on embeddings (causal, with local heads and a mask,
  cross-attending, reversible);
- ``IMAGE``: ``ImageLinearAttention`` on a 2 x 8 x 8 x 8 feature map, with a context, a 3 x 3 kernel and
  without query normalisation;
- ``WRAPPER``: ``AutoregressiveWrapper`` around a causal LM: the training step's loss (``return_loss=True``,
  with a mask one longer than the input, which it trims), its plain forward through the ``Autopadder`` (a
  sequence the local window does not divide, so it pads), and ``generate`` (4 tokens from a 4-token prompt)
  with the default top-k, top-p, an end token, a 1-D prompt and local heads (autopadded each step).

Random weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SEQ, DIM, HEADS, DIM_HEAD, TOKENS, WINDOW, CONTEXT = 2, 16, 32, 2, 16, 64, 8, 8
SMALL = {"dim": DIM, "depth": 1, "heads": HEADS, "dim_head": DIM_HEAD, "max_seq_len": SEQ}
LM_SMALL = {**SMALL, "num_tokens": TOKENS}
LOCAL = {"n_local_attn_heads": 1, "local_attn_window_size": WINDOW}

# Name -> (``LinearAttentionTransformerLM`` keywords, call options: "mask", "context"). "linformer" and
# "context_linformer" stand for the library's settings namedtuples (built in ``_settings``).
LM: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "LinearAttentionTransformerLM": ({}, ()),
    "LinearAttentionTransformerLM.causal": ({"causal": True}, ()),
    "LinearAttentionTransformerLM.mask": ({}, ("mask",)),
    "LinearAttentionTransformerLM.causal.mask": ({"causal": True}, ("mask",)),
    "LinearAttentionTransformerLM.causal.blindspot": ({"causal": True, "blindspot_size": 4}, ()),
    "LinearAttentionTransformerLM.local_heads": ({**LOCAL}, ()),
    "LinearAttentionTransformerLM.local_heads.causal": ({**LOCAL, "causal": True}, ()),
    "LinearAttentionTransformerLM.local_heads.mask": ({**LOCAL}, ("mask",)),
    "LinearAttentionTransformerLM.local_heads.per_layer": ({"depth": 2, "n_local_attn_heads": (1, 0),
                                                            "local_attn_window_size": WINDOW}, ()),
    "LinearAttentionTransformerLM.all_local_heads": ({"n_local_attn_heads": HEADS,
                                                      "local_attn_window_size": WINDOW}, ()),
    "LinearAttentionTransformerLM.reversible": ({"depth": 2, "reversible": True}, ()),
    "LinearAttentionTransformerLM.reversible.causal.local_heads": ({"reversible": True, "causal": True, **LOCAL},
                                                                   ()),
    "LinearAttentionTransformerLM.ff_chunks_glu": ({"ff_chunks": 2, "ff_glu": True}, ()),
    "LinearAttentionTransformerLM.emb_dim": ({"emb_dim": 16}, ()),
    "LinearAttentionTransformerLM.return_embeddings": ({"return_embeddings": True}, ()),
    "LinearAttentionTransformerLM.rotary": ({"use_rotary_emb": True}, ()),
    "LinearAttentionTransformerLM.rotary.causal": ({"use_rotary_emb": True, "causal": True}, ()),
    "LinearAttentionTransformerLM.absolute_pos_emb": ({"use_axial_pos_emb": False}, ()),
    "LinearAttentionTransformerLM.linformer": ({"linformer_settings": "linformer"}, ()),
    "LinearAttentionTransformerLM.linformer.mask": ({"linformer_settings": "linformer"}, ("mask",)),
    "LinearAttentionTransformerLM.receives_context": ({"receives_context": True}, ("context",)),
    "LinearAttentionTransformerLM.receives_context.causal": ({"receives_context": True, "causal": True},
                                                             ("context", "mask")),
    "LinearAttentionTransformerLM.context_linformer": ({"receives_context": True,
                                                        "context_linformer_settings": "context_linformer"},
                                                       ("context",)),
    "LinearAttentionTransformerLM.attend_axially": ({"attend_axially": True, "local_attn_window_size": WINDOW}, ()),
    "LinearAttentionTransformerLM.attend_axially.mask": ({"attend_axially": True, "local_attn_window_size": WINDOW},
                                                         ("mask",)),
    "LinearAttentionTransformerLM.shift_tokens": ({"shift_tokens": True}, ()),
    "LinearAttentionTransformerLM.shift_tokens.causal": ({"shift_tokens": True, "causal": True}, ()),
    "LinearAttentionTransformerLM.pkm": ({"pkm_layers": (1,), "pkm_num_keys": 16}, ()),
    "LinearAttentionTransformerLM.dropout": ({"ff_dropout": 0.1, "attn_layer_dropout": 0.1, "attn_dropout": 0.1},
                                             ()),
}
# Name -> (``LinearAttentionTransformer`` keywords, call options).
TRANSFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "LinearAttentionTransformer": ({}, ()),
    "LinearAttentionTransformer.causal": ({"causal": True}, ()),
    "LinearAttentionTransformer.local_heads.mask": ({**LOCAL}, ("mask",)),
    "LinearAttentionTransformer.receives_context": ({"receives_context": True}, ("context",)),
    "LinearAttentionTransformer.reversible.causal": ({"depth": 2, "reversible": True, "causal": True}, ()),
}
# Name -> (``ImageLinearAttention`` keywords, with a context).
IMAGE: dict[str, tuple[dict[str, Any], bool]] = {
    "ImageLinearAttention": ({}, False),
    "ImageLinearAttention.context": ({}, True),
    "ImageLinearAttention.kernel_size_3": ({"kernel_size": 3, "padding": 1}, False),
    "ImageLinearAttention.no_norm_queries": ({"norm_queries": False}, False),
}
# Name -> ``generate`` keywords ("top_p" stands for the module's filter), or None for the wrapper's forward.
WRAPPER: dict[str, dict[str, Any] | None] = {
    "AutoregressiveWrapper.loss": None,
    "AutoregressiveWrapper.loss.mask": None,
    "AutoregressiveWrapper.loss.local_heads": None,
    "AutoregressiveWrapper.autopad": None,
    "AutoregressiveWrapper.generate": {},
    "AutoregressiveWrapper.generate.top_p": {"filter_logits_fn": "top_p", "filter_thres": 0.9},
    "AutoregressiveWrapper.generate.eos_token": {"eos_token": 1},
    "AutoregressiveWrapper.generate.1d": {},
    "AutoregressiveWrapper.generate.local_heads": {},
}


def names() -> list[str]:
    return list(LM) + list(TRANSFORMER) + list(IMAGE) + list(WRAPPER)


def _tensor(*shape: int, seed: int = 0) -> Any:
    return gt_inputs.randn(*shape, seed=seed)


def _tokens(*shape: int, seed: int = 0) -> Any:
    return gt_inputs.tokens(TOKENS, *shape, seed=seed)


def _mask(length: int) -> Any:
    """A padding mask: the second sequence ends 4 positions early."""
    return gt_inputs.padding_mask(BATCH, length, hidden=4)


def _settings(keywords: dict[str, Any]) -> dict[str, Any]:
    from linear_attention_transformer import LinformerContextSettings, LinformerSettings

    keywords = dict(keywords)
    if keywords.get("linformer_settings") == "linformer":
        keywords["linformer_settings"] = LinformerSettings(k=8)
    if keywords.get("context_linformer_settings") == "context_linformer":
        keywords["context_linformer_settings"] = LinformerContextSettings(seq_len=CONTEXT, k=4)
    return keywords


def _calls(options: tuple[str, ...]) -> dict[str, Any]:
    call: dict[str, Any] = {}
    if "mask" in options:
        call["input_mask"] = _mask(SEQ)
    if "context" in options:
        call["context"] = _tensor(BATCH, CONTEXT, DIM, seed=5)
        call["context_mask"] = _mask(CONTEXT)
    return call


def _lm(name: str) -> Built:
    from linear_attention_transformer import LinearAttentionTransformerLM

    keywords, options = LM[name]
    model = LinearAttentionTransformerLM(**_settings({**LM_SMALL, **keywords}))
    return model, (_tokens(BATCH, SEQ),), _calls(options)


def _transformer(name: str) -> Built:
    from linear_attention_transformer import LinearAttentionTransformer

    keywords, options = TRANSFORMER[name]
    model = LinearAttentionTransformer(**_settings({**SMALL, **keywords}))
    return model, (_tensor(BATCH, SEQ, DIM, seed=1),), _calls(options)


def _image(name: str) -> Built:
    from linear_attention_transformer import ImageLinearAttention

    keywords, context = IMAGE[name]
    attention = ImageLinearAttention(chan=8, key_dim=8, value_dim=8, heads=2, **keywords)
    call = {"context": _tensor(2, 8, 6, seed=3)} if context else {}
    return attention, (_tensor(2, 8, 8, 8, seed=2),), call


def _wrapper(name: str) -> Built:
    from linear_attention_transformer import AutoregressiveWrapper, LinearAttentionTransformerLM
    from linear_attention_transformer.autoregressive_wrapper import top_p

    from gt_calls import Method

    local = name.endswith(".local_heads") or name.endswith(".autopad")
    wrapper = AutoregressiveWrapper(LinearAttentionTransformerLM(**LM_SMALL, causal=True, **(LOCAL if local else {})))
    static = WRAPPER[name]
    if static is None:
        if name.endswith(".autopad"):  # 12 tokens, padded to the window's multiple of 16 and cut back
            return wrapper, (_tokens(BATCH, 12),), {}
        # the training loss on 17 tokens (16 in, 16 shifted targets)
        call: dict[str, Any] = {"return_loss": True}
        if name.endswith(".mask"):
            call["input_mask"] = _mask(SEQ + 1)
        return wrapper, (_tokens(BATCH, SEQ + 1),), call
    static = dict(static)
    if static.get("filter_logits_fn") == "top_p":
        static["filter_logits_fn"] = top_p
    prompt = _tokens(4) if name.endswith(".1d") else _tokens(BATCH, 4)
    return Method(wrapper, "generate", seq_len=4, **static), (prompt,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LM:
        return _lm(name)
    if name in TRANSFORMER:
        return _transformer(name)
    if name in IMAGE:
        return _image(name)
    return _wrapper(name)
