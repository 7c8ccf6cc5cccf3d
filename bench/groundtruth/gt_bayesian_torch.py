"""Ground-truth bench, bayesian_torch (bayesian-torch): Bayesian layers, dnn_to_bnn, Bayesian models and their training.

bayesian-torch (Intel Labs) gives mean-field Gaussian variational layers that sample their weights on
every call: the reparameterization estimator (``LinearReparameterization``, ``Conv{1,2,3}d…``,
``ConvTranspose{1,2,3}d…``, ``LSTMReparameterization``) and the Flipout estimator (the same set with
``Flipout``). Each returns ``(output, kl)`` unless ``return_kl=False`` or the layer came from
``dnn_to_bnn`` (``dnn_to_bnn_flag``), and has ``kl_loss()``. ``models.dnn_to_bnn`` swaps the
``Linear``, ``Conv*`` and ``LSTM`` modules of an ordinary network for Bayesian ones (optionally with
MOPED priors from the network's weights) and ``get_kl_loss`` sums their KL terms; the README trains with
``loss = cross_entropy + kl / batch_size``. The package also ships Bayesian models (simple CNNs and CIFAR
/ ImageNet ResNets in both estimators), deterministic ones, the wrappers ``BatchNorm{1,2,3}dLayer``,
``Dropout`` and ``ReLU`` that pass ``(x, kl)`` tuples along, quantized layers (``bnn_to_qbnn``, a
layer's ``prepare()``), accuracy-versus-uncertainty losses (``AvULoss``, ``AUAvULoss``) and NumPy
uncertainty helpers. So each model of the tables is one of:

- ``LAYERS``: every Bayesian layer at tiny sizes (16 features, 2 to 8 channels, a batch of 2) in the
  configurations that change its code: bias or none, ``return_kl=False`` at the call, the
  ``dnn_to_bnn_flag``, stride / padding / dilation / groups, ``output_padding``, a 3-D input to the
  linear layers, and ``prepare()`` (the quantization stubs' branch); ``LSTMS``: both LSTMs on 4 steps,
  with initial hidden states given or not, ``return_kl=False`` and the flag;
- ``KL``: ``kl_loss()`` of layers (bias or not, the LSTMs) through ``gt_calls.Method``;
- ``WRAPPERS``: ``BatchNorm{1,2,3}dLayer`` (an ``(x, kl)`` input, a plain tensor, the cumulative average
  ``momentum=None``, no running statistics, no affine), ``Dropout`` and ``ReLU``;
- ``CONVERTED``: small ordinary networks (an MLP, 2-D and 3-D CNNs, a transposed-convolution decoder, an
  LSTM classifier, the package's deterministic ``SCNN`` and CIFAR ``ResNet``) turned Bayesian by
  ``dnn_to_bnn`` with Reparameterization or Flipout layers, MOPED initialisation or not;
- ``MODELS``: the package's Bayesian models: ``SCNN`` (both estimators, MNIST size), the CIFAR ``ResNet``
  (both estimators; ``ResNet_cifar`` is ``resnet20`` with one block per stage instead of three, on
  16 x 16 images), the ImageNet ``ResNet`` with one ``BasicBlock`` or ``Bottleneck`` per stage (both
  estimators, 10 classes, its ``AvgPool2d(7)`` replaced by an adaptive pool so that 64 x 64 images do),
  and the deterministic ``SCNN`` and CIFAR ``ResNet``;
- ``TRAIN``: bench train steps, ``loss = NLL + KL / batch``: the Bayesian models, converted networks
  with ``get_kl_loss``, a Bayesian LSTM with a Bayesian head, Monte Carlo averaging over 3 forward
  passes, and the AvUC loss (``AvULoss``) added;
- ``PREDICT``: Monte Carlo prediction of a converted network (4 softmax samples stacked, predictive and
  model uncertainty by ``AvULoss``'s methods) in a bench ``gt_calls.Run``;
- ``QUANTIZED``: quantized layers made by ``bnn_to_qbnn`` from float ones (the linear layers, the 2-D
  convolutions, int8 compute on a ``quint8`` input and the deprecated float path), in eval and train
  mode alike;
- ``UNCERTAINTY``: ``AvULoss`` (predictive uncertainty) and its ``accuracy_vs_uncertainty``,
  ``predictive_uncertainty``, ``model_uncertainty`` and ``expected_entropy``, ``get_kl_loss``,
  ``get_rho`` and the NumPy helpers of ``utils.util`` and ``utils.avuc_loss`` (``predictive_entropy``,
  ``mutual_information``, ``eval_avu``, ``accuracy_vs_uncertainty``) on NumPy arrays, through
  ``gt_calls``.

Left out, as they fail in eager mode on 0.5.0: ``dnn_to_bnn`` of a ``Conv1d`` (its tuple
``kernel_size`` reaches ``torch.Tensor``), the CIFAR ResNets' option-B shortcuts (a ``BatchNorm2d``
given the Bayesian convolution's tuple), the 1-D and 2-D transposed Flipout layers with more output than
input channels, ``QuantizedConv1dFlipout`` (its constructor fails), ``AvULoss`` with model uncertainty
(``type=1``) and ``AUAvULoss`` (``log`` of a float). Left out otherwise: ``MOPED`` (it loads a
checkpoint from disk), ``ao.quantization.prepare`` / ``convert`` (a full ResNet-50 behind a
``DataParallel``), the quantized ResNets (ImageNet size, after a calibration) and the ResNets' full
depths (the same blocks repeated). The quantized convolutions are made from layers whose ``prepare()``
stubs were never observed (``quant_prepare`` reset), so they run the default-scale path. Random
weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, FEATURES, CLASSES = 2, 16, 4

# Layer kind -> (class suffix, constructor keywords, input shape).
_KINDS: dict[str, tuple[str, dict[str, Any], tuple[int, ...]]] = {
    "Linear": ("Linear", {"in_features": FEATURES, "out_features": 8}, (BATCH, FEATURES)),
    "Conv1d": ("Conv1d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3}, (BATCH, 4, 16)),
    "Conv2d": ("Conv2d", {"in_channels": 4, "out_channels": 8, "kernel_size": 3}, (BATCH, 4, 8, 8)),
    "Conv3d": ("Conv3d", {"in_channels": 2, "out_channels": 4, "kernel_size": 3}, (BATCH, 2, 6, 6, 6)),
    # as many output channels as input ones: the 1-D and 2-D transposed Flipout layers fail otherwise (0.5.0)
    "ConvTranspose1d": ("ConvTranspose1d", {"in_channels": 4, "out_channels": 4, "kernel_size": 3}, (BATCH, 4, 8)),
    "ConvTranspose2d": ("ConvTranspose2d", {"in_channels": 4, "out_channels": 4, "kernel_size": 3}, (BATCH, 4, 6, 6)),
    "ConvTranspose3d": ("ConvTranspose3d", {"in_channels": 2, "out_channels": 4, "kernel_size": 3},
                        (BATCH, 2, 4, 4, 4)),
}
ESTIMATORS = ("Reparameterization", "Flipout")
# The prior and posterior initialisation every layer is given (``Conv3dReparameterization`` has no defaults).
PRIOR: dict[str, Any] = {"prior_mean": 0.0, "prior_variance": 1.0, "posterior_mu_init": 0.0, "posterior_rho_init": -3.0}

# Layer model name -> (kind, estimator, extra constructor keywords, call keywords, options). Options:
# "flag" (``dnn_to_bnn_flag = True``), "prepare" (``prepare()``), "seq" (a (2, 5, 16) input to a linear layer).
LAYERS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any], tuple[str, ...]]] = {}
for _est in ESTIMATORS:
    for _kind in _KINDS:
        LAYERS[f"{_kind}{_est}"] = (_kind, _est, {}, {}, ())
        LAYERS[f"{_kind}{_est}.no_bias"] = (_kind, _est, {"bias": False}, {}, ())
    LAYERS[f"Linear{_est}.return_kl_false"] = ("Linear", _est, {}, {"return_kl": False}, ())
    LAYERS[f"Linear{_est}.dnn_to_bnn_flag"] = ("Linear", _est, {}, {}, ("flag",))
    LAYERS[f"Linear{_est}.seq"] = ("Linear", _est, {"prior_variance": 0.1, "posterior_rho_init": -4.0}, {}, ("seq",))
    LAYERS[f"Linear{_est}.prepare"] = ("Linear", _est, {}, {}, ("prepare",))
    LAYERS[f"Conv2d{_est}.strided"] = ("Conv2d", _est, {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}, {}, ())
    LAYERS[f"Conv2d{_est}.return_kl_false"] = ("Conv2d", _est, {}, {"return_kl": False}, ())
    LAYERS[f"Conv2d{_est}.dnn_to_bnn_flag"] = ("Conv2d", _est, {"bias": False}, {}, ("flag",))
    LAYERS[f"Conv2d{_est}.prepare"] = ("Conv2d", _est, {}, {}, ("prepare",))
    LAYERS[f"Conv1d{_est}.prepare"] = ("Conv1d", _est, {"bias": False}, {}, ("prepare",))
    LAYERS[f"ConvTranspose2d{_est}.strided"] = ("ConvTranspose2d", _est,
                                                {"stride": 2, "padding": 1, "output_padding": 1}, {}, ())
    LAYERS[f"ConvTranspose1d{_est}.return_kl_false"] = ("ConvTranspose1d", _est, {}, {"return_kl": False}, ())
    LAYERS[f"ConvTranspose3d{_est}.prepare"] = ("ConvTranspose3d", _est, {}, {}, ("prepare",))

# LSTM model name -> (estimator, constructor keywords, call kind: "" / "hidden" (initial states given) /
# "no_kl" (``return_kl=False``) / "flag" (``dnn_to_bnn_flag``)).
LSTMS: dict[str, tuple[str, dict[str, Any], str]] = {}
for _est in ESTIMATORS:
    LSTMS[f"LSTM{_est}"] = (_est, {}, "")
    LSTMS[f"LSTM{_est}.hidden_states"] = (_est, {}, "hidden")
    LSTMS[f"LSTM{_est}.return_kl_false"] = (_est, {"bias": False}, "no_kl")
    LSTMS[f"LSTM{_est}.dnn_to_bnn_flag"] = (_est, {}, "flag")

# ``kl_loss()`` name -> the layer model (of ``LAYERS``) or LSTM whose ``kl_loss`` is compiled.
KL = ("LinearReparameterization", "LinearFlipout", "LinearReparameterization.no_bias", "Conv2dReparameterization",
      "Conv2dFlipout.no_bias", "Conv1dFlipout", "ConvTranspose2dReparameterization", "ConvTranspose3dFlipout",
      "LSTMReparameterization", "LSTMFlipout")

WRAPPERS = ("BatchNorm2dLayer.tuple", "BatchNorm2dLayer.tensor", "BatchNorm2dLayer.cumulative",
            "BatchNorm2dLayer.no_running_stats", "BatchNorm1dLayer", "BatchNorm1dLayer.cumulative",
            "BatchNorm3dLayer", "BatchNorm3dLayer.no_affine", "Dropout", "ReLU")

# Converted network -> (network kind, estimator, MOPED).
CONVERTED: dict[str, tuple[str, str, bool]] = {
    "dnn_to_bnn.mlp.Reparameterization": ("mlp", "Reparameterization", False),
    "dnn_to_bnn.mlp.Flipout": ("mlp", "Flipout", False),
    "dnn_to_bnn.mlp.moped": ("mlp", "Reparameterization", True),
    "dnn_to_bnn.cnn2d.Reparameterization": ("cnn2d", "Reparameterization", False),
    "dnn_to_bnn.cnn2d.Flipout.moped": ("cnn2d", "Flipout", True),
    "dnn_to_bnn.cnn3d.Reparameterization": ("cnn3d", "Reparameterization", False),
    "dnn_to_bnn.decoder.Reparameterization": ("decoder", "Reparameterization", False),
    "dnn_to_bnn.decoder.Flipout": ("decoder", "Flipout", False),
    "dnn_to_bnn.lstm.Reparameterization": ("lstm", "Reparameterization", False),
    "dnn_to_bnn.lstm.Flipout": ("lstm", "Flipout", False),
    "dnn_to_bnn.SCNN.Flipout": ("scnn", "Flipout", False),
    "dnn_to_bnn.ResNet_cifar.Reparameterization": ("ResNet_cifar", "Reparameterization", True),
}

MODELS = ("SCNN.variational", "SCNN.flipout", "ResNet_cifar.variational", "ResNet_cifar.flipout",
"ResNet_large.variational.BasicBlock",
          "ResNet_large.flipout.BasicBlock", "ResNet_large.variational.Bottleneck", "ResNet_large.flipout.Bottleneck",
          "deterministic.SCNN", "deterministic.ResNet_cifar")

TRAIN = ("train_step.SCNN.variational", "train_step.SCNN.flipout", "train_step.ResNet_cifar.variational",
         "train_step.ResNet_cifar.flipout", "train_step.ResNet_large.flipout", "train_step.dnn_to_bnn.mlp",
         "train_step.dnn_to_bnn.cnn2d.Flipout", "train_step.dnn_to_bnn.lstm", "train_step.monte_carlo",
         "train_step.avuc", "train_step.lstm_layer")

PREDICT = ("predict.monte_carlo.mlp", "predict.monte_carlo.cnn2d.Flipout")

# Quantized layer name -> (float layer kind, estimator, call keywords).
QUANTIZED: dict[str, tuple[str, str, dict[str, Any]]] = {
    "QuantizedLinearReparameterization": ("Linear", "Reparameterization", {}),
    "QuantizedLinearReparameterization.float_compute": ("Linear", "Reparameterization", {"enable_int8_compute": False}),
    "QuantizedLinearFlipout": ("Linear", "Flipout", {}),
    "QuantizedConv2dReparameterization": ("Conv2d", "Reparameterization", {}),
    "QuantizedConv2dFlipout": ("Conv2d", "Flipout", {}),
}

UNCERTAINTY = ("AvULoss", "AvULoss.accuracy_vs_uncertainty", "AvULoss.predictive_uncertainty",
               "AvULoss.model_uncertainty", "AvULoss.expected_entropy",
               "get_kl_loss", "get_rho", "util.predictive_entropy", "util.mutual_information",
               "avuc.predictive_entropy", "avuc.mutual_information", "avuc.eval_avu", "avuc.accuracy_vs_uncertainty")


def names() -> list[str]:
    return (list(LAYERS) + list(LSTMS) + [f"kl_loss.{n}" for n in KL] + list(WRAPPERS) + list(CONVERTED)
            + list(MODELS) + list(TRAIN) + list(PREDICT) + list(QUANTIZED) + [f"uncertainty.{n}" for n in UNCERTAINTY])


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _labels(n: int = BATCH, classes: int = CLASSES, seed: int = 2) -> Any:
    import torch

    return torch.randint(0, classes, (n,), generator=_gen(seed))


def _layer(kind: str, estimator: str, extra: dict[str, Any]) -> Any:
    import bayesian_torch.layers as layers

    suffix, keywords, _ = _KINDS[kind]
    return getattr(layers, f"{suffix}{estimator}")(**{**keywords, **PRIOR, **extra})


def _layer_model(name: str) -> Built:
    from gt_calls import Method

    kind, estimator, extra, call, options = LAYERS[name]
    layer = _layer(kind, estimator, extra)
    if "flag" in options:
        layer.dnn_to_bnn_flag = True
    if "prepare" in options:
        layer.prepare()
    shape = (BATCH, 5, FEATURES) if "seq" in options else _KINDS[kind][2]
    if call:
        return Method(layer, "forward", **call), (_randn(*shape),), {}
    return layer, (_randn(*shape),), {}


def _lstm(estimator: str, extra: dict[str, Any]) -> Any:
    import bayesian_torch.layers as layers

    return getattr(layers, f"LSTM{estimator}")(in_features=8, out_features=FEATURES, **extra)


def _lstm_model(name: str) -> Built:
    from gt_calls import Method

    estimator, extra, call = LSTMS[name]
    layer = _lstm(estimator, extra)
    x = _randn(BATCH, 4, 8)
    if call == "hidden":
        return layer, (x, (_randn(BATCH, FEATURES, seed=3), _randn(BATCH, FEATURES, seed=4))), {}
    if call == "no_kl":
        return Method(layer, "forward", return_kl=False), (x,), {}
    if call == "flag":
        layer.dnn_to_bnn_flag = True
    return layer, (x,), {}


def _kl(name: str) -> Built:
    from gt_calls import Method

    if name.startswith("LSTM"):
        layer = _lstm(LSTMS[name][0], {})
    else:
        kind, estimator, extra, _, _ = LAYERS[name]
        layer = _layer(kind, estimator, extra)
    return Method(layer, "kl_loss"), (), {}


def _wrapper(name: str) -> Built:
    import bayesian_torch.layers as layers
    import torch

    kl = torch.tensor(0.5)
    if name.startswith("BatchNorm2dLayer"):
        keywords: dict[str, Any] = {}
        if name.endswith("cumulative"):
            keywords["momentum"] = None
        if name.endswith("no_running_stats"):
            keywords["track_running_stats"] = False
        bn = layers.BatchNorm2dLayer(4, **keywords)
        if keywords.get("momentum", 0.1) is None:
            bn.num_batches_tracked.fill_(1)  # as after one training step (eval divides by it)
        if name.endswith("tensor"):
            # a batch of 3: the layer reads a length-2 input as an ``(x, kl)`` pair
            return bn, (_randn(3, 4, 6, 6),), {}
        return bn, ((_randn(BATCH, 4, 6, 6), kl),), {}
    if name.startswith("BatchNorm1dLayer"):
        bn1 = layers.BatchNorm1dLayer(4, momentum=None) if name.endswith("cumulative") else layers.BatchNorm1dLayer(4)
        bn1.num_batches_tracked.fill_(1)
        return bn1, ((_randn(BATCH, 4, 8), kl),), {}
    if name.startswith("BatchNorm3dLayer"):
        bn3 = layers.BatchNorm3dLayer(2, affine=not name.endswith("no_affine"))
        return bn3, ((_randn(BATCH, 2, 4, 4, 4), kl),), {}
    if name == "Dropout":
        return layers.Dropout(0.25), ((_randn(BATCH, 4, 8), kl),), {}
    return layers.ReLU(), ((_randn(BATCH, 4, 8), kl),), {}


def _prior(estimator: str, moped: bool) -> dict[str, Any]:
    return {"prior_mu": 0.0, "prior_sigma": 1.0, "posterior_mu_init": 0.0, "posterior_rho_init": -3.0,
            "type": estimator, "moped_enable": moped, "moped_delta": 0.5}


def _network(kind: str) -> tuple[Any, Any]:
    """An ordinary network of ``kind`` and an input for it."""
    from torch import nn

    if kind == "mlp":
        return nn.Sequential(nn.Linear(FEATURES, 32), nn.ReLU(), nn.Linear(32, CLASSES)), _randn(BATCH, FEATURES)
    if kind == "cnn2d":
        net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Conv2d(8, 8, 3, padding=1, groups=2, bias=False), nn.ReLU(),
                            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, CLASSES))
        return net, _randn(BATCH, 3, 8, 8)
    if kind == "cnn3d":
        net = nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.ReLU(), nn.Conv3d(4, 4, 3), nn.ReLU(),
                            nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(4, CLASSES))
        return net, _randn(BATCH, 2, 6, 6, 6)
    if kind == "decoder":
        net = nn.Sequential(nn.Linear(FEATURES, 4 * 4 * 4), nn.Unflatten(1, (4, 4, 4)),
                            nn.ConvTranspose2d(4, 8, 4, stride=2, padding=1), nn.ReLU(),
                            nn.ConvTranspose2d(8, 1, 3, padding=1))
        return net, _randn(BATCH, FEATURES)
    if kind == "lstm":
        class _LSTMClassifier(nn.Module):
            """An LSTM over a sequence and a linear head on its last output."""

            def __init__(self) -> None:
                super().__init__()
                self.lstm = nn.LSTM(8, FEATURES, batch_first=True)
                self.head = nn.Linear(FEATURES, CLASSES)

            def forward(self, x: Any) -> Any:
                out, _ = self.lstm(x)
                return self.head(out[:, -1])

        return _LSTMClassifier(), _randn(BATCH, 4, 8)
    if kind == "scnn":
        from bayesian_torch.models.deterministic.simple_cnn import SCNN

        return SCNN(), _randn(BATCH, 1, 28, 28)
    from bayesian_torch.models.deterministic.resnet import BasicBlock, ResNet

    return ResNet(BasicBlock, [1, 1, 1]), _randn(BATCH, 3, 16, 16)


def _converted(kind: str, estimator: str, moped: bool) -> tuple[Any, Any]:
    from bayesian_torch.models.dnn_to_bnn import dnn_to_bnn

    net, x = _network(kind)
    dnn_to_bnn(net, _prior(estimator, moped))
    return net, x


def _converted_model(name: str) -> Built:
    from torch import nn

    kind, estimator, moped = CONVERTED[name]
    net, x = _converted(kind, estimator, moped)

    class _Converted(nn.Module):
        """The converted network's forward; the entered library code is its Bayesian layers."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: Any) -> Any:
            return self.net(x)

        def entry_points(self) -> list[Any]:
            library = [type(m) for m in self.net.modules() if type(m).__module__.startswith("bayesian_torch")]
            return list(dict.fromkeys(library))

    return _Converted(), (x,), {}


