"""Ground-truth bench, native_sparse_attention_pytorch (native-sparse-attention-pytorch): DeepSeek's Native Sparse
Attention and a small language model on it.

native-sparse-attention-pytorch 0.2.3 (lucidrains) exports ``SparseAttention``: three branches over the same queries,
mixed per head by a learned sigmoid gate (``strategy_combine_mlp``). Compressed attention attends to blocks of keys /
values squeezed by a compress network (``compress_block_size``, overlapping by ``compress_block_sliding_stride``,
with memory key / values in front and a block-causal mask when causal); its attention logits, averaged over the query
heads of a group (``query_heads_share_selected_kv``) and interpolated to ``selection_block_size`` blocks, choose the
top ``num_selected_blocks`` blocks for fine attention (gathered key / values, a block-causal diagonal, optionally
gated by a straight-through top-k, ``use_diff_topk``); a local window (``sliding_window_size``) attends nearby.
Grouped key / value heads (``kv_heads``) and an inference path (one token at a time over a cache of rotated keys /
values, compressed blocks and the running keys / values not yet compressed) come with it. ``transformer.py`` stacks it
into a ``Transformer`` (next-token loss, caches, ``sample`` with or without the cache, greedy or Gumbel with top-k);
``compress_networks.py`` holds alternative compress networks. The tables cover, at width 16, 2 heads of 8, a batch of
2 and sequences of 16 (windows of 4, compress blocks of 4 sliding by 2, selection blocks of 4, 2 selected):

- ``SPARSE``: ``SparseAttention`` forward: non-causal (also shorter than a compress block) and causal: the defaults,
  grouped key / value heads (with the selection per query head or shared), compress blocks without overlap (stride
  equal to the selection block), the differentiable top-k, nothing selected, a length that is no multiple of the
  blocks, a custom strategy gate, the convolutional and the transformer compress networks of
  ``compress_networks.py``, the returned cache;
- ``INFERENCE``: ``SparseAttention`` forward over a cache for one token (prompts of 16, 14 and 2 tokens, so that the
  running keys / values fill a compress block or not and none are compressed yet), grouped heads, no overlap; and
  decoding three tokens in turn through a bench loop;
- ``LM``: ``Transformer`` forward (the next-token loss, one token over a cache) and ``Transformer.sample`` with the
  cache through ``gt_calls.Method``;
- ``PARTS``: the dense ``transformer.Attention`` and two compress networks alone (attention pooling, a grouped single
  projection);
- ``FUNCTIONS``: ``attend`` (a mask, the similarities returned), ``gumbel_sample`` and ``top_k`` through
  ``gt_calls.Call``;
- ``TRAIN``: training steps (a loss, ``backward()`` when gradients are on, an Adam step) through a causal
  ``SparseAttention`` (with and without the differentiable top-k) and the ``Transformer``'s next-token loss.

Left out: the Triton kernel (``use_triton_kernel``, ``triton_native_sparse_attention.py``: no Triton, no CUDA here),
flex attention masks (``create_sliding_mask``, ``create_fine_mask``: on the CPU flex attention has no backward and
the fine mask is compiled by Inductor), the inference path with a selection per query head (its gather fails as
installed), the ``Transformer`` with dense attention, which passes its cache keywords to an ``Attention``
that takes none, and, for time (a model takes half a minute to several minutes to trace here), most option
combinations. Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, DIM_HEAD, HEADS, BATCH, SEQ, TOKENS = 16, 8, 2, 2, 16, 32
SPARSE_KW: dict[str, Any] = {"sliding_window_size": 4, "compress_block_size": 4, "compress_block_sliding_stride": 2,
                             "selection_block_size": 4, "num_selected_blocks": 2}
BASE: dict[str, Any] = {"dim": DIM, "dim_head": DIM_HEAD, "heads": HEADS, **SPARSE_KW}
CAUSAL: dict[str, Any] = {"causal": True}
GQA: dict[str, Any] = {"heads": 4, "kv_heads": 2}
NO_SHARE: dict[str, Any] = {**GQA, "query_heads_share_selected_kv": False}
STRIDE4: dict[str, Any] = {"compress_block_sliding_stride": 4}
DIFF: dict[str, Any] = {"use_diff_topk": True}

# ``SparseAttention`` name -> (keywords over ``BASE`` ("compress_mlp" names a compress network, "strategy_combine_mlp"
# a custom gate), sequence length, call keywords).
SPARSE: dict[str, tuple[dict[str, Any], int, dict[str, Any]]] = {
    "SparseAttention": ({}, SEQ, {}),
    "SparseAttention.causal": (CAUSAL, SEQ, {}),
    "SparseAttention.gqa.causal": ({**GQA, **CAUSAL}, SEQ, {}),
    "SparseAttention.gqa.no_share.causal": ({**NO_SHARE, **CAUSAL}, SEQ, {}),
    "SparseAttention.stride4.causal": ({**STRIDE4, **CAUSAL}, SEQ, {}),
    "SparseAttention.diff_topk.causal": ({**DIFF, **CAUSAL}, SEQ, {}),
    "SparseAttention.selected0.causal": ({"num_selected_blocks": 0, **CAUSAL}, SEQ, {}),
    "SparseAttention.seq14.causal": (CAUSAL, 14, {}),
    "SparseAttention.seq3": ({}, 3, {}),
    "SparseAttention.strategy_combine_mlp.causal": ({"strategy_combine_mlp": "mlp", **CAUSAL}, SEQ, {}),
    **{f"SparseAttention.{net}.causal": ({"compress_mlp": net, **CAUSAL}, SEQ, {})
       for net in ("ConvLinearCompress", "CompressTransformer")},
    "SparseAttention.return_cache": (CAUSAL, SEQ, {"return_cache": True}),
}
# One token over a cache: name -> (keywords over ``BASE`` (always causal), prompt length, call keywords).
INFERENCE: dict[str, tuple[dict[str, Any], int, dict[str, Any]]] = {
    "SparseAttention.inference": ({}, SEQ, {"return_cache": True}),
    "SparseAttention.inference.prompt14": ({}, 14, {"return_cache": True}),
    "SparseAttention.inference.prompt2": ({}, 2, {"return_cache": True}),
    "SparseAttention.inference.gqa": (GQA, SEQ, {"return_cache": True}),
    "SparseAttention.inference.stride4": (STRIDE4, 15, {"return_cache": True}),
    "SparseAttention.decode3": ({}, 13, {}),
}
LM_BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": 1, "dim_head": DIM_HEAD, "heads": HEADS,
                           "ff_expansion_factor": 2.0, "use_sparse_attn": True, "sparse_attn_kwargs": SPARSE_KW}
# ``Transformer`` name -> (keywords over ``LM_BASE``, what runs: "forward" (with the call keywords), "cache" (one token
# over the cache of a prompt) or "sample" (with its fixed keywords)).
LM: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "Transformer.return_loss": ({}, "forward", {"return_loss": True}),
    "Transformer.cache": ({}, "cache", {"return_cache": True}),
    "Transformer.sample.cache": ({}, "sample", {"seq_len": 12, "use_cache_kv": True}),
}
PARTS = ("Attention", "compress.AttentionPool", "compress.SingleProjection.grouped")
# Function name -> (module under ``native_sparse_attention_pytorch``, function, inputs (names of ``_tensors``), fixed
# keywords).
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    "attend.mask.return_sim": ("native_sparse_attention", "attend", ("q", "k", "v", "mask"), {"return_sim": True}),
    "gumbel_sample": ("transformer", "gumbel_sample", ("logits",), {"temperature": 0.7}),
    "top_k": ("transformer", "top_k", ("logits",), {"thres": 0.8}),
}
TRAIN = ("train.SparseAttention.causal", "train.SparseAttention.diff_topk.causal", "train.Transformer")


def names() -> list[str]:
    return [*SPARSE, *INFERENCE, *LM, *PARTS, *FUNCTIONS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _ids(length: int = SEQ, seed: int = 3) -> Any:
    import torch

    return torch.randint(0, TOKENS, (BATCH, length), generator=torch.Generator().manual_seed(seed))


def _compress_net(name: str, kv_heads: int) -> Any:
    from native_sparse_attention_pytorch import compress_networks as nets

    block = SPARSE_KW["compress_block_size"]
    if name == "ConvLinearCompress":
        return nets.ConvLinearCompress(kv_heads, DIM_HEAD, block)
    if name == "AttentionPool":
        return nets.AttentionPool(DIM_HEAD, block)
    if name == "GroupedMLP":
        return nets.GroupedMLP(DIM_HEAD, block, kv_heads, expand_factor=2.0)
    if name == "SingleProjection":
        return nets.SingleProjection(DIM_HEAD, block)
    if name == "SingleProjection.grouped":
        return nets.SingleProjection(DIM_HEAD, block, heads=kv_heads)
    return nets.CompressTransformer(1, DIM_HEAD * kv_heads, 2)


def _sparse(keywords: dict[str, Any]) -> Any:
    from torch import nn

    from native_sparse_attention_pytorch import SparseAttention

    keywords = {**BASE, **keywords}
    kv_heads = keywords.get("kv_heads") or keywords["heads"]
    if isinstance(keywords.get("compress_mlp"), str):
        keywords["compress_mlp"] = _compress_net(keywords["compress_mlp"], kv_heads)
    if keywords.get("strategy_combine_mlp") == "mlp":
        keywords["strategy_combine_mlp"] = nn.Sequential(nn.Linear(DIM, DIM), nn.SiLU(),
                                                         nn.Linear(DIM, 3 * keywords["heads"]))
    return SparseAttention(**keywords)


def _inference(name: str) -> Built:
    import torch

    from gt_calls import Run
    from native_sparse_attention_pytorch import SparseAttention

    keywords, prompt, call = INFERENCE[name]
    model = _sparse({**keywords, **CAUSAL})
    x = _randn(BATCH, prompt + 3, DIM)
    with torch.no_grad():
        _, cache = model(x[:, :prompt], return_cache=True)
    if name.startswith("SparseAttention.decode3"):
        def decode(owner: Any, tokens: Any, cache: Any) -> Any:
            """Three tokens in turn, each over the cache the one before returned."""
            outs = []
            for index in range(tokens.shape[1]):
                out, cache = owner(tokens[:, index:index + 1], cache=cache, return_cache=True)
                outs.append(out)
            return torch.cat(outs, dim=1)

        return Run(model, decode, [SparseAttention]), (x[:, prompt:], cache), {}
    return model, (x[:, prompt:prompt + 1],), {"cache": cache, **call}


def _lm(name: str) -> Built:
    import torch

    from gt_calls import Method
    from native_sparse_attention_pytorch.transformer import Transformer

    keywords, kind, call = LM[name]
    model = Transformer(**{**LM_BASE, **keywords})
    if kind == "forward":
        return model, (_ids(SEQ + 1 if call.get("return_loss") else SEQ),), call
    if kind == "cache":
        ids = _ids(SEQ + 1)
        with torch.no_grad():
            _, cache = model(ids[:, :-1], return_cache=True)
        return model, (ids,), {"cache": cache, **call}
    return Method(model, "sample", **call), (_ids(8),), {}


def _part(name: str) -> Built:
    from native_sparse_attention_pytorch import compress_networks as nets
    from native_sparse_attention_pytorch import transformer

    if name.startswith("Attention"):
        keywords: dict[str, Any] = {"causal": not name.endswith("non_causal")}
        if name.endswith("gqa"):
            keywords.update(heads=4, kv_heads=2)
        return transformer.Attention(DIM, dim_head=DIM_HEAD, heads=keywords.pop("heads", HEADS), **keywords), \
            (_randn(BATCH, SEQ, DIM),), {}
    if name == "FeedForward":
        return transformer.FeedForward(DIM, expansion_factor=2.0), (_randn(BATCH, SEQ, DIM),), {}
    if name == "compress.SimpleTransformerLayer":
        return nets.SimpleTransformerLayer(DIM, 2, dropout=0.1), (_randn(BATCH, SEQ, DIM),), {}
    block = SPARSE_KW["compress_block_size"]
    return _compress_net(name.split(".", 1)[1], HEADS), (_randn(BATCH, HEADS, 5, block, DIM_HEAD),), {}


def _tensors() -> dict[str, Any]:
    import torch

    mask = torch.ones(SEQ, SEQ + 2, dtype=torch.bool).tril(2)
    return {
        "q": _randn(BATCH, HEADS, SEQ, DIM_HEAD),
        "q4": _randn(BATCH, 2 * HEADS, SEQ, DIM_HEAD, seed=2),
        "k": _randn(BATCH, HEADS, SEQ + 2, DIM_HEAD, seed=3),
        "v": _randn(BATCH, HEADS, SEQ + 2, DIM_HEAD, seed=4),
        "mask": mask,
        "logits": _randn(BATCH, TOKENS, seed=5),
        "ones": torch.ones(BATCH, TOKENS),
    }


def _function(name: str) -> Built:
    import importlib

    from gt_calls import Call

    module, function, inputs, static = FUNCTIONS[name]
    tensors = _tensors()
    fn = getattr(importlib.import_module(f"native_sparse_attention_pytorch.{module}"), function)
    return Call(fn, **static), tuple(tensors[i] for i in inputs), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from native_sparse_attention_pytorch import SparseAttention
    from native_sparse_attention_pytorch.transformer import Transformer

    inputs: tuple[Any, ...]
    if name == "train.Transformer":
        model: Any = Transformer(**LM_BASE)
        entries: list[Any] = [Transformer]
        inputs = (_ids(SEQ + 1),)

        def loss_of(owner: Any, ids: Any) -> Any:
            return owner(ids, return_loss=True)
    else:
        keywords: dict[str, Any] = {}
        for flag, extra in ((".causal", CAUSAL), (".diff_topk", DIFF)):
            if flag in name:
                keywords.update(extra)
        model = _sparse(keywords)
        entries = [SparseAttention]
        inputs = (_randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, DIM, seed=9))

        def loss_of(owner: Any, x: Any, target: Any) -> Any:
            return F.mse_loss(owner(x), target)

    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(owner: Any, *tensors: Any) -> Any:
        """The loss, its gradients and an Adam step (when gradients are on)."""
        loss = loss_of(owner, *tensors)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, entries), inputs, {}


def build(name: str) -> Built:
    import contextlib
    import io
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    # ``SparseAttention`` prints a notice when no block is selected.
    with contextlib.redirect_stdout(io.StringIO()):
        if name in SPARSE:
            keywords, length, call = SPARSE[name]
            return _sparse(keywords), (_randn(BATCH, length, DIM),), call
        if name in INFERENCE:
            return _inference(name)
        if name in LM:
            return _lm(name)
        if name in PARTS:
            return _part(name)
        if name in FUNCTIONS:
            return _function(name)
        if name in TRAIN:
            return _train(name)
    raise KeyError(name)
