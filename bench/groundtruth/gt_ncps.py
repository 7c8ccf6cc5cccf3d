"""Ground-truth bench, ncps (Neural Circuit Policies): liquid time-constant and closed-form continuous-time
recurrent networks, with sparse wirings.

ncps's PyTorch side (``ncps.torch``) has two sequence models, ``LTC`` (a liquid time-constant network whose
cell unfolds an ODE solver ``ode_unfolds`` times per step) and ``CfC`` (its closed-form approximation, in the
modes ``default``, ``pure`` and ``no_gate``, with a backbone MLP of chosen width, depth, dropout and
activation, and an optional output projection ``proj_size``), and their cells ``LTCCell``, ``CfCCell`` and
``WiredCfCCell`` (a stack of sparse ``CfCCell`` layers following a wiring). Both sequence models take a number
of units or a wiring of ``ncps.wirings`` (``FullyConnected``, ``Random``, ``NCP``, ``AutoNCP``), and the
flags ``batch_first``, ``return_sequences`` and ``mixed_memory`` (an LSTM memory cell beside the RNN), and their
forward takes an optional initial state ``hx`` (a pair with mixed memory) and optional ``timespans`` (the
elapsed time of each step). Inputs have 5 features, sequences 3 steps, batches 2 (or no batch dimension). The
tables cover:

- ``CFC_MODELS``: ``CfC`` with units (each mode, activation, backbone depth 0 / 2 with dropout, projection, each
  flag, ``hx``, ``timespans``, unbatched inputs) and with each wiring (``AutoNCP`` in every mode, ``NCP``,
  ``FullyConnected``, ``Random``, with flags, mixed memory, timespans and a projection);
- ``LTC_MODELS``: ``LTC`` with units and with each wiring, the flags, ``hx``, mixed memory, timespans, unbatched
  inputs, the input and output mappings (``affine``, ``linear``, none), explicit parameter constraints and the
  number of ODE unfolds (3 per step, 2 in one model, instead of the default 6: the same code, traced faster);
- ``CELLS``: one step of ``CfCCell`` (each mode, no backbone, a tensor of elapsed times), ``LTCCell`` (each
  wiring, mappings, constraints, elapsed time) and ``WiredCfCCell`` (each wiring and mode), and a bench loop
  over a sequence with each cell (a closed-loop rollout feeding the output back for the CfC cell);
- ``TRAIN``: training steps returning a loss (a sequence regression or a last-step classification with each
  model), steps with ``backward()`` and an optimizer step inside the forward, and ``LTCCell.apply_weight_
  constraints()`` after the step (explicit constraints).

Timespans are given with batch 1 (or unbatched), where ncps squeezes each step's elapsed time to a scalar, or
with one value per unit for models of plain units (batch 2): a ``(batch, steps, 1)`` tensor fails eagerly for
a batch of 2 (the squeezed times broadcast against the units), so no model uses it. Random weights, random
data; nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
FEATURES, STEPS, BATCH, UNITS = 5, 3, 2, 8

# Inputs of a sequence model: a string of flags joined by "+": "hx" (an initial state), "ts" (timespans, one per
# unit: batch 2), "ts1" (timespans of batch 1, one per step), "unbatched" (no batch dimension; with "ts1" the
# timespans are (steps, 1)), "seq_first" (time-major input, for batch_first=False).

# Model name -> (wiring: "" (plain units), "auto", "ncp", "full", "random"; constructor keywords; inputs).
CFC_MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "CfC": ("", {}, ""),
    "CfC.pure": ("", {"mode": "pure"}, ""),
    "CfC.no_gate": ("", {"mode": "no_gate"}, ""),
    "CfC.batch_first_false": ("", {"batch_first": False}, "seq_first"),
    "CfC.return_last": ("", {"return_sequences": False}, ""),
    "CfC.return_last.batch_first_false": ("", {"return_sequences": False, "batch_first": False}, "seq_first"),
    "CfC.proj_size": ("", {"proj_size": 3}, ""),
    "CfC.mixed_memory": ("", {"mixed_memory": True}, ""),
    "CfC.mixed_memory.hx": ("", {"mixed_memory": True}, "hx"),
    "CfC.mixed_memory.unbatched.hx": ("", {"mixed_memory": True}, "unbatched+hx"),
    "CfC.hx": ("", {}, "hx"),
    "CfC.timespans": ("", {}, "ts"),
    "CfC.timespans.batch1": ("", {"mode": "pure"}, "ts1"),
    "CfC.timespans.batch_first_false": ("", {"batch_first": False}, "seq_first+ts"),
    "CfC.unbatched": ("", {}, "unbatched"),
    "CfC.unbatched.hx": ("", {"mode": "no_gate"}, "unbatched+hx"),
    "CfC.unbatched.timespans": ("", {}, "unbatched+ts1"),
    "CfC.backbone.relu.2_layers.dropout": ("", {"activation": "relu", "backbone_layers": 2, "backbone_dropout": 0.1}, ""),
    "CfC.backbone.silu": ("", {"activation": "silu"}, ""),
    "CfC.backbone.gelu.pure": ("", {"activation": "gelu", "mode": "pure"}, ""),
    "CfC.backbone.tanh.no_gate": ("", {"activation": "tanh", "mode": "no_gate"}, ""),
    "CfC.backbone.none": ("", {"backbone_layers": 0}, ""),
    "CfC.AutoNCP": ("auto", {}, ""),
    "CfC.AutoNCP.pure": ("auto", {"mode": "pure"}, ""),
    "CfC.AutoNCP.no_gate": ("auto", {"mode": "no_gate"}, ""),
    "CfC.AutoNCP.return_last.batch_first_false": ("auto", {"return_sequences": False, "batch_first": False},
                                                  "seq_first"),
    "CfC.AutoNCP.mixed_memory": ("auto", {"mixed_memory": True}, ""),
    "CfC.AutoNCP.hx": ("auto", {}, "hx"),
    "CfC.AutoNCP.timespans": ("auto", {}, "ts1"),
    "CfC.AutoNCP.proj_size": ("auto", {"proj_size": 2}, ""),
    "CfC.AutoNCP.unbatched": ("auto", {}, "unbatched"),
    "CfC.NCP": ("ncp", {}, ""),
    "CfC.NCP.pure.return_last": ("ncp", {"mode": "pure", "return_sequences": False}, ""),
    "CfC.FullyConnected": ("full", {}, ""),
    "CfC.Random": ("random", {}, ""),
}

LTC_MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "LTC": ("", {}, ""),
    "LTC.batch_first_false": ("", {"batch_first": False}, "seq_first"),
    "LTC.return_last": ("", {"return_sequences": False}, ""),
    "LTC.hx": ("", {}, "hx"),
    "LTC.mixed_memory": ("", {"mixed_memory": True}, ""),
    "LTC.mixed_memory.hx": ("", {"mixed_memory": True}, "hx"),
    "LTC.timespans": ("", {}, "ts"),
    "LTC.timespans.batch1": ("", {}, "ts1"),
    "LTC.unbatched": ("", {}, "unbatched"),
    "LTC.unbatched.hx.timespans": ("", {}, "unbatched+hx+ts1"),
    "LTC.mapping.linear": ("", {"input_mapping": "linear", "output_mapping": "linear"}, ""),
    "LTC.mapping.none": ("", {"input_mapping": None, "output_mapping": None}, ""),
    "LTC.explicit_constraints": ("", {"implicit_param_constraints": False}, ""),
    "LTC.ode_unfolds_2": ("", {"ode_unfolds": 2, "epsilon": 1e-6}, ""),
    "LTC.AutoNCP": ("auto", {}, ""),
    "LTC.AutoNCP.return_last.batch_first_false": ("auto", {"return_sequences": False, "batch_first": False},
                                                  "seq_first"),
    "LTC.AutoNCP.mixed_memory.timespans": ("auto", {"mixed_memory": True}, "ts1"),
    "LTC.NCP": ("ncp", {}, ""),
    "LTC.FullyConnected.output_dim": ("full_out", {}, ""),
    "LTC.Random": ("random", {}, ""),
}

# Model name -> (cell, wiring, constructor keywords, call: "step", "step.ts" (a tensor of elapsed times),
# "loop" (a bench loop over the sequence), "rollout" (a closed loop feeding the output back)).
CELLS: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "CfCCell": ("CfCCell", "", {}, "step"),
    "CfCCell.pure": ("CfCCell", "", {"mode": "pure"}, "step.ts"),
    "CfCCell.no_gate": ("CfCCell", "", {"mode": "no_gate"}, "step"),
    "CfCCell.no_backbone.ts": ("CfCCell", "", {"backbone_layers": 0}, "step.ts"),
    "CfCCell.loop": ("CfCCell", "", {"backbone_activation": "silu"}, "loop"),
    "CfCCell.rollout": ("CfCCell", "", {}, "rollout"),
    "LTCCell.FullyConnected": ("LTCCell", "full", {}, "step"),
    "LTCCell.AutoNCP": ("LTCCell", "auto", {}, "step"),
    "LTCCell.NCP.ts": ("LTCCell", "ncp", {}, "step.ts"),
    "LTCCell.Random.implicit_constraints": ("LTCCell", "random", {"implicit_param_constraints": True}, "step"),
    "LTCCell.mapping.linear": ("LTCCell", "full", {"input_mapping": "linear", "output_mapping": "linear",
                                                    "ode_unfolds": 3}, "step"),
    "LTCCell.loop": ("LTCCell", "auto", {"ode_unfolds": 3}, "loop"),
    "WiredCfCCell.AutoNCP": ("WiredCfCCell", "auto", {}, "step"),
    "WiredCfCCell.AutoNCP.pure": ("WiredCfCCell", "auto", {"mode": "pure"}, "step"),
    "WiredCfCCell.NCP.no_gate": ("WiredCfCCell", "ncp", {"mode": "no_gate"}, "step"),
    "WiredCfCCell.FullyConnected": ("WiredCfCCell", "full", {}, "step"),
    "WiredCfCCell.Random.ts": ("WiredCfCCell", "random", {}, "step.ts"),
    "WiredCfCCell.loop": ("WiredCfCCell", "auto", {}, "loop"),
}

# Model name -> (model: "CfC" or "LTC", wiring, constructor keywords, step: "seq" (sequence regression loss),
# "cls" (last-step classification loss), "sgd" / "adam" (backward and an optimizer step inside the forward),
# "constraints" (an SGD step then apply_weight_constraints)).
TRAIN: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "train.CfC.seq": ("CfC", "", {}, "seq"),
    "train.CfC.pure.cls": ("CfC", "", {"mode": "pure", "return_sequences": False, "proj_size": 3}, "cls"),
    "train.CfC.AutoNCP.seq": ("CfC", "auto", {}, "seq"),
    "train.CfC.mixed_memory.adam": ("CfC", "", {"mixed_memory": True}, "adam"),
    "train.CfC.NCP.sgd": ("CfC", "ncp", {"mode": "no_gate"}, "sgd"),
    "train.LTC.seq": ("LTC", "", {"ode_unfolds": 3}, "seq"),
    "train.LTC.AutoNCP.cls": ("LTC", "auto", {"return_sequences": False, "ode_unfolds": 3}, "cls"),
    "train.LTC.adam": ("LTC", "", {"ode_unfolds": 3}, "adam"),
    "train.LTC.apply_weight_constraints": ("LTC", "", {"implicit_param_constraints": False, "ode_unfolds": 3},
                                           "constraints"),
}


def names() -> list[str]:
    return list(CFC_MODELS) + list(LTC_MODELS) + list(CELLS) + list(TRAIN)


def _wiring(kind: str) -> Any:
    from ncps import wirings

    if kind == "auto":
        return wirings.AutoNCP(12, 3)
    if kind == "ncp":
        return wirings.NCP(4, 3, 2, 2, 2, 2, 2)
    if kind == "full":
        return wirings.FullyConnected(UNITS)
    if kind == "full_out":
        return wirings.FullyConnected(UNITS, output_dim=3, self_connections=False)
    if kind == "random":
        return wirings.Random(UNITS, 4, sparsity_level=0.5)
    return UNITS


def _state_size(units: Any) -> int:
    return units if isinstance(units, int) else int(units.units)


def _sequence(name: str, family: str) -> Built:
    import torch
    from ncps.torch import CfC, LTC

    wiring, kwargs, inputs = (CFC_MODELS if family == "CfC" else LTC_MODELS)[name]
    flags = set(inputs.split("+")) - {""}
    units = _wiring(wiring)
    if family == "CfC":
        if not wiring:
            kwargs = {"backbone_units": 16, **kwargs}
        model: Any = CfC(FEATURES, units, **kwargs)
    else:
        model = LTC(FEATURES, units, **{"ode_unfolds": 3, **kwargs})
    gen = torch.Generator().manual_seed(1)
    batch = 1 if "ts1" in flags else BATCH
    state = _state_size(units)
    if "unbatched" in flags:
        x = torch.randn(STEPS, FEATURES, generator=gen)
        h_shape: tuple[int, ...] = (state,)
        ts_shape: tuple[int, ...] = (STEPS, 1)
    elif "seq_first" in flags:
        x = torch.randn(STEPS, batch, FEATURES, generator=gen)
        h_shape = (batch, state)
        ts_shape = (STEPS, batch, state if "ts" in flags else 1)
    else:
        x = torch.randn(batch, STEPS, FEATURES, generator=gen)
        h_shape = (batch, state)
        ts_shape = (batch, STEPS, state if "ts" in flags else 1)
    call: dict[str, Any] = {}
    if "hx" in flags:
        h = torch.randn(*h_shape, generator=gen) * 0.1
        call["hx"] = (h, torch.zeros_like(h)) if kwargs.get("mixed_memory") else h
    if "ts" in flags or "ts1" in flags:
        call["timespans"] = torch.rand(*ts_shape, generator=gen) + 0.5
    return model, (x,), call


def _cell(name: str) -> Built:
    import torch
    from ncps.torch import CfCCell, LTCCell, WiredCfCCell
    from torch import nn

    cls, wiring, kwargs, call = CELLS[name]
    gen = torch.Generator().manual_seed(1)
    if cls == "CfCCell":
        cell: Any = CfCCell(FEATURES, UNITS, **{"backbone_units": 16, **kwargs})
        state = UNITS
    elif cls == "LTCCell":
        w = _wiring(wiring)
        cell = LTCCell(w, FEATURES, **kwargs)
        state = w.units
    else:
        w = _wiring(wiring)
        cell = WiredCfCCell(FEATURES, w, **kwargs)
        state = w.units
    x = torch.randn(BATCH, FEATURES, generator=gen)
    h = torch.randn(BATCH, state, generator=gen) * 0.1

    class Loop(nn.Module):
        """A bench loop over a sequence with one cell, as users write their own RNN around it; "rollout" feeds
        the cell's output back as the next input (through a readout)."""

        def __init__(self) -> None:
            super().__init__()
            self.cell = cell
            self.readout = nn.Linear(UNITS, FEATURES)

        def forward(self, seq: torch.Tensor, hx: torch.Tensor) -> torch.Tensor:
            outputs = []
            inputs = seq[:, 0]
            for t in range(seq.shape[1]):
                if call == "loop":
                    inputs = seq[:, t]
                out, hx = self.cell(inputs, hx, 1.0) if cls != "LTCCell" else self.cell(inputs, hx)
                if call == "rollout":
                    inputs = torch.tanh(self.readout(out))
                outputs.append(out)
            return torch.stack(outputs, dim=1)

        def entry_points(self) -> list[Any]:
            return [type(self.cell)]

    if call in ("loop", "rollout"):
        return Loop(), (torch.randn(BATCH, STEPS, FEATURES, generator=gen), h), {}
    if call == "step.ts":
        return cell, (x, h, torch.rand(BATCH, 1, generator=gen) + 0.5), {}
    if cls == "LTCCell":
        return cell, (x, h), {}
    return cell, (x, h, 1.0), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from ncps.torch import CfC, LTC
    from torch import nn

    family, wiring, kwargs, step = TRAIN[name]
    units = _wiring(wiring)
    if family == "CfC":
        if not wiring:
            kwargs = {"backbone_units": 16, **kwargs}
        rnn: Any = CfC(FEATURES, units, **kwargs)
    else:
        rnn = LTC(FEATURES, units, **kwargs)
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, STEPS, FEATURES, generator=gen)
    out_dim = kwargs.get("proj_size") or (units if isinstance(units, int) else units.output_dim)
    y = torch.randn(BATCH, STEPS, out_dim, generator=gen)
    labels = torch.tensor([0, 2])

    class Step(nn.Module):
        """A training step: the RNN's output against targets; the loss is returned (and stepped for "sgd",
        "adam" and "constraints")."""

        def __init__(self) -> None:
            super().__init__()
            self.rnn = rnn
            self.head = nn.Linear(out_dim, 3)
            params = list(self.rnn.parameters()) + list(self.head.parameters())
            self.optimizer = (torch.optim.Adam(params, lr=1e-3) if step == "adam"
                              else torch.optim.SGD(params, lr=1e-2))

        def loss(self, x: torch.Tensor, y: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            out, _ = self.rnn(x)
            if step == "cls":
                return F.cross_entropy(self.head(out), labels)
            return F.mse_loss(out, y)

        def forward(self, x: torch.Tensor, y: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            if step in ("seq", "cls"):
                return self.loss(x, y, labels)
            self.optimizer.zero_grad()
            with torch.enable_grad():
                loss = self.loss(x, y, labels)
                loss.backward()
            self.optimizer.step()
            if step == "constraints":
                self.rnn.rnn_cell.apply_weight_constraints()
            return loss.detach()

        def entry_points(self) -> list[Any]:
            entered: list[Any] = [type(self.rnn)]
            if step == "constraints":
                entered.append(type(self.rnn.rnn_cell).apply_weight_constraints)
            return entered

    return Step(), (x, y, labels), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in CFC_MODELS:
        return _sequence(name, "CfC")
    if name in LTC_MODELS:
        return _sequence(name, "LTC")
    if name in CELLS:
        return _cell(name)
    return _train(name)
