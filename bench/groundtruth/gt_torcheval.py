"""Ground-truth bench, torcheval: Meta's metrics for PyTorch, functional and stateful, on small random batches.

torcheval (0.0.7) keeps two faces of each metric: a function of ``torcheval.metrics.functional`` that
checks its inputs and computes at once, and a ``Metric`` class (not an ``nn.Module``) whose ``update``
accumulates state tensors, ``compute`` reads them and ``merge_state`` folds in other ranks' states.
``FUNCTIONAL`` names functions by the kind of input they take (``inputs``) and their fixed keywords (a
suffix after the name, as in ``multiclass_accuracy.macro``, names a variant of the options: average,
num_classes, threshold, k, criteria, normalize, binned thresholds); each is compiled through
``gt_calls.Call``. ``CLASSES`` names metric classes and their constructor keywords; ``M.`` compiles
two ``update`` calls and a ``compute`` as a user's evaluation loop makes them, and ``S.`` two metrics'
updates, ``merge_state`` and ``compute``, through ``gt_calls.Run``. ``TRAIN`` computes a differentiable
metric (mean squared error, normalized entropy from logits, perplexity) on a small linear layer's output,
as a training step's loss. The tables are plain data, so ``names()`` needs no torch; ``build(name)``
imports torch and torcheval inside a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
MC = {"num_classes": 4}

# Function name (a suffix names a variant) -> (input kind, fixed keywords).
FUNCTIONAL: dict[str, tuple[str, dict[str, Any]]] = {
    # classification
    "binary_accuracy": ("binary", {}),
    "multiclass_accuracy": ("multiclass", MC), "multiclass_accuracy.macro": ("multiclass", {**MC, "average": "macro"}),
    "multiclass_accuracy.k": ("multiclass", {**MC, "k": 2}), "multiclass_accuracy.labels": ("labels", MC),
    "multilabel_accuracy": ("multilabel", {}), "multilabel_accuracy.hamming": ("multilabel", {"criteria": "hamming"}),
    "topk_multilabel_accuracy": ("multilabel", {"k": 2}),
    "topk_multilabel_accuracy.belong": ("multilabel", {"k": 2, "criteria": "belong"}),
    "binary_f1_score": ("binary", {}),
    "multiclass_precision.macro": ("multiclass", {**MC, "average": "macro"}),
    "multiclass_recall.weighted": ("multiclass", {**MC, "average": "weighted"}),
    "multiclass_f1_score": ("multiclass", MC),
    "binary_confusion_matrix": ("binary", {}),
    "multiclass_confusion_matrix": ("multiclass", MC),
    "multiclass_confusion_matrix.normalize": ("multiclass", {**MC, "normalize": "true"}),
    "binary_auroc": ("binary", {}), "binary_auroc.tasks": ("binary_tasks", {"num_tasks": 2}),
    "multiclass_auroc": ("multiclass", MC),
    "binary_auprc": ("binary", {}), "multiclass_auprc": ("multiclass", MC),
    "multilabel_auprc": ("multilabel", {"num_labels": 3}),
    "binary_binned_auroc": ("binary", {"threshold": 5}),
    "binary_binned_auprc": ("binary", {"threshold": 5}),
    "multiclass_binned_auprc": ("multiclass", {**MC, "threshold": 5}),
    "multiclass_binned_auprc.memory": ("multiclass", {**MC, "threshold": 5, "optimization": "memory"}),
    "multilabel_binned_auprc": ("multilabel", {"num_labels": 3, "threshold": 5}),
    "binary_binned_precision_recall_curve": ("binary", {"threshold": 5}),
    "binary_precision_recall_curve": ("binary", {}), "multiclass_precision_recall_curve": ("multiclass", MC),
    "binary_recall_at_fixed_precision": ("binary", {"min_precision": 0.5}),
    "multilabel_recall_at_fixed_precision": ("multilabel", {"num_labels": 3, "min_precision": 0.5}),
    "binary_normalized_entropy": ("probabilities", {}),
    "binary_normalized_entropy.logits": ("logits", {"from_logits": True}),
    # regression
    "mean_squared_error": ("regression", {}),
    "mean_squared_error.raw": ("regression_2d", {"multioutput": "raw_values"}),
    "r2_score": ("regression", {}),
    # ranking
    "hit_rate": ("scores", {"k": 2}), "reciprocal_rank": ("scores", {}), "retrieval_precision": ("binary", {"k": 3}),
    "click_through_rate": ("clicks", {}),
    "weighted_calibration": ("binary", {}), "num_collisions": ("ids", {}),
    "frequency_at_k": ("one_positive", {"k": 0.5}),
    # aggregation
    "mean": ("one", {}), "sum": ("one", {}),
    "throughput": ("none", {"num_processed": 64, "elapsed_time_sec": 2.0}), "auc": ("curve", {}),
    "auc.reorder": ("unsorted_curve", {"reorder": True}),
    # text and image
    "perplexity": ("language_model", {}),
    "word_error_rate": ("text", {}), "word_information_lost": ("text", {}),
    "bleu_score": ("text_refs", {"n_gram": 2}), "peak_signal_noise_ratio": ("image", {}),
}

# Metric class -> (input kind, constructor keywords).
CLASSES: dict[str, tuple[str, dict[str, Any]]] = {
    "BinaryAccuracy": ("binary", {}), "MulticlassAccuracy": ("multiclass", MC),
    "MultilabelAccuracy": ("multilabel", {"criteria": "hamming"}),
    "MulticlassF1Score": ("multiclass", {**MC, "average": "macro"}),
    "MulticlassRecall": ("multiclass", {**MC, "average": None}), "MulticlassConfusionMatrix": ("multiclass", MC),
    "BinaryAUROC": ("binary", {}), "MulticlassAUROC": ("multiclass", MC),
    "BinaryBinnedAUROC": ("binary", {"threshold": 5}),
    "MulticlassBinnedAUPRC": ("multiclass", {**MC, "threshold": 5}),
    "MultilabelRecallAtFixedPrecision": ("multilabel", {"num_labels": 3, "min_precision": 0.5}),
    "BinaryNormalizedEntropy": ("probabilities", {}), "MeanSquaredError": ("regression", {}),
    "R2Score": ("regression", {}),
    "HitRate": ("scores", {"k": 2}), "RetrievalPrecision": ("binary", {"k": 3}),
    "ClickThroughRate": ("clicks", {}), "WeightedCalibration": ("binary", {}), "Mean": ("one", {}),
    "Cat": ("one", {}), "AUC": ("curve", {}),
    "Throughput": ("counts", {}), "Perplexity": ("language_model", {}),
    "BLEUScore": ("text_refs", {"n_gram": 2}),
    "WindowedBinaryAUROC": ("binary", {"max_num_samples": 24}),
    "WindowedMeanSquaredError": ("regression", {"max_num_updates": 2}),
    "WindowedBinaryNormalizedEntropy": ("probabilities", {"max_num_updates": 2}),
}

# Metric classes whose ``merge_state`` is compiled (``S.``), with ``CLASSES``' inputs and keywords.
MERGED = ("BinaryAccuracy", "MulticlassAUROC", "Mean", "BinaryBinnedAUROC")

# Training losses: a linear layer's output scored by a differentiable metric.
TRAIN = ("mean_squared_error", "binary_normalized_entropy", "perplexity")


def names() -> list[str]:
    return ([f"F.{n}" for n in FUNCTIONAL] + [f"M.{n}" for n in CLASSES] + [f"S.{n}" for n in MERGED]
            + [f"T.{n}" for n in TRAIN])


def inputs(kind: str, seed: int = 0) -> tuple[Any, ...]:
    """Example inputs of one kind: predictions first, then targets (or the data a metric reads)."""
    import torch

    gen = torch.Generator().manual_seed(seed)

    def rand(*shape: int) -> torch.Tensor:
        return torch.rand(*shape, generator=gen)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen)

    def randint(high: int, *shape: int) -> torch.Tensor:
        return torch.randint(0, high, shape, generator=gen)

    table = {
        "binary": lambda: (rand(16), randint(2, 16)),
        "binary_tasks": lambda: (rand(2, 16), randint(2, 2, 16)),
        "probabilities": lambda: (rand(16), randint(2, 16).float()),
        "logits": lambda: (randn(16), randint(2, 16).float()),
        "multiclass": lambda: (randn(16, 4).softmax(-1), randint(4, 16)),
        "labels": lambda: (randint(4, 16), randint(4, 16)),
        "multilabel": lambda: (rand(16, 3), randint(2, 16, 3)),
        "regression": lambda: (randn(16), randn(16)),
        "regression_2d": lambda: (randn(16, 2), randn(16, 2)),
        "scores": lambda: (randn(8, 5), randint(5, 8)),
        "clicks": lambda: (randint(2, 16).float(),),
        "clicks_tasks": lambda: (randint(2, 2, 16).float(),),
        "ids": lambda: (randint(6, 12),),
        "one": lambda: (randn(16),),
        "one_positive": lambda: (rand(12),),
        "weighted": lambda: (randn(16), rand(16)),
        "none": lambda: (),
        "counts": lambda: (64, 2.0),
        "curve": lambda: (torch.linspace(0, 1, 10), rand(10)),
        "unsorted_curve": lambda: (rand(10), rand(10)),
        "language_model": lambda: (randn(2, 5, 7), randint(7, 2, 5)),
        "text": lambda: (["the cat sat on the mat", "a quick brown fox"], ["the cat sat on a mat", "quick brown fox"]),
        "text_refs": lambda: (["the cat sat on the mat", "a quick brown fox"],
                              [["the cat sat on a mat"], ["a quick brown dog", "the quick brown fox"]]),
        "image": lambda: (rand(2, 3, 8, 8), rand(2, 3, 8, 8)),
    }
    return table[kind]()


def _loop(metric: Any, *batch: Any) -> Any:
    """An evaluation loop's two steps and its end: update on the batch, update again, compute."""
    metric.update(*batch)
    metric.update(*batch)
    return metric.compute()


