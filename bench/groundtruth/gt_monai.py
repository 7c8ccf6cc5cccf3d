"""Ground-truth bench, MONAI models: 2-D networks, segmentation and registration losses, metrics.

Every builder in ``BUILDERS`` constructs one module of MONAI at a tiny size (2-D, a few channels,
random weights) or wraps one of its metric and inference functions (``gt_calls.library_call``), and
returns ``(module, args, kwargs)`` for a batch of two small images or segmentations. Losses and
metrics are where MONAI's break-rich code lives (shape checks, warnings, one-hot conversions,
reductions over data-dependent sizes). Imported by ``gt_models.build`` inside a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import monai.losses as L
import monai.networks.nets as N
import torch
from gt_calls import library_call
from torch import nn

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
_GEN = torch.Generator().manual_seed(0)
IMAGE = torch.rand(2, 1, 32, 32, generator=_GEN)
LOGITS = torch.randn(2, 3, 16, 16, generator=_GEN)
LABELS = torch.randint(0, 3, (2, 1, 16, 16), generator=_GEN)
ONE_HOT = torch.nn.functional.one_hot(LABELS[:, 0], 3).permute(0, 3, 1, 2).float()
BINARY = (LOGITS.softmax(1) > 0.4).float()
FIELD = torch.randn(2, 2, 16, 16, generator=_GEN)


def _net(build: Callable[[], nn.Module], image: torch.Tensor = IMAGE) -> Callable[[], Built]:
    return lambda: (build(), (image,), {})


def _loss(build: Callable[[], nn.Module], *inputs: torch.Tensor) -> Callable[[], Built]:
    return lambda: (build(), inputs or (LOGITS, LABELS), {})


class _SlidingWindow(nn.Module):
    """``sliding_window_inference`` over a small UNet: MONAI's patch-based inference loop."""

    def __init__(self) -> None:
        super().__init__()
        self.net = N.UNet(2, 1, 2, channels=(4, 8), strides=(2,))

    def forward(self, image: torch.Tensor) -> Any:
        from monai.inferers import sliding_window_inference

        return sliding_window_inference(image, (16, 16), 2, self.net, overlap=0.25)

    def entry_points(self) -> list[Callable[..., Any]]:
        from monai.inferers import sliding_window_inference

        return [sliding_window_inference, type(self.net)]


NETWORKS: dict[str, Callable[[], Built]] = {
    "UNet": _net(lambda: N.UNet(2, 1, 2, channels=(4, 8, 16), strides=(2, 2), num_res_units=1)),
    "BasicUNet": _net(lambda: N.BasicUNet(2, 1, 2, features=(4, 4, 8, 8, 16, 4))),
    "BasicUNetPlusPlus": _net(lambda: N.BasicUNetPlusPlus(2, 1, 2, features=(4, 4, 8, 8, 16, 4))),
    "AttentionUnet": _net(lambda: N.AttentionUnet(2, 1, 2, channels=(4, 8, 16), strides=(2, 2))),
    "SegResNet": _net(lambda: N.SegResNet(2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1),
                                          blocks_up=(1,))),
    "SegResNetDS": _net(lambda: N.SegResNetDS(2, init_filters=4, in_channels=1, out_channels=2, blocks_down=(1, 1))),
    "SegResNetVAE": _net(lambda: N.SegResNetVAE((32, 32), spatial_dims=2, init_filters=8, in_channels=1,
                                                out_channels=2, blocks_down=(1, 1), blocks_up=(1,), vae_nz=8)),
    "DynUNet": _net(lambda: N.DynUNet(2, 1, 2, kernel_size=(3, 3, 3), strides=(1, 2, 2), upsample_kernel_size=(2, 2),
                                      filters=(4, 8, 16))),
    "VNet": _net(lambda: N.VNet(2, 1, 2)),
    "HighResNet": _net(lambda: N.HighResNet(2, 1, 2)),
    "DenseNet121": _net(lambda: N.DenseNet121(2, 1, 3)),
    "ResNet": _net(lambda: N.resnet10(spatial_dims=2, n_input_channels=1, num_classes=3)),
    "EfficientNetBN": _net(lambda: N.EfficientNetBN("efficientnet-b0", pretrained=False, spatial_dims=2,
                                                    in_channels=1, num_classes=3)),
    "AutoEncoder": _net(lambda: N.AutoEncoder(2, 1, 1, channels=(4, 8), strides=(2, 2))),
    "VarAutoEncoder": _net(lambda: N.VarAutoEncoder(2, (1, 32, 32), 1, latent_size=4, channels=(4, 8),
                                                    strides=(2, 2))),
    "Regressor": _net(lambda: N.Regressor((1, 32, 32), (2,), channels=(4, 8), strides=(2, 2))),
    "Classifier": _net(lambda: N.Classifier((1, 32, 32), 3, channels=(4, 8), strides=(2, 2))),
    "Discriminator": _net(lambda: N.Discriminator((1, 32, 32), channels=(4, 8), strides=(2, 2))),
    "ViT": _net(lambda: N.ViT(1, (32, 32), (8, 8), hidden_size=32, mlp_dim=64, num_layers=2, num_heads=2,
                              spatial_dims=2, classification=True)),
    "UNETR": _net(lambda: N.UNETR(1, 2, (32, 32), feature_size=4, hidden_size=32, mlp_dim=64, num_heads=2,
                                  spatial_dims=2)),
    "SwinUNETR": _net(lambda: N.SwinUNETR(1, 2, feature_size=12, spatial_dims=2, depths=(1, 1, 1, 1),
                                          num_heads=(1, 1, 1, 1)), torch.rand(2, 1, 64, 64, generator=_GEN)),
    "LocalNet": _net(lambda: N.LocalNet(2, 1, num_channel_initial=4, extract_levels=(0, 1, 2), out_channels=2)),
    "MedNeXt": _net(lambda: N.MedNeXt(2, init_filters=4, in_channels=1, out_channels=2, blocks_down=(1, 1),
                                      blocks_bottleneck=1, blocks_up=(1, 1))),
    "SlidingWindowInference": lambda: (_SlidingWindow(), (IMAGE,), {}),
}

