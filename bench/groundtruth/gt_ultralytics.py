"""Ground-truth bench, ultralytics: YOLO models built from the package's own YAML configs, called as its
predictor and its trainer call them, and building blocks of ``ultralytics.nn.modules``.

ultralytics 8.4.190 builds every model from a YAML config bundled in ``ultralytics/cfg/models`` (the
scale letter in the name picks width and depth: ``yolo11n.yaml`` is ``yolo11.yaml`` at scale ``n``).
Its predictor and trainer compile the whole model (``attempt_compile``); the predictor then calls it on
an image tensor, the trainer on a batch dict (``loss, items = model(batch)``: ``BaseModel.loss`` runs the
forward, then the task's criterion). A whole model takes tens of seconds to trace here, so:

- ``IMAGES``: two detection models compiled whole, ``model(images)``: YOLOv8 (DFL head) and YOLO26 (the
  default config, end-to-end head). In eval mode the head decodes its boxes (the predictor's NMS is left
  out: it needs torchvision's compiled operators), in train mode it returns its raw outputs;
- ``<model>.loss``: the criterion of each of ``MODELS`` (``DetectionModel``, ``SegmentationModel``,
  ``PoseModel``, ``OBBModel``, ``ClassificationModel``, ``RTDETRDetectionModel``, built from a config
  at scale ``n``, ``rtdetr-l`` at its own), ``model.loss(batch, preds)`` as the trainer's call ends in it,
  on the outputs of one eager training forward and a batch dict with synthetic labels for the task
  (boxes, overlapping instance masks, keypoints, rotated boxes, class indices) as the trainer's collate
  builds it: ``v8DetectionLoss``, ``E2ELoss``, ``v8SegmentationLoss``, ``v8PoseLoss``, ``v8OBBLoss``,
  ``v8ClassificationLoss`` and ``RTDETRDetectionLoss`` (with the decoder's denoising queries). The models
  get what the trainer attaches: ``nc`` and ``args`` (the default hyperparameters of ``get_cfg()``);
- ``HEADS`` and ``BLOCKS``: the heads of ``ultralytics.nn.modules`` (detection with and without DFL,
  end-to-end, YOLOv10's, segmentation, pose, oriented boxes, RT-DETR's decoder) on a small feature
  pyramid, and the blocks that set the other families apart (YOLO12's area attention, YOLOv10's,
  YOLO11's, YOLO-World's, RT-DETR's, YOLOv9's, YOLOv5's ...), at small channel counts, as users put
  them into their own configs.

Images are 2 x 3 x 64 x 64; random weights, nothing downloaded. Importing this module sets
``YOLO_OFFLINE`` (no connectivity probe when ultralytics is imported), ``YOLO_AUTOINSTALL=False`` and
``YOLO_CONFIG_DIR`` (a folder under the temporary directory, for its settings file) unless they are
set: the driver imports it to list the models before it starts the workers that import ultralytics, so
they inherit them. ``names()`` needs no torch; ``build(name)`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "False")
os.environ.setdefault("YOLO_CONFIG_DIR", os.path.join(tempfile.gettempdir(), "gt-ultralytics"))

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SIDE, NC = 2, 64, 4  # images per batch, image side, classes

# Model name -> (class of ``ultralytics.nn.tasks``, config): the configs' names pick the scale.
MODELS: dict[str, tuple[str, str]] = {
    "yolov8n": ("DetectionModel", "yolov8n.yaml"),
    "yolo26n": ("DetectionModel", "yolo26n.yaml"),
    "yolo11n-seg": ("SegmentationModel", "yolo11n-seg.yaml"),
    "yolo11n-pose": ("PoseModel", "yolo11n-pose.yaml"),
    "yolo11n-obb": ("OBBModel", "yolo11n-obb.yaml"),
    "yolo11n-cls": ("ClassificationModel", "yolo11n-cls.yaml"),
    "rtdetr-l": ("RTDETRDetectionModel", "rtdetr-l.yaml"),
}
IMAGES = ("yolov8n", "yolo26n")  # compiled whole on images: ``model(images)``, the predictor's call
LOSSES = tuple(MODELS)  # ``<model>.loss``: ``model.loss(batch, preds)``, the criterion

# Head name -> (class of ``ultralytics.nn.modules``, positional arguments), on a pyramid of three maps
# of 16, 32 and 64 channels at sides 8, 4 and 2.
HEADS: dict[str, tuple[str, tuple[Any, ...]]] = {
    "Detect": ("Detect", (NC, 16, False, (16, 32, 64))),
    "Detect.end2end": ("Detect", (NC, 1, True, (16, 32, 64))),  # YOLO26's head: one-to-one, no DFL
    "v10Detect": ("v10Detect", (NC, (16, 32, 64))),
    "Segment": ("Segment", (NC, 8, 16, 16, False, (16, 32, 64))),
    "Pose": ("Pose", (NC, (5, 3), 16, False, (16, 32, 64))),
    "OBB": ("OBB", (NC, 1, 16, False, (16, 32, 64))),
    "RTDETRDecoder": ("RTDETRDecoder", (NC, (16, 32, 64), 32, 20, 2, 4, 2, 64)),
}
# Block name -> (class of ``ultralytics.nn.modules``, positional arguments, input): "C:S" a map of C
# channels and side S, "guide:C:S" a map and text embeddings, "pyramid" as the heads' (the text
# embeddings as well).
BLOCKS: dict[str, tuple[str, tuple[Any, ...], str]] = {
    "A2C2f": ("A2C2f", (64, 64, 1, True, 4), "64:8"),  # YOLO12's area attention
    "SCDown": ("SCDown", (16, 32, 3, 2), "16:16"),  # YOLOv10's
    "C2fCIB": ("C2fCIB", (32, 32, 1, True, True), "32:8"),
    "PSA": ("PSA", (128, 128), "128:4"),
    "C2PSA": ("C2PSA", (128, 128, 1), "128:4"),  # YOLO11's
    "C2fAttn": ("C2fAttn", (32, 32, 1, 16, 2, 64), "guide:32:8"),  # YOLO-World's
    "ImagePoolingAttn": ("ImagePoolingAttn", (64, (16, 32, 64), 64, 4), "pyramid"),
    "AIFI": ("AIFI", (32, 64, 4), "32:8"),  # RT-DETR's
    "HGBlock": ("HGBlock", (32, 16, 64, 3, 3, True), "32:8"),
    "C3Ghost": ("C3Ghost", (16, 32, 1), "16:16"),
    "C3TR": ("C3TR", (32, 32, 1), "32:8"),  # YOLOv5's
    "RepNCSPELAN4": ("RepNCSPELAN4", (16, 32, 32, 16, 1), "16:16"),  # YOLOv9's
    "ADown": ("ADown", (16, 32), "16:16"),
    "CBAM": ("CBAM", (16,), "16:16"),
}


def names() -> list[str]:
    return (list(IMAGES) + [f"{m}.loss" for m in LOSSES] + [f"head.{h}" for h in HEADS]
            + [f"block.{b}" for b in BLOCKS])


def _model(name: str) -> Any:
    """``MODELS[name]`` with random weights, and what ``DetectionTrainer.set_model_attributes`` attaches."""
    from ultralytics.cfg import get_cfg
    from ultralytics.nn import tasks

    cls, config = MODELS[name]
    model = getattr(tasks, cls)(config, nc=NC, verbose=False)
    model.nc, model.args = NC, get_cfg()
    return model


def _batch(name: str, model: Any) -> dict[str, Any]:
    """A training batch as ultralytics' collate function builds it: images, and labels for the model's task."""
    import torch

    gen = torch.Generator().manual_seed(1)
    cls = MODELS[name][0]
    img = torch.rand(BATCH, 3, SIDE, SIDE, generator=gen)
    if cls == "ClassificationModel":
        return {"img": img, "cls": torch.randint(0, NC, (BATCH,), generator=gen)}
    # three objects: two in the first image, one in the second (normalised centre, width, height)
    batch_idx = torch.tensor([0.0, 0.0, 1.0])
    boxes = torch.tensor([[0.5, 0.5, 0.4, 0.5], [0.3, 0.25, 0.3, 0.3], [0.6, 0.55, 0.5, 0.4]])
    batch: dict[str, Any] = {"img": img, "batch_idx": batch_idx, "cls": torch.tensor([[0.0], [1.0], [3.0]]),
                             "bboxes": boxes}
    if cls == "OBBModel":
        batch["bboxes"] = torch.cat([boxes, torch.tensor([[0.3], [-0.5], [1.0]])], 1)  # xywh and an angle
    if cls == "PoseModel":
        shape = model.kpt_shape
        points = torch.rand(3, shape[0], 2, generator=gen) * 0.2 - 0.1 + boxes[:, None, :2]
        batch["keypoints"] = torch.cat([points, torch.ones(3, shape[0], 1)], -1) if shape[1] == 3 else points
    if cls == "SegmentationModel":  # overlapping masks (one map per image, 1 + object index) at a quarter size
        side = SIDE // 4
        masks = torch.zeros(BATCH, side, side)
        for i, (b, box) in enumerate(zip(batch_idx.long().tolist(), boxes)):
            x, y, w, h = (box * side).long().tolist()
            masks[b, y - h // 2:y + h // 2, x - w // 2:x + w // 2] = float(i + 1 - (2 if b else 0))
        batch["masks"] = masks
    return batch


def _criterion(name: str) -> Built:
    """``model.loss(batch, preds)`` on the predictions of one eager training forward (as fresh leaves)."""
    import torch
    from torch import nn
    from torch.utils._pytree import tree_map

    model = _model(name)
    batch = _batch(name, model)
    model.train()
    model.criterion = model.init_criterion()
    if MODELS[name][0] == "RTDETRDetectionModel":  # its decoder adds denoising queries from the targets,
        # which ``RTDETRDetectionModel.loss`` builds from the batch so
        groups = [int((batch["batch_idx"] == i).sum()) for i in range(BATCH)]
        targets = {"cls": batch["cls"].long().view(-1), "bboxes": batch["bboxes"],
                   "batch_idx": batch["batch_idx"].long().view(-1), "gt_groups": groups}
        preds = model.predict(batch["img"], batch=targets)
    else:
        preds = model.predict(batch["img"])

    def leaf(t: Any) -> Any:  # a leaf that needs gradients, as the network's outputs do
        return t.detach().requires_grad_(t.is_floating_point()) if isinstance(t, torch.Tensor) else t

    preds = tree_map(leaf, preds)

    class _Loss(nn.Module):
        """The criterion as the trainer's ``model(batch)`` ends in it. The model stays in train mode, as in
        the trainer, whichever mode the harness asks for (``RTDETRDetectionModel.loss`` reads its
        predictions by it)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, batch: dict[str, Any], preds: Any) -> Any:
            return self.model.loss(batch, preds)

        def train(self, mode: bool = True) -> Any:
            super().train(mode)
            self.model.train()
            return self

        def entry_points(self) -> list[Any]:
            return [type(model).loss, type(model.criterion).__call__]

    return _Loss(), (batch, preds), {}


