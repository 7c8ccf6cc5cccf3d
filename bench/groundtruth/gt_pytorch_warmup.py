"""Ground-truth bench, pytorch_warmup (pytorch-warmup): learning-rate warmup schedules around an optimizer.

pytorch-warmup wraps an optimizer in a warmup schedule that multiplies each parameter group's learning rate
by a factor in [0, 1]: ``LinearWarmup`` and ``ExponentialWarmup`` (a warmup period, one for all groups or a
list, one per group), ``UntunedLinearWarmup`` and ``UntunedExponentialWarmup`` (the period derived from
Adam's ``beta2``) and ``RAdamWarmup`` (RAdam's rectification term, with the offset found by ``get_offset``).
Users call ``optimizer.step()`` and then step their LR scheduler inside ``with warmup.dampening():``, which
restores the undampened rates, runs the scheduler and dampens them again. Each model is a bench module
holding a tiny MLP (8 -> 16 -> 4, batch 2), its optimizer, possibly an LR scheduler, and the warmup; the
harness calls it twice in eval and twice in train mode and the schedule's step counter carries over, so
successive warmup steps are traced. The tables cover:

- ``TRAIN``: a compiled training step (``zero_grad()``, the loss, ``backward()`` under ``enable_grad``,
  ``step()``, then the scheduler's step inside ``dampening()``) for each schedule with SGD (the tuned ones),
  Adam, AdamW and NAdam, and the schedulers: none (``pass`` inside the context), ``StepLR``,
  ``CosineAnnealingLR``, ``ExponentialLR``, ``LambdaLR``, two chained, one delayed until the warmup period
  ends (``last_step + 1 >= period``, as the documentation shows) and ``ReduceLROnPlateau`` stepped on the
  loss; two parameter groups with a list of periods or their own betas; a schedule resumed with
  ``last_step``; and a learning rate given as a tensor (as users do for compiled optimizers);
- ``SCHEDULE``: the schedule's own methods: ``warmup_factor`` at a few steps, ``dampen()`` with the next or
  an explicit step, ``dampening()`` alone, and a ``state_dict()`` / ``load_state_dict()`` round trip into a
  fresh schedule followed by a dampened step;
- ``HELPERS``: ``rho_fn`` over a tensor of steps, ``rho_inf_fn`` over a tensor of ``beta2`` values and
  ``get_offset`` scaling a tensor;
- ``SETUP``: each schedule constructed inside the compiled code (the optimizer check, the periods, one or
  a list, RAdam's offset search, a resumed ``last_step``, two groups), then one ``dampening()``.

Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
PERIOD = 3

# Model name -> (schedule, optimizer, LR scheduler: None, "step", "cosine", "exponential", "lambda", "chained",
# "delayed" or "plateau", option: None, "groups" (two groups, a list of periods or their own betas),
# "last_step" or "lr_tensor").
TRAIN: dict[str, tuple[str, str, str | None, str | None]] = {
    "LinearWarmup.train_step.SGD": ("LinearWarmup", "SGD", None, None),
    "LinearWarmup.train_step.SGD.StepLR": ("LinearWarmup", "SGD", "step", None),
    "LinearWarmup.train_step.Adam.CosineAnnealingLR": ("LinearWarmup", "Adam", "cosine", None),
    "LinearWarmup.train_step.AdamW.ExponentialLR": ("LinearWarmup", "AdamW", "exponential", None),
    "LinearWarmup.train_step.SGD.LambdaLR": ("LinearWarmup", "SGD", "lambda", None),
    "LinearWarmup.train_step.AdamW.chained": ("LinearWarmup", "AdamW", "chained", None),
    "LinearWarmup.train_step.AdamW.delayed": ("LinearWarmup", "AdamW", "delayed", None),
    "LinearWarmup.train_step.SGD.ReduceLROnPlateau": ("LinearWarmup", "SGD", "plateau", None),
    "LinearWarmup.train_step.groups.period_list": ("LinearWarmup", "SGD", "step", "groups"),
    "LinearWarmup.train_step.last_step": ("LinearWarmup", "AdamW", "cosine", "last_step"),
    "LinearWarmup.train_step.Adam.lr_tensor": ("LinearWarmup", "Adam", None, "lr_tensor"),
    "ExponentialWarmup.train_step.SGD": ("ExponentialWarmup", "SGD", None, None),
    "ExponentialWarmup.train_step.Adam.StepLR": ("ExponentialWarmup", "Adam", "step", None),
    "ExponentialWarmup.train_step.AdamW.CosineAnnealingLR": ("ExponentialWarmup", "AdamW", "cosine", None),
    "ExponentialWarmup.train_step.SGD.chained": ("ExponentialWarmup", "SGD", "chained", None),
    "ExponentialWarmup.train_step.groups.period_list": ("ExponentialWarmup", "AdamW", "exponential", "groups"),
    "ExponentialWarmup.train_step.last_step": ("ExponentialWarmup", "SGD", "step", "last_step"),
    "UntunedLinearWarmup.train_step.Adam": ("UntunedLinearWarmup", "Adam", None, None),
    "UntunedLinearWarmup.train_step.AdamW.CosineAnnealingLR": ("UntunedLinearWarmup", "AdamW", "cosine", None),
    "UntunedLinearWarmup.train_step.NAdam.ExponentialLR": ("UntunedLinearWarmup", "NAdam", "exponential", None),
    "UntunedLinearWarmup.train_step.groups.betas": ("UntunedLinearWarmup", "AdamW", "step", "groups"),
    "UntunedLinearWarmup.train_step.AdamW.delayed": ("UntunedLinearWarmup", "AdamW", "delayed", None),
    "UntunedExponentialWarmup.train_step.Adam": ("UntunedExponentialWarmup", "Adam", None, None),
    "UntunedExponentialWarmup.train_step.AdamW.StepLR": ("UntunedExponentialWarmup", "AdamW", "step", None),
    "UntunedExponentialWarmup.train_step.groups.betas": ("UntunedExponentialWarmup", "Adam", "cosine", "groups"),
    "UntunedExponentialWarmup.train_step.last_step": ("UntunedExponentialWarmup", "AdamW", "lambda", "last_step"),
    "RAdamWarmup.train_step.Adam": ("RAdamWarmup", "Adam", None, None),
    "RAdamWarmup.train_step.AdamW.CosineAnnealingLR": ("RAdamWarmup", "AdamW", "cosine", None),
    "RAdamWarmup.train_step.NAdam.chained": ("RAdamWarmup", "NAdam", "chained", None),
    "RAdamWarmup.train_step.groups.betas": ("RAdamWarmup", "AdamW", "exponential", "groups"),
    "RAdamWarmup.train_step.AdamW.ReduceLROnPlateau": ("RAdamWarmup", "AdamW", "plateau", None),
    "RAdamWarmup.train_step.last_step": ("RAdamWarmup", "Adam", "step", "last_step"),
    "RAdamWarmup.train_step.Adam.lr_tensor": ("RAdamWarmup", "Adam", "exponential", "lr_tensor"),
}
SCHEDULES = ("LinearWarmup", "ExponentialWarmup", "UntunedLinearWarmup", "UntunedExponentialWarmup", "RAdamWarmup")
# Model name -> (schedule, method: "warmup_factor", "dampen", "dampen_step", "dampening", "state_dict").
SCHEDULE: dict[str, tuple[str, str]] = {
    **{f"{schedule}.warmup_factor": (schedule, "warmup_factor") for schedule in SCHEDULES},
    "LinearWarmup.dampen": ("LinearWarmup", "dampen"),
    "RAdamWarmup.dampen": ("RAdamWarmup", "dampen"),
    "ExponentialWarmup.dampen.step": ("ExponentialWarmup", "dampen_step"),
    "UntunedExponentialWarmup.dampen.step": ("UntunedExponentialWarmup", "dampen_step"),
    "UntunedLinearWarmup.dampening": ("UntunedLinearWarmup", "dampening"),
    "LinearWarmup.state_dict.load_state_dict": ("LinearWarmup", "state_dict"),
    "RAdamWarmup.state_dict.load_state_dict": ("RAdamWarmup", "state_dict"),
}
HELPERS = ("rho_fn", "rho_inf_fn", "get_offset")
# Model name -> (schedule, option): the schedule built inside the compiled code (a compiled training function
# that sets up its own warmup), then one dampened step.
SETUP: dict[str, tuple[str, str | None]] = {
    "LinearWarmup.init": ("LinearWarmup", None),
    "ExponentialWarmup.init.period_list": ("ExponentialWarmup", "groups"),
    "UntunedLinearWarmup.init": ("UntunedLinearWarmup", None),
    "UntunedExponentialWarmup.init.last_step": ("UntunedExponentialWarmup", "last_step"),
    "RAdamWarmup.init.groups": ("RAdamWarmup", "groups"),
}


def names() -> list[str]:
    return [*TRAIN, *SCHEDULE, *HELPERS, *SETUP]


def _setup(optimizer_name: str, option: str | None) -> tuple[Any, Any, Any, Any]:
    """The tiny MLP, its optimizer (``groups``: the two layers apart, the second with other betas), a batch and
    its targets."""
    import torch

    from gt_optimizer_bench import tiny_inputs, tiny_net

    net = tiny_net("mlp")
    x, y = tiny_inputs("mlp")
    cls = getattr(torch.optim, optimizer_name)
    lr: Any = torch.tensor(1e-2) if option == "lr_tensor" else 1e-2
    keywords: dict[str, Any] = {"momentum": 0.9} if optimizer_name == "SGD" else {}
    if option == "groups":
        second: dict[str, Any] = {"lr": 5e-3}
        if optimizer_name != "SGD":
            second["betas"] = (0.9, 0.99)
        parameters: Any = [{"params": list(net[0].parameters())}, {"params": list(net[2].parameters()), **second}]
    else:
        parameters = net.parameters()
    return net, cls(parameters, lr=lr, **keywords), x, y


def _schedulers(kind: str | None, optimizer: Any) -> list[Any]:
    """The LR schedulers stepped inside ``dampening()`` (built before the warmup, as the library asks)."""
    from torch.optim import lr_scheduler

    if kind in (None, "plateau"):
        return [lr_scheduler.ReduceLROnPlateau(optimizer, patience=0, factor=0.5)] if kind else []
    if kind in ("step", "delayed"):
        return [lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)]
    if kind == "cosine":
        return [lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)]
    if kind == "exponential":
        return [lr_scheduler.ExponentialLR(optimizer, gamma=0.9)]
    if kind == "lambda":
        return [lr_scheduler.LambdaLR(optimizer, lambda epoch: 1.0 / (1.0 + 0.1 * epoch))]
    return [lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5), lr_scheduler.ExponentialLR(optimizer, gamma=0.9)]


def _warmup(schedule: str, optimizer: Any, option: str | None = None) -> Any:
    """``schedule`` around ``optimizer``: the tuned ones with ``PERIOD`` (a list of two with ``groups``); with
    ``last_step``, resumed after four steps."""
    import pytorch_warmup

    cls = getattr(pytorch_warmup, schedule)
    keywords: dict[str, Any] = {"last_step": 4} if option == "last_step" else {}
    if schedule in ("LinearWarmup", "ExponentialWarmup"):
        keywords["warmup_period"] = [PERIOD, PERIOD + 2] if option == "groups" else PERIOD
    return cls(optimizer, **keywords)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    schedule, optimizer_name, scheduler_kind, option = TRAIN[name]
    net, optimizer, x, y = _setup(optimizer_name, option)
    schedulers = _schedulers(scheduler_kind, optimizer)
    warmup = _warmup(schedule, optimizer, option)

    class _TrainStep(nn.Module):
        """The documented loop's body: the step, then the schedulers under ``dampening()``."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            optimizer.zero_grad()
            with torch.enable_grad():
                loss = F.mse_loss(self.net(x), y)
                loss.backward()
            optimizer.step()
            iteration = warmup.last_step + 1
            with warmup.dampening():
                if scheduler_kind == "plateau":
                    schedulers[0].step(loss.detach())
                elif scheduler_kind != "delayed" or iteration >= PERIOD:
                    for scheduler in schedulers:
                        scheduler.step()
            return loss.detach()

        def entry_points(self) -> list[Any]:
            return [type(warmup).dampening, type(warmup).dampen, type(warmup).warmup_factor]

    return _TrainStep(), (x, y), {}


