"""Ground-truth bench, accelerated_scan: first-order linear recurrences, by its pure-torch reference scan.

accelerated-scan 0.3.1 solves ``x_t = a_t * x_{t-1} + b_t`` over ``(batch, channels, time)`` tensors. Its fast paths
are GPU kernels: ``accelerated_scan.warp`` compiles a CUDA extension with ``load_inline`` at import, and
``accelerated_scan.scalar`` / ``complex`` are Triton kernels. The CPU path is ``accelerated_scan.ref``: ``scan``
pads the time axis to a power of two (gates with one, tokens with zero), then ``scan1`` recurses down the levels of
a binary tree (``split`` into left and right children, an up-sweep, a down-sweep, ``merge`` back), with the
multiplication, addition and the neutral elements passed in as callables (so other semirings and complex numbers
fit) and a ``reverse`` flag. The tables cover, with 3 channels, a batch of 2, 2 to 64 steps:

- ``SCAN``: ``ref.scan`` over power-of-two and padded lengths, forward and reversed, float64, complex64, the
  max-plus (tropical) and log-space semirings through the callables, broadcast-free gates from a sigmoid;
- ``FUNCTIONS``: ``split`` and ``merge`` (a level of the tree) on their own;
- ``NETS`` and ``TRAIN``: layers built on the scan (a gated linear RNN, an RG-LRU-style recurrence in the style
  of Hawk/Griffin, a bidirectional layer, a complex diagonal state-space layer, an exponential moving average
  feature) in a forward pass and in training steps with a loss backward and an optimizer step.

Left out: ``accelerated_scan.warp`` (its import compiles CUDA code with nvcc), ``accelerated_scan.scalar`` and
``accelerated_scan.complex`` (Triton, absent and GPU-only); and sequences of one step, where ``ref.scan`` recurses
without end (it fails eagerly). Random inputs and weights from fixed generators, nothing downloaded; ``names()``
needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, CHANNELS = 2, 3
# name -> (time steps, reverse, semiring: "plain" | "maxplus" | "logspace", dtype)
SCAN: dict[str, tuple[int, bool, str, str]] = {
    "scan.T8": (8, False, "plain", "float32"),
    "scan.T16": (16, False, "plain", "float32"),
    "scan.T2": (2, False, "plain", "float32"),
    "scan.T64": (64, False, "plain", "float32"),
    "scan.T7.padded": (7, False, "plain", "float32"),
    "scan.T5.padded": (5, False, "plain", "float32"),
    "scan.T3.padded": (3, False, "plain", "float32"),
    "scan.reverse.T8": (8, True, "plain", "float32"),
    "scan.reverse.T6.padded": (6, True, "plain", "float32"),
    "scan.float64.T16": (16, False, "plain", "float64"),
    "scan.complex64.T8": (8, False, "plain", "complex64"),
    "scan.complex64.reverse.T5": (5, True, "plain", "complex64"),
    "scan.maxplus.T8": (8, False, "maxplus", "float32"),
    "scan.maxplus.T6.padded": (6, False, "maxplus", "float32"),
    "scan.logspace.T8": (8, False, "logspace", "float32"),
    "scan.logspace.reverse.T8": (8, True, "logspace", "float32"),
}
FUNCTIONS = ("split", "merge", "split_merge.roundtrip")
NETS = ("GatedLinearRNN", "GatedLinearRNN.T5", "RGLRU", "BidirectionalRNN", "ComplexDiagonalSSM",
        "EMAFeatures.T12")
TRAIN = ("train.GatedLinearRNN.adam", "train.RGLRU.adam", "train.BidirectionalRNN.sgd",
         "train.ComplexDiagonalSSM.adam", "train.scan.logspace.adam")


def names() -> list[str]:
    return [*SCAN, *FUNCTIONS, *NETS, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: Any = None) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _semiring(kind: str) -> dict[str, Any]:
    """The callables ``ref.scan`` takes for a semiring other than (times, plus)."""
    import torch

    if kind == "maxplus":
        return {"mul": torch.add, "add": torch.maximum, "zeros_like": lambda t: torch.full_like(t, float("-inf")),
                "ones_like": torch.zeros_like}
    if kind == "logspace":
        return {"mul": torch.add, "add": torch.logaddexp, "zeros_like": lambda t: torch.full_like(t, float("-inf")),
                "ones_like": torch.zeros_like}
    return {}


def _scan(name: str) -> Built:
    import torch

    from accelerated_scan.ref import scan
    from gt_calls import Call

    steps, reverse, semiring, dtype_name = SCAN[name]
    dtype = getattr(torch, dtype_name)
    if dtype.is_complex:
        gates = torch.polar(_randn(BATCH, CHANNELS, steps).sigmoid(), _randn(BATCH, CHANNELS, steps, seed=3))
        tokens = _randn(BATCH, CHANNELS, steps, seed=2, dtype=dtype)
    elif semiring != "plain":
        gates = torch.nn.functional.logsigmoid(_randn(BATCH, CHANNELS, steps))
        tokens = _randn(BATCH, CHANNELS, steps, seed=2)
    else:
        gates = _randn(BATCH, CHANNELS, steps, dtype=dtype).sigmoid()
        tokens = _randn(BATCH, CHANNELS, steps, seed=2, dtype=dtype)
    keywords = dict(_semiring(semiring))
    if reverse:
        keywords["reverse"] = True
    return Call(scan, **keywords), (gates.contiguous(), tokens.contiguous()), {}


def _function(name: str) -> Built:
    import torch

    from accelerated_scan.ref import merge, split
    from gt_calls import Call, Run

    x = _randn(BATCH, CHANNELS, 8)
    if name == "split":
        return Call(split), (x,), {}
    if name == "merge":
        return Call(merge), (x, _randn(BATCH, CHANNELS, 8, seed=2)), {}
    return Run(torch.nn.Identity(), lambda owner, t: merge(*split(t)), [split, merge]), (x,), {}


def _net(kind: str) -> Any:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from accelerated_scan.ref import scan

    class GatedLinearRNN(nn.Module):
        def __init__(self, dim: int = CHANNELS) -> None:
            super().__init__()
            self.to_gate = nn.Linear(dim, dim)
            self.to_token = nn.Linear(dim, dim)
            self.out = nn.Linear(dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            gates = self.to_gate(x).sigmoid().transpose(1, 2).contiguous()
            tokens = self.to_token(x).transpose(1, 2).contiguous()
            return self.out(scan(gates, tokens).transpose(1, 2))

    class RGLRU(nn.Module):
        """The real-gated linear recurrent unit of Hawk / Griffin (De et al. 2024)."""

        def __init__(self, dim: int = CHANNELS, c: float = 8.0) -> None:
            super().__init__()
            self.c = c
            self.log_lambda = nn.Parameter(torch.linspace(-1.0, 1.0, dim))
            self.input_gate = nn.Linear(dim, dim)
            self.recurrence_gate = nn.Linear(dim, dim)
            self.out = nn.Linear(dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            r = self.recurrence_gate(x).sigmoid()
            i = self.input_gate(x).sigmoid()
            log_a = -self.c * F.softplus(-self.log_lambda) * r
            a = log_a.exp()
            tokens = torch.sqrt((1 - a * a).clamp_min(1e-6)) * (i * x)
            h = scan(a.transpose(1, 2).contiguous(), tokens.transpose(1, 2).contiguous())
            return self.out(h.transpose(1, 2))

    class BidirectionalRNN(nn.Module):
        def __init__(self, dim: int = CHANNELS) -> None:
            super().__init__()
            self.to_gates = nn.Linear(dim, 2 * dim)
            self.out = nn.Linear(2 * dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            forward_gates, backward_gates = self.to_gates(x).sigmoid().transpose(1, 2).contiguous().chunk(2, dim=1)
            tokens = x.transpose(1, 2).contiguous()
            forward_h = scan(forward_gates.contiguous(), tokens)
            backward_h = scan(backward_gates.contiguous(), tokens, reverse=True)
            return self.out(torch.cat((forward_h, backward_h), dim=1).transpose(1, 2))

    class ComplexDiagonalSSM(nn.Module):
        """A diagonal state-space layer (LRU-style) with complex eigenvalues, scanned in complex64."""

        def __init__(self, dim: int = CHANNELS) -> None:
            super().__init__()
            self.nu_log = nn.Parameter(torch.full((dim,), -1.0))
            self.theta_log = nn.Parameter(torch.linspace(-2.0, 0.0, dim))
            self.to_input = nn.Linear(dim, dim)
            self.out = nn.Linear(dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, t, d = x.shape
            magnitude = torch.exp(-self.nu_log.exp())
            gates = torch.polar(magnitude, self.theta_log.exp()).view(1, d, 1).expand(b, d, t).contiguous()
            tokens = torch.complex(self.to_input(x), torch.zeros_like(x)).transpose(1, 2).contiguous()
            h = scan(gates, tokens)
            return self.out(h.real.transpose(1, 2))

    class EMAFeatures(nn.Module):
        """Exponential moving averages of the inputs at learned rates, appended as features."""

        def __init__(self, dim: int = CHANNELS) -> None:
            super().__init__()
            self.rate_logit = nn.Parameter(torch.zeros(dim))
            self.out = nn.Linear(2 * dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, t, d = x.shape
            rate = self.rate_logit.sigmoid().view(1, d, 1)
            gates = (1 - rate).expand(b, d, t).contiguous()
            tokens = (rate * x.transpose(1, 2)).contiguous()
            ema = scan(gates, tokens).transpose(1, 2)
            return self.out(torch.cat((x, ema), dim=-1))

    table = {"GatedLinearRNN": GatedLinearRNN, "RGLRU": RGLRU, "BidirectionalRNN": BidirectionalRNN,
             "ComplexDiagonalSSM": ComplexDiagonalSSM, "EMAFeatures": EMAFeatures}
    return table[kind.split(".")[0]]()


def _net_input(kind: str) -> Any:
    steps = int(kind.rsplit(".T", 1)[1]) if ".T" in kind else 8
    return _randn(BATCH, steps, CHANNELS)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from accelerated_scan.ref import scan, scan1
    from gt_calls import Run

    kind = name.split(".", 1)[1].rsplit(".", 1)[0]
    if kind == "scan.logspace":
        class LogSpaceScan(torch.nn.Module):
            """A recurrence in log space: log-gates and log-values summed by ``logaddexp``."""

            def __init__(self) -> None:
                super().__init__()
                self.to_log_gate = torch.nn.Linear(CHANNELS, CHANNELS)
                self.to_log_value = torch.nn.Linear(CHANNELS, CHANNELS)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                log_gates = F.logsigmoid(self.to_log_gate(x)).transpose(1, 2).contiguous()
                log_values = self.to_log_value(x).transpose(1, 2).contiguous()
                return scan(log_gates, log_values, **_semiring("logspace")).exp().transpose(1, 2)

        model: Any = LogSpaceScan()
    else:
        model = _net(kind)
    x = _net_input(kind)
    target = _randn(BATCH, 8, CHANNELS, seed=7)
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

    return Run(model, step, [scan, scan1]), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in SCAN:
        return _scan(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in NETS:
        from accelerated_scan.ref import scan
        from gt_calls import Run

        return Run(_net(name), lambda owner, t: owner(t), [scan]), (_net_input(name),), {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
