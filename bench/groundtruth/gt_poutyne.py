"""Ground-truth bench, poutyne: Keras-like ``Model`` steps, loops, metrics, callbacks and utilities on tiny networks.

Poutyne wraps a network, an optimizer (an instance, a name such as ``'sgd'``, or a dict with ``'optim'``) and a
loss function (a callable or a registered name: ``'cross_entropy'``, ``'mse'``, ``'bce_with_logits'`` ...) in a
``Model``; batch metrics are computed on every batch, epoch metrics accumulated (``update``) and computed at the
end of an epoch, and callbacks hook every stage of the loop. A user who compiles a Poutyne pipeline compiles the
step or loop the ``Model`` runs, so the models are bench modules whose forward calls one method of a ``Model``
(or a metric, a callback-driven loop, a utility) on a tiny batch:

- ``BATCH``: ``train_on_batch`` (a loss backward and an optimizer step) with registered losses (cross-entropy,
  NLL, MSE, BCE, BCE with logits, multi-margin, KL divergence) and a loss module, optimizers by name, by dict
  and as instances, batch metrics by name (``'accuracy'``, ``'f1'``, ``'bin_acc'``, ``'top3'``), as objects
  (``TopKAccuracy``, ``FBeta``, torchmetrics' ``MulticlassAccuracy``) and as epoch metrics, ``return_pred`` /
  ``return_dict_format``, networks with two inputs, two outputs (``IndexedArgumentMetric``), a dict output, a
  ``Lambda`` layer, a packed sequence into an LSTM, and NumPy inputs; ``evaluate_on_batch`` (with metrics,
  without an optimizer) and ``predict_on_batch``;
- ``LOOPS``: ``fit_generator`` over two in-memory batches (with validation, ``batches_per_step``,
  ``steps_per_epoch`` cycling, the progress bar, epoch metrics), ``evaluate_generator`` (with its return
  options) and ``predict_generator``, and ``fit`` / ``evaluate`` through Poutyne's ``TensorDataset`` and a
  ``DataLoader``;
- ``CALLBACKS``: a ``fit_generator`` epoch with ``ClipNorm``, the wrapped torch schedulers (``StepLR``,
  ``ReduceLROnPlateau``), ``OptimizerPolicy`` over ``one_cycle_phases`` and a hand-made ``Phase`` list,
  ``EarlyStopping``, ``BestModelRestore``, ``LambdaCallback`` and ``GradientTracker``. Their optimizer keeps
  no momentum buffers (plain SGD, Adam for the one-cycle policy): with SGD's, Dynamo stops on an internal
  assertion in the loop;
- ``METRICS``: the metric modules called as users call them (forward on a batch, or reset / update / compute
  over an epoch): ``Accuracy`` (``ignore_index``), ``BinaryAccuracy``, ``TopKAccuracy``, ``FBeta`` (all three
  scores, micro and macro averages, a mask, deterministic bincount), ``Recall`` of a label, ``BinaryRecall``,
  ``DecomposableMetric``, ``IndexedArgumentMetric`` and the function ``acc`` (``SKLearnMetrics`` is left out:
  Dynamo stops with an internal error inside scikit-learn's input checks);
- ``UTILS``: ``torch_to_numpy``, ``numpy_to_torch``, ``_concat`` and ``TensorDataset`` indexing.

Batches are tiny (8 samples, 6 features, 4 classes) with random values; the networks are small MLPs, a small
convolution and an LSTM. Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, HID, CLASSES = 8, 6, 8, 4

# Model name -> (method, network kind, task, Model keywords, method keywords). Metric and optimizer entries
# are tokens that ``_metric`` and ``_optimizer`` turn into objects.
BATCH: dict[str, tuple[str, str, str, dict[str, Any], dict[str, Any]]] = {
    "train_on_batch.cross_entropy": ("train_on_batch", "mlp", "multiclass", {}, {}),
    "train_on_batch.nll": ("train_on_batch", "mlp_log", "multiclass", {"loss_function": "nll"}, {}),
    "train_on_batch.mse": ("train_on_batch", "mlp", "regression", {"loss_function": "mse",
                                                                   "batch_metrics": ["l1"]}, {}),
    "train_on_batch.bce": ("train_on_batch", "mlp_sigmoid", "binary", {"loss_function": "bce"}, {}),
    "train_on_batch.bce_with_logits": ("train_on_batch", "mlp", "binary",
                                       {"loss_function": "bce_with_logits", "batch_metrics": ["bin_acc"]}, {}),
    "train_on_batch.multi_margin": ("train_on_batch", "mlp", "multiclass", {"loss_function": "multi_margin"}, {}),
    "train_on_batch.kl_div": ("train_on_batch", "mlp_log", "distribution", {"loss_function": "kl_div"}, {}),
    "train_on_batch.loss_module": ("train_on_batch", "mlp", "multiclass",
                                   {"loss_function": "module_cross_entropy", "optimizer": "sgd_momentum"}, {}),
    "train_on_batch.adam_dict": ("train_on_batch", "mlp", "multiclass", {"optimizer": "adam_dict"}, {}),
    "train_on_batch.metrics": ("train_on_batch", "mlp", "multiclass",
                               {"batch_metrics": ["accuracy", "f1", "top3", "topk2"]}, {}),
    "train_on_batch.epoch_metrics": ("train_on_batch", "mlp", "multiclass",
                                     {"batch_metrics": ["accuracy"], "epoch_metrics": ["f1", "recall_macro"]}, {}),
    "train_on_batch.torchmetrics": ("train_on_batch", "mlp", "multiclass",
                                    {"batch_metrics": ["tm_accuracy"], "epoch_metrics": ["tm_f1"]}, {}),
    "train_on_batch.return_pred": ("train_on_batch", "mlp", "multiclass", {"batch_metrics": ["accuracy"]},
                                   {"return_pred": True}),
    "train_on_batch.return_dict": ("train_on_batch", "mlp", "multiclass", {"batch_metrics": ["accuracy", "f1"]},
                                   {"return_dict_format": True}),
    "train_on_batch.two_inputs": ("train_on_batch", "two_inputs", "two_inputs", {"batch_metrics": ["accuracy"]}, {}),
    "train_on_batch.two_outputs": ("train_on_batch", "two_outputs", "two_outputs",
                                   {"loss_function": "two_outputs", "batch_metrics": ["indexed_accuracy",
                                                                                      "indexed_mse"]}, {}),
    "train_on_batch.dict_output": ("train_on_batch", "dict_output", "multiclass",
                                   {"loss_function": "dict_output", "batch_metrics": ["indexed_dict"]}, {}),
    "train_on_batch.lambda_layer": ("train_on_batch", "image", "image", {"batch_metrics": ["accuracy"]}, {}),
    "train_on_batch.packed_sequence": ("train_on_batch", "lstm", "packed", {}, {}),
    "train_on_batch.numpy": ("train_on_batch", "mlp", "numpy", {}, {}),
    "evaluate_on_batch": ("evaluate_on_batch", "mlp", "multiclass", {}, {}),
    "evaluate_on_batch.metrics": ("evaluate_on_batch", "mlp", "multiclass",
                                  {"batch_metrics": ["accuracy", "f1"], "epoch_metrics": ["fbeta_micro"]}, {}),
    "evaluate_on_batch.no_optimizer": ("evaluate_on_batch", "mlp", "regression",
                                       {"optimizer": None, "loss_function": "mse"}, {}),
    "predict_on_batch": ("predict_on_batch", "mlp", "multiclass", {}, {}),
}

# Model name -> (method, Model keywords, method keywords); the data are the 8 samples in two batches of 4.
LOOPS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "fit_generator": ("fit_generator", {}, {}),
    "fit_generator.valid_metrics": ("fit_generator", {"batch_metrics": ["accuracy"], "epoch_metrics": ["f1"]},
                                    {"valid": True}),
    "fit_generator.batches_per_step": ("fit_generator", {"batch_metrics": ["accuracy"]}, {"batches_per_step": 2}),
    "fit_generator.steps_per_epoch": ("fit_generator", {}, {"steps_per_epoch": 3}),
    "fit_generator.verbose": ("fit_generator", {"batch_metrics": ["accuracy"]},
                              {"verbose": True, "progress_options": {"coloring": False}}),
    "evaluate_generator": ("evaluate_generator", {"batch_metrics": ["accuracy"]}, {}),
    "evaluate_generator.return_pred": ("evaluate_generator", {"epoch_metrics": ["f1"]},
                                       {"return_pred": True, "return_ground_truth": True}),
    "predict_generator": ("predict_generator", {}, {}),
    "fit": ("fit", {"batch_metrics": ["accuracy"]}, {"valid": True}),
    "evaluate": ("evaluate", {"batch_metrics": ["accuracy"]}, {"return_pred": True}),
}

CALLBACKS = ("ClipNorm", "StepLR", "ReduceLROnPlateau", "OptimizerPolicy.one_cycle_adam", "OptimizerPolicy.phases",
             "EarlyStopping", "BestModelRestore", "LambdaCallback", "GradientTracker")

# Model name -> (metric token, batch kind, epoch style: reset / update twice / compute instead of a forward).
METRICS: dict[str, tuple[str, str, bool]] = {
    "Accuracy": ("Accuracy", "multiclass", False),
    "Accuracy.ignore_index": ("Accuracy.ignore_index", "multiclass", False),
    "BinaryAccuracy": ("BinaryAccuracy", "binary", False),
    "TopKAccuracy": ("TopKAccuracy", "multiclass", False),
    "FBeta": ("FBeta", "multiclass", False),
    "FBeta.beta2_micro": ("FBeta.micro", "multiclass", False),
    "FBeta.mask": ("FBeta", "masked", False),
    "FBeta.deterministic": ("FBeta.deterministic", "multiclass", False),
    "FBeta.epoch": ("FBeta", "multiclass", True),
    "Recall.label": ("Recall.label", "multiclass", True),
    "BinaryRecall.epoch": ("BinaryRecall", "binary_1d", True),
    "DecomposableMetric.epoch": ("DecomposableMetric", "multiclass", True),
    "IndexedArgumentMetric": ("IndexedArgumentMetric", "pairs", False),
    "acc": ("acc", "multiclass", False),
}

UTILS = ("torch_to_numpy", "numpy_to_torch", "_concat", "TensorDataset")


def names() -> list[str]:
    return list(BATCH) + list(LOOPS) + [f"callbacks.{c}" for c in CALLBACKS] + [f"metrics.{m}" for m in METRICS] + [
        f"utils.{u}" for u in UTILS]


def _network(kind: str) -> Any:
    import torch
    from poutyne import Lambda
    from torch import nn

    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))
    if kind == "mlp_log":
        return nn.Sequential(nn.Linear(DIM, HID), nn.Tanh(), nn.Linear(HID, CLASSES), nn.LogSoftmax(dim=-1))
    if kind == "mlp_sigmoid":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES), nn.Sigmoid())
    if kind == "bn":
        return nn.Sequential(nn.Linear(DIM, HID), nn.BatchNorm1d(HID), nn.ReLU(), nn.Dropout(0.2),
                             nn.Linear(HID, CLASSES))
    if kind == "image":
        return nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), Lambda(lambda t: t.flatten(1)),
                             nn.Linear(2 * 4 * 4, CLASSES))

    class _TwoInputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(DIM, HID)
            self.b = nn.Linear(3, HID)
            self.head = nn.Linear(HID, CLASSES)

        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return self.head(torch.relu(self.a(a) + self.b(b)))

    class _TwoOutputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Linear(DIM, HID)
            self.cls = nn.Linear(HID, CLASSES)
            self.reg = nn.Linear(HID, 2)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = torch.relu(self.body(x))
            return self.cls(h), self.reg(h)

    class _DictOutput(_TwoOutputs):
        def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:  # type: ignore[override]
            logits, aux = super().forward(x)
            return {"logits": logits, "aux": aux}

    class _Lstm(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(3, HID, batch_first=True)
            self.head = nn.Linear(HID, CLASSES)

        def forward(self, packed: Any) -> torch.Tensor:
            _, (h, _) = self.lstm(packed)
            return self.head(h[-1])

    return {"two_inputs": _TwoInputs, "two_outputs": _TwoOutputs, "dict_output": _DictOutput,
            "lstm": _Lstm}[kind]()


def _data(task: str) -> tuple[Any, Any]:
    """``(x, y)`` of a task, 8 samples."""
    import torch
    from torch.nn.utils.rnn import pack_padded_sequence

    gen = torch.Generator().manual_seed(1)
    x = torch.randn(N, DIM, generator=gen)
    labels = torch.arange(N) % CLASSES
    if task == "multiclass":
        return x, labels
    if task == "regression":
        return x, torch.randn(N, CLASSES, generator=gen)
    if task == "binary":
        return x, torch.randint(0, 2, (N, CLASSES), generator=gen).float()
    if task == "margin":
        return x, torch.randint(0, 2, (N, CLASSES), generator=gen).float() * 2 - 1
    if task == "counts":
        return x, torch.randint(0, 5, (N, CLASSES), generator=gen).float()
    if task == "distribution":
        return x, torch.randn(N, CLASSES, generator=gen).softmax(-1)
    if task == "two_inputs":
        return (x, torch.randn(N, 3, generator=gen)), labels
    if task == "two_outputs":
        return x, (labels, torch.randn(N, 2, generator=gen))
    if task == "image":
        return torch.randn(N, 1, 4, 4, generator=gen), labels
    if task == "packed":
        lengths = torch.tensor([5, 5, 4, 4, 3, 3, 2, 1])
        return pack_padded_sequence(torch.randn(N, 5, 3, generator=gen), lengths, batch_first=True), labels
    if task == "numpy":
        return x.numpy(), labels.numpy()
    raise KeyError(task)


def _metric(token: str) -> Any:
    """A metric of a ``Model``'s ``batch_metrics`` / ``epoch_metrics`` (a name, a tuple or an object)."""
    import torchmetrics
    from poutyne import FBeta, IndexedArgumentMetric, TopKAccuracy

    made = {
        "topk2": lambda: TopKAccuracy(2),
        "named_accuracy": lambda: ("my_acc", "accuracy"),
        "fbeta_micro": lambda: FBeta(metric="fscore", average="micro", beta=0.5),
        "recall_macro": lambda: FBeta(metric="recall"),
        "tm_accuracy": lambda: torchmetrics.classification.MulticlassAccuracy(num_classes=CLASSES),
        "tm_f1": lambda: torchmetrics.classification.MulticlassF1Score(num_classes=CLASSES, average="macro"),
        "indexed_accuracy": lambda: IndexedArgumentMetric("accuracy", index=0),
        "indexed_mse": lambda: IndexedArgumentMetric("mse", index=1),
        "indexed_dict": lambda: IndexedArgumentMetric("accuracy", pred_index="logits"),
    }
    return made[token]() if token in made else token


