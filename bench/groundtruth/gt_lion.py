"""Ground-truth bench, lion_pytorch (lion-pytorch): the Lion optimizer (EvoLved Sign Momentum).

lion-pytorch (lucidrains) ships three ``torch.optim.Optimizer`` subclasses named ``Lion``: the default one
(``lion_pytorch.Lion``, a per-parameter loop calling ``update_fn``; ``use_triton`` swaps in a CUDA kernel,
left off here: the bench runs on the CPU), ``lion_pytorch.foreach.Lion`` (the same update with
``torch._foreach_*`` over each group's lists) and ``lion_pytorch.cautious_lion.Lion`` (the cautious
update, ``cautious_factor`` below 1 masks the components whose sign disagrees with the gradient, and the
cautious weight decay ``cautious_wd``). Each model is a bench module holding a tiny network (an MLP
8 -> 16 -> 4, or a small conv net with batch norm, batch 2) and its optimizer; the harness calls it in
eval and in train mode, and the optimizer's state carries over between the calls, so the first step
(state creation) and the later ones are both traced. Its forward is one of:

- ``step``: one ``optimizer.step()`` alone, the gradients assigned (``gt_calls.OptimizerStep``, as users
  compile ``opt.step``);
- ``train_step``: ``zero_grad()``, the loss, ``backward()`` (under ``enable_grad``), ``step()`` and the
  network's output, what a compiled training step runs;
- ``closure``: ``step(closure)``, the closure computing the loss and its gradients;
- ``groups``: ``step()`` over two parameter groups (their own learning rate and weight decay) with a
  parameter that never gets a gradient (the ``filter`` on ``p.grad``);
- ``update_fn``: the default optimizer's update function called on tensors (``gt_calls.Call``).

Configurations: the defaults, weight decay, decoupled weight decay, other betas, and for the cautious
variant the cautious factor at 0, 0.5 and 1 (off), with and without the cautious weight decay. Options
that only change numbers are left out. Random weights, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, OUT, BATCH = 8, 16, 4, 2

WD = {"weight_decay": 1e-2}
DECOUPLED = {"weight_decay": 1e-2, "decoupled_weight_decay": True}
BETAS = {"betas": (0.95, 0.98)}
# Variant -> the module of ``lion_pytorch`` defining its ``Lion``.
VARIANTS = {"Lion": "lion_pytorch.lion_pytorch", "ForeachLion": "lion_pytorch.foreach",
            "CautiousLion": "lion_pytorch.cautious_lion"}
# Model name -> (variant, keywords, kind: "step", "train_step", "closure", "groups"; net: "mlp" or "conv").
MODELS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "Lion.step": ("Lion", {}, "step", "mlp"),
    "Lion.step.weight_decay": ("Lion", WD, "step", "mlp"),
    "Lion.step.decoupled_weight_decay": ("Lion", DECOUPLED, "step", "mlp"),
    "Lion.step.betas": ("Lion", BETAS, "step", "mlp"),
    "Lion.step.conv": ("Lion", WD, "step", "conv"),
    "Lion.train_step": ("Lion", {}, "train_step", "mlp"),
    "Lion.train_step.weight_decay": ("Lion", WD, "train_step", "mlp"),
    "Lion.train_step.decoupled_weight_decay.conv": ("Lion", DECOUPLED, "train_step", "conv"),
    "Lion.closure": ("Lion", {}, "closure", "mlp"),
    "Lion.closure.weight_decay": ("Lion", WD, "closure", "mlp"),
    "Lion.groups": ("Lion", WD, "groups", "mlp"),
    "Lion.groups.decoupled_weight_decay": ("Lion", DECOUPLED, "groups", "mlp"),
    "ForeachLion.step": ("ForeachLion", {}, "step", "mlp"),
    "ForeachLion.step.weight_decay": ("ForeachLion", WD, "step", "mlp"),
    "ForeachLion.step.decoupled_weight_decay": ("ForeachLion", DECOUPLED, "step", "mlp"),
    "ForeachLion.step.conv": ("ForeachLion", WD, "step", "conv"),
    "ForeachLion.train_step": ("ForeachLion", {}, "train_step", "mlp"),
    "ForeachLion.train_step.weight_decay.conv": ("ForeachLion", WD, "train_step", "conv"),
    "ForeachLion.closure": ("ForeachLion", WD, "closure", "mlp"),
    "ForeachLion.groups": ("ForeachLion", WD, "groups", "mlp"),
    "CautiousLion.step": ("CautiousLion", {}, "step", "mlp"),
    "CautiousLion.step.factor_half": ("CautiousLion", {"cautious_factor": 0.5}, "step", "mlp"),
    "CautiousLion.step.factor_one": ("CautiousLion", {"cautious_factor": 1.0}, "step", "mlp"),
    "CautiousLion.step.weight_decay": ("CautiousLion", WD, "step", "mlp"),
    "CautiousLion.step.cautious_wd": ("CautiousLion", {**WD, "cautious_wd": True}, "step", "mlp"),
    "CautiousLion.step.factor_one.cautious_wd.decoupled": ("CautiousLion", {**DECOUPLED, "cautious_factor": 1.0,
                                                                            "cautious_wd": True}, "step", "mlp"),
    "CautiousLion.step.conv": ("CautiousLion", {**WD, "cautious_factor": 0.5}, "step", "conv"),
    "CautiousLion.train_step": ("CautiousLion", {}, "train_step", "mlp"),
    "CautiousLion.train_step.cautious_wd.conv": ("CautiousLion", {**WD, "cautious_wd": True}, "train_step", "conv"),
    "CautiousLion.closure": ("CautiousLion", {"cautious_factor": 0.5}, "closure", "mlp"),
    "CautiousLion.groups": ("CautiousLion", {**WD, "cautious_wd": True}, "groups", "mlp"),
}
FUNCTIONS = ("update_fn", "update_fn.weight_decay")


def names() -> list[str]:
    return list(MODELS) + list(FUNCTIONS)


def _net(kind: str) -> Any:
    from torch import nn

    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(8, OUT))


def _functions(name: str) -> Built:
    import torch
    from lion_pytorch.lion_pytorch import update_fn

    from gt_calls import Call

    gen = torch.Generator().manual_seed(2)
    p, grad, exp_avg = (torch.randn(HIDDEN, DIM, generator=gen) for _ in range(3))
    wd = 1e-2 if name.endswith("weight_decay") else 0.0
    return Call(update_fn, lr=1e-3, wd=wd, beta1=0.9, beta2=0.99), (p, grad, exp_avg), {}


def build(name: str) -> Built:
    import importlib

    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import OptimizerStep

    torch.manual_seed(0)
    if name in FUNCTIONS:
        return _functions(name)
    variant, keywords, kind, net_kind = MODELS[name]
    cls = importlib.import_module(VARIANTS[variant]).Lion
    net = _net(net_kind)
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, DIM, generator=gen) if net_kind == "mlp" else torch.randn(BATCH, 3, 8, 8, generator=gen)
    y = torch.randn(BATCH, OUT, generator=gen)
    frozen = nn.Parameter(torch.zeros(OUT))  # in a group, never given a gradient
    if kind == "groups":
        groups = [{"params": list(net[0].parameters())},
                  {"params": [*net[2].parameters(), frozen], "lr": 3e-4, "weight_decay": 0.0}]
        optimizer = cls(groups, lr=1e-3, **keywords)
    else:
        optimizer = cls(net.parameters(), lr=1e-3, **keywords)

    if kind in ("step", "groups"):
        grads = torch.autograd.grad(F.mse_loss(net(x), y), list(net.parameters()))
        return OptimizerStep(net, optimizer), tuple(g.detach() for g in grads), {}

    class _Step(nn.Module):
        """A training step: with ``closure``, ``optimizer.step(closure)``; else zero_grad, loss, backward, step."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            if kind == "closure":
                def closure() -> torch.Tensor:
                    optimizer.zero_grad()
                    loss = F.mse_loss(self.net(x), y)
                    loss.backward()
                    return loss

                return optimizer.step(closure)
            optimizer.zero_grad()
            with torch.enable_grad():
                loss = F.mse_loss(self.net(x), y)
                loss.backward()
            optimizer.step()
            return self.net(x) + loss.detach()

        def entry_points(self) -> list[Any]:
            return [cls.step]

    return _Step(), (x, y), {}
