"""Ground-truth bench, lightly: the pieces of a self-supervised training step, at tiny sizes.

A lightly training step runs a backbone, a projection head, maybe a memory bank, masking helpers and
a loss. Each of these is a model here:

- ``LOSSES``: the losses of ``lightly.loss`` (and its regularizers) on projections of two views, a
  list of views, multi-crop outputs or masked patch logits, compiled whole;
- ``HEADS``: projection and prediction heads of ``lightly.models.modules.heads`` on a batch of features;
- ``BANKS``: the memory banks (queried and updated, as MoCo and NNCLR do) and DINO's ``Center``;
- ``UTILS``: functions of ``lightly.models.utils`` (patchify, token masks, index gathers, nearest
  neighbours), through ``gt_calls.Call`` or ``Sized`` (bench code that passes a token batch's size,
  as a training step does);
- ``VISION``: lightly's masked vision transformers, decoders and predictors (on tiny timm or
  torchvision ViTs), its ResNet and split batch norm, and two whole steps (``STEPS``: MoCo's shuffled
  momentum encoder and MAE's masked reconstruction) whose entry points name the library code they call.

The tables are plain data, so ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
B, D = 8, 16  # batch and projection size

# Loss model -> (module path and class under ``lightly.loss``, constructor keywords, input kind of ``inputs``).
LOSSES: dict[str, tuple[str, dict[str, Any], str]] = {
    "BarlowTwinsLoss": ("barlow_twins_loss.BarlowTwinsLoss", {}, "pair"),
    "DCLLoss": ("dcl_loss.DCLLoss", {}, "pair"),
    "DCLWLoss": ("dcl_loss.DCLWLoss", {}, "pair"),
    "DirectCLRLoss": ("directclr_loss.DirectCLRLoss", {"loss_dim": 8}, "pair"),
    "HypersphereLoss": ("hypersphere_loss.HypersphereLoss", {}, "pair"),
    "MACLLoss": ("macl_loss.MACLLoss", {}, "pair"),
    "NegativeCosineSimilarity": ("negative_cosine_similarity.NegativeCosineSimilarity", {}, "pair"),
    "NTXentLoss": ("ntx_ent_loss.NTXentLoss", {}, "pair"),
    "TiCoLoss": ("tico_loss.TiCoLoss", {}, "pair"),
    "VICRegLoss": ("vicreg_loss.VICRegLoss", {}, "pair"),
    "CO2Regularizer": ("regularizer.co2.CO2Regularizer", {"memory_bank_size": (32, D)}, "pair"),
    "KoLeoLoss": ("koleo_loss.KoLeoLoss", {}, "one"),
    "SIGReg": ("lejepa_loss.SIGReg", {"num_vectors": 64}, "one"),
    "DSERegularizer": ("regularizer.dse.DSERegularizer", {"local_clusters": 2, "global_clusters": 3}, "token_batch"),
    "WMSELoss": ("wmse_loss.WMSELoss", {"embedding_dim": 4, "w_size": 8}, "wmse"),
    "Whitening2d": ("wmse_loss.Whitening2d", {"num_features": 4}, "wmse"),
    "MMCRLoss": ("mmcr_loss.MMCRLoss", {}, "mmcr"),
    "EMPSSLLoss": ("emp_ssl_loss.EMPSSLLoss", {}, "views"),
    "FroSSLLoss": ("frossl_loss.FroSSLLoss", {}, "views"),
    "LeJEPALoss": ("lejepa_loss.LeJEPALoss", {"sigreg_num_vectors": 64}, "local_global"),
    "VISRegLoss": ("visreg_loss.VISRegLoss", {"num_slices": 64}, "local_global"),
    "DINOLoss": ("dino_loss.DINOLoss", {"output_dim": D, "warmup_teacher_temp_epochs": 5}, "multi_crop"),
    "SwaVLoss": ("swav_loss.SwaVLoss", {}, "swav"),
    "MSNLoss": ("msn_loss.MSNLoss", {}, "msn"),
    "PMSNLoss": ("pmsn_loss.PMSNLoss", {}, "msn"),
    "IBOTPatchLoss": ("ibot_loss.IBOTPatchLoss", {"output_dim": D}, "ibot"),
    "IBOTPlusPlusPatchLoss": ("ibot_loss.IBOTPlusPlusPatchLoss", {"output_dim": D}, "ibot_full"),
    "CAPILoss": ("capi_loss.CAPILoss", {}, "capi"),
    "DetConSLoss": ("detcon_loss.DetConSLoss", {"gather_distributed": False}, "detcon_s"),
    "DetConBLoss": ("detcon_loss.DetConBLoss", {"gather_distributed": False}, "detcon_b"),
    "LeWMLoss": ("lewm_loss.LeWMLoss", {"sigreg_num_vectors": 64}, "lewm"),
    "PatchKernelAlignmentLoss": ("patch_kernel_alignment_loss.PatchKernelAlignmentLoss", {}, "patches"),
    "VICRegLLoss": ("vicregl_loss.VICRegLLoss", {"num_matches": (4, 2)}, "vicregl"),
}

# Head -> constructor keywords besides the shared sizes (input 16, hidden 32, output 8).
HEADS: dict[str, dict[str, Any]] = {
    # most heads are a ``ProjectionHead`` (one forward, an MLP of blocks): two of them stand for the rest
    "SimCLRProjectionHead": {}, "BYOLPredictionHead": {}, "MMCRProjectionHead": {},
    "LeJEPAProjectionHead": {}, "LeWMProjectionHead": {},
    "DINOProjectionHead": {"bottleneck_dim": 8, "output_dim": 24},
    "DINOv2ProjectionHead": {"bottleneck_dim": 8, "output_dim": 24},
    "CAPIProjectionHead": {"num_clusters": 24, "hidden_dim": None, "output_dim": None},
    "SwaVPrototypes": {"n_prototypes": 12, "hidden_dim": None, "output_dim": None},
    "SwaVPrototypes.multi": {"n_prototypes": [12, 6], "n_steps_frozen_prototypes": 2, "hidden_dim": None,
                             "output_dim": None},
}

BANKS = ("MemoryBankModule", "MemoryBankModule.feature_last", "NNMemoryBankModule", "Center.update",
         "SMoGPrototypes")

# Function of ``lightly.models.utils`` -> (how it is called: "call" or "sized", input kind, fixed keywords).
UTILS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "patchify": ("call", "images", {"patch_size": 4}),
    "unpatchify": ("call", "patches_flat", {"patch_size": 4}),
    "random_token_mask": ("sized", "tokens", {"mask_ratio": 0.75}),
    "random_block_mask": ("sized", "grid", {}),
    "random_inverse_block_mask": ("sized", "tokens", {}),
    "random_grid_token_mask": ("sized", "tokens", {"grid_size": 2}),
    "random_prefix_mask": ("sized", "tokens", {"max_prefix_length": 4}),
    "mask_bool": ("call", "tokens_mask_token", {}),
    "nearest_neighbors": ("call", "maps", {"num_matches": 3}),
    "select_most_similar": ("call", "three_maps", {}),
    "pool_masked": ("call", "feature_map", {"num_cls": 3}),
    "apply_masks": ("call", "tokens_masks", {}),
}

# Masked vision transformers, decoders, predictors and backbones; then whole training steps.
VISION = ("MaskedVisionTransformerTIMM", "MaskedVisionTransformerTorchvision",
          "MAEDecoderTIMM", "MaskedVisionTransformerDecoderTIMM", "MAEBackbone", "IJEPAPredictorTIMM",
          "CAPIPredictorTIMM", "MaskedCausalVisionTransformer", "AIMPredictionHead", "LatentDynamicsPredictor",
          "ActionEncoder", "ResNetGenerator.split_bn")
STEPS = ("moco", "mae")


def names() -> list[str]:
    return ([f"loss.{n}" for n in LOSSES] + [f"head.{n}" for n in HEADS] + [f"bank.{n}" for n in BANKS]
            + [f"utils.{n}" for n in UTILS] + [f"vision.{n}" for n in VISION] + [f"step.{n}" for n in STEPS])


def inputs(kind: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Example ``(args, kwargs)`` of one kind, from a seeded generator."""
    import torch

    gen = torch.Generator().manual_seed(0)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen)

    def randint(high: int, *shape: int) -> torch.Tensor:
        return torch.randint(0, high, shape, generator=gen)

    def keep(batch: int, length: int, count: int) -> torch.Tensor:
        """Sorted token indices to keep: ``count`` of ``length`` per row."""
        return torch.stack([torch.randperm(length, generator=gen)[:count].sort().values for _ in range(batch)])

    ibot_mask = torch.zeros(4, 4, 4, dtype=torch.bool)
    ibot_mask[:, 0, :2] = True  # two masked tokens per image
    grids = [torch.stack(torch.meshgrid(torch.linspace(0, 1, 3), torch.linspace(0, 1, 3), indexing="ij"), -1)
             .expand(B, 3, 3, 2) + 0.1 * i for i in range(2)]
    table = {
        "pair": lambda: ((randn(B, D), randn(B, D)), {}),
        "one": lambda: ((randn(B, D),), {}),
        "token_batch": lambda: ((randn(4, 9, D),), {}),
        "wmse": lambda: ((randn(16, 4),), {}),
        "mmcr": lambda: ((randn(B, 3, D), randn(B, 3, D)), {}),
        "views": lambda: (([randn(B, D) for _ in range(3)],), {}),
        "local_global": lambda: ((), {"local_proj": randn(4, B, D), "global_proj": randn(2, B, D)}),
        "multi_crop": lambda: (([randn(B, D) for _ in range(2)], [randn(B, D) for _ in range(4)]), {"epoch": 1}),
        "swav": lambda: (([randn(B, 12).softmax(-1) for _ in range(2)], [randn(B, 12) for _ in range(2)]), {}),
        "msn": lambda: ((randn(2 * B, D), randn(B, D), randn(10, D)), {}),
        "ibot": lambda: ((randn(8, D), randn(8, D), ibot_mask), {}),
        "ibot_full": lambda: ((randn(4, 16, D), randn(4, 16, D), ibot_mask.flatten(1)), {}),
        "capi": lambda: ((randn(2, 16, 24), randn(2, 6, 24), keep(2, 16, 6)), {}),
        "detcon_s": lambda: ((randn(4, 5, D), randn(4, 5, D), randint(3, 4, 5), randint(3, 4, 5)), {}),
        "detcon_b": lambda: ((randn(4, 5, D), randn(4, 5, D), randn(4, 5, D), randn(4, 5, D), randint(3, 4, 5),
                              randint(3, 4, 5)), {}),
        "lewm": lambda: ((), {"predicted": randn(4, 3, D), "target": randn(4, 3, D), "embeddings": randn(4, 4, D)}),
        "patches": lambda: ((randn(2, 9, D), randn(2, 9, D)), {}),
        "vicregl": lambda: (([(randn(B, D), randn(B, 3, 3, D)) for _ in range(2)], grids), {}),
        "features": lambda: ((randn(B, D),), {}),
        "images": lambda: ((randn(2, 3, 16, 16),), {}),
        "patches_flat": lambda: ((randn(2, 16, 48),), {}),
        "tokens": lambda: ((randn(2, 17, D),), {}),
        "grid": lambda: ((randn(2, 8, 8),), {}),
        "tokens_mask_token": lambda: ((randn(2, 17, D), torch.rand(2, 17, generator=gen) < 0.5, randn(1, 1, D)), {}),
        "tokens_masks": lambda: ((randn(2, 17, D), [keep(2, 17, 5), keep(2, 17, 5)]), {}),
        "maps": lambda: ((randn(2, 9, D), randn(2, 9, D), randn(2, 9, 9)), {}),
        "three_maps": lambda: ((randn(2, 9, D), randn(2, 9, D), randn(2, 9, 4)), {}),
        "feature_map": lambda: ((randn(2, D, 4, 4), randint(3, 2, 4, 4)), {}),
    }
    return table[kind]()


