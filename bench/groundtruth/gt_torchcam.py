"""Ground-truth bench, torchcam: class activation map extractors hooked on small networks, as users call them.

torchcam 0.5.0 hooks a network: an extractor (``torchcam.methods``) registers forward hooks on its target
layers (``_CAM._hook_a`` keeps the activations; the gradient methods also keep the outputs, ``_hook_g``,
and differentiate the class score against them in ``_backprop``; the score methods and SmoothGrad also
keep the network's input with a pre-hook). After the user's forward, ``extractor(class_idx, scores)``
checks the request (``_precheck``), weighs the activations (``_get_weights``), sums, rectifies and
normalizes them (``compute_cams``); ``fuse_cams`` resizes the maps of several layers and takes their
maximum (LayerCAM scales them by a tanh first). Class indices are one int or one per sample; the
``targets`` keyword takes scalar functions of each sample's output instead. So the tables cover, on a
tiny conv net (three convolutions, 16 x 16 inputs, 10 classes, batch 2) unless said otherwise:

- ``EXTRACT``: the forward with the extractor hooked, then the extractor's call, for ``CAM`` (fc
  weights), ``GradCAM``, ``GradCAMpp``, ``SmoothGradCAMpp`` (noisy inputs, 2 samples), ``XGradCAM``,
  ``LayerCAM``, ``ScoreCAM`` (masked inputs forwarded in chunks), ``SSCAM`` and ``ISCAM`` (2 samples):
  one class, a class per sample, shared and per-sample targets, unnormalized maps, two target layers
  fused (to the largest map or a given shape), ``compute_cams`` directly, a retained graph, target
  layers given as modules, a one-sample batch, small score batches; on a 3-D conv net (trilinear
  resizing), a 1-D conv net (its maps are not fused: the nearest mode with ``align_corners`` fails eagerly
  too), torchvision's ``resnet18`` and ``mobilenet_v3_small`` and a
  ViT with a ``reshape_transform`` from tokens to a grid (random weights, 64 x 64 and 32 x 32 inputs);
- ``LEGRAD``: ``LeGrad`` on a tiny torchvision ``VisionTransformer`` (hooks on its ``self_attention``
  asking for per-head weights, the gradient of each block's projected score against them): one block,
  two blocks, a custom ``score_projection`` with ``grid_shape``, per-sample classes unnormalized;
- ``WRAPPERS``: ``RefineCAM`` (the product of normalized maps of several layers) over GradCAM++, GradCAM
  with a target shape, LayerCAM through ``compute_cams``; ``FinerCAM`` (a contrastive score against the
  nearest classes or given ones) over GradCAM, GradCAM++ and LayerCAM with int, list and nested
  comparison indices;
- ``LIFECYCLE``: an extractor made in the compiled code as a context manager (hooks registered and
  removed there), with automatic target and fc layers (``locate_candidate_layer``, which forwards zeros
  through the network with hooks on every module), ``locate_candidate_layer`` alone, hooks disabled then
  enabled again, ``fuse_cams`` and LayerCAM's on given maps, ``RefineCAM.fuse_cams``;
- ``METRICS``: ``ClassificationMetric.update`` (average drop, increase in confidence) and
  ``DeletionInsertionMetric.update`` (deletion / insertion curves and their areas) with a softmax, the
  argmax classes, targets, tensor and callable baselines, then ``summary``;
- ``EXPLAIN``: ``torchcam.explain.explain`` on one image (GradCAM on an automatic layer, LayerCAM with an
  expected class, two target layers); ``utils.overlay_mask`` on PIL images (an RGB image and a float mask; Dynamo
  fails inside it on the PIL-to-numpy conversion, the library's own code under compile).

Gradient methods run their forward under ``enable_grad``, as users do; the harness's eval mode is
``no_grad`` otherwise. The networks of ``explain`` stay in eval mode (it refuses a training network).
Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
CLASSES = 10
GRADIENT = ("GradCAM", "GradCAMpp", "SmoothGradCAMpp", "XGradCAM", "LayerCAM", "LeGrad", "RefineCAM", "FinerCAM")
# Network kind -> (last target layer, two target layers of different sizes).
LAYERS: dict[str, tuple[str, list[str]]] = {
    "cnn": ("features.7", ["features.2", "features.7"]),
    "cnn3d": ("features.3", ["features.1", "features.3"]),
    "cnn1d": ("features.3", ["features.1", "features.3"]),
    "resnet18": ("layer4", ["layer3", "layer4"]),
    "mobilenet": ("features.12", ["features.8", "features.12"]),
    "vit": ("encoder.layers.encoder_layer_1.ln_1", ["encoder.layers.encoder_layer_0.ln_1",
                                                    "encoder.layers.encoder_layer_1.ln_1"]),
}
# Extraction name -> (method, network kind, target: "last", "multi", "modules", constructor keywords, call).
# Call keys: "classes" ("one", "list" or "targets", "targets.list"), "normalized", "fuse" (True or a shape),
# "compute_cams", "retain_graph", "batch" (input batch size).
EXTRACT: dict[str, tuple[str, str, str, dict[str, Any], dict[str, Any]]] = {
    "CAM": ("CAM", "cnn", "last", {"fc_layer": "fc"}, {}),
    "CAM.class_list": ("CAM", "cnn", "last", {"fc_layer": "fc"}, {"classes": "list"}),
    "CAM.not_normalized": ("CAM", "cnn", "last", {"fc_layer": "fc"}, {"normalized": False}),
    "CAM.modules": ("CAM", "cnn", "modules", {}, {}),
    "CAM.cnn1d": ("CAM", "cnn1d", "last", {"fc_layer": "fc"}, {}),
    "CAM.resnet18": ("CAM", "resnet18", "last", {"fc_layer": "fc"}, {"classes": "list"}),
    "GradCAM": ("GradCAM", "cnn", "last", {}, {}),
    "GradCAM.class_list": ("GradCAM", "cnn", "last", {}, {"classes": "list"}),
    "GradCAM.targets": ("GradCAM", "cnn", "last", {}, {"classes": "targets"}),
    "GradCAM.targets.per_sample": ("GradCAM", "cnn", "last", {}, {"classes": "targets.list"}),
    "GradCAM.multi_layer.fuse": ("GradCAM", "cnn", "multi", {}, {"fuse": True}),
    "GradCAM.fuse.target_shape": ("GradCAM", "cnn", "multi", {}, {"fuse": (12, 12)}),
    "GradCAM.compute_cams": ("GradCAM", "cnn", "last", {}, {"compute_cams": True, "normalized": False}),
    "GradCAM.retain_graph": ("GradCAM", "cnn", "last", {}, {"retain_graph": True}),
    "GradCAM.cnn3d": ("GradCAM", "cnn3d", "multi", {}, {"fuse": True}),
    "GradCAM.cnn1d.multi_layer": ("GradCAM", "cnn1d", "multi", {}, {}),
    "GradCAM.resnet18": ("GradCAM", "resnet18", "last", {}, {}),
    "GradCAM.vit.reshape_transform": ("GradCAM", "vit", "last", {"reshape_transform": "tokens"}, {}),
    "GradCAMpp": ("GradCAMpp", "cnn", "last", {}, {}),
    "GradCAMpp.class_list": ("GradCAMpp", "cnn", "last", {}, {"classes": "list"}),
    "GradCAMpp.multi_layer.fuse": ("GradCAMpp", "cnn", "multi", {}, {"fuse": True}),
    "GradCAMpp.targets": ("GradCAMpp", "cnn", "last", {}, {"classes": "targets"}),
    "GradCAMpp.cnn3d": ("GradCAMpp", "cnn3d", "last", {}, {}),
    "GradCAMpp.mobilenet": ("GradCAMpp", "mobilenet", "last", {}, {}),
    "SmoothGradCAMpp": ("SmoothGradCAMpp", "cnn", "last", {"num_samples": 2, "std": 0.2}, {}),
    "SmoothGradCAMpp.class_list": ("SmoothGradCAMpp", "cnn", "last", {"num_samples": 2}, {"classes": "list"}),
    "SmoothGradCAMpp.targets": ("SmoothGradCAMpp", "cnn", "last", {"num_samples": 2}, {"classes": "targets"}),
    "SmoothGradCAMpp.multi_layer.fuse": ("SmoothGradCAMpp", "cnn", "multi", {"num_samples": 2}, {"fuse": True}),
    "XGradCAM": ("XGradCAM", "cnn", "last", {}, {}),
    "XGradCAM.class_list": ("XGradCAM", "cnn", "last", {}, {"classes": "list"}),
    "XGradCAM.multi_layer.fuse": ("XGradCAM", "cnn", "multi", {}, {"fuse": True}),
    "LayerCAM": ("LayerCAM", "cnn", "last", {}, {}),
    "LayerCAM.class_list": ("LayerCAM", "cnn", "last", {}, {"classes": "list"}),
    "LayerCAM.targets.per_sample": ("LayerCAM", "cnn", "last", {}, {"classes": "targets.list"}),
    "LayerCAM.multi_layer.fuse": ("LayerCAM", "cnn", "multi", {}, {"fuse": True}),
    "LayerCAM.resnet18.fuse": ("LayerCAM", "resnet18", "multi", {}, {"fuse": True}),
    "ScoreCAM": ("ScoreCAM", "cnn", "last", {}, {}),
    "ScoreCAM.class_list": ("ScoreCAM", "cnn", "last", {}, {"classes": "list"}),
    "ScoreCAM.batch_size": ("ScoreCAM", "cnn", "last", {"batch_size": 8}, {}),
    "ScoreCAM.targets": ("ScoreCAM", "cnn", "last", {}, {"classes": "targets"}),
    "ScoreCAM.one_sample": ("ScoreCAM", "cnn", "last", {"batch_size": 16}, {"batch": 1}),
    "ScoreCAM.multi_layer.fuse": ("ScoreCAM", "cnn", "multi", {}, {"fuse": True}),
    "ScoreCAM.cnn3d": ("ScoreCAM", "cnn3d", "last", {"batch_size": 8}, {}),
    "SSCAM": ("SSCAM", "cnn", "last", {"num_samples": 2, "std": 1.0}, {}),
    "SSCAM.class_list": ("SSCAM", "cnn", "last", {"num_samples": 2, "batch_size": 16}, {"classes": "list"}),
    "ISCAM": ("ISCAM", "cnn", "last", {"num_samples": 2}, {}),
    "ISCAM.batch_size.targets": ("ISCAM", "cnn", "last", {"num_samples": 2, "batch_size": 16}, {"classes": "targets"}),
}
# ``LeGrad`` name -> (target blocks, constructor keywords ("projection": a custom score projection), call).
LEGRAD: dict[str, tuple[list[str], dict[str, Any], dict[str, Any]]] = {
    "LeGrad": (["encoder.layers.encoder_layer_1"], {}, {}),
    "LeGrad.two_blocks": (["encoder.layers.encoder_layer_0", "encoder.layers.encoder_layer_1"], {}, {}),
    "LeGrad.score_projection.grid_shape": (["encoder.layers.encoder_layer_1"],
                                           {"projection": True, "grid_shape": (4, 4)}, {}),
    "LeGrad.class_list.not_normalized": (["encoder.layers.encoder_layer_1"], {},
                                         {"classes": "list", "normalized": False}),
}
# Wrapper name -> (wrapper, base method, constructor keywords, call keywords).
WRAPPERS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    "RefineCAM": ("RefineCAM", "GradCAMpp", {}, {}),
    "RefineCAM.GradCAM.target_shape": ("RefineCAM", "GradCAM", {}, {"target_shape": (16, 16), "normalized": False}),
    "RefineCAM.LayerCAM.compute_cams": ("RefineCAM", "LayerCAM", {}, {"compute_cams": True}),
    "FinerCAM": ("FinerCAM", "GradCAM", {}, {}),
    "FinerCAM.GradCAMpp.comparison_int": ("FinerCAM", "GradCAMpp", {"gamma": 1.0}, {"comparison_idx": 4}),
    "FinerCAM.LayerCAM.comparison_nested": ("FinerCAM", "LayerCAM", {"num_references": 2},
                                            {"comparison_idx": [[1, 4], [0, 5]], "classes": "list"}),
    "FinerCAM.comparison_list.compute_cams": ("FinerCAM", "GradCAM", {},
                                              {"comparison_idx": [6, 7], "compute_cams": True}),
}
LIFECYCLE = ("GradCAM.context_manager", "CAM.automatic_layers", "GradCAMpp.context_manager.automatic_layer",
             "locate_candidate_layer", "GradCAM.disable_enable_hooks", "fuse_cams", "LayerCAM.fuse_cams",
             "RefineCAM.fuse_cams")
# Metric name -> (metric, method, metric keywords ("softmax", "baseline": "tensor" / "callable", steps,
# batch_size), classes: "one", "argmax", "targets").
METRICS: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "ClassificationMetric.GradCAM": ("ClassificationMetric", "GradCAM", {"softmax": True}, "one"),
    "ClassificationMetric.LayerCAM.argmax": ("ClassificationMetric", "LayerCAM", {"softmax": True}, "argmax"),
    "ClassificationMetric.ScoreCAM.targets": ("ClassificationMetric", "ScoreCAM", {}, "targets"),
    "DeletionInsertionMetric.GradCAM": ("DeletionInsertionMetric", "GradCAM", {"softmax": True, "steps": 4,
                                                                               "batch_size": 8}, "one"),
    "DeletionInsertionMetric.CAM.argmax.baseline": ("DeletionInsertionMetric", "CAM",
                                                    {"steps": 3, "baseline": "tensor"}, "argmax"),
    "DeletionInsertionMetric.XGradCAM.targets.callable": ("DeletionInsertionMetric", "XGradCAM",
                                                          {"steps": 3, "batch_size": 4, "baseline": "callable"},
                                                          "targets"),
}
# ``overlay_mask`` once: Dynamo fails on its ``np.asarray`` of the PIL mask before its branches differ.
EXPLAIN = ("explain", "explain.LayerCAM.expected_class", "explain.two_layers", "overlay_mask")


def names() -> list[str]:
    return list(EXTRACT) + list(LEGRAD) + list(WRAPPERS) + list(LIFECYCLE) + list(METRICS) + list(EXPLAIN)


def _net(kind: str) -> Any:
    """A classifier with random weights; the conv nets name their layers ``features.i`` and ``fc``."""
    from collections import OrderedDict

    from torch import nn

    if kind == "cnn":
        features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                 nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                                 nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        pool: nn.Module = nn.AdaptiveAvgPool2d(1)
        width = 16
    elif kind == "cnn3d":
        features = nn.Sequential(nn.Conv3d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv3d(4, 8, 3, stride=2, padding=1),
                                 nn.ReLU())
        pool, width = nn.AdaptiveAvgPool3d(1), 8
    elif kind == "cnn1d":
        features = nn.Sequential(nn.Conv1d(2, 8, 3, padding=1), nn.ReLU(), nn.Conv1d(8, 8, 3, stride=2, padding=1),
                                 nn.ReLU())
        pool, width = nn.AdaptiveAvgPool1d(1), 8
    else:
        import torchvision

        if kind == "resnet18":
            return torchvision.models.resnet18(num_classes=CLASSES)
        if kind == "mobilenet":
            return torchvision.models.mobilenet_v3_small(num_classes=CLASSES)
        return torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                                    hidden_dim=32, mlp_dim=64, num_classes=CLASSES)
    return nn.Sequential(OrderedDict(features=features, pool=pool, flatten=nn.Flatten(),
                                     fc=nn.Linear(width, CLASSES)))


def _input(kind: str, batch: int = BATCH, seed: int = 1) -> Any:
    import torch

    shape = {"cnn": (3, 16, 16), "cnn3d": (1, 6, 6, 6), "cnn1d": (2, 16), "resnet18": (3, 64, 64),
             "mobilenet": (3, 64, 64), "vit": (3, 32, 32)}[kind]
    return torch.randn(batch, *shape, generator=torch.Generator().manual_seed(seed))


def _tokens_to_grid(tokens: Any) -> Any:
    """The ViT's patch tokens (after the class token) as a 4 x 4 grid of channels."""
    patches = tokens[:, 1:, :]
    return patches.reshape(patches.shape[0], 4, 4, patches.shape[-1]).permute(0, 3, 1, 2)


