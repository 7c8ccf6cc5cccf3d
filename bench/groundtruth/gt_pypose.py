"""Ground-truth bench, pypose: Lie group tensors, robot-learning functions, filters, controllers and the
second-order optimizers of pypose 0.9.5.

pypose's ``LieTensor`` is a ``torch.Tensor`` subclass whose ``ltype`` (``SO3``, ``SE3``, ``Sim3``,
``RxSO3`` and their Lie algebras) routes ``Exp``, ``Log``, ``Inv``, ``Act``, ``Mul`` and the Jacobians to
custom ``autograd.Function``s; its functions (camera geometry, point-cloud filters, splines, batched
linear algebra, trajectory metrics) and modules (IMU preintegration, Kalman and particle filters, system
models, LQR / MPC, EPnP, ICP) are built on it, and ``pp.optim`` steps Gauss-Newton and
Levenberg-Marquardt with pluggable solvers, robust kernels, correctors and damping strategies. Users
compile the model that calls these, with their poses as LieTensors (built outside, as data or parameters),
so each model of the tables is one of:

- ``LIE``: for each group (``SO3``, ``SE3``, ``Sim3``, ``RxSO3``): ``group_ops`` (the operations whose
  results are in the group: ``Exp`` of the algebra, ``Inv``, ``*`` / ``mul``, ``Retr``, as methods and as
  ``pp.`` functions), ``algebra_ops`` (those whose results are in the algebra: ``Log``, ``Adj``, ``AdjT``,
  ``Jinvp``), ``Act`` (on 3-D and homogeneous points) and ``grad``: ``Exp``, ``Mul``, ``Inv`` and ``Act``
  chained on inputs that require gradients (the custom backward passes). A compiled frame that builds
  LieTensors of two ltypes fails under Dynamo, so the tables split them where the library does not;
- ``LIE_EXTRA``: the rest of the LieTensor API: ``matrix`` (``SO3``'s own and the generic one), ``Retr``,
  ``Jr`` of ``SO3`` / ``so3``, ``euler``, rotation / translation / scale of each group, ``add`` / ``add_``
  (a retraction), ``cumprod`` / ``cummul`` and an in-place form, ``identity_``, the tensor operations
  LieTensor's ``__torch_function__`` re-wraps (indexing, ``cat``, ``stack``, ``view``, ``lview``), algebra
  operations (scalar ``Mul``, ``Inv``, ``matrix``, ``rotation``), the ``identity_*`` / ``randn_*``
  constructors (the ``se3`` sigma tuples), ``Act`` broadcast over a cloud, the relative pose
  ``(X.Inv() * Y).Log()``, ``Log`` with gradients, the alias classes (``pp.SE3(tensor)``) called inside the
  compiled function, ``@`` on poses and points, and a module holding a ``pp.Parameter`` pose fitted to a
  target;
- ``CONVERT``: ``mat2SO3`` (checked), ``mat2SE3`` (3x4 unchecked and 4x4), ``mat2Sim3``, ``mat2RxSO3``,
  ``from_matrix`` (checked and not), ``euler2SO3``, ``quat2unit`` and the functional accessors
  (``pp.tensor``, ``pp.translation``, ``pp.euler`` ...);
- ``FUNCTIONS``: ``cart2homo`` / ``homo2cart``, ``point2pixel`` (with and without extrinsics),
  ``pixel2point``, ``reprojerr`` (each reduction), ``knn``, ``svdtf``, ``svdstf`` (with and without scale),
  the point-cloud filters (``nbr_filter``, ``random_filter``, ``voxel_filter`` (mean and random),
  ``knn_filter`` with and without radius), ``bvv`` / ``bmv`` / ``bvmv``, ``chspline``, ``bspline`` (and
  extrapolated), ``cumops`` / ``cummul`` / ``cumprod`` on tensors, ``geodesic_loss`` (three reductions)
  and ``GeodesicLoss``, ``pp.func.jacrev`` on a LieTensor function, ``pp.optim.functional.modjac``
  (plain, and flattened and vectorized), ``modjacrev`` and ``modjacfwd``, and the trajectory metrics
  ``pp.metric.ape`` / ``rpe`` in the options that change their code (alignment with scale, origin, the
  error types and reductions, frame and distance association, all pairs);
- ``MODULES``: ``IMUPreintegrator`` (covariance propagation, a given rotation, ``reset``, an initial
  state with covariance), ``EKF`` / ``UKF`` / ``PF`` on a nonlinear system, an ``LTV`` rollout, an
  ``NLS`` forward pass and an ``NLS``'s linearisation (``set_refpoint`` then its Jacobians), ``LQR`` on an
  ``LTI`` and on a cart-pole ``NLS``, ``MPC`` on the cart-pole, ``EPnP`` (with and without its
  Gauss-Newton refinement) and ``ICP`` (with and without an initial pose);
- ``OPTIM``: the linear solvers (``PINV``, ``LSTSQ``, ``Cholesky``, ``CG`` plain and preconditioned),
  the robust kernels (``Huber``; ``PseudoHuber``, ``Cauchy``, ``SoftLOne``, ``Arctan``, ``Tolerant`` and
  ``Scale`` in one model), the correctors (``FastTriggs``, ``Triggs``), and ``optimizer.step(input)``
  compiled as users write it: ``GaussNewton`` and ``LevenbergMarquardt`` on the pose-inversion problem
  of their docstrings and on a small SE3 pose graph (LieTensor parameters), and on a curve fit with plain
  parameters (and an outlier) under each option: the damping strategies (``TrustRegion``, ``Adaptive``,
  ``Constant``), the ``LSTSQ`` / ``PINV`` solvers, a kernel with its default ``FastTriggs`` and with the
  ``Triggs`` corrector, a weight with few rejections, two residuals with a kernel for one, and
  ``StopOnPlateau.optimize`` running the loop.

Left out: the sparse backend (``pp.Parameter(sjac=True)``, ``LM(sparse=True)``, ``psjac``, ``PCG``),
which needs the ``bae`` package; ``EKF`` on an ``LTI`` system, which fails eagerly (its
``state_transition`` takes no ``t``). Batches of 2, at most 6 poses or points, a handful of iterations;
random data, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

GROUPS = ("SO3", "SE3", "Sim3", "RxSO3")
LIE_OPS = ("group_ops", "algebra_ops", "Act", "grad")
LIE = tuple(f"{group}.{op}" for group in GROUPS for op in LIE_OPS)
LIE_EXTRA = (
    "SO3.matrix", "SE3.matrix", "SE3.Retr", "SO3.Jr", "so3.Jr", "SE3.euler", "SE3.parts", "Sim3.parts",
    "RxSO3.parts", "SE3.add", "SO3.add_", "SO3.cumprod", "SE3.cummul", "SE3.cumprod_", "SO3.identity_",
    "SE3.torch_function", "so3.algebra_ops", "se3.algebra_ops", "constructors.identity", "constructors.randn",
    "SE3.Act.broadcast", "SE3.relative_pose", "SE3.Log.grad", "SE3.construct", "SE3.matmul", "Parameter.pose_fit",
)
CONVERT = (
    "mat2SO3", "mat2SE3.3x4", "mat2SE3.4x4", "mat2Sim3", "mat2RxSO3",
    "from_matrix", "euler2SO3", "quat2unit", "accessors",
)
FUNCTIONS = (
    "cart2homo.homo2cart", "point2pixel", "point2pixel.extrinsics", "pixel2point", "reprojerr",
    "reprojerr.norm.extrinsics", "knn", "svdtf", "svdstf", "svdstf.no_scale", "nbr_filter", "random_filter",
    "voxel_filter", "voxel_filter.random", "knn_filter", "knn_filter.radius", "bvv.bmv.bvmv", "chspline",
    "bspline", "bspline.extrapolate", "cumops", "geodesic_loss", "GeodesicLoss.sum", "func.jacrev", "modjac",
    "modjacrev.modjacfwd", "metric.ape", "metric.ape.scale.radian", "metric.ape.origin.pose", "metric.rpe",
    "metric.rpe.degree.all", "metric.rpe.distance",
)
MODULES = (
    "IMUPreintegrator", "IMUPreintegrator.rot", "IMUPreintegrator.reset", "IMUPreintegrator.init_state",
    "EKF", "UKF", "PF", "LTV", "NLS", "NLS.linearize", "LQR.lti", "LQR.cartpole", "MPC.cartpole",
    "EPnP", "EPnP.no_refine", "ICP", "ICP.init",
)
OPTIM = (
    "solver.PINV", "solver.LSTSQ", "solver.Cholesky", "solver.CG", "solver.CG.preconditioned",
    "kernel.Huber", "kernel.smooth", "corrector.FastTriggs", "corrector.Triggs",
    "GN.pose_inv", "GN.curve", "GN.kernel", "GN.pose_graph",
    "LM.pose_inv", "LM.Adaptive", "LM.Constant.PINV", "LM.curve", "LM.kernel.Triggs", "LM.weight",
    "LM.two_residuals", "LM.pose_graph", "StopOnPlateau.optimize",
)


def names() -> list[str]:
    return list(LIE) + list(LIE_EXTRA) + list(CONVERT) + list(FUNCTIONS) + list(MODULES) + list(OPTIM)


def _run(owner: Any, run: Callable[..., Any], entries: list[Any]) -> Any:
    """A bench module holding ``owner`` whose forward is ``run(owner, *inputs)`` (``gt_calls.Run``)."""
    from gt_calls import Run

    return Run(owner, run, entries)


def _fn(run: Callable[..., Any], entries: list[Any]) -> Any:
    """A bench module without state whose forward is ``run(*inputs)``."""
    return _run(None, lambda _owner, *inputs: run(*inputs), entries)


# Group name -> (algebra name, size of the algebra's vectors).
ALGEBRA = {"SO3": ("so3", 3), "SE3": ("se3", 6), "Sim3": ("sim3", 7), "RxSO3": ("rxso3", 4)}


def _lt(group: str, *lshape: int, sigma: float = 0.5) -> Any:
    """A random LieTensor of ``group`` and LieTensor shape ``lshape`` (the inputs users pass in)."""
    import pypose as pp

    return getattr(pp, f"randn_{group}")(*lshape, sigma=sigma)


def _lie(name: str) -> Built:
    import torch

    import pypose as pp
    from pypose.lietensor.lietensor import LieTensor

    group, op = name.split(".")
    algebra, size = ALGEBRA[group]
    X, Y = _lt(group, 2), _lt(group, 2)
    a = getattr(pp, algebra)(0.3 * torch.randn(2, size))
    p, p4 = torch.randn(2, 3), torch.cat([torch.randn(2, 3), torch.ones(2, 1)], -1)
    # One model per kind of result: a frame that builds LieTensors of two ltypes fails under Dynamo, and
    # the model would stop there (``SE3.relative_pose`` keeps that mixed use).
    if op == "group_ops":  # results in the group: Exp of the algebra, Inv, Mul, Retr (methods, functional)
        return _fn(lambda X_, Y_, a_: (a_.Exp(), pp.Exp(a_), X_.Inv(), pp.Inv(X_), X_ * Y_, X_.mul(Y_), X_.Retr(a_),
                                       pp.Retr(X_, a_)),
                   [LieTensor.Exp, pp.Exp, LieTensor.Inv, pp.Inv, LieTensor.__mul__, LieTensor.Retr, pp.Retr]), \
            (X, Y, a), {}
    if op == "algebra_ops":  # results in the algebra: Log, Adj, AdjT, Jinvp
        return _fn(lambda X_, a_: (X_.Log(), pp.Log(X_), X_.Adj(a_), pp.Adj(X_, a_), X_.AdjT(a_), pp.AdjT(X_, a_),
                                   X_.Jinvp(a_), pp.Jinvp(X_, a_.tensor())),
                   [LieTensor.Log, pp.Log, LieTensor.Adj, pp.Adj, LieTensor.AdjT, pp.AdjT, LieTensor.Jinvp,
                    pp.Jinvp]), (X, a), {}
    if op == "Act":  # on 3-D and homogeneous points
        return _fn(lambda X_, p_, q_: (pp.Act(X_, p_), X_.Act(q_)), [pp.Act, LieTensor.Act]), (X, p, p4), {}
    # ``grad``: a chain of the operations whose inputs require gradients (each custom backward).

    def chain(X_: Any, a_: Any, p_: Any) -> Any:
        return (X_ * a_.Exp()).Inv().Act(p_).sum()

    return _fn(chain, [LieTensor.Exp, LieTensor.__mul__, LieTensor.Inv, LieTensor.Act]), \
        (X.requires_grad_(), a.requires_grad_(), p.requires_grad_()), {}


def _lie_extra(name: str) -> Built:
    import torch
    from torch import nn

    import pypose as pp
    from pypose.lietensor import utils as lt_utils
    from pypose.lietensor.lietensor import LieTensor

    if name.endswith(".matrix"):
        return _fn(lambda X_: X_.matrix(), [LieTensor.matrix]), (_lt(name.split(".")[0], 2),), {}
    if name == "SE3.Retr":
        return _fn(lambda X_, a_: X_.Retr(a_), [LieTensor.Retr]), (_lt("SE3", 2), pp.se3(0.3 * torch.randn(2, 6))), {}
    if name == "SO3.Jr":
        return _fn(lambda X_: X_.Jr(), [LieTensor.Jr]), (_lt("SO3", 2),), {}
    if name == "so3.Jr":
        return _fn(pp.Jr, [pp.Jr]), (pp.so3(0.3 * torch.randn(2, 3)),), {}
    if name == "SE3.euler":
        return _fn(lambda X_: (X_.euler(), pp.euler(X_.rotation())), [LieTensor.euler]), (_lt("SE3", 2),), {}
    if name.endswith(".parts"):
        return _fn(lambda X_: (X_.rotation(), X_.translation(), X_.scale()),
                   [LieTensor.rotation, LieTensor.translation, LieTensor.scale]), (_lt(name.split(".")[0], 2),), {}
    if name == "SE3.add":
        return _fn(lambda X_, a_: (pp.add(X_, a_, alpha=0.5), X_ + a_), [pp.add, LieTensor.add, LieTensor.__add__]), \
            (_lt("SE3", 2), 0.1 * torch.randn(2, 6)), {}
    if name == "SO3.add_":
        return _fn(lambda X_, a_: X_.clone().add_(a_), [LieTensor.add_]), (_lt("SO3", 2), 0.1 * torch.randn(2, 3)), {}
    if name == "SO3.cumprod":
        return _fn(lambda X_: X_.cumprod(dim=0, left=False), [LieTensor.cumprod]), (_lt("SO3", 5),), {}
    if name == "SE3.cummul":
        return _fn(lambda X_: X_.cummul(dim=1), [LieTensor.cummul]), (_lt("SE3", 2, 4),), {}
    if name == "SE3.cumprod_":
        return _fn(lambda X_: X_.clone().cumprod_(dim=0), [LieTensor.cumprod_]), (_lt("SE3", 4),), {}
    if name == "SO3.identity_":
        return _fn(lambda X_: X_.clone().identity_(), [LieTensor.identity_]), (_lt("SO3", 2),), {}
    if name == "SE3.torch_function":
        def ops(X_: Any, index: Any) -> Any:
            Y = torch.cat([X_, X_[:1]], dim=0)
            Z = torch.stack([X_, X_], dim=1).view(-1, 7)
            W = X_.unsqueeze(0).lview(2).clone().detach()
            return Y[index], Z.reshape(2, 2, 7), W, X_.lshape, X_.repeat(2, 1)

        return _fn(ops, [LieTensor.__torch_function__, LieTensor.lview]), (_lt("SE3", 2), torch.tensor([0, 2])), {}
    if name.endswith(".algebra_ops"):
        algebra = name.split(".")[0]
        size = {"so3": 3, "se3": 6}[algebra]
        return _fn(lambda a_: ((a_ * 0.5).Exp(), a_.mul(2.0), a_.Inv(), a_.matrix(), a_.rotation()),
                   [LieTensor.mul, LieTensor.Inv, LieTensor.matrix, LieTensor.rotation]), \
            (getattr(pp, algebra)(0.3 * torch.randn(2, size)),), {}
    if name == "constructors.identity":
        def identity(X_: Any) -> Any:
            return (pp.identity_SE3(2) * X_, pp.identity_like(X_), pp.identity_so3(2), pp.identity_se3(2),
                    pp.identity_Sim3(2), pp.identity_sim3(1), pp.identity_RxSO3(2), pp.identity_rxso3(1),
                    pp.identity_SO3(3, dtype=X_.dtype))

        return _fn(identity, [lt_utils.identity_SE3, lt_utils.identity_like, lt_utils.identity_Sim3]), \
            (_lt("SE3", 2),), {}
    if name == "constructors.randn":
        def randn(X_: Any) -> Any:
            return (X_ * pp.randn_SE3(2, sigma=0.1), pp.randn_se3(2, sigma=(0.1, 0.2)),
                    pp.randn_se3(1, sigma=(0.1, 0.1, 0.1, 0.2)), pp.randn_like(X_, sigma=0.2), pp.randn_so3(2),
                    pp.randn_Sim3(2), pp.randn_rxso3(2), pp.randn_RxSO3(2), pp.randn_SO3(2, requires_grad=True))

        return _fn(randn, [lt_utils.randn_SE3, lt_utils.randn_se3, lt_utils.randn_like]), (_lt("SE3", 2),), {}
    if name == "SE3.construct":  # the alias classes called inside the compiled function, on plain tensors
        def construct(x_: Any, a_: Any) -> Any:
            return pp.SE3(x_).Log(), pp.se3(a_).Exp(), pp.LieTensor(x_, ltype=pp.SE3_type).Inv()

        return _fn(construct, [pp.LieTensor]), (_lt("SE3", 2).tensor(), 0.3 * torch.randn(2, 6)), {}
    if name == "SE3.Act.broadcast":  # one pose per batch acting on a cloud of points
        return _fn(lambda X_, p_: X_.unsqueeze(-2).Act(p_), [LieTensor.Act]), (_lt("SE3", 2), torch.randn(2, 5, 3)), {}
    if name == "SE3.relative_pose":  # the error between two poses, as pose graphs write it
        return _fn(lambda X_, Y_: (X_.Inv() * Y_).Log(), [LieTensor.Inv, LieTensor.__mul__, LieTensor.Log]), \
            (_lt("SE3", 2), _lt("SE3", 2)), {}
    if name == "SE3.Log.grad":
        return _fn(lambda X_: X_.Log().tensor().square().sum(), [LieTensor.Log]), \
            (_lt("SE3", 2).requires_grad_(),), {}
    if name == "SE3.matmul":  # ``@`` between poses, and on points (what ``Mul`` routes to ``Act``)
        return _fn(lambda X_, Y_, p_: ((X_ @ Y_).Log(), X_.Inv() @ p_), [LieTensor.__matmul__]), \
            (_lt("SE3", 2), _lt("SE3", 2), torch.randn(2, 3)), {}
    # ``Parameter.pose_fit``: a module whose parameter is an SE3 pose, its error to a target as the loss.

    class PoseFit(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pose = pp.Parameter(pp.randn_SE3(3, sigma=0.5))

        def forward(self, target: Any, points: Any) -> Any:
            error = (self.pose.Inv() * target).Log()
            return error.tensor().square().sum() + (self.pose.Act(points) - target.Act(points)).norm(dim=-1).mean()

    return PoseFit(), (_lt("SE3", 3), torch.randn(3, 3)), {}


def _rotations(n: int) -> Any:
    import pypose as pp

    return pp.randn_SO3(n, sigma=0.5).matrix()


def _convert(name: str) -> Built:
    import torch

    import pypose as pp
    from pypose.lietensor import convert

    rot = _rotations(2)
    t = torch.randn(2, 3, 1)
    if name == "mat2SO3":
        return _fn(pp.mat2SO3, [convert.mat2SO3]), (rot,), {}
    if name == "mat2SE3.3x4":
        return _fn(lambda m: pp.mat2SE3(m, check=False), [convert.mat2SE3]), (torch.cat([rot, t], -1),), {}
    if name == "mat2SE3.4x4":
        return _fn(pp.mat2SE3, [convert.mat2SE3]), (pp.randn_SE3(2, sigma=0.5).matrix(),), {}
    if name == "mat2Sim3":
        return _fn(pp.mat2Sim3, [convert.mat2Sim3]), (pp.randn_Sim3(2, sigma=0.3).matrix(),), {}
    if name == "mat2RxSO3":
        return _fn(pp.mat2RxSO3, [convert.mat2RxSO3]), (1.5 * rot,), {}
    if name == "from_matrix":
        def from_matrix(m4: Any, m3: Any) -> Any:
            return pp.from_matrix(m4, pp.SE3_type), pp.from_matrix(m3, pp.SO3_type, check=False)

        return _fn(from_matrix, [convert.from_matrix]), (pp.randn_SE3(2, sigma=0.5).matrix(), rot), {}
    if name == "euler2SO3":
        return _fn(pp.euler2SO3, [convert.euler2SO3]), (0.5 * torch.randn(2, 3, 3),), {}
    if name == "quat2unit":
        return _fn(pp.quat2unit, [convert.quat2unit]), (pp.SE3(_lt("SE3", 2).tensor() * 1.5),), {}

    def accessors(X_: Any, S_: Any) -> Any:
        return pp.tensor(X_), pp.translation(X_), pp.rotation(X_), pp.scale(S_), pp.matrix(X_), pp.euler(X_)

    return _fn(accessors, [convert.tensor, convert.translation, convert.rotation, convert.scale, convert.euler]), \
        (_lt("SE3", 2), _lt("Sim3", 2)), {}


def _intrinsics() -> Any:
    import torch

    return torch.tensor([[2.0, 0.0, 4.5], [0.0, 2.0, 4.5], [0.0, 0.0, 1.0]])


def _points(n: int = 6) -> Any:
    import torch

    return torch.randn(n, 3) + torch.tensor([0.0, 0.0, 4.0])


def _functions(name: str) -> Built:
    import torch
    from torch import nn

    import pypose as pp
    from pypose.function import geometry, linalg, spline

    K, points = _intrinsics(), _points()
    if name == "cart2homo.homo2cart":
        return _fn(lambda p_: pp.homo2cart(pp.cart2homo(p_) * 2.0), [geometry.cart2homo, geometry.homo2cart]), \
            (points,), {}
    if name == "point2pixel":
        return _fn(pp.point2pixel, [geometry.point2pixel]), (points, K), {}
    if name == "point2pixel.extrinsics":
        return _fn(lambda p_, k_, X_: pp.point2pixel(p_, k_, X_), [geometry.point2pixel]), \
            (points.expand(2, 6, 3), K, _lt("SE3", 2, sigma=0.1)), {}
    if name == "pixel2point":
        return _fn(pp.pixel2point, [geometry.pixel2point]), (torch.rand(6, 2) * 9, torch.rand(6) + 1, K), {}
    if name.startswith("reprojerr"):
        pixels = pp.point2pixel(points, K) + 0.1 * torch.randn(6, 2)
        if name.endswith("extrinsics"):
            return _fn(lambda p_, q_, k_, X_: pp.reprojerr(p_, q_, k_, X_, reduction="norm"),
                       [geometry.reprojerr]), (points, pixels, K, _lt("SE3", sigma=0.1)), {}
        return _fn(lambda p_, q_, k_: (pp.reprojerr(p_, q_, k_), pp.reprojerr(p_, q_, k_, reduction="sum")),
                   [geometry.reprojerr]), (points, pixels, K), {}
    if name == "knn":
        return _fn(lambda a_, b_: pp.knn(a_, b_, k=2), [geometry.knn]), (torch.randn(2, 5, 3), torch.randn(2, 6, 3)), {}
    if name == "svdtf":
        T = pp.randn_SE3(2, sigma=0.5)
        source = torch.randn(2, 6, 3)
        return _fn(pp.svdtf, [geometry.svdtf]), (source, T.unsqueeze(-2).Act(source)), {}
    if name.startswith("svdstf"):
        T = pp.randn_Sim3(sigma=0.3)
        source = torch.randn(6, 3)
        scale = name == "svdstf"
        return _fn(lambda s_, t_: pp.svdstf(s_, t_, with_scale=scale), [geometry.svdstf]), \
            (source, (T.Act(source) if scale else pp.randn_SE3(sigma=0.3).Act(source))), {}
    cloud = torch.randn(12, 3)
    if name == "nbr_filter":
        return _fn(lambda p_: (pp.nbr_filter(p_, nbr=2, radius=1.5), pp.nbr_filter(p_, 1, 1.0, return_mask=True)),
                   [geometry.nbr_filter]), (cloud,), {}
    if name == "random_filter":
        return _fn(lambda p_: pp.random_filter(p_, 5), [geometry.random_filter]), (cloud,), {}
    if name.startswith("voxel_filter"):
        rand = name.endswith("random")
        return _fn(lambda p_: pp.voxel_filter(p_, [0.8, 0.8, 0.8], random=rand), [geometry.voxel_filter]), \
            (torch.cat([cloud, torch.rand(12, 1)], -1),), {}
    if name == "knn_filter":
        return _fn(lambda p_: pp.knn_filter(p_, k=2), [geometry.knn_filter]), (torch.randn(2, 8, 3),), {}
    if name == "knn_filter.radius":
        return _fn(lambda p_: pp.knn_filter(p_, k=2, pdim=3, radius=5.0), [geometry.knn_filter]), \
            (torch.cat([cloud, torch.rand(12, 1)], -1),), {}
    if name == "bvv.bmv.bvmv":
        def products(m: Any, v: Any, w: Any) -> Any:
            return pp.bvv(v, w), pp.bmv(m, v), pp.bvmv(v, m, w)

        return _fn(products, [linalg.bvv, linalg.bmv, linalg.bvmv]), \
            (torch.randn(2, 4, 4), torch.randn(2, 4), torch.randn(2, 4)), {}
    if name == "chspline":
        return _fn(lambda p_: pp.chspline(p_, interval=0.25), [spline.chspline]), (torch.randn(2, 5, 3),), {}
    if name.startswith("bspline"):
        extrapolate = name.endswith("extrapolate")
        return _fn(lambda X_: pp.bspline(X_, interval=0.25, extrapolate=extrapolate), [spline.bspline]), \
            (_lt("SE3", 2, 5, sigma=0.3),), {}
    if name == "cumops":
        from pypose.basics import ops

        def cumulative(x_: Any) -> Any:
            matrices = x_.view(5, 1, 2).expand(5, 2, 2)
            return pp.cumops(x_, 0, lambda a, b: a + b), pp.cummul(x_, 0), pp.cumprod(matrices, 0)

        return _fn(cumulative, [ops.cumops, ops.cummul, ops.cumprod]), (torch.randn(5, 2),), {}
    if name.startswith(("geodesic_loss", "GeodesicLoss")):
        from pypose.module import loss

        if name.startswith("GeodesicLoss"):
            criterion = pp.module.GeodesicLoss(reduction="sum")
            return criterion, (_lt("SE3", 2), _lt("SE3", 2)), {}

        def geodesic(X_: Any, Y_: Any) -> Any:
            return pp.geodesic_loss(X_, Y_), pp.geodesic_loss(X_, Y_, reduction="none")

        return _fn(geodesic, [loss.geodesic_loss]), (_lt("SO3", 2), _lt("SO3", 2)), {}
    if name == "func.jacrev":
        from pypose.func import jac

        def jacobian(X_: Any, p_: Any) -> Any:
            return pp.func.jacrev(lambda X: X.Act(p_))(X_)

        return _fn(jacobian, [jac.jacrev]), (_lt("SE3", 2), torch.randn(2, 3)), {}
    if name.startswith("modjac"):
        from pypose.optim import functional

        net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
        x = torch.randn(2, 3)
        if name == "modjac":
            return _run(net, lambda n, x_: (functional.modjac(n, x_),
                                            functional.modjac(n, x_, vectorize=True, flatten=True)),
                        [functional.modjac]), (x,), {}
        return _run(net, lambda n, x_: (functional.modjacrev(n, x_), functional.modjacfwd(n, x_)),
                    [functional.modjacrev, functional.modjacfwd]), (x,), {}
    if name.startswith("metric"):
        return _metric(name)
    raise KeyError(name)


# ``metric`` model name -> keywords of ``pp.metric.ape`` / ``rpe``.
METRIC: dict[str, dict[str, Any]] = {
    "metric.ape": {},
    "metric.ape.scale.radian": {"align": True, "scale": True, "etype": "radian", "otype": "Mean"},
    "metric.ape.origin.pose": {"origin": True, "etype": "pose", "otype": "RMSE"},
    "metric.rpe": {},
    "metric.rpe.degree.all": {"etype": "degree", "all": True, "delta": 2.0, "otype": "Max"},
    "metric.rpe.distance": {"associate": "distance", "delta": 0.5, "rtol": 0.5, "rpair": True},
}


def _metric(name: str) -> Built:
    import torch

    import pypose as pp
    from pypose.metric import ape_rpe

    keywords = METRIC[name]
    n = 6
    reference = pp.randn_SE3(n, sigma=0.5)
    estimate = reference * pp.randn_SE3(n, sigma=0.05)
    stamps = torch.arange(n, dtype=torch.float64) * 0.1
    function = pp.metric.rpe if name.startswith("metric.rpe") else pp.metric.ape

    def metric(rs: Any, rp: Any, es: Any, ep: Any) -> Any:
        return function(rs, rp, es, ep, **keywords)

    return _fn(metric, [function, ape_rpe.compute_error]), (stamps, reference, stamps + 0.001, estimate), {}


def _nls_classes() -> tuple[Any, Any]:
    """The nonlinear system of the filters' docstrings, and the cart-pole of ``MPC``'s."""
    import torch

    import pypose as pp

    class Nonlinear(pp.module.NLS):
        def state_transition(self, state: Any, input: Any, t: Any = None) -> Any:
            return state.cos() + input

        def observation(self, state: Any, input: Any, t: Any = None) -> Any:
            return state.sin() + input

    class CartPole(pp.module.NLS):
        def __init__(self, dt: float = 0.01, length: float = 1.5, cartmass: float = 20.0, polemass: float = 10.0,
                     gravity: float = 9.81) -> None:
            super().__init__()
            self.tau, self.length, self.cartmass = dt, length, cartmass
            self.polemass, self.gravity = polemass, gravity
            self.poleml, self.total = polemass * length, cartmass + polemass

        def state_transition(self, state: Any, input: Any, t: Any = None) -> Any:
            x, xdot, theta, thetadot = state.squeeze()
            force = input.squeeze()
            cos, sin = torch.cos(theta), torch.sin(theta)
            temp = (force + self.poleml * thetadot ** 2 * sin) / self.total
            thetaacc = (self.gravity * sin - cos * temp) / \
                (self.length * (4.0 / 3.0 - self.polemass * cos ** 2 / self.total))
            xacc = temp - self.poleml * thetaacc * cos / self.total
            dstate = torch.stack((xdot, xacc, thetadot, thetaacc))
            return (state.squeeze() + torch.mul(dstate, self.tau)).unsqueeze(0)

        def observation(self, state: Any, input: Any, t: Any = None) -> Any:
            return state

    return Nonlinear, CartPole


def _modules(name: str) -> Built:
    import torch

    import pypose as pp
    from pypose.module import dynamics

    Nonlinear, CartPole = _nls_classes()
    if name.startswith("IMUPreintegrator"):
        frames = 5
        dt = torch.full((frames, 1), 0.01)
        gyro, acc = 0.1 * torch.randn(frames, 3), torch.randn(frames, 3) + torch.tensor([0.0, 0.0, 9.81])
        if name == "IMUPreintegrator":
            return pp.module.IMUPreintegrator(), (dt, gyro, acc), {}
        if name == "IMUPreintegrator.rot":
            imu = pp.module.IMUPreintegrator(torch.zeros(3), pp.identity_SO3(), torch.zeros(3))
            rot = pp.randn_SO3(frames, sigma=0.1)
            return imu, (dt, gyro, acc, rot), {}
        if name == "IMUPreintegrator.reset":
            return pp.module.IMUPreintegrator(prop_cov=False, reset=True), (dt, gyro, acc), {}
        imu = pp.module.IMUPreintegrator(reset=True)

        def with_state(m: Any, d: Any, g: Any, a: Any, r: Any, cov: Any) -> Any:
            state = {"pos": torch.zeros(1, 1, 3), "rot": r, "vel": torch.zeros(1, 1, 3), "cov": cov, "Rij": r}
            return m(d, g, a, init_state=state)

        return _run(imu, with_state, [pp.module.IMUPreintegrator]), \
            (dt, gyro, acc, _lt("SO3", 1, 1, sigma=0.2), 1e-3 * torch.eye(9).unsqueeze(0)), {}
    n = 2
    x, u, y = torch.randn(n), torch.randn(n), torch.randn(n)
    P, Q, R = torch.eye(n) * 4.0, torch.eye(n) * 0.01, torch.eye(n) * 0.01
    if name == "EKF":
        return pp.module.EKF(Nonlinear(), Q=Q, R=R), (x, y, u, P), {}
    if name == "UKF":
        return pp.module.UKF(Nonlinear(), Q=Q, R=R), (x, y, u, P), {}
    if name == "PF":
        return pp.module.PF(Nonlinear(), Q=Q, R=R, particles=16), (x, y, u, P), {}
    n_batch, ns, nc, T = 2, 4, 3, 4
    if name == "LTV":
        class TimeVarying(pp.module.LTV):
            def __init__(self, A: Any, B: Any, C: Any, D: Any, T: int) -> None:
                super().__init__(A, B, C, D)
                self.T = T

            @property
            def A(self) -> Any:
                return self._A[..., self._t % self.T, :, :]

            @property
            def B(self) -> Any:
                return self._B[..., self._t % self.T, :, :]

            @property
            def C(self) -> Any:
                return self._C[..., self._t % self.T, :, :]

            @property
            def D(self) -> Any:
                return self._D[..., self._t % self.T, :, :]

        A, B = torch.randn(n_batch, T, ns, ns), torch.randn(n_batch, T, ns, nc)
        C, D = torch.tile(torch.eye(ns), (n_batch, T, 1, 1)), torch.zeros(n_batch, T, ns, nc)
        ltv = TimeVarying(A, B, C, D, T)

        def rollout(m: Any, x_: Any, u_: Any) -> Any:
            outputs = []
            for t in range(3):
                x_, y_ = m(x_, u_[t])
                outputs.append(y_)
            return x_, torch.stack(outputs)

        return _run(ltv, rollout, [dynamics.LTV, dynamics.System.forward]), (torch.randn(ns), torch.randn(T, nc)), {}
    if name == "NLS":
        return CartPole(), (torch.tensor([0.0, 0.1, 3.0, 0.0]), torch.tensor([0.5])), {}
    if name == "NLS.linearize":
        def linearize(m: Any, x_: Any, u_: Any) -> Any:
            m.set_refpoint(state=x_, input=u_, t=torch.tensor(1.0))
            return m.A, m.B, m.C, m.D, m.c1, m.c2

        return _run(Nonlinear(), linearize, [dynamics.NLS.set_refpoint, dynamics.NLS.A, dynamics.NLS.c1]), \
            (torch.randn(3), torch.randn(3)), {}
    if name == "LQR.lti":
        nsc = ns + nc
        Qm = torch.randn(n_batch, T, nsc, nsc)
        Qm = Qm.mT @ Qm + 0.1 * torch.eye(nsc)
        p = torch.randn(n_batch, T, nsc)
        A = torch.tile(torch.eye(ns) + 0.2 * torch.randn(ns, ns), (n_batch, 1, 1))
        B, C = torch.randn(n_batch, ns, nc), torch.tile(torch.eye(ns), (n_batch, 1, 1))
        D, c1, c2 = torch.zeros(n_batch, ns, nc), torch.randn(n_batch, ns), torch.zeros(n_batch, ns)
        lqr = pp.module.LQR(pp.module.LTI(A, B, C, D, c1, c2), Qm, p, T)
        return lqr, (torch.randn(n_batch, ns),), {}
    # the cart-pole: one batch, 4 states, 1 control, 3 steps.
    T = 3
    Qm = torch.tile(torch.eye(5), (1, T, 1, 1))
    p = torch.randn(1, T, 5)
    x_init = torch.tensor([[0.0, 0.0, torch.pi, 0.0]])
    u_init = torch.sin(torch.arange(0, T) * 0.01).view(1, T, 1)
    if name == "LQR.cartpole":
        lqr = pp.module.LQR(CartPole(), Qm, p, T)
        return _run(lqr, lambda m, x_, u_: m(x_, 0.01, u_traj=u_), [pp.module.LQR]), (x_init, u_init), {}
    if name == "MPC.cartpole":
        stepper = pp.utils.ReduceToBason(steps=3)
        mpc = pp.module.MPC(CartPole(), Qm, p, T, stepper=stepper)
        return _run(mpc, lambda m, x_, u_: m(0.01, x_, u_init=u_), [pp.module.MPC]), (x_init, u_init), {}
    if name.startswith("EPnP"):
        K = torch.tensor([[2.0, 0.0, 4.5], [0.0, 2.0, 4.5], [0.0, 0.0, 1.0]])
        obj = torch.tensor([[2.0, 0.0, 2.0], [1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0],
                            [5.0, 5.0, 3.0]])
        pixels = pp.point2pixel(obj, K)
        pose = pp.SE3([0.0, -8, 0.0, 0.0, -0.3827, 0.0, 0.9239])
        points = pose.Inv().Act(obj)
        return pp.module.EPnP(K, refine=name == "EPnP"), (points, pixels), {}
    # ICP: three points moved by a small pose.
    source = torch.tensor([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.5]]])
    target = pp.SE3([0.2, 0.1, 0.0, 0.0, 0.0, 0.1987, 0.9801]).Act(source)
    if name == "ICP":
        return pp.module.ICP(stepper=pp.utils.ReduceToBason(steps=3)), (source, target), {}
    icp = pp.module.ICP(stepper=pp.utils.ReduceToBason(steps=3))
    return _run(icp, lambda m, s_, t_, X_: m(s_, t_, init=X_), [pp.module.ICP]), \
        (source, target, pp.randn_SE3(1, sigma=0.05)), {}


def _pose_inv(group: str = "se3") -> Any:
    """The pose-inversion problem of the optimizers' docstrings: a 2 x 2 batch of poses as the parameter."""
    from torch import nn

    import pypose as pp

    class PoseInv(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pose = pp.Parameter(pp.randn_se3(2, 2) if group == "se3" else pp.randn_SE3(2, 2))

        def forward(self, input: Any) -> Any:
            pose = self.pose.Exp() if group == "se3" else self.pose
            return (pose * input).Log().tensor()

    return PoseInv()


def _curve() -> Any:
    """A curve fit with plain parameters: ``y = a * exp(b * x) + c``."""
    import torch
    from torch import nn

    class Curve(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Parameter(torch.tensor([1.0]))
            self.b = nn.Parameter(torch.tensor([-0.5]))
            self.c = nn.Parameter(torch.tensor([0.1]))

        def forward(self, x: Any) -> Any:
            return (self.a * torch.exp(self.b * x) + self.c).unsqueeze(-1)

    return Curve()


def _pose_graph() -> tuple[Any, Any, Any]:
    """A chain of four SE3 poses with one loop closure: (model, edges, relative poses)."""
    import torch
    from torch import nn

    import pypose as pp

    class PoseGraph(nn.Module):
        def __init__(self, nodes: Any) -> None:
            super().__init__()
            self.nodes = pp.Parameter(nodes)

        def forward(self, edges: Any, poses: Any) -> Any:
            node1 = self.nodes[edges[..., 0]]
            node2 = self.nodes[edges[..., 1]]
            error = poses.Inv() * node1.Inv() * node2
            return error.Log().tensor()

    truth = pp.SE3(torch.tensor([[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
                                 [2.0, 0.5, 0.0, 0.0, 0.0, 0.1987, 0.9801], [2.5, 1.0, 0.2, 0.0, 0.0, 0.0, 1.0]]))
    edges = torch.tensor([[0, 1], [1, 2], [2, 3], [0, 3]])
    poses = truth[edges[:, 0]].Inv() * truth[edges[:, 1]]
    nodes = truth * pp.randn_SE3(4, sigma=0.1)
    return PoseGraph(nodes), edges, poses


def _optim(name: str) -> Built:
    import torch

    import pypose as pp
    from pypose.optim import corrector, kernel, optimizer, scheduler, solver, strategy

    if name.startswith("solver."):
        M = torch.randn(2, 4, 4)
        spd = M @ M.mT + 0.5 * torch.eye(4)
        b = torch.randn(2, 4, 1)
        if name == "solver.PINV":
            return solver.PINV(), (torch.randn(2, 4, 3), b), {}
        if name == "solver.LSTSQ":
            return solver.LSTSQ(driver="gels"), (spd, b), {}
        if name == "solver.Cholesky":
            return solver.Cholesky(), (spd, b), {}
        single = spd[0]
        if name == "solver.CG":
            return solver.CG(maxiter=6), (single, b[0]), {}
        return _run(solver.CG(maxiter=6, tol=1e-6), lambda s, a_, b_, m_: s(a_, b_.squeeze(-1), M=m_),
                    [solver.CG]), (single, b[0], torch.diag(1.0 / single.diagonal())), {}
    if name == "kernel.Huber":
        return kernel.Huber(), (torch.rand(2, 8) * 3.0,), {}
    if name == "kernel.smooth":
        kernels = torch.nn.ModuleList([kernel.PseudoHuber(), kernel.Cauchy(0.5), kernel.SoftLOne(), kernel.Arctan(),
                                       kernel.Tolerant(), kernel.Scale(0.5)])
        return _run(kernels, lambda ks, x_: [k(x_) for k in ks], [type(k) for k in kernels]), \
            (torch.rand(2, 8) * 3.0,), {}
    if name.startswith("corrector."):
        R, J = torch.randn(6, 3), torch.randn(18, 4)
        if name == "corrector.FastTriggs":
            return corrector.FastTriggs(kernel.Huber()), (R, J), {}
        return corrector.Triggs(kernel.Cauchy()), (R, J), {}
    entries: list[Any] = []
    if name.startswith("GN."):
        entries = [optimizer.GaussNewton.step]
    elif name.startswith("LM."):
        entries = [optimizer.LevenbergMarquardt.step]
    if name in ("GN.pose_inv", "LM.pose_inv"):  # the docstrings' problem: LieTensor parameters
        model = _pose_inv()
        opt = pp.optim.GN(model) if name.startswith("GN") else pp.optim.LM(model)
        return _run(model, lambda m, X_: opt.step(X_), entries), (_lt("SE3", 2, 2),), {}
    if name in ("GN.pose_graph", "LM.pose_graph"):
        model, edges, poses = _pose_graph()
        opt = pp.optim.GN(model) if name.startswith("GN") else \
            pp.optim.LM(model, strategy=strategy.Constant(damping=1e-4))
        return _run(model, lambda m, e_, p_: opt.step(input=(e_, p_)), entries), (edges, poses), {}
    # The curve fit (plain parameters) under each option of the optimizers.
    x = torch.linspace(0.0, 2.0, 8)
    y = (2.0 * torch.exp(-1.2 * x) + 0.3).unsqueeze(-1)
    y[3] += 1.0  # an outlier for the robust kernels
    if name == "LM.two_residuals":  # the fit plus a prior on the parameters, a kernel for the first only
        from torch import nn

        class TwoResiduals(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.curve = _curve()

            def forward(self, x_: Any) -> Any:
                return self.curve(x_), torch.cat([self.curve.a, self.curve.b, self.curve.c]).unsqueeze(0) * 0.1

        model = TwoResiduals()
        opt = pp.optim.LM(model, kernel=[kernel.Huber(), None])
        return _run(model, lambda m, x_, y_: opt.step(x_, (y_, torch.zeros(1, 3))), entries), (x, y), {}
    model = _curve()
    options: dict[str, Any] = {
        "GN.curve": {"solver": solver.LSTSQ()},
        "GN.kernel": {"kernel": kernel.Huber(delta=0.5)},
        "LM.curve": {},
        "LM.Adaptive": {"strategy": strategy.Adaptive(damping=1e-6)},
        "LM.Constant.PINV": {"solver": solver.PINV(), "strategy": strategy.Constant(damping=1e-4)},
        "LM.kernel.Triggs": {"kernel": kernel.Cauchy(), "corrector": corrector.Triggs(kernel.Cauchy())},
        "LM.weight": {"weight": torch.eye(1) * 2.0, "reject": 2},
        "StopOnPlateau.optimize": {"strategy": strategy.Constant(damping=1e-4)},
    }[name]
    opt = pp.optim.GN(model, **options) if name.startswith("GN") else pp.optim.LM(model, **options)
    if name == "StopOnPlateau.optimize":  # the scheduler runs the LM loop itself
        plateau = scheduler.StopOnPlateau(opt, steps=3, patience=2, decreasing=1e-3)
        return _run(model, lambda m, x_, y_: plateau.optimize(input=x_, target=y_),
                    [scheduler.StopOnPlateau.optimize]), (x, y), {}
    return _run(model, lambda m, x_, y_: opt.step(x_, y_), entries), (x, y), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LIE:
        return _lie(name)
    if name in LIE_EXTRA:
        return _lie_extra(name)
    if name in CONVERT:
        return _convert(name)
    if name in FUNCTIONS:
        return _functions(name)
    if name in MODULES:
        return _modules(name)
    if name in OPTIM:
        return _optim(name)
    raise KeyError(name)
