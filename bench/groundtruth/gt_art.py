"""Ground-truth bench, art: the Adversarial Robustness Toolbox 1.20.1 around tiny PyTorch classifiers and regressors.

ART is a framework, not a model zoo: users wrap their own ``torch.nn.Module`` in an estimator
(``PyTorchClassifier(model, loss, input_shape, nb_classes, optimizer, clip_values=...)``) and then call its
methods on numpy arrays (``predict``, ``fit``, ``loss_gradient``, ``class_gradient``, ``compute_loss``,
``get_activations``), hand it to an evasion attack (``FastGradientMethod(classifier, eps=...).generate(x)``),
put defences in front of or behind it (preprocessors, postprocessors) or train it adversarially
(``AdversarialTrainer(classifier, attacks).fit(x, y)``). The estimator turns the arrays into tensors, applies
its preprocessing chain, runs the wrapped model (``ModelWrapper`` over its children), and turns results back
into arrays. So each model here is a bench module (a ``gt_calls.Call`` of the bound method, holding the torch
network as a submodule so that the harness's train / eval switch reaches it) whose forward calls the method on
numpy inputs with gradients enabled, as users call ART outside ``no_grad``. The networks are built here from
``torch.nn`` with random weights: a small CNN on 4 grey images of 8 x 8 in [0, 1] with 4 classes, an MLP on
6 tabular features, an LSTM over image rows, and a regressor MLP. Every attack and trainer runs 1 to 3
iterations, epochs, queries or restarts.

- ``ESTIMATOR``: ``PyTorchClassifier`` methods: ``predict`` (eval and training mode, an MLP, an LSTM, mean / std
  preprocessing, pre- and postprocessing defences), ``fit`` (integer and one-hot labels, NLL loss, a learning-rate
  scheduler, a preprocessing defence applied in fit), ``fit_generator`` over a ``PyTorchDataGenerator``,
  ``loss_gradient`` (numpy and tensor inputs, through a PyTorch preprocessing defence, on the LSTM),
  ``class_gradient`` (all classes, one label, a label per sample), ``compute_loss`` (reductions, tensors),
  ``get_activations`` (by index and name, as tensors) and ``clone_for_refitting``;
- ``REGRESSOR``: ``PyTorchRegressor``'s ``predict``, ``fit`` and ``loss_gradient``;
- ``ATTACKS``: evasion attacks' ``generate`` on the classifier: FastGradientMethod (Linf, L2, L1, targeted,
  minimal), BasicIterativeMethod, ProjectedGradientDescentPyTorch (Linf, L2, targeted,
  random init, momentum decay, an LSTM) and the framework-dispatching ProjectedGradientDescent,
  MomentumIterativeMethod, AutoProjectedGradientDescent (cross entropy, difference of logits ratio, L2),
  AutoConjugateGradient, RescalingAutoConjugateGradient, CarliniL2Method / LInf / L0,
  DeepFool, ElasticNet (EN and L1 rules), NewtonFool, SaliencyMapMethod, VirtualAdversarialMethod,
  UniversalPerturbation, TargetedUniversalPerturbation, SquareAttack, SimBA (DCT basis),
  HopSkipJump, ZooAttack, ShadowAttack, Wasserstein,
  FeatureAdversariesPyTorch, AdversarialPatchPyTorch (``generate`` and ``apply_patch``), LowProFool (on the
  MLP) and SignOPTAttack. Left out: GeoDA (it calls ``np.mat``, which NumPy 2 removed), and AutoAttack,
  BoundaryAttack, SpatialTransformation and ThermometerEncoding, whose compiling fails with an error inside Dynamo
  (fake-tensor propagation of the numpy code it traces), not with a graph break, so they never run compiled;
- ``DEFENCES``: the PyTorch preprocessors' ``forward`` on tensors (SpatialSmoothingPyTorch, CutoutPyTorch,
  MixupPyTorch, CutMixPyTorch) and their ``__call__`` on arrays, the numpy preprocessors (FeatureSqueezing,
  GaussianAugmentation, LabelSmoothing), the trainers' ``fit`` (AdversarialTrainer with
  FGSM and PGD, AdversarialTrainerMadryPGD, AdversarialTrainerFBFPyTorch, AdversarialTrainerTRADESPyTorch,
  AdversarialTrainerAWPPyTorch, DPInstaHideTrainer) and ``PyTorchRandomizedSmoothing``'s
  ``loss_gradient`` and ``fit`` (``certify`` needs statsmodels, which is not installed; ``predict`` fails inside
  Dynamo like the attacks left out above).

Random inputs and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
SAMPLES, SIDE, CLASSES, FEATURES = 4, 8, 4, 6

# Model name -> (method of the classifier, classifier kind, classifier options, inputs, method keywords).
# Kinds: "cnn", "mlp" (tabular), "lstm" (rows of the image as a sequence), "nll" (log-softmax output and NLL
# loss). Inputs: "x", "xy" (integer labels), "xy1h" (one-hot labels), "xt" / "xyt" (tensors), "gen" (a
# PyTorchDataGenerator), "none".
ESTIMATOR: dict[str, tuple[str, str, dict[str, Any], str, dict[str, Any]]] = {
    "predict": ("predict", "cnn", {}, "x", {}),
    "predict.training_mode": ("predict", "cnn", {}, "x", {"training_mode": True}),
    "predict.mlp": ("predict", "mlp", {}, "x", {}),
    "predict.lstm": ("predict", "lstm", {}, "x", {}),
    "predict.preprocessing": ("predict", "cnn", {"preprocessing": (0.5, 0.25)}, "x", {}),
    "predict.spatial_smoothing_pytorch": ("predict", "cnn", {"defence": "spatial_smoothing"}, "x", {}),
    "predict.reverse_sigmoid": ("predict", "cnn", {"post": "reverse_sigmoid"}, "x", {}),
    "predict.high_confidence.rounded": ("predict", "cnn", {"post": "high_confidence.rounded"}, "x", {}),
    "predict.gaussian_noise.class_labels": ("predict", "cnn", {"post": "gaussian_noise.class_labels"}, "x", {}),
    "fit": ("fit", "cnn", {}, "xy", {"nb_epochs": 1, "batch_size": 2}),
    "fit.one_hot": ("fit", "cnn", {}, "xy1h", {"nb_epochs": 1, "batch_size": 4}),
    "fit.nll": ("fit", "nll", {}, "xy", {"nb_epochs": 1, "batch_size": 4}),
    "fit.scheduler.drop_last": ("fit", "cnn", {}, "xy", {"nb_epochs": 2, "batch_size": 3, "drop_last": True,
                                                         "scheduler": True}),
    "fit.mixup_pytorch": ("fit", "cnn", {"defence": "mixup"}, "xy", {"nb_epochs": 1, "batch_size": 4}),
    "fit_generator": ("fit_generator", "cnn", {}, "gen", {"nb_epochs": 1}),
    "loss_gradient": ("loss_gradient", "cnn", {}, "xy1h", {}),
    "loss_gradient.tensor": ("loss_gradient", "cnn", {}, "xyt", {}),
    "loss_gradient.one_hot.preprocessing": ("loss_gradient", "cnn", {"preprocessing": (0.5, 0.25)}, "xy1h", {}),
    "loss_gradient.spatial_smoothing_pytorch": ("loss_gradient", "cnn", {"defence": "spatial_smoothing"}, "xy1h",
                                                {}),
    "loss_gradient.lstm": ("loss_gradient", "lstm", {}, "xy1h", {}),
    "class_gradient": ("class_gradient", "cnn", {}, "x", {}),
    "class_gradient.label": ("class_gradient", "cnn", {}, "x", {"label": 1}),
    "class_gradient.labels": ("class_gradient", "cnn", {}, "x", {"label": "per_sample"}),
    "compute_loss": ("compute_loss", "cnn", {}, "xy", {}),
    "compute_loss.mean.one_hot": ("compute_loss", "cnn", {}, "xy1h", {"reduction": "mean"}),
    "compute_loss.tensor.sum": ("compute_loss", "cnn", {}, "xyt", {"reduction": "sum"}),
    "get_activations": ("get_activations", "cnn", {}, "x", {"layer": 1}),
    "get_activations.name.framework": ("get_activations", "cnn", {}, "xt", {"layer": "last", "framework": True}),
    "clone_for_refitting": ("clone_for_refitting", "cnn", {}, "none", {}),
}
# Model name -> (method of the regressor, inputs, method keywords).
REGRESSOR: dict[str, tuple[str, str, dict[str, Any]]] = {
    "PyTorchRegressor.predict": ("predict", "x", {}),
    "PyTorchRegressor.fit": ("fit", "xy", {"nb_epochs": 1, "batch_size": 2}),
    "PyTorchRegressor.loss_gradient": ("loss_gradient", "xy", {}),
}
# Model name -> (attack class, constructor keywords, inputs, classifier kind). Inputs: "x" (generate(x)), "xy"
# (generate(x, y) with one-hot labels), "x1" / "xy1" (the first sample only), "xx" (generate(x, y=guide
# images)), "patch" (apply_patch after generate).
_AUTO = {"eps": 0.1, "eps_step": 0.05, "max_iter": 2, "nb_random_init": 1, "batch_size": 4, "verbose": False}
ATTACKS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "FastGradientMethod": ("FastGradientMethod", {"eps": 0.1}, "x", "cnn"),
    "FastGradientMethod.L2": ("FastGradientMethod", {"norm": 2, "eps": 0.5}, "x", "cnn"),
    "FastGradientMethod.L1": ("FastGradientMethod", {"norm": 1, "eps": 1.0}, "x", "cnn"),
    "FastGradientMethod.targeted": ("FastGradientMethod", {"eps": 0.1, "targeted": True}, "xy", "cnn"),
    "FastGradientMethod.minimal": ("FastGradientMethod", {"eps": 0.2, "eps_step": 0.1, "minimal": True}, "x",
                                   "cnn"),
    "BasicIterativeMethod": ("BasicIterativeMethod", {"eps": 0.1, "eps_step": 0.05, "max_iter": 2,
                                                      "verbose": False}, "x", "cnn"),
    "ProjectedGradientDescent": ("ProjectedGradientDescent", {"eps": 0.1, "eps_step": 0.05, "max_iter": 2,
                                                              "verbose": False}, "x", "cnn"),
    "ProjectedGradientDescentPyTorch": ("ProjectedGradientDescentPyTorch", {"eps": 0.1, "eps_step": 0.05,
                                                                            "max_iter": 2, "verbose": False}, "x",
                                        "cnn"),
    "ProjectedGradientDescentPyTorch.L2": ("ProjectedGradientDescentPyTorch", {"norm": 2, "eps": 0.5, "eps_step": 0.2,
                                                                               "max_iter": 2, "verbose": False},
                                           "x", "cnn"),
    "ProjectedGradientDescentPyTorch.targeted": ("ProjectedGradientDescentPyTorch",
                                                 {"eps": 0.1, "eps_step": 0.05, "max_iter": 2, "targeted": True,
                                                  "verbose": False}, "xy", "cnn"),
    "ProjectedGradientDescentPyTorch.random_init": ("ProjectedGradientDescentPyTorch",
                                                    {"eps": 0.1, "eps_step": 0.05, "max_iter": 2,
                                                     "num_random_init": 2, "verbose": False}, "xy", "cnn"),
    "ProjectedGradientDescentPyTorch.decay": ("ProjectedGradientDescentPyTorch",
                                              {"eps": 0.1, "eps_step": 0.05, "max_iter": 2, "decay": 0.9,
                                               "verbose": False}, "x", "cnn"),
    "ProjectedGradientDescentPyTorch.lstm": ("ProjectedGradientDescentPyTorch", {"eps": 0.1, "eps_step": 0.05,
                                                                                 "max_iter": 2, "verbose": False},
                                             "x", "lstm"),
    "MomentumIterativeMethod": ("MomentumIterativeMethod", {"eps": 0.1, "eps_step": 0.05, "max_iter": 2,
                                                            "verbose": False}, "x", "cnn"),
    "AutoProjectedGradientDescent": ("AutoProjectedGradientDescent", dict(_AUTO), "x", "cnn"),
    "AutoProjectedGradientDescent.cross_entropy": ("AutoProjectedGradientDescent",
                                                   dict(_AUTO, loss_type="cross_entropy"), "xy", "cnn"),
    "AutoProjectedGradientDescent.dlr.L2": ("AutoProjectedGradientDescent",
                                            dict(_AUTO, norm=2, eps=0.5, loss_type="difference_logits_ratio"),
                                            "x", "cnn"),
    "AutoConjugateGradient": ("AutoConjugateGradient", dict(_AUTO, loss_type="cross_entropy"), "xy", "cnn"),
    "RescalingAutoConjugateGradient": ("RescalingAutoConjugateGradient", dict(_AUTO, loss_type="cross_entropy"),
                                       "xy", "cnn"),
    "CarliniL2Method": ("CarliniL2Method", {"binary_search_steps": 1, "max_iter": 2, "batch_size": 4,
                                           "verbose": False}, "x", "cnn"),
    "CarliniLInfMethod": ("CarliniLInfMethod", {"max_iter": 2, "batch_size": 4, "verbose": False}, "x", "cnn"),
    "CarliniL0Method": ("CarliniL0Method", {"binary_search_steps": 1, "max_iter": 2, "batch_size": 4,
                                           "verbose": False}, "x1", "cnn"),
    "DeepFool": ("DeepFool", {"max_iter": 2, "nb_grads": 4, "batch_size": 4, "verbose": False}, "x", "cnn"),
    "ElasticNet": ("ElasticNet", {"binary_search_steps": 1, "max_iter": 2, "batch_size": 4, "verbose": False}, "x",
                   "cnn"),
    "ElasticNet.L1.targeted": ("ElasticNet", {"binary_search_steps": 2, "max_iter": 2, "batch_size": 4,
                                              "decision_rule": "L1", "targeted": True, "verbose": False}, "xy",
                               "cnn"),
    "NewtonFool": ("NewtonFool", {"max_iter": 2, "batch_size": 4, "verbose": False}, "x", "cnn"),
    "SaliencyMapMethod": ("SaliencyMapMethod", {"theta": 0.1, "gamma": 0.05, "batch_size": 4, "verbose": False},
                          "x", "cnn"),
    "VirtualAdversarialMethod": ("VirtualAdversarialMethod", {"max_iter": 1, "eps": 0.1, "batch_size": 4,
                                                              "verbose": False}, "x", "softmax"),
    "UniversalPerturbation": ("UniversalPerturbation", {"attacker": "fgsm", "attacker_params": {"eps": 0.1},
                                                        "max_iter": 1, "eps": 0.3, "batch_size": 4,
                                                        "verbose": False}, "x", "cnn"),
    "TargetedUniversalPerturbation": ("TargetedUniversalPerturbation", {"attacker": "fgsm",
                                                                        "attacker_params": {"eps": 0.1,
                                                                                            "targeted": True},
                                                                        "max_iter": 1, "eps": 0.3}, "xy", "cnn"),
    "SquareAttack": ("SquareAttack", {"max_iter": 3, "eps": 0.1, "batch_size": 4, "verbose": False}, "x", "cnn"),
    "SquareAttack.L2.restarts": ("SquareAttack", {"norm": 2, "max_iter": 2, "eps": 0.5, "nb_restarts": 2,
                                                  "batch_size": 4, "verbose": False}, "x", "cnn"),
    "SimBA.dct": ("SimBA", {"attack": "dct", "max_iter": 3, "freq_dim": 2, "verbose": False}, "x1", "softmax"),
    "HopSkipJump": ("HopSkipJump", {"max_iter": 1, "max_eval": 8, "init_eval": 4, "init_size": 4,
                                    "batch_size": 4, "verbose": False}, "x", "cnn"),
    "ZooAttack": ("ZooAttack", {"max_iter": 2, "nb_parallel": 4, "use_resize": False, "use_importance": False,
                                "batch_size": 1, "verbose": False}, "x", "cnn"),
    "ShadowAttack": ("ShadowAttack", {"nb_steps": 2, "batch_size": 4, "sigma": 0.2, "verbose": False}, "x1",
                     "cnn"),
    "Wasserstein": ("Wasserstein", {"regularization": 100.0, "kernel_size": 3, "max_iter": 2, "eps_iter": 1,
                                    "conjugate_sinkhorn_max_iter": 3, "projected_sinkhorn_max_iter": 3,
                                    "batch_size": 4, "verbose": False}, "x", "cnn"),
    "FeatureAdversariesPyTorch": ("FeatureAdversariesPyTorch", {"delta": 0.1, "max_iter": 2, "layer": 1,
                                                                "optimizer": "Adam", "verbose": False}, "xx", "cnn"),
    "AdversarialPatchPyTorch": ("AdversarialPatchPyTorch", {"rotation_max": 10.0, "scale_min": 0.4, "scale_max": 0.6,
                                                            "max_iter": 2, "batch_size": 4, "patch_shape": (1, 4, 4),
                                                            "verbose": False}, "xy", "cnn"),
    "AdversarialPatchPyTorch.apply_patch": ("AdversarialPatchPyTorch", {"max_iter": 1, "batch_size": 4,
                                                                        "patch_shape": (1, 4, 4),
                                                                        "verbose": False}, "patch", "cnn"),
    "LowProFool": ("LowProFool", {"n_steps": 3, "eta": 0.1}, "xy", "mlp"),
    "SignOPTAttack": ("SignOPTAttack", {"targeted": False, "num_trial": 2, "max_iter": 2, "query_limit": 60, "k": 4,
                                        "batch_size": 4}, "x1", "cnn"),
}
DEFENCES = (
    "SpatialSmoothingPyTorch.forward", "SpatialSmoothingPyTorch.call", "CutoutPyTorch.forward",
    "CutoutPyTorch.call", "MixupPyTorch.forward", "MixupPyTorch.call", "CutMixPyTorch.forward",
    "CutMixPyTorch.call", "FeatureSqueezing", "GaussianAugmentation", "LabelSmoothing",
    "AdversarialTrainer.fgsm", "AdversarialTrainer.pgd.ratio1", "AdversarialTrainerMadryPGD",
    "AdversarialTrainerFBFPyTorch", "AdversarialTrainerTRADESPyTorch", "AdversarialTrainerAWPPyTorch.pgd",
    "AdversarialTrainerAWPPyTorch.trades", "DPInstaHideTrainer",
    "PyTorchRandomizedSmoothing.loss_gradient",
    "PyTorchRandomizedSmoothing.fit",
)


def names() -> list[str]:
    return list(ESTIMATOR) + list(REGRESSOR) + list(ATTACKS) + list(DEFENCES)


def _method_module(method: Any, net: Any, entries: list[Any] | None = None, **static: Any) -> Any:
    """``method(*inputs, **static)`` as a ``gt_calls.Call`` whose forward enables gradients (users call ART outside
    ``no_grad``); the torch network is kept as a submodule, so the harness's train / eval switch reaches it."""
    import torch

    from gt_calls import Call

    class _ArtMethod(Call):
        def __init__(self) -> None:
            super().__init__(method, **static)
            self.net = net

        def forward(self, *args: Any) -> Any:
            with torch.enable_grad():
                return self.function(*args, **self.static)

        def entry_points(self) -> list[Any]:
            return entries if entries is not None else [self.function]

    return _ArtMethod()


