"""Ground-truth bench, torchnmf: non-negative matrix factorisation and PLCA as PyTorch modules.

torchnmf holds the factors of a decomposition as the parameters of a module whose forward rebuilds the
data from them: ``torchnmf.nmf`` (``NMF``, a product; ``NMFD``, ``NMF2D``, ``NMF3D``, transposed
convolutions over 1 to 3 axes) with ``fit`` (multiplicative updates computed by two backward passes:
the beta divergence's ``beta``, ``alpha`` / ``l1_ratio`` regularisation, a fixed template, sparse targets)
and ``sparse_fit`` (projected gradient steps towards a target sparseness of ``W`` or ``H``);
``torchnmf.plca`` (``PLCA``, ``SIPLCA``, ``SIPLCA2``, ``SIPLCA3``) with its EM ``fit`` and Dirichlet priors
(``W_alpha``, ``H_alpha``, ``Z_alpha``); ``torchnmf.trainer``'s optimizers (``BetaMu``, multiplicative
updates driven by a closure returning target and reconstruction, and ``SparsityProj``); the divergences of
``torchnmf.metrics`` and the normalisers of ``torchnmf.utils``. The models are:

- ``FORWARD``: each module's forward from its own factors, from given activations or templates (how a
  fitted model transforms new data), with frozen templates and, for PLCA, a ``norm`` scale;
- ``FIT``: ``fit`` of each NMF module through ``gt_calls.Run`` (gradients enabled inside, as the updates
  need them) with the divergences ``beta`` = 2, 1, 0 and others (between 1 and 2, above 2, below 0), the
  regularisation mixes, a fixed template, a sparse target (``beta`` 2, 1 and another), and ten
  iterations (the convergence check every tenth); ``sparse_fit`` with a sparseness target on ``W``, on
  ``H``, on neither and on a sparse target; ``fit`` of each PLCA module with and without priors and with
  a fixed ``Z``;
- ``OPTIM``: ``BetaMu.step`` with each ``beta`` branch and its ``l1_reg`` / ``l2_reg`` / ``orthogonal``
  penalties, ``SparsityProj.step``, and an Adam step on ``beta_div`` of an ``NMF`` (``gt_calls.OptimizerStep``);
- ``METRICS``: ``kl_div``, ``euclidean``, ``is_div``, ``beta_div`` at each of its branches, ``sparseness``,
  ``utils.normalize`` and ``utils.renorm_``.

Tiny sizes (a 12x10 matrix, rank 2 to 3, kernels of 2 to 3) and 3 iterations unless a model needs 10.
Random non-negative data, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
ITERS = 3

# module -> (package, class, V shape, constructor keywords after Vshape).
SHAPES: dict[str, tuple[str, str, tuple[int, ...], dict[str, Any]]] = {
    "NMF": ("nmf", "NMF", (12, 10), {"rank": 3}),
    "NMFD": ("nmf", "NMFD", (1, 10, 16), {"rank": 3, "T": 3}),
    "NMF2D": ("nmf", "NMF2D", (1, 2, 10, 12), {"rank": 2, "kernel_size": (3, 3)}),
    "NMF3D": ("nmf", "NMF3D", (1, 2, 6, 6, 6), {"rank": 2, "kernel_size": 2}),
    "PLCA": ("plca", "PLCA", (12, 10), {"rank": 3}),
    "SIPLCA": ("plca", "SIPLCA", (1, 10, 16), {"rank": 3, "T": 3}),
    "SIPLCA2": ("plca", "SIPLCA2", (1, 2, 10, 12), {"rank": 2, "kernel_size": (3, 3)}),
    "SIPLCA3": ("plca", "SIPLCA3", (1, 2, 6, 6, 6), {"rank": 2, "kernel_size": 2}),
}
# forward name -> (module, what it is called with: "own", "H" (given activations), "W" (given templates),
# "frozen" (built from given tensors, W fixed), "norm" (PLCA's output scale)).
FORWARD: dict[str, tuple[str, str]] = {
    **{name: (name, "own") for name in SHAPES},
    "NMF.given_H": ("NMF", "H"),
    "NMF.given_W": ("NMF", "W"),
    "NMF.frozen_W": ("NMF", "frozen"),
    "NMFD.given_H": ("NMFD", "H"),
    "NMF2D.given_W": ("NMF2D", "W"),
    "PLCA.norm": ("PLCA", "norm"),
    "PLCA.given_H": ("PLCA", "H"),
    "SIPLCA2.norm": ("SIPLCA2", "norm"),
}
# fit name -> (module, method: "fit" or "sparse_fit", keywords, target: "dense" / "sparse", W fixed).
FIT: dict[str, tuple[str, str, dict[str, Any], str, bool]] = {
    "NMF.fit": ("NMF", "fit", {}, "dense", False),
    "NMF.fit.euclidean": ("NMF", "fit", {"beta": 2}, "dense", False),
    "NMF.fit.itakura_saito": ("NMF", "fit", {"beta": 0}, "dense", False),
    "NMF.fit.beta_1_5": ("NMF", "fit", {"beta": 1.5}, "dense", False),
    "NMF.fit.beta_3": ("NMF", "fit", {"beta": 3}, "dense", False),
    "NMF.fit.beta_negative": ("NMF", "fit", {"beta": -0.5}, "dense", False),
    "NMF.fit.l1": ("NMF", "fit", {"alpha": 0.1, "l1_ratio": 1.0}, "dense", False),
    "NMF.fit.l2": ("NMF", "fit", {"beta": 2, "alpha": 0.1}, "dense", False),
    "NMF.fit.elastic_net": ("NMF", "fit", {"beta": 0.5, "alpha": 0.1, "l1_ratio": 0.5}, "dense", False),
    "NMF.fit.fixed_W": ("NMF", "fit", {}, "dense", True),
    "NMF.fit.ten_iterations": ("NMF", "fit", {"max_iter": 10}, "dense", False),
    "NMF.fit.sparse_target": ("NMF", "fit", {"beta": 2}, "sparse", False),
    "NMF.fit.sparse_target.kl": ("NMF", "fit", {}, "sparse", False),
    "NMF.fit.sparse_target.beta_1_5": ("NMF", "fit", {"beta": 1.5}, "sparse", False),
    "NMFD.fit": ("NMFD", "fit", {}, "dense", False),
    "NMFD.fit.euclidean.l1": ("NMFD", "fit", {"beta": 2, "alpha": 0.1, "l1_ratio": 1.0}, "dense", False),
    "NMF2D.fit": ("NMF2D", "fit", {}, "dense", False),
    "NMF2D.fit.itakura_saito": ("NMF2D", "fit", {"beta": 0}, "dense", False),
    "NMF3D.fit": ("NMF3D", "fit", {"beta": 2}, "dense", False),
    "NMF.sparse_fit": ("NMF", "sparse_fit", {}, "dense", False),
    "NMF.sparse_fit.sW": ("NMF", "sparse_fit", {"sW": 0.5}, "dense", False),
    "NMF.sparse_fit.sH": ("NMF", "sparse_fit", {"sH": 0.5}, "dense", False),
    "NMF.sparse_fit.sW_sH.kl": ("NMF", "sparse_fit", {"beta": 1, "sW": 0.4, "sH": 0.6}, "dense", False),
    "NMF.sparse_fit.sparse_target": ("NMF", "sparse_fit", {"sH": 0.5}, "sparse", False),
    "NMFD.sparse_fit.sW": ("NMFD", "sparse_fit", {"sW": 0.5}, "dense", False),
    "PLCA.fit": ("PLCA", "fit", {}, "dense", False),
    "PLCA.fit.priors": ("PLCA", "fit", {"W_alpha": 1.1, "H_alpha": 0.9, "Z_alpha": 1.2}, "dense", False),
    "PLCA.fit.fixed_W": ("PLCA", "fit", {}, "dense", True),
    "PLCA.fit.ten_iterations": ("PLCA", "fit", {"max_iter": 10}, "dense", False),
    "SIPLCA.fit": ("SIPLCA", "fit", {}, "dense", False),
    "SIPLCA.fit.priors": ("SIPLCA", "fit", {"W_alpha": 0.9, "H_alpha": 1.1}, "dense", False),
    "SIPLCA2.fit": ("SIPLCA2", "fit", {}, "dense", False),
    "SIPLCA3.fit": ("SIPLCA3", "fit", {}, "dense", False),
}
FIXED_Z = ("PLCA.fit.fixed_Z",)
# ``BetaMu`` name -> keywords.
BETA_MU: dict[str, dict[str, Any]] = {
    "BetaMu.step": {},
    "BetaMu.step.euclidean": {"beta": 2},
    "BetaMu.step.itakura_saito": {"beta": 0},
    "BetaMu.step.beta_1_5.penalties": {"beta": 1.5, "l1_reg": 0.1, "l2_reg": 0.1, "orthogonal": 0.1},
    "BetaMu.step.beta_3": {"beta": 3},
    "BetaMu.step.fixed_W": {},
}
OPTIM = ("SparsityProj.step", "adam_step.beta_div")
# metric name -> (function, keywords, inputs: "pair" or "one").
METRICS: dict[str, tuple[str, dict[str, Any], str]] = {
    "metrics.kl_div": ("metrics.kl_div", {}, "pair"),
    "metrics.euclidean": ("metrics.euclidean", {}, "pair"),
    "metrics.is_div": ("metrics.is_div", {}, "pair"),
    "metrics.beta_div": ("metrics.beta_div", {}, "pair"),
    "metrics.beta_div.kl": ("metrics.beta_div", {"beta": 1}, "pair"),
    "metrics.beta_div.is": ("metrics.beta_div", {"beta": 0}, "pair"),
    "metrics.beta_div.beta_1_5": ("metrics.beta_div", {"beta": 1.5}, "pair"),
    "metrics.beta_div.beta_negative": ("metrics.beta_div", {"beta": -1}, "pair"),
    "metrics.sparseness": ("metrics.sparseness", {}, "one"),
    "utils.normalize": ("utils.normalize", {"axis": 1}, "one"),
    "utils.renorm_": ("utils.renorm_", {"dim": 1}, "one"),
}


def names() -> list[str]:
    return list(FORWARD) + list(FIT) + list(FIXED_Z) + list(BETA_MU) + list(OPTIM) + list(METRICS)


def _target(shape: tuple[int, ...], seed: int = 1, zeros: bool = False) -> Any:
    """Non-negative data; with ``zeros``, about half its entries are zero (a sparse target)."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    v = torch.rand(*shape, generator=gen) + 0.05
    if zeros:
        v = v * (torch.rand(*shape, generator=gen) > 0.5)
    return v


