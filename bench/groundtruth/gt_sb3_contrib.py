"""Ground-truth bench, sb3_contrib: the policies of its algorithms, its maskable distributions, its layers
and the torch code of its train steps.

sb3-contrib 2.9.2 adds algorithms to stable-baselines3 (whose builder is ``gt_sb3.py``): RecurrentPPO
(LSTM actor-critic policies), MaskablePPO (invalid-action masking), QR-DQN and TQC (quantile critics),
TRPO (a trust-region step: conjugate gradients on a Fisher-vector product), ARS (linear and MLP
policies searched by random perturbation) and CrossQ (batch-renormalised actor and critics, no target
networks). As in ``gt_sb3.py``, each policy is built from gymnasium spaces, as its algorithm builds it
(``policy_class(observation_space, action_space, lr_schedule, **policy_kwargs)``; ARS's takes no
schedule), at tiny sizes, with no environment. So:

- ``POLICIES``: RecurrentPPO's ``RecurrentActorCriticPolicy`` (MlpLstmPolicy) on each action space,
  with gSDE, a shared LSTM, no critic LSTM (a linear critic), separate features extractors, two LSTM
  layers and one-hot observations, and its Cnn (``NatureCNN``) and MultiInput (``CombinedExtractor``)
  variants; compiled through ``forward`` (what ``collect_rollouts`` calls: 8 environments, one step,
  some of them starting an episode), ``evaluate_actions`` (what ``train`` calls: 2 padded sequences of 4
  steps), ``predict_values``, ``get_distribution`` and ``_predict``, each with some episode starts (the
  per-step loop of ``_process_sequence``) or, in the ``.no_start`` methods, none (its single LSTM call),
  and ``_process_sequence`` on its own. (With torch 2.13's defaults Dynamo breaks where
  ``_process_sequence`` first touches the ``nn.LSTM``, "Attempted to wrap RNN, GRU, or LSTM", and runs
  the rest of the calling frame eagerly, so both kinds of episode starts observe the same today; the
  ``.no_start`` pair is kept for a Dynamo that traces LSTMs.) MaskablePPO's ``MaskableActorCriticPolicy`` on discrete,
  multi-discrete and multi-binary actions, with masks as ``collect_rollouts`` passes them (a NumPy array,
  to ``forward``), as ``train`` does (a float tensor from the buffer, to ``evaluate_actions``) or none
  (``.no_mask``), and its Cnn/MultiInput variants. QR-DQN's policy (``QRDQNPolicy``: greedy action) and
  its ``QuantileNetwork``; TQC's policy (squashed Gaussian or gSDE actor, quantile critics, shared
  features extractor or not) and its Cnn/MultiInput variants; CrossQ's policy (batch-renormalised actor
  and critics, in warm-up, after it (``.renorm``) and without batch norm); ARS's MLP and linear
  policies on continuous and discrete actions;
- ``DISTRIBUTIONS``: the maskable distributions (categorical, multi-categorical, Bernoulli), made by
  ``make_masked_proba_distribution`` as the policies make them, with the head ``proba_distribution_net``
  makes for them: ``.evaluate`` (``proba_distribution``,
  ``apply_masking``, ``log_prob``, ``entropy``), ``.sample`` (masked ``sample``, ``mode``),
  ``.unmask`` (``apply_masking(None)`` after a mask) and ``.from_params`` (``log_prob_from_params`` and
  a deterministic ``actions_from_params``); and ``MaskableCategorical`` itself (from logits, from
  probabilities, unmasked);
- ``LAYERS``: ``BatchRenorm1d`` in warm-up, after it (running statistics in the normalisation) and
  without its affine transform;
- ``FUNCTIONS``: ``quantile_huber_loss`` in QR-DQN's shapes, TQC's and with given cumulative
  probabilities, ``conjugate_gradient_solver`` on a symmetric positive-definite matrix and ``flat_grad``
  (``gt_calls.Call``-like wrappers);
- ``TRAIN_STEPS``: one gradient step's loss of RecurrentPPO, MaskablePPO, QR-DQN, TQC (truncated
  quantile targets) and CrossQ, written as their ``train()`` computes it from the library's own sample
  tuples (``RecurrentRolloutBufferSamples``, ``MaskableRolloutBufferSamples``, ``ReplayBufferSamples``)
  with the algorithms' default hyperparameters, and TRPO's step up to the line search: the surrogate
  objective and KL divergence, ``TRPO._compute_actor_grad``, the conjugate-gradient search direction
  through ``TRPO.hessian_vector_product`` and the maximal step size, on a ``TRPO`` built for a tiny
  in-code environment (the two methods belong to the algorithm). As in ``gt_sb3.py``, logging
  statistics (``.item()``) and optimiser calls are left out, and TRPO's step runs under
  ``torch.enable_grad()`` (it differentiates twice, also in the bench's ``no_grad`` eval mode).

Batches are 8 transitions; vector observations have 4 entries and continuous actions 2; LSTMs have 16
hidden units; random weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

from gt_sb3 import make_space, sample_batch

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 8
N_SEQ = 2  # padded sequences in a RecurrentPPO minibatch: BATCH = N_SEQ * 4 steps
HIDDEN = 16  # lstm_hidden_size
SMALL_CNN = {"features_extractor_kwargs": {"features_dim": 32}}
SMALL_DICT = {"features_extractor_kwargs": {"cnn_output_dim": 16}}
LSTM = {"lstm_hidden_size": HIDDEN, "net_arch": [16]}
QR = {"n_quantiles": 8, "net_arch": [32, 32]}
TQC = {"n_quantiles": 5, "net_arch": [32, 32]}
CROSSQ = {"net_arch": {"pi": [32, 32], "qf": [32, 32]}, "renorm_warmup_steps": 4}

# Observation spaces: "box" Box(-1, 1, (4,)), "image" Box(0, 255, (1, 36, 36), uint8) (the smallest side
# NatureCNN takes), "discrete" Discrete(5), "dict" Dict(image, vector Box(-1, 1, (3,)), mode Discrete(3)).
# Action spaces: "box" Box(-1, 1, (2,)), "discrete" Discrete(3), "multidiscrete" MultiDiscrete([2, 3]),
# "multibinary" MultiBinary(3). (The same as ``gt_sb3.py``'s, copied so that neither builder moves the other.)

# Recurrent methods: "forward" (rollout: BATCH environments, one step, episode starts at some of them),
# "evaluate_actions" (train: N_SEQ sequences), "predict_values" (rollout, the critic's states),
# "get_distribution" and "_predict" (rollout, the actor's states); ".no_start": no episode starts.
# Maskable methods: "forward" (NumPy masks), "evaluate_actions" (tensor masks), ".no_mask": none.
# "actor.action_log_prob" is the method of the policy's ``actor``; "critic" the critic's ``forward``,
# "quantile_net" the ``QuantileNetwork``'s.

# Policy name -> (``module:class`` under ``sb3_contrib``, observation space, action space, keywords, methods).
# A policy without methods is built for ``TRAIN_STEPS`` only.
POLICIES: dict[str, tuple[str, str, str, dict[str, Any], tuple[str, ...]]] = {
    "RecurrentActorCriticPolicy": (
        "ppo_recurrent:MlpLstmPolicy", "box", "box", LSTM,
        ("forward", "forward.no_start", "evaluate_actions", "evaluate_actions.no_start", "predict_values",
         "get_distribution", "_predict", "_process_sequence")),
    "RecurrentActorCriticPolicy.discrete": ("ppo_recurrent:MlpLstmPolicy", "box", "discrete", LSTM,
                                            ("forward", "evaluate_actions", "_predict")),
    "RecurrentActorCriticPolicy.multidiscrete": ("ppo_recurrent:MlpLstmPolicy", "box", "multidiscrete", LSTM,
                                                 ("forward",)),
    "RecurrentActorCriticPolicy.multibinary": ("ppo_recurrent:MlpLstmPolicy", "box", "multibinary", LSTM,
                                               ("forward", "evaluate_actions")),
    "RecurrentActorCriticPolicy.sde": ("ppo_recurrent:MlpLstmPolicy", "box", "box", {**LSTM, "use_sde": True},
                                       ("forward", "evaluate_actions")),
    "RecurrentActorCriticPolicy.shared_lstm": (
        "ppo_recurrent:MlpLstmPolicy", "box", "box", {**LSTM, "shared_lstm": True, "enable_critic_lstm": False},
        ("forward", "evaluate_actions", "predict_values")),
    "RecurrentActorCriticPolicy.no_critic_lstm": (
        "ppo_recurrent:MlpLstmPolicy", "box", "discrete", {**LSTM, "enable_critic_lstm": False},
        ("forward", "evaluate_actions", "predict_values")),
    "RecurrentActorCriticPolicy.separate": (
        "ppo_recurrent:MlpLstmPolicy", "box", "box",
        {**LSTM, "share_features_extractor": False, "net_arch": {"pi": [16], "vf": [16, 16]},
         "activation_fn": "ReLU", "ortho_init": False},
        ("forward", "evaluate_actions", "predict_values")),
    "RecurrentActorCriticPolicy.two_layers": ("ppo_recurrent:MlpLstmPolicy", "box", "box",
                                              {**LSTM, "n_lstm_layers": 2},
                                              ("forward", "evaluate_actions", "_process_sequence")),
    "RecurrentActorCriticPolicy.discrete_obs": ("ppo_recurrent:MlpLstmPolicy", "discrete", "discrete", LSTM,
                                                ("forward",)),
    "RecurrentActorCriticCnnPolicy": ("ppo_recurrent:CnnLstmPolicy", "image", "discrete", {**LSTM, **SMALL_CNN},
                                      ("forward", "evaluate_actions")),
    "RecurrentActorCriticCnnPolicy.separate": (
        "ppo_recurrent:CnnLstmPolicy", "image", "box", {**LSTM, **SMALL_CNN, "share_features_extractor": False},
        ("forward",)),
    "RecurrentMultiInputActorCriticPolicy": ("ppo_recurrent:MultiInputLstmPolicy", "dict", "box",
                                             {**LSTM, **SMALL_DICT},
                                             ("forward", "evaluate_actions", "predict_values")),
    "MaskableActorCriticPolicy": (
        "ppo_mask:MlpPolicy", "box", "discrete", {},
        ("forward", "forward.no_mask", "evaluate_actions", "evaluate_actions.no_mask", "predict_values",
         "get_distribution", "_predict")),
    "MaskableActorCriticPolicy.multidiscrete": ("ppo_mask:MlpPolicy", "box", "multidiscrete", {},
                                                ("forward", "evaluate_actions", "_predict")),
    "MaskableActorCriticPolicy.multibinary": ("ppo_mask:MlpPolicy", "box", "multibinary", {},
                                              ("forward", "evaluate_actions")),
    "MaskableActorCriticPolicy.separate": (
        "ppo_mask:MlpPolicy", "box", "discrete",
        {"share_features_extractor": False, "net_arch": {"pi": [16], "vf": [16, 16]}, "activation_fn": "ReLU",
         "ortho_init": False},
        ("forward", "evaluate_actions", "predict_values")),
    "MaskableActorCriticPolicy.discrete_obs": ("ppo_mask:MlpPolicy", "discrete", "discrete", {}, ("forward",)),
    "MaskableActorCriticCnnPolicy": ("ppo_mask:CnnPolicy", "image", "discrete", SMALL_CNN,
                                     ("forward", "evaluate_actions")),
    "MaskableMultiInputActorCriticPolicy": ("ppo_mask:MultiInputPolicy", "dict", "multidiscrete", SMALL_DICT,
                                            ("forward", "evaluate_actions")),
    "QRDQNPolicy": ("qrdqn:MlpPolicy", "box", "discrete", QR, ("forward", "quantile_net")),
    "QRDQNCnnPolicy": ("qrdqn:CnnPolicy", "image", "discrete", {**SMALL_CNN, "n_quantiles": 8},
                       ("forward", "quantile_net")),
    "QRDQNMultiInputPolicy": ("qrdqn:MultiInputPolicy", "dict", "discrete", {**SMALL_DICT, **QR}, ("forward",)),
    "TQCPolicy": ("tqc:MlpPolicy", "box", "box", TQC, ("forward", "_predict", "actor.action_log_prob", "critic")),
    "TQCPolicy.sde": ("tqc:MlpPolicy", "box", "box", {**TQC, "use_sde": True},
                      ("forward", "actor.action_log_prob")),
    "TQCPolicy.sde_expln": ("tqc:MlpPolicy", "box", "box",
                            {**TQC, "net_arch": {"pi": [32], "qf": [32, 32]}, "use_sde": True, "use_expln": True,
                             "clip_mean": 0.0}, ("actor.action_log_prob",)),
    "TQCPolicy.shared": ("tqc:MlpPolicy", "box", "box", {**TQC, "share_features_extractor": True, "n_critics": 3},
                         ("critic",)),
    "TQCCnnPolicy": ("tqc:CnnPolicy", "image", "box", {**SMALL_CNN, "n_quantiles": 5, "net_arch": [32]},
                     ("forward", "critic")),
    "TQCMultiInputPolicy": ("tqc:MultiInputPolicy", "dict", "box", {**SMALL_DICT, "n_quantiles": 5, "net_arch": [32]},
                            ("forward", "critic")),
    "CrossQPolicy": ("crossq:MlpPolicy", "box", "box", CROSSQ,
                     ("forward", "_predict", "actor.action_log_prob", "critic")),
    "CrossQPolicy.renorm": ("crossq:MlpPolicy", "box", "box", CROSSQ, ("actor.action_log_prob", "critic")),
    "CrossQPolicy.no_batch_norm": ("crossq:MlpPolicy", "box", "box", {**CROSSQ, "batch_norm": False},
                                   ("forward", "critic")),
    "CrossQPolicy.sde": ("crossq:MlpPolicy", "box", "box", {**CROSSQ, "use_sde": True},
                         ("forward", "actor.action_log_prob")),
    "CrossQPolicy.shared": ("crossq:MlpPolicy", "box", "box", {**CROSSQ, "share_features_extractor": True},
                            ("critic",)),
    "ARSPolicy": ("ars:MlpPolicy", "box", "box", {"net_arch": [16, 16]}, ("forward",)),
    "ARSPolicy.no_squash": ("ars:MlpPolicy", "box", "box", {"net_arch": [16], "squash_output": False}, ("forward",)),
    "ARSPolicy.discrete": ("ars:MlpPolicy", "box", "discrete", {"net_arch": [16, 16]}, ("forward", "_predict")),
    "ARSLinearPolicy": ("ars:LinearPolicy", "box", "box", {}, ("forward",)),
    "ARSLinearPolicy.discrete": ("ars:LinearPolicy", "box", "discrete", {"with_bias": True}, ("forward",)),
}
# CrossQ policies whose BatchRenorm layers are past their warm-up (``steps`` > ``warmup_steps``).
RENORMED = ("CrossQPolicy.renorm",)

# Train step -> (algorithm, policy of ``POLICIES`` (TRPO: action space), options).
TRAIN_STEPS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "RecurrentPPO.train_step": ("RecurrentPPO", "RecurrentActorCriticPolicy", {}),
    "RecurrentPPO.train_step.discrete": ("RecurrentPPO", "RecurrentActorCriticPolicy.discrete", {}),
    "RecurrentPPO.train_step.shared_lstm": ("RecurrentPPO", "RecurrentActorCriticPolicy.shared_lstm",
                                            {"clip_range_vf": 0.2}),
    "RecurrentPPO.train_step.multi_input": ("RecurrentPPO", "RecurrentMultiInputActorCriticPolicy", {}),
    "MaskablePPO.train_step": ("MaskablePPO", "MaskableActorCriticPolicy", {}),
    "MaskablePPO.train_step.multidiscrete": ("MaskablePPO", "MaskableActorCriticPolicy.multidiscrete", {}),
    "MaskablePPO.train_step.multibinary": ("MaskablePPO", "MaskableActorCriticPolicy.multibinary",
                                           {"clip_range_vf": 0.2}),
    "QRDQN.train_step": ("QRDQN", "QRDQNPolicy", {}),
    "TQC.train_step": ("TQC", "TQCPolicy", {}),
    "TQC.train_step.sde": ("TQC", "TQCPolicy.sde", {"ent_coef": 0.1}),
    "CrossQ.train_step": ("CrossQ", "CrossQPolicy", {}),
    "CrossQ.train_step.renorm": ("CrossQ", "CrossQPolicy.renorm", {}),
    "TRPO.train_step": ("TRPO", "box", {}),
    "TRPO.train_step.discrete": ("TRPO", "discrete", {}),
    "TRPO.train_step.multidiscrete": ("TRPO", "multidiscrete", {}),
}

# Maskable distribution -> (class of ``common.maskable.distributions``, action space).
DISTRIBUTIONS: dict[str, tuple[str, str]] = {
    "MaskableCategoricalDistribution": ("MaskableCategoricalDistribution", "discrete"),
    "MaskableMultiCategoricalDistribution": ("MaskableMultiCategoricalDistribution", "multidiscrete"),
    "MaskableBernoulliDistribution": ("MaskableBernoulliDistribution", "multibinary"),
}
DIST_KINDS = ("evaluate", "sample", "unmask", "from_params")
CATEGORICAL = ("MaskableCategorical.logits", "MaskableCategorical.probs", "MaskableCategorical.no_mask")
LAYERS = ("BatchRenorm1d", "BatchRenorm1d.renorm", "BatchRenorm1d.no_affine")
FUNCTIONS = ("quantile_huber_loss.qrdqn", "quantile_huber_loss.tqc", "quantile_huber_loss.cum_prob",
             "conjugate_gradient_solver", "flat_grad")


def names() -> list[str]:
    policies = [f"{p}.{m}" for p, (_, _, _, _, methods) in POLICIES.items() for m in methods]
    distributions = [f"{d}.{kind}" for d in DISTRIBUTIONS for kind in DIST_KINDS]
    return (policies + list(TRAIN_STEPS) + distributions + list(CATEGORICAL) + [f"torch_layers.{n}" for n in LAYERS]
            + [f"utils.{f}" for f in FUNCTIONS])


def _segments(act: str) -> list[int]:
    """The sizes of the categorical choices a mask covers, one per sub-action."""
    return {"discrete": [3], "multidiscrete": [2, 3], "multibinary": [2, 2, 2]}[act]


def _masks_and_actions(act: str, seed: int) -> tuple[Any, Any]:
    """Action masks (``BATCH`` x the summed choice sizes, bool NumPy) with at least one valid choice per
    sub-action, and actions that the masks allow (as the buffer stores them: floats, one per sub-action)."""
    import numpy as np
    import torch

    rng = np.random.default_rng(seed)
    blocks, actions = [], []
    for size in _segments(act):
        block = rng.random((BATCH, size)) < 0.6
        block[np.arange(BATCH), rng.integers(0, size, BATCH)] = True
        blocks.append(block)
        actions.append([rng.choice(np.flatnonzero(row)) for row in block])
    masks = np.concatenate(blocks, axis=1)
    return masks, torch.as_tensor(np.array(actions, dtype=np.float32).T)


def _episode_starts(kind: str, start: bool) -> Any:
    """Episode starts for a rollout step (one per environment) or a minibatch of padded sequences."""
    import torch

    if not start:
        return torch.zeros(BATCH)
    if kind == "rollout":
        return torch.tensor([1.0, 0, 0, 1, 0, 0, 0, 0])
    return torch.tensor([1.0, 0, 0, 0, 0, 1, 0, 0])  # the second sequence's episode ends inside it


def _lstm_states(policy: Any, envs: int, seed: int) -> Any:
    """``RNNStates`` for ``envs`` environments (or sequences): small random hidden and cell states."""
    import torch
    from sb3_contrib.common.recurrent.type_aliases import RNNStates

    gen = torch.Generator().manual_seed(seed)
    shape = (policy.lstm_actor.num_layers, envs, policy.lstm_actor.hidden_size)

    def pair() -> tuple[Any, Any]:
        return 0.1 * torch.randn(shape, generator=gen), 0.1 * torch.randn(shape, generator=gen)

    return RNNStates(pair(), pair())


def _policy(name: str) -> Any:
    import importlib

    from torch import nn

    path, obs, act, keywords, _ = POLICIES[name]
    module, cls = path.split(":")
    keywords = dict(keywords)
    if "activation_fn" in keywords:
        keywords["activation_fn"] = getattr(nn, keywords["activation_fn"])
    policy_class = getattr(importlib.import_module(f"sb3_contrib.{module}"), cls)
    if module == "ars":  # ARS's policies take no learning-rate schedule
        policy = policy_class(make_space(obs, "obs"), make_space(act, "action"), **keywords)
    else:
        policy = policy_class(make_space(obs, "obs"), make_space(act, "action"), lambda _: 3e-4, **keywords)
    if keywords.get("use_sde"):  # ``collect_rollouts`` samples the exploration matrices, one per env
        (policy.actor if hasattr(policy, "actor") else policy).reset_noise(BATCH)
    if name in RENORMED:
        from sb3_contrib.common.torch_layers import BatchRenorm

        for layer in policy.modules():
            if isinstance(layer, BatchRenorm):
                layer.steps.fill_(layer.warmup_steps + 1)
    return policy


def _recurrent_method(policy: Any, policy_name: str, method: str) -> Built:
    import torch
    from gt_calls import Method
    from sb3_contrib.common.recurrent.policies import RecurrentActorCriticPolicy
    from torch import nn

    _, obs, act, _, _ = POLICIES[policy_name]
    start = not method.endswith(".no_start")
    method = method.removesuffix(".no_start")
    observations = sample_batch(make_space(obs, "obs"), 1)
    if method == "evaluate_actions":
        actions = sample_batch(make_space(act, "action"), 2).float()
        if act == "discrete":  # ``train`` flattens discrete actions to indices
            actions = actions.long().flatten()
        states = _lstm_states(policy, N_SEQ, 7)
        return Method(policy, method), (observations, actions, states, _episode_starts("train", start)), {}
    states = _lstm_states(policy, BATCH, 7)
    starts = _episode_starts("rollout", start)
    if method == "forward":
        return policy, (observations, states, starts), {}
    if method == "predict_values":
        return Method(policy, method), (observations, states.vf, starts), {}
    if method == "_predict":
        return Method(policy, method, deterministic=True), (observations, states.pi, starts), {}
    if method == "get_distribution":

        class Distribution(nn.Module):
            """``get_distribution`` and what ``predict`` / an evaluation loop reads from it: the deterministic
            action, its log-probability and the entropy, with the new LSTM states."""

            def __init__(self) -> None:
                super().__init__()
                self.policy = policy

            def forward(self, obs: Any, lstm_states: Any, episode_starts: Any) -> Any:
                distribution, new_states = self.policy.get_distribution(obs, lstm_states, episode_starts)
                actions = distribution.get_actions(deterministic=True)
                return actions, distribution.log_prob(actions), distribution.entropy(), new_states

            def entry_points(self) -> list[Any]:
                return [type(self.policy).get_distribution]

        return Distribution(), (observations, states.pi, starts), {}

    # ``_process_sequence`` on the actor's LSTM, on features of N_SEQ padded sequences (as in ``train``).
    class ProcessSequence(nn.Module):
        """The static ``RecurrentActorCriticPolicy._process_sequence`` on the policy's actor LSTM."""

        def __init__(self) -> None:
            super().__init__()
            self.lstm = policy.lstm_actor

        def forward(self, features: torch.Tensor, lstm_states: Any, episode_starts: torch.Tensor) -> Any:
            return RecurrentActorCriticPolicy._process_sequence(features, lstm_states, episode_starts, self.lstm)

        def entry_points(self) -> list[Any]:
            return [RecurrentActorCriticPolicy._process_sequence]

    features = torch.randn(BATCH, policy.lstm_actor.input_size, generator=torch.Generator().manual_seed(8))
    return ProcessSequence(), (features, _lstm_states(policy, N_SEQ, 7).pi, _episode_starts("train", start)), {}