def _net(kind: str) -> Any:
    import torch
    from torch import nn

    torch.manual_seed(0)
    if kind == "wrapped":
        class _Wrapped(nn.Module):
            """The CNN as one module (ART's model wrapper then sees a single output)."""

            def __init__(self) -> None:
                super().__init__()
                self.body = _net("cnn")

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.body(x)

        return _Wrapped()
    if kind == "mlp":
        return nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU(), nn.Linear(16, CLASSES))
    if kind == "lstm":
        class _RowLSTM(nn.Module):
            """An LSTM over the rows of a grey image, classifying from its last state."""

            def __init__(self) -> None:
                super().__init__()
                self.lstm = nn.LSTM(SIDE, 8, batch_first=True)
                self.head = nn.Linear(8, CLASSES)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                out, _ = self.lstm(x.reshape(x.shape[0], SIDE, SIDE))
                return self.head(out[:, -1])

        return _RowLSTM()
    layers: list[nn.Module] = [nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                               nn.Linear(4 * (SIDE // 2) ** 2, CLASSES)]
    if kind == "softmax":
        layers.append(nn.Softmax(dim=1))
    if kind == "nll":
        layers.append(nn.LogSoftmax(dim=1))
    return nn.Sequential(*layers)


def _defence(name: str) -> list[Any]:
    from art.defences.preprocessor import FeatureSqueezing, MixupPyTorch, SpatialSmoothingPyTorch

    if name == "spatial_smoothing":
        return [SpatialSmoothingPyTorch(window_size=3, channels_first=True, clip_values=(0.0, 1.0),
                                        device_type="cpu")]
    if name == "feature_squeezing":
        return [FeatureSqueezing(clip_values=(0.0, 1.0), bit_depth=4)]
    return [MixupPyTorch(num_classes=CLASSES, alpha=1.0, device_type="cpu")]


def _postprocessing(name: str) -> list[Any]:
    from art.defences.postprocessor import ClassLabels, GaussianNoise, HighConfidence, ReverseSigmoid, Rounded

    if name == "reverse_sigmoid":
        return [ReverseSigmoid(beta=1.0, gamma=0.1)]
    if name == "high_confidence.rounded":
        return [HighConfidence(cutoff=0.1), Rounded(decimals=2)]
    return [GaussianNoise(scale=0.1), ClassLabels()]


def _classifier(kind: str = "cnn", defence: str | None = None, post: str | None = None,
                preprocessing: tuple[float, float] = (0.0, 1.0), net: Any = None) -> Any:
    import torch
    from art.estimators.classification import PyTorchClassifier
    from torch import nn

    net = _net(kind) if net is None else net
    shape = (FEATURES,) if kind == "mlp" else (1, SIDE, SIDE)
    loss = nn.NLLLoss() if kind == "nll" else nn.CrossEntropyLoss()
    return PyTorchClassifier(
        model=net, loss=loss, input_shape=shape, nb_classes=CLASSES,
        optimizer=torch.optim.Adam(net.parameters(), lr=0.01), clip_values=(0.0, 1.0),
        preprocessing_defences=_defence(defence) if defence else None,
        postprocessing_defences=_postprocessing(post) if post else None,
        preprocessing=preprocessing, device_type="cpu",
    )


def _x(kind: str = "cnn", seed: int = 1) -> Any:
    import numpy as np

    shape = (SAMPLES, FEATURES) if kind == "mlp" else (SAMPLES, 1, SIDE, SIDE)
    return np.random.default_rng(seed).uniform(0.0, 1.0, size=shape).astype(np.float32)


def _labels(seed: int = 2) -> Any:
    import numpy as np

    return np.random.default_rng(seed).integers(0, CLASSES, size=SAMPLES)


def _one_hot(labels: Any) -> Any:
    import numpy as np

    return np.eye(CLASSES, dtype=np.float32)[labels]


def _estimator(name: str) -> Built:
    import torch

    method, kind, options, inputs, keywords = ESTIMATOR[name]
    classifier = _classifier(kind, **options)
    keywords = dict(keywords)
    x, labels = _x(kind), _labels()
    if keywords.get("scheduler"):
        keywords["scheduler"] = torch.optim.lr_scheduler.StepLR(classifier.optimizer, step_size=1, gamma=0.5)
    if keywords.get("label") == "per_sample":
        keywords["label"] = labels
    if keywords.get("layer") == "last":
        keywords["layer"] = classifier.layer_names[-1]
    module = _method_module(getattr(classifier, method), classifier.model, **keywords)
    if inputs == "x":
        return module, (x,), {}
    if inputs == "xt":
        return module, (torch.from_numpy(x),), {}
    if inputs == "xy":
        return module, (x, labels), {}
    if inputs == "xy1h":
        return module, (x, _one_hot(labels)), {}
    if inputs == "xyt":
        return module, (torch.from_numpy(x), torch.from_numpy(_one_hot(labels))), {}
    if inputs == "gen":
        from art.data_generators import PyTorchDataGenerator
        from torch.utils.data import DataLoader, TensorDataset

        loader = DataLoader(TensorDataset(torch.from_numpy(x), torch.from_numpy(_one_hot(labels))), batch_size=2)
        module = _method_module(lambda: classifier.fit_generator(PyTorchDataGenerator(loader, SAMPLES, 2),
                                                                 **keywords),
                                classifier.model, entries=[type(classifier).fit_generator])
        return module, (), {}
    return module, (), {}


def _regressor(name: str) -> Built:
    import numpy as np
    import torch
    from art.estimators.regression import PyTorchRegressor
    from torch import nn

    method, inputs, keywords = REGRESSOR[name]
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(FEATURES, 16), nn.Tanh(), nn.Linear(16, 1))
    regressor = PyTorchRegressor(model=net, loss=nn.MSELoss(), input_shape=(FEATURES,),
                                 optimizer=torch.optim.SGD(net.parameters(), lr=0.01), device_type="cpu")
    x = _x("mlp")
    y = np.random.default_rng(3).normal(size=(SAMPLES, 1)).astype(np.float32)
    module = _method_module(getattr(regressor, method), net, **keywords)
    return module, ((x,) if inputs == "x" else (x, y)), {}


def _attack_object(cls: str, keywords: dict[str, Any], classifier: Any) -> Any:
    import art.attacks.evasion as evasion

    keywords = dict(keywords)
    if keywords.get("optimizer") == "Adam":
        import torch

        keywords["optimizer"], keywords["optimizer_kwargs"] = torch.optim.Adam, {"lr": 0.01}
    first = "classifier" if cls in ("CarliniL2Method", "CarliniLInfMethod", "CarliniL0Method", "DeepFool",
                                    "ElasticNet", "NewtonFool", "SaliencyMapMethod", "VirtualAdversarialMethod",
                                    "UniversalPerturbation", "TargetedUniversalPerturbation", "SimBA",
                                    "HopSkipJump", "ZooAttack", "LowProFool") \
        else "estimator"
    return getattr(evasion, cls)(**{first: classifier}, **keywords)


def _attack(name: str) -> Built:
    cls, keywords, inputs, kind = ATTACKS[name]
    classifier = _classifier(kind)
    attack = _attack_object(cls, keywords, classifier)
    x, labels = _x(kind), _labels()
    y = _one_hot(labels)
    if cls == "LowProFool":
        attack.fit_importances(x, labels)
    if inputs == "patch":
        patch, _ = attack.generate(x, y=y)
        return _method_module(attack.apply_patch, classifier.model, scale=0.5, patch_external=patch), (x,), {}
    module = _method_module(attack.generate, classifier.model)
    if inputs == "x":
        return module, (x,), {}
    if inputs == "x1":
        return module, (x[:1],), {}
    if inputs == "xy1":
        return module, (x[:1], y[:1]), {}
    if inputs == "xx":
        return module, (x, _x(kind, seed=5)), {}
    return module, (x, y), {}


def _preprocessor(name: str) -> Built:
    import torch
    from art.defences.preprocessor import (CutMixPyTorch, CutoutPyTorch, FeatureSqueezing, GaussianAugmentation,
                                           LabelSmoothing, MixupPyTorch, SpatialSmoothingPyTorch)

    from gt_calls import Call

    x, labels = _x(), _labels()
    y = _one_hot(labels)
    cls, _, how = name.partition(".")
    if cls == "SpatialSmoothingPyTorch":
        defence: Any = SpatialSmoothingPyTorch(window_size=3, channels_first=True, clip_values=(0.0, 1.0),
                                               device_type="cpu")
    elif cls == "CutoutPyTorch":
        defence = CutoutPyTorch(length=3, channels_first=True, device_type="cpu")
    elif cls == "MixupPyTorch":
        defence = MixupPyTorch(num_classes=CLASSES, alpha=1.0, num_mix=2, device_type="cpu")
    elif cls == "CutMixPyTorch":
        defence = CutMixPyTorch(num_classes=CLASSES, alpha=1.0, probability=1.0, channels_first=True,
                                device_type="cpu")
    elif cls == "FeatureSqueezing":
        defence = FeatureSqueezing(clip_values=(0.0, 1.0), bit_depth=3)
    elif cls == "GaussianAugmentation":
        defence = GaussianAugmentation(sigma=0.1, ratio=0.5, clip_values=(0.0, 1.0))
    else:
        defence = LabelSmoothing(max_value=0.8)
    if how == "forward":
        return Call(defence.forward), (torch.from_numpy(x), torch.from_numpy(y)), {}
    needs_y = cls in ("MixupPyTorch", "CutMixPyTorch", "LabelSmoothing", "GaussianAugmentation")
    return Call(defence.__call__), ((x, y) if needs_y else (x,)), {}


def _trainer(name: str) -> Built:
    from art.attacks.evasion import FastGradientMethod, ProjectedGradientDescent
    from art.defences import trainer as trainers

    # TRADES and FBF read the model's first output as its logits: the network is one module, not a Sequential.
    classifier = _classifier("wrapped" if "TRADES" in name or "FBF" in name else "cnn")
    x, labels = _x(), _labels()
    if name in ("AdversarialTrainer.fgsm", "AdversarialTrainerFBFPyTorch", "AdversarialTrainerTRADESPyTorch",
                "DPInstaHideTrainer"):
        labels = _one_hot(labels)
    fit: dict[str, Any] = {"nb_epochs": 1, "batch_size": 2}
    pgd = {"eps": 0.1, "eps_step": 0.05, "max_iter": 2, "verbose": False}
    if name == "AdversarialTrainer.fgsm":
        owner: Any = trainers.AdversarialTrainer(classifier, FastGradientMethod(classifier, eps=0.1), ratio=0.5)
    elif name == "AdversarialTrainer.pgd.ratio1":
        owner = trainers.AdversarialTrainer(classifier, ProjectedGradientDescent(classifier, **pgd), ratio=1.0)
    elif name == "AdversarialTrainerMadryPGD":
        owner = trainers.AdversarialTrainerMadryPGD(classifier, nb_epochs=1, batch_size=2, eps=0.1, eps_step=0.05,
                                                   max_iter=2)
        fit = {}
    elif name == "AdversarialTrainerFBFPyTorch":
        owner = trainers.AdversarialTrainerFBFPyTorch(classifier, eps=0.1)
    elif name == "AdversarialTrainerTRADESPyTorch":
        owner = trainers.AdversarialTrainerTRADESPyTorch(classifier, ProjectedGradientDescent(classifier, **pgd),
                                                        beta=6.0)
    elif name.startswith("AdversarialTrainerAWPPyTorch"):
        proxy = _classifier()
        mode = name.rsplit(".", 1)[-1].upper()
        owner = trainers.AdversarialTrainerAWPPyTorch(classifier, proxy, ProjectedGradientDescent(classifier, **pgd),
                                                     mode=mode, gamma=0.01, beta=6.0, warmup=0)
    else:
        from art.defences.preprocessor import MixupPyTorch

        mixup = MixupPyTorch(num_classes=CLASSES, num_mix=2, device_type="cpu")
        owner = trainers.DPInstaHideTrainer(classifier, augmentations=mixup,
                                            noise="laplacian", scale=0.03)
    module = _method_module(owner.fit, classifier.model, **fit)
    return module, (x, labels), {}


def _smoothing(name: str) -> Built:
    import torch
    from art.estimators.certification.randomized_smoothing import PyTorchRandomizedSmoothing
    from torch import nn

    net = _net("cnn")
    smoothed = PyTorchRandomizedSmoothing(
        model=net, loss=nn.CrossEntropyLoss(), input_shape=(1, SIDE, SIDE), nb_classes=CLASSES,
        optimizer=torch.optim.SGD(net.parameters(), lr=0.01), clip_values=(0.0, 1.0), device_type="cpu",
        sample_size=4, scale=0.1, alpha=0.001,
    )
    x, labels = _x(), _labels()
    method = name.rsplit(".", 1)[-1]
    if method == "loss_gradient":
        return _method_module(smoothed.loss_gradient, net), (x, _one_hot(labels)), {}
    return _method_module(smoothed.fit, net, nb_epochs=1, batch_size=2), (x, labels), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in ESTIMATOR:
        return _estimator(name)
    if name in REGRESSOR:
        return _regressor(name)
    if name in ATTACKS:
        return _attack(name)
    if name.startswith("PyTorchRandomizedSmoothing"):
        return _smoothing(name)
    if name.split(".")[0] in ("AdversarialTrainer", "AdversarialTrainerMadryPGD", "AdversarialTrainerFBFPyTorch",
                              "AdversarialTrainerTRADESPyTorch", "AdversarialTrainerAWPPyTorch",
                              "DPInstaHideTrainer"):
        return _trainer(name)
    if name in DEFENCES:
        return _preprocessor(name)
    raise KeyError(name)
