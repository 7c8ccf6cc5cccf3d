"""Ground-truth bench, memory_efficient_attention_pytorch: chunked, cosine-sim and flash attention, a reversible
transformer and its autoregressive wrapper.

memory-efficient-attention-pytorch 0.1.6 (lucidrains) implements attention that never holds the whole
attention matrix. ``Attention`` runs plain attention or, with ``memory_efficient``, ``memory_efficient_attention``:
queries split into buckets of ``q_bucket_size`` and keys into ``k_bucket_size``, each pair summarised (checkpointed
when the inputs need gradients) and renormalised by the running maxima, with key masks, causal masking that skips
chunks wholly in the future, an attention bias and dropout in training. ``CosineSimAttention`` l2-normalises
queries and keys under a learned scale and chunks without the maxima
(``numerically_unstable_memory_efficient_attention``). ``FlashAttention`` is the flash algorithm in plain PyTorch,
a custom ``autograd.Function`` with a tiled forward and backward (key masks, 4-d masks split by rows and columns,
causal with keys longer than queries); ``cosine_sim_flash_attention.FlashAttention`` is its cosine-similarity
variant with a fixed scale. ``transformer.Transformer`` stacks pre-norm flash or memory-efficient attention and
(chunked) feedforwards in a ``ReversibleSequence`` (a custom function whose backward recomputes each block under
saved RNG states), and ``AutoregressiveWrapper`` gives it a next-token loss and a top-k ``generate`` loop. The
tables cover, at width 16, 2 heads of 8, a batch of 2, sequences of 16 and buckets of 4 queries and 8 keys (so
every path loops over several chunks):

- ``ATTENTION``: ``Attention`` plain and memory-efficient: causal, a key mask (2-d, and 4-d on the plain path),
  an attention bias, cross-attention on a longer context (with its mask, causal), dropout, one bucket, uneven
  buckets, the path and bucket sizes overridden in the call;
- ``COSINE``: ``CosineSimAttention`` likewise (plain and chunked; causal, mask, bias, context, overrides);
- ``FLASH``: both ``FlashAttention`` modules: causal, key masks, 4-d masks (per query row and column, per row
  only), cross-attention (keys longer than queries, causal, masked), one bucket, uneven buckets, bucket sizes in
  the call, the cosine variant's scale;
- ``FUNCTIONS``: through ``gt_calls.Call``: ``attention``, ``memory_efficient_attention`` (masks, causal, bias,
  dropout in training, inputs needing gradients, hence the checkpointed chunks),
  ``numerically_unstable_memory_efficient_attention``, both ``FlashAttentionFunction.apply``, ``top_k``,
  ``route_args``;
- ``MODELS``: ``Transformer`` (flash or memory-efficient attention, causal, labels for the loss, chunked
  feedforward, two layers, bucket sizes), ``AutoregressiveWrapper`` forward (the loss) and ``generate``
  (temperature and filtering, a window cropped to ``max_seq_len``, an end token, memory-efficient attention);
- ``PARTS``: ``ReversibleSequence`` (with a mask routed to its attention), ``ReversibleBlock``,
  ``Deterministic`` (recording the RNG state), ``PreNorm``, ``FeedForward`` (chunked or not);
- ``TRAIN``: backward passes: the gradient of each attention module's output (the checkpointed chunks, the flash
  backward with and without masks), ``torch.autograd.grad`` through ``FlashAttentionFunction``, and optimizer
  steps of the reversible transformer's loss (flash and memory-efficient).

Random weights and inputs, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, HEADS, DIM_HEAD, BATCH, SEQ, CONTEXT = 16, 2, 8, 2, 16, 24
TOKENS, MAX_SEQ, PROMPT, GEN = 32, 16, 4, 6
BUCKETS: dict[str, Any] = {"q_bucket_size": 4, "k_bucket_size": 8}
BASE: dict[str, Any] = {"dim": DIM, "heads": HEADS, "dim_head": DIM_HEAD, **BUCKETS}
EFFICIENT: dict[str, Any] = {**BASE, "memory_efficient": True}
CAUSAL: dict[str, Any] = {"causal": True}

# Module name -> (constructor keywords, call inputs: "mask", "mask4d", "mask_rows", "bias", "context",
# "context_mask", or "<keyword>=<value>" for a keyword passed in the call; the sequence is ``SEQ`` long unless
# "short" (15)).
ATTENTION: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "Attention": (BASE, ()),
    "Attention.causal": ({**BASE, **CAUSAL}, ()),
    "Attention.mask": (BASE, ("mask",)),
    "Attention.mask4d": (BASE, ("mask4d",)),
    "Attention.attn_bias": (BASE, ("bias",)),
    "Attention.causal.mask.attn_bias": ({**BASE, **CAUSAL}, ("mask", "bias")),
    "Attention.context": (BASE, ("context",)),
    "Attention.context.mask": (BASE, ("context", "context_mask")),
    "Attention.dropout": ({**BASE, "dropout": 0.1}, ()),
    "Attention.memory_efficient": (EFFICIENT, ()),
    "Attention.memory_efficient.causal": ({**EFFICIENT, **CAUSAL}, ()),
    "Attention.memory_efficient.mask": (EFFICIENT, ("mask",)),
    "Attention.memory_efficient.attn_bias": (EFFICIENT, ("bias",)),
    "Attention.memory_efficient.causal.mask.attn_bias": ({**EFFICIENT, **CAUSAL}, ("mask", "bias")),
    "Attention.memory_efficient.context": (EFFICIENT, ("context",)),
    "Attention.memory_efficient.context.mask": (EFFICIENT, ("context", "context_mask")),
    "Attention.memory_efficient.context.causal": ({**EFFICIENT, **CAUSAL}, ("context",)),
    "Attention.memory_efficient.dropout": ({**EFFICIENT, "dropout": 0.1}, ()),
    "Attention.memory_efficient.dropout.mask": ({**EFFICIENT, "dropout": 0.1}, ("mask",)),
    "Attention.memory_efficient.one_bucket": ({**EFFICIENT, "q_bucket_size": 512, "k_bucket_size": 1024}, ()),
    "Attention.memory_efficient.uneven_buckets.causal": ({**EFFICIENT, **CAUSAL, "q_bucket_size": 6,
                                                          "k_bucket_size": 5}, ("short",)),
    "Attention.override.memory_efficient": (BASE, ("memory_efficient=True", "q_bucket_size=8")),
    "Attention.override.plain": (EFFICIENT, ("memory_efficient=False",)),
    "Attention.override.buckets": (EFFICIENT, ("q_bucket_size=16", "k_bucket_size=4")),
}
COSINE: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "CosineSimAttention": (BASE, ()),
    "CosineSimAttention.causal": ({**BASE, **CAUSAL}, ()),
    "CosineSimAttention.mask": (BASE, ("mask",)),
    "CosineSimAttention.attn_bias": (BASE, ("bias",)),
    "CosineSimAttention.context.mask": (BASE, ("context", "context_mask")),
    "CosineSimAttention.memory_efficient": (EFFICIENT, ()),
    "CosineSimAttention.memory_efficient.causal": ({**EFFICIENT, **CAUSAL}, ()),
    "CosineSimAttention.memory_efficient.mask": (EFFICIENT, ("mask",)),
    "CosineSimAttention.memory_efficient.attn_bias": (EFFICIENT, ("bias",)),
    "CosineSimAttention.memory_efficient.causal.mask.attn_bias": ({**EFFICIENT, **CAUSAL}, ("mask", "bias")),
    "CosineSimAttention.memory_efficient.context.mask": (EFFICIENT, ("context", "context_mask")),
    "CosineSimAttention.memory_efficient.uneven_buckets": ({**EFFICIENT, "q_bucket_size": 6, "k_bucket_size": 5},
                                                           ("short",)),
    "CosineSimAttention.override.memory_efficient": (BASE, ("memory_efficient=True",)),
}
FLASH: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "FlashAttention": (BASE, ()),
    "FlashAttention.causal": ({**BASE, **CAUSAL}, ()),
    "FlashAttention.mask": (BASE, ("mask",)),
    "FlashAttention.causal.mask": ({**BASE, **CAUSAL}, ("mask",)),
    "FlashAttention.mask4d": (BASE, ("mask4d",)),
    "FlashAttention.mask_rows": (BASE, ("mask_rows",)),
    "FlashAttention.context": (BASE, ("context",)),
    "FlashAttention.context.causal": ({**BASE, **CAUSAL}, ("context",)),
    "FlashAttention.context.mask": (BASE, ("context", "context_mask")),
    "FlashAttention.one_bucket": ({**BASE, "q_bucket_size": 512, "k_bucket_size": 1024}, ()),
    "FlashAttention.uneven_buckets.causal": ({**BASE, **CAUSAL, "q_bucket_size": 6, "k_bucket_size": 5},
                                             ("short",)),
    "FlashAttention.override.buckets": (BASE, ("q_bucket_size=8", "k_bucket_size=4")),
    "CosineFlashAttention": (BASE, ()),
    "CosineFlashAttention.causal": ({**BASE, **CAUSAL}, ()),
    "CosineFlashAttention.mask": ({**BASE, "q_bucket_size": 8, "k_bucket_size": 8}, ("mask",)),
    "CosineFlashAttention.context": (BASE, ("context",)),
    "CosineFlashAttention.context.causal": ({**BASE, **CAUSAL}, ("context",)),
    "CosineFlashAttention.scale8.one_bucket": ({**BASE, "scale": 8, "q_bucket_size": 512, "k_bucket_size": 1024},
                                               ()),
    "CosineFlashAttention.override.buckets": (BASE, ("q_bucket_size=8", "k_bucket_size=16")),
}
# Function name -> (module, function, inputs (names of ``_tensors``), fixed keywords).
ME, CS, FA, CF = ("memory_efficient_attention", "memory_efficient_cosine_sim_attention", "flash_attention",
                  "cosine_sim_flash_attention")
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    "attention": (ME, "attention", ("q", "k", "v"), {}),
    "attention.causal.mask.bias": (ME, "attention", ("q", "k", "v", "mask", "causal", "bias"), {}),
    "memory_efficient_attention": (ME, "memory_efficient_attention", ("q", "k", "v"), BUCKETS),
    "memory_efficient_attention.causal": (ME, "memory_efficient_attention", ("q", "k", "v"), {**BUCKETS, **CAUSAL}),
    "memory_efficient_attention.mask.bias": (ME, "memory_efficient_attention", ("q", "k", "v", "mask", "causal",
                                                                                "bias"), BUCKETS),
    "memory_efficient_attention.dropout.training": (ME, "memory_efficient_attention", ("q", "k", "v"),
                                                    {**BUCKETS, "dropout": 0.1, "training": True}),
    "memory_efficient_attention.requires_grad": (ME, "memory_efficient_attention", ("q_grad", "k", "v"),
                                                 {**BUCKETS, **CAUSAL}),
    "memory_efficient_attention.requires_grad.mask": (ME, "memory_efficient_attention", ("q_grad", "k", "v", "mask"),
                                                      BUCKETS),
    "memory_efficient_attention.default_buckets": (ME, "memory_efficient_attention", ("q", "k", "v"), {}),
    "cosine.attention": (CS, "attention", ("q", "k", "v", "mask", "causal"), {}),
    "numerically_unstable_memory_efficient_attention": (CS, "numerically_unstable_memory_efficient_attention",
                                                        ("q", "k", "v"), BUCKETS),
    "numerically_unstable_memory_efficient_attention.causal.mask": (
        CS, "numerically_unstable_memory_efficient_attention", ("q", "k", "v", "mask"), {**BUCKETS, **CAUSAL}),
    "numerically_unstable_memory_efficient_attention.requires_grad.bias": (
        CS, "numerically_unstable_memory_efficient_attention", ("q_grad", "k", "v"), {**BUCKETS, "attn_bias": "bias"}),
    "FlashAttentionFunction.apply": (FA, "FlashAttentionFunction.apply", ("q", "k", "v", "none", "false", "4", "8"),
                                     {}),
    "FlashAttentionFunction.apply.causal.mask": (FA, "FlashAttentionFunction.apply",
                                                 ("q", "k", "v", "mask", "true", "4", "8"), {}),
    "cosine.FlashAttentionFunction.apply": (CF, "FlashAttentionFunction.apply",
                                            ("qn", "kn", "v", "none", "scale", "true", "4", "8"), {}),
    "top_k": ("autoregressive_wrapper", "top_k", ("logits",), {}),
    "top_k.thres": ("autoregressive_wrapper", "top_k", ("logits",), {"thres": 0.5}),
    "route_args": ("reversible", "route_args", ("router", "route_kwargs", "depth"), {}),
}
# Model name -> (``Transformer`` keywords, what runs: "logits", "labels" (the loss), "wrapper" (the
# ``AutoregressiveWrapper`` loss), or "generate" with its keywords).
TRANSFORMER: dict[str, Any] = {"num_tokens": TOKENS, "max_seq_len": MAX_SEQ, "dim": DIM, "depth": 1,
                               "heads": HEADS, "dim_head": DIM_HEAD, "ff_mult": 2, **BUCKETS}
NO_FLASH: dict[str, Any] = {"use_flash_attn": False}
MODELS: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "Transformer": ({}, "logits", {}),
    "Transformer.causal": (CAUSAL, "logits", {}),
    "Transformer.labels": ({}, "labels", {}),
    "Transformer.causal.ff_chunks.labels": ({**CAUSAL, "ff_chunks": 2}, "labels", {}),
    "Transformer.depth2.one_bucket": ({"depth": 2, "q_bucket_size": 512, "k_bucket_size": 1024}, "logits", {}),
    "Transformer.memory_efficient": (NO_FLASH, "logits", {}),
    "Transformer.memory_efficient.causal.labels": ({**NO_FLASH, **CAUSAL}, "labels", {}),
    "Transformer.memory_efficient.depth2.ff_chunks": ({**NO_FLASH, "depth": 2, "ff_chunks": 4}, "logits", {}),
    "AutoregressiveWrapper": (CAUSAL, "wrapper", {}),
    "AutoregressiveWrapper.memory_efficient": ({**NO_FLASH, **CAUSAL}, "wrapper", {}),
    "AutoregressiveWrapper.generate": (CAUSAL, "generate", {}),
    "AutoregressiveWrapper.generate.temperature.filter": (CAUSAL, "generate",
                                                          {"temperature": 0.7, "filter_thres": 0.8}),
    "AutoregressiveWrapper.generate.window": ({**CAUSAL, "max_seq_len": 8}, "generate", {}),
    "AutoregressiveWrapper.generate.eos": (CAUSAL, "generate", {"eos_token": TOKENS + 1}),
    "AutoregressiveWrapper.generate.memory_efficient": ({**NO_FLASH, **CAUSAL}, "generate", {}),
}
PARTS = ("ReversibleSequence", "ReversibleSequence.depth2", "ReversibleSequence.routed_mask", "ReversibleBlock",
         "Deterministic.record_rng", "PreNorm", "FeedForward", "FeedForward.chunks")
# Train name -> (module: a table's model name, or "grad.<function>", or "step.<model>").
TRAIN = ("train.Attention.memory_efficient.causal", "train.Attention.memory_efficient.dropout.mask",
         "train.CosineSimAttention.memory_efficient", "train.FlashAttention", "train.FlashAttention.causal.mask",
         "train.FlashAttention.mask4d", "train.FlashAttention.context.causal", "train.CosineFlashAttention.causal",
         "train.grad.FlashAttentionFunction", "train.grad.cosine.FlashAttentionFunction",
         "train.step.Transformer", "train.step.AutoregressiveWrapper.memory_efficient")


def names() -> list[str]:
    return [*ATTENTION, *COSINE, *FLASH, *FUNCTIONS, *MODELS, *PARTS, *TRAIN]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _key_mask(length: int) -> Any:
    """A padding mask over ``length`` keys (batch x length): the second row ends 5 keys early."""
    import torch

    return torch.arange(length).expand(BATCH, length) < torch.tensor([[length], [length - 5]])


def _inputs(keys: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    """The input and the call keywords of a module table entry."""
    import torch

    seq = 15 if "short" in keys else SEQ
    x = torch.randn(BATCH, seq, DIM, generator=_gen(1))
    keys_len = CONTEXT if "context" in keys else seq
    call: dict[str, Any] = {}
    for key in keys:
        if key == "context":
            call["context"] = torch.randn(BATCH, CONTEXT, DIM, generator=_gen(2))
        elif key in ("mask", "context_mask"):
            call["mask"] = _key_mask(keys_len)
        elif key == "mask4d":
            call["mask"] = torch.rand(BATCH, 1, seq, keys_len, generator=_gen(3)) > 0.2
            call["mask"][..., 0] = True
        elif key == "mask_rows":
            call["mask"] = (torch.arange(seq) < seq - 3).view(1, 1, seq, 1).expand(BATCH, 1, seq, 1)
        elif key == "bias":
            call["attn_bias"] = torch.randn(HEADS, seq, keys_len, generator=_gen(4))
        elif "=" in key:
            keyword, value = key.split("=")
            call[keyword] = {"True": True, "False": False}.get(value, value) if not value.isdigit() else int(value)
    return x, call


def _module(name: str) -> Any:
    from memory_efficient_attention_pytorch import Attention, CosineSimAttention, FlashAttention
    from memory_efficient_attention_pytorch import cosine_sim_flash_attention

    if name in ATTENTION:
        return Attention(**ATTENTION[name][0])
    if name in COSINE:
        return CosineSimAttention(seq_len=SEQ, **COSINE[name][0])
    if name.startswith("CosineFlash"):
        return cosine_sim_flash_attention.FlashAttention(**FLASH[name][0])
    return FlashAttention(**FLASH[name][0])


def _modules(name: str) -> Built:
    keys = {**ATTENTION, **COSINE, **FLASH}[name][1]
    x, call = _inputs(keys)
    return _module(name), (x,), call


def _tensors() -> dict[str, Any]:
    import torch
    import torch.nn.functional as F

    gen = _gen(5)
    q, k, v = (torch.randn(BATCH, HEADS, SEQ, DIM_HEAD, generator=gen) for _ in range(3))
    return {
        "q": q, "k": k, "v": v,
        "q_grad": q.clone().requires_grad_(),
        "qn": F.normalize(q, dim=-1), "kn": F.normalize(k, dim=-1),
        "mask": _key_mask(SEQ),
        "causal": True, "true": True, "false": False, "none": None, "4": 4, "8": 8, "scale": 10.0,
        "bias": torch.randn(BATCH, HEADS, SEQ, SEQ, generator=gen),
        "logits": torch.randn(BATCH, TOKENS, generator=gen),
        "router": {"mask": ((True, False), (True, False)), "context": ((True, False), (False, False))},
        "route_kwargs": {"mask": _key_mask(SEQ), "other": 1.0},
        "depth": 2,
    }


def _functions(name: str) -> Built:
    import importlib

    from gt_calls import Call

    module, function, inputs, static = FUNCTIONS[name]
    tensors = _tensors()
    target: Any = importlib.import_module(f"memory_efficient_attention_pytorch.{module}")
    for part in function.split("."):
        target = getattr(target, part)
    static = {k: tensors[v] if isinstance(v, str) else v for k, v in static.items()}
    if function.endswith(".apply"):
        class _Apply(Call):
            def entry_points(self) -> list[Any]:
                return [target.__self__]
        return _Apply(target, **static), tuple(tensors[i] for i in inputs), {}
    return Call(target, **static), tuple(tensors[i] for i in inputs), {}


def _ids(length: int, seed: int = 6) -> Any:
    import torch

    return torch.randint(0, TOKENS, (BATCH, length), generator=_gen(seed))


def _models(name: str) -> Built:
    from memory_efficient_attention_pytorch.autoregressive_wrapper import AutoregressiveWrapper
    from memory_efficient_attention_pytorch.transformer import Transformer

    from gt_calls import Method

    keywords, what, call = MODELS[name]
    net = Transformer(**{**TRANSFORMER, **keywords})
    if what == "logits":
        return net, (_ids(SEQ),), {}
    if what == "labels":
        return net, (_ids(SEQ),), {"labels": _ids(SEQ, seed=7)}
    wrapper = AutoregressiveWrapper(net)
    if what == "wrapper":
        return wrapper, (_ids(SEQ + 1),), {}
    return Method(wrapper, "generate", seq_len=GEN, **call), (_ids(PROMPT),), {}


def _parts(name: str) -> Built:
    from memory_efficient_attention_pytorch import Attention
    from memory_efficient_attention_pytorch.reversible import Deterministic, ReversibleBlock, ReversibleSequence
    from memory_efficient_attention_pytorch.transformer import FeedForward, PreNorm
    from torch import nn

    from gt_calls import Keywords

    x, _ = _inputs(())

    def layer() -> tuple[Any, Any]:
        return (PreNorm(DIM, Attention(**EFFICIENT, causal=True)), PreNorm(DIM, FeedForward(DIM, mult=2)))

    if name.startswith("ReversibleSequence"):
        depth = 1 if name == "ReversibleSequence" else 2
        layers = nn.ModuleList([nn.ModuleList(layer()) for _ in range(depth)])
        if name.endswith("routed_mask"):
            sequence = ReversibleSequence(layers, args_route={"mask": ((True, False),) * depth})
            return Keywords(sequence, mask=_key_mask(SEQ)), (x,), {}
        return ReversibleSequence(layers), (x,), {}
    if name == "ReversibleBlock":
        return ReversibleBlock(*layer()), (x.repeat(1, 1, 2),), {}
    if name.startswith("Deterministic"):
        return Keywords(Deterministic(layer()[0]), record_rng=True), (x,), {}
    if name == "PreNorm":
        return PreNorm(DIM, Attention(**BASE)), (x,), {"mask": _key_mask(SEQ)}
    return FeedForward(DIM, mult=2, chunks=4 if name.endswith("chunks") else 1), (x,), {}


def _train(name: str) -> Built:
    import torch

    from gt_calls import OptimizerStep, Run

    model = name.split(".", 1)[1]
    if model.startswith("grad."):
        built, inputs, _ = _functions(model.split(".", 1)[1] + ".apply")
        weights = torch.randn(BATCH, HEADS, SEQ, DIM_HEAD, generator=_gen(8))

        def gradient(owner: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> Any:
            """The gradients of a weighted flash attention output with respect to its queries, keys and values."""
            with torch.enable_grad():
                q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
                out = owner(q, k, v, *inputs[3:])
                return torch.autograd.grad((out * weights).sum(), (q, k, v))

        return Run(built, gradient, built.entry_points()), inputs[:3], {}
    if model.startswith("step."):
        from memory_efficient_attention_pytorch.autoregressive_wrapper import AutoregressiveWrapper
        from memory_efficient_attention_pytorch.transformer import Transformer

        keywords = NO_FLASH if model.endswith("memory_efficient") else {}
        net = AutoregressiveWrapper(Transformer(**{**TRANSFORMER, **CAUSAL, **keywords}))
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

        class _Step(OptimizerStep):
            """A training step: the network stays in training mode whatever the wrapper's mode (the reversible
            backward replays the RNG states that only training records)."""

            def train(self, mode: bool = True) -> _Step:
                super().train(mode)
                self.net.train(True)
                return self

            def entry_points(self) -> list[Any]:
                return [AutoregressiveWrapper, type(optimizer).step]

        return _Step(net, optimizer, lambda ids: net(ids)), (_ids(SEQ + 1),), {}
    module = _module(model)
    keys = {**ATTENTION, **COSINE, **FLASH}[model][1]
    x, call = _inputs(keys)
    weights = torch.randn(*x.shape, generator=_gen(9))

    def backward(owner: Any, inputs: torch.Tensor) -> Any:
        """The output's weighted sum, backpropagated to the module's weights and its input."""
        with torch.enable_grad():
            inputs = inputs.detach().requires_grad_()
            loss = (owner(inputs, **call) * weights).sum()
            loss.backward()
        return inputs.grad

    return Run(module, backward, [type(module)]), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in ATTENTION or name in COSINE or name in FLASH:
        return _modules(name)
    for table, builder in ((FUNCTIONS, _functions), (MODELS, _models), (PARTS, _parts), (TRAIN, _train)):
        if name in table:
            return builder(name)
    raise KeyError(name)
