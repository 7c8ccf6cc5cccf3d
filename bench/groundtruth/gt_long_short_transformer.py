"""Ground-truth bench, long_short_transformer (long-short-transformer): Long-Short Transformer (Zhu et al. 2021).

long-short-transformer 0.0.5 (lucidrains) exports ``LongShortTransformer`` (a token embedding, pre-norm layers of
``LongShortAttention`` and a GELU feedforward, a logits head) and ``LongShortAttention``: queries against keys of
their own window and the windows around it (one back, and one ahead unless causal), plus a global branch of keys
projected down to ``r`` by a learned dynamic projection (over the whole sequence when bidirectional, per segment
of ``segment_size`` with a causal segment mask when autoregressive), with rotary embeddings, padding of the
sequence to a multiple of the window (or of the window and segment sizes) and an optional key mask.
``autoregressive_wrapper`` adds ``AutoregressiveWrapper`` (the next-token loss, with a mask one longer than the
input trimmed for the user) and its ``generate`` loop (top-k filtering, temperature, a 1-d prompt, an end token,
a mask grown step by step). The tables cover, at width 16, 2 heads of 8, windows of 4, a 32-token vocabulary and a
batch of 2:

- ``TRANSFORMER``: ``LongShortTransformer`` forward: causal and bidirectional, sequences a multiple of the window or
  padded, a key mask, segment sizes, ``r`` (bidirectional only: a causal ``r`` above 1 breaks the library's
  segment mask), a wider window than the segment, two layers with dropout, one head (the bidirectional masked
  and padded paths need it: with more heads the library's mask does not broadcast);
- ``ATTENTION``: ``LongShortAttention`` alone on the same options;
- ``WRAPPER``: ``AutoregressiveWrapper`` forward (the loss, with a mask as long as the input or one shorter) and
  ``generate`` through ``gt_calls.Method`` (a 2-d or 1-d prompt, an end token, a temperature, a prompt mask);
- ``FUNCTIONS``: ``look_around`` (causal and bidirectional), ``pad_to_multiple`` (padded or already a multiple)
  and the wrapper's ``top_k`` through ``gt_calls.Call``;
- ``TRAIN``: training steps (bench code holding the library's model): the wrapper's loss backward with an Adam
  step, a bidirectional classifier's cross-entropy with an SGD step, the attention layer's MSE backward.

rotary-embedding-torch 0.9.1, the version installed, no longer takes the ``cache_key`` the library passes to its
rotary module, so every attention layer is given a bench subclass of ``RotaryEmbedding`` that accepts it (as the
sequence length to cache under, or ignored in the ``nocache`` models); the library code runs unchanged. Random
weights and inputs, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, HEADS, DIM_HEAD, BATCH, WINDOW = 32, 16, 2, 8, 2, 4
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": 1, "max_seq_len": 32, "window_size": WINDOW,
                        "heads": HEADS, "dim_head": DIM_HEAD, "ff_mult": 2}
CAUSAL: dict[str, Any] = {"causal": True, "segment_size": 4, "r": 1}
BIDIR: dict[str, Any] = {"causal": False, "r": 4}
# ``LongShortTransformer`` name -> (keywords over ``BASE``, sequence length, with a key mask, rotary caching).
TRANSFORMER: dict[str, tuple[dict[str, Any], int, bool, bool]] = {
    "LongShortTransformer.causal": (CAUSAL, 16, False, True),
    "LongShortTransformer.causal.defaults": ({"causal": True, "window_size": 16}, 16, False, True),
    "LongShortTransformer.causal.padded": (CAUSAL, 14, False, True),
    "LongShortTransformer.causal.mask": (CAUSAL, 16, True, True),
    "LongShortTransformer.causal.padded.mask": (CAUSAL, 14, True, True),
    "LongShortTransformer.causal.segment8": ({**CAUSAL, "segment_size": 8}, 16, False, True),
    "LongShortTransformer.causal.window8.padded.mask": ({**CAUSAL, "window_size": 8}, 13, True, True),
    "LongShortTransformer.causal.depth2.dropout": ({**CAUSAL, "depth": 2, "attn_dropout": 0.1, "ff_dropout": 0.1},
                                                   16, False, True),
    "LongShortTransformer.causal.nocache": (CAUSAL, 16, False, False),
    "LongShortTransformer.causal.batch1": (CAUSAL, 8, False, True),
    "LongShortTransformer.bidirectional": (BIDIR, 16, False, True),
    "LongShortTransformer.bidirectional.defaults": ({"causal": False}, 16, False, True),
    "LongShortTransformer.bidirectional.r1": ({**BIDIR, "r": 1}, 16, False, True),
    "LongShortTransformer.bidirectional.heads1.padded": ({**BIDIR, "heads": 1}, 14, False, True),
    "LongShortTransformer.bidirectional.heads1.mask": ({**BIDIR, "heads": 1}, 16, True, True),
    "LongShortTransformer.bidirectional.heads1.padded.mask": ({**BIDIR, "heads": 1}, 14, True, True),
    "LongShortTransformer.bidirectional.depth2.dropout": ({**BIDIR, "depth": 2, "attn_dropout": 0.1}, 16, False,
                                                          True),
    "LongShortTransformer.bidirectional.nocache": (BIDIR, 16, False, False),
}
ATT_CAUSAL: dict[str, Any] = {"causal": True, "segment_size": 4, "r": 1}
ATT_BIDIR: dict[str, Any] = {"causal": False, "r": 4}
# ``LongShortAttention`` name -> (keywords, sequence length, with a key mask).
ATTENTION: dict[str, tuple[dict[str, Any], int, bool]] = {
    "LongShortAttention.causal": (ATT_CAUSAL, 16, False),
    "LongShortAttention.causal.padded": (ATT_CAUSAL, 10, False),
    "LongShortAttention.causal.mask": (ATT_CAUSAL, 16, True),
    "LongShortAttention.causal.dropout": ({**ATT_CAUSAL, "dropout": 0.1}, 16, False),
    "LongShortAttention.causal.heads4": ({**ATT_CAUSAL, "heads": 4, "dim_head": 4}, 8, False),
    "LongShortAttention.bidirectional": (ATT_BIDIR, 16, False),
    "LongShortAttention.bidirectional.heads1.padded.mask": ({**ATT_BIDIR, "heads": 1}, 10, True),
    "LongShortAttention.bidirectional.window8": ({**ATT_BIDIR, "window_size": 8, "r": 2}, 16, False),
}
# ``AutoregressiveWrapper`` name -> (what runs: "loss" or "generate", prompt / input kind, fixed keywords).
WRAPPER: dict[str, tuple[str, str, dict[str, Any]]] = {
    "AutoregressiveWrapper.loss": ("loss", "ids", {}),
    "AutoregressiveWrapper.loss.mask": ("loss", "mask", {}),
    "AutoregressiveWrapper.loss.mask_shorter": ("loss", "mask_shorter", {}),
    "AutoregressiveWrapper.loss.ignore_index": ("loss", "ids", {"ignore_index": 0}),
    "AutoregressiveWrapper.generate": ("generate", "prompt", {"seq_len": 6}),
    "AutoregressiveWrapper.generate.prompt_1d": ("generate", "prompt_1d", {"seq_len": 6}),
    "AutoregressiveWrapper.generate.eos": ("generate", "prompt", {"seq_len": 6, "eos_token": 3}),
    "AutoregressiveWrapper.generate.temperature": ("generate", "prompt", {"seq_len": 6, "temperature": 0.7,
                                                                          "filter_thres": 0.8}),
    "AutoregressiveWrapper.generate.mask": ("generate", "prompt_mask", {"seq_len": 6}),
    "AutoregressiveWrapper.generate.long": ("generate", "prompt", {"seq_len": 14}),
}
# Function name -> (module under ``long_short_transformer``, function, input kind, fixed keywords).
FUNCTIONS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "look_around.causal": ("long_short_transformer", "look_around", "windows", {"backward": 1, "forward": 0}),
    "look_around.bidirectional": ("long_short_transformer", "look_around", "windows", {"backward": 1, "forward": 1}),
    "look_around.mask": ("long_short_transformer", "look_around", "mask_windows",
                         {"backward": 1, "forward": 1, "pad_value": False}),
    "pad_to_multiple.padded": ("long_short_transformer", "pad_to_multiple", "seq14", {"multiple": 4, "dim": -2}),
    "pad_to_multiple.multiple": ("long_short_transformer", "pad_to_multiple", "seq16", {"multiple": 4, "dim": -2}),
    "pad_to_multiple.mask": ("long_short_transformer", "pad_to_multiple", "mask14",
                             {"multiple": 8, "dim": -1, "value": False}),
    "top_k": ("autoregressive_wrapper", "top_k", "logits", {}),
    "top_k.thres": ("autoregressive_wrapper", "top_k", "logits", {"thres": 0.5}),
}
TRAIN = ("train.AutoregressiveWrapper.adam", "train.AutoregressiveWrapper.mask", "train.classifier.bidirectional.sgd",
         "train.LongShortAttention.causal", "train.LongShortAttention.bidirectional")


def names() -> list[str]:
    return [*TRANSFORMER, *ATTENTION, *WRAPPER, *FUNCTIONS, *TRAIN]


def _rotary(dim_head: int, cache: bool = True) -> Any:
    """A ``RotaryEmbedding`` that takes the ``cache_key`` the library passes (see the module docstring)."""
    from rotary_embedding_torch import RotaryEmbedding

    class CacheKeyRotary(RotaryEmbedding):
        def forward(self, t: Any, cache_key: int | None = None) -> Any:
            return super().forward(t, seq_len=cache_key if cache else None)

    return CacheKeyRotary(dim_head)


def _transformer(keywords: dict[str, Any], cache: bool = True) -> Any:
    from long_short_transformer import LongShortAttention, LongShortTransformer

    config = {**BASE, **keywords}
    model = LongShortTransformer(**config)
    rotary = _rotary(config["dim_head"], cache)
    for module in model.modules():
        if isinstance(module, LongShortAttention):
            module.pos_emb = rotary
    return model


def _attention(keywords: dict[str, Any]) -> Any:
    from long_short_transformer import LongShortAttention

    config = {"dim": DIM, "heads": HEADS, "dim_head": DIM_HEAD, "window_size": WINDOW, **keywords}
    return LongShortAttention(**config, pos_emb=_rotary(config["dim_head"]))


def _ids(length: int, batch: int = BATCH, seed: int = 1) -> Any:
    import torch

    return torch.randint(1, TOKENS, (batch, length), generator=torch.Generator().manual_seed(seed))


def _mask(length: int, batch: int = BATCH) -> Any:
    """A key mask: the last two positions of the last row masked out."""
    import torch

    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[-1, -2:] = False
    return mask


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _wrapper(name: str) -> Built:
    from long_short_transformer.autoregressive_wrapper import AutoregressiveWrapper

    from gt_calls import Method

    kind, inputs, fixed = WRAPPER[name]
    fixed = dict(fixed)
    ignore = {"ignore_index": fixed.pop("ignore_index")} if "ignore_index" in fixed else {}
    wrapper = AutoregressiveWrapper(_transformer(CAUSAL), **ignore)
    if kind == "loss":
        ids = _ids(17)
        if inputs == "mask":
            return wrapper, (ids,), {"mask": _mask(17)}
        if inputs == "mask_shorter":
            return wrapper, (ids,), {"mask": _mask(16)}
        return wrapper, (ids,), {}
    prompt = _ids(4)
    if inputs == "prompt_1d":
        return Method(wrapper, "generate", **fixed), (prompt[0],), {}
    if inputs == "prompt_mask":
        return Method(wrapper, "generate", **fixed), (prompt,), {"mask": _mask(4)}
    return Method(wrapper, "generate", **fixed), (prompt,), {}


def _function(name: str) -> Built:
    import importlib

    import torch

    from gt_calls import Call

    module, function, kind, fixed = FUNCTIONS[name]
    fn = getattr(importlib.import_module(f"long_short_transformer.{module}"), function)
    inputs: dict[str, Any] = {
        "windows": _randn(BATCH * HEADS, 4, WINDOW, DIM_HEAD),
        "mask_windows": torch.rand(BATCH * HEADS, 4, WINDOW, generator=torch.Generator().manual_seed(1)) > 0.3,
        "seq14": _randn(BATCH, 14, DIM),
        "seq16": _randn(BATCH, 16, DIM),
        "mask14": _mask(14),
        "logits": _randn(BATCH, TOKENS),
    }
    return Call(fn, **fixed), (inputs[kind],), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from long_short_transformer import LongShortAttention, LongShortTransformer
    from long_short_transformer.autoregressive_wrapper import AutoregressiveWrapper
    from torch import nn

    from gt_calls import Run

    def step_with(optimizer: Any) -> Any:
        def apply(loss: Any) -> Any:
            if torch.is_grad_enabled():
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            return loss.detach()
        return apply

    if name.startswith("train.AutoregressiveWrapper"):
        wrapper = AutoregressiveWrapper(_transformer({**CAUSAL, "attn_dropout": 0.1}))
        apply = step_with(torch.optim.Adam(wrapper.parameters(), lr=1e-3))
        if name.endswith("mask"):
            return Run(wrapper, lambda owner, ids, mask: apply(owner(ids, mask=mask)), [AutoregressiveWrapper]), \
                (_ids(17), _mask(17)), {}
        return Run(wrapper, lambda owner, ids: apply(owner(ids)), [AutoregressiveWrapper]), (_ids(17),), {}
    if name == "train.classifier.bidirectional.sgd":
        classes = 3

        class Classifier(nn.Module):
            """The bidirectional transformer's logits, mean-pooled, then a linear head."""

            def __init__(self) -> None:
                super().__init__()
                self.net = _transformer(BIDIR)
                self.head = nn.Linear(TOKENS, classes)

            def forward(self, ids: Any) -> Any:
                return self.head(self.net(ids).mean(dim=1))

        classifier = Classifier()
        apply = step_with(torch.optim.SGD(classifier.parameters(), lr=0.1, momentum=0.9))
        labels = torch.randint(0, classes, (BATCH,), generator=torch.Generator().manual_seed(2))
        return Run(classifier, lambda owner, ids, y: apply(F.cross_entropy(owner(ids), y)),
                   [LongShortTransformer]), (_ids(16), labels), {}
    attention = _attention(ATT_CAUSAL if name.endswith("causal") else ATT_BIDIR)

    def backward(owner: Any, x: Any, target: Any) -> Any:
        loss = F.mse_loss(owner(x), target)
        if torch.is_grad_enabled():
            loss.backward()
        return loss.detach()

    return Run(attention, backward, [LongShortAttention]), (_randn(BATCH, 16, DIM), _randn(BATCH, 16, DIM, seed=2)), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in TRANSFORMER:
        keywords, length, masked, cache = TRANSFORMER[name]
        batch = 1 if name.endswith("batch1") else BATCH
        kwargs = {"mask": _mask(length, batch)} if masked else {}
        return _transformer(keywords, cache), (_ids(length, batch),), kwargs
    if name in ATTENTION:
        keywords, length, masked = ATTENTION[name]
        kwargs = {"mask": _mask(length)} if masked else {}
        return _attention(keywords), (_randn(BATCH, length, DIM),), kwargs
    if name in WRAPPER:
        return _wrapper(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