def _loss(token: str) -> Any:
    import torch.nn.functional as F
    from torch import nn

    if token == "module_cross_entropy":
        return nn.CrossEntropyLoss(label_smoothing=0.1)
    if token == "two_outputs":
        return lambda pred, true: F.cross_entropy(pred[0], true[0]) + F.mse_loss(pred[1], true[1])
    if token == "dict_output":
        return lambda pred, true: F.cross_entropy(pred["logits"], true) + 0.1 * pred["aux"].pow(2).mean()
    return token


def _optimizer(token: Any, network: Any) -> Any:
    import torch

    if token == "sgd_momentum":
        return torch.optim.SGD(network.parameters(), lr=0.05, momentum=0.9)
    if token == "adam_dict":
        return {"optim": "adam", "lr": 1e-3, "weight_decay": 1e-4}
    return token


def _model(network: Any, keywords: dict[str, Any]) -> Any:
    from poutyne import Model

    keywords = dict(keywords)
    optimizer = _optimizer(keywords.pop("optimizer", "sgd"), network)
    loss = _loss(keywords.pop("loss_function", "cross_entropy"))
    metrics = {k: [_metric(t) for t in keywords.pop(k, [])] for k in ("batch_metrics", "epoch_metrics")}
    return Model(network, optimizer, loss, **metrics, **keywords)


