"""Ground-truth bench, pytorch_ood (pytorch-ood): out-of-distribution detectors, losses, models and metrics.

pytorch-ood scores how likely an input is out of distribution. Its detectors (``pytorch_ood.detector``)
share one API: ``predict(x)`` runs the network on raw inputs, and each family has a representation method
(``predict_logits``, ``predict_features``, ``predict_feature_maps``, ``predict_structured``) with a
matching ``fit_*`` for those that must be fitted on training data first. Its losses (``pytorch_ood.loss``)
train networks to separate known classes from unknown ones (labels below zero mark outliers), and its
metrics (``pytorch_ood.metrics``) turn scores and labels into AUROC, AUPR, FPR at 95 % TPR and the like.
The network under every detector is the library's own ``WideResNet`` (depth 10, width 1, 3 classes, 32 x 32
images, batch 2), so the detectors call its ``feature_maps`` / ``forward_feature_maps`` / ``features`` /
``feature_list`` as users do. The tables cover:

- ``LOGITS``: the logit detectors (``MaxSoftmax`` with and without a temperature, ``MaxLogit``,
  ``EnergyBased``, ``Entropy``, ``GEN`` with and without a top-M, ``WeightedEBO``, ``KLMatching``,
  ``TemperatureScaling``, the torch ``OpenMax``): ``predict_logits`` on logits and on grid-like
  (segmentation) logits where supported, compiled ``fit_logits`` for ``KLMatching`` and ``TemperatureScaling``
  (OpenMax's Weibull fit, compiled, runs past the time limit: it is fitted in the builder), and ``predict`` on
  images for a few (``ON_IMAGES``: the base classes share that path);
- ``FEATURES``: the feature detectors (``Mahalanobis``, ``RMD``, ``GMM``, ``KNN`` over scikit-learn,
  ``DICE``, ``fDBD``, ``LTS``, ``MCM``, ``NCI``, ``NNGuide``, ``PNML``, ``SHE``, ``ViM``): ``predict_features``
  (fitted eagerly in the builder), compiled ``fit_features`` then ``predict_features``, and ``predict`` on
  images for a few;
- ``MAPS``: the feature-map detectors (``ASH`` in its three variants, ``ReAct`` with a fixed threshold and
  fitted from a percentile, ``SCALE``, ``RankFeat``, ``VRA``), ``predict_feature_maps`` (``predict`` for two),
  and compiled ``fit_feature_maps`` for those that are fitted;
- ``OTHER``: the structured and gradient detectors (``Gram``, ``MultiMahalanobis``, ``ODIN`` and
  ``odin_preprocessing``, ``MahalanobisODIN``, ``GradNorm``, ``GradUncertainty``, ``NACUE``), ``MCD`` in its
  two modes and its static ``run`` / ``run_mean``, and ``fit`` on a small ``DataLoader`` for a few detectors
  (what users call before scoring);
- ``LOSSES``: a train step (network forward and the loss, labels with outliers among them) for each loss:
  ``OutlierExposureLoss``, ``EnergyRegularizedLoss``, ``EntropicOpenSetLoss``, ``ObjectosphereLoss``,
  ``CACLoss``, ``CenterLoss`` (learned and fixed centers), ``IILoss`` (and its ``predict``), ``MCHADLoss``,
  ``DeepSVDDLoss``, ``DeepSADLoss``, ``BackgroundClassLoss``, ``ConfidenceLoss``, ``CrossEntropyLoss``,
  ``LogitNorm`` / ``logit_norm_loss``, ``EnergyMarginLoss``, ``VOSRegLoss`` and the feature-queue
  ``VirtualOutlierSynthesizingRegLoss``; reductions ``none`` and ``sum`` for some; a batch with no
  known sample for the losses that branch on it; ``distance`` / ``predict`` of the centre losses; an SGD step
  over a network and ``CenterLoss``;
- ``NETS``: the library's networks with random weights (``WideResNet`` forward, ``feature_list`` and
  ``forward_feature_maps``, ``ResNet18.features``, ``GRUClassifier``) and the center modules
  (``ClassCenters`` forward / ``predict``, ``RunningCenters`` ``update`` / forward);
- ``UTILS``: ``is_known`` / ``drop_unknown`` / ``contains_known_and_unknown``,
  ``estimate_class_centers``, ``pairwise_distances``, ``torch_get_distances``, ``apply_reduction``,
  ``TensorBuffer`` append / sample, ``ToUnknown`` and ``TargetMapping`` as target transforms,
  ``temperature_calibration``; the metrics ``OODMetrics`` (update then compute, with predictions),
  ``AUROC``, ``AUPR``, ``FPRAtTPR``, ``AUTC``, ``Accuracy``, ``OODSegmentationMetrics``,
  ``OODPerImageSegmentationMetrics`` (each reset, updated with one batch and computed) and the functional
  ``roc_curve``, ``calibration_error``, ``aurra``, ``oscr_score``.

Detectors needing faiss, libmr or a download are left out (OpenMax's libmr flavour, pretrained weights of
``load_model``); datasets and benchmarks download data and are not models. Random weights, nothing
downloaded. ``names()`` needs no torch; ``build`` runs in a worker only (after
``gt_models.allow_torchvision_import``, since the package imports torchvision).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, CLASSES, N_TRAIN, SIDE = 2, 3, 12, 32
DIM, HIDDEN = 8, 16  # the MLP of the loss train steps

# Logit detector -> (class, keywords, fitted, grid-like logits supported).
LOGITS: dict[str, tuple[str, dict[str, Any], bool, bool]] = {
    "MaxSoftmax": ("MaxSoftmax", {}, False, True),
    "MaxSoftmax.t": ("MaxSoftmax", {"t": 2.0}, False, False),
    "MaxLogit": ("MaxLogit", {}, False, True),
    "EnergyBased": ("EnergyBased", {"t": 1.0}, False, True),
    "Entropy": ("Entropy", {}, False, True),
    "GEN": ("GEN", {}, False, False),
    "GEN.M": ("GEN", {"M": 2}, False, False),
    "WeightedEBO": ("WeightedEBO", {"weights": "weights"}, False, False),
    "KLMatching": ("KLMatching", {}, True, False),
    "TemperatureScaling": ("TemperatureScaling", {}, True, False),
    "OpenMax": ("OpenMax", {"tailsize": 3, "alpha": 2}, True, False),
}
# Feature detector -> (class, keywords; "encoder" / "head" / "w" / "b" / "text" stand for the network's parts).
FEATURES: dict[str, tuple[str, dict[str, Any]]] = {
    "Mahalanobis": ("Mahalanobis", {"encoder": "encoder"}),
    "RMD": ("RMD", {"encoder": "encoder"}),
    "GMM": ("GMM", {"encoder": "encoder"}),
    "KNN": ("KNN", {"encoder": "encoder", "k": 3}),
    "DICE": ("DICE", {"encoder": "encoder", "w": "w", "b": "b", "p": 0.5}),
    "fDBD": ("fDBD", {"encoder": "encoder", "head": "head"}),
    "LTS": ("LTS", {"encoder": "encoder", "head": "head"}),
    "MCM": ("MCM", {"encoder": "encoder", "text_embeddings": "text"}),
    "NCI": ("NCI", {"encoder": "encoder", "head": "head", "alpha": 0.1}),
    "NNGuide": ("NNGuide", {"encoder": "encoder", "head": "head", "k": 3}),
    "PNML": ("PNML", {"encoder": "encoder", "head": "head"}),
    "SHE": ("SHE", {"encoder": "encoder", "head": "head"}),
    "ViM": ("ViM", {"encoder": "encoder", "d": 4, "w": "w", "b": "b"}),
}
# Feature-map detector -> (class, keywords, fitted).
MAPS: dict[str, tuple[str, dict[str, Any], bool]] = {
    "ASH.ash-s": ("ASH", {"variant": "ash-s"}, False),
    "ASH.ash-p": ("ASH", {"variant": "ash-p", "percentile": 0.5}, False),
    "ASH.ash-b": ("ASH", {"variant": "ash-b"}, False),
    "ReAct.threshold": ("ReAct", {"threshold": 1.0}, False),
    "ReAct.percentile": ("ReAct", {"percentile": 0.9}, True),
    "SCALE": ("SCALE", {"percentile": 0.65}, False),
    "RankFeat": ("RankFeat", {}, False),
    "VRA": ("VRA", {}, True),
}
# Detectors also compiled with ``predict`` on images (the network's forward, then the representation method;
# the base classes share that path, so one or two per family).
ON_IMAGES = {"MaxSoftmax", "KLMatching", "OpenMax", "Mahalanobis", "KNN", "ViM", "ASH.ash-s", "ReAct.percentile"}
OTHER = (
    "Gram.predict", "Gram.predict_structured", "MultiMahalanobis.predict", "MultiMahalanobis.predict_structured",
    "MultiMahalanobis.fit_structured", "ODIN.predict", "ODIN.predict.norm_std", "odin_preprocessing",
    "MahalanobisODIN.predict", "GradNorm.predict", "GradUncertainty.predict", "NACUE.predict",
    "MCD.predict.var", "MCD.predict.mean", "MCD.run", "MCD.run_mean",
    "Mahalanobis.fit", "KLMatching.fit", "ViM.fit", "ReAct.fit",
)
# Loss -> how its train step is built (see ``_loss``).
LOSSES = (
    "OutlierExposureLoss", "EnergyRegularizedLoss", "EnergyRegularizedLoss.none",
    "EntropicOpenSetLoss", "EntropicOpenSetLoss.all_unknown", "ObjectosphereLoss", "CACLoss", "CACLoss.distance",
    "CenterLoss", "CenterLoss.fixed", "IILoss", "IILoss.predict", "MCHADLoss", "DeepSVDDLoss.radius", "DeepSADLoss",
    "BackgroundClassLoss", "ConfidenceLoss", "ConfidenceLoss.all_unknown", "CrossEntropyLoss.sum", "LogitNorm",
    "logit_norm_loss", "EnergyMarginLoss", "VOSRegLoss",
    "VirtualOutlierSynthesizingRegLoss", "train_step.CenterLoss.sgd",
)
NETS = (
    "WideResNet", "WideResNet.feature_list", "WideResNet.forward_feature_maps", "ResNet18.features", "GRUClassifier",
    "ClassCenters", "ClassCenters.predict", "RunningCenters.update", "RunningCenters",
)
UTILS = (
    "is_known", "drop_unknown", "contains_known_and_unknown", "estimate_class_centers", "pairwise_distances",
    "torch_get_distances", "apply_reduction", "TensorBuffer", "ToUnknown", "TargetMapping", "temperature_calibration",
    "OODMetrics", "OODMetrics.predictions", "AUROC", "AUPR", "FPRAtTPR", "AUTC", "Accuracy", "OODSegmentationMetrics",
    "OODPerImageSegmentationMetrics", "functional.roc_curve", "calibration_error", "aurra", "oscr_score",
)


def names() -> list[str]:
    out: list[str] = []
    for name, (_, _, fitted, grid) in LOGITS.items():
        out += [f"{name}.predict"] * (name in ON_IMAGES) + [f"{name}.predict_logits"]
        out += [f"{name}.fit_logits"] if fitted and name != "OpenMax" else []  # OpenMax's fit runs for minutes
        out += [f"{name}.predict_logits.grid"] if grid else []
    for name in FEATURES:
        out += [f"{name}.predict"] * (name in ON_IMAGES) + [f"{name}.predict_features", f"{name}.fit_features"]
    for name, (_, _, fitted) in MAPS.items():
        out += [f"{name}.predict"] * (name in ON_IMAGES) + [f"{name}.predict_feature_maps"]
        out += [f"{name}.fit_feature_maps"] if fitted else []
    return (out + list(OTHER) + [f"loss.{n}" for n in LOSSES] + [f"model.{n}" for n in NETS]
            + [f"utils.{n}" for n in UTILS])


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _wrn() -> Any:
    from pytorch_ood.model import WideResNet

    return WideResNet(num_classes=CLASSES, depth=10, widen_factor=1, drop_rate=0.3)


def _images(n: int = BATCH, seed: int = 1) -> Any:
    import torch

    return torch.randn(n, 3, SIDE, SIDE, generator=_gen(seed))


def _labels(n: int = N_TRAIN, outliers: bool = False) -> Any:
    import torch

    y = torch.arange(n) % CLASSES
    if outliers:
        y[::4] = -1
    return y


def _loader(net: Any) -> Any:
    from torch.utils.data import DataLoader, TensorDataset

    return DataLoader(TensorDataset(_images(N_TRAIN, 7), _labels()), batch_size=4)


def _detect(detector: Any, method: str, net: Any | None, fit: str | None = None) -> Any:
    """A bench module whose forward calls ``detector.<method>`` (after ``detector.<fit>(inputs[:2])`` when
    ``fit`` is set); the network is registered so that the worker's train / eval switch reaches it."""
    from torch import nn

    class _Detector(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            if net is not None:
                self.net = net
            self.detector = detector

        def forward(self, *inputs: Any) -> Any:
            if fit is not None:
                getattr(self.detector, fit)(*inputs[:2])
                inputs = inputs[2:]
            return getattr(self.detector, method)(*inputs)

        def entry_points(self) -> list[Any]:
            kind = type(self.detector)
            return ([getattr(kind, fit)] if fit is not None else []) + [getattr(kind, method)]

    return _Detector()


def _logits_model(name: str) -> Built:
    import torch
    from pytorch_ood import detector as D

    base, method = name.split(".predict")[0].split(".fit")[0], name[len(name.split(".predict")[0].split(".fit")[0]):]
    cls_name, keywords, fitted, _ = LOGITS[base]
    net = _wrn().eval()
    keywords = dict(keywords)
    if keywords.get("weights") == "weights":
        keywords["weights"] = torch.tensor([1.0, 0.5, 2.0])
    detector = getattr(D, cls_name)(net, **keywords)
    with torch.no_grad():
        train_logits = net(_images(N_TRAIN, 7)).detach() * 3
    x = _images()
    logits = torch.randn(BATCH, CLASSES, generator=_gen(3)) * 3
    if method == ".fit_logits":
        return _detect(detector, "predict_logits", net, fit="fit_logits"), (train_logits, _labels(), logits), {}
    if fitted:
        detector.fit_logits(train_logits, _labels())
    if method == ".predict":
        return _detect(detector, "predict", net), (x,), {}
    if method == ".predict_logits.grid":
        return _detect(detector, "predict_logits", net), (torch.randn(BATCH, CLASSES, 4, 4, generator=_gen(4)),), {}
    return _detect(detector, "predict_logits", net), (logits,), {}


def _feature_model(name: str) -> Built:
    import torch
    from pytorch_ood import detector as D

    base, method = name.rsplit(".", 1)
    cls_name, keywords = FEATURES[base]
    net = _wrn().eval()
    parts = {"encoder": net.features, "head": net.fc, "w": net.fc.weight.detach(), "b": net.fc.bias.detach(),
             "text": torch.randn(CLASSES, net.nChannels, generator=_gen(5))}
    detector = getattr(D, cls_name)(**{k: parts.get(v, v) if isinstance(v, str) else v for k, v in keywords.items()})
    with torch.no_grad():
        train_z = net.features(_images(N_TRAIN, 7)).detach()
        z = net.features(_images()).detach()
    train_y = _labels()
    if cls_name == "SHE":  # SHE keeps the correctly classified samples: fit the head to the training labels
        target = torch.nn.functional.one_hot(train_y, CLASSES).float() * 5
        ones = torch.ones(N_TRAIN, 1)
        solution = torch.linalg.lstsq(torch.cat([train_z, ones], dim=1), target).solution
        with torch.no_grad():
            net.fc.weight.copy_(solution[:-1].T)
            net.fc.bias.copy_(solution[-1])
    if method == "fit_features":
        return _detect(detector, "predict_features", net, fit="fit_features"), (train_z, train_y, z), {}
    detector.fit_features(train_z, train_y)
    if method == "predict":
        return _detect(detector, "predict", net), (_images(),), {}
    return _detect(detector, "predict_features", net), (z,), {}


def _map_model(name: str) -> Built:
    import torch
    from pytorch_ood import detector as D

    base, method = name.rsplit(".", 1)
    cls_name, keywords, fitted = MAPS[base]
    net = _wrn().eval()
    detector = getattr(D, cls_name)(backbone=net.feature_maps, head=net.forward_feature_maps, **keywords)
    with torch.no_grad():
        train_maps = net.feature_maps(_images(N_TRAIN, 7)).detach()
        maps = net.feature_maps(_images()).detach()
    if method == "fit_feature_maps":
        return (_detect(detector, "predict_feature_maps", net, fit="fit_feature_maps"), (train_maps, _labels(), maps),
                {})
    if fitted:
        detector.fit_feature_maps(train_maps, _labels())
    if method == "predict":
        return _detect(detector, "predict", net), (_images(),), {}
    return _detect(detector, "predict_feature_maps", net), (maps,), {}


def _other(name: str) -> Built:
    import torch
    from pytorch_ood import detector as D
    from torch import nn

    from gt_calls import Run

    net = _wrn().eval()
    x = _images()
    stages = [nn.Sequential(net.conv1, net.block1), net.block2, nn.Sequential(net.block3, net.bn1, net.relu)]
    if name.startswith("Gram"):
        head = nn.Sequential(nn.AvgPool2d(8), nn.Flatten(), net.fc)
        detector = D.Gram(head=head, feature_layers=stages, num_classes=CLASSES)
        detector.fit(_loader(net))
        if name == "Gram.predict":
            return _detect(detector, "predict", net), (x,), {}
        with torch.no_grad():
            feats = [stages[0](x)]
            feats += [stages[1](feats[0])]
            feats += [stages[2](feats[1])]
            logits = head(feats[2])
        return _detect(detector, "predict_structured", net), (logits, feats), {}
    if name.startswith("MultiMahalanobis"):
        detector = D.MultiMahalanobis(stages, alpha=[0.3, 0.3, 0.4])

        def pooled(images: torch.Tensor) -> list[torch.Tensor]:
            out, h = [], images
            with torch.no_grad():
                for stage in stages:
                    h = stage(h)
                    out.append(h.mean(dim=(2, 3)))
            return out

        train_zs, zs = pooled(_images(N_TRAIN, 7)), pooled(x)
        if name.endswith("fit_structured"):
            return _detect(detector, "predict_structured", net, fit="fit_structured"), (train_zs, _labels(), zs), {}
        detector.fit_structured(train_zs, _labels())
        if name.endswith(".predict"):
            return _detect(detector, "predict", net), (x,), {}
        return _detect(detector, "predict_structured", net), (zs,), {}
    if name.startswith("ODIN"):
        std = [0.2, 0.2, 0.2] if name.endswith("norm_std") else None
        return _detect(D.ODIN(net, eps=0.002, temperature=100.0, norm_std=std), "predict", net), (x,), {}
    if name == "odin_preprocessing":
        return Run(net, lambda model, x: D.odin_preprocessing(model, x, eps=0.002, temperature=100.0),
                   [D.odin_preprocessing]), (x,), {}
    if name == "MahalanobisODIN.predict":
        detector = D.MahalanobisODIN(net.features, eps=0.002)
        with torch.no_grad():
            detector.fit_features(net.features(_images(N_TRAIN, 7)), _labels())
        return _detect(detector, "predict", net), (x,), {}
    # the gradient detectors differentiate the network functionally: it stays in eval mode (batch norm in
    # train mode would update its statistics inside the transform), so it is kept out of the module tree
    if name == "GradNorm.predict":
        return _detect(D.GradNorm(net, micro_batch_size=1), "predict", None), (x,), {}
    if name == "GradUncertainty.predict":
        return _detect(D.GradUncertainty(net), "predict", None), (x,), {}
    if name == "NACUE.predict":
        detector = D.NACUE(net, layers=[net.block2, net.block3], m_bins=8, o_star=2, alpha=10.0)
        detector.fit(_loader(net))
        return _detect(detector, "predict", net), (x,), {}
    if name.startswith("MCD.predict"):
        mode = "mean" if name.endswith("mean") else "var"
        detector = D.MCD(net, samples=3, mode=mode, batch_norm=not name.endswith("batch_norm_train"))
        return _detect(detector, "predict", net), (x,), {}
    if name in ("MCD.run", "MCD.run_mean"):
        function = getattr(D.MCD, name.split(".")[1])
        return Run(net, lambda model, x: function(model, x, 3), [function]), (x,), {}
    # fit on a data loader inside the compiled code, then predict
    base = name.split(".")[0]
    detector = {"Mahalanobis": lambda: D.Mahalanobis(net.features), "KLMatching": lambda: D.KLMatching(net),
                "ViM": lambda: D.ViM(net.features, d=4, w=net.fc.weight.detach(), b=net.fc.bias.detach()),
                "ReAct": lambda: D.ReAct(net.feature_maps, net.forward_feature_maps)}[base]()
    loader = _loader(net)
    kind = type(detector)

    class _FitPredict(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.detector = detector

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            self.detector.fit(loader)
            return self.detector.predict(x)

        def entry_points(self) -> list[Any]:
            return [kind.fit, kind.predict]

    return _FitPredict(), (x,), {}


def _loss(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from pytorch_ood import loss as L
    from torch import nn

    dim, hidden = DIM, HIDDEN
    encoder = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
    n_out = CLASSES + 1 if name == "BackgroundClassLoss" else CLASSES
    head = nn.Linear(hidden, n_out)
    x = torch.randn(4, dim, generator=_gen(1))
    y = torch.tensor([0, 1, -1, 2])
    if name.endswith("all_unknown"):
        y = torch.full((4,), -1)
    base, _, option = name.partition(".")
    reduction = {"sum": "sum", "none": "none"}.get(option, "mean")
    # what the step feeds the loss: "logits", "features", "logits_features", "distances" (through
    # ``loss.distance``), "embedding", "confidence", "energy_margin"
    simple = {"OutlierExposureLoss": lambda: L.OutlierExposureLoss(alpha=0.5, reduction=reduction),
              "EnergyRegularizedLoss": lambda: L.EnergyRegularizedLoss(reduction=reduction),
              "EntropicOpenSetLoss": lambda: L.EntropicOpenSetLoss(),
              "CrossEntropyLoss": lambda: L.CrossEntropyLoss(reduction=reduction),
              "LogitNorm": lambda: L.LogitNorm(t=0.5),
              "BackgroundClassLoss": lambda: L.BackgroundClassLoss(n_classes=CLASSES)}
    feed = "logits"
    if base in simple:
        loss: Any = simple[base]()
    elif base == "logit_norm_loss":
        loss = L.logit_norm_loss
    elif base == "ObjectosphereLoss":
        loss, feed = L.ObjectosphereLoss(alpha=1.0, xi=2.0), "logits_features"
    elif base in ("CACLoss", "CenterLoss", "MCHADLoss"):
        loss = {"CACLoss": lambda: L.CACLoss(n_classes=CLASSES, magnitude=2.0),
                "CenterLoss": lambda: L.CenterLoss(n_classes=CLASSES, n_dim=hidden, fixed=option == "fixed"),
                "MCHADLoss": lambda: L.MCHADLoss(n_classes=CLASSES, n_dim=hidden, margin=0.5)}[base]()
        feed = "distance_only" if option == "distance" else "distances"
        if base == "CACLoss":
            head = nn.Linear(hidden, CLASSES)
            feed = "distance_only" if option == "distance" else "cac"
    elif base == "IILoss":
        loss, feed = L.IILoss(n_classes=CLASSES, n_embedding=hidden), "predict" if option == "predict" else "features"
    elif base == "DeepSVDDLoss":
        loss = L.DeepSVDDLoss(n_dim=hidden, radius=0.5 if option == "radius" else 0.0)
        feed = "features"
    elif base == "DeepSADLoss":
        loss, feed = L.DeepSADLoss(n_dim=hidden), "features"
    elif base == "ConfidenceLoss":
        loss, feed = L.ConfidenceLoss(alpha=0.5), "confidence"
    elif base == "EnergyMarginLoss":
        loss, feed = L.EnergyMarginLoss(full_train_loss=1.0), "energy_margin"
    elif base == "VOSRegLoss":
        loss = L.VOSRegLoss(logistic_regression=nn.Linear(1, 2), weights_energy=nn.Linear(CLASSES, 1))
    elif base == "VirtualOutlierSynthesizingRegLoss":
        loss = L.VirtualOutlierSynthesizingRegLoss(nn.Linear(1, 2), nn.Linear(CLASSES, 1), head, sample_number=2,
                                                   select=1, sample_from=8)
        feed = "logits_features"
        y = torch.tensor([0, 1, 2, 0])
        with torch.no_grad():  # fill the class queues, as the first epochs do
            for seed in range(3):
                z0 = encoder(torch.randn(4, dim, generator=_gen(seed + 10)))
                loss(head(z0), z0, torch.tensor([0, 1, 2, 1]))
    else:  # train_step.CenterLoss.sgd
        return _sgd_center_step(encoder, x, y)
    confidence = nn.Linear(hidden, 1)

    class _LossStep(nn.Module):
        """A train step's forward: the network's outputs on a batch with outliers, and the loss."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder, self.head, self.confidence = encoder, head, confidence
            self.loss = loss if isinstance(loss, nn.Module) else None

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            z = self.encoder(x)
            logits = self.head(z)
            if feed == "logits":
                out = loss(logits, y)
            elif feed == "logits_features":
                out = loss(logits, z, y)
            elif feed == "distances":
                out = loss(loss.distance(z), y)
            elif feed == "cac":
                out = loss(loss.distance(logits), y)
            elif feed == "distance_only":
                return loss.distance(logits if base == "CACLoss" else z)
            elif feed == "features":
                out = loss(z, y)
            elif feed == "predict":
                return loss.predict(z)
            elif feed == "confidence":
                out = loss(logits, torch.sigmoid(self.confidence(z)), y)
            else:
                out = loss(logits, y, lambda e: F.linear(e.unsqueeze(-1), torch.ones(2, 1)))
            return out.mean() if out.dim() else out

        def entry_points(self) -> list[Any]:
            return [type(loss) if isinstance(loss, nn.Module) else loss]

    return _LossStep(), (x, y), {}


def _sgd_center_step(encoder: Any, x: Any, y: Any) -> Built:
    import torch
    from pytorch_ood.loss import CenterLoss
    from torch import nn

    loss = CenterLoss(n_classes=CLASSES, n_dim=HIDDEN)
    optimizer = torch.optim.SGD(list(encoder.parameters()) + list(loss.parameters()), lr=0.1)

    class _Step(nn.Module):
        """One training step: centre distances, loss, backward and an SGD step on the network and centres."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder, self.loss = encoder, loss

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                optimizer.zero_grad()
                value = self.loss(self.loss.distance(self.encoder(x)), y)
                value.backward()
                optimizer.step()
            return value.detach()

        def entry_points(self) -> list[Any]:
            return [CenterLoss]

    return _Step(), (x, y), {}


def _net_model(name: str) -> Built:
    import torch
    from pytorch_ood.model import ClassCenters, GRUClassifier, ResNet18, RunningCenters

    from gt_calls import Method

    if name.startswith("WideResNet"):
        net = _wrn()
        if name == "WideResNet.forward_feature_maps":
            maps = torch.randn(BATCH, net.nChannels, 8, 8, generator=_gen(2))
            return Method(net, "forward_feature_maps"), (maps,), {}
        return (net if name == "WideResNet" else Method(net, name.split(".")[1])), (_images(),), {}
    if name.startswith("ResNet18"):
        net = ResNet18(num_classes=CLASSES)
        return (net if name == "ResNet18" else Method(net, "features")), (_images(),), {}
    if name.startswith("GRUClassifier"):
        net = GRUClassifier(num_classes=CLASSES, n_vocab=50, embedding_dim=8)
        tokens = torch.randint(2, 50, (BATCH, 6), generator=_gen(3))
        return (net if name == "GRUClassifier" else Method(net, "features")), (tokens,), {}
    z = torch.randn(4, 8, generator=_gen(4))
    if name.startswith("ClassCenters"):
        centers = ClassCenters(n_classes=CLASSES, n_features=8)
        return (centers if name == "ClassCenters" else Method(centers, "predict")), (z,), {}
    centers = RunningCenters(n_classes=CLASSES, n_embedding=8)
    if name == "RunningCenters.update":
        return Method(centers, "update"), (z, torch.tensor([0, 1, 2, 1])), {}
    centers.update(torch.randn(6, 8, generator=_gen(5)), torch.tensor([0, 1, 2, 0, 1, 2]))
    return centers, (z,), {}


def _metric(name: str, scores: Any, labels: Any, predictions: Any) -> Built:
    from pytorch_ood import metrics as M
    from torch import nn

    metric = {"OODMetrics": lambda: M.OODMetrics(), "OODMetrics.predictions": lambda: M.OODMetrics(),
              "AUROC": lambda: M.AUROC(), "AUPR": lambda: M.AUPR(), "FPRAtTPR": lambda: M.FPRAtTPR(tpr=0.9),
              "AUTC": lambda: M.AUTC(), "Accuracy": lambda: M.Accuracy(),
              "OODSegmentationMetrics": lambda: M.OODSegmentationMetrics(void_label=9),
              "OODPerImageSegmentationMetrics": lambda: M.OODPerImageSegmentationMetrics()}[name]()
    if name == "Accuracy":
        inputs: tuple[Any, ...] = (predictions, labels)
    elif name == "OODMetrics.predictions":
        inputs = (scores, labels, predictions)
    elif name.startswith("OODSeg") or name.startswith("OODPer"):
        inputs = (scores.reshape(2, 4, 4), labels.reshape(2, 4, 4))
    else:
        inputs = (scores, labels)

    class _Metric(nn.Module):
        """Reset, update with one batch, compute (what an evaluation loop runs)."""

        def __init__(self) -> None:
            super().__init__()
            self.metric = metric

        def forward(self, *tensors: Any) -> Any:
            self.metric.reset()
            self.metric.update(*tensors)
            return self.metric.compute()

        def entry_points(self) -> list[Any]:
            kind = type(self.metric)
            return [kind.update, kind.compute]

    return _Metric(), inputs, {}


def _util(name: str) -> Built:
    import torch
    from pytorch_ood import utils as U
    from pytorch_ood.metrics import functional as MF
    from torch import nn

    from gt_calls import Call, Run

    scores = torch.randn(32, generator=_gen(1))
    labels = torch.arange(32) % CLASSES
    labels[::3] = -1
    predictions = torch.randint(0, CLASSES, (32,), generator=_gen(2))
    z = torch.randn(32, 8, generator=_gen(3))
    functions = {"is_known": (U.is_known, (labels,)),
                 "drop_unknown": (U.drop_unknown, (labels, z, scores)),
                 "contains_known_and_unknown": (U.contains_known_and_unknown, (labels,)),
                 "estimate_class_centers": (U.estimate_class_centers, (z, labels.clamp(min=0))),
                 "pairwise_distances": (U.pairwise_distances, (z, z[:4])),
                 "torch_get_distances": (U.torch_get_distances, (z[:3], z)),
                 "functional.roc_curve": (MF.roc_curve, (scores, labels)),
                 "calibration_error": (MF.calibration_error, (torch.sigmoid(scores), predictions == labels.abs())),
                 "aurra": (MF.aurra, (torch.sigmoid(scores), predictions == labels.abs())),
                 "oscr_score": (MF.oscr_score, (scores, predictions, labels))}
    if name in functions:
        function, args = functions[name]
        return Call(function), args, {}
    if name == "temperature_calibration":  # fits a temperature with gradients, whatever the caller's mode
        def calibrate(owner: Any, logits: torch.Tensor, y: torch.Tensor) -> float:
            with torch.enable_grad():
                return U.temperature_calibration(logits, y)

        return (Run(None, calibrate, [U.temperature_calibration]),
                (torch.randn(32, CLASSES, generator=_gen(4)), labels.clamp(min=0)), {})
    if name == "apply_reduction":
        return Call(U.apply_reduction, reduction="mean"), (scores,), {}
    if name in ("ToUnknown", "TargetMapping"):
        from pytorch_ood.utils import TargetMapping, ToUnknown

        if name == "ToUnknown":
            transform: Any = ToUnknown()
        else:
            transform = TargetMapping(known={0, 2}, unknown={1, 3})
        return Call(lambda y: torch.tensor([transform(int(v)) for v in y])), (torch.tensor([0, 1, 2, 3]),), {}
    if name == "TensorBuffer":
        buffer = U.TensorBuffer()

        class _Buffer(nn.Module):
            """Append features to the buffer, then draw from it (a replay memory)."""

            def forward(self, z: torch.Tensor) -> torch.Tensor:
                buffer.clear()
                buffer.append("z", z)
                buffer.append("z", z * 2)
                return buffer.sample("z") + buffer.get("z").mean()

            def entry_points(self) -> list[Any]:
                return [U.TensorBuffer.append, U.TensorBuffer.sample, U.TensorBuffer.get]

        return _Buffer(), (z,), {}
    return _metric(name, scores, labels, predictions)


def build(name: str) -> Built:
    import warnings

    import torch

    import gt_models

    warnings.filterwarnings("ignore")
    gt_models.allow_torchvision_import()
    torch.manual_seed(0)
    base = name.split(".predict")[0].split(".fit")[0]
    if base in LOGITS:
        return _logits_model(name)
    if name.rsplit(".", 1)[0] in FEATURES and name not in OTHER:
        return _feature_model(name)
    if name.rsplit(".", 1)[0] in MAPS:
        return _map_model(name)
    if name in OTHER:
        return _other(name)
    if name.startswith("loss."):
        return _loss(name[len("loss."):])
    if name.startswith("model."):
        return _net_model(name[len("model."):])
    if name.startswith("utils."):
        return _util(name[len("utils."):])
    raise KeyError(name)