def _maskable_method(policy: Any, policy_name: str, method: str) -> Built:
    import torch
    from gt_calls import Method
    from torch import nn

    _, obs, act, _, _ = POLICIES[policy_name]
    masked = not method.endswith(".no_mask")
    method = method.removesuffix(".no_mask")
    observations = sample_batch(make_space(obs, "obs"), 1)
    masks, valid_actions = _masks_and_actions(act, 3)
    if method == "evaluate_actions":
        actions = valid_actions.long().flatten() if act == "discrete" else valid_actions
        # The buffer gives float masks, one row per transition.
        tensor_masks = torch.as_tensor(masks, dtype=torch.float32) if masked else None
        return Method(policy, method), (observations, actions), {"action_masks": tensor_masks}
    if method == "forward":  # ``collect_rollouts`` passes ``get_action_masks(env)``, a NumPy array
        return policy, (observations,), {"action_masks": masks if masked else None}
    if method == "predict_values":
        return Method(policy, method), (observations,), {}
    if method == "_predict":
        return Method(policy, method, deterministic=True), (observations,), {"action_masks": masks}

    class Distribution(nn.Module):
        """``get_distribution`` with masks, and what is read from it: a deterministic action, its
        log-probability and the masked entropy."""

        def __init__(self) -> None:
            super().__init__()
            self.policy = policy

        def forward(self, obs: Any, action_masks: Any) -> Any:
            distribution = self.policy.get_distribution(obs, action_masks)
            actions = distribution.get_actions(deterministic=True)
            return actions, distribution.log_prob(actions), distribution.entropy()

        def entry_points(self) -> list[Any]:
            return [type(self.policy).get_distribution]

    return Distribution(), (observations, masks), {}


