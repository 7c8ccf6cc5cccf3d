"""Ground-truth bench, rotary-embedding-torch: ``RotaryEmbedding`` in its modes, its functions, and attention using them.

rotary-embedding-torch 0.9.1 is one module, ``RotaryEmbedding``, that users build once and call from their
attention layers, plus the functions it is made of. Its README shows each use; every one is compiled here:

- ``ROTATE``: ``rotate_queries_or_keys`` applied to queries and keys (``Rotate``, bench code calling it twice,
  as the README does) for each mode of the constructor that takes another code path: ``lang`` frequencies
  (partial and full rotation), ``pixel`` and ``constant`` ones, custom and learned frequencies, no cache and a
  cache shorter than the sequence, ``interpolate_factor``, ``theta_rescale_factor``, sequence before heads
  (``seq_before_head_dim``), an explicit ``seq_dim`` on 3-D inputs, and a position ``offset``;
- ``PAIRED``: ``rotate_queries_and_keys`` (length-extrapolatable ``use_xpos``, with and without cache and with
  the sequence before the heads) and ``rotate_queries_with_cached_keys`` (one query against a key cache, plain
  and xpos), each through ``gt_calls.Method``;
- ``FREQS``: the module's own ``forward`` on positions (with and without ``seq_len``, so with and without its
  frequency cache) and ``get_axial_freqs`` for images and video (pixel and lang, with offsets as a tuple or a
  tensor), each followed by ``apply_rotary_emb`` on queries as in the README's axial example;
- ``FUNCTIONS``: ``apply_rotary_emb`` on precomputed frequencies (``start_index``, a ``scale``,
  ``freqs_seq_dim`` with the sequence before the heads, 3-D inputs), ``apply_learned_rotations`` (with and without ``freq_ranges``), ``broadcat``,
  and the fused attention of ``flash_attn_with_rotary`` (the README's: rotary frequencies, positions that skip
  two extra tokens, a boolean key mask, grouped key/value heads, explicit cos/sin) and of the older
  ``flash_fused_rotary``; without Triton (this CPU) both run their PyTorch reference, as the README says;
- ``ATTENTION``: a small self-attention layer (bench code: projections, heads, the rotary module,
  ``scaled_dot_product_attention``) that uses the rotary module as the README tells users to, in its modes:
  lang, learned, xpos (causal), sequence-first, a key/value-cache decoding step, axial 2-D, fused flash.

Queries and keys are 2 x 2 heads x 16 positions x 16 features; random weights, nothing downloaded.
``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, HEADS, SEQ, DIM_HEAD, DIM = 2, 2, 16, 16, 32

# Name -> (``RotaryEmbedding`` keywords, ``rotate_queries_or_keys`` keywords, input layout). Layouts: "bhnd"
# (batch, heads, sequence, features), "bnhd" (sequence before heads), "bnd" (no heads). ``custom_freqs`` is
# filled in by ``_rotary``.
ROTATE: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "lang": ({"dim": 8}, {}, "bhnd"),
    "lang.full": ({"dim": DIM_HEAD}, {}, "bhnd"),
    "lang.no_cache": ({"dim": 8, "cache_if_possible": False}, {}, "bhnd"),
    "lang.short_cache": ({"dim": 8, "cache_max_seq_len": 8}, {}, "bhnd"),
    "lang.offset": ({"dim": 8}, {"offset": 4}, "bhnd"),
    "lang.interpolate_factor": ({"dim": 8, "interpolate_factor": 2.0}, {}, "bhnd"),
    "lang.theta_rescale_factor": ({"dim": 8, "theta_rescale_factor": 2.0}, {}, "bhnd"),
    "lang.seq_before_head_dim": ({"dim": 8, "seq_before_head_dim": True}, {}, "bnhd"),
    "lang.seq_dim": ({"dim": 8}, {"seq_dim": -2}, "bnd"),
    "pixel": ({"dim": 8, "freqs_for": "pixel", "max_freq": 10}, {}, "bhnd"),
    "constant": ({"dim": 8, "freqs_for": "constant", "num_freqs": 4}, {}, "bhnd"),
    "custom_freqs": ({"dim": 8, "custom_freqs": "custom"}, {}, "bhnd"),
    "learned_freq": ({"dim": 8, "learned_freq": True}, {}, "bhnd"),
}
# Name -> (``RotaryEmbedding`` keywords, method, input layout of the queries: "one" is a single query
# position against 16 cached keys).
PAIRED: dict[str, tuple[dict[str, Any], str, str]] = {
    "queries_and_keys.xpos": ({"dim": 8, "use_xpos": True}, "rotate_queries_and_keys", "bhnd"),
    "queries_and_keys.xpos_no_cache": ({"dim": 8, "use_xpos": True, "cache_if_possible": False},
                                       "rotate_queries_and_keys", "bhnd"),
    "queries_and_keys.xpos_seq_before_head_dim": ({"dim": 8, "use_xpos": True, "seq_before_head_dim": True},
                                                  "rotate_queries_and_keys", "bnhd"),
    "queries_and_keys.xpos_scale_base": ({"dim": DIM_HEAD, "use_xpos": True, "xpos_scale_base": 64},
                                         "rotate_queries_and_keys", "bhnd"),
    "cached_keys": ({"dim": 8}, "rotate_queries_with_cached_keys", "one"),
    "cached_keys.xpos": ({"dim": 8, "use_xpos": True}, "rotate_queries_with_cached_keys", "one"),
    "cached_keys.chunk": ({"dim": 8}, "rotate_queries_with_cached_keys", "chunk"),
}
# Name -> (``RotaryEmbedding`` keywords, what is computed). "forward" calls the module on positions,
# "forward_seq_len" passes ``seq_len`` too (the cached path); "axial:A,B[,C]" is ``get_axial_freqs(A, B, ...)``
# then ``apply_rotary_emb`` on queries of that shape; "+offsets" and "+tensor_offsets" pass offsets.
FREQS: dict[str, tuple[dict[str, Any], str]] = {
    "forward": ({"dim": 8}, "forward"),
    "forward.seq_len": ({"dim": 8}, "forward_seq_len"),
    "forward.learned": ({"dim": 8, "learned_freq": True}, "forward_seq_len"),
    "axial.image_pixel": ({"dim": 8, "freqs_for": "pixel", "max_freq": 64}, "axial:4,4"),
    "axial.video_pixel": ({"dim": 4, "freqs_for": "pixel", "max_freq": 64}, "axial:2,4,4"),
    "axial.image_lang": ({"dim": 8}, "axial:4,4"),
    "axial.offsets": ({"dim": 8, "freqs_for": "pixel", "max_freq": 64}, "axial:4,4+offsets"),
    "axial.tensor_offsets": ({"dim": 8}, "axial:4,4+tensor_offsets"),
}
# Function -> fixed keywords. See ``_function`` for the inputs of each.
FUNCTIONS: dict[str, dict[str, Any]] = {
    "apply_rotary_emb": {},
    "apply_rotary_emb.start_index": {"start_index": 4},
    "apply_rotary_emb.scale": {"scale": 0.5},
    "apply_rotary_emb.freqs_seq_dim": {"freqs_seq_dim": 0},
    "apply_rotary_emb.3d": {"seq_dim": -2},
    "apply_learned_rotations": {},
    "apply_learned_rotations.freq_ranges": {},
    "broadcat": {"dim": -1},
    "flash_attn_with_rotary": {"is_causal": True},
    "flash_attn_with_rotary.indices": {"is_causal": True},
    "flash_attn_with_rotary.mask": {"is_causal": False},
    "flash_attn_with_rotary.gqa": {"is_causal": True},
    "flash_attn_with_rotary.cos_sin": {"is_causal": False},
    "flash_attention_fused": {"is_causal": True},
    "flash_attention_fused.mask": {"is_causal": False},
}
# Attention layer variant -> ``RotaryEmbedding`` keywords (see ``_attention``).
ATTENTION: dict[str, dict[str, Any]] = {
    "lang": {"dim": 8},
    "learned_freq": {"dim": 8, "learned_freq": True},
    "xpos_causal": {"dim": 8, "use_xpos": True},
    "seq_before_head_dim": {"dim": 8, "seq_before_head_dim": True},
    "kv_cache_step": {"dim": 8},
    "axial_image": {"dim": 4, "freqs_for": "pixel", "max_freq": 64},
    "flash_fused": {"dim": 8},
}


def names() -> list[str]:
    return ([f"rotate.{n}" for n in ROTATE] + [f"paired.{n}" for n in PAIRED] + [f"freqs.{n}" for n in FREQS]
            + [f"F.{n}" for n in FUNCTIONS] + [f"attention.{n}" for n in ATTENTION])


def _tensor(*shape: int, seed: int = 0) -> Any:
    return gt_inputs.randn(*shape, seed=seed)


def _layout(layout: str, seed: int = 0) -> Any:
    shapes = {"bhnd": (BATCH, HEADS, SEQ, DIM_HEAD), "bnhd": (BATCH, SEQ, HEADS, DIM_HEAD),
              "bnd": (BATCH, SEQ, DIM_HEAD), "one": (BATCH, HEADS, 1, DIM_HEAD),
              "chunk": (BATCH, HEADS, 4, DIM_HEAD)}
    return _tensor(*shapes[layout], seed=seed)


def _rotary(keywords: dict[str, Any]) -> Any:
    import torch
    from rotary_embedding_torch import RotaryEmbedding

    keywords = dict(keywords)
    if keywords.get("custom_freqs") == "custom":  # a geometric series, as users pass their own
        keywords["custom_freqs"] = 1.0 / (100.0 ** (torch.arange(0, keywords["dim"], 2).float() / keywords["dim"]))
    return RotaryEmbedding(**keywords)


def _rotate(name: str) -> Built:
    import torch
    from rotary_embedding_torch import RotaryEmbedding
    from torch import nn

    keywords, static, layout = ROTATE[name]
    rotary = _rotary(keywords)

    class Rotate(nn.Module):
        """The README's use: ``rotate_queries_or_keys`` on the queries, then on the keys."""

        def __init__(self) -> None:
            super().__init__()
            self.rotary = rotary

        def forward(self, q: torch.Tensor, k: torch.Tensor) -> Any:
            return self.rotary.rotate_queries_or_keys(q, **static), self.rotary.rotate_queries_or_keys(k, **static)

        def entry_points(self) -> list[Any]:
            return [RotaryEmbedding.rotate_queries_or_keys]

    return Rotate(), (_layout(layout, 1), _layout(layout, 2)), {}


