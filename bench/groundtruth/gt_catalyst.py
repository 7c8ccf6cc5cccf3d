"""Ground-truth bench, catalyst: runner batch steps, callbacks, metrics, contrib losses, layers, models and optimizers.

Catalyst 22.04 runs an experiment as nested events: a ``Runner`` (``SupervisedRunner``, or a user's ``dl.Runner``
subclass with its own ``handle_batch``) walks loaders and batches, and at every batch runs its callbacks'
``on_batch_start``, its ``handle_batch`` and the callbacks' ``on_batch_end`` (criterion, backward, optimizer,
scheduler, metric callbacks), under an ``Engine`` (an accelerate ``Accelerator``; ``CPUEngine`` here). Metrics
(``catalyst.metrics``) are objects with ``update`` / ``compute`` (and key-value forms) or plain functions. A user who
compiles a Catalyst pipeline compiles the batch step, a loader pass, a metric or a loss, so the tables cover:

- ``STEPS``: one batch through a runner set up on a tiny loader (the loader's ``on_loader_start`` events, then
  ``on_batch_start`` events, ``handle_batch`` and ``on_batch_end`` events under the loader's grad mode, as
  ``IRunner._run_epoch`` and ``_run_loader`` do it): ``SupervisedRunner``
  with its default criterion / backward / optimizer / scheduler callbacks, on the train and the valid loader,
  with list and dict input and output keys, accuracy, precision-recall, multilabel, dice / IoU / Trevsky,
  hitrate / MRR / MAP / NDCG, R2 and functional metric callbacks, gradient accumulation in
  ``OptimizerCallback``, ``MixupCallback``, ``BatchTransformCallback`` before and after the model,
  ``MetricAggregationCallback``, ``ControlFlowCallbackWrapper``, a batch-wise LR scheduler and ``LRFinder``, a
  dictionary of criteria, and
  ``dl.Runner`` subclasses as users write them (a manual step with ``AdditiveMetric`` meters and
  ``engine.backward``, a GAN-like step over dictionaries of models and optimizers with ``SoftUpdateCallaback``);
- ``LOADERS``: a whole loader pass (``on_loader_start``, two batches, ``on_loader_end``: the loader metrics'
  ``compute_key_value``) with accuracy, precision-recall, AUC, CMC and R2 callbacks and
  ``EarlyStoppingCallback``; ``RUNNER_CALLS``: ``predict_batch``,
  ``forward`` and ``evaluate_loader`` (a whole ``Runner.train`` over the valid loader);
- ``METRICS``: the metric classes over an epoch (``reset``, ``update`` or ``update_key_value`` on two batches,
  ``compute`` / ``compute_key_value``): accuracy (top-k, multilabel), precision-recall-F1 (binary, multiclass,
  multilabel, per class), AUC, CMC and Re-ID CMC, confusion matrix, dice / IoU / Trevsky, hitrate / MRR / MAP /
  NDCG, R2, additive and accumulative metrics, functional batch and loader metrics;
- ``FUNCTIONAL``: the functional metrics (``accuracy``, ``auc``, ``cmc_score``, ``dice``, ``f1_score``,
  ``ndcg`` ...) and focal losses of ``catalyst.metrics.functional``;
- ``LOSSES`` and ``LAYERS``: the contrib losses (classification, segmentation, metric learning, ranking,
  regression, GAN) and layers (margin heads with and without targets, poolings, squeeze-excitation, LAMA,
  factorized linear, RMS norm), and ``MODELS`` (the MNIST nets, a frozen ``ResnetEncoder``);
- ``TRAIN``: backward steps through contrib losses and margin heads, and ``OptimizerStep`` on each contrib
  optimizer (``AdamP``, ``Lamb``, ``Lookahead``, ``QHAdamW``, ``RAdam``, ``Ralamb``, ``SGDP``).

Gradient clipping in ``BackwardCallback`` is left out (22.04 clips ``self.model``, an attribute the callback never
sets), and so is ``OptimizerCallback``'s (stored, never applied). catalyst's ``REGISTRY`` is empty as installed, so
factories named by string are given as import paths (``"torch.nn.Sigmoid"``). ``ConfusionMatrixCallback``'s loader
end (a matplotlib plot) stops Dynamo with an internal error, so it is left out too, and so is ``HardTripletsSampler``
(its list-indexed gather fails under Dynamo where it runs eagerly). Two names catalyst reads from
accelerate are gone from the installed one; ``build`` restores them first (``_compat``).

Batches are tiny (8 samples of 6 features, 4 classes, or 2 x 3 x 8 x 8 images), random weights, nothing
downloaded. catalyst imports torchvision: ``before_import()`` lets its CUDA build import on this CPU torch
(``gt_models.allow_torchvision_import``). ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, HID, CLASSES = 8, 6, 8, 4

# Runner step model name -> (task, loader key, options). Options name the callbacks and runner flavour.
STEPS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "step.supervised": ("multiclass", "train", {}),
    "step.supervised.valid": ("multiclass", "valid", {}),
    "step.supervised.scheduler_batch": ("multiclass", "train", {"scheduler": "batch"}),
    "step.supervised.lr_finder": ("multiclass", "train", {"callbacks": ["lr_finder"]}),
    "step.supervised.input_list": ("two_inputs", "train", {"input_key": ["a", "b"]}),
    "step.supervised.output_list": ("two_outputs", "train", {"output_key": ["logits", "aux"],
                                                             "callbacks": ["criterion_logits", "aux_functional"]}),
    "step.supervised.dict_io": ("dict_io", "train", {"input_key": None, "output_key": None,
                                                     "callbacks": ["criterion_logits"]}),
    "step.accuracy.valid": ("multiclass", "valid", {"callbacks": ["accuracy", "prf"]}),
    "step.multilabel": ("multilabel", "train", {"callbacks": ["multilabel_accuracy", "multilabel_prf"]}),
    "step.segmentation": ("segmentation", "train", {"callbacks": ["dice", "iou", "trevsky"]}),
    "step.recsys": ("recsys", "train", {"callbacks": ["hitrate", "mrr", "map", "ndcg"]}),
    "step.regression.r2": ("regression", "train", {"callbacks": ["r2"]}),
    "step.functional_metric": ("multiclass", "train", {"callbacks": ["functional", "functional_batch"]}),
    "step.accumulation": ("multiclass", "train", {"callbacks": ["backward", "optimizer_accumulate"]}),
    "step.mixup": ("multiclass", "train", {"callbacks": ["mixup"], "criterion": "mse_onehot"}),
    "step.batch_transform.start": ("multiclass", "train", {"callbacks": ["transform_start"]}),
    "step.batch_transform.end": ("multiclass", "train", {"callbacks": ["transform_end", "accuracy_probs"]}),
    "step.metric_aggregation": ("multiclass", "train", {"callbacks": ["two_criteria", "aggregation"],
                                                        "criterion": "dict"}),
    "step.control_flow": ("multiclass", "train", {"callbacks": ["control_flow"]}),
    "step.custom_runner": ("multiclass", "train", {"runner": "custom"}),
    "step.custom_runner.valid": ("multiclass", "valid", {"runner": "custom"}),
    "step.gan_runner": ("gan", "train", {"runner": "gan"}),
}

# Loader pass model name -> (task, loader key, options).
LOADERS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "loader.supervised": ("multiclass", "train", {"callbacks": ["accuracy"]}),
    "loader.valid.metrics": ("multiclass", "valid", {"callbacks": ["accuracy", "prf", "auc", "early_stopping"]}),
    "loader.cmc": ("cmc", "valid", {"callbacks": ["cmc"], "criterion": None}),
    "loader.r2": ("multiclass", "valid", {"callbacks": ["r2_logits"]}),
    "loader.custom_runner": ("multiclass", "train", {"runner": "custom"}),
}
RUNNER_CALLS = ("SupervisedRunner.predict_batch", "SupervisedRunner.forward", "Runner.evaluate_loader")

# Metric model name -> (metric token, data kind, how: "update" / "key_value" / "loader").
METRICS: dict[str, tuple[str, str, str]] = {
    "AccuracyMetric.key_value": ("AccuracyMetric", "multiclass", "key_value"),
    "MultilabelAccuracyMetric": ("MultilabelAccuracyMetric", "multilabel", "key_value"),
    "BinaryPrecisionRecallF1Metric": ("BinaryPrecisionRecallF1Metric", "binary", "key_value"),
    "MulticlassPrecisionRecallF1SupportMetric": ("MulticlassPRF", "multiclass", "update"),
    "MulticlassPrecisionRecallF1SupportMetric.per_class": ("MulticlassPRF.per_class", "multiclass", "key_value"),
    "MultilabelPrecisionRecallF1SupportMetric": ("MultilabelPRF", "multilabel", "key_value"),
    "AUCMetric.per_class": ("AUCMetric.per_class", "multiclass_onehot", "loader"),
    "CMCMetric": ("CMCMetric", "cmc", "loader"),
    "ReidCMCMetric": ("ReidCMCMetric", "reid", "loader"),
    "ConfusionMatrixMetric.normalize": ("ConfusionMatrixMetric.normalize", "multiclass", "update"),
    "DiceMetric": ("DiceMetric", "segmentation", "key_value"),
    "IOUMetric.per_class": ("IOUMetric.per_class", "segmentation", "key_value"),
    "TrevskyMetric": ("TrevskyMetric", "segmentation", "update"),
    "HitrateMetric": ("HitrateMetric", "recsys", "key_value"),
    "MRRMetric": ("MRRMetric", "recsys", "key_value"),
    "MAPMetric": ("MAPMetric", "recsys", "update"),
    "NDCGMetric": ("NDCGMetric", "recsys", "key_value"),
    "R2Squared": ("R2Squared", "regression", "loader"),
    "AdditiveMetric": ("AdditiveMetric", "scalar", "update"),
    "AdditiveMetric.torch": ("AdditiveMetric.torch", "scalar", "update"),
    "AccumulativeMetric": ("AccumulativeMetric", "multiclass_onehot", "loader"),
    "FunctionalBatchMetric": ("FunctionalBatchMetric", "multiclass", "key_value"),
    "FunctionalLoaderMetric": ("FunctionalLoaderMetric", "multiclass_onehot", "loader"),
}

# Functional metric model name -> (function name in ``catalyst.metrics``, data kind, static keywords).
FUNCTIONAL: dict[str, tuple[str, str, dict[str, Any]]] = {
    "accuracy": ("accuracy", "multiclass", {"topk": (1, 3)}),
    "multilabel_accuracy": ("multilabel_accuracy", "multilabel", {"threshold": 0.5}),
    "auc": ("auc", "multiclass_onehot", {}),
    "binary_auc": ("binary_auc", "binary_scores", {}),
    "average_precision": ("average_precision", "recsys", {"k": 3}),
    "binary_average_precision": ("binary_average_precision", "multiclass_onehot", {}),
    "mean_average_precision": ("mean_average_precision", "recsys", {"topk": [1, 3]}),
    "cmc_score": ("cmc_score", "cmc_pairs", {"topk": 2}),
    "masked_cmc_score": ("masked_cmc_score", "cmc_masked", {"topk": 1}),
    "dice.micro": ("dice", "segmentation", {"mode": "micro"}),
    "iou.weighted": ("iou", "segmentation", {"mode": "weighted", "weights": [0.2, 0.3, 0.5]}),
    "trevsky.macro": ("trevsky", "segmentation", {"alpha": 0.3, "mode": "macro"}),
    "f1_score": ("f1_score", "multiclass", {"num_classes": CLASSES}),
    "precision_recall_fbeta_support": ("precision_recall_fbeta_support", "multiclass", {}),
    "hitrate": ("hitrate", "recsys", {"topk": [1, 3]}),
    "mrr": ("mrr", "recsys", {"topk": [1, 3]}),
    "ndcg": ("ndcg", "recsys", {"topk": [1, 3]}),
    "r2_squared": ("r2_squared", "regression", {}),
    "sigmoid_focal_loss": ("sigmoid_focal_loss", "multilabel", {}),
    "reduced_focal_loss": ("reduced_focal_loss", "multilabel", {"reduction": "batchwise_mean"}),
}

# Loss model name -> data kind.
LOSSES: dict[str, str] = {
    "NaiveCrossEntropyLoss": "soft_labels",
    "SymmetricCrossEntropyLoss": "probs_labels",
    "MaskCrossEntropyLoss": "masked",
    "FocalLossBinary": "binary_logits",
    "FocalLossMultiClass.reduced_ignore": "multiclass",
    "DiceLoss": "segmentation",
    "IoULoss.weighted": "segmentation",
    "TrevskyLoss": "segmentation",
    "FocalTrevskyLoss": "segmentation",
    "SmoothingDiceLoss": "segmentation",
    "LovaszLossBinary": "lovasz_binary",
    "LovaszLossMultiClass.per_image": "lovasz_multiclass",
    "LovaszLossMultiLabel": "lovasz_multilabel",
    "WingLoss": "regression",
    "HuberLossV0": "regression",
    "RSquareLoss": "regression",
    "QuantileRegressionLoss": "regression",
    "CategoricalRegressionLoss": "categorical",
    "ContrastiveEmbeddingLoss": "pairs",
    "ContrastivePairwiseEmbeddingLoss": "embeddings_pair",
    "BarlowTwinsLoss": "embeddings_pair",
    "TripletLoss": "embeddings_labels",
    "TripletPairwiseEmbeddingLoss": "embeddings_pair",
    "TripletMarginLossWithSampler.all": "embeddings_labels",
    "MarginLoss": "embeddings_labels",
    "CircleLoss": "normed_labels",
    "NTXentLoss": "embeddings_pair",
    "SupervisedContrastiveLoss": "embeddings_labels",
    "BPRLoss": "scores_pair",
    "HingeLoss": "scores_pair",
    "AdaptiveHingeLoss": "scores_negatives",
    "WARPLoss": "ranking",
    "RocStarLoss": "roc",
    "GradientPenaltyLoss": "gan",
}

# Layer model name -> input kind.
LAYERS: dict[str, str] = {
    "ArcFace": "embeddings",
    "ArcFace.target": "embeddings_target",
    "SubCenterArcFace.target": "embeddings_target",
    "CosFace.target": "embeddings_target",
    "AdaCos.target": "embeddings_target",
    "AMSoftmax.target": "embeddings_target",
    "CurricularFace.target": "embeddings_target",
    "ArcMarginProduct": "embeddings",
    "SoftMax": "embeddings",
    "FactorizedLinear": "embeddings",
    "GaussianNoise": "embeddings",
    "Normalize": "embeddings",
    "RMSNorm": "embeddings",
    "ResidualBlock": "embeddings",
    "GeM2d.trainable": "image",
    "GlobalConcatPool2d": "image",
    "GlobalConcatAttnPool2d": "image",
    "GlobalMaxAttnPool2d": "image",
    "scSE": "image",
    "LamaPooling": "sequence",
    "LamaPooling.mask": "sequence_mask",
    "TemporalConcatPooling": "sequence",
    "TemporalAttentionPooling.mask": "sequence_mask",
}
MODELS = ("MnistSimpleNet", "MnistBatchNormNet", "ResnetEncoder.frozen")

# Train model name -> what it steps.
TRAIN = ("train_step.FocalLossMultiClass", "train_step.DiceLoss", "train_step.LovaszLossMultiClass",
         "train_step.TripletMarginLossWithSampler", "train_step.ArcFace", "train_step.CurricularFace",
         "optimizer.AdamP", "optimizer.Lamb", "optimizer.Lamb.adam", "optimizer.Lookahead", "optimizer.QHAdamW",
         "optimizer.RAdam", "optimizer.Ralamb", "optimizer.SGDP.nesterov")


def names() -> list[str]:
    return (list(STEPS) + list(LOADERS) + list(RUNNER_CALLS) + [f"metrics.{m}" for m in METRICS]
            + [f"functional.{f}" for f in FUNCTIONAL] + [f"losses.{name}" for name in LOSSES]
            + [f"layers.{name}" for name in LAYERS] + [f"models.{m}" for m in MODELS] + list(TRAIN))


def before_import() -> None:
    import gt_models

    gt_models.allow_torchvision_import()


def _gen(seed: int = 1) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _data(kind: str, seed: int = 1) -> tuple[Any, ...]:
    """Model-side tensors of a task: ``(input, target)`` or more."""
    import torch

    g = _gen(seed)
    labels = torch.arange(N) % CLASSES
    logits = torch.randn(N, CLASSES, generator=g)
    if kind == "multiclass":
        return logits, labels
    if kind == "multiclass_onehot":
        return logits, torch.nn.functional.one_hot(labels, CLASSES).float()
    if kind == "multilabel":
        return logits, torch.randint(0, 2, (N, CLASSES), generator=g).float()
    if kind == "binary":
        return torch.rand(N, generator=g), (torch.arange(N) % 2).float()
    if kind == "binary_scores":
        return torch.rand(N, generator=g), torch.arange(N) % 2
    if kind == "segmentation":
        return torch.rand(2, 3, 8, 8, generator=g), torch.randint(0, 2, (2, 3, 8, 8), generator=g).float()
    if kind == "recsys":
        return torch.rand(N, 5, generator=g), torch.randint(0, 2, (N, 5), generator=g).float()
    if kind == "regression":
        return torch.randn(N, CLASSES, generator=g), torch.randn(N, CLASSES, generator=g)
    if kind == "scalar":
        return torch.rand(1, generator=g), torch.tensor(N)
    if kind == "cmc":
        return torch.randn(N, CLASSES, generator=g), labels % 2, (torch.arange(N) < 3).long()
    if kind == "reid":
        return (torch.randn(N, CLASSES, generator=g), labels % 2, torch.arange(N) % 3,
                (torch.arange(N) < 3).long())
    if kind == "cmc_pairs":
        conformity = torch.tensor([[1, 0, 0, 1, 0], [0, 1, 0, 0, 1], [0, 0, 1, 1, 0]], dtype=torch.bool)
        return torch.randn(3, CLASSES, generator=g), torch.randn(5, CLASSES, generator=g), conformity
    if kind == "cmc_masked":
        query, gallery, conformity = _data("cmc_pairs", seed)
        available = torch.tensor([[0, 1, 1, 1, 1], [1, 1, 1, 1, 0], [1, 1, 0, 1, 1]], dtype=torch.bool)
        return query, gallery, conformity, available
    raise KeyError(kind)


def _loss_data(kind: str) -> tuple[Any, ...]:
    import torch

    g = _gen(3)
    labels = torch.arange(N) % CLASSES
    if kind == "soft_labels":
        return torch.randn(N, CLASSES, generator=g), torch.randn(N, CLASSES, generator=g).softmax(-1)
    if kind == "probs_labels":
        return torch.randn(N, CLASSES, generator=g).softmax(-1), labels
    if kind == "masked":
        return torch.randn(N, CLASSES, generator=g), labels, torch.tensor([1, 1, 0, 1, 0, 1, 1, 1])
    if kind == "binary_logits":
        return torch.randn(N, generator=g), (torch.arange(N) % 2).float()
    if kind == "multiclass":
        return torch.randn(N, CLASSES, generator=g), labels
    if kind == "segmentation":
        return _data("segmentation", 3)
    if kind == "lovasz_binary":
        return torch.randn(2, 1, 6, 6, generator=g), torch.randint(0, 2, (2, 1, 6, 6), generator=g).float()
    if kind == "lovasz_multiclass":
        return torch.randn(2, 3, 6, 6, generator=g), torch.randint(0, 3, (2, 6, 6), generator=g)
    if kind == "lovasz_multilabel":
        return torch.randn(2, 3, 6, 6, generator=g), torch.randint(0, 2, (2, 3, 6, 6), generator=g).float()
    if kind == "regression":
        return _data("regression", 3)
    if kind == "categorical":
        return (torch.randn(N, 5, generator=g), torch.randn(N, 5, generator=g), torch.randn(N, 5, generator=g))
    if kind == "pairs":
        return (torch.randn(N, HID, generator=g), torch.randn(N, HID, generator=g), (torch.arange(N) % 2).float())
    if kind == "distances":
        return torch.rand(N, generator=g) * 2, (torch.arange(N) % 2).float()
    if kind == "embeddings_pair":
        return torch.randn(N, HID, generator=g), torch.randn(N, HID, generator=g)
    if kind == "embeddings_labels":
        return torch.randn(N, HID, generator=g), labels
    if kind == "normed_labels":
        return torch.nn.functional.normalize(torch.randn(N, HID, generator=g), dim=-1), labels
    if kind == "scores_pair":
        return torch.randn(N, generator=g), torch.randn(N, generator=g)
    if kind == "scores_negatives":
        return torch.randn(N, generator=g), torch.randn(3, N, generator=g)
    if kind == "ranking":
        return torch.randn(N, 5, generator=g), torch.randint(0, 2, (N, 5), generator=g).float()
    if kind == "roc":
        return torch.rand(N, 1, generator=g), (torch.arange(N) % 2).float().unsqueeze(1)
    if kind == "gan":
        return torch.randn(2, 1, 4, 4, generator=g), torch.randn(2, 1, 4, 4, generator=g)
    raise KeyError(kind)


# --------------------------------------------------------------------------------------------------------------
# runners


def _network(task: str) -> Any:
    import torch
    from torch import nn

    if task in ("multiclass", "regression", "multilabel", "cmc"):
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))
    if task == "recsys":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, 5))
    if task == "segmentation":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 3, 1))

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
            self.aux = nn.Linear(HID, 2)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = torch.relu(self.body(x))
            return self.cls(h), self.aux(h)

    class _DictIO(_TwoOutputs):
        def forward(self, features: torch.Tensor, targets: torch.Tensor) -> dict[str, torch.Tensor]:  # type: ignore
            logits, aux = super().forward(features)
            return {"logits": logits, "aux": aux}

    return {"two_inputs": _TwoInputs, "two_outputs": _TwoOutputs, "dict_io": _DictIO}[task]()


def _samples(task: str) -> dict[str, Any]:
    """All 8 samples of a task as named tensors (the dataset of the loaders)."""
    import torch

    g = _gen(2)
    x = torch.randn(N, DIM, generator=g)
    labels = torch.arange(N) % CLASSES
    if task in ("multiclass", "two_outputs", "dict_io"):
        return {"features": x, "targets": labels}
    if task == "two_inputs":
        return {"a": x, "b": torch.randn(N, 3, generator=g), "targets": labels}
    if task == "multilabel":
        return {"features": x, "targets": torch.randint(0, 2, (N, CLASSES), generator=g).float()}
    if task == "regression":
        return {"features": x, "targets": torch.randn(N, CLASSES, generator=g)}
    if task == "recsys":
        return {"features": x, "targets": torch.randint(0, 2, (N, 5), generator=g).float()}
    if task == "segmentation":
        return {"features": torch.randn(N, 3, 8, 8, generator=g),
                "targets": torch.randint(0, 2, (N, 3, 8, 8), generator=g).float()}
    if task == "cmc":
        return {"features": x, "targets": labels % 2, "is_query": (torch.arange(N) % 3 == 0).long()}
    if task == "gan":
        return {"features": torch.randn(N, DIM, generator=g), "targets": labels}
    raise KeyError(task)


class _DictDataset:
    """A map-style dataset of named tensors (a batch is a dict, as Catalyst's supervised loaders give)."""

    def __init__(self, samples: dict[str, Any]) -> None:
        self.samples = samples

    def __len__(self) -> int:
        return len(next(iter(self.samples.values())))

    def __getitem__(self, index: int) -> dict[str, Any]:
        return {key: value[index] for key, value in self.samples.items()}


def _loaders(task: str) -> Any:
    from collections import OrderedDict

    from torch.utils.data import DataLoader

    dataset = _DictDataset(_samples(task))
    return OrderedDict([("train", DataLoader(dataset, batch_size=4)), ("valid", DataLoader(dataset, batch_size=4))])


def _criterion(task: str, token: Any) -> Any:
    import torch.nn.functional as F
    from torch import nn

    if token is None:
        return None
    if token == "mse_onehot":
        class _SoftTargetLoss(nn.Module):
            """Cross-entropy against (mixed) soft targets, as mixup needs."""

            def forward(self, logits: Any, targets: Any) -> Any:
                if targets.dim() == 1:
                    targets = F.one_hot(targets.long(), CLASSES).float()
                return -(targets * logits.log_softmax(-1)).sum(-1).mean()

        return _SoftTargetLoss()
    if token == "dict":
        return {"ce": nn.CrossEntropyLoss(), "smooth": nn.CrossEntropyLoss(label_smoothing=0.2)}
    if task in ("multilabel", "segmentation", "recsys"):
        return nn.BCEWithLogitsLoss()
    if task == "regression":
        return nn.MSELoss()
    return nn.CrossEntropyLoss()


def _callbacks(task: str, tokens: list[str]) -> dict[str, Any]:
    import torch
    from catalyst import dl, metrics

    def _aux_loss(outputs: Any, targets: Any) -> Any:
        return outputs.pow(2).mean()

    made: dict[str, Any] = {
        "accuracy": lambda: dl.AccuracyCallback("logits", "targets", topk=(1, 3), num_classes=CLASSES),
        "accuracy_probs": lambda: dl.AccuracyCallback("probs", "targets", num_classes=CLASSES),
        "prf": lambda: dl.PrecisionRecallF1SupportCallback("logits", "targets", num_classes=CLASSES),
        "auc": lambda: dl.AUCCallback("scores", "targets_onehot"),
        "multilabel_accuracy": lambda: dl.MultilabelAccuracyCallback("logits", "targets", threshold=0.5),
        "multilabel_prf": lambda: dl.MultilabelPrecisionRecallF1SupportCallback(
            "logits", "targets", num_classes=CLASSES, compute_per_class_metrics=True),
        "dice": lambda: dl.DiceCallback("logits", "targets", threshold=0.5),
        "iou": lambda: dl.IOUCallback("logits", "targets", class_names=["a", "b", "c"],
                                      compute_per_class_metrics=True),
        "trevsky": lambda: dl.TrevskyCallback("logits", "targets", alpha=0.3),
        "hitrate": lambda: dl.HitrateCallback("logits", "targets", topk=(1, 3)),
        "mrr": lambda: dl.MRRCallback("logits", "targets", topk=(1, 3)),
        "map": lambda: dl.MAPCallback("logits", "targets", topk=(1, 3)),
        "ndcg": lambda: dl.NDCGCallback("logits", "targets", topk=(1, 3)),
        "r2": lambda: dl.R2SquaredCallback("logits", "targets"),
        "r2_logits": lambda: dl.R2SquaredCallback("logits", "scores"),
        "cmc": lambda: dl.CMCScoreCallback("logits", "targets", "is_query", topk=(1, 2)),
        "functional": lambda: dl.FunctionalMetricCallback(
            "logits", "targets", metric_fn=lambda o, t: metrics.accuracy(o, t, topk=(1,))[0], metric_key="acc_fn"),
        "functional_batch": lambda: dl.FunctionalBatchMetricCallback(
            metrics.FunctionalBatchMetric(lambda o, t: metrics.f1_score(o, t, num_classes=CLASSES).mean(), "f1"),
            "logits", "targets"),
        "backward": lambda: dl.BackwardCallback("loss"),
        "optimizer": lambda: dl.OptimizerCallback("loss"),
        "optimizer_accumulate": lambda: dl.OptimizerCallback("loss", accumulation_steps=2),
        "mixup": lambda: [dl.MixupCallback(keys=["features", "targets_onehot"], alpha=0.4),
                          dl.CriterionCallback("logits", "targets_onehot", "loss")],
        "criterion_logits": lambda: dl.CriterionCallback("logits", "targets", "loss"),
        "transform_start": lambda: dl.BatchTransformCallback(
            transform=lambda x: x * 0.5 + 0.1, scope="on_batch_start", input_key="features",
            output_key="features"),
        "transform_end": lambda: dl.BatchTransformCallback(
            transform=torch.softmax, scope="on_batch_end", input_key="logits", output_key="probs",
            transform_kwargs={"dim": -1}),
        "two_criteria": lambda: [dl.CriterionCallback("logits", "targets", "loss_ce", criterion_key="ce"),
                                 dl.CriterionCallback("logits", "targets", "loss_smooth", criterion_key="smooth")],
        "aggregation": lambda: dl.MetricAggregationCallback(
            "loss", metrics={"loss_ce": 0.7, "loss_smooth": 0.3}, mode="weighted_sum"),
        "control_flow": lambda: dl.ControlFlowCallbackWrapper(
            dl.AccuracyCallback("logits", "targets", num_classes=CLASSES), loaders="train"),
        "early_stopping": lambda: dl.EarlyStoppingCallback(patience=2, loader_key="valid", metric_key="loss",
                                                           minimize=True),
        "lr_finder": lambda: dl.LRFinder(final_lr=1.0, num_steps=50),
        "aux_functional": lambda: dl.FunctionalMetricCallback("aux", "targets", _aux_loss, "aux_loss"),
    }
    callbacks: dict[str, Any] = {}
    for token in tokens:
        made_ = made[token]()
        for i, callback in enumerate(made_ if isinstance(made_, list) else [made_]):
            callbacks[f"{token}{i or ''}"] = callback
    return callbacks


def _custom_runner_class() -> Any:
    import torch.nn.functional as F
    from catalyst import dl, metrics

    class _CustomRunner(dl.Runner):
        """A user's runner: the step written in ``handle_batch``, meters kept per loader."""

        def predict_batch(self, batch: Any) -> Any:
            return self.model(batch["features"])

        def on_loader_start(self, runner: Any) -> None:
            super().on_loader_start(runner)
            self.meters = {key: metrics.AdditiveMetric(compute_on_call=False) for key in ("loss", "accuracy01")}

        def handle_batch(self, batch: Any) -> None:
            x, y = batch["features"], batch["targets"]
            logits = self.model(x)
            loss = F.cross_entropy(logits, y)
            (accuracy01,) = metrics.accuracy(logits, y, topk=(1,))
            self.batch_metrics.update({"loss": loss, "accuracy01": accuracy01})
            for key in ("loss", "accuracy01"):
                self.meters[key].update(self.batch_metrics[key].item(), self.batch_size)
            if self.is_train_loader:
                self.engine.backward(loss)
                self.optimizer.step()
                self.optimizer.zero_grad()

        def on_loader_end(self, runner: Any) -> None:
            for key in ("loss", "accuracy01"):
                self.loader_metrics[key] = self.meters[key].compute()[0]
            super().on_loader_end(runner)

    return _CustomRunner


def _gan_runner_class() -> Any:
    import torch
    import torch.nn.functional as F
    from catalyst import dl

    class _GanRunner(dl.Runner):
        """A user's adversarial runner over dictionaries of models and optimizers."""

        def handle_batch(self, batch: Any) -> None:
            real = batch["features"]
            noise = torch.randn(real.shape[0], 3)
            fake = self.model["generator"](noise)
            d_real = self.model["discriminator"](real)
            d_fake = self.model["discriminator"](fake.detach())
            loss_d = F.softplus(-d_real).mean() + F.softplus(d_fake).mean()
            self.batch_metrics["loss_discriminator"] = loss_d
            if self.is_train_loader:
                self.engine.backward(loss_d)
                self.optimizer["discriminator"].step()
                self.optimizer["discriminator"].zero_grad()
            loss_g = F.softplus(-self.model["discriminator"](self.model["generator"](noise))).mean()
            self.batch_metrics["loss_generator"] = loss_g
            if self.is_train_loader:
                self.engine.backward(loss_g)
                self.optimizer["generator"].step()
                self.optimizer["generator"].zero_grad()

    return _GanRunner


def _runner(task: str, options: dict[str, Any]) -> tuple[Any, Any]:
    """A runner set up on the task's loaders as ``Runner.train`` sets it up, before its first batch: returns
    the runner and the network (a module or a dict of them)."""
    import torch
    from catalyst import dl
    from torch import nn

    kind = options.get("runner", "supervised")
    callbacks = _callbacks(task, list(options.get("callbacks", [])))
    scheduler = None
    if kind == "gan":
        model: Any = {"generator": nn.Sequential(nn.Linear(3, HID), nn.ReLU(), nn.Linear(HID, DIM)),
                      "discriminator": nn.Sequential(nn.Linear(DIM, HID), nn.LeakyReLU(0.2), nn.Linear(HID, 1)),
                      "ema_generator": nn.Sequential(nn.Linear(3, HID), nn.ReLU(), nn.Linear(HID, DIM))}
        optimizer: Any = {key: torch.optim.Adam(model[key].parameters(), lr=1e-3)
                          for key in ("generator", "discriminator")}
        runner = _gan_runner_class()()
        callbacks["soft_update"] = dl.SoftUpdateCallaback("ema_generator", "generator", tau=0.1,
                                                          scope="on_batch_end")
        criterion = None
    else:
        model = _network(task)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        criterion = _criterion(task, options.get("criterion", "default"))
        if options.get("scheduler") == "batch":
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.9)
            callbacks["scheduler"] = dl.SchedulerCallback(mode="batch")
        if kind == "custom":
            runner = _custom_runner_class()()
            criterion = None
        else:
            keys = {k: options[k] for k in ("input_key", "output_key") if k in options}
            runner = dl.SupervisedRunner(**keys)
            if "two_criteria" in options.get("callbacks", []):
                callbacks["backward"] = dl.BackwardCallback("loss")
                callbacks["optimizer"] = dl.OptimizerCallback("loss")
    _setup(runner, _loaders(task), model, criterion, optimizer, scheduler, callbacks)
    return runner, model