def _third(sample: Any) -> Any:
    return sample[3]


def _margin(sample: Any) -> Any:
    return sample[1] - sample[0]


def _targets(kind: str, batch: int = BATCH) -> Any:
    if kind == "targets":
        return _third
    return [_third, _margin][:batch]


def _classes(kind: str, batch: int = BATCH) -> Any:
    return [2, 7][:batch] if kind == "list" else 3


def _entries(extractor: Any) -> list[Any]:
    """The extractor's call, its weights and its hooks (run inside the network's forward)."""
    kind = type(extractor)
    entries = [kind.__call__, kind.compute_cams, kind._get_weights, kind._hook_a]
    entries += [getattr(kind, hook) for hook in ("_hook_g", "_store_input") if hasattr(kind, hook)]
    return entries


def _extract(net: Any, extractor: Any, call: dict[str, Any], grad: bool, entries: list[Any]) -> Any:
    """The network's forward with the extractor hooked, then the extractor's call (fused maps on request)."""
    import contextlib

    import torch

    from gt_calls import Run

    batch = call.get("batch", BATCH)
    chosen = call.get("classes", "one")
    keywords: dict[str, Any] = {"normalized": call.get("normalized", True)}
    if call.get("retain_graph"):
        keywords["retain_graph"] = True
    for key in ("comparison_idx", "target_shape"):
        if key in call:
            keywords[key] = call[key]
    fuse = call.get("fuse")

    def run(owner: Any, x: Any) -> Any:
        with torch.enable_grad() if grad else contextlib.nullcontext():
            scores = owner(x)
            method = extractor.compute_cams if call.get("compute_cams") else extractor
            if chosen.startswith("targets"):
                cams = method(scores=scores, targets=_targets(chosen, batch), **keywords)
            else:
                cams = method(_classes(chosen, batch), scores, **keywords)
        if fuse:
            return extractor.fuse_cams(cams, fuse if isinstance(fuse, tuple) else None)
        return cams

    return Run(net, run, entries)


