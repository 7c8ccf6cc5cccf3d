"""Ground-truth bench, torch_uncertainty (torch-uncertainty): uncertainty-aware networks, wrappers, losses and metrics.

torch-uncertainty gathers the methods of uncertainty quantification for deep networks around a Lightning
routine (left out here: the bench compiles what the routines call). Its code paths users compile are:

- ``NETS``: the backbones of ``torch_uncertainty.models`` at tiny widths, each family in its ensemble
  flavours: ``resnet`` (basic and bottleneck blocks, ImageNet and CIFAR stems, dropout, group norm),
  ``packed_resnet`` (Packed-Ensembles, two ``gamma``s and both linear implementations), ``batched_resnet``
  (BatchEnsemble, ``paper`` and ``legacy`` repeats), ``masked_resnet`` (Masksembles), ``mimo_resnet``,
  ``lpbnn_resnet``; the five ``wideresnet28x10`` flavours (std, packed, batched, masked, MIMO) on a
  CIFAR stem; ``vgg`` and ``packed_vgg``; the four LeNets (std, packed, BatchEnsemble, Bayesian);
  ``inception_time`` for series (std, batched, MIMO, packed, Bayesian); the MLPs (point-wise and with
  each distribution head: normal, Laplace, Cauchy, Student, normal-inverse-gamma; packed, batched,
  Bayesian, MIMO); the small U-Nets (std, bilinear, packed, batched, masked, MIMO), SegFormer, DeepLab
  v3+ and BTS (depth, with a distribution head), without pretrained backbones. Each is compiled as
  called, in eval (ensemble outputs) and in train mode;
- ``WRAPPERS``: ``torch_uncertainty.methods`` around small core nets: ``deep_ensembles``
  (classification, probabilistic regression, ``store_on_cpu``), ``mc_dropout`` (on the batch, in a loop,
  last layer, probabilistic regression), ``BatchEnsemble`` (converted layers, repeated training
  inputs), ``StochasticModel`` (forward, ``sample``, ``freeze``), ``EMA`` / ``SWA`` / ``SWAG`` /
  ``CheckpointCollector`` (their ``update_wrapper`` then the forward, as the routine's epoch hook and
  evaluation run them) and ``Zero`` (test-time-augmentation voting);
- ``LAYERS``: the ``Packed*`` layers (linear with both implementations, first / last, conv 1-3d,
  transposed conv, layer norm, multi-head attention with and without ``batch_first`` / other key
  widths, transformer encoder and decoder layers in post- and pre-norm), the BatchEnsemble layers, the
  Bayesian layers (linear, conv 1-3d, frozen, ``sample``), LPBNN, Masksembles, the distribution heads
  (linear and conv), ``ChannelLayerNorm``, ``FilterResponseNorm``, ``BatchNormAdapter2d`` and
  ``MCBatchNorm2d``;
- ``LOSSES``: ``ELBOLoss`` (point-wise and with a distribution head), ``KLDiv``, ``BetaNLL``,
  ``DERLoss``, ``DistributionNLLLoss`` (with an ignore mask), ``PinballLoss``, ``DECLoss`` (log, mse,
  digamma, annealed, regularised), ``FocalLoss``, ``ConflictualLoss``, ``ConfidencePenaltyLoss``,
  ``CrossEntropyMaxSupLoss``, ``BCEWithLogitsLSLoss``, ``MixupMPLoss``; and train steps (a forward and
  its loss) of a Packed ResNet, a Bayesian MLP under the ELBO and a deep-evidential regression MLP;
- ``POST``: post-processing fitted eagerly on random calibration logits, then compiled at prediction:
  temperature / vector / matrix / Dirichlet scaling, histogram binning, isotonic regression, BBQ, the
  conformal predictors (THR, APS, RAPS, CQR), ``MCBatchNorm`` and ``DEUP``; the OOD criteria;
- ``METRICS``: the metrics' ``update`` then ``compute`` (calibration errors, AURC / AUGRC and their
  coverage / risk variants, SCOD, FPR95, Brier, NLL, disagreement, entropy, mutual information,
  variation ratio, set size, coverage rate, grouping loss, regression and depth metrics, interval
  metrics, quantile calibration, segmentation metrics, AUSE);
- ``TRANSFORMS``: the mixups (Mixup, MixupIO, RegMixup, MixupMP, kernel warping), Cutout, the batch
  formats of MIMO / repeated targets, a few tensor corruptions; and the ``SGLD`` / ``SGHMC`` steps.

Laplace (it runs laplace-torch), anything needing a dataset, a download or the Lightning trainer is left
out. Batch 2, four classes, two or four estimators, random weights. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, CLASSES, EST, DIM = 2, 4, 2, 8
PACK = {"num_estimators": EST, "alpha": 2, "gamma": 1}

# Backbone name -> (factory in ``torch_uncertainty.models``, keywords, input kind). Inputs: "img" (2, 3, 32, 32), "img4"
# (4, 3, 32, 32: MIMO splits the training batch between its estimators, and batch norm needs two per split),
# "small" (2, 3, 16, 16), "mnist" (2, 1, 28, 28), "series" (2, 3, 32), "vec" (2, 8), "seg" (2, 3, 32, 32).
RES = {"in_channels": 3, "num_classes": CLASSES, "width_multiplier": 0.125}
WRN = {"in_channels": 3, "num_classes": CLASSES, "style": "cifar", "dropout_rate": 0.0}
LENET = {"in_channels": 1, "num_classes": CLASSES}
INCEPTION = {"in_channels": 3, "num_classes": CLASSES, "kernel_size": 8, "embed_dim": 8, "num_blocks": 3}
MLP = {"in_features": DIM, "num_outputs": 2, "hidden_dims": [16, 16]}
UNET = {"in_channels": 3, "num_classes": CLASSES}
NETS: dict[str, tuple[str, dict[str, Any], str]] = {
    "resnet.18": ("resnet", {**RES, "arch": 18}, "img"),
    "resnet.50.cifar": ("resnet", {**RES, "arch": 50, "style": "cifar"}, "small"),
    "resnet.18.dropout.groupnorm": ("resnet", {**RES, "arch": 18, "dropout_rate": 0.2, "normalization_layer": "gn"},
                                    "img"),
    "packed_resnet.18": ("packed_resnet", {**RES, **PACK, "arch": 18}, "img"),
    "packed_resnet.50.cifar.gamma2.einsum": ("packed_resnet", {**RES, **PACK, "arch": 50, "gamma": 2,
                                                               "style": "cifar", "linear_implementation": "einsum"},
                                             "small"),
    "batched_resnet.18": ("batched_resnet", {**RES, "arch": 18, "num_estimators": EST}, "img"),
    "batched_resnet.50.legacy": ("batched_resnet", {**RES, "arch": 50, "num_estimators": EST,
                                                    "repeat_strategy": "legacy", "style": "cifar"}, "small"),
    # Masksembles needs at least ten channels per layer: a quarter of the ResNet widths
    "masked_resnet.18": ("masked_resnet", {**RES, "width_multiplier": 0.25, "arch": 18, "num_estimators": EST,
                                           "scale": 2.0}, "img"),
    "masked_resnet.50.cifar": ("masked_resnet", {**RES, "width_multiplier": 0.25, "arch": 50, "num_estimators": EST,
                                                 "scale": 2.0, "style": "cifar"}, "small"),
    "mimo_resnet.18": ("mimo_resnet", {**RES, "arch": 18, "num_estimators": EST}, "img4"),
    "lpbnn_resnet.18": ("lpbnn_resnet", {**RES, "arch": 18, "num_estimators": EST}, "img"),
    "lpbnn_resnet.50.cifar": ("lpbnn_resnet", {**RES, "arch": 50, "num_estimators": EST, "style": "cifar"}, "small"),
    "wideresnet28x10": ("wideresnet28x10", WRN, "small"),
    "packed_wideresnet28x10": ("packed_wideresnet28x10", {**WRN, **PACK}, "small"),
    "batched_wideresnet28x10": ("batched_wideresnet28x10", {**WRN, "num_estimators": EST}, "small"),
    "masked_wideresnet28x10": ("masked_wideresnet28x10", {**WRN, "num_estimators": EST, "scale": 2.0}, "small"),
    "mimo_wideresnet28x10": ("mimo_wideresnet28x10", {**WRN, "num_estimators": EST}, "small"),
    "vgg.11.cifar": ("vgg", {"in_channels": 3, "num_classes": CLASSES, "arch": 11, "style": "cifar"}, "img"),
    "packed_vgg.11.cifar": ("packed_vgg", {"in_channels": 3, "num_classes": CLASSES, "arch": 11, "style": "cifar",
                                              "alpha": 2, "num_estimators": EST, "gamma": 1}, "img"),
    "lenet": ("lenet", {**LENET, "dropout_rate": 0.1}, "mnist"),
    "packed_lenet": ("packed_lenet", {**LENET, "num_estimators": EST}, "mnist"),
    "batchensemble_lenet": ("batchensemble_lenet", {**LENET, "num_estimators": EST}, "mnist"),
    "bayesian_lenet": ("bayesian_lenet", {**LENET, "num_samples": 2}, "mnist"),
    "inception_time": ("inception_time", INCEPTION, "series"),
    "inception_time.no_residual": ("inception_time", {**INCEPTION, "residual": False, "dropout": 0.1}, "series"),
    "batched_inception_time": ("batched_inception_time", {**INCEPTION, "num_estimators": EST}, "series"),
    "mimo_inception_time": ("mimo_inception_time", {**INCEPTION, "num_estimators": EST}, "series"),
    "packed_inception_time": ("packed_inception_time", {**INCEPTION, **PACK}, "series"),
    "bayesian_inception_time": ("bayesian_inception_time", {**INCEPTION, "num_samples": 2}, "series"),
    "mlp": ("mlp", {**MLP, "dropout_rate": 0.1}, "vec"),
    "mlp.normal": ("mlp", {**MLP, "dist_family": "normal"}, "vec"),
    "mlp.laplace": ("mlp", {**MLP, "dist_family": "laplace"}, "vec"),
    "mlp.cauchy": ("mlp", {**MLP, "dist_family": "cauchy"}, "vec"),
    "mlp.student": ("mlp", {**MLP, "dist_family": "student"}, "vec"),
    "mlp.student.fixed_df": ("mlp", {**MLP, "dist_family": "student", "dist_args": {"fixed_df": 3.0}}, "vec"),
    "mlp.nig": ("mlp", {**MLP, "dist_family": "nig"}, "vec"),
    "packed_mlp": ("packed_mlp", {**MLP, **PACK}, "vec"),
    "packed_mlp.normal": ("packed_mlp", {**MLP, **PACK, "dist_family": "normal"}, "vec"),
    "batched_mlp": ("batched_mlp", {**MLP, "num_estimators": EST}, "vec"),
    "bayesian_mlp": ("bayesian_mlp", {**MLP, "num_samples": 2}, "vec"),
    "bayesian_mlp.normal": ("bayesian_mlp", {**MLP, "num_samples": 2, "dist_family": "normal"}, "vec"),
    "mimo_mlp": ("mimo_mlp", {**MLP, "num_estimators": EST}, "vec"),
    "small_unet": ("small_unet", UNET, "seg"),
    "small_unet.bilinear": ("small_unet", {**UNET, "bilinear": True, "dropout_rate": 0.1}, "seg"),
    "packed_small_unet": ("packed_small_unet", {**UNET, **PACK}, "seg"),
    "batched_small_unet": ("batched_small_unet", {**UNET, "num_estimators": EST}, "seg"),
    "masked_small_unet": ("masked_small_unet", {**UNET, "num_estimators": EST, "scale": 2.0}, "seg"),
    "mimo_small_unet": ("mimo_small_unet", {**UNET, "num_estimators": EST}, "seg"),
    "seg_former": ("seg_former", {"num_classes": CLASSES, "arch": 0}, "seg"),
    "deep_lab_v3_resnet.v3plus": ("deep_lab_v3_resnet", {"num_classes": CLASSES, "arch": 50, "style": "v3+",
                                                         "separable": True, "pretrained_backbone": False}, "seg"),
    "bts_resnet.normal": ("bts_resnet", {"arch": 50, "max_depth": 10.0, "dist_family": "normal",
                                         "pretrained_backbone": False}, "seg"),
}
FACTORY_MODULES = {"small_unet": "segmentation.unet", "packed_small_unet": "segmentation.unet",
                   "batched_small_unet": "segmentation.unet", "masked_small_unet": "segmentation.unet",
                   "mimo_small_unet": "segmentation.unet", "seg_former": "segmentation.segformer",
                   "deep_lab_v3_resnet": "segmentation.deeplab", "bts_resnet": "depth.bts", "mlp": "mlp",
                   "packed_mlp": "mlp", "batched_mlp": "mlp", "bayesian_mlp": "mlp", "mimo_mlp": "mlp"}
WRAPPERS = (
    "deep_ensembles", "deep_ensembles.regression.probabilistic", "deep_ensembles.store_on_cpu",
    "mc_dropout", "mc_dropout.loop", "mc_dropout.last_layer", "mc_dropout.regression.probabilistic.loop",
    "BatchEnsemble.convert_layers", "BatchEnsemble.repeat_training_inputs",
    "StochasticModel.sample", "StochasticModel.freeze",
    "EMA.update_wrapper", "SWA.update_wrapper", "SWAG.update_wrapper", "SWAG.diag.update_wrapper",
    "CheckpointCollector.update_wrapper", "CheckpointCollector.save_schedule", "Zero",
)
# Layer name -> (class, keywords, input kind). Inputs: "vec" (2·EST, 8), "seq" (2, 5, 8) batch-first tokens,
# "seq_first" (5, 2, 8), "c1" (2, 4, 16), "c2" (2, 4, 8, 8), "c3" (2, 4, 4, 4, 4), "vec_in" (2, 8) for first
# layers. A packed layer that is not ``first`` takes ``alpha`` times its nominal channels (the last axis of tokens and
# vectors, the second of images), so ``_layers`` widens these inputs for it.
LAYERS: dict[str, tuple[str, dict[str, Any], str]] = {
    "PackedLinear": ("PackedLinear", {"in_features": DIM, "out_features": 8, **PACK}, "vec"),
    "PackedLinear.first.conv1d": ("PackedLinear", {"in_features": DIM, "out_features": 8, **PACK, "first": True,
                                                   "implementation": "conv1d"}, "vec"),
    "PackedLinear.last.sparse": ("PackedLinear", {"in_features": DIM, "out_features": 8, **PACK, "last": True,
                                                  "implementation": "sparse"}, "vec"),
    "PackedLinear.full": ("PackedLinear", {"in_features": DIM, "out_features": 8, **PACK, "implementation": "full"},
                          "vec"),
    "PackedConv1d": ("PackedConv1d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3, **PACK, "padding": 1},
                     "c1"),
    "PackedConv2d.first": ("PackedConv2d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3, **PACK,
                                            "first": True, "minimum_channels_per_group": 2}, "c2"),
    "PackedConv2d.gamma2": ("PackedConv2d", {"in_channels": 8, "out_channels": 8, "kernel_size": 3, **PACK,
                                             "gamma": 2, "minimum_channels_per_group": 2}, "c2x8"),
    "PackedConv3d": ("PackedConv3d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3, **PACK, "padding": 1},
                     "c3"),
    "PackedConvTranspose2d": ("PackedConvTranspose2d", {"in_channels": 4, "out_channels": 8, "kernel_size": 2,
                                                        "stride": 2, **PACK}, "c2"),
    "PackedLayerNorm": ("PackedLayerNorm", {"embed_dim": 8, "num_estimators": EST, "alpha": 2}, "vec16"),
    "PackedMultiheadAttention": ("PackedMultiheadAttention", {"embed_dim": 8, "num_heads": 2, **PACK}, "seq_first"),
    "PackedMultiheadAttention.batch_first.kdim": ("PackedMultiheadAttention", {"embed_dim": 8, "num_heads": 2, **PACK,
                                                                               "batch_first": True, "kdim": 6,
                                                                               "vdim": 6}, "seq_kv"),
    "PackedMultiheadAttention.bias_kv.zero_attn": ("PackedMultiheadAttention", {"embed_dim": 8, "num_heads": 2, **PACK,
                                                                                "batch_first": True,
                                                                                "add_bias_kv": True,
                                                                                "add_zero_attn": True}, "seq"),
    "PackedTransformerEncoderLayer": ("PackedTransformerEncoderLayer", {"d_model": 8, "nhead": 2, **PACK,
                                                                        "dim_feedforward": 16, "batch_first": True},
                                      "seq"),
    "PackedTransformerEncoderLayer.norm_first": ("PackedTransformerEncoderLayer", {"d_model": 8, "nhead": 2, **PACK,
                                                                                   "dim_feedforward": 16,
                                                                                   "norm_first": True}, "seq_first"),
    "PackedTransformerDecoderLayer": ("PackedTransformerDecoderLayer", {"d_model": 8, "nhead": 2, **PACK,
                                                                        "dim_feedforward": 16, "batch_first": True},
                                      "seq_memory"),
    "PackedTransformerDecoderLayer.norm_first": ("PackedTransformerDecoderLayer", {"d_model": 8, "nhead": 2, **PACK,
                                                                                   "dim_feedforward": 16,
                                                                                   "batch_first": True,
                                                                                   "norm_first": True}, "seq_memory"),
    "BatchLinear": ("BatchLinear", {"in_features": DIM, "out_features": 8, "num_estimators": EST}, "vec"),
    "BatchConv1d": ("BatchConv1d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3, "num_estimators": EST},
                    "c1"),
    "BatchConv2d": ("BatchConv2d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3, "num_estimators": EST},
                    "c2"),
    "BatchConvTranspose2d": ("BatchConvTranspose2d", {"in_channels": 4, "out_channels": 8, "kernel_size": 2,
                                                      "stride": 2, "num_estimators": EST}, "c2"),
    "BayesLinear": ("BayesLinear", {"in_features": DIM, "out_features": 8}, "vec"),
    "BayesLinear.frozen": ("BayesLinear", {"in_features": DIM, "out_features": 8, "frozen": True}, "vec"),
    "BayesConv1d": ("BayesConv1d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3}, "c1"),
    "BayesConv2d": ("BayesConv2d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3, "padding": 1}, "c2"),
    "BayesConv2d.frozen": ("BayesConv2d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3, "frozen": True},
                           "c2"),
    "BayesConv3d": ("BayesConv3d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3}, "c3"),
    "LPBNNLinear": ("LPBNNLinear", {"in_features": DIM, "out_features": 8, "num_estimators": EST, "hidden_size": 4},
                    "vec"),
    "LPBNNConv2d": ("LPBNNConv2d", {"in_channels": 4, "out_channels": 8, "num_estimators": EST, "kernel_size": 3,
                                    "hidden_size": 4}, "c2"),
    "MaskedLinear": ("MaskedLinear", {"in_features": 16, "out_features": 16, "num_estimators": EST, "scale": 2.0},
                     "vec_wide"),
    "MaskedConv2d": ("MaskedConv2d", {"in_channels": 16, "out_channels": 16, "kernel_size": 3, "num_estimators": EST,
                                      "scale": 2.0}, "c2x16"),
    "MaskedConvTranspose2d": ("MaskedConvTranspose2d", {"in_channels": 16, "out_channels": 16, "kernel_size": 2,
                                                        "stride": 2, "num_estimators": EST, "scale": 2.0}, "c2x16"),
    "NormalLinear": ("NormalLinear", {"base_layer": "Linear", "event_dim": 2, "in_features": DIM}, "vec"),
    "StudentTLinear": ("StudentTLinear", {"base_layer": "Linear", "event_dim": 2, "in_features": DIM}, "vec"),
    "StudentTLinear.fixed_df": ("StudentTLinear", {"base_layer": "Linear", "event_dim": 2, "in_features": DIM,
                                                   "fixed_df": 3.0}, "vec"),
    "NormalInverseGammaLinear": ("NormalInverseGammaLinear", {"base_layer": "Linear", "event_dim": 2,
                                                              "in_features": DIM}, "vec"),
    "NormalConvNd": ("NormalConvNd", {"base_layer": "Conv2d", "event_dim": 1, "in_channels": 4, "kernel_size": 3},
                     "c2"),
    "StudentTConvNd": ("StudentTConvNd", {"base_layer": "Conv2d", "event_dim": 1, "in_channels": 4,
                                          "kernel_size": 3}, "c2"),
    "NormalInverseGammaConvNd": ("NormalInverseGammaConvNd", {"base_layer": "Conv2d", "event_dim": 1,
                                                              "in_channels": 4, "kernel_size": 3}, "c2"),
    "ChannelLayerNorm": ("ChannelLayerNorm", {"normalized_shape": 4}, "c2"),
    "FilterResponseNorm2d": ("FilterResponseNorm2d", {"num_channels": 4}, "c2"),
    "BatchNormAdapter2d": ("BatchNormAdapter2d", {"num_features": 4}, "c2"),
    "MCBatchNorm2d": ("MCBatchNorm2d", {"num_features": 4, "num_estimators": EST}, "c2"),
}
LAYER_METHODS = ("BayesLinear.sample", "BayesConv2d.sample", "packed_linear")
# Loss name -> (class, keywords, inputs kind).
LOSSES: dict[str, tuple[str, dict[str, Any], str]] = {
    "ELBOLoss": ("ELBOLoss", {"kl_weight": 1e-3, "num_samples": 2}, "elbo"),
    "ELBOLoss.normal": ("ELBOLoss", {"kl_weight": 1e-3, "num_samples": 2, "dist_family": "normal"}, "elbo.normal"),
    "KLDiv": ("KLDiv", {}, "kl"),
    "BetaNLL": ("BetaNLL", {"beta": 0.5}, "beta_nll"),
    "DERLoss": ("DERLoss", {"reg_weight": 0.1}, "nig"),
    "DistributionNLLLoss": ("DistributionNLLLoss", {}, "normal"),
    "DistributionNLLLoss.ignore_mask.sum": ("DistributionNLLLoss", {"reduction": "sum"}, "normal.mask"),
    "PinballLoss": ("PinballLoss", {"quantile": 0.9}, "reg"),
    "DECLoss": ("DECLoss", {}, "evidence"),
    "DECLoss.mse.reg": ("DECLoss", {"loss_type": "mse", "reg_weight": 0.1}, "evidence"),
    "DECLoss.digamma.annealing": ("DECLoss", {"loss_type": "digamma", "annealing_step": 10}, "evidence.epoch"),
    "FocalLoss": ("FocalLoss", {"gamma": 2.0}, "cls"),
    "FocalLoss.alpha.sum": ("FocalLoss", {"gamma": 1.0, "alpha": "weights", "reduction": "sum"}, "cls"),
    "ConflictualLoss": ("ConflictualLoss", {"reg_weight": 0.1}, "cls"),
    "ConfidencePenaltyLoss": ("ConfidencePenaltyLoss", {"reg_weight": 0.1}, "cls"),
    "CrossEntropyMaxSupLoss": ("CrossEntropyMaxSupLoss", {"label_smoothing": 0.1, "max_sup": 0.1}, "cls"),
    "BCEWithLogitsLSLoss": ("BCEWithLogitsLSLoss", {"label_smoothing": 0.1}, "binary"),
    "MixupMPLoss": ("MixupMPLoss", {"mixup_ratio": 1.0}, "mixup_mp"),
}
TRAIN_STEPS = ("train_step.packed_resnet", "train_step.bayesian_mlp.elbo", "train_step.mlp.nig.der",
               "train_step.mlp.normal.nll")
POST = (
    "TemperatureScaler", "TemperatureScaler.unfitted", "VectorScaler", "MatrixScaler", "DirichletScaler",
    "HistogramBinningScaler", "IsotonicRegressionScaler", "BBQScaler",
    "ConformalClsTHR", "ConformalClsAPS", "ConformalClsAPS.not_randomized", "ConformalClsRAPS", "ConformalRegCQR",
    "MCBatchNorm", "DEUP.classification",
)
OOD = ("MaxLogitCriterion", "EnergyCriterion", "MaxSoftmaxCriterion", "EntropyCriterion",
       "MutualInformationCriterion", "VariationRatioCriterion")
# Metric name -> (class, keywords, inputs kind).
METRICS: dict[str, tuple[str, dict[str, Any], str]] = {
    "CalibrationError.multiclass": ("CalibrationError", {"task": "multiclass", "num_classes": CLASSES}, "probs"),
    "CalibrationError.binary.adaptive": ("CalibrationError", {"task": "binary", "adaptive": True}, "binary"),
    "AdaptiveCalibrationError.multiclass.l2": ("AdaptiveCalibrationError", {"task": "multiclass", "norm": "l2",
                                                                            "num_classes": CLASSES}, "probs"),
    "ClasswiseCalibrationError": ("ClasswiseCalibrationError", {"num_classes": CLASSES}, "probs"),
    "SmoothCalibrationError": ("SmoothCalibrationError", {"mesh_pts": 20, "refine_steps": 2}, "probs"),
    "AURC": ("AURC", {}, "probs"),
    "AUGRC": ("AUGRC", {}, "probs"),
    "RiskAt80Cov": ("RiskAt80Cov", {}, "probs"),
    "SCODAURC": ("SCODAURC", {}, "scod"),
    "FPR95": ("FPR95", {"pos_label": 1}, "ood"),
    "BrierScore": ("BrierScore", {"num_classes": CLASSES}, "probs"),
    "BrierScore.top_class.ensemble": ("BrierScore", {"num_classes": CLASSES, "top_class": True}, "ens_probs"),
    "CategoricalNLL": ("CategoricalNLL", {}, "probs"),
    "Disagreement": ("Disagreement", {}, "ens"),
    "Entropy.ensemble": ("Entropy", {}, "ens"),
    "MutualInformation": ("MutualInformation", {}, "ens"),
    "VariationRatio": ("VariationRatio", {}, "ens"),
    "SetSize": ("SetSize", {}, "sets"),
    "CoverageRate": ("CoverageRate", {"num_classes": CLASSES}, "sets.target"),
    "DistributionNLL": ("DistributionNLL", {}, "dist"),
    "QuantileCalibrationError": ("QuantileCalibrationError", {}, "dist"),
    "IntervalCoverage": ("IntervalCoverage", {}, "interval"),
    "IntervalScore": ("IntervalScore", {"coverage": 0.9}, "interval"),
    "MeanIntervalWidth": ("MeanIntervalWidth", {}, "interval.width"),
    "SILog": ("SILog", {"sqrt": True}, "depth"),
    "ThresholdAccuracy": ("ThresholdAccuracy", {"power": 1}, "depth"),
    "MeanSquaredErrorInverse": ("MeanSquaredErrorInverse", {"unit": "m"}, "depth"),
    "MeanIntersectionOverUnion": ("MeanIntersectionOverUnion", {"num_classes": CLASSES}, "seg"),
    "PAvPU": ("PAvPU", {"patch_size": 2}, "seg.probs"),
    "SegmentationFPR95": ("SegmentationFPR95", {"pos_label": 1}, "seg.ood"),
    "SegmentationBinaryAUROC": ("SegmentationBinaryAUROC", {}, "seg.ood"),
    "AUSE": ("AUSE", {}, "ause"),
}
TRANSFORMS = ("Mixup.isobatch", "MixupIO", "RegMixup", "MixupMP", "WarpingMixup", "Cutout", "MIMOBatchFormat",
              "MIMOBatchFormat.rho", "RepeatTarget", "GaussianNoise", "ImpulseNoise", "SGLD.step", "SGHMC.step")


def names() -> list[str]:
    return (list(NETS) + list(WRAPPERS) + list(LAYERS) + list(LAYER_METHODS) + list(LOSSES) + list(TRAIN_STEPS)
            + list(POST) + list(OOD) + list(METRICS) + list(TRANSFORMS))


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _labels(n: int = BATCH, classes: int = CLASSES, seed: int = 2) -> Any:
    import torch

    return torch.randint(0, classes, (n,), generator=torch.Generator().manual_seed(seed))


def _wrap(owner: Any, run: Callable[..., Any], entries: list[Any]) -> Any:
    """A bench module holding ``owner`` whose forward is ``run(owner, *inputs)`` (``gt_calls.Run``)."""
    from gt_calls import Run

    return Run(owner, run, entries)


def _net_input(kind: str) -> Any:
    shapes = {"img": (BATCH, 3, 32, 32), "img4": (2 * BATCH, 3, 32, 32), "small": (BATCH, 3, 16, 16),
              "mnist": (BATCH, 1, 28, 28),
              "series": (BATCH, 3, 32), "vec": (BATCH, DIM), "seg": (BATCH, 3, 32, 32)}
    return _randn(*shapes[kind])


def _nets(name: str) -> Built:
    import importlib

    from torch import nn

    factory, keywords, kind = NETS[name]
    keywords = dict(keywords)
    if keywords.get("normalization_layer") == "gn":
        keywords["normalization_layer"] = lambda channels, **_: nn.GroupNorm(1, channels)
    if keywords.get("norm") == "bn":
        keywords["norm"] = nn.BatchNorm2d
    module = importlib.import_module("torch_uncertainty.models." + FACTORY_MODULES.get(factory, "classification"))
    return getattr(module, factory)(**keywords), (_net_input(kind),), {}


def _core(dropout: float = 0.0, out: int = CLASSES) -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(DIM, 16), nn.ReLU(), nn.Dropout(dropout), nn.Linear(16, out))


def _normal_mlp() -> Any:
    from torch_uncertainty.models.mlp import mlp

    return mlp(**MLP, dist_family="normal", dropout_rate=0.2)


def _wrappers(name: str) -> Built:
    import torch
    from torch_uncertainty import methods

    from gt_calls import Method

    x = _net_input("vec")
    if name.startswith("deep_ensembles"):
        if ".regression" in name:
            return methods.deep_ensembles(_normal_mlp(), num_estimators=EST, task="regression",
                                          probabilistic=True), (x,), {}
        return methods.deep_ensembles([_core(), _core()], store_on_cpu=name.endswith("store_on_cpu")), (x,), {}
    if name.startswith("mc_dropout"):
        if ".regression" in name:
            return methods.mc_dropout(_normal_mlp(), num_estimators=EST, on_batch=False, task="regression",
                                      probabilistic=True), (x,), {}
        return methods.mc_dropout(_core(0.3), num_estimators=EST, on_batch=not name.endswith(".loop"),
                                  last_layer=name.endswith("last_layer")), (x,), {}
    if name.startswith("BatchEnsemble"):
        return methods.BatchEnsemble(_core(), EST, convert_layers=True,
                                     repeat_training_inputs=name.endswith("repeat_training_inputs")), (x,), {}
    if name.startswith("StochasticModel"):
        from torch_uncertainty.models.mlp import bayesian_mlp

        model = bayesian_mlp(**MLP, num_samples=2)
        if name.endswith("sample"):
            return Method(model, "sample", num_samples=2), (), {}

        def frozen(owner: Any, x_: Any) -> Any:
            owner.freeze()
            out = owner(x_)
            owner.unfreeze()
            return out

        return _wrap(model, frozen, [methods.StochasticModel.freeze, methods.StochasticModel.unfreeze,
                                     methods.StochasticModel]), (x,), {}
    if name == "Zero":
        return methods.Zero(_core(), num_tta=4, filter_views=0.5), (_randn(4 * BATCH, DIM),), {}
    core = _core()
    if name.startswith("EMA"):
        model: Any = methods.EMA(core, momentum=0.9)
    elif name.startswith("SWA."):
        model = methods.SWA(core, cycle_start=0, cycle_length=1)
    elif name.startswith("SWAG"):
        model = methods.SWAG(core, cycle_start=0, cycle_length=1, diag_covariance=".diag" in name, num_estimators=2,
                             max_num_models=2)
    elif name.endswith("save_schedule"):
        model = methods.CheckpointCollector(core, save_schedule=[1, 2, 3])
    else:
        model = methods.CheckpointCollector(core, cycle_start=0, cycle_length=1)
    epoch = [0]

    def epoch_end(owner: Any, x_: Any) -> Any:
        """The routine's end-of-epoch hook (``update_wrapper``) after perturbing the weights as training
        would, then the forward."""
        epoch[0] += 1
        with torch.no_grad():
            for p in owner.core_model.parameters():
                p.add_(0.01)
        owner.update_wrapper(epoch[0])
        return owner(x_)

    return _wrap(model, epoch_end, [type(model).update_wrapper, type(model)]), (x,), {}


def _layer_input(kind: str) -> tuple[Any, ...]:
    shapes: dict[str, tuple[tuple[int, ...], ...]] = {
        "vec": ((BATCH * EST, DIM),), "vec16": ((BATCH, 3, 16),), "c1": ((BATCH * EST, 4, 16),),
        "c2": ((BATCH * EST, 4, 8, 8),), "c2x8": ((BATCH * EST, 8, 8, 8),),
        "c2x16": ((BATCH * EST, 16, 8, 8),), "vec_wide": ((BATCH * EST, 16),), "c3": ((BATCH, 4, 4, 4, 4),),
        "seq": ((BATCH, 5, 8),), "seq_first": ((5, BATCH, 8),), "seq_kv": ((BATCH, 5, 8), (BATCH, 3, 6)),
        "seq_memory": ((BATCH, 5, 8), (BATCH, 3, 8)),
    }
    return tuple(_randn(*shape, seed=i + 1) for i, shape in enumerate(shapes[kind]))


def _widened(inputs: tuple[Any, ...], kind: str) -> tuple[Any, ...]:
    """The inputs of a packed layer: its nominal channels repeated ``alpha`` (2) times."""
    import torch

    dim = -1 if kind.startswith(("vec", "seq")) else 1
    return tuple(torch.cat([t, t.flip(0)], dim=dim) for t in inputs)


def _layers(name: str) -> Built:
    from torch import nn
    from torch_uncertainty import layers

    from gt_calls import Call, Keywords, Method

    if name in LAYER_METHODS:
        if name == "packed_linear":
            from torch_uncertainty.layers.functional.packed import packed_linear

            layer = layers.PackedLinear(DIM, 8, **PACK)
            return Call(packed_linear, weight=layer.weight, bias=layer.bias, num_groups=EST,
                        implementation="einsum"), (_randn(BATCH, 2 * DIM),), {}
        layer = layers.BayesLinear(DIM, 8) if name.startswith("BayesLinear") else layers.BayesConv2d(4, 8, 3)
        return Method(layer, "sample"), (), {}
    cls, keywords, kind = LAYERS[name]
    keywords = dict(keywords)
    if "base_layer" in keywords:
        keywords["base_layer"] = getattr(nn, keywords["base_layer"])
    if cls in ("BatchNormAdapter2d", "LPBNNLinear", "LPBNNConv2d", "MCBatchNorm2d"):
        import torch_uncertainty.layers.bayesian.abnn as abnn
        import torch_uncertainty.layers.mc_batch_norm as mcbn

        owner = {"BatchNormAdapter2d": abnn, "MCBatchNorm2d": mcbn}.get(cls, layers.bayesian)
        module = getattr(owner, cls)(**keywords)
    else:
        module = getattr(layers, cls)(**keywords)
    inputs = _layer_input(kind)
    if cls.startswith("Packed") and cls != "PackedLayerNorm" and not keywords.get("first"):
        inputs = _widened(inputs, kind)
    if cls == "PackedMultiheadAttention":
        query = inputs[0]
        key = inputs[1] if len(inputs) > 1 else query
        return Keywords(module), (query, key, key), {}
    if cls == "PackedTransformerDecoderLayer":
        return module, inputs, {}
    return module, inputs, {}


def _loss_inputs(kind: str) -> tuple[Any, ...]:
    import torch
    from torch.distributions import Normal
    from torch_uncertainty.utils.distributions import NormalInverseGamma

    y = _randn(BATCH, 2, seed=3)
    if kind == "cls":
        return _randn(BATCH, CLASSES), _labels()
    if kind == "binary":
        return _randn(BATCH), torch.tensor([0.0, 1.0])
    if kind == "mixup_mp":
        return _randn(2 * BATCH, CLASSES), torch.cat([torch.softmax(_randn(BATCH, CLASSES), -1),
                                                      torch.nn.functional.one_hot(_labels(), CLASSES).float()])
    if kind.startswith("evidence"):
        return (torch.relu(_randn(BATCH, CLASSES)), _labels())
    if kind == "reg":
        return _randn(BATCH, 2), y
    if kind == "beta_nll":
        return _randn(BATCH, 2), y, torch.rand(BATCH, 2) + 0.1
    if kind.startswith("normal"):
        dist = Normal(_randn(BATCH, 2), torch.rand(BATCH, 2) + 0.5)
        if kind == "normal.mask":
            return dist, y, torch.tensor([[False, True], [False, False]])
        return dist, y
    if kind == "nig":
        ones = torch.ones(BATCH, 2)
        return NormalInverseGamma(_randn(BATCH, 2), ones, 2 * ones, ones), y
    return _net_input("vec"), _randn(BATCH, 2, seed=3) if kind == "elbo.normal" else _labels()


def _losses(name: str) -> Built:
    import torch
    from torch import nn
    from torch_uncertainty import losses

    cls, keywords, kind = LOSSES[name]
    keywords = dict(keywords)
    if keywords.get("alpha") == "weights":
        keywords["alpha"] = torch.tensor([0.1, 0.2, 0.3, 0.4])
    if cls in ("ELBOLoss", "KLDiv"):
        from torch_uncertainty.models.mlp import bayesian_mlp

        dist = "normal" if kind == "elbo.normal" else None
        # the Bayesian MLP inside its ``StochasticModel``: the ELBO samples it itself
        model = bayesian_mlp(**{**MLP, "num_outputs": 2 if dist else CLASSES}, num_samples=2,
                             dist_family=dist).core_model
        if cls == "KLDiv":
            kl = losses.KLDiv(model)

            def kl_after_forward(owner: Any, x_: Any) -> Any:
                owner.model(x_)
                return owner()

            return _wrap(kl, kl_after_forward, [losses.KLDiv]), (_net_input("vec"),), {}
        inner: Any = losses.DistributionNLLLoss() if dist else nn.CrossEntropyLoss()
        return losses.ELBOLoss(model, inner, **keywords), _loss_inputs(kind), {}
    loss = getattr(losses, cls)(**keywords)
    inputs = _loss_inputs(kind)
    if kind == "evidence.epoch":
        return _wrap(loss, lambda owner, e, t: owner(e, t, current_epoch=3), [losses.DECLoss]), inputs, {}
    return loss, inputs, {}


def _train_steps(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch.distributions import Independent, Normal
    from torch_uncertainty import losses
    from torch_uncertainty.models import mlp as mlps
    from torch_uncertainty.utils.distributions import NormalInverseGamma

    if name == "train_step.packed_resnet":
        from torch_uncertainty.models.classification import packed_resnet

        model = packed_resnet(**RES, **PACK, arch=18)

        def packed_step(owner: Any, x: Any, y: Any) -> Any:
            """Packed-Ensembles training: the targets repeated for each estimator."""
            logits = owner(x)
            return F.cross_entropy(logits, y.repeat(EST))

        return _wrap(model, packed_step, [type(model)]), (_net_input("img"), _labels()), {}
    if name == "train_step.bayesian_mlp.elbo":
        model = mlps.bayesian_mlp(**{**MLP, "num_outputs": CLASSES}, num_samples=2).core_model
        elbo = losses.ELBOLoss(model, torch.nn.CrossEntropyLoss(), kl_weight=1e-3, num_samples=2)
        return _wrap(elbo, lambda owner, x, y: owner(x, y), [losses.ELBOLoss]), (_net_input("vec"), _labels()), {}
    if name == "train_step.mlp.nig.der":
        model = mlps.mlp(**MLP, dist_family="nig")
        der = losses.DERLoss(reg_weight=0.01)

        def der_step(owner: Any, x: Any, y: Any) -> Any:
            out = owner(x)
            return der(NormalInverseGamma(**out), y)

        return _wrap(model, der_step, [losses.DERLoss, type(model)]), (_net_input("vec"), _randn(BATCH, 2)), {}
    model = mlps.mlp(**MLP, dist_family="normal")
    nll = losses.DistributionNLLLoss()

    def nll_step(owner: Any, x: Any, y: Any) -> Any:
        out = owner(x)
        return nll(Independent(Normal(**out), 1), y)

    return _wrap(model, nll_step, [losses.DistributionNLLLoss, type(model)]), (_net_input("vec"), _randn(BATCH, 2)), {}


def _calibration_loader(regression: bool = False) -> Any:
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    logits = _randn(32, 2 if regression else CLASSES, seed=5) * 2
    if regression:
        logits = torch.sort(logits, dim=-1).values
        return DataLoader(TensorDataset(logits, _randn(32, seed=6)), batch_size=8)
    return DataLoader(TensorDataset(logits, _labels(32, seed=6)), batch_size=8)


def _post(name: str) -> Built:
    import torch
    from torch import nn
    from torch_uncertainty import post_processing as pp

    logits = _randn(BATCH, CLASSES, seed=7) * 2
    if name in ("MCBatchNorm", "DEUP.classification"):
        from torch.utils.data import DataLoader, TensorDataset

        net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                            nn.Linear(4, CLASSES))
        data = DataLoader(TensorDataset(_randn(8, 3, 8, 8), _labels(8)), batch_size=4)
        if name == "MCBatchNorm":
            post: Any = pp.MCBatchNorm(net, num_estimators=2, mc_batch_size=4)
        else:
            post = pp.DEUP("classification", net, num_folds=2, hidden_dim=8, max_epochs=1)
        post.fit(data)
        return post, (_randn(BATCH, 3, 8, 8),), {}
    identity = nn.Identity()
    if name == "TemperatureScaler.unfitted":
        return pp.TemperatureScaler(identity, init_temperature=1.5), (logits,), {}
    constructors: dict[str, Callable[[], Any]] = {
        "TemperatureScaler": lambda: pp.TemperatureScaler(identity, max_iter=5),
        "VectorScaler": lambda: pp.VectorScaler(CLASSES, identity, max_iter=5),
        "MatrixScaler": lambda: pp.MatrixScaler(CLASSES, identity, max_iter=5),
        "DirichletScaler": lambda: pp.DirichletScaler(CLASSES, identity, max_iter=5, lambda_reg=0.01, mu_reg=0.01),
        "HistogramBinningScaler": lambda: pp.HistogramBinningScaler(identity, num_bins=5),
        "IsotonicRegressionScaler": lambda: pp.IsotonicRegressionScaler(identity),
        "BBQScaler": lambda: pp.BBQScaler(identity, max_bins=5),
        "ConformalClsTHR": lambda: pp.ConformalClsTHR(alpha=0.1, model=identity, ts_max_iter=5),
        "ConformalClsAPS": lambda: pp.ConformalClsAPS(alpha=0.1, model=identity, ts_max_iter=5),
        "ConformalClsAPS.not_randomized": lambda: pp.ConformalClsAPS(alpha=0.1, model=identity, randomized=False,
                                                                     enable_ts=False),
        "ConformalClsRAPS": lambda: pp.ConformalClsRAPS(alpha=0.1, model=identity, regularization_rank=2),
        "ConformalRegCQR": lambda: pp.ConformalRegCQR(alpha=0.1, model=identity),
    }
    post = constructors[name]()
    regression = name == "ConformalRegCQR"
    if "progress" in post.fit.__code__.co_varnames:
        post.fit(_calibration_loader(regression), progress=False)
    else:
        post.fit(_calibration_loader(regression))
    if regression:
        return post, (torch.sort(_randn(BATCH, 2, seed=8), dim=-1).values,), {}
    return post, (logits,), {}


def _ood(name: str) -> Built:
    import torch
    from torch_uncertainty import ood_criteria

    criterion = getattr(ood_criteria, name)()
    if name in ("MaxLogitCriterion", "EnergyCriterion"):
        return criterion, (_randn(BATCH, CLASSES),), {}
    if name == "MaxSoftmaxCriterion":
        return criterion, (torch.softmax(_randn(BATCH, CLASSES), -1),), {}
    return criterion, (torch.softmax(_randn(BATCH, EST, CLASSES), -1),), {}


def _metric_inputs(kind: str) -> tuple[Any, ...]:
    import torch
    from torch.distributions import Normal

    n = 8
    probs = torch.softmax(_randn(n, CLASSES, seed=9) * 2, -1)
    target = _labels(n)
    if kind == "probs":
        return probs, target
    if kind == "binary":
        return torch.rand(n, generator=torch.Generator().manual_seed(3)), target % 2
    if kind == "ens_probs":
        return torch.softmax(_randn(n, EST, CLASSES), -1), target
    if kind == "ens":
        return (torch.softmax(_randn(n, EST, CLASSES), -1),)
    if kind == "scod":
        return torch.rand(n), target % 2 == 0, torch.tensor([False, True] * (n // 2))
    if kind == "ood":
        return torch.rand(n), target % 2
    if kind.startswith("sets"):
        sets = (probs > 0.2).long()
        return (sets, target) if kind == "sets.target" else (sets,)
    if kind == "grouping":
        return probs, target, _randn(n, 6)
    if kind == "dist":
        return Normal(_randn(n, 1), torch.rand(n, 1) + 0.5), _randn(n, 1, seed=4)
    if kind.startswith("interval"):
        lower = _randn(n) - 1
        return (lower, lower + 2, _randn(n, seed=5)) if kind == "interval" else (lower, lower + 2)
    if kind == "depth":
        return torch.rand(n, 4, 4) + 0.5, torch.rand(n, 4, 4) + 0.5
    if kind == "seg":
        return torch.softmax(_randn(BATCH, CLASSES, 4, 4), 1), torch.randint(0, CLASSES, (BATCH, 4, 4))
    if kind == "seg.probs":
        return torch.softmax(_randn(BATCH, CLASSES, 4, 4), 1), torch.randint(0, CLASSES, (BATCH, 4, 4))
    if kind == "seg.ood":
        return torch.rand(BATCH, 4, 4), torch.randint(0, 2, (BATCH, 4, 4))
    return torch.rand(n), torch.rand(n)  # ause: scores, errors


def _metrics(name: str) -> Built:
    from torch import nn
    from torch_uncertainty import metrics

    cls, keywords, kind = METRICS[name]
    metric = getattr(metrics, cls)(**keywords)

    class _UpdateCompute(nn.Module):
        """An evaluation step: the metric's ``update`` on a batch, then ``compute``."""

        def __init__(self) -> None:
            super().__init__()
            self.metric = metric

        def forward(self, *inputs: Any) -> Any:
            self.metric.update(*inputs)
            return self.metric.compute()

        def entry_points(self) -> list[Any]:
            return [type(self.metric).update, type(self.metric).compute]

    return _UpdateCompute(), _metric_inputs(kind), {}


