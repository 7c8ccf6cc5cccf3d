"""Ground-truth bench, pytorch_custom_utils: lucidrains' class decorators, optimizer wrapper and trainer helpers.

pytorch-custom-utils 0.0.21 is what lucidrains' trainers and models share: class decorators that give a module a
``device`` property from a dummy buffer (``module_device``), move every tensor argument of ``forward`` onto the
module's device through a pytree flatten (``autocast_device``; its wrapper drops the return value, so decorated
forwards return ``None``), and add a ``total_parameters`` property (all or trainable only); ``save_load`` (pickled
constructor arguments, save / load / init-and-load methods); ``get_adam_optimizer`` (Adam, or AdamW with the
biases and norm gains kept out of weight decay); ``OptimizerWithWarmupSchedule``, an ``nn.Module`` around an
optimizer and a scheduler prepared by an ``accelerate.Accelerator``, whose ``step`` clips gradients per parameter
group, steps, and steps the scheduler inside ``pytorch_warmup``'s dampening; ``auto_unwrap_model`` (the trainer's
model replaced by a ``ForwardingWrapper`` that looks attributes up on the wrapped and the unwrapped model);
``model_forward_contexts`` (autocast and ``no_sync`` contexts per gradient-accumulation step); and tensor helpers in
``utils`` (padding and slicing at a dimension, ``pad_or_slice_to``, an in-place ``masked_mean``,
``maybe_and_mask``). The tables cover, at width 8, a batch of 2, sequences of 5:

- ``DECORATED``: modules under the decorators, used in their forwards (the ``device`` property, tensor arguments
  and keywords moved, nested inputs, the parameter counts, a custom property name, stacked decorators), and a
  ``save_load`` module's forward;
- ``UTILS``: the ``utils`` helpers with their options;
- ``OPTIMIZER``: ``OptimizerWithWarmupSchedule.step`` compiled as users compile an optimizer step: with and
  without warmup, gradient clipping and a cosine scheduler, over optimizers from ``get_adam_optimizer`` (Adam,
  AdamW with and without the no-decay groups, filtered by ``requires_grad``);
- ``TRAINER``: trainer-like modules: an ``auto_unwrap_model`` trainer whose step calls the wrapped model and reads
  its attributes, gradient accumulation over ``model_forward_contexts``, a full step with the warmup optimizer.

``add_wandb_tracker_contextmanager`` was left out: it needs ``wandb`` and a tracker run, and it only starts and ends
tracking around training, outside any compiled code; ``save_load``'s save and load write files and are not compiled.
Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM = 2, 5, 8

DECORATED = (
    "module_device.forward", "module_device.custom_property", "autocast_device.forward",
    "autocast_device.with_module_device", "autocast_device.keywords_nested", "autocast_device.no_dummy.kwargs",
    "total_parameters.forward", "total_parameters.count_only_requires_grad", "total_parameters.custom_name",
    "stacked.module_device.total_parameters", "save_load.forward", "save_load.custom_names.module_device",
)
# Utils model name -> (function name in pytorch_custom_utils.utils, input specs, fixed keywords).
UTILS: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "utils.pad_at_dim": ("pad_at_dim", ("x", "pad"), {"dim": 1}),
    "utils.pad_at_dim.last.value": ("pad_at_dim", ("x", "pad"), {"value": -1.0}),
    "utils.slice_at_dim": ("slice_at_dim", ("x", "slice"), {"dim": 1}),
    "utils.slice_at_dim.negative_dim": ("slice_at_dim", ("x", "slice"), {"dim": -1}),
    "utils.pad_or_slice_to.pad": ("pad_or_slice_to", ("x", "len8"), {"dim": 1}),
    "utils.pad_or_slice_to.slice": ("pad_or_slice_to", ("x", "len3"), {"dim": 1}),
    "utils.pad_or_slice_to.same.pad_value": ("pad_or_slice_to", ("x", "len5"), {"dim": 1, "pad_value": 1.0}),
    "utils.masked_mean": ("masked_mean", ("x_clone", "mask3"), {"dim": 1}),
    "utils.masked_mean.empty_row": ("masked_mean", ("x2_clone", "mask_empty"), {}),
    "utils.masked_mean.no_mask": ("masked_mean", ("x", "none"), {"dim": 1}),
    "utils.maybe_and_mask": ("maybe_and_mask", ("mask", "none", "mask2"), {}),
    "utils.maybe_and_mask.none": ("maybe_and_mask", ("none", "none"), {}),
    "utils.maybe_and_mask.single": ("maybe_and_mask", ("none", "mask2"), {}),
}
# Optimizer model name -> (get_adam_optimizer keywords, OptimizerWithWarmupSchedule keywords, scheduler).
OPTIMIZER: dict[str, tuple[dict[str, Any], dict[str, Any], str | None]] = {
    "OptimizerWithWarmupSchedule.step": ({}, {}, None),
    "OptimizerWithWarmupSchedule.step.warmup": ({}, {"warmup_steps": 3}, None),
    "OptimizerWithWarmupSchedule.step.max_grad_norm": ({}, {"max_grad_norm": 0.5}, None),
    "OptimizerWithWarmupSchedule.step.warmup.max_grad_norm": ({}, {"warmup_steps": 3, "max_grad_norm": 0.5}, None),
    "OptimizerWithWarmupSchedule.step.cosine": ({}, {}, "cosine"),
    "OptimizerWithWarmupSchedule.step.cosine.warmup.max_grad_norm": ({}, {"warmup_steps": 2, "max_grad_norm": 1.0},
                                                                     "cosine"),
    "OptimizerWithWarmupSchedule.step.adam_no_wd": ({"wd": 0.0}, {"warmup_steps": 2}, None),
    "OptimizerWithWarmupSchedule.step.adamw_all_decay": ({"omit_gammas_and_betas_from_wd": False}, {}, "step"),
    "OptimizerWithWarmupSchedule.step.filter_requires_grad": ({"filter_by_requires_grad": True},
                                                              {"max_grad_norm": 1.0}, None),
    "OptimizerWithWarmupSchedule.zero_grad": ({}, {}, None),
}
TRAINER = (
    "auto_unwrap_model.forward", "auto_unwrap_model.attribute", "auto_unwrap_model.train_step",
    "model_forward_contexts.accum1", "model_forward_contexts.accum2", "trainer.full_step.warmup",
    "train.get_adam_optimizer.adamw", "train.get_adam_optimizer.adam",
)


def names() -> list[str]:
    return [*DECORATED, *UTILS, *OPTIMIZER, *TRAINER]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(seed: int = 0) -> Any:
    import torch

    rows = [[True, True, True, False, False], [True, True, True, True, True]]
    if seed:
        rows = [[False, True, True, True, False], [True, True, False, True, True]]
    return torch.tensor(rows)


def _decorated(name: str) -> Built:
    import torch
    from torch import nn

    from pytorch_custom_utils import autocast_device, module_device, save_load, total_parameters

    x, mask = _randn(BATCH, SEQ, DIM), _mask()
    entries: list[Any] = []
    kwargs: dict[str, Any] = {}
    args: tuple[Any, ...] = (x,)

    class Base(nn.Module):
        def __init__(self, dim: int = DIM) -> None:
            super().__init__()
            self.proj = nn.Linear(dim, dim)
            self.frozen = nn.Linear(dim, dim).requires_grad_(False)

        def entry_points(self) -> list[Any]:
            return entries

    if name.startswith("module_device"):
        prop = "dev" if name.endswith("custom_property") else "device"

        @module_device(prop) if prop != "device" else module_device()
        class Net(Base):
            def forward(self, t: Any) -> Any:
                return self.proj(t) + torch.ones(t.shape[-1], device=getattr(self, prop))

        model: Any = Net()
        entries = [module_device]
    elif name.startswith("autocast_device"):
        def make() -> Any:
            class Net(Base):
                def forward(self, t: Any, mask: Any = None, extra: Any = None) -> Any:
                    out = self.proj(t)
                    if mask is not None:
                        out = out * mask[..., None]
                    if extra is not None:
                        out = out + extra["bias"][0]
                    return out

            return Net

        cls = make()
        if name == "autocast_device.with_module_device":
            cls = autocast_device()(module_device()(cls))
        else:
            cls = autocast_device()(cls)
        model = cls()
        entries = [autocast_device]
        if name == "autocast_device.keywords_nested":
            kwargs = {"mask": mask, "extra": {"bias": [torch.ones(DIM), 3]}}
        elif name == "autocast_device.no_dummy.kwargs":
            args, kwargs = (), {"t": x, "mask": mask}
    elif name.startswith("total_parameters") or name.startswith("stacked"):
        if name == "total_parameters.count_only_requires_grad":
            decorator = total_parameters(count_only_requires_grad=True)
        elif name == "total_parameters.custom_name":
            decorator = total_parameters(total_parameters_property_name="num_params")
        else:
            decorator = total_parameters()
        attribute = "num_params" if name.endswith("custom_name") else "total_parameters"

        class Net(Base):
            def forward(self, t: Any) -> Any:
                out = self.proj(t) / getattr(self, attribute)
                if name.startswith("stacked"):
                    out = out.to(self.device)
                return out

        model = decorator(Net) if not name.startswith("stacked") else module_device()(decorator(Net))
        model = model()
        entries = [total_parameters] if not name.startswith("stacked") else [total_parameters, module_device]
    else:
        @save_load(version="0.1")
        class Inner(Base):
            def forward(self, t: Any) -> Any:
                return self.proj(t).relu()

        if name == "save_load.forward":
            model = Inner(DIM)
            entries = [save_load]
        else:
            @save_load(save_method_name="store", load_method_name="restore", config_instance_var_name="config")
            @module_device()
            class Outer(Base):
                def forward(self, t: Any) -> Any:
                    return self.proj(t.to(self.device))

            model = Outer(dim=DIM)
            entries = [save_load, module_device]

    return model, args, kwargs


def _utils(name: str) -> Built:
    import torch

    from gt_calls import Call
    from pytorch_custom_utils import utils

    function, specs, static = UTILS[name]
    values = {
        "x": lambda: _randn(BATCH, SEQ, DIM), "x_clone": lambda: _randn(BATCH, SEQ, DIM),
        "x2_clone": lambda: _randn(BATCH, SEQ), "pad": lambda: (1, 2), "slice": lambda: slice(1, 4),
        "len8": lambda: 8, "len3": lambda: 3, "len5": lambda: 5, "mask": lambda: _mask(),
        "mask2": lambda: _mask(1), "mask3": lambda: _mask()[..., None].expand(BATCH, SEQ, DIM),
        "mask_empty": lambda: torch.tensor([[False] * SEQ, [True, False, True, True, False]]), "none": lambda: None,
    }
    return Call(getattr(utils, function), **static), tuple(values[s]() for s in specs), {}


def _net() -> Any:
    from torch import nn

    net = nn.Sequential(nn.Linear(DIM, 16), nn.LayerNorm(16), nn.SiLU(), nn.Linear(16, DIM))
    net[0].bias.requires_grad_(False)
    return net


def _warmup_optimizer(net: Any, adam_kwargs: dict[str, Any], kwargs: dict[str, Any], scheduler: str | None) -> Any:
    import torch
    from accelerate import Accelerator

    from pytorch_custom_utils import OptimizerWithWarmupSchedule, get_adam_optimizer

    accelerator = Accelerator(cpu=True)
    optimizer = get_adam_optimizer(net.parameters(), lr=1e-3, **adam_kwargs)
    extra: dict[str, Any] = {}
    if scheduler == "cosine":
        extra = {"scheduler": torch.optim.lr_scheduler.CosineAnnealingLR, "scheduler_kwargs": {"T_max": 10}}
    elif scheduler == "step":
        extra = {"scheduler": torch.optim.lr_scheduler.StepLR, "scheduler_kwargs": {"step_size": 2}}
    return OptimizerWithWarmupSchedule(accelerator, optimizer, **extra, **kwargs)


def _optimizer(name: str) -> Built:
    import torch
    from torch import nn

    from pytorch_custom_utils import OptimizerWithWarmupSchedule

    adam_kwargs, kwargs, scheduler = OPTIMIZER[name]
    net = _net()
    opt = _warmup_optimizer(net, adam_kwargs, kwargs, scheduler)
    grads = tuple(torch.randn_like(p) for p in net.parameters() if p.requires_grad)
    zero_only = name.endswith("zero_grad")

    class Step(nn.Module):
        """``opt.step()`` (or ``opt.zero_grad()``) as the compiled forward, gradients given as inputs."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.opt = opt

        def forward(self, *gradients: Any) -> Any:
            params = [p for p in self.net.parameters() if p.requires_grad]
            for p, g in zip(params, gradients):
                p.grad = g.clone()
            if zero_only:
                self.opt.zero_grad()
                return params[0].grad
            self.opt.step()
            return params[0].detach().clone()

        def entry_points(self) -> list[Any]:
            return [OptimizerWithWarmupSchedule.zero_grad if zero_only else OptimizerWithWarmupSchedule.step]

    return Step(), grads, {}


