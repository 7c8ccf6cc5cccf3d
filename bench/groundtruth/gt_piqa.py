"""Ground-truth bench, piqa (PyTorch Image Quality Assessment): image quality metrics as modules and functions.

piqa measures the similarity of an image to a reference with differentiable metrics, used for evaluation
and as training losses. Images are a batch of 2 RGB images of 64 x 64 in [0, 1] (larger for the metrics
that need it); the model families:

- ``CRITERIA``: the metric modules called on an input and a target, in the options that change their
  code: ``TV`` (the three norms, reductions), ``PSNR`` (a value range, no reduction), ``SSIM`` (grey
  images, padding, per-channel values, 1-D signals, a volume of three spatial dimensions), ``MS_SSIM``
  (default and custom scale weights), ``GMSD`` and ``MS_GMSD`` (with and without downsampling, other gradient
  kernels, the chromatic term), ``MDSI`` (sum and product combinations), ``HaarPSI``, ``VSI`` and
  ``FSIM`` (chromatic or grey, with or without downsampling), ``LPIPS`` (AlexNet, SqueezeNet and VGG
  trunks with random weights: the library's constructor runs with torchvision's builders and its
  weight loader patched to skip the download) and ``FID`` (on features, and ``FID.features`` through
  a random Inception-v3, with and without gradients); one model runs ``SSIM`` with piqa's input checks
  turned off (``set_debug``);
- ``TRAIN``: a train step with a metric as the loss (a small convolutional net's output against the
  target, ``1 - metric`` or the metric itself, backward and an SGD step) for SSIM, MS-SSIM, GMSD,
  MDSI, HaarPSI, LPIPS and PSNR;
- ``FUNCTIONS``: the functional forms users call directly: ``ssim``, ``ms_ssim``, ``gmsd``, ``ms_gmsd``,
  ``mdsi``, ``haarpsi``, ``vsi`` (with ``sdsp`` saliency maps), ``fsim`` (with ``phase_congruency`` and
  ``pc_filters``), ``psnr``, ``mse``, ``tv``, ``frechet_distance`` and ``sqrtm``, and the tools of
  ``piqa.utils``: colour conversions (``color_conv``, ``ColorConv``, ``rgb_to_xyz``, ``xyz_to_lab``,
  ``ImageNetNorm``), ``channel_conv`` / ``channel_convs``, ``kernel_views``, ``gradient_kernel``,
  ``filter_grid``, ``log_gabor``, ``l2_norm``, ``downsample`` and ``reduce_tensor``.

Every model is compiled in eval mode (``no_grad``) and in train mode. Random images, random weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only (which makes torchvision,
imported by piqa, importable).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SIZE = 2, 64

# Criterion name -> (class in ``piqa``, constructor keywords, inputs). Inputs: "pair" two RGB images, "pair255"
# the same in [0, 255], "small" two RGB images of 32 x 32, "one" one image, "grey" two 1-channel images, "volume"
# two 1-channel volumes, "signal" two 2-channel 1-D signals, "large" two RGB images of 300 x 300 (so that
# downsampling applies), "features" two sets of feature vectors, "inception" (".no_grad") images of 80 x 80 for
# ``FID.features`` with (without) ``no_grad=False``. "prewitt" / "scharr" stand for ``piqa.utils.functional``'s
# gradient kernels; "weights3" for three scale weights.
CRITERIA: dict[str, tuple[str, dict[str, Any], str]] = {
    "TV": ("TV", {}, "one"),
    "TV.L2.sum": ("TV", {"norm": "L2", "reduction": "sum"}, "one"),
    "TV.L2_squared.none": ("TV", {"norm": "L2_squared", "reduction": "none"}, "one"),
    "PSNR": ("PSNR", {}, "pair"),
    "PSNR.value_range.none": ("PSNR", {"value_range": 255.0, "reduction": "none"}, "pair255"),
    "SSIM": ("SSIM", {}, "pair"),
    "SSIM.grey.padding": ("SSIM", {"n_channels": 1, "padding": True, "window_size": 7}, "grey"),
    "SSIM.no_channel_avg.sum": ("SSIM", {"channel_avg": False, "reduction": "sum"}, "pair"),
    "SSIM.volume": ("SSIM", {"n_channels": 1, "window_size": 5}, "volume"),
    "SSIM.signal": ("SSIM", {"n_channels": 2, "window_size": 7, "padding": True}, "signal"),
    "SSIM.no_debug": ("SSIM", {"debug": False}, "pair"),
    "MS_SSIM": ("MS_SSIM", {"window_size": 3}, "pair"),
    "MS_SSIM.weights3.padding": ("MS_SSIM", {"window_size": 5, "weights": "weights3", "padding": True,
                                             "reduction": "none"}, "pair"),
    "GMSD": ("GMSD", {}, "pair"),
    "GMSD.large": ("GMSD", {}, "large"),
    "GMSD.no_downsample.scharr": ("GMSD", {"downsample": False, "kernel": "scharr"}, "pair"),
    "MS_GMSD": ("MS_GMSD", {}, "pair"),
    "MS_GMSD.prewitt.alpha0": ("MS_GMSD", {"kernel": "prewitt", "alpha": 0.0, "reduction": "none"}, "pair"),
    "MDSI": ("MDSI", {}, "pair"),
    "MDSI.large": ("MDSI", {}, "large"),
    "MDSI.prod.no_downsample": ("MDSI", {"combination": "prod", "downsample": False}, "pair"),
    "HaarPSI": ("HaarPSI", {}, "pair"),
    "HaarPSI.grey.large": ("HaarPSI", {"chromatic": False}, "large"),
    "HaarPSI.no_downsample": ("HaarPSI", {"downsample": False, "reduction": "none"}, "pair"),
    "VSI": ("VSI", {}, "pair"),
    "VSI.grey.large": ("VSI", {"chromatic": False}, "large"),
    "VSI.no_downsample": ("VSI", {"downsample": False}, "pair"),
    "FSIM": ("FSIM", {}, "pair"),
    "FSIM.grey.large": ("FSIM", {"chromatic": False}, "large"),
    "FSIM.no_downsample": ("FSIM", {"downsample": False, "reduction": "sum"}, "pair"),
    "LPIPS.alex": ("LPIPS", {"network": "alex"}, "pair"),
    "LPIPS.squeeze": ("LPIPS", {"network": "squeeze"}, "pair"),
    "LPIPS.vgg.none": ("LPIPS", {"network": "vgg", "reduction": "none"}, "small"),
    "FID": ("FID", {}, "features"),
    "FID.features": ("FID", {}, "inception"),
    "FID.features.no_grad": ("FID", {}, "inception.no_grad"),
}
# Train step name -> (criterion name of ``CRITERIA``, loss: "one_minus" (1 - similarity) or "direct").
TRAIN: dict[str, tuple[str, str]] = {
    "train_step.SSIM": ("SSIM", "one_minus"),
    "train_step.MS_SSIM": ("MS_SSIM", "one_minus"),
    "train_step.GMSD": ("GMSD", "direct"),
    "train_step.MDSI": ("MDSI", "direct"),
    "train_step.HaarPSI": ("HaarPSI", "one_minus"),
    "train_step.LPIPS.alex": ("LPIPS.alex", "direct"),
    "train_step.PSNR": ("PSNR", "negative"),
}
# Function name -> (module under ``piqa``, function, inputs, fixed keywords). Inputs as in ``CRITERIA`` and:
# "pair+kernel" (x, y, a Gaussian kernel), "pair+kernel+weights", "pair+gradient" (x, y, a gradient kernel),
# "luminance+gradient" (Y channels and a gradient kernel), "vsi" (x, y, their saliency maps, a gradient
# kernel), "fsim" (x, y, their phase congruency, a gradient kernel), "filters" (an image and log-Gabor
# filters), "image+filter" (an image and an SDSP filter), "covariances" (two means and covariances), "spd"
# (a positive definite matrix), "xyz" an image in XYZ, "large" one image of 300 x 300, "grid" a frequency grid,
# "kernels" (x and kernel views).
FUNCTIONS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "ssim": ("ssim", "ssim", "pair+kernel", {}),
    "ssim.padding.value_range": ("ssim", "ssim", "pair+kernel", {"padding": True, "value_range": 1.0,
                                                                 "channel_avg": False}),
    "ms_ssim": ("ssim", "ms_ssim", "pair+kernel+weights", {}),
    "gmsd": ("gmsd", "gmsd", "luminance+gradient", {}),
    "gmsd.alpha": ("gmsd", "gmsd", "luminance+gradient", {"alpha": 0.5}),
    "ms_gmsd": ("gmsd", "ms_gmsd", "luminance+gradient+weights", {}),
    "mdsi": ("mdsi", "mdsi", "pair+gradient", {}),
    "mdsi.prod": ("mdsi", "mdsi", "pair+gradient", {"combination": "prod"}),
    "haarpsi": ("haarpsi", "haarpsi", "pair", {}),
    "haarpsi.grey": ("haarpsi", "haarpsi", "grey", {"n_kernels": 2}),
    "vsi": ("vsi", "vsi", "vsi", {}),
    "sdsp": ("vsi", "sdsp", "image+filter", {}),
    "sdsp_filter": ("vsi", "sdsp_filter", "one", {}),
    "fsim": ("fsim", "fsim", "fsim", {}),
    "pc_filters": ("fsim", "pc_filters", "one", {}),
    "phase_congruency": ("fsim", "phase_congruency", "filters", {}),
    "psnr": ("psnr", "psnr", "pair", {}),
    "mse": ("psnr", "mse", "pair", {}),
    "tv": ("tv", "tv", "one", {}),
    "tv.L2": ("tv", "tv", "one", {"norm": "L2"}),
    "frechet_distance": ("fid", "frechet_distance", "covariances", {}),
    "sqrtm": ("fid", "sqrtm", "spd", {}),
    "color_conv": ("utils.color", "color_conv", "one+yiq", {}),
    "ColorConv.RGB_LHM": ("utils.color", "ColorConv", "one", {"src": "RGB", "dst": "LHM"}),
    "rgb_to_xyz": ("utils.color", "rgb_to_xyz", "one", {"value_range": 1.0}),
    "xyz_to_lab": ("utils.color", "xyz_to_lab", "xyz", {}),
    "ImageNetNorm": ("utils.color", "ImageNetNorm", "one", {}),
    "channel_conv": ("utils.functional", "channel_conv", "one+kernel", {"padding": 2}),
    "channel_convs": ("utils.functional", "channel_convs", "kernels", {}),
    "kernel_views": ("utils.functional", "kernel_views", "kernel", {"n": 3}),
    "gradient_kernel": ("utils.functional", "gradient_kernel", "sobel", {}),
    "filter_grid": ("utils.functional", "filter_grid", "one", {}),
    "log_gabor": ("utils.functional", "log_gabor", "grid", {"f_0": 0.2, "sigma_f": 0.6}),
    "l2_norm": ("utils.functional", "l2_norm", "one", {"dim": 1, "keepdim": True}),
    "downsample": ("utils.functional", "downsample", "large", {"resolution": 128}),
    "reduce_tensor.sum": ("utils.functional", "reduce_tensor", "one", {"reduction": "sum"}),
}


def names() -> list[str]:
    return list(CRITERIA) + list(TRAIN) + list(FUNCTIONS)


def _images(kind: str, seed: int = 1) -> tuple[Any, ...]:
    import torch

    gen = torch.Generator().manual_seed(seed)

    def pair(*shape: int, scale: float = 1.0) -> tuple[Any, Any]:
        x = torch.rand(*shape, generator=gen)
        y = (x + 0.1 * torch.randn(*shape, generator=gen)).clamp(0, 1)
        return x * scale, y * scale

    if kind == "pair":
        return pair(BATCH, 3, SIZE, SIZE)
    if kind == "pair255":
        return pair(BATCH, 3, SIZE, SIZE, scale=255.0)
    if kind == "small":
        return pair(BATCH, 3, 32, 32)
    if kind == "one":
        return (torch.rand(BATCH, 3, SIZE, SIZE, generator=gen),)
    if kind == "grey":
        return pair(BATCH, 1, SIZE, SIZE)
    if kind == "volume":
        return pair(BATCH, 1, 12, 16, 16)
    if kind == "signal":
        return pair(BATCH, 2, 128)
    if kind == "large":
        return pair(BATCH, 3, 300, 300)
    if kind.startswith("inception"):
        return (torch.rand(BATCH, 3, 80, 80, generator=gen),)
    return torch.randn(12, 8, generator=gen), torch.randn(10, 8, generator=gen) + 0.5  # features


def _criterion(name: str) -> Any:
    """The ``piqa`` module of a ``CRITERIA`` entry, built with random weights where it has any."""
    import contextlib

    import piqa
    import torch
    from piqa.utils import functional

    cls, keywords, _ = CRITERIA[name]
    keywords = dict(keywords)
    if keywords.pop("debug", True) is False:
        from piqa.utils import set_debug

        set_debug(False)
    if isinstance(keywords.get("kernel"), str):
        keywords["kernel"] = functional.gradient_kernel(getattr(functional, f"{keywords['kernel']}_kernel")())
    if keywords.get("weights") == "weights3":
        keywords["weights"] = torch.tensor([0.3, 0.3, 0.4])
    patches = contextlib.ExitStack()
    if cls in ("LPIPS", "FID"):
        patches.enter_context(_random_trunks())
    with patches:
        return getattr(piqa, cls)(**keywords)


def _random_trunks() -> Any:
    """Patches under which ``LPIPS`` and ``FID`` build their trunks with random weights: torchvision's
    builders ignore ``weights='DEFAULT'`` and LPIPS's linear weights are drawn instead of downloaded."""
    import contextlib
    from unittest import mock

    import torch
    import torchvision

    widths = {"alex": (64, 192, 384, 256, 256), "squeeze": (64, 128, 256, 384, 384, 512, 512),
              "vgg": (64, 128, 256, 512, 512)}

    def random_weights(network: str = "alex", version: str = "v0.1") -> list[Any]:
        gen = torch.Generator().manual_seed(2)
        return [torch.rand(width, generator=gen) / width for width in widths[network]]

    def untrained(builder: Any, **extra: Any) -> Any:
        return lambda *args, weights=None, **kwargs: builder(*args, weights=None, **{**extra, **kwargs})

    stack = contextlib.ExitStack()
    stack.enter_context(mock.patch("piqa.lpips.get_weights", random_weights))
    for name, extra in (("alexnet", {}), ("squeezenet1_1", {}), ("vgg16", {}),
                        ("inception_v3", {"aux_logits": False, "init_weights": False})):
        stack.enter_context(mock.patch.object(torchvision.models, name, untrained(getattr(torchvision.models, name),
                                                                                  **extra)))
    return stack


