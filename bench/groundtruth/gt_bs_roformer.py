"""Ground-truth bench, bs_roformer (BS-RoFormer): band-split and mel-band RoFormers for music source separation.

bs_roformer 1.2.4 exports three models that map a mixture ``(batch, time)`` (mono) or ``(batch, 2, time)``
(stereo) to one waveform per stem through an STFT, bands of frequencies embedded and run through axial
transformers (over time, then over frequency; rotary or PoPE positions, gated attention, hyper-connection
residual streams from ``hyper_connections``, value residuals from the second layer on) and a mask or spectrum
estimated per band, inverted by the ISTFT; given a ``target`` they return the L1 loss plus the multi-resolution
STFT loss (``return_loss_breakdown`` adds its parts):

- ``BSRoformer``: bands of fixed sizes (``freqs_per_bands``), optionally a ``freq_range`` sliced out and padded
  back, ``zero_dc``;
- ``MelBandRoformer``: overlapping bands from a librosa mel filter bank, gathered by index and their masks
  averaged back by ``scatter_add_``, a linear-attention transformer over all tokens before the axial ones
  (``linear_transformer_depth``, its own ``linear_flash_attn``), ``match_input_audio_length``;
- ``FlowBSRoformer``: a flow-matching variant predicting the stems' spectra from the mixture and a noised target,
  conditioned on the flow time through AdaLN: the training loss (random or given times, a per-time loss weight),
  the prediction given ``noised_target`` and ``times``, and ``sample`` (the Euler loop, as ``Method``).

Models: each class in eval and train mode, mono and stereo, with and without a target, over the flags that change
its path. The defaults (flash attention, ``Attend``'s SDPA path under ``sdp_kernel``, and four hyper-connection
residual streams) cost the most to compile, so each class runs them once, with its loss (FlowBSRoformer's streams
with the einsum attention: its flash path fails inside Dynamo); the other models use the einsum attention and plain
residuals (``PLAIN``): rotary or PoPE positions, depth 2 (value residuals), two stems, dropout, a frequency range,
``zero_dc``, normalized STFTs with Hamming windows, no multi-resolution loss, and per class: MelBandRoformer without
its linear transformer, a deeper mask estimator, ``match_input_audio_length`` on audio of an odd length;
FlowBSRoformer's given times, a loss weight per time, the prediction from a noised target, and ``sample`` (two Euler
steps, one stem or two). Residual fractions change only ``hyper_connections``' code, not this library's, and are
left out. Sizes are tiny: width 16, 2 heads of 8, one time and one frequency layer per depth, an STFT of 64 points
(33 frequencies in 4 bands, or 6 mel bands at 8 kHz) hopping 32 samples over 2,048 samples of audio, a batch of 2,
multi-resolution windows of 64 and 32. Random weights and inputs from fixed generators, nothing downloaded;
``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
LENGTH = 2048  # audio samples
SMALL = {
    "dim": 16, "depth": 1, "time_transformer_depth": 1, "freq_transformer_depth": 1, "dim_head": 8, "heads": 2,
    "stft_n_fft": 64, "stft_hop_length": 32, "stft_win_length": 64,
    "multi_stft_resolutions_window_sizes": (64, 32), "multi_stft_hop_size": 32,
}
BANDS = {"freqs_per_bands": (4, 5, 8, 16)}  # the 33 frequencies of a 64-point STFT
BS = {**SMALL, **BANDS}
MEL = {**SMALL, "num_bands": 6, "sample_rate": 8000}
FLOW = {**SMALL, **BANDS}
PLAIN = {"flash_attn": False, "num_residual_streams": 1}  # the einsum attention and plain residuals
# Model name -> (class, keywords, audio, call keywords). Audio and tensor keywords name inputs resolved in the
# worker: "mono" (batch, time), "mono3" (batch, 1, time), "stereo" (batch, 2, time), "stems" (batch, 2, 1, time),
# "stereo_stems" (batch, 2, 2, time), "times" (batch,) flow times. In class keywords, "hamming" names
# ``torch.hamming_window`` and "weight" a loss weight per flow time (``_model``).
MODELS: dict[str, tuple[str, dict[str, Any], str, dict[str, Any]]] = {
    # "<class>.loss": the defaults (flash attention, four residual streams), the costliest to compile, once per class.
    "BSRoformer.loss": ("BSRoformer", BS, "mono", {"target": "mono"}),
    "BSRoformer.plain": ("BSRoformer", {**BS, **PLAIN}, "mono3", {}),
    "BSRoformer.stereo.stems2.loss_breakdown": ("BSRoformer", {**BS, **PLAIN, "stereo": True, "num_stems": 2},
                                                "stereo", {"target": "stereo_stems", "return_loss_breakdown": True}),
    "BSRoformer.depth2.pope.dropout.loss": ("BSRoformer", {**BS, **PLAIN, "depth": 2, "use_pope": True,
                                                           "attn_dropout": 0.1, "ff_dropout": 0.1},
                                            "mono", {"target": "mono"}),
    "BSRoformer.freq_range.stereo.loss": ("BSRoformer", {**BS, **PLAIN, "stereo": True, "freq_range": (1, 29),
                                                         "freqs_per_bands": (4, 8, 16)}, "stereo",
                                          {"target": "stereo"}),
    "BSRoformer.zero_dc.normalized_windows.loss": ("BSRoformer", {**BS, **PLAIN, "zero_dc": True,
                                                                  "stft_normalized": True,
                                                                  "multi_stft_normalized": True,
                                                                  "stft_window_fn": "hamming",
                                                                  "multi_stft_window_fn": "hamming"},
                                                   "mono3", {"target": "mono3"}),
    "BSRoformer.no_multi_stft_loss": ("BSRoformer", {**BS, **PLAIN, "multi_stft_resolutions_window_sizes": (),
                                                     "multi_stft_resolution_loss_weight": 0.0}, "mono",
                                      {"target": "mono", "return_loss_breakdown": True}),
    "MelBandRoformer.loss": ("MelBandRoformer", MEL, "mono", {"target": "mono"}),
    "MelBandRoformer.plain": ("MelBandRoformer", {**MEL, **PLAIN}, "mono3", {}),
    "MelBandRoformer.stereo.loss_breakdown": ("MelBandRoformer", {**MEL, **PLAIN, "stereo": True}, "stereo",
                                              {"target": "stereo", "return_loss_breakdown": True}),
    "MelBandRoformer.stems2.loss": ("MelBandRoformer", {**MEL, **PLAIN, "num_stems": 2}, "mono3",
                                    {"target": "stems"}),
    "MelBandRoformer.depth2.pope.loss": ("MelBandRoformer", {**MEL, **PLAIN, "depth": 2, "use_pope": True}, "mono",
                                         {"target": "mono"}),
    "MelBandRoformer.no_linear_transformer.stereo": ("MelBandRoformer", {**MEL, **PLAIN, "stereo": True,
                                                                         "linear_transformer_depth": 0}, "stereo", {}),
    "MelBandRoformer.match_length.loss": ("MelBandRoformer", {**MEL, **PLAIN, "match_input_audio_length": True},
                                          "mono_odd", {"target": "mono_odd"}),
    "MelBandRoformer.zero_dc.mask_depth2.stereo": ("MelBandRoformer", {**MEL, **PLAIN, "stereo": True,
                                                                       "zero_dc": True, "mask_estimator_depth": 2},
                                                   "stereo", {}),
    # FlowBSRoformer's flash attention fails inside Dynamo (an internal error, on every call): its four residual
    # streams run with the einsum attention.
    "FlowBSRoformer.streams.loss": ("FlowBSRoformer", {**FLOW, "flash_attn": False}, "mono", {"target": "mono"}),
    "FlowBSRoformer.loss.times.weight_fn": ("FlowBSRoformer", {**FLOW, **PLAIN, "time_to_loss_weight_fn": "weight"},
                                            "mono", {"target": "mono", "times": "times"}),
    "FlowBSRoformer.predict": ("FlowBSRoformer", {**FLOW, **PLAIN}, "mono3",
                               {"noised_target": "mono3", "times": "times"}),
    "FlowBSRoformer.stereo.stems2.loss_breakdown": ("FlowBSRoformer", {**FLOW, **PLAIN, "stereo": True,
                                                                       "num_stems": 2}, "stereo",
                                                    {"target": "stereo_stems", "return_loss_breakdown": True}),
    "FlowBSRoformer.depth2.pope.loss": ("FlowBSRoformer", {**FLOW, **PLAIN, "depth": 2, "use_pope": True}, "mono",
                                        {"target": "mono"}),
    "FlowBSRoformer.zero_dc.freq_range.predict": ("FlowBSRoformer", {**FLOW, **PLAIN, "zero_dc": True,
                                                                     "freq_range": (0, 28),
                                                                     "freqs_per_bands": (4, 8, 16)},
                                                  "mono", {"noised_target": "mono", "times": "times"}),
}
# ``FlowBSRoformer.sample`` (the Euler loop from noise, as ``Method``): name -> (keywords, audio, steps).
SAMPLERS = {
    "FlowBSRoformer.sample": ({**FLOW, **PLAIN}, "mono", 2),
    "FlowBSRoformer.sample.stereo.stems2": ({**FLOW, **PLAIN, "stereo": True, "num_stems": 2}, "stereo", 2),
}


def names() -> list[str]:
    return list(MODELS) + list(SAMPLERS)


def _inputs() -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(1)

    def audio(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen) * 0.1

    return {
        "mono": audio(BATCH, LENGTH), "mono3": audio(BATCH, 1, LENGTH), "mono_odd": audio(BATCH, LENGTH - 11),
        "stereo": audio(BATCH, 2, LENGTH), "stems": audio(BATCH, 2, 1, LENGTH),
        "stereo_stems": audio(BATCH, 2, 2, LENGTH), "times": torch.rand(BATCH, generator=gen),
    }


def _model(cls: str, keywords: dict[str, Any]) -> Any:
    import torch

    import bs_roformer

    resolved = {"hamming": torch.hamming_window, "weight": lambda times: 1.0 + times}
    keywords = {k: resolved[v] if isinstance(v, str) else v for k, v in keywords.items()}
    return getattr(bs_roformer, cls)(**keywords)


def build(name: str) -> Built:
    import warnings

    import torch

    from gt_calls import Method

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    inputs = _inputs()
    if name in SAMPLERS:
        keywords, audio, steps = SAMPLERS[name]
        return Method(_model("FlowBSRoformer", keywords), "sample", steps=steps), (inputs[audio],), {}
    cls, keywords, audio, call = MODELS[name]
    kwargs = {k: inputs[v] if isinstance(v, str) else v for k, v in call.items()}
    return _model(cls, keywords), (inputs[audio],), kwargs
