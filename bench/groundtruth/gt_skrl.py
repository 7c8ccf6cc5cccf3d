"""Ground-truth bench, skrl: reinforcement-learning models, memories, resources and the torch agents' loops.

skrl builds its agents from ``Model`` subclasses that users write by mixing a model mixin
(``GaussianMixin``, ``MultivariateGaussianMixin``, ``CategoricalMixin``, ``MultiCategoricalMixin``,
``DeterministicMixin``, ``TabularMixin``) into ``skrl.models.torch.Model`` and implementing ``compute``;
the mixin's ``act`` turns the network's output into actions, log-probabilities and distributions. Its
agents (``PPO``, ``A2C``, ``RPO``, ``TRPO``, ``AMP``, ``DDPG``, ``TD3``, ``SAC``, ``DQN``, ``DDQN``,
``CEM``, ``Q_LEARNING``, ``SARSA``, their recurrent ``*_RNN`` variants, and the multi-agent ``IPPO`` /
``MAPPO``) are plain objects a trainer drives: ``act`` on a batch of observations (under ``no_grad``),
``record_transition`` into a ``RandomMemory``, ``post_interaction`` (which runs ``update`` when due). So,
at tiny sizes (4 environments, observations of 5, 2 continuous actions or 3 discrete ones, width 16):

- ``MODELS``: each mixin's ``act`` and its flags (clipped actions, clipped mean actions, unclipped log
  standard deviation, the log-probability reductions, unnormalized logits against probabilities, given
  ``taken_actions``, ``get_entropy`` / ``distribution``), a critic on observations and actions, a model
  reading a ``Dict`` observation space through ``unflatten_tensorized_space``, ``random_act``, the soft and
  hard ``update_parameters``, and the models of ``skrl.utils.model_instantiators`` (Gaussian,
  deterministic, categorical, tabular, shared in one and in two forward passes);
- ``RESOURCES``: ``RunningStandardScaler`` (updating, frozen, inverted), the Gaussian and
  Ornstein-Uhlenbeck noises, ``KLAdaptiveLR.step`` on a KL tensor;
- ``FUNCTIONS``: library functions on tensors (``gt_calls.Call``): the agents' ``compute_gae``, TRPO's
  surrogate loss, KL divergence, Fisher-vector product and conjugate gradient, the space utilities
  (``tensorize_space``, ``flatten_tensorized_space``, ``unflatten_tensorized_space``, ``sample_space``),
  ``one_hot_encoding``, and ``RandomMemory``'s ``add_samples`` / ``sample`` / ``sample_all``;
- ``AGENTS``: each agent's ``act`` (eval: the agent's evaluation mode; train: its training mode), and a
  training-loop step as the sequential trainer runs it (``act`` and ``record_transition`` under
  ``no_grad``, then ``post_interaction``), long enough that the update (losses, ``backward``, optimizer
  and scheduler steps, target-network updates) runs in train mode; configurations that change the path
  (preprocessors, KL-adaptive learning rate, shared policy and value, time-limit bootstrapping, discrete
  actions, exploration noise and schedules, fixed entropy, recurrent models).

No environment is needed: agents are fed random observations, rewards and terminations as a trainer
feeds them. Random weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, OBS, ADIM, NACT, HID, AMP_OBS = 4, 5, 2, 3, 16, 6

MODELS = (
    "Gaussian", "Gaussian.clip_actions", "Gaussian.clip_mean_actions", "Gaussian.no_clip_log_std",
    "Gaussian.reduction_mean", "Gaussian.reduction_prod", "Gaussian.reduction_none", "Gaussian.taken_actions_entropy",
    "MultivariateGaussian", "MultivariateGaussian.clip_actions", "MultivariateGaussian.taken_actions_entropy",
    "Categorical", "Categorical.probs", "Categorical.taken_actions_entropy", "MultiCategorical",
    "MultiCategorical.probs", "MultiCategorical.reduction_none_entropy", "Deterministic",
    "Deterministic.clip_actions", "Deterministic.critic", "Model.dict_observations", "Model.random_act.box",
    "Model.random_act.discrete", "Model.update_parameters.soft", "Model.update_parameters.hard",
    "instantiator.gaussian", "instantiator.deterministic", "instantiator.categorical", "instantiator.tabular",
    "instantiator.shared", "instantiator.shared.two_pass",
)
RESOURCES = (
    "RunningStandardScaler.train", "RunningStandardScaler.eval", "RunningStandardScaler.inverse",
    "GaussianNoise.sample", "GaussianNoise.sample_like", "OrnsteinUhlenbeckNoise.sample", "KLAdaptiveLR.step",
)
FUNCTIONS = (
    "ppo.compute_gae", "ppo.compute_gae.time_limit_bootstrap", "a2c.compute_gae", "mappo.compute_gae",
    "trpo.surrogate_loss", "trpo.kl_divergence", "trpo.fisher_vector_product", "trpo.conjugate_gradient",
    "spaces.tensorize_space.dict", "spaces.flatten_tensorized_space", "spaces.unflatten_tensorized_space.dict",
    "spaces.unflatten_tensorized_space.multidiscrete", "spaces.sample_space", "one_hot_encoding.discrete",
    "one_hot_encoding.multidiscrete", "memory.add_samples", "memory.sample", "memory.sample.replacement",
    "memory.sample.sequence", "memory.sample_all.mini_batches",
)
AGENTS = (
    "PPO.act", "PPO.step", "PPO.step.preprocessors", "PPO.step.kl_adaptive", "PPO.step.shared",
    "PPO.step.time_limit_bootstrap", "PPO.step.categorical", "PPO_RNN.step", "A2C.act", "A2C.step",
    "A2C_RNN.step", "RPO.act", "RPO.step", "TRPO.step", "AMP.step", "DDPG.act.noise", "DDPG.step", "TD3.step",
    "SAC.act", "SAC.step", "SAC.step.fixed_entropy", "SAC_RNN.step", "DQN.act", "DQN.act.epsilon", "DQN.step",
    "DDQN.step", "CEM.step", "Q_LEARNING.step", "SARSA.step", "IPPO.step", "MAPPO.step",
)


def names() -> list[str]:
    return ([f"model.{n}" for n in MODELS] + [f"res.{n}" for n in RESOURCES] + [f"fn.{n}" for n in FUNCTIONS]
            + [f"agent.{n}" for n in AGENTS])


def _randn(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _spaces() -> dict[str, Any]:
    import numpy as np
    from gymnasium import spaces

    return {
        "obs": spaces.Box(low=-np.inf, high=np.inf, shape=(OBS,), dtype=np.float32),
        "box": spaces.Box(low=-1.0, high=1.0, shape=(ADIM,), dtype=np.float32),
        "discrete": spaces.Discrete(NACT),
        "multidiscrete": spaces.MultiDiscrete([NACT, 2]),
        "dict": spaces.Dict({"position": spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32),
                             "velocity": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)}),
        "amp": spaces.Box(low=-np.inf, high=np.inf, shape=(AMP_OBS,), dtype=np.float32),
        "tabular_obs": spaces.Discrete(6),
    }


def _classes() -> dict[str, Any]:
    """Model classes as users write them: a mixin first, then ``Model``, and a ``compute``."""
    import torch
    from torch import nn

    from skrl.models.torch import (CategoricalMixin, DeterministicMixin, GaussianMixin, Model,
                                   MultiCategoricalMixin, MultivariateGaussianMixin)
    from skrl.utils.spaces.torch import unflatten_tensorized_space

    def mlp(n_in: int, n_out: int) -> Any:
        return nn.Sequential(nn.Linear(n_in, HID), nn.ELU(), nn.Linear(HID, n_out))

    class Gaussian(GaussianMixin, Model):
        def __init__(self, observation_space: Any, action_space: Any, state_space: Any = None, **kw: Any) -> None:
            Model.__init__(self, observation_space=observation_space, state_space=state_space,
                           action_space=action_space, device="cpu")
            GaussianMixin.__init__(self, **kw)
            self.net = mlp(self.num_observations, self.num_actions)
            self.log_std_parameter = nn.Parameter(torch.full((self.num_actions,), -0.5))

        def compute(self, inputs: dict[str, Any], role: str = "") -> Any:
            return torch.tanh(self.net(inputs["observations"])), {"log_std": self.log_std_parameter}

    class MultivariateGaussian(MultivariateGaussianMixin, Model):
        def __init__(self, observation_space: Any, action_space: Any, **kw: Any) -> None:
            Model.__init__(self, observation_space=observation_space, action_space=action_space, device="cpu")
            MultivariateGaussianMixin.__init__(self, **kw)
            self.net = mlp(self.num_observations, self.num_actions)
            self.log_std_parameter = nn.Parameter(torch.zeros(self.num_actions))

        def compute(self, inputs: dict[str, Any], role: str = "") -> Any:
            return self.net(inputs["observations"]), {"log_std": self.log_std_parameter}

    class Categorical(CategoricalMixin, Model):
        def __init__(self, observation_space: Any, action_space: Any, **kw: Any) -> None:
            Model.__init__(self, observation_space=observation_space, action_space=action_space, device="cpu")
            CategoricalMixin.__init__(self, **kw)
            self.probs = not kw.get("unnormalized_log_prob", True)
            self.net = mlp(self.num_observations, int(action_space.n))

        def compute(self, inputs: dict[str, Any], role: str = "") -> Any:
            out = self.net(inputs["observations"])
            return (torch.softmax(out, dim=-1) if self.probs else out), {}

    class MultiCategorical(MultiCategoricalMixin, Model):
        def __init__(self, observation_space: Any, action_space: Any, **kw: Any) -> None:
            Model.__init__(self, observation_space=observation_space, action_space=action_space, device="cpu")
            MultiCategoricalMixin.__init__(self, **kw)
            self.probs = not kw.get("unnormalized_log_prob", True)
            self.net = mlp(self.num_observations, int(sum(action_space.nvec)))

        def compute(self, inputs: dict[str, Any], role: str = "") -> Any:
            out = self.net(inputs["observations"])
            if self.probs:
                out = torch.cat([torch.softmax(part, dim=-1) for part in torch.split(out, [NACT, 2], dim=-1)], -1)
            return out, {}

    class Deterministic(DeterministicMixin, Model):
        """A policy (``outputs`` = actions) or, ``critic``, a Q-function on observations and actions, or a
        value function (``outputs`` = 1)."""

        def __init__(self, observation_space: Any, action_space: Any, critic: bool = False, outputs: int = 0,
                     state_space: Any = None, inputs: str = "observations", **kw: Any) -> None:
            Model.__init__(self, observation_space=observation_space, state_space=state_space,
                           action_space=action_space, device="cpu")
            DeterministicMixin.__init__(self, **kw)
            self.critic = critic
            self.inputs = inputs
            n_in = (self.num_states if inputs == "states" else self.num_observations)
            n_in += self.num_actions if critic else 0
            self.net = mlp(n_in, outputs or self.num_actions)

        def compute(self, inputs: dict[str, Any], role: str = "") -> Any:
            x = inputs[self.inputs]
            if self.critic:
                x = torch.cat([x, inputs["taken_actions"]], dim=-1)
            return self.net(x), {}

    class DictPolicy(GaussianMixin, Model):
        """A policy on a ``Dict`` observation space, read back from the flat tensor the agent stores."""

        def __init__(self, observation_space: Any, action_space: Any) -> None:
            Model.__init__(self, observation_space=observation_space, action_space=action_space, device="cpu")
            GaussianMixin.__init__(self, clip_actions=True)
            self.net = mlp(5, self.num_actions)
            self.log_std_parameter = nn.Parameter(torch.zeros(self.num_actions))

        def compute(self, inputs: dict[str, Any], role: str = "") -> Any:
            obs = unflatten_tensorized_space(self.observation_space, inputs["observations"])
            x = torch.cat([obs["position"], obs["velocity"] * 2], dim=-1)
            return self.net(x), {"log_std": self.log_std_parameter}

    class Recurrent(Model):
        """The recurrent model of skrl's examples: a GRU whose hidden state the agent keeps (``rnn`` in the
        inputs and outputs), read as sequences of ``sequence_length`` in training mode."""

        def __init__(self, observation_space: Any, action_space: Any, outputs: int = 0, critic: bool = False,
                     sequence_length: int = 2) -> None:
            Model.__init__(self, observation_space=observation_space, action_space=action_space, device="cpu")
            self.critic = critic
            self.sequence_length = sequence_length
            n_in = self.num_observations + (self.num_actions if critic else 0)
            self.gru = nn.GRU(n_in, HID, num_layers=1, batch_first=True)
            self.head = nn.Linear(HID, outputs or self.num_actions)

        def get_specification(self) -> dict[str, Any]:
            return {"rnn": {"sequence_length": self.sequence_length, "sizes": [(1, N, HID)]}}

        def recurrent(self, inputs: dict[str, Any]) -> Any:
            x = inputs["observations"]
            if self.critic:
                x = torch.cat([x, inputs["taken_actions"]], dim=-1)
            hidden = inputs["rnn"][0]
            if self.training:
                x = x.view(-1, self.sequence_length, x.shape[-1])
                hidden = hidden.view(1, -1, self.sequence_length, hidden.shape[-1])[:, :, 0, :].contiguous()
            else:
                x = x.view(-1, 1, x.shape[-1])
            out, hidden = self.gru(x, hidden)
            return self.head(torch.flatten(out, start_dim=0, end_dim=1)), hidden

    class RecurrentGaussian(GaussianMixin, Recurrent):
        def __init__(self, observation_space: Any, action_space: Any, **kw: Any) -> None:
            Recurrent.__init__(self, observation_space, action_space)
            GaussianMixin.__init__(self, clip_actions=True, **kw)
            self.log_std_parameter = nn.Parameter(torch.zeros(self.num_actions))

        def compute(self, inputs: dict[str, Any], role: str = "") -> Any:
            out, hidden = self.recurrent(inputs)
            return torch.tanh(out), {"log_std": self.log_std_parameter, "rnn": [hidden]}

    class RecurrentDeterministic(DeterministicMixin, Recurrent):
        def __init__(self, observation_space: Any, action_space: Any, outputs: int = 0, critic: bool = False,
                     **kw: Any) -> None:
            Recurrent.__init__(self, observation_space, action_space, outputs=outputs, critic=critic)
            DeterministicMixin.__init__(self, **kw)

        def compute(self, inputs: dict[str, Any], role: str = "") -> Any:
            out, hidden = self.recurrent(inputs)
            return (out if self.critic or self.head.out_features == 1 else torch.tanh(out)), {"rnn": [hidden]}

    return {"Gaussian": Gaussian, "MultivariateGaussian": MultivariateGaussian, "Categorical": Categorical,
            "MultiCategorical": MultiCategorical, "Deterministic": Deterministic, "DictPolicy": DictPolicy,
            "RecurrentGaussian": RecurrentGaussian, "RecurrentDeterministic": RecurrentDeterministic}


def _wrappers() -> Any:
    import torch
    from torch import nn

    class Act(nn.Module):
        """A model's ``act`` on ``inputs`` (observations, optionally taken actions), its outputs read as the
        agents read them; ``extra`` reads more (``get_entropy``, ``distribution``)."""

        def __init__(self, model: Any, extra: Any = None, entries: list[Any] | None = None) -> None:
            super().__init__()
            self.model = model
            self.extra = extra
            self.entries = entries or [type(model).act]

        def forward(self, inputs: dict[str, Any]) -> Any:
            actions, outputs = self.model.act(inputs, role="policy")
            result = [actions, *[v for v in outputs.values() if isinstance(v, torch.Tensor)]]
            if self.extra is not None:
                result.append(self.extra(self.model))
            return result

        def entry_points(self) -> list[Any]:
            return self.entries

    class AgentCall(nn.Module):
        """An agent's method run by ``run(agent, *inputs)``. The worker's ``train`` / ``eval`` switch the
        agent's mode (``enable_training_mode``) and leave its models in evaluation mode, as a trainer does
        (the agent switches them to training mode for its update). ``grad`` runs it with gradients enabled in
        both modes (the update calls ``backward``); ``always_train`` keeps the agent in training mode in both
        (the recurrent on-policy agents' ``record_transition`` fails in evaluation mode)."""

        def __init__(self, agent: Any, run: Any, entries: list[Any], grad: bool = False,
                     always_train: bool = False) -> None:
            super().__init__()
            self.agent = agent
            self.always_train = always_train
            self.nets = nn.ModuleList([m for m in _agent_models(agent) if isinstance(m, nn.Module)])
            self.run = run
            self.entries = entries
            self.grad = grad

        def train(self, mode: bool = True) -> Any:
            super().train(mode)
            self.agent.enable_training_mode(mode or self.always_train)
            self.agent.enable_models_training_mode(False)
            return self

        def forward(self, *inputs: Any) -> Any:
            if self.grad:
                with torch.enable_grad():
                    return self.run(self.agent, *inputs)
            return self.run(self.agent, *inputs)

        def entry_points(self) -> list[Any]:
            return self.entries

    return Act, AgentCall


def _agent_models(agent: Any) -> list[Any]:
    models = []
    for value in agent.models.values():
        if isinstance(value, dict):
            models.extend(value.values())
        else:
            models.append(value)
    unique: list[Any] = []
    for m in models:
        if m is not None and all(m is not u for u in unique):
            unique.append(m)
    return unique


# ----------------------------------------------------------------------------------------------------
# models
# ----------------------------------------------------------------------------------------------------


def _model(name: str) -> Built:
    import torch

    from skrl.models.torch import Model
    from skrl.utils.model_instantiators import torch as mi
    from skrl.utils.spaces.torch import flatten_tensorized_space, sample_space

    Act, _ = _wrappers()
    from gt_calls import Run

    c, s = _classes(), _spaces()
    obs = _randn(N, OBS)
    kind, _, variant = name.partition(".")
    flags = {"clip_actions": {"clip_actions": True}, "clip_mean_actions": {"clip_mean_actions": True},
             "no_clip_log_std": {"clip_log_std": False}, "reduction_mean": {"reduction": "mean"},
             "reduction_prod": {"reduction": "prod"}, "reduction_none": {"reduction": "none"},
             "probs": {"unnormalized_log_prob": False},
             "reduction_none_entropy": {"reduction": "none"}}.get(variant, {})

    def entropy(m: Any) -> Any:
        return m.get_entropy(role="policy"), m.distribution(role="policy").entropy()

    extra = entropy if variant.endswith("entropy") else None
    if kind in ("Gaussian", "MultivariateGaussian"):
        model = c[kind](s["obs"], s["box"], **flags)
        inputs = {"observations": obs}
        if variant.startswith("taken_actions"):
            inputs["taken_actions"] = _randn(N, ADIM, seed=1).clamp(-1, 1)
        return Act(model, extra), (inputs,), {}
    if kind == "Categorical":
        model = c[kind](s["obs"], s["discrete"], **flags)
        inputs = {"observations": obs}
        if variant.startswith("taken_actions"):
            inputs["taken_actions"] = torch.tensor([[0], [2], [1], [1]])
        return Act(model, extra), (inputs,), {}
    if kind == "MultiCategorical":
        model = c[kind](s["obs"], s["multidiscrete"], **flags)
        inputs = {"observations": obs}
        if extra is not None:
            inputs["taken_actions"] = torch.tensor([[0, 1], [2, 0], [1, 1], [1, 0]])
        return Act(model, extra), (inputs,), {}
    if kind == "Deterministic":
        if variant == "critic":
            model = c[kind](s["obs"], s["box"], critic=True, outputs=1)
            return Act(model), ({"observations": obs, "taken_actions": _randn(N, ADIM, seed=1)},), {}
        model = c[kind](s["obs"], s["box"], **flags)
        return Act(model), ({"observations": obs * 3},), {}
    if name == "Model.dict_observations":
        model = c["DictPolicy"](s["dict"], s["box"])
        flat = flatten_tensorized_space(sample_space(s["dict"], batch_size=N, backend="native", device="cpu"))
        return Act(model), ({"observations": flat},), {}
    if name.startswith("Model.random_act"):
        space = s["box"] if name.endswith(".box") else s["discrete"]
        model = c["Deterministic"](s["obs"], space, outputs=NACT)
        return Run(model, lambda m, x: m.random_act({"observations": x}, role="policy")[0],
                   [Model.random_act]), (obs,), {}
    if name.startswith("Model.update_parameters"):
        source, target = c["Gaussian"](s["obs"], s["box"]), c["Gaussian"](s["obs"], s["box"])
        target.freeze_parameters(True)
        polyak = 0.005 if name.endswith(".soft") else 1.0
        pair = torch.nn.ModuleList([target, source])

        def update(p: Any, x: Any) -> Any:
            p[0].update_parameters(p[1], polyak=polyak)
            return p[0].act({"observations": x})[0]

        return Run(pair, update, [Model.update_parameters]), (obs,), {}
    net = [{"name": "net", "input": "OBSERVATIONS", "layers": [HID, HID], "activations": "elu"}]
    if name == "instantiator.gaussian":
        model = mi.gaussian_model(observation_space=s["obs"], action_space=s["box"], device="cpu", clip_actions=True,
                                  network=net, output="tanh(ACTIONS)", initial_log_std=-0.5)
    elif name == "instantiator.deterministic":
        critic = [{"name": "net", "input": "concatenate([OBSERVATIONS, ACTIONS])", "layers": [HID],
                   "activations": "relu"}]
        model = mi.deterministic_model(observation_space=s["obs"], action_space=s["box"], device="cpu",
                                       network=critic, output="ONE")
        model.init_state_dict()
        return Act(model), ({"observations": obs, "taken_actions": _randn(N, ADIM, seed=1)},), {}
    elif name == "instantiator.categorical":
        model = mi.categorical_model(observation_space=s["obs"], action_space=s["discrete"], device="cpu",
                                     network=net, output="ACTIONS")
    elif name == "instantiator.tabular":
        model = mi.tabular_model(observation_space=s["tabular_obs"], action_space=s["discrete"], device="cpu",
                                 variant_kwargs={"epsilon": 0.5})
        return Act(model), ({"observations": torch.tensor([[0], [3], [5], [1]])},), {}
    else:  # shared
        parameters = [{"network": net, "output": "ACTIONS", "clip_actions": True},
                      {"network": net, "output": "ONE"}]
        model = mi.shared_model(observation_space=s["obs"], action_space=s["box"], device="cpu",
                                structure=["GaussianMixin", "DeterministicMixin"], roles=["policy", "value"],
                                parameters=parameters, single_forward_pass=not name.endswith("two_pass"))
        model.init_state_dict(role="policy")
        model.init_state_dict(role="value")

        def shared(m: Any, x: Any) -> Any:
            actions, outputs = m.act({"observations": x}, role="policy")
            values, _ = m.act({"observations": x}, role="value")
            return actions, outputs["log_prob"], values

        return Run(model, shared, [type(model).act]), (obs,), {}
    model.init_state_dict()
    return Act(model), ({"observations": obs},), {}


# ----------------------------------------------------------------------------------------------------
# resources
# ----------------------------------------------------------------------------------------------------


def _resource(name: str) -> Built:
    import torch

    from gt_calls import Run
    from skrl.resources.noises.torch import GaussianNoise, OrnsteinUhlenbeckNoise
    from skrl.resources.preprocessors.torch import RunningStandardScaler
    from skrl.resources.schedulers.torch import KLAdaptiveLR

    x = _randn(N, OBS) * 2 + 1
    if name.startswith("RunningStandardScaler"):
        scaler = RunningStandardScaler(OBS, clip_threshold=3.0, device="cpu")
        scaler(_randn(8, OBS, seed=3), train=True)
        if name.endswith(".train"):
            return Run(scaler, lambda m, t: m(t, train=True), [RunningStandardScaler.forward]), (x,), {}
        if name.endswith(".inverse"):
            return Run(scaler, lambda m, t: m(t, inverse=True), [RunningStandardScaler.forward]), (x,), {}
        return scaler, (x,), {}
    holder = torch.nn.Linear(1, 1)
    if name == "GaussianNoise.sample":
        noise = GaussianNoise(mean=0.0, std=0.1, device="cpu")
        return Run(holder, lambda m, t: t + noise.sample(t.shape), [GaussianNoise.sample]), (x,), {}
    if name == "GaussianNoise.sample_like":
        noise = GaussianNoise(mean=0.0, std=0.1, device="cpu")
        return Run(holder, lambda m, t: t + noise.sample_like(t), [GaussianNoise.sample_like]), (x,), {}
    if name == "OrnsteinUhlenbeckNoise.sample":
        noise = OrnsteinUhlenbeckNoise(theta=0.15, sigma=0.1, base_scale=0.5, device="cpu")
        return Run(holder, lambda m, t: t + noise.sample(t.shape), [OrnsteinUhlenbeckNoise.sample]), (x,), {}
    if name == "KLAdaptiveLR.step":
        optimizer = torch.optim.Adam(holder.parameters(), lr=1e-3)
        scheduler = KLAdaptiveLR(optimizer, kl_threshold=0.01)

        def step(m: Any, kl: Any) -> Any:
            scheduler.step(kl)
            return scheduler.get_last_lr()[0]

        return Run(holder, step, [KLAdaptiveLR.step]), (torch.tensor(0.05),), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# functions
# ----------------------------------------------------------------------------------------------------


def _function(name: str) -> Built:
    import torch

    from gt_calls import Call, Run
    from skrl.agents.torch.a2c import a2c
    from skrl.agents.torch.ppo import ppo
    from skrl.agents.torch.trpo import trpo
    from skrl.memories.torch import RandomMemory
    from skrl.multi_agents.torch.mappo import mappo
    from skrl.utils.model_instantiators.torch.common import one_hot_encoding
    from skrl.utils.spaces import torch as sp

    s, c = _spaces(), _classes()
    T = 5
    gen = torch.Generator().manual_seed(4)
    rewards, values, last = torch.randn(T, N, 1, generator=gen), torch.randn(T, N, 1, generator=gen), _randn(N, 1)
    terminated = torch.zeros(T, N, 1, dtype=torch.bool)
    terminated[2, 1] = True
    truncated = torch.zeros(T, N, 1, dtype=torch.bool)
    truncated[3, 0] = True
    gae = {"rewards": rewards, "terminated": terminated, "truncated": truncated, "values": values,
           "last_values": last}
    if name.endswith("compute_gae") or name.endswith("compute_gae.time_limit_bootstrap"):
        module = {"ppo": ppo, "a2c": a2c, "mappo": mappo}[name.split(".")[0]]
        static = {"discount_factor": 0.9, "lambda_coefficient": 0.9,
                  "time_limit_bootstrap": name.endswith("bootstrap")}
        return Run(torch.nn.Linear(1, 1), lambda m, g: module.compute_gae(**g, **static),
                   [module.compute_gae]), (gae,), {}
    if name.startswith("trpo."):
        policy = c["Gaussian"](s["obs"], s["box"])
        obs = _randn(N, OBS)
        if name == "trpo.surrogate_loss":
            actions, outputs = policy.act({"observations": obs})
            log_prob = outputs["log_prob"].detach()
            return Run(policy, lambda m, o, a, lp, adv: trpo.surrogate_loss(
                policy=m, observations=o, states=None, actions=a, log_prob=lp, advantages=adv),
                [trpo.surrogate_loss]), (obs, actions.detach(), log_prob, _randn(N, 1, seed=2)), {}
        if name == "trpo.kl_divergence":
            other = c["Gaussian"](s["obs"], s["box"])
            pair = torch.nn.ModuleList([policy, other])
            return Run(pair, lambda p, o: trpo.kl_divergence(policy_1=p[0], policy_2=p[1], observations=o,
                                                             states=None), [trpo.kl_divergence]), (obs,), {}
        size = sum(p.numel() for p in policy.parameters())
        vector = _randn(size, seed=5)
        def with_grad(m: Any, o: Any, v: Any) -> Any:  # TRPO's update runs these with gradients enabled
            with torch.enable_grad():
                if name == "trpo.fisher_vector_product":
                    return trpo.fisher_vector_product(policy=m, observations=o, states=None, vector=v, damping=0.1)
                return trpo.conjugate_gradient(policy=m, observations=o, states=None, b=v, num_iterations=3)

        entry = trpo.fisher_vector_product if name == "trpo.fisher_vector_product" else trpo.conjugate_gradient
        return Run(policy, with_grad, [entry]), (obs, vector), {}
    if name == "spaces.tensorize_space.dict":
        import numpy as np

        sample = {"position": np.ones((N, 3), dtype=np.float32), "velocity": np.zeros((N, 2), dtype=np.float32)}
        return Call(sp.tensorize_space, device="cpu"), (s["dict"], sample), {}
    if name == "spaces.flatten_tensorized_space":
        return Call(sp.flatten_tensorized_space), ({"position": _randn(N, 3), "velocity": _randn(N, 2, seed=1)},), {}
    if name == "spaces.unflatten_tensorized_space.dict":
        return Call(sp.unflatten_tensorized_space), (s["dict"], _randn(N, 5)), {}
    if name == "spaces.unflatten_tensorized_space.multidiscrete":
        return Call(sp.unflatten_tensorized_space), (s["multidiscrete"], torch.tensor([[0, 1], [2, 0], [1, 1]])), {}
    if name == "spaces.sample_space":
        return Run(torch.nn.Linear(1, 1), lambda m, sp_: sp.flatten_tensorized_space(
            sp.sample_space(sp_, batch_size=N, backend="native", device="cpu")), [sp.sample_space]), (s["dict"],), {}
    if name == "one_hot_encoding.discrete":
        return Call(one_hot_encoding), (s["discrete"], torch.tensor([[0], [2], [1], [1]])), {}
    if name == "one_hot_encoding.multidiscrete":
        return Call(one_hot_encoding), (s["multidiscrete"], torch.tensor([[0, 1], [2, 0], [1, 1], [1, 0]])), {}
    if name.startswith("memory."):
        memory = RandomMemory(memory_size=4, num_envs=N, device="cpu", replacement=name.endswith("replacement"))
        memory.create_tensor("observations", size=s["obs"], dtype=torch.float32)
        memory.create_tensor("actions", size=s["box"], dtype=torch.float32)
        memory.create_tensor("terminated", size=1, dtype=torch.bool)
        for i in range(3):
            memory.add_samples(observations=_randn(N, OBS, seed=i), actions=_randn(N, ADIM, seed=10 + i),
                               terminated=torch.zeros(N, 1, dtype=torch.bool))
        holder = torch.nn.Linear(1, 1)
        names_ = ["observations", "actions", "terminated"]
        if name == "memory.add_samples":
            def add(m: Any, o: Any, a: Any) -> Any:
                memory.add_samples(observations=o, actions=a, terminated=o[:, :1] > 1.0)
                return memory.get_tensor_by_name("observations").sum()

            return Run(holder, add, [RandomMemory.add_samples]), (_randn(N, OBS), _randn(N, ADIM, seed=1)), {}
        if name == "memory.sample_all.mini_batches":
            return Run(holder, lambda m: memory.sample_all(names_, mini_batches=2),
                       [RandomMemory.sample_all]), (), {}
        seq = 2 if name.endswith("sequence") else 1
        return Run(holder, lambda m: memory.sample(names_, batch_size=4, sequence_length=seq),
                   [RandomMemory.sample]), (), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# agents
# ----------------------------------------------------------------------------------------------------


def _env_step(seed: int, discrete_obs: bool = False) -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(seed)
    if discrete_obs:
        obs = torch.randint(0, 6, (N, 1), generator=gen)
        nxt = torch.randint(0, 6, (N, 1), generator=gen)
    else:
        obs, nxt = torch.randn(N, OBS, generator=gen), torch.randn(N, OBS, generator=gen)
    terminated = torch.zeros(N, 1, dtype=torch.bool)
    terminated[seed % N] = True
    truncated = torch.zeros(N, 1, dtype=torch.bool)
    truncated[(seed + 1) % N] = seed % 2 == 1
    return {"observations": obs, "next_observations": nxt, "rewards": torch.randn(N, 1, generator=gen),
            "terminated": terminated, "truncated": truncated}


def _loop(agent: Any, steps: list[dict[str, Any]], infos: dict[str, Any] | None = None) -> Any:
    """The sequential trainer's loop over ``steps``: ``act`` and ``record_transition`` under ``no_grad``,
    then ``post_interaction`` (the update, when due)."""
    import torch

    actions = None
    for t, step in enumerate(steps):
        agent.pre_interaction(timestep=t, timesteps=100)
        with torch.no_grad():
            actions, _ = agent.act(step["observations"], None, timestep=t, timesteps=100)
            agent.record_transition(observations=step["observations"], states=None, actions=actions,
                                    rewards=step["rewards"], next_observations=step["next_observations"],
                                    next_states=None, terminated=step["terminated"], truncated=step["truncated"],
                                    infos=infos or {}, timestep=t, timesteps=100)
        agent.post_interaction(timestep=t, timesteps=100)
    return actions


def _agent(name: str) -> Built:
    import torch

    from skrl.agents.torch import a2c, amp, cem, ddpg, ddqn, dqn, ppo, q_learning, rpo, sac, sarsa, td3, trpo
    from skrl.memories.torch import RandomMemory
    from skrl.resources.noises.torch import GaussianNoise, OrnsteinUhlenbeckNoise
    from skrl.resources.preprocessors.torch import RunningStandardScaler
    from skrl.resources.schedulers.torch import KLAdaptiveLR
    from skrl.utils.model_instantiators import torch as mi

    _, AgentCall = _wrappers()
    c, s = _classes(), _spaces()
    algo, _, what = name.partition(".")
    obs = _randn(N, OBS)

    def memory(size: int) -> Any:
        return RandomMemory(memory_size=size, num_envs=N, device="cpu")

    def make(cls: Any, models: dict[str, Any], cfg: Any, size: int, action_space: Any = None,
             observation_space: Any = None, **extra: Any) -> Any:
        agent = cls(models=models, memory=memory(size), observation_space=observation_space or s["obs"],
                    action_space=action_space or s["box"], device="cpu", cfg=cfg, **extra)
        agent.init()
        return agent

    def act(a: Any, o: Any) -> Any:
        return a.act(o, None, timestep=0, timesteps=100)[0]

    def stepper(agent: Any, n: int, discrete_obs: bool = False, infos: Any = None, always_train: bool = False) -> Any:
        steps = [_env_step(i, discrete_obs) for i in range(n)]
        run = (lambda a, st: _loop(a, st, infos(st) if infos else None))
        return AgentCall(agent, run, [type(agent).act, type(agent).record_transition, type(agent).post_interaction,
                                      type(agent).update], grad=True, always_train=always_train), (steps,), {}

    if algo in ("PPO", "A2C", "RPO", "TRPO", "PPO_RNN", "A2C_RNN"):
        module = {"PPO": ppo, "A2C": a2c, "RPO": rpo, "TRPO": trpo, "PPO_RNN": ppo, "A2C_RNN": a2c}[algo]
        cls = getattr(module, algo)
        cfg_cls = getattr(module, algo.split("_")[0] + "_CFG")
        cfg: dict[str, Any] = {"rollouts": 2, "mini_batches": 2}
        if algo != "A2C" and algo != "A2C_RNN":
            cfg["learning_epochs"] = 1
        if algo == "TRPO":  # one mini-batch: Dynamo cannot fake ``np.array_split`` on a symbolic count
            cfg.update(conjugate_gradient_steps=2, max_backtrack_steps=2, mini_batches=1)
        action_space = s["box"]
        if algo.endswith("_RNN"):
            models = {"policy": c["RecurrentGaussian"](s["obs"], s["box"]),
                      "value": c["RecurrentDeterministic"](s["obs"], s["box"], outputs=1)}
        elif what == "step.categorical":
            action_space = s["discrete"]
            models = {"policy": c["Categorical"](s["obs"], action_space),
                      "value": c["Deterministic"](s["obs"], action_space, outputs=1)}
        elif what == "step.shared":
            models = {"policy": mi.shared_model(
                observation_space=s["obs"], action_space=s["box"], device="cpu",
                structure=["GaussianMixin", "DeterministicMixin"], roles=["policy", "value"],
                parameters=[{"network": [{"name": "net", "input": "OBSERVATIONS", "layers": [HID],
                                          "activations": "elu"}], "output": "ACTIONS"},
                            {"network": [{"name": "net", "input": "OBSERVATIONS", "layers": [HID],
                                          "activations": "elu"}], "output": "ONE"}])}
            models["policy"].init_state_dict(role="policy")
            models["policy"].init_state_dict(role="value")
            models["value"] = models["policy"]
        else:
            models = {"policy": c["Gaussian"](s["obs"], s["box"], clip_actions=True),
                      "value": c["Deterministic"](s["obs"], s["box"], outputs=1)}
        if what == "step.preprocessors":
            cfg.update(observation_preprocessor=RunningStandardScaler,
                       observation_preprocessor_kwargs={"size": s["obs"], "device": "cpu"},
                       value_preprocessor=RunningStandardScaler,
                       value_preprocessor_kwargs={"size": 1, "device": "cpu"})
        if what == "step.kl_adaptive":
            cfg.update(learning_rate_scheduler=KLAdaptiveLR, learning_rate_scheduler_kwargs={"kl_threshold": 0.008},
                       kl_threshold=0.5, entropy_loss_scale=0.01)
        if what == "step.time_limit_bootstrap":
            cfg.update(time_limit_bootstrap=True, rewards_shaper=lambda r, t, ts: r * 0.1, value_clip=0.0,
                       grad_norm_clip=0.0)
        if what == "step.categorical":
            cfg.update(entropy_loss_scale=0.01)
        agent = make(cls, models, cfg_cls(**cfg), 2, action_space=action_space)
        if what == "act":
            return AgentCall(agent, act, [cls.act]), (obs,), {}
        return stepper(agent, 2, always_train=algo.endswith("_RNN"))

    if algo == "AMP":
        models = {"policy": c["Gaussian"](s["obs"], s["box"]),
                  "value": c["Deterministic"](s["obs"], s["box"], outputs=1),
                  "discriminator": c["Deterministic"](s["amp"], s["box"], outputs=1)}
        cfg = amp.AMP_CFG(rollouts=2, learning_epochs=1, mini_batches=2, amp_batch_size=4,
                          discriminator_batch_size=4, task_reward_scale=0.5,
                          amp_observation_preprocessor=RunningStandardScaler,
                          amp_observation_preprocessor_kwargs={"size": s["amp"], "device": "cpu"})
        agent = make(amp.AMP, models, cfg, 2, amp_observation_space=s["amp"],
                     motion_dataset=RandomMemory(memory_size=16, device="cpu"),
                     reply_buffer=RandomMemory(memory_size=16, device="cpu"),
                     collect_reference_motions=lambda n: _randn(n, AMP_OBS, seed=n))
        return stepper(agent, 2, infos=lambda st: {"amp_obs": _randn(N, AMP_OBS, seed=7)})

    if algo in ("DDPG", "TD3", "DDPG_RNN", "TD3_RNN"):
        module = ddpg if algo.startswith("DDPG") else td3
        cls = getattr(module, algo)
        recurrent = algo.endswith("_RNN")

        def policy() -> Any:
            if recurrent:
                return c["RecurrentDeterministic"](s["obs"], s["box"], clip_actions=True)
            return c["Deterministic"](s["obs"], s["box"], clip_actions=True)

        def critic() -> Any:
            if recurrent:
                return c["RecurrentDeterministic"](s["obs"], s["box"], outputs=1, critic=True)
            return c["Deterministic"](s["obs"], s["box"], critic=True, outputs=1)

        models = {"policy": policy(), "target_policy": policy()}
        cfg = {"batch_size": 4, "exploration_noise": OrnsteinUhlenbeckNoise,
               "exploration_noise_kwargs": {"theta": 0.15, "sigma": 0.1, "base_scale": 0.5, "device": "cpu"}}
        if algo.startswith("TD3"):
            models.update(critic_1=critic(), critic_2=critic(), target_critic_1=critic(), target_critic_2=critic())
            cfg.update(exploration_noise=GaussianNoise, exploration_noise_kwargs={"mean": 0.0, "std": 0.1,
                                                                                  "device": "cpu"},
                       smooth_regularization_noise=GaussianNoise,
                       smooth_regularization_noise_kwargs={"mean": 0.0, "std": 0.2, "device": "cpu"},
                       policy_delay=1, grad_norm_clip=1.0)
        else:
            models.update(critic=critic(), target_critic=critic())
            cfg.update(exploration_scheduler=lambda t, ts: max(0.1, 1 - t / ts))
        agent = make(cls, models, getattr(module, algo.split("_")[0] + "_CFG")(**cfg), 8)
        if what.startswith("act"):
            agent.enable_training_mode(True)
            return AgentCall(agent, act, [cls.act]), (obs,), {}
        return stepper(agent, 2)

    if algo in ("SAC", "SAC_RNN"):
        cls = getattr(sac, algo)
        recurrent = algo.endswith("_RNN")

        def critic() -> Any:
            if recurrent:
                return c["RecurrentDeterministic"](s["obs"], s["box"], outputs=1, critic=True)
            return c["Deterministic"](s["obs"], s["box"], critic=True, outputs=1)

        pol = c["RecurrentGaussian"](s["obs"], s["box"]) if recurrent else c["Gaussian"](s["obs"], s["box"],
                                                                                          clip_actions=True)
        models = {"policy": pol, "critic_1": critic(), "critic_2": critic(), "target_critic_1": critic(),
                  "target_critic_2": critic()}
        cfg = sac.SAC_CFG(batch_size=4, learn_entropy=what != "step.fixed_entropy", grad_norm_clip=1.0)
        agent = make(cls, models, cfg, 8)
        if what == "act":
            return AgentCall(agent, act, [cls.act]), (obs,), {}
        return stepper(agent, 2)

    if algo in ("DQN", "DDQN"):
        module = dqn if algo == "DQN" else ddqn
        cls = getattr(module, algo)
        models = {"q_network": c["Deterministic"](s["obs"], s["discrete"], outputs=NACT),
                  "target_q_network": c["Deterministic"](s["obs"], s["discrete"], outputs=NACT)}
        cfg = {"batch_size": 4, "target_update_interval": 1}
        if what in ("act.epsilon", "step"):
            cfg["exploration_scheduler"] = lambda t, ts: 0.5
        agent = make(cls, models, getattr(module, algo + "_CFG")(**cfg), 8, action_space=s["discrete"])
        if what.startswith("act"):
            return AgentCall(agent, act, [cls.act]), (obs,), {}
        return stepper(agent, 2)

    if algo == "CEM":
        models = {"policy": c["Categorical"](s["obs"], s["discrete"])}
        agent = make(cem.CEM, models, cem.CEM_CFG(rollouts=4, percentile=0.5), 4, action_space=s["discrete"])
        return stepper(agent, 4)

    if algo in ("Q_LEARNING", "SARSA"):
        module = q_learning if algo == "Q_LEARNING" else sarsa
        cls = getattr(module, algo)
        policy = mi.tabular_model(observation_space=s["tabular_obs"], action_space=s["discrete"], device="cpu",
                                  variant_kwargs={"epsilon": 0.2})
        agent = cls(models={"policy": policy}, memory=None, observation_space=s["tabular_obs"],
                    action_space=s["discrete"], device="cpu", cfg=getattr(module, algo + "_CFG")(learning_rate=0.1))
        agent.init()
        return stepper(agent, 2, discrete_obs=True)

    if algo in ("IPPO", "MAPPO"):
        import dataclasses

        from skrl.multi_agents.torch import ippo, mappo

        module = ippo if algo == "IPPO" else mappo
        cls = getattr(module, algo)
        uids = ["a", "b"]
        shared = algo == "MAPPO"
        state_space = _spaces()["dict"] if shared else None
        models = {}
        for uid in uids:
            value = (c["Deterministic"](s["obs"], s["box"], outputs=1, state_space=state_space, inputs="states")
                     if shared else c["Deterministic"](s["obs"], s["box"], outputs=1))
            models[uid] = {"policy": c["Gaussian"](s["obs"], s["box"]), "value": value}
        kwargs: dict[str, Any] = {"state_spaces": {uid: state_space for uid in uids}}
        cfg_cls = getattr(module, algo + "_CFG")
        # a dict-valued option is given per agent (the configuration's ``expand`` refuses an empty one)
        per_agent = {f.name: {uid: {} for uid in uids} for f in dataclasses.fields(cfg_cls)
                     if f.default_factory is dict}
        agent = cls(possible_agents=uids, models=models, memories={uid: memory(2) for uid in uids},
                    observation_spaces={uid: s["obs"] for uid in uids}, action_spaces={uid: s["box"] for uid in uids},
                    device="cpu", cfg=cfg_cls(rollouts=2, learning_epochs=1, mini_batches=2, **per_agent), **kwargs)
        agent.init()

        def multi(a: Any, steps: list[dict[str, Any]]) -> Any:
            actions = None
            for t, st in enumerate(steps):
                states = {uid: (st["states"] if shared else None) for uid in uids}
                obs_ = {uid: st["observations"] for uid in uids}
                with torch.no_grad():
                    actions, _ = a.act(obs_, states, timestep=t, timesteps=100)
                    a.record_transition(
                        observations=obs_, states=states, actions=actions,
                        rewards={uid: st["rewards"] for uid in uids},
                        next_observations={uid: st["next_observations"] for uid in uids}, next_states=states,
                        terminated={uid: st["terminated"] for uid in uids},
                        truncated={uid: st["truncated"] for uid in uids}, infos={}, timestep=t, timesteps=100)
                a.post_interaction(timestep=t, timesteps=100)
            return actions

        steps = [dict(_env_step(i), states=_randn(N, 5, seed=30 + i)) for i in range(2)]
        return AgentCall(agent, multi, [cls.act, cls.record_transition, cls.post_interaction, cls.update],
                         grad=True), (steps,), {}
    raise KeyError(name)


def build(name: str) -> Built:
    import logging
    import warnings

    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    logging.getLogger("skrl").setLevel(logging.ERROR)
    torch.manual_seed(0)
    np.random.seed(0)
    family, _, rest = name.partition(".")
    if family == "model":
        return _model(rest)
    if family == "res":
        return _resource(rest)
    if family == "fn":
        return _function(rest)
    if family == "agent":
        return _agent(rest)
    raise KeyError(name)
