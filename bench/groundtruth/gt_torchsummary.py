"""Ground-truth bench, torchsummary: Keras-style ``summary()`` tables of small networks, taken inside a compiled step.

torchsummary 1.5.1 is one function, ``torchsummary.summary(model, input_size, batch_size=-1, device="cuda")``. It
walks the module tree (``model.apply``) and registers a forward hook on every submodule that is neither a
``Sequential``, a ``ModuleList`` nor the model itself. It picks the input type from ``device`` (``"cuda"`` falls
back to ``torch.FloatTensor`` when CUDA is absent, as here; the name is lower-cased and checked), wraps a single
``input_size`` tuple into a list (a list of tuples means several positional inputs), makes random inputs of batch
two (``torch.rand(...).type(dtype)``) and runs one forward pass. Each hook records the layer's class name and
index, its input and output shapes (a list or tuple output gives one shape per element), and its parameter count
from ``weight`` and ``bias`` when they exist (``torch.prod`` of a ``LongTensor`` of the sizes) and whether its
weight is trainable. The hooks are then removed and the table is printed: one row per layer, then the totals, the
trainable and non-trainable counts and the memory estimates (NumPy products of the shapes, ``batch_size``
multiplying the input size). It returns nothing.

Users call it at the top of a training script, or inside the step they compile before the first forward pass, so
each bench model is a small ``nn.Module`` whose forward calls ``summary`` on the network it holds, with the
input's shape after the batch as ``input_size``, and then runs the network on the input. The tables cover:

- ``NETS``: ``summary(net, input_size, device="cpu")`` on each network: an MLP with dropout, a conv net with batch
  norm and pooling, a 1-d conv net (an instance norm without affine weights: no ``weight`` to count), a 3-d conv
  net, a residual net nested three deep, a small U-Net (``ConvTranspose2d``, concatenation), a GRU and a
  bidirectional two-layer RNN (tuple outputs: the list branch of the hook), a module around
  ``nn.MultiheadAttention`` returning its weights (a tuple output), a pre-norm transformer block written by hand,
  a ``ModuleDict`` of branches, a ``ModuleList`` applied in a loop, one ``Linear`` used twice, a half-frozen
  network (weights not trainable), a pruned network (``weight`` a plain tensor attribute), a ``LazyLinear``, a
  network of bias-free layers and a layer norm without affine weights, an embedding fed by a cast of the random
  float input (how users get token ids through ``summary``), a ``PReLU`` / ``SiLU`` / ``Hardswish`` net, two
  positional inputs (a list of ``input_size`` tuples) and a submodule that
  returns a tuple of heads;
- ``CONFIGS``: the options on several of those: ``device`` left at ``"cuda"`` (the CPU fallback), ``"CPU"``
  (lower-cased), ``batch_size`` given (the memory estimate and the first column of the shapes), ``input_size``
  as a one-element list.

Left out, because they fail eagerly in torchsummary itself: LSTMs (their output ``(out, (h, c))`` holds a tuple,
whose ``size()`` the hook calls), ``nn.TransformerEncoderLayer`` (its attention returns ``None`` weights),
keyword, dict and integer inputs (``summary`` makes float tensors only: the embedding model casts them itself),
float64 or bfloat16 networks (the inputs are float32), and networks without parameters (the total is then the
integer 0, whose ``.numpy()`` the memory estimate calls). Random weights from fixed seeds, the inputs made by
torchsummary itself with ``torch.rand``; nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HID, OUT, SEQ, VOCAB, SIDE = 2, 8, 16, 4, 5, 20, 8

NETS = ("mlp", "cnn", "conv1d", "conv3d", "residual", "unet", "gru", "rnn_bidirectional", "multihead_attention",
        "transformer_block", "module_dict", "module_list", "shared_layer", "frozen", "pruned", "lazy", "bias_free",
        "embedding", "activations", "two_inputs", "tuple_heads")

# Model name -> (net, summary keywords; "size_list": the input size as a one-element list).
CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "mlp.device_default": ("mlp", {}),
    "cnn.device_default": ("cnn", {}),
    "mlp.device_upper": ("mlp", {"device": "CPU"}),
    "mlp.batch_size": ("mlp", {"device": "cpu", "batch_size": 16}),
    "cnn.batch_size": ("cnn", {"device": "cpu", "batch_size": 4}),
    "unet.batch_size": ("unet", {"batch_size": 8}),
    "gru.batch_size": ("gru", {"device": "cpu", "batch_size": 32}),
    "two_inputs.batch_size": ("two_inputs", {"device": "cpu", "batch_size": 2}),
    "mlp.size_list": ("mlp", {"device": "cpu", "size_list": True}),
    "cnn.size_list": ("cnn", {"device": "cpu", "size_list": True}),
    "frozen.device_default": ("frozen", {}),
    "residual.batch_size": ("residual", {"device": "cpu", "batch_size": 1}),
    "multihead_attention.batch_size": ("multihead_attention", {"device": "cpu", "batch_size": 64}),
    "transformer_block.device_default": ("transformer_block", {}),
}


def names() -> list[str]:
    return [f"summary.{n}" for n in NETS] + [f"summary.{n}" for n in CONFIGS]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _net(kind: str) -> tuple[Any, tuple[Any, ...]]:
    """A tiny network of ``kind`` and its positional inputs (float tensors, as torchsummary makes them)."""
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
            tokens = (x.abs() * VOCAB).long().clamp(0, VOCAB - 1)
            return self.proj(self.embed(tokens).mean(1))

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
        return Embedder(), (_randn(BATCH, SEQ, seed=4),)
    if kind == "activations":
        return nn.Sequential(nn.Linear(DIM, HID), nn.PReLU(), nn.Linear(HID, HID), nn.SiLU(), nn.Hardswish(),
                             nn.BatchNorm1d(HID), nn.Linear(HID, OUT), nn.LogSoftmax(-1)), (x,)
    if kind == "two_inputs":
        return TwoInputs(), (x, _randn(BATCH, OUT, seed=3))
    if kind == "tuple_heads":
        return TupleHeads(), (x,)
    raise KeyError(kind)


def build(name: str) -> Built:
    import torch
    from torch import nn
    from torchsummary import summary

    if not name.startswith("summary."):
        raise KeyError(name)
    key = name.removeprefix("summary.")
    if key in NETS:
        kind, options = key, {"device": "cpu"}
    elif key in CONFIGS:
        kind, options = CONFIGS[key]
        options = dict(options)
    else:
        raise KeyError(name)
    size_list = options.pop("size_list", False)
    net, args = _net(kind)
    sizes = [tuple(a.shape[1:]) for a in args]
    input_size: Any = sizes if len(sizes) > 1 or size_list else sizes[0]
    if kind == "lazy":
        lazy = net
        net = None

    class _Summary(nn.Module):
        """``torchsummary.summary`` of ``net`` at the input's shape, then the network on the input."""

        def __init__(self) -> None:
            super().__init__()
            if kind == "lazy":  # kept out of the module tree: the worker counts parameters before the first call
                object.__setattr__(self, "lazy_net", lazy)
            else:
                self.net = net

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            model = self.lazy_net if kind == "lazy" else self.net
            summary(model, input_size, **options)
            return model(*inputs)

        def entry_points(self) -> list[Any]:
            return [summary]

    return _Summary(), args, {}
