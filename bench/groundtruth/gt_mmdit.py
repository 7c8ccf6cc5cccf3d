"""Ground-truth bench, mmdit: the multimodal diffusion transformer (MMDiT, Stable Diffusion 3) and its parts.

mmdit 0.3.0 (lucidrains) implements the MMDiT block: each modality keeps its own projections, layer norms and
feedforwards, and all modalities meet in one joint attention (``JointAttention``: queries, keys and values
packed across modalities, a per-modality mask, optional multi-head RMS norm of queries and keys, logit
softclamping, x-transformers' ``Attend``, flash or not). ``mmdit_pytorch`` has the two-modality (text and
image) ``MMDiTBlock`` with adaptive layer norms from a time condition (gammas and betas), the text feedforward
skipped on the last block, hyper-connection residual streams, and ``MMDiT`` (register tokens, a final RMS norm);
``mmdit_generalized_pytorch`` has the same for any number of modalities, with ``AdaptiveLayerNorm`` and
manifold-constrained hyper-connections; ``adaptive_attention`` has ``AdaptiveAttention`` (several weight sets
gated per token). The tables cover, at widths 16 and 8, 2 heads of 8, a batch of 2, 6 text and 8 image tokens:

- ``ATTENTION``: ``JointAttention``: two or three inputs, masks (one of them or none), qk RMS norm, flash,
  softclamp, attention dropout through ``attend_kwargs``;
- ``BLOCKS``: the two-modality ``MMDiTBlock``: plain, time-conditioned, a text mask, the text feedforward run,
  four residual streams, a GLU feedforward;
- ``MMDITS``: the two-modality ``MMDiT``: four residual streams (the default) or one, register tokens, a time
  condition, a text mask, the last feedforward kept, no final norm, two layers;
- ``GENERAL``: the generalized ``MMDiTBlock`` and ``MMDiT`` over two or three modalities: masks, a time
  condition, softclamp, flash, hyper-connection streams, and ``AdaptiveLayerNorm`` alone (with and without a
  condition);
- ``ADAPTIVE``: ``AdaptiveAttention``: one weight set (plain attention) or four gated ones, a mask, softclamp;
- ``DENOISERS``: bench code around the model as users run it: a sinusoidal time embedding and an MLP give the
  condition, patchified image latents and text embeddings go through ``MMDiT``, the image tokens are read out;
- ``TRAIN``: train steps (a flow-matching loss on the predicted velocity, ``backward()`` under ``enable_grad``)
  through the two-modality and the generalized ``MMDiT``.

Random weights and inputs from fixed generators, nothing downloaded. ``names()`` needs no torch; ``build`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, TEXT, IMAGE, AUDIO = 2, 6, 8, 5
DIM_TEXT, DIM_IMAGE, DIM_AUDIO, DIM_COND = 8, 16, 12, 8
HEADS: dict[str, Any] = {"dim_head": 8, "heads": 2}
FF: dict[str, Any] = {"ff_kwargs": {"mult": 2}}

# ``JointAttention`` name -> (keywords, number of inputs, masks: which inputs have one).
ATTENTION: dict[str, tuple[dict[str, Any], int, tuple[int, ...]]] = {
    "JointAttention": ({}, 2, ()),
    "JointAttention.mask": ({}, 2, (0,)),
    "JointAttention.masks.all": ({}, 2, (0, 1)),
    "JointAttention.three": ({}, 3, ()),
    "JointAttention.three.mask": ({}, 3, (0, 2)),
    "JointAttention.qk_rmsnorm": ({"qk_rmsnorm": True}, 2, (0,)),
    "JointAttention.flash": ({"flash": True}, 2, ()),
    "JointAttention.flash.mask": ({"flash": True}, 2, (0,)),
    "JointAttention.softclamp": ({"softclamp": True, "softclamp_value": 10.0}, 2, (0,)),
    "JointAttention.dropout": ({"attend_kwargs": {"dropout": 0.1}}, 2, ()),
}
# Two-modality ``MMDiTBlock`` name -> (keywords, forward: "cond", "mask", "text_ff" resolved to inputs).
BLOCKS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "MMDiTBlock": ({}, ()),
    "MMDiTBlock.cond": ({"dim_cond": DIM_COND}, ("cond",)),
    "MMDiTBlock.mask": ({}, ("mask",)),
    "MMDiTBlock.text_ff": ({}, ("text_ff",)),
    "MMDiTBlock.cond.mask.text_ff": ({"dim_cond": DIM_COND}, ("cond", "mask", "text_ff")),
    "MMDiTBlock.flash.mask": ({"flash_attn": True}, ("mask",)),
    "MMDiTBlock.streams4": ({"num_residual_streams": 4}, ()),
    "MMDiTBlock.streams4.cond.text_ff": ({"num_residual_streams": 4, "dim_cond": DIM_COND}, ("cond", "text_ff")),
    "MMDiTBlock.glu": ({"ff_kwargs": {"mult": 2, "glu": True}}, ("text_ff",)),
}
# Two-modality ``MMDiT`` name -> (keywords, forward inputs as for ``BLOCKS``, "keep_last" for the last feedforward).
MMDITS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "MMDiT": ({}, ()),
    "MMDiT.streams1": ({"num_residual_streams": 1}, ()),
    "MMDiT.registers": ({"num_register_tokens": 2}, ()),
    "MMDiT.cond": ({"dim_cond": DIM_COND}, ("cond",)),
    "MMDiT.mask": ({}, ("mask",)),
    "MMDiT.keep_last_feedforward": ({}, ("keep_last",)),
    "MMDiT.no_final_norm.streams1": ({"final_norm": False, "num_residual_streams": 1}, ("mask",)),
    "MMDiT.depth2.cond.mask.registers": ({"depth": 2, "dim_cond": DIM_COND, "num_register_tokens": 2},
                                         ("cond", "mask")),
    "MMDiT.depth2.streams1.keep_last.flash": ({"depth": 2, "num_residual_streams": 1, "flash_attn": True},
                                              ("keep_last", "mask")),
}
# Generalized name -> (class: "block", "mmdit" or "layernorm", keywords, modalities (2 or 3), masks, conditioned).
GENERAL: dict[str, tuple[str, dict[str, Any], int, tuple[int, ...], bool]] = {
    "general.MMDiTBlock": ("block", {}, 2, (), False),
    "general.MMDiTBlock.three": ("block", {}, 3, (), False),
    "general.MMDiTBlock.three.masks": ("block", {}, 3, (0, 2), False),
    "general.MMDiTBlock.cond": ("block", {"dim_cond": DIM_COND}, 2, (0,), True),
    "general.MMDiTBlock.softclamp": ("block", {"softclamp": True}, 2, (), False),
    "general.MMDiTBlock.flash": ("block", {"flash_attn": True}, 2, (0,), False),
    "general.MMDiTBlock.streams2": ("block", {"num_residual_streams": 2}, 2, (), False),
    "general.MMDiT": ("mmdit", {}, 2, (), False),
    "general.MMDiT.streams1": ("mmdit", {"num_residual_streams": 1}, 2, (), False),
    "general.MMDiT.three.cond.masks": ("mmdit", {"dim_cond": DIM_COND}, 3, (0, 1), True),
    "general.MMDiT.streams1.cond": ("mmdit", {"num_residual_streams": 1, "dim_cond": DIM_COND}, 2, (0,), True),
    "general.MMDiT.depth2.softclamp.streams2": ("mmdit", {"depth": 2, "softclamp": True, "num_residual_streams": 2},
                                                2, (0,), False),
    "general.AdaptiveLayerNorm": ("layernorm", {}, 1, (), False),
    "general.AdaptiveLayerNorm.cond": ("layernorm", {"dim_cond": DIM_COND}, 1, (), True),
}
# ``AdaptiveAttention`` name -> (keywords, masked).
ADAPTIVE: dict[str, tuple[dict[str, Any], bool]] = {
    "AdaptiveAttention": ({}, False),
    "AdaptiveAttention.mask": ({}, True),
    "AdaptiveAttention.gated": ({"num_adaptive_weights": 4}, False),
    "AdaptiveAttention.gated.mask.softclamp": ({"num_adaptive_weights": 4, "softclamp": True}, True),
    "AdaptiveAttention.softclamp": ({"softclamp": True, "softclamp_value": 10.0}, False),
}
DENOISERS = ("denoiser.MMDiT", "denoiser.MMDiT.mask.registers", "denoiser.general.three")
TRAIN = ("train.MMDiT", "train.MMDiT.streams1.mask", "train.general.MMDiT", "train.JointAttention")


def names() -> list[str]:
    return [*ATTENTION, *BLOCKS, *MMDITS, *GENERAL, *ADAPTIVE, *DENOISERS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(length: int, seed: int = 4) -> Any:
    """A padding mask (batch x ``length``): the second row ends with two padded positions."""
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, -2:] = False
    return mask


def _two(inputs: tuple[str, ...], batch: int = BATCH) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"text_tokens": _randn(batch, TEXT, DIM_TEXT), "image_tokens": _randn(batch, IMAGE,
                                                                                                    DIM_IMAGE, seed=2)}
    if "cond" in inputs:
        kwargs["time_cond"] = _randn(BATCH, DIM_COND, seed=3)
    if "mask" in inputs:
        mask = _mask(TEXT)
        kwargs["text_mask"] = mask.repeat(batch // BATCH, 1)
    return kwargs


def _attention(name: str) -> Built:
    from gt_calls import Keywords
    from mmdit import JointAttention

    keywords, count, masked = ATTENTION[name]
    dims = (DIM_TEXT, DIM_IMAGE, DIM_AUDIO)[:count]
    lengths = (TEXT, IMAGE, AUDIO)[:count]
    attention = JointAttention(dim_inputs=dims, **HEADS, **keywords)
    inputs = tuple(_randn(BATCH, n, d, seed=i + 1) for i, (n, d) in enumerate(zip(lengths, dims)))
    if not masked:
        return Keywords(attention, inputs=inputs), (), {}
    masks = tuple(_mask(n) if i in masked else None for i, n in enumerate(lengths))
    return Keywords(attention, inputs=inputs, masks=masks), (), {}


def _block(name: str) -> Built:
    from mmdit import MMDiTBlock

    keywords, inputs = BLOCKS[name]
    block = MMDiTBlock(dim_text=DIM_TEXT, dim_image=DIM_IMAGE, **HEADS, **{**FF, **keywords})
    kwargs = _two(inputs, BATCH * keywords.get("num_residual_streams", 1))
    if "text_ff" in inputs:
        kwargs["skip_feedforward_text_tokens"] = False
    return block, (), kwargs


def _mmdit(name: str) -> Built:
    from mmdit import MMDiT

    keywords, inputs = MMDITS[name]
    model = MMDiT(**{"depth": 1, "dim_text": DIM_TEXT, "dim_image": DIM_IMAGE, **HEADS, **FF, **keywords})
    kwargs = _two(inputs)
    if "keep_last" in inputs:
        kwargs["should_skip_last_feedforward"] = False
    return model, (), kwargs


def _general(name: str) -> Built:
    from gt_calls import Keywords
    from mmdit.mmdit_generalized_pytorch import MMDiT, AdaptiveLayerNorm, MMDiTBlock

    kind, keywords, count, masked, conditioned = GENERAL[name]
    cond = _randn(BATCH, DIM_COND, seed=3) if conditioned else None
    if kind == "layernorm":
        norm = AdaptiveLayerNorm(DIM_IMAGE, **keywords)
        x = _randn(BATCH, IMAGE, DIM_IMAGE)
        return (Keywords(norm, cond=cond), (x,), {}) if conditioned else (norm, (x,), {})
    dims = (DIM_TEXT, DIM_IMAGE, DIM_AUDIO)[:count]
    lengths = (TEXT, IMAGE, AUDIO)[:count]
    # A block alone takes the streams its model would have expanded: (batch, tokens, streams, width).
    streams = keywords.get("num_residual_streams", 1) if kind == "block" else 1
    shapes = [(BATCH, n, streams, d) if streams > 1 else (BATCH, n, d) for n, d in zip(lengths, dims)]
    tokens = tuple(_randn(*shape, seed=i + 1) for i, shape in enumerate(shapes))
    kwargs: dict[str, Any] = {"modality_tokens": tokens}
    if masked:
        kwargs["modality_masks"] = tuple(_mask(n) if i in masked else None for i, n in enumerate(lengths))
    if conditioned:
        kwargs["time_cond"] = cond
    if kind == "block":
        return MMDiTBlock(dim_modalities=dims, **HEADS, **{**FF, **keywords}), (), kwargs
    return MMDiT(**{"depth": 1, "dim_modalities": dims, **HEADS, **FF, **keywords}), (), kwargs


def _adaptive(name: str) -> Built:
    from mmdit.adaptive_attention import AdaptiveAttention

    keywords, masked = ADAPTIVE[name]
    attention = AdaptiveAttention(dim=DIM_IMAGE, **HEADS, **keywords)
    x = _randn(BATCH, IMAGE, DIM_IMAGE)
    return attention, ((x, _mask(IMAGE)) if masked else (x,)), {}


def _denoiser(name: str, general: bool = False) -> Any:
    """A latent denoiser around the library model: patchify 1 x 8 x 8 latents into 2 x 2 patches (16 tokens),
    embed the time, run the MMDiT with text embeddings, unpatchify the image tokens."""
    import math

    import torch
    from torch import nn

    from mmdit import MMDiT
    from mmdit.mmdit_generalized_pytorch import MMDiT as GeneralMMDiT

    three = name.endswith("three")
    masked = ".mask" in name

    class Denoiser(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.to_patches = nn.Linear(4, DIM_IMAGE)
            self.from_patches = nn.Linear(DIM_IMAGE, 4)
            self.time_mlp = nn.Sequential(nn.Linear(DIM_COND, DIM_COND), nn.SiLU(), nn.Linear(DIM_COND, DIM_COND))
            if general or three:
                dims = (DIM_TEXT, DIM_IMAGE, DIM_AUDIO) if three else (DIM_TEXT, DIM_IMAGE)
                self.model: nn.Module = GeneralMMDiT(depth=1, dim_modalities=dims, dim_cond=DIM_COND, **HEADS, **FF)
                self.general = True
            else:
                self.model = MMDiT(depth=1, dim_text=DIM_TEXT, dim_image=DIM_IMAGE, dim_cond=DIM_COND,
                                   num_register_tokens=2 if "registers" in name else 0, **HEADS, **FF)
                self.general = False

        def time_embedding(self, times: torch.Tensor) -> torch.Tensor:
            half = DIM_COND // 2
            freqs = torch.exp(torch.arange(half, device=times.device) * -(math.log(10000.0) / (half - 1)))
            angles = times[:, None] * 1000.0 * freqs[None]
            return self.time_mlp(torch.cat((angles.sin(), angles.cos()), dim=-1))

        def forward(self, latents: torch.Tensor, times: torch.Tensor, text: torch.Tensor, *extra: torch.Tensor
                    ) -> torch.Tensor:
            b, c, h, w = latents.shape
            patches = latents.reshape(b, c, h // 2, 2, w // 2, 2).permute(0, 2, 4, 1, 3, 5).reshape(b, -1, 4 * c)
            image = self.to_patches(patches)
            cond = self.time_embedding(times)
            if self.general:
                tokens = (text, image, *extra)
                _, image, *_ = self.model(modality_tokens=tokens, time_cond=cond)
            else:
                mask = extra[0] if extra else None
                _, image = self.model(text_tokens=text, image_tokens=image, text_mask=mask, time_cond=cond)
            out = self.from_patches(image).reshape(b, h // 2, w // 2, c, 2, 2)
            return out.permute(0, 3, 1, 4, 2, 5).reshape(b, c, h, w)

        def entry_points(self) -> list[Any]:
            return [type(self.model)]

    latents = _randn(BATCH, 1, 8, 8)
    times = torch.rand(BATCH, generator=torch.Generator().manual_seed(5))
    text = _randn(BATCH, TEXT, DIM_TEXT, seed=6)
    extra: tuple[Any, ...] = ()
    if three:
        extra = (_randn(BATCH, AUDIO, DIM_AUDIO, seed=7),)
    elif masked:
        extra = (_mask(TEXT),)
    return Denoiser(), (latents, times, text, *extra)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from mmdit import JointAttention

    if name == "train.JointAttention":
        attention = JointAttention(dim_inputs=(DIM_TEXT, DIM_IMAGE), qk_rmsnorm=True, **HEADS)

        def attention_step(net: Any, text: torch.Tensor, image: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                out_text, out_image = net(inputs=(text, image), masks=(mask, None))
                loss = out_text.pow(2).mean() + out_image.pow(2).mean()
                loss.backward()
            return loss.detach()

        inputs = (_randn(BATCH, TEXT, DIM_TEXT), _randn(BATCH, IMAGE, DIM_IMAGE, seed=2), _mask(TEXT))
        return Run(attention, attention_step, [JointAttention]), inputs, {}

    variant = "denoiser.MMDiT.mask" if "mask" in name else "denoiser.MMDiT"
    denoiser, (latents, times, text, *extra) = _denoiser(variant, general="general" in name)
    if "streams1" in name:
        from mmdit import MMDiT

        denoiser.model = MMDiT(depth=1, dim_text=DIM_TEXT, dim_image=DIM_IMAGE, dim_cond=DIM_COND,
                               num_residual_streams=1, **HEADS, **FF)

    def step(net: Any, data: torch.Tensor, times: torch.Tensor, text: torch.Tensor, *extra: torch.Tensor
             ) -> torch.Tensor:
        with torch.enable_grad():
            noise = torch.randn_like(data)
            t = times[:, None, None, None]
            noised = t * data + (1.0 - t) * noise
            loss = F.mse_loss(net(noised, times, text, *extra), data - noise)
            loss.backward()
        return loss.detach()

    return Run(denoiser, step, denoiser.entry_points()), (latents, times, text, *extra), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in ATTENTION:
        return _attention(name)
    if name in BLOCKS:
        return _block(name)
    if name in MMDITS:
        return _mmdit(name)
    if name in GENERAL:
        return _general(name)
    if name in ADAPTIVE:
        return _adaptive(name)
    if name in DENOISERS:
        denoiser, inputs = _denoiser(name)
        return denoiser, inputs, {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
