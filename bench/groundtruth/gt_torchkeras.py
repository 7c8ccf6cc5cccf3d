"""Ground-truth bench, torchkeras: its Keras-like training loop, metrics, summary, vision nets and tabular models.

torchkeras 4.0.5 wraps a user's ``nn.Module`` in ``KerasModel``, whose ``fit`` / ``evaluate`` drive an accelerate
``Accelerator`` through an ``EpochRunner`` that calls a ``StepRunner`` per batch (forward under ``autocast``,
loss, ``accelerator.backward``, gradient clipping, optimizer and scheduler steps, gathered losses and metrics
turned into floats). Around that it ships stateful metric modules, a hook-based ``summary``, a few vision nets
and a port of pytorch_tabular's models with their own ``StepRunner``. So the tables cover, at tiny sizes:

- ``CORE``: ``KerasModel.forward``; ``StepRunner`` called on one ``(features, labels)`` batch in the
  configurations a user picks (train with metrics, without, with a torch scheduler, SGD, the first epoch with no
  optimizer, bf16 autocast on the CPU, gradient accumulation, validation with precision / recall, AUC / KS,
  multiclass with the IOU metric, a UNet segmentation step); ``EpochRunner`` over a short list of batches (train
  and validation); ``KerasModel.evaluate`` and ``KerasModel.fit`` (one epoch, with and without validation data,
  no plots, checkpoint in a temporary folder), and ``fit`` of a tabular model with the tabular ``StepRunner``;
- ``METRICS``: ``Accuracy``, ``Precision``, ``Recall``, ``AUC``, ``KS`` and ``IOU`` (binary and multiclass),
  each as a forward and as forward then ``compute``;
- ``SUMMARY``: ``summary`` on an MLP, a CNN, multi-input and shape-given calls, a model holding an
  ``nn.MultiheadAttention``, a UNet and a tabular model;
- ``VISION``: ``ResNet50`` (with and without its top), ``UNet`` (bilinear and transposed upsampling),
  ``SSD300`` on a tiny backbone (plain, with targets so that it computes its loss) and on its ResNet-50
  backbone, and its parts (``Loss``, ``Encoder.encode``, ``PostProcess.scale_back_batch``,
  ``calc_iou_tensor``, ``box_area``);
- ``TABULAR``: every tabular model but TabM (CategoryEmbedding, AutoInt, DANet, FTTransformer, GANDALF, GATE,
  NODE, TabTransformer, TabNet, FM, DeepFM, DeepCross, PeMLP, DeepKNN) on binary, multiclass and regression
  targets, config variants that change the path (batch norm, ghost batch norm, shared embeddings, attention
  pooling, GLU variants, tree activations and masks, cross types, a pre-training encoder), continuous-only and
  categorical-only data, ``predict``, the tabular ``StepRunner`` training steps, and layers users pick alone
  (``Entmax15``, ``Sparsemax``, ``TSoftmax``, ``RSoftmax``, ``GBN``, ``ODST``, the GEGLU feed-forward).

NODE's trees and the ``ODST`` layer initialize themselves from their first batch (``ModuleWithInit``); Dynamo
fails with an internal error (fake tensors) inside that initialization, so the builder runs it eagerly and the
compiled models are the initialized ones. Left out: ``flop_summary`` (a print of fvcore's own ``torch.jit``
trace of the model: fvcore's code, not torchkeras'),
``SSD300.predict`` and the NMS helpers (they call ``torch.ops.torchvision.nms``, absent from the bench's
torchvision build), TabM (its ``tabm`` dependency is not installed: the builder gives the import a stand-in
module so that the rest of ``torchkeras.tabular`` imports), DeepKNN's search index (faiss, not installed: the
model is given its contexts), ``HugModel`` (built on transformers, the held-out corpus), the chat, email, plots,
callbacks (plotting and logging) and soup / stacker modules (checkpoint files and Optuna searches).

Random weights and inputs, seeded, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 8
FEATURES = 4

CORE = (
    "KerasModel.forward",
    "StepRunner.train",
    "StepRunner.train.regression_no_metrics",
    "StepRunner.train.lr_scheduler",
    "StepRunner.train.sgd",
    "StepRunner.train.no_optimizer",
    "StepRunner.train.bf16",
    "StepRunner.train.grad_accum",
    "StepRunner.val.precision_recall",
    "StepRunner.val.auc_ks",
    "StepRunner.train.multiclass_iou",
    "StepRunner.train.unet_iou",
    "EpochRunner.train",
    "EpochRunner.val",
    "KerasModel.evaluate",
    "KerasModel.fit",
    "KerasModel.fit.val_data",
    "KerasModel.fit.tabular",
)
METRICS = (
    "Accuracy", "Accuracy.compute", "Precision", "Precision.compute", "Recall", "Recall.compute",
    "AUC", "AUC.compute", "KS", "KS.compute", "IOU.binary", "IOU.multiclass", "IOU.multiclass.compute",
)
SUMMARY = (
    "summary.mlp", "summary.cnn", "summary.input_shape", "summary.input_data_args", "summary.multihead_attention",
    "summary.unet", "summary.tabular",
)
VISION = (
    "ResNet50", "ResNet50.no_top", "UNet", "UNet.transposed", "UNet.rgb_3_classes",
    "SSD300.tiny_backbone", "SSD300.tiny_backbone.targets", "SSD300.resnet50",
    "ssd.Loss", "ssd.Encoder.encode", "ssd.PostProcess.scale_back_batch", "ssd.calc_iou_tensor", "ssd.box_area",
)

# Tabular model name -> (config class, model class, config keywords).
_TAB_MODELS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "CategoryEmbeddingModel": ("CategoryEmbeddingModelConfig", "CategoryEmbeddingModel", {"layers": "8-4"}),
    "AutoIntModel": ("AutoIntConfig", "AutoIntModel",
                     {"attn_embed_dim": 8, "num_heads": 2, "num_attn_blocks": 2, "embedding_dim": 8}),
    "DANetModel": ("DANetConfig", "DANetModel", {"n_layers": 2, "abstlay_dim_1": 8, "k": 2, "virtual_batch_size": 4}),
    "FTTransformerModel": ("FTTransformerConfig", "FTTransformerModel",
                           {"input_embed_dim": 8, "num_heads": 2, "num_attn_blocks": 2}),
    "GANDALFModel": ("GANDALFConfig", "GANDALFModel", {"gflu_stages": 2}),
    "GatedAdditiveTreeEnsembleModel": ("GatedAdditiveTreeEnsembleConfig", "GatedAdditiveTreeEnsembleModel",
                                       {"gflu_stages": 2, "tree_depth": 2, "num_trees": 2}),
    "NODEModel": ("NODEConfig", "NODEModel", {"num_trees": 4, "depth": 2}),
    "TabTransformerModel": ("TabTransformerConfig", "TabTransformerModel",
                            {"input_embed_dim": 8, "num_heads": 2, "num_attn_blocks": 2}),
    "TabNetModel": ("TabNetModelConfig", "TabNetModel", {"n_d": 4, "n_a": 4, "n_steps": 2, "virtual_batch_size": 4}),
    "FMModel": ("FMConfig", "FMModel", {"input_embed_dim": 4}),
    "DeepFMModel": ("DeepFMConfig", "DeepFMModel", {"input_embed_dim": 4}),
    "DeepCrossModel": ("DeepCrossConfig", "DeepCrossModel", {"input_embed_max": 4, "mlp_layers": "8-4"}),
    "PeMLPModel": ("PeMLPConfig", "PeMLPModel", {"input_embed_dim": 4}),
    "DeepKNNModel": ("DeepKNNConfig", "DeepKNNModel",
                     {"hidden_size": 8, "context_size": 3, "plr_embed_dim": 4, "plr_frequencies_num": 4}),
}
_REGRESSION = ("CategoryEmbeddingModel", "AutoIntModel", "FTTransformerModel", "GatedAdditiveTreeEnsembleModel",
               "NODEModel", "TabNetModel", "DeepCrossModel", "DANetModel")
_MULTICLASS = ("CategoryEmbeddingModel", "AutoIntModel", "FTTransformerModel", "GANDALFModel", "TabTransformerModel",
               "TabNetModel", "DeepFMModel", "PeMLPModel", "DeepKNNModel")
# Variant name -> (model, task, extra config keywords, data: "mixed", "continuous" or "categorical").
_VARIANTS: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "CategoryEmbeddingModel.batch_norm_dropout_xavier": (
        "CategoryEmbeddingModel", "binary",
        {"use_batch_norm": True, "dropout": 0.1, "initialization": "xavier", "embedding_dropout": 0.1}, "mixed"),
    "CategoryEmbeddingModel.ghost_batch_norm": ("CategoryEmbeddingModel", "binary", {"virtual_batch_size": 4}, "mixed"),
    "CategoryEmbeddingModel.head_layers": (
        "CategoryEmbeddingModel", "regression",
        {"head_config": {"layers": "4", "activation": "LeakyReLU", "use_batch_norm": True}}, "mixed"),
    "CategoryEmbeddingModel.continuous_only": ("CategoryEmbeddingModel", "binary", {}, "continuous"),
    "CategoryEmbeddingModel.categorical_only": (
        "CategoryEmbeddingModel", "binary", {"batch_norm_continuous_input": False}, "categorical"),
    "AutoIntModel.deep_layers_attention_pooling": (
        "AutoIntModel", "binary", {"deep_layers": True, "layers": "8-4", "attention_pooling": True}, "mixed"),
    "AutoIntModel.shared_embedding_fraction": ("AutoIntModel", "binary", {"share_embedding": True}, "mixed"),
    "AutoIntModel.shared_embedding_add": (
        "AutoIntModel", "binary", {"share_embedding": True, "share_embedding_strategy": "add"}, "mixed"),
    "FTTransformerModel.reglu_shared_add": (
        "FTTransformerModel", "binary",
        {"transformer_activation": "ReGLU", "share_embedding": True, "share_embedding_strategy": "add"}, "mixed"),
    "FTTransformerModel.swiglu_no_importance": (
        "FTTransformerModel", "binary", {"transformer_activation": "SwiGLU", "attn_feature_importance": False},
        "mixed"),
    "FTTransformerModel.relu": ("FTTransformerModel", "regression", {"transformer_activation": "ReLU"}, "mixed"),
    "FTTransformerModel.continuous_only": ("FTTransformerModel", "binary", {}, "continuous"),
    "TabTransformerModel.shared_embedding": ("TabTransformerModel", "binary", {"share_embedding": True}, "mixed"),
    "GatedAdditiveTreeEnsembleModel.entmoid_entmax": (
        "GatedAdditiveTreeEnsembleModel", "binary",
        {"binning_activation": "entmoid", "feature_mask_function": "entmax"}, "mixed"),
    "GatedAdditiveTreeEnsembleModel.sigmoid_sparsemax": (
        "GatedAdditiveTreeEnsembleModel", "binary",
        {"binning_activation": "sigmoid", "feature_mask_function": "sparsemax"}, "mixed"),
    "GatedAdditiveTreeEnsembleModel.softmax_unchained": (
        "GatedAdditiveTreeEnsembleModel", "binary",
        {"feature_mask_function": "softmax", "chain_trees": False, "tree_wise_attention": False,
         "share_head_weights": False}, "mixed"),
    "GANDALFModel.fixed_sparsity": ("GANDALFModel", "regression", {"learnable_sparsity": False}, "mixed"),
    "NODEModel.sparsemax_sparsemoid_2_layers": (
        "NODEModel", "binary",
        {"choice_function": "sparsemax", "bin_function": "sparsemoid", "num_layers": 2,
         "initialize_response": "uniform", "initialize_selection_logits": "normal"}, "mixed"),
    "TabNetModel.entmax": ("TabNetModel", "binary", {"mask_type": "entmax"}, "mixed"),
    "DeepCrossModel.vector_stacked": ("DeepCrossModel", "binary", {"cross_type": "vector", "stacked": True}, "mixed"),
    "DeepCrossModel.mix_order_3": (
        "DeepCrossModel", "binary", {"cross_type": "mix", "cross_order": 3, "low_rank": 2, "experts_num": 2}, "mixed"),
    "DeepKNNModel.pretrain_encoder": ("DeepKNNModel", "binary", {}, "mixed"),
}
_TRAIN = ("CategoryEmbeddingModel", "AutoIntModel", "FTTransformerModel", "GatedAdditiveTreeEnsembleModel",
          "NODEModel", "TabNetModel", "DeepFMModel", "DeepCrossModel", "DANetModel", "DeepKNNModel")
_LAYERS = ("layers.Entmax15", "layers.Sparsemax", "layers.TSoftmax", "layers.RSoftmax", "layers.GBN", "layers.ODST",
           "layers.GEGLU")

TABULAR = (
    [f"tabular.{m}.binary" for m in _TAB_MODELS]
    + [f"tabular.{m}.regression" for m in _REGRESSION]
    + [f"tabular.{m}.multiclass" for m in _MULTICLASS]
    + [f"tabular.{v}" for v in _VARIANTS]
    + ["tabular.CategoryEmbeddingModel.predict", "tabular.FTTransformerModel.predict"]
    + [f"tabular.StepRunner.train.{m}" for m in _TRAIN]
    + ["tabular.StepRunner.val.CategoryEmbeddingModel"]
    + [f"tabular.{layer}" for layer in _LAYERS]
)


def names() -> list[str]:
    return list(CORE) + list(METRICS) + list(SUMMARY) + list(VISION) + list(TABULAR)


# --------------------------------------------------------------------------------------------------- helpers


def _import() -> Any:
    """Import torchkeras, with a stand-in ``tabm`` module if the real one is missing (only TabM uses it)."""
    import sys
    import types

    try:
        import tabm  # noqa: F401
    except ImportError:
        sys.modules["tabm"] = types.ModuleType("tabm")
    import torchkeras
    import torchkeras.tabular  # noqa: F401

    return torchkeras


def _mlp(out: int = 1) -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(FEATURES, 8), nn.ReLU(), nn.Linear(8, out))


def _xy(task: str = "binary") -> tuple[Any, Any]:
    import torch

    x = torch.randn(BATCH, FEATURES)
    if task == "binary":
        y = (torch.arange(BATCH) % 2).float()[:, None]
    elif task == "multiclass":
        y = torch.arange(BATCH) % 3
    else:
        y = torch.randn(BATCH, 1)
    return x, y


def _accelerator(**options: Any) -> Any:
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, GradientState

    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    return Accelerator(cpu=True, **options)


def _module(owner: Any, run: Any, entries: list[Any]) -> Any:
    from gt_calls import Run

    return Run(owner, run, entries)


def _step_runner(name: str) -> Built:
    import torch
    from torch import nn
    from torchkeras import metrics
    from torchkeras.kerasmodel import StepRunner

    task, stage, metric_names, accel, optim, sched = "binary", "train", ("acc",), {}, "adam", False
    net = _mlp()
    if name == "StepRunner.train.regression_no_metrics":
        task, metric_names = "regression", ()
    elif name == "StepRunner.train.lr_scheduler":
        sched = True
    elif name == "StepRunner.train.sgd":
        optim = "sgd"
    elif name == "StepRunner.train.no_optimizer":
        optim = None
    elif name == "StepRunner.train.bf16":
        accel = {"mixed_precision": "bf16"}
    elif name == "StepRunner.train.grad_accum":
        accel = {"gradient_accumulation_steps": 2}
    elif name == "StepRunner.val.precision_recall":
        stage, metric_names = "val", ("precision", "recall")
    elif name == "StepRunner.val.auc_ks":
        stage, metric_names = "val", ("auc", "ks")
    elif name == "StepRunner.train.multiclass_iou":
        task, metric_names, net = "multiclass", ("iou",), _mlp(3)
    elif name == "StepRunner.train.unet_iou":
        task, metric_names = "segmentation", ("iou_binary",)
    makers = {"acc": metrics.Accuracy, "precision": metrics.Precision, "recall": metrics.Recall,
              "auc": metrics.AUC, "ks": metrics.KS, "iou": lambda: metrics.IOU(3),
              "iou_binary": lambda: metrics.IOU(1)}
    metrics_dict = nn.ModuleDict({m: makers[m]() for m in metric_names})
    if task == "segmentation":
        from torchkeras.vision import UNet

        net = UNet(in_channels=1, num_classes=1, base_c=4)
        x = torch.randn(2, 1, 16, 16)
        y = (torch.rand(2, 1, 16, 16) > 0.5).float()
        loss_fn: Any = nn.BCEWithLogitsLoss()
    else:
        x, y = _xy(task)
        loss_fn = {"binary": nn.BCEWithLogitsLoss(), "multiclass": nn.CrossEntropyLoss(),
                   "regression": nn.MSELoss()}[task]
    optimizer = None
    if optim == "adam":
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    elif optim == "sgd":
        optimizer = torch.optim.SGD(net.parameters(), lr=1e-2, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2) if sched and optimizer is not None else None
    accelerator = _accelerator(**accel)
    net, loss_fn, metrics_dict, optimizer, scheduler = accelerator.prepare(
        net, loss_fn, metrics_dict, optimizer, scheduler)
    runner = StepRunner(net=net, loss_fn=loss_fn, accelerator=accelerator, stage=stage, metrics_dict=metrics_dict,
                        optimizer=optimizer, lr_scheduler=scheduler)

    def run(owner: Any, features: Any, labels: Any) -> Any:
        with torch.enable_grad():
            if accel.get("gradient_accumulation_steps"):
                with owner.accelerator.accumulate(owner.net):
                    return owner((features, labels))
            return owner((features, labels))

    module = _module(net, lambda _net, f, lab: run(runner, f, lab), [StepRunner.__call__])
    module.metrics = metrics_dict
    return module, (x, y), {}


def _epoch_runner(name: str) -> Built:
    import torch
    from torch import nn
    from torchkeras import metrics
    from torchkeras.kerasmodel import EpochRunner, StepRunner

    stage = "train" if name.endswith("train") else "val"
    net = _mlp()
    metrics_dict = nn.ModuleDict({"acc": metrics.Accuracy()})
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3) if stage == "train" else None
    accelerator = _accelerator()
    net, metrics_dict, optimizer = accelerator.prepare(net, metrics_dict, optimizer)
    step = StepRunner(net=net, loss_fn=nn.BCEWithLogitsLoss(), accelerator=accelerator, stage=stage,
                      metrics_dict=metrics_dict, optimizer=optimizer)
    epoch = EpochRunner(step, quiet=True)
    x, y = _xy()
    x2, y2 = _xy()

    def run(_net: Any, a: Any, b: Any, c: Any, d: Any) -> Any:
        with torch.enable_grad():
            return epoch([(a, b), (c, d)])

    module = _module(net, run, [EpochRunner.__call__])
    module.metrics = metrics_dict
    return module, (x, y, x2, y2), {}


def _keras_model(name: str) -> Built:
    import tempfile

    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset
    from torchkeras import KerasModel, metrics

    if name == "KerasModel.forward":
        model = KerasModel(_mlp(), nn.BCEWithLogitsLoss(), metrics_dict={"acc": metrics.Accuracy()})
        return model, (_xy()[0],), {}
    if name == "KerasModel.fit.tabular":
        return _tabular_fit()
    model = KerasModel(_mlp(), nn.BCEWithLogitsLoss(), metrics_dict={"acc": metrics.Accuracy()})
    x, y = _xy()
    folder = tempfile.mkdtemp(prefix="gt_torchkeras_")
    if name == "KerasModel.evaluate":
        def run(owner: Any, a: Any, b: Any) -> Any:
            return owner.evaluate([(a, b)], quiet=True)

        return _module(model, run, [KerasModel.evaluate]), (x, y), {}
    with_val = name.endswith("val_data")

    def fit(owner: Any, a: Any, b: Any) -> Any:
        data = DataLoader(TensorDataset(a, b), batch_size=4)
        val = DataLoader(TensorDataset(a, b), batch_size=4) if with_val else None
        _accelerator()
        with torch.enable_grad():
            history = owner.fit(data, val_data=val, epochs=1, ckpt_path=f"{folder}/checkpoint.pt", plot=False,
                                cpu=True, monitor="val_loss" if with_val else "train_loss")
        return torch.tensor(history.values[:, 1:].astype("float32"))

    return _module(model, fit, [KerasModel.fit]), (x, y), {}


# --------------------------------------------------------------------------------------------------- metrics


def _metrics(name: str) -> Built:
    import torch
    from torchkeras import metrics

    base = name.split(".")[0]
    if base == "IOU":
        if name.startswith("IOU.binary"):
            metric = metrics.IOU(1)
            preds, targets = torch.randn(2, 1, 6, 6), (torch.rand(2, 1, 6, 6) > 0.5).long()
        else:
            metric = metrics.IOU(3)
            preds, targets = torch.randn(2, 3, 6, 6), torch.randint(0, 3, (2, 6, 6))
    else:
        metric = getattr(metrics, base)()
        preds = torch.randn(BATCH, 1)
        targets = (torch.arange(BATCH) % 2).float()[:, None]
    if not name.endswith(".compute"):
        return metric, (preds, targets), {}

    def run(owner: Any, p: Any, t: Any) -> Any:
        owner(p, t)
        return owner.compute()

    return _module(metric, run, [type(metric).forward, type(metric).compute]), (preds, targets), {}


# --------------------------------------------------------------------------------------------------- summary


def _summary(name: str) -> Built:
    import torch
    from torch import nn
    from torchkeras.summary import summary

    kind = name.split(".", 1)[1]
    static: dict[str, Any] = {}
    if kind == "mlp":
        net, args = _mlp(), (torch.randn(2, FEATURES),)
    elif kind == "cnn":
        net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                            nn.Flatten(), nn.Linear(4, 2))
        args = (torch.randn(2, 1, 8, 8),)
    elif kind == "input_shape":
        net, args, static = _mlp(), (torch.zeros(1),), {"input_shape": (FEATURES,)}
    elif kind == "input_data_args":
        class _Two(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.a, self.b = nn.Linear(FEATURES, 3), nn.Linear(2, 3)

            def forward(self, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
                return self.a(x) + self.b(z)

        net, args = _Two(), (torch.randn(2, FEATURES), torch.randn(2, 2))
    elif kind == "multihead_attention":
        class _Attention(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
                self.out = nn.Linear(8, 1)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                h, _ = self.attn(x, x, x)
                return self.out(h)

        net, args = _Attention(), (torch.randn(2, 5, 8),)
    elif kind == "unet":
        from torchkeras.vision import UNet

        net, args = UNet(in_channels=1, num_classes=2, base_c=4), (torch.randn(2, 1, 16, 16),)
    else:
        model, batch = _tabular_model("CategoryEmbeddingModel", "binary")
        net, args = model, (batch,)

    def run(owner: Any, *inputs: Any) -> Any:
        if "input_shape" in static:
            return summary(owner, **static)
        if len(inputs) > 1:
            return summary(owner, input_data_args=inputs)
        return summary(owner, input_data=inputs[0])

    return _module(net, run, [summary]), args, {}


# --------------------------------------------------------------------------------------------------- vision


def _tiny_backbone() -> Any:
    from torch import nn

    class _Backbone(nn.Module):
        """Three stride-2 convolutions: 300 x 300 images to the 38 x 38 map SSD300's default boxes expect."""

        def __init__(self) -> None:
            super().__init__()
            self.out_channels = [16, 16, 16, 8, 8, 8]
            self.body = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.Conv2d(8, 16, 3, 2, 1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())

        def forward(self, x: Any) -> Any:
            return self.body(x)

    return _Backbone()


