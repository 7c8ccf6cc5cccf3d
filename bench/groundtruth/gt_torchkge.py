"""Ground-truth bench, torchkge: its knowledge-graph embedding models scored, trained and used for link
and relation prediction; losses, negative samplers and dissimilarities.

A torchkge model (``torchkge.models``) is an ``nn.Module`` whose ``forward(heads, tails, relations,
negative_heads, negative_tails)`` scores a batch of true triples and their corrupted copies, as
``utils.Trainer.process_batch`` calls it. Everything runs on a tiny made-up ``KnowledgeGraph``
(``TRIPLES``: ten entities, three relations, built from a data frame as its tutorials do; nothing is
downloaded) at embedding size 8, on a batch of six triples:

- ``MODELS``: every model class of ``torchkge.models`` (each dissimilarity of TransE and TorusE), each
  compiled five ways (the variants that change only TransE's or TorusE's dissimilarity, the first two
  and link prediction only): ``<Model>.forward`` (one negative per triple, from a ``UniformNegativeSampler``),
  ``<Model>.scoring_function`` (the triple scorer), ``<Model>.normalize_parameters`` (what training
  calls after each epoch), ``<Model>.link_prediction`` and ``<Model>.relation_prediction``: one batch of
  ``LinkPredictionEvaluator.evaluate`` and ``RelationPredictionEvaluator.evaluate`` as their loops run
  it (bench code ``_LinkPrediction`` and ``_RelationPrediction``: the model's
  ``inference_prepare_candidates`` and ``inference_scoring_function``, ``filter_scores`` on the graph's
  dictionaries, ``get_rank``). TorusE's relation prediction is left out: its
  ``inference_prepare_candidates(entities=False)`` reads ``rel_emb_dim``, which TorusE lacks, and fails
  eagerly;
- ``<Model>.forward.n_neg2``: the same forward with two negatives per triple (negatives twice as many as
  the positives: the branch of ``Model.forward`` that repeats them), for a few models;
- ``TRAIN``: ``Trainer.process_batch`` up to the backward pass (bench code ``_TrainStep``: the model on a
  batch of positives and pre-sampled negatives, then the criterion), the model with a loss its
  tutorials pair it with;
- ``LOSSES``: ``MarginLoss``, ``LogisticLoss`` and ``BinaryCrossEntropyLoss`` on fixed scores;
- ``SAMPLERS``: ``corrupt_batch`` of each negative sampler of ``torchkge.sampling`` (uniform and
  Bernoulli with one and two negatives, positional, Bernoulli-relation);
- ``DISSIMILARITIES``: the functions of ``torchkge.utils.dissimilarities`` on two batches of vectors,
  and ``get_rank`` of ``torchkge.utils.operations``.

``torchkge.inference``'s ``EntityInference`` and ``RelationInference`` are left out: their ``evaluate``
writes ``self.scores[i * b_size, (i + 1) * b_size]`` (two indices where a slice is meant) and fails
eagerly at any batch size. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, REL_DIM, BATCH = 8, 4, 6
# The made-up graph: (head, relation, tail) labels; ten entities, three relations.
TRIPLES = [(f"e{h}", f"r{r}", f"e{t}") for h, r, t in (
    (0, 0, 1), (1, 0, 2), (2, 0, 3), (3, 0, 4), (4, 0, 5), (5, 0, 6), (6, 0, 7), (7, 0, 8), (8, 0, 9),
    (0, 1, 5), (1, 1, 6), (2, 1, 7), (3, 1, 8), (4, 1, 9), (9, 1, 0),
    (0, 2, 2), (2, 2, 4), (4, 2, 6), (6, 2, 8), (8, 2, 0), (1, 2, 3), (3, 2, 5), (5, 2, 7), (7, 2, 9))]

# Model name -> (class of ``torchkge.models``, keywords other than the graph's sizes). ``emb_dim`` models
# take ``(emb_dim, n_entities, n_relations)``; TransR and TransD ``(ent_emb_dim, rel_emb_dim, ...)``;
# ConvKB ``(emb_dim, n_filters, ...)``.
MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    "TransE": ("TransEModel", {"emb_dim": DIM}),
    "TransE.L1": ("TransEModel", {"emb_dim": DIM, "dissimilarity_type": "L1"}),
    "TransH": ("TransHModel", {"emb_dim": DIM}),
    "TransR": ("TransRModel", {"ent_emb_dim": DIM, "rel_emb_dim": REL_DIM}),
    "TransD": ("TransDModel", {"ent_emb_dim": DIM, "rel_emb_dim": REL_DIM}),
    "TorusE.torus_L1": ("TorusEModel", {"emb_dim": DIM, "dissimilarity_type": "torus_L1"}),
    "TorusE.torus_L2": ("TorusEModel", {"emb_dim": DIM, "dissimilarity_type": "torus_L2"}),
    "TorusE.torus_eL2": ("TorusEModel", {"emb_dim": DIM, "dissimilarity_type": "torus_eL2"}),
    "RESCAL": ("RESCALModel", {"emb_dim": DIM}),
    "DistMult": ("DistMultModel", {"emb_dim": DIM}),
    "HolE": ("HolEModel", {"emb_dim": DIM}),
    "ComplEx": ("ComplExModel", {"emb_dim": DIM}),
    "Analogy": ("AnalogyModel", {"emb_dim": DIM}),
    "ConvKB": ("ConvKBModel", {"emb_dim": DIM, "n_filters": 2}),
}
STEPS = ("forward", "scoring_function", "normalize_parameters", "link_prediction", "relation_prediction")
# Models that differ from another only by their dissimilarity function: forward and link prediction only.
DISSIMILARITY_VARIANTS = ("TransE.L1", "TorusE.torus_L1", "TorusE.torus_eL2")
NO_RELATION_PREDICTION = ("TorusE.torus_L2",)  # fails eagerly (see above)
N_NEG2 = ("TransE", "DistMult", "ConvKB")  # forward with two negatives per triple
# Training steps: model -> (loss class of ``torchkge.utils.losses``, its keywords), as the tutorials pair them.
TRAIN: dict[str, tuple[str, dict[str, Any]]] = {
    "TransE.MarginLoss": ("MarginLoss", {"margin": 0.5}),
    "TransH.MarginLoss": ("MarginLoss", {"margin": 0.5}),
    "TorusE.torus_L2.MarginLoss": ("MarginLoss", {"margin": 0.5}),
    "DistMult.LogisticLoss": ("LogisticLoss", {}),
    "ComplEx.BinaryCrossEntropyLoss": ("BinaryCrossEntropyLoss", {}),
    "ConvKB.BinaryCrossEntropyLoss": ("BinaryCrossEntropyLoss", {}),
}
LOSSES: dict[str, dict[str, Any]] = {"MarginLoss": {"margin": 1.0}, "LogisticLoss": {},
                                     "BinaryCrossEntropyLoss": {}}
# Sampler name -> (class of ``torchkge.sampling``, constructor keywords).
SAMPLERS: dict[str, tuple[str, dict[str, Any]]] = {
    "UniformNegativeSampler": ("UniformNegativeSampler", {}),
    "UniformNegativeSampler.n_neg2": ("UniformNegativeSampler", {"n_neg": 2}),
    "BernoulliNegativeSampler": ("BernoulliNegativeSampler", {}),
    "BernoulliNegativeSampler.n_neg2": ("BernoulliNegativeSampler", {"n_neg": 2}),
    "PositionalNegativeSampler": ("PositionalNegativeSampler", {}),
    "BernoulliRelationNegativeSampler": ("BernoulliRelationNegativeSampler", {}),
}
DISSIMILARITIES = ("l1_dissimilarity", "l2_dissimilarity", "l1_torus_dissimilarity", "l2_torus_dissimilarity",
                   "el2_torus_dissimilarity")


def names() -> list[str]:
    models = [f"{model}.{step}" for model in MODELS for step in STEPS
              if not (step == "relation_prediction" and model in NO_RELATION_PREDICTION)
              and (model not in DISSIMILARITY_VARIANTS or step in ("forward", "link_prediction"))]
    models += [f"{model}.forward.n_neg2" for model in N_NEG2]
    models += [f"train.{name}" for name in TRAIN]
    models += [f"loss.{loss}" for loss in LOSSES]
    models += [f"sampler.{name}" for name in SAMPLERS]
    return models + [f"utils.{name}" for name in DISSIMILARITIES] + ["utils.get_rank"]


def _graph() -> Any:
    """The made-up ``KnowledgeGraph``, from a data frame with columns ``from``, ``rel``, ``to``."""
    import pandas as pd
    from torchkge import KnowledgeGraph

    frame = pd.DataFrame(TRIPLES, columns=["from", "rel", "to"])
    return KnowledgeGraph(df=frame)


def _batch(kg: Any) -> tuple[Any, Any, Any]:
    """The first ``BATCH`` triples of the graph: heads, tails, relations."""
    return kg.head_idx[:BATCH], kg.tail_idx[:BATCH], kg.relations[:BATCH]


def _model(name: str, kg: Any) -> Any:
    import torchkge.models

    cls, keywords = MODELS[name]
    return getattr(torchkge.models, cls)(n_entities=kg.n_ent, n_relations=kg.n_rel, **keywords)


def _negatives(kg: Any, n_neg: int = 1) -> tuple[Any, Any]:
    """Negative heads and tails for the batch, drawn once by a ``UniformNegativeSampler``."""
    import torch
    from torchkge.sampling import UniformNegativeSampler

    torch.manual_seed(1)
    heads, tails, relations = _batch(kg)
    return UniformNegativeSampler(kg).corrupt_batch(heads, tails, relations, n_neg=n_neg)


def _step(name: str, step: str) -> Built:
    import torch
    from torch import nn
    from torchkge.utils import filter_scores
    from torchkge.utils.operations import get_rank

    from gt_calls import Method

    kg = _graph()
    model = _model(name, kg)
    heads, tails, relations = _batch(kg)
    if step == "forward":
        negative_heads, negative_tails = _negatives(kg)
        return model, (heads, tails, relations, negative_heads, negative_tails), {}
    if step == "forward.n_neg2":
        negative_heads, negative_tails = _negatives(kg, n_neg=2)
        return model, (heads, tails, relations, negative_heads, negative_tails), {}
    if step == "scoring_function":
        return Method(model, "scoring_function"), (heads, tails, relations), {}
    if step == "normalize_parameters":
        return Method(model, "normalize_parameters"), (), {}
    if step == "link_prediction":

        class _LinkPrediction(nn.Module):
            """One batch of ``LinkPredictionEvaluator.evaluate``: tail and head candidates scored, filtered
            on the graph's true triples and ranked."""

            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, h_idx: torch.Tensor, t_idx: torch.Tensor, r_idx: torch.Tensor) -> Any:
                h_emb, t_emb, r_emb, candidates = self.model.inference_prepare_candidates(h_idx, t_idx, r_idx,
                                                                                          entities=True)
                scores = self.model.inference_scoring_function(h_emb, candidates, r_emb)
                filt_scores = filter_scores(scores, kg.dict_of_tails, h_idx, r_idx, t_idx)
                rank_tails, filt_rank_tails = get_rank(scores, t_idx), get_rank(filt_scores, t_idx)
                scores = self.model.inference_scoring_function(candidates, t_emb, r_emb)
                filt_scores = filter_scores(scores, kg.dict_of_heads, t_idx, r_idx, h_idx)
                rank_heads, filt_rank_heads = get_rank(scores, h_idx), get_rank(filt_scores, h_idx)
                return rank_tails, filt_rank_tails, rank_heads, filt_rank_heads

            def entry_points(self) -> list[Any]:
                return [type(self.model).inference_prepare_candidates, type(self.model).inference_scoring_function,
                        filter_scores, get_rank]

        return _LinkPrediction(), (heads, tails, relations), {}

    class _RelationPrediction(nn.Module):
        """One batch of ``RelationPredictionEvaluator.evaluate`` (``directed=True``): relation candidates
        scored, filtered on the graph's true triples and ranked."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, h_idx: torch.Tensor, t_idx: torch.Tensor, r_idx: torch.Tensor) -> Any:
            h_emb, t_emb, _, candidates = self.model.inference_prepare_candidates(h_idx, t_idx, r_idx,
                                                                                  entities=False)
            scores = self.model.inference_scoring_function(h_emb, t_emb, candidates)
            filt_scores = filter_scores(scores, kg.dict_of_rels, h_idx, t_idx, r_idx)
            return get_rank(scores, r_idx), get_rank(filt_scores, r_idx)

        def entry_points(self) -> list[Any]:
            return [type(self.model).inference_prepare_candidates, type(self.model).inference_scoring_function,
                    filter_scores, get_rank]

    return _RelationPrediction(), (heads, tails, relations), {}


def _train(name: str) -> Built:
    import torch
    import torchkge.utils.losses
    from torch import nn

    model_name, _ = name.rsplit(".", 1)
    loss_name, keywords = TRAIN[name]
    kg = _graph()
    model = _model(model_name, kg)
    criterion = getattr(torchkge.utils.losses, loss_name)(**keywords)
    heads, tails, relations = _batch(kg)
    negative_heads, negative_tails = _negatives(kg)

    class _TrainStep(nn.Module):
        """``Trainer.process_batch`` up to the backward pass: the model on true and corrupted triples,
        then the criterion."""

        def __init__(self) -> None:
            super().__init__()
            self.model, self.criterion = model, criterion

        def forward(self, h: torch.Tensor, t: torch.Tensor, r: torch.Tensor, nh: torch.Tensor,
                    nt: torch.Tensor) -> torch.Tensor:
            p, n = self.model(h, t, r, nh, nt)
            return self.criterion(p, n)

        def entry_points(self) -> list[Any]:
            return [type(self.model), type(self.criterion)]

    return _TrainStep(), (heads, tails, relations, negative_heads, negative_tails), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # tqdm's notebook notice
    torch.manual_seed(0)
    group, rest = name.split(".", 1)
    gen = torch.Generator().manual_seed(2)
    if group == "train":
        return _train(rest)
    if group == "loss":
        import torchkge.utils.losses

        loss = getattr(torchkge.utils.losses, rest)(**LOSSES[rest])
        return loss, (torch.randn(BATCH, generator=gen), torch.randn(BATCH, generator=gen)), {}
    if group == "sampler":
        import torchkge.sampling

        from gt_calls import Method

        cls, keywords = SAMPLERS[rest]
        kg = _graph()
        sampler = getattr(torchkge.sampling, cls)(kg, **keywords)
        return Method(sampler, "corrupt_batch"), _batch(kg), {}
    if group == "utils":
        from gt_calls import Call

        if rest == "get_rank":
            from torchkge.utils.operations import get_rank

            scores = torch.randn(BATCH, 10, generator=gen)
            return Call(get_rank), (scores, torch.randint(0, 10, (BATCH,), generator=gen)), {}
        import torchkge.utils.dissimilarities

        a, b = torch.rand(BATCH, DIM, generator=gen), torch.rand(BATCH, DIM, generator=gen)
        return Call(getattr(torchkge.utils.dissimilarities, rest)), (a, b), {}
    for model in sorted(MODELS, key=len, reverse=True):  # the longest model name that prefixes ``name``
        if name.startswith(model + "."):
            return _step(model, name[len(model) + 1:])
    raise KeyError(name)
