"""Ground-truth bench, torch_kmeans (torch-kmeans): batched k-means clustering as PyTorch modules.

torch-kmeans clusters a batch of point sets at once (inputs ``(BS, N, D)``, a number of clusters per
instance): ``KMeans`` (Lloyd's algorithm from ``num_init`` random or k-means++ initialisations, the best
by inertia; input normalisation ``mean`` / ``minmax`` / ``unit``; Lp distances or dot-product and cosine
similarities), ``ConstrainedKMeans`` (capacitated clustering of weighted points by priority assignment,
with random, k-means++, top-k-weight and weighted k-means++ initialisations and a dummy cluster for
infeasible points), ``SoftKMeans`` (the differentiable soft assignment of ClusterNet over a similarity
with a temperature) and ``KNN`` (k nearest neighbours). The distance modules ``LpDistance``,
``DotProductSimilarity`` and ``CosineSimilarity`` compute the pairwise matrices. The package has no
spectral clustering. So the tables cover, on tiny batches (2 instances of 16 points with 2 or 4
features, 3 clusters, 2 initialisations, at most 3 iterations):

- ``KMEANS``: ``KMeans`` called (``forward``) with each initialisation, distance and normalisation, a
  per-instance tensor ``k``, given centers (one set or one per initialisation), a loose tolerance that
  converges early with ``verbose``, no seed and a single initialisation, distance keywords (no
  normalisation, a power), and its ``fit`` / ``predict`` (after an eager fit) / ``fit_predict`` through
  ``gt_calls.Method``;
- ``CONSTRAINED``: ``ConstrainedKMeans`` with each of its four initialisations, weights that make the
  problem infeasible with ``raise_infeasible=False``, a per-instance ``k``, the L1 distance, and its
  ``fit_predict`` and ``predict``;
- ``SOFT``: ``SoftKMeans`` (cosine and dot-product similarity, k-means++, several initialisations, a
  temperature, another normalisation, a per-instance ``k``), ``predict`` / ``fit_predict``, and a bench
  module that clusters the output of a small linear embedding and returns the inertia (the
  differentiable use, its gradient reaching the embedding in train mode);
- ``KNN``: ``KNN`` (Lp and cosine, normalised, excluding or keeping each point itself, another ``k``);
- ``DISTANCES``: the distance modules called on two point sets and on one, with their options
  (``p``, ``power``, ``normalize_embeddings``), and their ``pairwise_distance``;
- ``UTILS``: ``group_by_label_mean``, ``first_nonzero`` (TorchScript functions) and ``rm_kwargs``.

Random points, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, POINTS, CLUSTERS = 2, 16, 3
BASE: dict[str, Any] = {"num_init": 2, "max_iter": 3, "n_clusters": CLUSTERS, "verbose": False}

# Model name -> (class, constructor keywords over ``BASE``, call: "forward", "fit", "predict", "fit_predict",
# call options: "dim" features, "k" "tensor" for a per-instance k, "centers" 3 or 4 dimensions, "weights"
# "feasible" / "heavy" for the constrained variant). "cosine", "dot" and "lp" name the distance classes.
Spec = tuple[str, dict[str, Any], str, dict[str, Any]]
KMEANS: dict[str, Spec] = {
    "KMeans": ("KMeans", {}, "forward", {}),
    "KMeans.k-means++": ("KMeans", {"init_method": "k-means++"}, "forward", {}),
    "KMeans.p_norm1.dim4": ("KMeans", {"p_norm": 1}, "forward", {"dim": 4}),
    "KMeans.cosine": ("KMeans", {"distance": "cosine"}, "forward", {}),
    "KMeans.dot.k-means++": ("KMeans", {"distance": "dot", "init_method": "k-means++"}, "forward", {"dim": 4}),
    "KMeans.normalize.mean": ("KMeans", {"normalize": True}, "forward", {}),
    "KMeans.normalize.minmax": ("KMeans", {"normalize": "minmax"}, "forward", {}),
    "KMeans.normalize.unit": ("KMeans", {"normalize": "unit"}, "forward", {"dim": 4}),
    "KMeans.k_tensor": ("KMeans", {}, "forward", {"k": "tensor"}),
    "KMeans.centers": ("KMeans", {"num_init": 1}, "forward", {"centers": 3}),
    "KMeans.centers.num_init": ("KMeans", {}, "forward", {"centers": 3}),
    "KMeans.centers.4d": ("KMeans", {}, "forward", {"centers": 4}),
    "KMeans.converge.verbose": ("KMeans", {"tol": 0.9, "verbose": True}, "forward", {}),
    "KMeans.no_seed.num_init1": ("KMeans", {"seed": None, "num_init": 1}, "forward", {}),
    "KMeans.distance_options": ("KMeans", {"normalize_embeddings": False, "power": 2}, "forward", {}),
    "KMeans.fit": ("KMeans", {}, "fit", {}),
    "KMeans.predict": ("KMeans", {}, "predict", {}),
    "KMeans.fit_predict": ("KMeans", {"init_method": "k-means++"}, "fit_predict", {"k": "tensor"}),
}
CONSTRAINED: dict[str, Spec] = {
    "ConstrainedKMeans": ("ConstrainedKMeans", {}, "forward", {"weights": "feasible"}),
    "ConstrainedKMeans.k-means++": ("ConstrainedKMeans", {"init_method": "k-means++"}, "forward",
                                    {"weights": "feasible"}),
    "ConstrainedKMeans.topk": ("ConstrainedKMeans", {"init_method": "topk", "num_init": 1}, "forward",
                               {"weights": "feasible"}),
    "ConstrainedKMeans.ckm++": ("ConstrainedKMeans", {"init_method": "ckm++"}, "forward", {"weights": "feasible"}),
    "ConstrainedKMeans.infeasible": ("ConstrainedKMeans", {"raise_infeasible": False,
                                                           "n_priority_trials_before_fall_back": 2},
                                     "forward", {"weights": "heavy"}),
    "ConstrainedKMeans.k_tensor.p_norm1": ("ConstrainedKMeans", {"p_norm": 1}, "forward",
                                           {"weights": "feasible", "k": "tensor", "dim": 4}),
    "ConstrainedKMeans.fit_predict": ("ConstrainedKMeans", {"init_method": "ckm++"}, "fit_predict",
                                      {"weights": "feasible"}),
    "ConstrainedKMeans.predict": ("ConstrainedKMeans", {}, "predict", {"weights": "feasible"}),
}
SOFT: dict[str, Spec] = {
    "SoftKMeans": ("SoftKMeans", {"num_init": 1}, "forward", {}),
    "SoftKMeans.num_init": ("SoftKMeans", {}, "forward", {"dim": 4}),
    "SoftKMeans.dot.temp": ("SoftKMeans", {"distance": "dot", "temp": 0.5, "num_init": 1}, "forward", {}),
    "SoftKMeans.k-means++": ("SoftKMeans", {"init_method": "k-means++"}, "forward", {}),
    "SoftKMeans.normalize.mean": ("SoftKMeans", {"normalize": "mean", "num_init": 1}, "forward", {}),
    "SoftKMeans.k_tensor": ("SoftKMeans", {"num_init": 1}, "forward", {"k": "tensor"}),
    "SoftKMeans.converge.verbose": ("SoftKMeans", {"num_init": 1, "tol": 0.9, "verbose": True}, "forward", {}),
    "SoftKMeans.predict": ("SoftKMeans", {"num_init": 1}, "predict", {}),
    "SoftKMeans.fit_predict": ("SoftKMeans", {}, "fit_predict", {}),
    "SoftKMeans.embedding": ("SoftKMeans", {"num_init": 1}, "embedding", {"dim": 4}),
}
# ``KNN`` name -> (constructor keywords, call keywords).
KNN: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "KNN": ({"k": 3}, {}),
    "KNN.not_same_source": ({"k": 3}, {"same_source": False}),
    "KNN.cosine.k": ({"k": 3, "distance": "cosine"}, {"k": 5}),
    "KNN.normalize.p_norm1": ({"k": 2, "normalize": "minmax", "p_norm": 1}, {}),
}
# Distance name -> (class, constructor keywords, call: "pair" (two sets), "self" (one set), "pairwise").
DISTANCES: dict[str, tuple[str, dict[str, Any], str]] = {
    "LpDistance": ("lp", {}, "pair"),
    "LpDistance.self.p1.power": ("lp", {"p": 1, "power": 2}, "self"),
    "LpDistance.not_normalized": ("lp", {"normalize_embeddings": False}, "pair"),
    "LpDistance.pairwise_distance": ("lp", {"p": 3}, "pairwise"),
    "DotProductSimilarity": ("dot", {}, "pair"),
    "DotProductSimilarity.not_normalized.power": ("dot", {"normalize_embeddings": False, "power": 3}, "self"),
    "DotProductSimilarity.pairwise_distance": ("dot", {}, "pairwise"),
    "CosineSimilarity": ("cosine", {}, "pair"),
    "CosineSimilarity.self": ("cosine", {}, "self"),
}
UTILS = ("group_by_label_mean", "first_nonzero", "rm_kwargs")


def names() -> list[str]:
    return list(KMEANS) + list(CONSTRAINED) + list(SOFT) + list(KNN) + list(DISTANCES) + list(UTILS)


def _distance(key: str) -> Any:
    from torch_kmeans import CosineSimilarity, DotProductSimilarity, LpDistance

    return {"lp": LpDistance, "dot": DotProductSimilarity, "cosine": CosineSimilarity}[key]


def _points(dim: int = 2, seed: int = 1) -> Any:
    """Three loose blobs per instance, shuffled."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    means = torch.randn(BATCH, CLUSTERS, dim, generator=gen) * 3.0
    labels = torch.arange(POINTS) % CLUSTERS
    points = means[:, labels] + 0.5 * torch.randn(BATCH, POINTS, dim, generator=gen)
    return points[:, torch.randperm(POINTS, generator=gen)]


