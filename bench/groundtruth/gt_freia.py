"""Ground-truth bench, FrEIA: invertible neural networks assembled from FrEIA 0.2's blocks, run both ways.

FrEIA (Framework for Easily Invertible Architectures) builds invertible networks from
``FrEIA.modules`` blocks (``InvertibleModule``s, whose forward takes a list of tensors, optional
conditions ``c``, ``rev`` and ``jac`` and returns the outputs with the log-determinant of their
Jacobian) put in sequence (``FrEIA.framework.SequenceINN``, its ``append`` as in FrEIA's README) or in a
graph of ``InputNode``, ``Node``, ``ConditionNode`` and ``OutputNode`` (``GraphINN``). Users compile
the network's forward: ``z, log_jac_det = inn(x)`` to train by maximum likelihood, ``x, _ = inn(z,
rev=True)`` to sample. So each model of the tables is one of:

- ``SEQUENCE``: a ``SequenceINN`` of one or a few blocks (their options after the block's name in the
  model's name) run forward (``fwd``), in reverse (``rev``, the inverse, from latent codes) or without
  the Jacobian (``nojac``): ``AllInOneBlock`` (hard and soft permutations, the GIN option, learned
  Householder permutations, the reversed pre-permutation, the sigmoid global affine activation,
  conditioned, on vectors and images), the coupling blocks (``GLOWCouplingBlock``,
  ``RNVPCouplingBlock``, ``NICECouplingBlock``, ``GINCouplingBlock``, ``AffineCouplingOneSided``,
  ``ConditionalAffineTransform``, with the sigmoid clamp, an integer ``split_len`` and conditions),
  ``PermuteRandom``, ``ActNorm`` (initialised from the first batch it sees), the fixed transforms
  (``FixedLinearTransform``, ``Fixed1x1Conv``, ``InvertibleSigmoid``), ``OrthogonalTransform`` and
  ``HouseholderPerm``, the invertible activations and autoencoder layers (``InvAutoAct``,
  ``InvAutoActTwoSided``, ``LearnedElementwiseScaling``, ``InvAutoFC``, ``InvAutoConv2D``), the reshapes
  (``IRevNetDownsampling`` in both backends, ``IRevNetUpsampling``, ``HaarDownsampling`` with
  ``order_by_wavelet`` and ``rebalance``, ``Flatten``, ``Reshape``), and a Glow-like multi-scale image
  network (``ActNorm``, Haar downsampling, a convolutional coupling, i-RevNet downsampling, a dense
  coupling); plus the deprecated ``ReversibleSequential``;
- ``GRAPH``: ``GraphINN`` networks: a multi-scale network that splits off half its channels
  (``Split``, ``Concat``), also conditioned through a ``ConditionNode``, and with
  ``intermediate_outputs``; two inputs and two outputs (``force_tuple_output``); and the deprecated
  ``ReversibleGraphNet``;
- ``OTHER``: ``IResNetLayer`` called alone (``jac=False``, forward and its fixed-point inverse, dense and
  convolutional: ``SequenceINN`` cannot add up the ``None`` log-determinant it then returns), its
  log-determinant (a power series of vector-Jacobian products, run under ``torch.enable_grad`` as a
  training step would) and its ``lipschitz_correction``; ``GraphINN.log_jacobian_numerical``, the
  finite-difference check of the log-determinant, on a network of two 2-dimensional inputs (a 4 x 4
  Jacobian); ``GaussianMixtureModel`` both ways (all components at once, or the components given as
  indices) and forward with the components drawn from a seed, and two of its static helpers
  (``nll_loss``, ``pick_mixture_component``) through ``gt_calls.Call``; and bench training steps, the
  maximum-likelihood loss of a conditional RealNVP (couplings and permutations) and of the multi-scale
  image network.

Left out: ``HouseholderPerm`` conditioned on its reflections (in 0.2 its batched matrices meet
``Tensor.mm``, which fails whatever the sizes) and ``InvertibleSigmoid`` with ``jac=False`` (it returns
one value, where both frameworks unpack two). FrEIA 0.2 has no spline couplings.

Vectors are a batch of 4 of dimension 4 (5 where a block splits unevenly), images 4 x 4 x 8 x 8
(channels, height, width), conditions of dimension 2 (2 x 8 x 8 beside images). Subnetworks are small
MLPs (``Linear``, ``ReLU``, ``Linear``, 8 hidden units) or convolutions (3 x 3, 8 channels), built by
the ``subnet_constructor`` that FrEIA asks for. Random weights, nothing downloaded. ``names()`` needs no
torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, DIM, COND, HIDDEN = 4, 4, 2, 8
IMAGE = (4, 8, 8)

# A block of a ``SequenceINN``: (class of ``FrEIA.modules``, keywords, condition index or None). The keyword
# "subnet_constructor" names the subnetwork ("fc", "conv", "conv1d"); "M" and "b" stand for a fixed invertible
# matrix and offset ("matrix", "offset"), built in the worker.
Block = tuple[str, dict[str, Any], Any]
FC: dict[str, Any] = {"subnet_constructor": "fc"}
CONV: dict[str, Any] = {"subnet_constructor": "conv"}

# ``SequenceINN`` structure -> (input dims, condition shape or None, blocks, directions compiled).
SEQUENCE: dict[str, tuple[tuple[int, ...], Any, list[Block], tuple[str, ...]]] = {
    "AllInOneBlock": ((DIM,), None, [("AllInOneBlock", FC, None)], ("fwd", "rev", "fwd.nojac")),
    "AllInOneBlock.permute_soft": ((DIM,), None, [("AllInOneBlock", {**FC, "permute_soft": True}, None)], ("fwd",)),
    "AllInOneBlock.gin": ((DIM,), None, [("AllInOneBlock", {**FC, "gin_block": True}, None)], ("fwd",)),
    "AllInOneBlock.householder": ((DIM,), None, [("AllInOneBlock", {**FC, "learned_householder_permutation": 2},
                                                  None)], ("fwd", "rev")),
    "AllInOneBlock.reverse_permutation": ((DIM,), None, [("AllInOneBlock", {**FC, "reverse_permutation": True},
                                                          None)], ("rev",)),
    "AllInOneBlock.sigmoid": ((DIM,), None, [("AllInOneBlock", {**FC, "global_affine_type": "SIGMOID",
                                                                "affine_clamping": 1.0}, None)], ("fwd",)),
    "AllInOneBlock.cond": ((DIM,), (COND,), [("AllInOneBlock", FC, 0), ("AllInOneBlock", FC, 0)], ("fwd", "rev")),
    "AllInOneBlock.conv": (IMAGE, None, [("AllInOneBlock", {**CONV, "permute_soft": True}, None)], ("rev",)),
    "GLOWCouplingBlock": ((DIM,), None, [("GLOWCouplingBlock", FC, None)], ("fwd", "rev")),
    "GLOWCouplingBlock.cond": ((DIM,), (COND,), [("GLOWCouplingBlock", FC, 0)], ("fwd",)),
    "GLOWCouplingBlock.sigmoid.split_len": ((5,), None, [("GLOWCouplingBlock", {**FC, "clamp_activation": "SIGMOID",
                                                                                "split_len": 2}, None)], ("fwd",)),
    "RNVPCouplingBlock": ((DIM,), None, [("RNVPCouplingBlock", FC, None)], ("fwd", "rev")),
    "NICECouplingBlock": ((DIM,), None, [("NICECouplingBlock", FC, None)], ("fwd",)),
    "NICECouplingBlock.cond": ((DIM,), (COND,), [("NICECouplingBlock", FC, 0)], ("rev",)),
    "GINCouplingBlock": ((DIM,), None, [("GINCouplingBlock", FC, None)], ("fwd", "rev")),
    "AffineCouplingOneSided": ((DIM,), None, [("AffineCouplingOneSided", FC, None)], ("rev",)),
    "AffineCouplingOneSided.cond": ((DIM,), (COND,), [("AffineCouplingOneSided", FC, 0)], ("fwd",)),
    "ConditionalAffineTransform": ((DIM,), (COND,), [("ConditionalAffineTransform", FC, 0)], ("fwd", "rev")),
    "RealNVP.PermuteRandom": ((DIM,), None, [("GLOWCouplingBlock", FC, None), ("PermuteRandom", {"seed": 1}, None),
                                             ("GLOWCouplingBlock", FC, None), ("PermuteRandom", {"seed": 2}, None)],
                              ("fwd", "rev")),
    "ActNorm": ((DIM,), None, [("ActNorm", {}, None), ("AllInOneBlock", FC, None)], ("fwd",)),
    "FixedLinearTransform": ((DIM,), None, [("FixedLinearTransform", {"M": "matrix", "b": "offset"}, None)],
                             ("fwd",)),
    "Fixed1x1Conv": (IMAGE, None, [("Fixed1x1Conv", {"M": "matrix"}, None)], ("rev",)),
    "InvertibleSigmoid": ((DIM,), None, [("InvertibleSigmoid", {}, None)], ("fwd", "rev")),
    "OrthogonalTransform": ((DIM,), None, [("OrthogonalTransform", {}, None)], ("fwd",)),
    "HouseholderPerm": ((DIM,), None, [("HouseholderPerm", {"n_reflections": 3}, None)], ("fwd", "rev")),
    "InvAutoAct": ((DIM,), None, [("InvAutoAct", {}, None), ("GLOWCouplingBlock", FC, None)], ("fwd",)),
    "InvAutoActTwoSided": (IMAGE, None, [("InvAutoActTwoSided", {"learnable": False}, None)], ("rev",)),
    "LearnedElementwiseScaling": ((DIM,), None, [("LearnedElementwiseScaling", {"init_scale": 2.0}, None)],
                                  ("fwd",)),
    "InvAutoFC": ((DIM,), None, [("InvAutoFC", {}, None)], ("fwd",)),
    "InvAutoConv2D": (IMAGE, None, [("InvAutoConv2D", {}, None)], ("fwd",)),
    "IRevNetDownsampling": (IMAGE, None, [("IRevNetDownsampling", {}, None)], ("fwd",)),
    "IRevNetDownsampling.legacy": (IMAGE, None, [("IRevNetDownsampling", {"legacy_backend": True}, None)],
                                   ("fwd", "rev")),
    "IRevNetUpsampling": ((16, 4, 4), None, [("IRevNetUpsampling", {}, None)], ("fwd",)),
    "HaarDownsampling": (IMAGE, None, [("HaarDownsampling", {}, None)], ("fwd",)),
    "HaarDownsampling.order_by_wavelet": (IMAGE, None, [("HaarDownsampling", {"order_by_wavelet": True,
                                                                              "rebalance": 0.5}, None)],
                                          ("fwd", "rev")),
    "Flatten.Reshape": (IMAGE, None, [("Flatten", {}, None), ("Reshape", {"output_dims": (16, 4, 4)}, None)],
                        ("rev",)),
    "multiscale": (IMAGE, None, [("ActNorm", {}, None), ("HaarDownsampling", {"rebalance": 0.5}, None),
                                 ("AllInOneBlock", {**CONV, "permute_soft": True}, None),
                                 ("IRevNetDownsampling", {}, None), ("Flatten", {}, None),
                                 ("AllInOneBlock", FC, None)], ("fwd", "rev")),
    "ReversibleSequential": ((DIM,), None, [("RNVPCouplingBlock", FC, None), ("PermuteRandom", {"seed": 3}, None)],
                             ("fwd",)),
}
# ``GraphINN`` structure -> directions compiled ("intermediate" asks for ``intermediate_outputs``).
GRAPH: dict[str, tuple[str, ...]] = {
    "GraphINN.multiscale": ("fwd", "rev", "fwd.intermediate"),
    "GraphINN.multiscale.cond": ("rev",),
    "GraphINN.two_inputs": ("fwd",),
    "ReversibleGraphNet": ("fwd",),
}
OTHER = ("GraphINN.log_jacobian_numerical", "IResNetLayer.fwd.nojac", "IResNetLayer.rev.nojac",
         "IResNetLayer.conv.rev.nojac", "IResNetLayer.jac", "IResNetLayer.lipschitz_correction",
         "GaussianMixtureModel.all.fwd", "GaussianMixtureModel.all.rev", "GaussianMixtureModel.indices.fwd",
         "GaussianMixtureModel.indices.rev", "GaussianMixtureModel.seed.fwd", "GaussianMixtureModel.nll_loss",
         "GaussianMixtureModel.pick_mixture_component", "train.RealNVP.cond.nll", "train.multiscale.nll")


def names() -> list[str]:
    return ([f"SequenceINN.{key}.{direction}" for key, (_, _, _, directions) in SEQUENCE.items()
             for direction in directions]
            + [f"{key}.{direction}" for key, directions in GRAPH.items() for direction in directions] + list(OTHER))


def _subnet(kind: str) -> Any:
    """FrEIA's ``subnet_constructor``: ``f(channels_in, channels_out)`` returning the coupling's network."""
    from torch import nn

    def fc(c_in: int, c_out: int) -> Any:
        return nn.Sequential(nn.Linear(c_in, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, c_out))

    def conv(c_in: int, c_out: int) -> Any:
        return nn.Sequential(nn.Conv2d(c_in, HIDDEN, 3, padding=1), nn.ReLU(), nn.Conv2d(HIDDEN, c_out, 3, padding=1))

    def conv1d(c_in: int, c_out: int) -> Any:
        return nn.Sequential(nn.Conv1d(c_in, HIDDEN, 3, padding=1), nn.ReLU(), nn.Conv1d(HIDDEN, c_out, 3, padding=1))

    return {"fc": fc, "conv": conv, "conv1d": conv1d}[kind]


def _keywords(keywords: dict[str, Any], dims: tuple[int, ...]) -> dict[str, Any]:
    import torch

    out = dict(keywords)
    gen = torch.Generator().manual_seed(5)
    if "subnet_constructor" in out:
        out["subnet_constructor"] = _subnet(out["subnet_constructor"])
    if out.get("M") == "matrix":  # well conditioned: the identity plus a small random matrix
        out["M"] = torch.eye(dims[0]) + 0.3 * torch.randn(dims[0], dims[0], generator=gen)
    if out.get("b") == "offset":
        out["b"] = torch.randn(dims[0], generator=gen)
    return out


def _sequence(key: str) -> Any:
    import contextlib
    import io
    import warnings

    from FrEIA import framework as Ff
    from FrEIA import modules as Fm

    dims, cond, blocks, _ = SEQUENCE[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inn = Ff.ReversibleSequential(*dims) if key == "ReversibleSequential" else Ff.SequenceINN(*dims)
    for name, keywords, index in blocks:
        extra = {} if index is None else {"cond": index, "cond_shape": cond}
        with contextlib.redirect_stdout(io.StringIO()):  # InvAutoFC prints its weights' shapes
            inn.append(getattr(Fm, name), **extra, **_keywords(keywords, inn.shapes[-1]))
    return inn


def _inputs(shape: tuple[int, ...], seed: int) -> Any:
    import torch

    return torch.randn(BATCH, *shape, generator=torch.Generator().manual_seed(seed))


def _graph(key: str) -> tuple[Any, list[Any], list[Any]]:
    """A ``GraphINN`` and its inputs and conditions.

    ``multiscale``: an image through a Haar downsampling and a coupling, half its channels split off and
    flattened, the other half through another coupling and a downsampling, both halves concatenated; ``cond``
    conditions both couplings on one ``ConditionNode``. ``two_inputs``: a vector and an image concatenated
    after the image is flattened, a coupling, and a split into two outputs.
    """
    import warnings

    from FrEIA import framework as Ff
    from FrEIA import modules as Fm

    if key == "GraphINN.tiny":  # two 2-dimensional inputs concatenated, one coupling: a 4 x 4 Jacobian
        left, right = Ff.InputNode(2, name="left"), Ff.InputNode(2, name="right")
        cat = Ff.Node([(left, 0), (right, 0)], Fm.Concat, {}, name="concat")
        coupling = Ff.Node(cat, Fm.RNVPCouplingBlock, {"subnet_constructor": _subnet("fc")}, name="coupling")
        out = Ff.OutputNode(coupling, name="output")
        return Ff.GraphINN([left, right, cat, coupling, out]), [_inputs((2,), 1), _inputs((2,), 2)], []
    if key == "GraphINN.two_inputs":
        vec = Ff.InputNode(DIM, name="vector")
        img = Ff.InputNode(2, 4, 4, name="image")
        flat = Ff.Node(img, Fm.Flatten, {}, name="flatten")
        cat = Ff.Node([(vec, 0), (flat, 0)], Fm.Concat, {"dim": 0}, name="concat")
        coupling = Ff.Node(cat, Fm.GLOWCouplingBlock, {"subnet_constructor": _subnet("fc")}, name="coupling")
        perm = Ff.Node(coupling, Fm.PermuteRandom, {"seed": 4}, name="permute")
        split = Ff.Node(perm, Fm.Split, {"section_sizes": [DIM, 32], "dim": 0}, name="split")
        out_a, out_b = Ff.OutputNode(split.out0, name="a"), Ff.OutputNode(split.out1, name="b")
        nodes = [vec, img, flat, cat, coupling, perm, split, out_a, out_b]
        return Ff.GraphINN(nodes, force_tuple_output=True), [_inputs((DIM,), 1), _inputs((2, 4, 4), 2)], []
    conditional = key.endswith(".cond")
    cond = Ff.ConditionNode(COND, 4, 4, name="condition")
    condition = [cond] if conditional else None
    inp = Ff.InputNode(*IMAGE[:1], 8, 8, name="input")
    haar = Ff.Node(inp, Fm.HaarDownsampling, {"rebalance": 0.5}, name="haar")
    conv = Ff.Node(haar, Fm.GLOWCouplingBlock, {"subnet_constructor": _subnet("conv"), "clamp": 1.2},
                   conditions=condition, name="coupling_conv")
    perm = Ff.Node(conv, Fm.PermuteRandom, {"seed": 5}, name="permute")
    split = Ff.Node(perm, Fm.Split, {"n_sections": 2, "dim": 0}, name="split")
    flat_a = Ff.Node(split.out1, Fm.Flatten, {}, name="flatten_split")
    down = Ff.Node(split.out0, Fm.IRevNetDownsampling, {}, name="down")
    flat_b = Ff.Node(down, Fm.Flatten, {}, name="flatten")
    fc = Ff.Node(flat_b, Fm.AllInOneBlock, {"subnet_constructor": _subnet("fc")}, name="coupling_fc")
    cat = Ff.Node([fc.out0, flat_a.out0], Fm.Concat, {"dim": 0}, name="concat")
    out = Ff.OutputNode(cat, name="output")
    nodes = [inp, haar, conv, perm, split, flat_a, down, flat_b, fc, cat, out] + ([cond] if conditional else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net = (Ff.ReversibleGraphNet(nodes, verbose=False) if key == "ReversibleGraphNet" else Ff.GraphINN(nodes))
    conditions = [_inputs((COND, 4, 4), 3)] if conditional else []
    return net, [_inputs(IMAGE, 1)], conditions


def _latent(net: Any, inputs: list[Any], conditions: list[Any]) -> list[Any]:
    """Where the reverse direction starts: the network's forward outputs, detached (latent codes)."""
    import torch

    with torch.no_grad():
        out, _ = net(inputs if len(inputs) > 1 else inputs[0], c=conditions or None, jac=False)
    out = out if isinstance(out, (tuple, list)) else [out]
    return [o.detach().clone() for o in out]


