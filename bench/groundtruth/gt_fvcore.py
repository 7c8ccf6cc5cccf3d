"""Ground-truth bench, fvcore: FAIR's core utilities for vision research, driven from compiled steps.

fvcore 0.1.5.post20221221 (the shared base of detectron2, pytorchvideo and slowfast) has, where it touches torch:
``fvcore.nn``: the detection losses ``sigmoid_focal_loss``, ``sigmoid_focal_loss_star`` (and their
``torch.jit.script`` twins ``*_jit``), ``giou_loss`` and ``smooth_l1_loss``; Caffe2-style initializers
``c2_xavier_fill`` / ``c2_msra_fill``; squeeze-and-excitation blocks (``squeeze_excitation``); precise batch-norm
statistics (``update_bn_stats`` over a data loader, ``get_bn_modules``); parameter counting (``parameter_count``,
``parameter_count_table``); and the JIT-trace based analyses: ``FlopCountAnalysis`` and
``ActivationCountAnalysis`` (``JitModelAnalysis``: ``torch.jit._get_trace_graph`` with scope hooks, then the
per-operator handles of ``jit_handles`` on the traced graph's nodes), the one-shot ``flop_count`` /
``activation_count``, and the printouts ``flop_count_table`` / ``flop_count_str``. ``fvcore.transforms``:
deterministic image / coordinate transforms on NumPy arrays (flips, scale, crop, pad, blend, grid sample, lists
of them and their inverses), some through torch (``transform_util.to_float_tensor`` / ``to_numpy``).
``fvcore.common``: parameter schedulers, ``HistoryBuffer``, ``Registry``, ``Timer``, ``CfgNode``.

Each bench model is a small ``nn.Module`` whose forward calls the library the way training code does inside a
compiled step. The tables cover:

- ``LOSSES``: each loss on logits / boxes from the input (or from a small head that the step runs), with its
  reductions, ``alpha`` / ``gamma`` / ``beta`` / ``eps`` options, the L1 branch of ``smooth_l1_loss``
  (``beta`` below 1e-5), empty inputs (no foreground: the ``numel() == 0`` branch of the mean), single boxes,
  and the scripted ``*_jit`` functions;
- ``SE``: the three squeeze-and-excitation blocks, 2-d and 3-d, with a reduced width or ratio and a custom
  activation, alone and inside a small conv net;
- ``INIT``: ``c2_xavier_fill`` / ``c2_msra_fill`` re-initializing a head inside the step (with and without bias);
- ``PARAMS``: ``parameter_count`` and ``parameter_count_table`` (depths) of a held network;
- ``PRECISE_BN``: ``update_bn_stats`` on networks with 1-d, 2-d and 3-d batch norms, an unused BN layer, none at
  all, over a list of batches split from the input, a generator, a held ``DataLoader``, ``itertools.cycle``, with
  ``progress="tqdm"``, and the network put in train mode by the step; ``get_bn_modules`` alone. In eval mode
  the held network's BN layers are not training, so ``update_bn_stats`` takes its early return;
- ``ANALYSIS``: ``FlopCountAnalysis`` / ``ActivationCountAnalysis`` built in the forward on a held network and
  the input, read through ``total`` (whole and per submodule), ``by_operator``, ``by_module``,
  ``by_module_and_operator``, ``unsupported_ops``, ``uncalled_modules``, with the options ``set_op_handle``
  (a user's handle, an op ignored), ``clear_op_handles``, ``ancestor_mode("caller")``, ``tracer_warnings``,
  the warnings switched off, ``copy`` on new inputs; ``flop_count`` / ``activation_count`` with and without
  ``supported_ops``; ``flop_count_table`` and ``flop_count_str``. The networks would exercise the default
  handles (linear, ``addmm``, ``mm`` / ``matmul``, ``bmm``, convolutions and transposed ones, the special and
  generic ``einsum`` equations, the norms, upsampling, adaptive pooling, ``grid_sample``), a shared submodule
  (aliases), a ``DataParallel`` wrapper (CPU: it calls the module), a custom ``autograd.Function``, a
  transformer encoder layer and two inputs. Under Dynamo every one of these models stops with an internal error
  once the library's JIT trace (``_get_trace_graph``) runs the network inside the compiled call, so what they
  record is the library's code up to the trace (the scope hooks, the aliases); they are kept because that is
  what such a step really does;
- ``PRECOMPUTED``: the same analyses run once when the model is built (example inputs, as a training script
  does at start-up), and the compiled step reads the cached counts (``total``, ``by_module``, ``by_operator`` of
  a submodule, ``uncalled_modules``, ``unsupported_ops``, ``by_module_and_operator``) or formats them
  (``flop_count_table`` with depths, activations and parameter shapes hidden; ``flop_count_str`` with and
  without activations, on a conv net, a transformer layer, a shared module, a ``DataParallel`` wrapper);
- ``TRANSFORMS``: a compiled preprocessing function on NumPy arrays (Dynamo traces NumPy): flips, ``ScaleTransform``
  (bilinear and nearest, through ``F.interpolate``), crop, pad, blend (uint8 and float), ``GridSampleTransform``,
  ``NoOpTransform``, ``TransformList``, the inverses of a list, a scale and a pad, ``apply_coords`` /
  ``apply_box`` / ``apply_segmentation``, on colour, grey uint8 and batched images, and ``to_float_tensor`` /
  ``to_numpy`` directly on each;
- ``COMMON``: the learning-rate factor of a step from each parameter scheduler (constant, cosine, exponential,
  linear, multi-step, polynomial, step, step with fixed gamma, composite) at a Python progress, and
  (``TENSOR_SCHEDULERS``) at a progress computed from a step-counter buffer, as modules that count their own
  steps do; ``differentiable_all_reduce`` / ``differentiable_all_gather`` of a loss and features (one worker,
  no process group); a ``HistoryBuffer`` fed with the loss (its median / average / global average); a loss
  picked from a ``Registry``; a ``Timer`` around the step; a ``CfgNode`` read for the loss options.

Left out: ``fvcore.common.checkpoint`` and ``file_io`` (file I/O around saving and loading, never inside a
compiled step), ``benchmark`` (a timing loop over a whole function), the distributed helpers' autograd functions
(they need a process group), ``Transform.register_type`` (called at import time, not in a step),
``CropTransform.apply_polygons`` (needs
shapely), a tensor ``beta`` for ``smooth_l1_loss`` (users pass a float from their config). Every model runs
eagerly in both modes (checked). Random weights and inputs from fixed seeds, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HID, OUT, SIDE, CLASSES, BOXES = 4, 8, 16, 4, 8, 5, 6

# Model name -> (function, keywords, inputs: "logits" | "head" | "boxes" | "boxes_head" | "single" | "empty"
# | "regress" | "regress_head").
LOSSES: dict[str, tuple[str, dict[str, Any], str]] = {
    "sigmoid_focal_loss": ("sigmoid_focal_loss", {}, "logits"),
    "sigmoid_focal_loss.mean": ("sigmoid_focal_loss", {"reduction": "mean"}, "logits"),
    "sigmoid_focal_loss.sum.alpha": ("sigmoid_focal_loss", {"reduction": "sum", "alpha": 0.25}, "logits"),
    "sigmoid_focal_loss.alpha.gamma0": ("sigmoid_focal_loss", {"alpha": 0.25, "gamma": 0.0}, "logits"),
    "sigmoid_focal_loss.head.sum": ("sigmoid_focal_loss", {"reduction": "sum", "alpha": 0.25, "gamma": 2.0},
                                    "head"),
    "sigmoid_focal_loss_jit.mean": ("sigmoid_focal_loss_jit", {"reduction": "mean"}, "logits"),
    "sigmoid_focal_loss_jit.head.sum": ("sigmoid_focal_loss_jit", {"reduction": "sum", "alpha": 0.25}, "head"),
    "sigmoid_focal_loss_star": ("sigmoid_focal_loss_star", {}, "logits"),
    "sigmoid_focal_loss_star.mean.alpha": ("sigmoid_focal_loss_star", {"reduction": "mean", "alpha": 0.25},
                                           "logits"),
    "sigmoid_focal_loss_star.sum.gamma2": ("sigmoid_focal_loss_star", {"reduction": "sum", "gamma": 2.0}, "head"),
    "sigmoid_focal_loss_star_jit.mean": ("sigmoid_focal_loss_star_jit", {"reduction": "mean"}, "logits"),
    "giou_loss": ("giou_loss", {}, "boxes"),
    "giou_loss.mean": ("giou_loss", {"reduction": "mean"}, "boxes"),
    "giou_loss.sum.eps": ("giou_loss", {"reduction": "sum", "eps": 1e-6}, "boxes"),
    "giou_loss.single_box": ("giou_loss", {}, "single"),
    "giou_loss.empty.mean": ("giou_loss", {"reduction": "mean"}, "empty"),
    "giou_loss.head.mean": ("giou_loss", {"reduction": "mean"}, "boxes_head"),
    "smooth_l1_loss": ("smooth_l1_loss", {"beta": 0.5}, "regress"),
    "smooth_l1_loss.l1.sum": ("smooth_l1_loss", {"beta": 0.0, "reduction": "sum"}, "regress"),
    "smooth_l1_loss.mean.beta1": ("smooth_l1_loss", {"beta": 1.0, "reduction": "mean"}, "regress"),
    "smooth_l1_loss.empty.mean": ("smooth_l1_loss", {"beta": 0.1, "reduction": "mean"}, "empty"),
    "smooth_l1_loss.head.sum": ("smooth_l1_loss", {"beta": 0.1, "reduction": "sum"}, "regress_head"),
}

# Model name -> (class, keywords, 3-d, inside a conv net).
SE: dict[str, tuple[str, dict[str, Any], bool, bool]] = {
    "SqueezeExcitation": ("SqueezeExcitation", {}, False, False),
    "SqueezeExcitation.reduced.silu": ("SqueezeExcitation", {"num_channels_reduced": 2, "activation": "silu"},
                                       False, False),
    "SqueezeExcitation.3d.ratio4": ("SqueezeExcitation", {"reduction_ratio": 4.0}, True, False),
    "SpatialSqueezeExcitation": ("SpatialSqueezeExcitation", {}, False, False),
    "SpatialSqueezeExcitation.3d": ("SpatialSqueezeExcitation", {}, True, False),
    "ChannelSpatialSqueezeExcitation": ("ChannelSpatialSqueezeExcitation", {"reduction_ratio": 4.0}, False, False),
    "ChannelSpatialSqueezeExcitation.3d": ("ChannelSpatialSqueezeExcitation", {"num_channels_reduced": 4}, True,
                                           False),
    "SqueezeExcitation.in_convnet": ("SqueezeExcitation", {}, False, True),
    "ChannelSpatialSqueezeExcitation.in_convnet": ("ChannelSpatialSqueezeExcitation", {"reduction_ratio": 2.0},
                                                   False, True),
}

# Model name -> (function, layer: "conv" | "conv_nobias" | "linear").
INIT: dict[str, tuple[str, str]] = {
    "c2_xavier_fill.conv": ("c2_xavier_fill", "conv"),
    "c2_xavier_fill.linear": ("c2_xavier_fill", "linear"),
    "c2_msra_fill.conv": ("c2_msra_fill", "conv"),
    "c2_msra_fill.conv_nobias": ("c2_msra_fill", "conv_nobias"),
}

# Model name -> (function, network, keywords).
PARAMS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "parameter_count.cnn": ("parameter_count", "cnn", {}),
    "parameter_count.transformer": ("parameter_count", "transformer", {}),
    "parameter_count_table.cnn": ("parameter_count_table", "cnn", {}),
    "parameter_count_table.transformer.depth1": ("parameter_count_table", "transformer", {"max_depth": 1}),
    "parameter_count_table.shared.depth5": ("parameter_count_table", "shared", {"max_depth": 5}),
}

# Model name -> (network, loader: "split" | "generator" | "dataloader" | "cycle", num_iters, keywords,
# put the network in train mode in the step).
PRECISE_BN: dict[str, tuple[str, str, int, dict[str, Any], bool]] = {
    "update_bn_stats.cnn.split": ("cnn", "split", 2, {}, False),
    "update_bn_stats.cnn.split.train": ("cnn", "split", 2, {}, True),
    "update_bn_stats.bn1d.generator": ("bn_mlp", "generator", 2, {}, False),
    "update_bn_stats.bn1d.generator.train": ("bn_mlp", "generator", 2, {}, True),
    "update_bn_stats.bn3d.split": ("bn3d", "split", 2, {}, True),
    "update_bn_stats.cnn.dataloader": ("cnn", "dataloader", 2, {}, True),
    "update_bn_stats.cnn.cycle": ("cnn", "cycle", 3, {}, True),
    "update_bn_stats.cnn.tqdm": ("cnn", "split", 2, {"progress": "tqdm"}, True),
    "update_bn_stats.unused_bn": ("unused_bn", "split", 2, {}, True),
    "update_bn_stats.no_bn": ("mlp", "split", 2, {}, True),
    "get_bn_modules.cnn": ("cnn", "", 0, {}, False),
    "get_bn_modules.bn3d.train": ("bn3d", "", 0, {}, True),
}

# Model name -> (network, what the forward reads: see ``_analysis``).
ANALYSIS: dict[str, tuple[str, str]] = {
    "FlopCountAnalysis.mlp.total": ("mlp", "total"),
    "FlopCountAnalysis.cnn.total": ("cnn", "total"),
    "FlopCountAnalysis.cnn.by_operator": ("cnn", "by_operator"),
    "FlopCountAnalysis.cnn.by_module": ("cnn", "by_module"),
    "FlopCountAnalysis.cnn.by_module_and_operator": ("cnn", "by_module_and_operator"),
    "FlopCountAnalysis.cnn.total_submodule": ("cnn", "total_sub"),
    "FlopCountAnalysis.cnn.unsupported_ops": ("cnn", "unsupported"),
    "FlopCountAnalysis.cnn.uncalled_modules": ("unused_bn", "uncalled"),
    "FlopCountAnalysis.deconv.total": ("deconv", "total"),
    "FlopCountAnalysis.matmuls.total": ("matmuls", "total"),
    "FlopCountAnalysis.einsum_special.total": ("einsum_special", "total"),
    "FlopCountAnalysis.einsum_generic.total": ("einsum_generic", "total"),
    "FlopCountAnalysis.norms.by_operator": ("norms", "by_operator"),
    "FlopCountAnalysis.upsample.by_operator": ("upsample", "by_operator"),
    "FlopCountAnalysis.grid_sample.total": ("grid_sample", "total"),
    "FlopCountAnalysis.shared.by_module": ("shared", "by_module"),
    "FlopCountAnalysis.data_parallel.by_module": ("data_parallel", "by_module"),
    "FlopCountAnalysis.autograd_function.unsupported_ops": ("autograd_function", "unsupported"),
    "FlopCountAnalysis.transformer.total": ("transformer", "total"),
    "FlopCountAnalysis.two_inputs.total": ("two_inputs", "total"),
    "FlopCountAnalysis.cnn.set_op_handle": ("cnn", "set_op_handle"),
    "FlopCountAnalysis.cnn.ignore_batch_norm": ("cnn", "ignore_bn"),
    "FlopCountAnalysis.cnn.clear_op_handles": ("cnn", "clear"),
    "FlopCountAnalysis.shared.ancestor_caller": ("shared", "caller"),
    "FlopCountAnalysis.cnn.tracer_warnings_all": ("cnn", "tracer_all"),
    "FlopCountAnalysis.cnn.quiet": ("cnn", "quiet"),
    "FlopCountAnalysis.mlp.copy": ("mlp", "copy"),
    "ActivationCountAnalysis.cnn.total": ("cnn", "act_total"),
    "ActivationCountAnalysis.matmuls.by_module": ("matmuls", "act_by_module"),
    "flop_count.cnn": ("cnn", "flop_count"),
    "flop_count.einsum_generic.supported_ops": ("einsum_generic", "flop_count_ops"),
    "activation_count.mlp": ("mlp", "activation_count"),
    "activation_count.norms.supported_ops": ("norms", "activation_count_ops"),
    "flop_count_table.cnn": ("cnn", "table"),
    "flop_count_table.transformer.depth1.no_shapes": ("transformer", "table_depth1"),
    "flop_count_table.shared.activations": ("shared", "table_acts"),
    "flop_count_str.cnn": ("cnn", "str"),
    "flop_count_str.unused_bn.activations": ("unused_bn", "str_acts"),
}

# Model name -> (network, what the forward reads) for an analysis built and run at build time (as a training
# script does once, with example inputs), read by the compiled step: see ``_precomputed``.
PRECOMPUTED: dict[str, tuple[str, str]] = {
    "FlopCountAnalysis.cnn.total": ("cnn", "total"),
    "FlopCountAnalysis.cnn.by_module": ("cnn", "by_module"),
    "FlopCountAnalysis.shared.by_operator_submodule": ("shared", "by_operator_sub"),
    "FlopCountAnalysis.unused_bn.uncalled_unsupported": ("unused_bn", "uncalled"),
    "ActivationCountAnalysis.matmuls.by_module_and_operator": ("matmuls", "act_by_module_and_operator"),
    "flop_count_table.cnn": ("cnn", "table"),
    "flop_count_table.transformer.depth1.no_shapes": ("transformer", "table_depth1"),
    "flop_count_table.shared.activations": ("shared", "table_acts"),
    "flop_count_table.norms.depth5": ("norms", "table_depth5"),
    "flop_count_str.cnn": ("cnn", "str"),
    "flop_count_str.unused_bn.activations": ("unused_bn", "str_acts"),
    "flop_count_str.transformer": ("transformer", "str"),
    "flop_count_str.data_parallel": ("data_parallel", "str"),
}

# Model name -> (transforms, what is applied: "image" | "coords" | "box" | "segmentation", image kind: "float32"
# (H x W x 3) | "uint8" | "gray_uint8" (H x W) | "batch" (N x H x W x 3, float32)).
TRANSFORMS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "HFlipTransform.image": (("hflip",), "image", "float32"),
    "HFlipTransform.coords": (("hflip",), "coords", "float32"),
    "VFlipTransform.image": (("vflip",), "image", "float32"),
    "VFlipTransform.box": (("vflip",), "box", "float32"),
    "ScaleTransform.image.bilinear": (("scale_bilinear",), "image", "float32"),
    "ScaleTransform.segmentation": (("scale_bilinear",), "segmentation", "float32"),
    "CropTransform.image": (("crop",), "image", "float32"),
    "PadTransform.image": (("pad",), "image", "float32"),
    "BlendTransform.image.uint8": (("blend",), "image", "uint8"),
    "BlendTransform.image.float": (("blend",), "image", "float32"),
    "GridSampleTransform.image": (("grid",), "image", "float32"),
    "NoOpTransform.image": (("noop",), "image", "float32"),
    "TransformList.image": (("hflip", "crop", "pad"), "image", "float32"),
    "TransformList.box": (("hflip", "scale_bilinear", "crop"), "box", "float32"),
    "TransformList.inverse.coords": (("crop", "hflip", "inverse"), "coords", "float32"),
    "to_float_tensor.to_numpy": (("util",), "image", "float32"),
    "to_float_tensor.to_numpy.gray_uint8": (("util",), "image", "gray_uint8"),
    "to_float_tensor.to_numpy.batch": (("util",), "image", "batch"),
    "HFlipTransform.image.batch": (("hflip",), "image", "batch"),
    "VFlipTransform.image.gray": (("vflip",), "image", "gray_uint8"),
    "VFlipTransform.image.batch": (("vflip",), "image", "batch"),
    "ScaleTransform.image.nearest.batch": (("scale_nearest",), "image", "batch"),
    "ScaleTransform.image.gray_uint8": (("scale_nearest",), "image", "gray_uint8"),
    "ScaleTransform.box": (("scale_bilinear",), "box", "float32"),
    "ScaleTransform.inverse.coords": (("scale_bilinear", "inverse"), "coords", "float32"),
    "CropTransform.image.batch": (("crop",), "image", "batch"),
    "CropTransform.box": (("crop",), "box", "float32"),
    "PadTransform.segmentation.gray": (("pad",), "segmentation", "gray_uint8"),
    "PadTransform.inverse.image": (("pad", "inverse"), "image", "float32"),
    "GridSampleTransform.segmentation": (("grid",), "segmentation", "float32"),
    "BlendTransform.image.batch": (("blend",), "image", "batch"),
}

# Model name -> (what, keywords).
COMMON: dict[str, tuple[str, dict[str, Any]]] = {
    "ConstantParamScheduler": ("ConstantParamScheduler", {"value": 0.1}),
    "CosineParamScheduler": ("CosineParamScheduler", {"start_value": 0.1, "end_value": 0.0}),
    "ExponentialParamScheduler": ("ExponentialParamScheduler", {"start_value": 0.1, "decay": 0.5}),
    "LinearParamScheduler": ("LinearParamScheduler", {"start_value": 0.0, "end_value": 0.1}),
    "MultiStepParamScheduler": ("MultiStepParamScheduler", {"values": [0.1, 0.01, 0.001],
                                                           "milestones": [30, 60], "num_updates": 90}),
    "PolynomialDecayParamScheduler": ("PolynomialDecayParamScheduler", {"base_value": 0.1, "power": 2.0}),
    "StepParamScheduler": ("StepParamScheduler", {"num_updates": 90, "values": [0.1, 0.01, 0.001]}),
    "StepWithFixedGammaParamScheduler": ("StepWithFixedGammaParamScheduler",
                                         {"base_value": 0.1, "num_decays": 3, "gamma": 0.1, "num_updates": 90}),
    "CompositeParamScheduler": ("CompositeParamScheduler", {}),
    "HistoryBuffer.smoothed_loss": ("HistoryBuffer", {}),
    "Registry.loss": ("Registry", {}),
    "Timer.step": ("Timer", {}),
    "CfgNode.loss_options": ("CfgNode", {}),
    "differentiable_all_reduce.loss": ("differentiable_all_reduce", {}),
    "differentiable_all_gather.features": ("differentiable_all_gather", {}),
}

# Model name -> scheduler (a ``COMMON`` entry) whose progress the step computes from its step-counter buffer (a
# tensor), as modules that count their own steps do.
TENSOR_SCHEDULERS: tuple[str, ...] = ("CosineParamScheduler", "LinearParamScheduler", "ExponentialParamScheduler",
                                      "PolynomialDecayParamScheduler", "StepParamScheduler",
                                      "MultiStepParamScheduler", "StepWithFixedGammaParamScheduler",
                                      "CompositeParamScheduler")


def names() -> list[str]:
    return ([f"loss.{n}" for n in LOSSES] + [f"se.{n}" for n in SE] + [f"init.{n}" for n in INIT]
            + [f"params.{n}" for n in PARAMS] + [f"precise_bn.{n}" for n in PRECISE_BN]
            + [f"analysis.{n}" for n in ANALYSIS] + [f"precomputed.{n}" for n in PRECOMPUTED]
            + [f"transforms.{n}" for n in TRANSFORMS] + [f"common.{n}" for n in COMMON]
            + [f"common.tensor_step.{n}" for n in TENSOR_SCHEDULERS])


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _boxes(n: int, seed: int) -> Any:
    """``n`` valid XYXY boxes inside a 16 x 16 image."""
    import torch

    g = _gen(seed)
    xy = torch.rand(n, 2, generator=g) * 8
    wh = torch.rand(n, 2, generator=g) * 6 + 1
    return torch.cat([xy, xy + wh], dim=-1)


def _net(kind: str) -> tuple[Any, tuple[Any, ...]]:
    """A tiny network of ``kind`` and its inputs."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(0)
    image = _randn(2, 3, SIDE, SIDE)

    class MatMuls(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.randn(DIM, HID))
            self.b = nn.Parameter(torch.zeros(HID))
            self.v = nn.Parameter(torch.randn(HID, OUT))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = torch.addmm(self.b, x, self.w)
            h = torch.relu(h).mm(self.v)
            q = torch.matmul(x.unsqueeze(-1), x.unsqueeze(1))
            return h.sum() + torch.bmm(q, q).mean()

    class EinsumSpecial(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q = self.proj(x).view(2, 2, DIM).transpose(1, 2)  # n c t
            k = x.view(2, 2, DIM).transpose(1, 2)
            a = torch.einsum("nct,ncp->ntp", q, k)  # abc,abd->acd
            v = torch.einsum("ntg,ncg->nct", a, k)  # abc,adc->adb
            return v

    class EinsumGeneric(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.randn(DIM, 2, HID))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.einsum("bi,ihj->bhj", x, self.w)

    class Norms(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.gn = nn.GroupNorm(2, 4)
            self.inorm = nn.InstanceNorm2d(4, affine=True)
            self.ln = nn.LayerNorm([4, SIDE, SIDE])

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.ln(self.inorm(self.gn(self.conv(x))))

    class Upsample(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 1)
            self.near = nn.Upsample(scale_factor=2, mode="nearest")

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.near(self.conv(x))
            h = F.interpolate(h, scale_factor=0.5, mode="bilinear", align_corners=False)
            return F.adaptive_avg_pool2d(h, 2)

    class GridSample(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.loc = nn.Linear(3 * SIDE * SIDE, 6)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            theta = self.loc(x.flatten(1)).view(-1, 2, 3) * 0.1 + torch.tensor([[1.0, 0, 0], [0, 1.0, 0]])
            grid = F.affine_grid(theta, list(x.shape), align_corners=False)
            return F.grid_sample(x, grid, align_corners=False)

    class Shared(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.block = nn.Sequential(nn.Linear(DIM, DIM), nn.ReLU())
            self.alias = self.block
            self.head = nn.Linear(DIM, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.alias(self.block(x)))

    class UnusedBN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.spare = nn.BatchNorm2d(4)
            self.head = nn.Linear(4, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.bn(self.conv(x)).mean((2, 3)))

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
            return grad * 2

    class WithFunction(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(DIM, OUT)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return Scale.apply(self.fc(x))

    class TwoInputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(DIM, HID)
            self.b = nn.Linear(OUT, HID)
            self.out = nn.Linear(HID, OUT)

        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return self.out(torch.relu(self.a(a) + self.b(b)))

    x = _randn(BATCH, DIM)
    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, OUT)), (x,)
    if kind == "bn_mlp":
        return nn.Sequential(nn.Linear(DIM, HID), nn.BatchNorm1d(HID), nn.ReLU(), nn.Linear(HID, OUT)), (x,)
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(4, 8, 3, padding=1, groups=2, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, OUT)), (image,)
    if kind == "bn3d":
        return nn.Sequential(nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU(),
                             nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(4, OUT)), (_randn(2, 2, 4, 4, 4),)
    if kind == "deconv":
        return nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1), nn.ReLU(),
                             nn.ConvTranspose2d(4, 2, 2, stride=2)), (image,)
    if kind == "matmuls":
        return MatMuls(), (x,)
    if kind == "einsum_special":
        return EinsumSpecial(), (x,)
    if kind == "einsum_generic":
        return EinsumGeneric(), (x,)
    if kind == "norms":
        return Norms(), (image,)
    if kind == "upsample":
        return Upsample(), (image,)
    if kind == "grid_sample":
        return GridSample(), (image,)
    if kind == "shared":
        return Shared(), (x,)
    if kind == "unused_bn":
        return UnusedBN(), (image,)
    if kind == "data_parallel":
        return nn.DataParallel(nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, OUT))), (x,)
    if kind == "autograd_function":
        return WithFunction(), (x,)
    if kind == "transformer":
        return nn.TransformerEncoderLayer(DIM, 2, dim_feedforward=HID, dropout=0.0, batch_first=True), \
            (_randn(2, 3, DIM),)
    if kind == "two_inputs":
        return TwoInputs(), (x, _randn(BATCH, OUT, seed=3))
    raise KeyError(kind)


