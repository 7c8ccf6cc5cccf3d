"""Ground-truth bench, coral_pytorch: ordinal regression with CORAL and CORN, layers, losses and label helpers.

coral_pytorch 1.4.0 is Sebastian Raschka's ordinal regression package: ``CoralLayer`` (one shared weight vector and
``num_classes - 1`` ordered biases, optionally pre-initialized descending), the CORAL loss (``coral_loss`` and
``CoralLoss``: binary cross-entropies over the extended binary levels, with optional per-level importance weights
and a ``reduction`` of ``'mean'``, ``'sum'`` or ``None``), the CORN loss (``corn_loss`` and ``CornLoss``: one
conditional binary task per rank, each over the examples whose label passes the rank before, selected by boolean
masks and skipped when empty), and the helpers users call around them: ``label_to_levels`` (one label, an int or
a tensor read with ``item()``), ``levels_from_labelbatch`` (a loop over a batch of labels, stacked),
``proba_to_label`` (thresholded probabilities counted) and ``corn_label_from_logits`` (cumulative products of
sigmoids). So the tables cover, at batch 6 and 5 classes unless named:

- ``LAYERS``: ``CoralLayer`` with and without the bias pre-initialization, in a small network, on 3-D inputs;
- ``CALLS``: the losses as functions and modules with each reduction and with importance weights, CORN with
  other class counts, the label helpers on tensors and lists;
- ``PIPELINES``: what a training or inference script runs: labels to levels then the CORAL loss, logits to
  probabilities to labels, the CORN network's prediction;
- ``TRAIN``: SGD steps through a CORAL network (``coral_loss``, ``CoralLoss`` weighted) and a CORN network
  (``corn_loss``, ``CornLoss``), the levels built inside the step or ahead of it.

Random inputs and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, FEATURES, CLASSES = 6, 10, 5

LAYERS = ("CoralLayer", "CoralLayer.no_preinit_bias", "CoralLayer.network", "CoralLayer.3d")
CALLS = (
    "coral_loss", "coral_loss.sum", "coral_loss.none", "coral_loss.importance_weights", "CoralLoss",
    "CoralLoss.sum.importance_weights", "CoralLoss.none", "corn_loss", "corn_loss.3_classes",
    "corn_loss.missing_rank", "CornLoss", "CornLoss.10_classes", "label_to_levels.int",
    "label_to_levels.tensor", "levels_from_labelbatch.tensor", "levels_from_labelbatch.list", "proba_to_label",
    "corn_label_from_logits", "corn_label_from_logits.float64",
)
PIPELINES = ("coral.levels_and_loss", "coral.predict", "corn.predict", "corn.loss_and_predict")
# Train model name -> (network kind: "coral" or "corn", loss).
TRAIN: dict[str, tuple[str, str]] = {
    "train_step.coral_loss": ("coral", "coral_loss"),
    "train_step.coral_loss.levels_inside": ("coral", "coral_loss_levels"),
    "train_step.CoralLoss.weighted": ("coral", "CoralLoss"),
    "train_step.corn_loss": ("corn", "corn_loss"),
    "train_step.CornLoss": ("corn", "CornLoss"),
}


def names() -> list[str]:
    return list(LAYERS) + list(CALLS) + list(PIPELINES) + list(TRAIN)


def _randn(*shape: int, seed: int = 1, dtype: Any = None) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype or torch.float32)


def _labels(num_classes: int = CLASSES, seed: int = 2) -> Any:
    import torch

    return torch.randint(0, num_classes, (BATCH,), generator=torch.Generator().manual_seed(seed))


def _levels(labels: Any, num_classes: int = CLASSES) -> Any:
    import torch

    return (labels.unsqueeze(1) > torch.arange(num_classes - 1)).float()


def _layers(name: str) -> Built:
    from coral_pytorch.layers import CoralLayer
    from torch import nn

    if name == "CoralLayer.network":
        class _Network(nn.Sequential):
            def entry_points(self) -> list[Any]:
                return [CoralLayer]

        net = _Network(nn.Linear(FEATURES, 16), nn.ReLU(), CoralLayer(16, CLASSES))
        return net, (_randn(BATCH, FEATURES),), {}
    layer = CoralLayer(FEATURES, CLASSES, preinit_bias=name != "CoralLayer.no_preinit_bias")
    x = _randn(BATCH, 3, FEATURES) if name == "CoralLayer.3d" else _randn(BATCH, FEATURES)
    return layer, (x,), {}


def _calls(name: str) -> Built:
    import torch
    from coral_pytorch import dataset, losses

    from gt_calls import Call, Keywords

    logits, labels = _randn(BATCH, CLASSES - 1), _labels()
    weights = torch.linspace(0.5, 1.5, CLASSES - 1)
    if name.startswith("coral_loss"):
        reduction = {"coral_loss.sum": "sum", "coral_loss.none": None}.get(name, "mean")
        static: dict[str, Any] = {"reduction": reduction}
        if name == "coral_loss.importance_weights":
            static["importance_weights"] = weights
        return Call(losses.coral_loss, **static), (logits, _levels(labels)), {}
    if name.startswith("CoralLoss"):
        reduction = {"CoralLoss.sum.importance_weights": "sum", "CoralLoss.none": None}.get(name, "mean")
        module = losses.CoralLoss(reduction=reduction)
        if name == "CoralLoss.sum.importance_weights":
            return Keywords(module, importance_weights=weights), (logits, _levels(labels)), {}
        return module, (logits, _levels(labels)), {}
    if name.startswith("corn_loss"):
        classes = 3 if name == "corn_loss.3_classes" else CLASSES
        if name == "corn_loss.missing_rank":
            labels = torch.tensor([0, 0, 1, 1, 0, 1])  # no example passes the last ranks: their tasks are skipped
        else:
            labels = _labels(classes)
        return Call(losses.corn_loss, num_classes=classes), (_randn(BATCH, classes - 1), labels), {}
    if name.startswith("CornLoss"):
        classes = 10 if name == "CornLoss.10_classes" else CLASSES
        return losses.CornLoss(classes), (_randn(BATCH, classes - 1), _labels(classes)), {}
    if name == "label_to_levels.int":
        return Call(dataset.label_to_levels, num_classes=CLASSES), (3,), {}
    if name == "label_to_levels.tensor":
        return Call(dataset.label_to_levels, num_classes=CLASSES), (torch.tensor(2),), {}
    if name == "levels_from_labelbatch.tensor":
        return Call(dataset.levels_from_labelbatch, num_classes=CLASSES), (labels,), {}
    if name == "levels_from_labelbatch.list":
        return Call(dataset.levels_from_labelbatch, num_classes=CLASSES), ([2, 1, 4, 0],), {}
    if name == "proba_to_label":
        return Call(dataset.proba_to_label), (torch.sigmoid(logits),), {}
    dtype = torch.float64 if name.endswith("float64") else torch.float32
    return Call(dataset.corn_label_from_logits), (_randn(BATCH, CLASSES - 1, dtype=dtype),), {}


def _pipelines(name: str) -> Built:
    import torch
    from coral_pytorch.dataset import corn_label_from_logits, levels_from_labelbatch, proba_to_label
    from coral_pytorch.layers import CoralLayer
    from coral_pytorch.losses import corn_loss, coral_loss
    from torch import nn

    x, labels = _randn(BATCH, FEATURES), _labels()

    class _Pipeline(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU())
            self.coral = CoralLayer(16, CLASSES)
            self.corn = nn.Linear(16, CLASSES - 1)

        def forward(self, x: torch.Tensor, labels: torch.Tensor) -> Any:
            hidden = self.features(x)
            if name == "coral.levels_and_loss":
                levels = levels_from_labelbatch(labels, num_classes=CLASSES)
                return coral_loss(self.coral(hidden), levels)
            if name == "coral.predict":
                return proba_to_label(torch.sigmoid(self.coral(hidden)))
            logits = self.corn(hidden)
            if name == "corn.predict":
                return corn_label_from_logits(logits)
            return corn_loss(logits, labels, CLASSES), corn_label_from_logits(logits)

        def entry_points(self) -> list[Any]:
            return {"coral.levels_and_loss": [levels_from_labelbatch, coral_loss, CoralLayer],
                    "coral.predict": [proba_to_label, CoralLayer], "corn.predict": [corn_label_from_logits],
                    "corn.loss_and_predict": [corn_loss, corn_label_from_logits]}[name]

    return _Pipeline(), (x, labels), {}


def _train(name: str) -> Built:
    import torch
    from coral_pytorch.dataset import levels_from_labelbatch
    from coral_pytorch.layers import CoralLayer
    from coral_pytorch.losses import CoralLoss, CornLoss, corn_loss, coral_loss
    from torch import nn

    from gt_calls import OptimizerStep

    kind, loss_name = TRAIN[name]
    head = CoralLayer(16, CLASSES) if kind == "coral" else nn.Linear(16, CLASSES - 1)
    net = nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU(), head)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    x, labels = _randn(BATCH, FEATURES), _labels()
    coral_module, corn_module = CoralLoss(reduction="sum"), CornLoss(CLASSES)
    weights = torch.linspace(0.5, 1.5, CLASSES - 1)

    def loss(x: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        logits = net(x)
        if loss_name == "coral_loss":
            return coral_loss(logits, targets)
        if loss_name == "coral_loss_levels":
            return coral_loss(logits, levels_from_labelbatch(targets, num_classes=CLASSES))
        if loss_name == "CoralLoss":
            return coral_module(logits, targets, importance_weights=weights)
        if loss_name == "corn_loss":
            return corn_loss(logits, targets, num_classes=CLASSES)
        return corn_module(logits, targets)

    entries = {"coral_loss": [coral_loss, CoralLayer], "coral_loss_levels": [levels_from_labelbatch, coral_loss],
               "CoralLoss": [CoralLoss, CoralLayer], "corn_loss": [corn_loss], "CornLoss": [CornLoss]}[loss_name]

    class _Step(OptimizerStep):
        def entry_points(self) -> list[Any]:
            return [*entries, type(optimizer).step]

    targets = _levels(labels) if loss_name in ("coral_loss", "CoralLoss") else labels
    return _Step(net, optimizer, loss), (x, targets), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in LAYERS:
        return _layers(name)
    if name in CALLS:
        return _calls(name)
    if name in PIPELINES:
        return _pipelines(name)
    return _train(name)
