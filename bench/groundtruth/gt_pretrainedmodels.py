"""Ground-truth bench, pretrainedmodels: the Cadene model zoo with random weights, its methods, blocks and train steps.

pretrainedmodels 0.7.4 (Cadene) gathers ImageNet classifiers behind one interface: a factory per model
(``pretrainedmodels.se_resnet50(num_classes, pretrained=...)``) builds a network with ``features(input)``
(the convolutional trunk), ``logits(features)`` (pooling, dropout and ``last_linear``) and ``forward``
chaining the two; ``pretrained=None`` gives random weights. Its own architectures are SENet (SE-ResNet,
SE-ResNeXt, SENet154), NASNet-A (large and mobile), PNASNet-5, Inception v4, Inception-ResNet v2,
BN-Inception, Xception, DPN, PolyNet, FB ResNet, Caffe ResNet and ResNeXt-101 (built from ``Lambda``
modules); it also wraps torchvision's models, monkey-patching ``features`` / ``logits`` / ``forward`` onto
them. So the tables cover:

- ``FACTORIES``: the exported factories with ``pretrained=None`` on one image of the size their pooling
  expects (224, or 299 for Inception v4): se_resnet50, se_resnext50_32x4d, inceptionv4, bninception,
  xception (at 96, it pools adaptively), dpn68 and dpn68b (whose eval mode takes the test-time pooling
  path), nasnetamobile, and the torchvision wrappers (resnet18, alexnet, densenet121, squeezenet1_1);
- ``CLASSES``: the model classes at shallow depths, each a different configuration: ``SENet`` with its
  three bottlenecks (SENet154's 3 x 3 stem and dropout, SE-ResNet's 7 x 7 stem without dropout, SE-ResNeXt's
  groups), ``FBResNet`` (basic and bottleneck blocks), Caffe ``ResNet`` (both blocks), ``DPN`` (small,
  ``b``, with and without test-time pooling);
- ``METHODS``: ``features`` and ``logits`` called as users call them (``gt_calls.Method``, or
  ``gt_calls.Run`` where the method is an attribute of the instance), at batch 2: the trunks of NASNet-A
  large, PNASNet-5 large, Inception v4 and Inception-ResNet v2 at 96 to 128 pixels, of a SENet, a DPN and
  the alexnet wrapper; the logits of the deep networks (senet154, fbresnet152, cafferesnet101, both
  ResNeXt-101s, PolyNet, the NASNets, dpn68, the densenet wrapper) on feature maps of the size they pool;
- ``BLOCKS``: PolyNet's stem, its 2-way and poly-3 Inception-ResNet blocks and reductions, NASNet's and
  PNASNet's cells, DPN's ``DualPathBlock`` and ``adaptive_avgmax_pool2d`` / ``AdaptiveAvgMaxPool2d`` (each
  pooling type);
- ``TRAIN``: train steps (cross-entropy of the logits, ``loss.backward()``) of small SENets, a small DPN,
  FBResNet, nasnetamobile, xception, bninception, and the fine-tuning recipe (a new ``last_linear`` on a
  frozen network).

Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, CLASSES_N = 2, 10
# Whole networks at 224 x 224 or 299 x 299 take one image a batch (the CPU time of the run).
BIG_BATCH = 1

# Factory model name -> (factory in ``pretrainedmodels``, input side).
FACTORIES: dict[str, tuple[str, int]] = {
    "se_resnet50": ("se_resnet50", 224),
    "se_resnext50_32x4d": ("se_resnext50_32x4d", 224),
    "inceptionv4": ("inceptionv4", 299),
    "bninception": ("bninception", 224),
    "xception": ("xception", 96),
    "dpn68": ("dpn68", 224),
    "dpn68b": ("dpn68b", 224),
    "nasnetamobile": ("nasnetamobile", 224),
    "torchvision.resnet18": ("resnet18", 224),
    "torchvision.alexnet": ("alexnet", 224),
    "torchvision.densenet121": ("densenet121", 224),
    "torchvision.squeezenet1_1": ("squeezenet1_1", 224),
}
CLASSES = ("SENet.SEBottleneck", "SENet.SEResNetBottleneck", "SENet.SEResNeXtBottleneck", "FBResNet.BasicBlock",
           "FBResNet.Bottleneck", "CaffeResNet.BasicBlock", "CaffeResNet.Bottleneck", "DPN.small",
           "DPN.small.b", "DPN.small.no_test_time_pool")
# Method model name -> (base, method, input shape).
METHODS: dict[str, tuple[str, str, tuple[int, ...]]] = {
    "nasnetalarge.features": ("nasnetalarge", "features", (BATCH, 3, 96, 96)),
    "nasnetalarge.logits": ("nasnetalarge", "logits", (BATCH, 4032, 11, 11)),
    "pnasnet5large.features": ("pnasnet5large", "features", (BATCH, 3, 96, 96)),
    "pnasnet5large.logits": ("pnasnet5large", "logits", (BATCH, 4320, 11, 11)),
    "polynet.logits": ("polynet", "logits", (BATCH, 2048, 9, 9)),
    "inceptionv4.features": ("inceptionv4", "features", (BATCH, 3, 128, 128)),
    "inceptionv4.logits": ("inceptionv4", "logits", (BATCH, 1536, 8, 8)),
    "inceptionresnetv2.features": ("inceptionresnetv2", "features", (BATCH, 3, 128, 128)),
    "inceptionresnetv2.logits": ("inceptionresnetv2", "logits", (BATCH, 1536, 8, 8)),
    "SENet.features": ("SENet.SEResNeXtBottleneck", "features", (BATCH, 3, 64, 64)),
    "SENet.logits": ("SENet.SEResNeXtBottleneck", "logits", (BATCH, 2048, 7, 7)),
    "DPN.features": ("DPN.small", "features", (BATCH, 3, 64, 64)),
    "nasnetamobile.logits": ("nasnetamobile", "logits", (BATCH, 1056, 7, 7)),
    "torchvision.alexnet.features": ("alexnet", "features", (BATCH, 3, 224, 224)),
    "torchvision.densenet121.logits": ("densenet121", "logits", (BATCH, 1024, 7, 7)),
    "resnext101_32x4d.logits": ("resnext101_32x4d", "logits", (BATCH, 2048, 7, 7)),
    "resnext101_64x4d.logits": ("resnext101_64x4d", "logits", (BATCH, 2048, 7, 7)),
    "senet154.logits": ("senet154", "logits", (BATCH, 2048, 7, 7)),
    "fbresnet152.logits": ("fbresnet152", "logits", (BATCH, 2048, 7, 7)),
    "cafferesnet101.logits": ("cafferesnet101", "logits", (BATCH, 2048, 7, 7)),
    "dpn68.logits": ("dpn68", "logits", (BATCH, 832, 7, 7)),
}
BLOCKS = ("polynet.Stem", "polynet.InceptionResNetA2Way", "polynet.InceptionResNetBPoly3",
          "polynet.InceptionResNetB2Way", "polynet.InceptionResNetCPoly3", "polynet.InceptionResNetC2Way",
          "polynet.ReductionA", "polynet.ReductionB", "nasnet_mobile.NormalCell", "nasnet_mobile.ReductionCell1",
          "nasnet.CellStem0", "pnasnet.Cell", "dpn.adaptive_avgmax_pool2d.avg", "dpn.adaptive_avgmax_pool2d.max",
          "dpn.adaptive_avgmax_pool2d.avgmax", "dpn.adaptive_avgmax_pool2d.avgmaxc", "dpn.AdaptiveAvgMaxPool2d.avgmax",
          "dpn.AdaptiveAvgMaxPool2d.avgmaxc", "dpn.DualPathBlock.proj")
# Train step name -> (base, input side, options: "finetune" for a new ``last_linear`` on frozen features).
TRAIN: dict[str, tuple[str, int, str]] = {
    "train_step.SENet.SEBottleneck": ("SENet.SEBottleneck", 224, ""),
    "train_step.SENet.SEResNeXtBottleneck": ("SENet.SEResNeXtBottleneck", 224, ""),
    "train_step.DPN.small": ("DPN.small", 224, ""),
    "train_step.FBResNet.Bottleneck": ("FBResNet.Bottleneck", 224, ""),
    "train_step.nasnetamobile": ("nasnetamobile", 224, ""),
    "train_step.xception": ("xception", 96, ""),
    "train_step.bninception": ("bninception", 224, ""),
    "train_step.finetune.SENet": ("SENet.SEResNetBottleneck", 224, "finetune"),
}


def names() -> list[str]:
    return list(FACTORIES) + list(CLASSES) + list(METHODS) + [f"blocks.{b}" for b in BLOCKS] + list(TRAIN)


def _rand(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _class(name: str) -> Any:
    """A model class of the zoo at a shallow depth (one block a stage, narrow where the class allows)."""
    from pretrainedmodels.models import cafferesnet, dpn, fbresnet, senet

    if name == "SENet.SEBottleneck":
        return senet.SENet(senet.SEBottleneck, [1, 1, 1, 1], groups=8, reduction=16, dropout_p=0.2,
                           num_classes=CLASSES_N)
    if name == "SENet.SEResNetBottleneck":
        return senet.SENet(senet.SEResNetBottleneck, [1, 1, 1, 1], groups=1, reduction=16, dropout_p=None,
                           inplanes=64, input_3x3=False, downsample_kernel_size=1, downsample_padding=0,
                           num_classes=CLASSES_N)
    if name == "SENet.SEResNeXtBottleneck":
        return senet.SENet(senet.SEResNeXtBottleneck, [1, 1, 1, 1], groups=32, reduction=16, dropout_p=None,
                           inplanes=64, input_3x3=False, downsample_kernel_size=1, downsample_padding=0,
                           num_classes=CLASSES_N)
    if name == "FBResNet.BasicBlock":
        return fbresnet.FBResNet(fbresnet.BasicBlock, [1, 1, 1, 1], num_classes=CLASSES_N)
    if name == "FBResNet.Bottleneck":
        return fbresnet.FBResNet(fbresnet.Bottleneck, [1, 1, 1, 1], num_classes=CLASSES_N)
    if name == "CaffeResNet.BasicBlock":
        return cafferesnet.ResNet(cafferesnet.BasicBlock, [1, 1, 1, 1], num_classes=CLASSES_N)
    if name == "CaffeResNet.Bottleneck":
        return cafferesnet.ResNet(cafferesnet.Bottleneck, [1, 1, 1, 1], num_classes=CLASSES_N)
    small = {"small": True, "num_init_features": 16, "k_r": 16, "groups": 4, "k_sec": (1, 1, 2, 1),
             "inc_sec": (8, 8, 8, 8), "num_classes": CLASSES_N}
    if name == "DPN.small":
        return dpn.DPN(test_time_pool=True, **small)
    if name == "DPN.small.b":
        return dpn.DPN(b=True, test_time_pool=True, **small)
    return dpn.DPN(test_time_pool=False, **small)


def _model(base: str) -> Any:
    import pretrainedmodels

    if base in CLASSES:
        return _class(base)
    factory = FACTORIES[base][0] if base in FACTORIES else base
    classes = 1001 if factory in ("nasnetalarge", "nasnetamobile", "pnasnet5large") else CLASSES_N
    return getattr(pretrainedmodels, factory)(num_classes=classes, pretrained=None)


def _block(name: str) -> Built:
    import importlib

    from gt_calls import Call, Keywords

    # ``pretrainedmodels.models.polynet`` is the factory, which shadows its module: import the modules by name.
    dpn, nasnet, nasnet_mobile, pnasnet, polynet = (importlib.import_module(f"pretrainedmodels.models.{m}")
                                                    for m in ("dpn", "nasnet", "nasnet_mobile", "pnasnet", "polynet"))

    block = name.removeprefix("blocks.")
    if block.startswith("dpn.adaptive_avgmax_pool2d."):
        return Call(dpn.adaptive_avgmax_pool2d, pool_type=block.rsplit(".", 1)[1]), (_rand(BATCH, 8, 5, 5),), {}
    if block.startswith("dpn.AdaptiveAvgMaxPool2d."):
        return dpn.AdaptiveAvgMaxPool2d(pool_type=block.rsplit(".", 1)[1]), (_rand(BATCH, 8, 5, 5),), {}
    if block == "dpn.DualPathBlock.proj":
        return dpn.DualPathBlock(16, 16, 16, 32, 8, 4, "proj", False), (_rand(BATCH, 16, 8, 8),), {}
    poly: dict[str, tuple[Any, tuple[int, ...]]] = {
        "polynet.Stem": (polynet.Stem, (BATCH, 3, 96, 96)),
        "polynet.InceptionResNetA2Way": (lambda: polynet.InceptionResNetA2Way(scale=0.9), (BATCH, 384, 5, 5)),
        "polynet.InceptionResNetBPoly3": (lambda: polynet.InceptionResNetBPoly3(scale=0.9), (BATCH, 1152, 4, 4)),
        "polynet.InceptionResNetB2Way": (lambda: polynet.InceptionResNetB2Way(scale=0.9), (BATCH, 1152, 4, 4)),
        "polynet.InceptionResNetCPoly3": (lambda: polynet.InceptionResNetCPoly3(scale=0.9), (BATCH, 2048, 3, 3)),
        "polynet.InceptionResNetC2Way": (lambda: polynet.InceptionResNetC2Way(scale=0.9), (BATCH, 2048, 3, 3)),
        "polynet.ReductionA": (polynet.ReductionA, (BATCH, 384, 9, 9)),
        "polynet.ReductionB": (polynet.ReductionB, (BATCH, 1152, 9, 9)),
    }
    if block in poly:
        make, shape = poly[block]
        return make(), (_rand(*shape),), {}
    if block == "nasnet_mobile.NormalCell":
        cell = nasnet_mobile.NormalCell(in_channels_left=16, out_channels_left=8, in_channels_right=16,
                                        out_channels_right=8)
        return Keywords(cell, x_prev=_rand(BATCH, 16, 8, 8, seed=1)), (_rand(BATCH, 16, 8, 8),), {}
    if block == "nasnet_mobile.ReductionCell1":
        cell = nasnet_mobile.ReductionCell1(in_channels_left=16, out_channels_left=8, in_channels_right=16,
                                            out_channels_right=8)
        return Keywords(cell, x_prev=_rand(BATCH, 16, 8, 8, seed=1)), (_rand(BATCH, 16, 8, 8),), {}
    if block == "nasnet.CellStem0":
        return nasnet.CellStem0(16, num_filters=8), (_rand(BATCH, 16, 16, 16),), {}
    cell = pnasnet.Cell(in_channels_left=16, out_channels_left=8, in_channels_right=16, out_channels_right=8)
    return Keywords(cell, x_right=_rand(BATCH, 16, 8, 8, seed=1)), (_rand(BATCH, 16, 8, 8),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    base, side, option = TRAIN[name]
    model = _model(base)
    classes = model.last_linear.out_channels if isinstance(model.last_linear, nn.Conv2d) \
        else model.last_linear.out_features
    if option == "finetune":
        model.requires_grad_(False)
        model.last_linear = nn.Linear(model.last_linear.in_features, 3)
        classes = 3

    class _TrainStep(nn.Module):
        """Cross-entropy of the logits and ``loss.backward()``, what a training loop runs before the step."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, images: Any, target: Any) -> Any:
            with torch.enable_grad():
                loss = F.cross_entropy(self.model(images), target)
                loss.backward()
            return loss.detach()

        def entry_points(self) -> list[Any]:
            return [type(self.model)]

    target = torch.randint(0, classes, (BIG_BATCH,), generator=torch.Generator().manual_seed(3))
    return _TrainStep(), (_rand(BIG_BATCH, 3, side, side), target), {}


def build(name: str) -> Built:
    import torch

    from gt_models import allow_torchvision_import

    allow_torchvision_import()
    torch.manual_seed(0)
    if name in FACTORIES:
        return _model(name), (_rand(BIG_BATCH, 3, FACTORIES[name][1], FACTORIES[name][1]),), {}
    if name in CLASSES:
        return _class(name), (_rand(BIG_BATCH, 3, 224, 224),), {}
    if name in METHODS:
        from gt_calls import Method, Run

        base, method, shape = METHODS[name]
        model = _model(base)
        if not hasattr(type(model), method) or isinstance(getattr(type(model), method), torch.nn.Module):
            # The torchvision wrappers bind ``features`` / ``logits`` functions onto the instance; DPN's
            # ``features`` is a ``Sequential`` of its blocks.
            bound = getattr(model, method)
            entries = [type(model)] if isinstance(bound, torch.nn.Module) else [bound.__func__]
            return Run(model, lambda owner, x: getattr(owner, method)(x), entries), (_rand(*shape),), {}
        return Method(model, method), (_rand(*shape),), {}
    if name.startswith("blocks."):
        return _block(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