def _policy_method(name: str) -> Built:
    from gt_calls import Method

    policy_name, method = next((p, name[len(p) + 1:]) for p in sorted(POLICIES, key=len, reverse=True)
                               if name.startswith(p + "."))
    policy = _policy(policy_name)
    path, obs, act, _, _ = POLICIES[policy_name]
    if path.startswith("ppo_recurrent:"):
        return _recurrent_method(policy, policy_name, method)
    if path.startswith("ppo_mask:"):
        return _maskable_method(policy, policy_name, method)
    observations = sample_batch(make_space(obs, "obs"), 1)
    if method == "critic":
        return policy.critic, (observations, sample_batch(make_space(act, "action"), 2).float()), {}
    if method == "quantile_net":
        return policy.quantile_net, (observations,), {}
    if method == "actor.action_log_prob":
        return Method(policy.actor, "action_log_prob"), (observations,), {}
    if method == "_predict":
        return Method(policy, method, deterministic=True), (observations,), {}
    return policy, (observations,), {}


def _tiny_env(obs: str, act: str) -> Any:
    """A gymnasium environment with the bench's spaces, for the algorithms that need one to be built (TRPO):
    random observations, no reward, episodes that never end. Nothing steps it here."""
    import gymnasium as gym

    class TinyEnv(gym.Env):  # type: ignore[misc]
        def __init__(self) -> None:
            self.observation_space = make_space(obs, "obs")
            self.action_space = make_space(act, "action")

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
            super().reset(seed=seed)
            return self.observation_space.sample(), {}

        def step(self, action: Any) -> Any:
            return self.observation_space.sample(), 0.0, False, False, {}

    return TinyEnv()