def _runner(model: Any, run: Any, entries: list[Any]) -> Any:
    """A bench module whose forward is ``run(model, *inputs)``, holding the network as a submodule."""
    from gt_calls import Run

    module = Run(model, run, entries)
    module.network = model.network
    return module


def _batch_model(name: str) -> Built:
    from poutyne import Model

    method, kind, task, keywords, call = BATCH[name]
    model = _model(_network(kind), keywords)
    x, y = _data(task)
    bound = getattr(Model, method)
    if method == "predict_on_batch":
        return _runner(model, lambda m, x: bound(m, x, **call), [bound]), (x,), {}
    return _runner(model, lambda m, x, y: bound(m, x, y, **call), [bound]), (x, y), {}


def _batches(x: Any, y: Any) -> list[tuple[Any, Any]]:
    return [(x[:4], y[:4]), (x[4:], y[4:])]


def _loop_model(name: str) -> Built:
    from poutyne import Model, TensorDataset

    method, keywords, call = LOOPS[name]
    model = _model(_network("mlp"), keywords)
    x, y = _data("multiclass")
    call = dict(call)
    valid = call.pop("valid", False)
    bound = getattr(Model, method)
    quiet = {"verbose": call.pop("verbose", False)}

    def run(m: Any, x: Any, y: Any) -> Any:
        if method == "fit_generator":
            return m.fit_generator(_batches(x, y), _batches(x, y) if valid else None, epochs=1, **quiet, **call)
        if method == "evaluate_generator":
            return m.evaluate_generator(_batches(x, y), **quiet, **call)
        if method == "predict_generator":
            batches = _batches(x, y) if call.get("return_ground_truth") else [x[:4], x[4:]]
            return m.predict_generator(batches, **quiet, **call)
        if method == "fit":
            return m.fit(x, y, (x[:4], y[:4]) if valid else None, batch_size=4, epochs=1, **quiet, **call)
        if method == "evaluate":
            return m.evaluate(x, y, batch_size=4, **quiet, **call)
        if method == "predict":
            return m.predict(x, batch_size=4, **quiet, **call)
        if method == "evaluate_dataset":
            return m.evaluate_dataset(TensorDataset(x, y), batch_size=4, **quiet, **call)
        return m.predict_dataset(TensorDataset(x, y), batch_size=4, **quiet, **call)

    return _runner(model, run, [bound]), (x, y), {}


