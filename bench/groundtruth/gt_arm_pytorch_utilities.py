"""Ground-truth bench, arm_pytorch_utilities: torch utilities for robot learning and control.

arm_pytorch_utilities 0.5.0 gathers what its authors' robotics projects share. Its torch side, exercised here:

- ``math_utils``: ``clip`` with tensor bounds, ``replace_nan_and_inf`` (``nan_to_num`` with ``out=``), ``get_bounds``,
  planar rotations (``rotate_wrt_origin`` with ``math.cos`` of the angle, ``batch_rotate_wrt_origin``), the angle
  between vectors (``angle_between``, ``angle_between_stable``, ``angle_between_batch``), angle differences
  (``angular_diff``, which branches on the difference, and ``angular_diff_batch``), ``angle_normalize``,
  ``cos_sim_pairwise``;
- ``linalg``: batched products (``batch_quadratic_product``, ``batch_outer_product``, ``batch_batch_product``),
  ``kronecker_product``, ``cov`` (numpy's options: ``rowvar``, ``bias``, ``ddof``, ``aweights`` as a tensor or a
  list), the matrix square root ``sqrtm`` (an autograd function through SciPy), least squares ``ls`` (a Cholesky
  autograd function, optionally weighted) and ``ls_cov`` (``lstsq``, the hat matrix, the parameters' covariance,
  the symmetry correction it logs when large);
- ``tensor_utils``: the ``ensure_2d_input`` and ``handle_batch_input`` decorators on a user's function (inputs
  with more, fewer or exactly the expected dimensions, tuple results; a scalar result of a batched input is left
  out: the decorator cannot reshape it and fails eagerly), ``ensure_tensor``, ``ensure_diagonal``
  (a number, a vector, a list), ``first_positive``;
- ``softknn.SoftKNN`` (a differentiable k-nearest-neighbour weighting: linear or sigmoid activation, a uniform
  threshold, L1 / L2 normalization);
- ``optim.Lookahead`` around SGD (with momentum pulled back, reset or kept) or Adam: a compiled training step,
  and an evaluation on the slow weights (``_backup_and_load_cache`` / ``_clear_and_load_backup``);
- ``grad``: ``jacobian`` and ``batch_jacobian`` of a network (``backward`` with the identity as seed);
- ``model.mdn.MixtureDensityNetwork`` (a categorical and a diagonal-normal head: forward, ``loss``, ``sample``,
  ``mean``, ``stddev``), ``model.make.make_sequential_network`` with a linear or a mixture-density end block;
- ``preprocess``: ``MinMaxScaler`` (per-dimension ranges, shared-scale groups), ``RobustMinMaxScaler``
  (``kthvalue``), ``StandardScaler``, ``AngleToCosSinRepresentation``, ``SelectTransformer``,
  ``NullSingleTransformer``, through ``PytorchTransformer`` and ``Compose`` (``fit``, ``transform``,
  ``invert_transform``, ``invert_x``);
- ``array_utils.extract_positive_weights`` (soft weights: a boolean mask), ``load_data.make_affine``,
  ``make_data``: ``select.identity_select`` and ``RandomSelector`` (thresholds drawn until each class is big
  enough), ``make.gt_model`` (a piecewise-linear ground truth over masked rows) and ``make.sort``.

Each model is a bench module around one of these with tiny random inputs (fixed seeds), called as a user's
compiled forward, loss or training step would. Left out: the NumPy / SciPy side (``gmm.GMM``, ``trajectory``'s
LQR, ``policy.lin_gauss``), which takes arrays and no tensors; ``simulation`` (needs ``pybullet``, not installed);
``draw`` (matplotlib); file loading and saving (``load_data.DataLoader``, ``make_data.datasource``, ``cache``,
``serialization``, ``model.common``'s checkpoints); ``rand`` (seeding). Nothing downloaded; ``names()`` needs no
torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Model name -> (kind, options); ``build`` dispatches on the kind.
MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    # math_utils
    "math.clip": ("math", {"fn": "clip"}),
    "math.replace_nan_and_inf": ("math", {"fn": "replace_nan_and_inf"}),
    "math.get_bounds": ("math", {"fn": "get_bounds"}),
    "math.rotate_wrt_origin.float": ("math", {"fn": "rotate_wrt_origin", "theta": "float"}),
    "math.rotate_wrt_origin.tensor": ("math", {"fn": "rotate_wrt_origin", "theta": "tensor"}),
    "math.batch_rotate_wrt_origin": ("math", {"fn": "batch_rotate_wrt_origin"}),
    "math.angle_between": ("math", {"fn": "angle_between"}),
    "math.angle_between_stable": ("math", {"fn": "angle_between_stable"}),
    "math.angle_between_batch": ("math", {"fn": "angle_between_batch"}),
    "math.angular_diff": ("math", {"fn": "angular_diff"}),
    "math.angular_diff.wrap": ("math", {"fn": "angular_diff", "wrap": True}),
    "math.angular_diff_batch": ("math", {"fn": "angular_diff_batch"}),
    "math.angle_normalize": ("math", {"fn": "angle_normalize"}),
    "math.cos_sim_pairwise.self": ("math", {"fn": "cos_sim_pairwise"}),
    "math.cos_sim_pairwise.two": ("math", {"fn": "cos_sim_pairwise", "two": True}),
    # linalg
    "linalg.batch_quadratic_product": ("linalg", {"fn": "batch_quadratic_product"}),
    "linalg.batch_outer_product": ("linalg", {"fn": "batch_outer_product"}),
    "linalg.batch_batch_product": ("linalg", {"fn": "batch_batch_product"}),
    "linalg.kronecker_product": ("linalg", {"fn": "kronecker_product"}),
    "linalg.cov": ("linalg", {"fn": "cov"}),
    "linalg.cov.rowvar": ("linalg", {"fn": "cov", "rowvar": True}),
    "linalg.cov.bias": ("linalg", {"fn": "cov", "bias": True}),
    "linalg.cov.ddof": ("linalg", {"fn": "cov", "ddof": 2}),
    "linalg.cov.aweights": ("linalg", {"fn": "cov", "aweights": "tensor"}),
    "linalg.cov.aweights_list": ("linalg", {"fn": "cov", "aweights": "list"}),
    "linalg.cov.aweights.bias": ("linalg", {"fn": "cov", "aweights": "tensor", "bias": True}),
    "linalg.cov.vector": ("linalg", {"fn": "cov", "vector": True}),
    "linalg.sqrtm": ("linalg", {"fn": "sqrtm"}),
    "linalg.ls": ("linalg", {"fn": "ls"}),
    "linalg.ls.weights": ("linalg", {"fn": "ls", "weights": True}),
    "linalg.ls_cov": ("linalg", {"fn": "ls_cov"}),
    "linalg.ls_cov.weights": ("linalg", {"fn": "ls_cov", "weights": True}),
    "linalg.ls_cov.no_symmetric": ("linalg", {"fn": "ls_cov", "make_symmetric": False}),
    # tensor_utils
    "tensor.ensure_2d_input.vector": ("ensure_2d", {"ndim": 1}),
    "tensor.ensure_2d_input.matrix": ("ensure_2d", {"ndim": 2}),
    "tensor.handle_batch_input.batched": ("handle_batch", {"ndim": 4}),
    "tensor.handle_batch_input.flat": ("handle_batch", {"ndim": 2}),
    "tensor.handle_batch_input.vector": ("handle_batch", {"ndim": 1}),
    "tensor.handle_batch_input.batched.tuple": ("handle_batch", {"ndim": 3, "tuple": True}),
    "tensor.handle_batch_input.vector.tuple": ("handle_batch", {"ndim": 1, "tuple": True}),
    "tensor.handle_batch_input.flat.scalar": ("handle_batch", {"ndim": 2, "reduce": True}),
    "tensor.ensure_tensor": ("tensor", {"fn": "ensure_tensor"}),
    "tensor.ensure_tensor.one": ("tensor", {"fn": "ensure_tensor_one"}),
    "tensor.ensure_diagonal.number": ("tensor", {"fn": "ensure_diagonal", "Q": "number"}),
    "tensor.ensure_diagonal.vector": ("tensor", {"fn": "ensure_diagonal", "Q": "vector"}),
    "tensor.ensure_diagonal.list": ("tensor", {"fn": "ensure_diagonal", "Q": "list"}),
    "tensor.ensure_diagonal.matrix": ("tensor", {"fn": "ensure_diagonal", "Q": "matrix"}),
    "tensor.first_positive": ("tensor", {"fn": "first_positive"}),
    # softknn
    "softknn.linear": ("softknn", {}),
    "softknn.sigmoid": ("softknn", {"activation": 5.0}),
    "softknn.uniform_threshold": ("softknn", {"uniform_threshold": True}),
    "softknn.normalize_l1": ("softknn", {"normalization": 1}),
    "softknn.sigmoid.uniform.l2": ("softknn", {"activation": 2.0, "uniform_threshold": True, "normalization": 2}),
    "softknn.train_step": ("softknn", {"normalization": 1, "train": True}),
    # optim.Lookahead
    "lookahead.sgd": ("lookahead", {"inner": "sgd"}),
    "lookahead.sgd.every_step": ("lookahead", {"inner": "sgd", "la_steps": 1}),
    "lookahead.sgd.pullback": ("lookahead", {"inner": "sgd", "la_steps": 1, "pullback_momentum": "pullback"}),
    "lookahead.sgd.reset": ("lookahead", {"inner": "sgd", "la_steps": 2, "pullback_momentum": "reset"}),
    "lookahead.adam": ("lookahead", {"inner": "adam", "la_steps": 2}),
    "lookahead.adam.closure": ("lookahead", {"inner": "adam", "la_steps": 1, "closure": True}),
    "lookahead.slow_weights_eval": ("lookahead", {"inner": "sgd", "slow_eval": True}),
    # grad
    "grad.jacobian": ("grad", {"fn": "jacobian"}),
    "grad.jacobian.vector": ("grad", {"fn": "jacobian", "vector": True}),
    "grad.jacobian.scalar_output": ("grad", {"fn": "jacobian", "scalar": True}),
    "grad.batch_jacobian": ("grad", {"fn": "batch_jacobian"}),
    # model
    "mdn.forward": ("mdn", {"op": "forward"}),
    "mdn.loss": ("mdn", {"op": "loss"}),
    "mdn.sample": ("mdn", {"op": "sample"}),
    "mdn.mean": ("mdn", {"op": "mean"}),
    "mdn.stddev": ("mdn", {"op": "stddev"}),
    "mdn.train_step": ("mdn", {"op": "train"}),
    "make.sequential.linear": ("make", {"end": "linear"}),
    "make.sequential.linear_tanh": ("make", {"end": "linear_tanh", "h_units": (8,)}),
    "make.sequential.mdn": ("make", {"end": "mdn"}),
    "make.sequential.affine_config": ("make", {"end": "linear", "n_input": True}),
    # preprocess
    "preprocess.minmax": ("preprocess", {"scaler": "minmax"}),
    "preprocess.minmax.range": ("preprocess", {"scaler": "minmax", "feature_range": (-1, 1)}),
    "preprocess.minmax.per_dim_range": ("preprocess", {"scaler": "minmax", "per_dim": True}),
    "preprocess.minmax.shared_scale": ("preprocess", {"scaler": "minmax", "shared": True}),
    "preprocess.minmax.constant_column": ("preprocess", {"scaler": "minmax", "constant": True}),
    "preprocess.robust_minmax": ("preprocess", {"scaler": "robust"}),
    "preprocess.standard": ("preprocess", {"scaler": "standard"}),
    "preprocess.angle_cos_sin": ("preprocess", {"scaler": "angle"}),
    "preprocess.select": ("preprocess", {"scaler": "select"}),
    "preprocess.null": ("preprocess", {"scaler": "null"}),
    "preprocess.pytorch_transformer": ("preprocess", {"scaler": "standard", "wrapped": True}),
    "preprocess.pytorch_transformer.angle": ("preprocess", {"scaler": "angle", "wrapped": True}),
    "preprocess.compose": ("preprocess", {"scaler": "compose", "wrapped": True}),
    "preprocess.fitted.transform": ("preprocess", {"scaler": "standard", "wrapped": True, "prefit": True}),
    "preprocess.fitted.minmax": ("preprocess", {"scaler": "minmax", "prefit": True}),
    "preprocess.fitted.compose": ("preprocess", {"scaler": "compose", "wrapped": True, "prefit": True}),
    # data helpers
    "array.extract_positive_weights.soft": ("data", {"fn": "extract_soft"}),
    "array.extract_positive_weights.hard": ("data", {"fn": "extract_hard"}),
    "array.extract_positive_weights.hard_numerical": ("data", {"fn": "extract_hard_numerical"}),
    "load_data.make_affine": ("data", {"fn": "make_affine"}),
    "make_data.identity_select": ("data", {"fn": "identity_select"}),
    "make_data.gt_model": ("data", {"fn": "gt_model"}),
    "make_data.gt_model.random_selector": ("data", {"fn": "gt_model_random"}),
    "make_data.sort": ("data", {"fn": "sort"}),
}


def names() -> list[str]:
    return list(MODELS)


def _math(options: dict[str, Any]) -> Built:
    import torch

    from arm_pytorch_utilities import math_utils as mu
    from gt_calls import Call, Run

    gen = torch.Generator().manual_seed(1)
    fn = options["fn"]
    u, v = torch.randn(5, 3, generator=gen), torch.randn(4, 3, generator=gen)
    if fn == "clip":
        return Call(mu.clip), (torch.randn(5, 3, generator=gen), -torch.rand(3, generator=gen),
                               torch.rand(3, generator=gen)), {}
    if fn == "replace_nan_and_inf":
        a = torch.randn(4, 3, generator=gen)
        a[0, 0], a[1, 1], a[2, 2] = float("nan"), float("inf"), -float("inf")
        return Run(None, lambda _, t: mu.replace_nan_and_inf(t.clone(), 0.5), [mu.replace_nan_and_inf]), (a,), {}
    if fn == "get_bounds":
        def run(_: Any, u_max: torch.Tensor) -> Any:
            low, high = mu.get_bounds(u_max=u_max)
            return mu.clip(u_max * 3, low, high)
        return Run(None, run, [mu.get_bounds, mu.clip]), (torch.rand(3, generator=gen),), {}
    if fn == "rotate_wrt_origin":
        if options["theta"] == "float":
            return Run(None, lambda _, xy: torch.stack(mu.rotate_wrt_origin(xy, 0.3)),
                       [mu.rotate_wrt_origin]), (torch.randn(2, 5, generator=gen),), {}
        return Run(None, lambda _, xy, th: torch.stack(mu.rotate_wrt_origin(xy, th)),
                   [mu.rotate_wrt_origin]), (torch.randn(2, 5, generator=gen), torch.tensor(0.7)), {}
    if fn == "batch_rotate_wrt_origin":
        return Call(mu.batch_rotate_wrt_origin), (torch.randn(5, 2, generator=gen), torch.rand(5, generator=gen)), {}
    if fn in ("angle_between", "angle_between_stable"):
        return Call(getattr(mu, fn)), (u, v), {}
    if fn == "angle_between_batch":
        return Call(mu.angle_between_batch), (u, torch.randn(5, 3, generator=gen)), {}
    if fn == "angular_diff":
        if options.get("wrap"):
            return Call(mu.angular_diff), (torch.tensor(3.0), torch.tensor(-3.0)), {}
        return Call(mu.angular_diff), (torch.tensor(0.4), torch.tensor(0.1)), {}
    if fn in ("angular_diff_batch",):
        return Call(mu.angular_diff_batch), (torch.randn(6, generator=gen) * 4, torch.randn(6, generator=gen) * 4), {}
    if fn == "angle_normalize":
        return Call(mu.angle_normalize), (torch.randn(6, generator=gen) * 8,), {}
    if options.get("two"):
        return Call(mu.cos_sim_pairwise), (u, v), {}
    return Call(mu.cos_sim_pairwise), (u,), {}


def _linalg(options: dict[str, Any]) -> Built:
    import torch

    from arm_pytorch_utilities import linalg
    from gt_calls import Call, Run

    gen = torch.Generator().manual_seed(1)
    fn = options["fn"]
    if fn == "batch_quadratic_product":
        a = torch.randn(3, 3, generator=gen)
        return Call(linalg.batch_quadratic_product), (torch.randn(5, 3, generator=gen), a @ a.t()), {}
    if fn == "batch_outer_product":
        return Call(linalg.batch_outer_product), (torch.randn(5, 3, generator=gen), torch.randn(5, 2, generator=gen)), {}
    if fn == "batch_batch_product":
        return Call(linalg.batch_batch_product), (torch.randn(5, 3, generator=gen),
                                                  torch.randn(5, 2, 3, generator=gen)), {}
    if fn == "kronecker_product":
        return Call(linalg.kronecker_product), (torch.randn(2, 2, generator=gen), torch.eye(3)), {}
    if fn == "cov":
        x = torch.randn(8, 3, generator=gen) if not options.get("vector") else torch.randn(8, generator=gen)
        static: dict[str, Any] = {k: options[k] for k in ("rowvar", "bias", "ddof") if k in options}
        if options.get("aweights") == "tensor":
            return Run(None, lambda _, x, w: linalg.cov(x, aweights=w, **static), [linalg.cov]), (
                x, torch.rand(8, generator=gen) + 0.1), {}
        if options.get("aweights") == "list":
            static["aweights"] = [0.5, 1.0, 1.5, 1.0, 0.5, 1.0, 2.0, 1.0]
        return Call(linalg.cov, **static), (x,), {}
    if fn == "sqrtm":
        a = torch.randn(3, 3, generator=gen)
        spd = (a @ a.t() + 3 * torch.eye(3)).double()

        def run(_: Any, m: torch.Tensor, w: torch.Tensor) -> Any:
            with torch.enable_grad():
                m = m.clone().requires_grad_(True)
                root = linalg.sqrtm(m)
                (root * w).sum().backward()
            return root.detach(), m.grad
        return Run(None, run, [linalg.MatrixSquareRoot]), (spd, torch.randn(3, 3, generator=gen).double()), {}
    x = torch.randn(10, 3, generator=gen, dtype=torch.double)
    y = x @ torch.randn(3, 2, generator=gen, dtype=torch.double) + 0.1 * torch.randn(10, 2, generator=gen,
                                                                                    dtype=torch.double)
    weights = torch.rand(10, generator=gen, dtype=torch.double) + 0.5
    if fn == "ls":
        def run_ls(_: Any, x: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> Any:
            with torch.enable_grad():
                x = x.clone().requires_grad_(True)
                params = linalg.ls(x, y, w if options.get("weights") else None)
                params.sum().backward()
            return params.detach(), x.grad
        return Run(None, run_ls, [linalg.ls, linalg.GELS]), (x, y, weights), {}
    static = {"make_symmetric": options.get("make_symmetric", True)}
    if options.get("weights"):
        return Call(linalg.ls_cov, **static), (x, y, weights), {}
    return Call(linalg.ls_cov, **static), (x, y), {}


def _ensure_2d(options: dict[str, Any]) -> Built:
    import torch

    from arm_pytorch_utilities import tensor_utils
    from gt_calls import Run

    weight = torch.randn(3, 2, generator=torch.Generator().manual_seed(2))

    @tensor_utils.ensure_2d_input
    def dynamics(x: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        return x + u @ weight.t()

    gen = torch.Generator().manual_seed(1)
    shape_x, shape_u = ((3,), (2,)) if options["ndim"] == 1 else ((4, 3), (4, 2))
    return Run(None, lambda _, x, u: dynamics(x, u), [tensor_utils.ensure_2d_input]), (
        torch.randn(*shape_x, generator=gen), torch.randn(*shape_u, generator=gen)), {}


def _handle_batch(options: dict[str, Any]) -> Built:
    import torch

    from arm_pytorch_utilities import tensor_utils
    from gt_calls import Run

    weight = torch.randn(3, 3, generator=torch.Generator().manual_seed(2))

    if options.get("tuple"):
        @tensor_utils.handle_batch_input(n=2)
        def cost(x: torch.Tensor, goal: torch.Tensor) -> Any:
            diff = x - goal
            return diff @ weight, (diff ** 2).sum(-1)
    elif options.get("reduce"):
        @tensor_utils.handle_batch_input(n=2)
        def cost(x: torch.Tensor, goal: torch.Tensor) -> Any:
            return ((x - goal) ** 2).sum()
    else:
        @tensor_utils.handle_batch_input(n=2)
        def cost(x: torch.Tensor, goal: torch.Tensor) -> Any:
            return torch.tanh((x - goal) @ weight)

    gen = torch.Generator().manual_seed(1)
    shape = {1: (3,), 2: (5, 3), 3: (2, 5, 3), 4: (2, 2, 5, 3)}[options["ndim"]]
    x = torch.randn(*shape, generator=gen)
    return Run(None, lambda _, x, g: cost(x, g), [tensor_utils.handle_batch_input]), (
        x, torch.randn(*shape, generator=gen)), {}


def _tensor(options: dict[str, Any]) -> Built:
    import torch

    from arm_pytorch_utilities import tensor_utils as tu
    from gt_calls import Call, Run

    gen = torch.Generator().manual_seed(1)
    fn = options["fn"]
    if fn == "ensure_tensor":
        def run(_: Any, x: torch.Tensor) -> Any:
            a, b, c = tu.ensure_tensor(x.device, torch.double, x, 0.5, [1.0, 2.0, 3.0])
            return a * b + c
        return Run(None, run, [tu.ensure_tensor]), (torch.randn(3, generator=gen),), {}
    if fn == "ensure_tensor_one":
        return Run(None, lambda _, x: tu.ensure_tensor(x.device, torch.float32, x) * 2,
                   [tu.ensure_tensor]), (torch.randn(3, generator=gen, dtype=torch.double),), {}
    if fn == "ensure_diagonal":
        q = options["Q"]

        def run_diag(_: Any, x: torch.Tensor) -> Any:
            if q == "number":
                Q = tu.ensure_diagonal(2.0, 3)
            elif q == "vector":
                Q = tu.ensure_diagonal(x.abs() + 0.1, 3)
            elif q == "list":
                Q = tu.ensure_diagonal([1.0, 2.0, 3.0], 3)
            else:
                Q = tu.ensure_diagonal(torch.diag(x), 3)
            return x @ Q @ x
        return Run(None, run_diag, [tu.ensure_diagonal]), (torch.randn(3, generator=gen),), {}
    return Call(tu.first_positive), (torch.randn(6, 3, generator=gen),), {}


def _softknn(options: dict[str, Any]) -> Built:
    import torch
    from torch import nn

    from arm_pytorch_utilities.softknn import SoftKNN

    gen = torch.Generator().manual_seed(1)
    keywords = {k: options[k] for k in ("activation", "uniform_threshold", "normalization") if k in options}
    knn = SoftKNN(min_k=3, **keywords)
    features = torch.randn(10, 4, generator=gen)
    if not options.get("train"):
        return knn, (features,), {}

    class _Step(nn.Module):
        """A learned feature map trained so that the soft neighbours predict the targets."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Linear(4, 3)
            self.knn = knn

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            weights = self.knn(self.embed(x))
            return ((weights @ y - y) ** 2).mean()

        def entry_points(self) -> list[Any]:
            return [SoftKNN]

    return _Step(), (features, torch.randn(10, 2, generator=gen)), {}


