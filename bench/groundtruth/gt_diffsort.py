"""Ground-truth bench, diffsort: differentiable sorting networks and the ranking losses built on them.

diffsort 0.2.0 builds a sorting network as a list of layers of four 0/1 matrices (``odd_even_network``,
``bitonic_network``, whose comparators over missing top wires become half identities when the size is
not a power of two), made tensors by ``get_sorting_network``. ``DiffSortNet`` holds one and its forward
calls ``sort`` (``execute_sort``): at each layer the pairs are split by matrix products and swapped
softly by a distribution of the difference: ``logistic``, ``logistic_phi`` (scaled by a power
``art_lambda`` of the gap), ``gaussian`` (``NormalCDF``, an autograd function with its own backward),
``reciprocal``, ``cauchy`` (the default), ``optimal`` (``s_best``); half inputs are swapped in float32.
It returns the sorted values and the relaxed permutation matrix. So the tables cover, on batches of 2:

- ``SORT``: ``DiffSortNet`` for both network types and all six distributions at size 8, non-powers of two
  (bitonic at 6, odd-even at 5 and 7), a larger network (16), other steepness and ``art_lambda``, the
  deprecated ``interpolation_type`` keyword, float64 and float16 inputs;
- ``FUNCTIONAL``: ``sort`` called on a network from ``get_sorting_network``, and the network builders
  themselves (``get_sorting_network``, ``bitonic_network``, ``odd_even_network``) called in the compiled
  code;
- ``LOSSES``: what users train with the permutation matrix: binary cross-entropy against the true
  permutation (one-hot of the ``argsort`` of the ground truth, as the paper's ranking supervision),
  with a small scorer (an MLP over per-item features) and the gradient step, and a regression loss on
  the sorted values.

Random inputs, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
DISTRIBUTIONS = ("logistic", "logistic_phi", "gaussian", "reciprocal", "cauchy", "optimal")

# ``DiffSortNet`` name -> (network type, size, keywords, input dtype name).
SORT: dict[str, tuple[str, int, dict[str, Any], str]] = {
    **{f"DiffSortNet.{net}.{dist}": (net, 8, {"distribution": dist}, "float32")
       for net in ("odd_even", "bitonic") for dist in DISTRIBUTIONS},
    "DiffSortNet.bitonic.size6": ("bitonic", 6, {}, "float32"),
    "DiffSortNet.bitonic.size6.logistic_phi": ("bitonic", 6, {"distribution": "logistic_phi"}, "float32"),
    "DiffSortNet.odd_even.size5": ("odd_even", 5, {}, "float32"),
    "DiffSortNet.odd_even.size7.gaussian": ("odd_even", 7, {"distribution": "gaussian"}, "float32"),
    "DiffSortNet.bitonic.size16": ("bitonic", 16, {"steepness": 25.0}, "float32"),
    "DiffSortNet.odd_even.steepness.art_lambda": ("odd_even", 8, {"distribution": "logistic_phi", "steepness": 4.0,
                                                                  "art_lambda": 0.5}, "float32"),
    "DiffSortNet.interpolation_type": ("odd_even", 8, {"interpolation_type": "logistic", "distribution": None},
                                       "float32"),
    "DiffSortNet.float64": ("bitonic", 8, {"distribution": "reciprocal"}, "float64"),
    "DiffSortNet.float16": ("odd_even", 4, {"distribution": "logistic"}, "float16"),
    "DiffSortNet.float16.logistic_phi": ("bitonic", 4, {"distribution": "logistic_phi"}, "float16"),
}
# Functional name -> (network type, size, keywords of ``sort`` or of the builder).
FUNCTIONAL: dict[str, tuple[str, int, dict[str, Any]]] = {
    "sort.odd_even": ("odd_even", 6, {"steepness": 8.0, "distribution": "cauchy"}),
    "sort.bitonic.optimal": ("bitonic", 8, {"distribution": "optimal"}),
    "get_sorting_network.bitonic": ("bitonic", 6, {}),
    "get_sorting_network.odd_even": ("odd_even", 5, {}),
    "bitonic_network": ("bitonic", 8, {}),
    "odd_even_network": ("odd_even", 6, {}),
}
# Loss name -> (network type, size, ``DiffSortNet`` keywords, loss: "bce", "bce.scorer", "train", "mse").
LOSSES: dict[str, tuple[str, int, dict[str, Any], str]] = {
    "loss.bce.odd_even": ("odd_even", 6, {"steepness": 10.0}, "bce"),
    "loss.bce.bitonic.logistic_phi": ("bitonic", 8, {"distribution": "logistic_phi", "steepness": 15.0}, "bce"),
    "loss.bce.scorer.gaussian": ("bitonic", 8, {"distribution": "gaussian"}, "bce.scorer"),
    "loss.mse.sorted_values": ("odd_even", 6, {"distribution": "reciprocal"}, "mse"),
    "train_step.scorer.bce": ("odd_even", 5, {"distribution": "logistic"}, "train"),
    "train_step.scorer.bitonic.optimal": ("bitonic", 8, {"distribution": "optimal"}, "train"),
}
FEATURES = 4


def names() -> list[str]:
    return list(SORT) + list(FUNCTIONAL) + list(LOSSES)


def _values(size: int, dtype: str = "float32", seed: int = 1) -> Any:
    import torch

    return torch.randn(BATCH, size, generator=torch.Generator().manual_seed(seed)).to(getattr(torch, dtype))


def _functional(name: str) -> Built:
    import diffsort
    import torch
    from diffsort import networks

    from gt_calls import Call, Run

    net, size, keywords = FUNCTIONAL[name]
    if name.startswith("sort."):
        network = diffsort.get_sorting_network(net, size, "cpu")

        def sort(owner: Any, vectors: Any) -> Any:
            return diffsort.sort(network, vectors, **keywords)

        return Run(torch.nn.Identity(), sort, [diffsort.sort]), (_values(size),), {}
    if name.startswith("get_sorting_network"):
        return Call(networks.get_sorting_network), (net, size, "cpu"), {}
    return Call(getattr(networks, name)), (size,), {}


def _loss(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from diffsort import DiffSortNet
    from torch import nn

    from gt_calls import Run

    net, size, keywords, kind = LOSSES[name]
    sorter = DiffSortNet(net, size, **keywords)
    gen = torch.Generator().manual_seed(2)
    truth = torch.randn(BATCH, size, generator=gen)
    if kind == "mse":
        def sorted_mse(owner: Any, scores: Any, truth_: Any) -> Any:
            """The softly sorted scores regressed onto the sorted ground truth."""
            sorted_scores, _ = owner(scores)
            return F.mse_loss(sorted_scores, truth_.sort(dim=-1).values)

        return Run(sorter, sorted_mse, [DiffSortNet]), (_values(size), truth), {}

    def permutation_bce(sorter_: Any, scores: Any, truth_: Any) -> Any:
        """Binary cross-entropy between the relaxed and the true permutation matrices."""
        _, permutation = sorter_(scores)
        target = F.one_hot(torch.argsort(truth_, dim=-1), size).transpose(-2, -1).float()
        return F.binary_cross_entropy(permutation.clamp(1e-6, 1 - 1e-6), target)

    if kind == "bce":
        return Run(sorter, permutation_bce, [DiffSortNet]), (_values(size), truth), {}
    scorer = nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(scorer.parameters(), lr=0.01) if kind == "train" else None

    def scored(owner: Any, items: Any, truth_: Any) -> Any:
        """A scorer ranks items by their features; trained through the sorting network."""
        loss = permutation_bce(owner.sorter, owner.scorer(items).squeeze(-1), truth_)
        if optimizer is not None and torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    holder = nn.Module()
    holder.sorter = sorter
    holder.scorer = scorer
    items = torch.randn(BATCH, size, FEATURES, generator=gen)
    return Run(holder, scored, [DiffSortNet]), (items, truth), {}


def build(name: str) -> Built:
    import torch
    from diffsort import DiffSortNet

    torch.manual_seed(0)
    if name in SORT:
        net, size, keywords, dtype = SORT[name]
        return DiffSortNet(net, size, **keywords), (_values(size, dtype),), {}
    if name in FUNCTIONAL:
        return _functional(name)
    return _loss(name)
