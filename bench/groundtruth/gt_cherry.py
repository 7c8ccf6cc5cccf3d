"""Ground-truth bench, cherry: RL building blocks (losses, returns, distributions, replays) and update steps.

cherry (cherry-rl, from learnables) is a library of reinforcement-learning pieces rather than of agents:
users write their own training loops from its parts. Its top level holds the tensor helpers (``totensor``,
``normalize``, ``onehot``), the return estimators of ``cherry.td`` (``discount``, ``temporal_difference``)
and ``cherry.pg`` (``generalized_advantage``), and ``ExperienceReplay``, a list of ``Transition`` objects whose
fields come back as stacked tensors (``replay.state()``, ``replay.log_prob()``) and which samples single,
contiguous, episodic and n-step batches and flattens vectorized rollouts. ``cherry.distributions`` wraps
torch's (``Categorical`` and ``Normal`` reshaped for actions, ``TanhNormal`` for SAC, ``Reparameterization``,
the space-driven ``ActionDistribution``); ``cherry.nn`` gives the ``Policy`` / ``ActionValue`` /
``StateValue`` bases users subclass, ``Twin`` critics, ``MLP``, ``EpsilonGreedy``, ``RoboticsLinear`` and
``Lambda``; ``cherry.models`` the robotics, Atari and tabular networks, ``LinearValue`` (a least-squares
baseline), ``RandomPolicy`` and ``polyak_average``. ``cherry.algorithms`` holds each algorithm's losses as
static methods (A2C, PPO, TRPO with its Hessian-vector product, conjugate gradient and line search, SAC,
DDPG) and whole ``update`` steps (``PPO``, ``SAC``, ``TD3``, ``DrQ``, ``DrQv2``, with ``RandomShiftsAug``).
``cherry.wrappers`` wraps gym environments (``Torch``, ``Runner`` collecting replays, the normalizers). So,
at tiny sizes (observations of 4, 3 discrete or 2 continuous actions, replays of 8 transitions, width 16):

- ``FUNCTIONS``: the library's functions on tensors (``gt_calls.Call``): the tensor helpers on tensors, lists,
  numbers and arrays, the returns and advantages, every algorithm's losses (also with ``cherry.debug``'s
  checks switched on, as ``cherry.debug.debug()`` does), TRPO's Hessian-vector product, conjugate gradient
  (on tensors and on lists of them) and line search, SAC's ``actions_log_probs``, ``polyak_average``;
- ``DISTRIBUTIONS``: cherry's distributions sampled, scored and reduced to their mode, ``ActionDistribution``
  for discrete (logits, probabilities) and continuous (learned, fixed, reparameterized) action spaces;
- ``NETS``: ``MLP``, policies written on ``cherry.nn.Policy`` (``act`` sampled and deterministic,
  ``log_prob``), ``Twin`` critics, ``EpsilonGreedy``, the robotics, Atari and tabular models, ``LinearValue``
  fitted and evaluated, ``RandomPolicy``, ``RandomShiftsAug``;
- ``REPLAYS``: ``ExperienceReplay`` filled in a rollout loop and read back, sampled (single, contiguous,
  episodes, n-step), sliced and added, flattened from a vectorized rollout, cast and moved (``to``, ``half``,
  ``double``, ``Transition.to``);
- ``ALGORITHMS``: the ``update`` steps of ``PPO`` (flat and vectorized replays), ``SAC`` (tuned and fixed
  entropy, with feature extractors and target updates), ``TD3`` (one and n-step), ``DrQ`` and ``DrQv2`` on
  image observations, and training steps written from cherry's parts as its examples write them (A2C with
  discounted returns and with GAE, TRPO's natural-gradient step, DDPG, tabular and deep Q-learning with
  epsilon-greedy actions and Polyak-averaged targets);
- ``ENVS``: ``Runner.run`` collecting steps and episodes through the ``Torch`` wrapper, on single and
  vectorized environments, with policy infos, a random policy, and the normalizing / scaling wrappers.

No environment is downloaded: the environments are small ones written here with the old gym API (reset
returns the observation, step four values) that cherry's wrappers expect. Random weights, nothing
downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

cherry-rl 0.2.0 does not import on the installed gym 0.26: its recorder wrapper subclasses
``gym.wrappers.monitoring.video_recorder.ImageEncoder``, which gym 0.26 dropped. ``before_import()`` puts a
stand-in class there first (no model records video), and gives NumPy back the ``numpy.float`` alias
(removed in NumPy 1.24) that ``cherry.onehot`` still names.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import functools
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
T, OBS, NACT, ADIM, HID, NENV, IMG, NSTATES = 8, 4, 3, 2, 16, 2, 12, 5

FUNCTIONS = (
    "totensor.tensor", "totensor.list", "totensor.float", "totensor.ndarray", "totensor.bool_array",
    "normalize", "normalize.single", "onehot.tensor", "onehot.int", "onehot.ndarray", "td.discount",
    "td.discount.bootstrap_tensor", "td.discount.vector", "td.temporal_difference", "pg.generalized_advantage",
    "a2c.policy_loss", "a2c.state_value_loss", "a2c.policy_loss.debug", "a2c.state_value_loss.debug",
    "ppo.policy_loss", "ppo.state_value_loss", "ppo.policy_loss.debug", "ppo.state_value_loss.debug",
    "trpo.policy_loss", "trpo.policy_loss.debug", "trpo.hessian_vector_product",
    "trpo.hessian_vector_product.list", "trpo.conjugate_gradient", "trpo.conjugate_gradient.list",
    "trpo.line_search", "sac.policy_loss", "sac.action_value_loss", "sac.action_value_loss.debug",
    "sac.state_value_loss", "sac.state_value_loss.debug", "sac.entropy_weight_loss", "sac.entropy_weight_loss.debug",
    "sac.actions_log_probs.tanh_normal", "sac.actions_log_probs.normal", "ddpg.state_value_loss",
    "ddpg.state_value_loss.debug", "polyak_average",
)
DISTRIBUTIONS = (
    "Categorical", "Normal", "Reparameterization.normal", "Reparameterization.categorical",
    "ActionDistribution.discrete", "ActionDistribution.discrete.probs", "ActionDistribution.continuous",
    "ActionDistribution.continuous.logstd", "ActionDistribution.continuous.reparam",
    "TanhNormal.rsample_and_log_prob", "TanhNormal.sample_and_log_prob", "TanhNormal.log_prob",
    "TanhNormal.mean_mode", "TanhNormal.sample",
)
NETS = (
    "MLP", "MLP.int_hidden", "Policy.categorical.act", "Policy.categorical.act.deterministic",
    "Policy.categorical.log_prob", "Policy.gaussian.act", "Policy.gaussian.act.deterministic",
    "Policy.tanh_normal.act", "Policy.tanh_normal.act.deterministic", "Policy.action_distribution.act", "Twin",
    "Twin.twin", "Twin.all_action_values", "EpsilonGreedy", "EpsilonGreedy.learnable", "RoboticsLinear", "Lambda",
    "RoboticsMLP", "RoboticsMLP.linear", "RoboticsActor", "LinearValue", "LinearValue.fit", "NatureFeatures",
    "NatureActorCritic", "StateValueFunction", "StateValueFunction.init", "ActionValueFunction",
    "ActionValueFunction.all_actions", "RandomPolicy", "RandomShiftsAug",
)
REPLAYS = (
    "ExperienceReplay.append", "ExperienceReplay.append.vectorized", "ExperienceReplay.sample",
    "ExperienceReplay.sample.contiguous", "ExperienceReplay.sample.episodes",
    "ExperienceReplay.sample.episodes.contiguous", "ExperienceReplay.sample.nsteps", "ExperienceReplay.slice_add",
    "ExperienceReplay.flatten", "ExperienceReplay.to", "Transition.to",
)
ALGORITHMS = (
    "PPO.update", "PPO.update.vectorized", "PPO.update.gaussian", "SAC.update", "SAC.update.fixed_entropy",
    "SAC.update.features", "TD3.update", "TD3.update.nsteps", "DrQ.update", "DrQv2.update", "A2C.train_step",
    "A2C.train_step.gae", "TRPO.train_step", "DDPG.train_step", "QLearning.tabular", "DQN.train_step",
)
ENVS = (
    "Runner.run.steps", "Runner.run.episodes", "Runner.run.infos", "Runner.run.vectorized",
    "Runner.run.vectorized.episodes", "Runner.run.random_policy", "Runner.run.normalizers", "Torch.step",
    "Normalizer.step", "ActionLambda.step",
)


def names() -> list[str]:
    return ([f"fn.{n}" for n in FUNCTIONS] + [f"dist.{n}" for n in DISTRIBUTIONS] + [f"nn.{n}" for n in NETS]
            + [f"replay.{n}" for n in REPLAYS] + [f"algo.{n}" for n in ALGORITHMS] + [f"env.{n}" for n in ENVS])


def before_import() -> None:
    """Let cherry-rl 0.2.0 import on gym 0.26 and NumPy 2: a stand-in ``ImageEncoder`` where its recorder wrapper
    looks for one, and the ``numpy.float`` alias ``cherry.onehot`` names. Needs no torch."""
    import numpy as np

    if "float" not in np.__dict__:
        np.float = float  # type: ignore[attr-defined]
    from gym.wrappers.monitoring import video_recorder

    if hasattr(video_recorder, "ImageEncoder"):
        return

    class ImageEncoder:
        """gym's old ffmpeg frame encoder, of which cherry's ``ImageEncoderWithGif`` is a subclass; no model
        here records a video, so it only refuses to start."""

        def __init__(self, output_path: str, frame_shape: tuple[int, ...], frames_per_sec: int,
                     output_frames_per_sec: int | None = None) -> None:
            raise RuntimeError("video encoding is not available in the ground-truth bench")

    video_recorder.ImageEncoder = ImageEncoder  # type: ignore[attr-defined]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _rand(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.rand(*shape, generator=_gen(seed))


@functools.lru_cache(maxsize=None)
def _classes() -> Any:
    """The user-side classes cherry expects its users to write: policies on ``cherry.nn.Policy``, critics on
    ``ActionValue`` / ``StateValue``, old-API gym environments, and the bench wrappers that run a step."""
    import gym
    import numpy as np
    import torch
    from torch import nn

    import cherry

    class CategoricalPolicy(cherry.nn.Policy):
        def __init__(self, obs: int = OBS, nact: int = NACT) -> None:
            super().__init__()
            self.body = cherry.nn.MLP(obs, nact, [HID, HID])

        def forward(self, state: Any) -> Any:
            return cherry.distributions.Categorical(logits=self.body(state))

    class GaussianPolicy(cherry.nn.Policy):
        def __init__(self, obs: int = OBS, adim: int = ADIM) -> None:
            super().__init__()
            self.body = cherry.nn.MLP(obs, adim, [HID, HID], activation=nn.Tanh)
            self.logstd = nn.Parameter(torch.full((adim,), -0.5))

        def forward(self, state: Any) -> Any:
            mean = self.body(state)
            return cherry.distributions.Normal(mean, self.logstd.exp().expand_as(mean))

    class TanhGaussianPolicy(cherry.nn.Policy):
        def __init__(self, obs: int = OBS, adim: int = ADIM) -> None:
            super().__init__()
            self.body = cherry.nn.MLP(obs, 2 * adim, [HID, HID])

        def forward(self, state: Any) -> Any:
            mean, log_std = self.body(state).chunk(2, dim=-1)
            return cherry.distributions.TanhNormal(mean, log_std.clamp(-5.0, 2.0).exp())

    class DistributionPolicy(cherry.nn.Policy):
        """A policy body followed by ``ActionDistribution``, the way cherry's examples pick a density."""

        def __init__(self, env: Any, out: int, **options: Any) -> None:
            super().__init__()
            self.body = cherry.models.robotics.RoboticsMLP(OBS, out, layer_sizes=[HID])
            self.dist = cherry.distributions.ActionDistribution(env, **options)

        def forward(self, state: Any) -> Any:
            return self.dist(self.body(state))

    class QValue(cherry.nn.ActionValue):
        def __init__(self, obs: int = OBS, adim: int = ADIM) -> None:
            super().__init__()
            self.mlp = cherry.nn.MLP(obs + adim, 1, [HID, HID])

        def forward(self, state: Any, action: Any = None) -> Any:
            return self.mlp(torch.cat([state, action], dim=1))

    class DiscreteQValue(cherry.nn.ActionValue):
        def __init__(self) -> None:
            super().__init__()
            self.mlp = cherry.nn.MLP(OBS, NACT, [HID, HID])

        def forward(self, state: Any, action: Any = None) -> Any:
            values = self.mlp(state)
            if action is None:
                return values
            return values.gather(1, action.long())

        def all_action_values(self, state: Any) -> Any:
            return self.mlp(state)

    class VValue(cherry.nn.StateValue):
        def __init__(self) -> None:
            super().__init__()
            self.mlp = cherry.nn.MLP(OBS, 1, [HID, HID])

        def forward(self, state: Any) -> Any:
            return self.mlp(state)

    class ToyEnv(gym.Env):
        """A tiny environment with the old gym API cherry 0.2's wrappers expect (``reset`` gives the
        observation, ``step`` four values)."""

        def __init__(self, discrete: bool = False, horizon: int = 3, seed: int = 0) -> None:
            self.observation_space = gym.spaces.Box(-10.0, 10.0, (OBS,), np.float32)
            self.action_space = (gym.spaces.Discrete(NACT) if discrete
                                 else gym.spaces.Box(-1.0, 1.0, (ADIM,), np.float32))
            self.horizon = horizon
            self.rng = np.random.default_rng(seed)
            self.t = 0

        def reset(self, *args: Any, **kwargs: Any) -> Any:
            self.t = 0
            return self.rng.standard_normal(OBS).astype(np.float32)

        def step(self, action: Any) -> Any:
            self.t += 1
            reward = float(np.sum(np.asarray(action, dtype=np.float64))) * 0.1 + float(self.rng.standard_normal())
            return self.rng.standard_normal(OBS).astype(np.float32), reward, self.t >= self.horizon, {}

    class ToyVecEnv(ToyEnv):
        """``NENV`` copies of ``ToyEnv`` stepped together, as ``gym.vector`` would (old API, arrays out)."""

        num_envs = NENV

        def reset(self, *args: Any, **kwargs: Any) -> Any:
            self.t = 0
            return self.rng.standard_normal((NENV, OBS)).astype(np.float32)

        def step(self, action: Any) -> Any:
            self.t += 1
            obs = self.rng.standard_normal((NENV, OBS)).astype(np.float32)
            rewards = self.rng.standard_normal(NENV)
            dones = np.array([self.t % self.horizon == 0, self.t % (self.horizon + 1) == 0])
            return obs, rewards, dones, [{} for _ in range(NENV)]

    class Step(nn.Module):
        """``run(owner, *inputs)`` as the forward, with gradients enabled in both modes when ``grad`` (an update
        step calls ``backward``); ``owner`` holds the networks, so ``train`` / ``eval`` reach them."""

        def __init__(self, owner: Any, run: Any, entries: list[Any], grad: bool = False) -> None:
            super().__init__()
            self.owner = owner
            self.run = run
            self.entries = entries
            self.grad = grad

        def forward(self, *inputs: Any) -> Any:
            if self.grad:
                with torch.enable_grad():
                    return self.run(self.owner, *inputs)
            return self.run(self.owner, *inputs)

        def entry_points(self) -> list[Any]:
            return self.entries

    return (CategoricalPolicy, GaussianPolicy, TanhGaussianPolicy, DistributionPolicy, QValue, DiscreteQValue,
            VValue, ToyEnv, ToyVecEnv, Step)


