"""Ground-truth bench, effdet: EfficientDet (Tan 2020) in PyTorch, its detection benches, anchors, losses and NMS.

effdet 0.4.1 (Ross Wightman) builds ``EfficientDet`` from an OmegaConf config (``get_efficientdet_config``,
``create_model`` / ``create_model_from_config``): a timm backbone (``features_only``), a ``BiFpn`` of
``BiFpnLayer`` s whose nodes (``Fnode``: ``FpnCombine`` of ``ResampleFeatureMap`` s weighted by ``attn``,
``fastattn`` or ``sum``, then a separable or plain conv) follow a BiFPN, PAN or quad-FPN graph, and two
``HeadNet`` s (class and box, batch norms repeat-first or level-first). ``DetBenchTrain`` labels the targets
with an ``AnchorLabeler`` (``TargetAssigner``: ``IouSimilarity``, ``ArgMaxMatcher``, ``FasterRcnnBoxCoder``) or
takes them precomputed, and computes ``DetectionLoss`` (new or legacy focal loss, label smoothing, a huber box
loss, optionally the TorchScript ``loss_jit``); in eval mode it also decodes detections. ``DetBenchPredict``
selects the top-k class logits (``_post_process``) and runs ``generate_detections`` per image (box decoding,
clipping to the image, ``batched_nms`` or ``batched_soft_nms``, padding to ``max_det_per_image``). So the tables
cover, at 2 images of 128 x 128 and 4 classes, most models on timm's tiny ``test_efficientnet`` backbone with a
narrow FPN and head:

- ``MODELS``: the raw forward (class and box outputs per level) of the smallest real configs
  (``tf_efficientdet_lite0``, ``efficientdet_d0``) and of variants: FPN types (``bifpn_fa``, ``bifpn_sum``,
  ``bifpn_attn``, ``pan_fa``, ``qufpn_fa``), plain convs, redundant bias, TF "same" padding, bilinear and
  average resampling, the conv-bn-relu pattern, level-first head batch norms, other activations (leaky ReLU,
  a Mish head), four levels, other backbones (a ResNet, MobileNetV3) and a reset head (classes, aspect ratios,
  scales);
- ``PREDICT``: ``DetBenchPredict`` with hard NMS (the coordinate trick and, past 1,000 boxes, the per-class
  loop), soft-NMS, image info (scales and sizes: clipping and rescaling), and ``create_model(bench_task=
  "predict")`` at the real ``tf_efficientdet_lite0`` config;
- ``TRAIN_BENCH``: ``DetBenchTrain`` (targets padded with class -1) with the labeler inside and with
  precomputed anchor labels, legacy focal loss, the jitted loss, soft-NMS in its eval pass, and
  ``create_model_from_config(bench_task="train")`` at the real ``tf_efficientdet_lite0`` config;
- ``PIECES``: ``Anchors`` box generation, ``get_feat_sizes``, ``AnchorLabeler.label_anchors`` and
  ``batch_label_anchors`` (filtered or not), ``TargetAssigner.assign``, ``ArgMaxMatcher.match`` (empty and
  non-empty rows, forced matches, both negative modes), ``IouSimilarity``, ``FasterRcnnBoxCoder`` encode /
  decode with and without scale factors, ``decode_box_outputs``, ``clip_boxes_xyxy``,
  ``generate_detections`` (hard and soft NMS, with and without image info), ``_post_process``,
  ``_batch_detection``, ``soft_nms`` (gaussian and linear), ``batched_soft_nms``, ``pairwise_iou``, the losses
  (``focal_loss_legacy``, ``new_focal_loss``, ``huber_loss``, ``smooth_l1_loss``, ``_box_loss``, ``one_hot``,
  ``loss_fn``, ``loss_jit``, ``DetectionLoss``) and the layers (``SeparableConv2d``, ``ConvBnAct2d``,
  ``Interpolate2d``, ``ResampleFeatureMap``, ``FpnCombine``, ``BiFpn``, ``HeadNet``);
- ``TRAIN``: train steps (the loss, ``backward`` and an SGD or AdamW step) through ``DetBenchTrain``, through the
  raw model and ``DetectionLoss`` on precomputed labels, and through the loss alone.

Random weights (``pretrained=False``, ``pretrained_backbone=False``) and inputs from fixed generators, nothing
downloaded. effdet imports timm and torchvision: ``before_import()`` lets torchvision's CUDA build import on this
CPU torch (``gt_models.allow_torchvision_import``) and gives its ``torchvision::nms`` operator a CPU kernel written
here in plain torch, with torchvision's check for its compiled ops answered yes, before effdet scripts
``_batch_detection`` (so the hard-NMS path runs). ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
SIDE = 128
CLASSES = 4
BOXES = 5  # ground-truth boxes per image
TINY: dict[str, Any] = {"backbone_name": "test_efficientnet", "fpn_channels": 16, "fpn_cell_repeats": 1,
                        "box_class_repeats": 1, "max_detection_points": 100, "max_det_per_image": 20}

# Model name -> (base config, config overrides over ``TINY`` (None: the real config, not made tiny)).
MODELS: dict[str, tuple[str, dict[str, Any] | None]] = {
    "model.tf_efficientdet_lite0": ("tf_efficientdet_lite0", None),
    "model.efficientdet_d0": ("efficientdet_d0", None),
    "model.tiny": ("efficientdet_d0", {}),
    "model.fpn.bifpn_sum": ("efficientdet_d0", {"fpn_name": "bifpn_sum"}),
    "model.fpn.bifpn_attn": ("efficientdet_d0", {"fpn_name": "bifpn_attn"}),
    "model.fpn.pan_fa": ("efficientdet_d0", {"fpn_name": "pan_fa"}),
    "model.fpn.qufpn_fa": ("efficientdet_d0", {"fpn_name": "qufpn_fa"}),
    "model.plain_conv": ("efficientdet_d0", {"separable_conv": False}),
    "model.redundant_bias": ("efficientdet_d0", {"redundant_bias": True}),
    "model.pad_same": ("tf_efficientdet_d0", {"backbone_name": "test_efficientnet"}),
    "model.bilinear_resample": ("efficientdet_d0", {"downsample_type": "bilinear", "upsample_type": "bilinear"}),
    "model.avg_downsample": ("efficientdet_d0", {"downsample_type": "avg"}),
    "model.conv_bn_relu": ("efficientdet_d0", {"conv_bn_relu_pattern": True}),
    "model.head_bn_level_first": ("efficientdet_d0", {"head_bn_level_first": True}),
    "model.act.leaky_relu.head_mish": ("efficientdet_d0", {"act_type": "leaky_relu", "head_act_type": "mish"}),
    "model.four_levels": ("efficientdet_d0", {"max_level": 6, "num_levels": 4}),
    "model.backbone.resnet": ("resdet50", {"backbone_name": "test_resnet"}),
    "model.backbone.mobilenetv3": ("mobiledetv3_large", {"backbone_name": "mobilenetv3_small_050"}),
    "model.reset_head": ("efficientdet_d0", {}),
}
# Predict name -> (base config, overrides over ``TINY`` or None, with image info).
PREDICT: dict[str, tuple[str, dict[str, Any] | None, bool]] = {
    "predict.tiny": ("efficientdet_d0", {}, False),
    "predict.img_info": ("efficientdet_d0", {}, True),
    "predict.soft_nms": ("efficientdet_d0", {"soft_nms": True, "max_detection_points": 24}, False),
    "predict.many_points": ("efficientdet_d0", {"max_detection_points": 2000, "max_det_per_image": 100}, True),
    "predict.create_model": ("tf_efficientdet_lite0", None, True),
}
# Train-bench name -> (base config, overrides over ``TINY`` or None, labeler inside the bench).
TRAIN_BENCH: dict[str, tuple[str, dict[str, Any] | None, bool]] = {
    "train_bench.labeler": ("efficientdet_d0", {}, True),
    "train_bench.precomputed": ("efficientdet_d0", {}, False),
    "train_bench.legacy_focal": ("efficientdet_d0", {"legacy_focal": True}, True),
    "train_bench.jit_loss": ("efficientdet_d0", {"jit_loss": True}, False),
    "train_bench.soft_nms": ("efficientdet_d0", {"soft_nms": True, "max_detection_points": 24}, True),
    "train_bench.tf_efficientdet_lite0": ("tf_efficientdet_lite0", None, True),
}
PIECES = (
    "anchors.generate_boxes", "anchors.get_feat_sizes",
    "labeler.label_anchors", "labeler.label_anchors.unfiltered", "labeler.batch_label_anchors",
    "labeler.batch_label_anchors.unfiltered", "assigner.assign", "matcher.match", "matcher.match.empty_rows",
    "matcher.match.no_force", "matcher.match.negatives_between", "similarity.iou",
    "box_coder.encode", "box_coder.encode.scaled", "box_coder.decode", "box_coder.decode.scaled",
    "decode_box_outputs", "decode_box_outputs.xyxy", "clip_boxes_xyxy",
    "generate_detections", "generate_detections.img_info", "generate_detections.soft_nms",
    "post_process", "batch_detection", "batch_detection.soft_nms",
    "soft_nms.gaussian", "soft_nms.linear", "batched_soft_nms", "pairwise_iou",
    "loss.focal_loss_legacy", "loss.new_focal_loss", "loss.new_focal_loss.smoothing", "loss.huber",
    "loss.huber.weights_sum", "loss.smooth_l1", "loss.smooth_l1.l1", "loss.box_loss", "loss.one_hot",
    "loss.loss_fn", "loss.loss_fn.legacy", "loss.loss_jit", "loss.DetectionLoss",
    "layers.SeparableConv2d", "layers.ConvBnAct2d", "layers.Interpolate2d", "layers.Resample.down",
    "layers.Resample.up", "layers.FpnCombine.attn", "layers.FpnCombine.fastattn", "layers.FpnCombine.sum",
    "layers.BiFpn", "layers.HeadNet", "layers.HeadNet.level_first",
)
# Train-step name -> (what runs, optimizer).
TRAIN: dict[str, tuple[str, str]] = {
    "train_step.bench.sgd": ("bench", "sgd"),
    "train_step.bench.precomputed": ("bench_precomputed", "adamw"),
    "train_step.raw_model.DetectionLoss": ("raw", "adamw"),
    "train_step.loss_fn.heads": ("loss", "none"),
}

_NMS_READY: list[bool] = []


def names() -> list[str]:
    return list(MODELS) + list(PREDICT) + list(TRAIN_BENCH) + list(PIECES) + list(TRAIN)


def before_import() -> None:
    """torchvision importable, and its ``nms`` operator given a CPU kernel (in plain torch) before effdet is
    imported: effdet scripts ``_batch_detection`` at import, which compiles torchvision's ``_assert_has_ops``."""
    import gt_models

    gt_models.allow_torchvision_import()
    if _NMS_READY:
        return
    import torch
    import torchvision.extension

    def has_ops() -> bool:
        return True

    torchvision.extension._has_ops = has_ops
    try:
        torch.library.impl("torchvision::nms", "CPU", _nms_kernel)
    except RuntimeError:
        pass
    _NMS_READY.append(True)


