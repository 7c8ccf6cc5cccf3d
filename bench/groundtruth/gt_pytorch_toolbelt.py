"""Ground-truth bench, pytorch_toolbelt: its losses, building blocks, encoders and decoders, test-time augmentation.

pytorch-toolbelt is a grab-bag of PyTorch pieces for segmentation and classification pipelines: losses
(focal, Dice, Jaccard, Lovasz, soft cross-entropy, bi-tempered, ...) with their functional forms, modules
(activations by name, squeeze-and-excitation gates, ASPP, FPN and U-Net blocks, coord conv, DropBlock,
global poolings), encoders that wrap torchvision and timm backbones or are written in the library (U-Net,
hourglass, SegFormer's MiT, Swin), decoders and heads that work on their feature-map specifications, and
GPU-friendly test-time augmentation (D2 / D4 / flips / multi-scale / five-crop wrappers) with ensembling.
So the tables cover, on tiny images (batch 2, 8x8 to 32x32):

- ``LOSSES``: every loss class in its modes (binary, multiclass, multilabel), with ``from_logits``,
  ``smooth``, ``log_loss``, ``ignore_index``, class subsets and weights, per-image Lovasz, label smoothing,
  reductions; ``FUNCTIONS``: the functional forms (focal, soft Dice / Jaccard scores, wing, label-smoothed
  NLL, balanced BCE, bi-tempered loss and tempered softmax in both temperature regimes, soft micro F1);
- ``MODULES``: activations by name and the custom-autograd Swish / Mish, ABN / AGN, SCSE gates, SRM,
  ASPP (plain and separable), FPN blocks and fusions, coord conv, DropBlock (2-D, 3-D, scheduled),
  DropPath, every global pooling, depthwise-separable convs, object-context blocks, U-Net blocks and the
  upsample blocks by name;
- ``ENCODERS``: the U-Net, hourglass, MiT and Swin encoders at tiny widths, ResNet-18 (torchvision) and a
  timm ``GenericTimmEncoder`` with ``pretrained=False``; ``DECODERS``: FPN, U-Net, BiFPN, CAN, DeepLabV3 /
  V3+ decoders and the segmentation and classification heads over a U-Net encoder's feature maps;
- ``TTA``: ``GeneralizedTTA`` with D2 / D4 / flip augmentations (tensors, dicts and lists of outputs),
  ``TTAWrapper`` over the ``*_image2label`` / ``*_image2mask`` functions, ``MultiscaleTTA``, the
  de-augmentations under each reduction (mean, sum, geometric / harmonic / log-odds means), the ensembling
  wrappers, and the tensor functions of ``inference.functional`` and ``utils.torch_utils``;
- ``TRAIN``: steps with ``loss.backward()`` through tiny models (segmentation with Dice plus focal, Lovasz,
  Jaccard, classification with soft cross-entropy and GeM, bi-tempered and the custom-autograd activations,
  a training-time D4 TTA), each followed by an SGD step.

Random inputs and weights, nothing downloaded (``pretrained=False`` everywhere). ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
CLASSES = 4

# Model name -> (loss class in ``pytorch_toolbelt.losses``, constructor keywords, inputs).
# Inputs: "binary" [B,1,H,W] logits and 0/1 targets; "multiclass" [B,C,H,W] logits and [B,H,W] labels;
# "multilabel" [B,C,H,W] logits and 0/1 targets; "classes" [B,C] logits and [B] labels; "regression"
# [B,D] predictions and targets; "binary_hw" [B,H,W] logits and 0/1 targets. A "_ignore" suffix marks
# some targets with the ignored value.
LOSSES: dict[str, tuple[str, dict[str, Any], str]] = {
    "BinaryFocalLoss": ("BinaryFocalLoss", {}, "binary"),
    "BinaryFocalLoss.alpha.sum": ("BinaryFocalLoss", {"alpha": 0.25, "reduction": "sum"}, "binary"),
    "BinaryFocalLoss.normalized": ("BinaryFocalLoss", {"normalized": True}, "binary"),
    "BinaryFocalLoss.reduced_threshold": ("BinaryFocalLoss", {"reduced_threshold": 0.5}, "binary"),
    "BinaryFocalLoss.labels.ignore_index": ("BinaryFocalLoss", {"ignore_index": -100}, "multiclass_ignore"),
    "BinaryFocalLoss.labels.one_hot": ("BinaryFocalLoss", {}, "multiclass"),
    "BinaryFocalLoss.softmax": ("BinaryFocalLoss", {"activation": "softmax", "softmax_dim": 1}, "multilabel"),
    "BinaryFocalLoss.class_weights": ("BinaryFocalLoss", {"class_weights": [1.0, 2.0, 0.5, 1.0]}, "multilabel"),
    "BinaryFocalLoss.batchwise_mean": ("BinaryFocalLoss", {"reduction": "batchwise_mean"}, "multilabel"),
    "CrossEntropyFocalLoss": ("CrossEntropyFocalLoss", {}, "multiclass"),
    "CrossEntropyFocalLoss.ignore_index": ("CrossEntropyFocalLoss", {"ignore_index": -100}, "multiclass_ignore"),
    "CrossEntropyFocalLoss.normalized": ("CrossEntropyFocalLoss", {"normalized": True}, "multiclass"),
    "CrossEntropyFocalLoss.reduced.weights": (
        "CrossEntropyFocalLoss", {"reduced_threshold": 0.5, "class_weights": "tensor"}, "multiclass"),
    "CrossEntropyFocalLoss.classes.sum": ("CrossEntropyFocalLoss", {"reduction": "sum"}, "classes"),
    "FocalLoss.deprecated": ("FocalLoss", {}, "multiclass"),
    "DiceLoss.binary": ("DiceLoss", {"mode": "binary"}, "binary"),
    "DiceLoss.binary.ignore_index": ("DiceLoss", {"mode": "binary", "ignore_index": -1}, "binary_ignore"),
    "DiceLoss.binary.probabilities": ("DiceLoss", {"mode": "binary", "from_logits": False}, "binary_prob"),
    "DiceLoss.multiclass": ("DiceLoss", {"mode": "multiclass"}, "multiclass"),
    "DiceLoss.multiclass.ignore_index": (
        "DiceLoss", {"mode": "multiclass", "ignore_index": -100}, "multiclass_ignore"),
    "DiceLoss.multiclass.log_loss": ("DiceLoss", {"mode": "multiclass", "log_loss": True}, "multiclass"),
    "DiceLoss.multilabel.smooth": ("DiceLoss", {"mode": "multilabel", "smooth": 1.0}, "multilabel"),
    "DiceLoss.multilabel.ignore_index": ("DiceLoss", {"mode": "multilabel", "ignore_index": -1}, "multilabel_ignore"),
    "JaccardLoss.binary": ("JaccardLoss", {"mode": "binary"}, "binary"),
    "JaccardLoss.multiclass": ("JaccardLoss", {"mode": "multiclass"}, "multiclass"),
    "JaccardLoss.multiclass.classes": ("JaccardLoss", {"mode": "multiclass", "classes": [0, 3]}, "multiclass"),
    "JaccardLoss.multilabel.log_loss.smooth": (
        "JaccardLoss", {"mode": "multilabel", "log_loss": True, "smooth": 1.0}, "multilabel"),
    "JaccardLoss.binary.probabilities": ("JaccardLoss", {"mode": "binary", "from_logits": False}, "binary_prob"),
    "BinaryLovaszLoss": ("BinaryLovaszLoss", {}, "binary_hw"),
    "BinaryLovaszLoss.per_image": ("BinaryLovaszLoss", {"per_image": True}, "binary_hw"),
    "BinaryLovaszLoss.ignore_index": ("BinaryLovaszLoss", {"ignore_index": -1}, "binary_hw_ignore"),
    "LovaszLoss": ("LovaszLoss", {}, "multiclass"),
    "LovaszLoss.per_image": ("LovaszLoss", {"per_image": True}, "multiclass"),
    "LovaszLoss.ignore": ("LovaszLoss", {"ignore": -100}, "multiclass_ignore"),
    "SoftCrossEntropyLoss": ("SoftCrossEntropyLoss", {}, "classes"),
    "SoftCrossEntropyLoss.smooth.ignore": ("SoftCrossEntropyLoss", {"smooth_factor": 0.1}, "multiclass_ignore"),
    "SoftCrossEntropyLoss.no_ignore.sum": (
        "SoftCrossEntropyLoss", {"ignore_index": None, "reduction": "sum", "smooth_factor": 0.05}, "classes"),
    "SoftBCEWithLogitsLoss": ("SoftBCEWithLogitsLoss", {}, "multilabel"),
    "SoftBCEWithLogitsLoss.smooth.ignore": (
        "SoftBCEWithLogitsLoss", {"smooth_factor": 0.1, "ignore_index": -1}, "multilabel_ignore"),
    "SoftBCEWithLogitsLoss.pos_weight.sum": (
        "SoftBCEWithLogitsLoss", {"pos_weight": "tensor", "ignore_index": None, "reduction": "sum"}, "multilabel"),
    "BalancedBCEWithLogitsLoss": ("BalancedBCEWithLogitsLoss", {}, "binary"),
    "BalancedBCEWithLogitsLoss.ignore.gamma": (
        "BalancedBCEWithLogitsLoss", {"gamma": 2.0, "ignore_index": -1, "reduction": "sum"}, "binary_ignore"),
    "WingLoss": ("WingLoss", {}, "regression"),
    "WingLoss.sum": ("WingLoss", {"width": 2, "curvature": 0.2, "reduction": "sum"}, "regression"),
    "BiTemperedLogisticLoss": ("BiTemperedLogisticLoss", {"t1": 0.8, "t2": 1.2}, "classes"),
    "BiTemperedLogisticLoss.finite_support": (
        "BiTemperedLogisticLoss", {"t1": 0.7, "t2": 0.8, "smoothing": 0.1}, "classes"),
    "BiTemperedLogisticLoss.ignore.sum": (
        "BiTemperedLogisticLoss", {"t1": 0.9, "t2": 1.5, "ignore_index": -100, "reduction": "sum"}, "classes"),
    "BinaryBiTemperedLogisticLoss": ("BinaryBiTemperedLogisticLoss", {"t1": 0.8, "t2": 1.2}, "binary"),
    "BinaryBiTemperedLogisticLoss.ignore": (
        "BinaryBiTemperedLogisticLoss", {"t1": 0.8, "t2": 1.2, "smoothing": 0.1, "ignore_index": -1}, "binary"),
    "QualityFocalLoss": ("QualityFocalLoss", {}, "multilabel_soft"),
    "QualityFocalLoss.normalized": ("QualityFocalLoss", {"reduction": "normalized"}, "multilabel_soft"),
    "QualityFocalLoss.sum": ("QualityFocalLoss", {"reduction": "sum", "beta": 1.5}, "multilabel_soft"),
    "LogCoshLoss": ("LogCoshLoss", {}, "regression"),
    "FocalCosineLoss": ("FocalCosineLoss", {}, "classes"),
    "BinarySoftF1Loss": ("BinarySoftF1Loss", {}, "binary"),
    "BinarySoftF1Loss.ignore_index": ("BinarySoftF1Loss", {"ignore_index": -1}, "binary_ignore"),
    "SoftF1Loss": ("SoftF1Loss", {}, "classes"),
    "SoftF1Loss.ignore_index": ("SoftF1Loss", {"ignore_index": -1}, "classes"),
}

# Model name -> (module, function, inputs as for ``LOSSES``, fixed keywords).
FUNCTIONS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "focal_loss_with_logits": ("losses.functional", "focal_loss_with_logits", "binary", {}),
    "focal_loss_with_logits.ignore.none": (
        "losses.functional", "focal_loss_with_logits", "binary_ignore", {"ignore_index": -1, "reduction": "none"}),
    "softmax_focal_loss_with_logits": ("losses.functional", "softmax_focal_loss_with_logits", "multiclass", {}),
    "softmax_focal_loss_with_logits.batchwise": (
        "losses.functional", "softmax_focal_loss_with_logits", "multiclass_ignore",
        {"reduction": "batchwise_mean", "normalized": True}),
    "sigmoid_focal_loss.deprecated": ("losses.functional", "sigmoid_focal_loss", "binary", {}),
    "reduced_focal_loss": ("losses.functional", "reduced_focal_loss", "binary", {}),
    "soft_dice_score": ("losses.functional", "soft_dice_score", "multilabel_prob", {"dims": (0, 2, 3)}),
    "soft_dice_score.no_dims": ("losses.functional", "soft_dice_score", "multilabel_prob", {"smooth": 1.0}),
    "soft_jaccard_score": ("losses.functional", "soft_jaccard_score", "multilabel_prob", {"dims": (0, 2, 3)}),
    "wing_loss": ("losses.functional", "wing_loss", "regression", {}),
    "label_smoothed_nll_loss": (
        "losses.functional", "label_smoothed_nll_loss", "classes_logprob", {"epsilon": 0.1, "dim": 1}),
    "label_smoothed_nll_loss.ignore.sum": (
        "losses.functional", "label_smoothed_nll_loss", "classes_logprob",
        {"epsilon": 0.1, "ignore_index": 2, "reduction": "sum", "dim": 1}),
    "log_cosh_loss": ("losses.functional", "log_cosh_loss", "regression", {}),
    "balanced_binary_cross_entropy_with_logits": (
        "losses.balanced_bce", "balanced_binary_cross_entropy_with_logits", "binary", {}),
    "bi_tempered_logistic_loss.one_hot": (
        "losses.bitempered_loss", "bi_tempered_logistic_loss", "classes_one_hot", {"t1": 0.8, "t2": 1.3}),
    "bi_tempered_logistic_loss.t1_one.none": (
        "losses.bitempered_loss", "bi_tempered_logistic_loss", "classes",
        {"t1": 1.0, "t2": 1.0, "reduction": "none"}),
    "tempered_softmax.heavy_tail": ("losses.bitempered_loss", "tempered_softmax", "logits", {"t": 1.5}),
    "tempered_softmax.finite_support": ("losses.bitempered_loss", "tempered_softmax", "logits", {"t": 0.7}),
    "soft_micro_f1": ("losses.soft_f1", "soft_micro_f1", "multilabel_prob", {}),
}

MODULES = (
    "Mish", "MishNaive", "Swish", "SwishNaive", "HardSwish", "HardSigmoid", "mish", "swish", "hard_swish",
    "instantiate_activation_block.all", "ABN.leaky_relu", "AGN.mish", "ChannelGate2d", "SpatialGate2d",
    "SpatialGate2d.squeeze_channels", "ChannelSpatialGate2d", "SpatialGate2dV2", "ChannelSpatialGate2dV2",
    "SRMLayer", "ASPP", "ASPP.separable", "FPNContextBlock", "FPNBottleneckBlock", "FPNFuse", "FPNFuseSum",
    "HFF", "CoordConv", "CoordConv.with_r", "append_coords", "DropBlock2D", "DropBlock3D", "DropBlockScheduled",
    "DropPath", "GlobalAvgPool2d", "GlobalMaxPool2d.flatten", "GlobalKMaxPool2d", "GlobalWeightedAvgPool2d",
    "RMSPool", "MILCustomPoolingModule", "GlobalRankPooling", "GeneralizedMeanPooling2d",
    "GeneralizedMeanPooling2d.l2_normalize", "GlobalMaxAvgPooling2d", "DepthwiseSeparableConv2dBlock",
    "ObjectContextBlock", "ASPObjectContextBlock", "PyramidObjectContextBlock", "UnetBlock",
    "UnetResidualBlock.drop_path", "upsample.nearest", "upsample.bilinear", "upsample.pixel_shuffle",
    "upsample.pixel_shuffle_linear", "upsample.deconv", "upsample.residual_deconv", "BilinearAdditiveUpsample2d",
)
ENCODERS = (
    "UnetEncoder", "UnetEncoder.avg_pool", "StackedHGEncoder", "StackedSupervisedHGEncoder",
    "MixVisionTransformer", "SwinTransformer", "Resnet18Encoder", "GenericTimmEncoder.resnet10t",
)
DECODERS = (
    "FPNDecoder", "FPNDecoder.deconv", "UNetDecoder", "UNetDecoder.residual.pixel_shuffle", "BiFPNDecoder",
    "BiFPNDecoder.separable", "CANDecoder", "DeeplabV3Decoder", "DeeplabV3PlusDecoder", "ResizeHead",
    "ResizeHead.output_name", "HypercolumnHead", "DeepSupervisionHead", "DeepSupervisionHead.prefix",
    "ProgressiveShuffleHead", "GlobalAveragePoolingClassificationHead", "GlobalMaxPoolingClassificationHead",
    "GlobalMaxAvgPoolingClassificationHead", "GeneralizedMeanPoolingClassificationHead", "SegFormerHead",
    "SegFormerHead.supervision",
)
TTA = (
    "GeneralizedTTA.d2.mask", "GeneralizedTTA.d4.mask", "GeneralizedTTA.flips.mask", "GeneralizedTTA.fliplr.mask",
    "GeneralizedTTA.flipud.mask", "GeneralizedTTA.d4.labels", "GeneralizedTTA.d2.labels",
    "GeneralizedTTA.flips.labels", "GeneralizedTTA.dict", "GeneralizedTTA.list", "TTAWrapper.fliplr_image2label",
    "TTAWrapper.fliplr_image2mask", "TTAWrapper.d4_image2label", "TTAWrapper.d4_image2mask",
    "TTAWrapper.fivecrop_image2label", "TTAWrapper.tencrop_image2label", "MultiscaleTTA", "MultiscaleTTA.dict",
    "MultiscaleTTA.labels", "d4_image_deaugment.gmean", "d4_image_deaugment.hmean", "d4_image_deaugment.logodd",
    "d4_image_deaugment.log1p", "d4_image_deaugment.harmonic1p", "d4_image_deaugment.sum",
    "d2_image_deaugment.none", "d4_image_augment", "d4_labels_augment", "Ensembler.mean", "Ensembler.gmean.dict",
    "Ensembler.outputs.list", "ApplySoftmaxTo", "ApplySigmoidTo", "PickModelOutput", "pad_unpad_image_tensor",
    "pad_tensor_to_size", "torch_rotations", "means", "resize_like", "torch_utils.tensors",
)
TRAIN = (
    "train_step.segmentation.dice_focal", "train_step.segmentation.lovasz_jaccard", "train_step.unet.soft_bce",
    "train_step.classifier.soft_ce_gem", "train_step.bitempered", "train_step.swish_mish.autograd",
    "train_step.d4_tta.dice", "train_step.deeplab.focal",
)


def names() -> list[str]:
    return list(LOSSES) + list(FUNCTIONS) + list(MODULES) + list(ENCODERS) + list(DECODERS) + list(TTA) + list(TRAIN)


def _import() -> Any:
    from gt_models import allow_torchvision_import

    allow_torchvision_import()
    import pytorch_toolbelt

    return pytorch_toolbelt


def _rand(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _ints(high: int, *shape: int, seed: int = 2) -> Any:
    import torch

    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed))


def _ignored(target: Any, value: int) -> Any:
    """``target`` with about a fifth of its entries set to the ignored ``value``."""
    import torch

    mask = torch.rand(target.shape, generator=torch.Generator().manual_seed(7)) < 0.2
    return target.masked_fill(mask, value)


def _inputs(kind: str) -> tuple[Any, ...]:
    """(prediction, target) for a loss, as listed above ``LOSSES``."""
    b, c, h = BATCH, CLASSES, 8
    if kind == "binary":
        return _rand(b, 1, h, h), _ints(2, b, 1, h, h).float()
    if kind == "binary_ignore":
        return _rand(b, 1, h, h), _ignored(_ints(2, b, 1, h, h).float(), -1)
    if kind == "binary_prob":
        return _rand(b, 1, h, h).sigmoid(), _ints(2, b, 1, h, h).float()
    if kind == "binary_hw":
        return _rand(b, h, h), _ints(2, b, h, h).float()
    if kind == "binary_hw_ignore":
        return _rand(b, h, h), _ignored(_ints(2, b, h, h).float(), -1)
    if kind == "multiclass":
        return _rand(b, c, h, h), _ints(c, b, h, h)
    if kind == "multiclass_ignore":
        return _rand(b, c, h, h), _ignored(_ints(c, b, h, h), -100)
    if kind == "multilabel":
        return _rand(b, c, h, h), _ints(2, b, c, h, h).float()
    if kind == "multilabel_ignore":
        return _rand(b, c, h, h), _ignored(_ints(2, b, c, h, h).float(), -1)
    if kind == "multilabel_soft":
        return _rand(b, c, h, h), _rand(b, c, h, h, seed=3).sigmoid()
    if kind == "multilabel_prob":
        return _rand(b, c, h, h).sigmoid(), _ints(2, b, c, h, h).float()
    if kind == "classes":
        return _rand(2 * b, c + 1), _ints(c + 1, 2 * b)
    if kind == "classes_logprob":
        return _rand(2 * b, c + 1).log_softmax(dim=1), _ints(c + 1, 2 * b)
    if kind == "classes_one_hot":
        import torch

        return _rand(2 * b, c + 1), torch.nn.functional.one_hot(_ints(c + 1, 2 * b), c + 1).float()
    if kind == "logits":
        return (_rand(2 * b, c + 1),)
    if kind == "regression":
        return _rand(2 * b, 10), _rand(2 * b, 10, seed=3)
    raise KeyError(kind)


def _losses(name: str) -> Built:
    import torch

    _import()
    from pytorch_toolbelt import losses

    cls, kwargs, kind = LOSSES[name]
    kwargs = dict(kwargs)
    if kwargs.get("class_weights") == "tensor":
        kwargs["class_weights"] = torch.tensor([1.0, 2.0, 0.5, 1.0])
    if kwargs.get("pos_weight") == "tensor":
        kwargs["pos_weight"] = torch.full((CLASSES, 1, 1), 2.0)
    return getattr(losses, cls)(**kwargs), _inputs(kind), {}


def _functions(name: str) -> Built:
    import importlib

    from gt_calls import Call

    _import()
    module, function, kind, static = FUNCTIONS[name]
    fn = getattr(importlib.import_module(f"pytorch_toolbelt.{module}"), function)
    return Call(fn, **static), _inputs(kind), {}


def _modules(name: str) -> Built:
    import torch
    from torch import nn

    _import()
    from pytorch_toolbelt import modules as M
    from pytorch_toolbelt.modules import activations, upsample
    from pytorch_toolbelt.modules.spp import ASPP, ASPPModule, SeparableASPPModule

    from gt_calls import Call, Run

    x = _rand(BATCH, 8, 8, 8)
    if name in {"Mish", "MishNaive", "Swish", "SwishNaive", "HardSwish", "HardSigmoid"}:
        return getattr(activations, name)(), (x,), {}
    if name in {"mish", "swish", "hard_swish"}:
        return Call(getattr(activations, name)), (x,), {}
    if name == "instantiate_activation_block.all":
        acts = ["relu", "relu6", "leaky_relu", "elu", "selu", "silu", "celu", "gelu", "mish", "mish_naive",
                "swish", "swish_naive", "hard_sigmoid", "hard_swish", "softplus", "sigmoid", "none"]
        blocks = [activations.instantiate_activation_block(a, inplace=False, slope=0.1) for a in acts]
        blocks.append(activations.instantiate_activation_block("prelu", num_parameters=8))
        blocks.append(activations.instantiate_activation_block("softmax", dim=1))
        return nn.Sequential(*blocks), (x,), {}
    if name == "ABN.leaky_relu":
        return activations.ABN(8, activation="leaky_relu", inplace=False), (x,), {}
    if name == "AGN.mish":
        return activations.AGN(8, num_groups=2, activation="mish"), (x,), {}
    simple: dict[str, Any] = {
        "ChannelGate2d": lambda: M.ChannelGate2d(8),
        "SpatialGate2d": lambda: M.SpatialGate2d(8, reduction=2),
        "SpatialGate2d.squeeze_channels": lambda: M.SpatialGate2d(8, squeeze_channels=3),
        "ChannelSpatialGate2d": lambda: M.ChannelSpatialGate2d(8, reduction=2),
        "SpatialGate2dV2": lambda: M.SpatialGate2dV2(8, reduction=2),
        "ChannelSpatialGate2dV2": lambda: M.ChannelSpatialGate2dV2(8, reduction=2),
        "SRMLayer": lambda: M.SRMLayer(8),
        "ASPP": lambda: ASPP(8, 4, ASPPModule, atrous_rates=(1, 2), dropout=0.1),
        "ASPP.separable": lambda: ASPP(8, 4, SeparableASPPModule, atrous_rates=(2,), activation="silu"),
        "FPNContextBlock": lambda: M.FPNContextBlock(8, 4, dropout=0.1),
        "FPNBottleneckBlock": lambda: M.FPNBottleneckBlock(8, 4, dropout=0.1),
        "CoordConv": lambda: M.CoordConv(8, 4, kernel_size=3, padding=1),
        "CoordConv.with_r": lambda: M.CoordConv(8, 4, with_r=True, kernel_size=1),
        "DropBlock2D": lambda: M.DropBlock2D(drop_prob=0.2, block_size=3),
        "DropBlockScheduled": lambda: M.DropBlockScheduled(
            M.DropBlock2D(drop_prob=0.0, block_size=3), start_value=0.0, stop_value=0.2, nr_steps=5),
        "DropPath": lambda: M.DropPath(0.2),
        "GlobalAvgPool2d": lambda: M.GlobalAvgPool2d(),
        "GlobalMaxPool2d.flatten": lambda: M.GlobalMaxPool2d(flatten=True),
        "GlobalKMaxPool2d": lambda: M.GlobalKMaxPool2d(k=3, flatten=True),
        "GlobalWeightedAvgPool2d": lambda: M.GlobalWeightedAvgPool2d(8, flatten=True),
        "MILCustomPoolingModule": lambda: M.MILCustomPoolingModule(8, 3, reduction=2),
        "GlobalRankPooling": lambda: M.GlobalRankPooling(8, 64, flatten=True),
        "GeneralizedMeanPooling2d": lambda: M.GeneralizedMeanPooling2d(p=3.0),
        "GeneralizedMeanPooling2d.l2_normalize": lambda: M.GeneralizedMeanPooling2d(flatten=True, l2_normalize=True),
        "GlobalMaxAvgPooling2d": lambda: M.GlobalMaxAvgPooling2d(flatten=True),
        "DepthwiseSeparableConv2dBlock": lambda: M.DepthwiseSeparableConv2dBlock(8, 4, activation="relu"),
        "ObjectContextBlock": lambda: M.ObjectContextBlock(8, 8, 4, 4, dropout=0.1, sizes=[1, 2]),
        "ASPObjectContextBlock": lambda: M.ASPObjectContextBlock(8, out_features=8, dilations=(1, 2, 3)),
        "PyramidObjectContextBlock": lambda: M.PyramidObjectContextBlock(8, 8, sizes=[1, 2]),
        "UnetBlock": lambda: M.UnetBlock(8, 4),
        "UnetResidualBlock.drop_path": lambda: M.UnetResidualBlock(8, 4, drop_path_rate=0.1),
    }
    if name in simple:
        return simple[name](), (x,), {}
    if name in {"FPNFuse", "FPNFuseSum"}:
        maps = [_rand(BATCH, 4, 8, 8), _rand(BATCH, 4, 4, 4, seed=2), _rand(BATCH, 4, 2, 2, seed=3)]
        return getattr(M, name)(), (maps,), {}
    if name == "HFF":
        maps = [_rand(BATCH, 4, 8, 8), _rand(BATCH, 4, 4, 4, seed=2), _rand(BATCH, 4, 2, 2, seed=3)]
        return M.HFF(upsample_scale=2), (maps,), {}
    if name == "RMSPool":
        # Its centring subtracts a [B, C] mean from [B, C, H, W] maps: it broadcasts only where H == B, W == C.
        return M.RMSPool(), (_rand(BATCH, 4, BATCH, 4),), {}
    if name == "append_coords":
        return Call(M.append_coords, with_r=True), (x,), {}
    if name == "DropBlock3D":
        return M.DropBlock3D(drop_prob=0.2, block_size=3), (_rand(BATCH, 4, 6, 6, 6),), {}
    if name.startswith("upsample.") or name == "BilinearAdditiveUpsample2d":
        kind = name.split(".", 1)[1] if name.startswith("upsample.") else upsample.BilinearAdditiveUpsample2d
        block = upsample.instantiate_upsample_block(kind, in_channels=8, scale_factor=2)

        def resize(owner: Any, features: torch.Tensor) -> torch.Tensor:
            return owner(features, output_size=(16, 16))

        return Run(block, resize, [type(block)]), (x,), {}
    raise KeyError(name)


def _encoder(name: str) -> tuple[Any, Any]:
    """An encoder and its input."""
    from functools import partial

    from torch import nn

    _import()
    from pytorch_toolbelt.modules import encoders as E

    if name == "UnetEncoder":
        return E.UnetEncoder(in_channels=3, out_channels=4, num_layers=4), _rand(BATCH, 3, 16, 16)
    if name == "UnetEncoder.avg_pool":
        return E.UnetEncoder(3, 4, num_layers=3, pool_block=partial(nn.AvgPool2d, kernel_size=2)), \
            _rand(BATCH, 3, 16, 16)
    if name == "StackedHGEncoder":
        return E.StackedHGEncoder(stack_level=2, depth=2, features=8), _rand(BATCH, 3, 32, 32)
    if name == "StackedSupervisedHGEncoder":
        return E.StackedSupervisedHGEncoder(supervision_channels=2, stack_level=2, depth=2, features=8), \
            _rand(BATCH, 3, 32, 32)
    if name == "MixVisionTransformer":
        return E.MixVisionTransformer(embed_dims=[8, 16, 16, 32], num_heads=[1, 1, 2, 2], depths=[1, 1, 1, 1],
                                      qkv_bias=True, sr_ratios=[4, 2, 1, 1]), _rand(BATCH, 3, 32, 32)
    if name == "SwinTransformer":
        return E.SwinTransformer(embed_dim=8, depths=[1, 1, 2, 1], num_heads=[1, 1, 2, 2], window_size=2,
                                 drop_path_rate=0.1), _rand(BATCH, 3, 32, 32)
    if name == "Resnet18Encoder":
        return E.Resnet18Encoder(pretrained=False, layers=[0, 1, 2, 3, 4]), _rand(BATCH, 3, 32, 32)
    if name == "GenericTimmEncoder.resnet10t":
        return E.GenericTimmEncoder("resnet10t", pretrained=False), _rand(BATCH, 3, 32, 32)
    raise KeyError(name)


def _unet_features(layers: int = 4) -> tuple[Any, list[Any]]:
    """A tiny U-Net encoder's output specification and its feature maps of a 16x16 image (strides 1 to 8)."""
    import torch

    _import()
    from pytorch_toolbelt.modules.encoders import UnetEncoder

    encoder = UnetEncoder(in_channels=3, out_channels=4, num_layers=layers)
    with torch.no_grad():
        maps = [m.detach() for m in encoder(_rand(BATCH, 3, 16, 16))]
    return encoder.get_output_spec(), maps


