"""Ground-truth bench, open_clip: CLIP, SigLIP and CoCa models from its configurations, and its losses.

Each entry of ``CONFIGS`` is one of open_clip's named model configurations (``open_clip.get_model_config``)
shrunk by ``shrink``: the code path a configuration selects (ViT or modified-ResNet tower, a timm tower,
attentional pooling, the text tower's pooling and masking, layer scale, QuickGELU, a logit bias, CoCa's
multimodal decoder) follows from its keys, not its size. The shrunk configuration is registered under
``<name>-tiny`` and built by ``open_clip.create_model(name, pretrained=None)``, as users build models.
Every configuration runs its full forward (image and text), two of them with activation checkpointing
(``set_grad_checkpointing``); ``METHODS`` compiles ``encode_image``,
``encode_text``, ``get_logits`` and ``forward_intermediates`` of some of them through
``gt_calls.Method``. ``LOSSES`` are the training losses of ``open_clip.loss`` on random features.
Random weights, nothing downloaded (no tokenizer is built: text is random token ids). CoCa's
``generate`` needs ``transformers``, the held-out corpus, so it is absent. Configurations whose text
tower is a Hugging Face model (roberta, mt5, nllb, xlm-roberta) are absent for the same reason.
``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import copy
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
VOCAB, CONTEXT, EMBED = 96, 16, 32

# Configuration name -> keyword overrides of ``create_model`` (``force_*`` as users pass them).
CONFIGS: dict[str, dict[str, Any]] = {
    "ViT-B-32": {}, "ViT-B-16-quickgelu": {}, "ViT-M-16-alt": {}, "ViT-S-32": {"force_patch_dropout": 0.5},
    "ViT-L-14-CLIPA": {}, "ViT-bigG-14-worldwide": {}, "ViT-H-14-378": {}, "RN50": {}, "RN50-quickgelu": {},
    "ViT-B-16-SigLIP": {}, "ViT-B-16-SigLIP2": {}, "EVA02-B-16": {}, "convnext_tiny": {},
    "MobileCLIP2-S0": {}, "PE-Core-T-16-384": {}, "coca_ViT-B-32": {}, "coca_base": {},
    "ViT-B-32.custom_text": {"force_custom_text": True}, "ViT-B-32.output_dict": {"output_dict": True},
    # Activation checkpointing of the towers, as the training script's ``--grad-checkpointing`` sets it.
    "ViT-B-32.grad_checkpointing": {}, "coca_ViT-B-32.grad_checkpointing": {},
}
# Methods compiled on their own -> the configuration they run on.
METHODS: dict[str, str] = {
    "encode_image": "ViT-B-32", "encode_text": "ViT-B-32", "get_logits": "ViT-B-32",
    "forward_intermediates": "ViT-B-32", "encode_image.siglip": "ViT-B-16-SigLIP",
    "encode_text.siglip": "ViT-B-16-SigLIP", "encode_image.coca": "coca_ViT-B-32",
    "encode_text.coca": "coca_ViT-B-32", "encode_image.RN50": "RN50",
}
# Loss class of ``open_clip.loss`` -> constructor keywords.
LOSSES: dict[str, dict[str, Any]] = {
    "ClipLoss": {}, "ClipLoss.cache_labels": {"cache_labels": True}, "SigLipLoss": {},
    "CoCaLoss": {"caption_loss_weight": 2.0, "clip_loss_weight": 1.0}, "DistillClipLoss": {},
}
# timm towers swapped for the smallest timm model of the same kind (a tower's size is timm's, not open_clip's).
TIMM_TOWERS = {"vit_base_patch16_siglip_224": "vit_tiny_patch16_224", "eva02_base_patch16_clip_224":
               "eva02_tiny_patch14_224", "convnext_tiny": "convnext_atto", "fastvit_mci0": "fastvit_t8",
               "vit_pe_core_tiny_patch16_384": "vit_tiny_patch16_224"}
TIMM_IMAGE = {"vit_tiny_patch16_224": 224, "eva02_tiny_patch14_224": 224, "convnext_atto": 64, "fastvit_t8": 64}


def names() -> list[str]:
    return ([f"model.{n}" for n in CONFIGS] + [f"method.{n}" for n in METHODS]
            + [f"loss.{n}" for n in LOSSES])


def shrink(cfg: dict[str, Any]) -> dict[str, Any]:
    """A copy of a model configuration at two layers of width 32 to 64, 32-pixel images, 96 tokens."""
    cfg = copy.deepcopy(cfg)
    cfg["embed_dim"] = EMBED
    vision, text = cfg["vision_cfg"], cfg["text_cfg"]
    if "timm_model_name" in vision:
        vision["timm_model_name"] = TIMM_TOWERS[vision["timm_model_name"]]
        vision["image_size"] = TIMM_IMAGE[vision["timm_model_name"]]
        vision.pop("timm_drop_path", None)
    elif isinstance(vision["layers"], list):  # a modified ResNet: one block per stage, 64-pixel images
        vision.update(layers=[1, 1, 1, 1], width=16, head_width=16, image_size=64)
    else:  # a ViT; CoCa's decoder attends to its tokens, so there it is as wide as the text
        width = 32 if "multimodal_cfg" in cfg else 64
        vision.update(layers=2, width=width, head_width=width // 4, patch_size=8, image_size=32)
        if vision.get("attentional_pool"):
            vision.update(attn_pooler_queries=8, attn_pooler_heads=4)
    text.update(layers=2, width=32, heads=4, vocab_size=VOCAB, context_length=CONTEXT)
    if "multimodal_cfg" in cfg:
        cfg["multimodal_cfg"].update(layers=2, width=32, heads=4, dim_head=8, vocab_size=VOCAB,
                                     context_length=CONTEXT, n_queries=8, attn_pooler_heads=4)
    return cfg


def model(config: str) -> Any:
    """``open_clip.create_model`` of the shrunk configuration ``config`` (a suffix names overrides)."""
    from gt_models import allow_torchvision_import

    allow_torchvision_import()
    import open_clip
    from open_clip import factory

    base = config.split(".")[0]
    tiny = f"{base}-tiny"
    factory._MODEL_CONFIGS[tiny] = shrink(open_clip.get_model_config(base))  # what add_model_config does
    clip = open_clip.create_model(tiny, pretrained=None, **CONFIGS.get(config, {}))
    if config.endswith(".grad_checkpointing"):
        clip.set_grad_checkpointing(True)
    return clip


def inputs(clip: Any) -> tuple[Any, Any]:
    """A batch of two images at the model's size and two random token sequences."""
    import torch

    gen = torch.Generator().manual_seed(0)
    size = clip.visual.image_size if hasattr(clip.visual, "image_size") else 32
    size = size if isinstance(size, (tuple, list)) else (size, size)
    images = torch.randn(2, 3, *size, generator=gen)
    return images, torch.randint(1, VOCAB, (2, CONTEXT), generator=gen)


