"""Ground-truth bench, julius: the DSP modules and functions of julius 0.2.8 on short batched waveforms.

julius is a library of differentiable signal processing written in PyTorch alone: fractional
resampling, windowed-sinc FIR filters (low, high and band pass, one or a bank of cutoffs), a split of a
signal into frequency bands, and an FFT-based 1-D convolution. Users put its modules in a model
(``ResampleFrac`` in a data pipeline or a source-separation network, ``LowPassFilter`` as an
augmentation) or call its functional forms inside a forward (``julius.resample_frac(x, 44100, 16000)``,
which builds the module, and its kernels, on each call). So each model of the tables is one of:

- ``MODULES``: a julius module, built with the options after the dot in its name (the sample-rate
  pair of ``ResampleFrac``, ``full`` and ``output_length`` given to its forward, ``fft=True/False`` or
  left to its automatic choice by the filter size, ``stride``, ``pad=False``, a zero cutoff
  in a bank, ``SplitBands`` by a count of mel-spaced bands or by cutoffs in Hz, a single band; not
  ``SplitBands`` with ``pad=False``, whose last band fails on the lengths in 0.2.8), and
  compiled whole; ``ResampleFrac.chained`` is bench code chaining two resamplings with ``full=True``
  then ``output_length``, as ``ResampleFrac``'s documentation advises;
- ``FUNCTIONS``: a public function of julius (``resample_frac``, ``lowpass_filter(s)``,
  ``highpass_filter(s)``, ``bandpass_filter``, ``split_bands``, ``fft_conv1d``) or of ``julius.core``
  (``sinc``, ``pad_to``, ``hz_to_mel``, ``mel_to_hz``, ``mel_frequencies``, ``volume``,
  ``pure_tone``, ``unfold``), compiled through ``gt_calls.Call`` with its options as fixed keywords.

Waveforms are 2 x 2 x 1,024 samples (a batch of two stereo signals), or a single mono signal where
named; cutoffs are fractions of the sample rate, as julius takes them (``SplitBands`` takes Hz with the
sample rate). julius takes cutoffs as Python floats only, so no model passes them as tensors.
``FFTConv1d`` has random weights; nothing is downloaded. Tables are plain data, so ``names()`` needs no
torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

SAMPLES = 1024

# Input kinds: "wave" (2, 2, 1024), "mono" (1024,), "frames" (2, 3, 1024) for a convolution of 3
# channels, "freqs" a tensor of frequencies in Hz, "none" no input (the function makes its tensor).
# Model name -> (class of ``julius``, constructor keywords, forward keywords, input kind).
MODULES: dict[str, tuple[str, dict[str, Any], dict[str, Any], str]] = {
    # resampling
    "ResampleFrac.4_5": ("ResampleFrac", {"old_sr": 4, "new_sr": 5}, {}, "wave"),
    "ResampleFrac.5_4": ("ResampleFrac", {"old_sr": 5, "new_sr": 4}, {}, "wave"),
    "ResampleFrac.16000_8000": ("ResampleFrac", {"old_sr": 16000, "new_sr": 8000}, {}, "wave"),
    "ResampleFrac.8000_16000": ("ResampleFrac", {"old_sr": 8000, "new_sr": 16000}, {}, "wave"),
    "ResampleFrac.44100_16000": ("ResampleFrac", {"old_sr": 44100, "new_sr": 16000}, {}, "wave"),
    "ResampleFrac.same_rate": ("ResampleFrac", {"old_sr": 16000, "new_sr": 16000}, {}, "wave"),
    "ResampleFrac.zeros_rolloff": ("ResampleFrac", {"old_sr": 3, "new_sr": 2, "zeros": 8, "rolloff": 0.99}, {},
                                   "wave"),
    "ResampleFrac.full": ("ResampleFrac", {"old_sr": 4, "new_sr": 5}, {"full": True}, "wave"),
    "ResampleFrac.output_length": ("ResampleFrac", {"old_sr": 4, "new_sr": 5}, {"output_length": 1200}, "wave"),
    "ResampleFrac.mono": ("ResampleFrac", {"old_sr": 2, "new_sr": 3}, {}, "mono"),
    "ResampleFrac.chained": ("ResampleFrac", {"old_sr": 4, "new_sr": 5}, {}, "wave"),
    # low pass
    "LowPassFilter": ("LowPassFilter", {"cutoff": 0.25}, {}, "wave"),
    "LowPassFilter.fft": ("LowPassFilter", {"cutoff": 0.25, "fft": True}, {}, "wave"),
    "LowPassFilter.auto_fft": ("LowPassFilter", {"cutoff": 0.05}, {}, "wave"),
    "LowPassFilter.conv_low_cutoff": ("LowPassFilter", {"cutoff": 0.05, "fft": False}, {}, "wave"),
    "LowPassFilter.stride": ("LowPassFilter", {"cutoff": 0.2, "stride": 2}, {}, "wave"),
    "LowPassFilter.no_pad": ("LowPassFilter", {"cutoff": 0.2, "pad": False}, {}, "wave"),
    "LowPassFilters": ("LowPassFilters", {"cutoffs": [0.1, 0.25, 0.4]}, {}, "wave"),
    "LowPassFilters.fft": ("LowPassFilters", {"cutoffs": [0.1, 0.25, 0.4], "fft": True}, {}, "wave"),
    "LowPassFilters.zero_cutoff": ("LowPassFilters", {"cutoffs": [0.0, 0.2]}, {}, "wave"),
    "LowPassFilters.stride_no_pad_fft": ("LowPassFilters", {"cutoffs": [0.1, 0.2], "stride": 2, "pad": False,
                                                            "fft": True}, {}, "wave"),
    # high pass and band pass
    "HighPassFilter": ("HighPassFilter", {"cutoff": 0.25}, {}, "wave"),
    "HighPassFilter.stride_no_pad": ("HighPassFilter", {"cutoff": 0.2, "stride": 2, "pad": False}, {}, "wave"),
    "HighPassFilters": ("HighPassFilters", {"cutoffs": [0.1, 0.3]}, {}, "wave"),
    "HighPassFilters.zero_cutoff": ("HighPassFilters", {"cutoffs": [0.0, 0.2], "fft": True}, {}, "wave"),
    "BandPassFilter": ("BandPassFilter", {"cutoff_low": 0.1, "cutoff_high": 0.3}, {}, "wave"),
    "BandPassFilter.fft": ("BandPassFilter", {"cutoff_low": 0.1, "cutoff_high": 0.3, "fft": True}, {}, "wave"),
    "BandPassFilter.stride": ("BandPassFilter", {"cutoff_low": 0.05, "cutoff_high": 0.2, "stride": 2}, {}, "wave"),
    # bands
    "SplitBands.n_bands": ("SplitBands", {"sample_rate": 128, "n_bands": 6}, {}, "wave"),
    "SplitBands.cutoffs": ("SplitBands", {"sample_rate": 16000, "cutoffs": [1000.0, 3000.0, 6000.0]}, {}, "wave"),
    "SplitBands.fft": ("SplitBands", {"sample_rate": 16000, "cutoffs": [2000.0, 5000.0], "fft": True}, {}, "wave"),
    "SplitBands.no_fft": ("SplitBands", {"sample_rate": 128, "n_bands": 4, "fft": False}, {}, "wave"),
    "SplitBands.one_band": ("SplitBands", {"sample_rate": 16000, "n_bands": 1}, {}, "wave"),
    # FFT convolution
    "FFTConv1d": ("FFTConv1d", {"in_channels": 3, "out_channels": 4, "kernel_size": 64}, {}, "frames"),
    "FFTConv1d.stride_padding": ("FFTConv1d", {"in_channels": 3, "out_channels": 4, "kernel_size": 48,
                                               "stride": 4, "padding": 8}, {}, "frames"),
    "FFTConv1d.no_bias": ("FFTConv1d", {"in_channels": 3, "out_channels": 2, "kernel_size": 128,
                                        "bias": False}, {}, "frames"),
}

# Model name -> (module of julius, function, fixed keywords, input kind). A "weight" in the keywords is
# the convolution's kernel, and "bias" its bias, passed as inputs after the signal.
FUNCTIONS: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "resample_frac.4_5": ("julius", "resample_frac", {"old_sr": 4, "new_sr": 5}, "wave"),
    "resample_frac.16000_8000": ("julius", "resample_frac", {"old_sr": 16000, "new_sr": 8000}, "wave"),
    "resample_frac.same_rate": ("julius", "resample_frac", {"old_sr": 8000, "new_sr": 8000}, "wave"),
    "resample_frac.full": ("julius", "resample_frac", {"old_sr": 2, "new_sr": 3, "full": True}, "wave"),
    "resample_frac.output_length": ("julius", "resample_frac", {"old_sr": 3, "new_sr": 2, "output_length": 600,
                                                               "zeros": 12}, "mono"),
    "lowpass_filter": ("julius", "lowpass_filter", {"cutoff": 0.25}, "wave"),
    "lowpass_filter.fft_stride": ("julius", "lowpass_filter", {"cutoff": 0.2, "fft": True, "stride": 2}, "wave"),
    "lowpass_filters": ("julius", "lowpass_filters", {"cutoffs": [0.1, 0.3]}, "wave"),
    "highpass_filter": ("julius", "highpass_filter", {"cutoff": 0.25}, "wave"),
    "highpass_filters.no_pad": ("julius", "highpass_filters", {"cutoffs": [0.1, 0.3], "pad": False}, "wave"),
    "bandpass_filter": ("julius", "bandpass_filter", {"cutoff_low": 0.1, "cutoff_high": 0.3}, "wave"),
    "split_bands.n_bands": ("julius", "split_bands", {"sample_rate": 128, "n_bands": 4}, "wave"),
    "split_bands.cutoffs": ("julius", "split_bands", {"sample_rate": 64, "cutoffs": [12.0, 24.0]}, "wave"),
    "fft_conv1d": ("julius", "fft_conv1d", {"weight": True}, "frames"),
    "fft_conv1d.bias_stride_padding": ("julius", "fft_conv1d", {"weight": True, "bias": True, "stride": 2,
                                                                "padding": 16, "block_ratio": 3.0}, "frames"),
    "core.sinc": ("julius.core", "sinc", {}, "freqs"),
    "core.pad_to": ("julius.core", "pad_to", {"target_length": 1100}, "wave"),
    "core.hz_to_mel": ("julius.core", "hz_to_mel", {}, "freqs"),
    "core.mel_to_hz": ("julius.core", "mel_to_hz", {}, "freqs"),
    "core.mel_frequencies": ("julius.core", "mel_frequencies", {"n_mels": 10, "fmin": 20.0, "fmax": 8000.0}, "none"),
    "core.volume": ("julius.core", "volume", {}, "wave"),
    "core.pure_tone": ("julius.core", "pure_tone", {"freq": 440.0, "sr": 16000, "dur": 0.05}, "none"),
    "core.unfold": ("julius.core", "unfold", {"kernel_size": 256, "stride": 100}, "wave"),
}


def names() -> list[str]:
    return list(MODULES) + list(FUNCTIONS)


def inputs(kind: str) -> tuple[Any, ...]:
    """Example inputs of one kind (see the comment above ``MODULES``), from a seeded generator."""
    import torch

    gen = torch.Generator().manual_seed(0)
    table = {
        "wave": lambda: (torch.randn(2, 2, SAMPLES, generator=gen),),
        "mono": lambda: (torch.randn(SAMPLES, generator=gen),),
        "frames": lambda: (torch.randn(2, 3, SAMPLES, generator=gen),),
        "freqs": lambda: (torch.linspace(0.0, 8000.0, 64),),
        "none": lambda: (),
    }
    return table[kind]()


def _chained() -> Any:
    """Two resamplings in a row, 4 -> 5 then 5 -> 4 back to the input's length: the first with
    ``full=True``, the last with ``output_length``, as ``ResampleFrac.forward`` documents for chains."""
    import julius
    import torch
    from torch import nn

    class Chained(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.up = julius.ResampleFrac(4, 5)
            self.down = julius.ResampleFrac(5, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.down(self.up(x, full=True), output_length=x.shape[-1])

        def entry_points(self) -> list[Any]:
            return [julius.ResampleFrac]

    return Chained()


def build(name: str) -> Built:
    import importlib

    import julius
    import torch
    from gt_calls import Call

    torch.manual_seed(0)
    if name in MODULES:
        cls, keywords, forward_keywords, kind = MODULES[name]
        if name == "ResampleFrac.chained":
            return _chained(), inputs(kind), {}
        return getattr(julius, cls)(**keywords), inputs(kind), dict(forward_keywords)
    module, function, static, kind = FUNCTIONS[name]
    static = dict(static)
    args = inputs(kind)
    if static.pop("weight", False):  # a kernel of 4 output channels over the input's 3, width 64
        gen = torch.Generator().manual_seed(1)
        args = (*args, torch.randn(4, 3, 64, generator=gen) / 8)
        if static.pop("bias", False):
            args = (*args, torch.randn(4, generator=gen))
    return Call(getattr(importlib.import_module(module), function), **static), args, {}
