"""Ground-truth bench, asteroid_filterbanks: filterbanks as encoders / decoders, transforms, PCEN, phase retrieval.

asteroid-filterbanks is the front end of Asteroid's source-separation models: a ``Filterbank`` (free,
analytic, parameterised sinc, STFT, torch-STFT-compatible, mel-gram, multi-phase gammatone) is wrapped
in an ``Encoder`` (a strided 1-D convolution of the waveform, any input rank) or a ``Decoder`` (its
transposed convolution, overlap-add, with an optional output length), optionally as the pseudo-inverse
of the other (``pinv_of``, ``make_enc_dec(who_is_pinv=...)``). ``transforms`` works on Asteroid's
complex-like tensors (real and imaginary halves concatenated along a dimension): magnitudes, masks,
angles and conversions; ``griffin_lim`` and ``misi`` estimate phases iteratively; ``PCEN`` and
``StatefulPCEN`` normalise magnitude spectrograms. So the tables cover:

- ``FILTERBANKS``: an ``Encoder`` and a ``Decoder`` over each filterbank that builds here, in the
  variants of its options (an overcomplete STFT, ``TorchSTFTFB`` centred with reflect or constant
  padding and not centred; no second decoder where only the analysis differs);
- ``ENCODERS`` / ``DECODERS``: the shapes and options that change their code, on a free filterbank:
  multichannel and 4-D inputs, 1-D and 2-D inputs, ``as_conv1d=False``, ``padding``, the pseudo-inverse,
  a decoder's ``length``, ``output_padding``, 2-D and 4-D spectrograms; the torch-STFT filterbank on
  each input rank (its centring pads by rank) and with a length or a 4-D spectrogram; the pseudo-inverse
  of an STFT;
- ``ENC_DEC``: ``make_enc_dec`` pairs (independent, the decoder or the encoder pseudo-inverse) run as an
  analysis-synthesis round trip;
- ``SEPARATION``: bench separation models as Asteroid builds them (encoder, a small convolutional mask
  estimator, ``apply_real_mask`` / ``apply_mag_mask`` / ``apply_complex_mask``, decoder with the input's
  length) over free, sinc, STFT and torch-STFT filterbanks, and train steps with a negative-SNR loss;
- ``TRANSFORMS``: the functions of ``transforms`` used on tensors (``gt_calls.Call``) on a complex-like
  spectrogram (not the NumPy conversions, nor the shape checks alone);
- ``PHASE``: ``griffin_lim`` (random or given initial angles, a given synthesis decoder) and ``misi``
  (relative-power or given source weights, given angles, momentum);
- ``PCEN``: ``PCEN`` (fixed, trainable by parameter, trainable with per-channel smoothing, mono and
  multichannel), ``StatefulPCEN`` with and without an initial state and from a ``PCEN``, and
  ``ExponentialMovingAverage``.

``MelGramFB`` (and its ``MelScale``) need librosa, which the environment lacks, and
``MultiphaseGammatoneFB`` cannot be built with the installed NumPy (its constructor uses ``np.float``),
so neither is in the tables. Waveforms are 2 x 1 x 2,048 samples at 8 kHz (2 x 2 x 2,048 for
multichannel and MISI's sources). Random weights, nothing downloaded. ``names()`` needs no torch;
``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
SAMPLES, BATCH, SR = 2048, 2, 8000.0

# Filterbank name -> (class of ``asteroid_filterbanks``, keywords).
FB: dict[str, tuple[str, dict[str, Any]]] = {
    "FreeFB": ("FreeFB", {"n_filters": 32, "kernel_size": 16, "stride": 8}),
    "AnalyticFreeFB": ("AnalyticFreeFB", {"n_filters": 32, "kernel_size": 16, "stride": 8}),
    "ParamSincFB": ("ParamSincFB", {"n_filters": 32, "kernel_size": 33, "stride": 16, "sample_rate": SR}),
    "STFTFB": ("STFTFB", {"n_filters": 64, "kernel_size": 64, "stride": 16}),
    "STFTFB.overcomplete": ("STFTFB", {"n_filters": 64, "kernel_size": 32, "stride": 16}),
    "TorchSTFTFB": ("TorchSTFTFB", {"n_filters": 64, "kernel_size": 64, "stride": 16}),
    "TorchSTFTFB.constant_pad": ("TorchSTFTFB", {"n_filters": 64, "kernel_size": 64, "stride": 16,
                                                 "pad_mode": "constant"}),
    "TorchSTFTFB.no_center": ("TorchSTFTFB", {"n_filters": 64, "kernel_size": 64, "stride": 16, "center": False}),
}
# An encoder over each; a decoder over each but those whose synthesis is another's (the overcomplete STFT,
# the constant-padded torch STFT).
FILTERBANKS = [f"{kind}.{fb}" for fb in FB for kind in ("Encoder", "Decoder")
               if not (kind == "Decoder" and fb in ("STFTFB.overcomplete", "TorchSTFTFB.constant_pad"))]
# Encoder / decoder variant name -> (filterbank, input kind, ``Encoder`` / ``Decoder`` keywords, call
# keywords). Input kinds: "wave" (2, 1, T), "multi" (2, 2, T), "wave4d" (2, 2, 2, T), "wave1d" (T,),
# "wave2d" (2, T); for decoders "spec" (the encoder's output of "wave"), "spec4d", "spec2d".
ENCODERS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    f"Encoder.{fb}.{variant}": (fb, kind, keywords, {})
    for fb in ("FreeFB",)
    for variant, (kind, keywords) in {
        "multichannel": ("multi", {}),
        "wave4d": ("wave4d", {}),
        "wave1d": ("wave1d", {}),
        "wave2d": ("wave2d", {}),
        "not_as_conv1d": ("wave", {"as_conv1d": False}),
        "padding": ("wave", {"padding": 8}),
        "pinv": ("wave", {"pinv": True}),
    }.items()
}
ENCODERS.update({f"Encoder.TorchSTFTFB.{variant}": ("TorchSTFTFB", kind, {}, {})  # its padding of each rank
                 for variant, kind in (("multichannel", "multi"), ("wave4d", "wave4d"), ("wave1d", "wave1d"),
                                       ("wave2d", "wave2d"))})
ENCODERS["Encoder.STFTFB.pinv"] = ("STFTFB", "wave", {"pinv": True}, {})
DECODERS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    f"Decoder.{fb}.{variant}": (fb, kind, keywords, call)
    for fb in ("FreeFB",)
    for variant, (kind, keywords, call) in {
        "length": ("spec", {}, {"length": SAMPLES}),
        "spec4d": ("spec4d", {}, {}),
        "spec2d": ("spec2d", {}, {}),
        "padding": ("spec", {"padding": 4, "output_padding": 2}, {}),
        "pinv": ("spec", {"pinv": True}, {}),
    }.items()
}
DECODERS["Decoder.TorchSTFTFB.length"] = ("TorchSTFTFB", "spec", {}, {"length": SAMPLES})
DECODERS["Decoder.TorchSTFTFB.spec4d"] = ("TorchSTFTFB", "spec4d", {}, {})
# ``make_enc_dec`` round trip name -> (filterbank family, keywords).
ENC_DEC: dict[str, tuple[str, dict[str, Any]]] = {
    "make_enc_dec.free": ("free", {"n_filters": 32, "kernel_size": 16}),
    "make_enc_dec.stft.pinv_decoder": ("stft", {"n_filters": 64, "kernel_size": 64, "stride": 16,
                                                "who_is_pinv": "dec"}),
    "make_enc_dec.analytic_free.pinv_encoder": ("analytic_free", {"n_filters": 32, "kernel_size": 16,
                                                                  "who_is_pinv": "enc"}),
    "make_enc_dec.torch_stft": ("torch_stft", {"n_filters": 64, "kernel_size": 64, "stride": 16}),
}
# Separation model name -> (filterbank, mask kind: "real" (``apply_real_mask``), "mag", "complex").
SEPARATION: dict[str, tuple[str, str]] = {
    "separation.FreeFB.real_mask": ("FreeFB", "real"),
    "separation.ParamSincFB.real_mask": ("ParamSincFB", "real"),
    "separation.STFTFB.mag_mask": ("STFTFB", "mag"),
    "separation.STFTFB.complex_mask": ("STFTFB", "complex"),
    "separation.TorchSTFTFB.mag_mask": ("TorchSTFTFB", "mag"),
    "train_step.separation.FreeFB.real_mask": ("FreeFB", "real"),
    "train_step.separation.STFTFB.mag_mask": ("STFTFB", "mag"),
}
# ``transforms`` function name -> (function, inputs, fixed keywords). Inputs: "spec" a complex-like
# (2, 34, 20) tensor, "mask" a real mask of the same shape, "half" one of half its frequencies, "ta" a
# torchaudio-style (..., 2) tensor, "complex" a native complex tensor, "magphase" magnitudes and phases.
TRANSFORMS: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "mul_c": ("mul_c", ("spec", "spec"), {}),
    "mag": ("mag", ("spec",), {}),
    "magreim": ("magreim", ("spec",), {}),
    "apply_real_mask": ("apply_real_mask", ("spec", "mask"), {}),
    "apply_mag_mask": ("apply_mag_mask", ("spec", "half"), {}),
    "apply_complex_mask": ("apply_complex_mask", ("spec", "mask"), {}),
    "to_torchaudio": ("to_torchaudio", ("spec",), {}),
    "from_torchaudio": ("from_torchaudio", ("ta",), {}),
    "to_torch_complex": ("to_torch_complex", ("spec",), {}),
    "from_torch_complex": ("from_torch_complex", ("complex",), {}),
    "angle": ("angle", ("spec",), {}),
    "from_magphase": ("from_magphase", ("magphase",), {}),
    "magphase": ("magphase", ("spec",), {}),
    "centerfreq_correction": ("centerfreq_correction", ("spec",), {"kernel_size": 32, "stride": 8}),
    "phase_centerfreq_correction": ("phase_centerfreq_correction", ("half",), {"kernel_size": 32, "stride": 8}),
}
# Phase retrieval name -> (function, keywords; ``angles``, ``istft_dec``, ``src_weights`` are built in the
# worker).
PHASE: dict[str, tuple[str, dict[str, Any]]] = {
    "griffin_lim": ("griffin_lim", {"n_iter": 4}),
    "griffin_lim.angles": ("griffin_lim", {"n_iter": 4, "angles": True}),
    "griffin_lim.istft_dec": ("griffin_lim", {"n_iter": 4, "istft_dec": True}),
    "misi": ("misi", {"n_iter": 3}),
    "misi.src_weights": ("misi", {"n_iter": 3, "src_weights": True, "angles": True}),
    "misi.istft_dec.momentum": ("misi", {"n_iter": 3, "istft_dec": True, "momentum": 0.5, "angles": True}),
}
# PCEN name -> (class of ``asteroid_filterbanks.pcen``, keywords, input "mono" (2, 33, 20) or "multi"
# (2, 2, 33, 20), with an initial state).
PCEN: dict[str, tuple[str, dict[str, Any], str, bool]] = {
    "PCEN": ("PCEN", {}, "mono", False),
    "PCEN.multichannel": ("PCEN", {"n_channels": 2}, "multi", False),
    "PCEN.trainable_by_parameter": ("PCEN", {"n_channels": 2, "trainable": {"alpha": True, "delta": False,
                                                                            "root": True, "smooth": True}},
                                    "multi", False),
    "PCEN.per_channel_smoothing": ("PCEN", {"n_channels": 2, "per_channel_smoothing": True, "trainable": True},
                                   "multi", False),
    "StatefulPCEN": ("StatefulPCEN", {}, "mono", False),
    "StatefulPCEN.initial_state": ("StatefulPCEN", {"n_channels": 2}, "multi", True),
    "StatefulPCEN.from_pcen": ("from_pcen", {}, "mono", True),
    "ExponentialMovingAverage": ("ExponentialMovingAverage", {"smooth": 0.1, "per_channel": True,
                                                              "n_channels": 2, "trainable": True}, "multi", False),
}


def names() -> list[str]:
    return (FILTERBANKS + list(ENCODERS) + list(DECODERS) + list(ENC_DEC) + list(SEPARATION)
            + [f"transforms.{n}" for n in TRANSFORMS] + list(PHASE) + [f"pcen.{n}" for n in PCEN])


def _filterbank(name: str) -> Any:
    import asteroid_filterbanks

    cls, keywords = FB[name]
    return getattr(asteroid_filterbanks, cls)(**keywords)


def _wave(kind: str, seed: int = 1) -> Any:
    import torch

    gen = torch.Generator().manual_seed(seed)
    shape = {"wave": (BATCH, 1, SAMPLES), "multi": (BATCH, 2, SAMPLES), "wave4d": (BATCH, 2, 2, SAMPLES),
             "wave1d": (SAMPLES,), "wave2d": (BATCH, SAMPLES)}[kind]
    return torch.randn(*shape, generator=gen)


def _spec(fb: Any, kind: str) -> Any:
    """A spectrogram shaped as ``Encoder(fb)`` gives one: of a (2, 1, T) waveform for "spec", of a
    (2, 2, T) one for "spec4d", of a (T,) one for "spec2d"."""
    import torch
    from asteroid_filterbanks import Encoder

    wave = {"spec": "wave", "spec4d": "multi", "spec2d": "wave1d"}[kind]
    with torch.no_grad():
        return Encoder(fb)(_wave(wave, seed=3)).detach()


class _Roundtrip:
    """Factory of the bench analysis-synthesis module (kept a plain class so ``names()`` needs no torch)."""

    @staticmethod
    def make(encoder: Any, decoder: Any) -> Any:
        import torch
        from asteroid_filterbanks import Decoder, Encoder
        from torch import nn

        class Roundtrip(nn.Module):
            """``decoder(encoder(wav), length=wav.shape[-1])``: analysis then synthesis."""

            def __init__(self) -> None:
                super().__init__()
                self.encoder, self.decoder = encoder, decoder

            def forward(self, wav: torch.Tensor) -> torch.Tensor:
                return self.decoder(self.encoder(wav), length=wav.shape[-1])

            def entry_points(self) -> list[Any]:
                return [Encoder, Decoder]

        return Roundtrip()


def _encoder_decoder(name: str) -> Built:
    from asteroid_filterbanks import Decoder, Encoder

    if name in FILTERBANKS:
        kind, fb_name = name.split(".", 1)
        fb = _filterbank(fb_name)
        if kind == "Encoder":
            return Encoder(fb), (_wave("wave"),), {}
        return Decoder(fb), (_spec(fb, "spec"),), {}
    table = ENCODERS if name in ENCODERS else DECODERS
    fb_name, kind, keywords, call = table[name]
    keywords = dict(keywords)
    fb = _filterbank(fb_name)
    pinv = keywords.pop("pinv", False)
    if table is ENCODERS:
        encoder = Encoder.pinv_of(fb) if pinv else Encoder(fb, **keywords)
        return encoder, (_wave(kind),), dict(call)
    decoder = Decoder.pinv_of(fb) if pinv else Decoder(fb, **keywords)
    return decoder, (_spec(fb, kind),), dict(call)


def _enc_dec(name: str) -> Built:
    from asteroid_filterbanks import make_enc_dec

    family, keywords = ENC_DEC[name]
    encoder, decoder = make_enc_dec(family, sample_rate=SR, **keywords)
    return _Roundtrip.make(encoder, decoder), (_wave("wave"),), {}


def _separation(name: str) -> Built:
    import torch
    from asteroid_filterbanks import Decoder, Encoder, transforms
    from torch import nn

    fb_name, mask_kind = SEPARATION[name]
    encoder = Encoder(_filterbank(fb_name))
    decoder = Decoder(_filterbank(fb_name))
    n_feats = encoder.n_feats_out
    mask_feats = n_feats // 2 if mask_kind == "mag" else n_feats

    class Separator(nn.Module):
        """Asteroid's encoder / masker / decoder pattern for two sources: a 1x1-convolution masker over
        the encoder's features (sigmoid for real and magnitude masks, tanh for a complex one), the masks
        applied with ``transforms``, each source decoded to the input's length."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder, self.decoder = encoder, decoder
            self.masker = nn.Sequential(nn.Conv1d(n_feats, 32, 1), nn.PReLU(), nn.Conv1d(32, 2 * mask_feats, 1))

        def forward(self, wav: torch.Tensor) -> torch.Tensor:
            tf_rep = self.encoder(wav)  # (batch, feats, frames)
            masks = self.masker(tf_rep).view(wav.shape[0], 2, mask_feats, -1)
            masks = torch.tanh(masks) if mask_kind == "complex" else torch.sigmoid(masks)
            tf_rep = tf_rep.unsqueeze(1)
            if mask_kind == "real":
                masked = transforms.apply_real_mask(tf_rep, masks)
            elif mask_kind == "mag":
                masked = transforms.apply_mag_mask(tf_rep, masks)
            else:
                masked = transforms.apply_complex_mask(tf_rep, masks)
            return self.decoder(masked, length=wav.shape[-1])  # (batch, 2, time)

        def entry_points(self) -> list[Any]:
            applied = {"real": transforms.apply_real_mask, "mag": transforms.apply_mag_mask,
                       "complex": transforms.apply_complex_mask}[mask_kind]
            return [Encoder, Decoder, applied]

    separator = Separator()
    wav = _wave("wave")
    if not name.startswith("train_step."):
        return separator, (wav,), {}

    class TrainStep(nn.Module):
        """Negative SNR of the separated sources against two reference sources (no permutation search)."""

        def __init__(self) -> None:
            super().__init__()
            self.separator = separator

        def forward(self, mixture: torch.Tensor, sources: torch.Tensor) -> torch.Tensor:
            estimates = self.separator(mixture)
            sources = sources[..., : estimates.shape[-1]]  # a sinc decoder's output can be a few samples short
            noise = estimates - sources
            snr = 10 * torch.log10(sources.pow(2).sum(-1) / (noise.pow(2).sum(-1) + 1e-8) + 1e-8)
            return -snr.mean()

        def entry_points(self) -> list[Any]:
            return separator.entry_points()

    sources = _wave("multi", seed=4)
    return TrainStep(), (sources.sum(1, keepdim=True), sources), {}


