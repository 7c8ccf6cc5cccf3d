"""Ground-truth bench, routing-transformer: RoutingTransformerLM, RoutingTransformer, k-means attention, the wrapper.

routing-transformer 1.6.1 is a set of ``nn.Module`` s (attention routed by online k-means clustering of the
queries and keys, mixed with local attention heads) that users compile as they are; each is built here at a tiny
size (width 32, 4 heads of 8, windows of 8 tokens, so 4 clusters over a 32-token maximum length, 32 tokens of a
64-token vocabulary, depth 1, or 2 where layers differ: per-layer local heads, weight tying, layer dropout, a
mixture-of-experts layer), in the options of its README that change its code. Every model returns the
auxiliary (commitment) loss of its k-means beside its output; in train mode the k-means also compute new means.

- ``LM``: ``RoutingTransformerLM`` causal and not, with smaller windows (more clusters), local attention heads
  (causal and not, per layer), reversible layers, weight tying of the layers and of the embedding, a smaller
  embedding (projected in and out), GLU feed-forwards, dropout, shared or separate queries and keys, ReZero,
  scale norm, token shifting, layer dropout, a mixture-of-experts layer, a padding mask, and
  ``receives_context`` (cross-attention to an encoder's context and its mask);
- ``TRANSFORMER``: ``RoutingTransformer`` on embeddings (causal, reversible); ``ATTENTION``: ``KmeansAttention``
  (causal, shared query-key, receiving a context, with masks and memory key-values) and the ``Kmeans`` module
  alone (with and without updating means);
- ``WRAPPER``: ``AutoregressiveWrapper`` around a causal ``RoutingTransformerLM``: the next-token loss plus the
  auxiliary loss (with random truncation, with local heads through its ``Autopadder``) and ``generate`` (2
  tokens from a 4-token prompt, top-k or top-p filtering); a training step that updates the k-means by hand
  (``_register_kmeans_update=False``, then ``update_kmeans()`` after the loss);
- ``ENCDEC``: ``RoutingTransformerEncDec``: the decoder's loss plus the encoder's auxiliary loss (with the
  encoder's mask) and ``generate``.

Random weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SEQ, DIM, HEADS, DIM_HEAD, WINDOW, TOKENS, CONTEXT = 2, 32, 32, 4, 8, 8, 64, 16
SMALL = {"dim": DIM, "depth": 1, "max_seq_len": SEQ, "heads": HEADS, "dim_head": DIM_HEAD, "window_size": WINDOW}
LM_SMALL = {**SMALL, "num_tokens": TOKENS}
LOCAL = {"n_local_attn_heads": 2}

# Name -> (``RoutingTransformerLM`` keywords, forward inputs: "input_mask" (a padding mask), "context" (an
# encoder's context and its ``context_mask``)).
LM: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "RoutingTransformerLM": ({}, ()),
    "RoutingTransformerLM.causal": ({"causal": True}, ()),
    "RoutingTransformerLM.window_4": ({"window_size": 4}, ()),
    "RoutingTransformerLM.n_local_attn_heads": ({**LOCAL}, ()),
    "RoutingTransformerLM.n_local_attn_heads.causal": ({**LOCAL, "causal": True}, ()),
    "RoutingTransformerLM.n_local_attn_heads.per_layer": ({"depth": 2, "n_local_attn_heads": (HEADS, 2)}, ()),
    "RoutingTransformerLM.reversible": ({"reversible": True}, ()),
    "RoutingTransformerLM.weight_tie": ({"depth": 2, "weight_tie": True}, ()),
    "RoutingTransformerLM.tie_embedding": ({"tie_embedding": True}, ()),
    "RoutingTransformerLM.emb_dim": ({"emb_dim": 16}, ()),
    "RoutingTransformerLM.ff_glu.dropout": ({"ff_glu": True, "attn_dropout": 0.1, "ff_dropout": 0.1,
                                             "attn_layer_dropout": 0.1}, ()),
    "RoutingTransformerLM.shared_qk": ({"shared_qk": True}, ()),
    "RoutingTransformerLM.causal.separate_qk": ({"causal": True, "shared_qk": False}, ()),
    "RoutingTransformerLM.use_rezero": ({"use_rezero": True}, ()),
    "RoutingTransformerLM.use_scale_norm": ({"use_scale_norm": True}, ()),
    "RoutingTransformerLM.shift_tokens.causal": ({"shift_tokens": True, "causal": True}, ()),
    "RoutingTransformerLM.layer_dropout": ({"depth": 2, "layer_dropout": 0.1}, ()),
    "RoutingTransformerLM.moe_layers": ({"depth": 2, "moe_layers": (2,), "moe_num_experts": 2}, ()),
    "RoutingTransformerLM.input_mask": ({}, ("input_mask",)),
    "RoutingTransformerLM.receives_context": ({"receives_context": True, "causal": True}, ("context",)),
}
# Name -> (``RoutingTransformer`` keywords, forward inputs as in ``LM``), on embeddings of width ``DIM``.
TRANSFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "RoutingTransformer.causal.reversible": ({"causal": True, "reversible": True}, ()),
}
# Name -> (class, keywords, forward inputs: "context" (keys and values longer than the queries), "masks",
# "update_means"). ``KmeansAttention`` takes queries, keys and values split into heads.
ATTENTION: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "KmeansAttention": ("KmeansAttention", {}, ()),
    "KmeansAttention.causal": ("KmeansAttention", {"causal": True}, ()),
    "KmeansAttention.causal.shared_qk": ("KmeansAttention", {"causal": True, "shared_qk": True}, ()),
    "KmeansAttention.receives_context": ("KmeansAttention", {"receives_context": True, "context_window_size": 4},
                                         ("context",)),
    "KmeansAttention.masks": ("KmeansAttention", {"num_mem_kv": 2}, ("masks",)),
    "Kmeans": ("Kmeans", {}, ()),
    "Kmeans.update_means": ("Kmeans", {}, ("update_means",)),
}
# Name -> (call, options): "loss" (the wrapper's forward with ``return_loss``), "truncate", "local" (at a length
# its ``Autopadder`` pads), "top_p"; "update_kmeans" (the training step of a manual k-means update).
WRAPPER: dict[str, tuple[str, tuple[str, ...]]] = {
    "AutoregressiveWrapper.loss": ("loss", ()),
    "AutoregressiveWrapper.loss.randomly_truncate_sequence": ("loss", ("truncate",)),
    "AutoregressiveWrapper.loss.n_local_attn_heads": ("loss", ("local",)),
    "AutoregressiveWrapper.generate": ("generate", ()),
    "AutoregressiveWrapper.generate.top_p": ("generate", ("top_p",)),
    "RoutingTransformerLM.update_kmeans": ("update_kmeans", ()),
}
ENCDEC = ("RoutingTransformerEncDec.loss", "RoutingTransformerEncDec.generate")


def names() -> list[str]:
    return list(LM) + list(TRANSFORMER) + list(ATTENTION) + list(WRAPPER) + list(ENCDEC)


def _tokens(length: int = SEQ, seed: int = 0) -> Any:
    return gt_inputs.tokens(TOKENS, BATCH, length, seed=seed)


def _padding_mask(length: int = SEQ) -> Any:
    """A padding mask: the second sequence's last quarter is padding."""
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, length - length // 4:] = False
    return mask


