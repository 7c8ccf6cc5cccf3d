"""Ground-truth bench, flow_matching: its probability paths, schedulers, losses and solvers around small models.

Meta's flow_matching is used as its examples use it: a velocity model (bench code: a small MLP of ``(x, t)``
wrapped in the library's ``ModelWrapper``, or a tiny convolutional one on 1x4x4 images) is trained by sampling
a probability path and regressing its velocity, and sampled by a solver. The models:

- ``train.*``: one training step (bench code, ``_TrainStep``): draw ``x_0`` and ``t``, ``path.sample(x_0, x_1,
  t)`` and the loss. ``AffineProbPath`` with each scheduler (``CondOTScheduler``, ``PolynomialConvexScheduler``,
  ``VPScheduler``, ``LinearVPScheduler``, ``CosineScheduler``) and ``CondOTProbPath`` regress the velocity;
  the x_1- and epsilon-prediction variants regress the target or the noise; a class-conditional and an image
  variant; ``MixtureDiscreteProbPath`` on token sequences with the ``MixturePathGeneralizedKL`` loss or cross
  entropy; ``GeodesicProbPath`` on the ``Sphere`` and the ``FlatTorus``;
- ``convert.*``: ``AffineProbPath``'s conversions between velocity, target and epsilon parametrisations, and
  ``MixtureDiscreteProbPath.posterior_to_velocity``;
- ``scheduler.*``: each scheduler's outputs and its ``snr_inverse`` (``kappa_inverse`` for convex ones);
- ``ODESolver.sample.*``: sampling with torchdiffeq's fixed-step and adaptive methods, intermediate times,
  reverse time, class-conditional extras, gradients enabled, images, and a ``ScheduleTransformedModel``
  (a CondOT-trained velocity sampled under a cosine schedule); ``ODESolver.compute_likelihood.*``: the log
  likelihood with the Hutchinson or the exact divergence;
- ``MixtureDiscreteEulerSolver.sample.*``: discrete sampling with a step size or a time grid, a
  divergence-free term (constant or time-dependent) and intermediate states;
- ``RiemannianODESolver.sample.*``: sampling on the sphere and the torus with its three step methods;
- ``manifold.*`` and ``utils.*``: the manifolds' maps, ``geodesic``, ``categorical``.

Sizes are tiny (batches of 4, 2 to 3 features, 4 tokens of a 5-symbol vocabulary, 4 solver steps); random
weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, HIDDEN, CLASSES = 4, 2, 16, 3
LENGTH, VOCAB = 4, 5  # discrete sequences: tokens and vocabulary size
STEP = 0.25

SCHEDULERS = ("CondOT", "PolynomialConvex", "VP", "LinearVP", "Cosine")
CONVEX = ("CondOT", "PolynomialConvex")
TRAIN = tuple(f"affine.{s}" for s in SCHEDULERS) + (
    "CondOTProbPath", "affine.CondOT.x1_prediction", "affine.VP.epsilon_prediction", "affine.CondOT.conditional",
    "affine.CondOT.image", "discrete.generalized_kl", "discrete.cross_entropy", "geodesic.Sphere",
    "geodesic.FlatTorus")
CONVERSIONS = ("target_to_velocity", "epsilon_to_velocity", "velocity_to_target", "epsilon_to_target",
               "velocity_to_epsilon", "target_to_epsilon")
# ODESolver.sample variant -> its keywords (``step_size`` None: the adaptive method picks its steps).
ODE_SAMPLE: dict[str, dict[str, Any]] = {
    "euler": {"method": "euler", "step_size": STEP},
    "midpoint": {"method": "midpoint", "step_size": STEP},
    "rk4": {"method": "rk4", "step_size": STEP},
    "heun3": {"method": "heun3", "step_size": STEP},
    "dopri5": {"method": "dopri5", "step_size": None, "atol": 1e-3, "rtol": 1e-3},
    "intermediates": {"method": "midpoint", "step_size": STEP, "return_intermediates": True},
    "reverse": {"method": "euler", "step_size": STEP},
    "conditional": {"method": "euler", "step_size": STEP},
    "enable_grad": {"method": "euler", "step_size": STEP, "enable_grad": True},
    "image": {"method": "euler", "step_size": STEP},
    "ScheduleTransformedModel": {"method": "midpoint", "step_size": STEP},
}
LIKELIHOOD: dict[str, dict[str, Any]] = {
    "euler.hutchinson": {"method": "euler", "step_size": STEP},
    "euler.exact": {"method": "euler", "step_size": STEP, "exact_divergence": True},
    "midpoint.exact": {"method": "midpoint", "step_size": STEP, "exact_divergence": True},
    "dopri5.hutchinson": {"method": "dopri5", "step_size": None, "atol": 1e-3, "rtol": 1e-3},
}
DISCRETE_SAMPLE = ("step_size", "time_grid", "div_free", "div_free_schedule", "intermediates")
RIEMANNIAN_SAMPLE = ("Sphere.euler", "Sphere.midpoint", "Sphere.rk4", "Sphere.intermediates", "Sphere.no_projection",
                     "FlatTorus.euler", "FlatTorus.rk4")
PARTS = ("manifold.Sphere", "manifold.FlatTorus", "manifold.Euclidean", "utils.geodesic", "utils.categorical",
         "ScheduleTransformedModel")


def names() -> list[str]:
    return ([f"train.{t}" for t in TRAIN] + [f"convert.{c}" for c in CONVERSIONS]
            + ["convert.posterior_to_velocity"] + [f"scheduler.{s}" for s in SCHEDULERS]
            + [f"ODESolver.sample.{v}" for v in ODE_SAMPLE]
            + [f"ODESolver.compute_likelihood.{v}" for v in LIKELIHOOD]
            + [f"MixtureDiscreteEulerSolver.sample.{v}" for v in DISCRETE_SAMPLE]
            + [f"RiemannianODESolver.sample.{v}" for v in RIEMANNIAN_SAMPLE] + list(PARTS))


def _scheduler(name: str) -> Any:
    from flow_matching.path import scheduler

    if name == "PolynomialConvex":
        return scheduler.PolynomialConvexScheduler(n=2.0)
    return getattr(scheduler, f"{name}Scheduler")()


def _models() -> dict[str, Any]:
    """The bench's small networks, as ``ModelWrapper``s (the wrapper the library's solvers expect)."""
    import torch
    from flow_matching.utils import ModelWrapper
    from torch import nn

    class MLP(nn.Module):
        """A velocity (or x_1 / epsilon) network of ``(x, t)``, optionally class-conditional."""

        def __init__(self, dim: int = DIM, classes: int = 0) -> None:
            super().__init__()
            self.embed = nn.Embedding(classes, HIDDEN) if classes else None
            self.net = nn.Sequential(nn.Linear(dim + 1, HIDDEN), nn.SiLU(), nn.Linear(HIDDEN, HIDDEN), nn.SiLU())
            self.out = nn.Linear(HIDDEN, dim)

        def forward(self, x: torch.Tensor, t: torch.Tensor, label: torch.Tensor | None = None) -> torch.Tensor:
            t = t.reshape(-1, 1).expand(x.shape[0], 1)
            h = self.net(torch.cat([x, t], dim=-1))
            if self.embed is not None and label is not None:
                h = h + self.embed(label)
            return self.out(h)

    class ConvNet(nn.Module):
        """A velocity network on 1x4x4 images: time as an extra channel."""

        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.SiLU(), nn.Conv2d(8, 1, 3, padding=1))

        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            t = t.reshape(-1, 1, 1, 1).expand(x.shape[0], 1, *x.shape[2:])
            return self.net(torch.cat([x, t], dim=1))

    class TokenNet(nn.Module):
        """Logits over the vocabulary for each token of ``x_t``, given ``t``."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, HIDDEN)
            self.time = nn.Linear(1, HIDDEN)
            self.out = nn.Sequential(nn.SiLU(), nn.Linear(HIDDEN, VOCAB))

        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            h = self.embed(x) + self.time(t.reshape(-1, 1, 1).expand(x.shape[0], 1, 1).float())
            return self.out(h)

    class Velocity(ModelWrapper):
        """The library's wrapper around a network: ``forward(x, t, **extras)``."""

        def forward(self, x: torch.Tensor, t: torch.Tensor, **extras: Any) -> torch.Tensor:
            return self.model(x, t, **extras)

    class Posterior(ModelWrapper):
        """The discrete solver's model: probabilities of x_1 given x_t, as its examples wrap the logits."""

        def forward(self, x: torch.Tensor, t: torch.Tensor, **extras: Any) -> torch.Tensor:
            return torch.softmax(self.model(x, t, **extras), dim=-1)

    class Tangent(ModelWrapper):
        """A velocity on a manifold embedded in R^3 (the solver projects it onto the tangent space)."""

        def forward(self, x: torch.Tensor, t: torch.Tensor, **extras: Any) -> torch.Tensor:
            return self.model(x, t)

    return {"MLP": MLP, "ConvNet": ConvNet, "TokenNet": TokenNet, "Velocity": Velocity, "Posterior": Posterior,
            "Tangent": Tangent}