LOSSES: dict[str, Callable[[], Built]] = {
    "DiceLoss": _loss(lambda: L.DiceLoss(to_onehot_y=True, softmax=True)),
    "DiceCELoss": _loss(lambda: L.DiceCELoss(to_onehot_y=True, softmax=True)),
    "DiceFocalLoss": _loss(lambda: L.DiceFocalLoss(to_onehot_y=True, softmax=True)),
    "GeneralizedDiceLoss": _loss(lambda: L.GeneralizedDiceLoss(to_onehot_y=True, softmax=True)),
    "GeneralizedDiceFocalLoss": _loss(lambda: L.GeneralizedDiceFocalLoss(to_onehot_y=True, softmax=True)),
    "FocalLoss": _loss(lambda: L.FocalLoss(to_onehot_y=True)),
    "TverskyLoss": _loss(lambda: L.TverskyLoss(to_onehot_y=True, softmax=True)),
    "MaskedDiceLoss": _loss(lambda: L.MaskedDiceLoss(to_onehot_y=True, softmax=True)),
    "SoftclDiceLoss": _loss(lambda: L.SoftclDiceLoss(), LOGITS.softmax(1), ONE_HOT),
    "SoftDiceclDiceLoss": _loss(lambda: L.SoftDiceclDiceLoss(), LOGITS.softmax(1), ONE_HOT),
    "GeneralizedWassersteinDiceLoss": _loss(
        lambda: L.GeneralizedWassersteinDiceLoss(dist_matrix=torch.ones(3, 3) - torch.eye(3)), LOGITS, LABELS[:, 0]),
    "AsymmetricUnifiedFocalLoss": _loss(lambda: L.AsymmetricUnifiedFocalLoss(), LOGITS.softmax(1)[:, :2],
                                        ONE_HOT[:, :2]),
    "SSIMLoss": _loss(lambda: L.SSIMLoss(spatial_dims=2), LOGITS[:, :1].sigmoid(), LOGITS[:, 1:2].sigmoid()),
    "ContrastiveLoss": _loss(lambda: L.ContrastiveLoss(), torch.rand(4, 8, generator=_GEN),
                             torch.rand(4, 8, generator=_GEN)),
    "BendingEnergyLoss": _loss(lambda: L.BendingEnergyLoss(), FIELD),
    "DiffusionLoss": _loss(lambda: L.DiffusionLoss(), FIELD),
    "LocalNormalizedCrossCorrelationLoss": _loss(lambda: L.LocalNormalizedCrossCorrelationLoss(spatial_dims=2),
                                                 LOGITS[:, :1], LOGITS[:, 1:2]),
    "GlobalMutualInformationLoss": _loss(lambda: L.GlobalMutualInformationLoss(), LOGITS[:, :1].sigmoid(),
                                         LOGITS[:, 1:2].sigmoid()),
    "MultiScaleLoss": _loss(lambda: L.MultiScaleLoss(L.DiceLoss(), scales=[0, 1]), LOGITS.softmax(1), ONE_HOT),
}