def _inputs(options: tuple[str, ...]) -> dict[str, Any]:
    import torch

    kwargs: dict[str, Any] = {}
    if "input_mask" in options:
        kwargs["input_mask"] = _padding_mask()
    if "context" in options:
        kwargs["context"] = torch.randn(BATCH, CONTEXT, DIM, generator=torch.Generator().manual_seed(1))
        kwargs["context_mask"] = _padding_mask(CONTEXT)
    return kwargs


def _lm(name: str) -> Built:
    from routing_transformer import RoutingTransformerLM

    keywords, options = LM[name]
    return RoutingTransformerLM(**{**LM_SMALL, **keywords}), (_tokens(),), _inputs(options)


def _transformer(name: str) -> Built:
    import torch
    from routing_transformer import RoutingTransformer

    keywords, options = TRANSFORMER[name]
    x = torch.randn(BATCH, SEQ, DIM, generator=torch.Generator().manual_seed(2))
    return RoutingTransformer(**{**SMALL, **keywords}), (x,), _inputs(options)


def _attention(name: str) -> Built:
    import torch
    from routing_transformer import KmeansAttention
    from routing_transformer.routing_transformer import Kmeans

    cls, keywords, options = ATTENTION[name]
    gen = torch.Generator().manual_seed(3)
    clusters, heads = SEQ // WINDOW, 2
    if cls == "Kmeans":
        x = torch.randn(BATCH, heads, SEQ, DIM_HEAD, generator=gen)
        return Kmeans(heads, DIM_HEAD, clusters), (x,), {"update_means": "update_means" in options}
    kv_length = CONTEXT if "context" in options else SEQ
    q = torch.randn(BATCH, heads, SEQ, DIM_HEAD, generator=gen)
    k, v = (torch.randn(BATCH, heads, kv_length, DIM_HEAD, generator=gen) for _ in range(2))
    kwargs: dict[str, Any] = {}
    if "masks" in options:
        kwargs = {"query_mask": _padding_mask(), "key_mask": _padding_mask()}
    return KmeansAttention(clusters, WINDOW, heads, DIM_HEAD, **keywords), (q, k, v), kwargs


