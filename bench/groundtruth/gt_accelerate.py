"""Ground-truth bench, accelerate: an ``Accelerator``'s train and eval steps, its wrappers, hooks and tensor utilities.

accelerate 1.15.0 is Hugging Face's training library: an ``Accelerator`` (here on the CPU, no distributed process
group) ``prepare``s a model, an optimizer, a scheduler and a dataloader. The prepared model keeps its class, but
under mixed precision its ``forward`` is wrapped in an autocast context and ``convert_outputs_to_fp32``; the
optimizer becomes an ``AcceleratedOptimizer`` (``step`` and ``zero_grad`` only when gradients are synchronised),
the scheduler an ``AcceleratedScheduler`` (stepped with the optimizer, once per process, OneCycle's total-step
guard) and the dataloader a ``DataLoaderShard`` (device placement, the end-of-dataloader and remainder state that
``gather_for_metrics`` reads). A user who compiles a training script compiles the train step that runs through
it, so the models are bench modules whose forward is such a step, on a tiny batch:

- ``FORWARD``: the prepared model's forward with mixed precision ``no`` and ``bf16`` (tensor, dict and tuple
  outputs, a network with batch norm and dropout, an autocast handler that disables autocast);
- ``STEPS``: a train step (forward, loss, ``accelerator.backward``, ``AcceleratedOptimizer.step`` /
  ``zero_grad``, ``AcceleratedScheduler.step``) with SGD, Adam, AdamW, StepLR, LambdaLR, OneCycleLR, a
  scheduler not stepped with the optimizer, split batches; under ``accelerator.autocast`` (and a handler
  disabling it); with ``accelerator.accumulate`` over two micro-batches (a ``GradientAccumulationPlugin``
  without scheduler adjustment, syncing each batch); ``clip_grad_norm_`` (2-norm, infinity norm, bf16),
  ``clip_grad_value_``, ``unscale_gradients``, ``no_sync``, ``optimizer_step_was_skipped``, ``zero_grad``
  keeping the gradients, ``LocalSGD``, ``log`` with trackers off, ``unwrap_model``, the loss gathered and
  reduced for logging, ``set_trigger`` / ``check_trigger``, ``print`` and ``on_main_process``;
- ``EVAL``: predictions through ``gather``, ``gather_for_metrics`` (tensors, a tuple, objects),
  ``reduce`` (sum, mean, none), ``pad_across_processes`` (a dimension, padding first), ``unwrap_model``
  without the fp32 wrapper, ``split_between_processes`` (a tensor, a dict of lists with padding);
- ``EPOCHS``: loops over the prepared dataloader (a train epoch, with accumulation, an eval epoch gathering
  for metrics at the end of the dataloader, ``skip_first_batches``, batches as dicts);
- ``UTILS``: ``accelerate.utils`` on tensors: ``send_to_device`` (nested, ``skip_keys``), ``gather``,
  ``reduce``, ``pad_across_processes``, ``concatenate``, ``recursively_apply``, ``find_batch_size``,
  ``ignorant_find_batch_size``, ``convert_to_fp32``, ``convert_outputs_to_fp32``,
  ``extract_model_from_parallel``, ``slice_tensors``, ``find_device``, ``honor_type``, ``pad_input_tensors``,
  ``get_data_structure`` with ``initialize_tensors``, ``listify``, ``broadcast``, a function under
  ``find_executable_batch_size``;
- ``HOOKS``: accelerate's own module wrappers: ``add_hook_to_module`` with a user ``ModelHook`` and chained
  (``SequentialHook``), ``AlignDevicesHook`` (inputs and outputs on the same device), ``attach_align_device_hook``,
  ``cpu_offload`` (with buffers), ``cpu_offload_with_hook``, ``disk_offload``, ``dispatch_model`` over a device
  map and ``attach_layerwise_casting_hooks``.

Steps that train run under ``torch.enable_grad()``, so the eval (``no_grad``) pass trains too. Batches are tiny
(4 samples of 6 features, 4 classes; a dataset of 10 samples, so the last batch has a remainder), the networks
small MLPs; offloads go to a fresh temporary folder. Random weights, nothing downloaded. ``names()`` needs no
torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import contextlib
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, HID, CLASSES, BATCH = 10, 6, 8, 4, 4

# Model name -> prepared-setup options (``network``: "mlp", "bn", "dict", "tuple"; ``mixed_precision``; ``handler``:
# an ``AutocastKwargs`` disabling autocast).
FORWARD: dict[str, dict[str, Any]] = {
    "prepared.no": {},
    "prepared.bf16": {"mixed_precision": "bf16"},
    "prepared.bf16.bn": {"mixed_precision": "bf16", "network": "bn"},
    "prepared.bf16.dict_output": {"mixed_precision": "bf16", "network": "dict"},
    "prepared.bf16.tuple_output": {"mixed_precision": "bf16", "network": "tuple"},
    "prepared.bf16.autocast_disabled": {"mixed_precision": "bf16", "handler": True},
}

# Model name -> setup options and step options. Step options: "autocast" (True, or "disabled" for a handler turning
# it off), "accumulate" (micro-batches in one call under ``accelerator.accumulate``), "clip" ("norm", "inf",
# "value", "unscale"), "no_sync", "skipped", "keep_grad", "local_sgd", "log", "unwrap", "gather_loss",
# "reduce_loss", "trigger", "print", "main_process".
STEPS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "sgd": ({}, {}),
    "bf16": ({"mixed_precision": "bf16"}, {}),
    "adam.step_lr": ({"optimizer": "adam", "scheduler": "step"}, {}),
    "adamw.lambda_lr": ({"optimizer": "adamw", "scheduler": "lambda"}, {}),
    "adamw.one_cycle": ({"optimizer": "adamw", "scheduler": "one_cycle"}, {}),
    "scheduler_not_with_optimizer": ({"scheduler": "step", "step_with_optimizer": False}, {}),
    "split_batches": ({"scheduler": "step", "split_batches": True}, {}),
    "bn.sgd_momentum": ({"network": "bn", "optimizer": "sgd_momentum", "scheduler": "step"}, {}),
    "dict_output.bf16": ({"network": "dict", "mixed_precision": "bf16"}, {}),
    "tuple_output": ({"network": "tuple"}, {}),
    "autocast": ({}, {"autocast": True}),
    "autocast.bf16": ({"mixed_precision": "bf16"}, {"autocast": True}),
    "autocast.bf16.disabled_handler": ({"mixed_precision": "bf16"}, {"autocast": "disabled"}),
    "accumulate2": ({"accumulate": 2, "scheduler": "step"}, {"accumulate": 2}),
    "accumulate2.bf16": ({"accumulate": 2, "mixed_precision": "bf16", "scheduler": "step"}, {"accumulate": 2}),
    "accumulate2.plugin_no_adjust": ({"plugin": {"num_steps": 2, "adjust_scheduler": False},
                                      "scheduler": "step"}, {"accumulate": 2}),
    "accumulate2.sync_each_batch": ({"plugin": {"num_steps": 2, "sync_each_batch": True}, "scheduler": "lambda"},
                                    {"accumulate": 2}),
    "accumulate3.clip_norm": ({"accumulate": 3, "scheduler": "step"}, {"accumulate": 3, "clip": "norm"}),
    "clip_grad_norm": ({}, {"clip": "norm"}),
    "clip_grad_norm.inf": ({"optimizer": "adam"}, {"clip": "inf"}),
    "clip_grad_norm.bf16": ({"mixed_precision": "bf16"}, {"clip": "norm"}),
    "clip_grad_value": ({}, {"clip": "value"}),
    "unscale_gradients": ({"mixed_precision": "bf16"}, {"clip": "unscale"}),
    "no_sync": ({}, {"no_sync": True}),
    "optimizer_step_was_skipped": ({"scheduler": "step"}, {"skipped": True}),
    "zero_grad.keep": ({}, {"keep_grad": True}),
    "local_sgd": ({}, {"local_sgd": True}),
    "log": ({}, {"log": True}),
    "log.kwargs": ({}, {"log": "kwargs"}),
    "unwrap_model": ({"mixed_precision": "bf16"}, {"unwrap": True}),
    "gather_loss": ({}, {"gather_loss": True}),
    "reduce_loss": ({}, {"reduce_loss": True}),
    "check_trigger": ({}, {"trigger": True}),
    "print": ({}, {"print": True}),
    "on_main_process": ({}, {"main_process": True}),
}

# Model name -> setup options (eval steps: predictions gathered, reduced, padded; the unwrapped model).
EVAL: dict[str, dict[str, Any]] = {
    "gather": {},
    "gather.dict": {"network": "dict"},
    "gather_for_metrics": {},
    "gather_for_metrics.tuple": {"mixed_precision": "bf16"},
    "gather_for_metrics.object": {},
    "reduce.sum": {},
    "reduce.mean": {},
    "reduce.none": {},
    "pad_across_processes": {},
    "pad_across_processes.dim1.pad_first": {},
    "unwrap_model.no_fp32_wrapper": {"mixed_precision": "bf16"},
    "split_between_processes": {},
    "split_between_processes.padding": {},
}

# Model name -> setup options (loops over the prepared dataloader).
EPOCHS: dict[str, dict[str, Any]] = {
    "train": {"scheduler": "step"},
    "train.accumulate2": {"accumulate": 2, "scheduler": "step"},
    "eval.gather_for_metrics": {},
    "skip_first_batches": {},
    "dict_batches": {"batches": "dict"},
}

UTILS = ("send_to_device", "send_to_device.nested.skip_keys", "gather.nested", "reduce.mean.dict",
         "pad_across_processes.nested", "concatenate.tensors", "concatenate.dicts", "concatenate.tuples",
         "recursively_apply", "recursively_apply.error_on_other_type", "find_batch_size.dict",
         "find_batch_size.list", "ignorant_find_batch_size", "convert_to_fp32", "convert_outputs_to_fp32",
         "extract_model_from_parallel", "slice_tensors", "find_device", "honor_type.namedtuple",
         "pad_input_tensors", "data_structure", "listify", "broadcast", "find_executable_batch_size")

HOOKS = ("user_hook", "sequential_hook", "align_devices_hook.io_same_device", "attach_align_device_hook",
         "cpu_offload", "cpu_offload.offload_buffers", "cpu_offload_with_hook", "disk_offload", "dispatch_model",
         "layerwise_casting")


def names() -> list[str]:
    return ([f"forward.{f}" for f in FORWARD] + [f"step.{s}" for s in STEPS] + [f"eval.{e}" for e in EVAL] +
            [f"epoch.{e}" for e in EPOCHS] + [f"utils.{u}" for u in UTILS] + [f"hooks.{h}" for h in HOOKS])


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _network(kind: str) -> Any:
    """A tiny classifier: an MLP, one with batch norm and dropout, or one returning a dict or a tuple."""
    from torch import nn

    class DictOutput(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(DIM, HID), nn.GELU())
            self.head = nn.Linear(HID, CLASSES)

        def forward(self, x: Any) -> Any:
            hidden = self.body(x)
            return {"logits": self.head(hidden), "hidden": [hidden, hidden.mean(-1)]}

    class TupleOutput(DictOutput):
        def forward(self, x: Any) -> Any:
            hidden = self.body(x)
            return self.head(hidden), hidden

    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))
    if kind == "bn":
        return nn.Sequential(nn.Linear(DIM, HID), nn.BatchNorm1d(HID), nn.ReLU(), nn.Dropout(0.2),
                             nn.Linear(HID, CLASSES))
    if kind == "dict":
        return DictOutput()
    if kind == "tuple":
        return TupleOutput()
    raise KeyError(kind)


def _logits(output: Any) -> Any:
    if isinstance(output, dict):
        return output["logits"]
    if isinstance(output, tuple):
        return output[0]
    return output


def _data() -> tuple[Any, Any]:
    import torch

    return torch.randn(N, DIM, generator=_gen(1)), torch.arange(N) % CLASSES


class _Setup:
    """What a user's script holds after ``accelerator.prepare``: the accelerator and the prepared objects."""

    accelerator: Any
    model: Any
    optimizer: Any
    scheduler: Any
    dataloader: Any


