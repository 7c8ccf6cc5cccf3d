"""Ground-truth bench, tab_transformer_pytorch: TabTransformer and FTTransformer for tabular data.

tab_transformer_pytorch ships two models over rows of categorical ids and continuous values, both on a small
transformer whose residuals are hyper-connections (``hyper_connections.mHC``, several residual streams unless
``num_residual_streams=1``) and whose embeddings come from ``discrete_continuous_embed_readout.Embed``:

- ``TabTransformer``: the categories embedded (with a shared per-column embedding, ``use_shared_categ_embed``,
  and its ``shared_categ_dim_divisor``), special tokens written as negative ids (their own embedding table,
  ``num_special_tokens``), the transformer over the categories, the continuous values normalised (a layer norm,
  and ``continuous_mean_std`` first when given) and an MLP head (``mlp_hidden_mults``, ``mlp_act``);
- ``FTTransformer``: the categories and each continuous value embedded as tokens, a CLS token, the transformer
  (attention with its own pre-norm) and a head on the CLS token.

Models: each class's forward (eval and train mode, dropout included in some) in configurations that change its
path: only categories, only continuous values, special tokens among the ids, one residual stream, no hidden MLP
layers, a multi-class output, two layers, ``return_attn=True``; and training steps (``train_step.*``: the
prediction and the task's loss, a binary, multi-class or regression target, what the README's training loop runs
before ``backward``). ``TabTransformer``'s default ``mlp_act=None`` fails eagerly with hidden MLP layers, so the
models pass an activation as the README does (the one model without hidden layers keeps the default). Sizes are
tiny: batch 2, three categorical columns of 3 to 5 values, two continuous ones, width 16, 2 heads of 8.
Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
CATEGORIES = (3, 4, 5)
NUM_CONTINUOUS = 2
SMALL = {"dim": 16, "depth": 1, "heads": 2, "dim_head": 8}
# Keywords resolved in the worker: "mlp_act" names an activation, "continuous_mean_std" a (2, 2) buffer.
TAB = {**SMALL, "categories": CATEGORIES, "num_continuous": NUM_CONTINUOUS, "mlp_act": "relu"}
FT = {**SMALL, "categories": CATEGORIES, "num_continuous": NUM_CONTINUOUS}
# Model name -> (class, keywords, inputs: "both", "special" (negative ids among the categories), "categ_only"
# (no continuous values), "cont_only" (no categories), call keywords).
MODELS: dict[str, tuple[str, dict[str, Any], str, dict[str, Any]]] = {
    "TabTransformer": ("TabTransformer", TAB, "both", {}),
    "TabTransformer.return_attn": ("TabTransformer", TAB, "both", {"return_attn": True}),
    "TabTransformer.special_tokens": ("TabTransformer", {**TAB, "num_special_tokens": 3}, "special", {}),
    "TabTransformer.continuous_mean_std": ("TabTransformer", {**TAB, "continuous_mean_std": "stats", "mlp_act": "silu"},
                                           "both", {}),
    "TabTransformer.no_shared_embed": ("TabTransformer", {**TAB, "use_shared_categ_embed": False}, "both", {}),
    "TabTransformer.shared_divisor": ("TabTransformer", {**TAB, "shared_categ_dim_divisor": 4.0}, "both", {}),
    "TabTransformer.one_stream": ("TabTransformer", {**TAB, "num_residual_streams": 1}, "both", {}),
    "TabTransformer.no_hidden_mlp": ("TabTransformer", {**TAB, "mlp_hidden_mults": (), "mlp_act": None}, "both", {}),
    "TabTransformer.categ_only": ("TabTransformer", {**TAB, "num_continuous": 0}, "categ_only", {}),
    "TabTransformer.multiclass.depth2": ("TabTransformer", {**TAB, "dim_out": 3, "depth": 2, "mlp_hidden_mults": (2,)},
                                         "both", {"return_attn": True}),
    "TabTransformer.dropout": ("TabTransformer", {**TAB, "attn_dropout": 0.1, "ff_dropout": 0.1}, "both", {}),
    "FTTransformer": ("FTTransformer", FT, "both", {}),
    "FTTransformer.return_attn": ("FTTransformer", FT, "both", {"return_attn": True}),
    "FTTransformer.one_stream": ("FTTransformer", {**FT, "num_residual_streams": 1}, "both", {}),
    "FTTransformer.cont_only": ("FTTransformer", {**FT, "categories": ()}, "cont_only", {}),
    "FTTransformer.categ_only.no_special": ("FTTransformer", {**FT, "num_continuous": 0, "num_special_tokens": 0},
                                            "categ_only", {}),
    "FTTransformer.multiclass.depth2": ("FTTransformer", {**FT, "dim_out": 3, "depth": 2}, "both",
                                        {"return_attn": True}),
    "FTTransformer.dropout": ("FTTransformer", {**FT, "attn_dropout": 0.1, "ff_dropout": 0.1}, "both", {}),
}
# Training step name -> (model name, task: "binary", "multiclass" or "regression").
TRAIN: dict[str, tuple[str, str]] = {
    "TabTransformer.binary": ("TabTransformer", "binary"),
    "TabTransformer.special_tokens.binary": ("TabTransformer.special_tokens", "binary"),
    "TabTransformer.multiclass": ("TabTransformer.multiclass.depth2", "multiclass"),
    "FTTransformer.regression": ("FTTransformer", "regression"),
    "FTTransformer.multiclass": ("FTTransformer.multiclass.depth2", "multiclass"),
}


def names() -> list[str]:
    return list(MODELS) + [f"train_step.{t}" for t in TRAIN]


def _inputs(kind: str, categories: tuple[int, ...]) -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(1)
    categ = torch.stack([torch.randint(0, c, (BATCH,), generator=gen) for c in categories], -1) if categories else \
        torch.zeros(BATCH, 0, dtype=torch.long)
    if kind == "special":
        categ[0, 1] = -1  # the first special token
        categ[1, 0] = -2
    cont = torch.randn(BATCH, 0 if kind == "categ_only" else NUM_CONTINUOUS, generator=gen)
    return categ, cont


def _model(name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    import tab_transformer_pytorch
    import torch
    from torch import nn

    cls, keywords, kind, call = MODELS[name]
    keywords = dict(keywords)
    if isinstance(keywords.get("mlp_act"), str):
        keywords["mlp_act"] = {"relu": nn.ReLU, "silu": nn.SiLU}[keywords["mlp_act"]]()
    if keywords.get("continuous_mean_std") == "stats":
        keywords["continuous_mean_std"] = torch.tensor([[0.5, 2.0], [-1.0, 0.5]])
    model = getattr(tab_transformer_pytorch, cls)(**keywords)
    return model, _inputs(kind, keywords["categories"]), call


def _train_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    model_name, task = TRAIN[name]
    model, args, call = _model(model_name)
    gen = torch.Generator().manual_seed(2)
    target = {"binary": lambda: torch.randint(0, 2, (BATCH,), generator=gen).float(),
              "multiclass": lambda: torch.randint(0, 3, (BATCH,), generator=gen),
              "regression": lambda: torch.randn(BATCH, generator=gen)}[task]()

    class _TrainStep(nn.Module):
        """The prediction and the task's loss, up to the backward pass."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x_categ: torch.Tensor, x_cont: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            prediction = self.model(x_categ, x_cont, **call)
            if isinstance(prediction, tuple):
                prediction, attns = prediction
                prediction = prediction + 0.0 * attns.sum()
            if task == "multiclass":
                return F.cross_entropy(prediction, y)
            if task == "binary":
                return F.binary_cross_entropy_with_logits(prediction.squeeze(-1), y)
            return F.mse_loss(prediction.squeeze(-1), y)

        def entry_points(self) -> list[Any]:
            return [type(model)]

    return _TrainStep(), (*args, target), {}


def build(name: str) -> Built:
    import warnings

    import torch

    from gt_calls import Keywords

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name.startswith("train_step."):
        return _train_step(name.split(".", 1)[1])
    model, args, call = _model(name)
    if call:
        return Keywords(model, **call), args, {}
    return model, args, {}
