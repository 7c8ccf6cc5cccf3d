"""Ground-truth bench, linear_operator: GPyTorch's structured matrices, their algebra and their iterative solvers.

linear_operator represents a matrix by its structure (a diagonal, a Kronecker product, a low-rank root plus
a diagonal, a Toeplitz column, interpolation weights around a smaller matrix, ...) and dispatches each
operation (``matmul``, ``solve``, ``inv_quad_logdet``, ``root_decomposition``, ``__getitem__``, ...) to the
structure's own method, falling back to dense Cholesky factorisations for small matrices and to iterative
methods (conjugate gradients, Lanczos, stochastic Lanczos quadrature, MINRES with contour integral quadrature)
above ``settings.max_cholesky_size``. Users build the operators inside their model's forward (a covariance
from features, as GPyTorch kernels do) and call the operations there, so each model here is a bench module
(``_OperatorModel``) whose forward builds one operator from a feature tensor ``x`` (scaled by a learnable
lengthscale, so that the train-mode call carries gradients into the library's ``autograd.Function``\\ s), applies
one operation to it and a right-hand side, optionally under ``settings`` context managers. The tables:

- ``MODELS``: operator x operation pairs, picked so that each operator's own overrides run. Dense operators
  take the base class's generic code (matmul, solve with and without a left-hand side, inv_quad_logdet, root
  decompositions (default, symeig) and inverse roots, cholesky, add_diagonal, add_low_rank, cat_rows,
  sqrt_inv_matmul, indexing by index tensors, transpose, permute, expand, repeat, unsqueeze / squeeze). The
  structured ones: diagonal (exp / sqrt / log / inverse / abs) and constant diagonal, Kronecker products (plain
  and plus a diagonal), sums, added diagonals, low-rank roots plus a diagonal (Woodbury), Cholesky and
  triangular factors, Toeplitz, interpolated, kernel operators (a covariance function evaluated lazily), block
  diagonal, matmul, identity, masked and permutation operators, on single and batched matrices;
- the settings keys of ``MODELS`` (``_settings``): the context managers that change the code path, wrapped
  around the call: ``max_cholesky_size(0)`` (conjugate gradients for solves, stochastic Lanczos quadrature for
  log determinants, Lanczos root decompositions under ``max_root_decomposition_size`` and
  ``fast_computations``), with a pivoted-Cholesky preconditioner (``min_preconditioning_size`` /
  ``max_preconditioner_size``) and with ``ciq_samples`` (contour integral quadrature for ``sqrt_inv_matmul``,
  ``num_contour_quadrature``, ``max_lanczos_quadrature_iterations``);
- ``FUNCTIONS``: the functional ``pivoted_cholesky`` (with pivots and an error tolerance) and the utilities
  users call directly: ``linear_cg``, ``minres`` (shifted), ``lanczos_tridiag`` and ``lanczos_tridiag_to_diag``,
  ``contour_integral_quad`` and ``psd_safe_cholesky`` on a singular matrix that needs jitter.

Sizes are tiny: 8 x 8 matrices (Kronecker factors of 2 and 4, blocks of 4) from 3 features, batches of 2,
right-hand sides of 2 columns. Random inputs, nothing downloaded. ``names()`` needs no torch; ``build`` runs in
a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, D, K, BATCH = 8, 3, 2, 2

# Model name -> (operator, operation, settings key or "", batched). Operators are built by ``_operator`` and
# operations applied by ``_operation`` inside the compiled forward; settings keys are entered by ``_settings``.
MODELS: dict[str, tuple[str, str, str, bool]] = {
    # dense matrices: the base class's generic code
    "Dense.matmul": ("dense", "matmul", "", False),
    "Dense.solve": ("dense", "solve", "", False),
    "Dense.solve.lhs": ("dense", "solve.lhs", "", False),
    "Dense.inv_quad_logdet": ("dense", "inv_quad_logdet", "", False),
    "Dense.root_decomposition": ("dense", "root_decomposition", "", False),
    "Dense.root_decomposition.symeig": ("dense", "root_decomposition.symeig", "", False),
    "Dense.root_inv_decomposition": ("dense", "root_inv_decomposition", "", False),
    "Dense.cholesky": ("dense", "cholesky", "", False),
    "Dense.add_diagonal": ("dense", "add_diagonal", "", False),
    "Dense.add_low_rank": ("dense", "add_low_rank", "", False),
    "Dense.cat_rows": ("dense", "cat_rows", "", False),
    "Dense.sqrt_inv_matmul": ("dense", "sqrt_inv_matmul", "", False),
    "Dense.getitem.tensor": ("dense", "getitem.tensor", "", True),
    "Dense.shape_ops": ("dense", "shape_ops", "", True),
    # iterative paths and other settings
    "Dense.solve.cg": ("dense", "solve", "cg", False),
    "Dense.inv_quad_logdet.slq": ("dense", "inv_quad_logdet", "cg", False),
    "Dense.root_decomposition.lanczos": ("dense", "root_decomposition", "lanczos", False),
    "Dense.sqrt_inv_matmul.ciq": ("dense", "sqrt_inv_matmul", "ciq", False),
    # diagonal operators
    "Diag.elementwise": ("diag", "elementwise", "", False),
    "ConstantDiag.solve": ("const_diag", "solve", "", True),
    # Kronecker structure
    "KroneckerProduct.matmul": ("kronecker", "matmul", "", True),
    "KroneckerProduct.inv_quad_logdet": ("kronecker", "inv_quad_logdet", "", False),
    "KroneckerProductAddedDiag.inv_quad_logdet": ("kronecker_added_diag", "inv_quad_logdet", "", False),
    # sums and added diagonals
    "Sum.matmul": ("sum", "matmul", "", True),
    "AddedDiag.inv_quad_logdet.cg.preconditioner": ("added_diag", "inv_quad_logdet", "cg.preconditioner", True),
    "LowRankRootAddedDiag.solve": ("low_rank_root_added_diag", "solve", "", False),
    # factors
    "Chol.inv_quad_logdet": ("chol", "inv_quad_logdet", "", True),
    "Triangular.solve_triangular_logdet": ("triangular", "triangular", "", False),
    # structured kernels
    "Toeplitz.matmul": ("toeplitz", "matmul", "", False),
    "Interpolated.matmul": ("interpolated", "matmul", "", False),
    "Kernel.matmul": ("kernel", "matmul", "", False),
    # blocks and concatenation
    "BlockDiag.inv_quad_logdet": ("block_diag", "inv_quad_logdet", "", True),
    "Matmul.matmul_diagonal": ("matmul", "matmul", "", True),
    # special operators
    "Identity.solve_logdet": ("identity", "inv_quad_logdet", "", False),
    "Masked.matmul_diagonal": ("masked", "matmul", "", False),
    "Permutation.matmul": ("permutation", "permutation", "", False),
}

# Functional interface and utilities: name -> what the forward calls (see ``_function``).
FUNCTIONS = (
    "utils.linear_cg", "utils.lanczos_tridiag", "utils.minres.shifts",
    "utils.psd_safe_cholesky.singular", "functional.pivoted_cholesky.pivots", "utils.contour_integral_quad",
)


# What each model enters, for ``entry_points``: the operator's class and the ``LinearOperator`` method called.
OPERATOR_CLASS = {
    "dense": "DenseLinearOperator", "diag": "DiagLinearOperator", "const_diag": "ConstantDiagLinearOperator",
    "kronecker": "KroneckerProductLinearOperator", "kronecker_added_diag": "KroneckerProductAddedDiagLinearOperator",
    "sum": "SumLinearOperator", "added_diag": "AddedDiagLinearOperator",
    "low_rank_root_added_diag": "LowRankRootAddedDiagLinearOperator", "chol": "CholLinearOperator",
    "triangular": "TriangularLinearOperator", "toeplitz": "ToeplitzLinearOperator",
    "interpolated": "InterpolatedLinearOperator", "kernel": "KernelLinearOperator",
    "block_diag": "BlockDiagLinearOperator", "matmul": "MatmulLinearOperator", "identity": "IdentityLinearOperator",
    "masked": "MaskedLinearOperator", "permutation": "PermutationLinearOperator",
}
OPERATION_METHOD = {
    "getitem": "__getitem__", "shape_ops": "transpose", "elementwise": "exp", "triangular": "solve_triangular",
    "permutation": "matmul",
}
FUNCTION_MODULE = {"lanczos_tridiag": "lanczos", "psd_safe_cholesky": "cholesky"}


# The iterative utilities write into ``out=`` buffers, which autograd refuses: the library calls them inside its
# ``autograd.Function``\ s' forwards, and users on detached matrices, as here.
DETACHED = ("utils.linear_cg", "utils.minres.shifts")


def names() -> list[str]:
    return list(MODELS) + list(FUNCTIONS)


def _rbf(x1: Any, x2: Any, lengthscale: Any) -> Any:
    """A covariance function for ``KernelLinearOperator`` (it closes over no parameter, as the library asks)."""
    import torch

    return torch.exp(-0.5 * torch.cdist(x1 / lengthscale, x2 / lengthscale).pow(2))


def _psd(x: Any) -> Any:
    """A positive definite covariance from features: an RBF Gram matrix plus a small diagonal."""
    import torch

    eye = torch.eye(x.size(-2), dtype=x.dtype, device=x.device)
    return torch.exp(-0.5 * torch.cdist(x, x).pow(2)) + 0.1 * eye


def _operator(kind: str, x: Any) -> Any:
    import torch
    import torch.nn.functional as F
    from linear_operator import operators as O

    def dense(rows: Any) -> Any:
        return O.DenseLinearOperator(_psd(rows))

    def diag(rows: Any) -> Any:
        return O.DiagLinearOperator(F.softplus(rows[..., 0]) + 0.1)

    def tril(rows: Any) -> Any:
        return O.TriangularLinearOperator(torch.linalg.cholesky(_psd(rows)))

    batch = x.shape[:-2]
    if kind == "dense":
        return dense(x)
    if kind == "diag":
        return diag(x)
    if kind == "const_diag":
        return O.ConstantDiagLinearOperator(F.softplus(x[..., :1, 0]) + 0.1, diag_shape=N)
    if kind == "kronecker":
        return O.KroneckerProductLinearOperator(dense(x[..., :2, :]), dense(x[..., 2:6, :]))
    if kind == "kronecker_added_diag":
        kron = O.KroneckerProductLinearOperator(dense(x[..., :2, :]), dense(x[..., 2:6, :]))
        return O.KroneckerProductAddedDiagLinearOperator(kron, diag(x))
    if kind == "sum":
        return O.SumLinearOperator(dense(x), O.RootLinearOperator(x))
    if kind == "added_diag":
        return O.AddedDiagLinearOperator(O.DenseLinearOperator(x @ x.mT), diag(x))
    if kind == "low_rank_root_added_diag":
        return O.LowRankRootAddedDiagLinearOperator(O.LowRankRootLinearOperator(x), diag(x))
    if kind == "chol":
        return O.CholLinearOperator(tril(x))
    if kind == "triangular":
        return tril(x)
    if kind == "toeplitz":
        lags = torch.arange(N, dtype=x.dtype, device=x.device)
        column = torch.exp(-lags.pow(2) * (F.softplus(x[..., :1, 0]) + 0.1)) + 0.05 * (lags == 0)
        return O.ToeplitzLinearOperator(column)
    if kind == "interpolated":
        idx = torch.stack([torch.arange(N) // 2, (torch.arange(N) // 2 + 1) % 4], -1).expand(*batch, N, 2)
        weights = torch.softmax(x[..., :2], -1)
        return O.InterpolatedLinearOperator(dense(x[..., :4, :]), idx, weights, idx, weights)
    if kind == "kernel":
        return O.KernelLinearOperator(x, x, covar_func=_rbf, lengthscale=torch.ones(*batch, 1, 1) * 1.5)
    if kind == "block_diag":
        return O.BlockDiagLinearOperator(dense(x.reshape(*batch, 2, 4, D)))
    if kind == "matmul":
        return O.MatmulLinearOperator(x, x.mT)
    if kind == "identity":
        return O.IdentityLinearOperator(N, batch_shape=batch, dtype=x.dtype, device=x.device)
    if kind == "masked":
        mask = torch.tensor([True, False, True, True, False, True, True, True])
        return O.MaskedLinearOperator(dense(x), mask, mask)
    if kind == "permutation":
        return O.PermutationLinearOperator(torch.tensor([3, 0, 7, 1, 6, 2, 5, 4]))
    raise KeyError(kind)


def _operation(name: str, A: Any, x: Any, rhs: Any) -> Any:
    """Apply operation ``name`` to operator ``A``; ``rhs`` is cut to ``A``'s size (masked operators are smaller)."""
    import torch
    import torch.nn.functional as F

    n = A.size(-1)
    rhs = rhs[..., :n, :]
    if name == "matmul":
        out = A @ rhs
        return out + A.diagonal().unsqueeze(-1) if A.size(-1) == A.size(-2) else out
    if name == "solve":
        return A.solve(rhs)
    if name == "solve.lhs":
        return A.solve(rhs, rhs.mT)
    if name == "inv_quad_logdet":
        return A.inv_quad_logdet(rhs, logdet=True)
    if name.startswith("root_decomposition"):
        method = name.split(".")[1] if "." in name else None
        return A.root_decomposition(method=method).root.to_dense()
    if name.startswith("root_inv_decomposition"):
        method = name.split(".")[1] if "." in name else None
        return A.root_inv_decomposition(method=method).root.to_dense()
    if name == "cholesky":
        return A.cholesky().to_dense()
    if name == "add_diagonal":
        return A.add_diagonal(F.softplus(x[..., 1]) + 0.1).solve(rhs)
    if name == "add_low_rank":
        return A.add_low_rank(x[..., :2]).solve(rhs)
    if name == "cat_rows":
        cross = torch.exp(-x[..., :2, :] @ x.mT)
        return A.cat_rows(cross, torch.eye(2) * 1.5).to_dense()
    if name == "sqrt_inv_matmul":
        return A.sqrt_inv_matmul(rhs, lhs=rhs.mT)
    if name == "getitem.tensor":
        rows, cols = torch.tensor([0, 2, 5]), torch.tensor([1, 2, 7])
        return A[..., rows, cols], A[..., rows, :].to_dense(), A.diagonal()
    if name == "shape_ops":
        return (A.mT @ rhs, A.transpose(-1, -2).to_dense(), A.unsqueeze(0).permute(1, 0, 2, 3).to_dense(),
                A.expand(3, *A.shape[-3:]).matmul(rhs), A.repeat(2, 1, 1).diagonal(), A.unsqueeze(0).squeeze(0) @ rhs)
    if name == "elementwise":
        return A.exp().diagonal(), A.sqrt() @ rhs, A.inverse().diagonal(), A.log().diagonal(), A.abs().to_dense()
    if name == "triangular":
        return A.solve_triangular(rhs, upper=False), A.logdet(), A.inverse().to_dense()
    if name == "permutation":
        return A @ rhs, A.mT @ rhs, A.to_dense()
    raise KeyError(name)


