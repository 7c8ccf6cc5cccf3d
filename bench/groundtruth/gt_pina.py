"""Ground-truth bench, pina (pina-mathlab): physics-informed networks, neural operators and their solvers' losses.

PINA builds scientific machine-learning models on ``LabelTensor`` (a tensor whose columns carry
variable names) and trains them through lightning solvers. The tables cover, at tiny sizes:

- ``MODELS``: the networks of ``pina.model`` in the configurations that change their code:
  ``FeedForward`` (per-layer widths and activations), ``ResidualFeedForward``, ``FNO`` (1-D and 2-D) and
  ``FourierIntegralKernel``, ``KernelNeuralOperator``, ``DeepONet`` (variables by label or by index,
  sum / mean / id reductions, a module aggregator and reduction) and ``MIONet``,
  ``AveragingNeuralOperator``, ``LowRankNeuralOperator``, ``GraphNeuralOperator`` (shared and unshared
  kernels on a ``torch_geometric`` graph), ``PirateNet``, ``SINDy``, ``KolmogorovArnoldNetwork``,
  ``Spline``, ``SplineSurface`` and ``VectorizedSpline``;
- ``BLOCKS``: ``pina.model.block`` (continuous convolution, a 2-D spectral block, POD and RBF blocks
  fitted on random snapshots, orthogonalisation, a Fourier-feature embedding, AVNO, low-rank, KAN and
  residual blocks) and two adaptive activations;
- ``OPERATORS``: ``pina.operator`` (``grad``, ``div``, ``laplacian`` in both methods, ``advection``,
  ``fast_grad`` and ``fast_advection``) of a network's output with respect to its ``LabelTensor`` input;
- ``EQUATIONS``: the residuals of some of ``pina.equation.zoo`` and a ``SystemEquation``;
- ``LOSSES``: ``LpLoss``, ``PowerLoss`` and ``SinkhornLoss``;
- ``SOLVERS``: ``batch_evaluation_step`` (the loss ``training_step`` logs and returns) of the solvers
  on problems of ``pina.problem.zoo``, sampled at a few points and batched by pina's ``DataModule``
  (the PINN on the Poisson and the inverse Poisson problems, with NTK weighting;
  supervised, gradient-enhanced, residual-based attention, causal (on advection), self-adaptive, competitive and
  ensemble solvers); ``train.*`` compiles ``training_step`` followed by ``backward`` and an optimizer
  step (with gradients on in eval mode too, as the residuals need them).

A lightning ``Trainer`` is built but never run: its data module gives the batch, and the solver gets a
stand-in for ``self.log`` (lightning's logging needs a running loop). Random weights and points,
nothing downloaded; ``names()`` needs no torch and ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, WIDTH, GRID = 6, 8, 8

MODELS = (
    "FeedForward", "FeedForward.layers_funcs", "ResidualFeedForward", "FNO.1d", "FNO.2d", "FourierIntegralKernel.1d",
    "KernelNeuralOperator", "DeepONet.labels", "DeepONet.indices", "DeepONet.mean", "DeepONet.max_id",
    "DeepONet.module_aggregator", "MIONet", "AveragingNeuralOperator", "LowRankNeuralOperator",
    "GraphNeuralOperator.shared", "GraphNeuralOperator.unshared", "PirateNet", "SINDy", "KolmogorovArnoldNetwork",
    "Spline", "SplineSurface", "VectorizedSpline",
)
BLOCKS = (
    "ContinuousConvBlock", "SpectralConvBlock2D", "PODBlock", "RBFBlock", "OrthogonalBlock",
    "FourierFeatureEmbedding", "AVNOBlock", "LowRankBlock", "KANBlock", "ResidualBlock", "AdaptiveTanh",
    "AdaptiveSIREN",
)
OPERATORS = ("grad", "div", "laplacian", "laplacian.divgrad", "advection", "fast_grad", "fast_advection")
EQUATIONS = (
    "FixedValue", "FixedGradient", "PoissonEquation", "AdvectionEquation", "SystemEquation",
)
LOSSES = ("LpLoss", "PowerLoss", "SinkhornLoss")
SOLVERS = (
    "PINN.poisson", "PINN.inverse_poisson", "PINN.ntk_weighting", "Supervised",
    "GradientPINN", "RBAPINN", "CausalPINN", "SelfAdaptivePINN", "CompetitivePINN", "EnsemblePINN",
)
TRAIN = ("PINN.poisson", "Supervised")


def names() -> list[str]:
    return (list(MODELS) + [f"block.{b}" for b in BLOCKS] + [f"operator.{o}" for o in OPERATORS]
            + [f"equation.{e}" for e in EQUATIONS] + [f"loss.{loss}" for loss in LOSSES]
            + [f"solver.{s}" for s in SOLVERS] + [f"train.{t}" for t in TRAIN])


def _module(name: str) -> Any:
    """``pina.<name>`` (``from pina import model`` gives None: pina's ``__getattr__`` answers every name)."""
    import importlib

    return importlib.import_module(f"pina.{name}")


def _rand(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed))