def _data(kind: str) -> Any:
    import torch

    gen = torch.Generator().manual_seed(1)
    if kind == "image":
        return torch.randn(BATCH, 1, 4, 4, generator=gen)
    if kind == "tokens":
        return torch.randint(0, VOCAB, (BATCH, LENGTH), generator=gen)
    if kind == "Sphere":
        x = torch.randn(BATCH, 3, generator=gen)
        return x / x.norm(dim=-1, keepdim=True)
    if kind == "FlatTorus":
        return torch.rand(BATCH, 2, generator=gen) * 6.28
    return torch.randn(BATCH, DIM, generator=gen) + 2.0


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from flow_matching.loss import MixturePathGeneralizedKL
    from flow_matching.path import AffineProbPath, CondOTProbPath, GeodesicProbPath, MixtureDiscreteProbPath
    from flow_matching.utils.manifolds import FlatTorus, Sphere
    from torch import nn

    nets = _models()
    kind, _, variant = name.partition(".")
    entered: list[Any] = []

    class TrainStep(nn.Module):
        """One training step of a flow matching model: ``path.sample`` on fresh ``x_0`` and ``t``, then the loss."""

        def __init__(self, model: nn.Module, path: Any, objective: str) -> None:
            super().__init__()
            self.model = model
            self.path = path
            self.objective = objective
            self.loss = MixturePathGeneralizedKL(path) if objective == "generalized_kl" else None

        def forward(self, x_1: torch.Tensor, *extras: torch.Tensor) -> torch.Tensor:
            t = torch.rand(x_1.shape[0]) * (1 - 1e-3)
            if self.objective in ("generalized_kl", "cross_entropy"):
                x_0 = torch.randint_like(x_1, VOCAB)
                sample = self.path.sample(x_0=x_0, x_1=x_1, t=t)
                logits = self.model(sample.x_t, sample.t)
                if self.loss is not None:
                    return self.loss(logits, x_1, sample.x_t, sample.t)
                return F.cross_entropy(logits.flatten(0, 1), x_1.flatten())
            if self.objective == "geodesic":
                manifold = self.path.manifold
                x_0 = manifold.projx(torch.randn_like(x_1)) if isinstance(manifold, Sphere) else torch.rand_like(x_1)
                sample = self.path.sample(x_0=x_0, x_1=x_1, t=t)
                return (self.model(sample.x_t, sample.t) - sample.dx_t).pow(2).mean()
            sample = self.path.sample(x_0=torch.randn_like(x_1), x_1=x_1, t=t)
            label = {"label": extras[0]} if extras else {}
            output = self.model(sample.x_t, sample.t, **label)
            target = {"velocity": sample.dx_t, "x1_prediction": sample.x_1, "epsilon_prediction": sample.x_0}
            return (output - target[self.objective]).pow(2).mean()

        def entry_points(self) -> list[Any]:
            return [type(self.path).sample] + entered

    if kind == "discrete":
        path = MixtureDiscreteProbPath(scheduler=_scheduler("PolynomialConvex"))
        if variant == "generalized_kl":
            entered.append(MixturePathGeneralizedKL)
        return TrainStep(nets["TokenNet"](), path, variant), (_data("tokens"),), {}
    if kind == "geodesic":
        manifold = Sphere() if variant == "Sphere" else FlatTorus()
        path = GeodesicProbPath(scheduler=_scheduler("CondOT"), manifold=manifold)
        dim = 3 if variant == "Sphere" else 2
        return TrainStep(nets["MLP"](dim), path, "geodesic"), (_data(variant),), {}
    if kind == "CondOTProbPath":
        return TrainStep(nets["MLP"](), CondOTProbPath(), "velocity"), (_data("points"),), {}
    scheduler_name, _, objective = variant.partition(".")
    path = AffineProbPath(scheduler=_scheduler(scheduler_name))
    if objective == "image":
        return TrainStep(nets["ConvNet"](), path, "velocity"), (_data("image"),), {}
    if objective == "conditional":
        labels = torch.arange(BATCH) % CLASSES
        return TrainStep(nets["MLP"](classes=CLASSES), path, "velocity"), (_data("points"), labels), {}
    return TrainStep(nets["MLP"](), path, objective or "velocity"), (_data("points"),), {}


