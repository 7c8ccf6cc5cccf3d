"""Ground-truth bench, iTransformer: the inverted Transformer for multivariate time-series forecasting (Liu 2023).

iTransformer 0.8.1 (lucidrains) embeds each variate's whole lookback window as a token (or several) and attends
across variates. It exports three models and their parts:

- ``iTransformer``: memory tokens, hyper-connection residual streams (``hyper_connections``; one stream is a
  plain residual), pre-norm attention with gated value heads and a learned value-residual mix from the second
  layer on, GEGLU feedforwards, reversible instance normalization (``RevIN``), several prediction heads
  (a dict of predictions) and an MSE loss given targets (train mode only);
- ``iTransformer2D``: time tokens from a padded convolution beside the variate token, a ``SimpleGateLoopLayer``
  (``gateloop_transformer``), causal attention across time with rotary embeddings and full attention across
  variates, post-norm blocks;
- ``iTransformerFFT``: the variate tokens joined by tokens of the window's Fourier transform
  (``view_as_real``), spliced out before the heads;
- ``Attend`` (``attend.py``): einsum attention (causal or not, dropout) or ``scaled_dot_product_attention``
  under ``sdpa_kernel`` with the CPU backends (``flash``), and ``RevIN``.

The tables cover, at 3 variates, a lookback of 12, predictions of 4, width 16, 2 heads of 8 and a batch of 2:

- ``MODELS``: each model's forward: flash or einsum attention, depth one or two, one, two or four residual
  streams, no memory tokens, two tokens per variate, several prediction lengths, RevIN (affine or not),
  dropout, two or four time tokens (2D), a batch of one;
- ``TRAIN``: training steps through ``gt_calls.Run``: the model's own loss (``targets``, one tensor or a tuple
  for several heads) and ``backward``, one with an AdamW step; in eval mode the step predicts only (the
  library asserts that targets come with training);
- ``PARTS``: ``Attend`` (einsum, flash, causal, dropout, a given scale), ``RevIN`` (normalize then reverse,
  the statistics), ``Attention`` with and without the value-residual mix, ``FeedForward``, ``GEGLU``, the 2D
  ``TransformerBlock`` (causal with rotary embeddings, or full) and the FFT model's ``Attention``.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
VARIATES = 3
LOOKBACK = 12
PRED = 4
DIM = 16
HEADS = 2
DIM_HEAD = 8
BASE: dict[str, Any] = {"num_variates": VARIATES, "lookback_len": LOOKBACK, "depth": 2, "dim": DIM,
                        "pred_length": PRED, "dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2}
NO_FLASH: dict[str, Any] = {"flash_attn": False}
DROPOUT: dict[str, Any] = {"attn_dropout": 0.1, "ff_dropout": 0.1}
REVIN: dict[str, Any] = {"use_reversible_instance_norm": True}
PREDS: dict[str, Any] = {"pred_length": (2, PRED, 6)}
TIME: dict[str, Any] = {"num_time_tokens": 3}
# Model name -> (class, keywords over ``BASE``, batch).
MODELS: dict[str, tuple[str, dict[str, Any], int]] = {
    "iTransformer": ("iTransformer", {}, BATCH),
    "iTransformer.no_flash": ("iTransformer", NO_FLASH, BATCH),
    "iTransformer.depth1": ("iTransformer", {"depth": 1}, BATCH),
    "iTransformer.depth1.no_flash": ("iTransformer", {"depth": 1, **NO_FLASH}, BATCH),
    "iTransformer.streams1": ("iTransformer", {"num_residual_streams": 1}, BATCH),
    "iTransformer.streams2.no_flash": ("iTransformer", {"num_residual_streams": 2, **NO_FLASH}, BATCH),
    "iTransformer.no_mem": ("iTransformer", {"num_mem_tokens": 0}, BATCH),
    "iTransformer.tokens_per_variate2": ("iTransformer", {"num_tokens_per_variate": 2}, BATCH),
    "iTransformer.pred_lengths": ("iTransformer", PREDS, BATCH),
    "iTransformer.revin": ("iTransformer", REVIN, BATCH),
    "iTransformer.revin.affine": ("iTransformer", {**REVIN, "reversible_instance_norm_affine": True}, BATCH),
    "iTransformer.revin.tokens_per_variate2": ("iTransformer", {**REVIN, "num_tokens_per_variate": 2}, BATCH),
    "iTransformer.revin.dropout": ("iTransformer", {**REVIN, **DROPOUT}, BATCH),
    "iTransformer.dropout": ("iTransformer", DROPOUT, BATCH),
    "iTransformer.dropout.no_flash": ("iTransformer", {**DROPOUT, **NO_FLASH}, BATCH),
    "iTransformer.streams1.no_mem.no_flash": ("iTransformer", {"num_residual_streams": 1, "num_mem_tokens": 0,
                                                               **NO_FLASH}, BATCH),
    "iTransformer.batch1": ("iTransformer", {}, 1),
    "iTransformer2D": ("iTransformer2D", TIME, BATCH),
    "iTransformer2D.no_flash": ("iTransformer2D", {**TIME, **NO_FLASH}, BATCH),
    "iTransformer2D.depth1": ("iTransformer2D", {**TIME, "depth": 1}, BATCH),
    "iTransformer2D.time_tokens2": ("iTransformer2D", {"num_time_tokens": 2}, BATCH),
    "iTransformer2D.time_tokens4.no_flash": ("iTransformer2D", {"num_time_tokens": 4, **NO_FLASH}, BATCH),
    "iTransformer2D.no_mem": ("iTransformer2D", {**TIME, "num_mem_tokens": 0}, BATCH),
    "iTransformer2D.revin": ("iTransformer2D", {**TIME, **REVIN}, BATCH),
    "iTransformer2D.revin.no_affine": ("iTransformer2D", {**TIME, **REVIN, "reversible_instance_norm_affine": False},
                                       BATCH),
    "iTransformer2D.pred_lengths": ("iTransformer2D", {**TIME, **PREDS}, BATCH),
    "iTransformer2D.dropout": ("iTransformer2D", {**TIME, **DROPOUT}, BATCH),
    "iTransformer2D.batch1": ("iTransformer2D", TIME, 1),
    "iTransformerFFT": ("iTransformerFFT", {}, BATCH),
    "iTransformerFFT.no_flash": ("iTransformerFFT", NO_FLASH, BATCH),
    "iTransformerFFT.depth1": ("iTransformerFFT", {"depth": 1}, BATCH),
    "iTransformerFFT.no_mem": ("iTransformerFFT", {"num_mem_tokens": 0}, BATCH),
    "iTransformerFFT.tokens_per_variate2": ("iTransformerFFT", {"num_tokens_per_variate": 2}, BATCH),
    "iTransformerFFT.revin": ("iTransformerFFT", REVIN, BATCH),
    "iTransformerFFT.revin.affine.no_flash": ("iTransformerFFT", {**REVIN, "reversible_instance_norm_affine": True,
                                                                  **NO_FLASH}, BATCH),
    "iTransformerFFT.pred_lengths": ("iTransformerFFT", PREDS, BATCH),
    "iTransformerFFT.dropout": ("iTransformerFFT", DROPOUT, BATCH),
}
# Train step name -> (model name in ``MODELS``, optimizer: None or "adamw").
TRAIN: dict[str, tuple[str, str | None]] = {
    "train.iTransformer": ("iTransformer", None),
    "train.iTransformer.no_flash": ("iTransformer.no_flash", None),
    "train.iTransformer.pred_lengths": ("iTransformer.pred_lengths", None),
    "train.iTransformer.revin.dropout": ("iTransformer.revin.dropout", None),
    "train.iTransformer.adamw": ("iTransformer.streams1", "adamw"),
    "train.iTransformer2D": ("iTransformer2D", None),
    "train.iTransformer2D.pred_lengths": ("iTransformer2D.pred_lengths", None),
    "train.iTransformer2D.adamw": ("iTransformer2D.revin", "adamw"),
    "train.iTransformerFFT": ("iTransformerFFT", None),
    "train.iTransformerFFT.pred_lengths": ("iTransformerFFT.pred_lengths", None),
    "train.iTransformerFFT.adamw": ("iTransformerFFT.revin", "adamw"),
}
# ``Attend`` name -> keywords.
ATTEND: dict[str, dict[str, Any]] = {
    "Attend": {},
    "Attend.flash": {"flash": True},
    "Attend.causal": {"causal": True},
    "Attend.causal.flash": {"causal": True, "flash": True},
    "Attend.dropout": {"dropout": 0.1},
    "Attend.flash.dropout": {"flash": True, "dropout": 0.1},
    "Attend.scale": {"scale": 0.5},
}
PARTS = ("RevIN", "RevIN.reverse", "RevIN.statistics", "RevIN.affine.reverse", "Attention", "Attention.no_flash",
         "Attention.value_residual", "Attention.value_residual.dropout", "FeedForward", "GEGLU",
         "TransformerBlock.causal.rotary", "TransformerBlock", "TransformerBlock.no_flash.dropout",
         "iTransformerFFT.Attention")


def names() -> list[str]:
    return [*MODELS, *TRAIN, *ATTEND, *PARTS]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _model(name: str) -> tuple[Any, int]:
    import iTransformer

    cls, keywords, batch = MODELS[name]
    return getattr(iTransformer, cls)(**{**BASE, **keywords}), batch


def _series(batch: int = BATCH) -> Any:
    """A batch of multivariate series: (batch, lookback, variates)."""
    return _randn(batch, LOOKBACK, VARIATES)


def _targets(model: Any, batch: int) -> Any:
    """One target per prediction head, (batch, length, variates); a tuple for several heads."""
    targets = tuple(_randn(batch, length, VARIATES, seed=3 + i) for i, length in enumerate(model.pred_length))
    return targets if len(targets) > 1 else targets[0]


def _train(name: str) -> Built:
    import torch

    from gt_calls import Run

    model_name, optimizer_name = TRAIN[name]
    model, batch = _model(model_name)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3) if optimizer_name == "adamw" else None

    def step(owner: Any, series: Any, targets: Any) -> Any:
        """The model's MSE loss on the targets, its gradients and (given an optimizer) one step; predictions
        alone in eval mode, where the library refuses targets."""
        if not owner.training:
            return owner(series)
        loss = owner(series, targets=targets)
        loss.backward()
        if optimizer is not None:
            optimizer.step()
            optimizer.zero_grad()
        return loss.detach()

    return Run(model, step, [type(model)]), (_series(batch), _targets(model, batch)), {}


def _reverse(owner: Any, x: Any) -> Any:
    """RevIN as the models use it: normalize, transform, map back through the returned ``reverse_fn``."""
    normalized, reverse_fn = owner(x)
    return reverse_fn(normalized * 0.5 + 0.1)


def _statistics(owner: Any, x: Any) -> Any:
    normalized, reverse_fn, statistics = owner(x, return_statistics=True)
    return reverse_fn(normalized), statistics.mean, statistics.variance, statistics.gamma


def _part(name: str) -> Built:
    import importlib

    from gt_calls import Run
    from iTransformer.revin import RevIN
    from rotary_embedding_torch import RotaryEmbedding

    # The package's names are the classes: the modules are reached through ``importlib``.
    one_d, two_d, fft = (importlib.import_module(f"iTransformer.{module}")
                         for module in ("iTransformer", "iTransformer2D", "iTransformerFFT"))
    tokens = _randn(BATCH, 5, DIM)
    if name.startswith("RevIN"):
        revin = RevIN(VARIATES, affine=".affine" in name)
        windows = _randn(BATCH, VARIATES, LOOKBACK)
        if name == "RevIN":
            return Run(revin, lambda owner, x: owner(x)[0], [RevIN]), (windows,), {}
        if name.endswith("statistics"):
            return Run(revin, _statistics, [RevIN]), (windows,), {}
        return Run(revin, _reverse, [RevIN]), (windows,), {}
    if name.startswith("Attention.value_residual"):
        attention = one_d.Attention(DIM, dim_head=DIM_HEAD, heads=HEADS, learned_value_residual_mix=True,
                                    dropout=0.1 if name.endswith("dropout") else 0.0)
        return attention, (tokens,), {"value_residual": _randn(BATCH, HEADS, 5, DIM_HEAD, seed=2)}
    if name.startswith("Attention"):
        return one_d.Attention(DIM, dim_head=DIM_HEAD, heads=HEADS, flash=not name.endswith("no_flash")), \
            (tokens,), {}
    if name == "FeedForward":
        return Run(one_d.FeedForward(DIM, mult=2, dropout=0.1), lambda owner, x: owner(x), [one_d.GEGLU]), \
            (tokens,), {}
    if name == "GEGLU":
        return one_d.GEGLU(), (_randn(BATCH, 5, 2 * DIM),), {}
    if name.startswith("TransformerBlock"):
        block_keywords: dict[str, Any] = {"dim": DIM, "dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2}
        if name.endswith("causal.rotary"):
            block_keywords.update(causal=True, rotary_emb=RotaryEmbedding(DIM_HEAD))
        if ".no_flash.dropout" in name:
            block_keywords.update(flash_attn=False, attn_dropout=0.1, ff_dropout=0.1)
        return two_d.TransformerBlock(**block_keywords), (tokens,), {}
    if name == "iTransformerFFT.Attention":
        return fft.Attention(DIM, dim_head=DIM_HEAD, heads=HEADS), (tokens,), {}
    raise KeyError(name)


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        model, batch = _model(name)
        return model, (_series(batch),), {}
    if name in TRAIN:
        return _train(name)
    if name in ATTEND:
        from iTransformer.attend import Attend

        q, k, v = (_randn(BATCH, HEADS, 5, DIM_HEAD, seed=seed) for seed in (1, 2, 3))
        return Attend(**ATTEND[name]), (q, k, v), {}
    if name in PARTS:
        return _part(name)
    raise KeyError(name)
