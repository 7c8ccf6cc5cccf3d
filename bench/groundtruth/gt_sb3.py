"""Ground-truth bench, stable_baselines3: the policies of its algorithms, their distributions and train-step losses.

stable-baselines3 2.9.2 trains its policies (``nn.Module``s built from gymnasium spaces) in
``collect_rollouts`` (the policy's ``forward`` under ``no_grad``), ``predict`` (``_predict``) and
``train`` (``evaluate_actions`` and the algorithm's loss). No environment is needed to build a policy:
each is constructed from its observation and action spaces (``gymnasium.spaces``) as the algorithms
construct it (``policy_class(observation_space, action_space, lr_schedule, **policy_kwargs)``), at tiny
sizes. So:

- ``POLICIES``: PPO/A2C's ``ActorCriticPolicy`` (MlpPolicy) on each action space, which picks the
  distribution (``Box``: diagonal Gaussian, or gSDE with ``use_sde``, squashed and ``expln``;
  ``Discrete``: categorical; ``MultiDiscrete``: multi-categorical; ``MultiBinary``: Bernoulli), on
  discrete, multi-discrete and multi-binary observations (one-hot preprocessing), with separate
  actor/critic extractors; ``ActorCriticCnnPolicy`` (``NatureCNN`` on 1 x 36 x 36 ``uint8`` images);
  ``MultiInputActorCriticPolicy`` on a ``Dict`` space (an image, a vector and a discrete entry:
  ``CombinedExtractor``); SAC's policy (squashed Gaussian or gSDE actor, twin critics, shared or not)
  and its Cnn/MultiInput variants; TD3's policy (and DDPG's, one critic); DQN's policy (``QNetwork``).
  Each is compiled through one or more of its methods (``gt_calls.Method``): ``forward``,
  ``evaluate_actions``, ``_predict`` (deterministic, what ``predict`` runs), ``predict_values``, the
  SAC actor's ``action_log_prob``, the critics' ``forward`` and ``q1_forward``;
- ``TRAIN_STEPS``: the loss of one gradient step of PPO, A2C, SAC, TD3, DDPG and DQN written as their
  ``train()`` computes it from a ``RolloutBufferSamples`` / ``ReplayBufferSamples`` batch (the library's
  own named tuples), with the algorithms' default hyperparameters (``OnPolicyStep``, ``SACStep``,
  ``TD3Step``, ``DQNStep``: bench code calling the policy's own methods and ``polyak_update`` for the
  target networks). The logging statistics (``.item()`` of each loss, PPO's clip fraction and
  approximate KL) and the optimiser calls (``backward``, ``clip_grad_norm_``, ``step``: torch's code)
  are left out, so SAC's and TD3's losses are computed from one set of weights where ``train()``
  steps the optimisers between them;
- ``DISTRIBUTIONS``: each ``Distribution`` with the head ``proba_distribution_net`` makes for it:
  ``<dist>.evaluate`` (``proba_distribution``, ``log_prob``, ``entropy``) and ``<dist>.sample``
  (``log_prob_from_params`` and a deterministic ``actions_from_params``), plus ``kl_divergence``;
- ``EXTRACTORS``: ``NatureCNN`` and ``CombinedExtractor``, after ``preprocess_obs``.

Batches are 8 transitions; vector observations have 4 entries and continuous actions 2; random
weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 8
SMALL_CNN = {"features_extractor_kwargs": {"features_dim": 32}}
SMALL_DICT = {"features_extractor_kwargs": {"cnn_output_dim": 16}}

# Observation spaces: "box" Box(-1, 1, (4,)), "image" Box(0, 255, (1, 36, 36), uint8) (the smallest side
# NatureCNN takes), "discrete" Discrete(5), "multidiscrete" MultiDiscrete([3, 4]), "multibinary"
# MultiBinary(3), "dict" Dict(image, vector Box(-1, 1, (3,)), mode Discrete(3)).
# Action spaces: "box" Box(-1, 1, (2,)), "discrete" Discrete(3), "multidiscrete" MultiDiscrete([2, 3]),
# "multibinary" MultiBinary(3).

# Policy name -> (``module:class`` under ``stable_baselines3``, observation space, action space, keywords,
# methods compiled). A method ``actor.action_log_prob`` is called on the policy's ``actor``; ``critic`` is the
# critic's ``forward``. A policy without methods is built for ``TRAIN_STEPS`` only. Methods that another
# model of the same policy family already traces are left out, to keep the bench fast.
POLICIES: dict[str, tuple[str, str, str, dict[str, Any], tuple[str, ...]]] = {
    "ActorCriticPolicy": ("ppo:MlpPolicy", "box", "box", {},
                          ("forward", "evaluate_actions", "_predict", "predict_values")),
    "ActorCriticPolicy.discrete": ("ppo:MlpPolicy", "box", "discrete", {},
                                   ("forward", "evaluate_actions")),
    "ActorCriticPolicy.multidiscrete": ("ppo:MlpPolicy", "box", "multidiscrete", {}, ("forward",)),
    "ActorCriticPolicy.multibinary": ("ppo:MlpPolicy", "box", "multibinary", {}, ("forward",)),
    "ActorCriticPolicy.sde": ("ppo:MlpPolicy", "box", "box", {"use_sde": True}, ("forward", "evaluate_actions")),
    "ActorCriticPolicy.sde_squashed": ("ppo:MlpPolicy", "box", "box",
                                       {"use_sde": True, "squash_output": True, "use_expln": True, "full_std": False},
                                       ("forward",)),
    "ActorCriticPolicy.separate": ("ppo:MlpPolicy", "box", "box",
                                   {"share_features_extractor": False, "net_arch": {"pi": [16], "vf": [16, 16]},
                                    "activation_fn": "ReLU", "ortho_init": False},
                                   ("forward", "predict_values")),
    "ActorCriticPolicy.discrete_obs": ("a2c:MlpPolicy", "discrete", "discrete", {}, ("forward",)),
    "ActorCriticPolicy.multidiscrete_obs": ("a2c:MlpPolicy", "multidiscrete", "discrete", {}, ("forward",)),
    "ActorCriticPolicy.multibinary_obs": ("a2c:MlpPolicy", "multibinary", "box", {}, ("forward",)),
    "ActorCriticCnnPolicy": ("ppo:CnnPolicy", "image", "discrete", SMALL_CNN, ("forward", "evaluate_actions")),
    "ActorCriticCnnPolicy.separate": ("ppo:CnnPolicy", "image", "box", {**SMALL_CNN, "share_features_extractor": False},
                                      ("forward",)),
    "MultiInputActorCriticPolicy": ("ppo:MultiInputPolicy", "dict", "box", SMALL_DICT,
                                    ("forward", "evaluate_actions")),
    "SACPolicy": ("sac:MlpPolicy", "box", "box", {"net_arch": [32, 32]},
                  ("forward", "_predict", "actor.action_log_prob", "critic")),
    "SACPolicy.sde": ("sac:MlpPolicy", "box", "box", {"net_arch": [32, 32], "use_sde": True}, ("forward",)),
    "SACPolicy.sde_expln": ("sac:MlpPolicy", "box", "box",
                            {"net_arch": {"pi": [32], "qf": [32, 32]}, "use_sde": True, "use_expln": True,
                             "clip_mean": 0.0}, ("actor.action_log_prob",)),
    "SACPolicy.shared": ("sac:MlpPolicy", "box", "box",
                         {"net_arch": [32, 32], "share_features_extractor": True, "n_critics": 3},
                         ()),
    "SACCnnPolicy": ("sac:CnnPolicy", "image", "box", {**SMALL_CNN, "net_arch": [32]}, ("forward", "critic")),
    "SACMultiInputPolicy": ("sac:MultiInputPolicy", "dict", "box", {**SMALL_DICT, "net_arch": [32]}, ("forward",)),
    "TD3Policy": ("td3:MlpPolicy", "box", "box", {"net_arch": [32, 32]}, ("forward", "critic.q1_forward")),
    "TD3CnnPolicy": ("td3:CnnPolicy", "image", "box", {**SMALL_CNN, "net_arch": [32]}, ("forward",)),
    "TD3MultiInputPolicy": ("td3:MultiInputPolicy", "dict", "box", {**SMALL_DICT, "net_arch": [32]},
                            ("forward",)),
    "DDPGPolicy": ("ddpg:MlpPolicy", "box", "box", {"net_arch": [32, 32], "n_critics": 1}, ()),
    "DQNPolicy": ("dqn:MlpPolicy", "box", "discrete", {"net_arch": [32, 32]}, ("forward",)),
    "DQNCnnPolicy": ("dqn:CnnPolicy", "image", "discrete", {**SMALL_CNN, "net_arch": [32]}, ("forward",)),
    "DQNMultiInputPolicy": ("dqn:MultiInputPolicy", "dict", "discrete", {**SMALL_DICT, "net_arch": [32]},
                            ("forward",)),
}

# Train step -> (algorithm, policy of ``POLICIES``, options). Options are the algorithm's hyperparameters
# that change the loss's code (``clip_range_vf``, a fixed ``ent_coef``).
TRAIN_STEPS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "PPO.train_step": ("PPO", "ActorCriticPolicy", {}),
    "PPO.train_step.discrete": ("PPO", "ActorCriticPolicy.discrete", {}),
    "PPO.train_step.clip_range_vf": ("PPO", "ActorCriticPolicy.multibinary", {"clip_range_vf": 0.2}),
    "PPO.train_step.sde_squashed": ("PPO", "ActorCriticPolicy.sde_squashed", {}),
    "PPO.train_step.cnn": ("PPO", "ActorCriticCnnPolicy", {}),
    "PPO.train_step.multi_input": ("PPO", "MultiInputActorCriticPolicy", {}),
    "A2C.train_step": ("A2C", "ActorCriticPolicy", {}),
    "SAC.train_step": ("SAC", "SACPolicy", {}),
    "SAC.train_step.fixed_ent_coef": ("SAC", "SACPolicy.shared", {"ent_coef": 0.1}),
    "SAC.train_step.sde": ("SAC", "SACPolicy.sde", {}),
    "TD3.train_step": ("TD3", "TD3Policy", {}),
    "DDPG.train_step": ("DDPG", "DDPGPolicy", {}),
    "DQN.train_step": ("DQN", "DQNPolicy", {}),
}

# Distribution name -> (class of ``common.distributions``, constructor keywords, action space).
DISTRIBUTIONS: dict[str, tuple[str, dict[str, Any], str]] = {
    "DiagGaussianDistribution": ("DiagGaussianDistribution", {}, "box"),
    "SquashedDiagGaussianDistribution": ("SquashedDiagGaussianDistribution", {}, "box"),
    "CategoricalDistribution": ("CategoricalDistribution", {}, "discrete"),
    "MultiCategoricalDistribution": ("MultiCategoricalDistribution", {}, "multidiscrete"),
    "BernoulliDistribution": ("BernoulliDistribution", {}, "multibinary"),
    "StateDependentNoiseDistribution": ("StateDependentNoiseDistribution", {}, "box"),
    "StateDependentNoiseDistribution.squashed_expln": (
        "StateDependentNoiseDistribution",
        {"squash_output": True, "use_expln": True, "full_std": False, "learn_features": True}, "box"),
}
KL = ("DiagGaussianDistribution", "MultiCategoricalDistribution")
EXTRACTORS = ("NatureCNN", "CombinedExtractor")


def names() -> list[str]:
    policies = [f"{p}.{m}" for p, (_, _, _, _, methods) in POLICIES.items() for m in methods]
    distributions = [f"{d}.{kind}" for d in DISTRIBUTIONS for kind in ("evaluate", "sample")]
    return (policies + list(TRAIN_STEPS) + distributions + [f"kl_divergence.{d}" for d in KL]
            + [f"torch_layers.{e}" for e in EXTRACTORS])


def make_space(kind: str, role: str) -> Any:
    """The gymnasium space named ``kind`` for observations (``role="obs"``) or actions (``gt_sb3_contrib``'s too)."""
    import numpy as np
    from gymnasium import spaces

    if kind == "box":
        return spaces.Box(-1.0, 1.0, (4,) if role == "obs" else (2,), dtype=np.float32)
    if kind == "image":
        return spaces.Box(0, 255, (1, 36, 36), dtype=np.uint8)
    if kind == "discrete":
        return spaces.Discrete(5 if role == "obs" else 3)
    if kind == "multidiscrete":
        return spaces.MultiDiscrete([3, 4] if role == "obs" else [2, 3])
    if kind == "multibinary":
        return spaces.MultiBinary(3)
    if kind == "dict":
        return spaces.Dict({"image": make_space("image", "obs"), "vector": spaces.Box(-1.0, 1.0, (3,), dtype=np.float32),
                            "mode": spaces.Discrete(3)})
    raise KeyError(kind)


def sample_batch(space: Any, seed: int, rows: int = BATCH) -> Any:
    """A batch of ``rows`` elements of ``space`` as tensors, in the dtypes the rollout and replay buffers give
    back (observations in the space's dtype; actions as the caller converts them). ``gt_sb3_contrib`` uses it
    too."""
    import numpy as np
    import torch
    from gymnasium import spaces

    space.seed(seed)
    if isinstance(space, spaces.Dict):
        return {key: sample_batch(sub, seed + i, rows) for i, (key, sub) in enumerate(space.spaces.items())}
    batch = np.stack([np.asarray(space.sample()) for _ in range(rows)])
    return torch.as_tensor(batch)


def _policy(name: str) -> Any:
    import importlib

    from torch import nn

    path, obs, act, keywords, _ = POLICIES[name]
    module, cls = path.split(":")
    keywords = dict(keywords)
    if "activation_fn" in keywords:
        keywords["activation_fn"] = getattr(nn, keywords["activation_fn"])
    policy_class = getattr(importlib.import_module(f"stable_baselines3.{module}"), cls)
    policy = policy_class(make_space(obs, "obs"), make_space(act, "action"), lambda _: 3e-4, **keywords)
    if keywords.get("use_sde"):  # ``collect_rollouts`` samples the exploration matrices, one per env
        (policy.actor if hasattr(policy, "actor") else policy).reset_noise(BATCH)
    return policy


def _policy_method(name: str) -> Built:
    from gt_calls import Method

    policy_name, method = next((p, name[len(p) + 1:]) for p in sorted(POLICIES, key=len, reverse=True)
                               if name.startswith(p + "."))
    policy = _policy(policy_name)
    _, obs, act, _, _ = POLICIES[policy_name]
    observations = sample_batch(make_space(obs, "obs"), 1)
    owner: Any = policy
    if "." in method:
        part, method = method.split(".")
        owner = getattr(policy, part)
    if method == "critic":
        return policy.critic, (observations, sample_batch(make_space(act, "action"), 2).float()), {}
    if method == "q1_forward":
        return Method(owner, method), (observations, sample_batch(make_space(act, "action"), 2).float()), {}
    if method == "evaluate_actions":
        actions = sample_batch(make_space(act, "action"), 2).float()
        if act == "discrete":  # ``train`` flattens discrete actions to indices
            actions = actions.long().flatten()
        return Method(owner, method), (observations, actions), {}
    if method == "_predict":
        return Method(owner, method, deterministic=True), (observations,), {}
    if method == "forward" and owner is policy:
        return policy, (observations,), {}
    return Method(owner, method), (observations,), {}


def _train_step(name: str) -> Built:
    import numpy as np
    import torch
    import torch.nn.functional as F
    from gymnasium import spaces
    from stable_baselines3.common.type_aliases import ReplayBufferSamples, RolloutBufferSamples
    from stable_baselines3.common.utils import polyak_update
    from torch import nn

    algorithm, policy_name, options = TRAIN_STEPS[name]
    policy = _policy(policy_name)
    _, obs, act, _, _ = POLICIES[policy_name]
    observation_space, action_space = make_space(obs, "obs"), make_space(act, "action")
    gen = torch.Generator().manual_seed(3)
    actions = sample_batch(action_space, 2).float()
    if isinstance(action_space, spaces.Discrete):  # the buffers store one float per discrete action
        actions = actions.reshape(BATCH, 1)
    gamma = 0.99

    if algorithm in ("PPO", "A2C"):
        samples: Any = RolloutBufferSamples(
            observations=sample_batch(observation_space, 1), actions=actions,
            old_values=torch.randn(BATCH, generator=gen), old_log_prob=torch.randn(BATCH, generator=gen) - 2.0,
            advantages=torch.randn(BATCH, generator=gen), returns=torch.randn(BATCH, generator=gen))
        clip_range, clip_range_vf = 0.2, options.get("clip_range_vf")
        ent_coef, vf_coef = 0.0, 0.5
        normalize_advantage = algorithm == "PPO"  # A2C's default is False

        class OnPolicyStep(nn.Module):
            """One minibatch of ``PPO.train`` / ``A2C.train`` up to ``loss.backward()``."""

            def __init__(self) -> None:
                super().__init__()
                self.policy = policy

            def forward(self, rollout_data: Any) -> torch.Tensor:
                actions = rollout_data.actions
                if isinstance(action_space, spaces.Discrete):
                    actions = rollout_data.actions.long().flatten()
                values, log_prob, entropy = self.policy.evaluate_actions(rollout_data.observations, actions)
                values = values.flatten()
                advantages = rollout_data.advantages
                if normalize_advantage and len(advantages) > 1:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                if algorithm == "A2C":
                    policy_loss = -(advantages * log_prob).mean()
                    value_loss = F.mse_loss(rollout_data.returns, values)
                else:
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

        return OnPolicyStep(), (samples,), {}

    samples = ReplayBufferSamples(
        observations=sample_batch(observation_space, 1), actions=actions,
        next_observations=sample_batch(observation_space, 4),
        dones=(torch.rand(BATCH, 1, generator=gen) < 0.2).float(), rewards=torch.randn(BATCH, 1, generator=gen))

    if algorithm == "SAC":
        tau = 0.005
        fixed = options.get("ent_coef")
        target_entropy = float(-np.prod(action_space.shape).astype(np.float32))

        class SACStep(nn.Module):
            """One gradient step of ``SAC.train``: entropy-coefficient, critic and actor losses, then the
            target critic's Polyak update."""

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
                    next_q_values = torch.cat(self.critic_target(replay_data.next_observations, next_actions), dim=1)
                    next_q_values, _ = torch.min(next_q_values, dim=1, keepdim=True)
                    next_q_values = next_q_values - ent_coef * next_log_prob.reshape(-1, 1)
                    target_q_values = replay_data.rewards + (1 - replay_data.dones) * discounts * next_q_values
                current_q_values = self.critic(replay_data.observations, replay_data.actions)
                critic_loss = 0.5 * sum(F.mse_loss(current_q, target_q_values) for current_q in current_q_values)
                q_values_pi = torch.cat(self.critic(replay_data.observations, actions_pi), dim=1)
                min_qf_pi, _ = torch.min(q_values_pi, dim=1, keepdim=True)
                actor_loss = (ent_coef * log_prob - min_qf_pi).mean()
                polyak_update(self.critic.parameters(), self.critic_target.parameters(), tau)
                return ent_coef_loss, critic_loss, actor_loss

            def entry_points(self) -> list[Any]:
                return [type(self.actor).action_log_prob, type(self.critic).forward, polyak_update]

        return SACStep(), (samples,), {}

    if algorithm in ("TD3", "DDPG"):
        tau = 0.005
        target_policy_noise, target_noise_clip = (0.2, 0.5) if algorithm == "TD3" else (0.1, 0.0)

        class TD3Step(nn.Module):
            """One gradient step of ``TD3.train`` (DDPG's is TD3's without its tricks: one critic, no target
            noise clipping, no policy delay): critic loss, the delayed actor loss and the Polyak updates."""

            def __init__(self) -> None:
                super().__init__()
                self.policy = policy
                self.actor, self.actor_target = policy.actor, policy.actor_target
                self.critic, self.critic_target = policy.critic, policy.critic_target

            def forward(self, replay_data: Any) -> Any:
                discounts = replay_data.discounts if replay_data.discounts is not None else gamma
                with torch.no_grad():
                    noise = replay_data.actions.clone().data.normal_(0, target_policy_noise)
                    noise = noise.clamp(-target_noise_clip, target_noise_clip)
                    next_actions = (self.actor_target(replay_data.next_observations) + noise).clamp(-1, 1)
                    next_q_values = torch.cat(self.critic_target(replay_data.next_observations, next_actions), dim=1)
                    next_q_values, _ = torch.min(next_q_values, dim=1, keepdim=True)
                    target_q_values = replay_data.rewards + (1 - replay_data.dones) * discounts * next_q_values
                current_q_values = self.critic(replay_data.observations, replay_data.actions)
                critic_loss = sum(F.mse_loss(current_q, target_q_values) for current_q in current_q_values)
                actor_loss = -self.critic.q1_forward(replay_data.observations,
                                                     self.actor(replay_data.observations)).mean()
                polyak_update(self.critic.parameters(), self.critic_target.parameters(), tau)
                polyak_update(self.actor.parameters(), self.actor_target.parameters(), tau)
                return critic_loss, actor_loss

            def entry_points(self) -> list[Any]:
                return [type(self.actor), type(self.critic).forward, type(self.critic).q1_forward, polyak_update]

        return TD3Step(), (samples,), {}

    class DQNStep(nn.Module):
        """One gradient step of ``DQN.train`` (the TD target from the target network, the Huber loss), then
        the target network's update of ``_on_step`` (``polyak_update`` with ``tau=1``)."""

        def __init__(self) -> None:
            super().__init__()
            self.policy = policy
            self.q_net, self.q_net_target = policy.q_net, policy.q_net_target

        def forward(self, replay_data: Any) -> torch.Tensor:
            discounts = replay_data.discounts if replay_data.discounts is not None else gamma
            with torch.no_grad():
                next_q_values = self.q_net_target(replay_data.next_observations)
                next_q_values, _ = next_q_values.max(dim=1)
                next_q_values = next_q_values.reshape(-1, 1)
                target_q_values = replay_data.rewards + (1 - replay_data.dones) * discounts * next_q_values
            current_q_values = self.q_net(replay_data.observations)
            current_q_values = torch.gather(current_q_values, dim=1, index=replay_data.actions.long())
            loss = F.smooth_l1_loss(current_q_values, target_q_values)
            polyak_update(self.q_net.parameters(), self.q_net_target.parameters(), 1.0)
            return loss

        def entry_points(self) -> list[Any]:
            return [type(self.q_net), polyak_update]

    return DQNStep(), (samples,), {}


def _distribution(name: str, kind: str) -> Built:
    import torch
    from stable_baselines3.common import distributions
    from stable_baselines3.common.preprocessing import get_action_dim
    from torch import nn

    cls, keywords, act = DISTRIBUTIONS[name]
    space = make_space(act, "action")
    sizes = {"box": get_action_dim(space), "discrete": int(getattr(space, "n", 0)),
             "multidiscrete": [int(n) for n in getattr(space, "nvec", [])], "multibinary": getattr(space, "n", 0)}
    dist = getattr(distributions, cls)(sizes[act], **keywords)
    latent_dim = 8
    gaussian = isinstance(dist, distributions.DiagGaussianDistribution)
    sde = isinstance(dist, distributions.StateDependentNoiseDistribution)
    gen = torch.Generator().manual_seed(5)
    latent = torch.randn(BATCH, latent_dim, generator=gen)
    actions = sample_batch(space, 2).float()
    if act == "discrete":  # as ``evaluate_actions`` gets them from ``train``
        actions = actions.long()
    if keywords.get("squash_output") or cls == "SquashedDiagGaussianDistribution":
        actions = actions.clamp(-0.99, 0.99)

    class Head(nn.Module):
        """The layers ``proba_distribution_net`` makes for the distribution, on a latent batch: what a policy's
        action head does with its distribution."""

        def __init__(self) -> None:
            super().__init__()
            if sde:
                self.action_net, self.log_std = dist.proba_distribution_net(latent_dim, log_std_init=-0.5)
            elif gaussian:
                self.action_net, self.log_std = dist.proba_distribution_net(latent_dim, log_std_init=0.0)
            else:
                self.action_net = dist.proba_distribution_net(latent_dim)

        def params(self, latent: torch.Tensor) -> tuple[Any, ...]:
            mean = self.action_net(latent)
            if sde:
                return mean, self.log_std, latent
            if gaussian:
                return mean, self.log_std
            return (mean,)

        def forward(self, latent: torch.Tensor, actions: torch.Tensor) -> Any:
            params = self.params(latent)
            if kind == "evaluate":
                dist.proba_distribution(*params)
                return dist.log_prob(actions), dist.entropy()
            sampled, log_prob = dist.log_prob_from_params(*params)
            return sampled, log_prob, dist.actions_from_params(*params, deterministic=True)

        def entry_points(self) -> list[Any]:
            kinds = type(dist)
            if kind == "evaluate":
                return [kinds.proba_distribution, kinds.log_prob, kinds.entropy]
            return [kinds.log_prob_from_params, kinds.actions_from_params]

    return Head(), (latent, actions), {}


def _kl(name: str) -> Built:
    import torch
    from stable_baselines3.common import distributions
    from torch import nn

    cls = getattr(distributions, name)
    sizes = {"DiagGaussianDistribution": 2, "CategoricalDistribution": 3, "MultiCategoricalDistribution": [2, 3]}
    p, q = cls(sizes[name]), cls(sizes[name])
    latent = torch.randn(BATCH, 8, generator=torch.Generator().manual_seed(6))

    class KL(nn.Module):
        """``kl_divergence`` between the distributions of a policy head and of an older copy of it (what a
        trust-region update measures)."""

        def __init__(self) -> None:
            super().__init__()
            if name == "DiagGaussianDistribution":
                self.new, self.new_log_std = p.proba_distribution_net(8)
                self.old, self.old_log_std = q.proba_distribution_net(8, log_std_init=-0.5)
            else:
                self.new, self.old = p.proba_distribution_net(8), q.proba_distribution_net(8)

        def forward(self, latent: torch.Tensor) -> torch.Tensor:
            if name == "DiagGaussianDistribution":
                p.proba_distribution(self.new(latent), self.new_log_std)
                q.proba_distribution(self.old(latent), self.old_log_std)
            else:
                p.proba_distribution(self.new(latent))
                q.proba_distribution(self.old(latent))
            return distributions.kl_divergence(q, p)

        def entry_points(self) -> list[Any]:
            return [distributions.kl_divergence, cls.proba_distribution]

    return KL(), (latent,), {}


def _extractor(name: str) -> Built:
    from stable_baselines3.common import torch_layers
    from stable_baselines3.common.preprocessing import preprocess_obs
    from torch import nn

    if name == "NatureCNN":
        space = make_space("image", "obs")

        class Normalised(nn.Module):
            """``NatureCNN`` on images preprocessed as ``extract_features`` does (``preprocess_obs``)."""

            def __init__(self) -> None:
                super().__init__()
                self.cnn = torch_layers.NatureCNN(space, features_dim=32)

            def forward(self, obs: Any) -> Any:
                return self.cnn(preprocess_obs(obs, space))

            def entry_points(self) -> list[Any]:
                return [preprocess_obs, torch_layers.NatureCNN]

        return Normalised(), (sample_batch(space, 1),), {}
    space = make_space("dict", "obs")

    class Combined(nn.Module):
        """``CombinedExtractor`` on a ``Dict`` observation after ``preprocess_obs``."""

        def __init__(self) -> None:
            super().__init__()
            self.extractor = torch_layers.CombinedExtractor(space, cnn_output_dim=16)

        def forward(self, obs: Any) -> Any:
            return self.extractor(preprocess_obs(obs, space))

        def entry_points(self) -> list[Any]:
            return [preprocess_obs, torch_layers.CombinedExtractor]

    return Combined(), (sample_batch(space, 1),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in TRAIN_STEPS:
        return _train_step(name)
    if name.startswith("kl_divergence."):
        return _kl(name.split(".", 1)[1])
    if name.startswith("torch_layers."):
        return _extractor(name.split(".", 1)[1])
    base, kind = name.rsplit(".", 1)
    if base in DISTRIBUTIONS and kind in ("evaluate", "sample"):
        return _distribution(base, kind)
    return _policy_method(name)
