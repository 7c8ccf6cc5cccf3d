"""Ground-truth bench, torchkbnufft: NUFFT and interpolation layers, their precomputations and functional API.

torchkbnufft 1.5.2 is a set of ``nn.Module`` s (``KbNufft``, ``KbNufftAdjoint``, ``KbInterp``,
``KbInterpAdjoint``, ``ToepNufft``) that users call on images and k-space data, as its documentation shows.
Everything here works on 8 x 8 images and a radial trajectory of 4 spokes of 8 points (32 k-space points;
``omega`` of shape 2 x 32, or 2 x 2 x 32 batched, one random trajectory per image):

- ``LAYERS``: each layer with complex tensors and with real ones (last dimension 2), with sensitivity maps
  (``smaps``, 2 coils, also real-valued), batched (2 images with their own trajectories, with smaps),
  ``norm="ortho"``, fewer neighbours on an oversampled grid (``numpoints``, ``grid_size``), and sparse-matrix
  interpolation (``interp_mats`` from ``calc_tensor_spmatrix``, passed as inputs) instead of table
  interpolation; ``ToepNufft`` with a Toeplitz kernel from ``calc_toeplitz_kernel`` (plain, density-weighted,
  batched kernels, with shared or per-image smaps, real-valued and orthonormal);
- ``PRECOMPUTE``: ``calc_density_compensation_function``, ``calc_toeplitz_kernel`` and ``calc_tensor_spmatrix``
  compiled themselves (``Call``; each builds its tables with NumPy and SciPy, so each takes long to trace: their
  batched and weighted variants are left out to keep the run short);
- ``FUNCTIONAL``: ``torchkbnufft.functional``'s table and sparse-matrix NUFFTs and interpolations and
  ``fft_filter``, fed the buffers (tables, scaling coefficients, sizes) of a layer built for the same sizes,
  and the real-valued complex helpers of ``torchkbnufft`` (``complex_mult``, ``conj_complex_mult``,
  ``absolute``, ``imag_exp``, ``inner_product``, ``complex_sign``);
- ``RECON``: a learned reconstruction step as MRI networks compile it (bench code around the layers): a data
  consistency gradient step ``x - step * A^H (A x - y)`` with density compensation, and the adjoint followed
  by a small convolutional refinement.

Random data, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
IM_SIZE, SPOKES, SPOKE_POINTS, COILS, BATCH = (8, 8), 4, 8, 2, 2
KLENGTH = SPOKES * SPOKE_POINTS

# Layer name -> (class, constructor keywords, options: "real" (last dim 2), "smaps", "batched" (2 images, a
# trajectory each), "ortho", "spmat" (``interp_mats``), "weights" / "batched_kernel" (for ``ToepNufft``)).
LAYERS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "KbNufft": ("KbNufft", {}, ()),
    "KbNufft.real": ("KbNufft", {}, ("real",)),
    "KbNufft.smaps": ("KbNufft", {}, ("smaps",)),
    "KbNufft.smaps.real": ("KbNufft", {}, ("smaps", "real")),
    "KbNufft.batched": ("KbNufft", {}, ("batched",)),
    "KbNufft.batched.smaps": ("KbNufft", {}, ("batched", "smaps")),
    "KbNufft.ortho": ("KbNufft", {}, ("ortho",)),
    "KbNufft.numpoints_grid_size": ("KbNufft", {"numpoints": 4, "grid_size": (12, 12)}, ()),
    "KbNufft.spmat": ("KbNufft", {}, ("spmat",)),
    "KbNufft.spmat.smaps.real": ("KbNufft", {}, ("spmat", "smaps", "real")),
    "KbNufftAdjoint": ("KbNufftAdjoint", {}, ()),
    "KbNufftAdjoint.real": ("KbNufftAdjoint", {}, ("real",)),
    "KbNufftAdjoint.smaps": ("KbNufftAdjoint", {}, ("smaps",)),
    "KbNufftAdjoint.smaps.real": ("KbNufftAdjoint", {}, ("smaps", "real")),
    "KbNufftAdjoint.batched.smaps": ("KbNufftAdjoint", {}, ("batched", "smaps")),
    "KbNufftAdjoint.ortho": ("KbNufftAdjoint", {}, ("ortho",)),
    "KbNufftAdjoint.spmat": ("KbNufftAdjoint", {}, ("spmat",)),
    "KbInterp": ("KbInterp", {}, ()),
    "KbInterp.real": ("KbInterp", {}, ("real",)),
    "KbInterp.batched": ("KbInterp", {}, ("batched",)),
    "KbInterp.spmat": ("KbInterp", {}, ("spmat",)),
    "KbInterpAdjoint": ("KbInterpAdjoint", {}, ()),
    "KbInterpAdjoint.real": ("KbInterpAdjoint", {}, ("real",)),
    "KbInterpAdjoint.batched": ("KbInterpAdjoint", {}, ("batched",)),
    "KbInterpAdjoint.spmat": ("KbInterpAdjoint", {}, ("spmat",)),
    "ToepNufft": ("ToepNufft", {}, ()),
    "ToepNufft.weights.smaps": ("ToepNufft", {}, ("weights", "smaps")),
    "ToepNufft.real": ("ToepNufft", {}, ("real",)),
    "ToepNufft.ortho": ("ToepNufft", {}, ("ortho",)),
    "ToepNufft.batched_kernel.smaps": ("ToepNufft", {}, ("batched", "batched_kernel", "smaps")),
    "ToepNufft.batched_kernel.shared_smaps": ("ToepNufft", {}, ("batched", "batched_kernel", "shared_smaps")),
}
# Precomputation name -> (function, keywords, batched trajectory, density weights).
PRECOMPUTE: dict[str, tuple[str, dict[str, Any], bool, bool]] = {
    "calc_density_compensation_function": ("calc_density_compensation_function", {"num_iterations": 4}, False,
                                           False),
    "calc_toeplitz_kernel": ("calc_toeplitz_kernel", {}, False, False),
    "calc_tensor_spmatrix": ("calc_tensor_spmatrix", {}, False, False),
}
FUNCTIONAL = ("kb_table_nufft", "kb_table_nufft_adjoint", "kb_table_interp", "kb_table_interp_adjoint",
              "kb_spmat_nufft", "kb_spmat_nufft_adjoint", "kb_spmat_interp", "kb_spmat_interp_adjoint",
              "fft_filter")
MATH = ("complex_mult", "conj_complex_mult", "absolute", "imag_exp", "inner_product", "complex_sign")
RECON = ("data_consistency_step", "adjoint_conv_refine")


def names() -> list[str]:
    return (list(LAYERS) + list(PRECOMPUTE) + [f"functional.{f}" for f in FUNCTIONAL] + [f"math.{f}" for f in MATH]
            + list(RECON))


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _radial() -> Any:
    """A radial trajectory (radians per voxel): ``SPOKES`` spokes of ``SPOKE_POINTS`` points, 2 x ``KLENGTH``."""
    import math

    import torch

    radius = torch.linspace(-math.pi, math.pi, SPOKE_POINTS + 1)[:-1]
    angles = torch.arange(SPOKES) * math.pi / SPOKES
    kx = (radius[None, :] * torch.cos(angles)[:, None]).reshape(-1)
    ky = (radius[None, :] * torch.sin(angles)[:, None]).reshape(-1)
    return torch.stack((kx, ky))


def _omega(batched: bool) -> Any:
    """The radial trajectory, or one random trajectory per image (``BATCH`` x 2 x ``KLENGTH``)."""
    import math

    import torch

    if not batched:
        return _radial()
    return torch.rand(BATCH, 2, KLENGTH, generator=_gen(7)) * 2 * math.pi - math.pi


def _complex(*shape: int, seed: int) -> Any:
    import torch

    return torch.complex(torch.randn(*shape, generator=_gen(seed)), torch.randn(*shape, generator=_gen(seed + 100)))


def _layer(name: str) -> Built:
    import torch
    import torchkbnufft as tkbn

    cls, keywords, options = LAYERS[name]
    batched = "batched" in options
    n = BATCH if batched else 1
    coils = COILS if ("smaps" in options or "shared_smaps" in options) else 1
    omega = _omega(batched)
    real = "real" in options

    def as_input(t: Any) -> Any:
        return torch.view_as_real(t).contiguous() if real else t

    call: dict[str, Any] = {}
    if "smaps" in options:
        call["smaps"] = as_input(_complex(n, COILS, *IM_SIZE, seed=5))
    if "ortho" in options:
        call["norm"] = "ortho"
    image = _complex(n, coils, *IM_SIZE, seed=1)
    if cls == "ToepNufft":
        # density weights of shape (1, klength): the (1, 1, klength) coefficients without the coil axis
        weights = tkbn.calc_density_compensation_function(omega, IM_SIZE, num_iterations=4)[0] \
            if "weights" in options else None
        kernel = tkbn.calc_toeplitz_kernel(omega, IM_SIZE, weights=weights, norm=call.get("norm"))
        if "shared_smaps" in options:
            call["smaps"] = _complex(1, COILS, *IM_SIZE, seed=5)
            image = _complex(n, 1, *IM_SIZE, seed=1)
        elif "smaps" in options:
            image = _complex(n, 1, *IM_SIZE, seed=1)
        if real:
            kernel = torch.view_as_real(kernel).contiguous()
        return tkbn.ToepNufft(), (as_input(image), kernel), call
    layer = getattr(tkbn, cls)(im_size=IM_SIZE, **keywords)
    if "spmat" in options:
        call["interp_mats"] = tkbn.calc_tensor_spmatrix(omega, im_size=IM_SIZE, **keywords)
    grid = keywords.get("grid_size", tuple(2 * s for s in IM_SIZE))
    if cls == "KbNufft":
        data = image
    elif cls == "KbNufftAdjoint":
        data = _complex(n, coils, KLENGTH, seed=2)
    elif cls == "KbInterp":
        data = _complex(n, coils, *grid, seed=3)
    else:
        data = _complex(n, coils, KLENGTH, seed=2)
    return layer, (as_input(data), omega), call


def _precompute(name: str) -> Built:
    import torchkbnufft as tkbn

    from gt_calls import Call

    function, keywords, batched, weighted = PRECOMPUTE[name]
    omega = _omega(batched)
    static = dict(keywords, im_size=IM_SIZE)
    if weighted:
        static["weights"] = tkbn.calc_density_compensation_function(omega, IM_SIZE, num_iterations=4)[0]
    return Call(getattr(tkbn, function), **static), (omega,), {}


def _functional(name: str) -> Built:
    import torch
    import torchkbnufft as tkbn
    import torchkbnufft.functional as tkbnF
    from torch import nn

    omega = _radial()
    nufft = tkbn.KbNufft(im_size=IM_SIZE)
    function = getattr(tkbnF, name)
    interp_mats = tkbn.calc_tensor_spmatrix(omega, im_size=IM_SIZE)
    grid = tuple(2 * s for s in IM_SIZE)
    if name == "fft_filter":
        kernel = tkbn.calc_toeplitz_kernel(omega, IM_SIZE)
        from gt_calls import Call

        return Call(function, norm=None), (_complex(1, 1, *IM_SIZE, seed=1), kernel), {}
    if name.endswith("_adjoint"):
        data = _complex(1, 1, KLENGTH, seed=2)
    elif "interp" in name:
        data = _complex(1, 1, *grid, seed=3)
    else:
        data = _complex(1, 1, *IM_SIZE, seed=1)

    class Functional(nn.Module):
        """One ``torchkbnufft.functional`` function fed the buffers a layer precomputed for these sizes."""

        def __init__(self) -> None:
            super().__init__()
            self.nufft = nufft

        def forward(self, x: torch.Tensor, omega: torch.Tensor, mats: tuple[torch.Tensor, torch.Tensor]) -> Any:
            ob = self.nufft
            tables = [getattr(ob, f"table_{i}") for i in range(len(IM_SIZE))]
            table = {"omega": omega, "tables": tables, "n_shift": ob.n_shift, "numpoints": ob.numpoints,
                     "table_oversamp": ob.table_oversamp, "offsets": ob.offsets.to(torch.long)}
            scaling = {"scaling_coef": ob.scaling_coef, "im_size": ob.im_size, "grid_size": ob.grid_size}
            if name == "kb_table_nufft" or name == "kb_table_nufft_adjoint":
                return function(x, **scaling, **table)
            if name == "kb_table_interp":
                return function(x, **table)
            if name == "kb_table_interp_adjoint":
                return function(x, **table, grid_size=ob.grid_size)
            if name == "kb_spmat_nufft" or name == "kb_spmat_nufft_adjoint":
                return function(x, **scaling, interp_mats=mats)
            if name == "kb_spmat_interp":
                return function(x, interp_mats=mats)
            return function(x, interp_mats=mats, grid_size=ob.grid_size)

        def entry_points(self) -> list[Any]:
            return [function]

    return Functional(), (data, omega, interp_mats), {}


def _math(name: str) -> Built:
    import torch
    import torchkbnufft as tkbn

    from gt_calls import Call

    a = torch.randn(3, 4, 2, generator=_gen(1))
    b = torch.randn(3, 4, 2, generator=_gen(2))
    if name == "imag_exp":
        return Call(tkbn.imag_exp, return_complex=False), (torch.randn(3, 4, generator=_gen(3)),), {}
    if name in ("absolute", "complex_sign"):
        return Call(getattr(tkbn, name)), (a,), {}
    return Call(getattr(tkbn, name)), (a, b), {}


def _recon(name: str) -> Built:
    import torch
    import torchkbnufft as tkbn
    from torch import nn

    omega = _radial()
    image = _complex(1, 1, *IM_SIZE, seed=1)
    kdata = _complex(1, 1, KLENGTH, seed=2)
    dcomp = tkbn.calc_density_compensation_function(omega, IM_SIZE, num_iterations=4)

    class DataConsistency(nn.Module):
        """One unrolled gradient step on ``|A x - y|^2`` with a learned step size and density weights."""

        def __init__(self) -> None:
            super().__init__()
            self.forward_op = tkbn.KbNufft(im_size=IM_SIZE)
            self.adjoint_op = tkbn.KbNufftAdjoint(im_size=IM_SIZE)
            self.step = nn.Parameter(torch.tensor(0.5))
            self.register_buffer("dcomp", dcomp)

        def forward(self, x: torch.Tensor, y: torch.Tensor, omega: torch.Tensor) -> torch.Tensor:
            residual = self.forward_op(x, omega) - y
            return x - self.step * self.adjoint_op(residual * self.dcomp, omega)

        def entry_points(self) -> list[Any]:
            return [tkbn.KbNufft, tkbn.KbNufftAdjoint]

    class AdjointRefine(nn.Module):
        """The density-compensated adjoint NUFFT, then a small convolution on its real and imaginary channels."""

        def __init__(self) -> None:
            super().__init__()
            self.adjoint_op = tkbn.KbNufftAdjoint(im_size=IM_SIZE)
            self.refine = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 2, 3, padding=1))
            self.register_buffer("dcomp", dcomp)

        def forward(self, y: torch.Tensor, omega: torch.Tensor) -> torch.Tensor:
            x = self.adjoint_op(y * self.dcomp, omega)  # complex, 1 x 1 x 8 x 8
            x = torch.view_as_real(x[:, 0]).permute(0, 3, 1, 2)
            return self.refine(x)

        def entry_points(self) -> list[Any]:
            return [tkbn.KbNufftAdjoint]

    if name == "data_consistency_step":
        return DataConsistency(), (image, kdata, omega), {}
    return AdjointRefine(), (kdata, omega), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LAYERS:
        return _layer(name)
    if name in PRECOMPUTE:
        return _precompute(name)
    if name.startswith("functional."):
        return _functional(name.split(".", 1)[1])
    if name.startswith("math."):
        return _math(name.split(".", 1)[1])
    return _recon(name)