def _cls(name: str) -> Any:
    order = ("CategoricalPolicy", "GaussianPolicy", "TanhGaussianPolicy", "DistributionPolicy", "QValue",
             "DiscreteQValue", "VValue", "ToyEnv", "ToyVecEnv", "Step")
    return _classes()[order.index(name)]


def _debugging(on: bool) -> None:
    """``cherry.debug.debug()`` turns ``IS_DEBUGGING`` on (and redirects stdout to a log file, left out here)."""
    import cherry

    cherry.debug.IS_DEBUGGING = on


# ----------------------------------------------------------------------------------------------------
# Functions
# ----------------------------------------------------------------------------------------------------


def _function(name: str) -> Built:
    import numpy as np
    import torch
    from torch import nn

    import cherry as ch
    from cherry.algorithms import a2c, ddpg, ppo, sac, trpo
    from gt_calls import Call

    Step = _cls("Step")
    if name.endswith(".debug"):
        _debugging(True)
        name = name.removesuffix(".debug")
    rewards, dones = _randn(T, 1, seed=1), (_rand(T, 1, seed=2) < 0.25).float()
    values, next_values = _randn(T, 1, seed=3), _randn(T, 1, seed=4)
    if name == "totensor.tensor":
        return Call(ch.totensor), (_randn(OBS),), {}
    if name == "totensor.list":
        return Call(ch.totensor), ([_randn(OBS, seed=i) for i in range(3)],), {}
    if name == "totensor.float":
        return Call(ch.totensor, dtype=torch.float64), (0.5,), {}
    if name == "totensor.ndarray":
        return Call(ch.totensor), (np.random.default_rng(0).standard_normal((3, OBS)),), {}
    if name == "totensor.bool_array":
        return Call(ch.totensor), (np.array([True, False, True]),), {}
    if name == "normalize":
        return Call(ch.normalize, epsilon=1e-5), (_randn(T, 1) * 3 + 1,), {}
    if name == "normalize.single":
        return Call(ch.normalize), (_randn(1),), {}
    if name == "onehot.tensor":
        return Call(ch.onehot, dim=NACT), (torch.tensor([[2], [0], [1], [1]]),), {}
    if name == "onehot.int":
        return Call(ch.onehot, dim=NACT), (2,), {}
    if name == "onehot.ndarray":
        return Call(ch.onehot, dim=NSTATES), (np.array([4, 0, 3]),), {}
    if name == "td.discount":
        return Call(functools.partial(ch.td.discount, 0.99)), (rewards, dones), {}
    if name == "td.discount.bootstrap_tensor":
        return Call(lambda r, d, b: ch.td.discount(0.9, r, d, bootstrap=b)), (rewards, dones, _randn(1)), {}
    if name == "td.discount.vector":
        return Call(lambda r, d: ch.discount(0.95, r, d, bootstrap=1.0)), (rewards.view(-1), dones.view(-1)), {}
    if name == "td.temporal_difference":
        return Call(functools.partial(ch.temporal_difference, 0.99)), (
            rewards.view(-1), dones, values, next_values), {}
    if name == "pg.generalized_advantage":
        return Call(functools.partial(ch.pg.generalized_advantage, 0.99, 0.95)), (
            rewards, dones, values, _randn(1, 1, seed=5)), {}
    log_probs, old_log_probs, advantages = _randn(T, 1, seed=6), _randn(T, 1, seed=7), _randn(T, 1, seed=8)
    if name == "a2c.policy_loss":
        return Call(a2c.policy_loss), (log_probs, advantages), {}
    if name == "a2c.state_value_loss":
        return Call(ch.algorithms.A2C.state_value_loss), (values, rewards), {}
    if name == "ppo.policy_loss":
        return Call(ppo.policy_loss, clip=0.2), (log_probs, old_log_probs, advantages), {}
    if name == "ppo.state_value_loss":
        return Call(ch.algorithms.PPO.state_value_loss, clip=0.2), (values, next_values, rewards), {}
    if name == "trpo.policy_loss":
        return Call(trpo.policy_loss), (log_probs, old_log_probs, advantages), {}
    if name.startswith("trpo.hessian_vector_product"):
        net = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, NACT))
        as_list = name.endswith(".list")

        def hvp(net: Any, x: Any, *vector: Any) -> Any:
            params = list(net.parameters())
            logits = net(x)
            old = torch.distributions.Categorical(logits=logits.detach())
            new = torch.distributions.Categorical(logits=logits)
            kl = torch.distributions.kl_divergence(old, new).mean()
            product = trpo.hessian_vector_product(kl, params, damping=0.1)
            return product(list(vector) if as_list else vector[0])

        if as_list:
            vector = tuple(_randn(*p.shape, seed=i) for i, p in enumerate(net.parameters()))
        else:
            vector = (_randn(sum(p.numel() for p in net.parameters()), seed=9),)
        return Step(net, hvp, [trpo.TRPO.hessian_vector_product], grad=True), (_randn(T, OBS), *vector), {}
    if name.startswith("trpo.conjugate_gradient"):
        m = _randn(OBS, OBS, seed=10)
        a = m @ m.T + torch.eye(OBS)
        if name.endswith(".list"):
            def cg_list(a: Any, b1: Any, b2: Any) -> Any:
                def ax(v: Any) -> Any:
                    return [a @ v[:OBS], 2.0 * v[OBS:]] if isinstance(v, torch.Tensor) else [a @ v[0], 2.0 * v[1]]

                return trpo.conjugate_gradient(lambda v: torch.cat([t.reshape(-1) for t in ax(v)]), [b1, b2],
                                               num_iterations=6)

            return Step(a, cg_list, [trpo.TRPO.conjugate_gradient]), (_randn(OBS, seed=11), _randn(3, seed=12)), {}
        return Step(a, lambda a, b: trpo.conjugate_gradient(lambda v: a @ v, b, num_iterations=6),
                    [trpo.TRPO.conjugate_gradient]), (_randn(OBS, seed=11),), {}
    if name == "trpo.line_search":
        policy = _cls("GaussianPolicy")()

        def search(policy: Any, states: Any, actions: Any, adv: Any) -> Any:
            with torch.no_grad():
                old_density = policy(states)
                old_log_probs = old_density.log_prob(actions)
                old_loss = trpo.policy_loss(old_log_probs, old_log_probs, adv)
                step = [0.1 * torch.ones_like(p) for p in policy.parameters()]

                def criterion(model: Any) -> Any:
                    density = model(states)
                    kl = torch.distributions.kl_divergence(old_density, density).mean()
                    loss = trpo.policy_loss(density.log_prob(actions), old_log_probs, adv)
                    return loss < old_loss and kl < 0.01

                model = trpo.line_search(policy.parameters(), step, policy, criterion, max_iterations=4)
                return model(states).mean

        return Step(policy, search, [trpo.TRPO.line_search]), (_randn(T, OBS), _randn(T, ADIM, seed=1),
                                                               _randn(T, 1, seed=2)), {}
    if name == "sac.policy_loss":
        return Call(sac.policy_loss, alpha=0.2), (log_probs, values), {}
    if name == "sac.action_value_loss":
        return Call(ch.algorithms.SAC.action_value_loss, gamma=0.99), (values, next_values, rewards, dones), {}
    if name == "sac.state_value_loss":
        return Call(sac.state_value_loss, alpha=0.1), (values, log_probs, next_values), {}
    if name == "sac.entropy_weight_loss":
        log_alpha = nn.Parameter(torch.zeros(1))
        return Step(log_alpha, lambda la, lp: sac.entropy_weight_loss(la, lp, -float(ADIM)),
                    [sac.SAC.entropy_weight_loss]), (log_probs,), {}
    if name.startswith("sac.actions_log_probs"):
        policy = _cls("TanhGaussianPolicy")() if name.endswith("tanh_normal") else _cls("GaussianPolicy")()
        return Step(policy, lambda p, s: sac.SAC.actions_log_probs(p(s)), [sac.SAC.actions_log_probs]), (
            _randn(T, OBS),), {}
    if name == "ddpg.state_value_loss":
        return Call(ddpg.state_value_loss, gamma=0.99), (values, next_values, rewards, dones), {}
    if name == "polyak_average":
        pair = nn.ModuleList([ch.nn.MLP(OBS, 1, [HID, HID]), ch.nn.MLP(OBS, 1, [HID, HID])])

        def polyak(pair: Any, x: Any) -> Any:
            with torch.no_grad():
                ch.models.polyak_average(pair[0], pair[1], alpha=0.9)
            return pair[0](x)

        return Step(pair, polyak, [ch.models.polyak_average]), (_randn(T, OBS),), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Distributions
