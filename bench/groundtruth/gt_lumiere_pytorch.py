"""Ground-truth bench, lumiere_pytorch: Lumiere's temporal layers (Bar-Tal et al. 2024) around a text-to-image unet.

lumiere-pytorch 0.0.24 turns an image unet into a space-time one: ``Lumiere`` deep-copies and freezes the unet,
runs it once on a mock image to read the output shapes of the named modules, and attaches by forward hooks a
``ConvolutionInflationBlock`` (a 2-d then a 1-d temporal convolution, zero-initialised out), an
``AttentionInflationBlock`` (x-transformers ``Attention`` over frames, pre-normed and residual by default), a
``TemporalDownsample`` (a strided 1-d convolution) and a ``TemporalUpsample`` to them; a forward pre-hook on every
module repeats or slices its other tensor arguments (time, conditioning) to the current number of frames. Its
forward folds the video's frames into the batch, sets the batch size on every temporal layer and unfolds the
unet's output. ``MPLumiere`` is the same with the magnitude-preserving layers of Karras et al.
(``mp_lumiere.py``: forced weight-normed convolutions and linears, pixel norm, ``MPAdd``, ``MPAttention`` with
memory key-values, interpolating temporal resampling). The unet is the bench's own (``_TinyUnet``: a time and
optional text conditioning, residual blocks, a spatial attention, one spatial down and up level with a skip),
at 8 channels on 8 x 8 frames, 4 frames (8 in one), a batch of 2. The tables cover:

- ``BLOCKS``: each temporal layer alone: on a video tensor, on frames folded into the batch with ``batch_size``
  or an init ``time_dim``, other kernel sizes, attention depth, no pre-norm, no residual, causal attention,
  channel-last inputs; the magnitude-preserving ones likewise;
- ``PARTS``: ``ChanFirstRMSNorm``, ``Residual``, and the magnitude-preserving parts (``MPAttention``,
  ``PixelNorm``, ``MPAdd``, ``Gain``, ``MPSiLU``, the weight-normed ``Linear``, ``Conv2d`` and ``Conv1d``, whose
  training forward renormalises the weight in place) and the ``normalize_weight`` and ``interpolate_1d`` helpers;
- ``LUMIERE``: ``Lumiere`` and ``MPLumiere`` around the tiny unet: the default layers, text conditioning, a time
  per frame, other convolution kernels, deeper or causal or non-residual temporal attention, more hooked modules,
  8 frames, a batch of one;
- ``TRAIN``: training steps of the temporal parameters (a denoising loss, Adam) for ``Lumiere`` and
  ``MPLumiere``, and a temporal block alone with SGD.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, FRAMES, DIM, SIDE, CHANNELS, COND = 2, 4, 8, 8, 3, 6
ATTN: dict[str, Any] = {"heads": 2, "dim_head": 8}
# Block name -> (class, init keywords, input: "video", "images.batch_size", "images.time_dim" or "channel_last").
BLOCKS: dict[str, tuple[str, dict[str, Any], str]] = {
    "ConvolutionInflationBlock.video": ("ConvolutionInflationBlock", {}, "video"),
    "ConvolutionInflationBlock.images.batch_size": ("ConvolutionInflationBlock", {}, "images.batch_size"),
    "ConvolutionInflationBlock.images.time_dim": ("ConvolutionInflationBlock", {"time_dim": FRAMES},
                                                  "images.time_dim"),
    "ConvolutionInflationBlock.kernels5": ("ConvolutionInflationBlock",
                                           {"conv2d_kernel_size": 5, "conv1d_kernel_size": 5}, "video"),
    "ConvolutionInflationBlock.channel_last": ("ConvolutionInflationBlock", {"channel_last": True},
                                               "channel_last"),
    "AttentionInflationBlock.video": ("AttentionInflationBlock", ATTN, "video"),
    "AttentionInflationBlock.images.batch_size": ("AttentionInflationBlock", ATTN, "images.batch_size"),
    "AttentionInflationBlock.images.time_dim": ("AttentionInflationBlock", {**ATTN, "time_dim": FRAMES},
                                                "images.time_dim"),
    "AttentionInflationBlock.depth2.no_prenorm": ("AttentionInflationBlock", {**ATTN, "depth": 2, "prenorm": False},
                                                  "video"),
    "AttentionInflationBlock.no_residual": ("AttentionInflationBlock", {**ATTN, "residual_attn": False}, "video"),
    "AttentionInflationBlock.causal": ("AttentionInflationBlock", {**ATTN, "causal": True}, "images.batch_size"),
    "AttentionInflationBlock.channel_last": ("AttentionInflationBlock", {**ATTN, "channel_last": True},
                                             "channel_last"),
    "TemporalDownsample.video": ("TemporalDownsample", {}, "video"),
    "TemporalDownsample.images.batch_size": ("TemporalDownsample", {}, "images.batch_size"),
    "TemporalDownsample.images.time_dim": ("TemporalDownsample", {"time_dim": FRAMES}, "images.time_dim"),
    "TemporalDownsample.channel_last": ("TemporalDownsample", {"channel_last": True}, "channel_last"),
    "TemporalUpsample.video": ("TemporalUpsample", {}, "video"),
    "TemporalUpsample.images.batch_size": ("TemporalUpsample", {}, "images.batch_size"),
    "MPConvolutionInflationBlock.video": ("MPConvolutionInflationBlock", {}, "video"),
    "MPConvolutionInflationBlock.images.batch_size": ("MPConvolutionInflationBlock", {"dropout": 0.1},
                                                      "images.batch_size"),
    "MPConvolutionInflationBlock.channel_last": ("MPConvolutionInflationBlock", {"channel_last": True},
                                                 "channel_last"),
    "MPAttentionInflationBlock.video": ("MPAttentionInflationBlock", ATTN, "video"),
    "MPAttentionInflationBlock.images.time_dim": ("MPAttentionInflationBlock",
                                                  {**ATTN, "time_dim": FRAMES, "num_mem_kv": 2}, "images.time_dim"),
    "MPAttentionInflationBlock.depth2.dropout": ("MPAttentionInflationBlock",
                                                 {**ATTN, "depth": 2, "dropout": 0.1, "mp_add_t": 0.5},
                                                 "images.batch_size"),
    "MPTemporalDownsample.video": ("MPTemporalDownsample", {}, "video"),
    "MPTemporalDownsample.images.time_dim": ("MPTemporalDownsample", {"time_dim": FRAMES}, "images.time_dim"),
    "MPTemporalUpsample.video": ("MPTemporalUpsample", {}, "video"),
    "MPTemporalUpsample.images.batch_size": ("MPTemporalUpsample", {}, "images.batch_size"),
}
PARTS = ("ChanFirstRMSNorm", "Residual", "MPAttention", "PixelNorm", "MPAdd", "Gain", "MPSiLU", "mp.Linear",
         "mp.Conv2d", "mp.Conv1d.dirac", "normalize_weight", "interpolate_1d")
# Lumiere name -> (magnitude preserving, ``Lumiere`` keywords over the default hooked modules, unet forward
# inputs: any of "cond" (text conditioning), "time_per_frame", frames, batch).
LUMIERE: dict[str, tuple[bool, dict[str, Any], tuple[str, ...], int, int]] = {
    "Lumiere": (False, {}, (), FRAMES, BATCH),
    "Lumiere.cond": (False, {}, ("cond",), FRAMES, BATCH),
    "Lumiere.time_per_frame": (False, {}, ("time_per_frame",), FRAMES, BATCH),
    "Lumiere.conv_kernels5": (False, {"conv_inflation_kwargs": {"conv2d_kernel_size": 5, "conv1d_kernel_size": 5}},
                              (), FRAMES, BATCH),
    "Lumiere.attn_depth2.no_prenorm": (False, {"attn_inflation_kwargs": {**ATTN, "depth": 2, "prenorm": False}},
                                       ("cond",), FRAMES, BATCH),
    "Lumiere.attn_causal.no_residual": (False, {"attn_inflation_kwargs": {**ATTN, "causal": True,
                                                                          "residual_attn": False}},
                                        (), FRAMES, BATCH),
    "Lumiere.more_modules": (False, {"conv_module_names": ["downs.0", "mid_block", "ups.0"],
                                     "attn_module_names": ["down_attn", "mid_attn"]}, ("cond",), FRAMES, BATCH),
    "Lumiere.frames8": (False, {}, ("cond",), 8, BATCH),
    "Lumiere.batch1": (False, {}, (), FRAMES, 1),
    "MPLumiere": (True, {}, (), FRAMES, BATCH),
    "MPLumiere.cond.time_per_frame": (True, {}, ("cond", "time_per_frame"), FRAMES, BATCH),
    "MPLumiere.attn_depth2.mem_kv": (True, {"attn_inflation_kwargs": {**ATTN, "depth": 2, "num_mem_kv": 2},
                                            "conv_inflation_kwargs": {"mp_add_t": 0.5}}, (), FRAMES, BATCH),
    "MPLumiere.more_modules": (True, {"conv_module_names": ["downs.0", "mid_block", "ups.0"],
                                      "attn_module_names": ["down_attn", "mid_attn"]}, ("cond",), FRAMES, BATCH),
}
TRAIN = ("train.Lumiere.adam", "train.MPLumiere.adam", "train.AttentionInflationBlock.sgd",
         "train.MPConvolutionInflationBlock.sgd")


def names() -> list[str]:
    return [*BLOCKS, *PARTS, *LUMIERE, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _block_inputs(kind: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if kind == "video":
        return (_randn(BATCH, DIM, FRAMES, SIDE, SIDE),), {}
    if kind == "channel_last":
        # The wrappers move the second axis last: frames folded into the batch, the sides equal to the channels.
        return (_randn(BATCH * FRAMES, DIM, DIM, DIM),), {"batch_size": BATCH}
    images = _randn(BATCH * FRAMES, DIM, SIDE, SIDE)
    if kind == "images.batch_size":
        return (images,), {"batch_size": BATCH}
    return (images,), {}


def _block(name: str) -> Built:
    import lumiere_pytorch

    klass, keywords, kind = BLOCKS[name]
    cls = getattr(lumiere_pytorch, klass)
    if klass in ("TemporalDownsample", "TemporalUpsample", "MPTemporalDownsample", "MPTemporalUpsample"):
        block = cls(DIM, **keywords)
    else:
        block = cls(dim=DIM, **keywords)
    if not hasattr(block, "batch_dim"):
        block.batch_dim = None  # what ``Lumiere`` sets on every temporal layer before its forward
    args, kwargs = _block_inputs(kind)
    if kind == "channel_last" and klass.endswith("sample"):
        kwargs = {}
        block.batch_dim = BATCH
    return block, args, kwargs


def _part(name: str) -> Built:
    from lumiere_pytorch import lumiere, mp_lumiere as mp

    from gt_calls import Call

    tokens = _randn(BATCH, FRAMES, DIM)
    if name == "ChanFirstRMSNorm":
        return lumiere.ChanFirstRMSNorm(DIM), (_randn(BATCH, DIM, SIDE, SIDE),), {}
    if name == "Residual":
        from torch import nn

        return lumiere.Residual(nn.Linear(DIM, DIM)), (tokens,), {}
    if name == "MPAttention":
        return mp.MPAttention(DIM, heads=2, dim_head=8, num_mem_kv=2), (tokens,), {}
    if name == "PixelNorm":
        return mp.PixelNorm(dim=1), (_randn(BATCH, DIM, SIDE, SIDE),), {}
    if name == "MPAdd":
        return mp.MPAdd(0.3), (tokens, _randn(BATCH, FRAMES, DIM, seed=2)), {}
    if name == "Gain":
        return mp.Gain(), (tokens,), {}
    if name == "MPSiLU":
        return mp.MPSiLU(), (tokens,), {}
    if name == "mp.Linear":
        return mp.Linear(DIM, 2 * DIM), (tokens,), {}
    if name == "mp.Conv2d":
        return mp.Conv2d(DIM, DIM, 3), (_randn(BATCH, DIM, SIDE, SIDE),), {}
    if name == "mp.Conv1d.dirac":
        return mp.Conv1d(DIM, DIM, 3, init_dirac=True), (_randn(BATCH, DIM, FRAMES),), {}
    if name == "normalize_weight":
        return Call(mp.normalize_weight, eps=1e-4), (_randn(DIM, DIM, 3, 3),), {}
    return Call(mp.interpolate_1d, length=2 * FRAMES), (_randn(BATCH, DIM, FRAMES),), {}


def _unet() -> Any:
    import torch
    import torch.nn.functional as F
    from torch import nn

    class ResBlock(nn.Module):
        """Two 3 x 3 convolutions with group norm, shifted by the time embedding, and a 1 x 1 shortcut."""

        def __init__(self, dim_in: int, dim_out: int, dim_time: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(dim_in, dim_out, 3, padding=1)
            self.norm1 = nn.GroupNorm(2, dim_out)
            self.to_shift = nn.Linear(dim_time, dim_out)
            self.conv2 = nn.Conv2d(dim_out, dim_out, 3, padding=1)
            self.norm2 = nn.GroupNorm(2, dim_out)
            self.shortcut = nn.Conv2d(dim_in, dim_out, 1) if dim_in != dim_out else nn.Identity()

        def forward(self, x: torch.Tensor, time_emb: torch.Tensor) -> torch.Tensor:
            h = F.silu(self.norm1(self.conv1(x))) + self.to_shift(time_emb)[:, :, None, None]
            return F.silu(self.norm2(self.conv2(h))) + self.shortcut(x)

    class SpatialAttention(nn.Module):
        """Single-head self-attention over the pixels of each image, residual."""

        def __init__(self, dim: int) -> None:
            super().__init__()
            self.norm = nn.GroupNorm(1, dim)
            self.qkv = nn.Conv2d(dim, 3 * dim, 1)
            self.out = nn.Conv2d(dim, dim, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, c, h, w = x.shape
            q, k, v = self.qkv(self.norm(x)).reshape(b, 3, c, h * w).unbind(1)
            attn = torch.softmax(q.transpose(1, 2) @ k / c ** 0.5, dim=-1)
            return x + self.out((v @ attn.transpose(1, 2)).reshape(b, c, h, w))

    class TinyUnet(nn.Module):
        """A text-to-image unet in miniature: time (and optional text) conditioning, one down and up level."""

        def __init__(self) -> None:
            super().__init__()
            dim_time = 4 * DIM
            self.time_mlp = nn.Sequential(nn.Linear(1, dim_time), nn.SiLU(), nn.Linear(dim_time, dim_time))
            self.cond_mlp = nn.Linear(COND, dim_time)
            self.init_conv = nn.Conv2d(CHANNELS, DIM, 3, padding=1)
            self.downs = nn.ModuleList([ResBlock(DIM, DIM, dim_time)])
            self.down_attn = SpatialAttention(DIM)
            self.downsample = nn.Conv2d(DIM, 2 * DIM, 4, stride=2, padding=1)
            self.mid_block = ResBlock(2 * DIM, 2 * DIM, dim_time)
            self.mid_attn = SpatialAttention(2 * DIM)
            self.upsample = nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"),
                                          nn.Conv2d(2 * DIM, DIM, 3, padding=1))
            self.ups = nn.ModuleList([ResBlock(2 * DIM, DIM, dim_time)])
            self.final_conv = nn.Conv2d(DIM, CHANNELS, 1)

        def forward(self, x: torch.Tensor, time: torch.Tensor, cond: torch.Tensor | None = None) -> torch.Tensor:
            t = self.time_mlp(time.float().unsqueeze(-1))
            if cond is not None:
                t = t + self.cond_mlp(cond)
            x = self.init_conv(x)
            x = self.down_attn(self.downs[0](x, t))
            skip = x
            x = self.mid_attn(self.mid_block(self.downsample(x), t))
            x = self.ups[0](torch.cat((self.upsample(x), skip), dim=1), t)
            return self.final_conv(x)

    return TinyUnet()


def _lumiere(magnitude_preserving: bool, keywords: dict[str, Any]) -> Any:
    from lumiere_pytorch import Lumiere, MPLumiere

    options: dict[str, Any] = {
        "image_size": SIDE, "unet_time_kwarg": "time", "channels": CHANNELS,
        "conv_module_names": ["downs.0", "ups.0"], "attn_module_names": ["mid_attn"],
        "downsample_module_names": ["downsample"], "upsample_module_names": ["upsample"],
        "attn_inflation_kwargs": dict(ATTN),
    }
    options.update(keywords)
    return (MPLumiere if magnitude_preserving else Lumiere)(_unet(), **options)


def _unet_inputs(inputs: tuple[str, ...], frames: int, batch: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
    import torch

    video = _randn(batch, CHANNELS, frames, SIDE, SIDE)
    steps = batch * frames if "time_per_frame" in inputs else batch
    kwargs: dict[str, Any] = {"time": torch.rand(steps, generator=torch.Generator().manual_seed(3))}
    if "cond" in inputs:
        kwargs["cond"] = _randn(batch, COND, seed=4)
    return (video,), kwargs


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import lumiere_pytorch

    from gt_calls import Run

    if name.startswith("train.Lumiere") or name.startswith("train.MPLumiere"):
        model = _lumiere(name.startswith("train.MP"), {})
        optimizer: Any = torch.optim.Adam(model.parameters(), lr=1e-3)
        args, kwargs = _unet_inputs(("cond",), FRAMES, BATCH)
        entries: list[Any] = [lumiere_pytorch.Lumiere]
    else:
        klass = name.split(".")[1]
        keywords = ATTN if klass == "AttentionInflationBlock" else {}
        model = getattr(lumiere_pytorch, klass)(dim=DIM, **keywords)
        model.batch_dim = None
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        args, kwargs = (_randn(BATCH, DIM, FRAMES, SIDE, SIDE),), {}
        entries = [getattr(lumiere_pytorch, klass)]
    target = torch.zeros_like(args[0]) if not kwargs else _randn(*args[0].shape, seed=5)

    def step(owner: Any, video: torch.Tensor) -> torch.Tensor:
        """A denoising regression of the output, its gradients and an optimizer step on the temporal layers."""
        loss = F.mse_loss(owner(video, **kwargs), target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, entries), args, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in BLOCKS:
        return _block(name)
    if name in PARTS:
        return _part(name)
    if name in LUMIERE:
        magnitude_preserving, keywords, inputs, frames, batch = LUMIERE[name]
        args, kwargs = _unet_inputs(inputs, frames, batch)
        return _lumiere(magnitude_preserving, keywords), args, kwargs
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
