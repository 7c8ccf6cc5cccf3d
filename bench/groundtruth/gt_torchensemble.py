"""Ground-truth bench, torchensemble: ensembles of PyTorch models (Ensemble-PyTorch).

torchensemble wraps a base estimator (an ``nn.Module`` class and its arguments) into an ensemble module:
``VotingClassifier`` / ``VotingRegressor`` (soft or hard voting), ``NeuralForestClassifier`` /
``NeuralForestRegressor`` (soft decision trees, ``BaseTree``), ``BaggingClassifier`` / ``BaggingRegressor``,
``GradientBoostingClassifier`` / ``GradientBoostingRegressor``, ``SnapshotEnsembleClassifier`` /
``SnapshotEnsembleRegressor``, ``FusionClassifier`` / ``FusionRegressor``, ``AdversarialTrainingClassifier`` /
``AdversarialTrainingRegressor``, ``FastGeometricClassifier`` / ``FastGeometricRegressor`` and
``SoftGradientBoostingClassifier`` / ``SoftGradientBoostingRegressor``. Users set an optimizer (and a
scheduler), call ``fit`` on a data loader, then call the ensemble or its ``predict`` / ``evaluate``. The
families, over tiny base estimators (an MLP of 6 features, 3 classes or 1 / 2 targets, a two-input MLP):

- ``FORWARD``: each ensemble's forward (its estimators made with ``_make_estimator``, random weights), in
  both voting strategies, with a one-target regressor (``unsqueeze_tensor``'s path) and two inputs;
  ``predict`` (``BaseModule.predict``, which also accepts NumPy input); gradient boosting's
  ``_staged_forward`` and ``_pseudo_residual``; the fusion and fast-geometric ``_forward``;
- ``FIT``: ``fit`` for one epoch (two for snapshot ensembles, whose epochs must divide among the
  estimators) on an in-memory ``DataLoader`` of 8 samples in batches of 4, ``save_model=False``, then the
  fitted ensemble's output on a batch; with a validation loader (early stopping, best-model tracking), a
  learning-rate scheduler (``StepLR``, ``ReduceLROnPlateau``, ``CosineAnnealingLR``), hard voting, two inputs;
- ``STEPS``: the per-estimator training functions as ``fit`` runs them (voting, bagging and adversarial
  ``_parallel_fit_per_epoch`` over a list of batches, ``_get_fgsm_samples``, soft gradient boosting's
  ``_parallel_compute_pseudo_residual``), the snapshot learning-rate clip and schedule, fast geometric's
  ``_adjust_lr``, and ``evaluate`` of a classifier and a regressor;
- ``TREES``: ``BaseTree`` (the soft decision tree of the neural forests) with and without its training
  penalty, at two depths;
- ``UTILS``: ``torchensemble.utils.operator`` (``average``, ``sum_with_multiplicative``,
  ``onehot_encoding``, the pseudo residuals, ``majority_vote``, ``unsqueeze_tensor``) and
  ``io.split_data_target`` (one and two inputs).

Every model is compiled in eval and in train mode; the training models run under ``enable_grad``. Random
weights, nothing downloaded or written. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, CLASSES, SAMPLES, BATCH, N_ESTIMATORS = 6, 3, 8, 4, 2

CLASSIFIERS = ("VotingClassifier", "NeuralForestClassifier", "BaggingClassifier", "GradientBoostingClassifier",
               "SnapshotEnsembleClassifier", "FusionClassifier", "AdversarialTrainingClassifier",
               "FastGeometricClassifier", "SoftGradientBoostingClassifier")
REGRESSORS = tuple(name.replace("Classifier", "Regressor") for name in CLASSIFIERS)
# Forward name -> (ensemble class, estimator: "clf", "reg" (2 targets), "reg1" (1 target), "two" (two
# inputs), constructor keywords, method: "forward", "predict", "predict.numpy", "_staged_forward",
# "_pseudo_residual", "_forward").
FORWARD: dict[str, tuple[str, str, dict[str, Any], str]] = {
    **{f"{cls}.forward": (cls, "clf", {}, "forward") for cls in CLASSIFIERS},
    **{f"{cls}.forward": (cls, "reg", {}, "forward") for cls in REGRESSORS},
    "VotingClassifier.forward.hard": ("VotingClassifier", "clf", {"voting_strategy": "hard"}, "forward"),
    "SnapshotEnsembleClassifier.forward.hard": ("SnapshotEnsembleClassifier", "clf", {"voting_strategy": "hard"},
                                                "forward"),
    "VotingClassifier.forward.two_inputs": ("VotingClassifier", "two", {}, "forward"),
    "VotingRegressor.forward.one_target": ("VotingRegressor", "reg1", {}, "forward"),
    "GradientBoostingClassifier.forward.shrinkage": ("GradientBoostingClassifier", "clf", {"shrinkage_rate": 0.5},
                                                     "forward"),
    "VotingClassifier.predict": ("VotingClassifier", "clf", {}, "predict"),
    "BaggingRegressor.predict": ("BaggingRegressor", "reg", {}, "predict"),
    "FusionClassifier.predict.numpy": ("FusionClassifier", "clf", {}, "predict.numpy"),
    "NeuralForestRegressor.predict": ("NeuralForestRegressor", "reg", {}, "predict"),
    "GradientBoostingRegressor._staged_forward": ("GradientBoostingRegressor", "reg", {"shrinkage_rate": 0.8},
                                                  "_staged_forward"),
    "GradientBoostingClassifier._pseudo_residual": ("GradientBoostingClassifier", "clf", {}, "_pseudo_residual"),
    "GradientBoostingRegressor._pseudo_residual": ("GradientBoostingRegressor", "reg", {}, "_pseudo_residual"),
    "FusionClassifier._forward": ("FusionClassifier", "clf", {}, "_forward"),
    "FastGeometricClassifier._forward": ("FastGeometricClassifier", "clf", {}, "_forward"),
}
# Fit name -> (ensemble class, estimator, constructor keywords, fit keywords, scheduler or "", validate).
FIT: dict[str, tuple[str, str, dict[str, Any], dict[str, Any], str, bool]] = {
    **{f"{cls}.fit": (cls, "clf", {}, {}, "", False) for cls in CLASSIFIERS},
    **{f"{cls}.fit": (cls, "reg", {}, {}, "", False) for cls in REGRESSORS},
    "VotingClassifier.fit.hard.validation": ("VotingClassifier", "clf", {"voting_strategy": "hard"}, {}, "", True),
    "VotingRegressor.fit.validation.plateau": ("VotingRegressor", "reg", {}, {}, "ReduceLROnPlateau", True),
    "BaggingClassifier.fit.validation.step_lr": ("BaggingClassifier", "clf", {}, {}, "StepLR", True),
    "GradientBoostingClassifier.fit.validation": ("GradientBoostingClassifier", "clf", {"shrinkage_rate": 0.5},
                                                  {"early_stopping_rounds": 1}, "", True),
    "GradientBoostingRegressor.fit.validation.mean": ("GradientBoostingRegressor", "reg", {},
                                                      {"use_reduction_sum": False}, "StepLR", True),
    "SnapshotEnsembleClassifier.fit.lr_clip.validation": ("SnapshotEnsembleClassifier", "clf", {},
                                                          {"lr_clip": [0.001, 0.05]}, "", True),
    "FusionClassifier.fit.validation.cosine": ("FusionClassifier", "clf", {}, {}, "CosineAnnealingLR", True),
    "AdversarialTrainingClassifier.fit.validation": ("AdversarialTrainingClassifier", "clf", {}, {"epsilon": 0.1},
                                                     "", True),
    "FastGeometricRegressor.fit.validation": ("FastGeometricRegressor", "reg", {}, {}, "", True),
    "SoftGradientBoostingRegressor.fit.validation.plateau": ("SoftGradientBoostingRegressor", "reg", {}, {},
                                                             "ReduceLROnPlateau", True),
    "NeuralForestClassifier.fit.validation": ("NeuralForestClassifier", "clf", {"depth": 2}, {}, "", True),
    "VotingClassifier.fit.two_inputs": ("VotingClassifier", "two", {}, {}, "", False),
}
STEPS = ("voting._parallel_fit_per_epoch.classification", "voting._parallel_fit_per_epoch.regression.lr",
         "bagging._parallel_fit_per_epoch", "adversarial_training._parallel_fit_per_epoch",
         "adversarial_training._get_fgsm_samples", "soft_gradient_boosting._parallel_compute_pseudo_residual.clf",
         "soft_gradient_boosting._parallel_compute_pseudo_residual.reg", "SnapshotEnsemble._clip_lr",
         "SnapshotEnsemble._set_scheduler", "FastGeometric._adjust_lr", "VotingClassifier.evaluate",
         "FusionRegressor.evaluate")
# ``BaseTree`` name -> (depth, output size, training penalty).
TREES: dict[str, tuple[int, int, bool]] = {
    "BaseTree": (3, CLASSES, False),
    "BaseTree.training_penalty": (3, CLASSES, True),
    "BaseTree.depth1.regression": (1, 1, True),
}
UTILS = ("average", "sum_with_multiplicative", "onehot_encoding", "pseudo_residual_classification",
         "pseudo_residual_regression", "majority_vote", "unsqueeze_tensor.1d", "unsqueeze_tensor.2d",
         "split_data_target", "split_data_target.two_inputs")


def names() -> list[str]:
    return list(FORWARD) + list(FIT) + list(STEPS) + list(TREES) + list(UTILS)


def _generator(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


class _Estimators:
    """The base estimators (classes, as users pass them), made on first use inside a worker."""

    cache: dict[str, Any] = {}

    @classmethod
    def get(cls, kind: str) -> Any:
        if kind not in cls.cache:
            from torch import nn

            class MLP(nn.Module):
                def __init__(self, out: int = CLASSES) -> None:
                    super().__init__()
                    self.net = nn.Sequential(nn.Linear(DIM, 8), nn.ReLU(), nn.Linear(8, out))

                def forward(self, x: Any) -> Any:
                    return self.net(x)

            class TwoInputMLP(nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.a, self.b = nn.Linear(DIM, 8), nn.Linear(3, 8)
                    self.head = nn.Linear(8, CLASSES)

                def forward(self, a: Any, b: Any) -> Any:
                    return self.head(self.a(a).relu() + self.b(b).tanh())

            cls.cache.update({"mlp": MLP, "two": TwoInputMLP})
        return cls.cache[kind]


def _estimator(kind: str) -> tuple[Any, dict[str, Any] | None]:
    """The estimator class and its arguments for ``kind``."""
    if kind == "two":
        return _Estimators.get("two"), None
    return _Estimators.get("mlp"), {"out": {"clf": CLASSES, "reg": 2, "reg1": 1}[kind]}


def _batch(kind: str, count: int = BATCH, seed: int = 1) -> tuple[Any, ...]:
    """Inputs and target of ``kind``: features (and second features), labels or targets."""
    import torch

    gen = _generator(seed)
    x = torch.rand(count, DIM, generator=gen)  # in [0, 1], as adversarial training requires
    inputs: tuple[Any, ...] = (x, torch.rand(count, 3, generator=gen)) if kind == "two" else (x,)
    if kind in ("clf", "two"):
        target = torch.arange(count) % CLASSES
    elif kind == "reg1":
        target = torch.randn(count, generator=gen)
    else:
        target = torch.randn(count, 2, generator=gen)
    return (*inputs, target)


def _loader(kind: str, seed: int = 1) -> Any:
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(seed)
    return DataLoader(TensorDataset(*_batch(kind, SAMPLES, seed)), batch_size=BATCH, shuffle=False)


def _ensemble(cls: str, kind: str, keywords: dict[str, Any], filled: bool = True) -> Any:
    """An ensemble of ``cls`` on the CPU; ``filled``: its estimators made as ``fit`` makes them."""
    import torch
    import torchensemble

    torch.manual_seed(0)
    ensemble_cls = getattr(torchensemble, cls)
    if cls.startswith("NeuralForest"):
        ensemble = ensemble_cls(n_estimators=N_ESTIMATORS, cuda=False, **{"depth": 3, **keywords})
        ensemble.n_inputs = DIM
        ensemble.n_outputs = CLASSES if kind == "clf" else 2
    else:
        estimator, arguments = _estimator(kind)
        ensemble = ensemble_cls(estimator=estimator, n_estimators=N_ESTIMATORS, estimator_args=arguments, cuda=False,
                                **keywords)
        ensemble.n_outputs = CLASSES if kind in ("clf", "two") else 2
    if filled:
        for _ in range(N_ESTIMATORS):
            ensemble.estimators_.append(ensemble._make_estimator())
    return ensemble


def _wrap(owner: Any, run: Any, entries: list[Any]) -> Any:
    from gt_calls import Run

    return Run(owner, run, entries)


def _forward(name: str) -> Built:
    from gt_calls import Method

    cls, kind, keywords, method = FORWARD[name]
    ensemble = _ensemble(cls, kind, keywords)
    *inputs, target = _batch(kind)
    if method == "forward":
        return ensemble, tuple(inputs), {}
    if method == "predict.numpy":
        return Method(ensemble, "predict"), tuple(x.numpy() for x in inputs), {}
    if method == "_staged_forward":
        return _wrap(ensemble, lambda owner, *x: owner._staged_forward(1, *x),
                     [type(ensemble)._staged_forward]), tuple(inputs), {}
    if method == "_pseudo_residual":
        return _wrap(ensemble, lambda owner, y, *x: owner._pseudo_residual(1, y, *x),
                     [type(ensemble)._pseudo_residual]), (target, *inputs), {}
    return Method(ensemble, method), tuple(inputs), {}


def _fit(name: str) -> Built:
    import torch
    from torch import nn

    cls, kind, keywords, fit_keywords, scheduler, validate = FIT[name]
    ensemble = _ensemble(cls, kind, keywords, filled=False)
    ensemble.set_optimizer("Adam", lr=0.01)
    if scheduler == "StepLR":
        ensemble.set_scheduler("StepLR", step_size=1)
    elif scheduler == "ReduceLROnPlateau":
        ensemble.set_scheduler("ReduceLROnPlateau", patience=1)
    elif scheduler == "CosineAnnealingLR":
        ensemble.set_scheduler("CosineAnnealingLR", T_max=2)
    train, test = _loader(kind, 1), (_loader(kind, 2) if validate else None)
    epochs = N_ESTIMATORS if cls.startswith("SnapshotEnsemble") else 1
    fit_keywords = {"epochs": epochs, "test_loader": test, "save_model": False, **fit_keywords}
    if cls.startswith("FastGeometric"):
        fit_keywords["cycle"] = 2
    *inputs, _ = _batch(kind, seed=3)

    def fit_then_call(owner: Any, *x: Any) -> Any:
        """One short ``fit`` (the estimators made afresh, as on a first fit), then the ensemble's output."""
        with torch.enable_grad():
            owner.estimators_ = nn.ModuleList()
            owner.fit(train, **fit_keywords)
        return owner(*x)

    return _wrap(ensemble, fit_then_call, [type(ensemble).fit, type(ensemble).forward]), tuple(inputs), {}


