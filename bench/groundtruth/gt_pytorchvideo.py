"""Ground-truth bench, pytorchvideo: video classification networks, their layers, tensor transforms and train steps.

PyTorchVideo builds video networks from factory functions over ``Net`` / ``MultiPathWayWithFuse``: ``create_resnet``
(the slow-only and C2D / I3D variants by kernel sizes and stage pools), ``create_x3d`` (Swish, squeeze-excitation,
``ProjectedPool`` head), ``create_slowfast`` (two pathways joined by ``FuseFastToSlow``, ``PoolConcatPathway`` head),
``create_r2plus1d`` (``Conv2plus1d``), ``create_csn``
(channel-separated bottlenecks), ``create_acoustic_resnet`` and ``create_multiscale_vision_transformers`` (MViT:
``PatchEmbed``, ``SpatioTemporalClsPositionalEncoding``, ``MultiScaleBlock`` with conv / avg / max attention pooling,
pool-first, adaptive kv strides, cls token or not, a ``SequencePool`` head). The masked multistream modules pool,
attend and run LSTMs and transformer encoders under a padding mask. ``accelerator.mobile_cpu`` holds the
efficient blocks (``EfficientX3d`` and its convolutions, squeeze-excitation, activations). So the tables cover, at
batch 2, clips of 4 to 8 frames of 32 x 32 pixels and widths of 4 to 16:

- ``NETS``: the factory networks above with the options that change their path (stem pools, stage1 pool,
  head activations, global average on or off, fusion kernels, depth, MViT pooling modes, 2-D patches);
- ``LAYERS``: ``MultiScaleAttention`` / ``MultiScaleBlock`` alone, positional encodings, ``NonLocal`` (dot
  product and softmax, with a pool), ``Conv2plus1d``, ``ConvReduce3D``, squeeze-excitation, ``Swish``,
  the fusion layers (concat, temporal concat, sum / max / prod), ``make_multilayer_perceptron``, ``DropPath``,
  the stems and heads, and the masked multistream modules (pooling, attention, LSTM, encoder) with and without masks;
- ``EFFICIENT``: ``EfficientX3d`` (XS, S) and the mobile-CPU blocks (3-D convolutions of temporal kernel 1, 3 and 5,
  depthwise 3x3x3, squeeze-excitation, hard swish);
- ``TRANSFORMS``: the functional transforms on video tensors (uniform temporal subsample and its repeated
  form, short side scale, uniform crop, random resized crop, one-hot labels, box crops and flips, ``div_255``),
  ``MixUp``, ``CutMix``, ``MixVideo``, ``AugMix`` and ``RandAugment`` on uint8 clips;
- ``TRAIN``: a cross-entropy ``backward`` and an SGD step through ResNet, X3D, SlowFast, MViT and
  ``EfficientX3d``, and through a soft-target loss after ``MixUp``.

pytorchvideo 0.1.5 ships no loss module, so the soft cross entropy is the user's own, on ``MixUp``'s soft labels.
RoI heads call torchvision's compiled ``roi_align``, which cannot load on this CPU torch; the detection
networks are given a plain-torch RoI pooling of the bench's own (``_BoxPool``) in its place. torchvision imports
through ``gt_models.allow_torchvision_import``. Random inputs and weights, nothing downloaded. ``names()``
needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2

NETS = ("resnet", "resnet.c2d_stage1_pool", "resnet.no_stem_pool.softmax", "resnet.no_global_average",
        "resnet.depth101", "resnet.sigmoid_head", "resnet_with_roi_head", "resnet.detection_bbox_network",
        "x3d", "x3d.relu_no_se", "x3d.bn_lin5.softmax", "slowfast", "slowfast.roi_head", "slowfast.no_global_average",
        "r2plus1d", "csn", "acoustic_resnet", "mvit", "mvit.max_pool",
        "mvit.pool_first", "mvit.no_cls", "mvit.adaptive_kv", "mvit.2d_patch", "mvit.joint_pos_embed",
        "mvit.droppath", "mvit.no_patch_embed", "net.custom_blocks", "multipathway_with_fuse")
LAYERS = ("MultiScaleAttention", "MultiScaleAttention.pool_first", "MultiScaleAttention.avg_no_cls",
          "MultiScaleBlock", "MultiScaleBlock.dim_change", "Mlp", "PositionalEncoding",
          "SpatioTemporalClsPositionalEncoding", "SpatioTemporalClsPositionalEncoding.sep_no_cls",
          "NonLocal", "NonLocal.softmax_pool", "Conv2plus1d", "ConvReduce3D.sum", "ConvReduce3D.cat",
          "SqueezeAndExcitationLayer2D", "audio_2d_squeeze_excitation_block", "Swish", "fusion.concat",
          "fusion.temporal_concat", "fusion.sum", "fusion.max", "fusion.prod", "make_multilayer_perceptron",
          "DropPath", "res_basic_stem", "conv_patch_embed", "res_basic_head", "vit_basic_head.cls",
          "vit_basic_head.mean", "SequencePool.mean", "x3d_head.projected_pool", "MaskedTemporalPooling.max",
          "MaskedTemporalPooling.avg", "MaskedTemporalPooling.sum", "MaskedTemporalPooling.no_mask",
          "TransposeMultiheadAttention", "TransposeMultiheadAttention.no_mask", "LearnMaskedDefault",
          "LearnMaskedDefault.zeros", "LSTM", "LSTM.bidirectional", "TransposeTransformerEncoder",
          "TransposeTransformerEncoder.no_mask")
EFFICIENT = ("EfficientX3d.XS", "EfficientX3d.S.no_head", "Conv3dPwBnAct", "Conv3d3x3x3DwBnAct",
             "Conv3dTemporalKernel1BnAct", "Conv3d3x1x1BnAct", "Conv3d5x1x1BnAct", "SqueezeExcitation.3d",
             "HardSwish", "efficient.Swish", "X3dBottleneckBlock")
TRANSFORMS = ("uniform_temporal_subsample", "uniform_temporal_subsample_repeated", "short_side_scale",
              "short_side_scale.wide", "uniform_crop", "random_resized_crop", "random_resized_crop.shift",
              "convert_to_one_hot", "short_side_scale_with_boxes", "random_crop_with_boxes",
              "uniform_crop_with_boxes", "horizontal_flip_with_boxes", "clip_boxes_to_image", "div_255",
              "MixUp", "CutMix", "MixVideo", "AugMix", "RandAugment", "transforms.pipeline")
TRAIN = ("train_step.resnet", "train_step.x3d", "train_step.slowfast", "train_step.mvit",
         "train_step.mixup_soft_cross_entropy", "train_step.efficient_x3d")


def names() -> list[str]:
    return list(NETS) + list(LAYERS) + list(EFFICIENT) + list(TRANSFORMS) + list(TRAIN)


def _input(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _video(channels: int = 3, frames: int = 8, size: int = 32, seed: int = 1) -> Any:
    return _input(BATCH, channels, frames, size, size, seed=seed)


def _mask(length: int = 5) -> Any:
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, 3:] = False
    return mask


def _box_pool() -> Any:
    """A plain-torch stand-in for torchvision's ``RoIAlign``: each box's feature is the mean of its crop."""
    import torch
    from torch import nn

    class _BoxPool(nn.Module):
        def __init__(self, output_size: Any = (1, 1), spatial_scale: float = 1.0, sampling_ratio: int = 0,
                     aligned: bool = True) -> None:
            super().__init__()
            self.output_size = output_size
            self.spatial_scale = spatial_scale

        def forward(self, x: torch.Tensor, boxes: torch.Tensor) -> torch.Tensor:
            index = boxes[:, 0].long()
            pooled = nn.functional.adaptive_avg_pool2d(x, self.output_size)
            return pooled[index]

    return _BoxPool


def _roi_head() -> Any:
    """``create_res_roi_pooling_head`` with the bench's RoI pooling in place of torchvision's."""
    import functools

    from pytorchvideo.models.head import create_res_roi_pooling_head

    return functools.partial(create_res_roi_pooling_head, roi=_box_pool())


def _boxes() -> Any:
    import torch

    return torch.tensor([[0.0, 1.0, 1.0, 20.0, 20.0], [1.0, 2.0, 3.0, 30.0, 28.0], [1.0, 0.0, 0.0, 10.0, 12.0]])


def _resnet(name: str) -> Built:
    from torch import nn

    from pytorchvideo.models import create_resnet
    from pytorchvideo.models.resnet import create_resnet_with_roi_head

    small = dict(model_num_class=5, stem_dim_out=4, head_pool=nn.AdaptiveAvgPool3d, dropout_rate=0.1)
    if name == "resnet":
        return create_resnet(**small), (_video(),), {}
    if name == "resnet.c2d_stage1_pool":
        return create_resnet(**small, stage1_pool=nn.MaxPool3d,
                             stage_conv_a_kernel_size=((1, 1, 1),) * 4), (_video(),), {}
    if name == "resnet.no_stem_pool.softmax":
        return create_resnet(**small, stem_pool=None, head_activation=nn.Softmax), (_video(size=16),), {}
    if name == "resnet.no_global_average":
        return create_resnet(**small, head_output_with_global_average=False), (_video(),), {}
    if name == "resnet.depth101":
        return create_resnet(**small, model_depth=101), (_video(frames=4),), {}
    if name == "resnet.sigmoid_head":
        return create_resnet(**small, head_activation=nn.Sigmoid, activation=nn.ELU), (_video(frames=4),), {}
    if name == "resnet_with_roi_head":
        model = create_resnet_with_roi_head(model_num_class=5, stem_dim_out=4, head_pool=nn.AdaptiveAvgPool3d,
                                            head=_roi_head(), head_spatial_resolution=(2, 2))
        return model, (_video(), _boxes()), {}
    # A ``DetectionBBoxNetwork`` over a ResNet trunk and a RoI head.
    from pytorchvideo.models.head import create_res_roi_pooling_head
    from pytorchvideo.models.net import DetectionBBoxNetwork

    trunk = create_resnet(**small)
    trunk.blocks = trunk.blocks[:-1]
    head = create_res_roi_pooling_head(in_features=128, out_features=5, resolution=(2, 2), spatial_scale=1 / 16,
                                       roi=_box_pool(), pool=nn.AdaptiveAvgPool3d, dropout_rate=0.1)
    return DetectionBBoxNetwork(trunk, head), (_video(), _boxes()), {}


def _x3d(name: str) -> Built:
    from torch import nn

    from pytorchvideo.models.x3d import create_x3d

    small = dict(input_clip_length=4, input_crop_size=32, model_num_class=5, width_factor=0.5, depth_factor=0.5,
                 head_dim_out=32, stem_dim_in=4)
    if name == "x3d":
        return create_x3d(**small), (_video(frames=4),), {}
    if name == "x3d.relu_no_se":
        return create_x3d(**small, se_ratio=0.0, inner_act=nn.ReLU, head_activation=None), (_video(frames=4),), {}
    return create_x3d(**small, head_bn_lin5_on=True, head_output_with_global_average=False), \
        (_video(frames=4),), {}


def _slowfast(name: str) -> Built:
    from torch import nn

    from pytorchvideo.models.slowfast import create_slowfast, create_slowfast_with_roi_head

    small = dict(model_num_class=5, stem_dim_outs=(16, 2), head_pool=nn.AdaptiveAvgPool3d, dropout_rate=0.1,
                 head_pool_kernel_sizes=((1, 1, 1), (1, 1, 1)))
    inputs = (_video(frames=2), _video(frames=8, seed=2))
    if name == "slowfast":
        return _pathways(create_slowfast(**small)), inputs, {}
    if name == "slowfast.no_global_average":
        return _pathways(create_slowfast(**small, head_output_with_global_average=False,
                                         head_activation=nn.Softmax)), inputs, {}
    model = create_slowfast_with_roi_head(model_num_class=5, stem_dim_outs=(16, 2), head=_roi_head(),
                                          head_spatial_resolution=(2, 2), head_pool=nn.AdaptiveAvgPool3d)
    return _pathways(model, boxes=True), (*inputs, _boxes()), {}


def _pathways(model: Any, boxes: bool = False) -> Any:
    """``model`` called on a fresh list of its pathways' clips (its fusion writes into the list it is given)."""
    from gt_calls import Run

    if boxes:
        return Run(model, lambda owner, *xs: owner(list(xs[:-1]), xs[-1]), [type(model)])
    return Run(model, lambda owner, *xs: owner(list(xs)), [type(model)])


