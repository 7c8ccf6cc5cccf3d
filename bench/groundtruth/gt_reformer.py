"""Ground-truth bench, reformer-pytorch: ReformerLM, Reformer, LSH attention, its wrappers and ReformerEncDec.

reformer-pytorch 1.4.4 is a set of ``nn.Module`` s (attention by locality-sensitive hashing, reversible residual
layers) that users compile as they are; each is built here at a tiny size (width 32, 4 heads of 8, buckets of 4
tokens, 2 hashing rounds, 32 tokens of a 64-token vocabulary, depth 1, or 2 where layers differ: weight tying,
layer dropout), in the options of its README that change its code:

- ``LM``: ``ReformerLM`` causal and not, with more hashing rounds or smaller buckets and one round, full attention
  (``use_full_attn``), local attention heads (``n_local_attn_heads``), reversible layers (the default) and
  irreversible ones (``reverse_thres`` above the length), layer dropout, axial, absolute and rotary (default)
  positions, weight tying of the layers and of the embedding, ``return_embeddings``, chunked and GLU
  feed-forwards, chunked attention, ReZero, memory key-values, product-key memory, and the forward's inputs: a
  padding mask, an attention mask, and encoder keys with their mask;
- ``REFORMER``: ``Reformer`` on embeddings (the options ``ReformerLM`` does not pass on: no duplicate attention,
  no attention across buckets) and ``Autopadder`` around ``ReformerLM`` at a length that is not a multiple of
  the buckets; ``Recorder``, which records the attention and buckets of each layer;
- ``ATTENTION``: ``LSHAttention`` (one hash per round or the top buckets of one rotation, causal, returning the
  attention matrix, with masks) and ``LSHSelfAttention`` (causal local heads, full attention with a mask, keys
  with memory) alone;
- ``WRAPPER``: ``TrainingWrapper`` around a causal ``ReformerLM``: the next-token loss of a training step and
  ``generate`` (2 tokens from a 4-token prompt) with top-k or top-p filtering;
- ``ENCDEC``: ``ReformerEncDec``: the decoder's loss on an encoded source (with the encoder's mask) and
  ``generate``.

Random weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SEQ, DIM, HEADS, DIM_HEAD, BUCKET, HASHES, TOKENS, CONTEXT = 2, 32, 32, 4, 8, 4, 2, 64, 8
SMALL = {"dim": DIM, "depth": 1, "heads": HEADS, "bucket_size": BUCKET, "n_hashes": HASHES}
LM_SMALL = {**SMALL, "num_tokens": TOKENS, "max_seq_len": SEQ, "dim_head": DIM_HEAD}

# Name -> (``ReformerLM`` keywords, forward inputs: "input_mask" (a padding mask), "input_attn_mask" (a
# token-to-token mask), "keys" (encoder keys and their ``context_mask``)).
LM: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "ReformerLM": ({}, ()),
    "ReformerLM.causal": ({"causal": True}, ()),
    "ReformerLM.n_hashes_4": ({"n_hashes": 4}, ()),
    "ReformerLM.bucket_2.one_hash": ({"bucket_size": 2, "n_hashes": 1}, ()),
    "ReformerLM.use_full_attn": ({"use_full_attn": True}, ()),
    "ReformerLM.n_local_attn_heads": ({"n_local_attn_heads": 2}, ()),
    "ReformerLM.irreversible": ({"reverse_thres": 1024}, ()),
    "ReformerLM.layer_dropout": ({"depth": 2, "layer_dropout": 0.1}, ()),
    "ReformerLM.axial_position_emb": ({"axial_position_emb": True, "axial_position_shape": (8, 4)}, ()),
    "ReformerLM.absolute_position_emb": ({"absolute_position_emb": True}, ()),
    "ReformerLM.weight_tie": ({"depth": 2, "weight_tie": True}, ()),
    "ReformerLM.weight_tie_embedding": ({"weight_tie_embedding": True}, ()),
    "ReformerLM.return_embeddings": ({"return_embeddings": True}, ()),
    "ReformerLM.chunks": ({"ff_chunks": 4, "attn_chunks": 2}, ()),
    "ReformerLM.ff_glu.dropout": ({"ff_glu": True, "ff_dropout": 0.1, "lsh_dropout": 0.1}, ()),
    "ReformerLM.use_rezero": ({"use_rezero": True}, ()),
    "ReformerLM.num_mem_kv": ({"num_mem_kv": 8}, ()),
    "ReformerLM.pkm_layers": ({"pkm_layers": (1,), "pkm_num_keys": 32}, ()),
    "ReformerLM.input_mask": ({}, ("input_mask",)),
    "ReformerLM.input_attn_mask": ({}, ("input_attn_mask",)),
    "ReformerLM.keys": ({}, ("keys",)),
}
# Name -> (class, keywords, forward inputs as in ``LM``). ``Reformer`` takes embeddings of width ``DIM``.
REFORMER: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "Reformer": ("Reformer", {**SMALL, "dim_head": DIM_HEAD}, ()),
    "Reformer.causal.input_mask": ("Reformer", {**SMALL, "dim_head": DIM_HEAD, "causal": True}, ("input_mask",)),
    "Reformer.no_duplicate_attention": ("Reformer", {**SMALL, "dim_head": DIM_HEAD,
                                                     "lsh_allow_duplicate_attention": False}, ()),
    "Reformer.no_attend_across_buckets": ("Reformer", {**SMALL, "dim_head": DIM_HEAD,
                                                       "lsh_attend_across_buckets": False}, ()),
    "Autopadder.ReformerLM": ("ReformerLM", {**LM_SMALL}, ("autopad",)),
    "Recorder.ReformerLM": ("ReformerLM", {**LM_SMALL}, ("record",)),
}
# Name -> (class, keywords, forward inputs). ``LSHAttention`` hashes heads merged into the batch.
ATTENTION: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "LSHAttention": ("LSHAttention", {"bucket_size": BUCKET, "n_hashes": HASHES}, ()),
    "LSHAttention.causal": ("LSHAttention", {"bucket_size": BUCKET, "n_hashes": HASHES, "causal": True}, ()),
    "LSHAttention.no_rehash_each_round": ("LSHAttention", {"bucket_size": BUCKET, "n_hashes": HASHES,
                                                           "rehash_each_round": False}, ()),
    "LSHAttention.return_attn": ("LSHAttention", {"bucket_size": BUCKET, "n_hashes": HASHES, "return_attn": True},
                                 ()),
    "LSHAttention.masks": ("LSHAttention", {"bucket_size": BUCKET, "n_hashes": HASHES,
                                            "allow_duplicate_attention": False}, ("input_mask", "input_attn_mask")),
    "LSHSelfAttention.causal.n_local_attn_heads": ("LSHSelfAttention", {
        "dim": DIM, "heads": HEADS, "bucket_size": BUCKET, "n_hashes": HASHES, "causal": True,
        "n_local_attn_heads": 2}, ()),
    "LSHSelfAttention.use_full_attn.input_mask": ("LSHSelfAttention", {
        "dim": DIM, "heads": HEADS, "bucket_size": BUCKET, "n_hashes": HASHES, "use_full_attn": True},
        ("input_mask",)),
    "LSHSelfAttention.keys.num_mem_kv": ("LSHSelfAttention", {
        "dim": DIM, "heads": HEADS, "bucket_size": BUCKET, "n_hashes": HASHES, "num_mem_kv": 8}, ("keys",)),
}
# Name -> (call, options): "loss" (``TrainingWrapper``'s forward with ``return_loss``), "top_p".
WRAPPER: dict[str, tuple[str, tuple[str, ...]]] = {
    "TrainingWrapper.loss": ("loss", ()),
    "TrainingWrapper.generate": ("generate", ()),
    "TrainingWrapper.generate.top_p": ("generate", ("top_p",)),
}
ENCDEC = ("ReformerEncDec.loss", "ReformerEncDec.generate")


def names() -> list[str]:
    return list(LM) + list(REFORMER) + list(ATTENTION) + list(WRAPPER) + list(ENCDEC)


def _tokens(length: int = SEQ, seed: int = 0) -> Any:
    return gt_inputs.tokens(TOKENS, BATCH, length, seed=seed)


def _padding_mask(length: int = SEQ) -> Any:
    """A padding mask: the second sequence's last quarter is padding."""
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, length - length // 4:] = False
    return mask


