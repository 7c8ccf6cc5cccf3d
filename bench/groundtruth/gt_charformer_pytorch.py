"""Ground-truth bench, charformer_pytorch: GBST, the gradient-based subword tokenizer of Charformer (Tay 2021).

charformer_pytorch 0.0.4 exports ``GBST``: character ids are embedded, given positions by a depthwise 1-d
convolution, padded to a length that every block size divides (their least common multiple), mean-pooled in
blocks of each candidate size (a masked mean when a mask is given; a block may carry an offset, handled by padding
and slicing back), scored per position and block size, softmaxed across block sizes (masked), optionally refined
by the cheap score-consensus attention (eq. 5 of the paper, masked across positions), mixed, truncated to a length
the downsample factor divides and mean-pooled down by it; it returns the downsampled sequence and mask. The
module's helpers (``masked_mean``, ``pad_to_multiple``, ``next_divisible_length``, ``lcm``, ``Pad``,
``DepthwiseConv1d``) are public too. The tables cover, at a batch of 2, 14 or 16 characters, width 16:

- ``GBST``: ``max_block_size`` (1 to 4) or explicit ``blocks`` (sizes alone, with offsets, mixed), downsample
  factors 1, 2 and 4, score consensus attention on and off, with and without a mask (padded rows, a fully masked
  row), a sequence length the block sizes already divide (no padding) or not, a batch of one;
- ``USAGES`` (bench modules holding the library's ``GBST``, which is what they enter): a classifier (GBST, a small
  ``nn.TransformerEncoder`` with the downsampled padding mask, a masked mean and a linear head), its training
  step (cross-entropy, ``backward``, Adam), and a masked character model (GBST, the encoder, the sequence
  upsampled back to characters by repetition, a per-character cross-entropy, ``backward``, Adam);
- ``HELPERS``: the helpers alone, as users of the module call them.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, LENGTH, DIM, TOKENS, CLASSES = 2, 14, 16, 32, 3
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "max_block_size": 4, "downsample_factor": 4}
OFFSETS: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "blocks": ((1, 0), (2, 0), (3, 1), (4, 2)),
                           "downsample_factor": 4}
# ``GBST`` name -> (keywords, mask: None, "padded" (the second row's tail) or "empty_row", batch, length).
GBST: dict[str, tuple[dict[str, Any], str | None, int, int]] = {
    "GBST": (BASE, None, BATCH, LENGTH),
    "GBST.mask": (BASE, "padded", BATCH, LENGTH),
    "GBST.mask.empty_row": (BASE, "empty_row", BATCH, LENGTH),
    "GBST.no_consensus": ({**BASE, "score_consensus_attn": False}, None, BATCH, LENGTH),
    "GBST.no_consensus.mask": ({**BASE, "score_consensus_attn": False}, "padded", BATCH, LENGTH),
    "GBST.divisible": (BASE, None, BATCH, 12),
    "GBST.divisible.mask": (BASE, "padded", BATCH, 24),
    "GBST.batch1": (BASE, None, 1, LENGTH),
    "GBST.batch1.mask": (BASE, "padded", 1, LENGTH),
    "GBST.downsample2": ({**BASE, "downsample_factor": 2}, None, BATCH, LENGTH),
    "GBST.downsample2.mask": ({**BASE, "downsample_factor": 2}, "padded", BATCH, LENGTH),
    "GBST.downsample1.max_block1": ({**BASE, "max_block_size": 1, "downsample_factor": 1}, None, BATCH, LENGTH),
    "GBST.max_block3.downsample3": ({**BASE, "max_block_size": 3, "downsample_factor": 3}, "padded", BATCH, LENGTH),
    "GBST.blocks": ({**BASE, "max_block_size": None, "blocks": (1, 2, 4)}, None, BATCH, LENGTH),
    "GBST.blocks.mask": ({**BASE, "max_block_size": None, "blocks": (1, 2, 4)}, "padded", BATCH, LENGTH),
    "GBST.blocks.offsets": (OFFSETS, None, BATCH, LENGTH),
    "GBST.blocks.offsets.mask": (OFFSETS, "padded", BATCH, LENGTH),
    "GBST.blocks.offsets.no_consensus.mask": ({**OFFSETS, "score_consensus_attn": False}, "padded", BATCH, LENGTH),
    "GBST.blocks.mixed": ({**OFFSETS, "blocks": (1, (2, 1), 3), "downsample_factor": 3}, "empty_row", BATCH,
                           LENGTH),
    "GBST.blocks.offsets.downsample2": ({**OFFSETS, "downsample_factor": 2}, "padded", BATCH, 16),
}
# Usage name -> (what runs: "classifier", "classifier.train", "mlm.train"; GBST keywords, with a mask).
USAGES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "Classifier": ("classifier", BASE, False),
    "Classifier.mask": ("classifier", BASE, True),
    "Classifier.offsets.mask": ("classifier", OFFSETS, True),
    "train.Classifier.mask": ("classifier.train", BASE, True),
    "train.Classifier.no_consensus": ("classifier.train", {**BASE, "score_consensus_attn": False}, False),
    "train.CharLM.mask": ("mlm.train", BASE, True),
    "train.CharLM.offsets.downsample2": ("mlm.train", {**OFFSETS, "downsample_factor": 2}, False),
    "train.GBST.loss": ("gbst.train", BASE, True),
}
HELPERS = (
    "masked_mean", "masked_mean.empty_row", "pad_to_multiple", "pad_to_multiple.mask", "pad_to_multiple.divisible",
    "next_divisible_length", "lcm", "Pad", "DepthwiseConv1d",
)


def names() -> list[str]:
    return list(GBST) + list(USAGES) + list(HELPERS)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _ids(batch: int, length: int) -> Any:
    import torch

    return torch.randint(0, TOKENS, (batch, length), generator=_gen(1))


def _mask(kind: str | None, batch: int, length: int) -> Any:
    """``padded``: the last row's final quarter is padding; ``empty_row``: also the first row is padding whole."""
    import torch

    if kind is None:
        return None
    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[-1, length - length // 4:] = False
    if kind == "empty_row":
        mask[0] = False
    return mask


def _usage(kind: str, keywords: dict[str, Any], masked: bool) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from charformer_pytorch import GBST as Gbst
    from charformer_pytorch.charformer_pytorch import masked_mean
    from gt_calls import Run

    class Classifier(nn.Module):
        """GBST, a one-layer transformer encoder over the downsampled sequence, a masked mean and a linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.tokenizer = Gbst(**keywords)
            layer = nn.TransformerEncoderLayer(DIM, 2, 2 * DIM, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
            tokens, mask = self.tokenizer(ids, mask=mask)
            hidden = self.encoder(tokens, src_key_padding_mask=None if mask is None else ~mask)
            pooled = hidden.mean(dim=1) if mask is None else masked_mean(hidden.clone(), mask, dim=1)
            return self.head(pooled)

        def entry_points(self) -> list[Any]:
            return [Gbst]

    class CharLM(nn.Module):
        """GBST, the encoder, the downsampled sequence repeated back to the characters, and character logits."""

        def __init__(self) -> None:
            super().__init__()
            self.tokenizer = Gbst(**keywords)
            layer = nn.TransformerEncoderLayer(DIM, 2, 2 * DIM, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.to_logits = nn.Linear(DIM, TOKENS)

        def forward(self, ids: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
            tokens, down_mask = self.tokenizer(ids, mask=mask)
            hidden = self.encoder(tokens, src_key_padding_mask=None if down_mask is None else ~down_mask)
            chars = hidden.repeat_interleave(keywords["downsample_factor"], dim=1)[:, :ids.shape[1]]
            return self.to_logits(chars)

        def entry_points(self) -> list[Any]:
            return [Gbst]

    length = 16
    ids = _ids(BATCH, length)
    mask = _mask("padded", BATCH, length) if masked else None
    gen = _gen(3)
    if kind == "classifier":
        model = Classifier()
        return model, (ids,), ({"mask": mask} if masked else {})
    if kind == "classifier.train":
        model = Classifier()
        labels = torch.randint(0, CLASSES, (BATCH,), generator=gen)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

        def classifier_step(owner: Any, ids_: Any, labels_: Any) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = F.cross_entropy(owner(ids_, mask), labels_)
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(model, classifier_step, [Gbst]), (ids, labels), {}
    if kind == "mlm.train":
        model = CharLM()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        corrupt = torch.rand(BATCH, length, generator=gen) < 0.25
        corrupted = ids.masked_fill(corrupt, 0)

        def mlm_step(owner: Any, ids_: Any, targets: Any) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                logits = owner(ids_, mask)
                loss = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
                weights = corrupt.float() if mask is None else (corrupt & mask).float()
                loss = (loss * weights).sum() / weights.sum().clamp(min=1.0)
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(model, mlm_step, [Gbst]), (corrupted, ids), {}
    # GBST alone, a loss on its pooled output, ``backward`` through it.
    gbst = Gbst(**keywords)
    target = torch.randn(BATCH, length // keywords["downsample_factor"], DIM, generator=gen)

    def gbst_loss(owner: Any, ids_: Any, target_: Any) -> Any:
        with torch.enable_grad():
            out, out_mask = owner(ids_, mask=mask)
            loss = ((out - target_) ** 2).mean(-1).masked_fill(~out_mask, 0.0).sum()
            loss.backward()
        return loss.detach(), owner.score_fn[0].weight.grad

    return Run(gbst, gbst_loss, [Gbst]), (ids, target), {}


def _helper(name: str) -> Built:
    import torch

    from charformer_pytorch import charformer_pytorch as cp
    from gt_calls import Call, Run

    gen = _gen(4)
    values = torch.randn(BATCH, LENGTH, DIM, generator=gen)
    identity = torch.nn.Identity()
    if name.startswith("masked_mean"):
        mask = _mask("empty_row" if name.endswith("empty_row") else "padded", BATCH, LENGTH)
        # ``masked_mean`` fills the input in place: each call gets a copy.
        return Run(identity, lambda owner, t, m: cp.masked_mean(t.clone(), m, dim=1), [cp.masked_mean]), \
            (values, mask), {}
    if name == "pad_to_multiple":
        return Call(cp.pad_to_multiple, multiple=4, seq_dim=1, dim=-2), (values,), {}
    if name == "pad_to_multiple.mask":
        return Call(cp.pad_to_multiple, multiple=4, seq_dim=1, dim=-1, value=False), \
            (_mask("padded", BATCH, LENGTH),), {}
    if name == "pad_to_multiple.divisible":
        return Call(cp.pad_to_multiple, multiple=7, seq_dim=1, dim=-2), (values,), {}
    if name == "next_divisible_length":
        return Run(identity, lambda owner, t: t.new_zeros(cp.next_divisible_length(t.shape[1], 4)),
                   [cp.next_divisible_length]), (values,), {}
    if name == "lcm":
        return Run(identity, lambda owner, t: cp.pad_to_multiple(t, cp.lcm(*range(1, 5)), seq_dim=1, dim=-2),
                   [cp.lcm]), (values,), {}
    if name == "Pad":
        return cp.Pad((0, 0, 0, 3)), (values,), {}
    return cp.DepthwiseConv1d(DIM, DIM, 3), (values.transpose(1, 2),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    from charformer_pytorch import GBST as Gbst

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in GBST:
        keywords, mask_kind, batch, length = GBST[name]
        keywords = {k: v for k, v in keywords.items() if v is not None}
        mask = _mask(mask_kind, batch, length)
        return Gbst(**keywords), (_ids(batch, length),), ({"mask": mask} if mask is not None else {})
    if name in USAGES:
        return _usage(*USAGES[name])
    if name in HELPERS:
        return _helper(name)
    raise KeyError(name)
