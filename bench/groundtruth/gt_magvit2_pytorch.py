"""Ground-truth bench, magvit2_pytorch (magvit2-pytorch): the MagViT2 video tokenizer, its layers and GAN losses.

magvit2-pytorch (lucidrains) is a video tokenizer: ``VideoTokenizer`` encodes a video (or an image, as a video
of one frame) with causal 3-D convolutions and a stack of configurable layers (residual units, strided spatial
and temporal downsampling, space and time attention with memory key / values, Taylor-series linear attention,
gate-loop time mixing, conditioned residual units built on a StyleGAN-style modulated 3-D convolution and
conditioned attention through adaptive RMS norms), quantizes the latents with lookup-free quantization (LFQ)
or finite scalar quantization (FSQ) from vector-quantize-pytorch, and decodes them with the mirrored layers
(depth-to-space upsampling). Its forward returns the reconstruction, the codes, the reconstruction loss, the
generator loss (reconstruction, quantizer auxiliary, perceptual and adversarial losses with an adaptive weight
from the gradients of the last decoder layer) or the discriminator loss (hinge loss, gradient penalty,
multiscale discriminators); the discriminator is a blur-pool image network with linear attention. The tables
cover, with 8 x 8 frames of 3 channels, 3 frames (the first one and two more), a batch of 2, an initial width
of 8 capped at 16, attention of 2 heads of 4 and a codebook of 16:

- ``TOKENIZER``: ``VideoTokenizer`` forward: the reconstruction, ``return_codes``, ``return_recon_loss_only``,
  ``return_loss`` (without a GAN, with a tiny perceptual network standing in for VGG, with it and a multiscale
  discriminator, the adversarial weights set to 0 as the trainer does before its discriminator starts),
  ``return_discr_loss`` (with gradients enabled: with and without the gradient penalty, multiscale), images
  instead of videos, a video without its first frame, each layer type (attention over space with dropout and
  over time, linear attention, gate-loop, consecutive residual units, conditioned residual units with
  ``cond``), FSQ, two spherical LFQ codebooks, a separately encoded first frame, reflect padding, one channel;
- ``METHODS``: ``encode`` (quantized or not, conditioned), ``decode`` (with a separate first frame),
  ``decode_from_code_indices`` (codes per frame or flattened, LFQ or FSQ) and ``tokenize`` through
  ``gt_calls.Method``;
- ``PARTS``: the layers alone: ``Attention`` (masked, causal), ``SpaceAttention``, ``TimeAttention``,
  ``LinearAttention``, ``LinearSpaceAttention``, ``AdaptiveRMSNorm``, ``FeedForward`` (images, conditioned),
  ``SqueezeExcite``, ``TokenShift``, ``ToTimeSequence`` around a gate-loop layer, ``RMSNorm``, ``Blur`` (space,
  time, images), ``DiscriminatorBlock``, ``Discriminator`` (anti-aliased or not), ``Conv3DMod``,
  ``ResidualUnitMod``, ``ResidualUnit``, the spatial and temporal down- and upsamplers, ``CausalConv3d``
  (strided and dilated, a replicate padding longer than the video), ``CausalConvTranspose3d`` and ``Attend``;
- ``FUNCTIONS``: ``hinge_discr_loss``, ``hinge_gen_loss``, ``pick_video_frame``, ``pad_at_dim``,
  ``gradient_penalty`` and ``grad_layer_wrt_loss`` (with gradients enabled), and the data helpers
  ``cast_num_frames`` (kept, truncated, padded) and ``crop_center``;
- ``STEPS``: the losses of ``VideoTokenizerTrainer.train_step`` and their ``backward`` (the generator loss with
  and without the perceptual network, on images with the adversarial weights at 0, the discriminator loss
  with the gradient penalty) and of its ``valid_step``.

The conditioned attention layers (``cond_attend_space``, ``cond_attend_time``, ``cond_linear_attend_space``)
are left out: in 0.5.1 their adaptive norm expects one row per video and the linear one is given ``flash``, so
they do not build or run. Also left out: the trainer itself (an ``Accelerator``, data loaders over a folder of
videos, warmup schedulers, an EMA copy, checkpoints and GIFs on disk) and its optimizer steps, the datasets,
``save`` / ``load`` and the default VGG16 (its weights are downloaded). Random weights, nothing downloaded.
``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, CHANNELS, FRAMES, SIDE, INIT_DIM, MAX_DIM, CODEBOOK, DIM_COND = 2, 3, 3, 8, 8, 16, 16, 4
HEADS, DIM_HEAD = 2, 4
DISCR: dict[str, Any] = {"dim": 4, "image_size": SIDE, "channels": CHANNELS, "max_dim": 16, "attn_heads": HEADS,
                         "attn_dim_head": DIM_HEAD, "linear_attn_heads": HEADS, "linear_attn_dim_head": DIM_HEAD,
                         "ff_mult": 2}
BASE: dict[str, Any] = {"image_size": SIDE, "init_dim": INIT_DIM, "max_dim": MAX_DIM, "codebook_size": CODEBOOK,
                        "layers": ("residual", "compress_space", "compress_time"),
                        "input_conv_kernel_size": (3, 3, 3), "attn_heads": HEADS, "attn_dim_head": DIM_HEAD,
                        "linear_attn_heads": HEADS, "linear_attn_dim_head": DIM_HEAD, "perceptual_loss_weight": 0.0,
                        "discr_kwargs": DISCR}
VGG: dict[str, Any] = {"vgg": "tiny", "perceptual_loss_weight": 0.1}
MULTISCALE: dict[str, Any] = {"multiscale_discrs": "tiny"}
# Conditioned residual units last (every layer after the first conditioned one is given ``cond``; the
# conditioned attention layers do not build or run in 0.5.1: their adaptive norm expects one row per video, and
# the linear one passes ``flash``).
COND: dict[str, Any] = {"dim_cond": DIM_COND, "layers": ("residual", "compress_space", "compress_time",
                                                         "cond_residual", "cond_residual")}
FSQ: dict[str, Any] = {"use_fsq": True, "codebook_size": None, "fsq_levels": [4, 4]}
LOSS: dict[str, Any] = {"return_loss": True}
DISCR_LOSS: dict[str, Any] = {"return_discr_loss": True}

# ``VideoTokenizer`` forward name -> (keywords over ``BASE`` ("vgg" and "multiscale_discrs" resolved to tiny
# modules), input: "video", "images", "no_first" (4 frames, none of them the first), call keywords (a
# ``cond`` is added where the keywords hold ``dim_cond``), gradients enabled whatever the mode).
TOKENIZER: dict[str, tuple[dict[str, Any], str, dict[str, Any], bool]] = {
    "VideoTokenizer": ({}, "video", {}, False),
    "VideoTokenizer.return_codes": ({}, "video", {"return_codes": True}, False),
    "VideoTokenizer.return_recon_loss_only": ({}, "video", {"return_recon_loss_only": True}, False),
    "VideoTokenizer.return_loss": ({}, "video", LOSS, False),
    "VideoTokenizer.return_loss.no_gan": ({"use_gan": False}, "video", LOSS, False),
    "VideoTokenizer.return_loss.vgg": (VGG, "video", LOSS, False),
    "VideoTokenizer.return_loss.vgg.multiscale": ({**VGG, **MULTISCALE}, "video", LOSS, False),
    "VideoTokenizer.return_loss.vgg.adversarial_off": (VGG, "video", {**LOSS, "adversarial_loss_weight": 0.0,
                                                                      "multiscale_adversarial_loss_weight": 0.0},
                                                       False),
    "VideoTokenizer.return_discr_loss.no_penalty": ({}, "video", {**DISCR_LOSS, "apply_gradient_penalty": False},
                                                    False),
    "VideoTokenizer.images": ({}, "images", {}, False),
    "VideoTokenizer.no_first_frame": ({}, "no_first", {"video_contains_first_frame": False}, False),
    "VideoTokenizer.attend_space.dropout": ({"layers": ("residual", "compress_space", "attend_space"),
                                             "attn_dropout": 0.1}, "video", {}, False),
    "VideoTokenizer.attend_time": ({"layers": ("compress_time", "attend_time")}, "video", {}, False),
    "VideoTokenizer.linear_attend_space": ({"layers": ("linear_attend_space", "compress_space")}, "video", {},
                                           False),
    "VideoTokenizer.gateloop_time": ({"layers": ("residual", "gateloop_time")}, "video", {}, False),
    "VideoTokenizer.cond": (COND, "video", {}, False),
    "VideoTokenizer.fsq": (FSQ, "video", {}, False),
    "VideoTokenizer.separate_first_frame": ({"separate_first_frame_encoding": True}, "video", {}, False),
}
# Method name -> (keywords over ``BASE``, method, its input: "video", "latents", "codes", "flat_codes",
# fixed keywords).
METHODS: dict[str, tuple[dict[str, Any], str, str, dict[str, Any]]] = {
    "encode.quantize": ({}, "encode", "video", {"quantize": True}),
    "decode_from_code_indices.flat": ({}, "decode_from_code_indices", "flat_codes", {}),
    "tokenize": ({}, "tokenize", "video", {}),
}
PARTS = ("Attention.mask", "Attention.causal", "SpaceAttention", "TimeAttention", "LinearSpaceAttention",
         "AdaptiveRMSNorm", "FeedForward.cond", "SqueezeExcite.images", "TokenShift", "ToTimeSequence.gateloop",
         "RMSNorm.channel_first.bias", "Blur", "Blur.time_only", "Blur.images", "DiscriminatorBlock.antialiased",
         "Discriminator", "Conv3DMod", "Conv3DMod.no_demod.non_causal.replicate", "ResidualUnitMod",
         "TimeDownsample2x.antialias", "SpatialUpsample2x", "TimeUpsample2x", "CausalConv3d.stride2.dilation2",
         "CausalConv3d.replicate.short", "CausalConvTranspose3d", "Attend.causal.mask", "Attend.dropout")
FUNCTIONS = ("hinge_discr_loss", "hinge_gen_loss", "pick_video_frame", "pad_at_dim", "gradient_penalty",
             "grad_layer_wrt_loss", "data.cast_num_frames", "data.cast_num_frames.truncate",
             "data.cast_num_frames.pad", "data.crop_center")
STEPS = ("train_step.generator", "train_step.images", "valid_step")


def names() -> list[str]:
    return [*TOKENIZER, *METHODS, *PARTS, *FUNCTIONS, *STEPS]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _tiny_vgg(channels: int = 3) -> Any:
    """A stand-in for VGG16 (features of an image, flattened)."""
    from torch import nn

    return nn.Sequential(nn.Conv2d(channels, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten())


def _tiny_video_discr(channels: int = CHANNELS) -> Any:
    """A multiscale discriminator over whole videos: a 3-D convolution and a pooled logit per video."""
    from torch import nn

    return nn.Sequential(nn.Conv3d(channels, 4, 3, padding=1), nn.LeakyReLU(0.1), nn.AdaptiveAvgPool3d(1),
                         nn.Flatten(), nn.Linear(4, 1), nn.Flatten(0))


def _tokenizer(**keywords: Any) -> Any:
    from magvit2_pytorch import VideoTokenizer

    keywords = {**BASE, **keywords}
    if keywords.get("vgg") == "tiny":
        keywords["vgg"] = _tiny_vgg()
    if keywords.get("multiscale_discrs") == "tiny":
        keywords["multiscale_discrs"] = (_tiny_video_discr(keywords.get("channels", CHANNELS)),)
    return VideoTokenizer(**keywords)


def _video(kind: str, channels: int = CHANNELS) -> Any:
    if kind == "images":
        return _randn(BATCH, channels, SIDE, SIDE)
    return _randn(BATCH, channels, 4 if kind == "no_first" else FRAMES, SIDE, SIDE)


def _tokenizer_forward(name: str) -> Built:
    import torch
    from gt_calls import Run
    from magvit2_pytorch import VideoTokenizer

    keywords, kind, call, grad = TOKENIZER[name]
    model = _tokenizer(**keywords)
    call = dict(call)
    if "dim_cond" in keywords:
        call["cond"] = _randn(BATCH, DIM_COND, seed=2)
    video = _video(kind, keywords.get("channels", CHANNELS))
    if not grad:
        return model, (video,), call

    def run(owner: Any, video_: Any) -> Any:
        with torch.enable_grad():
            return owner(video_, **call)

    return Run(model, run, [VideoTokenizer]), (video,), {}


def _method(name: str) -> Built:
    import torch
    from gt_calls import Method

    keywords, method, kind, static = METHODS[name]
    model = _tokenizer(**keywords)
    static = dict(static)
    if "dim_cond" in keywords:
        static["cond"] = _randn(BATCH, DIM_COND, seed=2)
    gen = torch.Generator().manual_seed(3)
    # After the encoder: the time padded to 4 frames and halved, the side halved, ``MAX_DIM`` channels.
    inputs = {
        "video": lambda: _video("video"),
        "no_first": lambda: _video("no_first"),
        "latents": lambda: _randn(BATCH, MAX_DIM, 2, SIDE // 2, SIDE // 2, seed=4),
        "codes": lambda: torch.randint(0, CODEBOOK, (BATCH, 2, SIDE // 2, SIDE // 2), generator=gen),
        "flat_codes": lambda: torch.randint(0, CODEBOOK, (BATCH, 2 * (SIDE // 2) ** 2), generator=gen),
    }
    return Method(model, method, **static), (inputs[kind](),), {}


def _attention_input(length: int = 6, dim: int = INIT_DIM) -> Any:
    return _randn(BATCH, length, dim, seed=5)


def _part(name: str) -> Built:
    import torch
    from magvit2_pytorch import magvit2_pytorch as m
    from magvit2_pytorch.attend import Attend

    video = _randn(BATCH, INIT_DIM, FRAMES, SIDE, SIDE, seed=6)
    image = _randn(BATCH, INIT_DIM, SIDE, SIDE, seed=7)
    cond = _randn(BATCH, DIM_COND, seed=8)
    attn: dict[str, Any] = {"dim": INIT_DIM, "heads": HEADS, "dim_head": DIM_HEAD}
    if name.startswith("Attention"):
        call: dict[str, Any] = {}
        if name.endswith("mask"):  # over the 4 memory key / values and the 6 positions
            call["mask"] = (torch.arange(6 + 4) < torch.tensor([[10], [7]]))[:, None, None, :]
        return m.Attention(**attn, causal=name.endswith("causal")), (_attention_input(),), call
    if name == "SpaceAttention":
        return m.SpaceAttention(**attn), (video,), {}
    if name == "TimeAttention":
        return m.TimeAttention(**attn, causal=True), (video,), {}
    if name == "LinearAttention":
        return m.LinearAttention(**attn), (_attention_input(),), {}
    if name == "AdaptiveRMSNorm":
        return m.AdaptiveRMSNorm(INIT_DIM, dim_cond=DIM_COND), (_randn(BATCH, INIT_DIM, seed=5),), {"cond": cond}
    if name == "LinearSpaceAttention":
        return m.LinearSpaceAttention(**attn), (video,), {}
    if name.startswith("FeedForward"):
        if name.endswith("images"):
            return m.FeedForward(INIT_DIM, mult=2, images=True), (image,), {}
        conditioned = name.endswith("cond")
        return m.FeedForward(INIT_DIM, mult=2, dim_cond=DIM_COND if conditioned else None), (video,), \
            {"cond": cond} if conditioned else {}
    if name.startswith("SqueezeExcite"):
        return m.SqueezeExcite(INIT_DIM, dim_hidden_min=4), (image if name.endswith("images") else video,), {}
    if name == "TokenShift":
        return m.TokenShift(m.FeedForward(INIT_DIM, mult=2)), (video,), {}
    if name == "ToTimeSequence.gateloop":
        from gateloop_transformer import SimpleGateLoopLayer

        return m.ToTimeSequence(m.Residual(SimpleGateLoopLayer(dim=INIT_DIM))), (video,), {}
    if name == "RMSNorm":
        return m.RMSNorm(INIT_DIM), (_attention_input(),), {}
    if name == "RMSNorm.channel_first.bias":
        return m.RMSNorm(INIT_DIM, channel_first=True, bias=True), (video,), {}
    if name == "AdaptiveRMSNorm.channel_first.bias":
        return m.AdaptiveRMSNorm(INIT_DIM, dim_cond=DIM_COND, channel_first=True, bias=True), (video,), {"cond": cond}
    if name.startswith("Blur"):
        mode = {"Blur": {}, "Blur.space_only": {"space_only": True}, "Blur.time_only": {"time_only": True},
                "Blur.images": {"space_only": True}}[name]
        return m.Blur(), (image if name.endswith("images") else video,), mode
    if name.startswith("DiscriminatorBlock"):
        block = m.DiscriminatorBlock(CHANNELS, INIT_DIM, downsample=not name.endswith("no_downsample"),
                                     antialiased_downsample=name.endswith("antialiased"))
        return block, (_randn(BATCH, CHANNELS, SIDE, SIDE, seed=9),), {}
    if name.startswith("Discriminator"):
        keywords = {k: v for k, v in DISCR.items()}
        keywords["antialiased_downsample"] = name.endswith("antialiased")
        return m.Discriminator(**keywords), (_randn(BATCH, CHANNELS, SIDE, SIDE, seed=9),), {}
    if name.startswith("Conv3DMod"):
        plain = name == "Conv3DMod"
        conv = m.Conv3DMod(INIT_DIM, spatial_kernel=3, time_kernel=3, dim_out=4, causal=plain, demod=plain,
                           pad_mode="constant" if plain else "replicate")
        return conv, (video,), {"cond": _randn(BATCH, INIT_DIM, seed=10)}
    if name == "ResidualUnitMod":
        return m.ResidualUnitMod(INIT_DIM, 3, dim_cond=DIM_COND), (video,), {"cond": cond}
    if name == "ResidualUnit":
        return m.ResidualUnit(INIT_DIM, (3, 3, 3)), (video,), {}
    if name.startswith("SpatialDownsample2x"):
        return m.SpatialDownsample2x(INIT_DIM, 12, antialias=name.endswith("antialias")), (video,), {}
    if name.startswith("TimeDownsample2x"):
        return m.TimeDownsample2x(INIT_DIM, 12, antialias=name.endswith("antialias")), (video,), {}
    if name == "SpatialUpsample2x":
        return m.SpatialUpsample2x(INIT_DIM, 4), (video,), {}
    if name == "TimeUpsample2x":
        return m.TimeUpsample2x(INIT_DIM, 4), (video,), {}
    if name == "CausalConv3d":
        return m.CausalConv3d(INIT_DIM, 4, 3), (video,), {}
    if name == "CausalConv3d.stride2.dilation2":
        return m.CausalConv3d(INIT_DIM, 4, (3, 3, 3), stride=2, dilation=2), \
            (_randn(BATCH, INIT_DIM, 5, SIDE, SIDE),), {}
    if name == "CausalConv3d.replicate.short":
        # A time padding as long as the video: the replicate padding gives way to a constant one.
        return m.CausalConv3d(INIT_DIM, 4, (5, 3, 3), pad_mode="replicate"), (video,), {}
    if name == "CausalConvTranspose3d":
        return m.CausalConvTranspose3d(INIT_DIM, 4, 3, time_stride=2), (video,), {}
    q, k, v = (_randn(BATCH, HEADS, 6, DIM_HEAD, seed=s) for s in (11, 12, 13))
    if name == "Attend":
        return Attend(), (q, k, v), {}
    if name == "Attend.causal.mask":
        mask = (torch.arange(6) < torch.tensor([[6], [4]]))[:, None, None, :]
        return Attend(causal=True), (q, k, v), {"mask": mask}
    if name == "Attend.dropout":
        return Attend(dropout=0.1), (q, k, v), {}
    raise KeyError(name)


def _function(name: str) -> Built:
    import torch
    from gt_calls import Call, Run
    from magvit2_pytorch import data
    from magvit2_pytorch import magvit2_pytorch as m

    video = _randn(BATCH, CHANNELS, FRAMES, SIDE, SIDE, seed=14)
    if name == "hinge_discr_loss":
        return Call(m.hinge_discr_loss), (_randn(BATCH, seed=15), _randn(BATCH, seed=16)), {}
    if name == "hinge_gen_loss":
        return Call(m.hinge_gen_loss), (_randn(BATCH, seed=15),), {}
    if name == "pick_video_frame":
        return Call(m.pick_video_frame), (video, torch.tensor([[2], [0]])), {}
    if name == "pad_at_dim":
        return Call(m.pad_at_dim, pad=(1, 0), dim=2), (video,), {}
    if name == "gradient_penalty":
        discr = torch.nn.Sequential(torch.nn.Conv2d(CHANNELS, 4, 3, padding=1), torch.nn.Flatten(),
                                    torch.nn.Linear(4 * SIDE * SIDE, 1), torch.nn.Flatten(0))

        def penalty(owner: Any, images: Any) -> Any:
            with torch.enable_grad():
                images = images.detach().requires_grad_()
                return m.gradient_penalty(images, owner(images))

        return Run(discr, penalty, [m.gradient_penalty]), (_randn(BATCH, CHANNELS, SIDE, SIDE, seed=17),), {}
    if name == "grad_layer_wrt_loss":
        conv = m.CausalConv3d(CHANNELS, CHANNELS, 3)

        def layer_grad(owner: Any, video_: Any) -> Any:
            with torch.enable_grad():
                loss = (owner(video_) - video_).pow(2).mean()
                return m.grad_layer_wrt_loss(loss, owner.conv.weight).norm(p=2)

        return Run(conv, layer_grad, [m.grad_layer_wrt_loss]), (video,), {}
    if name.startswith("data.cast_num_frames"):
        frames = {"data.cast_num_frames": FRAMES, "data.cast_num_frames.truncate": 2, "data.cast_num_frames.pad": 5}
        return Call(data.cast_num_frames, frames=frames[name]), (video[0],), {}
    if name == "data.crop_center":
        return Call(data.crop_center, cropx=4, cropy=6), (_randn(SIDE, SIDE, CHANNELS, seed=18),), {}
    raise KeyError(name)


def _step(name: str) -> Built:
    """The losses of ``VideoTokenizerTrainer.train_step`` and ``valid_step`` without the accelerator: the
    generator loss (adversarial weights of 0 before the discriminator starts, as the trainer sets them) and its
    ``backward``, the discriminator loss with the gradient penalty and its ``backward``, and the validation
    reconstruction loss."""
    import torch
    from gt_calls import Run
    from magvit2_pytorch import VideoTokenizer

    model = _tokenizer(**(VGG if name.endswith(".vgg") else {}))
    video = _video("images" if name == "train_step.images" else "video")
    if name == "valid_step":
        def valid(owner: Any, video_: Any) -> Any:
            with torch.no_grad():
                loss, recon = owner(video_, return_recon_loss_only=True)
            return loss, recon.clamp(0.0, 1.0)

        return Run(model, valid, [VideoTokenizer]), (video,), {}
    call: dict[str, Any] = {"return_loss": True}
    if name == "train_step.discriminator":
        call = {"return_discr_loss": True, "apply_gradient_penalty": True}
    elif name == "train_step.images":
        call = {"return_loss": True, "adversarial_loss_weight": 0.0, "multiscale_adversarial_loss_weight": 0.0}

    def step(owner: Any, video_: Any) -> Any:
        with torch.enable_grad():
            loss, breakdown = owner(video_, **call)
            loss.backward()
        return loss.detach(), breakdown[0].detach()

    return Run(model, step, [VideoTokenizer]), (video,), {}


def build(name: str) -> Built:
    import warnings

    import torch
    from gt_models import allow_torchvision_import

    warnings.filterwarnings("ignore")
    allow_torchvision_import()
    torch.manual_seed(0)
    if name in TOKENIZER:
        return _tokenizer_forward(name)
    if name in METHODS:
        return _method(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in STEPS:
        return _step(name)
    raise KeyError(name)