def _schedule(name: str) -> Built:
    import torch

    from gt_calls import Run

    schedule, method = SCHEDULE[name]
    _, optimizer, x, _ = _setup("AdamW", None)
    warmup = _warmup(schedule, optimizer)
    cls = type(warmup)

    def lr_scaled(t: torch.Tensor) -> torch.Tensor:
        return t * optimizer.param_groups[0]["lr"]

    if method == "warmup_factor":
        def factors(warmup: Any, t: torch.Tensor) -> torch.Tensor:
            params = warmup.warmup_params[0]
            return sum(t * warmup.warmup_factor(step, **params) for step in (0, 1, 5))

        return Run(warmup, factors, [cls.warmup_factor]), (x,), {}
    if method in ("dampen", "dampen_step"):
        def dampen(warmup: Any, t: torch.Tensor) -> torch.Tensor:
            if method == "dampen_step":
                warmup.dampen(7)
            else:
                warmup.dampen()
            return lr_scaled(t)

        return Run(warmup, dampen, [cls.dampen, cls.warmup_factor]), (x,), {}
    if method == "dampening":
        def dampening(warmup: Any, t: torch.Tensor) -> torch.Tensor:
            with warmup.dampening():
                pass
            return lr_scaled(t)

        return Run(warmup, dampening, [cls.dampening, cls.dampen, cls.warmup_factor]), (x,), {}
    warmup.dampen()
    fresh = _warmup(schedule, optimizer)

    def round_trip(warmup: Any, t: torch.Tensor) -> torch.Tensor:
        fresh.load_state_dict(warmup.state_dict())
        with fresh.dampening():
            pass
        return lr_scaled(t) + fresh.last_step

    return Run(warmup, round_trip, [cls.state_dict, cls.load_state_dict, cls.dampening]), (x,), {}


