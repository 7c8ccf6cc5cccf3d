"""Ground-truth bench, torchbearer: ``Trial`` loops, closures, metrics, callbacks and utilities on tiny networks.

torchbearer fits a network through a ``Trial``: it holds the model, the optimizer, a criterion (a function of
``(y_pred, y_true)`` or of the trial's ``State``), a ``MetricList`` (metric objects or registered names:
``'acc'``, ``'loss'``, ``'lr'``, ``'epoch'``, ``'top_5_acc'``, ...) and a ``CallbackList`` that is notified around
every sample, forward, criterion, backward and step. ``run`` loops over epochs (``_fit_pass`` steps the optimizer
with ``standard_closure``, ``_validation_pass`` runs ``_test_pass`` under ``no_grad``), ``evaluate`` and
``predict`` run one test pass over the validation or test data, and everything lives in a ``State`` dict keyed by
``StateKey`` objects. A user who compiles a torchbearer pipeline compiles a training function that builds a
``Trial`` on its network and optimizer and runs it, or one of its steps, so the models are bench modules whose
forward does that on a tiny batch set held in memory (8 samples in two batches of 4):

- ``LOOPS``: ``run`` with the registered metrics and each criterion family (cross-entropy as a function and as a
  module, BCE with logits, MSE, a criterion of state), SGD with momentum, two epochs, more train steps than
  batches (the refreshing loader), the infinite train loader, ``with_train_data`` / ``with_val_data`` over a
  ``DataLoader``, a custom batch loader, a torchbearer-style network taking ``state``, a dict output unpacked by
  ``UnpackState``, a trial without data (``for_train_steps`` with an ``on_sample`` callback, as in the docs),
  ``Trial(None)`` built once and resumed for one more epoch per call, the Tqdm printers (``verbose`` 1 and 2);
  ``evaluate`` (on validation and train data, after a run), ``predict`` (tensors, pairs, ``with_test_data``),
  ``replay`` and a ``state_dict`` / ``load_state_dict`` round trip;
- ``CALLBACKS``: one ``run`` epoch with one callback, over two train batches (and two validation batches where
  the callback acts on them): gradient clipping (by norm and by value), L1 / L2 weight decay, Mixup (random and
  fixed lambda), CutMix (soft targets and the mixup loss), Cutout, RandomErase, BC+ (both losses), label
  smoothing, SamplePairing's default policy, ManifoldMixup, the torch schedulers (StepLR per epoch, LambdaLR per
  batch, ``TorchScheduler`` over ReduceLROnPlateau on a validation metric: torchbearer's own ``ReduceLROnPlateau``
  passes ``verbose``, which torch 2.13 no longer takes), EarlyStopping (per epoch and per batch),
  TerminateOnNaN, the weight initialisers (Kaiming on a convolution, zero bias, LSUV), the decorator API
  (``on_*`` lambdas, ``add_to_loss``, ``once``, ``once_per_epoch``, ``only_if``), ``ConsolePrinter``,
  ``CSVLogger`` (into a temporary folder), ``TimerMetric``, and the imaging callbacks ``FromState`` (cached) and
  ``ClassAppearanceModel`` (an inner ``Trial`` of gradient ascent on an image). The checkpointers are left out:
  ``save_checkpoint`` formats the file name with the state as keywords, among them ``self``, and Dynamo stops
  there with an internal error;
- ``METRICS``: a metric over an epoch as the ``Trial`` drives it (``train`` or ``eval`` as the bench module's
  mode, ``reset``, ``process`` on two batches, ``process_final``): the registered metrics (categorical, binary
  and top-k accuracy, MSE, learning rate) through their ``mean`` / ``running_mean`` trees,
  ``CategoricalAccuracy`` with ``ignore_index`` and one-hot targets, ``DefaultAccuracy`` resolved from a
  criterion (MixupAcc for the mixup loss), a ``MetricList`` of names, ``lambda_metric`` under the ``mean`` /
  ``std`` / ``var`` / ``running_mean`` decorators, ``EpochLambda`` (running and not), the
  aggregators ``Mean``, ``Var`` and ``RunningMean`` on tensors, ``ToDict`` on test data and ``StateKey`` objects
  as metrics (``RocAucScore`` is left out: Dynamo stops with an internal error inside scikit-learn's input
  checks);
- ``STEPS``: ``standard_closure`` (alone, with callbacks, given to ``optimizer.step``), ``deep_to``, the batch
  loaders ``load_batch_predict`` and ``load_batch_infinite``, ``cv_utils`` (``get_train_valid_sets``,
  ``DatasetValidationSplitter``) and ``LSUV.init_model`` on a small convolution.

LSUV runs without its orthonormal start (``do_orthonorm=False``): ``svd_orthonormal`` compares a shape with a
NumPy product, which Dynamo turns into a tensor and then stops on an internal assertion.

Trials, their metrics and callbacks are built inside the compiled forward (a fresh ``Trial`` per call, as a
training function builds one); the network, its optimizer and the metric objects of ``METRICS`` are built once.
Loops that train run under ``torch.enable_grad()``, so the eval (``no_grad``) pass trains too. Batches are tiny (8
samples, 6 features, 5 classes, or 2 x 6 x 6 images), the networks small MLPs and a small convolution. Random
weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, HID, CLASSES = 8, 6, 8, 5
IMAGE = (2, 6, 6)

# Model name -> spec of a Trial call. Keys: net (network kind), task (data), opt (optimizer token), crit
# (criterion token), metrics (names or tokens), callbacks (tokens), data (generators: "train", "val", "test",
# "test_pairs"), call ("run", "evaluate", "evaluate.train", "evaluate.after_run", "predict", "replay",
# "state_dict", "resumed": ``Trial(None)`` built once), epochs, verbose, steps (train steps), test_steps, loader
# ("dataloader", "custom"), inf (the infinite train loader).
LOOPS: dict[str, dict[str, Any]] = {
    "run": {"metrics": ["loss"]},
    "run.val_acc": {"metrics": ["acc", "loss"], "data": ("train", "val")},
    "run.registered_metrics": {"metrics": ["acc", "loss", "lr", "epoch", "top_5_acc", "cat_acc"],
                               "data": ("train", "val")},
    "run.cross_entropy_module": {"crit": "ce_module", "metrics": ["acc"], "data": ("train", "val")},
    "run.bce_with_logits": {"task": "binary", "crit": "bce_logits", "metrics": ["acc", "loss"]},
    "run.mse": {"task": "regression", "crit": "mse", "metrics": ["acc", "mse", "loss"], "data": ("train", "val")},
    "run.sgd_momentum": {"opt": "sgd_momentum", "metrics": ["loss"]},
    "run.two_epochs": {"metrics": ["acc", "loss"], "data": ("train", "val"), "epochs": 2},
    "run.train_steps": {"metrics": ["loss"], "steps": 3},
    "run.inf_train_loader": {"metrics": ["loss"], "loader": "dataloader", "inf": True, "steps": 1, "epochs": 2},
    "run.with_data": {"metrics": ["acc", "loss"], "loader": "dataloader", "data": ("train", "val")},
    "run.with_loader": {"metrics": ["loss"], "loader": "custom"},
    "run.state_network": {"net": "state_mlp", "crit": "state", "metrics": ["acc", "loss"], "data": ("train", "val")},
    "run.unpack_state": {"net": "dict_out", "crit": "dict_out", "metrics": ["loss"], "callbacks": ["UnpackState"],
                         "data": ("train", "val")},
    "run.no_data": {"net": "linear2", "opt": "adam", "crit": "abs", "metrics": ["loss"], "callbacks": ["sample_x"],
                    "data": (), "steps": 2},
    "run.mock_model.resumed": {"call": "resumed"},
    "run.verbose_batch": {"metrics": ["acc", "loss"], "data": ("train", "val"), "verbose": 2},
    "run.verbose_epoch": {"metrics": ["acc", "loss"], "data": ("train", "val"), "verbose": 1},
    "evaluate": {"metrics": ["acc", "loss"], "data": ("val",), "call": "evaluate"},
    "evaluate.train_data": {"metrics": ["acc", "loss"], "data": ("train",), "call": "evaluate.train"},
    "evaluate.after_run": {"metrics": ["acc", "loss"], "data": ("train", "val"), "call": "evaluate.after_run"},
    "predict": {"data": ("test",), "call": "predict"},
    "predict.pairs": {"metrics": ["acc"], "data": ("test_pairs",), "call": "predict"},
    "predict.with_test_data": {"data": ("test",), "loader": "dataloader", "call": "predict"},
    "replay": {"metrics": ["acc", "loss"], "data": ("train", "val"), "call": "replay"},
    "state_dict": {"opt": "adam", "metrics": ["loss"], "call": "state_dict"},
}

# Callback name -> (network kind, criterion token, metrics, with a validation pass). Each runs one epoch over two
# train batches (and two validation batches where the callback acts on them); image networks train on images.
CALLBACKS: dict[str, tuple[str, str, tuple[str, ...], bool]] = {
    "GradientNormClipping": ("mlp", "cross_entropy", ("loss",), False),
    "GradientClipping": ("mlp", "cross_entropy", ("loss",), False),
    "L2WeightDecay": ("mlp", "cross_entropy", ("loss",), False),
    "L1WeightDecay.params": ("mlp", "cross_entropy", ("loss",), False),
    "Mixup": ("mlp", "mixup", ("acc", "loss"), True),
    "Mixup.fixed_lambda": ("mlp", "mixup", ("acc",), False),
    "CutMix": ("image", "cross_entropy", ("acc", "loss"), True),
    "CutMix.mixup_loss": ("image", "mixup", ("acc",), True),
    "Cutout": ("image", "cross_entropy", ("acc",), False),
    "RandomErase": ("image", "cross_entropy", ("acc",), False),
    "BCPlus": ("image", "bc", ("loss",), True),
    "BCPlus.mixup_loss": ("image", "mixup", ("acc",), True),
    "LabelSmoothingRegularisation": ("mlp", "cross_entropy", ("acc", "loss"), True),
    "SamplePairing.default_policy": ("mlp", "cross_entropy", ("loss",), False),
    "ManifoldMixup": ("mlp", "mixup", ("acc",), True),
    "StepLR": ("mlp", "cross_entropy", ("lr",), False),
    "LambdaLR.step_on_batch": ("mlp", "cross_entropy", ("lr",), False),
    "TorchScheduler.ReduceLROnPlateau": ("mlp", "cross_entropy", ("loss", "lr"), True),
    "EarlyStopping": ("mlp", "cross_entropy", ("acc", "loss"), True),
    "EarlyStopping.step_on_batch": ("mlp", "cross_entropy", ("loss",), False),
    "TerminateOnNaN": ("mlp", "cross_entropy", ("loss",), False),
    "init.KaimingUniform": ("image", "cross_entropy", ("loss",), False),
    "init.ZeroBias": ("mlp", "cross_entropy", ("loss",), False),
    "init.LsuvInit": ("mlp", "cross_entropy", ("loss",), False),
    "decorators.hooks": ("mlp", "cross_entropy", ("loss",), False),
    "decorators.add_to_loss": ("mlp", "cross_entropy", ("loss",), True),
    "decorators.once_only_if": ("mlp", "cross_entropy", ("loss",), False),
    "ConsolePrinter": ("mlp", "cross_entropy", ("acc", "loss"), True),
    "CSVLogger": ("mlp", "cross_entropy", ("acc", "loss"), False),
    "TimerMetric": ("mlp", "cross_entropy", ("loss", "timer"), True),
    "imaging.FromState": ("image", "cross_entropy", ("loss",), False),
    "imaging.ClassAppearanceModel": ("image", "cross_entropy", ("loss",), False),
}

# Model name -> (metric token, batch kind). The forward runs the metric over an epoch of two batches.
METRICS: dict[str, tuple[str, str]] = {
    "cat_acc": ("cat_acc", "multiclass"),
    "CategoricalAccuracy.ignore_index": ("CategoricalAccuracy.ignore", "multiclass"),
    "CategoricalAccuracy.one_hot": ("cat_acc", "one_hot"),
    "binary_acc": ("binary_acc", "binary"),
    "TopKCategoricalAccuracy.k2": ("TopK.k2", "multiclass"),
    "mse": ("mse", "regression"),
    "lr": ("lr", "multiclass"),
    "DefaultAccuracy.cross_entropy": ("acc", "multiclass"),
    "DefaultAccuracy.bce": ("acc", "binary"),
    "DefaultAccuracy.mixup": ("acc", "mixup"),
    "MetricList": ("MetricList", "multiclass"),
    "lambda_metric.decorated": ("lambda.decorated", "multiclass"),
    "lambda_metric.on_epoch": ("lambda.on_epoch", "multiclass"),
    "EpochLambda.not_running": ("EpochLambda.not_running", "multiclass"),
    "ToDict.test_data": ("cat_acc", "test"),
    "StateKey": ("StateKey", "multiclass"),
    "aggregators.Mean": ("Mean", "tensors"),
    "aggregators.Var": ("Var", "tensors"),
    "aggregators.RunningMean": ("RunningMean", "tensors"),
}

STEPS = ("standard_closure", "standard_closure.callbacks", "standard_closure.optimizer_step", "deep_to",
         "load_batch_predict", "load_batch_infinite", "cv_utils.get_train_valid_sets",
         "cv_utils.DatasetValidationSplitter", "LSUV.conv")


def names() -> list[str]:
    return ([f"loops.{n}" for n in LOOPS] + [f"callbacks.{n}" for n in CALLBACKS] + [f"metrics.{n}" for n in METRICS]
            + [f"steps.{n}" for n in STEPS])


def _keys() -> dict[str, Any]:
    """The custom state keys of the models (made once per worker: ``state_key`` numbers repeated names)."""
    import torchbearer

    if not _KEYS:
        _KEYS.update(hidden=torchbearer.state_key("gt_hidden"), aux=torchbearer.state_key("gt_aux"),
                     image0=torchbearer.state_key("gt_image0"), image1=torchbearer.state_key("gt_image1"),
                     cam=torchbearer.state_key("gt_cam"))
    return _KEYS


_KEYS: dict[str, Any] = {}


def _network(kind: str) -> Any:
    import torch
    import torchbearer
    from torch import nn

    keys = _keys()
    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))
    if kind == "linear2":
        return nn.Linear(2, 1)
    if kind == "image":
        return nn.Sequential(nn.Conv2d(IMAGE[0], 4, 3, padding=1), nn.ReLU(), nn.Flatten(),
                             nn.Linear(4 * IMAGE[1] * IMAGE[2], CLASSES))

    class _StateMlp(nn.Module):
        """A torchbearer-style network: ``forward(x, state)`` leaves its hidden features in the state."""

        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Linear(DIM, HID)
            self.head = nn.Linear(HID, CLASSES)

        def forward(self, x: torch.Tensor, state: Any = None) -> torch.Tensor:
            h = torch.relu(self.body(x))
            if state is not None:
                state[keys["hidden"]] = h
            return self.head(h)

    class _DictOut(_StateMlp):
        """A network returning a dict of state keys (the prediction and an auxiliary output) for ``UnpackState``."""

        def forward(self, x: Any, state: Any = None) -> Any:  # type: ignore[override]
            h = torch.relu(self.body(x[torchbearer.X] if isinstance(x, dict) else x))
            return {torchbearer.Y_PRED: self.head(h), keys["aux"]: h.pow(2).mean()}

    return {"state_mlp": _StateMlp, "dict_out": _DictOut}[kind]()


def _data(task: str) -> tuple[Any, Any]:
    """``(x, y)`` of a task, 8 samples."""
    import torch

    gen = torch.Generator().manual_seed(1)
    x = torch.randn(N, DIM, generator=gen)
    labels = torch.arange(N) % CLASSES
    if task == "multiclass":
        return x, labels
    if task == "binary":
        return x, torch.randint(0, 2, (N, CLASSES), generator=gen).float()
    if task == "regression":
        return x, torch.randn(N, CLASSES, generator=gen)
    if task == "image":
        return torch.randn(N, *IMAGE, generator=gen), labels
    raise KeyError(task)


def _optimizer(token: str, network: Any) -> Any:
    import torch

    if token == "adam":
        return torch.optim.Adam(network.parameters(), lr=0.01)
    if token == "sgd_momentum":
        return torch.optim.SGD(network.parameters(), lr=0.05, momentum=0.9)
    return torch.optim.SGD(network.parameters(), lr=0.05)


def _criterion(token: str) -> Any:
    import torch
    import torch.nn.functional as F
    import torchbearer
    from torch import nn
    from torchbearer.callbacks import BCPlus, Mixup

    keys = _keys()

    def state_loss(state: Any) -> Any:
        return F.cross_entropy(state[torchbearer.Y_PRED], state[torchbearer.Y_TRUE]) + 0.01 * state[
            keys["hidden"]].pow(2).mean()

    def dict_loss(state: Any) -> Any:
        return F.cross_entropy(state[torchbearer.Y_PRED], state[torchbearer.Y_TRUE]) + 0.1 * state[keys["aux"]]

    made: dict[str, Callable[[], Any]] = {
        "cross_entropy": lambda: F.cross_entropy,
        "ce_module": nn.CrossEntropyLoss,
        "bce_logits": lambda: F.binary_cross_entropy_with_logits,
        "mse": nn.MSELoss,
        "state": lambda: state_loss,
        "dict_out": lambda: dict_loss,
        "abs": lambda: lambda y_pred, y_true: torch.abs(y_pred).mean(),
        "mixup": lambda: Mixup.mixup_loss,
        "bc": lambda: BCPlus.bc_loss,
    }
    return made[token]()


def _metrics(tokens: list[str]) -> Callable[[], list[Any]]:
    """A maker of a ``Trial``'s metrics (registered names, or objects made afresh: ``TimerMetric`` adds itself to
    the callbacks of the first trial it is reset in)."""
    from torchbearer.metrics import TimerMetric

    def make() -> list[Any]:
        return [TimerMetric(time_keys=("on_forward", "on_step_training")) if t == "timer" else t for t in tokens]

    return make


def _batches(x: Any, y: Any) -> list[tuple[Any, Any]]:
    return [(x[:4].clone(), y[:4].clone()), (x[4:].clone(), y[4:].clone())]


def _loop_callbacks(tokens: list[str]) -> Callable[[], list[Any]]:
    """A maker of the callbacks of a loop (called inside the compiled forward)."""
    import torch
    import torchbearer
    from torchbearer import callbacks

    def initial_data(state: Any) -> None:
        state[torchbearer.X] = torch.ones(1, 2) * 3.0

    def make() -> list[Any]:
        made: list[Any] = []
        for token in tokens:
            if token == "UnpackState":
                made.append(callbacks.UnpackState(output_to_state=True))
            elif token == "sample_x":
                made.append(callbacks.on_sample(initial_data))
        return made

    return make


def _runner(network: Any, run: Callable[..., Any], entries: list[Any]) -> Any:
    """A bench module whose forward is ``run(network, *inputs)``, holding the network as a submodule."""
    from gt_calls import Run

    return Run(network, run, entries)


def _loop_model(name: str) -> Built:
    import torch
    import torchbearer
    from torchbearer import Trial

    spec = LOOPS[name]
    if spec.get("call") == "resumed":
        return _resumed_model()
    network = _network(spec.get("net", "mlp"))
    optimizer = _optimizer(spec.get("opt", "sgd"), network)
    criterion = _criterion(spec.get("crit", "cross_entropy"))
    metrics = _metrics(spec.get("metrics", []))
    make_callbacks = _loop_callbacks(spec.get("callbacks", []))
    data = spec.get("data", ("train",))
    call = spec.get("call", "run")
    epochs, verbose = spec.get("epochs", 1), spec.get("verbose", 0)
    loader = spec.get("loader")

    def custom_loader(state: Any) -> None:
        x, y = next(state[torchbearer.ITERATOR])
        state[torchbearer.X], state[torchbearer.Y_TRUE] = x.float(), y

    def run(net: Any, x: Any, y: Any) -> Any:
        trial = Trial(net, optimizer, criterion, metrics=metrics(), callbacks=make_callbacks(), verbose=verbose)
        if loader == "dataloader":
            if "train" in data:
                trial.with_train_data(x, y, batch_size=4, shuffle=False, num_workers=0, steps=spec.get("steps"))
            if "val" in data:
                trial.with_val_data(x, y, batch_size=4, shuffle=False, num_workers=0)
            if "test" in data:
                trial.with_test_data(x, batch_size=4, num_workers=0, steps=spec.get("test_steps"))
        else:
            trial.with_generators(train_generator=_batches(x, y) if "train" in data else None,
                                  val_generator=_batches(x, y) if "val" in data else None,
                                  test_generator=([x[:4], x[4:]] if "test" in data else
                                                  _batches(x, y) if "test_pairs" in data else None),
                                  train_steps=spec.get("steps"), test_steps=spec.get("test_steps"))
            if not data and "steps" in spec:
                trial.for_train_steps(spec["steps"])
        if spec.get("inf"):
            trial.with_inf_train_loader()
        if loader == "custom":
            trial.with_loader(custom_loader)
        if call == "evaluate":
            return trial.evaluate(verbose=0)
        if call == "evaluate.train":
            return trial.evaluate(verbose=0, data_key=torchbearer.TRAIN_DATA)
        if call == "predict":
            return trial.predict(verbose=0)
        with torch.enable_grad():
            history = trial.run(epochs=epochs, verbose=verbose)
        if call == "evaluate.after_run":
            return trial.evaluate(verbose=0)
        if call == "replay":
            return trial.replay(callbacks=[], verbose=0)
        if call == "state_dict":
            return trial.load_state_dict(trial.state_dict())
        return history

    entries: list[Any] = [Trial.__init__, Trial.with_generators, Trial.run]
    if loader == "dataloader":
        entries = [Trial.__init__, Trial.with_train_data, Trial.with_val_data, Trial.with_test_data, Trial.run]
    entries += {"evaluate": [Trial.evaluate], "evaluate.train": [Trial.evaluate],
                "evaluate.after_run": [Trial.evaluate], "predict": [Trial.predict], "replay": [Trial.replay],
                "state_dict": [Trial.state_dict, Trial.load_state_dict]}.get(call, [])
    x, y = _data(spec.get("task", "multiclass"))
    if "linear2" == spec.get("net"):
        x = x[:, :2]
    return _runner(network, run, entries), (x, y), {}


def _resumed_model() -> Built:
    """``Trial(None)`` (a mock model, a mock optimizer and a zero criterion) for two train steps without data, built
    once: a ``MockOptimizer`` made inside the compiled frame stops Dynamo on an internal assertion ("Guard failed
    on the same frame it was created"). Each call runs one more epoch, as ``run`` resumes from the history."""
    import torch
    import torchbearer
    from torchbearer import Trial

    trial = Trial(None, metrics=["loss"], verbose=0).for_train_steps(2)

    def run(_: Any, x: Any) -> Any:
        with torch.enable_grad():
            return trial.run(epochs=len(trial.state[torchbearer.HISTORY]) + 1, verbose=0)

    return _runner(None, run, [Trial.run]), (_data("multiclass")[0],), {}


def _per_epoch_class() -> Any:
    """A user's callback class whose hook runs once per epoch (made once, outside the compiled forward)."""
    import torchbearer
    from torchbearer import callbacks

    global _PER_EPOCH
    if _PER_EPOCH is None:
        keys = _keys()

        class _PerEpoch(callbacks.Callback):
            @callbacks.once_per_epoch
            def on_step_training(self, state: Any) -> None:
                state[keys["aux"]] = state[torchbearer.LOSS].detach()

        _PER_EPOCH = _PerEpoch
    return _PER_EPOCH


_PER_EPOCH: Any = None


def _callback(name: str, network: Any, x: Any, folder: str) -> Callable[[], Any]:
    """A maker of a fresh callback of ``token`` (called inside the compiled forward)."""
    import functools
    import os

    import torch
    import torchbearer
    from torch import nn
    from torchbearer import callbacks
    from torchbearer.callbacks import imaging, init
    from torchbearer.callbacks.manifold_mixup import ManifoldMixup

    keys = _keys()

    def hooks() -> Any:
        @callbacks.on_forward
        def scale(state: Any) -> None:
            state[torchbearer.Y_PRED] = state[torchbearer.Y_PRED] * 0.5

        @callbacks.on_backward
        def grad_norm(state: Any) -> None:
            state[keys["aux"]] = sum(p.grad.norm() for p in state[torchbearer.MODEL].parameters())

        @callbacks.on_step_training
        def shrink(state: Any) -> None:
            for p in state[torchbearer.MODEL].parameters():
                p.data.mul_(0.999)

        return callbacks.CallbackList([scale, grad_norm, shrink])

    def once_only_if() -> Any:
        @callbacks.on_start_epoch
        @callbacks.once
        def first(state: Any) -> None:
            state[keys["aux"]] = torch.zeros(())

        @callbacks.on_sample
        @callbacks.only_if(lambda state: state[torchbearer.BATCH] % 2 == 0)
        def noise(state: Any) -> None:
            state[torchbearer.X] = state[torchbearer.X] + 0.01 * torch.randn_like(state[torchbearer.X])

        return callbacks.CallbackList([first, noise, per_epoch()])

    per_epoch = _per_epoch_class()
    parameters = list(network.parameters())
    made: dict[str, Callable[[], Any]] = {
        "GradientNormClipping": lambda: callbacks.GradientNormClipping(0.5),
        "GradientClipping": lambda: callbacks.GradientClipping(0.01),
        "L1WeightDecay.params": lambda: callbacks.L1WeightDecay(rate=0.001, params=parameters),
        "L2WeightDecay": lambda: callbacks.L2WeightDecay(rate=0.001),
        "Mixup": lambda: callbacks.Mixup(alpha=0.4),
        "Mixup.fixed_lambda": lambda: callbacks.Mixup(lam=0.3),
        "CutMix": lambda: callbacks.CutMix(1.0, classes=CLASSES),
        "CutMix.mixup_loss": lambda: callbacks.CutMix(1.0, classes=CLASSES, mixup_loss=True),
        "Cutout": lambda: callbacks.Cutout(1, 2),
        "RandomErase": lambda: callbacks.RandomErase(2, 2),
        "BCPlus": lambda: callbacks.BCPlus(classes=CLASSES),
        "BCPlus.mixup_loss": lambda: callbacks.BCPlus(mixup_loss=True, classes=CLASSES),
        "LabelSmoothingRegularisation": lambda: callbacks.LabelSmoothingRegularisation(0.1, classes=CLASSES),
        "SamplePairing.default_policy": lambda: callbacks.SamplePairing(
            callbacks.SamplePairing.default_policy(0, 4, 1, 1)),
        "ManifoldMixup": lambda: ManifoldMixup(alpha=0.5).at_depth(0).with_layer_type_filter([nn.ReLU]),
        "StepLR": lambda: callbacks.StepLR(step_size=1, gamma=0.5),
        "LambdaLR.step_on_batch": lambda: callbacks.LambdaLR(lambda step: 0.9 ** step, step_on_batch=True),
        # torchbearer's ``ReduceLROnPlateau`` passes ``verbose``, which torch 2.13's scheduler no longer takes:
        # users give the scheduler to ``TorchScheduler`` themselves.
        "TorchScheduler.ReduceLROnPlateau": lambda: callbacks.TorchScheduler(
            functools.partial(torch.optim.lr_scheduler.ReduceLROnPlateau, patience=0, factor=0.5),
            monitor="val_loss"),
        "EarlyStopping": lambda: callbacks.EarlyStopping(monitor="val_acc", patience=0, min_delta=0.1),
        "EarlyStopping.step_on_batch": lambda: callbacks.EarlyStopping(monitor="running_loss", patience=1,
                                                                       step_on_batch=True),
        "TerminateOnNaN": lambda: callbacks.TerminateOnNaN(monitor="running_loss"),
        "init.KaimingUniform": lambda: init.KaimingUniform(a=0.1),
        "init.ZeroBias": lambda: init.ZeroBias(),
        "init.LsuvInit": lambda: init.LsuvInit(x, max_attempts=3, do_orthonorm=False),
        "decorators.hooks": hooks,
        "decorators.add_to_loss": lambda: callbacks.add_to_loss(
            lambda state: 0.01 * state[torchbearer.Y_PRED].pow(2).mean()),
        "decorators.once_only_if": once_only_if,
        "ConsolePrinter": lambda: callbacks.ConsolePrinter(precision=3),
        "CSVLogger": lambda: callbacks.CSVLogger(os.path.join(folder, "log.csv"), batch_granularity=True),
        "imaging.FromState": lambda: imaging.FromState(torchbearer.X).on_train().cache(3).to_state(
            [keys["image0"], keys["image1"]], index=[0, 1]),
        "imaging.ClassAppearanceModel": lambda: imaging.ClassAppearanceModel(
            CLASSES, IMAGE, steps=2, target=1).on_train().to_state(keys["cam"], index=0),
    }
    return made[name]


def _callback_model(name: str) -> Built:
    import tempfile

    import torch
    from torchbearer import Trial

    kind, crit, metric_tokens, validation = CALLBACKS[name]
    network = _network(kind)
    optimizer = _optimizer("sgd", network)
    criterion = _criterion(crit)
    metrics = _metrics(list(metric_tokens))
    folder = tempfile.mkdtemp(prefix="gt_torchbearer_", dir="/tmp") if name == "CSVLogger" else ""
    x, y = _data("image" if kind == "image" else "multiclass")
    make = None if name == "TimerMetric" else _callback(name, network, x, folder)

    def run(net: Any, x: Any, y: Any) -> Any:
        trial = Trial(net, optimizer, criterion, metrics=metrics(), callbacks=[make()] if make else [], verbose=0)
        trial.with_generators(train_generator=_batches(x, y), val_generator=_batches(x, y) if validation else None)
        with torch.enable_grad():
            return trial.run(epochs=1, verbose=0)

    return _runner(network, run, [Trial.__init__, Trial.with_generators, Trial.run]), (x, y), {}


def _metric_object(token: str) -> Any:
    import torchbearer
    from torchbearer import metrics

    def abs_max(y_pred: Any, y_true: Any) -> Any:
        return y_pred.abs().max(1)[0]

    def top1_rate(y_pred: Any, y_true: Any) -> Any:
        return (y_pred.argmax(1) == y_true).float().mean()

    if token in ("cat_acc", "binary_acc", "top_5_acc", "mse", "loss", "epoch", "lr", "acc"):
        return metrics.get_default(token)
    made: dict[str, Callable[[], Any]] = {
        "CategoricalAccuracy.ignore": lambda: metrics.CategoricalAccuracy(ignore_index=0),
        "TopK.k2": lambda: metrics.TopKCategoricalAccuracy(k=2),
        "MetricList": lambda: metrics.MetricList(["acc", "loss", "lr", "epoch", metrics.TopKCategoricalAccuracy(k=3)]),
        "lambda.decorated": lambda: metrics.running_mean(step_size=1)(metrics.var(metrics.std(metrics.mean(
            metrics.lambda_metric("abs_max")(abs_max))))),
        "lambda.on_epoch": lambda: metrics.to_dict(metrics.lambda_metric("top1", on_epoch=True)(top1_rate)),
        "EpochLambda.not_running": lambda: metrics.to_dict(metrics.EpochLambda("top1", top1_rate, running=False)),
        "StateKey": lambda: metrics.MetricList([torchbearer.LOSS, torchbearer.EPOCH]),
        "Mean": lambda: metrics.Mean("mean", dim=0),
        "Std": lambda: metrics.Std("std"),
        "Var": lambda: metrics.Var("var", unbiased=False, dim=0),
        "RunningMean": lambda: metrics.RunningMean("running", batch_size=3, step_size=1, dim=0),
    }
    return made[token]()


def _metric_batch(kind: str) -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(2)
    labels = torch.arange(N) % CLASSES
    logits = torch.randn(N, CLASSES, generator=gen)
    if kind in ("multiclass", "test", "mixup"):
        return logits, labels
    if kind == "one_hot":
        return logits, torch.nn.functional.one_hot(labels, CLASSES).float()
    if kind == "binary":
        return logits.sigmoid(), torch.randint(0, 2, (N, CLASSES), generator=gen).float()
    if kind == "regression":
        return logits, torch.randn(N, CLASSES, generator=gen)
    if kind == "tensors":
        return logits, torch.randn(N, CLASSES, generator=gen)
    raise KeyError(kind)


def _metric_model(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torchbearer
    from torch import nn
    from torchbearer import State
    from torchbearer.callbacks import Mixup

    token, kind = METRICS[name]
    metric = _metric_object(token)
    holder = nn.Linear(DIM, CLASSES)
    optimizer = torch.optim.SGD([{"params": holder.weight}, {"params": holder.bias, "lr": 0.01}], lr=0.1)
    criterion = {"binary": nn.BCELoss(), "regression": F.mse_loss, "mixup": Mixup.mixup_loss}.get(kind,
                                                                                                 F.cross_entropy)

    class _Epoch(nn.Module):
        """An epoch of a metric as a ``Trial`` drives it: ``train`` / ``eval``, ``reset``, ``process`` per batch,
        ``process_final``."""

        def __init__(self) -> None:
            super().__init__()
            self.metric = metric
            self.holder = holder

        def forward(self, pred: Any, true: Any) -> Any:
            if kind == "tensors":
                self.metric.reset({})
                self.metric.process(pred[:4] - true[:4])
                self.metric.process(pred[4:] - true[4:])
                return self.metric.process_final()
            data_key = torchbearer.TRAIN_DATA if self.training else (
                torchbearer.TEST_DATA if kind == "test" else torchbearer.VALIDATION_DATA)
            state = State()
            state.update({torchbearer.EPOCH: 0, torchbearer.OPTIMIZER: optimizer, torchbearer.CRITERION: criterion,
                          torchbearer.DATA: data_key, torchbearer.METRICS: {}})
            if self.training:
                self.metric.train()
            else:
                self.metric.eval(data_key=data_key)
            self.metric.reset(state)
            outputs = []
            for batch, (start, stop) in enumerate(((0, 4), (4, N))):
                p, t = pred[start:stop], true[start:stop]
                state[torchbearer.BATCH] = batch
                state[torchbearer.Y_PRED] = p
                if kind == "mixup" and self.training:
                    perm = torch.arange(stop - start).flip(0)
                    state[torchbearer.MIXUP_LAMBDA] = 0.7
                    state[torchbearer.Y_TRUE] = (t, t[perm])
                else:
                    state[torchbearer.Y_TRUE] = t
                state[torchbearer.LOSS] = F.cross_entropy(p, t) if t.dtype == torch.long else F.mse_loss(p, t)
                outputs.append(self.metric.process(state))
            outputs.append(self.metric.process_final(state))
            return outputs

        def entry_points(self) -> list[Any]:
            cls = type(self.metric)
            return [cls.train, cls.eval, cls.reset, cls.process, cls.process_final]

    return _Epoch(), _metric_batch(kind), {}


def _closure_model(name: str) -> Built:
    """``standard_closure`` on a state built as ``Trial`` builds it, then the optimizer's step (or the closure given
    to ``optimizer.step``); with callbacks, the clipping and weight decay hooks run inside the closure."""
    import torch
    import torch.nn.functional as F
    import torchbearer
    from torchbearer import State, bases, callbacks

    network = _network("mlp")
    optimizer = torch.optim.SGD(network.parameters(), lr=0.05)

    def closure_step(net: Any, x: Any, y: Any) -> Any:
        made = [callbacks.GradientClipping(0.1, params=net.parameters()),
                callbacks.L2WeightDecay(0.001, params=list(net.parameters()))] if name.endswith("callbacks") else []
        callback_list = callbacks.CallbackList(made)
        state = State()
        state.update({torchbearer.X: x, torchbearer.Y_TRUE: y, torchbearer.MODEL: net,
                      torchbearer.CRITERION: F.cross_entropy, torchbearer.OPTIMIZER: optimizer,
                      torchbearer.CALLBACK_LIST: callback_list, torchbearer.BACKWARD_ARGS: {}})
        callback_list.on_start(state)
        closure = torchbearer.standard_closure()
        with torch.enable_grad():
            if name.endswith("optimizer_step"):
                optimizer.step(lambda: closure(state))
            else:
                closure(state)
                optimizer.step()
        return state[torchbearer.LOSS]

    return _runner(network, closure_step, [bases.base_closure]), _data("multiclass"), {}


def _step_model(name: str) -> Built:
    import torch
    import torchbearer
    from gt_calls import Call, Run
    from torch.utils.data import TensorDataset
    from torchbearer import State, cv_utils, trial
    from torchbearer.callbacks.lsuv import LSUV

    if name.startswith("standard_closure"):
        return _closure_model(name)
    x, y = _data("multiclass")
    if name == "deep_to":
        batch = ((x, [y, {"k": x * 2}]), {"ids": y, "h": x.double()})
        return Call(trial.deep_to, device="cpu", dtype=torch.float64), (batch,), {}
    if name == "load_batch_predict":
        def load_predict(_: Any, x: Any) -> Any:
            state = State()
            state.update({torchbearer.ITERATOR: iter([(x[:4],), (x[4:],)]), torchbearer.DEVICE: "cpu",
                          torchbearer.DATA_TYPE: torch.float32})
            trial.load_batch_predict(state)
            return state[torchbearer.X]

        return Run(None, load_predict, [trial.load_batch_predict]), (x,), {}
    if name == "load_batch_infinite":
        def load_infinite(_: Any, x: Any, y: Any) -> Any:
            generator = _batches(x, y)
            state = State()
            state.update({torchbearer.ITERATOR: iter(generator[:1]), torchbearer.GENERATOR: generator,
                          torchbearer.DEVICE: "cpu", torchbearer.DATA_TYPE: torch.float16})
            loader = trial.load_batch_infinite(trial.load_batch_standard)
            loader(state)
            first = state[torchbearer.X]
            loader(state)  # the iterator is spent: the loader refreshes it from the generator
            return first, state[torchbearer.X], state[torchbearer.Y_TRUE]

        return Run(None, load_infinite, [trial.load_batch_infinite, trial.load_batch_standard]), (x, y), {}
    if name == "cv_utils.get_train_valid_sets":
        def sets(_: Any, x: Any, y: Any) -> Any:
            train, valid = cv_utils.get_train_valid_sets(x, y, None, 0.25, shuffle=True)
            return train[0], valid[1], len(train)

        return Run(None, sets, [cv_utils.get_train_valid_sets]), (x, y), {}
    if name == "cv_utils.DatasetValidationSplitter":
        def split(_: Any, x: Any, y: Any) -> Any:
            splitter = cv_utils.DatasetValidationSplitter(N, 0.25, shuffle_seed=3)
            dataset = TensorDataset(x, y)
            train, valid = splitter.get_train_dataset(dataset), splitter.get_val_dataset(dataset)
            return [train[i] for i in range(len(train))], valid[0]

        return Run(None, split, [cv_utils.DatasetValidationSplitter.__init__,
                                 cv_utils.DatasetValidationSplitter.get_train_dataset,
                                 cv_utils.SubsetDataset.__getitem__]), (x, y), {}
    if name == "LSUV.conv":
        def lsuv(net: Any, data: Any) -> Any:
            return LSUV().init_model(net, data, needed_std=1.0, std_tol=0.1, max_attempts=3, do_orthonorm=False)(data)

        return _runner(_network("image"), lsuv, [LSUV.init_model]), (_data("image")[0],), {}
    raise KeyError(name)


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    group, _, rest = name.partition(".")
    if group == "loops" and rest in LOOPS:
        return _loop_model(rest)
    if group == "callbacks" and rest in CALLBACKS:
        return _callback_model(rest)
    if group == "metrics" and rest in METRICS:
        return _metric_model(rest)
    if group == "steps" and rest in STEPS:
        return _step_model(rest)
    raise KeyError(name)
