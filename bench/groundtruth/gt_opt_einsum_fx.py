"""Ground-truth bench, opt_einsum_fx: contraction-order optimisation of the einsums in a ``torch.fx`` graph.

opt-einsum-fx 0.1.4 (used by e3nn's code generation) rewrites ``torch.fx`` graphs: ``optimize_einsums_full(model,
example_inputs, contract_kwargs)`` symbolically traces a module or function (or takes a ``GraphModule`` or a
``Graph``), collects constant scalar factors through linear operations (``fuse_scalars``), fuses nested einsums
into one (``fuse_einsums``), propagates shapes with ``EfficientShapeProp`` (an ``fx.Interpreter`` that does not run
the einsums, computing their output shapes with ``einsum_shape``), replaces each einsum by the contraction path
``opt_einsum`` finds (``optimize_einsums``, through proxies), and moves the scalars onto the smallest intermediate;
``jitable`` rewrites ``tensordot`` and ``permute`` calls into their TorchScript signatures. The optimised
``GraphModule`` is what runs in the model. The tables cover, at small sizes:

- ``OPTIMIZED``: the optimised modules compiled as models (the way e3nn uses them): bilinear forms, matrix
  chains, an e3nn-style tensor product with a fixed coefficient tensor, attention, einsums with scalar factors
  and divisors, nested einsums to fuse, ``tensordot`` and ``torch.functional.einsum``, each through
  ``optimize_einsums_full`` (default ``optimal`` and the ``greedy`` path), then ``jitable``, from a ``Graph``,
  from an already traced ``GraphModule``, by the separate passes (``fuse_scalars``, ``fuse_einsums``,
  ``EfficientShapeProp`` and ``optimize_einsums``), and with parameters inside the traced module;
- ``RUNTIME``: the library called inside a forward: a module that optimises itself lazily on its first call for
  the shapes it sees, one that re-optimises on every call, ``EfficientShapeProp`` run as the executor of a graph,
  ``einsum_shape`` sizing an output buffer;
- ``TRAIN``: training steps (backward, an Adam step) through an optimised tensor-product layer with weights.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only. Nothing was left out: every exported function is driven.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, DIM, MUL = 3, 4, 2

FUNCS: tuple[str, ...] = ("bilinear", "chain", "tensor_product", "attention", "scalars", "nested", "tensordot",
                          "functional_einsum", "params")

# Optimised model name -> (function kind, how it is optimised).
OPTIMIZED: dict[str, tuple[str, str]] = {}
for _f in FUNCS:
    OPTIMIZED[f"full.{_f}"] = (_f, "full")
for _f in ("bilinear", "chain", "tensor_product", "scalars", "nested", "params"):
    OPTIMIZED[f"full.greedy.{_f}"] = (_f, "greedy")
for _f in ("tensor_product", "tensordot", "attention"):
    OPTIMIZED[f"jitable.{_f}"] = (_f, "jitable")
for _f in ("chain", "scalars"):
    OPTIMIZED[f"graph.{_f}"] = (_f, "graph")
for _f in ("tensor_product", "nested"):
    OPTIMIZED[f"graphmodule.{_f}"] = (_f, "graphmodule")
for _f in ("scalars", "nested", "tensor_product"):
    OPTIMIZED[f"passes.{_f}"] = (_f, "passes")
OPTIMIZED["fuse_only.nested"] = ("nested", "fuse_only")

RUNTIME: dict[str, str] = {
    "lazy.optimize_first_call": "lazy",
    "lazy.optimize_first_call.tensor_product": "lazy_tp",
    "optimize_every_call": "every",
    "EfficientShapeProp.executor": "shapeprop",
    "einsum_shape.buffer": "einsum_shape",
}

TRAIN: tuple[str, ...] = ("train.tensor_product", "train.bilinear")


def names() -> list[str]:
    return [*OPTIMIZED, *RUNTIME, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


def _function(kind: str) -> tuple[Any, tuple[Any, ...]]:
    """(module to trace, example inputs)."""
    import torch
    from torch import nn

    coeff = _randn(DIM, DIM, DIM, seed=7)

    class Bilinear(nn.Module):
        def forward(self, x, w, y):
            return torch.einsum("bi,ij,bj->b", x, w, y)

    class Chain(nn.Module):
        def forward(self, a, b, c):
            return torch.einsum("ij,jk,kl->il", a, b, c)

    class TensorProduct(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("coeff", coeff)

        def forward(self, x1, x2, w):
            return torch.einsum("zui,zvj,ijk,uvw->zwk", x1, x2, self.coeff, w)

    class Attention(nn.Module):
        def forward(self, q, k, v):
            sim = torch.einsum("bid,bjd->bij", q, k)
            return torch.einsum("bij,bjd->bid", sim.softmax(-1), v)

    class Scalars(nn.Module):
        def forward(self, x, w, y):
            out = 2.0 * torch.einsum("bi,ij->bj", x, w)
            out = torch.einsum("bj,bj->b", out / 3.0, 0.5 * y)
            return out * 4.0

    class Nested(nn.Module):
        def forward(self, a, b, c):
            ab = torch.einsum("zi,ij->zj", a, b)
            return torch.einsum("zj,jk->zk", ab, c)

    class Tensordot(nn.Module):
        def forward(self, a, b, c):
            t = torch.tensordot(a, b, dims=([1], [0]))
            return torch.einsum("zj,jk->zk", t, c).permute(1, 0)

    class FunctionalEinsum(nn.Module):
        def forward(self, a, b, c):
            return torch.functional.einsum("zi,ij,jk->zk", a, b, c)

    class Params(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1 = nn.Parameter(_randn(DIM, DIM, seed=8))
            self.w2 = nn.Parameter(_randn(DIM, DIM, seed=9))

        def forward(self, x, y, z):
            h = torch.einsum("zi,ij,jk->zk", x, self.w1, self.w2)
            return torch.einsum("zk,zk->z", h, y) + z.sum(-1)

    x = _randn(BATCH, DIM, seed=1)
    y = _randn(BATCH, DIM, seed=2)
    m = _randn(DIM, DIM, seed=3)
    if kind == "bilinear":
        return Bilinear(), (x, m, y)
    if kind == "chain":
        return Chain(), (m, _randn(DIM, DIM, seed=4), _randn(DIM, DIM, seed=5))
    if kind == "tensor_product":
        return TensorProduct(), (_randn(BATCH, MUL, DIM, seed=1), _randn(BATCH, MUL, DIM, seed=2),
                                 _randn(MUL, MUL, MUL, seed=3))
    if kind == "attention":
        return Attention(), (_randn(2, 5, DIM, seed=1), _randn(2, 5, DIM, seed=2), _randn(2, 5, DIM, seed=3))
    if kind == "scalars":
        return Scalars(), (x, m, y)
    if kind in ("nested", "tensordot", "functional_einsum"):
        cls = {"nested": Nested, "tensordot": Tensordot, "functional_einsum": FunctionalEinsum}[kind]
        return cls(), (x, m, _randn(DIM, DIM, seed=4))
    if kind == "params":
        return Params(), (x, y, _randn(BATCH, DIM, seed=5))
    raise KeyError(kind)


def _optimize(kind: str, how: str) -> tuple[Any, tuple[Any, ...]]:
    from opt_einsum_fx import (
        EfficientShapeProp,
        fuse_einsums,
        fuse_scalars,
        jitable,
        optimize_einsums,
        optimize_einsums_full,
    )
    from torch import fx

    mod, example = _function(kind)
    if how == "full":
        return optimize_einsums_full(mod, example), example
    if how == "greedy":
        return optimize_einsums_full(mod, example, contract_kwargs={"optimize": "greedy"}), example
    if how == "jitable":
        return jitable(optimize_einsums_full(mod, example)), example
    if how == "graph":
        graph = fx.symbolic_trace(mod).graph
        new_graph = optimize_einsums_full(graph, example)
        return fx.GraphModule(mod, new_graph), example
    if how == "graphmodule":
        return optimize_einsums_full(fx.symbolic_trace(mod), example), example
    if how == "passes":
        gm = fx.symbolic_trace(mod)
        gm.graph = fuse_einsums(fuse_scalars(gm.graph), in_place=True)
        gm.recompile()
        EfficientShapeProp(gm).run(*example)
        gm.graph = optimize_einsums(gm.graph)
        gm.recompile()
        return gm, example
    if how == "fuse_only":
        gm = fx.symbolic_trace(mod)
        gm.graph = fuse_einsums(gm.graph)
        gm.recompile()
        return gm, example
    raise KeyError(how)


def _optimized(name: str) -> Built:
    from torch import nn

    kind, how = OPTIMIZED[name]
    gm, example = _optimize(kind, how)

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gm = gm

        def forward(self, *args: Any) -> Any:
            return self.gm(*args)

    return Model(), example, {}


def _runtime(name: str) -> Built:
    import torch
    from torch import nn

    kind = RUNTIME[name]
    inner, example = _function("tensor_product" if kind == "lazy_tp" else "chain")

    class Lazy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = inner
            self.optimized = None

        def forward(self, *args: Any) -> Any:
            from opt_einsum_fx import optimize_einsums_full

            if self.optimized is None:
                self.optimized = optimize_einsums_full(self.inner, args)
            return self.optimized(*args)

    class Every(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *args: Any) -> Any:
            from opt_einsum_fx import optimize_einsums_full

            return optimize_einsums_full(self.inner, args)(*args)

    class ShapePropExec(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            from torch import fx

            self.gm = fx.symbolic_trace(inner)

        def forward(self, *args: Any) -> Any:
            from opt_einsum_fx import EfficientShapeProp

            return EfficientShapeProp(self.gm).run(*args).sum()

    class ShapeBuffer(nn.Module):
        def forward(self, a: Any, b: Any, c: Any) -> Any:
            from opt_einsum_fx._efficient_shape_prop import einsum_shape

            out = torch.zeros(einsum_shape("ij,jk,kl->il", a.shape, b.shape, c.shape))
            return out + torch.einsum("ij,jk,kl->il", a, b, c)

    cls = {"lazy": Lazy, "lazy_tp": Lazy, "every": Every, "shapeprop": ShapePropExec,
           "einsum_shape": ShapeBuffer}[kind]
    return cls(), example, {}


def _train(name: str) -> Built:
    import torch
    from opt_einsum_fx import optimize_einsums_full
    from torch import nn

    kind = name.split(".", 1)[1]
    mod, example = _function(kind)
    # The weight operand becomes a parameter of the wrapper; the optimised graph takes it as an input.
    gm = optimize_einsums_full(mod, example)
    weight_index = 2 if kind == "tensor_product" else 1

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gm = gm
            self.weight = nn.Parameter(example[weight_index].clone())

        def forward(self, *args: Any) -> Any:
            args = list(args)
            args.insert(weight_index, self.weight)
            return self.gm(*args)

    class TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = Layer()
            self.opt = torch.optim.Adam(self.layer.parameters(), lr=1e-3)

        def forward(self, *args: Any) -> Any:
            with torch.enable_grad():
                self.opt.zero_grad()
                loss = self.layer(*args).pow(2).mean()
                loss.backward()
                self.opt.step()
            return loss.detach()

    inputs = tuple(a for i, a in enumerate(example) if i != weight_index)
    return TrainStep(), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in OPTIMIZED:
        return _optimized(name)
    if name in RUNTIME:
        return _runtime(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