def _lookahead(options: dict[str, Any]) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from arm_pytorch_utilities.optim import Lookahead
    from gt_optimizer_bench import tiny_model

    net, x, y = tiny_model("mlp")
    if options["inner"] == "sgd":
        inner = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    else:
        inner = torch.optim.Adam(net.parameters(), lr=1e-2)
    keywords = {k: options[k] for k in ("la_steps", "pullback_momentum") if k in options}
    optimizer = Lookahead(inner, **keywords)
    if options.get("pullback_momentum") == "pullback":
        # the pullback reads SGD's momentum buffer: one eager step creates it
        optimizer.zero_grad()
        F.mse_loss(net(x), y).backward()
        inner.step()
    closure_mode = options.get("closure", False)
    slow_eval = options.get("slow_eval", False)

    class _TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            def loss_and_gradients() -> torch.Tensor:
                optimizer.zero_grad()
                with torch.enable_grad():
                    loss = F.mse_loss(self.net(x), y)
                    loss.backward()
                return loss

            if closure_mode:
                loss = optimizer.step(loss_and_gradients)
            else:
                loss = loss_and_gradients()
                optimizer.step()
            if slow_eval:
                optimizer._backup_and_load_cache()
                slow = self.net(x)
                optimizer._clear_and_load_backup()
                return slow + loss.detach()
            return self.net(x) + loss.detach()

        def entry_points(self) -> list[Any]:
            entries = [Lookahead.step, Lookahead.zero_grad]
            if slow_eval:
                entries += [Lookahead._backup_and_load_cache, Lookahead._clear_and_load_backup]
            return entries

    return _TrainStep(), (x, y), {}


