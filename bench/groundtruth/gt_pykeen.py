"""Ground-truth bench, pykeen: its knowledge-graph embedding models scored, trained and ranked; losses, samplers.

A pykeen model (``pykeen.models``) is an ``nn.Module`` whose entry points are scoring methods, not
``forward``: training scores a batch of (head, relation, tail) triples (``score_hrt``), ranking scores
every tail of a batch of (head, relation) pairs (``score_t``). Each model is therefore one method of a
model through ``gt_calls.Method`` (its entry point is that method), on a tiny made-up graph (``TRIPLES``:
ten entities, three relations, no dataset download) and at embedding size 8:

- ``MODELS``: every model class that ``pykeen.models`` exports, at tiny sizes: ``<Model>.score_hrt``
  and ``<Model>.score_t``. Models that need inverse triples (CompGCN, NodePiece, ConvE by its docs) get a
  factory that creates them, the literal models a ``TriplesNumericLiteralsFactory``, the inductive
  NodePiece models a disjoint inference graph (scored in mode ``training``, ranked in ``validation``).
  The evaluation-only baselines have no triple scorer: ``score_t`` only. ``FixedModel`` is left out: it
  is the library's test mock that returns fixed scores;
- ``TRAIN``: a training step as pykeen's loops run it, through their static batch functions
  (``SLCWATrainingLoop._process_batch_static``: negatives from a ``BasicNegativeSampler``, scores, the
  model's default loss and its regularization term; ``LCWATrainingLoop._process_batch_static``: all tails
  scored against multi-hot labels), for a few models;
- ``LOSSES``: each loss of ``pykeen.losses`` on fixed scores, ``process_slcwa_scores`` (positive and
  negative scores) and ``process_lcwa_scores`` (all-tail scores and multi-hot labels);
- ``SAMPLERS``: the negative samplers of ``pykeen.sampling``, ``sample(positives)``, unfiltered and with
  the filterers of ``pykeen.sampling.filtering``.

``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, ENTITIES, RELATIONS, BATCH = 8, 10, 3, 6
# The made-up graph: (head, relation, tail) labels, fixed so every model sees the same ids.
TRIPLES = [(f"e{h}", f"r{r}", f"e{t}") for h, r, t in (
    (0, 0, 1), (1, 0, 2), (2, 0, 3), (3, 0, 4), (4, 0, 5), (5, 0, 6), (6, 0, 7), (7, 0, 8), (8, 0, 9),
    (0, 1, 5), (1, 1, 6), (2, 1, 7), (3, 1, 8), (4, 1, 9), (9, 1, 0),
    (0, 2, 2), (2, 2, 4), (4, 2, 6), (6, 2, 8), (8, 2, 0), (1, 2, 3), (3, 2, 5), (5, 2, 7), (7, 2, 9))]
# The inductive models' inference graph: other entities, the same relations.
INFERENCE_TRIPLES = [(f"f{h}", f"r{r}", f"f{t}") for h, r, t in (
    (0, 0, 1), (1, 0, 2), (2, 0, 3), (3, 0, 4), (4, 0, 5), (0, 1, 3), (1, 1, 4), (2, 1, 5),
    (0, 2, 2), (2, 2, 4), (1, 2, 3), (3, 2, 5))]

# Model class of ``pykeen.models`` -> (its keywords at tiny sizes, the factory it needs).
# Factories: "plain", "inverse" (with inverse triples), "literal" (numeric literals), "inductive".
MODELS: dict[str, tuple[dict[str, Any], str]] = {
    "AutoSF": ({"embedding_dim": DIM}, "plain"),
    "BoxE": ({"embedding_dim": DIM}, "plain"),
    "CompGCN": ({"embedding_dim": DIM}, "inverse"),
    "ComplEx": ({"embedding_dim": DIM}, "plain"),
    "ComplExLiteral": ({"embedding_dim": DIM}, "literal"),
    "ConvE": ({"embedding_dim": DIM, "embedding_height": 2, "embedding_width": 4, "output_channels": 2}, "inverse"),
    "ConvKB": ({"embedding_dim": DIM, "num_filters": 2}, "plain"),
    "CP": ({"embedding_dim": DIM, "rank": 4}, "plain"),
    "CrossE": ({"embedding_dim": DIM}, "plain"),
    "DistMA": ({"embedding_dim": DIM}, "plain"),
    "DistMult": ({"embedding_dim": DIM}, "plain"),
    "DistMultLiteral": ({"embedding_dim": DIM}, "literal"),
    "DistMultLiteralGated": ({"embedding_dim": DIM}, "literal"),
    "ERMLP": ({"embedding_dim": DIM, "hidden_dim": DIM}, "plain"),
    "ERMLPE": ({"embedding_dim": DIM, "hidden_dim": DIM}, "plain"),
    "HolE": ({"embedding_dim": DIM}, "plain"),
    "KG2E": ({"embedding_dim": DIM}, "plain"),
    "KG2E.expected_likelihood": ({"embedding_dim": DIM, "dist_similarity": "ExpectedLikelihood"}, "plain"),
    "MuRE": ({"embedding_dim": DIM}, "plain"),
    "NodePiece": ({"embedding_dim": DIM, "num_tokens": 2}, "inverse"),
    "NTN": ({"embedding_dim": DIM, "num_slices": 2}, "plain"),
    "PairRE": ({"embedding_dim": DIM}, "plain"),
    "ProjE": ({"embedding_dim": DIM}, "plain"),
    "QuatE": ({"embedding_dim": DIM}, "plain"),
    "RESCAL": ({"embedding_dim": DIM}, "plain"),
    "RGCN": ({"embedding_dim": DIM, "num_layers": 2}, "plain"),
    "RotatE": ({"embedding_dim": DIM}, "plain"),
    "SE": ({"embedding_dim": DIM}, "plain"),
    "SimplE": ({"embedding_dim": DIM}, "plain"),
    "TorusE": ({"embedding_dim": DIM}, "plain"),
    "TransD": ({"embedding_dim": DIM, "relation_dim": 4}, "plain"),
    "TransE": ({"embedding_dim": DIM}, "plain"),
    "TransF": ({"embedding_dim": DIM}, "plain"),
    "TransH": ({"embedding_dim": DIM}, "plain"),
    "TransR": ({"embedding_dim": DIM, "relation_dim": 4}, "plain"),
    "TuckER": ({"embedding_dim": DIM, "relation_dim": 4}, "plain"),
    "UM": ({"embedding_dim": DIM}, "plain"),
    "InductiveNodePiece": ({"embedding_dim": DIM, "num_tokens": 2}, "inductive"),
    "InductiveNodePieceGNN": ({"embedding_dim": DIM, "num_tokens": 2}, "inductive"),
    "CooccurrenceFilteredModel": ({"base": "RotatE", "embedding_dim": DIM}, "plain"),  # keywords go to the base
    "SoftInverseTripleBaseline": ({}, "plain"),
    "MarginalDistributionBaseline": ({}, "plain"),
}
BASELINES = ("SoftInverseTripleBaseline", "MarginalDistributionBaseline")  # rank only: no triple scorer
# Training steps: (model, the loop it runs in); the model's default loss unless the name says another.
TRAIN: dict[str, tuple[str, str, str | None]] = {
    "TransE.slcwa": ("TransE", "slcwa", None),
    "TransH.slcwa": ("TransH", "slcwa", None),
    "RotatE.slcwa": ("RotatE", "slcwa", None),
    "DistMult.slcwa": ("DistMult", "slcwa", None),
    "ComplEx.slcwa": ("ComplEx", "slcwa", None),
    "ComplEx.lcwa": ("ComplEx", "lcwa", "CrossEntropyLoss"),
    "ConvE.lcwa": ("ConvE", "lcwa", None),
    "TuckER.lcwa": ("TuckER", "lcwa", None),
    "DistMult.lcwa": ("DistMult", "lcwa", "BCEWithLogitsLoss"),
}
# Losses of ``pykeen.losses`` (each has an sLCWA and an LCWA form).
LOSSES = ("MarginRankingLoss", "SoftMarginRankingLoss", "PairwiseLogisticLoss", "DoubleMarginLoss",
          "PointwiseHingeLoss", "SoftPointwiseHingeLoss", "SoftplusLoss", "BCEWithLogitsLoss",
          "BCEAfterSigmoidLoss", "MSELoss", "CrossEntropyLoss", "InfoNCELoss", "NSSALoss",
          "AdversarialBCEWithLogitsLoss", "FocalLoss")
# Negative samplers, unfiltered and filtered (sampler, filterer or None).
SAMPLERS: dict[str, tuple[str, str | None]] = {
    "BasicNegativeSampler": ("BasicNegativeSampler", None),
    "BernoulliNegativeSampler": ("BernoulliNegativeSampler", None),
    "PseudoTypedNegativeSampler": ("PseudoTypedNegativeSampler", None),
    "BasicNegativeSampler.PythonSetFilterer": ("BasicNegativeSampler", "PythonSetFilterer"),
    "BasicNegativeSampler.BloomFilterer": ("BasicNegativeSampler", "BloomFilterer"),
}


def names() -> list[str]:
    models = [f"{model}.{step}" for model in MODELS for step in ("score_hrt", "score_t")
              if step == "score_t" or model not in BASELINES]
    models += [f"train.{name}" for name in TRAIN]
    models += [f"loss.{loss}.{loop}" for loss in LOSSES for loop in ("slcwa", "lcwa")]
    return models + [f"sampler.{name}" for name in SAMPLERS]


def _factory(kind: str) -> Any:
    """The triples factory of a model: the made-up graph, with inverse triples or literals where needed."""
    import numpy as np
    from pykeen.triples import TriplesFactory, TriplesNumericLiteralsFactory

    triples = np.array(TRIPLES, dtype=str)
    if kind == "literal":  # two numeric attributes per entity
        numeric = np.array([(f"e{i}", attribute, str(value)) for i in range(ENTITIES)
                            for attribute, value in (("age", i * 1.5), ("size", 10.0 - i))], dtype=str)
        return TriplesNumericLiteralsFactory.from_labeled_triples(triples, numeric_triples=numeric)
    return TriplesFactory.from_labeled_triples(triples, create_inverse_triples=kind in ("inverse", "inductive"))


def _model(name: str) -> tuple[Any, Any]:
    """Model ``name`` of ``MODELS`` on its factory, seeded; returns the model and its training factory."""
    import numpy as np
    import pykeen.models
    from pykeen.triples import TriplesFactory

    keywords, kind = MODELS[name]
    factory = _factory(kind)
    keywords = dict(keywords)
    if kind == "inductive":
        keywords["inference_factory"] = TriplesFactory.from_labeled_triples(
            np.array(INFERENCE_TRIPLES, dtype=str), create_inverse_triples=True, relation_to_id=factory.relation_to_id)
    cls = getattr(pykeen.models, name.split(".")[0])
    if name in BASELINES:
        return cls(triples_factory=factory, **keywords), factory
    return cls(triples_factory=factory, random_seed=0, **keywords), factory


def _train(name: str) -> Built:
    import torch
    from pykeen.losses import loss_resolver
    from pykeen.sampling import BasicNegativeSampler
    from pykeen.training import LCWATrainingLoop, SLCWATrainingLoop
    from torch import nn

    model_name, loop, loss_name = TRAIN[name]
    model, factory = _model(model_name)
    loss = model.loss if loss_name is None else loss_resolver.make(loss_name)
    positives = factory.mapped_triples[:BATCH]

    if loop == "slcwa":
        sampler = BasicNegativeSampler(mapped_triples=factory.mapped_triples, num_negs_per_pos=2)

        class SLCWAStep(nn.Module):
            """One sLCWA training batch: corrupt the positives, score both, the loss plus regularization."""

            def __init__(self) -> None:
                super().__init__()
                self.model, self.loss, self.sampler = model, loss, sampler

            def forward(self, positives: torch.Tensor) -> torch.Tensor:
                negatives, masks = self.sampler.sample(positives)
                batch = {"positives": positives, "negatives": negatives}
                return SLCWATrainingLoop._process_batch_static(self.model, self.loss, None, batch, None, None)

            def entry_points(self) -> list[Any]:
                return [SLCWATrainingLoop._process_batch_static, type(self.sampler).corrupt_batch]

        return SLCWAStep(), (positives,), {}

    pairs = positives[:, :2]
    labels = torch.zeros(BATCH, factory.num_entities)
    labels[torch.arange(BATCH), positives[:, 2]] = 1.0

    class LCWAStep(nn.Module):
        """One LCWA training batch: score every tail of the (head, relation) pairs against multi-hot labels."""

        def __init__(self) -> None:
            super().__init__()
            self.model, self.loss = model, loss

        def forward(self, pairs: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            batch = {"pairs": pairs, "target": labels}
            return LCWATrainingLoop._process_batch_static(self.model, self.model.score_t, self.loss,
                                                          factory.num_entities, None, batch, None, None)

        def entry_points(self) -> list[Any]:
            return [LCWATrainingLoop._process_batch_static]

    return LCWAStep(), (pairs, labels), {}


def _loss(name: str) -> Built:
    import torch
    from gt_calls import Method
    from pykeen.losses import loss_resolver

    loss_name, loop = name.rsplit(".", 1)
    loss = loss_resolver.make(loss_name)
    gen = torch.Generator().manual_seed(1)
    if loop == "slcwa":  # one positive and two negatives per triple
        positive, negative = torch.randn(BATCH, 1, generator=gen), torch.randn(BATCH, 2, generator=gen)
        return Method(loss, "process_slcwa_scores", num_entities=ENTITIES), (positive, negative), {}
    predictions = torch.randn(BATCH, ENTITIES, generator=gen)
    labels = (torch.rand(BATCH, ENTITIES, generator=gen) > 0.7).float()
    return Method(loss, "process_lcwa_scores", num_entities=ENTITIES), (predictions, labels), {}


def _sampler(name: str) -> Built:
    import pykeen.sampling
    from gt_calls import Method

    sampler_name, filterer = SAMPLERS[name]
    factory = _factory("plain")
    keywords: dict[str, Any] = {"num_negs_per_pos": 2}
    if filterer is not None:
        keywords["filterer"] = filterer
    sampler = getattr(pykeen.sampling, sampler_name)(mapped_triples=factory.mapped_triples, **keywords)
    return Method(sampler, "sample"), (factory.mapped_triples[:BATCH],), {}


def build(name: str) -> Built:
    import torch
    from gt_calls import Method

    torch.manual_seed(0)
    group = name.split(".", 1)[0]
    if group == "train":
        return _train(name.split(".", 1)[1])
    if group == "loss":
        return _loss(name.split(".", 1)[1])
    if group == "sampler":
        return _sampler(name.split(".", 1)[1])
    model_name, step = name.rsplit(".", 1)
    model, factory = _model(model_name)
    hrt = factory.mapped_triples[:BATCH]
    inductive = MODELS[model_name][1] == "inductive"
    # Inductive models score the training graph in training, and rank on the inference graph.
    static = {"mode": ("training" if step == "score_hrt" else "validation")} if inductive else {}
    if step == "score_hrt":
        return Method(model, "score_hrt", **static), (hrt,), {}
    if inductive:
        hrt = model.inference_factory.mapped_triples[:BATCH] if hasattr(model, "inference_factory") else hrt
    return Method(model, "score_t", **static), (hrt[:, :2],), {}
