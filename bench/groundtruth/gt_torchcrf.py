"""Ground-truth bench, torchcrf: pytorch-crf's ``CRF`` layer, its log likelihood and Viterbi decoding, and a tagger.

pytorch-crf 0.7.2 has one public class, ``torchcrf.CRF(num_tags, batch_first=False)``: its ``forward``
is the log likelihood of tag sequences given emission scores (the training loss is its negation) and its
``decode`` the Viterbi best paths, as lists of tag indices. So:

- ``FORWARD``: ``CRF.forward`` on random emissions and tags, in both layouts (``seq_first``: sequence,
  batch, tags; ``batch_first``), with each reduction (``sum``, ``mean``, ``token_mean``, ``none``),
  without a mask, with a mask all on, and with a mask that pads the shorter sequences, as a ``bool``
  tensor or as the ``uint8`` one the documentation names (``ByteTensor``);
- ``DECODE``: ``CRF.decode`` (through ``gt_calls.Method``) in both layouts, without a mask and with the
  padding mask, ``bool`` or ``uint8``;
- ``TAGGER``: the BiLSTM-CRF sequence tagger of the documentation's tagging example (bench code: an
  embedding, a bidirectional LSTM, a linear layer to emission scores, and the ``CRF``): its training loss
  (the negative log likelihood, with and without the padding mask, in both layouts) and its decoding.

Batches are 3 sequences of 5 steps and 4 tags (the padded ones of lengths 5, 3 and 2; the first step
of every sequence is on, as the layer requires); the tagger reads tokens of a vocabulary of 20. Random
weights, nothing downloaded. Tables are plain data, so ``names()`` needs no torch; ``build`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
SEQ, BATCH, TAGS, VOCAB, EMBED, HIDDEN = 5, 3, 4, 20, 8, 8
LENGTHS = (5, 3, 2)  # the padded batch's sequence lengths
LAYOUTS = ("seq_first", "batch_first")

# Forward variant -> (mask kind, reduction). Mask kinds: "none" (no mask passed), "full" (all on),
# "padded" (bool, off after each sequence's length), "padded_uint8" (the same as uint8).
FORWARD: dict[str, tuple[str, str]] = {
    "sum": ("none", "sum"),
    "mean": ("none", "mean"),
    "token_mean": ("none", "token_mean"),
    "none": ("none", "none"),
    "full_mask": ("full", "sum"),
    "padded.sum": ("padded", "sum"),
    "padded.mean": ("padded", "mean"),
    "padded.token_mean": ("padded", "token_mean"),
    "padded.none": ("padded", "none"),
    "padded_uint8.sum": ("padded_uint8", "sum"),
}
# Decode variant -> mask kind.
DECODE: dict[str, str] = {"no_mask": "none", "padded": "padded", "padded_uint8": "padded_uint8"}
# Tagger model -> (layout, step, mask kind).
TAGGER: dict[str, tuple[str, str, str]] = {
    "loss": ("batch_first", "loss", "padded"),
    "loss.no_mask": ("batch_first", "loss", "none"),
    "loss.seq_first": ("seq_first", "loss", "padded"),
    "decode": ("batch_first", "decode", "padded"),
    "decode.no_mask": ("batch_first", "decode", "none"),
}


def names() -> list[str]:
    return ([f"CRF.{layout}.forward.{v}" for layout in LAYOUTS for v in FORWARD]
            + [f"CRF.{layout}.decode.{v}" for layout in LAYOUTS for v in DECODE]
            + [f"BiLSTM_CRF.{n}" for n in TAGGER])


def _mask(kind: str, batch_first: bool) -> Any:
    """The mask of one kind (see the comment above ``FORWARD``), None for "none", laid out as asked."""
    import torch

    if kind == "none":
        return None
    mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
    if kind != "full":
        for b, length in enumerate(LENGTHS):
            mask[b, length:] = False
    if kind == "padded_uint8":
        mask = mask.to(torch.uint8)
    return mask if batch_first else mask.transpose(0, 1).contiguous()


def _crf(name: str) -> Built:
    import torch
    from torchcrf import CRF

    from gt_calls import Method

    _, layout, method, variant = name.split(".", 3)
    batch_first = layout == "batch_first"
    crf = CRF(TAGS, batch_first=batch_first)
    gen = torch.Generator().manual_seed(0)
    emissions = torch.randn(BATCH, SEQ, TAGS, generator=gen)
    tags = torch.randint(0, TAGS, (BATCH, SEQ), generator=gen)
    if not batch_first:
        emissions, tags = emissions.transpose(0, 1).contiguous(), tags.transpose(0, 1).contiguous()
    if method == "decode":
        mask = _mask(DECODE[variant], batch_first)
        return Method(crf, "decode"), (emissions,) if mask is None else (emissions, mask), {}
    kind, reduction = FORWARD[variant]
    mask = _mask(kind, batch_first)
    return crf, (emissions, tags), {"mask": mask, "reduction": reduction}


def _tagger(name: str) -> Built:
    import torch
    from torch import nn
    from torchcrf import CRF

    layout, step, kind = TAGGER[name]
    batch_first = layout == "batch_first"

    class BiLSTMCRF(nn.Module):
        """Embedding, bidirectional LSTM, linear emission scores and a CRF: the tagging example's model."""

        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, EMBED)
            self.lstm = nn.LSTM(EMBED, HIDDEN, bidirectional=True, batch_first=batch_first)
            self.hidden2tag = nn.Linear(2 * HIDDEN, TAGS)
            self.crf = CRF(TAGS, batch_first=batch_first)

        def emissions(self, tokens: torch.Tensor) -> torch.Tensor:
            out, _ = self.lstm(self.embedding(tokens))
            return self.hidden2tag(out)

        def forward(self, tokens: torch.Tensor, tags: torch.Tensor | None = None,
                    mask: torch.Tensor | None = None) -> Any:
            emissions = self.emissions(tokens)
            if step == "decode":
                return self.crf.decode(emissions, mask=mask)
            return -self.crf(emissions, tags, mask=mask, reduction="mean")

        def entry_points(self) -> list[Any]:
            return [CRF.decode] if step == "decode" else [CRF]

    gen = torch.Generator().manual_seed(1)
    tokens = torch.randint(1, VOCAB, (BATCH, SEQ), generator=gen)
    tags = torch.randint(0, TAGS, (BATCH, SEQ), generator=gen)
    mask = _mask(kind, True)
    if mask is not None:
        tokens = tokens.masked_fill(~mask.bool(), 0)  # padding token 0
    if not batch_first:
        tokens, tags = tokens.transpose(0, 1).contiguous(), tags.transpose(0, 1).contiguous()
        mask = None if mask is None else mask.transpose(0, 1).contiguous()
    if step == "decode":
        return BiLSTMCRF(), (tokens,), {"mask": mask}
    return BiLSTMCRF(), (tokens, tags), {"mask": mask}


def build(name: str) -> Built:
    import warnings

    warnings.filterwarnings("ignore")  # torch's note on the uint8 condition of ``torch.where``
    if name.startswith("CRF."):
        return _crf(name)
    return _tagger(name.split(".", 1)[1])
