"""Ground-truth bench, compressive_transformer_pytorch: the Compressive Transformer, its wrapper and its parts.

compressive-transformer-pytorch 0.4.0 (lucidrains) implements the Compressive Transformer (Rae et al. 2019): a
Transformer-XL-style language model whose attention layers keep a FIFO memory of past activations and, as they
fall out of it, compress them (a strided 1-d convolution) into a compressed memory; in training each layer adds
an auxiliary reconstruction loss (full attention over the old memories against attention over their
compressions, on detached queries). ``CompressiveTransformer`` returns the logits, the next memories
(``Memory(mem, compressed_mem)``, detached) and the weighted auxiliary loss; it takes relative position
embeddings (shifted dot products), a padding mask, memories for only some layers (``memory_layers``),
"enhanced recurrence" (each layer gets the next layer's memories, a roll), GRU-gated residuals (optionally
mogrified, ``mogrifier``) or plain ones, a projected embedding width, a GLU feedforward and dropouts.
``AutoregressiveWrapper``'s forward is a generator: it cuts the sequence into segments of ``seq_len`` (and the
batch into ``max_batch_size`` slices), carries the memories from segment to segment and yields a
``Return(loss, aux_loss, is_last_batch)`` per slice; its ``generate`` primes the memories with the prompt's full
segments and samples, restarting its window at one token whenever a segment fills. The tables cover, at width
16, 2 heads, two layers, a 32-token vocabulary, a batch of 2 and segments of 8 (memories of 8, compressed ones
of 2):

- ``MODEL``: ``CompressiveTransformer`` forward: without memories (the first segment), with full or partial
  memories (so that memories are compressed and, in training, the reconstruction loss computed), a mask, a
  short segment (no memory update), no enhanced recurrence, plain residuals, a mogrified GRU gate, memories on
  one layer only, a projected embedding width, GLU, every dropout, a longer memory, a compression ratio that
  needs padding, no compressed memory, one layer; two segments in a row (the memories of the first fed to the
  second);
- ``WRAPPER``: ``AutoregressiveWrapper``'s segment-by-segment loss, drained by bench code as users do (two
  segments, a mask, batch slices, a last short segment, the auxiliary loss added), and
  ``generate`` through ``gt_calls.Method`` (a prompt shorter than a segment, a prompt longer than one (primed
  memories), top-p, an end token, a 1-d prompt, a mask, one memory layer, plain residuals);
- ``PARTS``: ``SelfAttention`` (memories and relative positions, a mask, without memory update, in training with
  its reconstruction loss), ``ConvCompress``, ``GRUGating`` (mogrified or not) and the helpers through
  ``gt_calls.Call``: ``shift``, ``queue_fifo`` (a length or none), ``full_attn``, ``reshape_dim``, ``top_k``,
  ``top_p``;
- ``TRAIN``: training steps: the wrapper's segments, each loss plus auxiliary loss backward, an Adam step (with
  and without batch slices, stepping on the last slice), and a model trained over two segments by hand.

Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, HEADS, BATCH, SEQ, DEPTH = 32, 16, 2, 2, 8, 2
CMEM = 2
GEN_LEN, PROMPT = 6, 4
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "seq_len": SEQ, "depth": DEPTH, "heads": HEADS}
MEM: tuple[str, ...] = ("memories",)

# ``CompressiveTransformer`` name -> (keywords over ``BASE``, inputs: "memories" (full), "partial" (memories of
# 4, no compressed ones), "mask", "short" (a segment of 5), "segments" (two segments in a row); the memory and
# compressed-memory lengths and the number of memory layers come from the keywords).
MODEL: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "CompressiveTransformer": ({}, ()),
    "CompressiveTransformer.memories": ({}, MEM),
    "CompressiveTransformer.partial_memories": ({}, ("partial",)),
    "CompressiveTransformer.mask": ({}, ("mask",)),
    "CompressiveTransformer.memories.mask": ({}, ("memories", "mask")),
    "CompressiveTransformer.short": ({}, ("short",)),
    "CompressiveTransformer.short.memories": ({}, ("short", "memories")),
    "CompressiveTransformer.no_enhanced_recurrence.memories": ({"enhanced_recurrence": False}, MEM),
    "CompressiveTransformer.residual.memories": ({"gru_gated_residual": False}, MEM),
    "CompressiveTransformer.mogrify_gru.memories": ({"mogrify_gru": True}, MEM),
    "CompressiveTransformer.memory_layers": ({"memory_layers": [2]}, ()),
    "CompressiveTransformer.memory_layers.memories": ({"memory_layers": [2]}, MEM),
    "CompressiveTransformer.emb_dim.memories": ({"emb_dim": 8}, MEM),
    "CompressiveTransformer.ff_glu.memories": ({"ff_glu": True}, MEM),
    "CompressiveTransformer.dropout.memories": ({"attn_dropout": 0.1, "ff_dropout": 0.1, "attn_layer_dropout": 0.1,
                                                 "reconstruction_attn_dropout": 0.1}, MEM),
    "CompressiveTransformer.mem_len16.memories": ({"mem_len": 16}, MEM),
    "CompressiveTransformer.cmem_ratio3.memories": ({"cmem_ratio": 3}, MEM),
    "CompressiveTransformer.no_cmem.memories": ({"cmem_ratio": 16}, MEM),
    "CompressiveTransformer.depth1.memories": ({"depth": 1, "reconstruction_loss_weight": 0.5}, MEM),
    "CompressiveTransformer.segments": ({}, ("segments",)),
    "CompressiveTransformer.segments.mask": ({}, ("segments", "mask")),
}
# ``AutoregressiveWrapper`` name -> (keywords over ``BASE``, what: "loss" or "generate", options: "mask",
# "slices" (``max_batch_size`` 1), "uneven" (a last short segment), "long" (a prompt
# longer than a segment), "top_p", "eos", "prompt1d").
WRAPPER: dict[str, tuple[dict[str, Any], str, tuple[str, ...]]] = {
    "AutoregressiveWrapper.loss": ({}, "loss", ()),
    "AutoregressiveWrapper.loss.mask": ({}, "loss", ("mask",)),
    "AutoregressiveWrapper.loss.slices": ({}, "loss", ("slices",)),
    "AutoregressiveWrapper.loss.uneven": ({}, "loss", ("uneven",)),
    "AutoregressiveWrapper.loss.memory_layers.mask": ({"memory_layers": [1]}, "loss", ("mask",)),
    "AutoregressiveWrapper.loss.residual.slices": ({"gru_gated_residual": False}, "loss", ("slices",)),
    "AutoregressiveWrapper.generate": ({}, "generate", ()),
    "AutoregressiveWrapper.generate.long": ({}, "generate", ("long",)),
    "AutoregressiveWrapper.generate.top_p": ({}, "generate", ("top_p",)),
    "AutoregressiveWrapper.generate.eos": ({}, "generate", ("eos",)),
    "AutoregressiveWrapper.generate.prompt1d": ({}, "generate", ("prompt1d",)),
    "AutoregressiveWrapper.generate.mask": ({}, "generate", ("mask",)),
    "AutoregressiveWrapper.generate.long.mask": ({}, "generate", ("long", "mask")),
    "AutoregressiveWrapper.generate.memory_layers": ({"memory_layers": [2]}, "generate", ()),
    "AutoregressiveWrapper.generate.residual": ({"gru_gated_residual": False}, "generate", ()),
}
PARTS = ("SelfAttention.memories", "SelfAttention.memories.mask", "SelfAttention.no_calc_memory",
         "SelfAttention.first_segment", "ConvCompress", "GRUGating", "GRUGating.mogrify")
# Function name -> (module: "model" or "wrapper", function, inputs, fixed keywords).
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    "shift": ("model", "shift", ("pos_dots",), {}),
    "queue_fifo": ("model", "queue_fifo", ("memory", "features"), {"length": SEQ, "dim": 1}),
    "queue_fifo.no_length": ("model", "queue_fifo", ("memory", "features"), {"length": 0, "dim": 1}),
    "full_attn": ("model", "full_attn", ("q", "k", "v"), {}),
    "reshape_dim": ("model", "reshape_dim", ("features",), {"dim": -1, "split_dims": (-1, DIM // HEADS)}),
    "top_k": ("wrapper", "top_k", ("logits",), {"thres": 0.8}),
    "top_p": ("wrapper", "top_p", ("logits",), {"thres": 0.8}),
}
TRAIN = ("train.AutoregressiveWrapper.adam", "train.AutoregressiveWrapper.slices.adam",
         "train.CompressiveTransformer.segments")


def names() -> list[str]:
    return [*MODEL, *WRAPPER, *PARTS, *FUNCTIONS, *TRAIN]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _model(**keywords: Any) -> Any:
    from compressive_transformer_pytorch import CompressiveTransformer

    return CompressiveTransformer(**{**BASE, **keywords})


def _ids(length: int = SEQ, seed: int = 1) -> Any:
    import torch

    return torch.randint(1, TOKENS, (BATCH, length), generator=_gen(seed))


def _features(length: int = SEQ, seed: int = 2, dim: int = DIM) -> Any:
    import torch

    return torch.randn(BATCH, length, dim, generator=_gen(seed))


def _mask(length: int = SEQ, cut: int = 2) -> Any:
    """A padding mask: the second row's last ``cut`` positions are off."""
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, -cut:] = False
    return mask