def _setup(runner: Any, loaders: Any, model: Any, criterion: Any, optimizer: Any, scheduler: Any,
           callbacks: dict[str, Any]) -> None:
    """``Runner.train``'s configuration and ``IRunner._run_local``'s experiment and epoch start, eagerly."""
    from catalyst import dl

    runner.run = lambda: runner  # ``train`` stores its arguments, then calls ``run``: stop there
    runner.train(loaders=loaders, model=model, engine=dl.CPUEngine(), criterion=criterion, optimizer=optimizer,
                 scheduler=scheduler, callbacks=callbacks, num_epochs=1, valid_loader="valid", valid_metric="loss",
                 minimize_valid_metric=True)
    del runner.run
    runner.engine = runner.get_engine()
    runner._local_rank, runner._world_size = -1, 1
    runner._run_event("on_experiment_start")
    runner._run_event("on_epoch_start")


def _start_loader(runner: Any, key: str) -> None:
    runner.loader_key, runner.loader = key, runner.loaders[key]
    runner._run_event("on_loader_start")


def _holder(runner: Any, model: Any, run: Any, entries: list[Any]) -> Any:
    """A bench module whose forward is ``run(runner, *inputs)``, holding the runner's networks as submodules."""
    from torch import nn

    from gt_calls import Run

    module = Run(runner, run, entries)
    module.network = nn.ModuleDict(model) if isinstance(model, dict) else model
    return module


