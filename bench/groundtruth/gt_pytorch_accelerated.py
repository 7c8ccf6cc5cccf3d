"""Ground-truth bench, pytorch_accelerated: the ``Trainer``'s steps, loops, callbacks, schedulers and utilities.

pytorch-accelerated 0.1.61 is a training framework on top of Hugging Face accelerate: a ``Trainer`` holds a model,
a loss function and an optimizer; ``train`` builds the dataloaders, lets an ``Accelerator`` prepare the model,
optimizer and loaders (``_prepare_model_optimizer_and_dataloaders``), fixes a ``TrainerRunConfig`` and a
scheduler (``create_scheduler_fn``, whose ``TrainerPlaceholderValues`` it fills in), then runs epochs:
``_run_train_epoch`` calls ``_perform_forward_and_backward_passes`` (``calculate_train_batch_loss``, the loss
tracker, the ``on_train_step_end`` event, ``backward_step``), clips gradients, ``optimizer_step``,
``scheduler_step`` and ``optimizer_zero_grad`` per update, and ``_run_eval_epoch`` calls
``calculate_eval_batch_loss``; the epoch losses are gathered into the run history. Callbacks hook every event
through a ``CallbackHandler``. A user who compiles a pipeline of it compiles the step or the loop a trainer runs,
so the models are bench modules whose forward calls one method of a prepared ``Trainer`` (set up as ``train``
sets it up, on the CPU, with in-memory loaders and no worker processes), a scheduler or a utility on a tiny batch:

- ``STEPS``: ``calculate_train_batch_loss`` (cross-entropy, MSE, a functional loss), ``calculate_eval_batch_loss``,
  ``backward_step``, a batch between the epoch hooks (``train_epoch_start``, ``eval_epoch_start``, the ends), the
  update (``optimizer_step`` / ``optimizer_zero_grad`` with SGD, SGD with momentum, Adam, AdamW on a network with
  batch norm and dropout, and on a network partly frozen by ``ModelFreezer``), ``_perform_forward_and_backward_passes``
  with the default callbacks, gradient accumulation and user trainers (batches as dicts, tokens whose loss is
  normalised by ``num_items_in_batch``), ``_clip_gradients``, the loss tracker and
  ``_add_epoch_loss_to_run_history``, ``gather`` with a padding value, and ``TrainerWithTimmScheduler``'s step
  with a timm scheduler;
- ``SCHEDULED``: the loop's update with a scheduler made by ``create_scheduler_fn``: torch's ``StepLR`` and
  ``OneCycleLR`` (placeholders, and placeholder arithmetic), ``CosineLrScheduler`` and ``WSDLrScheduler``;
- ``SCHEDULERS``: the library's schedulers stepped alone over a two-group optimizer (warmup, warmup ratio,
  minimum ratio, cooldown, k-decay, ``step_update``; WSD's warmup, inverse-proportional decay, three checkpoints,
  continuation, phase information) and ``Trainer.create_scheduler`` resolving placeholders;
- ``LOOPS``: ``_run_train_epoch`` (default callbacks, accumulation, a step limit, clipping, the prepared
  dataloader), ``_run_eval_epoch``, ``_run_training``, ``_run_evaluation``, and ``train`` / ``evaluate`` whole;
- ``CALLBACKS``: a training run (a train and an eval epoch) with each callback: the defaults, ``TerminateOnNaN``,
  ``PrintProgress``, ``ProgressBar``, ``LogMetrics``, ``MoveModulesToDevice``, ``EarlyStopping``,
  ``SaveBestModel``, ``ModelEma`` (with and without evaluating the average), ``StepBasedEvaluation``,
  ``LimitEvalSteps``, ``LimitBatches`` (through the ``LimitBatches`` context manager), ``ConvertSyncBatchNorm``,
  ``SaveTrainingState``, ``WSDCheckpoint`` and a user's metric callback;
- ``UTILS``: ``ModelEma`` (``update``, ``set``), ``remove_padding``, ``DataLoaderSlice``, the process decorators
  (``local_process_zero_only``, ``local_process_zero_first``, ``world_process_zero_only``), ``worker_init_fn``,
  ``ModelFreezer`` (``freeze``, ``unfreeze``), ``save_checkpoint`` / ``load_checkpoint`` and ``get_model``.

Steps and loops that train run under ``torch.enable_grad()``, so the eval (``no_grad``) pass trains too.
Batches are tiny (8 samples in two batches of 4, 6 features, 4 classes), the networks small MLPs; checkpoints go
to a fresh temporary folder. Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, HID, CLASSES, BATCH, EPOCHS, VOCAB, SEQ = 8, 6, 8, 4, 4, 8, 12, 5

# Model name -> (what runs, network, task, trainer options). Options: "loss", "optimizer", "trainer" (a user
# subclass or ``TrainerWithTimmScheduler``), "callbacks" ("default" or none), "accumulate", "clip", "freeze".
STEPS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "calculate_train_batch_loss": ("calculate_train_batch_loss", "mlp", "multiclass", {}),
    "calculate_train_batch_loss.mse": ("calculate_train_batch_loss", "mlp", "regression", {"loss": "mse"}),
    "calculate_train_batch_loss.functional": ("calculate_train_batch_loss", "mlp", "multiclass",
                                              {"loss": "functional"}),
    "calculate_eval_batch_loss": ("calculate_eval_batch_loss", "mlp", "multiclass", {}),
    "calculate_eval_batch_loss.bce_with_logits": ("calculate_eval_batch_loss", "mlp", "binary",
                                                  {"loss": "bce_with_logits"}),
    "backward_step": ("backward_step", "mlp", "multiclass", {}),
    "epoch_hooks": ("epoch_hooks", "bn", "multiclass", {}),
    "update.sgd": ("update", "mlp", "multiclass", {}),
    "update.sgd_momentum": ("update", "mlp", "multiclass", {"optimizer": "sgd_momentum"}),
    "update.adam": ("update", "mlp", "multiclass", {"optimizer": "adam"}),
    "update.adamw.bn": ("update", "bn", "multiclass", {"optimizer": "adamw"}),
    "update.frozen": ("update", "deep", "multiclass", {"optimizer": "adam", "freeze": True}),
    "forward_backward": ("forward_backward", "mlp", "multiclass", {"callbacks": "default"}),
    "forward_backward.accumulate2": ("forward_backward", "mlp", "multiclass", {"accumulate": 2}),
    "forward_backward.dict_batch": ("forward_backward", "mlp", "dict", {"trainer": "dict", "callbacks": "default"}),
    "forward_backward.tokens.accumulate2": ("forward_backward", "tokens", "tokens",
                                            {"trainer": "tokens", "accumulate": 2}),
    "clip_gradients": ("clip_gradients", "mlp", "multiclass", {"clip": 0.05}),
    "update_loss_tracker": ("update_loss_tracker", "mlp", "multiclass", {}),
    "add_epoch_loss_to_run_history": ("epoch_loss", "mlp", "multiclass", {}),
    "gather.padding_value": ("gather", "mlp", "multiclass", {}),
    "TrainerWithTimmScheduler.step": ("timm_step", "mlp", "multiclass", {"trainer": "timm"}),
}

# Model name -> scheduler token of ``create_scheduler_fn`` (the loop's update step, the scheduler stepping).
SCHEDULED = ("StepLR", "OneCycleLR.placeholders", "OneCycleLR.placeholder_arithmetic", "CosineLrScheduler",
             "CosineLrScheduler.warmup", "WSDLrScheduler", "WSDLrScheduler.warmup")

# Model name -> (scheduler class, keywords, what runs: "step", "step_update", "phase_info").
SCHEDULERS: dict[str, tuple[str, dict[str, Any], str]] = {
    "CosineLrScheduler": ("cosine", {"total_num_epochs": 4, "num_update_steps_per_epoch": 2}, "step"),
    "CosineLrScheduler.warmup": ("cosine", {"total_num_epochs": 4, "num_update_steps_per_epoch": 2,
                                            "num_warmup_epochs": 2, "warmup_starting_lr": 1e-4}, "step"),
    "CosineLrScheduler.warmup_ratio.min_lr_ratio": ("cosine", {"total_num_epochs": 4, "num_update_steps_per_epoch": 2,
                                                               "num_warmup_epochs": 1, "warmup_starting_lr_ratio": 0.1,
                                                               "min_lr_ratio": 0.01}, "step"),
    "CosineLrScheduler.cooldown.k_decay": ("cosine", {"total_num_epochs": 3, "num_update_steps_per_epoch": 1,
                                                      "num_cooldown_epochs": 1, "k_decay": 2.0}, "step"),
    "CosineLrScheduler.step_update": ("cosine", {"total_num_epochs": 4, "num_update_steps_per_epoch": 2},
                                      "step_update"),
    "WSDLrScheduler": ("wsd", {"total_steps": 6, "decay_phase_ratio": 0.5}, "step"),
    "WSDLrScheduler.warmup": ("wsd", {"num_epochs": 3, "num_update_steps_per_epoch": 2, "num_warmup_steps": 2,
                                      "warmup_starting_lr": 1e-4, "decay_phase_ratio": 0.5}, "step"),
    "WSDLrScheduler.inverse_proportional": ("wsd", {"total_steps": 4, "decay_phase_ratio": 0.5,
                                                    "use_inverse_sqrt_decay": False, "lr_min": 0.01}, "step"),
    "WSDLrScheduler.checkpoints3": ("wsd", {"total_steps": 16, "num_checkpoints": 3, "decay_phase_ratio": 0.25},
                                    "step"),
    "WSDLrScheduler.continuation": ("wsd", {"total_steps": 6, "decay_phase_ratio": 0.5,
                                            "is_continuation_from_checkpoint": True}, "step"),
    "WSDLrScheduler.phase_info": ("wsd", {"total_steps": 16, "num_checkpoints": 2, "decay_phase_ratio": 0.25},
                                  "phase_info"),
    "create_scheduler.CosineLrScheduler": ("cosine_fn", {"num_warmup_epochs": 1}, "create"),
    "create_scheduler.WSDLrScheduler": ("wsd_fn", {"num_warmup_epochs": 1, "num_checkpoints": 2}, "create"),
}

# Model name -> (what runs, trainer options).
LOOPS: dict[str, tuple[str, dict[str, Any]]] = {
    "run_train_epoch": ("train_epoch", {"callbacks": "default"}),
    "run_train_epoch.accumulate2": ("train_epoch", {"accumulate": 2}),
    "run_train_epoch.max_steps": ("train_epoch", {"max_steps": 1}),
    "run_train_epoch.clip": ("train_epoch", {"clip": 0.05, "optimizer": "sgd_momentum"}),
    "run_train_epoch.dataloader": ("train_epoch.dataloader", {}),
    "run_eval_epoch": ("eval_epoch", {"callbacks": "default"}),
    "run_eval_epoch.dataloader": ("eval_epoch.dataloader", {}),
    "run_training": ("run_training", {}),
    "run_evaluation": ("run_evaluation", {"callbacks": "default"}),
    "train": ("train", {}),
    "evaluate": ("evaluate", {}),
}

CALLBACKS = ("default", "TerminateOnNaNCallback", "PrintProgressCallback", "ProgressBarCallback",
             "LogMetricsCallback", "MoveModulesToDeviceCallback", "EarlyStoppingCallback", "SaveBestModelCallback",
             "ModelEmaCallback", "ModelEmaCallback.no_eval", "StepBasedEvaluationCallback",
             "LimitEvalStepsCallback", "LimitBatchesCallback", "ConvertSyncBatchNormCallback",
             "SaveTrainingStateCallback", "WSDCheckpointCallback", "user_metric")

UTILS = ("ModelEma.update", "ModelEma.set", "remove_padding", "DataLoaderSlice", "local_process_zero_only",
         "local_process_zero_first", "world_process_zero_only", "worker_init_fn", "ModelFreezer.freeze",
         "ModelFreezer.unfreeze", "checkpoint", "get_model")


def names() -> list[str]:
    return ([f"steps.{s}" for s in STEPS] + [f"scheduled.{s}" for s in SCHEDULED] +
            [f"schedulers.{s}" for s in SCHEDULERS] + [f"loops.{lp}" for lp in LOOPS] +
            [f"callbacks.{c}" for c in CALLBACKS] + [f"utils.{u}" for u in UTILS])


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _network(kind: str) -> Any:
    from torch import nn

    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))
    if kind == "bn":
        return nn.Sequential(nn.Linear(DIM, HID), nn.BatchNorm1d(HID), nn.ReLU(), nn.Dropout(0.2),
                             nn.Linear(HID, CLASSES))
    if kind == "deep":
        return nn.Sequential(nn.Sequential(nn.Linear(DIM, HID), nn.BatchNorm1d(HID), nn.ReLU()),
                             nn.Sequential(nn.Linear(HID, HID), nn.ReLU()), nn.Linear(HID, CLASSES))
    if kind == "tokens":
        return nn.Sequential(nn.Embedding(VOCAB, HID), nn.Linear(HID, HID), nn.GELU(), nn.Linear(HID, VOCAB))
    raise KeyError(kind)


def _data(task: str) -> tuple[Any, Any]:
    """``(x, y)`` of a task, 8 samples (for ``tokens``, 8 sequences of 5 ids and labels padded with -100)."""
    import torch

    x = torch.randn(N, DIM, generator=_gen(1))
    labels = torch.arange(N) % CLASSES
    if task in ("multiclass", "dict"):
        return x, labels
    if task == "regression":
        return x, torch.randn(N, CLASSES, generator=_gen(2))
    if task == "binary":
        return x, torch.randint(0, 2, (N, CLASSES), generator=_gen(2)).float()
    if task == "tokens":
        ids = torch.randint(0, VOCAB, (N, SEQ), generator=_gen(2))
        targets = ids.roll(-1, dims=1)
        targets[:, -1] = -100
        targets[::2, -2] = -100
        return ids, targets
    raise KeyError(task)


def _batches(x: Any, y: Any, task: str = "multiclass") -> list[Any]:
    if task == "dict":
        return [{"x": x[:BATCH], "y": y[:BATCH]}, {"x": x[BATCH:], "y": y[BATCH:]}]
    return [(x[:BATCH], y[:BATCH]), (x[BATCH:], y[BATCH:])]


def _dataset(x: Any, y: Any, task: str) -> Any:
    from torch.utils.data import TensorDataset

    if task == "dict":
        return [{"x": x[i], "y": y[i]} for i in range(len(x))]
    return TensorDataset(x, y)


def _loss(token: str) -> Any:
    import functools

    import torch.nn.functional as F
    from torch import nn

    if token == "mse":
        return nn.MSELoss()
    if token == "bce_with_logits":
        return nn.BCEWithLogitsLoss()
    if token == "functional":
        return functools.partial(F.cross_entropy, label_smoothing=0.1)
    return nn.CrossEntropyLoss()


def _optimizer(token: str, network: Any) -> Any:
    import torch

    parameters = [p for p in network.parameters() if p.requires_grad]
    if token == "sgd_momentum":
        return torch.optim.SGD(parameters, lr=0.05, momentum=0.9)
    if token == "adam":
        return torch.optim.Adam(parameters, lr=1e-3)
    if token == "adamw":
        return torch.optim.AdamW(parameters, lr=1e-3, weight_decay=0.01)
    return torch.optim.SGD(parameters, lr=0.05)


def _trainer_classes() -> dict[str, Any]:
    """The trainers users subclass: batches as dicts, and a token model whose loss is normalised by its count of
    labelled tokens (``num_items_in_batch``); and the library's ``TrainerWithTimmScheduler``."""
    import torch
    import torch.nn.functional as F
    from pytorch_accelerated import Trainer
    from pytorch_accelerated.trainer import TrainerWithTimmScheduler

    class DictBatchTrainer(Trainer):
        def calculate_train_batch_loss(self, batch: dict[str, Any]) -> dict[str, Any]:
            outputs = self.model(batch["x"])
            return {"loss": self.loss_func(outputs, batch["y"]), "model_outputs": outputs,
                    "batch_size": batch["y"].size(0)}

        def calculate_eval_batch_loss(self, batch: dict[str, Any]) -> dict[str, Any]:
            with torch.no_grad():
                return self.calculate_train_batch_loss(batch)

    class TokenTrainer(Trainer):
        def calculate_train_batch_loss(self, batch: Any) -> dict[str, Any]:
            ids, labels = batch[0], batch[1]
            logits = self.model(ids)
            num_items = (labels != -100).sum()
            loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-100, reduction="sum")
            return {"loss": loss / num_items, "model_outputs": logits, "batch_size": ids.size(0),
                    "num_items_in_batch": num_items}

    return {"dict": DictBatchTrainer, "tokens": TokenTrainer, "timm": TrainerWithTimmScheduler, "": Trainer}


