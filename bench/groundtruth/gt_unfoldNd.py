"""Ground-truth bench, unfoldNd: N-dimensional unfold (im2col), fold (col2im) and transpose unfold by convolution.

unfoldNd 0.2.3 generalizes ``torch.nn.Unfold`` and ``torch.nn.Fold`` to 3-, 4- and 5-d inputs (1 to 3 spatial axes).
``unfoldNd`` / ``UnfoldNd`` run a grouped convolution whose one-hot kernel (an identity reshaped to the kernel and
repeated per channel) picks out each patch element; ``unfold_transposeNd`` / ``UnfoldTransposeNd`` do the same with
a transpose convolution (the module works out ``output_padding`` from a requested ``output_size`` through torch's
``_ConvTransposeNd._output_padding``); ``foldNd`` / ``FoldNd`` unfold an index image (``torch.arange``) and
``scatter_add_`` the patch values back, after checking with ``numpy.prod`` that the padded output fits in float32,
then narrow the padding away. The tables cover, with 2 or 3 channels, spatial sizes of 4 to 8, a batch of 2:

- ``UNFOLD``: ``UnfoldNd`` in 1, 2 and 3 dimensions with stride, padding, dilation, tuple hyper-parameters;
- ``FOLD``: ``FoldNd`` in 1, 2 and 3 dimensions (overlapping and non-overlapping blocks, padding, stride,
  dilation), given the unfolded input of matching shape;
- ``TRANSPOSE``: ``UnfoldTransposeNd`` in 1, 2 and 3 dimensions with stride, padding, dilation, ``output_padding``
  and a requested ``output_size`` (a keyword of the call);
- ``FUNCTIONS``: the functionals ``unfoldNd``, ``foldNd`` and ``unfold_transposeNd``, and the round trip
  unfold then fold (the overlap count of a patch average);
- ``NETS`` and ``TRAIN``: uses inside models (a convolution written as unfold and matmul, a 3-d patch embedding,
  local attention over unfolded neighbourhoods, a transposed convolution as unfold-transpose and matmul, a
  patch-wise MLP folded back to an image) in a forward pass and in training steps with a loss backward and an
  optimizer step.

Left out: inputs with more than 3 spatial axes (the library raises). Random inputs and weights from fixed
generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
# name -> (kernel, keywords, channels, spatial input size)
UNFOLD: dict[str, tuple[Any, dict[str, Any], int, tuple[int, ...]]] = {
    "UnfoldNd.1d": (3, {}, 3, (8,)),
    "UnfoldNd.1d.stride2.padding1": (3, {"stride": 2, "padding": 1}, 3, (8,)),
    "UnfoldNd.2d": (2, {}, 3, (5, 5)),
    "UnfoldNd.2d.stride2.padding1": (3, {"stride": 2, "padding": 1}, 2, (6, 6)),
    "UnfoldNd.2d.dilation2": (2, {"dilation": 2}, 2, (6, 6)),
    "UnfoldNd.2d.tuple_hyperparameters": ((2, 3), {"stride": (1, 2), "padding": (1, 0), "dilation": (2, 1)}, 2,
                                          (6, 7)),
    "UnfoldNd.3d": (2, {}, 2, (4, 4, 4)),
    "UnfoldNd.3d.stride2.padding1": (3, {"stride": 2, "padding": 1}, 2, (4, 5, 4)),
    "UnfoldNd.3d.tuple_kernel.dilation": ((1, 2, 2), {"dilation": (1, 2, 1)}, 2, (3, 5, 4)),
}
# name -> (output size, kernel, keywords, channels)
FOLD: dict[str, tuple[tuple[int, ...], Any, dict[str, Any], int]] = {
    "FoldNd.1d": ((8,), 3, {}, 3),
    "FoldNd.1d.stride2.padding1": ((8,), 3, {"stride": 2, "padding": 1}, 2),
    "FoldNd.2d": ((5, 5), 2, {}, 3),
    "FoldNd.2d.non_overlapping": ((6, 6), 2, {"stride": 2}, 3),
    "FoldNd.2d.padding1.dilation2": ((6, 6), 2, {"padding": 1, "dilation": 2}, 2),
    "FoldNd.2d.tuple_hyperparameters": ((6, 7), (2, 3), {"stride": (2, 1), "padding": (0, 1)}, 2),
    "FoldNd.3d": ((4, 4, 4), 2, {}, 2),
    "FoldNd.3d.stride2.padding1": ((4, 4, 4), 3, {"stride": 2, "padding": 1}, 2),
}
# name -> (kernel, keywords, channels, spatial input size, output size requested in the call or None)
TRANSPOSE: dict[str, tuple[Any, dict[str, Any], int, tuple[int, ...], Any]] = {
    "UnfoldTransposeNd.1d": (3, {}, 3, (6,), None),
    "UnfoldTransposeNd.1d.stride2.output_padding1": (3, {"stride": 2, "output_padding": 1}, 2, (5,), None),
    "UnfoldTransposeNd.2d": (2, {}, 3, (4, 4), None),
    "UnfoldTransposeNd.2d.stride2.padding1": (3, {"stride": 2, "padding": 1}, 2, (4, 4), None),
    "UnfoldTransposeNd.2d.dilation2": (2, {"dilation": 2}, 2, (4, 4), None),
    "UnfoldTransposeNd.2d.output_size": (3, {"stride": 2, "padding": 1}, 2, (4, 4), (8, 8)),
    "UnfoldTransposeNd.2d.output_size.with_channels": (3, {"stride": 2}, 2, (3, 3), (BATCH, 2, 8, 8)),
    "UnfoldTransposeNd.3d": (2, {}, 2, (3, 3, 3), None),
    "UnfoldTransposeNd.3d.stride2.output_size": (2, {"stride": 2}, 2, (3, 3, 3), (7, 7, 7)),
    "UnfoldTransposeNd.3d.tuple_hyperparameters": ((1, 2, 2), {"stride": (1, 2, 2), "padding": (0, 1, 0),
                                                                "output_padding": (0, 1, 1)}, 2, (3, 3, 3), None),
}
FUNCTIONS = ("unfoldNd", "unfoldNd.3d.stride2", "unfoldNd.1d.dilation3", "foldNd", "foldNd.3d.padding1",
             "foldNd.1d.stride3", "unfold_transposeNd", "unfold_transposeNd.3d.stride2.output_padding1",
             "unfold_fold.overlap_average.2d", "unfold_fold.overlap_average.3d")
NETS = ("UnfoldConv2d", "UnfoldConv3d.stride2", "PatchEmbed3d", "LocalAttention2d", "UnfoldTransposeConv2d",
        "PatchMLPFold2d", "UnfoldConv1d.dilation2")
TRAIN = ("train.UnfoldConv2d.adam", "train.PatchEmbed3d.adam", "train.LocalAttention2d.adam",
         "train.UnfoldTransposeConv2d.sgd", "train.PatchMLPFold2d.adam", "train.FoldNd.2d.sgd")


def names() -> list[str]:
    return [*UNFOLD, *FOLD, *TRANSPOSE, *FUNCTIONS, *NETS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _unfold_shape(channels: int, size: tuple[int, ...], kernel: Any, keywords: dict[str, Any]) -> tuple[int, ...]:
    """The shape ``unfoldNd`` gives for an input of ``size``: what ``FoldNd`` takes back."""
    import math

    n = len(size)

    def per_axis(value: Any) -> tuple[int, ...]:
        return tuple(value) if isinstance(value, tuple) else (value,) * n

    k, s, p, d = (per_axis(kernel), per_axis(keywords.get("stride", 1)), per_axis(keywords.get("padding", 0)),
                  per_axis(keywords.get("dilation", 1)))
    blocks = math.prod((size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(n))
    return BATCH, channels * math.prod(k), blocks


def _fold(name: str) -> Built:
    from unfoldNd import FoldNd

    output_size, kernel, keywords, channels = FOLD[name]
    return FoldNd(output_size, kernel, **keywords), (_randn(*_unfold_shape(channels, output_size, kernel,
                                                                           keywords)),), {}


def _transpose(name: str) -> Built:
    from unfoldNd import UnfoldTransposeNd

    kernel, keywords, channels, size, output_size = TRANSPOSE[name]
    kwargs = {} if output_size is None else {"output_size": output_size}
    return UnfoldTransposeNd(kernel, **keywords), (_randn(BATCH, channels, *size),), kwargs


def _function(name: str) -> Built:
    import torch

    import unfoldNd as u
    from gt_calls import Call, Run

    if name == "unfoldNd":
        return Call(u.unfoldNd, kernel_size=3, padding=1), (_randn(BATCH, 3, 5, 5),), {}
    if name == "unfoldNd.3d.stride2":
        return Call(u.unfoldNd, kernel_size=2, stride=2), (_randn(BATCH, 2, 4, 4, 4),), {}
    if name == "unfoldNd.1d.dilation3":
        return Call(u.unfoldNd, kernel_size=2, dilation=3), (_randn(BATCH, 3, 9),), {}
    if name == "foldNd":
        return Call(u.foldNd, output_size=(5, 5), kernel_size=3, padding=1), \
            (_randn(*_unfold_shape(3, (5, 5), 3, {"padding": 1})),), {}
    if name == "foldNd.3d.padding1":
        return Call(u.foldNd, output_size=(3, 3, 3), kernel_size=2, padding=1), \
            (_randn(*_unfold_shape(2, (3, 3, 3), 2, {"padding": 1})),), {}
    if name == "foldNd.1d.stride3":
        return Call(u.foldNd, output_size=(9,), kernel_size=3, stride=3), \
            (_randn(*_unfold_shape(3, (9,), 3, {"stride": 3})),), {}
    if name == "unfold_transposeNd":
        return Call(u.unfold_transposeNd, kernel_size=3), (_randn(BATCH, 3, 4, 4),), {}
    if name == "unfold_transposeNd.3d.stride2.output_padding1":
        return Call(u.unfold_transposeNd, kernel_size=2, stride=2, output_padding=1), (_randn(BATCH, 2, 3, 3, 3),), {}
    size = (6, 6) if name.endswith("2d") else (4, 4, 4)

    def overlap_average(owner: Any, x: torch.Tensor) -> torch.Tensor:
        """Patches of ``x`` folded back, divided by how many patches cover each element."""
        keywords = {"kernel_size": 3, "padding": 1}
        patches = u.unfoldNd(x, **keywords)
        summed = u.foldNd(patches, size, **keywords)
        counts = u.foldNd(u.unfoldNd(torch.ones_like(x), **keywords), size, **keywords)
        return summed / counts

    return Run(torch.nn.Identity(), overlap_average, [u.unfoldNd, u.foldNd]), (_randn(BATCH, 2, *size),), {}


def _net(kind: str) -> Any:
    import torch
    from torch import nn

    import unfoldNd as u

    class UnfoldConv(nn.Module):
        """A convolution as im2col and a matrix product (the KFAC-style layer view)."""

        def __init__(self, n: int, cin: int, cout: int, kernel: int, **keywords: Any) -> None:
            super().__init__()
            self.n, self.cout, self.kernel, self.keywords = n, cout, kernel, keywords
            self.unfold = u.UnfoldNd(kernel, **keywords)
            self.weight = nn.Parameter(torch.randn(cout, cin * kernel ** n) * 0.1)
            self.bias = nn.Parameter(torch.zeros(cout, 1))
            self.head = nn.Linear(cout, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            cols = self.unfold(x)
            out = self.weight @ cols + self.bias
            return self.head(out.mean(dim=-1))

    class PatchEmbed3d(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.unfold = u.UnfoldNd(2, stride=2)
            self.proj = nn.Linear(2 * 8, 8)
            self.head = nn.Linear(8, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            tokens = self.proj(self.unfold(x).transpose(1, 2))
            return self.head(tokens.mean(dim=1))

    class LocalAttention2d(nn.Module):
        """Each pixel attends over its 3 x 3 neighbourhood, gathered by ``unfoldNd``."""

        def __init__(self, channels: int = 4) -> None:
            super().__init__()
            self.qkv = nn.Conv2d(channels, 3 * channels, 1)
            self.out = nn.Conv2d(channels, channels, 1)
            self.channels = channels
            self.head = nn.Linear(channels, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, c, h, w = x.shape
            q, k, v = self.qkv(x).chunk(3, dim=1)
            k = u.unfoldNd(k, 3, padding=1).view(b, c, 9, h * w)
            v = u.unfoldNd(v, 3, padding=1).view(b, c, 9, h * w)
            attn = (q.reshape(b, c, 1, h * w) * k).sum(dim=1, keepdim=True).softmax(dim=2)
            out = (attn * v).sum(dim=2).view(b, c, h, w)
            return self.head(self.out(out).mean(dim=(2, 3)))

    class UnfoldTransposeConv2d(nn.Module):
        """A transposed convolution as unfold-transpose and a matrix product."""

        def __init__(self) -> None:
            super().__init__()
            self.unfold = u.UnfoldTransposeNd(3, stride=2, padding=1)
            self.weight = nn.Parameter(torch.randn(4, 2 * 9) * 0.1)
            self.head = nn.Linear(4, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            cols = self.unfold(x, output_size=(8, 8))
            return self.head((self.weight @ cols).mean(dim=-1))

    class PatchMLPFold2d(nn.Module):
        """Overlapping patches through an MLP, folded back to an image (an inpainting-style block)."""

        def __init__(self) -> None:
            super().__init__()
            self.mlp = nn.Sequential(nn.Linear(3 * 4, 16), nn.GELU(), nn.Linear(16, 3 * 4))
            self.unfold = u.UnfoldNd(2, stride=1)
            self.fold = u.FoldNd((5, 5), 2, stride=1)
            self.head = nn.Linear(3, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            patches = self.mlp(self.unfold(x).transpose(1, 2)).transpose(1, 2)
            image = self.fold(patches)
            return self.head(image.mean(dim=(2, 3)))

    if kind == "UnfoldConv2d":
        return UnfoldConv(2, 3, 4, 3, padding=1)
    if kind == "UnfoldConv3d.stride2":
        return UnfoldConv(3, 2, 4, 2, stride=2)
    if kind == "UnfoldConv1d.dilation2":
        return UnfoldConv(1, 3, 4, 3, dilation=2)
    if kind == "PatchEmbed3d":
        return PatchEmbed3d()
    if kind == "LocalAttention2d":
        return LocalAttention2d()
    if kind == "UnfoldTransposeConv2d":
        return UnfoldTransposeConv2d()
    return PatchMLPFold2d()


def _net_input(kind: str) -> Any:
    if kind in ("UnfoldConv3d.stride2", "PatchEmbed3d"):
        return _randn(BATCH, 2, 4, 4, 4)
    if kind == "UnfoldConv1d.dilation2":
        return _randn(BATCH, 3, 9)
    if kind == "LocalAttention2d":
        return _randn(BATCH, 4, 5, 5)
    if kind == "UnfoldTransposeConv2d":
        return _randn(BATCH, 2, 4, 4)
    return _randn(BATCH, 3, 5, 5) if kind != "PatchMLPFold2d" else _randn(BATCH, 3, 5, 5)


def _entries(model: Any) -> list[Any]:
    import unfoldNd as u

    found = [type(m) for m in model.modules() if type(m).__module__.startswith("unfoldNd")]
    return list(dict.fromkeys(found)) or [u.unfoldNd]


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from unfoldNd import FoldNd

    kind = name.split(".", 1)[1].rsplit(".", 1)[0]
    if kind == "FoldNd.2d":
        class FoldHead(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.proj = torch.nn.Linear(8, 3 * 4)
                self.fold = FoldNd((6, 6), 2, stride=2)
                self.head = torch.nn.Linear(3, 5)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.head(self.fold(self.proj(x).transpose(1, 2)).mean(dim=(2, 3)))

        model: Any = FoldHead()
        x = _randn(BATCH, 9, 8)
    else:
        model, x = _net(kind), _net_input(kind)
    target = _randn(BATCH, 5, seed=7)
    params = list(model.parameters())
    optimizer: Any = torch.optim.SGD(params, lr=0.1) if name.endswith("sgd") else torch.optim.Adam(params, lr=1e-3)

    def step(owner: Any, t: torch.Tensor) -> torch.Tensor:
        """The regression loss, its gradients and an optimizer step."""
        loss = F.mse_loss(owner(t), target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, _entries(model)), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in UNFOLD:
        from unfoldNd import UnfoldNd

        kernel, keywords, channels, size = UNFOLD[name]
        return UnfoldNd(kernel, **keywords), (_randn(BATCH, channels, *size),), {}
    if name in FOLD:
        return _fold(name)
    if name in TRANSPOSE:
        return _transpose(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in NETS:
        from gt_calls import Run

        model = _net(name)
        return Run(model, lambda owner, t: owner(t), _entries(model)), (_net_input(name),), {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
