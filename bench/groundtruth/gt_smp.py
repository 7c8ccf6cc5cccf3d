"""Ground-truth bench, segmentation_models_pytorch: every architecture on several small encoders, the
classification head, the losses and the metrics of segmentation-models-pytorch 0.6.0.

A model of ``segmentation_models_pytorch`` is an encoder (its own ports of ResNet, MobileNet,
EfficientNet, DPN, VGG, SE-Net, SK-Net, MobileOne, the Mix Transformer, or any ``timm`` model through
the ``tu-`` universal encoder) joined to a decoder. Every model is built from its class with
``encoder_weights=None`` (random weights, nothing downloaded) and run on two 3 x 64 x 64 images:

- ``MODELS``: ``Unet``, ``UnetPlusPlus``, ``MAnet``, ``Linknet``, ``FPN``, ``PSPNet``, ``DeepLabV3``,
  ``DeepLabV3Plus``, ``PAN``, ``UPerNet``, ``Segformer`` and ``DPT``, each on ``resnet18`` with narrow
  decoders, and variants (after a dot) whose options take another code path: other encoders (native,
  ``timm-`` and ``tu-`` ones, ``mit_b0``, a ViT for DPT), ``aux_params`` (the classification head, two
  outputs), attention (``scse``), decoder norms and interpolations, merge policies, readouts, output
  strides, encoder depths, one or four input channels, activations, a frozen encoder. PAN runs on
  128-pixel images (its pyramid attention pools the 1/16 features three times); the ``layernorm``
  decoder norm is left out: it normalises the last axis of an N x C x H x W map and fails eagerly;
- ``<Model>.predict``: ``SegmentationModel.predict`` (``inference_mode``, ``eval``) for a few models;
- ``TRAIN``: a training step up to the backward pass as the library's examples write it (bench code
  ``_TrainStep``: the model, then one of its losses on the masks);
- ``LOSSES``: each loss of ``segmentation_models_pytorch.losses`` (``DiceLoss``, ``JaccardLoss``,
  ``FocalLoss``, ``LovaszLoss``, ``TverskyLoss``, ``SoftBCEWithLogitsLoss``, ``SoftCrossEntropyLoss``,
  ``MCCLoss``) in its binary, multiclass and multilabel modes and with options that change its code
  (``ignore_index``, ``log_loss``, ``classes``, ``per_image``, smoothing), on 2 x C x 32 x 32 logits;
- ``METRICS``: ``metrics.get_stats`` in each mode and the scores computed from its counts, with the
  reductions, through bench code ``_Metric`` (stats then score, as the examples' epoch ends do).

``names()`` needs no torch; ``build`` runs in a worker only (after ``gt_models.allow_torchvision_import``,
since the library imports torchvision for its ResNet, VGG, DenseNet and MobileNet encoders).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SIDE, CLASSES = 2, 64, 3
NARROW = {"decoder_channels": (64, 32, 16, 16, 8)}  # Unet, UnetPlusPlus, MAnet
AUX = {"aux_params": {"classes": 4, "dropout": 0.2}}
WIDE = {"decoder_channels": (64, 32, 16, 16, 16)}  # the scSE blocks squeeze channels by 16
# DPT: timm ViTs at a 64-pixel input (``img_size`` goes to ``timm.create_model``); ``test_vit`` is timm's
# six-block ViT of width 64.
DPT = {"img_size": SIDE, "decoder_intermediate_channels": (16, 32, 64, 64), "decoder_fusion_channels": 16}

# Model name (architecture, then variant after a dot) -> (class of ``segmentation_models_pytorch``,
# keywords; ``encoder_name`` defaults to ``resnet18``).
MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    "Unet": ("Unet", {**NARROW}),
    "Unet.aux": ("Unet", {**NARROW, **AUX}),
    "Unet.scse": ("Unet", {**WIDE, "decoder_attention_type": "scse"}),
    "Unet.no_norm_bilinear": ("Unet", {**NARROW, "decoder_use_norm": False, "decoder_interpolation": "bilinear"}),
    "Unet.instancenorm": ("Unet", {**NARROW, "decoder_use_norm": {"type": "instancenorm", "affine": True}}),
    "Unet.depth3": ("Unet", {"encoder_depth": 3, "decoder_channels": (32, 16, 8)}),
    "Unet.in_channels1": ("Unet", {**NARROW, "in_channels": 1}),
    "Unet.in_channels4": ("Unet", {**NARROW, "in_channels": 4}),
    "Unet.binary": ("Unet", {**NARROW, "classes": 1}),
    "Unet.sigmoid": ("Unet", {**NARROW, "activation": "sigmoid"}),
    "Unet.frozen_encoder": ("Unet", {**NARROW}),  # ``freeze_encoder()`` after construction
    "Unet.mobilenet_v2": ("Unet", {**NARROW, "encoder_name": "mobilenet_v2"}),
    "Unet.efficientnet-b0": ("Unet", {**NARROW, "encoder_name": "efficientnet-b0"}),
    "Unet.timm-efficientnet-b0": ("Unet", {**NARROW, "encoder_name": "timm-efficientnet-b0"}),
    "Unet.dpn68": ("Unet", {**NARROW, "encoder_name": "dpn68"}),
    "Unet.vgg11_bn": ("Unet", {**NARROW, "encoder_name": "vgg11_bn"}),
    "Unet.densenet121": ("Unet", {**NARROW, "encoder_name": "densenet121"}),
    "Unet.se_resnext50_32x4d": ("Unet", {**NARROW, "encoder_name": "se_resnext50_32x4d"}),
    "Unet.timm-skresnet18": ("Unet", {**NARROW, "encoder_name": "timm-skresnet18"}),
    "Unet.mobileone_s0": ("Unet", {**NARROW, "encoder_name": "mobileone_s0"}),
    "Unet.mit_b0": ("Unet", {**NARROW, "encoder_name": "mit_b0"}),
    "Unet.tu-resnet18": ("Unet", {**NARROW, "encoder_name": "tu-resnet18"}),
    "Unet.tu-convnext_atto": ("Unet", {**NARROW, "encoder_name": "tu-convnext_atto"}),
    "Unet.tu-mobilenetv3_small_050": ("Unet", {**NARROW, "encoder_name": "tu-mobilenetv3_small_050"}),
    "Unet.tu-regnetx_002": ("Unet", {**NARROW, "encoder_name": "tu-regnetx_002"}),
    "UnetPlusPlus": ("UnetPlusPlus", {**NARROW}),
    "UnetPlusPlus.scse_aux": ("UnetPlusPlus", {**WIDE, **AUX, "decoder_attention_type": "scse"}),
    "MAnet": ("MAnet", {**NARROW, "decoder_pab_channels": 16}),
    "MAnet.tu-regnetx_002": ("MAnet", {**NARROW, "decoder_pab_channels": 16, "encoder_name": "tu-regnetx_002"}),
    "Linknet": ("Linknet", {}),
    "Linknet.mobilenet_v2_aux": ("Linknet", {"encoder_name": "mobilenet_v2", **AUX}),
    "FPN": ("FPN", {"decoder_pyramid_channels": 32, "decoder_segmentation_channels": 32}),
    "FPN.cat_bilinear": ("FPN", {"decoder_pyramid_channels": 32, "decoder_segmentation_channels": 32,
                                 "decoder_merge_policy": "cat", "decoder_interpolation": "bilinear"}),
    "FPN.mit_b0": ("FPN", {"decoder_pyramid_channels": 32, "decoder_segmentation_channels": 32,
                           "encoder_name": "mit_b0"}),
    "FPN.tu-convnext_atto": ("FPN", {"decoder_pyramid_channels": 32, "decoder_segmentation_channels": 32,
                                     "encoder_name": "tu-convnext_atto"}),
    "PSPNet": ("PSPNet", {"psp_out_channels": 32}),
    "PSPNet.aux": ("PSPNet", {"psp_out_channels": 32, **AUX}),
    "DeepLabV3": ("DeepLabV3", {"decoder_channels": 32}),
    "DeepLabV3.os16_separable": ("DeepLabV3", {"decoder_channels": 32, "encoder_output_stride": 16,
                                               "decoder_aspp_separable": True}),
    "DeepLabV3Plus": ("DeepLabV3Plus", {"decoder_channels": 32}),
    "DeepLabV3Plus.os8_aux": ("DeepLabV3Plus", {"decoder_channels": 32, "encoder_output_stride": 8, **AUX}),
    "PAN": ("PAN", {"decoder_channels": 16}),  # at 128 pixels (``SIDES``)
    "PAN.tu-mobilenetv3_small_050": ("PAN", {"decoder_channels": 16, "encoder_name": "tu-mobilenetv3_small_050"}),
    "UPerNet": ("UPerNet", {"decoder_channels": 32}),
    "UPerNet.tu-convnext_atto": ("UPerNet", {"decoder_channels": 32, "encoder_name": "tu-convnext_atto"}),
    "UPerNet.mit_b0_aux": ("UPerNet", {"decoder_channels": 32, "encoder_name": "mit_b0", **AUX}),
    "Segformer": ("Segformer", {"decoder_segmentation_channels": 32, "encoder_name": "mit_b0"}),
    "Segformer.resnet18": ("Segformer", {"decoder_segmentation_channels": 32}),
    "Segformer.tu-mobilenetv3_small_050": ("Segformer", {"decoder_segmentation_channels": 32,
                                                         "encoder_name": "tu-mobilenetv3_small_050"}),
    "DPT": ("DPT", {"encoder_name": "tu-vit_tiny_patch16_224", **DPT}),
    "DPT.readout_add": ("DPT", {"encoder_name": "tu-test_vit", **DPT, "decoder_readout": "add"}),
    "DPT.readout_ignore_aux": ("DPT", {"encoder_name": "tu-test_vit", **DPT, "decoder_readout": "ignore", **AUX}),
}
SIDES = {"PAN": 128}  # PAN's feature pyramid attention pools its 1/16 features three times
PREDICT = ("Unet", "Segformer")  # ``predict`` as well as ``forward``
# Training steps: model -> (loss of ``LOSSES`` applied to its masks).
TRAIN: dict[str, str] = {
    "Unet.DiceLoss": "DiceLoss.multiclass",
    "Unet.aux.FocalLoss": "FocalLoss.multiclass",
    "FPN.JaccardLoss": "JaccardLoss.multiclass",
    "DeepLabV3Plus.SoftCrossEntropyLoss": "SoftCrossEntropyLoss",
    "Segformer.LovaszLoss": "LovaszLoss.multiclass",
    "Unet.binary.SoftBCEWithLogitsLoss": "SoftBCEWithLogitsLoss",
}
# Loss name (its mode, or a variant, after a dot) -> (class of ``losses``, keywords, target kind).
# Targets: "binary" (N, 1, H, W) in {0, 1}, "multiclass" (N, H, W) class indices, "multilabel" (N, C, H, W)
# in {0, 1}, "ignore" class indices with some pixels at 255.
LOSSES: dict[str, tuple[str, dict[str, Any], str]] = {
    "DiceLoss.binary": ("DiceLoss", {"mode": "binary"}, "binary"),
    "DiceLoss.multiclass": ("DiceLoss", {"mode": "multiclass"}, "multiclass"),
    "DiceLoss.multilabel": ("DiceLoss", {"mode": "multilabel"}, "multilabel"),
    "DiceLoss.multiclass_log_classes": ("DiceLoss", {"mode": "multiclass", "log_loss": True, "classes": [1, 2],
                                                     "smooth": 1.0}, "multiclass"),
    "DiceLoss.multiclass_ignore": ("DiceLoss", {"mode": "multiclass", "ignore_index": 255}, "ignore"),
    "DiceLoss.binary_probabilities": ("DiceLoss", {"mode": "binary", "from_logits": False}, "binary"),
    "JaccardLoss.binary": ("JaccardLoss", {"mode": "binary"}, "binary"),
    "JaccardLoss.multiclass": ("JaccardLoss", {"mode": "multiclass"}, "multiclass"),
    "JaccardLoss.multilabel": ("JaccardLoss", {"mode": "multilabel", "log_loss": True}, "multilabel"),
    "FocalLoss.binary": ("FocalLoss", {"mode": "binary"}, "binary"),
    "FocalLoss.multiclass": ("FocalLoss", {"mode": "multiclass"}, "multiclass"),
    "FocalLoss.multiclass_ignore": ("FocalLoss", {"mode": "multiclass", "ignore_index": 255}, "ignore"),
    "FocalLoss.multilabel_alpha": ("FocalLoss", {"mode": "multilabel", "alpha": 0.25}, "multilabel"),
    "FocalLoss.binary_reduced": ("FocalLoss", {"mode": "binary", "reduced_threshold": 0.5, "normalized": True},
                                 "binary"),
    "LovaszLoss.binary": ("LovaszLoss", {"mode": "binary"}, "binary"),
    "LovaszLoss.binary_per_image": ("LovaszLoss", {"mode": "binary", "per_image": True}, "binary"),
    "LovaszLoss.multiclass": ("LovaszLoss", {"mode": "multiclass"}, "multiclass"),
    "LovaszLoss.multiclass_ignore": ("LovaszLoss", {"mode": "multiclass", "ignore_index": 255}, "ignore"),
    "LovaszLoss.multilabel": ("LovaszLoss", {"mode": "multilabel"}, "multilabel"),
    "TverskyLoss.binary": ("TverskyLoss", {"mode": "binary"}, "binary"),
    "TverskyLoss.multiclass": ("TverskyLoss", {"mode": "multiclass", "alpha": 0.3, "beta": 0.7, "gamma": 1.5},
                               "multiclass"),
    "TverskyLoss.multilabel": ("TverskyLoss", {"mode": "multilabel"}, "multilabel"),
    "SoftBCEWithLogitsLoss": ("SoftBCEWithLogitsLoss", {}, "binary"),
    "SoftBCEWithLogitsLoss.smooth_ignore": ("SoftBCEWithLogitsLoss", {"smooth_factor": 0.1, "ignore_index": 255},
                                            "binary_ignore"),
    "SoftCrossEntropyLoss": ("SoftCrossEntropyLoss", {"smooth_factor": 0.1}, "multiclass"),
    "SoftCrossEntropyLoss.ignore": ("SoftCrossEntropyLoss", {"smooth_factor": 0.1, "ignore_index": 255}, "ignore"),
    "MCCLoss": ("MCCLoss", {}, "binary"),
}
# Metric name -> (``get_stats`` mode, its keywords, score function, reduction).
METRICS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "binary.iou_score.micro": ("binary", {"threshold": 0.5}, "iou_score", "micro"),
    "binary.f1_score.micro-imagewise": ("binary", {"threshold": 0.5}, "f1_score", "micro-imagewise"),
    "multilabel.accuracy.macro": ("multilabel", {"threshold": 0.5}, "accuracy", "macro"),
    "multilabel.recall.none": ("multilabel", {"threshold": 0.5}, "recall", "none"),
    "multiclass.iou_score.macro": ("multiclass", {"num_classes": CLASSES}, "iou_score", "macro"),
    "multiclass.fbeta_score.weighted": ("multiclass", {"num_classes": CLASSES}, "fbeta_score", "weighted"),
    "multiclass_ignore.precision.micro": ("multiclass", {"num_classes": CLASSES, "ignore_index": 255},
                                          "precision", "micro"),
    "multiclass.balanced_accuracy.macro-imagewise": ("multiclass", {"num_classes": CLASSES}, "balanced_accuracy",
                                                     "macro-imagewise"),
}


def names() -> list[str]:
    models = list(MODELS) + [f"{model}.predict" for model in PREDICT]
    models += [f"train.{name}" for name in TRAIN]
    return models + [f"loss.{name}" for name in LOSSES] + [f"metric.{name}" for name in METRICS]


def _model(name: str) -> Any:
    import segmentation_models_pytorch as smp

    cls, keywords = MODELS[name]
    keywords = {"encoder_name": "resnet18", "classes": CLASSES, **keywords}
    model = getattr(smp, cls)(encoder_weights=None, **keywords)
    if name == "Unet.frozen_encoder":
        model.freeze_encoder()
    return model


def _images(name: str) -> Any:
    import torch

    channels = MODELS[name][1].get("in_channels", 3)
    side = SIDES.get(MODELS[name][0], SIDE)
    return torch.randn(BATCH, channels, side, side, generator=torch.Generator().manual_seed(1))


def _target(kind: str, classes: int, side: int = 32) -> Any:
    import torch

    gen = torch.Generator().manual_seed(2)
    if kind in ("binary", "binary_ignore"):
        target = torch.randint(0, 2, (BATCH, 1, side, side), generator=gen).float()
        if kind == "binary_ignore":
            target[:, :, :4] = 255
        return target
    if kind == "multilabel":
        return torch.randint(0, 2, (BATCH, classes, side, side), generator=gen).float()
    target = torch.randint(0, classes, (BATCH, side, side), generator=gen)
    if kind == "ignore":
        target[:, :4] = 255
    return target


def _loss(name: str) -> tuple[Any, str]:
    from segmentation_models_pytorch import losses

    cls, keywords, kind = LOSSES[name]
    return getattr(losses, cls)(**keywords), kind


def _train(name: str) -> Built:
    import torch
    from torch import nn

    model_name, loss_name = name.rsplit(".", 1)
    model = _model(model_name)
    loss, kind = _loss(TRAIN[name])
    classes = 1 if kind.startswith("binary") else CLASSES
    target = _target(kind, classes, SIDE)

    class _TrainStep(nn.Module):
        """A training step up to the backward pass: the model's masks (the first output when it has a
        classification head) and the loss against the target masks."""

        def __init__(self) -> None:
            super().__init__()
            self.model, self.loss = model, loss

        def forward(self, images: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            masks = self.model(images)
            if isinstance(masks, tuple):
                masks = masks[0]
            return self.loss(masks, target)

        def entry_points(self) -> list[Any]:
            return [type(self.model), type(self.loss)]

    return _TrainStep(), (_images(model_name), target), {}


def _metric(name: str) -> Built:
    import torch
    from segmentation_models_pytorch import metrics
    from torch import nn

    mode, keywords, score, reduction = METRICS[name]
    gen = torch.Generator().manual_seed(3)
    if mode == "multiclass":
        output = torch.randint(0, CLASSES, (BATCH, 32, 32), generator=gen)
        target = _target("ignore" if "ignore_index" in keywords else "multiclass", CLASSES)
    else:
        channels = 1 if mode == "binary" else CLASSES
        output = torch.rand(BATCH, channels, 32, 32, generator=gen)
        target = _target(mode, channels).long()
    score_fn = getattr(metrics, score)

    class _Metric(nn.Module):
        """``get_stats`` on predicted and true masks, then a score of the counts."""

        def forward(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            tp, fp, fn, tn = metrics.get_stats(output, target, mode=mode, **keywords)
            weights = [1.0, 2.0, 1.0] if reduction == "weighted" else None
            return score_fn(tp, fp, fn, tn, reduction=reduction, class_weights=weights)

        def entry_points(self) -> list[Any]:
            return [metrics.get_stats, score_fn]

    return _Metric(), (output, target), {}


def build(name: str) -> Built:
    import warnings

    import torch

    import gt_models

    warnings.filterwarnings("ignore")  # the ``timm-`` encoders' deprecation notes
    gt_models.allow_torchvision_import()
    torch.manual_seed(0)
    group, rest = name.split(".", 1) if "." in name else (name, "")
    if group == "train":
        return _train(rest)
    if group == "loss":
        loss, kind = _loss(rest)
        classes = 1 if kind.startswith("binary") or LOSSES[rest][0] == "MCCLoss" else CLASSES
        logits = torch.randn(BATCH, classes, 32, 32, generator=torch.Generator().manual_seed(1))
        return loss, (logits, _target(kind, classes)), {}
    if group == "metric":
        return _metric(rest)
    if name.endswith(".predict"):
        from gt_calls import Method

        model_name = name[: -len(".predict")]
        return Method(_model(model_name), "predict"), (_images(model_name),), {}
    return _model(name), (_images(name),), {}
