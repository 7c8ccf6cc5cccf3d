"""Ground-truth bench, st_moe_pytorch: ST-MoE mixture-of-experts layers, their router and experts, trained and run.

st-moe-pytorch (lucidrains) exports ``MoE`` (a top-n router, ``TopNGating``, dispatching tokens to a set
of feed-forward experts, ``Experts``) and ``SparseMoEBlock`` (the ``MoE`` between a pre-norm and optional
feed-forwards before and after, the stabilised block of the paper). Both return
``(outputs, total_aux_loss, balance_loss, router_z_loss)``, the losses being zero in eval mode. So:

- ``MOE``: ``MoE`` at a tiny width (dim 16, 4 experts, ``is_distributed=False``, a batch of 2 sequences
  of 16 tokens) in the configurations that change its code: top-3 gating with one threshold or one per
  extra expert, capacity factors, the straight-through dispatch tensor off, the differentiable top-k
  (coordinate descent), other loss coefficients, experts passed in and gate noise
  (``noise_gates=True`` at the call);
- ``BLOCKS``: ``SparseMoEBlock`` with the feed-forward after (its default), before, or neither, and with a
  top-3 router over 8 experts and the differentiable top-k;
- ``TRAIN``: bench train steps (``_TrainStep``) as the README trains them: a small stack of embeddings,
  blocks (or one bare ``MoE``) and a head whose cross-entropy task loss is summed with the layers'
  auxiliary losses;
- ``PARTS``: the router ``TopNGating`` alone (top-2, top-3, differentiable top-k, gate noise),
  ``Experts`` on an expert-batched input, and one ``Expert`` (plain and pre-norm).

Configurations that only change a number (more experts, other capacities) are left out to keep the
library's run short.

Every model is compiled in train and in eval mode (the router's thresholds, capacity and losses
differ). Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, EXPERTS, BATCH, SEQ, VOCAB = 16, 4, 2, 16, 32
BASE: dict[str, Any] = {"dim": DIM, "num_experts": EXPERTS, "expert_hidden_mult": 2, "is_distributed": False}

# ``MoE`` name -> (constructor keywords, call keywords). ``experts`` in the keywords stands for an
# ``nn.ModuleList`` of ``Expert``s (with and without pre-norm and multiplicative bias) built in the worker.
MOE: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "MoE": ({}, {}),
    "MoE.top3": ({"gating_top_n": 3}, {}),
    "MoE.top3.thresholds": ({"gating_top_n": 3, "threshold_train": (0.2, 0.1), "threshold_eval": (0.3, 0.2)}, {}),
    "MoE.capacity": ({"capacity_factor_train": 2.0, "capacity_factor_eval": 4.0}, {}),
    "MoE.no_straight_through": ({"straight_through_dispatch_tensor": False}, {}),
    "MoE.differentiable_topk": ({"differentiable_topk": True}, {}),
    "MoE.differentiable_topk.top3": ({"differentiable_topk": True, "gating_top_n": 3}, {}),
    "MoE.loss_coefs": ({"balance_loss_coef": 0.1, "router_z_loss_coef": 0.0}, {}),
    "MoE.custom_experts": ({"experts": "experts"}, {}),
    "MoE.noise_gates": ({}, {"noise_gates": True, "noise_mult": 0.5}),
}
# ``SparseMoEBlock`` name -> (``MoE`` keywords, block keywords, call keywords).
BLOCKS: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {
    "SparseMoEBlock": ({}, {}, {}),
    "SparseMoEBlock.ff_before": ({}, {"add_ff_before": True, "add_ff_after": False}, {}),
    "SparseMoEBlock.no_ff": ({}, {"add_ff_before": False, "add_ff_after": False}, {}),
    "SparseMoEBlock.top3": ({"gating_top_n": 3, "num_experts": 8}, {}, {}),
    "SparseMoEBlock.differentiable_topk": ({"differentiable_topk": True}, {"add_ff_before": True}, {}),
}
# Train step name -> (``MoE`` keywords, block keywords, number of blocks).
TRAIN: dict[str, tuple[dict[str, Any], dict[str, Any], int]] = {
    "train_step.MoE": ({}, {}, 0),
    "train_step.SparseMoEBlock": ({}, {}, 1),
    "train_step.SparseMoEBlock.two_blocks": ({}, {"add_ff_before": True}, 2),
}
# ``TopNGating`` name -> (constructor keywords, call keywords); ``Experts`` and ``Expert`` parts.
GATING: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "TopNGating": ({}, {}),
    "TopNGating.top3": ({"top_n": 3}, {}),
    "TopNGating.differentiable_topk": ({"differentiable_topk": True}, {}),
    "TopNGating.noise_gates": ({}, {"noise_gates": True}),
}
PARTS = ("Experts", "Expert", "Expert.prenorm")


def names() -> list[str]:
    return list(MOE) + list(BLOCKS) + list(TRAIN) + list(GATING) + list(PARTS)


def tokens() -> Any:
    import torch

    return torch.randn(BATCH, SEQ, DIM, generator=torch.Generator().manual_seed(1))


def _moe(keywords: dict[str, Any]) -> Any:
    from st_moe_pytorch import MoE
    from st_moe_pytorch.st_moe_pytorch import Expert
    from torch import nn

    keywords = {**BASE, **keywords}
    if keywords.get("experts") == "experts":
        keywords["experts"] = nn.ModuleList([Expert(DIM, hidden_mult=2, mult_bias=i % 2 == 0, prenorm=i < 2)
                                             for i in range(keywords["num_experts"])])
    return MoE(**keywords)


def _train_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from st_moe_pytorch import MoE, SparseMoEBlock
    from torch import nn

    moe_keywords, block_keywords, blocks = TRAIN[name]

    class _TrainStep(nn.Module):
        """Embeddings, ``blocks`` sparse MoE blocks (or one bare ``MoE`` with a residual), a head: the
        cross-entropy of the next token plus every layer's ``total_aux_loss``, the loss the README trains."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, DIM)
            if blocks:
                self.layers = nn.ModuleList([SparseMoEBlock(_moe(moe_keywords), **block_keywords)
                                             for _ in range(blocks)])
            else:
                self.layers = nn.ModuleList([_moe(moe_keywords)])
            self.head = nn.Linear(DIM, VOCAB)

        def forward(self, ids: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            x = self.embed(ids)
            aux = x.new_zeros(())
            for layer in self.layers:
                out, total_aux_loss, _, _ = layer(x)
                x = out if blocks else out + x
                aux = aux + total_aux_loss
            logits = self.head(x)
            return F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1)) + aux

        def entry_points(self) -> list[Any]:
            return [SparseMoEBlock if blocks else MoE]

    gen = torch.Generator().manual_seed(2)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=gen)
    labels = torch.randint(0, VOCAB, (BATCH, SEQ), generator=gen)
    return _TrainStep(), (ids, labels), {}


def build(name: str) -> Built:
    import torch
    from st_moe_pytorch import SparseMoEBlock
    from st_moe_pytorch.st_moe_pytorch import Expert, Experts, TopNGating

    torch.manual_seed(0)
    x = tokens()
    if name in MOE:
        keywords, call = MOE[name]
        return _moe(keywords), (x,), dict(call)
    if name in BLOCKS:
        moe_keywords, block_keywords, call = BLOCKS[name]
        return SparseMoEBlock(_moe(moe_keywords), **block_keywords), (x,), dict(call)
    if name in TRAIN:
        return _train_step(name)
    if name in GATING:
        keywords, call = GATING[name]
        return TopNGating(DIM, num_gates=EXPERTS, **keywords), (x,), dict(call)
    if name == "Experts":  # (batch, experts, tokens per expert, dim), as ``MoE`` dispatches them
        experts = Experts([Expert(DIM, hidden_mult=2) for _ in range(EXPERTS)], is_distributed=False)
        expert_inputs = torch.randn(BATCH, EXPERTS, 4, DIM, generator=torch.Generator().manual_seed(3))
        return experts, (expert_inputs,), {}
    return Expert(DIM, hidden_mult=2, prenorm=name == "Expert.prenorm"), (x,), {}
