"""Ground-truth bench, fast_pytorch_kmeans (fast-pytorch-kmeans): k-means and batched k-means in torch.

fast-pytorch-kmeans has two estimators, plain Python classes holding their centroids: ``KMeans`` (one
clustering of ``[n_samples, n_features]`` data) and ``MultiKMeans`` (``n_kmeans`` independent clusterings of
``[n_kmeans, n_samples, n_features]`` data, chunked by a memory probe, ``util.find_optimal_splits``). Both take
a ``mode`` (``euclidean`` or ``cosine`` similarity), an ``init_method`` (``random`` points, ``gaussian`` draws
with the data's mean and covariance, ``kmeans++``), ``minibatch`` (mini-batch k-means: a NumPy sample of the
points each iteration, per-cluster counts and learning rates), ``max_iter`` / ``tol`` and ``verbose`` (the
error printed with ``.item()`` each iteration, the iteration count at the end). Each model is a method
compiled under a module's interface (``gt_calls.Method``) or a function (``gt_calls.Call``):

- ``KMeans``: ``fit_predict`` in each mode and each initialisation, mini-batch (with random and k-means++
  seeding of a sample), a fixed number of iterations (``tol=0``), given centroids, both verbosities;
  ``fit``; ``predict`` after an eager fit (both modes); ``max_sim``; the similarities ``euc_sim`` and
  ``cos_sim``;
- ``MultiKMeans``: ``fit_predict`` in each mode, mini-batch, k-means++ and gaussian seeding, more clusterings
  than samples (the other chunking branch), given centroids, verbose; ``fit``; ``predict`` and ``max_sim``
  after an eager fit;
- the initialisations of ``init_methods`` (``_kpoints``, ``_kpp`` with and without sampling, ``_krandinit``)
  and ``util.find_optimal_splits`` with its memory probe.

The data are tiny (three blobs of four points in 2-D, or three such sets for ``MultiKMeans``); an estimator
keeps its centroids between calls, as it does in use. Every model is compiled in eval and in train mode.
NumPy and torch are seeded at build time. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
CLUSTERS = 3

# Model -> (estimator: "KMeans" or "MultiKMeans", method, estimator keywords, data: "blobs", "many" (more
# clusterings than samples), "centroids" (the data and initial centroids), "fitted" (fit eagerly first)).
MODELS: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "KMeans.fit_predict": ("KMeans", "fit_predict", {}, "blobs"),
    "KMeans.fit_predict.cosine": ("KMeans", "fit_predict", {"mode": "cosine"}, "blobs"),
    "KMeans.fit_predict.gaussian": ("KMeans", "fit_predict", {"init_method": "gaussian"}, "blobs"),
    "KMeans.fit_predict.kmeans_pp": ("KMeans", "fit_predict", {"init_method": "kmeans++"}, "blobs"),
    "KMeans.fit_predict.minibatch": ("KMeans", "fit_predict", {"minibatch": 6}, "blobs"),
    "KMeans.fit_predict.minibatch.kmeans_pp.cosine": ("KMeans", "fit_predict",
                                                      {"minibatch": 6, "init_method": "kmeans++", "mode": "cosine"},
                                                      "blobs"),
    "KMeans.fit_predict.fixed_iterations": ("KMeans", "fit_predict", {"max_iter": 3, "tol": 0.0}, "blobs"),
    "KMeans.fit_predict.centroids": ("KMeans", "fit_predict", {}, "centroids"),
    "KMeans.fit_predict.verbose1": ("KMeans", "fit_predict", {"verbose": 1}, "blobs"),
    "KMeans.fit_predict.verbose2": ("KMeans", "fit_predict", {"verbose": 2, "max_iter": 3}, "blobs"),
    "KMeans.fit": ("KMeans", "fit", {}, "blobs"),
    "KMeans.predict": ("KMeans", "predict", {}, "fitted"),
    "KMeans.predict.cosine": ("KMeans", "predict", {"mode": "cosine"}, "fitted"),
    "KMeans.max_sim": ("KMeans", "max_sim", {}, "fitted"),
    "KMeans.euc_sim": ("KMeans", "euc_sim", {}, "fitted"),
    "KMeans.cos_sim": ("KMeans", "cos_sim", {"mode": "cosine"}, "fitted"),
    "MultiKMeans.fit_predict": ("MultiKMeans", "fit_predict", {}, "blobs"),
    "MultiKMeans.fit_predict.cosine": ("MultiKMeans", "fit_predict", {"mode": "cosine"}, "blobs"),
    "MultiKMeans.fit_predict.minibatch": ("MultiKMeans", "fit_predict", {"minibatch": 6}, "blobs"),
    "MultiKMeans.fit_predict.kmeans_pp": ("MultiKMeans", "fit_predict", {"init_method": "kmeans++"}, "blobs"),
    "MultiKMeans.fit_predict.gaussian": ("MultiKMeans", "fit_predict", {"init_method": "gaussian"}, "blobs"),
    "MultiKMeans.fit_predict.more_kmeans_than_samples": ("MultiKMeans", "fit_predict", {"max_iter": 5}, "many"),
    "MultiKMeans.fit_predict.centroids": ("MultiKMeans", "fit_predict", {}, "centroids"),
    "MultiKMeans.fit_predict.verbose2": ("MultiKMeans", "fit_predict", {"verbose": 2, "max_iter": 3}, "blobs"),
    "MultiKMeans.fit": ("MultiKMeans", "fit", {"mode": "cosine"}, "blobs"),
    "MultiKMeans.predict": ("MultiKMeans", "predict", {}, "fitted"),
    "MultiKMeans.max_sim.cosine": ("MultiKMeans", "max_sim", {"mode": "cosine"}, "fitted"),
}
# Function -> (module, fixed keywords).
FUNCTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "init_methods._kpoints": ("fast_pytorch_kmeans.init_methods", {"k": CLUSTERS}),
    "init_methods._kpp": ("fast_pytorch_kmeans.init_methods", {"k": CLUSTERS}),
    "init_methods._kpp.sample_size": ("fast_pytorch_kmeans.init_methods", {"k": CLUSTERS, "sample_size": 8}),
    "init_methods._krandinit": ("fast_pytorch_kmeans.init_methods", {"k": CLUSTERS}),
    "init_methods._krandinit.sample_size": ("fast_pytorch_kmeans.init_methods", {"k": CLUSTERS, "sample_size": 8}),
    "util.find_optimal_splits": ("fast_pytorch_kmeans.util", {}),
}


def names() -> list[str]:
    return list(MODELS) + list(FUNCTIONS)


def _blobs(sets: int = 0, seed: int = 1, points: int = 4) -> Any:
    """Three blobs of ``points`` points in 2-D ([3 * points, 2]); ``sets`` > 0: that many such sets, stacked."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    centres = torch.tensor([[0.0, 4.0], [4.0, 0.0], [-4.0, -4.0]])

    def one() -> Any:
        return (centres[:, None] + 0.3 * torch.randn(3, points, 2, generator=gen)).reshape(3 * points, 2)

    return torch.stack([one() for _ in range(sets)]) if sets else one()


