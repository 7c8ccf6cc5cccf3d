"""Ground-truth bench, deepctr_torch (deepctr-torch): click-through-rate models over feature columns.

deepctr-torch describes a table's columns as ``SparseFeat`` (categorical, embedded), ``DenseFeat``
(numbers) and ``VarLenSparseFeat`` (a padded list of categories pooled by ``mean`` / ``sum`` / ``max``, its
length in another column or taken from the non-zero ids). Every model subclasses ``BaseModel``, whose
forward takes one float tensor holding all the columns side by side (``build_input_features`` gives
each column's slice), looks the embeddings up, adds a linear part (``Linear``) and runs its interaction
layers. So the tables cover, on tiny columns (three sparse columns and a two-dimensional dense one,
embeddings of width 4, hidden layers of 8, batch 2):

- ``MODELS``: the CTR models with the options that change their code: ``WDL``, ``DeepFM`` (with and
  without FM, batch norm and Dice / PReLU activations, a regression task, pooled list columns in the three
  combiners, with and without a length column), ``xDeepFM`` (CIN halves split or not), ``DCN`` (vector and
  matrix crosses, cross only), ``DCNMix``, ``NFM``, ``AFM`` (with and without attention), ``AutoInt``
  (with and without the DNN), ``CCPM``, ``PNN`` (inner, outer with the three kernels), ``FiBiNET`` (the
  three bilinear types), ``IFM``, ``DIFM``, ``AFN``, ``ONN``, ``MLR`` (regions only, with base and bias
  columns), ``DIN`` (Dice attention, sigmoid attention with weight normalisation) and ``DIEN`` (GRU,
  AIGRU, AGRU, AUGRU, negative sampling's auxiliary loss), and the multi-task ``MMOE``, ``PLE`` (one and
  two levels), ``ESMM`` and ``SharedBottom`` (with a regression task);
- ``TRAIN_STEPS``: what ``BaseModel.fit`` computes per batch: the loss, ``get_regularization_loss()``
  and the auxiliary loss (DeepFM, DIEN with negative sampling, MMOE);
- ``LAYERS``: the layers users compose: ``DNN`` (ReLU, Dice, PReLU, batch norm, dropout), ``FM``,
  ``BiInteractionPooling``, ``SENETLayer``, ``BilinearInteraction``, ``CIN``, ``AFMLayer``,
  ``InteractingLayer`` (scaled), ``CrossNet``, ``CrossNetMix``, ``InnerProductLayer``,
  ``OutterProductLayer``, ``ConvLayer``, ``LogTransformLayer``, ``SequencePoolingLayer`` (mean, sum with
  masking, max), ``AttentionSequencePoolingLayer`` (with and without masking, returning the scores),
  ``LocalActivationUnit``, ``KMaxPooling``, ``DynamicGRU`` (AGRU and AUGRU over a packed sequence),
  ``Dice``, ``PredictionLayer`` and ``Conv2dSame``.

``fit`` / ``evaluate`` / ``predict`` (numpy loops around the forward) are left out: the bench compiles the
forward they call. Random weights, nothing downloaded; the package's import-time version check is
harmless. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, EMB, MAXLEN = 2, 4, 3
HIDDEN = (8, 8)
DEEP = {"dnn_hidden_units": HIDDEN}
TASKS = {"expert_dnn_hidden_units": HIDDEN, "gate_dnn_hidden_units": (4,), "tower_dnn_hidden_units": (4,)}

# Model name -> (class, keywords, columns). Columns: "base" (sparse and dense), "varlen.<combiner>" (a list
# column with a length column), "varlen.<combiner>.masked" (without one: its non-zero ids give the length),
# "sparse" (sparse only), "history" (DIN / DIEN: an item, its category and their histories), "history.neg"
# (with negative histories).
MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "WDL": ("WDL", DEEP, "base"),
    "WDL.varlen.mean": ("WDL", DEEP, "varlen.mean"),
    "DeepFM": ("DeepFM", DEEP, "base"),
    "DeepFM.no_fm.bn.sigmoid": ("DeepFM", {**DEEP, "use_fm": False, "dnn_use_bn": True, "dnn_activation": "sigmoid"},
                                "base"),
    "DeepFM.prelu.dropout": ("DeepFM", {**DEEP, "dnn_activation": "prelu", "dnn_dropout": 0.2}, "base"),
    "DeepFM.regression": ("DeepFM", {**DEEP, "task": "regression"}, "base"),
    "DeepFM.varlen.sum": ("DeepFM", DEEP, "varlen.sum"),
    "DeepFM.varlen.max.masked": ("DeepFM", DEEP, "varlen.max.masked"),
    "DeepFM.varlen.mean.masked": ("DeepFM", DEEP, "varlen.mean.masked"),
    "DeepFM.no_dnn": ("DeepFM", {"dnn_hidden_units": ()}, "base"),
    "xDeepFM": ("xDeepFM", {**DEEP, "cin_layer_size": (4, 4)}, "base"),
    "xDeepFM.no_split_half": ("xDeepFM", {**DEEP, "cin_layer_size": (4, 4), "cin_split_half": False}, "varlen.mean"),
    "DCN": ("DCN", DEEP, "base"),
    "DCN.matrix": ("DCN", {**DEEP, "cross_parameterization": "matrix"}, "base"),
    "DCNMix": ("DCNMix", {**DEEP, "low_rank": 4, "num_experts": 2}, "base"),
    "NFM": ("NFM", {**DEEP, "bi_dropout": 0.1}, "base"),
    "AFM": ("AFM", {"attention_factor": 4}, "sparse"),
    "AFM.no_attention": ("AFM", {"use_attention": False}, "sparse"),
    "AutoInt": ("AutoInt", {**DEEP, "att_layer_num": 2}, "base"),
    "AutoInt.no_dnn.no_res": ("AutoInt", {"dnn_hidden_units": (), "att_res": False}, "sparse"),
    "CCPM": ("CCPM", {"dnn_hidden_units": (8,), "conv_kernel_width": (3, 2), "conv_filters": (2, 2)}, "sparse"),
    "PNN.inner": ("PNN", DEEP, "base"),
    "PNN.outer.mat": ("PNN", {**DEEP, "use_inner": False, "use_outter": True}, "sparse"),
    "PNN.inner.outer.vec": ("PNN", {**DEEP, "use_outter": True, "kernel_type": "vec"}, "sparse"),
    "PNN.outer.num": ("PNN", {**DEEP, "use_inner": False, "use_outter": True, "kernel_type": "num"}, "sparse"),
    "FiBiNET.interaction": ("FiBiNET", {**DEEP, "reduction_ratio": 2}, "base"),
    "FiBiNET.each": ("FiBiNET", {**DEEP, "bilinear_type": "each", "reduction_ratio": 2}, "sparse"),
    "FiBiNET.all": ("FiBiNET", {**DEEP, "bilinear_type": "all", "reduction_ratio": 2}, "sparse"),
    "IFM": ("IFM", DEEP, "base"),
    "DIFM": ("DIFM", {**DEEP, "att_head_num": 2}, "base"),
    "AFN": ("AFN", {"ltl_hidden_size": 8, "afn_dnn_hidden_units": HIDDEN}, "base"),
    "ONN": ("ONN", DEEP, "base"),
    "MLR": ("MLR", {"region_num": 2}, "mlr"),
    "MLR.base.bias": ("MLR", {"region_num": 2}, "mlr.base.bias"),
    "DIN": ("DIN", {**DEEP, "att_hidden_size": (8, 4)}, "history"),
    "DIN.sigmoid.weight_normalization": ("DIN", {**DEEP, "att_hidden_size": (8, 4), "att_activation": "sigmoid",
                                                 "att_weight_normalization": True, "dnn_use_bn": True}, "history"),
    "DIEN.GRU": ("DIEN", {**DEEP, "att_hidden_units": (8, 4)}, "history"),
    "DIEN.AIGRU": ("DIEN", {**DEEP, "att_hidden_units": (8, 4), "gru_type": "AIGRU"}, "history"),
    "DIEN.AGRU": ("DIEN", {**DEEP, "att_hidden_units": (8, 4), "gru_type": "AGRU"}, "history"),
    "DIEN.AUGRU": ("DIEN", {**DEEP, "att_hidden_units": (8, 4), "gru_type": "AUGRU"}, "history"),
    "DIEN.AUGRU.negsampling": ("DIEN", {**DEEP, "att_hidden_units": (8, 4), "gru_type": "AUGRU",
                                        "use_negsampling": True}, "history.neg"),
    "MMOE": ("MMOE", {**TASKS, "num_experts": 2}, "base"),
    "MMOE.regression": ("MMOE", {**TASKS, "num_experts": 2, "task_types": ("binary", "regression")}, "varlen.mean"),
    "PLE": ("PLE", {**TASKS, "num_levels": 1}, "base"),
    "PLE.two_levels": ("PLE", {**TASKS, "num_levels": 2}, "base"),
    "ESMM": ("ESMM", {"tower_dnn_hidden_units": HIDDEN}, "base"),
    "SharedBottom": ("SharedBottom", {"bottom_dnn_hidden_units": HIDDEN, "tower_dnn_hidden_units": (4,),
                                      "task_types": ("binary", "regression"), "task_names": ("ctr", "price")},
                     "base"),
}
TRAIN_STEPS = {"train_step.DeepFM": "DeepFM", "train_step.DIEN.AUGRU.negsampling": "DIEN.AUGRU.negsampling",
               "train_step.MMOE": "MMOE"}
LAYERS = (
    "DNN", "DNN.dice.bn", "DNN.prelu.dropout", "FM", "BiInteractionPooling", "SENETLayer", "BilinearInteraction.all",
    "BilinearInteraction.each", "CIN", "CIN.no_split_half", "AFMLayer", "InteractingLayer.scaling", "CrossNet",
    "CrossNet.matrix", "CrossNetMix", "InnerProductLayer", "InnerProductLayer.no_reduce", "OutterProductLayer.mat",
    "ConvLayer", "LogTransformLayer", "SequencePoolingLayer.mean", "SequencePoolingLayer.sum.masking",
    "SequencePoolingLayer.max.masking", "AttentionSequencePoolingLayer", "AttentionSequencePoolingLayer.masking.score",
    "LocalActivationUnit", "KMaxPooling", "DynamicGRU.AGRU", "DynamicGRU.AUGRU", "Dice", "PredictionLayer",
    "Conv2dSame",
)


def names() -> list[str]:
    return list(MODELS) + list(TRAIN_STEPS) + list(LAYERS)


def _columns(kind: str) -> tuple[list[Any], list[Any], list[Any]]:
    """(linear columns, DNN columns, history names) for a column kind."""
    from deepctr_torch.inputs import DenseFeat, SparseFeat, VarLenSparseFeat

    sparse = [SparseFeat("user", 10, EMB), SparseFeat("item", 20, EMB), SparseFeat("cate", 6, EMB)]
    dense = [DenseFeat("price", 1), DenseFeat("stats", 2)]
    if kind == "sparse":
        return sparse, sparse, []
    if kind.startswith("varlen"):
        combiner = kind.split(".")[1]
        length = None if kind.endswith("masked") else "genres_length"
        varlen = [VarLenSparseFeat(SparseFeat("genres", 8, EMB), MAXLEN, combiner=combiner, length_name=length)]
        return sparse + dense + varlen, sparse + dense + varlen, []
    if kind.startswith("mlr"):
        return sparse + dense, sparse + dense, []
    if kind.startswith("history"):
        history = [VarLenSparseFeat(SparseFeat("hist_item", 20, EMB, embedding_name="item"), MAXLEN,
                                    length_name="seq_length"),
                   VarLenSparseFeat(SparseFeat("hist_cate", 6, EMB, embedding_name="cate"), MAXLEN,
                                    length_name="seq_length")]
        if kind.endswith("neg"):
            history += [VarLenSparseFeat(SparseFeat("neg_hist_item", 20, EMB, embedding_name="item"), MAXLEN,
                                         length_name="seq_length"),
                        VarLenSparseFeat(SparseFeat("neg_hist_cate", 6, EMB, embedding_name="cate"), MAXLEN,
                                         length_name="seq_length")]
        return [], sparse + dense + history, ["item", "cate"]
    return sparse + dense, sparse + dense, []


def _packed_input(columns: list[Any], seed: int = 1) -> Any:
    """The input ``BaseModel.forward`` takes: every column's values side by side, as floats."""
    import torch
    from deepctr_torch.inputs import DenseFeat, SparseFeat, VarLenSparseFeat, build_input_features

    gen = torch.Generator().manual_seed(seed)
    index = build_input_features(columns)
    lengths = torch.tensor([[2.0], [3.0]])
    parts: dict[str, Any] = {}
    for column in columns:
        if isinstance(column, SparseFeat):
            parts[column.name] = torch.randint(1, column.vocabulary_size, (BATCH, 1), generator=gen).float()
        elif isinstance(column, DenseFeat):
            parts[column.name] = torch.rand(BATCH, column.dimension, generator=gen)
        elif isinstance(column, VarLenSparseFeat):
            ids = torch.randint(1, column.vocabulary_size, (BATCH, column.maxlen), generator=gen).float()
            keep = torch.arange(column.maxlen).unsqueeze(0) < lengths
            parts[column.name] = ids * keep
            if column.length_name is not None:
                parts[column.length_name] = lengths
    return torch.cat([parts[name] for name in index], dim=1)


