"""Ground-truth bench, thop: MAC and parameter counting through forward hooks, a function-counting mode, and formatting.

ultralytics-thop 2.2.3 (the module ``thop``) counts the multiply-accumulates of one forward pass. ``profile(model,
inputs, custom_ops, verbose, ret_layer_info, report_missing, stride, min_cells)`` puts the model in eval mode,
walks it with ``apply`` and, per module, resolves a counting rule along the type's MRO (``custom_ops`` first,
then ``register_hooks``: convolutions and transposed ones, the norm families, PReLU, the softmax family, the
poolings, ``Linear``, ``Bilinear``, upsampling, the RNNs and their cells, ``MultiheadAttention``,
``Embedding``, and zero rules for padding, dropout, activations, containers and reshaping layers), moves a
user's own ``total_ops`` aside, registers a forward hook with keywords (``inspect.signature`` binds keyword
calls to positions) plus a depth counter around each counted module, and runs the model under ``no_grad``
inside ``_FunctionCounter``, a ``TorchFunctionMode`` that counts functional products (``matmul``, ``bmm``,
``einsum``, ``F.linear``, scaled dot-product and functional multi-head attention) outside counted modules. With
``ret_layer_info`` it builds the per-layer tree; with ``stride`` it estimates a large image's count from small
proxy inputs (Newton differences, a quadratic check when attention or custom rules are present), falling back to
the full input. It then removes every hook and attribute and restores each module's mode. ``profile_origin`` is
the legacy per-leaf variant (float64 ``total_ops`` buffers, a final ``.item()``). ``clever_format`` turns counts
into strings with units. Users call ``profile`` around a model in their scripts and training code, so each bench
model is a small ``nn.Module`` whose forward calls the library on a network it holds. The tables cover:

- ``NETS``: ``profile(..., verbose=False)`` on networks that reach every rule: an MLP with dropout, 1-, 2- and
  3-d conv nets (groups, no bias, batch / instance norms, max / average / adaptive poolings with and without
  padding counted), decoders with transposed convolutions, group norm, PReLU and each upsampling mode (and one
  without a cost, which warns), layer / RMS / batch norms with and without affine, the softmax family (explicit,
  implicit and 2-d), the padding and dropout families, fractional max pooling and max unpooling, reshaping
  layers, ``Bilinear`` (two inputs), embeddings (with ``max_norm``, which warns), RNN, GRU and LSTM (stacked,
  bidirectional, projected, unbatched, a packed sequence), the three cells (batched and not),
  ``MultiheadAttention`` (batch first or not, extra key / value biases, zero attention, other key and value
  widths, called with keywords), a transformer encoder layer, and networks whose forward uses functional
  products (``matmul``, ``@``, ``bmm``, ``einsum`` with two and three operands and implicit outputs,
  ``F.linear``, scaled dot-product attention, functional multi-head attention), a module shared by two parents,
  an unregistered activation;
- ``OPTIONS``: ``verbose`` (the default), ``report_missing``, ``ret_layer_info``, ``custom_ops`` (a user's rule
  for a user's module, one replacing a built-in rule, a thop rule reused for a subclass), ``stride`` and
  ``min_cells`` (proxy estimation for a conv net, for one with a linear head, with attention, and with a
  custom rule, with a functional product; a network whose proxies fail, so it is counted on the full input;
  ``min_cells`` too large for proxies to pay off; an input not divisible by the stride), a custom rule for a
  module called with keywords (bound to positions by ``inspect.signature``), a module that already owns ``total_ops`` (an attribute
  and a buffer);
- ``ORIGIN``: ``profile_origin`` on a selection of the networks, with ``verbose``, ``report_missing`` and
  ``custom_ops``;
- ``FORMAT``: ``clever_format`` on one number, a list and a tuple, each unit and a custom format, and on the
  result of ``profile`` in the same forward, as users print it;
- ``TRAIN``: training steps that count MACs of the model they train in the same compiled step (the hooks added
  and removed around a forward, the model's mode restored before the backward).

Left out: an fx-based profiler (2.2.3 ships none: ``profile``, ``profile_origin`` and ``clever_format`` are its
whole public surface, with the rule tables and hook functions they use); ``nn.LazyLinear`` and the other lazy modules (materialized at build time they are plain modules, and
unmaterialized ones run their first forward inside ``profile``'s ``no_grad`` pass); a module owning
``total_ops`` as a parameter or child module (``profile`` raises ``TypeError`` eagerly, by design). Random
weights and inputs from fixed seeds; nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HID, OUT, SEQ, SIDE = 2, 8, 16, 4, 5, 8

NETS = (
    "mlp", "cnn", "cnn.pad_avgpool", "conv1d", "conv3d", "decoder", "decoder1d", "decoder3d",
    "upsample.linear", "upsample.bicubic", "upsample.trilinear", "upsample.nearest_exact", "upsample.area",
    "norms", "norms.no_affine", "softmax", "softmax.implicit", "softmax2d", "padding", "dropout",
    "fractional_unpool", "reshape", "bilinear", "embedding", "embedding.max_norm",
    "rnn", "gru.bidirectional", "lstm.stacked", "lstm.proj", "lstm.unbatched", "lstm.packed",
    "cells", "cells.unbatched",
    "mha", "mha.seq_first", "mha.bias_kv", "mha.kdim_vdim", "mha.no_weights", "mha.unbatched",
    "transformer_layer", "functional.matmul", "functional.bmm", "functional.einsum", "functional.einsum3",
    "functional.linear", "functional.sdpa", "functional.mha", "shared_module", "unregistered",
)
# Option model name -> (net, keywords of profile; custom_ops and the like are resolved by ``_options``).
OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "verbose.mlp": ("mlp", {"verbose": True}),
    "verbose.cnn": ("cnn", {"verbose": True}),
    "verbose.mha": ("mha", {"verbose": True}),
    "report_missing.unregistered": ("unregistered", {"report_missing": True}),
    "report_missing.custom_module": ("custom_module", {"report_missing": True}),
    "ret_layer_info.mlp": ("mlp", {"ret_layer_info": True}),
    "ret_layer_info.cnn": ("cnn", {"ret_layer_info": True}),
    "ret_layer_info.shared_module": ("shared_module", {"ret_layer_info": True}),
    "ret_layer_info.transformer_layer": ("transformer_layer", {"ret_layer_info": True}),
    "custom_ops.custom_module": ("custom_module", {"custom_ops": "scale"}),
    "custom_ops.custom_module.verbose": ("custom_module", {"custom_ops": "scale", "verbose": True}),
    "custom_ops.override_conv": ("cnn", {"custom_ops": "conv"}),
    "custom_ops.subclass_thop_rule": ("subclass", {"custom_ops": "subclass"}),
    "subclass.mro": ("subclass", {}),
    "custom_ops.attention": ("custom_attention", {"custom_ops": "attention"}),
    "stride.cnn": ("cnn.large", {"stride": 4}),
    "stride.cnn.min_cells": ("cnn.large", {"stride": 4, "min_cells": 2}),
    "stride.fcn": ("fcn.large", {"stride": (4, 4)}),
    "stride.attention": ("attention.large", {"stride": 4}),
    "stride.custom_ops": ("custom_conv.large", {"stride": 4, "custom_ops": "scale"}),
    "stride.not_divisible": ("cnn.odd", {"stride": 4}),
    "stride.ret_layer_info": ("cnn.large", {"stride": 4, "ret_layer_info": True}),
    "stride.functional": ("functional_conv.large", {"stride": 4}),
    "stride.proxy_fails": ("flatten_head.large", {"stride": 4}),
    "stride.min_cells_large": ("cnn.large", {"stride": 4, "min_cells": 20}),
    "custom_ops.keywords": ("custom_keywords", {"custom_ops": "scale"}),
    "owns_total_ops.attribute": ("owns_attribute", {}),
    "owns_total_ops.buffer": ("owns_buffer", {}),
}
ORIGIN = ("mlp", "cnn", "conv1d", "decoder", "norms", "rnn", "lstm.stacked", "cells", "mha", "bilinear",
          "transformer_layer", "shared_module")
ORIGIN_OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "profile_origin.verbose.cnn": ("cnn", {"verbose": True}),
    "profile_origin.report_missing.unregistered": ("unregistered", {"report_missing": True}),
    "profile_origin.custom_ops.custom_module": ("custom_module", {"custom_ops": "scale", "verbose": False}),
}
# Format model name -> (what is formatted, format string or None).
FORMAT: dict[str, tuple[str, str | None]] = {
    "clever_format.number": ("number", None),
    "clever_format.list": ("list", "%.3f"),
    "clever_format.tuple_units": ("units", None),
    "clever_format.negative": ("negative", "%.1f"),
    "clever_format.profile": ("profile", "%.3f"),
    "clever_format.profile_origin": ("profile_origin", None),
}
TRAIN = ("train_step.mlp", "train_step.cnn", "train_step.transformer_layer", "train_step.rnn")


def names() -> list[str]:
    return ([f"profile.{n}" for n in NETS] + list(OPTIONS) + [f"profile_origin.{n}" for n in ORIGIN]
            + list(ORIGIN_OPTIONS) + list(FORMAT) + list(TRAIN))


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _net(kind: str) -> tuple[Any, tuple[Any, ...]]:
    """A tiny network of ``kind`` and the inputs ``profile`` is given for it."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(0)
    x, seq, image = _randn(BATCH, DIM), _randn(BATCH, SEQ, DIM), _randn(BATCH, 3, SIDE, SIDE)

    class Recurrent(nn.Module):
        def __init__(self, rnn: nn.Module, width: int) -> None:
            super().__init__()
            self.rnn = rnn
            self.head = nn.Linear(width, OUT)

        def forward(self, s: torch.Tensor) -> torch.Tensor:
            out, _ = self.rnn(s)
            return self.head(out[..., -1, :])

    class Packed(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.rnn = nn.LSTM(DIM, HID, batch_first=True)

        def forward(self, s: torch.Tensor) -> torch.Tensor:
            packed = nn.utils.rnn.pack_padded_sequence(s, [SEQ, SEQ - 2], batch_first=True)
            _, (h, _) = self.rnn(packed)
            return h[-1]

    class Cells(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.rnn = nn.RNNCell(DIM, HID)
            self.gru = nn.GRUCell(HID, HID, bias=False)
            self.lstm = nn.LSTMCell(HID, HID)

        def forward(self, s: torch.Tensor) -> torch.Tensor:
            h = s.new_zeros(*s.shape[:-2], HID)
            state = (h, h)
            for t in range(s.shape[-2]):
                h = self.gru(self.rnn(s[..., t, :], h), h)
                state = self.lstm(h, state)
            return state[0]

    class Attention(nn.Module):
        def __init__(self, batch_first: bool = True, keywords: bool = False, **options: Any) -> None:
            super().__init__()
            self.attn = nn.MultiheadAttention(DIM, 2, batch_first=batch_first, **options)
            self.batch_first, self.keywords = batch_first, keywords
            self.kdim = options.get("kdim", DIM)

        def forward(self, s: torch.Tensor) -> torch.Tensor:
            q = s if self.batch_first or s.dim() == 2 else s.transpose(0, 1)
            kv = q if self.kdim == DIM else torch.cat([q, q[..., :2]], dim=-1)
            if self.keywords:
                out, _ = self.attn(q, kv, kv, need_weights=False)
            else:
                out, _ = self.attn(q, kv, kv)
            return out

    class Bilinear(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bilinear = nn.Bilinear(DIM, OUT, HID)
            self.head = nn.Linear(HID, OUT)

        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return self.head(torch.relu(self.bilinear(a, b)))

    class Unpool(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.frac = nn.FractionalMaxPool2d(2, output_size=(6, 6))
            self.pool = nn.MaxPool2d(2, return_indices=True)
            self.unpool = nn.MaxUnpool2d(2)

        def forward(self, im: torch.Tensor) -> torch.Tensor:
            h = self.frac(self.conv(im))
            h, idx = self.pool(h)
            return self.unpool(h, idx)

    class Functional(nn.Module):
        def __init__(self, kind: str) -> None:
            super().__init__()
            self.kind = kind
            self.proj = nn.Linear(DIM, 3 * DIM)
            self.weight = nn.Parameter(torch.randn(DIM, DIM) * 0.3)
            self.bias = nn.Parameter(torch.zeros(DIM))
            self.mha = nn.MultiheadAttention(DIM, 2)

        def forward(self, s: torch.Tensor) -> torch.Tensor:
            q, k, v = self.proj(s).chunk(3, dim=-1)
            if self.kind == "matmul":
                scores = torch.matmul(q, k.transpose(-1, -2)).softmax(-1)
                return (scores @ v).matmul(self.weight)
            if self.kind == "bmm":
                return torch.bmm(q, k.transpose(1, 2)).softmax(-1).bmm(v)
            if self.kind == "einsum":
                scores = torch.einsum("bid,bjd->bij", q, k).softmax(-1)
                out = torch.einsum("bij,bjd->bid", scores, v) + torch.einsum("...d,de->...e", v, self.weight)
                return out + torch.einsum("ij,jk", self.weight, self.weight).sum()
            if self.kind == "einsum3":
                return torch.einsum("bid,de,bje->bij", q, self.weight, k) + torch.einsum("bii->bi", q[..., :SEQ])[..., None]
            if self.kind == "linear":
                return F.linear(F.linear(q, self.weight, self.bias), self.weight)
            if self.kind == "sdpa":
                heads = lambda t: t.view(BATCH, SEQ, 2, DIM // 2).transpose(1, 2)
                return F.scaled_dot_product_attention(heads(q), heads(k), heads(v), is_causal=True)
            s = s.transpose(0, 1)
            out, _ = F.multi_head_attention_forward(
                s, s, s, DIM, 2, self.mha.in_proj_weight, self.mha.in_proj_bias, None, None, False, 0.0,
                self.mha.out_proj.weight, self.mha.out_proj.bias, training=False)
            return out

    class Shared(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.act = nn.ReLU()
            self.a = nn.Sequential(nn.Linear(DIM, HID), self.act)
            self.b = nn.Sequential(nn.Linear(HID, HID), self.act)
            self.norm = nn.LayerNorm(HID)
            self.out = nn.Linear(HID, OUT)

        def forward(self, v: torch.Tensor) -> torch.Tensor:
            h = self.b(self.a(v))
            return self.out(self.norm(self.b(h)))

    class Scale(nn.Module):
        def __init__(self, width: int) -> None:
            super().__init__()
            self.gain = nn.Parameter(torch.ones(width))

        def forward(self, v: torch.Tensor, *extra: torch.Tensor, gain: float = 1.0) -> torch.Tensor:
            return v * self.gain.view(-1, *([1] * (v.dim() - 2))) * gain

    class MyConv(nn.Conv2d):
        """A user's convolution: a subclass that thop's rules reach through the MRO."""

        def forward(self, v: torch.Tensor) -> torch.Tensor:
            return super().forward(v) * 0.5

    class AttnNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Conv2d(3, DIM, 4, stride=4)
            self.attn = nn.MultiheadAttention(DIM, 2, batch_first=True)
            self.head = nn.Conv2d(DIM, 2, 1)

        def forward(self, im: torch.Tensor) -> torch.Tensor:
            h = self.stem(im)
            b, c, hh, ww = h.shape
            t = h.flatten(2).transpose(1, 2)
            t, _ = self.attn(t, t, t)
            return self.head(t.transpose(1, 2).reshape(b, c, hh, ww))

    class FunctionalConv(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.mix = nn.Parameter(torch.randn(4, 4) * 0.3)

        def forward(self, im: torch.Tensor) -> torch.Tensor:
            h = self.conv(im)
            return torch.matmul(self.mix, h.flatten(2)).view_as(h)

    class KeywordScale(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = Scale(HID)
            self.a = nn.Linear(DIM, HID)
            self.b = nn.Linear(HID, OUT)

        def forward(self, v: torch.Tensor) -> torch.Tensor:
            return self.b(self.inner(self.a(v), gain=2.0))

    class OwnsBuffer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, OUT))
            self.register_buffer("total_ops", torch.zeros(1))

        def forward(self, v: torch.Tensor) -> torch.Tensor:
            return self.body(v)

    cnn = lambda: nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU6(), nn.MaxPool2d(2),
                                nn.Conv2d(4, 8, 3, groups=2, bias=False), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                nn.Linear(8, OUT))
    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Dropout(0.1), nn.Linear(HID, OUT)), (x,)
    if kind == "cnn":
        return cnn(), (image,)
    if kind == "cnn.pad_avgpool":
        return nn.Sequential(nn.Conv2d(3, 4, 3), nn.AvgPool2d(3, stride=2, padding=1),
                             nn.AvgPool2d(2, padding=1, count_include_pad=False), nn.AdaptiveAvgPool2d((2, 3)),
                             nn.AdaptiveMaxPool2d(1)), (image,)
    if kind == "conv1d":
        return nn.Sequential(nn.Conv1d(3, 4, 3), nn.InstanceNorm1d(4, affine=True), nn.LeakyReLU(), nn.AvgPool1d(2),
                             nn.AdaptiveMaxPool1d(3), nn.AdaptiveAvgPool1d(2), nn.MaxPool1d(2),
                             nn.Flatten()), (_randn(BATCH, 3, 12),)
    if kind == "conv3d":
        return nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4), nn.InstanceNorm3d(4), nn.ReLU(),
                             nn.MaxPool3d(2), nn.AvgPool3d(2, padding=1), nn.AdaptiveAvgPool3d(1), nn.Flatten(),
                             nn.Linear(4, OUT)), (_randn(BATCH, 2, 4, 4, 4),)
    if kind == "decoder":
        return nn.Sequential(nn.ConvTranspose2d(3, 4, 2, stride=2), nn.GroupNorm(2, 4), nn.PReLU(),
                             nn.Upsample(scale_factor=2), nn.Conv2d(4, 4, 3, padding=1),
                             nn.UpsamplingBilinear2d(scale_factor=2), nn.UpsamplingNearest2d(scale_factor=0.5),
                             nn.PixelShuffle(2), nn.Upsample(scale_factor=0.5, mode="bilinear")), (image,)
    if kind == "decoder1d":
        return nn.Sequential(nn.ConvTranspose1d(3, 4, 3, stride=2, groups=1), nn.PReLU(4),
                             nn.ConvTranspose1d(4, 2, 2, bias=False)), (_randn(BATCH, 3, 6),)
    if kind == "decoder3d":
        return nn.Sequential(nn.ConvTranspose3d(2, 4, 2, stride=2), nn.BatchNorm3d(4),
                             nn.ConvTranspose3d(4, 2, 3, padding=1, groups=2)), (_randn(BATCH, 2, 3, 3, 3),)
    if kind.startswith("upsample."):
        mode = kind.split(".")[1].replace("_", "-")
        if mode == "linear":
            return nn.Sequential(nn.Conv1d(3, 3, 1), nn.Upsample(scale_factor=2, mode="linear")), (_randn(BATCH, 3, 6),)
        if mode == "trilinear":
            return nn.Sequential(nn.Upsample(size=(4, 4, 4), mode="trilinear", align_corners=True),
                                 nn.Conv3d(2, 2, 1)), (_randn(BATCH, 2, 2, 3, 2),)
        return nn.Sequential(nn.Conv2d(3, 3, 1), nn.Upsample(scale_factor=2, mode=mode)), (image,)
    if kind.startswith("norms"):
        affine = kind == "norms"
        return nn.Sequential(nn.Linear(DIM, HID), nn.LayerNorm(HID, elementwise_affine=affine), nn.GELU(),
                             nn.RMSNorm(HID, elementwise_affine=affine), nn.BatchNorm1d(SEQ, affine=affine),
                             nn.Linear(HID, OUT)), (seq,)
    if kind == "softmax":
        return nn.Sequential(nn.Linear(DIM, HID), nn.Softmax(dim=-1), nn.Linear(HID, HID), nn.LogSoftmax(dim=1),
                             nn.Linear(HID, OUT), nn.Softmin(dim=-1)), (x,)
    if kind == "softmax.implicit":
        return nn.Sequential(nn.Linear(DIM, HID), nn.Softmax(), nn.Linear(HID, OUT), nn.LogSoftmax()), (seq,)
    if kind == "softmax2d":
        return nn.Sequential(nn.Conv2d(3, 4, 1), nn.Softmax2d()), (image,)
    if kind == "padding":
        return nn.Sequential(nn.ZeroPad2d(1), nn.Conv2d(3, 4, 3), nn.ReflectionPad2d((1, 0, 1, 0)),
                             nn.ReplicationPad2d(1), nn.ConstantPad2d(1, 0.5), nn.CircularPad2d(1),
                             nn.Conv2d(4, 2, 3)), (image,)
    if kind == "dropout":
        return nn.Sequential(nn.Conv2d(3, 4, 3), nn.Dropout2d(0.2), nn.Flatten(), nn.AlphaDropout(0.1),
                             nn.Linear(4 * 36, OUT), nn.Dropout(0.3)), (image,)
    if kind == "fractional_unpool":
        return Unpool(), (image,)
    if kind == "reshape":
        return nn.Sequential(nn.Identity(), nn.PixelUnshuffle(2), nn.ChannelShuffle(3), nn.Unfold(2),
                             nn.Unflatten(1, (12, 4)), nn.Flatten(), nn.Linear(48 * 9, OUT)), (image,)
    if kind == "bilinear":
        return Bilinear(), (x, _randn(BATCH, OUT, seed=2))
    if kind.startswith("embedding"):
        max_norm = 1.0 if kind.endswith("max_norm") else None
        tokens = torch.randint(0, 10, (BATCH, SEQ), generator=torch.Generator().manual_seed(3))
        return nn.Sequential(nn.Embedding(10, DIM, max_norm=max_norm), nn.Linear(DIM, OUT)), (tokens,)
    if kind == "rnn":
        return Recurrent(nn.RNN(DIM, HID, batch_first=True), HID), (seq,)
    if kind == "gru.bidirectional":
        return Recurrent(nn.GRU(DIM, HID, num_layers=2, batch_first=True, bidirectional=True), 2 * HID), (seq,)
    if kind == "lstm.stacked":
        return Recurrent(nn.LSTM(DIM, HID, num_layers=2, bias=False), HID), (seq.transpose(0, 1),)
    if kind == "lstm.proj":
        return Recurrent(nn.LSTM(DIM, HID, num_layers=2, batch_first=True, bidirectional=True, proj_size=4),
                         8), (seq,)
    if kind == "lstm.unbatched":
        return Recurrent(nn.LSTM(DIM, HID), HID), (seq[0],)
    if kind == "lstm.packed":
        return Packed(), (seq,)
    if kind == "cells":
        return Cells(), (seq,)
    if kind == "cells.unbatched":
        return Cells(), (seq[0],)
    if kind == "mha":
        return Attention(), (seq,)
    if kind == "mha.seq_first":
        return Attention(batch_first=False), (seq,)
    if kind == "mha.bias_kv":
        return Attention(add_bias_kv=True, add_zero_attn=True), (seq,)
    if kind == "mha.kdim_vdim":
        return Attention(kdim=DIM + 2, vdim=DIM + 2), (seq,)
    if kind == "mha.no_weights":
        return Attention(keywords=True), (seq,)
    if kind == "mha.unbatched":
        return Attention(), (seq[0],)
    if kind == "transformer_layer":
        return nn.TransformerEncoderLayer(DIM, 2, dim_feedforward=HID, dropout=0.0, batch_first=True), (seq,)
    if kind.startswith("functional."):
        return Functional(kind.split(".")[1]), (seq,)
    if kind == "shared_module":
        return Shared(), (x,)
    if kind == "unregistered":
        return nn.Sequential(nn.Linear(DIM, HID), nn.SiLU(), nn.Mish(), nn.Linear(HID, HID), nn.Hardswish(),
                             nn.Linear(HID, OUT), nn.Tanh()), (x,)
    if kind == "custom_module":
        return nn.Sequential(nn.Linear(DIM, HID), Scale(HID), nn.ReLU(), nn.Linear(HID, OUT)), (x,)
    if kind == "subclass":
        return nn.Sequential(MyConv(3, 4, 3, padding=1), nn.ReLU(), MyConv(4, 2, 1)), (image,)
    if kind == "custom_attention":
        return Attention(), (seq,)
    if kind == "cnn.large":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                             nn.Conv2d(4, 4, 3, stride=2, padding=1), nn.Upsample(scale_factor=2),
                             nn.Conv2d(4, 2, 1)), (_randn(1, 3, 32, 32),)
    if kind == "cnn.odd":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 2, 1)), (_randn(1, 3, 30, 30),)
    if kind == "fcn.large":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
                             nn.Linear(16, OUT)), (_randn(1, 3, 32, 32),)
    if kind == "attention.large":
        return AttnNet(), (_randn(1, 3, 32, 32),)
    if kind == "custom_conv.large":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), Scale(4), nn.Conv2d(4, 2, 1)), (_randn(1, 3, 32, 32),)
    if kind == "functional_conv.large":
        return FunctionalConv(), (_randn(1, 3, 32, 32),)
    if kind == "flatten_head.large":
        return nn.Sequential(nn.Conv2d(3, 2, 4, stride=4), nn.Flatten(), nn.Linear(2 * 8 * 8, OUT)), (_randn(1, 3, 32, 32),)
    if kind == "custom_keywords":
        return KeywordScale(), (x,)
    if kind == "owns_attribute":
        net = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, OUT))
        net[0].total_ops = 7
        return net, (x,)
    if kind == "owns_buffer":
        return OwnsBuffer(), (x,)
    raise KeyError(kind)