def _loss(name: str) -> Built:
    import torch
    from open_clip import loss

    gen = torch.Generator().manual_seed(0)
    module = getattr(loss, name.split(".")[0])(**LOSSES[name])

    def features() -> torch.Tensor:
        return torch.nn.functional.normalize(torch.randn(4, EMBED, generator=gen), dim=-1)

    scale = torch.tensor(10.0)
    if name.startswith("SigLipLoss"):
        return module, (features(), features(), scale, torch.tensor(-10.0)), {}
    if name.startswith("CoCaLoss"):
        logits = torch.randn(4, CONTEXT - 1, VOCAB, generator=gen)
        labels = torch.randint(0, VOCAB, (4, CONTEXT - 1), generator=gen)
        return module, (features(), features(), logits, labels, scale), {}
    if name.startswith("DistillClipLoss"):
        return module, (features(), features(), scale, features(), features(), scale), {}
    return module, (features(), features(), scale), {}


def build(name: str) -> Built:
    import torch
    from gt_calls import Method

    torch.manual_seed(0)
    group, item = name.split(".", 1)
    if group == "loss":
        return _loss(item)
    config = METHODS[item] if group == "method" else item
    clip = model(config)
    images, text = inputs(clip)
    if group == "model":
        return clip, (images, text), {}
    method = item.split(".")[0]
    arguments = {"encode_image": (images,), "encode_text": (text,)}.get(method, (images, text))
    return Method(clip, method), arguments, {}