# --------------------------------------------------------------------------------------------------- losses


def _loss(name: str) -> Built:
    import torch
    import importlib

    from torch import nn

    function, keywords, inputs = LOSSES[name]
    # ``fvcore.nn`` rebinds the names ``giou_loss`` / ``smooth_l1_loss`` to the functions: import the modules.
    module = importlib.import_module("fvcore.nn." + {"giou_loss": "giou_loss", "smooth_l1_loss": "smooth_l1_loss"}
                                     .get(function, "focal_loss"))
    fn = getattr(module, function)
    torch.manual_seed(0)

    class Loss(nn.Module):
        """A training step's loss: the library loss on the step's predictions and targets."""

        def __init__(self) -> None:
            super().__init__()
            self.head = nn.Conv2d(3, CLASSES, 3, padding=1) if inputs == "head" else (
                nn.Linear(DIM, 4) if inputs in ("boxes_head", "regress_head") else None)

        def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            if inputs == "head":
                pred = self.head(pred)
            elif inputs == "boxes_head":
                delta = self.head(pred)
                pred = torch.cat([target[:, :2] + delta[:, :2].tanh(),
                                  target[:, 2:] + delta[:, 2:].exp()], dim=-1)
            elif inputs == "regress_head":
                pred = self.head(pred)
            return fn(pred, target, **keywords)

        def entry_points(self) -> list[Any]:
            return [fn]

    if inputs == "logits":
        labels = torch.randint(0, CLASSES, (BATCH * 3,), generator=_gen(2))
        args = (_randn(BATCH * 3, CLASSES), torch.nn.functional.one_hot(labels, CLASSES).float())
    elif inputs == "head":
        args = (_randn(2, 3, SIDE, SIDE), (torch.rand(2, CLASSES, SIDE, SIDE, generator=_gen(2)) > 0.8).float())
    elif inputs == "boxes":
        args = (_boxes(BOXES, 1), _boxes(BOXES, 2))
    elif inputs == "single":
        args = (_boxes(1, 1)[0], _boxes(1, 2)[0])
    elif inputs == "boxes_head":
        args = (_randn(BOXES, DIM), _boxes(BOXES, 2))
    elif inputs == "empty":
        args = (torch.zeros(0, 4), torch.zeros(0, 4))
    elif inputs == "regress":
        args = (_randn(BOXES, 4), _randn(BOXES, 4, seed=2))
    elif inputs == "regress_head":
        args = (_randn(BOXES, DIM), _randn(BOXES, 4, seed=2))
    else:
        raise KeyError(name)
    return Loss(), args, {}


