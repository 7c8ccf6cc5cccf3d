"""Ground-truth bench, kymatio: wavelet scattering transforms of kymatio 0.3.0's torch frontend on tiny signals.

kymatio computes scattering transforms: cascades of wavelet convolutions (done in the Fourier domain,
on complex tensors stored as a trailing axis of two reals), complex moduli and low-pass averaging.
Its torch frontend (``kymatio.torch``) gives ``nn.Module``s whose filters are built with numpy at
construction and kept as buffers; users put them first in a network or call them on a batch
(``S = Scattering2D(J=2, shape=(32, 32)); Sx = S(x)``). Each transform runs through a core function
(``scattering1d``, ``scattering2d``, ``scattering3d``) that calls the backend's operations. So each
model of the tables is one of:

- ``SCATTERING_1D``: ``Scattering1D`` (``ScatteringTorch1D``) on signals of 64 samples (128 where
  ``J=5``), batch 2, with the options that change its code: ``Q`` as an int and as a pair, ``max_order=1``,
  ``T`` (a shorter averaging support, the whole signal, or ``T=0`` for unaveraged coefficients), the
  deprecated ``average=False``, ``out_type`` ``'array'``, ``'dict'`` and ``'list'``, ``oversampling``,
  and inputs with two batch axes or none;
- ``SCATTERING_2D``: ``Scattering2D`` (``ScatteringTorch2D``) on 16 x 16 images (8 x 8 where the padding
  equals the image size and the frontend's ``Pad`` concatenates the reflected border itself, 16 x 24
  where the image is not square), batch 2: ``J``, ``L``, ``max_order=1``, ``out_type='list'``,
  ``pre_pad=True`` (the input given at the padded size), two batch axes or none;
- ``HARMONIC_3D``: ``HarmonicScattering3D`` on 8 x 8 x 8 volumes, batch 2: ``J``, ``L``, ``max_order``,
  ``rotation_covariant=False``, other ``integral_powers``, two batch axes;
- ``TRAIN``: bench training steps as kymatio's examples build them: a 1-D scattering, its log and a linear
  classifier (the spoken-digit example), and a 2-D scattering followed by batch norm, a convolution and a
  linear layer (the CIFAR "hybrid" example), each returning its cross-entropy loss;
- ``METHODS``: the frontends' ``meta()`` and ``output_size()`` (numpy bookkeeping) through
  ``gt_calls.Method``;
- ``FUNCTIONS``: kymatio's functions through ``gt_calls.Call`` with fixed keywords: the core functions
  (``scattering1d``, ``scattering2d``, ``scattering3d``, given a frontend's filters); the torch
  backends' operations: the shared ones (``modulus``, on a tensor that requires grad too, for the
  ``ModulusStable`` autograd function; ``cdgmm`` with a real and a complex filter; ``concatenate``),
  the 1-D backend's (``subsample_fourier``, ``pad``, ``unpad``, ``rfft``, ``irfft``, ``ifft``), the 2-D
  backend's (``subsample_fourier``, ``Pad`` with and without its border fix,
  ``unpad``, ``rfft``, ``irfft``, ``concatenate``) and the 3-D backend's (``rfft``, ``ifft``,
  ``cdgmm3d``, ``modulus_rotation`` first and accumulating, ``compute_integrals``, ``concatenate``);
  and the filter helpers, numpy code that users call to inspect filters: scattering2d's
  (``utils.compute_padding``, ``filter_bank``, ``periodize_filter_fft``, ``morlet_2d``, ``gabor_2d``)
  and three of scattering1d's (``gauss_1d``, ``periodize_filter_fourier``, ``compute_temporal_support``).

SciPy 1.17 removed ``scipy.special.sph_harm``, which kymatio's 3-D filter bank imports (and
``kymatio.torch`` imports the 3-D frontend): ``build`` gives it back, as ``sph_harm_y`` with the old
argument order, before anything of kymatio's frontends is imported. The CUDA backends
(``torch_skcuda``) need scikit-cuda and a GPU, so no model uses them; the entry classes
(``kymatio.Scattering1D(..., frontend='torch')``) turn into the same torch classes at construction, so
none is built that way. Filters are computed, never downloaded. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, LENGTH, SIDE, CUBE, CLASSES = 2, 64, 16, 8, 3

# Model name -> (constructor keywords, input shape).
SCATTERING_1D: dict[str, tuple[dict[str, Any], tuple[int, ...]]] = {
    "Scattering1D": ({"J": 3, "shape": LENGTH}, (BATCH, LENGTH)),
    "Scattering1D.Q4": ({"J": 3, "shape": LENGTH, "Q": 4}, (BATCH, LENGTH)),
    "Scattering1D.Q4_2": ({"J": 3, "shape": LENGTH, "Q": (4, 2)}, (BATCH, LENGTH)),
    "Scattering1D.max_order1": ({"J": 3, "shape": LENGTH, "Q": 2, "max_order": 1}, (BATCH, LENGTH)),
    "Scattering1D.T16": ({"J": 3, "shape": LENGTH, "T": 16}, (BATCH, LENGTH)),
    "Scattering1D.T_global": ({"J": 4, "shape": LENGTH, "T": LENGTH}, (BATCH, LENGTH)),
    "Scattering1D.T0.list": ({"J": 3, "shape": LENGTH, "T": 0, "average": False, "out_type": "list"},
                             (BATCH, LENGTH)),
    "Scattering1D.average_false.dict": ({"J": 3, "shape": LENGTH, "average": False, "out_type": "dict"},
                                        (BATCH, LENGTH)),
    "Scattering1D.dict": ({"J": 3, "shape": LENGTH, "out_type": "dict"}, (BATCH, LENGTH)),
    "Scattering1D.list": ({"J": 3, "shape": LENGTH, "out_type": "list"}, (BATCH, LENGTH)),
    "Scattering1D.oversampling1": ({"J": 3, "shape": LENGTH, "oversampling": 1}, (BATCH, LENGTH)),
    "Scattering1D.oversampling2.max_order1": ({"J": 3, "shape": LENGTH, "oversampling": 2, "max_order": 1},
                                              (BATCH, LENGTH)),
    "Scattering1D.batch_dims": ({"J": 3, "shape": LENGTH}, (BATCH, 3, LENGTH)),
    "Scattering1D.unbatched": ({"J": 3, "shape": LENGTH}, (LENGTH,)),
    "Scattering1D.J5": ({"J": 5, "shape": 2 * LENGTH, "Q": 2}, (BATCH, 2 * LENGTH)),
}
SCATTERING_2D: dict[str, tuple[dict[str, Any], tuple[int, ...]]] = {
    "Scattering2D": ({"J": 2, "shape": (SIDE, SIDE), "L": 4}, (BATCH, SIDE, SIDE)),
    "Scattering2D.L8": ({"J": 2, "shape": (SIDE, SIDE)}, (BATCH, SIDE, SIDE)),
    "Scattering2D.max_order1": ({"J": 2, "shape": (SIDE, SIDE), "L": 4, "max_order": 1}, (BATCH, SIDE, SIDE)),
    "Scattering2D.list": ({"J": 2, "shape": (SIDE, SIDE), "L": 4, "out_type": "list"}, (BATCH, SIDE, SIDE)),
    # pre_pad: the input is given at the padded size, (16 + 4) // 4 + 1 = 6 times 4 = 24 pixels a side
    "Scattering2D.pre_pad": ({"J": 2, "shape": (SIDE, SIDE), "L": 4, "pre_pad": True}, (BATCH, 24, 24)),
    "Scattering2D.non_square": ({"J": 2, "shape": (SIDE, 24), "L": 4}, (BATCH, SIDE, 24)),
    # 8 x 8 with J=3: padded to 24, so 8 pixels a side, the image's own size: ``Pad``'s border fix
    "Scattering2D.J3.pad_fix": ({"J": 3, "shape": (8, 8), "L": 2}, (BATCH, 8, 8)),
    "Scattering2D.batch_dims": ({"J": 2, "shape": (SIDE, SIDE), "L": 4}, (BATCH, 3, SIDE, SIDE)),
    "Scattering2D.unbatched": ({"J": 2, "shape": (SIDE, SIDE), "L": 4}, (SIDE, SIDE)),
}
HARMONIC_3D: dict[str, tuple[dict[str, Any], tuple[int, ...]]] = {
    "HarmonicScattering3D": ({"J": 1, "shape": (CUBE,) * 3, "L": 1}, (BATCH, CUBE, CUBE, CUBE)),
    "HarmonicScattering3D.J2_L2": ({"J": 2, "shape": (CUBE,) * 3, "L": 2}, (BATCH, CUBE, CUBE, CUBE)),
    "HarmonicScattering3D.max_order1": ({"J": 2, "shape": (CUBE,) * 3, "L": 1, "max_order": 1},
                                        (BATCH, CUBE, CUBE, CUBE)),
    "HarmonicScattering3D.not_rotation_covariant": ({"J": 1, "shape": (CUBE,) * 3, "L": 2,
                                                     "rotation_covariant": False}, (BATCH, CUBE, CUBE, CUBE)),
    "HarmonicScattering3D.integral_powers": ({"J": 1, "shape": (CUBE,) * 3, "L": 1, "sigma_0": 0.8,
                                             "integral_powers": (1.0, 2.0)}, (BATCH, CUBE, CUBE, CUBE)),
    "HarmonicScattering3D.batch_dims": ({"J": 1, "shape": (CUBE,) * 3, "L": 1}, (BATCH, 2, CUBE, CUBE, CUBE)),
}
TRAIN = ("train.Scattering1D.log.linear", "train.Scattering2D.hybrid")
METHODS = ("Scattering1D.meta", "Scattering1D.output_size")
# Function name -> input kind; "helpers" are numpy code. Inputs are built in ``_function``.
FUNCTIONS = (
    "core.scattering1d", "core.scattering2d", "core.scattering3d",
    "backend.modulus", "backend.modulus.requires_grad", "backend.cdgmm.real", "backend.cdgmm.complex",
    "backend.concatenate",
    "backend1d.subsample_fourier", "backend1d.pad", "backend1d.unpad", "backend1d.rfft", "backend1d.irfft",
    "backend1d.ifft",
    "backend2d.subsample_fourier", "backend2d.Pad", "backend2d.Pad.border_fix", "backend2d.unpad", "backend2d.rfft",
    "backend2d.irfft", "backend2d.concatenate",
    "backend3d.rfft", "backend3d.ifft", "backend3d.cdgmm3d", "backend3d.modulus_rotation",
    "backend3d.modulus_rotation.accumulate", "backend3d.compute_integrals", "backend3d.concatenate",
    "scattering2d.compute_padding", "scattering2d.filter_bank", "scattering2d.periodize_filter_fft",
    "scattering2d.morlet_2d", "scattering2d.gabor_2d",
    "scattering1d.gauss_1d", "scattering1d.periodize_filter_fourier", "scattering1d.compute_temporal_support",
)


def names() -> list[str]:
    return [*SCATTERING_1D, *SCATTERING_2D, *HARMONIC_3D, *TRAIN, *METHODS, *FUNCTIONS]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _transform(name: str) -> Any:
    from kymatio.torch import HarmonicScattering3D, Scattering1D, Scattering2D

    for table, cls in ((SCATTERING_1D, Scattering1D), (SCATTERING_2D, Scattering2D), (HARMONIC_3D,
                                                                                      HarmonicScattering3D)):
        if name in table:
            return cls(**table[name][0])
    raise KeyError(name)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    if name == "train.Scattering1D.log.linear":
        scattering = _transform("Scattering1D.Q4")
        x = _randn(BATCH * 2, LENGTH)
        with torch.no_grad():
            channels = scattering(x[:1]).shape[1] - 1  # first and second orders, as the example keeps

        class Classifier(nn.Module):
            """kymatio's spoken-digit example: log-scattering (orders 1 and 2), averaged in time, a linear layer."""

            def __init__(self) -> None:
                super().__init__()
                self.scattering = scattering
                self.linear = nn.Linear(channels, CLASSES)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                sx = self.scattering(x)[:, 1:, :]
                sx = torch.log(torch.abs(sx) + 1e-6).mean(dim=-1)
                return self.linear(sx)
    else:
        scattering = _transform("Scattering2D")
        x = _randn(BATCH * 2, 3, SIDE, SIDE)
        with torch.no_grad():
            channels = 3 * scattering(x[:1]).shape[2]

        class Classifier(nn.Module):  # type: ignore[no-redef]
            """kymatio's CIFAR hybrid example, shrunk: scattering of each colour channel, batch norm, a
            convolution, pooling and a linear layer."""

            def __init__(self) -> None:
                super().__init__()
                self.scattering = scattering
                self.bn = nn.BatchNorm2d(channels)
                self.conv = nn.Conv2d(channels, 8, 3, padding=1)
                self.linear = nn.Linear(8, CLASSES)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                sx = self.scattering(x)
                sx = sx.view(x.shape[0], -1, sx.shape[-2], sx.shape[-1])
                h = F.relu(self.conv(self.bn(sx)))
                return self.linear(h.mean(dim=(2, 3)))

    model = Classifier()

    class _Step(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            return F.cross_entropy(self.model(x), labels)

        def entry_points(self) -> list[Any]:
            return [type(scattering)]

    labels = torch.randint(0, CLASSES, (x.shape[0],), generator=torch.Generator().manual_seed(2))
    return _Step(), (x, labels), {}


def _function(name: str) -> Built:
    import numpy as np
    from kymatio.backend.torch_backend import TorchBackend
    from kymatio.scattering1d import filter_bank as fb1d
    from kymatio.scattering1d.backend.torch_backend import backend as b1d
    from kymatio.scattering1d.core.scattering1d import scattering1d
    from kymatio.scattering2d import filter_bank as fb2d
    from kymatio.scattering2d import utils as utils2d
    from kymatio.scattering2d.backend.torch_backend import backend as b2d
    from kymatio.scattering2d.core.scattering2d import scattering2d
    from kymatio.scattering3d.backend.torch_backend import backend as b3d
    from kymatio.scattering3d.core.scattering3d import scattering3d

    from gt_calls import Call

    complex_1d = _randn(BATCH, 1, LENGTH, 2)
    real_1d = _randn(BATCH, 1, LENGTH, 1)
    complex_2d = _randn(BATCH, SIDE, SIDE, 2)
    real_2d = _randn(BATCH, SIDE, SIDE, 1)
    complex_3d = _randn(BATCH, CUBE, CUBE, CUBE, 2)
    real_3d = _randn(BATCH, CUBE, CUBE, CUBE, 1)
    if name == "core.scattering1d":
        s = _transform("Scattering1D")
        s.load_filters()
        return Call(scattering1d, backend=s.backend, psi1=s.psi1_f, psi2=s.psi2_f, phi=s.phi_f,
                    pad_left=s.pad_left, pad_right=s.pad_right, ind_start=s.ind_start, ind_end=s.ind_end,
                    oversampling=0, max_order=2, average=True), (_randn(BATCH, 1, LENGTH),), {}
    if name == "core.scattering2d":
        s = _transform("Scattering2D")
        phi, psi = s.load_filters()
        return Call(scattering2d, pad=s.pad, unpad=s.unpad, backend=s.backend, J=s.J, L=s.L, phi=phi, psi=psi,
                    max_order=2, out_type="array"), (_randn(BATCH, SIDE, SIDE),), {}
    if name == "core.scattering3d":
        s = _transform("HarmonicScattering3D")
        powers = s.integral_powers
        return Call(scattering3d, filters=s.filters, rotation_covariant=True, L=s.L, J=s.J, max_order=2,
                    backend=s.backend, averaging=lambda x: b3d.compute_integrals(x, powers)), (real_3d,), {}
    table: dict[str, tuple[Any, tuple[Any, ...], dict[str, Any]]] = {
        "backend.modulus": (TorchBackend.modulus, (complex_1d,), {}),
        "backend.modulus.requires_grad": (TorchBackend.modulus, (complex_1d.clone().requires_grad_(True),), {}),
        "backend.cdgmm.real": (TorchBackend.cdgmm, (complex_1d, _randn(LENGTH, 1, seed=2)), {}),
        "backend.cdgmm.complex": (TorchBackend.cdgmm, (complex_2d, _randn(SIDE, SIDE, 2, seed=2)), {}),
        "backend.concatenate": (TorchBackend.concatenate, ([real_1d[..., 0], real_1d[..., 0] * 2],), {}),
        "backend1d.subsample_fourier": (b1d.subsample_fourier, (complex_1d,), {"k": 4}),
        "backend1d.pad": (b1d.pad, (_randn(BATCH, 1, LENGTH),), {"pad_left": 16, "pad_right": 16}),
        "backend1d.unpad": (b1d.unpad, (real_1d,), {"i0": 8, "i1": 40}),
        "backend1d.rfft": (b1d.rfft, (real_1d,), {}),
        "backend1d.irfft": (b1d.irfft, (complex_1d,), {}),
        "backend1d.ifft": (b1d.ifft, (complex_1d,), {}),
        "backend2d.subsample_fourier": (b2d.subsample_fourier, (complex_2d,), {"k": 2}),
        "backend2d.Pad": (b2d.Pad([4, 4, 4, 4], [SIDE, SIDE]).__call__, (_randn(BATCH, SIDE, SIDE),), {}),
        "backend2d.Pad.border_fix": (b2d.Pad([8, 8, 8, 8], [8, 8]).__call__, (_randn(BATCH, 8, 8),), {}),
        "backend2d.unpad": (b2d.unpad, (real_2d,), {}),
        "backend2d.rfft": (b2d.rfft, (real_2d,), {}),
        "backend2d.irfft": (b2d.irfft, (complex_2d,), {}),
        "backend2d.concatenate": (b2d.concatenate, ([real_2d[..., 0], real_2d[..., 0] + 1],), {}),
        "backend3d.rfft": (b3d.rfft, (real_3d,), {}),
        "backend3d.ifft": (b3d.ifft, (complex_3d,), {}),
        "backend3d.cdgmm3d": (b3d.cdgmm3d, (complex_3d, _randn(CUBE, CUBE, CUBE, 2, seed=2)), {}),
        "backend3d.modulus_rotation": (b3d.modulus_rotation, (complex_3d,), {}),
        "backend3d.modulus_rotation.accumulate": (b3d.modulus_rotation, (complex_3d, real_3d.abs()), {}),
        "backend3d.compute_integrals": (b3d.compute_integrals, (real_3d.abs(),),
                                        {"integral_powers": (0.5, 1.0, 2.0)}),
        "backend3d.concatenate": (b3d.concatenate, ([_randn(BATCH, 3, seed=s) for s in range(4)],), {"L": 1}),
        "scattering2d.compute_padding": (utils2d.compute_padding, (), {"M": SIDE, "N": 24, "J": 2}),
        "scattering2d.filter_bank": (fb2d.filter_bank, (), {"M": 8, "N": 8, "J": 1, "L": 2}),
        "scattering2d.periodize_filter_fft": (fb2d.periodize_filter_fft,
                                              (np.random.default_rng(0).standard_normal((8, 8)),), {"res": 1}),
        "scattering2d.morlet_2d": (fb2d.morlet_2d, (), {"M": 8, "N": 8, "sigma": 0.8, "theta": 0.5, "xi": 2.0}),
        "scattering2d.gabor_2d": (fb2d.gabor_2d, (), {"M": 8, "N": 8, "sigma": 1.6, "theta": 0.0, "xi": 0.0}),
        "scattering1d.gauss_1d": (fb1d.gauss_1d, (), {"N": LENGTH, "sigma": 0.05}),
        "scattering1d.periodize_filter_fourier": (fb1d.periodize_filter_fourier,
                                                  (np.random.default_rng(1).standard_normal(3 * LENGTH),),
                                                  {"nperiods": 3}),
        "scattering1d.compute_temporal_support": (fb1d.compute_temporal_support,
                                                  (fb1d.gauss_1d(LENGTH, 0.05).reshape(1, -1),), {}),
    }
    function, args, static = table[name]
    return Call(function, **static), args, {}


def _scipy_sph_harm() -> None:
    """Give ``scipy.special`` back ``sph_harm``, which SciPy 1.17 removed (its successor ``sph_harm_y`` takes the
    degree first and the polar angle before the azimuthal one): kymatio's 3-D filter bank imports the old name,
    and ``kymatio.torch`` imports the 3-D frontend. Only the constructor's numpy filters use it."""
    import scipy.special

    if not hasattr(scipy.special, "sph_harm"):
        def sph_harm(m: Any, n: Any, theta: Any, phi: Any) -> Any:  # theta azimuthal, phi polar
            return scipy.special.sph_harm_y(n, m, phi, theta)

        scipy.special.sph_harm = sph_harm


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    _scipy_sph_harm()
    if name in TRAIN:
        return _train(name)
    if name in METHODS:
        from gt_calls import Method

        return Method(_transform("Scattering1D.Q4"), name.split(".")[1]), (), {}
    if name in FUNCTIONS:
        return _function(name)
    shape = {**SCATTERING_1D, **SCATTERING_2D, **HARMONIC_3D}[name][1]
    return _transform(name), (_randn(*shape),), {}
