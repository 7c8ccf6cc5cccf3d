"""Ground-truth bench, hypll: hyperbolic deep learning on the Poincaré ball.

hypll (the Hyperbolic Learning Library) wraps tensors in ``ManifoldTensor`` (points, with the dimension
that holds the coordinates, ``man_dim``) and ``TangentTensor`` (vectors at points, or at the origin), has
two manifolds (``PoincareBall`` with a ``Curvature`` module, fixed or learnable, and ``Euclidean``), the
hyperbolic layers of ``hypll.nn`` and two Riemannian optimizers. Users build a network out of those layers,
map their Euclidean inputs onto the ball with ``expmap`` and train with ``RiemannianSGD`` or
``RiemannianAdam``. The compiled forwards take plain tensors and wrap them as users do inside a model.
The models, by table:

- ``OPS``: the manifold operations, each a bench module holding the manifold (``gt_calls.Run``): the
  exponential and logarithmic maps at the origin and at points, Möbius addition (also broadcast), the
  projection (default and explicit ``eps``), gyration, parallel transport, distances (``dist``, batched
  ``cdist``), the inner product of tangent vectors (with and without the check that they sit at the same
  points), ``euc_to_tangent``, signed distances to hyperplanes (with and without offsets), the fully
  connected map, the Fréchet mean (one and several batch dimensions, ``keepdim``), the Einstein midpoint
  (weighted, ``keepdim``), the Fréchet variance (given a mean or computing it), flattening across and beside
  the manifold dimension (beta-concatenation), unfolding, concatenation along and beside it, a learnable
  curvature with another constraint, and the same operations on ``Euclidean`` where it has its own code;
- ``TENSORS``: ``ManifoldTensor``'s indexing (a long tensor, slices with an ellipsis and ``None``),
  ``squeeze`` / ``unsqueeze``, ``transpose``, ``project``, ``detach`` / ``to``, and ``TangentTensor``'s
  broadcast ``size``;
- ``LAYERS``: ``HLinear``, ``HConvolution2d`` (stride and padding), ``HBatchNorm`` / ``HBatchNorm2d`` (Fréchet
  mean or midpoint), ``HAvgPool2d`` (Fréchet mean or midpoint, stride and padding), ``HMaxPool2d``, ``HReLU``,
  ``HEmbedding``, ``HFlatten``, ``ChangeManifold`` (ball to Euclidean, back, and between curvatures) and
  ``TangentSequential``;
- ``RESETS``: the layers' ``reset_parameters`` (``HLinear``, a convolution, an embedding mapped onto the ball)
  and a learnable ``Curvature``'s forward;
- ``NETS``: small hyperbolic networks as the library's tutorials build them: an MLP classifier (fixed and
  learnable curvature), a CNN (convolution, batch norm, ReLU, max and average pooling, flatten, linear), a
  Poincaré embedding scored by distances, a hyperplane (multinomial logistic regression) head, and two nets
  whose only parameters are plain ones (Euclidean layers in the tangent space through ``TangentSequential``,
  hyperbolic batch norm, ReLU and pooling, a Euclidean head); and training steps (zero_grad, loss, backward
  under ``enable_grad``, through the Fréchet mean's custom backward where batch norm uses it, ``step``) with
  ``RiemannianSGD`` (plain, momentum with dampening, Nesterov with weight decay) and ``RiemannianAdam`` (plain,
  AMSGrad with weight decay);
- ``STEPS``: ``optimizer.step()`` alone after a backward at build time, on the MLP and the embedding (whose
  ``ManifoldParameter`` weights the step meets first) and on the tangent net (the optimizers' Euclidean
  branch) in the configurations above.

Layers with hypll's ``ManifoldParameter`` weights (``HLinear``, ``HConvolution2d``, ``HEmbedding``) stop Dynamo
with an internal error where it first meets such a weight (the class refuses the torch functions Dynamo applies
to a tensor), so their models keep one configuration each; the plain-parameter nets carry the training steps'
configurations. The bench modules report a ``ManifoldParameter``'s plain ``.tensor`` from ``parameters()`` for
the same reason (the harness counts parameters with ``numel``).

Tiny sizes (batch 2, widths 4 to 8, 6x6 images), random weights, nothing downloaded. Every model is compiled
in eval and in train mode, twice each, and an optimizer's state carries over between the calls. ``names()``
needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, DIM, HIDDEN, CLASSES = 2, 4, 8, 3

# Manifold operation -> (manifold: "ball", "ball.learn" (learnable curvature) or "euclid"; input shapes).
OPS: dict[str, tuple[str, tuple[tuple[int, ...], ...]]] = {
    "PoincareBall.expmap0": ("ball", ((BATCH, DIM),)),
    "PoincareBall.expmap": ("ball", ((BATCH, DIM), (BATCH, DIM))),
    "PoincareBall.logmap0": ("ball", ((BATCH, DIM),)),
    "PoincareBall.logmap": ("ball", ((BATCH, DIM), (BATCH, DIM))),
    "PoincareBall.mobius_add": ("ball", ((BATCH, DIM), (BATCH, DIM))),
    "PoincareBall.mobius_add.broadcast": ("ball", ((BATCH, DIM), (1, DIM))),
    "PoincareBall.project": ("ball", ((BATCH, DIM),)),
    "PoincareBall.project.eps": ("ball", ((BATCH, DIM),)),
    "PoincareBall.gyration": ("ball", ((BATCH, DIM), (BATCH, DIM), (BATCH, DIM))),
    "PoincareBall.transp": ("ball", ((BATCH, DIM), (BATCH, DIM), (BATCH, DIM))),
    "PoincareBall.dist": ("ball", ((BATCH, DIM), (BATCH, DIM))),
    "PoincareBall.cdist": ("ball", ((BATCH, 3, DIM), (BATCH, 5, DIM))),
    "PoincareBall.inner": ("ball", ((BATCH, DIM), (BATCH, DIM), (BATCH, DIM))),
    "PoincareBall.inner.unsafe.keepdim": ("ball", ((BATCH, DIM), (BATCH, DIM), (BATCH, DIM))),
    "PoincareBall.euc_to_tangent": ("ball", ((BATCH, DIM), (BATCH, DIM))),
    "PoincareBall.hyperplane_dists": ("ball", ((BATCH, DIM), (DIM, CLASSES), (CLASSES,))),
    "PoincareBall.hyperplane_dists.no_offset": ("ball", ((BATCH, DIM), (DIM, CLASSES))),
    "PoincareBall.fully_connected": ("ball", ((BATCH, DIM), (DIM, HIDDEN), (HIDDEN,))),
    "PoincareBall.frechet_mean": ("ball", ((5, DIM),)),
    "PoincareBall.frechet_mean.batch_dims.keepdim": ("ball", ((3, BATCH, DIM),)),
    "PoincareBall.midpoint": ("ball", ((5, DIM),)),
    "PoincareBall.midpoint.weights.keepdim": ("ball", ((5, DIM), (5, 1))),
    "PoincareBall.frechet_variance": ("ball", ((5, DIM),)),
    "PoincareBall.frechet_variance.mu": ("ball", ((5, DIM),)),
    "PoincareBall.flatten.man_dim": ("ball", ((BATCH, DIM, 3, 3),)),
    "PoincareBall.flatten.beside": ("ball", ((BATCH, 3, 2, DIM),)),
    "PoincareBall.unfold": ("ball", ((BATCH, DIM, 5, 5),)),
    "PoincareBall.cat.man_dim": ("ball", ((BATCH, DIM), (BATCH, 3))),
    "PoincareBall.cat.batch": ("ball", ((BATCH, DIM), (3, DIM))),
    "PoincareBall.learnable_curvature": ("ball.learn", ((BATCH, DIM), (BATCH, DIM))),
    "Euclidean.expmap.logmap": ("euclid", ((BATCH, DIM), (BATCH, DIM))),
    "Euclidean.fully_connected": ("euclid", ((BATCH, DIM), (DIM, HIDDEN), (HIDDEN,))),
    "Euclidean.frechet_mean.variance": ("euclid", ((5, DIM),)),
    "Euclidean.frechet_variance.mu": ("euclid", ((5, DIM),)),
    "Euclidean.flatten.unfold": ("euclid", ((BATCH, DIM, 4, 4),)),
    "Euclidean.cat.dist.cdist": ("euclid", ((BATCH, DIM), (BATCH, DIM))),
    "Euclidean.hyperplane_dists": ("euclid", ((BATCH, DIM), (DIM, CLASSES), (CLASSES,))),
}
TENSORS: dict[str, tuple[tuple[int, ...], ...]] = {
    "ManifoldTensor.getitem.long": ((5, DIM),),
    "ManifoldTensor.getitem.slices": ((BATCH, 3, DIM),),
    "ManifoldTensor.squeeze.unsqueeze": ((BATCH, 1, DIM),),
    "ManifoldTensor.transpose": ((BATCH, DIM, 3),),
    "ManifoldTensor.project.detach.to": ((BATCH, DIM),),
    "TangentTensor.size.broadcast": ((BATCH, DIM), (1, DIM)),
}
# Layer -> (input: "vec" (batch, DIM), "img" (batch, DIM, 6, 6), "ids", "euclid"
# (points of a Euclidean manifold); layer keywords, where the layer takes some).
LAYERS: dict[str, tuple[str, dict[str, Any]]] = {
    "HLinear": ("vec", {}),
    "HConvolution2d.stride.padding": ("img", {"kernel_size": 3, "stride": 2, "padding": 1}),
    "HBatchNorm": ("vec", {}),
    "HBatchNorm.midpoint": ("vec", {"use_midpoint": True}),
    "HBatchNorm2d": ("img", {}),
    "HBatchNorm2d.midpoint": ("img", {"use_midpoint": True}),
    "HAvgPool2d": ("img", {"kernel_size": 2}),
    "HAvgPool2d.midpoint": ("img", {"kernel_size": 2, "use_midpoint": True}),
    "HAvgPool2d.stride.padding": ("img", {"kernel_size": 3, "stride": (2, 2), "padding": 1}),
    "HMaxPool2d": ("img", {"kernel_size": 2}),
    "HMaxPool2d.stride.padding.ceil": ("img", {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    "HReLU": ("img", {}),
    "HEmbedding": ("ids", {}),
    "HFlatten": ("img", {}),
    "HFlatten.beside_man_dim": ("img", {"start_dim": 2}),
    "ChangeManifold.to_euclidean": ("vec", {}),
    "ChangeManifold.from_euclidean": ("euclid", {}),
    "ChangeManifold.curvature": ("vec", {}),
    "TangentSequential": ("vec", {}),
}
# ``reset_parameters`` of a layer (the manifold's initialisation of its weights) and the curvature module.
RESETS = ("HLinear.reset_parameters", "HConvolution2d.reset_parameters", "HEmbedding.reset_parameters",
          "Curvature.learnable")
# Network -> (net; what: "forward" or "train.<optimizer>" with the optimizer's keywords). Nets: "mlp" (``HLinear``
# layers), "mlp.learn" (the same on a learnable curvature), "cnn", "embedding", "hyperplane" hold hypll's
# ``ManifoldParameter`` weights; "tangent" (``TangentSequential`` of Euclidean layers between the ball's maps,
# ``HBatchNorm``, ``HReLU``, the midpoint, back to Euclidean with ``ChangeManifold``) and "tangent.img" (its
# image form: ``HBatchNorm2d``, ``HReLU``, ``HMaxPool2d``, ``HAvgPool2d``, ``HFlatten``) hold plain parameters only.
NETS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "net.mlp": ("mlp", "forward", {}),
    "net.mlp.learnable_curvature": ("mlp.learn", "forward", {}),
    "net.cnn": ("cnn", "forward", {}),
    "net.embedding.dist": ("embedding", "forward", {}),
    "net.hyperplane_head": ("hyperplane", "forward", {}),
    "net.tangent": ("tangent", "forward", {}),
    "net.tangent.img": ("tangent.img", "forward", {}),
    "train_step.mlp.RiemannianAdam": ("mlp", "train.RiemannianAdam", {"lr": 1e-2}),
    "train_step.cnn.RiemannianAdam": ("cnn", "train.RiemannianAdam", {"lr": 1e-2}),
    "train_step.embedding.RiemannianSGD": ("embedding", "train.RiemannianSGD", {"lr": 1e-2}),
    "train_step.hyperplane_head.RiemannianSGD": ("hyperplane", "train.RiemannianSGD", {"lr": 1e-2}),
    "train_step.tangent.RiemannianAdam": ("tangent", "train.RiemannianAdam", {"lr": 1e-2}),
    "train_step.tangent.RiemannianAdam.amsgrad.weight_decay": ("tangent", "train.RiemannianAdam",
                                                               {"lr": 1e-2, "amsgrad": True, "weight_decay": 1e-3}),
    "train_step.tangent.RiemannianSGD": ("tangent", "train.RiemannianSGD", {"lr": 1e-2}),
    "train_step.tangent.RiemannianSGD.momentum": ("tangent", "train.RiemannianSGD",
                                                  {"lr": 1e-2, "momentum": 0.9, "dampening": 0.1}),
    "train_step.tangent.RiemannianSGD.nesterov.weight_decay": (
        "tangent", "train.RiemannianSGD", {"lr": 1e-2, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}),
    "train_step.tangent.img.RiemannianAdam": ("tangent.img", "train.RiemannianAdam", {"lr": 1e-2}),
    "train_step.tangent.img.RiemannianSGD.momentum": ("tangent.img", "train.RiemannianSGD",
                                                      {"lr": 1e-2, "momentum": 0.9}),
}
# ``optimizer.step()`` alone -> (net, optimizer, keywords). On "mlp" and "embedding" it meets hypll's
# ``ManifoldParameter``s first; "tangent" nets have plain parameters (the optimizers' Euclidean branch).
STEPS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "RiemannianSGD.step.mlp": ("mlp", "RiemannianSGD", {"lr": 1e-2, "momentum": 0.9}),
    "RiemannianAdam.step.embedding": ("embedding", "RiemannianAdam", {"lr": 1e-2, "weight_decay": 1e-3}),
    "RiemannianSGD.step.tangent": ("tangent", "RiemannianSGD", {"lr": 1e-2}),
    "RiemannianSGD.step.tangent.momentum": ("tangent", "RiemannianSGD", {"lr": 1e-2, "momentum": 0.9}),
    "RiemannianSGD.step.tangent.nesterov.weight_decay": ("tangent", "RiemannianSGD",
                                                         {"lr": 1e-2, "momentum": 0.9, "nesterov": True,
                                                          "weight_decay": 1e-3}),
    "RiemannianAdam.step.tangent": ("tangent", "RiemannianAdam", {"lr": 1e-2}),
    "RiemannianAdam.step.tangent.amsgrad.weight_decay": ("tangent", "RiemannianAdam",
                                                         {"lr": 1e-2, "amsgrad": True, "weight_decay": 1e-3}),
}


def names() -> list[str]:
    return list(OPS) + list(TENSORS) + list(LAYERS) + list(RESETS) + list(NETS) + list(STEPS)


def _randn(*shape: int, seed: int = 1, scale: float = 0.3) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) * scale


def _ball(learnable: bool = False, value: float = 1.0) -> Any:
    from hypll.manifolds.poincare_ball import Curvature, PoincareBall

    if learnable:  # a trained curvature, kept positive by an exponential instead of the default softplus
        import torch

        return PoincareBall(c=Curvature(value=0.5, constraining_strategy=torch.exp, requires_grad=True))
    return PoincareBall(c=Curvature(value=value))


def _euclid() -> Any:
    from hypll.manifolds.euclidean import Euclidean

    return Euclidean()


def _point(manifold: Any, x: Any, man_dim: int = -1) -> Any:
    """Points of ``manifold``: ``x`` read as tangent vectors at the origin and mapped by ``expmap``."""
    from hypll.tensors import TangentTensor

    return manifold.expmap(TangentTensor(data=x, manifold_points=None, manifold=manifold, man_dim=man_dim))


def _tangent(manifold: Any, v: Any, at: Any = None, man_dim: int = -1) -> Any:
    from hypll.tensors import TangentTensor

    return TangentTensor(data=v, manifold_points=at, manifold=manifold, man_dim=man_dim)


def _euclid_weights(manifold: Any, z: Any) -> Any:
    from hypll.manifolds.euclidean import Euclidean
    from hypll.tensors import ManifoldTensor

    return ManifoldTensor(data=z, manifold=Euclidean(), man_dim=0)


def _run(owner: Any, run: Callable[..., Any], entries: list[Any]) -> Any:
    """``gt_calls.Run(owner, run, entries)`` whose ``parameters()`` yields a ``ManifoldParameter``'s plain
    ``.tensor``: hypll's parameters refuse torch functions such as ``numel``, which the harness counts with (the
    module tree, train / eval switching and what Dynamo traces are unchanged)."""
    from gt_calls import Run

    class _Hyperbolic(Run):
        def parameters(self, recurse: bool = True) -> Any:
            for parameter in super().parameters(recurse):
                yield parameter.__dict__.get("tensor", parameter)

    return _Hyperbolic(owner, run, entries)


def _op_runs() -> dict[str, Callable[..., Any]]:
    """Each operation of ``OPS`` as ``run(manifold, *tensors)``, returning plain tensors."""
    from hypll.tensors import ManifoldTensor

    def mt(m: Any, t: Any, man_dim: int = -1) -> Any:
        return ManifoldTensor(data=t, manifold=m, man_dim=man_dim)

    def inner(m: Any, x: Any, u: Any, v: Any, safe: bool) -> Any:
        p = _point(m, x)
        return m.inner(_tangent(m, u, p), _tangent(m, v, p), keepdim=not safe, safe_mode=safe)

    def cat_man_dim(m: Any, x: Any, y: Any) -> Any:
        return m.cat([_point(m, x), _point(m, y)], dim=1).tensor

    def cat_batch(m: Any, x: Any, y: Any) -> Any:
        return m.cat((_point(m, x), _point(m, y)), dim=0).tensor

    def frechet(m: Any, x: Any) -> Any:
        p = _point(m, x)
        return m.frechet_mean(p, batch_dim=0).tensor.sum() + m.frechet_variance(p, batch_dim=0)

    def variance_mu(m: Any, x: Any) -> Any:
        p = _point(m, x)
        mu = m.midpoint(p, batch_dim=0)
        return m.frechet_variance(p, mu=mu, batch_dim=0)

    def flatten_unfold(m: Any, x: Any) -> Any:
        p = _point(m, x, man_dim=1)
        return m.flatten(p, start_dim=1).tensor.sum() + m.unfold(p, kernel_size=(2, 2), stride=2).tensor.sum()

    def hyperplanes(m: Any, x: Any, z: Any, r: Any = None) -> Any:
        return m.hyperplane_dists(_point(m, x, man_dim=1), _euclid_weights(m, z), r)

    def euclid_pairs(m: Any, x: Any, y: Any) -> Any:
        a, b = _point(m, x), _point(m, y)
        both = m.cat([a, b], dim=0)
        return m.dist(a, b).sum() + m.cdist(both, both).sum() + m.project(both).tensor.sum()

    def learnable(m: Any, x: Any, y: Any) -> Any:
        a, b = _point(m, x), _point(m, y)
        return m.dist(m.mobius_add(a, b), b) + m.logmap(a, b).tensor.sum(-1)

    return {
        "PoincareBall.expmap0": lambda m, v: _point(m, v).tensor,
        "PoincareBall.expmap": lambda m, x, v: m.expmap(_tangent(m, v, _point(m, x))).tensor,
        "PoincareBall.logmap0": lambda m, x: m.logmap(None, _point(m, x)).tensor,
        "PoincareBall.logmap": lambda m, x, y: m.logmap(_point(m, x), _point(m, y)).tensor,
        "PoincareBall.mobius_add": lambda m, x, y: m.mobius_add(_point(m, x), _point(m, y)).tensor,
        "PoincareBall.mobius_add.broadcast": lambda m, x, y: m.mobius_add(_point(m, x), _point(m, y)).tensor,
        "PoincareBall.project": lambda m, x: m.project(mt(m, x * 5)).tensor,
        "PoincareBall.project.eps": lambda m, x: m.project(mt(m, x * 5), eps=1e-3).tensor,
        "PoincareBall.gyration": lambda m, u, v, w: m.gyration(_point(m, u), _point(m, v), _point(m, w)).tensor,
        "PoincareBall.transp": lambda m, x, y, v: m.transp(_tangent(m, v, _point(m, x)), _point(m, y)).tensor,
        "PoincareBall.dist": lambda m, x, y: m.dist(_point(m, x), _point(m, y)),
        "PoincareBall.cdist": lambda m, x, y: m.cdist(_point(m, x), _point(m, y)),
        "PoincareBall.inner": lambda m, x, u, v: inner(m, x, u, v, True),
        "PoincareBall.inner.unsafe.keepdim": lambda m, x, u, v: inner(m, x, u, v, False),
        "PoincareBall.euc_to_tangent": lambda m, x, u: m.euc_to_tangent(_point(m, x), mt(_euclid(), u)).tensor,
        "PoincareBall.hyperplane_dists": hyperplanes,
        "PoincareBall.hyperplane_dists.no_offset": hyperplanes,
        "PoincareBall.fully_connected": lambda m, x, z, b: m.fully_connected(_point(m, x), _euclid_weights(m, z),
                                                                             b).tensor,
        "PoincareBall.frechet_mean": lambda m, x: m.frechet_mean(_point(m, x), batch_dim=0).tensor,
        "PoincareBall.frechet_mean.batch_dims.keepdim": lambda m, x: m.frechet_mean(
            _point(m, x), batch_dim=[0, 1], keepdim=True).tensor,
        "PoincareBall.midpoint": lambda m, x: m.midpoint(_point(m, x), batch_dim=0).tensor,
        "PoincareBall.midpoint.weights.keepdim": lambda m, x, w: m.midpoint(_point(m, x), batch_dim=0, w=w.abs(),
                                                                            keepdim=True).tensor,
        "PoincareBall.frechet_variance": lambda m, x: m.frechet_variance(_point(m, x), batch_dim=0),
        "PoincareBall.frechet_variance.mu": variance_mu,
        "PoincareBall.flatten.man_dim": lambda m, x: m.flatten(_point(m, x, man_dim=1), start_dim=1).tensor,
        "PoincareBall.flatten.beside": lambda m, x: _point(m, x).flatten(start_dim=1, end_dim=2).tensor,
        "PoincareBall.unfold": lambda m, x: m.unfold(_point(m, x, man_dim=1), kernel_size=(3, 3), padding=1,
                                                     stride=2).tensor,
        "PoincareBall.cat.man_dim": cat_man_dim,
        "PoincareBall.cat.batch": cat_batch,
        "PoincareBall.learnable_curvature": learnable,
        "Euclidean.expmap.logmap": lambda m, x, v: m.logmap(_point(m, x), m.expmap(_tangent(m, v, _point(m, x))))
        .tensor + m.transp(_tangent(m, v, _point(m, x)), _point(m, v)).tensor,
        "Euclidean.fully_connected": lambda m, x, z, b: m.fully_connected(_point(m, x, man_dim=1),
                                                                          _euclid_weights(m, z), b).tensor,
        "Euclidean.frechet_mean.variance": frechet,
        "Euclidean.frechet_variance.mu": lambda m, x: m.frechet_variance(
            _point(m, x), mu=m.frechet_mean(_point(m, x), batch_dim=0), batch_dim=0),
        "Euclidean.flatten.unfold": flatten_unfold,
        "Euclidean.cat.dist.cdist": euclid_pairs,
        "Euclidean.hyperplane_dists": hyperplanes,
    }


def _ops(name: str) -> Built:
    kind, shapes = OPS[name]
    manifold = _euclid() if kind == "euclid" else _ball(learnable=kind == "ball.learn")
    inputs = tuple(_randn(*shape, seed=i + 1) for i, shape in enumerate(shapes))
    method = name.split(".")[1]
    entries = [getattr(type(manifold), method)] if hasattr(type(manifold), method) else [type(manifold)]
    return _run(manifold, _op_runs()[name], entries), inputs, {}


def _tensors(name: str) -> Built:
    import torch
    from hypll.tensors import ManifoldTensor, TangentTensor

    manifold = _ball()
    inputs = tuple(_randn(*shape, seed=i + 1) for i, shape in enumerate(TENSORS[name]))

    def getitem_long(m: Any, x: Any) -> Any:
        return _point(m, x)[torch.tensor([[0, 2], [4, 1]])].tensor

    def getitem_slices(m: Any, x: Any) -> Any:
        p = _point(m, x)
        return p[..., 1:, :].tensor.sum() + p[0, None].tensor.sum() + p[:, 1].tensor.sum()

    def squeeze(m: Any, x: Any) -> Any:
        p = _point(m, x)
        return p.squeeze(1).unsqueeze(0).squeeze().tensor

    def transpose(m: Any, x: Any) -> Any:
        return _point(m, x, man_dim=1).transpose(1, 2).tensor

    def project(m: Any, x: Any) -> Any:
        p = ManifoldTensor(data=x * 5, manifold=m)
        return p.project().detach().to(torch.float64).cpu().tensor

    def size(m: Any, x: Any, v: Any) -> Any:
        t = TangentTensor(data=v, manifold_points=_point(m, x), manifold=m)
        return m.expmap(t).tensor * t.dim() + t.size(0)

    run = {"ManifoldTensor.getitem.long": getitem_long, "ManifoldTensor.getitem.slices": getitem_slices,
           "ManifoldTensor.squeeze.unsqueeze": squeeze, "ManifoldTensor.transpose": transpose,
           "ManifoldTensor.project.detach.to": project, "TangentTensor.size.broadcast": size}[name]
    entries = [TangentTensor] if name.startswith("Tangent") else [ManifoldTensor]
    return _run(manifold, run, entries), inputs, {}


def _layer(name: str, manifold: Any) -> Any:
    from hypll import nn as hnn
    from torch import nn

    kind, keywords = LAYERS[name]
    cls = name.split(".")[0]
    if cls == "HLinear":
        return hnn.HLinear(DIM, HIDDEN, manifold=manifold, **keywords)
    if cls == "HConvolution2d":
        return hnn.HConvolution2d(DIM, HIDDEN, manifold=manifold, **keywords)
    if cls in ("HBatchNorm", "HBatchNorm2d"):
        return getattr(hnn, cls)(DIM, manifold=manifold, **keywords)
    if cls in ("HAvgPool2d", "HMaxPool2d"):
        return getattr(hnn, cls)(manifold=manifold, **keywords)
    if cls == "HReLU":
        return hnn.HReLU(manifold)
    if cls == "HEmbedding":
        return hnn.HEmbedding(10, DIM, manifold=manifold)
    if cls == "HFlatten":
        return hnn.HFlatten(**keywords)
    if cls == "TangentSequential":
        return hnn.TangentSequential(nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Dropout(0.1),
                                                   nn.Linear(HIDDEN, DIM)), manifold=manifold)
    target = {"ChangeManifold.to_euclidean": _euclid(), "ChangeManifold.from_euclidean": manifold,
              "ChangeManifold.curvature": _ball(value=0.5)}[name]
    return hnn.ChangeManifold(target)


def _layers(name: str) -> Built:
    import torch
    from hypll.tensors import ManifoldTensor

    kind, _ = LAYERS[name]
    manifold = _ball()
    layer = _layer(name, manifold)
    source = _euclid() if kind == "euclid" else manifold
    shape = {"vec": (BATCH, DIM), "euclid": (BATCH, DIM), "img": (BATCH, DIM, 6, 6)}

    if kind == "ids":
        return _run(layer, lambda owner, ids: owner(ids).tensor, [type(layer)]), (torch.tensor([[1, 4], [7, 0]]),), {}

    def forward(owner: Any, x: Any) -> Any:
        out = owner(_point(source, x, man_dim=1 if kind == "img" else -1))
        return out.tensor if isinstance(out, ManifoldTensor) else out

    return _run(layer, forward, [type(layer)]), (_randn(*shape[kind]),), {}


def _resets(name: str) -> Built:
    from hypll import nn as hnn

    manifold = _ball()
    if name == "Curvature.learnable":
        curvature = _ball(learnable=True).c
        return _run(curvature, lambda owner, x: owner() * x, [type(curvature)]), (_randn(BATCH, DIM),), {}
    layer = {"HLinear.reset_parameters": lambda: hnn.HLinear(HIDDEN, DIM, manifold=manifold),
             "HConvolution2d.reset_parameters": lambda: hnn.HConvolution2d(DIM, HIDDEN, 3, manifold=manifold),
             "HEmbedding.reset_parameters": lambda: hnn.HEmbedding(10, DIM, manifold=manifold)}[name]()

    def reset(owner: Any, x: Any) -> Any:
        """Re-initialise the weights (a user's restart), then read them."""
        owner.reset_parameters()
        weight = owner.weight if isinstance(owner, hnn.HEmbedding) else getattr(owner, "z", None)
        weight = owner.weights if weight is None else weight
        return weight.tensor.sum() * x

    return _run(layer, reset, [type(layer).reset_parameters]), (_randn(BATCH, DIM),), {}


def _net(kind: str) -> Any:
    """A small hyperbolic network taking plain tensors: the manifold is the first submodule."""
    from hypll import nn as hnn
    from torch import nn

    manifold = _ball(learnable=kind == "mlp.learn")

    class _Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.manifold = manifold
            if kind.startswith("mlp"):
                self.layers = nn.ModuleList([hnn.HLinear(DIM, HIDDEN, manifold=manifold), hnn.HReLU(manifold),
                                             hnn.HLinear(HIDDEN, CLASSES, manifold=manifold)])
            elif kind == "cnn":
                self.layers = nn.ModuleList([
                    hnn.HConvolution2d(3, HIDDEN, kernel_size=3, manifold=manifold, padding=1),
                    hnn.HBatchNorm2d(HIDDEN, manifold=manifold), hnn.HReLU(manifold),
                    hnn.HMaxPool2d(kernel_size=2, manifold=manifold),
                    hnn.HConvolution2d(HIDDEN, HIDDEN, kernel_size=3, manifold=manifold, padding=1),
                    hnn.HAvgPool2d(kernel_size=3, manifold=manifold, use_midpoint=True),
                    hnn.HFlatten(), hnn.HLinear(HIDDEN, CLASSES, manifold=manifold)])
            elif kind == "embedding":
                self.embedding = hnn.HEmbedding(10, DIM, manifold=manifold)
            elif kind == "tangent":
                self.layers = nn.ModuleList([
                    hnn.TangentSequential(nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU()), manifold=manifold),
                    hnn.HBatchNorm(HIDDEN, manifold=manifold, use_midpoint=True), hnn.HReLU(manifold),
                    hnn.TangentSequential(nn.Sequential(nn.Linear(HIDDEN, HIDDEN)), manifold=manifold),
                    hnn.HBatchNorm(HIDDEN, manifold=manifold), hnn.ChangeManifold(_euclid())])
                self.head = nn.Linear(HIDDEN, CLASSES)
            elif kind == "tangent.img":
                self.layers = nn.ModuleList([
                    hnn.TangentSequential(nn.Sequential(nn.Conv2d(3, HIDDEN, 3, padding=1)), manifold=manifold),
                    hnn.HBatchNorm2d(HIDDEN, manifold=manifold), hnn.HReLU(manifold),
                    hnn.HMaxPool2d(kernel_size=2, manifold=manifold),
                    hnn.HAvgPool2d(kernel_size=3, manifold=manifold), hnn.HFlatten()])
                self.head = nn.Linear(HIDDEN, CLASSES)
            else:
                self.body = hnn.HLinear(DIM, HIDDEN, manifold=manifold)
                self.z, self.r = manifold.construct_dl_parameters(HIDDEN, CLASSES)
                manifold.reset_parameters(self.z, self.r)

        def forward(self, x: Any) -> Any:
            if kind == "embedding":  # pairs of ids -> their hyperbolic distances
                pairs = self.embedding(x)
                return self.manifold.dist(pairs[:, 0], pairs[:, 1])
            h = _point(self.manifold, x, man_dim=1 if kind in ("cnn", "tangent.img") else -1)
            if kind == "hyperplane":
                h = self.body(h)
                return self.manifold.hyperplane_dists(h, self.z, self.r)
            for layer in self.layers:
                h = layer(h)
            if kind.startswith("tangent"):  # a Euclidean head on the tangent space at the origin (or R^n)
                return self.head(h.manifold.logmap(None, h).tensor)
            return self.manifold.logmap(None, h).tensor

    return _Net()