def _inputs(options: tuple[str, ...], length: int = SEQ, heads: int = 1) -> dict[str, Any]:
    """The forward's keywords named by ``options`` (masks repeated for ``heads`` merged into the batch)."""
    import torch

    gen = torch.Generator().manual_seed(1)
    kwargs: dict[str, Any] = {}
    if "input_mask" in options:
        kwargs["input_mask"] = _padding_mask(length).repeat(heads, 1)
    if "input_attn_mask" in options:
        kwargs["input_attn_mask"] = (torch.rand(BATCH * heads, length, length, generator=gen) > 0.2)
    if "keys" in options:
        kwargs["keys"] = torch.randn(BATCH, CONTEXT, DIM, generator=gen)
        kwargs["context_mask"] = torch.ones(BATCH, CONTEXT, dtype=torch.bool)
    return kwargs


def _lm(name: str) -> Built:
    from reformer_pytorch import ReformerLM

    keywords, options = LM[name]
    return ReformerLM(**{**LM_SMALL, **keywords}), (_tokens(),), _inputs(options)


def _reformer(name: str) -> Built:
    import torch
    from reformer_pytorch import Autopadder, Recorder, Reformer, ReformerLM

    cls, keywords, options = REFORMER[name]
    net = (Reformer if cls == "Reformer" else ReformerLM)(**keywords)
    length = SEQ - 3 if "autopad" in options else SEQ
    x = _tokens(length) if cls == "ReformerLM" else torch.randn(BATCH, length, DIM,
                                                                  generator=torch.Generator().manual_seed(2))
    if "autopad" in options:
        return Autopadder(net), (x,), {}
    if "record" in options:
        return Recorder(net), (x,), {}
    return net, (x,), _inputs(options)