def _loss(name: str) -> Built:
    import importlib

    path, keywords, kind = LOSSES[name]
    module, cls = path.rsplit(".", 1)
    loss = getattr(importlib.import_module(f"lightly.loss.{module}"), cls)(**keywords)
    return loss, *inputs(kind)


def _head(name: str) -> Built:
    from lightly.models.modules import heads

    keywords = {"input_dim": D, "hidden_dim": 32, "output_dim": 8, **HEADS[name]}
    keywords = {k: v for k, v in keywords.items() if v is not None}  # heads without a hidden or output size
    head = getattr(heads, name.split(".")[0])(**keywords)
    args, kwargs = inputs("features")
    if name == "SwaVPrototypes.multi":
        kwargs = {"step": 1}
    return head, args, kwargs


def _bank(name: str) -> Built:
    import torch
    from gt_calls import Method
    from lightly.models.modules import heads, memory_bank, nn_memory_bank
    from lightly.models.modules.center import Center

    (features,), _ = inputs("features")
    if name == "Center.update":
        return Method(Center((1, D)), "update"), (features,), {}
    if name == "SMoGPrototypes":
        groups = torch.randn(4, D, generator=torch.Generator().manual_seed(1))
        return heads.SMoGPrototypes(groups, beta=0.99), (features, groups), {}
    if name == "NNMemoryBankModule":
        return nn_memory_bank.NNMemoryBankModule(size=(32, D)), (features,), {"update": True}
    bank = memory_bank.MemoryBankModule(size=(32, D), feature_dim_first=not name.endswith("feature_last"))
    return bank, (features,), {"update": True}


