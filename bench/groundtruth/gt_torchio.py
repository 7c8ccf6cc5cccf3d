"""Ground-truth bench, torchio: medical-image transforms, samplers and aggregators on tiny 3-D volumes.

torchio's user code wraps 4-D tensors (channels, width, height, depth) in ``ScalarImage`` / ``LabelMap``
objects with an affine, groups them in a ``Subject`` and runs ``Transform`` objects over it (each keeps a
history so it can be inverted); patch-based pipelines cut a subject into patches with a sampler and
stitch a network's predictions back with ``GridAggregator``. Users run the transforms inside a
``DataLoader``, but also on the fly on a batch's tensors, so each model here builds the subject (or the
image, or hands the bare tensor) inside a compiled forward from its input tensors and applies the library
to it. The tables cover, on random volumes of shape (1, 8, 8, 8) with a 3-class label map:

- ``AUGMENT``: the random augmentations (flip, affine with its interpolations and isotropic / default
  centre options, anisotropy, elastic deformation, affine then elastic, swap, blur, noise, spike, gamma,
  motion, ghosting, bias field, labels to image) and their deterministic counterparts (``Flip``,
  ``Affine``, ``ElasticDeformation``, ``Blur``, ``Noise``, ``Gamma``, ``Spike``, ``Ghosting``,
  ``Motion``, ``BiasField``, ``Swap``, ``LabelsToImage``);
- ``PREPROCESS``: intensity preprocessing (``RescaleIntensity`` with percentiles and a mask,
  ``ZNormalization`` plain and masked by a callable, ``HistogramStandardization`` with given landmarks, ``Clamp``,
  ``Mask``, ``PCA`` on a multichannel image, ``To``), spatial preprocessing (``Pad`` with its modes,
  ``Crop``, ``CropOrPad`` with a target shape or a mask, ``EnsureShapeMultiple``, ``Resize``,
  ``Resample`` to a spacing and to another image, ``ToCanonical``, ``ToOrientation``, ``Transpose``,
  ``CopyAffine``, ``ToReferenceSpace``) and the label transforms (``OneHot``, ``Contour``,
  ``RemapLabels``, ``RemoveLabels``, ``SequentialLabels``, ``KeepLargestComponent``);
- ``COMPOSE``: ``Compose``, ``OneOf``, ``Lambda``, a transform with ``p``, ``include`` and ``exclude``,
  a transform applied to a bare tensor and to an image, ``Subject.apply_inverse_transform`` after a
  reversible pipeline, and ``SubjectsDataset.__getitem__`` with a transform;
- ``PATCHES``: ``GridSampler`` with ``GridAggregator`` (crop, average and hann overlap modes) around a tiny
  3-D convolution, ``UniformSampler``, ``WeightedSampler`` and ``LabelSampler`` drawing patches.

Under Dynamo, the ``copy.deepcopy`` of a subject that each transform makes by default comes back without
its images, so the transforms are built with ``copy=False`` (they then work on the subject built in the
forward); the ``.copy`` models (``Clamp``, ``RandomAffine``, ``Compose``) keep the default copy, and so do
the bare-tensor and image models. torchio has no losses or metrics. Many transforms call SimpleITK or
NumPy on the tensors (resampling, elastic grids, label components): the bench records where Dynamo gives
up. Random inputs, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
SHAPE = (1, 8, 8, 8)
LANDMARKS = [0.0, 5.0, 10.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0, 70.0, 75.0, 80.0, 100.0]

# Model name -> (transform class, keywords). A keyword value "seg" names the label map of the subject.
AUGMENT: dict[str, tuple[str, dict[str, Any]]] = {
    "RandomFlip": ("RandomFlip", {"axes": (0, 1, 2), "flip_probability": 1.0}),
    "RandomFlip.anatomical": ("RandomFlip", {"axes": ("LR",), "flip_probability": 1.0}),
    "RandomAffine": ("RandomAffine", {}),
    "RandomAffine.copy": ("RandomAffine", {}),
    "RandomAffine.isotropic.nearest": ("RandomAffine", {"isotropic": True, "image_interpolation": "nearest",
                                                       "default_pad_value": "minimum"}),
    "RandomAffine.center_image.bspline": ("RandomAffine", {"center": "origin", "image_interpolation": "bspline",
                                                          "default_pad_value": "otsu"}),
    "RandomAnisotropy": ("RandomAnisotropy", {"downsampling": (1.5, 2)}),
    "RandomElasticDeformation": ("RandomElasticDeformation", {"max_displacement": 1.0, "num_control_points": 5}),
    "RandomAffineElasticDeformation": ("RandomAffineElasticDeformation",
                                       {"elastic_kwargs": {"max_displacement": 1.0, "num_control_points": 5}}),
    "RandomSwap": ("RandomSwap", {"patch_size": 2, "num_iterations": 4}),
    "RandomBlur": ("RandomBlur", {"std": (0.5, 1.0)}),
    "RandomNoise": ("RandomNoise", {"std": (0.1, 0.2)}),
    "RandomSpike": ("RandomSpike", {"num_spikes": 2}),
    "RandomGamma": ("RandomGamma", {}),
    "RandomMotion": ("RandomMotion", {"num_transforms": 2}),
    "RandomGhosting": ("RandomGhosting", {"num_ghosts": 2}),
    "RandomBiasField": ("RandomBiasField", {"order": 2}),
    "RandomLabelsToImage": ("RandomLabelsToImage", {"label_key": "seg"}),
    "Flip": ("Flip", {"axes": (0, 2)}),
    "Affine": ("Affine", {"scales": 1.1, "degrees": 10, "translation": 1}),
    "ElasticDeformation": ("ElasticDeformation", {"control_points": "grid", "max_displacement": (1.0, 1.0, 1.0)}),
    "Blur": ("Blur", {"std": (1.0, 0.5, 0.5)}),
    "Noise": ("Noise", {"mean": 0.0, "std": 0.1, "seed": 3}),
    "Gamma": ("Gamma", {"gamma": 0.8}),
    "Spike": ("Spike", {"spikes_positions": "positions", "intensity": 0.5}),
    "Ghosting": ("Ghosting", {"num_ghosts": 2, "axis": 1, "intensity": 0.5, "restore": 0.02}),
    "Motion": ("Motion", {"degrees": "motion_degrees", "translation": "motion_translation", "times": "motion_times",
                          "image_interpolation": "linear"}),
    "BiasField": ("BiasField", {"coefficients": [0.1] * 10, "order": 2}),
    "Swap": ("Swap", {"patch_size": (2, 2, 2), "locations": "locations"}),
    "LabelsToImage": ("LabelsToImage", {"label_key": "seg", "mean": [0.1, 0.5, 0.9], "std": [0.05, 0.05, 0.05]}),
}
PREPROCESS: dict[str, tuple[str, dict[str, Any]]] = {
    "RescaleIntensity": ("RescaleIntensity", {"out_min_max": (0, 1)}),
    "RescaleIntensity.percentiles.mask": ("RescaleIntensity", {"out_min_max": (-1, 1), "percentiles": (1, 99),
                                                               "masking_method": "seg"}),
    "RescaleIntensity.in_min_max": ("RescaleIntensity", {"in_min_max": (0.2, 0.8)}),
    "ZNormalization": ("ZNormalization", {}),
    "ZNormalization.mean_mask": ("ZNormalization", {"masking_method": "above_mean"}),
    "HistogramStandardization": ("HistogramStandardization", {"landmarks": "landmarks"}),
    "Clamp": ("Clamp", {"out_min": 0.2, "out_max": 0.8}),
    "Clamp.copy": ("Clamp", {"out_min": 0.2, "out_max": 0.8}),
    "Mask": ("Mask", {"masking_method": "seg", "outside_value": -1}),
    "Mask.labels": ("Mask", {"masking_method": "seg", "labels": [2]}),
    "PCA": ("PCA", {"num_components": 2}),
    "To": ("To", {"target": "float64"}),
    "Pad": ("Pad", {"padding": 2}),
    "Pad.reflect": ("Pad", {"padding": (1, 2, 0, 1, 2, 0), "padding_mode": "reflect"}),
    "Pad.mean": ("Pad", {"padding": 1, "padding_mode": "mean"}),
    "Crop": ("Crop", {"cropping": (1, 2, 0, 1, 2, 0)}),
    "CropOrPad": ("CropOrPad", {"target_shape": (10, 6, 8)}),
    "CropOrPad.mask": ("CropOrPad", {"target_shape": 6, "mask_name": "seg"}),
    "CropOrPad.only_pad": ("CropOrPad", {"target_shape": 10, "only_pad": True}),
    "EnsureShapeMultiple": ("EnsureShapeMultiple", {"target_multiple": 3}),
    "EnsureShapeMultiple.crop": ("EnsureShapeMultiple", {"target_multiple": 3, "method": "crop"}),
    "Resize": ("Resize", {"target_shape": 6}),
    "Resample": ("Resample", {"target": 2}),
    "Resample.reference": ("Resample", {"target": "ref"}),
    "Resample.nearest.antialias": ("Resample", {"target": (2, 1, 2), "image_interpolation": "nearest",
                                                "antialias": True}),
    "ToCanonical": ("ToCanonical", {}),
    "ToOrientation": ("ToOrientation", {"orientation": "LPI"}),
    "Transpose": ("Transpose", {}),
    "CopyAffine": ("CopyAffine", {"target": "t1"}),
    "ToReferenceSpace": ("ToReferenceSpace", {"reference": "ref_image"}),
    "OneHot": ("OneHot", {}),
    "OneHot.num_classes": ("OneHot", {"num_classes": 4}),
    "Contour": ("Contour", {}),
    "RemapLabels": ("RemapLabels", {"remapping": {1: 2, 2: 5}}),
    "RemoveLabels": ("RemoveLabels", {"labels": [1]}),
    "SequentialLabels": ("SequentialLabels", {}),
    "KeepLargestComponent": ("KeepLargestComponent", {}),
}
COMPOSE = ("Compose", "Compose.copy", "Compose.intensity", "OneOf", "Lambda", "RandomNoise.p", "RandomNoise.include",
           "RandomFlip.exclude", "Flip.tensor", "RescaleIntensity.image", "apply_inverse_transform",
           "SubjectsDataset.getitem")
PATCHES = ("GridAggregator.crop", "GridAggregator.average", "GridAggregator.hann", "UniformSampler",
           "WeightedSampler", "LabelSampler")


def names() -> list[str]:
    return list(AUGMENT) + list(PREPROCESS) + list(COMPOSE) + list(PATCHES)


def _subject(x: Any, label: Any, extra: dict[str, Any] | None = None) -> Any:
    import torchio as tio

    return tio.Subject(t1=tio.ScalarImage(tensor=x), seg=tio.LabelMap(tensor=label), **(extra or {}))


def _above_mean(tensor: Any) -> Any:
    """A mask of the voxels above the mean (``ZNormalization``'s ``masking_method`` as a callable)."""
    return tensor > tensor.mean()


def _resolve(keywords: dict[str, Any]) -> dict[str, Any]:
    """Keyword placeholders that need numpy, torch or torchio objects."""
    import numpy as np
    import torch
    import torchio as tio

    out = dict(keywords)
    for key, value in keywords.items():
        if value == "landmarks":
            out[key] = {"t1": np.array(LANDMARKS)}
        elif value == "positions":
            out[key] = np.array([[0.1, 0.2, 0.0], [-0.2, 0.1, 0.1]])
        elif value == "locations":
            out[key] = [((0, 0, 0), (4, 4, 4)), ((2, 4, 0), (6, 0, 2))]
        elif value == "grid":
            out[key] = np.random.default_rng(0).uniform(-0.5, 0.5, (5, 5, 5, 3))
        elif value == "motion_degrees":
            out[key] = np.array([[2.0, 0.0, 0.0]])
        elif value == "motion_translation":
            out[key] = np.array([[1.0, 0.0, 0.0]])
        elif value == "motion_times":
            out[key] = np.array([0.5])
        elif value == "above_mean":
            out[key] = _above_mean
        elif value == "float64":
            out[key] = torch.float64
        elif value == "ref_image":
            out[key] = tio.ScalarImage(tensor=torch.rand(1, 4, 4, 4), affine=np.diag([2.0, 2.0, 2.0, 1.0]))
    return out


def _apply(transform: Any, extra: dict[str, Any] | None = None, entries: list[Any] | None = None) -> Any:
    """A bench module whose forward builds a subject from its inputs and returns the transformed tensors."""
    from torch import nn

    class _Apply(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transform = transform

        def forward(self, x: Any, label: Any) -> Any:
            out = self.transform(_subject(x, label, extra))
            return out["t1"].data, out["seg"].data

        def entry_points(self) -> list[Any]:
            return entries or [type(self.transform)]

    return _Apply()


def _inputs(channels: int = 1) -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(1)
    x = torch.rand(channels, *SHAPE[1:], generator=gen)
    label = (torch.rand(*SHAPE, generator=gen) * 3).to(torch.int16)
    return x, label


def _transform(name: str) -> Built:
    import numpy as np
    import torch
    import torchio as tio

    cls, keywords = AUGMENT[name] if name in AUGMENT else PREPROCESS[name]
    extra = None
    if keywords.get("target") == "ref":
        extra = {"ref": tio.ScalarImage(tensor=torch.rand(1, 4, 4, 4), affine=np.diag([2.0, 2.0, 2.0, 1.0]))}
        keywords = {"target": "ref"}
    copied = name.endswith(".copy")
    transform = getattr(tio, cls)(copy=copied, **_resolve(keywords))
    return _apply(transform, extra), _inputs(3 if cls == "PCA" else 1), {}


def _compose(name: str) -> Built:
    import torch
    import torchio as tio
    from torch import nn

    x, label = _inputs()
    c = {"copy": name.endswith(".copy")}  # the subject's deepcopy loses its items under Dynamo: users pass False
    if name.startswith("Compose.copy") or name == "Compose":
        transform: Any = tio.Compose([tio.RandomFlip(**c), tio.RandomAffine(degrees=5, **c), tio.RandomNoise(**c),
                                      tio.ZNormalization(**c)], **c)
    elif name == "Compose.intensity":
        transform = tio.Compose([tio.RescaleIntensity(out_min_max=(0, 1), **c), tio.RandomGamma(**c),
                                 tio.RandomBlur(**c), tio.Clamp(0.1, 0.9, **c)], **c)
    elif name == "OneOf":
        transform = tio.OneOf({tio.RandomNoise(**c): 0.5, tio.RandomGamma(**c): 0.3, tio.RandomBiasField(**c): 0.2},
                              **c)
    elif name == "Lambda":
        transform = tio.Lambda(lambda t: t * 2 + 1, types_to_apply=[tio.INTENSITY], **c)
    elif name == "RandomNoise.p":
        transform = tio.RandomNoise(p=0.5, **c)
    elif name == "RandomNoise.include":
        transform = tio.RandomNoise(include=["t1"], **c)
    elif name == "RandomFlip.exclude":
        transform = tio.RandomFlip(axes=(1,), flip_probability=1.0, exclude=["seg"], **c)
    elif name in ("Flip.tensor", "RescaleIntensity.image"):
        transform = tio.Flip(axes=(1,)) if name == "Flip.tensor" else tio.RescaleIntensity(out_min_max=(-1, 1))
        as_image = name == "RescaleIntensity.image"

        class _Bare(nn.Module):
            """A transform on a bare 4-D tensor, or on a ``ScalarImage`` built from it."""

            def __init__(self) -> None:
                super().__init__()
                self.transform = transform

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                if as_image:
                    return self.transform(tio.ScalarImage(tensor=x)).data
                return self.transform(x)

            def entry_points(self) -> list[Any]:
                return [type(self.transform)]

        return _Bare(), (x,), {}
    elif name == "apply_inverse_transform":
        transform = tio.Compose([tio.Flip(axes=(0,), **c), tio.Pad(2, **c), tio.Crop(1, **c), tio.RandomNoise(**c)],
                                **c)

        class _Inverse(nn.Module):
            """A reversible pipeline, then the subject back to its first space (test-time augmentation)."""

            def __init__(self) -> None:
                super().__init__()
                self.transform = transform

            def forward(self, x: torch.Tensor, label: torch.Tensor) -> Any:
                out = self.transform(_subject(x, label))
                back = out.apply_inverse_transform(warn=False)
                return back["t1"].data, back["seg"].data

            def entry_points(self) -> list[Any]:
                return [tio.Compose, tio.Subject.apply_inverse_transform]

        return _Inverse(), (x, label), {}
    else:  # SubjectsDataset.getitem
        transform = tio.Compose([tio.RandomFlip(**c), tio.ZNormalization(**c)], **c)

        class _Dataset(nn.Module):
            """``SubjectsDataset`` over a subject built from the inputs, its first item."""

            def __init__(self) -> None:
                super().__init__()
                self.transform = transform

            def forward(self, x: torch.Tensor, label: torch.Tensor) -> Any:
                dataset = tio.SubjectsDataset([_subject(x, label)], transform=self.transform)
                item = dataset[0]
                return item["t1"].data, item["seg"].data

            def entry_points(self) -> list[Any]:
                return [tio.SubjectsDataset.__getitem__]

        return _Dataset(), (x, label), {}
    return _apply(transform), (x, label), {}


def _patches(name: str) -> Built:
    import torch
    import torchio as tio
    from torch import nn

    x, label = _inputs()
    if name.startswith("GridAggregator"):
        mode = name.split(".")[1]

        class _Grid(nn.Module):
            """Patch-based inference: grid patches through a tiny 3-D network, aggregated back."""

            def __init__(self) -> None:
                super().__init__()
                self.net = nn.Conv3d(1, 2, 3, padding=1)

            def forward(self, x: torch.Tensor, label: torch.Tensor) -> torch.Tensor:
                sampler = tio.GridSampler(_subject(x, label), patch_size=4, patch_overlap=2)
                aggregator = tio.GridAggregator(sampler, overlap_mode=mode)
                patches = list(sampler)
                batch = torch.stack([p["t1"].data for p in patches])
                locations = torch.stack([p[tio.LOCATION] for p in patches])
                aggregator.add_batch(self.net(batch), locations)
                return aggregator.get_output_tensor()

            def entry_points(self) -> list[Any]:
                return [tio.GridSampler, tio.GridAggregator]

        return _Grid(), (x, label), {}
    if name == "UniformSampler":
        sampler: Any = tio.UniformSampler(patch_size=4)
    elif name == "WeightedSampler":
        sampler = tio.WeightedSampler(patch_size=4, probability_map="seg")
    else:
        sampler = tio.LabelSampler(patch_size=(4, 4, 2), label_name="seg", label_probabilities={0: 0.2, 1: 0.4, 2: 0.4})

    class _Random(nn.Module):
        """Two random patches of a subject, stacked as a training batch."""

        def __init__(self) -> None:
            super().__init__()
            self.sampler = sampler

        def forward(self, x: torch.Tensor, label: torch.Tensor) -> Any:
            patches = list(self.sampler(_subject(x, label), num_patches=2))
            return torch.stack([p["t1"].data for p in patches]), torch.stack([p["seg"].data for p in patches])

        def entry_points(self) -> list[Any]:
            return [type(self.sampler)]

    return _Random(), (x, label), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in AUGMENT or name in PREPROCESS:
        return _transform(name)
    if name in COMPOSE:
        return _compose(name)
    return _patches(name)
