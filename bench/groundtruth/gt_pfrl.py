"""Ground-truth bench, pfrl: deep-RL networks, action values, policies, agents and their update steps.

pfrl (Preferred Networks' PyTorch port of ChainerRL) builds its agents from small ``nn.Module``s: the
layers of ``pfrl.nn`` (``MLP``, ``MLPBN``, Atari CNNs, ``BoundByTanh``, ``ConcatObsAndAction``,
``Branched``, ``EmpiricalNormalization``, factorized noisy layers, ``RecurrentSequential`` /
``RecurrentBranched``), the Q-functions of ``pfrl.q_functions`` that return ``ActionValue`` objects
(discrete, distributional, quantile, quadratic), and the policy heads of ``pfrl.policies`` that return
``torch.distributions`` (Gaussian heads, softmax, deterministic ``Delta``). Its agents (``DQN`` and its
variants, ``CategoricalDQN``, ``IQN``, ``A2C``, ``PPO``, ``TRPO``, ``SoftActorCritic``, ``TD3``,
``DDPG``, ``REINFORCE``, ``ACER``) are plain objects whose ``act`` / ``batch_act`` (eval: greedy or mode;
train: through an explorer or by sampling) and ``batch_observe`` (replay, rollouts, updates) users call
in their training loops. So, at tiny sizes (observations of 5, 3 discrete actions or 2 continuous ones,
batches of 4, hidden width 16):

- ``NETS``: ``pfrl.nn``'s layers on tensors (noisy layers with their noise resampled, the empirical
  normaliser updating its statistics in train mode and inverting, recurrent stacks on packed sequences and
  one step at a time);
- ``QFUNCS``: the Q-functions, their ``ActionValue`` read as users read it (``greedy_actions``, ``max``,
  ``evaluate_actions``, the distributional and quantile views, advantages, the ``[i]`` slicing explorers
  use), and the IQN quantile network with sampled thresholds;
- ``POLICIES``: policy heads on an ``MLP`` (Gaussian with state-independent, diagonal and fixed
  covariance, softmax, deterministic) sampled, scored and reduced by ``mode_of_distribution``, SAC's
  squashed Gaussian, and the actor-critic ``Branched`` models of A2C / PPO;
- ``FUNCTIONS``: library functions on tensors (``gt_calls.Call``): ``batch_states``,
  ``conjugate_gradient``, ``clip_l2_grad_norm_``, soft parameter copies, the recurrent-state helpers, the
  value and quantile losses, categorical projection, cosine basis, ACER's importance weights and
  policy-gradient corrections, TRPO's flattening and Hessian-vector product, ``bound_by_tanh``,
  ``lower_triangular_matrix``;
- ``AGENTS``: each agent's ``batch_act`` / ``act`` (the worker's eval and train modes are the agent's),
  a training-loop step (``batch_act`` then ``batch_observe`` on random observations and rewards, which
  fills the replay buffer or rollout; A2C's runs its update, being due), and its loss or update methods
  on a batch from ``batch_experiences`` (``_compute_loss`` of DQN and its variants, SAC's and TD3's
  ``update_q_func`` / policy updates, DDPG's critic and actor losses, PPO's ``_lossfun``, A2C's
  ``update``, the replay updater sampling the buffers, prioritized replay included).

No environment is needed: agents are fed random observations as a training loop feeds them. Random
weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
B, OBS, NACT, ADIM, HID, ATOMS = 4, 5, 3, 2, 16, 11

NETS = (
    "MLP", "MLP.last_wscale", "MLPBN", "MLPBN.normalize_input_output", "SmallAtariCNN", "LargeAtariCNN",
    "BoundByTanh", "ConcatObsAndAction", "Branched", "EmpiricalNormalization", "EmpiricalNormalization.clip",
    "EmpiricalNormalization.inverse", "FactorizedNoisyLinear", "to_factorized_noisy", "RecurrentSequential.pack",
    "RecurrentSequential.one_step", "RecurrentBranched", "Lambda",
)
QFUNCS = (
    "FCStateQFunctionWithDiscreteAction", "DiscreteActionValueHead", "DiscreteActionValue.advantage",
    "DiscreteActionValue.getitem", "DistributionalFCStateQFunctionWithDiscreteAction",
    "DistributionalDiscreteActionValue.as_distribution", "FCQuadraticStateQFunction",
    "FCQuadraticStateQFunction.bounded", "DuelingDQN", "DistributionalDuelingDQN", "FCSAQFunction",
    "FCBNSAQFunction", "FCBNLateActionSAQFunction", "FCLateActionSAQFunction",
    "ImplicitQuantileQFunction", "QuantileDiscreteActionValue", "CosineBasisLinear", "SingleActionValue",
)
POLICIES = (
    "GaussianHeadWithStateIndependentCovariance", "GaussianHeadWithStateIndependentCovariance.diagonal",
    "GaussianHeadWithDiagonalCovariance", "GaussianHeadWithFixedCovariance", "SoftmaxCategoricalHead",
    "DeterministicHead", "SquashedGaussian", "ActorCritic.discrete", "ActorCritic.gaussian",
    "ACERDiscreteActionHead", "ACERContinuousActionHead",
)
FUNCTIONS = (
    "batch_states", "batch_states.tuple", "conjugate_gradient", "clip_l2_grad_norm_", "soft_copy_param",
    "mask_recurrent_state_at", "get_recurrent_state_at", "concatenate_recurrent_states",
    "dqn.compute_value_loss", "dqn.compute_value_loss.no_clip", "dqn.compute_weighted_value_loss",
    "categorical_dqn._apply_categorical_projection", "categorical_dqn.compute_weighted_value_loss",
    "iqn.compute_eltwise_huber_quantile_loss", "iqn.cosine_basis_functions", "acer.compute_full_importance",
    "acer.compute_policy_gradient_full_correction", "acer.compute_policy_gradient_sample_correction",
    "acer.compute_policy_gradient_loss", "acer.compute_loss_with_kl_constraint",
    "trpo._flatten_and_concat_variables", "trpo._hessian_vector_product", "bound_by_tanh",
    "lower_triangular_matrix", "ppo._elementwise_clip", "td3.default_target_policy_smoothing_func",
)
AGENTS = (
    "DQN.batch_act", "DQN.batch_act.boltzmann", "DQN.batch_act.linear_decay", "DQN.step", "DQN.compute_loss",
    "DQN.update.prioritized", "DQN.replay_update", "DQN.batch_act.recurrent", "DoubleDQN.compute_loss",
    "PAL.compute_loss", "DoublePAL.compute_loss", "AL.compute_loss", "DPP.compute_loss", "DPPL.compute_loss",
    "DPPGreedy.compute_loss", "CategoricalDQN.batch_act", "CategoricalDQN.compute_loss",
    "CategoricalDoubleDQN.compute_loss", "IQN.batch_act", "IQN.compute_loss", "A2C.batch_act", "A2C.step",
    "PPO.batch_act", "PPO.step", "PPO.lossfun", "TRPO.batch_act", "TRPO.step", "SoftActorCritic.batch_act",
    "SoftActorCritic.update_q_func", "SoftActorCritic.update_policy_and_temperature", "SoftActorCritic.step",
    "TD3.batch_act", "TD3.update", "DDPG.batch_act", "DDPG.losses", "DDPG.step", "REINFORCE.act",
    "REINFORCE.episode", "ACER.act",
)


def names() -> list[str]:
    return ([f"nn.{n}" for n in NETS] + [f"q.{n}" for n in QFUNCS] + [f"policy.{n}" for n in POLICIES]
            + [f"fn.{n}" for n in FUNCTIONS] + [f"agent.{n}" for n in AGENTS])


def _randn(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _obs_list(n: int = B, seed: int = 0, size: int = OBS) -> list[Any]:
    """A batch of observations as a vector env hands them to ``batch_act``: a list of float32 arrays."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return [rng.standard_normal(size).astype(np.float32) for _ in range(n)]


