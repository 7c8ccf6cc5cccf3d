"""Ground-truth bench, sparsemax: the ``Sparsemax`` module over different dimensions, in layers and train steps.

sparsemax's ``Sparsemax(dim)`` applies ``SparsemaxFunction``, a custom autograd function: it checks the
dimension, moves it last and flattens the others when the input has more than two dimensions
(``flatten_all_but_nth_dim``), sorts, finds the support size with a cumulative sum, thresholds, and
restores the shape; its backward spreads the gradient over the support. So the tables cover, at batch 2:

- ``MODULES``: ``Sparsemax`` over the last dimension of 2-D, 3-D and 4-D inputs, over a middle and the
  first dimension, over channels of an image, on float64 inputs, and ``SparsemaxFunction.apply`` called
  directly;
- ``LAYERS``: sparsemax in place of softmax where users put it: a classifier head, attention weights over
  keys, a gating of experts;
- ``TRAIN``: steps with a backward pass through the custom function: ``torch.autograd.grad`` of a
  weighted output (2-D and 4-D, another dimension), and an SGD step of a linear layer under a sparsemax
  loss, on 2-D and 3-D inputs.

Random inputs and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2

# Model name -> (``dim``, input shape, dtype name).
MODULES: dict[str, tuple[int, tuple[int, ...], str]] = {
    "Sparsemax": (-1, (BATCH, 10), "float32"),
    "Sparsemax.dim1.2d": (1, (BATCH, 10), "float32"),
    "Sparsemax.dim0.2d": (0, (BATCH, 10), "float32"),
    "Sparsemax.3d": (-1, (BATCH, 4, 10), "float32"),
    "Sparsemax.3d.dim1": (1, (BATCH, 6, 5), "float32"),
    "Sparsemax.4d.dim_minus2": (-2, (BATCH, 2, 6, 5), "float32"),
    "Sparsemax.image.channels": (1, (BATCH, 8, 4, 4), "float32"),
    "Sparsemax.float64": (-1, (BATCH, 3, 7), "float64"),
    "SparsemaxFunction.apply": (-1, (BATCH, 3, 9), "float32"),
}
LAYERS = ("classifier", "attention", "gating")
# Train model name -> (what, ``dim``, input shape).
TRAIN: dict[str, tuple[str, int, tuple[int, ...]]] = {
    "train_step.autograd_grad": ("grad", -1, (BATCH, 10)),
    "train_step.autograd_grad.4d.dim1": ("grad", 1, (BATCH, 5, 3, 3)),
    "train_step.sgd": ("sgd", -1, (BATCH, 10)),
    "train_step.sgd.3d": ("sgd", -1, (BATCH, 4, 10)),
}


def names() -> list[str]:
    return list(MODULES) + list(LAYERS) + list(TRAIN)


def _input(shape: tuple[int, ...], dtype: str = "float32", seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=getattr(torch, dtype))


def _modules(name: str) -> Built:
    from sparsemax import Sparsemax
    from sparsemax.sparsemax import SparsemaxFunction

    from gt_calls import Call

    dim, shape, dtype = MODULES[name]
    if name == "SparsemaxFunction.apply":
        return Call(SparsemaxFunction.apply), (_input(shape), dim), {}
    return Sparsemax(dim=dim), (_input(shape, dtype),), {}


def _layers(name: str) -> Built:
    import torch
    from sparsemax import Sparsemax
    from torch import nn

    if name == "classifier":
        return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 6), Sparsemax(dim=-1)), \
            (_input((BATCH, 12)),), {}
    if name == "attention":
        class _SparseAttention(nn.Module):
            """Scaled dot-product attention whose weights over keys are a sparsemax."""

            def __init__(self, width: int = 16, heads: int = 2) -> None:
                super().__init__()
                self.heads = heads
                self.qkv = nn.Linear(width, 3 * width)
                self.out = nn.Linear(width, width)
                self.sparsemax = Sparsemax(dim=-1)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                b, n, w = x.shape
                q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
                weights = self.sparsemax(q @ k.transpose(-1, -2) / (w // self.heads) ** 0.5)
                return self.out((weights @ v).transpose(1, 2).reshape(b, n, w))

            def entry_points(self) -> list[Any]:
                return [Sparsemax]

        return _SparseAttention(), (_input((BATCH, 5, 16)),), {}

    class _Gating(nn.Module):
        """A mixture of experts whose gate over the expert axis (dim 1 of the stacked outputs) is sparse."""

        def __init__(self, width: int = 8, experts: int = 4) -> None:
            super().__init__()
            self.gate = nn.Linear(width, experts)
            self.experts = nn.ModuleList(nn.Linear(width, width) for _ in range(experts))
            self.sparsemax = Sparsemax(dim=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            gates = self.sparsemax(self.gate(x).unsqueeze(-1))
            outputs = torch.stack([expert(x) for expert in self.experts], dim=1)
            return (gates * outputs).sum(1)

        def entry_points(self) -> list[Any]:
            return [Sparsemax]

    return _Gating(), (_input((BATCH, 8)),), {}


def _train(name: str) -> Built:
    import torch
    from sparsemax import Sparsemax
    from torch import nn

    from gt_calls import OptimizerStep, Run

    what, dim, shape = TRAIN[name]
    sparsemax = Sparsemax(dim=dim)
    if what == "grad":
        def gradient(owner: Any, x: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
            """The gradient of a weighted sparsemax output with respect to its input (the custom backward)."""
            with torch.enable_grad():
                x = x.detach().requires_grad_()
                (grad,) = torch.autograd.grad((owner(x) * weights).sum(), x)
            return grad

        return Run(sparsemax, gradient, [Sparsemax]), (_input(shape), _input(shape, seed=2)), {}
    net = nn.Linear(shape[-1], shape[-1])
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    target = torch.softmax(_input(shape, seed=3), dim=-1)

    def loss(x: torch.Tensor) -> torch.Tensor:
        """Squared error of sparse probabilities against a target distribution."""
        return ((sparsemax(net(x)) - target) ** 2).sum()

    class _SparsemaxStep(OptimizerStep):
        def entry_points(self) -> list[Any]:
            return [Sparsemax, type(optimizer).step]

    return _SparsemaxStep(net, optimizer, loss), (_input(shape),), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in MODULES:
        return _modules(name)
    if name in LAYERS:
        return _layers(name)
    return _train(name)