def _nms_kernel(dets: Any, scores: Any, iou_threshold: float) -> Any:
    """Greedy hard NMS on the CPU: the kept indices, by decreasing score."""
    import torch

    order = scores.argsort(descending=True)
    boxes = dets[order]
    x1, y1, x2, y2 = boxes.unbind(1)
    areas = (x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0)
    suppressed = torch.zeros(len(order), dtype=torch.bool)
    keep = []
    for i in range(len(order)):
        if bool(suppressed[i]):
            continue
        keep.append(i)
        width = (torch.minimum(x2[i], x2) - torch.maximum(x1[i], x1)).clamp(min=0)
        height = (torch.minimum(y2[i], y2) - torch.maximum(y1[i], y1)).clamp(min=0)
        inter = width * height
        suppressed |= inter / (areas[i] + areas - inter).clamp(min=1e-9) > iou_threshold
    return order[torch.tensor(keep, dtype=torch.long)]


def _gen(seed: int = 1) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _config(base: str, overrides: dict[str, Any] | None) -> Any:
    from effdet import get_efficientdet_config

    config = get_efficientdet_config(base)
    config.image_size = [SIDE, SIDE]
    config.num_classes = CLASSES
    if overrides is None:
        config.max_detection_points = 500
        config.max_det_per_image = 50
        return config
    for key, value in {**TINY, **overrides}.items():
        setattr(config, key, value)
    return config