def _modules() -> Any:
    import torch
    from torch import nn

    class Probe(nn.Module):
        """A library module (``net``) whose output (an ``ActionValue``, a distribution, a recurrent output)
        ``read`` turns into tensors, as the agent reading it does."""

        def __init__(self, net: Any, read: Any, entries: list[Any] | None = None) -> None:
            super().__init__()
            self.net = net
            self.read = read
            self.entries = entries if entries is not None else [type(net)]

        def forward(self, *inputs: Any) -> Any:
            return self.read(self.net, *inputs)

        def entry_points(self) -> list[Any]:
            return self.entries

    class AgentCall(nn.Module):
        """An agent's method run by ``run(agent, *inputs)``; the worker's ``train`` / ``eval`` switch the
        agent's own mode (``agent.training``), as ``agent.eval_mode()`` does. ``grad`` runs it with gradients
        enabled in both modes (the update steps call ``backward``)."""

        def __init__(self, agent: Any, run: Any, entries: list[Any], grad: bool = False) -> None:
            super().__init__()
            self.agent = agent
            self.run = run
            self.entries = entries
            self.grad = grad

        def train(self, mode: bool = True) -> Any:
            super().train(mode)
            self.agent.training = mode
            return self

        def forward(self, *inputs: Any) -> Any:
            if self.grad:
                with torch.enable_grad():
                    return self.run(self.agent, *inputs)
            return self.run(self.agent, *inputs)

        def entry_points(self) -> list[Any]:
            return self.entries

    return Probe, AgentCall


# ----------------------------------------------------------------------------------------------------
# pfrl.nn
# ----------------------------------------------------------------------------------------------------


def _net(name: str) -> Built:
    import torch
    from torch import nn

    import pfrl
    from pfrl.utils.recurrent import one_step_forward, pack_and_forward

    Probe, _ = _modules()
    obs = _randn(B, OBS)
    if name == "MLP":
        return pfrl.nn.MLP(OBS, NACT, (HID, HID)), (obs,), {}
    if name == "MLP.last_wscale":
        return pfrl.nn.MLP(OBS, NACT, (HID,), nonlinearity=torch.tanh, last_wscale=1e-3), (obs,), {}
    if name == "MLPBN":
        return pfrl.nn.MLPBN(OBS, NACT, (HID, HID)), (obs,), {}
    if name == "MLPBN.normalize_input_output":
        return pfrl.nn.MLPBN(OBS, NACT, (HID,), normalize_input=True, normalize_output=True), (obs,), {}
    if name == "SmallAtariCNN":
        return pfrl.nn.SmallAtariCNN(n_input_channels=2, n_output_channels=32), (_randn(B, 2, 84, 84),), {}
    if name == "LargeAtariCNN":
        return pfrl.nn.LargeAtariCNN(n_input_channels=2, n_output_channels=32), (_randn(2, 2, 84, 84),), {}
    if name == "BoundByTanh":
        return nn.Sequential(nn.Linear(OBS, ADIM), pfrl.nn.BoundByTanh(low=[-1.0, 0.0], high=[1.0, 2.0])), (
            obs,), {}
    if name == "ConcatObsAndAction":
        net = nn.Sequential(pfrl.nn.ConcatObsAndAction(), nn.Linear(OBS + ADIM, 1))
        return Probe(net, lambda m, x, a: m((x, a)), [pfrl.nn.ConcatObsAndAction]), (obs, _randn(B, ADIM, seed=1)), {}
    if name == "Branched":
        net = pfrl.nn.Branched(nn.Linear(OBS, NACT), nn.Sequential(nn.Linear(OBS, 1), nn.Tanh()))
        return net, (obs,), {}
    if name.startswith("EmpiricalNormalization"):
        keywords = {"clip_threshold": 2.0} if name.endswith(".clip") else {}
        norm = pfrl.nn.EmpiricalNormalization(OBS, **keywords)
        norm(_randn(8, OBS, seed=2) * 3 + 1)  # statistics from a first batch, as agents see them
        if name.endswith(".inverse"):
            return Probe(norm, lambda m, y: m.inverse(y), [pfrl.nn.EmpiricalNormalization.inverse]), (obs,), {}
        return norm, (obs,), {}
    if name == "FactorizedNoisyLinear":
        return pfrl.nn.FactorizedNoisyLinear(nn.Linear(OBS, HID)), (obs,), {}
    if name == "to_factorized_noisy":
        net = pfrl.nn.MLP(OBS, NACT, (HID,))
        pfrl.nn.to_factorized_noisy(net, sigma_scale=0.5)
        return net, (obs,), {}
    if name == "Lambda":
        return pfrl.nn.Lambda(lambda x: x.float() / 255.0), (torch.randint(0, 255, (B, 3, 4, 4)).to(torch.uint8),), {}
    if name.startswith("RecurrentSequential"):
        rnn = pfrl.nn.RecurrentSequential(nn.Linear(OBS, HID), nn.ReLU(), nn.LSTM(HID, HID, batch_first=True),
                                          nn.Linear(HID, NACT))
        if name.endswith(".pack"):
            sequences = [_randn(n, OBS, seed=n) for n in (4, 3, 2)]
            return Probe(rnn, lambda m, s: pack_and_forward(m, s, None), [pack_and_forward, type(rnn)]), (
                sequences,), {}
        state = ((_randn(1, B, HID, seed=3), _randn(1, B, HID, seed=4)),)
        return Probe(rnn, lambda m, x, s: one_step_forward(m, x, s), [one_step_forward, type(rnn)]), (
            obs, state), {}
    if name == "RecurrentBranched":
        rnn = pfrl.nn.RecurrentSequential(nn.Linear(OBS, HID), pfrl.nn.RecurrentBranched(
            pfrl.nn.RecurrentSequential(nn.GRU(HID, HID), nn.Linear(HID, NACT)),
            pfrl.nn.RecurrentSequential(nn.LSTM(HID, HID), nn.Linear(HID, 1))))
        sequences = [_randn(n, OBS, seed=n) for n in (3, 3, 1)]
        return Probe(rnn, lambda m, s: pack_and_forward(m, s, None),
                     [pack_and_forward, pfrl.nn.RecurrentBranched]), (sequences,), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Q-functions and action values