def _inputs(kind: str) -> tuple[Any, ...]:
    """Example inputs of one kind (see the comment above ``BLOCKS``), from a seeded generator."""
    import torch

    gen = torch.Generator().manual_seed(0)
    text = torch.randn(BATCH, NC, 64, generator=gen)
    if kind == "pyramid":
        return ([torch.randn(BATCH, 16 * 2**i, 8 >> i, 8 >> i, generator=gen) for i in range(3)], text)
    guide = kind.startswith("guide:")
    channels, side = (int(v) for v in kind.removeprefix("guide:").split(":"))
    x = torch.randn(BATCH, channels, side, side, generator=gen)
    return (x, text) if guide else (x,)


def _head(name: str) -> Built:
    import torch
    from ultralytics.nn import modules

    cls, args = HEADS[name]
    head = getattr(modules, cls)(*args)
    if isinstance(head, modules.Detect):
        head.stride = torch.tensor([8.0, 16.0, 32.0])  # what ``DetectionModel`` computes for its head
        head.bias_init()
    return head, _inputs("pyramid")[:1], {}


def _block(name: str) -> Built:
    from ultralytics.nn import modules

    cls, args, kind = BLOCKS[name]
    return getattr(modules, cls)(*args), _inputs(kind), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    group, _, rest = name.partition(".")
    if group == "head":
        return _head(rest)
    if group == "block":
        return _block(rest)
    if name.endswith(".loss"):
        return _criterion(name.removesuffix(".loss"))
    gen = torch.Generator().manual_seed(0)
    return _model(name), (torch.rand(BATCH, 3, SIDE, SIDE, generator=gen),), {}
