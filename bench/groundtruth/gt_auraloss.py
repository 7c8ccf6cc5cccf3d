"""Ground-truth bench, auraloss: every loss and filter of auraloss 0.4.0 on short random audio.

auraloss losses are ``nn.Module``\\ s that a training step of an audio model compiles with the model:
``loss = criterion(prediction, target)`` on batches of shape ``(batch, channels, samples)``. Each model
here is one module of ``LOSSES``, compiled whole, at its defaults or with options that take another
code path (after a dot in the name):

- ``auraloss.time``: ``ESRLoss``, ``DCLoss``, ``LogCoshLoss``, ``SNRLoss``, ``SISDRLoss`` and
  ``SDSDRLoss``, also without the zero-mean step and with other reductions;
- ``auraloss.freq``: ``SpectralConvergenceLoss`` and ``STFTMagnitudeLoss`` on magnitude spectrograms,
  ``STFTLoss`` (with the phase and linear terms, A-weighting, scale invariance, the ``full`` output,
  an L2 distance, another window, no reduction), ``MultiResolutionSTFTLoss``,
  ``RandomResolutionSTFTLoss`` (new random resolutions drawn in each forward, or only once) and
  ``SumAndDifferenceSTFTLoss`` on stereo audio;
- ``auraloss.perceptual``: ``SumAndDifference`` and ``FIRFilter`` with each filter type (high-pass,
  folded differentiator, A-weighting).

Audio is 4,096 samples at 16 kHz (two batch items, mono, or stereo for the sum-and-difference
modules; one item for the scale-invariant STFT loss, which only broadcasts its scale then), with FFT
sizes from 64 to 2,048 so that each frame fits. Left out: ``MelSTFTLoss``,
``ChromaSTFTLoss`` and the ``scale="mel"`` / ``"chroma"`` options, whose filter banks need librosa
(auraloss's ``[all]`` extra), which is not installed. Tables are plain data, so ``names()`` needs no
torch; ``build`` runs in a worker only, with NumPy's generator seeded for the random resolutions.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

SR, SAMPLES, BATCH = 16000, 4096, 2
RES = {"fft_sizes": [256, 512, 128], "hop_sizes": [64, 128, 32], "win_lengths": [256, 512, 128]}
STFT = {"fft_size": 256, "hop_size": 64, "win_length": 256}

# Model name -> (``area.Class`` of auraloss, constructor keywords, input kind). Input kinds: "mono"
# (prediction and target, ``(2, 1, 4096)``), "stereo" (``(2, 2, 4096)``), "magnitude" (two magnitude
# spectrograms, ``(2, 129, 65)``), "single_stereo" (one stereo signal), "mono_one" (a batch of one:
# the scale-invariant STFT loss broadcasts its per-item scale correctly only then).
LOSSES: dict[str, tuple[str, dict[str, Any], str]] = {
    # time domain
    "ESRLoss": ("time.ESRLoss", {}, "mono"),
    "ESRLoss.none": ("time.ESRLoss", {"reduction": "none"}, "mono"),
    "DCLoss": ("time.DCLoss", {}, "mono"),
    "DCLoss.sum": ("time.DCLoss", {"reduction": "sum"}, "mono"),
    "LogCoshLoss": ("time.LogCoshLoss", {}, "mono"),
    "LogCoshLoss.a": ("time.LogCoshLoss", {"a": 2.0, "reduction": "sum"}, "mono"),
    "SNRLoss": ("time.SNRLoss", {}, "mono"),
    "SNRLoss.no_zero_mean": ("time.SNRLoss", {"zero_mean": False, "reduction": "none"}, "mono"),
    "SISDRLoss": ("time.SISDRLoss", {}, "mono"),
    "SISDRLoss.no_zero_mean": ("time.SISDRLoss", {"zero_mean": False}, "mono"),
    "SDSDRLoss": ("time.SDSDRLoss", {}, "mono"),
    "SDSDRLoss.sum": ("time.SDSDRLoss", {"reduction": "sum"}, "mono"),
    # frequency domain
    "SpectralConvergenceLoss": ("freq.SpectralConvergenceLoss", {}, "magnitude"),
    "STFTMagnitudeLoss": ("freq.STFTMagnitudeLoss", {}, "magnitude"),
    "STFTMagnitudeLoss.linear_L2": ("freq.STFTMagnitudeLoss", {"log": False, "distance": "L2"}, "magnitude"),
    "STFTLoss": ("freq.STFTLoss", STFT, "mono"),
    "STFTLoss.phase_linear": ("freq.STFTLoss", {**STFT, "w_lin_mag": 1.0, "w_phs": 1.0}, "mono"),
    "STFTLoss.full": ("freq.STFTLoss", {**STFT, "w_phs": 0.5, "output": "full"}, "mono"),
    "STFTLoss.perceptual": ("freq.STFTLoss", {**STFT, "perceptual_weighting": True, "sample_rate": SR}, "mono"),
    "STFTLoss.scale_invariance": ("freq.STFTLoss", {**STFT, "scale_invariance": True}, "mono_one"),
    "STFTLoss.L2_none": ("freq.STFTLoss", {**STFT, "mag_distance": "L2", "reduction": "none"}, "mono"),
    "STFTLoss.blackman": ("freq.STFTLoss", {**STFT, "window": "blackman_window", "w_sc": 0.0}, "mono"),
    "STFTLoss.defaults": ("freq.STFTLoss", {}, "mono"),
    "MultiResolutionSTFTLoss": ("freq.MultiResolutionSTFTLoss", RES, "mono"),
    "MultiResolutionSTFTLoss.defaults": ("freq.MultiResolutionSTFTLoss", {}, "mono"),
    "MultiResolutionSTFTLoss.perceptual": ("freq.MultiResolutionSTFTLoss", {**RES, "perceptual_weighting": True,
                                                                           "sample_rate": SR}, "mono"),
    "MultiResolutionSTFTLoss.full": ("freq.MultiResolutionSTFTLoss", {**RES, "w_phs": 1.0, "output": "full"},
                                     "mono"),
    "MultiResolutionSTFTLoss.stereo": ("freq.MultiResolutionSTFTLoss", RES, "stereo"),
    "RandomResolutionSTFTLoss": ("freq.RandomResolutionSTFTLoss", {"resolutions": 3, "min_fft_size": 64,
                                                                   "max_fft_size": 1024}, "mono"),
    "RandomResolutionSTFTLoss.fixed": ("freq.RandomResolutionSTFTLoss", {"resolutions": 2, "min_fft_size": 64,
                                                                         "max_fft_size": 1024,
                                                                         "randomize_rate": 1000}, "mono"),
    "SumAndDifferenceSTFTLoss": ("freq.SumAndDifferenceSTFTLoss", RES, "stereo"),
    "SumAndDifferenceSTFTLoss.full": ("freq.SumAndDifferenceSTFTLoss", {**RES, "output": "full", "w_diff": 0.5},
                                      "stereo"),
    "SumAndDifferenceSTFTLoss.perceptual": ("freq.SumAndDifferenceSTFTLoss", {**RES, "perceptual_weighting": True,
                                                                             "sample_rate": SR}, "stereo"),
    # perceptual filters
    "SumAndDifference": ("perceptual.SumAndDifference", {}, "single_stereo"),
    "FIRFilter": ("perceptual.FIRFilter", {}, "mono"),
    "FIRFilter.fd": ("perceptual.FIRFilter", {"filter_type": "fd", "coef": 0.9}, "mono"),
    "FIRFilter.aw": ("perceptual.FIRFilter", {"filter_type": "aw", "fs": SR}, "mono"),
}


def names() -> list[str]:
    return list(LOSSES)


def inputs(kind: str) -> tuple[Any, ...]:
    """A prediction and its target (a noisy copy), or what the kind names; seeded."""
    import torch

    gen = torch.Generator().manual_seed(0)
    channels = 2 if "stereo" in kind else 1
    batch = 1 if kind == "mono_one" else BATCH
    t = torch.arange(SAMPLES) / SR
    target = torch.sin(2 * torch.pi * 440.0 * t).expand(batch, channels, SAMPLES) * 0.5
    target = target + 0.05 * torch.randn(batch, channels, SAMPLES, generator=gen)
    prediction = target + 0.1 * torch.randn(batch, channels, SAMPLES, generator=gen)
    if kind == "single_stereo":
        return (prediction,)
    if kind == "magnitude":  # magnitude spectrograms as STFTLoss computes them
        window = torch.hann_window(256)
        spec = [torch.stft(s.view(-1, SAMPLES), 256, 64, 256, window, return_complex=True).abs() + 1e-4
                for s in (prediction, target)]
        return tuple(spec)
    return prediction, target


def build(name: str) -> Built:
    import importlib

    import numpy as np

    np.random.seed(0)  # RandomResolutionSTFTLoss draws its resolutions from NumPy's global generator
    path, keywords, kind = LOSSES[name]
    area, cls = path.split(".")
    module = getattr(importlib.import_module(f"auraloss.{area}"), cls)(**keywords)
    return module, inputs(kind), {}