def _boxes(count: int, seed: int) -> Any:
    import torch

    g = torch.Generator().manual_seed(seed)
    low = torch.rand(count, 2, generator=g) * 0.5
    size = 0.1 + torch.rand(count, 2, generator=g) * 0.4
    return torch.cat([low, low + size], 1)


def _vision(name: str) -> Built:
    import torch
    from torchkeras.vision import ResNet50, SSD300, UNet, ssd

    if name == "ResNet50":
        return ResNet50(num_classes=10), (torch.randn(2, 3, 32, 32),), {}
    if name == "ResNet50.no_top":
        return ResNet50(include_top=False), (torch.randn(2, 3, 32, 32),), {}
    if name == "UNet":
        return UNet(in_channels=1, num_classes=2, base_c=4), (torch.randn(2, 1, 16, 16),), {}
    if name == "UNet.transposed":
        return UNet(in_channels=1, num_classes=2, bilinear=False, base_c=4), (torch.randn(2, 1, 16, 16),), {}
    if name == "UNet.rgb_3_classes":
        return UNet(in_channels=3, num_classes=3, base_c=4), (torch.randn(2, 3, 24, 24),), {}
    if name == "SSD300.tiny_backbone":
        return SSD300(num_classes=3, backbone=_tiny_backbone()), (torch.randn(2, 3, 300, 300),), {}
    if name == "SSD300.tiny_backbone.targets":
        net = SSD300(num_classes=3, backbone=_tiny_backbone())

        def run(owner: Any, image: Any, boxes_a: Any, labels_a: Any, boxes_b: Any, labels_b: Any) -> Any:
            targets = [{"boxes": boxes_a, "labels": labels_a}, {"boxes": boxes_b, "labels": labels_b}]
            return owner(image, targets)["loss"]

        args = (torch.randn(2, 3, 300, 300), _boxes(2, 1), torch.tensor([1, 2]), _boxes(3, 2), torch.tensor([2, 1, 1]))
        return _module(net, run, [SSD300]), args, {}
    if name == "SSD300.resnet50":
        return SSD300(num_classes=3), (torch.randn(2, 3, 300, 300),), {}
    dboxes = ssd.dboxes300_coco()
    anchors = dboxes(order="ltrb").shape[0]
    if name == "ssd.Loss":
        glabel = torch.zeros(2, anchors, dtype=torch.long)
        glabel[:, ::50] = 1
        gloc = dboxes(order="xywh").t()[None].repeat(2, 1, 1)
        args = (torch.randn(2, 4, anchors), torch.randn(2, 3, anchors), gloc, glabel)
        return ssd.Loss(dboxes), args, {}
    if name == "ssd.Encoder.encode":
        encoder = ssd.Encoder(dboxes)

        def encode(owner: Any, boxes: Any, labels: Any) -> Any:
            return owner.encode(boxes, labels)

        return _module(torch.nn.Identity(), lambda _o, b, lab: encode(encoder, b, lab), [ssd.Encoder.encode]), (
            _boxes(3, 3), torch.tensor([1, 2, 1])), {}
    if name == "ssd.PostProcess.scale_back_batch":
        from gt_calls import Method

        return Method(ssd.PostProcess(dboxes), "scale_back_batch"), (
            torch.randn(2, 4, anchors), torch.randn(2, 3, anchors)), {}
    if name == "ssd.calc_iou_tensor":
        from gt_calls import Call

        return Call(ssd.calc_iou_tensor), (_boxes(3, 4), _boxes(5, 5)), {}
    from gt_calls import Call

    return Call(ssd.box_area), (_boxes(4, 6),), {}


