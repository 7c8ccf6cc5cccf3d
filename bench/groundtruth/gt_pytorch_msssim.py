"""Ground-truth bench, pytorch_msssim (pytorch-msssim): SSIM and multi-scale SSIM for images and volumes.

pytorch-msssim is one file: the functions ``ssim`` and ``ms_ssim`` (separable Gaussian filtering with
``conv2d`` / ``conv3d``, the window built from ``win_size`` / ``win_sigma`` or given as ``win``, the
constants ``K``, ``data_range``, ``size_average`` and, for ``ssim``, ``nonnegative_ssim``; ``ms_ssim``
adds five (or ``weights``) scales joined by average pooling, with padding for odd sides) and the modules
``SSIM`` / ``MS_SSIM`` that hold a window for ``channel`` channels and ``spatial_dims`` spatial axes. The
models are:

- ``SSIM_CALLS``: ``ssim`` through ``gt_calls.Call`` on 4-D images and 5-D volumes with each option that
  changes its code: the defaults (8-bit range), ``data_range=1``, per-image results, another window,
  an explicit window tensor, other ``K``, ``nonnegative_ssim``, grey images, a side shorter than the
  window (the smoothing of that axis is skipped with a warning) and inputs with trailing singleton axes
  (squeezed away);
- ``MS_SSIM_CALLS``: ``ms_ssim`` likewise: the default window on a 176-pixel image (the smallest the
  four downsamplings allow), a 3-pixel window on small images, odd sides (padded pooling), three-scale
  ``weights``, per-image results, an explicit window, other ``K`` and 5-D volumes;
- ``MODULES``: the ``SSIM`` and ``MS_SSIM`` modules in their configurations (2-D and 3-D windows,
  ``nonnegative_ssim``, ``weights``, per-image results);
- ``TRAIN``: the losses users train with: ``1 - ms_ssim`` and ``1 - SSIM`` (mixed with an L1 term) of a
  small conv net's output against a target, as a forward, and an SGD step on ``1 - ms_ssim`` (through
  ``gt_calls.OptimizerStep``, whose backward runs inside the compiled step).

Images are batches of 2 with 1 or 3 channels, 32 to 176 pixels a side (MS-SSIM's four downsamplings
need ``(win_size - 1) * 16`` pixels). Random inputs, nothing downloaded. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
SMALL = {"win_size": 3, "data_range": 1.0}

# ``ssim`` name -> (input shape, keywords). "win" in the keywords stands for an explicit 7-tap window.
SSIM_CALLS: dict[str, tuple[tuple[int, ...], dict[str, Any]]] = {
    "ssim": ((BATCH, 3, 32, 32), {}),
    "ssim.data_range": ((BATCH, 3, 32, 32), {"data_range": 1.0}),
    "ssim.per_image": ((BATCH, 3, 32, 32), {"data_range": 1.0, "size_average": False}),
    "ssim.win_size": ((BATCH, 3, 32, 32), {"data_range": 1.0, "win_size": 7, "win_sigma": 1.0}),
    "ssim.win": ((BATCH, 3, 32, 32), {"data_range": 1.0, "win": "win"}),
    "ssim.K": ((BATCH, 3, 32, 32), {"data_range": 1.0, "K": (0.01, 0.4)}),
    "ssim.nonnegative_ssim": ((BATCH, 3, 32, 32), {"data_range": 1.0, "nonnegative_ssim": True}),
    "ssim.grey": ((BATCH, 1, 24, 40), {"data_range": 1.0}),
    "ssim.short_side": ((BATCH, 3, 8, 32), {"data_range": 1.0}),
    "ssim.squeeze": ((BATCH, 3, 32, 32, 1, 1), {"data_range": 1.0}),
    "ssim.5d": ((BATCH, 1, 16, 16, 16), {"data_range": 1.0, "win_size": 5}),
    "ssim.5d.per_image": ((BATCH, 2, 12, 16, 16), {"data_range": 1.0, "win_size": 5, "size_average": False}),
}
# ``ms_ssim`` name -> (input shape, keywords); "win" as above, a 3-tap window.
MS_SSIM_CALLS: dict[str, tuple[tuple[int, ...], dict[str, Any]]] = {
    "ms_ssim": ((BATCH, 3, 176, 176), {}),
    "ms_ssim.small_window": ((BATCH, 3, 48, 48), SMALL),
    "ms_ssim.odd_sides": ((BATCH, 3, 45, 51), SMALL),
    "ms_ssim.weights": ((BATCH, 3, 48, 48), {**SMALL, "weights": [0.3, 0.4, 0.3]}),
    "ms_ssim.per_image": ((BATCH, 3, 48, 48), {**SMALL, "size_average": False}),
    "ms_ssim.win": ((BATCH, 1, 48, 48), {"data_range": 1.0, "win": "win"}),
    "ms_ssim.K": ((BATCH, 3, 48, 48), {**SMALL, "K": [0.02, 0.05]}),
    "ms_ssim.5d": ((BATCH, 1, 40, 40, 40), SMALL),
    "ms_ssim.5d.short_depth": ((BATCH, 1, 16, 40, 40), SMALL),
}
# module name -> (class, constructor keywords, input shape).
MODULES: dict[str, tuple[str, dict[str, Any], tuple[int, ...]]] = {
    "SSIM": ("SSIM", {"data_range": 1.0}, (BATCH, 3, 32, 32)),
    "SSIM.grey.per_image": ("SSIM", {"data_range": 1.0, "channel": 1, "size_average": False}, (BATCH, 1, 32, 32)),
    "SSIM.nonnegative_ssim": ("SSIM", {"data_range": 255, "nonnegative_ssim": True, "win_size": 7},
                              (BATCH, 3, 32, 32)),
    "SSIM.3d": ("SSIM", {"data_range": 1.0, "channel": 1, "spatial_dims": 3, "win_size": 5}, (BATCH, 1, 16, 16, 16)),
    "MS_SSIM": ("MS_SSIM", {"data_range": 1.0, "win_size": 3}, (BATCH, 3, 48, 48)),
    "MS_SSIM.default_window": ("MS_SSIM", {"data_range": 255}, (BATCH, 3, 176, 176)),
    "MS_SSIM.weights.per_image": ("MS_SSIM", {"data_range": 1.0, "win_size": 5, "weights": [0.5, 0.5],
                                              "size_average": False}, (BATCH, 3, 72, 72)),
    "MS_SSIM.3d": ("MS_SSIM", {"data_range": 1.0, "channel": 1, "spatial_dims": 3, "win_size": 3},
                   (BATCH, 1, 36, 36, 36)),
}
TRAIN = ("train_step.ms_ssim_loss", "train_step.SSIM_l1_loss", "sgd_step.ms_ssim_loss")


def names() -> list[str]:
    return list(SSIM_CALLS) + list(MS_SSIM_CALLS) + list(MODULES) + list(TRAIN)


def _pair(shape: tuple[int, ...], scale: float = 1.0, seed: int = 1) -> tuple[Any, Any]:
    """A batch of images in ``[0, scale]`` and a noisy copy of it."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    x = torch.rand(*shape, generator=gen)
    y = (x + 0.1 * torch.randn(*shape, generator=gen)).clamp(0, 1)
    return x * scale, y * scale