def _setup(network: str = "mlp", mixed_precision: str = "no", accumulate: int = 1, optimizer: str = "sgd",
           scheduler: str | None = None, step_with_optimizer: bool = True, split_batches: bool = False,
           plugin: dict[str, Any] | None = None, handler: bool = False, batches: str = "tuple") -> _Setup:
    import torch
    from accelerate import Accelerator
    from accelerate.utils import AutocastKwargs, DataLoaderConfiguration, GradientAccumulationPlugin
    from torch.utils.data import DataLoader, TensorDataset

    keywords: dict[str, Any] = {}
    if plugin is not None:
        keywords["gradient_accumulation_plugin"] = GradientAccumulationPlugin(**plugin)
    else:
        keywords["gradient_accumulation_steps"] = accumulate
    if handler:
        keywords["kwargs_handlers"] = [AutocastKwargs(enabled=False)]
    accelerator = Accelerator(cpu=True, mixed_precision=mixed_precision,
                              step_scheduler_with_optimizer=step_with_optimizer,
                              dataloader_config=DataLoaderConfiguration(split_batches=split_batches), **keywords)
    model = _network(network)
    parameters = list(model.parameters())
    if optimizer == "adam":
        opt = torch.optim.Adam(parameters, lr=1e-3)
    elif optimizer == "adamw":
        opt = torch.optim.AdamW(parameters, lr=1e-3, weight_decay=0.01)
    elif optimizer == "sgd_momentum":
        opt = torch.optim.SGD(parameters, lr=0.05, momentum=0.9)
    else:
        opt = torch.optim.SGD(parameters, lr=0.05)
    sched: Any = None
    if scheduler == "step":
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.9)
    elif scheduler == "lambda":
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1.0 / (1 + epoch))
    elif scheduler == "one_cycle":
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=100)
    x, y = _data()
    if batches == "dict":
        dataset: Any = [{"x": x[i], "y": y[i]} for i in range(N)]
    else:
        dataset = TensorDataset(x, y)
    loader = DataLoader(dataset, batch_size=BATCH, shuffle=False)
    made = _Setup()
    made.accelerator = accelerator
    prepared = accelerator.prepare(model, opt, loader) if sched is None else accelerator.prepare(model, opt, loader,
                                                                                                  sched)
    made.model, made.optimizer, made.dataloader = prepared[0], prepared[1], prepared[2]
    made.scheduler = prepared[3] if sched is not None else None
    return made


