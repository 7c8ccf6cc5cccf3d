"""Ground-truth bench, torchrl: reinforcement-learning networks, policies, value estimators and losses.

torchrl (PyTorch's RL library, with tensordict) provides the networks of its recipes (``MLP``,
``ConvNet``, dueling and DDPG nets, noisy layers, multi-agent nets and mixers), the TensorDict modules
that turn them into policies and critics (``ProbabilisticActor`` over a ``TensorDictModule`` with a
``TanhNormal`` or categorical head, ``ValueOperator``, ``QValueActor``, ``ActorValueOperator``,
exploration modules, ``LSTMModule`` / ``GRUModule``), the advantage and return estimators (``GAE``,
``TD0``, ``TD1``, ``TD(lambda)`` modules and ``torchrl.objectives.value.functional``) and the loss
modules its recipes compile inside their update step. So, at tiny sizes (observations of 5, actions of
2 or 3 choices, a batch of 4, trajectories of 6 steps):

- ``NETS``: the networks on tensors, in the options that change their code (depth, norms, dropout,
  last-layer options, noisy layers, multi-dimensional outputs, shared multi-agent parameters; the
  lazily built dueling and DDPG nets initialised by one call first, as users do);
- ``HEADS``: distribution heads as users write them in a forward: an ``MLP``, ``NormalParamExtractor``
  and a ``TanhNormal`` (and ``IndependentNormal``, ``TruncatedNormal``, a one-hot categorical) sampled
  with ``rsample`` / ``sample`` and scored with ``log_prob``, or their deterministic sample; and the
  functional ``symlog`` family (masked categoricals are covered by a policy below: ``TanhDelta`` and
  ``MaskedCategorical`` heads raised under Dynamo in both modes and were left out);
- ``TDMODULES``: policies and critics compiled on a TensorDict input, as collectors compile policies:
  probabilistic actors (random and deterministic exploration), value and Q-value operators, the shared
  actor-value operator and its parts, exploration wrappers, and the recurrent modules in step and
  recurrent mode;
- ``ESTIMATORS``: the value-estimator modules on a ``[batch, time]`` TensorDict (vectorised or not),
  and ``FUNCTIONAL``: the functional estimators on tensors (``gt_calls.Call``);
- ``LOSSES``: the loss modules on a replay or rollout TensorDict, with the value estimators that
  change their targets, and ``UPDATES``: the recipes' update steps (loss, backward, optimiser step and
  target-network update).

``LSTMNet`` is absent from this version, and ``DecisionTransformer`` needs ``transformers``, which
the bench leaves out. Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
B, T, OBS, ACT, NACT, HID = 4, 6, 5, 2, 3, 16

NETS = (
    "MLP", "MLP.depth", "MLP.layernorm_dropout", "MLP.activate_last_layer.no_bias", "MLP.out_shape", "MLP.noisy",
    "ConvNet", "ConvNet.batchnorm", "DuelingCnnDQNet", "DuelingMlpDQNet", "DdpgCnnActor", "DdpgMlpActor",
    "DdpgMlpQNet", "NoisyLinear", "NoisyLinear.reset_noise", "MultiAgentMLP.shared.decentralised", "VDNMixer",
    "QMixer", "BatchRenorm1d", "gSDEModule",
)
HEADS = (
    "TanhNormal", "TanhNormal.tanh_loc", "TanhNormal.bounds_tensor", "TanhNormal.deterministic",
    "IndependentNormal", "TruncatedNormal", "OneHotCategorical", "functional.symlog", "functional.symexp",
    "functional.signed_hyperbolic",
)
TDMODULES = (
    "ProbabilisticActor.TanhNormal", "ProbabilisticActor.TanhNormal.deterministic",
    "ProbabilisticActor.IndependentNormal", "ProbabilisticActor.OneHotCategorical",
    "ProbabilisticActor.MaskedCategorical", "ValueOperator", "QValueActor", "QValueActor.categorical",
    "QValueActor.action_mask", "DistributionalQValueActor", "Actor.TanhModule", "ActorValueOperator",
    "ActorValueOperator.policy_operator", "EGreedyModule", "AdditiveGaussianModule", "LSTMModule.step",
    "LSTMModule.recurrent", "LSTMModule.recurrent.python", "GRUModule.step", "GRUModule.recurrent",
)
ESTIMATORS = (
    "GAE", "GAE.not_vectorized", "GAE.average_gae", "TD0Estimator", "TD1Estimator", "TDLambdaEstimator",
)
FUNCTIONAL = (
    "td0_return_estimate", "td0_advantage_estimate", "td1_return_estimate", "vec_td1_return_estimate",
    "td_lambda_return_estimate", "vec_td_lambda_return_estimate", "vec_td_lambda_advantage_estimate",
    "generalized_advantage_estimate", "vec_generalized_advantage_estimate", "vtrace_advantage_estimate",
    "reward2go",
)
LOSSES = (
    "DQNLoss", "DQNLoss.double_dqn", "DQNLoss.TDLambda", "DDPGLoss", "SACLoss", "DiscreteSACLoss", "TD3Loss",
    "ClipPPOLoss", "ClipPPOLoss.gae", "KLPENPPOLoss", "A2CLoss", "ReinforceLoss", "IQLLoss", "DiscreteIQLLoss",
    "CQLLoss", "DiscreteCQLLoss",
)
UPDATES = ("update.DQN", "update.SAC")


def names() -> list[str]:
    return ([f"net.{n}" for n in NETS] + [f"head.{n}" for n in HEADS] + [f"td.{n}" for n in TDMODULES]
            + [f"estimator.{n}" for n in ESTIMATORS] + [f"functional.{n}" for n in FUNCTIONAL]
            + [f"loss.{n}" for n in LOSSES] + list(UPDATES))


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _mlp(in_features: int, out_features: Any, **keywords: Any) -> Any:
    from torchrl.modules import MLP

    return MLP(in_features=in_features, out_features=out_features, num_cells=keywords.pop("num_cells", [HID, HID]),
               **keywords)


# ----------------------------------------------------------------------------------------------------
# Networks on tensors
# ----------------------------------------------------------------------------------------------------


def _net(name: str) -> Built:
    import torch
    from torch import nn
    from torchrl import modules as M
    from torchrl.modules.models import DuelingMlpDQNet

    obs, image = _randn(B, OBS), _randn(B, 3, 12, 12, seed=1)
    small_cnn = {"num_cells": [8, 8], "kernel_sizes": [3, 3], "strides": [2, 1]}
    ddpg_cnn = {**small_cnn, "depth": 2, "paddings": 0}
    if name.startswith("MLP"):
        keywords: dict[str, Any] = {
            "MLP": {},
            "MLP.depth": {"depth": 3, "num_cells": HID},
            "MLP.layernorm_dropout": {"norm_class": nn.LayerNorm, "norm_kwargs": {"normalized_shape": HID},
                                      "dropout": 0.1},
            "MLP.activate_last_layer.no_bias": {"activate_last_layer": True, "bias_last_layer": False,
                                                "activation_class": nn.ReLU},
            "MLP.out_shape": {"out_features": (2, 3)},
            "MLP.noisy": {"layer_class": M.NoisyLinear, "layer_kwargs": {"std_init": 0.5}},
        }[name]
        out = keywords.pop("out_features", ACT)
        return _mlp(OBS, out, **keywords), (obs,), {}
    if name == "ConvNet":
        return M.ConvNet(in_features=3, **small_cnn), (image,), {}
    if name == "ConvNet.batchnorm":
        return M.ConvNet(in_features=3, norm_class=nn.BatchNorm2d, norm_kwargs=[{"num_features": 8}] * 2,
                         paddings=1, **small_cnn), (image,), {}
    if name == "DuelingCnnDQNet":
        return M.DuelingCnnDQNet(NACT, 1, cnn_kwargs=small_cnn, mlp_kwargs={"num_cells": [HID]}), (image,), {}
    if name == "DuelingMlpDQNet":
        net = DuelingMlpDQNet(NACT, 1, mlp_kwargs_feature={"in_features": OBS, "num_cells": [HID], "out_features": HID},
                                mlp_kwargs_output={"num_cells": [HID]})
        return net, (obs,), {}
    if name == "DdpgCnnActor":
        return M.DdpgCnnActor(ACT, conv_net_kwargs=ddpg_cnn, mlp_net_kwargs={"num_cells": [HID], "depth": 1}), (image,), {}
    if name == "DdpgMlpActor":
        return M.DdpgMlpActor(ACT, mlp_net_kwargs={"num_cells": [HID, HID]}), (obs,), {}
    if name == "DdpgMlpQNet":
        return M.DdpgMlpQNet(mlp_net_kwargs_net1={"num_cells": [HID], "depth": 1},
                              mlp_net_kwargs_net2={"num_cells": [HID], "depth": 1}), (
            obs, _randn(B, ACT, seed=2)), {}
    if name == "NoisyLinear":
        return M.NoisyLinear(OBS, HID), (obs,), {}
    if name == "NoisyLinear.reset_noise":
        net = nn.Sequential(M.NoisyLinear(OBS, HID), nn.ReLU(), M.NoisyLinear(HID, ACT))

        class ResetNoise(nn.Module):
            """``reset_noise`` over a noisy network, then its forward (NoisyNet DQN's acting step)."""

            def __init__(self) -> None:
                super().__init__()
                self.net = net

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                self.net.apply(M.reset_noise)
                return self.net(x)

            def entry_points(self) -> list[Any]:
                return [M.reset_noise, M.NoisyLinear]

        return ResetNoise(), (obs,), {}
    agents = 3
    if name.startswith("MultiAgentMLP"):
        shared, centralised = ".shared." in name, name.endswith(".centralised")
        net = M.MultiAgentMLP(OBS, ACT, agents, centralized=centralised, share_params=shared, depth=2, num_cells=HID)
        return net, (_randn(B, agents, OBS),), {}
    if name == "VDNMixer":
        return M.VDNMixer(agents, device="cpu"), (_randn(B, agents, 1),), {}
    if name == "QMixer":
        return M.QMixer(state_shape=(OBS,), mixing_embed_dim=8, n_agents=agents, device="cpu"), (
            _randn(B, agents, 1), _randn(B, OBS, seed=3)), {}
    if name == "BatchRenorm1d":
        return M.BatchRenorm1d(OBS, warmup_steps=0), (obs,), {}
    if name == "gSDEModule":
        from torchrl.modules.models.exploration import gSDEModule

        from torchrl.envs.utils import ExplorationType, set_exploration_type

        class GSDE(nn.Module):
            """``gSDEModule`` under random exploration (as a collector runs it), given its noise."""

            def __init__(self) -> None:
                super().__init__()
                self.gsde = gSDEModule(action_dim=ACT, state_dim=OBS)

            def forward(self, mu: torch.Tensor, state: torch.Tensor, eps: torch.Tensor) -> Any:
                with set_exploration_type(ExplorationType.RANDOM):
                    return self.gsde(mu, state, eps)

            def entry_points(self) -> list[Any]:
                return [gSDEModule]

        return GSDE(), (_randn(B, ACT), obs, _randn(B, ACT, OBS, seed=5)), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Distribution heads and functional helpers
# ----------------------------------------------------------------------------------------------------


def _head(name: str) -> Built:
    import torch
    from tensordict.nn import NormalParamExtractor
    from torch import nn
    from torchrl import modules as M

    from gt_calls import Call

    obs = _randn(B, OBS)
    if name.startswith("functional."):
        return Call(getattr(M, name.split(".", 1)[1])), (obs * 3,), {}
    discrete = name == "OneHotCategorical"
    net = _mlp(OBS, NACT if discrete else 2 * ACT)
    extractor = NormalParamExtractor(scale_mapping="biased_softplus_1.0")

    class Head(nn.Module):
        """The forward of a stochastic policy head: parameters, the distribution, a sample and its log-prob."""

        def __init__(self) -> None:
            super().__init__()
            self.net, self.extractor = net, extractor
            self.register_buffer("low", -torch.ones(ACT))
            self.register_buffer("high", torch.ones(ACT) * 2)

        def forward(self, x: torch.Tensor) -> Any:
            out = self.net(x)
            if discrete:
                dist = M.OneHotCategorical(logits=out)
                action = dist.sample()
                return action, dist.log_prob(action), dist.mode
            loc, scale = self.extractor(out)
            if name.startswith("TanhNormal"):
                if name == "TanhNormal.bounds_tensor":
                    dist = M.TanhNormal(loc, scale, low=self.low, high=self.high)
                else:
                    dist = M.TanhNormal(loc, scale, low=-1.0, high=1.0, tanh_loc=name == "TanhNormal.tanh_loc")
                if name == "TanhNormal.deterministic":
                    return dist.deterministic_sample
                action = dist.rsample()
                return action, dist.log_prob(action)
            if name == "IndependentNormal":
                dist = M.IndependentNormal(loc, scale)
            else:
                dist = M.TruncatedNormal(loc, scale, low=-1.0, high=1.0)
            action = dist.rsample()
            return action, dist.log_prob(action), dist.mode

        def entry_points(self) -> list[Any]:
            return [type(self.net), getattr(M, name.split(".", 1)[0])]

    return Head(), (obs,), {}


# ----------------------------------------------------------------------------------------------------
# TensorDict data
# ----------------------------------------------------------------------------------------------------


def _data(kind: str, *, time: bool = False, seed: int = 0) -> Any:
    """A replay or rollout TensorDict: ``continuous`` actions in [-1, 1], ``onehot`` or ``categorical``
    discrete actions, with ``next`` observation, reward, done and terminated; ``[B, T]`` when ``time``
    (the last step done), else ``[B]``."""
    import torch
    from tensordict import TensorDict

    g = _gen(seed)
    shape = (B, T) if time else (B,)
    if kind == "continuous":
        action = torch.rand(*shape, ACT, generator=g) * 1.8 - 0.9
    else:
        index = torch.randint(NACT, shape, generator=g)
        action = index if kind == "categorical" else torch.nn.functional.one_hot(index, NACT)
    done = torch.zeros(*shape, 1, dtype=torch.bool)
    if time:
        done[:, -1] = True
    return TensorDict({
        "observation": torch.randn(*shape, OBS, generator=g),
        "action": action,
        "action_log_prob": -torch.rand(*shape, generator=g),
        "sample_log_prob": -torch.rand(*shape, generator=g),
        "is_init": torch.zeros(*shape, 1, dtype=torch.bool),
        "action_mask": torch.ones(*shape, NACT, dtype=torch.bool),
        "next": {
            "observation": torch.randn(*shape, OBS, generator=g),
            "reward": torch.randn(*shape, 1, generator=g),
            "done": done,
            "terminated": done.clone(),
            "is_init": torch.zeros(*shape, 1, dtype=torch.bool),
            "action_mask": torch.ones(*shape, NACT, dtype=torch.bool),
        },
    }, batch_size=shape)


def _tanh_actor(**keywords: Any) -> Any:
    from tensordict.nn import NormalParamExtractor, TensorDictModule
    from torch import nn
    from torchrl.data import Bounded
    from torchrl.modules import ProbabilisticActor, TanhNormal

    net = nn.Sequential(_mlp(OBS, 2 * ACT), NormalParamExtractor())
    return ProbabilisticActor(TensorDictModule(net, in_keys=["observation"], out_keys=["loc", "scale"]),
                              in_keys=["loc", "scale"], spec=Bounded(-1.0, 1.0, (ACT,)),
                              distribution_class=TanhNormal, **keywords)


def _categorical_actor(**keywords: Any) -> Any:
    from tensordict.nn import TensorDictModule
    from torchrl.data import OneHot
    from torchrl.modules import OneHotCategorical, ProbabilisticActor

    return ProbabilisticActor(TensorDictModule(_mlp(OBS, NACT), in_keys=["observation"], out_keys=["logits"]),
                              in_keys=["logits"], spec=OneHot(NACT), distribution_class=OneHotCategorical,
                              **keywords)


def _value(state_action: bool = False, out: int = 1) -> Any:
    from torch import nn
    from torchrl.modules import ValueOperator

    if state_action:
        class QNet(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.mlp = _mlp(OBS + ACT, out)

            def forward(self, observation: Any, action: Any) -> Any:
                import torch

                return self.mlp(torch.cat([observation, action], -1))

        return ValueOperator(QNet(), in_keys=["observation", "action"])
    return ValueOperator(_mlp(OBS, out), in_keys=["observation"])


def _qvalue_actor(action_space: str = "one_hot", **keywords: Any) -> Any:
    from torchrl.data import Categorical, OneHot
    from torchrl.modules import QValueActor

    spec = OneHot(NACT) if action_space == "one_hot" else Categorical(NACT)
    return QValueActor(_mlp(OBS, NACT), in_keys=["observation"], spec=spec, **keywords)


def _td_module(name: str) -> Built:
    import torch
    from tensordict.nn import TensorDictModule, TensorDictSequential
    from torch import nn
    from torchrl import modules as M
    from torchrl.data import Bounded, Categorical, OneHot

    data = _data("continuous")
    if name == "ProbabilisticActor.TanhNormal":
        return _tanh_actor(return_log_prob=True), (data,), {}
    if name == "ProbabilisticActor.TanhNormal.deterministic":
        from tensordict.nn import InteractionType

        return _tanh_actor(default_interaction_type=InteractionType.DETERMINISTIC), (data,), {}
    if name == "ProbabilisticActor.IndependentNormal":
        from tensordict.nn import NormalParamExtractor

        net = nn.Sequential(_mlp(OBS, 2 * ACT), NormalParamExtractor())
        actor = M.ProbabilisticActor(TensorDictModule(net, in_keys=["observation"], out_keys=["loc", "scale"]),
                                     in_keys=["loc", "scale"], distribution_class=M.IndependentNormal,
                                     return_log_prob=True)
        return actor, (data,), {}
    if name == "ProbabilisticActor.OneHotCategorical":
        return _categorical_actor(return_log_prob=True), (_data("onehot"),), {}
    if name == "ProbabilisticActor.MaskedCategorical":
        module = TensorDictModule(_mlp(OBS, NACT), in_keys=["observation"], out_keys=["logits"])
        actor = M.ProbabilisticActor(module, in_keys={"logits": "logits", "mask": "action_mask"},
                                     spec=Categorical(NACT), distribution_class=M.MaskedCategorical,
                                     return_log_prob=True)
        return actor, (_data("categorical"),), {}
    if name == "ValueOperator":
        return _value(), (data,), {}
    if name == "QValueActor":
        return _qvalue_actor(), (_data("onehot"),), {}
    if name == "QValueActor.categorical":
        return _qvalue_actor("categorical"), (_data("categorical"),), {}
    if name == "QValueActor.action_mask":
        return _qvalue_actor(action_mask_key="action_mask"), (_data("onehot"),), {}
    if name == "DistributionalQValueActor":
        atoms = 7

        class Atoms(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.mlp = _mlp(OBS, atoms * NACT)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.mlp(x).view(*x.shape[:-1], atoms, NACT).log_softmax(-2)

        actor = M.DistributionalQValueActor(Atoms(), in_keys=["observation"], spec=OneHot(NACT),
                                            support=torch.linspace(-2, 2, atoms))
        return actor, (_data("onehot"),), {}
    if name == "Actor.TanhModule":
        seq = TensorDictSequential(
            TensorDictModule(_mlp(OBS, ACT), in_keys=["observation"], out_keys=["param"]),
            M.TanhModule(in_keys=["param"], out_keys=["action"], spec=Bounded(-1.0, 1.0, (ACT,))))
        return seq, (data,), {}
    if name.startswith("ActorValueOperator"):
        from tensordict.nn import NormalParamExtractor

        common = TensorDictModule(_mlp(OBS, HID, num_cells=[HID]), in_keys=["observation"], out_keys=["hidden"])
        head = M.ProbabilisticActor(
            TensorDictModule(nn.Sequential(_mlp(HID, 2 * ACT, num_cells=[HID]), NormalParamExtractor()),
                             in_keys=["hidden"], out_keys=["loc", "scale"]),
            in_keys=["loc", "scale"], distribution_class=M.TanhNormal, return_log_prob=True)
        value = M.ValueOperator(_mlp(HID, 1, num_cells=[HID]), in_keys=["hidden"])
        operator = M.ActorValueOperator(common, head, value)
        if name == "ActorValueOperator.policy_operator":
            return operator.get_policy_operator(), (data,), {}
        return operator, (data,), {}
    if name == "EGreedyModule":
        spec = OneHot(NACT)
        policy = TensorDictSequential(_qvalue_actor(), M.EGreedyModule(spec, eps_init=0.5, eps_end=0.05,
                                                                       annealing_num_steps=100))
        return policy, (_data("onehot"),), {}
    if name == "AdditiveGaussianModule":
        spec = Bounded(-1.0, 1.0, (ACT,))
        actor = TensorDictSequential(
            TensorDictModule(nn.Sequential(_mlp(OBS, ACT), nn.Tanh()), in_keys=["observation"], out_keys=["action"]),
            M.AdditiveGaussianModule(spec, sigma_init=0.3, sigma_end=0.1, annealing_num_steps=100))
        return actor, (data,), {}
    # recurrent modules
    cls = M.GRUModule if name.startswith("GRU") else M.LSTMModule
    keywords: dict[str, Any] = {}
    if name.endswith(".python"):
        keywords["python_based"] = True
    gru = cls is M.GRUModule
    states = ["rs_h"] if gru else ["rs_h", "rs_c"]
    rnn = cls(input_size=OBS, hidden_size=8, in_keys=["observation", *states],
              out_keys=["intermediate", *[("next", s) for s in states]], **keywords)
    recurrent = ".recurrent" in name
    policy = TensorDictSequential(rnn, TensorDictModule(_mlp(8, ACT), in_keys=["intermediate"], out_keys=["action"]))
    td = _data("continuous", time=recurrent)
    if recurrent:
        td["is_init"][:, 0] = True

        class Recurrent(nn.Module):
            """The policy over a ``[batch, time]`` rollout under ``set_recurrent_mode(True)`` (as losses run it)."""

            def __init__(self) -> None:
                super().__init__()
                self.policy = policy

            def forward(self, tensordict: Any) -> Any:
                with M.set_recurrent_mode(True):
                    return self.policy(tensordict)

            def entry_points(self) -> list[Any]:
                return [cls]

        return Recurrent(), (td,), {}
    td["is_init"][0] = True
    for s in states:
        td[s] = torch.zeros(B, keywords.get("num_layers", 1), 8)
    return policy, (td,), {}


# ----------------------------------------------------------------------------------------------------
# Value estimators
# ----------------------------------------------------------------------------------------------------


def _estimator(name: str) -> Built:
    from torchrl.objectives import value as V

    critic = _value()
    data = _data("continuous", time=True)
    if name.startswith("GAE"):
        keywords: dict[str, Any] = {
            "GAE": {}, "GAE.not_vectorized": {"vectorized": False}, "GAE.average_gae": {"average_gae": True},
        }[name]
        return V.GAE(gamma=0.99, lmbda=0.95, value_network=critic, **keywords), (data,), {}
    if name == "TD0Estimator":
        return V.TD0Estimator(gamma=0.99, value_network=critic), (data,), {}
    if name == "TD1Estimator":
        return V.TD1Estimator(gamma=0.99, value_network=critic), (data,), {}
    return V.TDLambdaEstimator(gamma=0.99, lmbda=0.95, value_network=critic,
                               vectorized=not name.endswith("not_vectorized")), (data,), {}


def _functional(name: str) -> Built:
    import torch
    from torchrl.objectives.value import functional as F

    from gt_calls import Call

    g = _gen(4)
    value, next_value, reward = (torch.randn(B, T, 1, generator=g) for _ in range(3))
    done = torch.zeros(B, T, 1, dtype=torch.bool)
    done[:, -1] = True
    done[0, 2] = True
    terminated = done.clone()
    terminated[:, -1] = False
    fn = getattr(F, name.split(".")[0])
    table: dict[str, tuple[dict[str, Any], tuple[Any, ...]]] = {
        "td0_return_estimate": ({"gamma": 0.99}, (next_value, reward, terminated)),
        "td0_advantage_estimate": ({"gamma": 0.99}, (value, next_value, reward, done, terminated)),
        "td1_return_estimate": ({"gamma": 0.99}, (next_value, reward, done, terminated)),
        "vec_td1_return_estimate": ({"gamma": 0.99}, (next_value, reward, done, terminated)),
        "td_lambda_return_estimate": ({"gamma": 0.99, "lmbda": 0.95}, (next_value, reward, done, terminated)),
        "vec_td_lambda_return_estimate": ({"gamma": 0.99, "lmbda": 0.95}, (next_value, reward, done, terminated)),
        "vec_td_lambda_advantage_estimate": ({"gamma": 0.99, "lmbda": 0.95},
                                             (value, next_value, reward, done, terminated)),
        "generalized_advantage_estimate": ({"gamma": 0.99, "lmbda": 0.95},
                                           (value, next_value, reward, done, terminated)),
        "vec_generalized_advantage_estimate": ({"gamma": 0.99, "lmbda": 0.95},
                                               (value, next_value, reward, done, terminated)),
        "vtrace_advantage_estimate": ({"gamma": 0.99},
                                      (-torch.rand(B, T, 1, generator=g), -torch.rand(B, T, 1, generator=g),
                                       value, next_value, reward, done, terminated)),
        "reward2go": ({"gamma": 0.99}, (reward, done)),
    }
    static, args = table[name]
    if name.startswith(("td0", "td1", "vec_td1", "td_lambda", "vec_td_lambda", "generalized", "vec_generalized",
                        "vtrace")):
        # The discounts are positional-first: ``fn(gamma, [lmbda,] *tensors)``.
        keys = [k for k in ("gamma", "lmbda") if k in static]
        positional = tuple(static.pop(k) for k in keys)
        return Call(_positional(fn, positional), **static), args, {}
    return Call(fn, **static), args, {}


def _positional(fn: Any, leading: tuple[Any, ...]) -> Any:
    """``fn`` with ``leading`` positional arguments bound (a ``functools.partial``, which Dynamo inlines)."""
    import functools

    return functools.partial(fn, *leading)


# ----------------------------------------------------------------------------------------------------
# Losses
# ----------------------------------------------------------------------------------------------------


def _loss(name: str) -> Built:
    import torch
    from torch import nn
    from torchrl import objectives as O
    from torchrl.data import Bounded, Categorical, OneHot
    from torchrl.objectives import ValueEstimators

    continuous = _data("continuous")
    if name.startswith("DQNLoss"):
        if name == "DQNLoss.smooth_l1.categorical":
            loss = O.DQNLoss(_qvalue_actor("categorical"), loss_function="smooth_l1", action_space="categorical")
            return loss, (_data("categorical"),), {}
        loss = O.DQNLoss(_qvalue_actor(), double_dqn=name == "DQNLoss.double_dqn", action_space="one_hot")
        if name == "DQNLoss.TDLambda":
            loss.make_value_estimator(ValueEstimators.TDLambda, gamma=0.99, lmbda=0.9)
            return loss, (_data("onehot", time=True),), {}
        loss.make_value_estimator(gamma=0.99)
        return loss, (_data("onehot"),), {}
    if name == "DistributionalDQNLoss":
        built = _td_module("DistributionalQValueActor")
        return O.DistributionalDQNLoss(built[0], gamma=0.99), (_data("onehot"),), {}
    if name.startswith("DDPGLoss"):
        from tensordict.nn import TensorDictModule
        from torchrl.modules import Actor

        actor = Actor(nn.Sequential(_mlp(OBS, ACT), nn.Tanh()), in_keys=["observation"], spec=Bounded(-1.0, 1.0, (ACT,)))
        loss = O.DDPGLoss(actor, _value(state_action=True), loss_function="smooth_l1")
        loss.make_value_estimator(ValueEstimators.TD0, gamma=0.99)
        return loss, (continuous,), {}
    if name.startswith("SACLoss"):
        keywords: dict[str, Any] = {}
        if name == "SACLoss.value_network":
            keywords["value_network"] = _value()
        loss = O.SACLoss(_tanh_actor(), _value(state_action=True), num_qvalue_nets=2, **keywords)
        loss.make_value_estimator(gamma=0.99)
        return loss, (continuous,), {}
    if name == "DiscreteSACLoss":
        loss = O.DiscreteSACLoss(_categorical_actor(), _value_discrete(), action_space=OneHot(NACT),
                                 num_actions=NACT, num_qvalue_nets=2)
        loss.make_value_estimator(gamma=0.99)
        return loss, (_data("onehot"),), {}
    if name == "TD3Loss":
        from torchrl.modules import Actor

        actor = Actor(nn.Sequential(_mlp(OBS, ACT), nn.Tanh()), in_keys=["observation"], spec=Bounded(-1.0, 1.0, (ACT,)))
        loss = O.TD3Loss(actor, _value(state_action=True), action_spec=Bounded(-1.0, 1.0, (ACT,)), num_qvalue_nets=2)
        loss.make_value_estimator(gamma=0.99)
        return loss, (continuous,), {}
    if "PPO" in name or name.startswith(("A2C", "Reinforce")):
        cls = {"ClipPPOLoss": O.ClipPPOLoss, "KLPENPPOLoss": O.KLPENPPOLoss, "A2CLoss": O.A2CLoss,
               "ReinforceLoss": O.ReinforceLoss}[name.split(".")[0]]
        keywords = {}
        if name == "ClipPPOLoss.normalize_advantage.clip_value":
            keywords.update(normalize_advantage=True, clip_value=0.5)
        actor = _tanh_actor(return_log_prob=True)
        loss = cls(actor, _value(), **keywords)
        data = _data("continuous", time=True)
        data["loc"] = torch.randn(B, T, ACT, generator=_gen(10)) * 0.1
        data["scale"] = torch.rand(B, T, ACT, generator=_gen(11)) + 0.5
        if name.endswith(".gae"):
            loss.make_value_estimator(ValueEstimators.GAE, gamma=0.99, lmbda=0.95)
        else:
            data["advantage"] = torch.randn(B, T, 1, generator=_gen(7))
            data["value_target"] = torch.randn(B, T, 1, generator=_gen(8))
            data["state_value"] = torch.randn(B, T, 1, generator=_gen(9))
        return loss, (data,), {}
    if name == "IQLLoss":
        loss = O.IQLLoss(_tanh_actor(), _value(state_action=True), _value(), num_qvalue_nets=2)
        loss.make_value_estimator(gamma=0.99)
        return loss, (continuous,), {}
    if name == "DiscreteIQLLoss":
        loss = O.DiscreteIQLLoss(_categorical_actor(), _value_discrete("state_action_value"), _value(), action_space="one-hot",
                                 num_qvalue_nets=2)
        loss.make_value_estimator(gamma=0.99)
        return loss, (_data("onehot"),), {}
    if name == "CQLLoss":
        loss = O.CQLLoss(_tanh_actor(), _value(state_action=True), num_random=3)
        loss.make_value_estimator(gamma=0.99)
        return loss, (continuous,), {}
    if name == "DiscreteCQLLoss":
        loss = O.DiscreteCQLLoss(_qvalue_actor(), action_space="one-hot")
        loss.make_value_estimator(gamma=0.99)
        return loss, (_data("onehot"),), {}
    raise KeyError(name)


def _value_discrete(key: str = "action_value") -> Any:
    from torchrl.modules import ValueOperator

    return ValueOperator(_mlp(OBS, NACT), in_keys=["observation"], out_keys=[key])


def _update(name: str) -> Built:
    """A recipe's ``update(sampled_tensordict)``: the loss, the summed ``loss_*`` terms' backward (gradients
    enabled whatever the mode), the optimiser step and the target networks' update."""
    import torch
    from torch import nn
    from torchrl.objectives import HardUpdate, SoftUpdate

    kind = name.split(".", 1)[1]
    loss_name = {"DQN": "DQNLoss", "SAC": "SACLoss", "PPO": "ClipPPOLoss"}[kind]
    loss, args, _ = _loss(loss_name)
    if kind == "DQN":
        updater: Any = HardUpdate(loss, value_network_update_interval=2)
    elif kind == "PPO":
        updater = None
    else:
        updater = SoftUpdate(loss, eps=0.995)
    optimizer = torch.optim.Adam(loss.parameters(), lr=1e-3)

    class Update(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.loss_module = loss

        def forward(self, sampled_tensordict: Any) -> Any:
            with torch.enable_grad():
                loss_td = self.loss_module(sampled_tensordict)
                total = sum(v for k, v in loss_td.items() if k.startswith("loss_") or k == "loss")
                total.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            if updater is not None:
                updater.step()
            return loss_td.detach()

        def entry_points(self) -> list[Any]:
            entered = [type(self.loss_module)]
            if updater is not None:
                entered.append(type(updater).step)
            return entered

    return Update(), args, {}


def _initialised(built: Built) -> Built:
    """Lazy layers (the dueling and DDPG nets build theirs lazily) initialised by one call on the inputs,
    as users run a dummy batch before compiling."""
    import torch
    from torch.nn.parameter import UninitializedParameter

    module, args, kwargs = built
    if any(isinstance(p, UninitializedParameter) for p in module.parameters()):
        with torch.no_grad():
            module(*args, **kwargs)
    return built


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    kind, rest = name.split(".", 1)
    if kind == "update":
        return _update(name)
    if kind == "net":
        return _initialised(_net(rest))
    return {"head": _head, "td": _td_module, "estimator": _estimator, "functional": _functional,
            "loss": _loss}[kind](rest)
