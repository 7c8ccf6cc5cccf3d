"""Ground-truth bench, torchprofile: MAC counts of small networks from their traced graphs, inside a compiled step.

torchprofile 0.1.0 has one public entry point, ``profile_macs(model, args=(), kwargs=None, reduction=sum)``, over a
lower-level ``torchprofile.trace.trace(model, args, kwargs)``. ``trace`` wraps the model in ``_Flatten`` (its
outputs flattened through lists, tuples and dicts into a list of tensors), records it with
``torch.jit._get_trace_graph`` (warnings swallowed), and converts the TorchScript graph into its own IR
(``ir.Variable`` per value: tensors with their dtype and sizes, other values with the constant or the list of
shapes behind them, ``_extract_value``; ``ir.Node`` per operator with its attributes and module scope; an
``ir.Graph``). ``profile_macs`` then looks every node's operator up in ``handlers.HANDLER_MAP``: a handler counts
the node's multiply-accumulates from the shapes (``linear`` and ``matmul`` in each of their rank cases, ``addmm``,
``addmv``, ``bmm``, ``baddbmm``, ``mul``, convolutions and transposed ones, batch / instance / layer / group norms
with and without affine weights, average poolings and ``mean``, ``leaky_relu``, bilinear upsampling, ``lstm``,
``einsum`` from its equation and operand shapes, ``grid_sampler`` by mode, ``scaled_dot_product_attention``), a
``None`` entry marks a zero-cost operator, and an unknown operator is skipped with a warning. The counts are
reduced (``sum`` by default, any callable, or ``None`` for the per-node dict).

Users profile a model inside their scripts, sometimes inside the step they compile, so each bench model is a small
``nn.Module`` whose forward calls torchprofile on the network it holds and its inputs, then runs the network. The
tables cover:

- ``NETS``: ``profile_macs(net, inputs)`` with the defaults on each network: an MLP (``linear`` on matrices), a
  token MLP (``linear`` on a batch of sequences), a conv net with batch norm and pooling, a 1-d conv net (instance
  norm without affine weights, ELU: an operator without handler), a 3-d conv net (average and adaptive poolings),
  a decoder (``ConvTranspose2d``, group norm, LeakyReLU, bilinear and nearest upsampling), layer norms with and
  without affine weights, a two-layer LSTM and a bidirectional LSTM, a GRU and the three RNN cells (no handlers),
  ``nn.MultiheadAttention``, a transformer encoder layer, scaled dot-product attention, ``einsum`` (plain, and with
  an ellipsis, counted as zero), ``matmul`` in each rank case, ``bmm``, ``baddbmm``, ``addmm``, ``addmv``, ``mul``
  and in-place ``mul_``, ``grid_sample`` in its three modes, an embedding, a network returning a dict, one
  returning a nested list and tuple, and a network of two inputs (the args a tuple);
- ``CONFIGS``: the options on several of those: the args a bare tensor rather than a tuple, ``reduction=None``
  (the per-node dict, its nodes' ``repr``), ``max`` and a user's reduction;
- ``TRACE``: ``trace(net, args)`` alone, the graph's nodes read (operators, scopes, shapes) or the whole graph
  printed (``Graph.__repr__``, ``Node.__repr__``, ``Variable.__repr__``).

Left out: keyword arguments (``trace`` raises ``ValueError`` on any ``kwargs``: the library does not support them
yet), dict inputs (the TorchScript tracer takes positional tensors), and torchvision models (its compiled extension
does not load here). Random weights and inputs from fixed seeds, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HID, OUT, SEQ, VOCAB, SIDE = 2, 8, 16, 4, 5, 20, 8

NETS = ("mlp", "token_mlp", "cnn", "conv1d", "conv3d", "decoder", "layer_norms", "lstm", "lstm_bidirectional",
        "gru", "rnn_cells", "multihead_attention", "transformer_layer", "sdpa", "einsum", "einsum_ellipsis",
        "matmul_ranks", "batched_products", "grid_sample.bilinear", "grid_sample.nearest", "grid_sample.bicubic",
        "embedding", "dict_output", "nested_output", "two_inputs")

# Model name -> (net, how the args are passed: "tuple" | "tensor", reduction: "sum" | "none" | "max" | "user").
CONFIGS: dict[str, tuple[str, str, str]] = {
    "mlp.args_tensor": ("mlp", "tensor", "sum"),
    "cnn.args_tensor": ("cnn", "tensor", "sum"),
    "lstm.args_tensor": ("lstm", "tensor", "sum"),
    "mlp.per_node": ("mlp", "tuple", "none"),
    "cnn.per_node": ("cnn", "tuple", "none"),
    "decoder.per_node": ("decoder", "tuple", "none"),
    "transformer_layer.per_node": ("transformer_layer", "tuple", "none"),
    "einsum.per_node": ("einsum", "tuple", "none"),
    "conv1d.per_node": ("conv1d", "tuple", "none"),
    "cnn.max": ("cnn", "tuple", "max"),
    "matmul_ranks.max": ("matmul_ranks", "tuple", "max"),
    "two_inputs.user_reduction": ("two_inputs", "tuple", "user"),
    "sdpa.user_reduction": ("sdpa", "tuple", "user"),
}
# Model name -> (net, what is done with the graph: "nodes" | "repr").
TRACE: dict[str, tuple[str, str]] = {
    "trace.mlp.nodes": ("mlp", "nodes"),
    "trace.cnn.nodes": ("cnn", "nodes"),
    "trace.lstm.nodes": ("lstm", "nodes"),
    "trace.einsum.nodes": ("einsum", "nodes"),
    "trace.mlp.repr": ("mlp", "repr"),
    "trace.transformer_layer.repr": ("transformer_layer", "repr"),
    "trace.dict_output.repr": ("dict_output", "repr"),
    "trace.two_inputs.nodes": ("two_inputs", "nodes"),
}


def names() -> list[str]:
    return [f"profile_macs.{n}" for n in NETS] + [f"profile_macs.{n}" for n in CONFIGS] + list(TRACE)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _net(kind: str) -> tuple[Any, tuple[Any, ...]]:
    """A tiny, traceable network of ``kind`` and its positional inputs."""
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

        def forward(self, seq: torch.Tensor) -> torch.Tensor:
            out, _ = self.rnn(seq)
            return self.head(out[:, -1])

    class Cells(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.rnn = nn.RNNCell(DIM, HID)
            self.gru = nn.GRUCell(HID, HID)
            self.lstm = nn.LSTMCell(HID, HID)
            self.head = nn.Linear(HID, OUT)

        def forward(self, seq: torch.Tensor) -> torch.Tensor:
            h = seq.new_zeros(seq.shape[0], HID)
            state = (h, h)
            for t in range(seq.shape[1]):
                h = self.gru(self.rnn(seq[:, t], h), h)
                state = self.lstm(h, state)
            return self.head(state[0])

    class SelfAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = nn.MultiheadAttention(DIM, 2, batch_first=True)
            self.proj = nn.Linear(DIM, OUT)

        def forward(self, seq: torch.Tensor) -> torch.Tensor:
            out, _ = self.attn(seq, seq, seq)
            return self.proj(out)

    class SDPA(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(DIM, 3 * DIM)
            self.out = nn.Linear(DIM, DIM)

        def forward(self, seq: torch.Tensor) -> torch.Tensor:
            b, n, _ = seq.shape
            q, k, v = self.qkv(seq).reshape(b, n, 3, 2, DIM // 2).permute(2, 0, 3, 1, 4).unbind(0)
            h = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.out(h.transpose(1, 2).reshape(b, n, DIM))

    class Einsum(nn.Module):
        def __init__(self, equation: str) -> None:
            super().__init__()
            self.equation = equation
            self.weight = nn.Parameter(torch.randn(DIM, HID) / DIM)

        def forward(self, seq: torch.Tensor) -> torch.Tensor:
            h = torch.einsum(self.equation, seq, self.weight)
            scores = torch.einsum("bid,bjd->bij", h, h)
            return scores.softmax(-1)

    class MatmulRanks(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.vec = nn.Parameter(torch.randn(DIM))
            self.mat = nn.Parameter(torch.randn(DIM, HID))
            self.back = nn.Parameter(torch.randn(HID, DIM))

        def forward(self, seq: torch.Tensor) -> torch.Tensor:
            x = seq[:, 0]
            a = torch.matmul(self.vec, self.vec)                 # 1-d . 1-d
            b = torch.matmul(self.vec, self.mat)                 # 1-d . 2-d
            c = torch.matmul(self.back, self.vec)                # 2-d . 1-d
            d = torch.matmul(x, self.mat)                        # 2-d . 2-d
            e = torch.matmul(self.vec, seq.transpose(1, 2))      # 1-d . n-d
            f = torch.matmul(seq, self.vec)                      # n-d . 1-d
            g = torch.matmul(seq, seq.transpose(1, 2))           # n-d . n-d
            return a + b.sum() + c.sum() + d.sum() + e.sum() + f.sum() + g.sum()

    class Products(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.randn(DIM, HID))
            self.bias = nn.Parameter(torch.zeros(HID))
            self.mv = nn.Parameter(torch.randn(HID, DIM))
            self.mv_bias = nn.Parameter(torch.zeros(HID))

        def forward(self, seq: torch.Tensor) -> torch.Tensor:
            scores = torch.bmm(seq, seq.transpose(1, 2))
            mixed = torch.baddbmm(scores, seq, seq.transpose(1, 2), beta=0.5)
            flat = torch.addmm(self.bias, seq[:, 0], self.weight)
            vec = torch.addmv(self.mv_bias, self.mv, seq[0, 0])
            gated = flat * torch.sigmoid(flat)
            gated.mul_(0.5)
            return mixed.mean() + gated.mean(dim=-1) + vec.sum()

    class GridSample(nn.Module):
        def __init__(self, mode: str) -> None:
            super().__init__()
            self.mode = mode
            self.loc = nn.Linear(3 * SIDE * SIDE, 6)

        def forward(self, image: torch.Tensor) -> torch.Tensor:
            theta = self.loc(image.flatten(1)).view(-1, 2, 3) * 0.1
            grid = F.affine_grid(theta, list(image.shape), align_corners=False)
            return F.grid_sample(image, grid, mode=self.mode, align_corners=False)

    class Embedder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, DIM)
            self.proj = nn.Linear(DIM, OUT)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return self.proj(self.embed(tokens).mean(1))

    class DictOutput(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Linear(DIM, HID)
            self.logits = nn.Linear(HID, OUT)
            self.value = nn.Linear(HID, 1)

        def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
            h = torch.relu(self.body(x))
            return {"logits": self.logits(h), "value": self.value(h)}

    class NestedOutput(DictOutput):
        def forward(self, x: torch.Tensor) -> Any:  # type: ignore[override]
            out = super().forward(x)
            return [out["logits"], (out["value"], [out["logits"].tanh()])]

    class TwoInputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(DIM, HID)
            self.b = nn.Linear(OUT, HID)
            self.out = nn.Linear(HID, OUT)

        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return self.out(torch.relu(self.a(a) + self.b(b)))

    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Dropout(0.1), nn.Linear(HID, OUT)), (x,)
    if kind == "token_mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.GELU(), nn.Linear(HID, DIM), nn.Softmax(-1)), (seq,)
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(4, 8, 3, groups=2, bias=False), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                             nn.Linear(8, OUT)), (image,)
    if kind == "conv1d":
        return nn.Sequential(nn.Conv1d(3, 4, 3), nn.InstanceNorm1d(4), nn.ELU(), nn.AvgPool1d(2),
                             nn.AdaptiveAvgPool1d(2), nn.Flatten(), nn.Linear(8, OUT)), (_randn(BATCH, 3, 12),)
    if kind == "conv3d":
        return nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU(), nn.AvgPool3d(2),
                             nn.MaxPool3d(1), nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(4, OUT)), \
            (_randn(BATCH, 2, 4, 4, 4),)
    if kind == "decoder":
        return nn.Sequential(nn.ConvTranspose2d(3, 4, 2, stride=2), nn.GroupNorm(2, 4), nn.LeakyReLU(0.1),
                             nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                             nn.Conv2d(4, 2, 3, padding=1), nn.Upsample(scale_factor=0.5, mode="nearest"),
                             nn.Sigmoid()), (image,)
    if kind == "layer_norms":
        return nn.Sequential(nn.Linear(DIM, HID), nn.LayerNorm(HID), nn.Tanh(),
                             nn.LayerNorm(HID, elementwise_affine=False), nn.Linear(HID, OUT)), (seq,)
    if kind == "lstm":
        return Recurrent(nn.LSTM(DIM, HID, num_layers=2, batch_first=True), HID), (seq,)
    if kind == "lstm_bidirectional":
        return Recurrent(nn.LSTM(DIM, HID, batch_first=True, bidirectional=True), 2 * HID), (seq,)
    if kind == "gru":
        return Recurrent(nn.GRU(DIM, HID, batch_first=True), HID), (seq,)
    if kind == "rnn_cells":
        return Cells(), (seq,)
    if kind == "multihead_attention":
        return SelfAttention(), (seq,)
    if kind == "transformer_layer":
        return nn.TransformerEncoderLayer(DIM, 2, dim_feedforward=HID, dropout=0.0, batch_first=True), (seq,)
    if kind == "sdpa":
        return SDPA(), (seq,)
    if kind == "einsum":
        return Einsum("bnd,dh->bnh"), (seq,)
    if kind == "einsum_ellipsis":
        return Einsum("...d,dh->...h"), (seq,)
    if kind == "matmul_ranks":
        return MatmulRanks(), (seq,)
    if kind == "batched_products":
        return Products(), (seq,)
    if kind.startswith("grid_sample."):
        return GridSample(kind.split(".")[1]), (image,)
    if kind == "embedding":
        return Embedder(), (torch.randint(0, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(4)),)
    if kind == "dict_output":
        return DictOutput(), (x,)
    if kind == "nested_output":
        return NestedOutput(), (x,)
    if kind == "two_inputs":
        return TwoInputs(), (x, _randn(BATCH, OUT, seed=3))
    raise KeyError(kind)


def _largest_three(counts: Any) -> int:
    """A user's reduction: the sum of the three largest per-operator counts."""
    return sum(sorted(counts, reverse=True)[:3])


