"""Ground-truth bench, einconv: convolutions and their relatives written as one einsum over index patterns.

einconv 0.1.0 expresses an N-dimensional convolution as a tensor contraction: for every spatial axis it builds a
boolean "index pattern" (``index_pattern``: a one-dimensional convolution of input positions, scattered into a
``[kernel, output, input]`` tensor carrying its hyper-parameters as a tensor attribute), writes an einsum equation in
einops notation, translates it to torch letters and, unless ``simplify=False``, rewrites the tensor network
(``TensorNetwork``: down-sampling and dense patterns replaced by narrowed patterns and Kronecker deltas, parallel
indices merged, size-one indices squeezed). The public surface is ``ConvNd`` (a drop-in ``nn.Conv{1,2,3}d`` that
works for any N, also built from an ``nn.Conv`` by ``ConvNd.from_nn_Conv``), ``UnfoldNd`` (im2col), the
functionals ``convNd`` and ``unfoldNd``, and the ``einconv.expressions`` generators (forward, unfold, input and
weight VJPs, the KFC and KFAC-reduce Kronecker factors) that return an equation, operands and output shape which
callers contract with ``torch.einsum`` (as curvature libraries do). The tables cover, with 2 to 4 channels and
spatial sizes of 4 to 8, a batch of 2:

- ``CONV``: ``ConvNd`` in 1 to 5 dimensions with stride, integer, tuple, ``'same'`` and ``'valid'`` padding,
  dilation, groups (depthwise too), no bias, float64, patchifying (kernel equal to stride) and 1 x 1 kernels (the
  simplifier's dense and down-sampling rewrites), and ``simplify=False``;
- ``FROM_NN``: ``ConvNd.from_nn_Conv`` from ``nn.Conv1d/2d/3d`` (strided, padded, grouped);
- ``UNFOLD``: ``UnfoldNd`` modules in 1 to 4 dimensions with their options;
- ``FUNCTIONS``: ``convNd`` and ``unfoldNd`` called functionally, ``index_pattern`` and ``index_pattern_logical``
  applied to an input, ``simplify`` on a hand-built expression, and each ``einconv.expressions`` generator
  contracted by ``torch.einsum`` (forward, unfold, input VJP, weight VJP, KFC, KFAC-reduce, with and without
  simplification);
- ``NETS`` and ``TRAIN``: small networks of ``ConvNd`` layers (2-d and 3-d CNNs, a 4-d convolution, a patch
  embedding from ``UnfoldNd``) in a forward pass and in training steps with a loss backward and an optimizer step.

The two KFAC-reduce models run eagerly but stop under Dynamo with an error (a legacy ``torch.Tensor([...])``
constructor over a traced value); they are kept as what compiling that code does. Left out: ``padding_mode`` other
than ``'zeros'`` (the library raises), devices other than the CPU. Random weights
and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker
only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
# name -> (N, in channels, out channels, kernel, keywords, spatial input size)
CONV: dict[str, tuple[int, int, int, Any, dict[str, Any], tuple[int, ...]]] = {
    "ConvNd.1d": (1, 3, 4, 3, {}, (8,)),
    "ConvNd.2d": (2, 3, 4, 3, {}, (6, 6)),
    "ConvNd.3d": (3, 2, 3, 2, {}, (4, 4, 4)),
    "ConvNd.4d": (4, 2, 2, 2, {}, (3, 3, 3, 3)),
    "ConvNd.5d.no_bias": (5, 1, 2, 2, {"bias": False}, (3, 3, 3, 3, 3)),
    "ConvNd.1d.stride2.dilation2": (1, 2, 4, 3, {"stride": 2, "dilation": 2}, (10,)),
    "ConvNd.2d.stride2": (2, 3, 4, 3, {"stride": 2}, (7, 7)),
    "ConvNd.2d.padding_same": (2, 3, 4, 3, {"padding": "same"}, (6, 6)),
    "ConvNd.2d.padding_same.even_kernel.dilation2": (2, 2, 4, 2, {"padding": "same", "dilation": 2}, (6, 6)),
    "ConvNd.2d.padding_valid": (2, 3, 4, 3, {"padding": "valid"}, (6, 6)),
    "ConvNd.2d.groups2": (2, 4, 6, 3, {"groups": 2}, (6, 6)),
    "ConvNd.2d.depthwise": (2, 4, 4, 3, {"groups": 4, "padding": 1}, (6, 6)),
    "ConvNd.2d.no_simplify": (2, 3, 4, 3, {"simplify": False}, (6, 6)),
    "ConvNd.2d.no_simplify.stride2.padding1": (2, 3, 4, 3, {"simplify": False, "stride": 2, "padding": 1}, (6, 6)),
    "ConvNd.2d.kernel1": (2, 3, 5, 1, {}, (6, 6)),
    "ConvNd.2d.patchify": (2, 3, 8, 2, {"stride": 2}, (8, 8)),
    "ConvNd.2d.downsample": (2, 3, 4, 1, {"stride": 2}, (8, 8)),
    "ConvNd.2d.kernel_is_input": (2, 3, 4, 4, {}, (4, 4)),
    "ConvNd.2d.float64": (2, 3, 4, 3, {"dtype": "float64"}, (6, 6)),
    "ConvNd.3d.tuple_hyperparameters": (3, 2, 4, (1, 2, 3), {"stride": (1, 2, 1), "padding": (0, 1, 1)},
                                        (3, 6, 5)),
    "ConvNd.4d.stride2.padding1.groups2": (4, 2, 4, 2, {"stride": 2, "padding": 1, "groups": 2}, (3, 3, 3, 3)),
}
# name -> (torch class name, in channels, out channels, kernel, keywords, spatial input size)
FROM_NN: dict[str, tuple[str, int, int, int, dict[str, Any], tuple[int, ...]]] = {
    "from_nn_Conv.Conv1d": ("Conv1d", 3, 4, 3, {}, (8,)),
    "from_nn_Conv.Conv2d.stride2.padding1": ("Conv2d", 3, 4, 3, {"stride": 2, "padding": 1}, (6, 6)),
    "from_nn_Conv.Conv2d.groups.no_bias": ("Conv2d", 4, 4, 3, {"groups": 2, "bias": False}, (6, 6)),
    "from_nn_Conv.Conv2d.padding_same.no_simplify": ("Conv2d", 3, 4, 3, {"padding": "same", "simplify": False},
                                                     (5, 5)),
    "from_nn_Conv.Conv3d.dilation": ("Conv3d", 2, 3, 2, {"dilation": 2}, (5, 5, 5)),
}
# name -> (kernel, keywords, channels, spatial input size)
UNFOLD: dict[str, tuple[Any, dict[str, Any], int, tuple[int, ...]]] = {
    "UnfoldNd.1d": (3, {}, 3, (8,)),
    "UnfoldNd.2d": (2, {}, 3, (5, 5)),
    "UnfoldNd.2d.stride2.padding1": (3, {"stride": 2, "padding": 1}, 2, (6, 6)),
    "UnfoldNd.2d.patchify": (2, {"stride": 2}, 3, (6, 6)),
    "UnfoldNd.2d.padding_same": (3, {"padding": "same"}, 2, (5, 5)),
    "UnfoldNd.2d.no_simplify": (3, {"simplify": False}, 2, (5, 5)),
    "UnfoldNd.3d.tuple_kernel": ((1, 2, 2), {"stride": (1, 2, 2)}, 2, (3, 4, 4)),
    "UnfoldNd.4d": (2, {}, 1, (3, 3, 3, 3)),
}
FUNCTIONS = ("convNd", "convNd.stride2.groups2", "convNd.padding_same.no_simplify", "unfoldNd", "unfoldNd.3d.padding1", "index_pattern", "index_pattern.dilation2.stride2", "index_pattern_logical", "index_pattern_logical.padding1.stride2",
             "simplify", "simplify.patterns",
             "expressions.forward", "expressions.unfold", "expressions.input_vjp", "expressions.input_vjp.stride2.groups2",
             "expressions.weight_vjp", "expressions.weight_vjp.padding1.no_simplify",
             "expressions.kfc", "expressions.kfc.groups2.no_simplify",
             "expressions.kfac_reduce", "expressions.kfac_reduce.padding1.groups2")
NETS = ("CNN2d", "CNN3d", "CNN4d", "UnfoldPatchEmbed")
TRAIN = ("train.ConvNd.2d.sgd", "train.CNN2d.adam", "train.UnfoldPatchEmbed.adam", "train.ConvNd.2d.no_simplify.adam")


def names() -> list[str]:
    return [*CONV, *FROM_NN, *UNFOLD, *FUNCTIONS, *NETS, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: Any = None) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _conv(name: str) -> Built:
    import torch

    from einconv.modules import ConvNd

    n, cin, cout, kernel, keywords, size = CONV[name]
    keywords = dict(keywords)
    dtype = getattr(torch, keywords.pop("dtype")) if "dtype" in keywords else None
    if dtype is not None:
        keywords["dtype"] = dtype
    model = ConvNd(n, cin, cout, kernel, **keywords)
    return model, (_randn(BATCH, cin, *size, dtype=dtype),), {}


def _from_nn(name: str) -> Built:
    from torch import nn

    from einconv.modules import ConvNd

    klass, cin, cout, kernel, keywords, size = FROM_NN[name]
    keywords = dict(keywords)
    simplify = keywords.pop("simplify", True)
    conv = getattr(nn, klass)(cin, cout, kernel, **keywords)
    return ConvNd.from_nn_Conv(conv, simplify=simplify), (_randn(BATCH, cin, *size),), {}


def _unfold(name: str) -> Built:
    from einconv.modules import UnfoldNd

    kernel, keywords, channels, size = UNFOLD[name]
    return UnfoldNd(kernel, **keywords), (_randn(BATCH, channels, *size),), {}


def _contract(generator: Any, call: Any) -> Any:
    """A bench module that asks ``generator`` for an einsum expression and contracts it, as callers do."""
    import torch

    from gt_calls import Run

    def run(owner: Any, *tensors: Any) -> Any:
        equation, operands, shape = call(*tensors)
        return torch.einsum(equation, *operands).reshape(shape)

    return Run(torch.nn.Identity(), run, [generator])


def _function(name: str) -> Built:
    import torch

    import einconv
    from einconv.conv_index_pattern import index_pattern, index_pattern_logical
    from einconv.expressions import (convNd_forward, convNd_input_vjp, convNd_kfac_reduce, convNd_kfc,
                                     convNd_unfold, convNd_weight_vjp)
    from einconv.functionals import convNd, unfoldNd
    from gt_calls import Call, Run

    x2 = _randn(BATCH, 4, 6, 6)
    if name.startswith("convNd"):
        if name == "convNd":
            return Call(convNd), (x2, _randn(3, 4, 3, 3, seed=2), _randn(3, seed=3)), {}
        if name == "convNd.stride2.groups2":
            return Call(convNd, stride=2, groups=2), (x2, _randn(4, 2, 3, 3, seed=2), _randn(4, seed=3)), {}
        if name == "convNd.padding_same.no_simplify":
            return Call(convNd, padding="same", simplify=False), (x2, _randn(2, 4, 3, 3, seed=2)), {}
        return Call(convNd, padding=1), (_randn(1, 2, 3, 3, 3, 3), _randn(2, 2, 2, 2, 2, 2, seed=2)), {}
    if name == "unfoldNd":
        return Call(unfoldNd, kernel_size=3), (x2,), {}
    if name == "unfoldNd.3d.padding1":
        return Call(unfoldNd, kernel_size=2, padding=1), (_randn(BATCH, 2, 3, 3, 3),), {}
    if name == "unfoldNd.1d.stride3.no_simplify":
        return Call(unfoldNd, kernel_size=3, stride=3, simplify=False), (_randn(BATCH, 3, 9),), {}
    if name.startswith("index_pattern"):
        function = index_pattern_logical if name.startswith("index_pattern_logical") else index_pattern
        keywords: dict[str, Any] = {}
        if name.endswith("dilation2.stride2"):
            keywords = {"dilation": 2, "stride": 2}
        elif name.endswith("padding_same"):
            keywords = {"padding": "same"}
        elif name.endswith("padding1.stride2"):
            keywords = {"padding": 1, "stride": 2}

        def patterned(owner: Any, x: torch.Tensor) -> torch.Tensor:
            """A 1-d convolution by hand: the pattern of the input's length, contracted with input and kernel."""
            pattern = function(x.shape[-1], 3, dtype=x.dtype, **keywords)
            return torch.einsum("nci,koi,dck->ndo", x, pattern, owner.weight)

        return Run(torch.nn.Conv1d(3, 4, 3), patterned, [function]), (_randn(BATCH, 3, 9),), {}
    if name.startswith("simplify"):
        def simplified(owner: Any, x: torch.Tensor) -> torch.Tensor:
            if name == "simplify":
                equation, operands = einconv.simplify("ab,bc,cd->ad", [x[0, 0], owner.weight[0, 0], x[1, 0]])
            else:
                patterns = [index_pattern(6, 2, stride=2, dtype=x.dtype), index_pattern(6, 1, stride=2, dtype=x.dtype)]
                equation, operands = einconv.simplify("ncij,kxi,lyj,dckl->ndxy",
                                                      [x, *patterns, owner.weight[:, :, :2, :1]])
            return torch.einsum(equation, *operands)

        return Run(torch.nn.Conv2d(4, 4, 6), simplified, [einconv.simplify]), (x2,), {}
    simplify = not name.endswith("no_simplify")
    if name == "expressions.forward":
        weight = _randn(3, 4, 3, 3, seed=2)
        return _contract(convNd_forward.einsum_expression,
                         lambda x: convNd_forward.einsum_expression(x, weight, padding=1)), (x2,), {}
    if name.startswith("expressions.unfold"):
        return _contract(convNd_unfold.einsum_expression,
                         lambda x: convNd_unfold.einsum_expression(x, 3, stride=1, simplify=simplify)), (x2,), {}
    if name.startswith("expressions.input_vjp"):
        groups, stride = (2, 2) if "groups2" in name else (1, 1)
        weight = _randn(4, 4 // groups, 3, 3, seed=2)
        out = 2 if stride == 2 else 4
        return _contract(convNd_input_vjp.einsum_expression,
                         lambda v: convNd_input_vjp.einsum_expression(weight, v, (6, 6), stride=stride,
                                                                      groups=groups)), \
            (_randn(BATCH, 4, out, out, seed=3),), {}
    if name.startswith("expressions.weight_vjp"):
        padding = 1 if "padding1" in name else 0
        out = 6 if padding else 4
        return _contract(convNd_weight_vjp.einsum_expression,
                         lambda x, v: convNd_weight_vjp.einsum_expression(x, v, 3, padding=padding,
                                                                          simplify=simplify)), \
            (x2, _randn(BATCH, 3, out, out, seed=3)), {}
    if name.startswith("expressions.kfc"):
        stride = 2 if "stride2" in name else 1
        groups = 2 if "groups2" in name else 1
        return _contract(convNd_kfc.einsum_expression,
                         lambda x: convNd_kfc.einsum_expression(x, 2, stride=stride, groups=groups,
                                                                simplify=simplify)), (x2,), {}
    padding = 1 if "padding1" in name else 0
    groups = 2 if "groups2" in name else 1
    return _contract(convNd_kfac_reduce.einsum_expression,
                     lambda x: convNd_kfac_reduce.einsum_expression(x, 3, padding=padding, groups=groups)), (x2,), {}


def _net(kind: str) -> Any:
    import torch
    from torch import nn

    from einconv.modules import ConvNd, UnfoldNd

    if kind == "CNN2d":
        return nn.Sequential(ConvNd(2, 3, 8, 3, padding=1), nn.ReLU(), ConvNd(2, 8, 8, 2, stride=2), nn.ReLU(),
                             ConvNd(2, 8, 4, 3, padding="same", groups=4), nn.Flatten(), nn.Linear(4 * 3 * 3, 5))
    if kind == "CNN3d":
        return nn.Sequential(ConvNd(3, 2, 4, 3, padding=1), nn.ReLU(), ConvNd(3, 4, 4, 2, stride=2), nn.Flatten(),
                             nn.Linear(4 * 2 * 2 * 2, 5))
    if kind == "CNN4d":
        return nn.Sequential(ConvNd(4, 2, 3, 2), nn.Tanh(), ConvNd(4, 3, 2, 2), nn.Flatten(), nn.Linear(2, 5))

    class PatchEmbed(nn.Module):
        """Patches by im2col, then a linear projection of each (a ViT stem)."""

        def __init__(self) -> None:
            super().__init__()
            self.unfold = UnfoldNd(2, stride=2)
            self.proj = nn.Linear(3 * 4, 8)
            self.head = nn.Linear(8, 5)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            patches = self.unfold(x).transpose(1, 2)
            return self.head(self.proj(patches).mean(dim=1))

    return PatchEmbed()


def _net_input(kind: str) -> Any:
    if kind == "CNN3d":
        return _randn(BATCH, 2, 4, 4, 4)
    if kind == "CNN4d":
        return _randn(BATCH, 2, 3, 3, 3, 3)
    return _randn(BATCH, 3, 6, 6)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from einconv.modules import ConvNd
    from gt_calls import Run

    kind = name.split(".")[1]
    if kind == "ConvNd":
        if name.startswith("train.ConvNd.4d"):
            model: Any = torch.nn.Sequential(ConvNd(4, 2, 2, 2), torch.nn.Flatten(), torch.nn.Linear(2 * 16, 5))
            x = _randn(BATCH, 2, 3, 3, 3, 3)
        else:
            conv = ConvNd(2, 3, 4, 3, stride=2, simplify=not name.endswith("no_simplify.adam"))
            model = torch.nn.Sequential(conv, torch.nn.Flatten(), torch.nn.Linear(4 * 2 * 2, 5))
            x = _randn(BATCH, 3, 5, 5)
    else:
        model, x = _net(kind), _net_input(kind)
    target = _randn(BATCH, 5, seed=7)
    params = list(model.parameters())
    optimizer: Any = torch.optim.SGD(params, lr=0.1) if name.endswith("sgd") else torch.optim.Adam(params, lr=1e-3)
    entries = sorted({type(m) for m in model.modules() if type(m).__module__.startswith("einconv")}, key=str)

    def step(owner: Any, t: torch.Tensor) -> torch.Tensor:
        """The regression loss, its gradients and an optimizer step."""
        loss = F.mse_loss(owner(t), target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, list(entries)), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in CONV:
        return _conv(name)
    if name in FROM_NN:
        return _from_nn(name)
    if name in UNFOLD:
        return _unfold(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in NETS:
        return _net(name), (_net_input(name),), {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
