"""Ground-truth bench, rtdl_revisiting_models: the MLP, ResNet and FT-Transformer of "Revisiting Deep
Learning Models for Tabular Data", their parts, and the training step users write around them.

rtdl_revisiting_models 0.0.2 is one module of seven public classes. Each is built at tiny sizes in the
configurations that change its code and compiled whole (its ``forward``):

- ``MODELS``: ``MLP`` and ``ResNet`` (with and without an output layer, ``d_hidden`` given or as a
  multiplier), ``FTTransformer`` with continuous features only, categorical only or both, at its
  default hyperparameters (``FTTransformer.get_default_kwargs``, one and three blocks, as its README
  builds it) and at small hand-set ones (ReLU feed-forward instead of ReGLU, Linformer key-value
  compression shared ``headwise`` or ``key-value``), ``FTTransformerBackbone`` on tokens, and an MLP
  on flattened ``LinearEmbeddings`` (the paper's embeddings before an MLP; ``_Embedded``);
- ``PARTS``: the pieces users take on their own: ``LinearEmbeddings`` (2-D and 3-D input),
  ``CategoricalEmbeddings`` (with and without its bias), ``MultiheadAttention`` (self- and
  cross-attention, one head: no output mixing, no dropout, Linformer compression);
- ``TRAIN``: a training step up to the backward pass (``_TrainStep``): the model's prediction and the
  loss users compute for the task (``cross_entropy`` for multiclass, ``binary_cross_entropy_with_logits``
  for binary, ``mse_loss`` for regression), as the package's README trains it.

Inputs are 8 rows of 5 continuous features and 3 categorical ones (cardinalities 3, 4 and 5); random
weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
ROWS, N_CONT, CARDINALITIES = 8, 5, [3, 4, 5]
# Small FT-Transformer backbone keywords (what ``get_default_kwargs`` sets, at width 16 and two blocks).
SMALL_FT = {"n_blocks": 2, "d_block": 16, "attention_n_heads": 4, "attention_dropout": 0.1,
            "ffn_d_hidden": None, "ffn_d_hidden_multiplier": 4 / 3, "ffn_dropout": 0.1, "residual_dropout": 0.0}
LINFORMER = {"linformer_kv_compression_ratio": 0.5}

# Model name -> (class, keywords, inputs). Inputs: "cont" (rows x continuous features), "cat" (rows x
# categorical level indices), "both" (the two), "tokens" (rows x 9 tokens x 16). For ``FTTransformer``,
# keywords ``"default": n`` mean ``get_default_kwargs(n_blocks=n)``, and ``d_out`` is given.
MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "MLP": ("MLP", {"d_out": 1, "n_blocks": 2, "d_block": 16, "dropout": 0.1}, "cont"),
    "MLP.multiclass": ("MLP", {"d_out": 3, "n_blocks": 3, "d_block": 16, "dropout": 0.0}, "cont"),
    "MLP.no_output": ("MLP", {"d_out": None, "n_blocks": 2, "d_block": 16, "dropout": 0.1}, "cont"),
    "MLP.embeddings": ("_Embedded", {"d_out": 1, "n_blocks": 2, "d_block": 16, "dropout": 0.1}, "cont"),
    "ResNet": ("ResNet", {"d_out": 1, "n_blocks": 2, "d_block": 16, "d_hidden_multiplier": 2.0,
                          "dropout1": 0.1, "dropout2": 0.0}, "cont"),
    "ResNet.d_hidden": ("ResNet", {"d_out": 3, "n_blocks": 2, "d_block": 16, "d_hidden": 24,
                                   "d_hidden_multiplier": None, "dropout1": 0.2, "dropout2": 0.1}, "cont"),
    "ResNet.no_output": ("ResNet", {"d_out": None, "n_blocks": 1, "d_block": 16, "d_hidden_multiplier": 2.0,
                                    "dropout1": 0.1, "dropout2": 0.0}, "cont"),
    "FTTransformer.default": ("FTTransformer", {"default": 1, "d_out": 1}, "both"),
    "FTTransformer.default_3_blocks": ("FTTransformer", {"default": 3, "d_out": 3}, "both"),
    "FTTransformer.default_cont_only": ("FTTransformer", {"default": 1, "d_out": 1}, "cont"),
    "FTTransformer.default_cat_only": ("FTTransformer", {"default": 1, "d_out": 1}, "cat"),
    "FTTransformer.small": ("FTTransformer", {**SMALL_FT, "d_out": 3}, "both"),
    "FTTransformer.relu": ("FTTransformer", {**SMALL_FT, "d_out": 1, "ffn_activation": "ReLU",
                                             "ffn_d_hidden_multiplier": 2.0}, "both"),
    "FTTransformer.ffn_d_hidden": ("FTTransformer", {**SMALL_FT, "d_out": 1, "ffn_d_hidden": 20,
                                                     "ffn_d_hidden_multiplier": None}, "cont"),
    "FTTransformer.one_head": ("FTTransformer", {**SMALL_FT, "d_out": 1, "attention_n_heads": 1,
                                                 "attention_dropout": 0.0}, "both"),
    "FTTransformer.linformer_headwise": ("FTTransformer", {**SMALL_FT, **LINFORMER, "d_out": 1,
                                                           "linformer_kv_compression_sharing": "headwise"}, "both"),
    "FTTransformer.linformer_key_value": ("FTTransformer", {**SMALL_FT, **LINFORMER, "d_out": 1,
                                                            "linformer_kv_compression_sharing": "key-value"}, "cont"),
    "FTTransformer.no_output": ("FTTransformer", {**SMALL_FT, "d_out": None}, "both"),
    "FTTransformerBackbone": ("FTTransformerBackbone", {**SMALL_FT, "d_out": 1}, "tokens"),
    "FTTransformerBackbone.relu_no_output": ("FTTransformerBackbone", {**SMALL_FT, "d_out": None,
                                                                       "ffn_activation": "ReLU"}, "tokens"),
    "FTTransformerBackbone.linformer": ("FTTransformerBackbone", {**SMALL_FT, **LINFORMER, "d_out": 1, "n_tokens": 9,
                                                                  "linformer_kv_compression_sharing": "headwise"},
                                        "tokens"),
}
# Part name -> (class, keywords, inputs). Inputs as above, plus "cont3d" (2 x rows x continuous
# features), "pair" (two token sets: 9 queries, 4 keys) and "self" (the tokens twice).
PARTS: dict[str, tuple[str, dict[str, Any], str]] = {
    "LinearEmbeddings": ("LinearEmbeddings", {"n_features": N_CONT, "d_embedding": 16}, "cont"),
    "LinearEmbeddings.3d": ("LinearEmbeddings", {"n_features": N_CONT, "d_embedding": 8}, "cont3d"),
    "CategoricalEmbeddings": ("CategoricalEmbeddings", {"cardinalities": CARDINALITIES, "d_embedding": 16}, "cat"),
    "CategoricalEmbeddings.no_bias": ("CategoricalEmbeddings", {"cardinalities": CARDINALITIES, "d_embedding": 16,
                                                                "bias": False}, "cat"),
    "MultiheadAttention": ("MultiheadAttention", {"d_embedding": 16, "n_heads": 4, "dropout": 0.1}, "self"),
    "MultiheadAttention.cross": ("MultiheadAttention", {"d_embedding": 16, "n_heads": 4, "dropout": 0.1}, "pair"),
    "MultiheadAttention.one_head": ("MultiheadAttention", {"d_embedding": 16, "n_heads": 1, "dropout": 0.0}, "self"),
    "MultiheadAttention.linformer_headwise": ("MultiheadAttention", {
        "d_embedding": 16, "n_heads": 4, "dropout": 0.1, "n_tokens": 9, "linformer_kv_compression_ratio": 0.5,
        "linformer_kv_compression_sharing": "headwise"}, "self"),
    "MultiheadAttention.linformer_key_value": ("MultiheadAttention", {
        "d_embedding": 16, "n_heads": 2, "dropout": 0.0, "n_tokens": 9, "linformer_kv_compression_ratio": 0.25,
        "linformer_kv_compression_sharing": "key-value"}, "self"),
}
# Training step name -> (model of ``MODELS``, task). The task picks the loss and the targets.
TRAIN: dict[str, tuple[str, str]] = {
    "MLP.regression": ("MLP", "regression"),
    "MLP.multiclass": ("MLP.multiclass", "multiclass"),
    "MLP.embeddings.binary": ("MLP.embeddings", "binary"),
    "ResNet.regression": ("ResNet", "regression"),
    "ResNet.multiclass": ("ResNet.d_hidden", "multiclass"),
    "FTTransformer.default.binary": ("FTTransformer.default", "binary"),
    "FTTransformer.default.regression": ("FTTransformer.default_cont_only", "regression"),
    "FTTransformer.multiclass": ("FTTransformer.small", "multiclass"),
    "FTTransformer.linformer.binary": ("FTTransformer.linformer_headwise", "binary"),
}


def names() -> list[str]:
    return list(MODELS) + [f"part.{p}" for p in PARTS] + [f"train_step.{t}" for t in TRAIN]


def inputs(kind: str) -> tuple[Any, ...]:
    """Example inputs of one kind (see the comments above ``MODELS`` and ``PARTS``), from a seeded generator."""
    import torch

    gen = torch.Generator().manual_seed(0)
    x_cont = torch.randn(ROWS, N_CONT, generator=gen)
    x_cat = torch.stack([torch.randint(0, c, (ROWS,), generator=gen) for c in CARDINALITIES], dim=1)
    tokens = torch.randn(ROWS, 1 + N_CONT + len(CARDINALITIES), 16, generator=gen)
    table = {
        "cont": lambda: (x_cont,),
        "cont3d": lambda: (torch.randn(2, ROWS, N_CONT, generator=gen),),
        "cat": lambda: (x_cat,),
        "both": lambda: (x_cont, x_cat),
        "tokens": lambda: (tokens,),
        "self": lambda: (tokens, tokens),
        "pair": lambda: (tokens, torch.randn(ROWS, 4, 16, generator=gen)),
    }
    return table[kind]()


def _model(name: str) -> tuple[Any, tuple[Any, ...]]:
    """``MODELS[name]`` and its inputs; ``FTTransformer`` always takes ``(x_cont, x_cat)``, one possibly None."""
    import rtdl_revisiting_models as rtdl
    import torch
    from torch import nn

    cls, keywords, kind = MODELS[name]
    keywords = dict(keywords)
    args = inputs(kind)
    if cls == "_Embedded":

        class _Embedded(nn.Module):
            """``LinearEmbeddings`` of each continuous feature, flattened, then an ``MLP`` (the paper's
            MLP with feature embeddings)."""

            def __init__(self) -> None:
                super().__init__()
                self.embeddings = rtdl.LinearEmbeddings(N_CONT, 4)
                self.mlp = rtdl.MLP(d_in=N_CONT * 4, **keywords)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.mlp(self.embeddings(x).flatten(1))

            def entry_points(self) -> list[Any]:
                return [rtdl.LinearEmbeddings, rtdl.MLP]

        return _Embedded(), args
    if cls in ("MLP", "ResNet"):
        return getattr(rtdl, cls)(d_in=N_CONT, **keywords), args
    if cls == "FTTransformerBackbone":
        return rtdl.FTTransformerBackbone(**keywords), args
    if "default" in keywords:
        keywords = {**rtdl.FTTransformer.get_default_kwargs(n_blocks=keywords.pop("default")), **keywords}
    n_cont = 0 if kind == "cat" else N_CONT
    cardinalities = [] if kind == "cont" else CARDINALITIES
    model = rtdl.FTTransformer(n_cont_features=n_cont, cat_cardinalities=cardinalities, **keywords)
    x_cont = None if kind == "cat" else args[0]
    x_cat = args[-1] if kind in ("cat", "both") else None
    return model, (x_cont, x_cat)


def _train_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    model_name, task = TRAIN[name]
    model, args = _model(model_name)
    gen = torch.Generator().manual_seed(1)
    target = {"regression": lambda: torch.randn(ROWS, generator=gen),
              "binary": lambda: torch.randint(0, 2, (ROWS,), generator=gen).float(),
              "multiclass": lambda: torch.randint(0, 3, (ROWS,), generator=gen)}[task]()

    class _TrainStep(nn.Module):
        """The prediction and the task's loss, up to the backward pass (the README's training loop)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *batch: Any) -> torch.Tensor:
            *features, y = batch
            prediction = self.model(*features)
            if task == "multiclass":
                return F.cross_entropy(prediction, y)
            prediction = prediction.squeeze(-1)
            if task == "binary":
                return F.binary_cross_entropy_with_logits(prediction, y)
            return F.mse_loss(prediction, y)

        def entry_points(self) -> list[Any]:
            return model.entry_points() if hasattr(model, "entry_points") else [type(model)]

    return _TrainStep(), (*args, target), {}


def build(name: str) -> Built:
    import rtdl_revisiting_models as rtdl
    import torch

    torch.manual_seed(0)
    if name.startswith("train_step."):
        return _train_step(name.split(".", 1)[1])
    if name.startswith("part."):
        cls, keywords, kind = PARTS[name.split(".", 1)[1]]
        return getattr(rtdl, cls)(**keywords), inputs(kind), {}
    model, args = _model(name)
    return model, args, {}