def _labelled(labels: list[str], n: int = BATCH, seed: int = 1) -> Any:
    from pina import LabelTensor

    return LabelTensor(_rand(n, len(labels), seed=seed), labels)


def _model(name: str) -> Built:
    import torch
    pm = _module("model")
    from torch import nn

    if name.startswith("FeedForward"):
        keywords: dict[str, Any] = {}
        if name == "FeedForward.layers_funcs":
            keywords = {"layers": [WIDTH, 4, WIDTH], "func": [nn.Tanh, None, nn.SiLU]}
        if name == "FeedForward.no_bias":
            keywords = {"bias": False, "func": nn.Softplus}
        return pm.FeedForward(2, 1, inner_size=WIDTH, **keywords), (_rand(BATCH, 2),), {}
    if name.startswith("ResidualFeedForward"):
        transformers = None
        if name.endswith("transformer_nets"):
            transformers = [nn.Sequential(nn.Linear(2, WIDTH), nn.Sigmoid()), nn.Linear(2, WIDTH)]
        return pm.ResidualFeedForward(2, 1, inner_size=WIDTH, transformer_nets=transformers), (_rand(BATCH, 2),), {}
    if name.startswith("FNO."):
        dims = 1 if name in ("FNO.1d", "FNO.reflect") else 2
        keywords = {"padding": 2}
        if name == "FNO.modes_per_layer":
            keywords["n_modes"] = [[3, 3], [2, 2]]
        if name == "FNO.reflect":
            keywords["padding_type"] = "reflect"
        keywords.setdefault("n_modes", 3)
        net = pm.FNO(nn.Linear(dims + 1, WIDTH), nn.Linear(WIDTH, 1), dimensions=dims, inner_size=WIDTH, **keywords)
        shape = (2, GRID, GRID, dims + 1) if dims == 2 else (2, GRID, dims + 1)
        return net, (_rand(*shape),), {}
    if name == "FourierIntegralKernel.1d":
        return (pm.FourierIntegralKernel(3, 2, 3, dimensions=1, padding=2, inner_size=WIDTH),
                (_rand(2, GRID, 3),), {})
    if name == "KernelNeuralOperator":
        net = pm.KernelNeuralOperator(nn.Linear(2, WIDTH), nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.GELU()),
                                      nn.Linear(WIDTH, 1))
        return net, (_rand(BATCH, 2),), {}
    if name.startswith("DeepONet"):
        branch, trunk = pm.FeedForward(2, WIDTH, inner_size=WIDTH), pm.FeedForward(1, WIDTH, inner_size=WIDTH)
        keywords = {}
        x: Any = _labelled(["a", "b", "x"])
        indices: tuple[Any, Any] = (["a", "b"], ["x"])
        if name == "DeepONet.indices":
            x, indices = _rand(BATCH, 3), ([0, 1], [2])
        if name == "DeepONet.mean":
            keywords = {"aggregator": "+", "reduction": "mean"}
        if name == "DeepONet.min":
            keywords = {"aggregator": "mean", "reduction": "min"}
        if name == "DeepONet.max_id":
            keywords = {"aggregator": "max", "reduction": "id"}
        if name == "DeepONet.module_aggregator":
            keywords = {"aggregator": nn.Flatten(), "reduction": nn.Linear(2 * WIDTH, 1)}
        if name == "DeepONet.no_scale":
            keywords = {"scale": False, "translation": False}
        return pm.DeepONet(branch, trunk, indices[0], indices[1], **keywords), (x,), {}
    if name == "MIONet":
        nets = {pm.FeedForward(2, WIDTH, inner_size=WIDTH): ["a", "b"],
                pm.FeedForward(1, WIDTH, inner_size=WIDTH): ["c"], pm.FeedForward(1, WIDTH, inner_size=WIDTH): ["x"]}
        return pm.MIONet(nets), (_labelled(["a", "b", "c", "x"]),), {}
    if name == "AveragingNeuralOperator":
        net = pm.AveragingNeuralOperator(nn.Linear(3, WIDTH), nn.Linear(WIDTH + 2, 1), ["u"], ["x", "y"], n_layers=2)
        return net, (_labelled_3d(["x", "y", "u"]),), {}
    if name == "LowRankNeuralOperator":
        net = pm.LowRankNeuralOperator(nn.Linear(3, WIDTH), nn.Linear(WIDTH + 2, 1), ["u"], ["x", "y"],
                                       n_kernel_layers=2, rank=2, inner_size=WIDTH)
        return net, (_labelled_3d(["x", "y", "u"]),), {}
    if name.startswith("GraphNeuralOperator"):
        from torch_geometric.data import Data

        net = pm.GraphNeuralOperator(nn.Linear(3, WIDTH), nn.Linear(WIDTH, 1), edge_features=2, n_layers=2,
                                     shared_weights=name.endswith("shared") and not name.endswith("unshared"))
        edges = torch.tensor([[0, 1, 2, 3, 4, 5, 1, 2], [1, 2, 3, 4, 5, 0, 0, 4]])
        graph = Data(x=_rand(BATCH, 3), edge_index=edges, edge_attr=_rand(edges.shape[1], 2, seed=2))
        return net, (graph,), {}
    if name == "PirateNet":
        return pm.PirateNet(2, WIDTH, 1, n_layers=2), (_rand(BATCH, 2),), {}
    if name == "SINDy":
        library = [lambda x: x, lambda x: x ** 2, torch.sin]
        net = pm.SINDy(library, 2)
        with torch.no_grad():
            net.coefficients.normal_()
        return net, (_rand(BATCH, 2),), {}
    if name.startswith("KolmogorovArnoldNetwork"):
        net = pm.KolmogorovArnoldNetwork([2, 4, 1], n_knots=5, use_base_linear=not name.endswith("no_base"))
        return net, (_rand(BATCH, 2) * 2 - 1,), {}
    knots = {"n": 8, "min": 0.0, "max": 1.0, "mode": "uniform"}
    if name == "Spline":
        return pm.Spline(order=3, knots=knots), (_rand(BATCH, 1),), {}
    if name == "SplineSurface":
        return pm.SplineSurface([3, 3], knots_u=knots, knots_v=knots), (_rand(BATCH, 2),), {}
    aggregate = "mean" if name.endswith("mean") else None
    return pm.VectorizedSpline(order=3, knots=_vknots(), aggregate_output=aggregate), (_rand(BATCH, 3),), {}


