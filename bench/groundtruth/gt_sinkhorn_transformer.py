"""Ground-truth bench, sinkhorn_transformer: Sinkhorn (sparse, sorted-bucket) attention transformers and their LMs.

sinkhorn-transformer 0.11.4 (lucidrains) implements "Sparse Sinkhorn Attention" (Tay et al. 2020): queries,
keys and values are cut into buckets, a sort net (an attention sort net over bucket summaries, or a "simple"
learned projection for a fixed length) scores every key bucket for every query bucket, and either a
Gumbel-Sinkhorn relaxation (a permutation) or a differentiable top-k (non-permutative) reorders the key / value
buckets, which are attended to beside the local bucket. The causal variant rotates half the heads, prepends a
learned null bucket and masks the reordering to the past; ``n_sortcut`` truncates to the first sorted buckets
(SortCut); ``kv_bucket_size`` buckets keys apart from queries; ``n_local_attn_heads`` gives some heads plain
local attention (``local_attention``). ``SinkhornTransformer`` stacks pre-norm (or ReZero) attention and
chunked feedforward (or product-key-memory) layers, sequential or reversible (a custom autograd function that
recomputes activations), with layer dropout and weight tying, and with cross-attention layers over a context
(``receives_context``: an encoder-decoder). ``SinkhornTransformerLM`` puts token and axial position embeddings
and a logits head around it (``return_embeddings`` for an encoder, ``emb_dim`` for a projected width);
``Autopadder`` pads any length to the bucket size; ``AutoregressiveWrapper`` gives the next-token loss and a
sampling ``generate``. The tables cover, at width 16, 2 heads, buckets of 4, a 32-token vocabulary, a batch of
2 and sequences of 16:

- ``LM``: ``SinkhornTransformerLM`` forward: non-causal and causal, the attention and simple sort nets, the
  permutative (Gumbel-Sinkhorn) path, SortCut, a key / value bucket size, local heads (some or all), one or
  two top buckets, reversible layers, feedforward chunks and GLU, weight tying, ReZero, a projected embedding
  width, embeddings out (at the model width), every dropout with layer dropout, a product-key-memory layer,
  input masks (non-causal, causal, SortCut, key / value buckets), a context (the decoder of an
  encoder-decoder) with a context mask, a sequence shorter than ``max_seq_len``;
- ``TRANSFORMER``: ``SinkhornTransformer`` on features: default (permutative), non-permutative, causal,
  simple sort net, reversible, a mask, a context (with its mask, reversible, its own bucket size);
- ``PADDER``: ``Autopadder`` around an LM (right or left padding, a mask) and a transformer (a context to pad);
- ``WRAPPER``: ``AutoregressiveWrapper`` forward (logits, the loss, a mask, a list of ragged sequences, random
  truncation, a context) and ``generate`` through ``gt_calls.Method`` (top-k, top-p, an end token, a 1-d
  prompt, a mask, a prompt longer than ``max_seq_len``, an encoder's context);
- ``PARTS``: ``SinkhornSelfAttention`` (non-causal, causal, local heads, a mask, context only),
  ``SinkhornAttention`` and ``SinkhornCausalAttention`` on heads, and the helpers through ``gt_calls.Call``:
  ``gumbel_sinkhorn``, ``sinkhorn_sorting_operator``, ``differentiable_topk``, ``mask_reordering_matrix``,
  ``cumavg``, ``top_k``, ``top_p``, ``random_truncate_inputs``, ``pad_to_multiple``;
- ``TRAIN``: training steps: the wrapper's loss backward with an Adam step, a reversible LM's cross-entropy
  backward (through the reversible function's own backward), an encoder-decoder's loss backward, a regression
  on a context transformer.

Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, HEADS, BUCKET, BATCH, SEQ = 32, 16, 2, 4, 2, 16
CONTEXT = 8
GEN_LEN, PROMPT = 5, 4
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "max_seq_len": SEQ, "depth": 1, "heads": HEADS,
                        "bucket_size": BUCKET}
CAUSAL: dict[str, Any] = {"causal": True}
SIMPLE: dict[str, Any] = {"use_simple_sort_net": True}
CONTEXTUAL: dict[str, Any] = {"causal": True, "receives_context": True}
# A transformer's cross-attention under masks: SortCut to one bucket (its default of 2 fails on masks).
SORTCUT1: dict[str, Any] = {"receives_context": True, "context_n_sortcut": 1}

# ``SinkhornTransformerLM`` name -> (keywords over ``BASE``, inputs: "mask", "context", "context_mask",
# "short" (a sequence of 8)).
LM: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "LM": ({}, ()),
    "LM.causal": (CAUSAL, ()),
    "LM.simple_sort_net": (SIMPLE, ()),
    "LM.causal.simple_sort_net": ({**CAUSAL, **SIMPLE}, ()),
    "LM.permutative": ({"non_permutative": False}, ()),
    "LM.permutative.simple_sort_net": ({"non_permutative": False, **SIMPLE}, ()),
    "LM.sortcut": ({"n_sortcut": 2}, ()),
    "LM.kv_bucket_size": ({"kv_bucket_size": 8}, ()),
    "LM.local_heads": ({"n_local_attn_heads": 1}, ()),
    "LM.causal.local_heads": ({**CAUSAL, "n_local_attn_heads": 1}, ()),
    "LM.all_local_heads": ({"n_local_attn_heads": HEADS}, ()),
    "LM.top_buckets1": ({"n_top_buckets": 1}, ()),
    "LM.causal.top_buckets1": ({**CAUSAL, "n_top_buckets": 1}, ()),
    "LM.reversible": ({"reversible": True, "depth": 2}, ()),
    "LM.causal.reversible": ({**CAUSAL, "reversible": True}, ()),
    "LM.ff_chunks.ff_glu": ({"ff_chunks": 2, "ff_glu": True}, ()),
    "LM.weight_tie": ({"weight_tie": True, "depth": 2}, ()),
    "LM.rezero": ({"use_rezero": True}, ()),
    "LM.emb_dim": ({"emb_dim": 8}, ()),
    "LM.return_embeddings": ({"return_embeddings": True}, ()),
    "LM.dropout": ({"ff_dropout": 0.1, "attn_dropout": 0.1, "attn_layer_dropout": 0.1, "emb_dropout": 0.1,
                    "layer_dropout": 0.5, "depth": 2}, ()),
    "LM.reversible.layer_dropout": ({"reversible": True, "layer_dropout": 0.5, "depth": 2}, ()),
    "LM.pkm": ({"pkm_layers": (1,), "pkm_num_keys": 32}, ()),
    "LM.mask": ({}, ("mask",)),
    "LM.causal.mask": (CAUSAL, ("mask",)),
    "LM.sortcut.mask": ({"n_sortcut": 2}, ("mask",)),
    "LM.kv_bucket_size.mask": ({"kv_bucket_size": 8}, ("mask",)),
    "LM.local_heads.mask": ({"n_local_attn_heads": 1}, ("mask",)),
    "LM.context": (CONTEXTUAL, ("context",)),
    "LM.context.masks": (CONTEXTUAL, ("context", "context_mask", "mask")),
    "LM.context.non_causal.sortcut": ({"receives_context": True, "context_n_sortcut": 1}, ("context",)),
    "LM.short": ({}, ("short",)),
    "LM.causal.short": (CAUSAL, ("short",)),
}
# ``SinkhornTransformer`` name -> (keywords, inputs as in ``LM``).
TRANSFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "Transformer": ({}, ()),
    "Transformer.non_permutative": ({"non_permutative": True}, ()),
    "Transformer.causal": (CAUSAL, ()),
    "Transformer.simple_sort_net": (SIMPLE, ()),
    "Transformer.reversible": ({"reversible": True}, ()),
    "Transformer.mask": ({}, ("mask",)),
    "Transformer.context": ({"receives_context": True}, ("context",)),
    "Transformer.context.masks": ({"receives_context": True, "context_n_sortcut": 1},
                                  ("context", "context_mask", "mask")),
    "Transformer.context.reversible": ({"receives_context": True, "reversible": True}, ("context",)),
    "Transformer.context.bucket_size": ({"receives_context": True, "context_bucket_size": 2}, ("context",)),
}
# ``Autopadder`` name -> (around: "lm" or "transformer", keywords of the net, pad_left, inputs).
PADDER: dict[str, tuple[str, dict[str, Any], bool, tuple[str, ...]]] = {
    "Autopadder.LM": ("lm", {}, False, ()),
    "Autopadder.LM.pad_left.causal": ("lm", CAUSAL, True, ()),
    "Autopadder.LM.mask": ("lm", {}, False, ("mask",)),
    "Autopadder.LM.kv_bucket_size": ("lm", {"kv_bucket_size": 8}, False, ()),
    "Autopadder.Transformer.context": ("transformer", SORTCUT1, False, ("context",)),
    "Autopadder.Transformer.context.mask": ("transformer", SORTCUT1, False,
                                            ("context", "context_mask")),
}
# ``AutoregressiveWrapper`` name -> (keywords over ``BASE`` (causal always), what: "logits", "loss", "generate",
# call keywords: "mask", "context", "list", "truncate", "prompt1d", "long", "eos", "top_p", "temperature").
WRAPPER: dict[str, tuple[dict[str, Any], str, tuple[str, ...]]] = {
    "AutoregressiveWrapper.logits": ({}, "logits", ()),
    "AutoregressiveWrapper.logits.list": ({}, "logits", ("list",)),
    "AutoregressiveWrapper.loss": ({}, "loss", ()),
    "AutoregressiveWrapper.loss.mask": ({}, "loss", ("mask",)),
    "AutoregressiveWrapper.loss.list": ({}, "loss", ("list",)),
    "AutoregressiveWrapper.loss.truncate": ({}, "loss", ("truncate",)),
    "AutoregressiveWrapper.loss.context": ({"receives_context": True}, "loss", ("context",)),
    "AutoregressiveWrapper.loss.reversible": ({"reversible": True}, "loss", ()),
    "AutoregressiveWrapper.generate": ({}, "generate", ()),
    "AutoregressiveWrapper.generate.top_p": ({}, "generate", ("top_p",)),
    "AutoregressiveWrapper.generate.eos": ({}, "generate", ("eos",)),
    "AutoregressiveWrapper.generate.prompt1d": ({}, "generate", ("prompt1d",)),
    "AutoregressiveWrapper.generate.mask": ({}, "generate", ("mask",)),
    "AutoregressiveWrapper.generate.long": ({}, "generate", ("long",)),
    "AutoregressiveWrapper.generate.context": ({"receives_context": True}, "generate", ("context",)),
    "AutoregressiveWrapper.generate.local_heads": ({"n_local_attn_heads": 1}, "generate", ()),
}
PARTS = ("SinkhornSelfAttention", "SinkhornSelfAttention.causal", "SinkhornSelfAttention.local_heads.mask",
         "SinkhornSelfAttention.context_only", "SinkhornSelfAttention.context_only.masks",
         "SinkhornAttention", "SinkhornAttention.permutative.mask", "SinkhornCausalAttention",
         "SinkhornCausalAttention.simple_sort_net.mask")
# Function name -> (module: "model", "wrapper" or "padder", function, inputs, fixed keywords).
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    "gumbel_sinkhorn": ("model", "gumbel_sinkhorn", ("positive",), {"n_iters": 4, "temperature": 0.7}),
    "sinkhorn_sorting_operator": ("model", "sinkhorn_sorting_operator", ("square",), {"n_iters": 4}),
    "differentiable_topk": ("model", "differentiable_topk", ("scores",), {"k": 2}),
    "mask_reordering_matrix": ("model", "mask_reordering_matrix", ("reordering",), {"topk": 2, "temperature": 0.7}),
    "cumavg": ("model", "cumavg", ("features",), {"dim": 1}),
    "top_k": ("wrapper", "top_k", ("logits",), {"thres": 0.8}),
    "top_p": ("wrapper", "top_p", ("logits",), {"thres": 0.8}),
    "random_truncate_inputs": ("wrapper", "random_truncate_inputs", ("ids",), {}),
    "pad_to_multiple": ("padder", "pad_to_multiple", ("odd_ids",), {"multiple": BUCKET}),
    "pad_to_multiple.left.features": ("padder", "pad_to_multiple", ("odd_features",),
                                      {"multiple": BUCKET, "dim": -2, "pad_left": True}),
}
TRAIN = ("train.AutoregressiveWrapper.adam", "train.LM.reversible", "train.encoder_decoder",
         "train.Transformer.context")


def names() -> list[str]:
    return [*LM, *TRANSFORMER, *PADDER, *WRAPPER, *PARTS, *FUNCTIONS, *TRAIN]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _lm(**keywords: Any) -> Any:
    from sinkhorn_transformer import SinkhornTransformerLM

    return SinkhornTransformerLM(**{**BASE, **keywords})


def _transformer(**keywords: Any) -> Any:
    from sinkhorn_transformer import SinkhornTransformer

    return SinkhornTransformer(DIM, 1, max_seq_len=SEQ, heads=HEADS, bucket_size=BUCKET, **keywords)


def _ids(length: int = SEQ, seed: int = 1) -> Any:
    import torch

    return torch.randint(1, TOKENS, (BATCH, length), generator=_gen(seed))


def _features(length: int = SEQ, seed: int = 2) -> Any:
    import torch

    return torch.randn(BATCH, length, DIM, generator=_gen(seed))


def _mask(length: int = SEQ, cut: int = 3) -> Any:
    """A padding mask: the second row's last ``cut`` positions are off."""
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, -cut:] = False
    return mask


