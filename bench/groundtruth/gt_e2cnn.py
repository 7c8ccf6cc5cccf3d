"""Ground-truth bench, e2cnn: E(2)-equivariant steerable convolutional networks.

e2cnn builds networks whose feature maps are ``GeometricTensor``s, a tensor tagged with a ``FieldType``
(a list of representations of a group acting on the plane, over a ``gspace``: ``Rot2dOnR2`` for the
cyclic groups C_N and SO(2), ``FlipRot2dOnR2`` for the dihedral groups D_N and O(2), ``Flip2dOnR2``,
``TrivialOnR2``). Its modules (``e2cnn.nn``) take and return geometric tensors: steerable convolutions
(``R2Conv``, ``R2ConvTransposed``, ``R2Diffop``) expand their filters from a precomputed basis on each
training call and keep them cached in eval mode, and non-linearities, pooling, invariant maps, batch
norms and dropout act per field in ways that depend on the field's representation. Users wrap an input
in a ``GeometricTensor`` and read ``.tensor`` back, so each model here is a bench module (``_Geometric``)
doing that around one library module. The tables cover, on a batch of 2 and 12 x 12 images:

- ``CONVS``: ``R2Conv`` over each gspace (C4, C8, D4, SO(2) and O(2) with band-limited irreps, flips,
  trivial) between images, regular, irrep and mixed fields, with stride, dilation, circular padding,
  groups, no bias and recomputed bases; ``R2ConvTransposed``; ``R2Diffop``; ``R2Upsampling`` (bilinear by
  a scale factor, nearest to a size);
- ``LAYERS``: ``ReLU`` (plain and in place), ``ELU``, ``PointwiseNonLinearity``, ``NormNonLinearity``
  (three functions, with and without bias), ``GatedNonLinearity1`` (dropping the gates or not),
  ``GatedNonLinearity2``, ``InducedGatedNonLinearity1``, ``InducedNormNonLinearity``,
  ``VectorFieldNonLinearity`` (``ConcatenatedNonLinearity`` needs pymanopt, absent); the pointwise max /
  average pools (plain, antialiased, adaptive), ``NormMaxPool``; ``GroupPooling``, ``NormPool``, ``InducedNormPool``,
  ``MaxPoolChannels``; ``InnerBatchNorm`` (with and without running statistics), ``NormBatchNorm``,
  ``GNormBatchNorm``, ``InducedNormBatchNorm``; ``FieldDropout``, ``PointwiseDropout``;
  ``RestrictionModule``, ``DisentangleModule``, ``MaskModule``, ``ReshuffleModule``, ``IdentityModule``,
  ``MultipleModule``, ``BranchingModule`` followed by ``MergeModule``, ``SequentialModule`` and
  ``ModuleList``;
- ``TENSORS``: ``GeometricTensor`` arithmetic, ``restrict``, ``split``, indexing, ``transform`` by a group
  element and ``tensor_directsum``;
- ``NETWORKS``: typical equivariant CNNs: a C8 network on images (mask, convolutions, batch norm, ReLU,
  antialiased pooling, group pooling, a linear head), a D4 network with gated non-linearities on irreps
  and norm pooling, an SO(2) network with norm non-linearities, a C4 encoder-decoder with a transposed
  convolution and upsampling, a network restricted from D4 to C4 half-way, and a train step (the C8
  network, cross-entropy, SGD).

``export()`` (conversion to plain torch modules) leaves no library code in the forward and is left out.
Building a layer computes its basis in numpy (seconds), so the fields are few and small. e2cnn 0.2.3 predates
numpy 2: ``_numpy2_hashes`` adapts the two basis-building calls numpy 2 refuses (at construction only). On D4,
a 3 x 3 basis into irreps from non-regular fields keeps a single element, which the library's uint8 mask
cannot assign under this torch, so those convolutions use 5 x 5 kernels. Random weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SIZE = 2, 12

# Field specs (``_field``): "image" 3 trivial fields, "trivial" 4 trivial fields, "regular" 2 regular
# fields, "irreps" 2 fields of the first irrep (frequency 1), "mixed" a trivial, an irrep and a regular
# field (no regular field on SO(2) / O(2)), "gated" 2 trivial gates then 2 irreps, "induced" 2 fields
# induced from the C4 irrep of frequency 1 on D4, "induced_gated" 2 quotient gates then 2 induced fields.

# ``R2Conv`` name -> (gspace, in field, out field, keywords). A keyword ``module`` picks another class.
CONVS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "R2Conv.c4.image_to_regular": ("c4", "image", "regular", {"kernel_size": 3, "padding": 1}),
    "R2Conv.c4.regular": ("c4", "regular", "regular", {"kernel_size": 3}),
    "R2Conv.c8.regular_to_irreps": ("c8", "regular", "irreps", {"kernel_size": 5, "padding": 2}),
    "R2Conv.d4.regular": ("d4", "regular", "regular", {"kernel_size": 3, "padding": 1}),
    "R2Conv.d4.mixed": ("d4", "mixed", "mixed", {"kernel_size": 5, "padding": 2}),
    "R2Conv.so2.irreps": ("so2", "irreps", "mixed", {"kernel_size": 3, "padding": 1}),
    "R2Conv.o2.irreps": ("o2", "irreps", "irreps", {"kernel_size": 3, "padding": 1}),
    "R2Conv.flip": ("flip", "regular", "regular", {"kernel_size": 3, "padding": 1}),
    "R2Conv.trivial": ("trivial", "image", "trivial", {"kernel_size": 3, "padding": 1}),
    "R2Conv.stride2": ("c4", "regular", "regular", {"kernel_size": 3, "padding": 1, "stride": 2}),
    "R2Conv.dilation2": ("c4", "regular", "regular", {"kernel_size": 3, "padding": 2, "dilation": 2}),
    "R2Conv.circular": ("c4", "regular", "regular", {"kernel_size": 3, "padding": 1, "padding_mode": "circular"}),
    "R2Conv.groups2": ("c4", "regular", "regular", {"kernel_size": 3, "padding": 1, "groups": 2}),
    "R2Conv.no_bias": ("c4", "mixed", "regular", {"kernel_size": 3, "padding": 1, "bias": False}),
    "R2Conv.recompute": ("c4", "regular", "regular", {"kernel_size": 3, "padding": 1, "recompute": True}),
    "R2ConvTransposed": ("c4", "regular", "regular", {"module": "transposed", "kernel_size": 3, "padding": 1,
                                                      "stride": 2, "output_padding": 1}),
    "R2Diffop": ("c4", "regular", "regular", {"module": "diffop", "kernel_size": 3, "padding": 1}),
    "R2Upsampling.bilinear": ("c4", "regular", "", {"module": "upsampling", "scale_factor": 2}),
    "R2Upsampling.nearest.size": ("d4", "irreps", "", {"module": "upsampling", "size": 20, "mode": "nearest"}),
}
# Layer name -> (gspace, in field, class name in ``e2cnn.nn``, keywords).
LAYERS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "ReLU": ("c4", "regular", "ReLU", {}),
    "ReLU.inplace": ("d4", "regular", "ReLU", {"inplace": True}),
    "ELU": ("c4", "regular", "ELU", {"alpha": 0.5}),
    "PointwiseNonLinearity.sigmoid": ("c4", "regular", "PointwiseNonLinearity", {"function": "p_sigmoid"}),
    "NormNonLinearity.relu": ("c4", "irreps", "NormNonLinearity", {}),
    "NormNonLinearity.sigmoid": ("so2", "irreps", "NormNonLinearity", {"function": "n_sigmoid"}),
    "NormNonLinearity.squash.no_bias": ("d4", "irreps", "NormNonLinearity", {"function": "squash", "bias": False}),
    "GatedNonLinearity1": ("c4", "gated", "GatedNonLinearity1", {"gates": ["gate", "gate", "gated", "gated"]}),
    "GatedNonLinearity1.keep_gates": ("so2", "gated", "GatedNonLinearity1",
                                      {"gates": ["gate", "gate", "gated", "gated"], "drop_gates": False}),
    "GatedNonLinearity2": ("d4", "gated", "GatedNonLinearity2", {}),
    "InducedGatedNonLinearity1": ("d4", "induced_gated", "InducedGatedNonLinearity1",
                                  {"gates": ["gate", "gate", "gated", "gated"]}),
    "InducedNormNonLinearity": ("d4", "induced", "InducedNormNonLinearity", {}),
    "VectorFieldNonLinearity": ("c8", "regular", "VectorFieldNonLinearity", {}),
    "PointwiseMaxPool": ("c4", "regular", "PointwiseMaxPool", {"kernel_size": 2}),
    "PointwiseMaxPoolAntialiased": ("c4", "regular", "PointwiseMaxPoolAntialiased", {"kernel_size": 3, "stride": 2}),
    "PointwiseAvgPool": ("d4", "mixed", "PointwiseAvgPool", {"kernel_size": 3, "stride": 2, "padding": 1}),
    "PointwiseAvgPoolAntialiased": ("c4", "irreps", "PointwiseAvgPoolAntialiased", {"sigma": 0.66, "stride": 2}),
    "PointwiseAdaptiveAvgPool": ("c4", "regular", "PointwiseAdaptiveAvgPool", {"output_size": 3}),
    "PointwiseAdaptiveMaxPool": ("c4", "regular", "PointwiseAdaptiveMaxPool", {"output_size": (2, 3)}),
    "NormMaxPool": ("c4", "irreps", "NormMaxPool", {"kernel_size": 2}),
    "GroupPooling": ("c8", "regular", "GroupPooling", {}),
    "GroupPooling.d4.trivial_regular": ("d4", "trivial_regular", "GroupPooling", {}),
    "NormPool": ("so2", "irreps", "NormPool", {}),
    "MaxPoolChannels": ("c4", "regular", "MaxPoolChannels", {"kernel_size": 4}),
    "InducedNormPool": ("d4", "induced", "InducedNormPool", {}),
    "InnerBatchNorm": ("c4", "regular", "InnerBatchNorm", {}),
    "InnerBatchNorm.no_running_stats": ("d4", "regular", "InnerBatchNorm", {"track_running_stats": False,
                                                                           "affine": False}),
    "NormBatchNorm": ("c4", "irreps", "NormBatchNorm", {}),
    "GNormBatchNorm": ("d4", "mixed", "GNormBatchNorm", {}),
    "InducedNormBatchNorm": ("d4", "induced", "InducedNormBatchNorm", {}),
    "FieldDropout": ("c4", "mixed", "FieldDropout", {"p": 0.3}),
    "PointwiseDropout": ("c4", "regular", "PointwiseDropout", {"p": 0.3}),
    "RestrictionModule": ("d4", "regular", "RestrictionModule", {"id": (None, 4)}),
    "DisentangleModule": ("d4", "regular", "DisentangleModule", {}),
    "MaskModule": ("c4", "regular", "MaskModule", {"S": SIZE, "margin": 1.0}),
    "ReshuffleModule": ("c4", "mixed", "ReshuffleModule", {"permutation": [2, 0, 1]}),
    "IdentityModule": ("c4", "regular", "IdentityModule", {}),
    "MultipleModule": ("c4", "gated", "MultipleModule", {}),
    "BranchingModule.MergeModule": ("c4", "gated", "BranchingModule", {}),
    "SequentialModule": ("c4", "image", "SequentialModule", {}),
    "ModuleList": ("c4", "regular", "ModuleList", {}),
}
TENSORS = ("GeometricTensor.arithmetic", "GeometricTensor.restrict", "GeometricTensor.split",
           "GeometricTensor.getitem", "GeometricTensor.transform", "tensor_directsum")
NETWORKS = ("network.c8", "network.d4.gated", "network.so2.norm", "network.c4.encoder_decoder",
            "network.d4_to_c4", "train_step.network.c8")


def names() -> list[str]:
    return list(CONVS) + list(LAYERS) + list(TENSORS) + list(NETWORKS)


def _numpy2_hashes() -> None:
    """numpy 2 dropped ``ndarray.tostring``, which four kernel-basis classes of e2cnn 0.2.3 call in ``__hash__``,
    and refuses ``np.array(scalar, copy=False)``, which ``psi`` / ``psichi`` / ``chi`` call on their scalar
    arguments, both when a basis is built or sampled (at construction, never in a forward): give the classes the
    same hash from ``tobytes`` and pass the functions arrays."""
    import numpy as np
    from e2cnn.kernels import irreps_basis

    def basis_hash(self: Any) -> int:
        gamma = self.gamma.tobytes() if isinstance(self.gamma, np.ndarray) else self.gamma
        return hash(self.in_irrep) + hash(self.out_irrep) + hash(self.mu.tobytes()) + hash(gamma)

    def scalars_as_arrays(function: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            args = tuple(np.asarray(a) if isinstance(a, (int, float)) else a for a in args)
            kwargs = {k: np.asarray(v) if isinstance(v, (int, float)) else v for k, v in kwargs.items()}
            return function(*args, **kwargs)
        wrapped.scalars_as_arrays = True  # type: ignore[attr-defined]
        return wrapped

    for function_name in ("psi", "psichi", "chi"):
        if not getattr(getattr(irreps_basis, function_name), "scalars_as_arrays", False):
            setattr(irreps_basis, function_name, scalars_as_arrays(getattr(irreps_basis, function_name)))
    for cls_name in ("R2FlipsSolution", "R2ContinuousRotationsSolution", "R2FlipsDiscreteRotationsSolution",
                     "R2FlipsContinuousRotationsSolution"):
        getattr(irreps_basis, cls_name).__hash__ = basis_hash


def _gspace(kind: str) -> Any:
    from e2cnn import gspaces

    _numpy2_hashes()
    return {
        "c4": lambda: gspaces.Rot2dOnR2(4), "c8": lambda: gspaces.Rot2dOnR2(8),
        "d4": lambda: gspaces.FlipRot2dOnR2(4), "so2": lambda: gspaces.Rot2dOnR2(-1, maximum_frequency=2),
        "o2": lambda: gspaces.FlipRot2dOnR2(-1, maximum_frequency=2), "flip": lambda: gspaces.Flip2dOnR2(),
        "trivial": lambda: gspaces.TrivialOnR2(),
    }[kind]()


def _irrep(gs: Any) -> Any:
    """The first non-trivial irrep of frequency 1 (or the flip's sign irrep)."""
    from e2cnn import gspaces

    if isinstance(gs, gspaces.FlipRot2dOnR2):
        return gs.irrep(1, 1)
    if isinstance(gs, gspaces.Rot2dOnR2):
        return gs.irrep(1)
    return gs.irrep(1) if isinstance(gs, gspaces.Flip2dOnR2) else gs.trivial_repr


def _field(gs: Any, spec: str) -> Any:
    from e2cnn import nn as enn

    trivial, irrep = gs.trivial_repr, _irrep(gs)
    finite = gs.fibergroup.order() > 0
    reprs = {
        "image": lambda: [trivial] * 3,
        "trivial": lambda: [trivial] * 4,
        "regular": lambda: [gs.regular_repr] * 2,
        "irreps": lambda: [irrep] * 2,
        "mixed": lambda: [trivial, irrep] + ([gs.regular_repr] if finite else [irrep]),
        "trivial_regular": lambda: [trivial, gs.regular_repr, trivial],
        "gated": lambda: [trivial] * 2 + [irrep] * 2,
        "induced": lambda: [_induced(gs)] * 2,
        "induced_gated": lambda: [gs.quotient_repr((None, 4))] * 2 + [_induced(gs)] * 2,
    }[spec]()
    return enn.FieldType(gs, reprs)


def _induced(gs: Any) -> Any:
    """On D4: the representation induced from the C4 irrep of frequency 1."""
    subgroup = gs.fibergroup.subgroup((None, 4))[0]
    return gs.induced_repr((None, 4), subgroup.irrep(1))


def _geometric(module: Any, in_type: Any, output: str = "tensor") -> Any:
    """A bench module: wraps a plain tensor in a ``GeometricTensor`` of ``in_type``, runs ``module`` and
    returns the output's ``.tensor`` (each branch's for a dict)."""
    from e2cnn.nn import GeometricTensor
    from torch import nn

    class _Geometric(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.module = module

        def forward(self, x: Any) -> Any:
            out = self.module(GeometricTensor(x, in_type))
            if isinstance(out, dict):
                return {key: value.tensor for key, value in out.items()}
            return out.tensor

        def entry_points(self) -> list[Any]:
            return [type(self.module)]

    return _Geometric()


def _input(in_type: Any, size: int = SIZE, seed: int = 1) -> Any:
    import torch

    return torch.randn(BATCH, in_type.size, size, size, generator=torch.Generator().manual_seed(seed))


def _conv(name: str) -> Built:
    from e2cnn import nn as enn

    gs_kind, in_spec, out_spec, keywords = CONVS[name]
    gs = _gspace(gs_kind)
    in_type = _field(gs, in_spec)
    keywords = dict(keywords)
    module = keywords.pop("module", "conv")
    if module == "upsampling":
        layer: Any = enn.R2Upsampling(in_type, **keywords)
    else:
        cls = {"conv": enn.R2Conv, "transposed": enn.R2ConvTransposed, "diffop": enn.R2Diffop}[module]
        layer = cls(in_type, _field(gs, out_spec), **keywords)
    return _geometric(layer, in_type), (_input(in_type),), {}


def _layer(name: str) -> Built:
    import torch
    from e2cnn import nn as enn

    gs_kind, spec, cls_name, keywords = LAYERS[name]
    gs = _gspace(gs_kind)
    in_type = _field(gs, spec)
    x = _input(in_type)
    if cls_name == "GatedNonLinearity2":
        gates, gated = enn.FieldType(gs, in_type.representations[:2]), enn.FieldType(gs, in_type.representations[2:])
        layer: Any = enn.GatedNonLinearity2((gates, gated))

        class _Gated2(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.layer = layer

            def forward(self, x: Any) -> Any:
                g, v = x[:, :gates.size], x[:, gates.size:]
                return self.layer(enn.GeometricTensor(g, gates), enn.GeometricTensor(v, gated)).tensor

            def entry_points(self) -> list[Any]:
                return [enn.GatedNonLinearity2]
        return _Gated2(), (x,), {}
    if cls_name == "MaxPoolChannels":
        return enn.MaxPoolChannels(**keywords), (x,), {}
    if cls_name == "MultipleModule":
        labels = ["gate", "gate", "gated", "gated"]
        gates, gated = enn.FieldType(gs, in_type.representations[:2]), enn.FieldType(gs, in_type.representations[2:])
        layer = enn.MultipleModule(in_type, labels, [(enn.ReLU(gates), "gate"), (enn.NormNonLinearity(gated), "gated")],
                                   reshuffle=1)
        return _geometric(layer, in_type), (x,), {}
    if cls_name == "BranchingModule":
        labels = ["gate", "gate", "gated", "gated"]
        gates, gated = enn.FieldType(gs, in_type.representations[:2]), enn.FieldType(gs, in_type.representations[2:])
        branch = enn.BranchingModule(in_type, labels)
        merge = enn.MergeModule([(enn.ELU(gates), "gate"), (enn.NormBatchNorm(gated), "gated")])
        from gt_calls import Run

        return Run(torch.nn.ModuleList([branch, merge]),
                   lambda parts, x: parts[1](parts[0](enn.GeometricTensor(x, in_type))).tensor,
                   [enn.BranchingModule, enn.MergeModule]), (x,), {}
    if cls_name == "SequentialModule":
        hidden = _field(gs, "regular")
        layer = enn.SequentialModule(enn.R2Conv(in_type, hidden, 3, padding=1), enn.InnerBatchNorm(hidden),
                                     enn.ReLU(hidden, inplace=True), enn.PointwiseMaxPool(hidden, 2))
        return _geometric(layer, in_type), (x,), {}
    if cls_name == "ModuleList":
        blocks = enn.ModuleList([enn.ELU(in_type), enn.InnerBatchNorm(in_type), enn.ReLU(in_type)])

        class _Blocks(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.blocks = blocks

            def forward(self, x: Any) -> Any:
                y = enn.GeometricTensor(x, in_type)
                for block in self.blocks:
                    y = block(y)
                return y.tensor

            def entry_points(self) -> list[Any]:
                return [type(b) for b in blocks]
        return _Blocks(), (x,), {}
    layer = getattr(enn, cls_name)(in_type, **keywords)
    return _geometric(layer, in_type), (x,), {}


def _tensors(name: str) -> Built:
    import torch
    from e2cnn import nn as enn

    from gt_calls import Run

    gs = _gspace("d4")
    in_type = _field(gs, "mixed")
    x = _input(in_type)
    gt = enn.GeometricTensor
    if name == "GeometricTensor.arithmetic":
        def arithmetic(_: Any, x: Any) -> Any:
            a, b = gt(x, in_type), gt(x.flip(0), in_type)
            c = (a + b) * 0.5 - b
            c += a
            c *= 2.0
            return c.tensor
        return Run(torch.nn.Module(), arithmetic, [gt.__add__, gt.__sub__, gt.__mul__, gt.__iadd__, gt.__imul__]), \
            (x,), {}
    if name == "GeometricTensor.restrict":
        return Run(torch.nn.Module(), lambda _, x: gt(x, in_type).restrict((None, 4)).tensor, [gt.restrict]), (x,), {}
    if name == "GeometricTensor.split":
        return Run(torch.nn.Module(), lambda _, x: [t.tensor for t in gt(x, in_type).split([1, 2])], [gt.split]), \
            (x,), {}
    if name == "GeometricTensor.getitem":
        return Run(torch.nn.Module(), lambda _, x: gt(x, in_type)[:, 1:3, 2:8].tensor, [gt.__getitem__]), (x,), {}
    if name == "GeometricTensor.transform":
        element = gs.fibergroup.elements[3]
        return Run(torch.nn.Module(), lambda _, x: gt(x, in_type).transform(element).tensor, [gt.transform]), \
            (x,), {}
    assert name == "tensor_directsum"
    other = _field(gs, "irreps")
    y = _input(other, seed=2)
    return Run(torch.nn.Module(), lambda _, x, y: enn.tensor_directsum([gt(x, in_type), gt(y, other)]).tensor,
               [enn.tensor_directsum]), (x, y), {}


def _network(kind: str) -> Any:
    """A small equivariant CNN ending in invariant features and a linear head; returns (model, in_type)."""
    import torch
    from e2cnn import nn as enn

    class _Net(torch.nn.Module):
        def __init__(self, body: Any, in_type: Any, head: Any) -> None:
            super().__init__()
            self.body, self.in_type, self.head = body, in_type, head

        def forward(self, x: Any) -> Any:
            y = self.body(enn.GeometricTensor(x, self.in_type)).tensor
            return self.head(y.mean(dim=(-2, -1)))

        def entry_points(self) -> list[Any]:
            return [type(m) for m in self.body.children()]

    if kind == "c8":
        gs = _gspace("c8")
        image, hidden = _field(gs, "image"), _field(gs, "regular")
        body = enn.SequentialModule(
            enn.MaskModule(image, SIZE, margin=1), enn.R2Conv(image, hidden, 3, padding=1), enn.InnerBatchNorm(hidden),
            enn.ReLU(hidden, inplace=True), enn.PointwiseMaxPoolAntialiased(hidden, kernel_size=2),
            enn.R2Conv(hidden, hidden, 3, padding=1), enn.InnerBatchNorm(hidden), enn.ReLU(hidden, inplace=True),
            enn.GroupPooling(hidden))
        return _Net(body, image, torch.nn.Linear(len(hidden), 10))
    if kind == "d4.gated":
        gs = _gspace("d4")
        image, gated, regular = _field(gs, "image"), _field(gs, "gated"), _field(gs, "regular")
        vectors = enn.FieldType(gs, gated.representations[2:])
        body = enn.SequentialModule(
            enn.R2Conv(image, gated, 5, padding=2), enn.GatedNonLinearity1(gated, ["gate", "gate", "gated", "gated"]),
            enn.NormBatchNorm(vectors), enn.R2Conv(vectors, regular, 3, padding=1), enn.ELU(regular),
            enn.PointwiseAvgPool(regular, 2), enn.R2Conv(regular, vectors, 3, padding=1), enn.NormPool(vectors))
        return _Net(body, image, torch.nn.Linear(len(vectors), 10))
    if kind == "so2.norm":
        gs = _gspace("so2")
        image, mixed, irreps = _field(gs, "image"), _field(gs, "mixed"), _field(gs, "irreps")
        body = enn.SequentialModule(
            enn.R2Conv(image, mixed, 3, padding=1), enn.NormNonLinearity(mixed, "n_relu"),
            enn.R2Conv(mixed, irreps, 3, padding=1), enn.NormBatchNorm(irreps), enn.NormNonLinearity(irreps),
            enn.NormMaxPool(irreps, 2), enn.NormPool(irreps))
        return _Net(body, image, torch.nn.Linear(len(irreps), 10))
    if kind == "c4.encoder_decoder":
        gs = _gspace("c4")
        image, regular, trivial = _field(gs, "image"), _field(gs, "regular"), _field(gs, "trivial")
        body = enn.SequentialModule(
            enn.R2Conv(image, regular, 3, padding=1, stride=2), enn.InnerBatchNorm(regular), enn.ReLU(regular),
            enn.R2ConvTransposed(regular, regular, 3, padding=1, stride=2, output_padding=1), enn.ReLU(regular),
            enn.R2Upsampling(regular, scale_factor=2), enn.R2Conv(regular, trivial, 3, padding=1))
        return _Net(body, image, torch.nn.Linear(len(trivial), 10))
    assert kind == "d4_to_c4"
    gs = _gspace("d4")
    image, regular = _field(gs, "image"), _field(gs, "regular")
    restrict = enn.RestrictionModule(regular, (None, 4))
    disentangle = enn.DisentangleModule(restrict.out_type)
    c4_regular = _field(restrict.out_type.gspace, "regular")
    body = enn.SequentialModule(
        enn.R2Conv(image, regular, 3, padding=1), enn.ReLU(regular), restrict, disentangle,
        enn.R2Conv(disentangle.out_type, c4_regular, 3, padding=1), enn.ReLU(c4_regular), enn.GroupPooling(c4_regular))
    return _Net(body, image, torch.nn.Linear(2, 10))


def _networks(name: str) -> Built:
    import torch

    from gt_calls import Run

    kind = name.split("network.", 1)[1]
    model = _network(kind)
    x = _input(model.in_type)
    if not name.startswith("train_step"):
        return model, (x,), {}
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    labels = torch.tensor([1, 7])

    def train(model: Any, x: Any) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), labels)
            loss.backward()
        optimizer.step()
        return loss.detach()
    class _TrainStep(Run):
        """Keeps the network in train mode in both of the harness's modes: in eval mode ``R2Conv`` caches its
        expanded filter with its graph, which a train step would backpropagate through twice."""

        def train(self, mode: bool = True) -> Any:
            super().train(mode)
            self.owner.train(True)
            return self

    return _TrainStep(model, train, model.entry_points()), (x,), {}


def build(name: str) -> Built:
    if name in CONVS:
        return _conv(name)
    if name in LAYERS:
        return _layer(name)
    if name in TENSORS:
        return _tensors(name)
    if name in NETWORKS:
        return _networks(name)
    raise KeyError(name)
