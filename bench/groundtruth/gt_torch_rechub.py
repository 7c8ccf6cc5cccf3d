"""Ground-truth bench, torch_rechub (torch-rechub): ranking, matching, multi-task and generative recommenders.

torch-rechub describes a table's columns as ``SparseFeature`` (an id, embedded), ``DenseFeature`` (a number) and
``SequenceFeature`` (a padded list of ids, pooled by ``mean`` / ``sum`` or kept whole by ``concat``, its embedding
table possibly ``shared_with`` another column, its padding masked when ``padding_idx`` is set). Every model takes
a dict ``{column name: tensor}`` and looks the columns up through ``EmbeddingLayer``; the trainers (``CTRTrainer``,
``MatchTrainer``, ``MTLTrainer``, ``SeqTrainer`` and the RQ-VAE ``Trainer``) run the forward, a loss, a
regularisation term, ``backward`` and an optimizer step per batch. So the tables cover, at batch 4, embeddings of
width 4, histories of 5 ids (right-padded) and hidden layers of 8:

- ``MODELS``: the ranking models (``WideDeep``, ``DeepFM``, ``DCN``, ``DCNv2`` in its three structures with the
  low-rank mixture or the plain cross net, ``EDCN`` with its four bridges and without regulation, ``AFM``,
  ``FiBiNet`` with its three bilinear types, ``DeepFFM``, ``FatDeepFFM``, ``AutoInt`` with and without dense
  columns and its MLP, ``BST``, ``DIN`` with and without softmax attention, ``DIEN``), with MLP activations
  (ReLU, Dice, PReLU, sigmoid, leaky ReLU) and the pooling modes of list columns (mean, sum, masked by a
  ``padding_idx``); the multi-task models (``SharedBottom``, ``ESMM``, ``MMOE``, ``PLE`` at one and two levels,
  ``AITM`` with two and three tasks); the matching models (``DSSM``, the SENet ``DSSM``, ``FaceBookDSSM``,
  ``YoutubeDNN``, ``YoutubeSBC`` on a full and on a last, smaller batch, ``MIND`` with fixed and dynamic
  interests, ``ComirecSA``, ``ComirecDR``, ``GRU4Rec``, ``NARM``, ``SASRec``, ``SINE``, ``STAMP``), in their
  training forward and in the ``user`` / ``item`` inference modes that export the towers, with the in-batch item
  column of ``NARM`` / ``STAMP``; the generative models (``HSTUModel`` with and without time embeddings, its
  ``log`` / ``seconds`` buckets, untied and L2-normalised scores with a temperature, scaled input embeddings;
  ``HLLMModel`` with and without relative position bias and time embeddings; ``RQVAEModel`` with and without
  Sinkhorn assignment, ``get_indices``). ``TIGERModel`` is left out: it is a ``transformers`` T5 model, and
  ``transformers`` is not installed. So is the k-means initialised RQ-VAE codebook: its first training batch
  runs scikit-learn's ``KMeans``, inside whose input checks Dynamo stops with an internal error;
- ``TRAINERS``: the trainers' own ``train_one_epoch`` over a one-batch loader (``CTRTrainer`` in both loss
  modes, with regularisation; ``MatchTrainer`` point-wise and in-batch; ``MTLTrainer`` plain and with
  uncertainty weights; ``SeqTrainer``'s next-token cross-entropy; the RQ-VAE ``Trainer``);
- ``TRAIN``: the trainers' other per-batch paths, written out with the library's pieces, each with ``backward``
  and an optimizer step: the CTR loss with ``RegularizationLoss`` and DIEN's auxiliary loss; pair-wise
  (``BPRLoss``), list-wise and in-batch (``inbatch_negative_sampling`` random and hard, ``gather_inbatch_logits``,
  cross-entropy and BPR) matching losses; ESMM's loss, ``MetaBalance.step`` and ``gradnorm``; ``SeqTrainer``'s
  ``NCELoss`` on HSTU and its cross-entropy on HLLM; the RQ-VAE's L1 ``compute_loss``;
- ``LAYERS``: the layers and functions users compose: ``EmbeddingLayer`` (squeezed, kept, dense only, shared),
  ``InputMask``, ``LR``, the three poolings, ``MLP``, ``FM``, ``CIN`` (split or not), ``CrossLayer``,
  ``CrossNetwork``, ``CrossNetV2``, ``CrossNetMix``, ``SENETLayer``, ``BiLinearInteractionLayer``,
  ``MultiInterestSA`` (with and without a mask), ``CapsuleNetwork`` (the three bilinear types, ReLU),
  ``FFM``, ``CEN``, ``InteractingLayer``, ``HSTULayer``, ``HSTUBlock``, ``Dice``, ``PredictionLayer``,
  ``RelPosBias``, ``RelativeBucketedTimeAndPositionBias``, ``VocabMask.apply_mask``, DIEN's ``AUGRU``, DIN's
  ``ActivationUnit``, EDCN's bridge and regulation modules, AITM's attention, ``VectorQuantizer``,
  ``ResidualVectorQuantizer``, ``sinkhorn_algorithm`` and ``dynamic_interest_mask``;
- ``LOSSES``: ``HingeLoss`` (without an item count: its rank weighting takes the mean of a boolean tensor, which
  fails eagerly), ``BPRLoss`` (one and several negatives), ``NCELoss`` (three reductions, ignored targets),
  ``InBatchNCELoss``, ``RegularizationLoss`` (L1 and L2 on embeddings and dense weights, norms skipped) and the
  in-batch sampling utilities (random, hard, with a generator; ``gather_inbatch_logits``).

The metrics (NumPy and scikit-learn on lists), the data generators and the ANN serving wrappers (annoy, faiss,
milvus) take no tensors through a model and are left out. Random weights, nothing downloaded. ``names()`` needs
no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, EMB, SEQ, NEG = 4, 4, 5, 3
LENGTHS = (5, 3, 1, 4)  # history lengths of the batch's rows (right-padded with 0)
VOCAB = {"user": 10, "item": 20, "cate": 6, "city": 5}
MLP = {"dims": [8]}
TOWER = {"dims": [8, 4]}

# Model name -> (family, options). Families are built by ``_model``.
MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    # ranking
    "WideDeep": ("WideDeep", {}),
    "WideDeep.prelu.dropout": ("WideDeep", {"mlp": {"dims": [8], "activation": "prelu", "dropout": 0.2}}),
    "WideDeep.seq.sum.padding": ("WideDeep", {"pooling": "sum", "padding_idx": 0}),
    "DeepFM": ("DeepFM", {}),
    "DeepFM.dice": ("DeepFM", {"mlp": {"dims": [8, 8], "activation": "dice"}}),
    "DeepFM.seq.mean.padding": ("DeepFM", {"pooling": "mean", "padding_idx": 0}),
    "DCN": ("DCN", {}),
    "DCN.sigmoid": ("DCN", {"mlp": {"dims": [8], "activation": "sigmoid"}}),
    "DCNv2.parallel.mixture": ("DCNv2", {"model_structure": "parallel", "use_low_rank_mixture": True}),
    "DCNv2.stacked.crossnet_v2": ("DCNv2", {"model_structure": "stacked", "use_low_rank_mixture": False}),
    "DCNv2.crossnet_only.mixture": ("DCNv2", {"model_structure": "crossnet_only", "use_low_rank_mixture": True}),
    "EDCN.hadamard_product": ("EDCN", {"bridge_type": "hadamard_product"}),
    "EDCN.pointwise_addition": ("EDCN", {"bridge_type": "pointwise_addition"}),
    "EDCN.concatenation": ("EDCN", {"bridge_type": "concatenation"}),
    "EDCN.attention_pooling.no_regulation": ("EDCN", {"bridge_type": "attention_pooling",
                                                      "use_regulation_module": False}),
    "AFM": ("AFM", {}),
    "FiBiNet.field_interaction": ("FiBiNet", {"bilinear_type": "field_interaction"}),
    "FiBiNet.field_each": ("FiBiNet", {"bilinear_type": "field_each"}),
    "FiBiNet.field_all.leakyrelu": ("FiBiNet", {"bilinear_type": "field_all",
                                                "mlp": {"dims": [8], "activation": "leakyrelu"}}),
    "DeepFFM": ("DeepFFM", {}),
    "FatDeepFFM": ("FatDeepFFM", {}),
    "AutoInt": ("AutoInt", {}),
    "AutoInt.sparse_only.no_mlp.dropout": ("AutoInt", {"dense": False, "mlp": None, "dropout": 0.1}),
    "BST": ("BST", {}),
    "DIN": ("DIN", {}),
    "DIN.softmax.relu": ("DIN", {"attention": {"dims": [8], "activation": "relu", "use_softmax": True}}),
    "DIEN": ("DIEN", {}),
    # multi-task
    "SharedBottom": ("SharedBottom", {}),
    "ESMM": ("ESMM", {}),
    "MMOE": ("MMOE", {}),
    "PLE.one_level": ("PLE", {"n_level": 1}),
    "PLE.two_levels": ("PLE", {"n_level": 2}),
    "AITM": ("AITM", {"n_task": 2}),
    "AITM.three_tasks": ("AITM", {"n_task": 3}),
    # matching
    "DSSM": ("DSSM", {}),
    "DSSM.mode_user": ("DSSM", {"mode": "user"}),
    "DSSM.mode_item": ("DSSM", {"mode": "item"}),
    "DSSM_senet": ("DSSM_senet", {}),
    "FaceBookDSSM": ("FaceBookDSSM", {}),
    "FaceBookDSSM.mode_item": ("FaceBookDSSM", {"mode": "item"}),
    "YoutubeDNN": ("YoutubeDNN", {}),
    "YoutubeDNN.mode_user": ("YoutubeDNN", {"mode": "user"}),
    "YoutubeSBC": ("YoutubeSBC", {}),
    "YoutubeSBC.last_batch": ("YoutubeSBC", {"batch_size": 6}),
    "MIND": ("MIND", {}),
    "MIND.dynamic_interest": ("MIND", {"dynamic_interest": True}),
    "MIND.dynamic_interest.mode_user": ("MIND", {"dynamic_interest": True, "mode": "user"}),
    "ComirecSA": ("ComirecSA", {}),
    "ComirecSA.mode_user": ("ComirecSA", {"mode": "user"}),
    "ComirecDR": ("ComirecDR", {}),
    "GRU4Rec": ("GRU4Rec", {}),
    "GRU4Rec.mode_user": ("GRU4Rec", {"mode": "user"}),
    "NARM": ("NARM", {}),
    "NARM.in_batch": ("NARM", {"item_feature": True}),
    "NARM.mode_user": ("NARM", {"mode": "user"}),
    "SASRec": ("SASRec", {}),
    "SASRec.mode_user": ("SASRec", {"mode": "user"}),
    "SINE": ("SINE", {}),
    "SINE.mode_user": ("SINE", {"mode": "user"}),
    "STAMP": ("STAMP", {}),
    "STAMP.in_batch": ("STAMP", {"item_feature": True}),
    # generative
    "HSTUModel": ("HSTU", {}),
    "HSTUModel.no_time_diffs": ("HSTU", {"time_diffs": False}),
    "HSTUModel.no_time_embedding": ("HSTU", {"use_time_embedding": False}),
    "HSTUModel.log.seconds": ("HSTU", {"time_bucket_fn": "log", "time_bucket_unit": "seconds",
                                       "time_bucket_divisor": 2.0}),
    "HSTUModel.untied.l2.temperature": ("HSTU", {"tie_embeddings": False, "score_norm": "l2", "temperature": 0.5,
                                                 "scale_input_embedding": True}),
    "HSTUModel.no_output_bias": ("HSTU", {"use_output_bias": False}),
    "HLLMModel": ("HLLM", {}),
    "HLLMModel.no_time_diffs": ("HLLM", {"time_diffs": False}),
    "HLLMModel.log": ("HLLM", {"time_bucket_fn": "log"}),
    "HLLMModel.no_rel_pos.no_time": ("HLLM", {"use_rel_pos_bias": False, "use_time_embedding": False}),
    "RQVAEModel.sinkhorn": ("RQVAE", {}),
    "RQVAEModel.argmin": ("RQVAE", {"use_sk": False}),
    "RQVAEModel.get_indices": ("RQVAE", {"method": "get_indices"}),
}
# Train step name -> (model name, what the trainer computes).
TRAIN: dict[str, tuple[str, str]] = {
    "train_step.ctr.DeepFM.regularization": ("DeepFM", "ctr"),
    "train_step.ctr.DIEN.aux_loss": ("DIEN", "ctr_aux"),
    "train_step.match.pairwise.FaceBookDSSM": ("FaceBookDSSM", "pairwise"),
    "train_step.match.listwise.YoutubeDNN": ("YoutubeDNN", "listwise"),
    "train_step.match.inbatch.DSSM": ("DSSM", "inbatch"),
    "train_step.match.inbatch.DSSM.hard_negative": ("DSSM", "inbatch.hard"),
    "train_step.match.inbatch.bpr.NARM": ("NARM.in_batch", "inbatch.bpr"),
    "train_step.mtl.ESMM": ("ESMM", "mtl.esmm"),
    "train_step.mtl.metabalance.SharedBottom": ("SharedBottom", "mtl.metabalance"),
    "train_step.mtl.gradnorm.MMOE": ("MMOE", "mtl.gradnorm"),
    "train_step.seq.HSTU.nce": ("HSTUModel", "seq.nce"),
    "train_step.seq.HLLM.cross_entropy": ("HLLMModel", "seq.ce"),
    "train_step.rqvae.l1": ("RQVAEModel.argmin", "rqvae.l1"),
}
# Trainer name -> (model name, trainer options).
TRAINERS: dict[str, tuple[str, dict[str, Any]]] = {
    "CTRTrainer.train_one_epoch": ("DeepFM", {"regularization_params": {"embedding_l2": 1e-5, "dense_l2": 1e-5}}),
    "CTRTrainer.train_one_epoch.loss_mode_false": ("DIEN", {"loss_mode": False}),
    "MatchTrainer.train_one_epoch.pointwise": ("DSSM", {"mode": 0}),
    "MatchTrainer.train_one_epoch.inbatch": ("STAMP.in_batch", {"mode": 2, "in_batch_neg": True, "sampler_seed": 0}),
    "MTLTrainer.train_one_epoch": ("MMOE", {}),
    "MTLTrainer.train_one_epoch.uwl": ("PLE.one_level", {"adaptive_params": {"method": "uwl"}}),
    "SeqTrainer.train_one_epoch": ("HSTUModel", {}),
    "RQVAETrainer.train_one_epoch": ("RQVAEModel.sinkhorn", {}),
}
LAYERS = (
    "EmbeddingLayer.squeeze", "EmbeddingLayer.keep", "EmbeddingLayer.dense_only", "EmbeddingLayer.concat_history",
    "InputMask", "LR.sigmoid", "AveragePooling.mask", "AveragePooling.no_mask", "SumPooling.mask",
    "ConcatPooling", "MLP.relu", "MLP.no_output.softmax", "FM.no_reduce", "CIN.split_half", "CIN.no_split_half",
    "CrossLayer", "CrossNetwork", "CrossNetV2", "CrossNetMix", "SENETLayer", "BiLinearInteractionLayer.field_each",
    "MultiInterestSA.mask", "MultiInterestSA.no_mask", "CapsuleNetwork.mind", "CapsuleNetwork.bilinear1.relu",
    "CapsuleNetwork.comirec", "FFM.reduce_sum", "CEN", "InteractingLayer.no_residual", "HSTULayer.padding.time",
    "HSTUBlock", "Dice", "PredictionLayer.regression", "RelPosBias", "RelativeBucketedTimeAndPositionBias.time",
    "RelativeBucketedTimeAndPositionBias.position", "VocabMask.apply_mask", "VocabMask.apply_mask.invalid_ids",
    "VocabMask.apply_mask.invalid_ids_1d", "AUGRU", "AUGRU.mask", "ActivationUnit", "BridgeModule.attention_pooling",
    "RegulationModule", "AITM.AttentionLayer", "VectorQuantizer.sinkhorn", "VectorQuantizer.argmin",
    "VectorQuantizer.get_codebook_entry", "ResidualVectorQuantizer", "sinkhorn_algorithm", "dynamic_interest_mask",
)
LOSSES = (
    "HingeLoss", "BPRLoss.one_negative", "BPRLoss.negatives", "NCELoss.mean",
    "NCELoss.sum.ignored", "NCELoss.none", "InBatchNCELoss", "RegularizationLoss", "inbatch_negative_sampling",
    "inbatch_negative_sampling.hard", "inbatch_negative_sampling.generator", "gather_inbatch_logits",
)


def names() -> list[str]:
    return list(MODELS) + list(TRAIN) + list(TRAINERS) + list(LAYERS) + list(LOSSES)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _inputs(features: list[Any], seed: int = 1) -> dict[str, Any]:
    """The dict a model takes: an id per row for a sparse column, a number for a dense one, a right-padded list
    of ids for a history (``hist*``) and a full list for negatives."""
    import torch
    from torch_rechub.basic.features import DenseFeature, SequenceFeature, SparseFeature

    gen = _gen(seed)
    keep = torch.arange(SEQ).unsqueeze(0) < torch.tensor(LENGTHS).unsqueeze(1)
    x: dict[str, Any] = {}
    for fea in features:
        if fea.name in x:
            continue
        if isinstance(fea, SequenceFeature):
            if "hist" in fea.name:
                x[fea.name] = torch.randint(1, fea.vocab_size, (BATCH, SEQ), generator=gen) * keep
            else:
                x[fea.name] = torch.randint(1, fea.vocab_size, (BATCH, NEG), generator=gen)
        elif isinstance(fea, SparseFeature):
            x[fea.name] = torch.randint(1, fea.vocab_size, (BATCH,), generator=gen)
        elif isinstance(fea, DenseFeature):
            x[fea.name] = torch.rand(BATCH, generator=gen) + 0.1
    return x


def _sparse(name: str, **kw: Any) -> Any:
    from torch_rechub.basic.features import SparseFeature

    return SparseFeature(name, VOCAB[name], EMB, **kw)


def _seq(name: str, shared: str, pooling: str = "concat", **kw: Any) -> Any:
    from torch_rechub.basic.features import SequenceFeature

    return SequenceFeature(name, VOCAB[shared], EMB, pooling=pooling, shared_with=shared, **kw)


def _dense(name: str) -> Any:
    from torch_rechub.basic.features import DenseFeature

    return DenseFeature(name)


def _ranking(family: str, opt: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from torch_rechub.models import ranking
    from torch_rechub.models.ranking.dien import DIEN

    mlp = opt.get("mlp", MLP)
    sparse = [_sparse("user"), _sparse("item"), _sparse("cate")]
    dense = [_dense("price"), _dense("age")]
    if family in ("WideDeep", "DeepFM"):
        history = _seq("hist_item", "item", pooling=opt.get("pooling", "mean"), padding_idx=opt.get("padding_idx"))
        deep = sparse + dense + [history]
        if family == "WideDeep":
            return ranking.WideDeep(sparse + dense, deep, mlp), _inputs(deep)
        return ranking.DeepFM(deep, sparse + [history], mlp), _inputs(deep)
    if family == "DCN":
        return ranking.DCN(sparse + dense, 2, mlp), _inputs(sparse + dense)
    if family == "DCNv2":
        keys = {k: v for k, v in opt.items() if k != "mlp"}
        return ranking.DCNv2(sparse + dense, 2, mlp, low_rank=4, num_experts=2, **keys), _inputs(sparse + dense)
    if family == "EDCN":
        return ranking.EDCN(sparse + dense, 2, dict(mlp), temperature=2, **opt), _inputs(sparse + dense)
    if family == "AFM":
        return ranking.AFM(sparse, EMB, t=8), _inputs(sparse)
    if family == "FiBiNet":
        return ranking.FiBiNet(sparse, mlp, reduction_ratio=2, bilinear_type=opt["bilinear_type"]), _inputs(sparse)
    if family in ("DeepFFM", "FatDeepFFM"):
        from torch_rechub.basic.features import SparseFeature

        linear = [SparseFeature(f.name, f.vocab_size, 1) for f in sparse]
        cross = [SparseFeature(f.name, f.vocab_size * len(sparse), EMB) for f in sparse]
        if family == "DeepFFM":
            return ranking.DeepFFM(linear, cross, EMB, mlp), _inputs(sparse)
        return ranking.FatDeepFFM(linear, cross, EMB, 1, mlp), _inputs(sparse)
    if family == "AutoInt":
        dense_ = dense if opt.get("dense", True) else []
        mlp_ = opt.get("mlp", MLP)
        model = ranking.AutoInt(sparse, dense_, num_layers=2, num_heads=2, dropout=opt.get("dropout", 0.0),
                                mlp_params=mlp_)
        return model, _inputs(sparse + dense_)
    if family == "BST":
        features = [_sparse("user"), _dense("price")]
        history = [_seq("hist_item", "item", padding_idx=0), _seq("hist_cate", "cate", padding_idx=0)]
        target = [_sparse("item"), _sparse("cate")]
        model = ranking.BST(features, history, target, mlp, nhead=2, dropout=0.1, num_layers=2, max_seq_len=SEQ + 1)
        return model, _inputs(features + history + target)
    if family == "DIN":
        features = [_sparse("user"), _sparse("city")]
        history = [_seq("hist_item", "item"), _seq("hist_cate", "cate")]
        target = [_sparse("item"), _sparse("cate")]
        attention = opt.get("attention", {"dims": [8], "activation": "dice"})
        return ranking.DIN(features, history, target, mlp, attention), _inputs(features + history + target)
    # DIEN: histories and negative histories share the target columns' tables, padded with 0
    features = [_sparse("user"), _dense("price")]
    history = [_seq("hist_item", "item", padding_idx=0), _seq("hist_cate", "cate", padding_idx=0)]
    negative = [_seq("neg_hist_item", "item", padding_idx=0), _seq("neg_hist_cate", "cate", padding_idx=0)]
    target = [_sparse("item", padding_idx=0), _sparse("cate", padding_idx=0)]
    model = DIEN(features, history, negative, target, mlp, alpha=0.2)
    return model, _inputs(features + history + negative + target)


def _multitask(family: str, opt: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from torch_rechub.models import multi_task

    sparse = [_sparse("user"), _sparse("item"), _sparse("cate")]
    features = sparse + [_dense("price")]
    types = ["classification", "regression"]
    towers = [{"dims": [4]}, {"dims": [4], "activation": "prelu"}]
    if family == "SharedBottom":
        return multi_task.SharedBottom(features, types, {"dims": [8]}, towers), _inputs(features)
    if family == "ESMM":
        user, item = [_sparse("user"), _sparse("city")], [_sparse("item"), _sparse("cate")]
        return multi_task.ESMM(user, item, {"dims": [8]}, {"dims": [8]}), _inputs(user + item)
    if family == "MMOE":
        return multi_task.MMOE(features, types, 3, {"dims": [8]}, towers), _inputs(features)
    if family == "PLE":
        model = multi_task.PLE(features, types, opt["n_level"], 1, 1, {"dims": [8]}, towers)
        return model, _inputs(features)
    n_task = opt["n_task"]
    return multi_task.AITM(features, n_task, {"dims": [8]}, [{"dims": [4]}] * n_task), _inputs(features)


def _matching(family: str, opt: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    from torch_rechub.basic.features import SequenceFeature
    from torch_rechub.models import matching
    from torch_rechub.models.matching.dssm_senet import DSSM as DSSMSenet

    user = [_sparse("user"), _sparse("city")]
    item = [_sparse("item"), _sparse("cate")]
    mean_history = _seq("hist_item", "item", pooling="mean")
    history = [_seq("hist_item", "item")]
    negatives = [_seq("neg_items", "item")]
    if family in ("DSSM", "DSSM_senet"):
        users = user + [mean_history] + ([_dense("age")] if family == "DSSM" else [])
        cls = matching.DSSM if family == "DSSM" else DSSMSenet
        model = cls(users, item, TOWER, TOWER, temperature=0.5)
        return model, _inputs(users + item)
    if family == "FaceBookDSSM":
        negative_item = [_seq_as_sparse("neg_item", "item"), _seq_as_sparse("neg_cate", "cate")]
        model = matching.FaceBookDSSM(user + [mean_history], item, negative_item, TOWER, TOWER)
        return model, _inputs(user + [mean_history] + item + negative_item)
    if family == "YoutubeDNN":
        users = user + [mean_history]
        model = matching.YoutubeDNN(users, [_sparse("item")], negatives, TOWER, temperature=0.1)
        return model, _inputs(users + [_sparse("item")] + negatives)
    if family == "YoutubeSBC":
        weight = [_dense("sample_weight")]
        model = matching.YoutubeSBC(user + [mean_history], item, weight, TOWER, TOWER, opt.get("batch_size", BATCH),
                                    n_neg=2, temperature=0.1)
        return model, _inputs(user + [mean_history] + item + weight)
    if family in ("MIND", "ComirecSA", "ComirecDR", "GRU4Rec"):
        inputs = _inputs(user + history + [_sparse("item")] + negatives)
        if family == "MIND":
            model = matching.MIND(user, history, [_sparse("item")], negatives, SEQ, interest_num=3,
                                  dynamic_interest=opt.get("dynamic_interest", False))
        elif family == "ComirecSA":
            model = matching.ComirecSA(user, history, [_sparse("item")], negatives, interest_num=2)
        elif family == "ComirecDR":
            model = matching.ComirecDR(user, history, [_sparse("item")], negatives, SEQ, interest_num=2)
        else:
            model = matching.GRU4Rec(user, history, [_sparse("item")], negatives, TOWER)
        return model, inputs
    if family in ("NARM", "STAMP"):
        history_feature = SequenceFeature("hist_item", VOCAB["item"], EMB)
        item_feature = _sparse("item") if opt.get("item_feature") else None
        inputs = _inputs([history_feature, _sparse("item")])
        if family == "NARM":
            return matching.NARM(history_feature, 6, 0.1, 0.1, item_feature=item_feature), inputs
        return matching.STAMP(history_feature, 0.05, 0.002, item_feature=item_feature), inputs
    if family == "SASRec":
        # SASRec reads the history from the column named "seq"; positives and negatives share its table
        features = [SequenceFeature("seq", VOCAB["item"], EMB, pooling="concat"),
                    SequenceFeature("pos", VOCAB["item"], EMB, pooling="concat", shared_with="seq"),
                    SequenceFeature("neg", VOCAB["item"], EMB, pooling="concat", shared_with="seq")]
        import torch

        gen = _gen(2)
        keep = torch.arange(SEQ).unsqueeze(0) < torch.tensor(LENGTHS).unsqueeze(1)
        x = {f.name: torch.randint(1, VOCAB["item"], (BATCH, SEQ), generator=gen) * keep for f in features}
        return matching.SASRec(features, max_len=SEQ, dropout_rate=0.1, num_blocks=2, num_heads=2), x
    # SINE names its columns by strings and owns its tables
    model = matching.SINE(["hist_item"], ["item"], ["neg_items"], VOCAB["item"], EMB, 8, num_concept=4,
                          num_intention=2, seq_max_len=SEQ)
    return model, _inputs(history + [_sparse("item")] + negatives)


def _seq_as_sparse(name: str, shared: str) -> Any:
    """A sparse column that shares ``shared``'s table (FaceBookDSSM's negative item)."""
    from torch_rechub.basic.features import SparseFeature

    return SparseFeature(name, VOCAB[shared], EMB, shared_with=shared)


def _tokens(seed: int = 4) -> tuple[Any, Any, Any]:
    """A left-padded batch of item tokens (0 is PAD), their time deltas in seconds and next-item targets."""
    import torch

    gen = _gen(seed)
    tokens = torch.randint(1, VOCAB["item"], (BATCH, SEQ + 1), generator=gen)
    keep = torch.arange(SEQ + 1).flip(0).unsqueeze(0) < torch.tensor([6, 4, 2, 5]).unsqueeze(1)
    tokens = tokens * keep
    deltas = (torch.rand(BATCH, SEQ + 1, generator=gen) * 86400).long() * keep
    targets = torch.randint(1, VOCAB["item"], (BATCH,), generator=gen)
    return tokens, deltas, targets


def _generative(family: str, opt: dict[str, Any]) -> tuple[Any, tuple[Any, ...]]:
    import torch
    from torch_rechub.models.generative import HLLMModel, HSTUModel, RQVAEModel

    keys = {k: v for k, v in opt.items() if k not in ("time_diffs", "use_sk", "method")}
    if family == "RQVAE":
        model = RQVAEModel(in_dim=12, num_emb_list=[4, 4], e_dim=4, layers=[8], sk_epsilons=[0.0, 0.003], sk_iters=5,
                           kmeans_iters=5, **keys)
        return model, (torch.randn(8, 12, generator=_gen(5)),)
    tokens, deltas, _ = _tokens()
    args = (tokens, deltas) if opt.get("time_diffs", True) else (tokens,)
    if family == "HSTU":
        return HSTUModel(VOCAB["item"], d_model=8, n_heads=2, n_layers=2, dqk=4, dv=4, max_seq_len=8,
                         num_time_buckets=16, **keys), args
    items = torch.randn(VOCAB["item"], 8, generator=_gen(6))
    return HLLMModel(items, VOCAB["item"], d_model=8, n_heads=2, n_layers=2, max_seq_len=8, num_time_buckets=16,
                     **keys), args


RANKING = ("WideDeep", "DeepFM", "DCN", "DCNv2", "EDCN", "AFM", "FiBiNet", "DeepFFM", "FatDeepFFM", "AutoInt", "BST",
           "DIN", "DIEN")
MULTITASK = ("SharedBottom", "ESMM", "MMOE", "PLE", "AITM")
GENERATIVE = ("HSTU", "HLLM", "RQVAE")


def _model(name: str) -> tuple[Any, tuple[Any, ...]]:
    """The model named in ``MODELS`` and its inputs (a dict of columns, or tokens for a generative model)."""
    import torch

    torch.manual_seed(0)
    family, opt = MODELS[name]
    if family in GENERATIVE:
        return _generative(family, opt)
    if family in RANKING:
        model, x = _ranking(family, opt)
    elif family in MULTITASK:
        model, x = _multitask(family, opt)
    else:
        model, x = _matching(family, {k: v for k, v in opt.items() if k != "mode"})
        model.mode = opt.get("mode")
    return model, (x,)


def _labels(seed: int, *shape: int) -> Any:
    import torch

    return torch.randint(0, 2, shape, generator=_gen(seed)).float()


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch_rechub.basic.loss_func import BPRLoss, NCELoss, RegularizationLoss
    from torch_rechub.trainers.seq_trainer import SeqTrainer
    from torch_rechub.utils.data import get_loss_func
    from torch_rechub.utils.match import gather_inbatch_logits, inbatch_negative_sampling
    from torch_rechub.utils.mtl import MetaBalance, gradnorm, shared_task_layers

    from gt_calls import Run

    model_name, what = TRAIN[name]
    model, args = _model(model_name)
    cls = type(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-5)
    regularization = RegularizationLoss(embedding_l2=1e-5, dense_l2=1e-5)
    entries: list[Any] = [cls]

    if what.startswith("ctr"):
        entries.append(RegularizationLoss)

        def ctr(owner: Any, x: Any, y: Any) -> Any:
            """``CTRTrainer``'s batch: BCE (plus the model's own loss when it returns one) and regularisation."""
            with torch.enable_grad():
                out = owner(x)
                if what == "ctr_aux":
                    loss = F.binary_cross_entropy(out[0], y) + out[1]
                else:
                    loss = F.binary_cross_entropy(out, y)
                loss = loss + regularization(owner)
                owner.zero_grad()
                loss.backward()
                optimizer.step()
                return loss.detach()

        return Run(model, ctr, entries), (args[0], _labels(7, BATCH)), {}
    if what in ("pointwise", "pairwise", "listwise"):
        bpr = BPRLoss()
        entries += [BPRLoss] if what == "pairwise" else []

        def match(owner: Any, x: Any, y: Any) -> Any:
            """``MatchTrainer``'s batch in its three modes: BCE on scores, BPR on (positive, negative) scores,
            cross-entropy over the positive (column 0) and its negatives."""
            with torch.enable_grad():
                if what == "pointwise":
                    loss = F.binary_cross_entropy(owner(x), y)
                elif what == "pairwise":
                    pos, neg = owner(x)
                    loss = bpr(pos, neg)
                else:
                    loss = F.cross_entropy(owner(x), y.long())
                loss = loss + regularization(owner)
                owner.zero_grad()
                loss.backward()
                optimizer.step()
                return loss.detach()

        y = torch.zeros(BATCH) if what == "listwise" else _labels(8, BATCH)
        return Run(model, match, entries), (args[0], y), {}
    if what.startswith("inbatch"):
        bpr = BPRLoss()
        hard = what.endswith("hard")
        entries += [cls.user_tower, cls.item_tower, inbatch_negative_sampling, gather_inbatch_logits]

        def inbatch(owner: Any, x: Any) -> Any:
            """``MatchTrainer(in_batch_neg=True)``'s batch: tower embeddings, a batch-by-batch score matrix,
            sampled negatives, then cross-entropy (or BPR) over the gathered logits."""
            with torch.enable_grad():
                user, item = owner.user_tower(x), owner.item_tower(x)
                if user.dim() > 2 and user.size(1) == 1:
                    user = user.squeeze(1)
                if item.dim() > 2 and item.size(1) == 1:
                    item = item.squeeze(1)
                scores = user @ item.t()
                negatives = inbatch_negative_sampling(scores, neg_ratio=2, hard_negative=hard)
                logits = gather_inbatch_logits(scores, negatives)
                if what.endswith("bpr"):
                    loss = bpr(logits[:, 0], logits[:, 1:], in_batch_neg=True)
                else:
                    loss = F.cross_entropy(logits, torch.zeros(logits.size(0), dtype=torch.long))
                owner.zero_grad()
                loss.backward()
                optimizer.step()
                return loss.detach()

        return Run(model, inbatch, entries), args, {}
    if what.startswith("mtl"):
        n_task = 3 if what == "mtl.esmm" else 2
        types = ["classification", "regression"]
        losses = [get_loss_func(t) for t in types]
        ys = torch.cat([_labels(9, BATCH, 1), torch.rand(BATCH, 1, generator=_gen(10))], dim=1)
        if what == "mtl.esmm":
            ys = _labels(9, BATCH, 3)
            losses = [get_loss_func("classification")] * 3
        weights = torch.nn.ParameterList(torch.nn.Parameter(torch.zeros(1) if what == "mtl.uwl" else torch.ones(1))
                                         for _ in range(n_task))
        if what in ("mtl.uwl", "mtl.gradnorm"):
            model.add_module("loss weight", weights)
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        if what == "mtl.metabalance":
            shared, task = shared_task_layers(model)
            meta = MetaBalance(shared)
            shared_opt, task_opt = torch.optim.Adam(shared, lr=1e-3), torch.optim.Adam(task, lr=1e-3)
            entries += [MetaBalance.step, shared_task_layers]
        if what == "mtl.gradnorm":
            shared = shared_task_layers(model)[0]
            last_shared = next(shared[-i] for i in range(len(shared)) if shared[-i].ndim == 2)  # as MTLTrainer picks
            entries += [gradnorm]

        def mtl(owner: Any, x: Any, ys_: Any) -> Any:
            """``MTLTrainer``'s batch: a loss per task, combined by the mean, by uncertainty weights (uwl),
            ESMM's CTR + CTCVR sum, MetaBalance's gradient balancing or GradNorm's weight update."""
            with torch.enable_grad():
                preds = owner(x)
                task_losses = [losses[i](preds[:, i], ys_[:, i]) for i in range(n_task)]
                if what == "mtl.esmm":
                    loss = sum(task_losses[1:])
                elif what == "mtl.uwl":
                    loss = 0
                    for loss_i, w_i in zip(task_losses, weights):
                        w_i = torch.clamp(w_i, min=0)
                        loss = loss + 2 * loss_i * torch.exp(-w_i) + w_i
                else:
                    loss = sum(task_losses) / n_task
                loss = loss + regularization(owner)
                if what == "mtl.metabalance":
                    shared_opt.zero_grad()
                    task_opt.zero_grad()
                    meta.step(task_losses)
                    shared_opt.step()
                    task_opt.step()
                elif what == "mtl.gradnorm":
                    optimizer.zero_grad()
                    gradnorm(task_losses, weights, last_shared, [0.7, 0.3], 0.16)
                    optimizer.step()
                else:
                    owner.zero_grad()
                    loss.backward()
                    optimizer.step()
                return loss.detach()

        return Run(model, mtl, entries), (args[0], ys), {}
    if what.startswith("seq"):
        trainer = SeqTrainer(model, loss_type="nce" if what == "seq.nce" else "cross_entropy")
        tokens, deltas, targets = _tokens()
        entries += [SeqTrainer._compute_next_token_loss] + ([NCELoss] if what == "seq.nce" else [])

        def seq(owner: Any, tokens_: Any, deltas_: Any, targets_: Any) -> Any:
            """``SeqTrainer``'s batch: logits over the vocabulary at every position, the next-token loss."""
            with torch.enable_grad():
                logits = owner(tokens_, deltas_)
                loss = trainer._compute_next_token_loss(logits, tokens_, targets_)
                owner.zero_grad()
                loss.backward()
                trainer.optimizer.step()
                return loss.detach()

        return Run(model, seq, entries), (tokens, deltas, targets), {}
    model.loss_type = what.split(".")[1]
    entries.append(cls.compute_loss)

    def rqvae(owner: Any, xs: Any) -> Any:
        """The RQ-VAE ``Trainer``'s batch: reconstruction, quantisation loss, ``compute_loss``."""
        with torch.enable_grad():
            optimizer.zero_grad()
            out, rq_loss, _ = owner(xs)
            loss, _ = owner.compute_loss(out, rq_loss, xs=xs)
            loss.backward()
            optimizer.step()
            return loss.detach()

    return Run(model, rqvae, entries), args, {}


