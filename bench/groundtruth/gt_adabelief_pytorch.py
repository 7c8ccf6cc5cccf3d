"""Ground-truth bench, adabelief_pytorch (adabelief-pytorch): the AdaBelief optimizer.

adabelief-pytorch ships one ``torch.optim.Optimizer``, ``AdaBelief``: Adam whose second moment tracks the
variance of the gradient around its running mean (the "belief"), with decoupled or coupled weight decay
(``weight_decouple``, ``fixed_decay``), AMSGrad, and a rectified update forked from RAdam (``rectify``) whose
early steps either fall back to SGD with momentum (``degenerated_to_sgd``) or skip the update, with the
step sizes cached per group in a ten-slot ``buffer``; half-precision parameters are cast to float and back.
Each model is a bench module holding a tiny network (an MLP 8 -> 16 -> 4 or a small conv net with batch norm,
batch 2) and its optimizer (``gt_optimizer_bench``); the harness calls it twice in eval and twice in train
mode and the optimizer's state carries over. Its forward is one of:

- ``step``: one ``optimizer.step()`` alone, the gradients assigned (``gt_calls.OptimizerStep``, as users
  compile ``opt.step``);
- ``warm``: the same after eager steps at build time: two (the early, SGD-like rectified steps), or eight
  (``warm8``: past the point where the rectification term is defined, the adaptive branch);
- ``train_step``: ``zero_grad()``, the loss, ``backward()`` (under ``enable_grad``), ``step()`` and the
  network's output, what a compiled training step runs; ``reset``: ``optimizer.reset()`` first;
- ``closure``: ``step(closure)``, the closure computing the loss and its gradients;
- ``groups``: two parameter groups, the second with its own ``betas`` (its own step-size buffer) and weight
  decay;
- ``frozen``: a parameter that never gets a gradient (the ``p.grad is None`` skip);
- ``half``: the network in float16 (the casts to float and back).

Configurations: the defaults (decoupled decay, rectified, degenerating to SGD), decoupled and fixed weight
decay, coupled weight decay, no rectification, AMSGrad (with and without rectification), no degeneration to
SGD. The change log the constructor prints by default is turned off except in one model. Random weights,
nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

QUIET = {"print_change_log": False}
WD = {**QUIET, "weight_decay": 1e-2}
FIXED = {**WD, "fixed_decay": True}
COUPLED = {**WD, "weight_decouple": False}
PLAIN = {**QUIET, "rectify": False}
AMS = {**QUIET, "amsgrad": True}
NO_SGD = {**QUIET, "degenerated_to_sgd": False}
# The second parameter group, with its own betas (so its own step-size buffer) and weight decay.
GROUPS: dict[str, dict[str, Any]] = {"groups": {"betas": (0.8, 0.99), "weight_decay": 1e-3}}
# Model name -> (``AdaBelief`` keywords, kind: "step", "warm", "warm8", "train_step", "reset", "closure",
# "groups", "frozen", "half"; net: "mlp" or "conv").
MODELS: dict[str, tuple[dict[str, Any], str, str]] = {
    "AdaBelief.step": (QUIET, "step", "mlp"),
    "AdaBelief.step.change_log": ({}, "step", "mlp"),
    "AdaBelief.step.weight_decay": (WD, "step", "mlp"),
    "AdaBelief.step.fixed_decay": (FIXED, "step", "mlp"),
    "AdaBelief.step.coupled_weight_decay": (COUPLED, "step", "mlp"),
    "AdaBelief.step.no_rectify": (PLAIN, "step", "mlp"),
    "AdaBelief.step.amsgrad": (AMS, "step", "mlp"),
    "AdaBelief.step.amsgrad.no_rectify": ({**AMS, "rectify": False}, "step", "mlp"),
    "AdaBelief.step.no_degenerate": (NO_SGD, "step", "mlp"),
    "AdaBelief.step.conv": (WD, "step", "conv"),
    "AdaBelief.step.half": (QUIET, "half", "mlp"),
    "AdaBelief.step.half.no_rectify": (PLAIN, "half", "mlp"),
    "AdaBelief.warm": (WD, "warm", "mlp"),
    "AdaBelief.warm.no_degenerate": (NO_SGD, "warm", "mlp"),
    "AdaBelief.warm8.rectified": (QUIET, "warm8", "mlp"),
    "AdaBelief.warm8.rectified.amsgrad": (AMS, "warm8", "mlp"),
    "AdaBelief.warm8.no_rectify.coupled": ({**COUPLED, "rectify": False}, "warm8", "mlp"),
    "AdaBelief.train_step": (QUIET, "train_step", "mlp"),
    "AdaBelief.train_step.weight_decay.conv": (WD, "train_step", "conv"),
    "AdaBelief.train_step.no_rectify.amsgrad.conv": ({**AMS, "rectify": False}, "train_step", "conv"),
    "AdaBelief.reset": (AMS, "reset", "mlp"),
    "AdaBelief.closure": (QUIET, "closure", "mlp"),
    "AdaBelief.closure.coupled_weight_decay": (COUPLED, "closure", "mlp"),
    "AdaBelief.groups.betas": (WD, "groups", "mlp"),
    "AdaBelief.frozen": (QUIET, "frozen", "mlp"),
}


def names() -> list[str]:
    return list(MODELS)


def build(name: str) -> Built:
    import warnings

    import torch
    from adabelief_pytorch import AdaBelief

    from gt_calls import OptimizerStep
    from gt_optimizer_bench import gradients_at, optimizer_model, tiny_inputs, tiny_net, train_step_model

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    keywords, kind, net_kind = MODELS[name]
    net = tiny_net(net_kind)
    x, y = tiny_inputs(net_kind)
    if kind in ("warm8", "half"):
        if kind == "half":
            net, x, y = net.half(), x.half(), y.half()
        optimizer = AdaBelief(net.parameters(), **keywords)
        gradients = gradients_at(net, x, y)
        for seed in range(8 if kind == "warm8" else 0):
            for parameter, grad in zip(net.parameters(), gradients(seed)):
                parameter.grad = grad.clone()
            optimizer.step()
        return OptimizerStep(net, optimizer), gradients(9), {}
    if kind == "reset":
        optimizer = AdaBelief(net.parameters(), **keywords)
        return train_step_model(net, optimizer, x, y, closure=False, before=lambda opt: opt.reset(),
                                entry_points=[AdaBelief.reset, AdaBelief.step])
    return optimizer_model(AdaBelief, keywords, kind, net, x, y, GROUPS)