def _mvit(name: str) -> Built:
    from torch import nn

    from pytorchvideo.models import create_multiscale_vision_transformers

    options: dict[str, Any] = dict(spatial_size=32, temporal_size=4, depth=3, patch_embed_dim=16, num_heads=2,
                                   head_num_classes=5, mlp_ratio=2.0, embed_dim_mul=[[1, 2.0]],
                                   atten_head_mul=[[1, 2.0]], pool_q_stride_size=[[1, 1, 2, 2]],
                                   pool_kv_stride_size=[[0, 1, 2, 2], [1, 1, 2, 2], [2, 1, 1, 1]],
                                   pool_kvq_kernel=(3, 3, 3))
    frames = 4
    if name == "mvit.avg_pool":
        options.update(pooling_mode="avg", pool_kvq_kernel=(1, 2, 2))
    elif name == "mvit.max_pool":
        options["pooling_mode"] = "max"
    elif name == "mvit.pool_first":
        options["pool_first"] = True
    elif name == "mvit.no_cls":
        options.update(cls_embed_on=False, head=None)
    elif name == "mvit.adaptive_kv":
        options.update(pool_kv_stride_size=None, pool_kv_stride_adaptive=[1, 4, 4])
    elif name == "mvit.2d_patch":
        options.update(use_2d_patch=True, temporal_size=1, conv_patch_embed_kernel=(7, 7),
                       conv_patch_embed_stride=(4, 4), conv_patch_embed_padding=(3, 3))
        return create_multiscale_vision_transformers(**options), (_input(BATCH, 3, 32, 32),), {}
    elif name == "mvit.joint_pos_embed":
        options.update(sep_pos_embed=False, enable_patch_embed_norm=True)
    elif name == "mvit.droppath":
        options.update(droppath_rate_block=0.2, dropout_rate_block=0.1, head_activation=nn.Softmax)
    elif name == "mvit.no_patch_embed":
        options.update(enable_patch_embed=False, input_channels=16, spatial_size=8)
        return create_multiscale_vision_transformers(**options), (_input(BATCH, 4 * 8 * 8, 16),), {}
    return create_multiscale_vision_transformers(**options), (_video(frames=frames),), {}


