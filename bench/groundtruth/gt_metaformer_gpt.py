"""Ground-truth bench, metaformer_gpt: a GPT whose token mixer is multi-head exponential time decay, its wrapper and parts.

metaformer-gpt 0.0.5 is one small language model. ``MetaformerGPT`` embeds tokens and absolute positions, then
runs ``depth`` blocks of three residual branches: ``MultiheadExponentialTimeDecay`` (layer norm, a projection
into heads, a causal convolution of each head's sequence with a learned per-head exponential decay, computed by
``conv1d_fft`` as an FFT product at the length SciPy's ``next_fast_len`` picks), ``MeanCenteringPool`` (the
cumulative mean ``cummean`` minus the token) and a GELU ``FeedForward``; a layer norm and a linear head give the
logits. ``autoregressive_wrapper.AutoregressiveWrapper`` adds the shifted next-token cross entropy (``forward``)
and a sampling loop (``generate``: ``top_k`` filtering, temperature, ``multinomial``, an optional end token whose
check branches on the sampled tensor), run under ``no_grad`` and its own ``eval_decorator``. The tables cover:

- ``NETS`` x ``SEQS``: the logits of ``MetaformerGPT`` under each configuration (depth, heads and head width,
  the library's default heads, feed-forward multipliers, an integral and a fractional one) at sequence lengths
  that give different FFT lengths (1, 5, 8 and 13 tokens), a batch of one and of two;
- ``LOSS``: ``AutoregressiveWrapper.forward`` (the training loss) on each configuration, and ``TRAIN``: a whole
  training step (loss, backward, an optimizer step) with gradients enabled whatever the harness's mode;
- ``GENERATE``: ``AutoregressiveWrapper.generate`` with its options: the number of new tokens, temperature,
  ``filter_thres`` (how many logits ``top_k`` keeps), an ``eos_token`` (never sampled, so the early-exit check
  runs each step and the loop completes), a one-row batch and a longer prompt;
- ``PARTS``: the pieces as users reuse them in their own networks: ``MultiheadExponentialTimeDecay``,
  ``MeanCenteringPool`` and ``FeedForward`` alone and in a user's residual block, and the functions
  ``conv1d_fft`` (heads and plain sequences), ``cummean`` and ``top_k``.

Left out: an ``eos_token`` that every row samples: the wrapper then reads ``is_eos_tokens``, a name it never
defines, and fails eagerly with a ``NameError`` (a bug of 0.0.5), so the end token is one the vocabulary cannot
produce. Sequences longer than ``max_seq_len``: the position embedding has no rows for them and ``generate`` does
not crop. Random weights and inputs from fixed seeds, CPU only, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, MAX_LEN = 24, 8, 24

# Configuration name -> MetaformerGPT keywords (num_tokens, dim and max_seq_len added by ``_gpt``).
NETS: dict[str, dict[str, Any]] = {
    "small": {"depth": 1, "heads": 2, "dim_head": 4, "ff_mult": 2},
    "deep": {"depth": 3, "heads": 2, "dim_head": 4, "ff_mult": 2},
    "one_head": {"depth": 2, "heads": 1, "dim_head": 8, "ff_mult": 1},
    "many_heads": {"depth": 1, "heads": 4, "dim_head": 2, "ff_mult": 4},
    "defaults": {"depth": 1},
    "ff_fractional": {"depth": 2, "heads": 2, "dim_head": 4, "ff_mult": 1.5},
}
# Sequence name -> (batch, length).
SEQS: dict[str, tuple[int, int]] = {"len1": (2, 1), "len5": (2, 5), "len8": (1, 8), "len13": (2, 13)}
SEQ_PICK: dict[str, tuple[str, ...]] = {
    "small": ("len1", "len5", "len8", "len13"),
    "deep": ("len5", "len13"),
    "one_head": ("len5", "len8"),
    "many_heads": ("len5", "len13"),
    "defaults": ("len8",),
    "ff_fractional": ("len5",),
}
LOSS = ("small", "deep", "one_head", "many_heads", "defaults", "ff_fractional")
# Training step name -> (configuration, optimizer, sequence length).
TRAIN: dict[str, tuple[str, str, int]] = {
    "train_step.small.adam": ("small", "adam", 9),
    "train_step.deep.sgd": ("deep", "sgd", 9),
    "train_step.many_heads.adamw": ("many_heads", "adamw", 14),
    "train_step.one_head.adam.clip": ("one_head", "adam_clip", 6),
}
# Generation name -> (configuration, batch, prompt length, keywords of generate).
GENERATE: dict[str, tuple[str, int, int, dict[str, Any]]] = {
    "generate.small": ("small", 2, 1, {"seq_len": 3}),
    "generate.small.one_token": ("small", 2, 3, {"seq_len": 1}),
    "generate.small.temperature": ("small", 2, 2, {"seq_len": 3, "temperature": 0.7}),
    "generate.small.hot": ("small", 1, 2, {"seq_len": 2, "temperature": 1.5}),
    "generate.small.filter_thres": ("small", 2, 2, {"seq_len": 3, "filter_thres": 0.5}),
    "generate.small.eos_token": ("small", 2, 2, {"seq_len": 3, "eos_token": TOKENS}),
    "generate.deep.long_prompt": ("deep", 2, 6, {"seq_len": 2}),
    "generate.many_heads.eos_filter": ("many_heads", 1, 3, {"seq_len": 3, "eos_token": TOKENS + 1,
                                                            "filter_thres": 0.7, "temperature": 0.9}),
    "generate.one_head": ("one_head", 2, 4, {"seq_len": 2}),
}
# Part name -> what ``_part`` builds.
PARTS = (
    "MultiheadExponentialTimeDecay", "MultiheadExponentialTimeDecay.one_head",
    "MultiheadExponentialTimeDecay.many_heads.len13", "MultiheadExponentialTimeDecay.len1",
    "MeanCenteringPool", "MeanCenteringPool.len13",
    "FeedForward", "FeedForward.mult1",
    "user_block", "user_block.train_step",
    "conv1d_fft.heads", "conv1d_fft.len13", "conv1d_fft.sequence", "conv1d_fft.short_kernel",
    "cummean", "cummean.len1",
    "top_k", "top_k.thres_half", "top_k.wide",
)


def names() -> list[str]:
    return ([f"MetaformerGPT.{c}.{s}" for c in NETS for s in SEQ_PICK[c]]
            + [f"AutoregressiveWrapper.loss.{c}" for c in LOSS] + list(TRAIN) + list(GENERATE)
            + [f"parts.{p}" for p in PARTS])


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _tokens(batch: int, length: int, seed: int = 1) -> Any:
    import torch

    return torch.randint(0, TOKENS, (batch, length), generator=_gen(seed))


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _gpt(config: str) -> Any:
    import torch
    from metaformer_gpt import MetaformerGPT

    torch.manual_seed(0)
    return MetaformerGPT(num_tokens=TOKENS, dim=DIM, max_seq_len=MAX_LEN, **NETS[config])


def _optimizer(kind: str, params: Any) -> Any:
    import torch

    if kind == "sgd":
        return torch.optim.SGD(params, lr=0.01, momentum=0.9)
    if kind == "adamw":
        return torch.optim.AdamW(params, lr=1e-3)
    return torch.optim.Adam(params, lr=1e-3)


def _train(name: str) -> Built:
    import torch
    from gt_calls import Run
    from metaformer_gpt.autoregressive_wrapper import AutoregressiveWrapper

    config, kind, length = TRAIN[name]
    wrapper = AutoregressiveWrapper(_gpt(config), max_seq_len=MAX_LEN)
    optimizer = _optimizer(kind, wrapper.parameters())

    def step(owner: Any, tokens: Any) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = owner(tokens)
            loss.backward()
            if kind == "adam_clip":
                torch.nn.utils.clip_grad_norm_(owner.parameters(), 1.0)
            optimizer.step()
        return loss.detach()

    return Run(wrapper, step, [AutoregressiveWrapper]), (_tokens(2, length),), {}


def _generate(name: str) -> Built:
    import torch
    from gt_calls import Method
    from metaformer_gpt.autoregressive_wrapper import AutoregressiveWrapper

    config, batch, prompt, keywords = GENERATE[name]
    torch.manual_seed(0)
    wrapper = AutoregressiveWrapper(_gpt(config), max_seq_len=MAX_LEN)
    return Method(wrapper, "generate", **keywords), (_tokens(batch, prompt, seed=3),), {}


def _part(part: str) -> Built:
    import torch
    from gt_calls import Run
    from metaformer_gpt import metaformer_gpt as lib
    from metaformer_gpt import autoregressive_wrapper as wrap
    from torch import nn

    torch.manual_seed(0)
    x5, x13, x1 = _randn(2, 5, DIM), _randn(2, 13, DIM, seed=2), _randn(2, 1, DIM, seed=3)
    if part.startswith("MultiheadExponentialTimeDecay"):
        keywords = {"heads": 2, "dim_head": 4}
        if ".one_head" in part:
            keywords = {"heads": 1, "dim_head": 8}
        elif ".many_heads" in part:
            keywords = {"heads": 4, "dim_head": 2}
        x = x13 if part.endswith("len13") else x1 if part.endswith("len1") else x5
        return lib.MultiheadExponentialTimeDecay(DIM, **keywords), (x,), {}
    if part.startswith("MeanCenteringPool"):
        return lib.MeanCenteringPool(DIM), (x13 if part.endswith("len13") else x5,), {}
    if part.startswith("FeedForward"):
        net = lib.FeedForward(DIM, mult=1 if part.endswith("mult1") else 4)
        return Run(net, lambda owner, x: owner(x), [lib.FeedForward]), (x5,), {}
    if part.startswith("user_block"):
        class UserBlock(nn.Module):
            """A user's token-mixing block built from the library's mixer, pool and feed-forward."""

            def __init__(self) -> None:
                super().__init__()
                self.mix = lib.MultiheadExponentialTimeDecay(DIM, heads=2, dim_head=4)
                self.pool = lib.MeanCenteringPool(DIM)
                self.ff = lib.FeedForward(DIM, mult=2)
                self.head = nn.Linear(DIM, 3)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                x = self.mix(x) + x
                x = self.pool(x) + x
                x = self.ff(x) + x
                return self.head(x.mean(dim=1))

        block = UserBlock()
        if part == "user_block":
            return Run(block, lambda owner, x: owner(x),
                       [lib.MultiheadExponentialTimeDecay, lib.MeanCenteringPool]), (x5,), {}
        optimizer = torch.optim.Adam(block.parameters(), lr=1e-3)
        target = torch.tensor([0, 2])

        def step(owner: Any, x: Any) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(owner(x), target)
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(block, step, [lib.MultiheadExponentialTimeDecay, lib.MeanCenteringPool]), (x5,), {}
    if part.startswith("conv1d_fft"):
        if part == "conv1d_fft.heads":
            x, weights, keywords = _randn(2, 2, 5, 4), _randn(2, 5, seed=4), {}
        elif part == "conv1d_fft.len13":
            x, weights, keywords = _randn(1, 3, 13, 2), _randn(3, 13, seed=4), {}
        elif part == "conv1d_fft.sequence":
            x, weights, keywords = _randn(2, 7, 3), _randn(7, seed=4), {"dim": -2, "weight_dim": -1}
        else:
            x, weights, keywords = _randn(2, 6, 3), _randn(3, seed=4), {}
        return Run(None, lambda owner, a, w: lib.conv1d_fft(a, w, **keywords), [lib.conv1d_fft]), (x, weights), {}
    if part.startswith("cummean"):
        x = x1 if part.endswith("len1") else x13
        return Run(None, lambda owner, a: lib.cummean(a, dim=1), [lib.cummean]), (x,), {}
    if part.startswith("top_k"):
        thres = 0.5 if part.endswith("thres_half") else 0.9
        logits = _randn(3, 64 if part.endswith("wide") else TOKENS)
        return Run(None, lambda owner, a: wrap.top_k(a, thres=thres), [wrap.top_k]), (logits,), {}
    raise KeyError(part)


def build(name: str) -> Built:
    if name in TRAIN:
        return _train(name)
    if name in GENERATE:
        return _generate(name)
    head, _, rest = name.partition(".")
    if head == "parts" and rest in PARTS:
        return _part(rest)
    if head == "MetaformerGPT":
        config, _, seq = rest.partition(".")
        if config in NETS and seq in SEQ_PICK[config]:
            batch, length = SEQS[seq]
            return _gpt(config), (_tokens(batch, length),), {}
    if head == "AutoregressiveWrapper":
        config = rest.removeprefix("loss.")
        if config in LOSS:
            from metaformer_gpt.autoregressive_wrapper import AutoregressiveWrapper

            return AutoregressiveWrapper(_gpt(config), max_seq_len=MAX_LEN), (_tokens(2, 9),), {}
    raise KeyError(name)