def _paired(name: str) -> Built:
    from gt_calls import Method

    keywords, method, layout = PAIRED[name]
    rotary = _rotary(keywords)
    if layout in ("one", "chunk"):  # new queries against the whole (cached) key sequence
        return Method(rotary, method), (_layout(layout, 1), _layout("bhnd", 2)), {}
    return Method(rotary, method), (_layout(layout, 1), _layout(layout, 2)), {}


def _freqs(name: str) -> Built:
    import torch
    from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb
    from torch import nn

    from gt_calls import Method

    keywords, what = FREQS[name]
    rotary = _rotary(keywords)
    positions = torch.arange(SEQ)
    if what == "forward":
        return rotary, (positions,), {}
    if what == "forward_seq_len":
        return Method(rotary, "forward", seq_len=SEQ), (positions,), {}
    spec, _, offsets_kind = what.removeprefix("axial:").partition("+")
    sizes = tuple(int(s) for s in spec.split(","))
    offsets: Any = None
    if offsets_kind == "offsets":
        offsets = tuple(0.5 for _ in sizes)
    elif offsets_kind == "tensor_offsets":
        offsets = torch.tensor([2] * len(sizes))

    class Axial(nn.Module):
        """The README's axial example: ``get_axial_freqs`` over the grid, then ``apply_rotary_emb`` on q and k."""

        def __init__(self) -> None:
            super().__init__()
            self.rotary = rotary

        def forward(self, q: torch.Tensor, k: torch.Tensor) -> Any:
            freqs = self.rotary.get_axial_freqs(*sizes, offsets=offsets)
            return apply_rotary_emb(freqs, q), apply_rotary_emb(freqs, k)

        def entry_points(self) -> list[Any]:
            return [RotaryEmbedding.get_axial_freqs, apply_rotary_emb]

    shape = (BATCH, HEADS, *sizes, DIM_HEAD)
    return Axial(), (_tensor(*shape, seed=1), _tensor(*shape, seed=2)), {}