def _nets(name: str) -> Built:
    from torch import nn

    if name.startswith("resnet"):
        return _resnet(name)
    if name.startswith("x3d"):
        return _x3d(name)
    if name.startswith("slowfast"):
        return _slowfast(name)
    if name.startswith("mvit"):
        return _mvit(name)
    if name == "r2plus1d":
        from pytorchvideo.models.r2plus1d import create_r2plus1d

        model = create_r2plus1d(model_num_class=5, stem_dim_out=4, head_pool=nn.AdaptiveAvgPool3d, dropout_rate=0.1)
        return model, (_video(),), {}
    if name == "csn":
        from pytorchvideo.models import create_csn

        return create_csn(model_num_class=5, stem_dim_out=4, head_pool=nn.AdaptiveAvgPool3d), (_video(),), {}
    if name == "acoustic_resnet":
        from pytorchvideo.models.resnet import create_acoustic_resnet

        model = create_acoustic_resnet(model_num_class=5, stem_dim_out=4, head_pool=nn.AdaptiveAvgPool3d)
        return model, (_input(BATCH, 1, 16, 32, 1),), {}
    if name == "net.custom_blocks":
        from pytorchvideo.models import Net, create_res_basic_head, create_res_basic_stem
        from pytorchvideo.models.resnet import create_bottleneck_block, create_res_stage

        blocks = nn.ModuleList([
            create_res_basic_stem(in_channels=3, out_channels=8),
            create_res_stage(depth=2, dim_in=8, dim_inner=4, dim_out=16, conv_b_kernel_size=(3, 3, 3),
                             conv_b_padding=(1, 1, 1), bottleneck=create_bottleneck_block),
            create_res_basic_head(in_features=16, out_features=5, pool=nn.AdaptiveAvgPool3d)])
        return Net(blocks=blocks), (_video(),), {}
    from pytorchvideo.models import MultiPathWayWithFuse
    from pytorchvideo.layers import make_fusion_layer

    paths = nn.ModuleList([nn.Sequential(nn.Conv3d(3, 4, 3, padding=1), nn.AdaptiveAvgPool3d(1), nn.Flatten()),
                           nn.Sequential(nn.Conv3d(3, 6, 1), nn.AdaptiveAvgPool3d(1), nn.Flatten())])
    model = MultiPathWayWithFuse(multipathway_blocks=paths, multipathway_fusion=make_fusion_layer("concat", [4, 6]),
                                 inplace=False)
    return model, ([_video(), _video(seed=2)],), {}


