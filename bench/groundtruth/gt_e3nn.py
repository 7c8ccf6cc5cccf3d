"""Ground-truth bench, e3nn: equivariant layers on irreducible representations of O(3).

``MODULES`` builds one layer of ``e3nn.o3`` or ``e3nn.nn`` on small irreps (scalars, vectors and
rank-2 parts, a few channels each); ``FUNCTIONS`` wraps functions of ``e3nn.o3`` (spherical
harmonics, rotation conversions, Wigner matrices) through ``gt_calls.Call``. The input is a batch of
five feature vectors (or 3-D points) for each. ``names()`` needs no torch; ``build`` runs in a worker
only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
IRREPS = "4x0e + 2x1o + 1x2e"

MODULES = ("Linear", "FullyConnectedTensorProduct", "FullTensorProduct", "ElementwiseTensorProduct", "TensorSquare",
           "SphericalHarmonics", "Norm", "Gate", "BatchNorm", "Dropout", "NormActivation", "FullyConnectedNet",
           "Extract", "S2Activation", "Activation", "ToS2Grid", "FromS2Grid", "SO3Activation")
FUNCTIONS = ("spherical_harmonics", "matrix_to_angles", "angles_to_matrix", "xyz_to_angles", "matrix_to_quaternion",
             "quaternion_to_matrix", "axis_angle_to_matrix", "wigner_D", "legendre", "compose_angles")


def names() -> list[str]:
    return [f"o3.{n}" for n in MODULES] + [f"fn.{n}" for n in FUNCTIONS]


def _module(name: str) -> tuple[Any, tuple[Any, ...]]:
    import torch
    from e3nn import nn, o3

    gen = torch.Generator().manual_seed(0)
    irreps = o3.Irreps(IRREPS)
    x = irreps.randn(5, -1)
    vectors = torch.randn(5, 3, generator=gen)
    table: dict[str, Any] = {
        "Linear": lambda: (o3.Linear(irreps, "3x0e + 2x1o"), (x,)),
        "FullyConnectedTensorProduct": lambda: (o3.FullyConnectedTensorProduct(irreps, "1x0e + 1x1o", "2x0e + 2x1o"),
                                                (x, o3.Irreps("1x0e + 1x1o").randn(5, -1))),
        "FullTensorProduct": lambda: (o3.FullTensorProduct("2x0e + 1x1o", "1x1o"),
                                      (o3.Irreps("2x0e + 1x1o").randn(5, -1), vectors)),
        "ElementwiseTensorProduct": lambda: (o3.ElementwiseTensorProduct(irreps, irreps), (x, x)),
        "TensorSquare": lambda: (o3.TensorSquare("2x0e + 1x1o"), (o3.Irreps("2x0e + 1x1o").randn(5, -1),)),
        "SphericalHarmonics": lambda: (o3.SphericalHarmonics([0, 1, 2], normalize=True, normalization="component"),
                                       (vectors,)),
        "Norm": lambda: (o3.Norm(irreps), (x,)),
        "Gate": lambda: (nn.Gate("2x0e", [torch.relu], "2x0e", [torch.sigmoid], "2x1o"),
                         (o3.Irreps("2x0e + 2x0e + 2x1o").randn(5, -1),)),
        "BatchNorm": lambda: (nn.BatchNorm(irreps), (x,)),
        "Dropout": lambda: (nn.Dropout(irreps, 0.5), (x,)),
        "NormActivation": lambda: (nn.NormActivation(irreps, torch.sigmoid), (x,)),
        "FullyConnectedNet": lambda: (nn.FullyConnectedNet([4, 16, 3], torch.tanh), (torch.randn(5, 4),)),
        "Extract": lambda: (nn.Extract(irreps, ["4x0e", "2x1o"], [(0,), (1,)]), (x,)),
        "S2Activation": lambda: (nn.S2Activation("1x0e + 1x1e + 1x2e", torch.tanh, res=12),
                                 (o3.Irreps("1x0e + 1x1e + 1x2e").randn(5, -1),)),
        "Activation": lambda: (nn.Activation("4x0e", [torch.tanh]), (torch.randn(5, 4),)),
        "ToS2Grid": lambda: (o3.ToS2Grid(2, (8, 9)), (torch.randn(5, 9),)),
        "FromS2Grid": lambda: (o3.FromS2Grid((8, 9), 2), (torch.randn(5, 8, 9),)),
        "SO3Activation": lambda: (nn.SO3Activation(1, 1, torch.tanh, 6), (torch.randn(5, 10),)),
    }
    return table[name]()


def build(name: str) -> Built:
    import torch
    from e3nn import o3
    from gt_calls import Call

    kind, item = name.split(".", 1)
    if kind == "o3":
        module, args = _module(item)
        return module, args, {}
    gen = torch.Generator().manual_seed(0)
    vectors = torch.randn(5, 3, generator=gen)
    angles = o3.rand_angles(5)
    matrix = o3.angles_to_matrix(*angles)
    calls: dict[str, tuple[Any, tuple[Any, ...], dict[str, Any]]] = {
        "spherical_harmonics": (o3.spherical_harmonics, (vectors,), {"l": [0, 1, 2], "normalize": True}),  # l first
        "matrix_to_angles": (o3.matrix_to_angles, (matrix,), {}),
        "angles_to_matrix": (o3.angles_to_matrix, angles, {}),
        "xyz_to_angles": (o3.xyz_to_angles, (vectors,), {}),
        "matrix_to_quaternion": (o3.matrix_to_quaternion, (matrix,), {}),
        "quaternion_to_matrix": (o3.quaternion_to_matrix, (o3.rand_quaternion(5),), {}),
        "axis_angle_to_matrix": (o3.axis_angle_to_matrix, (vectors, torch.rand(5)), {}),
        "wigner_D": (o3.wigner_D, angles, {"l": 2}),
        "legendre": (o3.Legendre([0, 1, 2]), (torch.rand(5) * 2 - 1, torch.rand(5)), {}),
        "compose_angles": (o3.compose_angles, angles + angles, {}),
    }
    function, args, static = calls[item]
    if isinstance(function, torch.nn.Module):
        return function, args, {}
    if "l" in static:  # the degrees come first, before the tensors
        degrees = static.pop("l")
        call = Call(lambda *tensors: function(degrees, *tensors, **static))
        call.entry_points = lambda: [function]  # type: ignore[method-assign]
        return call, args, {}
    return Call(function, **static), args, {}