def _inputs(inputs: tuple[str, ...]) -> dict[str, Any]:
    """Call keywords of an LM or transformer forward: "mask", "context", "context_mask"."""
    values = {"mask": ("input_mask", lambda: _mask()), "context": ("context", lambda: _features(CONTEXT, seed=3)),
              "context_mask": ("context_mask", lambda: _mask(CONTEXT, cut=4))}
    return {values[i][0]: values[i][1]() for i in inputs if i in values}


def _lm_forward(name: str) -> Built:
    keywords, inputs = LM[name]
    return _lm(**keywords), (_ids(8 if "short" in inputs else SEQ),), _inputs(inputs)


def _transformer_forward(name: str) -> Built:
    keywords, inputs = TRANSFORMER[name]
    return _transformer(**keywords), (_features(),), _inputs(inputs)


def _padder(name: str) -> Built:
    from sinkhorn_transformer import Autopadder

    around, keywords, pad_left, inputs = PADDER[name]
    calls = {"input_mask": _mask(13)} if "mask" in inputs else {}
    if "context" in inputs:
        calls["context"] = _features(7, seed=3)
    if "context_mask" in inputs:
        calls["context_mask"] = _mask(7, cut=2)
    if around == "lm":
        return Autopadder(_lm(**keywords), pad_left=pad_left), (_ids(13),), calls
    return Autopadder(_transformer(**keywords), pad_left=pad_left), (_features(13),), calls