def _window(size: int, sigma: float, channels: int, spatial: int) -> Any:
    from pytorch_msssim.ssim import _fspecial_gauss_1d

    return _fspecial_gauss_1d(size, sigma).repeat([channels, 1] + [1] * spatial)


def _call(name: str) -> Built:
    import pytorch_msssim as lib

    from gt_calls import Call

    if name in SSIM_CALLS:
        shape, keywords = SSIM_CALLS[name]
        function, taps = lib.ssim, 7
    else:
        shape, keywords = MS_SSIM_CALLS[name]
        function, taps = lib.ms_ssim, 3
    keywords = dict(keywords)
    if keywords.get("win") == "win":
        keywords["win"] = _window(taps, 1.0, shape[1], len(shape) - 2)
    scale = 255.0 if "data_range" not in keywords else float(keywords["data_range"])
    return Call(function, **keywords), _pair(shape, scale), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from pytorch_msssim import SSIM, ms_ssim
    from torch import nn

    from gt_calls import OptimizerStep, Run

    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1), nn.Sigmoid())
    x, y = _pair((BATCH, 3, 48, 48), seed=2)
    if name == "train_step.ms_ssim_loss":
        def loss(owner: Any, x_: Any, y_: Any) -> Any:
            return 1 - ms_ssim(owner(x_), y_, data_range=1.0, win_size=3)

        return Run(net, loss, [ms_ssim]), (x, y), {}
    if name == "train_step.SSIM_l1_loss":
        criterion = SSIM(data_range=1.0, win_size=7, channel=3)

        def mixed(owner: Any, x_: Any, y_: Any) -> Any:
            out = owner[0](x_)
            return 0.84 * (1 - owner[1](out, y_)) + 0.16 * F.l1_loss(out, y_)

        return Run(nn.ModuleList([net, criterion]), mixed, [SSIM]), (x, y), {}
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)

    def step_loss(x_: Any, y_: Any) -> Any:
        return 1 - ms_ssim(net(x_), y_, data_range=1.0, win_size=3)

    class _Step(OptimizerStep):
        def entry_points(self) -> list[Any]:
            return [ms_ssim]

    return _Step(net, optimizer, loss=step_loss), (x, y), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in SSIM_CALLS or name in MS_SSIM_CALLS:
        return _call(name)
    if name in MODULES:
        import pytorch_msssim as lib

        cls, keywords, shape = MODULES[name]
        return getattr(lib, cls)(**keywords), _pair(shape, float(keywords["data_range"])), {}
    return _train(name)