def _wrapper(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from routing_transformer import AutoregressiveWrapper, RoutingTransformerLM
    from routing_transformer.autoregressive_wrapper import top_p
    from torch import nn

    from gt_calls import Method

    call, options = WRAPPER[name]
    keywords: dict[str, Any] = {**LM_SMALL, "causal": True}
    if "local" in options:
        keywords.update(LOCAL)
    if call == "update_kmeans":
        lm = RoutingTransformerLM(**keywords, _register_kmeans_update=False)

        class _TrainStep(nn.Module):
            """A training step with a manual k-means update: the next-token loss plus the
            auxiliary loss, then ``update_kmeans()`` (after the backward pass there), in train mode only,
            where the forward has computed new means."""

            def __init__(self) -> None:
                super().__init__()
                self.lm = lm

            def forward(self, x: torch.Tensor) -> Any:
                logits, aux_loss = self.lm(x[:, :-1])
                loss = F.cross_entropy(logits.transpose(1, 2), x[:, 1:]) + aux_loss
                if self.training:
                    self.lm.update_kmeans()
                return loss

            def entry_points(self) -> list[Any]:
                return [RoutingTransformerLM, RoutingTransformerLM.update_kmeans]

        return _TrainStep(), (_tokens(SEQ + 1),), {}
    lm = RoutingTransformerLM(**keywords)
    wrapper = AutoregressiveWrapper(lm)
    if call == "loss":
        length = SEQ - 2 if "local" in options else SEQ
        kwargs: dict[str, Any] = {"return_loss": True, "randomly_truncate_sequence": "truncate" in options}
        return wrapper, (_tokens(length + 1),), kwargs
    static: dict[str, Any] = {"seq_len": 2}
    if "top_p" in options:
        static.update(filter_logits_fn=top_p, filter_thres=0.9)
    return Method(wrapper, "generate", **static), (_tokens(4),), {}


def _encdec(name: str) -> Built:
    from routing_transformer import RoutingTransformerEncDec

    from gt_calls import Method

    model = RoutingTransformerEncDec(dim=DIM, enc_num_tokens=TOKENS, enc_depth=1, enc_heads=HEADS,
                                     enc_dim_head=DIM_HEAD, enc_max_seq_len=SEQ, enc_window_size=WINDOW,
                                     dec_num_tokens=TOKENS, dec_depth=1, dec_heads=HEADS, dec_dim_head=DIM_HEAD,
                                     dec_max_seq_len=SEQ, dec_window_size=WINDOW)
    source = _tokens(SEQ, seed=4)
    if name == "RoutingTransformerEncDec.loss":
        return model, (source, _tokens(SEQ + 1, seed=5)), {"return_loss": True, "enc_input_mask": _padding_mask()}
    return Method(model, "generate", max_seq_len=2), (source, _tokens(4, seed=5)), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LM:
        return _lm(name)
    if name in TRANSFORMER:
        return _transformer(name)
    if name in ATTENTION:
        return _attention(name)
    if name in WRAPPER:
        return _wrapper(name)
    return _encdec(name)