# --------------------------------------------------------------------------------------------------- tabular


def _frame(data: str = "mixed") -> tuple[Any, list[str], list[str]]:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "c0": rng.integers(0, 4, BATCH), "c1": rng.integers(0, 3, BATCH),
        "x0": rng.normal(size=BATCH), "x1": rng.normal(size=BATCH), "x2": rng.normal(size=BATCH),
        "yb": (np.arange(BATCH) % 2).astype(float), "ym": np.arange(BATCH) % 3, "yr": rng.normal(size=BATCH),
    })
    frame.loc[0, "c0"], frame.loc[1, "c1"] = 3, 2  # every category present, so cardinalities are fixed
    continuous = [] if data == "categorical" else ["x0", "x1", "x2"]
    categorical = [] if data == "continuous" else ["c0", "c1"]
    return frame, continuous, categorical


def _dataset(task: str, data: str = "mixed") -> Any:
    _import()
    from torchkeras.tabular import TabularDataset

    frame, continuous, categorical = _frame(data)
    target = {"regression": ["yr"], "binary": ["yb"], "multiclass": ["ym"]}[task]
    return TabularDataset(frame, task, continuous_cols=continuous, categorical_cols=categorical, target=target)


def _tabular_model(model: str, task: str, extra: dict[str, Any] | None = None, data: str = "mixed") -> Any:
    import numpy as np
    import torch

    _import()
    from torchkeras.tabular import models

    torch.manual_seed(0)
    config_name, model_name, keywords = _TAB_MODELS[model]
    dataset = _dataset(task, data)
    config = getattr(models, config_name)(task=task, **{**keywords, **(extra or {})}).merge_dataset_config(dataset)
    config.batch_size = BATCH  # DANet caps its ghost batch size by it
    batch = dataset.get_batch(np.arange(BATCH))
    # The dataset gives a 1-d empty tensor for a missing kind of column, which the embedding layers cannot index;
    # a user's batch then carries an empty (batch, 0) block.
    if data == "continuous":
        batch["categorical"] = torch.empty(BATCH, 0, dtype=torch.long)
    elif data == "categorical":
        batch["continuous"] = torch.empty(BATCH, 0)
    net = getattr(models, model_name)(config)
    if model == "NODEModel":
        _warm_up(net, batch)
    return net, batch