def _clustering(name: str, spec: Spec) -> Built:
    import torch
    import torch_kmeans
    from torch import nn

    from gt_calls import Method

    cls_name, keywords, call, options = spec
    keywords = {**BASE, **keywords}
    if "distance" in keywords:
        keywords["distance"] = _distance(keywords["distance"])
    cls = getattr(torch_kmeans, cls_name)
    model = cls(**keywords)
    dim = options.get("dim", 2)
    x = _points(dim)
    inputs: dict[str, Any] = {}
    if options.get("k") == "tensor":
        inputs["k"] = torch.tensor([2, CLUSTERS])
    if "centers" in options:
        gen = torch.Generator().manual_seed(3)
        shape = (BATCH, CLUSTERS, dim) if options["centers"] == 3 else (BATCH, keywords["num_init"], CLUSTERS, dim)
        inputs["centers"] = torch.randn(*shape, generator=gen)
    if "weights" in options:
        gen = torch.Generator().manual_seed(4)
        # feasible: 16 weights of at most 0.15 in 3 clusters of capacity 1; heavy: the total exceeds the capacity
        low, high = (0.05, 0.15) if options["weights"] == "feasible" else (0.3, 0.6)
        inputs["weights"] = low + (high - low) * torch.rand(BATCH, POINTS, generator=gen)
    if call == "forward":
        return model, (x,), inputs
    if call == "predict":
        model.fit(_points(dim, seed=2), **inputs)
        predict = {"weights": inputs["weights"]} if "weights" in inputs else {}
        return Method(model, "predict"), (x,), predict
    if call == "embedding":
        embed = nn.Linear(dim, dim)

        class Embedded(nn.Module):
            """A linear embedding clustered by soft k-means; the inertia is the loss a training loop minimises."""

            def __init__(self) -> None:
                super().__init__()
                self.embed = embed
                self.cluster = model

            def forward(self, points: torch.Tensor) -> torch.Tensor:
                return self.cluster(self.embed(points)).inertia.sum()

            def entry_points(self) -> list[Any]:
                return [cls]

        return Embedded(), (x,), {}
    return Method(model, call), (x,), inputs