def _batch_inputs(task: str, start: int, stop: int) -> dict[str, Any]:
    import torch.nn.functional as F

    batch = {key: value[start:stop] for key, value in _samples(task).items()}
    if task == "multiclass":
        batch["targets_onehot"] = F.one_hot(batch["targets"], CLASSES).float()
    return batch


def _one_batch(runner: Any, batch: dict[str, Any]) -> None:
    """One iteration of ``IRunner._run_loader``."""
    runner.batch = batch
    runner._run_event("on_batch_start")
    runner.handle_batch(batch=runner.batch)
    runner._run_event("on_batch_end")


def _step_model(name: str) -> Built:
    import torch
    from catalyst import dl

    task, key, options = STEPS[name]
    runner, model = _runner(task, options)
    batch = _batch_inputs(task, 0, 4)
    keys = sorted(batch)
    scores = "auc" in options.get("callbacks", [])

    def step(runner: Any, *tensors: Any) -> Any:
        batch = dict(zip(keys, tensors))
        if scores:
            batch["scores"] = torch.softmax(batch["features"][:, :CLASSES], -1)
        _start_loader(runner, key)  # a fresh loader: its meters' float state would otherwise carry over calls
        with torch.set_grad_enabled(runner.is_train_loader):
            _one_batch(runner, batch)
        return dict(runner.batch_metrics)

    entries = [type(runner).handle_batch, dl.IRunner._run_event, dl.IRunner.on_loader_start]
    return _holder(runner, model, step, entries), tuple(batch[k] for k in keys), {}