def _images(config: Any, batch: int = BATCH, seed: int = 1) -> Any:
    import torch

    height, width = config.image_size
    return torch.randn(batch, 3, height, width, generator=_gen(seed))


def _gt(batch: int = BATCH, padded: bool = False, seed: int = 2) -> tuple[Any, Any]:
    """Ground-truth boxes (y0, x0, y1, x1 in pixels) and classes (1 .. CLASSES, -1 where padded)."""
    import torch

    g = _gen(seed)
    corner = torch.rand(batch, BOXES, 2, generator=g) * (SIDE * 0.6)
    size = 12 + torch.rand(batch, BOXES, 2, generator=g) * (SIDE * 0.35)
    boxes = torch.cat([corner, corner + size], dim=-1)
    classes = (torch.arange(batch * BOXES).reshape(batch, BOXES) % CLASSES + 1).float()
    if padded:
        classes[:, -2:] = -1
        boxes[:, -2:] = -1
    return boxes, classes


def _target(config: Any, batch: int = BATCH, padded: bool = False, precomputed: Any = None) -> dict[str, Any]:
    import torch

    boxes, classes = _gt(batch, padded)
    target = {"bbox": boxes, "cls": classes, "img_scale": torch.ones(batch),
              "img_size": torch.tensor([list(config.image_size)[::-1]] * batch, dtype=torch.float)}
    if precomputed is not None:
        cls_targets, box_targets, num_positives = precomputed.batch_label_anchors(boxes, classes)
        for level, (c, b) in enumerate(zip(cls_targets, box_targets)):
            target[f"label_cls_{level}"] = c
            target[f"label_bbox_{level}"] = b
        target["label_num_positives"] = num_positives
    return target