def _trainer(name: str) -> Built:
    import torch
    from torch_rechub import trainers
    from torch_rechub.trainers.rqvae_trainer import Trainer as RQVAETrainer

    from gt_calls import Run

    model_name, options = TRAINERS[name]
    model, args = _model(model_name)
    kind = name.split(".")[0]
    if kind == "CTRTrainer":
        trainer = trainers.CTRTrainer(model, device="cpu", model_path="/tmp", **options)
        batch: Any = (args[0], _labels(7, BATCH))
    elif kind == "MatchTrainer":
        trainer = trainers.MatchTrainer(model, device="cpu", model_path="/tmp", **options)
        batch = (args[0], torch.zeros(BATCH) if options.get("in_batch_neg") else _labels(8, BATCH))
    elif kind == "MTLTrainer":
        types = ["classification", "regression"]
        trainer = trainers.MTLTrainer(model, types, device="cpu", model_path="/tmp", **options)
        batch = (args[0], torch.cat([_labels(9, BATCH, 1), torch.rand(BATCH, 1, generator=_gen(10))], dim=1))
    elif kind == "SeqTrainer":
        trainer = trainers.SeqTrainer(model, device="cpu", model_path="/tmp")
        tokens, deltas, targets = _tokens()
        positions = torch.arange(SEQ + 1).expand(BATCH, -1)
        batch = (tokens, positions, deltas, targets.unsqueeze(-1))
    else:
        trainer = RQVAETrainer(model, device="cpu", model_path="/tmp")
        batch = args[0]
    cls = type(trainer)

    def epoch(owner: Any, *tensors: Any) -> Any:
        """``train_one_epoch`` over a loader of one batch (a list: the trainer only iterates it)."""
        with torch.enable_grad():
            return trainer.train_one_epoch([tensors[0] if len(tensors) == 1 else tensors])

    tensors = batch if isinstance(batch, tuple) else (batch,)
    return Run(model, epoch, [cls.train_one_epoch]), tensors, {}


