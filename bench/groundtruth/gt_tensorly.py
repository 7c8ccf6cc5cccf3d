"""Ground-truth bench, tensorly: tensor decompositions, tensor algebra and tensor regression on the PyTorch backend.

tensorly writes its algorithms once against a backend-neutral API (``tl.unfold``, ``tl.dot``, ``tl.svd``, ...)
that dispatches to the backend chosen with ``tl.set_backend``; here it is ``'pytorch'``, so every function
below runs on ``torch.Tensor`` and is compiled as a user would compile a call into the library
(``gt_calls.Call`` for a function, ``gt_calls.Method`` for a regressor's ``fit``). The tables cover, on
tensors of shape (4, 5, 6) or smaller and with ``n_iter_max`` of 2 (7 where line search needs it) so the
unrolled loops stay short:

- ``DECOMPOSITIONS``: CP by ALS (``parafac``) with the options that change its code: SVD and random
  initialisation, normalised factors, an L2 penalty, a sparse component, line search, orthogonalisation and
  a mask of missing values; non-negative CP by multiplicative updates (``non_negative_parafac``, plain and
  masked) and by HALS (``non_negative_parafac_hals``); sampled ALS (``randomised_parafac``); symmetric CP by
  power iteration; Tucker by HOOI (``tucker``, plain and masked; ``partial_tucker``), non-negative Tucker by
  multiplicative updates; tensor train (``tensor_train``, the matrix product state) and tensor ring by SVD
  (``tensor_ring``); PARAFAC2; robust tensor PCA;
- ``CONVERSIONS``: the factorised forms back to full tensors and their algebra: CP (``cp_to_tensor``,
  ``cp_norm``, ``cp_normalize``, ``cp_mode_dot`` on a ``CPTensor``), Tucker (``tucker_to_tensor``,
  ``tucker_mode_dot``), TT (``tt_to_tensor``), TT-matrix (``tt_matrix_to_tensor``), TR (``tr_to_tensor``)
  and PARAFAC2 (``parafac2_to_tensor``);
- ``TENALG``: ``khatri_rao`` (plain, weighted with a skipped matrix), ``kronecker``, ``mode_dot``,
  ``multi_mode_dot`` (all modes; skipped and transposed), ``inner`` over some modes, ``outer``,
  ``unfolding_dot_khatri_rao`` (the MTTKRP), and some of these products under the ``einsum`` tenalg
  backend; ``svd_interface`` with a non-negative, sign-flipped SVD; the proximal operators (soft
  thresholding, simplex, unimodality) and the NNLS solvers (``hals_nnls``, ``fista``, ``active_set_nnls``);
- ``BASE``: ``unfold`` / ``fold`` and ``partial_unfold`` / ``partial_fold``;
- ``METRICS``: ``MSE``, ``congruence_coefficient``, ``correlation_index``, the von Neumann entropies (of a
  matrix, of a CP and of a TT tensor);
- ``REGRESSION``: ``CPRegressor`` and ``TuckerRegressor`` fitted on tiny tensor samples, ``CP_PLSR`` fitted.

Random weights and data, nothing downloaded. ``names()`` needs neither torch nor tensorly; ``build`` sets
the backends (``pytorch``, and the ``core`` or ``einsum`` tenalg backend) in the worker.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
SHAPE = (4, 5, 6)
RANK = 2
ITER = 2

# Model name -> (module, function, input kind, fixed keywords). Input kinds are built by ``_inputs``.
DECOMPOSITIONS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "parafac": ("tensorly.decomposition", "parafac", "dense", {"rank": RANK, "n_iter_max": ITER}),
    "parafac.init_random": ("tensorly.decomposition", "parafac", "dense",
                            {"rank": RANK, "n_iter_max": ITER, "init": "random", "random_state": 0}),
    "parafac.normalize_factors": ("tensorly.decomposition", "parafac", "dense",
                                  {"rank": RANK, "n_iter_max": ITER, "normalize_factors": True}),
    "parafac.l2_reg": ("tensorly.decomposition", "parafac", "dense", {"rank": RANK, "n_iter_max": ITER, "l2_reg": 0.1}),
    "parafac.sparsity": ("tensorly.decomposition", "parafac", "dense",
                         {"rank": RANK, "n_iter_max": ITER, "sparsity": 0.1}),
    "parafac.linesearch": ("tensorly.decomposition", "parafac", "dense",
                           {"rank": RANK, "n_iter_max": 7, "linesearch": True}),
    "parafac.orthogonalise": ("tensorly.decomposition", "parafac", "dense",
                              {"rank": RANK, "n_iter_max": ITER, "orthogonalise": True}),
    "parafac.mask": ("tensorly.decomposition", "parafac", "dense", {"rank": RANK, "n_iter_max": ITER, "mask": "mask"}),
    "non_negative_parafac": ("tensorly.decomposition", "non_negative_parafac", "positive",
                             {"rank": RANK, "n_iter_max": ITER}),
    "non_negative_parafac.mask": ("tensorly.decomposition", "non_negative_parafac", "positive",
                                  {"rank": RANK, "n_iter_max": ITER, "mask": "mask"}),
    "non_negative_parafac_hals": ("tensorly.decomposition", "non_negative_parafac_hals", "positive",
                                  {"rank": RANK, "n_iter_max": ITER}),
    "randomised_parafac": ("tensorly.decomposition", "randomised_parafac", "dense",
                           {"rank": RANK, "n_samples": 8, "n_iter_max": ITER, "random_state": 0}),
    "symmetric_parafac_power_iteration": ("tensorly.decomposition", "symmetric_parafac_power_iteration", "symmetric",
                                          {"rank": RANK, "n_repeat": 2, "n_iteration": ITER}),
    "tucker": ("tensorly.decomposition", "tucker", "dense", {"rank": [2, 3, 3], "n_iter_max": ITER}),
    "tucker.mask": ("tensorly.decomposition", "tucker", "dense",
                    {"rank": [2, 3, 3], "n_iter_max": ITER, "mask": "mask"}),
    "partial_tucker": ("tensorly.decomposition", "partial_tucker", "dense",
                       {"rank": [3, 3], "modes": [1, 2], "n_iter_max": ITER}),
    "non_negative_tucker": ("tensorly.decomposition", "non_negative_tucker", "positive",
                            {"rank": [2, 3, 3], "n_iter_max": ITER, "return_errors": True}),
    "tensor_train": ("tensorly.decomposition", "tensor_train", "dense", {"rank": [1, 2, 2, 1]}),
    "tensor_ring": ("tensorly.decomposition", "tensor_ring", "dense", {"rank": [2, 2, 2, 2]}),
    "parafac2": ("tensorly.decomposition", "parafac2", "slices",
                 {"rank": RANK, "n_iter_max": ITER, "n_iter_parafac": 2, "random_state": 0}),
    "robust_pca": ("tensorly.decomposition", "robust_pca", "dense", {"n_iter_max": ITER, "verbose": 0}),
}
# Model name -> (module, function, input kind, fixed keywords).
CONVERSIONS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "cp_to_tensor": ("tensorly", "cp_to_tensor", "cp", {}),
    "cp_norm": ("tensorly", "cp_norm", "cp", {}),
    "cp_normalize": ("tensorly", "cp_normalize", "cp", {}),
    "cp_mode_dot.vector": ("tensorly", "cp_mode_dot", "cp_tensor+vector", {"mode": 1, "copy": True}),
    "tucker_to_tensor": ("tensorly", "tucker_to_tensor", "tucker", {}),
    "tucker_mode_dot": ("tensorly", "tucker_mode_dot", "tucker+matrix", {"mode": 1, "copy": True}),
    "tt_to_tensor": ("tensorly", "tt_to_tensor", "tt", {}),
    "tt_matrix_to_tensor": ("tensorly", "tt_matrix_to_tensor", "tt_matrix", {}),
    "tr_to_tensor": ("tensorly", "tr_to_tensor", "tr", {}),
    "parafac2_to_tensor": ("tensorly.parafac2_tensor", "parafac2_to_tensor", "parafac2", {}),
}
# Model name -> (module, function, input kind, fixed keywords, tenalg backend).
TENALG: dict[str, tuple[str, str, str, dict[str, Any], str]] = {
    "khatri_rao": ("tensorly.tenalg", "khatri_rao", "matrices", {}, "core"),
    "khatri_rao.weights.skip": ("tensorly.tenalg", "khatri_rao", "matrices", {"skip_matrix": 1}, "core"),
    "kronecker": ("tensorly.tenalg", "kronecker", "matrices", {}, "core"),
    "mode_dot": ("tensorly.tenalg", "mode_dot", "dense+matrix", {"mode": 1}, "core"),
    "multi_mode_dot": ("tensorly.tenalg", "multi_mode_dot", "dense+matrices_new", {}, "core"),
    "multi_mode_dot.skip.transpose": ("tensorly.tenalg", "multi_mode_dot", "dense+matrices_t",
                                      {"skip": 1, "transpose": True}, "core"),
    "inner.n_modes": ("tensorly.tenalg", "inner", "dense+tail", {"n_modes": 2}, "core"),
    "outer": ("tensorly.tenalg", "outer", "vectors", {}, "core"),
    "unfolding_dot_khatri_rao": ("tensorly.tenalg", "unfolding_dot_khatri_rao", "dense+cp", {"mode": 1}, "core"),
    "einsum.khatri_rao": ("tensorly.tenalg", "khatri_rao", "matrices", {}, "einsum"),
    "einsum.multi_mode_dot": ("tensorly.tenalg", "multi_mode_dot", "dense+matrices_new", {}, "einsum"),
    "svd_interface.non_negative.flip": ("tensorly.tenalg.svd", "svd_interface", "positive_matrix",
                                        {"n_eigenvecs": 3, "non_negative": True, "flip_sign": True}, "core"),
    "soft_thresholding": ("tensorly.tenalg.proximal", "soft_thresholding", "matrix", {"threshold": 0.3}, "core"),
    "simplex_prox": ("tensorly.tenalg.proximal", "simplex_prox", "matrix", {"parameter": 1.0}, "core"),
    "unimodality_prox": ("tensorly.tenalg.proximal", "unimodality_prox", "matrix", {}, "core"),
    "hals_nnls": ("tensorly.solvers.nnls", "hals_nnls", "nnls", {"n_iter_max": ITER}, "core"),
    "fista": ("tensorly.solvers.nnls", "fista", "nnls", {"n_iter_max": ITER, "sparsity_coef": 0.1}, "core"),
    "active_set_nnls": ("tensorly.solvers.nnls", "active_set_nnls", "nnls_vector", {"n_iter_max": ITER}, "core"),
}
# Model name -> (module, function, input kind, fixed keywords).
BASE: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "unfold": ("tensorly", "unfold", "dense", {"mode": 1}),
    "fold": ("tensorly", "fold", "unfolded", {"mode": 1, "shape": SHAPE}),
    "partial_unfold": ("tensorly", "partial_unfold", "batched", {"mode": 1, "skip_begin": 1}),
    "partial_fold": ("tensorly", "partial_fold", "partial_unfolded", {"mode": 1, "shape": (3, *SHAPE),
                                                                      "skip_begin": 1}),
}
METRICS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "MSE": ("tensorly.metrics", "MSE", "dense+dense", {}),
    "congruence_coefficient": ("tensorly.metrics", "congruence_coefficient", "matrix+matrix", {}),
    "correlation_index": ("tensorly.metrics", "correlation_index", "factors+factors", {}),
    "vonneumann_entropy": ("tensorly.metrics", "vonneumann_entropy", "square", {}),
    "tt_vonneumann_entropy": ("tensorly.metrics", "tt_vonneumann_entropy", "tt_square", {}),
    "cp_vonneumann_entropy": ("tensorly.metrics", "cp_vonneumann_entropy", "cp_square", {}),
}
# Model name -> (class of ``tensorly.regression``, constructor keywords, method).
REGRESSION: dict[str, tuple[str, dict[str, Any], str]] = {
    "CPRegressor.fit": ("CPRegressor", {"weight_rank": 2, "n_iter_max": ITER, "verbose": 0}, "fit"),
    "TuckerRegressor.fit": ("TuckerRegressor", {"weight_ranks": [2, 2], "n_iter_max": ITER, "verbose": 0}, "fit"),
    "CP_PLSR.fit": ("CP_PLSR", {"n_components": 2, "n_iter_max": ITER}, "fit"),
}


def names() -> list[str]:
    return (list(DECOMPOSITIONS) + list(CONVERSIONS) + list(TENALG) + list(BASE) + list(METRICS)
            + list(REGRESSION))


def _inputs(kind: str) -> tuple[Any, ...]:
    """The positional inputs of a model, from its input kind (parts joined by ``+``)."""
    import torch

    gen = torch.Generator().manual_seed(0)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen)

    def cp(shape: tuple[int, ...] = SHAPE) -> tuple[torch.Tensor, list[torch.Tensor]]:
        return torch.rand(RANK, generator=gen) + 0.5, [randn(n, RANK) for n in shape]

    def one(part: str) -> tuple[Any, ...]:
        if part == "dense":
            return (randn(*SHAPE),)
        if part == "positive":
            return (torch.rand(*SHAPE, generator=gen),)
        if part == "mask":
            return ((torch.rand(*SHAPE, generator=gen) > 0.2).float(),)
        if part == "symmetric":
            v = randn(4, RANK)
            return (torch.einsum("ir,jr,kr->ijk", v, v, v),)
        if part == "matrix":
            return (randn(6, 5),)
        if part == "positive_matrix":
            return (torch.rand(6, 5, generator=gen),)
        if part == "square":
            a = randn(4, 4)
            return (a @ a.T / 4 + torch.eye(4) * 0.1,)
        if part == "matrix4":
            return (randn(2, 3, 2, 3),)
        if part == "coupled":
            return (randn(4, 3),)
        if part == "tail":
            return (randn(5, 6, 3),)
        if part == "cp_tensor":
            from tensorly.cp_tensor import CPTensor

            return (CPTensor(cp()),)
        if part == "vector":
            return (randn(5),)
        if part == "vec":
            return (randn(4 * 5 * 6),)
        if part == "vectors":
            return ([randn(3), randn(4), randn(2)],)
        if part == "matrices":
            return ([randn(3, RANK), randn(4, RANK), randn(2, RANK)],)
        if part == "matrices_new":
            return ([randn(3, 4), randn(2, 5), randn(3, 6)],)
        if part == "matrices_t":
            return ([randn(4, 3), randn(5, 2), randn(6, 3)],)
        if part == "batched_matrices":
            return ([randn(3, 4), randn(3, 2)],)
        if part == "unfolded":
            return (randn(5, 24),)
        if part == "batched":
            return (randn(3, *SHAPE),)
        if part == "partial_unfolded":
            return (randn(3, 5, 24),)
        if part == "slices":
            return ([randn(5, 6) for _ in range(4)],)
        if part == "positive_slices":
            return ([torch.rand(5, 6, generator=gen) for _ in range(4)],)
        if part == "cp":
            return (cp(),)
        if part == "cp_square":
            v = randn(4, RANK)
            return ((torch.tensor([0.6, 0.4]), [v / v.norm(dim=0), v / v.norm(dim=0)]),)
        if part == "factors":
            return ([randn(4, RANK), randn(5, RANK)],)
        if part == "tucker":
            return ((randn(2, 3, 3), [randn(4, 2), randn(5, 3), randn(6, 3)]),)
        if part == "tt":
            return ([randn(1, 4, 2), randn(2, 5, 2), randn(2, 6, 1)],)
        if part == "tt_square":
            return ([randn(1, 4, 2), randn(2, 4, 1)],)
        if part == "tt_matrix":
            return ([randn(1, 2, 3, 2), randn(2, 3, 2, 1)],)
        if part == "tr":
            return ([randn(2, 4, 2), randn(2, 5, 2), randn(2, 6, 2)],)
        if part == "parafac2":
            weights = torch.rand(RANK, generator=gen) + 0.5
            a, b, c = randn(4, RANK), randn(RANK, RANK), randn(6, RANK)
            projections = [torch.linalg.qr(randn(5, RANK))[0] for _ in range(4)]
            return ((weights, [a, b, c], projections),)
        if part == "nnls":
            u, m = torch.rand(8, 3, generator=gen), torch.rand(8, 5, generator=gen)
            return (u.T @ m, u.T @ u)
        if part == "nnls_vector":
            u, m = torch.rand(8, 3, generator=gen), torch.rand(8, generator=gen)
            return (u.T @ m, u.T @ u)
        raise KeyError(part)

    return tuple(t for part in kind.split("+") for t in one(part))


def _set_backends(tenalg: str = "core") -> None:
    import tensorly as tl

    tl.set_backend("pytorch")
    tl.tenalg.set_backend(tenalg)


def _call(module: str, function: str, kind: str, keywords: dict[str, Any]) -> Built:
    """``Call`` of ``module.function`` on the inputs of ``kind``; a ``"mask"`` keyword becomes a mask of missing
    values (a fixed keyword, as ``Call`` passes only positional inputs)."""
    import importlib

    import torch

    from gt_calls import Call

    if keywords.get("mask") == "mask":
        keywords = {**keywords, "mask": (torch.rand(*SHAPE, generator=torch.Generator().manual_seed(5)) > 0.2).float()}
    return Call(getattr(importlib.import_module(module), function), **keywords), _inputs(kind), {}


def _regression(name: str) -> Built:
    import tensorly.regression as regression
    import torch

    from gt_calls import Method

    cls, keywords, method = REGRESSION[name]
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(10, 4, 5, generator=gen)
    if cls == "CP_PLSR":
        y = torch.randn(10, 2, generator=gen)
    else:
        y = torch.randn(10, generator=gen)
    estimator = getattr(regression, cls)(**keywords)
    if method == "predict":
        estimator.fit(x, y)
        return Method(estimator, "predict"), (x,), {}
    return Method(estimator, "fit"), (x, y), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in TENALG:
        module, function, kind, keywords, backend = TENALG[name]
        _set_backends(backend)
        if name == "khatri_rao.weights.skip":
            keywords = {**keywords, "weights": torch.tensor([0.5, 2.0])}
        return _call(module, function, kind, keywords)
    _set_backends()
    for table in (DECOMPOSITIONS, CONVERSIONS, BASE, METRICS):
        if name in table:
            return _call(*table[name])
    return _regression(name)
