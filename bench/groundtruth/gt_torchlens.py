"""Ground-truth bench, torchlens: activation logging and graph metadata of small networks, from a compiled step.

torchlens 2.36.1 runs a user's model once with every torch function wrapped (its "decorated" torch namespace) and
records each operation as a ``Layer`` of a ``Trace``: the activation, its parents and children, the module that ran
it, its parameters, shapes, FLOPs. The 2.x API names the entry points differently from 1.x: ``log_forward_pass``
is ``torchlens.trace(model, x, ...)`` (returns the ``Trace``; ``trace[label].activation`` and ``.layer_labels``
give the activations and the graph), ``get_model_metadata`` is ``torchlens.summary(model, x, ...)`` (a
metadata-only pass rendered as a table), ``torchlens.extract(model, x, layers)`` returns selected activations as a
dict, ``torchlens.validate(model, x, scope=...)`` replays the saved activations and checks them against a plain
forward pass ("forward" / "saved"), and ``torchlens.fastlog.record`` is the lightweight recorder. Users call these
inside their training or analysis steps, so each bench model here is a small ``nn.Module`` whose forward calls one
entry point on a network it holds and returns a tensor built from what came back (an activation, or a count from
the metadata added to a sum of the inputs). The tables cover:

- ``NETS``: tiny networks of several kinds (an MLP, a conv net with batch norm and pooling, a residual block, an
  LSTM classifier over token ids, a transformer encoder layer, a module applied in a loop (a recurrent graph), a
  network with a data-independent Python branch, two inputs, a dict output);
- ``CALLS``: the entry points over those networks: ``trace`` (default options, a ``save=tl.regex(...)`` selection
  of the layers kept, ``save_mode="reference"``), ``extract`` of named layers (labels taken from a first eager
  trace in ``build``, as users read them off a trace), ``summary`` (the report's length; with ``input_size`` and
  with ``execution_mode="same"``), ``validate`` in the forward and saved scopes, ``fastlog.record`` and
  ``torchlens.record`` with ``return_output``.

Nearly every model ends in a Dynamo internal error rather than a clean run (torchlens swaps torch's functions
for its own wrappers while Dynamo traces them); the breaks recorded before that are kept. ``extract`` on the
looped network is left out (its layer has three passes and ``extract`` refuses it eagerly), and so is ``extract``
on the transformer layer (in eval mode its fused fast path leaves no layer of the label a train-mode trace gives).

Left out: drawing the graph (``Trace.draw``/graphviz: writes files and calls an external binary), saving or
loading
traces to disk, and the non-torch backends (mlx, jax, tinygrad, paddle, tf), which are not installed.
Random weights and inputs from fixed seeds, CPU only, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HID, OUT, SEQ, VOCAB, SIDE = 2, 8, 16, 4, 5, 20, 8

NETS = ("mlp", "cnn", "residual", "lstm", "transformer", "loop", "branch", "two_inputs", "dict_output")

# call -> nets it runs on
CALLS: dict[str, tuple[str, ...]] = {
    "trace": NETS,
    "trace_regex": ("mlp",),
    "trace_reference": ("mlp",),
    "extract": ("mlp", "cnn", "residual", "lstm", "two_inputs", "dict_output", "branch"),
    "summary": ("mlp", "cnn", "lstm", "transformer", "residual", "loop", "two_inputs"),
    "summary_input_size": ("mlp",),
    "summary_same_mode": ("mlp",),
    "validate_forward": ("mlp", "cnn", "lstm", "transformer"),
    "validate_saved": ("mlp",),
    "fastlog": ("mlp", "cnn"),
    "record": ("mlp", "cnn", "lstm"),
}


def names() -> list[str]:
    return [f"{call}.{net}" for call, nets in CALLS.items() for net in nets]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _net(kind: str) -> tuple[Any, tuple[Any, ...]]:
    import torch
    from torch import nn

    torch.manual_seed(0)

    class Residual(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(4, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.conv2 = nn.Conv2d(4, 4, 3, padding=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x + self.conv2(torch.relu(self.bn(self.conv1(x)))))

    class LSTMNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(VOCAB, DIM)
            self.lstm = nn.LSTM(DIM, HID, batch_first=True)
            self.head = nn.Linear(HID, OUT)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            out, _ = self.lstm(self.emb(tokens))
            return self.head(out[:, -1])

    class Loop(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.cell = nn.Linear(DIM, DIM)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for _ in range(3):
                x = torch.tanh(self.cell(x))
            return x

    class Branch(nn.Module):
        def __init__(self, residual: bool = True) -> None:
            super().__init__()
            self.residual = residual
            self.fc = nn.Linear(DIM, DIM)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.fc(x)
            if self.residual:
                y = y + x
            return y.sigmoid()

    class TwoInputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(DIM, HID)
            self.b = nn.Linear(OUT, HID)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.a(x) * self.b(y)

    class DictOutput(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(DIM, HID)
            self.head = nn.Linear(HID, OUT)

        def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
            h = torch.relu(self.fc(x))
            return {"hidden": h, "logits": self.head(h)}

    x = _randn(BATCH, DIM)
    image = _randn(BATCH, 3, SIDE, SIDE)
    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, OUT)), (x,)
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(4 * 4 * 4, OUT)), (image,)
    if kind == "residual":
        return Residual(), (_randn(BATCH, 4, SIDE, SIDE),)
    if kind == "lstm":
        return LSTMNet(), (torch.randint(0, VOCAB, (BATCH, SEQ), generator=_gen(2)),)
    if kind == "transformer":
        return nn.TransformerEncoderLayer(DIM, 2, HID, dropout=0.0, batch_first=True), (_randn(BATCH, SEQ, DIM),)
    if kind == "loop":
        return Loop(), (x,)
    if kind == "branch":
        return Branch(), (x,)
    if kind == "two_inputs":
        return TwoInputs(), (x, _randn(BATCH, OUT, seed=3))
    if kind == "dict_output":
        return DictOutput(), (x,)
    raise KeyError(kind)


def build(name: str) -> Built:
    import torch
    from torch import nn
    import torchlens as tl

    call, _, kind = name.partition(".")
    if call not in CALLS or kind not in CALLS[call]:
        raise KeyError(name)
    net, args = _net(kind)
    layers: list[str] = []
    if call == "extract":  # one early layer, by its label, as users pick them from a first trace
        layers = _layers(kind) if kind in ("mlp", "cnn", "residual") else \
            [tl.trace(net, args[0] if len(args) == 1 else list(args)).layer_labels[1]]

    class _Lens(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            inp = tensors[0] if len(tensors) == 1 else list(tensors)
            total = sum(t.float().sum() for t in tensors)
            if call == "trace":
                log = tl.trace(self.net, inp)
                labels = log.layer_labels
                return total + log[labels[-2]].tensor.float().sum() + len(labels)
            if call == "trace_regex":
                log = tl.trace(self.net, inp, save=tl.regex("linear"))
                return total + len(log.layer_labels)
            if call == "trace_reference":
                log = tl.trace(self.net, inp, save_mode="reference")
                return total + log[log.layer_labels[1]].tensor.float().sum()
            if call == "extract":
                acts = tl.extract(self.net, inp, layers)
                return total + sum(a.float().sum() for a in acts.values())
            if call == "summary":
                return total + len(tl.summary(self.net, inp))
            if call == "summary_input_size":
                return total + len(tl.summary(self.net, input_size=tuple(tensors[0].shape)))
            if call == "summary_same_mode":
                return total + len(tl.summary(self.net, inp, execution_mode="same", grad_mode="same"))
            if call == "validate_saved":
                return total + int(bool(tl.validate(self.net, inp, scope="saved", random_seed=0)))
            if call == "record":
                out, rec = tl.record(self.net, inp, default_op=True, return_output=True)
                return total + out.float().sum() + len(rec)
            if call == "validate_forward":
                return total + int(bool(tl.validate(self.net, inp, scope="forward", random_seed=0)))
            if call == "fastlog":
                rec = tl.fastlog.record(self.net, inp, default_op=True)
                return total + len(rec)
            raise KeyError(call)

    return _Lens(), args, {}


def _layers(kind: str) -> list[str]:
    # labels for the MLP, module addresses for the others (their labels shift with batch norm's train-mode buffers)
    return {"mlp": ["linear_1_1", "relu_1_2"], "cnn": ["0", "2"], "residual": ["conv1", "conv2"]}[kind]
