"""Ground-truth bench, mixture_of_experts (mixture-of-experts): sparsely gated mixture-of-experts layers.

mixture-of-experts (lucidrains) ports the top-2 gated mixture of experts of tensor2tensor (Shazeer et al.)
to PyTorch: ``Top2Gating`` (top-1 and top-2 experts per token, a policy for the second expert, expert
capacities, a balancing loss), ``Experts`` (a batch of feed-forward experts as two weight tensors, one
or two levels), ``MoE`` (gate, dispatch, experts, combine) and ``HeirarchicalMoE`` (two levels of
gating, the inner one weighted by the outer one's importance). Both layers return ``(output,
aux_loss)``; a model adds the auxiliary loss to its task loss. So each model of the tables is one of:

- ``MOE``: ``MoE`` at dim 16 with 4 experts on a batch of 2 sequences of 16 tokens, in the
  configurations that change its code: the policies for the second expert that run (``random``,
  ``all``, ``none``; the train and eval policies differ in some, so both modes matter), another
  threshold of the random policy, small and large capacity factors, the loss coefficient,
  ``hidden_dim``, GELU activations (``nn.GELU`` and the module's ``GELU_``), experts passed in and 8
  experts;
- ``HMOE``: ``HeirarchicalMoE`` with 2 x 2 and 2 x 3 experts, in the same policies and capacities, and
  experts passed in;
- ``PARTS``: ``Top2Gating`` alone (the policies, an ``importance`` input, outer expert dimensions) and
  ``Experts`` (one and two levels, the module's own GELU);
- ``TRAIN``: bench train steps: an embedding, one or two residual ``MoE`` layers (or a
  ``HeirarchicalMoE``) and a head whose cross-entropy is summed with the layers' auxiliary losses, as
  the README trains them;
- ``HELPERS``: the module's tensor helpers used inside the gate (``top1``, ``cumsum_exclusive``,
  ``safe_one_hot``) through ``gt_calls.Call``.

The ``threshold`` policy is left out: in 0.2.3 it multiplies a (batch, group, experts) mask by a
(batch, group) one, which fails in eager mode unless the shapes happen to broadcast. Random weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, EXPERTS, BATCH, SEQ, VOCAB = 16, 4, 2, 16, 32


def _policy(train: str, evaluate: str | None = None) -> dict[str, Any]:
    return {"second_policy_train": train, "second_policy_eval": evaluate or train}


# ``MoE`` name -> constructor keywords ("experts": an ``Experts`` built in the worker, "gelu": ``nn.GELU``,
# "gelu_module": the module's own ``GELU_``).
MOE: dict[str, dict[str, Any]] = {
    "MoE": {},
    "MoE.policy_all": _policy("all"),
    "MoE.policy_none": _policy("none"),
    "MoE.policy_random_train.all_eval": _policy("random", "all"),
    "MoE.random.threshold": {"second_threshold_train": 0.5, "second_threshold_eval": 0.1},
    "MoE.low_capacity": {"capacity_factor_train": 0.5, "capacity_factor_eval": 0.5},
    "MoE.high_capacity": {"capacity_factor_train": 4.0, "capacity_factor_eval": 4.0, **_policy("all")},
    "MoE.loss_coef": {"loss_coef": 1.0},
    "MoE.hidden_dim": {"hidden_dim": 24},
    "MoE.gelu": {"activation": "gelu"},
    "MoE.gelu_module": {"activation": "gelu_module"},
    "MoE.policy_none_train.random_eval": _policy("none", "random"),
    "MoE.experts": {"experts": "experts"},
    "MoE.8_experts": {"num_experts": 8},
}
# ``HeirarchicalMoE`` name -> constructor keywords.
HMOE: dict[str, dict[str, Any]] = {
    "HeirarchicalMoE": {"num_experts": (2, 2)},
    "HeirarchicalMoE.2x3": {"num_experts": (2, 3)},
    "HeirarchicalMoE.policy_all": {"num_experts": (2, 2), **_policy("all")},
    "HeirarchicalMoE.policy_none": {"num_experts": (2, 2), **_policy("none")},
    "HeirarchicalMoE.policy_all_train.none_eval": {"num_experts": (2, 2), **_policy("all", "none")},
    "HeirarchicalMoE.capacity": {"num_experts": (2, 2), "capacity_factor_train": 0.5, "capacity_factor_eval": 3.0},
    "HeirarchicalMoE.loss_coef": {"num_experts": (2, 2), "loss_coef": 0.1, "hidden_dim": 24},
    "HeirarchicalMoE.experts": {"num_experts": (2, 2), "experts": "experts"},
}
# ``Top2Gating`` name -> (constructor keywords, "importance" when the call passes one, input kind: "tokens"
# (2, 16, 16) or "outer" (2 outer experts, 2, 16, 16)).
GATING: dict[str, tuple[dict[str, Any], bool, str]] = {
    "Top2Gating": ({}, False, "tokens"),
    "Top2Gating.policy_all": (_policy("all"), False, "tokens"),
    "Top2Gating.policy_none": (_policy("none"), False, "tokens"),
    "Top2Gating.capacity": ({"capacity_factor_train": 0.5, "capacity_factor_eval": 4.0}, False, "tokens"),
    "Top2Gating.outer_expert_dims": ({"outer_expert_dims": (2,)}, False, "outer"),
    "Top2Gating.importance": ({"outer_expert_dims": (2,)}, True, "outer"),
}
EXPERTS_PARTS = ("Experts", "Experts.hidden_dim", "Experts.two_levels", "Experts.gelu_module")
TRAIN = ("train_step.MoE", "train_step.MoE.two_layers", "train_step.HeirarchicalMoE")
HELPERS = ("top1", "cumsum_exclusive", "cumsum_exclusive.dim-2", "safe_one_hot")


def names() -> list[str]:
    return list(MOE) + list(HMOE) + list(GATING) + list(EXPERTS_PARTS) + list(TRAIN) + [f"helpers.{n}" for n in HELPERS]


def tokens(seed: int = 1) -> Any:
    import torch

    return torch.randn(BATCH, SEQ, DIM, generator=torch.Generator().manual_seed(seed))


def _keywords(keywords: dict[str, Any], levels: tuple[int, ...]) -> dict[str, Any]:
    from mixture_of_experts import Experts
    from torch import nn

    keywords = dict(keywords)
    if keywords.get("experts") == "experts":
        keywords["experts"] = Experts(DIM, num_experts=levels, hidden_dim=32, activation=nn.GELU)
    if keywords.get("activation") == "gelu":
        keywords["activation"] = nn.GELU
    if keywords.get("activation") == "gelu_module":
        from mixture_of_experts.mixture_of_experts import GELU_

        keywords["activation"] = GELU_
    return keywords


def _moe(keywords: dict[str, Any]) -> Any:
    from mixture_of_experts import MoE

    keywords = {"num_experts": EXPERTS, **keywords}
    return MoE(DIM, **_keywords(keywords, (keywords["num_experts"],)))


def _hmoe(keywords: dict[str, Any]) -> Any:
    from mixture_of_experts import HeirarchicalMoE

    return HeirarchicalMoE(DIM, **_keywords(keywords, tuple(keywords["num_experts"])))


def _train_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    if name == "train_step.HeirarchicalMoE":
        layers = [_hmoe({"num_experts": (2, 2)})]
    elif name == "train_step.MoE.two_layers":
        layers = [_moe({}), _moe(_policy("all", "none"))]
    else:
        layers = [_moe({})]

    class _TrainStep(nn.Module):
        """Embeddings, residual mixture-of-experts layers, a head: the next-token cross-entropy plus the
        layers' auxiliary (balancing) losses."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, DIM)
            self.layers = nn.ModuleList(layers)
            self.norm = nn.LayerNorm(DIM)
            self.head = nn.Linear(DIM, VOCAB)

        def forward(self, ids: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            x = self.embed(ids)
            aux = x.new_zeros(())
            for layer in self.layers:
                out, aux_loss = layer(self.norm(x))
                x = x + out
                aux = aux + aux_loss
            logits = self.head(x)
            return F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1)) + aux

        def entry_points(self) -> list[Any]:
            return list(dict.fromkeys(type(layer) for layer in self.layers))

    gen = torch.Generator().manual_seed(2)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=gen)
    labels = torch.randint(0, VOCAB, (BATCH, SEQ), generator=gen)
    return _TrainStep(), (ids, labels), {}


