"""Ground-truth bench, torchmetrics: functional metrics and metric modules on small random batches.

Metrics are where input validation lives (``torch.unique`` of the labels, ``if not torch.all(...)``,
``.item()`` of a count), so they are rich in data-dependent breaks. ``FUNCTIONAL`` names functions of
``torchmetrics.functional`` by the kind of input they take (``inputs``) and the fixed keywords they
need (a suffix after the name, as in ``binary_auroc.max_fpr``, names a variant of the options); each is compiled through ``gt_calls.Call``. ``MODULES`` names metric classes, compiled whole
(``Metric.forward`` updates the state and computes the batch's value). The tables are plain data, so
``names()`` needs no torch; ``build(name)`` imports torch and torchmetrics inside a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
MC = {"num_classes": 4}
ML = {"num_labels": 3}

# Function name -> (input kind, fixed keywords).
FUNCTIONAL: dict[str, tuple[str, dict[str, Any]]] = {
    # classification
    "binary_accuracy": ("binary", {}), "multiclass_accuracy": ("multiclass", MC),
    "multilabel_accuracy": ("multilabel", ML), "binary_f1_score": ("binary", {}),
    "multiclass_f1_score": ("multiclass", MC), "binary_fbeta_score": ("binary", {"beta": 2.0}),
    "binary_precision": ("binary", {}), "multiclass_recall": ("multiclass", MC),
    "binary_specificity": ("binary", {}), "binary_stat_scores": ("binary", {}),
    "multiclass_stat_scores": ("multiclass", MC), "multilabel_stat_scores": ("multilabel", ML),
    "binary_auroc": ("binary", {}), "multiclass_auroc": ("multiclass", MC), "multilabel_auroc": ("multilabel", ML),
    "binary_average_precision": ("binary", {}), "multiclass_average_precision": ("multiclass", MC),
    "binary_roc": ("binary", {}), "binary_precision_recall_curve": ("binary", {}),
    "multiclass_precision_recall_curve": ("multiclass", MC),
    "binary_confusion_matrix": ("binary", {}), "multiclass_confusion_matrix": ("multiclass", MC),
    "multilabel_confusion_matrix": ("multilabel", ML),
    "binary_calibration_error": ("binary", {}), "multiclass_calibration_error": ("multiclass", MC),
    "binary_cohen_kappa": ("binary", {}), "multiclass_cohen_kappa": ("multiclass", MC),
    "binary_matthews_corrcoef": ("binary", {}), "multiclass_matthews_corrcoef": ("multiclass", MC),
    "binary_hamming_distance": ("binary", {}), "binary_jaccard_index": ("binary", {}),
    "multiclass_jaccard_index": ("multiclass", MC), "multiclass_exact_match": ("multiclass_multidim", MC),
    "binary_hinge_loss": ("binary", {}), "multiclass_hinge_loss": ("multiclass", MC),
    "binary_recall_at_fixed_precision": ("binary", {"min_precision": 0.5}),
    "binary_specificity_at_sensitivity": ("binary", {"min_sensitivity": 0.5}),
    "multilabel_ranking_average_precision": ("multilabel", ML), "multilabel_coverage_error": ("multilabel", ML),
    "multilabel_ranking_loss": ("multilabel", ML), "binary_logauc": ("binary", {}),
    "binary_negative_predictive_value": ("binary", {}),
    "multilabel_f1_score": ("multilabel", ML), "multiclass_precision": ("multiclass", MC),
    "multilabel_recall": ("multilabel", ML), "multiclass_specificity": ("multiclass", MC),
    "multilabel_hamming_distance": ("multilabel", ML), "multilabel_jaccard_index": ("multilabel", ML),
    "multilabel_exact_match": ("multilabel_int", ML), "multiclass_roc": ("multiclass", MC),
    "multilabel_roc": ("multilabel", ML), "multilabel_precision_recall_curve": ("multilabel", ML),
    "multilabel_average_precision": ("multilabel", ML),
    "multiclass_recall_at_fixed_precision": ("multiclass", {**MC, "min_precision": 0.5}),
    "binary_precision_at_fixed_recall": ("binary", {"min_recall": 0.5}),
    "binary_sensitivity_at_specificity": ("binary", {"min_specificity": 0.5}),
    "multilabel_matthews_corrcoef": ("multilabel", ML), "binary_eer": ("binary", {}),
    "multiclass_calibration_error.l2": ("multiclass", {**MC, "norm": "l2"}),
    "binary_accuracy.ignore_index": ("binary", {"ignore_index": 0}),
    "multiclass_accuracy.top_k": ("multiclass", {**MC, "top_k": 2}),
    "multiclass_f1_score.samplewise": ("multiclass_multidim", {**MC, "multidim_average": "samplewise"}),
    "binary_auroc.max_fpr": ("binary", {"max_fpr": 0.5}),
    "binary_roc.thresholds": ("binary", {"thresholds": 5}),
    "binary_accuracy.no_validation": ("binary", {"validate_args": False}),
    "multiclass_accuracy.no_validation": ("multiclass", {**MC, "validate_args": False}),
    # regression
    "mean_squared_error": ("regression", {}), "mean_absolute_error": ("regression", {}),
    "r2_score": ("regression", {}), "pearson_corrcoef": ("regression", {}), "spearman_corrcoef": ("regression", {}),
    "kendall_rank_corrcoef": ("regression", {}), "explained_variance": ("regression", {}),
    "cosine_similarity": ("matrix", {}), "mean_absolute_percentage_error": ("positive", {}),
    "symmetric_mean_absolute_percentage_error": ("positive", {}),
    "weighted_mean_absolute_percentage_error": ("positive", {}), "mean_squared_log_error": ("positive", {}),
    "tweedie_deviance_score": ("positive", {"power": 1.5}), "kl_divergence": ("distribution", {}),
    "log_cosh_error": ("regression", {}),
    "concordance_corrcoef": ("regression", {}), "relative_squared_error": ("regression", {}),
    "minkowski_distance": ("regression", {"p": 3.0}), "critical_success_index": ("positive", {"threshold": 0.5}),
    "normalized_root_mean_squared_error": ("regression", {}),
    # image
    "peak_signal_noise_ratio": ("image", {}), "structural_similarity_index_measure": ("image", {}),
    "multiscale_structural_similarity_index_measure": ("large_image", {"betas": (0.5, 0.5)}),
    "universal_image_quality_index": ("image", {}), "spectral_angle_mapper": ("image", {}),
    "error_relative_global_dimensionless_synthesis": ("image", {}),
    "relative_average_spectral_error": ("image", {}), "spectral_distortion_index": ("image", {}),
    "root_mean_squared_error_using_sliding_window": ("image", {}), "total_variation": ("single_image", {}),
    "image_gradients": ("single_image", {}), "visual_information_fidelity": ("large_gray", {}),
    "peak_signal_noise_ratio_with_blocked_effect": ("gray", {"data_range": 1.0}),
    # retrieval (one query)
    "retrieval_average_precision": ("retrieval", {}), "retrieval_reciprocal_rank": ("retrieval", {}),
    "retrieval_precision": ("retrieval", {"top_k": 4}), "retrieval_recall": ("retrieval", {"top_k": 4}),
    "retrieval_normalized_dcg": ("retrieval", {}), "retrieval_hit_rate": ("retrieval", {}),
    "retrieval_fall_out": ("retrieval", {}), "retrieval_r_precision": ("retrieval", {}),
    "retrieval_auroc": ("retrieval", {}), "retrieval_precision_recall_curve": ("retrieval", {"max_k": 4}),
    # audio
    "signal_noise_ratio": ("audio", {}), "scale_invariant_signal_noise_ratio": ("audio", {}),
    "scale_invariant_signal_distortion_ratio": ("audio", {}), "signal_distortion_ratio": ("audio", {}),
    "source_aggregated_signal_distortion_ratio": ("audio_sources", {}),
    # pairwise
    "pairwise_cosine_similarity": ("pairwise", {}), "pairwise_euclidean_distance": ("pairwise", {}),
    "pairwise_manhattan_distance": ("pairwise", {}), "pairwise_linear_similarity": ("pairwise", {}),
    "pairwise_minkowski_distance": ("pairwise", {"exponent": 3}),
    # clustering and nominal
    "mutual_info_score": ("labels", {}), "adjusted_rand_score": ("labels", {}), "rand_score": ("labels", {}),
    "normalized_mutual_info_score": ("labels", {}), "adjusted_mutual_info_score": ("labels", {}),
    "fowlkes_mallows_index": ("labels", {}), "homogeneity_score": ("labels", {}),
    "completeness_score": ("labels", {}), "v_measure_score": ("labels", {}),
    "calinski_harabasz_score": ("cluster_data", {}), "davies_bouldin_score": ("cluster_data", {}),
    "dunn_index": ("cluster_data", {}),
    "cramers_v": ("labels", {}), "tschuprows_t": ("labels", {}), "pearsons_contingency_coefficient": ("labels", {}),
    "theils_u": ("labels", {}), "fleiss_kappa": ("counts", {}),
    # text (lists of strings), detection (panoptic segmentations), audio permutations, shapes
    "char_error_rate": ("text", {}), "word_error_rate": ("text", {}), "match_error_rate": ("text", {}),
    "word_information_lost": ("text", {}), "word_information_preserved": ("text", {}),
    "edit_distance": ("text", {}), "extended_edit_distance": ("text", {}), "bleu_score": ("text_refs", {}),
    "sacre_bleu_score": ("text_refs", {}), "chrf_score": ("text_refs", {}), "translation_edit_rate": ("text_refs", {}),
    "perplexity": ("language_model", {}),
    "panoptic_quality": ("panoptic", {"things": {0, 1}, "stuffs": {2}}),
    "modified_panoptic_quality": ("panoptic", {"things": {0, 1}, "stuffs": {2}}),
    "permutation_invariant_training": ("audio_sources", {"metric_func": "signal_noise_ratio",
                                                           "eval_func": "max"}),
    "complex_scale_invariant_signal_noise_ratio": ("complex_audio", {}),
    "procrustes_disparity": ("points", {}),
    # segmentation
    "segmentation.mean_iou": ("segmentation", {"num_classes": 3}),
    "segmentation.generalized_dice_score": ("segmentation", {"num_classes": 3}),
    "segmentation.dice_score": ("segmentation", {"num_classes": 3}),
}

# Metric class -> (input kind, constructor keywords).
MODULES: dict[str, tuple[str, dict[str, Any]]] = {
    "BinaryAccuracy": ("binary", {}), "MulticlassAccuracy": ("multiclass", MC),
    "MulticlassF1Score": ("multiclass", MC), "BinaryAUROC": ("binary", {}),
    "MulticlassConfusionMatrix": ("multiclass", MC), "BinaryCalibrationError": ("binary", {}),
    "MeanSquaredError": ("regression", {}), "PearsonCorrCoef": ("regression", {}), "R2Score": ("regression", {}),
    "SpearmanCorrCoef": ("regression", {}), "PeakSignalNoiseRatio": ("image", {}),
    "StructuralSimilarityIndexMeasure": ("image", {}), "MeanMetric": ("one", {}), "SumMetric": ("one", {}),
    "MaxMetric": ("one", {}), "MinMetric": ("one", {}), "CatMetric": ("one", {}), "RunningMean": ("one", {}),
    "SignalNoiseRatio": ("audio", {}), "MeanAbsoluteError": ("regression", {}),
    "BinaryPrecisionRecallCurve": ("binary", {}), "MultilabelAveragePrecision": ("multilabel", ML),
    "MulticlassAUROC": ("multiclass", MC), "BinaryMatthewsCorrCoef": ("binary", {}),
    "MulticlassCohenKappa": ("multiclass", MC), "MultilabelF1Score": ("multilabel", ML),
    "KendallRankCorrCoef": ("regression", {}), "ExplainedVariance": ("regression", {}),
    "CosineSimilarity": ("matrix", {}), "KLDivergence": ("distribution", {}),
    "MeanAbsolutePercentageError": ("positive", {}), "TweedieDevianceScore": ("positive", {}),
    "ScaleInvariantSignalDistortionRatio": ("audio", {}), "RetrievalMRR": ("retrieval_indexed", {}),
    "RetrievalNormalizedDCG": ("retrieval_indexed", {}), "RetrievalPrecision": ("retrieval_indexed", {"top_k": 2}),
    "wrappers.BootStrapper": ("regression", {"base": "MeanSquaredError", "num_bootstraps": 3}),
    "wrappers.ClasswiseWrapper": ("multiclass", {"base": "MulticlassAccuracy", **MC, "average": None}),
    "wrappers.MinMaxMetric": ("binary", {"base": "BinaryAccuracy"}),
    "wrappers.MultioutputWrapper": ("regression_2d", {"base": "R2Score", "num_outputs": 2}),
    "wrappers.Running": ("one", {"base": "SumMetric", "window": 3}),
    "UniversalImageQualityIndex": ("image", {}), "TotalVariation": ("single_image", {}),
    "MutualInfoScore": ("labels", {}), "CramersV": ("labels", {"num_classes": 3}),
    "MeanIoU": ("segmentation", {"num_classes": 3}),
}


def names() -> list[str]:
    return [f"F.{n}" for n in FUNCTIONAL] + [f"M.{n}" for n in MODULES]


def inputs(kind: str) -> tuple[Any, ...]:
    """Example inputs of one kind: predictions first, then targets (or the data a metric reads)."""
    import torch

    gen = torch.Generator().manual_seed(0)

    def rand(*shape: int) -> torch.Tensor:
        return torch.rand(*shape, generator=gen)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen)

    def randint(high: int, *shape: int) -> torch.Tensor:
        return torch.randint(0, high, shape, generator=gen)

    table = {
        "binary": lambda: (rand(32), randint(2, 32)),
        "multiclass": lambda: (randn(32, 4).softmax(-1), randint(4, 32)),
        "multiclass_multidim": lambda: (randint(4, 8, 5), randint(4, 8, 5)),
        "multilabel": lambda: (rand(32, 3), randint(2, 32, 3)),
        "multilabel_int": lambda: (randint(2, 32, 3), randint(2, 32, 3)),
        "retrieval_indexed": lambda: (rand(12), randint(2, 12), torch.arange(12) // 4),
        "regression": lambda: (randn(32), randn(32)),
        "matrix": lambda: (randn(8, 5), randn(8, 5)),
        "positive": lambda: (rand(32) + 0.1, rand(32) + 0.1),
        "distribution": lambda: (randn(8, 5).softmax(-1), randn(8, 5).softmax(-1)),
        "image": lambda: (rand(2, 3, 32, 32), rand(2, 3, 32, 32)),
        "large_image": lambda: (rand(1, 1, 96, 96), rand(1, 1, 96, 96)),
        "large_gray": lambda: (rand(1, 1, 48, 48), rand(1, 1, 48, 48)),
        "gray": lambda: (rand(2, 1, 32, 32), rand(2, 1, 32, 32)),
        "single_image": lambda: (rand(2, 3, 16, 16),),
        "retrieval": lambda: (rand(12), randint(2, 12)),
        "audio": lambda: (randn(2, 400), randn(2, 400)),
        "audio_sources": lambda: (randn(2, 2, 400), randn(2, 2, 400)),
        "pairwise": lambda: (randn(6, 4), randn(5, 4)),
        "labels": lambda: (randint(3, 30), randint(3, 30)),
        "cluster_data": lambda: (randn(30, 4), randint(3, 30)),
        "counts": lambda: (randint(4, 10, 3),),
        "segmentation": lambda: (randint(3, 2, 16, 16), randint(3, 2, 16, 16)),
        "one": lambda: (randn(16),),
        "regression_2d": lambda: (randn(16, 2), randn(16, 2)),
        "text": lambda: (["the cat sat on the mat", "a quick brown fox"], ["the cat sat on a mat", "quick brown fox"]),
        "text_refs": lambda: (["the cat sat on the mat", "a quick brown fox"],
                              [["the cat sat on a mat"], ["a quick brown dog", "the quick brown fox"]]),
        "language_model": lambda: (randn(2, 6, 10), randint(10, 2, 6)),
        "panoptic": lambda: (torch.stack([randint(3, 2, 8, 8), randint(2, 2, 8, 8)], -1),
                             torch.stack([randint(3, 2, 8, 8), randint(2, 2, 8, 8)], -1)),
        "complex_audio": lambda: (randn(2, 9, 20, 2), randn(2, 9, 20, 2)),
        "points": lambda: (randn(2, 6, 3), randn(2, 6, 3)),
    }
    return table[kind]()


AREAS = ("", ".classification", ".regression", ".image", ".retrieval", ".audio", ".pairwise", ".clustering",
         ".nominal", ".segmentation", ".aggregation", ".wrappers", ".text", ".detection", ".shape")


def find(package: str, name: str) -> Any:
    """``name`` from ``package`` or the first of its areas (``AREAS``) that has it."""
    import importlib

    if "." in name:  # a module path given, as in ``segmentation.mean_iou`` or ``wrappers.Running``
        area, name = name.rsplit(".", 1)
        return getattr(importlib.import_module(f"{package}.{area}"), name)
    for area in AREAS:
        try:
            module = importlib.import_module(package + area)
        except ModuleNotFoundError:
            continue
        if callable(found := getattr(module, name, None)):
            return found
    raise AttributeError(f"no {name} in {package}")


def build(name: str) -> Built:
    from gt_calls import Call

    group, rest = name.split(".", 1)
    model: Any
    if group == "F":
        kind, static = FUNCTIONAL[rest]
        if isinstance(static.get("metric_func"), str):  # a metric given by name, as the table is plain data
            static = {**static, "metric_func": find("torchmetrics.functional", static["metric_func"])}
        model = Call(find("torchmetrics.functional", rest.split(".")[0] if "." in rest and not
                          rest.startswith("segmentation.") else rest), **static)
    else:
        kind, keywords = MODULES[rest]
        if rest.startswith("wrappers."):  # a wrapper around a metric of the same kind
            keywords = dict(keywords)
            inner = {k: keywords.pop(k) for k in ("num_classes", "average") if k in keywords}
            base = find("torchmetrics", keywords.pop("base"))(**inner)
            model = find("torchmetrics", rest)(base, **keywords)
        else:
            model = find("torchmetrics", rest)(**keywords)
    # One eager call first, as a program would have made: torchmetrics settles its lazy requirement
    # checks (``RequirementCache``, which reads package metadata) on first use, which Dynamo cannot trace.
    model(*inputs(kind))
    if group == "M":
        model.reset()
    return model, inputs(kind), {}
