"""Ground-truth bench, torchtnt: unit steps, the train / evaluate / predict / fit loops, callbacks and utilities.

TorchTNT (``torchtnt``) is a lightweight training framework. A user writes a *unit*: a ``TrainUnit`` /
``EvalUnit`` / ``PredictUnit`` with its own ``train_step`` / ``eval_step`` / ``predict_step``, or a subclass of
``AutoUnit`` that only implements ``compute_loss`` and ``configure_optimizers_and_lr_scheduler`` (the ``AutoUnit``
then runs the forward under autocast, the backward, gradient clipping, the optimizer and scheduler steps, gradient
accumulation and stochastic weight averaging), or an ``AutoPredictUnit`` around a module. The entry points
``train``, ``evaluate``, ``predict`` and ``fit`` run a unit over any iterable of batches, calling the unit's
hooks and the callbacks around every step and epoch. A user who compiles a TorchTNT pipeline compiles one of
those steps or loops, so the models are bench modules whose forward runs one of them on a tiny batch held in
memory (8 samples, 6 features, 3 classes, split into two batches of 4):

- ``AUTO``: ``AutoUnit.train_step`` plain and with Adam and a scheduler stepped every step, gradient-norm and
  gradient-value clipping, gradient accumulation, bf16 and fp16 autocast (fp16 brings the grad scaler), anomaly
  detection, EMA / SWA (with ``SWALR``) / Lit-EMA weight averaging, activation checkpointing, the ``'noop'``
  strategy, dict batches, a batch-norm and dropout network, and a user's ``on_train_step_end``;
  ``eval_step`` (under the evaluate and the fit entry points, in bf16, with ``on_eval_step_end``),
  ``predict_step``, ``compute_loss``, ``move_data_to_device``, ``on_train_epoch_end`` stepping a scheduler or
  SWA; ``AutoPredictUnit.predict_step`` (fp32, bf16, a user's ``on_predict_step_end``). The prefetching
  ``get_next_train_batch`` / ``get_next_predict_batch`` called on their own are left out: Dynamo stops with an
  internal error on their ``torch.cuda.stream(None)`` on the CPU (the loops below call them);
- ``LOOPS``: ``train`` (one epoch, ``max_steps_per_epoch``, ``max_steps``, a scheduler every step, a ``Timer``,
  a torch ``DataLoader``), ``evaluate``, ``predict`` and ``fit`` (every epoch, every step) with an ``AutoUnit``,
  an ``AutoPredictUnit`` and a user's plain ``TrainUnit`` / ``EvalUnit`` / ``PredictUnit`` (one of whose
  ``train_step`` takes the data iterator itself);
- ``CALLBACKS``: a ``train``, ``fit`` or ``predict`` loop with ``EarlyStopping`` (per step, per epoch with a
  relative threshold), ``Lambda``, ``LearningRateMonitor``, ``ModuleSummary`` (with module inputs: FLOPs and
  activation sizes), ``ProgressReporter``, ``TQDMProgressBar``, ``TrainProgressMonitor``, ``IterationTimeLogger``,
  ``ThroughputLogger``, ``TimeLimitInterrupter``, ``TimeWaitForBatchLogger``, ``GarbageCollector``,
  ``EmptyCudaCache``, ``SystemResourcesMonitor``, ``TensorBoardParameterMonitor``, ``TorchCompile`` and a
  ``BaseCSVWriter`` of predictions (loggers are ``InMemoryLogger``; files go to a temporary folder);
- ``UTILS``: ``copy_data_to_device`` (tensors, nested containers, named tuples, dataclasses, a dtype),
  ``get_tensor_size_bytes_map``, ``transfer_weights``, ``transfer_batch_norm_stats``, ``init_optim_state``,
  ``extract_lr_from_optimizer``, ``convert_precision_str_to_dtype`` under autocast,
  ``get_grad_scaler_from_precision``, ``get_module_summary`` (with and without inputs), ``get_summary_table``,
  ``prune_module_summary``, ``FlopTensorDispatchMode`` (forward and backward; convolution and batched matmul),
  ``AveragedModel`` (EMA, SWA, Lit-EMA), ``EarlyStopChecker.check`` (min, max with a relative delta, stopping
  and divergence thresholds), ``all_gather_tensors`` and ``sync_bool`` without a process group,
  ``rank_zero_fn``, ``revert_sync_batchnorm``, ``seed``, ``Timer.time``, ``InMemoryLogger.log_dict`` of tensors,
  ``MultiDataLoader`` under each iteration strategy and ``AbstractRandomDataset``.

Everything runs on the CPU, without a process group. Steps that train run under ``torch.enable_grad()``, so the
eval (``no_grad``) pass trains too. The loops train one more epoch (or step) at every call, as a user resuming
does. ``torchtnt`` 0.2.4 imports ``pkg_resources``, which the environment's setuptools no longer has: the
builder puts a stand-in in its place (``before_import``). Random weights, nothing downloaded. ``names()`` needs
no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import functools
import sys
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, HID, CLASSES = 8, 6, 8, 3

# Model name -> (method, unit options). Options: "optimizer" ("sgd" / "adam"), "scheduler" ("step" / "exp"),
# "network" ("mlp" / "bn"), "batch" ("tuple" / "dict"), "hooks" (the recording subclass), "entry" (the State's
# entry point), "swa" ("ema" / "swalr" / "lit"), "checkpoint" (activation checkpointing), and AutoUnit keywords.
AUTO: dict[str, tuple[str, dict[str, Any]]] = {
    "AutoUnit.train_step": ("train_step", {}),
    "AutoUnit.train_step.adam_step_lr": ("train_step", {"optimizer": "adam", "scheduler": "step",
                                                        "step_lr_interval": "step"}),
    "AutoUnit.train_step.clip_grad_norm": ("train_step", {"clip_grad_norm": 0.5}),
    "AutoUnit.train_step.clip_grad_value": ("train_step", {"clip_grad_value": 0.05}),
    "AutoUnit.train_step.gradient_accumulation": ("train_step", {"gradient_accumulation_steps": 2}),
    "AutoUnit.train_step.bf16": ("train_step", {"precision": "bf16"}),
    "AutoUnit.train_step.fp16_grad_scaler": ("train_step", {"precision": "fp16", "clip_grad_norm": 1.0}),
    "AutoUnit.train_step.detect_anomaly": ("train_step", {"detect_anomaly": True}),
    "AutoUnit.train_step.swa_ema": ("train_step", {"swa": "ema", "step_lr_interval": "step"}),
    "AutoUnit.train_step.swa_swalr": ("train_step", {"swa": "swalr", "step_lr_interval": "step"}),
    "AutoUnit.train_step.lit_ema": ("train_step", {"swa": "lit", "step_lr_interval": "step"}),
    "AutoUnit.train_step.activation_checkpoint": ("train_step", {"checkpoint": True}),
    "AutoUnit.train_step.noop_strategy": ("train_step", {"strategy": "noop"}),
    "AutoUnit.train_step.dict_batch": ("train_step", {"batch": "dict"}),
    "AutoUnit.train_step.batchnorm_dropout": ("train_step", {"network": "bn", "scheduler": "exp",
                                                             "step_lr_interval": "step"}),
    "AutoUnit.train_step.on_train_step_end": ("train_step", {"hooks": True, "clip_grad_norm": 1.0}),
    "AutoUnit.eval_step": ("eval_step", {"entry": "evaluate"}),
    "AutoUnit.eval_step.fit_entry": ("eval_step", {"entry": "fit"}),
    "AutoUnit.eval_step.bf16": ("eval_step", {"entry": "evaluate", "precision": "bf16"}),
    "AutoUnit.eval_step.on_eval_step_end": ("eval_step", {"entry": "evaluate", "hooks": True}),
    "AutoUnit.predict_step": ("predict_step", {"entry": "predict"}),
    "AutoUnit.predict_step.on_predict_step_end": ("predict_step", {"entry": "predict", "hooks": True}),
    "AutoUnit.compute_loss": ("compute_loss", {}),
    "AutoUnit.move_data_to_device": ("move_data_to_device", {"batch": "dict"}),
    "AutoUnit.on_train_epoch_end.lr_scheduler": ("on_train_epoch_end", {"scheduler": "step"}),
    "AutoUnit.on_train_epoch_end.swa": ("on_train_epoch_end", {"swa": "swalr"}),
    "AutoPredictUnit.predict_step": ("predict_step", {"unit": "predict"}),
    "AutoPredictUnit.predict_step.bf16": ("predict_step", {"unit": "predict", "precision": "bf16"}),
    "AutoPredictUnit.predict_step.on_predict_step_end": ("predict_step", {"unit": "predict", "hooks": True}),
}

# Model name -> (entry point, unit kind, loop keywords). Unit kinds: "auto" (an AutoUnit), "auto_step_lr" (its
# scheduler stepped every step), "predict" (an AutoPredictUnit), "user" (a plain Train/Eval/PredictUnit),
# "iterator" (a user's TrainUnit whose train_step takes the data iterator).
LOOPS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "train.AutoUnit": ("train", "auto", {}),
    "train.AutoUnit.max_steps_per_epoch": ("train", "auto", {"max_steps_per_epoch": 1}),
    "train.AutoUnit.max_steps": ("train", "auto", {"max_steps": 1}),
    "train.AutoUnit.step_lr_scheduler": ("train", "auto_step_lr", {}),
    "train.AutoUnit.timer": ("train", "auto", {"timer": True}),
    "train.AutoUnit.DataLoader": ("train", "auto", {"loader": True}),
    "train.TrainUnit": ("train", "user", {}),
    "train.TrainUnit.iterator_step": ("train", "iterator", {}),
    "evaluate.AutoUnit": ("evaluate", "auto", {}),
    "evaluate.EvalUnit": ("evaluate", "user", {"max_steps_per_epoch": 2}),
    "predict.AutoUnit": ("predict", "auto", {}),
    "predict.AutoPredictUnit": ("predict", "predict", {}),
    "predict.PredictUnit": ("predict", "user", {}),
    "fit.AutoUnit": ("fit", "auto", {}),
    "fit.AutoUnit.evaluate_every_n_steps": ("fit", "auto", {"evaluate_every_n_steps": 1,
                                                            "evaluate_every_n_epochs": None}),
    "fit.TrainUnit": ("fit", "user", {"max_eval_steps_per_epoch": 1}),
}

# Model name -> the loop it runs in ("train", "fit" or "predict").
CALLBACKS: dict[str, str] = {
    "EarlyStopping.step": "train",
    "EarlyStopping.epoch_rel": "train",
    "Lambda": "fit",
    "LearningRateMonitor.step": "train",
    "LearningRateMonitor.epoch": "fit",
    "ModuleSummary.module_inputs": "train",
    "ModuleSummary.predict": "predict",
    "ProgressReporter": "fit",
    "TQDMProgressBar": "fit",
    "TrainProgressMonitor": "train",
    "IterationTimeLogger": "fit",
    "ThroughputLogger": "fit",
    "TimeLimitInterrupter": "train",
    "TimeWaitForBatchLogger": "train",
    "GarbageCollector": "fit",
    "EmptyCudaCache": "fit",
    "SystemResourcesMonitor": "train",
    "TensorBoardParameterMonitor": "train",
    "TorchCompile": "train",
    "BaseCSVWriter": "predict",
}

UTILS = (
    "copy_data_to_device.tensor", "copy_data_to_device.nested", "copy_data_to_device.dtype",
    "get_tensor_size_bytes_map", "transfer_weights", "transfer_batch_norm_stats", "init_optim_state",
    "extract_lr_from_optimizer", "convert_precision_str_to_dtype.autocast", "get_grad_scaler_from_precision",
    "get_module_summary.flops", "get_module_summary.no_inputs", "get_summary_table", "prune_module_summary",
    "FlopTensorDispatchMode.forward_backward", "FlopTensorDispatchMode.conv_bmm", "AveragedModel.ema",
    "AveragedModel.swa", "AveragedModel.lit_ema", "EarlyStopChecker.min", "EarlyStopChecker.max_rel",
    "EarlyStopChecker.thresholds", "all_gather_tensors", "sync_bool", "rank_zero_fn", "revert_sync_batchnorm",
    "seed", "Timer.time", "InMemoryLogger.log_dict", "MultiDataLoader.RoundRobin",
    "MultiDataLoader.AllDatasetBatches", "MultiDataLoader.RandomizedBatchSampler", "MultiDataLoader.InOrder",
    "AbstractRandomDataset",
)


def names() -> list[str]:
    return list(AUTO) + list(LOOPS) + [f"callbacks.{c}" for c in CALLBACKS] + [f"utils.{u}" for u in UTILS]


def provide_pkg_resources() -> None:
    """Put a stand-in ``pkg_resources`` (``get_distribution(name).version``, what ``torchtnt.utils.version``
    imports it for) in ``sys.modules`` when setuptools no longer ships it; needs no torch."""
    import importlib.metadata
    import importlib.util
    import types

    if "pkg_resources" in sys.modules or importlib.util.find_spec("pkg_resources") is not None:
        return

    class _Distribution:
        def __init__(self, name: str) -> None:
            self.project_name = name
            self.version = importlib.metadata.version(name)

    stand_in = types.ModuleType("pkg_resources")
    stand_in.get_distribution = _Distribution  # type: ignore[attr-defined]
    sys.modules["pkg_resources"] = stand_in


def _data(seed: int = 1) -> tuple[Any, Any]:
    """``(x, y)``: 8 samples of 6 features and their class labels."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    return torch.randn(N, DIM, generator=gen), torch.arange(N) % CLASSES


