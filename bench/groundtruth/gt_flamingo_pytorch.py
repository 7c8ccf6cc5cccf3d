"""Ground-truth bench, flamingo_pytorch (flamingo-pytorch): Flamingo's perceiver resampler, gated cross-attention
and the Flamingo-conditioned PaLM.

flamingo-pytorch 0.1.2 (lucidrains) exports ``PerceiverResampler`` (learned latents attending to media
embeddings and to themselves, a media position embedding per time step, three- or four-dimensional media),
``GatedCrossAttentionBlock`` (text attending to the resampled media through ``MaskedCrossAttention``, whose
mask lets each token see only the media right before it or all earlier media, with tanh gates on the attention
and the feedforward) and ``FlamingoPaLM``: a PaLM (parallel attention and SwiGLU feedforward, multi-query
attention, rotary embeddings and a causal mask cached in buffers on first use, a layer norm without bias, tied
logits) with gated cross-attention every few layers, a frozen image encoder for images or video frames (a frame
position embedding) and the freezing of everything but the resampler and the cross-attention when media are
given. The tables cover, at width 16, 2 heads of 8, a 32-token vocabulary (media token 3), a batch of 2,
sequences of 10, 4 latents and a tiny convolutional image encoder (8 x 8 images to 4 patch embeddings):

- ``RESAMPLERS``: ``PerceiverResampler`` (three- and four-dimensional media, one or two layers, more media
  times) and ``PerceiverAttention``;
- ``CROSS``: ``GatedCrossAttentionBlock`` and ``MaskedCrossAttention``: no media locations, media locations
  with the immediate-media mask or the all-previous-media mask, text without preceding media;
- ``PALMS``: ``FlamingoPaLM`` forward: text only, images (one or two per sample), videos, the all-previous-media
  mask, cross-attention on every layer or every other, two layers, sequences longer than a cached mask;
- ``PARTS``: ``ParallelTransformerBlock`` (fresh and with its cache filled), ``RotaryEmbedding``, ``LayerNorm``,
  ``SwiGLU``, ``Residual`` and the function ``apply_rotary_pos_emb`` through ``gt_calls.Call``;
- ``SAMPLING``: a greedy and a sampled decoding loop written here (bench code around the model), with images
  and text only;
- ``TRAIN``: train steps (next-token cross-entropy, ``backward()`` under ``enable_grad``): text only, images
  (the language model frozen by the forward), videos, and the resampler with a gated block alone.

``FlamingoPaLM``'s ``embeds`` argument (precomputed media embeddings) is left out: its input assertion refers to
an undefined name and raises before the model runs. Random weights and inputs from fixed generators, nothing
downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TOKENS, DIM, BATCH, SEQ, MEDIA_TOKEN, LATENTS, PATCHES = 32, 16, 2, 10, 3, 4, 4
HEADS: dict[str, Any] = {"dim_head": 8, "heads": 2}
PALM: dict[str, Any] = {"dim": DIM, "num_tokens": TOKENS, "depth": 2, "ff_mult": 2, "media_token_id": MEDIA_TOKEN,
                        "cross_attn_every": 2, "perceiver_num_latents": LATENTS, "perceiver_depth": 1, **HEADS}

# ``PerceiverResampler`` name -> (keywords, media shape: batch, times or None (3-d), patches).
RESAMPLERS: dict[str, tuple[dict[str, Any], tuple[int, int | None, int]]] = {
    "PerceiverResampler": ({}, (BATCH, None, PATCHES)),
    "PerceiverResampler.times": ({}, (BATCH, 2, PATCHES)),
    "PerceiverResampler.depth2.times4": ({"depth": 2, "num_media_embeds": 4}, (BATCH, 4, PATCHES)),
    "PerceiverResampler.batch1": ({"ff_mult": 2}, (1, 3, 6)),
    "PerceiverAttention": ({}, (BATCH, 2, PATCHES)),
}
# Cross-attention name -> (class: "block" or "attention", only_attend_immediate_media, media locations:
# None, "media" (media tokens in every row) or "late" (a row whose first tokens come before any media)).
CROSS: dict[str, tuple[str, bool, str | None]] = {
    "GatedCrossAttentionBlock": ("block", True, None),
    "GatedCrossAttentionBlock.media_locations": ("block", True, "media"),
    "GatedCrossAttentionBlock.media_locations.late": ("block", True, "late"),
    "GatedCrossAttentionBlock.all_previous": ("block", False, "media"),
    "GatedCrossAttentionBlock.all_previous.late": ("block", False, "late"),
    "MaskedCrossAttention": ("attention", True, None),
    "MaskedCrossAttention.media_locations": ("attention", True, "late"),
    "MaskedCrossAttention.all_previous": ("attention", False, "late"),
}
# ``FlamingoPaLM`` name -> (keywords over ``PALM``, media: None, "images" (times per sample) or "videos", times).
PALMS: dict[str, tuple[dict[str, Any], str | None, int]] = {
    "FlamingoPaLM.text": ({}, None, 0),
    "FlamingoPaLM.images": ({}, "images", 1),
    "FlamingoPaLM.images2": ({}, "images", 2),
    "FlamingoPaLM.images2.all_previous": ({"only_attend_immediate_media": False}, "images", 2),
    "FlamingoPaLM.images.cross_every1": ({"cross_attn_every": 1}, "images", 1),
    "FlamingoPaLM.images.depth1.perceiver2": ({"depth": 1, "perceiver_depth": 2}, "images", 2),
    "FlamingoPaLM.videos": ({"max_video_frames": 3}, "videos", 2),
    "FlamingoPaLM.videos.all_previous": ({"max_video_frames": 3, "only_attend_immediate_media": False}, "videos", 2),
    "FlamingoPaLM.text.depth3": ({"depth": 3}, None, 0),
}
PARTS = ("ParallelTransformerBlock", "ParallelTransformerBlock.cached", "ParallelTransformerBlock.longer",
         "RotaryEmbedding", "LayerNorm", "SwiGLU", "Residual", "apply_rotary_pos_emb")
SAMPLING = ("sample.greedy.images", "sample.gumbel.images", "sample.greedy.text")
TRAIN = ("train.FlamingoPaLM.text", "train.FlamingoPaLM.images", "train.FlamingoPaLM.videos",
         "train.resampler_cross_attention")


def names() -> list[str]:
    return [*RESAMPLERS, *CROSS, *PALMS, *PARTS, *SAMPLING, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _text(length: int = SEQ, late: bool = False, seed: int = 1) -> Any:
    """Token ids (batch x ``length``) without media tokens but at positions 0 and 5 (position 3 and 6 of a
    ``late`` second row, whose first tokens then precede any media)."""
    import torch

    ids = torch.randint(4, TOKENS, (BATCH, length), generator=torch.Generator().manual_seed(seed))
    ids[:, 0] = MEDIA_TOKEN
    ids[:, min(5, length - 1)] = MEDIA_TOKEN
    if late:
        ids[1, 0] = 5
        ids[1, 3] = MEDIA_TOKEN
    return ids


def _encoder() -> Any:
    """A tiny image encoder: a 4 x 4 patch convolution from 3 x 8 x 8 images to 4 embeddings of width ``DIM``."""
    from torch import nn

    class PatchEncoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, DIM, 4, stride=4)

        def forward(self, images: Any) -> Any:
            return self.conv(images).flatten(2).transpose(1, 2)

    return PatchEncoder()


def _resampler(name: str) -> Built:
    from flamingo_pytorch import PerceiverResampler
    from flamingo_pytorch.flamingo_pytorch import PerceiverAttention

    keywords, (batch, times, patches) = RESAMPLERS[name]
    if name == "PerceiverAttention":
        attention = PerceiverAttention(dim=DIM, **HEADS)
        media = _randn(batch, times or 1, patches, DIM)
        return attention, (media, _randn(batch, times or 1, LATENTS, DIM, seed=2)), {}
    resampler = PerceiverResampler(**{"dim": DIM, "depth": 1, "num_latents": LATENTS, **HEADS, **keywords})
    shape = (batch, patches, DIM) if times is None else (batch, times, patches, DIM)
    return resampler, (_randn(*shape),), {}


def _cross(name: str) -> Built:
    from flamingo_pytorch import GatedCrossAttentionBlock
    from flamingo_pytorch.flamingo_pytorch import MaskedCrossAttention

    kind, immediate, locations = CROSS[name]
    klass = GatedCrossAttentionBlock if kind == "block" else MaskedCrossAttention
    module = klass(dim=DIM, only_attend_immediate_media=immediate, **HEADS)
    if kind == "block":
        with __import__("torch").no_grad():
            module.attn_gate.fill_(0.5)
            module.ff_gate.fill_(0.5)
    x = _randn(BATCH, SEQ, DIM)
    media = _randn(BATCH, 2, LATENTS, DIM, seed=2)
    if locations is None:
        return module, (x, media), {}
    return module, (x, media, _text(late=locations == "late") == MEDIA_TOKEN), {}


def _palm(keywords: dict[str, Any]) -> Any:
    from flamingo_pytorch import FlamingoPaLM

    return FlamingoPaLM(**{**PALM, "img_encoder": _encoder(), **keywords})


def _media(kind: str | None, times: int) -> dict[str, Any]:
    if kind == "images":
        return {"images": _randn(BATCH, times, 3, 8, 8, seed=3)}
    if kind == "videos":
        return {"videos": _randn(BATCH, 1, times, 3, 8, 8, seed=3)}
    return {}


def _flamingo(name: str) -> Built:
    keywords, kind, times = PALMS[name]
    model = _palm(keywords)
    text = _text(late=kind == "images" and times == 2)
    return model, (text,), _media(kind, times)


def _part(name: str) -> Built:
    import torch

    from gt_calls import Call, Keywords
    from flamingo_pytorch import flamingo_palm as fp

    x = _randn(BATCH, SEQ, DIM)
    if name.startswith("ParallelTransformerBlock"):
        block = fp.ParallelTransformerBlock(dim=DIM, ff_mult=2, **HEADS)
        if name.endswith("cached"):
            with torch.no_grad():
                block(x)
        elif name.endswith("longer"):
            with torch.no_grad():
                block(x[:, :4])
        return block, (x,), {}
    if name == "RotaryEmbedding":
        return Keywords(fp.RotaryEmbedding(8), device=torch.device("cpu")), (SEQ,), {}
    if name == "LayerNorm":
        return fp.LayerNorm(DIM), (x,), {}
    if name == "SwiGLU":
        return fp.SwiGLU(), (x,), {}
    if name == "Residual":
        return fp.Residual(fp.ParallelTransformerBlock(dim=DIM, ff_mult=2, **HEADS)), (x,), {}
    if name == "apply_rotary_pos_emb":
        positions = fp.RotaryEmbedding(8)(SEQ, device=torch.device("cpu"))
        return Call(fp.apply_rotary_pos_emb), (positions, _randn(BATCH, 2, SEQ, 8)), {}
    raise KeyError(name)


def _sample(name: str) -> Built:
    import torch

    from gt_calls import Run
    from flamingo_pytorch import FlamingoPaLM

    greedy = ".greedy." in name
    images = name.endswith("images")
    model = _palm({})

    def decode(net: Any, prompt: torch.Tensor, *media: torch.Tensor) -> torch.Tensor:
        out = prompt
        for _ in range(3):
            logits = net(out, images=media[0]) if media else net(out)
            last = logits[:, -1]
            if greedy:
                token = last.argmax(dim=-1, keepdim=True)
            else:
                noise = -torch.log(-torch.log(torch.rand_like(last).clamp(1e-20, 1.0)).clamp(min=1e-20))
                token = (last / 0.8 + noise).argmax(dim=-1, keepdim=True)
            out = torch.cat((out, token), dim=-1)
        return out[:, prompt.shape[-1]:]

    inputs = (_text(6), _randn(BATCH, 2, 3, 8, 8, seed=3)) if images else (_text(6),)
    return Run(model, decode, [FlamingoPaLM]), inputs, {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from flamingo_pytorch import FlamingoPaLM, GatedCrossAttentionBlock, PerceiverResampler

    if name == "train.resampler_cross_attention":
        parts = torch.nn.ModuleList([PerceiverResampler(dim=DIM, depth=1, num_latents=LATENTS, **HEADS),
                                     GatedCrossAttentionBlock(dim=DIM, ff_mult=2, **HEADS)])

        def cross_step(net: Any, x: torch.Tensor, embeds: torch.Tensor, locations: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                out = net[1](x, net[0](embeds), media_locations=locations)
                loss = out.pow(2).mean()
                loss.backward()
            return loss.detach()

        inputs = (_randn(BATCH, SEQ, DIM), _randn(BATCH, 2, PATCHES, DIM, seed=2), _text(late=True) == MEDIA_TOKEN)
        return Run(parts, cross_step, [PerceiverResampler, GatedCrossAttentionBlock]), inputs, {}

    kind = name.rsplit(".", 1)[-1]
    model = _palm({"max_video_frames": 3} if kind == "videos" else {})
    media_key = None if kind == "text" else kind

    def step(net: Any, text: torch.Tensor, *media: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            kwargs = {media_key: media[0]} if media else {}
            logits = net(text[:, :-1], **kwargs)
            loss = F.cross_entropy(logits.transpose(1, 2), text[:, 1:])
            loss.backward()
        return loss.detach()

    media = tuple(_media(media_key, 2).values())
    return Run(model, step, [FlamingoPaLM]), (_text(), *media), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in RESAMPLERS:
        return _resampler(name)
    if name in CROSS:
        return _cross(name)
    if name in PALMS:
        return _flamingo(name)
    if name in PARTS:
        return _part(name)
    if name in SAMPLING:
        return _sample(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
