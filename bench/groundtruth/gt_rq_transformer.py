"""Ground-truth bench, rq_transformer: residual-quantized and hierarchical causal transformers over code grids.

RQ-transformer 0.1.9 (lucidrains) has two autoregressive models over token grids. ``RQTransformer`` predicts a
``(space, depth)`` grid of residual-quantization codes: token and depth embeddings are summed along the depth
axis and a spatial causal transformer (after a learned start token) runs over positions; its outputs become the
start tokens of a depth transformer over each position's codes. Flattened ``(batch, seq)`` ids are padded to a
multiple of the depth, an empty input runs ``forward_empty``, ``return_loss`` gives a cross-entropy ignoring the
pad id, and ``generate`` samples the whole grid (top-k filtering and Gumbel sampling, from a prime or from
nothing). ``HierarchicalCausalTransformer`` generalises it to any number of stages (``depth`` and
``max_seq_len`` tuples): each stage sums the finer tokens, adds an absolute position embedding and runs a causal
transformer with an optional ALiBi bias (``Alibi``, cached in a buffer it registers on first use), passing each
position's output down as the next stage's start token; it reshapes with ``einops_exts``'s anonymous
dimensions. The tables cover, at width 16, 2 heads of 8, 24 tokens, a batch of 2:

- ``RQ``: ``RQTransformer`` forward: grids and flattened ids (a multiple of the depth and padded), a loss from
  either, an empty input, a prime shorter than the grid, several layers, dropout, one head, a batch of one, a
  pad id (flattened ids that need padding give a loss whose targets keep the padding and fail eagerly, so every
  loss on flattened ids uses a multiple of the depth);
- ``HCT``: ``HierarchicalCausalTransformer`` forward: two and three stages, grid and flattened ids (padded), a
  loss, an empty input, no ALiBi, a head count that is not a power of two (ALiBi's interleaved slopes), dropout;
- ``GENERATE``: ``generate`` of both: from nothing (a default batch size), from a prime, a temperature and a
  filter threshold, three stages, no ALiBi;
- ``PARTS``: the parts on their own: both ``Attention`` layers (the hierarchical one with an ALiBi bias),
  both ``Transformer`` stacks, ``Alibi`` (first call and cached), ``RMSNorm``, both modules' ``top_k`` and
  ``gumbel_sample``;
- ``TRAIN``: training steps: each model's loss with Adam, flattened ids with SGD, a code-grid prior over a
  frozen residual quantizer's indices with AdamW, each model under activation checkpointing
  (``torch.utils.checkpoint``, non-reentrant) with Adam, and a user's language model on the ALiBi
  ``Transformer`` (its bias buffer registered on first use) checkpointed the same way.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HEADS, DIM_HEAD, VOCAB, SPACE, DEPTH = 2, 16, 2, 8, 24, 4, 3
RQ_BASE: dict[str, Any] = {"num_tokens": VOCAB, "dim": DIM, "max_spatial_seq_len": SPACE, "depth_seq_len": DEPTH,
                           "spatial_layers": 1, "depth_layers": 1, "dim_head": DIM_HEAD, "heads": HEADS,
                           "ff_mult": 2}
HCT_BASE: dict[str, Any] = {"num_tokens": VOCAB, "dim": DIM, "depth": (1, 1), "max_seq_len": (4, 3),
                            "dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2}
HCT3: dict[str, Any] = {"depth": (1, 1, 1), "max_seq_len": (3, 2, 2)}

# Name -> (extra keywords, input: ("grid", space) | ("flat", length) | ("empty",), options: "loss", "batch1").
RQ: dict[str, tuple[dict[str, Any], tuple[Any, ...], tuple[str, ...]]] = {
    "RQTransformer.grid": ({}, ("grid", SPACE), ()),
    "RQTransformer.grid.loss": ({}, ("grid", SPACE), ("loss",)),
    "RQTransformer.grid.prime": ({}, ("grid", 2), ()),
    "RQTransformer.flat": ({}, ("flat", SPACE * DEPTH), ()),
    "RQTransformer.flat.padded": ({}, ("flat", 7), ()),
    "RQTransformer.flat.loss": ({}, ("flat", SPACE * DEPTH), ("loss",)),
    "RQTransformer.flat.short.loss": ({}, ("flat", 2 * DEPTH), ("loss",)),
    "RQTransformer.empty": ({}, ("empty",), ()),
    "RQTransformer.layers2": ({"spatial_layers": 2, "depth_layers": 2}, ("grid", SPACE), ()),
    "RQTransformer.dropout": ({"attn_dropout": 0.1, "ff_dropout": 0.1}, ("grid", SPACE), ("loss",)),
    "RQTransformer.heads1": ({"heads": 1, "dim_head": 16}, ("flat", 5), ()),
    "RQTransformer.batch1": ({}, ("grid", SPACE), ("batch1",)),
    "RQTransformer.pad_id": ({"pad_id": 1}, ("flat", 3 * DEPTH), ("loss",)),
}
HCT: dict[str, tuple[dict[str, Any], tuple[Any, ...], tuple[str, ...]]] = {
    "HCT.grid": ({}, ("grid", 4), ()),
    "HCT.grid.loss": ({}, ("grid", 4), ("loss",)),
    "HCT.grid.prime": ({}, ("grid", 2), ()),
    "HCT.flat": ({}, ("flat", 12), ()),
    "HCT.flat.padded": ({}, ("flat", 7), ()),
    "HCT.flat.padded.loss": ({}, ("flat", 8), ("loss",)),
    "HCT.empty": ({}, ("empty",), ()),
    "HCT.no_rel_pos_bias": ({"rel_pos_bias": False}, ("grid", 4), ()),
    "HCT.no_rel_pos_bias.flat.loss": ({"rel_pos_bias": False}, ("flat", 12), ("loss",)),
    "HCT.heads3": ({"heads": 3}, ("grid", 4), ()),
    "HCT.heads6.flat": ({"heads": 6, "dim_head": 4}, ("flat", 10), ()),
    "HCT.stages3": (HCT3, ("grid", 3), ()),
    "HCT.stages3.flat.padded": (HCT3, ("flat", 9), ()),
    "HCT.stages3.loss": (HCT3, ("grid", 3), ("loss",)),
    "HCT.stages3.empty": (HCT3, ("empty",), ()),
    "HCT.depth2.dropout": ({"depth": (2, 1), "attn_dropout": 0.1, "ff_dropout": 0.1}, ("grid", 4), ("loss",)),
    "HCT.batch1.flat": ({}, ("flat", 6), ("batch1",)),
}
# Name -> (model kind "rq" | "hct", extra keywords, generate keywords, prime length (0: none)).
GENERATE: dict[str, tuple[str, dict[str, Any], dict[str, Any], int]] = {
    "RQTransformer.generate": ("rq", {"max_spatial_seq_len": 2}, {"default_batch_size": 2}, 0),
    "RQTransformer.generate.prime": ("rq", {"max_spatial_seq_len": 2}, {}, 3),
    "RQTransformer.generate.temperature.filter_thres": ("rq", {"max_spatial_seq_len": 2},
                                                        {"temperature": 0.7, "filter_thres": 0.5}, 2),
    "RQTransformer.generate.batch1": ("rq", {"max_spatial_seq_len": 2, "depth_seq_len": 2}, {}, 0),
    "HCT.generate": ("hct", {"max_seq_len": (2, 3)}, {"default_batch_size": 2}, 0),
    "HCT.generate.prime": ("hct", {"max_seq_len": (2, 3)}, {}, 4),
    "HCT.generate.temperature.filter_thres": ("hct", {"max_seq_len": (2, 3)},
                                              {"temperature": 1.3, "filter_thres": 0.75}, 2),
    "HCT.generate.no_rel_pos_bias": ("hct", {"max_seq_len": (2, 3), "rel_pos_bias": False}, {}, 3),
    "HCT.generate.stages3": ("hct", {"depth": (1, 1, 1), "max_seq_len": (2, 2, 2)}, {}, 3),
}
PARTS = ("rq.Attention", "rq.Transformer", "rq.FeedForward", "hct.Attention", "hct.Attention.alibi",
         "hct.Transformer", "hct.Transformer.no_rel_pos_bias", "hct.Alibi", "hct.Alibi.heads6", "hct.Alibi.cached",
         "hct.RMSNorm", "rq.top_k", "rq.gumbel_sample", "hct.top_k", "hct.gumbel_sample")
TRAIN = ("train.RQTransformer.adam", "train.RQTransformer.flat.sgd", "train.HCT.adam", "train.HCT.stages3.flat.sgd",
         "train.CodeGridPrior.adamw", "train.RQTransformer.checkpoint.adam", "train.HCT.checkpoint.adam",
         "train.AlibiTransformerLM.checkpoint.adam")


def names() -> list[str]:
    return [*RQ, *HCT, *GENERATE, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _tokens(*shape: int, seed: int = 2) -> Any:
    import gt_inputs

    return gt_inputs.tokens(VOCAB, *shape, seed=seed)


def _ids(spec: tuple[Any, ...], batch: int, fine: tuple[int, ...]) -> Any:
    import torch

    if spec[0] == "empty":
        return torch.empty((batch, 0), dtype=torch.long)
    if spec[0] == "flat":
        return _tokens(batch, spec[1])
    return _tokens(batch, spec[1], *fine)


def _rq(name: str) -> Built:
    from rq_transformer import RQTransformer

    keywords, spec, options = RQ[name]
    model = RQTransformer(**{**RQ_BASE, **keywords})
    ids = _ids(spec, 1 if "batch1" in options else BATCH, (DEPTH,))
    return model, (ids,), {"return_loss": True} if "loss" in options else {}


def _hct(name: str) -> Built:
    from rq_transformer import HierarchicalCausalTransformer

    keywords, spec, options = HCT[name]
    config = {**HCT_BASE, **keywords}
    model = HierarchicalCausalTransformer(**config)
    ids = _ids(spec, 1 if "batch1" in options else BATCH, tuple(config["max_seq_len"][1:]))
    return model, (ids,), {"return_loss": True} if "loss" in options else {}


def _generate(name: str) -> Built:
    from rq_transformer import HierarchicalCausalTransformer, RQTransformer

    from gt_calls import Method

    kind, keywords, call, prime = GENERATE[name]
    if kind == "rq":
        model: Any = RQTransformer(**{**RQ_BASE, **keywords})
    else:
        model = HierarchicalCausalTransformer(**{**HCT_BASE, **keywords})
    if prime == 0:
        return Method(model, "generate", **call), (), {}
    return Method(model, "generate", **call), (_tokens(BATCH, prime, seed=6),), {}


def _part(name: str) -> Built:
    from rq_transformer import hierarchical_causal_transformer as hct, rq_transformer as rq

    from gt_calls import Call, Run

    x = _randn(BATCH, 5, DIM)
    logits = _randn(BATCH, VOCAB, seed=3)
    if name == "rq.Attention":
        return rq.Attention(dim=DIM, dim_head=DIM_HEAD, heads=HEADS), (x,), {}
    if name == "rq.Transformer":
        return rq.Transformer(dim=DIM, layers=2, dim_head=DIM_HEAD, heads=HEADS, ff_mult=2), (x,), {}
    if name == "rq.FeedForward":
        return rq.FeedForward(dim=DIM, mult=2, dropout=0.1), (x,), {}
    if name == "hct.Attention":
        return hct.Attention(dim=DIM, dim_head=DIM_HEAD, heads=HEADS), (x,), {}
    if name == "hct.Attention.alibi":
        parts = hct.nn.ModuleList([hct.Attention(dim=DIM, dim_head=DIM_HEAD, heads=HEADS), hct.Alibi(HEADS)])

        def biased(owner: Any, t: Any) -> Any:
            n = t.shape[-2]
            return owner[0](t, attn_bias=owner[1](n, n, device=t.device))

        return Run(parts, biased, [hct.Attention, hct.Alibi]), (x,), {}
    if name.startswith("hct.Transformer"):
        rel = not name.endswith("no_rel_pos_bias")
        return hct.Transformer(dim=DIM, layers=2, dim_head=DIM_HEAD, heads=HEADS, ff_mult=2, rel_pos_bias=rel), (x,), {}
    if name.startswith("hct.Alibi"):
        heads = 6 if name.endswith("heads6") else HEADS
        alibi = hct.Alibi(heads)
        if name.endswith("cached"):
            alibi(8, 8, device="cpu")

        def bias(owner: Any, t: Any) -> Any:
            n = t.shape[-2]
            return owner(n, n, device=t.device) + t.sum()

        return Run(alibi, bias, [hct.Alibi]), (x,), {}
    if name == "hct.RMSNorm":
        return hct.RMSNorm(DIM), (x,), {}
    module = rq if name.startswith("rq.") else hct
    if name.endswith("top_k"):
        return Call(module.top_k, thres=0.75), (logits,), {}
    return Call(module.gumbel_sample, temperature=0.8, dim=-1), (logits,), {}


def _train(name: str) -> Built:
    import torch
    from rq_transformer import HierarchicalCausalTransformer, RQTransformer
    from rq_transformer import hierarchical_causal_transformer as hct

    from gt_calls import Run

    entries: list[Any]
    if name == "train.RQTransformer.adam":
        model: Any = RQTransformer(**RQ_BASE)
        optimizer: Any = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs: tuple[Any, ...] = (_tokens(BATCH, SPACE, DEPTH),)
        entries = [RQTransformer]
    elif name == "train.RQTransformer.flat.sgd":
        model = RQTransformer(**RQ_BASE)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        inputs = (_tokens(BATCH, 3 * DEPTH),)
        entries = [RQTransformer]
    elif name == "train.HCT.adam":
        model = HierarchicalCausalTransformer(**HCT_BASE)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs = (_tokens(BATCH, 4, 3),)
        entries = [HierarchicalCausalTransformer]
    elif name == "train.HCT.stages3.flat.sgd":
        model = HierarchicalCausalTransformer(**{**HCT_BASE, **HCT3})
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        inputs = (_tokens(BATCH, 9),)
        entries = [HierarchicalCausalTransformer]
    elif name == "train.RQTransformer.checkpoint.adam":
        model = RQTransformer(**RQ_BASE)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs = (_tokens(BATCH, SPACE, DEPTH),)
        entries = [RQTransformer]
    elif name == "train.HCT.checkpoint.adam":
        model = HierarchicalCausalTransformer(**HCT_BASE)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs = (_tokens(BATCH, 4, 3),)
        entries = [HierarchicalCausalTransformer]
    elif name == "train.AlibiTransformerLM.checkpoint.adam":
        model = _alibi_lm()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs = (_tokens(BATCH, 6),)
        entries = [hct.Transformer]
    else:
        model = _code_grid_prior()
        optimizer = torch.optim.AdamW(model.prior.parameters(), lr=1e-3)
        inputs = (_randn(BATCH, SPACE, 6),)
        entries = [RQTransformer]

    def step(owner: Any, *t: Any) -> Any:
        """The model's own loss, its gradients and an optimizer step (only where gradients are on)."""
        if "checkpoint" in name:  # the whole model under activation checkpointing
            from torch.utils.checkpoint import checkpoint

            loss = checkpoint(owner, *t, return_loss=True, use_reentrant=False)
        else:
            loss = owner(*t, return_loss=True)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, entries), inputs, {}