def _settings(key: str) -> list[Any]:
    from linear_operator import settings as S

    cg = [S.max_cholesky_size(0)]
    table: dict[str, list[Any]] = {
        "": [],
        "cg": cg,
        "cg.preconditioner": cg + [S.min_preconditioning_size(4), S.max_preconditioner_size(3)],
        "lanczos": cg + [S.max_root_decomposition_size(5), S.fast_computations(covar_root_decomposition=True)],
        "ciq": cg + [S.ciq_samples(True), S.num_contour_quadrature(4), S.max_lanczos_quadrature_iterations(6)],
    }
    return table[key]


def _operator_model(kind: str, operation: str, key: str) -> Any:
    import contextlib

    import torch
    from torch import nn

    class _OperatorModel(nn.Module):
        """Build the operator from the (rescaled) features, apply the operation under the settings."""

        def __init__(self) -> None:
            super().__init__()
            self.lengthscale = nn.Parameter(torch.tensor(1.2))

        def forward(self, x: torch.Tensor, rhs: torch.Tensor) -> Any:
            with contextlib.ExitStack() as stack:
                for context in _settings(key):
                    stack.enter_context(context)
                A = _operator(kind, x / self.lengthscale)
                return _operation(operation, A, x, rhs)

        def entry_points(self) -> list[Any]:
            from linear_operator import operators as O

            method = OPERATION_METHOD.get(operation.split(".")[0], operation.split(".")[0])
            return [getattr(O, OPERATOR_CLASS[kind]), getattr(O.LinearOperator, method)]

    return _OperatorModel()