def build(name: str) -> Built:
    import torch
    from torch import nn
    from torchprofile import profile_macs
    from torchprofile.ir import Graph
    from torchprofile.trace import trace

    use = "profile"
    if name in TRACE:
        kind, use = TRACE[name]
        passing, reduction = "tuple", "sum"
    elif name.startswith("profile_macs.") and name.removeprefix("profile_macs.") in NETS:
        kind, passing, reduction = name.removeprefix("profile_macs."), "tuple", "sum"
    elif name.startswith("profile_macs.") and name.removeprefix("profile_macs.") in CONFIGS:
        kind, passing, reduction = CONFIGS[name.removeprefix("profile_macs.")]
    else:
        raise KeyError(name)
    net, args = _net(kind)

    class _Profile(nn.Module):
        """torchprofile on ``net`` and the inputs (a MAC count, or the traced graph), then the network on them."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, *inputs: torch.Tensor) -> Any:
            given = inputs[0] if passing == "tensor" else tuple(inputs)
            out = self.net(*inputs)
            if use == "nodes":
                graph = trace(self.net, given)
                ops = [node.operator for node in graph.nodes]
                scopes = {node.scope for node in graph.nodes}
                shapes = [v.shape for v in graph.outputs]
                return out, len(ops), len(scopes), shapes
            if use == "repr":
                graph = trace(self.net, given)
                return out, len(repr(graph))
            if reduction == "none":
                per_node = profile_macs(self.net, given, reduction=None)
                return out, sum(per_node.values()), len("".join(repr(n) for n in per_node))
            if reduction == "max":
                return out, profile_macs(self.net, given, reduction=max)
            if reduction == "user":
                return out, profile_macs(self.net, given, reduction=_largest_three)
            return out, profile_macs(self.net, given)

        def entry_points(self) -> list[Any]:
            return [trace, Graph.__repr__] if use == "repr" else [trace] if use == "nodes" else [profile_macs]

    return _Profile(), args, {}
