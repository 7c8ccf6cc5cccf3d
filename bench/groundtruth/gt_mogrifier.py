"""Ground-truth bench, mogrifier: the Mogrifier LSTM's mutual gating of input and hidden state.

mogrifier 0.0.5 exports one module, ``Mogrifier`` (Melis et al. 2019): before an LSTM step, the input and the
previous hidden state gate each other for ``iters`` rounds (``x = 2 sigmoid(Q h) x`` on even rounds,
``h = 2 sigmoid(R x) h`` on odd ones). ``Q`` and ``R`` are linear maps, optionally factorized through a rank ``k``
(``factorize_k``, ``hidden_factorize_k`` for ``R``), the hidden width may differ from the input's (``dim_hidden``),
inputs of any leading shape are packed to ``(*, d)`` with einops and unpacked after, and a 2-d hidden state given
with a 3-d input sequence is repeated along the sequence. The tables cover, at width 8 (12 hidden), a batch of 2,
sequences of 5:

- ``MODELS``: ``Mogrifier`` alone under its options: rounds (2 to 6, the ``iters`` call argument, which the loop
  ignores in favour of the constructor's), factorized maps, a distinct hidden width, hidden factorization, 2-d,
  3-d and 4-d inputs, a 2-d hidden state repeated over a sequence;
- ``CELLS``: how users wire it: before an ``nn.LSTMCell`` unrolled over a sequence (the mogrified hidden state fed
  to the cell), on a whole sequence before an ``nn.LSTM``, and a two-layer stack;
- ``TRAIN``: training steps (an MSE loss backward and an Adam or SGD step) through a mogrified LSTM cell loop and
  through a factorized ``Mogrifier`` alone.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only. Nothing was left out: every model runs eagerly.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM, HIDDEN = 2, 5, 8, 12

# Model name -> (Mogrifier keywords, input shape kind: "2d" | "3d" | "3d_h2d" | "4d", call keywords).
MODELS: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "Mogrifier": ({}, "2d", {}),
    "Mogrifier.iters2": ({"iters": 2}, "2d", {}),
    "Mogrifier.iters6": ({"iters": 6}, "2d", {}),
    "Mogrifier.iters_argument": ({"iters": 4}, "2d", {"iters": 3}),
    "Mogrifier.factorize_k": ({"factorize_k": 4}, "2d", {}),
    "Mogrifier.dim_hidden": ({"dim_hidden": HIDDEN}, "2d", {}),
    "Mogrifier.dim_hidden.factorize_k": ({"dim_hidden": HIDDEN, "factorize_k": 4}, "2d", {}),
    "Mogrifier.dim_hidden.hidden_factorize_k": ({"dim_hidden": HIDDEN, "factorize_k": 4, "hidden_factorize_k": 6},
                                                "2d", {}),
    "Mogrifier.seq": ({}, "3d", {}),
    "Mogrifier.seq.hidden_repeated": ({}, "3d_h2d", {}),
    "Mogrifier.seq.hidden_repeated.dim_hidden": ({"dim_hidden": HIDDEN, "iters": 3}, "3d_h2d", {}),
    "Mogrifier.seq.factorize_k": ({"factorize_k": 3, "iters": 4}, "3d", {}),
    "Mogrifier.4d": ({}, "4d", {}),
    "Mogrifier.4d.dim_hidden": ({"dim_hidden": HIDDEN, "factorize_k": 4}, "4d", {}),
}
# Cell model name -> (wiring: "lstm_cell" | "lstm_seq" | "stack", Mogrifier keywords).
CELLS: dict[str, tuple[str, dict[str, Any]]] = {
    "MogrifierLSTMCell.unrolled": ("lstm_cell", {}),
    "MogrifierLSTMCell.unrolled.factorize_k": ("lstm_cell", {"factorize_k": 4, "iters": 4}),
    "MogrifierLSTMCell.unrolled.dim_hidden": ("lstm_cell", {"dim_hidden": HIDDEN}),
    "Mogrifier.before_LSTM.seq": ("lstm_seq", {"dim_hidden": HIDDEN}),
    "MogrifierLSTMCell.stack2": ("stack", {"iters": 3}),
}
TRAIN = ("train.MogrifierLSTMCell.adam", "train.Mogrifier.factorize_k.sgd", "train.Mogrifier.seq.adam")


def names() -> list[str]:
    return [*MODELS, *CELLS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _model(name: str) -> Built:
    from gt_calls import Keywords
    from mogrifier import Mogrifier

    keywords, kind, call = MODELS[name]
    module = Mogrifier(DIM, **keywords)
    hidden = keywords.get("dim_hidden", DIM)
    if kind == "2d":
        x, h = _randn(BATCH, DIM), _randn(BATCH, hidden, seed=2)
    elif kind == "3d":
        x, h = _randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, hidden, seed=2)
    elif kind == "3d_h2d":
        x, h = _randn(BATCH, SEQ, DIM), _randn(BATCH, hidden, seed=2)
    else:
        x, h = _randn(BATCH, 3, SEQ, DIM), _randn(BATCH, 3, SEQ, hidden, seed=2)
    if call:
        return Keywords(module, **call), (x, h), {}
    return module, (x, h), {}


def _cell_network(wiring: str, keywords: dict[str, Any]) -> Any:
    import torch
    from torch import nn

    from mogrifier import Mogrifier

    hidden = keywords.get("dim_hidden", HIDDEN)

    class MogrifierLSTM(nn.Module):
        """An LSTM whose input and hidden state are mogrified before every step."""

        def __init__(self) -> None:
            super().__init__()
            layers = 2 if wiring == "stack" else 1
            self.mogrifiers = nn.ModuleList([Mogrifier(DIM if i == 0 else hidden, dim_hidden=hidden,
                                                       **{k: v for k, v in keywords.items() if k != "dim_hidden"})
                                             for i in range(layers)])
            self.cells = nn.ModuleList([nn.LSTMCell(DIM if i == 0 else hidden, hidden) for i in range(layers)])
            self.lstm = nn.LSTM(DIM, hidden, batch_first=True)
            self.out = nn.Linear(hidden, DIM)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if wiring == "lstm_seq":
                h0 = x.new_zeros(x.shape[0], hidden)
                mogrified, _ = self.mogrifiers[0](x, h0)
                out, _ = self.lstm(mogrified)
                return self.out(out)
            states = [(x.new_zeros(x.shape[0], hidden), x.new_zeros(x.shape[0], hidden)) for _ in self.cells]
            outputs = []
            for t in range(x.shape[1]):
                inp = x[:, t]
                for i, (mogrifier, cell) in enumerate(zip(self.mogrifiers, self.cells)):
                    h, c = states[i]
                    inp, h = mogrifier(inp, h)
                    h, c = cell(inp, (h, c))
                    states[i] = (h, c)
                    inp = h
                outputs.append(inp)
            return self.out(torch.stack(outputs, dim=1))

        def entry_points(self) -> list[Any]:
            return [Mogrifier]

    return MogrifierLSTM()


def _cell(name: str) -> Built:
    wiring, keywords = CELLS[name]
    return _cell_network(wiring, keywords), (_randn(BATCH, SEQ, DIM),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from mogrifier import Mogrifier

    if name == "train.MogrifierLSTMCell.adam":
        model: Any = _cell_network("lstm_cell", {"factorize_k": 4})
        inputs: tuple[Any, ...] = (_randn(BATCH, SEQ, DIM),)
        target = _randn(BATCH, SEQ, DIM, seed=3)

        def loss(m: Any, x: Any) -> Any:
            return F.mse_loss(m(x), target)
    else:
        model = Mogrifier(DIM, factorize_k=4, dim_hidden=HIDDEN) if name.endswith("sgd") else Mogrifier(DIM, iters=4)
        seq = name == "train.Mogrifier.seq.adam"
        hidden = HIDDEN if name.endswith("sgd") else DIM
        inputs = (_randn(BATCH, SEQ, DIM) if seq else _randn(BATCH, DIM), _randn(BATCH, hidden, seed=2))
        target = _randn(*inputs[0].shape, seed=3)

        def loss(m: Any, x: Any, h: Any) -> Any:
            x, h = m(x, h)
            return F.mse_loss(x, target) + h.pow(2).mean()

    params = list(model.parameters())
    optimizer: Any = torch.optim.SGD(params, lr=0.05) if name.endswith("sgd") else torch.optim.Adam(params, lr=1e-3)

    def step(m: Any, *tensors: Any) -> Any:
        """The loss, its gradients and an optimizer step (the forward alone under ``no_grad``)."""
        value = loss(m, *tensors)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
        return value

    return Run(model, step, [Mogrifier]), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        return _model(name)
    if name in CELLS:
        return _cell(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
