"""Ground-truth bench, hoptorch: a guarded wrapper around PyTorch's ``scan`` higher-order operator.

hoptorch 0.1.4 (used by torchrl for its recurrent value estimators) exposes ``scan(fn, init, xs, dim=..., **kwargs)``,
which forwards to ``torch._higher_order_ops.scan.scan`` once it has checked that scan's backward is healthy on the
device of the inputs: the check (``ensure_scan_backward``) runs a small regression probe in eager mode (behind
``torch.compiler.disable``), installs a monkey patch of scan's autograd when the probe fails (``patch_scan_backward``),
caches the verdict per device type and flips Dynamo's ``capture_scalar_outputs``; ``scan_unavailable_reason`` and
``ensure_scan_backward`` are ``assume_constant_result`` functions, so under compilation their cached verdict is read
rather than recomputed. ``has_scan`` tells whether the operator exists. The device is found by walking the pytrees
of the inputs (``_first_tensor_device``). The tables cover, at a batch of 2, sequences of 5, width 4:

- ``SCANS``: ``scan`` in a forward with combine functions users write: a running sum, an exponential moving
  average, a tanh RNN cell closing over a module's weights, a gated linear recurrence, an LSTM-like cell with a
  tuple carry, a dict carry, tuple and dict ``xs``, several outputs per step, a discounted return (torchrl's
  use: rewards scanned in reverse), each with ``dim`` and ``reverse``, after the health check was run eagerly at
  construction (as torchrl does); one (``scan.cumsum.cold``) compiles ``scan`` with no check run before, and
  hoptorch then raises its documented ``RuntimeError`` under compilation (an error model, kept on purpose: the
  eager call checks and passes);
- ``HELPERS``: the checks called inside a forward: ``has_scan``, ``ensure_scan_backward`` (default device and a
  given one), ``scan_unavailable_reason`` (with a device string, a ``torch.device`` and ``"meta"``),
  ``patch_scan_backward``, and a torchrl-style choice between ``scan`` and a Python loop; the ``.cold`` ones run
  with no eager check before compilation, so the lookups and the cache misses are traced;
- ``TRAIN``: training steps (backward through the scan, an Adam step) of an RNN, a gated recurrence and a
  discounted-return value loss.

The 2.7 backport (``_scan_backport_27``) and the older-autograd patch are selected by the installed torch version
and are not reached under torch 2.13, so no model drives them. Random inputs and weights from fixed generators,
nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM = 2, 5, 4

# Scan model name -> (combine kind, scan keywords, "ensured" | "cold").
SCANS: dict[str, tuple[str, dict[str, Any], str]] = {
    "scan.cumsum": ("cumsum", {}, "ensured"),
    "scan.cumsum.cold": ("cumsum", {}, "cold"),
    "scan.cumsum.dim1": ("cumsum", {"dim": 1}, "ensured"),
    "scan.cumsum.reverse": ("cumsum", {"reverse": True}, "ensured"),
    "scan.ema": ("ema", {}, "ensured"),
    "scan.ema.dim1": ("ema", {"dim": 1}, "ensured"),
    "scan.rnn": ("rnn", {}, "ensured"),
    "scan.rnn.reverse": ("rnn", {"reverse": True}, "ensured"),
    "scan.gated": ("gated", {}, "ensured"),
    "scan.gated.dim1": ("gated", {"dim": 1}, "ensured"),
    "scan.lstm_tuple_carry": ("lstm", {}, "ensured"),
    "scan.dict_carry": ("dict_carry", {}, "ensured"),
    "scan.tuple_xs": ("tuple_xs", {}, "ensured"),
    "scan.dict_xs": ("dict_xs", {}, "ensured"),
    "scan.multi_out": ("multi_out", {}, "ensured"),
    "scan.discounted_return": ("discount", {"reverse": True}, "ensured"),
}

# Helper model name -> helper call.
HELPERS: dict[str, str] = {
    "helper.has_scan": "has_scan",
    "helper.has_scan.cold": "has_scan_cold",
    "helper.ensure_scan_backward": "ensure",
    "helper.ensure_scan_backward.device": "ensure_device",
    "helper.ensure_scan_backward.cold": "ensure_cold",
    "helper.scan_unavailable_reason": "reason",
    "helper.scan_unavailable_reason.torch_device": "reason_device",
    "helper.scan_unavailable_reason.meta": "reason_meta",
    "helper.scan_unavailable_reason.cold": "reason_cold",
    "helper.patch_scan_backward": "patch",
    "helper.guarded_fallback": "fallback",
}

TRAIN: dict[str, str] = {
    "train.rnn": "rnn",
    "train.gated": "gated",
    "train.discounted_value": "discount",
}


def names() -> list[str]:
    return [*SCANS, *HELPERS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def _ensure() -> None:
    from hoptorch.scan import ensure_scan_backward

    ensure_scan_backward("cpu")


class _Cell:
    """Builds the combine functions; parameters live on the owning module."""

    @staticmethod
    def make(owner: Any, kind: str) -> Any:
        import torch
        from torch import nn

        if kind in {"rnn", "lstm", "dict_carry", "tuple_xs", "dict_xs", "multi_out"}:
            owner.w_x = nn.Linear(DIM, DIM)
            owner.w_h = nn.Linear(DIM, DIM, bias=False)
        if kind == "gated":
            owner.to_gate = nn.Linear(DIM, DIM)
            owner.to_value = nn.Linear(DIM, DIM)

        if kind == "cumsum":
            def fn(carry, x):
                nxt = carry + x
                return nxt, nxt.clone()
        elif kind == "ema":
            def fn(carry, x):
                nxt = 0.9 * carry + 0.1 * x
                return nxt, nxt.clone()
        elif kind == "rnn":
            def fn(carry, x):
                h = torch.tanh(owner.w_x(x) + owner.w_h(carry))
                return h, h.clone()
        elif kind == "gated":
            def fn(carry, x):
                gate = torch.sigmoid(owner.to_gate(x))
                h = gate * carry + (1 - gate) * owner.to_value(x)
                return h, h * 2.0
        elif kind == "lstm":
            def fn(carry, x):
                h, c = carry
                z = owner.w_x(x) + owner.w_h(h)
                c = torch.sigmoid(z) * c + torch.tanh(z)
                h = torch.tanh(c)
                return (h, c), h.clone()
        elif kind == "dict_carry":
            def fn(carry, x):
                h = torch.tanh(owner.w_x(x) + owner.w_h(carry["h"]))
                return {"h": h, "n": carry["n"] + 1.0}, h.clone()
        elif kind == "tuple_xs":
            def fn(carry, x):
                a, b = x
                h = torch.tanh(owner.w_x(a) * b + owner.w_h(carry))
                return h, h.clone()
        elif kind == "dict_xs":
            def fn(carry, x):
                h = torch.tanh(owner.w_x(x["obs"]) + x["bias"] + owner.w_h(carry))
                return h, h.clone()
        elif kind == "multi_out":
            def fn(carry, x):
                h = torch.tanh(owner.w_x(x) + owner.w_h(carry))
                return h, (h.clone(), h.sum(-1), carry - h)
        elif kind == "discount":
            def fn(carry, x):
                reward, not_done = x
                ret = reward + 0.99 * not_done * carry
                return ret, ret.clone()
        else:
            raise KeyError(kind)
        return fn


def _inputs(kind: str, dim: int) -> tuple[Any, Any]:
    """(init, xs) with the scanned axis at ``dim`` (0: time-major, 1: batch-major)."""
    import torch

    def seq(seed: int, width: int | None = DIM) -> Any:
        shape = (SEQ, BATCH) if dim == 0 else (BATCH, SEQ)
        return _randn(*shape, *(() if width is None else (width,)), seed=seed)

    h0 = torch.zeros(BATCH, DIM)
    if kind == "lstm":
        return (h0, torch.zeros(BATCH, DIM)), seq(3)
    if kind == "dict_carry":
        return {"h": h0, "n": torch.zeros(BATCH, 1)}, seq(3)
    if kind == "tuple_xs":
        return h0, (seq(3), seq(4))
    if kind == "dict_xs":
        return h0, {"obs": seq(3), "bias": seq(4)}
    if kind == "discount":
        rewards = seq(5, None)
        not_done = (seq(6, None) > -1.0).float()
        return torch.zeros(BATCH), (rewards, not_done)
    return h0, seq(3)


def _scan(name: str) -> Built:
    import torch
    from torch import nn

    kind, kwargs, pre = SCANS[name]
    if pre == "ensured":
        _ensure()

    class ScanModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fn = _Cell.make(self, kind)

        def forward(self, init: Any, xs: Any) -> Any:
            from hoptorch import scan

            carry, ys = scan(self.fn, init, xs, **kwargs)
            leaves = [t for t in torch.utils._pytree.tree_leaves((carry, ys))]
            return sum(t.float().sum() for t in leaves)

    torch.manual_seed(0)
    init, xs = _inputs(kind, kwargs.get("dim", 0))
    return ScanModel(), (init, xs), {}


def _helper(name: str) -> Built:
    import torch
    from torch import nn

    call = HELPERS[name]
    if not call.endswith("_cold"):
        _ensure()

    class HelperModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x: Any) -> Any:
            import hoptorch.scan as hs  # noqa: F401
            from hoptorch.scan import (
                ensure_scan_backward,
                has_scan,
                patch_scan_backward,
                scan_unavailable_reason,
            )

            y = self.proj(x)
            if call in ("has_scan", "has_scan_cold"):
                return y * 2 if has_scan() else y
            if call in ("ensure", "ensure_cold"):
                return y + 1 if ensure_scan_backward() else y
            if call == "ensure_device":
                return y + 1 if ensure_scan_backward(x.device) else y
            if call in ("reason", "reason_cold"):
                return y if scan_unavailable_reason("cpu") is None else -y
            if call == "reason_device":
                return y if scan_unavailable_reason(torch.device("cpu")) is None else -y
            if call == "reason_meta":
                return y if scan_unavailable_reason("meta") is None else -y
            if call == "patch":
                patched = patch_scan_backward()
                return y * (2.0 if patched else 1.0)
            if call == "fallback":
                # torchrl-style: use scan when it is healthy, else a python loop.
                from hoptorch import scan

                seq = y.unsqueeze(0).expand(SEQ, *y.shape)
                if scan_unavailable_reason(x.device) is None:
                    _, out = scan(lambda c, t: (c + t, c + t), torch.zeros_like(y), seq)
                    return out.sum(0)
                acc = torch.zeros_like(y)
                for t in seq:
                    acc = acc + t
                return acc
            raise KeyError(call)

    torch.manual_seed(0)
    return HelperModel(), (_randn(BATCH, DIM, seed=2),), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn

    kind = TRAIN[name]
    _ensure()

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fn = _Cell.make(self, kind)
            self.value = nn.Linear(DIM, 1)

    class TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = Net()
            self.opt = torch.optim.Adam(self.net.parameters(), lr=1e-3)

        def forward(self, init: Any, xs: Any, target: Any) -> Any:
            from hoptorch import scan

            with torch.enable_grad():
                return self._step(init, xs, target)

        def _step(self, init: Any, xs: Any, target: Any) -> Any:
            from hoptorch import scan

            self.opt.zero_grad()
            if kind == "discount":
                rewards, not_done = xs
                obs = target
                _, returns = scan(self.net.fn, init, (rewards, not_done), reverse=True)
                values = self.net.value(obs).squeeze(-1)
                loss = ((values - returns) ** 2).mean()
            else:
                _, hs = scan(self.net.fn, init, xs)
                loss = ((self.net.value(hs).squeeze(-1) - target) ** 2).mean()
            loss.backward()
            self.opt.step()
            return loss.detach()

    torch.manual_seed(0)
    init, xs = _inputs(kind, 0)
    if kind == "discount":
        target = _randn(SEQ, BATCH, DIM, seed=9)
    else:
        target = _randn(SEQ, BATCH, seed=9)
    return TrainStep(), (init, xs, target), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in SCANS:
        return _scan(name)
    if name in HELPERS:
        return _helper(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
