"""Ground-truth bench, ptwt (PyTorch Wavelet Toolbox): fast, matrix, continuous, packet and stationary transforms.

ptwt ports PyWavelets' transforms to PyTorch: it reads the filters of a ``pywt.Wavelet`` (or of any object with a
``filter_bank``, such as its learnable wavelets), pads the signal according to a boundary mode and convolves with
strided 1-D, 2-D or 3-D convolutions, or multiplies by sparse transform matrices built with boundary wavelets.
Users call its functions (and the objects' ``__call__``) on batches of signals, images or volumes, so each model
is one such call compiled through ``gt_calls.Call`` or a small bench module. The tables cover, on signals of
length 32, 16 x 16 images and 8 x 8 x 8 volumes:

- ``FWT``: the convolution transforms ``wavedec`` / ``waverec`` (1-D), ``wavedec2`` / ``waverec2`` (2-D) and
  ``wavedec3`` / ``waverec3`` (3-D) with several wavelets (Haar, Daubechies, symlets, coiflets, biorthogonal)
  and each padding mode (zero, reflect, periodic, symmetric, constant), other axes than the last ones, an
  explicit level, and the fully separable variants ``fswavedec2`` / ``fswaverec2`` and ``fswavedec3`` /
  ``fswaverec3``, and the stationary transform ``swt`` / ``iswt``; the inverse transforms get the
  coefficients of an eager forward transform;
- ``MATRIX``: the sparse-matrix transforms ``MatrixWavedec`` / ``MatrixWaverec`` (QR and Gram-Schmidt
  orthogonalisation of the boundary filters, odd-length padding), ``MatrixWavedec2`` / ``MatrixWaverec2``
  (separable and not) and ``MatrixWavedec3`` / ``MatrixWaverec3``; each object is called twice by the
  harness, so its first call builds (and the second reuses) its transform matrices;
- ``CWT``: the continuous transform ``cwt`` with the Mexican hat and Morlet wavelets, scales as an array
  or a tensor, and the differentiable Shannon and complex Morlet wavelets whose bandwidth and centre are
  parameters;
- ``PACKETS``: ``WaveletPacket`` and ``WaveletPacket2D`` built in the forward and expanded to a level
  (frequency and natural order, padding modes, the matrix ``boundary`` mode in 1-D, separable 2-D packets),
  and their ``reconstruct`` after a change of the leaves;
- ``LEARNABLE``: ``ProductFilter`` and ``SoftOrthogonalWavelet`` as the wavelet of ``wavedec`` /
  ``waverec`` in a training step (the reconstruction error plus the wavelet's own ``wavelet_loss``).

Filters are PyWavelets' bundled ones, the data random; nothing downloaded. ``names()`` needs neither torch nor
ptwt; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Model name -> (function of ``ptwt``, input kind, fixed keywords). Input kinds: "1d" (2, 32), "1d_axis"
# (2, 32, 3) over axis 1, "2d" (2, 16, 16), "2d_axes" (2, 16, 16, 3) over axes (1, 2), "3d" (2, 8, 8, 8),
# "3d_axes" (2, 8, 8, 8, 2) over axes (1, 2, 3); "coeffs:<forward model>" the eager output of that model.
FWT: dict[str, tuple[str, str, dict[str, Any]]] = {
    "wavedec.haar.reflect": ("wavedec", "1d", {"wavelet": "haar"}),
    "wavedec.db2.zero": ("wavedec", "1d", {"wavelet": "db2", "mode": "zero", "level": 2}),
    "wavedec.db3.periodic": ("wavedec", "1d", {"wavelet": "db3", "mode": "periodic"}),
    "wavedec.sym4.symmetric": ("wavedec", "1d", {"wavelet": "sym4", "mode": "symmetric", "level": 2}),
    "wavedec.coif1.constant": ("wavedec", "1d", {"wavelet": "coif1", "mode": "constant"}),
    "wavedec.bior2.2.axis": ("wavedec", "1d_axis", {"wavelet": "bior2.2", "axis": 1, "level": 2}),
    "waverec.haar": ("waverec", "coeffs:wavedec.haar.reflect", {"wavelet": "haar"}),
    "waverec.bior2.2.axis": ("waverec", "coeffs:wavedec.bior2.2.axis", {"wavelet": "bior2.2", "axis": 1}),
    "wavedec2.haar.reflect": ("wavedec2", "2d", {"wavelet": "haar"}),
    "wavedec2.db2.zero": ("wavedec2", "2d", {"wavelet": "db2", "mode": "zero", "level": 2}),
    "wavedec2.db2.periodic": ("wavedec2", "2d", {"wavelet": "db2", "mode": "periodic", "level": 2}),
    "wavedec2.sym3.symmetric": ("wavedec2", "2d", {"wavelet": "sym3", "mode": "symmetric", "level": 1}),
    "wavedec2.haar.constant.axes": ("wavedec2", "2d_axes", {"wavelet": "haar", "mode": "constant",
                                                            "axes": (1, 2), "level": 2}),
    "waverec2.haar": ("waverec2", "coeffs:wavedec2.haar.reflect", {"wavelet": "haar"}),
    "fswavedec2.db2": ("fswavedec2", "2d", {"wavelet": "db2", "level": 2}),
    "fswaverec2.db2": ("fswaverec2", "coeffs:fswavedec2.db2", {"wavelet": "db2"}),
    "wavedec3.haar.zero": ("wavedec3", "3d", {"wavelet": "haar", "mode": "zero"}),
    "wavedec3.db2.reflect": ("wavedec3", "3d", {"wavelet": "db2", "level": 1}),
    "waverec3.haar": ("waverec3", "coeffs:wavedec3.haar.zero", {"wavelet": "haar"}),
    "fswavedec3.haar": ("fswavedec3", "3d", {"wavelet": "haar", "level": 2}),
    "fswaverec3.haar": ("fswaverec3", "coeffs:fswavedec3.haar", {"wavelet": "haar"}),
    "swt.haar": ("swt", "1d", {"wavelet": "haar", "level": 2}),
    "iswt.haar": ("iswt", "coeffs:swt.haar", {"wavelet": "haar"}),
}
# Model name -> (class of ``ptwt``, constructor keywords, input kind as in ``FWT``).
MATRIX: dict[str, tuple[str, dict[str, Any], str]] = {
    "MatrixWavedec.haar": ("MatrixWavedec", {"wavelet": "haar", "level": 2}, "1d"),
    "MatrixWavedec.db2.qr": ("MatrixWavedec", {"wavelet": "db2", "level": 2}, "1d"),
    "MatrixWavedec.db2.odd.reflect": ("MatrixWavedec", {"wavelet": "db2", "level": 2,
                                                        "odd_coeff_padding_mode": "reflect"}, "1d_odd"),
    "MatrixWaverec.haar": ("MatrixWaverec", {"wavelet": "haar"}, "coeffs:MatrixWavedec.haar"),
    "MatrixWaverec.db2.gramschmidt": ("MatrixWaverec", {"wavelet": "db2", "orthogonalization": "gramschmidt"},
                                      "coeffs:MatrixWavedec.db2.qr"),
    "MatrixWavedec2.haar.separable": ("MatrixWavedec2", {"wavelet": "haar", "level": 2}, "2d"),
    "MatrixWavedec2.db2.non_separable": ("MatrixWavedec2", {"wavelet": "db2", "level": 1, "separable": False},
                                         "2d"),
    "MatrixWaverec2.haar.separable": ("MatrixWaverec2", {"wavelet": "haar"}, "coeffs:MatrixWavedec2.haar.separable"),
    "MatrixWaverec2.db2.non_separable": ("MatrixWaverec2", {"wavelet": "db2", "separable": False},
                                         "coeffs:MatrixWavedec2.db2.non_separable"),
    "MatrixWavedec3.haar": ("MatrixWavedec3", {"wavelet": "haar", "level": 2}, "3d"),
    "MatrixWaverec3.haar": ("MatrixWaverec3", {"wavelet": "haar"}, "coeffs:MatrixWavedec3.haar"),
}
# Model name -> (wavelet name, differentiable, scales as a tensor).
CWT: dict[str, tuple[str, bool, bool]] = {
    "cwt.mexh": ("mexh", False, False),
    "cwt.morl.tensor_scales": ("morl", False, True),
    "cwt.shan.differentiable": ("shan1-1", True, False),
    "cwt.cmor.differentiable": ("cmor1.5-1.0", True, False),
}
# Model name -> (class, wavelet, constructor keywords, level, order or "reconstruct").
PACKETS: dict[str, tuple[str, str, dict[str, Any], int, str]] = {
    "WaveletPacket.freq": ("WaveletPacket", "db2", {}, 2, "freq"),
    "WaveletPacket.boundary": ("WaveletPacket", "db2", {"mode": "boundary"}, 2, "freq"),
    "WaveletPacket.reconstruct": ("WaveletPacket", "haar", {"mode": "periodic"}, 2, "reconstruct"),
    "WaveletPacket2D.freq": ("WaveletPacket2D", "haar", {}, 2, "freq"),
    "WaveletPacket2D.separable": ("WaveletPacket2D", "haar", {"separable": True}, 2, "natural"),
    "WaveletPacket2D.reconstruct": ("WaveletPacket2D", "haar", {"mode": "zero"}, 2, "reconstruct"),
}
# Model name -> learnable wavelet class of ``ptwt.wavelets_learnable`` (a wavedec / waverec training step).
LEARNABLE: dict[str, str] = {
    "ProductFilter.train_step": "ProductFilter",
    "SoftOrthogonalWavelet.train_step": "SoftOrthogonalWavelet",
}


def names() -> list[str]:
    return list(FWT) + list(MATRIX) + list(CWT) + list(PACKETS) + list(LEARNABLE)


def _data(kind: str) -> Any:
    import torch

    gen = torch.Generator().manual_seed(0)
    shapes = {"1d": (2, 32), "1d_odd": (2, 30), "1d_axis": (2, 32, 3), "2d": (2, 16, 16), "2d_axes": (2, 16, 16, 3),
              "3d": (2, 8, 8, 8), "3d_axes": (2, 8, 8, 8, 2)}
    return torch.randn(*shapes[kind], generator=gen)


def _inputs(kind: str) -> Any:
    """The input of a model: data of a kind, or the eager output of another model (its coefficients)."""
    if kind.startswith("coeffs:"):
        source = kind.removeprefix("coeffs:")
        module, args, kwargs = build(source)
        return module(*args, **kwargs)
    return _data(kind)


def _fwt(name: str) -> Built:
    import ptwt

    from gt_calls import Call

    function, kind, keywords = FWT[name]
    return Call(getattr(ptwt, function), **keywords), (_inputs(kind),), {}


def _matrix(name: str) -> Built:
    import ptwt
    from torch import nn

    cls, keywords, kind = MATRIX[name]
    transform = getattr(ptwt, cls)(**keywords)

    class Transform(nn.Module):
        """A ptwt matrix transform object called on the data (it builds its sparse matrices on first use). The
        detail dicts of coefficients are passed as copies: ``MatrixWaverec3`` writes into them."""

        def __init__(self) -> None:
            super().__init__()
            self.transform = transform

        def forward(self, data: Any) -> Any:
            if isinstance(data, (list, tuple)):
                data = type(data)(dict(c) if isinstance(c, dict) else c for c in data)
            return self.transform(data)

        def entry_points(self) -> list[Any]:
            return [type(self.transform).__call__]

    return Transform(), (_inputs(kind),), {}


def _cwt(name: str) -> Built:
    import numpy as np
    import ptwt
    import torch
    from ptwt.continuous_transform import _ComplexMorletWavelet, _ShannonWavelet

    from gt_calls import Call

    wavelet_name, differentiable, tensor_scales = CWT[name]
    wavelet: Any = wavelet_name
    if differentiable:
        wavelet = (_ShannonWavelet if wavelet_name.startswith("shan") else _ComplexMorletWavelet)(wavelet_name)
    scales: Any = np.arange(1, 5)
    if tensor_scales:
        scales = torch.arange(1, 5)
    model = Call(ptwt.cwt, scales=scales, wavelet=wavelet, precision=8)
    if differentiable:
        model.wavelet = wavelet  # registered as a submodule, so its parameters follow the model
    return model, (_data("1d"),), {}


def _packets(name: str) -> Built:
    import ptwt
    import torch
    from torch import nn

    cls, wavelet, keywords, level, order = PACKETS[name]
    packet_class = getattr(ptwt, cls)

    class Packets(nn.Module):
        """A wavelet packet tree built on the data, expanded to ``level``; its nodes in ``order``, or the
        reconstruction after the leaves are scaled."""

        def forward(self, data: torch.Tensor) -> Any:
            packets = packet_class(data, wavelet, maxlevel=level, **keywords)
            if order == "reconstruct":
                keys = packet_class.get_level(level, "natural")
                for key in keys:
                    packets[key] = packets[key] * 0.5
                packets.reconstruct()
                return packets[""]
            keys = packet_class.get_level(level, order)
            flat = [k for row in keys for k in row] if isinstance(keys[0], list) else keys
            return [packets[key] for key in flat]

        def entry_points(self) -> list[Any]:
            entered = [packet_class, packet_class.__getitem__]
            if order == "reconstruct":
                entered.append(packet_class.reconstruct)
            return entered

    return Packets(), (_data("2d" if cls == "WaveletPacket2D" else "1d"),), {}


def _learnable(name: str) -> Built:
    import ptwt
    import pywt
    import torch
    from ptwt import wavelets_learnable
    from torch import nn

    cls = LEARNABLE[name]
    filters = [torch.tensor(f, dtype=torch.float32) for f in pywt.Wavelet("db2").filter_bank]
    wavelet = getattr(wavelets_learnable, cls)(*filters)

    class Step(nn.Module):
        """A learnable wavelet's training step: decompose, reconstruct, the reconstruction error plus the
        wavelet's own loss."""

        def __init__(self) -> None:
            super().__init__()
            self.wavelet = wavelet

        def forward(self, data: torch.Tensor) -> torch.Tensor:
            coeffs = ptwt.wavedec(data, self.wavelet, mode="zero", level=2)
            rec = ptwt.waverec([c * 1.0 for c in coeffs], self.wavelet)
            return torch.mean((rec[..., :data.shape[-1]] - data) ** 2) + self.wavelet.wavelet_loss()

        def entry_points(self) -> list[Any]:
            return [ptwt.wavedec, ptwt.waverec, type(self.wavelet).wavelet_loss]

    return Step(), (_data("1d"),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in FWT:
        return _fwt(name)
    if name in MATRIX:
        return _matrix(name)
    if name in CWT:
        return _cwt(name)
    if name in PACKETS:
        return _packets(name)
    return _learnable(name)