def _function(name: str) -> Built:
    import torch
    from rotary_embedding_torch import RotaryEmbedding, apply_learned_rotations, apply_rotary_emb, broadcat
    from rotary_embedding_torch.flash_attn_with_rotary import flash_attn_with_rotary
    from rotary_embedding_torch.flash_fused_rotary import flash_attention_fused

    from gt_calls import Call

    static = FUNCTIONS[name]
    base, _, variant = name.partition(".")
    freqs = RotaryEmbedding(dim=8)(torch.arange(SEQ))  # (SEQ, 8), as users precompute them
    q = _layout("bhnd", 1)
    if base == "apply_rotary_emb":
        if variant == "3d":
            return Call(apply_rotary_emb, **static), (freqs, _layout("bnd", 1)), {}
        if variant == "freqs_seq_dim":  # sequence before heads: frequencies (n, 1, d) on queries (b, n, h, d)
            return Call(apply_rotary_emb, seq_dim=-3, **static), (freqs[:, None], _layout("bnhd", 1)), {}
        return Call(apply_rotary_emb, **static), (freqs, q), {}
    if base == "apply_learned_rotations":
        if variant == "freq_ranges":  # rotations per position times a range of frequencies
            rotations = _tensor(BATCH, SEQ, 1, seed=3)
            freq_ranges = torch.arange(1, 5).float()
            return Call(apply_learned_rotations, freq_ranges=freq_ranges), (rotations, _layout("bnd", 1)), {}
        return Call(apply_learned_rotations), (_tensor(BATCH, SEQ, 4, seed=3), _layout("bnd", 1)), {}
    if base == "broadcat":  # axial frequencies of two axes joined by broadcasting
        return Call(broadcat, **static), ((_tensor(4, 1, 8, seed=3), _tensor(1, 4, 8, seed=4)),), {}
    function = flash_attn_with_rotary if base == "flash_attn_with_rotary" else flash_attention_fused
    k, v = _layout("bhnd", 2), _layout("bhnd", 3)
    if variant == "indices":  # two extra tokens (CLS, register) that the rotation skips, as in the README
        positions = torch.arange(SEQ - 2)
        return (Call(function, rotary_pos_emb=RotaryEmbedding(dim=8)(positions), rotary_pos_emb_indices=positions + 2,
                     **static), (q, k, v), {})
    if variant == "mask":
        mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
        mask[1, -4:] = False
        return Call(function, rotary_pos_emb=freqs, attn_mask=mask, **static), (q, k, v), {}
    if variant == "gqa":  # one key/value head shared by both query heads
        return Call(function, rotary_pos_emb=freqs, **static), (q, k[:, :1], v[:, :1]), {}
    if variant == "cos_sin":
        cos, sin = freqs.cos()[None, None], freqs.sin()[None, None]
        return Call(function, cos=cos, sin=sin, **static), (q, k, v), {}
    return Call(function, rotary_pos_emb=freqs, **static), (q, k, v), {}


