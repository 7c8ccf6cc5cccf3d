"""Ground-truth bench, x-transformers: decoders, encoders and encoder-decoders in many configurations.

x-transformers puts dozens of attention and position variants behind keyword flags of one
``Decoder``/``Encoder``; ``LAYERS`` picks a set of them, each built as a two-layer, 32-wide
``TransformerWrapper`` over a 64-token vocabulary. Every configuration runs as a plain forward, and
some with the forward's flags (``FLAGS``: intermediates, attention maps, memories, a padding mask).
``GENERATE`` runs the sampling loops (``AutoregressiveWrapper.generate`` with and without the key-value
cache, the non-autoregressive and XL wrappers). ``names()`` needs no torch; ``build(name)`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
NUM_TOKENS, SEQ, DIM = 64, 12, 32

# Configuration name -> keywords of the attention layers (``Decoder`` unless the name says ``enc``).
LAYERS: dict[str, dict[str, Any]] = {
    "base": {}, "rotary": {"rotary_pos_emb": True}, "alibi": {"alibi_pos_bias": True},
    "rel_pos_bias": {"rel_pos_bias": True}, "dynamic_pos_bias": {"dynamic_pos_bias": True},
    "ff_glu": {"ff_glu": True}, "residual_attn": {"residual_attn": True}, "macaron": {"macaron": True},
    "sandwich_norm": {"sandwich_norm": True}, "rmsnorm": {"use_rmsnorm": True},
    "scalenorm": {"use_scalenorm": True}, "mem_kv": {"attn_num_mem_kv": 2}, "gate_residual": {"gate_residual": True},
    "shift_tokens": {"shift_tokens": 1}, "qk_norm": {"attn_qk_norm": True}, "gate_values": {"attn_gate_values": True},
    "one_kv_head": {"attn_one_kv_head": True}, "kv_heads": {"attn_kv_heads": 1},
    "sparse_topk": {"attn_sparse_topk": 4}, "talking_heads": {"attn_pre_talking_heads": True},
    "head_scale": {"attn_head_scale": True}, "value_residual": {"add_value_residual": True},
    "hyper_connections": {"num_residual_streams": 2}, "layerscale": {"use_layerscale": True},
    "cross_residual": {"cross_residual_attn": True}, "enc": {}, "enc_rotary": {"rotary_pos_emb": True},
}
# Forward flags -> keywords of ``TransformerWrapper.forward`` (run on the ``base`` decoder).
FLAGS: dict[str, dict[str, Any]] = {
    "return_intermediates": {"return_intermediates": True}, "return_attn": {"return_attn": True},
    "return_mems": {"return_mems": True}, "return_embeddings": {"return_embeddings": True},
    "return_logit_entropies": {"return_logit_entropies": True}, "mask": {"mask": "MASK"},
}
GENERATE = ("generate", "generate_cached", "generate_filter_top_p", "generate_eos", "nar_generate", "xl_generate",
            "xtransformer", "vit", "continuous")


def names() -> list[str]:
    return [f"layers.{n}" for n in LAYERS] + [f"flags.{n}" for n in FLAGS] + list(GENERATE)


def _wrapper(name: str = "base", **extra: Any) -> Any:
    import x_transformers as X

    layers = X.Encoder if name.startswith("enc") else X.Decoder
    kwargs = dict(LAYERS[name])
    return X.TransformerWrapper(num_tokens=NUM_TOKENS, max_seq_len=32, **extra,
                                attn_layers=layers(dim=DIM, depth=2, heads=2, **kwargs))


def _tokens(length: int = SEQ) -> Any:
    import torch

    return torch.randint(0, NUM_TOKENS, (2, length), generator=torch.Generator().manual_seed(0))


def _generation(name: str) -> Built:
    import x_transformers as X
    from gt_calls import Method

    prompt = _tokens(4)
    if name == "nar_generate":
        net = X.TransformerWrapper(num_tokens=NUM_TOKENS + 1, max_seq_len=8,
                                   attn_layers=X.Encoder(dim=DIM, depth=2, heads=2))
        wrapper = X.NonAutoregressiveWrapper(net, mask_id=NUM_TOKENS, steps=3)
        return Method(wrapper, "generate", batch_size=2), (), {}
    if name == "xl_generate":
        net = X.TransformerWrapper(num_tokens=NUM_TOKENS, max_seq_len=8, max_mem_len=8,
                                   attn_layers=X.Decoder(dim=DIM, depth=2, heads=2, rel_pos_bias=True))
        return Method(X.XLAutoregressiveWrapper(net), "generate", seq_len=6), (prompt,), {}
    wrapper = X.AutoregressiveWrapper(_wrapper())
    static: dict[str, Any] = {"seq_len": 5, "cache_kv": name == "generate_cached"}
    if name == "generate_filter_top_p":
        static["filter_logits_fn"] = "top_p"
    if name == "generate_eos":
        static["eos_token"] = 3
    return Method(wrapper, "generate", **static), (prompt,), {}


def build(name: str) -> Built:
    import torch
    import x_transformers as X

    if name.startswith("layers."):
        config = name.split(".", 1)[1]
        return _wrapper(config), (_tokens(),), {}
    if name.startswith("flags."):
        flags = dict(FLAGS[name.split(".", 1)[1]])
        if flags.get("mask") == "MASK":
            flags["mask"] = torch.arange(SEQ).expand(2, SEQ) < torch.tensor([[SEQ], [SEQ - 3]])
        return _wrapper(), (_tokens(),), flags
    if name == "xtransformer":
        model = X.XTransformer(dim=DIM, enc_num_tokens=NUM_TOKENS, enc_depth=1, enc_heads=2, enc_max_seq_len=16,
                               dec_num_tokens=NUM_TOKENS, dec_depth=1, dec_heads=2, dec_max_seq_len=16)
        return model, (_tokens(), _tokens(8)), {}
    if name == "vit":
        model = X.ViTransformerWrapper(image_size=16, patch_size=4, num_classes=5,
                                       attn_layers=X.Encoder(dim=DIM, depth=2, heads=2))
        return model, (torch.randn(2, 3, 16, 16),), {}
    if name == "continuous":
        model = X.ContinuousTransformerWrapper(dim_in=6, dim_out=6, max_seq_len=16,
                                               attn_layers=X.Decoder(dim=DIM, depth=2, heads=2))
        return model, (torch.randn(2, SEQ, 6),), {}
    return _generation(name)
