"""Ground-truth bench, perceiver_ar_pytorch (perceiver-ar-pytorch): Perceiver AR, its pieces and its sampler.

perceiver-ar-pytorch 0.0.10 (lucidrains) implements Perceiver AR (Hawthorne 2022): token and absolute position
embeddings, rotary embeddings, a prefix of ``cross_attn_seq_len`` tokens that the rest of the sequence cross
attends to causally (``CausalPrefixAttention``: keys and values of the prefix and of the sequence, an optional
prefix mask padded to the keys, heads processed in chunks of ``max_heads_process``, and in training a random
``cross_attn_dropout`` of the prefix that gathers the kept positions, and their rotary embeddings, by a boolean
mask), then causal self-attention layers (``CausalAttention``) and feedforwards, logits and a cross-entropy loss
over the non-prefix labels (0 ignored). ``AutoregressiveWrapper`` shifts a sequence into inputs and labels for
the loss and samples with ``generate`` (top-k filtering, a window of the last ``max_seq_len`` tokens, an end token
that stops the loop once every row has one). The tables cover, at width 16, 2 heads of 32 (the rotary width is at
least 32), a 32-token vocabulary, sequences of 12 with a prefix of 8 and a batch of 2:

- ``PERCEIVER``: ``PerceiverAR`` forward: logits, labels (the loss, with padding labels), a prefix mask (with
  and without labels), a sequence shorter than ``max_seq_len``, two perceive and two self-attention layers,
  heads in chunks of one or an uneven split (3 heads by 2), wider heads than the rotary width, dropout,
  cross-attention dropout of the prefix (train mode gathers, with and without a prefix mask), a batch of one;
- ``WRAPPER``: ``AutoregressiveWrapper`` forward (the loss; a prefix mask, cross-attention dropout) and
  ``generate`` through ``gt_calls.Method`` (4 tokens): a prompt shorter than the window, one longer than the
  window (cropped), an end token that every prompt row holds (the early stop and its masking), a prefix mask
  passed through;
- ``PARTS``: ``CausalAttention`` (with rotary embeddings), ``CausalPrefixAttention`` (a context mask with rotary
  embeddings, head chunks of one, cross-attention dropout with a mask) and ``RotaryEmbedding``;
- ``FUNCTIONS``: ``rotate_half``, ``apply_rotary_pos_emb`` (a partial rotation) and the wrapper's ``top_k``
  through ``gt_calls.Call``;
- ``TRAIN``: train steps (bench code holding the library model; ``entry_points`` the model's class): the loss,
  ``backward`` and an Adam step, through ``PerceiverAR`` (labels, a prefix mask,
  cross-attention dropout) and ``AutoregressiveWrapper``.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, HEADS, DIM_HEAD, BATCH, SEQ, PREFIX = 32, 16, 2, 32, 2, 12, 8
GEN_LEN, EOS = 4, 1
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": 1, "max_seq_len": SEQ,
                        "cross_attn_seq_len": PREFIX, "dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2}
LABELS: dict[str, Any] = {"labels": "labels"}
MASK: dict[str, Any] = {"prefix_mask": "prefix_mask"}
CROSS_DROPOUT: dict[str, Any] = {"cross_attn_dropout": 0.25}

# ``PerceiverAR`` forward name -> (keywords over ``BASE``, (batch, length) of the ids, call keywords: "labels" and
# "prefix_mask" resolve to tensors, "padded_labels" to labels with zeros (the ignored index)).
PERCEIVER: dict[str, tuple[dict[str, Any], tuple[int, int], dict[str, Any]]] = {
    "PerceiverAR": ({}, (BATCH, SEQ), {}),
    "PerceiverAR.labels": ({}, (BATCH, SEQ), LABELS),
    "PerceiverAR.labels.padded": ({}, (BATCH, SEQ), {"labels": "padded_labels"}),
    "PerceiverAR.prefix_mask": ({}, (BATCH, SEQ), MASK),
    "PerceiverAR.prefix_mask.labels": ({}, (BATCH, SEQ), {**MASK, **LABELS}),
    "PerceiverAR.shorter": ({}, (BATCH, SEQ - 2), {}),
    "PerceiverAR.shorter.prefix_mask.labels": ({}, (BATCH, SEQ - 2), {**MASK, **LABELS}),
    "PerceiverAR.depth2.perceive_depth2": ({"depth": 2, "perceive_depth": 2}, (BATCH, SEQ), LABELS),
    "PerceiverAR.heads4.chunk1": ({"heads": 4, "perceive_max_heads_process": 1}, (BATCH, SEQ), {}),
    "PerceiverAR.heads3.chunk2": ({"heads": 3}, (BATCH, SEQ), MASK),
    "PerceiverAR.dim_head64": ({"dim_head": 64}, (BATCH, SEQ), LABELS),
    "PerceiverAR.dropout": ({"dropout": 0.1}, (BATCH, SEQ), LABELS),
    "PerceiverAR.cross_attn_dropout": (CROSS_DROPOUT, (BATCH, SEQ), {}),
    "PerceiverAR.cross_attn_dropout.labels": (CROSS_DROPOUT, (BATCH, SEQ), LABELS),
    "PerceiverAR.cross_attn_dropout.prefix_mask": (CROSS_DROPOUT, (BATCH, SEQ), {**MASK, **LABELS}),
    "PerceiverAR.cross_attn_dropout.perceive_depth2": ({**CROSS_DROPOUT, "perceive_depth": 2}, (BATCH, SEQ), MASK),
    "PerceiverAR.batch1": ({}, (1, SEQ), LABELS),
}
# ``AutoregressiveWrapper`` name -> (keywords over ``BASE``, wrapper keywords, what runs: "forward" or "generate",
# prompt (batch, length) or forward ids length, fixed keywords ("prefix_mask" resolves to a tensor; "eos_prompt"
# puts the end token in every prompt row)).
WRAPPER: dict[str, tuple[dict[str, Any], dict[str, Any], str, int, dict[str, Any]]] = {
    "AutoregressiveWrapper": ({}, {}, "forward", SEQ + 1, {}),
    "AutoregressiveWrapper.prefix_mask": ({}, {}, "forward", SEQ + 1, MASK),
    "AutoregressiveWrapper.cross_attn_dropout": (CROSS_DROPOUT, {}, "forward", SEQ + 1, {}),
    "generate": ({}, {}, "generate", PREFIX + 2, {}),
    "generate.long_prompt": ({}, {}, "generate", SEQ + 2, {}),
    "generate.eos": ({}, {"pad_value": 0}, "generate", PREFIX + 2, {"eos_token": EOS, "eos_prompt": True}),
    "generate.prefix_mask": ({}, {}, "generate", PREFIX + 2, MASK),
}
PARTS = ("CausalAttention.rotary", "CausalPrefixAttention.context_mask.rotary", "CausalPrefixAttention.chunk1",
         "CausalPrefixAttention.cross_attn_dropout.context_mask", "RotaryEmbedding")
FUNCTIONS = ("rotate_half", "apply_rotary_pos_emb.partial", "top_k")
# Train step name -> (keywords over ``BASE``, model: "perceiver" or "wrapper", call keywords, optimizer or None).
TRAIN: dict[str, tuple[dict[str, Any], str, dict[str, Any], str | None]] = {
    "train.PerceiverAR.labels.adam": ({}, "perceiver", LABELS, "adam"),
    "train.PerceiverAR.prefix_mask.adam": ({}, "perceiver", {**MASK, **LABELS}, "adam"),
    "train.PerceiverAR.cross_attn_dropout.adam": ({**CROSS_DROPOUT, "dropout": 0.1}, "perceiver", LABELS, "adam"),
    "train.AutoregressiveWrapper.adam": ({}, "wrapper", {}, "adam"),
}


def names() -> list[str]:
    return [*PERCEIVER, *WRAPPER, *PARTS, *FUNCTIONS, *TRAIN]


def _ids(batch: int, length: int, seed: int = 1) -> Any:
    import torch

    return torch.randint(2, TOKENS, (batch, length), generator=torch.Generator().manual_seed(seed))


def _prefix_mask(batch: int, length: int = PREFIX) -> Any:
    """A prefix mask (batch x ``length``): the second row's last three prefix positions masked out."""
    import torch

    mask = torch.ones(batch, length, dtype=torch.bool)
    if batch > 1:
        mask[1, -3:] = False
    return mask