def _direction_keywords(direction: str) -> dict[str, Any]:
    keywords: dict[str, Any] = {}
    if direction.startswith("rev"):
        keywords["rev"] = True
    if "nojac" in direction:
        keywords["jac"] = False
    if "intermediate" in direction:
        keywords["intermediate_outputs"] = True
    return keywords


def _sequence_model(key: str, direction: str) -> Built:
    import torch

    inn = _sequence(key)
    dims, cond, _, _ = SEQUENCE[key]
    keywords = _direction_keywords(direction)
    conditions = [_inputs(cond, 3)] if cond is not None else None
    if conditions is not None:
        keywords["c"] = conditions
    x = _inputs(dims, 1)
    if key == "InvertibleSigmoid" and direction == "rev":  # the inverse takes values in (0, 1)
        x = torch.rand(BATCH, *dims, generator=torch.Generator().manual_seed(1)) * 0.9 + 0.05
    elif direction.startswith("rev"):  # latent codes of the output's shape
        x = _inputs(inn.shapes[-1], 1)
    return inn, (x,), keywords


def _graph_model(key: str, direction: str) -> Built:
    net, inputs, conditions = _graph(key)
    keywords = _direction_keywords(direction)
    if conditions:
        keywords["c"] = conditions
    start = _latent(net, inputs, conditions) if direction.startswith("rev") else inputs
    return net, (start[0] if len(start) == 1 else start,), keywords


