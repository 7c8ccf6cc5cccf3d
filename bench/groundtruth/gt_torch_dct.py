"""Ground-truth bench, torch_dct (torch-dct): discrete cosine transforms in PyTorch, through the FFT or as a
linear layer.

torch-dct offers functions over the last dimension(s) of a tensor: ``dct`` / ``idct`` (type II and its inverse,
``norm=None`` or ``'ortho'``), ``dct1`` / ``idct1`` (type I), ``dct_2d`` / ``idct_2d`` and ``dct_3d`` /
``idct_3d`` (the separable transforms over the last two or three dimensions), and ``LinearDCT``, an
``nn.Linear`` whose frozen weight is the DCT matrix of one of those types, applied over two or three dimensions
by ``apply_linear_2d`` / ``apply_linear_3d``. Users call them inside their models (frequency-domain losses,
compression of features, spectral pooling), so each model is one of:

- ``CALLS``: one function compiled through ``gt_calls.Call``: each transform with and without ``'ortho'``,
  on even and odd lengths, on a 1-D signal, a batch (2 x 16) and a batch of channels (2 x 3 x 16), the
  2-D transforms on 2 x 3 x 8 x 8 images (and a non-square 6 x 10), the 3-D ones on 2 x 4 x 6 x 8 volumes;
  the inverse transforms get the input random (they are linear maps);
- ``LINEAR``: a ``LinearDCT`` of each type (``dct``, ``idct``, ``dct1``, ``idct1``; ``'ortho'``; with a
  bias) called directly, through ``apply_linear_2d`` and through ``apply_linear_3d``;
- ``PIPELINES``: bench modules that chain the transforms as users do: a round trip (``dct`` then ``idct``),
  low-pass filtering of images by zeroing high-frequency ``dct_2d`` coefficients before ``idct_2d``, the same
  with ``LinearDCT`` layers, a 3-D round trip, JPEG-like block compression (8 x 8 blocks, quantisation);
- ``TRAIN``: training steps returning a loss: a small conv net trained with a frequency-domain loss
  (``dct_2d`` of prediction and target, ortho or not), a net whose features pass through ``dct`` / ``idct``
  (spectral truncation), a net with ``LinearDCT`` and ``apply_linear_2d`` inside, a learnable spectral filter
  on ``dct_3d`` coefficients, and a full step with ``backward()`` and an SGD step inside the forward.

Every model runs in eager mode. Random data, random weights; nothing downloaded. ``names()`` needs no torch;
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Model name -> (function of ``torch_dct``, input kind, fixed keywords). Kinds: vec (16,), batch (2, 16), odd
# (2, 15), chan (2, 3, 16), img (2, 3, 8, 8), rect (2, 3, 6, 10), vol (2, 4, 6, 8).
CALLS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "dct": ("dct", "batch", {}),
    "dct.ortho": ("dct", "batch", {"norm": "ortho"}),
    "dct.odd": ("dct", "odd", {}),
    "dct.odd.ortho": ("dct", "odd", {"norm": "ortho"}),
    "dct.vector": ("dct", "vec", {}),
    "dct.channels.ortho": ("dct", "chan", {"norm": "ortho"}),
    "idct": ("idct", "batch", {}),
    "idct.ortho": ("idct", "batch", {"norm": "ortho"}),
    "idct.odd": ("idct", "odd", {}),
    "idct.odd.ortho": ("idct", "odd", {"norm": "ortho"}),
    "idct.channels": ("idct", "chan", {}),
    "dct1": ("dct1", "batch", {}),
    "dct1.channels": ("dct1", "chan", {}),
    "idct1": ("idct1", "odd", {}),
    "dct_2d": ("dct_2d", "img", {}),
    "dct_2d.ortho": ("dct_2d", "img", {"norm": "ortho"}),
    "dct_2d.rect.ortho": ("dct_2d", "rect", {"norm": "ortho"}),
    "idct_2d": ("idct_2d", "img", {}),
    "idct_2d.ortho": ("idct_2d", "rect", {"norm": "ortho"}),
    "dct_3d": ("dct_3d", "vol", {}),
    "dct_3d.ortho": ("dct_3d", "vol", {"norm": "ortho"}),
    "idct_3d": ("idct_3d", "vol", {}),
    "idct_3d.ortho": ("idct_3d", "vol", {"norm": "ortho"}),
}

# Model name -> (LinearDCT type, norm, bias, how it is applied: "direct", "2d" or "3d", input kind).
LINEAR: dict[str, tuple[str, str | None, bool, str, str]] = {
    "LinearDCT.dct": ("dct", None, False, "direct", "batch"),
    "LinearDCT.dct.ortho": ("dct", "ortho", False, "direct", "chan"),
    "LinearDCT.idct.ortho": ("idct", "ortho", False, "direct", "batch"),
    "LinearDCT.dct1": ("dct1", None, False, "direct", "batch"),
    "LinearDCT.idct1.bias": ("idct1", None, True, "direct", "batch"),
    "apply_linear_2d.dct": ("dct", None, False, "2d", "img"),
    "apply_linear_2d.idct.ortho": ("idct", "ortho", False, "2d", "img"),
    "apply_linear_3d.dct.ortho": ("dct", "ortho", False, "3d", "cube"),
    "apply_linear_3d.idct": ("idct", None, False, "3d", "cube"),
}

PIPELINES = ("roundtrip", "roundtrip.ortho", "lowpass_2d", "lowpass_2d.linear", "roundtrip_3d.ortho",
             "block_compression")

TRAIN = ("train.freq_loss", "train.freq_loss.ortho", "train.spectral_truncation", "train.linear_dct",
         "train.spectral_filter_3d", "train.step.sgd")


def names() -> list[str]:
    return (list(CALLS) + list(LINEAR) + [f"pipeline.{n}" for n in PIPELINES] + list(TRAIN))


def _input(kind: str) -> Any:
    import torch

    gen = torch.Generator().manual_seed(1)
    shapes = {"vec": (16,), "batch": (2, 16), "odd": (2, 15), "chan": (2, 3, 16), "img": (2, 3, 8, 8),
              "rect": (2, 3, 6, 10), "vol": (2, 4, 6, 8), "cube": (2, 6, 6, 6)}
    return torch.randn(*shapes[kind], generator=gen)


def _linear(name: str) -> Built:
    import torch_dct
    from torch import nn

    kind, norm, bias, how, data = LINEAR[name]
    layer = torch_dct.LinearDCT(_input(data).shape[-1], kind, norm=norm, bias=bias)

    class Apply(nn.Module):
        """A ``LinearDCT`` called directly or through ``apply_linear_2d`` / ``apply_linear_3d``."""

        def __init__(self) -> None:
            super().__init__()
            self.layer = layer

        def forward(self, x: Any) -> Any:
            if how == "2d":
                return torch_dct.apply_linear_2d(x, self.layer)
            if how == "3d":
                return torch_dct.apply_linear_3d(x, self.layer)
            return self.layer(x)

        def entry_points(self) -> list[Any]:
            entered: list[Any] = [torch_dct.LinearDCT]
            if how == "2d":
                entered.append(torch_dct.apply_linear_2d)
            if how == "3d":
                entered.append(torch_dct.apply_linear_3d)
            return entered

    return Apply(), (_input(data),), {}


def _pipeline(name: str) -> Built:
    import torch
    import torch_dct
    from torch import nn

    class Pipeline(nn.Module):
        """Transforms chained as users chain them (a round trip, low-pass filtering, block compression)."""

        def __init__(self) -> None:
            super().__init__()
            self.fwd = torch_dct.LinearDCT(8, "dct", norm="ortho")
            self.inv = torch_dct.LinearDCT(8, "idct", norm="ortho")

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if name == "roundtrip":
                return torch_dct.idct(torch_dct.dct(x))
            if name == "roundtrip.ortho":
                return torch_dct.idct(torch_dct.dct(x, norm="ortho"), norm="ortho")
            if name == "roundtrip_3d.ortho":
                return torch_dct.idct_3d(torch_dct.dct_3d(x, norm="ortho"), norm="ortho")
            mask = torch.zeros(8, 8, device=x.device)
            mask[:4, :4] = 1.0
            if name == "lowpass_2d":
                return torch_dct.idct_2d(torch_dct.dct_2d(x, norm="ortho") * mask, norm="ortho")
            if name == "lowpass_2d.linear":
                coeffs = torch_dct.apply_linear_2d(x, self.fwd) * mask
                return torch_dct.apply_linear_2d(coeffs, self.inv)
            # block compression: 16 x 16 images cut into 8 x 8 blocks, transformed, quantised, inverted
            b, c, h, w = x.shape
            blocks = x.unfold(2, 8, 8).unfold(3, 8, 8)  # b, c, h/8, w/8, 8, 8
            coeffs = torch_dct.dct_2d(blocks, norm="ortho")
            step = 0.1 * (1 + torch.arange(8, device=x.device)[:, None] + torch.arange(8, device=x.device)[None, :])
            quantised = torch.round(coeffs / step) * step
            rec = torch_dct.idct_2d(quantised, norm="ortho")
            return rec.permute(0, 1, 2, 4, 3, 5).reshape(b, c, h, w)

        def entry_points(self) -> list[Any]:
            if name.startswith("roundtrip_3d"):
                return [torch_dct.dct_3d, torch_dct.idct_3d]
            if name.startswith("roundtrip"):
                return [torch_dct.dct, torch_dct.idct]
            if name == "lowpass_2d.linear":
                return [torch_dct.apply_linear_2d, torch_dct.LinearDCT]
            return [torch_dct.dct_2d, torch_dct.idct_2d]

    data = {"roundtrip": "chan", "roundtrip.ortho": "odd", "roundtrip_3d.ortho": "vol", "lowpass_2d": "img",
            "lowpass_2d.linear": "img"}
    if name == "block_compression":
        import torch

        x = torch.randn(2, 1, 16, 16, generator=torch.Generator().manual_seed(1))
    else:
        x = _input(data[name])
    return Pipeline(), (x,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torch_dct
    from torch import nn

    gen = torch.Generator().manual_seed(2)

    class Step(nn.Module):
        """A training step with DCTs inside: the loss is returned (and, for ``train.step.sgd``, stepped)."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1))
            self.mlp = nn.Sequential(nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 16))
            self.linear_dct = torch_dct.LinearDCT(8, "dct", norm="ortho")
            self.linear_idct = torch_dct.LinearDCT(8, "idct", norm="ortho")
            self.filter = nn.Parameter(torch.ones(4, 6, 8))
            self.optimizer = torch.optim.SGD(self.conv.parameters(), lr=0.01)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            if name in ("train.freq_loss", "train.freq_loss.ortho"):
                norm = "ortho" if name.endswith("ortho") else None
                pred = self.conv(x)
                return F.l1_loss(torch_dct.dct_2d(pred, norm=norm), torch_dct.dct_2d(y, norm=norm)) + F.mse_loss(pred, y)
            if name == "train.spectral_truncation":
                h = self.mlp(x)
                coeffs = torch_dct.dct(h, norm="ortho")
                keep = torch.cat([coeffs[..., :8], torch.zeros_like(coeffs[..., 8:])], dim=-1)
                return F.mse_loss(torch_dct.idct(keep, norm="ortho"), y)
            if name == "train.linear_dct":
                pred = self.conv(x)
                coeffs = torch_dct.apply_linear_2d(pred, self.linear_dct)
                rec = torch_dct.apply_linear_2d(coeffs, self.linear_idct)
                return F.mse_loss(rec, y) + 1e-3 * coeffs.abs().mean()
            if name == "train.spectral_filter_3d":
                rec = torch_dct.idct_3d(torch_dct.dct_3d(x, norm="ortho") * self.filter, norm="ortho")
                return F.mse_loss(rec, y)
            # train.step.sgd: the loss, backward and an optimizer step inside the forward
            self.optimizer.zero_grad()
            with torch.enable_grad():
                pred = self.conv(x)
                loss = F.mse_loss(torch_dct.dct_2d(pred, norm="ortho"), torch_dct.dct_2d(y, norm="ortho"))
                loss.backward()
            self.optimizer.step()
            return loss.detach()

        def entry_points(self) -> list[Any]:
            if name == "train.spectral_truncation":
                return [torch_dct.dct, torch_dct.idct]
            if name == "train.linear_dct":
                return [torch_dct.apply_linear_2d, torch_dct.LinearDCT]
            if name == "train.spectral_filter_3d":
                return [torch_dct.dct_3d, torch_dct.idct_3d]
            return [torch_dct.dct_2d]

    shape = {"train.spectral_truncation": (2, 16), "train.spectral_filter_3d": (2, 4, 6, 8)}.get(name, (2, 3, 8, 8))
    x = torch.randn(*shape, generator=gen)
    y = torch.randn(*shape, generator=gen)
    return Step(), (x, y), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in CALLS:
        import importlib

        from gt_calls import Call

        function, kind, static = CALLS[name]
        return Call(getattr(importlib.import_module("torch_dct"), function), **static), (_input(kind),), {}
    if name in LINEAR:
        return _linear(name)
    if name.startswith("pipeline."):
        return _pipeline(name[len("pipeline."):])
    return _train(name)