def _batches(x: Any, y: Any, kind: str = "tuple") -> list[Any]:
    """The 8 samples as two batches of 4, as tuples or dicts."""
    if kind == "dict":
        return [{"x": x[:4], "y": y[:4]}, {"x": x[4:], "y": y[4:]}]
    return [(x[:4], y[:4]), (x[4:], y[4:])]


def _network(kind: str = "mlp") -> Any:
    from torch import nn

    if kind == "bn":
        return nn.Sequential(nn.Linear(DIM, HID), nn.BatchNorm1d(HID), nn.ReLU(), nn.Dropout(0.1),
                             nn.Linear(HID, CLASSES))
    if kind == "conv":
        return nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, CLASSES))
    return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))


@functools.lru_cache(maxsize=None)
def _classes() -> Any:
    """The user's units, callbacks and data types (defined once torchtnt is importable)."""
    import dataclasses
    import types
    from collections.abc import Iterator

    import torch
    import torch.nn.functional as F
    from torchtnt.framework import AutoPredictUnit, AutoUnit, EvalUnit, PredictUnit, State, TrainUnit
    from torchtnt.framework.callbacks import BaseCSVWriter
    from torchtnt.utils.data.synthetic_data import AbstractRandomDataset

    def unpack(data: Any) -> tuple[Any, Any]:
        if isinstance(data, dict):
            return data["x"], data["y"]
        return data[0], data[1]

    class Classifier(AutoUnit):
        """A user's AutoUnit: cross-entropy of ``module(x)``; SGD or Adam; a StepLR or ExponentialLR."""

        def __init__(self, *, optimizer: str = "sgd", scheduler: str | None = None, **kwargs: Any) -> None:
            super().__init__(**kwargs)  # the metaclass calls configure_optimizers_and_lr_scheduler after __init__
            self.optimizer_kind = optimizer
            self.scheduler_kind = scheduler

        def configure_optimizers_and_lr_scheduler(self, module: Any) -> tuple[Any, Any]:
            if self.optimizer_kind == "adam":
                optimizer: Any = torch.optim.Adam(module.parameters(), lr=0.01)
            else:
                optimizer = torch.optim.SGD(module.parameters(), lr=0.05)
            scheduler: Any = None
            if self.scheduler_kind == "step":
                scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.9)
            elif self.scheduler_kind == "exp":
                scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.95)
            return optimizer, scheduler

        def compute_loss(self, state: Any, data: Any) -> tuple[Any, Any]:
            x, y = unpack(data)
            logits = self.module(x)
            return F.cross_entropy(logits, y), logits

    class Recording(Classifier):
        """The AutoUnit with the documented hooks overridden: it keeps the last loss, gradient norm, accuracy and
        predictions (what ``EarlyStopping`` monitors)."""

        def on_train_step_end(self, state: Any, data: Any, step: int, results: Any) -> None:
            self.train_loss = results.loss.detach()
            if results.total_grad_norm is not None:
                self.grad_norm = results.total_grad_norm

        def on_eval_step_end(self, state: Any, data: Any, step: int, loss: Any, outputs: Any) -> None:
            _, y = unpack(data)
            self.eval_loss = loss.detach()
            self.correct = (outputs.argmax(-1) == y).float().mean()

        def on_predict_step_end(self, state: Any, data: Any, step: int, outputs: Any) -> None:
            self.predicted = outputs.argmax(-1)

    class Predictor(AutoPredictUnit):
        """An AutoPredictUnit keeping the softmax of the outputs."""

        def on_predict_step_end(self, state: Any, data: Any, step: int, outputs: Any) -> None:
            self.probabilities = outputs.softmax(-1)

    class UserUnit(TrainUnit[Any], EvalUnit[Any], PredictUnit[Any]):
        """A plain unit as TorchTNT's docs write one: its own forward, backward, optimizer and scheduler."""

        def __init__(self, module: Any) -> None:
            super().__init__()
            self.module = module
            self.optimizer = torch.optim.SGD(module.parameters(), lr=0.05)
            self.lr_scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.9)

        def train_step(self, state: Any, data: Any) -> Any:
            x, y = unpack(data)
            loss = F.cross_entropy(self.module(x), y)
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            return loss

        def on_train_epoch_end(self, state: Any) -> None:
            self.lr_scheduler.step()

        def eval_step(self, state: Any, data: Any) -> Any:
            x, y = unpack(data)
            return F.cross_entropy(self.module(x), y)

        def predict_step(self, state: Any, data: Any) -> Any:
            return self.module(data).softmax(-1)

    class IteratorUnit(UserUnit):
        """A TrainUnit whose ``train_step`` is annotated to take the data iterator: it draws two batches a step."""

        def train_step(self, state: Any, data: Any) -> Any:
            first, second = next(data), next(data)
            x = torch.cat([first[0], second[0]])
            y = torch.cat([first[1], second[1]])
            loss = F.cross_entropy(self.module(x), y)
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            return loss

    # ``from __future__ import annotations`` leaves strings; torchtnt reads the real type of ``data``
    IteratorUnit.train_step.__annotations__ = {"state": State, "data": Iterator[tuple[torch.Tensor, torch.Tensor]],
                                               "return": Any}

    class CsvWriter(BaseCSVWriter):
        """Writes each predicted label and its score as a row."""

        def get_step_output_rows(self, state: Any, unit: Any, step_output: Any) -> list[list[str]]:
            score, label = step_output.softmax(-1).max(-1)
            return [[str(lab), f"{s:.4f}"] for lab, s in zip(label.tolist(), score.tolist())]

    @dataclasses.dataclass
    class Sample:
        features: torch.Tensor
        label: torch.Tensor
        weight: float = 1.0

    class RandomPairs(AbstractRandomDataset[tuple[torch.Tensor, torch.Tensor]]):
        """A random dataset of (features, label) pairs."""

        def _generate_random_item(self) -> tuple[torch.Tensor, torch.Tensor]:
            return torch.randn(DIM), torch.randint(0, CLASSES, ())

    return types.SimpleNamespace(Classifier=Classifier, Recording=Recording, Predictor=Predictor, UserUnit=UserUnit,
                                 IteratorUnit=IteratorUnit, CsvWriter=CsvWriter, Sample=Sample,
                                 RandomPairs=RandomPairs)