def _attention(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from einops import rearrange
    from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb
    from rotary_embedding_torch.flash_attn_with_rotary import flash_attn_with_rotary
    from torch import nn

    rotary = _rotary(ATTENTION[name])
    seq_first = name == "seq_before_head_dim"

    class Attention(nn.Module):
        """Multi-head self-attention whose queries and keys the rotary module rotates (the README's recipe)."""

        def __init__(self) -> None:
            super().__init__()
            self.rotary = rotary
            self.to_qkv = nn.Linear(DIM, 3 * HEADS * DIM_HEAD, bias=False)
            self.to_out = nn.Linear(HEADS * DIM_HEAD, DIM)

        def heads(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
            pattern = "b n (h d) -> b n h d" if seq_first else "b n (h d) -> b h n d"
            return tuple(rearrange(t, pattern, h=HEADS) for t in self.to_qkv(x).chunk(3, dim=-1))

        def merge(self, out: torch.Tensor) -> torch.Tensor:
            return self.to_out(rearrange(out, "b h n d -> b n (h d)"))

        def forward(self, x: torch.Tensor, *cache: torch.Tensor) -> Any:
            q, k, v = self.heads(x)
            if name == "axial_image":  # x is a 4 x 4 image of tokens; frequencies over both axes
                freqs = self.rotary.get_axial_freqs(4, 4)
                freqs = rearrange(freqs, "h w d -> (h w) d")
                q, k = apply_rotary_emb(freqs, q), apply_rotary_emb(freqs, k)
                return self.merge(F.scaled_dot_product_attention(q, k, v))
            if name == "flash_fused":
                freqs = self.rotary(torch.arange(x.shape[1], device=x.device))
                return self.merge(flash_attn_with_rotary(q, k, v, rotary_pos_emb=freqs, is_causal=True))
            if name == "kv_cache_step":  # one new token against the cached keys and values
                k, v = torch.cat((cache[0], k), dim=-2), torch.cat((cache[1], v), dim=-2)
                q, k = self.rotary.rotate_queries_with_cached_keys(q, k)
                return self.merge(F.scaled_dot_product_attention(q, k, v))
            if name == "xpos_causal":
                q, k = self.rotary.rotate_queries_and_keys(q, k)
                return self.merge(F.scaled_dot_product_attention(q, k, v, is_causal=True))
            q, k = self.rotary.rotate_queries_or_keys(q), self.rotary.rotate_queries_or_keys(k)
            if seq_first:
                q, k, v = (rearrange(t, "b n h d -> b h n d") for t in (q, k, v))
            return self.merge(F.scaled_dot_product_attention(q, k, v))

        def entry_points(self) -> list[Any]:
            return {"axial_image": [RotaryEmbedding.get_axial_freqs, apply_rotary_emb],
                    "flash_fused": [RotaryEmbedding, flash_attn_with_rotary],
                    "kv_cache_step": [RotaryEmbedding.rotate_queries_with_cached_keys],
                    "xpos_causal": [RotaryEmbedding.rotate_queries_and_keys]}.get(
                        name, [RotaryEmbedding.rotate_queries_or_keys])

    if name == "kv_cache_step":
        cache = (_tensor(BATCH, HEADS, SEQ - 1, DIM_HEAD, seed=4), _tensor(BATCH, HEADS, SEQ - 1, DIM_HEAD, seed=5))
        return Attention(), (_tensor(BATCH, 1, DIM, seed=1), *cache), {}
    return Attention(), (_tensor(BATCH, SEQ, DIM, seed=1),), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    group, rest = name.split(".", 1)
    builder = {"rotate": _rotate, "paired": _paired, "freqs": _freqs, "F": _function, "attention": _attention}[group]
    return builder(rest)