def _extractions(name: str) -> Built:
    from torchcam import methods

    method, kind, target, keywords, call = EXTRACT[name]
    net = _net(kind)
    last, multi = LAYERS[kind]
    keywords = dict(keywords)
    if target == "modules":
        layer: Any = net.features[7]
        keywords["fc_layer"] = net.fc
    else:
        layer = last if target == "last" else multi
    if keywords.get("reshape_transform") == "tokens":
        keywords["reshape_transform"] = _tokens_to_grid
    extractor = getattr(methods, method)(net, layer, **keywords)
    model = _extract(net, extractor, call, method in GRADIENT, _entries(extractor))
    return model, (_input(kind, call.get("batch", BATCH)),), {}


def _legrad(name: str) -> Built:
    import torch
    from torchcam.methods import LeGrad

    blocks, keywords, call = LEGRAD[name]
    net = _net("vit")
    keywords = dict(keywords)
    if keywords.pop("projection", False):
        head = torch.nn.Linear(32, CLASSES)

        def projection(tokens: Any) -> Any:
            return head(tokens[:, 0])

        keywords["score_projection"] = projection
    extractor = LeGrad(net, blocks, **keywords)
    entries = [LeGrad.__call__, LeGrad.compute_cams, LeGrad._get_weights, LeGrad._hook_a, LeGrad._prepare_attention,
               LeGrad._capture_attention]
    return _extract(net, extractor, call, True, entries), (_input("vit"),), {}