def _transform(name: str) -> Built:
    import torch
    from asteroid_filterbanks import transforms

    from gt_calls import Call

    function, kinds, static = TRANSFORMS[name]
    gen = torch.Generator().manual_seed(5)
    spec = torch.randn(BATCH, 34, 20, generator=gen)
    table = {
        "spec": lambda: spec,
        "mask": lambda: torch.rand(BATCH, 34, 20, generator=gen),
        "half": lambda: torch.rand(BATCH, 17, 20, generator=gen),
        "ta": lambda: torch.randn(BATCH, 17, 20, 2, generator=gen),
        "complex": lambda: torch.randn(BATCH, 17, 20, dtype=torch.complex64, generator=gen),
    }
    args: tuple[Any, ...] = ()
    for kind in kinds:
        if kind == "magphase":
            args += (torch.rand(BATCH, 17, 20, generator=gen), (torch.rand(BATCH, 17, 20, generator=gen) - 0.5) * 6)
        elif kind == "spec" and args:
            args += (torch.randn(BATCH, 34, 20, generator=gen),)
        else:
            args += (table[kind](),)
    return Call(getattr(transforms, function), **static), args, {}


def _phase(name: str) -> Built:
    import math

    import torch
    from asteroid_filterbanks import STFTFB, Decoder, Encoder, griffin_lim, misi, transforms
    from asteroid_filterbanks.stft_fb import perfect_synthesis_window
    from torch import nn

    function, keywords = PHASE[name]
    keywords = dict(keywords)
    stft_enc = Encoder(STFTFB(n_filters=64, kernel_size=64, stride=16))
    gen = torch.Generator().manual_seed(6)
    istft_dec = None
    if keywords.pop("istft_dec", False):  # the perfect-synthesis decoder the functions build by default
        window = perfect_synthesis_window(stft_enc.filterbank.window, stft_enc.stride)
        istft_dec = Decoder(STFTFB(**stft_enc.get_config(), window=window))
    give_angles = keywords.pop("angles", False)
    give_weights = keywords.pop("src_weights", False)
    wav = _wave("multi" if function == "misi" else "wave", seed=7)
    with torch.no_grad():
        mag = transforms.mag(stft_enc(wav))  # (2, 1, 33, frames) or (2, 2, 33, frames)
    if function == "griffin_lim":
        mag = mag.squeeze(1) if mag.dim() == 4 else mag
    args: tuple[Any, ...] = (wav.sum(1), mag) if function == "misi" else (mag,)
    if give_angles:
        args += (2 * math.pi * torch.rand(*mag.shape, generator=gen),)
    if give_weights:
        args += (torch.tensor([0.3, 0.7]).view(1, 2, 1),)
    entry = griffin_lim if function == "griffin_lim" else misi

    class Phase(nn.Module):
        """``griffin_lim(mag, stft_enc, ...)`` / ``misi(mixture, mags, stft_enc, ...)`` with the STFT
        encoder (and a given synthesis decoder) registered as submodules."""

        def __init__(self) -> None:
            super().__init__()
            self.stft_enc, self.istft_dec = stft_enc, istft_dec

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            named: dict[str, Any] = dict(keywords, istft_dec=self.istft_dec)
            if function == "griffin_lim":
                if give_angles:
                    named["angles"] = tensors[1]
                return griffin_lim(tensors[0], self.stft_enc, **named)
            rest = list(tensors[2:])
            if give_angles:
                named["angles"] = rest.pop(0)
            if give_weights:
                named["src_weights"] = rest.pop(0)
            return misi(tensors[0], tensors[1], self.stft_enc, **named)

        def entry_points(self) -> list[Any]:
            return [entry]

    return Phase(), args, {}