def _steps(name: str) -> Built:
    import torch
    from torchensemble import adversarial_training, bagging, soft_gradient_boosting, voting

    module, _, what = name.partition(".")
    if name in ("VotingClassifier.evaluate", "FusionRegressor.evaluate"):
        kind = "clf" if module == "VotingClassifier" else "reg"
        ensemble = _ensemble(module, kind, {})
        ensemble.set_criterion(torch.nn.CrossEntropyLoss() if kind == "clf" else torch.nn.MSELoss())
        loader = _loader(kind, 4)
        arguments = {"return_loss": True} if kind == "clf" else {}
        *inputs, _ = _batch(kind)
        return _wrap(ensemble, lambda owner, x: (owner.evaluate(loader, **arguments), owner(x)),
                     [type(ensemble).evaluate]), tuple(inputs), {}
    if what.startswith("_parallel_fit_per_epoch"):
        kind = "reg" if "regression" in what else "clf"
        estimator_cls, arguments = _estimator(kind)
        torch.manual_seed(0)
        estimator = estimator_cls(**arguments)
        optimizer = torch.optim.SGD(estimator.parameters(), lr=0.05, momentum=0.9)
        criterion = torch.nn.CrossEntropyLoss() if kind == "clf" else torch.nn.MSELoss()
        batches = [_batch(kind, seed=s) for s in (1, 2)]
        function = {"voting": voting, "bagging": bagging, "adversarial_training": adversarial_training}[module]
        cur_lr = 0.02 if what.endswith(".lr") else None

        def fit_epoch(owner: Any, x: Any) -> Any:
            """One epoch over two batches, as a worker of ``fit`` runs it, then the estimator's output."""
            with torch.enable_grad():
                if module == "adversarial_training":
                    fresh = [tuple(t.clone() for t in b) for b in batches]
                    owner_, _, loss = function._parallel_fit_per_epoch(fresh, 0.1, owner, cur_lr, optimizer,
                                                                       criterion, 0, 0, 1, "cpu", kind == "clf")
                else:
                    owner_, _, loss = function._parallel_fit_per_epoch(batches, owner, cur_lr, optimizer, criterion,
                                                                       0, 0, 1, "cpu", kind == "clf")
            return owner_(x), loss

        return _wrap(estimator, fit_epoch, [function._parallel_fit_per_epoch]), (_batch(kind, seed=3)[0],), {}
    if what == "_get_fgsm_samples":
        gen = _generator(5)
        samples = [torch.rand(BATCH, DIM, generator=gen), torch.rand(BATCH, 3, generator=gen)]
        grads = [torch.randn(BATCH, DIM, generator=gen), torch.randn(BATCH, 3, generator=gen)]
        return _wrap(torch.nn.Identity(), lambda owner, s, g: adversarial_training._get_fgsm_samples(s, 0.1, g),
                     [adversarial_training._get_fgsm_samples]), (samples, grads), {}
    if what.startswith("_parallel_compute_pseudo_residual"):
        kind = what.rsplit(".", 1)[1]
        gen = _generator(6)
        width = CLASSES if kind == "clf" else 2
        outputs = [torch.randn(BATCH, width, generator=gen) for _ in range(3)]
        target = torch.arange(BATCH) % CLASSES if kind == "clf" else torch.randn(BATCH, 2, generator=gen)
        function = soft_gradient_boosting._parallel_compute_pseudo_residual
        return _wrap(torch.nn.Identity(), lambda owner, o, t: [function(o, t, i, 0.5, width, kind == "clf")
                                                               for i in range(3)], [function]), (outputs, target), {}
    ensemble = _ensemble("SnapshotEnsembleClassifier" if module == "SnapshotEnsemble" else "FastGeometricClassifier",
                         "clf", {})
    optimizer = torch.optim.SGD(ensemble.parameters(), lr=0.1)
    x = _batch("clf")[0]
    if what == "_clip_lr":
        return _wrap(ensemble, lambda owner, x_: (owner._clip_lr(optimizer, [0.001, 0.05]).param_groups[0]["lr"],
                                                   owner(x_)), [type(ensemble)._clip_lr]), (x,), {}
    if what == "_set_scheduler":
        def scheduled(owner: Any, x_: Any) -> Any:
            scheduler = owner._set_scheduler(optimizer, 6)
            for _ in range(3):
                optimizer.step()
                scheduler.step()
            return scheduler.get_last_lr()[0], owner(x_)

        return _wrap(ensemble, scheduled, [type(ensemble)._set_scheduler]), (x,), {}
    return _wrap(ensemble, lambda owner, x_: ([owner._adjust_lr(optimizer, e, i, 4, 4, 0.05, 0.001)
                                               for e in range(2) for i in range(4)], owner(x_)),
                 [type(ensemble)._adjust_lr]), (x,), {}