def _trainer(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from accelerate import Accelerator
    from torch import nn

    from gt_calls import Run
    from pytorch_custom_utils import OptimizerWithWarmupSchedule, auto_unwrap_model, get_adam_optimizer
    from pytorch_custom_utils.accelerate_utils import model_forward_contexts

    x, target = _randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, DIM, seed=2)

    if name.startswith("auto_unwrap_model"):
        class Model(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = _net()
                self.scale = 0.5

            def forward(self, t: Any) -> Any:
                return self.net(t)

        @auto_unwrap_model()
        class Trainer:
            def __init__(self) -> None:
                self.accelerator = Accelerator(cpu=True)
                model = Model()
                self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
                self.model = self.accelerator.prepare(model)

            def step(self, t: Any, y: Any) -> Any:
                if name.endswith("attribute"):
                    return self.model(t) * self.model.scale
                loss = F.mse_loss(self.model(t), y)
                if name.endswith("train_step") and torch.is_grad_enabled():
                    self.optimizer.zero_grad()
                    self.accelerator.backward(loss)
                    self.optimizer.step()
                return loss

        from pytorch_custom_utils.accelerate_utils import ForwardingWrapper

        trainer = Trainer()
        return Run(trainer.model.parent, lambda _, t, y: trainer.step(t, y), [ForwardingWrapper]), (x, target), {}

    if name.startswith("model_forward_contexts"):
        accum = 2 if name.endswith("accum2") else 1
        accelerator = Accelerator(cpu=True)
        net = _net()
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        net, optimizer = accelerator.prepare(net, optimizer)

        def accumulate(m: Any, t: Any, y: Any) -> Any:
            total = 0.0
            for context in model_forward_contexts(accelerator, m, accum):
                with context():
                    loss = F.mse_loss(m(t), y) / accum
                if torch.is_grad_enabled():
                    accelerator.backward(loss)
                total = total + loss.detach()
            if torch.is_grad_enabled():
                optimizer.step()
                optimizer.zero_grad()
            return total

        return Run(net, accumulate, [model_forward_contexts]), (x, target), {}

    net = _net()
    if name == "trainer.full_step.warmup":
        opt: Any = _warmup_optimizer(net, {}, {"warmup_steps": 2, "max_grad_norm": 1.0}, "cosine")
        entries: list[Any] = [OptimizerWithWarmupSchedule.step]
    else:
        wd = 0.0 if name.endswith(".adam") else 1e-2
        opt = get_adam_optimizer(net.parameters(), lr=1e-3, wd=wd)
        entries = [get_adam_optimizer]

    def step(m: Any, t: Any, y: Any) -> Any:
        """An MSE loss, its gradients and the optimizer's step (the forward alone under ``no_grad``)."""
        loss = F.mse_loss(m(t), y)
        if torch.is_grad_enabled():
            opt.zero_grad()
            loss.backward()
            opt.step()
        return loss

    return Run(net, step, entries), (x, target), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in DECORATED:
        return _decorated(name)
    if name in UTILS:
        return _utils(name)
    if name in OPTIMIZER:
        return _optimizer(name)
    if name in TRAINER:
        return _trainer(name)
    raise KeyError(name)
