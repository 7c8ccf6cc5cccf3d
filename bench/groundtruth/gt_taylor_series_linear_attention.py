"""Ground-truth bench, taylor_series_linear_attention: linear attention through the 2nd-order Taylor series of exp.

taylor-series-linear-attention 0.2.0 (lucidrains, after Based, Arora 2023) replaces ``exp(q . k)`` by its
second-order expansion ``1 + q . k + (q . k)^2 / 2``, a feature map of size ``1 + d + d^2``
(``second_taylor_expansion``, optionally without the symmetric duplicates of the square term), so attention
is linear in the sequence length. It exports:

- ``TaylorSeriesLinearAttn``: bidirectional (a padding mask, cross attention on a context, one key / value
  head, rotary embeddings, gated value heads, an RMS pre-norm, RWKV's token shift, heads left uncombined,
  dropout) or causal, through ``fast_transformers``' ``CausalDotProduct`` with a cache of running sums for
  decoding one token at a time (returned by ``return_cache``, taken by ``cache``);
- ``ChannelFirstTaylorSeriesLinearAttn``: the same over the pixels of an image or the voxels of a video;
- ``TaylorSeriesPolyAttention`` and ``taylor_series_poly_attention``: order-2 poly attention as two kernel
  passes (query and key masks, a pair of key masks, rotary embeddings of its own or given frequencies,
  an attention gate, root values as a gate or not, the first pass's mass or not);
- ``ViT``: a vision transformer of linear attention, sinusoidal 2-d positions and depthwise-convolutional
  feedforwards (``vit.py``).

pytorch-fast-transformers is not installed (a CUDA / C++ extension that builds against the installed torch);
without it the causal layer prints a message and calls ``exit()`` in its constructor. Where a model is causal
the builder first registers a stand-in ``fast_transformers.causal_product`` module, bench code in plain torch
(``CausalDotProduct.apply(q, k, v)``, the causally masked product ``tril(q k^T) v``), so the library's own
causal and cached paths run as they do for its users.

The tables cover, at width 16, 2 heads of 4 (a feature map of 21), a batch of 2 and sequences of 8:

- ``LINEAR``: ``TaylorSeriesLinearAttn`` forward, bidirectional and causal, with every option above, a causal
  prefill returning its cache and single-token steps from a cache (with rotary offsets, token shift, one
  key / value head);
- ``DECODE``: decoding loops through ``gt_calls.Run``: a prefill and four cached steps;
- ``CHANNEL_FIRST``: images and videos, options passed through;
- ``POLY``: ``TaylorSeriesPolyAttention`` forward with its options and masks;
- ``FUNCTIONS``: ``second_taylor_expansion``, ``taylor_series_poly_attention``, ``shift``, ``RMSNorm``,
  ``posemb_sincos_2d`` and ``resolve_context_mask`` through ``gt_calls.Call``;
- ``VIT``: ``ViT`` (depth, dropout, one channel, a batch of one) and its ``Transformer`` and ``FeedForward``;
- ``TRAIN``: training steps with ``backward``: a regression through the bidirectional and the causal layer, a
  tiny causal language model of the causal layer (cross-entropy, an AdamW step), poly attention with masks,
  the image layer, and ``ViT`` classification with an AdamW step.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
SEQ = 8
DIM = 16
HEADS = 2
DIM_HEAD = 4
TOKENS = 32
CLASSES = 5
ATTN: dict[str, Any] = {"dim_head": DIM_HEAD, "heads": HEADS}
CAUSAL: dict[str, Any] = {**ATTN, "causal": True}
# ``TaylorSeriesLinearAttn`` name -> (keywords over ``dim``, inputs: "mask", "context", "context_mask" (a mask
# over the context), "return_cache", "cache" (a cache from a causal prefill of the same layer: the input is then
# one token)).
LINEAR: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "TaylorSeriesLinearAttn": (ATTN, ()),
    "TaylorSeriesLinearAttn.mask": (ATTN, ("mask",)),
    "TaylorSeriesLinearAttn.context": (ATTN, ("context",)),
    "TaylorSeriesLinearAttn.context.mask": (ATTN, ("context", "context_mask")),
    "TaylorSeriesLinearAttn.one_headed_kv": ({**ATTN, "one_headed_kv": True}, ()),
    "TaylorSeriesLinearAttn.one_headed_kv.mask": ({**ATTN, "one_headed_kv": True}, ("mask",)),
    "TaylorSeriesLinearAttn.one_headed_kv.context": ({**ATTN, "one_headed_kv": True}, ("context",)),
    "TaylorSeriesLinearAttn.rotary_emb": ({**ATTN, "rotary_emb": True}, ()),
    "TaylorSeriesLinearAttn.rotary_emb.mask": ({**ATTN, "rotary_emb": True}, ("mask",)),
    "TaylorSeriesLinearAttn.gate_value_heads": ({**ATTN, "gate_value_heads": True}, ()),
    "TaylorSeriesLinearAttn.prenorm": ({**ATTN, "prenorm": True}, ()),
    "TaylorSeriesLinearAttn.shift_tokens": ({**ATTN, "shift_tokens": True}, ()),
    "TaylorSeriesLinearAttn.no_combine_heads": ({**ATTN, "combine_heads": False}, ()),
    "TaylorSeriesLinearAttn.remove_even_power_dups": ({**ATTN, "remove_even_power_dups": True}, ()),
    "TaylorSeriesLinearAttn.remove_even_power_dups.mask": ({**ATTN, "remove_even_power_dups": True}, ("mask",)),
    "TaylorSeriesLinearAttn.dropout": ({**ATTN, "dropout": 0.1}, ()),
    "TaylorSeriesLinearAttn.all": ({**ATTN, "rotary_emb": True, "gate_value_heads": True, "prenorm": True,
                                    "shift_tokens": True, "dropout": 0.1}, ("mask",)),
    "TaylorSeriesLinearAttn.heads8": ({"dim_head": 2, "heads": 8}, ()),
    "causal": (CAUSAL, ()),
    "causal.one_headed_kv": ({**CAUSAL, "one_headed_kv": True}, ()),
    "causal.rotary_emb": ({**CAUSAL, "rotary_emb": True}, ()),
    "causal.shift_tokens": ({**CAUSAL, "shift_tokens": True}, ()),
    "causal.gate_value_heads.prenorm": ({**CAUSAL, "gate_value_heads": True, "prenorm": True}, ()),
    "causal.remove_even_power_dups": ({**CAUSAL, "remove_even_power_dups": True}, ()),
    "causal.no_combine_heads": ({**CAUSAL, "combine_heads": False}, ()),
    "causal.return_cache": (CAUSAL, ("return_cache",)),
    "causal.return_cache.one_headed_kv": ({**CAUSAL, "one_headed_kv": True}, ("return_cache",)),
    "causal.cache": (CAUSAL, ("cache",)),
    "causal.cache.return_cache": (CAUSAL, ("cache", "return_cache")),
    "causal.cache.rotary_emb": ({**CAUSAL, "rotary_emb": True}, ("cache",)),
    "causal.cache.shift_tokens": ({**CAUSAL, "shift_tokens": True}, ("cache", "return_cache")),
    "causal.cache.one_headed_kv": ({**CAUSAL, "one_headed_kv": True}, ("cache",)),
    "causal.cache.remove_even_power_dups": ({**CAUSAL, "remove_even_power_dups": True}, ("cache",)),
}
# Decoding loop name -> keywords of the causal layer.
DECODE: dict[str, dict[str, Any]] = {
    "decode": CAUSAL,
    "decode.rotary_emb.shift_tokens": {**CAUSAL, "rotary_emb": True, "shift_tokens": True},
    "decode.one_headed_kv.gate_value_heads": {**CAUSAL, "one_headed_kv": True, "gate_value_heads": True},
}
# ``ChannelFirstTaylorSeriesLinearAttn`` name -> (keywords over ``dim``, input shape).
CHANNEL_FIRST: dict[str, tuple[dict[str, Any], tuple[int, ...]]] = {
    "ChannelFirstTaylorSeriesLinearAttn.image": (ATTN, (BATCH, DIM, 4, 4)),
    "ChannelFirstTaylorSeriesLinearAttn.video": (ATTN, (BATCH, DIM, 2, 3, 3)),
    "ChannelFirstTaylorSeriesLinearAttn.image.rotary.gate": ({**ATTN, "rotary_emb": True, "gate_value_heads": True},
                                                             (BATCH, DIM, 4, 6)),
    "ChannelFirstTaylorSeriesLinearAttn.image.prenorm.one_headed_kv": ({**ATTN, "prenorm": True,
                                                                        "one_headed_kv": True}, (BATCH, DIM, 4, 4)),
    "ChannelFirstTaylorSeriesLinearAttn.sequence": (ATTN, (BATCH, DIM, SEQ)),
}
POLY_BASE: dict[str, Any] = {"heads": HEADS, "dim_head": DIM_HEAD}
# ``TaylorSeriesPolyAttention`` name -> (keywords over ``dim``, inputs: "mask", "context_mask",
# "context_masks" (a pair), "rotary_pos_emb").
POLY: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "TaylorSeriesPolyAttention": (POLY_BASE, ()),
    "TaylorSeriesPolyAttention.mask": (POLY_BASE, ("mask",)),
    "TaylorSeriesPolyAttention.context_mask": (POLY_BASE, ("context_mask",)),
    "TaylorSeriesPolyAttention.context_masks": (POLY_BASE, ("context_masks",)),
    "TaylorSeriesPolyAttention.mask.context_mask": (POLY_BASE, ("mask", "context_mask")),
    "TaylorSeriesPolyAttention.rotary_pos_emb": (POLY_BASE, ("rotary_pos_emb",)),
    "TaylorSeriesPolyAttention.no_rotary": ({**POLY_BASE, "use_rotary_embed": False}, ()),
    "TaylorSeriesPolyAttention.attn_gate": ({**POLY_BASE, "attn_gate": True}, ()),
    "TaylorSeriesPolyAttention.multiply_root_value": ({**POLY_BASE, "multiply_root_value": True}, ()),
    "TaylorSeriesPolyAttention.multiply_root_value.no_gate": ({**POLY_BASE, "multiply_root_value": True,
                                                               "use_root_value_as_attn_gate": False}, ("mask",)),
    "TaylorSeriesPolyAttention.no_pass1_mass": ({**POLY_BASE, "include_pass1_mass": False}, ()),
    "TaylorSeriesPolyAttention.remove_even_power_dups": ({**POLY_BASE, "remove_even_power_dups": True}, ()),
    "TaylorSeriesPolyAttention.prenorm": ({**POLY_BASE, "prenorm": True}, ()),
    "TaylorSeriesPolyAttention.all": ({**POLY_BASE, "prenorm": True, "attn_gate": True, "multiply_root_value": True,
                                       "include_pass1_mass": False, "remove_even_power_dups": True}, ("mask",)),
}
# ``gt_calls.Call`` name -> (module under the package, function, inputs, fixed keywords).
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    "second_taylor_expansion": ("attention", "second_taylor_expansion", ("heads",), {}),
    "second_taylor_expansion.remove_even_power_dups": ("attention", "second_taylor_expansion", ("heads",),
                                                       {"remove_even_power_dups": True}),
    "second_taylor_expansion.2d": ("attention", "second_taylor_expansion", ("rows",), {}),
    "shift": ("attention", "shift", ("tokens",), {}),
    "taylor_series_poly_attention": ("poly_attention", "taylor_series_poly_attention", ("q1", "q2", "q3", "v3"), {}),
    "taylor_series_poly_attention.mask": ("poly_attention", "taylor_series_poly_attention", ("q1", "q2", "q3", "v3"),
                                          {"mask": "mask"}),
    "taylor_series_poly_attention.context_masks": ("poly_attention", "taylor_series_poly_attention",
                                                   ("q1", "q2", "q3", "v3"), {"context_mask": "context_masks"}),
    "taylor_series_poly_attention.no_pass1_mass": ("poly_attention", "taylor_series_poly_attention",
                                                   ("q1", "q2", "q3", "v3"), {"include_pass1_mass": False}),
    "taylor_series_poly_attention.remove_even_power_dups": ("poly_attention", "taylor_series_poly_attention",
                                                            ("q1", "q2", "q3", "v3"),
                                                            {"remove_even_power_dups": True, "mask": "mask"}),
    "resolve_context_mask": ("poly_attention", "resolve_context_mask", ("mask", "mask2"), {}),
    "posemb_sincos_2d": ("vit", "posemb_sincos_2d", (), {"h": 4, "w": 4, "dim": DIM}),
    "RMSNorm": ("attention", "RMSNorm", ("tokens",), {}),
}
VIT_BASE: dict[str, Any] = {"image_size": 8, "patch_size": 2, "num_classes": CLASSES, "dim": DIM, "depth": 1,
                            "ff_mult": 2, "heads": HEADS, "dim_head": DIM_HEAD}
# ``ViT`` name -> (keywords over ``VIT_BASE``, batch).
VIT: dict[str, tuple[dict[str, Any], int]] = {
    "ViT": ({}, BATCH),
    "ViT.depth2": ({"depth": 2}, BATCH),
    "ViT.dropout": ({"dropout": 0.1, "emb_dropout": 0.1}, BATCH),
    "ViT.channels1.patch4": ({"channels": 1, "patch_size": 4}, BATCH),
    "ViT.batch1": ({}, 1),
}
PARTS = ("vit.Transformer", "vit.FeedForward")
TRAIN = ("train.TaylorSeriesLinearAttn", "train.TaylorSeriesLinearAttn.mask.one_headed_kv", "train.causal",
         "train.causal.rotary_emb.shift_tokens", "train.causal_lm.adamw", "train.TaylorSeriesPolyAttention.mask",
         "train.ChannelFirstTaylorSeriesLinearAttn", "train.ViT.adamw")


def names() -> list[str]:
    return [*LINEAR, *DECODE, *CHANNEL_FIRST, *POLY, *FUNCTIONS, *VIT, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(length: int = SEQ, cut: int = 3) -> Any:
    """A padding mask (True = kept), the second row shorter by ``cut``."""
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, -cut:] = False
    return mask


def _causal_dot_product(q: Any, k: Any, v: Any) -> Any:
    """``sum_{j <= i} (q_i . k_j) v_j`` for (batch, heads, n, d) queries and keys, (batch, heads, n, e) values."""
    import torch

    return torch.einsum("b h i d, b h j d -> b h i j", q, k).tril().matmul(v)


def _register_causal_product() -> None:
    """Register a plain-torch ``fast_transformers.causal_product`` (not installed: see the module's docstring)
    so that the library's ``find_spec`` finds it and its causal constructor imports ``CausalDotProduct``."""
    import importlib.machinery
    import sys
    import types

    if "fast_transformers" in sys.modules:
        return
    package = types.ModuleType("fast_transformers")
    package.__spec__ = importlib.machinery.ModuleSpec("fast_transformers", None, is_package=True)
    package.__path__ = []
    module = types.ModuleType("fast_transformers.causal_product")
    module.__spec__ = importlib.machinery.ModuleSpec("fast_transformers.causal_product", None)
    module.CausalDotProduct = type("CausalDotProduct", (), {"apply": staticmethod(_causal_dot_product)})
    package.causal_product = module
    sys.modules["fast_transformers"] = package
    sys.modules["fast_transformers.causal_product"] = module


def _linear_attn(keywords: dict[str, Any]) -> Any:
    from taylor_series_linear_attention import TaylorSeriesLinearAttn

    if keywords.get("causal"):
        _register_causal_product()
    return TaylorSeriesLinearAttn(DIM, **keywords)


def _linear(name: str) -> Built:
    import torch

    keywords, inputs = LINEAR[name]
    attn = _linear_attn(keywords)
    x = _randn(BATCH, SEQ, DIM)
    call: dict[str, Any] = {}
    if "mask" in inputs:
        call["mask"] = _mask()
    if "context" in inputs:
        call["context"] = _randn(BATCH, 6, DIM, seed=2)
    if "context_mask" in inputs:
        call["mask"] = _mask(6, 2)
    if "return_cache" in inputs:
        call["return_cache"] = True
    if "cache" in inputs:
        with torch.no_grad():
            _, call["cache"] = attn(x, return_cache=True)
        x = _randn(BATCH, 1, DIM, seed=3)
    return attn, (x,), call


def _decode_loop(owner: Any, prefix: Any, steps: Any) -> Any:
    """A causal prefill that returns its cache, then one cached step per token of ``steps``."""
    import torch

    out, cache = owner(prefix, return_cache=True)
    outs = [out]
    for i in range(steps.shape[1]):
        out, cache = owner(steps[:, i:i + 1], cache=cache, return_cache=True)
        outs.append(out)
    return torch.cat(outs, dim=1)


def _decode(name: str) -> Built:
    from gt_calls import Run
    from taylor_series_linear_attention import TaylorSeriesLinearAttn

    attn = _linear_attn(DECODE[name])
    prefix, steps = _randn(BATCH, 5, DIM), _randn(BATCH, 4, DIM, seed=2)
    return Run(attn, _decode_loop, [TaylorSeriesLinearAttn]), (prefix, steps), {}


def _poly(name: str) -> Built:
    from rotary_embedding_torch import RotaryEmbedding
    from taylor_series_linear_attention import TaylorSeriesPolyAttention

    keywords, inputs = POLY[name]
    call: dict[str, Any] = {}
    if "mask" in inputs:
        call["mask"] = _mask()
    if "context_mask" in inputs:
        call["context_mask"] = _mask(cut=5)
    if "context_masks" in inputs:
        call["context_mask"] = (_mask(cut=2), _mask(cut=4))
    if "rotary_pos_emb" in inputs:
        import torch

        call["rotary_pos_emb"] = RotaryEmbedding(DIM_HEAD)(torch.arange(SEQ))
    return TaylorSeriesPolyAttention(DIM, **keywords), (_randn(BATCH, SEQ, DIM),), call


def _function(name: str) -> Built:
    import importlib

    from gt_calls import Call

    module, function, inputs, static = FUNCTIONS[name]
    target = getattr(importlib.import_module(f"taylor_series_linear_attention.{module}"), function)
    heads = {key: _randn(BATCH, HEADS, SEQ, DIM_HEAD, seed=seed) for seed, key in enumerate(("q1", "q2", "q3", "v3"))}
    tensors = {**heads, "heads": heads["q1"], "rows": _randn(6, DIM_HEAD), "tokens": _randn(BATCH, SEQ, DIM),
               "mask": _mask(), "mask2": _mask(cut=5), "context_masks": (_mask(cut=2), _mask(cut=4))}
    static = {k: tensors[v] if isinstance(v, str) else v for k, v in static.items()}
    if function == "RMSNorm":
        return target(DIM), (tensors["tokens"],), {}
    return Call(target, **static), tuple(tensors[i] for i in inputs), {}


def _vit(name: str) -> Built:
    from taylor_series_linear_attention import ViT

    keywords, batch = VIT[name]
    keywords = {**VIT_BASE, **keywords}
    return ViT(**keywords), (_randn(batch, keywords.get("channels", 3), 8, 8),), {}


def _part(name: str) -> Built:
    from taylor_series_linear_attention import vit

    tokens = _randn(BATCH, 16, DIM)  # a 4 x 4 grid of patches
    if name == "vit.Transformer":
        return vit.Transformer(DIM, 2, HEADS, DIM_HEAD, 2, dropout=0.1), (tokens,), {}
    return vit.FeedForward(DIM, 2, dropout=0.1), (tokens,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    import taylor_series_linear_attention as tsla
    from gt_calls import Run

    def backward(loss: Any) -> Any:
        if torch.is_grad_enabled():
            loss.backward()
        return loss.detach()

    x = _randn(BATCH, SEQ, DIM)
    target = _randn(BATCH, SEQ, DIM, seed=4)
    if name in ("train.TaylorSeriesLinearAttn", "train.causal", "train.causal.rotary_emb.shift_tokens"):
        keywords = {**CAUSAL, "rotary_emb": True, "shift_tokens": True} if "rotary" in name else \
            CAUSAL if "causal" in name else ATTN
        return Run(_linear_attn(keywords), lambda owner, x_, y: backward(F.mse_loss(owner(x_), y)),
                   [tsla.TaylorSeriesLinearAttn]), (x, target), {}
    if name == "train.TaylorSeriesLinearAttn.mask.one_headed_kv":
        attn = _linear_attn({**ATTN, "one_headed_kv": True, "gate_value_heads": True})
        return Run(attn, lambda owner, x_, y, m: backward(((owner(x_, mask=m) - y).square() * m[..., None]).mean()),
                   [tsla.TaylorSeriesLinearAttn]), (x, target, _mask()), {}
    if name == "train.TaylorSeriesPolyAttention.mask":
        attn = tsla.TaylorSeriesPolyAttention(DIM, **POLY_BASE, attn_gate=True)
        return Run(attn, lambda owner, x_, y, m: backward(F.mse_loss(owner(x_, mask=m), y)),
                   [tsla.TaylorSeriesPolyAttention]), (x, target, _mask()), {}
    if name == "train.ChannelFirstTaylorSeriesLinearAttn":
        attn = tsla.ChannelFirstTaylorSeriesLinearAttn(DIM, **ATTN)
        image = _randn(BATCH, DIM, 4, 4)
        return Run(attn, lambda owner, x_: backward(owner(x_).square().mean()),
                   [tsla.ChannelFirstTaylorSeriesLinearAttn]), (image,), {}
    labels_gen = torch.Generator().manual_seed(5)
    if name == "train.causal_lm.adamw":
        _register_causal_product()
        lm = nn.ModuleDict({"embed": nn.Embedding(TOKENS, DIM),
                            "attn": tsla.TaylorSeriesLinearAttn(DIM, **CAUSAL, prenorm=True, rotary_emb=True),
                            "head": nn.Linear(DIM, TOKENS)})
        optimizer = torch.optim.AdamW(lm.parameters(), lr=1e-3)

        def lm_step(owner: Any, ids: Any) -> Any:
            """Next-token cross-entropy over a residual causal layer, its gradients and an AdamW step."""
            h = owner["embed"](ids[:, :-1])
            logits = owner["head"](owner["attn"](h) + h)
            loss = F.cross_entropy(logits.reshape(-1, TOKENS), ids[:, 1:].reshape(-1))
            if torch.is_grad_enabled():
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
            return loss.detach()

        ids = torch.randint(0, TOKENS, (BATCH, SEQ + 1), generator=labels_gen)
        return Run(lm, lm_step, [tsla.TaylorSeriesLinearAttn]), (ids,), {}
    model = tsla.ViT(**{**VIT_BASE, "dropout": 0.1})
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def vit_step(owner: Any, images: Any, labels: Any) -> Any:
        """Classification cross-entropy, its gradients and an AdamW step."""
        loss = F.cross_entropy(owner(images), labels)
        if torch.is_grad_enabled():
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        return loss.detach()

    labels = torch.randint(0, CLASSES, (BATCH,), generator=labels_gen)
    return Run(model, vit_step, [tsla.ViT]), (_randn(BATCH, 3, 8, 8), labels), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LINEAR:
        return _linear(name)
    if name in DECODE:
        return _decode(name)
    if name in CHANNEL_FIRST:
        from taylor_series_linear_attention import ChannelFirstTaylorSeriesLinearAttn

        keywords, shape = CHANNEL_FIRST[name]
        return ChannelFirstTaylorSeriesLinearAttn(DIM, **keywords), (_randn(*shape),), {}
    if name in POLY:
        return _poly(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in VIT:
        return _vit(name)
    if name in PARTS:
        return _part(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