def _on_policy_step(name: str) -> Built:
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBufferSamples
    from sb3_contrib.common.recurrent.type_aliases import (
        RecurrentDictRolloutBufferSamples,
        RecurrentRolloutBufferSamples,
    )
    from torch import nn
    from torch.nn import functional as F

    algorithm, policy_name, options = TRAIN_STEPS[name]
    policy = _policy(policy_name)
    _, obs, act, _, _ = POLICIES[policy_name]
    observation_space, action_space = make_space(obs, "obs"), make_space(act, "action")
    gen = torch.Generator().manual_seed(3)
    clip_range, clip_range_vf = 0.2, options.get("clip_range_vf")
    ent_coef, vf_coef = 0.0, 0.5
    common = {"observations": sample_batch(observation_space, 1), "old_values": torch.randn(BATCH, generator=gen),
              "old_log_prob": torch.randn(BATCH, generator=gen) - 2.0, "advantages": torch.randn(BATCH, generator=gen),
              "returns": torch.randn(BATCH, generator=gen)}

    if algorithm == "RecurrentPPO":
        actions = sample_batch(action_space, 2).float()
        if isinstance(action_space, spaces.Discrete):  # the buffer stores one float per discrete action
            actions = actions.reshape(BATCH, 1)
        tuple_class = RecurrentDictRolloutBufferSamples if obs == "dict" else RecurrentRolloutBufferSamples
        # The second sequence is padded: its last step is no transition (``mask`` 0).
        samples: Any = tuple_class(**common, actions=actions, lstm_states=_lstm_states(policy, N_SEQ, 7),
                                   episode_starts=_episode_starts("train", True),
                                   mask=torch.tensor([1.0, 1, 1, 1, 1, 1, 1, 0]))

        class RecurrentPPOStep(nn.Module):
            """One minibatch of ``RecurrentPPO.train`` up to ``loss.backward()``: losses averaged over the
            transitions that ``mask`` keeps."""

            def __init__(self) -> None:
                super().__init__()
                self.policy = policy

            def forward(self, rollout_data: Any) -> torch.Tensor:
                actions = rollout_data.actions
                if isinstance(action_space, spaces.Discrete):
                    actions = rollout_data.actions.long().flatten()
                mask = rollout_data.mask > 1e-8
                values, log_prob, entropy = self.policy.evaluate_actions(
                    rollout_data.observations, actions, rollout_data.lstm_states, rollout_data.episode_starts)
                values = values.flatten()
                advantages = rollout_data.advantages
                advantages = (advantages - advantages[mask].mean()) / (advantages[mask].std() + 1e-8)
                ratio = torch.exp(log_prob - rollout_data.old_log_prob)
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -torch.mean(torch.min(policy_loss_1, policy_loss_2)[mask])
                if clip_range_vf is None:
                    values_pred = values
                else:
                    values_pred = rollout_data.old_values + torch.clamp(
                        values - rollout_data.old_values, -clip_range_vf, clip_range_vf)
                value_loss = torch.mean(((rollout_data.returns - values_pred) ** 2)[mask])
                if entropy is None:
                    entropy_loss = -torch.mean(-log_prob[mask])
                else:
                    entropy_loss = -torch.mean(entropy[mask])
                return policy_loss + ent_coef * entropy_loss + vf_coef * value_loss

            def entry_points(self) -> list[Any]:
                return [type(self.policy).evaluate_actions]

        return RecurrentPPOStep(), (samples,), {}

    masks, actions = _masks_and_actions(act, 4)
    samples = MaskableRolloutBufferSamples(**common, actions=actions,
                                           action_masks=torch.as_tensor(masks, dtype=torch.float32))

    class MaskablePPOStep(nn.Module):
        """One minibatch of ``MaskablePPO.train`` up to ``loss.backward()``: ``evaluate_actions`` under the
        buffer's masks."""

        def __init__(self) -> None:
            super().__init__()
            self.policy = policy

        def forward(self, rollout_data: Any) -> torch.Tensor:
            actions = rollout_data.actions
            if isinstance(action_space, spaces.Discrete):
                actions = rollout_data.actions.long().flatten()
            values, log_prob, entropy = self.policy.evaluate_actions(
                rollout_data.observations, actions, action_masks=rollout_data.action_masks)
            values = values.flatten()
            advantages = rollout_data.advantages
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            ratio = torch.exp(log_prob - rollout_data.old_log_prob)
            policy_loss_1 = advantages * ratio
            policy_loss_2 = advantages * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)
            policy_loss = -torch.min(policy_loss_1, policy_loss_2).mean()
            if clip_range_vf is None:
                values_pred = values
            else:
                values_pred = rollout_data.old_values + torch.clamp(
                    values - rollout_data.old_values, -clip_range_vf, clip_range_vf)
            value_loss = F.mse_loss(rollout_data.returns, values_pred)
            if entropy is None:
                entropy_loss = -torch.mean(-log_prob)
            else:
                entropy_loss = -torch.mean(entropy)
            return policy_loss + ent_coef * entropy_loss + vf_coef * value_loss

        def entry_points(self) -> list[Any]:
            return [type(self.policy).evaluate_actions]

    return MaskablePPOStep(), (samples,), {}


