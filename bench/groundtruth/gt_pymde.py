"""Ground-truth bench, pymde: minimum-distortion embedding (MDE problems, distortion functions, their solver).

PyMDE embeds ``n_items`` items in ``R^m`` by minimising the average distortion ``f(d_ij)`` over a list of
edges ``(i, j)``, where ``d_ij`` is the distance between the embedding vectors, under a constraint (centred,
standardized, anchored). ``pymde.MDE`` is an ``nn.Module`` whose ``forward`` is ``embed``: a projected L-BFGS
loop (``pymde.lbfgs.LBFGS`` with a strong-Wolfe line search, inside ``pymde.optim.lbfgs``) over the custom
autograd function of the average distortion. The recipes ``preserve_neighbors``, ``preserve_distances`` and
``laplacian_embedding`` build such problems from a data matrix or a ``pymde.Graph`` (k-nearest neighbours,
sampled distances, a spectral initialisation). Users call ``pymde.preserve_neighbors(data).embed()``, so each
model here is one such call (solver loops run 2 or 3 iterations), on 16 items with 5 features embedded in
2 dimensions:

- ``PENALTIES`` and ``LOSSES``: the distortion functions of ``pymde.penalties`` (``Linear``, ``Quadratic``,
  ``Cubic``, ``Power``, ``Huber`` with vector or scalar weights, ``Logistic``, ``Sigmoid``, ``Hinge``,
  ``Log1p``, ``Log``, ``InvPower``, ``LogRatio``, ``PushAndPull`` and the dead-zone / clipped ones) and of
  ``pymde.losses`` (``Quadratic``, ``WeightedQuadratic``, ``Huber``, ``Cubic``, ``Power``, ``Absolute``,
  ``Logistic``, ``Fractional``, ``SoftFractional`` and the clipped, weighted-power and log1p ones), each a
  module called on a vector of distances;
- ``METHODS``: ``MDE.differences``, ``distances``, ``distortions``, ``average_distortion`` and
  ``high_distortion_pairs`` on an embedding (and ``distortions`` of the stored embedding after ``embed``);
- ``EMBED``: ``MDE.embed`` (the module's forward) on hand-built problems: penalties, ``PushAndPull``, a
  loss, a plain Python callable as distortion function, the three constraints, a random start, snapshots,
  verbose logging, a short quasi-Newton memory and early convergence;
- ``RECIPES``: ``preserve_neighbors`` (the spectral initialisation, SciPy's Lanczos, in the default model;
  the others start from ``init="random"``: standardized, anchored, other penalties, a neighbourhood radius, a
  graph without repulsion), ``laplacian_embedding`` and ``preserve_distances`` (standardized, anchored, a
  weighted loss on sampled distances, a graph), each followed by ``embed``, on 64 items (so that the
  repulsive edges are sampled as on real data, not from the dense complement of a small graph);
- ``CONSTRAINTS``: ``Centered``, ``Standardized`` and ``Anchored``: ``initialization``,
  ``project_onto_constraint`` (in place or not) and ``project_onto_tangent_space``;
- ``HELPERS``: ``pymde.pca``, ``quadratic.spectral`` (Lanczos and LOBPCG), ``center``, ``rotate`` (2-D and
  3-D), ``align``, ``util.proj_standardized``, and the preprocessing functions ``k_nearest_neighbors``,
  ``distances`` (all pairs and sampled), ``sample_edges``, ``dissimilar_edges``, ``deduplicate_edges`` and
  ``scale``;
- ``OPTIM``: one ``pymde.lbfgs.LBFGS.step(closure)`` on an embedding parameter (strong-Wolfe line search,
  none, a projection callback);
- ``TRAIN``: train steps of a tiny parametric embedding (a linear encoder of the data) whose loss is the
  problem's ``average_distortion``, and one projected-gradient step as the solver's closure takes it.

``StochasticFunction`` (the ``spi`` solver) is left out: its constructor calls ``util.canonical_device``, which
pymde 0.3.0 does not define, so it fails eagerly. Graph inputs are kept to the paths that need no
``multiprocessing`` pool (a full graph for the neighbours, all pairs for the distances).

Random data, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, DIM, FEATURES, P = 16, 2, 5, 24  # items, embedding dimension, features, distances of a function model
RECIPE_ITEMS = 64  # the recipes' data: enough items for the repulsive edges to be sampled as on real data
ITERS = 2

# ``pymde.penalties`` model name -> (class, weights: "pos", "neg", "mixed" or "scalar", constructor keywords).
# A ``threshold`` of "tensor" is ``torch.tensor(1.0)``: the clipped quadratics fail eagerly on a float one
# (``torch.min(tensor, float)``).
PENALTIES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "penalties.Linear": ("Linear", "pos", {}),
    "penalties.Quadratic": ("Quadratic", "pos", {}),
    "penalties.Cubic": ("Cubic", "pos", {}),
    "penalties.Power": ("Power", "pos", {"exponent": 2.5}),
    "penalties.Huber": ("Huber", "pos", {"threshold": 0.5}),
    "penalties.Huber.scalar_weight": ("Huber", "scalar", {"threshold": 0.5}),
    "penalties.Logistic": ("Logistic", "pos", {"threshold": 0.5, "alpha": 2.0}),
    "penalties.Sigmoid": ("Sigmoid", "pos", {"threshold": 0.5}),
    "penalties.Hinge": ("Hinge", "pos", {"threshold": 0.5}),
    "penalties.Hinge.negative": ("Hinge", "neg", {"threshold": 0.5, "sigma": 0.1}),
    "penalties.Log1p": ("Log1p", "pos", {}),
    "penalties.Log1p.exponent": ("Log1p", "pos", {"exponent": 2.0}),
    "penalties.Log": ("Log", "neg", {}),
    "penalties.InvPower": ("InvPower", "neg", {"exponent": 2}),
    "penalties.LogRatio": ("LogRatio", "neg", {}),
    "penalties.PushAndPull": ("PushAndPull", "mixed", {}),
    "penalties.PushAndPull.huber_log": ("PushAndPull", "mixed", {"attractive_penalty": "Huber",
                                                                 "repulsive_penalty": "Log"}),
    "penalties._DeadzoneQuadratic": ("_DeadzoneQuadratic", "pos", {"threshold": 0.5}),
    "penalties._ClippedQuadratic": ("_ClippedQuadratic", "pos", {"threshold": "tensor"}),
    "penalties._DeadzoneCubic": ("_DeadzoneCubic", "pos", {"threshold": 0.5}),
}
# ``pymde.losses`` model name -> (class, constructor keywords; "weights" stands for a weight vector).
LOSSES: dict[str, tuple[str, dict[str, Any]]] = {
    "losses.Quadratic": ("Quadratic", {}),
    "losses.WeightedQuadratic": ("WeightedQuadratic", {}),
    "losses.WeightedQuadratic.weights": ("WeightedQuadratic", {"weights": "weights"}),
    "losses.Huber": ("Huber", {"threshold": 0.5}),
    "losses.Cubic": ("Cubic", {}),
    "losses.Power": ("Power", {"exponent": 1.5}),
    "losses.Absolute": ("Absolute", {}),
    "losses.Logistic": ("Logistic", {}),
    "losses.Fractional": ("Fractional", {}),
    "losses.SoftFractional": ("SoftFractional", {"gamma": 5.0}),
    "losses._ClippedQuadratic": ("_ClippedQuadratic", {"threshold": "tensor"}),
    "losses._WeightedPower": ("_WeightedPower", {"exponent": 1.5}),
    "losses._Log1p": ("_Log1p", {"exponent": 2.0}),
}
# ``MDE`` method model name -> (distortion, constraint, method). Distortions and constraints: see ``_mde``.
METHODS: dict[str, tuple[str, str, str]] = {
    "MDE.differences": ("log1p", "centered", "differences"),
    "MDE.distances": ("log1p", "centered", "distances"),
    "MDE.distortions": ("log1p", "centered", "distortions"),
    "MDE.distortions.push_and_pull": ("push_and_pull", "centered", "distortions"),
    "MDE.average_distortion": ("log1p", "centered", "average_distortion"),
    "MDE.average_distortion.huber": ("huber", "standardized", "average_distortion"),
    "MDE.average_distortion.absolute": ("absolute", "centered", "average_distortion"),
    "MDE.high_distortion_pairs": ("push_and_pull", "centered", "high_distortion_pairs"),
    "MDE.distortions.after_embed": ("quadratic", "standardized", "distortions"),
}
# ``MDE.embed`` model name -> (distortion, constraint, start: "given" or "random", ``embed`` keywords).
EMBED: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "MDE.embed.log1p": ("log1p", "centered", "given", {}),
    "MDE.embed.push_and_pull": ("push_and_pull", "centered", "given", {}),
    "MDE.embed.quadratic.standardized": ("quadratic", "standardized", "given", {}),
    "MDE.embed.weighted_quadratic.anchored": ("weighted_quadratic", "anchored", "given", {}),
    "MDE.embed.callable": ("callable", "standardized", "given", {}),
    "MDE.embed.random_init": ("log1p", "standardized", "random", {}),
    "MDE.embed.snapshots": ("push_and_pull", "centered", "given", {"snapshot_every": 1}),
    "MDE.embed.verbose": ("quadratic", "standardized", "given", {"verbose": True, "print_every": 1}),
    "MDE.embed.memory": ("push_and_pull", "centered", "given", {"memory_size": 1, "max_iter": 3}),
    "MDE.embed.converged": ("absolute", "centered", "given", {"eps": 1e3}),
}
# Recipe model name -> (recipe, input: "data" or "graph", recipe keywords; strings name pymde objects).
RECIPES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "preserve_neighbors": ("preserve_neighbors", "data", {}),
    "preserve_neighbors.standardized": ("preserve_neighbors", "data", {"constraint": "standardized",
                                                                        "init": "random"}),
    "preserve_neighbors.anchored": ("preserve_neighbors", "data", {"constraint": "anchored", "init": "random"}),
    "preserve_neighbors.huber_invpower": ("preserve_neighbors", "data", {"attractive_penalty": "penalties.Huber",
                                                                          "repulsive_penalty": "penalties.InvPower",
                                                                          "n_neighbors": 4,
                                                                          "repulsive_fraction": 0.5,
                                                                          "init": "random"}),
    "preserve_neighbors.max_distance": ("preserve_neighbors", "data", {"max_distance": 1.5, "init": "random"}),
    "preserve_neighbors.graph": ("preserve_neighbors", "graph", {"n_neighbors": 3, "init": "random",
                                                                 "repulsive_penalty": None}),
    "laplacian_embedding": ("laplacian_embedding", "data", {"init": "random"}),
    "preserve_distances": ("preserve_distances", "data", {}),
    "preserve_distances.standardized": ("preserve_distances", "data", {"constraint": "standardized"}),
    "preserve_distances.anchored": ("preserve_distances", "data", {"constraint": "anchored"}),
    "preserve_distances.weighted_quadratic.sampled": ("preserve_distances", "data",
                                                      {"loss": "losses.WeightedQuadratic", "max_distances": 300}),
    "preserve_distances.graph": ("preserve_distances", "graph", {"max_distances": 45}),
}
# Constraint model name -> (constraint, method).
CONSTRAINTS: dict[str, tuple[str, str]] = {
    "Centered.initialization": ("centered", "initialization"),
    "Centered.project_onto_constraint": ("centered", "project_onto_constraint"),
    "Standardized.initialization": ("standardized", "initialization"),
    "Standardized.project_onto_constraint": ("standardized", "project_onto_constraint"),
    "Standardized.project_onto_constraint.inplace": ("standardized", "project_onto_constraint.inplace"),
    "Standardized.project_onto_tangent_space": ("standardized", "project_onto_tangent_space"),
    "Anchored.initialization": ("anchored", "initialization"),
    "Anchored.project_onto_constraint": ("anchored", "project_onto_constraint"),
    "Anchored.project_onto_tangent_space": ("anchored", "project_onto_tangent_space"),
}
HELPERS = ("pca", "spectral", "spectral.cg", "center", "rotate.2d", "rotate.3d", "align",
           "proj_standardized", "preprocess.k_nearest_neighbors", "preprocess.distances",
           "preprocess.distances.sampled", "preprocess.sample_edges", "preprocess.dissimilar_edges",
           "preprocess.deduplicate_edges", "preprocess.scale")
# ``LBFGS.step`` model name -> (distortion, constraint, ``LBFGS`` keywords; "project" for the constraint's
# projection as ``project_callback``).
OPTIM: dict[str, tuple[str, str, dict[str, Any]]] = {
    "LBFGS.step.strong_wolfe": ("push_and_pull", "centered", {"line_search_fn": "strong_wolfe", "max_iter": 3}),
    "LBFGS.step.no_line_search": ("log1p", "centered", {"lr": 0.1, "max_iter": 3}),
    "LBFGS.step.project_callback": ("quadratic", "standardized", {"line_search_fn": "strong_wolfe", "max_iter": 2,
                                                                  "project_callback": "project",
                                                                  "use_cached_loss": True}),
}
# Train step name -> (distortion, constraint, kind: "encoder" or "projected_gradient").
TRAIN: dict[str, tuple[str, str, str]] = {
    "train_step.encoder.log1p": ("log1p", "centered", "encoder"),
    "train_step.encoder.push_and_pull": ("push_and_pull", "centered", "encoder"),
    "train_step.encoder.absolute": ("absolute", "centered", "encoder"),
    "train_step.projected_gradient": ("quadratic", "standardized", "projected_gradient"),
}


def names() -> list[str]:
    return (list(PENALTIES) + list(LOSSES) + list(METHODS) + list(EMBED) + list(RECIPES) + list(CONSTRAINTS)
            + list(HELPERS) + list(OPTIM) + list(TRAIN))


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _data(items: int = N) -> Any:
    import torch

    return torch.randn(items, FEATURES, generator=_gen(1))


def _weights(kind: str, count: int) -> Any:
    import torch

    pos = torch.rand(count, generator=_gen(2)) + 0.1
    if kind == "pos":
        return pos
    if kind == "neg":
        return -pos
    if kind == "scalar":
        return torch.tensor(1.0)
    signs = torch.ones(count)
    signs[count // 2:] = -1.0
    return pos * signs


def _distances(count: int = P) -> Any:
    import torch

    return torch.rand(count, generator=_gen(3)) * 2.0 + 0.1


def _constraint(name: str) -> Any:
    import pymde
    import torch

    if name == "centered":
        return pymde.Centered()
    if name == "standardized":
        return pymde.Standardized()
    return pymde.Anchored(torch.tensor([0, 1, 2]), torch.randn(3, DIM, generator=_gen(4)))


def _distortion(name: str, count: int) -> Any:
    from pymde import losses, penalties

    if name == "log1p":
        return penalties.Log1p(_weights("pos", count))
    if name == "push_and_pull":
        return penalties.PushAndPull(_weights("mixed", count))
    if name == "quadratic":
        return penalties.Quadratic(_weights("pos", count))
    if name == "huber":
        return penalties.Huber(_weights("pos", count))
    if name == "absolute":
        return losses.Absolute(_distances(count))
    if name == "weighted_quadratic":
        return losses.WeightedQuadratic(_distances(count))

    def squared_excess(distances: Any) -> Any:  # any callable of the distances is a distortion function
        return (distances - 1.0).pow(2)

    return squared_excess


def _mde(distortion: str, constraint: str) -> Any:
    """An MDE problem on ``N`` items: every third pair is an edge (40 edges)."""
    import pymde

    edges = pymde.all_edges(N)[::3]
    return pymde.MDE(N, DIM, edges, _distortion(distortion, edges.shape[0]), constraint=_constraint(constraint))


def _start(constraint: str) -> Any:
    import torch

    torch.manual_seed(5)
    return _constraint(constraint).initialization(N, DIM)


def _function(name: str) -> Built:
    import torch
    from pymde import losses, penalties

    def resolve(keywords: dict[str, Any]) -> dict[str, Any]:
        return {k: getattr(penalties, v) if k.endswith("_penalty") else torch.tensor(1.0) if v == "tensor" else v
                for k, v in keywords.items()}

    if name in PENALTIES:
        cls, kind, keywords = PENALTIES[name]
        return getattr(penalties, cls)(_weights(kind, P), **resolve(keywords)), (_distances(),), {}
    cls, keywords = LOSSES[name]
    keywords = resolve(keywords)
    if keywords.get("weights") == "weights":
        keywords = {**keywords, "weights": _weights("pos", P)}
    deviations = _distances() * 0.5 + 0.5
    return getattr(losses, cls)(deviations, **keywords), (_distances(),), {}


def _method(name: str) -> Built:
    from gt_calls import Method

    distortion, constraint, method = METHODS[name]
    mde = _mde(distortion, constraint)
    if name.endswith("after_embed"):
        mde.embed(_start(constraint), max_iter=ITERS)
        return Method(mde, method), (), {}
    return Method(mde, method), (_start(constraint),), {}


def _embed(name: str) -> Built:
    distortion, constraint, start, keywords = EMBED[name]
    mde = _mde(distortion, constraint)
    keywords = {"max_iter": ITERS, **keywords}
    args = (_start(constraint),) if start == "given" else ()
    return mde, args, keywords


def _recipe(name: str) -> Built:
    import pymde
    import torch

    from gt_calls import Run

    recipe, source, keywords = RECIPES[name]
    function = getattr(pymde, recipe)
    keywords = dict(keywords)
    for key, value in keywords.items():
        if key == "constraint":
            keywords[key] = _constraint(value)
        elif isinstance(value, str) and "." in value:
            module, cls = value.split(".")
            keywords[key] = getattr(getattr(pymde, module), cls)

    def run(_: Any, *inputs: Any) -> Any:
        # a data matrix, or a weighted graph built from its edges and weights, as users build one
        data = pymde.Graph.from_edges(*inputs) if source == "graph" else inputs[0]
        mde = function(data, **keywords)
        return mde.embed(max_iter=ITERS)

    if source == "graph":
        edges = pymde.all_edges(10)
        if recipe == "preserve_distances":  # a sparse graph: a path through the items plus a few chords
            edges = torch.cat([torch.stack([torch.arange(9), torch.arange(1, 10)], dim=1),
                               torch.tensor([[0, 5], [2, 7], [3, 9]])])
        weights = torch.rand(edges.shape[0], generator=_gen(6)) + 0.5
        args: tuple[Any, ...] = (edges, weights)
    else:
        args = (_data(RECIPE_ITEMS),)
    return Run(None, run, [function, pymde.MDE.embed]), args, {}


def _constraint_model(name: str) -> Built:
    from gt_calls import Run

    which, method = CONSTRAINTS[name]
    constraint = _constraint(which)

    def run(owner: Any, x: Any, z: Any) -> Any:
        if method == "initialization":
            return owner.initialization(x.shape[0], x.shape[1])
        if method == "project_onto_constraint":
            return owner.project_onto_constraint(x, inplace=False)
        if method == "project_onto_constraint.inplace":
            return owner.project_onto_constraint(x.clone(), inplace=True)
        return owner.project_onto_tangent_space(_start(which), z, inplace=False)

    entry = getattr(type(constraint), method.split(".")[0])
    x = _data()[:, :DIM]
    z = _data()[:, DIM:DIM * 2]
    return Run(constraint, run, [entry]), (x, z), {}


def _helper(name: str) -> Built:
    import pymde
    import torch
    from pymde import preprocess, quadratic, util

    from gt_calls import Call, Run

    data = _data()
    edges = pymde.all_edges(N)[::3]
    weights = _weights("pos", edges.shape[0])
    if name == "pca":
        return Call(pymde.pca, embedding_dim=DIM), (data,), {}
    if name.startswith("spectral"):
        cg = name.endswith(".cg")

        def spectral(_: Any, e: Any, w: Any) -> Any:
            return quadratic.spectral(N, DIM, e, w, cg=cg, max_iter=ITERS)

        return Run(None, spectral, [quadratic.spectral]), (edges, weights), {}
    if name == "center":
        return Call(pymde.center), (data,), {}
    if name == "rotate.2d":
        return Call(pymde.rotate), (data[:, :2], torch.tensor(30.0)), {}
    if name == "rotate.3d":
        return Call(pymde.rotate), (data[:, :3], torch.tensor([10.0, 20.0, 30.0])), {}
    if name == "align":
        return Call(pymde.align), (data[:, :2], data[:, 2:4]), {}
    if name == "proj_standardized":
        return Call(util.proj_standardized, demean=True), (data[:, :DIM],), {}

    def graph_out(function: Any, **keywords: Any) -> Any:
        def run(_: Any, *inputs: Any) -> Any:
            graph = function(*inputs, **keywords)
            return graph.edges, graph.distances

        return Run(None, run, [function])

    if name == "preprocess.k_nearest_neighbors":
        return graph_out(preprocess.k_nearest_neighbors, k=4), (data,), {}
    if name == "preprocess.distances":
        return graph_out(preprocess.distances), (data,), {}
    if name == "preprocess.distances.sampled":
        return graph_out(preprocess.distances, retain_fraction=0.5), (data,), {}
    if name == "preprocess.sample_edges":
        def sample(_: Any, x: Any) -> Any:
            return preprocess.sample_edges(x.shape[0], 20, seed=0)

        return Run(None, sample, [preprocess.sample_edges]), (data,), {}
    if name == "preprocess.dissimilar_edges":
        def dissimilar(_: Any, x: Any, similar: Any) -> Any:
            return preprocess.dissimilar_edges(x.shape[0], similar, seed=0)

        return Run(None, dissimilar, [preprocess.dissimilar_edges]), (data, edges[:10]), {}
    if name == "preprocess.deduplicate_edges":
        duplicated = torch.cat([edges[:10], edges[:5].flip(1)])
        return Call(preprocess.deduplicate_edges), (duplicated,), {}
    return Call(preprocess.scale), (_distances(), torch.tensor(2.0)), {}


def _optim(name: str) -> Built:
    import torch
    from pymde.lbfgs import LBFGS
    from torch import nn

    from gt_calls import Run

    distortion, constraint, keywords = OPTIM[name]
    mde = _mde(distortion, constraint)
    owner = nn.Module()
    owner.mde = mde
    owner.X = nn.Parameter(_start(constraint))
    keywords = dict(keywords)
    if keywords.get("project_callback") == "project":
        keywords["project_callback"] = mde.constraint.project_onto_constraint
    optimizer = LBFGS([owner.X], history_size=3, **keywords)

    def step(module: Any) -> Any:
        def closure() -> Any:
            optimizer.zero_grad()
            loss = module.mde.average_distortion(module.X)
            loss.backward()
            module.mde.constraint.project_onto_tangent_space(module.X, module.X.grad, inplace=True)
            return loss

        with torch.enable_grad():
            return optimizer.step(closure)

    return Run(owner, step, [LBFGS.step]), (), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn

    distortion, constraint, kind = TRAIN[name]
    mde = _mde(distortion, constraint)

    if kind == "encoder":
        class Encoder(nn.Module):
            """A parametric embedding: a linear map of the data, trained on the problem's average distortion."""

            def __init__(self) -> None:
                super().__init__()
                self.encoder = nn.Sequential(nn.Linear(FEATURES, 8), nn.Tanh(), nn.Linear(8, DIM))
                self.mde = mde

            def forward(self, data: torch.Tensor) -> torch.Tensor:
                embedding = self.encoder(data)
                embedding = embedding - embedding.mean(dim=0)
                return self.mde.average_distortion(embedding)

            def entry_points(self) -> list[Any]:
                return [type(self.mde).average_distortion]

        return Encoder(), (_data(),), {}

    class ProjectedGradient(nn.Module):
        """One projected-gradient step on an embedding, as the solver's closure takes it: the gradient of the
        average distortion projected on the constraint's tangent space, the step projected back."""

        def __init__(self) -> None:
            super().__init__()
            self.mde = mde
            self.X = nn.Parameter(_start(constraint))

        def forward(self, lr: torch.Tensor) -> Any:
            with torch.enable_grad():
                loss = self.mde.average_distortion(self.X)
                (grad,) = torch.autograd.grad(loss, self.X)
            X = self.X.detach()
            grad = self.mde.constraint.project_onto_tangent_space(X, grad, inplace=False)
            update = self.mde.constraint.project_onto_constraint(X - lr * grad, inplace=False)
            return loss, update

        def entry_points(self) -> list[Any]:
            constraint_type = type(self.mde.constraint)
            return [type(self.mde).average_distortion, constraint_type.project_onto_tangent_space,
                    constraint_type.project_onto_constraint]

    return ProjectedGradient(), (torch.tensor(0.1),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in PENALTIES or name in LOSSES:
        return _function(name)
    if name in METHODS:
        return _method(name)
    if name in EMBED:
        return _embed(name)
    if name in RECIPES:
        return _recipe(name)
    if name in CONSTRAINTS:
        return _constraint_model(name)
    if name in HELPERS:
        return _helper(name)
    if name in OPTIM:
        return _optim(name)
    return _train(name)
