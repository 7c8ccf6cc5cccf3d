"""Ground-truth bench, tntorch: tensor networks (tensor train, Tucker, CP) on PyTorch.

tntorch's ``Tensor`` is a plain object (not a module) that holds the cores of a compressed tensor: TT cores,
optionally with Tucker factors, or CP factor matrices, with a batched variant. Users build it from a dense
tensor (TT-SVD or TT-EIG, Tucker by HOSVD, CP by ALS, ``eps`` rounding) or from their own cores, combine
them with arithmetic, contract them (``dot``, norms, statistics), index them, round and orthogonalise them,
differentiate them, approximate functions with cross approximation, and optimise cores by gradient
descent. Each model is a ``gt_calls.Run`` whose forward rebuilds the ``tn.Tensor`` objects inside the
compiled call from plain tensors (the dense data, or the cores and factors), runs one operation and
returns dense tensors (``.torch()``) or scalars. The families (``OPS``, by the kind of input) are:

- construction from a dense 4x5x6 tensor: TT (SVD and EIG), Tucker, TT-Tucker, CP by ALS (from HOSVD or
  on a Tucker core), ``eps``-driven ranks, no compression, batched TT and CP; decompression (``torch()``)
  of TT, Tucker, CP and batched cores given as inputs;
- arithmetic: sums, differences, element-wise products of TT, Tucker and CP tensors, scalars on either
  side, negation, scalar division, batched sums, and the cross-approximated operations (``tn.exp``,
  ``tn.mul``, division of two tensors);
- metrics (``tntorch.metrics``): ``norm``, ``normsq``, ``dot`` (TT with TT, with Tucker, with a partial
  contraction ``k``), ``dist``, ``relative_error``, ``rmse``, ``r_squared``, ``sum`` (all and along a
  dimension), ``mean``, ``var``, ``std`` and the ``Tensor`` methods of the same (``skew`` and ``kurtosis`` raise a
  ``NameError`` in ``Tensor.__pow__`` even without compiling, so they are left out);
- indexing: integers, slices, ellipsis, ``None``, a batch of points as an index tensor, Tucker slices;
- rounding and structure: ``round_tt`` (by ``eps`` and by ``rmax``), ``round_tucker``, ``tn.round``,
  ``orthogonalize`` / ``left_orthogonalize`` / ``right_orthogonalize``, ``tucker_core``,
  ``decompress_tucker_factors``, CP to TT (``tt()``), ``clone``, ``repeat``, ``numel`` / ``numcoef``;
- tools (``tntorch.tools``) and ops: ``unsqueeze`` / ``squeeze``, ``cat``, ``transpose``, ``flip``,
  ``unbind``, ``ttm``, ``pad``, ``cumsum``, ``meshgrid``, ``reduce``; derivatives (``partial`` with
  higher order and periodic boundaries, ``gradient``, ``laplacian``); creation (``rand``, ``randn``,
  ``ones``, ``arange``); ANOVA (``anova_decomposition``, ``sobol``, ``mean_dimension``);
- cross approximation (``tn.cross`` of a function on a grid, with fixed and adaptive ranks and a
  ``matrix`` argument; of tensors; ``minimum`` / ``maximum``);
- optimisation: a loss on trainable cores (relative error to a dense target) and an Adam step on it
  (``gt_calls.OptimizerStep``, backward inside the step), ``tn.optimize`` for two iterations, ``tn.dof``;
- ``tntorch.matrix``: ``TTMatrix`` and ``CPMatrix`` of a 16x16 matrix (``torch()``, ``trace``), their
  products with a batch of vectors (``tt_multiply``, ``cp_multiply``).

Tiny shapes (4x5x6, ranks 2 to 3, CP-ALS and cross approximation with two or three iterations). Random
data, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
SHAPE = (4, 5, 6)
RANK = 3
CROSS = {"max_iter": 2, "verbose": False, "val_size": 50, "suppress_warnings": True}

# How many plain tensors make each kind of input, rebuilt into a ``tn.Tensor`` inside the compiled call.
ARITY = {"dense": 1, "dense_batch": 1, "tt": 3, "tucker": 6, "cp": 3, "tt_batch": 3, "points": 1, "vectors": 1,
         "matrix": 1, "none": 0}


# Operations, each ``f(tn, torch, *inputs)`` where an input is a ``tn.Tensor`` (kinds "tt", "tucker", "cp",
# "tt_batch") or a plain tensor (the other kinds). Module-level functions, so that ``names()`` imports nothing.
def _cp_als(tn: Any, torch: Any, x: Any) -> Any:
    return tn.Tensor(x, ranks_cp=RANK, max_iter=3)


def _cp_tucker(tn: Any, torch: Any, x: Any) -> Any:
    return tn.Tensor(x, ranks_cp=2, ranks_tucker=2, max_iter=3)


def _index_points(tn: Any, torch: Any, t: Any, points: Any) -> Any:
    return t[points]


def _round_tt_rmax(tn: Any, torch: Any, t: Any) -> Any:
    t = t.clone()
    t.round_tt(rmax=2)
    return t


def _round_tt_eps(tn: Any, torch: Any, t: Any) -> Any:
    t = t.clone()
    t.round_tt(eps=1e-1)
    return t


def _round_tucker(tn: Any, torch: Any, t: Any) -> Any:
    t = t.clone()
    t.round_tucker(rmax=2)
    return t


def _orthogonalize(method: str, mu: int) -> Callable[..., Any]:
    def run(tn: Any, torch: Any, t: Any) -> Any:
        t = t.clone()
        getattr(t, method)(mu)
        return t

    return run


def _decompress(tn: Any, torch: Any, t: Any) -> Any:
    t = t.clone()
    t.decompress_tucker_factors()
    return t


def _cross_grid(tn: Any, torch: Any, x: Any) -> Any:
    domain = [x[:4], x[:5], x[:6]]
    return tn.cross(function=lambda a, b, c: torch.exp(-(a ** 2)) * b + c, domain=domain, ranks_tt=2, **CROSS)


def _cross_adaptive(tn: Any, torch: Any, x: Any) -> Any:
    domain = [x[:4], x[:5], x[:6]]
    return tn.cross(function=lambda a, b, c: torch.sin(a + b) + c, domain=domain, kickrank=1, rmax=3, **CROSS)


def _cross_matrix(tn: Any, torch: Any, x: Any) -> Any:
    domain = [x[:4], x[:5], x[:6]]
    return tn.cross(function=lambda m: (m ** 2).sum(dim=1), domain=domain, function_arg="matrix", ranks_tt=2, **CROSS)


def _cross_tensors(tn: Any, torch: Any, t1: Any, t2: Any) -> Any:
    return tn.cross(function=lambda a, b: a * torch.tanh(b), tensors=[t1, t2], ranks_tt=2, **CROSS)


def _unsqueeze_squeeze(tn: Any, torch: Any, t: Any) -> Any:
    u = tn.unsqueeze(t, 1)
    return u.torch(), tn.squeeze(u).torch()


def _unbind(tn: Any, torch: Any, t: Any) -> Any:
    return [part.torch() for part in tn.unbind(t, 0)]


def _ttm(tn: Any, torch: Any, t: Any) -> Any:
    return tn.ttm(t, torch.ones(3, SHAPE[1]) / SHAPE[1], dim=1)


def _reduce(tn: Any, torch: Any, t1: Any, t2: Any) -> Any:
    return tn.reduce([t1, t2, t1], function=lambda a, b: a + b, rmax=4)


def _meshgrid(tn: Any, torch: Any, x: Any) -> Any:
    return [m.torch() for m in tn.meshgrid([x[:4], x[:5], x[:6]])]


def _sobol(tn: Any, torch: Any, t: Any) -> Any:
    return tn.sobol(t, tn.symbols(t.dim())[0])


def _mean_dimension(tn: Any, torch: Any, t: Any) -> Any:
    return tn.mean_dimension(t)


def _loss(tn: Any, torch: Any, t: Any, x: Any) -> Any:
    return tn.relative_error(tn.Tensor(x), t) ** 2


def _optimize(tn: Any, torch: Any, x: Any) -> Any:
    gen = torch.Generator().manual_seed(4)
    t = tn.Tensor([torch.randn(1, 4, 2, generator=gen), torch.randn(2, 5, 2, generator=gen),
                   torch.randn(2, 6, 1, generator=gen)], requires_grad=True)
    with torch.enable_grad():
        tn.optimize(t, lambda t_: tn.relative_error(tn.Tensor(x), t_) ** 2, max_iter=2, verbose=False)
    return t


def _dof(tn: Any, torch: Any, t: Any) -> Any:
    return tn.dof(t) * t.norm()


def _tt_matrix(tn: Any, torch: Any, m: Any) -> Any:
    return tn.TTMatrix(m, ranks=[3], input_dims=[4, 4], output_dims=[4, 4]).torch()


def _tt_matrix_trace(tn: Any, torch: Any, m: Any) -> Any:
    return tn.TTMatrix(m, ranks=[3], input_dims=[4, 4], output_dims=[4, 4]).trace()


def _tt_multiply(tn: Any, torch: Any, m: Any) -> Any:
    return tn.tt_multiply(tn.TTMatrix(m, ranks=[3], input_dims=[4, 4], output_dims=[4, 4]), m[:2])


def _cp_matrix(tn: Any, torch: Any, m: Any) -> Any:
    return tn.CPMatrix(m, rank=3, input_dims=[4, 4], output_dims=[4, 4]).torch()


def _cp_multiply(tn: Any, torch: Any, m: Any) -> Any:
    return tn.cp_multiply(tn.CPMatrix(m, rank=3, input_dims=[4, 4], output_dims=[4, 4]), m[:2])


# name -> (input kinds, operation, entry points as attribute paths in ``tntorch``).
OPS: dict[str, tuple[tuple[str, ...], Callable[..., Any], tuple[str, ...]]] = {
    # construction and decompression
    "Tensor.tt": (("dense",), lambda tn, torch, x: tn.Tensor(x, ranks_tt=RANK), ("Tensor",)),
    "Tensor.tt.eig": (("dense",), lambda tn, torch, x: tn.Tensor(x, ranks_tt=RANK, algorithm="eig"), ("Tensor",)),
    "Tensor.tucker": (("dense",), lambda tn, torch, x: tn.Tensor(x, ranks_tucker=2), ("Tensor",)),
    "Tensor.tt_tucker": (("dense",), lambda tn, torch, x: tn.Tensor(x, ranks_tt=2, ranks_tucker=3), ("Tensor",)),
    "Tensor.cp": (("dense",), _cp_als, ("Tensor",)),
    "Tensor.cp_tucker": (("dense",), _cp_tucker, ("Tensor",)),
    "Tensor.eps": (("dense",), lambda tn, torch, x: tn.Tensor(x, eps=1e-1), ("Tensor",)),
    "Tensor.full_rank": (("dense",), lambda tn, torch, x: tn.Tensor(x), ("Tensor",)),
    "Tensor.batch.tt": (("dense_batch",), lambda tn, torch, x: tn.Tensor(x, ranks_tt=2, batch=True), ("Tensor",)),
    "Tensor.batch.cp": (("dense_batch",), lambda tn, torch, x: tn.Tensor(x, ranks_cp=2, max_iter=2, batch=True),
                        ("Tensor",)),
    "torch.tt": (("tt",), lambda tn, torch, t: t, ("Tensor.torch",)),
    "torch.tucker": (("tucker",), lambda tn, torch, t: t, ("Tensor.torch",)),
    "torch.cp": (("cp",), lambda tn, torch, t: t, ("Tensor.torch",)),
    "torch.batch": (("tt_batch",), lambda tn, torch, t: t, ("Tensor.torch",)),
    # arithmetic
    "add.tt": (("tt", "tt"), lambda tn, torch, a, b: a + b, ("Tensor.__add__",)),
    "sub.tt": (("tt", "tt"), lambda tn, torch, a, b: a - b, ("Tensor.__sub__",)),
    "mul.tt": (("tt", "tt"), lambda tn, torch, a, b: a * b, ("Tensor.__mul__",)),
    "add.scalar": (("tt",), lambda tn, torch, a: a + 2.0, ("Tensor.__add__",)),
    "radd.rmul.scalar": (("tt",), lambda tn, torch, a: 3.0 * (1.0 + a), ("Tensor.__radd__", "Tensor.__rmul__")),
    "rsub.neg": (("tt",), lambda tn, torch, a: 1.0 - (-a), ("Tensor.__rsub__", "Tensor.__neg__")),
    "div.scalar": (("tt",), lambda tn, torch, a: a / 4.0, ("Tensor.__truediv__",)),
    "add.tucker_tt": (("tucker", "tt"), lambda tn, torch, a, b: a + b, ("Tensor.__add__",)),
    "mul.tucker_tucker": (("tucker", "tucker"), lambda tn, torch, a, b: a * b, ("Tensor.__mul__",)),
    "add.cp": (("cp", "cp"), lambda tn, torch, a, b: a + b, ("Tensor.__add__",)),
    "mul.cp_tt": (("cp", "tt"), lambda tn, torch, a, b: a * b, ("Tensor.__mul__",)),
    "add.batch": (("tt_batch", "tt_batch"), lambda tn, torch, a, b: a + b * 2.0, ("Tensor.__add__",)),
    "exp.cross": (("tt",), lambda tn, torch, a: tn.exp(a * 0.1), ("exp",)),
    "mul.cross": (("tt", "tt"), lambda tn, torch, a, b: tn.mul(a, b), ("mul",)),
    "div.tensors.cross": (("tt", "tt"), lambda tn, torch, a, b: a / (tn.abs(b) + 1.0), ("Tensor.__truediv__",)),
    # metrics
    "norm": (("tt",), lambda tn, torch, t: tn.norm(t), ("norm",)),
    "normsq.tucker": (("tucker",), lambda tn, torch, t: tn.normsq(t), ("normsq",)),
    "norm.cp": (("cp",), lambda tn, torch, t: t.norm(), ("Tensor.norm",)),
    "dot": (("tt", "tt"), lambda tn, torch, a, b: tn.dot(a, b), ("dot",)),
    "dot.tucker_tt": (("tucker", "tt"), lambda tn, torch, a, b: a.dot(b), ("Tensor.dot",)),
    "dot.partial": (("tt", "tt"), lambda tn, torch, a, b: tn.dot(a, b[:, :, 0:1], k=2), ("dot",)),
    "dist": (("tt", "tucker"), lambda tn, torch, a, b: tn.dist(a, b), ("dist",)),
    "relative_error": (("tt", "tt"), lambda tn, torch, a, b: tn.relative_error(a, b), ("relative_error",)),
    "relative_error.dense": (("dense", "tt"), lambda tn, torch, x, b: tn.relative_error(x, b), ("relative_error",)),
    "rmse": (("tt", "cp"), lambda tn, torch, a, b: tn.rmse(a, b), ("rmse",)),
    "r_squared": (("tt", "tt"), lambda tn, torch, a, b: tn.r_squared(a, b), ("r_squared",)),
    "sum": (("tt",), lambda tn, torch, t: tn.sum(t), ("sum",)),
    "sum.dim": (("tucker",), lambda tn, torch, t: tn.sum(t, dim=1), ("sum",)),
    "sum.dims.keepdim": (("tt",), lambda tn, torch, t: t.sum(dim=[0, 2], keepdim=True), ("Tensor.sum",)),
    "mean": (("tt",), lambda tn, torch, t: tn.mean(t), ("mean",)),
    "mean.dim": (("tt",), lambda tn, torch, t: tn.mean(t, dim=0), ("mean",)),
    "var": (("tt",), lambda tn, torch, t: tn.var(t), ("var",)),
    "std": (("cp",), lambda tn, torch, t: t.std(), ("Tensor.std",)),
    # indexing
    "getitem.int": (("tt",), lambda tn, torch, t: t[1], ("Tensor.__getitem__",)),
    "getitem.slices": (("tt",), lambda tn, torch, t: t[1:3, :, 2], ("Tensor.__getitem__",)),
    "getitem.ellipsis": (("tt",), lambda tn, torch, t: t[..., 0], ("Tensor.__getitem__",)),
    "getitem.none": (("tt",), lambda tn, torch, t: t[None, :, 2], ("Tensor.__getitem__",)),
    "getitem.element": (("tt",), lambda tn, torch, t: t[1, 2, 3], ("Tensor.__getitem__",)),
    "getitem.points": (("tt", "points"), _index_points, ("Tensor.__getitem__",)),
    "getitem.tucker": (("tucker",), lambda tn, torch, t: t[:, 2:4, 1], ("Tensor.__getitem__",)),
    "getitem.cp": (("cp",), lambda tn, torch, t: t[0, :, 1:3], ("Tensor.__getitem__",)),
    # rounding and structure
    "round_tt.rmax": (("tt",), _round_tt_rmax, ("Tensor.round_tt",)),
    "round_tt.eps": (("tt",), _round_tt_eps, ("Tensor.round_tt",)),
    "round_tucker": (("tt",), _round_tucker, ("Tensor.round_tucker",)),
    "round": (("tucker",), lambda tn, torch, t: tn.round(t, eps=1e-1), ("round",)),
    "round_tt.function": (("tt",), lambda tn, torch, t: tn.round_tt(t, rmax=2), ("round_tt",)),
    "orthogonalize": (("tt",), _orthogonalize("orthogonalize", 1), ("Tensor.orthogonalize",)),
    "left_orthogonalize": (("tt",), _orthogonalize("left_orthogonalize", 0), ("Tensor.left_orthogonalize",)),
    "right_orthogonalize": (("tt",), _orthogonalize("right_orthogonalize", 2), ("Tensor.right_orthogonalize",)),
    "tucker_core": (("tucker",), lambda tn, torch, t: t.tucker_core(), ("Tensor.tucker_core",)),
    "decompress_tucker_factors": (("tucker",), _decompress, ("Tensor.decompress_tucker_factors",)),
    "cp.tt": (("cp",), lambda tn, torch, t: t.tt(), ("Tensor.tt",)),
    "repeat": (("tt",), lambda tn, torch, t: t.repeat(2, 1, 1), ("Tensor.repeat",)),
    "numel.numcoef": (("tucker",), lambda tn, torch, t: t.norm() * t.numel() / t.numcoef(),
                      ("Tensor.numel", "Tensor.numcoef")),
    # tools, ops, derivatives, creation, anova
    "unsqueeze.squeeze": (("tt",), _unsqueeze_squeeze, ("unsqueeze", "squeeze")),
    "cat": (("tt", "tt"), lambda tn, torch, a, b: tn.cat(a, b, dim=1), ("cat",)),
    "transpose": (("tt",), lambda tn, torch, t: tn.transpose(t), ("transpose",)),
    "flip": (("tucker",), lambda tn, torch, t: tn.flip(t, [0, 2]), ("flip",)),
    "unbind": (("tt",), _unbind, ("unbind",)),
    "ttm": (("tt",), _ttm, ("ttm",)),
    "pad": (("tt",), lambda tn, torch, t: tn.pad(t, shape=[6, 7, 8]), ("pad",)),
    "cumsum": (("tt",), lambda tn, torch, t: tn.cumsum(t, dim=1), ("cumsum",)),
    "cumsum.tucker": (("tucker",), lambda tn, torch, t: tn.cumsum(t), ("cumsum",)),
    "meshgrid": (("vectors",), _meshgrid, ("meshgrid",)),
    "reduce": (("tt", "tt"), _reduce, ("reduce",)),
    "partial": (("tt",), lambda tn, torch, t: tn.partial(t, 1), ("partial",)),
    "partial.order2.periodic": (("tt",), lambda tn, torch, t: tn.partial(t, 0, order=2, periodic=True),
                                ("partial",)),
    "gradient": (("tt",), lambda tn, torch, t: [g.torch() for g in tn.gradient(t)], ("gradient",)),
    "laplacian": (("tt",), lambda tn, torch, t: tn.laplacian(t), ("laplacian",)),
    "rand": (("none",), lambda tn, torch: tn.rand(SHAPE, ranks_tt=2), ("rand",)),
    "randn.tucker": (("none",), lambda tn, torch: tn.randn(SHAPE, ranks_tt=2, ranks_tucker=2), ("randn",)),
    "ones": (("none",), lambda tn, torch: tn.ones(SHAPE), ("ones",)),
    "arange": (("none",), lambda tn, torch: tn.arange(6), ("arange",)),
    "anova_decomposition": (("tt",), lambda tn, torch, t: tn.anova_decomposition(t), ("anova_decomposition",)),
    "sobol": (("tt",), _sobol, ("sobol",)),
    "mean_dimension": (("tt",), _mean_dimension, ("mean_dimension",)),
    # cross approximation
    "cross.grid": (("vectors",), _cross_grid, ("cross",)),
    "cross.adaptive": (("vectors",), _cross_adaptive, ("cross",)),
    "cross.matrix": (("vectors",), _cross_matrix, ("cross",)),
    "cross.tensors": (("tt", "tt"), _cross_tensors, ("cross",)),
    "minimum": (("tt",), lambda tn, torch, t: tn.minimum(t, rmax=3, max_iter=2), ("minimum",)),
    "maximum": (("tt",), lambda tn, torch, t: tn.maximum(t, rmax=3, max_iter=2), ("maximum",)),
    # optimisation
    "loss.relative_error": (("tt", "dense"), _loss, ("relative_error",)),
    "optimize": (("dense",), _optimize, ("optimize",)),
    "dof": (("tt",), _dof, ("dof",)),
    # matrices
    "TTMatrix": (("matrix",), _tt_matrix, ("TTMatrix",)),
    "TTMatrix.trace": (("matrix",), _tt_matrix_trace, ("TTMatrix.trace",)),
    "tt_multiply": (("matrix",), _tt_multiply, ("tt_multiply",)),
    "CPMatrix": (("matrix",), _cp_matrix, ("CPMatrix",)),
    "cp_multiply": (("matrix",), _cp_multiply, ("cp_multiply",)),
}
TRAIN = ("adam_step.tt_cores", "adam_step.tucker_cores")


def names() -> list[str]:
    return list(OPS) + list(TRAIN)


def _inputs(kind: str, seed: int) -> list[Any]:
    """The plain tensors of one input of ``kind``."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    if kind == "dense":
        return [torch.randn(*SHAPE, generator=gen)]
    if kind == "dense_batch":
        return [torch.randn(2, *SHAPE, generator=gen)]
    if kind in ("tt", "tucker"):
        inner = (3, 3, 2) if kind == "tucker" else SHAPE
        ranks = (1, RANK, RANK, 1)
        cores = [torch.randn(ranks[n], inner[n], ranks[n + 1], generator=gen) for n in range(3)]
        if kind == "tt":
            return cores
        return cores + [torch.randn(SHAPE[n], inner[n], generator=gen) for n in range(3)]
    if kind == "cp":
        return [torch.randn(size, RANK, generator=gen) for size in SHAPE]
    if kind == "tt_batch":
        ranks = (1, 2, 2, 1)
        return [torch.randn(2, ranks[n], SHAPE[n], ranks[n + 1], generator=gen) for n in range(3)]
    if kind == "points":
        return [torch.stack([torch.randint(0, size, (7,), generator=gen) for size in SHAPE], dim=1)]
    if kind == "vectors":
        return [torch.linspace(-1, 1, 6)]
    if kind == "matrix":
        return [torch.randn(16, 16, generator=gen)]
    return []