def _auto_unit(options: dict[str, Any]) -> Any:
    """An AutoUnit (or AutoPredictUnit) of the options, on the CPU."""
    import torch
    from torchtnt.framework.auto_unit import SWALRParams, SWAParams

    classes = _classes()
    options = dict(options)
    keywords: dict[str, Any] = {"module": _network(options.pop("network", "mlp")), "device": torch.device("cpu")}
    for key in ("precision", "detect_anomaly", "strategy"):
        if key in options:
            keywords[key] = options.pop(key)
    if options.get("unit") == "predict":
        return classes.Predictor(**keywords) if options.get("hooks") else _plain_predictor(keywords)
    for key in ("step_lr_interval", "clip_grad_norm", "clip_grad_value", "gradient_accumulation_steps"):
        if key in options:
            keywords[key] = options.pop(key)
    swa = options.pop("swa", None)
    if swa is not None:
        keywords["swa_params"] = SWAParams(
            warmup_steps_or_epochs=0, step_or_epoch_update_freq=1, averaging_method="swa" if swa == "swalr" else "ema",
            ema_decay=0.9, use_lit=swa == "lit",
            swalr_params=SWALRParams(anneal_steps_or_epochs=2, swa_lrs=0.02) if swa == "swalr" else None)
    if options.pop("checkpoint", False):
        from torch import nn
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import CheckpointImpl
        from torchtnt.utils.prepare_module import ActivationCheckpointParams

        keywords["activation_checkpoint_params"] = ActivationCheckpointParams(
            checkpoint_impl=CheckpointImpl.NO_REENTRANT, check_fn=lambda m: isinstance(m, nn.Linear))
    cls = classes.Recording if options.get("hooks") else classes.Classifier
    return cls(optimizer=options.get("optimizer", "sgd"), scheduler=options.get("scheduler"), **keywords)


