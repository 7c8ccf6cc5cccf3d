"""Ground-truth bench, torchinfo: ``summary()`` of small networks, in the configurations users ask for.

torchinfo 1.8.0 is one entry point, ``torchinfo.summary(model, input_size=..., input_data=..., ...)``: it walks
the module tree and registers a forward pre-hook and a forward hook on every submodule (``apply_hooks``), builds
or moves the inputs (``process_input``: random tensors from ``input_size`` and ``dtypes``, or the given
``input_data``, a tensor, a list of tensors or a dict of keywords, with ``batch_dim``), runs one forward pass
under ``no_grad`` in the requested mode, records per layer a ``LayerInfo`` (parameters, trainable ones, pruning
masks, lazy parameters, kernel shapes, input and output sizes through nested lists, dicts and packed sequences,
mult-adds), removes the hooks, adds the containers no hook saw, and returns a ``ModelStatistics`` whose
``__repr__`` formats the table (``FormattingOptions``: columns, depth, row settings, units). Users call it from
their training scripts around a model, so each bench model here is a small ``nn.Module`` whose forward calls
``summary`` on a network it holds and returns the network's parameter count added to a sum over its inputs;
some also render the table (``str(stats)``), as ``print(summary(...))`` does. The tables cover:

- ``NETS``: ``summary(net, input_data=...)`` with the defaults (``verbose=0``) on each network: an MLP, a conv
  net with batch norm and pooling, 1-d and 3-d conv nets, a residual block nested three deep, a small U-Net
  (``ConvTranspose2d``, concatenation), an embedding + two-layer LSTM classifier, a bidirectional GRU, an LSTM
  over packed sequences (the ``.data`` branch of ``calculate_size``), a transformer encoder, a module around
  ``nn.MultiheadAttention`` (one of ``LAYER_MODULES``), a ``ModuleDict`` of branches, a ``ModuleList`` applied in
  a loop, one ``Linear`` used twice (a recursive layer), a half-frozen network (partly trainable), a pruned
  ``Linear`` (``weight_orig`` / ``weight_mask``), a ``LazyLinear`` (counted after the pass; held outside the
  bench module's tree, as the worker counts parameters before the first call, so only that call sees it
  uninitialized), two positional inputs, a dict input, a keyword mask, dict, tuple and list outputs, a network
  without parameters, and float64 and bfloat16 networks;
- ``CONFIGS``: the options on the MLP, the conv net, the residual net, the U-Net, the LSTM classifier, the
  packed LSTM, the transformer, the attention module, the shared-layer, stacked, frozen, pruned, lazy, two-input,
  dict-output and float64 / bfloat16 nets: ``input_size`` (random inputs made inside, with ``dtypes`` for token
  ids or bfloat16, with ``batch_dim``), all seven columns, ``depth`` 1 and 10, ``col_width``, the ``var_names``,
  ``ascii_only`` and ``hide_recursive_layers`` rows, ``mode="train"``, ``cache_forward_pass`` (the second call
  served from the cache), ``device="cpu"``, no input (parameters only, no forward pass), ``verbose=1`` and ``2``
  (the table printed), and ``str(stats)`` (``ModelStatistics.__repr__``, ``FormattingOptions.layers_to_str``).

Left out: ``torch.jit`` script modules (torchinfo's ``WRAPPER_MODULES``), since scripting is its own compiler
and users do not compile a script module's summary; NumPy inputs (the network would receive NumPy arrays).
Random weights and inputs from fixed seeds, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HID, OUT, SEQ, VOCAB, SIDE = 2, 8, 16, 4, 5, 20, 8
ALL_COLUMNS = ("input_size", "output_size", "num_params", "params_percent", "kernel_size", "mult_adds", "trainable")

NETS = ("mlp", "cnn", "conv1d", "conv3d", "residual", "unet", "lstm_classifier", "gru_bidirectional", "lstm_packed",
        "transformer", "multihead_attention", "module_dict", "module_list", "shared_layer", "frozen", "pruned",
        "lazy", "two_inputs", "dict_input", "keyword_mask", "dict_output", "tuple_output", "list_output",
        "no_parameters", "float64", "bfloat16")

# Model name -> (net, summary keywords, how inputs are passed: "data" | "size" | "none", render ``str(stats)``).
CONFIGS: dict[str, tuple[str, dict[str, Any], str, bool]] = {
    "mlp.input_size": ("mlp", {}, "size", False),
    "mlp.input_size.batch_dim": ("mlp", {"batch_dim": 0}, "size", False),
    "mlp.batch_dim": ("mlp", {"batch_dim": 0}, "data", False),
    "mlp.all_columns": ("mlp", {"col_names": ALL_COLUMNS}, "data", False),
    "mlp.mode_train": ("mlp", {"mode": "train"}, "data", False),
    "mlp.cache_forward_pass": ("mlp", {"cache_forward_pass": True}, "data", False),
    "mlp.device_cpu": ("mlp", {"device": "cpu"}, "data", False),
    "mlp.no_input": ("mlp", {}, "none", False),
    "mlp.no_input.render": ("mlp", {}, "none", True),
    "mlp.render": ("mlp", {}, "data", True),
    "mlp.verbose1": ("mlp", {"verbose": 1}, "data", False),
    "mlp.verbose2": ("mlp", {"verbose": 2, "col_names": ("kernel_size", "num_params")}, "data", False),
    "cnn.input_size": ("cnn", {}, "size", False),
    "cnn.all_columns": ("cnn", {"col_names": ALL_COLUMNS}, "data", False),
    "cnn.all_columns.render": ("cnn", {"col_names": ALL_COLUMNS}, "data", True),
    "cnn.depth1.render": ("cnn", {"depth": 1}, "data", True),
    "cnn.var_names.render": ("cnn", {"row_settings": ("var_names", "depth")}, "data", True),
    "cnn.ascii_only.render": ("cnn", {"row_settings": ("ascii_only",)}, "data", True),
    "cnn.col_width.render": ("cnn", {"col_width": 12, "col_names": ("output_size", "mult_adds")}, "data", True),
    "cnn.mode_train.verbose1": ("cnn", {"mode": "train", "verbose": 1}, "data", False),
    "cnn.no_input": ("cnn", {"col_names": ("num_params", "kernel_size", "trainable")}, "none", False),
    "residual.depth10.render": ("residual", {"depth": 10, "col_names": ALL_COLUMNS}, "data", True),
    "residual.depth1": ("residual", {"depth": 1}, "data", False),
    "unet.all_columns.render": ("unet", {"col_names": ALL_COLUMNS}, "data", True),
    "lstm_classifier.input_size.dtypes": ("lstm_classifier", {"dtypes": ["long"]}, "size", False),
    "lstm_classifier.all_columns.render": ("lstm_classifier", {"col_names": ALL_COLUMNS, "verbose": 2}, "data", True),
    "lstm_packed.all_columns": ("lstm_packed", {"col_names": ALL_COLUMNS}, "data", False),
    "transformer.all_columns.render": ("transformer", {"col_names": ALL_COLUMNS}, "data", True),
    "transformer.depth1.var_names": ("transformer", {"depth": 1, "row_settings": ("var_names",)}, "data", False),
    "multihead_attention.all_columns": ("multihead_attention", {"col_names": ALL_COLUMNS}, "data", False),
    "shared_layer.render": ("shared_layer", {}, "data", True),
    "shared_layer.hide_recursive.render": ("shared_layer", {"row_settings": ("depth", "hide_recursive_layers")},
                                           "data", True),
    "module_list.params_percent.render": ("module_list", {"col_names": ("num_params", "params_percent")}, "data",
                                          True),
    "frozen.trainable.render": ("frozen", {"col_names": ("num_params", "trainable")}, "data", True),
    "pruned.render": ("pruned", {"col_names": ("num_params", "mult_adds")}, "data", True),
    "lazy.all_columns": ("lazy", {"col_names": ALL_COLUMNS}, "data", False),
    "two_inputs.input_size": ("two_inputs", {}, "size", False),
    "dict_output.all_columns": ("dict_output", {"col_names": ALL_COLUMNS}, "data", False),
    "bfloat16.input_size.dtypes": ("bfloat16", {"dtypes": ["bfloat16"]}, "size", False),
    "float64.render": ("float64", {"col_names": ALL_COLUMNS}, "data", True),
}


def names() -> list[str]:
    return [f"summary.{n}" for n in NETS] + [f"summary.{n}" for n in CONFIGS]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 1, dtype: Any = None) -> Any:
    import torch

    x = torch.randn(*shape, generator=_gen(seed))
    return x if dtype is None else x.to(dtype)


def _tokens(seed: int = 2) -> Any:
    import torch

    return torch.randint(0, VOCAB, (BATCH, SEQ), generator=_gen(seed))


def _net(kind: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """A tiny network of ``kind``, its positional inputs and its keyword inputs."""
    import torch
    from torch import nn
    from torch.nn.utils import prune
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    torch.manual_seed(0)

    def mlp() -> nn.Module:
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Dropout(0.1), nn.Linear(HID, OUT))

    def cnn() -> nn.Module:
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(4, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, OUT))

    image = _randn(BATCH, 3, SIDE, SIDE)
    if kind == "mlp":
        return mlp(), (_randn(BATCH, DIM),), {}
    if kind == "cnn":
        return cnn(), (image,), {}
    if kind == "conv1d":
        net = nn.Sequential(nn.Conv1d(3, 4, 3), nn.InstanceNorm1d(4), nn.GELU(), nn.AvgPool1d(2), nn.Flatten(),
                            nn.LazyLinear(OUT))
        net(_randn(BATCH, 3, 12))
        return net, (_randn(BATCH, 3, 12),), {}
    if kind == "conv3d":
        return (nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU(), nn.MaxPool3d(2),
                              nn.AdaptiveMaxPool3d(1), nn.Flatten(), nn.Linear(4, OUT)),
                (_randn(BATCH, 2, 4, 4, 4),), {})

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

    class LSTMClassifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, DIM)
            self.lstm = nn.LSTM(DIM, HID, num_layers=2, batch_first=True)
            self.head = nn.Linear(HID, OUT)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            out, _ = self.lstm(self.embed(tokens))
            return self.head(out[:, -1])

    class BiGRU(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gru = nn.GRU(DIM, HID, batch_first=True, bidirectional=True)
            self.head = nn.Linear(2 * HID, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out, hidden = self.gru(x)
            return self.head(out.mean(1))

    class PackedLSTM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(DIM, HID, batch_first=True)
            self.head = nn.Linear(HID, OUT)

        def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, _ = self.lstm(packed)
            padded, _ = pad_packed_sequence(out, batch_first=True, total_length=SEQ)
            return self.head(padded)

    class Attention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(DIM)
            self.attn = nn.MultiheadAttention(DIM, 2, batch_first=True)
            self.proj = nn.Linear(DIM, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.norm(x)
            out, _ = self.attn(h, h, h, need_weights=False)
            return self.proj(out + x)

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

    class TwoInputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(DIM, HID)
            self.b = nn.Linear(OUT, HID)
            self.out = nn.Linear(HID, OUT)

        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return self.out(torch.relu(self.a(a) + self.b(b)))

    class DictInput(TwoInputs):
        def forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:  # type: ignore[override]
            return super().forward(batch["a"], batch["b"])

    class Masked(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(DIM, OUT)

        def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
            out = self.proj(x)
            return out if mask is None else out.masked_fill(~mask[..., None], 0.0)

    class DictOutput(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Linear(DIM, HID)
            self.logits = nn.Linear(HID, OUT)
            self.value = nn.Linear(HID, 1)

        def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
            h = torch.relu(self.body(x))
            return {"logits": self.logits(h), "value": self.value(h)}

    class TupleOutput(DictOutput):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
            out = super().forward(x)
            return out["logits"], out["value"]

    class ListOutput(DictOutput):
        def forward(self, x: torch.Tensor) -> list[torch.Tensor]:  # type: ignore[override]
            out = super().forward(x)
            return [out["logits"], out["value"]]

    x, seq = _randn(BATCH, DIM), _randn(BATCH, SEQ, DIM)
    if kind == "residual":
        return Residual(), (image,), {}
    if kind == "unet":
        return UNet(), (image,), {}
    if kind == "lstm_classifier":
        return LSTMClassifier(), (_tokens(),), {}
    if kind == "gru_bidirectional":
        return BiGRU(), (seq,), {}
    if kind == "lstm_packed":
        return PackedLSTM(), (seq, torch.tensor([SEQ, 3])), {}
    if kind == "transformer":
        layer = nn.TransformerEncoderLayer(DIM, 2, dim_feedforward=HID, dropout=0.0, batch_first=True)
        return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), (seq,), {}
    if kind == "multihead_attention":
        return Attention(), (seq,), {}
    if kind == "module_dict":
        return Branches(), (x,), {}
    if kind == "module_list":
        return Stack(), (x,), {}
    if kind == "shared_layer":
        return Shared(), (x,), {}
    if kind == "frozen":
        net = mlp()
        net[0].requires_grad_(False)
        net[3].bias.requires_grad_(False)
        return net, (x,), {}
    if kind == "pruned":
        net = mlp()
        prune.l1_unstructured(net[0], "weight", amount=0.5)
        prune.random_unstructured(net[3], "bias", amount=0.5)
        return net, (x,), {}
    if kind == "lazy":
        return nn.Sequential(nn.LazyLinear(HID), nn.ReLU(), nn.Linear(HID, OUT)), (x,), {}
    if kind == "two_inputs":
        return TwoInputs(), (x, _randn(BATCH, OUT, seed=3)), {}
    if kind == "dict_input":
        return DictInput(), (x, _randn(BATCH, OUT, seed=3)), {}
    if kind == "keyword_mask":
        return Masked(), (seq,), {"mask": torch.tensor([[True] * SEQ, [True, True, True, False, False]])}
    if kind == "dict_output":
        return DictOutput(), (x,), {}
    if kind == "tuple_output":
        return TupleOutput(), (x,), {}
    if kind == "list_output":
        return ListOutput(), (x,), {}
    if kind == "no_parameters":
        return nn.Sequential(nn.ReLU(), nn.Flatten(), nn.Softmax(dim=-1)), (image,), {}
    if kind == "float64":
        return mlp().double(), (_randn(BATCH, DIM, dtype=torch.float64),), {}
    if kind == "bfloat16":
        return mlp().to(torch.bfloat16), (_randn(BATCH, DIM, dtype=torch.bfloat16),), {}
    raise KeyError(kind)


def build(name: str) -> Built:
    import torch
    from torch import nn
    from torchinfo import summary
    from torchinfo.model_statistics import ModelStatistics

    if not name.startswith("summary."):
        raise KeyError(name)
    key = name.removeprefix("summary.")
    if key in NETS:
        kind, options, inputs, render = key, {}, "data", False
    elif key in CONFIGS:
        kind, options, inputs, render = CONFIGS[key]
    else:
        raise KeyError(name)
    net, args, kwargs = _net(kind)
    options = {"verbose": 0, **options}
    if "dtypes" in options:
        options["dtypes"] = [getattr(torch, d) for d in options["dtypes"]]
    sizes = [tuple(a.shape) for a in args]
    if options.get("batch_dim") is not None:
        sizes = [s[1:] for s in sizes]
        if inputs == "data":  # one sample, the batch dimension added back by torchinfo's sizes
            args = tuple(a[:1] for a in args)
    dict_input = kind == "dict_input"

    class _Summary(nn.Module):
        """``torchinfo.summary`` of ``net`` on the given inputs; the parameter count plus a sum of the inputs."""

        def __init__(self) -> None:
            super().__init__()
            if kind == "lazy":  # kept out of the module tree: the worker counts parameters before the first call
                object.__setattr__(self, "lazy_net", net)
            else:
                self.net = net

        def forward(self, *tensors: torch.Tensor, **keywords: torch.Tensor) -> torch.Tensor:
            net = self.lazy_net if kind == "lazy" else self.net
            if inputs == "size":
                stats = summary(net, input_size=sizes if len(sizes) > 1 else sizes[0], **options,
                                **keywords)
            elif inputs == "none":
                stats = summary(net, **options)
            elif dict_input:
                stats = summary(net, input_data=[{"a": tensors[0], "b": tensors[1]}], **options, **keywords)
            else:
                data = tensors[0] if len(tensors) == 1 else list(tensors)
                stats = summary(net, input_data=data, **options, **keywords)
            total = sum(t.float().sum() for t in tensors)
            if render:
                total = total + len(str(stats))
            return total + stats.total_params + stats.trainable_params

        def entry_points(self) -> list[Any]:
            return [summary, ModelStatistics.__repr__] if render else [summary]

    return _Summary(), args, kwargs
