"""Ground-truth bench, torchist: NumPy-style histograms in torch, and metrics over histograms.

torchist is a set of functions, each benched as a model (``gt_calls.Call``, or this module's ``_Keyed`` where a
tensor goes in by keyword, such as ``weights`` or ``edges``), on small tensors (a few dozen samples, 2 or 3
dimensions, up to 16 bins). The families:

- ``histogram`` (one dimension) and ``histogramdd`` (several): the bounds taken from the data's min and max or
  given (one of them, both, a scalar or one per dimension), the samples outside filtered out or declared in
  bounds (``bound=True``), uniform bins (an int or one per dimension) or explicit ``edges`` (one tensor shared
  by every dimension, or a list), ``weights``, and ``sparse=True`` (a coalesced sparse COO histogram from
  ``torch.unique``); float64 and batched samples;
- ``histogram_edges`` and ``histogramdd_edges``: the uniform bin edges, from the data or from given bounds;
- ``ravel_multi_index`` and ``unravel_index``: flat indices from coordinate vectors and back;
- ``reduce_histogramdd``: one histogram over a list of sample chunks (bounds or edges, dense or sparse, with an
  output device);
- ``normalize`` and ``marginalize``: dense histograms given as inputs, sparse ones built in the same forward
  (``_Pipeline``: a user's histogram followed by the utility), a dimension, a list of them or ``keep=True``;
- the metrics (``torchist.metrics``): ``entropy``, ``kl_divergence`` (with its ``eps``), ``js_divergence``
  (with ``gamma``) over dense and sparse histograms, ``sinkhorn_transport`` (a short run, and one that meets
  its threshold and stops early) and ``em_distance`` over 1-d and 2-d histograms;
- pipelines a user writes: the entropy of a sample's normalized histogram, the KL divergence between two
  samples' histograms, and a learnable weighting histogrammed and scored against a target (``histogramdd`` is
  differentiable with respect to ``weights``), the loss returned.

``benchmark()`` (a timing script) is left out. Random inputs from fixed generators, nothing downloaded;
``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

N = 24  # samples
# Input specs (resolved in the worker): "x1" (N,) samples, "x2" (N, 2), "x3" (2, N // 2, 3) batched, "x1f64"
# float64, "w" (N,) positive weights, "e1" shared edges (9,), "e2" a list of two edge vectors, "xi" (N, 2)
# coordinates in a (4, 6) grid, "flat" flat indices in it, "chunks" a list of three (8, 2) sample chunks.
# Model name -> (function, input specs in the function's order or as "keyword=spec", static keywords).
HISTOGRAMS: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "histogram": ("histogram", ("x1",), {}),
    "histogram.bins_low_upp": ("histogram", ("x1",), {"bins": 16, "low": -1.0, "upp": 1.0}),
    "histogram.bound": ("histogram", ("x1",), {"bins": 8, "low": -4.0, "upp": 4.0, "bound": True}),
    "histogram.low_only": ("histogram", ("x1",), {"bins": 8, "low": -0.5}),
    "histogram.upp_only": ("histogram", ("x1",), {"bins": 8, "upp": 0.5}),
    "histogram.weights": ("histogram", ("x1", "weights=w"), {"bins": 8, "low": -1.0, "upp": 1.0}),
    "histogram.weights.bound": ("histogram", ("x1", "weights=w"), {"bins": 8, "low": -3.0, "upp": 3.0,
                                                                    "bound": True}),
    "histogram.edges": ("histogram", ("x1", "edges=e1"), {}),
    "histogram.edges.weights": ("histogram", ("x1", "edges=e1", "weights=w"), {}),
    "histogram.edges.bound": ("histogram", ("x1", "edges=e1"), {"bound": True}),
    "histogram.sparse": ("histogram", ("x1",), {"bins": 8, "low": -1.0, "upp": 1.0, "sparse": True}),
    "histogram.sparse.weights": ("histogram", ("x1", "weights=w"), {"bins": 8, "sparse": True}),
    "histogram.sparse.edges": ("histogram", ("x1", "edges=e1"), {"sparse": True}),
    "histogram.float64": ("histogram", ("x1f64",), {"bins": 8, "low": -1.0, "upp": 1.0}),
    "histogramdd": ("histogramdd", ("x2",), {}),
    "histogramdd.bins_per_dim": ("histogramdd", ("x2",), {"bins": [4, 6], "low": [-1.0, -2.0], "upp": [1.0, 2.0]}),
    "histogramdd.scalar_bounds": ("histogramdd", ("x2",), {"bins": 5, "low": -1.0, "upp": 1.0}),
    "histogramdd.bound": ("histogramdd", ("x2",), {"bins": 5, "low": -4.0, "upp": 4.0, "bound": True}),
    "histogramdd.weights": ("histogramdd", ("x2", "weights=w"), {"bins": [4, 6], "low": -1.0, "upp": 1.0}),
    "histogramdd.edges_list": ("histogramdd", ("x2", "edges=e2"), {}),
    "histogramdd.edges_tensor": ("histogramdd", ("x2", "edges=e1"), {}),
    "histogramdd.edges_tensor.weights.bound": ("histogramdd", ("x2", "edges=e1", "weights=w"), {"bound": True}),
    "histogramdd.sparse": ("histogramdd", ("x2",), {"bins": 6, "low": -1.0, "upp": 1.0, "sparse": True}),
    "histogramdd.sparse.weights": ("histogramdd", ("x2", "weights=w"), {"bins": [4, 6], "sparse": True}),
    "histogramdd.sparse.edges_tensor": ("histogramdd", ("x2", "edges=e1"), {"sparse": True}),
    "histogramdd.batched_3d": ("histogramdd", ("x3",), {"bins": [3, 4, 5], "low": -1.5, "upp": 1.5}),
    "histogram_edges": ("histogram_edges", ("x1",), {}),
    "histogram_edges.bounds": ("histogram_edges", ("x1",), {"bins": 16, "low": -1.0, "upp": 1.0}),
    "histogramdd_edges": ("histogramdd_edges", ("x2",), {}),
    "histogramdd_edges.bounds": ("histogramdd_edges", ("x2",), {"bins": 4, "low": [-1.0, -2.0], "upp": [1.0, 2.0]}),
    "histogramdd_edges.bins_per_dim": ("histogramdd_edges", ("x3",), {"bins": [3, 4, 5], "low": -1.0}),
    "ravel_multi_index": ("ravel_multi_index", ("xi",), {"shape": (4, 6)}),
    "unravel_index": ("unravel_index", ("flat",), {"shape": (4, 6)}),
    "reduce_histogramdd": ("reduce_histogramdd", ("chunks",), {"bins": 5, "low": -1.0, "upp": 1.0}),
    "reduce_histogramdd.edges": ("reduce_histogramdd", ("chunks", "edges=e2"), {}),
    "reduce_histogramdd.sparse": ("reduce_histogramdd", ("chunks",), {"bins": 4, "low": -1.0, "upp": 1.0,
                                                                      "sparse": True}),
    "reduce_histogramdd.device": ("reduce_histogramdd", ("chunks",), {"bins": 4, "low": -2.0, "upp": 2.0,
                                                                      "device": "cpu"}),
}
# Dense histograms as inputs: "h1" (8,), "h2" (4, 6), "h3" (3, 4, 5), "q1" and "q2" others of the same shapes
# (normalized, some bins empty), "m" a (8, 8) cost matrix.
UTILITIES: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "normalize": ("normalize", ("h2",), {}),
    "marginalize.int": ("marginalize", ("h3",), {"dim": 1}),
    "marginalize.list": ("marginalize", ("h3",), {"dim": [0, 2]}),
    "marginalize.keep": ("marginalize", ("h3",), {"dim": 1, "keep": True}),
    "marginalize.keep_all": ("marginalize", ("h2",), {"dim": [0, 1], "keep": True}),
    "metrics.entropy": ("entropy", ("h1",), {}),
    "metrics.kl_divergence": ("kl_divergence", ("h1", "q1"), {}),
    "metrics.kl_divergence.eps": ("kl_divergence", ("h2", "q2"), {"eps": 1e-6}),
    "metrics.js_divergence": ("js_divergence", ("h1", "q1"), {}),
    "metrics.js_divergence.gamma": ("js_divergence", ("h2", "q2"), {"gamma": 0.3, "eps": 1e-8}),
    "metrics.sinkhorn_transport": ("sinkhorn_transport", ("h1", "q1", "m"), {"max_iter": 12, "step": 4}),
    "metrics.sinkhorn_transport.early_stop": ("sinkhorn_transport", ("h1", "q1", "m"),
                                              {"gamma": 10.0, "max_iter": 30, "threshold": 1e-1, "step": 5}),
    "metrics.em_distance": ("em_distance", ("h1", "q1"), {"max_iter": 10, "step": 5}),
    "metrics.em_distance.2d": ("em_distance", ("h2", "q2"), {"gamma": 20.0, "max_iter": 10, "step": 5}),
}
# Pipelines over samples "x2" and "y2" (another (N, 2) sample): what each forward runs.
PIPELINES = (
    "sparse.normalize", "sparse.marginalize", "sparse.marginalize.keep", "sparse.entropy", "sparse.kl_divergence",
    "sparse.js_divergence", "pipeline.entropy_of_histogram", "pipeline.kl_between_samples",
    "train.weighted_histogram",
)
METRICS = ("entropy", "kl_divergence", "js_divergence", "sinkhorn_transport", "em_distance")


def names() -> list[str]:
    return list(HISTOGRAMS) + list(UTILITIES) + list(PIPELINES)


def _inputs() -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(1)

    def rand(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen)

    def histogram(*shape: int) -> torch.Tensor:
        h = torch.rand(*shape, generator=gen) * (torch.rand(*shape, generator=gen) > 0.2)
        return h / h.sum()

    x1 = rand(N)
    return {
        "x1": x1, "x2": rand(N, 2), "x3": rand(2, N // 2, 3), "x1f64": x1.double(),
        "w": torch.rand(N, generator=gen) + 0.1,
        "e1": torch.linspace(-1.0, 1.0, 9) ** 3,
        "e2": [torch.linspace(-1.0, 1.0, 5), torch.tensor([-2.0, -0.5, 0.0, 0.2, 1.0, 1.5, 2.0])],
        "xi": torch.stack([torch.randint(0, 4, (N,), generator=gen), torch.randint(0, 6, (N,), generator=gen)], -1),
        "flat": torch.randint(0, 24, (N,), generator=gen),
        "chunks": [rand(8, 2) for _ in range(3)],
        "y2": rand(N, 2) * 0.8 + 0.1,
        "h1": histogram(8), "h2": histogram(4, 6), "h3": histogram(3, 4, 5), "q1": histogram(8),
        "q2": histogram(4, 6),
        "m": torch.cdist(torch.arange(8.0)[:, None], torch.arange(8.0)[:, None]) / 8,
    }


def _keyed(function: Any, specs: tuple[str, ...], static: dict[str, Any], inputs: dict[str, Any]) -> Built:
    """``function`` with the specs' inputs: the leading plain specs positional, the ``keyword=spec`` ones by name."""
    from gt_calls import Call

    positional = [s for s in specs if "=" not in s]
    keywords = [tuple(s.split("=")) for s in specs if "=" in s]
    args = tuple(inputs[s] for s in positional) + tuple(inputs[spec] for _, spec in keywords)
    if not keywords:
        return Call(function, **static), args, {}

    class _Keyed(Call):
        """A library function whose trailing inputs go in by keyword (``weights``, ``edges``)."""

        def forward(self, *tensors: Any) -> Any:
            head = tensors[:len(positional)]
            named = {key: t for (key, _), t in zip(keywords, tensors[len(positional):])}
            return self.function(*head, **named, **self.static)

    return _Keyed(function, **static), args, {}


