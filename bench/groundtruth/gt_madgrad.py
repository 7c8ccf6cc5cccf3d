"""Ground-truth bench, madgrad: the MADGRAD and MirrorMADGRAD optimizers (facebookresearch).

madgrad ships two ``torch.optim.Optimizer`` subclasses: ``MADGRAD`` (a momentumized dual-averaging method
with a cube-root adaptive denominator; dense and sparse gradients) and ``MirrorMADGRAD`` (the same weighting
and momentum over mirror descent; dense gradients only). Both keep the step counter ``k`` as a tensor in the
optimizer's state and read it back as a number at each step. Each model is a bench module holding a tiny
network (an MLP 8 -> 16 -> 4, a small conv net with batch norm, the MLP in bfloat16, or an embedding bag with
sparse gradients; batch 2) and its optimizer; the harness calls it twice in eval and twice in train mode and
the optimizer's state carries over, so the first step (state creation) and the later ones are both traced.
Its forward is one of (``gt_optimizer_bench``):

- ``step``: one ``optimizer.step()`` alone, the gradients assigned (``gt_calls.OptimizerStep``, as users
  compile ``opt.step``);
- ``warm``: the same after two eager steps at build time, so the compiled code starts with the state of a
  run under way;
- ``train_step``: ``zero_grad()``, the loss, ``backward()`` (under ``enable_grad``), ``step()`` and the
  network's output, what a compiled training step runs;
- ``closure``: ``step(closure)``, the closure computing the loss and its gradients;
- ``groups``: two parameter groups, the second with the learning rate 0 (the ``lr != 0`` branch) or with
  its own momentum 0 and weight decay (a training step);
- ``frozen``: a parameter that never gets a gradient (the ``p.grad is None`` skip).

Configurations, for both optimizers: the defaults, ``momentum=0`` (MADGRAD's ``x0`` recomputed at each step
instead of kept), coupled ``weight_decay``, ``decouple_decay``, ``eps=0`` (the ``rms == 0`` fill with
infinity), the two together, bfloat16 parameters (the float32 copies written back) and a conv net with batch
norm. ``MADGRAD`` also runs sparse embedding gradients (momentum and weight decay 0, as the library requires;
with its default and with zero ``eps``). The fairseq wrappers need fairseq, which is not installed. Random
weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

NO_MOMENTUM = {"momentum": 0.0}
WD = {"weight_decay": 1e-2}
DECOUPLE = {"weight_decay": 1e-2, "decouple_decay": True}
EPS0 = {"eps": 0.0}
SPARSE = {"momentum": 0.0, "weight_decay": 0.0}
# The parameter groups: the last layer's learning rate 0, or its own momentum 0 and weight decay.
GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 0.0}, "groups_mixed": {"momentum": 0.0, "weight_decay": 1e-2}}
# Model name suffix -> (keywords, kind: "step", "warm", "train_step", "closure", "groups", "groups_mixed",
# "frozen"; net: "mlp", "conv", "bf16" or "sparse"); each is built for both optimizers.
COMMON: dict[str, tuple[dict[str, Any], str, str]] = {
    "step": ({}, "step", "mlp"),
    "step.momentum0": (NO_MOMENTUM, "step", "mlp"),
    "step.weight_decay": (WD, "step", "mlp"),
    "step.decouple_decay": (DECOUPLE, "step", "mlp"),
    "step.momentum0.weight_decay": ({**NO_MOMENTUM, **WD}, "step", "mlp"),
    "step.momentum0.decouple_decay": ({**NO_MOMENTUM, **DECOUPLE}, "step", "mlp"),
    "step.eps0": (EPS0, "step", "mlp"),
    "step.eps0.momentum0": ({**EPS0, **NO_MOMENTUM}, "step", "mlp"),
    "step.bf16": ({}, "step", "bf16"),
    "step.bf16.momentum0.decouple_decay": ({**NO_MOMENTUM, **DECOUPLE}, "step", "bf16"),
    "warm": ({}, "warm", "mlp"),
    "warm.momentum0.eps0": ({**NO_MOMENTUM, **EPS0}, "warm", "mlp"),
    "train_step": ({}, "train_step", "mlp"),
    "train_step.momentum0": (NO_MOMENTUM, "train_step", "mlp"),
    "train_step.conv": (WD, "train_step", "conv"),
    "train_step.conv.decouple_decay": (DECOUPLE, "train_step", "conv"),
    "train_step.bf16": (WD, "train_step", "bf16"),
    "closure": ({}, "closure", "mlp"),
    "closure.momentum0": (NO_MOMENTUM, "closure", "mlp"),
    "groups.lr0": ({}, "groups", "mlp"),
    "groups.mixed": (DECOUPLE, "groups_mixed", "mlp"),
    "frozen": ({}, "frozen", "mlp"),
}
# MADGRAD only: sparse gradients of an embedding bag.
SPARSE_MODELS: dict[str, tuple[dict[str, Any], str, str]] = {
    "MADGRAD.sparse": (SPARSE, "train_step", "sparse"),
    "MADGRAD.sparse.eps0": ({**SPARSE, **EPS0}, "train_step", "sparse"),
    "MADGRAD.sparse.step": (SPARSE, "step", "sparse"),
    "MADGRAD.sparse.warm": (SPARSE, "warm", "sparse"),
}
OPTIMIZERS = ("MADGRAD", "MirrorMADGRAD")
MODELS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    **{f"{opt}.{suffix}": (opt, *spec) for opt in OPTIMIZERS for suffix, spec in COMMON.items()},
    **{name: ("MADGRAD", *spec) for name, spec in SPARSE_MODELS.items()},
}


def names() -> list[str]:
    return list(MODELS)


def _net_and_inputs(kind: str) -> tuple[Any, Any, Any]:
    """The bench's tiny MLP or conv net (``bf16``: the MLP in bfloat16) and a batch for it, or a sparse-gradient
    embedding bag over token ids."""
    import torch

    from gt_optimizer_bench import embedding_bag, tiny_inputs, tiny_net

    if kind in ("mlp", "conv"):
        return (tiny_net(kind), *tiny_inputs(kind))
    if kind == "bf16":
        x, y = tiny_inputs("mlp")
        return tiny_net("mlp").to(torch.bfloat16), x.to(torch.bfloat16), y.to(torch.bfloat16)
    return embedding_bag()


def build(name: str) -> Built:
    import warnings

    import madgrad
    import torch

    from gt_optimizer_bench import optimizer_model

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    optimizer_name, keywords, kind, net_kind = MODELS[name]
    net, x, y = _net_and_inputs(net_kind)
    cls = getattr(madgrad, optimizer_name)
    if net_kind == "sparse" and kind in ("step", "warm"):
        return _sparse_step(cls(net.parameters(), **keywords), net, x, y, warm=kind == "warm")
    return optimizer_model(cls, keywords, kind, net, x, y, GROUPS)


def _sparse_step(optimizer: Any, net: Any, ids: Any, y: Any, warm: bool) -> Built:
    """One ``optimizer.step()`` with the embedding bag's sparse gradients handed in (token ids cannot be scaled as
    ``gt_optimizer_bench.gradients_at`` does, so each seed shifts the targets); ``warm``: after two eager steps."""
    import torch
    import torch.nn.functional as F

    from gt_optimizer_bench import step_model

    def gradients(seed: int) -> tuple[Any, ...]:
        grads = torch.autograd.grad(F.mse_loss(net(ids), y + 0.1 * seed), list(net.parameters()))
        return tuple(g.detach() for g in grads)

    return step_model(net, optimizer, ids, y, warm=warm, gradients=gradients)