def _functions(name: str) -> Built:
    import importlib

    import torch

    from gt_calls import Call

    module, keywords = FUNCTIONS[name]
    function = getattr(importlib.import_module(module), name.split(".")[1])
    if name == "util.find_optimal_splits":
        def probe(sizes: Any) -> Any:
            """Splits of 12 rows whose chunks each need ``sizes`` bytes per row."""
            return torch.as_tensor(function(12, lambda chunk: chunk * 64, device="cpu")) + sizes

        return Call(probe), (torch.zeros(2),), {}
    return Call(function, **keywords), (_blobs(),), {}


def build(name: str) -> Built:
    import numpy as np
    import torch

    import fast_pytorch_kmeans
    from gt_calls import Method

    torch.manual_seed(0)
    np.random.seed(0)
    if name in FUNCTIONS:
        return _functions(name)
    estimator, method, keywords, data = MODELS[name]
    multi = estimator == "MultiKMeans"
    kmeans = getattr(fast_pytorch_kmeans, estimator)(n_clusters=CLUSTERS, **keywords)
    x = _blobs(sets=6 if data == "many" else 3, points=1 if data == "many" else 4) if multi else _blobs()
    if data == "fitted":
        kmeans.fit(x)
    if method in ("max_sim", "euc_sim", "cos_sim"):
        return Method(kmeans, method), (x, kmeans.centroids.clone()), {}
    if data == "centroids":
        centroids = x[..., [0, 4, 8], :].clone() + 0.1
        return Method(kmeans, method), (x, centroids), {}
    return Method(kmeans, method), (x,), {}