def _scheduler_fn(token: str) -> Any:
    import functools

    import torch
    from pytorch_accelerated import TrainerPlaceholderValues as P
    from pytorch_accelerated.schedulers import CosineLrScheduler, WSDLrScheduler

    if token == "StepLR":
        return functools.partial(torch.optim.lr_scheduler.StepLR, step_size=1, gamma=0.9)
    if token == "OneCycleLR.placeholders":
        return functools.partial(torch.optim.lr_scheduler.OneCycleLR, max_lr=0.1, epochs=P.NUM_EPOCHS,
                                 steps_per_epoch=P.NUM_UPDATE_STEPS_PER_EPOCH)
    if token == "OneCycleLR.placeholder_arithmetic":
        return functools.partial(torch.optim.lr_scheduler.OneCycleLR, max_lr=0.1, epochs=P.NUM_EPOCHS + 1,
                                 steps_per_epoch=P.NUM_UPDATE_STEPS_PER_EPOCH * 2)
    if token == "CosineLrScheduler":
        return CosineLrScheduler.create_scheduler_fn()
    if token == "CosineLrScheduler.warmup":
        return CosineLrScheduler.create_scheduler_fn(num_warmup_epochs=1, warmup_starting_lr_ratio=0.1, k_decay=1.5)
    if token == "WSDLrScheduler":
        return WSDLrScheduler.create_scheduler_fn(decay_phase_ratio=0.25)
    if token == "WSDLrScheduler.warmup":
        return WSDLrScheduler.create_scheduler_fn(num_warmup_epochs=1, num_checkpoints=2, decay_phase_ratio=0.25)
    raise KeyError(token)


