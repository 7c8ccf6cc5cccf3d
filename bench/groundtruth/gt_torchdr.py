"""Ground-truth bench, torchdr: dimensionality reduction with PyTorch (affinities, neighbour embeddings, PCA).

torchdr (TorchDR) computes affinity matrices between samples and fits embeddings that match them, all on
tensors. Every estimator runs with ``backend=None`` (plain torch: the keops and faiss backends are left
out), on tiny data (40 samples of 6 features, 2 components) and with few iterations. The model families:

- ``AFFINITIES``: the affinity modules called on data, as users compute a similarity graph: the entropic
  ones (``EntropicAffinity`` sparse and dense, in the log domain, with other metrics; the doubly stochastic
  ``SymmetricEntropicAffinity`` with and without squared epsilons; ``SinkhornAffinity`` with a Gaussian or
  Student kernel and gradients through the iterations), the normalised kernels (``NormalizedGaussianAffinity``,
  ``NormalizedStudentAffinity`` over both dimensions or one), the k-NN normalised ones (``SelfTuningAffinity``,
  ``MAGICAffinity``, ``PHATEAffinity``, ``UMAPAffinity`` sparse, dense and unsymmetrised, ``PACMAPAffinity``)
  and the quadratic ``DoublyStochasticQuadraticAffinity``;
- ``EMBEDDINGS``: ``fit_transform`` of the neighbour-embedding estimators in the options that change their
  code: ``SNE``, ``TSNE`` (sparse or dense input affinity, early exaggeration or none, Adam, a scheduler,
  random initialisation, another metric, a parametric encoder), ``COSNE`` (hyperbolic, Riemannian Adam),
  ``InfoTSNE``, ``LargeVis`` (negatives excluding the neighbours or not), ``UMAP`` (closed-form gradients,
  given ``a``/``b``), ``PACMAP`` (its three phases), ``TSNEkhorn`` (unrolled or implicit, symmetric or not),
  the generic ``AffinityMatcher`` (square and cross-entropy losses, a precomputed input affinity) and
  ``PHATE``; each fit runs with gradients enabled (users never fit under ``no_grad``);
- ``TRANSFORMS``: ``transform`` of new data by fitted estimators: the non-parametric transform of ``UMAP``,
  ``LargeVis`` and ``InfoTSNE`` (optimising the new points against the frozen training embedding), an
  encoder's ``transform`` and ``fit`` returning the estimator;
- ``SPECTRAL``: ``PCA`` (fit and transform, a chosen SVD driver), ``KernelPCA`` (with and without the
  diagonal), ``IncrementalPCA`` (``fit_transform`` over batches, ``partial_fit``, low-rank SVD,
  ``transform``) and ``ExactIncrementalPCA`` (fit on a list of batches, transform);
- ``FUNCTIONS``: the functions users call: ``pairwise_distances`` (metrics, k nearest neighbours with
  indices, a second point set, the diagonal excluded), the root finders ``binary_search`` and
  ``false_position``, the losses and reductions of ``torchdr.utils`` (``cross_entropy_loss`` plain and in
  the log domain, ``square_loss``, ``entropy``, ``kmin`` / ``kmax``, ``svd_flip``, ``center_kernel``,
  ``matrix_power``, ``sum_red``, ``logsumexp_red``), the sparse symmetrisation, the evaluation scores
  (``silhouette_samples`` / ``silhouette_score`` with weights and subsampling, ``knn_label_accuracy``,
  ``neighborhood_preservation``), the Poincaré-ball operations and a ``RiemannianAdam`` step.

Every model is compiled in eval mode (``no_grad``) and in train mode; an estimator is refitted at each
call. Random data, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, FEATURES, NEW = 40, 6, 8
N_PACMAP = 64  # PaCMAP's affinity looks for 50 more neighbours than it keeps
PLAIN = {"backend": None}

# Affinity name -> (class in ``torchdr``, constructor keywords, call keywords).
AFFINITIES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "EntropicAffinity": ("EntropicAffinity", {"perplexity": 5, "max_iter": 20}, {}),
    "EntropicAffinity.dense": ("EntropicAffinity", {"perplexity": 5, "max_iter": 20, "sparsity": False}, {}),
    "EntropicAffinity.log.no_indices": ("EntropicAffinity", {"perplexity": 5, "max_iter": 20},
                                        {"log": True, "return_indices": False}),
    "EntropicAffinity.euclidean": ("EntropicAffinity", {"perplexity": 5, "max_iter": 20, "metric": "euclidean",
                                                        "sparsity": False}, {}),
    "SymmetricEntropicAffinity": ("SymmetricEntropicAffinity", {"perplexity": 5, "max_iter": 6,
                                                                "check_interval": 3}, {}),
    "SymmetricEntropicAffinity.no_eps_square.log": ("SymmetricEntropicAffinity",
                                                    {"perplexity": 5, "max_iter": 6, "check_interval": 3,
                                                     "eps_square": False, "optimizer": "SGD"}, {"log": True}),
    "SinkhornAffinity": ("SinkhornAffinity", {"eps": 1.0, "max_iter": 6}, {}),
    "SinkhornAffinity.student.with_grad": ("SinkhornAffinity", {"max_iter": 6, "base_kernel": "student",
                                                                "with_grad": True}, {"log": True}),
    "NormalizedGaussianAffinity": ("NormalizedGaussianAffinity", {"sigma": 2.0}, {}),
    "NormalizedGaussianAffinity.rows.manhattan": ("NormalizedGaussianAffinity",
                                                  {"normalization_dim": 1, "metric": "manhattan"}, {"log": True}),
    "NormalizedStudentAffinity": ("NormalizedStudentAffinity", {"degrees_of_freedom": 2.0}, {}),
    "NormalizedStudentAffinity.rows": ("NormalizedStudentAffinity", {"normalization_dim": 1, "zero_diag": False},
                                       {"log": True}),
    "SelfTuningAffinity": ("SelfTuningAffinity", {"K": 4}, {}),
    "SelfTuningAffinity.rows": ("SelfTuningAffinity", {"K": 4, "normalization_dim": 1}, {"log": True}),
    "MAGICAffinity": ("MAGICAffinity", {"K": 4}, {}),
    "PHATEAffinity": ("PHATEAffinity", {"k": 4, "t": 3}, {}),
    "UMAPAffinity": ("UMAPAffinity", {"n_neighbors": 5, "max_iter": 20}, {}),
    "UMAPAffinity.dense": ("UMAPAffinity", {"n_neighbors": 5, "max_iter": 20, "sparsity": False}, {}),
    "UMAPAffinity.no_symmetrize": ("UMAPAffinity", {"n_neighbors": 5, "max_iter": 20, "symmetrize": False}, {}),
    "PACMAPAffinity": ("PACMAPAffinity", {"n_neighbors": 5}, {}),
    "DoublyStochasticQuadraticAffinity": ("DoublyStochasticQuadraticAffinity", {"max_iter": 6, "check_interval": 3},
                                          {}),
    "DoublyStochasticQuadraticAffinity.student": ("DoublyStochasticQuadraticAffinity",
                                                  {"max_iter": 6, "check_interval": 3, "base_kernel": "student",
                                                   "optimizer": "SGD"}, {}),
}

NE_BASE: dict[str, Any] = {"max_iter": 4, "check_interval": 2, "backend": None, "random_state": 0}
SNE_BASE: dict[str, Any] = {**NE_BASE, "perplexity": 5, "max_iter_affinity": 20}
NEG_BASE: dict[str, Any] = {**SNE_BASE, "n_negatives": 4}
# Embedding name -> (estimator class in ``torchdr``, constructor keywords). "encoder" stands for a small MLP.
EMBEDDINGS: dict[str, tuple[str, dict[str, Any]]] = {
    "SNE": ("SNE", SNE_BASE),
    "SNE.dense.early_exaggeration": ("SNE", {**SNE_BASE, "sparsity": False, "early_exaggeration_coeff": 4.0,
                                             "early_exaggeration_iter": 2}),
    "TSNE": ("TSNE", {**SNE_BASE, "early_exaggeration_iter": 2}),
    "TSNE.dense": ("TSNE", {**SNE_BASE, "sparsity": False, "early_exaggeration_iter": 2}),
    "TSNE.no_exaggeration.adam": ("TSNE", {**SNE_BASE, "early_exaggeration_coeff": None,
                                           "early_exaggeration_iter": None, "optimizer": "Adam", "lr": 0.5,
                                           "optimizer_kwargs": None}),
    "TSNE.scheduler": ("TSNE", {**SNE_BASE, "early_exaggeration_iter": 2, "scheduler": "LinearLR"}),
    "TSNE.random_init.euclidean": ("TSNE", {**SNE_BASE, "early_exaggeration_iter": 2, "init": "random",
                                            "metric": "euclidean"}),
    "TSNE.encoder": ("TSNE", {**SNE_BASE, "early_exaggeration_iter": 2, "encoder": "encoder", "optimizer": "Adam",
                              "lr": 0.01, "optimizer_kwargs": None}),
    "COSNE": ("COSNE", {**SNE_BASE, "lr": 0.05}),
    "InfoTSNE": ("InfoTSNE", {**NEG_BASE, "early_exaggeration_iter": 2}),
    "InfoTSNE.no_scheduler.dense": ("InfoTSNE", {**NEG_BASE, "scheduler": None, "sparsity": False,
                                                 "early_exaggeration_coeff": None, "early_exaggeration_iter": None}),
    "LargeVis": ("LargeVis", NEG_BASE),
    "LargeVis.exclude_neighbors": ("LargeVis", {**NEG_BASE, "exclude_neighbors_from_negative_sampling": True}),
    "LargeVis.discard_nns.adam": ("LargeVis", {**NEG_BASE, "discard_NNs": True, "optimizer": "Adam", "lr": 0.5,
                                               "optimizer_kwargs": None, "scheduler": None}),
    "UMAP": ("UMAP", {**NE_BASE, "n_neighbors": 5, "max_iter_affinity": 20}),
    "UMAP.ab.exclude_neighbors": ("UMAP", {**NE_BASE, "n_neighbors": 5, "max_iter_affinity": 20, "a": 1.5,
                                           "b": 0.9, "exclude_neighbors_from_negative_sampling": True,
                                           "negative_sample_rate": 3}),
    "UMAP.no_scheduler.random_init": ("UMAP", {**NE_BASE, "n_neighbors": 5, "max_iter_affinity": 20,
                                               "scheduler": None, "init": "random"}),
    "UMAP.encoder": ("UMAP", {**NE_BASE, "n_neighbors": 5, "max_iter_affinity": 20, "encoder": "encoder",
                              "optimizer": "Adam", "lr": 0.01}),
    "PACMAP": ("PACMAP", {**NE_BASE, "n_neighbors": 5, "iter_per_phase": 1}),
    "PACMAP.ratios": ("PACMAP", {**NE_BASE, "n_neighbors": 5, "iter_per_phase": 2, "MN_ratio": 1.0,
                                 "FP_ratio": 1.0, "max_iter": 6}),
    "TSNEkhorn": ("TSNEkhorn", {**NE_BASE, "perplexity": 5, "max_iter_affinity_in": 4}),
    "TSNEkhorn.unrolling": ("TSNEkhorn", {**NE_BASE, "perplexity": 5, "max_iter_affinity_in": 3,
                                          "unrolling": True}),
    "AffinityMatcher.square_loss": ("AffinityMatcher", {"affinity_in": ("NormalizedGaussianAffinity", {}),
                                                        "affinity_out": ("NormalizedStudentAffinity", {}),
                                                        "max_iter": 4, "check_interval": 2, "lr": 0.1}),
    "AffinityMatcher.cross_entropy": ("AffinityMatcher", {"affinity_in": ("EntropicAffinity",
                                                                          {"perplexity": 5, "max_iter": 20,
                                                                           "sparsity": False}),
                                                          "affinity_out": ("NormalizedStudentAffinity", {}),
                                                          "loss_fn": "cross_entropy_loss", "max_iter": 4,
                                                          "check_interval": 2, "init": "normal",
                                                          "scheduler": "ExponentialLR",
                                                          "scheduler_kwargs": {"gamma": 0.9}}),
    "AffinityMatcher.precomputed": ("AffinityMatcher", {"affinity_in": "precomputed",
                                                        "affinity_out": ("NormalizedGaussianAffinity", {}),
                                                        "max_iter": 4, "check_interval": 2, "init": "random"}),
    "PHATE": ("PHATE", {"k": 4, "t": 3, "max_iter": 4, "check_interval": 2, "random_state": 0}),
}
# Transform name -> (estimator class, keywords, what: "transform" (new data with ``X_train``), "encoder"
# (new data through the encoder), "fit" (``fit`` returning the estimator), "embedding" (``transform()``)).
TRANSFORMS: dict[str, tuple[str, dict[str, Any], str]] = {
    "UMAP.transform": ("UMAP", {**NE_BASE, "n_neighbors": 5, "max_iter_affinity": 20, "max_iter": 9}, "transform"),
    "LargeVis.transform": ("LargeVis", {**NEG_BASE, "max_iter": 9}, "transform"),
    "InfoTSNE.transform": ("InfoTSNE", {**NEG_BASE, "max_iter": 9, "early_exaggeration_iter": 2}, "transform"),
    "TSNE.encoder.transform": ("TSNE", EMBEDDINGS["TSNE.encoder"][1], "encoder"),
    "TSNE.fit": ("TSNE", EMBEDDINGS["TSNE"][1], "fit"),
    "UMAP.transform_training": ("UMAP", EMBEDDINGS["UMAP"][1], "embedding"),
}
SPECTRAL = (
    "PCA", "PCA.three_components", "PCA.transform", "KernelPCA", "KernelPCA.nodiag.student",
    "IncrementalPCA", "IncrementalPCA.lowrank", "IncrementalPCA.partial_fit", "IncrementalPCA.transform",
    "ExactIncrementalPCA", "ExactIncrementalPCA.transform",
)
# Function name -> (module, function, inputs, fixed keywords). Inputs: "X" data (40, 6), "XY" data and a second
# set (8, 6), "ball" points in the Poincaré disk, "P" an affinity pair (P, Q), "logPQ" log affinities, "logP" one,
# "Pone" one affinity, "A" a matrix, "UV" SVD factors, "K" a kernel, "sparse" kNN values and indices, "labels" data
# with labels ("labels.weights" and sample weights), "XZ" data and an embedding, "root" target entropies.
FUNCTIONS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "pairwise_distances.sqeuclidean": ("torchdr.distance", "pairwise_distances", "X", {"metric": "sqeuclidean"}),
    "pairwise_distances.euclidean.Y": ("torchdr.distance", "pairwise_distances", "XY", {}),
    "pairwise_distances.manhattan.knn": ("torchdr.distance", "pairwise_distances", "X",
                                         {"metric": "manhattan", "k": 5, "return_indices": True}),
    "pairwise_distances.angular.exclude_diag": ("torchdr.distance", "pairwise_distances", "X",
                                                {"metric": "angular", "k": 4, "exclude_diag": True,
                                                 "return_indices": True}),
    "pairwise_distances.sqhyperbolic": ("torchdr.distance", "pairwise_distances", "ball", {"metric": "sqhyperbolic"}),
    "binary_search": ("torchdr.utils", "binary_search", "root", {"max_iter": 8}),
    "false_position": ("torchdr.utils", "false_position", "root", {"max_iter": 8}),
    "cross_entropy_loss": ("torchdr.utils", "cross_entropy_loss", "P", {}),
    "cross_entropy_loss.log": ("torchdr.utils", "cross_entropy_loss", "logPQ", {"log": True}),
    "square_loss": ("torchdr.utils", "square_loss", "P", {}),
    "entropy": ("torchdr.utils", "entropy", "logP", {}),
    "entropy.not_log": ("torchdr.utils", "entropy", "Pone", {"log": False, "dim": 0}),
    "kmin": ("torchdr.utils", "kmin", "A", {"k": 3, "dim": 1}),
    "kmax": ("torchdr.utils", "kmax", "A", {"k": 3, "dim": 0}),
    "svd_flip": ("torchdr.utils", "svd_flip", "UV", {}),
    "svd_flip.v_based": ("torchdr.utils", "svd_flip", "UV", {"u_based_decision": False}),
    "center_kernel": ("torchdr.utils", "center_kernel", "K", {}),
    "center_kernel.return_all": ("torchdr.utils", "center_kernel", "K", {"return_all": True}),
    "matrix_power": ("torchdr.utils", "matrix_power", "K", {"power": 3}),
    "sum_red": ("torchdr.utils", "sum_red", "A", {"dim": 1}),
    "logsumexp_red": ("torchdr.utils", "logsumexp_red", "A", {"dim": (0, 1)}),
    "symmetrize_sparse": ("torchdr.utils.sparse", "symmetrize_sparse", "sparse", {}),
    "silhouette_samples": ("torchdr.eval", "silhouette_samples", "labels", {"warn": False}),
    "silhouette_samples.weights.manhattan": ("torchdr.eval", "silhouette_samples", "labels.weights",
                                               {"metric": "manhattan", "warn": False}),
    "silhouette_score": ("torchdr.eval", "silhouette_score", "labels", {"warn": False}),
    "silhouette_score.sample_size": ("torchdr.eval", "silhouette_score", "labels",
                                     {"sample_size": 20, "random_state": 0, "warn": False}),
    "knn_label_accuracy": ("torchdr.eval", "knn_label_accuracy", "labels", {"k": 3, "backend": None}),
    "knn_label_accuracy.per_sample": ("torchdr.eval", "knn_label_accuracy", "labels",
                                      {"k": 3, "backend": None, "exclude_self": False, "return_per_sample": True}),
    "neighborhood_preservation": ("torchdr.eval", "neighborhood_preservation", "XZ", {"K": 5}),
    "neighborhood_preservation.per_sample": ("torchdr.eval", "neighborhood_preservation", "XZ",
                                             {"K": 5, "metric": "sqeuclidean", "return_per_sample": True}),
}
# Poincaré-ball operation name -> (``PoincareBallManifold`` method, inputs: points on the ball "p", "q",
# tangent vectors "u", a matrix "m").
MANIFOLD: dict[str, tuple[str, tuple[str, ...]]] = {
    "PoincareBallManifold.sqdist": ("sqdist", ("p", "q")),
    "PoincareBallManifold.expmap0.logmap0": ("expmap0_logmap0", ("u",)),
    "PoincareBallManifold.expmap": ("expmap", ("u", "p")),
    "PoincareBallManifold.logmap": ("logmap", ("p", "q")),
    "PoincareBallManifold.mobius_matvec": ("mobius_matvec", ("m", "p")),
    "PoincareBallManifold.egrad2rgrad.proj": ("egrad2rgrad_proj", ("p", "u")),
    "PoincareBallManifold.ptransp": ("ptransp", ("p", "q", "u")),
    "PoincareBallManifold.to_hyperboloid": ("to_hyperboloid", ("p",)),
    "RiemannianAdam.step": ("radam", ()),
}


def names() -> list[str]:
    return (list(AFFINITIES) + list(EMBEDDINGS) + list(TRANSFORMS) + list(SPECTRAL) + list(FUNCTIONS)
            + list(MANIFOLD))


def _data(n: int = N, seed: int = 1, features: int = FEATURES) -> Any:
    """Three Gaussian blobs, as a clustering data set (distinct rows: no duplicates to process)."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    centers = torch.randn(3, features, generator=gen) * 4
    return centers[torch.arange(n) % 3] + torch.randn(n, features, generator=gen)