# ------------------------------------------------------------------------------------------------ SE blocks


def _se(name: str) -> Built:
    import torch
    from fvcore.nn import squeeze_excitation as se
    from torch import nn

    cls_name, keywords, is_3d, in_net = SE[name]
    torch.manual_seed(0)
    keywords = dict(keywords)
    if keywords.get("activation") == "silu":
        keywords["activation"] = nn.SiLU()
    cls = getattr(se, cls_name)
    block = cls(num_channels=8, is_3d=is_3d, **keywords)
    if in_net:
        net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), block,
                            nn.Conv2d(8, 8, 3, padding=1), cls(num_channels=8, **keywords), nn.AdaptiveAvgPool2d(1),
                            nn.Flatten(), nn.Linear(8, OUT))
        x = _randn(2, 3, SIDE, SIDE)
    else:
        net = block
        x = _randn(2, 8, 3, 4, 4) if is_3d else _randn(2, 8, SIDE, SIDE)

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

        def entry_points(self) -> list[Any]:
            return [cls]

    return Block(), (x,), {}


# ------------------------------------------------------------------------------------------------- init


def _init(name: str) -> Built:
    import torch
    from fvcore.nn import weight_init
    from torch import nn

    function, layer = INIT[name]
    fn = getattr(weight_init, function)
    torch.manual_seed(0)

    class Reinit(nn.Module):
        """A step that re-initializes its head (as after a task switch) and then runs the network."""

        def __init__(self) -> None:
            super().__init__()
            if layer == "linear":
                self.body, self.head = nn.Linear(DIM, HID), nn.Linear(HID, OUT)
            else:
                self.body = nn.Conv2d(3, 4, 3, padding=1)
                self.head = nn.Conv2d(4, OUT, 1, bias=layer != "conv_nobias")

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            fn(self.head)
            return self.head(torch.relu(self.body(x)))

        def entry_points(self) -> list[Any]:
            return [fn]

    x = _randn(BATCH, DIM) if layer == "linear" else _randn(2, 3, SIDE, SIDE)
    return Reinit(), (x,), {}