def _trainer(network: Any, x: Any, y: Any, *, task: str = "multiclass", loss: str = "cross_entropy",
             optimizer: str = "sgd", trainer: str = "", callbacks: Any = (), accumulate: int = 1,
             clip: float | None = None, max_steps: int | None = None, epochs: int = EPOCHS,
             scheduler: Any = None, evaluate: bool = True, freeze: bool = False) -> Any:
    """A trainer prepared as ``Trainer.train`` prepares it before its first epoch (dataloaders without worker
    processes, the accelerator's prepared model / optimizer / loaders, the run config, the scheduler)."""
    from pytorch_accelerated.finetuning import ModelFreezer
    from pytorch_accelerated.trainer import DEFAULT_CALLBACKS

    if freeze:
        ModelFreezer(network).freeze(from_index=0, to_index=0)
    made = _trainer_classes()[trainer](network, _loss(loss), _optimizer(optimizer, network),
                                       callbacks=DEFAULT_CALLBACKS if callbacks == "default" else list(callbacks))
    dataset = _dataset(x, y, task)
    made.train_dataset = dataset
    made.eval_dataset = dataset if evaluate else None
    made.create_scheduler_fn = scheduler
    made.collate_fn = None
    made.run_history.reset()
    made._train_dataloader = made.create_train_dataloader(BATCH, {"num_workers": 0, "shuffle": False})
    if evaluate:
        made._eval_dataloader = made.create_eval_dataloader(BATCH, {"num_workers": 0})
    made._prepare_model_optimizer_and_dataloaders()
    made.run_config = made._create_run_config(per_device_batch_size=BATCH, num_epochs=epochs,
                                              gradient_accumulation_steps=accumulate,
                                              max_num_train_steps=max_steps, gradient_clip_value=clip)
    if scheduler is not None:
        made.scheduler = made.create_scheduler()
    return made


