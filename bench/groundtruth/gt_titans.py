"""Ground-truth bench, titans_pytorch (titans-pytorch): neural long-term memory and Memory-as-Context transformers.

titans-pytorch (lucidrains) implements Titans: a ``NeuralMemory`` whose memory is the weights of a small
network, written at test time by per-sample gradients (``torch.func`` ``vmap(grad(...))`` of a
reconstruction loss) with learned step sizes, momentum and decay run by an associative scan, and read
back with a functional call; and ``MemoryAsContextTransformer`` (MAC), a segmented-attention transformer
with persistent and long-term memory tokens, hyper-connected residual streams and a ``NeuralMemory`` per
layer. The tables cover, at width 16 on a batch of 2 and sequences of 8 to 16:

- ``MEMORY``: ``NeuralMemory`` forward in the configurations that change its code: chunk sizes (one,
  two, four), heads (with per-head or shared memory weights), TTT batch
  sizes (weights written back at batch boundaries, with and without a gated transition), attention
  pooling of chunks, no momentum, second-order momentum with a learned combination (with the zeroth
  order), per-parameter learning-rate modulation, q/k and post RMS norms, no pre norm, soft-clamped
  gradient norms, spectral-normed (Newton-Schulz) surprises, several keys / values per token, lookahead
  values, an activation, initial biases, no residual norm around the memory model, and each memory model
  (``MemoryMLP`` of depth 1 and 2, ``GatedResidualMemoryMLP``, ``FactorizedMemoryMLP``,
  ``MemorySwiGluMLP``, ``MemoryAttention``);
- ``MEMORY_CALLS``: the ways users drive it: a second call continuing from the returned state, one-token
  decoding from a state, a store mask, another store sequence, returned surprises, a detached state,
  ``ttt_batch_size`` per call, different q / k / v views, a previous layer's weights as a residual,
  ``store_memories``, ``retrieve_memories``, ``init_weights`` / ``init_momentum``, ``mem_state_detach``
  and a train step (the retrieval loss backpropagated through the test-time updates);
- ``PARTS``: the memory models and norms on their own, the chunk pools, ``MultiheadRMSNorm``,
  ``newtonschulz5`` and ``softclamp_grad_norm``, ``SegmentedAttention`` (plain, with persistent and long-term
  memory tokens, sliding, with a value residual), ``FeedForward``, ``ImplicitMLPAttention`` and
  ``NestedAttention`` (with and without a key / value cache), ``min_p_filter`` and ``gumbel_sample``;
- ``MAC``: ``MemoryAsContextTransformer`` forward and loss in its flag settings (long-term and persistent
  memory tokens, memory on some layers, a memory batch size, gating the attention output, different
  q / k / v views, a weight residual, sliding-window attention, one residual stream, another memory
  model, a memory segment length), a train step, and ``sample`` without and with the cache.

Flex attention is CUDA-only and left out. Random weights, nothing downloaded. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, BATCH, SEQ, TOKENS = 16, 2, 8, 64
SMALL_MLP = {"depth": 2, "expansion_factor": 2.0}

# ``NeuralMemory`` name -> (keywords, memory model: "" for the default, else a ``MEMORY_MODELS`` key).
MEMORY: dict[str, tuple[dict[str, Any], str]] = {
    "NeuralMemory": ({}, ""),
    "NeuralMemory.chunk4": ({"chunk_size": 4}, ""),
    "NeuralMemory.heads": ({"chunk_size": 2, "heads": 2, "dim_head": 8}, ""),
    "NeuralMemory.heads.shared_params": ({"chunk_size": 2, "heads": 2, "dim_head": 8,
                                          "per_head_learned_parameters": False}, ""),
    "NeuralMemory.batch_size": ({"chunk_size": 2, "batch_size": 4}, ""),
    "NeuralMemory.batch_size.gated_transition": ({"chunk_size": 2, "batch_size": 4, "gated_transition": True}, ""),
    "NeuralMemory.attn_pool_chunks": ({"chunk_size": 4, "attn_pool_chunks": True}, ""),
    "NeuralMemory.no_momentum": ({"chunk_size": 2, "momentum": False}, ""),
    "NeuralMemory.momentum_order2.learned_combine": ({"chunk_size": 2, "momentum_order": 2,
                                                      "learned_momentum_combine": True}, ""),
    "NeuralMemory.learned_combine_zeroth": ({"chunk_size": 2, "momentum_order": 2, "learned_momentum_combine": True,
                                             "learned_combine_include_zeroth": True}, ""),
    "NeuralMemory.per_parameter_lr": ({"chunk_size": 2, "per_parameter_lr_modulation": True}, ""),
    "NeuralMemory.qk_post_rmsnorm": ({"chunk_size": 2, "heads": 2, "dim_head": 8, "qk_rmsnorm": True,
                                      "post_rmsnorm": True}, ""),
    "NeuralMemory.no_pre_rmsnorm": ({"chunk_size": 2, "pre_rmsnorm": False}, ""),
    "NeuralMemory.max_grad_norm": ({"chunk_size": 2, "max_grad_norm": 1.0}, ""),
    "NeuralMemory.spectral_norm_surprises": ({"chunk_size": 2, "spectral_norm_surprises": True}, ""),
    "NeuralMemory.num_kv_per_token": ({"chunk_size": 2, "num_kv_per_token": 2}, ""),
    "NeuralMemory.lookahead_value": ({"chunk_size": 2, "store_with_lookahead_value": True}, ""),
    "NeuralMemory.activation.init_biases": ({"chunk_size": 2, "activation": "silu", "init_adaptive_step_bias": -2.0,
                                             "init_momentum_bias": -2.0, "init_decay_bias": -4.0}, ""),
    "NeuralMemory.no_residual_norm": ({"chunk_size": 2, "mem_model_norm_add_residual": False}, ""),
    "NeuralMemory.MemoryMLP.depth1": ({"chunk_size": 2}, "mlp1"),
    "NeuralMemory.GatedResidualMemoryMLP": ({"chunk_size": 2}, "gated"),
    "NeuralMemory.FactorizedMemoryMLP": ({"chunk_size": 2}, "factorized"),
    "NeuralMemory.MemorySwiGluMLP": ({"chunk_size": 2}, "swiglu"),
    "NeuralMemory.MemoryAttention": ({"chunk_size": 2}, "attention"),
}
MEMORY_CALLS = (
    "NeuralMemory.state.continue", "NeuralMemory.state.one_token", "NeuralMemory.store_mask",
    "NeuralMemory.store_seq", "NeuralMemory.return_surprises", "NeuralMemory.detach_mem_state",
    "NeuralMemory.ttt_batch_size", "NeuralMemory.qkv_diff_views", "NeuralMemory.prev_weights",
    "NeuralMemory.store_memories", "NeuralMemory.retrieve_memories", "NeuralMemory.init_weights_momentum",
    "mem_state_detach", "train_step.NeuralMemory",
)
PARTS = (
    "MemoryMLP", "GatedResidualMemoryMLP", "FactorizedMemoryMLP", "MemorySwiGluMLP", "MemoryAttention",
    "ResidualNorm", "LayerNorm", "AveragePool", "AttentionPool", "MultiheadRMSNorm", "newtonschulz5",
    "softclamp_grad_norm", "SegmentedAttention", "SegmentedAttention.mem_tokens", "SegmentedAttention.sliding",
    "SegmentedAttention.value_residual", "FeedForward", "ImplicitMLPAttention", "ImplicitMLPAttention.cache",
    "NestedAttention", "NestedAttention.cache", "min_p_filter", "gumbel_sample",
)
MAC_BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": 2, "segment_len": 4, "dim_head": 8, "heads": 2,
                            "ff_mult": 2, "num_residual_streams": 2,
                            "neural_memory_kwargs": {"default_model_kwargs": SMALL_MLP}}
# ``MemoryAsContextTransformer`` name -> (keywords over ``MAC_BASE``, what is compiled: "forward", "loss",
# "train", "sample" or "sample.cache").
MAC: dict[str, tuple[dict[str, Any], str]] = {
    "MAC": ({}, "forward"),
    "MAC.loss": ({}, "loss"),
    "MAC.mem_tokens": ({"num_longterm_mem_tokens": 2, "num_persist_mem_tokens": 2}, "forward"),
    "MAC.memory_layers": ({"neural_memory_layers": (2,)}, "forward"),
    "MAC.memory_batch_size": ({"neural_memory_batch_size": 4}, "forward"),
    "MAC.gate_attn_output": ({"neural_mem_gate_attn_output": True}, "forward"),
    "MAC.qkv_diff_views": ({"neural_memory_qkv_receives_diff_views": True}, "forward"),
    "MAC.weight_residual": ({"neural_mem_weight_residual": True}, "forward"),
    "MAC.sliding_window": ({"sliding_window_attn": True, "num_longterm_mem_tokens": 2}, "forward"),
    "MAC.one_stream": ({"num_residual_streams": 1}, "forward"),
    "MAC.value_residual": ({"neural_memory_add_value_residual": True}, "forward"),
    "MAC.swiglu_memory": ({"neural_memory_model": "swiglu"}, "forward"),
    "MAC.memory_segment_len": ({"neural_memory_segment_len": 2}, "forward"),
    "train_step.MAC": ({"num_longterm_mem_tokens": 2}, "train"),
    "MAC.sample": ({}, "sample"),
    "MAC.sample.cache": ({"num_longterm_mem_tokens": 2}, "sample.cache"),
}


def names() -> list[str]:
    return list(MEMORY) + list(MEMORY_CALLS) + list(PARTS) + list(MAC)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _memory_model(kind: str, dim: int = DIM) -> Any:
    from titans_pytorch import (FactorizedMemoryMLP, GatedResidualMemoryMLP, MemoryAttention, MemoryMLP,
                                MemorySwiGluMLP)

    return {
        "mlp1": lambda: MemoryMLP(dim, depth=1),
        "mlp2": lambda: MemoryMLP(dim, **SMALL_MLP),
        "gated": lambda: GatedResidualMemoryMLP(dim, depth=1, expansion_factor=2.0),
        "factorized": lambda: FactorizedMemoryMLP(dim, depth=2, k=4),
        "swiglu": lambda: MemorySwiGluMLP(dim, depth=1, expansion_factor=2.0),
        "attention": lambda: MemoryAttention(dim, expansion_factor=2.0),
    }[kind]()


def _memory(keywords: dict[str, Any], model: str = "") -> Any:
    from titans_pytorch import NeuralMemory
    from torch import nn

    keywords = dict(keywords)
    if keywords.get("activation") == "silu":
        keywords["activation"] = nn.SiLU()
    if model:
        keywords["model"] = _memory_model(model, keywords.get("dim_head", DIM))
    else:
        keywords.setdefault("default_model_kwargs", SMALL_MLP)
    return NeuralMemory(DIM, **keywords)


def _seq(length: int = SEQ, seed: int = 1) -> Any:
    return _randn(BATCH, length, DIM, seed=seed)


def _memory_calls(name: str) -> Built:
    import torch
    from titans_pytorch import NeuralMemory, mem_state_detach

    from gt_calls import Keywords, Method, Run

    forward = [NeuralMemory.forward]
    if name == "NeuralMemory.state.continue":
        def run(mem: Any, first: Any, second: Any) -> Any:
            _, state = mem(first)
            out, state = mem(second, state=state)
            return out, state.updates
        return Run(_memory({"chunk_size": 2}), run, forward), (_seq(), _seq(seed=2)), {}
    if name == "NeuralMemory.state.one_token":
        mem = _memory({"chunk_size": 2})
        with torch.no_grad():
            _, state = mem(_seq(seed=3))

        def run_one(mem: Any, token: Any) -> Any:
            out, next_state = mem(token, state=state)
            return out, next_state.weights
        return Run(mem, run_one, forward), (_randn(BATCH, 1, DIM, seed=4),), {}
    if name == "NeuralMemory.store_mask":
        mask = torch.arange(SEQ).expand(BATCH, SEQ) % 3 != 0
        return Keywords(_memory({"chunk_size": 2}), store_mask=mask), (_seq(),), {}
    if name == "NeuralMemory.store_seq":
        return Keywords(_memory({"chunk_size": 2}), store_seq=_seq(seed=5)), (_seq(),), {}
    if name == "NeuralMemory.return_surprises":
        return Keywords(_memory({"chunk_size": 2}), return_surprises=True), (_seq(),), {}
    if name == "NeuralMemory.detach_mem_state":
        return Keywords(_memory({"chunk_size": 2}), detach_mem_state=True), (_seq(),), {}
    if name == "NeuralMemory.ttt_batch_size":
        return Keywords(_memory({"chunk_size": 2}), ttt_batch_size=4), (_seq(),), {}
    if name == "NeuralMemory.qkv_diff_views":
        views = torch.stack([_seq(seed=s) for s in (1, 2, 3)])
        return _memory({"chunk_size": 2, "qkv_receives_diff_views": True}), (views,), {}
    if name == "NeuralMemory.prev_weights":
        first = _memory({"chunk_size": 2})
        second = _memory({"chunk_size": 2, "accept_weight_residual": True})
        with torch.no_grad():
            _, state = first(_seq(seed=6))
        return Keywords(second, prev_weights=state.updates), (_seq(),), {}
    if name == "NeuralMemory.store_memories":
        return Method(_memory({"chunk_size": 2}), "store_memories"), (_seq(),), {}
    if name == "NeuralMemory.retrieve_memories":
        mem = _memory({"chunk_size": 2})
        with torch.no_grad():
            updates, _ = mem.store_memories(_seq(seed=7), return_surprises=False)
        return Run(mem, lambda mem, seq: mem.retrieve_memories(seq, updates), [NeuralMemory.retrieve_memories]), \
            (_seq(),), {}
    if name == "NeuralMemory.init_weights_momentum":
        def run_init(mem: Any, seq: Any) -> Any:
            batch = seq.shape[0]
            return mem.init_weights(batch), mem.init_momentum(batch)
        return Run(_memory({"chunk_size": 2}), run_init, [NeuralMemory.init_weights, NeuralMemory.init_momentum]), \
            (_seq(),), {}
    if name == "mem_state_detach":
        mem = _memory({"chunk_size": 2})
        with torch.no_grad():
            _, state = mem(_seq(seed=8))

        def run_detach(_: Any, x: Any) -> Any:
            return mem_state_detach(state._replace(seq_index=x.shape[1])).updates
        return Run(mem, run_detach, [mem_state_detach]), (_seq(),), {}
    assert name == "train_step.NeuralMemory"
    mem = _memory({"chunk_size": 2, "heads": 2, "dim_head": 8, "per_head_learned_parameters": False})
    optimizer = torch.optim.SGD(mem.parameters(), lr=1e-3)

    def train(mem: Any, seq: Any, target: Any) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            retrieved, _ = mem(seq)
            loss = torch.nn.functional.mse_loss(retrieved, target)
            loss.backward()
        optimizer.step()
        return loss.detach()
    return Run(mem, train, forward), (_seq(), _seq(seed=9)), {}


def _parts(name: str) -> Built:
    import torch
    from titans_pytorch import mac_transformer as mac
    from titans_pytorch import memory_models as models
    from titans_pytorch import neural_memory as nm
    from titans_pytorch.implicit_mlp_attention import ImplicitMLPAttention
    from titans_pytorch.nested_attention import NestedAttention

    from gt_calls import Call, Keywords

    x = _seq()
    plain = {"MemoryMLP": "mlp2", "GatedResidualMemoryMLP": "gated", "FactorizedMemoryMLP": "factorized",
             "MemorySwiGluMLP": "swiglu", "MemoryAttention": "attention"}
    if name in plain:
        return _memory_model(plain[name]), (x,), {}
    if name == "ResidualNorm":
        return models.ResidualNorm(DIM, _memory_model("mlp2")), (x,), {}
    if name == "LayerNorm":
        return models.LayerNorm(DIM), (x,), {}
    if name == "AveragePool":
        return nm.AveragePool(4), (x,), {}
    if name == "AttentionPool":
        pool = nm.AttentionPool(DIM, 4)
        torch.nn.init.normal_(pool.to_attn_logits.weight, std=0.1)
        return Keywords(pool, chunk_size=2), (x,), {}
    if name == "MultiheadRMSNorm":
        return nm.MultiheadRMSNorm(8, 2), (_randn(BATCH, 2, SEQ, 8),), {}
    if name == "newtonschulz5":
        return Call(nm.newtonschulz5, steps=3), (_randn(BATCH, 3, 6, 4),), {}
    if name == "softclamp_grad_norm":
        return Call(nm.softclamp_grad_norm, max_value=1.0), (_randn(4, 3, 6, 4),), {}
    attn = {"dim": DIM, "segment_len": 4, "dim_head": 8, "heads": 2}
    if name == "SegmentedAttention":
        return mac.SegmentedAttention(**attn), (x,), {}
    if name == "SegmentedAttention.mem_tokens":
        return mac.SegmentedAttention(**attn, num_persist_mem_tokens=2, num_longterm_mem_tokens=2), \
            (_seq(12),), {}
    if name == "SegmentedAttention.sliding":
        return mac.SegmentedAttention(**attn, sliding=True, num_longterm_mem_tokens=2), (_seq(12),), {}
    if name == "SegmentedAttention.value_residual":
        layer = mac.SegmentedAttention(**attn, accept_value_residual=True)
        return Keywords(layer, value_residual=_randn(BATCH, 2, SEQ, 8, seed=3)), (x,), {}
    if name == "FeedForward":
        return mac.FeedForward(DIM, mult=2), (x,), {}
    if name.startswith("ImplicitMLPAttention"):
        layer: Any = ImplicitMLPAttention(DIM, (8, 16, 8), heads=2)
    elif name.startswith("NestedAttention"):
        layer = NestedAttention(DIM, dim_head=8, heads=2)
    elif name == "min_p_filter":
        return Call(mac.min_p_filter, min_p=0.1), (_randn(BATCH, TOKENS),), {}
    else:
        assert name == "gumbel_sample"
        return Call(mac.gumbel_sample, temperature=1.5), (_randn(BATCH, TOKENS),), {}
    if not name.endswith(".cache"):
        return layer, (x,), {}
    with torch.no_grad():
        _, cache = layer(x, return_kv_cache=True)
    return Keywords(layer, cache=cache, return_kv_cache=True), (_randn(BATCH, 1, DIM, seed=2),), {}


def _mac(name: str) -> Built:
    import torch
    from titans_pytorch import MemoryAsContextTransformer

    from gt_calls import Keywords, Method, Run

    keywords, call = MAC[name]
    keywords = {**MAC_BASE, **keywords}
    if keywords.get("neural_memory_model") == "swiglu":
        keywords["neural_memory_model"] = _memory_model("swiglu")
    model = MemoryAsContextTransformer(**keywords)
    tokens = torch.randint(0, TOKENS, (BATCH, 16), generator=torch.Generator().manual_seed(1))
    if call == "forward":
        return model, (tokens,), {}
    if call == "loss":
        return Keywords(model, return_loss=True), (tokens,), {}
    if call == "train":
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

        def train(model: Any, tokens: Any) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = model(tokens, return_loss=True)
                loss.backward()
            optimizer.step()
            return loss.detach()
        return Run(model, train, [MemoryAsContextTransformer.forward]), (tokens,), {}
    prompt = tokens[:, :4]
    return Method(model, "sample", seq_len=7, show_progress=False, use_cache=call == "sample.cache"), (prompt,), {}


def build(name: str) -> Built:
    if name in MEMORY:
        keywords, model = MEMORY[name]
        return _memory(keywords, model), (_seq(),), {}
    if name in MEMORY_CALLS:
        return _memory_calls(name)
    if name in PARTS:
        return _parts(name)
    if name in MAC:
        return _mac(name)
    raise KeyError(name)