def _plain_predictor(keywords: dict[str, Any]) -> Any:
    from torchtnt.framework import AutoPredictUnit

    return AutoPredictUnit(**keywords)


def _state(entry: str, x: Any, y: Any) -> Any:
    """A loop's ``State`` for a step called on its own (the phase states hold the two batches)."""
    from torchtnt.framework import EntryPoint, PhaseState, State

    batches = _batches(x, y)
    if entry == "predict":
        return State(entry_point=EntryPoint.PREDICT, predict_state=PhaseState(dataloader=[x[:4], x[4:]]))
    if entry == "evaluate":
        return State(entry_point=EntryPoint.EVALUATE, eval_state=PhaseState(dataloader=batches))
    train = PhaseState(dataloader=batches, max_epochs=1)
    if entry == "fit":
        return State(entry_point=EntryPoint.FIT, train_state=train,
                     eval_state=PhaseState(dataloader=batches, evaluate_every_n_epochs=1))
    return State(entry_point=EntryPoint.TRAIN, train_state=train)


def _runner(unit: Any, run: Any, entries: list[Any]) -> Any:
    """A bench module whose forward is ``run(unit, *inputs)``, holding the unit's module as a submodule."""
    from gt_calls import Run

    module = Run(unit, run, entries)
    module.network = unit.module
    return module


