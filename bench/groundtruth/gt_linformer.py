"""Ground-truth bench, linformer: Linformer self-attention (Wang et al. 2020), its encoder and language model.

linformer 0.2.3 (lucidrains) exports ``LinformerSelfAttention`` (keys and values projected along the sequence
to ``k`` rows by learned ``seq_len`` x ``k`` matrices, sliced when the input is shorter; one key / value head or
one per head; keys shared as values; a context for cross attention), ``Linformer`` (pre-norm attention and
feedforward layers run by a ``SequentialSequence`` or, reversible, by a ``ReversibleSequence`` over a custom
autograd function) and ``LinformerLM`` (token and position embeddings, the encoder, a logits head). The tables
cover, at width 16, 2 or 4 heads, ``seq_len`` 16, ``k`` 8, a batch of 2:

- ``ATTENTION``: ``LinformerSelfAttention`` forward: the default, one head, ``dim_head`` other than the width's
  share, ``one_kv_head``, ``share_kv``, both, dropout, a sequence shorter than ``seq_len``, a context (cross
  attention, as long as ``seq_len`` or shorter, with ``one_kv_head`` and ``share_kv``);
- ``ENCODER``: ``Linformer`` forward: one and two layers, reversible or not, ``one_kv_head``, ``share_kv``,
  dropout, a shorter sequence;
- ``LM``: ``LinformerLM`` forward with the same options;
- ``TRAIN``: training steps (bench code holding the library model): ``LinformerLM``'s next-token cross-entropy,
  ``backward()`` and an Adam step (sequential, reversible, ``share_kv`` with ``one_kv_head``, dropout, a
  shorter sequence); ``Linformer``'s regression loss through a linear stem (sequential and reversible; the
  reversible function's backward runs the blocks' ``backward_pass`` again);
- ``PARTS``: ``FeedForward`` (GELU, gated, the tanh ``GELU_``, dropout), ``PreNorm``, ``Residual``,
  ``SequentialSequence`` and ``ReversibleSequence`` with an argument route (a context routed to the attention
  layers) and layer dropout (``layer_drop``), ``ReversibleBlock`` forward and ``backward_pass``, ``Deterministic``
  recording and replaying the RNG, and ``route_args`` through ``gt_calls.Run``.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, SEQ, K, HEADS, TOKENS, SHORT = 2, 16, 16, 8, 4, 32, 12
BASE: dict[str, Any] = {"seq_len": SEQ, "k": K, "heads": HEADS}
# ``LinformerSelfAttention`` name -> (keywords over ``BASE``, sequence length, context length or None).
ATTENTION: dict[str, tuple[dict[str, Any], int, int | None]] = {
    "LinformerSelfAttention": ({}, SEQ, None),
    "LinformerSelfAttention.heads1": ({"heads": 1}, SEQ, None),
    "LinformerSelfAttention.dim_head": ({"dim_head": 6}, SEQ, None),
    "LinformerSelfAttention.one_kv_head": ({"one_kv_head": True}, SEQ, None),
    "LinformerSelfAttention.share_kv": ({"share_kv": True}, SEQ, None),
    "LinformerSelfAttention.one_kv_head.share_kv": ({"one_kv_head": True, "share_kv": True}, SEQ, None),
    "LinformerSelfAttention.dropout": ({"dropout": 0.1}, SEQ, None),
    "LinformerSelfAttention.short": ({}, SHORT, None),
    "LinformerSelfAttention.short.share_kv": ({"share_kv": True}, SHORT, None),
    "LinformerSelfAttention.k_eq_seq": ({"k": SEQ}, SEQ, None),
    "LinformerSelfAttention.context": ({}, 6, SEQ),
    "LinformerSelfAttention.context.short": ({}, SEQ, SHORT),
    "LinformerSelfAttention.context.one_kv_head": ({"one_kv_head": True}, 8, SEQ),
    "LinformerSelfAttention.context.share_kv.dropout": ({"share_kv": True, "dropout": 0.1}, 8, SHORT),
}
# ``Linformer`` / ``LinformerLM`` name suffix -> (keywords over ``BASE`` with depth, sequence length).
OPTIONS: dict[str, tuple[dict[str, Any], int]] = {
    "": ({"depth": 1}, SEQ),
    ".depth2": ({"depth": 2}, SEQ),
    ".reversible": ({"depth": 2, "reversible": True}, SEQ),
    ".one_kv_head": ({"depth": 1, "one_kv_head": True}, SEQ),
    ".share_kv": ({"depth": 1, "share_kv": True}, SEQ),
    ".one_kv_head.share_kv.reversible": ({"depth": 1, "one_kv_head": True, "share_kv": True, "reversible": True},
                                         SEQ),
    ".dropout": ({"depth": 2, "dropout": 0.1}, SEQ),
    ".reversible.dropout": ({"depth": 2, "reversible": True, "dropout": 0.1}, SEQ),
    ".short": ({"depth": 1}, SHORT),
    ".reversible.short": ({"depth": 1, "reversible": True}, SHORT),
    ".dim_head.heads2": ({"depth": 1, "heads": 2, "dim_head": 4}, SEQ),
}
ENCODER = {f"Linformer{suffix}": option for suffix, option in OPTIONS.items()}
LM = {f"LinformerLM{suffix}": option for suffix, option in OPTIONS.items()}
# Training step name -> (model: "lm" or "encoder", keywords over ``BASE``, sequence length).
TRAIN: dict[str, tuple[str, dict[str, Any], int]] = {
    "train.LinformerLM": ("lm", {"depth": 2}, SEQ),
    "train.LinformerLM.reversible": ("lm", {"depth": 2, "reversible": True}, SEQ),
    "train.LinformerLM.one_kv_head.share_kv": ("lm", {"depth": 1, "one_kv_head": True, "share_kv": True}, SEQ),
    "train.LinformerLM.dropout": ("lm", {"depth": 1, "dropout": 0.1}, SEQ),
    "train.LinformerLM.short": ("lm", {"depth": 1}, SHORT),
    "train.LinformerLM.reversible.dropout": ("lm", {"depth": 1, "reversible": True, "dropout": 0.1}, SEQ),
    "train.Linformer": ("encoder", {"depth": 1}, SEQ),
    "train.Linformer.reversible": ("encoder", {"depth": 2, "reversible": True}, SEQ),
}
PARTS = ("FeedForward", "FeedForward.glu", "FeedForward.GELU_", "FeedForward.dropout", "PreNorm", "Residual",
         "SequentialSequence.route", "SequentialSequence.layer_dropout", "ReversibleSequence.route",
         "ReversibleSequence.layer_dropout", "ReversibleBlock", "ReversibleBlock.backward_pass",
         "Deterministic.record_rng", "Deterministic.set_rng", "route_args")


def names() -> list[str]:
    return [*ATTENTION, *ENCODER, *LM, *TRAIN, *PARTS]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _ids(length: int, seed: int = 1) -> Any:
    import torch

    return torch.randint(0, TOKENS, (BATCH, length), generator=torch.Generator().manual_seed(seed))


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import Run
    from linformer import Linformer, LinformerLM

    kind, keywords, length = TRAIN[name]
    if kind == "lm":
        model: nn.Module = LinformerLM(TOKENS, DIM, **{**BASE, **keywords})
        entries: list[Any] = [LinformerLM]

        def loss_of(owner: Any, ids: Any) -> Any:
            logits = owner(ids[:, :-1])
            return F.cross_entropy(logits.transpose(1, 2), ids[:, 1:])

        inputs: tuple[Any, ...] = (_ids(length + 1),)
        # The LM sees ``length`` tokens: its position embedding and projections are sized for ``SEQ``.
    else:
        # A linear stem before it: the reversible function's output needs an input that requires grad.
        model = nn.Sequential(nn.Linear(DIM, DIM), Linformer(DIM, **{**BASE, **keywords}))
        entries = [Linformer]

        def loss_of(owner: Any, x: Any, target: Any) -> Any:
            return F.mse_loss(owner(x), target)

        inputs = (_randn(BATCH, length, DIM), _randn(BATCH, length, DIM, seed=2))
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


def _part(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Keywords, Run
    from linformer import linformer as lf
    from linformer import reversible as rev

    x = _randn(BATCH, SEQ, DIM)
    if name.startswith("FeedForward"):
        keywords: dict[str, Any] = {"mult": 2}
        if name.endswith("glu"):
            keywords["glu"] = True
        if name.endswith("GELU_"):
            keywords["activation"] = lf.GELU_
        if name.endswith("dropout"):
            keywords["dropout"] = 0.1
        return lf.FeedForward(DIM, **keywords), (x,), {}
    if name == "PreNorm":
        return lf.PreNorm(DIM, lf.FeedForward(DIM, mult=2)), (x,), {}
    if name == "Residual":
        return lf.Residual(lf.PreNorm(DIM, lf.LinformerSelfAttention(DIM, **BASE))), (x,), {}

    class ContextAttention(nn.Module):
        """Pre-norm attention that takes the routed ``context`` (the library's ``PreNorm`` drops keywords)."""

        def __init__(self, dim: int) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(dim)
            self.attention = lf.LinformerSelfAttention(dim, **BASE)

        def forward(self, x: Any, context: Any = None) -> Any:
            return self.attention(self.norm(x), context=context)

    def layers(depth: int = 2) -> Any:
        return nn.ModuleList([nn.ModuleList([ContextAttention(DIM),
                                             lf.PreNorm(DIM, lf.FeedForward(DIM, mult=2))])
                              for _ in range(depth)])

    route = {"context": ((True, False), (True, False))}
    context = _randn(BATCH, SEQ, DIM, seed=3)
    if name == "SequentialSequence.route":
        return Keywords(rev.SequentialSequence(layers(), args_route=route), context=context), (x,), {}
    if name == "SequentialSequence.layer_dropout":
        return rev.SequentialSequence(layers(), layer_dropout=0.5), (x,), {}
    if name == "ReversibleSequence.route":
        return Keywords(rev.ReversibleSequence(layers(), args_route=route), context=context), (x,), {}
    if name == "ReversibleSequence.layer_dropout":
        return rev.ReversibleSequence(layers(), layer_dropout=0.5), (x,), {}
    block = rev.ReversibleBlock(lf.PreNorm(DIM // 2, lf.FeedForward(DIM // 2, mult=2)),
                                lf.PreNorm(DIM // 2, lf.FeedForward(DIM // 2, mult=2, dropout=0.1)))
    if name == "ReversibleBlock":
        return block, (x,), {}
    if name == "ReversibleBlock.backward_pass":
        def backward_pass(owner: Any, y: Any, dy: Any) -> Any:
            with torch.enable_grad():
                owner.f.record_rng(y)  # what the forward pass records in train mode
                owner.g.record_rng(y)
                return owner.backward_pass(y.detach(), dy)

        return Run(block, backward_pass, [rev.ReversibleBlock.backward_pass]), (x, _randn(BATCH, SEQ, DIM, seed=2)), {}
    if name.startswith("Deterministic"):
        deterministic = rev.Deterministic(lf.FeedForward(DIM, mult=2, dropout=0.2))
        if name.endswith("record_rng"):
            return Keywords(deterministic, record_rng=True), (x,), {}

        def replay(owner: Any, inputs: Any) -> Any:
            first = owner(inputs, record_rng=True)
            return first - owner(inputs, set_rng=True)

        return Run(deterministic, replay, [rev.Deterministic]), (x,), {}
    if name == "route_args":
        def routed(owner: Any, inputs: Any, ctx: Any) -> Any:
            args = rev.route_args({"context": ((True, False), (False, True))}, {"context": ctx, "mask": None}, 2)
            total = inputs
            for f_args, g_args in args:
                for value in (*f_args.values(), *g_args.values()):
                    total = total + value
            return total

        return Run(nn.Identity(), routed, [rev.route_args]), (x, context), {}
    raise KeyError(name)


def build(name: str) -> Built:
    import torch

    from linformer import Linformer, LinformerLM, LinformerSelfAttention

    torch.manual_seed(0)
    if name in ATTENTION:
        keywords, length, context = ATTENTION[name]
        attention = LinformerSelfAttention(DIM, **{**BASE, **keywords})
        kwargs = {} if context is None else {"context": _randn(BATCH, context, DIM, seed=2)}
        return attention, (_randn(BATCH, length, DIM),), kwargs
    if name in ENCODER:
        keywords, length = ENCODER[name]
        return Linformer(DIM, **{**BASE, **keywords}), (_randn(BATCH, length, DIM),), {}
    if name in LM:
        keywords, length = LM[name]
        return LinformerLM(TOKENS, DIM, **{**BASE, **keywords}), (_ids(length),), {}
    if name in TRAIN:
        return _train(name)
    if name in PARTS:
        return _part(name)
    raise KeyError(name)
