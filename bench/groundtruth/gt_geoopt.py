"""Ground-truth bench, geoopt: every manifold's operations, its hyperbolic layer, manifold parameters, and
the Riemannian optimiser and sampler steps of geoopt 0.5.1.

geoopt's manifolds are ``nn.Module``s whose methods users call inside their models (``ball.expmap0``,
``ball.mobius_add``) and whose parameters (``ManifoldParameter``) the Riemannian optimisers update. So:

- ``MANIFOLDS`` x ``CORE``: for each manifold (in the configurations that change its code: exact or
  approximate retraction, negative, zero, positive and learnable curvature, the three metrics of
  ``SymmetricPositiveDefinite``, the complex Siegel domains and two of their metrics, products and a
  scaled sphere), up to two models compiled through a bench ``Ops`` module that registers the manifold
  and calls its own methods: ``<manifold>.geodesic`` (``expmap``, ``logmap``, ``dist``, ``dist2``,
  ``transp`` and the combined transports) and ``<manifold>.tangent`` (``projx``, ``proju``,
  ``egrad2rgrad``, ``retr``, ``retr_transp``, ``inner``, ``norm``: what an optimiser step calls, then
  ``random`` and ``origin``). Exact variants differ in their retraction only, and get the second;
  other metrics change the distance, and get the first. Methods a manifold leaves unimplemented
  (``MISSING``) are left out;
- ``STEREOGRAPHIC``: the gyrovector operations of the kappa-stereographic models (Poincare ball, sphere
  projection, flat and learnable curvature, and the product of two): Mobius addition and products,
  the maps at the origin, geodesics, distances to hyperplanes, weighted midpoints, ``mobius_fn_apply``,
  wrapped normal sampling and stereographic projection, plus ``Lorentz``'s maps at the origin and its
  conversion to the Poincare ball;
- ``LAYERS``: ``Distance2StereographicHyperplanes`` in the configurations of its docstring (signed,
  squared, on images with ``ndim=2``) and on a ball of learnable curvature;
- ``PARAMETERS``: modules holding ``ManifoldParameter``s as geoopt's README and examples write them (a
  Mobius linear layer of a hyperbolic network, a layer with a Stiefel weight, Poincare embeddings,
  ``ManifoldTensor``'s own methods);
- ``OPTIMISERS``: one ``step()`` of ``RiemannianAdam`` / ``RiemannianSGD`` (and their options:
  AMSGrad, weight decay, momentum, Nesterov, ``stabilize``) and of the sparse variants, over parameters
  on a sphere, a Stiefel manifold, a Poincare ball and a plain one, with gradients computed eagerly
  beforehand (as compiling ``opt.step()`` is done for torch's own optimisers); the line search and
  the samplers (``RSGLD``, ``RHMC``, ``SGRHMC``) take a step with a closure, which they differentiate
  themselves.

Points are a batch of 4 (matrices: 2 of them), random weights, nothing downloaded. ``names()`` needs no
torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Manifold name -> (class of ``geoopt``, keywords, point shape); ``metric`` names a ``SiegelMetricType``.
# ``ProductManifold``, ``StereographicProductManifold`` and ``Scaled`` get their parts in ``_manifold``.
MANIFOLDS: dict[str, tuple[str, dict[str, Any], tuple[int, ...]]] = {
    "Euclidean": ("Euclidean", {"ndim": 1}, (4, 5)),
    "Sphere": ("Sphere", {}, (4, 5)),
    "SphereExact": ("SphereExact", {}, (4, 5)),
    "CanonicalStiefel": ("CanonicalStiefel", {}, (2, 5, 3)),
    "EuclideanStiefel": ("EuclideanStiefel", {}, (2, 5, 3)),
    "EuclideanStiefelExact": ("EuclideanStiefelExact", {}, (2, 5, 3)),
    "PoincareBall": ("PoincareBall", {"c": 1.0}, (4, 5)),
    "PoincareBallExact": ("PoincareBallExact", {"c": 1.0}, (4, 5)),
    "SphereProjection": ("SphereProjection", {"k": 1.0}, (4, 5)),
    "SphereProjectionExact": ("SphereProjectionExact", {"k": 1.0}, (4, 5)),
    "Stereographic.flat": ("Stereographic", {"k": 0.0}, (4, 5)),
    "Stereographic.learnable": ("Stereographic", {"k": -0.5, "learnable": True}, (4, 5)),
    "StereographicExact": ("StereographicExact", {"k": -1.0}, (4, 5)),
    "Lorentz": ("Lorentz", {"k": 1.0}, (4, 5)),
    "BirkhoffPolytope": ("BirkhoffPolytope", {}, (2, 4, 4)),
    "SymmetricPositiveDefinite": ("SymmetricPositiveDefinite", {}, (2, 3, 3)),
    "SymmetricPositiveDefinite.LEM": ("SymmetricPositiveDefinite", {"default_metric": "LEM"}, (2, 3, 3)),
    "SymmetricPositiveDefinite.SM": ("SymmetricPositiveDefinite", {"default_metric": "SM"}, (2, 3, 3)),
    "UpperHalf": ("UpperHalf", {}, (2, 3, 3)),
    "UpperHalf.finsler_one": ("UpperHalf", {"metric": "FINSLER_ONE"}, (2, 3, 3)),
    "BoundedDomain": ("BoundedDomain", {}, (2, 3, 3)),
    "BoundedDomain.finsler_infinity": ("BoundedDomain", {"metric": "FINSLER_INFINITY"}, (2, 3, 3)),
    "ProductManifold": ("ProductManifold", {}, (4, 7)),  # a sphere of 3, a ball of 2, a plane of 2
    "StereographicProductManifold": ("StereographicProductManifold", {}, (4, 4)),  # a ball and a sphere of 2
    "Scaled": ("Scaled", {"scale": 2.0}, (4, 5)),  # a sphere scaled by 2
}
GEODESIC = ("expmap", "logmap", "dist", "dist2", "transp", "expmap_transp", "transp_follow_expmap")
TANGENT = ("projx", "proju", "egrad2rgrad", "retr", "retr_transp", "transp_follow_retr", "inner", "norm",
           "component_inner")
# Methods that raise ``NotImplementedError`` on a manifold.
_STIEFEL = ("logmap", "dist", "dist2")
_SIEGEL = ("expmap", "logmap", "expmap_transp", "transp_follow_expmap")
MISSING: dict[str, tuple[str, ...]] = {
    "CanonicalStiefel": _STIEFEL + ("transp",), "EuclideanStiefel": _STIEFEL, "EuclideanStiefelExact": _STIEFEL,
    "BirkhoffPolytope": _STIEFEL, "UpperHalf": _SIEGEL, "UpperHalf.finsler_one": _SIEGEL,
    "BoundedDomain": _SIEGEL, "BoundedDomain.finsler_infinity": _SIEGEL,
}
# Manifold -> its model groups. Exact variants differ from their manifold in the retraction only, the
# variants with another metric in the distance and the inner product.
CORE: dict[str, tuple[str, ...]] = {
    name: ("tangent",) if name.endswith("Exact") else
    ("geodesic",) if name.startswith(("SymmetricPositiveDefinite.", "UpperHalf.", "BoundedDomain."))
    else ("geodesic", "tangent")
    for name in MANIFOLDS
}

# Gyrovector groups of the stereographic models: group -> the manifold methods it calls.
GYRO: dict[str, tuple[str, ...]] = {
    "mobius": ("mobius_add", "mobius_sub", "mobius_coadd", "mobius_cosub", "mobius_scalar_mul",
               "mobius_pointwise_mul", "mobius_matvec", "gyration", "antipode"),
    "origin": ("expmap0", "logmap0", "dist0", "transp0", "transp0back", "lambda_x"),  # a product: no lambda_x
    "geodesic_curve": ("geodesic", "geodesic_unit"),
    "dist2plane": ("dist2plane",),
    "weighted_midpoint": ("weighted_midpoint",),
    "mobius_fn_apply": ("mobius_fn_apply", "mobius_fn_apply_chain"),
    "wrapped_normal": ("wrapped_normal", "random_normal"),
    "sproj": ("sproj", "inv_sproj"),
}
LORENTZ = {"origin": ("expmap0", "logmap0", "logmap0back", "dist0", "transp0", "transp0back", "inner0",
                      "geodesic_unit", "random_normal"),
           "to_poincare": ("lorentz_to_poincare", "poincare_to_lorentz")}
# Stereographic manifold -> its gyrovector groups.
STEREOGRAPHIC: dict[str, tuple[str, ...]] = {
    "PoincareBall": tuple(GYRO),
    "SphereProjection": ("mobius", "origin", "geodesic_curve", "dist2plane", "weighted_midpoint", "sproj"),
    "Stereographic.flat": ("mobius", "origin", "geodesic_curve"),
    "Stereographic.learnable": ("mobius", "dist2plane"),
    "StereographicProductManifold": ("mobius", "origin", "dist2plane"),
}

# Layer variant -> (ball of ``MANIFOLDS``, keywords of ``Distance2StereographicHyperplanes``).
LAYERS: dict[str, tuple[str, dict[str, Any]]] = {
    "Distance2StereographicHyperplanes": ("PoincareBall", {}),
    "Distance2StereographicHyperplanes.squared": ("PoincareBall", {"squared": True}),
    "Distance2StereographicHyperplanes.ndim2": ("PoincareBall", {"ndim": 2}),
    "Distance2StereographicHyperplanes.learnable": ("Stereographic.learnable", {}),
}
PARAMETERS = ("MobiusLinear", "HyperbolicMLP", "StiefelLinear", "PoincareEmbedding", "ManifoldTensor.methods")

# Optimiser name -> (class of ``geoopt.optim`` or ``geoopt.samplers``, keywords).
OPTIMISERS: dict[str, tuple[str, dict[str, Any]]] = {
    "RiemannianAdam": ("RiemannianAdam", {"lr": 1e-2}),
    "RiemannianAdam.amsgrad": ("RiemannianAdam", {"lr": 1e-2, "amsgrad": True, "weight_decay": 1e-3}),
    "RiemannianAdam.stabilize": ("RiemannianAdam", {"lr": 1e-2, "stabilize": 1}),
    "RiemannianSGD": ("RiemannianSGD", {"lr": 1e-2}),
    "RiemannianSGD.momentum": ("RiemannianSGD", {"lr": 1e-2, "momentum": 0.9, "dampening": 0.1}),
    "RiemannianSGD.nesterov": ("RiemannianSGD", {"lr": 1e-2, "momentum": 0.9, "nesterov": True, "stabilize": 1}),
    "SparseRiemannianAdam": ("SparseRiemannianAdam", {"lr": 1e-2}),
    "SparseRiemannianSGD": ("SparseRiemannianSGD", {"lr": 1e-2, "momentum": 0.9}),
    "RiemannianLineSearch": ("RiemannianLineSearch", {}),
    "RSGLD": ("RSGLD", {"epsilon": 1e-3}),
    "RHMC": ("RHMC", {"epsilon": 1e-3, "n_steps": 2}),
    "SGRHMC": ("SGRHMC", {"epsilon": 1e-3, "n_steps": 2, "alpha": 0.5}),
}
SAMPLERS = ("RSGLD", "RHMC", "SGRHMC")


def names() -> list[str]:
    core = [f"{m}.{group}" for m in MANIFOLDS for group in CORE[m]]
    gyro = [f"{m}.{group}" for m, groups in STEREOGRAPHIC.items() for group in groups]
    return (core + gyro + [f"Lorentz.{group}" for group in LORENTZ] + [f"layers.{n}" for n in LAYERS]
            + [f"parameters.{p}" for p in PARAMETERS] + [f"optim.{o}" for o in OPTIMISERS])


def _manifold(name: str) -> Any:
    import geoopt

    cls, keywords, _ = MANIFOLDS[name]
    if cls == "ProductManifold":
        return geoopt.ProductManifold((geoopt.Sphere(), 3), (geoopt.PoincareBall(), 2), (geoopt.Euclidean(), 2))
    if cls == "StereographicProductManifold":
        return geoopt.StereographicProductManifold((geoopt.PoincareBall(), 2), (geoopt.SphereProjection(), 2))
    if cls == "Scaled":
        return geoopt.Scaled(geoopt.Sphere(), **keywords)
    if "metric" in keywords:
        from geoopt.manifolds.siegel.vvd_metrics import SiegelMetricType

        keywords = {**keywords, "metric": SiegelMetricType[keywords["metric"]]}
    return getattr(geoopt, cls)(**keywords)


def _points(manifold: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """Two points ``x``, ``y``, two tangent vectors ``u``, ``v`` at ``x`` and an ambient tensor ``a``."""
    import torch

    random = manifold.random_normal if hasattr(manifold, "random_normal") else manifold.random
    x, y = (torch.Tensor(random(*shape)) for _ in range(2))  # plain tensors, as a model computes them
    gen = torch.Generator().manual_seed(5)

    def noise() -> Any:
        if x.is_complex():
            return torch.complex(*(torch.randn(x.shape, generator=gen, dtype=torch.float64) for _ in range(2)))
        return torch.randn(x.shape, generator=gen, dtype=x.dtype)

    u, v = 0.3 * manifold.proju(x, noise()), 0.3 * manifold.proju(x, noise())
    return x, y, u, v, x + 0.05 * noise()


def _ops(manifold: Any, methods: tuple[str, ...], calls: Any, entries: list[Any] | None = None) -> Any:
    """A bench module that registers ``manifold`` and returns ``calls(manifold, *inputs)``; it enters the
    manifold's ``methods`` (or ``entries``, functions of geoopt)."""
    from torch import nn

    class Ops(nn.Module):
        """The manifold's own methods on the inputs; the manifold is a submodule (its curvature may learn)."""

        def __init__(self) -> None:
            super().__init__()
            self.manifold = manifold

        def forward(self, *inputs: Any) -> Any:
            return calls(self.manifold, *inputs)

        def entry_points(self) -> list[Any]:
            owner = type(self.manifold)
            return entries or [getattr(owner, m) for m in methods if hasattr(owner, m)]

    return Ops()