def _enter_train_epoch(trainer: Any) -> None:
    """What ``_run_train_epoch`` does before its first batch (the progress bar opens here)."""
    trainer.train_epoch_start()
    trainer._loss_tracker.reset()
    trainer.callback_handler.call_event("on_train_epoch_start", trainer)


def _runner(trainer: Any, run: Any, entries: list[Any]) -> Any:
    """A bench module whose forward is ``run(trainer, *inputs)``, holding the trainer's network as a submodule."""
    from gt_calls import Run

    module = Run(trainer, run, entries)
    module.network = trainer.model
    return module


def _update(trainer: Any, batch: Any, step: int = 0) -> Any:
    """One update of ``_run_train_epoch``'s loop (the forward and backward passes, clipping, the optimizer and
    scheduler steps, zeroing the gradients), as the loop runs it when every step updates."""
    import torch

    with torch.enable_grad():
        trainer._perform_forward_and_backward_passes(batch, step)
        if trainer.run_config.gradient_clip_value is not None:
            trainer._clip_gradients()
        trainer.optimizer_step()
        if trainer.scheduler is not None and not trainer._accelerator.optimizer_step_was_skipped:
            trainer.scheduler_step()
        trainer.optimizer_zero_grad()
    return trainer._loss_tracker.loss_value