# ------------------------------------------------------------------------------------------------- params


def _params(name: str) -> Built:
    import torch
    from fvcore.nn import parameter_count, parameter_count_table
    from torch import nn

    function, kind, keywords = PARAMS[name]
    fn = parameter_count if function == "parameter_count" else parameter_count_table
    net, inputs = _net(kind)

    class Params(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> Any:
            out = self.net(x)
            stats = fn(self.net, **keywords)
            if function == "parameter_count":
                return out, stats[""]
            return out, len(stats)

        def entry_points(self) -> list[Any]:
            return [fn]

    return Params(), inputs, {}


# ---------------------------------------------------------------------------------------------- precise BN


def _precise_bn(name: str) -> Built:
    import itertools

    import torch
    from fvcore.nn import precise_bn
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    kind, loader, num_iters, keywords, set_train = PRECISE_BN[name]
    net, (x,) = _net(kind)
    if kind in ("cnn", "unused_bn", "bn3d", "mlp"):
        x = torch.cat([x, _randn(*x.shape, seed=5)])
    else:
        x = torch.cat([x, _randn(*x.shape, seed=5), _randn(*x.shape, seed=6)])
    held = DataLoader(TensorDataset(x), batch_size=2) if loader == "dataloader" else None

    class PreciseBN(nn.Module):
        """A precise-BN step: recompute the held network's BN statistics on batches from the input."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> Any:
            if set_train:
                self.net.train()
            if not loader:
                layers = precise_bn.get_bn_modules(self.net)
                return x.sum() + len(layers)
            if loader == "split":
                data: Any = list(x.split(2))
            elif loader == "generator":
                data = (x[i:i + 2] for i in range(0, x.shape[0], 2))
            elif loader == "dataloader":
                data = (batch[0] for batch in held)
            else:
                data = itertools.cycle(x.split(2))
            precise_bn.update_bn_stats(self.net, data, num_iters=num_iters, **keywords)
            return sum(b.sum() for b in self.net.buffers() if b.is_floating_point())

        def entry_points(self) -> list[Any]:
            return [precise_bn.get_bn_modules if not loader else precise_bn.update_bn_stats]

    return PreciseBN(), (x,), {}


# -------------------------------------------------------------------------------------------- flop analysis


def _custom_linear_handle(inputs: list[Any], outputs: list[Any]) -> Any:
    """A user's handle: what fvcore's docs suggest, the output size from the traced value's type."""
    from fvcore.nn.jit_handles import get_shape

    shape = get_shape(outputs[0])
    total = 1
    for s in shape:
        total *= s
    return total


def _analysis(name: str) -> Built:
    import torch
    from fvcore.nn import (ActivationCountAnalysis, FlopCountAnalysis, activation_count, flop_count,
                           flop_count_str, flop_count_table)
    from fvcore.nn.jit_handles import elementwise_flop_counter
    from torch import nn

    kind, what = ANALYSIS[name]
    net, inputs = _net(kind)
    entries: list[Any] = {
        "flop_count": [flop_count], "flop_count_ops": [flop_count], "activation_count": [activation_count],
        "activation_count_ops": [activation_count], "table": [flop_count_table], "table_depth1": [flop_count_table],
        "table_acts": [flop_count_table], "str": [flop_count_str], "str_acts": [flop_count_str],
    }.get(what, [ActivationCountAnalysis if what.startswith("act_") else FlopCountAnalysis])

    class Analysis(nn.Module):
        """A step that runs the held network and counts its FLOPs / activations on the same inputs."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, *xs: torch.Tensor) -> Any:
            out = self.net(*xs)
            inp = xs[0] if len(xs) == 1 else tuple(xs)
            if what == "flop_count":
                return out, flop_count(self.net, tuple(xs))
            if what == "flop_count_ops":
                return out, flop_count(self.net, tuple(xs), supported_ops={"aten::mul": elementwise_flop_counter(1)})
            if what == "activation_count":
                return out, activation_count(self.net, tuple(xs))
            if what == "activation_count_ops":
                return out, activation_count(self.net, tuple(xs),
                                             supported_ops={"aten::group_norm": _custom_linear_handle})
            if what.startswith("act_"):
                acts = ActivationCountAnalysis(self.net, inp)
                return out, acts.total() if what == "act_total" else acts.by_module()
            flops = FlopCountAnalysis(self.net, inp)
            if what == "total":
                return out, flops.total()
            if what == "by_operator":
                return out, flops.by_operator()
            if what == "by_module":
                return out, flops.by_module()
            if what == "by_module_and_operator":
                return out, flops.by_module_and_operator()
            if what == "total_sub":
                return out, flops.total("0"), flops.total("4")
            if what == "unsupported":
                total = flops.total()
                return out, total, flops.unsupported_ops()
            if what == "uncalled":
                return out, flops.uncalled_modules()
            if what == "set_op_handle":
                flops.set_op_handle("aten::relu", elementwise_flop_counter(1), "aten::max_pool2d",
                                    elementwise_flop_counter(1))
                return out, flops.by_operator()
            if what == "ignore_bn":
                return out, flops.set_op_handle("aten::batch_norm", None).total()
            if what == "clear":
                flops.clear_op_handles().set_op_handle(**{"aten::_convolution": _custom_linear_handle})
                return out, flops.total()
            if what == "caller":
                return out, flops.ancestor_mode("caller").by_module()
            if what == "tracer_all":
                return out, flops.tracer_warnings("all").total()
            if what == "quiet":
                flops.unsupported_ops_warnings(False).uncalled_modules_warnings(False).tracer_warnings("none")
                return out, flops.total()
            if what == "copy":
                other = flops.copy(new_inputs=(inp * 2,))
                return out, flops.total(), other.total()
            if what == "table":
                return out, flop_count_table(flops)
            if what == "table_depth1":
                return out, flop_count_table(flops, max_depth=1, show_param_shapes=False)
            if what == "table_acts":
                return out, flop_count_table(flops, activations=ActivationCountAnalysis(self.net, inp))
            if what == "str":
                return out, flop_count_str(flops)
            if what == "str_acts":
                return out, flop_count_str(flops, activations=ActivationCountAnalysis(self.net, inp))
            raise KeyError(what)

        def entry_points(self) -> list[Any]:
            return entries

    return Analysis(), inputs, {}


def _precomputed(name: str) -> Built:
    import logging

    import torch
    from fvcore.nn import ActivationCountAnalysis, FlopCountAnalysis, flop_count_str, flop_count_table
    from torch import nn

    kind, what = PRECOMPUTED[name]
    net, inputs = _net(kind)
    inp = inputs[0] if len(inputs) == 1 else inputs
    logging.getLogger("fvcore.nn.jit_analysis").setLevel(logging.ERROR)
    flops = FlopCountAnalysis(net, inp)
    acts = ActivationCountAnalysis(net, inp)
    flops.total(), acts.total()  # analysed once, outside the compiled step
    entries: list[Any] = ([flop_count_table] if what.startswith("table") else [flop_count_str] if
                          what.startswith("str") else [type(flops if not what.startswith("act") else acts)])

    class Logged(nn.Module):
        """A step that runs the network and reads (or formats) the counts analysed when it was built."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, *xs: torch.Tensor) -> Any:
            out = self.net(*xs)
            if what == "total":
                return out, flops.total()
            if what == "by_module":
                return out, flops.by_module()
            if what == "by_operator_sub":
                return out, flops.by_operator("block"), flops.total("alias")
            if what == "uncalled":
                return out, flops.uncalled_modules(), flops.unsupported_ops()
            if what == "act_by_module_and_operator":
                return out, acts.by_module_and_operator()
            if what == "table":
                return out, flop_count_table(flops)
            if what == "table_depth1":
                return out, flop_count_table(flops, max_depth=1, show_param_shapes=False)
            if what == "table_depth5":
                return out, flop_count_table(flops, max_depth=5)
            if what == "table_acts":
                return out, flop_count_table(flops, activations=acts)
            if what == "str":
                return out, flop_count_str(flops)
            if what == "str_acts":
                return out, flop_count_str(flops, activations=acts)
            raise KeyError(what)

        def entry_points(self) -> list[Any]:
            return entries

    return Logged(), inputs, {}


# ----------------------------------------------------------------------------------------------- transforms


def _transforms(name: str) -> Built:
    import numpy as np
    import torch
    from fvcore.transforms import transform as T
    from fvcore.transforms import transform_util
    from torch import nn

    steps, apply, dtype = TRANSFORMS[name]
    h = w = SIDE
    rng = np.random.default_rng(0)
    shape = {"gray_uint8": (h, w), "batch": (2, h, w, 3)}.get(dtype, (h, w, 3))
    image = rng.uniform(0, 255, size=shape).astype(np.float32)
    if dtype in ("uint8", "gray_uint8"):
        image = image.astype(np.uint8)

    def make(step: str) -> Any:
        if step == "hflip":
            return T.HFlipTransform(w)
        if step == "vflip":
            return T.VFlipTransform(h)
        if step == "scale_bilinear":
            return T.ScaleTransform(h, w, 2 * h, 2 * w, interp="bilinear")
        if step == "scale_nearest":
            return T.ScaleTransform(h, w, h // 2, w // 2, interp="nearest")
        if step == "crop":
            return T.CropTransform(1, 2, 5, 4, orig_w=w, orig_h=h)
        if step == "pad":
            return T.PadTransform(1, 1, 2, 2, orig_w=5, orig_h=4, pad_value=0.5)
        if step == "blend":
            return T.BlendTransform(rng.uniform(0, 255, size=shape).astype(image.dtype), 0.3, 0.7)
        if step == "grid":
            ys, xs = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
            grid = np.stack([xs * 0.9, ys * 0.9], axis=-1)[None].astype(np.float32)
            return T.GridSampleTransform(grid, "bilinear")
        if step == "noop":
            return T.NoOpTransform()
        raise KeyError(step)

    inverse = "inverse" in steps
    if steps == ("util",):
        tfm = None
        entries: list[Any] = [transform_util.to_float_tensor, transform_util.to_numpy]
    elif len(steps) == 1 or (len(steps) == 2 and inverse):
        tfm = make(steps[0])
        if inverse:
            tfm = tfm.inverse()
        entries = [getattr(type(tfm), f"apply_{apply}")]
    else:
        tfm = T.TransformList([make(s) for s in steps if s != "inverse"])
        if inverse:
            tfm = tfm.inverse()
        entries = [T.TransformList._apply]

    class Preprocess(nn.Module):
        """A compiled preprocessing function on NumPy data, as data pipelines write it."""

        def forward(self, data: Any) -> Any:
            if tfm is None:
                t = transform_util.to_float_tensor(data)
                t = t * 0.5
                return transform_util.to_numpy(t, list(data.shape), data.dtype)
            if apply == "image":
                return tfm.apply_image(data)
            if apply == "segmentation":
                return tfm.apply_segmentation(data)
            if apply == "coords":
                return tfm.apply_coords(data.copy())
            return tfm.apply_box(data)

        def entry_points(self) -> list[Any]:
            return entries

    if apply in ("image",):
        data = image
    elif apply == "segmentation":
        data = image if image.ndim == 2 else (image[..., 0] > 128).astype(np.float32)
    elif apply == "coords":
        data = rng.uniform(0, w, size=(5, 2)).astype(np.float32)
    else:
        xy = rng.uniform(0, 4, size=(3, 2))
        data = np.concatenate([xy, xy + 3], axis=1).astype(np.float32)
    _ = torch  # the numpy arrays are the compiled function's inputs
    return Preprocess(), (data,), {}


# --------------------------------------------------------------------------------------------------- common


def _common(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from fvcore.common import param_scheduler as ps
    from torch import nn

    tensor_step = name.startswith("tensor_step.")
    what, keywords = COMMON[name.removeprefix("tensor_step.")]
    torch.manual_seed(0)
    x, y = _randn(BATCH, DIM), _randn(BATCH, OUT, seed=2)
    entries: list[Any]

    if what.endswith("ParamScheduler"):
        if what == "CompositeParamScheduler":
            sched = ps.CompositeParamScheduler(
                [ps.LinearParamScheduler(0.0, 0.1), ps.CosineParamScheduler(0.1, 0.0)],
                lengths=[0.2, 0.8], interval_scaling=["rescaled", "fixed"])
        else:
            sched = getattr(ps, what)(**keywords)
        entries = [type(sched).__call__]

        class CountedSteps(nn.Module):
            """A module that counts its own steps in a buffer and scales its loss by the scheduler's value."""

            def __init__(self) -> None:
                super().__init__()
                self.net = nn.Linear(DIM, OUT)
                self.register_buffer("step", torch.tensor(27.0))

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                factor = sched(self.step / 90.0)
                return F.mse_loss(self.net(x), y) * factor

            def entry_points(self) -> list[Any]:
                return entries

        if tensor_step:
            return CountedSteps(), (x, y), {}

        class Scheduled(nn.Module):
            """A training step whose loss is scaled by the scheduler's value at the step's progress."""

            def __init__(self) -> None:
                super().__init__()
                self.net = nn.Linear(DIM, OUT)

            def forward(self, x: torch.Tensor, y: torch.Tensor, where: float = 0.35) -> torch.Tensor:
                factor = sched(where)
                return F.mse_loss(self.net(x), y) * factor

            def entry_points(self) -> list[Any]:
                return entries

        return Scheduled(), (x, y), {"where": 0.35}

    if what.startswith("differentiable_all"):
        from fvcore.nn import distributed

        fn = getattr(distributed, what)

        class Reduced(nn.Module):
            """A step that averages its loss (or gathers its features) across workers, one worker here."""

            def __init__(self) -> None:
                super().__init__()
                self.net = nn.Linear(DIM, OUT)

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                pred = self.net(x)
                if what == "differentiable_all_reduce":
                    return fn(F.mse_loss(pred, y))
                return torch.cat(fn(pred)) @ y.T

            def entry_points(self) -> list[Any]:
                return [fn]

        return Reduced(), (x, y), {}

    if what == "HistoryBuffer":
        from fvcore.common.history_buffer import HistoryBuffer

        buffer = HistoryBuffer(max_length=4)

        class Smoothed(nn.Module):
            """A step that logs its loss to a history buffer and returns the smoothed values."""

            def __init__(self) -> None:
                super().__init__()
                self.net = nn.Linear(DIM, OUT)

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                loss = F.mse_loss(self.net(x), y)
                buffer.update(loss.detach())
                return loss, buffer.latest(), buffer.median(3), buffer.avg(3), buffer.global_avg()

            def entry_points(self) -> list[Any]:
                return [HistoryBuffer.update, HistoryBuffer.median, HistoryBuffer.avg]

        return Smoothed(), (x, y), {}

    if what == "Registry":
        from fvcore.common.registry import Registry

        registry = Registry("LOSS")
        registry.register(F.mse_loss)
        registry.register(F.smooth_l1_loss)

        @registry.register()
        def huber(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            return F.huber_loss(pred, target, delta=0.5)

        class FromRegistry(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = nn.Linear(DIM, OUT)

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                pred = self.net(x)
                total = registry.get("huber")(pred, y)
                if "mse_loss" in registry:
                    total = total + registry.get("mse_loss")(pred, y)
                return total

            def entry_points(self) -> list[Any]:
                return [Registry.get, Registry.__contains__]

        return FromRegistry(), (x, y), {}

    if what == "Timer":
        from fvcore.common.timer import Timer

        class Timed(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = nn.Linear(DIM, OUT)

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                timer = Timer()
                loss = F.mse_loss(self.net(x), y)
                timer.pause()
                paused = timer.is_paused()
                timer.resume()
                return loss, timer.seconds(), paused

            def entry_points(self) -> list[Any]:
                return [Timer]

        return Timed(), (x, y), {}

    if what == "CfgNode":
        from fvcore.common.config import CfgNode

        cfg = CfgNode()
        cfg.LOSS = CfgNode()
        cfg.LOSS.ALPHA = 0.25
        cfg.LOSS.GAMMA = 2.0
        cfg.LOSS.REDUCTION = "mean"
        cfg.merge_from_list(["LOSS.GAMMA", "1.5"])
        cfg.freeze()
        from fvcore.nn import sigmoid_focal_loss

        class Configured(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = nn.Linear(DIM, OUT)
                self.cfg = cfg

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                c = self.cfg.LOSS
                return sigmoid_focal_loss(self.net(x), (y > 0).float(), alpha=c.ALPHA, gamma=c.GAMMA,
                                          reduction=c.REDUCTION)

            def entry_points(self) -> list[Any]:
                return [sigmoid_focal_loss]

        return Configured(), (x, y), {}
    raise KeyError(name)


def build(name: str) -> Built:
    family, _, rest = name.partition(".")
    if family == "loss" and rest in LOSSES:
        return _loss(rest)
    if family == "se" and rest in SE:
        return _se(rest)
    if family == "init" and rest in INIT:
        return _init(rest)
    if family == "params" and rest in PARAMS:
        return _params(rest)
    if family == "precise_bn" and rest in PRECISE_BN:
        return _precise_bn(rest)
    if family == "analysis" and rest in ANALYSIS:
        return _analysis(rest)
    if family == "precomputed" and rest in PRECOMPUTED:
        return _precomputed(rest)
    if family == "transforms" and rest in TRANSFORMS:
        return _transforms(rest)
    if family == "common" and (rest in COMMON or rest.removeprefix("tensor_step.") in TENSOR_SCHEDULERS):
        return _common(rest)
    raise KeyError(name)