def _memories(model: Any, partial: bool = False) -> Any:
    """``Memory(mem, compressed_mem)`` as the model keeps them: one slice per memory layer, ``mem_len`` and
    ``cmem_len`` long (``partial``: half a memory, no compressed one yet)."""
    import torch
    from compressive_transformer_pytorch.compressive_transformer_pytorch import Memory

    layers = len(model.memory_layers)
    attention = model.attn_layers[0].fn.fn
    mem_len, cmem_len = (SEQ // 2, 0) if partial else (attention.mem_len, attention.cmem_len)
    gen = _gen(3)
    dim = model.pos_emb.shape[0] * model.pos_emb.shape[2]
    return Memory(torch.randn(layers, BATCH, mem_len, dim, generator=gen),
                  torch.randn(layers, BATCH, cmem_len, dim, generator=gen))


def _model_forward(name: str) -> Built:
    from compressive_transformer_pytorch import CompressiveTransformer

    from gt_calls import Run

    keywords, inputs = MODEL[name]
    model = _model(**keywords)
    if "segments" in inputs:
        masked = "mask" in inputs

        def segments(owner: Any, ids: Any, *mask: Any) -> Any:
            """Two segments in a row, the first one's memories fed to the second; the summed losses' stand-in."""
            first, second = ids.split(SEQ, dim=1)
            masks = mask[0].split(SEQ, dim=1) if mask else (None, None)
            logits1, memories, aux1 = owner(first, mask=masks[0])
            logits2, memories, aux2 = owner(second, memories=memories, mask=masks[1])
            return logits1.mean() + logits2.mean() + aux1 + aux2, memories

        args = (_ids(2 * SEQ), _mask(2 * SEQ)) if masked else (_ids(2 * SEQ),)
        return Run(model, segments, [CompressiveTransformer]), args, {}
    length = 5 if "short" in inputs else SEQ
    calls: dict[str, Any] = {}
    if "memories" in inputs or "partial" in inputs:
        calls["memories"] = _memories(model, partial="partial" in inputs)
    if "mask" in inputs:
        calls["mask"] = _mask(length)
    return model, (_ids(length),), calls


def _wrapper(name: str) -> Built:
    from compressive_transformer_pytorch import AutoregressiveWrapper, CompressiveTransformer
    from compressive_transformer_pytorch import autoregressive_wrapper as wrapper_module

    from gt_calls import Method, Run

    keywords, what, options = WRAPPER[name]
    wrapper = AutoregressiveWrapper(_model(**keywords))
    if what == "loss":
        length = 13 if "uneven" in options else 2 * SEQ + 1
        calls: dict[str, Any] = {}
        if "mask" in options:
            calls["mask"] = _mask(length, cut=3)
        if "slices" in options:
            calls["max_batch_size"] = 1

        def losses(owner: Any, x: Any) -> Any:
            """Drain the wrapper's generator: every slice's loss plus its auxiliary loss, summed."""
            total = 0.0
            for loss, aux_loss, _ in owner(x, return_loss=True, **calls):
                total = total + loss + aux_loss
            return total

        return Run(wrapper, losses, [AutoregressiveWrapper.forward, CompressiveTransformer]), (_ids(length),), {}
    static: dict[str, Any] = {}
    prompt_len = SEQ + 3 if "long" in options else PROMPT
    if "top_p" in options:
        static.update(filter_logits_fn=wrapper_module.top_p, filter_thres=0.8, temperature=0.7)
    if "eos" in options:
        static["eos_token"] = 0
    if "mask" in options:
        static["mask"] = _mask(prompt_len, cut=1)
    prompt = _ids(prompt_len, seed=5)
    if "prompt1d" in options:
        prompt = prompt[0]
    return Method(wrapper, "generate", seq_len=GEN_LEN, **static), (prompt,), {}


def _part(name: str) -> Built:
    import torch
    from compressive_transformer_pytorch import compressive_transformer_pytorch as ct

    gen = _gen(4)
    if name.startswith("SelfAttention"):
        attention = ct.SelfAttention(DIM, SEQ, SEQ, CMEM, 4, HEADS)
        total = SEQ + SEQ + CMEM
        pos_emb = torch.randn(HEADS, total, DIM // HEADS, generator=gen)
        calls: dict[str, Any] = {"pos_emb": pos_emb}
        if name != "SelfAttention.first_segment":
            calls["memories"] = (_features(SEQ, seed=5), _features(CMEM, seed=6))
        if name.endswith("mask"):
            calls["input_mask"] = _mask()
        if name.endswith("no_calc_memory"):
            calls["calc_memory"] = False
        return attention, (_features(),), calls
    if name == "ConvCompress":
        return ct.ConvCompress(DIM, 4), (_features(),), {}
    gating = ct.GRUGating(DIM, ct.PreNorm(DIM, ct.FeedForward(DIM)), mogrify=name.endswith("mogrify"))
    return gating, (_features(),), {}


def _function(name: str) -> Built:
    import importlib

    import torch

    from gt_calls import Call

    module, function, inputs, static = FUNCTIONS[name]
    modules = {"model": "compressive_transformer_pytorch.compressive_transformer_pytorch",
               "wrapper": "compressive_transformer_pytorch.autoregressive_wrapper"}
    gen = _gen(6)
    head = DIM // HEADS
    tensors = {
        "pos_dots": lambda: torch.randn(BATCH, HEADS, SEQ, 3 * SEQ, generator=gen),
        "memory": lambda: _features(SEQ, seed=7),
        "features": lambda: _features(),
        "q": lambda: torch.randn(BATCH, HEADS, SEQ, head, generator=gen),
        "k": lambda: torch.randn(BATCH, HEADS, 2 * SEQ, head, generator=gen),
        "v": lambda: torch.randn(BATCH, HEADS, 2 * SEQ, head, generator=gen),
        "logits": lambda: torch.randn(BATCH, TOKENS, generator=gen),
    }
    function_object = getattr(importlib.import_module(modules[module]), function)
    return Call(function_object, **static), tuple(tensors[i]() for i in inputs), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from compressive_transformer_pytorch import AutoregressiveWrapper, CompressiveTransformer

    from gt_calls import Run

    if name.startswith("train.AutoregressiveWrapper"):
        wrapper = AutoregressiveWrapper(_model())
        optimizer = torch.optim.Adam(wrapper.parameters(), lr=1e-3)
        slices = {"max_batch_size": 1} if ".slices" in name else {}

        def step(owner: Any, x: Any) -> Any:
            """Per segment and slice: the loss plus the auxiliary loss backward; an Adam step on the last slice."""
            total = 0.0
            for loss, aux_loss, is_last in owner(x, return_loss=True, **slices):
                combined = loss + aux_loss * 0.5
                if torch.is_grad_enabled():
                    combined.backward()
                    if is_last:
                        optimizer.step()
                        optimizer.zero_grad()
                total = total + combined.detach()
            return total

        return Run(wrapper, step, [AutoregressiveWrapper.forward, CompressiveTransformer]), (_ids(2 * SEQ + 1),), {}

    def segments(owner: Any, ids: Any) -> Any:
        """Two segments by hand: next-token cross-entropy plus the reconstruction loss, backward per segment."""
        memories, total = None, 0.0
        for segment in ids.split(SEQ + 1, dim=1):
            inputs, targets = segment[:, :-1], segment[:, 1:]
            logits, memories, aux_loss = owner(inputs, memories=memories)
            loss = F.cross_entropy(logits.transpose(1, 2), targets) + aux_loss
            if torch.is_grad_enabled():
                loss.backward()
            total = total + loss.detach()
        return total

    return Run(_model(), segments, [CompressiveTransformer]), (_ids(2 * (SEQ + 1)),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODEL:
        return _model_forward(name)
    if name in WRAPPER:
        return _wrapper(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