def _runner(made: _Setup, run: Any, entries: list[Any]) -> Any:
    """A bench module whose forward is ``run(setup, *inputs)``, holding the prepared network as a submodule."""
    from gt_calls import Run

    module = Run(made, run, entries)
    module.network = made.model
    return module


def _forward(name: str) -> Built:
    from accelerate.utils.operations import ConvertOutputsToFp32

    options = FORWARD[name]
    made = _setup(**options)
    x, _ = _data()

    def run(s: _Setup, x_: Any) -> Any:
        return s.model(x_)

    entries: list[Any] = [type(made.model)]
    if options.get("mixed_precision") == "bf16":
        entries = [ConvertOutputsToFp32.__call__]
    return _runner(made, run, entries), (x[:BATCH],), {}


def _train_step(s: _Setup, x: Any, y: Any, o: dict[str, Any]) -> Any:
    """One user train step through the accelerator (the options of ``STEPS``); returns the detached loss."""
    import torch
    import torch.nn.functional as F
    from accelerate.utils import AutocastKwargs

    acc = s.accelerator
    micro = o.get("accumulate", 1)
    total: Any = 0.0
    with torch.enable_grad():
        for xs, ys in zip(x.chunk(micro), y.chunk(micro)):
            outer = acc.accumulate(s.model) if micro > 1 else contextlib.nullcontext()
            if o.get("no_sync"):
                outer = acc.no_sync(s.model)
            with outer:
                if o.get("autocast") == "disabled":
                    inner: Any = acc.autocast(autocast_handler=AutocastKwargs(enabled=False))
                elif o.get("autocast"):
                    inner = acc.autocast()
                else:
                    inner = contextlib.nullcontext()
                with inner:
                    output = s.model(xs)
                    loss = F.cross_entropy(_logits(output).float(), ys)
                acc.backward(loss)
                clip = o.get("clip")
                if clip == "norm" and acc.sync_gradients:
                    acc.clip_grad_norm_(s.model.parameters(), 0.5)
                elif clip == "inf":
                    acc.clip_grad_norm_(s.model.parameters(), 0.5, norm_type=float("inf"))
                elif clip == "value":
                    acc.clip_grad_value_(s.model.parameters(), 0.01)
                elif clip == "unscale":
                    acc.unscale_gradients()
                s.optimizer.step()
                if s.scheduler is not None:
                    if not o.get("skipped") or not acc.optimizer_step_was_skipped:
                        s.scheduler.step()
                if o.get("keep_grad"):
                    s.optimizer.zero_grad(set_to_none=False)
                else:
                    s.optimizer.zero_grad()
            total = total + loss.detach()
    return total


