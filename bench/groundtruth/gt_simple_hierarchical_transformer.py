"""Ground-truth bench, simple_hierarchical_transformer: a causal language model over several hierarchies at once.

simple-hierarchical-transformer 0.4.0 (lucidrains) exports ``HierarchicalTransformer``: token embeddings
compressed per hierarchy (a causal strided convolution for a compression factor above one, a projection
otherwise), a depth of layers that run one ``HierarchicalBlock`` per hierarchy (axial attention over the
compressed axis: full causal attention with xpos rotary embeddings, or local windowed attention, or none for a
window of zero, then a feedforward, both after an RWKV-style token shift), a ``HierarchicalMerge`` after each
layer (into the predicting hierarchy, or into all of them), final norms and logits from one hierarchy or from
all of them concatenated. ``return_loss`` adds the next-token cross-entropy (an ``ignore_index``), a
reconstruction loss per compressed hierarchy and the next-latent prediction losses (chunk summaries, latent
dynamics rolled out over several steps, static and dynamic rollout weights, three loss types or a callable);
``generate`` samples with top-k and Gumbel noise. The tables cover, at width 16, 2 heads of 8, a 32-token
vocabulary, a batch of 2 and sequences of 16:

- ``FORWARD``: ``HierarchicalTransformer`` forward: one, two and three hierarchies, depth two, window sizes
  (local attention, a window too large for its hierarchy, no attention), hierarchical strides, merging into
  all hierarchies, another predicting hierarchy, prediction from all hierarchies, per-hierarchy widths, heads
  and multipliers, a sequence shorter than ``seq_len`` (padded to the compression factor), a batch of one,
  the return flags (hierarchical token embeddings, hierarchical embeddings, logits with embeddings) and the
  ablated merge;
- ``LOSSES``: the same forward with ``return_loss``: no reconstruction, no next-latent loss or a weight per
  hierarchy, the ``mse`` loss and a callable, several rollouts (dynamic weights with given rollout weights,
  static weights), a given chunk summarizer, padding ids ignored under another ``ignore_index``;
- ``GENERATE``: ``HierarchicalTransformer.generate`` through ``gt_calls.Method`` (4 tokens from a prompt of 4,
  or from a prompt that fills the window), temperature and top-k threshold, strides with prediction from all
  hierarchies;
- ``TRAIN``: training steps: the total loss backward with an Adam step (two hierarchies; strides merged into
  all; three rollouts over summaries not detached);
- ``PARTS``: ``HierarchicalBlock``, ``Attention``, ``Attend`` (causal or with a key mask, the flash path
  through ``scaled_dot_product_attention``), ``Compress`` and its ``recon``, ``HierarchicalMerge``,
  ``CausalConv``, ``RMSNorm``, ``FeedForward``, ``MSECosineSimLoss``, ``CausalChunkSummarizer``,
  ``NextLatDynamics`` and ``compute_next_latent_losses``;
- ``FUNCTIONS``: the helpers through ``gt_calls.Call``: ``token_shift``, ``hierarchical_cat``,
  ``pad_seq_to_multiple``, ``curtail_seq_to_multiple``, ``top_k``, ``gumbel_sample``.

``use_flash_attn`` of ``HierarchicalTransformer`` reaches no attention module (it is not passed down), so the
flash path is covered through ``Attend`` and ``Attention`` alone. Random weights and inputs from fixed
generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, HEADS, DIM_HEAD, BATCH, SEQ = 32, 16, 2, 8, 2, 16
GEN_LEN, PROMPT = 4, 4
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": 1, "seq_len": SEQ, "dim_head": DIM_HEAD,
                        "heads": HEADS, "ff_mult": 2}
H2: dict[str, Any] = {"hierarchies": (1, 2)}
H3: dict[str, Any] = {"hierarchies": (1, 2, 4)}
STRIDE: dict[str, Any] = {"hierarchies": (1, 4), "hierarchical_stride": (1, 2)}
WINDOWS: dict[str, Any] = {**H2, "window_sizes": (4, None)}
LOSS: dict[str, Any] = {"return_loss": True}

# ``HierarchicalTransformer`` forward name -> (keywords over ``BASE``, ids: "ids", "loss" (one longer, for
# ``return_loss``), "short" (11 tokens), "batch1", "padded" (trailing padding ids), forward keywords).
FORWARD: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "HierarchicalTransformer": ({}, "ids", {}),
    "HierarchicalTransformer.h1_2": (H2, "ids", {}),
    "HierarchicalTransformer.h1_2_4": (H3, "ids", {}),
    "HierarchicalTransformer.h2_4": ({"hierarchies": (2, 4)}, "ids", {}),
    "HierarchicalTransformer.h1_2.depth2": ({**H2, "depth": 2}, "ids", {}),
    "HierarchicalTransformer.windows": (WINDOWS, "ids", {}),
    "HierarchicalTransformer.windows.all": ({**H2, "window_sizes": 4}, "ids", {}),
    "HierarchicalTransformer.window_too_large": ({**H2, "window_sizes": (16, 16)}, "ids", {}),
    "HierarchicalTransformer.no_attn": ({**H2, "window_sizes": (4, 0)}, "ids", {}),
    "HierarchicalTransformer.stride": (STRIDE, "ids", {}),
    "HierarchicalTransformer.stride_full": ({"hierarchies": (1, 4), "hierarchical_stride": (1, 4)}, "ids", {}),
    "HierarchicalTransformer.merge_all": ({**H2, "hierarchy_merge_all": True}, "ids", {}),
    "HierarchicalTransformer.merge_all.stride": ({**STRIDE, "hierarchy_merge_all": True}, "ids", {}),
    "HierarchicalTransformer.predict_hierarchy2": ({**H2, "predict_hierarchy": 2}, "ids", {}),
    "HierarchicalTransformer.predict_all": ({**H2, "predict_use_all_hierarchy": True}, "ids", {}),
    "HierarchicalTransformer.predict_all.stride": ({**STRIDE, "predict_use_all_hierarchy": True}, "ids", {}),
    "HierarchicalTransformer.dims": ({**H2, "dim": (16, 8), "heads": (2, 1), "dim_head": (8, 8),
                                      "ff_mult": (2, 4)}, "ids", {}),
    "HierarchicalTransformer.short": (H3, "short", {}),
    "HierarchicalTransformer.batch1": (H2, "batch1", {}),
    "HierarchicalTransformer.token_embeds": (H2, "ids", {"return_hierarchical_token_embeds": True}),
    "HierarchicalTransformer.embeds": (H2, "ids", {"return_hierarchical_embeds": True}),
    "HierarchicalTransformer.logits_and_embeds": (H2, "ids", {"return_logits_and_embeds": True}),
    "HierarchicalTransformer.ablate_merge": (H2, "ids", {"ablate_hierarchical_merge": True}),
}
# The same forward with ``return_loss``.
LOSSES: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "HierarchicalTransformer.loss": ({}, "loss", LOSS),
    "HierarchicalTransformer.h1_2.loss": (H2, "loss", LOSS),
    "HierarchicalTransformer.h1_2_4.loss": (H3, "loss", LOSS),
    "HierarchicalTransformer.h1_2.depth2.loss": ({**H2, "depth": 2}, "loss", LOSS),
    "HierarchicalTransformer.windows.loss": (WINDOWS, "loss", LOSS),
    "HierarchicalTransformer.no_attn.loss": ({**H2, "window_sizes": (4, 0)}, "loss", LOSS),
    "HierarchicalTransformer.stride.loss": (STRIDE, "loss", LOSS),
    "HierarchicalTransformer.merge_all.stride.loss": ({**STRIDE, "hierarchy_merge_all": True}, "loss", LOSS),
    "HierarchicalTransformer.predict_all.loss": ({**H2, "predict_use_all_hierarchy": True}, "loss", LOSS),
    "HierarchicalTransformer.dims.loss": ({**H2, "dim": (16, 8)}, "loss", LOSS),
    "HierarchicalTransformer.no_recon.loss": ({**H2, "recon_loss_weight": 0.}, "loss", LOSS),
    "HierarchicalTransformer.no_next_latent.loss": ({**H2, "next_latent_loss_weight": 0.}, "loss", LOSS),
    "HierarchicalTransformer.next_latent_weights.loss": ({**H2, "next_latent_loss_weight": (0.25, 0.)}, "loss",
                                                        LOSS),
    "HierarchicalTransformer.mse.loss": ({**H2, "next_latent_loss_type": "mse"}, "loss", LOSS),
    "HierarchicalTransformer.callable_loss.loss": ({**H2, "next_latent_loss_type": "l1"}, "loss", LOSS),
    "HierarchicalTransformer.rollouts3.weights.loss": ({**H2, "num_rollouts": 3, "rollout_weights": (1., .5, .25),
                                                       "dynamic_loss_decay": 0.5}, "loss", LOSS),
    "HierarchicalTransformer.rollouts2.static.loss": ({**H2, "num_rollouts": 2, "dynamic_rollout_loss_weight": False},
                                                     "loss", LOSS),
    "HierarchicalTransformer.chunk_summarizer.loss": ({**H2, "chunk_summarizers": "given"}, "loss", LOSS),
    "HierarchicalTransformer.ignore_index.loss": ({**H2, "ignore_index": TOKENS - 1}, "padded", LOSS),
}
# ``generate`` name -> (keywords over ``BASE``, prompt length, fixed keywords of ``generate``).
GENERATE: dict[str, tuple[dict[str, Any], int, dict[str, Any]]] = {
    "generate": ({}, PROMPT, {}),
    "generate.h1_2_4.full_window": (H3, SEQ, {}),
    "generate.sampling": (H2, PROMPT, {"temperature": 0.5, "filter_thres": 0.5}),
    "generate.stride.predict_all": ({**STRIDE, "predict_use_all_hierarchy": True}, PROMPT, {}),
}
# Training step name -> keywords over ``BASE``: the total loss backward and an Adam step.
TRAIN: dict[str, dict[str, Any]] = {
    "train.HierarchicalTransformer.h1_2": H2,
    "train.HierarchicalTransformer.stride.merge_all": {**STRIDE, "hierarchy_merge_all": True},
    "train.HierarchicalTransformer.rollouts3.no_detach": {**H2, "num_rollouts": 3, "detach_summaries": False},
}
PARTS = ("HierarchicalBlock", "HierarchicalBlock.window", "HierarchicalBlock.no_attn", "HierarchicalBlock.compress2",
         "HierarchicalBlock.compress4.stride2", "HierarchicalBlock.compress4.window", "Attention", "Attention.flash",
         "Attend.causal", "Attend.mask", "Attend.flash.causal", "Attend.flash.mask", "Compress.none",
         "Compress.project", "Compress.factor2", "Compress.factor4.stride2", "Compress.recon",
         "Compress.recon.stride2", "Compress.recon.none", "HierarchicalMerge", "HierarchicalMerge.stride",
         "CausalConv", "RMSNorm", "FeedForward", "MSECosineSimLoss", "CausalChunkSummarizer",
         "CausalChunkSummarizer.factor4", "CausalChunkSummarizer.factor4.stride2", "NextLatDynamics",
         "compute_next_latent_losses")
# Function name -> (function, inputs (names of ``_tensors``), fixed keywords).
FUNCTIONS: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "token_shift": ("token_shift", ("x",), {}),
    "hierarchical_cat": ("hierarchical_cat", ("same",), {"strides": (1, 1)}),
    "hierarchical_cat.strides": ("hierarchical_cat", ("strided",), {"strides": (1, 2)}),
    "pad_seq_to_multiple": ("pad_seq_to_multiple", ("x11",), {"mult": 4}),
    "pad_seq_to_multiple.exact": ("pad_seq_to_multiple", ("x",), {"mult": 4}),
    "curtail_seq_to_multiple": ("curtail_seq_to_multiple", ("x11",), {"mult": 4}),
    "curtail_seq_to_multiple.exact": ("curtail_seq_to_multiple", ("x",), {"mult": 4}),
    "top_k": ("top_k", ("logits",), {"thres": 0.75}),
    "gumbel_sample": ("gumbel_sample", ("logits",), {"temperature": 0.7}),
}


def names() -> list[str]:
    return [*FORWARD, *LOSSES, *GENERATE, *TRAIN, *PARTS, *FUNCTIONS]


def _ids(kind: str = "ids", ignore: int = 0, seed: int = 1) -> Any:
    """Token ids in ``[1, TOKENS - 1)``: batch x 16 ("ids"), 17 ("loss", "padded": the last ids of one row and
    the last of the other are ``ignore``), 11 ("short"), or one row of 16 ("batch1")."""
    import torch

    batch = 1 if kind == "batch1" else BATCH
    length = {"loss": SEQ + 1, "padded": SEQ + 1, "short": 11}.get(kind, SEQ)
    ids = torch.randint(1, TOKENS - 1, (batch, length), generator=torch.Generator().manual_seed(seed))
    if kind == "padded":
        ids[0, -5:] = ignore
        ids[1, -1:] = ignore
    return ids


def _randn(*shape: int, seed: int = 2) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _model(keywords: dict[str, Any]) -> Any:
    import functools

    import torch.nn.functional as F

    from simple_hierarchical_transformer import HierarchicalTransformer
    from simple_hierarchical_transformer.simple_hierarchical_transformer import CausalChunkSummarizer

    keywords = {**BASE, **keywords}
    if keywords.get("next_latent_loss_type") == "l1":
        keywords["next_latent_loss_type"] = functools.partial(F.l1_loss, reduction="none")
    if keywords.get("chunk_summarizers") == "given":
        keywords["chunk_summarizers"] = (CausalChunkSummarizer(dim_in=DIM, dim_out=DIM, compress_factor=2), None)
    return HierarchicalTransformer(**keywords)


def _train(keywords: dict[str, Any]) -> Built:
    import torch

    from gt_calls import Run
    from simple_hierarchical_transformer import HierarchicalTransformer

    model = _model(keywords)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(owner: Any, ids: Any) -> Any:
        """The total loss (next token, reconstruction, next latent), backward and an Adam step."""
        loss, _ = owner(ids, return_loss=True)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, [HierarchicalTransformer]), (_ids("loss"),), {}


def _part(name: str) -> Built:
    import torch

    from gt_calls import Method
    from simple_hierarchical_transformer import simple_hierarchical_transformer as sht
    from simple_hierarchical_transformer.attention import Attend

    x = _randn(BATCH, SEQ, DIM)
    block = {"dim": DIM, "dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2}
    if name.startswith("HierarchicalBlock"):
        keywords: dict[str, Any] = {
            "HierarchicalBlock": {},
            "HierarchicalBlock.window": {"window_size": 4},
            "HierarchicalBlock.no_attn": {"window_size": 0},
            "HierarchicalBlock.compress2": {"compress_factor": 2},
            "HierarchicalBlock.compress4.stride2": {"compress_factor": 4, "stride": 2},
            "HierarchicalBlock.compress4.window": {"compress_factor": 4, "window_size": 2},
        }[name]
        length = SEQ // keywords.get("stride", 1)
        return sht.HierarchicalBlock(**block, **keywords), (_randn(BATCH, length, DIM),), {}
    if name.startswith("Attention"):
        return sht.Attention(DIM, DIM_HEAD, HEADS, use_flash_attn=name.endswith("flash")), (x,), {}
    if name.startswith("Attend"):
        q, k, v = (_randn(BATCH, HEADS, SEQ, DIM_HEAD, seed=seed) for seed in (3, 4, 5))
        attend = Attend(causal=name.endswith("causal"), use_flash_attn=".flash" in name)
        if name.endswith("mask"):
            mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
            mask[0, -6:] = False
            return attend, (q, k, v, mask), {}
        return attend, (q, k, v), {}
    if name.startswith("Compress.recon"):
        factor, stride = {"Compress.recon": (2, 1), "Compress.recon.stride2": (4, 2),
                          "Compress.recon.none": (1, 1)}[name]
        compress = sht.Compress(dim=DIM, dim_out=8, num_tokens=TOKENS, compress_factor=factor, stride=stride,
                                should_recon=True)
        return Method(compress, "recon"), (_randn(BATCH, SEQ // stride, 8), _ids()), {}
    if name.startswith("Compress"):
        dim_out, factor, stride = {"Compress.none": (DIM, 1, 1), "Compress.project": (8, 1, 1),
                                   "Compress.factor2": (8, 2, 1), "Compress.factor4.stride2": (DIM, 4, 2)}[name]
        compress = sht.Compress(dim=DIM, dim_out=dim_out, num_tokens=TOKENS, compress_factor=factor, stride=stride)
        return compress, (x,), {}
    if name.startswith("HierarchicalMerge"):
        strides = (1, 2) if name.endswith("stride") else (1, 1)
        tokens = [x, _randn(BATCH, SEQ // strides[1], 8, seed=3)]
        return sht.HierarchicalMerge(dims=(DIM, 8), dim_out=DIM, h_strides=strides), (tokens,), {}
    if name == "CausalConv":
        return sht.CausalConv(DIM, 8, 3), (_randn(BATCH, DIM, SEQ),), {}
    if name == "RMSNorm":
        return sht.RMSNorm(DIM), (x,), {}
    if name == "FeedForward":
        return sht.FeedForward(DIM, mult=2), (x,), {}
    if name == "MSECosineSimLoss":
        return sht.MSECosineSimLoss(weight=0.8), (x, _randn(BATCH, SEQ, DIM, seed=3)), {}
    if name.startswith("CausalChunkSummarizer"):
        factor, stride = {"CausalChunkSummarizer": (1, 1), "CausalChunkSummarizer.factor4": (4, 1),
                          "CausalChunkSummarizer.factor4.stride2": (4, 2)}[name]
        return sht.CausalChunkSummarizer(dim_in=DIM, dim_out=8, compress_factor=factor, stride=stride), (x,), {}
    if name == "NextLatDynamics":
        dynamics = sht.NextLatDynamics(DIM, hidden_dim=32, num_layers=2)
        torch.nn.init.normal_(dynamics.net[-1].weight, std=0.02)
        return dynamics, (x, _randn(BATCH, SEQ, DIM, seed=3)), {}
    if name == "compute_next_latent_losses":
        model = _model({**H2, "num_rollouts": 2})
        embeds = [_randn(BATCH, SEQ, DIM, seed=seed) for seed in (3, 4)]
        return Method(model, "compute_next_latent_losses"), (embeds, x, _ids("padded")[:, :-1]), {}
    raise KeyError(name)


def _function(name: str) -> Built:
    from gt_calls import Call
    from simple_hierarchical_transformer import simple_hierarchical_transformer as sht

    function, inputs, static = FUNCTIONS[name]
    tensors = {
        "x": lambda: _randn(BATCH, SEQ, DIM),
        "x11": lambda: _randn(BATCH, 11, DIM),
        "same": lambda: [_randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, 8, seed=3)],
        "strided": lambda: [_randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ // 2, 8, seed=3)],
        "logits": lambda: _randn(BATCH, TOKENS),
    }
    return Call(getattr(sht, function), **static), tuple(tensors[i]() for i in inputs), {}


def build(name: str) -> Built:
    import warnings

    import torch

    from gt_calls import Method

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in FORWARD or name in LOSSES:
        keywords, ids, call = FORWARD[name] if name in FORWARD else LOSSES[name]
        ignore = keywords.get("ignore_index", 0)
        return _model(keywords), (_ids(ids, ignore=ignore),), dict(call)
    if name in GENERATE:
        keywords, prompt, static = GENERATE[name]
        ids = _ids()[:, :prompt]
        return Method(_model(keywords), "generate", seq_len=GEN_LEN, **static), (ids,), {}
    if name in TRAIN:
        return _train(TRAIN[name])
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    raise KeyError(name)