# ----------------------------------------------------------------------------------------------------


def _distribution(name: str) -> Built:
    import torch

    from cherry import distributions as D
    from gt_calls import Call

    Step = _cls("Step")
    logits, loc = _randn(T, NACT), _randn(T, ADIM, seed=1)
    scale = _rand(T, ADIM, seed=2) + 0.2
    if name == "Categorical":
        def categorical(lg: Any) -> Any:
            d = D.Categorical(logits=lg)
            a = d.sample()
            return a, d.log_prob(a), d.mode(), d.entropy()

        return Call(categorical), (logits,), {}
    if name == "Normal":
        def normal(mu: Any, sigma: Any) -> Any:
            d = D.Normal(mu, sigma)
            a = d.rsample()
            return a, d.log_prob(a), d.entropy(), d.mode()

        return Call(normal), (loc, scale), {}
    if name == "Reparameterization.normal":
        def reparam(mu: Any, sigma: Any) -> Any:
            d = D.Reparameterization(D.Normal(mu, sigma))
            a = d.sample()
            return a, d.log_prob(a), d.mean, d.entropy()

        return Call(reparam), (loc, scale), {}
    if name == "Reparameterization.categorical":
        def reparam_cat(lg: Any) -> Any:
            d = D.Reparameterization(D.Categorical(logits=lg))
            a = d.sample()
            return a, d.log_prob(a), d.probs

        return Call(reparam_cat), (logits,), {}
    if name.startswith("ActionDistribution"):
        discrete = ".discrete" in name
        env = _cls("ToyEnv")(discrete=discrete)
        options: dict[str, Any] = {"discrete.probs": {"use_probs": True}, "continuous.logstd": {"logstd": -0.3},
                                   "continuous.reparam": {"reparam": True}}.get(name.partition(".")[2], {})
        module = D.ActionDistribution(env, **options)

        def read(m: Any, x: Any) -> Any:
            if m.is_discrete and m.use_probs:
                x = torch.softmax(x, dim=-1)
            d = m(x)
            a = d.sample()
            return a, d.log_prob(a), d.entropy()

        return Step(module, read, [D.ActionDistribution]), (logits if discrete else loc,), {}
    if name == "TanhNormal.rsample_and_log_prob":
        return Call(lambda mu, sigma: D.TanhNormal(mu, sigma).rsample_and_log_prob()), (loc, scale), {}
    if name == "TanhNormal.sample_and_log_prob":
        return Call(lambda mu, sigma: D.TanhNormal(mu, sigma).sample_and_log_prob()), (loc, scale), {}
    if name == "TanhNormal.log_prob":
        return Call(lambda mu, sigma, a: D.TanhNormal(mu, sigma).log_prob(a)), (
            loc, scale, _rand(T, ADIM, seed=3) * 1.8 - 0.9), {}
    if name == "TanhNormal.mean_mode":
        def moments(mu: Any, sigma: Any) -> Any:
            d = D.TanhNormal(mu, sigma)
            return d.mean(), d.mode()

        return Call(moments), (loc, scale), {}
    if name == "TanhNormal.sample":
        def samples(mu: Any, sigma: Any) -> Any:
            d = D.TanhNormal(mu, sigma)
            return d.sample(), d.rsample(), d.sample_n(3)

        return Call(samples), (loc, scale), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Networks
