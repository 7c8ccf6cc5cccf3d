"""Ground-truth bench, schedulefree: Schedule-Free optimizers (SGD, AdamW, RAdam) and their wrappers.

schedulefree (facebookresearch) replaces a learning-rate schedule by an average of the iterates. Its
optimizers are ``torch.optim.Optimizer`` subclasses that must be switched with ``optimizer.train()``
before training steps and ``optimizer.eval()`` before evaluation (they move the parameters between the
interpolated and the averaged point). Each model is a bench module holding a tiny MLP (8 -> 16 -> 4,
batch 2) and its optimizer; the harness calls it twice in eval and twice in train mode, and the
optimizer's state and step counter carry over between the calls, so the first step (state creation,
warm-up) and the later ones are both traced. Its forward is one of:

- ``train_step``: what the README's loop does, ``optimizer.train()``, ``zero_grad()``, the loss,
  ``backward()`` (under ``enable_grad``), ``optimizer.step()``, then ``optimizer.eval()`` and the
  evaluated network's output;
- ``step``: one ``optimizer.step()`` alone, the optimizer put in train mode at build time and the
  gradients assigned (``gt_calls.OptimizerStep``, as users compile ``opt.step``);
- ``switch``: ``optimizer.eval()``, the network's output, ``optimizer.train()``, after one eager step;
- ``closure``: ``step(closure)`` of the closure variants, the closure computing the loss and its
  gradients (these have no train / eval modes).

Covered: ``SGDScheduleFree``, ``AdamWScheduleFree``, ``RAdamScheduleFree`` (``silent_sgd_phase`` on and
off) and ``AdamWScheduleFreePaper``, each with the foreach and the per-parameter loop, warm-up steps and
weight decay; ``SGDScheduleFreeClosure``, ``AdamWScheduleFreeClosure`` and ``RAdamScheduleFreeClosure``;
the reference versions ``SGDScheduleFreeReference`` and ``AdamWScheduleFreeReference`` (with
``decay_at_z``); ``ScheduleFreeWrapper`` and ``ScheduleFreeWrapperReference`` around ``torch.optim.SGD``
and ``Adagrad`` (with ``weight_decay_at_y``; not ``Adam``, which fails eagerly under the wrappers: they
put ``z`` in the state it shares, so Adam takes the state as initialised and finds no ``exp_avg``); two parameter groups with a frozen parameter (no gradient),
and a learning rate given as a tensor. Options that only change numbers (``r``, ``weight_lr_power``,
betas) are left out. ``RAdamScheduleFree`` and ``RAdamScheduleFreeClosure`` at their defaults run eagerly
but fail under Dynamo (their first steps divide by a zero weight sum inside a ``try`` that catches
``ZeroDivisionError``); they stay, as the ground truth of that configuration. The ``algoperf`` submissions and the package's own tests are not models. Random
weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, OUT, BATCH = 8, 16, 4, 2

NO_FOREACH = {"foreach": False}
WARMUP_WD = {"warmup_steps": 2, "weight_decay": 1e-2}
# Model name -> (class in ``schedulefree``, keywords, kind: "train_step", "step", "switch", "closure",
# "groups"). For the wrappers, keywords hold "base" (a ``torch.optim`` class name) and the wrapper's own.
MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "SGDScheduleFree.train_step": ("SGDScheduleFree", {"lr": 0.1}, "train_step"),
    "SGDScheduleFree.train_step.no_foreach": ("SGDScheduleFree", {"lr": 0.1, **NO_FOREACH}, "train_step"),
    "SGDScheduleFree.train_step.warmup_weight_decay": ("SGDScheduleFree", {"lr": 0.1, **WARMUP_WD}, "train_step"),
    "SGDScheduleFree.train_step.no_foreach.warmup_weight_decay": ("SGDScheduleFree",
                                                                  {"lr": 0.1, **WARMUP_WD, **NO_FOREACH}, "train_step"),
    "SGDScheduleFree.step": ("SGDScheduleFree", {"lr": 0.1}, "step"),
    "SGDScheduleFree.switch": ("SGDScheduleFree", {"lr": 0.1}, "switch"),
    "AdamWScheduleFree.train_step": ("AdamWScheduleFree", {}, "train_step"),
    "AdamWScheduleFree.train_step.no_foreach": ("AdamWScheduleFree", NO_FOREACH, "train_step"),
    "AdamWScheduleFree.train_step.warmup_weight_decay": ("AdamWScheduleFree", WARMUP_WD, "train_step"),
    "AdamWScheduleFree.train_step.no_foreach.warmup_weight_decay": ("AdamWScheduleFree", {**WARMUP_WD, **NO_FOREACH},
                                                                    "train_step"),
    "AdamWScheduleFree.step": ("AdamWScheduleFree", WARMUP_WD, "step"),
    "AdamWScheduleFree.switch": ("AdamWScheduleFree", {}, "switch"),
    "AdamWScheduleFree.param_groups.frozen": ("AdamWScheduleFree", WARMUP_WD, "groups"),
    "AdamWScheduleFree.lr_tensor": ("AdamWScheduleFree", {"lr": "tensor"}, "train_step"),
    "RAdamScheduleFree.train_step": ("RAdamScheduleFree", {}, "train_step"),
    "RAdamScheduleFree.train_step.no_foreach": ("RAdamScheduleFree", NO_FOREACH, "train_step"),
    "RAdamScheduleFree.train_step.sgd_phase_weight_decay": ("RAdamScheduleFree",
                                                            {"silent_sgd_phase": False, "weight_decay": 1e-2},
                                                            "train_step"),
    "RAdamScheduleFree.train_step.no_foreach.sgd_phase_weight_decay": ("RAdamScheduleFree",
                                                                       {"silent_sgd_phase": False, "weight_decay": 1e-2,
                                                                        **NO_FOREACH}, "train_step"),
    "RAdamScheduleFree.step": ("RAdamScheduleFree", {}, "step"),
    "RAdamScheduleFree.switch": ("RAdamScheduleFree", {}, "switch"),
    "AdamWScheduleFreePaper.train_step": ("AdamWScheduleFreePaper", {}, "train_step"),
    "AdamWScheduleFreePaper.train_step.no_foreach.warmup_weight_decay": ("AdamWScheduleFreePaper",
                                                                         {**WARMUP_WD, **NO_FOREACH}, "train_step"),
    "AdamWScheduleFreePaper.switch": ("AdamWScheduleFreePaper", {}, "switch"),
    "SGDScheduleFreeClosure": ("SGDScheduleFreeClosure", {"lr": 0.1}, "closure"),
    "SGDScheduleFreeClosure.no_foreach.warmup_weight_decay": ("SGDScheduleFreeClosure",
                                                              {"lr": 0.1, **WARMUP_WD, **NO_FOREACH}, "closure"),
    "AdamWScheduleFreeClosure": ("AdamWScheduleFreeClosure", {}, "closure"),
    "AdamWScheduleFreeClosure.no_foreach.warmup_weight_decay": ("AdamWScheduleFreeClosure",
                                                                {**WARMUP_WD, **NO_FOREACH}, "closure"),
    "RAdamScheduleFreeClosure": ("RAdamScheduleFreeClosure", {}, "closure"),
    "RAdamScheduleFreeClosure.no_foreach.sgd_phase_weight_decay": ("RAdamScheduleFreeClosure",
                                                                   {"silent_sgd_phase": False, "weight_decay": 1e-2,
                                                                    **NO_FOREACH}, "closure"),
    "SGDScheduleFreeReference.train_step": ("SGDScheduleFreeReference", {"lr": 0.1}, "train_step"),
    "SGDScheduleFreeReference.train_step.warmup_weight_decay": ("SGDScheduleFreeReference", {"lr": 0.1, **WARMUP_WD},
                                                                "train_step"),
    "SGDScheduleFreeReference.switch": ("SGDScheduleFreeReference", {"lr": 0.1}, "switch"),
    "AdamWScheduleFreeReference.train_step": ("AdamWScheduleFreeReference", {}, "train_step"),
    "AdamWScheduleFreeReference.train_step.decay_at_z": ("AdamWScheduleFreeReference",
                                                         {**WARMUP_WD, "decay_at_z": True}, "train_step"),
    "AdamWScheduleFreeReference.switch": ("AdamWScheduleFreeReference", {}, "switch"),
    "ScheduleFreeWrapper.SGD.train_step": ("ScheduleFreeWrapper", {"base": "SGD"}, "train_step"),
    "ScheduleFreeWrapper.Adagrad.train_step.weight_decay_at_y": ("ScheduleFreeWrapper",
                                                              {"base": "Adagrad", "weight_decay_at_y": 0.1},
                                                              "train_step"),
    "ScheduleFreeWrapper.switch": ("ScheduleFreeWrapper", {"base": "SGD"}, "switch"),
    "ScheduleFreeWrapperReference.SGD.train_step": ("ScheduleFreeWrapperReference", {"base": "SGD"}, "train_step"),
    "ScheduleFreeWrapperReference.Adagrad.train_step.weight_decay_at_y": ("ScheduleFreeWrapperReference",
                                                                       {"base": "Adagrad", "weight_decay_at_y": 0.1},
                                                                       "train_step"),
    "ScheduleFreeWrapperReference.switch": ("ScheduleFreeWrapperReference", {"base": "SGD"}, "switch"),
}


def names() -> list[str]:
    return list(MODELS)


def _net() -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))


def build(name: str) -> Built:
    import warnings

    import schedulefree
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import OptimizerStep

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    cls_name, keywords, kind = MODELS[name]
    keywords = dict(keywords)
    cls = getattr(schedulefree, cls_name)
    net = _net()
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(BATCH, DIM, generator=gen), torch.randn(BATCH, OUT, generator=gen)
    if keywords.get("lr") == "tensor":
        keywords["lr"] = torch.tensor(0.0025)
    if "base" in keywords:
        base_cls = getattr(torch.optim, keywords.pop("base"))
        base = base_cls(net.parameters(), lr=0.1)
        optimizer = cls(base, **keywords)
    elif kind == "groups":
        frozen = nn.Parameter(torch.zeros(OUT))  # in a group, never given a gradient
        groups = [{"params": list(net[0].parameters())},
                  {"params": [*net[2].parameters(), frozen], "lr": 0.01, "weight_decay": 0.0}]
        optimizer = cls(groups, **keywords)
    else:
        optimizer = cls(net.parameters(), **keywords)

    def loss_fn(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(net(x), y)

    if kind == "step":
        optimizer.train()
        grads = torch.autograd.grad(loss_fn(x, y), list(net.parameters()))
        return OptimizerStep(net, optimizer), tuple(g.detach() for g in grads), {}

    if kind == "closure":
        class _ClosureStep(nn.Module):
            """``optimizer.step(closure)``: the closure zeroes the gradients, computes the loss, backward."""

            def __init__(self) -> None:
                super().__init__()
                self.net = net
                self.optimizer = optimizer

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                def closure() -> torch.Tensor:
                    self.optimizer.zero_grad()
                    loss = F.mse_loss(self.net(x), y)
                    loss.backward()
                    return loss

                return self.optimizer.step(closure)

            def entry_points(self) -> list[Any]:
                return [cls.step]

        return _ClosureStep(), (x, y), {}

    if kind == "switch":
        optimizer.train()
        optimizer.zero_grad()
        loss_fn(x, y).backward()
        optimizer.step()  # eager: the state holds ``z`` before the compiled switches

        class _Switch(nn.Module):
            """Evaluation inside training: ``optimizer.eval()``, the averaged network, ``optimizer.train()``."""

            def __init__(self) -> None:
                super().__init__()
                self.net = net

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                optimizer.eval()
                out = self.net(x)
                optimizer.train()
                return out

            def entry_points(self) -> list[Any]:
                return [cls.eval, cls.train]

        return _Switch(), (x,), {}

    class _TrainStep(nn.Module):
        """A training step of the README's loop, then evaluation with the averaged weights."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            optimizer.train()
            optimizer.zero_grad()
            with torch.enable_grad():
                loss = F.mse_loss(self.net(x), y)
                loss.backward()
            optimizer.step()
            optimizer.eval()
            return self.net(x) + loss.detach()

        def entry_points(self) -> list[Any]:
            return [cls.train, cls.step, cls.eval]

    return _TrainStep(), (x, y), {}