# ----------------------------------------------------------------------------------------------------


def _qfunc(name: str) -> Built:
    import torch
    from torch import nn

    import pfrl
    from pfrl import action_value as av
    from pfrl.agents import acer, iqn
    from pfrl.q_functions import (
        DiscreteActionValueHead, DistributionalDuelingDQN, DistributionalFCStateQFunctionWithDiscreteAction,
        DuelingDQN, FCBNLateActionSAQFunction, FCBNSAQFunction, FCLateActionSAQFunction,
        FCQuadraticStateQFunction, FCSAQFunction, FCStateQFunctionWithDiscreteAction)

    Probe, _ = _modules()
    obs = _randn(B, OBS)
    actions = torch.tensor([0, 2, 1, 1])
    cont = _randn(B, ADIM, seed=1).clamp(-1, 1)

    def read_discrete(m: Any, x: Any, a: Any) -> Any:
        q = m(x)
        return q.greedy_actions, q.max, q.evaluate_actions(a)

    if name == "FCStateQFunctionWithDiscreteAction":
        net = FCStateQFunctionWithDiscreteAction(OBS, NACT, n_hidden_channels=HID, n_hidden_layers=2)
        return Probe(net, read_discrete, [type(net), av.DiscreteActionValue]), (obs, actions), {}
    if name == "DiscreteActionValueHead":
        net = nn.Sequential(nn.Linear(OBS, HID), nn.ReLU(), nn.Linear(HID, NACT), DiscreteActionValueHead())
        return Probe(net, read_discrete, [DiscreteActionValueHead, av.DiscreteActionValue]), (obs, actions), {}
    if name == "DiscreteActionValue.advantage":
        net = nn.Sequential(nn.Linear(OBS, NACT), DiscreteActionValueHead())

        def advantage(m: Any, x: Any, a: Any) -> Any:
            q = m(x)
            return (q.compute_advantage(a), q.compute_double_advantage(a, q.greedy_actions),
                    q.compute_expectation(0.5), q.params)

        return Probe(net, advantage, [av.DiscreteActionValue]), (obs, actions), {}
    if name == "DiscreteActionValue.getitem":
        net = nn.Sequential(nn.Linear(OBS, NACT), DiscreteActionValueHead())

        def rows(m: Any, x: Any) -> Any:
            q = m(x)
            return [q[i:i + 1].greedy_actions for i in range(B)]

        return Probe(net, rows, [av.DiscreteActionValue.__getitem__]), (obs,), {}
    z = torch.linspace(-5.0, 5.0, ATOMS)
    if name.startswith("Distributional"):
        if name == "DistributionalDuelingDQN":
            net = DistributionalDuelingDQN(NACT, ATOMS, -5.0, 5.0, n_input_channels=2)
            x = _randn(2, 2, 84, 84)
        else:
            net = DistributionalFCStateQFunctionWithDiscreteAction(OBS, NACT, ATOMS, -5.0, 5.0, n_hidden_channels=HID,
                                                                   n_hidden_layers=1)
            x = obs

        def dist(m: Any, x: Any, a: Any) -> Any:
            q = m(x)
            out = [q.greedy_actions, q.max, q.evaluate_actions(a[:x.shape[0]])]
            if name.endswith(".as_distribution"):
                out += [q.max_as_distribution, q.evaluate_actions_as_distribution(a[:x.shape[0]]), q.q_values]
            return out

        return Probe(net, dist, [type(net), av.DistributionalDiscreteActionValue]), (x, actions), {}
    if name.startswith("FCQuadraticStateQFunction"):
        import gym
        import numpy as np

        space = gym.spaces.Box(-1.0, 1.0, (ADIM,), dtype=np.float32)
        net = FCQuadraticStateQFunction(OBS, ADIM, n_hidden_channels=HID, n_hidden_layers=1, action_space=space,
                                        scale_mu=name.endswith(".bounded"))

        def quad(m: Any, x: Any, a: Any) -> Any:
            q = m(x)
            return q.greedy_actions, q.max, q.evaluate_actions(a), q.compute_advantage(a)

        return Probe(net, quad, [type(net), av.QuadraticActionValue]), (obs, cont), {}
    if name == "DuelingDQN":
        net = DuelingDQN(NACT, n_input_channels=2)
        return Probe(net, read_discrete, [type(net), av.DiscreteActionValue]), (_randn(2, 2, 84, 84), actions[:2]), {}
    sa_nets = {
        "FCSAQFunction": lambda: FCSAQFunction(OBS, ADIM, n_hidden_channels=HID, n_hidden_layers=2),
        "FCBNSAQFunction": lambda: FCBNSAQFunction(OBS, ADIM, n_hidden_channels=HID, n_hidden_layers=2,
                                                   normalize_input=True),
        "FCBNLateActionSAQFunction": lambda: FCBNLateActionSAQFunction(OBS, ADIM, n_hidden_channels=HID,
                                                                       n_hidden_layers=2),
        "FCLateActionSAQFunction": lambda: FCLateActionSAQFunction(OBS, ADIM, n_hidden_channels=HID,
                                                                   n_hidden_layers=2),
    }
    if name in sa_nets:
        return sa_nets[name](), (obs, cont), {}
    if name in ("ImplicitQuantileQFunction", "QuantileDiscreteActionValue"):
        net = iqn.ImplicitQuantileQFunction(
            psi=nn.Sequential(nn.Linear(OBS, HID), nn.ReLU()), phi=nn.Sequential(iqn.CosineBasisLinear(8, HID),
                                                                                 nn.ReLU()),
            f=nn.Linear(HID, NACT))

        def quantiles(m: Any, x: Any, taus: Any, a: Any) -> Any:
            q = m(x)(taus)
            out = [q.greedy_actions, q.max, q.q_values]
            if name == "QuantileDiscreteActionValue":
                out += [q.evaluate_actions_as_quantiles(a), q.evaluate_actions(a), q[1:3].quantiles]
            return out

        taus = torch.rand(B, 6, generator=torch.Generator().manual_seed(5))
        return Probe(net, quantiles, [type(net), av.QuantileDiscreteActionValue]), (obs, taus, actions), {}
    if name == "CosineBasisLinear":
        return iqn.CosineBasisLinear(8, HID), (torch.rand(B, 6, generator=torch.Generator().manual_seed(6)),), {}
    if name == "SingleActionValue":
        head = acer.ACERContinuousActionHead(
            pi=nn.Sequential(nn.Linear(OBS, ADIM), pfrl.policies.GaussianHeadWithStateIndependentCovariance(ADIM)),
            v=nn.Linear(OBS, 1), adv=nn.Sequential(pfrl.nn.ConcatObsAndAction(), nn.Linear(OBS + ADIM, 1)), n=3)

        def single(m: Any, x: Any, a: Any) -> Any:
            _, q, v = m(x)
            return q.evaluate_actions(a), q.evaluate_actions(a.flip(0)), v

        return Probe(head, single, [type(head), av.SingleActionValue]), (obs, cont), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Policies