def _warm_up(net: Any, *inputs: Any) -> None:
    """Run the data-aware initialization of NODE's trees (``ModuleWithInit``, on the first call) eagerly: Dynamo
    fails with an internal error (fake tensors) inside it, so the compiled model is the initialized one."""
    import torch

    with torch.no_grad():
        net(*inputs)


def _knn_contexts(task: str) -> dict[str, Any]:
    import numpy as np

    config = _TAB_MODELS["DeepKNNModel"][2]
    return _dataset(task).get_batch(np.arange(BATCH * config["context_size"]) % BATCH)


def _tabular(name: str) -> Built:
    rest = name[len("tabular."):]
    if rest.startswith("layers."):
        return _layers(rest[len("layers."):])
    if rest.startswith("StepRunner."):
        stage, model = rest.split(".")[1:3]
        return _tabular_step(model, stage)
    if rest.endswith(".predict"):
        from gt_calls import Method

        net, batch = _tabular_model(rest.split(".")[0], "binary")
        return Method(net, "predict"), (batch,), {}
    if rest in _VARIANTS:
        model, task, extra, data = _VARIANTS[rest]
        net, batch = _tabular_model(model, task, extra, data)
        if rest == "DeepKNNModel.pretrain_encoder":
            net.pretrain_encoder = True
        elif model == "DeepKNNModel":
            return net, (batch,), {"contexts": _knn_contexts(task)}
        return net, (batch,), {}
    model, task = rest.rsplit(".", 1)
    net, batch = _tabular_model(model, task)
    if model == "DeepKNNModel":
        return net, (batch,), {"contexts": _knn_contexts(task)}
    return net, (batch,), {}