def _utils(name: str) -> Built:
    from gt_calls import Call
    from lightly.models import utils
    from torch import nn

    how, kind, static = UTILS[name]
    function = getattr(utils, name)
    args, _ = inputs(kind)
    if how == "call":
        return Call(function, **static), args, {}

    dims = 2 if kind == "tokens" else 3  # (batch, sequence) of tokens, or (batch, height, width) of a grid

    class Sized(nn.Module):
        """A mask of the size of a token batch (or a batch of patch grids), made inside the step."""

        def forward(self, tokens: Any) -> Any:
            return function(size=tuple(tokens.shape[:dims]), device=tokens.device, **static)

        def entry_points(self) -> list[Any]:
            return [function]

    return Sized(), args, {}


def _tiny_timm_vit(**extra: Any) -> Any:
    from timm.models.vision_transformer import VisionTransformer

    return VisionTransformer(img_size=16, patch_size=4, embed_dim=32, depth=2, num_heads=2, num_classes=0, **extra)


def _vision(name: str) -> Built:
    import torch
    from gt_calls import Method
    from lightly.models import ResNetGenerator
    from lightly.models import modules as M
    from lightly.models import utils

    gen = torch.Generator().manual_seed(0)
    images = torch.randn(2, 3, 16, 16, generator=gen)
    idx_keep, idx_mask = (t.sort(dim=1).values for t in torch.randperm(16, generator=gen).add(1).view(1, 16)
                          .expand(2, 16).split([4, 12], dim=1))  # 4 patches kept, 12 masked, class token aside
    tokens = torch.randn(2, 5, 32, generator=gen)
    if name == "MaskedVisionTransformerTIMM":
        return M.MaskedVisionTransformerTIMM(vit=_tiny_timm_vit()), (images,), {"idx_mask": idx_mask}
    if name == "MaskedVisionTransformerTorchvision":
        from torchvision.models.vision_transformer import VisionTransformer

        vit = VisionTransformer(image_size=16, patch_size=4, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64)
        return M.MaskedVisionTransformerTorchvision(vit=vit), (images,), {"idx_keep": idx_keep}
    if name == "MAEDecoderTIMM":
        decoder = M.MAEDecoderTIMM(num_patches=16, patch_size=4, embed_dim=32, decoder_embed_dim=32,
                                   decoder_depth=1, decoder_num_heads=2)
        return decoder, (torch.randn(2, 17, 32, generator=gen),), {}
    if name == "MaskedVisionTransformerDecoderTIMM":
        decoder = M.MaskedVisionTransformerDecoderTIMM(num_patches=16, embed_dim=32, depth=1, num_heads=2)
        return decoder, (torch.randn(2, 17, 32, generator=gen),), {"idx_mask": idx_mask}
    if name == "MAEBackbone":
        backbone = M.MAEBackbone(image_size=16, patch_size=4, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64)
        return backbone, (images,), {"idx_keep": torch.cat([torch.zeros(2, 1, dtype=torch.long), idx_keep], 1)}
    if name == "IJEPAPredictorTIMM":
        predictor = M.IJEPAPredictorTIMM(num_patches=16, depth=1, mlp_dim=32, predictor_embed_dim=16, num_heads=2)
        return predictor, (torch.randn(2, 4, 32, generator=gen), [idx_keep - 1], [idx_mask[:, :4] - 1]), {}
    if name == "CAPIPredictorTIMM":
        predictor = M.CAPIPredictorTIMM(embed_dim=32, grid_size=4, depth=1, num_heads=2)
        return predictor, (torch.randn(2, 4, 32, generator=gen), idx_keep - 1, idx_mask[:, :6] - 1), {}
    if name == "MaskedCausalVisionTransformer":
        # AIM's backbone: no class token, features read with ``forward_features`` under a causal prefix mask
        model = M.MaskedCausalVisionTransformer(img_size=16, patch_size=4, embed_dim=32, depth=2, num_heads=2,
                                                num_classes=0, class_token=False, global_pool="avg")
        return Method(model, "forward_features"), (images,), {"mask": utils.random_prefix_mask(
            (2, 16), max_prefix_length=8)}
    if name == "AIMPredictionHead":
        return M.AIMPredictionHead(input_dim=32, output_dim=48, hidden_dim=32, num_blocks=1), (tokens,), {}
    if name == "LatentDynamicsPredictor":
        predictor = M.LatentDynamicsPredictor(num_frames=4, input_dim=D, hidden_dim=32, depth=1, num_heads=2)
        return predictor, (torch.randn(2, 4, D, generator=gen),), {"action_emb": torch.randn(2, 4, D, generator=gen)}
    if name == "ActionEncoder":
        return M.ActionEncoder(action_dim=3, output_dim=D), (torch.randn(2, 4, 3, generator=gen),), {}
    # lightly's CIFAR-sized ResNet, with the split batch norm that MoCo trains it with to emulate several GPUs
    return ResNetGenerator("resnet-9", width=0.125, num_splits=2), (torch.randn(4, 3, 32, 32, generator=gen),), {}


