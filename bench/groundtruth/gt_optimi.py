"""Ground-truth bench, optimi (torch-optimi): its optimizers' steps, options, functional forms and gradient release.

torch-optimi ships eight ``torch.optim.Optimizer`` subclasses over a common ``OptimiOptimizer`` base: ``Adam``,
``AdamW``, ``Adan``, ``Lion``, ``RAdam``, ``Ranger``, ``SGD`` and ``StableAdamW``. Each ``step`` builds the
group's lists (``_init_group``, state created on the first step, a step counter tensor read back with
``.item()``), then calls the module's functional form (``optimi.adam`` ...), which picks a for-loop, a
``torch._foreach_*`` or a Triton implementation (Triton needs a GPU: the bench runs on the CPU, so the
for-loop is the default here). Options change the path: ``weight_decay`` (coupled, or ``decouple_wd``),
``decouple_lr`` with ``max_lr`` (fully decoupled weight decay), ``kahan_sum`` (Kahan-compensated updates
of bfloat16 parameters), ``foreach``, and ``gradient_release`` (a per-parameter step fused into the
backward pass through ``prepare_for_gradient_release``'s hooks, or ``step(param=p)`` called directly, with
``optimizer_accumulation``). So the tables cover, with a tiny MLP 8 -> 16 -> 4 (or a conv net, batch 2):

- ``MODELS``: per optimizer, ``step`` alone with the gradients assigned (``gt_calls.OptimizerStep``, as
  users compile ``opt.step``), a whole training step (zero_grad, loss, backward, step), ``step(closure)``,
  two parameter groups from ``param_groups_weight_decay``, and the options above (weight decay, decoupled
  weight decay, ``decouple_lr``, ``foreach`` on and off, Kahan summation on a bfloat16 network made by
  ``to_low_precision``); ``SGD`` with momentum, dampening and ``torch_init``; ``Ranger``'s lookahead ``k``
  and ``alpha``; ``Adan``'s Adam-style weight decay under Kahan summation;
- ``RELEASE``: gradient release, the hooks firing inside ``loss.backward()`` and ``step(param=p)`` called
  per parameter, with and without ``optimizer_accumulation``;
- ``FUNCTIONS``: the functional forms (``adam``, ``adamw``, ``adan``, ``lion``, ``radam``, ``ranger``,
  ``sgd``, ``stableadamw``) on lists of tensors, for-loop and foreach.

The harness calls each model in eval and in train mode, twice each, and the optimizer's state carries over
between the calls, so the first step (state creation) and later ones are both traced. Random weights,
nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, OUT, BATCH = 8, 16, 4, 2
OPTIMIZERS = ("Adam", "AdamW", "Adan", "Lion", "RAdam", "Ranger", "SGD", "StableAdamW")
LR = {"Adam": 1e-3, "AdamW": 1e-3, "Adan": 1e-3, "Lion": 1e-4, "RAdam": 1e-3, "Ranger": 1e-3, "SGD": 1e-2,
      "StableAdamW": 1e-3}
# Whether the optimizer takes ``decouple_wd`` (the others decouple weight decay always, or have no choice).
HAS_DECOUPLE_WD = {"Adam", "RAdam", "Ranger", "SGD"}

# Model name -> (optimizer, keywords, kind: step / train_step / closure / groups, net: mlp / conv / bf16).
MODELS: dict[str, tuple[str, dict[str, Any], str, str]] = {}
for _opt in OPTIMIZERS:
    _wd = {"weight_decay": 1e-2}
    MODELS[f"{_opt}.step"] = (_opt, {}, "step", "mlp")
    MODELS[f"{_opt}.step.weight_decay"] = (_opt, _wd, "step", "mlp")
    if _opt in HAS_DECOUPLE_WD:
        MODELS[f"{_opt}.step.decouple_wd"] = (_opt, {**_wd, "decouple_wd": True}, "step", "mlp")
    MODELS[f"{_opt}.step.decouple_lr"] = (_opt, {"weight_decay": 1e-5, "decouple_lr": True}, "step", "mlp")
    MODELS[f"{_opt}.step.foreach"] = (_opt, {**_wd, "foreach": True}, "step", "mlp")
    MODELS[f"{_opt}.step.kahan_sum.bf16"] = (_opt, {"kahan_sum": True, "foreach": False}, "step", "bf16")
    MODELS[f"{_opt}.train_step"] = (_opt, {"foreach": False}, "train_step", "mlp")
    if _opt in ("Adam", "SGD"):
        MODELS[f"{_opt}.train_step.conv"] = (_opt, _wd, "train_step", "conv")
    if _opt in ("Adam", "Adan", "Ranger", "SGD"):
        MODELS[f"{_opt}.closure"] = (_opt, {}, "closure", "mlp")
    if _opt in ("Adam", "AdamW", "SGD"):
        MODELS[f"{_opt}.groups"] = (_opt, {}, "groups", "mlp")
MODELS.update({
    "SGD.step.momentum": ("SGD", {"momentum": 0.9}, "step", "mlp"),
    "SGD.step.momentum.dampening": ("SGD", {"momentum": 0.9, "dampening": True}, "step", "mlp"),
    "SGD.step.momentum.torch_init": ("SGD", {"momentum": 0.9, "torch_init": True}, "step", "mlp"),
    "SGD.step.momentum.foreach": ("SGD", {"momentum": 0.9, "weight_decay": 1e-2, "foreach": True}, "step", "mlp"),
    "SGD.step.momentum.kahan_sum.bf16": ("SGD", {"momentum": 0.9, "kahan_sum": True}, "step", "bf16"),
    "Ranger.step.lookahead_k1": ("Ranger", {"k": 1, "alpha": 0.8}, "step", "mlp"),
    "Ranger.step.lookahead_k1.foreach": ("Ranger", {"k": 1, "foreach": True}, "step", "mlp"),
    "Adan.step.kahan_sum.weight_decay.bf16": ("Adan", {"kahan_sum": True, "weight_decay": 1e-2}, "step", "bf16"),
    "AdamW.step.kahan_sum.foreach.bf16": ("AdamW", {"kahan_sum": True, "foreach": True}, "step", "bf16"),
    "Lion.step.kahan_sum.foreach.bf16": ("Lion", {"kahan_sum": True, "foreach": True}, "step", "bf16"),
    "StableAdamW.step.kahan_sum.foreach.bf16": ("StableAdamW", {"kahan_sum": True, "foreach": True}, "step",
                                                "bf16"),
    "Adam.step.bf16.no_kahan": ("Adam", {"kahan_sum": False}, "step", "bf16"),
})
# Gradient release model name -> (optimizer, how: hooks / param, optimizer_accumulation, keywords).
RELEASE: dict[str, tuple[str, str, bool, dict[str, Any]]] = {
    **{f"{opt}.gradient_release.hooks": (opt, "hooks", False, {}) for opt in ("Adam", "Adan", "Lion", "SGD")},
    **{f"{opt}.gradient_release.step_param": (opt, "param", False, {"weight_decay": 1e-2}) for opt in OPTIMIZERS},
    "Adam.gradient_release.step_param.accumulation": ("Adam", "param", True, {}),
    "Adan.gradient_release.step_param.accumulation": ("Adan", "param", True, {}),
    "SGD.gradient_release.step_param.momentum.accumulation": ("SGD", "param", True, {"momentum": 0.9}),
    "AdamW.gradient_release.hooks.kahan_sum.bf16": ("AdamW", "hooks", False, {"kahan_sum": True}),
}
FUNCTIONS = tuple(f"{opt.lower()}.for_loop" for opt in OPTIMIZERS) + ("adam.foreach", "sgd.foreach")


def names() -> list[str]:
    return list(MODELS) + list(RELEASE) + list(FUNCTIONS)


def _net(kind: str) -> Any:
    from torch import nn

    if kind == "conv":
        return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                             nn.Flatten(), nn.Linear(8, OUT))
    net = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.LayerNorm(HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    if kind == "bf16":
        import torch
        from optimi import to_low_precision

        to_low_precision(net, dtype=torch.bfloat16)
    return net


def _data(kind: str) -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, 3, 8, 8, generator=gen) if kind == "conv" else torch.randn(BATCH, DIM, generator=gen)
    y = torch.randn(BATCH, OUT, generator=gen)
    if kind == "bf16":
        x, y = x.bfloat16(), y.bfloat16()
    return x, y


def _optimizer(name: str, params: Any, keywords: dict[str, Any]) -> Any:
    import optimi

    return getattr(optimi, name)(params, lr=LR[name], **keywords)


def _models(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from optimi import param_groups_weight_decay
    from torch import nn

    from gt_calls import OptimizerStep

    opt_name, keywords, kind, net_kind = MODELS[name]
    net = _net(net_kind)
    x, y = _data(net_kind)
    params = param_groups_weight_decay(net, weight_decay=1e-2) if kind == "groups" else net.parameters()
    optimizer = _optimizer(opt_name, params, keywords)
    cls = type(optimizer)
    if kind == "step":
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


def _release(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from optimi import prepare_for_gradient_release
    from torch import nn

    opt_name, how, accumulation, keywords = RELEASE[name]
    net_kind = "bf16" if name.endswith("bf16") else "mlp"
    net = _net(net_kind)
    x, y = _data(net_kind)
    optimizer = _optimizer(opt_name, net.parameters(), {**keywords, "gradient_release": True})
    cls = type(optimizer)
    if how == "hooks":
        prepare_for_gradient_release(net, optimizer)

    class _Release(nn.Module):
        """A gradient-release step: the backward fires each parameter's step (hooks), or the step is called per
        parameter after the backward (``step(param=p)``, then ``zero_grad(param=p)``)."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            optimizer.optimizer_accumulation = accumulation
            with torch.enable_grad():
                loss = F.mse_loss(self.net(x), y)
                loss.backward()
            if how == "param":
                for p in self.net.parameters():
                    optimizer.step(param=p)
                    optimizer.zero_grad(param=p)
            return self.net(x) + loss.detach()

        def entry_points(self) -> list[Any]:
            return [cls.step]

    return _Release(), (x, y), {}