METRICS: dict[str, Callable[[], Built]] = {
    "metrics.compute_dice": library_call("monai.metrics", "compute_dice", BINARY, ONE_HOT),
    "metrics.compute_iou": library_call("monai.metrics", "compute_iou", BINARY, ONE_HOT),
    "metrics.compute_generalized_dice": library_call("monai.metrics", "compute_generalized_dice", BINARY, ONE_HOT),
    "metrics.get_confusion_matrix": library_call("monai.metrics", "get_confusion_matrix", BINARY, ONE_HOT),
    "metrics.compute_confusion_matrix_metric": library_call(
        "monai.metrics", "compute_confusion_matrix_metric", "sensitivity", torch.rand(2, 3, 4, generator=_GEN)),
    "metrics.compute_variance": library_call("monai.metrics", "compute_variance", LOGITS.softmax(1)),
    "metrics.compute_roc_auc": library_call("monai.metrics", "compute_roc_auc", LOGITS[:, :, 0, 0].softmax(1),
                                            ONE_HOT[:, :, 0, 0]),
    "metrics.compute_average_precision": library_call(
        "monai.metrics", "compute_average_precision", LOGITS[:, :, 0, 0].softmax(1), ONE_HOT[:, :, 0, 0]),
    "metrics.compute_panoptic_quality": library_call(
        "monai.metrics", "compute_panoptic_quality", LABELS[0, 0], LABELS[1, 0]),
    "metrics.compute_ms_ssim": library_call("monai.metrics", "compute_ms_ssim", torch.rand(2, 1, 96, 96, generator=_GEN),
                                            torch.rand(2, 1, 96, 96, generator=_GEN), spatial_dims=2,
                                            kernel_size=3),
    "networks.one_hot": library_call("monai.networks.utils", "one_hot", LABELS, 3),
    "networks.predict_segmentation": library_call("monai.networks.utils", "predict_segmentation", LOGITS),
}

