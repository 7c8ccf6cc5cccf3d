"""Ground-truth bench, bidirectional_cross_attention: two sequences attending to each other in one attention step.

bidirectional-cross-attention 0.1.0 (lucidrains) has ``BidirectionalCrossAttention``: both sequences are
(optionally RMS-) normed and projected to shared query-keys and to values; one similarity matrix, plus an optional
relative position bias and a mask built from either or both key padding masks, is softmaxed along each axis, so
the sequence aggregates the context's values and the context the sequence's; dropout, optional talking heads
(1 x 1 convolutions over the heads), and ``return_attn`` for both attention maps. ``BidirectionalCrossAttention
Transformer`` stacks such layers (pre-norm) with a feedforward per side and optional final norms. The tables
cover, at width 16 (a context of 12), 2 heads of 8, sequences of 6 and 5, a batch of 2:

- ``ATTENTION``: ``BidirectionalCrossAttention``: defaults, a context width, pre-norm, talking heads, dropout
  (active in train mode), either mask alone or both, ``return_attn``, a relative position bias, a batch of one,
  one head, float64;
- ``TRANSFORMER``: ``BidirectionalCrossAttentionTransformer``: depths 1 and 2, a context width, final norms,
  a feedforward factor, talking heads and dropout through the attention keywords, masks, a relative bias;
- ``USER``: how users use it: a video and audio fusion classifier pooling both streams under masks, a
  text-image matcher taking the attention maps, a position bias computed from the two lengths per call;
- ``TRAIN``: training steps: the fusion classifier's cross-entropy with Adam, the transformer's regression on
  both outputs with SGD, a talking-heads layer with dropout under AdamW, the transformer under activation
  checkpointing (``torch.utils.checkpoint``, non-reentrant, a context mask) with Adam.

``final_norms`` with a context width other than ``dim`` builds the context norm at ``dim`` and fails eagerly, so
it is used only where the widths match. Random weights and inputs from fixed generators, nothing downloaded;
``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, CONTEXT, HEADS, DIM_HEAD, LEN, CLEN, CLASSES = 2, 16, 12, 2, 8, 6, 5, 4
BASE: dict[str, Any] = {"dim": DIM, "heads": HEADS, "dim_head": DIM_HEAD}

# Name -> (constructor keywords, call options: "mask", "context_mask", "return_attn", "bias", "batch1", "double",
# "context" (a context of CONTEXT channels)).
ATTENTION: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "BCA": ({}, ()),
    "BCA.defaults": ({}, ()),
    "BCA.context_dim": ({"context_dim": CONTEXT}, ("context",)),
    "BCA.prenorm": ({"prenorm": True}, ()),
    "BCA.prenorm.context_dim": ({"prenorm": True, "context_dim": CONTEXT}, ("context",)),
    "BCA.talking_heads": ({"talking_heads": True}, ()),
    "BCA.dropout": ({"dropout": 0.1}, ()),
    "BCA.talking_heads.dropout.prenorm": ({"talking_heads": True, "dropout": 0.1, "prenorm": True}, ()),
    "BCA.mask": ({}, ("mask",)),
    "BCA.context_mask": ({}, ("context_mask",)),
    "BCA.both_masks": ({}, ("mask", "context_mask")),
    "BCA.both_masks.context_dim": ({"context_dim": CONTEXT}, ("mask", "context_mask", "context")),
    "BCA.return_attn": ({}, ("return_attn",)),
    "BCA.return_attn.mask.talking_heads": ({"talking_heads": True}, ("return_attn", "mask")),
    "BCA.rel_pos_bias": ({}, ("bias",)),
    "BCA.rel_pos_bias.both_masks": ({"prenorm": True}, ("bias", "mask", "context_mask")),
    "BCA.batch1": ({}, ("batch1",)),
    "BCA.heads1": ({"heads": 1, "dim_head": 16}, ()),
    "BCA.double.mask": ({}, ("double", "mask")),
}
# Name -> (constructor keywords, call options as above).
TRANSFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "BCATransformer": ({"depth": 1}, ()),
    "BCATransformer.depth2": ({"depth": 2}, ()),
    "BCATransformer.context_dim": ({"depth": 2, "context_dim": CONTEXT}, ("context",)),
    "BCATransformer.final_norms": ({"depth": 1, "final_norms": True}, ()),
    "BCATransformer.ff_expansion_factor": ({"depth": 1, "ff_expansion_factor": 2.5}, ()),
    "BCATransformer.talking_heads.dropout": ({"depth": 2, "talking_heads": True, "dropout": 0.1}, ()),
    "BCATransformer.mask": ({"depth": 2}, ("mask",)),
    "BCATransformer.context_mask.context_dim": ({"depth": 1, "context_dim": CONTEXT}, ("context_mask", "context")),
    "BCATransformer.both_masks.final_norms": ({"depth": 2, "final_norms": True}, ("mask", "context_mask")),
    "BCATransformer.rel_pos_bias": ({"depth": 2}, ("bias",)),
    "BCATransformer.return_attn": ({"depth": 1}, ("return_attn",)),
    "BCATransformer.batch1.mask": ({"depth": 1}, ("batch1", "mask")),
}
USER = ("FusionClassifier", "FusionClassifier.masks", "TextImageMatcher.attn_maps", "DistanceBias.per_call",
        "CrossModalEncoder.masks")
TRAIN = ("train.FusionClassifier.adam", "train.BCATransformer.sgd", "train.BCA.talking_heads.dropout.adamw",
         "train.BCATransformer.checkpoint.adam")


def names() -> list[str]:
    return [*ATTENTION, *TRANSFORMER, *USER, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _inputs(options: tuple[str, ...], heads: int = HEADS) -> tuple[tuple[Any, ...], dict[str, Any]]:
    import gt_inputs

    batch = 1 if "batch1" in options else BATCH
    width = CONTEXT if "context" in options else DIM
    x, context = _randn(batch, LEN, DIM), _randn(batch, CLEN, width, seed=2)
    if "double" in options:
        x, context = x.double(), context.double()
    kwargs: dict[str, Any] = {}
    if "mask" in options:
        kwargs["mask"] = gt_inputs.padding_mask(batch, LEN, 2) if batch > 1 else _keep(batch, LEN)
    if "context_mask" in options:
        kwargs["context_mask"] = gt_inputs.padding_mask(batch, CLEN, 1)
    if "return_attn" in options:
        kwargs["return_attn"] = True
    if "bias" in options:
        kwargs["rel_pos_bias"] = _randn(1, heads, LEN, CLEN, seed=3)
    return (x, context), kwargs


def _keep(batch: int, length: int) -> Any:
    import torch

    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[:, -1] = False
    return mask


def _attention(name: str) -> Built:
    from bidirectional_cross_attention import BidirectionalCrossAttention

    keywords, options = ATTENTION[name]
    model = BidirectionalCrossAttention(**({"dim": DIM} if name == "BCA.defaults" else {**BASE, **keywords}))
    if "double" in options:
        model = model.double()
    args, kwargs = _inputs(options, heads=keywords.get("heads", 8 if name == "BCA.defaults" else HEADS))
    return model, args, kwargs


def _transformer(name: str) -> Built:
    from bidirectional_cross_attention import BidirectionalCrossAttentionTransformer

    keywords, options = TRANSFORMER[name]
    model = BidirectionalCrossAttentionTransformer(**BASE, **keywords)
    args, kwargs = _inputs(options)
    return model, args, kwargs


def _fusion(masked: bool) -> Any:
    from bidirectional_cross_attention import BidirectionalCrossAttention
    from torch import nn

    class FusionClassifier(nn.Module):
        """Video frames and audio frames fused by bidirectional cross attention, both streams pooled."""

        def __init__(self) -> None:
            super().__init__()
            self.video_proj = nn.Linear(20, DIM)
            self.audio_proj = nn.Linear(10, CONTEXT)
            self.cross = BidirectionalCrossAttention(dim=DIM, context_dim=CONTEXT, heads=HEADS, dim_head=DIM_HEAD,
                                                     prenorm=True)
            self.head = nn.Linear(DIM + CONTEXT, CLASSES)

        def forward(self, video: Any, audio: Any, video_mask: Any = None, audio_mask: Any = None) -> Any:
            v, a = self.video_proj(video), self.audio_proj(audio)
            dv, da = self.cross(v, a, mask=video_mask if masked else None,
                                context_mask=audio_mask if masked else None)
            v, a = v + dv, a + da
            if masked:
                v = (v * video_mask[..., None]).sum(1) / video_mask.sum(1, keepdim=True)
                a = (a * audio_mask[..., None]).sum(1) / audio_mask.sum(1, keepdim=True)
            else:
                v, a = v.mean(1), a.mean(1)
            return self.head(_cat(v, a))

    return FusionClassifier()


def _cat(a: Any, b: Any) -> Any:
    import torch

    return torch.cat((a, b), dim=-1)


def _user_inputs() -> tuple[Any, ...]:
    import gt_inputs

    return (_randn(BATCH, LEN, 20), _randn(BATCH, CLEN, 10, seed=2), gt_inputs.padding_mask(BATCH, LEN, 2),
            gt_inputs.padding_mask(BATCH, CLEN, 1))


def _user(name: str) -> Built:
    import torch
    from bidirectional_cross_attention import BidirectionalCrossAttention, BidirectionalCrossAttentionTransformer
    from torch import nn

    import gt_inputs
    from gt_calls import Run

    if name.startswith("FusionClassifier"):
        masked = name.endswith("masks")
        model = _fusion(masked)
        return Run(model, lambda owner, *t: owner(*t), [BidirectionalCrossAttention]), _user_inputs(), {}
    x, context = _randn(BATCH, LEN, DIM), _randn(BATCH, CLEN, DIM, seed=2)
    if name == "TextImageMatcher.attn_maps":
        cross = BidirectionalCrossAttention(**BASE, prenorm=True, talking_heads=True)

        def match(owner: Any, text: Any, image: Any) -> Any:
            out, context_out, attn, context_attn = owner(text, image, return_attn=True)
            alignment = attn.mean(1) * context_attn.mean(1)
            return (out.mean(1) * context_out.mean(1)).sum(-1), alignment.amax(-1)

        return Run(cross, match, [BidirectionalCrossAttention]), (x, context), {}
    if name == "DistanceBias.per_call":
        parts = nn.ModuleDict({"cross": BidirectionalCrossAttention(**BASE), "slopes": nn.Embedding(HEADS, 1)})

        def biased(owner: Any, a: Any, b: Any) -> Any:
            i = torch.arange(a.shape[1], device=a.device)[:, None]
            j = torch.arange(b.shape[1], device=a.device)[None, :]
            distance = (i - j).abs().float()
            bias = -owner["slopes"].weight.abs()[:, :, None] * distance
            return owner["cross"](a, b, rel_pos_bias=bias[None])

        return Run(parts, biased, [BidirectionalCrossAttention]), (x, context), {}
    # CrossModalEncoder.masks: a transformer over two embedded token streams with their padding masks
    parts = nn.ModuleDict({"emb": nn.Embedding(30, DIM), "cemb": nn.Embedding(30, CONTEXT),
                           "encoder": BidirectionalCrossAttentionTransformer(**BASE, depth=2, context_dim=CONTEXT)})
    tokens, ctokens = gt_inputs.tokens(30, BATCH, LEN, seed=4), gt_inputs.tokens(30, BATCH, CLEN, seed=5)

    def encode(owner: Any, t: Any, c: Any, m: Any, cm: Any) -> Any:
        return owner["encoder"](owner["emb"](t), owner["cemb"](c), mask=m, context_mask=cm)

    return (Run(parts, encode, [BidirectionalCrossAttentionTransformer]),
            (tokens, ctokens, gt_inputs.padding_mask(BATCH, LEN, 2), gt_inputs.padding_mask(BATCH, CLEN, 1)), {})


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from bidirectional_cross_attention import BidirectionalCrossAttention, BidirectionalCrossAttentionTransformer

    from gt_calls import Run

    labels = torch.tensor([1, 3])
    if name == "train.FusionClassifier.adam":
        model: Any = _fusion(True)
        optimizer: Any = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs = _user_inputs()
        entries: list[Any] = [BidirectionalCrossAttention]

        def loss_fn(owner: Any, *t: Any) -> Any:
            return F.cross_entropy(owner(*t), labels)
    elif name == "train.BCATransformer.sgd":
        model = BidirectionalCrossAttentionTransformer(**BASE, depth=2, context_dim=CONTEXT)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        inputs = (_randn(BATCH, LEN, DIM), _randn(BATCH, CLEN, CONTEXT, seed=2))
        entries = [BidirectionalCrossAttentionTransformer]

        def loss_fn(owner: Any, *t: Any) -> Any:
            out, context_out = owner(*t)
            return out.pow(2).mean() + context_out.pow(2).mean()
    elif name == "train.BCATransformer.checkpoint.adam":
        from torch.utils.checkpoint import checkpoint

        model = BidirectionalCrossAttentionTransformer(**BASE, depth=2)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs = (_randn(BATCH, LEN, DIM), _randn(BATCH, CLEN, DIM, seed=2))
        entries = [BidirectionalCrossAttentionTransformer]
        mask = _keep(BATCH, CLEN)

        def loss_fn(owner: Any, *t: Any) -> Any:
            out, context_out = checkpoint(owner, *t, context_mask=mask, use_reentrant=False)
            return out.pow(2).mean() + context_out.pow(2).mean()
    else:
        model = BidirectionalCrossAttention(**BASE, talking_heads=True, dropout=0.1)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        inputs = (_randn(BATCH, LEN, DIM), _randn(BATCH, CLEN, DIM, seed=2))
        entries = [BidirectionalCrossAttention]

        def loss_fn(owner: Any, *t: Any) -> Any:
            out, context_out = owner(*t)
            return F.mse_loss(out, t[0]) + F.mse_loss(context_out, t[1])

    def step(owner: Any, *t: Any) -> Any:
        """The loss, its gradients and an optimizer step (only where gradients are on)."""
        loss = loss_fn(owner, *t)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, entries), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in ATTENTION:
        return _attention(name)
    if name in TRANSFORMER:
        return _transformer(name)
    if name in USER:
        return _user(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
