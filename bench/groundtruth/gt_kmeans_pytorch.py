"""Ground-truth bench, kmeans_pytorch (kmeans-pytorch): Lloyd's k-means in plain torch functions.

kmeans-pytorch has four public functions: ``kmeans`` (initial centres drawn with NumPy from the data, then
assignments by the nearest centre and centre means until the centres move less than ``tol``, with a tqdm
meter), ``kmeans_predict`` (the nearest centre of new points), and the pairwise distance functions
``pairwise_distance`` (squared Euclidean) and ``pairwise_cosine``, plus ``initialize``. Each model is a
function compiled under a module's interface (``gt_calls.Call``) or a short pipeline (``gt_calls.Run``):

- ``kmeans`` with the Euclidean and the cosine distance, a loose ``tol`` (one iteration), two clusters,
  integer and float64 data (the conversion to float), an explicit device;
- ``kmeans_predict`` with both distances and float64 data;
- ``pairwise_distance`` / ``pairwise_cosine`` (several centres, and one centre, where the result is squeezed
  to a vector) and ``initialize``;
- fit-then-predict pipelines: ``kmeans`` on the data then ``kmeans_predict`` on new points, with each distance.

The data are tiny (three well separated blobs of four points in 2-D, so every centre keeps its points and the
loop ends after a few iterations); NumPy's generator is seeded at build time. Every model is compiled in eval
and in train mode. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Model -> (function, data: "blobs", "int", "double", "blobs+centres", "blobs+centre", "blobs+new";
# fixed keywords).
MODELS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "kmeans.euclidean": ("kmeans", "blobs", {"num_clusters": 3}),
    "kmeans.cosine": ("kmeans", "blobs", {"num_clusters": 3, "distance": "cosine"}),
    "kmeans.loose_tol": ("kmeans", "blobs", {"num_clusters": 3, "tol": 1e3}),
    "kmeans.two_clusters.tol": ("kmeans", "blobs", {"num_clusters": 2, "tol": 1e-2}),
    "kmeans.int_data": ("kmeans", "int", {"num_clusters": 3}),
    "kmeans.double_data.cosine": ("kmeans", "double", {"num_clusters": 3, "distance": "cosine"}),
    "kmeans.device": ("kmeans", "blobs", {"num_clusters": 3, "device": "cpu"}),
    "kmeans_predict.euclidean": ("kmeans_predict", "blobs+centres", {}),
    "kmeans_predict.cosine": ("kmeans_predict", "blobs+centres", {"distance": "cosine"}),
    "kmeans_predict.double_data": ("kmeans_predict", "double+centres", {}),
    "pairwise_distance": ("pairwise_distance", "blobs+centres", {}),
    "pairwise_distance.one_centre": ("pairwise_distance", "blobs+centre", {}),
    "pairwise_cosine": ("pairwise_cosine", "blobs+centres", {}),
    "pairwise_cosine.one_centre": ("pairwise_cosine", "blobs+centre", {}),
    "initialize": ("initialize", "blobs", {"num_clusters": 3}),
    "fit_predict.euclidean": ("pipeline", "blobs+new", {}),
    "fit_predict.cosine": ("pipeline", "blobs+new", {"distance": "cosine"}),
}


def names() -> list[str]:
    return list(MODELS)


def _blobs(seed: int = 1) -> Any:
    """Three blobs of four points around (0, 4), (4, 0) and (-4, -4)."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    centres = torch.tensor([[0.0, 4.0], [4.0, 0.0], [-4.0, -4.0]])
    return (centres[:, None] + 0.3 * torch.randn(3, 4, 2, generator=gen)).reshape(12, 2)


def build(name: str) -> Built:
    import numpy as np
    import torch

    import kmeans_pytorch
    from gt_calls import Call, Run

    torch.manual_seed(0)
    np.random.seed(0)
    function, data, keywords = MODELS[name]
    x = _blobs()
    centres = x[[0, 4, 8]].clone() + 0.1
    if data.startswith("int"):
        x = (x * 10).round().long()
    elif data.startswith("double"):
        x = x.double()
    if "device" in keywords:
        keywords = {**keywords, "device": torch.device(keywords["device"])}
    if function != "pipeline":
        inputs: tuple[Any, ...] = {"centres": (x, centres), "centre": (x, centres[:1]), "new": (x, _blobs(2))}.get(
            data.partition("+")[2], (x,))
        return Call(getattr(kmeans_pytorch, function), **keywords), inputs, {}

    def fit_predict(owner: Any, points: Any, new_points: Any) -> Any:
        """Cluster the data, then assign new points to the centres found."""
        ids, found = kmeans_pytorch.kmeans(points, num_clusters=3, **keywords)
        return ids, kmeans_pytorch.kmeans_predict(new_points, found, **keywords)

    return Run(torch.nn.Identity(), fit_predict, [kmeans_pytorch.kmeans, kmeans_pytorch.kmeans_predict]), \
        (x, _blobs(2)), {}