def _module(key: str, fixed_w: bool = False, fixed_z: bool = False) -> Any:
    import importlib

    import torch

    package, cls, shape, keywords = SHAPES[key]
    module_cls = getattr(importlib.import_module(f"torchnmf.{package}"), cls)
    if not (fixed_w or fixed_z):
        return module_cls(shape, **keywords)
    built = module_cls(shape, **keywords)
    given: dict[str, Any] = {"W": built.W.detach().clone(), "H": built.H.detach().clone(),
                             "trainable_W": not fixed_w}
    if package == "plca":
        given["Z"] = torch.full((built.rank,), 1.0 / built.rank)
        given["trainable_Z"] = not fixed_z
    return module_cls(**given)


def _forward(name: str) -> Built:
    from gt_calls import Run

    key, how = FORWARD[name]
    module = _module(key, fixed_w=how == "frozen")
    factor = (module.H if how == "H" else module.W).detach()
    given = (factor * 1.1).clone()
    if how == "H":
        return Run(module, lambda owner, h: owner(H=h), [type(module)]), (given,), {}
    if how == "W":
        return Run(module, lambda owner, w: owner(W=w), [type(module)]), (given,), {}
    if how == "norm":
        return Run(module, lambda owner: owner(norm=3.5), [type(module)]), (), {}
    return module, (), {}


