"""Ground-truth bench, x_unet (x-unet): the configurable U-Net XUnet, its nested U-Nets, blocks and attention residuals.

x-unet (lucidrains) exports ``XUnet`` (a U-Net over images, or over videos and volumes with a frame
kernel: every layer is a 3-D convolution, and images run as one-frame videos), ``NestedResidualUnet``
(the U-Net-squared block that replaces a stage's second convolution) and ``XAttnRes`` (cross-stage
attention residuals: a learned query attends over the earlier stages' feature maps, resized to the
current one by adaptive pooling or interpolation, with optional low-rank key adapters). ``XUnet``'s
options pick its code: ResNet or ConvNeXt-2 blocks, weight-standardised convolutions, nested U-Net depths
per stage, self-attention blocks per stage (heads and head widths per stage), blocks per stage, the
consolidation of every upsampling stage's feature map, the skip scale, ``XAttnRes`` between stages (also
replacing the skip connections; heads, pooling, LoRA width). So each model of the tables is one of:

- ``UNETS``: ``XUnet`` at dim 8 (mostly two or three stages, attention of 2 heads of 8) on a batch of two
  3 x 16 x 16 images, or with ``frame_kernel_size=3`` on a batch of two 3 x 4 x 16 x 16 videos, in those
  configurations (the README's three, scaled down, among them), and on non-square images, one-channel
  images with another output width, and a batch of one;
- ``NESTED``: ``NestedResidualUnet`` alone (depths 1 to 3, the residual added or given, weight
  standardisation, a frame kernel over videos, another skip scale);
- ``XATTNRES``: ``XAttnRes`` alone as the README uses it (a history of finer, equal and coarser maps),
  with no or an empty history, more heads, average pooling, no LoRA, channel-last inputs, volumes and
  sequences; and its resizing helper ``resize_to`` (pooling down, interpolating up, on 1-, 2- and 3-D
  maps) through ``gt_calls.Call``;
- ``PARTS``: the layers of ``x_unet.x_unet`` alone: ``Block``, ``ResnetBlock`` (weight-standardised,
  nested, with a frame kernel), ``ConvNextBlock`` (nested, with a frame kernel), ``GRN``, ``Attention``,
  ``TransformerBlock``, ``FeedForward``, ``FeatureMapConsolidator`` (resizing before or after its
  convolutions), ``PixelShuffleUpsample``, ``RMSNorm``, ``LayerNorm``, ``WeightStandardizedConv3d``,
  ``Downsample``, ``Upsample``, ``Project`` and ``LoRA``, on 8-channel 4 x 8 x 8 maps;
- ``TRAIN``: bench train steps: a denoising step (noise added to images, a mean-squared error on the
  predicted noise), a video denoising step with attention residuals, and a segmentation step (per-pixel
  cross-entropy over 4 classes, the README's biomedical use).

``XUnet`` asserts that images go to a U-Net without a frame kernel and videos to one with, and
``NestedResidualUnet`` that the maps divide by its depth: those mismatches fail eagerly and are left out,
as are ``XAttnRes(channel_first=False)`` inside ``XUnet`` (its maps are channel-first) and an ``init_dim``
other than ``dim`` (the final convolution then expects another width than the residual it is given, on
0.5.0). Random weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, BATCH, SIZE, FRAMES, CHANNELS = 8, 2, 16, 4, 3
# Two stages, one block each, attention in the last: the small base most models vary.
BASE: dict[str, Any] = {"dim": DIM, "dim_mults": (1, 2), "num_blocks_per_stage": (1, 1),
                        "num_self_attn_per_stage": (0, 1), "nested_unet_depths": (0, 0), "nested_unet_dim": 8, "attn_heads": 2,
                        "attn_dim_head": 8}
THREE: dict[str, Any] = {**BASE, "dim_mults": (1, 2, 4), "num_blocks_per_stage": (1, 1, 1),
                         "num_self_attn_per_stage": (0, 0, 1), "nested_unet_depths": (0, 0, 0)}
VIDEO: dict[str, Any] = {**BASE, "frame_kernel_size": 3}

# ``XUnet`` name -> (constructor keywords, input kind). Inputs: "image" (2, 3, 16, 16), "video"
# (2, 3, 4, 16, 16), "rect" (2, 3, 16, 32), "gray" (2, 1, 16, 16), "image1" (1, 3, 16, 16).
UNETS: dict[str, tuple[dict[str, Any], str]] = {
    "XUnet": (BASE, "image"),
    "XUnet.three_stages": (THREE, "image"),
    "XUnet.four_stages.defaults": ({"dim": DIM, "attn_heads": 2, "attn_dim_head": 8}, "image"),
    "XUnet.convnext": ({**BASE, "use_convnext": True}, "image"),
    "XUnet.weight_standardize": ({**BASE, "weight_standardize": True}, "image"),
    "XUnet.nested": ({**THREE, "nested_unet_depths": (3, 2, 1)}, "image"),
    "XUnet.nested.convnext": ({**BASE, "nested_unet_depths": (2, 1), "use_convnext": True}, "image"),
    "XUnet.nested.weight_standardize": ({**BASE, "nested_unet_depths": (2, 1), "weight_standardize": True},
                                        "image"),
    "XUnet.nested.int_depth": ({**BASE, "nested_unet_depths": 1}, "image"),
    "XUnet.self_attn_every_stage": ({**THREE, "num_self_attn_per_stage": (1, 1, 1), "attn_heads": (1, 2, 2),
                                     "attn_dim_head": (4, 8, 8)}, "image"),
    "XUnet.two_self_attn": ({**BASE, "num_self_attn_per_stage": (0, 2)}, "image"),
    "XUnet.no_self_attn": ({**BASE, "num_self_attn_per_stage": 0}, "image"),
    "XUnet.blocks_per_stage": ({**BASE, "num_blocks_per_stage": (2, 3)}, "image"),
    "XUnet.blocks_per_stage.int": ({**BASE, "num_blocks_per_stage": 2}, "image"),
    "XUnet.no_consolidate": ({**BASE, "consolidate_upsample_fmaps": False}, "image"),
    "XUnet.no_consolidate.convnext": ({**BASE, "consolidate_upsample_fmaps": False, "use_convnext": True},
                                      "image"),
    "XUnet.skip_scale": ({**BASE, "skip_scale": 1.0}, "image"),
    "XUnet.out_dim.gray": ({**BASE, "out_dim": 2, "channels": 1}, "gray"),
    "XUnet.rect": (BASE, "rect"),
    "XUnet.batch1": (BASE, "image1"),
    "XUnet.xattnres": ({**BASE, "use_xattnres": True}, "image"),
    "XUnet.xattnres.three_stages": ({**THREE, "use_xattnres": True}, "image"),
    "XUnet.xattnres.replace_skips": ({**THREE, "use_xattnres": True, "xattnres_replace_skips": True}, "image"),
    "XUnet.xattnres.heads.avg": ({**BASE, "use_xattnres": True, "xattnres_heads": 2, "xattnres_pooling": "avg"},
                                 "image"),
    "XUnet.xattnres.no_lora": ({**BASE, "use_xattnres": True, "xattnres_dim_lora": None}, "image"),
    "XUnet.xattnres.kwargs": ({**BASE, "use_xattnres": True, "xattnres_kwargs": {"channel_first": True},
                               "xattnres_dim_lora": 4}, "image"),
    "XUnet.xattnres.convnext": ({**BASE, "use_xattnres": True, "use_convnext": True}, "image"),
    "XUnet.readme": ({**THREE, "nested_unet_depths": (3, 2, 1), "consolidate_upsample_fmaps": True,
                      "use_xattnres": True}, "image"),
    "XUnet.readme.replace_skips": ({**THREE, "use_xattnres": True, "xattnres_replace_skips": True,
                                    "nested_unet_depths": (2, 1, 1)}, "image"),
    "XUnet3d": (VIDEO, "video"),
    "XUnet3d.convnext": ({**VIDEO, "use_convnext": True}, "video"),
    "XUnet3d.nested": ({**VIDEO, "nested_unet_depths": (2, 1)}, "video"),
    "XUnet3d.weight_standardize": ({**VIDEO, "weight_standardize": True}, "video"),
    "XUnet3d.xattnres": ({**VIDEO, "use_xattnres": True}, "video"),
    "XUnet3d.xattnres.replace_skips": ({**VIDEO, "use_xattnres": True, "xattnres_replace_skips": True}, "video"),
    "XUnet3d.no_consolidate": ({**VIDEO, "consolidate_upsample_fmaps": False}, "video"),
    "XUnet3d.readme": ({**VIDEO, "nested_unet_depths": (2, 1), "consolidate_upsample_fmaps": True,
                        "weight_standardize": True, "use_xattnres": True}, "video"),
}
# ``NestedResidualUnet`` name -> (constructor keywords, input kind: "fmap" 8 x 1 x 16 x 16, "video" 8 x 4 x
# 16 x 16, "fmap+residual" with a residual given).
NESTED: dict[str, tuple[dict[str, Any], str]] = {
    "NestedResidualUnet": ({"depth": 2, "dim_inner": 8}, "fmap"),
    "NestedResidualUnet.depth1": ({"depth": 1, "dim_inner": 8}, "fmap"),
    "NestedResidualUnet.depth3": ({"depth": 3, "dim_inner": 8}, "fmap"),
    "NestedResidualUnet.add_residual": ({"depth": 2, "dim_inner": 8, "add_residual": True}, "fmap"),
    "NestedResidualUnet.add_residual.given": ({"depth": 2, "dim_inner": 8, "add_residual": True}, "fmap+residual"),
    "NestedResidualUnet.weight_standardize": ({"depth": 2, "dim_inner": 8, "weight_standardize": True}, "fmap"),
    "NestedResidualUnet.frame_kernel": ({"depth": 2, "dim_inner": 8, "frame_kernel_size": 3}, "video"),
    "NestedResidualUnet.skip_scale": ({"depth": 2, "dim_inner": 4, "skip_scale": 1.0}, "fmap"),
}
# ``XAttnRes`` name -> (constructor keywords, input kind). "readme": x (2, 16, 8, 8) with a history of
# (2, 8, 16, 16), (2, 16, 8, 8), (2, 32, 4, 4); "none" / "empty": no history / an empty list; "last":
# channel-last maps; "volume": (2, 16, 2, 8, 8) maps; "seq": (2, 16, 12) sequences.
XATTNRES: dict[str, tuple[dict[str, Any], str]] = {
    "XAttnRes.readme": ({"dim_ins": (8, 16, 32)}, "readme"),
    "XAttnRes.no_history": ({}, "none"),
    "XAttnRes.empty_history": ({}, "empty"),
    "XAttnRes.heads": ({"dim_ins": (8, 16, 32), "heads": 4}, "readme"),
    "XAttnRes.avg_pooling": ({"dim_ins": (8, 16, 32), "pooling": "avg"}, "readme"),
    "XAttnRes.no_lora": ({"dim_ins": (8, 16, 32), "dim_lora": None}, "readme"),
    "XAttnRes.lora_zero": ({"dim_ins": (8, 16, 32), "dim_lora": 0}, "readme"),
    "XAttnRes.channel_last": ({"dim_ins": (8, 16, 32), "channel_first": False}, "last"),
    "XAttnRes.volume": ({"dim_ins": (8, 16)}, "volume"),
    "XAttnRes.sequence": ({"dim_ins": (8, 16, 32)}, "seq"),
}
# ``resize_to`` name -> (input shape, target shape, pooling).
RESIZE: dict[str, tuple[tuple[int, ...], tuple[int, ...], str]] = {
    "resize_to.down.max": ((2, 4, 16, 16), (8, 8), "max"),
    "resize_to.down.avg": ((2, 4, 16, 16), (8, 8), "avg"),
    "resize_to.up.bilinear": ((2, 4, 4, 4), (8, 8), "max"),
    "resize_to.same": ((2, 4, 8, 8), (8, 8), "max"),
    "resize_to.up.linear": ((2, 4, 6), (12,), "max"),
    "resize_to.down.3d": ((2, 4, 4, 8, 8), (2, 4, 4), "avg"),
    "resize_to.mixed.trilinear": ((2, 4, 2, 8, 8), (4, 4, 4), "max"),
}
# Part name -> (class of ``x_unet.x_unet``, positional arguments, keywords, input kind: "fmap" 8 x 4 x 8 x 8,
# "fmaps" with the consolidator's finer maps, "ncl" a 2-D map).
PARTS: dict[str, tuple[str, tuple[Any, ...], dict[str, Any], str]] = {
    "Block": ("Block", (8, 16), {}, "fmap"),
    "Block.weight_standardize.frame_kernel": ("Block", (8, 16), {"weight_standardize": True, "frame_kernel_size": 3},
                                              "fmap"),
    "ResnetBlock": ("ResnetBlock", (8, 16), {}, "fmap"),
    "ResnetBlock.same_dim.weight_standardize": ("ResnetBlock", (8, 8), {"weight_standardize": True}, "fmap"),
    "ResnetBlock.nested": ("ResnetBlock", (8, 8), {"nested_unet_depth": 2, "nested_unet_dim": 8}, "fmap"),
    "ResnetBlock.frame_kernel": ("ResnetBlock", (8, 16), {"frame_kernel_size": 3}, "fmap"),
    "ConvNextBlock": ("ConvNextBlock", (8, 8), {}, "fmap"),
    "ConvNextBlock.dim_out": ("ConvNextBlock", (16, 8), {"mult": 1}, "fmap16"),
    "ConvNextBlock.nested": ("ConvNextBlock", (8, 8), {"nested_unet_depth": 2, "nested_unet_dim": 8}, "fmap"),
    "ConvNextBlock.frame_kernel": ("ConvNextBlock", (8, 8), {"frame_kernel_size": 3}, "fmap"),
    "GRN": ("GRN", (8,), {}, "fmap"),
    "Attention": ("Attention", (8,), {"heads": 2, "dim_head": 8}, "fmap"),
    "TransformerBlock": ("TransformerBlock", (8,), {"depth": 1, "heads": 2, "dim_head": 8}, "fmap"),
    "FeedForward": ("FeedForward", (8,), {"mult": 2.0}, "fmap"),
    "FeatureMapConsolidator": ("FeatureMapConsolidator", (8,), {"dim_ins": (8, 16), "dim_outs": (8, 8)}, "fmaps"),
    "FeatureMapConsolidator.resize_after": ("FeatureMapConsolidator", (8,),
                                            {"dim_ins": (8, 16), "dim_outs": (8, 8), "resize_fmap_before": False},
                                            "fmaps"),
    "FeatureMapConsolidator.no_fmaps": ("FeatureMapConsolidator", (8,), {}, "fmap"),
    "PixelShuffleUpsample": ("PixelShuffleUpsample", (8,), {"dim_out": 4}, "fmap"),
    "RMSNorm": ("RMSNorm", (8,), {}, "fmap"),
    "LayerNorm": ("LayerNorm", (8,), {}, "fmap"),
    "WeightStandardizedConv3d": ("WeightStandardizedConv3d", (8, 16, 3), {"padding": 1}, "fmap"),
    "Downsample": ("Downsample", (8, 16), {}, "fmap"),
    "Upsample": ("Upsample", (8, 4), {}, "fmap"),
    "Project": ("Project", (8, 16), {}, "fmap"),
    "LoRA": ("LoRA", (8, 16), {"dim_lora": 4}, "fmap"),
}
TRAIN = ("train_step.XUnet.denoise", "train_step.XUnet3d.xattnres.denoise", "train_step.XUnet.segmentation")


def names() -> list[str]:
    return list(UNETS) + list(NESTED) + list(XATTNRES) + list(RESIZE) + list(PARTS) + list(TRAIN)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _unet_input(kind: str) -> Any:
    return {"image": lambda: _randn(BATCH, CHANNELS, SIZE, SIZE), "video": lambda: _randn(BATCH, CHANNELS, FRAMES,
                                                                                           SIZE, SIZE),
            "rect": lambda: _randn(BATCH, CHANNELS, SIZE, 2 * SIZE), "gray": lambda: _randn(BATCH, 1, SIZE, SIZE),
            "image1": lambda: _randn(1, CHANNELS, SIZE, SIZE)}[kind]()


def _xattnres(name: str) -> Built:
    from gt_calls import Keywords
    from x_unet import XAttnRes

    keywords, kind = XATTNRES[name]
    module = XAttnRes(16, **keywords)
    if kind in ("readme", "last", "seq", "none", "empty"):
        x = _randn(BATCH, 16, 8, 8)
        history = [_randn(BATCH, 8, 16, 16, seed=2), _randn(BATCH, 16, 8, 8, seed=3), _randn(BATCH, 32, 4, 4, seed=4)]
        if kind == "seq":
            x = _randn(BATCH, 16, 12)
            history = [_randn(BATCH, 8, 24, seed=2), _randn(BATCH, 16, 12, seed=3), _randn(BATCH, 32, 6, seed=4)]
        if kind == "last":
            x, history = x.movedim(1, -1), [h.movedim(1, -1) for h in history]
        if kind == "none":
            return module, (x,), {}
        if kind == "empty":
            history = []
        return Keywords(module, history=history), (x,), {}
    x = _randn(BATCH, 16, 2, 8, 8)
    history = [_randn(BATCH, 8, 4, 16, 16, seed=2), _randn(BATCH, 16, 2, 4, 4, seed=3)]
    return Keywords(module, history=history), (x,), {}


def _part(name: str) -> Built:
    from gt_calls import Keywords
    from x_unet import x_unet as lib

    cls, args, keywords, kind = PARTS[name]
    module = getattr(lib, cls)(*args, **keywords)
    if kind == "fmaps":
        fmaps = [_randn(BATCH, 8, 4, 8, 8, seed=2), _randn(BATCH, 16, 4, 4, 4, seed=3)]
        return Keywords(module, fmaps=fmaps), (_randn(BATCH, 8, 4, 8, 8),), {}
    channels = 16 if kind == "fmap16" else 8
    return module, (_randn(BATCH, channels, 4, 8, 8),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from x_unet import XUnet

    gen = torch.Generator().manual_seed(5)
    if "segmentation" in name:
        unet = XUnet(**{**BASE, "out_dim": 4, "nested_unet_depths": (1, 0)})
        images = _randn(BATCH, CHANNELS, SIZE, SIZE)
        target = torch.randint(0, 4, (BATCH, SIZE, SIZE), generator=gen)
    elif "3d" in name:
        unet = XUnet(**{**VIDEO, "use_xattnres": True})
        images = _randn(BATCH, CHANNELS, FRAMES, SIZE, SIZE)
        target = torch.randn(images.shape, generator=gen)
    else:
        unet = XUnet(**BASE)
        images = _randn(BATCH, CHANNELS, SIZE, SIZE)
        target = torch.randn(images.shape, generator=gen)
    segmentation = "segmentation" in name

    class _TrainStep(nn.Module):
        """Segmentation: the per-pixel cross-entropy of the U-Net's logits. Denoising: the images plus the
        noise (``target``) in, the mean-squared error of the predicted noise out."""

        def __init__(self) -> None:
            super().__init__()
            self.unet = unet

        def forward(self, images: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            if segmentation:
                return F.cross_entropy(self.unet(images), target)
            return F.mse_loss(self.unet(images + 0.5 * target), target)

        def entry_points(self) -> list[Any]:
            return [XUnet]

    return _TrainStep(), (images, target), {}


def build(name: str) -> Built:
    import torch
    import x_unet
    from x_unet import x_unet as lib

    from gt_calls import Call, Keywords

    torch.manual_seed(0)
    if name in UNETS:
        keywords, kind = UNETS[name]
        return x_unet.XUnet(**keywords), (_unet_input(kind),), {}
    if name in NESTED:
        keywords, kind = NESTED[name]
        module = x_unet.NestedResidualUnet(8, **keywords)
        frames = FRAMES if kind == "video" else 1
        x = _randn(BATCH, 8, frames, SIZE, SIZE)
        if kind == "fmap+residual":
            return Keywords(module, residual=_randn(BATCH, 8, 1, SIZE, SIZE, seed=2)), (x,), {}
        return module, (x,), {}
    if name in XATTNRES:
        return _xattnres(name)
    if name in RESIZE:
        shape, target, pooling = RESIZE[name]
        return Call(lib.resize_to, shape=target, pooling=pooling), (_randn(*shape),), {}
    if name in PARTS:
        return _part(name)
    return _train(name)