def _model(name: str) -> Built:
    from effdet import EfficientDet

    base, overrides = MODELS[name]
    config = _config(base, overrides)
    model = EfficientDet(config, pretrained_backbone=False)
    if name == "model.reset_head":
        model.reset_head(num_classes=3, aspect_ratios=[(1.0, 1.0), (1.4, 0.7)], num_scales=2)
    return model, (_images(config),), {}


def _predict(name: str) -> Built:
    import torch
    from effdet import DetBenchPredict, EfficientDet, create_model

    base, overrides, info = PREDICT[name]
    config = _config(base, overrides)
    if name == "predict.create_model":
        bench = create_model(base, bench_task="predict", num_classes=CLASSES, pretrained=False,
                             pretrained_backbone=False, image_size=[SIDE, SIDE], max_det_per_image=50)
        config = bench.config
    else:
        bench = DetBenchPredict(EfficientDet(config, pretrained_backbone=False))
    kwargs: dict[str, Any] = {}
    if info:
        kwargs["img_info"] = {"img_scale": torch.full((BATCH,), 2.0),
                              "img_size": torch.tensor([[SIDE * 2.0, SIDE * 2.0]] * BATCH)}
    return bench, (_images(config),), kwargs


def _train_bench(name: str) -> Built:
    from effdet import DetBenchTrain, EfficientDet, create_model_from_config
    from effdet.anchors import AnchorLabeler, Anchors

    base, overrides, labeler = TRAIN_BENCH[name]
    config = _config(base, overrides)
    if name == "train_bench.tf_efficientdet_lite0":
        bench = create_model_from_config(config, bench_task="train", pretrained=False, pretrained_backbone=False,
                                         bench_labeler=True)
    else:
        bench = DetBenchTrain(EfficientDet(config, pretrained_backbone=False), create_labeler=labeler)
    precomputed = None if labeler else AnchorLabeler(Anchors.from_config(config), CLASSES, match_threshold=0.5)
    target = _target(config, padded=True, precomputed=precomputed)
    return bench, (_images(config), target), {}


def _anchor_parts(config: Any = None) -> tuple[Any, Any, Any]:
    from effdet.anchors import AnchorLabeler, Anchors

    config = config if config is not None else _config("efficientdet_d0", {})
    anchors = Anchors.from_config(config)
    return config, anchors, AnchorLabeler(anchors, CLASSES, match_threshold=0.5)


def _boxes_xyxy(n: int, seed: int = 3) -> Any:
    import torch

    g = _gen(seed)
    corner = torch.rand(n, 2, generator=g) * 90
    return torch.cat([corner, corner + 8 + torch.rand(n, 2, generator=g) * 40], dim=1)


