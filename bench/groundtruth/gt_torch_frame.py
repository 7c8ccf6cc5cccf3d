"""Ground-truth bench, torch_frame: PyTorch Frame's tabular models, encoders, convs and decoders over TensorFrames.

PyTorch Frame (``pytorch-frame``) turns a ``DataFrame`` into a ``TensorFrame`` (one tensor, or a
``MultiNestedTensor`` / ``MultiEmbeddingTensor``, per semantic type: numerical, categorical,
multicategorical, timestamp, embedding) with column statistics, and its models read the frame through a
``StypeWiseFeatureEncoder`` (a ``StypeEncoder`` per stype, with a NaN strategy and a post module), run a
stack of table convs and decode a row prediction. The frames here are built from a small random
``DataFrame`` (eight rows) by ``torch_frame.data.Dataset.materialize``, so the statistics are real. The
tables cover:

- ``MODELS``: every model of ``torch_frame.nn.models`` (``FTTransformer``, ``ResNet``, ``MLP``, ``TabNet``,
  ``TabTransformer``, ``Trompt``, ``ExcelFormer``) with the options that change the path: numerical or
  categorical columns alone or together, NaN values with and without NaN strategies (mean, zeros, most
  frequent, timestamps; missing bags left to the padding index), each numerical encoder (linear, bucket,
  periodic, stack, ExcelFormer, a ``LinearModelEncoder``), multicategorical bags (mean, sum, max),
  timestamps and embeddings, post modules, normalizations, ``TabNet``'s ``return_reg`` and shared GLU
  layers, ``Trompt``'s own encoder lists and ``ExcelFormer``'s mixup (none, feature with mutual-information
  scores, hidden) with ``mixup_encoded``;
- ``ENCODERS``: each ``StypeEncoder`` alone on its stype's tensor (with NaN strategies, column names), the
  ``StypeWiseFeatureEncoder`` over all stypes, and the positional and cyclic encodings;
- ``LAYERS``: the convs (``FTTransformerConvs``, ``TabTransformerConv``, ``TromptConv``, ``ExcelFormerConv``),
  the decoders (``TromptDecoder``, ``ExcelFormerDecoder``) and ``feature_mixup`` called as a function;
- ``TRAIN``: training steps, the prediction, the task's loss and ``loss.backward()`` through the model
  (gradients on in both modes), two with an Adam step.

Random data and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
ROWS = 8
CH = 8

NUM, CAT = ("numerical",), ("categorical",)
NUM_CAT = ("numerical", "categorical")
ALL = ("numerical", "categorical", "multicategorical", "timestamp", "embedding")

# Model name -> (class, keywords, stypes, NaN values, task, encoder spec, forward keywords).
MODELS: dict[str, tuple[str, dict[str, Any], tuple[str, ...], bool, str, str, dict[str, Any]]] = {
    "FTTransformer": ("FTTransformer", {}, NUM_CAT, False, "regression", "default", {}),
    "FTTransformer.numerical": ("FTTransformer", {}, NUM, False, "regression", "default", {}),
    "FTTransformer.categorical": ("FTTransformer", {}, CAT, False, "multiclass", "default", {}),
    "FTTransformer.nan": ("FTTransformer", {}, NUM_CAT, True, "regression", "default", {}),
    "FTTransformer.nan.strategies": ("FTTransformer", {}, NUM_CAT, True, "regression", "na", {}),
    "FTTransformer.nan.zeros": ("FTTransformer", {}, NUM_CAT, True, "regression", "na_zeros", {}),
    "FTTransformer.linear_bucket": ("FTTransformer", {}, NUM_CAT, False, "regression", "bucket", {}),
    "FTTransformer.linear_periodic": ("FTTransformer", {}, NUM_CAT, False, "regression", "periodic", {}),
    "FTTransformer.excelformer_encoder": ("FTTransformer", {}, NUM, True, "regression", "excel", {}),
    "FTTransformer.stack_encoder": ("FTTransformer", {}, NUM, False, "regression", "stack", {}),
    "FTTransformer.linear_model_encoder": ("FTTransformer", {}, NUM, False, "regression", "model", {}),
    "FTTransformer.post_module": ("FTTransformer", {}, NUM_CAT, False, "regression", "post", {}),
    "FTTransformer.multicategorical": ("FTTransformer", {}, ("multicategorical",), False, "regression", "all", {}),
    "FTTransformer.multicategorical.sum": ("FTTransformer", {}, ("multicategorical",), False, "regression",
                                           "mc_sum", {}),
    "FTTransformer.multicategorical.max": ("FTTransformer", {}, ("multicategorical",), False, "regression",
                                           "mc_max", {}),
    "FTTransformer.multicategorical.nan": ("FTTransformer", {}, ("multicategorical",), True, "regression",
                                           "all_na", {}),
    "FTTransformer.timestamp": ("FTTransformer", {}, ("timestamp",), False, "regression", "all", {}),
    "FTTransformer.timestamp.nan": ("FTTransformer", {}, ("timestamp",), True, "regression", "all", {}),
    "FTTransformer.timestamp.oldest": ("FTTransformer", {}, ("timestamp",), True, "regression", "ts_oldest", {}),
    "FTTransformer.embedding": ("FTTransformer", {}, ("embedding",), False, "regression", "all", {}),
    "FTTransformer.all_stypes": ("FTTransformer", {}, ALL, False, "multiclass", "all", {}),
    "FTTransformer.all_stypes.nan": ("FTTransformer", {}, ALL, True, "multiclass", "all_na", {}),
    "ResNet": ("ResNet", {}, NUM_CAT, False, "regression", "default", {}),
    "ResNet.nan": ("ResNet", {}, NUM_CAT, True, "binary", "na", {}),
    "ResNet.batch_norm": ("ResNet", {"normalization": "batch_norm"}, NUM_CAT, False, "regression", "default", {}),
    "ResNet.no_norm": ("ResNet", {"normalization": None}, NUM_CAT, False, "regression", "default", {}),
    "ResNet.linear_periodic": ("ResNet", {}, NUM, False, "regression", "periodic", {}),
    "ResNet.all_stypes": ("ResNet", {}, ALL, False, "multiclass", "all", {}),
    "MLP": ("MLP", {}, NUM_CAT, False, "regression", "default", {}),
    "MLP.batch_norm": ("MLP", {"normalization": "batch_norm"}, NUM_CAT, False, "regression", "default", {}),
    "MLP.no_norm": ("MLP", {"normalization": None}, NUM_CAT, False, "regression", "default", {}),
    "MLP.linear_bucket": ("MLP", {}, NUM, True, "regression", "bucket_na", {}),
    "MLP.all_stypes": ("MLP", {}, ALL, True, "multiclass", "all_na", {}),
    "TabNet": ("TabNet", {}, NUM_CAT, False, "regression", "default", {}),
    "TabNet.return_reg": ("TabNet", {}, NUM_CAT, False, "regression", "default", {"return_reg": True}),
    "TabNet.nan": ("TabNet", {}, NUM_CAT, True, "multiclass", "default", {}),
    "TabNet.numerical": ("TabNet", {}, NUM, False, "regression", "default", {}),
    "TabNet.no_shared_glu": ("TabNet", {"num_shared_glu_layers": 0}, NUM_CAT, False, "regression", "default", {}),
    "TabNet.one_dependent_glu": ("TabNet", {"num_dependent_glu_layers": 1}, NUM_CAT, False, "regression",
                                 "default", {"return_reg": True}),
    "TabNet.all_stypes": ("TabNet", {}, ALL, False, "regression", "all", {}),
    "TabTransformer": ("TabTransformer", {}, NUM_CAT, False, "regression", "none", {}),
    "TabTransformer.categorical": ("TabTransformer", {}, CAT, False, "multiclass", "none", {}),
    "TabTransformer.numerical": ("TabTransformer", {}, NUM, False, "regression", "none", {}),
    "TabTransformer.nan": ("TabTransformer", {}, NUM_CAT, True, "binary", "none", {}),
    "Trompt": ("Trompt", {}, NUM_CAT, False, "regression", "default", {}),
    "Trompt.nan": ("Trompt", {}, NUM_CAT, True, "multiclass", "default", {}),
    "Trompt.numerical": ("Trompt", {}, NUM, False, "regression", "default", {}),
    "Trompt.encoder_dicts": ("Trompt", {}, ALL, False, "regression", "trompt_all", {}),
    "ExcelFormer": ("ExcelFormer", {}, NUM, False, "multiclass", "default", {}),
    "ExcelFormer.nan": ("ExcelFormer", {}, NUM, True, "regression", "default", {}),
    "ExcelFormer.dropouts": ("ExcelFormer", {"diam_dropout": 0.1, "aium_dropout": 0.1, "residual_dropout": 0.1},
                             NUM, False, "multiclass", "default", {}),
    "ExcelFormer.mixup_none.encoded": ("ExcelFormer", {}, NUM, False, "multiclass", "default",
                                       {"mixup_encoded": True}),
    "ExcelFormer.mixup_hidden": ("ExcelFormer", {"mixup": "hidden"}, NUM, False, "multiclass", "default",
                                 {"mixup_encoded": True}),
    "ExcelFormer.mixup_hidden.regression": ("ExcelFormer", {"mixup": "hidden"}, NUM, False, "regression",
                                            "default", {"mixup_encoded": True}),
    "ExcelFormer.mixup_feature": ("ExcelFormer", {"mixup": "feature"}, NUM, False, "multiclass", "default",
                                  {"mixup_encoded": True}),
    "ExcelFormer.mixup_feature.not_encoded": ("ExcelFormer", {"mixup": "feature"}, NUM, False, "multiclass",
                                              "default", {}),
}
ENCODERS = ("EmbeddingEncoder", "EmbeddingEncoder.nan", "EmbeddingEncoder.most_frequent",
            "EmbeddingEncoder.col_names", "LinearEncoder", "LinearEncoder.nan.mean", "LinearEncoder.post_module",
            "LinearBucketEncoder", "LinearPeriodicEncoder", "ExcelFormerEncoder", "StackEncoder",
            "StackEncoder.nan.zeros", "MultiCategoricalEmbeddingEncoder", "MultiCategoricalEmbeddingEncoder.nan",
            "MultiCategoricalEmbeddingEncoder.max", "LinearEmbeddingEncoder", "TimestampEncoder",
            "TimestampEncoder.newest", "LinearModelEncoder", "StypeWiseFeatureEncoder",
            "StypeWiseFeatureEncoder.nan", "PositionalEncoding", "CyclicEncoding")
LAYERS = ("FTTransformerConvs", "FTTransformerConvs.gelu", "TabTransformerConv", "TromptConv", "ExcelFormerConv",
          "TromptDecoder", "ExcelFormerDecoder", "feature_mixup.hidden", "feature_mixup.feature",
          "feature_mixup.none")
# Train step name -> (model name of ``MODELS``, with an Adam step).
TRAIN: dict[str, tuple[str, bool]] = {
    "train_step.FTTransformer": ("FTTransformer", False),
    "train_step.FTTransformer.all_stypes": ("FTTransformer.all_stypes", False),
    "train_step.FTTransformer.adam": ("FTTransformer.nan.strategies", True),
    "train_step.ResNet": ("ResNet.nan", False),
    "train_step.MLP": ("MLP.all_stypes", False),
    "train_step.TabNet.return_reg": ("TabNet.return_reg", False),
    "train_step.TabTransformer": ("TabTransformer", False),
    "train_step.Trompt": ("Trompt.nan", False),
    "train_step.ExcelFormer.mixup_hidden": ("ExcelFormer.mixup_hidden", False),
    "train_step.ExcelFormer.mixup_feature": ("ExcelFormer.mixup_feature", True),
}


def names() -> list[str]:
    return list(MODELS) + list(ENCODERS) + list(LAYERS) + list(TRAIN)


def _dataset(stypes: tuple[str, ...], nan: bool = False, task: str = "regression") -> Any:
    """A materialized ``Dataset`` of ``ROWS`` random rows with columns of ``stypes`` and a ``task`` target."""
    import numpy as np
    import pandas as pd
    from torch_frame import stype
    from torch_frame.data import Dataset

    rng = np.random.default_rng(0)
    columns: dict[str, Any] = {}
    col_to_stype: dict[str, Any] = {}
    if task == "regression":
        columns["target"], col_to_stype["target"] = rng.standard_normal(ROWS), stype.numerical
    else:
        columns["target"] = np.arange(ROWS) % (2 if task == "binary" else 3)
        col_to_stype["target"] = stype.categorical
    if "numerical" in stypes:
        for i in range(3):
            values = rng.standard_normal(ROWS)
            if nan:
                values[i::3] = np.nan
            columns[f"num_{i}"], col_to_stype[f"num_{i}"] = values, stype.numerical
    if "categorical" in stypes:
        for i in range(2):
            values = rng.integers(0, 3, ROWS).astype(float)
            if nan:
                values[i + 1] = np.nan
            columns[f"cat_{i}"], col_to_stype[f"cat_{i}"] = values, stype.categorical
    if "multicategorical" in stypes:
        for i in range(2):
            bags: list[Any] = [list(rng.choice(list("abcde"), 2, replace=False)) for _ in range(ROWS)]
            if nan:
                bags[i] = None
            columns[f"mc_{i}"] = pd.Series(bags, dtype=object)
            col_to_stype[f"mc_{i}"] = stype.multicategorical
    if "timestamp" in stypes:
        for i in range(2):
            days = rng.integers(0, 100, ROWS)
            stamps: list[Any] = [f"20{10 + d % 9}-0{1 + d % 9}-1{d % 9} 0{d % 9}:1{d % 7}:2{d % 5}" for d in days]
            if nan:
                stamps[i + 2] = None
            columns[f"ts_{i}"] = pd.Series(stamps, dtype=object)
            col_to_stype[f"ts_{i}"] = stype.timestamp
    if "embedding" in stypes:
        for i, dim in enumerate((3, 5)):
            vectors = [rng.standard_normal(dim).tolist() for _ in range(ROWS)]
            columns[f"emb_{i}"] = pd.Series(vectors, dtype=object)
            col_to_stype[f"emb_{i}"] = stype.embedding
    return Dataset(pd.DataFrame(columns), col_to_stype, target_col="target").materialize()


def _encoders(spec: str, col_names_dict: dict[Any, list[str]]) -> dict[Any, Any] | None:
    """The ``stype_encoder_dict`` named ``spec`` (``None``: the model's default)."""
    import torch
    from torch_frame import NAStrategy, stype
    from torch_frame.config import ModelConfig
    from torch_frame.nn import encoder as E

    if spec == "default":
        return None
    if spec == "na":
        return {stype.categorical: E.EmbeddingEncoder(na_strategy=NAStrategy.MOST_FREQUENT),
                stype.numerical: E.LinearEncoder(na_strategy=NAStrategy.MEAN)}
    if spec == "na_zeros":
        return {stype.categorical: E.EmbeddingEncoder(),
                stype.numerical: E.LinearEncoder(na_strategy=NAStrategy.ZEROS)}
    if spec == "bucket":
        return {stype.categorical: E.EmbeddingEncoder(), stype.numerical: E.LinearBucketEncoder()}
    if spec == "bucket_na":
        return {stype.numerical: E.LinearBucketEncoder(na_strategy=NAStrategy.MEAN)}
    if spec == "periodic":
        return {stype.categorical: E.EmbeddingEncoder(), stype.numerical: E.LinearPeriodicEncoder(n_bins=4)}
    if spec == "excel":
        return {stype.numerical: E.ExcelFormerEncoder(na_strategy=NAStrategy.MEAN)}
    if spec == "stack":
        return {stype.numerical: E.StackEncoder()}
    if spec == "model":
        configs = {col: ModelConfig(model=torch.nn.Linear(1, 4), out_channels=4)
                   for col in col_names_dict[stype.numerical]}
        return {stype.numerical: E.LinearModelEncoder(col_to_model_cfg=configs)}
    if spec == "post":
        return {stype.categorical: E.EmbeddingEncoder(post_module=torch.nn.LayerNorm(CH)),
                stype.numerical: E.LinearEncoder(post_module=torch.nn.Sequential(torch.nn.ReLU(),
                                                                                 torch.nn.LayerNorm(CH)))}
    mode = {"mc_sum": "sum", "mc_max": "max"}.get(spec, "mean")
    na = spec == "all_na"
    timestamp = NAStrategy.OLDEST_TIMESTAMP if spec == "ts_oldest" else NAStrategy.MEDIAN_TIMESTAMP
    return {stype.numerical: E.LinearEncoder(na_strategy=NAStrategy.MEAN if na else None),
            stype.categorical: E.EmbeddingEncoder(na_strategy=NAStrategy.MOST_FREQUENT if na else None),
            stype.multicategorical: E.MultiCategoricalEmbeddingEncoder(mode=mode),
            stype.timestamp: E.TimestampEncoder(na_strategy=timestamp, out_size=4),
            stype.embedding: E.LinearEmbeddingEncoder()}


def _model(name: str) -> tuple[Any, Any, dict[str, Any], str]:
    """The model ``name`` of ``MODELS``, its ``TensorFrame``, forward keywords and task."""
    import torch
    from torch_frame.nn import models

    cls, keywords, stypes, nan, task, spec, forward = MODELS[name]
    dataset = _dataset(stypes, nan, task)
    tf = dataset.tensor_frame
    stats, col_names = dataset.col_stats, tf.col_names_dict
    out = 3 if task == "multiclass" else 1
    common: dict[str, Any] = {"col_stats": stats, "col_names_dict": col_names}
    if cls in ("FTTransformer", "ResNet", "MLP"):
        model = getattr(models, cls)(channels=CH, out_channels=out, num_layers=2,
                                     stype_encoder_dict=_encoders(spec, col_names), **common, **keywords)
    elif cls == "TabNet":
        model = models.TabNet(out_channels=out, num_layers=2, split_feat_channels=4, split_attn_channels=4,
                              gamma=1.2, stype_encoder_dict=_encoders(spec, col_names), **common, **keywords)
    elif cls == "TabTransformer":
        model = models.TabTransformer(channels=CH, out_channels=out, num_layers=2, num_heads=2, encoder_pad_size=2,
                                      attn_dropout=0.1, ffn_dropout=0.1, **common, **keywords)
    elif cls == "Trompt":
        dicts = None if spec == "default" else [_encoders("all", col_names) for _ in range(2)]
        model = models.Trompt(channels=CH, out_channels=out, num_prompts=4, num_layers=2,
                              stype_encoder_dicts=dicts, **common, **keywords)
    else:
        num_cols = sum(len(v) for v in col_names.values())
        model = models.ExcelFormer(in_channels=CH, out_channels=out, num_cols=num_cols, num_layers=2,
                                   num_heads=2, **common, **keywords)
        if keywords.get("mixup") == "feature":
            tf.mi_scores = torch.rand(num_cols, generator=torch.Generator().manual_seed(2))
    return model, tf, dict(forward), task


def _encoder(name: str) -> Built:
    import torch
    from torch_frame import NAStrategy, stype
    from torch_frame.config import ModelConfig
    from torch_frame.nn import encoder as E
    from torch_frame.nn.encoding import CyclicEncoding, PositionalEncoding

    from gt_calls import Keywords

    if name in ("PositionalEncoding", "CyclicEncoding"):
        gen = torch.Generator().manual_seed(1)
        if name == "PositionalEncoding":
            return PositionalEncoding(6), (torch.randint(0, 50, (ROWS, 2, 1), generator=gen).float(),), {}
        return CyclicEncoding(6), (torch.rand(ROWS, 2, 5, generator=gen),), {}
    kind = name.split(".")[0]
    nan = ".nan" in name
    if kind == "StypeWiseFeatureEncoder":
        dataset = _dataset(ALL, nan)
        tf = dataset.tensor_frame
        module = E.StypeWiseFeatureEncoder(CH, dataset.col_stats, tf.col_names_dict,
                                           _encoders("all_na" if nan else "all", tf.col_names_dict))
        return module, (tf,), {}
    which = {"EmbeddingEncoder": stype.categorical, "MultiCategoricalEmbeddingEncoder": stype.multicategorical,
             "LinearEmbeddingEncoder": stype.embedding, "TimestampEncoder": stype.timestamp}.get(kind, stype.numerical)
    dataset = _dataset((which.value,), nan or name.endswith("most_frequent") or kind == "TimestampEncoder")
    tf = dataset.tensor_frame
    cols = tf.col_names_dict[which]
    stats = [dataset.col_stats[c] for c in cols]
    options: dict[str, Any] = {}
    if name == "EmbeddingEncoder.most_frequent":
        options["na_strategy"] = NAStrategy.MOST_FREQUENT
    elif name == "LinearEncoder.nan.mean":
        options["na_strategy"] = NAStrategy.MEAN
    elif name == "StackEncoder.nan.zeros":
        options["na_strategy"] = NAStrategy.ZEROS
    elif name == "MultiCategoricalEmbeddingEncoder.max":
        options["mode"] = "max"
    elif name == "LinearEncoder.post_module":
        options["post_module"] = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.LayerNorm(CH))
    elif name == "LinearPeriodicEncoder":
        options["n_bins"] = 4
    elif name == "TimestampEncoder.newest":
        options["na_strategy"] = NAStrategy.NEWEST_TIMESTAMP
    elif name == "LinearModelEncoder":
        options["col_to_model_cfg"] = {c: ModelConfig(model=torch.nn.Linear(1, 4), out_channels=4) for c in cols}
    module = getattr(E, kind)(out_channels=CH, stats_list=stats, stype=which, **options)
    feat = tf.feat_dict[which]
    if kind == "LinearModelEncoder" or name.endswith("col_names"):
        return Keywords(module, col_names=cols), (feat,), {}
    return module, (feat,), {}