def _trpo_step(name: str) -> Built:
    import copy
    from functools import partial

    import numpy as np
    import torch
    from gymnasium import spaces
    from sb3_contrib import TRPO
    from sb3_contrib.common.utils import conjugate_gradient_solver, flat_grad
    from stable_baselines3.common.distributions import kl_divergence
    from stable_baselines3.common.type_aliases import RolloutBufferSamples
    from torch import nn

    _, act, _ = TRAIN_STEPS[name]
    algo = TRPO("MlpPolicy", _tiny_env("box", act), n_steps=BATCH, batch_size=BATCH, device="cpu", seed=0,
                policy_kwargs={"net_arch": [16]})
    action_space = algo.action_space
    gen = torch.Generator().manual_seed(3)
    actions = sample_batch(make_space(act, "action"), 2).float()
    if isinstance(action_space, spaces.Discrete):
        actions = actions.reshape(BATCH, 1)
    samples = RolloutBufferSamples(
        observations=sample_batch(make_space("box", "obs"), 1), actions=actions,
        old_values=torch.randn(BATCH, generator=gen), old_log_prob=torch.randn(BATCH, generator=gen) - 2.0,
        advantages=torch.randn(BATCH, generator=gen), returns=torch.randn(BATCH, generator=gen))

    class TRPOStep(nn.Module):
        """``TRPO.train``'s policy step up to the line search: surrogate objective and KL divergence to the
        policy before the step, their gradients (``_compute_actor_grad``), the search direction by conjugate
        gradients on the Fisher-vector product (``hessian_vector_product``) and the maximal step size."""

        def __init__(self) -> None:
            super().__init__()
            self.policy = algo.policy

        def forward(self, rollout_data: Any) -> Any:
            with torch.enable_grad():
                actions = rollout_data.actions
                if isinstance(action_space, spaces.Discrete):
                    actions = rollout_data.actions.long().flatten()
                with torch.no_grad():
                    old_distribution = copy.copy(self.policy.get_distribution(rollout_data.observations))
                distribution = self.policy.get_distribution(rollout_data.observations)
                log_prob = distribution.log_prob(actions)
                advantages = rollout_data.advantages
                advantages = (advantages - advantages.mean()) / (rollout_data.advantages.std() + 1e-8)
                ratio = torch.exp(log_prob - rollout_data.old_log_prob)
                policy_objective = (advantages * ratio).mean()
                kl_div = kl_divergence(distribution, old_distribution).mean()
                actor_params, policy_objective_gradients, grad_kl, grad_shape = algo._compute_actor_grad(
                    kl_div, policy_objective)
                hessian_vector_product_fn = partial(algo.hessian_vector_product, actor_params, grad_kl)
                search_direction = conjugate_gradient_solver(
                    hessian_vector_product_fn, policy_objective_gradients, max_iter=algo.cg_max_steps)
                line_search_max_step_size = 2 * algo.target_kl
                line_search_max_step_size /= float(
                    torch.matmul(search_direction, hessian_vector_product_fn(search_direction, retain_graph=False)))
                return search_direction, np.sqrt(line_search_max_step_size)

        def entry_points(self) -> list[Any]:
            return [TRPO._compute_actor_grad, TRPO.hessian_vector_product, conjugate_gradient_solver, flat_grad]

    return TRPOStep(), (samples,), {}