# ----------------------------------------------------------------------------------------------------


def _net(name: str) -> Built:
    import torch
    from torch import nn

    import cherry as ch
    from cherry.algorithms.drq import RandomShiftsAug
    from cherry.models import atari, robotics, tabular

    Step = _cls("Step")
    states = _randn(T, OBS)
    if name == "MLP":
        return ch.nn.MLP(OBS, NACT, [HID, HID]), (states,), {}
    if name == "MLP.int_hidden":
        return ch.nn.MLP(HID, NACT, HID, activation=nn.GELU), (_randn(T, HID),), {}
    if name.startswith("Policy."):
        kind = name.split(".")[1]
        deterministic = name.endswith(".deterministic")
        if kind == "action_distribution":
            policy = _cls("DistributionPolicy")(_cls("ToyEnv")(discrete=False), ADIM)
        else:
            policy = {"categorical": _cls("CategoricalPolicy"), "gaussian": _cls("GaussianPolicy"),
                      "tanh_normal": _cls("TanhGaussianPolicy")}[kind]()
        if name.endswith(".log_prob"):
            return Step(policy, lambda p, s, a: p.log_prob(s, a), [ch.nn.Policy.log_prob]), (
                states, torch.tensor([[0], [2], [1], [1], [0], [2], [2], [1]])), {}
        return Step(policy, lambda p, s: p.act(s, deterministic=deterministic), [ch.nn.Policy.act]), (states,), {}
    if name.startswith("Twin"):
        if name == "Twin.all_action_values":
            twin = ch.nn.Twin(_cls("DiscreteQValue")(), _cls("DiscreteQValue")())
            return Step(twin, lambda q, s: q.all_action_values(s), [ch.nn.Twin.all_action_values]), (states,), {}
        twin = ch.nn.Twin(_cls("QValue")(), _cls("QValue")(), _cls("QValue")()) if name == "Twin.twin" else \
            ch.nn.Twin(_cls("QValue")(), _cls("QValue")())
        if name == "Twin.twin":
            return Step(twin, lambda q, s, a: q.twin(s, a), [ch.nn.Twin.twin]), (states, _randn(T, ADIM, seed=1)), {}
        return twin, (states, _randn(T, ADIM, seed=1)), {}
    if name == "EpsilonGreedy":
        return ch.nn.EpsilonGreedy(epsilon=0.2), (_randn(T, NACT),), {}
    if name == "EpsilonGreedy.learnable":
        return ch.nn.EpsilonGreedy(epsilon=0.1, learnable=True), (_randn(T, NACT),), {}
    if name == "RoboticsLinear":
        return ch.nn.RoboticsLinear(OBS, HID, gain=1.0), (states,), {}
    if name == "Lambda":
        return nn.Sequential(ch.nn.Lambda(lambda x: x.float() / 255.0), nn.Linear(OBS, 1)), (
            torch.randint(0, 256, (T, OBS), generator=_gen(1)).to(torch.uint8),), {}
    if name == "RoboticsMLP":
        return robotics.RoboticsMLP(OBS, ADIM, layer_sizes=[HID, HID]), (states,), {}
    if name == "RoboticsMLP.linear":
        return robotics.RoboticsMLP(OBS, ADIM, layer_sizes=[]), (states,), {}
    if name == "RoboticsActor":
        return robotics.RoboticsActor(OBS, ADIM), (states,), {}
    if name == "LinearValue":
        baseline = robotics.LinearValue(OBS)
        baseline.fit(_randn(T, OBS, seed=3), _randn(T, 1, seed=4))
        return baseline, (states,), {}
    if name == "LinearValue.fit":
        def fit(m: Any, s: Any, rewards: Any, dones: Any) -> Any:
            returns = ch.td.discount(0.99, rewards, dones)
            m.fit(s, returns)
            return m(s)

        return Step(robotics.LinearValue(OBS, reg=1e-3), fit, [robotics.LinearValue.fit, ch.td.discount]), (
            states, _randn(T, 1, seed=5), (_rand(T, 1, seed=6) < 0.3).float()), {}
    if name == "NatureFeatures":
        return atari.NatureFeatures(input_size=2, output_size=32), (_rand(2, 2, 84, 84),), {}
    if name == "NatureActorCritic":
        net = nn.ModuleDict({"features": atari.NatureFeatures(input_size=2, output_size=32),
                             "actor": atari.NatureActor(32, NACT), "critic": atari.NatureCritic(32)})

        def actor_critic(m: Any, x: Any) -> Any:
            h = m["features"](x)
            d = ch.distributions.Categorical(logits=m["actor"](h))
            return d.sample(), m["critic"](h)

        return Step(net, actor_critic, [atari.NatureFeatures, atari.NatureActor, atari.NatureCritic]), (
            _rand(2, 2, 84, 84),), {}
    if name.startswith("StateValueFunction"):
        vf = tabular.StateValueFunction(NSTATES, init=0.5 if name.endswith(".init") else None)
        return Step(vf, lambda v, s: v(ch.onehot(s, dim=NSTATES)), [tabular.StateValueFunction, ch.onehot]), (
            torch.tensor([0, 3, 4, 1]),), {}
    if name.startswith("ActionValueFunction"):
        qf = tabular.ActionValueFunction(NSTATES, NACT, init=torch.nn.init.normal_)
        if name.endswith(".all_actions"):
            return Step(qf, lambda q, s: q(ch.onehot(s, dim=NSTATES)), [tabular.ActionValueFunction]), (
                torch.tensor([0, 3, 4, 1]),), {}
        return Step(qf, lambda q, s, a: q(ch.onehot(s, dim=NSTATES), ch.onehot(a, dim=NACT)),
                    [tabular.ActionValueFunction]), (torch.tensor([0, 3, 4, 1]), torch.tensor([2, 0, 1, 1])), {}
    if name == "RandomPolicy":
        env = _cls("ToyEnv")(discrete=False)
        env.action_space.seed(0)
        return ch.models.RandomPolicy(env), (states,), {}
    if name == "RandomShiftsAug":
        return RandomShiftsAug(2), (_rand(2, 3, IMG, IMG),), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Experience replays