def _gating(name: str) -> Built:
    import torch
    from mixture_of_experts.mixture_of_experts import Top2Gating

    keywords, importance, kind = GATING[name]
    gate = Top2Gating(DIM, num_gates=EXPERTS, **keywords)
    if kind == "tokens":
        return gate, (tokens(),), {}
    x = torch.randn(2, BATCH, SEQ, DIM, generator=torch.Generator().manual_seed(3))
    if not importance:
        return gate, (x,), {}
    # as ``HeirarchicalMoE`` makes it: 1 for a first choice, 0.5 for a second, 0 where not routed
    weights = torch.tensor([0.0, 0.5, 1.0])
    picks = torch.randint(0, 3, (2, BATCH, SEQ), generator=torch.Generator().manual_seed(4))
    return gate, (x, weights[picks]), {}


def _experts(name: str) -> Built:
    import torch
    from mixture_of_experts import Experts
    from mixture_of_experts.mixture_of_experts import GELU_

    if name == "Experts.two_levels":
        experts = Experts(DIM, num_experts=(2, 2), hidden_dim=24)
        return experts, (torch.randn(2, 2, 8, DIM, generator=torch.Generator().manual_seed(5)),), {}
    keywords: dict[str, Any] = {"num_experts": EXPERTS}
    if name == "Experts.hidden_dim":
        keywords["hidden_dim"] = 24
    if name == "Experts.gelu_module":
        keywords["activation"] = GELU_
    experts = Experts(DIM, **keywords)
    return experts, (torch.randn(EXPERTS, 8, DIM, generator=torch.Generator().manual_seed(5)),), {}


def _helper(name: str) -> Built:
    import torch
    from mixture_of_experts import mixture_of_experts as moe

    from gt_calls import Call

    gen = torch.Generator().manual_seed(6)
    if name == "top1":
        return Call(moe.top1), (torch.randn(BATCH, SEQ, EXPERTS, generator=gen).softmax(-1),), {}
    mask = torch.nn.functional.one_hot(torch.randint(0, EXPERTS, (BATCH, SEQ), generator=gen), EXPERTS).float()
    if name == "cumsum_exclusive":
        return Call(moe.cumsum_exclusive), (mask.transpose(1, 2).contiguous(),), {}
    if name == "cumsum_exclusive.dim-2":
        return Call(moe.cumsum_exclusive, dim=-2), (mask,), {}
    positions = (moe.cumsum_exclusive(mask, dim=-2) * mask).sum(-1).long()
    return Call(moe.safe_one_hot, max_length=4), (positions,), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in MOE:
        return _moe(MOE[name]), (tokens(),), {}
    if name in HMOE:
        return _hmoe(HMOE[name]), (tokens(),), {}
    if name in GATING:
        return _gating(name)
    if name in EXPERTS_PARTS:
        return _experts(name)
    if name in TRAIN:
        return _train_step(name)
    return _helper(name.split(".", 1)[1])
