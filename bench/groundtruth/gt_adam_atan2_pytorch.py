"""Ground-truth bench, adam_atan2_pytorch: Adam with ``atan2`` in place of epsilon, and its variants.

adam_atan2_pytorch 0.4.1 ships ``torch.optim.Optimizer`` subclasses that replace Adam's ``m / (sqrt(v) + eps)`` by
``a * atan2(m, b * sqrt(v))`` (bias-corrected, the step counter a Python number in each parameter's state):

- ``AdamAtan2`` (``adam_atan2``): with decoupled weight decay (``decoupled_wd`` divides it by the learning rate),
  cautious weight decay (a mask of the update's agreement with the parameter), a cautious update
  (``cautious_factor < 1``: updates against the gradient scaled down) and regenerative regularization (a lerp back
  to the initial parameters, kept in the state);
- ``AdamAtan2ClipGrok``: the same, then each matrix's rows softly clipped in norm (``clip_to_grok``);
- ``AdoptAtan2`` and ``adopt.Adopt``: ADOPT (the second moment from the previous gradient, the first step only
  storing it), with ``atan2`` or with a clipped division;
- ``foreach.AdamAtan2``: the update over lists with ``torch._foreach_*`` calls, ``atan2`` by
  ``torch._foreach_atan2_`` or the library's per-tensor loop (``foreach_atan2_fn``);
- ``adam_atan2_with_wasserstein_reg.AdamAtan2``: regenerative regularization toward the sorted initial values
  (a sort and an ``argsort`` each step);
- ``adam_atan2_with_orthog_grad.AdamAtan2``: the gradient projected orthogonally to an EMA of past gradients kept
  under a key (``step(store_grad_key=..., orthog_against_key=...)``, ``reset_(key)``), in double precision or not;
- ``MuonAdamAtan2`` and ``PolarAdamAtan2``: the matrices (given first) updated by Muon's Newton-Schulz iteration
  (optionally NorMuon's per-neuron normalization) or by the Polar Express polynomials (optionally in bfloat16),
  the other parameters by Adam-atan2, in two groups built by the constructor.

Each model is a bench module holding a tiny network (an MLP 8 -> 16 -> 4, a small conv net with batch norm, or
the MLP in bfloat16; batch 2) and its optimizer; the harness calls it twice in eval and twice in train mode and
the state carries over, so the first step and the later ones are both traced. Its forward is one of
(``gt_optimizer_bench``): ``step`` (one ``optimizer.step()``, the gradients assigned, as users compile
``opt.step``), ``warm`` (the same after two eager steps), ``train_step`` (``zero_grad()``, loss, ``backward()``
under ``enable_grad``, ``step()``), ``closure`` (``step(closure)``), ``groups`` (the last layer in a group of its
own settings, a training step), ``frozen`` (a parameter without a gradient), and for the orthogonal-gradient
variant ``keyed`` (``step`` with its keys) and ``reset`` (``reset_()`` before a training step). Random weights,
nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Optimizer label -> (module, class name, takes the matrices first: Muon / Polar).
CLASSES: dict[str, tuple[str, str, bool]] = {
    "AdamAtan2": ("adam_atan2_pytorch.adam_atan2", "AdamAtan2", False),
    "AdamAtan2ClipGrok": ("adam_atan2_pytorch.adam_atan2_clip_grok", "AdamAtan2ClipGrok", False),
    "AdoptAtan2": ("adam_atan2_pytorch.adopt_atan2", "AdoptAtan2", False),
    "Adopt": ("adam_atan2_pytorch.adopt", "Adopt", False),
    "foreach.AdamAtan2": ("adam_atan2_pytorch.foreach", "AdamAtan2", False),
    "wasserstein.AdamAtan2": ("adam_atan2_pytorch.adam_atan2_with_wasserstein_reg", "AdamAtan2", False),
    "orthog_grad.AdamAtan2": ("adam_atan2_pytorch.adam_atan2_with_orthog_grad", "AdamAtan2", False),
    "MuonAdamAtan2": ("adam_atan2_pytorch.muon_adam_atan2", "MuonAdamAtan2", True),
    "PolarAdamAtan2": ("adam_atan2_pytorch.polar_adam_atan2", "PolarAdamAtan2", True),
}
WD = {"lr": 1e-3, "weight_decay": 1e-2}
DECOUPLED = {"lr": 1e-3, "weight_decay": 1e-2, "decoupled_wd": True}
CAUTIOUS_WD = {"lr": 1e-3, "weight_decay": 1e-2, "cautious_wd": True}
CAUTIOUS = {"cautious_factor": 0.0}
CAUTIOUS_HALF = {"cautious_factor": 0.5, "weight_decay": 1e-2}
REGEN = {"lr": 1e-3, "regen_reg_rate": 1e-2}
AB = {"a": 1.0, "b": 0.5, "betas": (0.8, 0.95)}
# The parameter groups: the last layer with its own learning rate and betas, or its own decay and caution.
GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 1e-2, "betas": (0.5, 0.9)},
                                     "groups_mixed": {"weight_decay": 0.0, "cautious_factor": 0.5}}
ADOPT_GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 1e-2, "betas": (0.5, 0.9)},
                                           "groups_mixed": {"weight_decay": 0.0, "eps": 1e-3}}
PLAIN_GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 1e-2, "betas": (0.5, 0.9)},
                                           "groups_mixed": {"weight_decay": 0.0, "b": 2.0}}
# Model name -> (optimizer label, keywords, kind, net: "mlp", "conv" or "bf16").
MODELS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "AdamAtan2.step": ("AdamAtan2", {}, "step", "mlp"),
    "AdamAtan2.step.weight_decay": ("AdamAtan2", WD, "step", "mlp"),
    "AdamAtan2.step.decoupled_wd": ("AdamAtan2", DECOUPLED, "step", "mlp"),
    "AdamAtan2.step.cautious_wd": ("AdamAtan2", CAUTIOUS_WD, "step", "mlp"),
    "AdamAtan2.step.cautious_factor": ("AdamAtan2", CAUTIOUS, "step", "mlp"),
    "AdamAtan2.step.regen_reg": ("AdamAtan2", REGEN, "step", "mlp"),
    "AdamAtan2.train_step": ("AdamAtan2", {}, "train_step", "mlp"),
    "AdamAtan2.train_step.conv": ("AdamAtan2", DECOUPLED, "train_step", "conv"),
    "AdamAtan2.train_step.bf16": ("AdamAtan2", WD, "train_step", "bf16"),
    "AdamAtan2.groups.mixed": ("AdamAtan2", WD, "groups_mixed", "mlp"),
    "AdamAtan2ClipGrok.step": ("AdamAtan2ClipGrok", {}, "step", "mlp"),
    "AdamAtan2ClipGrok.step.max_norm": ("AdamAtan2ClipGrok", {"clip_to_grok_max_norm": 1.2, **WD}, "step", "mlp"),
    "AdamAtan2ClipGrok.step.cautious": ("AdamAtan2ClipGrok", {**CAUTIOUS_WD, **CAUTIOUS}, "step", "mlp"),
    "AdamAtan2ClipGrok.warm.regen_reg": ("AdamAtan2ClipGrok", {**REGEN, "decoupled_wd": True}, "warm", "mlp"),
    "AdamAtan2ClipGrok.closure.conv": ("AdamAtan2ClipGrok", {}, "closure", "conv"),
    "AdoptAtan2.warm": ("AdoptAtan2", {}, "warm", "mlp"),
    "AdoptAtan2.warm.coupled_wd": ("AdoptAtan2", {**WD, "decoupled_wd": False}, "warm", "mlp"),
    "AdoptAtan2.warm.regen_reg": ("AdoptAtan2", REGEN, "warm", "mlp"),
    "AdoptAtan2.warm.cautious_factor": ("AdoptAtan2", CAUTIOUS, "warm", "mlp"),
    "AdoptAtan2.closure": ("AdoptAtan2", CAUTIOUS_HALF, "closure", "mlp"),
    "AdoptAtan2.groups.mixed": ("AdoptAtan2", WD, "groups_mixed", "mlp"),
    "Adopt.warm": ("Adopt", {}, "warm", "mlp"),
    "Adopt.warm.coupled_wd.eps": ("Adopt", {**WD, "decoupled_wd": False, "eps": 1e-3}, "warm", "mlp"),
    "Adopt.train_step.conv": ("Adopt", WD, "train_step", "conv"),
    "Adopt.closure": ("Adopt", {}, "closure", "mlp"),
    "foreach.AdamAtan2.step": ("foreach.AdamAtan2", {}, "step", "mlp"),
    "foreach.AdamAtan2.step.decoupled_wd": ("foreach.AdamAtan2", DECOUPLED, "step", "mlp"),
    "foreach.AdamAtan2.step.regen_reg": ("foreach.AdamAtan2", REGEN, "step", "mlp"),
    "foreach.AdamAtan2.step.slow_atan2": ("foreach.AdamAtan2", {"foreach_atan2_fn": "slow"}, "step", "mlp"),
    "foreach.AdamAtan2.train_step.bf16": ("foreach.AdamAtan2", {}, "train_step", "bf16"),
    "foreach.AdamAtan2.closure.slow_atan2": ("foreach.AdamAtan2", {"foreach_atan2_fn": "slow"}, "closure", "mlp"),
    "foreach.AdamAtan2.groups.mixed": ("foreach.AdamAtan2", WD, "groups_mixed", "mlp"),
    "wasserstein.AdamAtan2.warm.regen_reg": ("wasserstein.AdamAtan2", REGEN, "warm", "mlp"),
    "wasserstein.AdamAtan2.warm.regen_reg.conv": ("wasserstein.AdamAtan2", REGEN, "warm", "conv"),
    "wasserstein.AdamAtan2.train_step.regen_reg": ("wasserstein.AdamAtan2", REGEN, "train_step", "mlp"),
    "orthog_grad.AdamAtan2.step": ("orthog_grad.AdamAtan2", {}, "step", "mlp"),
    "orthog_grad.AdamAtan2.warm": ("orthog_grad.AdamAtan2", {}, "warm", "mlp"),
    "orthog_grad.AdamAtan2.warm.cautious": ("orthog_grad.AdamAtan2", {**CAUTIOUS_WD, **CAUTIOUS}, "warm", "mlp"),
    "orthog_grad.AdamAtan2.keyed.no_store": ("orthog_grad.AdamAtan2", {}, "keyed_no_store", "mlp"),
    "orthog_grad.AdamAtan2.keyed.no_orthog_key": ("orthog_grad.AdamAtan2", {}, "keyed_no_against", "mlp"),
    "orthog_grad.AdamAtan2.keyed.two_keys": ("orthog_grad.AdamAtan2", {}, "keyed_two", "mlp"),
    "orthog_grad.AdamAtan2.train_step.conv": ("orthog_grad.AdamAtan2", {}, "train_step", "conv"),
    "orthog_grad.AdamAtan2.reset": ("orthog_grad.AdamAtan2", {}, "reset", "mlp"),
    "orthog_grad.AdamAtan2.reset.key": ("orthog_grad.AdamAtan2", {}, "reset_key", "mlp"),
    "MuonAdamAtan2.step": ("MuonAdamAtan2", {}, "step", "mlp"),
    "MuonAdamAtan2.step.normuon": ("MuonAdamAtan2", {"use_normuon": True}, "step", "mlp"),
    "MuonAdamAtan2.step.muon_lr.decoupled_wd": ("MuonAdamAtan2", {**DECOUPLED, "muon_lr": 1e-2}, "step", "mlp"),
    "MuonAdamAtan2.step.cautious_factor": ("MuonAdamAtan2", CAUTIOUS_HALF, "step", "mlp"),
    "MuonAdamAtan2.step.no_bypass.conv": ("MuonAdamAtan2", {"muon_bypass_update_fn": None}, "step", "conv"),
    "MuonAdamAtan2.warm.normuon": ("MuonAdamAtan2", {"use_normuon": True, **WD}, "warm", "mlp"),
    "MuonAdamAtan2.train_step.bf16": ("MuonAdamAtan2", {}, "train_step", "bf16"),
    "MuonAdamAtan2.closure": ("MuonAdamAtan2", {"use_normuon": True}, "closure", "mlp"),
    "PolarAdamAtan2.step": ("PolarAdamAtan2", {}, "step", "mlp"),
    "PolarAdamAtan2.step.cast_bfloat16": ("PolarAdamAtan2", {"polar_cast_bfloat16": True}, "step", "mlp"),
    "PolarAdamAtan2.step.many_steps": ("PolarAdamAtan2", {"polar_steps": 9}, "step", "mlp"),
    "PolarAdamAtan2.warm.regen_cautious": ("PolarAdamAtan2", {**REGEN, **CAUTIOUS}, "warm", "mlp"),
    "PolarAdamAtan2.train_step.bf16": ("PolarAdamAtan2", {}, "train_step", "bf16"),
    "PolarAdamAtan2.closure.conv": ("PolarAdamAtan2", WD, "closure", "conv"),
}
# The orthogonal-gradient variant's ``step`` keywords, per keyed kind.
KEYS: dict[str, dict[str, Any]] = {
    "keyed_no_store": {"store_grad_key": None},
    "keyed_no_against": {"orthog_against_key": None},
    "keyed_two": {"store_grad_key": "aux", "orthog_against_key": "aux"},
}


def names() -> list[str]:
    return list(MODELS)


def _class(label: str) -> Any:
    import importlib

    module, name, _ = CLASSES[label]
    return getattr(importlib.import_module(module), name)


def _keyword_values(keywords: dict[str, Any]) -> dict[str, Any]:
    """The keywords with their named callables resolved (``foreach_atan2_fn="slow"``: the library's loop)."""
    resolved = dict(keywords)
    if resolved.get("foreach_atan2_fn") == "slow":
        from adam_atan2_pytorch.foreach import slow_foreach_atan2_

        resolved["foreach_atan2_fn"] = slow_foreach_atan2_
    return resolved


def _keyed_step(net: Any, optimizer: Any, gradients: tuple[Any, ...], keys: dict[str, Any]) -> Built:
    """One ``optimizer.step(**keys)`` with the gradients assigned."""
    from gt_calls import OptimizerStep

    class _KeyedStep(OptimizerStep):
        def forward(self, *tensors: Any) -> Any:
            for parameter, grad in zip(self.net.parameters(), tensors):
                parameter.grad = grad.clone()
            return self.optimizer.step(**keys)

    return _KeyedStep(net, optimizer), gradients, {}


def build(name: str) -> Built:
    import warnings

    import torch
    from torch import nn

    from gt_optimizer_bench import (OUT, gradients_at, optimizer_model, step_model, tiny_model,
                                    train_step_model)

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    label, keywords, kind, net_kind = MODELS[name]
    cls = _class(label)
    keywords = _keyword_values(keywords)
    net, x, y = tiny_model(net_kind)
    if CLASSES[label][2]:
        matrices = [p for p in net.parameters() if p.ndim >= 2]
        parameters = list(net.parameters())
        if kind == "frozen":
            parameters.append(nn.Parameter(torch.zeros(OUT)))
        optimizer = cls(matrices, parameters, **keywords)
        if kind in ("step", "warm", "frozen"):
            return step_model(net, optimizer, x, y, warm=kind == "warm")
        return train_step_model(net, optimizer, x, y, closure=kind == "closure")
    if kind in KEYS:
        optimizer = cls(net.parameters(), **keywords)
        return _keyed_step(net, optimizer, gradients_at(net, x, y)(3), KEYS[kind])
    if kind in ("reset", "reset_key"):
        optimizer = cls(net.parameters(), **keywords)
        key = "orig_grad" if kind == "reset_key" else None
        return train_step_model(net, optimizer, x, y, closure=False, before=lambda opt: opt.reset_(key),
                                entry_points=[cls.reset_, cls.step])
    groups = ADOPT_GROUPS if label == "Adopt" else PLAIN_GROUPS if label in (
        "foreach.AdamAtan2", "wasserstein.AdamAtan2") else GROUPS
    return optimizer_model(cls, keywords, kind, net, x, y, groups)