def _vknots() -> Any:
    import torch

    return torch.linspace(0, 1, 8).repeat(3, 1)


def _labelled_3d(labels: list[str]) -> Any:
    from pina import LabelTensor

    return LabelTensor(_rand(2, BATCH, len(labels)), labels)


def _block(name: str) -> Built:
    import torch
    af, block = _module("adaptive_function"), _module("model.block")
    from torch import nn

    if name.startswith("ContinuousConvBlock"):
        conv = block.ContinuousConvBlock(1, 2, [0.5, 0.5], {"domain": [1, 1], "start": [0, 0], "jumps": [0.5, 0.5],
                                                            "direction": [1, 1]}, optimize=name.endswith("optimize"))
        return conv, (_rand(2, 1, 12, 3),), {}
    if name == "SpectralConvBlock2D":
        return block.SpectralConvBlock2D(2, 3, [3, 3]), (_rand(2, 2, GRID, GRID),), {}
    if name == "FourierBlock1D":
        return block.FourierBlock1D(2, 3, 3), (_rand(2, 2, GRID),), {}
    if name == "FourierBlock3D":
        return block.FourierBlock3D(2, 2, [2, 2, 2]), (_rand(1, 2, 4, 4, 4),), {}
    if name == "PODBlock":
        pod = block.PODBlock(3)
        pod.fit(_rand(10, 12, seed=3))
        return pod, (_rand(BATCH, 12),), {}
    if name == "RBFBlock":
        rbf = block.RBFBlock(kernel="thin_plate_spline")
        rbf.fit(_rand(10, 2, seed=3), _rand(10, 1, seed=4))
        return rbf, (_rand(BATCH, 2),), {}
    if name == "OrthogonalBlock":
        return block.OrthogonalBlock(dim=-1), (_rand(5, 3),), {}
    if name == "PeriodicBoundaryEmbedding":
        return block.PeriodicBoundaryEmbedding(2, {0: 1.0, 1: 2.0}, output_dimension=WIDTH), (_rand(BATCH, 2),), {}
    if name == "FourierFeatureEmbedding":
        return block.FourierFeatureEmbedding(2, WIDTH, sigma=1.0), (_rand(BATCH, 2),), {}
    if name == "AVNOBlock":
        return block.AVNOBlock(WIDTH), (_rand(2, BATCH, WIDTH),), {}
    if name == "LowRankBlock":
        from gt_calls import Keywords

        low = block.LowRankBlock(2, WIDTH, rank=2, inner_size=WIDTH)
        return Keywords(low, coords=_rand(2, BATCH, 2, seed=2)), (_rand(2, BATCH, WIDTH),), {}
    if name == "KANBlock":
        return block.KANBlock(2, 3, n_knots=5), (_rand(BATCH, 2),), {}
    if name.startswith("ResidualBlock"):
        return (block.ResidualBlock(2, 3, WIDTH, spectral_norm=name.endswith("spectral_norm")),
                (_rand(BATCH, 2),), {})
    if name == "EnhancedLinear":
        return block.EnhancedLinear(nn.Linear(2, WIDTH), nn.Tanh(), dropout=0.1), (_rand(BATCH, 2),), {}
    if name == "AdaptiveSIREN":
        return af.AdaptiveSIREN(), (_rand(BATCH, 3),), {}
    function = getattr(af, name)(alpha=1.5) if name == "AdaptiveTanh" else getattr(af, name)(fixed=["gamma"])
    return function, (torch.randn(BATCH, 3, generator=torch.Generator().manual_seed(1)),), {}


