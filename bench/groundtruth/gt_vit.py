"""Ground-truth bench, vit-pytorch: the vision-transformer variants of lucidrains' collection.

``MODELS`` maps a name to a module of ``vit_pytorch``, a class and its keywords beyond the common
small ones (``COMMON``: 32-pixel images, 8-pixel patches, width 32, two layers, two heads). Variants
with data-dependent token selection (adaptive token sampling, patch dropout, NaViT's packing of
images of different sizes) are the break-rich ones. ``names()`` needs no torch; ``build`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
COMMON: dict[str, Any] = {"image_size": 32, "patch_size": 8, "num_classes": 5, "dim": 32, "depth": 2, "heads": 2,
                          "mlp_dim": 64}

# Name -> (module, class, keywords added to (or, with None, removed from) ``COMMON``).
MODELS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "vit": ("vit", "ViT", {}),
    "vit.mean_pool": ("vit", "ViT", {"pool": "mean"}),
    "simple_vit": ("simple_vit", "SimpleViT", {}),
    "simple_vit_with_patch_dropout": ("simple_vit_with_patch_dropout", "SimpleViT", {"patch_dropout": 0.5}),
    "vit_with_patch_dropout": ("vit_with_patch_dropout", "ViT", {"patch_dropout": 0.5}),
    "simple_vit_with_register_tokens": ("simple_vit_with_register_tokens", "SimpleViT", {"num_register_tokens": 2}),
    "simple_vit_with_qk_norm": ("simple_vit_with_qk_norm", "SimpleViT", {}),
    "deepvit": ("deepvit", "DeepViT", {}),
    "cait": ("cait", "CaiT", {"cls_depth": 1}),
    "ats_vit": ("ats_vit", "ViT", {"depth": 2, "max_tokens_per_depth": (12, 8)}),
    "vit_with_patch_merger": ("vit_with_patch_merger", "ViT", {"patch_merge_layer": 1, "patch_merge_num_tokens": 4}),
    "vit_for_small_dataset": ("vit_for_small_dataset", "ViT", {}),
    "learnable_memory_vit": ("learnable_memory_vit", "ViT", {}),
    "parallel_vit": ("parallel_vit", "ViT", {"num_parallel_branches": 2}),
    "xcit": ("xcit", "XCiT", {"cls_depth": 1, "local_patch_kernel_size": 3}),
    "normalized_vit": ("normalized_vit", "nViT", {"dim_head": 16}),
    "max_vit": ("max_vit", "MaxViT", {"image_size": None, "patch_size": None, "heads": None, "mlp_dim": None,
                                      "dim": 16, "dim_conv_stem": 16, "depth": (1, 1), "window_size": 4,
                                      "dim_head": 8}),
    "t2t": ("t2t", "T2TViT", {"patch_size": None, "t2t_layers": ((7, 4), (3, 2), (3, 2))}),
    "pit": ("pit", "PiT", {"depth": (1, 1), "patch_size": 4}),
    "levit": ("levit", "LeViT", {"patch_size": None, "dim": (16, 32, 48), "depth": 1, "heads": (2, 2, 2),
                                 "mlp_mult": 2, "stages": 3, "dim_key": 8, "dim_value": 16, "mlp_dim": None}),
    "cross_vit": ("cross_vit", "CrossViT", {"patch_size": None, "dim": None, "depth": 1, "heads": None,
                                            "mlp_dim": None, "sm_dim": 16, "sm_patch_size": 8, "sm_enc_depth": 1,
                                            "sm_enc_heads": 2, "sm_enc_mlp_dim": 32, "lg_dim": 32, "lg_patch_size": 16,
                                            "lg_enc_depth": 1, "lg_enc_heads": 2, "lg_enc_mlp_dim": 64,
                                            "cross_attn_depth": 1, "cross_attn_heads": 2}),
    "cct": ("cct", "CCT", {"patch_size": None, "dim": None, "depth": None, "heads": None, "mlp_dim": None,
                           "img_size": 32, "image_size": None, "embedding_dim": 32, "n_conv_layers": 1,
                           "kernel_size": 3, "stride": 2, "padding": 1, "pooling_kernel_size": 3,
                           "pooling_stride": 2, "pooling_padding": 1, "num_layers": 2, "num_heads": 2,
                           "mlp_ratio": 2.0}),
    "vit_1d": ("vit_1d", "ViT", {"image_size": None, "seq_len": 32, "patch_size": 8}),
    "na_vit": ("na_vit", "NaViT", {"token_dropout_prob": 0.25}),
}


def names() -> list[str]:
    return list(MODELS)


def build(name: str) -> Built:
    import importlib

    import torch

    module, cls, extra = MODELS[name]
    kwargs = {**COMMON, **extra}
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    model = getattr(importlib.import_module(f"vit_pytorch.{module}"), cls)(**kwargs)
    gen = torch.Generator().manual_seed(0)
    if name == "vit_1d":
        return model, (torch.randn(2, 3, 32, generator=gen),), {}
    if name == "na_vit":
        images = [[torch.randn(3, 32, 32, generator=gen), torch.randn(3, 16, 24, generator=gen)],
                  [torch.randn(3, 24, 32, generator=gen)]]
        return model, (images,), {}
    return model, (torch.randn(2, 3, 32, 32, generator=gen),), {}
