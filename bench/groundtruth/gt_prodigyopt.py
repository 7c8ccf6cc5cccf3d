"""Ground-truth bench, prodigyopt: the Prodigy optimizer (Adam with D-Adaptation step sizes) and its reference.

prodigyopt ships ``Prodigy``, a ``torch.optim.Optimizer`` that estimates the distance to the solution
``d`` from running sums of every parameter's gradients (Python floats read with ``.item()``) and scales
an Adam step by it, and ``ProdigyReference`` (``prodigyopt.prodigy_reference``), the same method without
the slicing of the statistics. Each model is a bench module holding a tiny network (an MLP 8 -> 16 -> 4 or
a small conv net with batch norm, batch 2) and its optimizer; the harness calls it twice in eval and twice
in train mode and the optimizer's state carries over, so the first step (state creation, ``p0``) and the
later ones are both traced. Its forward is one of:

- ``step``: one ``optimizer.step()`` alone, the gradients assigned (``gt_calls.OptimizerStep``, as users
  compile ``opt.step``);
- ``warm``: the same after two eager steps at build time, so the compiled code starts with the state,
  ``d`` and the running sums of a run under way;
- ``train_step``: ``zero_grad()``, the loss, ``backward()`` (under ``enable_grad``), ``step()`` and the
  network's output, what a compiled training step runs;
- ``closure``: ``step(closure)``, the closure computing the loss and its gradients;
- ``groups``: two parameter groups, the second with the learning rate 0 (the only other value Prodigy
  allows: the group is frozen) and its own weight decay;
- ``frozen``: a parameter that never gets a gradient (the ``p.grad is None`` skip);
- ``zeros``: a network whose last layer starts at zero (the ``p.any()`` test that picks a scalar ``p0``).

Configurations: the defaults, weight decay decoupled (the default) and coupled (``decouple=False``),
``use_bias_correction``, ``safeguard_warmup``, ``d_coef``, ``growth_rate``, ``d0``, ``beta3``, ``slice_p``
(statistics on every p-th entry), and ``betas`` with ``beta1 = 0`` (no first moment: the step divides the
gradient itself); ``fsdp_in_use`` stays off (no process group on a CPU bench). Random weights, nothing
downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

WD = {"weight_decay": 1e-2}
COUPLED = {"weight_decay": 1e-2, "decouple": False}
SLICE = {"slice_p": 11}
# Optimizer -> the module defining it.
# The second parameter group, frozen by a learning rate of 0 (the only other value Prodigy allows).
GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 0.0, "weight_decay": 0.0}}
CLASSES = {"Prodigy": "prodigyopt", "ProdigyReference": "prodigyopt.prodigy_reference"}
# Model name -> (optimizer, keywords, kind: "step", "warm", "train_step", "closure", "groups", "frozen",
# "zeros"; net: "mlp" or "conv").
MODELS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "Prodigy.step": ("Prodigy", {}, "step", "mlp"),
    "Prodigy.step.weight_decay": ("Prodigy", WD, "step", "mlp"),
    "Prodigy.step.coupled_weight_decay": ("Prodigy", COUPLED, "step", "mlp"),
    "Prodigy.step.bias_correction": ("Prodigy", {"use_bias_correction": True}, "step", "mlp"),
    "Prodigy.step.safeguard_warmup": ("Prodigy", {"safeguard_warmup": True}, "step", "mlp"),
    "Prodigy.step.d_coef.growth_rate": ("Prodigy", {"d_coef": 0.5, "growth_rate": 1.02}, "step", "mlp"),
    "Prodigy.step.d0.beta3": ("Prodigy", {"d0": 1e-4, "beta3": 0.9}, "step", "mlp"),
    "Prodigy.step.slice_p": ("Prodigy", SLICE, "step", "mlp"),
    "Prodigy.step.beta1_zero": ("Prodigy", {"betas": (0.0, 0.999)}, "step", "mlp"),
    "Prodigy.step.conv": ("Prodigy", WD, "step", "conv"),
    "Prodigy.warm": ("Prodigy", WD, "warm", "mlp"),
    "Prodigy.warm.slice_p.bias_correction": ("Prodigy", {**SLICE, "use_bias_correction": True}, "warm", "mlp"),
    "Prodigy.train_step": ("Prodigy", {}, "train_step", "mlp"),
    "Prodigy.train_step.weight_decay": ("Prodigy", WD, "train_step", "mlp"),
    "Prodigy.train_step.safeguard_warmup.bias_correction.conv": (
        "Prodigy", {"safeguard_warmup": True, "use_bias_correction": True, **WD}, "train_step", "conv"),
    "Prodigy.train_step.slice_p.conv": ("Prodigy", SLICE, "train_step", "conv"),
    "Prodigy.closure": ("Prodigy", {}, "closure", "mlp"),
    "Prodigy.closure.coupled_weight_decay": ("Prodigy", COUPLED, "closure", "mlp"),
    "Prodigy.groups.lr0": ("Prodigy", WD, "groups", "mlp"),
    "Prodigy.frozen": ("Prodigy", {}, "frozen", "mlp"),
    "Prodigy.zeros": ("Prodigy", {}, "zeros", "mlp"),
    "Prodigy.zeros.slice_p": ("Prodigy", SLICE, "zeros", "mlp"),
    "ProdigyReference.step": ("ProdigyReference", {}, "step", "mlp"),
    "ProdigyReference.step.coupled_weight_decay": ("ProdigyReference", COUPLED, "step", "mlp"),
    "ProdigyReference.step.safeguard_warmup.bias_correction": (
        "ProdigyReference", {"safeguard_warmup": True, "use_bias_correction": True}, "step", "mlp"),
    "ProdigyReference.step.beta1_zero": ("ProdigyReference", {"betas": (0.0, 0.999)}, "step", "mlp"),
    "ProdigyReference.warm": ("ProdigyReference", WD, "warm", "mlp"),
    "ProdigyReference.train_step": ("ProdigyReference", WD, "train_step", "mlp"),
    "ProdigyReference.closure": ("ProdigyReference", {}, "closure", "mlp"),
    "ProdigyReference.groups.lr0": ("ProdigyReference", {}, "groups", "mlp"),
    "ProdigyReference.zeros": ("ProdigyReference", {}, "zeros", "mlp"),
}


def names() -> list[str]:
    return list(MODELS)


def build(name: str) -> Built:
    import importlib
    import warnings

    import torch

    from gt_optimizer_bench import optimizer_model, tiny_inputs, tiny_net

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    optimizer_name, keywords, kind, net_kind = MODELS[name]
    cls = getattr(importlib.import_module(CLASSES[optimizer_name]), optimizer_name)
    net = tiny_net(net_kind)
    if kind == "zeros":  # a zero-initialised output layer, as some heads and adapters start
        with torch.no_grad():
            net[2].weight.zero_()
            net[2].bias.zero_()
    x, y = tiny_inputs(net_kind)
    return optimizer_model(cls, keywords, kind, net, x, y, GROUPS)
