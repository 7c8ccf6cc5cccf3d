"""Ground-truth bench, transfusion_pytorch (transfusion-pytorch): one transformer for text tokens and flow matching.

transfusion-pytorch (lucidrains) implements Transfusion (Zhou et al.) with flow matching in place of diffusion:
one ``Transformer`` (attention with qk RMS norm, softclamped logits, value gates, optional value residuals and
LASER, GEGLU feed-forwards, U-Net skips, adaptive layer norm conditioned on random Fourier times, a learned
attention residual over the hidden states) reads batches of text tokens interleaved with continuous modalities
(float tensors, ``(type, tensor[, loss weight])`` tuples). ``Transfusion.forward`` wraps each modality in
``[meta] shape [som] ... [eom]`` tokens, noises it, attends causally over text and bidirectionally inside each
modality (a naive mask on the CPU), and returns the next-token loss plus the flow loss (with a velocity
consistency loss against an EMA model, a reconstruction loss, per-item loss weights, items not attended). The
batch is processed by one of the strategies of ``modality_processing`` (naive, grouped, flat, hybrid, or auto,
the default, which times the others). Text-only and modality-only batches take their own paths. The tables
cover, at width 16, 2 layers, 2 heads of 8, 16 text tokens, latents of width 8 (and 4 for a second modality),
batches of 2:

- ``FORWARD``: ``Transfusion`` forward on interleaved batches: the loss (under every strategy, with
  same-shaped modalities for those that group them), its breakdown, the logits with the hidden states, the
  embeddings, given times with the hidden states and times returned, the predicted flows only, two modalities,
  channel-first images through a convolutional encoder and decoder, axial positional embeddings (1-D and 2-D),
  a clean-output model, the reconstruction loss (grouped and flat), velocity consistency against an ``EMA``,
  per-item loss weights and items not attended (grouped and naive), a batch without modalities, a down- and
  up-sampling pre / post transformer encoder-decoder, and the transformer options: value residuals at depth
  3, no U-Net skips with LASER and no qk norm at depth 1 (deeper, the skips are pushed and never popped),
  dropout without value gates or softcap;
- ``TEXT_FORWARD`` and ``MODALITY``: text-only forward (the loss, padded ids, embeddings with hidden states, a
  kv cache) and modality-only forward (the loss, the predicted flow at given times, velocity consistency with
  the breakdown, an encoder with the reconstruction loss, 2-D positional embeddings, a clean-output model, the
  second modality);
- ``GENERATE``: ``generate_text_only`` (a kv cache, or none and greedy), ``generate_modality_only`` (a decoder
  over channel-first latents, a second modality at a fixed shape), ``sample`` (``sample_one``: no prompt, a
  forced modality with and without a shape, a kv cache, an interleaved prompt dropped from the output, an
  image prompt through the encoder and decoder, two modalities without guidance, a clean-output model from a
  modality prompt with initial noise) and ``sample_many`` (a batch of text prompts; mixed prompts, a modality,
  none and an interleaved one, with a forced shape and no guidance; two modalities without guidance), through
  ``gt_calls.Method`` at 2 tokens, two ODE steps and one layer;
- ``PARTS``: ``Transformer`` (times with every token a modality, causal, modality positions with excluded
  spans, an explicit mask with a per-token modality mask, a kv cache, modality only with hidden states, value
  residuals with LASER), ``Attention`` (a mask with rotary embeddings, a kv cache, a value residual with
  LASER), ``AdaptiveWrapper`` (text, modality only, mixed), ``AttentionResidual``, ``RandomFourierEmbed`` and
  ``SelfMaskedRepTraining`` (an interleaved batch, no representation loss with symmetric dropout; its
  text-only path returns no times, which its forward unpacks, so it is left out);
- ``FUNCTIONS``: the helpers of ``transfusion`` (modality positions to a tensor, ordered, to rotary positions
  and to a modality mask; the naive and the flex mask functions; min-p filtering and greedy sampling; the
  times of modalities; the character tokenizer and decoder; the tokens after an id; the flow weights;
  ``apply_fn_modality_type``; contiguous text merged and named items; ``print_modality_sample``;
  ``get_modality_shape_from_seq``; ``decode_modalities``) and of ``modality_processing`` (item specs, the
  weighted token loss, loss weights and excluded spans, the flat and auto strategies called on their own, the
  positional embeddings evaluated), through ``gt_calls.Call``, ``Method`` or ``Run``;
- ``STEPS``: train steps (``backward`` and an Adam step) on interleaved, text, modality and two-modality
  (channel-first images and sequences) batches, a velocity-consistency step followed by an EMA update, and
  ``SelfMaskedRepTraining`` with its teacher update.

Left out: flex attention (CUDA only), the data loader and the example scripts. Random weights, nothing
downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TEXT, DIM, LATENT, LATENT2, CHANNELS = 16, 16, 8, 4, 3
TRANSFORMER: dict[str, Any] = {"dim": DIM, "depth": 2, "dim_head": 8, "heads": 2}
TWO: dict[str, Any] = {"dim_latent": (LATENT, LATENT2), "modality_default_shape": ((2,), (3,))}
IMAGE: dict[str, Any] = {"channel_first_latent": True, "modality_default_shape": (2, 2), "encoder": True}
POS: dict[str, Any] = {"add_pos_emb": True, "modality_num_dim": 1}
POS2D: dict[str, Any] = {"add_pos_emb": True, "modality_default_shape": (2, 2)}
SAMPLE: dict[str, Any] = {"max_length": 2, "modality_steps": 2}
FORCE: dict[str, Any] = {**SAMPLE, "force_modality_at_start": 0}

# ``Transfusion`` forward name -> (keywords of the model ("transformer" merged into ``TRANSFORMER``; "encoder"
# adds a convolutional encoder and decoder, "enc_dec" a resampling pre / post encoder-decoder), the batch (a
# kind of ``_batch``), call keywords ("ema" and "times" resolved in ``_forward``)).
FORWARD: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "Transfusion.loss": ({}, "interleaved", {}),
    "Transfusion.naive.loss": ({"modality_processing": "naive"}, "interleaved", {}),
    "Transfusion.grouped.loss.same_shapes": ({"modality_processing": "grouped"}, "same_shapes", {}),
    "Transfusion.flat.loss": ({"modality_processing": "flat"}, "interleaved", {}),
    "Transfusion.hybrid.loss.same_shapes": ({"modality_processing": "hybrid"}, "same_shapes", {}),
    "Transfusion.breakdown": ({}, "interleaved", {"return_breakdown": True}),
    "Transfusion.logits.hiddens": ({}, "interleaved", {"return_loss": False, "return_hiddens": True}),
    "Transfusion.embed": ({}, "interleaved", {"return_embed": True}),
    "Transfusion.given_times.hiddens.times": ({}, "interleaved", {"times": "times", "return_hiddens": True,
                                                                   "return_times": True}),
    "Transfusion.only_pred_flows": ({}, "interleaved", {"return_only_pred_flows": True}),
    "Transfusion.two_modalities.breakdown": (TWO, "two_types", {"return_breakdown": True}),
    "Transfusion.channel_first.encoder_decoder": (IMAGE, "images", {}),
    "Transfusion.pos_emb": (POS, "interleaved", {}),
    "Transfusion.pos_emb.2d": (POS2D, "grids", {}),
    "Transfusion.model_output_clean": ({"model_output_clean": True}, "interleaved", {}),
    "Transfusion.recon_loss": ({"reconstruction_loss_weight": 0.1, "modality_processing": "grouped"},
                               "same_shapes", {}),
    "Transfusion.recon_loss.flat": ({"reconstruction_loss_weight": 0.1, "modality_processing": "flat"},
                                    "interleaved", {}),
    "Transfusion.velocity_consistency.ema": ({}, "interleaved", {"velocity_consistency_ema_model": "ema"}),
    "Transfusion.loss_weights": ({"modality_processing": "grouped"}, "weights", {"return_breakdown": True}),
    "Transfusion.loss_weights.naive": ({"modality_processing": "naive"}, "weights", {}),
    "Transfusion.text_only_batch": ({}, "text_lists", {}),
    "Transfusion.pre_post_enc_dec": ({"enc_dec": True}, "even", {}),
    "Transfusion.value_residual.depth3": ({"transformer": {"use_value_residual": True, "depth": 3}},
                                          "interleaved", {}),
    "Transfusion.depth1.no_unet_skips.laser.no_qk_rmsnorm": ({"transformer": {"unet_skips": False, "depth": 1,
                                                                              "attn_laser": True,
                                                                              "qk_rmsnorm": False}},
                                                             "interleaved", {}),
    "Transfusion.dropout.no_gates.no_softcap": ({"transformer": {"dropout": 0.1, "ff_kwargs": {"dropout": 0.1},
                                                                 "attn_kwargs": {"gate_values": False,
                                                                                 "softcap_value": 0.0}}},
                                                "interleaved", {}),
}
# Text-only forward name -> (model keywords, call keywords, ids with -1 padding).
TEXT_FORWARD: dict[str, tuple[dict[str, Any], dict[str, Any], bool]] = {
    "text.loss": ({}, {}, False),
    "text.loss.padded": ({}, {}, True),
    "text.embed.hiddens": ({}, {"return_loss": False, "return_embed": True, "return_hiddens": True}, False),
    "text.kv_cache": ({}, {"return_loss": False, "return_kv_cache": True}, False),
}
# Modality-only forward name -> (model keywords, call keywords ("times", "ema" resolved), input kind).
MODALITY: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "modality.loss": ({}, {}, "latents"),
    "modality.pred_flow.times": ({}, {"return_loss": False, "times": "times"}, "latents"),
    "modality.velocity_consistency": ({}, {"velocity_consistency_ema_model": "ema", "return_breakdown": True},
                                      "latents"),
    "modality.encoder.recon_loss": ({**IMAGE, "reconstruction_loss_weight": 0.1}, {"return_breakdown": True},
                                    "images"),
    "modality.pos_emb.2d": (POS2D, {}, "grids"),
    "modality.model_output_clean": ({"model_output_clean": True}, {}, "latents"),
    "modality.two_modalities.type1": (TWO, {"modality_type": 1}, "latents2"),
}
# Generation name -> (model keywords, method, fixed keywords, prompt kind or None).
GENERATE: dict[str, tuple[dict[str, Any], str, dict[str, Any], str | None]] = {
    "generate_text_only": ({}, "generate_text_only", {"seq_len": 6}, "ids"),
    "generate_text_only.no_cache.greedy": ({}, "generate_text_only", {"seq_len": 6, "cache_kv": False,
                                                                      "temperature": 0.0}, "ids"),
    "generate_modality_only": ({}, "generate_modality_only", {"batch_size": 2, "modality_steps": 2}, None),
    "generate_modality_only.channel_first.decoder": (IMAGE, "generate_modality_only",
                                                     {"batch_size": 2, "modality_steps": 2}, None),
    "generate_modality_only.two_modalities.fixed_shape": (TWO, "generate_modality_only",
                                                          {"modality_type": 1, "fixed_modality_shape": (4,),
                                                           "modality_steps": 2}, None),
    "sample": ({}, "sample", SAMPLE, None),
    "sample.force_modality": ({}, "sample", FORCE, None),
    "sample.force_modality_shape.cache_kv": ({}, "sample", {**SAMPLE, "force_modality_at_start": (0, (3,)),
                                                           "cache_kv": True}, None),
    "sample.interleaved_prompt.without_prompt": ({}, "sample", {**FORCE, "return_without_prompt": True},
                                                 "interleaved"),
    "sample.encoder_decoder.image_prompt": (IMAGE, "sample", FORCE, "image"),
    "sample.two_modalities.force1.no_cfg": (TWO, "sample", {**SAMPLE, "force_modality_at_start": 1,
                                                            "cfg_scale": 1.0}, "text"),
    "sample.model_output_clean.init_noise.unprocessed": ({"model_output_clean": True}, "sample",
                                                         {**FORCE, "init_modality_noise": "noise",
                                                          "return_unprocessed_modalities": True}, "modality"),
    "sample_many": ({}, "sample_many", FORCE, "batch"),
    "sample_many.mixed_prompts.force_shape.no_cfg": ({}, "sample_many", {**SAMPLE, "cfg_scale": 1.0,
                                                                         "force_modality_at_start": (0, (2,))},
                                                     "mixed"),
    "sample_many.two_modalities.without_prompt.no_cfg": (TWO, "sample_many",
                                                         {**SAMPLE, "force_modality_at_start": 1, "cfg_scale": 1.0,
                                                          "return_without_prompt": True}, "batch"),
}
PARTS = (
    "Transformer", "Transformer.times.causal", "Transformer.modality_positions.excluded_spans",
    "Transformer.attn_mask.is_any_modality", "Transformer.kv_cache", "Transformer.modality_only.hiddens",
    "Transformer.value_residual.laser",
    "Attention.attn_mask.rotary", "Attention.kv_cache", "Attention.value_residual.laser",
    "AdaptiveWrapper.text", "AdaptiveWrapper.modality_only", "AdaptiveWrapper.mixed",
    "AttentionResidual", "RandomFourierEmbed",
    "SelfMaskedRepTraining", "SelfMaskedRepTraining.no_rep_loss.symmetric",
)
FUNCTIONS = (
    "modality_positions_to_tensor", "order_modality_positions_by_seq_offset",
    "derive_rotary_positions_from_modality_positions", "modality_positions_to_is_modality_mask.offset",
    "naive_attn_mask.excluded_spans", "transfusion_attn_mask", "min_p_filter", "sample_text_token.greedy",
    "default_modality_length_to_time_fn", "random_modality_length_to_time_fn",
    "char_tokenize.decode_chars", "get_tokens_since_rightmost_id", "flow_weight_vector",
    "apply_fn_modality_type", "concat_contiguous_text.to_named_modality_items", "print_modality_sample",
    "get_modality_shape_from_seq", "decode_modalities",
    "modality_processing.normalize_item_spec", "modality_processing.weighted_token_loss",
    "modality_processing.build_loss_weights.excluded_spans", "modality_processing.process_modality_batch_flat",
    "modality_processing.process_modality_batch_auto", "modality_processing.evaluate_modality_pos_emb",
)
STEPS = (
    "train_step.interleaved", "train_step.text", "train_step.modality", "train_step.two_modalities.images",
    "train_step.velocity_consistency.ema_update", "train_step.self_masked_rep",
)


def names() -> list[str]:
    return [*FORWARD, *TEXT_FORWARD, *MODALITY, *GENERATE, *PARTS, *FUNCTIONS, *STEPS]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _ids(length: int, seed: int, high: int = TEXT) -> Any:
    import torch

    return torch.randint(0, high, (length,), generator=_gen(seed))


def _latent(*shape: int, seed: int) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _resampler(down: bool) -> Any:
    """A U-Net style pre (down-sampling by 2, latent -> model width) or post (up-sampling, model -> latent
    width) transformer module over channel-last tokens, batched or not (the strategies call both)."""
    from torch import nn

    class Resample(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            conv = nn.Conv1d if down else nn.ConvTranspose1d
            self.conv = conv(LATENT if down else DIM, DIM if down else LATENT, 2, stride=2)

        def forward(self, x: Any) -> Any:
            return self.conv(x.transpose(-1, -2)).transpose(-1, -2)

    return Resample()


def _model(**keywords: Any) -> Any:
    from torch import nn
    from transfusion_pytorch import Transfusion

    keywords = dict(keywords)
    transformer = {**TRANSFORMER, **keywords.pop("transformer", {})}
    if keywords.pop("encoder", False):
        keywords["modality_encoder"] = nn.Conv2d(CHANNELS, LATENT, 3, padding=1)
        keywords["modality_decoder"] = nn.Conv2d(LATENT, CHANNELS, 3, padding=1)
    if keywords.pop("enc_dec", False):
        keywords["pre_post_transformer_enc_dec"] = (_resampler(True), _resampler(False))
    base = {"num_text_tokens": TEXT, "dim_latent": LATENT, "modality_default_shape": (2,)}
    return Transfusion(**{**base, **keywords}, transformer=transformer)


def _batch(kind: str) -> list[Any]:
    """A batch of two samples of text (long) and modalities (float, or ``(type, tensor[, spec])`` tuples)."""
    import torch

    if kind == "interleaved":
        return [[_ids(4, 1), _latent(2, LATENT, seed=2), _ids(3, 3)], [_ids(5, 4), _latent(3, LATENT, seed=5)]]
    if kind == "same_shapes":
        return [[_ids(3, 1), _latent(2, LATENT, seed=2), _ids(2, 3), _latent(2, LATENT, seed=6)],
                [_ids(4, 4), _latent(2, LATENT, seed=5), _ids(2, 7)]]
    if kind == "two_types":
        return [[_ids(3, 1), (0, _latent(2, LATENT, seed=2)), _ids(2, 3), (1, _latent(3, LATENT2, seed=6))],
                [_ids(4, 4), _latent(2, LATENT, seed=5), _ids(2, 7), (1, _latent(2, LATENT2, seed=8)), _ids(2, 9)]]
    if kind == "images":
        return [[_ids(3, 1), _latent(CHANNELS, 4, 4, seed=2), _ids(2, 3)],
                [_ids(4, 4), _latent(CHANNELS, 2, 3, seed=5), _ids(2, 7), _latent(CHANNELS, 2, 2, seed=6)]]
    if kind == "grids":
        return [[_ids(3, 1), _latent(2, 2, LATENT, seed=2), _ids(2, 3)],
                [_ids(4, 4), _latent(2, 3, LATENT, seed=5)]]
    if kind == "weights":
        token_weights = torch.tensor([1.0, 0.5, 0.0])
        return [[(_ids(4, 1), True), (0, _latent(3, LATENT, seed=2), token_weights), (_ids(3, 3), 0.5)],
                [(_ids(5, 4), False), (0, _latent(2, LATENT, seed=5), 0.0), _ids(2, 7),
                 (_latent(2, LATENT, seed=6), False)]]
    if kind == "text_lists":
        return [[_ids(5, 1)], [_ids(3, 2), _ids(2, 3)]]
    if kind == "even":
        return [[_ids(3, 1), _latent(4, LATENT, seed=2), _ids(2, 3)], [_ids(4, 4), _latent(2, LATENT, seed=5)]]
    raise KeyError(kind)


def _resolve(call: dict[str, Any], model: Any, batch: int = 2, modalities: int = 1) -> dict[str, Any]:
    """``call`` with its placeholders resolved: "times" (batch x modalities, or batch) and "ema" (an ``EMA`` of
    ``model``)."""
    import torch

    resolved = dict(call)
    for key, value in call.items():
        if value == "times":
            shape = (batch, modalities) if modalities else (batch,)
            resolved[key] = torch.rand(*shape, generator=_gen(11))
        elif value == "ema":
            resolved[key] = model.create_ema(beta=0.9)
    return resolved


def _forward(name: str) -> Built:
    from gt_calls import Keywords

    keywords, kind, call = FORWARD[name]
    model = _model(**keywords)
    static = _resolve(call, model)
    return (Keywords(model, **static) if static else model), (_batch(kind),), {}


def _text_forward(name: str) -> Built:
    import torch

    from gt_calls import Keywords

    keywords, call, padded = TEXT_FORWARD[name]
    model = _model(**keywords)
    ids = torch.randint(0, TEXT, (2, 8), generator=_gen(1))
    if padded:
        ids[1, -3:] = -1
    return (Keywords(model, **call) if call else model), (ids,), {}


def _modality_input(kind: str) -> Any:
    if kind == "latents":
        return _latent(2, 3, LATENT, seed=1)
    if kind == "latents2":
        return _latent(2, 3, LATENT2, seed=1)
    if kind == "images":
        return _latent(2, CHANNELS, 4, 4, seed=1)
    return _latent(2, 2, 3, LATENT, seed=1)


def _modality(name: str) -> Built:
    from gt_calls import Keywords

    keywords, call, kind = MODALITY[name]
    model = _model(**keywords)
    static = _resolve(call, model, modalities=0)
    return (Keywords(model, **static) if static else model), (_modality_input(kind),), {}


def _prompt(kind: str | None) -> Any:
    """A prompt of ``sample`` / ``sample_many``: text, a modality tuple, an interleaved list, or a batch."""
    if kind == "ids":
        import torch

        return torch.randint(0, TEXT, (2, 3), generator=_gen(1))
    if kind == "text":
        return _ids(3, 1)
    if kind == "modality":
        return (0, _latent(2, LATENT, seed=2))
    if kind == "interleaved":
        return [_ids(3, 1), (0, _latent(2, LATENT, seed=2)), _ids(2, 3)]
    if kind == "image":
        return (0, _latent(CHANNELS, 2, 2, seed=2))
    if kind == "batch":
        return [_ids(3, 1), _ids(2, 3)]
    if kind == "mixed":
        return [(0, _latent(2, LATENT, seed=2)), None, [_ids(2, 3), (0, _latent(3, LATENT, seed=4))]]
    return None


def _generate(name: str) -> Built:
    from gt_calls import Method

    keywords, method, static, prompt = GENERATE[name]
    if method.startswith("sample"):  # one layer: each decoding step traces the whole model again
        keywords = {**keywords, "transformer": {"depth": 1}}
    model = _model(**keywords)
    static = dict(static)
    if static.get("init_modality_noise") == "noise":
        static["init_modality_noise"] = _latent(4, LATENT, seed=9)
    inputs = _prompt(prompt)
    return Method(model, method, **static), (() if inputs is None else (inputs,)), {}


def _transformer(**keywords: Any) -> Any:
    from transfusion_pytorch.transfusion import Transformer

    return Transformer(**{**TRANSFORMER, **keywords})


def _modality_positions() -> Any:
    """(type, offset, length) of the modalities of a batch of 2 sequences of 10: two in the first (the second
    listed before the first), one and an empty slot in the second."""
    import torch

    return torch.tensor([[[0, 6, 3], [0, 1, 2]], [[0, 2, 4], [0, 0, 0]]])


def _part(name: str) -> Built:
    import torch
    from rotary_embedding_torch import RotaryEmbedding
    from transfusion_pytorch import SelfMaskedRepTraining
    from transfusion_pytorch import transfusion as tf

    from gt_calls import Keywords

    gen = _gen(3)
    seq = 10
    x = torch.randn(2, seq, DIM, generator=gen)
    times = torch.rand(2, seq, generator=gen)
    is_modality = torch.zeros(2, seq, dtype=torch.bool)
    is_modality[0, 2:6] = True
    if name == "Transformer":
        return _transformer(), (x,), {}
    if name == "Transformer.times.causal":
        return Keywords(_transformer(), times=times[:, 0], is_any_modality=True, causal_mask=True), (x,), {}
    if name == "Transformer.modality_positions.excluded_spans":
        spans = torch.tensor([[[8, 10]], [[0, 0]]])
        return Keywords(_transformer(), times=times, modality_positions=_modality_positions(),
                        excluded_spans=spans), (x,), {}
    if name == "Transformer.attn_mask.is_any_modality":
        mask = torch.ones(seq, seq, dtype=torch.bool).tril().expand(2, seq, seq).clone()
        mask[1, :, -2:] = False
        return Keywords(_transformer(), times=times, attn_mask=mask, is_any_modality=is_modality), (x,), {}
    if name == "Transformer.kv_cache":
        transformer = _transformer()
        with torch.no_grad():
            _, cache = transformer(x[:, :-1], causal_mask=True, return_kv_cache=True)
        return Keywords(transformer, cache=cache, decode_length=1, return_kv_cache=True), (x,), {}
    if name == "Transformer.modality_only.hiddens":
        return Keywords(_transformer(), times=times[:, 0], modality_only=True, return_hiddens=True), (x,), {}
    if name == "Transformer.value_residual.laser":
        transformer = _transformer(use_value_residual=True, attn_laser=True, depth=3)
        return Keywords(transformer, times=times, is_any_modality=is_modality), (x,), {}
    if name.startswith("Attention"):
        rotary = RotaryEmbedding(8)(torch.arange(seq))
        if name == "Attention.attn_mask.rotary":
            mask = torch.ones(2, seq, seq, dtype=torch.bool)
            mask[0, :, :3] = False
            return Keywords(tf.Attention(DIM, dim_head=8, heads=2), attn_mask=mask, rotary_emb=rotary), (x,), {}
        if name == "Attention.kv_cache":
            cache = torch.randn(2, 2, 2, seq - 1, 8, generator=gen)
            return Keywords(tf.Attention(DIM, dim_head=8, heads=2), cache=cache, return_kv_cache=True,
                            rotary_emb=rotary[-1:]), (x[:, -1:],), {}
        attention = tf.Attention(DIM, dim_head=8, heads=2, learned_value_residual_mix=True, laser=True)
        residual = torch.randn(2, 2, seq, 8, generator=gen)
        return Keywords(attention, value_residual=residual, return_values=True), (x,), {}
    if name.startswith("AdaptiveWrapper"):
        wrapper = tf.AdaptiveWrapper(tf.FeedForward(DIM), dim=DIM, dim_cond=4 * DIM)
        cond = torch.randn(2, seq, 4 * DIM, generator=gen)
        if name == "AdaptiveWrapper.text":
            return wrapper, (x,), {}
        if name == "AdaptiveWrapper.modality_only":
            return Keywords(wrapper, cond=cond[:, 0], modality_only=True), (x,), {}
        return Keywords(wrapper, cond=cond, is_any_modality=is_modality), (x,), {}
    if name == "AttentionResidual":
        return tf.AttentionResidual(DIM), ([x, x * 0.5, x.tanh()],), {}
    if name == "RandomFourierEmbed":
        return tf.RandomFourierEmbed(DIM), (times,), {}
    # SelfMaskedRepTraining
    if name == "SelfMaskedRepTraining.no_rep_loss.symmetric":
        wrapper = SelfMaskedRepTraining(_model(), rep_loss_weight=0.0, use_asymmetric_dropout=False)
    else:
        wrapper = SelfMaskedRepTraining(_model(transformer={"depth": 3}), student_layer=-2)
    return wrapper, (_batch("interleaved"),), {}


def _function(name: str) -> Built:
    import torch
    from transfusion_pytorch import modality_processing as mp
    from transfusion_pytorch import transfusion as tf

    from gt_calls import Call, Method, Run

    gen = _gen(4)
    positions = _modality_positions()
    logits = torch.randn(2, 5, 24, generator=gen)
    if name == "modality_positions_to_tensor":
        return Call(tf.modality_positions_to_tensor, modalities=[[(0, 2, 3), (0, 7, 2)], []]), (), {}
    if name == "order_modality_positions_by_seq_offset":
        return Call(tf.order_modality_positions_by_seq_offset), (positions,), {}
    if name == "derive_rotary_positions_from_modality_positions":
        function = tf.derive_rotary_positions_from_modality_positions
        return Run(torch.nn.Identity(), lambda owner, p: function(10, p), [function]), (positions,), {}
    if name == "modality_positions_to_is_modality_mask.offset":
        function = tf.modality_positions_to_is_modality_mask

        def is_modality(owner: Any, p: Any, offset: Any) -> Any:
            return function(10, p, offset=offset, num_modalities=2)

        return Run(torch.nn.Identity(), is_modality, [function]), (positions, torch.tensor([1, 0])), {}
    if name == "naive_attn_mask.excluded_spans":
        def naive(owner: Any, p: Any, spans: Any) -> Any:
            return tf.naive_attn_mask(10, p, excluded_spans=spans)

        return Run(torch.nn.Identity(), naive, [tf.naive_attn_mask]), \
            (positions, torch.tensor([[[8, 10]], [[0, 0]]])), {}
    if name == "transfusion_attn_mask":
        def mask(owner: Any, modalities: Any, spans: Any, q_idx: Any, kv_idx: Any) -> Any:
            mask_mod = tf.transfusion_attn_mask(modalities, excluded_spans=spans)
            return torch.stack([mask_mod(b, 0, q_idx[:, None], kv_idx[None, :]) for b in range(2)])

        spans = torch.tensor([[[8, 10]], [[0, 0]]])
        return Run(torch.nn.Identity(), mask, [tf.transfusion_attn_mask]), \
            (positions, spans, torch.arange(10), torch.arange(10)), {}
    if name == "min_p_filter":
        return Call(tf.min_p_filter, min_p=0.2), (logits,), {}
    if name == "sample_text_token.greedy":
        return Call(tf.sample_text_token, temperature=0.0), (logits[:, -1],), {}
    if name.endswith("modality_length_to_time_fn"):
        return Call(getattr(tf, name)), (torch.tensor([2, 1, 0]),), {}
    if name == "char_tokenize.decode_chars":
        def chars(owner: Any, offset: Any) -> Any:
            tokens = tf.char_tokenize("3,4", offset=40)
            return tf.decode_chars(tokens + offset, offset=40)

        return Run(torch.nn.Identity(), chars, [tf.char_tokenize, tf.decode_chars]), (torch.tensor(0),), {}
    if name == "get_tokens_since_rightmost_id":
        return Call(tf.get_tokens_since_rightmost_id, rightmost_id=7), (torch.tensor([3, 7, 5, 7, 2, 9]),), {}
    if name == "flow_weight_vector":
        flows = [_latent(3, LATENT, seed=1), _latent(2, LATENT, seed=2)]
        return Call(tf.flow_weight_vector, channel_first=False), ([torch.tensor([1.0, 0.0, 0.5]), 0.5], flows), {}
    if name == "apply_fn_modality_type":
        batch = [[_ids(3, 1), _latent(2, LATENT, seed=2), (0, _latent(2, LATENT, seed=3), 0.5)],
                 [(0, _latent(3, LATENT, seed=4)), (_ids(2, 5), False)]]
        def apply(owner: Any, modalities: list[Any]) -> Any:
            return tf.apply_fn_modality_type(owner, modalities, return_untransformed=True)

        return Run(torch.nn.Tanh(), apply, [tf.apply_fn_modality_type]), (batch,), {}
    if name == "concat_contiguous_text.to_named_modality_items":
        def named(owner: Any, sample: list[Any]) -> Any:
            return tf.to_named_modality_items(tf.concat_contiguous_text(sample))

        sample = [_ids(3, 1), _ids(2, 2), (0, _latent(2, LATENT, seed=3)), _ids(1, 4)]
        return Run(torch.nn.Identity(), named, [tf.concat_contiguous_text, tf.to_named_modality_items]), \
            (sample,), {}
    if name == "print_modality_sample":
        sample = [_ids(3, 1), mp.ModalityItem(0, _latent(2, LATENT, seed=3)), (1, _latent(2, 4, seed=4)),
                  _latent(2, LATENT, seed=5)]
        return Call(tf.print_modality_sample), (sample,), {}
    if name == "get_modality_shape_from_seq":
        model = _model(fallback_to_default_shape_if_invalid=True)
        seq = torch.cat([torch.tensor([model.sos_id, 3, model.meta_id]), model.char_tokenizer("3"),
                         torch.tensor([model.som_ids[0]])])
        return Method(model, "get_modality_shape_from_seq", modality_id=0), (seq,), {}
    if name == "decode_modalities":
        model = _model(**IMAGE)
        sample = [_ids(3, 1), (0, _latent(LATENT, 2, 2, seed=2)), _ids(2, 3)]
        return Method(model, "decode_modalities"), (sample,), {}
    if name == "modality_processing.normalize_item_spec":
        def specs(owner: Any, weights: Any) -> Any:
            return [mp.normalize_item_spec(spec) for spec in (None, True, False, 0.5, weights, [1.0, 0.0])]

        return Run(torch.nn.Identity(), specs, [mp.normalize_item_spec]), (torch.tensor([True, False]),), {}
    if name == "modality_processing.weighted_token_loss":
        def weighted(owner: Any, loss: Any, weights: Any) -> Any:
            return (mp.weighted_token_loss(loss, weights), mp.weighted_token_loss(loss, 0.5),
                    mp.weighted_token_loss(loss.t(), weights, channel_first=True))

        return Run(torch.nn.Identity(), weighted, [mp.weighted_token_loss]), \
            (_latent(3, LATENT, seed=1).abs(), torch.tensor([1.0, 0.0, 0.5])), {}
    if name == "modality_processing.build_loss_weights.excluded_spans":
        def masks(owner: Any, weights: Any) -> Any:
            chunks = [[(0, 3, weights), (5, 7, 0.5)], []]
            return mp.build_loss_weights(chunks, 2, 8, weights.device), \
                mp.build_excluded_spans([[(1, 3), (5, 6)], []], weights.device)

        return Run(torch.nn.Identity(), masks, [mp.build_loss_weights, mp.build_excluded_spans]), \
            (torch.tensor([1.0, 0.0, 0.5]),), {}
    if name.startswith("modality_processing.process_modality_batch"):
        strategy = getattr(mp, name.split(".", 1)[1])
        model = _model(**POS)
        batch = _batch("interleaved")

        def process(owner: Any, times: Any) -> Any:
            out = strategy(batch, times, owner, need_axial_pos_emb=True, return_loss=True, return_embed=False)
            return out.text, out.modality_tokens, out.flows[0]

        return Run(model, process, [strategy]), (torch.rand(2, 1, generator=gen),), {}
    # evaluate_modality_pos_emb
    model = _model(**POS2D)

    def pos_emb(owner: Any, sizes: Any) -> Any:
        config = [[("zeros", 3), (0, (2, 2), (2, 1))], [(0, (2, 3), (2, 1))]]
        return mp.evaluate_modality_pos_emb(config, {0: list(sizes.unbind(0))}, owner, DIM, sizes.device)

    return Run(model, pos_emb, [mp.evaluate_modality_pos_emb]), (torch.tensor([[2, 2], [2, 3]]),), {}


def _step(name: str) -> Built:
    import torch
    from transfusion_pytorch import SelfMaskedRepTraining, Transfusion

    from gt_calls import Run

    if name == "train_step.self_masked_rep":
        owner = SelfMaskedRepTraining(_model(transformer={"depth": 3}))
        optimizer = torch.optim.Adam(owner.parameters(), lr=1e-3)

        def rep_step(module: Any, batch: list[Any]) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                loss, _ = module(batch)
                loss.backward()
                optimizer.step()
                module.update_teacher()
                return loss.detach()

        return Run(owner, rep_step, [SelfMaskedRepTraining]), (_batch("interleaved"),), {}
    if name == "train_step.text":
        model, inputs = _model(), torch.randint(0, TEXT, (2, 8), generator=_gen(1))
    elif name == "train_step.modality":
        model, inputs = _model(), _latent(2, 3, LATENT, seed=1)
    elif name == "train_step.two_modalities.images":
        model, inputs = _model(**{**TWO, "channel_first_latent": (True, False),
                                  "modality_default_shape": ((2, 2), (3,))}), \
            [[_ids(3, 1), (0, _latent(LATENT, 2, 2, seed=2)), _ids(2, 3), (1, _latent(3, LATENT2, seed=4))],
             [_ids(4, 5), (1, _latent(2, LATENT2, seed=6)), (0, _latent(LATENT, 2, 3, seed=7))]]
    else:
        model, inputs = _model(), _batch("interleaved")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ema = model.create_ema(beta=0.9) if "ema_update" in name else None

    def step(module: Any, batch: Any) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = module(batch, velocity_consistency_ema_model=ema) if ema is not None else module(batch)
            loss.backward()
            optimizer.step()
            if ema is not None:
                ema.update()
            return loss.detach()

    return Run(model, step, [Transfusion]), (inputs,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in FORWARD:
        return _forward(name)
    if name in TEXT_FORWARD:
        return _text_forward(name)
    if name in MODALITY:
        return _modality(name)
    if name in GENERATE:
        return _generate(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in STEPS:
        return _step(name)
    raise KeyError(name)