def _level_outputs(config: Any, batch: int = BATCH, seed: int = 4) -> tuple[list[Any], list[Any]]:
    """Random class and box head outputs per level, as the model returns them (B, A * C, H, W)."""
    import torch

    from effdet.anchors import get_feat_sizes

    g = _gen(seed)
    per_location = config.num_scales * len(config.aspect_ratios)
    sizes = get_feat_sizes(tuple(config.image_size), config.max_level)[config.min_level:config.max_level + 1]
    cls_out = [torch.randn(batch, per_location * CLASSES, h, w, generator=g) - 2 for h, w in sizes]
    box_out = [torch.randn(batch, per_location * 4, h, w, generator=g) * 0.1 for h, w in sizes]
    return cls_out, box_out


def _pieces(name: str) -> Built:
    if name.startswith(("anchors.", "labeler.", "assigner.", "matcher.", "similarity.")):
        return _labeling(name)
    if name.startswith(("box_coder.", "decode_box", "clip_boxes")):
        return _coding(name)
    if name.startswith(("generate_detections", "post_process", "batch_detection", "soft_nms", "batched_soft",
                        "pairwise")):
        return _detections(name)
    if name.startswith("loss."):
        return _losses(name)
    return _layers(name)


def _labeling(name: str) -> Built:
    import torch
    from effdet.anchors import get_feat_sizes
    from effdet.object_detection import ArgMaxMatcher, BoxList, IouSimilarity

    from gt_calls import Call, Method, Run

    config, anchors, labeler = _anchor_parts()
    boxes, classes = _gt(padded=True)
    if name == "anchors.generate_boxes":
        return Method(anchors, "_generate_boxes"), (), {}
    if name == "anchors.get_feat_sizes":
        def feat_sizes(owner: Any, x: Any) -> Any:
            sizes = get_feat_sizes((x.shape[-2], x.shape[-1]), 7)
            return x.new_tensor(sizes)
        return Run(None, feat_sizes, [get_feat_sizes]), (_images(config),), {}
    if name.startswith("labeler.label_anchors"):
        filtered = not name.endswith("unfiltered")
        n = BOXES if filtered else BOXES - 2

        def label(owner: Any, b: Any, c: Any) -> Any:
            cls_targets, box_targets, num_positives = owner.label_anchors(b, c, filter_valid=filtered)
            return cls_targets, box_targets, num_positives
        return Run(labeler, label, [type(labeler).label_anchors]), (boxes[0, :n], classes[0, :n]), {}
    if name.startswith("labeler.batch_label_anchors"):
        filtered = not name.endswith("unfiltered")
        if not filtered:
            boxes, classes = _gt()

        def batch_label(owner: Any, b: Any, c: Any) -> Any:
            return owner.batch_label_anchors(b, c, filter_valid=filtered)
        return Run(labeler, batch_label, [type(labeler).batch_label_anchors]), (boxes, classes), {}
    if name == "assigner.assign":
        assigner = labeler.target_assigner

        def assign(owner: Any, anchor_boxes: Any, b: Any, c: Any) -> Any:
            cls_targets, box_targets, matches = owner.assign(BoxList(anchor_boxes), BoxList(b), c)
            return cls_targets, box_targets, matches.match_results
        return Run(assigner, assign, [type(assigner).assign]), (anchors.boxes, boxes[0, :3], classes[0, :3]), {}
    if name == "similarity.iou":
        def compare(owner: Any, a: Any, b: Any) -> Any:
            return owner.compare(BoxList(a), BoxList(b))
        calc = IouSimilarity()
        return Run(calc, compare, [IouSimilarity.compare]), (boxes[0], anchors.boxes), {}
    options = {"matcher.match": (0.5, 0.5, True, True), "matcher.match.empty_rows": (0.5, 0.5, True, True),
               "matcher.match.no_force": (0.5, 0.4, True, False),
               "matcher.match.negatives_between": (0.5, 0.4, False, False)}[name]
    matcher = ArgMaxMatcher(options[0], unmatched_threshold=options[1], negatives_lower_than_unmatched=options[2],
                            force_match_for_each_row=options[3])
    rows = 0 if name.endswith("empty_rows") else 4
    similarity = torch.rand(rows, 60, generator=_gen(5))

    def match(owner: Any, s: Any) -> Any:
        return owner.match(s).match_results
    del Call
    return Run(matcher, match, [ArgMaxMatcher.match]), (similarity,), {}


