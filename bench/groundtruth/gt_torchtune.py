"""Ground-truth bench, torchtune: its model families, LoRA variants, generation, losses and layers.

``FAMILIES`` builds each family's decoder through its component builder
(``torchtune.models.<family>._component_builders``) at two layers, width 32, over a 96-token
vocabulary, and runs a plain forward on tokens. ``LORA`` builds the LoRA (and DoRA) variants the
fine-tuning recipes use. ``FLAGS`` runs the llama3 decoder the way the recipes call it: with a
packed-sample mask and positions, chunked output, hidden states, and with key-value caches set up by
``setup_caches`` (a prompt prefill and a one-token step). ``GENERATION`` compiles
``torchtune.generation`` (``generate`` over a cached or uncached model, ``generate_next_token`` as the
generate recipe compiles it, ``sample``) through bench wrappers, whose entry points name the library
function. ``LOSSES`` and ``LAYERS`` are the loss modules and building blocks compiled on their own.
Random weights, no tokenizer; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

torchtune 0.6.1 imports torchao at top level; torchao 0.10.0 is the release it was built against
(later ones dropped ``torchao.dtypes.nf4tensor``).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
VOCAB, DIM, SEQ = 96, 32, 8

# The keywords every decoder builder takes: two layers, four query heads over two key-value heads.
DECODER = {"vocab_size": VOCAB, "num_layers": 2, "num_heads": 4, "num_kv_heads": 2, "embed_dim": DIM,
           "max_seq_len": 64}
GEMMA = {"head_dim": 8, "intermediate_dim": 64}

# Family name -> (builder in ``torchtune.models.<module>``, keywords added to ``DECODER``).
FAMILIES: dict[str, tuple[str, dict[str, Any]]] = {
    "llama2": ("llama2.llama2", {}), "llama3": ("llama3.llama3", {}),
    "llama3_1": ("llama3_1.llama3_1", {}), "llama3_2": ("llama3_2.llama3_2", {}),
    "mistral": ("mistral.mistral", {"intermediate_dim": 64}), "gemma": ("gemma.gemma", GEMMA),
    "gemma2": ("gemma2.gemma2", {**GEMMA, "sliding_window_size": 4, "query_pre_attn_scalar": 8}),
    "phi3": ("phi3.phi3", {"intermediate_dim": 64}), "qwen2": ("qwen2.qwen2", {"intermediate_dim": 64}),
    "qwen2.tied": ("qwen2.qwen2", {"intermediate_dim": 64, "tie_word_embeddings": True}),
    "llama2_classifier": ("llama2.llama2_classifier", {"num_classes": 3}),
    "mistral_classifier": ("mistral.mistral_classifier", {"num_classes": 3, "intermediate_dim": 64}),
}
# LoRA variant -> (builder, keywords added to ``DECODER`` and the LoRA settings below).
LORA_SETTINGS = {"lora_attn_modules": ["q_proj", "v_proj"], "lora_rank": 4, "lora_alpha": 8.0}
LORA: dict[str, tuple[str, dict[str, Any]]] = {
    "lora_llama2": ("llama2.lora_llama2", {}),
    "lora_llama3.mlp_output": ("llama3.lora_llama3", {"apply_lora_to_mlp": True, "apply_lora_to_output": True}),
    "lora_llama3_1": ("llama3_1.lora_llama3_1", {}),
    "lora_llama3_2.dora": ("llama3_2.lora_llama3_2", {"use_dora": True, "apply_lora_to_mlp": True}),
    "lora_mistral": ("mistral.lora_mistral", {"intermediate_dim": 64}),
    "lora_gemma": ("gemma.lora_gemma", {**GEMMA, "apply_lora_to_mlp": True}),
    "lora_gemma2": ("gemma2.lora_gemma2", {**GEMMA, "sliding_window_size": 4}),
    "lora_phi3": ("phi3.lora_phi3", {"intermediate_dim": 64, "lora_attn_modules": ["q_proj", "k_proj", "v_proj",
                                                                                 "output_proj"]}),
    "lora_qwen2": ("qwen2.lora_qwen2", {"intermediate_dim": 64}),
}
# Ways the recipes call the llama3 decoder.
FLAGS = ("packed_mask", "chunked_output", "hidden_states", "kv_cache.prefill", "kv_cache.step")
GENERATION = ("generate", "generate.cached", "generate.top_k_rng", "generate.stop_tokens",
              "generate.padded_prompt", "generate_next_token", "sample", "sample.top_k")
# Loss class in ``torchtune.modules.loss`` -> constructor keywords (chunked ones take lists of logits).
LOSSES: dict[str, dict[str, Any]] = {
    "CEWithChunkedOutputLoss": {"num_output_chunks": 4}, "ForwardKLLoss": {}, "ReverseKLLoss": {},
    "SymmetricKLLoss": {}, "ForwardKLWithChunkedOutputLoss": {"num_output_chunks": 4},
    "ReverseKLWithChunkedOutputLoss": {"num_output_chunks": 4},
    "SymmetricKLWithChunkedOutputLoss": {"num_output_chunks": 4},
}
# Building blocks and encoders compiled on their own.
LAYERS = ("RotaryPositionalEmbeddings", "Llama3ScaledRoPE", "VisionRotaryPositionalEmbeddings",
          "MultiHeadAttention", "TransformerSelfAttentionLayer", "t5_encoder", "clip_text_encoder",
          "clip_vision_encoder", "llama3_2_vision_encoder", "llama3_2_vision_decoder")


def names() -> list[str]:
    return ([f"forward.{n}" for n in FAMILIES] + [f"lora.{n}" for n in LORA] + [f"flags.{n}" for n in FLAGS]
            + [f"generation.{n}" for n in GENERATION] + [f"loss.{n}" for n in LOSSES]
            + [f"layer.{n}" for n in LAYERS])


def _builder(path: str) -> Any:
    import importlib

    module, function = path.rsplit(".", 1)
    return getattr(importlib.import_module(f"torchtune.models.{module}._component_builders"), function)


def _gen() -> Any:
    import torch

    return torch.Generator().manual_seed(0)


def _tokens(batch: int = 2, length: int = SEQ) -> Any:
    import torch

    return torch.randint(1, VOCAB, (batch, length), generator=_gen())


def _llama3() -> Any:
    return _builder("llama3.llama3")(**DECODER)


def _flags(name: str) -> Built:
    import torch

    model = _llama3()
    tokens = _tokens()
    if name == "packed_mask":  # two samples packed in each row: a block-causal mask and restarting positions
        from torchtune.modules import create_block_causal_mask

        seq_lens = [torch.tensor([3, 5]), torch.tensor([6, 2])]
        mask = create_block_causal_mask(seq_lens)
        input_pos = torch.stack([torch.cat([torch.arange(int(n)) for n in lens]) for lens in seq_lens])
        return model, (tokens,), {"mask": mask, "input_pos": input_pos}
    if name == "chunked_output":
        model.set_num_output_chunks(4)
        return model, (tokens,), {}
    if name == "hidden_states":
        model.output_hidden_states = [0]
        return model, (tokens,), {}
    # Key-value caches as the generate recipe sets them up: a causal mask over the whole cache.
    model.setup_caches(batch_size=2, dtype=torch.float32, decoder_max_seq_len=32)
    causal = torch.tril(torch.ones(32, 32, dtype=torch.bool))
    if name == "kv_cache.prefill":
        return model, (tokens[:, :4],), {"mask": causal[None, :4].expand(2, 4, 32), "input_pos": torch.arange(4)[None]}
    return model, (tokens[:, :1],), {"mask": causal[None, 4:5].expand(2, 1, 32), "input_pos": torch.tensor([[4], [4]])}


def _generation(name: str) -> Built:
    import torch
    from torch import nn
    from torchtune import generation

    if name.startswith("sample"):
        logits = torch.randn(2, VOCAB, generator=_gen())
        return _call(generation.sample, top_k=5 if name == "sample.top_k" else None, temperature=0.8), (logits,), {}
    model = _llama3()
    if name == "generate_next_token":  # compiled on its own, as the generate recipe does
        model.setup_caches(batch_size=2, dtype=torch.float32, decoder_max_seq_len=32)
        mask = torch.tril(torch.ones(32, 32, dtype=torch.bool))[None, 4:5].expand(2, 1, 32)
        return (_call(generation.generate_next_token, temperature=0.6, top_k=10, model=model),
                (torch.tensor([[4], [4]]), _tokens(length=1)), {"mask": mask})
    if name == "generate.cached":
        model.setup_caches(batch_size=2, dtype=torch.float32, decoder_max_seq_len=32)
    options: dict[str, Any] = {"max_generated_tokens": 4, "pad_id": 0}
    prompt = _tokens(length=4)
    if name == "generate.top_k_rng":
        options.update(top_k=5, temperature=0.7, rng=_gen())
    if name == "generate.stop_tokens":
        options.update(stop_tokens=[1, 2, 3])
    if name == "generate.padded_prompt":  # varying-length prompts, left-padded with ``pad_id``
        prompt[0, :2] = 0

    class Generate(nn.Module):
        """``torchtune.generation.generate`` over ``model`` (a submodule, so train and eval reach it)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, prompt: torch.Tensor) -> Any:
            return generation.generate(self.model, prompt, **options)

        def entry_points(self) -> list[Any]:
            return [generation.generate]

    return Generate(), (prompt,), {}