def _decoders(name: str) -> Built:
    import torch

    _import()
    from pytorch_toolbelt.modules import decoders as D
    from pytorch_toolbelt.modules import heads as H
    from pytorch_toolbelt.modules.dsconv import DepthwiseSeparableConv2dBlock
    from pytorch_toolbelt.modules.unet import UnetResidualBlock
    from pytorch_toolbelt.modules.upsample import UpsampleLayerType

    from gt_calls import Keywords

    spec, maps = _unet_features()
    size = torch.Size((16, 16))
    with_size = {
        "ResizeHead": lambda: H.ResizeHead(spec, num_classes=2),
        "ResizeHead.output_name": lambda: H.ResizeHead(spec, num_classes=2, output_name="mask", dropout_rate=0.1),
        "HypercolumnHead": lambda: H.HypercolumnHead(spec, 2, activation="relu", normalization="batch",
                                                     mid_channels=8),
        "SegFormerHead": lambda: H.SegFormerHead(spec, 2, embedding_dim=8, with_supervision=False,
                                                 output_name=None),
        "SegFormerHead.supervision": lambda: H.SegFormerHead(spec, 2, embedding_dim=8, with_supervision=True,
                                                             output_name="mask"),
        "DeepSupervisionHead": lambda: H.DeepSupervisionHead(spec, 2),
        "DeepSupervisionHead.prefix": lambda: H.DeepSupervisionHead(spec, 2, output_name_prefix="aux"),
    }
    if name in with_size:
        return Keywords(with_size[name](), output_size=size), (maps,), {}
    plain = {
        "FPNDecoder": lambda: D.FPNDecoder(spec, out_channels=4),
        "FPNDecoder.deconv": lambda: D.FPNDecoder(
            spec, out_channels=4, upsample_block=UpsampleLayerType.DECONVOLUTION),
        "UNetDecoder": lambda: D.UNetDecoder(spec, out_channels=(8, 4, 4)),
        "UNetDecoder.residual.pixel_shuffle": lambda: D.UNetDecoder(
            spec, out_channels=(8, 4, 4), block_type=UnetResidualBlock, upsample_block=UpsampleLayerType.PIXEL_SHUFFLE,
            activation="silu", num_blocks_per_stage=2),
        "BiFPNDecoder": lambda: D.BiFPNDecoder(spec, out_channels=4, num_layers=2),
        "BiFPNDecoder.separable": lambda: D.BiFPNDecoder(spec, out_channels=4, num_layers=1,
                                                         block=DepthwiseSeparableConv2dBlock),
        "CANDecoder": lambda: D.CANDecoder(spec, out_channels=4),
        "DeeplabV3Decoder": lambda: D.DeeplabV3Decoder(spec, out_channels=4, aspp_channels=4, atrous_rates=(1, 2)),
        "DeeplabV3PlusDecoder": lambda: D.DeeplabV3PlusDecoder(spec, out_channels=4, aspp_channels=4,
                                                               low_level_channels=4, atrous_rates=(1, 2)),
        "ProgressiveShuffleHead": lambda: H.ProgressiveShuffleHead(spec, 2, activation="relu", dropout_rate=0.1,
                                                                   output_name=None),
        "GlobalAveragePoolingClassificationHead": lambda: H.GlobalAveragePoolingClassificationHead(
            spec, num_classes=3, dropout_rate=0.1),
        "GlobalMaxPoolingClassificationHead": lambda: H.GlobalMaxPoolingClassificationHead(spec, num_classes=3),
        "GlobalMaxAvgPoolingClassificationHead": lambda: H.GlobalMaxAvgPoolingClassificationHead(
            input_spec=spec, num_classes=3, activation="relu", dropout_rate=0.1),
        "GeneralizedMeanPoolingClassificationHead": lambda: H.GeneralizedMeanPoolingClassificationHead(
            input_spec=spec, num_classes=3),
    }
    return plain[name](), (maps,), {}