def _off_policy_step(name: str) -> Built:
    import numpy as np
    import torch
    import torch.nn.functional as F
    from sb3_contrib.common.utils import quantile_huber_loss
    from stable_baselines3.common.type_aliases import ReplayBufferSamples
    from stable_baselines3.common.utils import get_parameters_by_name, polyak_update
    from torch import nn

    algorithm, policy_name, options = TRAIN_STEPS[name]
    policy = _policy(policy_name)
    _, obs, act, _, _ = POLICIES[policy_name]
    observation_space, action_space = make_space(obs, "obs"), make_space(act, "action")
    gen = torch.Generator().manual_seed(3)
    actions = sample_batch(action_space, 2).float()
    if algorithm == "QRDQN":  # the buffer stores one float per discrete action
        actions = actions.reshape(BATCH, 1)
    samples = ReplayBufferSamples(
        observations=sample_batch(observation_space, 1), actions=actions, next_observations=sample_batch(observation_space, 4),
        dones=(torch.rand(BATCH, 1, generator=gen) < 0.2).float(), rewards=torch.randn(BATCH, 1, generator=gen))
    gamma, batch_size = 0.99, BATCH

    if algorithm == "QRDQN":
        n_quantiles = policy.n_quantiles

        class QRDQNStep(nn.Module):
            """One gradient step of ``QRDQN.train`` (greedy next quantiles from the target network, the
            quantile Huber loss), then the target network's update of ``_on_step`` (``tau=1``)."""

            def __init__(self) -> None:
                super().__init__()
                self.policy = policy
                self.quantile_net, self.quantile_net_target = policy.quantile_net, policy.quantile_net_target

            def forward(self, replay_data: Any) -> torch.Tensor:
                discounts = replay_data.discounts if replay_data.discounts is not None else gamma
                with torch.no_grad():
                    next_quantiles = self.quantile_net_target(replay_data.next_observations)
                    next_greedy_actions = next_quantiles.mean(dim=1, keepdim=True).argmax(dim=2, keepdim=True)
                    next_greedy_actions = next_greedy_actions.expand(batch_size, n_quantiles, 1)
                    next_quantiles = next_quantiles.gather(dim=2, index=next_greedy_actions).squeeze(dim=2)
                    target_quantiles = replay_data.rewards + (1 - replay_data.dones) * discounts * next_quantiles
                current_quantiles = self.quantile_net(replay_data.observations)
                actions = replay_data.actions[..., None].long().expand(batch_size, n_quantiles, 1)
                current_quantiles = torch.gather(current_quantiles, dim=2, index=actions).squeeze(dim=2)
                loss = quantile_huber_loss(current_quantiles, target_quantiles, sum_over_quantiles=True)
                polyak_update(self.quantile_net.parameters(), self.quantile_net_target.parameters(), 1.0)
                return loss

            def entry_points(self) -> list[Any]:
                return [type(self.quantile_net), quantile_huber_loss, polyak_update]

        return QRDQNStep(), (samples,), {}

    fixed = options.get("ent_coef")
    target_entropy = float(-np.prod(action_space.shape).astype(np.float32))

    if algorithm == "TQC":
        tau, top_quantiles_to_drop_per_net = 0.005, 2
        batch_norm_stats = get_parameters_by_name(policy.critic, ["running_"])
        batch_norm_stats_target = get_parameters_by_name(policy.critic_target, ["running_"])

        class TQCStep(nn.Module):
            """One gradient step of ``TQC.train``: entropy-coefficient loss, the critic's quantile Huber loss
            against the truncated target quantiles (the top ones of each critic dropped), the actor loss,
            then the target critic's Polyak update."""

            def __init__(self) -> None:
                super().__init__()
                self.policy = policy
                self.actor, self.critic, self.critic_target = policy.actor, policy.critic, policy.critic_target
                if fixed is None:  # ``ent_coef="auto"``: its log is learned
                    self.log_ent_coef = nn.Parameter(torch.log(torch.ones(1)))
                else:
                    self.register_buffer("ent_coef_tensor", torch.tensor(float(fixed)))

            def forward(self, replay_data: Any) -> Any:
                discounts = replay_data.discounts if replay_data.discounts is not None else gamma
                if self.actor.use_sde:
                    self.actor.reset_noise()
                actions_pi, log_prob = self.actor.action_log_prob(replay_data.observations)
                log_prob = log_prob.reshape(-1, 1)
                ent_coef_loss = None
                if fixed is None:
                    ent_coef = torch.exp(self.log_ent_coef.detach())
                    ent_coef_loss = -(self.log_ent_coef * (log_prob + target_entropy).detach()).mean()
                else:
                    ent_coef = self.ent_coef_tensor
                with torch.no_grad():
                    next_actions, next_log_prob = self.actor.action_log_prob(replay_data.next_observations)
                    next_quantiles = self.critic_target(replay_data.next_observations, next_actions)
                    n_target_quantiles = (self.critic.quantiles_total
                                          - top_quantiles_to_drop_per_net * self.critic.n_critics)
                    next_quantiles, _ = torch.sort(next_quantiles.reshape(batch_size, -1))
                    next_quantiles = next_quantiles[:, :n_target_quantiles]
                    target_quantiles = next_quantiles - ent_coef * next_log_prob.reshape(-1, 1)
                    target_quantiles = replay_data.rewards + (1 - replay_data.dones) * discounts * target_quantiles
                    target_quantiles.unsqueeze_(dim=1)
                current_quantiles = self.critic(replay_data.observations, replay_data.actions)
                critic_loss = quantile_huber_loss(current_quantiles, target_quantiles, sum_over_quantiles=False)
                qf_pi = self.critic(replay_data.observations, actions_pi).mean(dim=2).mean(dim=1, keepdim=True)
                actor_loss = (ent_coef * log_prob - qf_pi).mean()
                polyak_update(self.critic.parameters(), self.critic_target.parameters(), tau)
                polyak_update(batch_norm_stats, batch_norm_stats_target, 1.0)
                return ent_coef_loss, critic_loss, actor_loss

            def entry_points(self) -> list[Any]:
                return [type(self.actor).action_log_prob, type(self.critic).forward, quantile_huber_loss,
                        polyak_update]

        return TQCStep(), (samples,), {}

    class CrossQStep(nn.Module):
        """One gradient step of ``CrossQ.train`` (an actor-update step of its policy delay): the joint
        critic pass over current and next transitions (batch statistics of both), the critic loss, the
        entropy-coefficient and actor losses, with the BatchRenorm layers switched as ``train`` switches them
        (``set_bn_training_mode``). No target network."""

        def __init__(self) -> None:
            super().__init__()
            self.policy = policy
            self.actor, self.critic = policy.actor, policy.critic
            self.log_ent_coef = nn.Parameter(torch.log(torch.ones(1)))

        def forward(self, replay_data: Any) -> Any:
            discounts = replay_data.discounts if replay_data.discounts is not None else gamma
            ent_coef = torch.exp(self.log_ent_coef.detach())
            with torch.no_grad():
                self.actor.set_bn_training_mode(False)
                next_actions, next_log_prob = self.actor.action_log_prob(replay_data.next_observations)
            all_obs = torch.cat([replay_data.observations, replay_data.next_observations], dim=0)
            all_actions = torch.cat([replay_data.actions, next_actions], dim=0)
            self.critic.set_bn_training_mode(True)
            all_q_values = torch.cat(self.critic(all_obs, all_actions), dim=1)
            self.critic.set_bn_training_mode(False)
            current_q_values, next_q_values = torch.split(all_q_values, batch_size, dim=0)
            current_q_values = current_q_values.T[..., None]
            with torch.no_grad():
                next_q_values, _ = torch.min(next_q_values.detach(), dim=1, keepdim=True)
                next_q_values = next_q_values - ent_coef * next_log_prob.reshape(-1, 1)
                target_q_values = replay_data.rewards + (1 - replay_data.dones) * discounts * next_q_values
            critic_loss = 0.5 * sum(F.mse_loss(current_q, target_q_values.detach()) for current_q in current_q_values)
            self.actor.set_bn_training_mode(True)
            actions_pi, log_prob = self.actor.action_log_prob(replay_data.observations)
            log_prob = log_prob.reshape(-1, 1)
            self.actor.set_bn_training_mode(False)
            ent_coef_loss = -(self.log_ent_coef * (log_prob + target_entropy).detach()).mean()
            self.critic.set_bn_training_mode(False)
            q_values_pi = torch.cat(self.critic(replay_data.observations, actions_pi), dim=1)
            min_qf_pi, _ = torch.min(q_values_pi, dim=1, keepdim=True)
            actor_loss = (ent_coef * log_prob.reshape(-1, 1) - min_qf_pi).mean()
            return critic_loss, ent_coef_loss, actor_loss

        def entry_points(self) -> list[Any]:
            return [type(self.actor).action_log_prob, type(self.actor).set_bn_training_mode, type(self.critic).forward,
                    type(self.critic).set_bn_training_mode]

    return CrossQStep(), (samples,), {}


