"""Ground-truth bench, torchdrift: drift detectors, kernels, reducers, fitting and the corruption functions.

torchdrift 0.1.0.post1 (TorchDrift) detects dataset drift on the features of a model. A ``Detector`` is an
``nn.Module`` that records a reference sample (``fit``, a ``base_outputs`` buffer) and, when called, tests a new
batch against it: its forward returns the test score, or the p-value when built with ``return_p_value``, and
``compute_p_value`` returns the p-value whatever the flag. ``KernelMMDDriftDetector`` runs the kernel MMD test
(``kernel_mmd``: pairwise ``cdist``, a ``GaussianKernel``, ``ExpKernel`` or ``RationalQuadraticKernel`` whose
lengthscale is given or the median distance, and ``n_perm`` random permutations for the p-value);
``KSDriftDetector`` runs one Kolmogorov-Smirnov test per feature (``ks_two_sample_multi_dim``: an argsort of the
joint sample and a cumulative sum) and takes its p-value from ``ks_p_value``, a numba-jitted recursion, on the
score's ``item()``. ``PCAReducer`` reduces the features (an SVD in ``fit``, a projection in forward);
``torchdrift.utils.fit`` runs a feature extractor over a data loader and fits reducers and detectors in turn;
``DriftDetectionExperiment`` fits a detector and measures its ROC over in- and out-of-distribution batches;
``torchdrift.data.functional`` holds the image corruptions users drift their data with. The tables cover, on
8 features, a reference sample of 20 and a test batch of 12 (shifted by 0.5):

- ``DETECTORS``: ``KernelMMDDriftDetector`` forward with each kernel (the median lengthscale or a given one, the
  rational quadratic's ``alpha``), the p-value forward (8 permutations), ``compute_p_value``, ``fit``, batches
  of other sizes, float64 features; ``KSDriftDetector`` forward, p-value forward, ``compute_p_value``, ``fit``,
  one feature, other batch sizes;
- ``PIPELINES``: the drift model users deploy, ``nn.Sequential(feature extractor, PCAReducer, detector)`` after
  fitting (a linear or a convolutional extractor; MMD or KS; score or p-value; no reducer), ``PCAReducer``
  forward and ``fit``;
- ``FITS``: ``torchdrift.utils.fit`` (a list of batches, a ``DataLoader`` of (input, label) pairs, ``num_batches``,
  one detector rather than a list, a detector alone after the extractor) and ``DriftDetectionExperiment``
  (``post_training``, ``evaluate`` with an out-of-distribution ratio of 0.5 or 1);
- ``FUNCTIONS``: through ``gt_calls.Call``: ``kernel_mmd`` (score only or with permutations, each kernel), the
  kernels on distances, ``ks_two_sample_multi_dim``, ``ks_p_value``, and the corruptions ``gaussian_noise``,
  ``shot_noise``, ``impulse_noise``, ``speckle_noise`` and ``gaussian_blur`` at several severities, on 32 x 32
  images (CIFAR's parameters) and 96 x 96 (between CIFAR's and ImageNet's);
- ``TRAIN``: train steps: a classifier on PCA-reduced features (cross-entropy, backward, an SGD step), and a
  training step that monitors drift of its features with a fitted detector as it goes.

Random inputs and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

FEATURES, BASE, TEST, PERM, SHIFT = 8, 20, 12, 8, 0.5
INPUT, CLASSES = 12, 3

# Detector name -> (detector: "mmd" or "ks", kernel (a ``mmd`` class name and its keywords) or None, detector
# keywords, what is called: "forward", "compute_p_value" or "fit", (reference batch, test batch, features), dtype).
DETECTORS: dict[str, tuple[str, tuple[str, dict[str, Any]] | None, dict[str, Any], str, tuple[int, int, int], str]] = {
    "KernelMMDDriftDetector": ("mmd", None, {}, "forward", (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.p_value": ("mmd", None, {"return_p_value": True, "n_perm": PERM}, "forward",
                                       (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.compute_p_value": ("mmd", None, {"n_perm": PERM}, "compute_p_value",
                                               (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.fit": ("mmd", None, {}, "fit", (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.gaussian.lengthscale": ("mmd", ("GaussianKernel", {"lengthscale": 2.0}), {}, "forward",
                                                    (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.exp": ("mmd", ("ExpKernel", {}), {}, "forward", (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.exp.lengthscale": ("mmd", ("ExpKernel", {"lengthscale": 0.5}), {}, "forward",
                                               (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.exp.p_value": ("mmd", ("ExpKernel", {}), {"return_p_value": True, "n_perm": PERM},
                                           "forward", (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.rational_quadratic": ("mmd", ("RationalQuadraticKernel", {}), {}, "forward",
                                                  (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.rational_quadratic.alpha": ("mmd", ("RationalQuadraticKernel",
                                                                {"lengthscale": 1.5, "alpha": 0.5}), {},
                                                        "forward", (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.rational_quadratic.p_value": ("mmd", ("RationalQuadraticKernel", {"alpha": 2.0}),
                                                          {"n_perm": PERM}, "compute_p_value",
                                                          (BASE, TEST, FEATURES), "float32"),
    "KernelMMDDriftDetector.batch_sizes": ("mmd", None, {}, "forward", (16, 5, FEATURES), "float32"),
    "KernelMMDDriftDetector.float64": ("mmd", None, {"return_p_value": True, "n_perm": 4}, "forward",
                                       (BASE, TEST, FEATURES), "float64"),
    "KSDriftDetector": ("ks", None, {}, "forward", (BASE, TEST, FEATURES), "float32"),
    "KSDriftDetector.p_value": ("ks", None, {"return_p_value": True}, "forward", (BASE, TEST, FEATURES), "float32"),
    "KSDriftDetector.compute_p_value": ("ks", None, {}, "compute_p_value", (BASE, TEST, FEATURES), "float32"),
    "KSDriftDetector.fit": ("ks", None, {}, "fit", (BASE, TEST, FEATURES), "float32"),
    "KSDriftDetector.one_feature": ("ks", None, {"return_p_value": True}, "forward", (BASE, TEST, 1), "float32"),
    "KSDriftDetector.batch_sizes": ("ks", None, {}, "forward", (9, 17, FEATURES), "float32"),
}
# Pipeline name -> (extractor: "linear" or "conv", reducer components (0: none), detector, detector keywords).
PIPELINES: dict[str, tuple[str, int, str, dict[str, Any]]] = {
    "pipeline.linear.pca.mmd": ("linear", 2, "mmd", {}),
    "pipeline.linear.pca.mmd.p_value": ("linear", 2, "mmd", {"return_p_value": True, "n_perm": PERM}),
    "pipeline.linear.pca.ks": ("linear", 3, "ks", {}),
    "pipeline.linear.pca.ks.p_value": ("linear", 3, "ks", {"return_p_value": True}),
    "pipeline.linear.mmd": ("linear", 0, "mmd", {}),
    "pipeline.conv.pca.mmd": ("conv", 2, "mmd", {}),
    "pipeline.conv.ks.p_value": ("conv", 0, "ks", {"return_p_value": True}),
}
REDUCERS = ("PCAReducer", "PCAReducer.fit", "PCAReducer.fit.components4")
# Fit name -> (data: "list" or "loader", what is fitted: "pca.mmd", "pca.ks", "mmd" (a detector, not in a list),
# "mmd.list", num_batches or None).
FITS: dict[str, tuple[str, str, int | None]] = {
    "utils.fit.pca.mmd": ("list", "pca.mmd", None),
    "utils.fit.pca.ks.loader": ("loader", "pca.ks", None),
    "utils.fit.num_batches": ("loader", "pca.mmd", 2),
    "utils.fit.detector": ("list", "mmd", None),
    "utils.fit.detector.list": ("loader", "mmd.list", None),
}
EXPERIMENTS = ("DriftDetectionExperiment.post_training", "DriftDetectionExperiment.evaluate",
               "DriftDetectionExperiment.evaluate.all_ood", "DriftDetectionExperiment.evaluate.ks")
# Function name -> (module of ``torchdrift``, function, inputs (names of ``_tensors``), fixed keywords; a kernel
# is named as "kernel:<class>").
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    "kernel_mmd": ("detectors.mmd", "kernel_mmd", ("test", "base"), {"n_perm": None}),
    "kernel_mmd.permutations": ("detectors.mmd", "kernel_mmd", ("test", "base"), {"n_perm": PERM}),
    "kernel_mmd.exp": ("detectors.mmd", "kernel_mmd", ("test", "base"),
                       {"n_perm": None, "kernel": "kernel:ExpKernel"}),
    "kernel_mmd.rational_quadratic.permutations": ("detectors.mmd", "kernel_mmd", ("test", "base"),
                                                   {"n_perm": 4, "kernel": "kernel:RationalQuadraticKernel"}),
    "GaussianKernel": ("detectors.mmd", "kernel:GaussianKernel", ("dists",), {}),
    "ExpKernel": ("detectors.mmd", "kernel:ExpKernel", ("dists",), {}),
    "RationalQuadraticKernel": ("detectors.mmd", "kernel:RationalQuadraticKernel", ("dists",), {}),
    "ks_two_sample_multi_dim": ("detectors.ks", "ks_two_sample_multi_dim", ("test", "base"), {}),
    "ks_two_sample_multi_dim.batch_sizes": ("detectors.ks", "ks_two_sample_multi_dim", ("small", "base"), {}),
    "ks_p_value": ("detectors.ks", "ks_p_value", ("n", "m", "d"), {}),
    "gaussian_noise": ("data.functional", "gaussian_noise", ("image32",), {}),
    "gaussian_noise.severity5.96px": ("data.functional", "gaussian_noise", ("image96",), {"severity": 5}),
    "shot_noise": ("data.functional", "shot_noise", ("image32",), {}),
    "shot_noise.severity3.96px": ("data.functional", "shot_noise", ("image96",), {"severity": 3}),
    "impulse_noise": ("data.functional", "impulse_noise", ("image32",), {}),
    "impulse_noise.severity4.96px": ("data.functional", "impulse_noise", ("image96",), {"severity": 4}),
    "speckle_noise": ("data.functional", "speckle_noise", ("image32",), {"severity": 2}),
    "speckle_noise.severity5.96px": ("data.functional", "speckle_noise", ("image96",), {"severity": 5}),
    "gaussian_blur": ("data.functional", "gaussian_blur", ("image32",), {}),
    "gaussian_blur.severity3": ("data.functional", "gaussian_blur", ("image32",), {"severity": 3}),
    "gaussian_blur.severity2.96px": ("data.functional", "gaussian_blur", ("image96",), {"severity": 2}),
}
TRAIN = ("train.pca_classifier.sgd", "train.monitored.mmd", "train.monitored.ks.p_value")


def names() -> list[str]:
    return [*DETECTORS, *PIPELINES, *REDUCERS, *FITS, *EXPERIMENTS, *FUNCTIONS, *TRAIN]


def _sample(batch: int, features: int, shift: float = 0.0, seed: int = 1, dtype: str = "float32") -> Any:
    import torch

    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(batch, features, generator=gen) + shift).to(getattr(torch, dtype))


def _detector(kind: str, keywords: dict[str, Any], kernel: tuple[str, dict[str, Any]] | None = None) -> Any:
    from torchdrift.detectors import KSDriftDetector, KernelMMDDriftDetector, mmd

    if kind == "ks":
        return KSDriftDetector(**keywords)
    if kernel is not None:
        keywords = {**keywords, "kernel": getattr(mmd, kernel[0])(**kernel[1])}
    return KernelMMDDriftDetector(**keywords)


def _detectors(name: str) -> Built:
    from gt_calls import Method

    kind, kernel, keywords, call, (base, test, features), dtype = DETECTORS[name]
    detector = _detector(kind, keywords, kernel)
    reference = _sample(base, features, dtype=dtype)
    inputs = _sample(test, features, SHIFT, seed=2, dtype=dtype)
    if call == "fit":
        return Method(detector, "fit"), (reference,), {}
    detector.fit(reference)
    if call == "compute_p_value":
        return Method(detector, "compute_p_value"), (inputs,), {}
    return detector, (inputs,), {}


def _extractor(kind: str) -> Any:
    from torch import nn

    if kind == "linear":
        return nn.Sequential(nn.Linear(INPUT, 16), nn.ReLU(), nn.Linear(16, FEATURES))
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
                         nn.Linear(32, FEATURES))


def _extractor_input(kind: str, batch: int, shift: float = 0.0, seed: int = 1) -> Any:
    import torch

    gen = torch.Generator().manual_seed(seed)
    if kind == "linear":
        return torch.randn(batch, INPUT, generator=gen) + shift
    return torch.rand(batch, 3, 8, 8, generator=gen) + shift


def _pipelines(name: str) -> Built:
    import torch
    from torch import nn
    from torchdrift.reducers import PCAReducer

    kind, components, detector_kind, keywords = PIPELINES[name]
    extractor = _extractor(kind).eval()
    detector = _detector(detector_kind, keywords)
    with torch.no_grad():
        features = extractor(_extractor_input(kind, BASE))
    stages: list[Any] = [extractor]
    if components:
        reducer = PCAReducer(n_components=components)
        features = reducer.fit(features)
        stages.append(reducer)
    detector.fit(features)
    return nn.Sequential(*stages, detector), (_extractor_input(kind, TEST, SHIFT, seed=2),), {}


def _reducers(name: str) -> Built:
    from gt_calls import Method
    from torchdrift.reducers import PCAReducer

    reducer = PCAReducer(n_components=4 if name.endswith("components4") else 2)
    reference = _sample(BASE, FEATURES)
    if ".fit" in name:
        return Method(reducer, "fit"), (reference,), {}
    reducer.fit(reference)
    return reducer, (_sample(TEST, FEATURES, SHIFT, seed=2),), {}


def _batches(kind: str, shift: float = 0.0) -> Any:
    """Four batches of 5 inputs of the linear extractor: a list of tensors, or a ``DataLoader`` of (input,
    label) pairs."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    inputs = _extractor_input("linear", 20, shift)
    if kind == "list":
        return list(inputs.split(5))
    labels = torch.randint(0, CLASSES, (20,), generator=torch.Generator().manual_seed(3))
    return DataLoader(TensorDataset(inputs, labels), batch_size=5)


