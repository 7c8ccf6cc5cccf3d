"""Ground-truth bench, efficientnet_pytorch: EfficientNet b0-b3 from names, their feature extractors, train steps, blocks and utils.

efficientnet_pytorch 0.7.1 (lukemelas) is the PyTorch port of the TensorFlow EfficientNets:
``EfficientNet`` (a "same"-padded stem, a stack of ``MBConvBlock`` s with squeeze-and-excitation and drop
connect, a 1 x 1 head and a classifier), built by ``EfficientNet.from_name('efficientnet-bN', ...)`` from
the compound-scaling coefficients of ``utils.efficientnet_params``. Its activation is the
``MemoryEfficientSwish`` (a custom ``torch.autograd.Function``) unless ``set_swish(memory_efficient=False)``
switches it to plain swish (``nn.SiLU``), which the README asks for before export. Giving ``image_size``
builds convolutions with static "same" padding (``Conv2dStaticSamePadding``); ``image_size=None`` builds
ones that pad in the forward (``Conv2dDynamicSamePadding``). So the tables cover:

- ``MODELS``: ``EfficientNet.from_name`` for b0 to b3 (full widths and depths, random weights, the
  default static padding for each model's own image size, as ``from_name(name)`` builds them; b4 to b8
  and l2 run the same code with more blocks, so they are left out to keep the library's run short),
  and b0 in the configurations that change its code: ``image_size`` matching the input, plain swish,
  dynamic padding (also on an odd image size and with plain swish), ``include_top=False``, dropout and
  drop connect off, ``in_channels=1``, other width and depth coefficients, a replaced classifier
  (``model._fc = nn.Linear(...)``, the fine-tuning recipe), and a network built from custom block
  strings (``utils.efficientnet`` with ``BlockDecoder.decode``), with static and dynamic padding;
- ``METHODS``: ``extract_features`` and ``extract_endpoints`` (``gt_calls.Method``) with both swishes
  and both paddings;
- ``TRAIN``: bench train steps (``_TrainStep``): the cross-entropy of b0's logits (memory-efficient and
  plain swish, dynamic padding) and of a new head on the pooled ``extract_features`` of a model built
  with ``include_top=False``;
- ``BLOCKS``: ``MBConvBlock`` from ``BlockArgs`` (expansion 1 and 6, stride 2, no squeeze-and-excitation,
  no identity skip, with a drop connect rate in train mode, plain swish, dynamic padding);
- ``UTILS``: the padded convolutions and max-pools (static and dynamic, from
  ``get_same_padding_conv2d`` / ``get_same_padding_maxPool2d``), both swish modules, and
  ``drop_connect`` (``gt_calls.Call``) in training and inference.

Inputs are batches of two 32 x 32 images (three channels unless named). Random weights, nothing
downloaded (``from_pretrained`` is never called). ``names()`` needs no torch; ``build`` runs in a worker
only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SIZE = 2, 32
B0 = "efficientnet-b0"
# Blocks strings as ``utils.efficientnet`` decodes them: a small custom network of four stages.
CUSTOM_BLOCKS = ["r1_k3_s11_e1_i32_o16_se0.25", "r2_k3_s22_e4_i16_o24_se0.25", "r1_k5_s22_e6_i24_o40",
                 "r2_k3_s11_e6_i40_o48_se0.5_noskip"]

# Model name -> (model name given to ``from_name``, ``from_name`` keywords, options). Options:
# "swish" False for ``set_swish(memory_efficient=False)``, "size" the input's side, "fc" a replaced
# classifier of that many classes, "custom" built from ``CUSTOM_BLOCKS``.
MODELS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    **{f"efficientnet-b{i}": (f"efficientnet-b{i}", {}, {}) for i in range(4)},
    "efficientnet-b0.image_size32": (B0, {"image_size": SIZE}, {}),
    "efficientnet-b0.swish": (B0, {}, {"swish": False}),
    "efficientnet-b0.dynamic_padding": (B0, {"image_size": None}, {}),
    "efficientnet-b0.dynamic_padding.odd_size": (B0, {"image_size": None}, {"size": 33}),
    "efficientnet-b0.dynamic_padding.swish": (B0, {"image_size": None}, {"swish": False}),
    "efficientnet-b0.no_top": (B0, {"include_top": False}, {}),
    "efficientnet-b0.no_dropout": (B0, {"dropout_rate": 0.0, "drop_connect_rate": 0.0}, {}),
    "efficientnet-b0.in_channels1": (B0, {"in_channels": 1}, {}),
    "efficientnet-b0.width_depth": (B0, {"width_coefficient": 0.5, "depth_coefficient": 0.5, "min_depth": 8}, {}),
    "efficientnet-b0.replace_fc": (B0, {}, {"fc": 5}),
    "custom_blocks": ("custom", {"image_size": SIZE, "num_classes": 7}, {"custom": True}),
    "custom_blocks.dynamic_padding": ("custom", {"image_size": None, "num_classes": 7}, {"custom": True}),
}
# Method model name -> (base model name in ``MODELS``, method).
METHODS: dict[str, tuple[str, str]] = {
    "extract_features": ("efficientnet-b0", "extract_features"),
    "extract_features.swish": ("efficientnet-b0.swish", "extract_features"),
    "extract_features.dynamic_padding": ("efficientnet-b0.dynamic_padding", "extract_features"),
    "extract_endpoints": ("efficientnet-b0", "extract_endpoints"),
    "extract_endpoints.swish": ("efficientnet-b0.swish", "extract_endpoints"),
    "extract_endpoints.dynamic_padding": ("efficientnet-b0.dynamic_padding", "extract_endpoints"),
}
# Train step name -> (base model name in ``MODELS``, loss): "ce" cross-entropy of the logits, "features" a
# pooled ``extract_features`` backbone with a new head.
TRAIN: dict[str, tuple[str, str]] = {
    "train_step.b0": ("efficientnet-b0", "ce"),
    "train_step.b0.swish": ("efficientnet-b0.swish", "ce"),
    "train_step.b0.dynamic_padding": ("efficientnet-b0.dynamic_padding", "ce"),
    "train_step.b0.features_head": ("efficientnet-b0.no_top", "features"),
}
# ``MBConvBlock`` name -> (``BlockArgs`` fields, options: "image_size" (None for dynamic padding),
# "drop_connect_rate" given to the forward, "swish" False for plain swish).
BLOCKS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "MBConvBlock": ({}, {}),
    "MBConvBlock.expand1": ({"expand_ratio": 1}, {}),
    "MBConvBlock.stride2": ({"stride": [2], "output_filters": 24, "kernel_size": 5}, {}),
    "MBConvBlock.no_se": ({"se_ratio": None}, {}),
    "MBConvBlock.no_skip": ({"id_skip": False}, {}),
    "MBConvBlock.drop_connect": ({}, {"drop_connect_rate": 0.2}),
    "MBConvBlock.swish": ({}, {"swish": False}),
    "MBConvBlock.dynamic_padding": ({"stride": [2], "output_filters": 24}, {"image_size": None}),
}
UTILS = ("Conv2dStaticSamePadding", "Conv2dStaticSamePadding.stride2", "Conv2dDynamicSamePadding",
         "Conv2dDynamicSamePadding.stride2_dilation", "MaxPool2dStaticSamePadding", "MaxPool2dDynamicSamePadding",
         "MemoryEfficientSwish", "Swish", "drop_connect.training", "drop_connect.eval")


def names() -> list[str]:
    return list(MODELS) + list(METHODS) + list(TRAIN) + list(BLOCKS) + [f"utils.{n}" for n in UTILS]


def images(channels: int = 3, size: int = SIZE, seed: int = 0) -> Any:
    import torch

    return torch.randn(BATCH, channels, size, size, generator=torch.Generator().manual_seed(seed))


def _model(name: str) -> tuple[Any, Any]:
    """The model of ``MODELS[name]`` and its input images."""
    from efficientnet_pytorch import EfficientNet
    from efficientnet_pytorch.utils import BlockDecoder, efficientnet
    from torch import nn

    model_name, keywords, options = MODELS[name]
    if options.get("custom"):
        blocks_args, global_params = efficientnet(width_coefficient=1.0, depth_coefficient=1.0,
                                                  dropout_rate=0.2, drop_connect_rate=0.2)
        global_params = global_params._replace(**keywords)
        model = EfficientNet(BlockDecoder.decode(CUSTOM_BLOCKS), global_params)
    else:
        model = EfficientNet.from_name(model_name, **keywords)
    if options.get("swish") is False:
        model.set_swish(memory_efficient=False)
    if "fc" in options:
        model._fc = nn.Linear(model._fc.in_features, options["fc"])
    return model, images(keywords.get("in_channels", 3), options.get("size", SIZE))


def _train_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    base, loss = TRAIN[name]
    model, x = _model(base)

    class _TrainStep(nn.Module):
        """Forward and loss, what a training loop runs before ``backward``."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model
            if loss == "features":
                self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
                                          nn.Linear(model._bn1.num_features, 4))

        def forward(self, images_: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            if loss == "features":
                return F.cross_entropy(self.head(self.model.extract_features(images_)), target)
            return F.cross_entropy(self.model(images_), target)

        def entry_points(self) -> list[Any]:
            return [type(self.model).extract_features if loss == "features" else type(self.model)]

    gen = torch.Generator().manual_seed(3)
    classes = 4 if loss == "features" else model._global_params.num_classes
    target = torch.randint(0, classes, (BATCH,), generator=gen)
    return _TrainStep(), (x, target), {}


def _block(name: str) -> Built:
    from efficientnet_pytorch.utils import BlockArgs, efficientnet

    from gt_calls import Method

    fields, options = BLOCKS[name]
    args = BlockArgs(**{"num_repeat": 1, "kernel_size": 3, "stride": 1, "expand_ratio": 6, "input_filters": 16,
                        "output_filters": 16, "se_ratio": 0.25, "id_skip": True, **fields})
    _, global_params = efficientnet(image_size=16)
    from efficientnet_pytorch.model import MBConvBlock

    block = MBConvBlock(args, global_params, image_size=options.get("image_size", 16))
    if options.get("swish") is False:
        block.set_swish(memory_efficient=False)
    x = images(16, 16, seed=1)
    if "drop_connect_rate" in options:
        return Method(block, "forward", drop_connect_rate=options["drop_connect_rate"]), (x,), {}
    return block, (x,), {}


def _util(name: str) -> Built:
    from efficientnet_pytorch import utils

    from gt_calls import Call

    x = images(4, 15, seed=2)
    if name == "Conv2dStaticSamePadding":
        return utils.get_same_padding_conv2d(image_size=15)(4, 8, kernel_size=3), (x,), {}
    if name == "Conv2dStaticSamePadding.stride2":
        return utils.get_same_padding_conv2d(image_size=(15, 15))(4, 8, kernel_size=5, stride=2, bias=False), (x,), {}
    if name == "Conv2dDynamicSamePadding":
        return utils.get_same_padding_conv2d(image_size=None)(4, 8, kernel_size=3), (x,), {}
    if name == "Conv2dDynamicSamePadding.stride2_dilation":
        return utils.Conv2dDynamicSamePadding(4, 8, kernel_size=3, stride=2, dilation=2, groups=4), (x,), {}
    if name == "MaxPool2dStaticSamePadding":
        return utils.get_same_padding_maxPool2d(image_size=15)(3, 2), (x,), {}
    if name == "MaxPool2dDynamicSamePadding":
        return utils.get_same_padding_maxPool2d(image_size=None)(3, 2), (x,), {}
    if name == "MemoryEfficientSwish":
        return utils.MemoryEfficientSwish(), (x,), {}
    if name == "Swish":
        return utils.Swish(), (x,), {}
    return Call(utils.drop_connect, p=0.3, training=name.endswith("training")), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    from gt_calls import Method

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        model, x = _model(name)
        return model, (x,), {}
    if name in METHODS:
        base, method = METHODS[name]
        model, x = _model(base)
        return Method(model, method), (x,), {}
    if name in TRAIN:
        return _train_step(name)
    if name in BLOCKS:
        return _block(name)
    return _util(name.split(".", 1)[1])
