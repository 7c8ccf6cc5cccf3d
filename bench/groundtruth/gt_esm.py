"""Ground-truth bench, fair-esm: the ESM-2, ESM-1 and MSA Transformer protein language models.

Each model is built at two layers of width 32 from its class (random weights; the alphabets are
built in, nothing is downloaded) and runs on a batch of two protein sequences of different lengths,
so that padding is present (ESM checks ``padding_mask.any()`` on the data). ``FLAGS`` are the forward's
options: hidden states of chosen layers (``repr_layers``), attention maps (``need_head_weights``) and
contact prediction (``return_contacts``). ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from argparse import Namespace
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

MODELS = ("esm2", "esm2.no_token_dropout", "esm1b", "esm1", "msa_transformer")
FLAGS: dict[str, dict[str, Any]] = {
    "plain": {}, "repr_layers": {"repr_layers": [0, 1, 2]}, "need_head_weights": {"need_head_weights": True},
    "return_contacts": {"return_contacts": True},
}
SEQUENCES = ("MKTAYIAKQRQISFVKSHFSRQ", "KALTARQQEVFDLIRD")


def names() -> list[str]:
    return [f"{model}.{flag}" for model in MODELS for flag in FLAGS]


def _args(**extra: Any) -> Namespace:
    base = {"layers": 2, "embed_dim": 32, "ffn_embed_dim": 64, "attention_heads": 2, "dropout": 0.1,
            "attention_dropout": 0.1, "activation_dropout": 0.1, "max_positions": 64, "final_bias": True,
            "emb_layer_norm_before": True, "logit_bias": True, "max_tokens_per_msa": 2 ** 14, "max_tokens": 2 ** 14,
            "embed_positions_msa": True}
    return Namespace(**{**base, **extra})


def build(name: str) -> Built:
    import esm

    model_name, flag = name.rsplit(".", 1)
    if model_name.startswith("esm2"):
        alphabet = esm.Alphabet.from_architecture("ESM-1b")
        model: Any = esm.ESM2(num_layers=2, embed_dim=32, attention_heads=2, alphabet=alphabet,
                              token_dropout=model_name == "esm2")
    elif model_name == "msa_transformer":
        alphabet = esm.Alphabet.from_architecture("msa_transformer")
        model = esm.MSATransformer(_args(), alphabet)
    else:
        arch = "roberta_large" if model_name == "esm1b" else "protein_bert_base"
        alphabet = esm.Alphabet.from_architecture(arch)
        model = esm.ProteinBertModel(_args(arch=arch), alphabet)
    converter = alphabet.get_batch_converter()
    if model_name == "msa_transformer":
        msa = [("a", SEQUENCES[0][:16]), ("b", SEQUENCES[1])]
        _, _, tokens = converter([msa, msa])
    else:
        _, _, tokens = converter([("a", SEQUENCES[0]), ("b", SEQUENCES[1])])
    return model, (tokens,), dict(FLAGS[flag])
