"""Ground-truth bench, perceiver-pytorch: Perceiver, PerceiverBlock, PerceiverIO, PerceiverLM and the variant modules.

perceiver-pytorch 0.11.0 ships ``nn.Module`` s that users compile as they are, each built here at a tiny size
(8 latents of 32 features, heads of 16, depth 1, or 2 where the layers differ: tied weights, per-layer
options, the attention residual, the experimental model's last layer) in the options that change its code:

- ``PERCEIVER``: ``Perceiver`` on 2 x 8 x 8 x 3 images (its README's use): with a mask, tied weights, no
  Fourier encoding, sequences (``input_axis=1``) and video (``input_axis=3``), ``return_embeddings``, inverted
  cross-attention (with a mask, or per layer), the attention residual over block outputs (also fed earlier
  ``block_outputs``) and ``return_hiddens``;
- ``BLOCK``: ``PerceiverBlock`` (the README's custom stacks) with queries that contribute keys and values under
  a mask, self-attention only, and inverted attention under a mask;
- ``IO``: ``PerceiverIO`` on 2 x 20 x 24 sequences with 2-D or 3-D decoder queries or none, a mask, the
  structured sequence dropout (``seq_dropout_prob``, a training path, with and without a mask), a decoder
  feed-forward, tied weights, inverted cross-attention, ``return_hiddens`` (with queries, and without them
  under the attention residual) and no logits projection; ``LM``: ``PerceiverLM`` on 2 x 20 tokens of 64, plain
  and with a mask and sequence dropout;
- ``VARIANTS``: the ``Perceiver`` of ``perceiver_pytorch.experimental`` (bottom-up linear attention, depth 2 so
  that its inner layer runs), ``gated`` (GRU gating) and ``mixed_latents`` (a latent mixer), the last two also
  with a mask. The experimental one runs without Fourier encoding and without a mask: in 0.11.0 its
  ``input_dim`` counts the input channels twice when it encodes (a shape error in eager mode too), and its
  linear attention fills a 2-D mask into 3-D keys, which does not broadcast;
- ``PARTS``: ``fourier_encode``, the experimental ``LinearAttention`` and the ``EnformerAttentionResidual`` over
  a list of block outputs.

Configurations were cut to keep the library's compile run short; each option above is still compiled once.
Random weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SIDE, CHANNELS, LATENTS, LATENT_DIM, CLASSES = 2, 8, 3, 8, 32, 10
SEQ, SEQ_DIM, QUERIES, QUERIES_DIM, TOKENS = 20, 24, 6, 16, 64
SMALL = {"depth": 1, "num_latents": LATENTS, "latent_dim": LATENT_DIM, "cross_heads": 1, "latent_heads": 2,
         "cross_dim_head": 16, "latent_dim_head": 16}
FOURIER = {"num_freq_bands": 4, "max_freq": 10.0, "input_channels": CHANNELS, "num_classes": CLASSES}

# Name -> (``Perceiver`` keywords, call options). Options: "mask", "return_embeddings", "return_hiddens",
# "block_outputs" (an earlier block output passed in), "axis:N" input axes (1: 32 positions, 3: 2 x 4 x 4).
PERCEIVER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "Perceiver": ({}, ()),
    "Perceiver.mask": ({}, ("mask",)),
    "Perceiver.weight_tie_layers": ({"depth": 2, "weight_tie_layers": True}, ()),
    "Perceiver.no_fourier_encode": ({"fourier_encode_data": False}, ()),
    "Perceiver.sequence": ({"input_axis": 1}, ("axis:1",)),
    "Perceiver.video": ({"input_axis": 3}, ("axis:3",)),
    "Perceiver.return_embeddings": ({}, ("return_embeddings",)),
    "Perceiver.inverted_cross_attn.mask": ({"inverted_cross_attn": True}, ("mask",)),
    "Perceiver.inverted_cross_attn.per_layer": ({"depth": 2, "inverted_cross_attn": (True, False)}, ()),
    "Perceiver.attn_residual": ({"depth": 2, "attn_residual": True, "attn_residual_rank": 8}, ()),
    "Perceiver.attn_residual.block_outputs": ({"attn_residual": True, "attn_residual_rank": 8},
                                              ("block_outputs",)),
    "Perceiver.return_hiddens": ({}, ("return_hiddens",)),
}
# Name -> (``PerceiverBlock`` keywords, call options: "mask", "inverted", "no_context").
BLOCK: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "PerceiverBlock": ({"context_dim": SEQ_DIM}, ()),
    "PerceiverBlock.queries_contribute_kv": ({"context_dim": LATENT_DIM, "queries_contribute_kv": True},
                                             ("mask", "context_latent_dim")),
    "PerceiverBlock.self_only": ({"has_cross_attn": False, "self_per_cross_attn": 2}, ("no_context",)),
    "PerceiverBlock.inverted_attention": ({"context_dim": SEQ_DIM}, ("mask", "inverted")),
}
# Name -> (``PerceiverIO`` keywords, call options: "queries2d", "queries3d", "mask", "return_hiddens").
IO: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "PerceiverIO": ({}, ("queries2d",)),
    "PerceiverIO.queries_3d": ({}, ("queries3d",)),
    "PerceiverIO.no_queries": ({}, ()),
    "PerceiverIO.mask": ({}, ("queries2d", "mask")),
    "PerceiverIO.seq_dropout": ({"seq_dropout_prob": 0.2}, ("queries2d",)),
    "PerceiverIO.seq_dropout.mask": ({"seq_dropout_prob": 0.2}, ("queries3d", "mask")),
    "PerceiverIO.decoder_ff": ({"decoder_ff": True}, ("queries2d",)),
    "PerceiverIO.weight_tie_layers": ({"depth": 2, "weight_tie_layers": True}, ("queries2d",)),
    "PerceiverIO.inverted_cross_attn.mask": ({"inverted_cross_attn": True}, ("queries2d", "mask")),
    "PerceiverIO.return_hiddens": ({}, ("queries2d", "return_hiddens")),
    "PerceiverIO.return_hiddens.no_queries": ({"attn_residual": True, "attn_residual_rank": 8},
                                              ("return_hiddens",)),
    "PerceiverIO.no_logits": ({"logits_dim": None}, ("queries2d",)),
}
# Name -> (``PerceiverLM`` keywords, call options: "mask").
LM: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "PerceiverLM": ({}, ()),
    "PerceiverLM.seq_dropout": ({"seq_dropout_prob": 0.25}, ("mask",)),
}
# Name (module of ``perceiver_pytorch``, then options) -> (``Perceiver`` keywords, call options: "mask").
VARIANTS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "experimental.Perceiver": ({"depth": 2, "fourier_encode_data": False}, ()),
    "gated.Perceiver": ({}, ()),
    "gated.Perceiver.mask": ({}, ("mask",)),
    "mixed_latents.Perceiver": ({}, ()),
    "mixed_latents.Perceiver.mask": ({}, ("mask",)),
}
PARTS = ("fourier_encode", "experimental.LinearAttention", "EnformerAttentionResidual")


def names() -> list[str]:
    return list(PERCEIVER) + list(BLOCK) + list(IO) + list(LM) + list(VARIANTS) + [f"part.{p}" for p in PARTS]


def _tensor(*shape: int, seed: int = 0) -> Any:
    return gt_inputs.randn(*shape, seed=seed)


def _mask(*shape: int) -> Any:
    """A boolean mask of ``shape`` (batch first) whose second sample hides its last few positions."""
    import torch

    mask = torch.ones(*shape, dtype=torch.bool)
    mask.view(shape[0], -1)[1, -5:] = False
    return mask


def _perceiver(name: str) -> Built:
    from perceiver_pytorch import Perceiver

    keywords, options = PERCEIVER[name]
    axes = next((int(o[5:]) for o in options if o.startswith("axis:")), 2)
    grid = {1: (32,), 2: (SIDE, SIDE), 3: (2, 4, 4)}[axes]
    model = Perceiver(**{**SMALL, **FOURIER, **keywords})
    call: dict[str, Any] = {}
    if "mask" in options:
        call["mask"] = _mask(BATCH, *grid)
    for flag in ("return_embeddings", "return_hiddens"):
        if flag in options:
            call[flag] = True
    if "block_outputs" in options:
        call["block_outputs"] = [_tensor(BATCH, LATENTS, LATENT_DIM, seed=5)]
    return model, (_tensor(BATCH, *grid, CHANNELS, seed=1),), call


def _block(name: str) -> Built:
    from perceiver_pytorch import PerceiverBlock

    keywords, options = BLOCK[name]
    block = PerceiverBlock(dim=LATENT_DIM, cross_heads=1, latent_heads=2, cross_dim_head=16, latent_dim_head=16,
                           **keywords)
    latents = _tensor(BATCH, LATENTS, LATENT_DIM, seed=1)
    if "no_context" in options:
        return block, (latents,), {}
    context_dim = LATENT_DIM if "context_latent_dim" in options else SEQ_DIM
    call: dict[str, Any] = {"context": _tensor(BATCH, SEQ, context_dim, seed=2)}
    if "mask" in options:
        call["mask"] = _mask(BATCH, SEQ)
    if "inverted" in options:
        call["inverted_attention"] = True
    return block, (latents,), call


def _io(name: str) -> Built:
    from perceiver_pytorch import PerceiverIO

    keywords, options = IO[name]
    keywords = {"logits_dim": CLASSES, **keywords}
    model = PerceiverIO(dim=SEQ_DIM, queries_dim=QUERIES_DIM, **{**SMALL, **keywords})
    call: dict[str, Any] = {}
    if "queries2d" in options:
        call["queries"] = _tensor(QUERIES, QUERIES_DIM, seed=3)
    if "queries3d" in options:
        call["queries"] = _tensor(BATCH, QUERIES, QUERIES_DIM, seed=3)
    if "mask" in options:
        call["mask"] = _mask(BATCH, SEQ)
    if "return_hiddens" in options:
        call["return_hiddens"] = True
    return model, (_tensor(BATCH, SEQ, SEQ_DIM, seed=1),), call


def _lm(name: str) -> Built:
    import torch
    from perceiver_pytorch import PerceiverLM

    keywords, options = LM[name]
    model = PerceiverLM(dim=SEQ_DIM, num_tokens=TOKENS, max_seq_len=32, **SMALL, **keywords)
    tokens = torch.randint(0, TOKENS, (BATCH, SEQ), generator=torch.Generator().manual_seed(0))
    return model, (tokens,), ({"mask": _mask(BATCH, SEQ)} if "mask" in options else {})


def _variant(name: str) -> Built:
    import importlib

    keywords, options = VARIANTS[name]
    module = importlib.import_module(f"perceiver_pytorch.{name.split('.')[0]}")
    model = module.Perceiver(**{**SMALL, **FOURIER, **keywords})
    call = {"mask": _mask(BATCH, SIDE, SIDE)} if "mask" in options else {}
    return model, (_tensor(BATCH, SIDE, SIDE, CHANNELS, seed=1),), call


def _part(name: str) -> Built:
    import torch
    from perceiver_pytorch import experimental
    from perceiver_pytorch.perceiver_pytorch import EnformerAttentionResidual, fourier_encode
    from torch import nn

    from gt_calls import Call

    if name == "fourier_encode":  # positions in [-1, 1] on an 8 x 8 grid, as ``Perceiver`` encodes them
        axis = torch.linspace(-1.0, 1.0, SIDE)
        pos = torch.stack(torch.meshgrid(axis, axis, indexing="ij"), dim=-1)
        return Call(fourier_encode, max_freq=10.0, num_bands=4), (pos,), {}
    if name == "experimental.LinearAttention":
        return experimental.LinearAttention(SEQ_DIM, heads=2, dim_head=16), (_tensor(BATCH, SEQ, SEQ_DIM, seed=2),), {}

    class Residual(nn.Module):
        """The attention residual over the outputs of three blocks, passed as a list as ``Perceiver`` does."""

        def __init__(self) -> None:
            super().__init__()
            self.residual = EnformerAttentionResidual(LATENT_DIM, rank=8)

        def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
            return self.residual([a, b, c])

        def entry_points(self) -> list[Any]:
            return [EnformerAttentionResidual]

    return Residual(), tuple(_tensor(BATCH, LATENTS, LATENT_DIM, seed=s) for s in (1, 2, 3)), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name.startswith("part."):
        return _part(name.split(".", 1)[1])
    for table, builder in ((PERCEIVER, _perceiver), (BLOCK, _block), (IO, _io), (LM, _lm), (VARIANTS, _variant)):
        if name in table:
            return builder(name)
    raise KeyError(name)