def _callback_model(name: str) -> Any:
    import poutyne
    import torch

    network = _network("mlp")
    # Plain SGD: with optimizer state (SGD's momentum buffers), Dynamo 2.13 fails an assertion ("Guard failed on
    # the same frame it was created") in fit_generator's optimizer-state transfer. The one-cycle policy, which
    # sets momentum, runs on Adam (whose groups take the key and ignore it) for the same reason.
    if name == "OptimizerPolicy.one_cycle_adam":
        optimizer = torch.optim.Adam(network.parameters(), lr=0.01)
    else:
        optimizer = torch.optim.SGD(network.parameters(), lr=0.05)
    model = poutyne.Model(network, optimizer, "cross_entropy", batch_metrics=["accuracy"])
    valid = name in ("EarlyStopping", "BestModelRestore", "ReduceLROnPlateau")
    seen: list[Any] = []
    made: dict[str, Any] = {
        "ClipNorm": lambda: poutyne.ClipNorm(network.parameters(), 0.5),
        "StepLR": lambda: poutyne.StepLR(step_size=1, gamma=0.5),
        "ReduceLROnPlateau": lambda: poutyne.ReduceLROnPlateau(monitor="val_loss", patience=0, factor=0.5),
        "OptimizerPolicy.one_cycle_adam": lambda: poutyne.OptimizerPolicy(poutyne.one_cycle_phases(4, lr=(0.01, 0.1))),
        "OptimizerPolicy.phases": lambda: poutyne.OptimizerPolicy(
            [poutyne.Phase(lr=poutyne.linspace(0.01, 0.1, 2)), poutyne.Phase(lr=poutyne.cosinespace(0.1, 0.01, 2))]),
        "EarlyStopping": lambda: poutyne.EarlyStopping(monitor="val_acc", mode="max", patience=0, min_delta=0.1),
        "BestModelRestore": lambda: poutyne.BestModelRestore(monitor="val_loss"),
        "LambdaCallback": lambda: poutyne.LambdaCallback(
            on_backward_end=lambda step: seen.append(step),
            on_train_batch_end=lambda batch, logs: seen.append(logs["loss"])),
        "GradientTracker": lambda: poutyne.GradientTracker(keep_bias=True),
    }
    callback = made[name]()
    fresh = name == "GradientTracker"  # its layer names grow at every ``on_train_begin``: one per fit, as users do

    def run(m: Any, x: Any, y: Any) -> Any:
        seen.clear()
        return m.fit_generator(_batches(x, y), _batches(x, y) if valid else None, epochs=1, verbose=False,
                               callbacks=[made[name]() if fresh else callback])

    x, y = _data("multiclass")
    return _runner(model, run, [poutyne.Model.fit_generator]), (x, y), {}