def _tabular_step(model: str, stage: str) -> Built:
    import torch
    from torch import nn

    _import()
    from torchkeras import metrics
    from torchkeras.tabular import StepRunner

    net, batch = _tabular_model(model, "binary")
    if model == "DeepKNNModel":
        contexts = _knn_contexts("binary")
        inner = net

        class _WithContexts(nn.Module):
            """DeepKNN given its contexts (no faiss index), with the model's loss, as the step's net."""

            def __init__(self) -> None:
                super().__init__()
                self.inner = inner

            def forward(self, b: Any) -> Any:
                return self.inner(b, contexts=contexts)

            def compute_loss(self, output: Any, y: Any) -> Any:
                return self.inner.compute_loss(output, y)

        net = _WithContexts()
    metrics_dict = nn.ModuleDict({"acc": metrics.Accuracy()})
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3) if stage == "train" else None
    accelerator = _accelerator()
    net, metrics_dict, optimizer = accelerator.prepare(net, metrics_dict, optimizer)
    runner = StepRunner(net=net, loss_fn=None, accelerator=accelerator, stage=stage, metrics_dict=metrics_dict,
                        optimizer=optimizer)
    def run(_net: Any, b: Any) -> Any:
        with torch.enable_grad():
            return runner(b)

    module = _module(net, run, [StepRunner.__call__])
    module.metrics = metrics_dict
    return module, (batch,), {}


