"""Ground-truth bench, pytorch-metric-learning: its losses, miners, reducers, regularizers and distances.

What users compile is the loss of a training step: ``loss_func(embeddings, labels)``, often after a
miner (``indices = miner(embeddings, labels); loss_func(embeddings, labels, indices)``). So:

- ``LOSSES``: each loss of ``pytorch_metric_learning.losses``, compiled whole (a library module), at
  its defaults or small arguments, plus variants with another distance, reducer or regularizer and the
  wrappers (``CrossBatchMemory``, ``MultipleLosses``, ``SelfSupervisedLoss``);
- ``MINERS``: each miner of ``miners`` under ``Mined`` (bench code: the miner, then the loss it is
  usually paired with; its entry points name both classes);
- ``DISTANCES``: each distance of ``distances`` on a query and a reference batch;
- ``UTILS``: the index helpers of ``utils.loss_and_miner_utils`` that custom losses call, through
  ``gt_calls.Call``.

The inputs are 12 embeddings of size 8 with labels ``0 0 0 1 1 1 2 2 2 3 3 3`` (every class has
positives, and every class the same count, as SmoothAP requires). Components inside the tables are
plain data, ``("area.Class", {keywords})``, so ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, DIM, CLASSES = 12, 8, 4
CLS = {"num_classes": CLASSES, "embedding_size": DIM}  # the classification losses' own weights


def c(path: str, **keywords: Any) -> tuple[str, dict[str, Any]]:
    """A component as plain data: ``area.Class`` of ``pytorch_metric_learning`` and its keywords."""
    return (path, keywords)


# Model name -> (loss component, input kind). The name is the class, then a variant after a dot.
# Input kinds: "labeled" (embeddings, labels), "ref" (embeddings, ref_emb), "ref_kw" (embeddings,
# ref_emb=...), "unlabeled" (embeddings).
LOSSES: dict[str, tuple[tuple[str, dict[str, Any]], str]] = {
    # pair and triplet losses on labels
    "AngularLoss": (c("losses.AngularLoss"), "labeled"),
    "CircleLoss": (c("losses.CircleLoss"), "labeled"),
    "ContrastiveLoss": (c("losses.ContrastiveLoss"), "labeled"),
    "DynamicSoftMarginLoss": (c("losses.DynamicSoftMarginLoss"), "labeled"),
    "FastAPLoss": (c("losses.FastAPLoss"), "labeled"),
    "GeneralizedLiftedStructureLoss": (c("losses.GeneralizedLiftedStructureLoss"), "labeled"),
    "HistogramLoss": (c("losses.HistogramLoss", n_bins=10), "labeled"),
    "InstanceLoss": (c("losses.InstanceLoss"), "labeled"),
    "IntraPairVarianceLoss": (c("losses.IntraPairVarianceLoss"), "labeled"),
    "LiftedStructureLoss": (c("losses.LiftedStructureLoss"), "labeled"),
    "MarginLoss": (c("losses.MarginLoss"), "labeled"),
    "MultiSimilarityLoss": (c("losses.MultiSimilarityLoss"), "labeled"),
    "NCALoss": (c("losses.NCALoss"), "labeled"),
    "NPairsLoss": (c("losses.NPairsLoss"), "labeled"),
    "NTXentLoss": (c("losses.NTXentLoss"), "labeled"),
    "PNPLoss": (c("losses.PNPLoss"), "labeled"),
    "RankedListLoss": (c("losses.RankedListLoss", margin=0.4, Tn=10), "labeled"),
    "SignalToNoiseRatioContrastiveLoss": (c("losses.SignalToNoiseRatioContrastiveLoss"), "labeled"),
    "SmoothAPLoss": (c("losses.SmoothAPLoss"), "labeled"),
    "SupConLoss": (c("losses.SupConLoss"), "labeled"),
    "ThresholdConsistentMarginLoss": (c("losses.ThresholdConsistentMarginLoss"), "labeled"),
    "TripletMarginLoss": (c("losses.TripletMarginLoss"), "labeled"),
    "TupletMarginLoss": (c("losses.TupletMarginLoss"), "labeled"),
    # classification losses (a weight matrix or proxies per class)
    "ArcFaceLoss": (c("losses.ArcFaceLoss", **CLS), "labeled"),
    "CosFaceLoss": (c("losses.CosFaceLoss", **CLS), "labeled"),
    "LargeMarginSoftmaxLoss": (c("losses.LargeMarginSoftmaxLoss", **CLS), "labeled"),
    "NormalizedSoftmaxLoss": (c("losses.NormalizedSoftmaxLoss", **CLS), "labeled"),
    "ProxyAnchorLoss": (c("losses.ProxyAnchorLoss", **CLS), "labeled"),
    "ProxyNCALoss": (c("losses.ProxyNCALoss", **CLS), "labeled"),
    "SoftTripleLoss": (c("losses.SoftTripleLoss", **CLS, centers_per_class=3), "labeled"),
    "SphereFaceLoss": (c("losses.SphereFaceLoss", **CLS), "labeled"),
    "SubCenterArcFaceLoss": (c("losses.SubCenterArcFaceLoss", **CLS), "labeled"),
    "P2SGradLoss": (c("losses.P2SGradLoss", descriptors_dim=DIM, num_classes=CLASSES), "labeled"),
    # losses without labels
    "ManifoldLoss": (c("losses.ManifoldLoss", l=DIM, K=6), "unlabeled"),
    "VICRegLoss": (c("losses.VICRegLoss"), "ref_kw"),
    # options that change the code path
    "ContrastiveLoss.cosine": (c("losses.ContrastiveLoss", pos_margin=1, neg_margin=0,
                                 distance=c("distances.CosineSimilarity")), "labeled"),
    "TripletMarginLoss.cosine": (c("losses.TripletMarginLoss", distance=c("distances.CosineSimilarity")), "labeled"),
    "TripletMarginLoss.smooth_swap": (c("losses.TripletMarginLoss", smooth_loss=True, swap=True), "labeled"),
    "TripletMarginLoss.per_anchor": (c("losses.TripletMarginLoss", triplets_per_anchor=2), "labeled"),
    "MarginLoss.learn_beta": (c("losses.MarginLoss", learn_beta=True, num_classes=CLASSES), "labeled"),
    "NTXentLoss.snr": (c("losses.NTXentLoss", distance=c("distances.SNRDistance")), "labeled"),
    "ProxyAnchorLoss.lp": (c("losses.ProxyAnchorLoss", **CLS, distance=c("distances.LpDistance")), "labeled"),
    # reducers
    "ContrastiveLoss.ThresholdReducer": (c("losses.ContrastiveLoss", reducer=c("reducers.ThresholdReducer",
                                                                               low=0.1)), "labeled"),
    "ContrastiveLoss.MultipleReducers": (c("losses.ContrastiveLoss", reducer=c(
        "reducers.MultipleReducers", reducers={"pos_loss": c("reducers.MeanReducer"),
                                               "neg_loss": c("reducers.AvgNonZeroReducer")})), "labeled"),
    "ContrastiveLoss.PerAnchorReducer": (c("losses.ContrastiveLoss", reducer=c("reducers.PerAnchorReducer")),
                                         "labeled"),
    "TripletMarginLoss.ClassWeightedReducer": (c("losses.TripletMarginLoss", reducer=c(
        "reducers.ClassWeightedReducer", weights={"tensor": [1.0, 2.0, 1.0, 0.5]})), "labeled"),
    "ArcFaceLoss.DoNothingReducer": (c("losses.ArcFaceLoss", **CLS, reducer=c("reducers.DoNothingReducer")),
                                     "labeled"),
    # regularizers: of the embeddings, or of a classification loss's weights
    "ContrastiveLoss.LpRegularizer": (c("losses.ContrastiveLoss", embedding_regularizer=c(
        "regularizers.LpRegularizer")), "labeled"),
    "ArcFaceLoss.RegularFaceRegularizer": (c("losses.ArcFaceLoss", **CLS, weight_regularizer=c(
        "regularizers.RegularFaceRegularizer")), "labeled"),
    "NormalizedSoftmaxLoss.CenterInvariantRegularizer": (c("losses.NormalizedSoftmaxLoss", **CLS,
                                                           weight_regularizer=c(
                                                               "regularizers.CenterInvariantRegularizer")), "labeled"),
    "CosFaceLoss.ZeroMeanRegularizer": (c("losses.CosFaceLoss", **CLS, weight_regularizer=c(
        "regularizers.ZeroMeanRegularizer")), "labeled"),
    "SoftTripleLoss.SparseCentersRegularizer": (c("losses.SoftTripleLoss", **CLS, centers_per_class=3,
                                                  weight_regularizer=c("regularizers.SparseCentersRegularizer",
                                                                       num_classes=CLASSES, centers_per_class=3)),
                                                "labeled"),
    # wrappers around other losses
    "CrossBatchMemory": (c("losses.CrossBatchMemory", loss=c("losses.ContrastiveLoss"), embedding_size=DIM,
                           memory_size=32), "labeled"),
    "CrossBatchMemory.miner": (c("losses.CrossBatchMemory", loss=c("losses.NTXentLoss"), embedding_size=DIM,
                                 memory_size=32, miner=c("miners.MultiSimilarityMiner")), "labeled"),
    "MultipleLosses": (c("losses.MultipleLosses", losses=[c("losses.TripletMarginLoss"),
                                                          c("losses.MultiSimilarityLoss")], weights=[1.0, 0.5]),
                       "labeled"),
    "MultipleLosses.miners": (c("losses.MultipleLosses", losses=[c("losses.TripletMarginLoss"),
                                                                 c("losses.ContrastiveLoss")],
                                miners=[c("miners.TripletMarginMiner"), c("miners.PairMarginMiner")]), "labeled"),
    "SelfSupervisedLoss.TripletMarginLoss": (c("losses.SelfSupervisedLoss", loss=c("losses.TripletMarginLoss")),
                                             "ref"),
    "SelfSupervisedLoss.NTXentLoss": (c("losses.SelfSupervisedLoss", loss=c("losses.NTXentLoss")), "ref"),
}

# Miner -> (its keywords, the loss it is paired with under ``Mined``).
MINERS: dict[str, tuple[dict[str, Any], tuple[str, dict[str, Any]]]] = {
    "AngularMiner": ({}, c("losses.AngularLoss")),
    "BatchEasyHardMiner": ({}, c("losses.TripletMarginLoss")),
    "BatchHardMiner": ({}, c("losses.TripletMarginLoss")),
    "DistanceWeightedMiner": ({}, c("losses.MarginLoss")),
    "EmbeddingsAlreadyPackagedAsTriplets": ({}, c("losses.TripletMarginLoss")),
    "HDCMiner": ({}, c("losses.ContrastiveLoss")),
    "MultiSimilarityMiner": ({}, c("losses.MultiSimilarityLoss")),
    "PairMarginMiner": ({}, c("losses.ContrastiveLoss")),
    "TripletMarginMiner": ({"type_of_triplets": "semihard"}, c("losses.TripletMarginLoss")),
    "UniformHistogramMiner": ({"num_bins": 10, "pos_per_bin": 2, "neg_per_bin": 2}, c("losses.ContrastiveLoss")),
}

# Distance model -> its component; ``BatchedDistance`` walks the query in blocks (see ``_TopK``).
DISTANCES: dict[str, tuple[str, dict[str, Any]]] = {
    "LpDistance": c("distances.LpDistance"),
    "CosineSimilarity": c("distances.CosineSimilarity"),
    "DotProductSimilarity": c("distances.DotProductSimilarity"),
    "SNRDistance": c("distances.SNRDistance"),
    "BatchedDistance": c("distances.BatchedDistance", distance=c("distances.CosineSimilarity"), batch_size=5),
}

# Functions of ``utils.loss_and_miner_utils`` -> the arguments they take ("labels", "pairs").
UTILS: dict[str, str] = {
    "get_all_pairs_indices": "labels", "get_all_triplets_indices": "labels",
    "get_random_triplet_indices": "labels", "convert_to_triplets": "pairs",
}


def names() -> list[str]:
    return ([f"loss.{n}" for n in LOSSES] + [f"mined.{n}" for n in MINERS]
            + [f"distance.{n}" for n in DISTANCES] + [f"utils.{n}" for n in UTILS])


def make(spec: Any) -> Any:
    """The object a table's plain data describes: components, lists and dicts of them, tensors."""
    import importlib

    import torch

    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        area, name = spec[0].split(".")
        cls = getattr(importlib.import_module(f"pytorch_metric_learning.{area}"), name)
        return cls(**{k: make(v) for k, v in spec[1].items()})
    if isinstance(spec, list):
        return [make(s) for s in spec]
    if isinstance(spec, dict):
        return torch.tensor(spec["tensor"]) if set(spec) == {"tensor"} else {k: make(v) for k, v in spec.items()}
    return spec


