"""Ground-truth bench, h_transformer_1d: the hierarchical attention transformer (H-Transformer-1D, Zhu & Soricut 2021).

h-transformer-1d 0.1.9 (lucidrains) approximates full attention hierarchically: the sequence is padded to a power
of two, queries and keys are mean-coarsened (values summed) level by level, each level attends within blocks to
its off-diagonal neighbour block (``flip_every_two``), and the levels' outputs and normalisers are interpolated
back and summed. ``HAttention1D`` is the bidirectional form (a key padding mask is coarsened with the
sequence, ``masked_aggregate``); ``CausalHAttention1D`` the autoregressive one (a level mask precomputed for
``max_seq_len``). ``HTransformer1D`` stacks them with rotary embeddings (rotary-embedding-torch), pre-norms,
feedforwards, optional token shifting (``PreShiftTokens``) and a sequential or reversible execution
(``reversible.py``: a custom autograd function that recomputes activations, RNG state recorded and replayed,
layer dropout). ``AutoregressiveWrapper`` gives the next-token loss and a top-k sampling ``generate``. The
tables cover, at width 32, 2 heads of 16, a 64-token vocabulary and a batch of 2:

- ``TRANSFORMER``: ``HTransformer1D`` forward: bidirectional on 64 tokens and on lengths that need padding, a
  padding mask (one coarsening level with heads of 32, or none with blocks of 16), two layers, token shifting
  (with and without a mask), reversible layers, and causal (sequential and reversible);
- ``ATTENTION``: ``HAttention1D`` with a mask and ``CausalHAttention1D`` with rotary embeddings, alone;
- ``PARTS``: ``SequentialSequence`` with argument routing and layer dropout, ``Deterministic`` (recording and
  replaying the RNG state), and the helpers ``masked_aggregate`` (a masked sum) and ``cast_for_op`` through
  ``gt_calls.Call``;
- ``WRAPPER``: ``AutoregressiveWrapper`` forward (the loss) and ``generate`` through ``gt_calls.Method`` (3
  tokens from a 16-token prompt; also with an end token that never comes);
- ``TRAIN``: training steps: the reversible wrapper's loss backward (the custom backward pass) and a masked
  bidirectional classifier with an Adam step.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, TOKENS, DIM, HEADS, DIM_HEAD, MAX_LEN, BLOCK, CLASSES = 2, 64, 32, 2, 16, 64, 8, 5
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": 1, "max_seq_len": MAX_LEN, "heads": HEADS,
                        "dim_head": DIM_HEAD, "block_size": BLOCK, "ff_mult": 2}
# A key padding mask is coarsened level by level only where the coarsened length equals the head width (the
# library's masked mean fills the empty groups with a mask of one shape less); 0 levels (blocks of 16 on 64
# tokens) or heads of 32 (one level, 32 groups) run.
WIDE: dict[str, Any] = {"dim_head": 32}

# Name -> (keywords, call options: "len:N" the sequence length, "mask" a padding mask).
TRANSFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "HTransformer1D": ({}, ()),
    "HTransformer1D.len32": ({}, ("len:32",)),
    "HTransformer1D.padded": ({}, ("len:50",)),
    "HTransformer1D.mask": (WIDE, ("mask",)),
    "HTransformer1D.mask.block16": ({"block_size": 16}, ("mask",)),
    "HTransformer1D.mask.padded": ({"block_size": 16}, ("len:50", "mask")),
    "HTransformer1D.depth2": ({"depth": 2}, ()),
    "HTransformer1D.shift_tokens": ({"shift_tokens": True, "block_size": 16}, ("mask",)),
    "HTransformer1D.shift_tokens.nomask": ({"shift_tokens": True}, ()),
    "HTransformer1D.reversible": ({"reversible": True}, ()),
    "HTransformer1D.causal": ({"causal": True}, ()),
    "HTransformer1D.causal.reversible": ({"causal": True, "reversible": True, "depth": 2}, ()),
}
# Name -> (causal, rotary, keywords, call options as above).
ATTENTION: dict[str, tuple[bool, bool, dict[str, Any], tuple[str, ...]]] = {
    "HAttention1D.mask": (False, False, {"dim_head": 32}, ("mask",)),
    "CausalHAttention1D.rotary": (True, True, {}, ()),
}
PARTS = ("SequentialSequence.layer_dropout", "Deterministic.replay", "masked_aggregate.sum.mask", "cast_for_op")
WRAPPER = ("AutoregressiveWrapper", "AutoregressiveWrapper.generate", "AutoregressiveWrapper.generate.eos")
TRAIN = ("train.AutoregressiveWrapper.reversible", "train.classifier")


def names() -> list[str]:
    return list(TRANSFORMER) + list(ATTENTION) + list(PARTS) + list(WRAPPER) + list(TRAIN)


def _length(options: tuple[str, ...]) -> int:
    return next((int(o[4:]) for o in options if o.startswith("len:")), MAX_LEN)


def _tokens(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randint(0, TOKENS, shape, generator=torch.Generator().manual_seed(seed))


def _transformer(keywords: dict[str, Any]) -> Any:
    from h_transformer_1d import HTransformer1D

    return HTransformer1D(**{**BASE, **keywords})


def _backward(loss: Any) -> Any:
    import torch

    if torch.is_grad_enabled():
        loss.backward()
    return loss.detach()


def _layers(depth: int) -> Any:
    """Pre-normed attention / feedforward pairs, as ``HTransformer1D`` builds them."""
    from torch import nn

    from h_transformer_1d.h_transformer_1d import FeedForward, HAttention1D, PreNorm

    return nn.ModuleList([nn.ModuleList([
        PreNorm(DIM, HAttention1D(DIM, heads=HEADS, dim_head=DIM_HEAD, block_size=16)),
        PreNorm(DIM, FeedForward(DIM, mult=2))]) for _ in range(depth)])


def _part(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Call, Run
    from h_transformer_1d import autoregressive_wrapper as aw
    from h_transformer_1d import h_transformer_1d as ht
    from h_transformer_1d import reversible as rev

    x = gt_inputs.randn(BATCH, MAX_LEN, DIM, seed=1)
    mask = gt_inputs.padding_mask(BATCH, MAX_LEN, hidden=9)
    if name.startswith("PreShiftTokens"):
        if name.endswith("mask"):  # before an attention layer, which takes the mask too
            attention = ht.HAttention1D(DIM, heads=HEADS, dim_head=DIM_HEAD, block_size=16)
            return ht.PreShiftTokens((0, 1), attention), (x,), {"mask": mask}
        return ht.PreShiftTokens((-1, 0, 1), ht.FeedForward(DIM, mult=2)), (x,), {}
    if name == "PreNorm":
        return ht.PreNorm(DIM, ht.FeedForward(DIM, mult=2)), (x,), {}
    if name == "FeedForward":
        return ht.FeedForward(DIM, mult=2), (x,), {}
    if name.startswith("SequentialSequence") or name == "ReversibleSequence.layer_dropout":
        dropout = 0.5 if name.endswith("layer_dropout") else 0.0
        cls = rev.ReversibleSequence if name.startswith("Reversible") else rev.SequentialSequence
        sequence = cls(_layers(2), args_route={"mask": ((True, False),) * 2}, layer_dropout=dropout)
        return sequence, (x,), {"mask": mask}
    if name == "ReversibleBlock":
        block = rev.ReversibleBlock(ht.FeedForward(DIM, mult=2), ht.FeedForward(DIM, mult=2))
        return block, (gt_inputs.randn(BATCH, 16, 2 * DIM, seed=1),), {}
    if name == "Deterministic.replay":
        deterministic = rev.Deterministic(nn.Sequential(nn.Linear(DIM, DIM), nn.Dropout(0.3)))

        def replay(owner: Any, inputs: Any) -> Any:
            """Record the RNG state in one pass, then replay it in another (as the backward pass does)."""
            return owner(inputs, record_rng=True) - owner(inputs, set_rng=True)

        return Run(deterministic, replay, [rev.Deterministic]), (x,), {}
    if name.startswith("masked_aggregate"):
        values = gt_inputs.randn(BATCH * HEADS, 32, 2, 32, seed=2)
        grouped = torch.ones(BATCH * HEADS, 32, 2, dtype=torch.bool)
        grouped[1, -5:] = False
        grouped[3, -6:, 1] = False
        if name == "masked_aggregate":
            return Call(ht.masked_aggregate, dim=2), (values,), {}
        return Call(ht.masked_aggregate, dim=2, average=not name.endswith("sum.mask")), (values, grouped), {}
    if name.startswith("shift"):
        if name == "shift.mask":
            return Run(nn.Identity(), lambda owner, t, m: ht.shift(t, 1, mask=m), [ht.shift]), (x, mask), {}
        return Call(ht.shift, amount=1), (x,), {}
    if name == "flip_every_two":
        return Call(ht.flip_every_two), (gt_inputs.randn(BATCH, 8, 4, DIM_HEAD, seed=2),), {}
    if name == "cast_for_op":
        blocks = mask.reshape(BATCH, 8, 8)
        return Call(ht.cast_for_op(torch.int, ht.flip_every_two)), (blocks,), {}
    if name == "route_args":
        def route(owner: Any, inputs: Any, key_mask: Any) -> Any:
            routed = rev.route_args({"mask": ((True, False), (True, False))}, {"mask": key_mask, "other": 1}, 2)
            return [inputs.masked_fill(~f["mask"][..., None], 0.) for f, _ in routed]

        return Run(nn.Identity(), route, [rev.route_args]), (x, mask), {}
    if name == "top_k":
        return Call(aw.top_k, thres=0.75), (gt_inputs.randn(BATCH, TOKENS, seed=2),), {}
    raise KeyError(name)


def _wrapper(name: str) -> Built:
    from gt_calls import Method
    from h_transformer_1d.autoregressive_wrapper import AutoregressiveWrapper

    wrapper = AutoregressiveWrapper(_transformer({"causal": True, "block_size": 4}))
    if name == "AutoregressiveWrapper":
        return wrapper, (_tokens(BATCH, MAX_LEN + 1),), {}
    if name == "AutoregressiveWrapper.mask":  # a bidirectional net under the wrapper takes the mask through
        wrapper = AutoregressiveWrapper(_transformer({"block_size": 16}))
        return wrapper, (_tokens(BATCH, 49),), {"mask": gt_inputs.padding_mask(BATCH, 48, hidden=6)}
    prompt = _tokens(16) if name.endswith("1d") else _tokens(BATCH, 16)
    static: dict[str, Any] = {"seq_len": 3}
    if name.endswith("temperature"):
        static.update(temperature=0.7, filter_thres=0.5)
    if name.endswith("eos"):
        static["eos_token"] = -1  # an end token that never comes: every step checks for it
    return Method(wrapper, "generate", **static), (prompt,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import Run
    from h_transformer_1d import HTransformer1D
    from h_transformer_1d import reversible as rev
    from h_transformer_1d.autoregressive_wrapper import AutoregressiveWrapper

    if name.startswith("train.AutoregressiveWrapper"):
        keywords = {"causal": True, "block_size": 4, "reversible": name.endswith("reversible")}
        wrapper = AutoregressiveWrapper(_transformer(keywords))
        return Run(wrapper, lambda owner, x: _backward(owner(x)), [AutoregressiveWrapper]), \
            (_tokens(BATCH, MAX_LEN + 1),), {}
    if name == "train.ReversibleSequence.layer_dropout":
        sequence = rev.ReversibleSequence(_layers(2), args_route={"mask": ((True, False),) * 2}, layer_dropout=0.5)
        stem = nn.Sequential(nn.Linear(DIM, DIM), sequence)  # an input that requires grad for the reversible pass
        return Run(stem, lambda owner, x, target: _backward(F.mse_loss(owner(x), target)), [rev.ReversibleSequence]), \
            (gt_inputs.randn(BATCH, MAX_LEN, DIM, seed=1), gt_inputs.randn(BATCH, MAX_LEN, DIM, seed=2)), {}

    class Classifier(nn.Module):
        """A bidirectional H-Transformer over padded sequences, a masked mean of its logits' features, a head."""

        def __init__(self) -> None:
            super().__init__()
            self.transformer = HTransformer1D(**{**BASE, **WIDE})
            self.head = nn.Linear(TOKENS, CLASSES)

        def forward(self, tokens: Any, mask: Any) -> Any:
            out = self.transformer(tokens, mask=mask)
            weights = mask.unsqueeze(-1).float()
            return self.head((out * weights).sum(1) / weights.sum(1))

    classifier = Classifier()
    optimizer = torch.optim.Adam(classifier.parameters(), lr=1e-3)

    def step(owner: Any, tokens: Any, mask: Any, labels: Any) -> Any:
        loss = F.cross_entropy(owner(tokens, mask), labels)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.detach()

    labels = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(3))
    return Run(classifier, step, [HTransformer1D]), \
        (_tokens(BATCH, 48), gt_inputs.padding_mask(BATCH, 48, hidden=7), labels), {}


