"""Ground-truth bench, dadaptation: the D-Adaptation optimizers (learning-rate-free Adam, SGD, AdaGrad, Adan, Lion).

dadaptation (facebookresearch) ships ``torch.optim.Optimizer`` subclasses that estimate the distance to
the solution ``D`` on the fly and scale the step by it: ``DAdaptAdam``, ``DAdaptSGD``, ``DAdaptAdaGrad``
(dense and sparse gradients), ``DAdaptAdan`` (with its ``restart_opt``) and ``DAdaptLion``, and, under
``dadaptation.experimental``, ``DAdaptAdamPreprint`` and ``DAdaptAdanIP``. Each step sums statistics of
every parameter into Python floats, then updates ``d`` and the parameters. Each model is a bench module
holding a tiny network (an MLP 8 -> 16 -> 4, a small conv net with batch norm, or an embedding bag with
sparse gradients; batch 2) and its optimizer; the harness calls it twice in eval and twice in train mode
and the optimizer's state carries over, so the first step (state creation, ``k == 0``) and the later ones
are both traced. Its forward is one of:

- ``step``: one ``optimizer.step()`` alone, the gradients assigned (``gt_calls.OptimizerStep``, as users
  compile ``opt.step``);
- ``warm``: the same after two eager steps at build time, so the compiled code starts with the state, the
  running sums and ``d`` of a run under way;
- ``train_step``: ``zero_grad()``, the loss, ``backward()`` (under ``enable_grad``), ``step()`` and the
  network's output, what a compiled training step runs;
- ``closure``: ``step(closure)``, the closure computing the loss and its gradients;
- ``groups``: two parameter groups, the second with the learning rate 0 (frozen by the optimizer, the only
  other value D-Adaptation allows) or, for ``DAdaptAdam``, its own ``layer_scale``;
- ``frozen``: a parameter that never gets a gradient (the ``p.grad is None`` skip);
- ``restart``: ``DAdaptAdan.restart_opt()`` then a step.

Configurations: the defaults, weight decay (coupled and ``decouple``d), ``use_bias_correction``,
``growth_rate`` (bounded growth of ``d``), ``d0``, momentum (SGD, AdaGrad), ``no_prox`` (Adan) and betas;
``log_every`` stays at 0 (off) and ``fsdp_in_use`` off (no process group on a CPU bench). Options that
only change numbers are left out. Random weights, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

WD = {"weight_decay": 1e-2}
DECOUPLE = {"weight_decay": 1e-2, "decouple": True}
GROWTH = {"growth_rate": 1.02}
D0 = {"d0": 1e-4}
# Optimizer -> the module defining it.
# The parameter groups: the last layer's learning rate 0, or its ``layer_scale`` (``DAdaptAdam``'s per-group scale).
GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 0.0}, "layer_scale": {"layer_scale": 0.5}}
CLASSES = {"DAdaptAdam": "dadaptation", "DAdaptSGD": "dadaptation", "DAdaptAdaGrad": "dadaptation",
           "DAdaptAdan": "dadaptation", "DAdaptLion": "dadaptation",
           "DAdaptAdamPreprint": "dadaptation.experimental", "DAdaptAdanIP": "dadaptation.experimental"}
# Model name -> (optimizer, keywords, kind: "step", "warm", "train_step", "closure", "groups", "layer_scale",
# "frozen", "restart"; net: "mlp", "conv" or "sparse").
MODELS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "DAdaptAdam.step": ("DAdaptAdam", {}, "step", "mlp"),
    "DAdaptAdam.step.weight_decay": ("DAdaptAdam", WD, "step", "mlp"),
    "DAdaptAdam.step.decouple": ("DAdaptAdam", DECOUPLE, "step", "mlp"),
    "DAdaptAdam.step.bias_correction": ("DAdaptAdam", {"use_bias_correction": True}, "step", "mlp"),
    "DAdaptAdam.step.growth_rate.d0": ("DAdaptAdam", {**GROWTH, **D0}, "step", "mlp"),
    "DAdaptAdam.warm": ("DAdaptAdam", DECOUPLE, "warm", "mlp"),
    "DAdaptAdam.train_step": ("DAdaptAdam", {}, "train_step", "mlp"),
    "DAdaptAdam.train_step.bias_correction.conv": ("DAdaptAdam", {**WD, "use_bias_correction": True}, "train_step",
                                                   "conv"),
    "DAdaptAdam.closure": ("DAdaptAdam", WD, "closure", "mlp"),
    "DAdaptAdam.groups.lr0": ("DAdaptAdam", {}, "groups", "mlp"),
    "DAdaptAdam.groups.layer_scale": ("DAdaptAdam", DECOUPLE, "layer_scale", "mlp"),
    "DAdaptAdam.frozen": ("DAdaptAdam", {}, "frozen", "mlp"),
    "DAdaptSGD.step": ("DAdaptSGD", {}, "step", "mlp"),
    "DAdaptSGD.step.momentum": ("DAdaptSGD", {"momentum": 0.9}, "step", "mlp"),
    "DAdaptSGD.step.weight_decay": ("DAdaptSGD", WD, "step", "mlp"),
    "DAdaptSGD.step.growth_rate.d0": ("DAdaptSGD", {**GROWTH, **D0}, "step", "mlp"),
    "DAdaptSGD.warm": ("DAdaptSGD", {"momentum": 0.9}, "warm", "mlp"),
    "DAdaptSGD.train_step": ("DAdaptSGD", {"momentum": 0.9}, "train_step", "mlp"),
    "DAdaptSGD.train_step.conv": ("DAdaptSGD", WD, "train_step", "conv"),
    "DAdaptSGD.closure": ("DAdaptSGD", {}, "closure", "mlp"),
    "DAdaptSGD.groups.lr0": ("DAdaptSGD", {}, "groups", "mlp"),
    "DAdaptSGD.frozen": ("DAdaptSGD", {}, "frozen", "mlp"),
    "DAdaptAdaGrad.step": ("DAdaptAdaGrad", {}, "step", "mlp"),
    "DAdaptAdaGrad.step.momentum": ("DAdaptAdaGrad", {"momentum": 0.9}, "step", "mlp"),
    "DAdaptAdaGrad.step.weight_decay": ("DAdaptAdaGrad", WD, "step", "mlp"),
    "DAdaptAdaGrad.step.growth_rate.d0": ("DAdaptAdaGrad", {**GROWTH, **D0}, "step", "mlp"),
    "DAdaptAdaGrad.warm": ("DAdaptAdaGrad", {}, "warm", "mlp"),
    "DAdaptAdaGrad.train_step": ("DAdaptAdaGrad", {}, "train_step", "mlp"),
    "DAdaptAdaGrad.closure": ("DAdaptAdaGrad", {"momentum": 0.9}, "closure", "mlp"),
    "DAdaptAdaGrad.sparse": ("DAdaptAdaGrad", {}, "train_step", "sparse"),
    "DAdaptAdaGrad.sparse.momentum": ("DAdaptAdaGrad", {"momentum": 0.9}, "train_step", "sparse"),
    "DAdaptAdaGrad.frozen": ("DAdaptAdaGrad", {}, "frozen", "mlp"),
    "DAdaptAdan.step": ("DAdaptAdan", {}, "step", "mlp"),
    "DAdaptAdan.step.no_prox": ("DAdaptAdan", {"no_prox": True}, "step", "mlp"),
    "DAdaptAdan.step.no_weight_decay": ("DAdaptAdan", {"weight_decay": 0.0}, "step", "mlp"),
    "DAdaptAdan.step.growth_rate.d0": ("DAdaptAdan", {**GROWTH, **D0}, "step", "mlp"),
    "DAdaptAdan.warm": ("DAdaptAdan", {}, "warm", "mlp"),
    "DAdaptAdan.train_step": ("DAdaptAdan", {}, "train_step", "mlp"),
    "DAdaptAdan.train_step.conv": ("DAdaptAdan", {"no_prox": True}, "train_step", "conv"),
    "DAdaptAdan.closure": ("DAdaptAdan", {}, "closure", "mlp"),
    "DAdaptAdan.restart_opt": ("DAdaptAdan", {}, "restart", "mlp"),
    "DAdaptAdan.frozen": ("DAdaptAdan", {}, "frozen", "mlp"),
    "DAdaptLion.step": ("DAdaptLion", {}, "step", "mlp"),
    "DAdaptLion.step.weight_decay": ("DAdaptLion", WD, "step", "mlp"),
    "DAdaptLion.step.betas.d0": ("DAdaptLion", {"betas": (0.95, 0.98), **D0}, "step", "mlp"),
    "DAdaptLion.warm": ("DAdaptLion", WD, "warm", "mlp"),
    "DAdaptLion.train_step": ("DAdaptLion", {}, "train_step", "mlp"),
    "DAdaptLion.train_step.conv": ("DAdaptLion", WD, "train_step", "conv"),
    "DAdaptLion.closure": ("DAdaptLion", {}, "closure", "mlp"),
    "DAdaptLion.groups.lr0": ("DAdaptLion", {}, "groups", "mlp"),
    "DAdaptLion.frozen": ("DAdaptLion", {}, "frozen", "mlp"),
    "DAdaptAdamPreprint.step": ("DAdaptAdamPreprint", {}, "step", "mlp"),
    "DAdaptAdamPreprint.step.decouple.growth_rate": ("DAdaptAdamPreprint", {**DECOUPLE, **GROWTH}, "step", "mlp"),
    "DAdaptAdamPreprint.train_step": ("DAdaptAdamPreprint", WD, "train_step", "mlp"),
    "DAdaptAdamPreprint.groups.lr0": ("DAdaptAdamPreprint", {}, "groups", "mlp"),
    "DAdaptAdanIP.step": ("DAdaptAdanIP", {}, "step", "mlp"),
    "DAdaptAdanIP.step.no_prox": ("DAdaptAdanIP", {"no_prox": True}, "step", "mlp"),
    "DAdaptAdanIP.train_step": ("DAdaptAdanIP", {}, "train_step", "mlp"),
}


def names() -> list[str]:
    return list(MODELS)


def _net_and_inputs(kind: str) -> tuple[Any, Any, Any]:
    """The bench's tiny MLP or conv net and a batch for it, or a sparse-gradient embedding bag over token ids."""
    from gt_optimizer_bench import embedding_bag, tiny_inputs, tiny_net

    if kind in ("mlp", "conv"):
        return (tiny_net(kind), *tiny_inputs(kind))
    return embedding_bag()


def build(name: str) -> Built:
    import importlib
    import warnings

    import torch

    from gt_optimizer_bench import optimizer_model

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    optimizer_name, keywords, kind, net_kind = MODELS[name]
    cls = getattr(importlib.import_module(CLASSES[optimizer_name]), optimizer_name)
    net, x, y = _net_and_inputs(net_kind)
    return optimizer_model(cls, keywords, kind, net, x, y, GROUPS)