def _model(name: str) -> tuple[Any, Any]:
    import torch
    from deepctr_torch import models
    from deepctr_torch.models import multitask

    cls, keywords, kind = MODELS[name]
    linear, dnn, history = _columns(kind)
    torch.manual_seed(0)
    if cls in ("MMOE", "PLE", "ESMM", "SharedBottom"):
        model = getattr(multitask, cls)(dnn, **keywords)
    elif cls in ("DIN", "DIEN"):
        model = getattr(models, cls)(dnn, history, **keywords)
    elif cls == "PNN":
        model = models.PNN(dnn, **keywords)
    elif cls == "MLR":
        sparse = linear[:3]
        if kind.endswith("bias"):
            model = models.MLR(sparse, base_feature_columns=linear[3:], bias_feature_columns=linear[:1], **keywords)
        else:
            model = models.MLR(linear, **keywords)
    else:
        model = getattr(models, cls)(linear, dnn, **keywords)
    all_columns = list({c.name: c for c in linear + dnn}.values())
    return model, _packed_input(all_columns)


def _train_step(name: str) -> Built:
    import torch.nn.functional as F

    from gt_calls import Run

    model, x = _model(TRAIN_STEPS[name])
    multi = TRAIN_STEPS[name] == "MMOE"

    def step(owner: Any, x_: Any, y: Any) -> Any:
        """``BaseModel.fit``'s loss for one batch: the task loss, the embedding / linear / DNN regularisation
        and the auxiliary loss."""
        pred = owner(x_)
        if multi:
            loss = sum(F.binary_cross_entropy(pred[:, i], y[:, 0]) for i in range(pred.shape[1]))
        else:
            loss = F.binary_cross_entropy(pred.squeeze(-1), y[:, 0])
        return loss + owner.get_regularization_loss() + owner.aux_loss

    import torch

    labels = torch.tensor([[0.0], [1.0]])
    return Run(model, step, [type(model), type(model).get_regularization_loss]), (x, labels), {}