def _attention(name: str) -> Built:
    import torch
    from reformer_pytorch import LSHAttention, LSHSelfAttention

    cls, keywords, options = ATTENTION[name]
    gen = torch.Generator().manual_seed(3)
    if cls == "LSHAttention":
        qk, v = (torch.randn(BATCH * HEADS, SEQ, DIM_HEAD, generator=gen) for _ in range(2))
        return LSHAttention(**keywords), (qk, v), _inputs(options, heads=HEADS)
    return LSHSelfAttention(**keywords), (torch.randn(BATCH, SEQ, DIM, generator=gen),), _inputs(options)


def _wrapper(name: str) -> Built:
    from reformer_pytorch import ReformerLM
    from reformer_pytorch.generative_tools import TrainingWrapper, top_p

    from gt_calls import Method

    call, options = WRAPPER[name]
    wrapper = TrainingWrapper(ReformerLM(**{**LM_SMALL, "causal": True}), ignore_index=0, pad_value=0)
    if call == "loss":
        return wrapper, (_tokens(SEQ + 1),), {"return_loss": True}
    static: dict[str, Any] = {"seq_len": 2}
    if "top_p" in options:
        static.update(filter_logits_fn=top_p, filter_thres=0.9)
    return Method(wrapper, "generate", **static), (_tokens(4),), {}


def _encdec(name: str) -> Built:
    from reformer_pytorch import ReformerEncDec

    from gt_calls import Method

    model = ReformerEncDec(dim=DIM, enc_num_tokens=TOKENS, enc_depth=1, enc_heads=HEADS, enc_dim_head=DIM_HEAD,
                           enc_max_seq_len=SEQ, enc_bucket_size=BUCKET, enc_n_hashes=HASHES,
                           dec_num_tokens=TOKENS, dec_depth=1, dec_heads=HEADS, dec_dim_head=DIM_HEAD,
                           dec_max_seq_len=SEQ, dec_bucket_size=BUCKET, dec_n_hashes=HASHES)
    source = _tokens(SEQ, seed=4)
    if name == "ReformerEncDec.loss":
        return model, (source, _tokens(SEQ + 1, seed=5)), {"return_loss": True, "enc_input_mask": _padding_mask()}
    return Method(model, "generate", seq_len=2), (source, _tokens(4, seed=5)), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LM:
        return _lm(name)
    if name in REFORMER:
        return _reformer(name)
    if name in ATTENTION:
        return _attention(name)
    if name in WRAPPER:
        return _wrapper(name)
    return _encdec(name)