def _layers(name: str) -> Built:
    import torch
    from torch_rechub.basic import activation, layers
    from torch_rechub.models.generative import rqvae
    from torch_rechub.models.matching.mind import dynamic_interest_mask
    from torch_rechub.models.multi_task.aitm import AttentionLayer
    from torch_rechub.models.ranking.dien import AUGRU
    from torch_rechub.models.ranking.din import ActivationUnit
    from torch_rechub.models.ranking.edcn import BridgeModule, RegulationModule
    from torch_rechub.utils import hstu_utils

    from gt_calls import Call, Keywords, Method

    gen = _gen(3)
    fields = 3
    emb = torch.randn(BATCH, fields, EMB, generator=gen)
    seq = torch.randn(BATCH, SEQ, EMB, generator=gen)
    keep = torch.arange(SEQ).unsqueeze(0) < torch.tensor(LENGTHS).unsqueeze(1)
    if name.startswith("EmbeddingLayer") or name == "InputMask":
        features = [_sparse("user"), _sparse("item"), _dense("price"),
                    _seq("hist_item", "item", pooling="mean", padding_idx=0)]
        if name == "EmbeddingLayer.concat_history":
            features = [_sparse("item"), _seq("hist_item", "item"), _seq("neg_hist_item", "item")]
        embedding = layers.EmbeddingLayer(features)
        x = _inputs(features)
        if name == "InputMask":
            lists = [features[3], _seq("neg_hist_item", "item")]
            return Keywords(layers.InputMask(), features=lists), (_inputs(lists),), {}
        static = {"squeeze": {"features": features, "squeeze_dim": True},
                  "keep": {"features": [f for f in features if f.name != "price"]},
                  "dense_only": {"features": features[2:3], "squeeze_dim": True},
                  "concat_history": {"features": features[1:]}}[name.split(".")[1]]
        return Keywords(embedding, **static), (x,), {}
    mask = keep.float().unsqueeze(1)
    simple: dict[str, tuple[Any, tuple[Any, ...]]] = {
        "LR.sigmoid": (lambda: layers.LR(fields * EMB, sigmoid=True), (emb.flatten(1),)),
        "AveragePooling.mask": (layers.AveragePooling, (seq, mask)),
        "AveragePooling.no_mask": (layers.AveragePooling, (seq,)),
        "SumPooling.mask": (layers.SumPooling, (seq, mask)),
        "ConcatPooling": (layers.ConcatPooling, (seq, mask)),
        "MLP.relu": (lambda: layers.MLP(fields * EMB, dims=[8, 8], dropout=0.1), (emb.flatten(1),)),
        "MLP.no_output.softmax": (lambda: layers.MLP(fields * EMB, output_layer=False, dims=[3], activation="softmax"),
                                  (emb.flatten(1),)),
        "FM.no_reduce": (lambda: layers.FM(reduce_sum=False), (emb,)),
        "CIN.split_half": (lambda: layers.CIN(fields, [4, 4]), (emb,)),
        "CIN.no_split_half": (lambda: layers.CIN(fields, [4, 3], split_half=False), (emb,)),
        "CrossNetwork": (lambda: layers.CrossNetwork(fields * EMB, 2), (emb.flatten(1),)),
        "CrossNetV2": (lambda: layers.CrossNetV2(fields * EMB, 2), (emb.flatten(1),)),
        "CrossNetMix": (lambda: layers.CrossNetMix(fields * EMB, 2, low_rank=4, num_experts=2), (emb.flatten(1),)),
        "SENETLayer": (lambda: layers.SENETLayer(fields, 2), (emb,)),
        "BiLinearInteractionLayer.field_each": (lambda: layers.BiLinearInteractionLayer(EMB, fields, "field_each"),
                                                (emb,)),
        "MultiInterestSA.mask": (lambda: layers.MultiInterestSA(EMB, 2), (seq, keep.unsqueeze(-1).float())),
        "MultiInterestSA.no_mask": (lambda: layers.MultiInterestSA(EMB, 3), (seq,)),
        "CapsuleNetwork.mind": (lambda: layers.CapsuleNetwork(EMB, SEQ, bilinear_type=0, interest_num=2),
                                (seq, keep.long())),
        "CapsuleNetwork.bilinear1.relu": (lambda: layers.CapsuleNetwork(EMB, SEQ, bilinear_type=1, interest_num=2,
                                                                        relu_layer=True), (seq, keep.long())),
        "CapsuleNetwork.comirec": (lambda: _capsule(layers), (seq, keep.long())),
        "FFM.reduce_sum": (lambda: layers.FFM(fields), (torch.randn(BATCH, fields, fields, EMB, generator=gen),)),
        "CEN": (lambda: layers.CEN(EMB, 3, 1), (torch.randn(BATCH, 3, EMB, generator=gen),)),
        "InteractingLayer.no_residual": (lambda: layers.InteractingLayer(EMB, 2, dropout=0.1, residual=False), (emb,)),
        "HSTUBlock": (lambda: layers.HSTUBlock(8, 2, 2, 4, 4, max_seq_len=SEQ, num_time_buckets=8),
                      (torch.randn(BATCH, SEQ, 8, generator=gen),)),
        "Dice": (activation.Dice, (emb.flatten(1),)),
        "PredictionLayer.regression": (lambda: layers.PredictionLayer("regression"), (emb[:, 0, :1],)),
        "RelativeBucketedTimeAndPositionBias.time": (
            lambda: hstu_utils.RelativeBucketedTimeAndPositionBias(2, SEQ, num_time_buckets=8),
            ((torch.rand(BATCH, SEQ, generator=gen) * 7200).long(),)),
        "AUGRU": (lambda: AUGRU(EMB), (seq, emb[:, 0])),
        "ActivationUnit": (lambda: ActivationUnit(EMB, [8], activation="dice", use_softmax=True), (seq, emb[:, 0])),
        "BridgeModule.attention_pooling": (lambda: BridgeModule(fields * EMB, "attention_pooling"),
                                           (emb.flatten(1), emb.flip(1).flatten(1))),
        "RegulationModule": (lambda: RegulationModule(fields, [EMB] * fields, tau=2), (emb.flatten(1),)),
        "AITM.AttentionLayer": (lambda: AttentionLayer(EMB), (emb[:, :2],)),
        "VectorQuantizer.sinkhorn": (lambda: rqvae.VectorQuantizer(6, EMB, sk_epsilon=0.01, sk_iters=5), (emb,)),
        "ResidualVectorQuantizer": (lambda: rqvae.ResidualVectorQuantizer([4, 4, 4], EMB, [0.0, 0.01, 0.01],
                                                                          sk_iters=3), (emb,)),
    }
    if name in simple:
        factory, inputs = simple[name]
        return factory(), inputs, {}
    if name == "CrossLayer":
        flat = emb.flatten(1)
        return layers.CrossLayer(fields * EMB), (flat, flat * 0.5), {}
    if name == "HSTULayer.padding.time":
        deltas = (torch.rand(BATCH, SEQ, generator=gen) * 7200).long()
        layer = layers.HSTULayer(8, 2, 4, 4, dropout=0.1, max_seq_len=SEQ, num_time_buckets=8, time_bucket_fn="log",
                                 time_bucket_unit="seconds")
        return Keywords(layer, padding_mask=keep, time_diffs=deltas), (torch.randn(BATCH, SEQ, 8, generator=gen),), {}
    if name == "RelPosBias":
        return Keywords(hstu_utils.RelPosBias(2, SEQ, num_buckets=4), seq_len=SEQ), (), {}
    if name == "RelativeBucketedTimeAndPositionBias.position":
        return Keywords(hstu_utils.RelativeBucketedTimeAndPositionBias(2, SEQ), seq_len=SEQ), (), {}
    if name.startswith("VocabMask"):
        vocab = hstu_utils.VocabMask(VOCAB["item"], invalid_items=[0, 3])
        logits = torch.randn(BATCH, VOCAB["item"], generator=gen)
        if name.endswith("invalid_ids"):
            invalid = torch.randint(-1, VOCAB["item"] + 2, (BATCH, SEQ), generator=gen)
            return Method(vocab, "apply_mask"), (logits, invalid), {}
        if name.endswith("invalid_ids_1d"):
            return Method(vocab, "apply_mask"), (logits, torch.tensor([1, 2, 5])), {}
        return Method(vocab, "apply_mask"), (logits,), {}
    if name == "AUGRU.mask":
        return AUGRU(EMB), (seq, emb[:, 0], keep), {}
    if name == "VectorQuantizer.argmin":
        return rqvae.VectorQuantizer(6, EMB), (emb, False), {}
    if name == "VectorQuantizer.get_codebook_entry":
        vq = rqvae.VectorQuantizer(6, EMB)
        return Method(vq, "get_codebook_entry", shape=(BATCH, fields, EMB)), \
            (torch.randint(0, 6, (BATCH, fields), generator=gen),), {}
    if name == "sinkhorn_algorithm":
        return Call(rqvae.sinkhorn_algorithm, epsilon=0.05, sinkhorn_iterations=5), \
            (torch.rand(8, 4, generator=gen, dtype=torch.float64),), {}
    return Call(dynamic_interest_mask, interest_num=3), (keep.long(),), {}