def _pipeline(name: str, inputs: dict[str, Any]) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torchist import histograms, metrics

    bounds = {"low": -1.5, "upp": 1.5}
    x, y = inputs["x2"], inputs["y2"]
    if name == "train.weighted_histogram":

        class _WeightedHistogram(nn.Module):
            """Learnable per-sample weights, histogrammed and matched to a target histogram."""

            def __init__(self) -> None:
                super().__init__()
                self.logits = nn.Parameter(torch.zeros(N))

            def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
                weights = self.logits.softmax(0)
                hist = histograms.histogramdd(x, bins=4, low=-1.5, upp=1.5, bound=True, weights=weights)
                return F.mse_loss(hist, target)

            def entry_points(self) -> list[Any]:
                return [histograms.histogramdd]

        target = histograms.histogramdd(y, bins=4, **bounds, bound=True).float()
        return _WeightedHistogram(), (x.clamp(-1.5, 1.5), target / target.sum()), {}
    sparse = name.startswith("sparse.")
    step = name.split(".", 1)[1]

    def run(_: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
        p, _norm = histograms.normalize(histograms.histogramdd(x, bins=4, sparse=sparse, **bounds).double())
        if step == "normalize":
            return p
        if step.startswith("marginalize"):
            return histograms.marginalize(p, dim=0, keep=step.endswith("keep"))
        if step in ("entropy", "entropy_of_histogram"):
            return metrics.entropy(p)
        q, _norm = histograms.normalize(histograms.histogramdd(y, bins=4, sparse=sparse, **bounds).double())
        if step == "js_divergence":
            return metrics.js_divergence(p, q)
        return metrics.kl_divergence(p, q)

    entries = {"normalize": [histograms.normalize], "marginalize": [histograms.marginalize],
               "marginalize.keep": [histograms.marginalize], "entropy": [metrics.entropy],
               "js_divergence": [metrics.js_divergence]}.get(step, [metrics.kl_divergence])
    if step in ("entropy_of_histogram", "kl_between_samples"):
        entries = [histograms.histogramdd, histograms.normalize,
                   metrics.entropy if step == "entropy_of_histogram" else metrics.kl_divergence]
    from gt_calls import Run

    return Run(None, run, entries), (x, y), {}


def build(name: str) -> Built:
    import warnings

    import torch
    from torchist import histograms, metrics

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    inputs = _inputs()
    if name in HISTOGRAMS:
        function, specs, static = HISTOGRAMS[name]
        return _keyed(getattr(histograms, function), specs, static, inputs)
    if name in UTILITIES:
        function, specs, static = UTILITIES[name]
        module = metrics if function in METRICS else histograms
        return _keyed(getattr(module, function), specs, static, inputs)
    return _pipeline(name, inputs)