def _tabular_fit() -> Built:
    import tempfile

    import torch
    from torch.utils.data import DataLoader

    _import()
    from torchkeras import KerasModel
    from torchkeras.tabular import StepRunner as TabularStepRunner

    net, batch = _tabular_model("CategoryEmbeddingModel", "binary")
    dataset = _dataset("binary")
    folder = tempfile.mkdtemp(prefix="gt_torchkeras_")

    class _TabularKeras(KerasModel):
        StepRunner = TabularStepRunner

    model = _TabularKeras(net, loss_fn=None)

    def fit(owner: Any, _batch: Any) -> Any:
        _accelerator()
        with torch.enable_grad():
            history = owner.fit(DataLoader(dataset, batch_size=4), val_data=DataLoader(dataset, batch_size=4),
                                epochs=1, ckpt_path=f"{folder}/checkpoint.pt", plot=False, cpu=True)
        return torch.tensor(history.values[:, 1:].astype("float32"))

    return _module(model, fit, [KerasModel.fit, TabularStepRunner.__call__]), (batch,), {}


def _layers(name: str) -> Built:
    import torch

    _import()
    from torchkeras.tabular.models.common import layers
    from torchkeras.tabular.models.common.layers import activations, batch_norm, gated_units

    if name == "Entmax15":
        return activations.Entmax15(dim=-1), (torch.randn(4, 6),), {}
    if name == "Sparsemax":
        return activations.Sparsemax(dim=-1), (torch.randn(4, 6),), {}
    if name == "TSoftmax":
        return activations.TSoftmax(dim=-1), (torch.randn(4, 6), torch.rand(4, 1)), {}
    if name == "RSoftmax":
        return activations.RSoftmax(dim=-1), (torch.randn(4, 6), torch.rand(4, 1) * 0.5), {}
    if name == "GBN":
        return batch_norm.GBN(6, virtual_batch_size=4), (torch.randn(8, 6),), {}
    if name == "ODST":
        layer, x = layers.ODST(6, num_trees=4, depth=2, tree_output_dim=2), torch.randn(8, 6)
        _warm_up(layer, x)
        return layer, (x,), {}
    return gated_units.GEGLU(8, 16), (torch.randn(2, 3, 8),), {}


# --------------------------------------------------------------------------------------------------- build


def build(name: str) -> Built:
    import torch

    if name not in names():
        raise KeyError(name)
    torch.manual_seed(0)
    _import()
    if name.startswith("StepRunner."):
        return _step_runner(name)
    if name.startswith("EpochRunner."):
        return _epoch_runner(name)
    if name.startswith("KerasModel."):
        return _keras_model(name)
    if name in METRICS:
        return _metrics(name)
    if name.startswith("summary."):
        return _summary(name)
    if name in VISION:
        return _vision(name)
    return _tabular(name)