# ----------------------------------------------------------------------------------------------------


def _fill(replay: Any, n: int, continuous: bool = True, seed: int = 0, image: bool = False,
          infos: bool = False, done_every: int = 3) -> Any:
    """``n`` transitions appended the way a rollout loop appends them (arrays from the env, tensors from the
    policy), episodes ending every ``done_every`` steps."""
    import numpy as np
    import torch

    rng = np.random.default_rng(seed)
    shape = (3, IMG, IMG) if image else (OBS,)
    for t in range(n):
        state = rng.standard_normal(shape).astype(np.float32)
        next_state = rng.standard_normal(shape).astype(np.float32)
        if continuous:
            action = torch.from_numpy(rng.uniform(-1, 1, ADIM).astype(np.float32))
        else:
            action = int(rng.integers(NACT))
        extra = {"log_prob": torch.tensor([float(rng.standard_normal())])} if infos else {}
        replay.append(state, action, float(rng.standard_normal()), next_state, (t + 1) % done_every == 0, **extra)
    return replay


def _vector_fill(replay: Any, n: int, seed: int = 0) -> Any:
    import numpy as np
    import torch

    rng = np.random.default_rng(seed)
    for t in range(n):
        replay.append(rng.standard_normal((NENV, OBS)).astype(np.float32),
                      torch.from_numpy(rng.uniform(-1, 1, (NENV, ADIM)).astype(np.float32)),
                      rng.standard_normal(NENV), rng.standard_normal((NENV, OBS)).astype(np.float32),
                      np.array([(t + 1) % 3 == 0, (t + 1) % 4 == 0]))
    return replay


