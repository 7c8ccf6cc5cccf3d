"""Ground-truth bench, local-attention: ``LocalAttention``, ``LocalMHA`` and ``LocalTransformer`` in their options.

local-attention 1.11.2 has three layers of API, all ``nn.Module`` s that users compile as they are:

- ``ATTENTION``: ``LocalAttention`` on queries, keys and values of 2 x 2 heads x 32 positions x 16 features in
  windows of 8, in the options that change its code: causal or not, ``look_backward`` / ``look_forward``,
  ``exact_windowsize`` (causal and not), shared query-key attention (the same tensor as queries and keys),
  rotary relative positions (``dim``, and the deprecated ``rel_pos_emb_config`` that performer-pytorch still
  passes), xpos (also with a larger ``window_size`` at call time, which only xpos allows), ``autopad`` on 30
  positions, a key padding mask (with and without autopad), an additive ``attn_bias``, dropout, a fixed
  ``scale`` and 3-D inputs without a head dimension;
- ``MHA``: ``LocalMHA`` on 2 x 32 x 32 inputs (prenorm, query-key RMS norm, value gates per head, xpos, windows
  that are not exact, a mask, ``return_cache``) and its one-token decoding step against a key/value cache;
  ``DynamicPositionBias`` on its own;
- ``TRANSFORMER``: ``LocalTransformer`` language models (64 tokens, depth 1, or 2 around an inserted global
  layer) causal and not, with hyper-connection residual streams (the default, 4) or one stream, xpos, dynamic
  position bias, a mask, ``return_loss``, ``return_cache``, a global attention layer inserted after the second
  layer (bench code: plain ``scaled_dot_product_attention``), extra ``LocalMHA`` options, inputs that need
  padding, and no embedding (``num_tokens=None``, on features); ``GENERATE`` runs ``LocalTransformer.generate``
  (3 new tokens from a 4-token prompt) with and without its key/value cache, greedy, and with dynamic position
  bias.

Random weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, HEADS, SEQ, DIM_HEAD, WINDOW, DIM, TOKENS = 2, 2, 32, 16, 8, 32, 64
ONE = {"num_residual_streams": 1}  # one residual stream: no hyper-connections (the default has 4)

# Name -> (``LocalAttention`` keywords, call options). Options: "len:N" another sequence length, "shared_qk"
# queries passed as keys, "mask" a key padding mask, "attn_bias" an additive bias, "3d" no head dimension,
# "window:N" a ``window_size`` at call time.
ATTENTION: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "causal": ({"window_size": WINDOW, "causal": True}, ()),
    "noncausal": ({"window_size": WINDOW}, ()),
    "causal.look_backward_2": ({"window_size": WINDOW, "causal": True, "look_backward": 2}, ()),
    "noncausal.look_forward_0": ({"window_size": WINDOW, "look_backward": 1, "look_forward": 0}, ()),
    "causal.exact_windowsize": ({"window_size": WINDOW, "causal": True, "exact_windowsize": True}, ()),
    "noncausal.exact_windowsize": ({"window_size": WINDOW, "exact_windowsize": True}, ()),
    "shared_qk": ({"window_size": WINDOW, "causal": True, "shared_qk": True}, ("shared_qk",)),
    "rotary": ({"window_size": WINDOW, "causal": True, "dim": DIM_HEAD}, ()),
    "rotary.noncausal": ({"window_size": WINDOW, "dim": DIM_HEAD}, ()),
    "rel_pos_emb_config": ({"window_size": WINDOW, "causal": True, "rel_pos_emb_config": (DIM_HEAD, HEADS)}, ()),
    "xpos": ({"window_size": WINDOW, "causal": True, "dim": DIM_HEAD, "use_xpos": True}, ()),
    "xpos.window_size": ({"window_size": WINDOW, "causal": True, "dim": DIM_HEAD, "use_xpos": True},
                         ("window:16",)),
    "autopad": ({"window_size": WINDOW, "causal": True, "autopad": True}, ("len:30",)),
    "autopad.mask": ({"window_size": WINDOW, "autopad": True}, ("len:30", "mask")),
    "mask": ({"window_size": WINDOW}, ("mask",)),
    "mask.causal": ({"window_size": WINDOW, "causal": True, "dim": DIM_HEAD}, ("mask",)),
    "attn_bias": ({"window_size": WINDOW, "causal": True}, ("attn_bias",)),
    "dropout": ({"window_size": WINDOW, "causal": True, "dropout": 0.1}, ()),
    "scale": ({"window_size": WINDOW, "scale": 0.5}, ()),
    "3d": ({"window_size": WINDOW, "causal": True, "dim": DIM_HEAD}, ("3d",)),
}
# Name -> (``LocalMHA`` keywords, call options: "mask", "return_cache", "cache" a one-token step on a cache).
MHA: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "LocalMHA": ({"causal": True}, ()),
    "LocalMHA.noncausal": ({}, ()),
    "LocalMHA.prenorm": ({"causal": True, "prenorm": True}, ()),
    "LocalMHA.qk_rmsnorm": ({"causal": True, "qk_rmsnorm": True}, ()),
    "LocalMHA.gate_values_per_head": ({"causal": True, "gate_values_per_head": True}, ()),
    "LocalMHA.xpos": ({"causal": True, "use_xpos": True}, ()),
    "LocalMHA.not_exact_windowsize": ({"causal": True, "exact_windowsize": False}, ()),
    "LocalMHA.no_rotary": ({"causal": True, "use_rotary_pos_emb": False}, ()),
    "LocalMHA.mask": ({"prenorm": True}, ("mask",)),
    "LocalMHA.return_cache": ({"causal": True}, ("return_cache",)),
    "LocalMHA.cache_step": ({"causal": True}, ("cache", "return_cache")),
    "LocalMHA.cache_step.not_exact_windowsize": ({"causal": True, "exact_windowsize": False}, ("cache",)),
    "LocalMHA.cache_step.xpos_gated": ({"causal": True, "use_xpos": True, "gate_values_per_head": True},
                                       ("cache",)),
}
# Name -> (``LocalTransformer`` keywords, call options: "mask", "return_loss", "return_cache", "len:N",
# "features" (no embedding)). "global" in the keywords stands for the bench's global attention layer.
TRANSFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "LocalTransformer": ({}, ()),
    "LocalTransformer.single_stream": ({**ONE}, ()),
    "LocalTransformer.noncausal.mask": ({"causal": False}, ("mask",)),
    "LocalTransformer.xpos": ({**ONE, "use_xpos": True}, ()),
    "LocalTransformer.dynamic_pos_bias": ({**ONE, "use_dynamic_pos_bias": True}, ()),
    "LocalTransformer.return_loss": ({**ONE}, ("return_loss",)),
    "LocalTransformer.return_cache": ({**ONE}, ("return_cache",)),
    "LocalTransformer.global_attn_layer": ({**ONE, "depth": 2, "global_attn_layer": "global",
                                           "layers_insert_global_attn": (2,)}, ()),
    "LocalTransformer.qk_rmsnorm_gated": ({**ONE, "qk_rmsnorm": True, "gate_values_per_head": True}, ()),
    "LocalTransformer.look_backward_2": ({**ONE, "look_backward": 2, "exact_windowsize": False}, ()),
    "LocalTransformer.autopad": ({**ONE}, ("len:30",)),
    "LocalTransformer.features": ({**ONE, "num_tokens": None}, ("features",)),
}
# ``generate`` variant -> (``LocalTransformer`` keywords, ``generate`` keywords).
GENERATE: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "generate": ({}, {}),
    "generate.no_kv_cache": ({**ONE}, {"use_kv_cache": False}),
    "generate.greedy": ({**ONE}, {"temperature": 0.0}),
    "generate.dynamic_pos_bias": ({**ONE, "use_dynamic_pos_bias": True}, {}),
}


def names() -> list[str]:
    return ([f"LocalAttention.{n}" for n in ATTENTION] + list(MHA) + ["DynamicPositionBias"] + list(TRANSFORMER)
            + [f"LocalTransformer.{n}" for n in GENERATE])


def _tensor(*shape: int, seed: int = 0) -> Any:
    return gt_inputs.randn(*shape, seed=seed)


def _mask(length: int) -> Any:
    """A key padding mask: the second sequence ends 5 positions early."""
    return gt_inputs.padding_mask(BATCH, length, hidden=5)


def _attention(name: str) -> Built:
    from local_attention import LocalAttention

    keywords, options = ATTENTION[name]
    length = next((int(o[4:]) for o in options if o.startswith("len:")), SEQ)
    shape = (BATCH * HEADS, length, DIM_HEAD) if "3d" in options else (BATCH, HEADS, length, DIM_HEAD)
    q, k, v = (_tensor(*shape, seed=s) for s in (1, 2, 3))
    call: dict[str, Any] = {}
    if "shared_qk" in options:
        k = q
    if "mask" in options:
        call["mask"] = _mask(length)
    if "attn_bias" in options:  # one bias per head over a window and the window it looks back to
        look = keywords.get("look_backward", 1) + keywords.get("look_forward", 0 if keywords.get("causal") else 1)
        call["attn_bias"] = _tensor(HEADS, WINDOW, WINDOW * (look + 1), seed=4)
    for option in options:
        if option.startswith("window:"):
            call["window_size"] = int(option[7:])
    return LocalAttention(**keywords), (q, k, v), call


def _mha(name: str) -> Built:
    from local_attention import LocalMHA

    keywords, options = MHA[name]
    mha = LocalMHA(dim=DIM, window_size=WINDOW, dim_head=DIM_HEAD, heads=HEADS, **keywords)
    call: dict[str, Any] = {"return_cache": "return_cache" in options}
    if "mask" in options:
        call["mask"] = _mask(SEQ)
    if "cache" in options:  # the keys and values of 20 earlier positions, then one new token
        call["cache"] = (_tensor(BATCH, HEADS, 20, DIM_HEAD, seed=4), _tensor(BATCH, HEADS, 20, DIM_HEAD, seed=5))
        return mha, (_tensor(BATCH, 1, DIM, seed=1),), call
    return mha, (_tensor(BATCH, SEQ, DIM, seed=1),), call


def _global_layer() -> Any:
    """A global (full) self-attention layer, the kind ``global_attn_layer`` inserts between local layers."""
    import torch
    import torch.nn.functional as F
    from einops import rearrange
    from torch import nn

    class GlobalAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(DIM)
            self.to_qkv = nn.Linear(DIM, 3 * DIM, bias=False)
            self.to_out = nn.Linear(DIM, DIM, bias=False)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q, k, v = (rearrange(t, "b n (h d) -> b h n d", h=HEADS) for t in self.to_qkv(self.norm(x)).chunk(3, -1))
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.to_out(rearrange(out, "b h n d -> b n (h d)"))

    return GlobalAttention()


def _transformer(keywords: dict[str, Any]) -> Any:
    from local_attention import LocalTransformer

    keywords = dict(keywords)
    if keywords.get("global_attn_layer") == "global":
        keywords["global_attn_layer"] = _global_layer()
    keywords.setdefault("num_tokens", TOKENS)
    keywords.setdefault("depth", 1)
    return LocalTransformer(max_seq_len=SEQ, dim=DIM, heads=HEADS, dim_head=DIM_HEAD,
                            local_attn_window_size=WINDOW, **keywords)


def _tokens(length: int) -> Any:
    import torch

    return torch.randint(0, TOKENS, (BATCH, length), generator=torch.Generator().manual_seed(0))


def build(name: str) -> Built:
    import torch

    from gt_calls import Method

    torch.manual_seed(0)
    if name.startswith("LocalAttention."):
        return _attention(name.split(".", 1)[1])
    if name in MHA:
        return _mha(name)
    if name == "DynamicPositionBias":  # the bias of a window of 8 queries over 16 keys, as the transformer asks
        from local_attention import DynamicPositionBias

        return DynamicPositionBias(dim=DIM // 2, heads=HEADS), (WINDOW, 2 * WINDOW), {}
    variant = name.split(".", 1)[1] if "." in name else ""
    if variant.startswith("generate"):
        keywords, static = GENERATE[variant]
        return Method(_transformer(keywords), "generate", seq_len=3, **static), (_tokens(4),), {}
    keywords, options = TRANSFORMER[name]
    model = _transformer(keywords)
    length = next((int(o[4:]) for o in options if o.startswith("len:")), SEQ)
    x = _tensor(BATCH, length, DIM, seed=1) if "features" in options else _tokens(length)
    call: dict[str, Any] = {}
    if "mask" in options:
        call["mask"] = _mask(length)
    for flag in ("return_loss", "return_cache"):
        if flag in options:
            call[flag] = True
    return model, (x,), call