def _resolve(keywords: dict[str, Any], batch: int, length: int) -> dict[str, Any]:
    out = dict(keywords)
    if out.get("labels") == "labels":
        out["labels"] = _ids(batch, length, seed=2)
    elif out.get("labels") == "padded_labels":
        labels = _ids(batch, length, seed=2)
        labels[-1, -3:] = 0
        out["labels"] = labels
    if "prefix_mask" in out:
        out["prefix_mask"] = _prefix_mask(batch)
    return out


def _perceiver(**keywords: Any) -> Any:
    from perceiver_ar_pytorch import PerceiverAR

    return PerceiverAR(**{**BASE, **keywords})


def _randn(*shape: int, seed: int = 3) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _wrapper(name: str) -> Built:
    from gt_calls import Keywords, Method
    from perceiver_ar_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    keywords, wrapper_keywords, kind, length, call = WRAPPER[name]
    wrapper = AutoregressiveWrapper(_perceiver(**keywords), **wrapper_keywords)
    call = dict(call)
    eos_prompt = call.pop("eos_prompt", False)
    if "prefix_mask" in call:
        call["prefix_mask"] = _prefix_mask(BATCH)
    ids = _ids(BATCH, length)
    if kind == "forward":
        return (Keywords(wrapper, **call) if call else wrapper), (ids,), {}
    if eos_prompt:
        ids[:, 3] = EOS
    return Method(wrapper, "generate", seq_len=GEN_LEN, **call), (ids,), {}


