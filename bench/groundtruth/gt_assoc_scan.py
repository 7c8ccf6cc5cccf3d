"""Ground-truth bench, assoc_scan: a first-order linear recurrence by a recursive associative scan.

assoc-scan 0.0.6 exports ``AssocScan``, a module that solves ``h_t = a_t * h_{t-1} + x_t`` along the sequence
axis. Its forward normalizes the inputs (1-d gates and inputs without a batch, ``has_no_feature_dim`` for
``(batch, seq)`` tensors, any trailing feature shape packed with einops, gates broadcast over the features), handles
``reverse`` by flipping, and an initial state ``prev`` by packing it in front of the inputs with a gate of one
(``remove_prev`` decides whether its slot is dropped from the output); then it runs ``associative_scan``, a port of
``jax.lax.associative_scan`` that recurses on halves of the sequence, combining pairs with ``binary_operator`` (a
``torch.jit.script`` function) and interleaving the results. The tables cover, with sequences of 1 to 16 steps,
features of 4 (2 x 3 too), a batch of 2:

- ``SCAN``: ``AssocScan`` over even, odd, power-of-two and one-step sequences, broadcast gates, ``reverse``,
  ``has_no_feature_dim``, batchless 1-d inputs, multi-dimensional features, an initial state (2-d, 1-d, kept or
  removed), float64;
- ``FUNCTIONS``: ``associative_scan`` with the library's ``binary_operator`` called directly, and with a bench
  operator (the same recurrence written in plain torch) over an odd sequence;
- ``NETS`` and ``TRAIN``: recurrent layers built on ``AssocScan`` (a minGRU-style layer, a gated linear RNN with a
  carried state, a bidirectional layer, a decaying running mean) in a forward pass and in training steps with a
  loss backward and an optimizer step.

Left out: ``use_accelerated=True``, which imports ``accelerated_scan``'s CUDA kernels (Triton, or a CUDA extension
compiled by ``load_inline``), neither of which loads on this CPU-only machine. Random inputs and weights from fixed
generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM = 2, 4
# name -> (AssocScan keywords, gates shape, inputs shape, prev shape or None, call keywords, dtype)
SCAN: dict[str, tuple[dict[str, Any], tuple[int, ...], tuple[int, ...], Any, dict[str, Any], str]] = {
    "AssocScan.seq8": ({}, (BATCH, 8, DIM), (BATCH, 8, DIM), None, {}, "float32"),
    "AssocScan.seq7": ({}, (BATCH, 7, DIM), (BATCH, 7, DIM), None, {}, "float32"),
    "AssocScan.seq16": ({}, (BATCH, 16, DIM), (BATCH, 16, DIM), None, {}, "float32"),
    "AssocScan.seq5": ({}, (BATCH, 5, DIM), (BATCH, 5, DIM), None, {}, "float32"),
    "AssocScan.seq1": ({}, (BATCH, 1, DIM), (BATCH, 1, DIM), None, {}, "float32"),
    "AssocScan.broadcast_gates": ({}, (BATCH, 8, 1), (BATCH, 8, DIM), None, {}, "float32"),
    "AssocScan.reverse": ({"reverse": True}, (BATCH, 8, DIM), (BATCH, 8, DIM), None, {}, "float32"),
    "AssocScan.reverse.seq7.broadcast_gates": ({"reverse": True}, (BATCH, 7, 1), (BATCH, 7, DIM), None, {},
                                               "float32"),
    "AssocScan.has_no_feature_dim": ({"has_no_feature_dim": True}, (BATCH, 8), (BATCH, 8), None, {}, "float32"),
    "AssocScan.has_no_feature_dim.reverse.seq6": ({"has_no_feature_dim": True, "reverse": True}, (BATCH, 6),
                                                  (BATCH, 6), None, {}, "float32"),
    "AssocScan.no_batch": ({}, (8,), (8,), None, {}, "float32"),
    "AssocScan.no_batch.has_no_feature_dim": ({"has_no_feature_dim": True}, (7,), (7,), None, {}, "float32"),
    "AssocScan.multi_dim_features": ({}, (BATCH, 8, 2, 3), (BATCH, 8, 2, 3), None, {}, "float32"),
    "AssocScan.multi_dim_features.broadcast_gates": ({}, (BATCH, 6, 1, 1), (BATCH, 6, 2, 3), None, {}, "float32"),
    "AssocScan.prev": ({}, (BATCH, 8, DIM), (BATCH, 8, DIM), (BATCH, DIM), {}, "float32"),
    "AssocScan.prev.keep": ({}, (BATCH, 7, DIM), (BATCH, 7, DIM), (BATCH, DIM), {"remove_prev": False}, "float32"),
    "AssocScan.prev.reverse": ({"reverse": True}, (BATCH, 8, DIM), (BATCH, 8, DIM), (BATCH, DIM), {}, "float32"),
    "AssocScan.prev.has_no_feature_dim": ({"has_no_feature_dim": True}, (BATCH, 8), (BATCH, 8), (BATCH,), {},
                                          "float32"),
    "AssocScan.prev.broadcast_gates.seq5": ({}, (BATCH, 5, 1), (BATCH, 5, DIM), (BATCH, DIM), {}, "float32"),
    "AssocScan.float64": ({}, (BATCH, 8, DIM), (BATCH, 8, DIM), None, {}, "float64"),
    "AssocScan.return_next": ({}, (BATCH, 6, DIM), (BATCH, 6, DIM), None, {"return_next": True}, "float32"),
}
FUNCTIONS = ("associative_scan.binary_operator", "associative_scan.binary_operator.seq9",
             "associative_scan.plain_operator.seq11", "binary_operator")
NETS = ("MinGRU", "MinGRU.prev", "GatedLinearRNN", "BidirectionalLinearRNN", "DecayingMean.has_no_feature_dim",
        "GatedLinearRNN.multi_head")
TRAIN = ("train.MinGRU.adam", "train.GatedLinearRNN.prev.adam", "train.BidirectionalLinearRNN.sgd",
         "train.AssocScan.reverse.sgd", "train.DecayingMean.adam")


def names() -> list[str]:
    return [*SCAN, *FUNCTIONS, *NETS, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: Any = None) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _scan(name: str) -> Built:
    import torch

    from assoc_scan import AssocScan

    keywords, gates_shape, inputs_shape, prev_shape, call, dtype_name = SCAN[name]
    dtype = getattr(torch, dtype_name)
    gates = _randn(*gates_shape, dtype=dtype).sigmoid()
    inputs = _randn(*inputs_shape, seed=2, dtype=dtype)
    kwargs = dict(call)
    if prev_shape is not None:
        kwargs["prev"] = _randn(*prev_shape, seed=3, dtype=dtype)
    return AssocScan(**keywords), (gates, inputs), kwargs


def _function(name: str) -> Built:
    import torch

    from assoc_scan.assoc_scan import associative_scan, binary_operator
    from gt_calls import Call, Run

    if name == "binary_operator":
        def combine(owner: Any, a0: Any, b0: Any, a1: Any, b1: Any) -> Any:
            return binary_operator((a0, b0), (a1, b1))

        return Run(torch.nn.Identity(), combine, [binary_operator]), \
            tuple(_randn(BATCH, 4, DIM, seed=s) for s in range(4)), {}
    seq = 8 if name.endswith("binary_operator") else int(name.rsplit("seq", 1)[1])
    gates, inputs = _randn(BATCH, seq, DIM).sigmoid(), _randn(BATCH, seq, DIM, seed=2)
    if "plain_operator" in name:
        def operator(a: Any, b: Any) -> Any:
            a_i, kv_i = a
            a_j, kv_j = b
            return a_j * a_i, a_j * kv_i + kv_j

        def run(owner: Any, g: torch.Tensor, x: torch.Tensor) -> Any:
            return associative_scan(operator, (g, x))[1]

        return Run(torch.nn.Identity(), run, [associative_scan]), (gates, inputs), {}

    def scan(owner: Any, g: torch.Tensor, x: torch.Tensor) -> Any:
        return associative_scan(binary_operator, (g, x))[1]

    del Call
    return Run(torch.nn.Identity(), scan, [associative_scan]), (gates, inputs), {}


def _net(kind: str) -> Any:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from assoc_scan import AssocScan

    class MinGRU(nn.Module):
        """minGRU (Feng et al. 2024) in its parallel form: h_t = (1 - z_t) h_{t-1} + z_t h~_t."""

        def __init__(self, dim: int = DIM) -> None:
            super().__init__()
            self.to_hidden_and_gate = nn.Linear(dim, dim * 2, bias=False)
            self.scan = AssocScan()
            self.out = nn.Linear(dim, dim)

        def forward(self, x: torch.Tensor, prev: Any = None) -> torch.Tensor:
            hidden, gate = self.to_hidden_and_gate(x).chunk(2, dim=-1)
            gate = gate.sigmoid()
            out = self.scan(1.0 - gate, gate * F.gelu(hidden), prev=prev)
            return self.out(out)

    class GatedLinearRNN(nn.Module):
        """A gated linear recurrence with a state carried from the previous segment."""

        def __init__(self, dim: int = DIM, heads: int = 1) -> None:
            super().__init__()
            self.heads = heads
            self.to_gates = nn.Linear(dim, heads)
            self.to_values = nn.Linear(dim, dim)
            self.scan = AssocScan()
            self.out = nn.Linear(dim, dim)

        def forward(self, x: torch.Tensor, prev: Any = None) -> torch.Tensor:
            b, n, d = x.shape
            gates = self.to_gates(x).sigmoid()
            values = self.to_values(x)
            if self.heads > 1:
                values = values.view(b, n, self.heads, d // self.heads)
                gates = gates.unsqueeze(-1).expand_as(values)
                if prev is not None:
                    prev = prev.view(b, self.heads, d // self.heads)
            out = self.scan(gates, values, prev=prev)
            return self.out(out.reshape(b, n, d))

    class BidirectionalLinearRNN(nn.Module):
        def __init__(self, dim: int = DIM) -> None:
            super().__init__()
            self.to_gates = nn.Linear(dim, 2 * dim)
            self.forward_scan = AssocScan()
            self.backward_scan = AssocScan(reverse=True)
            self.out = nn.Linear(2 * dim, dim)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            gates_f, gates_b = self.to_gates(x).sigmoid().chunk(2, dim=-1)
            forward_out = self.forward_scan(gates_f, x)
            backward_out = self.backward_scan(gates_b, x)
            return self.out(torch.cat((forward_out, backward_out), dim=-1))

    class DecayingMean(nn.Module):
        """A learned exponential moving average of a scalar signal per step."""

        def __init__(self) -> None:
            super().__init__()
            self.decay_logit = nn.Parameter(torch.tensor(1.0))
            self.scan = AssocScan(has_no_feature_dim=True)
            self.to_scalar = nn.Linear(DIM, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            signal = self.to_scalar(x).squeeze(-1)
            decay = self.decay_logit.sigmoid().expand_as(signal)
            return self.scan(decay, (1.0 - decay) * signal)

    if kind.startswith("MinGRU"):
        return MinGRU()
    if kind == "GatedLinearRNN.multi_head":
        return GatedLinearRNN(heads=2)
    if kind.startswith("GatedLinearRNN"):
        return GatedLinearRNN()
    if kind.startswith("Bidirectional"):
        return BidirectionalLinearRNN()
    return DecayingMean()


def _net_call(kind: str) -> tuple[Any, ...]:
    """The inputs: a sequence, and for some layers the state carried from a previous segment."""
    x = _randn(BATCH, 7, DIM)
    if kind.endswith("prev") or kind == "GatedLinearRNN.multi_head":
        return x, _randn(BATCH, DIM, seed=3)
    return (x,)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from assoc_scan import AssocScan
    from gt_calls import Run

    kind = name.split(".", 1)[1].rsplit(".", 1)[0]
    if kind == "AssocScan.reverse":
        class Reversed(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.to_gates = torch.nn.Linear(DIM, 1)
                self.scan = AssocScan(reverse=True)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.scan(self.to_gates(x).sigmoid(), x)

        model: Any = Reversed()
        args: tuple[Any, ...] = (_randn(BATCH, 7, DIM),)
    else:
        model = _net(kind.replace(".prev", ""))
        args = _net_call(kind)
    with torch.no_grad():
        target = torch.zeros_like(model(*args)) + 0.5
    params = list(model.parameters())
    optimizer: Any = torch.optim.SGD(params, lr=0.1) if name.endswith("sgd") else torch.optim.Adam(params, lr=1e-3)

    def step(owner: Any, *inputs: Any) -> torch.Tensor:
        """The regression loss, its gradients and an optimizer step."""
        loss = F.mse_loss(owner(*inputs), target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, [AssocScan]), args, {}


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
        from assoc_scan import AssocScan
        from gt_calls import Run

        model = _net(name)
        return Run(model, lambda owner, *inputs: owner(*inputs), [AssocScan]), _net_call(name), {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