class _Differentiate:
    """A network on ``LabelTensor`` points ``(x, y, t)`` whose output is labelled, as solvers do."""

    @staticmethod
    def output(net: Any, x: Any, labels: list[str]) -> Any:
        from pina import LabelTensor

        out = net(x).as_subclass(LabelTensor)
        out.labels = labels
        return out


def _operator(name: str) -> Built:
    import torch
    op = _module("operator")
    from pina.model import FeedForward

    from gt_calls import Run

    function = getattr(op, name.split(".")[0])
    net = FeedForward(3, 2, inner_size=WIDTH)

    def run(owner: Any, x: Any) -> Any:
        with torch.enable_grad():
            x = x.clone().requires_grad_(True)
            u = _Differentiate.output(owner, x, ["u", "v"])
            base = name.split(".")[0].removeprefix("fast_")
            if base == "grad":
                return function(u, x, ["u", "v"], ["x", "y"]) if name.startswith("fast") else function(u, x)
            if base == "div":
                return function(u, x, ["u", "v"], ["x", "y"]) if name.startswith("fast") else \
                    function(u, x, d=["x", "y"])
            if base == "laplacian":
                if name.startswith("fast"):
                    return function(u, x, ["u"], ["x", "y"])
                return function(u, x, d=["x", "y"], method="divgrad" if name.endswith("divgrad") else "std")
            if name.startswith("fast"):
                return function(u, x, ["u", "v"], ["u", "v"], ["x", "y"])
            return function(u, x, ["u", "v"], components=["u"], d=["x", "y"])

    return Run(net, run, [function]), (_labelled(["x", "y", "t"]),), {}


