"""Ground-truth bench, torchxrayvision: chest X-ray classifiers, autoencoders, baselines and preprocessing.

torchxrayvision's core classifiers take one-channel images scaled to [-1024, 1024]: ``models.DenseNet`` (a
DenseNet whose ``forward`` resizes to the weights' ``input_resolution`` with ``utils.fix_resolution``,
checks the scaling once with ``utils.warn_normalization``, pools ``features2`` and, with operating-point
thresholds, applies ``op_norm``, a masked rescaling, else an optional sigmoid) and ``models.ResNet``
(torchvision's ResNet-50 behind the same interface, resizing to 512 in ``features``). ``autoencoders``
holds ``ResNetAE50`` / ``ResNetAE101`` (``encode``, which checks the resolution when weights metadata is
present, ``decode`` to a given size, ``features``). ``baseline_models`` adapts other papers' networks
to the same input (repeat to three channels, resize, rescale, normalise). ``datasets`` ships the
preprocessing transforms (``XRayCenterCrop``, ``XRayResizer``) and ``apply_transforms``. So the tables
cover, with random weights:

- ``DENSENET``: small ``DenseNet`` configurations (growth 8, four blocks of two layers, 16 initial features,
  2 x 1 x 64 x 64 inputs) plain, with a sigmoid, with the "all" weights' operating points (NaN among
  them), with an ``input_resolution`` as loaded weights set (same size and resized, 3-D input), with
  dropout, three input channels; ``features2`` and the ``features`` trunk; the densenet-121 layout from
  ``get_densenet_params``; a training step (BCE on labels with missing entries masked out);
- ``RESNET``: ``ResNet`` built as its constructor does after the download (the "resnet50-res512-all"
  labels, operating points and 512 resolution; torchvision's ResNet-50 with random weights): forward,
  without operating points but with a sigmoid, and ``features``;
- ``AUTOENCODER``: ``ResNetAE50`` forward, ``encode`` with the resolution check of loaded weights,
  ``decode``, ``features``, the default ``ResNetAE()`` (ResNet-101 layout) ``encode``, and single
  ``Bottleneck`` / ``DeconvBottleneck`` blocks (128 x 128 inputs, the smallest the decoder's strides allow);
- ``BASELINES``: the baselines that need no download or whose constructor only adds downloaded weights to
  an architecture, built the same way without them: ``jfhealthcare.DenseNet`` (its example config, ImageNet
  weights off), ``mira.SexModel(weights=False)``,
  ``emory_hiti.RaceModel``, ``xinario.ViewModel``, ``chestx_anatomy.UNetResNet50(weights=False)`` (tensor
  and dict input), ``chestx_det.PSPNet`` (batch 1 but for PSPNet and jfhealthcare, which pool to 1 x 1
  before a batch norm: they resize to 224 to 512 pixels);
- ``JF``: jfhealthcare's ``Classifier`` itself on 2 x 3 x 128 x 128 inputs, across its config: the example
  (densenet121, FPA attention, average-and-max pooling), CAM attention with log-sum-exp pooling, max,
  exponential and linear pooling, average-max-LSE pooling with dropout and no feature batch norm, a
  VGG-19-BN and an Inception-v3 backbone, instance norm;
- ``FUNCTIONS``: ``op_norm``, ``utils.fix_resolution`` (resize, 3-D input, native size),
  ``utils.warn_normalization`` (in and out of range), ``utils.normalize`` on an image array,
  ``XRayCenterCrop`` on a tensor, ``XRayResizer`` on an array, ``apply_transforms`` with masks.

The chexpert, riken and ieee8023 baselines load their architecture or configuration from the
downloaded files themselves, so they are left out. Nothing is downloaded. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
SMALL: dict[str, Any] = {"growth_rate": 8, "block_config": (2, 2, 2, 2), "num_init_features": 16, "bn_size": 2}
ALL_WEIGHTS = "densenet121-res224-all"
RESNET_WEIGHTS = "resnet50-res512-all"

# ``DenseNet`` name -> (constructor keywords over ``SMALL``, options: "op_threshs" (the "all" weights'
# thresholds), "resolution" (an ``input_resolution`` attribute, as loaded weights set it), "size" (input
# side), "channels", "call": "forward" | "features2" | "features" | "train").
DENSENET: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "DenseNet": ({}, {}),
    "DenseNet.apply_sigmoid": ({"apply_sigmoid": True}, {}),
    "DenseNet.op_threshs": ({}, {"op_threshs": True}),
    "DenseNet.op_threshs.input_resolution": ({}, {"op_threshs": True, "resolution": 64}),
    "DenseNet.input_resolution.resize": ({"apply_sigmoid": True}, {"resolution": 64, "size": 48}),
    "DenseNet.input_resolution.3d_input": ({}, {"resolution": 64, "size": 64, "unbatched": True}),
    "DenseNet.drop_rate": ({"drop_rate": 0.2}, {}),
    "DenseNet.in_channels3": ({"in_channels": 3, "num_classes": 5}, {"channels": 3}),
    "DenseNet.features2": ({}, {"call": "features2", "resolution": 64}),
    "DenseNet.features": ({}, {"call": "features"}),
    "DenseNet.densenet121": ({"densenet121": True}, {"op_threshs": True}),
    "train_step.DenseNet": ({}, {"call": "train"}),
}
RESNET = ("ResNet", "ResNet.apply_sigmoid", "ResNet.features")
AUTOENCODER = ("ResNetAE50", "ResNetAE50.encode.check_resolution", "ResNetAE50.decode", "ResNetAE50.features",
               "ResNetAE.default.encode", "Bottleneck", "DeconvBottleneck")
# ``jfhealthcare`` ``Classifier`` name -> (overrides of the package's ``config/example.json``, input side). The
# example config (densenet121, "AVG_MAX" pooling, "FPA" attention, batch norm, a batch norm on the pooled
# features) with ``pretrained`` off. "SAM" attention and "PCAM" pooling call ``softmax(dims=...)`` and fail
# eagerly, so they are left out.
JF: dict[str, tuple[dict[str, Any], int]] = {
    "jfhealthcare.Classifier": ({}, 128),
    "jfhealthcare.Classifier.cam.lse": ({"attention_map": "CAM", "global_pool": "LSE"}, 128),
    "jfhealthcare.Classifier.max": ({"attention_map": "None", "global_pool": "MAX"}, 128),
    "jfhealthcare.Classifier.exp": ({"attention_map": "None", "global_pool": "EXP"}, 128),
    "jfhealthcare.Classifier.linear": ({"attention_map": "None", "global_pool": "LINEAR"}, 128),
    "jfhealthcare.Classifier.avg_max_lse.fc_drop": ({"global_pool": "AVG_MAX_LSE", "fc_drop": 0.2, "fc_bn": False},
                                                    128),
    "jfhealthcare.Classifier.vgg19_bn": ({"backbone": "vgg19_bn", "global_pool": "AVG"}, 128),
    "jfhealthcare.Classifier.instance_norm": ({"norm_type": "InstanceNorm", "attention_map": "None"}, 128),
    "jfhealthcare.Classifier.inception_v3": ({"backbone": "inception_v3", "global_pool": "AVG",
                                              "attention_map": "None"}, 160),
}
BASELINES = ("jfhealthcare.DenseNet", "mira.SexModel", "emory_hiti.RaceModel", "xinario.ViewModel",
             "chestx_anatomy.UNetResNet50",
             "chestx_anatomy.UNetResNet50.dict_input", "chestx_det.PSPNet")
FUNCTIONS = ("op_norm", "utils.fix_resolution", "utils.fix_resolution.3d", "utils.fix_resolution.native",
             "utils.warn_normalization", "utils.warn_normalization.out_of_range", "utils.normalize",
             "XRayCenterCrop", "XRayResizer", "apply_transforms.masks")


def names() -> list[str]:
    return list(DENSENET) + list(RESNET) + list(AUTOENCODER) + list(BASELINES) + list(JF) + list(FUNCTIONS)


def _xray(batch: int = BATCH, size: int = 64, channels: int = 1, seed: int = 1) -> Any:
    """Images in the library's [-1024, 1024] scaling."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    return torch.rand(batch, channels, size, size, generator=gen) * 2048 - 1024


