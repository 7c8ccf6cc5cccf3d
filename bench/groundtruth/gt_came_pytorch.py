"""Ground-truth bench, came_pytorch: the CAME optimizer (Confidence-guided Adaptive Memory Efficient Optimization).

came_pytorch ships one ``torch.optim.Optimizer`` subclass, ``CAME``: an Adafactor-like method whose second moment
is factored into row and column statistics for parameters of two or more dimensions (a full second moment for
vectors), whose update is clipped by its root mean square (``clip_threshold``), and whose momentum is scaled by a
factored estimate of its instability (the confidence-guided part). The step counter and the parameters' RMS live
in the optimizer's state as a Python number and a tensor. Each model is a bench module holding a tiny network (an
MLP 8 -> 16 -> 4, whose weights are factored and biases are not; a small conv net with batch norm, whose 4-d
kernels factor over their last two dimensions; or the MLP in bfloat16, whose gradients are upcast; batch 2) and
its optimizer; the harness calls it twice in eval and twice in train mode and the state carries over, so the
first step (state creation) and the later ones are both traced. Its forward is one of (``gt_optimizer_bench``):

- ``step``: one ``optimizer.step()`` alone, the gradients assigned (``gt_calls.OptimizerStep``, as users compile
  ``opt.step``);
- ``warm``: the same after two eager steps at build time, so the compiled code starts with a run's state;
- ``train_step``: ``zero_grad()``, the loss, ``backward()`` (under ``enable_grad``), ``step()`` and the network's
  output, what a compiled training step runs;
- ``closure``: ``step(closure)``, the closure computing the loss and its gradients;
- ``groups``: two parameter groups, the second with its own learning rate, or its own weight decay and
  clipping threshold (a training step);
- ``frozen``: a parameter that never gets a gradient (the ``p.grad is None`` skip).

Configurations: the library's README settings (``lr=2e-4``, ``weight_decay=1e-2``, the default betas and eps),
no weight decay (the ``weight_decay != 0`` branch not taken), a tight ``clip_threshold`` (the update's RMS clip
active), other betas and eps, the conv net and bfloat16 parameters. CAME takes no sparse gradients (it raises),
so none are benched. Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

README = {"lr": 2e-4, "weight_decay": 1e-2}
NO_DECAY = {"lr": 2e-4}
CLIP = {"lr": 2e-4, "weight_decay": 1e-2, "clip_threshold": 0.01}
BETAS = {"lr": 1e-3, "betas": (0.8, 0.99, 0.999), "eps": (1e-20, 1e-12)}
# The parameter groups: the last layer with its own learning rate, or its own weight decay and clip threshold.
GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 1e-2},
                                     "groups_mixed": {"weight_decay": 0.0, "clip_threshold": 0.1}}
# Model name -> (keywords, kind: "step", "warm", "train_step", "closure", "groups", "groups_mixed", "frozen";
# net: "mlp", "conv" or "bf16").
MODELS: dict[str, tuple[dict[str, Any], str, str]] = {
    "CAME.step": (README, "step", "mlp"),
    "CAME.step.no_decay": (NO_DECAY, "step", "mlp"),
    "CAME.step.clip_threshold": (CLIP, "step", "mlp"),
    "CAME.step.betas_eps": (BETAS, "step", "mlp"),
    "CAME.step.conv": (README, "step", "conv"),
    "CAME.step.bf16": (README, "step", "bf16"),
    "CAME.warm": (README, "warm", "mlp"),
    "CAME.warm.no_decay.clip_threshold": ({**NO_DECAY, "clip_threshold": 0.01}, "warm", "mlp"),
    "CAME.warm.conv": (README, "warm", "conv"),
    "CAME.train_step": (README, "train_step", "mlp"),
    "CAME.train_step.no_decay": (NO_DECAY, "train_step", "mlp"),
    "CAME.train_step.conv": (README, "train_step", "conv"),
    "CAME.train_step.bf16": (NO_DECAY, "train_step", "bf16"),
    "CAME.closure": (README, "closure", "mlp"),
    "CAME.closure.conv.clip_threshold": (CLIP, "closure", "conv"),
    "CAME.groups.lr": (README, "groups", "mlp"),
    "CAME.groups.mixed": (CLIP, "groups_mixed", "mlp"),
    "CAME.frozen": (README, "frozen", "mlp"),
}


def names() -> list[str]:
    return list(MODELS)


def build(name: str) -> Built:
    import warnings

    import torch
    from came_pytorch.CAME import CAME

    from gt_optimizer_bench import optimizer_model, tiny_model

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    keywords, kind, net_kind = MODELS[name]
    net, x, y = tiny_model(net_kind)
    return optimizer_model(CAME, keywords, kind, net, x, y, GROUPS)