def _wrapper(name: str) -> Built:
    import torch
    from sinkhorn_transformer import AutoregressiveWrapper
    from sinkhorn_transformer import autoregressive_wrapper as wrapper_module

    from gt_calls import Method

    keywords, what, inputs = WRAPPER[name]
    wrapper = AutoregressiveWrapper(_lm(**{**CAUSAL, **keywords}))
    context = {"context": _features(CONTEXT, seed=3)} if "context" in inputs else {}
    if what == "logits":
        if "list" in inputs:
            return wrapper, ([torch.randint(1, TOKENS, (n,), generator=_gen(n)) for n in (9, 12)],), {}
        return wrapper, (_ids(),), context
    if what == "loss":
        calls: dict[str, Any] = {"return_loss": True, **context}
        if "mask" in inputs:
            calls["input_mask"] = _mask(SEQ + 1)
        if "truncate" in inputs:
            calls["randomly_truncate_sequence"] = True
        if "list" in inputs:
            return wrapper, ([torch.randint(1, TOKENS, (n,), generator=_gen(n)) for n in (10, 17)],), calls
        return wrapper, (_ids(SEQ + 1),), calls
    static: dict[str, Any] = dict(context)
    if context:  # ``generate`` passes its own input mask: without a context mask, that one masks the context
        static["context_mask"] = _mask(CONTEXT, cut=4)
    if "top_p" in inputs:
        static.update(filter_logits_fn=wrapper_module.top_p, filter_thres=0.8, temperature=0.7)
    if "eos" in inputs:
        static["eos_token"] = 0
    if "mask" in inputs:
        static["input_mask"] = _mask(PROMPT, cut=1)
    prompt = _ids(SEQ + 3 if "long" in inputs else PROMPT, seed=5)
    if "prompt1d" in inputs:
        prompt = prompt[0]
    return Method(wrapper, "generate", seq_len=GEN_LEN, **static), (prompt,), {}