def build(name: str) -> Built:
    import torch

    from h_transformer_1d.h_transformer_1d import CausalHAttention1D, HAttention1D
    from rotary_embedding_torch import RotaryEmbedding

    torch.manual_seed(0)
    if name in TRANSFORMER:
        keywords, options = TRANSFORMER[name]
        length = _length(options)
        call = {"mask": gt_inputs.padding_mask(BATCH, length, hidden=7)} if "mask" in options else {}
        return _transformer(keywords), (_tokens(BATCH, length),), call
    if name in ATTENTION:
        causal, rotary, extra, options = ATTENTION[name]
        keywords: dict[str, Any] = {"heads": HEADS, "dim_head": DIM_HEAD, "block_size": BLOCK, **extra}
        if rotary:
            keywords["pos_emb"] = RotaryEmbedding(dim=keywords["dim_head"])
        if causal:
            keywords["max_seq_len"] = MAX_LEN
        attention = (CausalHAttention1D if causal else HAttention1D)(DIM, **keywords)
        length = _length(options)
        call = {"mask": gt_inputs.padding_mask(BATCH, length, hidden=7)} if "mask" in options else {}
        return attention, (gt_inputs.randn(BATCH, length, DIM, seed=1),), call
    if name in PARTS:
        return _part(name)
    if name in WRAPPER:
        return _wrapper(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