def _core(name: str, group: str) -> Built:
    manifold = _manifold(name)
    shape = MANIFOLDS[name][2]
    x, y, u, v, a = _points(manifold, shape)
    methods = tuple(m for m in (GEODESIC if group == "geodesic" else TANGENT) if m not in MISSING.get(name, ()))
    sample = "random_normal" if name == "Lorentz" else "random"  # the hyperboloid has no ``random``
    arguments = {"expmap": "xu", "logmap": "xy", "dist": "xy", "dist2": "xy", "transp": "xyv",
                 "expmap_transp": "xuv", "transp_follow_expmap": "xuv", "projx": "a", "proju": "xa",
                 "egrad2rgrad": "xa", "retr": "xu", "retr_transp": "xuv", "transp_follow_retr": "xuv",
                 "inner": "xuv", "norm": "xu", "component_inner": "xuv"}

    if name == "Lorentz":
        arguments["norm"] = "u"  # the hyperboloid's norm needs no base point

    def calls(m: Any, x: Any, y: Any, u: Any, v: Any, a: Any) -> Any:
        values = {"x": x, "y": y, "u": u, "v": v, "a": a}
        results = [getattr(m, method)(*(values[c] for c in arguments[method])) for method in methods]
        if group == "tangent":  # new points of the shape of ``x``: a random one and the origin
            results += [getattr(m, sample)(*x.shape), m.origin(*x.shape)]
        return results

    entered = methods + ((sample, "origin") if group == "tangent" else ())
    return _ops(manifold, entered, calls), (x, y, u, v, a), {}