def _metric_object(token: str) -> Any:
    import poutyne

    made: dict[str, Any] = {
        "Accuracy": poutyne.Accuracy,
        "Accuracy.ignore_index": lambda: poutyne.Accuracy(ignore_index=0),
        "Accuracy.sum": lambda: poutyne.Accuracy(reduction="sum"),
        "BinaryAccuracy": poutyne.BinaryAccuracy,
        "TopKAccuracy": lambda: poutyne.TopKAccuracy(3),
        "FBeta": poutyne.FBeta,
        "FBeta.micro": lambda: poutyne.FBeta(metric="fscore", average="micro", beta=2.0),
        "FBeta.deterministic": lambda: poutyne.FBeta(metric="precision", make_deterministic=True),
        "Recall.label": lambda: poutyne.Recall(average=2),
        "BinaryRecall": lambda: poutyne.BinaryRecall(threshold=0.2),
        "DecomposableMetric": lambda: poutyne.DecomposableMetric(poutyne.acc, "acc"),
        "IndexedArgumentMetric": lambda: poutyne.IndexedArgumentMetric("f1", pred_index=0, true_index=1),
    }
    return made[token]()


def _metric_batch(kind: str) -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(2)
    labels = torch.arange(N) % CLASSES
    logits = torch.randn(N, CLASSES, generator=gen)
    if kind == "multiclass":
        return logits, labels
    if kind == "masked":
        return logits, (labels, torch.tensor([1, 1, 0, 1, 1, 1, 0, 1]))
    if kind == "binary":
        return logits, torch.randint(0, 2, (N, CLASSES), generator=gen).float()
    if kind == "binary_1d":
        return torch.randn(N, generator=gen), torch.arange(N) % 2
    if kind == "pairs":
        return (logits, torch.randn(N, 2, generator=gen)), (torch.randn(N), labels)
    raise KeyError(kind)