def _labels(n: int = N) -> Any:
    import torch

    return torch.arange(n) % 3


def _encoder() -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU(), nn.Linear(16, 2))


def _run(owner: Any, run: Any, entries: list[Any]) -> Any:
    from gt_calls import Run

    return Run(owner, run, entries)


def _affinity(name: str) -> Built:
    import torchdr

    from gt_calls import Keywords

    cls, keywords, call = AFFINITIES[name]
    X = _data(N_PACMAP if name.startswith("PACMAP") else N)
    return Keywords(getattr(torchdr, cls)(**keywords), **call), (X,), {}


def _estimator(cls: str, keywords: dict[str, Any]) -> Any:
    import torchdr

    keywords = dict(keywords)
    if keywords.get("encoder") == "encoder":
        keywords["encoder"] = _encoder()
    for role in ("affinity_in", "affinity_out"):
        if isinstance(keywords.get(role), tuple):
            affinity, affinity_keywords = keywords[role]
            keywords[role] = getattr(torchdr, affinity)(**affinity_keywords)
    return getattr(torchdr, cls)(**keywords)


def _fit(estimator: Any, method: str = "fit_transform") -> Any:
    """``estimator.fit_transform(X)`` (or ``fit``) with gradients enabled, as a user fits outside ``no_grad``."""
    import torch

    def fit(owner: Any, X: Any) -> Any:
        with torch.enable_grad():
            result = getattr(owner, method)(X)
        return owner.embedding_ if method == "fit" else result

    return _run(estimator, fit, [getattr(type(estimator), method), type(estimator)._fit_transform])