def _scale_rule(m: Any, x: Any, y: Any) -> None:
    """A user's counting rule for the ``Scale`` module: one multiplication per output element."""
    m.total_ops += y.numel()


def _conv_rule(m: Any, x: Any, y: Any) -> None:
    """A user's convolution rule replacing thop's: the output elements times the kernel's weights per output."""
    m.total_ops += y.numel() * m.weight[0].numel()


def _attention_rule(m: Any, x: Any, y: Any) -> None:
    """A user's attention rule: four projections of the query tokens."""
    out = y[0] if isinstance(y, tuple) else y
    m.total_ops += 4 * out.numel() * m.embed_dim


def _options(net: Any, options: dict[str, Any]) -> dict[str, Any]:
    from thop.vision.basic_hooks import count_convNd
    from torch import nn

    options = dict(options)
    custom = options.pop("custom_ops", None)
    if custom == "scale":
        scale = next(type(m) for m in net.modules() if type(m).__name__ == "Scale")
        options["custom_ops"] = {scale: _scale_rule}
    elif custom == "conv":
        options["custom_ops"] = {nn.Conv2d: _conv_rule}
    elif custom == "subclass":
        options["custom_ops"] = {type(net[0]): count_convNd}
    elif custom == "attention":
        options["custom_ops"] = {nn.MultiheadAttention: _attention_rule}
    return options


