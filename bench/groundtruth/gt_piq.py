"""Ground-truth bench, piq: every image-quality metric and loss of piq 0.8.0 on tiny random images.

piq (PyTorch Image Quality) is a library of full-reference metrics (``ssim(x, y)``), no-reference
metrics (``total_variation(x)``), their loss modules (``SSIMLoss()(x, y)``, what a training step
compiles) and distribution metrics on extracted features (``FID()(x_features, y_features)``). So:

- ``FUNCTIONAL``: each metric function piq exports, compiled through ``gt_calls.Call`` at its defaults,
  plus variants (after a dot) whose options or inputs take another code path: grey-scale images, the
  complex 5-D input of the SSIM family (``... x H x W x 2``), ``chromatic``, ``full``, the
  ``'mult'`` combination of MDSI, the norms of total variation;
- ``LOSSES``: each loss module, compiled whole; ``ContentLoss`` and ``StyleLoss`` run on a small
  random convolutional feature extractor (``_extractor``), as piq lets users pass one, since the
  default VGG needs pretrained weights;
- ``FEATURE_METRICS``: the ``BaseFeatureMetric`` modules (FID, KID, PR, IS, MSID) on two small
  feature sets, at sizes that keep their loops short;
- ``HELPERS``: the public image operations of ``piq.functional`` that metrics are built from (colour
  conversions, resizing, gradient and similarity maps, patch cropping, the L2 pooling layer).

Images are a batch of one, 3 x 32 x 32 in ``[0, 1]``, or the smallest side the metric accepts at its
defaults (41 for VIF, 40 for SR-SIM, 161 for MS-SSIM and IW-SSIM, whose five scales need it).
Left out, because they download pretrained weights or need a package that is not installed:
``LPIPS``, ``DISTS``, ``PieAPP``, ``CLIPIQA`` and ``BaseFeatureMetric.compute_feats`` (its default
Inception network), ``brisque`` and ``BRISQUELoss`` (an SVR model fetched on every call), and ``GS``
(needs ``gudhi``). Tables are plain data, so ``names()`` needs no torch; ``build`` runs in a worker.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Input kinds: "pair:S" two RGB images of side S, "gray:S" two grey-scale ones, "complex:S" two complex
# ones (a trailing dimension of 2), "one:S" a single RGB image, "features" two (16, 8) feature sets,
# "logits" one (20, 10) set of class logits.
# Function name (variant after a dot) -> (input kind, fixed keywords).
FUNCTIONAL: dict[str, tuple[str, dict[str, Any]]] = {
    "ssim": ("pair:32", {}),
    "ssim.full": ("pair:32", {"full": True, "reduction": "none"}),
    "ssim.complex": ("complex:32", {}),
    "ssim.gray": ("gray:32", {"data_range": 1.0, "kernel_size": 7}),
    "multi_scale_ssim": ("pair:161", {}),
    "multi_scale_ssim.complex": ("complex:161", {}),
    "psnr": ("pair:32", {}),
    "psnr.greyscale": ("pair:32", {"convert_to_greyscale": True, "reduction": "sum"}),
    "psnr.gray": ("gray:32", {}),
    "total_variation": ("one:32", {}),
    "total_variation.l1": ("one:32", {"norm_type": "l1"}),
    "total_variation.l2_squared": ("one:32", {"norm_type": "l2_squared", "reduction": "none"}),
    "gmsd": ("pair:32", {}),
    "gmsd.gray": ("gray:32", {}),
    "multi_scale_gmsd": ("pair:32", {}),
    "multi_scale_gmsd.chromatic": ("pair:32", {"chromatic": True}),
    "vif_p": ("pair:41", {}),
    "vif_p.gray": ("gray:41", {"reduction": "none"}),
    "fsim": ("pair:32", {}),
    "fsim.achromatic": ("pair:32", {"chromatic": False}),
    "fsim.gray": ("gray:32", {"chromatic": False}),
    "vsi": ("pair:32", {}),
    "vsi.gray": ("gray:32", {}),
    "mdsi": ("pair:32", {}),
    "mdsi.mult": ("pair:32", {"combination": "mult"}),
    "mdsi.gray": ("gray:32", {}),
    "haarpsi": ("pair:32", {}),
    "haarpsi.gray": ("gray:32", {}),
    "haarpsi.no_subsample": ("pair:32", {"subsample": False}),
    "srsim": ("pair:40", {}),
    "srsim.chromatic": ("pair:40", {"chromatic": True}),
    "dss": ("pair:32", {}),
    "dss.gray": ("gray:32", {}),
    "information_weighted_ssim": ("pair:161", {}),
    "information_weighted_ssim.no_parent": ("pair:161", {"parent": False}),
    "inception_score": ("logits", {}),
}

# Loss module -> (input kind, constructor keywords). ``extractor`` in the keywords stands for
# ``_extractor()``, built in the worker.
LOSSES: dict[str, tuple[str, dict[str, Any]]] = {
    "SSIMLoss": ("pair:32", {}),
    "MultiScaleSSIMLoss": ("pair:161", {}),
    "TVLoss": ("one:32", {}),
    "GMSDLoss": ("pair:32", {}),
    "MultiScaleGMSDLoss": ("pair:32", {}),
    "VIFLoss": ("pair:41", {}),
    "FSIMLoss": ("pair:32", {}),
    "VSILoss": ("pair:32", {}),
    "MDSILoss": ("pair:32", {}),
    "HaarPSILoss": ("pair:32", {}),
    "SRSIMLoss": ("pair:40", {}),
    "DSSLoss": ("pair:32", {}),
    "InformationWeightedSSIMLoss": ("pair:161", {}),
    "ContentLoss": ("pair:32", {"feature_extractor": "extractor", "layers": ("1", "3", "6"),
                                "weights": [1.0, 0.5, 0.25]}),
    "ContentLoss.replace_pooling": ("pair:32", {"feature_extractor": "extractor", "layers": ("3", "6"),
                                                "weights": [1.0, 1.0], "replace_pooling": True}),
    "ContentLoss.normalized_mae": ("pair:32", {"feature_extractor": "extractor", "layers": ("1", "6"),
                                               "weights": [1.0, 1.0], "distance": "mae",
                                               "normalize_features": True, "reduction": "sum"}),
    "StyleLoss": ("pair:32", {"feature_extractor": "extractor", "layers": ("1", "3", "6"),
                              "weights": [1.0, 0.5, 0.25]}),
}

# Feature metric -> constructor keywords (small subsets and iteration counts).
FEATURE_METRICS: dict[str, dict[str, Any]] = {
    "FID": {},
    "KID": {},
    "KID.average": {"average": True, "n_subsets": 3, "subset_size": 8},
    "KID.variance": {"ret_var": True},
    "PR": {"nearest_k": 5},
    "IS": {"num_splits": 4},
    "IS.l2": {"num_splits": 4, "distance": "l2"},
    "MSID": {"niters": 5},
}

# ``piq.functional`` operation -> (input kind, fixed keywords). ``gradient_map`` gets its Scharr
# kernels as a second input; ``L2Pool2d`` is a layer.
HELPERS: dict[str, tuple[str, dict[str, Any]]] = {
    "rgb2lab": ("one:32", {"data_range": 1.0}),
    "rgb2xyz": ("one:32", {}),
    "xyz2lab": ("one:32", {}),
    "rgb2yiq": ("one:32", {}),
    "rgb2lhm": ("one:32", {}),
    "rgb2lmn": ("one:32", {}),
    "imresize": ("one:32", {"scale": 0.5}),
    "imresize.sizes": ("one:32", {"sizes": (20, 24)}),
    "gradient_map": ("gray:32", {}),
    "similarity_map": ("pair:32", {"constant": 0.01}),
    "crop_patches": ("one:32", {"size": 16, "stride": 8}),
    "ifftshift": ("one:32", {}),
    "L2Pool2d": ("one:32", {}),
}


def names() -> list[str]:
    return ([f"F.{n}" for n in FUNCTIONAL] + [f"loss.{n}" for n in LOSSES]
            + [f"features.{n}" for n in FEATURE_METRICS] + [f"functional.{n}" for n in HELPERS])


def inputs(kind: str) -> tuple[Any, ...]:
    """Example inputs of one kind (see the comment above ``FUNCTIONAL``), from a seeded generator."""
    import torch

    gen = torch.Generator().manual_seed(0)
    kind, _, side = kind.partition(":")
    s = int(side) if side else 0
    table = {
        "pair": lambda: (torch.rand(1, 3, s, s, generator=gen), torch.rand(1, 3, s, s, generator=gen)),
        "gray": lambda: (torch.rand(1, 1, s, s, generator=gen), torch.rand(1, 1, s, s, generator=gen)),
        "complex": lambda: (torch.rand(1, 3, s, s, 2, generator=gen), torch.rand(1, 3, s, s, 2, generator=gen)),
        "one": lambda: (torch.rand(1, 3, s, s, generator=gen),),
        "features": lambda: (torch.rand(16, 8, generator=gen), torch.rand(16, 8, generator=gen)),
        "logits": lambda: (torch.randn(20, 10, generator=gen),),
    }
    return table[kind]()


def _extractor() -> Any:
    """A small random VGG-like feature extractor (layers named "0", "1", ... as ``ContentLoss`` reads them)."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())


def build(name: str) -> Built:
    import piq
    import piq.functional
    from gt_calls import Call

    group, rest = name.split(".", 1)
    base = rest.split(".")[0]
    if group == "F":
        kind, static = FUNCTIONAL[rest]
        return Call(getattr(piq, base), **static), inputs(kind), {}
    if group == "loss":
        kind, keywords = LOSSES[rest]
        keywords = {k: _extractor() if v == "extractor" else v for k, v in keywords.items()}
        return getattr(piq, base)(**keywords), inputs(kind), {}
    if group == "features":
        return getattr(piq, base)(**FEATURE_METRICS[rest]), inputs("features"), {}
    kind, static = HELPERS[rest]
    args = inputs(kind)
    if base == "L2Pool2d":
        return piq.functional.L2Pool2d(kernel_size=3, stride=2, padding=1), args, {}
    if base == "gradient_map":  # the Scharr kernels, horizontal and vertical, as piq's metrics pass them
        import torch

        kernel = piq.functional.scharr_filter()
        args = (args[0], torch.stack([kernel, kernel.transpose(-1, -2)]))
    return Call(getattr(piq.functional, base), **static), args, {}