def _embedding(name: str) -> Built:
    cls, keywords = EMBEDDINGS[name]
    X = _data(N_PACMAP if name.startswith("PACMAP") else N)
    if keywords.get("affinity_in") == "precomputed":
        import torchdr

        X = torchdr.EntropicAffinity(perplexity=5, max_iter=20, sparsity=False)(X, return_indices=False)
    return _fit(_estimator(cls, keywords)), (X,), {}


def _transform(name: str) -> Built:
    import torch

    cls, keywords, what = TRANSFORMS[name]
    estimator = _estimator(cls, keywords)
    X, X_new = _data(), _data(NEW, seed=5)
    if what == "fit":
        return _fit(estimator, "fit"), (X,), {}
    with torch.enable_grad():
        estimator.fit_transform(X)
    if what == "embedding":
        return _run(estimator, lambda owner: owner.transform(), [type(estimator).transform]), (), {}
    if what == "encoder":
        return _run(estimator, lambda owner, new: owner.transform(new), [type(estimator).transform]), (X_new,), {}

    def transform(owner: Any, new: Any, train: Any) -> Any:
        with torch.enable_grad():
            return owner.transform(new, X_train=train)

    return _run(estimator, transform, [type(estimator).transform, type(estimator)._transform]), (X_new, X), {}


