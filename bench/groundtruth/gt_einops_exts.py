"""Ground-truth bench, einops_exts: small einops helpers used across lucidrains' video and diffusion models.

einops-exts 0.0.4 adds to einops: ``check_shape(t, pattern, **sizes)`` (an identity ``rearrange`` that asserts the
sizes), ``rearrange_many`` / ``repeat_many`` / ``reduce_many`` (the same operation over an iterable of tensors,
returned as a generator users unpack), ``rearrange_with_anon_dims`` / ``repeat_with_anon_dims`` /
``reduce_with_anon_dims`` (patterns with ``...name`` groups, expanded with a regular expression into numbered axes
whose sizes come from a list keyword), and, in ``einops_exts.torch``, ``EinopsToAndFrom(from, to, fn)``, a module
that rearranges its input, applies ``fn`` (with keyword arguments) and rearranges back, reading the axis sizes from
the input's shape (patterns with or without ``...``). The tables cover, at a batch of 2, small images and videos:

- ``CALLS``: the functions in a forward the way imagen / make-a-video / flamingo attention blocks call them:
  ``check_shape`` with and without sizes, ``rearrange_many`` over q, k, v (split heads, merge heads, lists and
  tuples, three and two tensors), ``repeat_many``, ``reduce_many`` (mean, max, sum), the anonymous-dims versions
  with one and two groups;
- ``TOANDFROM``: ``EinopsToAndFrom`` around spatial attention, temporal attention (with a mask keyword passed
  through), a feed-forward, a layer norm, a 1-d convolution and an identity, with ``...`` patterns;
- ``TRAIN``: training steps (backward, an Adam step) of an attention block written with ``rearrange_many`` and a
  factorised space-time block of ``EinopsToAndFrom`` modules.

Nothing was left out: every public function and class is driven. Random weights and inputs from fixed generators,
nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM, HEADS = 2, 6, 8, 2
FRAMES, HW, CH = 3, 4, 8

CALLS: tuple[str, ...] = (
    "check_shape",
    "check_shape.sizes",
    "check_shape.video",
    "rearrange_many.split_heads",
    "rearrange_many.split_heads.list",
    "rearrange_many.merge_heads.two",
    "rearrange_many.ellipsis",
    "repeat_many",
    "repeat_many.batch",
    "reduce_many.mean",
    "reduce_many.max",
    "reduce_many.sum.list_out",
    "rearrange_with_anon_dims",
    "rearrange_with_anon_dims.two_groups",
    "repeat_with_anon_dims",
    "reduce_with_anon_dims",
    "attention.rearrange_many",
)

# EinopsToAndFrom model name -> (from pattern, to pattern, inner fn kind, input kind).
TOANDFROM: dict[str, tuple[str, str, str, str]] = {
    "EinopsToAndFrom.spatial_attention": ("b c f h w", "b f (h w) c", "attention", "video"),
    "EinopsToAndFrom.temporal_attention": ("b c f h w", "(b h w) f c", "attention", "video"),
    "EinopsToAndFrom.temporal_attention.mask": ("b c f h w", "(b h w) f c", "attention_mask", "video"),
    "EinopsToAndFrom.image_attention": ("b c h w", "b (h w) c", "attention", "image"),
    "EinopsToAndFrom.feedforward": ("b c h w", "b h w c", "ff", "image"),
    "EinopsToAndFrom.layernorm": ("b c f h w", "b f h w c", "norm", "video"),
    "EinopsToAndFrom.conv1d_time": ("b c f h w", "(b h w) c f", "conv", "video"),
    "EinopsToAndFrom.ellipsis": ("b c ... h w", "b ... h w c", "norm", "video"),
    "EinopsToAndFrom.ellipsis.channels_last": ("b c ...", "b ... c", "ff", "video"),
    "EinopsToAndFrom.identity": ("b n d", "b d n", "identity", "seq"),
}

TRAIN: tuple[str, ...] = ("train.attention", "train.space_time_block")


def names() -> list[str]:
    return [*CALLS, *TOANDFROM, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def _attention_cls() -> Any:
    import torch
    from torch import nn

    class Attention(nn.Module):
        """An imagen-style attention block, heads split and merged with einops_exts."""

        def __init__(self, dim: int = CH, heads: int = HEADS) -> None:
            super().__init__()
            self.heads = heads
            self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
            self.to_out = nn.Linear(dim, dim)

        def forward(self, x: Any, mask: Any = None) -> Any:
            from einops import rearrange
            from einops_exts import rearrange_many

            q, k, v = self.to_qkv(x).chunk(3, dim=-1)
            q, k, v = rearrange_many((q, k, v), "... n (h d) -> ... h n d", h=self.heads)
            sim = torch.einsum("... h i d, ... h j d -> ... h i j", q, k) * q.shape[-1] ** -0.5
            if mask is not None:
                sim = sim.masked_fill(~mask[..., None, None, :], -torch.finfo(sim.dtype).max)
            attn = sim.softmax(dim=-1)
            out = torch.einsum("... h i j, ... h j d -> ... h i d", attn, v)
            return self.to_out(rearrange(out, "... h n d -> ... n (h d)"))

    return Attention


def _call(name: str) -> Built:
    import torch
    from torch import nn

    class CallModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.to_qkv = nn.Linear(DIM, DIM * 3, bias=False)
            self.attn = _attention_cls()(DIM)

        def forward(self, x: Any, video: Any) -> Any:
            from einops_exts import (
                check_shape,
                rearrange_many,
                rearrange_with_anon_dims,
                reduce_many,
                reduce_with_anon_dims,
                repeat_many,
                repeat_with_anon_dims,
            )

            q, k, v = self.to_qkv(x).chunk(3, dim=-1)
            if name == "check_shape":
                return check_shape(x, "b n d") * 2
            if name == "check_shape.sizes":
                return check_shape(x, "b n d", b=BATCH, d=DIM) + 1
            if name == "check_shape.video":
                return check_shape(video, "b c f h w", c=CH, f=FRAMES).sum()
            if name == "rearrange_many.split_heads":
                q, k, v = rearrange_many((q, k, v), "b n (h d) -> b h n d", h=HEADS)
                return (q @ k.transpose(-1, -2)).softmax(-1) @ v
            if name == "rearrange_many.split_heads.list":
                outs = list(rearrange_many([q, k, v], "b n (h d) -> (b h) n d", h=HEADS))
                return torch.stack(outs).sum(0)
            if name == "rearrange_many.merge_heads.two":
                q2, k2 = rearrange_many((q.view(BATCH, SEQ, HEADS, -1), k.view(BATCH, SEQ, HEADS, -1)),
                                        "b n h d -> b n (h d)")
                return q2 - k2
            if name == "rearrange_many.ellipsis":
                a, b = rearrange_many((video, video * 2), "b c ... -> b ... c")
                return a + b
            if name == "repeat_many":
                a, b = repeat_many((q.mean(1), k.mean(1)), "b d -> b n d", n=SEQ)
                return a * b + v
            if name == "repeat_many.batch":
                mem_k, mem_v = repeat_many((q[0], v[0]), "n d -> b n d", b=BATCH)
                return torch.cat((k, mem_k), dim=1) + torch.cat((v, mem_v), dim=1)
            if name == "reduce_many.mean":
                a, b, c = reduce_many((q, k, v), "b n d -> b d", reduction="mean")
                return a + b + c
            if name == "reduce_many.max":
                a, b = reduce_many((q, k), "b n d -> b n", reduction="max")
                return a - b
            if name == "reduce_many.sum.list_out":
                outs = [*reduce_many([q, k, v], "b n d -> b", reduction="sum")]
                return torch.stack(outs, dim=-1)
            if name == "rearrange_with_anon_dims":
                flat = rearrange_with_anon_dims(video, "b c ...dims -> b c (...dims)", dims=(FRAMES, HW, HW))
                return rearrange_with_anon_dims(flat, "b c (...dims) -> b c ...dims", dims=(FRAMES, HW, HW))
            if name == "rearrange_with_anon_dims.two_groups":
                t = video.reshape(BATCH, CH, FRAMES, HW * HW)
                return rearrange_with_anon_dims(t, "b (...c) f (...s) -> b ...c f ...s", c=(2, CH // 2),
                                                s=(HW, HW))
            if name == "repeat_with_anon_dims":
                return repeat_with_anon_dims(x.mean(1), "b d -> b ...s d", s=(2, 3))
            if name == "reduce_with_anon_dims":
                t = video.reshape(BATCH, CH, FRAMES * HW * HW)
                return reduce_with_anon_dims(t, "b c (...s) -> b c", reduction="mean", s=(FRAMES, HW, HW))
            if name == "attention.rearrange_many":
                return self.attn(x)
            raise KeyError(name)

    torch.manual_seed(0)
    return CallModel(), (_randn(BATCH, SEQ, DIM), _randn(BATCH, CH, FRAMES, HW, HW, seed=2)), {}


def _inner(kind: str) -> Any:
    from torch import nn

    if kind in ("attention", "attention_mask"):
        return _attention_cls()(CH)
    if kind == "ff":
        return nn.Sequential(nn.Linear(CH, CH * 2), nn.GELU(), nn.Linear(CH * 2, CH))
    if kind == "norm":
        return nn.LayerNorm(CH)
    if kind == "conv":
        return nn.Conv1d(CH, CH, 3, padding=1)
    if kind == "identity":
        return nn.Identity()
    raise KeyError(kind)


def _toandfrom(name: str) -> Built:
    import torch
    from einops_exts.torch import EinopsToAndFrom
    from torch import nn

    src, dst, kind, inp = TOANDFROM[name]

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fn = EinopsToAndFrom(src, dst, _inner(kind))

        def forward(self, x: Any) -> Any:
            if kind == "attention_mask":
                mask = torch.ones(x.shape[0] * HW * HW, FRAMES, dtype=torch.bool)
                mask[:, -1] = False
                return self.fn(x, mask=mask) + x
            return self.fn(x) + x

    torch.manual_seed(0)
    if inp == "video":
        x = _randn(BATCH, CH, FRAMES, HW, HW, seed=3)
    elif inp == "image":
        x = _randn(BATCH, CH, HW, HW, seed=3)
    else:
        x = _randn(BATCH, SEQ, CH, seed=3)
    return Block(), (x,), {}


def _train(name: str) -> Built:
    import torch
    from einops_exts.torch import EinopsToAndFrom
    from torch import nn

    Attention = _attention_cls()

    class SpaceTime(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.spatial = EinopsToAndFrom("b c f h w", "b f (h w) c", Attention(CH))
            self.temporal = EinopsToAndFrom("b c f h w", "(b h w) f c", Attention(CH))
            self.out = nn.Conv3d(CH, CH, 1)

        def forward(self, x: Any) -> Any:
            from einops_exts import check_shape

            x = self.spatial(x) + x
            x = self.temporal(x) + x
            return check_shape(self.out(x), "b c f h w", c=CH)

    class TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = SpaceTime() if name == "train.space_time_block" else Attention(DIM)
            self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)

        def forward(self, x: Any, target: Any) -> Any:
            with torch.enable_grad():
                self.opt.zero_grad()
                loss = ((self.net(x) - target) ** 2).mean()
                loss.backward()
                self.opt.step()
            return loss.detach()

    torch.manual_seed(0)
    if name == "train.space_time_block":
        shape: tuple[int, ...] = (BATCH, CH, FRAMES, HW, HW)
    else:
        shape = (BATCH, SEQ, DIM)
    return TrainStep(), (_randn(*shape, seed=4), _randn(*shape, seed=5)), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in CALLS:
        return _call(name)
    if name in TOANDFROM:
        return _toandfrom(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