def _auto_model(name: str) -> Built:
    import torch

    method, options = AUTO[name]
    unit = _auto_unit(options)
    x, y = _data()
    batch_kind = options.get("batch", "tuple")
    entry = options.get("entry", "predict" if method == "predict_step" else "train")
    state = _state(entry, x, y)
    bound = getattr(type(unit), method)

    def run(unit: Any, x: Any, y: Any) -> Any:
        batch = _batches(x, y, batch_kind)[0]
        if method == "train_step":
            with torch.enable_grad():
                loss, outputs = unit.train_step(state, batch)
            return loss.detach(), outputs.detach()
        if method == "eval_step":
            return unit.eval_step(state, batch)
        if method == "predict_step":
            return unit.predict_step(state, x[:4])
        if method == "compute_loss":
            with torch.enable_grad():
                return unit.compute_loss(state, batch)
        if method == "move_data_to_device":
            return unit.move_data_to_device(state, batch, non_blocking=False)
        unit.train_progress.increment_epoch()  # on_train_epoch_end: the loop counts the epoch first
        unit.on_train_epoch_end(state)
        return x * unit.optimizer.param_groups[0]["lr"]

    return _runner(unit, run, [bound]), (x, y), {}


def _loop_unit(kind: str) -> Any:
    import torch

    classes = _classes()
    if kind == "user":
        return classes.UserUnit(_network())
    if kind == "iterator":
        return classes.IteratorUnit(_network())
    if kind == "predict":
        return _plain_predictor({"module": _network(), "device": torch.device("cpu")})
    if kind == "auto_step_lr":
        return classes.Classifier(module=_network(), device=torch.device("cpu"), scheduler="step",
                                  step_lr_interval="step")
    return classes.Classifier(module=_network(), device=torch.device("cpu"), scheduler="step")


def _run_loop(unit: Any, loop: str, batches: Any, predict_batches: Any, callbacks: list[Any],
              **keywords: Any) -> None:
    """One more epoch (or ``max_steps`` more steps) of ``loop`` over the batches."""
    from torchtnt.framework import evaluate, fit, predict, train

    if loop in ("train", "fit"):
        progress = unit.train_progress
        if "max_steps" in keywords:
            keywords["max_steps"] = progress.num_steps_completed + keywords["max_steps"]
        else:
            keywords["max_epochs"] = progress.num_epochs_completed + 1
        if loop == "train":
            train(unit, batches, callbacks=callbacks, **keywords)
        else:
            fit(unit, batches, batches, callbacks=callbacks, **keywords)
    elif loop == "evaluate":
        evaluate(unit, batches, callbacks=callbacks, **keywords)
    else:
        predict(unit, predict_batches, callbacks=callbacks, **keywords)


def _loop_model(name: str) -> Built:
    import torch
    import torchtnt.framework as tnt
    from torchtnt.utils.timer import Timer

    loop, kind, keywords = LOOPS[name]
    unit = _loop_unit(kind)
    keywords = dict(keywords)
    loader = keywords.pop("loader", False)
    if keywords.pop("timer", False):
        keywords["timer"] = Timer(cuda_sync=False)
    x, y = _data()

    def run(unit: Any, x: Any, y: Any) -> Any:
        batches: Any = _batches(x, y)
        if loader:
            batches = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4)
        _run_loop(unit, loop, batches, [x[:4], x[4:]], [], **keywords)
        progress = getattr(unit, f"{'eval' if loop == 'evaluate' else loop}_progress", None)
        if progress is None:
            progress = unit.train_progress
        return x * progress.num_steps_completed

    return _runner(unit, run, [getattr(tnt, loop)]), (x, y), {}


