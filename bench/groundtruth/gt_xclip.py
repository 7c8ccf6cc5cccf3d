"""Ground-truth bench, x_clip: lucidrains' CLIP of x-clip 0.14.4 in its configurations, and its parts.

x-clip exports one model, ``CLIP`` (with its ``TextTransformer``): a text transformer and a vision
transformer trained contrastively, where constructor options switch in the variants of the CLIP
literature. Users compile ``clip(text, images, return_loss=True)`` in a training step, and the same
forward without the loss to score text against images. So each model of ``CLIPS`` is one tiny
``CLIP`` (latent, text and image width 32, one layer of two heads in each tower, 16 tokens from a
vocabulary of 100, 32 x 32 images in patches of 8) with the options after the dot in its name:

- what the forward returns: the loss (``return_loss=True``), the similarity (the default), the
  latents with CLOOB's extra projection, and the other direction of that projection
  (``text_to_image=False``);
- the loss's options: fine-grained FILIP (``use_all_token_embeds``, also with
  ``downsample_image_embeds``), ``extra_latent_projection`` with ``sim_reg_loss_weight`` (which fails
  without it in 0.14.4, on latents of another shape), the text MLM with random token replacement,
  the visual SSL (SimSiam at CLIP's default layer and on a hidden one caught by a hook, SimCLR), the
  multiview loss (augmented texts and images given to the forward), and the README's combination of
  ``decoupled_contrastive_learning``, ``extra_latent_projection`` and SimSiam;
- the encoders' options: a rotary text position embedding with the text encoded without its mask,
  checkpointing in training with LiT's frozen image encoder, and a vit-pytorch ``ViT`` passed in as
  ``image_encoder`` (through its ``Extractor``), as the README shows.

Options that only pick another argument on a line that these models already trace are combined in
one model or left to the others: compiling a ``CLIP`` costs about 15 s of CPU here, so the models
are kept few. The loss can only be computed in training mode (``CLIP.forward`` asserts it), so the
loss models are ``_Loss`` (bench code), which keeps the CLIP in training mode in both of the
harness's modes (gradients still follow the mode). ``PARTS`` are the modules users also take on
their own: ``TextTransformer`` (also causal, though not causal and rotary together, whose table
counts a CLS token that the causal one lacks, and fails in 0.14.4), the ``VisionTransformer``,
``MLM`` on a text transformer (its default masking), ``SimSiam`` on a vision transformer, and the
``contrastive_loss`` function of ``x_clip.visual_ssl``.

Left out: ``text_causal_mask=True`` in ``CLIP`` (its forward names an undefined ``b`` in 0.14.4 and
fails before any loss), the distributed all-gather (no process group here), and the BPE tokenizer
(string processing, not compiled). Random weights, nothing downloaded. Tables are plain data, so
``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, TOKENS, SIDE, DIM = 4, 16, 100, 32, 32
TINY: dict[str, Any] = {
    "dim_text": DIM, "dim_image": DIM, "dim_latent": DIM, "num_text_tokens": TOKENS, "text_enc_depth": 1,
    "text_seq_len": SEQ, "text_heads": 2, "text_dim_head": 16, "visual_enc_depth": 1, "visual_heads": 2,
    "visual_dim_head": 16, "visual_image_size": SIDE, "visual_patch_size": 8,
}
LOSS = {"return_loss": True}
FINE = {"use_all_token_embeds": True}
# Forward keywords "aug_text" / "aug_image" give the number of augmented views, made in ``build``.
MULTIVIEW = {**LOSS, "aug_text": 1, "aug_image": 1}

# Model name -> (``CLIP`` keywords over ``TINY``, forward keywords). ``image_encoder`` / ``text_encoder``
# name an encoder that ``build`` makes; ``channels`` 1 means grey-scale images.
CLIPS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "CLIP.loss": ({}, LOSS),
    "CLIP.similarity": ({}, {}),
    "CLIP.readme": ({"use_all_token_embeds": False, "decoupled_contrastive_learning": True,
                     "extra_latent_projection": True, "use_visual_ssl": True, "use_mlm": False,
                     "text_ssl_loss_weight": 0.05, "image_ssl_loss_weight": 0.05}, LOSS),
    "CLIP.extra_latent_projection.latents": ({"extra_latent_projection": True}, {"return_latents": True}),
    "CLIP.fine_grained.loss": (FINE, LOSS),
    "CLIP.extra_latent_projection_fine_grained.image_to_text": ({**FINE, "extra_latent_projection": True},
                                                                 {"text_to_image": False}),
    "CLIP.downsample_image_embeds.loss": ({**FINE, "downsample_image_embeds": True}, LOSS),
    "CLIP.sim_reg_extra_projection.loss": ({"sim_reg_loss_weight": 0.1, "extra_latent_projection": True}, LOSS),
    "CLIP.mlm_random_tokens.loss": ({"use_mlm": True, "mlm_random_token_prob": 0.1, "mlm_mask_prob": 0.25,
                                     "mlm_mask_ignore_token_ids": [1]}, LOSS),
    "CLIP.simsiam_hidden_layer.loss": ({"use_visual_ssl": True, "visual_ssl_type": "simsiam",
                                        "visual_ssl_hidden_layer": -2}, LOSS),
    "CLIP.simclr.loss": ({"use_visual_ssl": True, "visual_ssl_type": "simclr"}, LOSS),
    "CLIP.multiview_fine_grained.loss": (FINE, MULTIVIEW),
    "CLIP.text_rotary_no_mask.loss": ({"text_rotary_pos_emb": True, "text_encode_without_mask": True}, LOSS),
    "CLIP.checkpointing_lit.loss": ({"checkpoint_during_training": True}, {**LOSS, "freeze_image_encoder": True}),
    "CLIP.image_encoder_vit.loss": ({"image_encoder": "vit_pytorch"}, LOSS),
}
PARTS = ("TextTransformer", "TextTransformer.causal", "VisionTransformer", "MLM", "SimSiam", "contrastive_loss")


def names() -> list[str]:
    return list(CLIPS) + [f"part.{p}" for p in PARTS]


def texts(batch: int = BATCH, seed: int = 0) -> Any:
    """``batch`` rows of ``SEQ`` token ids in [1, TOKENS), each row padded with 0 (the pad id) at its end
    after a length of its own."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    text = torch.randint(1, TOKENS, (batch, SEQ), generator=gen)
    lengths = torch.tensor([SEQ, SEQ - 3, SEQ - 6, SEQ - 1] * batch)[:batch]
    return text.masked_fill(torch.arange(SEQ)[None] >= lengths[:, None], 0)