def _layer(name: str) -> Built:
    import torch
    from torch_frame.nn import conv, decoder
    from torch_frame.nn.models.excelformer import feature_mixup

    from gt_calls import Call

    gen = torch.Generator().manual_seed(1)
    x = torch.randn(ROWS, 5, CH, generator=gen)
    if name.startswith("FTTransformerConvs"):
        activation = "gelu" if name.endswith("gelu") else "relu"
        return conv.FTTransformerConvs(channels=CH, num_layers=2, nhead=2, activation=activation), (x,), {}
    if name == "TabTransformerConv":
        return conv.TabTransformerConv(channels=CH, num_heads=2, attn_dropout=0.1, ffn_dropout=0.1), (x,), {}
    if name == "TromptConv":
        return conv.TromptConv(CH, num_cols=5, num_prompts=4), (x, torch.randn(ROWS, 4, CH, generator=gen)), {}
    if name == "ExcelFormerConv":
        return conv.ExcelFormerConv(CH, num_cols=5, num_heads=2, diam_dropout=0.1, aium_dropout=0.1,
                                    residual_dropout=0.1), (x,), {}
    if name == "TromptDecoder":
        return decoder.TromptDecoder(CH, 3, num_prompts=4), (torch.randn(ROWS, 4, CH, generator=gen),), {}
    if name == "ExcelFormerDecoder":
        return decoder.ExcelFormerDecoder(CH, 3, num_cols=5), (x,), {}
    mixup = name.split(".")[1]
    y = torch.arange(ROWS) % 3
    static: dict[str, Any] = {"num_classes": 3, "mixup_type": None if mixup == "none" else mixup}
    if mixup == "feature":
        static["mi_scores"] = torch.rand(5, generator=gen)
    return Call(feature_mixup, **static), (x, y), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    model_name, adam = TRAIN[name]
    model, tf, forward, task = _model(model_name)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3) if adam else None
    cls = type(model).__name__

    class _TrainStep(nn.Module):
        """The prediction, the task's loss and its backward pass through the model (and an Adam step)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, frame: Any) -> torch.Tensor:
            with torch.enable_grad():
                out = self.model(frame, **forward)
                y = frame.y
                if cls == "TabNet":
                    out, reg = out
                    loss = F.mse_loss(out.view(-1), y) + 0.01 * reg
                elif cls == "ExcelFormer":
                    out, y_mixed = out
                    loss = (F.cross_entropy(out, y_mixed) if task == "multiclass"
                            else F.mse_loss(out.view(-1), y_mixed.view(-1)))
                elif cls == "Trompt":
                    layers = out.size(1)
                    flat = out.view(-1, out.size(-1))
                    target = y.repeat_interleave(layers)
                    loss = F.cross_entropy(flat, target) if task == "multiclass" else F.mse_loss(flat.view(-1), target)
                elif task == "multiclass":
                    loss = F.cross_entropy(out, y)
                elif task == "binary":
                    loss = F.binary_cross_entropy_with_logits(out.view(-1), y.float())
                else:
                    loss = F.mse_loss(out.view(-1), y)
                if optimizer is not None:
                    optimizer.zero_grad()
                loss.backward()
                if optimizer is not None:
                    optimizer.step()
            return loss.detach()

        def entry_points(self) -> list[Any]:
            return [type(model)] + ([type(optimizer).step] if optimizer is not None else [])

    return _TrainStep(), (tf,), {}


def build(name: str) -> Built:
    import random

    import numpy as np
    import torch

    from gt_calls import Keywords

    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    if name in MODELS:
        model, tf, forward, _ = _model(name)
        return (Keywords(model, **forward) if forward else model), (tf,), {}
    if name in ENCODERS:
        return _encoder(name)
    if name in LAYERS:
        return _layer(name)
    return _train(name)