def _replay(name: str) -> Built:
    import random

    import torch

    import cherry as ch

    Step = _cls("Step")
    random.seed(0)
    if name == "ExperienceReplay.append":
        def rollout(_: Any, states: Any, actions: Any, rewards: Any, log_probs: Any) -> Any:
            replay = ch.ExperienceReplay()
            for i in range(states.shape[0] - 1):
                replay.append(states[i], actions[i], rewards[i], states[i + 1], i == states.shape[0] - 2,
                              log_prob=log_probs[i], step=i)
            return replay.state(), replay.action(), replay.reward(), replay.done(), replay.log_prob(), len(replay)

        return Step(None, rollout, [ch.ExperienceReplay.append, ch.ExperienceReplay]), (
            _randn(T, OBS), _randn(T, ADIM, seed=1), _randn(T, seed=2), _randn(T, 1, seed=3)), {}
    if name == "ExperienceReplay.append.vectorized":
        def vec_rollout(_: Any, states: Any, actions: Any, rewards: Any, dones: Any) -> Any:
            replay = ch.ExperienceReplay(vectorized=True)
            for i in range(states.shape[0] - 1):
                replay.append(states[i], actions[i], rewards[i], states[i + 1], dones[i])
            return replay.state(), replay.action(), replay.reward(), replay.done()

        return Step(None, vec_rollout, [ch.ExperienceReplay.append, ch.ExperienceReplay]), (
            _randn(T, NENV, OBS), _randn(T, NENV, ADIM, seed=1), _randn(T, NENV, seed=2),
            _rand(T, NENV, seed=3) < 0.3), {}
    replay = _fill(ch.ExperienceReplay(), 12, infos=True)
    samplers = {
        "ExperienceReplay.sample": lambda r: r.sample(4),
        "ExperienceReplay.sample.contiguous": lambda r: r.sample(4, contiguous=True),
        "ExperienceReplay.sample.episodes": lambda r: r.sample(2, episodes=True),
        "ExperienceReplay.sample.episodes.contiguous": lambda r: r.sample(2, episodes=True, contiguous=True),
        "ExperienceReplay.sample.nsteps": lambda r: r.sample(4, nsteps=3, discount=0.9),
    }
    if name in samplers:
        sample = samplers[name]

        def sampled(_: Any, r: Any, scale: Any) -> Any:
            batch = sample(r)
            return batch.state() * scale, batch.reward(), batch.done(), batch.log_prob()

        return Step(None, sampled, [ch.ExperienceReplay.sample]), (replay, torch.ones(())), {}
    if name == "ExperienceReplay.slice_add":
        def slices(_: Any, r: Any, scale: Any) -> Any:
            joined = r[-4:] + r[:2]
            joined += r[5:7]
            rewards = [sars.reward * scale for sars in joined]
            return joined.next_state(), torch.cat(rewards), len(joined), str(joined[0])

        return Step(None, slices, [ch.ExperienceReplay.__add__, ch.ExperienceReplay.__getitem__]), (
            replay, torch.ones(())), {}
    if name == "ExperienceReplay.flatten":
        vec = _vector_fill(ch.ExperienceReplay(vectorized=True), 6)

        def flat(_: Any, r: Any, scale: Any) -> Any:
            f = r.flatten()
            return f.state() * scale, f.action(), f.done(), len(f)

        return Step(None, flat, [ch.ExperienceReplay.flatten]), (vec, torch.ones(())), {}
    if name == "ExperienceReplay.to":
        def cast(_: Any, r: Any, scale: Any) -> Any:
            moved = r.to("cpu", dtype=torch.float64)
            return moved.state() * scale, r.half().reward(), r.double().action(), r.cpu().log_prob()

        return Step(None, cast, [ch.ExperienceReplay.to, ch.ExperienceReplay.half, ch.ExperienceReplay.double]), (
            replay, torch.ones(())), {}
    if name == "Transition.to":
        def transition(_: Any, s: Any, a: Any, r: Any, s2: Any) -> Any:
            sars = ch.Transition(s, a, r, s2, torch.zeros(1, 1), value=r * 2)
            sars.advantage = r - 1
            half = sars.half()
            moved = sars.to(torch.float64)
            return half.state, moved.value, moved.advantage, sars.double().next_state

        return Step(None, transition, [ch.Transition.to, ch.Transition.half, ch.Transition]), (
            _randn(1, OBS), _randn(1, ADIM, seed=1), _randn(1, 1, seed=2), _randn(1, OBS, seed=3)), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Algorithms: update steps and training steps
# ----------------------------------------------------------------------------------------------------


def _image_features() -> Any:
    from torch import nn

    return nn.Sequential(nn.Conv2d(3, 4, 3, stride=2), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 5 * 5, OBS),
                         nn.LayerNorm(OBS), nn.Tanh())