def _wrappers(name: str) -> Built:
    from torchcam import methods

    wrapper, base, keywords, call = WRAPPERS[name]
    net = _net("cnn")
    layers = LAYERS["cnn"][1] if wrapper == "RefineCAM" else LAYERS["cnn"][0]
    extractor = getattr(methods, wrapper)(net, layers, input_shape=(3, 16, 16),
                                          base_method=getattr(methods, base), **keywords)
    kind = type(extractor)
    entries = [kind.__call__, kind.compute_cams, *_entries(extractor.base_cam)]
    return _extract(net, extractor, {**call, "fuse": None}, True, entries), (_input("cnn"),), {}


def _lifecycle(name: str) -> Built:
    import torch
    from torchcam import methods
    from torchcam.methods._utils import locate_candidate_layer

    from gt_calls import Run

    net = _net("cnn")
    x = _input("cnn")
    if name == "GradCAM.context_manager":
        def scoped(owner: Any, x_: Any) -> Any:
            """The documented use: the extractor's hooks live for one ``with`` block."""
            with torch.enable_grad(), methods.GradCAM(owner, "features.7") as extractor:
                scores = owner(x_)
                return extractor(scores.argmax(-1).tolist(), scores)

        return Run(net, scoped, [methods.GradCAM, methods.GradCAM.__call__, methods.GradCAM.__exit__]), (x,), {}
    if name == "CAM.automatic_layers":
        def automatic(owner: Any, x_: Any) -> Any:
            with methods.CAM(owner, input_shape=(3, 16, 16)) as extractor:
                return extractor(1, owner(x_))

        return Run(net, automatic, [methods.CAM, methods.CAM.__call__, locate_candidate_layer]), (x,), {}
    if name == "GradCAMpp.context_manager.automatic_layer":
        def automatic_grad(owner: Any, x_: Any) -> Any:
            with torch.enable_grad(), methods.GradCAMpp(owner, input_shape=(3, 16, 16)) as extractor:
                scores = owner(x_)
                return extractor.fuse_cams(extractor([0, 5], scores))

        return Run(net, automatic_grad, [methods.GradCAMpp, methods.GradCAMpp.__call__, locate_candidate_layer]), \
            (x,), {}
    if name == "locate_candidate_layer":
        return Run(net, lambda owner, shape: locate_candidate_layer(owner, shape), [locate_candidate_layer]), \
            ((3, 16, 16),), {}
    if name == "GradCAM.disable_enable_hooks":
        extractor = methods.GradCAM(net, LAYERS["cnn"][1])

        def toggled(owner: Any, x_: Any) -> Any:
            """A forward with the hooks off (the activations of the first call stay), then one with them on."""
            with torch.enable_grad():
                extractor.disable_hooks()
                owner(x_ * 0.5)
                extractor.enable_hooks()
                scores = owner(x_)
                cams = extractor(4, scores)
            extractor.reset_hooks()
            return cams

        entries = [methods.GradCAM.disable_hooks, methods.GradCAM.enable_hooks, methods.GradCAM.reset_hooks,
                   *_entries(extractor)]
        return Run(net, toggled, entries), (x,), {}
    gen = torch.Generator().manual_seed(3)
    cams = (torch.rand(BATCH, 8, 8, generator=gen), torch.rand(BATCH, 16, 16, generator=gen),
            torch.rand(BATCH, 4, 4, generator=gen))
    owner = {"fuse_cams": methods.GradCAM, "LayerCAM.fuse_cams": methods.LayerCAM,
             "RefineCAM.fuse_cams": methods.RefineCAM}[name]

    def fused(_: Any, *maps: Any) -> Any:
        return owner.fuse_cams(list(maps))

    return Run(torch.nn.Identity(), fused, [owner.fuse_cams]), cams, {}