def _fresh_warnings() -> None:
    """``warn_normalization`` checks the first batch a process sees; each model starts as a fresh process."""
    from torchxrayvision import utils

    utils.warning_log.clear()


def _densenet(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torchxrayvision as xrv

    from gt_calls import Method, Run

    keywords, options = DENSENET[name]
    keywords = dict(keywords)
    if keywords.pop("densenet121", False):
        keywords.update(xrv.models.get_densenet_params("densenet121"))
    else:
        keywords = {**SMALL, **keywords}
    if options.get("op_threshs"):
        keywords["op_threshs"] = torch.tensor(xrv.models.model_urls[ALL_WEIGHTS]["op_threshs"], dtype=torch.float32)
    model = xrv.models.DenseNet(**keywords)
    if "resolution" in options:
        model.input_resolution = options["resolution"]
    x = _xray(size=options.get("size", 64), channels=options.get("channels", 1))
    if options.get("unbatched"):
        x = x[0]
    call = options.get("call", "forward")
    if call == "forward":
        return model, (x,), {}
    if call == "features2":
        return Method(model, "features2"), (x,), {}
    if call == "features":
        return model.features, (x,), {}
    labels = torch.tensor([[1.0, 0.0, float("nan")] * 6, [0.0, float("nan"), 1.0] * 6])

    def train_step(owner: Any, images: Any, targets: Any) -> Any:
        """The library's training recipe: BCE with logits on the labelled tasks only (NaN means unlabelled)."""
        logits = owner(images)
        mask = ~torch.isnan(targets)
        return F.binary_cross_entropy_with_logits(logits[mask], targets[mask])

    return Run(model, train_step, [xrv.models.DenseNet]), (x, labels), {}


def _resnet(name: str) -> Any:
    """``models.ResNet`` as its constructor leaves it after loading the weights, with the architecture's
    random initialisation instead."""
    import torch
    import torchvision
    import torchxrayvision as xrv
    from torch import nn

    model = xrv.models.ResNet.__new__(xrv.models.ResNet)
    nn.Module.__init__(model)
    model.weights = RESNET_WEIGHTS
    model.apply_sigmoid = name.endswith("apply_sigmoid")
    model.weights_dict = xrv.models.model_urls[RESNET_WEIGHTS]
    model.targets = model.weights_dict["labels"]
    model.pathologies = model.targets
    model.model = torchvision.models.resnet50(num_classes=len(model.targets), weights=None)
    model.model.conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)  # one channel, as there
    if not model.apply_sigmoid:
        model.register_buffer("op_threshs", torch.tensor(model.weights_dict["op_threshs"], dtype=torch.float32))
    model.input_resolution = model.weights_dict["input_resolution"]
    return model


