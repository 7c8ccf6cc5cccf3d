"""Ground-truth bench, pytorch_ranger: the Ranger optimizers (RAdam or QHAdam with Lookahead built in).

pytorch-ranger 0.1.1 ships three ``torch.optim.Optimizer`` subclasses, each keeping per-parameter state (a Python
step counter, the moment buffers and the Lookahead "slow" copy of the weights):

- ``Ranger``: RAdam (the variance-rectified step size, cached per step number in the optimizer's ten-slot
  ``radam_buffer`` list, chosen by comparing the rectification term with ``N_sma_threshhold``) with coupled weight
  decay and a Lookahead interpolation every ``k`` steps (the Python counter modulo ``k``); its ``step`` ignores a
  closure;
- ``RangerQH``: quasi-hyperbolic Adam (``nus``, the discount weights kept as Python floats in the state), coupled or
  decoupled weight decay, ``eps`` optional, Lookahead every ``k`` steps; its ``step`` calls a closure;
- ``RangerVA``: RAdam with calibrated adaptive learning rates: AMSGrad's running maximum (``torch.max`` with
  ``out=``), the gradient transformer (``square`` or ``abs``) and a ``Softplus`` built in each step on the
  denominator (``transformer='softplus'``) or the plain ``sqrt(v) + eps``.

Each model is a bench module holding a tiny network (an MLP 8 -> 16 -> 4, a small conv net with batch norm, or the
MLP in bfloat16; batch 2) and its optimizer; the harness calls it twice in eval and twice in train mode and the
state carries over, so the first step and later ones are both traced. Its forward is one of (``gt_optimizer_bench``):
``step`` (one ``optimizer.step()``, the gradients assigned, as users compile ``opt.step``), ``warm`` (the same after
two eager steps), ``late`` (the same after five eager steps, so that ``Ranger``'s rectification term has grown
past its threshold and the cached step sizes of earlier step numbers are in the buffer), ``train_step`` (``zero_grad()``, loss, ``backward()`` under ``enable_grad``, ``step()``),
``closure`` (``step(closure)``), ``groups`` / ``groups_mixed`` (the last layer in a parameter group of its own
settings) and ``frozen`` (a parameter without a gradient). The options cover Lookahead at every step (``k=1``) or
every other, the rectified branch taken (``N_sma_threshhold=4`` or the default, after five steps: the term is about the step
number, and below 4 its square root is undefined) or never, weight decay in each form, ``nus`` below one and ``eps=0``, AMSGrad off, the ``abs`` transformer and the
plain denominator. Sparse gradients are left out: every optimizer raises on them by design. Random weights,
nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

WD = {"weight_decay": 1e-2}
LA1 = {"k": 1}
LA2 = {"k": 2, "alpha": 0.3}
RECT = {"N_sma_threshhold": 4}
# The parameter groups: the last layer with its own learning rate / betas, or its own decay / lookahead count.
GROUPS: dict[str, dict[str, Any]] = {
    "groups": {"lr": 1e-2, "betas": (0.5, 0.9)},
    "groups_mixed": {"weight_decay": 0.0, "k": 1},
}
QH_GROUPS: dict[str, dict[str, Any]] = {
    "groups": {"lr": 1e-2, "betas": (0.5, 0.9)},
    "groups_mixed": {"weight_decay": 0.0, "nus": (1.0, 1.0), "decouple_weight_decay": True},
}
VA_GROUPS: dict[str, dict[str, Any]] = {
    "groups": {"lr": 1e-2, "betas": (0.5, 0.9)},
    "groups_mixed": {"amsgrad": False, "grad_transformer": "abs", "k": 1},
}
# Model name -> (class name, keywords, kind, net: "mlp", "conv" or "bf16").
MODELS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "Ranger.step": ("Ranger", {}, "step", "mlp"),
    "Ranger.step.lookahead_every_step": ("Ranger", LA1, "step", "mlp"),
    "Ranger.late.rectified": ("Ranger", RECT, "late", "mlp"),
    "Ranger.late.rectified.lookahead": ("Ranger", {**RECT, **LA2}, "late", "mlp"),
    "Ranger.late": ("Ranger", {}, "late", "mlp"),
    "Ranger.step.weight_decay": ("Ranger", {**WD, **LA1}, "step", "mlp"),
    "Ranger.step.never_rectified": ("Ranger", {"N_sma_threshhold": 10_000}, "step", "mlp"),
    "Ranger.warm": ("Ranger", LA2, "warm", "mlp"),
    "Ranger.late.rectified.weight_decay": ("Ranger", {**RECT, **WD}, "late", "conv"),
    "Ranger.train_step": ("Ranger", {}, "train_step", "mlp"),
    "Ranger.train_step.conv": ("Ranger", LA1, "train_step", "conv"),
    "Ranger.train_step.bf16": ("Ranger", {**WD, **LA1}, "train_step", "bf16"),
    "Ranger.closure": ("Ranger", LA1, "closure", "mlp"),
    "Ranger.groups": ("Ranger", {}, "groups", "mlp"),
    "Ranger.groups.mixed": ("Ranger", WD, "groups_mixed", "mlp"),
    "Ranger.frozen": ("Ranger", LA1, "frozen", "mlp"),
    "RangerQH.step": ("RangerQH", {}, "step", "mlp"),
    "RangerQH.step.lookahead_every_step": ("RangerQH", LA1, "step", "mlp"),
    "RangerQH.step.weight_decay": ("RangerQH", {**WD, **LA1}, "step", "mlp"),
    "RangerQH.step.decoupled_wd": ("RangerQH", {**WD, "decouple_weight_decay": True}, "step", "mlp"),
    "RangerQH.step.nus_one": ("RangerQH", {"nus": (1.0, 1.0), **LA2}, "step", "mlp"),
    "RangerQH.step.nus_both": ("RangerQH", {"nus": (0.7, 0.8), "eps": 0.0}, "step", "mlp"),
    "RangerQH.warm": ("RangerQH", LA2, "warm", "mlp"),
    "RangerQH.train_step": ("RangerQH", {}, "train_step", "mlp"),
    "RangerQH.train_step.conv": ("RangerQH", {**WD, **LA1}, "train_step", "conv"),
    "RangerQH.train_step.bf16": ("RangerQH", LA1, "train_step", "bf16"),
    "RangerQH.closure": ("RangerQH", LA1, "closure", "mlp"),
    "RangerQH.closure.decoupled_wd": ("RangerQH", {**WD, "decouple_weight_decay": True}, "closure", "conv"),
    "RangerQH.groups": ("RangerQH", {}, "groups", "mlp"),
    "RangerQH.groups.mixed": ("RangerQH", WD, "groups_mixed", "mlp"),
    "RangerQH.frozen": ("RangerQH", LA1, "frozen", "mlp"),
    "RangerVA.step": ("RangerVA", {}, "step", "mlp"),
    "RangerVA.step.lookahead_every_step": ("RangerVA", LA1, "step", "mlp"),
    "RangerVA.step.no_amsgrad": ("RangerVA", {"amsgrad": False}, "step", "mlp"),
    "RangerVA.step.abs": ("RangerVA", {"grad_transformer": "abs", **LA1}, "step", "mlp"),
    "RangerVA.step.plain_denominator": ("RangerVA", {"transformer": "none", **LA1}, "step", "mlp"),
    "RangerVA.step.weight_decay": ("RangerVA", {**WD, "smooth": 10}, "step", "mlp"),
    "RangerVA.warm": ("RangerVA", LA2, "warm", "mlp"),
    "RangerVA.late.plain_denominator": ("RangerVA", {"transformer": "none"}, "late", "mlp"),
    "RangerVA.warm.abs.no_amsgrad": ("RangerVA", {"grad_transformer": "abs", "amsgrad": False}, "warm", "mlp"),
    "RangerVA.train_step": ("RangerVA", {}, "train_step", "mlp"),
    "RangerVA.train_step.conv": ("RangerVA", {**WD, **LA1}, "train_step", "conv"),
    "RangerVA.train_step.bf16": ("RangerVA", {"amsgrad": False}, "train_step", "bf16"),
    "RangerVA.closure": ("RangerVA", LA1, "closure", "mlp"),
    "RangerVA.groups": ("RangerVA", {}, "groups", "mlp"),
    "RangerVA.groups.mixed": ("RangerVA", WD, "groups_mixed", "mlp"),
    "RangerVA.frozen": ("RangerVA", {"transformer": "none"}, "frozen", "mlp"),
}


def names() -> list[str]:
    return list(MODELS)


def build(name: str) -> Built:
    import warnings

    import torch

    import pytorch_ranger
    from gt_optimizer_bench import gradients_at, optimizer_model, step_model, tiny_model

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    label, keywords, kind, net_kind = MODELS[name]
    cls = getattr(pytorch_ranger, label)
    net, x, y = tiny_model(net_kind)
    if kind == "late":
        optimizer = cls(net.parameters(), **keywords)
        gradients = gradients_at(net, x, y)
        for seed in range(5):
            for parameter, grad in zip(net.parameters(), gradients(seed)):
                parameter.grad = grad.clone()
            optimizer.step()
        return step_model(net, optimizer, x, y, warm=False)
    groups = QH_GROUPS if label == "RangerQH" else VA_GROUPS if label == "RangerVA" else GROUPS
    return optimizer_model(cls, dict(keywords), kind, net, x, y, groups)