def _alibi_lm() -> Any:
    """A user's causal language model built on the library's ALiBi ``Transformer``, run under activation
    checkpointing (non-reentrant), with its own loss."""
    import torch.nn.functional as F
    from rq_transformer import hierarchical_causal_transformer as hct
    from torch import nn
    from torch.utils.checkpoint import checkpoint

    class AlibiTransformerLM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(VOCAB, DIM)
            self.transformer = hct.Transformer(dim=DIM, layers=2, dim_head=DIM_HEAD, heads=HEADS, ff_mult=2)
            self.to_logits = nn.Linear(DIM, VOCAB)

        def forward(self, ids: Any, return_loss: bool = False) -> Any:
            x = checkpoint(self.transformer, self.emb(ids[:, :-1]), use_reentrant=False)
            logits = self.to_logits(x)
            return F.cross_entropy(logits.transpose(1, 2), ids[:, 1:]) if return_loss else logits

    return AlibiTransformerLM()


def _code_grid_prior() -> Any:
    """A frozen residual quantizer turning features into a (space, depth) code grid, and the RQ prior over it."""
    import torch
    from rq_transformer import RQTransformer
    from torch import nn

    class CodeGridPrior(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.codebooks = nn.Parameter(torch.randn(DEPTH, VOCAB, 6), requires_grad=False)
            self.prior = RQTransformer(**RQ_BASE)

        def quantize(self, features: Any) -> Any:
            residual, codes = features, []
            for codebook in self.codebooks:
                index = torch.cdist(residual, codebook[None].expand(residual.shape[0], -1, -1)).argmin(-1)
                residual = residual - codebook[index]
                codes.append(index)
            return torch.stack(codes, dim=-1)

        def forward(self, features: Any, return_loss: bool = False) -> Any:
            with torch.no_grad():
                codes = self.quantize(features)
            return self.prior(codes, return_loss=return_loss)

    return CodeGridPrior()


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in RQ:
        return _rq(name)
    if name in HCT:
        return _hct(name)
    if name in GENERATE:
        return _generate(name)
    if name in PARTS:
        return _part(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
