"""Ground-truth bench, hourglass_transformer_pytorch: hierarchical (hourglass) transformers, their parts and LMs.

hourglass-transformer-pytorch 0.0.6 (lucidrains) implements "Hierarchical Transformers Are More Efficient
Language Models" (Nawrot et al. 2021): a pre-transformer over the full sequence, a shortening step (an average
pool or a linear projection of ``s`` tokens, after a shift by ``s - 1`` when causal), an optional "attention
resampling" (the pooled token attends to the tokens it pooled, and back after the valley), a valley that is a
plain ``Transformer`` or another hourglass (nested, one shortening factor per level), the upsampling (a repeat or
a linear projection) with a residual, and a post-transformer. ``HourglassTransformerLM`` puts token and
absolute position embeddings and a logits head around it (``get_hourglass_transformer`` picks a plain
transformer for an integer depth); ``AutoregressiveWrapper`` gives the next-token loss and a top-k sampling
``generate``. The tables cover, at width 16, 2 heads of 8, a 32-token vocabulary, a batch of 2 and sequences of
16 (12 for a shortening factor of 3):

- ``LM``: ``HourglassTransformerLM`` forward: naive and linear resampling, with and without attention
  resampling, shortening factors 2, 3 and 4, nested valleys (two and three levels, a factor per level or one
  for all), causal and bidirectional, a key padding mask (causal, bidirectional, nested, without resampling), an
  integer depth (a plain transformer), one head, a batch of one, a sequence shorter than ``max_seq_len``;
- ``HOURGLASS``: ``HourglassTransformer`` on features: causal or not, linear, an output norm, masks, nested;
- ``PARTS``: ``Transformer`` and ``Attention`` (causal, a key mask, a context of another length, dropout,
  an output norm), ``PreNormResidual``, the four down / up samplers, ``pad_to_multiple`` and ``top_k``;
- ``WRAPPER``: ``AutoregressiveWrapper`` forward (the loss; a mask, nested, an integer depth) and ``generate``
  through ``gt_calls.Method`` (a plain transformer from a short prompt; an hourglass from a prompt of
  ``max_seq_len``, so every window is a multiple of the shortening factor; temperature and top-k threshold, an
  end token, a mask over the window);
- ``TRAIN``: training steps: the wrapper's loss backward with an Adam step, the LM's cross-entropy under a mask,
  a regression on ``HourglassTransformer`` features.

Left out: sequences whose length is not a multiple of the shortening factor (``pad_to_multiple`` then needs
``math``, which the module does not import) and an end token that every row reaches in ``generate`` (it names
an undefined ``is_eos_tokens``): both raise in eager mode too. Random weights, nothing downloaded; ``names()``
needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, HEADS, DIM_HEAD, BATCH, SEQ = 32, 16, 2, 8, 2, 16
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "max_seq_len": SEQ, "depth": (1, 1, 1),
                        "shorten_factor": 2, "heads": HEADS, "dim_head": DIM_HEAD}
NESTED: dict[str, Any] = {"depth": (1, (1, 1, 1), 1), "shorten_factor": (2, 2)}
NESTED3: dict[str, Any] = {"depth": (1, (1, (1, 1, 1), 1), 1), "shorten_factor": (2, 2, 2)}
PLAIN: dict[str, Any] = {"depth": 2, "shorten_factor": None}
LINEAR: dict[str, Any] = {"updown_sample_type": "linear"}
NO_RESAMPLING: dict[str, Any] = {"attn_resampling": False}
BIDIRECTIONAL: dict[str, Any] = {"causal": False}

# ``HourglassTransformerLM`` name -> (keywords over ``BASE``, sequence length, batch, key padding mask or not).
LM: dict[str, tuple[dict[str, Any], int, int, bool]] = {
    "HourglassTransformerLM": ({}, SEQ, BATCH, False),
    "HourglassTransformerLM.linear": (LINEAR, SEQ, BATCH, False),
    "HourglassTransformerLM.no_attn_resampling": (NO_RESAMPLING, SEQ, BATCH, False),
    "HourglassTransformerLM.linear.no_attn_resampling": ({**LINEAR, **NO_RESAMPLING}, SEQ, BATCH, False),
    "HourglassTransformerLM.shorten3": ({"shorten_factor": 3}, 12, BATCH, False),
    "HourglassTransformerLM.shorten4": ({"shorten_factor": 4}, SEQ, BATCH, False),
    "HourglassTransformerLM.depth2_1_2": ({"depth": (2, 1, 2)}, SEQ, BATCH, False),
    "HourglassTransformerLM.nested": (NESTED, SEQ, BATCH, False),
    "HourglassTransformerLM.nested.one_factor": ({**NESTED, "shorten_factor": 2}, SEQ, BATCH, False),
    "HourglassTransformerLM.nested3": (NESTED3, SEQ, BATCH, False),
    "HourglassTransformerLM.nested.linear": ({**NESTED, **LINEAR}, SEQ, BATCH, False),
    "HourglassTransformerLM.nested.no_attn_resampling": ({**NESTED, **NO_RESAMPLING}, SEQ, BATCH, False),
    "HourglassTransformerLM.bidirectional": (BIDIRECTIONAL, SEQ, BATCH, False),
    "HourglassTransformerLM.bidirectional.linear": ({**BIDIRECTIONAL, **LINEAR}, SEQ, BATCH, False),
    "HourglassTransformerLM.bidirectional.nested": ({**BIDIRECTIONAL, **NESTED}, SEQ, BATCH, False),
    "HourglassTransformerLM.mask": ({}, SEQ, BATCH, True),
    "HourglassTransformerLM.bidirectional.mask": (BIDIRECTIONAL, SEQ, BATCH, True),
    "HourglassTransformerLM.nested.mask": (NESTED, SEQ, BATCH, True),
    "HourglassTransformerLM.no_attn_resampling.mask": (NO_RESAMPLING, SEQ, BATCH, True),
    "HourglassTransformerLM.linear.shorten4.mask": ({**LINEAR, "shorten_factor": 4}, SEQ, BATCH, True),
    "HourglassTransformerLM.plain": (PLAIN, SEQ, BATCH, False),
    "HourglassTransformerLM.plain.mask": (PLAIN, SEQ, BATCH, True),
    "HourglassTransformerLM.plain.bidirectional": ({**PLAIN, **BIDIRECTIONAL}, SEQ, BATCH, False),
    "HourglassTransformerLM.heads1.dim_head16": ({"heads": 1, "dim_head": 16}, SEQ, BATCH, False),
    "HourglassTransformerLM.batch1": ({}, SEQ, 1, False),
    "HourglassTransformerLM.short_seq": ({}, 8, BATCH, False),
}
# ``HourglassTransformer`` name -> (keywords, key padding mask or not).
HG_BASE: dict[str, Any] = {"dim": DIM, "depth": (1, 1, 1), "heads": HEADS, "dim_head": DIM_HEAD}
HOURGLASS: dict[str, tuple[dict[str, Any], bool]] = {
    "HourglassTransformer": ({}, False),
    "HourglassTransformer.causal": ({"causal": True}, False),
    "HourglassTransformer.linear": (LINEAR, False),
    "HourglassTransformer.norm_out.shorten4": ({"norm_out": True, "shorten_factor": 4}, False),
    "HourglassTransformer.mask": ({}, True),
    "HourglassTransformer.causal.mask": ({"causal": True}, True),
    "HourglassTransformer.nested.linear.mask": ({**NESTED, **LINEAR}, True),
    "HourglassTransformer.no_attn_resampling": (NO_RESAMPLING, False),
}
PARTS = ("Transformer", "Transformer.causal", "Transformer.mask", "Transformer.context", "Transformer.context.mask",
         "Transformer.dropout", "Transformer.norm_out", "Attention", "Attention.causal", "Attention.mask",
         "Attention.context.mask", "Attention.causal.context", "Attention.dropout", "PreNormResidual",
         "NaiveDownsample", "NaiveUpsample", "LinearDownsample", "LinearUpsample", "pad_to_multiple", "top_k")
# ``AutoregressiveWrapper`` name -> (LM keywords over ``BASE``, what: "loss", "loss.mask" or "generate", fixed
# ``generate`` keywords ("mask" resolved to a mask over the window)).
GEN_BASE: dict[str, Any] = {"max_seq_len": 8}
WRAPPER: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "AutoregressiveWrapper": ({}, "loss", {}),
    "AutoregressiveWrapper.mask": ({}, "loss.mask", {}),
    "AutoregressiveWrapper.nested.linear": ({**NESTED, **LINEAR}, "loss", {}),
    "AutoregressiveWrapper.plain": (PLAIN, "loss", {}),
    "generate.plain": ({**PLAIN, **GEN_BASE}, "generate", {}),
    "generate.plain.temperature": ({**PLAIN, **GEN_BASE}, "generate", {"temperature": 0.7, "filter_thres": 0.8}),
    "generate.hourglass": (GEN_BASE, "generate", {}),
    "generate.hourglass.linear": ({**GEN_BASE, **LINEAR}, "generate", {}),
    "generate.hourglass.nested": ({**GEN_BASE, **NESTED}, "generate", {}),
    "generate.hourglass.eos": (GEN_BASE, "generate", {"eos_token": TOKENS + 1}),
    "generate.plain.eos": ({**PLAIN, **GEN_BASE}, "generate", {"eos_token": TOKENS + 1}),
    "generate.hourglass.mask": (GEN_BASE, "generate", {"mask": "mask"}),
}
TRAIN = ("train.AutoregressiveWrapper.adam", "train.AutoregressiveWrapper.nested.linear.adam",
         "train.AutoregressiveWrapper.plain.adam", "train.HourglassTransformerLM.mask",
         "train.HourglassTransformer.regression")
GEN_LEN = 6


def names() -> list[str]:
    return [*LM, *HOURGLASS, *PARTS, *WRAPPER, *TRAIN]


def _ids(length: int = SEQ, batch: int = BATCH, seed: int = 1) -> Any:
    import torch

    return torch.randint(0, TOKENS, (batch, length), generator=torch.Generator().manual_seed(seed))


def _mask(length: int = SEQ, batch: int = BATCH) -> Any:
    """A key padding mask (True keeps a token): the last row's final quarter is padding."""
    import torch

    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[-1, length - length // 4:] = False
    return mask


def _features(length: int = SEQ, batch: int = BATCH, seed: int = 2) -> Any:
    import torch

    return torch.randn(batch, length, DIM, generator=torch.Generator().manual_seed(seed))


def _lm(**keywords: Any) -> Any:
    from hourglass_transformer_pytorch import HourglassTransformerLM

    return HourglassTransformerLM(**{**BASE, **keywords})


def _lm_forward(name: str) -> Built:
    keywords, length, batch, masked = LM[name]
    return _lm(**keywords), (_ids(length, batch),), {"mask": _mask(length, batch)} if masked else {}


def _hourglass(name: str) -> Built:
    from hourglass_transformer_pytorch import HourglassTransformer

    keywords, masked = HOURGLASS[name]
    return HourglassTransformer(**{**HG_BASE, **keywords}), (_features(),), {"mask": _mask()} if masked else {}


def _part(name: str) -> Built:
    import torch
    from hourglass_transformer_pytorch import hourglass_transformer_pytorch as hg
    from hourglass_transformer_pytorch.autoregressive_wrapper import top_k

    from gt_calls import Call

    x, context = _features(), _features(6, seed=3)
    context_mask = _mask(6)
    if name.startswith("Transformer"):
        keywords: dict[str, Any] = {"causal": name.endswith("causal"), "norm_out": name.endswith("norm_out")}
        if name.endswith("dropout"):
            keywords.update(attn_dropout=0.1, ff_dropout=0.1)
        model = hg.Transformer(DIM, depth=2, heads=HEADS, dim_head=DIM_HEAD, ff_mult=2, **keywords)
        if ".context" in name:
            return model, (x, context), {"mask": context_mask} if name.endswith("mask") else {}
        return model, (x,), {"mask": _mask()} if name.endswith("mask") else {}
    if name.startswith("Attention"):
        attention = hg.Attention(DIM, heads=HEADS, dim_head=DIM_HEAD, dropout=0.1 if name.endswith("dropout") else 0.0,
                                 causal=".causal" in name)
        if ".context" in name:
            return attention, (x,), {"context": context, **({"mask": context_mask} if name.endswith("mask") else {})}
        return attention, (x,), {"mask": _mask()} if name.endswith("mask") else {}
    if name == "PreNormResidual":
        return hg.PreNormResidual(DIM, hg.Attention(DIM, heads=HEADS, dim_head=DIM_HEAD)), (x,), {"mask": _mask()}
    if name == "NaiveDownsample":
        return hg.NaiveDownsample(2), (x,), {}
    if name == "NaiveUpsample":
        return hg.NaiveUpsample(2), (_features(8),), {}
    if name == "LinearDownsample":
        return hg.LinearDownsample(DIM, 4), (x,), {}
    if name == "LinearUpsample":
        return hg.LinearUpsample(DIM, 2), (_features(8),), {}
    if name == "pad_to_multiple":
        return Call(hg.pad_to_multiple, multiple=4, dim=-2), (x,), {}
    logits = torch.randn(BATCH, TOKENS, generator=torch.Generator().manual_seed(4))
    return Call(top_k, thres=0.8), (logits,), {}


def _wrapper(name: str) -> Built:
    from hourglass_transformer_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    from gt_calls import Method

    keywords, what, static = WRAPPER[name]
    lm = _lm(**keywords)
    wrapper = AutoregressiveWrapper(lm)
    if what == "loss":
        return wrapper, (_ids(SEQ + 1),), {}
    if what == "loss.mask":
        return wrapper, (_ids(SEQ + 1),), {"mask": _mask()}
    plain = isinstance(keywords.get("depth"), int)
    window = lm.max_seq_len
    static = {k: _mask(window) if v == "mask" else v for k, v in static.items()}
    # An hourglass sees every window at ``max_seq_len`` (a multiple of its factors): the prompt fills it.
    return Method(wrapper, "generate", seq_len=GEN_LEN, **static), (_ids(4 if plain else window),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from hourglass_transformer_pytorch import HourglassTransformer, HourglassTransformerLM
    from hourglass_transformer_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    from gt_calls import Run

    if name.startswith("train.AutoregressiveWrapper"):
        keywords = {".nested.linear": {**NESTED, **LINEAR}, ".plain": PLAIN}
        variant = next((v for k, v in keywords.items() if k in name), {})
        wrapper = AutoregressiveWrapper(_lm(**variant))
        optimizer = torch.optim.Adam(wrapper.parameters(), lr=1e-3)

        def step(owner: Any, ids: Any) -> Any:
            """The next-token loss, its gradients and an Adam step (when gradients are on)."""
            loss = owner(ids)
            if torch.is_grad_enabled():
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            return loss

        return Run(wrapper, step, [AutoregressiveWrapper, HourglassTransformerLM]), (_ids(SEQ + 1),), {}
    if name == "train.HourglassTransformerLM.mask":
        def masked_step(owner: Any, ids: Any, mask: Any) -> Any:
            """Cross-entropy of the logits, averaged over the kept tokens, backward."""
            logits = owner(ids, mask=mask)
            losses = F.cross_entropy(logits.transpose(1, 2), ids, reduction="none")
            loss = (losses * mask).sum() / mask.sum()
            if torch.is_grad_enabled():
                loss.backward()
            return loss

        return Run(_lm(), masked_step, [HourglassTransformerLM]), (_ids(), _mask()), {}
    model = HourglassTransformer(**{**HG_BASE, "updown_sample_type": "linear"})

    def regression(owner: Any, x: Any, target: Any) -> Any:
        """Mean squared error of the features against a target, backward."""
        loss = F.mse_loss(owner(x), target)
        if torch.is_grad_enabled():
            loss.backward()
        return loss

    return Run(model, regression, [HourglassTransformer]), (_features(), _features(seed=5)), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in LM:
        return _lm_forward(name)
    if name in HOURGLASS:
        return _hourglass(name)
    if name in PARTS:
        return _part(name)
    if name in WRAPPER:
        return _wrapper(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