def _metrics(name: str) -> Built:
    import functools

    import torch
    from torchcam import methods, metrics

    from gt_calls import Run

    metric_name, method, keywords, chosen = METRICS[name]
    net = _net("cnn")
    extractor = getattr(methods, method)(net, LAYERS["cnn"][0])
    keywords = dict(keywords)
    logits_fn = functools.partial(torch.softmax, dim=-1) if keywords.pop("softmax", False) else None
    baseline = keywords.pop("baseline", None)
    if baseline == "tensor":
        keywords["baseline"] = torch.full((1, 3, 1, 1), 0.5)
    elif baseline == "callable":
        keywords["baseline"] = lambda x: x.mean(dim=(2, 3), keepdim=True)
    metric = getattr(metrics, metric_name)(extractor, logits_fn, **keywords)
    grad = method in GRADIENT

    def update(owner: Any, x: Any) -> Any:
        """One batch of the metric, then its summary."""
        import contextlib

        with torch.enable_grad() if grad else contextlib.nullcontext():
            if chosen == "targets":
                metric.update(x, targets=_margin)
            else:
                metric.update(x, None if chosen == "argmax" else 3)
        return metric.summary()

    kind = type(metric)
    return Run(net, update, [kind.update, kind.summary, *_entries(extractor)]), (_input("cnn"),), {}


