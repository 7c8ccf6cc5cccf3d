"""Ground-truth bench, ptflops: MAC and parameter counting of small networks, both backends, hooks and helpers.

ptflops 0.7.5 has one entry point, ``get_model_complexity_info(model, input_res, ...)``, with two backends. The
``pytorch`` backend (``pytorch_engine``) adds counting methods to the model, registers a batch-counter hook on it
and a forward hook per supported module type (``MODULES_MAPPING`` in ``pytorch_ops``: convolutions, transposed
convolutions, activations, poolings, batch / instance / group / layer norms, ``Linear``, ``Upsample``, RNNs and
their cells, ``MultiheadAttention``, timm's ViT ``Attention``; or the user's ``custom_modules_hooks``), patches
``torch.nn.functional`` and a few tensor ops (``matmul``, ``mm``, ``bmm``, ``addmm``, ``baddbmm``, ``mul``,
``add``) with counting wrappers unless ``count_functional`` is off, runs one pass on an input built from
``input_res`` (or ``input_constructor``), sums the modules' counts, optionally prints the model with per-layer
statistics (``print_model_with_flops``, ``extra_repr`` swapped), and undoes everything. The ``aten`` backend
counts dispatched ``aten`` matmuls and convolutions in a ``TorchDispatchMode`` (``FlopCounterMode``) with module
pre- and post-hooks naming the top-level children. Users call it around a model in their scripts, so each bench
model is a small ``nn.Module`` whose forward calls the library on a network it holds (the input's shape is the
``input_res``). The tables cover:

- ``NETS`` x ``pytorch`` / ``aten``: ``get_model_complexity_info`` without the per-layer printout on each network:
  an MLP, a conv net with batch norm, grouped convolution and pooling, a 1-d conv net (instance norm, ELU,
  average and adaptive poolings), a 3-d conv net, a decoder (``ConvTranspose2d``, group norm, PReLU, ReLU6,
  ``Upsample``), an MLP with layer norm, GELU, LeakyReLU and SiLU (a zero-op module), an RNN, a GRU, a
  bidirectional two-layer LSTM, the three RNN cells stepped over a sequence, ``MultiheadAttention`` batch-first
  and sequence-first, a transformer encoder layer, timm's ``Attention`` and ViT ``Block``, a network written
  with functionals and tensor ops (counted by the patches), and a network with a custom module;
- ``CONFIGS``: the options: the per-layer printout (to a ``StringIO``, and to ``sys.stdout`` by default), raw
  numbers (``as_strings=False``), the MAC and parameter units and precision, ``verbose`` warnings,
  ``ignore_modules`` (module types, and ``aten`` ops), ``custom_modules_hooks`` (a module type, an ``aten`` op),
  ``count_functional`` off, and ``input_constructor`` giving keywords (a two-input network) or a tensor;
- ``HOOKED``: the lower-level counting API as a training script uses it to count per iteration: the network
  given ``add_flops_counting_methods`` and ``start_flops_count`` at build time, the compiled forward running it
  with the counting hooks on (the module hooks and ``batch_counter_hook``), optionally followed by
  ``compute_average_flops_cost`` (and ``reset_flops_count``); ``FlopCounterMode`` entered in the forward;
- ``UTILS``: ``flops_to_string``, ``params_to_string`` in each unit, and ``get_model_parameters_number``.

The ``pytorch`` backend's networks are given ``add_flops_counting_methods`` and ``stop_flops_count`` at build
time, as after an earlier count: without it every such model fails under Dynamo (not eagerly) with an
``AttributeError`` on the counting method the library has just bound to the module, so nothing past it is traced.

Left out: the functional and tensor-op patches (``patch_functional`` / ``patch_tensor_ops``) left on around a
compiled forward: Dynamo fails with an internal error on the patched function (a ``torch_function_wrapper``
object has no ``__name__``); torchvision's ``DeformConv2d`` (its compiled operator is not available on this CPU torch) and lazy
modules (the ``pytorch`` backend fails on them eagerly: no ``__flops__`` on the materialized ``Linear``). Random
weights from fixed seeds; ptflops makes its own input with ``new_empty`` (values unused: only shapes are
counted). Nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HID, OUT, SEQ, SIDE = 2, 8, 16, 4, 5, 8

NETS = ("mlp", "cnn", "conv1d", "conv3d", "decoder", "norms_activations", "rnn", "gru", "lstm_bidirectional",
        "rnn_cells", "multihead_attention", "multihead_attention.seq_first", "transformer_layer",
        "timm_attention", "timm_block", "functional", "custom_module")
ATEN_NETS = ("mlp", "cnn", "conv1d", "conv3d", "decoder", "norms_activations", "lstm_bidirectional",
             "multihead_attention", "transformer_layer", "timm_block", "functional")

# Model name -> (net, backend, keywords of get_model_complexity_info; "ost": "buffer" or "stdout",
# "ignore"/"custom": names resolved in ``_options``).
CONFIGS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "pytorch.cnn.per_layer": ("cnn", "pytorch", {"print_per_layer_stat": True, "ost": "buffer"}),
    "pytorch.cnn.per_layer.stdout": ("cnn", "pytorch", {}),
    "pytorch.transformer_layer.per_layer": ("transformer_layer", "pytorch",
                                            {"print_per_layer_stat": True, "ost": "buffer"}),
    "pytorch.decoder.per_layer.units": ("decoder", "pytorch", {"print_per_layer_stat": True, "ost": "buffer",
                                                               "flops_units": "KMac", "param_units": "K",
                                                               "output_precision": 4}),
    "pytorch.mlp.numbers": ("mlp", "pytorch", {"as_strings": False}),
    "pytorch.cnn.numbers": ("cnn", "pytorch", {"as_strings": False}),
    "pytorch.mlp.units_MMac_M": ("mlp", "pytorch", {"flops_units": "MMac", "param_units": "M"}),
    "pytorch.mlp.units_GMac_B": ("mlp", "pytorch", {"flops_units": "GMac", "param_units": "B",
                                                    "output_precision": 6}),
    "pytorch.mlp.units_Mac_none": ("mlp", "pytorch", {"flops_units": "Mac", "param_units": "none"}),
    "pytorch.norms_activations.verbose": ("norms_activations", "pytorch", {"verbose": True, "ost": "buffer"}),
    "pytorch.cnn.ignore_modules": ("cnn", "pytorch", {"ignore": ("ReLU", "BatchNorm2d")}),
    "pytorch.custom_module.custom_hooks": ("custom_module", "pytorch", {"custom": "Scale"}),
    "pytorch.custom_module.custom_hooks.per_layer": ("custom_module", "pytorch",
                                                     {"custom": "Scale", "print_per_layer_stat": True,
                                                      "ost": "buffer"}),
    "pytorch.functional.no_count_functional": ("functional", "pytorch",
                                               {"backend_specific_config": {"count_functional": False}}),
    "pytorch.two_inputs.input_constructor": ("two_inputs", "pytorch", {"constructor": "dict"}),
    "pytorch.mlp.input_constructor_tensor": ("mlp", "pytorch", {"constructor": "tensor"}),
    "aten.cnn.per_layer": ("cnn", "aten", {"print_per_layer_stat": True, "ost": "buffer"}),
    "aten.transformer_layer.per_layer.units": ("transformer_layer", "aten",
                                               {"print_per_layer_stat": True, "ost": "buffer",
                                                "flops_units": "KMac", "output_precision": 3}),
    "aten.mlp.numbers": ("mlp", "aten", {"as_strings": False}),
    "aten.norms_activations.verbose": ("norms_activations", "aten", {"verbose": True, "ost": "buffer"}),
    "aten.mlp.ignore_addmm": ("mlp", "aten", {"ignore": ("aten.addmm",), "ost": "buffer"}),
    "aten.mlp.custom_relu": ("mlp", "aten", {"custom": "aten.relu"}),
    "aten.two_inputs.input_constructor": ("two_inputs", "aten", {"constructor": "dict"}),
}
# Model name -> (net, what the forward does after the network: "forward" | "compute" | "compute_reset").
HOOKED: dict[str, tuple[str, str]] = {
    "hooked.mlp": ("mlp", "forward"),
    "hooked.cnn": ("cnn", "forward"),
    "hooked.decoder": ("decoder", "forward"),
    "hooked.lstm_bidirectional": ("lstm_bidirectional", "forward"),
    "hooked.rnn_cells": ("rnn_cells", "forward"),
    "hooked.multihead_attention": ("multihead_attention", "forward"),
    "hooked.timm_block": ("timm_block", "forward"),
    "hooked.mlp.compute": ("mlp", "compute"),
    "hooked.cnn.compute": ("cnn", "compute"),
    "hooked.transformer_layer.compute": ("transformer_layer", "compute"),
    "hooked.cnn.compute_reset": ("cnn", "compute_reset"),
    "FlopCounterMode.mlp": ("mlp", "mode"),
    "FlopCounterMode.cnn.per_layer": ("cnn", "mode_print"),
    "FlopCounterMode.transformer_layer": ("transformer_layer", "mode"),
}
# Model name -> (function, keywords).
UTILS: dict[str, tuple[str, dict[str, Any]]] = {
    "flops_to_string.auto": ("flops_to_string", {}),
    "flops_to_string.GMac": ("flops_to_string", {"units": "GMac", "precision": 4}),
    "flops_to_string.MMac": ("flops_to_string", {"units": "MMac"}),
    "flops_to_string.KMac": ("flops_to_string", {"units": "KMac", "precision": 1}),
    "flops_to_string.Mac": ("flops_to_string", {"units": "Mac"}),
    "params_to_string.auto": ("params_to_string", {}),
    "params_to_string.M": ("params_to_string", {"units": "M"}),
    "params_to_string.K": ("params_to_string", {"units": "K", "precision": 3}),
    "params_to_string.B": ("params_to_string", {"units": "B"}),
    "get_model_parameters_number": ("get_model_parameters_number", {}),
}


def names() -> list[str]:
    return ([f"pytorch.{n}" for n in NETS] + [f"aten.{n}" for n in ATEN_NETS] + list(CONFIGS) + list(HOOKED)
            + list(UTILS))


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _net(kind: str) -> tuple[Any, Any]:
    """A tiny network of ``kind`` and one input batch for it (its shape after the batch is the ``input_res``)."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(0)
    x, seq, image = _randn(BATCH, DIM), _randn(BATCH, SEQ, DIM), _randn(BATCH, 3, SIDE, SIDE)

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
        def __init__(self, batch_first: bool) -> None:
            super().__init__()
            self.attn = nn.MultiheadAttention(DIM, 2, batch_first=batch_first)
            self.batch_first = batch_first

        def forward(self, seq: torch.Tensor) -> torch.Tensor:
            s = seq if self.batch_first else seq.transpose(0, 1)
            out, _ = self.attn(s, s, s)
            return out

    class Recurrent(nn.Module):
        def __init__(self, rnn: nn.Module, width: int) -> None:
            super().__init__()
            self.rnn = rnn
            self.head = nn.Linear(width, OUT)

        def forward(self, seq: torch.Tensor) -> torch.Tensor:
            out, _ = self.rnn(seq)
            return self.head(out[:, -1])

    class Functional(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.weight = nn.Parameter(torch.randn(4, OUT))

        def forward(self, image: torch.Tensor) -> torch.Tensor:
            h = F.relu(self.conv(image))
            h = F.interpolate(h, scale_factor=2, mode="nearest")
            h = F.avg_pool2d(F.gelu(h), 2)
            h = F.max_pool2d(F.silu(h), 2)
            pooled = F.adaptive_avg_pool2d(h, 1).flatten(1)
            logits = torch.matmul(pooled, self.weight)
            logits = torch.add(logits.mul(2.0), pooled.mm(self.weight))
            return F.softmax(F.elu(logits), dim=-1)

    class Scale(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gain = nn.Parameter(torch.ones(HID))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * self.gain

    class TwoInputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(DIM, HID)
            self.b = nn.Linear(OUT, HID)
            self.out = nn.Linear(HID, OUT)

        def forward(self, a: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
            h = self.a(a) if b is None else self.a(a) + self.b(b)
            return self.out(torch.relu(h))

    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, OUT)), x
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(4, 8, 3, groups=2, bias=False), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                             nn.Linear(8, OUT)), image
    if kind == "conv1d":
        return nn.Sequential(nn.Conv1d(3, 4, 3), nn.InstanceNorm1d(4, affine=True), nn.ELU(), nn.AvgPool1d(2),
                             nn.AdaptiveMaxPool1d(3), nn.AdaptiveAvgPool1d(1), nn.Flatten()), _randn(BATCH, 3, 12)
    if kind == "conv3d":
        return nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4), nn.InstanceNorm3d(4), nn.LeakyReLU(),
                             nn.MaxPool3d(2), nn.AvgPool3d(1), nn.AdaptiveAvgPool3d(1), nn.Flatten(),
                             nn.Linear(4, OUT)), _randn(BATCH, 2, 4, 4, 4)
    if kind == "decoder":
        return nn.Sequential(nn.ConvTranspose2d(3, 4, 2, stride=2), nn.GroupNorm(2, 4), nn.PReLU(),
                             nn.Upsample(scale_factor=2), nn.Conv2d(4, 2, 3, padding=1), nn.InstanceNorm2d(2),
                             nn.ReLU6(), nn.AdaptiveMaxPool2d(2), nn.Flatten()), image
    if kind == "norms_activations":
        return nn.Sequential(nn.Linear(DIM, HID), nn.LayerNorm(HID), nn.GELU(), nn.Linear(HID, HID),
                             nn.LeakyReLU(0.1), nn.SiLU(), nn.BatchNorm1d(HID), nn.Linear(HID, OUT)), x
    if kind == "rnn":
        return Recurrent(nn.RNN(DIM, HID, batch_first=True), HID), seq
    if kind == "gru":
        return Recurrent(nn.GRU(DIM, HID, batch_first=True, bias=False), HID), seq
    if kind == "lstm_bidirectional":
        return Recurrent(nn.LSTM(DIM, HID, num_layers=2, batch_first=True, bidirectional=True), 2 * HID), seq
    if kind == "rnn_cells":
        return Cells(), seq
    if kind == "multihead_attention":
        return SelfAttention(True), seq
    if kind == "multihead_attention.seq_first":
        return SelfAttention(False), seq
    if kind == "transformer_layer":
        return nn.TransformerEncoderLayer(DIM, 2, dim_feedforward=HID, dropout=0.0, batch_first=True), seq
    if kind in ("timm_attention", "timm_block"):
        from timm.models.vision_transformer import Attention, Block

        if kind == "timm_attention":
            return Attention(DIM, num_heads=2, qkv_bias=True), seq
        return Block(DIM, num_heads=2, mlp_ratio=2.0), seq
    if kind == "functional":
        return Functional(), image
    if kind == "custom_module":
        return nn.Sequential(nn.Linear(DIM, HID), Scale(), nn.ReLU(), nn.Linear(HID, OUT)), x
    if kind == "two_inputs":
        return TwoInputs(), x
    raise KeyError(kind)