def _callback(name: str, x: Any) -> Any:
    """The callback of a model (a zero-argument maker where each call needs a fresh one)."""
    import datetime
    import io
    import os
    import tempfile

    from torchtnt.framework import callbacks as cbs
    from torchtnt.utils.early_stop_checker import EarlyStopChecker
    from torchtnt.utils.loggers import InMemoryLogger

    folder = os.path.join(tempfile.gettempdir(), "gt_torchtnt")
    os.makedirs(folder, exist_ok=True)
    summaries: list[Any] = []
    if name == "EarlyStopping.step":
        return cbs.EarlyStopping("train_loss", EarlyStopChecker("min", patience=3), interval="step")
    if name == "EarlyStopping.epoch_rel":
        return cbs.EarlyStopping("train_loss", EarlyStopChecker("min", patience=2, min_delta=0.01,
                                                                threshold_mode="rel"), interval="epoch")
    if name == "Lambda":
        seen: list[Any] = []
        return cbs.Lambda(on_train_step_end=lambda state, unit: seen.append(state.train_state.step_output[0]),
                          on_eval_step_end=lambda state, unit: seen.append(state.eval_state.step_output[0]),
                          on_train_end=lambda state, unit: seen.clear())
    if name == "LearningRateMonitor.step":
        return cbs.LearningRateMonitor(InMemoryLogger(), logging_interval="step")
    if name == "LearningRateMonitor.epoch":
        return cbs.LearningRateMonitor([InMemoryLogger(), InMemoryLogger()], logging_interval="epoch")
    if name == "ModuleSummary.module_inputs":
        return cbs.ModuleSummary(max_depth=1, process_fn=summaries.extend, module_inputs={"module": ((x[:2],), {})})
    if name == "ModuleSummary.predict":
        return cbs.ModuleSummary()
    if name == "ProgressReporter":
        return cbs.ProgressReporter()
    if name == "TQDMProgressBar":
        return cbs.TQDMProgressBar(refresh_rate=1, file=io.StringIO())
    if name == "TrainProgressMonitor":
        return cbs.TrainProgressMonitor(InMemoryLogger())
    if name == "IterationTimeLogger":
        return cbs.IterationTimeLogger(InMemoryLogger(), moving_avg_window=2)
    if name == "ThroughputLogger":
        return cbs.ThroughputLogger(InMemoryLogger(), {"Batches": 1, "Samples": 4})
    if name == "TimeLimitInterrupter":
        return cbs.TimeLimitInterrupter(duration=datetime.timedelta(minutes=30), interval="step")
    if name == "TimeWaitForBatchLogger":
        return cbs.TimeWaitForBatchLogger(InMemoryLogger())
    if name == "GarbageCollector":
        return cbs.GarbageCollector(step_interval=2)
    if name == "EmptyCudaCache":
        return cbs.EmptyCudaCache(step_interval=2)
    if name == "SystemResourcesMonitor":
        return cbs.SystemResourcesMonitor(InMemoryLogger(), logging_interval="step")
    if name == "TensorBoardParameterMonitor":
        from torch.utils.tensorboard import SummaryWriter

        return cbs.TensorBoardParameterMonitor(SummaryWriter(tempfile.mkdtemp(dir=folder)))
    if name == "TorchCompile":
        return cbs.TorchCompile(step_shutdown_compile_workers=1000)
    writer_folder = tempfile.mkdtemp(dir=folder)
    return lambda: _classes().CsvWriter(header_row=["label", "score"], dir_path=writer_folder)


def _callback_model(name: str) -> Built:
    import torch
    import torchtnt.framework as tnt

    loop = CALLBACKS[name]
    unit = _classes().Recording(module=_network(), device=torch.device("cpu"), scheduler="step",
                                clip_grad_norm=1.0)
    x, y = _data()
    callback = _callback(name, x)
    fresh = name == "BaseCSVWriter"  # it closes its file at the end of predict: one per call, as users do

    def run(unit: Any, x: Any, y: Any) -> Any:
        _run_loop(unit, loop, _batches(x, y), [x[:4], x[4:]], [callback() if fresh else callback])
        return x * unit.train_progress.num_steps_completed

    return _runner(unit, run, [getattr(tnt, loop)]), (x, y), {}