def _gyro(name: str, group: str) -> Built:
    import torch

    manifold = _manifold(name)
    x, y, u, v, _ = _points(manifold, MANIFOLDS[name][2])
    gen = torch.Generator().manual_seed(6)
    dim = x.shape[-1]
    r = torch.rand(x.shape[0], 1, generator=gen)  # scalars and geodesic times, one per point
    w = torch.randn(dim, generator=gen)
    mat = torch.randn(dim, dim, generator=gen) / dim
    weights = torch.rand(x.shape[0], generator=gen)
    inputs = (x, y, u, v, r, w, mat, weights)
    conformal = name != "StereographicProductManifold"  # a product has no single conformal factor

    def calls(m: Any, x: Any, y: Any, u: Any, v: Any, r: Any, w: Any, mat: Any, weights: Any) -> Any:
        if group == "mobius":
            return (m.mobius_add(x, y), m.mobius_sub(x, y), m.mobius_coadd(x, y), m.mobius_cosub(x, y),
                    m.mobius_scalar_mul(r, x), m.mobius_pointwise_mul(w, x), m.mobius_matvec(mat, x),
                    m.gyration(x, y, u), m.antipode(x))
        if group == "origin":
            maps = (m.expmap0(u), m.logmap0(x), m.dist0(x), m.transp0(y, u), m.transp0back(y, u))
            return maps + (m.lambda_x(x),) if conformal else maps
        if group == "geodesic_curve":
            return m.geodesic(r, x, y), m.geodesic_unit(r, x, u)
        if group == "dist2plane":
            return m.dist2plane(x, y, u), m.dist2plane(x, y, u, signed=True, scaled=True)
        if group == "weighted_midpoint":
            return (m.weighted_midpoint(x, weights, reducedim=[0]),
                    m.weighted_midpoint(x, weights, reducedim=[0], lincomb=True), m.weighted_midpoint(x))
        if group == "mobius_fn_apply":
            return m.mobius_fn_apply(torch.tanh, x), m.mobius_fn_apply_chain(x, torch.tanh, torch.sigmoid)
        if group == "wrapped_normal":
            return m.wrapped_normal(*x.shape, mean=x), m.random_normal(*x.shape, std=0.5)
        return m.inv_sproj(m.sproj(x))  # sproj

    return _ops(manifold, GYRO[group], calls), inputs, {}