def _spectral(name: str) -> Built:
    import torch
    import torchdr

    from gt_calls import Method

    X = _data()
    if name == "PCA":
        return Method(torchdr.PCA(n_components=2), "fit_transform"), (X,), {}
    if name == "PCA.three_components":
        return Method(torchdr.PCA(n_components=3, distributed=False), "fit_transform"), (X,), {}
    if name == "PCA.transform":
        pca = torchdr.PCA(n_components=2)
        pca.fit(X)
        return Method(pca, "transform"), (_data(NEW, seed=5),), {}
    if name.startswith("KernelPCA"):
        if name == "KernelPCA":
            gaussian = torchdr.NormalizedGaussianAffinity(sigma=4.0, zero_diag=False)  # a PSD kernel
            return Method(torchdr.KernelPCA(gaussian, n_components=2), "fit_transform"), (X,), {}
        return Method(torchdr.KernelPCA(torchdr.NormalizedStudentAffinity(zero_diag=False), n_components=2,
                                        nodiag=True),
                      "fit_transform"), (X,), {}
    if name == "IncrementalPCA":
        return Method(torchdr.IncrementalPCA(n_components=2, batch_size=16), "fit_transform"), (X,), {}
    if name == "IncrementalPCA.lowrank":
        return Method(torchdr.IncrementalPCA(n_components=2, batch_size=20, lowrank=True, lowrank_q=4,
                                             random_state=0), "fit_transform"), (X,), {}
    if name == "IncrementalPCA.partial_fit":
        ipca = torchdr.IncrementalPCA(n_components=2)
        ipca.partial_fit(_data(12, seed=7))
        return _run(ipca, lambda owner, batch: owner.partial_fit(batch).components_,
                    [torchdr.IncrementalPCA.partial_fit]), (_data(12, seed=8),), {}
    if name == "IncrementalPCA.transform":
        ipca = torchdr.IncrementalPCA(n_components=2, batch_size=20)
        ipca.fit_transform(X)
        return Method(ipca, "transform"), (_data(NEW, seed=5),), {}
    exact = torchdr.ExactIncrementalPCA(n_components=2, distributed=False)
    batches = [X[:20], X[20:]]
    if name == "ExactIncrementalPCA":
        return _run(exact, lambda owner, a, b: owner.fit([a, b]).transform(torch.cat([a, b])),
                    [torchdr.ExactIncrementalPCA.fit, torchdr.ExactIncrementalPCA.transform]), tuple(batches), {}
    exact.fit(batches)
    return Method(exact, "transform"), (_data(NEW, seed=5),), {}


