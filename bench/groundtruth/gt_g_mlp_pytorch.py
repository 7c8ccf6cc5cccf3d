"""Ground-truth bench, g_mlp_pytorch: gMLP (Liu et al. 2021, "Pay Attention to MLPs") for tokens and images.

g-mlp-pytorch 0.1.5 (lucidrains) builds ``gMLP`` from residual pre-norm ``gMLPBlock``\\ s: a projection up with
GELU, a ``SpatialGatingUnit`` (half the channels, normed, mixed along the sequence by a learned ``n x n`` weight
per head, or a circulant matrix built from one row with absolute position factors, causal by a triangular mask
over a weight cut to the input's length, optionally added to a tiny single-head attention's output (aMLP) and
passed through an activation) that gates the other half, and a projection down. Token shifting
(``PreShiftTokens``) and stochastic depth (``dropout_layers``, in training only) wrap the blocks.
``gMLPVision`` patches an image and pools for classes; ``AutoregressiveWrapper`` gives the next-token loss and a
top-k sampling ``generate``. The tables cover, at width 16, a feedforward of 4 x, sequences of 16, a 32-token
vocabulary, a batch of 2 and 16 x 16 images in 4 x 4 patches:

- ``GMLP``: ``gMLP`` forward: bidirectional and causal (a sequence shorter than ``seq_len`` too), two heads,
  the tiny attention, the circulant matrix, token shifts, an activation, stochastic depth, continuous inputs (no
  embedding or logits), one layer, a batch of one, a feedforward of 2 x;
- ``VISION``: ``gMLPVision``: heads, the tiny attention, stochastic depth, rectangular images and patches, one
  channel;
- ``PARTS``: ``gMLPBlock`` and ``SpatialGatingUnit`` (causal, circulant, heads, a gate residual, an activation),
  ``Attention`` (causal or not), ``PreShiftTokens`` (shifts or none), ``PreNorm`` and ``Residual``, and the
  ``shift`` and ``top_k`` helpers through ``gt_calls.Call``;
- ``WRAPPER``: ``AutoregressiveWrapper`` forward (the loss, an ignored padding index) and ``generate`` through
  ``gt_calls.Method`` (a two- or one-dimensional prompt, a prompt longer than ``seq_len``, temperature and top-k
  threshold, an end token, circulant, tiny attention, token shifts);
- ``TRAIN``: training steps: the wrapper's loss backward with an Adam step, stochastic depth, and image
  classification with an SGD step (with and without stochastic depth and attention).

Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, SEQ, BATCH, IMAGE, PATCH, CLASSES = 32, 16, 16, 2, 16, 4, 5
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": 2, "seq_len": SEQ}
CAUSAL: dict[str, Any] = {"causal": True}

# ``gMLP`` name -> (keywords over ``BASE``, input length, batch).
GMLP: dict[str, tuple[dict[str, Any], int, int]] = {
    "gMLP": ({}, SEQ, BATCH),
    "gMLP.causal": (CAUSAL, SEQ, BATCH),
    "gMLP.causal.short_seq": (CAUSAL, 10, BATCH),
    "gMLP.heads2": ({"heads": 2}, SEQ, BATCH),
    "gMLP.causal.heads4": ({**CAUSAL, "heads": 4}, SEQ, BATCH),
    "gMLP.attn_dim": ({"attn_dim": 8}, SEQ, BATCH),
    "gMLP.causal.attn_dim": ({**CAUSAL, "attn_dim": 8}, SEQ, BATCH),
    "gMLP.circulant": ({"circulant_matrix": True}, SEQ, BATCH),
    "gMLP.causal.circulant": ({**CAUSAL, "circulant_matrix": True}, 12, BATCH),
    "gMLP.circulant.heads2": ({"circulant_matrix": True, "heads": 2}, SEQ, BATCH),
    "gMLP.shift_tokens1": ({"shift_tokens": 1}, SEQ, BATCH),
    "gMLP.causal.shift_tokens2": ({**CAUSAL, "shift_tokens": 2}, SEQ, BATCH),
    "gMLP.act_tanh": ({"act": "tanh"}, SEQ, BATCH),
    "gMLP.prob_survival": ({"prob_survival": 0.5, "depth": 3}, SEQ, BATCH),
    "gMLP.causal.prob_survival.attn_dim": ({**CAUSAL, "prob_survival": 0.7, "attn_dim": 8}, SEQ, BATCH),
    "gMLP.continuous": ({"num_tokens": None}, SEQ, BATCH),
    "gMLP.continuous.causal.shift_tokens1": ({"num_tokens": None, **CAUSAL, "shift_tokens": 1}, SEQ, BATCH),
    "gMLP.depth1": ({"depth": 1}, SEQ, BATCH),
    "gMLP.batch1": ({}, SEQ, 1),
    "gMLP.ff_mult2": ({"ff_mult": 2}, SEQ, BATCH),
}
# ``gMLPVision`` name -> (keywords, image height and width, channels).
VISION_BASE: dict[str, Any] = {"image_size": IMAGE, "patch_size": PATCH, "num_classes": CLASSES, "dim": DIM,
                               "depth": 2}
VISION: dict[str, tuple[dict[str, Any], tuple[int, int], int]] = {
    "gMLPVision": ({}, (IMAGE, IMAGE), 3),
    "gMLPVision.heads2": ({"heads": 2}, (IMAGE, IMAGE), 3),
    "gMLPVision.attn_dim": ({"attn_dim": 8}, (IMAGE, IMAGE), 3),
    "gMLPVision.prob_survival": ({"prob_survival": 0.5, "depth": 3}, (IMAGE, IMAGE), 3),
    "gMLPVision.rectangular": ({"image_size": (IMAGE, 8), "patch_size": (4, 2)}, (IMAGE, 8), 3),
    "gMLPVision.channels1.ff_mult2": ({"channels": 1, "ff_mult": 2}, (IMAGE, IMAGE), 1),
}
PARTS = ("gMLPBlock", "gMLPBlock.causal", "gMLPBlock.attn_dim", "gMLPBlock.circulant.heads2",
         "SpatialGatingUnit", "SpatialGatingUnit.gate_res", "SpatialGatingUnit.causal.short_seq",
         "SpatialGatingUnit.circulant", "SpatialGatingUnit.causal.circulant", "SpatialGatingUnit.heads2.act",
         "Attention", "Attention.causal", "PreShiftTokens", "PreShiftTokens.no_shift", "PreNorm.Residual",
         "shift", "top_k")
# ``AutoregressiveWrapper`` name -> (keywords over ``BASE`` (causal), what: "loss", "loss.ignore_index" or
# "generate", prompt length (a negative one is a one-dimensional prompt), fixed ``generate`` keywords).
WRAPPER: dict[str, tuple[dict[str, Any], str, int, dict[str, Any]]] = {
    "AutoregressiveWrapper": ({}, "loss", SEQ + 1, {}),
    "AutoregressiveWrapper.ignore_index": ({"attn_dim": 8}, "loss.ignore_index", SEQ + 1, {}),
    "generate": ({}, "generate", 4, {}),
    "generate.prompt_1d": ({}, "generate", -4, {}),
    "generate.long_prompt": ({}, "generate", SEQ + 2, {}),
    "generate.temperature": ({}, "generate", 4, {"temperature": 0.7, "filter_thres": 0.8}),
    "generate.eos": ({}, "generate", 4, {"eos_token": 3}),
    "generate.circulant": ({"circulant_matrix": True}, "generate", 4, {}),
    "generate.attn_dim.shift_tokens": ({"attn_dim": 8, "shift_tokens": 1}, "generate", 4, {}),
}
TRAIN = ("train.AutoregressiveWrapper.adam", "train.AutoregressiveWrapper.prob_survival",
         "train.gMLPVision.sgd", "train.gMLPVision.prob_survival.attn_dim")
GEN_LEN = 6


def names() -> list[str]:
    return [*GMLP, *VISION, *PARTS, *WRAPPER, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _ids(length: int = SEQ, batch: int = BATCH, seed: int = 1) -> Any:
    import torch

    return torch.randint(0, TOKENS, (batch, length), generator=torch.Generator().manual_seed(seed))


def _gmlp(**keywords: Any) -> Any:
    from g_mlp_pytorch import gMLP
    from torch import nn

    keywords = {**BASE, **keywords}
    if keywords.get("act") == "tanh":
        keywords["act"] = nn.Tanh()
    return gMLP(**keywords)


def _gmlp_forward(name: str) -> Built:
    keywords, length, batch = GMLP[name]
    model = _gmlp(**keywords)
    if keywords.get("num_tokens", TOKENS) is None:
        return model, (_randn(batch, length, DIM),), {}
    return model, (_ids(length, batch),), {}


def _vision(name: str) -> Built:
    from g_mlp_pytorch import gMLPVision

    keywords, (height, width), channels = VISION[name]
    return gMLPVision(**{**VISION_BASE, **keywords}), (_randn(BATCH, channels, height, width),), {}


def _part(name: str) -> Built:
    import torch
    from g_mlp_pytorch import g_mlp_pytorch as g
    from g_mlp_pytorch.autoregressive_wrapper import top_k
    from torch import nn

    from gt_calls import Call

    x = _randn(BATCH, SEQ, DIM)
    if name.startswith("gMLPBlock"):
        keywords: dict[str, Any] = {"causal": name.endswith("causal")}
        if name.endswith("attn_dim"):
            keywords["attn_dim"] = 8
        if ".circulant" in name:
            keywords.update(circulant_matrix=True, heads=2)
        return g.gMLPBlock(dim=DIM, dim_ff=4 * DIM, seq_len=SEQ, **keywords), (x,), {}
    if name.startswith("SpatialGatingUnit"):
        heads = 2 if ".heads2" in name else 1
        act = nn.Sigmoid() if name.endswith("act") else nn.Identity()
        unit = g.SpatialGatingUnit(2 * DIM, SEQ, causal=".causal" in name, act=act, heads=heads,
                                   circulant_matrix=".circulant" in name)
        length = 10 if name.endswith("short_seq") else SEQ
        gates = _randn(BATCH, length, 2 * DIM, seed=2)
        return unit, (gates,), {"gate_res": _randn(BATCH, length, DIM, seed=3)} if name.endswith("gate_res") else {}
    if name.startswith("Attention"):
        return g.Attention(DIM, 2 * DIM, 8, causal=name.endswith("causal")), (x,), {}
    if name.startswith("PreShiftTokens"):
        shifts = (0,) if name.endswith("no_shift") else (-1, 0, 1)
        return g.PreShiftTokens(shifts, nn.Linear(DIM, DIM)), (x,), {}
    if name == "PreNorm.Residual":
        block = g.gMLPBlock(dim=DIM, dim_ff=4 * DIM, seq_len=SEQ)
        return g.Residual(g.PreNorm(DIM, block)), (x,), {}
    if name == "shift":
        return Call(g.shift, amount=2), (x,), {}
    logits = torch.randn(BATCH, TOKENS, generator=torch.Generator().manual_seed(4))
    return Call(top_k, thres=0.8), (logits,), {}


def _wrapper(name: str) -> Built:
    from g_mlp_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    from gt_calls import Method

    keywords, what, length, static = WRAPPER[name]
    net = _gmlp(**CAUSAL, **keywords)
    if what == "loss":
        return AutoregressiveWrapper(net), (_ids(length),), {}
    if what == "loss.ignore_index":
        ids = _ids(length)
        ids[-1, -4:] = 0
        return AutoregressiveWrapper(net, ignore_index=0), (ids,), {}
    prompt = _ids(abs(length))
    if length < 0:
        prompt = prompt[0]
    return Method(AutoregressiveWrapper(net), "generate", seq_len=GEN_LEN, **static), (prompt,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from g_mlp_pytorch import gMLP, gMLPVision
    from g_mlp_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    from gt_calls import Run

    if name.startswith("train.AutoregressiveWrapper"):
        keywords: dict[str, Any] = {"prob_survival": 0.5, "depth": 3} if name.endswith("prob_survival") else {}
        wrapper = AutoregressiveWrapper(_gmlp(**CAUSAL, **keywords))
        entries: list[Any] = [AutoregressiveWrapper, gMLP]
        inputs: tuple[Any, ...] = (_ids(SEQ + 1),)
    else:
        keywords = {"prob_survival": 0.5, "depth": 3, "attn_dim": 8} if name.endswith("attn_dim") else {}
        wrapper = gMLPVision(**{**VISION_BASE, **keywords})
        entries = [gMLPVision]
        labels = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(3))
        inputs = (_randn(BATCH, 3, IMAGE, IMAGE), labels)
    if gMLPVision in entries:
        optimizer: Any = torch.optim.SGD(wrapper.parameters(), lr=0.1, momentum=0.9)
    else:
        optimizer = torch.optim.Adam(wrapper.parameters(), lr=1e-3)

    def step(owner: Any, *tensors: Any) -> Any:
        """The loss (the wrapper's, or cross-entropy of the logits), its gradients and an optimizer step."""
        loss = owner(tensors[0]) if len(tensors) == 1 else F.cross_entropy(owner(tensors[0]), tensors[1])
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(wrapper, step, entries), inputs, {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in GMLP:
        return _gmlp_forward(name)
    if name in VISION:
        return _vision(name)
    if name in PARTS:
        return _part(name)
    if name in WRAPPER:
        return _wrapper(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