def _scale_hook(module: Any, inputs: Any, output: Any) -> None:
    """A user's counting hook for the custom ``Scale`` module: one multiplication per output element."""
    module.__flops__ += int(output.numel())


def _relu_ops(inputs: Any, outputs: Any) -> int:
    """A user's ``aten`` counting hook: one operation per output element."""
    return int(outputs[0].numel())


def _options(net: Any, backend: str, config: dict[str, Any]) -> dict[str, Any]:
    """get_model_complexity_info's keywords from a table entry."""
    import io

    import torch
    from torch import nn

    options: dict[str, Any] = {"print_per_layer_stat": False, "backend": backend}
    for key, value in config.items():
        if key == "ost":
            if value == "buffer":
                options["ost"] = io.StringIO()
        elif key == "ignore":
            options["ignore_modules"] = [getattr(torch.ops.aten, v.split(".")[1]) if v.startswith("aten.")
                                         else getattr(nn, v) for v in value]
        elif key == "custom":
            if value == "aten.relu":
                options["custom_modules_hooks"] = {torch.ops.aten.relu: _relu_ops}
            else:
                scale = type(net[1])
                options["custom_modules_hooks"] = {scale: _scale_hook}
        elif key == "constructor":
            if value == "dict":
                options["input_constructor"] = lambda res: {"a": torch.ones(1, *res), "b": torch.ones(1, OUT)}
            else:
                options["input_constructor"] = lambda res: torch.full((2, *res), 0.5)
        else:
            options[key] = value
    if config == {}:  # the library's defaults: the per-layer printout to sys.stdout
        options.pop("print_per_layer_stat")
    return options


