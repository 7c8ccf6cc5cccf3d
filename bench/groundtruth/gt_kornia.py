"""Ground-truth bench, kornia modules: image augmentations, filters and local-feature networks.

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
import torch

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