def _bayesian_model(name: str) -> tuple[Any, Any]:
    """A Bayesian (or deterministic) model of the package and an input for it."""
    from torch import nn

    if name.startswith("SCNN."):
        if name == "SCNN.variational":
            from bayesian_torch.models.bayesian.simple_cnn_variational import SCNN
        else:
            from bayesian_torch.models.flipout.simple_cnn import SCNN
        return SCNN(), _randn(BATCH, 1, 28, 28)
    if name.startswith("ResNet_cifar."):
        if ".variational" in name:
            from bayesian_torch.models.bayesian import resnet_variational as cifar
        else:
            from bayesian_torch.models.bayesian import resnet_flipout as cifar
        # resnet20 with one block per stage instead of three: the same code, a third of the depth
        return cifar.ResNet(cifar.BasicBlock, [1, 1, 1]), _randn(BATCH, 3, 16, 16)
    if name.startswith("ResNet_large."):
        if ".variational" in name:
            from bayesian_torch.models.bayesian import resnet_variational_large as large
        else:
            from bayesian_torch.models.bayesian import resnet_flipout_large as large
        block = large.Bottleneck if name.endswith("Bottleneck") else large.BasicBlock
        model = large.ResNet(block, [1, 1, 1, 1], num_classes=10)
        model.avgpool = nn.AdaptiveAvgPool2d(1)  # its AvgPool2d(7) needs 224 x 224 inputs
        return model, _randn(BATCH, 3, 64, 64)
    if name == "deterministic.SCNN":
        from bayesian_torch.models.deterministic.simple_cnn import SCNN as DSCNN

        return DSCNN(), _randn(BATCH, 1, 28, 28)
    from bayesian_torch.models.deterministic.resnet import BasicBlock, ResNet

    return ResNet(BasicBlock, [1, 1, 1]), _randn(BATCH, 3, 16, 16)