def _call(function: Any, model: Any = None, **static: Any) -> Any:
    """``gt_calls.Call`` of ``function``; with ``model``, the model is its first argument and a submodule
    (so that the worker's train and eval reach it)."""
    from gt_calls import Call
    from torch import nn

    if model is None:
        return Call(function, **static)

    class CallWithModel(Call):
        def __init__(self) -> None:
            super().__init__(function, **static)
            self.model: nn.Module = model

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            return self.function(self.model, *args, **self.static, **kwargs)

    return CallWithModel()


def _loss(name: str) -> Built:
    import torch
    from torchtune.modules import loss

    gen = _gen()
    module = getattr(loss, name)(**LOSSES[name])
    labels = torch.randint(0, VOCAB, (2, SEQ), generator=gen)
    labels[0, :2] = -100  # prompt tokens are ignored, as the SFT datasets mask them

    def logits() -> torch.Tensor:
        return torch.randn(2, SEQ, VOCAB, generator=gen)

    chunked = "Chunked" in name
    student = list(logits().chunk(4, dim=1)) if chunked else logits()
    if name == "CEWithChunkedOutputLoss":
        return module, (student, labels), {}
    teacher = list(logits().chunk(4, dim=1)) if chunked else logits()
    if not chunked:  # the unchunked KD losses take flattened logits
        student, teacher, labels = student.flatten(0, 1), teacher.flatten(0, 1), labels.flatten()
    return module, (student, teacher, labels), {}