def _utils_model(name: str) -> Built:
    import torch
    from gt_calls import Call, Run
    from torch import nn

    x, y = _data(seed=3)
    group, _, variant = name.partition(".")
    if group == "copy_data_to_device":
        return _copy_model(variant, x, y)
    if group in ("get_module_summary", "get_summary_table", "prune_module_summary", "FlopTensorDispatchMode"):
        return _summary_model(name, x)
    if group in ("AveragedModel", "EarlyStopChecker"):
        return _averaging_model(group, variant, x, y)
    if group in ("MultiDataLoader", "AbstractRandomDataset"):
        return _data_model(group, variant, x, y)
    if group == "get_tensor_size_bytes_map":
        from torchtnt.utils.memory import get_tensor_size_bytes_map

        def sizes(_: Any, x: Any, y: Any) -> Any:
            found = get_tensor_size_bytes_map({"x": x, "pair": (y, [x * 2]), "obj": _classes().Sample(x, y)})
            return x * sum(found.values())

        return Run(None, sizes, [get_tensor_size_bytes_map]), (x, y), {}
    if group in ("transfer_weights", "transfer_batch_norm_stats"):
        from torchtnt.utils import misc

        kind = "bn" if group == "transfer_batch_norm_stats" else "mlp"
        source, target = _network(kind), _network(kind)
        if kind == "bn":
            source.train()
            source(x)
        function = getattr(misc, group)

        def transfer(pair: Any, x: Any) -> Any:
            function(pair[0], pair[1])
            return pair[1](x)

        return Run(nn.ModuleList([source, target]), transfer, [function]), (x,), {}
    if group == "init_optim_state":
        from torchtnt.utils.optimizer import init_optim_state

        net = _network()
        optimizer = torch.optim.AdamW(net.parameters(), lr=0.01)

        def initialize(net: Any, x: Any) -> Any:
            optimizer.state.clear()  # lazily made again at every call, as after a fresh construction
            init_optim_state(optimizer)
            return net(x)

        return Run(net, initialize, [init_optim_state]), (x,), {}
    if group == "extract_lr_from_optimizer":
        from torchtnt.utils.optimizer import extract_lr_from_optimizer

        net = _network()
        optimizer = torch.optim.SGD([{"params": net[0].parameters(), "name": "body"},
                                     {"params": net[2].parameters(), "lr": 0.01}], lr=0.1)

        def lrs(net: Any, x: Any) -> Any:
            stats = extract_lr_from_optimizer(optimizer, "optimizers/sgd")
            return net(x) * sum(stats.values())

        return Run(net, lrs, [extract_lr_from_optimizer]), (x,), {}
    if group == "convert_precision_str_to_dtype":
        from torchtnt.utils.precision import convert_precision_str_to_dtype

        def cast(net: Any, x: Any) -> Any:
            dtype = convert_precision_str_to_dtype("bf16")
            with torch.autocast(device_type="cpu", dtype=dtype, enabled=dtype is not None):
                return net(x).float()

        return Run(_network(), cast, [convert_precision_str_to_dtype]), (x,), {}
    if group == "get_grad_scaler_from_precision":
        import torch.nn.functional as F
        from torchtnt.utils.precision import get_grad_scaler_from_precision

        net = _network()
        optimizer = torch.optim.SGD(net.parameters(), lr=0.05)

        def scaled_step(net: Any, x: Any, y: Any) -> Any:
            scaler = get_grad_scaler_from_precision(torch.float16)
            with torch.enable_grad():
                loss = F.cross_entropy(net(x), y)
                scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            return loss.detach()

        return Run(net, scaled_step, [get_grad_scaler_from_precision]), (x, y), {}
    if group == "all_gather_tensors":
        from torchtnt.utils.distributed import all_gather_tensors

        return Call(all_gather_tensors), (x,), {}
    if group == "sync_bool":
        from torchtnt.utils.distributed import get_world_size, sync_bool

        def synced(_: Any, x: Any) -> Any:
            keep = sync_bool(True, coherence_mode="all")
            return x * float(keep) / get_world_size()

        return Run(None, synced, [sync_bool, get_world_size]), (x,), {}
    if group == "rank_zero_fn":
        from torchtnt.utils.distributed import rank_zero_fn

        normalized = rank_zero_fn(lambda t: t.softmax(-1))
        return Call(normalized), (x,), {}
    if group == "revert_sync_batchnorm":
        from torchtnt.utils.distributed import revert_sync_batchnorm

        net = nn.SyncBatchNorm.convert_sync_batchnorm(_network("bn"))

        def reverted(net: Any, x: Any) -> Any:
            return revert_sync_batchnorm(net)(x)

        return Run(net, reverted, [revert_sync_batchnorm]), (x,), {}
    if group == "seed":
        from torchtnt.utils.env import seed

        def seeded(_: Any, x: Any) -> Any:
            seed(7)
            return x + torch.randn(x.shape)

        return Run(None, seeded, [seed]), (x,), {}
    if group == "Timer":
        from torchtnt.utils.timer import Timer

        timer = Timer(cuda_sync=False)

        def timed(net: Any, x: Any) -> Any:
            with timer.time("forward"):
                out = net(x)
            return out

        return Run(_network(), timed, [Timer.time]), (x,), {}
    from torchtnt.utils.loggers import InMemoryLogger

    logger = InMemoryLogger()

    def logged(_: Any, x: Any, y: Any) -> Any:
        logger.log_dict({"mean": x.mean(), "max": x.max(), "first": y[:1], "count": 8}, step=1)
        return x * logger.log_buffer[1]["mean"]

    return Run(None, logged, [InMemoryLogger.log_dict]), (x, y), {}


def _copy_model(variant: str, x: Any, y: Any) -> Built:
    import collections

    import torch
    from gt_calls import Call, Run
    from torchtnt.utils.device import copy_data_to_device

    cpu = torch.device("cpu")
    if variant == "tensor":
        return Call(copy_data_to_device, device=cpu), (x,), {}
    if variant == "dtype":
        def to_double(_: Any, x: Any, y: Any) -> Any:
            return copy_data_to_device({"x": x, "y": [x[:2], x[2:]]}, cpu, torch.float64)

        return Run(None, to_double, [copy_data_to_device]), (x, y), {}
    pair = collections.namedtuple("pair", ["features", "label"])

    def nested(_: Any, x: Any, y: Any) -> Any:
        counts: Any = collections.defaultdict(int, {"n": y})
        data = {"pair": pair(x, y), "list": [x, (y, x * 2)], "counts": counts, "sample": _classes().Sample(x, y, 0.5),
                "name": "batch"}
        return copy_data_to_device(data, cpu, non_blocking=False)

    return Run(None, nested, [copy_data_to_device]), (x, y), {}


