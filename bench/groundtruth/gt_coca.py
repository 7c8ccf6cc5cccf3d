"""Ground-truth bench, coca_pytorch (CoCa-pytorch): the contrastive captioner CoCa, its layers and its losses.

CoCa-pytorch (lucidrains) implements CoCa (Contrastive Captioners are Image-Text Foundation Models): a
text decoder whose unimodal layers (``ParallelTransformerBlock``: parallel attention and SwiGLU
feed-forward, multi-query attention, rotary embeddings, a cached causal mask) embed the text and a text
CLS token, an attention pooler (``CrossAttention``) that pools image tokens into learned queries, and
multimodal layers (a parallel block and a cross-attention with a parallel feed-forward) that caption.
``CoCa.forward`` returns the caption logits, the text and image embeddings (``return_embeddings``) or
the weighted sum of the caption loss and the contrastive loss (``return_loss``, with the labels given or
taken from the shifted text). The images are given either as image tokens (``image_tokens``) or as
images through the ``img_encoder`` passed at construction. The README passes a vit-pytorch ``SimpleViT``
wrapped in its ``Extractor`` (which registers a forward hook on its first call); here the encoder is a
tiny bench module (a patchifying convolution and a rearrangement) so that what another library's code
does is not charged to CoCa's line that calls the encoder. So each model of the tables is one of:

- ``COCA``: ``CoCa`` at dim 16 (a vocabulary of 32, 2 heads of 8, 4 image queries, one unimodal and one
  multimodal layer, a batch of 2 texts of 8 tokens, 6 image tokens of width 12) in the configurations that
  change its code: logits, the loss (labels from the shifted text or given, padded texts, another
  ``pad_id``, loss weights, a contrastive or caption weight of zero), embeddings (also with
  ``return_loss``), image tokens of the model's width (no ``image_dim``), other latent widths, deeper and
  empty unimodal / multimodal stacks, one head, one image query, a batch of one, longer texts; and the
  same through a bench image encoder (logits, loss, embeddings);
- ``METHODS``: ``CoCa.embed_text`` (with and without padding) and ``CoCa.embed_image`` (image tokens or
  images) through ``gt_calls.Method``;
- ``PARTS``: ``ParallelTransformerBlock`` (with and without an attention mask, inside ``Residual``, and
  called on a longer then a shorter sequence so that its cached causal mask and rotary embeddings are
  sliced), ``CrossAttention`` (plain, with a parallel feed-forward, with another context width and a
  normalised context), ``LayerNorm``, ``EmbedToLatents``, ``SwiGLU`` and ``RotaryEmbedding``;
- ``FUNCTIONS``: ``rotate_half``, ``apply_rotary_pos_emb`` and ``pad_dim_to`` (the padding helper of the
  distributed gather, on the first and the last dimension) through ``gt_calls.Call``;
- ``LOOPS``: a bench greedy captioning loop (three steps of ``CoCa`` on a growing text, the argmax token
  appended) and a bench train step (the CoCa loss plus an L2 penalty on the two latent embeddings).

``CoCa``'s distributed gather (``is_distributed``, the ``AllGather`` autograd function and its
``all_gather_variable_batch``) is left out: ``CoCa`` takes it only with more than one process, and
``AllGather`` asserts a world size above one, so it fails eagerly in one process. Nothing else failed in
eager mode. Random
weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, VOCAB, BATCH, SEQ, HEADS, DIM_HEAD, IMG_TOKENS, IMG_DIM = 16, 32, 2, 8, 2, 8, 6, 12
BASE: dict[str, Any] = {"dim": DIM, "num_tokens": VOCAB, "unimodal_depth": 1, "multimodal_depth": 1,
                        "image_dim": IMG_DIM, "num_img_queries": 4, "dim_head": DIM_HEAD, "heads": HEADS,
                        "ff_mult": 2}

# ``CoCa`` name -> (constructor keywords over ``BASE``, call keywords, inputs). Inputs: "tokens" (image
# tokens of width ``image_dim``, or of the model's width when it is None), "images" (2 x 3 x 8 x 8 images
# through the bench encoder), with "+padded" (the second text ends with pad tokens), "+labels" (labels
# given), "+batch1" (one text, one image), "+long" (16 tokens).
COCA: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "CoCa.logits": ({}, {}, "tokens"),
    "CoCa.return_loss": ({}, {"return_loss": True}, "tokens"),
    "CoCa.return_loss.labels": ({}, {"return_loss": True}, "tokens+labels"),
    "CoCa.return_loss.padded": ({}, {"return_loss": True}, "tokens+padded"),
    "CoCa.return_loss.pad_id": ({"pad_id": 3}, {"return_loss": True}, "tokens+padded"),
    "CoCa.return_loss.loss_weights": ({"caption_loss_weight": 2.0, "contrastive_loss_weight": 0.5},
                                      {"return_loss": True}, "tokens"),
    "CoCa.return_loss.no_contrastive": ({"contrastive_loss_weight": 0.0}, {"return_loss": True}, "tokens"),
    "CoCa.return_loss.no_caption": ({"caption_loss_weight": 0.0}, {"return_loss": True}, "tokens"),
    "CoCa.return_embeddings": ({}, {"return_embeddings": True}, "tokens"),
    "CoCa.return_embeddings.padded": ({}, {"return_embeddings": True}, "tokens+padded"),
    "CoCa.return_loss.return_embeddings": ({}, {"return_loss": True, "return_embeddings": True}, "tokens"),
    "CoCa.no_image_dim": ({"image_dim": None}, {"return_loss": True}, "tokens"),
    "CoCa.dim_latents": ({"dim_latents": 8}, {"return_loss": True}, "tokens"),
    "CoCa.deeper": ({"unimodal_depth": 2, "multimodal_depth": 2}, {"return_loss": True}, "tokens"),
    "CoCa.no_multimodal": ({"multimodal_depth": 0}, {}, "tokens"),
    "CoCa.no_unimodal.return_loss": ({"unimodal_depth": 0}, {"return_loss": True}, "tokens"),
    "CoCa.one_head": ({"heads": 1, "dim_head": DIM}, {"return_loss": True}, "tokens"),
    "CoCa.one_query": ({"num_img_queries": 1}, {"return_loss": True}, "tokens"),
    "CoCa.ff_mult1": ({"ff_mult": 1}, {}, "tokens"),
    "CoCa.batch1.return_loss": ({}, {"return_loss": True}, "tokens+batch1"),
    "CoCa.long_text.return_loss": ({}, {"return_loss": True}, "tokens+long"),
    "CoCa.img_encoder.logits": ({"img_encoder": "encoder"}, {}, "images"),
    "CoCa.img_encoder.return_loss": ({"img_encoder": "encoder"}, {"return_loss": True}, "images"),
    "CoCa.img_encoder.return_loss.labels": ({"img_encoder": "encoder"}, {"return_loss": True}, "images+labels"),
    "CoCa.img_encoder.return_embeddings": ({"img_encoder": "encoder"}, {"return_embeddings": True}, "images"),
}
METHODS: dict[str, tuple[str, str]] = {
    "CoCa.embed_text": ("embed_text", "text"),
    "CoCa.embed_text.padded": ("embed_text", "text+padded"),
    "CoCa.embed_image.image_tokens": ("embed_image", "image_tokens"),
    "CoCa.embed_image.images": ("embed_image", "images"),
}
# Part name -> (class of ``coca_pytorch.coca_pytorch``, constructor keywords, input kind).
PARTS: dict[str, tuple[str, dict[str, Any], str]] = {
    "ParallelTransformerBlock": ("ParallelTransformerBlock", {"dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2},
                                 "seq"),
    "ParallelTransformerBlock.attn_mask": ("ParallelTransformerBlock",
                                           {"dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2}, "seq+attn_mask"),
    "ParallelTransformerBlock.cached_mask": ("ParallelTransformerBlock",
                                             {"dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2}, "longer_shorter"),
    "Residual.ParallelTransformerBlock": ("ParallelTransformerBlock",
                                          {"dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2}, "seq+residual"),
    "CrossAttention": ("CrossAttention", {"dim_head": DIM_HEAD, "heads": HEADS}, "cross"),
    "CrossAttention.parallel_ff": ("CrossAttention", {"dim_head": DIM_HEAD, "heads": HEADS, "parallel_ff": True,
                                                      "ff_mult": 2}, "cross"),
    "CrossAttention.context_dim.norm_context": ("CrossAttention",
                                                {"dim_head": DIM_HEAD, "heads": HEADS, "context_dim": IMG_DIM,
                                                 "norm_context": True}, "cross_img"),
    "Residual.CrossAttention.parallel_ff": ("CrossAttention", {"dim_head": DIM_HEAD, "heads": HEADS,
                                                               "parallel_ff": True}, "cross+residual"),
    "LayerNorm": ("LayerNorm", {}, "seq"),
    "EmbedToLatents": ("EmbedToLatents", {"dim_latents": 8}, "seq"),
    "SwiGLU": ("SwiGLU", {}, "seq"),
    "RotaryEmbedding": ("RotaryEmbedding", {}, "rotary"),
}
# Function name -> (function of ``coca_pytorch.coca_pytorch``, fixed keywords, input kind).
FUNCTIONS: dict[str, tuple[str, dict[str, Any], str]] = {
    "rotate_half": ("rotate_half", {}, "heads"),
    "apply_rotary_pos_emb": ("apply_rotary_pos_emb", {}, "pos+heads"),
    "pad_dim_to": ("pad_dim_to", {"length": 5}, "batch"),
    "pad_dim_to.last_dim": ("pad_dim_to", {"length": 20, "dim": -1}, "batch"),
}
LOOPS = ("caption_greedy", "train_step.CoCa.latent_penalty")


def names() -> list[str]:
    return list(COCA) + list(METHODS) + list(PARTS) + list(FUNCTIONS) + list(LOOPS)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _text(batch: int = BATCH, length: int = SEQ, padded: bool = False, pad_id: int = 0) -> Any:
    import torch

    text = torch.randint(0, VOCAB, (batch, length), generator=torch.Generator().manual_seed(2))
    text[text == pad_id] = (pad_id + 1) % VOCAB
    if padded:
        text[-1, -3:] = pad_id
    return text


def _encoder() -> Any:
    """A tiny image encoder: 3 x 8 x 8 images to 4 tokens of width ``IMG_DIM`` (a 4 x 4 patch convolution)."""
    from einops.layers.torch import Rearrange
    from torch import nn

    return nn.Sequential(nn.Conv2d(3, IMG_DIM, 4, stride=4), Rearrange("b c h w -> b (h w) c"), nn.LayerNorm(IMG_DIM))


def _coca(keywords: dict[str, Any]) -> Any:
    from coca_pytorch import CoCa

    keywords = {**BASE, **keywords}
    if keywords.get("img_encoder") == "encoder":
        keywords["img_encoder"] = _encoder()
    return CoCa(**keywords)


def _coca_model(name: str) -> Built:
    keywords, call, kind = COCA[name]
    model = _coca(keywords)
    batch = 1 if "batch1" in kind else BATCH
    length = 16 if "long" in kind else SEQ
    pad_id = keywords.get("pad_id", 0)
    text = _text(batch, length, padded="padded" in kind, pad_id=pad_id)
    kwargs: dict[str, Any] = dict(call)
    if kind.startswith("images"):
        kwargs["images"] = _randn(batch, 3, 8, 8, seed=3)
    else:
        width = IMG_DIM if keywords.get("image_dim", IMG_DIM) is not None else DIM
        kwargs["image_tokens"] = _randn(batch, IMG_TOKENS, width, seed=3)
    if "labels" in kind:
        kwargs["labels"] = _text(batch, length, pad_id=pad_id).roll(1, dims=1)
    return model, (text,), kwargs


def _method(name: str) -> Built:
    from gt_calls import Method

    method, kind = METHODS[name]
    model = _coca({"img_encoder": "encoder"})
    if method == "embed_text":
        return Method(model, method), (_text(padded="padded" in kind),), {}
    if kind == "images":
        return Method(model, method), (), {"images": _randn(BATCH, 3, 8, 8, seed=3)}
    return Method(model, method), (), {"image_tokens": _randn(BATCH, IMG_TOKENS, IMG_DIM, seed=3)}


def _part(name: str) -> Built:
    import torch
    from coca_pytorch import coca_pytorch as lib
    from torch import nn

    from gt_calls import Run

    cls, keywords, kind = PARTS[name]
    if cls in ("ParallelTransformerBlock", "CrossAttention", "LayerNorm", "EmbedToLatents"):
        module = getattr(lib, cls)(DIM, **keywords)
    else:
        module = getattr(lib, cls)(**keywords) if cls != "RotaryEmbedding" else lib.RotaryEmbedding(DIM_HEAD)
    x = _randn(BATCH, SEQ, DIM)
    if kind.endswith("+residual"):
        module = lib.Residual(module)
    if kind.startswith("seq+attn_mask"):
        mask = torch.ones(BATCH, SEQ, SEQ, dtype=torch.bool)
        mask[1, :, -3:] = False
        return module, (x,), {"attn_mask": mask}
    if kind == "longer_shorter":
        def longer_then_shorter(block: Any, x: torch.Tensor) -> torch.Tensor:
            return block(x).sum() + block(x[:, :5]).sum()

        return Run(module, longer_then_shorter, [lib.ParallelTransformerBlock]), (x,), {}
    if kind.startswith("cross"):
        width = IMG_DIM if kind == "cross_img" else DIM
        return module, (x[:, :4], _randn(BATCH, IMG_TOKENS, width, seed=3)), {}
    if kind == "rotary":
        def rotary(embedding: Any, x: torch.Tensor) -> torch.Tensor:
            return embedding(x.shape[1], device=x.device)

        return Run(module, rotary, [lib.RotaryEmbedding]), (x,), {}
    if isinstance(module, nn.Module):
        return module, (x,), {}
    raise KeyError(name)


def _function(name: str) -> Built:
    from coca_pytorch import coca_pytorch as lib

    from gt_calls import Call

    function, static, kind = FUNCTIONS[name]
    heads = _randn(BATCH, HEADS, SEQ, DIM_HEAD)
    if kind == "heads":
        return Call(getattr(lib, function), **static), (heads,), {}
    if kind == "pos+heads":
        pos = lib.RotaryEmbedding(DIM_HEAD)(SEQ, device=heads.device)
        return Call(getattr(lib, function), **static), (pos, heads), {}
    return Call(getattr(lib, function), **static), (_randn(3, SEQ, DIM),), {}


def _loop(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from coca_pytorch import CoCa
    from torch import nn

    from gt_calls import Run

    model = _coca({})
    image_tokens = _randn(BATCH, IMG_TOKENS, IMG_DIM, seed=3)
    if name == "caption_greedy":
        def caption(coca: Any, prompt: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
            text = prompt
            for _ in range(3):
                logits = coca(text, image_tokens=tokens)
                text = torch.cat((text, logits[:, -1].argmax(dim=-1, keepdim=True)), dim=-1)
            return text

        return Run(model, caption, [CoCa]), (_text(length=2), image_tokens), {}

    class _TrainStep(nn.Module):
        """The CoCa loss (caption and contrastive) plus an L2 penalty on the text and image embeddings."""

        def __init__(self) -> None:
            super().__init__()
            self.coca = model

        def forward(self, text: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
            loss = self.coca(text, image_tokens=tokens, return_loss=True)
            text_embeds, image_embeds = self.coca(text, image_tokens=tokens, return_embeddings=True)
            return loss + 1e-3 * (F.mse_loss(text_embeds, torch.zeros_like(text_embeds))
                                  + F.mse_loss(image_embeds, torch.zeros_like(image_embeds)))

        def entry_points(self) -> list[Any]:
            return [CoCa]

    return _TrainStep(), (_text(), image_tokens), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in COCA:
        return _coca_model(name)
    if name in METHODS:
        return _method(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    return _loop(name)
