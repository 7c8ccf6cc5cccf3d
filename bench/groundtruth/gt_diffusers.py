"""Ground-truth bench, diffusers models beyond the fixture's eight: tiny configurations and inputs.

Each entry of ``EXTRA`` builds one model with random weights and returns ``(module, args, kwargs)``;
shapes follow the small configurations of diffusers' own unit tests. Imported by ``gt_models.build``
inside a worker only (it imports torch and diffusers).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import diffusers as d
import torch

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]


def _randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape)


def vq_model() -> Built:
    model = d.VQModel(block_out_channels=(8, 16), norm_num_groups=4, latent_channels=3, num_vq_embeddings=16,
                      down_block_types=("DownEncoderBlock2D",) * 2, up_block_types=("UpDecoderBlock2D",) * 2)
    return model, (_randn(2, 3, 16, 16),), {}


def unet_1d() -> Built:
    model = d.UNet1DModel(block_out_channels=(8, 8, 16), in_channels=2, out_channels=2, sample_size=16,
                          time_embedding_type="positional", use_timestep_embedding=True, flip_sin_to_cos=False,
                          freq_shift=1.0, out_block_type="OutConv1DBlock", mid_block_type="MidResTemporalBlock1D",
                          down_block_types=("DownResnetBlock1D",) * 3, up_block_types=("UpResnetBlock1D",) * 2,
                          act_fn="swish", norm_num_groups=8, layers_per_block=1)
    return model, (_randn(2, 2, 16), torch.tensor([10])), {}


def autoencoder_tiny() -> Built:
    model = d.AutoencoderTiny(encoder_block_out_channels=(8, 8), decoder_block_out_channels=(8, 8),
                              num_encoder_blocks=(1, 1), num_decoder_blocks=(1, 1))
    return model, (_randn(2, 3, 16, 16),), {}


def dit() -> Built:
    model = d.DiTTransformer2DModel(num_attention_heads=2, attention_head_dim=4, in_channels=4, num_layers=1,
                                    sample_size=8, patch_size=2, norm_num_groups=2)
    return model, (_randn(2, 4, 8, 8),), {"timestep": torch.tensor([1, 2]), "class_labels": torch.tensor([1, 3])}


def transformer_2d() -> Built:
    model = d.Transformer2DModel(num_attention_heads=2, attention_head_dim=4, in_channels=8, num_layers=1,
                                 norm_num_groups=2, cross_attention_dim=8)
    return model, (_randn(2, 8, 4, 4),), {"encoder_hidden_states": _randn(2, 3, 8)}


def prior() -> Built:
    model = d.PriorTransformer(num_attention_heads=2, attention_head_dim=4, num_layers=2, embedding_dim=8,
                               num_embeddings=7, additional_embeddings=4)
    return model, (_randn(2, 8), torch.tensor([3, 4]), _randn(2, 8)), {"encoder_hidden_states": _randn(2, 7, 8)}


def unet_2d_condition_attn() -> Built:
    model = d.UNet2DConditionModel(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
                                   block_out_channels=(8, 16), norm_num_groups=4, cross_attention_dim=8,
                                   attention_head_dim=2, down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                                   up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
                                   class_embed_type="timestep", addition_embed_type=None, time_cond_proj_dim=4)
    kwargs = {"timestep_cond": _randn(2, 4), "class_labels": torch.tensor([1, 2])}
    return model, (_randn(2, 4, 16, 16), torch.tensor([10]), _randn(2, 4, 8)), kwargs


def controlnet() -> Built:
    model = d.ControlNetModel(in_channels=4, block_out_channels=(8, 16), layers_per_block=1, norm_num_groups=4,
                              cross_attention_dim=8, attention_head_dim=2,
                              down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                              conditioning_embedding_out_channels=(4, 8))
    args = (_randn(2, 4, 16, 16), torch.tensor([10]), _randn(2, 4, 8), _randn(2, 3, 32, 32))
    return model, args, {}


def sana() -> Built:
    model = d.SanaTransformer2DModel(in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=4,
                                     num_layers=1, num_cross_attention_heads=2, cross_attention_head_dim=4,
                                     cross_attention_dim=8, caption_channels=8, sample_size=8, patch_size=1)
    kwargs = {"encoder_hidden_states": _randn(2, 5, 8), "timestep": torch.tensor([1, 2])}
    return model, (_randn(2, 4, 8, 8),), kwargs


def auraflow() -> Built:
    model = d.AuraFlowTransformer2DModel(sample_size=8, patch_size=2, in_channels=4, num_mmdit_layers=1,
                                         num_single_dit_layers=1, attention_head_dim=8, num_attention_heads=2,
                                         joint_attention_dim=16, caption_projection_dim=16, out_channels=4,
                                         pos_embed_max_size=64)
    kwargs = {"encoder_hidden_states": _randn(2, 5, 16), "timestep": torch.tensor([1, 2])}
    return model, (_randn(2, 4, 8, 8),), kwargs


EXTRA: dict[str, Callable[[], Built]] = {
    f.__name__: f for f in (vq_model, unet_1d, autoencoder_tiny, dit, transformer_2d, prior,
                            unet_2d_condition_attn, controlnet, sana, auraflow)
}