def _explain(name: str) -> Built:
    import numpy as np
    import torch
    from PIL import Image
    from torchcam import explain, methods, utils

    from gt_calls import Call, Run

    if name == "overlay_mask":
        rng = np.random.default_rng(4)
        mask = Image.fromarray(rng.random((6, 6)).astype(np.float32))
        img = Image.fromarray(rng.integers(0, 255, (12, 12, 3), dtype=np.uint8))
        return Call(utils.overlay_mask, alpha=0.5), (img, mask), {}
    net = _net("cnn").eval()
    keywords: dict[str, Any] = {}
    if name == "explain.LayerCAM.expected_class":
        keywords = {"method": methods.LayerCAM, "target_layer": "features.7", "expected_class_idx": 2,
                    "class_names": [f"class{i}" for i in range(CLASSES)]}
    elif name == "explain.two_layers":
        keywords = {"target_layer": LAYERS["cnn"][1], "expected_class_idx": 9}

    def explained(_: Any, x: Any) -> Any:
        """The network stays in eval mode: ``explain`` refuses a training one."""
        result = explain.explain(net, x, **keywords)
        return result.logits, result.cams

    return Run(torch.nn.Identity(), explained, [explain.explain]), (_input("cnn", 1),), {}


def build(name: str) -> Built:
    import logging

    import torch

    logging.getLogger("torchcam").setLevel(logging.ERROR)
    torch.manual_seed(0)
    if name in EXTRACT:
        return _extractions(name)
    if name in LEGRAD:
        return _legrad(name)
    if name in WRAPPERS:
        return _wrappers(name)
    if name in LIFECYCLE:
        return _lifecycle(name)
    if name in METRICS:
        return _metrics(name)
    return _explain(name)
