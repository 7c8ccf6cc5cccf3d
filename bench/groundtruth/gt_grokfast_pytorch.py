"""Ground-truth bench, grokfast_pytorch: the ``GrokFastAdamW`` optimizer (AdamW with an amplified slow gradient).

grokfast_pytorch 0.0.11 ships one ``torch.optim.Optimizer`` subclass, ``GrokFastAdamW``: Adam whose gradient is
first filtered in place, ``grad += lamb * ema(grad)`` (the Grokfast EMA filter, started from the first gradient
and kept in the state as ``grok_exp_avg``), with decoupled weight decay scaled by the learning rate's ratio to its
initial value, an optional regenerative regularization (a lerp back to the initial parameters), the step counter
kept as a Python number in the state, and ``grokfast_after_step`` holding the filter off for the first steps. Its
methods ``turn_on_grokfast`` / ``turn_off_grokfast`` flip the filter in every group and ``clear_grokfast_state``
drops the filter's average. With ``add_spectral_entropy_reg`` it registers a step pre-hook that adds the
spectral entropy of every matrix parameter (``svdvals`` or ``svd_lowrank``) as a loss and backpropagates it
before the step. Each model is a bench module holding a tiny network (an MLP 8 -> 16 -> 4, a small conv net with
batch norm, or the MLP in bfloat16; batch 2) and its optimizer; the harness calls it twice in eval and twice in
train mode and the state carries over, so the first step and the later ones are both traced. Its forward is one
of (``gt_optimizer_bench``):

- ``step``: one ``optimizer.step()`` alone, the gradients assigned (``gt_calls.OptimizerStep``, as users compile
  ``opt.step``);
- ``warm``: the same after two eager steps at build time, so the compiled code starts with a run's state;
- ``train_step``: ``zero_grad()``, the loss, ``backward()`` (under ``enable_grad``), ``step()`` and the network's
  output, what a compiled training step runs;
- ``closure``: ``step(closure)``, the closure computing the loss and its gradients;
- ``groups``: two parameter groups, the second with its own learning rate and filter settings, or its own
  weight decay with the filter off (a training step);
- ``frozen``: a parameter that never gets a gradient (the ``p.grad is None`` filter);
- ``grad_step``: the whole training step, ``step()`` included, under ``enable_grad`` (the spectral entropy
  pre-hook backpropagates, so it needs gradients on);
- ``toggle_off`` / ``toggle_on`` / ``clear``: ``turn_off_grokfast()``, ``turn_on_grokfast()`` or
  ``clear_grokfast_state()`` before a training step, as a schedule switching the filter would.

Configurations: the defaults (``lr=1e-4``, the filter on from the first step, ``lamb=2``, the learning rate
normalized by ``1 + lamb``), the filter off, the learning rate not normalized, the filter after two steps
(the second call crosses it), ``lamb=0`` (the filter skipped by its strength), another ``alpha``, weight decay,
regenerative regularization, the spectral entropy regularizer with full and low-rank singular values, the conv
net (4-d kernels in the regularizer) and bfloat16 parameters. Random weights, nothing downloaded; ``names()``
needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DEFAULTS: dict[str, Any] = {}
README = {"lr": 1e-3, "weight_decay": 1e-2}
NO_GROK = {"grokfast": False}
NO_NORMALIZE = {"normalize_lr": False}
AFTER = {"grokfast_after_step": 2}
LAMB0 = {"grokfast_lamb": 0.0}
ALPHA = {"grokfast_alpha": 0.5, "grokfast_lamb": 5.0}
REGEN = {"lr": 1e-3, "regen_reg_rate": 1e-2}
SPECTRAL = {"add_spectral_entropy_reg": True}
SPECTRAL_LOWRANK = {"add_spectral_entropy_reg": True, "use_svd_lowrank": True, "svd_lowrank_kwargs": {"q": 3}}
SPECTRAL_WD = {**README, "add_spectral_entropy_reg": True, "spectral_entropy_reg_weight": 0.5}
# The parameter groups: the last layer with its own learning rate and filter, or its own decay with no filter.
GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 1e-2, "grokfast_alpha": 0.9, "grokfast_lamb": 1.0},
                                     "groups_mixed": {"weight_decay": 0.0, "grokfast": False}}
# Model name -> (keywords, kind, net: "mlp", "conv" or "bf16").
MODELS: dict[str, tuple[dict[str, Any], str, str]] = {
    "GrokFastAdamW.step": (DEFAULTS, "step", "mlp"),
    "GrokFastAdamW.step.readme": (README, "step", "mlp"),
    "GrokFastAdamW.step.no_grokfast": (NO_GROK, "step", "mlp"),
    "GrokFastAdamW.step.no_normalize_lr": (NO_NORMALIZE, "step", "mlp"),
    "GrokFastAdamW.step.after_step": (AFTER, "step", "mlp"),
    "GrokFastAdamW.step.lamb0": (LAMB0, "step", "mlp"),
    "GrokFastAdamW.step.alpha": (ALPHA, "step", "mlp"),
    "GrokFastAdamW.step.regen_reg": (REGEN, "step", "mlp"),
    "GrokFastAdamW.step.conv": (README, "step", "conv"),
    "GrokFastAdamW.step.bf16": (DEFAULTS, "step", "bf16"),
    "GrokFastAdamW.warm": (DEFAULTS, "warm", "mlp"),
    "GrokFastAdamW.warm.after_step": (AFTER, "warm", "mlp"),
    "GrokFastAdamW.warm.regen_reg": (REGEN, "warm", "mlp"),
    "GrokFastAdamW.warm.readme.conv": (README, "warm", "conv"),
    "GrokFastAdamW.train_step": (DEFAULTS, "train_step", "mlp"),
    "GrokFastAdamW.train_step.readme": (README, "train_step", "mlp"),
    "GrokFastAdamW.train_step.no_grokfast": (NO_GROK, "train_step", "mlp"),
    "GrokFastAdamW.train_step.regen_reg": (REGEN, "train_step", "mlp"),
    "GrokFastAdamW.train_step.conv": (README, "train_step", "conv"),
    "GrokFastAdamW.train_step.bf16": (README, "train_step", "bf16"),
    "GrokFastAdamW.closure": (DEFAULTS, "closure", "mlp"),
    "GrokFastAdamW.closure.conv.after_step": (AFTER, "closure", "conv"),
    "GrokFastAdamW.groups.lr_filter": (README, "groups", "mlp"),
    "GrokFastAdamW.groups.mixed": (README, "groups_mixed", "mlp"),
    "GrokFastAdamW.frozen": (DEFAULTS, "frozen", "mlp"),
    "GrokFastAdamW.spectral_entropy": (SPECTRAL, "grad_step", "mlp"),
    "GrokFastAdamW.spectral_entropy.svd_lowrank": (SPECTRAL_LOWRANK, "grad_step", "mlp"),
    "GrokFastAdamW.spectral_entropy.weight_decay": (SPECTRAL_WD, "grad_step", "mlp"),
    "GrokFastAdamW.spectral_entropy.conv": (SPECTRAL, "grad_step", "conv"),
    "GrokFastAdamW.spectral_entropy.closure": (SPECTRAL, "grad_closure", "mlp"),
    "GrokFastAdamW.turn_off_grokfast": (DEFAULTS, "toggle_off", "mlp"),
    "GrokFastAdamW.turn_on_grokfast": (NO_GROK, "toggle_on", "mlp"),
    "GrokFastAdamW.clear_grokfast_state": (README, "clear", "mlp"),
}
# The method a ``before`` kind calls ahead of the training step.
BEFORE = {"toggle_off": "turn_off_grokfast", "toggle_on": "turn_on_grokfast", "clear": "clear_grokfast_state"}


def names() -> list[str]:
    return list(MODELS)


def _grad_step(net: Any, optimizer: Any, x: Any, y: Any, closure: bool) -> Built:
    """A training step wholly under ``enable_grad`` (``step()`` too, so the spectral pre-hook can backpropagate)."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    class _GradStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                def loss_and_gradients() -> torch.Tensor:
                    optimizer.zero_grad()
                    loss = F.mse_loss(self.net(x), y)
                    loss.backward()
                    return loss

                if closure:
                    loss = optimizer.step(loss_and_gradients)
                else:
                    loss = loss_and_gradients()
                    optimizer.step()
            return self.net(x) + loss.detach()

        def entry_points(self) -> list[Any]:
            from grokfast_pytorch.grokfast import spectral_entropy_reg_loss_hook

            return [type(optimizer).step, spectral_entropy_reg_loss_hook]

    return _GradStep(), (x, y), {}


def build(name: str) -> Built:
    import warnings

    import torch
    from grokfast_pytorch import GrokFastAdamW

    from gt_optimizer_bench import optimizer_model, tiny_model, train_step_model

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    keywords, kind, net_kind = MODELS[name]
    net, x, y = tiny_model(net_kind)
    if kind in ("grad_step", "grad_closure"):
        return _grad_step(net, GrokFastAdamW(net.parameters(), **keywords), x, y, closure=kind == "grad_closure")
    if kind in BEFORE:
        optimizer = GrokFastAdamW(net.parameters(), **keywords)
        method = BEFORE[kind]
        return train_step_model(net, optimizer, x, y, closure=False, before=lambda opt: getattr(opt, method)(),
                                entry_points=[getattr(GrokFastAdamW, method), GrokFastAdamW.step])
    return optimizer_model(GrokFastAdamW, dict(keywords), kind, net, x, y, GROUPS)
