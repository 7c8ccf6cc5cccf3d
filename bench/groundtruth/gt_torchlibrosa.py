"""Ground-truth bench, torchlibrosa: librosa's spectral features as PyTorch layers, and the PANNs front end.

torchlibrosa 0.1.0 reimplements librosa's feature extraction with convolutions so that it runs on batches
inside a network: ``STFT`` (two ``Conv1d`` of DFT kernels, centred with reflect or constant padding),
``Spectrogram`` (its power), ``LogmelFilterBank`` (a librosa mel matrix as a parameter, then ``power_to_db``
with an optional ``top_db`` floor), ``ISTFT`` (a 1 x 1 convolution per frame and an overlap-add by ``fold``,
or, with ``onnx=True``, by a transposed convolution and a window sum from librosa), ``Enframe``, ``Scalar``
(standardisation), the plain matrix ``DFT`` (``dft``, ``idft``, ``rdft``, ``irdft``), ``magphase``, and
the SpecAugment layers ``DropStripes`` and ``SpecAugmentation``, which act in train mode only. Its users
(PANNs audio tagging, sound event detection, source separation) put the front end in front of a CNN and
compile both. So the tables cover, on a batch of two 8 kHz waveforms of 2,048 samples (FFT of 256, hop
of 64, 16 mel bins):

- ``MODULES``: each layer with the constructor options that change its path (padding mode, no centring,
  a shorter window, another window, the default hop, trainable kernels or mel matrix, power 1, ``top_db``
  off, no log, other ``ref`` / ``amin`` / band edges; ``ISTFT`` with and without an output length, without
  centring, with a Hamming window, and the ONNX path with the window sum precomputed or computed at the first
  call; not ``ISTFT`` with a window shorter than the FFT, whose overlap-add fails on its shapes in 0.1.0);
- ``FUNCTIONS``: ``magphase`` and the methods of ``DFT`` (through ``gt_calls.Method``), with the ``ortho``
  norm where it runs (``idft`` and ``irdft`` with ``ortho`` name an undefined ``n`` in 0.1.0);
- ``PIPELINES`` (bench code holding library layers, ``entry_points`` the layers): the log-mel front end as
  an ``nn.Sequential``, an STFT -> magnitude / phase -> ISTFT round trip, a tiny PANNs-style CNN (front
  end, batch norm over mel bins, SpecAugment, two conv blocks, pooled head), and train steps with
  ``loss.backward()`` and an optimizer step: the PANNs CNN on clip labels, trainable STFT kernels, a
  trainable mel matrix, and a mask-based speech enhancer that resynthesises with ``ISTFT``.

Random inputs and weights from fixed seeds, nothing downloaded (the windows and mel matrices come from the
installed librosa). ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

SR, SAMPLES, BATCH = 8000, 2048, 2
N_FFT, HOP, MELS = 256, 64, 16
FRAMES = SAMPLES // HOP + 1  # frames of a centred STFT
SPEC: dict[str, Any] = {"n_fft": N_FFT, "hop_length": HOP}
MEL: dict[str, Any] = {"sr": SR, "n_fft": N_FFT, "n_mels": MELS}

# Input kinds: "wave" (2, 2048), "spec" a power spectrogram (2, 1, 33, 129), "mel" a log-mel map
# (2, 1, 33, 16), "stft" the real and imaginary parts of an STFT and an output length, "stft.nolength"
# the parts and ``None``, "stft.nocenter" the parts of an uncentred STFT and its length.
# Model name -> (class of ``torchlibrosa``, constructor keywords, input kind).
MODULES: dict[str, tuple[str, dict[str, Any], str]] = {
    "STFT": ("STFT", SPEC, "wave"),
    "STFT.constant_pad": ("STFT", {**SPEC, "pad_mode": "constant"}, "wave"),
    "STFT.no_center": ("STFT", {**SPEC, "center": False}, "wave"),
    "STFT.win_length": ("STFT", {**SPEC, "win_length": 200}, "wave"),
    "STFT.hamming": ("STFT", {**SPEC, "window": "hamming"}, "wave"),
    "STFT.default_hop": ("STFT", {"n_fft": N_FFT}, "wave"),
    "STFT.trainable": ("STFT", {**SPEC, "freeze_parameters": False}, "wave"),
    "Spectrogram": ("Spectrogram", SPEC, "wave"),
    "Spectrogram.power1": ("Spectrogram", {**SPEC, "power": 1.0}, "wave"),
    "Spectrogram.no_center_constant": ("Spectrogram", {**SPEC, "center": False, "pad_mode": "constant"}, "wave"),
    "LogmelFilterBank": ("LogmelFilterBank", MEL, "spec"),
    "LogmelFilterBank.no_top_db": ("LogmelFilterBank", {**MEL, "top_db": None}, "spec"),
    "LogmelFilterBank.no_log": ("LogmelFilterBank", {**MEL, "is_log": False}, "spec"),
    "LogmelFilterBank.ref_amin_band": ("LogmelFilterBank", {**MEL, "ref": 2.0, "amin": 1e-6, "fmin": 50.0,
                                                            "fmax": 3000.0, "top_db": 60.0}, "spec"),
    "LogmelFilterBank.trainable": ("LogmelFilterBank", {**MEL, "freeze_parameters": False}, "spec"),
    "Enframe": ("Enframe", {"frame_length": N_FFT, "hop_length": HOP}, "wave"),
    "Enframe.no_overlap": ("Enframe", {"frame_length": 128, "hop_length": 128}, "wave"),
    "Scalar": ("Scalar", {"freeze_parameters": True}, "mel"),
    "Scalar.trainable": ("Scalar", {"freeze_parameters": False}, "mel"),
    "DropStripes.time": ("DropStripes", {"dim": 2, "drop_width": 8, "stripes_num": 2}, "mel"),
    "DropStripes.freq": ("DropStripes", {"dim": 3, "drop_width": 4, "stripes_num": 2}, "mel"),
    "SpecAugmentation": ("SpecAugmentation", {"time_drop_width": 8, "time_stripes_num": 2, "freq_drop_width": 4,
                                              "freq_stripes_num": 2}, "mel"),
    "ISTFT": ("ISTFT", SPEC, "stft"),
    "ISTFT.no_length": ("ISTFT", SPEC, "stft.nolength"),
    "ISTFT.no_center": ("ISTFT", {**SPEC, "center": False}, "stft.nocenter"),
    "ISTFT.hamming": ("ISTFT", {**SPEC, "window": "hamming"}, "stft"),
    "ISTFT.onnx": ("ISTFT", {**SPEC, "onnx": True, "frames_num": FRAMES}, "stft"),
    "ISTFT.onnx.lazy_window_sum": ("ISTFT", {**SPEC, "onnx": True}, "stft"),
}

# Model name -> (function or ``DFT`` method, ``norm``, input kind: "frames" real frames (2, 3, 16), "complex"
# real and imaginary frames, "half" the two halves of a real DFT (2, 3, 9), "mag" real and imaginary parts of
# an STFT).
FUNCTIONS: dict[str, tuple[str, str | None, str]] = {
    "magphase": ("magphase", None, "mag"),
    "DFT.dft": ("dft", None, "complex"),
    "DFT.dft.ortho": ("dft", "ortho", "complex"),
    "DFT.idft": ("idft", None, "complex"),
    "DFT.rdft": ("rdft", None, "frames"),
    "DFT.rdft.ortho": ("rdft", "ortho", "frames"),
    "DFT.irdft": ("irdft", None, "half"),
}

PIPELINES = (
    "logmel_frontend",
    "logmel_frontend.no_log",
    "stft_istft_roundtrip",
    "panns_cnn",
    "panns_cnn.no_augment",
    "train.panns_cnn",
    "train.trainable_stft",
    "train.trainable_logmel",
    "train.istft_enhancer",
    "train.istft_enhancer.onnx",
)


def names() -> list[str]:
    return list(MODULES) + list(FUNCTIONS) + list(PIPELINES)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _wave(seed: int = 1) -> Any:
    import torch

    return torch.randn(BATCH, SAMPLES, generator=_gen(seed)) * 0.3


def inputs(kind: str) -> tuple[Any, ...]:
    """Example inputs of one kind (see the comments above ``MODULES`` and ``FUNCTIONS``)."""
    import torch

    import torchlibrosa

    gen = _gen(2)
    if kind == "wave":
        return (_wave(),)
    if kind == "spec":
        return (torchlibrosa.Spectrogram(**SPEC)(_wave()),)
    if kind == "mel":
        return (torch.randn(BATCH, 1, FRAMES, MELS, generator=gen),)
    if kind.startswith("stft"):
        center = kind != "stft.nocenter"
        real, imag = torchlibrosa.STFT(**SPEC, center=center)(_wave())
        if kind == "stft.nolength":
            return real, imag, None
        return real, imag, SAMPLES if center else (real.shape[2] - 1) * HOP + N_FFT
    if kind == "mag":
        return torchlibrosa.STFT(**SPEC)(_wave())
    if kind == "frames":
        return (torch.randn(BATCH, 3, 16, generator=gen),)
    if kind == "complex":
        return torch.randn(BATCH, 3, 16, generator=gen), torch.randn(BATCH, 3, 16, generator=gen)
    return torch.randn(BATCH, 3, 9, generator=gen), torch.randn(BATCH, 3, 9, generator=gen)


def _module(name: str) -> Built:
    import numpy as np

    import torchlibrosa

    cls, keywords, kind = MODULES[name]
    keywords = dict(keywords)
    if cls == "Scalar":
        rng = np.random.RandomState(0)
        keywords["scalar"] = {"mean": rng.randn(MELS), "std": 1.0 + rng.rand(MELS)}
    return getattr(torchlibrosa, cls)(**keywords), inputs(kind), {}


def _function(name: str) -> Built:
    from torchlibrosa import stft

    from gt_calls import Call, Method

    what, norm, kind = FUNCTIONS[name]
    if what == "magphase":
        return Call(stft.magphase), inputs(kind), {}
    # A DFT of 16 points: ``dft``, ``idft`` and ``rdft`` take frames of 16 samples, ``irdft`` 16 // 2 + 1 bins.
    return Method(stft.DFT(16, norm), what), inputs(kind), {}


def _pipeline(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    import torchlibrosa
    from torchlibrosa.stft import magphase

    from gt_calls import Run

    classes = 5
    layers = [torchlibrosa.Spectrogram, torchlibrosa.LogmelFilterBank]

    if name.startswith("logmel_frontend"):
        is_log = not name.endswith("no_log")
        model = nn.Sequential(torchlibrosa.Spectrogram(**SPEC), torchlibrosa.LogmelFilterBank(**MEL, is_log=is_log))
        return Run(model, lambda owner, x: owner(x), layers), (_wave(),), {}

    if name == "stft_istft_roundtrip":
        class RoundTrip(nn.Module):
            """STFT, magnitude and phase, then the ISTFT of magnitude times phase back to the input's length."""

            def __init__(self) -> None:
                super().__init__()
                self.stft = torchlibrosa.STFT(**SPEC)
                self.istft = torchlibrosa.ISTFT(**SPEC)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                mag, cos, sin = magphase(*self.stft(x))
                return self.istft(mag * cos, mag * sin, x.shape[-1])

            def entry_points(self) -> list[Any]:
                return [torchlibrosa.STFT, magphase, torchlibrosa.ISTFT]

        return RoundTrip(), (_wave(),), {}

    class ConvBlock(nn.Module):
        """PANNs' block: two 3 x 3 convolutions with batch norm and ReLU, then 2 x 2 average pooling."""

        def __init__(self, cin: int, cout: int) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                     nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                     nn.AvgPool2d(2))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

    class PannsCnn(nn.Module):
        """A tiny Cnn14: spectrogram, log mel, batch norm over mel bins, SpecAugment in training, two conv
        blocks, max + mean pooling over time, a linear head of clip logits."""

        def __init__(self, augment: bool = True) -> None:
            super().__init__()
            self.spectrogram_extractor = torchlibrosa.Spectrogram(**SPEC)
            self.logmel_extractor = torchlibrosa.LogmelFilterBank(**MEL)
            self.spec_augmenter = torchlibrosa.SpecAugmentation(
                time_drop_width=8, time_stripes_num=2, freq_drop_width=4, freq_stripes_num=2) if augment else None
            self.bn0 = nn.BatchNorm2d(MELS)
            self.blocks = nn.Sequential(ConvBlock(1, 8), ConvBlock(8, 16))
            self.fc = nn.Linear(16, classes)

        def forward(self, wave: torch.Tensor) -> torch.Tensor:
            x = self.logmel_extractor(self.spectrogram_extractor(wave))  # (batch, 1, frames, mels)
            x = self.bn0(x.transpose(1, 3)).transpose(1, 3)
            if self.training and self.spec_augmenter is not None:
                x = self.spec_augmenter(x)
            x = self.blocks(x).mean(dim=3)
            x = x.max(dim=2)[0] + x.mean(dim=2)
            return self.fc(x)

        def entry_points(self) -> list[Any]:
            return [*layers, torchlibrosa.SpecAugmentation]

    if name.startswith("panns_cnn"):
        return PannsCnn(augment=not name.endswith("no_augment")), (_wave(),), {}

    if name == "train.panns_cnn":
        model = PannsCnn()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        targets = (torch.rand(BATCH, classes, generator=_gen(3)) > 0.5).float()

        def panns_step(owner: Any, wave: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = F.binary_cross_entropy_with_logits(owner(wave), target)
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(model, panns_step, model.entry_points()), (_wave(), targets), {}

    if name == "train.trainable_stft":
        stft_layer = torchlibrosa.STFT(**SPEC, freeze_parameters=False)
        optimizer = torch.optim.SGD(stft_layer.parameters(), lr=1e-4)
        target = torch.rand(BATCH, 1, FRAMES, N_FFT // 2 + 1, generator=_gen(4))

        def stft_step(owner: Any, wave: torch.Tensor, target_: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                optimizer.zero_grad()
                real, imag = owner(wave)
                loss = F.mse_loss(torch.log1p(real ** 2 + imag ** 2), target_)
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(stft_layer, stft_step, [torchlibrosa.STFT]), (_wave(), target), {}

    if name == "train.trainable_logmel":
        class MelHead(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.spec = torchlibrosa.Spectrogram(**SPEC)
                self.mel = torchlibrosa.LogmelFilterBank(**MEL, freeze_parameters=False, top_db=None)
                self.head = nn.Linear(MELS, classes)

            def forward(self, wave: torch.Tensor) -> torch.Tensor:
                return self.head(self.mel(self.spec(wave)).mean(dim=(1, 2)))

        model = MelHead()
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
        labels = torch.randint(0, classes, (BATCH,), generator=_gen(5))

        def mel_step(owner: Any, wave: torch.Tensor, label: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = F.cross_entropy(owner(wave), label)
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(model, mel_step, layers), (_wave(), labels), {}

    onnx = name.endswith("onnx")

    class Enhancer(nn.Module):
        """Mask-based speech enhancement: STFT, a magnitude mask from a small MLP over frequency bins,
        the masked magnitude with the noisy phase, ISTFT back to a waveform."""

        def __init__(self) -> None:
            super().__init__()
            self.stft = torchlibrosa.STFT(**SPEC)
            extra = {"onnx": True, "frames_num": FRAMES} if onnx else {}
            self.istft = torchlibrosa.ISTFT(**SPEC, **extra)
            bins = N_FFT // 2 + 1
            self.mask = nn.Sequential(nn.Linear(bins, 32), nn.ReLU(), nn.Linear(32, bins), nn.Sigmoid())

        def forward(self, noisy: torch.Tensor) -> torch.Tensor:
            mag, cos, sin = magphase(*self.stft(noisy))
            mag = mag * self.mask(torch.log1p(mag))
            return self.istft(mag * cos, mag * sin, noisy.shape[-1])

    model = Enhancer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    clean = _wave(6)
    noisy = clean + 0.1 * torch.randn(BATCH, SAMPLES, generator=_gen(7))

    def enhance_step(owner: Any, noisy_: torch.Tensor, clean_: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = F.l1_loss(owner(noisy_), clean_)
            loss.backward()
            optimizer.step()
        return loss.detach()

    return Run(model, enhance_step, [torchlibrosa.STFT, magphase, torchlibrosa.ISTFT]), (noisy, clean), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODULES:
        return _module(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in PIPELINES:
        return _pipeline(name)
    raise KeyError(name)