def _steps(name: str) -> Built:
    import torch
    from pytorch_accelerated import Trainer
    from pytorch_accelerated.trainer import TrainerWithTimmScheduler

    method, kind, task, options = STEPS[name]
    options = dict(options)
    x, y = _data(task)
    scheduler = None
    if options.get("trainer") == "timm":
        from timm.scheduler import CosineLRScheduler

        def scheduler(optimizer: Any) -> Any:
            return CosineLRScheduler(optimizer, t_initial=EPOCHS, warmup_t=1, warmup_lr_init=1e-4)

    trainer = _trainer(_network(kind), x, y, task=task, scheduler=scheduler, **options)
    _enter_train_epoch(trainer)
    first = _batches(x, y, task)[0]
    cls = type(trainer)

    def batch_of(x_: Any, y_: Any) -> Any:
        return {"x": x_, "y": y_} if task == "dict" else (x_, y_)

    if method == "calculate_train_batch_loss":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            with torch.enable_grad():
                return t.calculate_train_batch_loss(batch_of(x_, y_))["loss"]
        entries = [cls.calculate_train_batch_loss]
    elif method == "calculate_eval_batch_loss":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            return t.calculate_eval_batch_loss(batch_of(x_, y_))
        entries = [cls.calculate_eval_batch_loss]
    elif method == "backward_step":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            with torch.enable_grad():
                loss = t.calculate_train_batch_loss(batch_of(x_, y_))["loss"]
                t.backward_step(loss)
            return loss.detach()
        entries = [Trainer.calculate_train_batch_loss, Trainer.backward_step]
    elif method == "epoch_hooks":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            with torch.enable_grad():
                t.train_epoch_start()
                loss = t.calculate_train_batch_loss(batch_of(x_, y_))["loss"]
                t.train_epoch_end()
            t.eval_epoch_start()
            output = t.calculate_eval_batch_loss(batch_of(x_, y_))
            t.eval_epoch_end()
            t.training_run_epoch_end()
            return loss.detach(), output["model_outputs"]
        entries = [Trainer.train_epoch_start, Trainer.train_epoch_end, Trainer.eval_epoch_start,
                   Trainer.eval_epoch_end, Trainer.training_run_epoch_end]
    elif method == "update":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            with torch.enable_grad():
                loss = t.calculate_train_batch_loss(batch_of(x_, y_))["loss"]
                t.backward_step(loss)
                t.optimizer_step()
                t.optimizer_zero_grad()
            return loss.detach()
        entries = [Trainer.calculate_train_batch_loss, Trainer.backward_step, Trainer.optimizer_step,
                   Trainer.optimizer_zero_grad]
    elif method == "forward_backward":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            with torch.enable_grad():
                t._perform_forward_and_backward_passes(batch_of(x_, y_), 0)
            return t._loss_tracker.average
        entries = [Trainer._perform_forward_and_backward_passes]
    elif method == "clip_gradients":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            with torch.enable_grad():
                loss = t.calculate_train_batch_loss(batch_of(x_, y_))["loss"]
                t.backward_step(loss)
                t._clip_gradients()
                grads = [p.grad.clone() for p in t.model.parameters()]
                t.optimizer_step()
                t.optimizer_zero_grad()
            return grads
        entries = [Trainer._clip_gradients, Trainer.backward_step, Trainer.optimizer_step]
    elif method == "update_loss_tracker":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            output = t.calculate_eval_batch_loss(batch_of(x_, y_))
            t._update_loss_tracker(output["loss"], output["batch_size"])
            return output["loss"] * t._loss_tracker.average
        entries = [Trainer._update_loss_tracker]
    elif method == "epoch_loss":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            t._loss_tracker.reset()
            for batch in _batches(x_, y_):
                output = t.calculate_eval_batch_loss(batch)
                t._update_loss_tracker(output["loss"], output["batch_size"])
            t._add_epoch_loss_to_run_history("eval_loss_epoch")
            return x_ * t.run_history.get_latest_metric("eval_loss_epoch")
        entries = [Trainer._update_loss_tracker, Trainer._add_epoch_loss_to_run_history]
    elif method == "gather":
        def run(t: Any, x_: Any, y_: Any) -> Any:
            padded = torch.cat([t.model(x_).argmax(-1, keepdim=True).float(), torch.full((2, 1), -1.0)])
            return t.gather(padded, padding_value=-1)
        entries = [Trainer.gather]
    else:
        def run(t: Any, x_: Any, y_: Any) -> Any:
            with torch.enable_grad():
                t.train_epoch_start()
                loss = t.calculate_train_batch_loss(batch_of(x_, y_))["loss"]
                t.backward_step(loss)
                t.optimizer_step()
                t.scheduler_step()
                t.optimizer_zero_grad()
                t.eval_epoch_end()
            return loss.detach()
        entries = [TrainerWithTimmScheduler.train_epoch_start, TrainerWithTimmScheduler.scheduler_step,
                   TrainerWithTimmScheduler.eval_epoch_end]
    inputs = (first["x"], first["y"]) if task == "dict" else first
    return _runner(trainer, run, entries), tuple(inputs), {}


