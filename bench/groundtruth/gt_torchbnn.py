"""Ground-truth bench, torchbnn: Bayesian layers with Gaussian weights sampled at every call.

torchbnn (bayesian-neural-network-pytorch) replaces a layer's weights by a mean and a log standard
deviation and samples them by reparameterisation on each forward (or uses fixed noise once frozen):
``BayesLinear``, ``BayesConv2d`` (strides, padding, dilation, groups, circular padding, no bias) and
``BayesBatchNorm2d`` (affine or not, running statistics tracked or not, a cumulative average when
``momentum`` is None). The KL divergence of the weights to the prior is ``bayesian_kl_loss`` (mean, sum,
the last layer only), also the module ``BKLLoss``; ``torchbnn.utils`` freezes and unfreezes a model's
noise (its deprecated converters between plain and Bayesian models parse module reprs that today's torch
prints differently, so they fail before any compile and are left out). The models are:

- ``LAYERS``: each layer in the configurations that change its forward, sampling and frozen;
- ``KL``: ``BKLLoss`` and ``bayesian_kl_loss`` over a Bayesian MLP and a Bayesian conv net with batch
  norm (``gt_calls.Run`` holding the net, called with no inputs, as a training loop calls the loss);
- ``NETS``: small Bayesian networks as users write them (an MLP classifier, a conv net with batch norm
  and without bias): forward, frozen forward, ``freeze`` / forward / ``unfreeze`` inside one call, the
  predictive mean and spread of several sampled forwards, the training loss (cross-entropy plus a
  weighted KL term), the same for a regression MLP (MSE plus KL), and an Adam step on that loss
  (``gt_calls.OptimizerStep``, backward inside the step);

Tiny sizes: batches of 2, 8 features or 3-channel 8x8 images, widths 8 to 16. Random weights, nothing
downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, DIM, HIDDEN, CLASSES = 2, 8, 16, 3
PRIOR = (0.0, 0.1)

# layer name -> (class, constructor keywords after the prior, input: "vector" or "image", frozen).
LAYERS: dict[str, tuple[str, dict[str, Any], str, bool]] = {
    "BayesLinear": ("BayesLinear", {"in_features": DIM, "out_features": HIDDEN}, "vector", False),
    "BayesLinear.no_bias": ("BayesLinear", {"in_features": DIM, "out_features": HIDDEN, "bias": False}, "vector",
                            False),
    "BayesLinear.frozen": ("BayesLinear", {"in_features": DIM, "out_features": HIDDEN}, "vector", True),
    "BayesLinear.no_bias.frozen": ("BayesLinear", {"in_features": DIM, "out_features": HIDDEN, "bias": False},
                                   "vector", True),
    "BayesConv2d": ("BayesConv2d", {"in_channels": 3, "out_channels": 8, "kernel_size": 3}, "image", False),
    "BayesConv2d.stride_padding": ("BayesConv2d", {"in_channels": 3, "out_channels": 8, "kernel_size": 3,
                                                   "stride": 2, "padding": 1}, "image", False),
    "BayesConv2d.dilation_groups": ("BayesConv2d", {"in_channels": 3, "out_channels": 6, "kernel_size": 3,
                                                    "dilation": 2, "groups": 3, "padding": 2}, "image", False),
    "BayesConv2d.circular": ("BayesConv2d", {"in_channels": 3, "out_channels": 8, "kernel_size": 3, "padding": 1,
                                             "padding_mode": "circular"}, "image", False),
    "BayesConv2d.no_bias": ("BayesConv2d", {"in_channels": 3, "out_channels": 8, "kernel_size": 3, "bias": False},
                            "image", False),
    "BayesConv2d.frozen": ("BayesConv2d", {"in_channels": 3, "out_channels": 8, "kernel_size": 3, "padding": 1},
                           "image", True),
    "BayesConv2d.circular.no_bias.frozen": ("BayesConv2d", {"in_channels": 3, "out_channels": 8, "kernel_size": 3,
                                                            "padding": 1, "padding_mode": "circular", "bias": False},
                                            "image", True),
    "BayesBatchNorm2d": ("BayesBatchNorm2d", {"num_features": 3}, "image", False),
    "BayesBatchNorm2d.frozen": ("BayesBatchNorm2d", {"num_features": 3}, "image", True),
    "BayesBatchNorm2d.no_affine": ("BayesBatchNorm2d", {"num_features": 3, "affine": False}, "image", False),
    "BayesBatchNorm2d.no_running_stats": ("BayesBatchNorm2d", {"num_features": 3, "track_running_stats": False},
                                          "image", False),
    "BayesBatchNorm2d.cumulative_average": ("BayesBatchNorm2d", {"num_features": 3, "momentum": None}, "image",
                                            False),
}
# KL name -> (net: "mlp" or "cnn", "module" (``BKLLoss``) or "function", keywords).
KL: dict[str, tuple[str, str, dict[str, Any]]] = {
    "BKLLoss": ("mlp", "module", {}),
    "BKLLoss.sum": ("mlp", "module", {"reduction": "sum"}),
    "BKLLoss.last_layer_only": ("mlp", "module", {"last_layer_only": True}),
    "BKLLoss.cnn": ("cnn", "module", {}),
    "bayesian_kl_loss": ("mlp", "function", {}),
    "bayesian_kl_loss.cnn.sum": ("cnn", "function", {"reduction": "sum"}),
    "bayesian_kl_loss.cnn.last_layer_only": ("cnn", "function", {"last_layer_only": True}),
    "bayesian_kl_loss.cnn.no_affine": ("cnn.no_affine", "function", {}),
}
# network name -> (net, what the compiled call does).
NETS: dict[str, tuple[str, str]] = {
    "mlp": ("mlp", "forward"),
    "mlp.frozen": ("mlp", "frozen"),
    "mlp.freeze_unfreeze": ("mlp", "freeze_unfreeze"),
    "mlp.predictive": ("mlp", "predictive"),
    "mlp.train_loss": ("mlp", "classify"),
    "mlp.regression_loss": ("regression", "regress"),
    "mlp.adam_step": ("mlp", "step"),
    "cnn": ("cnn", "forward"),
    "cnn.frozen": ("cnn", "frozen"),
    "cnn.freeze_unfreeze": ("cnn", "freeze_unfreeze"),
    "cnn.predictive": ("cnn", "predictive"),
    "cnn.train_loss": ("cnn", "classify"),
    "cnn.no_affine.train_loss": ("cnn.no_affine", "classify"),
    "cnn.adam_step": ("cnn", "step"),
}


def names() -> list[str]:
    return list(LAYERS) + list(KL) + list(NETS)


def _input(kind: str, seed: int = 1) -> Any:
    import torch

    shape = (BATCH, 3, 8, 8) if kind.startswith("cnn") or kind == "image" else (BATCH, DIM)
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _net(kind: str) -> Any:
    """A Bayesian MLP classifier, a regression MLP, or a conv net with Bayesian batch norm."""
    import torchbnn as bnn
    from torch import nn

    if kind == "mlp":
        return nn.Sequential(bnn.BayesLinear(*PRIOR, DIM, HIDDEN), nn.ReLU(), bnn.BayesLinear(*PRIOR, HIDDEN, CLASSES))
    if kind == "regression":
        return nn.Sequential(bnn.BayesLinear(*PRIOR, DIM, HIDDEN), nn.Tanh(), bnn.BayesLinear(*PRIOR, HIDDEN, 1))
    affine = kind != "cnn.no_affine"
    return nn.Sequential(bnn.BayesConv2d(*PRIOR, 3, 8, 3, padding=1, bias=False),
                         bnn.BayesBatchNorm2d(*PRIOR, 8, affine=affine), nn.ReLU(), nn.MaxPool2d(2),
                         bnn.BayesConv2d(*PRIOR, 8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), bnn.BayesLinear(*PRIOR, 8, CLASSES))


def _kl(name: str) -> Built:
    import torchbnn as bnn
    from torchbnn.functional import bayesian_kl_loss

    from gt_calls import Run

    kind, form, keywords = KL[name]
    net = _net(kind)
    if form == "module":
        loss = bnn.BKLLoss(**keywords)
        return Run(net, lambda owner: loss(owner), [bnn.BKLLoss]), (), {}
    return Run(net, lambda owner: bayesian_kl_loss(owner, **keywords), [bayesian_kl_loss]), (), {}


def _nets(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torchbnn as bnn
    from torchbnn.utils import freeze, unfreeze

    from gt_calls import OptimizerStep, Run

    kind, what = NETS[name]
    net = _net(kind)
    x = _input(kind)
    labels = torch.tensor([0, 2])
    kl_loss = bnn.BKLLoss(reduction="mean", last_layer_only=False)
    layers = [bnn.BayesLinear, bnn.BayesConv2d, bnn.BayesBatchNorm2d]
    if what == "forward":
        return net, (x,), {}
    if what == "frozen":
        freeze(net)
        return net, (x,), {}
    if what == "freeze_unfreeze":
        def deterministic(owner: Any, x_: Any) -> Any:
            freeze(owner)
            out = owner(x_)
            unfreeze(owner)
            return out

        return Run(net, deterministic, [freeze, unfreeze, *layers]), (x,), {}
    if what == "predictive":
        def predictive(owner: Any, x_: Any) -> Any:
            """Mean and spread of the class probabilities over four sampled networks."""
            probs = torch.stack([F.softmax(owner(x_), dim=-1) for _ in range(4)])
            return probs.mean(0), probs.std(0)

        return Run(net, predictive, layers), (x,), {}
    if what == "regress":
        target = torch.randn(BATCH, 1, generator=torch.Generator().manual_seed(2))

        def regress(owner: Any, x_: Any, y_: Any) -> Any:
            return F.mse_loss(owner(x_), y_) + 0.01 * kl_loss(owner)

        return Run(net, regress, [bnn.BKLLoss, *layers]), (x, target), {}

    def classify(x_: Any, y_: Any, owner: Any = net) -> Any:
        return F.cross_entropy(owner(x_), y_) + 0.1 * kl_loss(owner)

    if what == "classify":
        return Run(net, lambda owner, x_, y_: classify(x_, y_, owner), [bnn.BKLLoss, *layers]), (x, labels), {}

    class _Step(OptimizerStep):
        def entry_points(self) -> list[Any]:
            return [bnn.BKLLoss, *layers]

    return _Step(net, torch.optim.Adam(net.parameters(), lr=1e-3), loss=classify), (x, labels), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in LAYERS:
        import torchbnn as bnn

        cls, keywords, kind, frozen = LAYERS[name]
        layer = getattr(bnn, cls)(*PRIOR, **keywords)
        if frozen:
            layer.freeze()
        return layer, (_input(kind),), {}
    if name in KL:
        return _kl(name)
    return _nets(name)