def _fit(name: str) -> Built:
    import torch

    from gt_calls import Run

    if name in FIT:
        key, method, keywords, target, fixed_w = FIT[name]
        module = _module(key, fixed_w=fixed_w)
    else:
        key, method, keywords, target = "PLCA", "fit", {}, "dense"
        module = _module(key, fixed_z=True)
    keywords = {"max_iter": ITERS, **keywords}
    v = _target(SHAPES[key][2], zeros=target == "sparse")
    if target == "sparse":
        v = v.to_sparse()

    def fit(owner: Any, v_: Any) -> Any:
        """The decomposition's updates (gradients on whatever the mode), then its reconstruction."""
        with torch.enable_grad():
            getattr(owner, method)(v_, **keywords)
        return owner()

    return Run(module, fit, [getattr(type(module), method)]), (v,), {}


def _optim(name: str) -> Built:
    import torch
    from torchnmf.metrics import beta_div
    from torchnmf.trainer import BetaMu, SparsityProj

    from gt_calls import OptimizerStep, Run

    fixed_w = name == "BetaMu.step.fixed_W"
    module = _module("NMF", fixed_w=fixed_w)
    v = _target(SHAPES["NMF"][2])
    if name in BETA_MU:
        optimizer = BetaMu(module.parameters(), **BETA_MU[name])

        def multiplicative(owner: Any, v_: Any) -> Any:
            optimizer.step(lambda: (v_, owner()))
            return owner()

        return Run(module, multiplicative, [BetaMu.step]), (v,), {}
    if name == "SparsityProj.step":
        projected = SparsityProj([module.W], sparsity=0.5, dim=1, max_iter=3)

        def project(owner: Any, v_: Any) -> Any:
            projected.zero_grad()
            return projected.step(lambda: beta_div(owner(), v_, 2))

        return Run(module, project, [SparsityProj.step]), (v,), {}
    with torch.no_grad():
        module.W.clamp_(min=0.01)
    return OptimizerStep(module, torch.optim.Adam(module.parameters(), lr=1e-2),
                         loss=lambda v_: beta_div(module(), v_, 1)), (v,), {}


def _metric(name: str) -> Built:
    import importlib

    from gt_calls import Call

    path, keywords, inputs = METRICS[name]
    package, function = path.split(".")
    target = _target((6, 8))
    args = (_target((6, 8), seed=2), target) if inputs == "pair" else (target,)
    return Call(getattr(importlib.import_module(f"torchnmf.{package}"), function), **keywords), args, {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in FORWARD:
        return _forward(name)
    if name in FIT or name in FIXED_Z:
        return _fit(name)
    if name in BETA_MU or name in OPTIM:
        return _optim(name)
    return _metric(name)