def _complexity(net: Any, x: Any, options: dict[str, Any]) -> Built:
    import torch
    from ptflops import get_model_complexity_info, pytorch_engine
    from torch import nn

    if options["backend"] == "pytorch":
        # As after an earlier count: the counting methods bound, the counters and hooks gone. Dynamo loses the
        # methods ``add_flops_counting_methods`` binds on the module inside the compiled call (AttributeError).
        pytorch_engine.add_flops_counting_methods(net)
        net.stop_flops_count()

    class _Complexity(nn.Module):
        """``get_model_complexity_info`` of ``net`` at the input's resolution; the counts and a sum of the input."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> tuple[Any, Any, torch.Tensor]:
            macs, params = get_model_complexity_info(self.net, tuple(x.shape[1:]), **options)
            return macs, params, x.sum()

        def entry_points(self) -> list[Any]:
            return [get_model_complexity_info]

    return _Complexity(), (x,), {}


def _hooked(net: Any, x: Any, kind: str) -> Built:
    import io

    import torch
    from ptflops import pytorch_engine as engine
    from ptflops.aten_engine import FlopCounterMode
    from ptflops.pytorch_ops import MODULES_MAPPING
    from torch import nn

    entries: list[Any] = []
    if kind in ("forward", "compute", "compute_reset"):
        engine.add_flops_counting_methods(net)
        net.start_flops_count(ost=io.StringIO(), verbose=False, ignore_list=[])
        entries = [engine.batch_counter_hook] + list(dict.fromkeys(
            MODULES_MAPPING[type(m)] for m in net.modules() if type(m) in MODULES_MAPPING))
        if kind != "forward":
            entries += [engine.compute_average_flops_cost]
        if kind == "compute_reset":
            entries += [engine.reset_flops_count]
    else:
        entries = [FlopCounterMode]
    output_params = {"serialize_params": {"units": "KMac", "precision": 2}, "print_params": {"file": io.StringIO()}}

    class _Hooked(nn.Module):
        """The network run with ptflops' counting on: its hooks, its patches or its dispatch mode."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> Any:
            if kind in ("mode", "mode_print"):
                counter = FlopCounterMode(self.net, verbose=False, print_per_layer_stat=kind == "mode_print",
                                          output_params=output_params)
                with counter:
                    out = self.net(x)
                return out, counter.complexity
            out = self.net(x)
            if kind == "compute":
                return out, self.net.compute_average_flops_cost()
            if kind == "compute_reset":
                flops, params = self.net.compute_average_flops_cost()
                self.net.reset_flops_count()
                return out, flops, params
            return out

        def entry_points(self) -> list[Any]:
            return entries

    return _Hooked(), (x,), {}