def _loader_model(name: str) -> Built:
    import torch
    from catalyst import dl

    task, key, options = LOADERS[name]
    runner, model = _runner(task, options)
    samples = _batch_inputs(task, 0, N)
    keys = sorted(samples)
    scores = any(c in options.get("callbacks", []) for c in ("auc", "r2_logits"))

    def loader(runner: Any, *tensors: Any) -> Any:
        _start_loader(runner, key)
        with torch.set_grad_enabled(runner.is_train_loader):
            for start in (0, 4):
                batch = {k: t[start:start + 4] for k, t in zip(keys, tensors)}
                if scores:
                    batch["scores"] = torch.softmax(batch["features"][:, :CLASSES], -1)
                _one_batch(runner, batch)
        runner._run_event("on_loader_end")
        return dict(runner.loader_metrics)

    entries = [type(runner).handle_batch, dl.IRunner._run_event, dl.IRunner.on_loader_start]
    return _holder(runner, model, loader, entries), tuple(samples[k] for k in keys), {}


def _runner_call_model(name: str) -> Built:
    from catalyst import dl

    runner, model = _runner("multiclass", {})
    batch = _batch_inputs("multiclass", 0, 4)
    if name == "SupervisedRunner.predict_batch":
        def predict(runner: Any, x: Any, y: Any) -> Any:
            return runner.predict_batch((x, y))["logits"]

        return _holder(runner, model, predict, [dl.SupervisedRunner.predict_batch]), \
            (batch["features"], batch["targets"]), {}
    if name == "SupervisedRunner.forward":
        def forward(runner: Any, x: Any, y: Any) -> Any:
            return runner.forward({"features": x, "targets": y})

        return _holder(runner, model, forward, [dl.SupervisedRunner.forward]), \
            (batch["features"], batch["targets"]), {}
    loader = _loaders("multiclass")["valid"]

    def evaluate(runner: Any, x: Any) -> Any:
        callbacks = {"accuracy": dl.AccuracyCallback("logits", "targets", num_classes=CLASSES)}
        return runner.evaluate_loader(loader, callbacks=callbacks)["accuracy01"] + x.sum()

    return _holder(runner, model, evaluate, [dl.Runner.evaluate_loader]), (batch["features"],), {}