def _gmm(name: str) -> Built:
    """``GaussianMixtureModel`` on 3-dimensional data with 2 components: weights, means and Cholesky entries
    of the precision matrices from the condition, as a mixture density network would give them."""
    import torch
    from FrEIA.modules import GaussianMixtureModel
    from torch import nn

    gen = torch.Generator().manual_seed(6)
    features, components = 3, 2
    w = GaussianMixtureModel.normalize_weights(torch.randn(BATCH, components, generator=gen))
    mu = torch.randn(BATCH, components, features, generator=gen)
    entries = 0.1 * torch.randn(BATCH, components, features * (features + 1) // 2, generator=gen)
    gmm = GaussianMixtureModel([(features,)], [(components,), (components, features), (components, 6)])
    _, which, direction = name.split(".")
    if which == "all":
        x = torch.randn(BATCH, components, features, generator=gen)
        index: Any = None
    else:
        x = torch.randn(BATCH, features, generator=gen)
        index = torch.tensor([0, 1, 1, 0]) if which == "indices" else 7

    class _Mixture(nn.Module):
        """The mixture with its parameters fixed, the component choice given (a tensor or a seed, not traced)."""

        def __init__(self) -> None:
            super().__init__()
            self.gmm = gmm

        def forward(self, x: Any, w: Any, mu: Any, entries: Any) -> Any:
            return self.gmm([x], c=[w, mu, entries, index], rev=direction == "rev")

        def entry_points(self) -> list[Any]:
            return [GaussianMixtureModel]

    return _Mixture(), (x, w, mu, entries), {}


def _gmm_static(name: str) -> Built:
    import torch
    from FrEIA.modules import GaussianMixtureModel

    from gt_calls import Call

    gen = torch.Generator().manual_seed(7)
    function = name.split(".", 1)[1]
    w = torch.softmax(torch.randn(BATCH, 3, generator=gen), dim=-1)
    if function == "pick_mixture_component":
        return Call(GaussianMixtureModel.pick_mixture_component, seed=3), (w,), {}
    z = torch.randn(BATCH, 3, 2, generator=gen)
    log_jacobian = 0.1 * torch.randn(BATCH, 3, generator=gen)
    return Call(getattr(GaussianMixtureModel, function)), (w, z, log_jacobian), {}


def _iresnet(name: str) -> Built:
    import torch
    from FrEIA.modules import IResNetLayer
    from torch import nn

    from gt_calls import Method

    dims = IMAGE if ".conv." in name else (DIM,)
    layer = IResNetLayer([dims], internal_size=8, jacobian_iterations=3, hutchinson_samples=2,
                         fixed_point_iterations=4, lipschitz_iterations=3, lipschitz_batchsize=4,
                         spectral_norm_max=0.5)
    if name.endswith("lipschitz_correction"):  # users call it after each optimiser step
        return Method(layer, "lipschitz_correction"), (), {}
    if name.endswith(".nojac"):  # the layer alone: with ``jac=False`` its log-determinant is None, which
        # ``SequenceINN`` cannot add up
        return layer, ([_inputs(dims, 1)],), _direction_keywords(name.rsplit(".", 2)[-2] + ".nojac")

    class _LogDet(nn.Module):
        """The forward with its log-determinant (vector-Jacobian products need gradients, as in training)."""

        def __init__(self) -> None:
            super().__init__()
            self.layer = layer

        def forward(self, x: Any) -> Any:
            with torch.enable_grad():
                (z,), jac = self.layer([x.clone().requires_grad_(True)], jac=True)
            return z, jac

        def entry_points(self) -> list[Any]:
            return [IResNetLayer]

    return _LogDet(), (_inputs((DIM,), 1),), {}


def _train(name: str) -> Built:
    """A bench training step around a network: its maximum-likelihood loss (``0.5 * |z|^2 - log|det J|`` per
    dimension)."""
    import torch
    from FrEIA.framework import SequenceINN
    from torch import nn

    if name == "train.RealNVP.cond.nll":
        dims, cond = (DIM,), (COND,)
        inn = SequenceINN(DIM)
        for block in range(2):
            from FrEIA.modules import PermuteRandom, RNVPCouplingBlock

            inn.append(RNVPCouplingBlock, cond=0, cond_shape=cond, subnet_constructor=_subnet("fc"),
                       clamp_activation="TANH")
            inn.append(PermuteRandom, seed=block)
        conditions: list[Any] = [_inputs(cond, 3)]
    else:
        inn, dims, conditions = _sequence("multiscale"), IMAGE, []

    class _Step(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inn = inn

        def forward(self, x: Any, *c: Any) -> Any:
            z, log_jac_det = self.inn(x, c=list(c) or None)
            return (0.5 * torch.sum(z.reshape(z.shape[0], -1) ** 2, 1) - log_jac_det).mean() / z[0].numel()

        def entry_points(self) -> list[Any]:
            return [SequenceINN]

    return _Step(), (_inputs(dims, 1), *conditions), {}


def build(name: str) -> Built:
    import warnings

    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    np.random.seed(0)  # FrEIA draws its permutations with numpy
    if name.startswith("SequenceINN."):
        for key in sorted(SEQUENCE, key=len, reverse=True):
            if name.startswith(f"SequenceINN.{key}."):
                return _sequence_model(key, name[len(f"SequenceINN.{key}."):])
    for key in sorted(GRAPH, key=len, reverse=True):
        if name.startswith(f"{key}."):
            return _graph_model(key, name[len(key) + 1:])
    if name == "GraphINN.log_jacobian_numerical":
        from gt_calls import Method

        net, inputs, _ = _graph("GraphINN.tiny")
        return Method(net, "log_jacobian_numerical"), (inputs,), {}
    if name.startswith("IResNetLayer."):
        return _iresnet(name)
    if name.startswith("GaussianMixtureModel."):
        return _gmm(name) if name.count(".") == 2 else _gmm_static(name)
    return _train(name)
