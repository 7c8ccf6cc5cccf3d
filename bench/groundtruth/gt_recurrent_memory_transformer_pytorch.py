"""Ground-truth bench, recurrent_memory_transformer_pytorch: the Recurrent Memory Transformer and its wrapper.

recurrent-memory-transformer-pytorch (lucidrains) ships ``RecurrentMemoryTransformer``: a transformer over one
segment with read memory tokens before it and write memory tokens after it (the write memories of one segment
are the read memories of the next), Transformer-XL memories (each layer's keys and values, optionally shifted
down a layer), a null key / value, value residuals from the first layer, hyper-connected residual streams, a
custom causal mask that leaves the memories bidirectional, absolute or rotary positions, and an optional flash
path (``scaled_dot_product_attention`` under ``sdp_kernel``). ``RecurrentMemoryTransformerWrapper`` splits a
long sequence into segments and carries the memories across them, with truncated backpropagation, memory
replay backpropagation (the backward passes run inside its forward) and ``generate``. The tables cover, at
width 16, one or two layers, 2 heads of 8, 4 memory tokens, segments of 8, a 32-token vocabulary and a batch
of 2:

- ``TRANSFORMER``: ``RecurrentMemoryTransformer`` forward: logits or the loss (labels), read memories passed
  back (batched or shared), XL memories from a previous segment (plain, enhanced recurrence, shorter), no XL
  memories, a padding mask, a bidirectional model, rotary positions (with and without absolute ones, with XL
  memories), flash attention (with a mask, with XL memories, and causal in the kernel:
  ``memory_not_causal=False``, which fails eagerly on the einsum path, the null key making the keys one longer
  than the causal mask), no read memories on the first segment, masked-out read memories, previous write
  memories added to the next (with and without their gradient), one residual stream, dropout, the full
  embedding gradient, a segment shorter than the maximum;
- ``WRAPPER``: ``RecurrentMemoryTransformerWrapper`` forward over 1 to 3 segments (even or not): logits or
  the loss, a mask, initial memories, truncated backpropagation (at init and per call), rotary and flash
  transformers, no XL memories; memory replay backpropagation over two segments (in ``torch.enable_grad``, as
  in training: plain, and truncated with initial memories, a mask and a loss weight);
- ``GENERATE``: ``RecurrentMemoryTransformerWrapper.generate`` through ``gt_calls.Method`` (3 tokens after a
  prime of 6 or 14, the last closing a segment): a prime longer than a segment, sampling options, memories
  and XL memories passed in, rotary positions, no XL memories;
- ``PARTS``: ``Attention`` (plain, a value residual, XL memories with a mask, rotary embeddings, flash),
  ``Attend`` (causal, a padding mask, a 4-d mask, flash causal and masked, dropout), ``RotaryEmbedding``,
  ``FeedForward`` and ``init_memory``;
- ``FUNCTIONS``: ``top_k``, ``gumbel_sample``, ``frac_gradient`` (a fraction and the whole gradient) and
  ``apply_rotary_pos_emb`` through ``gt_calls.Call``.

Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TOKENS, DIM, HEADS, DIM_HEAD, MEMORIES, SEQ, BATCH = 32, 16, 2, 8, 4, 8, 2
BASE: dict[str, Any] = {"dim": DIM, "num_tokens": TOKENS, "depth": 1, "num_memory_tokens": MEMORIES, "seq_len": SEQ,
                        "dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2}
DEPTH2: dict[str, Any] = {"depth": 2}
ROTARY: dict[str, Any] = {"rotary_pos_emb": True, "abs_pos_emb": False}
FLASH: dict[str, Any] = {"use_flash_attn": True}
MEMORY_CAUSAL: dict[str, Any] = {"memory_not_causal": False}
LABELS: dict[str, Any] = {"labels": "labels"}
MEMS: dict[str, Any] = {"read_memories": "memories"}
XL: dict[str, Any] = {"read_memories": "memories", "xl_memories": "xl_memories"}

# ``RecurrentMemoryTransformer`` name -> (keywords over ``BASE``, segment length, call keywords; the values
# "memories", "memories_2d", "xl_memories", "mask" and "labels" are resolved to tensors).
TRANSFORMER: dict[str, tuple[dict[str, Any], int, dict[str, Any]]] = {
    "RMT": ({}, SEQ, {}),
    "RMT.depth2.read_memories.labels": (DEPTH2, SEQ, {**MEMS, **LABELS}),
    "RMT.read_memories": ({}, SEQ, MEMS),
    "RMT.read_memories_2d": ({}, SEQ, {"read_memories": "memories_2d"}),
    "RMT.xl_memories": (DEPTH2, SEQ, XL),
    "RMT.xl_memories.enhanced": ({**DEPTH2, "enhanced_xl_recurrence": True}, SEQ, XL),
    "RMT.xl_memories.xl_mem_len.labels": ({"xl_mem_len": 4}, SEQ, {**XL, **LABELS}),
    "RMT.no_xl_memories": ({"use_xl_memories": False}, SEQ, MEMS),
    "RMT.mask.read_memories.labels": ({}, SEQ, {**MEMS, "mask": "mask", **LABELS}),
    "RMT.not_causal": ({"causal": False}, SEQ, MEMS),
    "RMT.not_causal.mask": ({"causal": False}, SEQ, {"mask": "mask"}),
    "RMT.rotary": (ROTARY, SEQ, MEMS),
    "RMT.rotary.abs_pos_emb.labels": ({"rotary_pos_emb": True}, SEQ, LABELS),
    "RMT.rotary.xl_memories": ({**ROTARY, **DEPTH2}, SEQ, XL),
    "RMT.flash.mask": (FLASH, SEQ, {**MEMS, "mask": "mask"}),
    "RMT.flash.memory_causal": ({**FLASH, **MEMORY_CAUSAL}, SEQ, MEMS),
    "RMT.flash.xl_memories.labels": ({**FLASH, **DEPTH2}, SEQ, {**XL, **LABELS}),
    "RMT.no_first_read_memories": ({"always_have_read_memories": False}, SEQ, {}),
    "RMT.mask_out_read_memories": ({}, SEQ, {"mask": "mask", "mask_out_read_memories": True}),
    "RMT.add_write_to_next_write_mem": ({"add_write_to_next_write_mem": True}, SEQ, MEMS),
    "RMT.add_write_to_next_write_mem.grad": ({"add_write_to_next_write_mem": True, "next_write_mem_stop_grad": False},
                                             SEQ, {**MEMS, **LABELS}),
    "RMT.one_stream.full_emb_gradient": ({"num_residual_streams": 1, "emb_gradient_frac": 1.0}, SEQ, MEMS),
    "RMT.dropout.labels": ({"attn_dropout": 0.1, "ff_dropout": 0.1}, SEQ, {**MEMS, **LABELS}),
    "RMT.short_segment": ({}, SEQ - 3, MEMS),
}
# ``RecurrentMemoryTransformerWrapper`` forward name -> (transformer keywords over ``BASE``, wrapper keywords,
# sequence length, call keywords; "memories" and "mask" are resolved to tensors). ``return_loss`` takes one
# token more than the segments hold (the labels are the shifted ids).
LOSS: dict[str, Any] = {"return_loss": True}
MRBP: dict[str, Any] = {"memory_replay_backprop": True}
WRAPPER: dict[str, tuple[dict[str, Any], dict[str, Any], int, dict[str, Any]]] = {
    "Wrapper": ({}, {}, 3 * SEQ, {}),
    "Wrapper.one_segment": ({}, {}, SEQ, {}),
    "Wrapper.uneven.return_loss": ({}, {}, SEQ + 4, LOSS),
    "Wrapper.mask.return_loss": ({}, {}, 2 * SEQ + 1, {"mask": "mask", **LOSS}),
    "Wrapper.memories.mask": ({}, {}, 2 * SEQ, {"memories": "memories", "mask": "mask"}),
    "Wrapper.truncate_at_step": ({}, {"truncate_at_step": 2}, 3 * SEQ + 1, LOSS),
    "Wrapper.truncate_call": ({}, {}, 2 * SEQ, {"truncate_at_step": 1}),
    "Wrapper.rotary.return_loss": (ROTARY, {}, 2 * SEQ + 1, LOSS),
    "Wrapper.flash.return_loss": (FLASH, {}, 2 * SEQ + 1, LOSS),
    "Wrapper.no_xl_memories": ({"use_xl_memories": False}, {}, 2 * SEQ, {}),
    "Wrapper.mrbp": ({}, {}, 2 * SEQ + 1, MRBP),
    "Wrapper.mrbp.truncate_at_step.memories.mask": ({}, {"truncate_at_step": 1}, 2 * SEQ + 1,
                                                    {**MRBP, "memories": "memories", "mask": "mask",
                                                     "mrbp_loss_weight": 0.5}),
}
# ``generate`` name -> (transformer keywords over ``BASE``, prime length, fixed keywords; "memories" and
# "xl_memories" are resolved to tensors). Each samples ``GEN_NEW`` tokens, the last one closing a segment.
GEN_PRIME, GEN_NEW = 6, 3
GENERATE: dict[str, tuple[dict[str, Any], int, dict[str, Any]]] = {
    "generate": ({}, GEN_PRIME, {}),
    "generate.long_prime.no_xl_memories": ({"use_xl_memories": False}, SEQ + GEN_PRIME, {"temperature": 0.7}),
    "generate.memories": ({}, GEN_PRIME, {"memories": "memories", "filter_thres": 0.5}),
    "generate.xl_memories": (DEPTH2, GEN_PRIME, {"memories": "memories", "xl_memories": "xl_memories"}),
    "generate.rotary.long_prime": (ROTARY, SEQ + GEN_PRIME, {}),
}
PARTS = ("Attention", "Attention.value_residual", "Attention.xl_memories.mask", "Attention.rotary",
         "Attention.flash.mask", "Attend", "Attend.causal", "Attend.mask", "Attend.mask4d", "Attend.flash.causal",
         "Attend.flash.mask", "Attend.dropout", "RotaryEmbedding", "FeedForward", "init_memory")
FUNCTIONS = ("top_k", "gumbel_sample", "frac_gradient", "frac_gradient.whole", "apply_rotary_pos_emb")


def names() -> list[str]:
    return [*TRANSFORMER, *WRAPPER, *(f"Wrapper.{g}" for g in GENERATE), *PARTS, *FUNCTIONS]


def _transformer(keywords: dict[str, Any]) -> Any:
    from recurrent_memory_transformer_pytorch import RecurrentMemoryTransformer

    return RecurrentMemoryTransformer(**{**BASE, **keywords})


def _ids(length: int, seed: int = 1) -> Any:
    import torch

    return torch.randint(0, TOKENS, (BATCH, length), generator=torch.Generator().manual_seed(seed))


def _resolve(call: dict[str, Any], transformer: Any, length: int) -> dict[str, Any]:
    """``call`` with its named inputs made: memories and XL memories from a previous segment (run without
    gradients), a padding mask over ``length`` tokens (the last three of the second row out), labels."""
    import torch

    gen = torch.Generator().manual_seed(2)
    previous: list[Any] = []

    def segment() -> Any:
        if not previous:
            with torch.no_grad():
                previous.extend(transformer(_ids(SEQ, seed=3))[1:])
        return previous

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, -3:] = False
    values = {
        "memories": lambda: segment()[0],
        "memories_2d": lambda: torch.randn(MEMORIES, DIM, generator=gen),
        "xl_memories": lambda: segment()[1],
        "mask": lambda: mask,
        "labels": lambda: _ids(length, seed=4),
    }
    return {k: values[v]() if isinstance(v, str) and v in values else v for k, v in call.items()}


def _forward(name: str) -> Built:
    keywords, length, call = TRANSFORMER[name]
    model = _transformer(keywords)
    return model, (_ids(length),), _resolve(call, model, length)


def _wrapper(name: str) -> Built:
    import torch
    from recurrent_memory_transformer_pytorch import RecurrentMemoryTransformerWrapper
    from torch import nn

    class _ReplayBackprop(nn.Module):
        """The wrapper's memory replay backpropagation, with gradients on whatever the mode (its forward runs
        the backward passes itself, as in training)."""

        def __init__(self, wrapper: Any) -> None:
            super().__init__()
            self.wrapper = wrapper

        def forward(self, x: Any, **kwargs: Any) -> Any:
            with torch.enable_grad():
                return self.wrapper(x, **kwargs)

        def entry_points(self) -> list[Any]:
            return [RecurrentMemoryTransformerWrapper]

    keywords, wrapper_keywords, length, call = WRAPPER[name]
    transformer = _transformer(keywords)
    wrapper = RecurrentMemoryTransformerWrapper(transformer, **wrapper_keywords)
    mask_length = length - 1 if call.get("return_loss") or call.get("memory_replay_backprop") else length
    call = _resolve(call, transformer, mask_length)
    if call.get("memory_replay_backprop"):
        return _ReplayBackprop(wrapper), (_ids(length),), call
    return wrapper, (_ids(length),), call


def _generate(name: str) -> Built:
    from gt_calls import Method
    from recurrent_memory_transformer_pytorch import RecurrentMemoryTransformerWrapper

    keywords, prime, static = GENERATE[name.split(".", 1)[1]]
    transformer = _transformer(keywords)
    static = _resolve(static, transformer, prime)
    return Method(RecurrentMemoryTransformerWrapper(transformer), "generate", length=prime + GEN_NEW, **static), \
        (_ids(prime),), {}


def _part(name: str) -> Built:
    import torch
    from gt_calls import Method
    from recurrent_memory_transformer_pytorch import recurrent_memory_transformer as R
    from recurrent_memory_transformer_pytorch.attend import Attend

    gen = torch.Generator().manual_seed(5)
    x = torch.randn(BATCH, SEQ, DIM, generator=gen)
    mask = torch.arange(SEQ).expand(BATCH, SEQ) < torch.tensor([[SEQ], [SEQ - 3]])

    def heads(n: int) -> Any:
        return torch.randn(BATCH, HEADS, n, DIM_HEAD, generator=gen)

    if name.startswith("Attention"):
        # As the transformer builds it by default: causal through its own mask, the kernel not causal.
        attention = R.Attention(dim=DIM, dim_head=DIM_HEAD, heads=HEADS, causal=True, use_custom_causal_attn_mask=True,
                                use_flash_attn=".flash" in name, accept_value_residual=name.endswith("value_residual"))
        if name.endswith("value_residual"):
            return attention, (x,), {"value_residual": heads(SEQ)}
        if name.endswith("xl_memories.mask"):
            xl = torch.stack((heads(SEQ + 1), heads(SEQ + 1)))
            return attention, (x,), {"xl_memories": xl, "mask": mask}
        if name.endswith("rotary"):
            rotary = R.RotaryEmbedding(DIM_HEAD)
            return attention, (x,), {"rotary_emb": (rotary(torch.arange(SEQ).float()),
                                                    rotary(torch.arange(SEQ + 1).float()))}
        return attention, (x,), {"mask": mask} if name.endswith("mask") else {}
    if name.startswith("Attend"):
        attend = Attend(causal=name.endswith(("causal", "dropout")), dropout=0.1 if name.endswith("dropout") else 0.0,
                        use_flash=".flash" in name)
        q, k, v = heads(SEQ), heads(SEQ), heads(SEQ)
        if name.endswith("mask4d"):
            return attend, (q, k, v), {"mask": torch.ones(SEQ, SEQ, dtype=torch.bool).tril()[None, None]}
        return attend, (q, k, v), {"mask": mask} if name.endswith("mask") else {}
    if name == "RotaryEmbedding":
        return R.RotaryEmbedding(DIM_HEAD), (torch.arange(SEQ).float() + 10000,), {}
    if name == "FeedForward":
        return R.FeedForward(DIM, mult=2, dropout=0.1), (x,), {}
    return Method(_transformer({}), "init_memory", batch=BATCH), (), {}


def _function(name: str) -> Built:
    import torch
    from gt_calls import Call
    from recurrent_memory_transformer_pytorch import recurrent_memory_transformer as R

    gen = torch.Generator().manual_seed(6)
    logits = torch.randn(BATCH, TOKENS, generator=gen)
    if name == "top_k":
        return Call(R.top_k, thres=0.8), (logits,), {}
    if name == "gumbel_sample":
        return Call(R.gumbel_sample, temperature=0.7), (logits,), {}
    if name.startswith("frac_gradient"):
        return Call(R.frac_gradient, frac=1.0 if name.endswith("whole") else 0.1), (logits,), {}
    return Call(R.apply_rotary_pos_emb), (torch.randn(SEQ, DIM_HEAD, generator=gen),
                                          torch.randn(BATCH, HEADS, SEQ, DIM_HEAD, generator=gen)), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in TRANSFORMER:
        return _forward(name)
    if name in WRAPPER:
        return _wrapper(name)
    if name.startswith("Wrapper.generate"):
        return _generate(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    raise KeyError(name)
