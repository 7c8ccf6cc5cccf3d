"""Ground-truth bench, minGRU_pytorch (minGRU-pytorch): minGRU and minLSTM, their language models and a hybrid.

minGRU-pytorch 0.2.1 (lucidrains, "Were RNNs All We Needed?") exports ``minGRU``: a gated recurrence whose
gates do not depend on the previous hidden state, run in parallel over a sequence as a log-space associative
scan (Heinsen's ``logcumsumexp``), or one step at a time when the sequence has one token (``torch.lerp`` with
the previous hidden state). ``minLSTM`` does the same with a forget and an input gate. ``minLM`` stacks either
(RMS norms, a feedforward, an optional causal depthwise convolution, dropout) into a language model with a
next-token loss and a cache of the previous hidden states for recurrent decoding; ``minGRUAttnHybrid`` and
``hybridLM`` mix a minGRU branch with causal attention (Hymba-style, with a learned or fixed mix). The tables
cover, at width 16, a 32-token vocabulary, a batch of 2 and sequences of 8:

- ``LAYERS``: ``minGRU`` and ``minLSTM``: the parallel scan, one sequential step, either with a previous hidden
  state, the next hidden state returned, an expansion factor (with and without the output projection);
- ``LMS``: ``minLM`` forward: logits, the loss, the hidden states returned, a cached step (the previous hidden
  states given, only the last token run), the minLSTM variant, the convolution, dropout, two layers;
- ``HYBRIDS``: ``minGRUAttnHybrid`` (learned or fixed mix) and ``hybridLM`` (logits, the loss);
- ``FUNCTIONS``: ``heinsen_associative_scan_log``, ``g`` and ``log_g`` through ``gt_calls.Call``;
- ``SAMPLING``: the sampling loop of the library's training script, written here (bench code around the model):
  a prompt decoded token by token with the recurrent cache, or re-run whole each step, with Gumbel sampling
  after a top-k filter;
- ``TRAIN``: train steps (the loss, ``backward()`` under ``enable_grad``): ``minLM`` (minGRU, minLSTM, with the
  convolution), ``hybridLM``, and a ``minGRU`` layer under a regression loss.

Random weights and inputs from fixed generators, nothing downloaded. ``names()`` needs no torch; ``build`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TOKENS, DIM, BATCH, SEQ = 32, 16, 2, 8
LM: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": 1, "ff_mult": 2, "expansion": 1.5}

# Layer name -> (class: "minGRU" or "minLSTM", keywords, sequence length, previous hidden given, call keywords).
LAYERS: dict[str, tuple[str, dict[str, Any], int, bool, dict[str, Any]]] = {}
for _klass in ("minGRU", "minLSTM"):
    LAYERS.update({
        f"{_klass}": (_klass, {}, SEQ, False, {}),
        f"{_klass}.prev_hidden": (_klass, {}, SEQ, True, {}),
        f"{_klass}.return_next_prev_hidden": (_klass, {}, SEQ, False, {"return_next_prev_hidden": True}),
        f"{_klass}.prev_hidden.return_next_prev_hidden": (_klass, {}, SEQ, True, {"return_next_prev_hidden": True}),
        f"{_klass}.step": (_klass, {}, 1, False, {}),
        f"{_klass}.step.prev_hidden": (_klass, {}, 1, True, {"return_next_prev_hidden": True}),
        f"{_klass}.expansion": (_klass, {"expansion_factor": 1.5}, SEQ, False, {}),
        f"{_klass}.expansion.no_proj_out": (_klass, {"expansion_factor": 2.0, "proj_out": False}, SEQ, False, {}),
        f"{_klass}.expansion.step.prev_hidden": (_klass, {"expansion_factor": 1.5}, 1, True, {}),
    })
# ``minLM`` name -> (keywords over ``LM``, kind: "ids", "cached" (the hidden states of a prefix given), call keywords).
LMS: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "minLM": ({}, "ids", {}),
    "minLM.loss": ({}, "ids", {"return_loss": True}),
    "minLM.return_prev_hiddens": ({}, "ids", {"return_prev_hiddens": True}),
    "minLM.cached": ({}, "cached", {"return_prev_hiddens": True}),
    "minLM.cached.depth2": ({"depth": 2}, "cached", {"return_prev_hiddens": True}),
    "minLM.cached.lstm": ({"use_lstm": True}, "cached", {"return_prev_hiddens": True}),
    "minLM.lstm": ({"use_lstm": True}, "ids", {}),
    "minLM.lstm.loss": ({"use_lstm": True}, "ids", {"return_loss": True}),
    "minLM.conv": ({"enable_conv": True}, "ids", {}),
    "minLM.conv.loss": ({"enable_conv": True, "conv_kernel_size": 4}, "ids", {"return_loss": True}),
    "minLM.dropout.loss": ({"dropout": 0.1}, "ids", {"return_loss": True}),
    "minLM.depth2.lstm.conv.return_prev_hiddens": ({"depth": 2, "use_lstm": True, "enable_conv": True}, "ids",
                                                   {"return_prev_hiddens": True}),
}
HYBRIDS = ("minGRUAttnHybrid", "minGRUAttnHybrid.fixed_mix", "hybridLM", "hybridLM.loss", "hybridLM.depth2.loss")
# Function name -> (module of ``minGRU_pytorch``, function, inputs).
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "heinsen_associative_scan_log": ("minGRU", "heinsen_associative_scan_log", ("log_coeffs", "log_values")),
    "g": ("minGRU", "g", ("features",)),
    "log_g": ("minGRU", "log_g", ("features",)),
}
# Sampling name -> (keywords over ``LM``, cached: decode with the recurrent cache or re-run the whole sequence).
SAMPLING: dict[str, tuple[dict[str, Any], bool]] = {
    "sample.cached": ({}, True),
    "sample.cached.lstm.depth2": ({"use_lstm": True, "depth": 2}, True),
    "sample.uncached": ({}, False),
    "sample.uncached.conv": ({"enable_conv": True}, False),
}
TRAIN = ("train.minLM", "train.minLM.lstm", "train.minLM.conv", "train.hybridLM", "train.minGRU")


def names() -> list[str]:
    return [*LAYERS, *LMS, *HYBRIDS, *FUNCTIONS, *SAMPLING, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _ids(length: int = SEQ, seed: int = 1) -> Any:
    import torch

    return torch.randint(0, TOKENS, (BATCH, length), generator=torch.Generator().manual_seed(seed))


def _layer(name: str) -> Built:
    from gt_calls import Keywords
    from minGRU_pytorch.minGRU import minGRU
    from minGRU_pytorch.minLSTM import minLSTM

    klass, keywords, length, prev, call = LAYERS[name]
    layer = (minGRU if klass == "minGRU" else minLSTM)(DIM, **keywords)
    inner = int(DIM * keywords.get("expansion_factor", 1.0))
    x = _randn(BATCH, length, DIM)
    if not prev:
        return (Keywords(layer, **call), (x,), {}) if call else (layer, (x,), {})
    hidden = _randn(BATCH, 1, inner, seed=2).abs() + 0.1
    return Keywords(layer, **call), (x, hidden), {}


def _lm(name: str) -> Built:
    import torch

    from gt_calls import Keywords
    from minGRU_pytorch.minLM import minLM

    keywords, kind, call = LMS[name]
    model = minLM(**{**LM, **keywords})
    ids = _ids()
    if kind == "ids":
        return Keywords(model, **call), (ids,), {}
    with torch.no_grad():
        _, hiddens = model(ids[:, :-1], return_prev_hiddens=True)
    return Keywords(model, prev_hiddens=hiddens, **call), (ids,), {}


def _hybrid(name: str) -> Built:
    from gt_calls import Keywords
    from minGRU_pytorch.hybrid import minGRUAttnHybrid
    from minGRU_pytorch.hybridLM import hybridLM

    if name.startswith("minGRUAttnHybrid"):
        layer = minGRUAttnHybrid(DIM, dim_head=8, heads=2, learned_mix="fixed_mix" not in name)
        return layer, (_randn(BATCH, SEQ, DIM),), {}
    model = hybridLM(num_tokens=TOKENS, dim=DIM, depth=2 if "depth2" in name else 1, ff_mult=2, heads=2, dim_head=8)
    if name.endswith(".loss"):
        return Keywords(model, return_loss=True), (_ids(),), {}
    return model, (_ids(),), {}


def _function(name: str) -> Built:
    import importlib

    from gt_calls import Call

    module, function, inputs = FUNCTIONS[name]
    tensors = {"log_coeffs": -_randn(BATCH, SEQ, DIM).abs(), "log_values": _randn(BATCH, SEQ, DIM, seed=2),
               "features": _randn(BATCH, SEQ, DIM)}
    fn = getattr(importlib.import_module(f"minGRU_pytorch.{module}"), function)
    return Call(fn), tuple(tensors[i] for i in inputs), {}


def _sample(name: str) -> Built:
    import torch

    from gt_calls import Run
    from minGRU_pytorch.minLM import minLM

    keywords, cached = SAMPLING[name]
    model = minLM(**{**LM, **keywords})

    def gumbel_top_k(logits: torch.Tensor, k: int = 8) -> torch.Tensor:
        values, indices = logits.topk(k, dim=-1)
        filtered = torch.full_like(logits, float("-inf")).scatter(-1, indices, values)
        noise = -torch.log(-torch.log(torch.rand_like(filtered).clamp(1e-20, 1.0)).clamp(min=1e-20))
        return (filtered / 0.7 + noise).argmax(dim=-1, keepdim=True)

    def sample(net: Any, prompt: torch.Tensor) -> torch.Tensor:
        out, hiddens = prompt, None
        for _ in range(4):
            if cached:
                logits, hiddens = net(out, return_prev_hiddens=True, prev_hiddens=hiddens)
            else:
                logits = net(out)
            out = torch.cat((out, gumbel_top_k(logits[:, -1])), dim=-1)
        return out[:, prompt.shape[-1]:]

    return Run(model, sample, [minLM]), (_ids(4),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from minGRU_pytorch.hybridLM import hybridLM
    from minGRU_pytorch.minGRU import minGRU
    from minGRU_pytorch.minLM import minLM

    def step(net: Any, *inputs: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            if len(inputs) == 2:
                loss = F.mse_loss(net(inputs[0]), inputs[1])
            else:
                loss = net(inputs[0], return_loss=True)
            loss.backward()
        return loss.detach()

    if name == "train.minGRU":
        layer = minGRU(DIM, expansion_factor=1.5)
        return Run(layer, step, [minGRU]), (_randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, DIM, seed=3)), {}
    if name == "train.hybridLM":
        model: Any = hybridLM(num_tokens=TOKENS, dim=DIM, depth=1, ff_mult=2, heads=2, dim_head=8)
        return Run(model, step, [hybridLM]), (_ids(),), {}
    keywords = {"use_lstm": True} if name.endswith("lstm") else {"enable_conv": True} if name.endswith("conv") else {}
    model = minLM(**{**LM, **keywords})
    return Run(model, step, [minLM]), (_ids(),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LAYERS:
        return _layer(name)
    if name in LMS:
        return _lm(name)
    if name in HYBRIDS:
        return _hybrid(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in SAMPLING:
        return _sample(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