# --------------------------------------------------------------------------------------------------------------
# metrics


def _metric_object(token: str) -> Any:
    from catalyst import metrics

    made: dict[str, Any] = {
        "AccuracyMetric": lambda: metrics.AccuracyMetric(topk=(1, 3), num_classes=CLASSES),
        "MultilabelAccuracyMetric": lambda: metrics.MultilabelAccuracyMetric(threshold=0.4),
        "BinaryPrecisionRecallF1Metric": lambda: metrics.BinaryPrecisionRecallF1Metric(),
        "MulticlassPRF": lambda: metrics.MulticlassPrecisionRecallF1SupportMetric(num_classes=CLASSES),
        "MulticlassPRF.per_class": lambda: metrics.MulticlassPrecisionRecallF1SupportMetric(
            num_classes=CLASSES, compute_per_class_metrics=True),
        "MultilabelPRF": lambda: metrics.MultilabelPrecisionRecallF1SupportMetric(
            num_classes=CLASSES, compute_per_class_metrics=True),
        "AUCMetric": lambda: metrics.AUCMetric(),
        "AUCMetric.per_class": lambda: metrics.AUCMetric(compute_per_class_metrics=True),
        "CMCMetric": lambda: metrics.CMCMetric("embeddings", "labels", "is_query", topk=(1, 2)),
        "ReidCMCMetric": lambda: metrics.ReidCMCMetric("embeddings", "pids", "cids", "is_query", topk=(1, 2)),
        "ConfusionMatrixMetric": lambda: metrics.ConfusionMatrixMetric(num_classes=CLASSES),
        "ConfusionMatrixMetric.normalize": lambda: metrics.ConfusionMatrixMetric(num_classes=CLASSES,
                                                                                 normalize=True),
        "DiceMetric": lambda: metrics.DiceMetric(threshold=0.5),
        "IOUMetric.per_class": lambda: metrics.IOUMetric(class_names=["a", "b", "c"], weights=[0.2, 0.3, 0.5],
                                                         compute_per_class_metrics=True),
        "TrevskyMetric": lambda: metrics.TrevskyMetric(alpha=0.3, beta=0.7, threshold=0.5),
        "HitrateMetric": lambda: metrics.HitrateMetric(topk=(1, 3)),
        "MRRMetric": lambda: metrics.MRRMetric(topk=(1, 3)),
        "MAPMetric": lambda: metrics.MAPMetric(topk=(1, 3)),
        "NDCGMetric": lambda: metrics.NDCGMetric(topk=(1, 3)),
        "R2Squared": lambda: metrics.R2Squared(),
        "AdditiveMetric": lambda: metrics.AdditiveMetric(),
        "AdditiveMetric.torch": lambda: metrics.AdditiveMetric(mode="torch"),
        "AdditiveValueMetric": lambda: metrics.AdditiveValueMetric(),
        "AccumulativeMetric": lambda: metrics.AccumulativeMetric(keys=["scores", "targets"]),
        "FunctionalBatchMetric": lambda: metrics.FunctionalBatchMetric(
            lambda o, t: metrics.accuracy(o, t)[0], "accuracy"),
        "FunctionalLoaderMetric": lambda: metrics.FunctionalLoaderMetric(
            lambda scores, targets: metrics.auc(scores, targets).mean(), "auc",
            accumulative_fields=["scores", "targets"]),
    }
    return made[token]()


