"""Ground-truth bench, frame_averaging_pytorch: frame averaging (Puny et al. 2021) around a network of points.

frame-averaging-pytorch 0.1.2 exports ``FrameAverage``: it centres a point cloud (a masked centroid when
``frame_average_mask`` is given), takes the eigenvectors of its covariance (``torch.linalg.eigh``), builds the
``2 ** dim`` sign-flipped frames, runs the wrapped network on every framed copy merged into the batch (the other
tensor arguments and keywords repeated per frame by a pytree map) and averages the outputs back, rotated into the
original frame unless ``invariant_output``. ``stochastic`` draws one frame at random (``random.randrange``);
``return_framed_inputs_and_averaging_function`` (or no network) hands back the framed points and the averaging
function, and ``return_stochastic_as_augmented_pos`` the one framed copy. The tables cover, at 6 points in 3-d (2-d
and 4-d too), a batch of 2, small bench networks (a per-point MLP, a pooled invariant head, a network with extra
features, a mask keyword and several outputs):

- ``WRAPPED``: ``FrameAverage`` around a network: equivariant and invariant outputs, a padding mask, stochastic
  frames (equivariant, invariant, masked), 2-d and 4-d points, extra tensor arguments and keywords repeated per
  frame, tuple and dict outputs, a non-tensor argument, a batch of one;
- ``EXTERNAL``: the framed inputs and averaging function used by hand (no network, or the return flag),
  stochastic augmentation of positions, the frames alone;
- ``TRAIN``: training steps: a loss backward through the frame-averaged network with an Adam step (equivariant
  and masked, invariant, stochastic).

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, POINTS, FEATS, HIDDEN = 2, 6, 4, 16
# Model name -> (``FrameAverage`` keywords, the network: "points", "pooled", "features", "tuple", "dict", "scaled",
# inputs: any of "mask" (a frame-average mask), "feats" (an extra argument), "net_mask" (a keyword), batch).
WRAPPED: dict[str, tuple[dict[str, Any], str, tuple[str, ...], int]] = {
    "FrameAverage": ({}, "points", (), BATCH),
    "FrameAverage.mask": ({}, "points", ("mask",), BATCH),
    "FrameAverage.invariant_output": ({"invariant_output": True}, "pooled", (), BATCH),
    "FrameAverage.invariant_output.mask": ({"invariant_output": True}, "pooled", ("mask",), BATCH),
    "FrameAverage.stochastic": ({"stochastic": True}, "points", (), BATCH),
    "FrameAverage.stochastic.invariant_output": ({"stochastic": True, "invariant_output": True}, "pooled", (), BATCH),
    "FrameAverage.stochastic.mask.features": ({"stochastic": True}, "features", ("mask", "feats", "net_mask"), BATCH),
    "FrameAverage.dim2": ({"dim": 2}, "points", (), BATCH),
    "FrameAverage.dim4.mask": ({"dim": 4}, "points", ("mask",), BATCH),
    "FrameAverage.dim2.invariant_output": ({"dim": 2, "invariant_output": True}, "pooled", (), BATCH),
    "FrameAverage.features": ({}, "features", ("feats",), BATCH),
    "FrameAverage.features.net_mask": ({}, "features", ("feats", "net_mask"), BATCH),
    "FrameAverage.features.mask.net_mask": ({}, "features", ("mask", "feats", "net_mask"), BATCH),
    "FrameAverage.tuple_outputs": ({}, "tuple", ("feats",), BATCH),
    "FrameAverage.dict_outputs.invariant_output": ({"invariant_output": True}, "dict", ("feats",), BATCH),
    "FrameAverage.non_tensor_argument": ({}, "scaled", (), BATCH),
    "FrameAverage.batch1": ({}, "points", (), 1),
}
EXTERNAL = ("FrameAverage.no_net", "FrameAverage.no_net.mask", "FrameAverage.return_framed_inputs",
            "FrameAverage.return_framed_inputs.invariant_output", "FrameAverage.no_net.stochastic",
            "FrameAverage.stochastic.augmented_pos", "FrameAverage.frames_only")
TRAIN = ("train.FrameAverage.mask.adam", "train.FrameAverage.invariant_output.adam",
         "train.FrameAverage.stochastic.adam")


def names() -> list[str]:
    return [*WRAPPED, *EXTERNAL, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(batch: int = BATCH) -> Any:
    import torch

    mask = torch.ones(batch, POINTS, dtype=torch.bool)
    mask[-1, -2:] = False
    return mask


def _network(kind: str, dim: int) -> Any:
    import torch
    from torch import nn

    class PointMLP(nn.Module):
        """A per-point MLP from coordinates to coordinates (equivariant after averaging)."""

        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(dim, HIDDEN), nn.SiLU(), nn.Linear(HIDDEN, dim))

        def forward(self, points: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
            return self.net(points) * scale

    class Pooled(nn.Module):
        """An invariant head: a per-point MLP mean-pooled over points into a few values."""

        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(dim, HIDDEN), nn.SiLU(), nn.Linear(HIDDEN, 3))

        def forward(self, points: torch.Tensor) -> torch.Tensor:
            return self.net(points).mean(dim=1)

    class WithFeatures(nn.Module):
        """Coordinates and per-point features mixed, with an optional mask keyword; outputs by ``kind``."""

        def __init__(self) -> None:
            super().__init__()
            self.mix = nn.Sequential(nn.Linear(dim + FEATS, HIDDEN), nn.SiLU())
            self.to_points = nn.Linear(HIDDEN, dim)
            self.to_feats = nn.Linear(HIDDEN, FEATS)

        def forward(self, points: torch.Tensor, feats: torch.Tensor, mask: torch.Tensor | None = None) -> Any:
            hidden = self.mix(torch.cat((points, feats), dim=-1))
            if mask is not None:
                hidden = hidden * mask.unsqueeze(-1)
            if kind == "tuple":
                moved = self.to_points(hidden)
                return moved, moved.mean(dim=1, keepdim=True)
            if kind == "dict":
                return {"feats": self.to_feats(hidden), "pooled": hidden.mean(dim=1)}
            return self.to_points(hidden)

    if kind in ("points", "scaled"):
        return PointMLP()
    if kind == "pooled":
        return Pooled()
    return WithFeatures()


def _wrapped(name: str) -> Built:
    from frame_averaging_pytorch import FrameAverage

    keywords, kind, inputs, batch = WRAPPED[name]
    dim = keywords.get("dim", 3)
    model = FrameAverage(_network(kind, dim), **keywords)
    args: tuple[Any, ...] = (_randn(batch, POINTS, dim),)
    kwargs: dict[str, Any] = {}
    if "mask" in inputs:
        kwargs["frame_average_mask"] = _mask(batch)
    if "feats" in inputs:
        args = (*args, _randn(batch, POINTS, FEATS, seed=2))
    if "net_mask" in inputs:
        kwargs["mask"] = _mask(batch).float()
    if kind == "scaled":
        args = (*args, 0.5)
    return model, args, kwargs


def _external(name: str) -> Built:
    from frame_averaging_pytorch import FrameAverage

    from gt_calls import Keywords, Run

    points = _randn(BATCH, POINTS, 3)
    if name == "FrameAverage.stochastic.augmented_pos":
        return FrameAverage(stochastic=True, return_stochastic_as_augmented_pos=True), (points,), {}
    if name == "FrameAverage.frames_only":
        return Run(FrameAverage(), lambda owner, x: owner(x)[0], [FrameAverage]), (points,), {}
    invariant = name.endswith("invariant_output")
    stochastic = name.endswith("stochastic")
    net = _network("pooled" if invariant else "points", 3)
    wrapper = FrameAverage(net if "return_framed" in name else None, invariant_output=invariant,
                           stochastic=stochastic)
    kwargs: dict[str, Any] = {}
    if "return_framed" in name:
        kwargs["return_framed_inputs_and_averaging_function"] = True
    if name.endswith("mask"):
        kwargs["frame_average_mask"] = _mask()

    def by_hand(owner: Any, x: Any) -> Any:
        """The framed inputs through a network of one's own, then the returned averaging function."""
        framed, frame_average = owner[0](x, **kwargs)
        if stochastic:
            return frame_average(owner[1](framed))
        batch, frames = framed.shape[:2]
        out = owner[1](framed.flatten(0, 1))
        return frame_average(out.reshape(batch, frames, *out.shape[1:]))

    from torch import nn

    return Run(nn.ModuleList([wrapper, net]), by_hand, [FrameAverage]), (points,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from frame_averaging_pytorch import FrameAverage

    from gt_calls import Run

    invariant = "invariant_output" in name
    stochastic = "stochastic" in name
    model = FrameAverage(_network("pooled" if invariant else "points", 3), invariant_output=invariant,
                         stochastic=stochastic)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    kwargs: dict[str, Any] = {"frame_average_mask": _mask()} if name.endswith("mask.adam") else {}
    target = _randn(BATCH, 3, seed=4) if invariant else _randn(BATCH, POINTS, 3, seed=4)

    def step(owner: Any, points: torch.Tensor) -> torch.Tensor:
        """The regression loss of the frame-averaged output, its gradients and an Adam step."""
        loss = F.mse_loss(owner(points, **kwargs), target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, [FrameAverage]), (_randn(BATCH, POINTS, 3),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in WRAPPED:
        return _wrapped(name)
    if name in EXTERNAL:
        return _external(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