def _tree(name: str) -> Built:
    from torchensemble._base import BaseTree

    depth, out, penalty = TREES[name]
    tree = BaseTree(input_dim=DIM, output_dim=out, depth=depth, lamda=1e-3, cuda=False)
    x = _batch("clf")[0]
    if penalty:
        return _wrap(tree, lambda owner, x_: owner(x_, is_training_data=True), [BaseTree]), (x,), {}
    return tree, (x,), {}


def _utils(name: str) -> Built:
    import torch
    from torchensemble.utils import io, operator as op

    from gt_calls import Call

    gen = _generator(7)
    outputs = [torch.randn(BATCH, CLASSES, generator=gen) for _ in range(3)]
    labels = torch.arange(BATCH) % CLASSES
    if name == "average":
        return Call(op.average), (outputs,), {}
    if name == "sum_with_multiplicative":
        return Call(op.sum_with_multiplicative, factor=0.3), (outputs,), {}
    if name == "onehot_encoding":
        return Call(op.onehot_encoding, n_classes=CLASSES), (labels,), {}
    if name == "pseudo_residual_classification":
        return Call(op.pseudo_residual_classification, n_classes=CLASSES), (labels, outputs[0]), {}
    if name == "pseudo_residual_regression":
        return Call(op.pseudo_residual_regression), (outputs[0], outputs[1]), {}
    if name == "majority_vote":
        return Call(op.majority_vote), (outputs,), {}
    if name.startswith("unsqueeze_tensor"):
        return Call(op.unsqueeze_tensor), (outputs[0][:, 0] if name.endswith("1d") else outputs[0],), {}
    element = _batch("two" if name.endswith("two_inputs") else "clf")
    return Call(io.split_data_target, device=torch.device("cpu")), (list(element),), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in FORWARD:
        return _forward(name)
    if name in FIT:
        return _fit(name)
    if name in STEPS:
        return _steps(name)
    if name in TREES:
        return _tree(name)
    return _utils(name)