def _metric_model(name: str) -> Built:
    from torch import nn

    token, kind, how = METRICS[name]
    metric = _metric_object(token)
    tensors = _data(kind)
    scalar = kind == "scalar"
    keywords = {"CMCMetric": ("embeddings", "labels", "is_query"),
                "ReidCMCMetric": ("embeddings", "pids", "cids", "is_query"),
                "AccumulativeMetric": ("scores", "targets"),
                "FunctionalLoaderMetric": ("scores", "targets")}.get(token.split(".")[0])

    class _Epoch(nn.Module):
        """An epoch of a metric: ``reset``, an update on each of two half batches, the result."""

        def __init__(self) -> None:
            super().__init__()
            self.metric = metric

        def forward(self, *tensors: Any) -> Any:
            if how == "loader":
                self.metric.reset(num_batches=2, num_samples=len(tensors[0]))
            else:
                self.metric.reset()
            half = len(tensors[0]) // 2
            for part in (slice(0, half), slice(half, None)):
                if scalar:
                    self.metric.update(tensors[0] * (1 + part.start), 4)
                    continue
                pieces = [t[part] for t in tensors]
                if keywords is not None:
                    self.metric.update(**dict(zip(keywords, pieces)))
                elif how == "key_value":
                    sizes = [len(pieces[0])] if token == "FunctionalBatchMetric" else []
                    self.metric.update_key_value(*sizes, *pieces)
                else:
                    self.metric.update(*pieces)
            if how in ("key_value", "loader"):
                return self.metric.compute_key_value()
            return self.metric.compute()

        def entry_points(self) -> list[Any]:
            cls = type(self.metric)
            methods = [cls.reset, cls.update, cls.compute]
            if how in ("key_value", "loader"):
                methods += [cls.compute_key_value]
            if how == "key_value":
                methods += [cls.update_key_value]
            return methods

    return _Epoch(), tensors, {}


