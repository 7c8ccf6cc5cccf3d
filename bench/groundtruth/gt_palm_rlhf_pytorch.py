"""Ground-truth bench, palm_rlhf_pytorch (PaLM-rlhf-pytorch): PaLM, its reward model and the RLHF actors.

PaLM-rlhf-pytorch (lucidrains) builds RLHF on a small PaLM: parallel attention and feedforward blocks with
multi-query attention (one key / value head), rotary embeddings with xpos decay (cached in buffers), a
layer norm without bias, SwiGLU, a causal or bidirectional mask (negative ids are padding in an encoder),
an optional flash path (``scaled_dot_product_attention`` under ``sdp_kernel``) and LoRA adapters per
fine-tuning scope. On it sit a ``RewardModel`` (a pooled scalar or binned head, prompt / response
embeddings, its own LoRA scope), an ``ActorCritic`` for PPO (actor and critic LoRA scopes, token-wise or
pooled values, an ``ImplicitPRM`` as critic), the actors of the GRPO, FlowRL and TPO trainers, and the
tensor helpers of those trainers. The tables cover, at width 16, one or two layers, 2 heads of 8, a
32-token vocabulary, a batch of 2 and sequences of 12:

- ``PALM``: ``PaLM`` forward: logits, the next-token loss, embeddings only, logits with embeddings, an extra
  embedding, qk RMS norm, flash attention, dropout, a bidirectional encoder over padded ids (with the
  loss ignoring them), a LoRA scope (enabled, disabled, with two layers, in an encoder);
- ``GENERATE``: ``PaLM.generate`` through ``gt_calls.Method`` (8 tokens from a prompt of 4): no prompt,
  one-dimensional and three-dimensional prompts, a prompt as long as the output, ``top_p`` filtering or
  none, an end token that every row has (the early stop) or that never comes, the prompt
  kept, ``tqdm``, a LoRA scope, flash attention, qk RMS norm;
- ``REWARD``: ``RewardModel`` forward: a scalar or binned head (sampled from the bins or not), a padding
  mask, a prompt mask or prompt lengths, labels (the MSE or cross-entropy loss), no LoRA or LoRA disabled;
- ``CRITIC``: ``ActorCritic`` forward (values or not, pooled values with and without a mask, no LoRA with
  dropout, a separate critic, an ``ImplicitPRM`` critic) and ``ActorCritic.generate`` (values, an end token,
  pooled values, a PRM critic, sampling options); the GRPO, FlowRL and TPO ``Actor`` forward and
  ``generate`` (with and without an end token); ``ImplicitPRM`` forward (rewards, the loss);
- ``PARTS``: ``ParallelTransformerBlock`` (with LoRA modules, qk RMS norm, a padding mask, flash),
  ``Residual`` (in place under ``no_grad``), ``Attention`` (causal, masked, flash, dropout),
  ``RotaryEmbedding`` (xpos or not) and FlowRL's ``PartitionFunction`` (the layer norm, SwiGLU and LoRA
  run inside the blocks);
- ``FUNCTIONS``: the sampling and tensor helpers through ``gt_calls.Call``: ``top_k``, ``top_p``,
  ``gumbel_sample``, ``masked_mean``, ``apply_rotary_pos_emb``, PPO's ``masked_normalize``,
  ``pad_sequence_fixed``, ``log_prob``, ``shift``, ``masked_entropy``, ``masked_kl_div``, GRPO's ``safe_div``
  (a tensor denominator), ``masked_kl_div``, ``pad_sequence_fixed`` and ``score_centering_loss`` (full
  vocabulary, top-k, a weight function), FlowRL's ``entropy``, ``shift`` and ``masked_kl_div``, TPO's
  ``z_score``, ``get_logprob_at``;
- ``STEPS``: the tensor side of the trainers' ``learn``: the PPO policy loss (``ActorCritic`` and the PPO
  helpers, as ``learn`` combines them), the GRPO policy loss (classic clipping or score centering) and TPO's
  ``get_log_probs``.

Left out: the trainers themselves (``RLHFTrainer``, ``FlowRLTrainer``: an ``Accelerator``, optimizers,
a replay buffer on disk and data loaders), checkpoint loading and ``merge_finetune_params`` (a one-off
weight edit). Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker
only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TOKENS, DIM, HEADS, DIM_HEAD, BATCH, SEQ = 32, 16, 2, 8, 2, 12
GEN_LEN, PROMPT, EOS = 8, 4, 1
BASE: dict[str, Any] = {"num_tokens": TOKENS, "dim": DIM, "depth": 1, "heads": HEADS, "dim_head": DIM_HEAD,
                        "ff_mult": 2, "lora_r": 4}
LOSS: dict[str, Any] = {"return_loss": True}
DROPOUT: dict[str, Any] = {"attn_dropout": 0.1, "ff_dropout": 0.1}
FLASH: dict[str, Any] = {"flash_attn": True}
LORA: dict[str, Any] = {"finetune_scopes": ("default",)}
SCOPE: dict[str, Any] = {"finetune_scope": "default"}
ENCODER: dict[str, Any] = {"causal": False, "cross_entropy_ignore_index": -1}

# ``PaLM`` forward name -> (keywords over ``BASE``, ids: "ids" or "padded" (trailing -1s, an encoder's
# padding), call keywords; "extra_embed" is resolved to a tensor).
PALM: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "PaLM": ({}, "ids", {}),
    "PaLM.loss": ({}, "ids", LOSS),
    "PaLM.depth2.loss": ({"depth": 2}, "ids", LOSS),
    "PaLM.embedding": ({}, "ids", {"return_only_embedding": True}),
    "PaLM.logits_with_embedding": ({}, "ids", {"return_logits_with_embedding": True}),
    "PaLM.extra_embed": ({}, "ids", {"extra_embed": "extra_embed"}),
    "PaLM.qk_rmsnorm.loss": ({"qk_rmsnorm": True}, "ids", LOSS),
    "PaLM.flash_attn.loss": (FLASH, "ids", LOSS),
    "PaLM.dropout.loss": (DROPOUT, "ids", LOSS),
    "PaLM.encoder": (ENCODER, "padded", {}),
    "PaLM.encoder.loss": (ENCODER, "padded", LOSS),
    "PaLM.encoder.flash_attn": ({**ENCODER, **FLASH}, "padded", {}),
    "PaLM.lora": (LORA, "ids", SCOPE),
    "PaLM.lora.loss": (LORA, "ids", {**SCOPE, **LOSS}),
    "PaLM.lora.disabled": (LORA, "ids", {**SCOPE, "disable_lora": True}),
    "PaLM.lora.depth2.qk_rmsnorm.loss": ({**LORA, "depth": 2, "qk_rmsnorm": True}, "ids", {**SCOPE, **LOSS}),
    "PaLM.lora.encoder": ({**LORA, **ENCODER}, "padded", SCOPE),
}
# ``PaLM.generate`` name -> (keywords over ``BASE``, prompt: None, "prompt" (batch x 4), "eos" (an end
# token in every row), "1d", "3d" or "long" (as long as the output), fixed keywords; "filter" names the
# filter function of ``palm_rlhf_pytorch.utils``, or None).
GENERATE: dict[str, tuple[dict[str, Any], str | None, dict[str, Any]]] = {
    "generate": ({}, "prompt", {}),
    "generate.no_prompt": ({}, None, {}),
    "generate.prompt_1d": ({}, "1d", {}),
    "generate.prompt_3d": ({}, "3d", {}),
    "generate.long_prompt": ({}, "long", {}),
    "generate.top_p": ({}, "prompt", {"filter": "top_p", "filter_thres": 0.8}),
    "generate.no_filter": ({}, "prompt", {"filter": None}),
    "generate.eos": ({}, "eos", {"eos_token": EOS}),
    "generate.eos.never": ({}, "prompt", {"eos_token": TOKENS + 1, "pad_value": -1}),
    "generate.with_prompt": ({}, "prompt", {"return_seq_without_prompt": False}),
    "generate.tqdm": ({}, "prompt", {"use_tqdm": True}),
    "generate.lora": (LORA, "prompt", SCOPE),
    "generate.flash_attn": (FLASH, "prompt", {}),
    "generate.qk_rmsnorm.depth2": ({"qk_rmsnorm": True, "depth": 2}, "prompt", {}),
}
# ``RewardModel`` name -> (keywords of ``RewardModel``, inputs of its forward: "mask", "prompt_mask",
# "prompt_lengths", "labels" (a scalar or a bin per row), "disable_lora").
BINNED: dict[str, Any] = {"num_binned_output": 5}
REWARD: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "RewardModel": ({}, ()),
    "RewardModel.mask": ({}, ("mask",)),
    "RewardModel.prompt_mask": ({}, ("prompt_mask",)),
    "RewardModel.prompt_lengths": ({}, ("prompt_lengths",)),
    "RewardModel.prompt_mask.mask.labels": ({}, ("prompt_mask", "mask", "labels")),
    "RewardModel.no_lora": ({"use_lora": False}, ("mask",)),
    "RewardModel.disable_lora": ({}, ("disable_lora",)),
    "RewardModel.binned": (BINNED, ()),
    "RewardModel.binned.no_sample": ({**BINNED, "sample_from_bins": False}, ("mask",)),
    "RewardModel.binned.labels": (BINNED, ("labels",)),
    "RewardModel.binned.prompt_lengths.mask": ({**BINNED, "sample_temperature": 0.5}, ("prompt_lengths", "mask")),
}
# ``ActorCritic`` name -> (keywords, critic: None (a copy of the actor), "palm" or "prm", forward keywords
# ("mask" resolved to the action mask) or, for ``generate``, its fixed keywords).
CRITIC: dict[str, tuple[dict[str, Any], str | None, dict[str, Any]]] = {
    "ActorCritic": ({}, None, {}),
    "ActorCritic.no_values": ({}, None, {"return_values": False}),
    "ActorCritic.pooled_values": ({"pooled_values": True}, None, {}),
    "ActorCritic.pooled_values.mask": ({"pooled_values": True}, None, {"mask": "mask"}),
    "ActorCritic.no_lora.dropout": ({"actor_lora": False, "critic_lora": False, "actor_dropout": 0.1,
                                     "critic_dropout": 0.1}, None, {}),
    "ActorCritic.critic_palm": ({"critic_dim_out": 3}, "palm", {}),
    "ActorCritic.prm": ({}, "prm", {}),
    "ActorCritic.generate": ({}, None, {}),
    "ActorCritic.generate.values": ({}, None, {"return_values": True}),
    "ActorCritic.generate.eos.values": ({}, None, {"eos_token": EOS, "return_values": True}),
    "ActorCritic.generate.pooled_values": ({"pooled_values": True}, None, {"return_values": True}),
    "ActorCritic.generate.prm": ({}, "prm", {"return_values": True}),
    "ActorCritic.generate.sampling": ({}, None, {"temperature": 0.7, "filter": "top_p"}),
}
# The ``Actor`` of each of the GRPO, FlowRL and TPO modules: forward, ``generate`` with and without an end token.
ACTORS = tuple(f"{module}.{model}" for module in ("grpo", "flowrl", "tpo")
               for model in ("Actor", "Actor.generate", "Actor.generate.eos"))
PRM = ("ImplicitPRM", "ImplicitPRM.labels")
PARTS = ("ParallelTransformerBlock", "ParallelTransformerBlock.lora", "ParallelTransformerBlock.qk_rmsnorm",
         "ParallelTransformerBlock.encoder.mask", "ParallelTransformerBlock.flash.mask", "Residual",
         "Attention", "Attention.mask", "Attention.flash", "Attention.flash.mask", "Attention.dropout",
         "RotaryEmbedding", "RotaryEmbedding.no_xpos", "PartitionFunction")
# Function name -> (module of ``palm_rlhf_pytorch``, function, inputs (names of ``_tensors``), fixed keywords).
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    "top_k": ("utils", "top_k", ("logits",), {"thres": 0.8}),
    "top_p": ("utils", "top_p", ("logits",), {"thres": 0.8}),
    "gumbel_sample": ("utils", "gumbel_sample", ("logits",), {"temperature": 0.7}),
    "masked_mean": ("utils", "masked_mean", ("seq2", "mask"), {}),
    "masked_mean.no_mask": ("utils", "masked_mean", ("seq2",), {}),
    "masked_mean.features.keepdim": ("utils", "masked_mean", ("embeds", "mask"), {"keepdim": True}),
    "apply_rotary_pos_emb": ("palm", "apply_rotary_pos_emb", ("freqs", "heads"), {"scale": 0.5}),
    "ppo.masked_normalize": ("ppo", "masked_normalize", ("seq2",), {}),
    "ppo.masked_normalize.mask": ("ppo", "masked_normalize", ("seq2",), {"mask": "mask", "dim": -1}),
    "ppo.pad_sequence_fixed": ("ppo", "pad_sequence_fixed", ("ragged",), {"batch_first": True}),
    "ppo.pad_sequence_fixed.scalars": ("ppo", "pad_sequence_fixed", ("scalars",), {"batch_first": True}),
    "ppo.log_prob": ("ppo", "log_prob", ("probs", "ids"), {}),
    "ppo.shift": ("ppo", "shift", ("logits3",), {"shift": 1, "dim": -2}),
    "ppo.masked_entropy": ("ppo", "masked_entropy", ("probs",), {"mask": "mask"}),
    "ppo.masked_entropy.no_mask": ("ppo", "masked_entropy", ("probs",), {}),
    "ppo.masked_kl_div": ("ppo", "masked_kl_div", ("probs", "probs2", "mask"), {}),
    "ppo.masked_kl_div.reduce_batch": ("ppo", "masked_kl_div", ("probs", "probs2"), {"reduce_batch": True}),
    "grpo.safe_div": ("grpo", "safe_div", ("seq2", "positive"), {}),
    "grpo.masked_kl_div.reduce_batch": ("grpo", "masked_kl_div", ("probs", "probs2", "mask"), {"reduce_batch": True}),
    "grpo.pad_sequence_fixed": ("grpo", "pad_sequence_fixed", ("ragged",), {"batch_first": True}),
    "grpo.pad_sequence_fixed.scalars": ("grpo", "pad_sequence_fixed", ("scalars",), {"batch_first": True}),
    "grpo.score_centering_loss": ("grpo", "score_centering_loss", ("log_probs", "probs", "ids", "advantages"), {}),
    "grpo.score_centering_loss.topk": ("grpo", "score_centering_loss", ("log_probs", "probs", "ids", "advantages"),
                                       {"topk": 4}),
    "grpo.score_centering_loss.topk.weight_fn": ("grpo", "score_centering_loss",
                                                 ("log_probs", "probs", "ids", "advantages2"),
                                                 {"topk": 4, "weight_fn": "clamp"}),
    "flowrl.entropy": ("flowrl", "entropy", ("probs",), {}),
    "flowrl.shift": ("flowrl", "shift", ("logits3",), {"shift": 1, "dim": -2}),
    "flowrl.masked_kl_div": ("flowrl", "masked_kl_div", ("probs", "probs2", "mask"), {}),
    "tpo.z_score": ("tpo", "z_score", ("seq2",), {}),
    "get_logprob_at": ("implicit_process_reward", "get_logprob_at", ("logits3", "ids"), {}),
}
STEPS = ("ppo_step", "grpo_step", "grpo_step.score_centering", "tpo.get_log_probs")


def names() -> list[str]:
    return [*PALM, *GENERATE, *REWARD, *CRITIC, *ACTORS, *PRM, *PARTS, *FUNCTIONS, *STEPS]


def _palm(**keywords: Any) -> Any:
    from palm_rlhf_pytorch import PaLM

    return PaLM(**{**BASE, **keywords})


def _ids(kind: str = "ids", length: int = SEQ, seed: int = 1) -> Any:
    """Token ids (batch x ``length``); "padded" ends its rows with -1 padding (one row longer than the other),
    "eos" puts the end token in every row."""
    import torch

    ids = torch.randint(2, TOKENS, (BATCH, length), generator=torch.Generator().manual_seed(seed))
    if kind == "padded":
        ids[0, -2:] = -1
        ids[1, -4:] = -1
    elif kind == "eos":
        ids[:, 1] = EOS
    return ids


def _action_mask(length: int = SEQ) -> Any:
    """The response part of the sequences (after a prompt of ``PROMPT``), one row cut short."""
    import torch

    mask = torch.arange(length).expand(BATCH, length) >= PROMPT
    mask[1, -3:] = False
    return mask


def _filter(static: dict[str, Any]) -> dict[str, Any]:
    """``static`` with "filter" resolved to ``filter_logits_fn``."""
    from palm_rlhf_pytorch import utils

    static = dict(static)
    if "filter" in static:
        name = static.pop("filter")
        static["filter_logits_fn"] = getattr(utils, name) if name else None
    return static


def _palm_forward(name: str) -> Built:
    import torch

    keywords, ids, call = PALM[name]
    if "extra_embed" in call:
        call = {**call, "extra_embed": torch.randn(BATCH, SEQ, DIM, generator=torch.Generator().manual_seed(2))}
    return _palm(**keywords), (_ids(ids),), dict(call)


def _generate(name: str) -> Built:
    from gt_calls import Method

    keywords, prompt, static = GENERATE[name]
    model = Method(_palm(**keywords), "generate", seq_len=GEN_LEN, **_filter(static))
    if prompt is None:
        return model, (), {}
    ids = _ids("eos" if prompt == "eos" else "ids", GEN_LEN if prompt == "long" else PROMPT)
    if prompt == "1d":
        ids = ids[0]
    elif prompt == "3d":
        ids = ids.expand(2, BATCH, PROMPT)
    return model, (), {"prompt": ids}


def _reward(name: str) -> Built:
    import torch
    from palm_rlhf_pytorch import RewardModel

    keywords, inputs = REWARD[name]
    gen = torch.Generator().manual_seed(3)
    model = RewardModel(_palm(), lora_r=4, **keywords)
    binned = "num_binned_output" in keywords
    values = {
        "mask": lambda: _action_mask() | (torch.arange(SEQ) < PROMPT),
        "prompt_mask": lambda: (torch.arange(SEQ) < PROMPT).expand(BATCH, SEQ),
        "prompt_lengths": lambda: torch.tensor([PROMPT, PROMPT + 2]),
        "labels": lambda: torch.randint(0, 5, (BATCH,), generator=gen) if binned else torch.randn(BATCH, generator=gen),
        "disable_lora": lambda: True,
    }
    return model, (_ids(),), {k: values[k]() for k in inputs}


def _actor_critic(keywords: dict[str, Any], critic: str | None) -> Any:
    from palm_rlhf_pytorch import ActorCritic, ImplicitPRM

    critic_model = {None: lambda: None, "palm": lambda: _palm(depth=2),
                    "prm": lambda: ImplicitPRM(_palm(), beta=0.1)}[critic]()
    return ActorCritic(_palm(), critic=critic_model, actor_lora_r=4, critic_lora_r=4, **keywords)


def _critic(name: str) -> Built:
    from gt_calls import Method

    keywords, critic, call = CRITIC[name]
    model = _actor_critic(keywords, critic)
    if ".generate" in name:
        state = _ids("eos" if "eos_token" in call else "ids", PROMPT)
        return Method(model, "generate", max_seq_len=GEN_LEN, **_filter(call)), (state,), {}
    call = {k: _action_mask() if v == "mask" else v for k, v in call.items()}
    return model, (_ids(),), call


def _actor(name: str) -> Built:
    import importlib

    from gt_calls import Method

    module, model = name.split(".", 1)
    actor = importlib.import_module(f"palm_rlhf_pytorch.{module}").Actor(_palm(), actor_lora_r=4)
    if model.startswith("Actor.generate"):
        eos = model.endswith("eos")
        return Method(actor, "generate", max_seq_len=GEN_LEN, eos_token=EOS if eos else None), \
            (_ids("eos" if eos else "ids", PROMPT),), {}
    return actor, (_ids(),), {"mask": _action_mask()}


def _prm(name: str) -> Built:
    import torch
    from palm_rlhf_pytorch import ImplicitPRM

    model = ImplicitPRM(_palm(), ref_model=_palm())
    return model, (_ids(),), {"labels": torch.tensor([1.0, 0.0])} if name.endswith("labels") else {}


def _part(name: str) -> Built:
    import torch
    from gt_calls import Run
    from palm_rlhf_pytorch import attention, flowrl, lora, palm
    from torch import nn

    gen = torch.Generator().manual_seed(4)
    x = torch.randn(BATCH, SEQ, DIM, generator=gen)
    mask = torch.arange(SEQ).expand(BATCH, SEQ) < torch.tensor([[SEQ], [SEQ - 3]])
    if name.startswith(("ParallelTransformerBlock", "Residual")):
        encoder = ".encoder" in name or name.endswith("flash.mask")
        block = palm.ParallelTransformerBlock(DIM, dim_head=DIM_HEAD, heads=HEADS, ff_mult=2, causal=not encoder,
                                              qk_rmsnorm=name.endswith("qk_rmsnorm"), flash_attn=".flash" in name)
        if name == "Residual":
            return palm.Residual(block), (x,), {}
        if name.endswith("lora"):
            loras = nn.ModuleList([lora.LoRA(DIM, HEADS * DIM_HEAD, r=4), lora.LoRA(DIM, DIM_HEAD, r=4),
                                   lora.LoRA(DIM, DIM_HEAD, r=4), lora.LoRA(HEADS * DIM_HEAD, DIM, r=4)])
            for module in loras:  # LoRA starts as a no-op (B = 0): give it weight
                nn.init.normal_(module.B, std=0.02)
            return Run(nn.ModuleList([block, loras]), lambda owner, t: owner[0](t, finetune_modules=tuple(owner[1])),
                       [palm.ParallelTransformerBlock]), (x,), {}
        return block, (x,), {"mask": mask} if encoder else {}
    if name.startswith("Attention"):
        masked = name.endswith("mask")
        attend = attention.Attention(causal=not masked, dropout=0.1 if name.endswith("dropout") else 0.0,
                                     use_flash_attn=".flash" in name)
        q = torch.randn(BATCH, HEADS, SEQ, DIM_HEAD, generator=gen)
        k, v = (torch.randn(BATCH, SEQ, DIM_HEAD, generator=gen) for _ in range(2))
        return attend, (q, k, v), {"mask": mask} if masked else {}
    if name.startswith("RotaryEmbedding"):
        return palm.RotaryEmbedding(DIM_HEAD, use_xpos=not name.endswith("no_xpos")), (SEQ, torch.device("cpu")), {}
    return flowrl.PartitionFunction(hidden_dim=DIM, num_layers=2), (x.mean(1),), {}


def _tensors() -> dict[str, Any]:
    """The inputs of ``FUNCTIONS``, by name."""
    import torch

    gen = torch.Generator().manual_seed(5)
    logits3 = torch.randn(BATCH, SEQ, TOKENS, generator=gen)
    return {
        "logits": torch.randn(BATCH, TOKENS, generator=gen),
        "logits3": logits3,
        "log_probs": logits3.log_softmax(-1),
        "probs": logits3.softmax(-1),
        "probs2": torch.randn(BATCH, SEQ, TOKENS, generator=gen).softmax(-1),
        "ids": _ids(),
        "seq2": torch.randn(BATCH, SEQ, generator=gen),
        "positive": torch.rand(BATCH, SEQ, generator=gen) + 0.5,
        "embeds": torch.randn(BATCH, SEQ, DIM, generator=gen),
        "mask": _action_mask(),
        "advantages": torch.randn(BATCH, generator=gen),
        "advantages2": torch.randn(BATCH, SEQ, generator=gen),
        "freqs": torch.randn(SEQ, DIM_HEAD, generator=gen),
        "heads": torch.randn(BATCH, HEADS, SEQ, DIM_HEAD, generator=gen),
        "ragged": [torch.randn(n, generator=gen) for n in (5, 3, 4)],
        "scalars": [torch.randn((), generator=gen) for _ in range(3)],
    }


def _function(name: str) -> Built:
    import importlib

    from gt_calls import Call

    module, function, inputs, static = FUNCTIONS[name]
    tensors = _tensors()
    resolved = {"mask": tensors["mask"], "clamp": lambda r: r.clamp(max=2.0)}
    static = {k: resolved.get(v, v) if isinstance(v, str) else v for k, v in static.items()}
    return Call(getattr(importlib.import_module(f"palm_rlhf_pytorch.{module}"), function), **static), \
        tuple(tensors[i] for i in inputs), {}


def _ppo_step() -> Built:
    """``RLHFTrainer.learn``'s policy loss (PPO): new action log-probs, entropies, the KL penalty, normalised
    advantages and the clipped surrogate."""
    import torch
    from gt_calls import Run
    from palm_rlhf_pytorch import ppo

    gen = torch.Generator().manual_seed(6)
    model = _actor_critic({}, None)
    action_len = SEQ - PROMPT
    old_probs = torch.randn(BATCH, SEQ, TOKENS, generator=gen).softmax(-1)
    old_log_probs = torch.randn(BATCH, action_len, generator=gen) - 3.0
    rewards, old_values = torch.randn(BATCH, generator=gen), torch.randn(BATCH, generator=gen)

    def run(owner: Any, sequences: Any, action_masks: Any) -> Any:
        action_logits, values = owner(sequences, mask=action_masks)
        action_logits = ppo.shift(action_logits, shift=1, dim=-2)
        action_probs = action_logits.softmax(dim=-1)
        action_log_probs = ppo.log_prob(action_probs, sequences)[:, -action_len:]
        entropies = ppo.masked_entropy(action_probs, mask=action_masks)
        kl_penalty = ppo.masked_kl_div(old_probs, action_probs, mask=action_masks) * 0.1
        advantages = ppo.masked_normalize(rewards - kl_penalty - old_values)
        ratios = (action_log_probs - old_log_probs).exp()
        surr = torch.min(ratios * advantages[:, None], ratios.clamp(0.8, 1.2) * advantages[:, None])
        return (-surr - 0.01 * entropies).mean() + values.mean()

    entries = [ppo.ActorCritic, ppo.shift, ppo.log_prob, ppo.masked_entropy, ppo.masked_kl_div, ppo.masked_normalize]
    return Run(model, run, entries), (_ids(), _action_mask()), {}


def _grpo_step(score_centering: bool) -> Built:
    """``grpo.RLHFTrainer.learn``'s policy loss: the actor's log-probs, entropies, the KL penalty, then the
    clipped ratio or ``score_centering_loss``, averaged over the actions."""
    import torch
    from gt_calls import Run
    from palm_rlhf_pytorch import grpo

    gen = torch.Generator().manual_seed(7)
    actor = grpo.Actor(_palm(), actor_lora_r=4)
    old_probs = torch.randn(BATCH, SEQ, TOKENS, generator=gen).softmax(-1)
    old_log_probs = torch.randn(BATCH, SEQ, generator=gen) - 3.0
    advantages = torch.randn(BATCH, generator=gen)

    def run(owner: Any, sequences: Any, action_masks: Any) -> Any:
        logits = grpo.shift(owner(sequences, mask=action_masks), 1, dim=-2)
        log_probs_all = logits.log_softmax(dim=-1)
        action_probs = log_probs_all.exp()
        action_log_probs = log_probs_all.gather(-1, sequences[..., None]).squeeze(-1)
        entropies = grpo.masked_mean(grpo.entropy(action_probs, reduce=False), mask=action_masks)
        adv = (advantages - grpo.masked_kl_div(old_probs, action_probs, mask=action_masks) * 0.1)[:, None]
        if score_centering:
            policy_loss = grpo.score_centering_loss(log_probs_all, old_probs, sequences, adv, topk=4)
        else:
            ratios = (action_log_probs - old_log_probs).exp()
            policy_loss = -torch.min(ratios * adv, ratios.clamp(0.8, 1.2) * adv)
        return (grpo.masked_mean(policy_loss, mask=action_masks) - 0.01 * entropies).mean()

    entries = [grpo.Actor, grpo.masked_kl_div, grpo.masked_mean]
    if score_centering:
        entries.append(grpo.score_centering_loss)
    return Run(actor, run, entries), (_ids(), _action_mask()), {}


def _tpo_log_probs() -> Built:
    """``tpo.RLHFTrainer.get_log_probs`` on a holder of the actor (the trainer needs an ``Accelerator``)."""
    from gt_calls import Run
    from palm_rlhf_pytorch import tpo
    from torch import nn

    holder = nn.Module()
    holder.actor = tpo.Actor(_palm(), actor_lora_r=4)
    return Run(holder, tpo.RLHFTrainer.get_log_probs, [tpo.RLHFTrainer.get_log_probs]), (_ids(), _action_mask()), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in PALM:
        return _palm_forward(name)
    if name in GENERATE:
        return _generate(name)
    if name in REWARD:
        return _reward(name)
    if name in CRITIC:
        return _critic(name)
    if name in ACTORS:
        return _actor(name)
    if name in PRM:
        return _prm(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name == "ppo_step":
        return _ppo_step()
    if name.startswith("grpo_step"):
        return _grpo_step(name.endswith("score_centering"))
    if name == "tpo.get_log_probs":
        return _tpo_log_probs()
    raise KeyError(name)