def _convert(name: str) -> Built:
    import torch
    from flow_matching.path import AffineProbPath, MixtureDiscreteProbPath
    from torch import nn

    gen = torch.Generator().manual_seed(2)
    t = torch.rand(BATCH, generator=gen) * 0.9 + 0.05
    if name == "posterior_to_velocity":

        class Converted(nn.Module):
            """Logits of a token network turned into the discrete path's velocity."""

            def __init__(self) -> None:
                super().__init__()
                self.net = _models()["TokenNet"]()
                self.path = MixtureDiscreteProbPath(scheduler=_scheduler("PolynomialConvex"))

            def forward(self, x_t: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
                return self.path.posterior_to_velocity(self.net(x_t, t), x_t, t)

            def entry_points(self) -> list[Any]:
                return [MixtureDiscreteProbPath.posterior_to_velocity]

        return Converted(), (_data("tokens"), t), {}

    class Convert(nn.Module):
        """One conversion of ``AffineProbPath`` (cosine schedule) between parametrisations of the model output."""

        def __init__(self) -> None:
            super().__init__()
            self.path = AffineProbPath(scheduler=_scheduler("Cosine"))

        def forward(self, output: torch.Tensor, x_t: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            return getattr(self.path, name)(output, x_t, t)

        def entry_points(self) -> list[Any]:
            return [getattr(AffineProbPath, name)]

    x = torch.randn(BATCH, DIM, generator=gen)
    return Convert(), (torch.randn(BATCH, DIM, generator=gen), x, t.unsqueeze(-1)), {}  # t broadcast per sample


def _scheduler_part(name: str) -> Built:
    import torch
    from torch import nn

    scheduler = _scheduler(name)

    class Schedule(nn.Module):
        """A scheduler's ``alpha_t``, ``sigma_t`` and derivatives, and the inverse of its SNR (or kappa)."""

        def forward(self, t: torch.Tensor) -> Any:
            out = scheduler(t)
            snr = out.alpha_t / out.sigma_t
            inverse = scheduler.kappa_inverse(out.alpha_t) if name in CONVEX else scheduler.snr_inverse(snr)
            return out.alpha_t, out.sigma_t, out.d_alpha_t, out.d_sigma_t, inverse

        def entry_points(self) -> list[Any]:
            inverse = type(scheduler).kappa_inverse if name in CONVEX else type(scheduler).snr_inverse
            return [type(scheduler).__call__, inverse]

    return Schedule(), (torch.linspace(0.05, 0.95, BATCH),), {}


def _ode_sample(variant: str) -> Built:
    import torch
    from flow_matching.path.scheduler import ScheduleTransformedModel
    from flow_matching.solver import ODESolver

    from gt_calls import Method

    nets = _models()
    keywords = dict(ODE_SAMPLE[variant])
    x_0 = torch.randn(BATCH, DIM, generator=torch.Generator().manual_seed(3))
    kwargs: dict[str, Any] = {}
    if variant == "image":
        model = nets["Velocity"](nets["ConvNet"]())
        x_0 = torch.randn(BATCH, 1, 4, 4)
    elif variant == "conditional":
        model = nets["Velocity"](nets["MLP"](classes=CLASSES))
        kwargs["label"] = torch.arange(BATCH) % CLASSES
    elif variant == "ScheduleTransformedModel":
        model = ScheduleTransformedModel(nets["Velocity"](nets["MLP"]()), original_scheduler=_scheduler("CondOT"),
                                         new_scheduler=_scheduler("Cosine"))
    else:
        model = nets["Velocity"](nets["MLP"]())
    if variant == "intermediates":
        keywords["time_grid"] = torch.linspace(0.0, 1.0, 3)
    elif variant == "reverse":
        keywords["time_grid"] = torch.tensor([1.0, 0.0])
    solver = ODESolver(velocity_model=model)
    return Method(solver, "sample", **keywords), (x_0,), kwargs


def _likelihood(variant: str) -> Built:
    import math

    import torch
    from flow_matching.solver import ODESolver
    from torch import nn

    nets = _models()
    keywords = dict(LIKELIHOOD[variant])

    def log_p0(x: torch.Tensor) -> torch.Tensor:
        """The standard normal source's log density."""
        return -0.5 * (x.pow(2).sum(-1) + x.shape[-1] * math.log(2 * math.pi))

    class Likelihood(nn.Module):
        """``ODESolver.compute_likelihood`` of data under a velocity model, from t = 1 back to t = 0."""

        def __init__(self) -> None:
            super().__init__()
            self.solver = ODESolver(velocity_model=nets["Velocity"](nets["MLP"]()))

        def forward(self, x_1: torch.Tensor) -> Any:
            return self.solver.compute_likelihood(x_1=x_1, log_p0=log_p0, time_grid=torch.tensor([1.0, 0.0]),
                                                  **keywords)

        def entry_points(self) -> list[Any]:
            return [ODESolver.compute_likelihood]

    return Likelihood(), (_data("points"),), {}


def _discrete_sample(variant: str) -> Built:
    import torch
    from flow_matching.path import MixtureDiscreteProbPath
    from flow_matching.solver import MixtureDiscreteEulerSolver

    from gt_calls import Method

    nets = _models()
    path = MixtureDiscreteProbPath(scheduler=_scheduler("PolynomialConvex"))
    source = torch.full((VOCAB,), 1.0 / VOCAB) if variant.startswith("div_free") else None
    solver = MixtureDiscreteEulerSolver(model=nets["Posterior"](nets["TokenNet"]()), path=path, vocabulary_size=VOCAB,
                                        source_distribution_p=source)
    keywords: dict[str, Any] = {"step_size": STEP}
    if variant == "time_grid":
        keywords = {"step_size": None, "time_grid": torch.linspace(0.0, 1.0, 5)}
    elif variant == "div_free":
        keywords["div_free"] = 0.5
    elif variant == "div_free_schedule":
        keywords["div_free"] = lambda t: 2.0 * (1 - t)  # noqa: E731 - a time-dependent coefficient
    elif variant == "intermediates":
        keywords.update(time_grid=torch.tensor([0.0, 0.5, 1.0]), return_intermediates=True)
    x_0 = torch.randint(0, VOCAB, (BATCH, LENGTH), generator=torch.Generator().manual_seed(4))
    return Method(solver, "sample", **keywords), (x_0,), {}


def _riemannian_sample(variant: str) -> Built:
    import torch
    from flow_matching.solver import RiemannianODESolver
    from flow_matching.utils.manifolds import FlatTorus, Sphere

    from gt_calls import Method

    nets = _models()
    manifold_name, method = variant.split(".")
    manifold = Sphere() if manifold_name == "Sphere" else FlatTorus()
    dim = 3 if manifold_name == "Sphere" else 2
    solver = RiemannianODESolver(manifold=manifold, velocity_model=nets["Tangent"](nets["MLP"](dim)))
    keywords: dict[str, Any] = {"step_size": STEP, "method": method}
    if method == "intermediates":
        keywords.update(method="midpoint", time_grid=torch.tensor([0.0, 0.5, 1.0]), return_intermediates=True)
    elif method == "no_projection":
        keywords.update(method="euler", projx=False, proju=False)
    x_0 = _data(manifold_name)
    return Method(solver, "sample", **keywords), (x_0,), {}


def _part(name: str) -> Built:
    import torch
    from flow_matching.path.scheduler import ScheduleTransformedModel
    from flow_matching.utils import categorical
    from flow_matching.utils.manifolds import Euclidean, FlatTorus, Sphere, geodesic
    from torch import nn

    from gt_calls import Call

    gen = torch.Generator().manual_seed(5)
    if name.startswith("manifold."):
        manifold = {"Sphere": Sphere, "FlatTorus": FlatTorus, "Euclidean": Euclidean}[name.split(".")[1]]()
        data = "Sphere" if name == "manifold.Sphere" else "FlatTorus"

        class Maps(nn.Module):
            """A manifold's exponential and logarithm maps and projections, as the Riemannian path uses them."""

            def __init__(self) -> None:
                super().__init__()
                self.manifold = manifold

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
                u = self.manifold.logmap(x, y)
                u = self.manifold.proju(x, u)
                z = self.manifold.projx(self.manifold.expmap(x, 0.5 * u))
                return (z, self.manifold.dist(x, y)) if isinstance(self.manifold, Sphere) else z

            def entry_points(self) -> list[Any]:
                cls = type(self.manifold)
                return [cls.logmap, cls.proju, cls.expmap, cls.projx]

        return Maps(), (_data(data), _data(data).roll(1, 0)), {}
    if name == "utils.geodesic":

        class Geodesic(nn.Module):
            """Points along the sphere's geodesic from x to y at times t."""

            def forward(self, x: torch.Tensor, y: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
                return geodesic(Sphere(), x, y)(t)

            def entry_points(self) -> list[Any]:
                return [geodesic]

        x = _data("Sphere")
        return Geodesic(), (x[0], x[1], torch.linspace(0, 1, 5)), {}
    if name == "utils.categorical":
        return Call(categorical), (torch.softmax(torch.randn(BATCH, LENGTH, VOCAB, generator=gen), -1),), {}
    nets = _models()
    model = ScheduleTransformedModel(nets["Velocity"](nets["MLP"]()), original_scheduler=_scheduler("CondOT"),
                                     new_scheduler=_scheduler("VP"))
    return model, (torch.randn(BATCH, DIM, generator=gen), torch.tensor(0.3)), {}  # one time, as the solvers pass it


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    group, _, rest = name.partition(".")
    if group == "train":
        return _train(rest)
    if group == "convert":
        return _convert(rest)
    if group == "scheduler":
        return _scheduler_part(rest)
    if group == "ODESolver":
        kind, _, variant = rest.partition(".")
        return _ode_sample(variant) if kind == "sample" else _likelihood(variant)
    if group == "MixtureDiscreteEulerSolver":
        return _discrete_sample(rest.partition(".")[2])
    if group == "RiemannianODESolver":
        return _riemannian_sample(rest.partition(".")[2])
    return _part(name)
