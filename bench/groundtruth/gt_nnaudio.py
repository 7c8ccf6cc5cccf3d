"""Ground-truth bench, nnAudio: every spectrogram layer of ``nnAudio.features``, forward and inverse.

nnAudio computes spectrograms with convolutions inside ``nn.Module`` layers, so users put a layer in
front of their network and compile both: ``spec = layer(waveform)``. Each model here is one layer of
``LAYERS`` at a small configuration (8 kHz audio, FFT of 256, hop of 64, two or three octaves of
constant-Q bins), compiled on a batch of two waveforms of 4,096 samples:

- ``STFT`` in each output format (``Complex``, ``Magnitude``, ``Phase``), with the log and linear
  frequency scales, trainable kernels, constant padding and without centring;
- ``MelSpectrogram``, ``MFCC`` and ``Gammatonegram``, also with trainable filter banks;
- the constant-Q transforms ``CQT1992``, ``CQT2010``, ``CQT1992v2`` and ``CQT2010v2`` (with and
  without early downsampling), and the variable-Q ``VQT``, in each output format and with the other
  normalisations (``normalization_type`` at call time);
- ``CFP`` and ``Combined_Frequency_Periodicity`` (pitch features); their constructors call a SciPy
  window by a name SciPy 1.13 removed, which ``_scipy_windows`` restores before they are built.

The inverse paths (``INVERSES``) run on a spectrogram computed at build time: ``STFT.inverse``
(``iSTFT=True``), with an output length and with the cached window sum (``refresh_win=False``), the
``iSTFT`` layer on one-sided and full spectrograms. ``Griffin_Lim`` is left out: it passes a real
tensor to ``torch.istft``, which torch 2.13 refuses even without compiling.
Call-time options go through ``gt_calls.Method`` (bench code); a layer without them is compiled
whole. ``CQT`` is only an alias of ``CQT1992v2`` and is not built twice.
Tables are plain data, so ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

SR, SAMPLES, BATCH = 8000, 4096, 2
SPEC = {"sr": SR, "n_fft": 256, "hop_length": 64, "verbose": False}  # the short-time Fourier layers
CQ = {"sr": SR, "hop_length": 64, "fmin": 110.0, "n_bins": 24, "bins_per_octave": 12}  # constant-Q
CQ3 = {**CQ, "fmin": 55.0, "n_bins": 36}  # three octaves, for the octave-by-octave transforms

# Model name -> (class of ``nnAudio.features``, constructor keywords, call keywords). The name is the
# class, then a variant after a dot.
LAYERS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "STFT": ("STFT", SPEC, {}),
    "STFT.Magnitude": ("STFT", {**SPEC, "output_format": "Magnitude"}, {}),
    "STFT.Phase": ("STFT", {**SPEC, "output_format": "Phase"}, {}),
    "STFT.call_format": ("STFT", SPEC, {"output_format": "Magnitude"}),
    "STFT.log": ("STFT", {**SPEC, "freq_scale": "log", "fmin": 50, "fmax": 4000, "freq_bins": 64}, {}),
    "STFT.linear": ("STFT", {**SPEC, "freq_scale": "linear", "fmin": 50, "fmax": 4000, "freq_bins": 64}, {}),
    "STFT.log2": ("STFT", {**SPEC, "freq_scale": "log2", "fmin": 50, "fmax": 4000, "freq_bins": 64}, {}),
    "STFT.trainable": ("STFT", {**SPEC, "trainable": True, "output_format": "Magnitude"}, {}),
    "STFT.constant_pad": ("STFT", {**SPEC, "pad_mode": "constant"}, {}),
    "STFT.no_center": ("STFT", {**SPEC, "center": False}, {}),
    "MelSpectrogram": ("MelSpectrogram", {**SPEC, "n_mels": 32}, {}),
    "MelSpectrogram.trainable": ("MelSpectrogram", {**SPEC, "n_mels": 32, "trainable_mel": True,
                                                    "trainable_STFT": True}, {}),
    "MelSpectrogram.htk": ("MelSpectrogram", {**SPEC, "n_mels": 32, "htk": True, "power": 1.0}, {}),
    "MFCC": ("MFCC", {**SPEC, "n_mfcc": 13, "n_mels": 32}, {}),
    "MFCC.no_top_db": ("MFCC", {**SPEC, "n_mfcc": 13, "n_mels": 32, "top_db": None}, {}),
    "Gammatonegram": ("Gammatonegram", {**SPEC, "n_bins": 32}, {}),
    "Gammatonegram.trainable": ("Gammatonegram", {**SPEC, "n_bins": 32, "trainable_bins": True,
                                                  "trainable_STFT": True}, {}),
    "CQT1992": ("CQT1992", CQ, {}),
    "CQT1992.Complex": ("CQT1992", {**CQ, "output_format": "Complex"}, {}),
    "CQT1992.Phase": ("CQT1992", {**CQ, "output_format": "Phase"}, {}),
    "CQT1992.wrap": ("CQT1992", CQ, {"normalization_type": "wrap"}),
    "CQT2010": ("CQT2010", {**CQ3, "verbose": False}, {}),
    "CQT2010.Complex": ("CQT2010", {**CQ3, "verbose": False, "output_format": "Complex"}, {}),
    "CQT2010.no_earlydownsample": ("CQT2010", {**CQ3, "verbose": False, "earlydownsample": False}, {}),
    "CQT1992v2": ("CQT1992v2", {**CQ, "verbose": False}, {}),
    "CQT1992v2.Complex": ("CQT1992v2", {**CQ, "verbose": False, "output_format": "Complex"}, {}),
    "CQT1992v2.Phase": ("CQT1992v2", {**CQ, "verbose": False, "output_format": "Phase"}, {}),
    "CQT1992v2.trainable": ("CQT1992v2", {**CQ, "verbose": False, "trainable": True}, {}),
    "CQT1992v2.convolutional": ("CQT1992v2", {**CQ, "verbose": False}, {"normalization_type": "convolutional"}),
    "CQT1992v2.constant_pad": ("CQT1992v2", {**CQ, "verbose": False, "pad_mode": "constant"}, {}),
    "CQT2010v2": ("CQT2010v2", {**CQ3, "verbose": False}, {}),
    "CQT2010v2.Complex": ("CQT2010v2", {**CQ3, "verbose": False, "output_format": "Complex"}, {}),
    "CQT2010v2.Phase": ("CQT2010v2", {**CQ3, "verbose": False, "output_format": "Phase"}, {}),
    "CQT2010v2.trainable": ("CQT2010v2", {**CQ3, "verbose": False, "trainable": True}, {}),
    "CQT2010v2.no_earlydownsample": ("CQT2010v2", {**CQ3, "verbose": False, "earlydownsample": False}, {}),
    "CQT2010v2.wrap": ("CQT2010v2", {**CQ3, "verbose": False}, {"normalization_type": "wrap"}),
    "VQT": ("VQT", {**CQ3, "verbose": False, "gamma": 5.0}, {}),
    "VQT.gamma0": ("VQT", {**CQ3, "verbose": False}, {}),
    "VQT.Complex": ("VQT", {**CQ3, "verbose": False, "gamma": 5.0, "output_format": "Complex"}, {}),
    "VQT.Phase": ("VQT", {**CQ3, "verbose": False, "gamma": 5.0, "output_format": "Phase"}, {}),
    "VQT.no_earlydownsample": ("VQT", {**CQ3, "verbose": False, "gamma": 5.0, "earlydownsample": False}, {}),
    "CFP": ("CFP", {"fs": SR, "hop_length": 80, "window_size": 513, "fr": 8}, {}),
    "Combined_Frequency_Periodicity": ("Combined_Frequency_Periodicity",
                                       {"fs": SR, "hop_length": 80, "window_size": 513, "fr": 8}, {}),
}

# Inverse paths: model name -> (class, constructor keywords, the method called, call keywords, input).
# Inputs: "onesided" the complex STFT of the waveforms (n_fft // 2 + 1 bins), "full" all n_fft bins.
INVERSES: dict[str, tuple[str, dict[str, Any], str, dict[str, Any], str]] = {
    "STFT.inverse": ("STFT", {**SPEC, "iSTFT": True}, "inverse", {}, "onesided"),
    "STFT.inverse.length": ("STFT", {**SPEC, "iSTFT": True}, "inverse", {"length": SAMPLES}, "onesided"),
    "STFT.inverse.cached_window": ("STFT", {**SPEC, "iSTFT": True}, "inverse", {"refresh_win": False},
                                   "onesided"),
    "iSTFT": ("iSTFT", {**SPEC}, "forward", {"onesided": True}, "onesided"),
    "iSTFT.full": ("iSTFT", {**SPEC}, "forward", {"onesided": False, "length": SAMPLES}, "full"),
    "iSTFT.trainable": ("iSTFT", {**SPEC, "trainable_kernels": True, "trainable_window": True}, "forward",
                        {"onesided": True}, "onesided"),
}


def names() -> list[str]:
    return list(LAYERS) + list(INVERSES)


def waveforms() -> Any:
    """Two seeded waveforms: a few sinusoids under noise, ``(BATCH, SAMPLES)``."""
    import torch

    gen = torch.Generator().manual_seed(0)
    t = torch.arange(SAMPLES) / SR
    freqs = torch.tensor([[220.0], [440.0]]) * torch.tensor([1.0, 1.5, 2.0])[:, None, None]
    tones = torch.sin(2 * torch.pi * freqs * t).sum(0)
    return tones + 0.1 * torch.randn(BATCH, SAMPLES, generator=gen)


def _spectrogram(kind: str) -> Any:
    """The spectrogram an inverse takes, computed eagerly by an ``STFT`` layer."""
    import torch
    from nnAudio.features import STFT

    with torch.no_grad():
        return STFT(**SPEC, freq_bins=SPEC["n_fft"] if kind == "full" else None)(waveforms())


def _scipy_windows() -> None:
    """Give ``scipy.signal`` back the window functions that SciPy 1.13 removed from it (they live in
    ``scipy.signal.windows``): the CFP layers build their Blackman-Harris window from the old name in
    their constructor. Their forward does not touch SciPy."""
    import scipy.signal
    import scipy.signal.windows

    if not hasattr(scipy.signal, "blackmanharris"):
        scipy.signal.blackmanharris = scipy.signal.windows.blackmanharris


def build(name: str) -> Built:
    import nnAudio.features as features
    from gt_calls import Method

    if name in LAYERS:
        cls, keywords, call = LAYERS[name]
        if cls in ("CFP", "Combined_Frequency_Periodicity"):
            _scipy_windows()
        layer = getattr(features, cls)(**keywords)
        return (Method(layer, "forward", **call) if call else layer), (waveforms(),), {}
    cls, keywords, method, call, kind = INVERSES[name]
    layer = getattr(features, cls)(**keywords)
    spec = _spectrogram(kind)
    if call.get("refresh_win") is False:  # the window sum is cached by a first call, as in a loop over batches
        getattr(layer, method)(spec, **{**call, "refresh_win": True})
    return Method(layer, method, **call), (spec,), {}