# Array transforms: callables (not modules) on one channel-first 2-D image or label map, each compiled
# through ``gt_calls.Call``. Name -> (class, constructor keywords, input: a key of ``inputs`` below).
_TRANSFORMS: dict[str, tuple[str, dict[str, Any], str]] = {
    "CropForeground": ("CropForeground", {}, "label"),
    "FillHoles": ("FillHoles", {}, "label"), "LabelToContour": ("LabelToContour", {}, "label"),
    "ScaleIntensityRangePercentiles": ("ScaleIntensityRangePercentiles",
                                       {"lower": 5, "upper": 95, "b_min": 0.0, "b_max": 1.0}, "image"),
    "NormalizeIntensity": ("NormalizeIntensity", {"nonzero": True}, "image"),
    "ThresholdIntensity": ("ThresholdIntensity", {"threshold": 0.5}, "image"),
    "ClipIntensityPercentiles": ("ClipIntensityPercentiles", {"lower": 5, "upper": 95}, "image"),
    "HistogramNormalize": ("HistogramNormalize", {"num_bins": 16}, "image"),
    "SpatialCrop": ("SpatialCrop", {"roi_center": (16, 16), "roi_size": (8, 8)}, "image"),
    "BorderPad": ("BorderPad", {"spatial_border": 2}, "image"), "DivisiblePad": ("DivisiblePad", {"k": 12}, "image"),
    "CenterSpatialCrop": ("CenterSpatialCrop", {"roi_size": (16, 16)}, "image"),
    "RandSpatialCrop": ("RandSpatialCrop", {"roi_size": (16, 16)}, "image"),
    "Resize": ("Resize", {"spatial_size": (24, 24)}, "image"), "Rotate": ("Rotate", {"angle": 0.3}, "image"),
    "Zoom": ("Zoom", {"zoom": 1.2}, "image"), "Flip": ("Flip", {"spatial_axis": 0}, "image"),
    "AsDiscrete": ("AsDiscrete", {"argmax": True, "to_onehot": 3}, "probs"),
    "BoundingRect": ("BoundingRect", {}, "label"),
    "ScaleIntensity": ("ScaleIntensity", {}, "image"),
    "ScaleIntensityRange": ("ScaleIntensityRange", {"a_min": 0.0, "a_max": 1.0, "b_min": -1.0, "b_max": 1.0}, "image"),
    "RandGaussianNoise": ("RandGaussianNoise", {"prob": 1.0}, "image"),
    "GaussianSmooth": ("GaussianSmooth", {"sigma": 1.0}, "image"), "GaussianSharpen": ("GaussianSharpen", {}, "image"),
    "SavitzkyGolaySmooth": ("SavitzkyGolaySmooth", {"window_length": 5, "order": 2}, "image"),
    "DetectEnvelope": ("DetectEnvelope", {}, "image"), "AdjustContrast": ("AdjustContrast", {"gamma": 1.5}, "image"),
    "RandBiasField": ("RandBiasField", {"prob": 1.0}, "image"),
    "RandHistogramShift": ("RandHistogramShift", {"prob": 1.0}, "image"),
    "GibbsNoise": ("GibbsNoise", {"alpha": 0.5}, "image"),
    "KSpaceSpikeNoise": ("KSpaceSpikeNoise", {"loc": (0, 4, 4), "k_intensity": 10.0}, "image"),
    "RandCoarseDropout": ("RandCoarseDropout", {"holes": 2, "spatial_size": 4, "prob": 1.0}, "image"),
    "RandCoarseShuffle": ("RandCoarseShuffle", {"holes": 2, "spatial_size": 4, "prob": 1.0}, "image"),
    "Rotate90": ("Rotate90", {}, "image"), "RandAffine": ("RandAffine", {"prob": 1.0, "rotate_range": 0.3}, "image"),
    "Rand2DElastic": ("Rand2DElastic", {"spacing": 8, "magnitude_range": (1, 2), "prob": 1.0}, "image"),
    "GridDistortion": ("GridDistortion", {"num_cells": 2, "distort_steps": [(1.0, 1.1, 0.9)] * 2}, "image"),
    "GridPatch": ("GridPatch", {"patch_size": (8, 8)}, "image"),
    "LabelFilter": ("LabelFilter", {"applied_labels": [1]}, "label"),
    "SobelGradients": ("SobelGradients", {}, "image"),
    "DistanceTransformEDT": ("DistanceTransformEDT", {}, "label"),
    "MaskIntensity": ("MaskIntensity", {"mask_data": None}, "image"),
    "MedianSmooth": ("MedianSmooth", {}, "image"), "IntensityStats": ("IntensityStats", {"ops": ["mean", "max"],
                                                                                         "key_prefix": "s"}, "image"),
    "ProbNMS": ("ProbNMS", {"spatial_dims": 2, "box_size": 4}, "heat"),
    "GenerateHeatmap": ("GenerateHeatmap", {"sigma": 2.0, "spatial_shape": (16, 16)}, "points"),
}


def _transform(name: str) -> Callable[[], Built]:
    def build() -> Built:
        import monai.transforms as T
        from gt_calls import Call

        cls, keywords, kind = _TRANSFORMS[name]
        label = (LABELS[:1, :1] > 0).float()
        label[..., 6:10, 6:10] = 0.0  # a hole, for the filling and component transforms
        inputs = {"image": IMAGE[0], "label": label[0], "probs": LOGITS[0].softmax(0),
                  "heat": LOGITS[0, 0].sigmoid(), "points": torch.tensor([[4.0, 5.0], [10.0, 12.0]])}
        if cls == "MaskIntensity":
            keywords = {"mask_data": IMAGE[0] > 0.5}
        transform = getattr(T, cls)(**keywords)
        call = Call(transform)
        call.entry_points = lambda: [type(transform).__call__]  # type: ignore[method-assign]
        return call, (inputs[kind],), {}
    return build


TRANSFORMS: dict[str, Callable[[], Built]] = {f"transforms.{name}": _transform(name) for name in _TRANSFORMS}

BUILDERS: dict[str, Callable[[], Built]] = {**NETWORKS, **LOSSES, **METRICS, **TRANSFORMS}
