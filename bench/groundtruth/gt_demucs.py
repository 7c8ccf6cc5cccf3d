"""Ground-truth bench, demucs: its music source separation models, their transformer, STFT, Wiener
filtering, augmentations, ``apply_model`` and a training step, at tiny sizes with random weights.

demucs 4.1.0 ships three separation models, ``nn.Module``s that map a stereo mix ``(batch, 2, time)``
to one waveform per source ``(batch, sources, 2, time)``: ``HTDemucs`` (v4, hybrid transformer: a
spectrogram U-Net and a waveform U-Net joined by ``demucs.transformer.CrossTransformerEncoder``),
``HDemucs`` (v3, hybrid) and ``Demucs`` (v2/v3, waveform only). Each is built from its class with
``channels=8`` and fewer layers, and compiled whole in the configurations that change its code
(``HTDEMUCS``, ``HDEMUCS``, ``DEMUCS``): positional embeddings (sin, CAPE), group norms and post-norm
layers, cross attention first, a bottleneck projection, complex-as-channels output or masking and Wiener
filtering, frequency bands split by ``MultiWrap``, branches that merge inside the U-Net, a frequency-only
model, the DConv branches with local attention and LSTMs, the bottleneck LSTM, resampling. The sample
rate is lowered to 8 kHz and the audio is 1024 samples (an eighth of a second), the models' training
segment. The STFT is smaller than the models' 4096 (128, or 256 where the branches must meet): Dynamo's
shape propagation of ``istft`` costs time in proportion to its size (about 45 s at 4096).

- ``APPLY``: ``demucs.apply.apply_model`` as ``demucs.separate`` runs it, through a bench module
  (``_Apply``) around the library function: the random shift trick with a model's ``valid_length``, and
  a ``BagOfModels`` with per-source weights split into overlapping segments;
- ``TRAIN``: what ``demucs.solver.Solver._run_one_epoch`` computes for a training batch before the
  backward pass (bench code, ``_TrainStep``, since ``demucs.solver`` needs ``dora``, which is not
  installed): the solver's augmentations (``Shift``, ``FlipChannels``, ``FlipSign``, ``Scale``,
  ``Remix``) on the stacked sources, the mix as their sum, the model, the per-source L1 or MSE loss
  weighted by source, and the SVD penalty of ``demucs.svd`` in one of them;
- ``PARTS``: the pieces on their own: the transformer layers and encoder of ``demucs.transformer`` (with
  the scaled embedding), ``demucs.spec``'s ``spectro`` and ``ispectro``, ``demucs.wiener.wiener``, the
  augmentation pipeline, ``DConv``, a framed ``BLSTM`` and ``svd_penalty`` by the power method.

Left out: sparse attention (``t_sparse_*``, needs ``xformers``), ``demucs.api.Separator`` and
``demucs.pretrained`` (they download trained models), ``demucs.evaluate`` (needs ``dora``) and
``RepitchedWrapper`` (needs ``torchaudio``). ``names()`` needs no torch; ``build`` runs in a worker.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

SOURCES = ["drums", "bass", "other", "vocals"]
SAMPLERATE, LENGTH = 8000, 1024  # an eighth of a second of stereo; each model's training segment is LENGTH samples
# The STFT is the costly part of compiling (Dynamo's shape propagation of ``istft`` grows with its size), so
# the hybrid models use nfft 128, or 256 where the time branch must meet the frequency branch inside the U-Net.
SMALL = {"channels": 8, "samplerate": SAMPLERATE}
HT_SMALL = {**SMALL, "nfft": 128, "depth": 2, "t_layers": 2, "t_heads": 4}
HD_SMALL = {**SMALL, "nfft": 256, "depth": 4, "dconv_attn": 2, "dconv_lstm": 2}
D_SMALL = {**SMALL, "depth": 4, "dconv_attn": 2, "dconv_lstm": 2}

# Model name -> constructor keywords (over ``HT_SMALL``, ``HD_SMALL``, ``D_SMALL``).
HTDEMUCS: dict[str, dict[str, Any]] = {
    "HTDemucs": {},
    "HTDemucs.cape": {"t_emb": "cape"},
    "HTDemucs.bottom_channels": {"bottom_channels": 32},
    "HTDemucs.group_norms_post_norm": {"t_norm_in": False, "t_norm_in_group": True, "t_group_norm": True,
                                       "t_norm_first": False, "t_layer_scale": False, "t_gelu": False},
    "HTDemucs.cross_first": {"t_cross_first": True, "t_layers": 3},
    "HTDemucs.masking": {"cac": False, "wiener_iters": -1, "end_iters": -1},
    "HTDemucs.wiener": {"cac": False, "wiener_iters": 1, "end_iters": 1},
    "HTDemucs.multi_freqs": {"multi_freqs": [0.25, 0.5], "multi_freqs_depth": 1},
    "HTDemucs.merged_branches": {"nfft": 256, "depth": 3},
}
HDEMUCS: dict[str, dict[str, Any]] = {
    "HDemucs": {},
    "HDemucs.freq_only": {"hybrid": False, "nfft": 128, "depth": 3},
}
DEMUCS: dict[str, dict[str, Any]] = {
    "Demucs": {},
    "Demucs.bottleneck_lstm": {"lstm_layers": 2, "dconv_mode": 0},
    "Demucs.relu_plain": {"gelu": False, "glu": False, "normalize": False, "resample": False},
}
# apply_model variant -> (model name, ``apply_model`` keywords, input length).
# ``apply_model`` moves each model with ``model.to(device)``, which Dynamo traces parameter by parameter, so
# these use the plainest ``Demucs`` (fewest parameter tensors).
APPLY: dict[str, tuple[str, dict[str, Any], int]] = {
    "apply_model.shifts_valid_length": ("Demucs.relu_plain", {"shifts": 1, "split": False}, LENGTH - 100),
    "apply_model.bag_split": ("bag", {"shifts": 0, "split": True, "overlap": 0.25}, LENGTH * 3 // 2),
}
# train step -> (model name, loss, with the SVD penalty).
TRAIN: dict[str, tuple[str, str, bool]] = {
    "train_step.HTDemucs": ("HTDemucs", "l1", False),
    "train_step.Demucs.mse_svd_penalty": ("Demucs", "mse", True),
}
PARTS = (
    "transformer.CrossTransformerEncoder.scaled", "transformer.MyTransformerEncoderLayer.group_norm",
    "transformer.CrossTransformerEncoderLayer",
    "spec.spectro", "spec.ispectro", "wiener.wiener", "wiener.wiener.softmask_residual",
    "augment.pipeline", "DConv.attn_lstm", "BLSTM.framed", "svd_penalty.power_method",
)
SHIFT = 256  # the solver's random time shift, in samples (``dset.shift`` seconds at full size)


def names() -> list[str]:
    return list(HTDEMUCS) + list(HDEMUCS) + list(DEMUCS) + list(APPLY) + list(TRAIN) + [f"part.{p}" for p in PARTS]


def model(name: str) -> Any:
    """One separation model of the tables, its training segment ``LENGTH`` samples."""
    from fractions import Fraction

    from demucs.demucs import Demucs
    from demucs.hdemucs import HDemucs
    from demucs.htdemucs import HTDemucs

    segment = Fraction(LENGTH, SAMPLERATE)
    for table, cls, base in ((HTDEMUCS, HTDemucs, HT_SMALL), (HDEMUCS, HDemucs, HD_SMALL), (DEMUCS, Demucs, D_SMALL)):
        if name in table:
            return cls(SOURCES, segment=segment, **{**base, **table[name]})
    raise KeyError(name)


def mix(length: int = LENGTH, batch: int = 1) -> Any:
    import torch

    return torch.randn(batch, 2, length, generator=torch.Generator().manual_seed(1))


def _augment() -> Any:
    """The solver's augmentations, as ``Solver.__init__`` chains them at the defaults of demucs' config
    (a shorter shift and a smaller remix group, for the tiny batch)."""
    from demucs import augment
    from torch import nn

    return nn.Sequential(augment.Shift(shift=SHIFT, same=False), augment.FlipChannels(), augment.FlipSign(),
                         augment.Scale(proba=1.0, min=0.25, max=1.25), augment.Remix(proba=1, group_size=2))


def _apply(name: str) -> Built:
    import torch
    from demucs.apply import BagOfModels, apply_model
    from torch import nn

    which, keywords, length = APPLY[name]
    if which == "bag":  # two models, each trusted for some sources, as the remote bags (``mdx.yaml``) weigh them
        separator: Any = BagOfModels([model("Demucs.relu_plain"), model("Demucs.relu_plain")],
                                     weights=[[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0]])
    else:
        separator = model(which)

    class _Apply(nn.Module):
        """``apply_model(model, mix, ...)``, as ``demucs.separate`` calls it on a track."""

        def __init__(self) -> None:
            super().__init__()
            self.separator = separator

        def forward(self, x: torch.Tensor) -> Any:
            return apply_model(self.separator, x, **keywords)

        def entry_points(self) -> list[Any]:
            models = separator.models if isinstance(separator, BagOfModels) else [separator]
            return [apply_model] + list(dict.fromkeys(type(m) for m in models))

    return _Apply(), (mix(length),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from demucs.svd import svd_penalty
    from torch import nn

    which, loss_name, penalty = TRAIN[name]
    separator = model(which)

    class _TrainStep(nn.Module):
        """``Solver._run_one_epoch`` on one training batch, up to ``loss.backward()``."""

        def __init__(self) -> None:
            super().__init__()
            self.model = separator
            self.augment = _augment()
            self.weights = [1.0] * len(separator.sources)

        def forward(self, sources: torch.Tensor) -> Any:
            sources = self.augment(sources)
            mix = sources.sum(dim=1)
            estimate = self.model(mix)
            dims = tuple(range(2, sources.dim()))
            if loss_name == "l1":
                loss = F.l1_loss(estimate, sources, reduction="none").mean(dims).mean(0)
                reco = loss
            else:
                loss = F.mse_loss(estimate, sources, reduction="none").mean(dims)
                reco = (loss**0.5).mean(0)
            weights = torch.tensor(self.weights).to(sources)
            loss = (loss * weights).sum() / weights.sum()
            if penalty:
                loss = loss + 1e-4 * svd_penalty(self.model, min_size=0.001, dim=1, niters=2)
            return loss, (reco * weights).sum() / weights.sum()

        def entry_points(self) -> list[Any]:
            return [type(separator)] + [type(a) for a in self.augment] + ([svd_penalty] if penalty else [])

    gen = torch.Generator().manual_seed(2)
    sources = torch.randn(2, len(separator.sources), 2, LENGTH + SHIFT, generator=gen) * 0.3
    return _TrainStep(), (sources,), {}


def _transformer(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from demucs import transformer

    gen = torch.Generator().manual_seed(3)
    dim = 32
    if name.split(".")[0] == "CrossTransformerEncoder":
        emb = name.split(".")[1] if "." in name else "sin"
        encoder = transformer.CrossTransformerEncoder(dim, emb=emb, num_heads=4, num_layers=2, norm_first=True,
                                                      norm_out=True, layer_scale=True, max_positions=64)
        # the spectral branch (batch, channels, freqs, frames) and the waveform branch (batch, channels, time)
        return encoder, (torch.randn(2, dim, 4, 8, generator=gen), torch.randn(2, dim, 16, generator=gen)), {}
    tokens = torch.randn(2, 12, dim, generator=gen)
    if name.startswith("MyTransformerEncoderLayer"):
        group = {"group_norm": 1} if name.endswith("group_norm") else {}
        layer = transformer.MyTransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.0, activation=F.gelu,
                                                      norm_first=True, norm_out=True, layer_scale=True,
                                                      batch_first=True, **group)
        return layer, (tokens,), {}
    layer = transformer.CrossTransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.0, activation=F.gelu,
                                                     norm_first=True, norm_out=True, layer_scale=True,
                                                     batch_first=True)
    return layer, (tokens, torch.randn(2, 20, dim, generator=gen)), {}


def _part(name: str) -> Built:
    import torch
    from demucs import spec, wiener
    from demucs.demucs import BLSTM, DConv
    from demucs.svd import svd_penalty
    from gt_calls import Call
    from torch import nn

    gen = torch.Generator().manual_seed(4)
    if name.startswith("transformer."):
        return _transformer(name.split(".", 1)[1])
    if name == "spec.spectro":
        return Call(spec.spectro, n_fft=128, hop_length=32), (mix(),), {}
    if name == "spec.ispectro":
        z = spec.spectro(mix(), 128, 32)
        return Call(spec.ispectro, hop_length=32, length=LENGTH), (z,), {}
    if name.startswith("wiener.wiener"):
        frames, bins = 16, 33  # (frames, bins, channels, sources) magnitudes and the mix's real-view STFT
        keywords = {"softmask": True, "residual": True} if name.endswith("softmask_residual") else {}
        return (Call(wiener.wiener, iterations=1, **keywords),
                (torch.rand(frames, bins, 2, 4, generator=gen), torch.randn(frames, bins, 2, 2, generator=gen)), {})
    if name == "augment.pipeline":  # the solver's augmentations on a batch of stacked sources
        return _augment(), (torch.randn(2, 4, 2, LENGTH + SHIFT, generator=gen),), {}
    if name == "DConv.attn_lstm":  # the residual branch of the deepest layers: local attention and LSTMs
        return DConv(32, compress=4, depth=2, attn=True, lstm=True), (torch.randn(2, 32, 50, generator=gen),), {}
    if name == "BLSTM.framed":  # longer than ``max_steps``: split in overlapping frames
        return BLSTM(8, layers=2, max_steps=200, skip=True), (torch.randn(1, 8, 500, generator=gen),), {}
    separator = model("Demucs")  # the power method on the convolutions (the train step uses ``svd_lowrank``)
    keywords = {"min_size": 0.001, "niters": 2, "powm": True, "conv_only": True}

    class _Penalty(nn.Module):
        """``svd_penalty(model, ...)``: the largest singular values of the model's layers."""

        def __init__(self) -> None:
            super().__init__()
            self.model = separator

        def forward(self) -> Any:
            return svd_penalty(self.model, **keywords)

        def entry_points(self) -> list[Any]:
            return [svd_penalty]

    return _Penalty(), (), {}


def build(name: str) -> Built:
    import random
    import warnings

    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    random.seed(0)  # apply_model's shift, the sin embedding's random shift and Remix draw from ``random``
    np.random.seed(0)  # CAPE's augmentation draws from numpy
    if name in APPLY:
        return _apply(name)
    if name in TRAIN:
        return _train(name)
    if name.startswith("part."):
        return _part(name.split(".", 1)[1])
    return model(name), (mix(),), {}
