"""Ground-truth bench, hl_gauss_pytorch: the HL-Gauss loss, regression cast as classification over bins.

hl-gauss-pytorch 0.3.0 turns a scalar regression target into a histogram: a Gaussian of width ``sigma`` around the
target is integrated over the bins of a fixed support (``erf`` at the bin edges, in float64), and the network's
logits over the bins are trained with a cross-entropy against it; the prediction is the expected bin centre.
``HLGaussLoss`` builds the support from a range and a bin count (optionally centred on the range's ends, optionally
through a ``symlog`` / custom transform) and returns an ``HLGaussLossFromSupport``, which holds the support and
warns once (``torch_einops_utils.once``, a ``loguru`` warning) when a target lies beyond the support by more than a
tolerance. ``HLGaussLossFromRunningStats`` keeps a Welford running mean and variance of the targets (buffers read
back with ``item()``) and rebuilds its inner loss from them on every training call. ``HLGaussLayer`` is the value
head users put on a network: an optional norm and network, a projection to the bins, the loss (from a dict, a
module or running stats), a plain MSE regression mode for comparison and an auxiliary regression loss.
``BinaryHLGaussLoss`` is the two-bin version for values in a range, with a binary cross-entropy. The tables cover,
at a batch of 4 (sequences of 3), 8 to 16 bins:

- ``LOSSES``: ``HLGaussLoss`` and ``HLGaussLossFromSupport`` forwards: predicted values from logits, losses with
  each reduction, a mask, 3-d logits, values given as logits, clamping, bin-centred ranges, ``sigma`` and
  ``sigma_to_bin_ratio``, ``symlog`` and a custom transform, list, tensor and uneven supports, out-of-range targets
  (the warning path) with and without the warning, and the transforms called as methods;
- ``RUNNING``: ``HLGaussLossFromRunningStats`` in training (statistics updated, the loss rebuilt) and frozen;
- ``LAYERS``: ``HLGaussLayer`` with its options: losses, values, logits, value and logits, a network and norm,
  running statistics, MSE regression, the auxiliary regression loss, masks;
- ``BINARY``: ``BinaryHLGaussLoss`` forwards and its transforms, ``symlog`` / ``symexp``;
- ``TRAIN``: training steps (loss backward, Adam step) through a value network with each head.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only. Nothing was left out: every model runs eagerly.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM, BINS = 4, 3, 8, 12

# Loss model name -> (constructor: "range" (HLGaussLoss) | "support" | "support_tensor" | "support_uneven",
# constructor keywords, call: "value" | "loss" | "loss3d" | "values_as_logits" | method name, call keywords,
# target kind: "in" | "out" (beyond the support) | "wide").
LOSSES: dict[str, tuple[str, dict[str, Any], str, dict[str, Any], str]] = {
    "HLGaussLoss.value": ("range", {}, "value", {}, "in"),
    "HLGaussLoss.loss": ("range", {}, "loss", {}, "in"),
    "HLGaussLoss.loss.reduction_none": ("range", {}, "loss", {"reduction": "none"}, "in"),
    "HLGaussLoss.loss.reduction_sum": ("range", {}, "loss", {"reduction": "sum"}, "in"),
    "HLGaussLoss.loss.mask": ("range", {}, "loss3d", {"mask": True}, "in"),
    "HLGaussLoss.loss.mask.sum": ("range", {}, "loss3d", {"mask": True, "reduction": "sum"}, "in"),
    "HLGaussLoss.loss.seq": ("range", {}, "loss3d", {}, "in"),
    "HLGaussLoss.value.seq": ("range", {}, "value3d", {}, "in"),
    "HLGaussLoss.values_as_logits": ("range", {}, "values_as_logits", {}, "in"),
    "HLGaussLoss.clamp_to_range": ("range", {"clamp_to_range": True}, "loss", {}, "out"),
    "HLGaussLoss.clamp_to_range.no_warn": ("range", {"clamp_to_range": True, "warn_out_of_range": False}, "loss",
                                           {}, "out"),
    "HLGaussLoss.out_of_range.warns": ("range", {}, "loss", {}, "out"),
    "HLGaussLoss.out_of_range.no_warn": ("range", {"warn_out_of_range": False}, "loss", {}, "out"),
    "HLGaussLoss.out_of_range.tolerance": ("range", {"out_of_range_tolerance_sigma": 100.0}, "loss", {}, "out"),
    "HLGaussLoss.bin_center": ("range", {"min_max_value_on_bin_center": True}, "loss", {}, "in"),
    "HLGaussLoss.sigma": ("range", {"sigma": 0.3}, "loss", {}, "in"),
    "HLGaussLoss.sigma_to_bin_ratio": ("range", {"sigma_to_bin_ratio": 1.0}, "loss", {}, "in"),
    "HLGaussLoss.symlog.loss": ("range", {"use_symlog": True}, "loss", {}, "wide"),
    "HLGaussLoss.symlog.value": ("range", {"use_symlog": True}, "value", {}, "wide"),
    "HLGaussLoss.custom_transform.loss": ("range", {"transform": "asinh"}, "loss", {}, "wide"),
    "HLGaussLoss.custom_transform.value": ("range", {"transform": "asinh"}, "value", {}, "wide"),
    "HLGaussLoss.transform_to_probs": ("range", {}, "transform_to_probs", {}, "in"),
    "HLGaussLoss.transform_to_probs.eps": ("range", {}, "transform_to_probs", {"eps": 1e-6}, "in"),
    "HLGaussLoss.transform_to_logprobs": ("range", {}, "transform_to_logprobs", {}, "in"),
    "HLGaussLoss.transform_from_probs": ("range", {}, "transform_from_probs", {}, "in"),
    "HLGaussLoss.transform_from_logits.symlog": ("range", {"use_symlog": True}, "transform_from_logits", {}, "in"),
    "HLGaussLossFromSupport.list.loss": ("support", {}, "loss", {}, "in"),
    "HLGaussLossFromSupport.list.value": ("support", {}, "value", {}, "in"),
    "HLGaussLossFromSupport.tensor.loss": ("support_tensor", {}, "loss", {}, "in"),
    "HLGaussLossFromSupport.uneven.loss": ("support_uneven", {}, "loss", {}, "in"),
    "HLGaussLossFromSupport.uneven.value": ("support_uneven", {}, "value", {}, "in"),
    "HLGaussLossFromSupport.symlog.clamp": ("support", {"use_symlog": True, "clamp_to_range": True}, "loss", {},
                                           "wide"),
}
# Running-stats model name -> (constructor keywords, call: "loss" | "value" | "loss.freeze" | "loss.mask").
RUNNING: dict[str, tuple[dict[str, Any], str]] = {
    "HLGaussLossFromRunningStats.loss": ({}, "loss"),
    "HLGaussLossFromRunningStats.value": ({}, "value"),
    "HLGaussLossFromRunningStats.freeze_stats": ({"freeze_stats": True}, "loss"),
    "HLGaussLossFromRunningStats.freeze_stats_call": ({}, "loss.freeze"),
    "HLGaussLossFromRunningStats.mask": ({}, "loss.mask"),
    "HLGaussLossFromRunningStats.symlog": ({"use_symlog": True}, "loss"),
    "HLGaussLossFromRunningStats.clamp.time_dilate": ({"clamp_to_range": True,
                                                       "running_stats_kwargs": {"time_dilate_factor": 2.0}}, "loss"),
}
# Layer model name -> (layer keywords: "loss" ("dict" | "module" | "running"), others, call: "loss" | "value" |
# "logits" | "value_and_logits" | "loss_and_logits" | "loss.mask" | "loss.none", input: "x" | "seq").
LAYERS: dict[str, tuple[dict[str, Any], str, str]] = {
    "HLGaussLayer.loss": ({"loss": "dict"}, "loss", "x"),
    "HLGaussLayer.value": ({"loss": "dict"}, "value", "x"),
    "HLGaussLayer.logits": ({"loss": "dict"}, "logits", "x"),
    "HLGaussLayer.value_and_logits": ({"loss": "dict"}, "value_and_logits", "x"),
    "HLGaussLayer.loss_and_logits": ({"loss": "module"}, "loss_and_logits", "x"),
    "HLGaussLayer.network.norm_embed": ({"loss": "dict", "network": True, "norm_embed": True}, "loss", "x"),
    "HLGaussLayer.seq.mask": ({"loss": "dict"}, "loss.mask", "seq"),
    "HLGaussLayer.seq.reduction_none": ({"loss": "dict"}, "loss.none", "seq"),
    "HLGaussLayer.symlog.value": ({"loss": "symlog"}, "value", "seq"),
    "HLGaussLayer.running_stats.loss": ({"loss": "running"}, "loss", "x"),
    "HLGaussLayer.running_stats.value": ({"loss": "running"}, "value", "x"),
    "HLGaussLayer.aux_regress_loss": ({"loss": "dict", "aux_regress_loss_weight": 0.1}, "loss", "x"),
    "HLGaussLayer.aux_regress_loss.l1": ({"loss": "dict", "aux_regress_loss_weight": 0.5, "l1": True}, "loss", "x"),
    "HLGaussLayer.regression.loss": ({"loss": "dict", "use_regression": True}, "loss", "x"),
    "HLGaussLayer.regression.value": ({"loss": "dict", "use_regression": True}, "value", "seq"),
    "HLGaussLayer.regression.value_and_logits": ({"loss": "dict", "use_regression": True, "activation": True},
                                                 "value_and_logits", "x"),
    "HLGaussLayer.regression.logits": ({"loss": "dict", "use_regression": True}, "logits", "x"),
}
BINARY = (
    "BinaryHLGaussLoss.value", "BinaryHLGaussLoss.loss", "BinaryHLGaussLoss.loss.sum",
    "BinaryHLGaussLoss.loss.none", "BinaryHLGaussLoss.no_clamp", "BinaryHLGaussLoss.range",
    "BinaryHLGaussLoss.transform_to_probs", "BinaryHLGaussLoss.transform_to_logprobs",
    "BinaryHLGaussLoss.transform_from_probs", "symlog", "symexp", "symlog.symexp",
)
TRAIN = (
    "train.HLGaussLoss.adam", "train.HLGaussLoss.symlog.seq_mask.adam", "train.HLGaussLayer.adam",
    "train.HLGaussLayer.aux_regress.adam", "train.HLGaussLayer.running_stats.adam",
    "train.HLGaussLossFromRunningStats.adam", "train.BinaryHLGaussLoss.adam", "train.HLGaussLayer.regression.sgd",
)


def names() -> list[str]:
    return [*LOSSES, *RUNNING, *LAYERS, *BINARY, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _uniform(*shape: int, low: float, high: float, seed: int = 2) -> Any:
    import torch

    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed)) * (high - low) + low


def _seq_mask() -> Any:
    import torch

    mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
    mask[-1, -1] = False
    mask[0, 0] = False
    return mask


def _loss_module(kind: str, keywords: dict[str, Any]) -> Any:
    import torch

    from hl_gauss_pytorch import HLGaussLoss, HLGaussLossFromSupport

    keywords = dict(keywords)
    if keywords.get("transform") == "asinh":
        keywords["transform"], keywords["inverse_transform"] = torch.asinh, torch.sinh
    if kind == "range":
        return HLGaussLoss(-2.0, 2.0, BINS, **keywords)
    if kind == "support":
        return HLGaussLossFromSupport([-2.0 + 4.0 * i / BINS for i in range(BINS + 1)], **keywords)
    if kind == "support_tensor":
        return HLGaussLossFromSupport(torch.linspace(-2.0, 2.0, BINS + 1), **keywords)
    return HLGaussLossFromSupport(torch.linspace(-1.5, 1.5, BINS + 1) ** 3 / 1.6875 * 2.0, **keywords)


def _target(kind: str, *shape: int) -> Any:
    if kind == "out":
        return _uniform(*shape, low=-4.0, high=4.0)
    if kind == "wide":
        return _uniform(*shape, low=-3.0, high=3.0)
    return _uniform(*shape, low=-1.8, high=1.8)


def _loss(name: str) -> Built:
    from gt_calls import Keywords, Method

    kind, keywords, call, call_keywords, target_kind = LOSSES[name]
    module = _loss_module(kind, keywords)
    logits = _randn(BATCH, BINS)
    if call == "value":
        return module, (logits,), {}
    if call == "value3d":
        return module, (_randn(BATCH, SEQ, BINS),), {}
    if call == "loss":
        return Keywords(module, **call_keywords), (logits, _target(target_kind, BATCH)), {}
    if call == "loss3d":
        static = dict(call_keywords)
        if static.pop("mask", False):
            static["mask"] = _seq_mask()
        return Keywords(module, **static), (_randn(BATCH, SEQ, BINS), _target(target_kind, BATCH, SEQ)), {}
    if call == "values_as_logits":
        return module, (_uniform(BATCH, low=-1.8, high=1.8, seed=3), _target("in", BATCH)), {}
    if call in ("transform_to_probs", "transform_to_logprobs"):
        return Method(module, call, **call_keywords), (_target(target_kind, BATCH, SEQ),), {}
    if call == "transform_from_probs":
        return Method(module, call), (logits.softmax(dim=-1),), {}
    return Method(module, call), (logits,), {}


def _running(name: str) -> Built:
    from gt_calls import Run

    from hl_gauss_pytorch import HLGaussLossFromRunningStats

    keywords, call = RUNNING[name]
    module = HLGaussLossFromRunningStats(BINS, **keywords)
    logits, target = _randn(BATCH, SEQ, BINS), _uniform(BATCH, SEQ, low=90.0, high=110.0)
    mask = _seq_mask()

    def run(owner: Any, logits: Any, target: Any) -> Any:
        if call == "value":
            return owner(logits)
        if call == "loss.freeze":
            return owner(logits, target, freeze_stats=True)
        if call == "loss.mask":
            return owner(logits, target, mask=mask)
        return owner(logits, target)

    return Run(module, run, [HLGaussLossFromRunningStats]), (logits, target), {}


def _layer(name: str) -> Built:
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import Run
    from hl_gauss_pytorch import HLGaussLayer, HLGaussLoss

    keywords, call, inp = LAYERS[name]
    keywords = dict(keywords)
    loss = keywords.pop("loss")
    layer_kwargs: dict[str, Any] = {}
    if loss == "dict":
        layer_kwargs["hl_gauss_loss"] = {"min_value": -2.0, "max_value": 2.0, "num_bins": BINS}
    elif loss == "symlog":
        layer_kwargs["hl_gauss_loss"] = {"min_value": -20.0, "max_value": 20.0, "num_bins": BINS, "use_symlog": True}
    elif loss == "module":
        layer_kwargs["hl_gauss_loss"] = HLGaussLoss(-2.0, 2.0, BINS, sigma=0.25)
    else:
        layer_kwargs["hl_gauss_loss_running_stats"] = {"num_bins": BINS}
    if keywords.pop("network", False):
        layer_kwargs["network"] = nn.Sequential(nn.Linear(DIM, DIM), nn.SiLU())
    if keywords.pop("l1", False):
        layer_kwargs["regress_loss_fn"] = F.l1_loss
    if keywords.pop("activation", False):
        layer_kwargs["regress_activation"] = nn.Tanh()
    layer = HLGaussLayer(DIM, **layer_kwargs, **keywords)
    embed = _randn(BATCH, DIM) if inp == "x" else _randn(BATCH, SEQ, DIM)
    target = _uniform(*embed.shape[:-1], low=-1.8, high=1.8)
    mask = _seq_mask()

    def run(owner: Any, embed: Any, target: Any) -> Any:
        if call == "value":
            return owner(embed)
        if call == "logits":
            return owner(embed, target, return_logits=True)
        if call == "value_and_logits":
            return owner(embed, return_value_and_logits=True)
        if call == "loss_and_logits":
            return owner(embed, target, return_value_and_logits=True)
        if call == "loss.mask":
            return owner(embed, target, mask=mask)
        if call == "loss.none":
            return owner(embed, target, reduction="none")
        return owner(embed, target)

    return Run(layer, run, [HLGaussLayer]), (embed, target), {}


def _binary(name: str) -> Built:
    from gt_calls import Call, Keywords, Method
    from hl_gauss_pytorch import BinaryHLGaussLoss, symexp, symlog

    logits, target = _randn(BATCH, SEQ), _uniform(BATCH, SEQ, low=0.0, high=1.0)
    if name == "symlog":
        return Call(symlog), (_randn(BATCH, SEQ) * 10,), {}
    if name == "symexp":
        return Call(symexp), (_randn(BATCH, SEQ),), {}
    if name == "symlog.symexp":
        def roundtrip(t: Any) -> Any:
            return symexp(symlog(t))

        from gt_calls import Run

        return Run(None, lambda _, t: roundtrip(t), [symlog, symexp]), (_randn(BATCH, SEQ) * 10,), {}
    if name == "BinaryHLGaussLoss.range":
        module = BinaryHLGaussLoss(sigma=0.2, min_value=-1.0, max_value=3.0)
        return module, (logits, _uniform(BATCH, SEQ, low=-2.0, high=4.0)), {}
    module = BinaryHLGaussLoss(sigma=0.1, clamp_to_range=name != "BinaryHLGaussLoss.no_clamp")
    if name == "BinaryHLGaussLoss.value":
        return module, (logits,), {}
    if name == "BinaryHLGaussLoss.loss.sum":
        return Keywords(module, reduction="sum"), (logits, target), {}
    if name == "BinaryHLGaussLoss.loss.none":
        return Keywords(module, reduction="none"), (logits, target), {}
    if name in ("BinaryHLGaussLoss.loss", "BinaryHLGaussLoss.no_clamp"):
        return module, (logits, target), {}
    if name == "BinaryHLGaussLoss.transform_from_probs":
        return Method(module, "transform_from_probs"), (logits.sigmoid(),), {}
    return Method(module, name.split(".")[-1]), (target,), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Run
    from hl_gauss_pytorch import BinaryHLGaussLoss, HLGaussLayer, HLGaussLoss, HLGaussLossFromRunningStats

    trunk = nn.Sequential(nn.Linear(DIM, 16), nn.SiLU())
    x = _randn(BATCH, DIM)
    target = _uniform(BATCH, low=-1.8, high=1.8)
    entries: list[Any]
    if name == "train.HLGaussLoss.adam":
        loss_fn: Any = HLGaussLoss(-2.0, 2.0, BINS)
        model: Any = nn.ModuleDict({"trunk": trunk, "head": nn.Linear(16, BINS), "loss": loss_fn})
        entries = [type(loss_fn)]

        def loss(m: Any, x: Any, y: Any) -> Any:
            return m["loss"](m["head"](m["trunk"](x)), y)
    elif name == "train.HLGaussLoss.symlog.seq_mask.adam":
        loss_fn = HLGaussLoss(-50.0, 50.0, BINS, use_symlog=True)
        model = nn.ModuleDict({"trunk": trunk, "head": nn.Linear(16, BINS), "loss": loss_fn})
        entries = [type(loss_fn)]
        x, target, mask = _randn(BATCH, SEQ, DIM), _uniform(BATCH, SEQ, low=-30.0, high=30.0), _seq_mask()

        def loss(m: Any, x: Any, y: Any) -> Any:
            return m["loss"](m["head"](m["trunk"](x)), y, mask=mask)
    elif name == "train.HLGaussLossFromRunningStats.adam":
        model = nn.ModuleDict({"trunk": trunk, "head": nn.Linear(16, BINS),
                               "loss": HLGaussLossFromRunningStats(BINS)})
        entries = [HLGaussLossFromRunningStats]
        target = _uniform(BATCH, low=5.0, high=15.0)

        def loss(m: Any, x: Any, y: Any) -> Any:
            return m["loss"](m["head"](m["trunk"](x)), y)
    elif name == "train.BinaryHLGaussLoss.adam":
        model = nn.ModuleDict({"trunk": trunk, "head": nn.Linear(16, 1), "loss": BinaryHLGaussLoss()})
        entries = [BinaryHLGaussLoss]
        target = _uniform(BATCH, low=0.0, high=1.0)

        def loss(m: Any, x: Any, y: Any) -> Any:
            return m["loss"](m["head"](m["trunk"](x)).squeeze(-1), y)
    else:
        keywords: dict[str, Any] = {"hl_gauss_loss": {"min_value": -2.0, "max_value": 2.0, "num_bins": BINS}}
        if name == "train.HLGaussLayer.aux_regress.adam":
            keywords["aux_regress_loss_weight"] = 0.1
        elif name == "train.HLGaussLayer.running_stats.adam":
            keywords = {"hl_gauss_loss_running_stats": {"num_bins": BINS}}
        elif name == "train.HLGaussLayer.regression.sgd":
            keywords["use_regression"] = True
        model = nn.ModuleDict({"trunk": trunk, "head": HLGaussLayer(16, **keywords)})
        entries = [HLGaussLayer]

        def loss(m: Any, x: Any, y: Any) -> Any:
            return m["head"](m["trunk"](x), y)

    params = list(model.parameters())
    optimizer: Any = torch.optim.SGD(params, lr=0.05) if name.endswith("sgd") else torch.optim.Adam(params, lr=1e-3)

    def step(m: Any, x: Any, y: Any) -> Any:
        """The loss, its gradients and an optimizer step (the forward alone under ``no_grad``)."""
        value = loss(m, x, y)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
        return value

    return Run(model, step, entries), (x, target), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LOSSES:
        return _loss(name)
    if name in RUNNING:
        return _running(name)
    if name in LAYERS:
        return _layer(name)
    if name in BINARY:
        return _binary(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