def _summary_model(name: str, x: Any) -> Built:
    import copy

    import torch
    from gt_calls import Run
    from torchtnt.utils import module_summary as ms
    from torchtnt.utils.flops import FlopTensorDispatchMode

    net = _network()
    if name == "get_module_summary.flops":
        def summarize(net: Any, x: Any) -> Any:
            with torch.enable_grad():  # the summary runs a backward for the backward flops
                summary = ms.get_module_summary(net, module_args=(x,))
            return x * summary.flops_forward + summary.num_parameters

        return Run(net, summarize, [ms.get_module_summary]), (x,), {}
    if name == "get_module_summary.no_inputs":
        def count(net: Any, x: Any) -> Any:
            summary = ms.get_module_summary(net)
            return x * summary.num_trainable_parameters + summary.size_bytes

        return Run(net, count, [ms.get_module_summary]), (x,), {}
    if name == "get_summary_table":
        def table(net: Any, x: Any) -> Any:
            with torch.enable_grad():
                summary = ms.get_module_summary(net, module_args=(x,))
            text = ms.get_summary_table(summary, human_readable_nums=True)
            return x * len(text)

        return Run(net, table, [ms.get_summary_table, ms.get_module_summary]), (x,), {}
    if name == "prune_module_summary":
        def pruned(net: Any, x: Any) -> Any:
            with torch.enable_grad():
                summary = ms.get_module_summary(net, module_args=(x,))
            ms.prune_module_summary(summary, max_depth=1)
            return x * len(summary.submodule_summaries)

        return Run(net, pruned, [ms.prune_module_summary, ms.get_module_summary]), (x,), {}
    if name == "FlopTensorDispatchMode.forward_backward":
        def flops(net: Any, x: Any) -> Any:
            with torch.enable_grad(), FlopTensorDispatchMode(net) as mode:
                out = net(x).mean()
                forward = copy.deepcopy(mode.flop_counts)
                mode.reset()
                out.backward()
                backward = copy.deepcopy(mode.flop_counts)
            return out.detach() + sum(forward[""].values()) + sum(backward[""].values())

        return Run(net, flops, [FlopTensorDispatchMode]), (x,), {}

    class _ConvAttention(torch.nn.Module):
        """A convolution, then a batched matmul of its features: the convolution and bmm flop counters."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = _network("conv")

        def forward(self, images: torch.Tensor) -> torch.Tensor:
            logits = self.conv(images).unsqueeze(1)
            return torch.bmm(logits.transpose(1, 2), logits)

    conv = _ConvAttention()

    def conv_flops(net: Any, images: Any) -> Any:
        with torch.enable_grad(), FlopTensorDispatchMode(net) as mode:
            out = net(images).sum()
            out.backward()
            counts = {k: dict(v) for k, v in mode.flop_counts.items()}
        return out.detach() + sum(counts["conv"].values())

    images = torch.randn(N, 1, 4, 4, generator=torch.Generator().manual_seed(4))
    return Run(conv, conv_flops, [FlopTensorDispatchMode]), (images,), {}


def _averaging_model(group: str, variant: str, x: Any, y: Any) -> Built:
    import torch
    from gt_calls import Call, Run
    from torchtnt.utils.early_stop_checker import EarlyStopChecker
    from torchtnt.utils.swa import AveragedModel

    if group == "AveragedModel":
        net = _network("mlp" if variant == "swa" else "bn")  # SWA's running mean cannot average integer buffers
        averaged = AveragedModel(net, use_buffers=True, averaging_method="swa" if variant == "swa" else "ema",
                                 ema_decay=0.9, use_lit=variant == "lit_ema")

        def average(pair: Any, x: Any) -> Any:
            pair[1].update_parameters(pair[0])
            return pair[1](x)

        return Run(torch.nn.ModuleList([net, averaged]), average, [AveragedModel.update_parameters]), (x,), {}
    if variant == "min":
        checker = EarlyStopChecker("min", patience=2)
    elif variant == "max_rel":
        checker = EarlyStopChecker("max", patience=2, min_delta=0.05, threshold_mode="rel")
    else:
        checker = EarlyStopChecker("min", patience=5, stopping_threshold=-10.0, divergence_threshold=10.0)

    if variant == "min":
        return Call(checker.check), (x.mean().reshape(1),), {}

    def check(_: Any, x: Any) -> Any:
        return [checker.check(x.mean()), checker.check(x.std())]

    return Run(None, check, [EarlyStopChecker.check]), (x,), {}


def _data_model(group: str, variant: str, x: Any, y: Any) -> Built:
    import torch
    from gt_calls import Run
    from torchtnt.utils.data import iterators
    from torchtnt.utils.data.multi_dataloader import MultiDataLoader
    from torchtnt.utils.data.synthetic_data import generate_random_square_image_tensor

    if group == "AbstractRandomDataset":
        def draw(_: Any, x: Any) -> Any:
            dataset = _classes().RandomPairs(size=4)
            features = torch.stack([dataset[i][0] for i in range(len(dataset))])
            image = generate_random_square_image_tensor(num_channels=1, side_length=DIM)
            return x[:4] + features, image

        return Run(None, draw, [_classes().RandomPairs.__getitem__, generate_random_square_image_tensor]), (x,), {}
    strategies: dict[str, Any] = {
        "RoundRobin": lambda: iterators.RoundRobin(iteration_order=["b", "a"]),
        "AllDatasetBatches": lambda: iterators.AllDatasetBatches(
            stopping_mechanism=iterators.StoppingMechanism.RESTART_UNTIL_ALL_DATASETS_EXHAUSTED),
        "RandomizedBatchSampler": lambda: iterators.RandomizedBatchSampler(weights={"a": 1.0, "b": 2.0}),
        "InOrder": lambda: iterators.InOrder(),
    }
    strategy = strategies[variant]()

    def iterate(_: Any, x: Any, y: Any) -> Any:
        loaders = {"a": [(x[:4], y[:4]), (x[4:], y[4:])], "b": [(x[:2] * 2, y[:2]), (x[2:5] * 2, y[2:5]),
                                                                 (x[5:] * 2, y[5:])]}
        total = x.new_zeros(())
        for batch in MultiDataLoader(loaders, strategy):
            for features, _labels in batch.values():
                total = total + features.sum()
        return total

    return Run(None, iterate, [MultiDataLoader.__iter__, MultiDataLoader.__init__]), (x, y), {}


def build(name: str) -> Built:
    import random
    import warnings

    import torch

    provide_pkg_resources()
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    random.seed(0)
    if name in AUTO:
        return _auto_model(name)
    if name in LOOPS:
        return _loop_model(name)
    group, _, rest = name.partition(".")
    if group == "callbacks" and rest in CALLBACKS:
        return _callback_model(rest)
    if group == "utils" and rest in UTILS:
        return _utils_model(rest)
    raise KeyError(name)


# The harness calls it before it imports torchtnt (``gt_models.prepare_import``).
before_import = provide_pkg_resources