def _scheduled(name: str) -> Built:
    from pytorch_accelerated import Trainer

    x, y = _data("multiclass")
    trainer = _trainer(_network("mlp"), x, y, optimizer="sgd_momentum", scheduler=_scheduler_fn(name),
                       callbacks="default")
    _enter_train_epoch(trainer)

    def run(t: Any, x_: Any, y_: Any) -> Any:
        return _update(t, (x_, y_))

    entries = [Trainer._perform_forward_and_backward_passes, Trainer.optimizer_step, Trainer.scheduler_step,
               Trainer.optimizer_zero_grad]
    return _runner(trainer, run, entries), (x[:BATCH], y[:BATCH]), {}


def _schedulers(name: str) -> Built:
    import torch
    from pytorch_accelerated.schedulers import CosineLrScheduler, WSDLrScheduler

    from gt_calls import Run

    kind, keywords, what = SCHEDULERS[name]
    network = _network("mlp")
    weights = [p for n, p in network.named_parameters() if n.endswith("weight")]
    biases = [p for n, p in network.named_parameters() if n.endswith("bias")]
    optimizer = torch.optim.SGD([{"params": weights}, {"params": biases, "lr": 0.01}], lr=0.1)
    x = torch.randn(BATCH, DIM, generator=_gen(3))

    def lrs(t: Any) -> Any:
        return torch.tensor([group["lr"] for group in optimizer.param_groups]).sum() * t

    if what == "create":
        y = torch.arange(BATCH) % CLASSES
        if kind == "cosine_fn":
            function = CosineLrScheduler.create_scheduler_fn(**keywords)
        else:
            function = WSDLrScheduler.create_scheduler_fn(**keywords)
        trainer = _trainer(network, torch.cat([x, x]), torch.cat([y, y]), scheduler=function)
        trainer.optimizer = optimizer

        def create(t: Any, x_: Any) -> Any:
            scheduler = t.create_scheduler()
            scheduler.step()
            return lrs(x_)

        return _runner(trainer, create, [type(trainer).create_scheduler]), (x,), {}
    cls = CosineLrScheduler if kind == "cosine" else WSDLrScheduler
    scheduler = cls(optimizer, **keywords)
    if what == "step":
        def step(s: Any, x_: Any) -> Any:
            s.step()
            s.step()
            return lrs(x_)
        entries = [cls.step, cls.get_updated_values]
    elif what == "step_update":
        def step(s: Any, x_: Any) -> Any:
            for updates in (0, 3, 9):
                s.step_update(updates)
            return lrs(x_)
        entries = [cls.step_update, cls.get_updated_values]
    else:
        def step(s: Any, x_: Any) -> Any:
            s.step()
            info = s.get_current_phase_info()
            start = s.get_phase_info(s.get_current_step() + 5)["pre_decay_step"]
            return lrs(x_) * (info["period_end"] - start + len(s.get_checkpoint_steps()))
        entries = [cls.step, cls.get_current_phase_info, cls.get_phase_info]
    return Run(scheduler, step, entries), (x,), {}


