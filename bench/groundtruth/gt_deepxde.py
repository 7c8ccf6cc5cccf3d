"""Ground-truth bench, deepxde (pytorch backend): its networks, and the losses of small PINN and operator problems.

``NETWORKS`` builds each network of ``deepxde.nn`` for the pytorch backend at tiny sizes in the
configurations that change its code: ``FNN`` (activations by name, a list of them, a layer-wise
locally adaptive ``LAAF`` one, feature and output transforms), ``PFNN`` (parallel, shared then
parallel, parallel then shared, per-subnetwork outputs), ``DeepONet`` and ``DeepONetCartesianProd``
(one output, and two outputs under each multi-output strategy, a user-defined branch net),
``PODDeepONet``, ``MIONetCartesianProd`` (merge by product, sum or concatenation into a merger net, an
output merger) and ``PODMIONet``; the compiled call is the network's ``forward``. (``ResNet`` exists for
the TensorFlow backends only.)

``PROBLEMS`` are small problems from deepxde's examples, each a ``dde.Model`` of a ``dde.data`` set and
a network, compiled with ``Model.compile("adam")`` as users do. Its training loss is what is compiled:
``Model.outputs_losses_train`` (what ``Model.train`` differentiates each step), which runs the network
and the data's losses: PDE residuals through ``dde.grad.jacobian``/``hessian``, boundary and initial
conditions (Dirichlet, Neumann, Robin, periodic, operator, point-set, IC), loss weights, external
trainable variables of an inverse problem, auxiliary variables, an integro-differential equation, and
operator learning (``Triple``, ``TripleCartesianProd``, the physics-informed ``PDEOperator`` and
``PDEOperatorCartesianProd`` over a Gaussian random field, and its zero-coordinate-shift variant
``dde.zcs``). ``<problem>.predict`` compiles ``Model.outputs`` (what ``predict`` calls). ``GRADIENTS``
and ``LOSSES`` call ``dde.grad`` and ``dde.losses`` directly. The residuals need gradients with respect
to the inputs, so the bench wrapper (``Losses``) turns them on in eval mode too, as deepxde evaluates
its test losses with them on. Random weights and sampled points, nothing downloaded; ``names()`` needs
no torch and ``build(name)`` runs in a worker only, with ``DDE_BACKEND=pytorch``.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
HIDDEN, BATCH, SENSORS, POINTS = 16, 6, 5, 7  # width, functions (or samples), branch inputs, trunk points
INIT = "Glorot normal"

# name -> (class of ``deepxde.nn``, keywords); ``_transform`` and the output widths of the branch and
# trunk nets (``_branch``, ``_trunk``: twice as wide where one is split between two outputs) are read by
# ``_network``.
NETWORKS: dict[str, tuple[str, dict[str, Any]]] = {
    "FNN.tanh": ("FNN", {"layer_sizes": [2, HIDDEN, HIDDEN, 1], "activation": "tanh"}),
    "FNN.sin": ("FNN", {"layer_sizes": [2, HIDDEN, HIDDEN, 1], "activation": "sin"}),
    "FNN.relu": ("FNN", {"layer_sizes": [2, HIDDEN, HIDDEN, 1], "activation": "relu",
                         "kernel_initializer": "He uniform"}),
    "FNN.swish": ("FNN", {"layer_sizes": [2, HIDDEN, HIDDEN, 1], "activation": "swish"}),
    "FNN.activation_list": ("FNN", {"layer_sizes": [2, HIDDEN, HIDDEN, 1], "activation": ["tanh", "sin", None]}),
    "FNN.LAAF": ("FNN", {"layer_sizes": [2, HIDDEN, HIDDEN, 1], "activation": "LAAF-10 tanh"}),
    "FNN.feature_transform": ("FNN", {"layer_sizes": [4, HIDDEN, 1], "activation": "tanh", "_transform": "feature"}),
    "FNN.output_transform": ("FNN", {"layer_sizes": [2, HIDDEN, 1], "activation": "tanh", "_transform": "output"}),
    "PFNN.parallel": ("PFNN", {"layer_sizes": [2, [8, 8], [8, 8], 2], "activation": "tanh"}),
    "PFNN.shared_then_parallel": ("PFNN", {"layer_sizes": [2, HIDDEN, [8, 8], 2], "activation": "tanh"}),
    "PFNN.parallel_then_shared": ("PFNN", {"layer_sizes": [2, [8, 8], HIDDEN, 2], "activation": "tanh"}),
    "PFNN.list_output": ("PFNN", {"layer_sizes": [2, [8, 8], [1, 2]], "activation": "tanh"}),
    "DeepONet": ("DeepONet", {}),
    "DeepONet.independent": ("DeepONet", {"num_outputs": 2, "multi_output_strategy": "independent"}),
    "DeepONet.split_both": ("DeepONet", {"num_outputs": 2, "multi_output_strategy": "split_both"}),
    "DeepONet.split_branch": ("DeepONet", {"num_outputs": 2, "multi_output_strategy": "split_branch",
                                           "_branch": 2 * HIDDEN}),
    "DeepONet.split_trunk": ("DeepONet", {"num_outputs": 2, "multi_output_strategy": "split_trunk",
                                          "_trunk": 2 * HIDDEN}),
    "DeepONet.user_branch": ("DeepONet", {"_transform": "branch"}),
    "DeepONetCartesianProd": ("DeepONetCartesianProd", {}),
    "DeepONetCartesianProd.independent": ("DeepONetCartesianProd", {"num_outputs": 2,
                                                                     "multi_output_strategy": "independent"}),
    "DeepONetCartesianProd.split_both": ("DeepONetCartesianProd", {"num_outputs": 2,
                                                                    "multi_output_strategy": "split_both"}),
    "DeepONetCartesianProd.split_branch": ("DeepONetCartesianProd", {"num_outputs": 2, "_branch": 2 * HIDDEN,
                                                                      "multi_output_strategy": "split_branch"}),
    "DeepONetCartesianProd.split_trunk": ("DeepONetCartesianProd", {"num_outputs": 2, "_trunk": 2 * HIDDEN,
                                                                     "multi_output_strategy": "split_trunk"}),
    "DeepONetCartesianProd.feature_transform": ("DeepONetCartesianProd", {"_transform": "feature"}),
    "PODDeepONet": ("PODDeepONet", {}),
    "PODDeepONet.trunk": ("PODDeepONet", {"layer_sizes_trunk": [1, HIDDEN, 4]}),
    "MIONetCartesianProd.mul": ("MIONetCartesianProd", {}),
    "MIONetCartesianProd.add": ("MIONetCartesianProd", {"merge_operation": "add", "trunk_last_activation": True}),
    "MIONetCartesianProd.cat_merger": ("MIONetCartesianProd", {"merge_operation": "cat",
                                                               "layer_sizes_merger": [2 * HIDDEN, HIDDEN]}),
    "MIONetCartesianProd.output_merger": ("MIONetCartesianProd", {"output_merge_operation": "cat",
                                                                  "layer_sizes_output_merger": [2 * HIDDEN, 1]}),
    "PODMIONet": ("PODMIONet", {}),
    "PODMIONet.trunk": ("PODMIONet", {"layer_sizes_trunk": [1, HIDDEN, 4]}),
}
PROBLEMS = (
    "poisson_1d.dirichlet", "poisson_1d.neumann_robin", "poisson_1d.periodic", "poisson_1d.hard_constraint",
    "poisson_1d.mae_loss_weights", "poisson_1d.operator_bc", "poisson_lshape", "helmholtz_2d", "burgers",
    "heat", "kovasznay", "lotka_volterra", "lorenz_inverse", "pfnn_system", "auxiliary_variable",
    "volterra_ide", "function", "triple.deeponet", "triple_cartesian.deeponet", "pde_operator.deeponet",
    "pde_operator_cartesian.deeponet", "zcs.pde_operator_cartesian",
)
PREDICT = ("poisson_1d.dirichlet", "burgers", "triple_cartesian.deeponet")
GRADIENTS = ("jacobian", "hessian", "jacobian.components", "hessian.components")
# (``mean_absolute_percentage_error``, ``softmax_cross_entropy`` and ``zero`` call TensorFlow, whatever
# the backend.)
LOSSES = ("mean_absolute_error", "mean_squared_error", "mean_l2_relative_error")


def names() -> list[str]:
    return (list(NETWORKS) + [f"pinn.{p}" for p in PROBLEMS] + [f"pinn.{p}.predict" for p in PREDICT]
            + [f"grad.{g}" for g in GRADIENTS] + [f"losses.{loss}" for loss in LOSSES])


def _dde() -> Any:
    import os

    os.environ["DDE_BACKEND"] = "pytorch"
    import deepxde

    return deepxde


def _network(name: str) -> Built:
    import numpy as np
    import torch
    from torch import nn

    dde = _dde()
    cls, keywords = NETWORKS[name]
    keywords = dict(keywords)
    transform = keywords.pop("_transform", None)
    branch_width, trunk_width = keywords.pop("_branch", HIDDEN), keywords.pop("_trunk", HIDDEN)
    gen = torch.Generator().manual_seed(1)
    v = torch.randn(BATCH, SENSORS, generator=gen)
    v2 = torch.randn(BATCH, SENSORS, generator=gen)
    x_loc = torch.rand(POINTS, 1, generator=gen)
    if cls in ("FNN", "PFNN"):
        keywords.setdefault("kernel_initializer", INIT)
        net = getattr(dde.nn, cls)(**keywords)
        if transform == "feature":  # Fourier features of (x, t)
            net.apply_feature_transform(lambda x: torch.cat([torch.sin(np.pi * x), torch.cos(np.pi * x)], 1))
        if transform == "output":  # a hard zero boundary condition on x = 0 and x = 1
            net.apply_output_transform(lambda x, y: x[:, 0:1] * (1 - x[:, 0:1]) * y)
        return net, (torch.rand(BATCH, 2, generator=gen),), {}
    if cls == "DeepONet":
        branch: Any = [SENSORS, HIDDEN, branch_width]
        if transform == "branch":  # a user-defined branch net: a 1-D convolution over the sensors
            branch = [SENSORS, nn.Sequential(nn.Unflatten(1, (1, SENSORS)), nn.Conv1d(1, 4, 3), nn.Flatten(),
                                             nn.Linear(4 * (SENSORS - 2), HIDDEN))]
        net = dde.nn.DeepONet(branch, [1, HIDDEN, trunk_width], "tanh", INIT, **keywords)
        return net, ((v, torch.rand(BATCH, 1, generator=gen)),), {}
    if cls == "DeepONetCartesianProd":
        net = dde.nn.DeepONetCartesianProd([SENSORS, HIDDEN, branch_width], [1, HIDDEN, trunk_width], "tanh",
                                           INIT, **keywords)
        if transform == "feature":  # periodic features of the trunk's coordinate
            net = dde.nn.DeepONetCartesianProd([SENSORS, HIDDEN, HIDDEN], [2, HIDDEN, HIDDEN], "tanh", INIT)
            net.apply_feature_transform(lambda x: torch.cat([torch.sin(2 * np.pi * x), torch.cos(2 * np.pi * x)], 1))
        return net, ((v, x_loc),), {}
    pod_basis = np.random.default_rng(0).normal(size=(POINTS, 4)).astype(np.float32)
    if cls == "PODDeepONet":
        return dde.nn.PODDeepONet(pod_basis, [SENSORS, HIDDEN, 4 + 4 * ("layer_sizes_trunk" in keywords)],
                                  "tanh", INIT, **keywords), ((v, x_loc),), {}
    if cls == "PODMIONet":
        width = 4 + 4 * ("layer_sizes_trunk" in keywords)
        net = dde.nn.PODMIONet(pod_basis, [SENSORS, HIDDEN, width], [SENSORS, HIDDEN, width], "tanh", INIT,
                               **keywords)
        return net, ((v, v2, x_loc),), {}
    activation: Any = "tanh"
    if "layer_sizes_merger" in keywords or "layer_sizes_output_merger" in keywords:
        activation = {"branch1": "tanh", "branch2": "tanh", "trunk": "tanh", "merger": "tanh",
                      "output merger": "tanh"}
    net = dde.nn.MIONetCartesianProd([SENSORS, HIDDEN, HIDDEN], [SENSORS, HIDDEN, HIDDEN], [1, HIDDEN, HIDDEN],
                                     activation, INIT, **keywords)
    return net, ((v, v2, x_loc),), {}


def _data_and_net(problem: str) -> tuple[Any, Any, dict[str, Any]]:
    """``(data, net, compile keywords)`` of one of ``PROBLEMS``, after deepxde's examples."""
    import numpy as np
    import torch

    dde = _dde()
    grad = dde.grad
    fnn = lambda sizes, activation="tanh": dde.nn.FNN(sizes, activation, INIT)  # noqa: E731
    interval = dde.geometry.Interval(-1, 1)

    def poisson(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return -grad.hessian(y, x) - np.pi ** 2 * torch.sin(np.pi * x)

    def boundary_l(x: Any, on_boundary: bool) -> bool:
        return on_boundary and np.isclose(x[0], -1)

    def boundary_r(x: Any, on_boundary: bool) -> bool:
        return on_boundary and np.isclose(x[0], 1)

    def boundary(_: Any, on_boundary: bool) -> bool:
        return on_boundary

    def zero(x: Any) -> Any:
        return np.zeros((len(x), 1))

    pinn = {"num_domain": 16, "num_boundary": 2}
    if problem.startswith("poisson_1d."):
        variant = problem.split(".", 1)[1]
        bcs: list[Any] = [dde.icbc.DirichletBC(interval, zero, boundary_l)]
        if variant == "neumann_robin":
            bcs = [dde.icbc.NeumannBC(interval, lambda x: 2 * (x + 1), boundary_l),
                   dde.icbc.RobinBC(interval, lambda x, y: y, boundary_r)]
        elif variant == "periodic":
            bcs = [dde.icbc.DirichletBC(interval, zero, boundary), dde.icbc.PeriodicBC(interval, 0, boundary)]
        elif variant == "operator_bc":  # y'(1) = 0 imposed through an operator on the boundary
            bcs.append(dde.icbc.OperatorBC(interval, lambda x, y, _: grad.jacobian(y, x), boundary_r))
        else:
            bcs.append(dde.icbc.DirichletBC(interval, zero, boundary_r))
        data = dde.data.PDE(interval, poisson, [] if variant == "hard_constraint" else bcs, num_test=8, **pinn)
        net = fnn([1, HIDDEN, HIDDEN, 1])
        if variant == "hard_constraint":
            net.apply_output_transform(lambda x, y: (1 - x ** 2) * y)
        if variant == "mae_loss_weights":
            return data, net, {"loss": "MAE", "loss_weights": [1.0, 10.0, 10.0]}
        return data, net, {}
    if problem == "poisson_lshape":
        geom = dde.geometry.Polygon([[0, 0], [1, 0], [1, -1], [-1, -1], [-1, 1], [0, 1]])

        def lshape(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return -grad.hessian(y, x, i=0, j=0) - grad.hessian(y, x, i=1, j=1) - 1

        data = dde.data.PDE(geom, lshape, dde.icbc.DirichletBC(geom, zero, boundary), num_domain=24,
                            num_boundary=8)
        return data, fnn([2, HIDDEN, HIDDEN, 1]), {}
    if problem == "helmholtz_2d":
        geom = dde.geometry.Rectangle([0, 0], [1, 1])
        k0 = 2 * np.pi

        def helmholtz(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            dy_xx, dy_yy = grad.hessian(y, x, i=0, j=0), grad.hessian(y, x, i=1, j=1)
            f = k0 ** 2 * torch.sin(k0 * x[:, 0:1]) * torch.sin(k0 * x[:, 1:2])
            return -dy_xx - dy_yy - k0 ** 2 * y - f

        data = dde.data.PDE(geom, helmholtz, dde.icbc.DirichletBC(geom, zero, boundary), num_domain=24,
                            num_boundary=8)
        return data, fnn([2, HIDDEN, HIDDEN, 1], "sin"), {}
    if problem in ("burgers", "heat"):
        geomtime = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 0.5))

        def burgers(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            dy_x, dy_t = grad.jacobian(y, x, i=0, j=0), grad.jacobian(y, x, i=0, j=1)
            return dy_t + y * dy_x - 0.01 / np.pi * grad.hessian(y, x, i=0, j=0)

        def heat(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return grad.jacobian(y, x, i=0, j=1) - 0.4 * grad.hessian(y, x, i=0, j=0)

        bc = dde.icbc.DirichletBC(geomtime, zero, lambda _, on_boundary: on_boundary)
        ic = dde.icbc.IC(geomtime, lambda x: -np.sin(np.pi * x[:, 0:1]), lambda _, on_initial: on_initial)
        data = dde.data.TimePDE(geomtime, burgers if problem == "burgers" else heat, [bc, ic], num_domain=24,
                                num_boundary=6, num_initial=6)
        return data, fnn([2, HIDDEN, HIDDEN, 1]), {}
    if problem == "kovasznay":  # steady Navier-Stokes: velocity (u, v) and pressure p
        geom = dde.geometry.Rectangle([-0.5, -0.5], [1, 1.5])
        re = 20.0

        def navier_stokes(x: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:
            u, v = y[:, 0:1], y[:, 1:2]
            u_x, u_y = grad.jacobian(y, x, i=0, j=0), grad.jacobian(y, x, i=0, j=1)
            v_x, v_y = grad.jacobian(y, x, i=1, j=0), grad.jacobian(y, x, i=1, j=1)
            p_x, p_y = grad.jacobian(y, x, i=2, j=0), grad.jacobian(y, x, i=2, j=1)
            u_xx, u_yy = grad.hessian(y, x, component=0, i=0, j=0), grad.hessian(y, x, component=0, i=1, j=1)
            v_xx, v_yy = grad.hessian(y, x, component=1, i=0, j=0), grad.hessian(y, x, component=1, i=1, j=1)
            return [u * u_x + v * u_y + p_x - (u_xx + u_yy) / re, u * v_x + v * v_y + p_y - (v_xx + v_yy) / re,
                    u_x + v_y]

        bcs = [dde.icbc.DirichletBC(geom, zero, boundary, component=c) for c in range(3)]
        data = dde.data.PDE(geom, navier_stokes, bcs, num_domain=24, num_boundary=8)
        return data, fnn([2, HIDDEN, HIDDEN, 3]), {}
    if problem == "lotka_volterra":
        geom = dde.geometry.TimeDomain(0, 1)

        def ode(x: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:
            r, p = y[:, 0:1], y[:, 1:2]
            return [grad.jacobian(y, x, i=0) - (2 * r - 0.04 * r * p), grad.jacobian(y, x, i=1) - (0.02 * r * p - 1.06 * p)]

        ics = [dde.icbc.IC(geom, lambda x: np.full((len(x), 1), c), lambda _, on_initial: on_initial, component=i)
               for i, c in enumerate((0.5, 0.3))]
        data = dde.data.PDE(geom, ode, ics, num_domain=16, num_boundary=2)
        return data, fnn([1, HIDDEN, HIDDEN, 2]), {}
    if problem == "lorenz_inverse":  # the Lorenz system's coefficients learnt from observations
        geom = dde.geometry.TimeDomain(0, 1)
        c1, c2, c3 = dde.Variable(1.0), dde.Variable(1.0), dde.Variable(1.0)

        def lorenz(x: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:
            y1, y2, y3 = y[:, 0:1], y[:, 1:2], y[:, 2:]
            return [grad.jacobian(y, x, i=0) - c1 * (y2 - y1), grad.jacobian(y, x, i=1) - y1 * (c2 - y3) + y2,
                    grad.jacobian(y, x, i=2) - y1 * y2 + c3 * y3]

        observe_t = np.linspace(0, 1, 6)[:, None]
        observe_y = np.random.default_rng(0).normal(size=(6, 3))
        bcs = [dde.icbc.PointSetBC(observe_t, observe_y[:, c:c + 1], component=c) for c in range(3)]
        data = dde.data.PDE(geom, lorenz, bcs, num_domain=16, num_boundary=2, anchors=observe_t)
        return data, fnn([1, HIDDEN, HIDDEN, 3]), {"external_trainable_variables": [c1, c2, c3]}
    if problem == "pfnn_system":  # two coupled Poisson equations, one sub-network per unknown
        def coupled(x: torch.Tensor, y: torch.Tensor) -> list[torch.Tensor]:
            return [-grad.hessian(y, x, component=0) - y[:, 1:2], -grad.hessian(y, x, component=1) - 1]

        bcs = [dde.icbc.DirichletBC(interval, zero, boundary, component=c) for c in range(2)]
        data = dde.data.PDE(interval, coupled, bcs, **pinn)
        return data, dde.nn.PFNN([1, [8, 8], [8, 8], 2], "tanh", INIT), {}
    if problem == "auxiliary_variable":  # a coefficient field known at the points: -(a(x) y')' = 1
        def variable(x: torch.Tensor, y: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
            return -a * grad.hessian(y, x) - 1

        data = dde.data.PDE(interval, variable, dde.icbc.DirichletBC(interval, zero, boundary),
                            auxiliary_var_function=lambda x: (1 + x ** 2).astype(np.float32), **pinn)
        return data, fnn([1, HIDDEN, HIDDEN, 1]), {}
    if problem == "volterra_ide":  # y' + y = int_0^x y(t) dt, y(0) = 1
        geom = dde.geometry.TimeDomain(0, 2)

        def ide(x: torch.Tensor, y: torch.Tensor, int_mat: Any) -> torch.Tensor:
            rhs = torch.mm(torch.as_tensor(int_mat, dtype=y.dtype), y)
            return (grad.jacobian(y, x) + y)[: len(rhs)] - rhs

        ic = dde.icbc.IC(geom, lambda x: np.ones((len(x), 1)), lambda _, on_initial: on_initial)
        data = dde.data.IDE(geom, ide, ic, quad_deg=6, kernel=lambda x, s: np.ones(np.shape(x)), num_domain=8,
                            num_boundary=2, train_distribution="uniform")
        return data, fnn([1, HIDDEN, 1]), {}
    if problem == "function":
        data = dde.data.Function(interval, lambda x: x * np.sin(5 * x), 16, 8, train_distribution="uniform")
        return data, fnn([1, HIDDEN, HIDDEN, 1]), {"metrics": ["l2 relative error"]}
    rng = np.random.default_rng(0)
    if problem == "triple.deeponet":
        x = (rng.normal(size=(12, SENSORS)).astype(np.float32), rng.random((12, 1)).astype(np.float32))
        y = rng.normal(size=(12, 1)).astype(np.float32)
        data = dde.data.Triple(x, y, x, y)
        return data, dde.nn.DeepONet([SENSORS, HIDDEN, HIDDEN], [1, HIDDEN, HIDDEN], "relu", INIT), {}
    if problem == "triple_cartesian.deeponet":
        x = (rng.normal(size=(BATCH, SENSORS)).astype(np.float32), rng.random((POINTS, 1)).astype(np.float32))
        y = rng.normal(size=(BATCH, POINTS)).astype(np.float32)
        data = dde.data.TripleCartesianProd(x, y, x, y)
        net = dde.nn.DeepONetCartesianProd([SENSORS, HIDDEN, HIDDEN], [1, HIDDEN, HIDDEN], "relu", INIT)
        return data, net, {"metrics": ["mean l2 relative error"]}
    # physics-informed DeepONet for the antiderivative operator: du/dx = v(x), u(0) = 0
    geom = dde.geometry.Interval(0, 1)

    def antiderivative(x: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return grad.jacobian(u, x) - v

    ic = dde.icbc.DirichletBC(geom, zero, lambda x, on_boundary: on_boundary and np.isclose(x[0], 0))
    pde = dde.data.PDE(geom, antiderivative, ic, num_domain=POINTS, num_boundary=2)
    space = dde.data.GRF(length_scale=0.2)
    sensors = np.linspace(0, 1, num=SENSORS)[:, None]
    if problem == "pde_operator.deeponet":
        data = dde.data.PDEOperator(pde, space, sensors, 4, num_test=4)
        return data, dde.nn.DeepONet([SENSORS, HIDDEN, HIDDEN], [1, HIDDEN, HIDDEN], "tanh", INIT), {}
    net = dde.nn.DeepONetCartesianProd([SENSORS, HIDDEN, HIDDEN], [1, HIDDEN, HIDDEN], "tanh", INIT)
    if problem == "pde_operator_cartesian.deeponet":
        return dde.data.PDEOperatorCartesianProd(pde, space, sensors, 4, num_test=4, batch_size=4), net, {}

    def antiderivative_zcs(zcs_parameters: Any, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return dde.zcs.LazyGrad(zcs_parameters, u).compute((1,)) - v

    pde = dde.data.PDE(geom, antiderivative_zcs, ic, num_domain=POINTS, num_boundary=2)
    return dde.zcs.PDEOperatorCartesianProd(pde, space, sensors, 4, num_test=4, batch_size=4), net, {}


def _problem(name: str) -> Built:
    import numpy as np
    import torch
    from torch import nn

    dde = _dde()
    predict = name.endswith(".predict")
    problem = name.removesuffix(".predict")
    data, net, keywords = _data_and_net(problem)
    model = (dde.zcs.Model if problem.startswith("zcs.") else dde.Model)(data, net)
    model.compile("adam", lr=1e-3, **keywords)
    batch = data.train_next_batch()  # (inputs, targets) or (inputs, targets, auxiliary variables)
    x, y, aux = batch[0], batch[1], batch[2] if len(batch) > 2 else None

    def tensor(value: Any) -> Any:
        """A batch as tensors, in deepxde's float type (``predict`` casts its inputs so too)."""
        if value is None:
            return None
        if isinstance(value, tuple):
            return tuple(tensor(v) for v in value)
        return torch.as_tensor(np.asarray(value, dtype=dde.config.real(np)))

    class Losses(nn.Module):
        """``Model.outputs_losses_train``: the network's outputs and its losses on a training batch (or
        ``Model.outputs``, what ``predict`` runs). Gradients are on, as the residuals need them."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, inputs: Any, targets: Any = None, auxiliary: Any = None) -> Any:
            with torch.enable_grad():
                if predict:
                    return model.outputs(False, inputs)
                return model.outputs_losses_train(inputs, targets, auxiliary)

        def entry_points(self) -> list[Any]:
            return [model.outputs if predict else model.outputs_losses_train]

    if predict:
        return Losses(), (tensor(x),), {}
    return Losses(), (tensor(x), tensor(y), tensor(aux)), {}


def _gradient(name: str) -> Built:
    import torch
    from torch import nn

    dde = _dde()
    components = name.endswith(".components")
    function = name.split(".")[0]
    net = dde.nn.FNN([2, HIDDEN, HIDDEN, 2 if components else 1], "tanh", INIT)

    class Derivative(nn.Module):
        """``dde.grad.jacobian`` or ``hessian`` of the network's output with respect to its input."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> Any:
            with torch.enable_grad():
                x = x.clone().requires_grad_(True)
                y = self.net(x)
                if function == "jacobian":
                    d = [dde.grad.jacobian(y, x, i=i, j=j) for i in range(2) for j in range(2)] if components \
                        else [dde.grad.jacobian(y, x, j=1)]
                else:
                    d = [dde.grad.hessian(y, x, component=c, i=0, j=1) for c in range(2)] if components \
                        else [dde.grad.hessian(y, x)]
                dde.grad.clear()
                return torch.cat(d, 1)

        def entry_points(self) -> list[Any]:
            return [getattr(dde.grad, function)]

    return Derivative(), (torch.rand(BATCH, 2, generator=torch.Generator().manual_seed(1)),), {}


def _loss(name: str) -> Built:
    import torch

    from gt_calls import Call

    dde = _dde()
    gen = torch.Generator().manual_seed(1)
    y_true = torch.rand(BATCH, 3, generator=gen) + 0.5
    return Call(getattr(dde.losses, name)), (y_true, torch.randn(BATCH, 3, generator=gen)), {}


def build(name: str) -> Built:
    import contextlib
    import io
    import warnings

    warnings.filterwarnings("ignore")
    dde = _dde()
    with contextlib.redirect_stdout(io.StringIO()):  # "Compiling model..." and timing notes
        dde.config.set_random_seed(0)
        if name in NETWORKS:
            return _network(name)
        if name.startswith("pinn."):
            return _problem(name.split(".", 1)[1])
        if name.startswith("grad."):
            return _gradient(name.split(".", 1)[1])
        return _loss(name.split(".", 1)[1])
