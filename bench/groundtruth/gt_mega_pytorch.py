"""Ground-truth bench, mega_pytorch (Mega-pytorch): Mega, its layer, its multi-headed EMA, its autoregressive wrapper.

Mega-pytorch 0.1.0 (lucidrains) implements Mega (Moving Average Equipped Gated Attention): a ``MegaLayer`` runs a
``MultiHeadedEMA`` over the sequence (learned decay and damping per head, applied as a long convolution through
``conv1d_fft``: ``rfft`` / ``irfft`` at a length from SciPy's ``next_fast_len``, then a roll and an index select;
bidirectional when not causal, with an optional group norm over heads), then a ``SingleHeadedAttention`` (offset /
scale queries and keys, a T5 relative position bias, softmax or the Laplacian attention function, a causal mask
filled before the softmax or zeroed after the Laplacian), and a GRU-like reset / update gating. ``Mega`` stacks
layers with feedforwards under pre- or post-norm over a token embedding; ``AutoregressiveWrapper`` gives the
next-token loss and ``generate`` (top-k filtering, multinomial sampling, one token at a time). The tables cover, at
width 16, 2 to 4 EMA heads, query / key width 8, value width 16, a 20-token vocabulary, a batch of 2 and 12 tokens:

- ``MEGA``: ``Mega`` logits: causal and bidirectional, softmax and Laplacian attention, pre- and post-norm, heads
  normed (causal only: bidirectional, the group norm is sized for half the heads, a shape error in 0.1.0 even
  without compiling), two layers, another feedforward width, a batch of one, a single token, a longer sequence;
- ``LAYERS``: ``MegaLayer`` (causal or not, Laplacian, heads normed, an explicit residual), ``MultiHeadedEMA``
  (one-way, bidirectional, heads normed, one head), ``SingleHeadedAttention`` (causal or not, softmax or Laplacian,
  a separate value input), ``T5RelativePositionBias`` (causal or not), ``OffsetScale`` and ``LaplacianAttnFn``;
- ``FUNCTIONS``: ``conv1d_fft`` (two layouts, kernels shorter and longer than the sequence), ``append_dims``,
  ``T5RelativePositionBias._relative_position_bucket`` and the wrapper's ``top_k`` through ``gt_calls.Call``;
- ``WRAPPER``: ``AutoregressiveWrapper`` forward (the next-token loss; causal, bidirectional, Laplacian, pre-norm)
  and ``generate`` through ``gt_calls.Method`` (4 tokens from a prompt of 4; a temperature, a looser top-k);
- ``TRAIN``: train steps, ``loss.backward()`` and an Adam step under ``enable_grad``: the autoregressive loss, a
  bidirectional Mega as a token classifier (a cross-entropy over its logits), a ``MegaLayer`` regression.

Random weights and inputs from fixed generators, nothing downloaded. ``names()`` needs no torch; ``build`` runs in
a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, BATCH, SEQ, PROMPT, GENERATE = 20, 16, 2, 12, 4, 4
LAYER: dict[str, Any] = {"dim": DIM, "ema_heads": 4, "attn_dim_qk": 8, "attn_dim_value": 16}
BASE: dict[str, Any] = {"num_tokens": TOKENS, "depth": 1, **LAYER}

# ``Mega`` name -> (keywords over ``BASE``, (batch, tokens)).
MEGA: dict[str, tuple[dict[str, Any], tuple[int, int]]] = {
    "Mega": ({}, (BATCH, SEQ)),
    "Mega.bidirectional": ({"causal": False}, (BATCH, SEQ)),
    "Mega.laplacian": ({"laplacian_attn_fn": True}, (BATCH, SEQ)),
    "Mega.laplacian.bidirectional": ({"laplacian_attn_fn": True, "causal": False}, (BATCH, SEQ)),
    "Mega.pre_norm": ({"pre_norm": True}, (BATCH, SEQ)),
    "Mega.norm_mhesa_heads": ({"norm_mhesa_heads": True}, (BATCH, SEQ)),
    "Mega.depth2.pre_norm": ({"depth": 2, "pre_norm": True}, (BATCH, SEQ)),
    "Mega.ff_mult4": ({"ff_mult": 4}, (BATCH, SEQ)),
    "Mega.batch1": ({}, (1, SEQ)),
    "Mega.one_token": ({}, (BATCH, 1)),
    "Mega.seq40": ({}, (BATCH, 40)),
}
# Layer name -> (class, keywords, input (batch, length, width), call keywords; "v_input" and "residual" are tensors).
LAYERS: dict[str, tuple[str, dict[str, Any], tuple[int, int, int], tuple[str, ...]]] = {
    "MegaLayer": ("MegaLayer", LAYER, (BATCH, SEQ, DIM), ()),
    "MegaLayer.bidirectional": ("MegaLayer", {**LAYER, "causal": False}, (BATCH, SEQ, DIM), ()),
    "MegaLayer.laplacian": ("MegaLayer", {**LAYER, "laplacian_attn_fn": True}, (BATCH, SEQ, DIM), ()),
    "MegaLayer.laplacian.bidirectional": ("MegaLayer", {**LAYER, "laplacian_attn_fn": True, "causal": False},
                                          (BATCH, SEQ, DIM), ()),
    "MegaLayer.norm_mhesa_heads": ("MegaLayer", {**LAYER, "norm_mhesa_heads": True}, (BATCH, SEQ, DIM), ()),
    "MegaLayer.residual": ("MegaLayer", LAYER, (BATCH, SEQ, DIM), ("residual",)),
    "MultiHeadedEMA": ("MultiHeadedEMA", {"dim": DIM, "heads": 4}, (BATCH, SEQ, DIM), ()),
    "MultiHeadedEMA.bidirectional": ("MultiHeadedEMA", {"dim": DIM, "heads": 4, "bidirectional": True},
                                     (BATCH, SEQ, DIM), ()),
    "MultiHeadedEMA.norm_heads": ("MultiHeadedEMA", {"dim": DIM, "heads": 2, "norm_mhesa_heads": True},
                                  (BATCH, SEQ, DIM), ()),
    "MultiHeadedEMA.heads1": ("MultiHeadedEMA", {"dim": DIM, "heads": 1}, (BATCH, 7, DIM), ()),
    "SingleHeadedAttention.causal": ("SingleHeadedAttention", {"dim": DIM, "dim_qk": 8, "dim_value": 16,
                                                               "causal": True}, (BATCH, SEQ, DIM), ()),
    "SingleHeadedAttention.bidirectional": ("SingleHeadedAttention", {"dim": DIM, "dim_qk": 8, "dim_value": 16},
                                            (BATCH, SEQ, DIM), ()),
    "SingleHeadedAttention.laplacian.causal": ("SingleHeadedAttention", {
        "dim": DIM, "dim_qk": 8, "dim_value": 16, "causal": True, "laplacian_attn_fn": True}, (BATCH, SEQ, DIM), ()),
    "SingleHeadedAttention.laplacian": ("SingleHeadedAttention", {
        "dim": DIM, "dim_qk": 8, "dim_value": 16, "laplacian_attn_fn": True}, (BATCH, SEQ, DIM), ()),
    "SingleHeadedAttention.v_input": ("SingleHeadedAttention", {"dim": DIM, "dim_qk": 8, "dim_value": 16,
                                                                "causal": True}, (BATCH, SEQ, DIM), ("v_input",)),
    "T5RelativePositionBias.causal": ("T5RelativePositionBias", {"scale": 2.0, "causal": True}, (BATCH, SEQ, SEQ),
                                      ()),
    "T5RelativePositionBias": ("T5RelativePositionBias", {"scale": 2.0, "num_buckets": 16, "max_distance": 32},
                               (BATCH, 40, 40), ()),
    "OffsetScale": ("OffsetScale", {"dim": 8, "heads": 2}, (BATCH, SEQ, 8), ()),
    "LaplacianAttnFn": ("LaplacianAttnFn", {}, (BATCH, SEQ, SEQ), ()),
}
FUNCTIONS = ("conv1d_fft", "conv1d_fft.long_kernel", "conv1d_fft.short_kernel", "append_dims",
             "relative_position_bucket", "relative_position_bucket.causal", "top_k", "top_k.thres0.5")
# ``AutoregressiveWrapper`` name -> (keywords over ``BASE``, what: "loss" or "generate", generate keywords).
WRAPPER: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "AutoregressiveWrapper.loss": ({}, "loss", {}),
    "AutoregressiveWrapper.bidirectional.loss": ({"causal": False}, "loss", {}),
    "AutoregressiveWrapper.laplacian.loss": ({"laplacian_attn_fn": True}, "loss", {}),
    "AutoregressiveWrapper.pre_norm.depth2.loss": ({"pre_norm": True, "depth": 2}, "loss", {}),
    "AutoregressiveWrapper.generate": ({}, "generate", {}),
    "AutoregressiveWrapper.generate.temperature": ({}, "generate", {"temperature": 0.7, "filter_thres": 0.5}),
    "AutoregressiveWrapper.laplacian.generate": ({"laplacian_attn_fn": True, "pre_norm": True}, "generate", {}),
}
TRAIN = ("train.AutoregressiveWrapper", "train.Mega.token_classifier", "train.MegaLayer.regression")


def names() -> list[str]:
    return list(MEGA) + list(LAYERS) + list(FUNCTIONS) + list(WRAPPER) + list(TRAIN)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _ids(batch: int = BATCH, length: int = SEQ, seed: int = 1) -> Any:
    import torch

    return torch.randint(0, TOKENS, (batch, length), generator=_gen(seed))


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _layer(name: str) -> Built:
    from mega_pytorch import mega_pytorch as mp

    from gt_calls import Keywords

    cls, keywords, shape, given = LAYERS[name]
    module = getattr(mp, cls)(**keywords)
    x = _randn(*shape)
    if cls == "T5RelativePositionBias":  # takes the attention logits, reads their last two sizes
        return module, (x,), {}
    static = {key: _randn(*shape, seed=2) for key in given}
    return (Keywords(module, **static) if static else module), (x,), {}


def _function(name: str) -> Built:
    import torch
    from mega_pytorch import autoregressive_wrapper as aw
    from mega_pytorch import mega_pytorch as mp

    from gt_calls import Call

    if name == "conv1d_fft":  # (batch, length, heads, dim) by a kernel (length, heads), as MultiHeadedEMA does
        return Call(mp.conv1d_fft, dim=-3, weight_dim=-2), (_randn(BATCH, SEQ, 4, 8), _randn(SEQ, 4, seed=2)), {}
    if name == "conv1d_fft.long_kernel":  # (batch, length, dim) by one kernel longer than the sequence
        return Call(mp.conv1d_fft, dim=-2, weight_dim=-1), (_randn(BATCH, 10, 6), _randn(15, seed=2)), {}
    if name == "conv1d_fft.short_kernel":
        return Call(mp.conv1d_fft, dim=-3, weight_dim=-2), (_randn(BATCH, SEQ, 4, 8), _randn(5, 4, seed=2)), {}
    if name == "append_dims":
        return Call(mp.append_dims, num_dims=2), (_randn(BATCH, 5),), {}
    if name.startswith("relative_position_bucket"):
        positions = torch.arange(SEQ)
        relative = positions[None, :] - positions[:, None]
        function = mp.T5RelativePositionBias._relative_position_bucket
        causal = name.endswith(".causal")
        return Call(function, causal=causal, num_buckets=16, max_distance=32), (relative * 3,), {}
    thres = 0.5 if name.endswith("0.5") else 0.9
    return Call(aw.top_k, thres=thres), (_randn(BATCH, TOKENS),), {}


def _wrapper(name: str) -> Built:
    from mega_pytorch import Mega
    from mega_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    from gt_calls import Method

    keywords, what, generate = WRAPPER[name]
    wrapper = AutoregressiveWrapper(Mega(**{**BASE, **keywords}))
    if what == "loss":
        return wrapper, (_ids(length=SEQ + 1),), {}
    return Method(wrapper, "generate", seq_len=GENERATE, **generate), (_ids(length=PROMPT),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from mega_pytorch import Mega, MegaLayer
    from mega_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    from gt_calls import Run

    if name == "train.AutoregressiveWrapper":
        net: Any = AutoregressiveWrapper(Mega(**BASE))
        inputs: tuple[Any, ...] = (_ids(length=SEQ + 1),)
        entries: list[Any] = [AutoregressiveWrapper, Mega]

        def loss_of(owner: Any, ids: Any) -> Any:
            return owner(ids)
    elif name == "train.Mega.token_classifier":
        net = Mega(**{**BASE, "causal": False, "num_tokens": TOKENS})
        inputs = (_ids(), torch.randint(0, TOKENS, (BATCH, SEQ), generator=_gen(3)))
        entries = [Mega]

        def loss_of(owner: Any, ids: Any, labels: Any) -> Any:
            return F.cross_entropy(owner(ids).transpose(1, 2), labels)
    else:
        net = MegaLayer(**LAYER)
        inputs = (_randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, DIM, seed=3))
        entries = [MegaLayer]

        def loss_of(owner: Any, x: Any, target: Any) -> Any:
            return F.mse_loss(owner(x), target)

    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

    def step(owner: Any, *tensors: Any) -> Any:
        """One training step: the loss, its gradients, an Adam update."""
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = loss_of(owner, *tensors)
            loss.backward()
            optimizer.step()
        return loss.detach()

    return Run(net, step, entries), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch
    from mega_pytorch import Mega

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MEGA:
        keywords, (batch, length) = MEGA[name]
        return Mega(**{**BASE, **keywords}), (_ids(batch, length),), {}
    if name in LAYERS:
        return _layer(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in WRAPPER:
        return _wrapper(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
