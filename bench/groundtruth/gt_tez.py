"""Ground-truth bench, tez: a ``tez.Model`` subclass's steps and loops, the ``Tez`` trainer, callbacks and utilities.

tez (a small PyTorch trainer by Abhishek Thakur) trains a user's network in one of two ways: the older
``tez.Model``, an ``nn.Module`` subclass whose ``forward`` returns ``(output, loss, metrics)`` and whose
``fit`` / ``train_one_epoch`` / ``validate_one_epoch`` / ``predict`` loop over ``DataLoader`` batches of dicts,
and the newer ``Tez`` trainer, which wraps such a network (with ``optimizer_scheduler``) in an ``accelerate``
driver and runs ``fit`` / ``train`` / ``validate`` / ``predict`` under a ``TezConfig``. A user who compiles a tez
pipeline compiles the step or the loop, so the models are bench modules whose forward runs one of them on tiny
in-memory datasets (8 samples, 6 features, 4 classes, batches of 4):

- ``MODEL``: ``tez.Model``'s ``forward``, ``model_fn``, ``train_one_step`` (plain, with gradient clipping,
  gradient accumulation, a per-batch scheduler, a scheduler stepped on a metric), ``validate_one_step``,
  ``predict_one_step``, ``train_one_epoch``, ``validate_one_epoch``, ``predict`` and ``fit`` (with a validation
  set, a per-epoch scheduler, ``EarlyStopping`` writing to a temporary directory);
- ``TEZ``: the ``Tez`` trainer's ``fit`` (plain, with a validation set, ``EarlyStopping``, a per-batch scheduler,
  gradient clipping, per-batch validation), ``train_step``, ``predict_step``, ``model_fn``, an epoch of ``train``
  and of ``validate``, and ``predict``, all on a trainer initialised eagerly: ``_init_trainer`` runs
  ``accelerate``'s ``prepare``, whose ``DataLoaderShard`` Dynamo cannot construct (an internal error), so the
  compiled ``fit`` skips it and ``prepare`` passes objects through, plain ``DataLoader``s standing in for the
  shards (one CPU process: same batches);
- ``UTILS``: ``AverageMeter``, a ``CallbackRunner`` over the ``TrainingState`` enum, ``EarlyStopping.check`` and
  ``GenericDataset`` indexing.

``EarlyStopping`` reads ``np.Inf``, gone from NumPy 2, so ``build`` gives NumPy that alias back. Random weights
and data, nothing downloaded; checkpoints go to a temporary directory. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, HID, CLASSES, BS = 8, 6, 8, 4, 4

MODEL = ("forward", "model_fn", "train_one_step", "train_one_step.clip", "train_one_step.accumulate",
         "train_one_step.scheduler_batch", "train_one_step.scheduler_metric", "validate_one_step",
         "predict_one_step", "train_one_epoch", "validate_one_epoch", "predict", "fit", "fit.valid",
         "fit.scheduler_epoch", "fit.early_stopping")
TEZ = ("fit", "fit.valid", "fit.early_stopping", "fit.scheduler_batch", "fit.clip", "fit.val_batch",
       "train_step", "predict_step", "model_fn", "train", "validate", "predict")
UTILS = ("AverageMeter", "CallbackRunner", "EarlyStopping.check", "GenericDataset")


def names() -> list[str]:
    return [f"Model.{m}" for m in MODEL] + [f"Tez.{m}" for m in TEZ] + [f"utils.{u}" for u in UTILS]


def _network(old: bool, scheduler: str = "") -> Any:
    """A classifier returning ``(logits, loss, {"accuracy": ..., "f": ...})``: a ``tez.Model`` or, for ``Tez``, a
    plain module with ``optimizer_scheduler``."""
    import tez
    import torch
    import torch.nn.functional as F
    from torch import nn

    base: Any = tez.Model if old else nn.Module

    class _Net(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))

        def monitor_metrics(self, outputs: torch.Tensor, targets: torch.Tensor) -> dict[str, torch.Tensor]:
            accuracy = (outputs.argmax(-1) == targets).float().mean()
            return {"accuracy": accuracy, "f": outputs.softmax(-1).max(-1).values.mean()}

        def fetch_optimizer(self) -> Any:
            return torch.optim.SGD(self.parameters(), lr=0.05)

        def fetch_scheduler(self) -> Any:
            if scheduler == "plateau":
                return torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, patience=0)
            if scheduler:
                return torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.5)
            return None

        def optimizer_scheduler(self) -> tuple[Any, Any]:
            opt = torch.optim.SGD(self.parameters(), lr=0.05)
            sch = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5) if scheduler else None
            return opt, sch

        def forward(self, x: torch.Tensor, y: torch.Tensor | None = None) -> Any:
            logits = self.body(x)
            if y is None:
                return logits, None, {}
            loss = F.cross_entropy(logits, y)
            return logits, loss, self.monitor_metrics(logits, y)

    return _Net()


def _data() -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(1)
    return torch.randn(N, DIM, generator=gen), torch.arange(N) % CLASSES


def _dataset(x: Any, y: Any) -> list[dict[str, Any]]:
    return [{"x": x[i], "y": y[i]} for i in range(x.shape[0])]


def _loader(x: Any, y: Any) -> Any:
    import torch

    return torch.utils.data.DataLoader(_dataset(x, y), batch_size=BS, shuffle=False, num_workers=0)


def _tmp() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="gt_tez_")


def _runner(owner: Any, net: Any, run: Any, entries: list[Any]) -> Any:
    from gt_calls import Run

    module = Run(owner, run, entries)
    module.net = net
    return module


def _old_model(name: str) -> Built:
    import os

    import tez
    import torch
    from tez.callbacks.early_stopping import EarlyStopping

    scheduler = {"train_one_step.scheduler_batch": "step", "train_one_step.scheduler_metric": "plateau",
                 "fit.scheduler_epoch": "step"}.get(name, "")
    net = _network(True, scheduler)
    x, y = _data()
    if name == "forward":
        return net, (x, y), {}
    net.device = "cpu"
    net.accumulation_steps = 2 if name == "train_one_step.accumulate" else 1
    net.clip_grad_norm = 0.5 if name == "train_one_step.clip" else None
    net.optimizer = net.fetch_optimizer()
    net.scheduler = net.fetch_scheduler()
    net.step_scheduler_after = "epoch" if name == "fit.scheduler_epoch" else "batch"
    if name == "train_one_step.scheduler_metric":
        net.step_scheduler_metric = "train_loss"
        net.metrics["train"]["loss"] = 1.0
    M = tez.Model
    if name.startswith("train_one_step"):
        def step(m: Any, x: Any, y: Any) -> Any:
            with torch.enable_grad():
                m.batch_index = 0
                out = m.train_one_step({"x": x[:BS], "y": y[:BS]})
                m.batch_index = 1
                return out, m.train_one_step({"x": x[BS:], "y": y[BS:]})

        return _runner(net, None, step, [M.train_one_step]), (x, y), {}
    one = {"model_fn": M.model_fn, "validate_one_step": M.validate_one_step, "predict_one_step": M.predict_one_step}
    if name in one:
        method = one[name]
        return _runner(net, None, lambda m, x, y: method(m, {"x": x, "y": y}), [method]), (x, y), {}
    if name == "train_one_epoch":
        def epoch(m: Any, x: Any, y: Any) -> Any:
            with torch.enable_grad():
                return m.train_one_epoch(_loader(x, y))

        return _runner(net, None, epoch, [M.train_one_epoch]), (x, y), {}
    if name == "validate_one_epoch":
        return _runner(net, None, lambda m, x, y: m.validate_one_epoch(_loader(x, y)),
                       [M.validate_one_epoch]), (x, y), {}
    if name == "predict":
        def predict(m: Any, x: Any) -> Any:
            return list(m.predict([{"x": row} for row in x], batch_size=BS, n_jobs=0))

        return _runner(net, None, predict, [M.predict]), (x,), {}
    out = _tmp()
    net.optimizer = None
    net.scheduler = None
    valid = name != "fit"

    def fit(m: Any, x: Any, y: Any) -> Any:
        callbacks = None
        if name == "fit.early_stopping":
            m.config = tez.TezConfig(val_strategy="epoch")
            callbacks = [EarlyStopping("valid_loss", os.path.join(out, "model.bin"), patience=1)]
        m.train_loader = m.valid_loader = None
        with torch.enable_grad():
            m.fit(_dataset(x, y), _dataset(x[:BS], y[:BS]) if valid else None, device="cpu", epochs=2,
                  train_bs=BS, valid_bs=BS, n_jobs=0, callbacks=callbacks, train_shuffle=False)
        return m.metrics["train"]["loss"]

    return _runner(net, None, fit, [M.fit]), (x, y), {}


def _config(**kwargs: Any) -> Any:
    import tez

    config = tez.TezConfig()
    settings = {"device": "cpu", "training_batch_size": BS, "validation_batch_size": BS, "test_batch_size": BS,
                "epochs": 1, "num_jobs": 0, "pin_memory": False, "train_shuffle": False, "valid_shuffle": False}
    for key, value in {**settings, **kwargs}.items():
        setattr(config, key, value)
    return config


def _ready(trainer: Any, x: Any, y: Any, valid: bool, config: Any, callbacks: Any = None) -> Any:
    """Initialise a ``Tez`` trainer eagerly: ``_init_trainer`` runs ``accelerate``'s ``prepare``, whose
    ``DataLoaderShard`` Dynamo cannot construct, so the compiled ``fit`` finds the trainer ready (its
    ``_init_trainer`` a no-op), plain ``DataLoader``s in place of the shards and ``prepare`` passing objects
    through (one CPU process: the shards would yield the same batches)."""
    kwargs = {"callbacks": callbacks} if callbacks else {}
    trainer._init_trainer(_dataset(x, y), _dataset(x[:BS], y[:BS]) if valid else None, config, **kwargs)
    trainer.train_loader = _loader(x, y)
    trainer.valid_loader = _loader(x[:BS], y[:BS]) if valid else None
    trainer._driver.prepare = lambda *objs: objs if len(objs) > 1 else objs[0]
    trainer._init_trainer = lambda *args, **kwargs: None
    return trainer


def _tez_model(name: str) -> Built:
    import os

    import tez
    import torch
    from tez.callbacks.early_stopping import EarlyStopping

    net = _network(False, "step" if name == "fit.scheduler_batch" else "")
    x, y = _data()
    T = tez.Tez
    if name.startswith("fit"):
        out = _tmp()
        options: dict[str, Any] = {"epochs": 2 if name == "fit.early_stopping" else 1}
        if name == "fit.scheduler_batch":
            options["step_scheduler_after"] = "batch"
        if name == "fit.clip":
            options["clip_grad_norm"] = 1.0
        if name == "fit.val_batch":
            options.update(val_strategy="batch", val_steps=1)
        valid = name in ("fit.valid", "fit.early_stopping", "fit.val_batch")

        callbacks = [EarlyStopping("valid_loss", os.path.join(out, "m.bin"), patience=1)]
        trainer = _ready(T(model=net), x, y, valid, _config(**options),
                         callbacks=callbacks if name == "fit.early_stopping" else None)

        def fit(t: Any, x: Any, y: Any) -> Any:
            t.current_epoch = 0
            with torch.enable_grad():
                t.fit(None, None, config=t.config)
            return t.metrics["train"]["loss"]

        return _runner(trainer, net, fit, [T.fit]), (x, y), {}
    trainer = _ready(T(model=net), x, y, True, _config())
    if name == "train_step":
        def step(t: Any, x: Any, y: Any) -> Any:
            with torch.enable_grad():
                return t.train_step({"x": x, "y": y})

        return _runner(trainer, net, step, [T.train_step]), (x, y), {}
    one = {"predict_step": T.predict_step, "model_fn": T.model_fn}
    if name in one:
        method = one[name]
        return _runner(trainer, net, lambda t, x, y: method(t, {"x": x, "y": y}), [method]), (x, y), {}
    if name == "train":
        def epoch(t: Any, x: Any, y: Any) -> Any:
            t._model_state = None
            with torch.enable_grad():
                t.train(_loader(x, y))
            return t.metrics["train"]["loss"]

        return _runner(trainer, net, epoch, [T.train]), (x, y), {}
    if name == "validate":
        def validate(t: Any, x: Any, y: Any) -> Any:
            t.validate(_loader(x, y))
            return t.metrics["valid"]["loss"]

        return _runner(trainer, net, validate, [T.validate]), (x, y), {}

    def predict(t: Any, x: Any) -> Any:
        return list(t.predict([{"x": row} for row in x], batch_size=BS, num_jobs=0, pin_memory=False))

    return _runner(trainer, net, predict, [T.predict]), (x,), {}


def _utils_model(name: str) -> Built:
    import os

    import numpy as np
    import tez
    import torch
    from gt_calls import Run
    from tez import enums
    from tez.callbacks import CallbackRunner
    from tez.callbacks.early_stopping import EarlyStopping
    from tez.datasets.generic import GenericDataset
    from tez.utils import AverageMeter

    gen = torch.Generator().manual_seed(2)
    x = torch.randn(N, DIM, generator=gen)
    if name == "AverageMeter":
        def meter(_: Any, x: Any) -> Any:
            m = AverageMeter()
            for row in x:
                m.update(row.mean(), n=2)
            return m.avg, m.sum, m.count

        return Run(None, meter, [AverageMeter.update]), (x,), {}
    if name == "CallbackRunner":
        class _Collect(tez.Callback):
            def __init__(self) -> None:
                self.seen: list[Any] = []

            def on_train_step_end(self, tez_trainer: Any, **kwargs: Any) -> None:
                self.seen.append(tez_trainer.body(tez_trainer.batch).sum())

            def on_epoch_end(self, tez_trainer: Any, **kwargs: Any) -> None:
                self.seen.append(len(self.seen))

        owner = torch.nn.Module()
        owner.body = torch.nn.Linear(DIM, 2)

        def runner(o: Any, x: Any) -> Any:
            cb = _Collect()
            run = CallbackRunner([tez.Callback(), cb], o)
            o.batch = x
            for state in enums.TrainingState:
                run(state)
            return cb.seen

        return Run(owner, runner, [CallbackRunner.__call__]), (x,), {}
    if name == "EarlyStopping.check":
        out = _tmp()
        net = _network(True)

        class _Trainer:
            def __init__(self) -> None:
                self.metrics = {"train": {}, "valid": {}}
                self.model_state = enums.ModelState.VALID

            def save(self, path: str, weights_only: bool = False) -> None:
                torch.save(net.state_dict(), path)

        def check(n: Any, x: Any) -> Any:
            es = EarlyStopping("valid_loss", os.path.join(out, "es.bin"), patience=2, mode="min")
            t = _Trainer()
            for value in (n.body(x).pow(2).mean(), x.abs().mean(), x.abs().mean() + 1):
                t.metrics["valid"]["loss"] = float(value)
                es.check(t)
            return es.best_score, es.counter, t.model_state

        return Run(net, check, [EarlyStopping.check]), (x,), {}

    def items(_: Any, x: Any) -> Any:
        data = GenericDataset(x.numpy(), np.arange(N) % CLASSES, (torch.float32, torch.long))
        return [data[i] for i in range(2)]

    return Run(None, items, [GenericDataset.__getitem__]), (x,), {}


def _numpy_inf() -> None:
    """``EarlyStopping`` starts from ``np.Inf``, removed in NumPy 2: give NumPy the alias back."""
    import numpy as np

    if "Inf" not in vars(np):
        np.Inf = np.inf  # type: ignore[attr-defined]


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    _numpy_inf()
    if "EarlyStopping" in name or "early_stopping" in name:
        from accelerate import PartialState

        PartialState(cpu=True)  # its logger needs accelerate's state, which ``Tez`` sets up and ``tez.Model`` does not
    group, _, rest = name.partition(".")
    if group == "Model" and rest in MODEL:
        return _old_model(rest)
    if group == "Tez" and rest in TEZ:
        return _tez_model(rest)
    if group == "utils" and rest in UTILS:
        return _utils_model(rest)
    raise KeyError(name)