def _steps(name: str) -> Built:
    from accelerate import Accelerator
    from accelerate.local_sgd import LocalSGD
    from accelerate.optimizer import AcceleratedOptimizer
    from accelerate.scheduler import AcceleratedScheduler

    setup_options, options = STEPS[name]
    made = _setup(**setup_options)
    x, y = _data()
    x, y = x[:BATCH], y[:BATCH]
    entries: list[Any] = [Accelerator.backward, AcceleratedOptimizer.step, AcceleratedOptimizer.zero_grad]
    if made.scheduler is not None:
        entries.append(AcceleratedScheduler.step)
    if options.get("accumulate"):
        entries.append(Accelerator.accumulate)
    if options.get("autocast"):
        entries.append(Accelerator.autocast)
    clip = options.get("clip")
    if clip in ("norm", "inf"):
        entries.append(Accelerator.clip_grad_norm_)
    elif clip == "value":
        entries.append(Accelerator.clip_grad_value_)
    elif clip == "unscale":
        entries.append(Accelerator.unscale_gradients)
    if options.get("no_sync"):
        entries.append(Accelerator.no_sync)

    if options.get("local_sgd"):
        def run(s: _Setup, x_: Any, y_: Any) -> Any:
            with LocalSGD(accelerator=s.accelerator, model=s.model, local_sgd_steps=2, enabled=True) as local:
                loss = _train_step(s, x_, y_, options)
                local.step()
            return loss
        entries += [LocalSGD.step, LocalSGD.__enter__, LocalSGD.__exit__]
    elif options.get("log"):
        def run(s: _Setup, x_: Any, y_: Any) -> Any:
            loss = _train_step(s, x_, y_, options)
            if options["log"] == "kwargs":
                s.accelerator.log({"train_loss": loss, "lr": s.optimizer.param_groups[0]["lr"]}, step=1,
                                  log_kwargs={"tensorboard": {}})
            else:
                s.accelerator.log({"train_loss": loss})
            return loss
        entries.append(Accelerator.log)
    elif options.get("unwrap"):
        def run(s: _Setup, x_: Any, y_: Any) -> Any:
            loss = _train_step(s, x_, y_, options)
            return loss, s.accelerator.unwrap_model(s.model)(x_)
        entries.append(Accelerator.unwrap_model)
    elif options.get("gather_loss"):
        def run(s: _Setup, x_: Any, y_: Any) -> Any:
            loss = _train_step(s, x_, y_, options)
            return s.accelerator.gather(loss.repeat(x_.shape[0])).mean()
        entries.append(Accelerator.gather)
    elif options.get("reduce_loss"):
        def run(s: _Setup, x_: Any, y_: Any) -> Any:
            loss = _train_step(s, x_, y_, options)
            return s.accelerator.reduce(loss, reduction="mean")
        entries.append(Accelerator.reduce)
    elif options.get("trigger"):
        def run(s: _Setup, x_: Any, y_: Any) -> Any:
            loss = _train_step(s, x_, y_, options)
            if loss > 0.0:
                s.accelerator.set_trigger()
            stop = s.accelerator.check_trigger()
            return loss * (2.0 if stop else 1.0)
        entries += [Accelerator.set_trigger, Accelerator.check_trigger]
    elif options.get("print"):
        def run(s: _Setup, x_: Any, y_: Any) -> Any:
            loss = _train_step(s, x_, y_, options)
            s.accelerator.print("step done", s.accelerator.process_index)
            return loss
        entries.append(Accelerator.print)
    elif options.get("main_process"):
        def run(s: _Setup, x_: Any, y_: Any) -> Any:
            loss = _train_step(s, x_, y_, options)

            @s.accelerator.on_main_process
            def scaled(value: Any) -> Any:
                return value * 2.0

            out = scaled(loss)
            if s.accelerator.is_main_process:
                out = out + 1.0
            return out
        entries.append(Accelerator.on_main_process)
    else:
        def run(s: _Setup, x_: Any, y_: Any) -> Any:
            return _train_step(s, x_, y_, options)
    return _runner(made, run, entries), (x, y), {}


