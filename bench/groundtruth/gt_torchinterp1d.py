"""Ground-truth bench, torchinterp1d: linear 1-D interpolation in PyTorch, batched over rows.

torchinterp1d has one function, ``interp1d(x, y, xnew, out=None)`` (``Interp1d.apply``, a
``torch.autograd.Function`` whose forward builds the interpolation under ``enable_grad`` when an input
requires a gradient and whose backward differentiates that graph again). ``x``, ``y`` and ``xnew`` are
each 1-D ``(N,)`` / ``(P,)`` or 2-D ``(D, N)`` / ``(D, P)``: a flat ``x`` or ``y`` is shared by every
row, a flat ``xnew`` is expanded to every row, and a 2-D ``xnew`` with flat ``x`` and ``y`` is stacked
into one row and reshaped back; ``out`` is used when it holds ``D * P`` elements and replaced otherwise;
queries outside ``x``'s range are extrapolated from the first or last segment. Each model is one of:

- ``SHAPES``: a bench module calling ``interp1d`` (or ``Interp1d.apply``) on every combination of flat
  and batched ``x``, ``y`` and ``xnew`` that the function accepts, queries inside and outside the range
  (extrapolation), one query point, float64 inputs, with ``out`` of the right size (given flat or 2-D)
  and of the wrong size, and with ``x``, ``y`` or ``xnew`` (or all three) held as parameters, so that the
  gradient-tracking branch runs;
- ``TRAIN``: training steps of a small linear network with ``interp1d`` on its data path (under
  ``enable_grad``: the interpolation, a mean squared error, ``backward()`` and an SGD step): signals
  resampled at query points as the network's inputs (batched, flat knots, a flat query grid, an ``out``
  buffer, extrapolated queries), and an interpolated curve as the target of the network's prediction.

Left out because they fail eagerly on torch 2.13: a backward pass through ``Interp1d`` itself (its
``backward`` differentiates the saved output, which is now the function's own output, so it recurses;
with flat inputs the saved views are not connected to the graph). The ``SHAPES`` models with parameters
still run the forward's gradient-tracking branch.

Tiny sizes (2 rows, 6 knots, 5 queries), random data, nothing downloaded. ``names()`` needs no torch;
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
D, N, P = 2, 6, 5

# Model name -> keywords: the shapes of x, y, xnew ("1" flat, "2" batched), "extrap" (queries outside the
# knots), "p1" (one query), "f64", "out" ("flat" / "2d": the right size, "wrong": a wrong size), "params"
# (which of x, y, xnew are parameters), "apply" (``Interp1d.apply`` instead of ``interp1d``).
SHAPES: dict[str, dict[str, Any]] = {
    "interp1d.flat": {"shapes": "111"},
    "interp1d.flat.extrap": {"shapes": "111", "extrap": True},
    "interp1d.flat.one_query": {"shapes": "111", "p1": True},
    "interp1d.flat.float64": {"shapes": "111", "f64": True},
    "interp1d.flat_x_y.batched_xnew": {"shapes": "112"},
    "interp1d.flat_x_y.batched_xnew.extrap": {"shapes": "112", "extrap": True},
    "interp1d.flat_x.batched_y": {"shapes": "122"},
    "interp1d.batched_x.flat_y": {"shapes": "212"},
    "interp1d.batched": {"shapes": "222"},
    "interp1d.batched.extrap": {"shapes": "222", "extrap": True},
    "interp1d.batched.float64": {"shapes": "222", "f64": True},
    "interp1d.batched.flat_xnew": {"shapes": "221"},
    "interp1d.batched_x.flat_y.flat_xnew": {"shapes": "211"},
    "Interp1d.apply.batched": {"shapes": "222", "apply": True},
    "Interp1d.apply.flat": {"shapes": "111", "apply": True},
    "interp1d.flat.out": {"shapes": "111", "out": "flat"},
    "interp1d.batched.out": {"shapes": "222", "out": "2d"},
    "interp1d.batched.out_flat": {"shapes": "222", "out": "flat"},
    "interp1d.flat_x_y.batched_xnew.out": {"shapes": "112", "out": "2d"},
    "interp1d.batched.out_wrong_size": {"shapes": "222", "out": "wrong"},
    "interp1d.flat.out_wrong_size": {"shapes": "111", "out": "wrong"},
    "interp1d.flat.grad_y": {"shapes": "111", "params": "y"},
    "interp1d.flat.grad_x": {"shapes": "111", "params": "x"},
    "interp1d.flat.grad_xnew": {"shapes": "111", "params": "xnew"},
    "interp1d.batched.grad_y": {"shapes": "222", "params": "y"},
    "interp1d.batched.grad_all": {"shapes": "222", "params": "x,y,xnew"},
    "interp1d.batched.grad_all.out": {"shapes": "222", "params": "x,y,xnew", "out": "2d"},
    "interp1d.flat_x_y.batched_xnew.grad_y": {"shapes": "112", "params": "y"},
    "interp1d.flat_x.batched_y.grad_x.extrap": {"shapes": "122", "params": "x", "extrap": True},
}
# Training step name -> keywords: "shapes", "use" ("inputs": the interpolated signals feed the network;
# "target": the interpolated curve is the target of the network's prediction), "out", "extrap".
TRAIN: dict[str, dict[str, Any]] = {
    "train.resample_inputs.batched": {"shapes": "222", "use": "inputs"},
    "train.resample_inputs.flat_x": {"shapes": "122", "use": "inputs"},
    "train.resample_inputs.flat_grid": {"shapes": "221", "use": "inputs"},
    "train.resample_inputs.out": {"shapes": "222", "use": "inputs", "out": True},
    "train.resample_inputs.extrap": {"shapes": "222", "use": "inputs", "extrap": True},
    "train.interp_target.flat": {"shapes": "111", "use": "target"},
    "train.interp_target.flat_x_y.batched_xnew": {"shapes": "112", "use": "target", "extrap": True},
}


def names() -> list[str]:
    return list(SHAPES) + list(TRAIN)


def _tensors(shapes: str, extrap: bool = False, p1: bool = False, f64: bool = False) -> dict[str, Any]:
    """Sorted knots ``x``, values ``y`` and queries ``xnew`` of the given ranks (``shapes``: x, y, xnew)."""
    import torch

    gen = torch.Generator().manual_seed(3)
    dtype = torch.float64 if f64 else torch.float32
    knots = torch.sort(torch.rand(D, N, generator=gen, dtype=dtype), dim=-1).values
    knots = knots * 2.0 + torch.arange(D, dtype=dtype)[:, None] * 0.1
    values = torch.randn(D, N, generator=gen, dtype=dtype)
    p = 1 if p1 else P
    low, high = (-0.5, 2.8) if extrap else (0.3, 1.6)
    queries = low + (high - low) * torch.rand(D, p, generator=gen, dtype=dtype)
    return {
        "x": knots[0] if shapes[0] == "1" else knots,
        "y": values[0] if shapes[1] == "1" else values,
        "xnew": queries[0] if shapes[2] == "1" else queries,
    }


def _out_shape(tensors: dict[str, Any]) -> tuple[int, ...]:
    rows = max(t.shape[0] if t.dim() == 2 else 1 for t in tensors.values())
    return (rows, tensors["xnew"].shape[-1])


def _interp_module(params: dict[str, Any], order: list[str], apply: bool) -> Any:
    import torch
    from torch import nn
    from torchinterp1d import Interp1d, interp1d

    class Interp(nn.Module):
        """``interp1d(x, y, xnew, out)`` with some of x, y, xnew held as parameters, the others (and
        ``out``) given as inputs."""

        def __init__(self) -> None:
            super().__init__()
            self.fixed = nn.ParameterDict({k: nn.Parameter(v.clone()) for k, v in params.items()})

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            given = dict(zip(order, inputs))
            tensors = {k: self.fixed[k] if k in self.fixed else given[k] for k in ("x", "y", "xnew")}
            out = given.get("out")
            function = Interp1d.apply if apply else interp1d
            if out is None:
                return function(tensors["x"], tensors["y"], tensors["xnew"])
            return function(tensors["x"], tensors["y"], tensors["xnew"], out)

        def entry_points(self) -> list[Any]:
            return [Interp1d]

    return Interp()


def _shapes(name: str) -> Built:
    import torch

    spec = SHAPES[name]
    tensors = _tensors(spec["shapes"], spec.get("extrap", False), spec.get("p1", False), spec.get("f64", False))
    learned = [k for k in spec.get("params", "").split(",") if k]
    order = [k for k in ("x", "y", "xnew") if k not in learned]
    inputs = [tensors[k] for k in order]
    out = spec.get("out")
    if out is not None:
        rows, cols = _out_shape(tensors)
        buffer = {"flat": torch.zeros(rows * cols), "2d": torch.zeros(rows, cols), "wrong": torch.zeros(rows * cols + 1)}
        inputs.append(buffer[out])
        order.append("out")
    module = _interp_module({k: tensors[k] for k in learned}, order, spec.get("apply", False))
    return module, tuple(inputs), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn
    from torchinterp1d import Interp1d, interp1d

    spec = TRAIN[name]
    tensors = _tensors(spec["shapes"], spec.get("extrap", False))
    rows, cols = _out_shape(tensors)
    use, use_out = spec["use"], spec.get("out", False)

    class TrainStep(nn.Module):
        """One training step of a small network with ``interp1d`` on its data path (under ``enable_grad``):
        the signals resampled at the query points feed a linear layer, or the interpolated curve is the
        target of a linear layer's prediction; mean squared error, ``backward()``, SGD step; returns the loss."""

        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Linear(cols, 1) if use == "inputs" else nn.Linear(4, rows * cols)
            self.optimizer = torch.optim.SGD(self.parameters(), lr=0.05)

        def forward(self, x: torch.Tensor, y: torch.Tensor, xnew: torch.Tensor, labels: torch.Tensor,
                    features: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                self.optimizer.zero_grad()
                if use_out:
                    resampled = interp1d(x, y, xnew, torch.zeros(rows, cols))
                else:
                    resampled = interp1d(x, y, xnew)
                if use == "inputs":
                    loss = (self.net(resampled.reshape(-1, cols)).squeeze(-1) - labels).square().mean()
                else:
                    loss = (self.net(features).view_as(resampled) - resampled).square().mean()
                loss.backward()
                self.optimizer.step()
                return loss.detach()

        def entry_points(self) -> list[Any]:
            return [Interp1d]

    gen = torch.Generator().manual_seed(5)
    features, labels = torch.randn(4, generator=gen), torch.randn(rows, generator=gen)
    return TrainStep(), (tensors["x"], tensors["y"], tensors["xnew"], labels, features), {}


def build(name: str) -> Built:
    if name in SHAPES:
        return _shapes(name)
    return _train(name)