def _autoencoder(name: str) -> Built:
    import torch
    from torchxrayvision import autoencoders

    from gt_calls import Method

    gen = torch.Generator().manual_seed(3)
    if name == "Bottleneck":
        downsample = torch.nn.Sequential(torch.nn.Conv2d(16, 32, 1, stride=2, bias=False), torch.nn.BatchNorm2d(32))
        return autoencoders.Bottleneck(16, 8, stride=2, downsample=downsample), \
            (torch.randn(BATCH, 16, 16, 16, generator=gen),), {}
    if name == "DeconvBottleneck":
        upsample = torch.nn.Sequential(torch.nn.ConvTranspose2d(32, 16, 1, stride=2, bias=False, output_padding=1),
                                       torch.nn.BatchNorm2d(16))
        return autoencoders.DeconvBottleneck(32, 8, 2, 2, upsample), \
            (torch.randn(BATCH, 32, 8, 8, generator=gen),), {}
    x = _xray(batch=1, size=128)
    if name == "ResNetAE.default.encode":
        return Method(autoencoders.ResNetAE(), "encode"), (x,), {}
    ae = autoencoders.ResNetAE50()
    if name == "ResNetAE50":
        return ae, (x,), {}
    if name == "ResNetAE50.encode.check_resolution":
        ae.weights = "101-elastic"
        ae.weights_metadata = {**autoencoders.model_urls["101-elastic"], "resolution": 128}
        return Method(ae, "encode"), (x,), {}
    if name == "ResNetAE50.features":
        return Method(ae, "features"), (x,), {}
    with torch.no_grad():
        z = ae.encode(x)
    return Method(ae, "decode", image_size=[1, 1, 128, 128]), (z,), {}


