"""Ground-truth bench, kornia: augmentations, filters, local features, and its functions (matching, geometry).

Every builder in ``BUILDERS`` constructs one ``nn.Module`` of kornia (augmentations with ``p=1`` so
that their transform runs; networks with ``pretrained=False``) and returns ``(module, args, kwargs)``
for a batch of two small images. Imported by ``gt_models.build`` inside a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kornia.augmentation as A
import kornia.feature as KF
import kornia.filters as KFi
import kornia.losses as KL
import torch
from gt_calls import library_call

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Augmentation name -> constructor arguments besides ``p=1.0``.
AUGMENTATIONS: dict[str, dict[str, Any]] = {
    "RandomAffine": {"degrees": 15.0, "translate": (0.1, 0.1), "scale": (0.9, 1.1)},
    "RandomAutoContrast": {}, "RandomBoxBlur": {}, "RandomBrightness": {"brightness": (0.8, 1.2)},
    "RandomChannelDropout": {}, "RandomChannelShuffle": {}, "RandomClahe": {},
    "RandomContrast": {"contrast": (0.8, 1.2)}, "RandomCrop": {"size": (24, 24), "padding": 2},
    "RandomEqualize": {}, "RandomErasing": {}, "RandomElasticTransform": {},
    "RandomFisheye": {"center_x": torch.tensor([-0.3, 0.3]), "center_y": torch.tensor([-0.3, 0.3]),
                      "gamma": torch.tensor([0.9, 1.0])},
    "RandomGamma": {"gamma": (0.8, 1.2)}, "RandomGaussianBlur": {"kernel_size": (3, 3), "sigma": (0.1, 2.0)},
    "RandomGaussianNoise": {}, "RandomGrayscale": {}, "RandomHorizontalFlip": {}, "RandomHue": {"hue": (-0.1, 0.1)},
    "RandomInvert": {}, "RandomJPEG": {}, "RandomLinearIllumination": {}, "RandomMedianBlur": {},
    "RandomMotionBlur": {"kernel_size": 3, "angle": 35.0, "direction": 0.5}, "RandomPerspective": {},
    "RandomPlanckianJitter": {}, "RandomPlasmaBrightness": {}, "RandomPosterize": {}, "RandomRGBShift": {},
    "RandomRain": {}, "RandomResizedCrop": {"size": (24, 24)}, "RandomRotation": {"degrees": 30.0},
    "RandomRotation90": {"times": (1, 3)}, "RandomSaltAndPepperNoise": {}, "RandomSaturation": {"saturation": (0.8, 1.2)},
    "RandomSharpness": {}, "RandomShear": {"shear": 10.0}, "RandomSnow": {}, "RandomSolarize": {},
    "RandomThinPlateSpline": {}, "RandomTranslate": {"translate_x": (-0.1, 0.1), "translate_y": (-0.1, 0.1)},
    "RandomVerticalFlip": {}, "ColorJitter": {"brightness": 0.1, "contrast": 0.1, "saturation": 0.1, "hue": 0.1},
    "ColorJiggle": {"brightness": 0.1, "contrast": 0.1, "saturation": 0.1, "hue": 0.1},
    "RandomJigsaw": {"grid": (2, 2)}, "RandomMosaic": {"output_size": (32, 32)},
}


def _image(channels: int = 3, size: int = 32) -> torch.Tensor:
    return torch.rand(2, channels, size, size, generator=torch.Generator().manual_seed(0))


def _augmentation(name: str) -> Callable[[], Built]:
    def build() -> Built:
        return getattr(A, name)(p=1.0, **AUGMENTATIONS[name]), (_image(),), {}
    return build


def _patches() -> torch.Tensor:
    return torch.rand(4, 1, 32, 32, generator=torch.Generator().manual_seed(0))


BUILDERS: dict[str, Callable[[], Built]] = {f"aug.{n}": _augmentation(n) for n in AUGMENTATIONS}
BUILDERS.update({
    "feature.SIFTDescriptor": lambda: (KF.SIFTDescriptor(32), (_patches(),), {}),
    "feature.HardNet": lambda: (KF.HardNet(pretrained=False), (_patches(),), {}),
    "feature.SOSNet": lambda: (KF.SOSNet(pretrained=False), (_patches(),), {}),
    "feature.TFeat": lambda: (KF.TFeat(pretrained=False), (_patches(),), {}),
    "feature.HyNet": lambda: (KF.HyNet(pretrained=False), (_patches(),), {}),
    "feature.DenseSIFTDescriptor": lambda: (KF.DenseSIFTDescriptor(), (_image(1),), {}),
    "feature.CornerHarris": lambda: (KF.CornerHarris(0.04), (_image(1),), {}),
    "feature.BlobHessian": lambda: (KF.BlobHessian(), (_image(1),), {}),
    "feature.ScaleSpaceDetector": lambda: (KF.ScaleSpaceDetector(num_features=16), (_image(1, 64),), {}),
    "feature.KeyNet": lambda: (KF.KeyNet(pretrained=False), (_image(1),), {}),
    "feature.LAFOrienter": lambda: (KF.PatchDominantGradientOrientation(32), (_patches(),), {}),
    "filters.Canny": lambda: (KFi.Canny(), (_image(),), {}),
    "filters.GaussianBlur2d": lambda: (KFi.GaussianBlur2d((3, 3), (1.5, 1.5)), (_image(),), {}),
    "filters.Sobel": lambda: (KFi.Sobel(), (_image(),), {}),
    "filters.MedianBlur": lambda: (KFi.MedianBlur((3, 3)), (_image(),), {}),
})

# Functions: matching, robust geometry (RANSAC), polynomial solvers, enhancement, morphology, losses
# and metrics, each on small fixed inputs (``gt_calls.library_call``).
_GEN = torch.Generator().manual_seed(1)
_DESC1, _DESC2 = torch.rand(20, 8, generator=_GEN), torch.rand(16, 8, generator=_GEN)
_PTS1 = torch.rand(1, 12, 2, generator=_GEN)
_PTS2 = _PTS1 + 0.05 * torch.randn(1, 12, 2, generator=_GEN)
_WORLD = torch.rand(1, 8, 3, generator=_GEN) + torch.tensor([0.0, 0.0, 2.0])
_K = torch.tensor([[[100.0, 0.0, 16.0], [0.0, 100.0, 16.0], [0.0, 0.0, 1.0]]])
_COEFFS = torch.randn(6, 4, generator=_GEN)
_LABELS = torch.randint(0, 3, (2, 16, 16), generator=_GEN)
_LOGITS = torch.randn(2, 3, 16, 16, generator=_GEN)
_MASK = (torch.rand(2, 1, 16, 16, generator=_GEN) > 0.6).float()
BUILDERS.update({
    "fn.match_nn": library_call("kornia.feature", "match_nn", _DESC1, _DESC2),
    "fn.match_mnn": library_call("kornia.feature", "match_mnn", _DESC1, _DESC2),
    "fn.match_snn": library_call("kornia.feature", "match_snn", _DESC1, _DESC2, th=0.9),
    "fn.match_smnn": library_call("kornia.feature", "match_smnn", _DESC1, _DESC2, th=0.9),
    "fn.find_homography_dlt": library_call("kornia.geometry", "find_homography_dlt", _PTS1, _PTS2),
    "fn.find_homography_dlt_iterated": library_call("kornia.geometry", "find_homography_dlt_iterated", _PTS1, _PTS2,
                                                    torch.ones(1, 12), soft_inl_th=3.0, n_iter=2),
    "fn.find_fundamental": library_call("kornia.geometry", "find_fundamental", _PTS1, _PTS2),
    "fn.find_affine": library_call("kornia.geometry", "find_affine", _PTS1, _PTS2, torch.ones(1, 12)),
    "fn.solve_pnp_dlt": library_call("kornia.geometry", "solve_pnp_dlt", _WORLD,
                                     _WORLD[..., :2] / _WORLD[..., 2:] * 100 + 16, _K),
    "fn.solve_quadratic": library_call("kornia.geometry.solvers", "solve_quadratic", _COEFFS[:, :3]),
    "fn.solve_cubic": library_call("kornia.geometry.solvers", "solve_cubic", _COEFFS),
    "fn.equalize_clahe": library_call("kornia.enhance", "equalize_clahe", _image(), grid_size=(2, 2)),
    "fn.equalize": library_call("kornia.enhance", "equalize", _image()),
    "fn.histogram2d": library_call("kornia.enhance", "histogram2d", _image()[:, 0].flatten(1),
                                   _image()[:, 1].flatten(1), torch.linspace(0, 1, 8), torch.tensor(0.9)),
    "fn.normalize_min_max": library_call("kornia.enhance", "normalize_min_max", _image()),
    "fn.posterize": library_call("kornia.enhance", "posterize", _image(), torch.tensor([3, 4])),
    "fn.solarize": library_call("kornia.enhance", "solarize", _image(), 0.4),
    "fn.sharpness": library_call("kornia.enhance", "sharpness", _image(), 0.5),
    "fn.dilation": library_call("kornia.morphology", "dilation", _image(), torch.ones(3, 3)),
    "fn.opening": library_call("kornia.morphology", "opening", _image(), torch.ones(3, 3)),
    "fn.top_hat": library_call("kornia.morphology", "top_hat", _image(), torch.ones(3, 3)),
    "fn.connected_components": library_call("kornia.contrib", "connected_components", _MASK, num_iterations=10),
    "fn.extract_tensor_patches": library_call("kornia.contrib", "extract_tensor_patches", _image(), 8, stride=8),
    "fn.distance_transform": library_call("kornia.contrib", "distance_transform", _MASK),
    "fn.rgb_to_hsv": library_call("kornia.color", "rgb_to_hsv", _image()),
    "fn.rgb_to_lab": library_call("kornia.color", "rgb_to_lab", _image()),
    "fn.get_perspective_transform": library_call("kornia.geometry", "get_perspective_transform", _PTS1[:, :4],
                                                 _PTS2[:, :4]),
    "fn.warp_perspective": library_call("kornia.geometry", "warp_perspective", _image(),
                                        torch.eye(3).expand(2, 3, 3) * 1.1, (24, 24)),
    "fn.crop_and_resize": library_call("kornia.geometry", "crop_and_resize", _image(),
                                       torch.tensor([[[2.0, 2.0], [20.0, 2.0], [20.0, 20.0], [2.0, 20.0]]] * 2),
                                       (8, 8)),
    "fn.convert_points_from_homogeneous": library_call("kornia.geometry", "convert_points_from_homogeneous",
                                                       torch.rand(2, 10, 3, generator=_GEN)),
    "fn.nms2d": library_call("kornia.geometry.subpix", "nms2d", _image(1), (3, 3)),
    "fn.draw_rectangle": library_call("kornia.utils", "draw_rectangle", _image(),
                                      torch.tensor([[[2.0, 2.0, 10.0, 10.0]], [[4.0, 4.0, 20.0, 12.0]]])),
    "losses.dice_loss": library_call("kornia.losses", "dice_loss", _LOGITS, _LABELS),
    "losses.focal_loss": library_call("kornia.losses", "focal_loss", _LOGITS, _LABELS, alpha=0.5),
    "losses.tversky_loss": library_call("kornia.losses", "tversky_loss", _LOGITS, _LABELS, 0.5, 0.5),
    "losses.lovasz_softmax_loss": library_call("kornia.losses", "lovasz_softmax_loss", _LOGITS, _LABELS),
    "losses.lovasz_hinge_loss": library_call("kornia.losses", "lovasz_hinge_loss", _LOGITS[:, :1],
                                             (_LABELS > 0).long()),
    "losses.ssim_loss": library_call("kornia.losses", "ssim_loss", _image(), _image().flip(-1), 5),
    "losses.HausdorffERLoss": lambda: (KL.HausdorffERLoss(), (_LOGITS.softmax(1), _LABELS[:, None]), {}),
    "metrics.mean_iou": library_call("kornia.metrics", "mean_iou", _LOGITS.argmax(1), _LABELS, 3),
    "metrics.confusion_matrix": library_call("kornia.metrics", "confusion_matrix", _LOGITS.argmax(1), _LABELS, 3),
    "metrics.accuracy": library_call("kornia.metrics", "accuracy", _LOGITS[:, :, 0, 0], _LABELS[:, 0, 0]),
    "metrics.aepe": library_call("kornia.metrics", "aepe", _image(2).permute(0, 2, 3, 1),
                                 _image(2).flip(1).permute(0, 2, 3, 1)),
})


def _container(name: str) -> Callable[[], Built]:
    """Augmentation containers and automatic policies: random choices of which transforms run."""
    def build() -> Built:
        import kornia.augmentation.auto as auto

        flips = (A.RandomHorizontalFlip(p=0.5), A.RandomAffine(degrees=10.0, p=0.5), A.ColorJitter(0.1, 0.1, p=0.5))
        model: Any = {
            "AugmentationSequential": lambda: A.AugmentationSequential(*flips),
            "AugmentationSequential.random_apply": lambda: A.AugmentationSequential(*flips, random_apply=2),
            "ImageSequential.random_apply": lambda: A.ImageSequential(*flips, random_apply=(1, 2)),
            "VideoSequential": lambda: A.VideoSequential(*flips, data_format="BTCHW"),
            "AutoAugment": lambda: auto.AutoAugment(),
            "RandAugment": lambda: auto.RandAugment(n=2, m=10),
            "TrivialAugment": lambda: auto.TrivialAugment(),
        }[name]()
        image = _image()
        return model, (image[:, None].expand(2, 3, 3, 32, 32).contiguous() if name == "VideoSequential" else image,), {}
    return build


BUILDERS.update({
    "container.AugmentationSequential": _container("AugmentationSequential"),
    "container.AugmentationSequential.random_apply": _container("AugmentationSequential.random_apply"),
    "container.ImageSequential.random_apply": _container("ImageSequential.random_apply"),
    "container.VideoSequential": _container("VideoSequential"),
    "container.AutoAugment": _container("AutoAugment"),
    "container.RandAugment": _container("RandAugment"),
    "container.TrivialAugment": _container("TrivialAugment"),
})