def _function(name: str, x: Any, rhs: Any) -> Any:
    """The functional interface and the utilities, on a covariance built from ``x``."""
    import linear_operator as LO
    import torch
    from linear_operator import utils as U
    from linear_operator.operators import DenseLinearOperator
    from linear_operator.utils import cholesky, lanczos

    cov = _psd(x)
    if name in DETACHED:
        cov = cov.detach()
    if name == "functional.pivoted_cholesky.pivots":
        return LO.pivoted_cholesky(cov, rank=5, error_tol=1e-3, return_pivots=True)

    def closure(v: torch.Tensor) -> torch.Tensor:
        return cov @ v

    if name == "utils.linear_cg":
        return U.linear_cg(closure, rhs, max_iter=10, max_tridiag_iter=10, tolerance=1e-4)
    if name == "utils.minres.shifts":
        return U.minres(closure, rhs, shifts=torch.tensor([0.0, 0.5, 1.0]), value=-1.0, max_iter=8)
    if name == "utils.lanczos_tridiag":
        q, t = lanczos.lanczos_tridiag(closure, 6, dtype=x.dtype, device=x.device, matrix_shape=cov.shape,
                                       init_vecs=rhs, num_init_vecs=K)
        evals, evecs = lanczos.lanczos_tridiag_to_diag(t)
        return q, evals, evecs
    if name == "utils.contour_integral_quad":
        return U.contour_integral_quad(DenseLinearOperator(cov), rhs, inverse=True,
                                       max_lanczos_iter=6, num_contour_quadrature=4)
    if name == "utils.psd_safe_cholesky.singular":
        return cholesky.psd_safe_cholesky(x @ x.mT, max_tries=4)
    raise KeyError(name)


def _function_model(name: str) -> Any:
    import torch
    from torch import nn

    class _FunctionModel(nn.Module):
        """A call of the functional interface or a utility on a covariance from the (rescaled) features."""

        def __init__(self) -> None:
            super().__init__()
            self.lengthscale = nn.Parameter(torch.tensor(1.2))

        def forward(self, x: torch.Tensor, rhs: torch.Tensor) -> Any:
            return _function(name, x / self.lengthscale, rhs)

        def entry_points(self) -> list[Any]:
            import importlib

            attribute = name.split(".")[1]
            module = "linear_operator" if name.startswith("functional.") else "linear_operator.utils"
            if attribute in FUNCTION_MODULE:
                module += "." + FUNCTION_MODULE[attribute]
            return [getattr(importlib.import_module(module), attribute)]

    return _FunctionModel()


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    batched = MODELS[name][3] if name in MODELS else False
    shape = (BATCH,) if batched else ()
    x = torch.randn(*shape, N, D, generator=gen)
    rhs = torch.randn(*shape, N, K, generator=gen)
    if name in MODELS:
        kind, operation, key, _ = MODELS[name]
        return _operator_model(kind, operation, key), (x, rhs), {}
    return _function_model(name), (x, rhs), {}
