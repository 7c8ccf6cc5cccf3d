"""Ground-truth bench, token_shift_gpt: an attention-free GPT that mixes tokens by shifted cumulative means, and its wrapper.

token-shift-gpt 0.0.2 is one small language model. ``TokenShiftGPT`` embeds tokens and absolute positions and
runs ``depth`` residual ``FeedForward`` blocks: a layer norm, a GELU projection split into values and a gate, the
gate normalized and passed through ``shift_tokens`` (its cumulative sum cut into ``ceil(log2(max_seq_len)) - 1``
chunks plus one passed through, each chunk the mean of a window of earlier tokens, the windows doubling: ``shift``
pads and crops along the sequence, the shift amounts come from ``torch.arange(...).tolist()``), a linear gate,
and a projection out; a layer norm and a linear head give the logits. ``autoregressive_wrapper
.AutoregressiveWrapper`` adds the shifted next-token cross entropy with ``ignore_index`` (``forward``) and a
sampling loop (``generate``: the window cropped to ``max_seq_len``, ``top_k`` filtering, temperature,
``multinomial``, an optional end token that stops the loop when every row samples it, one-dimensional prompts),
under ``no_grad`` and its own ``eval_decorator``. The tables cover:

- ``NETS`` x lengths: the logits under each configuration: context lengths 2 (no shifted chunk), 4, 8, 12 and 16
  (one to three shifted chunks), depth, feed-forward multipliers (1 leaves fewer chunks than shifts), at a
  few sequence lengths each, a batch of one and of two;
- ``LOSS``: ``AutoregressiveWrapper.forward`` (the training loss, with the default and another ``ignore_index``),
  and ``TRAIN``: whole training steps (loss, backward, an optimizer step) with gradients enabled whatever the
  harness's mode;
- ``GENERATE``: ``AutoregressiveWrapper.generate`` with its options: new tokens past the context (the window
  crop), temperature, ``filter_thres``, an ``eos_token`` that cannot be sampled (the check runs each step), one
  that can (the loop may stop early), a one-dimensional prompt, and a ``filter_logits_fn`` argument (accepted,
  unused by 0.0.2);
- ``PARTS``: the pieces as users reuse them: ``FeedForward`` and ``Residual`` alone and in a user's network,
  and the functions ``shift`` (along the sequence and the last axis) and ``shift_tokens`` (one to three shifts).

Left out: sequences shorter than half the context (``max_seq_len``) when it has two or more shifts: the widest
shift pads and crops by more than the sequence holds and ``F.pad`` fails eagerly (``narrow(): length must be
non-negative``), so every input, prompts included, is at least that long. Random weights and inputs from fixed
seeds, CPU only, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM = 24, 8

# Configuration name -> (TokenShiftGPT keywords (num_tokens and dim added by ``_gpt``), (batch, length) inputs).
NETS: dict[str, tuple[dict[str, Any], tuple[tuple[int, int], ...]]] = {
    "ctx8": ({"max_seq_len": 8, "depth": 1}, ((2, 4), (2, 6), (1, 8))),
    "ctx8.deep": ({"max_seq_len": 8, "depth": 3}, ((2, 5), (2, 8))),
    "ctx16": ({"max_seq_len": 16, "depth": 1}, ((2, 8), (1, 13), (2, 16))),
    "ctx12.mult2": ({"max_seq_len": 12, "depth": 2, "ff_mult": 2}, ((2, 8), (2, 12))),
    "ctx4": ({"max_seq_len": 4, "depth": 2}, ((2, 2), (2, 4))),
    "ctx2.no_shift": ({"max_seq_len": 2, "depth": 1}, ((2, 1), (2, 2))),
    "ctx8.mult1": ({"max_seq_len": 8, "depth": 1, "ff_mult": 1}, ((2, 6),)),
    "ctx8.mult3": ({"max_seq_len": 8, "depth": 2, "ff_mult": 3}, ((2, 7),)),
}
# Loss name -> (configuration, sequence length including the target token, ignore_index or None).
LOSS: dict[str, tuple[str, int, int | None]] = {
    "ctx8": ("ctx8", 9, None),
    "ctx8.deep": ("ctx8.deep", 7, None),
    "ctx16": ("ctx16", 12, None),
    "ctx12.mult2": ("ctx12.mult2", 13, None),
    "ctx4": ("ctx4", 5, None),
    "ctx2.no_shift": ("ctx2.no_shift", 3, None),
    "ctx8.ignore_index": ("ctx8", 9, 0),
}
# Training step name -> (configuration, optimizer, sequence length).
TRAIN: dict[str, tuple[str, str, int]] = {
    "train_step.ctx8.adam": ("ctx8", "adam", 9),
    "train_step.ctx8.deep.sgd": ("ctx8.deep", "sgd", 9),
    "train_step.ctx16.adamw": ("ctx16", "adamw", 14),
    "train_step.ctx4.adam.clip": ("ctx4", "adam_clip", 5),
}
# Generation name -> (configuration, prompt shape, keywords of generate).
GENERATE: dict[str, tuple[str, tuple[int, ...], dict[str, Any]]] = {
    "generate.ctx8": ("ctx8", (2, 4), {"seq_len": 3}),
    "generate.ctx8.past_context": ("ctx8", (2, 6), {"seq_len": 4}),
    "generate.ctx8.one_token": ("ctx8", (2, 8), {"seq_len": 1}),
    "generate.ctx8.temperature": ("ctx8", (2, 5), {"seq_len": 2, "temperature": 0.7}),
    "generate.ctx8.filter_thres": ("ctx8", (2, 5), {"seq_len": 2, "filter_thres": 0.5}),
    "generate.ctx8.eos_never": ("ctx8", (2, 4), {"seq_len": 3, "eos_token": TOKENS}),
    "generate.ctx8.eos_sampled": ("ctx8", (1, 4), {"seq_len": 3, "eos_token": 1, "filter_thres": 0.95}),
    "generate.ctx8.prompt_1d": ("ctx8", (5,), {"seq_len": 2}),
    "generate.ctx8.filter_logits_fn": ("ctx8", (2, 4), {"seq_len": 2, "filter_logits_fn": "top_k"}),
    "generate.ctx16": ("ctx16", (1, 9), {"seq_len": 2, "temperature": 1.3}),
    "generate.ctx4.past_context": ("ctx4", (2, 3), {"seq_len": 3}),
    "generate.ctx2.no_shift": ("ctx2.no_shift", (2, 1), {"seq_len": 3}),
    "generate.ctx8.deep": ("ctx8.deep", (2, 4), {"seq_len": 2}),
}
PARTS = (
    "FeedForward.shifts2", "FeedForward.shifts3", "FeedForward.shifts0", "Residual.FeedForward",
    "user_network", "user_network.train_step",
    "shift.sequence", "shift.last_axis", "shift.sequence.by4",
    "shift_tokens.amt1", "shift_tokens.amt2", "shift_tokens.amt3", "shift_tokens.eps",
)


def names() -> list[str]:
    return ([f"TokenShiftGPT.{c}.b{b}n{n}" for c, (_, seqs) in NETS.items() for b, n in seqs]
            + [f"AutoregressiveWrapper.loss.{c}" for c in LOSS] + list(TRAIN) + list(GENERATE)
            + [f"parts.{p}" for p in PARTS])


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _tokens(shape: tuple[int, ...], seed: int = 1) -> Any:
    import torch

    return torch.randint(0, TOKENS, shape, generator=_gen(seed))


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _gpt(config: str) -> Any:
    import torch
    from token_shift_gpt import TokenShiftGPT

    torch.manual_seed(0)
    return TokenShiftGPT(num_tokens=TOKENS, dim=DIM, **NETS[config][0])


def _wrapper(config: str, ignore_index: int | None = None) -> Any:
    from token_shift_gpt.autoregressive_wrapper import AutoregressiveWrapper

    keywords = {} if ignore_index is None else {"ignore_index": ignore_index}
    return AutoregressiveWrapper(_gpt(config), **keywords)


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
    from token_shift_gpt.autoregressive_wrapper import AutoregressiveWrapper

    config, kind, length = TRAIN[name]
    wrapper = _wrapper(config)
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

    return Run(wrapper, step, [AutoregressiveWrapper]), (_tokens((2, length)),), {}


def _generate(name: str) -> Built:
    from gt_calls import Method
    from token_shift_gpt import autoregressive_wrapper as wrap

    config, shape, keywords = GENERATE[name]
    keywords = dict(keywords)
    if keywords.get("filter_logits_fn") == "top_k":
        keywords["filter_logits_fn"] = wrap.top_k
    return Method(_wrapper(config), "generate", **keywords), (_tokens(shape, seed=3),), {}


def _part(part: str) -> Built:
    import torch
    from gt_calls import Run
    from token_shift_gpt import token_shift_gpt as lib
    from torch import nn

    torch.manual_seed(0)
    if part.startswith("FeedForward") or part.startswith("Residual"):
        shifts = {"shifts2": 2, "shifts3": 3, "shifts0": 0}.get(part.split(".")[-1], 2)
        block = lib.FeedForward(dim=DIM, max_seq_len=16, num_shifts=shifts)
        if part.startswith("Residual"):
            block = lib.Residual(block)
        length = 2 ** shifts if shifts else 3
        return block, (_randn(2, max(length, 4), DIM),), {}
    if part.startswith("user_network"):
        class UserNetwork(nn.Module):
            """A user's sequence classifier made of the library's token-shift feed-forwards."""

            def __init__(self) -> None:
                super().__init__()
                self.proj = nn.Linear(3, DIM)
                self.blocks = nn.Sequential(
                    lib.Residual(lib.FeedForward(dim=DIM, max_seq_len=8, num_shifts=2, mult=2)),
                    lib.Residual(lib.FeedForward(dim=DIM, max_seq_len=8, num_shifts=2, mult=2, eps=1e-2)),
                )
                self.head = nn.Linear(DIM, 2)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.head(self.blocks(self.proj(x))[:, -1])

        net = UserNetwork()
        x = _randn(2, 6, 3)
        if part == "user_network":
            return Run(net, lambda owner, a: owner(a), [lib.FeedForward, lib.Residual]), (x,), {}
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        target = torch.tensor([1, 0])

        def step(owner: Any, a: Any) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(owner(a), target)
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(net, step, [lib.FeedForward, lib.Residual]), (x,), {}
    if part.startswith("shift."):
        if part == "shift.last_axis":
            return Run(None, lambda owner, a: lib.shift(a, 1, dim=-1), [lib.shift]), (_randn(2, 5),), {}
        amt = 4 if part.endswith("by4") else 1
        return Run(None, lambda owner, a: lib.shift(a, amt, dim=-2), [lib.shift]), (_randn(2, 9, 3),), {}
    if part.startswith("shift_tokens"):
        amt = {"amt1": 1, "amt2": 2, "amt3": 3}.get(part.split(".")[-1], 2)
        eps = 1e-2 if part.endswith("eps") else 1e-5
        length = max(2 ** amt, 5)
        return (Run(None, lambda owner, a: lib.shift_tokens(a, amt, eps=eps), [lib.shift_tokens]),
                (_randn(2, length, 4 * (amt + 1)),), {})
    raise KeyError(part)


def build(name: str) -> Built:
    if name in TRAIN:
        return _train(name)
    if name in GENERATE:
        return _generate(name)
    head, _, rest = name.partition(".")
    if head == "parts" and rest in PARTS:
        return _part(rest)
    if head == "TokenShiftGPT":
        config, _, seq = rest.rpartition(".")
        if config in NETS:
            for b, n in NETS[config][1]:
                if seq == f"b{b}n{n}":
                    return _gpt(config), (_tokens((b, n)),), {}
    if head == "AutoregressiveWrapper":
        key = rest.removeprefix("loss.")
        if key in LOSS:
            config, length, ignore = LOSS[key]
            return _wrapper(config, ignore), (_tokens((2, length)),), {}
    raise KeyError(name)