def _fits(name: str) -> Built:
    import torchdrift
    from gt_calls import Call
    from torchdrift.detectors import KSDriftDetector, KernelMMDDriftDetector
    from torchdrift.reducers import PCAReducer

    data, fitted, num_batches = FITS[name]
    targets: Any = {
        "pca.mmd": lambda: [PCAReducer(n_components=2), KernelMMDDriftDetector()],
        "pca.ks": lambda: [PCAReducer(n_components=3), KSDriftDetector()],
        "mmd": lambda: KernelMMDDriftDetector(),
        "mmd.list": lambda: [KernelMMDDriftDetector(n_perm=PERM)],
    }[fitted]()
    static: dict[str, Any] = {"num_batches": num_batches} if num_batches is not None else {}
    return Call(torchdrift.utils.fit, feature_extractor=_extractor("linear"), reducers_detectors=targets,
                **static), (_batches(data),), {}


class _DataModule:
    """What ``DriftDetectionExperiment.evaluate`` asks of a datamodule: ``default_dataloader(batch_size,
    num_samples)`` over (input, label) pairs."""

    def __init__(self, shift: float, seed: int) -> None:
        import torch

        gen = torch.Generator().manual_seed(seed)
        self.inputs = torch.randn(64, INPUT, generator=gen) + shift
        self.labels = torch.randint(0, CLASSES, (64,), generator=gen)

    def default_dataloader(self, batch_size: int, num_samples: int) -> Any:
        from torch.utils.data import DataLoader, TensorDataset

        return DataLoader(TensorDataset(self.inputs[:num_samples], self.labels[:num_samples]), batch_size=batch_size)