def _knn(name: str) -> Built:
    from torch_kmeans.clustering import KNN as KNNModule

    from gt_calls import Method

    keywords, call = KNN[name]
    keywords = dict(keywords)
    if "distance" in keywords:
        keywords["distance"] = _distance(keywords["distance"])
    return Method(KNNModule(**keywords), "forward"), (_points(4),), call


def _distances(name: str) -> Built:
    from gt_calls import Method

    key, keywords, call = DISTANCES[name]
    module = _distance(key)(**keywords)
    x, y = _points(4), _points(4, seed=5)
    if call == "pair":
        return module, (x, y[:, :10]), {}
    if call == "self":
        return module, (x,), {}
    return Method(module, "pairwise_distance"), (x, y), {}


def _utils(name: str) -> Built:
    import torch
    from torch_kmeans.utils import utils

    from gt_calls import Call

    gen = torch.Generator().manual_seed(6)
    if name == "group_by_label_mean":
        labels = torch.randint(0, CLUSTERS, (BATCH, 2, POINTS), generator=gen)
        k_range = torch.arange(CLUSTERS)[None, :].expand(BATCH, -1)
        return Call(utils.group_by_label_mean), (_points(4), labels, k_range), {}
    if name == "first_nonzero":
        return Call(utils.first_nonzero, dim=-1), (torch.randn(BATCH, POINTS, generator=gen),), {}

    def remove_keys(x: torch.Tensor) -> Any:  # the keyword clean-up the constructors run, on a fresh dict
        return utils.rm_kwargs({"normalize": "unit", "p": 2, "scale": x}, ["normalize", "is_inverted"])["scale"] * 2

    module = Call(remove_keys)
    module.entry_points = lambda: [utils.rm_kwargs]  # type: ignore[method-assign]
    return module, (torch.randn(3, generator=gen),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    for table in (KMEANS, CONSTRAINED, SOFT):
        if name in table:
            return _clustering(name, table[name])
    if name in KNN:
        return _knn(name)
    if name in DISTANCES:
        return _distances(name)
    return _utils(name)