def _algorithm(name: str) -> Built:
    import copy
    import random

    import numpy as np
    import torch
    from torch import nn

    import cherry as ch
    from cherry.algorithms import a2c, ddpg, trpo

    Step = _cls("Step")
    random.seed(0)
    np.random.seed(0)
    if name.startswith("PPO.update"):
        if name == "PPO.update.vectorized":
            policy = _cls("GaussianPolicy")()
            replay = _vector_fill(ch.ExperienceReplay(vectorized=True), 6)
        elif name == "PPO.update.gaussian":
            policy = _cls("GaussianPolicy")()
            replay = _fill(ch.ExperienceReplay(), T)
        else:
            policy = _cls("CategoricalPolicy")()
            replay = _fill(ch.ExperienceReplay(), T, continuous=False)
        vf = _cls("VValue")()
        nets = nn.ModuleDict({"policy": policy, "value": vf})
        opt = torch.optim.Adam(nets.parameters(), lr=1e-3)
        ppo = ch.algorithms.PPO(num_steps=2, batch_size=4, entropy_weight=0.01)

        def ppo_update(nets: Any, r: Any) -> Any:
            stats = ppo.update(r, nets["policy"], opt, nets["value"])
            return stats["ppo/policy_loss"], stats["ppo/value_loss"]

        return Step(nets, ppo_update, [ch.algorithms.PPO.update], grad=True), (replay,), {}
    if name.startswith("SAC.update") or name.startswith("DrQ.update"):
        drq = name.startswith("DrQ")
        policy = _cls("TanhGaussianPolicy")()
        qf = ch.nn.Twin(_cls("QValue")(), _cls("QValue")())
        target_qf = copy.deepcopy(qf)
        log_alpha = nn.Parameter(torch.zeros(1))
        with_features = drq or name.endswith(".features")
        features = _image_features() if drq else (nn.Sequential(nn.Linear(OBS, OBS), nn.Tanh())
                                                  if with_features else None)
        target_features = copy.deepcopy(features) if with_features else None
        nets = nn.ModuleDict({"policy": policy, "qf": qf, "target_qf": target_qf})
        if features is not None:
            nets["features"], nets["target_features"] = features, target_features
        nets.register_parameter("log_alpha", log_alpha)
        features_opt = torch.optim.Adam(features.parameters() if features is not None else [nn.Parameter(
            torch.zeros(1))], lr=1e-3)
        keywords = dict(log_alpha=log_alpha, target_entropy=-float(ADIM),
                        policy_optimizer=torch.optim.Adam(policy.parameters(), lr=1e-3),
                        action_value_optimizer=torch.optim.Adam(qf.parameters(), lr=1e-3),
                        features_optimizer=features_opt, alpha_optimizer=torch.optim.Adam([log_alpha], lr=1e-3),
                        features=features, target_features=target_features)
        if drq:
            algo = ch.algorithms.DrQ(batch_size=4)
            replay = _fill(ch.ExperienceReplay(), T, image=True)
            keywords["update_target"] = True
        else:
            algo = ch.algorithms.SAC(batch_size=4, use_automatic_entropy_tuning=not name.endswith("fixed_entropy"))
            replay = _fill(ch.ExperienceReplay(), T)
            keywords["update_target"] = with_features

        def sac_update(nets: Any, r: Any) -> Any:
            stats = algo.update(r, nets["policy"], nets["qf"], nets["target_qf"], **keywords)
            return dict(stats)

        return Step(nets, sac_update, [type(algo).update], grad=True), (replay,), {}
    if name.startswith("TD3.update") or name == "DrQv2.update":
        drqv2 = name == "DrQv2.update"
        policy = _cls("GaussianPolicy")()
        qf = ch.nn.Twin(_cls("QValue")(), _cls("QValue")())
        target_qf = copy.deepcopy(qf)
        nets = nn.ModuleDict({"policy": policy, "qf": qf, "target_qf": target_qf})
        popt = torch.optim.Adam(policy.parameters(), lr=1e-3)
        qopt = torch.optim.Adam(qf.parameters(), lr=1e-3)
        if drqv2:
            features = _image_features()
            nets["features"] = features
            fopt = torch.optim.Adam(features.parameters(), lr=1e-3)
            algo: Any = ch.algorithms.DrQv2(batch_size=4)
            replay = _fill(ch.ExperienceReplay(), T, image=True)

            def drqv2_update(nets: Any, r: Any) -> Any:
                from cherry.algorithms.drq import RandomShiftsAug

                return algo.update(r, nets["policy"], nets["qf"], nets["target_qf"], nets["features"], popt, qopt,
                                   fopt, augmentation_transform=RandomShiftsAug(2))

            return Step(nets, drqv2_update, [ch.algorithms.DrQv2.update], grad=True), (replay,), {}
        algo = ch.algorithms.TD3(batch_size=4, nsteps=3 if name.endswith(".nsteps") else 1)
        replay = _fill(ch.ExperienceReplay(), T)
        return Step(nets, lambda n, r: algo.update(r, n["policy"], n["qf"], n["target_qf"], popt, qopt),
                    [ch.algorithms.TD3.update], grad=True), (replay,), {}
    states, actions = _randn(T, OBS), torch.tensor([[0], [2], [1], [1], [0], [2], [2], [1]])
    rewards, dones = _randn(T, 1, seed=2), (torch.arange(T) % 3 == 2).float().view(T, 1)
    next_state = _randn(1, OBS, seed=3)
    if name.startswith("A2C.train_step"):
        nets = nn.ModuleDict({"policy": _cls("CategoricalPolicy")(), "value": _cls("VValue")()})
        opt = torch.optim.RMSprop(nets.parameters(), lr=7e-4)
        gae = name.endswith(".gae")

        def a2c_step(nets: Any, s: Any, a: Any, r: Any, d: Any, s_last: Any) -> Any:
            density = nets["policy"](s)
            log_probs = density.log_prob(a)
            values = nets["value"](s)
            next_value = nets["value"](s_last)
            if gae:
                advantages = ch.pg.generalized_advantage(0.99, 0.95, r, d, values.detach(), next_value.detach())
                returns = advantages + values.detach()
            else:
                returns = ch.td.discount(0.99, r, d, bootstrap=next_value.detach())
                advantages = returns - values.detach()
            advantages = ch.normalize(advantages)
            loss = a2c.policy_loss(log_probs, advantages) + 0.5 * a2c.state_value_loss(values, returns) \
                - 0.01 * density.entropy().mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(nets.parameters(), 0.5)
            opt.step()
            return loss

        entries = [a2c.A2C.policy_loss, a2c.A2C.state_value_loss,
                   ch.pg.generalized_advantage if gae else ch.td.discount]
        return Step(nets, a2c_step, entries, grad=True), (states, actions, rewards, dones, next_state), {}
    if name == "TRPO.train_step":
        nets = nn.ModuleDict({"policy": _cls("GaussianPolicy")(), "value": _cls("VValue")()})
        vopt = torch.optim.Adam(nets["value"].parameters(), lr=1e-3)

        def trpo_step(nets: Any, s: Any, a: Any, r: Any, d: Any, s_last: Any) -> Any:
            policy, vf = nets["policy"], nets["value"]
            values = vf(s)
            advantages = ch.pg.generalized_advantage(0.99, 0.97, r, d, values.detach(), vf(s_last).detach())
            advantages = ch.normalize(advantages).detach()
            old_density = policy(s)
            old_log_probs = old_density.log_prob(a).detach()
            params = list(policy.parameters())
            loss = trpo.policy_loss(policy(s).log_prob(a), old_log_probs, advantages)
            grad = torch.autograd.grad(loss, params, retain_graph=True)
            new_density = policy(s)
            kl = torch.distributions.kl_divergence(
                ch.distributions.Normal(old_density.loc.detach(), old_density.scale.detach()), new_density).mean()
            fvp = trpo.hessian_vector_product(kl, params, damping=1e-2)
            step = trpo.conjugate_gradient(fvp, [-g for g in grad], num_iterations=3)
            shs = sum((x * fx).sum() for x, fx in zip(step, fvp(step)))
            scale = torch.sqrt(2 * 0.01 / (shs.abs() + 1e-8))

            def improved(m: Any) -> Any:
                density = m(s)
                new_kl = torch.distributions.kl_divergence(old_density, density).mean()
                return trpo.policy_loss(density.log_prob(a), old_log_probs, advantages) < loss and new_kl < 0.01

            with torch.no_grad():
                trpo.line_search(params, [-scale * x for x in step], policy, improved, max_iterations=3)
            value_loss = a2c.state_value_loss(values, advantages + values.detach())
            vopt.zero_grad()
            value_loss.backward()
            vopt.step()
            return loss, value_loss

        return Step(nets, trpo_step, [trpo.TRPO.hessian_vector_product, trpo.TRPO.conjugate_gradient,
                                      trpo.TRPO.line_search], grad=True), (
            states, _randn(T, ADIM, seed=1), rewards, dones, next_state), {}
    if name == "DDPG.train_step":
        actor = nn.Sequential(ch.models.robotics.RoboticsActor(OBS, ADIM, layer_sizes=[HID]), nn.Tanh())
        nets = nn.ModuleDict({"actor": actor, "critic": _cls("QValue")(), "target_actor": copy.deepcopy(actor)})
        nets["target_critic"] = copy.deepcopy(nets["critic"])
        aopt = torch.optim.Adam(actor.parameters(), lr=1e-3)
        copt = torch.optim.Adam(nets["critic"].parameters(), lr=1e-3)

        def ddpg_step(nets: Any, s: Any, a: Any, r: Any, d: Any, s2: Any) -> Any:
            values = nets["critic"](s, a)
            with torch.no_grad():
                next_values = nets["target_critic"](s2, nets["target_actor"](s2))
            value_loss = ddpg.state_value_loss(values, next_values.detach(), r, d, 0.99)
            copt.zero_grad()
            value_loss.backward()
            copt.step()
            policy_loss = -nets["critic"](s, nets["actor"](s)).mean()
            aopt.zero_grad()
            policy_loss.backward()
            aopt.step()
            with torch.no_grad():
                ch.models.polyak_average(nets["target_actor"], nets["actor"], 0.99)
                ch.models.polyak_average(nets["target_critic"], nets["critic"], 0.99)
            return value_loss, policy_loss

        return Step(nets, ddpg_step, [ddpg.DDPG.state_value_loss, ch.models.polyak_average], grad=True), (
            states, _randn(T, ADIM, seed=1).clamp(-1, 1), rewards, dones, _randn(T, OBS, seed=4)), {}
    if name == "QLearning.tabular":
        qf = ch.models.tabular.ActionValueFunction(NSTATES, NACT)
        egreedy = ch.nn.EpsilonGreedy(0.1)
        nets = nn.ModuleDict({"qf": qf, "egreedy": egreedy})
        opt = torch.optim.SGD(qf.parameters(), lr=0.5)

        # One transition at a time, as the tabular examples step (``EpsilonGreedy`` acts on one state).
        def q_learning(nets: Any, s: Any, s2: Any, r: Any, d: Any) -> Any:
            state, next_state = ch.onehot(s, dim=NSTATES), ch.onehot(s2, dim=NSTATES)
            values = nets["qf"](state)
            action = nets["egreedy"](values)
            value = nets["qf"](state, ch.onehot(action, dim=NACT))
            next_value = nets["qf"](next_state).max(dim=1, keepdim=True)[0].detach()
            td_error = ch.temporal_difference(0.9, r, d, value, next_value)
            loss = td_error.pow(2).mul(0.5).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            return action, loss

        return Step(nets, q_learning, [ch.models.tabular.ActionValueFunction, ch.nn.EpsilonGreedy,
                                       ch.temporal_difference], grad=True), (
            torch.tensor([2]), torch.tensor([3]), _randn(1, 1, seed=5), torch.tensor([[0.0]])), {}
    if name == "DQN.train_step":
        qf = _cls("DiscreteQValue")()
        nets = nn.ModuleDict({"qf": qf, "target": copy.deepcopy(qf), "egreedy": ch.nn.EpsilonGreedy(0.05)})
        opt = torch.optim.Adam(qf.parameters(), lr=1e-3)
        replay = _fill(ch.ExperienceReplay(), 12, continuous=False)

        def dqn_step(nets: Any, r: Any, s: Any) -> Any:
            acted = nets["egreedy"](nets["qf"](s[:1]))
            batch = r.sample(4)
            values = nets["qf"](batch.state(), batch.action())
            with torch.no_grad():
                next_values = nets["target"].all_action_values(batch.next_state()).max(dim=1, keepdim=True)[0]
            td = ch.td.temporal_difference(0.99, batch.reward(), batch.done(), values, next_values)
            loss = td.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                ch.models.polyak_average(nets["target"], nets["qf"], 0.9)
            return acted, loss

        return Step(nets, dqn_step, [ch.ExperienceReplay.sample, ch.td.temporal_difference, ch.nn.EpsilonGreedy],
                    grad=True), (replay, states), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Environments: Runner, Torch and the normalizing wrappers