def _layers(name: str) -> Built:
    from torch import nn

    if name.startswith("MultiScaleAttention"):
        from pytorchvideo.layers import MultiScaleAttention

        cls = name != "MultiScaleAttention.avg_no_cls"
        size = (3, 3, 3) if cls else (1, 2, 2)
        kernels = {"kernel_q": size, "kernel_kv": size}
        module = MultiScaleAttention(16, num_heads=2, qkv_bias=True, **kernels,
                                     stride_q=(1, 2, 2), stride_kv=(1, 2, 2), has_cls_embed=cls,
                                     pool_mode="avg" if not cls else "conv",
                                     pool_first=name.endswith("pool_first"), dropout_rate=0.1)
        return module, (_input(BATCH, 2 * 4 * 4 + int(cls), 16), [2, 4, 4]), {}
    if name.startswith("MultiScaleBlock"):
        from pytorchvideo.layers import MultiScaleBlock

        out = 32 if name.endswith("dim_change") else 16
        module = MultiScaleBlock(16, out, num_heads=2, kernel_q=(3, 3, 3), kernel_kv=(3, 3, 3), stride_q=(1, 2, 2),
                                 stride_kv=(1, 2, 2), droppath_rate=0.1)
        return module, (_input(BATCH, 2 * 4 * 4 + 1, 16), [2, 4, 4]), {}
    if name == "Mlp":
        from pytorchvideo.layers import Mlp

        return Mlp(16, 32, 8, dropout_rate=0.1), (_input(BATCH, 5, 16),), {}
    if name == "PositionalEncoding":
        from pytorchvideo.layers import PositionalEncoding

        return PositionalEncoding(16, seq_len=12), (_input(BATCH, 7, 16),), {}
    if name.startswith("SpatioTemporalClsPositionalEncoding"):
        from pytorchvideo.layers import SpatioTemporalClsPositionalEncoding

        sep = name.endswith("sep_no_cls")
        module = SpatioTemporalClsPositionalEncoding(16, (2, 3, 3), sep_pos_embed=sep, has_cls=not sep)
        return module, (_input(BATCH, 18, 16),), {}
    if name.startswith("NonLocal"):
        from pytorchvideo.layers.nonlocal_net import create_nonlocal

        softmax = name.endswith("softmax_pool")
        module = create_nonlocal(dim_in=8, dim_inner=4, pool_size=(1, 2, 2) if softmax else None,
                                 instantiation="softmax" if softmax else "dot_product")
        return module, (_video(8, 4, 8),), {}
    if name == "Conv2plus1d":
        from pytorchvideo.layers.convolutions import create_conv_2plus1d

        module = create_conv_2plus1d(in_channels=3, out_channels=8, inner_channels=4, conv_xy_first=True,
                                     kernel_size=(3, 3, 3), padding=(1, 1, 1))
        return module, (_video(frames=4, size=16),), {}
    if name.startswith("ConvReduce3D"):
        from pytorchvideo.layers.convolutions import ConvReduce3D

        module = ConvReduce3D(in_channels=3, out_channels=4, kernel_size=((1, 1, 1), (3, 3, 3)),
                              padding=((0, 0, 0), (1, 1, 1)), reduction_method=name.rsplit(".", 1)[1])
        return module, (_video(frames=4, size=16),), {}
    if name == "SqueezeAndExcitationLayer2D":
        from pytorchvideo.layers.squeeze_excitation import SqueezeAndExcitationLayer2D

        return SqueezeAndExcitationLayer2D(16, reduction_ratio=4), (_input(BATCH, 16, 6, 6),), {}
    if name == "audio_2d_squeeze_excitation_block":
        from pytorchvideo.layers.squeeze_excitation import create_audio_2d_squeeze_excitation_block

        module = create_audio_2d_squeeze_excitation_block(dim_in=8, dim_out=16, use_se=True, se_reduction_ratio=4,
                                                          branch_fusion=lambda a, b: a + b)
        return module, (_input(BATCH, 8, 8, 8),), {}
    if name == "Swish":
        from pytorchvideo.layers.swish import Swish

        return Swish(), (_input(BATCH, 4, 6),), {}
    if name.startswith("fusion."):
        from pytorchvideo.layers import make_fusion_layer

        method = name.split(".", 1)[1]
        if method == "temporal_concat":
            return make_fusion_layer("temporal_concat", [4, 4]), \
                ([_input(BATCH, 3, 4), _input(BATCH, 5, 4, seed=2)],), {}
        return make_fusion_layer(method, [4, 4, 4]), ([_input(BATCH, 4, seed=s) for s in (1, 2, 3)],), {}
    if name == "make_multilayer_perceptron":
        from pytorchvideo.layers import make_multilayer_perceptron

        module, _ = make_multilayer_perceptron([8, 16, 16, 4], norm=nn.BatchNorm1d, dropout_rate=0.1)
        return module, (_input(BATCH, 8),), {}
    if name == "DropPath":
        from pytorchvideo.layers import DropPath

        return DropPath(0.3), (_input(BATCH, 5, 8),), {}
    if name == "res_basic_stem":
        from pytorchvideo.models import create_res_basic_stem

        return create_res_basic_stem(in_channels=3, out_channels=8), (_video(),), {}
    if name == "conv_patch_embed":
        from pytorchvideo.models import create_conv_patch_embed

        return create_conv_patch_embed(in_channels=3, out_channels=16), (_video(),), {}
    if name == "res_basic_head":
        from pytorchvideo.models import create_res_basic_head

        module = create_res_basic_head(in_features=8, out_features=5, pool=nn.AvgPool3d, pool_kernel_size=(2, 4, 4),
                                       activation=nn.Softmax)
        return module, (_video(8, 2, 4),), {}
    if name.startswith("vit_basic_head"):
        from pytorchvideo.models.head import create_vit_basic_head

        module = create_vit_basic_head(in_features=16, out_features=5, seq_pool_type=name.rsplit(".", 1)[1],
                                       activation=nn.Sigmoid)
        return module, (_input(BATCH, 7, 16),), {}
    if name == "SequencePool.mean":
        from pytorchvideo.models.head import SequencePool

        return SequencePool("mean"), (_input(BATCH, 7, 16),), {}
    if name == "x3d_head.projected_pool":
        from pytorchvideo.models.x3d import create_x3d_head

        module = create_x3d_head(dim_in=8, dim_inner=16, dim_out=24, num_classes=5, pool_kernel_size=(2, 4, 4))
        return module, (_video(8, 2, 4),), {}
    if name.startswith("MaskedTemporalPooling"):
        from pytorchvideo.models import MaskedTemporalPooling

        method = name.rsplit(".", 1)[1]
        if method == "no_mask":
            return MaskedTemporalPooling("avg"), (_input(BATCH, 5, 8),), {}
        return MaskedTemporalPooling(method), (_input(BATCH, 5, 8), _mask()), {}
    if name.startswith("TransposeMultiheadAttention"):
        from pytorchvideo.models import TransposeMultiheadAttention

        args = (_input(BATCH, 5, 8),) if name.endswith("no_mask") else (_input(BATCH, 5, 8), _mask())
        return TransposeMultiheadAttention(8, num_heads=2), args, {}
    if name.startswith("LearnMaskedDefault"):
        from pytorchvideo.models import LearnMaskedDefault

        init = "zeros" if name.endswith("zeros") else "gaussian"
        mask = _mask()
        mask[0] = False
        return LearnMaskedDefault(8, init_method=init), (_input(BATCH, 5, 8), mask), {}
    if name.startswith("LSTM"):
        from pytorchvideo.models import LSTM

        return LSTM(8, 6, bidirectional=name.endswith("bidirectional")), (_input(BATCH, 5, 8), _mask()), {}
    from pytorchvideo.models import TransposeTransformerEncoder

    args = (_input(BATCH, 5, 8),) if name.endswith("no_mask") else (_input(BATCH, 5, 8), _mask())
    return TransposeTransformerEncoder(8, num_heads=2, num_layers=2), args, {}