def _experiments(name: str) -> Built:
    from gt_calls import Run
    from torchdrift.detectors import KSDriftDetector, KernelMMDDriftDetector
    from torchdrift.utils import DriftDetectionExperiment

    detector = KSDriftDetector() if name.endswith(".ks") else KernelMMDDriftDetector()
    extractor = _extractor("linear")
    experiment = DriftDetectionExperiment(detector, extractor, ood_ratio=1.0 if name.endswith("all_ood") else 0.5,
                                          sample_size=6)
    if name.endswith("post_training"):
        return Run(experiment, lambda owner, dl: owner.post_training(dl),
                   [DriftDetectionExperiment.post_training]), (_batches("loader"),), {}
    experiment.post_training(_batches("loader"))
    ind, ood = _DataModule(0.0, 4), _DataModule(1.5, 5)
    return Run(experiment, lambda owner: owner.evaluate(ind, ood, num_runs=3),
               [DriftDetectionExperiment.evaluate]), (), {}


def _tensors() -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(6)
    base, test = _sample(BASE, FEATURES), _sample(TEST, FEATURES, SHIFT, seed=2)
    joint = torch.cat([test, base])
    return {
        "base": base,
        "test": test,
        "small": _sample(3, FEATURES, SHIFT, seed=7),
        "dists": torch.cdist(joint, joint),
        "n": BASE,
        "m": TEST,
        "d": 0.4,
        "image32": torch.rand(2, 3, 32, 32, generator=gen),
        "image96": torch.rand(1, 3, 96, 96, generator=gen),
    }