def _coding(name: str) -> Built:
    import torch
    from effdet.anchors import clip_boxes_xyxy, decode_box_outputs
    from effdet.object_detection import BoxList, FasterRcnnBoxCoder

    from gt_calls import Call, Run

    _, anchors, _ = _anchor_parts()
    anchor_boxes = anchors.boxes[:64]
    codes = torch.randn(64, 4, generator=_gen(6)) * 0.2
    coder = FasterRcnnBoxCoder([10.0, 10.0, 5.0, 5.0] if name.endswith("scaled") else None)
    if name.startswith("box_coder.encode"):
        boxes = torch.cat([anchor_boxes[:, :2] + 1.0, anchor_boxes[:, 2:] + 3.0], dim=1)

        def encode(owner: Any, b: Any, a: Any) -> Any:
            return owner.encode(BoxList(b), BoxList(a))
        return Run(coder, encode, [FasterRcnnBoxCoder.encode]), (boxes, anchor_boxes), {}
    if name.startswith("box_coder.decode"):
        def decode(owner: Any, c: Any, a: Any) -> Any:
            return owner.decode(c, BoxList(a)).boxes
        return Run(coder, decode, [FasterRcnnBoxCoder.decode]), (codes, anchor_boxes), {}
    if name.startswith("decode_box_outputs"):
        return Call(decode_box_outputs, output_xyxy=name.endswith("xyxy")), (codes, anchor_boxes), {}
    return Call(clip_boxes_xyxy), (_boxes_xyxy(30) - 20, torch.tensor([100.0, 90.0])), {}


def _detections(name: str) -> Built:
    import torch
    from effdet.anchors import generate_detections
    from effdet.bench import _batch_detection, _post_process
    from effdet.soft_nms import batched_soft_nms, pairwise_iou, soft_nms

    from gt_calls import Call

    config, anchors, _ = _anchor_parts()
    g = _gen(7)
    if name.startswith("generate_detections"):
        n = 40
        indices = torch.randperm(anchors.boxes.shape[0], generator=g)[:n]
        classes = torch.randint(0, CLASSES, (n,), generator=g)
        scale, size = (None, None)
        if name.endswith("img_info"):
            scale, size = torch.tensor(2.0), torch.tensor([200.0, 180.0])
        args = (torch.randn(n, 1, generator=g), torch.randn(n, 4, generator=g) * 0.1, anchors.boxes, indices,
                classes, scale, size)
        return Call(generate_detections, max_det_per_image=30, soft_nms=name.endswith("soft_nms")), args, {}
    if name == "post_process":
        cls_out, box_out = _level_outputs(config)
        return Call(_post_process, num_levels=config.num_levels, num_classes=CLASSES, max_detection_points=100), \
            (cls_out, box_out), {}
    if name.startswith("batch_detection"):
        cls_out, box_out = _level_outputs(config)
        cls_top, box_top, indices, classes = _post_process(cls_out, box_out, config.num_levels, CLASSES, 30)
        args = (BATCH, cls_top, box_top, anchors.boxes, indices, classes, torch.ones(BATCH),
                torch.full((BATCH, 2), float(SIDE)))
        return Call(_batch_detection, max_det_per_image=20, soft_nms=name.endswith("soft_nms")), args, {}
    boxes = _boxes_xyxy(24)
    scores = torch.rand(24, generator=g)
    if name.startswith("soft_nms"):
        gaussian = name.endswith("gaussian")
        return Call(soft_nms, method_gaussian=gaussian, iou_threshold=0.3, score_threshold=0.05), (boxes, scores), {}
    if name == "batched_soft_nms":
        return Call(batched_soft_nms, iou_threshold=0.3, score_threshold=0.01), \
            (boxes, scores, torch.randint(0, 3, (24,), generator=g)), {}
    return Call(pairwise_iou), (boxes[:6], boxes), {}