def _distribution(name: str, kind: str) -> Built:
    import torch
    from sb3_contrib.common.maskable import distributions
    from torch import nn

    cls, act = DISTRIBUTIONS[name]
    # Built as the maskable policies build it: MultiDiscrete's sizes stay NumPy integers (``list(nvec)``).
    dist = distributions.make_masked_proba_distribution(make_space(act, "action"))
    assert type(dist).__name__ == cls
    latent_dim = 8
    latent = torch.randn(BATCH, latent_dim, generator=torch.Generator().manual_seed(5))
    masks, actions = _masks_and_actions(act, 5)
    masks = torch.as_tensor(masks)
    if act == "discrete":  # as ``evaluate_actions`` gets them from ``train``
        actions = actions.long().flatten()

    class Head(nn.Module):
        """The layer ``proba_distribution_net`` makes for the distribution, on a latent batch, with the action
        masks applied as the maskable policies apply them."""

        def __init__(self) -> None:
            super().__init__()
            self.action_net = dist.proba_distribution_net(latent_dim)

        def forward(self, latent: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor) -> Any:
            logits = self.action_net(latent)
            if kind == "from_params":
                sampled, log_prob = dist.log_prob_from_params(logits)
                return sampled, log_prob, dist.actions_from_params(logits, deterministic=True)
            dist.proba_distribution(logits)
            dist.apply_masking(masks)
            if kind == "sample":
                sampled = dist.get_actions(deterministic=False)
                return sampled, dist.log_prob(sampled), dist.mode()
            if kind == "unmask":
                dist.apply_masking(None)
            return dist.log_prob(actions), dist.entropy()

        def entry_points(self) -> list[Any]:
            kinds = type(dist)
            if kind == "from_params":
                return [kinds.log_prob_from_params, kinds.actions_from_params]
            entered = [kinds.proba_distribution, kinds.apply_masking, kinds.log_prob]
            return entered + ([kinds.sample, kinds.mode] if kind == "sample" else [kinds.entropy])

    return Head(), (latent, masks, actions), {}