def _grad(options: dict[str, Any]) -> Built:
    import torch
    from torch import nn

    from arm_pytorch_utilities import grad
    from gt_calls import Run

    gen = torch.Generator().manual_seed(1)
    out = 1 if options.get("scalar") else 3
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, out))
    fn = options["fn"]

    def run(owner: Any, x: torch.Tensor) -> Any:
        with torch.enable_grad():
            if fn == "jacobian":
                return getattr(grad, fn)(owner, x)
            return grad.batch_jacobian(owner, x)

    shape = (4,) if options.get("vector") else (1, 4) if fn == "jacobian" else (5, 4)
    return Run(net, run, [getattr(grad, fn)]), (torch.randn(*shape, generator=gen),), {}


def _mdn(options: dict[str, Any]) -> Built:
    import torch
    from torch import nn

    from arm_pytorch_utilities.model.mdn import MixtureDensityNetwork as MDN
    from gt_calls import Run

    gen = torch.Generator().manual_seed(1)
    mdn = MDN(4, 2, 3)
    x, y = torch.randn(6, 4, generator=gen), torch.randn(6, 2, generator=gen)
    op = options["op"]
    if op == "forward":
        return Run(mdn, lambda m, x: tuple(d.mean for d in m(x)), [MDN]), (x,), {}
    if op in ("loss", "sample", "mean", "stddev"):
        def run(m: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            pi, normal = m(x)
            if op == "loss":
                return MDN.loss(pi, normal, y).mean()
            return getattr(MDN, op)(pi, normal)
        return Run(mdn, run, [MDN, getattr(MDN, op)]), (x, y), {}
    optimizer = torch.optim.Adam(mdn.parameters(), lr=1e-3)

    class _Step(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mdn = mdn

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            optimizer.zero_grad()
            with torch.enable_grad():
                pi, normal = self.mdn(x)
                loss = MDN.loss(pi, normal, y).mean()
                loss.backward()
            optimizer.step()
            return loss.detach()

        def entry_points(self) -> list[Any]:
            return [MDN, MDN.loss]

    return _Step(), (x, y), {}


def _make(options: dict[str, Any]) -> Built:
    import torch

    from arm_pytorch_utilities.load_data import DataConfig
    from arm_pytorch_utilities.model import make
    from gt_calls import Run

    gen = torch.Generator().manual_seed(1)
    config = DataConfig()
    x, u, y = torch.randn(5, 3, generator=gen), torch.randn(5, 2, generator=gen), torch.randn(5, 3, generator=gen)
    if options.get("n_input"):
        config.load_data_info(x, u, y, full_input=torch.cat((x, u, torch.ones(5, 1)), dim=1))
    else:
        config.load_data_info(x, u, y)
    end = options["end"]
    if end == "mdn":
        factory = make.make_mdn_end_block(num_components=2)
    elif end == "linear_tanh":
        factory = make.make_linear_end_block(activation=torch.nn.Tanh())
    else:
        factory = make.make_linear_end_block()
    net = make.make_sequential_network(config, end_block_factory=factory, h_units=options.get("h_units", (8, 8)))
    xu = torch.cat((x, u), dim=1).double()
    if options.get("n_input"):
        xu = torch.cat((xu, torch.ones(5, 1, dtype=torch.double)), dim=1)
    if end == "mdn":
        from arm_pytorch_utilities.model.mdn import MixtureDensityNetwork as MDN

        def run(n: Any, xu: torch.Tensor, y: torch.Tensor) -> Any:
            pi, normal = n(xu)
            return MDN.loss(pi, normal, y).mean()
        return Run(net, run, [MDN]), (xu, y.double()), {}
    return net, (xu,), {}


def _preprocess(options: dict[str, Any]) -> Built:
    import math

    import torch

    from arm_pytorch_utilities import preprocess as pp
    from gt_calls import Run

    gen = torch.Generator().manual_seed(1)
    xu = torch.randn(12, 4, generator=gen) * 3
    y = torch.randn(12, 3, generator=gen)
    scaler = options["scaler"]

    def single(kind: str) -> Any:
        if kind == "minmax":
            keywords: dict[str, Any] = {}
            if "feature_range" in options:
                keywords["feature_range"] = options["feature_range"]
            if options.get("per_dim"):
                keywords["feature_range"] = [[-1.0, 0.0], [1.0, 2.0]]
            if options.get("shared"):
                keywords["dims_share_scale"] = [[0, 1]]
            return pp.MinMaxScaler(**keywords)
        if kind == "robust":
            return pp.RobustMinMaxScaler(percentile=0.9)
        if kind == "standard":
            return pp.StandardScaler()
        if kind == "angle":
            return pp.AngleToCosSinRepresentation(1)
        if kind == "select":
            return pp.SelectTransformer([0, 2])
        return pp.NullSingleTransformer()

    if options.get("constant"):
        xu[:, 2] = 1.5
    if options.get("wrapped"):
        if scaler == "compose":
            transformer: Any = pp.Compose([pp.PytorchTransformer(pp.AngleToCosSinRepresentation(0),
                                                                 pp.NullSingleTransformer()),
                                           pp.PytorchTransformer(pp.StandardScaler()),
                                           pp.PytorchTransformer(pp.MinMaxScaler())])
        else:
            transformer = pp.PytorchTransformer(single(scaler))
        entries: list[Any] = [type(transformer).transform, type(transformer).invert_transform]
        if options.get("prefit"):
            transformer.fit(xu, y)

            def run(t: Any, xu: torch.Tensor, y: torch.Tensor) -> Any:
                txu, ty, _ = t.transform(xu, y)
                return txu.sum(-1, keepdim=True) + t.invert_transform(ty)
        else:
            entries.append(pp.Transformer.fit)

            def run(t: Any, xu: torch.Tensor, y: torch.Tensor) -> Any:
                t.fitted = False
                t.fit(xu, y)
                txu, ty, _ = t.transform(xu, y)
                back = t.invert_x(txu) if scaler != "compose" else txu
                return back.sum(-1, keepdim=True) + t.invert_transform(ty)
        return Run(transformer, run, entries), (xu, y), {}

    method = single(scaler)
    cls = type(method)
    if options.get("prefit"):
        method.fit(xu)

        def run_single(m: Any, x: torch.Tensor, _: torch.Tensor) -> Any:
            return m.inverse_transform(m.transform(x) * 0.5)
        return Run(method, run_single, [cls.transform, cls.inverse_transform]), (xu, y), {}

    def run_fit(m: Any, x: torch.Tensor, _: torch.Tensor) -> Any:
        m.fit(x)
        t = m.transform(x)
        return m.inverse_transform(t), m.data_dim_change()[0] + 0 * math.pi
    return Run(method, run_fit, [cls.fit, cls.transform, cls.inverse_transform]), (xu, y), {}


def _data(options: dict[str, Any]) -> Built:
    import torch

    from arm_pytorch_utilities import array_utils, load_data
    from arm_pytorch_utilities.make_data import make, select
    from gt_calls import Call, Run

    gen = torch.Generator().manual_seed(1)
    fn = options["fn"]
    if fn == "extract_soft":
        def run(_: Any, w: torch.Tensor) -> Any:
            mask, values, n = array_utils.extract_positive_weights(w)
            return values * n, mask
        return Run(None, run, [array_utils.extract_positive_weights]), (torch.randn(8, generator=gen),), {}
    if fn in ("extract_hard", "extract_hard_numerical"):
        numerical = fn == "extract_hard_numerical"

        def run_hard(_: Any, idx: torch.Tensor, x: torch.Tensor) -> Any:
            indices, weights, n = array_utils.extract_positive_weights(idx, force_numerical_weights=numerical)
            picked = x[indices]
            return picked * weights[:, None] if weights is not None else picked / n
        return Run(None, run_hard, [array_utils.extract_positive_weights]), (
            torch.tensor([0, 2, 3]), torch.randn(5, 2, generator=gen, dtype=torch.double)), {}
    if fn == "make_affine":
        return Call(load_data.make_affine), (torch.randn(5, 3, generator=gen),), {}
    xu = torch.cat((torch.rand(20, 2, generator=gen) * 8 - 4, torch.ones(20, 1)), dim=1).double()
    if fn == "identity_select":
        return Call(select.identity_select), (xu,), {}
    params = torch.randn(3, 3, 2, generator=gen, dtype=torch.double)
    if fn == "gt_model":
        return Run(None, lambda _, xu, p: make.gt_model(xu, p, 2, 3), [make.gt_model, select.identity_select]), (
            xu, params), {}
    if fn == "gt_model_random":
        selector = select.RandomSelector(lambda v: v[:, 0], 0.1)

        def run_random(_: Any, xu: torch.Tensor, p: torch.Tensor) -> Any:
            return make.gt_model(xu, p, 2, 3, selector=selector)
        return Run(None, run_random, [make.gt_model, select.RandomSelector]), (xu, params), {}
    labels = torch.randint(0, 3, (20,), generator=gen)
    return Call(make.sort), (xu, torch.randn(20, 2, generator=gen), labels), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    kind, options = MODELS[name]
    builders = {"math": _math, "linalg": _linalg, "ensure_2d": _ensure_2d, "handle_batch": _handle_batch,
                "tensor": _tensor, "softknn": _softknn, "lookahead": _lookahead, "grad": _grad, "mdn": _mdn,
                "make": _make, "preprocess": _preprocess, "data": _data}
    return builders[kind](dict(options))