def _merge(pair: list[Any], *batch: Any) -> Any:
    """Two ranks' metrics updated, the second merged into the first, then computed."""
    pair[0].update(*batch)
    pair[1].update(*batch)
    pair[0].merge_state([pair[1]])
    return pair[0].compute()


def _train(name: str) -> Built:
    import torch
    from torch import nn

    import torcheval.metrics.functional as F
    from gt_calls import Run

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(16, 6, generator=gen)
    if name == "perplexity":
        net = nn.Linear(6, 7)
        x = torch.randn(2, 5, 6, generator=gen)
        return Run(net, lambda n, a, t: F.perplexity(n(a), t), [F.perplexity]), \
            (x, torch.randint(0, 7, (2, 5), generator=gen)), {}
    net = nn.Linear(6, 1)
    if name == "binary_normalized_entropy":
        target = torch.randint(0, 2, (16,), generator=gen).float()
        return Run(net, lambda n, a, t: F.binary_normalized_entropy(n(a).squeeze(-1), t, from_logits=True),
                   [F.binary_normalized_entropy]), (x, target), {}
    function = getattr(F, name)
    return Run(net, lambda n, a, t: function(n(a).squeeze(-1), t), [function]), \
        (x, torch.randn(16, generator=gen)), {}


def build(name: str) -> Built:
    import gt_models

    gt_models.allow_torchvision_import()
    import torcheval.metrics as metrics
    import torcheval.metrics.functional as F
    from gt_calls import Call, Run

    group, rest = name.split(".", 1)
    if group == "F":
        kind, static = FUNCTIONAL[rest]
        return Call(getattr(F, rest.split(".")[0]), **static), inputs(kind), {}
    if group == "T":
        return _train(rest)
    kind, keywords = CLASSES[rest]
    cls = getattr(metrics, rest)
    entries = [cls.update, cls.compute]
    if group == "M":
        return Run(cls(**keywords), _loop, entries), inputs(kind), {}
    return Run([cls(**keywords), cls(**keywords)], _merge, [*entries, cls.merge_state]), inputs(kind), {}