def _profile(kind: str, options: dict[str, Any], origin: bool = False) -> Built:
    import torch
    from thop import profile, profile_origin
    from torch import nn

    net, inputs = _net(kind)
    options = _options(net, options)
    function = profile_origin if origin else profile
    if not origin:
        options.setdefault("verbose", False)
    elif "verbose" not in options:
        options["verbose"] = False

    class _Profile(nn.Module):
        """``thop.profile`` (or ``profile_origin``) of the held network on the inputs; counts and a sum."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, *xs: torch.Tensor) -> Any:
            result = function(self.net, inputs=xs, **options)
            return (*result[:2], xs[0].float().sum())

        def entry_points(self) -> list[Any]:
            return [function]

    return _Profile(), inputs, {}


def _format(name: str) -> Built:
    import torch
    from thop import clever_format, profile, profile_origin
    from torch import nn

    what, fmt = FORMAT[name]
    net, inputs = _net("cnn")
    keywords = {} if fmt is None else {"format": fmt}

    class _Format(nn.Module):
        """``clever_format`` on counts derived from the input, or on a profile of the held network."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> Any:
            n = x.numel()
            if what == "number":
                return clever_format(n * 1234.5, **keywords), x.sum()
            if what == "list":
                return clever_format([n * 1e3, n * 2e6], **keywords), x.sum()
            if what == "units":
                return clever_format((n * 1e12, n * 3e9, n * 4e6, n * 5e3, n * 1.0), **keywords), x.sum()
            if what == "negative":
                return clever_format([-n * 1e6, 1e9], **keywords), x.sum()
            function = profile if what == "profile" else profile_origin
            macs, params = function(self.net, inputs=(x,), verbose=False)
            return clever_format([macs, params], **keywords), self.net(x)

        def entry_points(self) -> list[Any]:
            return [clever_format] + ([profile] if what == "profile" else [profile_origin] if what == "profile_origin"
                                      else [])

    return _Format(), inputs, {}