def _eval(name: str) -> Built:
    import torch
    from accelerate import Accelerator

    made = _setup(**EVAL[name])
    x, y = _data()
    x, y = x[:BATCH], y[:BATCH]
    kind = name.split(".")[0]

    def run(s: _Setup, x_: Any, y_: Any) -> Any:
        acc = s.accelerator
        output = s.model(x_)
        logits = _logits(output)
        predictions = logits.argmax(-1)
        if name == "gather":
            return acc.gather(logits)
        if name == "gather.dict":
            return acc.gather(output)
        if name == "gather_for_metrics":
            return acc.gather_for_metrics(predictions)
        if name == "gather_for_metrics.tuple":
            gathered, labels = acc.gather_for_metrics((predictions, y_))
            return (gathered == labels).float().mean()
        if name == "gather_for_metrics.object":
            return acc.gather_for_metrics({"predictions": predictions, "labels": y_}, use_gather_object=True)
        if kind == "reduce":
            return acc.reduce(logits, reduction=name.split(".")[1])
        if name == "pad_across_processes":
            return acc.pad_across_processes(logits, dim=0, pad_index=-1)
        if name == "pad_across_processes.dim1.pad_first":
            return acc.pad_across_processes(torch.stack([predictions, y_], 0), dim=1, pad_index=-100, pad_first=True)
        if name == "unwrap_model.no_fp32_wrapper":
            unwrapped = acc.unwrap_model(s.model, keep_fp32_wrapper=False)
            return unwrapped(x_) - logits
        if name == "split_between_processes":
            with acc.split_between_processes(x_) as part:
                return s.model(part)
        with acc.split_between_processes({"x": [x_, x_ * 2], "y": [y_, y_]}, apply_padding=True) as parts:
            return torch.cat([s.model(p) for p in parts["x"]])

    method = {"gather": Accelerator.gather, "gather_for_metrics": Accelerator.gather_for_metrics,
              "reduce": Accelerator.reduce, "pad_across_processes": Accelerator.pad_across_processes,
              "unwrap_model": Accelerator.unwrap_model,
              "split_between_processes": Accelerator.split_between_processes}[kind]
    return _runner(made, run, [method]), (x, y), {}