def _metric_model(name: str) -> Built:
    import poutyne
    from gt_calls import Call
    from torch import nn

    token, kind, epoch = METRICS[name]
    pred, true = _metric_batch(kind)
    if token == "acc":
        return Call(poutyne.acc, ignore_index=1), (pred, true), {}
    metric = _metric_object(token)
    if not epoch:
        return metric, (pred, true), {}

    class _Epoch(nn.Module):
        """An epoch of an epoch metric: ``reset``, ``update`` on two half batches, ``compute``."""

        def __init__(self) -> None:
            super().__init__()
            self.metric = metric

        def forward(self, pred: Any, true: Any) -> Any:
            halves = [(pred[:4], _slice(true, 0, 4)), (pred[4:], _slice(true, 4, N))]
            self.metric.reset()
            for p, t in halves:
                self.metric.update(p, t)
            return self.metric.compute()

        def entry_points(self) -> list[Any]:
            cls = type(self.metric)
            return [cls.reset, cls.update, cls.compute]

    return _Epoch(), (pred, true), {}


def _slice(value: Any, start: int, stop: int) -> Any:
    if isinstance(value, tuple):
        return tuple(v[start:stop] for v in value)
    return value[start:stop]


def _utils_model(name: str) -> Built:
    import poutyne
    import torch
    from gt_calls import Call, Run

    gen = torch.Generator().manual_seed(3)
    x, y = torch.randn(N, DIM, generator=gen), torch.arange(N) % CLASSES
    if name == "torch_to_numpy":
        return Call(poutyne.torch_to_numpy, copy=True), ({"x": x, "pair": (x * 2, [y]), "n": 3},), {}
    if name == "numpy_to_torch":
        return Call(poutyne.numpy_to_torch), ((x.numpy(), [y.numpy(), {"k": x.numpy()}], 1.0),), {}
    if name == "_concat":
        from poutyne.utils import _concat

        def concat(_: Any, x: Any, y: Any) -> Any:
            return _concat([{"x": x[:4], "t": (y[:4], x[:4])}, {"x": x[4:], "t": (y[4:], x[4:])}])

        return Run(None, concat, [_concat]), (x, y), {}

    def items(_: Any, x: Any, y: Any) -> Any:
        dataset = poutyne.TensorDataset(x, (y, x * 2))
        return [dataset[i] for i in range(len(dataset) // 2)]

    return Run(None, items, [poutyne.TensorDataset.__getitem__, poutyne.TensorDataset.__init__]), (x, y), {}


def _warm_requirement_caches() -> None:
    """Evaluate the two ``RequirementCache`` flags that ``_bincount`` (under ``FBeta``) tests, as any eager call
    does first: cold, their check looks up package metadata (``torch_xla``'s, missing) inside the compiled frame,
    and the exception it raises and catches there stops Dynamo with an internal error."""
    from poutyne.framework.metrics.predefined import bincount

    bool(bincount._XLA_AVAILABLE)
    bool(bincount._TORCH_GREATER_EQUAL_1_12)


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    _warm_requirement_caches()
    if name in BATCH:
        return _batch_model(name)
    if name in LOOPS:
        return _loop_model(name)
    group, _, rest = name.partition(".")
    if group == "callbacks" and rest in CALLBACKS:
        return _callback_model(rest)
    if group == "metrics" and rest in METRICS:
        return _metric_model(rest)
    if group == "utils" and rest in UTILS:
        return _utils_model(rest)
    raise KeyError(name)