def _categorical(name: str) -> Built:
    import torch
    from sb3_contrib.common.maskable.distributions import MaskableCategorical
    from torch import nn

    kind = name.split(".", 1)[1]
    latent = torch.randn(BATCH, 8, generator=torch.Generator().manual_seed(6))
    masks, actions = _masks_and_actions("discrete", 6)
    masks = torch.as_tensor(masks)

    class Categorical(nn.Module):
        """A ``MaskableCategorical`` built in a forward from a linear layer's logits (or their softmax), masked
        at construction (or not), then scored: log-probability of given actions, entropy, a sample."""

        def __init__(self) -> None:
            super().__init__()
            self.logits = nn.Linear(8, 3)

        def forward(self, latent: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor) -> Any:
            logits = self.logits(latent)
            if kind == "probs":
                distribution = MaskableCategorical(probs=torch.softmax(logits, dim=-1), masks=masks)
            else:
                distribution = MaskableCategorical(logits=logits, masks=None if kind == "no_mask" else masks)
            return distribution.log_prob(actions), distribution.entropy(), distribution.sample()

        def entry_points(self) -> list[Any]:
            return [MaskableCategorical, MaskableCategorical.apply_masking, MaskableCategorical.entropy]

    return Categorical(), (latent, masks, actions.long().flatten()), {}


def _layer(name: str) -> Built:
    import torch
    from sb3_contrib.common.torch_layers import BatchRenorm1d

    layer = BatchRenorm1d(6, affine=name != "BatchRenorm1d.no_affine", warmup_steps=4)
    if name == "BatchRenorm1d.renorm":  # past the warm-up: running statistics enter the normalisation
        layer.steps.fill_(5)
        layer.ra_mean.fill_(0.5)
        layer.ra_var.fill_(2.0)
    x = 1.0 + 2.0 * torch.randn(BATCH, 6, generator=torch.Generator().manual_seed(7))
    return layer, (x,), {}


def _function(name: str) -> Built:
    import torch
    from gt_calls import Call
    from sb3_contrib.common.utils import conjugate_gradient_solver, flat_grad, quantile_huber_loss
    from torch import nn

    gen = torch.Generator().manual_seed(9)
    if name == "quantile_huber_loss.qrdqn":  # (batch, quantiles) against (batch, target quantiles)
        return (Call(quantile_huber_loss, sum_over_quantiles=True),
                (torch.randn(BATCH, 8, generator=gen), torch.randn(BATCH, 8, generator=gen)), {})
    if name == "quantile_huber_loss.tqc":  # (batch, critics, quantiles) against (batch, 1, truncated targets)
        return (Call(quantile_huber_loss, sum_over_quantiles=False),
                (torch.randn(BATCH, 2, 5, generator=gen), torch.randn(BATCH, 1, 6, generator=gen)), {})
    if name == "quantile_huber_loss.cum_prob":  # sampled quantile fractions, as IQN-style users pass them
        taus = torch.sort(torch.rand(BATCH, 8, 1, generator=gen), dim=1).values
        return (Call(quantile_huber_loss),
                (torch.randn(BATCH, 8, generator=gen), torch.randn(BATCH, 8, generator=gen), taus), {})
    if name == "conjugate_gradient_solver":
        root = torch.randn(6, 6, generator=gen)

        class Solve(nn.Module):
            """``conjugate_gradient_solver`` for ``A x = b`` with a fixed symmetric positive-definite ``A``."""

            def __init__(self) -> None:
                super().__init__()
                self.register_buffer("matrix", root @ root.T + torch.eye(6))

            def forward(self, b: torch.Tensor) -> torch.Tensor:
                return conjugate_gradient_solver(lambda v: self.matrix @ v, b, max_iter=10)

            def entry_points(self) -> list[Any]:
                return [conjugate_gradient_solver]

        return Solve(), (torch.randn(6, generator=gen),), {}

    class FlatGrad(nn.Module):
        """``flat_grad`` of a small network's loss with respect to its parameters, keeping the graph (what
        TRPO's Fisher-vector product differentiates again); gradients are enabled in both modes."""

        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                loss = self.net(x).pow(2).mean()
                return flat_grad(loss, list(self.net.parameters()), create_graph=True)

        def entry_points(self) -> list[Any]:
            return [flat_grad]

    return FlatGrad(), (torch.randn(BATCH, 4, generator=gen),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in TRAIN_STEPS:
        algorithm = TRAIN_STEPS[name][0]
        if algorithm in ("RecurrentPPO", "MaskablePPO"):
            return _on_policy_step(name)
        if algorithm == "TRPO":
            return _trpo_step(name)
        return _off_policy_step(name)
    if name in CATEGORICAL:
        return _categorical(name)
    if name.startswith("torch_layers."):
        return _layer(name.split(".", 1)[1])
    if name.startswith("utils."):
        return _function(name.split(".", 1)[1])
    base, kind = name.rsplit(".", 1)
    if base in DISTRIBUTIONS and kind in DIST_KINDS:
        return _distribution(base, kind)
    return _policy_method(name)