def _functional_model(name: str) -> Built:
    from catalyst import metrics

    from gt_calls import Call

    function, kind, static = FUNCTIONAL[name]
    return Call(getattr(metrics, function), **static), _data(kind), {}


# --------------------------------------------------------------------------------------------------------------
# contrib losses, layers, models


def _loss(name: str) -> Any:
    import torch
    from catalyst.contrib import losses
    from catalyst.contrib.data import sampler_inbatch
    from torch import nn

    made: dict[str, Any] = {
        "NaiveCrossEntropyLoss": lambda: losses.NaiveCrossEntropyLoss(),
        "SymmetricCrossEntropyLoss": lambda: losses.SymmetricCrossEntropyLoss(alpha=0.5, beta=1.0),
        "MaskCrossEntropyLoss": lambda: losses.MaskCrossEntropyLoss(),
        "FocalLossBinary": lambda: losses.FocalLossBinary(),
        "FocalLossMultiClass": lambda: losses.FocalLossMultiClass(),
        "FocalLossMultiClass.reduced_ignore": lambda: losses.FocalLossMultiClass(reduced=True, ignore=0),
        "DiceLoss": lambda: losses.DiceLoss(),
        "IoULoss.weighted": lambda: losses.IoULoss(mode="weighted", weights=[0.2, 0.3, 0.5]),
        "TrevskyLoss": lambda: losses.TrevskyLoss(alpha=0.3),
        "FocalTrevskyLoss": lambda: losses.FocalTrevskyLoss(alpha=0.3, beta=0.7),
        "SmoothingDiceLoss": lambda: losses.SmoothingDiceLoss(),
        "LovaszLossBinary": lambda: losses.LovaszLossBinary(),
        "LovaszLossMultiClass.per_image": lambda: losses.LovaszLossMultiClass(per_image=True),
        "LovaszLossMultiClass": lambda: losses.LovaszLossMultiClass(),
        "LovaszLossMultiLabel": lambda: losses.LovaszLossMultiLabel(),
        "WingLoss": lambda: losses.WingLoss(),
        "HuberLossV0": lambda: losses.HuberLossV0(clip_delta=0.5),
        "RSquareLoss": lambda: losses.RSquareLoss(),
        "QuantileRegressionLoss": lambda: losses.QuantileRegressionLoss(num_atoms=CLASSES),
        "CategoricalRegressionLoss": lambda: losses.CategoricalRegressionLoss(num_atoms=5, v_min=-2, v_max=2),
        "ContrastiveEmbeddingLoss": lambda: losses.ContrastiveEmbeddingLoss(),
        "ContrastiveDistanceLoss": lambda: losses.ContrastiveDistanceLoss(),
        "ContrastivePairwiseEmbeddingLoss": lambda: losses.ContrastivePairwiseEmbeddingLoss(),
        "BarlowTwinsLoss": lambda: losses.BarlowTwinsLoss(),
        "TripletLoss": lambda: losses.TripletLoss(),
        "TripletLossV2": lambda: losses.TripletLossV2(),
        "TripletPairwiseEmbeddingLoss": lambda: losses.TripletPairwiseEmbeddingLoss(),
        "TripletMarginLossWithSampler.all": lambda: losses.TripletMarginLossWithSampler(
            margin=0.5, sampler_inbatch=sampler_inbatch.AllTripletsSampler(max_output_triplets=20)),
        "TripletMarginLossWithSampler": lambda: losses.TripletMarginLossWithSampler(
            margin=0.5, sampler_inbatch=sampler_inbatch.AllTripletsSampler(max_output_triplets=12)),
        "MarginLoss": lambda: losses.MarginLoss(),
        "CircleLoss": lambda: losses.CircleLoss(margin=0.25, gamma=32.0),
        "NTXentLoss": lambda: losses.NTXentLoss(tau=0.5),
        "SupervisedContrastiveLoss": lambda: losses.SupervisedContrastiveLoss(tau=0.5),
        "BPRLoss": lambda: losses.BPRLoss(),
        "LogisticLoss": lambda: losses.LogisticLoss(),
        "HingeLoss": lambda: losses.HingeLoss(),
        "AdaptiveHingeLoss": lambda: losses.AdaptiveHingeLoss(),
        "WARPLoss": lambda: losses.WARPLoss(max_num_trials=4),
        "RocStarLoss": lambda: losses.RocStarLoss(sample_size=4, sample_size_gamma=8, update_gamma_each=1),
        "MeanOutputLoss": lambda: losses.MeanOutputLoss(),
    }
    if name == "GradientPenaltyLoss":
        critic = nn.Sequential(nn.Flatten(), nn.Linear(16, 1))
        penalty = losses.GradientPenaltyLoss()

        class _Penalty(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.critic = critic
                self.penalty = penalty

            def forward(self, fake: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
                return self.penalty(fake, real, lambda x: self.critic(x), [])

            def entry_points(self) -> list[Any]:
                return [losses.GradientPenaltyLoss]

        return _Penalty()
    return made[name]()


def _loss_model(name: str) -> Built:
    loss = _loss(name)
    return loss, _loss_data(LOSSES[name]), {}


def _layer(name: str) -> Any:
    from catalyst.contrib import layers
    from torch import nn

    made: dict[str, Any] = {
        "ArcFace": lambda: layers.ArcFace(HID, CLASSES, s=8.0, m=0.3),
        "SubCenterArcFace": lambda: layers.SubCenterArcFace(HID, CLASSES, s=8.0, k=2),
        "CosFace": lambda: layers.CosFace(HID, CLASSES, s=8.0),
        "AdaCos": lambda: layers.AdaCos(HID, CLASSES),
        "AMSoftmax": lambda: layers.AMSoftmax(HID, CLASSES, s=8.0, m=0.3),
        "CurricularFace": lambda: layers.CurricularFace(HID, CLASSES, s=8.0),
        "ArcMarginProduct": lambda: layers.ArcMarginProduct(HID, CLASSES),
        "SoftMax": lambda: layers.SoftMax(HID, CLASSES),
        "FactorizedLinear": lambda: layers.FactorizedLinear(nn.Linear(HID, HID), dim_ratio=0.5),
        "GaussianNoise": lambda: layers.GaussianNoise(stddev=0.2),
        "Normalize": lambda: layers.Normalize(p=2, dim=-1),
        "RMSNorm": lambda: layers.RMSNorm(HID, is_bias=True),
        "ResidualBlock": lambda: layers.ResidualBlock(nn.Sequential(nn.Linear(HID, HID), nn.ReLU())),
        "GeM2d": lambda: layers.GeM2d(p_trainable=True),
        "GlobalConcatPool2d": lambda: layers.GlobalConcatPool2d(),
        "GlobalConcatAttnPool2d": lambda: layers.GlobalConcatAttnPool2d(4, activation_fn="torch.nn.Sigmoid"),
        "GlobalMaxAttnPool2d": lambda: layers.GlobalMaxAttnPool2d(4, activation_fn=nn.Tanh),
        "scSE": lambda: layers.scSE(4, r=2),
        "LamaPooling": lambda: layers.LamaPooling(HID, groups=["last", "avg_droplast", "max", "softmax", "tanh",
                                                                "sigmoid_droplast"]),
        "TemporalConcatPooling": lambda: layers.TemporalConcatPooling(HID, history_len=2),
        "TemporalAttentionPooling": lambda: layers.TemporalAttentionPooling(HID, activation="softmax"),
    }
    return made[name.split(".")[0]]()


def _layer_inputs(kind: str) -> tuple[Any, ...]:
    import torch

    g = _gen(4)
    if kind == "embeddings":
        return (torch.randn(N, HID, generator=g),)
    if kind == "embeddings_target":
        return torch.randn(N, HID, generator=g), torch.arange(N) % CLASSES
    if kind == "image":
        return (torch.rand(2, 4, 5, 5, generator=g) + 0.1,)
    if kind == "sequence":
        return (torch.randn(2, 5, HID, generator=g),)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]).unsqueeze(-1)
    return torch.randn(2, 5, HID, generator=g), mask