# ----------------------------------------------------------------------------------------------------


def _policy(name: str) -> Built:
    import torch
    from torch import distributions as D
    from torch import nn

    import pfrl
    from pfrl import policies as P
    from pfrl.agents import acer
    from pfrl.utils.mode_of_distribution import mode_of_distribution

    Probe, _ = _modules()
    obs = _randn(B, OBS)
    cont = _randn(B, ADIM, seed=1).clamp(-0.9, 0.9)
    discrete = torch.tensor([0, 2, 1, 1])

    def read(m: Any, x: Any, a: Any) -> Any:
        d = m(x)
        return d.sample(), d.log_prob(a), d.entropy(), mode_of_distribution(d)

    heads = {
        "GaussianHeadWithStateIndependentCovariance": lambda: (nn.Linear(HID, ADIM),
                                                               P.GaussianHeadWithStateIndependentCovariance(ADIM)),
        "GaussianHeadWithStateIndependentCovariance.diagonal": lambda: (
            nn.Linear(HID, ADIM), P.GaussianHeadWithStateIndependentCovariance(
                ADIM, var_type="diagonal", var_func=lambda x: torch.exp(2 * x), var_param_init=0.0)),
        "GaussianHeadWithDiagonalCovariance": lambda: (nn.Linear(HID, 2 * ADIM),
                                                       P.GaussianHeadWithDiagonalCovariance()),
        "GaussianHeadWithFixedCovariance": lambda: (nn.Linear(HID, ADIM), P.GaussianHeadWithFixedCovariance(0.3)),
        "SoftmaxCategoricalHead": lambda: (nn.Linear(HID, NACT), P.SoftmaxCategoricalHead()),
    }
    if name in heads:
        layer, head = heads[name]()
        net = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), layer, head)
        return Probe(net, read, [type(head), mode_of_distribution]), (
            obs, discrete if name.startswith("Softmax") else cont), {}
    if name == "DeterministicHead":
        net = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, ADIM), P.DeterministicHead())

        def delta(m: Any, x: Any, a: Any) -> Any:
            d = m(x)
            return d.rsample(), d.sample(), d.mean, d.stddev

        return Probe(net, delta, [P.DeterministicHead, pfrl.distributions.Delta]), (obs, cont), {}
    if name == "SquashedGaussian":
        def squashed(x: Any) -> Any:
            mean, log_scale = torch.chunk(x, 2, dim=1)
            log_scale = torch.clamp(log_scale, -20.0, 2.0)
            base = D.Independent(D.Normal(loc=mean, scale=torch.exp(log_scale)), 1)
            return D.TransformedDistribution(base, [D.transforms.TanhTransform(cache_size=1)])

        net = nn.Sequential(nn.Linear(OBS, HID), nn.ReLU(), nn.Linear(HID, 2 * ADIM), pfrl.nn.Lambda(squashed))

        def sac(m: Any, x: Any, a: Any) -> Any:
            d = m(x)
            sample = d.rsample()
            return sample, d.log_prob(sample), mode_of_distribution(d)

        return Probe(net, sac, [pfrl.nn.Lambda, mode_of_distribution]), (obs, cont), {}
    if name.startswith("ActorCritic"):
        if name.endswith(".discrete"):
            pi = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, NACT), P.SoftmaxCategoricalHead())
            a = discrete
        else:
            pi = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, ADIM),
                               P.GaussianHeadWithStateIndependentCovariance(ADIM, var_type="diagonal"))
            a = cont
        net = pfrl.nn.Branched(pi, nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, 1)))

        def ac(m: Any, x: Any, a: Any) -> Any:
            d, v = m(x)
            return d.log_prob(a), d.entropy(), v, mode_of_distribution(d)

        return Probe(net, ac, [pfrl.nn.Branched, mode_of_distribution]), (obs, a), {}
    if name == "ACERDiscreteActionHead":
        head = acer.ACERDiscreteActionHead(
            pi=nn.Sequential(nn.Linear(OBS, NACT), P.SoftmaxCategoricalHead()),
            q=nn.Sequential(nn.Linear(OBS, NACT), pfrl.q_functions.DiscreteActionValueHead()))

        def acer_read(m: Any, x: Any, a: Any) -> Any:
            d, q, v = m(x)
            return d.sample(), q.evaluate_actions(a), v, acer.get_params_of_distribution(d)

        return Probe(head, acer_read, [type(head), acer.get_params_of_distribution]), (obs, discrete), {}
    if name == "ACERContinuousActionHead":
        head = acer.ACERContinuousActionHead(
            pi=nn.Sequential(nn.Linear(OBS, ADIM), P.GaussianHeadWithStateIndependentCovariance(ADIM)),
            v=nn.Linear(OBS, 1), adv=nn.Sequential(pfrl.nn.ConcatObsAndAction(), nn.Linear(OBS + ADIM, HID),
                                                   nn.ReLU(), nn.Linear(HID, 1)), n=2)

        def acer_cont(m: Any, x: Any, a: Any) -> Any:
            d, q, v = m(x)
            copied = acer.deepcopy_distribution(d)
            return d.log_prob(a), q.evaluate_actions(a), v, copied.mean

        return Probe(head, acer_cont, [type(head), acer.deepcopy_distribution]), (obs, cont), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Functions on tensors
# ----------------------------------------------------------------------------------------------------


