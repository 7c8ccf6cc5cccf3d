"""Ground-truth bench, LitGPT: language models of many architectures, forward and generation loops.

Each architecture of ``ARCHITECTURES`` is one of LitGPT's named configurations shrunk to two layers of
width 32 over a 96-token vocabulary (the code paths a family takes, such as sliding windows, logit
soft-capping, mixture-of-experts routing or partial rotary, follow from the configuration, not its
size). Each runs a plain forward, and ``GENERATION`` runs the decoding loops of ``litgpt.generate``
(greedy, top-k, top-p, with an end-of-sequence token) with the key-value cache
and ``input_pos``. Random weights; nothing is downloaded. ``names()`` needs no torch; ``build`` runs in
a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
VOCAB = 96

ARCHITECTURES = ("pythia-14m", "Llama-3.2-1B", "gemma-2b", "gemma-2-2b", "gemma-3-1b-it", "phi-2", "Phi-3-mini-4k-instruct",
                 "falcon-7b", "Mixtral-8x7B-v0.1", "Qwen2.5-0.5B", "Qwen3-0.6B", "Qwen3-30B-A3B", "OLMo-2-1124-7B",
                 "stablelm-base-alpha-3b", "Mistral-7B-v0.1", "CodeLlama-7b-hf",
                 "Llama-3.1-8B", "Falcon3-1B-Base", "tiny-llama-1.1b")
GENERATION = ("greedy", "top_k", "top_p", "eos", "kv_cache.step", "chunked_head")


def names() -> list[str]:
    return [f"forward.{n}" for n in ARCHITECTURES] + [f"generate.{n}" for n in GENERATION]


def config(name: str) -> Any:
    """LitGPT's configuration ``name`` at two layers, width 32, a 96-token vocabulary."""
    from litgpt import Config

    base = Config.from_name(name)
    heads = 4
    groups = min(base.n_query_groups, heads) if base.n_query_groups != base.n_head else heads
    extra: dict[str, Any] = {}
    if base.mlp_class_name == "LLaMAMoE":
        extra = {"n_expert": 4, "n_expert_per_token": 2, "moe_intermediate_size": 16}
    return Config.from_name(name, n_layer=2, n_embd=32, n_head=heads, n_query_groups=groups, head_size=8,
                            intermediate_size=64, vocab_size=VOCAB, padded_vocab_size=VOCAB, block_size=64,
                            **extra)


def build(name: str) -> Built:
    import torch
    from litgpt import GPT
    from litgpt.generate import base as generate
    from torch import nn

    torch.manual_seed(0)
    kind, item = name.split(".", 1)
    tokens = torch.randint(0, VOCAB, (1, 8), generator=torch.Generator().manual_seed(0))
    if kind == "forward":
        return GPT(config(item)), (tokens,), {}
    model = GPT(config("Llama-3.2-1B"))
    if item == "chunked_head":
        return model, (tokens,), {"lm_head_chunk_size": 4}
    model.max_seq_length = 32
    if item == "kv_cache.step":
        model.set_kv_cache(batch_size=1)
        return model, (tokens[:, :1], torch.tensor([3])), {}
    model.set_kv_cache(batch_size=1)

    class Generate(nn.Module):
        """One of LitGPT's decoding loops over ``model`` (a submodule, so train and eval reach it)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *prompts: torch.Tensor) -> Any:
            options: dict[str, Any] = {"greedy": {"temperature": 0.0}, "top_k": {"top_k": 5}, "top_p": {"top_p": 0.8},
                       "eos": {"eos_id": 7}}[item]
            return generate.generate(self.model, prompts[0], 14, **options)

        def entry_points(self) -> list[Any]:
            return [generate.generate]

    return Generate(), (tokens[0],), {}