def _efficient(name: str) -> Built:
    if name.startswith("EfficientX3d"):
        from pytorchvideo.models.accelerator.mobile_cpu.efficient_x3d import create_x3d

        if name == "EfficientX3d.XS":
            return create_x3d(num_classes=5, expansion="XS"), (_input(1, 3, 4, 64, 64),), {}
        return create_x3d(num_classes=5, expansion="S", enable_head=False), (_input(1, 3, 4, 64, 64),), {}
    from pytorchvideo.layers.accelerator.mobile_cpu import activation_functions, attention, convolutions

    clip = _video(8, 5, 8)
    if name == "Conv3dPwBnAct":
        return convolutions.Conv3dPwBnAct(8, 16, activation="swish"), (clip,), {}
    if name == "Conv3d3x3x3DwBnAct":
        return convolutions.Conv3d3x3x3DwBnAct(8, spatial_stride=2, activation="hswish"), (clip,), {}
    if name == "Conv3dTemporalKernel1BnAct":
        return convolutions.Conv3dTemporalKernel1BnAct(8, 8, groups=8, spatial_kernel=3, spatial_padding=1), \
            (clip,), {}
    if name == "Conv3d3x1x1BnAct":
        return convolutions.Conv3d3x1x1BnAct(8, 8, groups=8), (clip,), {}
    if name == "Conv3d5x1x1BnAct":
        return convolutions.Conv3d5x1x1BnAct(8, 8, groups=8), (clip,), {}
    if name == "SqueezeExcitation.3d":
        return attention.SqueezeExcitation(8, is_3d=True), (clip,), {}
    if name == "HardSwish":
        return activation_functions.HardSwish(), (clip,), {}
    if name == "efficient.Swish":
        return activation_functions.Swish(), (clip,), {}
    from pytorchvideo.models.accelerator.mobile_cpu.residual_blocks import X3dBottleneckBlock

    return X3dBottleneckBlock(in_channels=8, mid_channels=16, out_channels=8), (clip,), {}