def _inputs(kind: str) -> tuple[Any, ...]:
    import torch

    gen = torch.Generator().manual_seed(3)
    X = _data()
    if kind == "X":
        return (X,)
    if kind == "XY":
        return X, _data(NEW, seed=5)
    if kind == "ball":
        return ((torch.rand(N, 2, generator=gen) - 0.5) * 0.8,)
    if kind in ("P", "logPQ", "logP", "Pone"):
        P = torch.softmax(torch.randn(N, N, generator=gen), dim=1)
        Q = torch.softmax(torch.randn(N, N, generator=gen), dim=1)
        return {"P": (P, Q), "logPQ": (P, Q.log()), "logP": (P.log(),), "Pone": (P,)}[kind]
    if kind == "A":
        return (torch.randn(N, 12, generator=gen),)
    if kind == "UV":
        u, _, v = torch.linalg.svd(X - X.mean(0), full_matrices=False)
        return u, v
    if kind == "K":
        return (torch.exp(-torch.cdist(X, X) / 4),)
    if kind == "sparse":
        from torchdr.distance import pairwise_distances

        values, indices = pairwise_distances(X, metric="sqeuclidean", k=5, exclude_diag=True, return_indices=True)
        return torch.exp(-values), indices
    if kind.startswith("labels"):
        weights = torch.rand(N, generator=gen) + 0.5
        if kind.endswith("weights"):  # equal clusters: its weighted path assumes them
            return X[:39], _labels()[:39], weights[:39]
        return X, _labels()
    return X, X[:, :2] + 0.1 * torch.randn(N, 2, generator=gen)