def inputs() -> tuple[Any, Any, Any]:
    """Embeddings, labels with repeats (three per class, sorted), and a second view of the embeddings."""
    import torch

    gen = torch.Generator().manual_seed(0)
    embeddings = torch.randn(BATCH, DIM, generator=gen)
    labels = torch.arange(CLASSES).repeat_interleave(BATCH // CLASSES)
    return embeddings, labels, embeddings + 0.1 * torch.randn(BATCH, DIM, generator=gen)


def build(name: str) -> Built:
    import torch
    from gt_calls import Call
    from torch import nn

    group, rest = name.split(".", 1)
    embeddings, labels, view = inputs()
    if group == "loss":
        spec, kind = LOSSES[rest]
        arguments = {"labeled": ((embeddings, labels), {}), "ref": ((embeddings, view), {}),
                     "ref_kw": ((embeddings,), {"ref_emb": view}), "unlabeled": ((embeddings,), {})}[kind]
        return make(spec), *arguments
    if group == "mined":
        keywords, loss_spec = MINERS[rest]
        miner = make(c(f"miners.{rest}", **keywords))

        class Mined(nn.Module):
            """The usual training step's loss: mine the batch, then the loss on the mined tuples."""

            def __init__(self) -> None:
                super().__init__()
                self.miner, self.loss = miner, make(loss_spec)

            def forward(self, embeddings: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
                return self.loss(embeddings, labels, self.miner(embeddings, labels))

            def entry_points(self) -> list[Any]:
                return [type(self.miner), type(self.loss)]

        return Mined(), (embeddings, labels), {}
    if group == "distance":
        distance = make(DISTANCES[rest])
        if rest != "BatchedDistance":
            return distance, (embeddings, view), {}

        class TopK(nn.Module):
            """The nearest reference of each query, found block by block as ``BatchedDistance``'s
            ``iter_fn`` is meant for (a retrieval step over a large reference set)."""

            def __init__(self) -> None:
                super().__init__()
                self.distance = distance
                self.register_buffer("nearest", torch.zeros(BATCH, dtype=torch.long))
                distance.iter_fn = self.collect

            def collect(self, mat: torch.Tensor, s: int, e: int) -> None:
                self.nearest[s:e] = mat.argmax(dim=1)

            def forward(self, query: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
                self.distance(query, ref)
                return self.nearest.clone()

            def entry_points(self) -> list[Any]:
                return [type(self.distance)]

        return TopK(), (embeddings, view), {}
    # utils: the index helpers on labels, or on the all-pairs tuple of the labels
    from pytorch_metric_learning.utils import loss_and_miner_utils as lmu

    function = getattr(lmu, rest)
    if UTILS[rest] == "labels":
        return Call(function), (labels,), {}
    pairs = lmu.get_all_pairs_indices(labels)
    return Call(function), (pairs, labels), {}
