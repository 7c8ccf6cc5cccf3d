"""Ground-truth bench, pytorch_tcn (pytorch-tcn): temporal convolutional networks, offline and streaming.

pytorch-tcn exports ``TCN`` (a stack of ``TemporalBlock``s: two dilated ``TemporalConv1d``s with a norm,
an activation and dropout, a residual, optional embeddings and a gated linear unit, optional skip
connections, an output projection and activation), ``TemporalConv1d`` and ``TemporalConvTranspose1d``
(convolutions that pad themselves, causally or symmetrically, through ``TemporalPad1d``). A causal
network also runs in streaming mode (``inference=True`` or ``TCN.inference``, a batch of one): each
padder keeps the last samples of its input in a buffer and prepends them to the next chunk, or reads
and writes external buffers through a ``BufferIO``. ``condition.Condition`` conditions a sequence on
vectors or sequences (added, concatenated or FiLM). So each model of the tables is one of:

- ``TCNS``: ``TCN`` on a batch of 2 sequences of 4 channels and 32 steps (three blocks of 8 channels,
  kernel 3) in the configurations that change its code: causal or not, even and odd kernel sizes,
  explicit dilations and a ``dilation_reset``, each norm (weight, batch, layer, none), activations
  given by name and as a module class, skip connections (with and without the channel-matching
  convolution), ``NLC`` inputs, embeddings (one per sequence, one per step, several, added or
  concatenated, a bare tensor), the gate, an output projection and activation, no dropout;
- ``STREAMING``: causal ``TCN``s in streaming mode on one chunk of a single sequence (``inference``,
  or ``forward(inference=True)``) in the same configurations, and bench ``gt_calls.Run`` loops that
  reset the buffers and feed a sequence chunk by chunk, read ``get_buffers`` or roll the stream back with
  ``set_buffers``;
- ``CONVS``: ``TemporalConv1d`` (causal or not, the four padding modes, a constant initial buffer,
  strides and groups, streaming with its own buffer or a ``BufferIO``, chunk loops stepping the
  ``BufferIO``, its legacy ``buffer`` property) and ``TemporalConvTranspose1d`` (causal or not, even
  and odd strides, streaming), and ``TemporalPad1d`` alone;
- ``CONDITIONS``: ``Condition`` in each mode on a list of one vector, of one sequence, or of both (a
  bare tensor fails in eager mode: ``forward`` takes any ``Iterable`` for a list and iterates over its
  batch);
- ``TRAIN``: bench train steps: a causal ``TCN`` regressing the next step (mean squared error), a
  classifier over a non-causal ``TCN`` with embeddings, and an upsampling decoder of
  ``TemporalConvTranspose1d`` and ``TemporalConv1d``.

Left out: ``lookahead`` (any value but 0 is refused in 1.2.3), the kernel initialisers (they only run
at construction), and what fails in eager mode on 1.2.3: ``TCN.forward``'s ``in_buffers`` (each block
unpacks the rest of the list as two buffers, and the convolutions refuse them), ``get_in_buffers`` (it
passes a ``buffer_io`` that ``TCN.forward`` does not take), streaming a non-causal network (refused),
and ``DepthwiseConv1d`` / ``PointwiseConv1d`` (their constructors fail). Random weights, nothing
downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, INPUTS, STEPS, CHUNK, CLASSES = 2, 4, 32, 8, 5
CHANNELS = [8, 8, 8]

# ``TCN`` name -> (constructor keywords, embeddings kind). ``"mish"`` as the activation stands for the
# module class ``nn.Mish``. Embedding kinds: "" (none), "vector" ((batch, 3)), "sequence" ((batch, 3, steps)),
# "both" (a list of a (batch, 3) and a (batch, 2, steps) tensor), "tensor" (a bare (batch, 3) tensor, not a list).
TCNS: dict[str, tuple[dict[str, Any], str]] = {
    "TCN": ({}, ""),
    "TCN.non_causal": ({"causal": False}, ""),
    "TCN.kernel_2": ({"kernel_size": 2}, ""),
    "TCN.kernel_2.non_causal": ({"kernel_size": 2, "causal": False}, ""),
    "TCN.dilations": ({"dilations": [1, 3, 9]}, ""),
    "TCN.dilation_reset": ({"num_channels": [8, 8, 8, 8, 8], "dilation_reset": 4}, ""),
    "TCN.batch_norm": ({"use_norm": "batch_norm"}, ""),
    "TCN.layer_norm": ({"use_norm": "layer_norm"}, ""),
    "TCN.no_norm": ({"use_norm": None}, ""),
    "TCN.layer_norm.non_causal": ({"use_norm": "layer_norm", "causal": False}, ""),
    "TCN.tanh": ({"activation": "tanh"}, ""),
    "TCN.gelu": ({"activation": "gelu", "kernel_initializer": "normal"}, ""),
    "TCN.leaky_relu": ({"activation": "leaky_relu", "kernel_initializer": "kaiming_normal"}, ""),
    "TCN.activation_module": ({"activation": "mish"}, ""),
    "TCN.skip_connections": ({"use_skip_connections": True}, ""),
    "TCN.skip_connections.widths": ({"use_skip_connections": True, "num_channels": [8, 16, 12]}, ""),
    "TCN.skip_connections.non_causal": ({"use_skip_connections": True, "causal": False, "use_norm": "batch_norm"}, ""),
    "TCN.NLC": ({"input_shape": "NLC"}, ""),
    "TCN.NLC.non_causal": ({"input_shape": "NLC", "causal": False, "use_skip_connections": True}, ""),
    "TCN.embedding.vector": ({"embedding_shapes": [(3,)]}, "vector"),
    "TCN.embedding.tensor": ({"embedding_shapes": [(3,)]}, "tensor"),
    "TCN.embedding.sequence": ({"embedding_shapes": [(3, STEPS)]}, "sequence"),
    "TCN.embedding.both": ({"embedding_shapes": [(3,), (2, STEPS)]}, "both"),
    "TCN.embedding.concat": ({"embedding_shapes": [(3,)], "embedding_mode": "concat"}, "vector"),
    "TCN.embedding.concat.gate": ({"embedding_shapes": [(3,), (2, STEPS)], "embedding_mode": "concat",
                                   "use_gate": True}, "both"),
    "TCN.gate": ({"use_gate": True}, ""),
    "TCN.gate.layer_norm": ({"use_gate": True, "use_norm": "layer_norm"}, ""),
    "TCN.gate.batch_norm.embedding": ({"use_gate": True, "use_norm": "batch_norm", "embedding_shapes": [(3,)]},
                                      "vector"),
    "TCN.output_projection": ({"output_projection": 3}, ""),
    "TCN.output_activation": ({"output_projection": 3, "output_activation": "softmax"}, ""),
    "TCN.output_activation_only": ({"output_activation": "log_softmax", "causal": False}, ""),
    "TCN.no_dropout": ({"dropout": 0.0}, ""),
}

# Streaming name -> (constructor keywords, embeddings kind, call: "inference" (``TCN.inference``), "flag"
# (``forward(inference=True)``), or "loop" (a bench loop over 4 chunks after ``reset_buffers``)).
STREAMING: dict[str, tuple[dict[str, Any], str, str]] = {
    "stream.TCN.inference": ({}, "", "inference"),
    "stream.TCN.forward_inference": ({}, "", "flag"),
    "stream.TCN.kernel_2": ({"kernel_size": 2}, "", "inference"),
    "stream.TCN.batch_norm": ({"use_norm": "batch_norm"}, "", "inference"),
    "stream.TCN.layer_norm": ({"use_norm": "layer_norm"}, "", "inference"),
    "stream.TCN.skip_connections": ({"use_skip_connections": True, "num_channels": [8, 16, 12]}, "", "inference"),
    "stream.TCN.NLC": ({"input_shape": "NLC"}, "", "inference"),
    "stream.TCN.embedding.vector": ({"embedding_shapes": [(3,)]}, "vector", "inference"),
    "stream.TCN.embedding.sequence": ({"embedding_shapes": [(3, CHUNK)]}, "sequence", "inference"),
    "stream.TCN.gate": ({"use_gate": True, "output_projection": 2}, "", "inference"),
    "stream.TCN.loop": ({}, "", "loop"),
    "stream.TCN.loop.skip_connections": ({"use_skip_connections": True, "use_norm": None}, "", "loop"),
    "stream.TCN.loop.embedding": ({"embedding_shapes": [(3,)], "use_gate": True}, "vector", "loop"),
    "stream.TCN.get_buffers": ({}, "", "buffers"),
    "stream.TCN.set_buffers": ({"use_skip_connections": True}, "", "set_buffers"),
}

# Convolution / padder name -> (class, constructor keywords, call: "" (offline), "inference" (its own
# buffer), "buffer_io" (a ``BufferIO`` with given in-buffers), "buffer_io_internal" (a ``BufferIO`` without
# them), "loop" (4 chunks, stepping the ``BufferIO``)).
CONVS: dict[str, tuple[str, dict[str, Any], str]] = {
    "TemporalConv1d": ("TemporalConv1d", {"kernel_size": 3}, ""),
    "TemporalConv1d.non_causal": ("TemporalConv1d", {"kernel_size": 4, "dilation": 2, "causal": False}, ""),
    "TemporalConv1d.reflect": ("TemporalConv1d", {"kernel_size": 3, "padding_mode": "reflect", "causal": False}, ""),
    "TemporalConv1d.replicate": ("TemporalConv1d", {"kernel_size": 3, "padding_mode": "replicate"}, ""),
    "TemporalConv1d.circular": ("TemporalConv1d", {"kernel_size": 3, "padding_mode": "circular"}, ""),
    "TemporalConv1d.strided_groups": ("TemporalConv1d", {"kernel_size": 3, "stride": 2, "groups": 4, "bias": False},
                                      ""),
    "TemporalConv1d.inference": ("TemporalConv1d", {"kernel_size": 3, "dilation": 2}, "inference"),
    "TemporalConv1d.inference.constant_buffer": ("TemporalConv1d", {"kernel_size": 3, "buffer": 0.5}, "inference"),
    "TemporalConv1d.buffer_io": ("TemporalConv1d", {"kernel_size": 3}, "buffer_io"),
    "TemporalConv1d.buffer_io_internal": ("TemporalConv1d", {"kernel_size": 3}, "buffer_io_internal"),
    "TemporalConv1d.buffer_io_loop": ("TemporalConv1d", {"kernel_size": 5}, "loop"),
    "TemporalConv1d.inference_loop": ("TemporalConv1d", {"kernel_size": 3}, "inference_loop"),
    "TemporalConv1d.buffer_property": ("TemporalConv1d", {"kernel_size": 3}, "buffer_property"),
    "TemporalConvTranspose1d": ("TemporalConvTranspose1d", {"kernel_size": 4, "stride": 2}, ""),
    "TemporalConvTranspose1d.non_causal": ("TemporalConvTranspose1d", {"kernel_size": 4, "stride": 2,
                                                                       "causal": False}, ""),
    "TemporalConvTranspose1d.non_causal.odd_stride": ("TemporalConvTranspose1d", {"kernel_size": 6, "stride": 3,
                                                                                  "causal": False}, ""),
    "TemporalConvTranspose1d.inference": ("TemporalConvTranspose1d", {"kernel_size": 4, "stride": 2}, "inference"),
    "TemporalConvTranspose1d.buffer_io": ("TemporalConvTranspose1d", {"kernel_size": 6, "stride": 3}, "buffer_io"),
    "TemporalPad1d.causal": ("TemporalPad1d", {"padding": 4, "causal": True}, ""),
    "TemporalPad1d.non_causal": ("TemporalPad1d", {"padding": 3, "padding_mode": "reflect"}, ""),
    "TemporalPad1d.inference": ("TemporalPad1d", {"padding": 2, "causal": True, "buffer": 1.0}, "inference"),
}

# ``Condition`` name -> (mode, condition kind: "vector" (batch, 3), "sequence" (batch, 3, steps), "both").
CONDITIONS: dict[str, tuple[str, str]] = {
    f"Condition.{mode}.{kind}": (mode, kind) for mode in ("add", "concat", "film")
    for kind in ("vector", "sequence", "both")
}

TRAIN = ("train_step.forecast", "train_step.classifier", "train_step.upsampler")


def names() -> list[str]:
    return list(TCNS) + list(STREAMING) + list(CONVS) + list(CONDITIONS) + list(TRAIN)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _tcn(keywords: dict[str, Any]) -> Any:
    from pytorch_tcn import TCN
    from torch import nn

    keywords = {"num_channels": CHANNELS, "kernel_size": 3, **keywords}
    if keywords.get("activation") == "mish":
        keywords["activation"] = nn.Mish
    return TCN(INPUTS, **keywords)


def _embeddings(kind: str, batch: int, steps: int) -> Any:
    if kind == "vector":
        return [_randn(batch, 3, seed=5)]
    if kind == "sequence":
        return [_randn(batch, 3, steps, seed=6)]
    if kind == "both":
        return [_randn(batch, 3, seed=5), _randn(batch, 2, steps, seed=6)]
    if kind == "tensor":
        return _randn(batch, 3, seed=5)
    return None


def _sequence(batch: int, steps: int, nlc: bool = False, seed: int = 1) -> Any:
    return _randn(batch, steps, INPUTS, seed=seed) if nlc else _randn(batch, INPUTS, steps, seed=seed)


def _tcn_model(name: str) -> Built:
    keywords, kind = TCNS[name]
    model = _tcn(keywords)
    x = _sequence(BATCH, STEPS, keywords.get("input_shape") == "NLC")
    embeddings = _embeddings(kind, BATCH, STEPS)
    return model, (x,), ({"embeddings": embeddings} if embeddings is not None else {})


def _streaming(name: str) -> Built:
    import torch
    from pytorch_tcn.tcn import BaseTCN, TCN

    from gt_calls import Method, Run

    keywords, kind, call = STREAMING[name]
    model = _tcn(keywords)
    nlc = keywords.get("input_shape") == "NLC"
    extra = {"embeddings": e} if (e := _embeddings(kind, 1, CHUNK)) is not None else {}
    if call == "inference":
        return Method(model, "inference"), (_sequence(1, CHUNK, nlc),), extra
    if call == "flag":
        return Method(model, "forward", inference=True), (_sequence(1, CHUNK, nlc),), extra
    if call == "buffers":
        def run_buffers(owner: Any, x: Any) -> Any:
            owner.reset_buffers()
            out = owner.inference(x)
            return out, owner.get_buffers()

        return Run(model, run_buffers, [BaseTCN.reset_buffers, BaseTCN.inference, BaseTCN.get_buffers, TCN]), \
            (_sequence(1, CHUNK),), {}
    if call == "set_buffers":
        def run_restore(owner: Any, x: Any) -> Any:
            saved = owner.get_buffers()
            out = owner.inference(x)
            owner.set_buffers(list(saved))  # roll the stream back, as for a look-ahead that is discarded
            return out, owner.inference(x)

        return Run(model, run_restore, [BaseTCN.get_buffers, BaseTCN.inference, BaseTCN.set_buffers, TCN]), \
            (_sequence(1, CHUNK),), {}

    def run_loop(owner: Any, x: Any, *embeddings: Any) -> Any:
        owner.reset_buffers()
        chunks = []
        for chunk in x.split(CHUNK, dim=-1):
            if embeddings:
                chunks.append(owner.inference(chunk, embeddings=list(embeddings)))
            else:
                chunks.append(owner.inference(chunk))
        return torch.cat(chunks, dim=-1)

    args = (_sequence(1, 4 * CHUNK),) + tuple(extra.get("embeddings") or ())
    return Run(model, run_loop, [BaseTCN.reset_buffers, BaseTCN.inference, TCN]), args, {}


def _conv(name: str) -> Built:
    import pytorch_tcn
    import torch
    from pytorch_tcn.buffer import BufferIO
    from pytorch_tcn.pad import TemporalPad1d

    from gt_calls import Method, Run

    cls, keywords, call = CONVS[name]
    if cls == "TemporalPad1d":
        layer = TemporalPad1d(in_channels=INPUTS, **keywords)
    else:
        layer = getattr(pytorch_tcn, cls)(INPUTS, 8, **keywords)
    if not call:
        return layer, (_sequence(BATCH, STEPS),), {}
    if call == "inference":
        return Method(layer, "forward", inference=True), (_sequence(1, CHUNK),), {}
    pad = layer if cls == "TemporalPad1d" else layer.padder
    if call in ("buffer_io", "buffer_io_internal"):
        given = call == "buffer_io"

        def run_io(owner: Any, x: Any, *buffers: Any) -> Any:
            io = BufferIO(in_buffers=list(buffers) if given else None)
            out = owner(x, inference=True, buffer_io=io)
            return out, io.out_buffers, io.internal_buffers

        buffers = (_randn(1, INPUTS, pad.pad_len, seed=3),) if given else ()
        return Run(layer, run_io, [type(layer), BufferIO]), (_sequence(1, CHUNK),) + buffers, {}
    if call == "buffer_property":
        def run_property(owner: Any, x: Any, buffer: Any) -> Any:
            owner.buffer = buffer  # the pre-1.2.2 attribute, now a property over the padder's buffer
            out = owner(x, inference=True)
            return out, owner.buffer

        buffer = _randn(1, INPUTS, pad.pad_len, seed=3)
        return Run(layer, run_property, [type(layer)]), (_sequence(1, CHUNK), buffer), {}
    if call == "inference_loop":
        def run_own(owner: Any, x: Any) -> Any:
            owner.reset_buffer()
            return torch.cat([owner(c, inference=True) for c in x.split(CHUNK, dim=-1)], dim=-1)

        return Run(layer, run_own, [type(layer)]), (_sequence(1, 4 * CHUNK),), {}

    def run_steps(owner: Any, x: Any, buffer: Any) -> Any:
        io = BufferIO(in_buffers=[buffer])
        outs = []
        for chunk in x.split(CHUNK, dim=-1):
            outs.append(owner(chunk, inference=True, buffer_io=io))
            io.step()
        return torch.cat(outs, dim=-1), io.in_buffers

    return Run(layer, run_steps, [type(layer), BufferIO]), \
        (_sequence(1, 4 * CHUNK), torch.zeros(1, INPUTS, pad.pad_len)), {}


def _condition(name: str) -> Built:
    from pytorch_tcn.condition import Condition

    mode, kind = CONDITIONS[name]
    dims = {"vector": 3, "sequence": 3, "both": [3, 2]}[kind]
    x = _randn(BATCH, 8, STEPS)
    cond = _embeddings(kind, BATCH, STEPS)
    # always a list: a bare tensor is itself ``Iterable``, so ``forward`` would iterate over its batch
    return Condition(8, dims, mode), (x, cond), {}


def _train_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from pytorch_tcn import TCN, TemporalConv1d, TemporalConvTranspose1d
    from torch import nn

    kind = name.split(".", 1)[1]

    class _TrainStep(nn.Module):
        """A forecaster (next-step mean squared error), a sequence classifier (cross-entropy over the
        pooled outputs of a non-causal TCN with embeddings) or an upsampling decoder (mean squared error
        against a sequence twice as long)."""

        def __init__(self) -> None:
            super().__init__()
            if kind == "forecast":
                self.tcn = _tcn({"use_skip_connections": True, "output_projection": INPUTS})
            elif kind == "classifier":
                self.tcn = _tcn({"causal": False, "use_norm": "batch_norm", "embedding_shapes": [(3,)],
                                 "input_shape": "NLC"})
                self.head = nn.Linear(CHANNELS[-1], CLASSES)
            else:
                self.up = TemporalConvTranspose1d(INPUTS, 8, kernel_size=4, stride=2)
                self.conv = TemporalConv1d(8, INPUTS, kernel_size=3)

        def forward(self, x: torch.Tensor, target: torch.Tensor, *extra: torch.Tensor) -> torch.Tensor:
            if kind == "forecast":
                prediction = self.tcn(x)
                return F.mse_loss(prediction[..., :-1], x[..., 1:])
            if kind == "classifier":
                features = self.tcn(x, embeddings=list(extra))
                return F.cross_entropy(self.head(features.mean(1)), target)
            return F.mse_loss(self.conv(torch.relu(self.up(x))), target)

        def entry_points(self) -> list[Any]:
            if kind == "upsampler":
                return [TemporalConvTranspose1d, TemporalConv1d]
            return [TCN]

    if kind == "forecast":
        return _TrainStep(), (_sequence(BATCH, STEPS), _sequence(BATCH, STEPS, seed=2)), {}
    if kind == "classifier":
        labels = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(2))
        return _TrainStep(), (_sequence(BATCH, STEPS, nlc=True), labels, _randn(BATCH, 3, seed=5)), {}
    return _TrainStep(), (_sequence(BATCH, STEPS), _sequence(BATCH, 2 * STEPS, seed=2)), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in TCNS:
        return _tcn_model(name)
    if name in STREAMING:
        return _streaming(name)
    if name in CONVS:
        return _conv(name)
    if name in CONDITIONS:
        return _condition(name)
    return _train_step(name)