def _functions(name: str) -> Built:
    import importlib

    from gt_calls import Call
    from torchdrift.detectors import mmd

    module, function, inputs, static = FUNCTIONS[name]
    static = {k: getattr(mmd, v.split(":", 1)[1])() if isinstance(v, str) and v.startswith("kernel:") else v
              for k, v in static.items()}
    tensors = _tensors()
    if function.startswith("kernel:"):
        target = getattr(mmd, function.split(":", 1)[1])()
    else:
        target = getattr(importlib.import_module(f"torchdrift.{module}"), function)
    return Call(target, **static), tuple(tensors[i] for i in inputs), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torchdrift.detectors import KSDriftDetector, KernelMMDDriftDetector
    from torchdrift.reducers import PCAReducer

    from gt_calls import OptimizerStep, Run

    extractor = _extractor("linear")
    inputs = _extractor_input("linear", TEST, SHIFT, seed=2)
    labels = torch.randint(0, CLASSES, (TEST,), generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        reference = extractor(_extractor_input("linear", BASE))
    if name == "train.pca_classifier.sgd":
        reducer = PCAReducer(n_components=4)
        reducer.fit(reference)
        net = nn.Sequential(extractor, reducer, nn.Linear(4, CLASSES))
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1)

        class _PCAStep(OptimizerStep):
            def entry_points(self) -> list[Any]:
                return [PCAReducer, type(optimizer).step]

        return _PCAStep(net, optimizer, lambda x, y: F.cross_entropy(net(x), y)), (inputs, labels), {}
    detector: Any = KSDriftDetector(return_p_value=True) if ".ks" in name else KernelMMDDriftDetector()
    detector.fit(reference)
    head = nn.Linear(FEATURES, CLASSES)
    model = nn.ModuleDict({"extractor": extractor, "head": head, "detector": detector})
    optimizer = torch.optim.Adam(list(extractor.parameters()) + list(head.parameters()), lr=1e-2)

    def step(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
        """A classifier's training step that also scores the drift of its features against the reference."""
        with torch.enable_grad():
            optimizer.zero_grad()
            features = owner["extractor"](x)
            loss = F.cross_entropy(owner["head"](features), y)
            loss.backward()
            optimizer.step()
        return loss.detach(), owner["detector"](features.detach())

    return Run(model, step, [type(detector), type(optimizer).step]), (inputs, labels), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    for table, builder in ((DETECTORS, _detectors), (PIPELINES, _pipelines), (FITS, _fits),
                           (FUNCTIONS, _functions)):
        if name in table:
            return builder(name)
    if name in REDUCERS:
        return _reducers(name)
    if name in EXPERIMENTS:
        return _experiments(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
