"""Ground-truth bench, agent_attention_pytorch: agent attention (Han et al. 2023) and its transformer.

agent-attention-pytorch 0.1.7 (lucidrains) ships two modules. ``AgentSelfAttention`` (the package's top level,
``agent_attention_pytorch.py``) lets a few learned agent tokens gather from the keys and values and broadcast
back to the queries: two softmaxed similarity maps, each mixed across heads by a 1 x 1 convolution
("talking heads") when asked, sigmoid gates per head, a key padding mask, agent tokens of the caller's own and
the gathered agent tokens returned. ``AgentTransformer`` (``agent_transformer.py``) runs its own
``AgentSelfAttention`` in which the agent tokens are packed with the inputs, projected together and updated
layer by layer (RMS norms, optional sub-layer norms, feedforwards over the packed tokens, a final norm). The
tables cover, at width 32, 2 heads of 16, 4 agent tokens, a batch of 2 and 16 tokens:

- ``ATTENTION``: the top-level ``AgentSelfAttention``: the default (talking heads, gates), neither, each alone,
  dropout, a padding mask, agent tokens passed in, the gathered agent tokens returned, a batch of one, a
  sequence shorter than the agent count;
- ``INNER``: ``agent_transformer.AgentSelfAttention`` alone: the default, sub-layer norms, no gates, a mask,
  returned agent tokens;
- ``TRANSFORMER``: ``AgentTransformer``: one and two layers, a mask, agent tokens returned, no final norm,
  sub-layer norms, no talking heads and no gates, dropout;
- ``TRAIN``: training steps (bench code holding the library module): the transformer's regression loss
  backward, a masked mean-pooled classifier over the transformer with an Adam step, and the top-level
  attention's loss backward.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SEQ, DIM, HEADS, DIM_HEAD, AGENTS, CLASSES = 2, 16, 32, 2, 16, 4, 5
BASE: dict[str, Any] = {"dim": DIM, "heads": HEADS, "dim_head": DIM_HEAD, "num_agent_tokens": AGENTS}

# Name -> (keywords, call options: "mask", "agents" agent tokens passed in, "return" the agent tokens returned,
# "batch1", "len:N").
ATTENTION: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "AgentSelfAttention": ({}, ()),
    "AgentSelfAttention.plain": ({"talking_heads": False, "gate": False}, ()),
    "AgentSelfAttention.no_talking_heads": ({"talking_heads": False}, ()),
    "AgentSelfAttention.no_gate": ({"gate": False}, ()),
    "AgentSelfAttention.dropout": ({"dropout": 0.1}, ()),
    "AgentSelfAttention.mask": ({}, ("mask",)),
    "AgentSelfAttention.agent_tokens": ({}, ("agents",)),
    "AgentSelfAttention.return_agent_tokens": ({}, ("return",)),
    "AgentSelfAttention.mask.return_agent_tokens": ({"talking_heads": False}, ("mask", "return")),
    "AgentSelfAttention.combine_agent_tokens": ({"combine_agent_tokens": True}, ()),
    "AgentSelfAttention.batch1": ({}, ("batch1",)),
    "AgentSelfAttention.short": ({}, ("len:3",)),
}
INNER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "transformer.AgentSelfAttention": ({}, ()),
    "transformer.AgentSelfAttention.sub_layernorm": ({"sub_layernorm": True}, ()),
    "transformer.AgentSelfAttention.no_gate": ({"gate": False, "talking_heads": False}, ()),
    "transformer.AgentSelfAttention.mask": ({}, ("mask",)),
    "transformer.AgentSelfAttention.return_agent_tokens": ({"dropout": 0.1}, ("mask", "return")),
}
TRANSFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "AgentTransformer": ({"depth": 1}, ()),
    "AgentTransformer.depth2": ({"depth": 2}, ()),
    "AgentTransformer.mask": ({"depth": 1}, ("mask",)),
    "AgentTransformer.return_agent_tokens": ({"depth": 1}, ("return",)),
    "AgentTransformer.no_final_norm": ({"depth": 1, "final_norm": False}, ()),
    "AgentTransformer.sub_layernorm": ({"depth": 1, "sub_layernorm": True}, ("mask",)),
    "AgentTransformer.plain": ({"depth": 1, "talking_heads": False, "gate": False, "ff_mult": 2}, ()),
    "AgentTransformer.dropout": ({"depth": 2, "dropout": 0.1}, ("mask", "return")),
}
TRAIN = ("train.AgentTransformer", "train.AgentTransformer.classifier", "train.AgentSelfAttention")


def names() -> list[str]:
    return list(ATTENTION) + list(INNER) + list(TRANSFORMER) + list(TRAIN)


def _call(options: tuple[str, ...]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    batch = 1 if "batch1" in options else BATCH
    length = next((int(o[4:]) for o in options if o.startswith("len:")), SEQ)
    call: dict[str, Any] = {}
    if "mask" in options:
        call["mask"] = gt_inputs.padding_mask(batch, length, hidden=5)
    if "return" in options:
        call["return_agent_tokens"] = True
    return (gt_inputs.randn(batch, length, DIM, seed=1),), call


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from agent_attention_pytorch import AgentSelfAttention, AgentTransformer
    from gt_calls import Run

    x = gt_inputs.randn(BATCH, SEQ, DIM, seed=1)
    if name == "train.AgentSelfAttention":
        def attention_step(owner: Any, inputs: Any, target: Any) -> Any:
            loss = F.mse_loss(owner(inputs), target)
            if torch.is_grad_enabled():
                loss.backward()
            return loss.detach()

        return Run(AgentSelfAttention(**BASE), attention_step, [AgentSelfAttention]), \
            (x, gt_inputs.randn(BATCH, SEQ, DIM, seed=2)), {}
    if name == "train.AgentTransformer":
        def step(owner: Any, inputs: Any, target: Any) -> Any:
            loss = F.mse_loss(owner(inputs), target)
            if torch.is_grad_enabled():
                loss.backward()
            return loss.detach()

        return Run(AgentTransformer(depth=1, **BASE), step, [AgentTransformer]), \
            (x, gt_inputs.randn(BATCH, SEQ, DIM, seed=2)), {}

    class Classifier(nn.Module):
        """The transformer, a masked mean over kept tokens and a linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.transformer = AgentTransformer(depth=1, **BASE)
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, inputs: Any, mask: Any) -> Any:
            out = self.transformer(inputs, mask=mask)
            weights = mask.unsqueeze(-1).float()
            return self.head((out * weights).sum(1) / weights.sum(1))

    classifier = Classifier()
    optimizer = torch.optim.Adam(classifier.parameters(), lr=1e-3)

    def classify_step(owner: Any, inputs: Any, mask: Any, labels: Any) -> Any:
        loss = F.cross_entropy(owner(inputs, mask), labels)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.detach()

    labels = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(3))
    return Run(classifier, classify_step, [AgentTransformer]), \
        (x, gt_inputs.padding_mask(BATCH, SEQ, hidden=5), labels), {}


def build(name: str) -> Built:
    import torch

    from agent_attention_pytorch import AgentSelfAttention, AgentTransformer
    from agent_attention_pytorch.agent_transformer import AgentSelfAttention as InnerAttention

    torch.manual_seed(0)
    if name in ATTENTION:
        keywords, options = ATTENTION[name]
        args, call = _call(options)
        if "agents" in options:
            call["agent_tokens"] = gt_inputs.randn(BATCH, HEADS, AGENTS, DIM_HEAD, seed=4)
        return AgentSelfAttention(**BASE, **keywords), args, call
    if name in INNER:
        keywords, options = INNER[name]
        args, call = _call(options)
        call["agent_tokens"] = gt_inputs.randn(BATCH, AGENTS, DIM, seed=4)
        return InnerAttention(**BASE, **keywords), args, call
    if name in TRANSFORMER:
        keywords, options = TRANSFORMER[name]
        args, call = _call(options)
        return AgentTransformer(**BASE, **keywords), args, call
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