def _train_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from bayesian_torch.models.dnn_to_bnn import get_kl_loss
    from torch import nn

    model_name = name.split(".", 1)[1]
    classes = 10
    kl_inside = True  # the model returns (output, kl)
    log_probs = False
    monte_carlo, avuc = 1, False
    if model_name in ("SCNN.variational", "SCNN.flipout"):
        model, x = _bayesian_model(model_name)
        log_probs = True
    elif model_name.startswith("ResNet_cifar."):
        model, x = _bayesian_model(model_name)
    elif model_name == "ResNet_large.flipout":
        model, x = _bayesian_model("ResNet_large.flipout.BasicBlock")
    elif model_name == "lstm_layer":
        from bayesian_torch.layers import LinearReparameterization, LSTMFlipout

        class _Sequence(nn.Module):
            """A Bayesian LSTM and a Bayesian head, summing the two KL terms."""

            def __init__(self) -> None:
                super().__init__()
                self.lstm = LSTMFlipout(8, FEATURES)
                self.head = LinearReparameterization(FEATURES, CLASSES)

            def forward(self, x: Any) -> Any:
                out, _, kl = self.lstm(x)
                logits, kl_head = self.head(out[:, -1])
                return logits, kl + kl_head

        model, x, classes = _Sequence(), _randn(BATCH, 4, 8), CLASSES
    else:
        kl_inside, classes = False, CLASSES
        if model_name == "dnn_to_bnn.mlp":
            model, x = _converted("mlp", "Reparameterization", False)
        elif model_name == "dnn_to_bnn.cnn2d.Flipout":
            model, x = _converted("cnn2d", "Flipout", False)
        elif model_name == "dnn_to_bnn.lstm":
            model, x = _converted("lstm", "Reparameterization", False)
        elif model_name == "monte_carlo":
            model, x = _converted("mlp", "Flipout", False)
            monte_carlo = 3
        else:  # avuc
            model, x = _converted("cnn2d", "Reparameterization", False)
            avuc = True

    from bayesian_torch.utils.avuc_loss import AvULoss

    class _TrainStep(nn.Module):
        """``loss = NLL + KL / batch`` (the KL from the model's outputs or ``get_kl_loss``), averaged over
        ``monte_carlo`` forward passes; with ``avuc``, plus the accuracy-versus-uncertainty loss."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.avu = AvULoss(beta=3.0)

        def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            outputs, kls = [], []
            for _ in range(monte_carlo):
                if kl_inside:
                    out, kl = self.model(x)
                else:
                    out = self.model(x)
                    kl = get_kl_loss(self.model)
                outputs.append(out)
                kls.append(kl)
            output = torch.mean(torch.stack(outputs), dim=0)
            kl = torch.mean(torch.stack(kls), dim=0)
            nll = F.nll_loss(output, labels) if log_probs else F.cross_entropy(output, labels)
            loss = nll + kl / x.shape[0]
            if avuc:
                loss = loss + self.avu(output, labels, 0.5, type=0)
            return loss

        def entry_points(self) -> list[Any]:
            library = [type(m) for m in self.modules() if type(m).__module__.startswith("bayesian_torch")]
            if not kl_inside:
                library.append(get_kl_loss)
            return list(dict.fromkeys(library))

    return _TrainStep(), (x, _labels(x.shape[0], classes)), {}


def _predict(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from bayesian_torch.utils.avuc_loss import AvULoss

    from gt_calls import Run

    model, x = (_converted("cnn2d", "Flipout", False) if name.endswith("Flipout")
                else _converted("mlp", "Reparameterization", False))
    avu = AvULoss()

    def run(owner: Any, x: Any) -> Any:
        samples = torch.stack([F.softmax(owner(x), dim=-1) for _ in range(4)])
        return samples.mean(0), avu.predictive_uncertainty(samples), avu.model_uncertainty(samples)

    entries: list[Any] = list(dict.fromkeys(type(m) for m in model.modules()
                                            if type(m).__module__.startswith("bayesian_torch")))
    return Run(model, run, entries + [AvULoss.predictive_uncertainty, AvULoss.model_uncertainty]), (x,), {}


def _quantized(name: str) -> Built:
    import torch
    from bayesian_torch.models.bnn_to_qbnn import bnn_to_qbnn
    from torch import nn

    from gt_calls import Method

    kind, estimator, call = QUANTIZED[name]
    holder = nn.Module()
    layer: Any = _layer(kind, estimator, {})
    if kind != "Linear":
        # the quantized convolutions delete the stubs ``prepare()`` adds; unobserved, they are not read
        layer.prepare()
        layer.quant_prepare = False
    holder.layer = layer
    holder.eval()
    with torch.no_grad():
        bnn_to_qbnn(holder)
    layer = holder.layer
    x = _randn(*_KINDS[kind][2])
    if call:
        return Method(layer, "forward", **call), (x,), {}
    return layer, (torch.quantize_per_tensor(x, 0.1, 128, torch.quint8),), {}


def _uncertainty(name: str) -> Built:
    import numpy as np
    import torch
    from bayesian_torch.utils import avuc_loss, util

    from gt_calls import Call, Method

    logits = _randn(4, CLASSES, seed=5)
    labels = _labels(4, seed=6)
    rng = np.random.default_rng(0)
    mc = rng.dirichlet(np.ones(CLASSES), size=(3, 4))  # 3 Monte Carlo samples of 4 predictions
    if name == "AvULoss":
        return Method(avuc_loss.AvULoss(), "forward", optimal_uncertainty_threshold=0.5, type=0), (logits, labels), {}
    if name in ("AvULoss.predictive_uncertainty", "AvULoss.model_uncertainty", "AvULoss.expected_entropy"):
        samples = torch.softmax(_randn(3, 4, CLASSES, seed=8), dim=-1)
        return Method(avuc_loss.AvULoss(), name.split(".")[1]), (samples,), {}
    if name == "AvULoss.accuracy_vs_uncertainty":
        preds = logits.argmax(-1)
        unc = torch.rand(4, generator=_gen(7))
        return Method(avuc_loss.AvULoss(), "accuracy_vs_uncertainty", optimal_threshold=0.5), (preds, labels, unc), {}
    if name == "get_kl_loss":
        from bayesian_torch.models.dnn_to_bnn import get_kl_loss

        from gt_calls import Run

        model, _ = _converted("cnn2d", "Flipout", False)
        return Run(model, lambda owner: get_kl_loss(owner), [get_kl_loss]), (), {}
    if name == "get_rho":
        return Call(util.get_rho, delta=0.1), (_randn(8, 4),), {}
    if name == "util.predictive_entropy":
        return Call(util.predictive_entropy), (mc,), {}
    if name == "util.mutual_information":
        return Call(util.mutual_information), (mc,), {}
    if name == "avuc.predictive_entropy":
        return Call(avuc_loss.predictive_entropy), (mc,), {}
    if name == "avuc.mutual_information":
        return Call(avuc_loss.mutual_information), (mc,), {}
    predicted, truth = mc.mean(0).argmax(-1), rng.integers(0, CLASSES, 4)
    uncertainty = rng.random(4)
    if name == "avuc.eval_avu":
        return Call(avuc_loss.eval_avu), (predicted, truth, uncertainty), {}
    return Call(avuc_loss.accuracy_vs_uncertainty, optimal_threshold=0.5), (predicted, truth, uncertainty), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in LAYERS:
        return _layer_model(name)
    if name in LSTMS:
        return _lstm_model(name)
    if name.startswith("kl_loss."):
        return _kl(name.split(".", 1)[1])
    if name in WRAPPERS:
        return _wrapper(name)
    if name in CONVERTED:
        return _converted_model(name)
    if name in MODELS:
        model, x = _bayesian_model(name)
        return model, (x,), {}
    if name in TRAIN:
        return _train_step(name)
    if name in PREDICT:
        return _predict(name)
    if name in QUANTIZED:
        return _quantized(name)
    return _uncertainty(name.split(".", 1)[1])
