"""Ground-truth bench, gateloop_transformer (gateloop-transformer): the GateLoop transformer and its gate loop layers.

gateloop-transformer (lucidrains) implements GateLoop (Katsch, 2023): linear attention whose key-value
state is carried along the sequence by data-controlled, complex-valued state transitions, computed in
parallel by an associative scan (a PyTorch port of ``jax.lax.associative_scan``, recursive over halves
of the sequence, so odd and even lengths take different branches). It exports ``Transformer`` (a
language model: token embedding, ``depth`` layers of a spatial mixer and a feed-forward under
``PreNorm`` or ``PostNorm``, logits, or the next-token cross-entropy with ``return_loss=True``), whose
spatial mixer is ``GateLoopedAttention`` (``use_gate_looped_attn=True``, the default, with
``torch.utils.checkpoint`` around the gate loop operator when gradients are needed and
``checkpoint_gate_looped_attn`` is on) or ``CausalFullAttention`` (softmax attention, optionally with
rotary embeddings and a data-dependent relative position made of cumulative complex products); and
``SimpleGateLoopLayer`` (a real-valued gate loop, one state a channel, by the associative scan or by
Heinsen sequences, with a cache of the last state for streaming). So each model is one of:

- ``TRANSFORMERS``: ``Transformer`` at dim 16 (vocabulary 32, one layer unless named, a batch of 2
  sequences of 8 tokens, or 6 for a scan that mixes odd and even halves) returning logits or the loss:
  gate looped attention with and without checkpointing, gate loop heads and a wider inner dimension,
  no swish gating (with the identity or a projection out), ``sub_ln``, ``post_ln_norm``,
  ``ablate_complex`` and ``ablate_state_transition`` (set at construction or given at the call), two
  layers at the default ``ff_mult``; full attention plain, with rotary embeddings, without gating, with
  the data-dependent relative position (unnormalized, softmax-normalized, ablated), post-norm, more
  heads; and a bench greedy decoding loop (three tokens, each a full forward: the library has no cache
  for ``Transformer``) for both mixers;
- ``MODULES``: ``GateLoopedAttention`` and ``CausalFullAttention`` alone in the same configurations;
- ``SIMPLE``: ``SimpleGateLoopLayer`` (plain, odd length, Heinsen, no prenorm with post layer norm,
  reversed, returning its cache, continuing from a cache, Heinsen from a cache), a bench streaming loop
  that feeds it one token at a time with its cache (both scans), and a bench train step (a small language
  model of two such layers with a cross-entropy loss);
- ``FUNCTIONS``: ``associative_scan`` (even and odd lengths, the scripted ``binary_operator``),
  ``pad_at_dim``, the complex ``gate_loop_operator`` of ``gateloop_transformer.gateloop_transformer``,
  and ``gate_loop_operator`` (both scans, with a cache), ``heinsen_associative_scan`` and
  ``abs_clamp_eps`` of ``simplified_gate_loop``, through ``gt_calls.Call``.

Left out: ``use_jax_associative_scan`` (it needs jax and jax2torch) and the module
``gateloop_transformer_jax`` (jax only); options that only change a number
(``frac_gradient_state_transition``). Random weights, nothing downloaded. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, BATCH, SEQ, VOCAB, HEADS, DIM_HEAD = 16, 2, 8, 32, 2, 8
BASE: dict[str, Any] = {"dim": DIM, "num_tokens": VOCAB, "depth": 1, "dim_head": DIM_HEAD, "heads": HEADS,
                        "ff_mult": 2, "checkpoint_gate_looped_attn": False}
ATTN: dict[str, Any] = {"use_gate_looped_attn": False}
DDRP: dict[str, Any] = {**ATTN, "data_dependent_rel_pos": True}
LOSS: dict[str, Any] = {"return_loss": True}

# ``Transformer`` name -> (constructor keywords over ``BASE``, call keywords, sequence length). With
# ``return_loss`` the model sees one token fewer than the sequence (the labels are shifted).
TRANSFORMERS: dict[str, tuple[dict[str, Any], dict[str, Any], int]] = {
    "Transformer.gate_loop": ({}, {}, SEQ),
    "Transformer.gate_loop.return_loss": ({}, LOSS, SEQ),
    "Transformer.gate_loop.seq6": ({}, {}, 6),
    "Transformer.gate_loop.checkpoint.return_loss": ({"checkpoint_gate_looped_attn": True}, LOSS, SEQ),
    "Transformer.gate_loop.heads": ({"gate_loop_heads": 2, "dim_gate_looped_attn": 32}, {}, SEQ),
    "Transformer.gate_loop.no_swish_gating": ({"attn_add_swish_gating": False}, {}, SEQ),
    "Transformer.gate_loop.no_swish_gating.dim_inner": ({"attn_add_swish_gating": False, "dim_gate_looped_attn": 32},
                                                        LOSS, SEQ),
    "Transformer.gate_loop.sub_ln": ({"sub_ln": True}, {}, SEQ),
    "Transformer.gate_loop.post_ln_norm.return_loss": ({"post_ln_norm": True}, LOSS, SEQ),
    "Transformer.gate_loop.ablate_complex": ({"ablate_complex": True}, {}, SEQ),
    "Transformer.gate_loop.ablate_state_transition": ({"ablate_state_transition": True}, LOSS, SEQ),
    "Transformer.gate_loop.call_ablate": ({}, {"ablate_complex": True, "ablate_state_transition": False}, SEQ),
    "Transformer.gate_loop.depth2.ff_mult4.return_loss": ({"depth": 2, "ff_mult": 4}, LOSS, SEQ),
    "Transformer.attn": (ATTN, {}, SEQ),
    "Transformer.attn.return_loss": (ATTN, LOSS, SEQ),
    "Transformer.attn.rotary_emb": ({**ATTN, "rotary_emb": True}, LOSS, SEQ),
    "Transformer.attn.no_swish_gating": ({**ATTN, "attn_add_swish_gating": False}, {}, SEQ),
    "Transformer.attn.data_dependent_rel_pos": (DDRP, LOSS, SEQ),
    "Transformer.attn.data_dependent_rel_pos.softmax": ({**DDRP, "attn_softmax_normalize": True}, {}, SEQ),
    "Transformer.attn.data_dependent_rel_pos.ablate_complex": ({**DDRP, "ablate_complex": True}, {}, SEQ),
    "Transformer.attn.data_dependent_rel_pos.call_ablate_state_transition": (DDRP, {"ablate_state_transition": True},
                                                                             SEQ),
    "Transformer.attn.post_ln_norm.return_loss": ({**ATTN, "post_ln_norm": True}, LOSS, SEQ),
    "Transformer.attn.heads4.ff_mult1": ({**ATTN, "heads": 4, "dim_head": 4, "ff_mult": 1}, {}, SEQ),
}
# Bench greedy decoding loops: name -> constructor keywords over ``BASE``.
DECODE: dict[str, dict[str, Any]] = {
    "Transformer.gate_loop.greedy_decode": {},
    "Transformer.attn.greedy_decode": {**ATTN, "rotary_emb": True},
}
# Layer name -> (class of ``gateloop_transformer``, constructor keywords, call keywords).
MODULES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "GateLoopedAttention": ("GateLoopedAttention", {"checkpoint_gate_looped_attn": False}, {}),
    "GateLoopedAttention.checkpoint": ("GateLoopedAttention", {}, {}),
    "GateLoopedAttention.heads.sub_ln": ("GateLoopedAttention", {"heads": 2, "sub_ln": True,
                                                                 "checkpoint_gate_looped_attn": False}, {}),
    "GateLoopedAttention.call_ablate_complex": ("GateLoopedAttention", {"checkpoint_gate_looped_attn": False},
                                                {"ablate_complex": True}),
    "GateLoopedAttention.call_ablate_state_transition": ("GateLoopedAttention",
                                                         {"checkpoint_gate_looped_attn": False,
                                                          "add_swish_gating": False},
                                                         {"ablate_state_transition": True}),
    "CausalFullAttention": ("CausalFullAttention", {"dim_head": DIM_HEAD, "heads": HEADS}, {}),
    "CausalFullAttention.rotary_emb.data_dependent_rel_pos": ("CausalFullAttention",
                                                              {"dim_head": DIM_HEAD, "heads": HEADS,
                                                               "rotary_emb": True, "data_dependent_rel_pos": True},
                                                              {}),
    "CausalFullAttention.swish_gating.softmax_normalize": ("CausalFullAttention",
                                                           {"dim_head": DIM_HEAD, "heads": HEADS,
                                                            "add_swish_gating": True, "data_dependent_rel_pos": True,
                                                            "softmax_normalize": True}, {}),
    "CausalFullAttention.call_ablate_complex": ("CausalFullAttention",
                                                {"dim_head": DIM_HEAD, "heads": HEADS, "data_dependent_rel_pos": True},
                                                {"ablate_complex": True}),
}
# ``SimpleGateLoopLayer`` name -> (constructor keywords, what runs: "forward", "odd", "return_cache",
# "cache" (continue from the cache of a 4-token prefix), "stream" (a bench loop, one token at a time)).
SIMPLE: dict[str, tuple[dict[str, Any], str]] = {
    "SimpleGateLoopLayer": ({}, "forward"),
    "SimpleGateLoopLayer.odd_length": ({}, "odd"),
    "SimpleGateLoopLayer.heinsen": ({"use_heinsen": True}, "forward"),
    "SimpleGateLoopLayer.no_prenorm.post_ln": ({"prenorm": False, "post_ln": True}, "forward"),
    "SimpleGateLoopLayer.reverse": ({"reverse": True}, "odd"),
    "SimpleGateLoopLayer.return_cache": ({}, "return_cache"),
    "SimpleGateLoopLayer.heinsen.return_cache": ({"use_heinsen": True}, "return_cache"),
    "SimpleGateLoopLayer.cache": ({}, "cache"),
    "SimpleGateLoopLayer.heinsen.cache": ({"use_heinsen": True}, "cache"),
    "SimpleGateLoopLayer.streaming": ({}, "stream"),
    "SimpleGateLoopLayer.heinsen.streaming": ({"use_heinsen": True}, "stream"),
}
FUNCTIONS = ("associative_scan", "associative_scan.odd", "associative_scan.python_operator", "pad_at_dim",
             "gate_loop_operator.complex", "gate_loop_operator", "gate_loop_operator.heinsen",
             "gate_loop_operator.cache", "heinsen_associative_scan", "abs_clamp_eps")
TRAIN = ("train_step.SimpleGateLoopLayer",)


def names() -> list[str]:
    return (list(TRANSFORMERS) + list(DECODE) + list(MODULES) + list(SIMPLE) + list(FUNCTIONS) + list(TRAIN))


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _ids(length: int, seed: int = 2) -> Any:
    import torch

    return torch.randint(0, VOCAB, (BATCH, length), generator=torch.Generator().manual_seed(seed))


def _decode(name: str) -> Built:
    import torch
    from gateloop_transformer import Transformer
    from gt_calls import Run

    model = Transformer(**{**BASE, **DECODE[name]})

    def greedy(owner: Any, ids: torch.Tensor) -> torch.Tensor:
        for _ in range(3):
            logits = owner(ids)
            ids = torch.cat((ids, logits[:, -1].argmax(dim=-1, keepdim=True)), dim=-1)
        return ids

    return Run(model, greedy, [Transformer]), (_ids(4),), {}


def _simple(name: str) -> Built:
    import torch
    from gateloop_transformer import SimpleGateLoopLayer
    from gt_calls import Keywords, Run

    keywords, kind = SIMPLE[name]
    layer = SimpleGateLoopLayer(DIM, **keywords)
    if kind == "forward":
        return layer, (_randn(BATCH, SEQ, DIM),), {}
    if kind == "odd":
        return layer, (_randn(BATCH, 7, DIM),), {}
    if kind == "return_cache":
        return layer, (_randn(BATCH, SEQ, DIM),), {"return_cache": True}
    if kind == "cache":
        with torch.no_grad():
            _, cache = layer(_randn(BATCH, 4, DIM, seed=3), return_cache=True)
        return Keywords(layer, cache=cache, return_cache=True), (_randn(BATCH, 4, DIM),), {}

    def stream(owner: Any, x: torch.Tensor) -> torch.Tensor:
        cache = None
        outs = []
        for i in range(x.shape[1]):
            out, cache = owner(x[:, i:i + 1], cache=cache, return_cache=True)
            outs.append(out)
        return torch.cat(outs, dim=1)

    return Run(layer, stream, [SimpleGateLoopLayer]), (_randn(BATCH, 4, DIM),), {}


def _function(name: str) -> Built:
    import torch
    from gateloop_transformer import associative_scan as scan
    from gateloop_transformer import gateloop_transformer as gt
    from gateloop_transformer import simplified_gate_loop as sgl
    from gt_calls import Call, Run

    channels = BATCH * DIM
    a = _randn(channels, SEQ, 1, seed=3).sigmoid()
    kv = _randn(channels, SEQ, 1, seed=4)
    q = _randn(channels, SEQ, 1, seed=5)
    if name.startswith("associative_scan"):
        def add_operator(x: Any, y: Any) -> Any:
            return [x[0] + y[0], torch.maximum(x[1], y[1])]

        def run(operator: Any, first: torch.Tensor, second: torch.Tensor) -> Any:
            return scan.associative_scan(operator, (first, second))

        length = {"associative_scan": SEQ, "associative_scan.odd": 7}.get(name, 6)
        operator = add_operator if name.endswith("python_operator") else sgl.binary_operator
        return Run(operator, run, [scan.associative_scan]), (a[:, :length], kv[:, :length]), {}
    if name == "pad_at_dim":
        return Call(scan.pad_at_dim, pad=(0, 1), dim=1), (kv,), {}
    if name == "gate_loop_operator.complex":
        heads_batch, dim_head = BATCH * HEADS, DIM_HEAD
        qc, kc, vc = (_randn(heads_batch, SEQ, dim_head, seed=s) for s in (6, 7, 8))
        ac = torch.polar(_randn(heads_batch, SEQ, 1, 1, seed=9).sigmoid(), _randn(heads_batch, SEQ, 1, 1, seed=10))
        return Call(gt.gate_loop_operator), (qc, kc, vc, ac), {}
    if name == "gate_loop_operator":
        return Call(sgl.gate_loop_operator), (q, kv, a), {}
    if name == "gate_loop_operator.heinsen":
        return Call(sgl.gate_loop_operator, heinsen=True), (q, kv, a), {}
    if name == "gate_loop_operator.cache":
        cache = (_randn(channels, 1, seed=11).sigmoid(), _randn(channels, 1, seed=12))
        return Call(sgl.gate_loop_operator, cache=cache), (q, kv, a), {}
    if name == "heinsen_associative_scan":
        return Call(sgl.heinsen_associative_scan), (a, kv), {}
    return Call(sgl.abs_clamp_eps), (kv,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from gateloop_transformer import SimpleGateLoopLayer
    from torch import nn

    class GateLoopLM(nn.Module):
        """Embeddings, two residual gate loop layers with feed-forwards, a vocabulary head."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, DIM)
            self.layers = nn.ModuleList([SimpleGateLoopLayer(DIM), SimpleGateLoopLayer(DIM, use_heinsen=True)])
            self.ff = nn.Sequential(nn.Linear(DIM, 2 * DIM), nn.GELU(), nn.Linear(2 * DIM, DIM))
            self.head = nn.Linear(DIM, VOCAB)

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            x = self.embed(ids)
            for layer in self.layers:
                x = layer(x) + x
                x = self.ff(x) + x
            return self.head(x)

    class _TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = GateLoopLM()

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            logits = self.model(ids[:, :-1])
            return F.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))

        def entry_points(self) -> list[Any]:
            return [SimpleGateLoopLayer]

    return _TrainStep(), (_ids(SEQ + 1),), {}


def build(name: str) -> Built:
    import warnings

    import gateloop_transformer
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in TRANSFORMERS:
        keywords, call, length = TRANSFORMERS[name]
        return gateloop_transformer.Transformer(**{**BASE, **keywords}), (_ids(length),), dict(call)
    if name in DECODE:
        return _decode(name)
    if name in MODULES:
        cls, keywords, call = MODULES[name]
        return getattr(gateloop_transformer, cls)(DIM, **keywords), (_randn(BATCH, SEQ, DIM),), dict(call)
    if name in SIMPLE:
        return _simple(name)
    if name in FUNCTIONS:
        return _function(name)
    return _train(name)