def _layers(name: str) -> Built:
    import torch
    from deepctr_torch import layers
    from deepctr_torch.layers import activation

    from gt_calls import Keywords

    gen = torch.Generator().manual_seed(3)
    fields = 3
    emb = torch.randn(BATCH, fields, EMB, generator=gen)
    embs = [e.unsqueeze(1) for e in emb.unbind(1)]  # list of (B, 1, E), as the models pass them
    seq = torch.randn(BATCH, MAXLEN, EMB, generator=gen)
    lengths = torch.tensor([[2], [3]])
    if name.startswith("DNN"):
        options = {"DNN": {}, "DNN.dice.bn": {"activation": "dice", "use_bn": True, "dice_dim": 2},
                   "DNN.prelu.dropout": {"activation": "prelu", "dropout_rate": 0.2}}[name]
        return layers.DNN(6, HIDDEN, **options), (torch.randn(BATCH, 6, generator=gen),), {}
    simple: dict[str, tuple[Any, Any]] = {
        "FM": (lambda: layers.FM(), emb),
        "BiInteractionPooling": (lambda: layers.BiInteractionPooling(), emb),
        "SENETLayer": (lambda: layers.SENETLayer(fields, 2), emb),
        "CIN": (lambda: layers.CIN(fields, (4, 4)), emb),
        "CIN.no_split_half": (lambda: layers.CIN(fields, (4, 3), activation="linear", split_half=False), emb),
        "InteractingLayer.scaling": (lambda: layers.InteractingLayer(EMB, head_num=2, scaling=True), emb),
        "CrossNet": (lambda: layers.CrossNet(fields * EMB), emb.flatten(1)),
        "CrossNet.matrix": (lambda: layers.CrossNet(fields * EMB, parameterization="matrix"), emb.flatten(1)),
        "CrossNetMix": (lambda: layers.CrossNetMix(fields * EMB, low_rank=4, num_experts=2), emb.flatten(1)),
        "ConvLayer": (lambda: layers.ConvLayer(fields, (3, 2), (2, 2)), emb.unsqueeze(1)),
        "LogTransformLayer": (lambda: layers.LogTransformLayer(fields, EMB, 4), emb.abs() + 0.1),
        "KMaxPooling": (lambda: layers.KMaxPooling(2, axis=1), emb),
        "Dice": (lambda: activation.Dice(EMB, dim=3), emb),
        "PredictionLayer": (lambda: layers.PredictionLayer("binary"), torch.randn(BATCH, 1, generator=gen)),
        "Conv2dSame": (lambda: layers.Conv2dSame(1, 2, (3, 1), stride=2), emb.unsqueeze(1)),
    }
    if name in simple:
        factory, inputs = simple[name]
        return factory(), (inputs,), {}
    if name.startswith("BilinearInteraction"):
        return layers.BilinearInteraction(fields, EMB, bilinear_type=name.split(".")[1]), (emb,), {}
    if name in ("AFMLayer", "InnerProductLayer", "InnerProductLayer.no_reduce", "OutterProductLayer.mat"):
        module = {"AFMLayer": lambda: layers.AFMLayer(EMB, attention_factor=4, dropout_rate=0.1),
                  "InnerProductLayer": lambda: layers.InnerProductLayer(),
                  "InnerProductLayer.no_reduce": lambda: layers.InnerProductLayer(reduce_sum=False),
                  "OutterProductLayer.mat": lambda: layers.OutterProductLayer(fields, EMB)}[name]()
        return module, (embs,), {}
    if name.startswith("SequencePoolingLayer"):
        mode = name.split(".")[1]
        masking = name.endswith("masking")
        pooling = layers.SequencePoolingLayer(mode=mode, supports_masking=masking)
        if masking:
            return pooling, ([seq, torch.arange(MAXLEN).unsqueeze(0) < lengths],), {}
        return pooling, ([seq, lengths],), {}
    query = torch.randn(BATCH, 1, EMB, generator=gen)
    if name.startswith("AttentionSequencePoolingLayer"):
        if name.endswith("masking.score"):
            attention = layers.AttentionSequencePoolingLayer((8, 4), "Dice", weight_normalization=True,
                                                             return_score=True, supports_masking=True,
                                                             embedding_dim=EMB)
            mask = (torch.arange(MAXLEN).unsqueeze(0) < lengths).unsqueeze(1)
            return Keywords(attention, mask=mask), (query, seq, lengths), {}
        return layers.AttentionSequencePoolingLayer((8, 4), embedding_dim=EMB), (query, seq, lengths), {}
    if name == "LocalActivationUnit":
        return layers.LocalActivationUnit((8, 4), embedding_dim=EMB, dropout_rate=0.1), (query, seq), {}
    # DynamicGRU over a packed sequence, with attention scores packed the same way
    from torch.nn.utils.rnn import pack_padded_sequence

    from gt_calls import Run

    gru = layers.DynamicGRU(EMB, EMB, gru_type=name.split(".")[1])
    scores = torch.rand(BATCH, MAXLEN, generator=gen)

    def packed(owner: Any, seq_: Any, scores_: Any) -> Any:
        lengths_ = torch.tensor([3, 2])
        inputs = pack_padded_sequence(seq_, lengths_, batch_first=True, enforce_sorted=False)
        att = pack_padded_sequence(scores_, lengths_, batch_first=True, enforce_sorted=False)
        return owner(inputs, att).data

    return Run(gru, packed, [layers.DynamicGRU]), (seq, scores), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        model, x = _model(name)
        return model, (x,), {}
    if name in TRAIN_STEPS:
        return _train_step(name)
    return _layers(name)