def _function(name: str) -> Built:
    import numpy as np
    import torch
    from torch import distributions as D
    from torch import nn

    import pfrl
    from gt_calls import Call, Run
    from pfrl.agents import acer, categorical_dqn, dqn, iqn, ppo, td3, trpo
    from pfrl.functions.bound_by_tanh import bound_by_tanh
    from pfrl.functions.lower_triangular_matrix import lower_triangular_matrix
    from pfrl.utils import recurrent as R
    from pfrl.utils.copy_param import soft_copy_param

    gen = torch.Generator().manual_seed(7)
    cpu = torch.device("cpu")
    y, t = _randn(B, 1), _randn(B, 1, seed=1)
    if name == "batch_states":
        return Call(pfrl.utils.batch_states, device=cpu, phi=lambda x: np.asarray(x, dtype=np.float32) / 2.0), (
            _obs_list(),), {}
    if name == "batch_states.tuple":
        obs = [(o, np.float32(i)) for i, o in enumerate(_obs_list())]
        return Call(pfrl.utils.batch_states, device=cpu, phi=lambda x: x), (obs,), {}
    if name == "conjugate_gradient":
        m = torch.randn(OBS, OBS, generator=gen)
        a = m @ m.T + torch.eye(OBS)
        return Run(a, lambda a, b: pfrl.utils.conjugate_gradient(lambda v: a @ v, b, max_iter=5),
                   [pfrl.utils.conjugate_gradient]), (torch.randn(OBS, generator=gen),), {}
    if name == "clip_l2_grad_norm_":
        net = nn.Linear(OBS, NACT)

        def clip(net: Any, gw: Any, gb: Any) -> Any:
            net.weight.grad, net.bias.grad = gw.clone(), gb.clone()
            return pfrl.utils.clip_l2_grad_norm_(net.parameters(), 0.5)

        return Run(net, clip, [pfrl.utils.clip_l2_grad_norm_]), (
            torch.randn(NACT, OBS, generator=gen) * 3, torch.randn(NACT, generator=gen)), {}
    if name == "soft_copy_param":
        pair = nn.ModuleList([nn.Linear(OBS, HID), nn.Linear(OBS, HID)])

        def soft(pair: Any, tau: Any) -> Any:
            with torch.no_grad():
                soft_copy_param(pair[0], pair[1], 0.01)
            return pair[0].weight * tau

        return Run(pair, soft, [soft_copy_param]), (torch.ones(()),), {}
    lstm_state = (_randn(1, B, HID, seed=2), _randn(1, B, HID, seed=3))
    if name == "mask_recurrent_state_at":
        return Call(R.mask_recurrent_state_at, indices=[0, 2]), (lstm_state,), {}
    if name == "get_recurrent_state_at":
        return Call(R.get_recurrent_state_at, indices=1, detach=True), (lstm_state,), {}
    if name == "concatenate_recurrent_states":
        split = [(_randn(1, HID, seed=i), _randn(1, HID, seed=i + 10)) for i in range(3)]
        return Call(R.concatenate_recurrent_states), (split,), {}
    if name == "dqn.compute_value_loss":
        return Call(dqn.compute_value_loss, clip_delta=True, batch_accumulator="mean"), (y, t), {}
    if name == "dqn.compute_value_loss.no_clip":
        return Call(dqn.compute_value_loss, clip_delta=False, batch_accumulator="sum"), (y, t), {}
    if name == "dqn.compute_weighted_value_loss":
        return Call(dqn.compute_weighted_value_loss, clip_delta=True, batch_accumulator="mean"), (
            y, t, torch.rand(B, generator=gen)), {}
    z = torch.linspace(-5.0, 5.0, ATOMS)
    if name == "categorical_dqn._apply_categorical_projection":
        y_probs = torch.softmax(torch.randn(B, ATOMS, generator=gen), dim=1)
        target = torch.randn(B, 1, generator=gen) + 0.9 * z[None]
        return Call(categorical_dqn._apply_categorical_projection), (target, y_probs, z), {}
    if name == "categorical_dqn.compute_weighted_value_loss":
        eltwise = torch.rand(B, ATOMS, generator=gen)
        return Call(lambda e, w: categorical_dqn.compute_weighted_value_loss(e, B, w, batch_accumulator="mean")), (
            eltwise, torch.rand(B, generator=gen)), {}
    if name == "iqn.compute_eltwise_huber_quantile_loss":
        return Call(iqn.compute_eltwise_huber_quantile_loss), (
            torch.randn(B, 6, generator=gen), torch.randn(B, 5, generator=gen), torch.rand(B, 6, generator=gen)), {}
    if name == "iqn.cosine_basis_functions":
        return Call(iqn.cosine_basis_functions, n_basis_functions=8), (torch.rand(B, 6, generator=gen),), {}
    logits, mu_logits = torch.randn(B, NACT, generator=gen), torch.randn(B, NACT, generator=gen)
    q_values = torch.randn(B, NACT, generator=gen)
    actions = torch.tensor([0, 2, 1, 1])

    def cat(lg: Any) -> Any:
        return D.Categorical(logits=lg)

    if name == "acer.compute_full_importance":
        return Call(lambda a, b: acer.compute_full_importance(cat(a), cat(b))), (logits, mu_logits), {}
    if name == "acer.compute_policy_gradient_full_correction":
        def full(lg: Any, mu: Any, q: Any) -> Any:
            action_value = pfrl.action_value.DiscreteActionValue(q[:1])
            return acer.compute_policy_gradient_full_correction(cat(lg[:1]), cat(mu[:1]), action_value, 0.3,
                                                               truncation_threshold=10.0)

        return Run(None, lambda _, *a: full(*a), [acer.compute_policy_gradient_full_correction]), (
            logits, mu_logits, q_values), {}
    if name == "acer.compute_policy_gradient_sample_correction":
        adv = pfrl.q_functions.FCSAQFunction(OBS, ADIM, n_hidden_channels=HID, n_hidden_layers=1)

        def sample(adv: Any, x: Any, loc: Any, loc_mu: Any) -> Any:
            action_value = pfrl.action_value.SingleActionValue(lambda a: adv(x[:1], a))
            pi = D.Independent(D.Normal(loc[:1], torch.ones(1, ADIM)), 1)
            mu = D.Independent(D.Normal(loc_mu[:1], torch.ones(1, ADIM) * 2), 1)
            return acer.compute_policy_gradient_sample_correction(pi, mu, action_value, 0.1, truncation_threshold=10.0)

        return Run(adv, sample, [acer.compute_policy_gradient_sample_correction]), (
            _randn(B, OBS), logits[:, :ADIM], mu_logits[:, :ADIM]), {}
    if name == "acer.compute_policy_gradient_loss":
        def pg(lg: Any, mu: Any, q: Any) -> Any:
            action_value = pfrl.action_value.DiscreteActionValue(q[:1])
            return acer.compute_policy_gradient_loss(actions[:1], 0.5, cat(lg[:1]), cat(mu[:1]), action_value, 0.2,
                                                     truncation_threshold=10.0)

        return Run(None, lambda _, *a: pg(*a), [acer.compute_policy_gradient_loss]), (
            logits, mu_logits, q_values), {}
    if name == "acer.compute_loss_with_kl_constraint":
        lin = nn.Linear(OBS, NACT)

        def kl(lin: Any, x: Any, mu: Any) -> Any:
            with torch.enable_grad():
                d = cat(lin(x[:1]))
                loss = -d.log_prob(actions[:1]).mean()
                return acer.compute_loss_with_kl_constraint(d, cat(mu[:1]), loss, delta=1.0)

        return Run(lin, kl, [acer.compute_loss_with_kl_constraint]), (_randn(B, OBS), mu_logits), {}
    if name == "trpo._flatten_and_concat_variables":
        net = nn.Sequential(nn.Linear(OBS, HID), nn.Linear(HID, NACT))
        return Run(net, lambda n, s: trpo._flatten_and_concat_variables(list(n.parameters())) * s,
                   [trpo._flatten_and_concat_variables]), (torch.ones(()),), {}
    if name == "trpo._hessian_vector_product":
        net = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, NACT))

        def hvp(net: Any, x: Any, vec: Any) -> Any:
            with torch.enable_grad():
                params = list(net.parameters())
                p = torch.log_softmax(net(x), dim=1)
                kl = (p.exp() * (p - p.detach())).sum(1).mean()
                grads = torch.autograd.grad([kl], params, create_graph=True)
                flat = trpo._flatten_and_concat_variables(grads)
                return trpo._hessian_vector_product(flat, params, vec)

        size = sum(p.numel() for p in net.parameters())
        return Run(net, hvp, [trpo._hessian_vector_product]), (_randn(B, OBS), torch.randn(size, generator=gen)), {}
    if name == "bound_by_tanh":
        return Call(bound_by_tanh, low=torch.tensor([-1.0, 0.0]), high=torch.tensor([1.0, 3.0])), (
            torch.randn(B, ADIM, generator=gen),), {}
    if name == "lower_triangular_matrix":
        diag, non_diag = torch.rand(B, 3, generator=gen) + 0.1, torch.randn(B, 3, generator=gen)
        return Call(lower_triangular_matrix), (diag, non_diag), {}
    if name == "ppo._elementwise_clip":
        x = torch.randn(B, generator=gen)
        return Call(ppo._elementwise_clip), (x, x - 0.2, x + 0.2 + torch.rand(B, generator=gen)), {}
    if name == "td3.default_target_policy_smoothing_func":
        return Call(td3.default_target_policy_smoothing_func), (torch.rand(B, ADIM, generator=gen) * 2 - 1,), {}
    raise KeyError(name)