def _part(name: str) -> Built:
    import torch
    from sinkhorn_transformer import sinkhorn_transformer as st

    gen = _gen(4)
    if name.startswith("SinkhornSelfAttention"):
        context_only = "context_only" in name
        attn = st.SinkhornSelfAttention(DIM, BUCKET, SEQ, heads=HEADS, causal=".causal" in name,
                                        n_local_attn_heads=1 if "local_heads" in name else 0,
                                        context_only=context_only, n_sortcut=1 if context_only else 0)
        calls: dict[str, Any] = {}
        if context_only:
            calls["context"] = _features(CONTEXT, seed=3)
        if name.endswith("mask"):
            calls["input_mask"] = _mask()
        if name.endswith("masks"):
            calls["input_mask"], calls["context_mask"] = _mask(), _mask(CONTEXT, cut=4)
        return attn, (_features(),), calls
    q, k, v = (torch.randn(BATCH, HEADS, SEQ, DIM // HEADS, generator=gen) for _ in range(3))
    masked = name.endswith("mask")
    calls = {"q_mask": _mask(), "kv_mask": _mask(cut=5)} if masked else {}
    if name.startswith("SinkhornAttention"):
        attn = st.SinkhornAttention(BUCKET, DIM, DIM // HEADS, HEADS, SEQ,
                                    non_permutative=".permutative" not in name, n_top_buckets=2)
    else:
        attn = st.SinkhornCausalAttention(BUCKET, DIM, DIM // HEADS, HEADS, SEQ,
                                          use_simple_sort_net="simple_sort_net" in name, n_top_buckets=2)
    return attn, (q, k, v), calls


def _function(name: str) -> Built:
    import importlib

    import torch

    from gt_calls import Call

    module, function, inputs, static = FUNCTIONS[name]
    modules = {"model": "sinkhorn_transformer.sinkhorn_transformer",
               "wrapper": "sinkhorn_transformer.autoregressive_wrapper",
               "padder": "sinkhorn_transformer.autopadder"}
    gen = _gen(6)
    buckets = SEQ // BUCKET
    tensors = {
        "positive": lambda: torch.rand(BATCH * HEADS, buckets, buckets, generator=gen),
        "square": lambda: torch.randn(BATCH * HEADS, buckets, buckets, generator=gen),
        "scores": lambda: torch.randn(BATCH * HEADS, buckets, 8, generator=gen),
        "reordering": lambda: torch.randn(BATCH * HEADS, buckets, buckets + 2, generator=gen),
        "features": lambda: _features(),
        "logits": lambda: torch.randn(BATCH, TOKENS, generator=gen),
        "ids": lambda: _ids(),
        "odd_ids": lambda: _ids(13),
        "odd_features": lambda: _features(13),
    }
    function_object = getattr(importlib.import_module(modules[module]), function)
    return Call(function_object, **static), tuple(tensors[i]() for i in inputs), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from sinkhorn_transformer import AutoregressiveWrapper, SinkhornTransformer, SinkhornTransformerLM
    from torch import nn

    from gt_calls import Run

    if name == "train.AutoregressiveWrapper.adam":
        wrapper = AutoregressiveWrapper(_lm(**CAUSAL))
        optimizer = torch.optim.Adam(wrapper.parameters(), lr=1e-3)

        def step(owner: Any, ids: Any) -> Any:
            """The next-token loss, its gradients and an Adam step (when gradients are on)."""
            loss = owner(ids, return_loss=True)
            if torch.is_grad_enabled():
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            return loss

        return Run(wrapper, step, [AutoregressiveWrapper, SinkhornTransformerLM]), (_ids(SEQ + 1),), {}
    if name == "train.LM.reversible":
        def lm_step(owner: Any, ids: Any, mask: Any) -> Any:
            """Cross-entropy of the logits over the kept tokens, backward."""
            logits = owner(ids, input_mask=mask)
            losses = F.cross_entropy(logits.transpose(1, 2), ids, reduction="none")
            loss = (losses * mask).sum() / mask.sum()
            if torch.is_grad_enabled():
                loss.backward()
            return loss

        return Run(_lm(reversible=True, depth=2), lm_step, [SinkhornTransformerLM]), (_ids(), _mask()), {}
    if name == "train.encoder_decoder":
        pair = nn.ModuleDict({"encoder": _lm(return_embeddings=True),
                              "decoder": AutoregressiveWrapper(_lm(**CONTEXTUAL))})

        def seq2seq(owner: Any, source: Any, target: Any, source_mask: Any) -> Any:
            """The encoder's embeddings as the decoder's context, the decoder's loss, backward."""
            keys = owner["encoder"](source, input_mask=source_mask)
            loss = owner["decoder"](target, context=keys, context_mask=source_mask, return_loss=True)
            if torch.is_grad_enabled():
                loss.backward()
            return loss

        return Run(pair, seq2seq, [SinkhornTransformerLM, AutoregressiveWrapper]), \
            (_ids(CONTEXT, seed=7), _ids(SEQ + 1, seed=8), _mask(CONTEXT, cut=4)), {}
    model = _transformer(receives_context=True)

    def regression(owner: Any, x: Any, context: Any, target: Any) -> Any:
        """Mean squared error of the features against a target, backward."""
        loss = F.mse_loss(owner(x, context=context), target)
        if torch.is_grad_enabled():
            loss.backward()
        return loss

    return Run(model, regression, [SinkhornTransformer]), \
        (_features(), _features(CONTEXT, seed=3), _features(seed=9)), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LM:
        return _lm_forward(name)
    if name in TRANSFORMER:
        return _transformer_forward(name)
    if name in PADDER:
        return _padder(name)
    if name in WRAPPER:
        return _wrapper(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