def _function(name: str) -> Built:
    import importlib

    from gt_calls import Call

    module, function, kind, static = FUNCTIONS[name]
    target = getattr(importlib.import_module(module), function)
    if kind != "root":
        return Call(target, **static), _inputs(kind), {}
    import torch

    def root(owner: Any, targets: Any) -> Any:
        """Per-row inverse temperatures whose Gibbs entropies reach ``targets``, as the entropic affinities do."""
        costs = torch.cdist(_data(8, seed=9), _data(8, seed=9)) ** 2

        def gap(eps: Any) -> Any:
            logits = -costs * eps[:, None]
            return -(logits.softmax(1) * logits.log_softmax(1)).sum(1) - targets

        return target(gap, targets.shape[0], begin=0.01, end=10.0, **static)

    return _run(torch.nn.Identity(), root, [target]), (torch.full((8,), 1.2),), {}


def _manifold(name: str) -> Built:
    import torch
    from torchdr.utils import ManifoldParameter, PoincareBallManifold, RiemannianAdam

    gen = torch.Generator().manual_seed(4)
    ball = PoincareBallManifold()
    c = 1.0
    p, q = (torch.rand(N, 2, generator=gen) - 0.5) * 0.8, (torch.rand(N, 2, generator=gen) - 0.5) * 0.8
    inputs = {"p": p, "q": q, "u": torch.randn(N, 2, generator=gen) * 0.3, "m": torch.randn(3, 2, generator=gen)}
    method, kinds = MANIFOLD[name]
    if method == "radam":
        point = ManifoldParameter(p.clone(), requires_grad=True, manifold=ball, c=c)
        holder = torch.nn.ParameterList([point])
        optimizer = RiemannianAdam(holder.parameters(), lr=0.01)

        def step(owner: Any, grad: Any) -> Any:
            owner[0].grad = grad.clone()
            optimizer.step()
            return owner[0]

        return _run(holder, step, [RiemannianAdam.step]), (inputs["u"],), {}
    if method == "expmap0_logmap0":
        return _run(torch.nn.Identity(), lambda owner, u: ball.logmap0(ball.expmap0(u, c), c),
                    [PoincareBallManifold.expmap0, PoincareBallManifold.logmap0]), (inputs["u"],), {}
    if method == "egrad2rgrad_proj":
        return _run(torch.nn.Identity(), lambda owner, x, u: ball.proj(x + ball.egrad2rgrad(x, u, c), c),
                    [PoincareBallManifold.egrad2rgrad, PoincareBallManifold.proj]), (p, inputs["u"]), {}
    bound = getattr(ball, method)
    return _run(torch.nn.Identity(), lambda owner, *a: bound(*a, c), [getattr(PoincareBallManifold, method)]), \
        tuple(inputs[k] for k in kinds), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in AFFINITIES:
        return _affinity(name)
    if name in EMBEDDINGS:
        return _embedding(name)
    if name in TRANSFORMS:
        return _transform(name)
    if name in SPECTRAL:
        return _spectral(name)
    if name in FUNCTIONS:
        return _function(name)
    return _manifold(name)
