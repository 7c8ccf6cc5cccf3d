"""Ground-truth bench, pytorch_model_summary: layer tables and hierarchical summaries, taken inside a compiled step.

pytorch-model-summary 0.1.2 (a fork of graykode's modelsummary) has two entry points. ``summary(model, *inputs,
batch_size=-1, show_input=False, show_hierarchical=False, print_summary=False, max_depth=1,
show_parent_layers=False)`` first builds a map of the module tree by ``id`` (``build_module_tree``: class names,
parent paths, depths and child counts, ``ModuleList`` and ``Sequential`` skipped as layers) and marks the layers to
show (those at ``max_depth``, or leaves above it; ``None`` means all depths). It registers a forward hook on each
(a forward *pre*-hook with ``show_input``), puts the model in eval mode, runs it on the user's inputs and restores
train mode if it was on. Each hook, once per module (``module_mapped``: a layer called twice is counted once),
records the layer's parent path, its input or output shapes (recursively through tuples and lists; anything else
raises) and its parameter counts, all and trainable (``torch.prod`` of a ``LongTensor`` of each parameter's
sizes). The hooks are removed and the table is formatted with column widths computed from its contents (parent
layers as an extra column on request, the batch size in the footer when given), optionally followed by the
hierarchical summary, and returned as a string (printed with ``print_summary``). ``hierarchical_summary(model,
print_summary=False)`` walks the module tree recursively, rebuilding ``Module.__repr__`` with each module's
parameter count (a ``reduce`` over each parameter's shape) and framing it; it returns the text and the total.

Users print these at the start of training or inside the step they compile, so each bench model is a small
``nn.Module`` whose forward calls the library on the network it holds and its inputs, then runs the network. The
tables cover:

- ``NETS``: ``summary(net, *inputs)`` with the defaults on each network: an MLP with dropout, a conv net with
  batch norm and pooling, 1-d and 3-d conv nets, a residual net nested in ``Sequential`` three deep, a small U-Net,
  a GRU, a bidirectional two-layer RNN, a two-layer LSTM and a bidirectional LSTM (nested tuple outputs), a module
  around ``nn.MultiheadAttention`` returning its weights, a pre-norm transformer block, a
  ``nn.TransformerEncoder`` (its layers shown at depth one), a ``ModuleDict``, a ``ModuleList`` in a loop, one
  ``Linear`` used twice, a half-frozen network, a pruned network, a ``LazyLinear``, bias-free layers, an embedding
  of token ids, a ``PReLU`` / ``SiLU`` / ``Hardswish`` net, two positional inputs, a list of two tensors as one
  input, a submodule returning a tuple of heads, a bare ``Linear`` (the model itself is the only layer), a network
  without parameters, a float64 network, a network nested four levels deep, and layers called with keyword
  arguments only (an empty positional input for the hooks);
- ``CONFIGS``: the options on several of those: ``show_input`` (pre-hooks, input shapes), ``show_hierarchical``
  (the hierarchical summary appended), ``print_summary``, ``max_depth`` 0, 2, 3 and ``None``,
  ``show_parent_layers``, ``batch_size``, and combinations of them;
- ``HIERARCHICAL``: ``hierarchical_summary(net)`` alone, with and without ``print_summary``, on networks with
  extra representations, nested containers, shared and frozen layers.

Left out, because they fail eagerly in the library itself: dict inputs and keyword inputs (the shapes helper
raises on anything that is not a tensor, tuple or list, and ``summary`` passes no keywords), packed sequences
(their ``None`` indices), and any layer shown whose output holds ``None`` (``nn.TransformerEncoderLayer``'s
attention asks for no weights: the encoder is summarized at depth one only). Random weights and inputs from fixed
seeds, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HID, OUT, SEQ, VOCAB, SIDE = 2, 8, 16, 4, 5, 20, 8

NETS = ("mlp", "cnn", "conv1d", "conv3d", "residual", "unet", "gru", "rnn_bidirectional", "lstm",
        "lstm_bidirectional", "multihead_attention", "transformer_block", "transformer_encoder", "module_dict",
        "module_list", "shared_layer", "frozen", "pruned", "lazy", "bias_free", "embedding", "activations",
        "two_inputs", "list_input", "tuple_heads", "single_layer", "no_parameters", "float64", "deep",
        "keyword_call")

# Model name -> (net, summary keywords).
CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "mlp.show_input": ("mlp", {"show_input": True}),
    "cnn.show_input": ("cnn", {"show_input": True}),
    "two_inputs.show_input": ("two_inputs", {"show_input": True}),
    "list_input.show_input": ("list_input", {"show_input": True}),
    "lstm.show_input": ("lstm", {"show_input": True}),
    "mlp.show_hierarchical": ("mlp", {"show_hierarchical": True}),
    "residual.show_hierarchical": ("residual", {"show_hierarchical": True}),
    "transformer_encoder.show_hierarchical": ("transformer_encoder", {"show_hierarchical": True}),
    "pruned.show_hierarchical": ("pruned", {"show_hierarchical": True}),
    "cnn.print_summary": ("cnn", {"print_summary": True}),
    "gru.print_summary.show_hierarchical": ("gru", {"print_summary": True, "show_hierarchical": True}),
    "residual.max_depth2": ("residual", {"max_depth": 2}),
    "residual.max_depth_none": ("residual", {"max_depth": None}),
    "deep.max_depth0": ("deep", {"max_depth": 0}),
    "deep.max_depth2": ("deep", {"max_depth": 2}),
    "deep.max_depth3.parent_layers": ("deep", {"max_depth": 3, "show_parent_layers": True}),
    "deep.max_depth_none.parent_layers": ("deep", {"max_depth": None, "show_parent_layers": True}),
    "transformer_block.max_depth2.parent_layers": ("transformer_block", {"max_depth": 2,
                                                                         "show_parent_layers": True}),
    "module_dict.max_depth2": ("module_dict", {"max_depth": 2}),
    "mlp.parent_layers": ("mlp", {"show_parent_layers": True}),
    "mlp.batch_size": ("mlp", {"batch_size": 32}),
    "unet.batch_size.show_input": ("unet", {"batch_size": 16, "show_input": True}),
    "frozen.batch_size.parent_layers": ("frozen", {"batch_size": 8, "show_parent_layers": True}),
    "deep.all_options": ("deep", {"batch_size": 4, "show_input": True, "show_hierarchical": True,
                                  "print_summary": True, "max_depth": 3, "show_parent_layers": True}),
    "shared_layer.show_input.max_depth_none": ("shared_layer", {"show_input": True, "max_depth": None}),
    "embedding.show_hierarchical": ("embedding", {"show_hierarchical": True}),
    "keyword_call.show_input": ("keyword_call", {"show_input": True}),
    "keyword_call.max_depth2.parent_layers": ("keyword_call", {"max_depth": 2, "show_parent_layers": True}),
}
# Model name -> (net, hierarchical_summary's print_summary).
HIERARCHICAL: dict[str, tuple[str, bool]] = {
    "hierarchical.mlp": ("mlp", False),
    "hierarchical.cnn": ("cnn", False),
    "hierarchical.residual": ("residual", False),
    "hierarchical.transformer_encoder": ("transformer_encoder", False),
    "hierarchical.deep.print": ("deep", True),
    "hierarchical.shared_layer": ("shared_layer", False),
    "hierarchical.frozen.print": ("frozen", True),
    "hierarchical.lstm": ("lstm", False),
    "hierarchical.single_layer": ("single_layer", False),
    "hierarchical.no_parameters": ("no_parameters", False),
}


def names() -> list[str]:
    return [f"summary.{n}" for n in NETS] + [f"summary.{n}" for n in CONFIGS] + list(HIERARCHICAL)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _net(kind: str) -> tuple[Any, tuple[Any, ...]]:
    """A tiny network of ``kind`` and its positional inputs."""
    import torch
    from torch import nn
    from torch.nn.utils import prune

    torch.manual_seed(0)

    def mlp() -> nn.Module:
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Dropout(0.1), nn.Linear(HID, OUT))

    class Residual(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Conv2d(3, 4, 3, padding=1)
            self.blocks = nn.Sequential(*(nn.Sequential(nn.Sequential(nn.Conv2d(4, 4, 3, padding=1),
                                                                      nn.BatchNorm2d(4)), nn.ReLU())
                                          for _ in range(2)))
            self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, OUT))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.stem(x)
            for block in self.blocks:
                h = h + block(h)
            return self.head(h)

    class UNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.down = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
            self.pool = nn.MaxPool2d(2)
            self.mid = nn.Conv2d(4, 8, 3, padding=1)
            self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
            self.out = nn.Conv2d(8, 1, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            skip = self.down(x)
            h = self.up(torch.relu(self.mid(self.pool(skip))))
            return self.out(torch.cat([h, skip], dim=1))

    class Recurrent(nn.Module):
        def __init__(self, rnn: nn.Module, width: int) -> None:
            super().__init__()
            self.rnn = rnn
            self.head = nn.Linear(width, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out, _ = self.rnn(x)
            return self.head(out[:, -1])

    class Attention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(DIM)
            self.attn = nn.MultiheadAttention(DIM, 2, batch_first=True)
            self.proj = nn.Linear(DIM, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.norm(x)
            out, weights = self.attn(h, h, h)
            return self.proj(out + x) + weights.mean()

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
            self.attn = nn.MultiheadAttention(DIM, 2, batch_first=True, dropout=0.0)
            self.ff = nn.Sequential(nn.Linear(DIM, HID), nn.GELU(), nn.Linear(HID, DIM))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.norm1(x)
            x = x + self.attn(h, h, h, need_weights=True)[0]
            return x + self.ff(self.norm2(x))

    class Branches(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.branches = nn.ModuleDict({"a": nn.Linear(DIM, OUT), "b": nn.Sequential(nn.Linear(DIM, HID),
                                                                                         nn.Tanh(),
                                                                                         nn.Linear(HID, OUT))})

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.branches["a"](x) + self.branches["b"](x)

    class Stack(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(DIM, DIM) for _ in range(3))
            self.norms = nn.ModuleList(nn.LayerNorm(DIM) for _ in range(3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for layer, norm in zip(self.layers, self.norms):
                x = x + torch.relu(layer(norm(x)))
            return x

    class Shared(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inp = nn.Linear(DIM, HID)
            self.shared = nn.Linear(HID, HID)
            self.out = nn.Linear(HID, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = torch.relu(self.inp(x))
            h = torch.relu(self.shared(h))
            h = torch.relu(self.shared(h))
            return self.out(h)

    class Embedder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, DIM)
            self.proj = nn.Linear(DIM, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.proj(self.embed(x).mean(1))

    class TwoInputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(DIM, HID)
            self.b = nn.Linear(OUT, HID)
            self.out = nn.Linear(HID, OUT)

        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return self.out(torch.relu(self.a(a) + self.b(b)))

    class Heads(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.logits = nn.Linear(HID, OUT)
            self.value = nn.Linear(HID, 1)

        def forward(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return self.logits(h), self.value(h)

    class TupleHeads(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Linear(DIM, HID)
            self.heads = Heads()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            logits, value = self.heads(torch.relu(self.body(x)))
            return logits + value

    class ListInput(TwoInputs):
        def forward(self, pair: list[torch.Tensor]) -> torch.Tensor:  # type: ignore[override]
            return super().forward(pair[0], pair[1])

    class Inner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(HID, HID)
            self.norm = nn.LayerNorm(HID)

        def forward(self, h: torch.Tensor) -> torch.Tensor:
            return self.norm(torch.relu(self.fc(h)) + h)

    class Middle(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = nn.ModuleList(Inner() for _ in range(2))
            self.gate = nn.Linear(HID, HID)

        def forward(self, h: torch.Tensor) -> torch.Tensor:
            for block in self.inner:
                h = block(h)
            return h * torch.sigmoid(self.gate(h))

    class Deep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Linear(DIM, HID)
            self.middle = nn.Sequential(Middle(), Middle())
            self.head = nn.Sequential(nn.Dropout(0.0), nn.Linear(HID, OUT))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.middle(self.stem(x)))

    class KeywordCall(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(DIM)
            self.attn = nn.MultiheadAttention(DIM, 2, batch_first=True)
            self.proj = nn.Linear(DIM, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.norm(input=x)
            out, _ = self.attn(query=h, key=h, value=h)
            return self.proj(input=out + x)

    x, seq, image = _randn(BATCH, DIM), _randn(BATCH, SEQ, DIM), _randn(BATCH, 3, SIDE, SIDE)
    if kind == "mlp":
        return mlp(), (x,)
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(4, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, OUT)), (image,)
    if kind == "conv1d":
        return nn.Sequential(nn.Conv1d(3, 4, 3), nn.InstanceNorm1d(4), nn.ELU(), nn.AvgPool1d(2), nn.Flatten(),
                             nn.Linear(20, OUT)), (_randn(BATCH, 3, 12),)
    if kind == "conv3d":
        return nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU(), nn.MaxPool3d(2),
                             nn.AdaptiveMaxPool3d(1), nn.Flatten(), nn.Linear(4, OUT)), (_randn(BATCH, 2, 4, 4, 4),)
    if kind == "residual":
        return Residual(), (image,)
    if kind == "unet":
        return UNet(), (image,)
    if kind == "gru":
        return Recurrent(nn.GRU(DIM, HID, batch_first=True), HID), (seq,)
    if kind == "rnn_bidirectional":
        return Recurrent(nn.RNN(DIM, HID, num_layers=2, batch_first=True, bidirectional=True), 2 * HID), (seq,)
    if kind == "multihead_attention":
        return Attention(), (seq,)
    if kind == "transformer_block":
        return Block(), (seq,)
    if kind == "module_dict":
        return Branches(), (x,)
    if kind == "module_list":
        return Stack(), (x,)
    if kind == "shared_layer":
        return Shared(), (x,)
    if kind == "frozen":
        net = mlp()
        net[0].requires_grad_(False)
        net[3].bias.requires_grad_(False)
        return net, (x,)
    if kind == "pruned":
        net = mlp()
        prune.l1_unstructured(net[0], "weight", amount=0.5)
        prune.random_unstructured(net[3], "bias", amount=0.5)
        return net, (x,)
    if kind == "lazy":
        return nn.Sequential(nn.LazyLinear(HID), nn.ReLU(), nn.Linear(HID, OUT)), (x,)
    if kind == "bias_free":
        return nn.Sequential(nn.Linear(DIM, HID, bias=False), nn.LayerNorm(HID, elementwise_affine=False),
                             nn.ReLU(), nn.Linear(HID, OUT, bias=False)), (x,)
    if kind == "embedding":
        return Embedder(), (torch.randint(0, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(4)),)
    if kind == "activations":
        return nn.Sequential(nn.Linear(DIM, HID), nn.PReLU(), nn.Linear(HID, HID), nn.SiLU(), nn.Hardswish(),
                             nn.BatchNorm1d(HID), nn.Linear(HID, OUT), nn.LogSoftmax(-1)), (x,)
    if kind == "two_inputs":
        return TwoInputs(), (x, _randn(BATCH, OUT, seed=3))
    if kind == "tuple_heads":
        return TupleHeads(), (x,)
    if kind == "lstm":
        return Recurrent(nn.LSTM(DIM, HID, num_layers=2, batch_first=True), HID), (seq,)
    if kind == "lstm_bidirectional":
        return Recurrent(nn.LSTM(DIM, HID, batch_first=True, bidirectional=True), 2 * HID), (seq,)
    if kind == "transformer_encoder":
        layer = nn.TransformerEncoderLayer(DIM, 2, dim_feedforward=HID, dropout=0.0, batch_first=True)
        return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), (seq,)
    if kind == "single_layer":
        return nn.Linear(DIM, OUT), (x,)
    if kind == "no_parameters":
        return nn.Sequential(nn.ReLU(), nn.Flatten(), nn.Softmax(dim=-1)), (image,)
    if kind == "float64":
        return mlp().double(), (x.double(),)
    if kind == "list_input":
        return ListInput(), ([x, _randn(BATCH, OUT, seed=3)],)
    if kind == "deep":
        return Deep(), (x,)
    if kind == "keyword_call":
        return KeywordCall(), (seq,)
    raise KeyError(kind)


def build(name: str) -> Built:
    import torch
    from pytorch_model_summary import hierarchical_summary, summary
    from torch import nn

    hierarchical, print_tree = False, False
    if name in HIERARCHICAL:
        (kind, print_tree), options, hierarchical = HIERARCHICAL[name], {}, True
    elif name.startswith("summary.") and name.removeprefix("summary.") in NETS:
        kind, options = name.removeprefix("summary."), {}
    elif name.startswith("summary.") and name.removeprefix("summary.") in CONFIGS:
        kind, options = CONFIGS[name.removeprefix("summary.")]
    else:
        raise KeyError(name)
    net, args = _net(kind)
    if kind == "lazy":
        lazy = net
        net = None

    class _Summary(nn.Module):
        """The library's summary of ``net`` (on the inputs, for ``summary``), then the network on the inputs."""

        def __init__(self) -> None:
            super().__init__()
            if kind == "lazy":  # kept out of the module tree: the worker counts parameters before the first call
                object.__setattr__(self, "lazy_net", lazy)
            else:
                self.net = net

        def forward(self, *inputs: Any) -> Any:
            model = self.lazy_net if kind == "lazy" else self.net
            if hierarchical:
                text, count = hierarchical_summary(model, print_summary=print_tree)
                return model(*inputs), len(text), count
            text = summary(model, *inputs, **options)
            return model(*inputs), len(text)

        def entry_points(self) -> list[Any]:
            return [hierarchical_summary] if hierarchical else [summary]

    return _Summary(), args, {}