def _transforms(name: str) -> Built:
    import torch

    from gt_calls import Call

    from pytorchvideo.transforms import functional as F

    clip = _input(3, 8, 24, 32)
    boxes = torch.tensor([[1.0, 2.0, 20.0, 18.0], [4.0, 0.0, 30.0, 22.0]])
    if name == "uniform_temporal_subsample":
        return Call(F.uniform_temporal_subsample), (clip, 4), {}
    if name == "uniform_temporal_subsample_repeated":
        return Call(F.uniform_temporal_subsample_repeated, frame_ratios=(4, 1), temporal_dim=1), (clip,), {}
    if name == "short_side_scale":
        return Call(F.short_side_scale, size=16), (clip,), {}
    if name == "short_side_scale.wide":
        return Call(F.short_side_scale, size=12), (_input(3, 4, 32, 20),), {}
    if name == "uniform_crop":
        return Call(F.uniform_crop, size=16, spatial_idx=2), (clip,), {}
    if name.startswith("random_resized_crop"):
        shift = name.endswith("shift")
        return Call(F.random_resized_crop, target_height=16, target_width=16, scale=(0.3, 1.0),
                    aspect_ratio=(0.75, 1.33), shift=shift, log_uniform_ratio=not shift), (clip,), {}
    if name == "convert_to_one_hot":
        return Call(F.convert_to_one_hot, num_class=6, label_smooth=0.1), (torch.tensor([0, 3, 5]),), {}
    if name == "short_side_scale_with_boxes":
        return Call(F.short_side_scale_with_boxes, size=16), (clip, boxes), {}
    if name == "random_crop_with_boxes":
        return Call(F.random_crop_with_boxes), (clip, 16, boxes), {}
    if name == "uniform_crop_with_boxes":
        return Call(F.uniform_crop_with_boxes), (clip, 16, 1, boxes), {}
    if name == "horizontal_flip_with_boxes":
        return Call(F.horizontal_flip_with_boxes), (1.0, clip, boxes), {}
    if name == "clip_boxes_to_image":
        return Call(F.clip_boxes_to_image, height=16, width=20), (boxes,), {}
    if name == "div_255":
        return Call(F.div_255), (clip,), {}
    from pytorchvideo.transforms import mix

    videos = _input(BATCH, 3, 4, 16, 16)
    labels = torch.tensor([1, 4])
    if name == "MixUp":
        return mix.MixUp(alpha=0.5, label_smoothing=0.1, num_classes=5), (videos, labels), {}
    if name == "CutMix":
        return mix.CutMix(alpha=0.5, num_classes=5), (videos, labels), {}
    if name == "MixVideo":
        return mix.MixVideo(cutmix_prob=0.5, num_classes=5), (videos, labels), {}
    uint8 = (torch.rand(4, 3, 16, 16, generator=torch.Generator().manual_seed(1)) * 255).to(torch.uint8)
    if name == "AugMix":
        from pytorchvideo.transforms.augmix import AugMix

        augmix = AugMix(magnitude=3, width=2, depth=2)
        return Call(augmix.__call__), (uint8,), {}
    if name == "RandAugment":
        from pytorchvideo.transforms.rand_augment import RandAugment

        rand = RandAugment(magnitude=5, num_layers=2)
        return Call(rand.__call__), (uint8,), {}
    from torch import nn

    from pytorchvideo import transforms as T

    pipeline = nn.Sequential(T.UniformTemporalSubsample(4), T.Div255(), T.ShortSideScale(16),
                             T.RandomResizedCrop(16, 16, scale=(0.5, 1.0), aspect_ratio=(0.75, 1.33)))
    return pipeline, (clip * 255,), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Run

    kind = name.split(".", 1)[1]
    if kind == "mixup_soft_cross_entropy":
        from pytorchvideo.models import create_resnet
        from pytorchvideo.transforms.mix import MixUp

        net = create_resnet(model_num_class=5, stem_dim_out=4, head_pool=nn.AdaptiveAvgPool3d, dropout_rate=0.0)
        mixup = MixUp(alpha=0.5, num_classes=5)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.01)

        def soft_step(owner: Any, videos: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            """MixUp, then a soft-target cross entropy's backward and an SGD step."""
            with torch.enable_grad():
                mixed, soft = mixup(videos, labels)
                loss = torch.sum(-soft * torch.log_softmax(owner(mixed), dim=-1), dim=-1).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(net, soft_step, [type(net), MixUp]), (_video(), torch.tensor([0, 3])), {}
    built = {"resnet": lambda: _resnet("resnet"), "x3d": lambda: _x3d("x3d"),
             "slowfast": lambda: _slowfast("slowfast"),
             "mvit": lambda: _mvit("mvit"), "efficient_x3d": lambda: _efficient("EfficientX3d.XS")}[kind]()
    net, inputs, _ = built
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    target = torch.tensor([1, 3][:inputs[0].shape[0]])

    def step(owner: Any, *xs: Any) -> torch.Tensor:
        """A cross-entropy loss's backward through the network and an SGD step."""
        with torch.enable_grad():
            loss = nn.functional.cross_entropy(owner(*xs), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.detach()

    entries = net.entry_points() if hasattr(net, "entry_points") else [type(net)]
    return Run(net, step, entries), inputs, {}


def before_import() -> None:
    """pytorchvideo 0.1.5 imports ``torchvision.transforms.functional_tensor``, which torchvision 0.17 renamed
    ``_functional_tensor``: the old name is made an alias of the new module."""
    import sys

    import gt_models

    gt_models.allow_torchvision_import()
    if "torchvision.transforms.functional_tensor" not in sys.modules:
        from torchvision.transforms import _functional_tensor

        sys.modules["torchvision.transforms.functional_tensor"] = _functional_tensor


def build(name: str) -> Built:
    import torch

    before_import()
    torch.manual_seed(0)
    if name in NETS:
        return _nets(name)
    if name in LAYERS:
        return _layers(name)
    if name in EFFICIENT:
        return _efficient(name)
    if name in TRANSFORMS:
        return _transforms(name)
    return _train(name)