def _transforms(name: str) -> Built:
    import torch
    from torch_uncertainty import transforms

    from gt_calls import OptimizerStep

    images, labels = _randn(BATCH * 2, 3, 8, 8), _labels(BATCH * 2)
    if name.startswith("Mixup") or name in ("RegMixup",):
        cls = name.split(".")[0]
        extra = {"mixup_ratio": 0.5} if cls == "MixupMP" else {}
        return getattr(transforms, cls)(alpha=1.0, num_classes=CLASSES, isobatch=name.endswith("isobatch"),
                                        **extra), (images, labels), {}
    if name == "WarpingMixup":
        mix = transforms.WarpingMixup(alpha=1.0, num_classes=CLASSES)
        return mix, (images, labels, _randn(BATCH * 2, 6)), {}
    if name == "Cutout":
        cut = transforms.Cutout(length=3)
        return _wrap(torch.nn.Identity(), lambda owner, img: cut(img), [transforms.Cutout.__call__]), \
            (torch.rand(3, 8, 8),), {}
    if name.startswith("MIMOBatchFormat"):
        fmt = transforms.MIMOBatchFormat(EST, rho=0.5 if name.endswith("rho") else 0.0, batch_repeat=2)
        return _wrap(fmt, lambda owner, x, y: owner((x, y)), [transforms.MIMOBatchFormat]), (images, labels), {}
    if name == "RepeatTarget":
        return _wrap(transforms.RepeatTarget(EST), lambda owner, x, y: owner((x, y)), [transforms.RepeatTarget]), \
            (images, labels), {}
    if name in ("GaussianNoise", "ImpulseNoise"):
        return getattr(transforms, name)(severity=2), (torch.rand(3, 8, 8),), {}
    from torch_uncertainty import optim

    net = _core()
    optimizer = (optim.SGLD(net.parameters(), lr=1e-3, weight_decay=1e-4) if name.startswith("SGLD")
                 else optim.SGHMC(net.parameters(), lr=1e-3, burn_in_steps=1, weight_decay=1e-4))
    grads = tuple(_randn(*p.shape, seed=i) * 0.01 for i, p in enumerate(net.parameters()))
    return OptimizerStep(net, optimizer), grads, {}


def build(name: str) -> Built:
    import logging
    import warnings

    import torch

    from gt_models import allow_torchvision_import

    warnings.filterwarnings("ignore")
    logging.getLogger().setLevel(logging.ERROR)
    allow_torchvision_import()
    torch.manual_seed(0)
    if name in NETS:
        return _nets(name)
    if name in WRAPPERS:
        return _wrappers(name)
    if name in LAYERS or name in LAYER_METHODS:
        return _layers(name)
    if name in LOSSES:
        return _losses(name)
    if name in TRAIN_STEPS:
        return _train_steps(name)
    if name in POST:
        return _post(name)
    if name in OOD:
        return _ood(name)
    if name in METRICS:
        return _metrics(name)
    return _transforms(name)