def _capsule(layers: Any) -> Any:
    """ComiRec-DR's capsule layer: a per-position bilinear map (its weight left uninitialised by the library)."""
    import torch

    capsule = layers.CapsuleNetwork(EMB, SEQ, bilinear_type=2, interest_num=2)
    torch.nn.init.normal_(capsule.w, std=0.1)
    return capsule


def _losses(name: str) -> Built:
    import torch
    from torch_rechub.basic import loss_func
    from torch_rechub.utils import match

    from gt_calls import Call, Run

    gen = _gen(11)
    pos = torch.randn(BATCH, generator=gen)
    neg = torch.randn(BATCH, NEG, generator=gen)
    logits = torch.randn(BATCH, VOCAB["item"], generator=gen)
    targets = torch.tensor([3, 0, 7, 1])
    if name == "HingeLoss":
        return loss_func.HingeLoss(margin=1), (pos, neg), {}
    if name.startswith("BPRLoss"):
        return loss_func.BPRLoss(), (pos, neg[:, 0] if name.endswith("one_negative") else neg), {}
    if name.startswith("NCELoss"):
        reduction = name.split(".")[1]
        return loss_func.NCELoss(temperature=0.5, reduction=reduction), (logits, targets), {}
    if name == "InBatchNCELoss":
        items = torch.randn(VOCAB["item"], EMB, generator=gen)
        return loss_func.InBatchNCELoss(temperature=0.1), (torch.randn(BATCH, EMB, generator=gen), items, targets), {}
    if name == "RegularizationLoss":
        model, _ = _model("BST")
        reg = loss_func.RegularizationLoss(embedding_l1=1e-5, embedding_l2=1e-4, dense_l1=1e-6, dense_l2=1e-5)
        return Run(model, lambda owner: reg(owner), [loss_func.RegularizationLoss]), (), {}
    scores = torch.randn(BATCH, BATCH, generator=gen)
    if name == "gather_inbatch_logits":
        return Call(match.gather_inbatch_logits), (scores, torch.tensor([[1, 2], [0, 3], [1, 0], [2, 1]])), {}
    static: dict[str, Any] = {"neg_ratio": 2}
    if name.endswith("hard"):
        static["hard_negative"] = True
    if name.endswith("generator"):
        static = {"generator": _gen(0)}
    return Call(match.inbatch_negative_sampling, **static), (scores,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    from gt_calls import Method

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        model, args = _model(name)
        if MODELS[name][1].get("method") == "get_indices":
            return Method(model, "get_indices", use_sk=True), args, {}
        use_sk = MODELS[name][1].get("use_sk")
        return model, args + ((use_sk,) if use_sk is not None else ()), {}
    if name in TRAIN:
        return _train(name)
    if name in TRAINERS:
        return _trainer(name)
    if name in LAYERS:
        return _layers(name)
    return _losses(name)