def images(channels: int = 3, seed: int = 1) -> Any:
    import torch

    return torch.randn(BATCH, channels, SIDE, SIDE, generator=torch.Generator().manual_seed(seed))


def _vit_encoder() -> Any:
    """vit-pytorch's ``ViT`` behind its ``Extractor`` returning the embeddings, as x-clip's README builds
    a custom image encoder."""
    from vit_pytorch import ViT
    from vit_pytorch.extractor import Extractor

    vit = ViT(image_size=SIDE, patch_size=8, num_classes=10, dim=DIM, depth=1, heads=2, mlp_dim=64, dim_head=16)
    return Extractor(vit, return_embeddings_only=True)


def _clip(name: str) -> Built:
    import torch
    from torch import nn
    from x_clip import CLIP, TextTransformer

    keywords, forward = CLIPS[name]
    keywords, forward = dict(keywords), dict(forward)
    if keywords.get("text_encoder") == "TextTransformer":
        keywords["text_encoder"] = TextTransformer(dim=DIM, num_tokens=TOKENS, max_seq_len=SEQ, depth=1, heads=2,
                                                   dim_head=16)
    if keywords.get("image_encoder") == "vit_pytorch":
        keywords["image_encoder"] = _vit_encoder()
    clip = CLIP(**{**TINY, **keywords})
    channels = keywords.get("channels", 3)
    args = (texts(), images(channels))
    if "aug_text" in forward:
        forward["aug_text"] = tuple(texts(seed=10 + i) for i in range(forward["aug_text"]))
    if "aug_image" in forward:
        forward["aug_image"] = tuple(images(channels, seed=20 + i) for i in range(forward["aug_image"]))
    if not forward.pop("return_loss", False):
        return clip, args, forward

    class _Loss(nn.Module):
        """``clip(text, image, return_loss=True, ...)``, a training step's loss. ``CLIP`` computes it in
        training mode only, so the CLIP stays there whichever mode the harness asks for."""

        def __init__(self) -> None:
            super().__init__()
            self.clip = clip

        def forward(self, text: torch.Tensor, image: torch.Tensor, **kwargs: Any) -> Any:
            return self.clip(text, image, return_loss=True, **kwargs)

        def train(self, mode: bool = True) -> Any:
            super().train(mode)
            self.clip.train()
            return self

        def entry_points(self) -> list[Any]:
            return [CLIP]

    return _Loss(), args, forward


def _part(name: str) -> Built:
    import torch
    from x_clip import TextTransformer
    from x_clip.mlm import MLM
    from x_clip.visual_ssl import SimSiam, contrastive_loss
    from x_clip.x_clip import VisionTransformer

    from gt_calls import Call

    text = texts()
    mask = text != 0
    if name.startswith("TextTransformer"):
        model = TextTransformer(DIM, num_tokens=TOKENS, max_seq_len=SEQ, dim_head=16, depth=1, heads=2,
                                causal=name.endswith("causal"))
        return model, (text, mask), {}

    def vision() -> Any:
        return VisionTransformer(DIM, image_size=SIDE, patch_size=8, channels=3, depth=1, heads=2, dim_head=16)

    if name == "VisionTransformer":
        return vision(), (images(),), {}
    if name == "MLM":
        encoder = TextTransformer(DIM, num_tokens=TOKENS + 1, max_seq_len=SEQ, dim_head=16, depth=1, heads=2)
        return MLM(encoder, dim=DIM, num_tokens=TOKENS, mask_token_id=TOKENS), (text,), {"mask": mask}
    if name == "SimSiam":
        return SimSiam(vision(), image_size=SIDE, hidden_layer=-1, projection_size=32,
                       projection_hidden_size=64), (images(),), {}
    gen = torch.Generator().manual_seed(3)
    queries, keys = torch.randn(BATCH * 2, DIM, generator=gen), torch.randn(BATCH * 2, DIM, generator=gen)
    return Call(contrastive_loss, temperature=0.1), (queries, keys), {}


def build(name: str) -> Built:
    import random
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    random.seed(0)  # the visual SSL augmentations draw with ``random``
    if name.startswith("part."):
        return _part(name.split(".", 1)[1])
    return _clip(name)