def _equation(name: str) -> Any:
    import torch
    from pina.equation import SystemEquation

    zoo = _module("equation.zoo")

    def force(x: Any) -> Any:
        return torch.sin(torch.pi * x.extract(["x"])) * torch.sin(torch.pi * x.extract(["y"]))

    if name == "FixedValue":
        return zoo.FixedValue(0.5, components=["u"])
    if name == "FixedGradient":
        return zoo.FixedGradient(0.0, components=["u"], d=["x", "y"])
    if name == "FixedFlux":
        return zoo.FixedFlux(0.0, components=["u", "v"], d=["x", "y"])
    if name == "FixedLaplacian":
        return zoo.FixedLaplacian(1.0, components=["u"], d=["x", "y"])
    if name == "Laplace":
        return zoo.Laplace(components=["u"], d=["x", "y"])
    if name == "PoissonEquation":
        return zoo.PoissonEquation(force)
    if name == "HelmholtzEquation":
        return zoo.HelmholtzEquation(2.0, force)
    if name == "AdvectionEquation":
        return zoo.AdvectionEquation([1.0, 0.5])
    if name == "AllenCahnEquation":
        return zoo.AllenCahnEquation(1e-4, 5.0)
    if name == "DiffusionReactionEquation":
        return zoo.DiffusionReactionEquation(1e-4, force)
    if name == "BurgersEquation":
        return zoo.BurgersEquation(0.01)
    if name == "AcousticWaveEquation":
        return zoo.AcousticWaveEquation(2.0)
    return SystemEquation([zoo.FixedValue(0.0, components=["u"]), zoo.Laplace(components=["u"], d=["x", "y"])],
                          reduction="mean")


def _equation_model(name: str) -> Built:
    import torch
    from pina.model import FeedForward

    from gt_calls import Run

    equation = _equation(name)
    single = name in ("PoissonEquation", "HelmholtzEquation", "AllenCahnEquation", "DiffusionReactionEquation",
                      "AcousticWaveEquation", "AdvectionEquation")
    labels = ["u"] if single else ["u", "v"]
    if name == "BurgersEquation":
        labels, inputs = ["u"], ["x", "t"]
    else:
        inputs = ["x", "y", "t"]
    net = FeedForward(len(inputs), len(labels), inner_size=WIDTH)

    def run(owner: Any, x: Any) -> Any:
        with torch.enable_grad():
            x = x.clone().requires_grad_(True)
            return equation.residual(x, _Differentiate.output(owner, x, labels))

    return Run(net, run, [type(equation).residual]), (_labelled(inputs),), {}


def _loss(name: str) -> Built:
    import torch
    pl = _module("loss")

    relative = name.endswith("relative")
    if name.startswith("Sinkhorn"):
        function: Any = pl.SinkhornLoss(eps=0.5, iterations=5)
    else:
        function = getattr(pl, name.split(".")[0])(p=2 if name.startswith("Lp") else 1, relative=relative)
    gen = torch.Generator().manual_seed(1)
    return function, (torch.randn(BATCH, 3, generator=gen), torch.randn(BATCH, 3, generator=gen)), {}


def _problem(name: str) -> Any:
    """A problem of ``pina.problem.zoo`` (or a supervised one), its domains sampled at a few points."""
    from pina import LabelTensor

    zoo = _module("problem.zoo")

    if name.startswith("Supervised") or name == "EnsembleSupervised":
        x = LabelTensor(_rand(12, 2, seed=5), ["x", "y"])
        y = LabelTensor(_rand(12, 1, seed=6), ["u"])
        if name == "Supervised.no_lt":
            return zoo.SupervisedProblem(x.as_subclass(__import__("torch").Tensor),
                                         y.as_subclass(__import__("torch").Tensor))
        return zoo.SupervisedProblem(x, y, input_variables=["x", "y"], output_variables=["u"])
    kind = name.split(".")[-1] if name.startswith("PINN.") else "poisson"
    problem = {
        "helmholtz": lambda: zoo.HelmholtzProblem(), "advection": lambda: zoo.AdvectionProblem(),
        "allen_cahn": lambda: zoo.AllenCahnProblem(), "burgers": lambda: zoo.BurgersProblem(nu=0.01),
        "diffusion_reaction": lambda: zoo.DiffusionReactionProblem(),
        "acoustic_wave": lambda: zoo.AcousticWaveProblem(),
        "inverse_poisson": lambda: zoo.InversePoisson2DSquareProblem(load=False),
    }.get(kind, lambda: zoo.Poisson2DSquareProblem())()
    if name == "CausalPINN":  # (Burgers and Helmholtz index a LabelTensor by label: Dynamo fails on it)
        problem = zoo.AdvectionProblem()
    problem.discretise_domain(8, "random")
    return problem