def _lorentz(group: str) -> Built:
    import torch
    from geoopt.manifolds.lorentz import math as lmath

    manifold = _manifold("Lorentz")
    x, y, u, v, _ = _points(manifold, MANIFOLDS["Lorentz"][2])
    t = torch.rand(x.shape[0], 1, generator=torch.Generator().manual_seed(6))
    if group == "origin":
        def calls(m: Any, x: Any, y: Any, u: Any, v: Any, t: Any) -> Any:
            u0 = m.proju(m.origin(*x.shape), u)
            return (m.expmap0(u0), m.logmap0(x), m.logmap0back(x), m.dist0(x), m.transp0(y, u0),
                    m.transp0back(x, u), m.inner0(u0), m.geodesic_unit(t, x, u), m.random_normal(*x.shape))

        return _ops(manifold, LORENTZ["origin"], calls), (x, y, u, v, t), {}

    def convert(m: Any, x: Any) -> Any:
        ball = lmath.lorentz_to_poincare(x, m.k)
        return ball, lmath.poincare_to_lorentz(ball, m.k)

    return _ops(manifold, (), convert, [lmath.lorentz_to_poincare, lmath.poincare_to_lorentz]), (x,), {}


def _layer(name: str) -> Built:
    from geoopt.layers.stereographic import Distance2StereographicHyperplanes

    ball_name, keywords = LAYERS[name]
    ball = _manifold(ball_name)
    layer = Distance2StereographicHyperplanes(2, 6, ball=ball, **keywords)
    if keywords.get("ndim") == 2:  # an image of points on the ball, channels first (as the docstring)
        x = ball.random_normal(4, 6, 6, 2).permute(0, 3, 1, 2)
    else:
        x = ball.random_normal(8, 2)
    import torch

    return layer, (torch.Tensor(x),), {}