def _part(name: str) -> Built:
    import torch

    from gt_calls import Keywords
    from perceiver_ar_pytorch.perceiver_ar_pytorch import CausalAttention, CausalPrefixAttention, RotaryEmbedding

    length = SEQ - PREFIX
    rotary = RotaryEmbedding(32)(SEQ, device=torch.device("cpu"))
    x = _randn(BATCH, length, DIM)
    if name == "RotaryEmbedding":
        return RotaryEmbedding(32), (SEQ,), {"device": torch.device("cpu")}
    if name.startswith("CausalAttention"):
        attention = CausalAttention(dim=DIM, dim_head=DIM_HEAD, heads=HEADS,
                                    dropout=0.1 if name.endswith("dropout") else 0.0)
        if name.endswith("rotary"):
            return Keywords(attention, rotary_pos_emb=rotary[-length:]), (x,), {}
        return attention, (x,), {}
    options = name.split(".")[1:]
    attention = CausalPrefixAttention(dim=DIM, dim_head=DIM_HEAD, heads=HEADS,
                                      max_heads_process=1 if "chunk1" in options else 2,
                                      cross_attn_dropout=0.25 if "cross_attn_dropout" in options else 0.0)
    context = _randn(BATCH, PREFIX, DIM, seed=4)
    static: dict[str, Any] = {}
    if "context_mask" in options:
        static["context_mask"] = _prefix_mask(BATCH)
    if "rotary" in options or "cross_attn_dropout" in options:
        static["rotary_pos_emb"] = rotary
    return Keywords(attention, **static), (x, context), {}


def _function(name: str) -> Built:
    from gt_calls import Call
    from perceiver_ar_pytorch import autoregressive_wrapper, perceiver_ar_pytorch as library

    if name == "rotate_half":
        return Call(library.rotate_half), (_randn(BATCH, HEADS, SEQ, DIM_HEAD),), {}
    if name.startswith("apply_rotary_pos_emb"):
        rotary = _randn(SEQ, 16 if name.endswith("partial") else DIM_HEAD, seed=5)
        return Call(library.apply_rotary_pos_emb), (rotary, _randn(BATCH, HEADS, SEQ - PREFIX, DIM_HEAD)), {}
    static = {"thres": 0.5} if name.endswith("thres") else {}
    return Call(autoregressive_wrapper.top_k, **static), (_randn(BATCH, TOKENS),), {}


def _train(name: str) -> Built:
    import torch

    from gt_calls import Run
    from perceiver_ar_pytorch import PerceiverAR
    from perceiver_ar_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    keywords, kind, call, optimizer_name = TRAIN[name]
    model: Any = _perceiver(**keywords)
    if kind == "wrapper":
        model = AutoregressiveWrapper(model)
        ids = _ids(BATCH, SEQ + 1)
        static: dict[str, Any] = {}
        entries: list[Any] = [AutoregressiveWrapper]
    else:
        ids = _ids(BATCH, SEQ)
        static = _resolve(call, BATCH, SEQ)
        entries = [PerceiverAR]
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3) if optimizer_name == "adam" else None

    def step(owner: Any, x: Any) -> Any:
        """The loss, its gradients and (given an optimizer) one step."""
        loss = owner(x, **static)
        if torch.is_grad_enabled():
            loss.backward()
            if optimizer is not None:
                optimizer.step()
                optimizer.zero_grad()
        return loss.detach()

    return Run(model, step, entries), (ids,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in PERCEIVER:
        keywords, (batch, length), call = PERCEIVER[name]
        from gt_calls import Keywords

        model = _perceiver(**keywords)
        static = _resolve(call, batch, length)
        return (Keywords(model, **static) if static else model), (_ids(batch, length),), {}
    if name in WRAPPER:
        return _wrapper(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