def _train(name: str) -> Built:
    import torch
    from thop import profile
    from torch import nn

    kind = name.split(".", 1)[1]
    net, inputs = _net(kind)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)

    class _TrainStep(nn.Module):
        """A training step that also counts the MACs of the model it trains, as a logging callback does."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> Any:
            macs, params = profile(self.net, inputs=(x,), verbose=False)
            with torch.enable_grad():
                optimizer.zero_grad()
                out = self.net(x)
                loss = out.float().pow(2).mean()
                loss.backward()
                optimizer.step()
            return loss.detach(), macs, params

        def entry_points(self) -> list[Any]:
            return [profile]

    return _TrainStep(), inputs, {}


def build(name: str) -> Built:
    if name in OPTIONS:
        kind, options = OPTIONS[name]
        return _profile(kind, options)
    if name in ORIGIN_OPTIONS:
        kind, options = ORIGIN_OPTIONS[name]
        return _profile(kind, options, origin=True)
    if name in FORMAT:
        return _format(name)
    if name in TRAIN:
        return _train(name)
    head, _, kind = name.partition(".")
    if head == "profile" and kind in NETS:
        return _profile(kind, {})
    if head == "profile_origin" and kind in ORIGIN:
        return _profile(kind, {}, origin=True)
    raise KeyError(name)