def _jf_config(overrides: dict[str, Any]) -> Any:
    """The jfhealthcare example configuration as the package's wrapper reads it (an attribute namespace), with
    ImageNet weights off."""
    import json
    import os
    import types

    from torchxrayvision.baseline_models import jfhealthcare

    with open(os.path.join(os.path.dirname(jfhealthcare.__file__), "config", "example.json")) as f:
        config = json.load(f)
    return types.SimpleNamespace(**{**config, "pretrained": False, **overrides})


def _jf(name: str) -> Built:
    from torchxrayvision.baseline_models.jfhealthcare.model import classifier

    overrides, size = JF[name]
    return classifier.Classifier(_jf_config(overrides)), (_xray(size=size, channels=3) / 512,), {}


def _baseline(name: str) -> Built:
    import numpy as np
    import torch
    import torchvision
    from torch import nn
    from torchxrayvision import baseline_models as bm

    x = _xray(batch=1, size=64)
    if name == "jfhealthcare.DenseNet":
        from torchxrayvision.baseline_models.jfhealthcare.model import classifier

        model = bm.jfhealthcare.DenseNet.__new__(bm.jfhealthcare.DenseNet)
        nn.Module.__init__(model)
        model.apply_sigmoid = True
        model.cfg = _jf_config({})
        model.model = nn.DataParallel(classifier.Classifier(model.cfg)).eval()
        model.pathologies = model.targets
        return model, (_xray(size=64),), {}  # two images: a batch norm follows the pooled features
    if name == "mira.SexModel":
        return bm.mira.SexModel(weights=False), (x,), {}
    if name.startswith("chestx_anatomy"):
        model = bm.chestx_anatomy.UNetResNet50(weights=False)
        if name.endswith("dict_input"):
            image = torch.rand(1, 3, 128, 128, generator=torch.Generator().manual_seed(2))
            return model, ({"data": image, "filename": "cxr.png"},), {}
        return model, (x,), {}
    if name == "chestx_det.PSPNet":
        from torchxrayvision.baseline_models.chestx_det.ptsemseg.pspnet import pspnet

        model = bm.chestx_det.PSPNet.__new__(bm.chestx_det.PSPNet)
        nn.Module.__init__(model)
        model.transform = torchvision.transforms.Compose([
            torchvision.transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
        model.model = pspnet(len(model.targets)).eval()
        return model, (_xray(size=64),), {}  # two images: its pyramid pools to 1 x 1 before a batch norm
    if name == "emory_hiti.RaceModel":
        model = bm.emory_hiti.RaceModel.__new__(bm.emory_hiti.RaceModel)
        nn.Module.__init__(model)
        net = torchvision.models.resnet34(weights=None)
        net.fc = nn.Sequential(nn.Linear(512, 3), nn.LogSoftmax(dim=1))
        model.model = nn.DataParallel(net)
        model.mean = np.array([0.485, 0.456, 0.406])
        model.std = np.array([0.229, 0.224, 0.225])
        model.norm = torchvision.transforms.Normalize(model.mean, model.std)
        return model, (x,), {}
    model = bm.xinario.ViewModel.__new__(bm.xinario.ViewModel)
    nn.Module.__init__(model)
    model.model = torchvision.models.resnet.resnet50().eval()
    model.norm = torchvision.transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    return model, (x,), {}


def _functions(name: str) -> Built:
    import torch
    import torchxrayvision as xrv
    from torchxrayvision import datasets, utils

    from gt_calls import Call, Run

    gen = torch.Generator().manual_seed(4)
    model = torch.nn.Identity()
    if name == "op_norm":
        thresholds = torch.tensor(xrv.models.model_urls[ALL_WEIGHTS]["op_threshs"], dtype=torch.float32)
        return Call(xrv.models.op_norm), (torch.rand(BATCH, 18, generator=gen), thresholds), {}
    if name.startswith("utils.fix_resolution"):
        x = _xray(size=48)
        if name.endswith(".3d"):
            x = x[0]
        resolution = 48 if name.endswith("native") else 64
        return Run(model, lambda owner, image: utils.fix_resolution(image, resolution, owner),
                   [utils.fix_resolution]), (x,), {}
    if name.startswith("utils.warn_normalization"):
        x = _xray(size=16) / (100.0 if name.endswith("out_of_range") else 1.0)

        def check(owner: Any, image: Any) -> Any:
            utils.warn_normalization(image)
            return image * 1.0

        return Run(model, check, [utils.warn_normalization]), (x,), {}
    if name == "utils.normalize":
        def scale(owner: Any, image: Any) -> Any:
            """An 8-bit image as an array, scaled to [-1024, 1024] with a channel axis, back as a tensor."""
            return torch.from_numpy(utils.normalize(image.numpy(), 255, reshape=True))

        image = torch.randint(0, 256, (32, 40, 3), generator=gen).to(torch.uint8)
        return Run(model, scale, [utils.normalize]), (image,), {}
    if name == "XRayCenterCrop":
        return Call(datasets.XRayCenterCrop()), (_xray(batch=1, size=48)[0, :, :, :40],), {}
    if name == "XRayResizer":
        resizer = datasets.XRayResizer(32)
        return Run(model, lambda owner, image: torch.from_numpy(resizer(image.numpy())),
                   [datasets.XRayResizer.__call__]), (_xray(batch=1, size=48)[0],), {}
    transform = _compose()

    def augment(owner: Any, image: Any, mask: Any) -> Any:
        sample = {"img": image, "pathology_masks": {0: mask}, "semantic_masks": {"Left Lung": mask * 2}}
        sample = datasets.apply_transforms(sample, transform, seed=7)
        return sample["img"], sample["pathology_masks"][0], sample["semantic_masks"]["Left Lung"]

    return Run(model, augment, [datasets.apply_transforms, datasets.XRayCenterCrop.__call__]), \
        (_xray(batch=1, size=48)[0, :, :, :40], (torch.rand(1, 48, 40, generator=gen) > 0.5).float()), {}


def _compose() -> Any:
    """The crop the library's dataset examples compose (here on tensors)."""
    import torchvision
    from torchxrayvision import datasets

    return torchvision.transforms.Compose([datasets.XRayCenterCrop()])


def build(name: str) -> Built:
    import warnings

    import torch

    from gt_calls import Method

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    _fresh_warnings()
    if name in DENSENET:
        return _densenet(name)
    if name in RESNET:
        model = _resnet(name)
        if name == "ResNet.features":
            return Method(model, "features"), (_xray(batch=1),), {}
        return model, (_xray(batch=1),), {}
    if name in AUTOENCODER:
        return _autoencoder(name)
    if name in BASELINES:
        return _baseline(name)
    if name in JF:
        return _jf(name)
    return _functions(name)
