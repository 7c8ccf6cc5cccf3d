"""Ground-truth bench, x_mlps_pytorch: lucidrains' collection of MLP variants, their wrappers and options.

x-mlps-pytorch 0.6.9 ships plain ``MLP`` (``mlp.py``) and a normed one (``normed_mlp.py``), residual
``Feedforwards``, normalized ``nFeedforwards`` (nGPT-style weight-normed linears by parametrization, slerp
residuals), grouped versions of these (``GroupedMLP``, ``GroupedFeedforwards``, ``nGroupedFeedforwards``: grouped
1 x 1 convolutions), ``ResidualNormedMLP`` (orthogonal residuals, keel post-norm, skip to output, FiLM) and
``AttnResidualNormedMLP`` (attention over all preceding hiddens, streams, loops, a relative position bias),
``FiLM`` and ``FiLMableMLP``, latent-conditioned MLPs and feedforwards, weight-only MLPs (biases as weight
columns), ``LoRA``, ``GradientDropout``, activations (ReLU squared, StarReLU, straight-through ``Sugar`` with
BSiLU or NeLU backward), normalization-equivariant norms with their inverses, past-action encoders,
``Noisable`` (seeded parameter noise through ``functional_call``) and ``Ensemble`` (``vmap`` over stacked
parameters). The tables cover, at width 8 (16 inside), a batch of 2, sequences of 3:

- ``MODELS``: each class's forward under its main options (depths, projections in and out, norms, squeezing,
  list inputs, groups, conditioning, streams and loops, hiddens in and out, activations, masks and absent
  inputs, noise by seed, scaled seed, tensor and low rank, ensemble member choices);
- ``FUNCTIONS``: the factories' networks, ``rmsnorm`` and ``layernorm`` with inverse and statistics, the norm
  modules' inverses, ``relu_squared``, ``Noisable.get_noised_params`` and ``temp_add_noise_``,
  ``Ensemble.forward_one``, ``nFeedforwards.norm_weights_``;
- ``TRAIN``: training steps: a loss backward and an optimizer step through an MLP, a FiLM-conditioned residual
  MLP, a streamed attention-residual MLP, normalized feedforwards (weights renormed after the step), gradient
  dropout, a straight-through activation, an ensemble, a weight-only MLP, a FiLMable MLP, and noise added to
  gradients by ``Noisable.add_noise_``.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM, HID, OUT, COND, ACTIONS = 2, 3, 8, 16, 4, 6, 5
X = ("x", DIM)  # (batch, DIM)
S = ("seq", DIM)  # (batch, SEQ, DIM)

# Model name -> (``module:Class`` or ``module:factory``, positional arguments, keywords (activation names
# resolved by ``_activation``), inputs: a tuple of ("x" | "seq" | "list" | "cond" | "seqcond" | "mask" | "long" |
# "int", width) pairs, or ("none",) for a call without arguments; keywords of the call).
MODELS: dict[str, tuple[str, tuple[Any, ...], dict[str, Any], tuple[Any, ...], dict[str, Any]]] = {
    "MLP": ("mlp:MLP", (DIM, HID, OUT), {}, (X,), {}),
    "MLP.activate_last.no_bias": ("mlp:MLP", (DIM, HID, HID), {"activate_last": True, "bias": False}, (S,), {}),
    "MLP.squeeze_out": ("mlp:MLP", (DIM, HID, 1), {"squeeze_out": True}, (S,), {}),
    "MLP.list_input": ("mlp:MLP", (DIM, HID, OUT), {}, (("list", DIM),), {}),
    "MLP.ReluNelu": ("mlp:MLP", (DIM, HID, OUT), {"activation": "ReluNelu"}, (X,), {}),
    "MLP.SugarBSiLU.neg_region_only": ("mlp:MLP", (DIM, HID, OUT), {"activation": "SugarBSiLU.neg"}, (S,), {}),
    "MLP.StarRelu": ("mlp:MLP", (DIM, HID, OUT), {"activation": "StarRelu"}, (X,), {}),
    "MLP.StarRelu.signed": ("mlp:MLP", (DIM, HID, OUT), {"activation": "StarRelu.signed"}, (X,), {}),
    "MLP.ReluSquared.signed": ("mlp:MLP", (DIM, HID, OUT), {"activation": "ReluSquared.signed"}, (X,), {}),
    "MLP.StraightThrough": ("mlp:MLP", (DIM, HID, OUT), {"activation": "StraightThrough"}, (X,), {}),
    "NormedMLP": ("normed_mlp:MLP", (DIM, HID, HID, OUT), {}, (X,), {}),
    "NormedMLP.rmsnorm.final_norm": ("normed_mlp:MLP", (DIM, HID, OUT), {"use_rmsnorm": True, "final_norm": True},
                                     (S,), {}),
    "NormedMLP.no_affine.squeeze_out": ("normed_mlp:MLP", (DIM, HID, 1),
                                        {"norm_elementwise_affine": False, "squeeze_out": True}, (S,), {}),
    "Feedforwards": ("ff:Feedforwards", (DIM, 2), {}, (X,), {}),
    "Feedforwards.proj_in_out.final_norm": ("ff:Feedforwards", (DIM, 2),
                                            {"dim_in": COND, "dim_out": OUT, "final_norm": True, "bias": False},
                                            (("seq", COND),), {}),
    "Feedforwards.list_input": ("ff:Feedforwards", (DIM, 1), {"dim_in": DIM}, (("list", DIM),), {}),
    "nFeedforwards": ("nff:nFeedforwards", (HID, 2), {}, (("x", HID),), {}),
    "nFeedforwards.proj_in_out.preserve_magnitude": ("nff:nFeedforwards", (HID, 2),
                                                     {"dim_in": DIM, "dim_out": OUT, "input_preserve_magnitude": True},
                                                     (S,), {}),
    "nFeedforwards.manual_norm_weights": ("nff:nFeedforwards", (HID, 2),
                                          {"manual_norm_weights": True, "dim_out": OUT}, (("x", HID),), {}),
    "nFeedforwards.per_layer_scales": ("nff:nFeedforwards", (HID, 2),
                                       {"alpha_ff_init": (0.1, 0.2), "s_ff_hidden_scale": (1.0, 0.5),
                                        "alpha_init": 0.3}, (("x", HID),), {}),
    "nGroupedFeedforwards": ("grouped_nff:nGroupedFeedforwards", (DIM, 2), {"groups": 2}, (X,), {}),
    "nGroupedFeedforwards.squeeze_if_one_group": ("grouped_nff:nGroupedFeedforwards", (DIM, 1),
                                                  {"squeeze_if_one_group": True}, (S,), {}),
    "nGroupedFeedforwards.proj_in_out.preserve_magnitude": ("grouped_nff:nGroupedFeedforwards", (DIM, 2),
                                                            {"groups": 2, "dim_in": COND, "dim_out": OUT,
                                                             "input_preserve_magnitude": True},
                                                            (("seq", COND),), {}),
    "nGroupedFeedforwards.manual_norm_weights": ("grouped_nff:nGroupedFeedforwards", (DIM, 1),
                                                 {"groups": 2, "manual_norm_weights": True}, (S,), {}),
    "GroupedMLP": ("grouped_mlp:GroupedMLP", (DIM, HID, OUT), {"groups": 2}, (X,), {}),
    "GroupedMLP.pregrouped.activate_last": ("grouped_mlp:GroupedMLP", (DIM, HID, OUT),
                                            {"groups": 2, "activate_last": True}, (("seq", 2 * DIM),), {}),
    "GroupedMLP.squeeze_if_one_group": ("grouped_mlp:GroupedMLP", (DIM, HID, OUT), {"squeeze_if_one_group": True},
                                        (S,), {}),
    "create_grouped_mlp": ("grouped_mlp:create_grouped_mlp", (HID, 2), {"dim_in": DIM, "dim_out": OUT, "groups": 3},
                           (X,), {}),
    "GroupedFeedforwards": ("grouped_ff:GroupedFeedforwards", (DIM, 2), {"groups": 2}, (X,), {}),
    "GroupedFeedforwards.proj_in_out.final_norm": ("grouped_ff:GroupedFeedforwards", (DIM, 1),
                                                   {"groups": 2, "dim_in": COND, "dim_out": OUT, "final_norm": True},
                                                   (("seq", COND),), {}),
    "GroupedFeedforwards.squeeze_if_one_group": ("grouped_ff:GroupedFeedforwards", (DIM, 2),
                                                 {"squeeze_if_one_group": True}, (S,), {}),
    "ResidualNormedMLP": ("residual_normed_mlp:ResidualNormedMLP", (HID,),
                          {"depth": 4, "residual_every": 2, "dim_in": DIM, "dim_out": OUT}, (X,), {}),
    "ResidualNormedMLP.rmsnorm.no_final_norm": ("residual_normed_mlp:ResidualNormedMLP", (DIM,),
                                                {"depth": 4, "residual_every": 2, "use_rmsnorm": True,
                                                 "final_norm": False}, (S,), {}),
    "ResidualNormedMLP.skip_to_output": ("residual_normed_mlp:ResidualNormedMLP", (DIM,),
                                         {"depth": 4, "residual_every": 2, "skip_to_output": True}, (X,), {}),
    "ResidualNormedMLP.orthogonal_residual": ("residual_normed_mlp:ResidualNormedMLP", (DIM,),
                                              {"depth": 4, "residual_every": 2, "use_orthogonal_residual": True},
                                              (X,), {}),
    "ResidualNormedMLP.orthogonal_residual.float": ("residual_normed_mlp:ResidualNormedMLP", (DIM,),
                                                    {"depth": 2, "residual_every": 1, "use_orthogonal_residual": True,
                                                     "orthogonal_residual_double_precision": False}, (S,), {}),
    "ResidualNormedMLP.keel_post_ln": ("residual_normed_mlp:ResidualNormedMLP", (DIM,),
                                       {"depth": 6, "residual_every": 2, "keel_post_ln": True}, (X,), {}),
    "ResidualNormedMLP.film": ("residual_normed_mlp:ResidualNormedMLP", (DIM,),
                               {"depth": 4, "residual_every": 2, "film": True, "cond_dim": COND},
                               (S,), {"cond": ("cond", COND)}),
    "ResidualNormedMLP.film.cond_encoder.head": ("residual_normed_mlp:ResidualNormedMLP", (DIM,),
                                                 {"depth": 4, "residual_every": 2, "film": True, "cond_dim": HID,
                                                  "cond_encoder": "cond_encoder", "head": "head"},
                                                 (X,), {"cond": ("cond", COND)}),
    "AttnResidualNormedMLP": ("attn_residual_normed_mlp:AttnResidualNormedMLP", (HID,),
                              {"depth": 3, "dim_in": DIM, "dim_out": OUT, "lora_rank": 4}, (X,), {}),
    "AttnResidualNormedMLP.streams2": ("attn_residual_normed_mlp:AttnResidualNormedMLP", (DIM,),
                                       {"depth": 3, "dim_in": DIM, "dim_out": OUT, "lora_rank": 4, "num_streams": 2},
                                       (S,), {}),
    "AttnResidualNormedMLP.loops2": ("attn_residual_normed_mlp:AttnResidualNormedMLP", (DIM,),
                                     {"depth": 2, "lora_rank": 4, "loops": 2}, (X,), {}),
    "AttnResidualNormedMLP.loops_argument.return_hiddens": ("attn_residual_normed_mlp:AttnResidualNormedMLP",
                                                            (DIM,), {"depth": 2, "lora_rank": 4},
                                                            (X, ("int", 2), ("none",), ("int", 1)), {}),
    "AttnResidualNormedMLP.hiddens": ("attn_residual_normed_mlp:AttnResidualNormedMLP", (DIM,),
                                      {"depth": 2, "lora_rank": 4}, (X,), {"hiddens": ("hiddens", DIM)}),
    "AttnResidualNormedMLP.no_relative_bias.softmax_last": ("attn_residual_normed_mlp:AttnResidualNormedMLP",
                                                            (DIM,), {"depth": 3, "lora_rank": 4,
                                                                     "relative_bias": False,
                                                                     "final_layer_sigmoid": False}, (S,), {}),
    "AttnResidualNormedMLP.rmsnorm.film": ("attn_residual_normed_mlp:AttnResidualNormedMLP", (DIM,),
                                           {"depth": 2, "lora_rank": 4, "use_rmsnorm": True, "film": True,
                                            "cond_dim": COND, "relative_bias_init": 0.1},
                                           (X,), {"cond": ("cond", COND)}),
    "AttnResidualNormedMLP.streams2.film.cond_encoder": ("attn_residual_normed_mlp:AttnResidualNormedMLP", (DIM,),
                                                         {"depth": 2, "lora_rank": 4, "num_streams": 2, "dim_in": DIM,
                                                          "film": True, "cond_dim": HID,
                                                          "cond_encoder": "cond_encoder", "head": "head2"},
                                                         (X,), {"cond": ("seqcond", COND)}),
    "AttentionResidual": ("attn_residual_normed_mlp:AttentionResidual", (DIM,), {"lora_rank": 4},
                          (("hiddens", DIM), X), {}),
    "AttentionResidual.sigmoid.rel_pos_bias": ("attn_residual_normed_mlp:AttentionResidual", (DIM,),
                                               {"lora_rank": 4, "sigmoid": True, "rel_pos_bias": "rel_pos_bias",
                                                "use_rmsnorm": True}, (("context", DIM), S), {}),
    "RelativePositionBias.streams2": ("attn_residual_normed_mlp:RelativePositionBias", (3,),
                                      {"num_streams": 2, "init": 0.5}, (("int", 6),), {}),
    "OrthogonalResidualUpdate": ("residual_normed_mlp:OrthogonalResidualUpdate", (), {}, (S, S), {}),
    "LoRA": ("lora:LoRA", (HID,), {"rank": 4, "zero_init_up": False}, (("x", HID),), {}),
    "LoRA.activation.dim_out": ("lora:LoRA", (HID,), {"rank": 4, "dim_out": DIM, "activation": "SiLU"},
                                (("seq", HID),), {}),
    "LoRA.fallback": ("lora:LoRA", (DIM,), {"rank": 16}, (X,), {}),
    "FiLM": ("film:FiLM", (DIM,), {"cond_dim": COND}, (X, ("cond", COND)), {}),
    "FiLM.seq": ("film:FiLM", (DIM,), {}, (S, X), {}),
    "FiLMableMLP": ("filmable_mlp:FiLMableMLP", (DIM, HID, OUT), {"cond_dim": COND}, (X, ("cond", COND)), {}),
    "FiLMableMLP.seq.cond_hidden_int": ("filmable_mlp:FiLMableMLP", (DIM, HID, OUT),
                                        {"cond_dim": COND, "cond_hidden_dims": 12, "activate_last": True},
                                        (S, ("cond", COND)), {}),
    "FiLMableMLP.cond_prepared.squeeze_out": ("filmable_mlp:FiLMableMLP", (DIM, HID, 1),
                                              {"cond_dim": COND, "cond_prepared": True, "squeeze_out": True},
                                              (("list", DIM), ("cond", COND)), {}),
    "create_filmable_mlp": ("filmable_mlp:create_filmable_mlp", (HID, 2),
                            {"cond_dim": COND, "dim_in": DIM, "dim_out": OUT}, (S, ("seqcond", COND)), {}),
    "LatentMLP": ("mlp_with_latent:MLP", (DIM, HID, OUT), {"dim_latent": COND}, (S, ("cond", COND)), {}),
    "LatentMLP.latent_mlp.squeeze_out": ("mlp_with_latent:create_mlp", (HID, 2),
                                         {"dim_in": DIM, "dim_out": 1, "squeeze_out": True, "dim_latent": COND,
                                          "latent_mlp": True}, (S, ("cond", COND)), {}),
    "LatentConditionedFeedforwards": ("ff_with_latent:LatentConditionedFeedforwards", (DIM, 2),
                                      {"dim_latent": COND}, (X, ("cond", COND)), {}),
    "LatentConditionedFeedforwards.seq.latent_mlp": ("ff_with_latent:LatentConditionedFeedforwards", (DIM, 2),
                                                     {"dim_latent": COND, "latent_mlp": True, "final_norm": True,
                                                      "dim_in": COND, "dim_out": OUT},
                                                     (("seq", COND), ("cond", COND)), {}),
    "WeightOnlyLinear": ("weight_only_mlp:WeightOnlyLinear", (DIM, HID), {"activation": "SiLU"}, (X,), {}),
    "WeightOnlyLinear.rmsnorm.bias_left": ("weight_only_mlp:WeightOnlyLinear", (DIM, HID),
                                           {"use_rmsnorm": True, "bias_left": True}, (S,), {}),
    "WeightOnlyLinear.no_bias": ("weight_only_mlp:WeightOnlyLinear", (DIM, HID), {"use_bias": False}, (X,), {}),
    "WeightOnlyMLP": ("weight_only_mlp:WeightOnlyMLP", (DIM, HID, OUT), {}, (X,), {}),
    "WeightOnlyMLP.rmsnorm.activate_last.list": ("weight_only_mlp:WeightOnlyMLP", (DIM, HID, OUT),
                                                 {"use_rmsnorm": True, "activate_last": True},
                                                 (("list", DIM),), {}),
    "WeightOnlyMLP.squeeze_out.bias_left": ("weight_only_mlp:WeightOnlyMLP", (DIM, HID, 1),
                                            {"squeeze_out": True, "bias_left": True}, (S,), {}),
    "WeightOnlyFeedforwards": ("weight_only_ff:WeightOnlyFeedforwards", (DIM, 2), {}, (X,), {}),
    "WeightOnlyFeedforwards.proj_in_out.rmsnorm.final_norm": ("weight_only_ff:WeightOnlyFeedforwards", (DIM, 2),
                                                              {"dim_in": COND, "dim_out": OUT, "use_rmsnorm": True,
                                                               "norm_after_activation": True, "final_norm": True},
                                                              (("seq", COND),), {}),
    "WeightOnlyFeedforwards.no_bias.expansion2": ("weight_only_ff:WeightOnlyFeedforwards", (DIM, 1),
                                                 {"use_bias": False, "expansion_factor": 2.0}, (X,), {}),
    "ContinuousPastActions": ("past_action_encoder:ContinuousPastActions", (ACTIONS, DIM), {},
                              (("x", ACTIONS),), {}),
    "ContinuousPastActions.mask.mlp": ("past_action_encoder:ContinuousPastActions", (ACTIONS, DIM), {"depth": 1},
                                       (("x", ACTIONS), ("mask", 0)), {}),
    "ContinuousPastActions.mask_only": ("past_action_encoder:ContinuousPastActions", (ACTIONS, DIM), {},
                                        (("none",), ("mask", 0)), {}),
    "ContinuousPastActions.none.no_presence_flag": ("past_action_encoder:ContinuousPastActions", (ACTIONS,),
                                                    {"presence_flag": False}, (("none",),), {}),
    "DiscretePastActions": ("past_action_encoder:DiscretePastActions", (ACTIONS, DIM), {}, (("long", ACTIONS),), {}),
    "DiscretePastActions.mask.mlp": ("past_action_encoder:DiscretePastActions", (ACTIONS, DIM), {"depth": 2},
                                     (("long", ACTIONS), ("mask", 0)), {}),
    "DiscretePastActions.none": ("past_action_encoder:DiscretePastActions", (ACTIONS, DIM), {}, (), {}),
    "Noisable": ("noisable:Noisable", ("net",), {}, (X,), {}),
    "Noisable.seed": ("noisable:Noisable", ("net",), {"noise_scale": 0.1}, (X,),
                      {"noise_for_params": ("seeds", 0)}),
    "Noisable.seed_scale_tuple.not_overridable": ("noisable:Noisable", ("net",), {"overridable_noise_scale": False},
                                                  (X,), {"noise_for_params": ("seed_tuples", 0)}),
    "Noisable.tensor_noise.scale_for_params": ("noisable:Noisable", ("net",), {}, (X,),
                                               {"noise_for_params": ("tensors", 0),
                                                "noise_scale_for_params": ("scales", 0), "noise_scale": 0.01}),
    "Noisable.low_rank": ("noisable:Noisable", ("net",), {"low_rank": 2}, (X,), {"noise_for_params": ("seeds", 0)}),
    "Ensemble": ("ensemble:Ensemble", ("net", 3), {}, (X,), {}),
    "Ensemble.ids_list": ("ensemble:Ensemble", ("net", 3), {}, (X,), {"ids": ("ids", 0)}),
    "Ensemble.each_batch_sample": ("ensemble:Ensemble", ("net", 3), {}, (X,),
                                   {"ids": ("ids_tensor", 0), "each_batch_sample": ("bool", 1)}),
}
FUNCTIONS = ("create_mlp", "create_normed_mlp.squeeze_out", "rmsnorm", "rmsnorm.return_inverse",
             "layernorm.return_inverse.return_stats", "RMSNorm.equivariant", "RMSNorm.return_inverse",
             "LayerNorm.return_stats.no_affine", "norms.RMSNorm", "norms.LayerNorm.no_affine", "relu_squared",
             "Noisable.get_noised_params", "Noisable.temp_add_noise_", "Ensemble.forward_one",
             "nFeedforwards.norm_weights_")
TRAIN = ("train.MLP.adam", "train.ResidualNormedMLP.film.adam", "train.AttnResidualNormedMLP.streams2.adam",
         "train.nFeedforwards.norm_weights", "train.GradientDropout", "train.Sugar.ReluNelu",
         "train.Ensemble.adam", "train.WeightOnlyMLP.sgd", "train.FiLMableMLP.adam", "train.Noisable.add_noise_")


def names() -> list[str]:
    return [*MODELS, *FUNCTIONS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _resolve(path: str) -> Any:
    import importlib

    module, name = path.split(":")
    return getattr(importlib.import_module(f"x_mlps_pytorch.{module}"), name)


def _activation(name: str) -> Any:
    from torch import nn

    from x_mlps_pytorch import activations as a

    table: dict[str, Any] = {
        "ReluNelu": lambda: a.ReluNelu(),
        "SugarBSiLU.neg": lambda: a.SugarBSiLU(neg_region_only=True),
        "StarRelu": lambda: a.StarRelu(),
        "StarRelu.signed": lambda: a.StarRelu(signed=True),
        "ReluSquared.signed": lambda: a.ReluSquared(signed=True),
        "StraightThrough": lambda: a.StraightThrough(nn.ReLU(), a.BSiLU()),
        "SiLU": lambda: nn.SiLU(),
    }
    return table[name]()


def _small_net() -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(DIM, HID), nn.SiLU(), nn.Linear(HID, OUT))


def _keyword(value: Any) -> Any:
    """A constructor keyword: activation names, and modules named by a string, built here."""
    from torch import nn

    from x_mlps_pytorch.attn_residual_normed_mlp import RelativePositionBias

    if not isinstance(value, str):
        return value
    if value == "cond_encoder":
        return nn.Sequential(nn.Linear(COND, HID), nn.SiLU())
    if value == "head":
        return nn.Linear(DIM, OUT)
    if value == "head2":
        return nn.Linear(2 * DIM, OUT)
    if value == "rel_pos_bias":
        return RelativePositionBias(4, init=0.5)
    return _activation(value)


def _input(spec: Any, seed: int, net: Any) -> Any:
    import torch

    if not isinstance(spec, tuple):
        return spec
    kind, width = spec[0], (spec[1] if len(spec) > 1 else 0)
    generator = torch.Generator().manual_seed(seed)
    if kind == "x":
        return _randn(BATCH, width, seed=seed)
    if kind == "seq":
        return _randn(BATCH, SEQ, width, seed=seed)
    if kind == "list":
        return [_randn(BATCH, width // 2, seed=seed), _randn(BATCH, width - width // 2, seed=seed + 7)]
    if kind == "context":
        return _randn(BATCH, SEQ, 4, width, seed=seed)
    if kind == "cond":
        return _randn(BATCH, width, seed=seed)
    if kind == "seqcond":
        return _randn(BATCH, width, seed=seed)
    if kind == "mask":
        return torch.tensor([True, False])
    if kind == "long":
        return torch.randint(0, width, (BATCH,), generator=generator)
    if kind in ("int", "bool"):
        return int(width) if kind == "int" else bool(width)
    if kind == "none":
        return None
    if kind == "hiddens":
        return [_randn(BATCH, width, seed=seed), _randn(BATCH, width, seed=seed + 1)]
    if kind == "ids":
        return [0, 2]
    if kind == "ids_tensor":
        return torch.tensor([0, 2])
    params = dict(net.model.named_parameters())
    if kind == "seeds":
        return {name: 10 + i for i, name in enumerate(params)}
    if kind == "seed_tuples":
        return {name: (10 + i, 0.05) for i, name in enumerate(params) if name.endswith("weight")}
    if kind == "tensors":
        return {name: torch.randn(p.shape, generator=generator) for name, p in params.items()}
    return {name: 0.5 for name in params}


def _model(name: str) -> Built:
    path, args, keywords, inputs, call = MODELS[name]
    args = tuple(_small_net() if a == "net" else a for a in args)
    model = _resolve(path)(*args, **{k: _keyword(v) for k, v in keywords.items()})
    values = tuple(_input(spec, seed, model) for seed, spec in enumerate(inputs, start=1))
    kwargs = {k: _input(spec, 20 + i, model) for i, (k, spec) in enumerate(call.items())}
    return model, values, kwargs


def _function(name: str) -> Built:
    import torch

    from gt_calls import Call, Method, Run
    from x_mlps_pytorch import normalization_equivariance as ne, norms
    from x_mlps_pytorch.activations import relu_squared
    from x_mlps_pytorch.ensemble import Ensemble
    from x_mlps_pytorch.mlp import create_mlp
    from x_mlps_pytorch.noisable import Noisable
    from x_mlps_pytorch.normed_mlp import create_mlp as create_normed_mlp
    from x_mlps_pytorch.nff import nFeedforwards

    x, seq = _randn(BATCH, DIM), _randn(BATCH, SEQ, DIM)
    backbone = torch.nn.Linear(DIM, DIM)
    if name == "create_mlp":
        return create_mlp(HID, 2, dim_in=DIM, dim_out=OUT, activate_last=True), (x,), {}
    if name == "create_normed_mlp.squeeze_out":
        return create_normed_mlp(HID, 2, dim_in=DIM, dim_out=1, squeeze_out=True, use_rmsnorm=True), (seq,), {}
    if name == "rmsnorm":
        return Call(ne.rmsnorm, dim=-1), (seq,), {}
    if name == "rmsnorm.return_inverse":
        def around(owner: Any, t: torch.Tensor) -> torch.Tensor:
            normed, inverse = ne.rmsnorm(t, return_inverse=True)
            return inverse(owner(normed))

        return Run(backbone, around, [ne.rmsnorm]), (seq,), {}
    if name == "layernorm.return_inverse.return_stats":
        def around_ln(owner: Any, t: torch.Tensor) -> Any:
            normed, inverse, (mu, std) = ne.layernorm(t, return_inverse=True, return_stats=True)
            return inverse(owner(normed)), mu, std

        return Run(backbone, around_ln, [ne.layernorm]), (seq,), {}
    if name == "RMSNorm.equivariant":
        return ne.RMSNorm(DIM), (seq,), {}
    if name == "RMSNorm.return_inverse":
        def around_module(owner: Any, t: torch.Tensor) -> torch.Tensor:
            normed, inverse, rms = owner[0](t, return_inverse=True, return_stats=True)
            return inverse(owner[1](normed)) + rms

        return Run(torch.nn.ModuleList([ne.RMSNorm(DIM), backbone]), around_module, [ne.RMSNorm]), (seq,), {}
    if name == "LayerNorm.return_stats.no_affine":
        return Run(ne.LayerNorm(DIM, elementwise_affine=False), lambda owner, t: owner(t, return_stats=True),
                   [ne.LayerNorm]), (seq,), {}
    if name == "norms.RMSNorm":
        return norms.RMSNorm(DIM), (seq,), {}
    if name == "norms.LayerNorm.no_affine":
        return norms.LayerNorm(DIM, elementwise_affine=False), (x,), {}
    if name == "relu_squared":
        return Call(relu_squared, signed=True), (seq,), {}
    if name.startswith("Noisable"):
        noisable = Noisable(_small_net(), noise_scale=0.1)
        seeds = {n: 10 + i for i, n in enumerate(dict(noisable.model.named_parameters()))}
        if name.endswith("get_noised_params"):
            return Method(noisable, "get_noised_params", noise_for_params=seeds), (), {}

        def noised(owner: Any, t: torch.Tensor) -> torch.Tensor:
            with owner.temp_add_noise_(seeds):
                return owner(t)

        return Run(noisable, noised, [Noisable.temp_add_noise_, Noisable]), (x,), {}
    if name == "Ensemble.forward_one":
        return Method(Ensemble(_small_net(), 3), "forward_one", id=1), (x,), {}
    return Method(nFeedforwards(HID, 2, dim_in=DIM), "norm_weights_"), (), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    import x_mlps_pytorch as xm
    from gt_calls import Run
    from x_mlps_pytorch.ensemble import Ensemble

    x = _randn(BATCH, DIM)
    cond = _randn(BATCH, COND, seed=2)
    target = _randn(BATCH, OUT, seed=3)
    kwargs: dict[str, Any] = {}
    after: Any = None
    if name == "train.MLP.adam":
        model: Any = xm.MLP(DIM, HID, OUT)
    elif name == "train.ResidualNormedMLP.film.adam":
        model = xm.ResidualNormedMLP(DIM, depth=4, residual_every=2, dim_out=OUT, film=True, cond_dim=COND)
        kwargs = {"cond": cond}
    elif name == "train.AttnResidualNormedMLP.streams2.adam":
        model = xm.AttnResidualNormedMLP(DIM, depth=2, dim_in=DIM, dim_out=OUT, lora_rank=4, num_streams=2)
    elif name == "train.nFeedforwards.norm_weights":
        model = xm.nFeedforwards(HID, 2, dim_in=DIM, dim_out=OUT)
        after = model.norm_weights_
    elif name == "train.GradientDropout":
        model = nn.Sequential(nn.Linear(DIM, HID), xm.GradientDropout(0.5), nn.SiLU(), nn.Linear(HID, OUT))
    elif name == "train.Sugar.ReluNelu":
        from x_mlps_pytorch.activations import ReluNelu

        model = xm.MLP(DIM, HID, HID, OUT, activation=ReluNelu())
    elif name == "train.Ensemble.adam":
        model = Ensemble(_small_net(), 3)
        target = target.expand(3, BATCH, OUT)
    elif name == "train.WeightOnlyMLP.sgd":
        model = xm.WeightOnlyMLP(DIM, HID, OUT, use_rmsnorm=True)
    elif name == "train.FiLMableMLP.adam":
        model = xm.FiLMableMLP(DIM, HID, OUT, cond_dim=COND)
        kwargs = {"cond": cond}
    else:
        model = xm.Noisable(_small_net(), noise_scale=0.01)
        seeds = {n: 10 + i for i, n in enumerate(dict(model.model.named_parameters()))}
        after = lambda: model.add_noise_(seeds, add_to_grad=True)  # noqa: E731
    params = list(model.parameters())
    optimizer: Any = torch.optim.SGD(params, lr=0.1) if name.endswith("sgd") else torch.optim.Adam(params, lr=1e-3)
    entries: list[Any] = [type(model) if type(model).__module__.startswith("x_mlps") else xm.GradientDropout]
    if name == "train.Noisable.add_noise_":
        entries.append(xm.Noisable.add_noise_)

    def step(owner: Any, t: torch.Tensor) -> torch.Tensor:
        """The regression loss, its gradients, an optimizer step (and what the library does after one)."""
        loss = F.mse_loss(owner(t, **kwargs), target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            if after is not None and name.endswith("add_noise_"):
                after()
            optimizer.step()
            if after is not None and not name.endswith("add_noise_"):
                after()
        return loss

    return Run(model, step, entries), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        return _model(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