def _net_input(kind: str) -> Any:
    import torch

    if kind == "embedding":
        return torch.tensor([[1, 4], [7, 0], [2, 9]])
    return _randn(BATCH, 3, 6, 6) if kind in ("cnn", "tangent.img") else _randn(BATCH, DIM)


def _nets(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from hypll import optim

    kind, what, keywords = NETS[name]
    net = _net(kind)
    x = _net_input(kind)
    entries = sorted({type(m) for m in net.modules() if type(m).__module__.startswith("hypll.nn")}, key=str)
    if what == "forward":
        return _run(net, lambda owner, x_: owner(x_), entries or [type(net.manifold)]), (x,), {}
    cls = getattr(optim, what.split(".")[1])
    optimizer = cls(net.parameters(), **keywords)
    target = torch.tensor([0, 2, 1][: x.shape[0]])

    def train_step(owner: Any, x_: Any, y: Any) -> Any:
        """zero_grad, the loss (cross-entropy, or distances for the embedding), backward, step."""
        optimizer.zero_grad()
        with torch.enable_grad():
            out = owner(x_)
            loss = out.pow(2).mean() - out[0] if kind == "embedding" else F.cross_entropy(out, y)
            loss.backward()
        optimizer.step()
        return loss.detach()

    return _run(net, train_step, [cls.step, *entries]), (x, target), {}


def _steps(name: str) -> Built:
    import torch
    from hypll import optim

    from gt_calls import Method

    kind, optimizer_name, keywords = STEPS[name]
    net = _net(kind)
    cls = getattr(optim, optimizer_name)
    optimizer = cls(net.parameters(), **keywords)
    with torch.enable_grad():
        out = net(_net_input(kind))
        out.pow(2).sum().backward()
    return Method(optimizer, "step"), (), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in OPS:
        return _ops(name)
    if name in TENSORS:
        return _tensors(name)
    if name in LAYERS:
        return _layers(name)
    if name in RESETS:
        return _resets(name)
    if name in NETS:
        return _nets(name)
    return _steps(name)