def _solver(name: str) -> Any:
    import torch
    ps, pw = _module("solver"), _module("weighting")
    from pina.loss import LpLoss
    from pina.model import FeedForward

    problem = _problem(name)
    n_in, n_out = len(problem.input_variables or "xy"), len(problem.output_variables or "u")

    def net() -> Any:
        return FeedForward(n_in, n_out, inner_size=WIDTH)

    keywords: dict[str, Any] = {}
    if name == "PINN.lp_loss":
        keywords["loss"] = LpLoss(p=1)
    if name == "PINN.scalar_weighting":
        keywords["weighting"] = pw.ScalarWeighting({"D": 1.0, "boundary": 10.0})
    if name == "PINN.ntk_weighting":
        keywords["weighting"] = pw.NeuralTangentKernelWeighting(alpha=0.5)
    if name == "PINN.self_adaptive_weighting":
        keywords["weighting"] = pw.SelfAdaptiveWeighting()
    if name.startswith("PINN."):
        return ps.PhysicsInformedSingleModelSolver(problem, net(), **keywords)
    if name.startswith("Supervised"):
        return ps.SupervisedSingleModelSolver(problem, net(), use_lt=name == "Supervised")
    if name == "GradientPINN":
        return ps.GradientPhysicsInformedSingleModelSolver(problem, net(), regularization_weight=0.1)
    if name == "RBAPINN":
        return ps.RBAPhysicsInformedSingleModelSolver(problem, net())
    if name == "CausalPINN":
        return ps.CausalPhysicsInformedSingleModelSolver(problem, net(), n_steps=4, regularized_conditions=["D"])
    if name == "SelfAdaptivePINN":
        return ps.SelfAdaptivePhysicsInformedSolver(problem, net())
    if name == "CompetitivePINN":
        return ps.CompetitivePhysicsInformedSolver(problem, net())
    if name == "EnsemblePINN":
        return ps.PhysicsInformedEnsembleSolver(problem, [net(), net()])
    return ps.SupervisedEnsembleSolver(problem, [net(), net()])


def _solver_model(name: str, train: bool) -> Built:
    import torch
    from pina import Trainer

    from gt_calls import Run

    solver = _solver(name)
    trainer = Trainer(solver, accelerator="cpu", max_epochs=1, logger=False, enable_checkpointing=False,
                      enable_progress_bar=False, enable_model_summary=False)
    module = trainer.data_module
    module.setup("fit")
    batch = module.transfer_batch_to_device(next(iter(module.train_dataloader())), torch.device("cpu"), 0)
    solver.trainer = trainer
    solver.log = lambda *args, **kwargs: None  # lightning's logging needs its running loop
    if train:
        optimizers, _ = solver.configure_optimizers()
        optimizer = optimizers[0]

        def step(owner: Any) -> Any:
            with torch.enable_grad():  # the residuals need gradients, in eval mode too
                optimizer.zero_grad()
                loss = owner.training_step(batch, 0)
                loss.backward()
                optimizer.step()
            return loss

        return Run(solver, step, [type(solver).training_step]), (), {}

    def evaluate(owner: Any) -> Any:
        with torch.enable_grad():
            return owner.batch_evaluation_step(batch, 0)

    return Run(solver, evaluate, [type(solver).batch_evaluation_step]), (), {}


def build(name: str) -> Built:
    import contextlib
    import io
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.getLogger("lightning").setLevel(logging.ERROR)
    logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        if name.startswith("block."):
            return _block(name.split(".", 1)[1])
        if name.startswith("operator."):
            return _operator(name.split(".", 1)[1])
        if name.startswith("equation."):
            return _equation_model(name.split(".", 1)[1])
        if name.startswith("loss."):
            return _loss(name.split(".", 1)[1])
        if name.startswith("solver."):
            return _solver_model(name.split(".", 1)[1], False)
        if name.startswith("train."):
            return _solver_model(name.split(".", 1)[1], True)
        if name in MODELS:
            return _model(name)
    raise KeyError(name)