def _util(name: str) -> Built:
    import torch
    from ptflops import pytorch_engine, utils
    from torch import nn

    function, keywords = UTILS[name]
    net, x = _net("cnn")
    call = getattr(pytorch_engine if function == "get_model_parameters_number" else utils, function)

    class _Util(nn.Module):
        """A ptflops helper on numbers from the input: a count of MACs or parameters made readable."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> Any:
            if function == "get_model_parameters_number":
                return call(self.net), x.sum()
            count = x.numel() * 123_457 if function == "flops_to_string" else x.numel() * 1_234
            return call(count, **keywords), call(count * 1000, **keywords), call(count // 100, **keywords), x.sum()

        def entry_points(self) -> list[Any]:
            return [call]

    return _Util(), (x,), {}


def build(name: str) -> Built:
    if name in UTILS:
        return _util(name)
    if name in HOOKED:
        kind, what = HOOKED[name]
        net, x = _net(kind)
        return _hooked(net, x, what)
    if name in CONFIGS:
        kind, backend, config = CONFIGS[name]
        net, x = _net(kind)
        return _complexity(net, x, _options(net, backend, config))
    backend, _, kind = name.partition(".")
    if backend in ("pytorch", "aten") and kind in (NETS if backend == "pytorch" else ATEN_NETS):
        net, x = _net(kind)
        return _complexity(net, x, _options(net, backend, {"print_per_layer_stat": False}))
    raise KeyError(name)