def _layer(name: str) -> Built:
    import torch
    from torchtune import modules

    gen = _gen()
    x = torch.randn(2, SEQ, DIM, generator=gen)
    heads = x.view(2, SEQ, 4, 8)  # [b, s, n_h, h_d], what rotary embeddings take
    if name == "RotaryPositionalEmbeddings":
        return modules.RotaryPositionalEmbeddings(dim=8, max_seq_len=64), (heads,), {"input_pos": None}
    if name == "Llama3ScaledRoPE":
        from torchtune.models.llama3_1 import Llama3ScaledRoPE

        return Llama3ScaledRoPE(dim=8, max_seq_len=64), (heads,), {"input_pos": torch.arange(SEQ)[None]}
    if name == "VisionRotaryPositionalEmbeddings":  # one tile of 4x4 patches and a CLS token; x and y take dim each
        rope = modules.VisionRotaryPositionalEmbeddings(patch_size=8, tile_size=32, max_num_tiles=1, dim=4)
        return rope, (torch.randn(2, 17, 4, 8, generator=gen),), {}
    if name in ("MultiHeadAttention", "TransformerSelfAttentionLayer"):
        layer = _llama3().layers[0]
        mask = torch.tril(torch.ones(SEQ, SEQ, dtype=torch.bool))[None].expand(2, SEQ, SEQ)
        module = layer.attn if name == "MultiHeadAttention" else layer
        args = (x, x) if name == "MultiHeadAttention" else (x,)
        return module, args, {"mask": mask, "input_pos": torch.arange(SEQ)[None]}
    if name == "t5_encoder":  # takes token ids padded to its ``max_seq_len``
        encoder = _builder("t5.t5_encoder")(embed_dim=DIM, mlp_dim=64, num_heads=4, head_dim=8, num_layers=2,
                                             rel_pos_num_buckets=8, rel_pos_max_dist=16, vocab_size=VOCAB,
                                             norm_eps=1e-6, max_seq_len=16)
        return encoder, (_tokens(length=16),), {}
    if name == "clip_text_encoder":
        encoder = _builder("clip.clip_text_encoder")(embed_dim=DIM, num_heads=4, num_layers=2, vocab_size=VOCAB,
                                                     max_seq_len=16)
        return encoder, (_tokens(length=16),), {}
    # Tiled images [b, n_images, n_tiles, c, h, w] and each image's tile grid [b, n_images, 2].
    images = torch.randn(1, 1, 2, 3, 32, 32, generator=gen)
    aspect_ratio = torch.tensor([[[1, 2]]])
    if name == "clip_vision_encoder":
        encoder = _builder("clip.clip_vision_encoder")(tile_size=32, patch_size=8, embed_dim=DIM, num_layers=2,
                                                       num_heads=4, out_indices=[0], max_num_tiles=2)
        return encoder, (images,), {"aspect_ratio": aspect_ratio}
    vision = {"patch_size": 8, "num_heads": 4, "clip_embed_dim": DIM, "clip_num_layers": 2, "clip_hidden_states": [0],
              "num_layers_projection": 1, "decoder_embed_dim": DIM, "tile_size": 32, "max_num_tiles": 2}
    if name == "llama3_2_vision_encoder":
        return _builder("llama3_2_vision.llama3_2_vision_encoder")(**vision), (images,), {"aspect_ratio": aspect_ratio}
    # The vision decoder: self-attention layers with a fused cross-attention layer every second one.
    decoder = _builder("llama3_2_vision.llama3_2_vision_decoder")(
        vocab_size=VOCAB, num_layers=2, fusion_interval=2, num_special_tokens=2, num_heads=4, num_kv_heads=2,
        embed_dim=DIM, max_seq_len=64, encoder_max_seq_len=34, intermediate_dim=64)
    encoder_input = torch.randn(1, 34, DIM, generator=gen)  # two tiles of 16 patches and a CLS token each
    return decoder, (_tokens(1),), {"encoder_input": encoder_input,
                                   "encoder_mask": torch.ones(1, SEQ, 34, dtype=torch.bool)}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    group, item = name.split(".", 1)
    if group in ("forward", "lora"):
        path, extra = (FAMILIES if group == "forward" else LORA)[item]
        keywords = {**DECODER, **(LORA_SETTINGS if group == "lora" else {}), **extra}
        return _builder(path)(**keywords), (_tokens(),), {}
    return {"flags": _flags, "generation": _generation, "loss": _loss, "layer": _layer}[group](item)
