"""Ground-truth bench, whisper (openai-whisper): the transformer, its cached decoding, decoding loop and audio helpers.

openai-whisper's ``Whisper`` is an ``AudioEncoder`` (two convolutions over a log-mel spectrogram,
sinusoidal positions, pre-norm attention blocks) and a ``TextDecoder`` (token and learned position
embeddings, causal self-attention and cross-attention blocks, logits tied to the embedding), whose
``MultiHeadAttention`` runs ``scaled_dot_product_attention`` or, under ``disable_sdpa()``, an explicit
softmax that also returns the attention weights. Inference keeps a key / value cache filled by forward
hooks (``install_kv_cache_hooks``, driven by ``decoding.PyTorchInference``); ``decoding`` runs the
sampling loop (``DecodingTask`` behind ``decode``: greedy, sampled best-of-n, beam search, logit filters
for suppressed tokens, blanks and timestamp rules, language detection); ``audio`` makes the log-mel
input (``log_mel_spectrogram``, ``pad_or_trim``); ``timing`` aligns words with a median filter and DTW.
So the tables cover, on a tiny multilingual model (2 encoder and 2 decoder layers of width 32 over 16
audio positions and 24 text positions, the real 51,865-token vocabulary so the bundled tokenizer
applies):

- ``MODELS``: ``Whisper`` forward with SDPA and under ``disable_sdpa()``, large-v3-like dimensions (128
  mels, 51,866 tokens), a one-token decode, ``embed_audio``, ``logits``, and the parts ``AudioEncoder``,
  ``TextDecoder``, a cross-attention ``ResidualAttentionBlock``, ``MultiHeadAttention`` (self attention,
  the explicit path with a mask); a train step (next-token cross-entropy, as fine-tuning computes it);
- ``CACHE``: the decoder with the key / value cache hooks: installed inside the compiled code with a
  prompt then one token, one cached step from a warm cache, and ``PyTorchInference.logits`` over two
  steps with ``cleanup_caching``;
- ``DECODE``: ``Whisper.decode`` (``DecodingTask.run``, ``fp16=False`` as on a CPU, 4 sampled tokens):
  greedy with timestamp rules on a batch, beam search with a length penalty and best-of-n sampling
  after a prompt on one audio (they repeat the tokens, not the audio features);
  ``Whisper.detect_language`` on mels and on encoded features (each decode runs the whole task and
  traces into tiktoken, so few option sets are kept);
- ``FILTERS``: ``SuppressTokens`` and ``ApplyTimestampRules`` (initial, after text, after a single
  timestamp, after a pair) applied to logits in place (``SuppressBlank``, which encodes a space with
  tiktoken on each call, runs inside the greedy decode); ``GreedyDecoder.update`` (argmax and sampled)
  and ``finalize``, ``BeamSearchDecoder.update`` (rearranging a filled cache) and ``finalize``,
  ``MaximumLikelihoodRanker.rank``;
- ``AUDIO``: ``log_mel_spectrogram`` on batched and 1-D waveform tensors (80 and 128 mels, padding),
  ``pad_or_trim`` (pad, trim, another axis, the 30-second default), and a bench front end
  (``pad_or_trim``, ``log_mel_spectrogram``, ``embed_audio``);
- ``TIMING``: ``median_filter`` (3-D, 2-D, a filter wider than the input), ``dtw`` on a tensor (numba on
  the CPU, its kernel compiled by a first eager call in the worker, as after any earlier alignment) and
  ``find_alignment`` on text tokens (``transcribe`` itself is left out: it needs the full 1,500 audio
  positions and runs the whole decoding loop per segment).

The tokenizer (tiktoken) reads the vocabulary files bundled in the package; no model is loaded with
``load_model``, so the decoder's position embedding (``torch.empty`` until a checkpoint fills it) is
drawn at random. Triton is absent, so the CUDA kernels of ``timing`` are not reached. Random weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 2
TINY: dict[str, Any] = {"n_mels": 80, "n_audio_ctx": 16, "n_audio_state": 32, "n_audio_head": 4, "n_audio_layer": 2,
                        "n_vocab": 51865, "n_text_ctx": 24, "n_text_state": 32, "n_text_head": 4, "n_text_layer": 2}
V3 = {**TINY, "n_mels": 128, "n_vocab": 51866}

# Model name -> (dimensions, what is compiled). The parts are built from the dimensions in the worker.
MODELS: dict[str, tuple[dict[str, Any], str]] = {
    "Whisper": (TINY, "forward"),
    "Whisper.no_sdpa": (TINY, "forward.no_sdpa"),
    "Whisper.v3_dims": (V3, "forward"),
    "Whisper.one_token": (TINY, "forward.one_token"),
    "Whisper.embed_audio": (TINY, "embed_audio"),
    "Whisper.logits": (TINY, "logits"),
    "AudioEncoder": (TINY, "encoder"),
    "TextDecoder": (TINY, "decoder"),
    "ResidualAttentionBlock.cross": (TINY, "block.cross"),
    "MultiHeadAttention": (TINY, "attention"),
    "MultiHeadAttention.no_sdpa.mask": (TINY, "attention.no_sdpa"),
    "train_step.Whisper": (TINY, "train"),
}
CACHE = ("decoder.kv_cache_hooks", "decoder.kv_cache.step", "PyTorchInference.logits")
# ``decode`` name -> (dimensions, ``DecodingOptions`` keywords over ``DECODE_BASE``, mel kind: "batch"
# (2, 80, 32), "one" (1, 80, 32): beam search and best-of-n repeat the tokens but not the audio features,
# so they decode one audio at a time, as ``transcribe`` does; "single" (80, 32)).
DECODE_BASE: dict[str, Any] = {"fp16": False, "sample_len": 4, "language": "en"}
DECODE: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "decode.greedy": (TINY, {}, "batch"),
    "decode.beam_search": (TINY, {"beam_size": 2, "length_penalty": 0.5, "without_timestamps": True}, "one"),
    "decode.best_of.prompt": (TINY, {"temperature": 0.8, "best_of": 2, "prompt": "hello there"}, "one"),
    "detect_language": (TINY, {}, "detect.mel"),
    "detect_language.features": (TINY, {}, "detect.features"),
}
FILTERS = ("SuppressTokens", "ApplyTimestampRules.begin",
           "ApplyTimestampRules.after_text", "ApplyTimestampRules.after_timestamp",
           "ApplyTimestampRules.timestamp_pair",
           "GreedyDecoder.update", "GreedyDecoder.update.sampling", "GreedyDecoder.finalize",
           "BeamSearchDecoder.update", "BeamSearchDecoder.finalize", "MaximumLikelihoodRanker.rank")
# Audio function name -> (function of ``whisper.audio``, input kind, fixed keywords). Inputs: "wave" a
# (2, 4000) waveform, "mono" a (4000,) one, "mel" a (2, 80, 50) spectrogram, "none".
AUDIO: dict[str, tuple[str, str, dict[str, Any]]] = {
    "log_mel_spectrogram": ("log_mel_spectrogram", "wave", {}),
    "log_mel_spectrogram.n_mels128.padding": ("log_mel_spectrogram", "mono", {"n_mels": 128, "padding": 800}),
    "pad_or_trim.pad": ("pad_or_trim", "wave", {"length": 4800}),
    "pad_or_trim.trim": ("pad_or_trim", "wave", {"length": 3000}),
    "pad_or_trim.axis": ("pad_or_trim", "mel", {"length": 96, "axis": 1}),
    "pad_or_trim.default": ("pad_or_trim", "mono", {}),
    "frontend": ("", "wave", {}),
}
TIMING = ("median_filter", "median_filter.2d", "median_filter.short", "dtw", "find_alignment")


def names() -> list[str]:
    return list(MODELS) + list(CACHE) + list(DECODE) + list(FILTERS) + list(AUDIO) + list(TIMING)


def _model(dims: dict[str, Any]) -> Any:
    """A ``Whisper`` of these dimensions; its decoder's position embedding, created with ``torch.empty``
    for a checkpoint to fill, is drawn at random like the other weights."""
    import torch
    from whisper.model import ModelDimensions, Whisper

    model = Whisper(ModelDimensions(**dims))
    with torch.no_grad():
        torch.nn.init.normal_(model.decoder.positional_embedding, std=0.02)
    return model


def _mel(dims: dict[str, Any], seed: int = 1, batch: int = BATCH) -> Any:
    import torch

    return torch.randn(batch, dims["n_mels"], 2 * dims["n_audio_ctx"], generator=torch.Generator().manual_seed(seed))


def _features(dims: dict[str, Any], seed: int = 2) -> Any:
    import torch

    shape = (BATCH, dims["n_audio_ctx"], dims["n_audio_state"])
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _tokenizer(model: Any) -> Any:
    from whisper.tokenizer import get_tokenizer

    return get_tokenizer(model.is_multilingual, num_languages=model.num_languages, language="en", task="transcribe")


def _tokens(length: int = 5, seed: int = 3, batch: int = BATCH) -> Any:
    """The start-of-transcript sequence of the multilingual tokenizer (sot, en, transcribe) followed by
    text tokens."""
    import torch

    text = torch.randint(220, 50000, (batch, max(length - 3, 0)), generator=torch.Generator().manual_seed(seed))
    return torch.cat([torch.tensor([[50258, 50259, 50359]]).repeat(batch, 1)[:, :length], text], dim=1)


def _wrap(owner: Any, run: Callable[..., Any], entries: list[Any]) -> Any:
    """A bench module holding ``owner`` whose forward is ``run(owner, *inputs)`` (``gt_calls.Run``)."""
    from gt_calls import Run

    return Run(owner, run, entries)


def _models(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from whisper import model as wm

    from gt_calls import Method

    dims, what = MODELS[name]
    if what.startswith(("block", "attention")):
        state, heads = dims["n_text_state"], dims["n_text_head"]
        x = _features(dims, seed=4)[:, :6]
        xa = _features(dims)
        mask = torch.empty(6, 6).fill_(float("-inf")).triu_(1)
        if what == "block.cross":
            return wm.ResidualAttentionBlock(state, heads, cross_attention=True), (x, xa, mask), {}
        attention = wm.MultiHeadAttention(state, heads)
        if what == "attention":
            return attention, (x,), {"mask": mask}

        def explicit(owner: Any, x_: Any, mask_: Any) -> Any:  # the path ``find_alignment`` takes
            with wm.disable_sdpa():
                return owner(x_, mask=mask_)

        return _wrap(attention, explicit, [wm.MultiHeadAttention, wm.disable_sdpa]), (x, mask), {}
    model = _model(dims)
    mel, tokens = _mel(dims), _tokens()
    if what == "forward":
        return model, (mel, tokens), {}
    if what == "forward.one_token":
        return model, (mel, tokens[:, :1]), {}
    if what == "forward.no_sdpa":
        def forward_no_sdpa(owner: Any, mel_: Any, tokens_: Any) -> Any:
            with wm.disable_sdpa():
                return owner(mel_, tokens_)

        return _wrap(model, forward_no_sdpa, [wm.Whisper, wm.disable_sdpa]), (mel, tokens), {}
    if what == "embed_audio":
        return Method(model, "embed_audio"), (mel,), {}
    if what == "logits":
        return Method(model, "logits"), (tokens, _features(dims)), {}
    if what == "encoder":
        return model.encoder, (mel,), {}
    if what == "decoder":
        return model.decoder, (tokens, _features(dims)), {}

    def train_step(owner: Any, mel_: Any, tokens_: Any) -> Any:
        """Teacher-forced next-token cross-entropy, the loss of fine-tuning scripts."""
        logits = owner(mel_, tokens_[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens_[:, 1:].reshape(-1))

    return _wrap(model, train_step, [wm.Whisper]), (mel, _tokens(8)), {}


def _cache(name: str) -> Built:
    import torch
    from whisper import model as wm
    from whisper.decoding import PyTorchInference

    model = _model(TINY)
    features, tokens = _features(TINY), _tokens()
    if name == "decoder.kv_cache_hooks":
        def cached(owner: Any, tokens_: Any, features_: Any) -> Any:
            """The prompt, then one more token from the cache, with the hooks installed and removed."""
            cache, hooks = owner.install_kv_cache_hooks()
            try:
                owner.decoder(tokens_, features_, kv_cache=cache)
                return owner.decoder(tokens_[:, -1:], features_, kv_cache=cache)
            finally:
                for hook in hooks:
                    hook.remove()

        return _wrap(model, cached, [wm.Whisper.install_kv_cache_hooks, wm.TextDecoder]), (tokens, features), {}
    if name == "decoder.kv_cache.step":
        cache, _ = model.install_kv_cache_hooks()
        with torch.no_grad():
            model.decoder(tokens, features, kv_cache=cache)

        def step(owner: Any, token: Any, features_: Any) -> Any:
            return owner.decoder(token, features_, kv_cache=cache)

        return _wrap(model, step, [wm.TextDecoder]), (tokens[:, -1:], features), {}

    def inference_steps(owner: Any, tokens_: Any, features_: Any) -> Any:
        """``PyTorchInference.logits`` on the initial tokens then one more, then ``cleanup_caching``, as
        ``DecodingTask._main_loop`` drives it."""
        inference = PyTorchInference(owner, tokens_.shape[-1])
        try:
            logits = inference.logits(tokens_, features_)
            following = torch.cat([tokens_, logits[:, -1].argmax(-1, keepdim=True)], dim=-1)
            return inference.logits(following, features_)
        finally:
            inference.cleanup_caching()

    return _wrap(model, inference_steps, [PyTorchInference.logits, PyTorchInference.cleanup_caching]), \
        (tokens[:, :3], features), {}


def _decode(name: str) -> Built:
    from whisper.decoding import DecodingOptions

    from gt_calls import Method

    dims, keywords, kind = DECODE[name]
    model = _model(dims)
    if kind.startswith("detect."):
        inputs = _mel(dims) if kind == "detect.mel" else _features(dims)
        return Method(model, "detect_language"), (inputs,), {}
    options = DecodingOptions(**{**DECODE_BASE, **keywords})
    mel = {"single": lambda: _mel(dims)[0], "one": lambda: _mel(dims, batch=1), "batch": lambda: _mel(dims)}[kind]()
    return Method(model, "decode", options=options), (mel,), {}


def _filters(name: str) -> Built:
    import torch
    from whisper import decoding

    model = _model(TINY)
    tokenizer = _tokenizer(model)
    gen = torch.Generator().manual_seed(5)
    vocab = TINY["n_vocab"]
    logits = torch.randn(BATCH, vocab, generator=gen)
    begin = len(tokenizer.sot_sequence)
    ts = tokenizer.timestamp_begin
    prefix = list(tokenizer.sot_sequence)
    sampled = {"begin": [], "after_text": [ts, 440, 1002], "after_timestamp": [ts, 440, ts + 12],
               "timestamp_pair": [ts, 440, ts + 12, ts + 12]}
    kind = name.split(".", 1)[1] if "." in name else "begin"
    tokens = torch.tensor([prefix + sampled.get(kind, [])] * BATCH)

    def applied(logit_filter: Any) -> Built:
        def apply(owner: Any, logits_: Any, tokens_: Any) -> Any:
            logits_ = logits_.clone()
            logit_filter.apply(logits_, tokens_)
            return logits_

        return _wrap(torch.nn.Identity(), apply, [type(logit_filter).apply]), (logits, tokens), {}

    if name == "SuppressTokens":
        suppress = [*tokenizer.non_speech_tokens, tokenizer.transcribe, tokenizer.translate, tokenizer.sot,
                    tokenizer.sot_prev, tokenizer.sot_lm, tokenizer.no_speech]
        return applied(decoding.SuppressTokens(sorted(set(suppress))))
    if name.startswith("ApplyTimestampRules"):
        return applied(decoding.ApplyTimestampRules(tokenizer, begin, 50))
    tokens = torch.tensor([prefix + [440, 1002]] * BATCH)
    sum_logprobs = torch.zeros(BATCH)
    if name.startswith("GreedyDecoder"):
        greedy = decoding.GreedyDecoder(0.7 if name.endswith("sampling") else 0.0, tokenizer.eot)
        method = "finalize" if name.endswith("finalize") else "update"
        args = (tokens, sum_logprobs) if method == "finalize" else (tokens, logits, sum_logprobs)
        return _wrap(torch.nn.Identity(), lambda owner, *a: getattr(greedy, method)(*a),
                     [getattr(decoding.GreedyDecoder, method)]), args, {}
    if name == "MaximumLikelihoodRanker.rank":
        ranker = decoding.MaximumLikelihoodRanker(length_penalty=0.6)
        candidates = [[torch.randint(220, 50000, (n,), generator=gen) for n in (3, 5)] for _ in range(BATCH)]
        return _wrap(torch.nn.Identity(), lambda owner, t, s: ranker.rank(t, s),
                     [decoding.MaximumLikelihoodRanker.rank]), (candidates, [[-2.0, -3.5], [-4.0, -1.0]]), {}
    # beam search over one audio with two beams, its decoder cache filled as after a first step
    inference = decoding.PyTorchInference(model, len(prefix))
    with torch.no_grad():
        inference.logits(tokens, _features(TINY))
    beam = decoding.BeamSearchDecoder(2, tokenizer.eot, inference, patience=1.0)
    if name == "BeamSearchDecoder.update":
        return _wrap(model, lambda owner, *a: beam.update(*a), [decoding.BeamSearchDecoder.update]), \
            (tokens, logits, sum_logprobs), {}
    beam.update(tokens, logits.clone(), sum_logprobs.clone())
    return _wrap(model, lambda owner, *a: beam.finalize(*a), [decoding.BeamSearchDecoder.finalize]), \
        (tokens.reshape(1, BATCH, -1), torch.tensor([[-1.5, -2.5]])), {}


def _audio(name: str) -> Built:
    import torch
    from whisper import audio

    from gt_calls import Call

    function, kind, static = AUDIO[name]
    gen = torch.Generator().manual_seed(6)
    inputs = {"wave": lambda: (torch.randn(BATCH, 4000, generator=gen) * 0.1,),
              "mono": lambda: (torch.randn(4000, generator=gen) * 0.1,),
              "mel": lambda: (torch.randn(BATCH, 80, 50, generator=gen),), "none": lambda: ()}[kind]()
    if name != "frontend":
        return Call(getattr(audio, function), **static), inputs, {}
    model = _model(TINY)
    samples = 2 * TINY["n_audio_ctx"] * audio.HOP_LENGTH

    def frontend(owner: Any, wave: Any) -> Any:
        """Waveforms padded to 0.32 s, log-mel spectrograms of their 32 frames, the encoder."""
        mel = audio.log_mel_spectrogram(audio.pad_or_trim(wave, samples))
        return owner.embed_audio(mel)

    return _wrap(model, frontend, [audio.log_mel_spectrogram, audio.pad_or_trim, type(model).embed_audio]), inputs, {}


def _timing(name: str) -> Built:
    import torch
    from whisper import timing

    from gt_calls import Call

    gen = torch.Generator().manual_seed(7)
    if name in ("dtw", "find_alignment"):  # numba compiles ``dtw_cpu`` on its first call, as any long run has
        timing.dtw(torch.randn(4, 5, generator=gen))
    if name.startswith("median_filter"):
        shape, width = {"median_filter": ((4, 6, 20), 7), "median_filter.2d": ((6, 20), 5),
                        "median_filter.short": ((4, 6, 3), 7)}[name]
        return Call(timing.median_filter, filter_width=width), (torch.randn(*shape, generator=gen),), {}
    if name == "find_alignment":
        model = _model(TINY)
        tokenizer = _tokenizer(model)
        text_tokens = tokenizer.encode(" hello world")

        def align(owner: Any, mel: Any) -> Any:
            return timing.find_alignment(owner, tokenizer, text_tokens, mel, 2 * TINY["n_audio_ctx"])

        return _wrap(model, align, [timing.find_alignment]), (_mel(TINY)[0],), {}
    return Call(timing.dtw), (torch.randn(6, 10, generator=gen),), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in MODELS:
        return _models(name)
    if name in CACHE:
        return _cache(name)
    if name in DECODE:
        return _decode(name)
    if name in FILTERS:
        return _filters(name)
    if name in AUDIO:
        return _audio(name)
    return _timing(name)