def _setup_inside(name: str) -> Built:
    import pytorch_warmup
    import torch

    from gt_calls import Run

    schedule, option = SETUP[name]
    _, optimizer, x, _ = _setup("AdamW", option)
    cls = getattr(pytorch_warmup, schedule)

    def set_up(optimizer: Any, t: torch.Tensor) -> torch.Tensor:
        warmup = _warmup(schedule, optimizer, option)
        with warmup.dampening():
            pass
        return sum(t * group["lr"] for group in optimizer.param_groups)

    return Run(optimizer, set_up, [cls, cls.dampening]), (x,), {}


def _helper(name: str) -> Built:
    import pytorch_warmup
    import torch

    from gt_calls import Run

    beta2 = 0.999
    rho_inf = pytorch_warmup.rho_inf_fn(beta2)
    if name == "rho_fn":
        steps = torch.arange(1.0, 9.0)
        return Run(None, lambda _, t: pytorch_warmup.rho_fn(t, beta2, rho_inf), [pytorch_warmup.rho_fn]), (steps,), {}
    if name == "rho_inf_fn":
        betas = torch.tensor([0.9, 0.99, 0.999])
        return Run(None, lambda _, b: pytorch_warmup.rho_inf_fn(b), [pytorch_warmup.rho_inf_fn]), (betas,), {}
    x = torch.randn(2, 4, generator=torch.Generator().manual_seed(1))
    return Run(None, lambda _, t: t * pytorch_warmup.get_offset(beta2, rho_inf), [pytorch_warmup.get_offset]), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in TRAIN:
        return _train(name)
    if name in SCHEDULE:
        return _schedule(name)
    if name in SETUP:
        return _setup_inside(name)
    return _helper(name)