def _losses(name: str) -> Built:
    import torch
    from effdet.loss import (
        DetectionLoss,
        _box_loss,
        focal_loss_legacy,
        huber_loss,
        loss_fn,
        loss_jit,
        new_focal_loss,
        one_hot,
        smooth_l1_loss,
    )

    from gt_calls import Call, Run

    g = _gen(8)
    logits = torch.randn(BATCH, 8, 8, 9 * CLASSES, generator=g)
    targets = (torch.rand(BATCH, 8, 8, 9 * CLASSES, generator=g) > 0.9).float()
    normalizer = torch.tensor(5.0)
    pred = torch.randn(BATCH, 8, 8, 36, generator=g) * 0.1
    goal = torch.randn(BATCH, 8, 8, 36, generator=g) * 0.1
    if name == "loss.focal_loss_legacy":
        def legacy(owner: Any, x: Any, t: Any, n: Any) -> Any:
            return focal_loss_legacy(x, t, alpha=0.25, gamma=1.5, normalizer=n).sum()
        return Run(None, legacy, [focal_loss_legacy]), (logits, targets, normalizer), {}
    if name.startswith("loss.new_focal_loss"):
        smoothing = 0.1 if name.endswith("smoothing") else 0.0

        def focal(owner: Any, x: Any, t: Any, n: Any) -> Any:
            return new_focal_loss(x, t, alpha=0.25, gamma=1.5, normalizer=n, label_smoothing=smoothing).sum()
        return Run(None, focal, [new_focal_loss]), (logits, targets, normalizer), {}
    if name == "loss.huber":
        return Call(huber_loss, delta=0.1), (pred, goal), {}
    if name == "loss.huber.weights_sum":
        return Call(huber_loss, size_average=False), (pred, goal, 0.1, (goal > 0).float()), {}
    if name == "loss.smooth_l1":
        return Call(smooth_l1_loss), (pred, goal, 1.0 / 9, (goal > 0).float()), {}
    if name == "loss.smooth_l1.l1":
        return Call(smooth_l1_loss, beta=0.0, size_average=False), (pred, goal), {}
    if name == "loss.box_loss":
        return Call(_box_loss, delta=0.1), (pred, goal * (goal > 0), normalizer), {}
    if name == "loss.one_hot":
        return Call(one_hot, num_classes=CLASSES), (torch.randint(-2, CLASSES, (BATCH, 8, 8, 9), generator=g),), {}
    config, anchors, labeler = _anchor_parts()
    cls_out, box_out = _level_outputs(config)
    boxes, classes = _gt(padded=True)
    cls_targets, box_targets, num_positives = labeler.batch_label_anchors(boxes, classes)
    args = (cls_out, box_out, cls_targets, box_targets, num_positives)
    scalars = {"num_classes": CLASSES, "alpha": 0.25, "gamma": 1.5, "delta": 0.1, "box_loss_weight": 50.0}
    if name == "loss.loss_fn":
        return Call(loss_fn, **scalars), args, {}
    if name == "loss.loss_fn.legacy":
        return Call(loss_fn, legacy_focal=True, **scalars), args, {}
    if name == "loss.loss_jit":
        return Call(loss_jit, label_smoothing=0.0, legacy_focal=False, **scalars), args, {}
    return DetectionLoss(config), args, {}


def _layers(name: str) -> Built:
    import torch
    from effdet.efficientdet import (
        BiFpn,
        ConvBnAct2d,
        FpnCombine,
        HeadNet,
        Interpolate2d,
        ResampleFeatureMap,
        SeparableConv2d,
        get_feature_info,
    )
    from timm import create_model

    from gt_calls import Run

    g = _gen(9)
    x = torch.randn(BATCH, 16, 16, 16, generator=g)
    if name == "layers.SeparableConv2d":
        return SeparableConv2d(16, 24, padding="same"), (x,), {}
    if name == "layers.ConvBnAct2d":
        return ConvBnAct2d(16, 24, 3, stride=2), (x,), {}
    if name == "layers.Interpolate2d":
        return Interpolate2d(size=(32, 24), mode="bilinear"), (x,), {}
    if name == "layers.Resample.down":
        return ResampleFeatureMap(16, 24, (16, 16), (8, 8), apply_bn=True, pad_type="same"), (x,), {}
    if name == "layers.Resample.up":
        return ResampleFeatureMap(16, 16, (16, 16), (32, 32), upsample="nearest"), (x,), {}
    if name.startswith("layers.FpnCombine"):
        method = name.rsplit(".", 1)[1]
        info = [{"num_chs": 16, "size": (16, 16)}, {"num_chs": 24, "size": (8, 8)}, {"num_chs": 16, "size": (32, 32)}]
        combine = FpnCombine(info, 16, (0, 1, 2), (16, 16), apply_resample_bn=True, weight_method=method)
        feats = [x, torch.randn(BATCH, 24, 8, 8, generator=g), torch.randn(BATCH, 16, 32, 32, generator=g)]
        return combine, (feats,), {}
    config = _config("efficientdet_d0", {"head_bn_level_first": name.endswith("level_first")})
    sizes = [(16, 16), (8, 8), (4, 4), (2, 2), (1, 1)]
    if name == "layers.BiFpn":
        backbone = create_model("test_efficientnet", features_only=True, out_indices=(2, 3, 4), pretrained=False)
        info = get_feature_info(backbone)
        feats = [torch.randn(BATCH, f["num_chs"], s[0], s[1], generator=g) for f, s in zip(info, sizes)]
        fpn = BiFpn(config, info)

        def run_fpn(owner: Any, *levels: Any) -> Any:
            return owner(list(levels))
        return Run(fpn, run_fpn, [BiFpn]), tuple(feats), {}
    head = HeadNet(config, num_outputs=CLASSES * 9)
    return head, ([torch.randn(BATCH, 16, s[0], s[1], generator=g) for s in sizes],), {}