def _functions(name: str) -> Built:
    import importlib

    import torch

    from gt_calls import Run

    fname, impl = name.split(".")
    function = getattr(importlib.import_module(f"optimi.{fname}"), fname)
    gen = torch.Generator().manual_seed(2)
    shapes = [(HIDDEN, DIM), (HIDDEN,), (OUT, HIDDEN)]
    params = [torch.randn(*s, generator=gen) for s in shapes]
    foreach = impl == "foreach"
    zeros = [[torch.zeros_like(p) for p in params] for _ in range(4)]
    hyper: dict[str, Any] = {"lr": 1e-3, "weight_decay": 1e-2, "foreach": foreach, "triton": False}
    step = {"step": torch.tensor(0, dtype=torch.int32)}
    if fname == "sgd":
        lists: dict[str, Any] = {"exp_avgs": zeros[0]}
        hyper.update(momentum=0.9, dampening=False, decouple_wd=False)
    elif fname == "lion":
        lists = {"exp_avgs": zeros[0]}
        hyper.update(beta1=0.9, beta2=0.99)
    elif fname == "adan":
        lists = {"exp_avgs": zeros[0], "exp_avg_diffs": zeros[1], "exp_avg_sqs": zeros[2],
                 "prev_grads": zeros[3]}
        hyper.update(beta1=0.98, beta2=0.92, beta3=0.99, eps=1e-6, **step)
    elif fname == "ranger":
        lists = {"exp_avgs": zeros[0], "exp_avg_sqs": zeros[1], "la_params": [p.clone() for p in params]}
        hyper.update(beta1=0.9, beta2=0.99, eps=1e-6, k=2, alpha=0.5, decouple_wd=True, **step)
    elif fname == "stableadamw":
        lists = {"exp_avgs": zeros[0], "exp_avg_sqs": zeros[1], "eps_sqs": [torch.tensor(1e-12) for _ in params]}
        hyper.update(beta1=0.9, beta2=0.99, eps=1e-6, **step)
    else:
        lists = {"exp_avgs": zeros[0], "exp_avg_sqs": zeros[1]}
        hyper.update(beta1=0.9, beta2=0.99, eps=1e-6, **step)
        if fname != "adamw":
            hyper["decouple_wd"] = fname == "radam"
    grads = [torch.randn(*s, generator=gen) for s in shapes]

    def call(owner: Any, *grads_in: torch.Tensor) -> list[torch.Tensor]:
        """One functional step over the held parameters and states, with fresh gradients."""
        function(params=params, grads=list(grads_in), **lists, kahan_comps=None, **hyper)
        return params

    return Run(function, call, [function]), tuple(grads), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in MODELS:
        return _models(name)
    if name in RELEASE:
        return _release(name)
    return _functions(name)