# ----------------------------------------------------------------------------------------------------


def _env(name: str) -> Built:
    import random

    import numpy as np
    import torch

    import cherry as ch
    from cherry import wrappers

    Step, ToyEnv, ToyVecEnv = _cls("Step"), _cls("ToyEnv"), _cls("ToyVecEnv")
    random.seed(0)
    np.random.seed(0)
    if name == "Torch.step":
        env = wrappers.Torch(ToyEnv(discrete=True))
        policy = _cls("CategoricalPolicy")()

        def torch_step(policy: Any, scale: Any) -> Any:
            state = env.reset()
            action = policy.act(state * scale)
            next_state, reward, done, _ = env.step(action)
            return next_state, reward, done

        return Step(policy, torch_step, [wrappers.Torch.step, wrappers.Torch.reset]), (torch.ones(()),), {}
    if name == "Normalizer.step":
        env = wrappers.Normalizer(ToyEnv(), states=True, rewards=True, clip_states=5.0)

        def normalized(_: Any, action: Any) -> Any:
            env.reset()
            state, reward, done, _ = env.step(action.numpy())
            return torch.as_tensor(state) * 2, reward, done

        return Step(None, normalized, [wrappers.Normalizer.step]), (_rand(ADIM) * 2 - 1,), {}
    if name == "ActionLambda.step":
        env = wrappers.Torch(wrappers.ActionLambda(ToyEnv(), lambda a: np.clip(a, -0.5, 0.5)))
        policy = _cls("GaussianPolicy")()

        def lambda_step(policy: Any, scale: Any) -> Any:
            state = env.reset()
            state, reward, done, _ = env.step(policy.act(state * scale))
            return state, reward

        return Step(policy, lambda_step, [wrappers.ActionLambda.action, wrappers.Torch.step]), (torch.ones(()),), {}
    vectorized = ".vectorized" in name
    discrete = name in ("Runner.run.episodes", "Runner.run.infos")
    if vectorized:
        base: Any = ToyVecEnv()
    else:
        base = ToyEnv(discrete=discrete)
    if name == "Runner.run.normalizers":
        base = wrappers.ActionSpaceScaler(wrappers.RewardNormalizer(wrappers.StateNormalizer(base)), clip=1.0)
    env = wrappers.Runner(wrappers.Torch(base))
    policy = _cls("CategoricalPolicy")() if discrete else _cls("GaussianPolicy")()
    runs = {"Runner.run.steps": {"steps": 4}, "Runner.run.episodes": {"episodes": 2}, "Runner.run.infos": {"steps": 4},
            "Runner.run.vectorized": {"steps": 3}, "Runner.run.vectorized.episodes": {"episodes": 2},
            "Runner.run.random_policy": {"steps": 3}, "Runner.run.normalizers": {"steps": 4}}[name]

    if name == "Runner.run.random_policy":
        base.action_space.seed(0)
        random_policy = ch.models.RandomPolicy(env)

        def random_run(_: Any, scale: Any) -> Any:
            replay = env.run(random_policy, **runs)
            return replay.state() * scale, replay.action(), replay.reward()

        return Step(None, random_run, [wrappers.Runner.run, ch.models.RandomPolicy]), (torch.ones(()),), {}

    def get_action(policy: Any, state: Any) -> Any:
        if name == "Runner.run.infos":
            density = policy(state)
            action = density.sample()
            return action, {"log_prob": density.log_prob(action), "entropy": density.entropy()}
        return policy.act(state)

    def run(policy: Any, scale: Any) -> Any:
        replay = env.run(lambda s: get_action(policy, s * scale), **runs)
        out = [replay.state(), replay.action(), replay.reward(), replay.done(), len(replay)]
        if name == "Runner.run.infos":
            out.append(replay.log_prob())
        return out

    return Step(policy, run, [wrappers.Runner.run, wrappers.Torch.step]), (torch.ones(()),), {}


def build(name: str) -> Built:
    import warnings

    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    np.random.seed(0)
    family, _, rest = name.partition(".")
    builders = {"fn": _function, "dist": _distribution, "nn": _net, "replay": _replay, "algo": _algorithm,
                "env": _env}
    if family not in builders:
        raise KeyError(name)
    return builders[family](rest)