def _train(name: str) -> Built:
    import torch
    from effdet import DetBenchTrain, EfficientDet
    from effdet.anchors import AnchorLabeler, Anchors
    from effdet.loss import DetectionLoss, loss_fn

    from gt_calls import Run

    what, optimizer_name = TRAIN[name]
    config = _config("efficientdet_d0", {})
    labeler = AnchorLabeler(Anchors.from_config(config), CLASSES, match_threshold=0.5)
    if what == "loss":
        cls_out, box_out = _level_outputs(config)
        heads = [t.clone().requires_grad_() for t in cls_out + box_out]
        target = _target(config, padded=True, precomputed=labeler)
        levels = config.num_levels
        cls_targets = [target[f"label_cls_{level}"] for level in range(levels)]
        box_targets = [target[f"label_bbox_{level}"] for level in range(levels)]

        def loss_step(owner: Any, *tensors: Any) -> Any:
            with torch.enable_grad():
                loss, _, _ = loss_fn(list(tensors[:levels]), list(tensors[levels:]), cls_targets, box_targets,
                                     target["label_num_positives"], num_classes=CLASSES, alpha=0.25, gamma=1.5,
                                     delta=0.1, box_loss_weight=50.0)
                grads = torch.autograd.grad(loss, tensors)
            return loss.detach(), grads[0]
        return Run(None, loss_step, [loss_fn]), tuple(heads), {}
    model = EfficientDet(config, pretrained_backbone=False)
    network: Any
    if what == "raw":
        network = model
        criterion = DetectionLoss(config)
        target = _target(config, precomputed=labeler)
    else:
        network = DetBenchTrain(model, create_labeler=what != "bench_precomputed")
        criterion = None
        target = _target(config, padded=True, precomputed=labeler if what == "bench_precomputed" else None)
    if optimizer_name == "sgd":
        optimizer = torch.optim.SGD(network.parameters(), lr=1e-3, momentum=0.9)
    else:
        optimizer = torch.optim.AdamW(network.parameters(), lr=1e-4, weight_decay=1e-4)
    levels = config.num_levels

    def step(owner: Any, x: Any, tgt: dict[str, Any]) -> Any:
        """The detection loss, its gradients and one optimizer step."""
        if criterion is None:
            loss = owner(x, tgt)["loss"]
        else:
            class_out, box_out = owner(x)
            loss, _, _ = criterion(class_out, box_out, [tgt[f"label_cls_{level}"] for level in range(levels)],
                                   [tgt[f"label_bbox_{level}"] for level in range(levels)],
                                   tgt["label_num_positives"])
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.detach()
    entry = DetBenchTrain if criterion is None else EfficientDet
    return Run(network, step, [entry]), (_images(config), target), {}


def build(name: str) -> Built:
    before_import()
    if name in MODELS:
        return _model(name)
    if name in PREDICT:
        return _predict(name)
    if name in TRAIN_BENCH:
        return _train_bench(name)
    if name in PIECES:
        return _pieces(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