def _loops(name: str) -> Built:
    import torch
    from pytorch_accelerated import Trainer

    what, options = LOOPS[name]
    options = dict(options)
    x, y = _data("multiclass")
    whole = what in ("train", "evaluate")
    trainer = _trainer(_network("bn"), x, y, epochs=1, **options)
    if whole:
        from torch.utils.data import TensorDataset

        def run(t: Any, x_: Any, y_: Any) -> Any:
            dataset = TensorDataset(x_, y_)
            with torch.enable_grad():
                if what == "train":
                    t.train(dataset, num_epochs=1, eval_dataset=dataset, per_device_batch_size=BATCH,
                            gradient_accumulation_steps=2, gradient_clip_value=0.1,
                            train_dataloader_kwargs={"num_workers": 0}, eval_dataloader_kwargs={"num_workers": 0})
                else:
                    t.evaluate(dataset, per_device_batch_size=BATCH, dataloader_kwargs={"num_workers": 0})
            return x_ * t.run_history.get_latest_metric("train_loss_epoch" if what == "train" else "evaluation_loss")

        return _runner(trainer, run, [getattr(Trainer, what)]), (x, y), {}
    loader = what.endswith(".dataloader")

    def run(t: Any, x_: Any, y_: Any) -> Any:
        batches = _batches(x_, y_)
        with torch.enable_grad():
            if what.startswith("train_epoch"):
                t._run_train_epoch(t._train_dataloader if loader else batches)
                metric = "train_loss_epoch"
            elif what.startswith("eval_epoch"):
                t._run_eval_epoch(t._eval_dataloader if loader else batches)
                metric = "eval_loss_epoch"
            elif what == "run_training":
                t._train_dataloader, t._eval_dataloader = batches, batches
                t.run_history.reset()
                t._run_training()
                metric = "eval_loss_epoch"
            else:
                t._eval_dataloader = batches
                t.run_history.reset()
                t._run_evaluation()
                metric = "evaluation_loss"
        return x_ * t.run_history.get_latest_metric(metric)

    method = {"train_epoch": Trainer._run_train_epoch, "eval_epoch": Trainer._run_eval_epoch,
              "run_training": Trainer._run_training, "run_evaluation": Trainer._run_evaluation}[what.split(".")[0]]
    return _runner(trainer, run, [method]), (x, y), {}


def _user_metric_callback() -> Any:
    """A user's callback: accuracy accumulated over the eval steps' outputs, recorded in the run history."""
    import torch
    from pytorch_accelerated.callbacks import TrainerCallback

    class AccuracyCallback(TrainerCallback):
        def __init__(self) -> None:
            self.correct = torch.zeros(())
            self.total = 0

        def on_eval_epoch_start(self, trainer: Any, **kwargs: Any) -> None:
            self.correct = torch.zeros(())
            self.total = 0

        def on_eval_step_end(self, trainer: Any, batch: Any, batch_output: Any, **kwargs: Any) -> None:
            predictions = batch_output["model_outputs"].argmax(-1)
            self.correct = self.correct + (predictions == batch[1]).sum()
            self.total += batch[1].numel()

        def on_eval_epoch_end(self, trainer: Any, **kwargs: Any) -> None:
            trainer.run_history.update_metric("accuracy", (self.correct / self.total).item())

    return AccuracyCallback()


def _callbacks(name: str) -> Built:
    import tempfile

    import torch
    from pytorch_accelerated import Trainer
    from pytorch_accelerated import callbacks as C
    from pytorch_accelerated.utils import LimitBatches

    folder = tempfile.mkdtemp(prefix="gt_pytorch_accelerated_")
    x, y = _data("multiclass")
    made: dict[str, Any] = {
        "default": lambda: "default",
        "TerminateOnNaNCallback": lambda: [C.TerminateOnNaNCallback()],
        "PrintProgressCallback": lambda: [C.PrintProgressCallback()],
        "ProgressBarCallback": lambda: [C.ProgressBarCallback()],
        "LogMetricsCallback": lambda: [C.LogMetricsCallback()],
        "MoveModulesToDeviceCallback": lambda: [C.MoveModulesToDeviceCallback()],
        "EarlyStoppingCallback": lambda: [C.EarlyStoppingCallback(early_stopping_patience=1,
                                                                  early_stopping_threshold=10.0)],
        "SaveBestModelCallback": lambda: [C.SaveBestModelCallback(save_path=f"{folder}/best.pt")],
        "ModelEmaCallback": lambda: [C.ModelEmaCallback(decay=0.9, save_path=f"{folder}/ema.pt",
                                                        callbacks=[C.TerminateOnNaNCallback()])],
        "ModelEmaCallback.no_eval": lambda: [C.ModelEmaCallback(decay=0.9, evaluate_during_training=False,
                                                                save_path=f"{folder}/ema.pt")],
        "StepBasedEvaluationCallback": lambda: [C.StepBasedEvaluationCallback(eval_every_n_steps=1)],
        "LimitEvalStepsCallback": lambda: [C.LimitEvalStepsCallback(1, limit_intermediate_only=False),
                                           C.StepBasedEvaluationCallback(eval_every_n_steps=1)],
        "LimitBatchesCallback": lambda: [],
        "ConvertSyncBatchNormCallback": lambda: [C.ConvertSyncBatchNormCallback()],
        "SaveTrainingStateCallback": lambda: [C.SaveTrainingStateCallback(save_dir=f"{folder}/states",
                                                                          save_every_n_steps=1, save_at_end=False,
                                                                          max_checkpoints=1)],
        "WSDCheckpointCallback": lambda: [C.WSDCheckpointCallback(save_dir=f"{folder}/wsd")],
        "user_metric": lambda: [_user_metric_callback()],
    }
    callbacks = made[name]()
    epochs = 2 if name == "EarlyStoppingCallback" else 1
    scheduler = None
    if name == "WSDCheckpointCallback":
        from pytorch_accelerated.schedulers import WSDLrScheduler

        scheduler = WSDLrScheduler.create_scheduler_fn(decay_phase_ratio=0.5)
    if name == "LimitBatchesCallback":
        with LimitBatches(1):
            trainer = _trainer(_network("bn"), x, y, epochs=epochs, callbacks=callbacks)
    else:
        trainer = _trainer(_network("bn"), x, y, epochs=epochs, callbacks=callbacks, scheduler=scheduler)

    def run(t: Any, x_: Any, y_: Any) -> Any:
        batches = _batches(x_, y_)
        t._train_dataloader, t._eval_dataloader = batches, batches
        t.run_history.reset()  # as ``train`` does: each call is a fresh training run
        with torch.enable_grad():
            t._run_training()
        return x_ * t.run_history.get_latest_metric("train_loss_epoch")

    return _runner(trainer, run, [Trainer._run_training, C.CallbackHandler.call_event]), (x, y), {}