# ----------------------------------------------------------------------------------------------------
# Agents
# ----------------------------------------------------------------------------------------------------


def _transitions(n: int, continuous: bool, seed: int) -> list[list[dict[str, Any]]]:
    """``n`` one-step experiences as the replay buffers give them back to ``update``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        action = rng.uniform(-1, 1, ADIM).tolist() if continuous else int(rng.integers(NACT))
        out.append([{"state": rng.standard_normal(OBS).astype(np.float32), "action": action,
                     "reward": float(rng.standard_normal()), "next_state": rng.standard_normal(OBS).astype(np.float32),
                     "next_action": None, "is_state_terminal": bool(rng.random() < 0.2)}])
    return out


def _exp_batch(n: int, continuous: bool, seed: int = 11, gamma: float = 0.99) -> dict[str, Any]:
    import torch

    from pfrl.replay_buffer import batch_experiences

    return batch_experiences(_transitions(n, continuous, seed), torch.device("cpu"), lambda x: x, gamma)


def _fill(buffer: Any, n: int, continuous: bool, seed: int = 12) -> Any:
    for (t,) in _transitions(n, continuous, seed):
        buffer.append(**t)
    return buffer


def _step(agent: Any, obs: list[Any], rewards: list[float], dones: list[bool]) -> Any:
    """One step of ``pfrl.experiments.train_agent_batch``'s loop: act, then observe the env's answer."""
    actions = agent.batch_act(obs)
    agent.batch_observe(obs, rewards, dones, [False] * len(obs))
    return actions


def _dqn_agent(cls_name: str, **options: Any) -> Any:
    import numpy as np
    import torch
    from torch import nn

    import pfrl
    from pfrl import agents, explorers, replay_buffers
    from pfrl.agents import iqn

    explorer = options.pop("explorer", None) or explorers.ConstantEpsilonGreedy(
        0.3, lambda: np.random.randint(NACT))
    recurrent = options.pop("recurrent", False)
    if cls_name in ("CategoricalDQN", "CategoricalDoubleDQN"):
        q = pfrl.q_functions.DistributionalFCStateQFunctionWithDiscreteAction(OBS, NACT, ATOMS, -5.0, 5.0,
                                                                              n_hidden_channels=HID, n_hidden_layers=1)
    elif cls_name == "IQN":
        q = iqn.ImplicitQuantileQFunction(psi=nn.Sequential(nn.Linear(OBS, HID), nn.ReLU()),
                                          phi=nn.Sequential(iqn.CosineBasisLinear(8, HID), nn.ReLU()),
                                          f=nn.Linear(HID, NACT))
        options = {"quantile_thresholds_N": 4, "quantile_thresholds_N_prime": 4, "quantile_thresholds_K": 4,
                   **options}
    elif recurrent:
        q = pfrl.nn.RecurrentSequential(nn.Linear(OBS, HID), nn.ReLU(), nn.LSTM(HID, HID),
                                        nn.Linear(HID, NACT), pfrl.q_functions.DiscreteActionValueHead())
    else:
        q = nn.Sequential(nn.Linear(OBS, HID), nn.ReLU(), nn.Linear(HID, NACT),
                          pfrl.q_functions.DiscreteActionValueHead())
    buffer = options.pop("replay_buffer", None)
    if buffer is None:
        buffer = replay_buffers.EpisodicReplayBuffer(100) if recurrent else replay_buffers.ReplayBuffer(100)
    keywords = {"replay_start_size": 8, "minibatch_size": B, "target_update_interval": 4, **options}
    if recurrent:
        keywords.update(recurrent=True, episodic_update_len=2)
    from pfrl.agents import dpp

    cls = getattr(agents, cls_name, None) or getattr(dpp, cls_name)
    return cls(q, torch.optim.Adam(q.parameters(), lr=1e-3), buffer, 0.9, explorer,
                                     **keywords)


def _actor_critic(discrete: bool) -> Any:
    from torch import nn

    import pfrl

    if discrete:
        pi = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, NACT),
                           pfrl.policies.SoftmaxCategoricalHead())
    else:
        pi = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, ADIM),
                           pfrl.policies.GaussianHeadWithStateIndependentCovariance(ADIM, var_type="diagonal"))
    return pfrl.nn.Branched(pi, nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, 1)))


def _sac_parts() -> Any:
    import torch
    from torch import distributions as D
    from torch import nn

    import pfrl

    def squashed(x: Any) -> Any:
        mean, log_scale = torch.chunk(x, 2, dim=1)
        base = D.Independent(D.Normal(loc=mean, scale=torch.exp(torch.clamp(log_scale, -20.0, 2.0))), 1)
        return D.TransformedDistribution(base, [D.transforms.TanhTransform(cache_size=1)])

    policy = nn.Sequential(nn.Linear(OBS, HID), nn.ReLU(), nn.Linear(HID, 2 * ADIM), pfrl.nn.Lambda(squashed))

    def q() -> Any:
        return nn.Sequential(pfrl.nn.ConcatObsAndAction(), nn.Linear(OBS + ADIM, HID), nn.ReLU(), nn.Linear(HID, 1))

    return policy, q(), q()


def _agent(name: str) -> Built:
    import numpy as np
    import torch
    from torch import nn

    import pfrl
    from pfrl import agents, explorers, replay_buffers

    _, AgentCall = _modules()
    algo, _, what = name.partition(".")
    obs = _obs_list(B, seed=1)
    rewards = [0.5, -1.0, 0.0, 1.0]
    dones = [False, False, True, False]
    adam = torch.optim.Adam

    dqn_like = ("DQN", "DoubleDQN", "PAL", "DoublePAL", "AL", "DPP", "DPPL", "DPPGreedy", "CategoricalDQN",
                "CategoricalDoubleDQN", "IQN")
    if algo in dqn_like:
        from pfrl.agents import dpp

        cls = getattr(agents, algo, None) or getattr(dpp, algo)
        if what == "batch_act":
            agent = _dqn_agent(algo)
            return AgentCall(agent, lambda a, o: a.batch_act(o), [cls.batch_act]), (obs,), {}
        if what == "batch_act.boltzmann":
            agent = _dqn_agent(algo, explorer=explorers.Boltzmann(T=0.5))
            return AgentCall(agent, lambda a, o: a.batch_act(o), [cls.batch_act, explorers.Boltzmann]), (obs,), {}
        if what == "batch_act.linear_decay":
            agent = _dqn_agent(algo, explorer=explorers.LinearDecayEpsilonGreedy(1.0, 0.1, 100,
                                                                               lambda: np.random.randint(NACT)))
            entries = [cls.batch_act, explorers.LinearDecayEpsilonGreedy]
            return AgentCall(agent, lambda a, o: a.batch_act(o), entries), (obs,), {}
        if what == "batch_act.recurrent":
            agent = _dqn_agent(algo, recurrent=True)
            return AgentCall(agent, lambda a, o: a.batch_act(o), [cls.batch_act]), (obs,), {}
        if what == "step":
            agent = _dqn_agent(algo, replay_start_size=50, target_update_interval=2, update_interval=2)
            return AgentCall(agent, lambda a, o, r, d: _step(a, o, r, d), [cls.batch_act, cls.batch_observe],
                             grad=True), (obs, rewards, dones), {}
        if what == "compute_loss":
            agent = _dqn_agent(algo)
            return AgentCall(agent, lambda a, b: a._compute_loss(b), [cls._compute_loss]), (
                _exp_batch(B, False),), {}
        if what == "update.prioritized":
            agent = _dqn_agent(algo, replay_buffer=replay_buffers.PrioritizedReplayBuffer(100))
            _fill(agent.replay_buffer, 12, False)

            def prioritized(a: Any, n: int) -> Any:
                experiences = a.replay_buffer.sample(n)
                a.update(experiences)
                return a.optim_t

            return AgentCall(agent, prioritized, [replay_buffers.PrioritizedReplayBuffer.sample, cls.update],
                             grad=True), (B,), {}
        if what == "replay_update":
            agent = _dqn_agent(algo)
            _fill(agent.replay_buffer, 12, False)

            def replay(a: Any, t: int) -> Any:
                a.replay_updater.update_if_necessary(t)
                return a.optim_t

            return AgentCall(agent, replay, [pfrl.replay_buffer.ReplayUpdater.update_if_necessary, cls.update],
                             grad=True), (8,), {}
        raise KeyError(name)

    if algo == "A2C":
        model = _actor_critic(discrete=True)
        agent = agents.A2C(model, adam(model.parameters(), lr=1e-3), gamma=0.9, num_processes=B, update_steps=2,
                           use_gae=True)
        if what == "batch_act":
            return AgentCall(agent, lambda a, o: a.batch_act(o), [agents.A2C.batch_act]), (obs,), {}
        agent.training = True
        for i in range(2):  # the step compiled next is the one that updates
            _step(agent, _obs_list(B, seed=20 + i), rewards, dones)
        return AgentCall(agent, lambda a, o, r, d: _step(a, o, r, d), [agents.A2C.batch_act, agents.A2C.update],
                         grad=True), (obs, rewards, dones), {}

    if algo == "PPO":
        model = _actor_critic(discrete=False)
        normalizer = pfrl.nn.EmpiricalNormalization(OBS, clip_threshold=5.0)
        agent = agents.PPO(model, adam(model.parameters(), lr=1e-3), obs_normalizer=normalizer, gamma=0.9,
                           update_interval=64, minibatch_size=4, epochs=1, clip_eps_vf=0.2)
        if what == "batch_act":
            return AgentCall(agent, lambda a, o: a.batch_act(o), [agents.PPO.batch_act]), (obs,), {}
        if what == "lossfun":
            gen = torch.Generator().manual_seed(13)
            tensors = [torch.randn(B, generator=gen) for _ in range(7)]
            return AgentCall(agent, lambda a, *t: a._lossfun(*t), [agents.PPO._lossfun]), tuple(tensors), {}
        agent.training = True
        _step(agent, _obs_list(B, seed=20), rewards, dones)
        return AgentCall(agent, lambda a, o, r, d: _step(a, o, r, d), [agents.PPO.batch_act, agents.PPO.batch_observe],
                         grad=True), (obs, rewards, dones), {}

    if algo == "TRPO":
        pi = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, ADIM),
                           pfrl.policies.GaussianHeadWithStateIndependentCovariance(ADIM, var_type="diagonal"))
        vf = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, 1))
        agent = agents.TRPO(pi, vf, adam(vf.parameters(), lr=1e-3), gamma=0.9, update_interval=64, vf_epochs=1,
                            vf_batch_size=4, conjugate_gradient_max_iter=3, line_search_max_backtrack=3)
        if what == "batch_act":
            return AgentCall(agent, lambda a, o: a.batch_act(o), [agents.TRPO.batch_act]), (obs,), {}
        agent.training = True
        _step(agent, _obs_list(B, seed=20), rewards, dones)
        return AgentCall(agent, lambda a, o, r, d: _step(a, o, r, d),
                         [agents.TRPO.batch_act, agents.TRPO.batch_observe], grad=True), (obs, rewards, dones), {}

    if algo == "SoftActorCritic":
        policy, q1, q2 = _sac_parts()
        agent = agents.SoftActorCritic(
            policy, q1, q2, adam(policy.parameters(), lr=1e-3), adam(q1.parameters(), lr=1e-3),
            adam(q2.parameters(), lr=1e-3), replay_buffers.ReplayBuffer(100), 0.9,
            replay_start_size=50 if what == "step" else 8,
            minibatch_size=B, entropy_target=-float(ADIM), temperature_optimizer_lr=1e-3)
        cls = agents.SoftActorCritic
        if what == "batch_act":
            return AgentCall(agent, lambda a, o: a.batch_act(o), [cls.batch_act]), (obs,), {}
        if what == "update_q_func":
            return AgentCall(agent, lambda a, b: a.update_q_func(b), [cls.update_q_func], grad=True), (
                _exp_batch(B, True),), {}
        if what == "update_policy_and_temperature":
            return AgentCall(agent, lambda a, b: a.update_policy_and_temperature(b),
                             [cls.update_policy_and_temperature], grad=True), (_exp_batch(B, True),), {}
        return AgentCall(agent, lambda a, o, r, d: _step(a, o, r, d), [cls.batch_act, cls.batch_observe], grad=True), (
            obs, rewards, dones), {}

    if algo in ("TD3", "DDPG"):
        policy = nn.Sequential(nn.Linear(OBS, HID), nn.ReLU(), nn.Linear(HID, ADIM), nn.Tanh(),
                               pfrl.policies.DeterministicHead())

        def q() -> Any:
            return nn.Sequential(pfrl.nn.ConcatObsAndAction(), nn.Linear(OBS + ADIM, HID), nn.ReLU(),
                                 nn.Linear(HID, 1))

        explorer = explorers.AdditiveGaussian(scale=0.1, low=-np.ones(ADIM, dtype=np.float32),
                                              high=np.ones(ADIM, dtype=np.float32))
        if algo == "TD3":
            q1, q2 = q(), q()
            agent = agents.TD3(policy, q1, q2, adam(policy.parameters(), lr=1e-3), adam(q1.parameters(), lr=1e-3),
                               adam(q2.parameters(), lr=1e-3), replay_buffers.ReplayBuffer(100), 0.9, explorer,
                               replay_start_size=8, minibatch_size=B, policy_update_delay=1)
            if what == "batch_act":
                return AgentCall(agent, lambda a, o: a.batch_act(o), [agents.TD3.batch_act]), (obs,), {}

            def td3_update(a: Any, seed: int) -> Any:
                a.update(_transitions(B, True, seed))
                return a.q_func_n_updates

            return AgentCall(agent, td3_update, [agents.TD3.update], grad=True), (3,), {}
        qf = q()
        ou = explorers.AdditiveOU(sigma=0.2)
        agent = agents.DDPG(policy, qf, adam(policy.parameters(), lr=1e-3), adam(qf.parameters(), lr=1e-3),
                            replay_buffers.ReplayBuffer(100), 0.9, ou, replay_start_size=50 if what == "step" else 8,
                            minibatch_size=B,
                            target_update_method="soft", target_update_interval=1, update_interval=1)
        if what == "batch_act":
            return AgentCall(agent, lambda a, o: a.batch_act(o), [agents.DDPG.batch_act, explorers.AdditiveOU]), (
                obs,), {}
        if what == "losses":
            return AgentCall(agent, lambda a, b: (a.compute_critic_loss(b), a.compute_actor_loss(b)),
                             [agents.DDPG.compute_critic_loss, agents.DDPG.compute_actor_loss]), (
                _exp_batch(B, True),), {}
        return AgentCall(agent, lambda a, o, r, d: _step(a, o, r, d),
                         [agents.DDPG.batch_act, agents.DDPG.batch_observe], grad=True), (obs, rewards, dones), {}

    if algo == "REINFORCE":
        model = nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, NACT),
                              pfrl.policies.SoftmaxCategoricalHead())
        agent = agents.REINFORCE(model, adam(model.parameters(), lr=1e-3), beta=1e-2, batchsize=1,
                                 max_grad_norm=1.0)
        if what == "act":
            return AgentCall(agent, lambda a, o: a.act(o), [agents.REINFORCE.act]), (obs[0],), {}

        def episode(a: Any, o: list[Any]) -> Any:
            """A three-step episode: ``act`` / ``observe``, the last ``done`` running ``batch_update``."""
            out = []
            for i in range(3):
                out.append(a.act(o[i]))
                a.observe(o[i + 1], 1.0, i == 2, False)
            return out

        return AgentCall(agent, episode, [agents.REINFORCE.act, agents.REINFORCE.observe], grad=True), (obs,), {}

    if algo == "ACER":
        from pfrl.agents import acer

        model = acer.ACERDiscreteActionHead(
            pi=nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, NACT),
                             pfrl.policies.SoftmaxCategoricalHead()),
            q=nn.Sequential(nn.Linear(OBS, HID), nn.Tanh(), nn.Linear(HID, NACT),
                            pfrl.q_functions.DiscreteActionValueHead()))
        agent = agents.ACER(model, adam(model.parameters(), lr=1e-3), t_max=5, gamma=0.9,
                            replay_buffer=replay_buffers.EpisodicReplayBuffer(100), replay_start_size=10)
        return AgentCall(agent, lambda a, o: a.act(o), [agents.ACER.act]), (obs[0],), {}
    raise KeyError(name)


def build(name: str) -> Built:
    import warnings

    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    np.random.seed(0)
    family, _, rest = name.partition(".")
    if family == "nn":
        return _net(rest)
    if family == "q":
        return _qfunc(rest)
    if family == "policy":
        return _policy(rest)
    if family == "fn":
        return _function(rest)
    if family == "agent":
        return _agent(rest)
    raise KeyError(name)
