"""Ground-truth bench, adan_pytorch: the Adan optimizer (Adaptive Nesterov Momentum).

adan_pytorch ships one ``torch.optim.Optimizer`` subclass, ``Adan``: three running averages (the gradient, the
gradient's difference from the previous step and the squared Nesterov-corrected gradient) with bias corrections
computed from a step counter kept as a Python number in the optimizer's state, decoupled weight decay by division,
and an optional ``restart_cond`` (a user's callable of the parameter's state) that resets the averages and steps
again. The first step of a parameter only creates the state and takes the bias-corrected step; the averages move
from the second on. Each model is a bench module holding a tiny network (an MLP 8 -> 16 -> 4, a small conv net
with batch norm, or the MLP in bfloat16; batch 2) and its optimizer; the harness calls it twice in eval and twice
in train mode and the state carries over, so the first step and the later ones are both traced. Its forward is one
of (``gt_optimizer_bench``):

- ``step``: one ``optimizer.step()`` alone, the gradients assigned (``gt_calls.OptimizerStep``, as users compile
  ``opt.step``);
- ``warm``: the same after two eager steps at build time, so the compiled code starts with a run's state;
- ``train_step``: ``zero_grad()``, the loss, ``backward()`` (under ``enable_grad``), ``step()`` and the network's
  output, what a compiled training step runs;
- ``closure``: ``step(closure)``, the closure computing the loss and its gradients;
- ``groups``: two parameter groups, the second with its own learning rate and betas, or its own weight decay and
  restart condition (a training step);
- ``frozen``: a parameter that never gets a gradient (the ``p.grad is None`` skip).

Configurations: the README's settings (``lr=1e-3``, ``betas=(0.02, 0.08, 0.01)``, ``weight_decay=0.02``), the
defaults (no weight decay), another eps, a restart condition on the step count (a Python test) and one on the
momentum's norm (a test of a tensor, as a user might restart on a blow-up), the conv net and bfloat16 parameters.
Adan asserts dense gradients, so no sparse ones are benched. Random weights, nothing downloaded; ``names()`` needs
no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

README = {"lr": 1e-3, "betas": (0.02, 0.08, 0.01), "weight_decay": 0.02}
EPS = {"eps": 1e-6}
# ``restart_cond`` is named here and resolved in the worker: "every_other" (the step count) or "norm" (a tensor).
RESTART_STEP = {**README, "restart_cond": "every_other"}
RESTART_NORM = {"restart_cond": "norm"}
# The parameter groups: the last layer with its own learning rate and betas, or its own weight decay and restart.
GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 1e-2, "betas": (0.1, 0.1, 0.1)},
                                     "groups_mixed": {"weight_decay": 0.0, "restart_cond": "every_other"}}
# Model name -> (keywords, kind: "step", "warm", "train_step", "closure", "groups", "groups_mixed", "frozen";
# net: "mlp", "conv" or "bf16").
MODELS: dict[str, tuple[dict[str, Any], str, str]] = {
    "Adan.step": (README, "step", "mlp"),
    "Adan.step.defaults": ({}, "step", "mlp"),
    "Adan.step.eps": (EPS, "step", "mlp"),
    "Adan.step.restart_cond": (RESTART_STEP, "step", "mlp"),
    "Adan.step.restart_cond.norm": (RESTART_NORM, "step", "mlp"),
    "Adan.step.conv": (README, "step", "conv"),
    "Adan.step.bf16": (README, "step", "bf16"),
    "Adan.warm": (README, "warm", "mlp"),
    "Adan.warm.restart_cond": (RESTART_STEP, "warm", "mlp"),
    "Adan.warm.restart_cond.norm": (RESTART_NORM, "warm", "mlp"),
    "Adan.train_step": (README, "train_step", "mlp"),
    "Adan.train_step.defaults": ({}, "train_step", "mlp"),
    "Adan.train_step.restart_cond": (RESTART_STEP, "train_step", "mlp"),
    "Adan.train_step.conv": (README, "train_step", "conv"),
    "Adan.train_step.bf16": ({}, "train_step", "bf16"),
    "Adan.closure": (README, "closure", "mlp"),
    "Adan.closure.conv.restart_cond": (RESTART_STEP, "closure", "conv"),
    "Adan.groups.lr_betas": (README, "groups", "mlp"),
    "Adan.groups.mixed": (README, "groups_mixed", "mlp"),
    "Adan.frozen": (README, "frozen", "mlp"),
}


def names() -> list[str]:
    return list(MODELS)


def _restart_every_other(state: dict[str, Any]) -> bool:
    """Restart at every other step (the state's step count is the one before this step)."""
    return state["step"] % 2 == 1


def _restart_on_norm(state: dict[str, Any]) -> Any:
    """Restart when the first average's norm grows past a bound."""
    return state["m"].norm() > 0.05


RESTARTS = {"every_other": _restart_every_other, "norm": _restart_on_norm}


def _resolved(keywords: dict[str, Any]) -> dict[str, Any]:
    if "restart_cond" not in keywords:
        return dict(keywords)
    return {**keywords, "restart_cond": RESTARTS[keywords["restart_cond"]]}


def build(name: str) -> Built:
    import warnings

    import torch
    from adan_pytorch import Adan

    from gt_optimizer_bench import optimizer_model, tiny_model

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    keywords, kind, net_kind = MODELS[name]
    net, x, y = tiny_model(net_kind)
    groups = {kind: _resolved(settings) for kind, settings in GROUPS.items()}
    return optimizer_model(Adan, _resolved(keywords), kind, net, x, y, groups)