def _layer_model(name: str) -> Built:
    from gt_calls import Keywords

    layer = _layer(name)
    inputs = _layer_inputs(LAYERS[name])
    if LAYERS[name] == "sequence_mask":
        return Keywords(layer, mask=inputs[1]), inputs[:1], {}
    return layer, inputs, {}


def _contrib_model(name: str) -> Built:
    import torch
    from catalyst.contrib import models

    g = _gen(5)
    if name == "MnistSimpleNet":
        return models.MnistSimpleNet(out_features=CLASSES), (torch.randn(2, 1, 28, 28, generator=g),), {}
    if name == "MnistBatchNormNet":
        return models.MnistBatchNormNet(out_features=CLASSES), (torch.randn(2, 1, 28, 28, generator=g),), {}
    encoder = models.ResnetEncoder(arch="resnet18", pretrained=False, frozen=True,
                                   pooling="catalyst.contrib.layers.GlobalAvgPool2d")
    return encoder, (torch.randn(2, 3, 32, 32, generator=g),), {}


# --------------------------------------------------------------------------------------------------------------
# train steps


def _train_model(name: str) -> Built:
    import torch
    from catalyst.contrib import optimizers
    from torch import nn

    from gt_calls import OptimizerStep

    group, _, what = name.partition(".")
    if group == "optimizer":
        net = nn.Sequential(nn.Linear(DIM, HID), nn.Tanh(), nn.Linear(HID, CLASSES))
        params = net.parameters()
        made: dict[str, Any] = {
            "AdamP": lambda: optimizers.AdamP(params, lr=1e-2, weight_decay=1e-2),
            "Lamb": lambda: optimizers.Lamb(params, lr=1e-2, weight_decay=1e-2),
            "Lamb.adam": lambda: optimizers.Lamb(params, lr=1e-2, adam=True),
            "Lookahead": lambda: optimizers.Lookahead(torch.optim.Adam(params, lr=1e-2), k=2),
            "QHAdamW": lambda: optimizers.QHAdamW(params, lr=1e-2, weight_decay=1e-2),
            "RAdam": lambda: optimizers.RAdam(params, lr=1e-2, weight_decay=1e-2),
            "Ralamb": lambda: optimizers.Ralamb(params, lr=1e-2, weight_decay=1e-2),
            "SGDP.nesterov": lambda: optimizers.SGDP(params, lr=1e-2, momentum=0.9, nesterov=True,
                                                     weight_decay=1e-2),
        }
        optimizer = made[what]()
        g = _gen(6)
        grads = tuple(torch.randn(p.shape, generator=g) * 0.1 for p in net.parameters())
        return OptimizerStep(net, optimizer), grads, {}

    # A backward step through a contrib loss or margin head: an SGD step of a small network under it.
    _, _, target = name.partition(".")
    head: Any = None
    if target in ("ArcFace", "CurricularFace"):
        net = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, HID))
        head = _layer(target)
        loss_fn: Any = nn.CrossEntropyLoss()
        x, y = torch.randn(N, DIM, generator=_gen(7)), torch.arange(N) % CLASSES
    elif target in ("DiceLoss", "LovaszLossMultiClass"):
        net = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 3, 1))
        loss_fn = _loss(target)
        x = torch.randn(2, 2, 6, 6, generator=_gen(7))
        y = (torch.randint(0, 3, (2, 6, 6), generator=_gen(8)) if target == "LovaszLossMultiClass"
             else torch.randint(0, 2, (2, 3, 6, 6), generator=_gen(8)).float())
    else:
        out = CLASSES if target == "FocalLossMultiClass" else HID
        net = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, out))
        loss_fn = _loss(target)
        x, y = torch.randn(N, DIM, generator=_gen(7)), torch.arange(N) % CLASSES
    params = list(net.parameters()) + (list(head.parameters()) if head is not None else [])
    optimizer = torch.optim.SGD(params, lr=0.05)

    def loss(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = net(x)
        if head is not None:
            return loss_fn(head(out, y), y)
        if target == "DiceLoss":
            return loss_fn(torch.sigmoid(out), y)
        return loss_fn(out, y)

    class _LossStep(OptimizerStep):
        def entry_points(self) -> list[Any]:
            return [type(head if head is not None else loss_fn), type(optimizer).step]

    module = _LossStep(net, optimizer, loss)
    if head is not None:
        module.head = head
    return module, (x, y), {}


def _compat() -> None:
    """Two names catalyst 22.04 reads from the accelerate it was written for, gone from the installed one: the
    ``DistributedType.TPU`` member (now ``XLA``; read whenever loader metrics are reduced) and
    ``Accelerator.use_fp16`` (now ``mixed_precision``; read by ``AUCCallback``)."""
    from accelerate.utils import DistributedType
    from catalyst.core.engine import Engine

    if not hasattr(DistributedType, "TPU"):
        setattr(DistributedType, "TPU", DistributedType.XLA)
    if not hasattr(Engine, "use_fp16"):
        Engine.use_fp16 = property(lambda self: self.mixed_precision == "fp16")  # type: ignore[attr-defined]


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    _compat()
    if name in STEPS:
        return _step_model(name)
    if name in LOADERS:
        return _loader_model(name)
    if name in RUNNER_CALLS:
        return _runner_call_model(name)
    group, _, rest = name.partition(".")
    if group == "metrics" and rest in METRICS:
        return _metric_model(rest)
    if group == "functional" and rest in FUNCTIONAL:
        return _functional_model(rest)
    if group == "losses" and rest in LOSSES:
        return _loss_model(rest)
    if group == "layers" and rest in LAYERS:
        return _layer_model(rest)
    if group == "models" and rest in MODELS:
        return _contrib_model(rest)
    if name in TRAIN:
        return _train_model(name)
    raise KeyError(name)