def _epochs(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from accelerate import Accelerator
    from accelerate.data_loader import DataLoaderShard

    options = EPOCHS[name]
    made = _setup(**options)
    x, _ = _data()

    def batch_pair(batch: Any) -> tuple[Any, Any]:
        if isinstance(batch, dict):
            return batch["x"], batch["y"]
        return batch[0], batch[1]

    if name.startswith("eval"):
        def run(s: _Setup, scale: Any) -> Any:
            correct, total = scale.sum() * 0.0, 0
            for batch in s.dataloader:
                xs, ys = batch_pair(batch)
                predictions = s.model(xs * scale).argmax(-1)
                gathered, labels = s.accelerator.gather_for_metrics((predictions, ys))
                correct = correct + (gathered == labels).sum()
                total += labels.shape[0]
            return correct / total
        entries: list[Any] = [DataLoaderShard.__iter__, Accelerator.gather_for_metrics]
    else:
        accumulate = options.get("accumulate", 1)

        def run(s: _Setup, scale: Any) -> Any:
            loader = s.dataloader
            if name == "skip_first_batches":
                loader = s.accelerator.skip_first_batches(loader, 1)
            total = scale.sum() * 0.0
            with torch.enable_grad():
                for batch in loader:
                    xs, ys = batch_pair(batch)
                    context = s.accelerator.accumulate(s.model) if accumulate > 1 else contextlib.nullcontext()
                    with context:
                        loss = F.cross_entropy(s.model(xs * scale), ys)
                        s.accelerator.backward(loss)
                        s.optimizer.step()
                        if s.scheduler is not None:
                            s.scheduler.step()
                        s.optimizer.zero_grad()
                    total = total + loss.detach()
            return total
        entries = [DataLoaderShard.__iter__, Accelerator.backward]
        if name == "skip_first_batches":
            entries.append(Accelerator.skip_first_batches)
    return _runner(made, run, entries), (torch.ones(DIM),), {}


def _utils(name: str) -> Built:
    import collections

    import torch
    from accelerate.utils import operations as O
    from accelerate.utils.other import extract_model_from_parallel

    from gt_calls import Call, Run

    x, y = _data()
    x, y = x[:BATCH], y[:BATCH]

    def call(function: Any, **static: Any) -> Any:
        return Call(function, **static)

    if name == "send_to_device":
        return call(O.send_to_device, device="cpu"), (x,), {}
    if name == "send_to_device.nested.skip_keys":
        def nested(x_: Any, y_: Any) -> Any:
            batch = {"inputs": [x_, (x_ * 2, y_)], "labels": y_, "mask": x_ > 0, "meta": "text"}
            moved = O.send_to_device(batch, torch.device("cpu"), non_blocking=True, skip_keys="mask")
            return moved["inputs"][1][0] + moved["mask"].float()
        return call(nested), (x, y), {}
    if name == "gather.nested":
        def gathered(x_: Any, y_: Any) -> Any:
            return O.gather({"x": x_, "pair": (x_.sum(-1), y_)})
        return call(gathered), (x, y), {}
    if name == "reduce.mean.dict":
        def reduced(x_: Any) -> Any:
            return O.reduce({"a": x_, "b": [x_ * 2]}, reduction="mean")
        return call(reduced), (x,), {}
    if name == "pad_across_processes.nested":
        def padded(x_: Any, y_: Any) -> Any:
            return O.pad_across_processes({"x": x_, "y": [y_]}, dim=-1, pad_index=-1, pad_first=True)
        return call(padded), (x, y), {}
    if name == "concatenate.tensors":
        def cat(x_: Any) -> Any:
            return O.concatenate([x_, x_ * 2, x_ + 1], dim=0)
        return call(cat), (x,), {}
    if name == "concatenate.dicts":
        def cat_dicts(x_: Any, y_: Any) -> Any:
            return O.concatenate([{"x": x_, "y": y_}, {"x": x_ * 2, "y": y_ + 1}])
        return call(cat_dicts), (x, y), {}
    if name == "concatenate.tuples":
        def cat_tuples(x_: Any, y_: Any) -> Any:
            return O.concatenate([(x_, [y_]), (x_.flip(0), [y_])], dim=0)
        return call(cat_tuples), (x, y), {}
    if name == "recursively_apply":
        def apply(x_: Any, y_: Any) -> Any:
            return O.recursively_apply(lambda t, k: t * k, {"a": [x_, (y_, "s")], "b": 3}, 2)
        return call(apply), (x, y), {}
    if name == "recursively_apply.error_on_other_type":
        def apply_strict(x_: Any) -> Any:
            return O.recursively_apply(torch.tanh, [x_, {"h": x_ * 2}], error_on_other_type=True)
        return call(apply_strict), (x,), {}
    if name == "find_batch_size.dict":
        def batch_size_dict(x_: Any, y_: Any) -> Any:
            return x_ * O.find_batch_size({"x": x_, "y": y_})
        return call(batch_size_dict), (x, y), {}
    if name == "find_batch_size.list":
        def batch_size_list(x_: Any, y_: Any) -> Any:
            return x_ / O.find_batch_size([(x_, y_), y_])
        return call(batch_size_list), (x, y), {}
    if name == "ignorant_find_batch_size":
        def ignorant(x_: Any) -> Any:
            size = O.ignorant_find_batch_size({"text": "no tensors"})
            return x_ * (O.ignorant_find_batch_size([x_]) + (0 if size is None else size))
        return call(ignorant), (x,), {}
    if name == "convert_to_fp32":
        def to_fp32(x_: Any, y_: Any) -> Any:
            return O.convert_to_fp32({"h": x_.bfloat16(), "l": [x_.half(), y_], "f": x_})
        return call(to_fp32), (x, y), {}
    if name == "convert_outputs_to_fp32":
        network = _network("dict").bfloat16()
        wrapped = O.convert_outputs_to_fp32(network.forward)

        def convert(owner: Any, x_: Any) -> Any:
            return wrapped(x_.bfloat16())
        return Run(network, convert, [O.convert_outputs_to_fp32, O.ConvertOutputsToFp32.__call__]), (x,), {}
    if name == "extract_model_from_parallel":
        network = torch.nn.DataParallel(_network("mlp"))

        def extract(owner: Any, x_: Any) -> Any:
            return extract_model_from_parallel(owner, keep_fp32_wrapper=False, recursive=True)(x_)
        return Run(network, extract, [extract_model_from_parallel]), (x,), {}
    if name == "slice_tensors":
        def sliced(x_: Any, y_: Any) -> Any:
            return O.slice_tensors({"x": x_, "y": [y_]}, slice(1, 3))
        return call(sliced), (x, y), {}
    if name == "find_device":
        def device_of(x_: Any, y_: Any) -> Any:
            return x_.to(O.find_device({"meta": None, "pair": [3, (y_, x_)]}))
        return call(device_of), (x, y), {}
    if name == "honor_type.namedtuple":
        Pair = collections.namedtuple("Pair", ["inputs", "labels"])

        def honor(x_: Any, y_: Any) -> Any:
            batch = Pair(x_, y_)
            moved = O.send_to_device(batch, "cpu")
            return O.honor_type(moved, (t * 2 for t in moved)).inputs
        return call(honor), (x, y), {}
    if name == "pad_input_tensors":
        def pad_inputs(x_: Any, y_: Any) -> Any:
            return O.pad_input_tensors({"x": x_[:3], "y": y_[:3]}, batch_size=3, num_processes=2)
        return call(pad_inputs), (x, y), {}
    if name == "data_structure":
        def structure(x_: Any, y_: Any) -> Any:
            info = O.get_data_structure({"x": x_, "y": [y_]})
            empty = O.initialize_tensors(info)
            return empty["x"].zero_() + x_, O.get_shape([x_, y_])
        return call(structure), (x, y), {}
    if name == "listify":
        def to_lists(x_: Any, y_: Any) -> Any:
            values = O.listify({"x": x_.bfloat16(), "y": y_})
            return x_ * len(values["x"]) + sum(values["y"])
        return call(to_lists), (x, y), {}
    if name == "broadcast":
        def broadcast(x_: Any, y_: Any) -> Any:
            return O.broadcast({"x": x_, "y": [y_]}, from_process=0)
        return call(broadcast), (x, y), {}
    if name == "find_executable_batch_size":
        from accelerate.utils import find_executable_batch_size

        def batched(x_: Any, y_: Any) -> Any:
            @find_executable_batch_size(starting_batch_size=2)
            def inner(batch_size: int, inputs: Any) -> Any:
                return torch.cat([chunk.tanh() for chunk in inputs.split(batch_size)])
            return inner(x_)
        return call(batched), (x, y), {}
    raise KeyError(name)


def _hooks(name: str) -> Built:
    import tempfile

    import torch
    from accelerate import big_modeling as B
    from accelerate import hooks as H

    x, _ = _data()
    x = x[:BATCH]

    class ScaleInputs(H.ModelHook):
        """A user's hook: scales the inputs before the forward and shifts the outputs after it."""

        def __init__(self, scale: float) -> None:
            self.scale = scale

        def pre_forward(self, module: Any, *args: Any, **kwargs: Any) -> Any:
            return tuple(a * self.scale for a in args), kwargs

        def post_forward(self, module: Any, output: Any) -> Any:
            return output + 1.0

    network = _network("bn" if name in ("cpu_offload.offload_buffers", "dispatch_model") else "mlp")
    network.eval()
    entries: list[Any]
    if name == "user_hook":
        H.add_hook_to_module(network, ScaleInputs(0.5))
        entries = [ScaleInputs.pre_forward, ScaleInputs.post_forward]
    elif name == "sequential_hook":
        H.add_hook_to_module(network, ScaleInputs(0.5))
        H.add_hook_to_module(network, ScaleInputs(2.0), append=True)
        entries = [H.SequentialHook.pre_forward, H.SequentialHook.post_forward]
    elif name == "align_devices_hook.io_same_device":
        H.add_hook_to_module(network, H.AlignDevicesHook(execution_device="cpu", io_same_device=True))
        entries = [H.AlignDevicesHook.pre_forward, H.AlignDevicesHook.post_forward]
    elif name == "attach_align_device_hook":
        H.attach_align_device_hook(network, execution_device=torch.device("cpu"))
        entries = [H.AlignDevicesHook.pre_forward, H.AlignDevicesHook.post_forward]
    elif name in ("cpu_offload", "cpu_offload.offload_buffers"):
        B.cpu_offload(network, execution_device=torch.device("cpu"),
                      offload_buffers=name.endswith("offload_buffers"))
        entries = [H.AlignDevicesHook.pre_forward, H.AlignDevicesHook.post_forward]
    elif name == "cpu_offload_with_hook":
        second = _network("mlp")
        first_hook_model, first_hook = B.cpu_offload_with_hook(network, execution_device="cpu")
        second_model, _ = B.cpu_offload_with_hook(second, execution_device="cpu", prev_module_hook=first_hook)
        pipeline = torch.nn.Sequential(first_hook_model, torch.nn.Linear(CLASSES, DIM), second_model)
        return _hooked(pipeline, [H.CpuOffload.pre_forward]), (x,), {}
    elif name == "disk_offload":
        folder = tempfile.mkdtemp(prefix="gt_accelerate_")
        B.disk_offload(network, offload_dir=folder, execution_device=torch.device("cpu"))
        entries = [H.AlignDevicesHook.pre_forward, H.AlignDevicesHook.post_forward]
    elif name == "dispatch_model":
        folder = tempfile.mkdtemp(prefix="gt_accelerate_")
        device_map = {"0": "cpu", "1": "disk", "2": "cpu", "3": "cpu", "4": "disk"}
        B.dispatch_model(network, device_map=device_map, main_device="cpu", offload_dir=folder, force_hooks=True)
        entries = [H.AlignDevicesHook.pre_forward, H.AlignDevicesHook.post_forward]
    else:
        B.attach_layerwise_casting_hooks(network, storage_dtype=torch.bfloat16, compute_dtype=torch.float32)
        entries = [H.LayerwiseCastingHook.pre_forward, H.LayerwiseCastingHook.post_forward]
    return _hooked(network, entries), (x,), {}


def _hooked(network: Any, entries: list[Any]) -> Any:
    """A bench module calling a network whose forward accelerate rewrote (``add_hook_to_module``'s ``new_forward``)."""
    from gt_calls import Run

    def run(owner: Any, x_: Any) -> Any:
        return owner(x_)

    return Run(network, run, entries)


def build(name: str) -> Built:
    group, rest = name.split(".", 1)
    builder = {"forward": _forward, "step": _steps, "eval": _eval, "epoch": _epochs, "utils": _utils,
               "hooks": _hooks}[group]
    return builder(rest)