def _utils(name: str) -> Built:
    import os

    import torch
    from pytorch_accelerated import utils as U
    from pytorch_accelerated.finetuning import ModelFreezer

    from gt_calls import Call, Run

    x, y = _data("multiclass")
    network = _network("deep")
    if name in ("ModelEma.update", "ModelEma.set"):
        ema = U.ModelEma(network, decay=0.9)
        with torch.no_grad():
            for p in network.parameters():
                p.add_(0.1)
        method = U.ModelEma.update if name == "ModelEma.update" else U.ModelEma.set

        def average(owner: Any, x_: Any) -> Any:
            method(owner[0], owner[1])
            return owner[0].module(x_)

        module = Run(torch.nn.ModuleList([ema, network]), average, [method])
        return module, (x,), {}
    if name == "remove_padding":
        padded = torch.cat([x[:5], torch.full((3, DIM), -1.0)])
        padded[1, 2] = -1.0
        return Call(U.remove_padding, pad_value=-1.0), (padded,), {}
    if name == "DataLoaderSlice":
        def sliced(_: Any, x_: Any, y_: Any) -> Any:
            total = x_.new_zeros(())
            for xb, yb in U.DataLoaderSlice(_batches(x_, y_) * 2, 3):
                total = total + xb.sum() * yb.float().mean()
            return total
        return Run(None, sliced, [U.DataLoaderSlice.__iter__]), (x, y), {}
    if name in ("local_process_zero_only", "local_process_zero_first", "world_process_zero_only"):
        decorator = getattr(U, name)

        @decorator
        def normalise(t: Any) -> Any:
            return (t - t.mean(0)) / (t.std(0) + 1e-5)

        return Run(None, lambda _, x_: normalise(x_), [decorator]), (x,), {}
    if name == "worker_init_fn":
        def seeded(_: Any, x_: Any) -> Any:
            return x_ * float(U.worker_init_fn(1) > 0)
        return Run(None, seeded, [U.worker_init_fn]), (x,), {}
    if name in ("ModelFreezer.freeze", "ModelFreezer.unfreeze"):
        freezer = ModelFreezer(network, freeze_batch_norms=name.endswith("unfreeze"))
        if name.endswith("unfreeze"):
            freezer.freeze(set_modules_as_eval=True)

            def thaw(owner: Any, x_: Any) -> Any:
                groups = freezer.unfreeze(from_index=-2, to_index=0)
                return owner(x_), len(groups), len(freezer.get_trainable_parameters())
            entries: list[Any] = [ModelFreezer.unfreeze, ModelFreezer.get_trainable_parameters]
        else:
            def thaw(owner: Any, x_: Any) -> Any:
                freezer.freeze(from_index=0, to_index=-2)
                groups = freezer.get_layer_groups()
                return owner(x_), sum(group.is_frozen for group in groups)
            entries = [ModelFreezer.freeze, ModelFreezer.get_layer_groups]
        return Run(network, thaw, entries), (x,), {}
    trainer = _trainer(network, x, y)
    if name == "checkpoint":
        import tempfile

        path = os.path.join(tempfile.mkdtemp(prefix="gt_pytorch_accelerated_"), "checkpoint.pt")

        def round_trip(t: Any, x_: Any) -> Any:
            t.save_checkpoint(path, checkpoint_kwargs={"epoch": 1})
            checkpoint = t.load_checkpoint(path)
            return t.model(x_) * checkpoint["epoch"]

        from pytorch_accelerated import Trainer
        return _runner(trainer, round_trip, [Trainer.save_checkpoint, Trainer.load_checkpoint]), (x,), {}

    def unwrapped(t: Any, x_: Any) -> Any:
        model = t.get_model(keep_torch_compile=False)
        t.print("device", t.device)
        return model(x_.to(t.device))

    return _runner(trainer, unwrapped, [type(trainer).get_model]), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    group, _, rest = name.partition(".")
    if group == "steps" and rest in STEPS:
        return _steps(rest)
    if group == "scheduled" and rest in SCHEDULED:
        return _scheduled(rest)
    if group == "schedulers" and rest in SCHEDULERS:
        return _schedulers(rest)
    if group == "loops" and rest in LOOPS:
        return _loops(rest)
    if group == "callbacks" and rest in CALLBACKS:
        return _callbacks(rest)
    if group == "utils" and rest in UTILS:
        return _utils(rest)
    raise KeyError(name)