def _criteria(name: str) -> Built:
    from gt_calls import Method

    criterion = _criterion(name)
    kind = CRITERIA[name][2]
    if kind.startswith("inception"):  # the default keeps gradients off inside, the option lets them through
        return Method(criterion, "features", **({} if kind.endswith("no_grad") else {"no_grad": False})), \
            _images(kind), {}
    return criterion, _images(kind), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Run

    criterion_name, loss_kind = TRAIN[name]
    criterion = _criterion(criterion_name)
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1), nn.Sigmoid())
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    holder = nn.ModuleDict({"net": net, "criterion": criterion})
    x, y = _images("small" if criterion_name.startswith("LPIPS") else "pair")

    def step(owner: Any, inputs: Any, target: Any) -> Any:
        """A restoration net's output scored against the target, backward and an optimizer step."""
        with torch.enable_grad():
            optimizer.zero_grad()
            value = owner["criterion"](owner["net"](inputs), target)
            loss = {"one_minus": lambda v: 1 - v, "direct": lambda v: v, "negative": lambda v: -v}[loss_kind](value)
            loss.backward()
            optimizer.step()
        return loss.detach()

    return Run(holder, step, [type(criterion)]), (x, y), {}


def _function_inputs(kind: str) -> tuple[Any, ...]:
    import torch
    from piqa.utils import color, functional

    gen = torch.Generator().manual_seed(3)
    x, y = _images("pair")
    gaussian = functional.gaussian_kernel(5, 1.5).repeat(3, 1, 1)
    gradient = functional.gradient_kernel(functional.prewitt_kernel())
    if kind in ("pair", "one", "grey"):
        return _images(kind)
    if kind == "large":
        return _images(kind)[:1]
    if kind == "pair+kernel":
        return x, y, gaussian
    if kind == "pair+kernel+weights":
        return x, y, functional.gaussian_kernel(3, 1.5).repeat(3, 1, 1), torch.tensor([0.3, 0.3, 0.4])
    if kind == "pair+gradient":
        return x, y, gradient
    if kind.startswith("luminance+gradient"):
        to_y = color.ColorConv("RGB", "Y")
        inputs = (to_y(x), to_y(y), gradient)
        return (*inputs, torch.tensor([0.25, 0.25, 0.5])) if kind.endswith("weights") else inputs
    if kind == "vsi":
        from piqa.vsi import sdsp, sdsp_filter

        to_lmn = color.ColorConv("RGB", "LMN")
        filtr = sdsp_filter(x)
        return to_lmn(x), to_lmn(y), sdsp(x, filtr), sdsp(y, filtr), gradient
    if kind == "image+filter":
        from piqa.vsi import sdsp_filter

        return x, sdsp_filter(x)
    if kind == "fsim":
        from piqa.fsim import pc_filters, phase_congruency

        to_yiq = color.ColorConv("RGB", "YIQ")
        x_, y_ = to_yiq(x), to_yiq(y)
        filters = pc_filters(x_)
        return x_, y_, phase_congruency(x_[:, :1], filters), phase_congruency(y_[:, :1], filters), gradient
    if kind == "filters":
        from piqa.fsim import pc_filters

        grey = x[:, :1]
        return grey, pc_filters(grey)
    if kind == "covariances":
        a, b = torch.randn(30, 6, generator=gen), torch.randn(30, 6, generator=gen) + 0.3
        return a.mean(0), torch.cov(a.T), b.mean(0), torch.cov(b.T)
    if kind == "spd":
        a = torch.randn(6, 6, generator=gen)
        return (a @ a.T + torch.eye(6),)
    if kind == "one+yiq":
        return x, color.RGB_TO_YIQ
    if kind == "xyz":
        return (color.rgb_to_xyz(x),)
    if kind == "one+kernel":
        return x, functional.gaussian_kernel(5, 1.0).repeat(3, 1, 1)[:, None]
    if kind in ("kernels", "kernel"):
        views = functional.kernel_views(gaussian, 2)
        return (x, views) if kind == "kernels" else (gaussian,)
    if kind == "sobel":
        return (functional.sobel_kernel(),)
    return functional.filter_grid(x)[1:]  # "grid": the radius of the frequency grid


def _function(name: str) -> Built:
    import importlib

    from gt_calls import Call

    module, function, kind, static = FUNCTIONS[name]
    target = getattr(importlib.import_module(f"piqa.{module}"), function)
    if isinstance(target, type):
        return target(**static), _function_inputs(kind), {}
    return Call(target, **static), _function_inputs(kind), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in CRITERIA:
        return _criteria(name)
    if name in TRAIN:
        return _train(name)
    return _function(name)
