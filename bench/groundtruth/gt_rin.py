"""Ground-truth bench, rin_pytorch (RIN-pytorch): Recurrent Interface Networks, trained and sampled as diffusion models.

RIN-pytorch (lucidrains) implements the Recurrent Interface Network (Jabri, Fleet, Chen, 2022): image
patches and a smaller set of latents exchange information by cross-attention in every ``RINBlock``
(latents read the patches, attend among themselves, patches read the latents back, with a depthwise
convolution as positional encoding and optional linear self-attention over the patches), conditioned on
the noise level by adaptive layer norm or by one extra latent token. ``RIN.forward(x, time,
x_self_cond, latent_self_cond, return_latents)`` predicts from the noisy image and, with
self-conditioning, from the previous prediction and latents. ``GaussianDiffusion`` wraps it: its forward
is the training loss (continuous times, a sigmoid, cosine or linear gamma schedule, an ``x0``, ``eps`` or
``v`` objective, latent self-conditioning with probability ``train_prob_self_cond``, min-SNR weighting,
the input ``scale`` with variance renormalization) and ``sample`` runs DDIM or DDPM sampling with
self-conditioning carried across steps. So each model is one of:

- ``RINS``: ``RIN`` alone (dim 16, 16 x 16 images cut in patches of 4, 8 latents, two heads of 8, one block
  with one latent self-attention unless named, a batch of 2) in the configurations that change its code:
  self-conditioning inputs (returning the latents), the time as a latent token, no dual patch norm
  without patch self-attention, the flash path (``scaled_dot_product_attention``), ``qk_norm``, inverted
  cross-attention, a wider latent without latent self-attention over two blocks and one channel;
- ``LOSSES``: ``GaussianDiffusion``'s forward (the training loss) on images in [0, 1]: the defaults
  (``v``, sigmoid, self-conditioning with probability 0.9), no self-conditioning, the ``eps`` and ``x0``
  objectives (self-conditioning always), the linear schedule without min-SNR weighting, ``scale`` below 1
  with the time as a latent token;
- ``SAMPLES``: ``GaussianDiffusion.sample(batch_size=...)`` through ``gt_calls.Method`` with 2 timesteps:
  DDIM and DDPM, each objective, ``scale`` below 1 with a time difference (DDIM with the time as a latent
  token, DDPM with the linear schedule and a batch of 1);
- ``PARTS``: ``Attend`` (plain, a key padding mask, inverted attention, the flash path with and without a
  mask), ``Attention`` (self, cross with a normed context, time-conditioned, ``qk_norm``),
  ``LinearAttention`` (plain, normed, time-conditioned with ``qk_norm``), ``FeedForward`` (plain and
  time-conditioned), ``PEG``, ``LearnedSinusoidalPosEmb``, ``MultiHeadedRMSNorm``, ``LayerNorm`` and
  ``RINBlock`` (default, inverted cross-attention without patch self-attention);
- ``FUNCTIONS``: the linear and sigmoid gamma schedules, ``gamma_to_alpha_sigma``, ``gamma_to_log_snr``,
  ``normalize_img_variance``, ``right_pad_dims_to``, ``safe_div`` and ``log`` through ``gt_calls.Call``.

The cosine schedule (``noise_schedule="cosine"``, ``cosine_schedule``) is left out: it calls ``math.cos``
on the times, which gives a float (or fails for more than one time), and then calls ``.clamp`` on it, an
``AttributeError`` in 0.8.0 even without compiling. The flash path is built without patch
self-attention: ``RIN`` passes its attention keywords to ``LinearAttention`` too, which takes no
``flash`` (a ``TypeError`` at construction otherwise). Each ``RIN`` forward takes seconds to trace, so
the whole models and diffusion steps combine options rather than vary one at a time. Left out:
``Trainer`` and ``Dataset`` (a data loader over image files, Accelerate, EMA and saving: no model code),
CUDA-only choices in ``Attend``, and options that only change a number. Random weights, nothing
downloaded; the library imports torchvision, which the worker makes importable
(``gt_models.allow_torchvision_import``) first. ``names()`` needs no torch; ``build`` runs in a worker
only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, SIZE, PATCH, CHANNELS, BATCH, LATENTS, HEADS, DIM_HEAD, STEPS = 16, 16, 4, 3, 2, 8, 2, 8, 2
BASE: dict[str, Any] = {"dim": DIM, "image_size": SIZE, "patch_size": PATCH, "channels": CHANNELS, "depth": 1,
                        "latent_self_attn_depth": 1, "num_latents": LATENTS, "learned_sinusoidal_dim": 8,
                        "dim_head": DIM_HEAD, "heads": HEADS}
FLASH: dict[str, Any] = {"flash": True, "patches_self_attn": False}

# ``RIN`` name -> (constructor keywords over ``BASE``, what it is given: "plain", "self_cond" (the previous
# prediction and latents, returning latents), "latents" (returning latents)).
RINS: dict[str, tuple[dict[str, Any], str]] = {
    "RIN": ({}, "plain"),
    "RIN.self_cond": ({}, "self_cond"),
    "RIN.latent_token_time_cond.self_cond": ({"latent_token_time_cond": True}, "self_cond"),
    "RIN.no_dual_patchnorm.no_patches_self_attn": ({"dual_patchnorm": False, "patches_self_attn": False}, "plain"),
    "RIN.flash": (FLASH, "self_cond"),
    "RIN.qk_norm": ({"qk_norm": True}, "plain"),
    "RIN.inverted_cross_attn": ({"inverted_cross_attn": True}, "latents"),
    "RIN.dim_latent.no_latent_self_attn.depth2": ({"dim_latent": 24, "latent_self_attn_depth": 0, "depth": 2,
                                                   "channels": 1}, "self_cond"),
}
# ``GaussianDiffusion`` name -> (``RIN`` keywords over ``BASE``, diffusion keywords, batch). Losses run its
# forward; samples its ``sample``.
LOSSES: dict[str, tuple[dict[str, Any], dict[str, Any], int]] = {
    "GaussianDiffusion.loss": ({}, {}, BATCH),
    "GaussianDiffusion.loss.no_self_cond": ({}, {"train_prob_self_cond": 0.0}, BATCH),
    "GaussianDiffusion.loss.eps": ({}, {"objective": "eps", "train_prob_self_cond": 1.0}, BATCH),
    "GaussianDiffusion.loss.x0": ({}, {"objective": "x0", "train_prob_self_cond": 1.0}, BATCH),
    "GaussianDiffusion.loss.linear.no_min_snr": ({}, {"noise_schedule": "linear", "min_snr_loss_weight": False,
                                                      "train_prob_self_cond": 0.0}, BATCH),
    "GaussianDiffusion.loss.scale.latent_token_time_cond": ({"latent_token_time_cond": True},
                                                            {"scale": 0.5, "train_prob_self_cond": 1.0}, BATCH),
}
SAMPLES: dict[str, tuple[dict[str, Any], dict[str, Any], int]] = {
    "GaussianDiffusion.sample.ddim": ({}, {}, BATCH),
    "GaussianDiffusion.sample.ddpm": ({}, {"use_ddim": False}, BATCH),
    "GaussianDiffusion.sample.ddim.eps": ({}, {"objective": "eps"}, BATCH),
    "GaussianDiffusion.sample.ddim.x0": ({}, {"objective": "x0"}, BATCH),
    "GaussianDiffusion.sample.ddpm.eps": ({}, {"use_ddim": False, "objective": "eps"}, BATCH),
    "GaussianDiffusion.sample.ddpm.x0": ({}, {"use_ddim": False, "objective": "x0"}, BATCH),
    "GaussianDiffusion.sample.ddim.scale.time_difference": ({"latent_token_time_cond": True},
                                                            {"scale": 0.5, "time_difference": 0.1}, BATCH),
    "GaussianDiffusion.sample.ddpm.linear.scale.time_difference": ({}, {"use_ddim": False, "noise_schedule": "linear",
                                                                        "scale": 0.5, "time_difference": 0.1}, 1),
}
PARTS = ("Attend", "Attend.mask", "Attend.inverted_attention.mask", "Attend.flash", "Attend.flash.mask",
         "Attention", "Attention.context", "Attention.time_cond.qk_norm", "Attention.flash",
         "LinearAttention", "LinearAttention.norm", "LinearAttention.time_cond.qk_norm",
         "FeedForward", "FeedForward.time_cond", "PEG", "LearnedSinusoidalPosEmb", "MultiHeadedRMSNorm",
         "LayerNorm", "RINBlock", "RINBlock.inverted_cross_attn.no_patches_self_attn")
FUNCTIONS = ("simple_linear_schedule", "sigmoid_schedule", "sigmoid_schedule.kwargs",
             "gamma_to_alpha_sigma", "gamma_to_log_snr", "normalize_img_variance", "right_pad_dims_to",
             "safe_div", "log")


def names() -> list[str]:
    return list(RINS) + list(LOSSES) + list(SAMPLES) + list(PARTS) + list(FUNCTIONS)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _rand(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed))


def _rin(keywords: dict[str, Any]) -> Any:
    from rin_pytorch import RIN

    return RIN(**{**BASE, **keywords})


def _rin_model(name: str) -> Built:
    keywords, kind = RINS[name]
    model = _rin(keywords)
    channels = model.channels
    x, time = _randn(BATCH, channels, SIZE, SIZE), _rand(BATCH, seed=2)
    if kind == "plain":
        return model, (x, time), {}
    if kind == "latents":
        return model, (x, time), {"return_latents": True}
    dim_latent = keywords.get("dim_latent", DIM)
    self_cond = _randn(BATCH, channels, SIZE, SIZE, seed=3).clamp(-1, 1)
    latents = _randn(BATCH, LATENTS, dim_latent, seed=4)
    return model, (x, time, self_cond, latents), {"return_latents": True}


def _diffusion(rin: dict[str, Any], keywords: dict[str, Any]) -> Any:
    from rin_pytorch import GaussianDiffusion

    return GaussianDiffusion(_rin(rin), timesteps=STEPS, **keywords)


def _part(name: str) -> Built:
    from gt_calls import Keywords
    from rin_pytorch import attend
    from rin_pytorch import rin_pytorch as lib

    seq, time_dim = 16, 4 * DIM
    x, time = _randn(BATCH, seq, DIM), _randn(BATCH, time_dim, seed=2)
    if name.startswith("Attend"):
        q, k, v = (_randn(BATCH, HEADS, seq, DIM_HEAD, seed=s) for s in (5, 6, 7))
        module = attend.Attend(flash=".flash" in name, inverted_attention="inverted" in name)
        if name.endswith(".mask"):
            import torch

            mask = torch.ones(BATCH, seq, dtype=torch.bool)
            mask[1, -4:] = False
            return Keywords(module, mask=mask), (q, k, v), {}
        return module, (q, k, v), {}
    if name == "Attention":
        return lib.Attention(DIM, heads=HEADS, dim_head=DIM_HEAD), (x,), {}
    if name == "Attention.context":
        context = _randn(BATCH, LATENTS, 24, seed=3)
        return (lib.Attention(DIM, dim_context=24, heads=HEADS, dim_head=DIM_HEAD, norm=True, norm_context=True),
                (x, context), {})
    if name == "Attention.time_cond.qk_norm":
        module = lib.Attention(DIM, heads=HEADS, dim_head=DIM_HEAD, time_cond_dim=time_dim, qk_norm=True)
        return module, (x,), {"time": time}
    if name == "Attention.flash":
        return lib.Attention(DIM, heads=HEADS, dim_head=DIM_HEAD, flash=True), (x,), {}
    if name == "LinearAttention":
        return lib.LinearAttention(DIM, heads=HEADS, dim_head=DIM_HEAD), (x,), {}
    if name == "LinearAttention.norm":
        return lib.LinearAttention(DIM, heads=HEADS, dim_head=DIM_HEAD, norm=True), (x,), {}
    if name == "LinearAttention.time_cond.qk_norm":
        module = lib.LinearAttention(DIM, heads=HEADS, dim_head=DIM_HEAD, time_cond_dim=time_dim, qk_norm=True)
        return module, (x,), {"time": time}
    if name == "FeedForward":
        return lib.FeedForward(DIM, mult=2), (x,), {}
    if name == "FeedForward.time_cond":
        return lib.FeedForward(DIM, mult=2, time_cond_dim=time_dim), (x,), {"time": time}
    if name == "PEG":
        return lib.PEG(DIM), (x,), {}
    if name == "LearnedSinusoidalPosEmb":
        return lib.LearnedSinusoidalPosEmb(8), (_rand(BATCH, seed=2),), {}
    if name == "MultiHeadedRMSNorm":
        return lib.MultiHeadedRMSNorm(DIM_HEAD, HEADS), (_randn(BATCH, HEADS, seq, DIM_HEAD),), {}
    if name == "LayerNorm":
        return lib.LayerNorm(DIM), (x,), {}
    latents = _randn(BATCH, LATENTS, DIM, seed=4)
    extra = {"inverted_cross_attn": True, "patches_self_attn": False} if "inverted" in name else {}
    block = lib.RINBlock(DIM, latent_self_attn_depth=1, heads=HEADS, dim_head=DIM_HEAD, time_cond_dim=time_dim,
                         **extra)
    return block, (x, latents, time), {}


def _function(name: str) -> Built:
    from gt_calls import Call
    from rin_pytorch import rin_pytorch as lib

    times = _rand(BATCH, seed=2)
    if name == "sigmoid_schedule.kwargs":
        return Call(lib.sigmoid_schedule, start=-2, end=2, tau=0.8), (times,), {}
    if name in ("simple_linear_schedule", "sigmoid_schedule"):
        return Call(getattr(lib, name)), (times,), {}
    gamma = lib.sigmoid_schedule(times).view(BATCH, 1, 1, 1)
    if name == "gamma_to_alpha_sigma":
        return Call(lib.gamma_to_alpha_sigma, scale=0.5), (gamma,), {}
    if name == "gamma_to_log_snr":
        return Call(lib.gamma_to_log_snr, scale=0.5), (gamma,), {}
    img = _randn(BATCH, CHANNELS, SIZE, SIZE)
    if name == "normalize_img_variance":
        return Call(lib.normalize_img_variance), (img,), {}
    if name == "right_pad_dims_to":
        return Call(lib.right_pad_dims_to), (img, times), {}
    if name == "safe_div":
        return Call(lib.safe_div), (img, gamma), {}
    return Call(lib.log), (gamma,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    import gt_models

    warnings.filterwarnings("ignore")
    gt_models.allow_torchvision_import()
    from gt_calls import Method

    torch.manual_seed(0)
    if name in RINS:
        return _rin_model(name)
    if name in LOSSES:
        rin, keywords, batch = LOSSES[name]
        diffusion = _diffusion(rin, keywords)
        return diffusion, (_rand(batch, diffusion.channels, SIZE, SIZE, seed=5),), {}
    if name in SAMPLES:
        rin, keywords, batch = SAMPLES[name]
        return Method(_diffusion(rin, keywords), "sample", batch_size=batch), (), {}
    if name in PARTS:
        return _part(name)
    return _function(name)
