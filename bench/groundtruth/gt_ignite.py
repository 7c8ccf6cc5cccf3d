"""Ground-truth bench, ignite (pytorch-ignite): metrics, supervised step functions and tensor-facing handlers.

PyTorch-Ignite runs training loops as an ``Engine`` whose process function is one step; its metrics
accumulate statistics over batches (``reset``, ``update((y_pred, y))``, ``compute()``, each wrapped by the
``reinit__is_reduced`` / ``sync_all_reduce`` decorators that manage distributed reduction). A user who
compiles an Ignite pipeline compiles the step (``create_supervised_trainer(..., model_fn=...)`` or the
``supervised_training_step`` function) and, as an evaluation, the metric's update and compute on a batch.
So the models are bench modules whose forward resets a metric, updates it with the batch and returns
``compute()``, or runs one step of the engine's process function on a batch:

- ``METRICS``: the classification metrics (``Accuracy`` binary, multiclass and multilabel,
  ``Precision`` / ``Recall`` with the averages False, True, micro, macro, weighted and multilabel,
  ``Fbeta``, ``TopKCategoricalAccuracy``, ``ConfusionMatrix`` with its ``IoU``, ``mIoU``, ``DiceCoefficient``
  and ``JaccardIndex`` lambdas on a segmentation batch, ``MultiLabelConfusionMatrix``, ``MatthewsCorrCoef``,
  ``ClassificationReport``, ``CohenKappa``, ``ROC_AUC``, ``AveragePrecision``, ``RocCurve``,
  ``PrecisionRecallCurve``, ``MeanAveragePrecision``), the regression metrics (``MeanSquaredError``,
  ``RootMeanSquaredError``, ``MeanAbsoluteError``, ``MeanPairwiseDistance``, ``CosineSimilarity`` and the
  ``regression`` package: R2, Pearson, Spearman, Kendall, median and maximum errors, Canberra, Wave-Hedges,
  fractional and geometric errors), the distribution metrics (``Entropy``, ``KLDivergence``,
  ``JSDivergence``, ``MutualInformation``, ``HSIC``, ``MaximumMeanDiscrepancy``), images (``SSIM`` with a
  Gaussian and a uniform kernel, ``PSNR``, ``FID`` and ``InceptionScore`` on a tiny feature extractor),
  text (``Bleu``, ``RougeN``, ``RougeL``, ``CharacterErrorRate``, ``Perplexity``), ranking (``HitRate``,
  ``NDCG``), clustering (silhouette, Davies-Bouldin, Calinski-Harabasz), fairness (demographic parity,
  subgroup accuracy difference), object detection (``ObjectDetectionAvgPrecisionRecall``), ``Loss``, the
  accumulators (``Average``, ``GeometricAverage``, ``VariableAccumulation``), ``RunningAverage`` of a
  metric and of an output, ``MetricsLambda`` (an F1 from precision and recall, metric arithmetic) and
  ``MetricGroup``;
- ``ENGINE``: ``supervised_training_step`` (plain, with gradient accumulation, a model and an output
  transform, a custom ``prepare_batch``), ``supervised_evaluation_step`` (plain and with an output
  transform), the process functions of ``create_supervised_trainer`` and ``create_supervised_evaluator``,
  ``Engine.run`` over two batches of a trainer and of an evaluator with attached metrics;
- ``HANDLERS``: a train step followed by the handlers that touch tensors or the optimizer: ``EMAHandler``'s
  update, ``TerminateOnNan`` on the step's output, ``CosineAnnealingScheduler``,
  ``LinearCyclicalScheduler``, ``PiecewiseLinear``, ``LRScheduler`` around a torch scheduler, and
  ``create_lr_scheduler_with_warmup``; and ``utils.to_onehot`` / ``utils.convert_tensor``.

Batches are tiny (8 samples, 4 classes, 16x16 images, sequences of 5 tokens) with random values; the
networks are small MLPs. Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, CLASSES, DIM = 8, 4, 6

# Model name -> (metric path under ``ignite.metrics``, keywords, batch kind). Batch kinds are made in
# ``_batch``; keyword values "cm", "precision", "recall", "extractor", "loss" stand for objects built there.
METRICS: dict[str, tuple[str, dict[str, Any], str]] = {
    "Accuracy.binary": ("Accuracy", {}, "binary"),
    "Accuracy.multiclass": ("Accuracy", {}, "multiclass"),
    "Accuracy.multilabel": ("Accuracy", {"is_multilabel": True}, "multilabel"),
    "Precision.binary": ("Precision", {}, "binary"),
    "Precision.multiclass.per_class": ("Precision", {"average": False}, "multiclass"),
    "Precision.multiclass.macro": ("Precision", {"average": True}, "multiclass"),
    "Precision.multiclass.micro": ("Precision", {"average": "micro"}, "multiclass"),
    "Precision.multiclass.weighted": ("Precision", {"average": "weighted"}, "multiclass"),
    "Precision.multilabel.samples": ("Precision", {"average": "samples", "is_multilabel": True}, "multilabel"),
    "Recall.multiclass.macro": ("Recall", {"average": True}, "multiclass"),
    "Recall.multiclass.weighted": ("Recall", {"average": "weighted"}, "multiclass"),
    "Recall.multilabel": ("Recall", {"average": False, "is_multilabel": True}, "multilabel"),
    "Fbeta": ("Fbeta", {"beta": 2.0}, "multiclass"),
    "Fbeta.precision_recall": ("Fbeta", {"beta": 1.0, "average": False, "precision": "src_precision",
                                         "recall": "src_recall"}, "multiclass"),
    "TopKCategoricalAccuracy": ("TopKCategoricalAccuracy", {"k": 2}, "multiclass"),
    "ConfusionMatrix": ("ConfusionMatrix", {"num_classes": CLASSES}, "segmentation"),
    "ConfusionMatrix.average_recall": ("ConfusionMatrix", {"num_classes": CLASSES, "average": "recall"},
                                       "multiclass"),
    "IoU": ("IoU", {"cm": "cm", "ignore_index": 0}, "segmentation"),
    "mIoU": ("mIoU", {"cm": "cm"}, "segmentation"),
    "DiceCoefficient": ("DiceCoefficient", {"cm": "cm"}, "segmentation"),
    "JaccardIndex": ("JaccardIndex", {"cm": "cm"}, "segmentation"),
    "MultiLabelConfusionMatrix": ("MultiLabelConfusionMatrix", {"num_classes": CLASSES, "normalized": True},
                                  "multilabel"),
    "MatthewsCorrCoef": ("MatthewsCorrCoef", {}, "binary"),
    "ClassificationReport": ("ClassificationReport", {"output_dict": True}, "multiclass"),
    "CohenKappa": ("CohenKappa", {}, "binary_labels"),
    "ROC_AUC": ("ROC_AUC", {}, "binary_scores"),
    "AveragePrecision": ("AveragePrecision", {}, "binary_scores"),
    "RocCurve": ("RocCurve", {}, "binary_scores"),
    "PrecisionRecallCurve": ("PrecisionRecallCurve", {}, "binary_scores"),
    "MeanAveragePrecision.multiclass": ("MeanAveragePrecision", {}, "multiclass"),
    "MeanAveragePrecision.multilabel": ("MeanAveragePrecision", {"is_multilabel": True, "class_mean": "micro"},
                                        "multilabel_scores"),
    "MeanSquaredError": ("MeanSquaredError", {}, "regression"),
    "RootMeanSquaredError": ("RootMeanSquaredError", {}, "regression"),
    "MeanAbsoluteError": ("MeanAbsoluteError", {}, "regression"),
    "MeanPairwiseDistance": ("MeanPairwiseDistance", {"p": 2}, "embedding"),
    "CosineSimilarity": ("CosineSimilarity", {}, "embedding"),
    "regression.R2Score": ("regression.R2Score", {}, "regression"),
    "regression.PearsonCorrelation": ("regression.PearsonCorrelation", {}, "regression"),
    "regression.SpearmanRankCorrelation": ("regression.SpearmanRankCorrelation", {}, "regression"),
    "regression.KendallRankCorrelation": ("regression.KendallRankCorrelation", {}, "regression"),
    "regression.MedianAbsoluteError": ("regression.MedianAbsoluteError", {}, "regression"),
    "regression.MaximumAbsoluteError": ("regression.MaximumAbsoluteError", {}, "regression"),
    "regression.CanberraMetric": ("regression.CanberraMetric", {}, "regression"),
    "regression.WaveHedgesDistance": ("regression.WaveHedgesDistance", {}, "regression"),
    "regression.FractionalBias": ("regression.FractionalBias", {}, "regression"),
    "regression.GeometricMeanAbsoluteError": ("regression.GeometricMeanAbsoluteError", {}, "regression"),
    "regression.MeanAbsoluteRelativeError": ("regression.MeanAbsoluteRelativeError", {}, "regression"),
    "regression.MeanNormalizedBias": ("regression.MeanNormalizedBias", {}, "regression"),
    "Entropy": ("Entropy", {}, "multiclass"),
    "KLDivergence": ("KLDivergence", {}, "distributions"),
    "JSDivergence": ("JSDivergence", {}, "distributions"),
    "MutualInformation": ("MutualInformation", {}, "multiclass"),
    "HSIC": ("HSIC", {}, "embedding"),
    "MaximumMeanDiscrepancy": ("MaximumMeanDiscrepancy", {}, "embedding"),
    "SSIM": ("SSIM", {"data_range": 1.0}, "image"),
    "SSIM.uniform": ("SSIM", {"data_range": 1.0, "kernel_size": 5, "gaussian": False}, "image"),
    "PSNR": ("PSNR", {"data_range": 1.0}, "image"),
    "FID": ("FID", {"num_features": DIM, "feature_extractor": "extractor"}, "features"),
    "InceptionScore": ("InceptionScore", {"num_features": CLASSES, "feature_extractor": "classifier"},
                       "features_only"),
    "Bleu": ("Bleu", {"ngram": 2, "smooth": "smooth1"}, "text"),
    "RougeN": ("RougeN", {"ngram": 2}, "text"),
    "RougeL": ("RougeL", {}, "text"),
    "CharacterErrorRate": ("CharacterErrorRate", {}, "characters"),
    "Perplexity": ("Perplexity", {}, "language_model"),
    "HitRate": ("HitRate", {"top_k": [1, 3]}, "ranking"),
    "NDCG": ("NDCG", {"top_k": [2, 5]}, "ranking"),
    "clustering.SilhouetteScore": ("clustering.SilhouetteScore", {}, "clusters"),
    "clustering.DaviesBouldinScore": ("clustering.DaviesBouldinScore", {}, "clusters"),
    "clustering.CalinskiHarabaszScore": ("clustering.CalinskiHarabaszScore", {}, "clusters"),
    "fairness.DemographicParityDifference": ("fairness.DemographicParityDifference", {"groups": [0, 1]}, "groups"),
    "fairness.SubgroupAccuracyDifference": ("fairness.SubgroupAccuracyDifference", {"groups": [0, 1]}, "groups"),
    "ObjectDetectionAvgPrecisionRecall": ("ObjectDetectionAvgPrecisionRecall", {"num_classes": 3}, "detection"),
    "Loss": ("Loss", {"loss_fn": "loss"}, "multiclass"),
    "Average": ("Average", {}, "values"),
    "GeometricAverage": ("GeometricAverage", {}, "values"),
    "VariableAccumulation": ("VariableAccumulation", {"op": "sum_op"}, "values"),
    "RunningAverage.metric": ("RunningAverage", {"src": "accuracy", "alpha": 0.9}, "multiclass"),
    "RunningAverage.output": ("RunningAverage", {"output_transform": "identity"}, "values"),
    "MetricsLambda.f1": ("MetricsLambda", {}, "multiclass"),
    "MetricsLambda.arithmetic": ("MetricsLambda", {}, "multiclass"),
    "MetricGroup": ("MetricGroup", {}, "multiclass"),
}
ENGINE = ("supervised_training_step", "supervised_training_step.gradient_accumulation",
          "supervised_training_step.transforms", "supervised_training_step.prepare_batch",
          "supervised_evaluation_step", "supervised_evaluation_step.output_transform",
          "create_supervised_trainer", "create_supervised_evaluator", "Engine.run.trainer",
          "Engine.run.evaluator.metrics")
HANDLERS = ("EMAHandler", "TerminateOnNan", "CosineAnnealingScheduler", "LinearCyclicalScheduler", "PiecewiseLinear",
            "LRScheduler", "create_lr_scheduler_with_warmup", "utils.to_onehot", "utils.convert_tensor")


def names() -> list[str]:
    return list(METRICS) + list(ENGINE) + list(HANDLERS)


def _batch(kind: str) -> tuple[Any, ...]:
    """The ``update`` output of a batch kind, as a tuple of its parts."""
    import torch

    gen = torch.Generator().manual_seed(1)
    labels = torch.arange(N) % CLASSES
    if kind == "binary":
        return (torch.rand(N, generator=gen).round().long(), (torch.arange(N) % 2))
    if kind == "binary_labels":
        return (torch.randint(0, 2, (N,), generator=gen), torch.arange(N) % 2)
    if kind == "binary_scores":
        return (torch.rand(N, generator=gen), torch.arange(N) % 2)
    if kind == "multiclass":
        return (torch.randn(N, CLASSES, generator=gen), labels)
    if kind == "multilabel":
        return (torch.randint(0, 2, (N, CLASSES), generator=gen), torch.randint(0, 2, (N, CLASSES), generator=gen))
    if kind == "multilabel_scores":
        return (torch.rand(N, CLASSES, generator=gen), torch.randint(0, 2, (N, CLASSES), generator=gen))
    if kind == "segmentation":
        return (torch.randn(2, CLASSES, 6, 6, generator=gen), torch.randint(0, CLASSES, (2, 6, 6), generator=gen))
    if kind == "regression":
        return (torch.randn(N, generator=gen), torch.randn(N, generator=gen))
    if kind == "embedding":
        return (torch.randn(N, DIM, generator=gen), torch.randn(N, DIM, generator=gen))
    if kind == "distributions":
        return (torch.randn(N, CLASSES, generator=gen), torch.randn(N, CLASSES, generator=gen))
    if kind == "image":
        return (torch.rand(2, 3, 16, 16, generator=gen), torch.rand(2, 3, 16, 16, generator=gen))
    if kind == "features":
        return (torch.randn(N, DIM, generator=gen), torch.randn(N, DIM, generator=gen))
    if kind == "features_only":
        return (torch.randn(N, DIM, generator=gen),)
    if kind == "language_model":
        return (torch.randn(2, 10, 5, generator=gen), torch.randint(0, 10, (2, 5), generator=gen))
    if kind == "ranking":
        return (torch.randn(3, 6, generator=gen), torch.randint(0, 3, (3, 6), generator=gen).float())
    if kind == "clusters":
        return (torch.randn(N, 3, generator=gen), labels % 3)
    if kind == "groups":
        return (torch.randn(N, 2, generator=gen), labels % 2, torch.arange(N) // 4)
    if kind == "values":
        return (torch.rand(N, generator=gen) + 0.5,)
    raise KeyError(kind)


def _metric(name: str) -> Any:
    import importlib

    import torch
    from ignite import metrics
    from torch import nn

    path, keywords, _ = METRICS[name]
    if name == "MetricsLambda.f1":
        precision = metrics.Precision(average=False)
        recall = metrics.Recall(average=False)
        return metrics.MetricsLambda(lambda p, r: (2 * p * r / (p + r + 1e-20)).mean(), precision, recall), [precision,
                                                                                                               recall]
    if name == "MetricsLambda.arithmetic":
        accuracy = metrics.Accuracy()
        precision = metrics.Precision(average=True)
        return (accuracy + precision) / 2 - accuracy ** 2, [accuracy, precision]
    if name == "MetricGroup":
        return metrics.MetricGroup({"accuracy": metrics.Accuracy(), "precision": metrics.Precision(average="macro"),
                                    "top2": metrics.TopKCategoricalAccuracy(k=2)}), []
    keywords = dict(keywords)
    sources: list[Any] = []
    for key, value in list(keywords.items()):
        if value == "cm":
            keywords[key] = metrics.ConfusionMatrix(num_classes=CLASSES)
            sources.append(keywords[key])
        elif value in ("src_precision", "src_recall"):
            keywords[key] = (metrics.Precision if value == "src_precision" else metrics.Recall)(average=False)
        elif value == "extractor":
            keywords[key] = nn.Identity()
        elif value == "classifier":
            keywords[key] = nn.Sequential(nn.Linear(DIM, CLASSES), nn.Softmax(dim=-1))
        elif value == "loss":
            keywords[key] = nn.CrossEntropyLoss()
        elif value == "accuracy":
            keywords[key] = metrics.Accuracy()
            sources.append(keywords[key])
        elif value == "identity":
            keywords[key] = lambda output: output
        elif value == "sum_op":
            keywords[key] = lambda accumulator, output: accumulator + output.sum()
    module, _, cls = path.rpartition(".")
    owner = importlib.import_module(f"ignite.metrics.{module}") if module else metrics
    metric = getattr(owner, cls)(**keywords)
    if cls == "VariableAccumulation":
        metric.accumulator = torch.tensor(0.0)
    if cls == "RunningAverage" and sources:
        sources.append(metric)  # the running average reads its source after the source's update
    return metric, sources


def _text(kind: str) -> tuple[Any, Any]:
    if kind == "characters":
        return (["the cat sat", "a dog ran far"], ["the cat sits", "a dog ran"])
    candidates = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran"]]
    references = [[["the", "cat", "is", "on", "the", "mat"], ["a", "cat", "sat", "on", "a", "mat"]],
                  [["the", "dog", "ran", "away"]]]
    return candidates, references


def _detection() -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(2)
    corners = torch.rand(3, 2, generator=gen) * 10
    boxes = torch.cat([corners, corners + 2 + torch.rand(3, 2, generator=gen) * 4], dim=1)
    prediction = {"bbox": boxes + 0.5, "scores": torch.rand(3, generator=gen), "labels": torch.tensor([0, 1, 2])}
    target = {"bbox": boxes, "labels": torch.tensor([0, 1, 1]), "iscrowd": torch.zeros(3, dtype=torch.long)}
    return [prediction], [target]


def _metric_model(name: str) -> Built:
    from torch import nn

    metric, sources = _metric(name)
    kind = METRICS[name][2]
    text = kind in ("text", "characters")
    detection = kind == "detection"
    inputs: tuple[Any, ...] = () if text or detection else _batch(kind)
    data = _text(kind) if text else _detection() if detection else None

    class _Evaluate(nn.Module):
        """``reset``, ``update`` with the batch and ``compute``, as an evaluation pass over one batch does
        (a metric built from others updates its sources)."""

        def __init__(self) -> None:
            super().__init__()
            self.metric = metric

        def forward(self, *batch: Any) -> Any:
            output = data if data is not None else batch[0] if len(batch) == 1 else batch
            updated = sources or [self.metric]
            for m in updated:
                m.reset()
            for m in updated:
                m.update(output)
            return self.metric.compute()

        def entry_points(self) -> list[Any]:
            cls = type(self.metric)
            return [cls.update, cls.compute] + [type(s).update for s in sources]

    return _Evaluate(), inputs, {}


def _net() -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(DIM, 16), nn.ReLU(), nn.Linear(16, CLASSES))


def _xy() -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(3)
    return torch.randn(N, DIM, generator=gen), torch.arange(N) % CLASSES


def _engine(name: str) -> Built:
    import contextlib

    import torch
    from ignite import engine as ie
    from ignite import metrics
    from torch import nn

    net = _net()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    x, y = _xy()
    entries: list[Any]
    if name.startswith("supervised_training_step"):
        keywords: dict[str, Any] = {}
        if name.endswith("gradient_accumulation"):
            keywords["gradient_accumulation_steps"] = 2
        elif name.endswith("transforms"):
            keywords["model_transform"] = lambda out: out * 0.5
            keywords["output_transform"] = lambda x, y, y_pred, loss: (loss, y_pred.argmax(1))
        elif name.endswith("prepare_batch"):
            keywords["prepare_batch"] = lambda batch, device, non_blocking: (batch[0] * 2, batch[1])
        step = ie.supervised_training_step(net, optimizer, loss_fn, **keywords)
        entries = [ie.supervised_training_step]
    elif name.startswith("supervised_evaluation_step"):
        keywords = {"output_transform": lambda x, y, y_pred: y_pred.softmax(-1)} if "output" in name else {}
        step = ie.supervised_evaluation_step(net, **keywords)
        entries = [ie.supervised_evaluation_step]
    elif name == "create_supervised_trainer":
        step = ie.create_supervised_trainer(net, optimizer, loss_fn)._process_function
        entries = [ie.create_supervised_trainer]
    elif name == "create_supervised_evaluator":
        step = ie.create_supervised_evaluator(net)._process_function
        entries = [ie.create_supervised_evaluator]
    else:
        if name == "Engine.run.trainer":
            runner = ie.create_supervised_trainer(net, optimizer, loss_fn)
        else:
            runner = ie.create_supervised_evaluator(net, metrics={"accuracy": metrics.Accuracy(),
                                                                  "loss": metrics.Loss(loss_fn)})

        class _Run(nn.Module):
            """``Engine.run`` for one epoch over two batches; the final state's output or metrics."""

            def __init__(self) -> None:
                super().__init__()
                self.net = net
                self.runner = runner

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                with torch.enable_grad():
                    state = self.runner.run([(x[:4], y[:4]), (x[4:], y[4:])], max_epochs=1)
                return state.output, state.metrics

            def entry_points(self) -> list[Any]:
                return [ie.Engine.run]

        return _Run(), (x, y), {}
    engine = ie.Engine(lambda e, b: None)
    engine.state.iteration = 1
    training = "training" in name or "trainer" in name

    class _Step(nn.Module):
        """The engine's process function on one batch (iteration 1 then 2: accumulation boundaries)."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.engine = engine

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            with torch.enable_grad() if training else contextlib.nullcontext():  # a training step under eval too
                out = step(self.engine, (x, y))
            self.engine.state.iteration += 1
            return out

        def entry_points(self) -> list[Any]:
            return entries

    return _Step(), (x, y), {}


def _handlers(name: str) -> Built:
    import torch
    from gt_calls import Call
    from ignite import engine as ie
    from ignite import handlers, utils
    from torch import nn

    if name.startswith("utils."):
        gen = torch.Generator().manual_seed(4)
        if name == "utils.to_onehot":
            return Call(utils.to_onehot, num_classes=CLASSES), (torch.randint(0, CLASSES, (N, 3), generator=gen),), {}
        batch = {"x": torch.randn(N, DIM, generator=gen), "y": [torch.arange(N), (torch.ones(2),)]}
        return Call(utils.convert_tensor, device="cpu", non_blocking=False), (batch,), {}
    net = _net()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    trainer = ie.create_supervised_trainer(net, optimizer, nn.CrossEntropyLoss())
    trainer.state.iteration = 1
    trainer.state.epoch = 1
    x, y = _xy()
    handler: Any
    if name == "EMAHandler":
        handler = handlers.EMAHandler(net, momentum=0.01, momentum_warmup=0.1, warmup_iters=2)
        handler.attach(trainer)  # adds ``ema_momentum`` to the state; the step below calls the update itself
        call = lambda engine: handler._update_ema_model(engine, "ema_momentum")  # noqa: E731
        entries: list[Any] = [handlers.EMAHandler._update_ema_model]
    elif name == "TerminateOnNan":
        handler = handlers.TerminateOnNan()
        call = handler
        entries = [handlers.TerminateOnNan.__call__]
    elif name == "LRScheduler":
        handler = handlers.LRScheduler(torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5))
        call = handler
        entries = [handlers.LRScheduler.__call__]
    elif name == "create_lr_scheduler_with_warmup":
        handler = handlers.create_lr_scheduler_with_warmup(
            torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9), warmup_start_value=0.0,
            warmup_duration=2)
        call = handler
        entries = [handlers.create_lr_scheduler_with_warmup]
    else:
        handler = {
            "CosineAnnealingScheduler": lambda: handlers.CosineAnnealingScheduler(optimizer, "lr", 0.1, 0.01,
                                                                                  cycle_size=4),
            "LinearCyclicalScheduler": lambda: handlers.LinearCyclicalScheduler(optimizer, "lr", 0.01, 0.1,
                                                                                cycle_size=4, warmup_duration=2,
                                                                                monotonic=True),
            "PiecewiseLinear": lambda: handlers.PiecewiseLinear(optimizer, "lr", [(0, 0.0), (2, 0.1), (6, 0.01)]),
        }[name]()
        call = handler
        entries = [type(handler).__call__]

    class _StepThenHandler(nn.Module):
        """A training step through the trainer's process function, then the handler an event would fire."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.trainer = trainer

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            with torch.enable_grad():
                self.trainer.state.output = self.trainer._process_function(self.trainer, (x, y))
            call(self.trainer)
            self.trainer.state.iteration += 1
            return self.trainer.state.output, optimizer.param_groups[0]["lr"]

        def entry_points(self) -> list[Any]:
            return entries

    return _StepThenHandler(), (x, y), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in METRICS:
        return _metric_model(name)
    if name in ENGINE:
        return _engine(name)
    return _handlers(name)