def _rebuild(tn: Any, kind: str, tensors: list[Any]) -> Any:
    """The ``tn.Tensor`` (or plain tensor) of one input, inside the compiled call."""
    if kind in ("tt", "cp"):
        return tn.Tensor(list(tensors))
    if kind == "tucker":
        return tn.Tensor(list(tensors[:3]), Us=list(tensors[3:]))
    if kind == "tt_batch":
        return tn.Tensor(list(tensors), batch=True)
    return tensors[0]


def _dense(tn: Any, result: Any) -> Any:
    if isinstance(result, tn.Tensor):
        return result.torch()
    if isinstance(result, (list, tuple)):
        return type(result)(_dense(tn, r) for r in result)
    return result


def _entry(tn: Any, path: str) -> Any:
    entry: Any = tn
    for part in path.split("."):
        entry = getattr(entry, part)
    return entry


def _op(name: str) -> Built:
    import tntorch as tn
    import torch
    from torch import nn

    from gt_calls import Run

    kinds, operation, entries = OPS[name]
    flat: list[Any] = []
    for i, kind in enumerate(kinds):
        flat += _inputs(kind, seed=i + 1)

    def run(owner: Any, *tensors: Any) -> Any:
        built, start = [], 0
        for kind in kinds:
            if kind == "none":
                continue
            built.append(_rebuild(tn, kind, list(tensors[start:start + ARITY[kind]])))
            start += ARITY[kind]
        return _dense(tn, operation(tn, torch, *built))

    return Run(nn.Identity(), run, [_entry(tn, e) for e in entries]), tuple(flat), {}


def _train(name: str) -> Built:
    import tntorch as tn
    import torch
    from torch import nn

    from gt_calls import OptimizerStep

    kind = name.split(".")[1].split("_")[0]
    holder = nn.ParameterList([nn.Parameter(t) for t in _inputs(kind, seed=3)])
    target = _inputs("dense", seed=5)[0]

    def loss(x: Any) -> Any:
        """The squared relative error of the cores' tensor to a dense target, plus a small norm penalty."""
        t = _rebuild(tn, kind, list(holder))
        return tn.relative_error(tn.Tensor(x), t) ** 2 + 1e-3 * tn.norm(t)

    class _Step(OptimizerStep):
        def entry_points(self) -> list[Any]:
            return [tn.relative_error, tn.norm]

    return _Step(holder, torch.optim.Adam(holder.parameters(), lr=1e-2), loss=loss), (target,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in OPS:
        return _op(name)
    return _train(name)