def _pcen(name: str) -> Built:
    import torch
    from asteroid_filterbanks import pcen

    cls, keywords, kind, state = PCEN[name]
    gen = torch.Generator().manual_seed(8)
    shape = (BATCH, 33, 20) if kind == "mono" else (BATCH, 2, 33, 20)
    mag_spec = torch.rand(*shape, generator=gen) * 4
    if cls == "from_pcen":
        module = pcen.StatefulPCEN.from_pcen(pcen.PCEN(alpha=0.9, trainable=True))
    else:
        module = getattr(pcen, cls)(**keywords)
    channels = 1 if kind == "mono" else 2
    if cls == "ExponentialMovingAverage":  # (batch, channels, freq, time) with no initial state
        return module, (mag_spec, None), {}
    if state:
        return module, (mag_spec, torch.rand(BATCH, channels, 33, 1, generator=gen)), {}
    return module, (mag_spec,), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in FILTERBANKS or name in ENCODERS or name in DECODERS:
        return _encoder_decoder(name)
    if name in ENC_DEC:
        return _enc_dec(name)
    if name in SEPARATION:
        return _separation(name)
    if name.startswith("transforms."):
        return _transform(name.split(".", 1)[1])
    if name in PHASE:
        return _phase(name)
    return _pcen(name.split(".", 1)[1])