def _step(name: str) -> Built:
    import copy

    import torch
    from lightly.loss import NTXentLoss
    from lightly.models import utils
    from lightly.models.modules import MAEDecoderTIMM, MaskedVisionTransformerTIMM, MoCoProjectionHead
    from torch import nn

    gen = torch.Generator().manual_seed(0)
    images = torch.randn(4, 3, 16, 16, generator=gen)

    class MoCoStep(nn.Module):
        """MoCo v2's loss: a momentum key encoder on a shuffled batch, NTXent with a memory bank."""

        def __init__(self) -> None:
            super().__init__()
            self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                          nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.head = MoCoProjectionHead(8, 16, 8)
            self.backbone_momentum, self.head_momentum = copy.deepcopy(self.backbone), copy.deepcopy(self.head)
            utils.deactivate_requires_grad(self.backbone_momentum)
            utils.deactivate_requires_grad(self.head_momentum)
            self.criterion = NTXentLoss(memory_bank_size=(32, 8))

        def forward(self, x_query: torch.Tensor, x_key: torch.Tensor) -> torch.Tensor:
            utils.update_momentum(self.backbone, self.backbone_momentum, m=0.99)
            utils.update_momentum(self.head, self.head_momentum, m=0.99)
            query = self.head(self.backbone(x_query))
            x_key, shuffle = utils.batch_shuffle(x_key)
            key = utils.batch_unshuffle(self.head_momentum(self.backbone_momentum(x_key)).detach(), shuffle)
            return self.criterion(query, key)

        def entry_points(self) -> list[Any]:
            return [utils.update_momentum, utils.batch_shuffle, utils.batch_unshuffle, type(self.head),
                    type(self.criterion)]

    class MAEStep(nn.Module):
        """MAE's loss: encode the kept patches, decode the masked ones, regress their pixels."""

        def __init__(self) -> None:
            super().__init__()
            self.backbone = MaskedVisionTransformerTIMM(vit=_tiny_timm_vit())
            self.decoder = MAEDecoderTIMM(num_patches=16, patch_size=4, embed_dim=32, decoder_embed_dim=32,
                                          decoder_depth=1, decoder_num_heads=2)

        def forward(self, images: torch.Tensor) -> torch.Tensor:
            batch_size = images.shape[0]
            idx_keep, idx_mask = utils.random_token_mask(size=(batch_size, self.backbone.sequence_length),
                                                         mask_ratio=0.75, device=images.device)
            x_encoded = self.backbone.encode(images=images, idx_keep=idx_keep)
            x_decode = self.decoder.embed(x_encoded)
            x_masked = utils.repeat_token(self.decoder.mask_token, (batch_size, self.backbone.sequence_length))
            x_masked = utils.set_at_index(x_masked, idx_keep, x_decode.type_as(x_masked))
            x_pred = self.decoder.predict(utils.get_at_index(self.decoder.decode(x_masked), idx_mask))
            patches = utils.patchify(images, 4)
            target = utils.get_at_index(patches, idx_mask - 1)
            return nn.functional.mse_loss(x_pred, target)

        def entry_points(self) -> list[Any]:
            return [utils.random_token_mask, utils.repeat_token, utils.set_at_index, utils.get_at_index,
                    utils.patchify, type(self.backbone), type(self.decoder)]

    if name == "moco":
        return MoCoStep(), (images, images.flip(-1)), {}
    return MAEStep(), (images,), {}


def build(name: str) -> Built:
    group, rest = name.split(".", 1)
    builders = {"loss": _loss, "head": _head, "bank": _bank, "utils": _utils, "vision": _vision, "step": _step}
    return builders[group](rest)
