"""Ground-truth bench, lightning_uq_box: uncertainty-quantification methods as LightningModules, stepped as users do.

lightning-uq-box wraps a user's backbone in a ``LightningModule`` per method: deterministic baselines, MC dropout,
mean-variance estimation, quantile regression, deep evidential regression, mixture density networks, ZigZag,
Masksembles, BNNs by variational inference (ELBO, Bayesian layers swapped in), density-uncertainty layers, SNGP,
temperature scaling, and the segmentation / pixel-wise regression variants of several of them. Each has
``forward``, a ``training_step`` on a batch dict (``input`` / ``target``) that computes its loss, logs and
updates torchmetrics, and a ``predict_step`` that samples or aggregates the predictive distribution. So the tables
cover, on tiny MLP backbones (and a tiny CNN on 8x8 images) at batch 4:

- ``METHODS``: per method and configuration (loss, burn-in, noise type, Bayesian layer type, stochastic
  modules, classification / regression / segmentation / pixel regression), its ``forward``, ``training_step``
  and ``predict_step`` (``TempScaling``, post hoc, marked fitted: ``forward`` and ``predict_step`` only; the
  segmentation methods: ``forward`` and ``predict_step`` only);
- ``LOSSES``: the loss modules (``NLL``, ``PinballLoss``, ``DERLoss``) called directly;
- ``TRAIN``: a train step as the fit loop runs it: ``training_step`` then ``backward`` through the method.

Steps run without a ``Trainer`` attached (``self.log`` then returns after its warning). Random weights and
inputs, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 4
DIM = 3
HID = 8
CLASSES = 3

# Method config key -> (class name, backbone kind, keywords for the method).
CONFIGS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "DeterministicRegression": ("DeterministicRegression", "mlp1", {"loss": "mse"}),
    "DeterministicClassification": ("DeterministicClassification", "cls", {"loss": "ce"}),
    "MCDropoutRegression.nll": ("MCDropoutRegression", "mlp2", {"loss": "nll", "num_mc_samples": 3}),
    "MCDropoutRegression.mse": ("MCDropoutRegression", "mlp1", {"loss": "mse", "num_mc_samples": 3}),
    "MCDropoutRegression.burnin": ("MCDropoutRegression", "mlp2", {"loss": "nll", "num_mc_samples": 3,
                                                                   "burnin_epochs": 2}),
    "MCDropoutClassification": ("MCDropoutClassification", "cls", {"loss": "ce", "num_mc_samples": 3}),
    "MVERegression": ("MVERegression", "mlp2", {"burnin_epochs": 0}),
    "MVERegression.burnin": ("MVERegression", "mlp2", {"burnin_epochs": 2}),
    "QuantileRegression": ("QuantileRegression", "mlp3", {"quantiles": [0.1, 0.5, 0.9]}),
    "DER": ("DER", "mlp4", {"coeff": 0.01}),
    "MDNRegression.diagonal": ("MDNRegression", "mlp1", {"n_components": 2, "hidden_dims": [HID]}),
    "MDNRegression.fixed": ("MDNRegression", "mlp1", {"n_components": 2, "hidden_dims": [HID],
                                                      "noise_type": "fixed", "fixed_noise_level": 0.1}),
    "ZigZagRegression": ("ZigZagRegression", "zigzag", {"loss": "mse"}),
    "MasksemblesRegression": ("MasksemblesRegression", "mlp2", {"loss": "nll", "num_estimators": 2, "scale": 2.0}),
    "MasksemblesClassification": ("MasksemblesClassification", "cls", {"loss": "ce", "num_estimators": 2,
                                                                       "scale": 2.0}),
    "BNN_VI_ELBO_Regression": ("BNN_VI_ELBO_Regression", "mlp2", {"criterion": "nll", "burnin_epochs": 0,
                                                                  "num_mc_samples_train": 2,
                                                                  "num_mc_samples_test": 3}),
    "BNN_VI_ELBO_Regression.flipout": ("BNN_VI_ELBO_Regression", "mlp2", {
        "criterion": "nll", "burnin_epochs": 0, "num_mc_samples_train": 2, "num_mc_samples_test": 3,
        "bayesian_layer_type": "flipout"}),
    "BNN_VI_ELBO_Regression.partial": ("BNN_VI_ELBO_Regression", "mlp2", {
        "criterion": "nll", "burnin_epochs": 0, "num_mc_samples_train": 2, "num_mc_samples_test": 3,
        "stochastic_module_names": [-1]}),
    "BNN_VI_ELBO_Classification": ("BNN_VI_ELBO_Classification", "cls", {
        "criterion": "ce", "num_mc_samples_train": 2, "num_mc_samples_test": 3}),
    "DensityLayerModelRegression": ("DensityLayerModelRegression", "mlp1", {"num_samples_test": 3}),
    "SNGPRegression": ("SNGPRegression", "feat", {"loss": "mse", "num_gp_features": 4,
                                                  "num_random_features": 16, "input_size": DIM}),
    "SNGPClassification": ("SNGPClassification", "feat", {"loss": "ce", "num_targets": CLASSES,
                                                          "num_gp_features": 4, "num_random_features": 16,
                                                          "input_size": DIM}),
    "DeterministicSegmentation": ("DeterministicSegmentation", "seg", {"loss": "ce"}),
    "MCDropoutSegmentation": ("MCDropoutSegmentation", "seg", {"loss": "ce", "num_mc_samples": 2}),
    "MCDropoutPxRegression": ("MCDropoutPxRegression", "px2", {"loss": "nll", "num_mc_samples": 2}),
    "MVEPxRegression": ("MVEPxRegression", "px2", {}),
    "QuantilePxRegression": ("QuantilePxRegression", "px3", {"quantiles": [0.1, 0.5, 0.9]}),
    "DERPxRegression": ("DERPxRegression", "px4", {}),
    "TempScaling": ("TempScaling", "cls", {}),
}
CALLS = ("forward", "training_step", "predict_step")
METHODS: dict[str, tuple[str, str]] = {f"{key}.{call}": (key, call) for key in CONFIGS for call in CALLS
                                        if not (call == "training_step" and key.endswith(("TempScaling",
                                                                                          "Segmentation")))}
LOSSES = ("NLL", "PinballLoss", "DERLoss")
TRAIN = {f"train_step.{key}": key for key in (
    "DeterministicRegression", "MCDropoutRegression.nll", "MVERegression", "QuantileRegression", "DER",
    "MDNRegression.diagonal", "ZigZagRegression", "BNN_VI_ELBO_Regression", "DensityLayerModelRegression",
    "SNGPClassification", "MasksemblesClassification")}


def names() -> list[str]:
    return list(METHODS) + list(LOSSES) + list(TRAIN)


def _input(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _backbone(kind: str) -> Any:
    from torch import nn

    if kind.startswith(("seg", "px")):
        channels = CLASSES if kind == "seg" else int(kind[2:])
        return nn.Sequential(nn.Conv2d(3, HID, 3, padding=1), nn.ReLU(), nn.Dropout(0.2),
                             nn.Conv2d(HID, channels, 1))

    outputs = {"mlp1": 1, "mlp2": 2, "mlp3": 3, "mlp4": 4, "cls": CLASSES, "feat": HID, "zigzag": 1}[kind]
    inputs = DIM + 1 if kind == "zigzag" else DIM
    return nn.Sequential(nn.Linear(inputs, HID), nn.ReLU(), nn.Dropout(0.2), nn.Linear(HID, outputs))


def _loss(kind: str) -> Any:
    from lightning_uq_box.uq_methods import NLL
    from torch import nn

    return {"mse": nn.MSELoss, "nll": NLL, "ce": nn.CrossEntropyLoss}[kind]()


def _method(key: str) -> Any:
    import lightning_uq_box.uq_methods as methods

    cls_name, kind, options = CONFIGS[key]
    options = dict(options)
    for option in ("loss", "criterion"):
        if option in options:
            options["loss_fn" if option == "loss" else option] = _loss(options.pop(option))
    model_key = "feature_extractor" if cls_name.startswith("SNGP") else "model"
    uq = getattr(methods, cls_name)(**{model_key: _backbone(kind)}, **options)
    if cls_name == "TempScaling":
        uq.post_hoc_fitted = True  # as after ``trainer.fit`` on a calibration loader
    if cls_name.startswith("BNN"):
        uq.num_training_points = 64  # set by ``on_fit_start`` from the datamodule
    return uq


def _batch(key: str) -> dict[str, Any]:
    import torch

    _, kind, _ = CONFIGS[key]
    if kind == "seg":
        target = torch.randint(0, CLASSES, (BATCH, 8, 8), generator=torch.Generator().manual_seed(2))
        return {"input": _input(BATCH, 3, 8, 8), "target": target}
    if kind.startswith("px"):
        return {"input": _input(BATCH, 3, 8, 8), "target": _input(BATCH, 1, 8, 8, seed=2)}
    if kind == "cls" or key.startswith("SNGPClassification"):
        target = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(2))
    else:
        target = _input(BATCH, 1, seed=2)
    return {"input": _input(BATCH, DIM), "target": target}


def _methods(name: str) -> Built:
    from gt_calls import Method

    key, call = METHODS[name]
    uq = _method(key)
    batch = _batch(key)
    if call == "forward":
        return uq, (batch["input"],), {}
    if call == "training_step":
        return Method(uq, "training_step"), (batch, 0), {}
    return Method(uq, "predict_step"), (batch["input"],), {}


def _losses(name: str) -> Built:
    import torch
    from lightning_uq_box.uq_methods import NLL, DERLoss, PinballLoss

    target = _input(BATCH, 1, seed=2)
    if name == "NLL":
        return NLL(), (_input(BATCH, 2), target), {}
    if name == "PinballLoss":
        return PinballLoss(quantiles=[0.1, 0.5, 0.9]), (_input(BATCH, 3), target), {}
    raw = _input(BATCH, 4)
    logits = torch.cat([raw[:, :1], torch.nn.functional.softplus(raw[:, 1:2]),
                        torch.nn.functional.softplus(raw[:, 2:3]) + 1.0,
                        torch.nn.functional.softplus(raw[:, 3:])], dim=1)
    return DERLoss(coeff=0.01), (logits, target), {}


def _train(name: str) -> Built:
    import torch

    from gt_calls import Run

    key = TRAIN[name]
    uq = _method(key)
    batch = _batch(key)

    def step(owner: Any, inputs: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """One fit-loop step: the method's training loss, then its backward."""
        with torch.enable_grad():
            owner.zero_grad()
            loss = owner.training_step({"input": inputs, "target": target}, 0)
            loss.backward()
        return loss.detach()

    return Run(uq, step, [type(uq).training_step]), (batch["input"], batch["target"]), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in METHODS:
        return _methods(name)
    if name in LOSSES:
        return _losses(name)
    return _train(name)