def _parameters(name: str) -> Built:
    import geoopt
    import torch
    from geoopt.layers.stereographic import Distance2StereographicHyperplanes
    from torch import nn

    gen = torch.Generator().manual_seed(7)
    ball = geoopt.PoincareBall(c=1.0)

    class MobiusLinear(nn.Linear):
        """The Mobius linear layer of geoopt's hyperbolic-network example: a Mobius matrix-vector product
        and a bias that is a point of the ball (a ``ManifoldParameter``), optionally a nonlinearity
        applied in the tangent space at the origin."""

        def __init__(self, *args: Any, nonlin: Any = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.ball = ball
            self.bias = geoopt.ManifoldParameter(ball.expmap0(0.1 * torch.randn(self.out_features, generator=gen)),
                                                 manifold=ball)
            self.nonlin = nonlin

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            output = self.ball.mobius_add(self.ball.mobius_matvec(self.weight, x), self.bias)
            if self.nonlin is not None:
                output = self.ball.expmap0(self.nonlin(self.ball.logmap0(output)))
            return output

        def entry_points(self) -> list[Any]:
            owner = type(self.ball)
            return [owner.mobius_matvec, owner.mobius_add, owner.logmap0, owner.expmap0]

    x = torch.randn(8, 6, generator=gen) * 0.3
    if name == "MobiusLinear":
        return MobiusLinear(6, 4, nonlin=torch.relu), (ball.expmap0(x),), {}
    if name == "HyperbolicMLP":

        class HyperbolicMLP(nn.Module):
            """Euclidean features mapped onto the ball, two Mobius layers, and hyperbolic multinomial
            logistic regression by distances to hyperplanes (the layer geoopt ships)."""

            def __init__(self) -> None:
                super().__init__()
                self.ball = ball
                self.hidden = MobiusLinear(6, 8, nonlin=torch.tanh)
                self.out = MobiusLinear(8, 4)
                self.classes = Distance2StereographicHyperplanes(4, 3, ball=ball)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.classes(self.out(self.hidden(self.ball.expmap0(x))))

            def entry_points(self) -> list[Any]:
                return [type(self.ball).expmap0, MobiusLinear, Distance2StereographicHyperplanes]

        return HyperbolicMLP(), (x,), {}
    if name == "StiefelLinear":

        class StiefelLinear(nn.Module):
            """A linear map whose weight has orthonormal columns: a ``ManifoldParameter`` on ``Stiefel``."""

            def __init__(self) -> None:
                super().__init__()
                stiefel = geoopt.Stiefel()
                self.weight = geoopt.ManifoldParameter(stiefel.random(6, 4), manifold=stiefel)
                self.bias = nn.Parameter(torch.zeros(4))

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return x @ self.weight + self.bias

            def entry_points(self) -> list[Any]:
                return [geoopt.ManifoldParameter]

        return StiefelLinear(), (x,), {}
    if name == "PoincareEmbedding":

        class PoincareEmbedding(nn.Module):
            """Poincare embeddings (Nickel and Kiela): a table of points of the ball, and the softmax
            loss of each node's neighbour against its negatives by hyperbolic distance."""

            def __init__(self) -> None:
                super().__init__()
                self.ball = ball
                self.weight = geoopt.ManifoldParameter(ball.random_normal(20, 3, std=0.1), manifold=ball)

            def forward(self, nodes: torch.Tensor, others: torch.Tensor) -> torch.Tensor:
                distances = self.ball.dist(self.weight[nodes].unsqueeze(1), self.weight[others])
                return nn.functional.cross_entropy(-distances, torch.zeros_like(nodes))

            def entry_points(self) -> list[Any]:
                return [type(self.ball).dist]

        nodes = torch.randint(0, 20, (8,), generator=gen)
        return PoincareEmbedding(), (nodes, torch.randint(0, 20, (8, 5), generator=gen)), {}

    sphere = geoopt.Sphere()
    point = geoopt.ManifoldTensor(sphere.random(4, 5), manifold=sphere)
    other = sphere.random(4, 5)
    u, v = sphere.proju(point, torch.randn(4, 5, generator=gen)), sphere.proju(point, torch.randn(4, 5, generator=gen))

    class TensorMethods(nn.Module):
        """``ManifoldTensor``'s own methods, which forward to its manifold."""

        def forward(self, x: Any, y: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> Any:
            return (x.proju(u), x.retr(u), x.expmap(u), x.inner(u, v), x.transp(y, v), x.dist(y), x.logmap(y),
                    x.retr_transp(u, v), x.expmap_transp(u, v))

        def entry_points(self) -> list[Any]:
            return [getattr(geoopt.ManifoldTensor, m) for m in ("proju", "retr", "expmap", "inner", "transp", "dist",
                                                                 "logmap", "retr_transp", "expmap_transp")]

    return TensorMethods(), (point, other, u, v), {}


def _optimiser(name: str) -> Built:
    import geoopt
    import torch
    from torch import nn

    cls, keywords = OPTIMISERS[name]
    gen = torch.Generator().manual_seed(8)
    sparse = cls.startswith("Sparse")
    sampler = cls in SAMPLERS

    class Parameters(nn.Module):
        """Parameters on a sphere, a Stiefel manifold and a Poincare ball, and a Euclidean one (samplers
        accept only reversible retractions: no sphere, and the exact ball; sparse optimisers: two
        embedding tables)."""

        def __init__(self) -> None:
            super().__init__()
            sphere, stiefel = geoopt.Sphere(), geoopt.Stiefel()
            ball = geoopt.PoincareBallExact() if sampler else geoopt.PoincareBall()
            if sparse:
                self.sphere = geoopt.ManifoldParameter(sphere.random(10, 4), manifold=sphere)
                self.ball = geoopt.ManifoldParameter(ball.random_normal(10, 3, std=0.1), manifold=ball)
                return
            if not sampler:
                self.sphere = geoopt.ManifoldParameter(sphere.random(4, 5), manifold=sphere)
            self.stiefel = geoopt.ManifoldParameter(stiefel.random(5, 3), manifold=stiefel)
            self.ball = geoopt.ManifoldParameter(ball.random_normal(4, 3, std=0.1), manifold=ball)
            self.plain = nn.Parameter(torch.randn(3, generator=gen))

        def loss(self, target: torch.Tensor) -> torch.Tensor:
            """A smooth objective, bounded below, on every parameter (its gradients are what the step
            follows)."""
            if sparse:
                rows = torch.tensor([0, 2, 5])
                return (nn.functional.embedding(rows, self.sphere, sparse=True) @ target[:4]).sum() + \
                    nn.functional.embedding(rows, self.ball, sparse=True).pow(2).sum()
            value = ((self.stiefel[:, 0] * target).sum() + self.ball.pow(2).sum()
                     + (self.plain - target[:3]).pow(2).sum())
            return value if sampler else value + (self.sphere * target).sum()

    parameters = Parameters()
    target = torch.randn(5, generator=gen)
    module = getattr(geoopt.samplers if sampler else geoopt.optim, cls)
    optimiser = module(parameters.parameters(), **keywords)
    closure_based = sampler or cls == "RiemannianLineSearch"
    if not closure_based:  # gradients computed eagerly, once: the compiled step follows them
        parameters.loss(target).backward()

    class Step(nn.Module):
        """One ``step()`` of the optimiser. Samplers get a closure returning the log-density (a von
        Mises-Fisher-like one), which they differentiate themselves; the line search one that zeroes the
        gradients and returns the loss after its backward pass. Gradients are enabled whatever the mode."""

        def __init__(self) -> None:
            super().__init__()
            self.parameters_ = parameters

        def forward(self, target: torch.Tensor) -> Any:
            if not closure_based:
                optimiser.step()
                return None

            def closure() -> torch.Tensor:
                if sampler:
                    return -self.parameters_.loss(target)
                optimiser.zero_grad()
                loss = self.parameters_.loss(target)
                loss.backward()
                return loss

            with torch.enable_grad():
                return optimiser.step(closure)

        def entry_points(self) -> list[Any]:
            return [type(optimiser).step]

    return Step(), (target,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    kind, rest = name.split(".", 1)
    if kind == "layers":
        return _layer(rest)
    if kind == "parameters":
        return _parameters(rest)
    if kind == "optim":
        return _optimiser(rest)
    manifold, group = name.rsplit(".", 1)
    if manifold == "Lorentz" and group in LORENTZ:
        return _lorentz(group)
    if group in GYRO:
        return _gyro(manifold, group)
    return _core(manifold, group)