def _seg_model(outputs: str = "tensor") -> Any:
    """A tiny segmentation network: tensor, dict ({"mask", "logits"}) or tuple outputs."""
    import torch
    from torch import nn

    class _Seg(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.Conv2d(6, 2, 3, padding=1))
            self.fc = nn.Linear(2, 3)

        def forward(self, x: torch.Tensor) -> Any:
            mask = self.body(x)
            if outputs == "tensor":
                return mask
            logits = self.fc(mask.mean(dim=(2, 3)))
            if outputs == "dict":
                return {"mask": mask, "logits": logits}
            return mask, logits

    return _Seg()


def _cls_model() -> Any:
    from torch import nn

    _import()
    from pytorch_toolbelt.modules import GlobalAvgPool2d

    return nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), GlobalAvgPool2d(flatten=True), nn.Linear(6, 3))


def _tta(name: str) -> Built:
    import torch
    from torch import nn

    _import()
    from pytorch_toolbelt.inference import ensembling, functional as IF, tta
    from pytorch_toolbelt.utils import torch_utils

    from gt_calls import Call, Run

    image = _rand(BATCH, 3, 8, 8)
    pairs = {
        "d2": (tta.d2_image_augment, tta.d2_image_deaugment, tta.d2_labels_deaugment),
        "d4": (tta.d4_image_augment, tta.d4_image_deaugment, tta.d4_labels_deaugment),
        "flips": (tta.flips_image_augment, tta.flips_image_deaugment, tta.flips_labels_deaugment),
        "fliplr": (tta.fliplr_image_augment, tta.fliplr_image_deaugment, tta.fliplr_labels_deaugment),
        "flipud": (tta.flipud_image_augment, tta.flipud_image_deaugment, tta.flipud_labels_deaugment),
    }
    parts = name.split(".")
    if parts[0] == "GeneralizedTTA" and parts[1] in pairs:
        augment, deaugment, labels = pairs[parts[1]]
        if parts[2] == "mask":
            return tta.GeneralizedTTA(_seg_model(), augment, deaugment), (image,), {}
        return tta.GeneralizedTTA(_cls_model(), augment, labels), (image,), {}
    if name == "GeneralizedTTA.dict":
        model = tta.GeneralizedTTA(_seg_model("dict"), augment_fn=tta.d4_image_augment,
                                   deaugment_fn={"mask": tta.d4_image_deaugment, "logits": tta.d4_labels_deaugment})
        return model, (image,), {}
    if name == "GeneralizedTTA.list":
        class _Two(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.seg = _seg_model("tuple")

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                return self.seg(x + y)

        model = tta.GeneralizedTTA(_Two(), augment_fn=[tta.d2_image_augment, tta.d2_image_augment],
                                   deaugment_fn=[tta.d2_image_deaugment, tta.d2_labels_deaugment])
        return model, (image, _rand(BATCH, 3, 8, 8, seed=5)), {}
    wrappers = {
        "TTAWrapper.fliplr_image2label": (tta.fliplr_image2label, "cls", {}),
        "TTAWrapper.fliplr_image2mask": (tta.fliplr_image2mask, "seg", {}),
        "TTAWrapper.d4_image2label": (tta.d4_image2label, "cls", {}),
        "TTAWrapper.d4_image2mask": (tta.d4_image2mask, "seg", {}),
        "TTAWrapper.fivecrop_image2label": (tta.fivecrop_image2label, "cls", {"crop_size": (6, 6)}),
        "TTAWrapper.tencrop_image2label": (tta.tencrop_image2label, "cls", {"crop_size": (6, 6)}),
    }
    if name in wrappers:
        fn, kind, kwargs = wrappers[name]
        model = _cls_model() if kind == "cls" else _seg_model()
        return tta.TTAWrapper(model, fn, **kwargs), (image,), {}
    if name == "MultiscaleTTA":
        return tta.MultiscaleTTA(_seg_model(), size_offsets=[0, -2, 4]), (image,), {}
    if name == "MultiscaleTTA.dict":
        return tta.MultiscaleTTA(_seg_model("dict"), size_offsets=[0, (2, 4)],
                                 deaugment_fn={"mask": tta.ms_image_deaugment}), (image,), {}
    if name == "MultiscaleTTA.labels":
        return tta.MultiscaleTTA(_cls_model(), size_offsets=[-2, 0, 2], align_corners=True,
                                 deaugment_fn=tta.ms_labels_deaugment), (image,), {}
    if name.startswith("d4_image_deaugment.") or name == "d2_image_deaugment.none":
        reduction = parts[1]
        copies = 8 if parts[0].startswith("d4") else 4
        x = _rand(copies * BATCH, 2, 8, 8).sigmoid()
        fn = tta.d4_image_deaugment if copies == 8 else tta.d2_image_deaugment
        return Call(fn, reduction=None if reduction == "none" else reduction), (x,), {}
    if name == "d4_image_augment":
        return Call(tta.d4_image_augment), (image,), {}
    if name == "d4_labels_augment":
        return Call(tta.d4_labels_augment), (_ints(3, BATCH, 8, 8),), {}
    if name == "Ensembler.mean":
        return ensembling.Ensembler([_seg_model(), _seg_model()]), (image,), {}
    if name == "Ensembler.gmean.dict":
        members = [ensembling.ApplySigmoidTo(_seg_model("dict"), output_key="mask") for _ in range(2)]
        return ensembling.Ensembler(members, reduction="gmean"), (image,), {}
    if name == "Ensembler.outputs.list":
        return ensembling.Ensembler([_seg_model("tuple"), _seg_model("tuple")], reduction="hmean",
                                    outputs=[1]), (image,), {}
    if name == "ApplySoftmaxTo":
        return ensembling.ApplySoftmaxTo(_seg_model("dict"), output_key=["mask", "logits"], temperature=0.5), \
            (image,), {}
    if name == "ApplySigmoidTo":
        return ensembling.ApplySigmoidTo(_seg_model("dict"), output_key="logits", temperature=2), (image,), {}
    if name == "PickModelOutput":
        return ensembling.PickModelOutput(_seg_model("dict"), "mask"), (image,), {}
    if name == "pad_unpad_image_tensor":
        def pad_run(owner: Any, x: torch.Tensor) -> torch.Tensor:
            padded, pad = IF.pad_image_tensor(x, pad_size=(8, 16))
            return IF.unpad_image_tensor(owner(padded), pad)

        return Run(_seg_model(), pad_run, [IF.pad_image_tensor, IF.unpad_image_tensor]), \
            (_rand(BATCH, 3, 10, 13),), {}
    if name == "pad_tensor_to_size":
        def pad_to(owner: Any, x: torch.Tensor) -> torch.Tensor:
            padded, slices = IF.pad_tensor_to_size(x, (12, 12))
            return owner(padded)[slices]

        return Run(_seg_model(), pad_to, [IF.pad_tensor_to_size]), (_rand(BATCH, 3, 9, 10),), {}
    if name == "torch_rotations":
        fns = [IF.torch_none, IF.torch_rot90, IF.torch_rot180, IF.torch_rot270, IF.torch_flipud, IF.torch_fliplr,
               IF.torch_transpose, IF.torch_transpose2, IF.torch_rot90_ccw, IF.torch_rot90_cw,
               IF.torch_rot90_ccw_transpose, IF.torch_rot90_cw_transpose, IF.torch_transpose_rot90_ccw,
               IF.torch_transpose_rot90_cw, IF.torch_rot180_transpose, IF.torch_transpose_rot180]

        def rotations(owner: Any, x: torch.Tensor) -> torch.Tensor:
            return torch.stack([fn(x) for fn in fns]).sum(0)

        return Run(nn.Identity(), rotations, fns), (image,), {}
    if name == "means":
        fns = [IF.geometric_mean, IF.harmonic_mean, IF.harmonic1p_mean, IF.logodd_mean, IF.log1p_mean]

        def means(owner: Any, x: torch.Tensor) -> torch.Tensor:
            return torch.stack([fn(x, dim=0) for fn in fns])

        return Run(nn.Identity(), means, fns), (_rand(4, BATCH, 3).sigmoid(),), {}
    if name == "resize_like":
        return Call(torch_utils.resize_like, mode="bilinear", align_corners=False), \
            (image, _rand(BATCH, 1, 12, 12)), {}
    if name == "torch_utils.tensors":
        fns = [torch_utils.softmax_over_dim_1, torch_utils.argmax_over_dim_1, torch_utils.logit,
               torch_utils.sigmoid_with_threshold]

        def tensors(owner: Any, x: torch.Tensor) -> Any:
            probs = torch_utils.softmax_over_dim_1(x)
            return (torch_utils.logit(probs), torch_utils.argmax_over_dim_1(x),
                    torch_utils.sigmoid_with_threshold(x, 0.5), torch_utils.softmax_over_dim_2(x))

        return Run(nn.Identity(), tensors, fns), (image,), {}
    raise KeyError(name)


def _train(name: str) -> Built:
    import torch
    from torch import nn

    _import()
    from pytorch_toolbelt import losses as L
    from pytorch_toolbelt.inference import tta
    from pytorch_toolbelt.modules import activations
    from pytorch_toolbelt.modules import decoders as D
    from pytorch_toolbelt.modules import heads as H
    from pytorch_toolbelt.modules.encoders import UnetEncoder
    from pytorch_toolbelt.modules.pooling import GeneralizedMeanPooling2d

    from gt_calls import Run

    image = _rand(BATCH, 3, 16, 16)
    labels = _ints(2, BATCH, 16, 16)

    class _SegNet(nn.Module):
        def __init__(self, decoder: str) -> None:
            super().__init__()
            self.encoder = UnetEncoder(in_channels=3, out_channels=4, num_layers=3)
            spec = self.encoder.get_output_spec()
            if decoder == "fpn":
                self.decoder = D.FPNDecoder(spec, out_channels=4)
            elif decoder == "unet":
                self.decoder = D.UNetDecoder(spec, out_channels=(4, 4))
            else:
                self.decoder = D.DeeplabV3PlusDecoder(spec, out_channels=4, aspp_channels=4, low_level_channels=4,
                                                      atrous_rates=(1, 2))
            self.head = H.ResizeHead(self.decoder.get_output_spec(), num_classes=2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.decoder(self.encoder(x)), output_size=x.shape[2:])

    def step(net: nn.Module, loss_fn: Any, entries: list[Any]) -> Any:
        optimizer = torch.optim.SGD(net.parameters(), lr=0.01)

        def run(owner: Any, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = loss_fn(owner(x), y)
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(net, run, entries)

    if name == "train_step.segmentation.dice_focal":
        dice, focal = L.DiceLoss("multiclass"), L.CrossEntropyFocalLoss()
        return step(_SegNet("fpn"), lambda p, y: dice(p, y) + focal(p, y), [_SegNet, L.DiceLoss,
                                                                             L.CrossEntropyFocalLoss]), \
            (image, labels), {}
    if name == "train_step.segmentation.lovasz_jaccard":
        lovasz, jaccard = L.LovaszLoss(per_image=True), L.JaccardLoss("multiclass")
        return step(_SegNet("fpn"), lambda p, y: lovasz(p, y) + jaccard(p, y), [L.LovaszLoss, L.JaccardLoss]), \
            (image, labels), {}
    if name == "train_step.unet.soft_bce":
        bce, lovasz = L.SoftBCEWithLogitsLoss(smooth_factor=0.1), L.BinaryLovaszLoss()
        return step(_SegNet("unet"), lambda p, y: bce(p[:, 1:], y) + lovasz(p[:, 1].contiguous(), y[:, 0]),
                    [L.SoftBCEWithLogitsLoss, L.BinaryLovaszLoss]), (image, labels[:, None].float()), {}
    if name == "train_step.deeplab.focal":
        focal = L.BinaryFocalLoss(alpha=0.25, ignore_index=-100)
        return step(_SegNet("deeplab"), focal, [L.BinaryFocalLoss]), (image, _ignored(labels, -100)), {}
    if name == "train_step.classifier.soft_ce_gem":
        net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), activations.Swish(), GeneralizedMeanPooling2d(flatten=True),
                            nn.Linear(8, 5))
        ce = L.SoftCrossEntropyLoss(smooth_factor=0.1)
        return step(net, ce, [L.SoftCrossEntropyLoss, GeneralizedMeanPooling2d]), (image, _ints(5, BATCH)), {}
    if name == "train_step.bitempered":
        net = nn.Sequential(nn.Linear(10, 16), activations.Mish(), nn.Linear(16, 5))
        loss = L.BiTemperedLogisticLoss(t1=0.8, t2=1.4, smoothing=0.05)
        return step(net, loss, [L.BiTemperedLogisticLoss]), (_rand(6, 10), _ints(5, 6)), {}
    if name == "train_step.swish_mish.autograd":
        net = nn.Sequential(nn.Linear(10, 16), activations.Swish(), nn.Linear(16, 16), activations.Mish(),
                            nn.Linear(16, 16), activations.HardSwish(), nn.Linear(16, 10))
        return step(net, L.WingLoss(), [activations.Swish, activations.Mish, L.WingLoss]), \
            (_rand(6, 10), _rand(6, 10, seed=4)), {}
    if name == "train_step.d4_tta.dice":
        dice = L.DiceLoss("binary")
        model = tta.GeneralizedTTA(_seg_model(), tta.d4_image_augment, tta.d4_image_deaugment)
        return step(model, lambda p, y: dice(p[:, :1], y), [tta.GeneralizedTTA, L.DiceLoss]), \
            (_rand(BATCH, 3, 8, 8), _ints(2, BATCH, 1, 8, 8).float()), {}
    raise KeyError(name)


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in LOSSES:
        return _losses(name)
    if name in FUNCTIONS:
        return _functions(name)
    if name in MODULES:
        return _modules(name)
    if name in ENCODERS:
        encoder, x = _encoder(name)
        return encoder, (x,), {}
    if name in DECODERS:
        return _decoders(name)
    if name in TTA:
        return _tta(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
