"""Ground-truth bench, mushroom_rl: MushroomRL 1.10.1's torch side, its networks, approximators, policies and agents.

MushroomRL wraps a user's ``torch.nn.Module`` (built as ``network(input_shape, output_shape, use_cuda=...,
dropout=..., **params)``) in a ``TorchApproximator`` behind a ``Regressor`` (a ``QRegressor`` when the output
has one entry per action, an ``ActionRegressor`` with one network per action, an ``Ensemble`` of ``n_models``,
or a ``GenericRegressor``) that is called on NumPy arrays or tensors; its deep agents keep such regressors, a
replay memory and a policy, and train in ``agent.fit(dataset)`` on a list of ``(state, action, reward,
next_state, absorbing, last)`` transitions, the way ``Core.learn`` feeds them. The networks here are the small
ones of MushroomRL's examples, written here (an MLP Q network with an optional action to gather, an actor, a
critic over the state and action, a feature extractor for the distributional heads), on 4 observation entries,
3 discrete actions or 2 continuous ones, 8 features, batches of 8 from 16 transitions. So the tables cover:

- ``NETWORKS``: the library's own networks and heads (``CategoricalNetwork``, ``QuantileNetwork``,
  ``NoisyNetwork`` and its ``NoisyLinear``, ``DuelingNetwork`` with averaged advantages, ``RainbowNetwork``)
  with and without an action, as Q values or as distributions / quantiles; the losses ``categorical_loss`` and
  ``quantile_huber_loss``; the feature tensors (``GaussianRBFTensor``, ``VonMisesBFTensor``, normalized or on
  chosen dimensions, ``RandomFourierBasis``, ``ConstantTensor``) and ``TorchFeatures`` over them; training steps
  (loss, backward, optimizer step) through each network;
- ``APPROXIMATORS``: ``Regressor(TorchApproximator, ...)``'s ``predict`` (NumPy or tensor inputs, one state,
  tensor outputs), ``fit`` (full batch, minibatches, several epochs, early stopping on a validation split,
  weighted), ``diff``, weights get / set, for the generic, Q, action and ensemble regressors (mean, sum, min,
  max, one member, variance);
- ``UTILS``: ``mushroom_rl.utils.torch`` (weights and gradients as vectors, tensor conversion, the categorical and
  diagonal Gaussian wrappers) and the advantage estimators of ``utils.value_functions`` over a torch critic;
- ``POLICIES``: ``GaussianTorchPolicy`` and ``BoltzmannTorchPolicy`` (``draw_action``, ``draw_action_t``,
  ``log_prob_t``, ``entropy_t``, ``distribution``, ``__call__``), ``SACPolicy``, and the NumPy policies over a torch
  regressor (``EpsGreedy``, ``Boltzmann``, ``OrnsteinUhlenbeckPolicy``);
- ``AGENTS``: ``fit`` of DQN, DoubleDQN, AveragedDQN, MaxminDQN, DQN with prioritized replay and clipped
  rewards, DuelingDQN, NoisyDQN, CategoricalDQN, QuantileDQN, Rainbow, SAC, DDPG, TD3, A2C (Gaussian and
  Boltzmann policies), PPO and TRPO (a Boltzmann policy; few epochs, few conjugate-gradient and line-search
  steps), their losses and actor steps called alone, ``draw_action``, ``Core.evaluate`` of a DQN on ``CartPole``,
  and ``Core.learn`` of PPO on ``LQR`` and of A2C on ``CartPole``.

Left out: ``DuelingNetwork`` with ``avg_advantage=False`` (it calls ``reshape`` on the named tuple ``max``
returns, which fails in eager mode too), ``Mellowmax`` (a SciPy root search per call), and, as Dynamo fails on
them with an error of its own rather than a graph break, ``ClippedGaussianPolicy.draw_action`` (fake-tensor
propagation of ``np.reshape(mu, -1)``), TRPO with a Gaussian policy (the ``MultivariateNormal`` KL divergence's
fake-tensor propagation) and ``Core.learn`` of the replay-memory agents (DQN, SAC: the environments' absorbing
flags are NumPy bools, Dynamo traces them as bool tensors and ``1 - absorbing`` then fails; the datasets built
here carry float flags for the same reason). Also left out: the
environments that need MuJoCo, PyBullet, Gym, Habitat or iGibson, the NumPy-only algorithms (tabular TD,
policy search, batch TD with scikit-learn), plotting and logging. Agents' training steps run under
``torch.enable_grad()``, so the harness's eval (``no_grad``) pass trains too. Seeded (torch and NumPy), random
weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
OBS, ACT, N_ACTIONS, FEAT, BATCH, N_TRANSITIONS = 4, 2, 3, 8, 8, 16

NETWORKS = (
    "CategoricalNetwork.q", "CategoricalNetwork.q.action", "CategoricalNetwork.distribution",
    "CategoricalNetwork.distribution.action", "QuantileNetwork.q", "QuantileNetwork.q.action",
    "QuantileNetwork.quantiles", "QuantileNetwork.quantiles.action", "NoisyNetwork.q", "NoisyNetwork.q.action",
    "NoisyLinear", "NoisyLinear.no_bias", "DuelingNetwork.avg_advantage", "DuelingNetwork.avg_advantage.action",
    "RainbowNetwork.q", "RainbowNetwork.q.action", "RainbowNetwork.distribution",
    "RainbowNetwork.distribution.action", "categorical_loss", "categorical_loss.none", "quantile_huber_loss",
    "GaussianRBFTensor", "GaussianRBFTensor.normalized", "GaussianRBFTensor.dimensions", "VonMisesBFTensor",
    "RandomFourierBasis", "ConstantTensor", "TorchFeatures.batch", "TorchFeatures.one_state",
    "CategoricalNetwork.train_step", "QuantileNetwork.train_step", "NoisyNetwork.train_step",
    "DuelingNetwork.train_step", "RainbowNetwork.train_step",
)
APPROXIMATORS = (
    "Regressor.predict", "Regressor.predict.one_state", "Regressor.predict.output_tensor", "Regressor.call",
    "Regressor.fit", "Regressor.fit.minibatch", "Regressor.fit.n_epochs", "Regressor.fit.early_stopping",
    "Regressor.diff", "Regressor.get_weights", "Regressor.set_weights", "Regressor.two_inputs.predict",
    "Regressor.two_inputs.fit", "QRegressor.predict", "QRegressor.predict.action",
    "QRegressor.predict.action.output_tensor", "QRegressor.fit", "QRegressor.fit.weights", "QRegressor.diff",
    "ActionRegressor.predict", "ActionRegressor.predict.action", "ActionRegressor.fit", "Ensemble.predict.mean",
    "Ensemble.predict.sum", "Ensemble.predict.min", "Ensemble.predict.max", "Ensemble.predict.idx",
    "Ensemble.predict.variance", "Ensemble.predict.output_tensor", "Ensemble.fit", "Ensemble.fit.idx",
)
UTILS = (
    "utils.torch.get_weights", "utils.torch.set_weights", "utils.torch.zero_grad", "utils.torch.get_gradient",
    "utils.torch.to_float_tensor", "utils.torch.to_int_tensor", "CategoricalWrapper.log_prob",
    "DiagonalMultivariateGaussian.log_prob", "compute_gae", "compute_advantage_montecarlo", "compute_advantage",
)
POLICIES = (
    "GaussianTorchPolicy.draw_action", "GaussianTorchPolicy.draw_action_t", "GaussianTorchPolicy.log_prob_t",
    "GaussianTorchPolicy.entropy_t", "GaussianTorchPolicy.distribution", "GaussianTorchPolicy.call",
    "BoltzmannTorchPolicy.draw_action", "BoltzmannTorchPolicy.draw_action_t", "BoltzmannTorchPolicy.log_prob_t",
    "BoltzmannTorchPolicy.entropy_t", "SACPolicy.compute_action_and_log_prob_t", "SACPolicy.draw_action",
    "SACPolicy.compute_action_and_log_prob", "SACPolicy.entropy", "EpsGreedy.draw_action",
    "EpsGreedy.draw_action.greedy", "EpsGreedy.call", "Boltzmann.draw_action", "Boltzmann.call",
    "OrnsteinUhlenbeckPolicy.draw_action",
)
AGENTS = (
    "DQN.fit", "DQN.fit.prioritized", "DQN.fit.clip_reward", "DQN.draw_action", "DoubleDQN.fit", "AveragedDQN.fit",
    "MaxminDQN.fit", "DuelingDQN.fit", "NoisyDQN.fit", "CategoricalDQN.fit", "QuantileDQN.fit", "Rainbow.fit",
    "SAC.fit", "SAC.loss", "SAC.draw_action", "DDPG.fit", "DDPG.loss", "DDPG.draw_action", "TD3.fit", "TD3.loss",
    "A2C.fit", "A2C.fit.boltzmann", "A2C.loss", "PPO.fit", "PPO.fit.boltzmann", "PPO.update_policy",
    "TRPO.fit.boltzmann", "TRPO.compute_loss", "TRPO.fisher_vector_product.boltzmann", "Core.evaluate.DQN.CartPole",
    "Core.learn.PPO.LQR", "Core.learn.A2C.boltzmann.CartPole",
)


def names() -> list[str]:
    return list(NETWORKS) + list(APPROXIMATORS) + list(UTILS) + list(POLICIES) + list(AGENTS)


# --- users' networks, as MushroomRL's examples write them --------------------------------------------------------

def _nets() -> Any:
    """The small networks a MushroomRL user hands to ``TorchApproximator`` (classes built on first use, so that
    ``names()`` needs no torch)."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    class QNetwork(nn.Module):
        """An MLP over the state; with an action, the Q value of that action (the examples' ``Network``)."""

        def __init__(self, input_shape: tuple[int, ...], output_shape: tuple[int, ...], n_features: int,
                     **kwargs: Any) -> None:
            super().__init__()
            self._h1 = nn.Linear(input_shape[-1], n_features)
            self._h2 = nn.Linear(n_features, n_features)
            self._h3 = nn.Linear(n_features, output_shape[0])

        def forward(self, state: torch.Tensor, action: torch.Tensor | None = None) -> torch.Tensor:
            h = F.relu(self._h1(state.float()))
            q = self._h3(F.relu(self._h2(h)))
            if action is None:
                return q
            return torch.squeeze(q.gather(1, action.long()))

    class Features(nn.Module):
        """The feature extractor the distributional, noisy and dueling heads sit on."""

        def __init__(self, input_shape: tuple[int, ...], output_shape: tuple[int, ...], n_features: int,
                     **kwargs: Any) -> None:
            super().__init__()
            self._h1 = nn.Linear(input_shape[-1], n_features)
            self._h2 = nn.Linear(n_features, output_shape[0])

        def forward(self, state: torch.Tensor) -> torch.Tensor:
            return F.relu(self._h2(F.relu(self._h1(state.float()))))

    class Actor(nn.Module):
        """A state to action (or value) MLP: DDPG's and SAC's actors, A2C's / PPO's means and critics."""

        def __init__(self, input_shape: tuple[int, ...], output_shape: tuple[int, ...], n_features: int,
                     squash: bool = False, **kwargs: Any) -> None:
            super().__init__()
            self._h1 = nn.Linear(input_shape[-1], n_features)
            self._h2 = nn.Linear(n_features, output_shape[0])
            self._squash = squash

        def forward(self, state: torch.Tensor) -> torch.Tensor:
            out = self._h2(F.relu(self._h1(torch.squeeze(state, 1).float())))
            return torch.tanh(out) if self._squash else out

    class Critic(nn.Module):
        """Q(state, action) over their concatenation (DDPG's, TD3's and SAC's critics)."""

        def __init__(self, input_shape: tuple[int, ...], output_shape: tuple[int, ...], n_features: int,
                     **kwargs: Any) -> None:
            super().__init__()
            self._h1 = nn.Linear(input_shape[-1], n_features)
            self._h2 = nn.Linear(n_features, output_shape[0])

        def forward(self, state: torch.Tensor, action: torch.Tensor) -> torch.Tensor:
            h = F.relu(self._h1(torch.cat((state.float(), action.float()), dim=1)))
            return torch.squeeze(self._h2(h))

    return QNetwork, Features, Actor, Critic


def _holder(owner: Any, run: Any, entries: list[Any], extra: list[Any] | None = None) -> Any:
    """A bench module whose forward is ``run(owner, *inputs)``; the torch modules found in ``owner`` (its
    regressors' networks) become submodules, so that the harness's train / eval switch and parameter count reach
    them."""
    from torch import nn

    class _Holder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.nets = nn.ModuleList(_modules_in(owner) + list(extra or []))
            self.__dict__["owner"] = owner
            self.__dict__["run_"] = run
            self.__dict__["entries"] = entries

        def forward(self, *inputs: Any) -> Any:
            return self.run_(self.owner, *inputs)

        def entry_points(self) -> list[Any]:
            return self.entries

    return _Holder()


def _modules_in(root: Any) -> list[Any]:
    """The initialized ``nn.Module``s reachable from ``root`` through MushroomRL objects, lists and dicts."""
    from torch import nn

    found: list[Any] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, nn.Module):
            if "_modules" in item.__dict__ and all(item is not f for f in found):
                found.append(item)
            continue
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif type(item).__module__.startswith("mushroom_rl") and hasattr(item, "__dict__"):
            stack.extend(vars(item).values())
    return found


def _seed() -> None:
    import numpy as np
    import torch

    torch.manual_seed(0)
    np.random.seed(0)


def _states(rows: int = BATCH, seed: int = 1) -> Any:
    import numpy as np

    return np.random.default_rng(seed).uniform(-1, 1, (rows, OBS)).astype(np.float32)


def _tstates(rows: int = BATCH, seed: int = 1) -> Any:
    import torch

    return torch.from_numpy(_states(rows, seed))


def _actions(rows: int = BATCH, seed: int = 2) -> Any:
    import numpy as np

    return np.random.default_rng(seed).integers(0, N_ACTIONS, (rows, 1))


def _adam() -> dict[str, Any]:
    import torch

    return {"class": torch.optim.Adam, "params": {"lr": 1e-3}}


# --- networks ----------------------------------------------------------------------------------------------------

def _network(kind: str) -> Any:
    from mushroom_rl.algorithms.value.dqn.categorical_dqn import CategoricalNetwork
    from mushroom_rl.algorithms.value.dqn.dueling_dqn import DuelingNetwork
    from mushroom_rl.algorithms.value.dqn.noisy_dqn import NoisyNetwork
    from mushroom_rl.algorithms.value.dqn.quantile_dqn import QuantileNetwork
    from mushroom_rl.algorithms.value.dqn.rainbow import RainbowNetwork

    _, features, _, _ = _nets()
    common = {"input_shape": (OBS,), "output_shape": (N_ACTIONS,), "features_network": features,
              "n_features": FEAT, "dropout": False}
    if kind == "CategoricalNetwork":
        return CategoricalNetwork(n_atoms=5, v_min=-2.0, v_max=2.0, use_cuda=False, **common)
    if kind == "QuantileNetwork":
        return QuantileNetwork(n_quantiles=5, use_cuda=False, **common)
    if kind == "NoisyNetwork":
        return NoisyNetwork(use_cuda=False, **common)
    if kind == "DuelingNetwork":
        return DuelingNetwork(avg_advantage=True, use_cuda=False, **common)
    return RainbowNetwork(n_atoms=5, v_min=-2.0, v_max=2.0, use_cuda=False, sigma_coeff=0.5, **common)


def _set_tau_hat(n_quantiles: int = 5) -> None:
    """``QuantileDQN.__init__`` sets the class attribute ``tau_hat`` its loss reads; set it the same way."""
    import torch
    from mushroom_rl.algorithms.value.dqn.quantile_dqn import QuantileDQN

    tau = torch.arange(n_quantiles + 1) / n_quantiles
    QuantileDQN.tau_hat = (tau[:-1] + tau[1:]) / 2


def _networks(name: str) -> Built:
    import numpy as np
    import torch
    import torch.nn.functional as F
    from mushroom_rl.algorithms.value.dqn.categorical_dqn import categorical_loss
    from mushroom_rl.algorithms.value.dqn.noisy_dqn import NoisyNetwork
    from mushroom_rl.algorithms.value.dqn.quantile_dqn import quantile_huber_loss
    from mushroom_rl.features import Features
    from mushroom_rl.features.tensors import (ConstantTensor, GaussianRBFTensor, RandomFourierBasis,
                                              VonMisesBFTensor)

    from gt_calls import Call, Keywords, OptimizerStep, Run

    state = _tstates()
    action = torch.from_numpy(_actions())
    kind, _, rest = name.partition(".")
    if kind in ("CategoricalNetwork", "QuantileNetwork", "NoisyNetwork", "DuelingNetwork", "RainbowNetwork"):
        net = _network(kind)
        if rest == "train_step":
            optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
            if kind in ("CategoricalNetwork", "RainbowNetwork"):
                target = torch.softmax(torch.randn(BATCH, 5, generator=torch.Generator().manual_seed(3)), -1)

                def loss(s: Any, a: Any) -> Any:
                    return categorical_loss(net(s, a, get_distribution=True), target)
            elif kind == "QuantileNetwork":
                _set_tau_hat()
                target = torch.randn(BATCH, 5, generator=torch.Generator().manual_seed(3))

                def loss(s: Any, a: Any) -> Any:
                    return quantile_huber_loss(net(s, a, get_quantiles=True), target)
            else:
                target = torch.randn(BATCH, generator=torch.Generator().manual_seed(3))

                def loss(s: Any, a: Any) -> Any:
                    return F.smooth_l1_loss(net(s, a), target)

            class _Step(OptimizerStep):
                def entry_points(self) -> list[Any]:
                    return [type(net), type(optimizer).step]

            return _Step(net, optimizer, loss), (state, action), {}
        keywords: dict[str, Any] = {}
        if "distribution" in rest:
            keywords["get_distribution"] = True
        if "quantiles" in rest:
            keywords["get_quantiles"] = True
        args = (state, action) if rest.endswith("action") else (state,)
        return Keywords(net, **keywords), args, {}
    if kind == "NoisyLinear":
        layer = NoisyNetwork.NoisyLinear(OBS, FEAT, False, bias=rest != "no_bias")
        return layer, (state,), {}
    if kind == "categorical_loss":
        probs = torch.softmax(torch.randn(BATCH, 5, generator=torch.Generator().manual_seed(4)), -1)
        target = torch.softmax(torch.randn(BATCH, 5, generator=torch.Generator().manual_seed(5)), -1)
        static = {"reduction": "none"} if rest == "none" else {}
        return Call(categorical_loss, **static), (probs, target), {}
    if kind == "quantile_huber_loss":
        _set_tau_hat()
        quantiles = torch.randn(BATCH, 5, generator=torch.Generator().manual_seed(4))
        return Call(quantile_huber_loss), (quantiles, torch.randn(BATCH, 5)), {}
    low, high = -np.ones(OBS), np.ones(OBS)
    if kind in ("GaussianRBFTensor", "VonMisesBFTensor", "RandomFourierBasis", "TorchFeatures"):
        from torch import nn

        def initialized(tensors: list[Any]) -> list[Any]:
            """The feature tensors' constructors skip ``nn.Module.__init__``, and Dynamo fails with an internal
            error on such a module: run it here, keeping the attributes the constructor set."""
            for tensor in tensors:
                kept = dict(vars(tensor))
                nn.Module.__init__(tensor)
                vars(tensor).update(kept)
            return tensors
    if kind in ("GaussianRBFTensor", "VonMisesBFTensor"):
        cls = GaussianRBFTensor if kind == "GaussianRBFTensor" else VonMisesBFTensor
        if rest == "dimensions":
            tensors = initialized(cls.generate([3, 2], low[:2], high[:2], dimensions=[0, 2]))
        else:
            tensors = initialized(cls.generate([2, 2, 2, 2], low, high, normalized=rest == "normalized"))
        return Run(tensors[0], lambda basis, x: basis.forward(x), [cls.forward]), (state,), {}
    if kind == "RandomFourierBasis":
        tensors = initialized(RandomFourierBasis.generate(0.5, 6, OBS))
        return Run(tensors, lambda basis, x: torch.cat([t.forward(x) for t in basis], 1),
                   [RandomFourierBasis.forward, ConstantTensor.forward]), (state,), {}
    if kind == "ConstantTensor":
        return ConstantTensor(), (state,), {}
    # TorchFeatures: NumPy in, NumPy out, through the tensors.
    phi = Features(tensor_list=initialized(GaussianRBFTensor.generate([2, 2, 2, 2], low, high)
                                           + RandomFourierBasis.generate(0.5, 4, OBS)))
    inputs = _states() if rest == "batch" else _states()[0]
    return Run(phi, lambda features, x: features(x), [type(phi).__call__]), (inputs,), {}


# --- approximators -----------------------------------------------------------------------------------------------

def _regressor(kind: str, **extra: Any) -> Any:
    import torch.nn.functional as F
    from mushroom_rl.approximators import Regressor
    from mushroom_rl.approximators.parametric import TorchApproximator

    qnet, _, actor, critic = _nets()
    params: dict[str, Any] = {"n_features": FEAT, "optimizer": _adam(), "loss": F.mse_loss}
    params.update(extra)
    if kind == "generic":
        return Regressor(TorchApproximator, (OBS,), (ACT,), network=actor, **params)
    if kind == "value":
        return Regressor(TorchApproximator, (OBS,), (1,), network=actor, **params)
    if kind == "two_inputs":
        return Regressor(TorchApproximator, (OBS + ACT,), (1,), network=critic, **params)
    if kind == "q":
        return Regressor(TorchApproximator, (OBS,), (N_ACTIONS,), n_actions=N_ACTIONS, network=qnet, **params)
    if kind == "action":
        return Regressor(TorchApproximator, (OBS,), (1,), n_actions=N_ACTIONS, network=actor, **params)
    return Regressor(TorchApproximator, (OBS,), (ACT,), n_models=3, network=actor, **params)


def _with_grad(function: Any) -> Any:
    """``function`` run with gradients enabled (a training step inside the harness's ``no_grad`` pass)."""
    import torch

    def run(*args: Any) -> Any:
        with torch.enable_grad():
            return function(*args)

    return run


def _approximators(name: str) -> Built:
    import numpy as np
    from mushroom_rl.approximators import Regressor
    from mushroom_rl.approximators._implementations.action_regressor import ActionRegressor
    from mushroom_rl.approximators._implementations.ensemble import Ensemble
    from mushroom_rl.approximators._implementations.q_regressor import QRegressor
    from mushroom_rl.approximators.parametric import TorchApproximator

    x = _states()
    rng = np.random.default_rng(7)
    y = rng.standard_normal((BATCH, ACT)).astype(np.float32)
    q = rng.standard_normal(BATCH).astype(np.float32)
    weights = rng.uniform(0.1, 1.0, BATCH).astype(np.float32)
    fit = _with_grad
    predict_entries = [Regressor.predict, TorchApproximator.predict]
    fit_entries = [Regressor.fit, TorchApproximator.fit]
    kind, method = name.split(".", 1)
    if kind == "Regressor":
        if method.startswith("two_inputs"):
            reg = _regressor("two_inputs")
            a = rng.uniform(-1, 1, (BATCH, ACT)).astype(np.float32)
            if method.endswith("predict"):
                return _holder(reg, lambda r, s, u: r.predict(s, u), predict_entries), (x, a), {}
            return _holder(reg, fit(lambda r, s, u, t: r.fit(s, u, t)), fit_entries), (x, a, q), {}
        reg = _regressor("generic", batch_size=4 if method == "fit.minibatch" else 0)
        runs: dict[str, tuple[Any, tuple[Any, ...], list[Any]]] = {
            "predict": (lambda r, s: r.predict(s), (x,), predict_entries),
            "predict.one_state": (lambda r, s: r.predict(s), (x[0],), predict_entries),
            "predict.output_tensor": (lambda r, s: r.predict(s, output_tensor=True), (_tstates(),), predict_entries),
            "call": (lambda r, s: r(s), (x,), [Regressor.__call__, TorchApproximator.predict]),
            "fit": (fit(lambda r, s, t: r.fit(s, t)), (x, y), fit_entries),
            "fit.minibatch": (fit(lambda r, s, t: r.fit(s, t)), (x, y), fit_entries),
            "fit.n_epochs": (fit(lambda r, s, t: r.fit(s, t, n_epochs=2)), (x, y), fit_entries),
            "fit.early_stopping": (fit(lambda r, s, t: r.fit(s, t, n_epochs=3, epsilon=1e-4, patience=1,
                                                             validation_split=0.75)), (x, y), fit_entries),
            "diff": (fit(lambda r, s: r.diff(s)), (x[0],), [TorchApproximator.diff]),
            "get_weights": (lambda r: r.get_weights(), (), [TorchApproximator.get_weights]),
            "set_weights": (lambda r, w: r.set_weights(w), (np.linspace(-0.5, 0.5, reg.weights_size),),
                            [TorchApproximator.set_weights]),
        }
        run, args, entries = runs[method]
        return _holder(reg, run, entries), args, {}
    a = _actions()
    if kind == "QRegressor":
        reg = _regressor("q")
        entries = [QRegressor.predict, TorchApproximator.predict]
        if method == "predict":
            return _holder(reg, lambda r, s: r.predict(s), entries), (x,), {}
        if method == "predict.action":
            return _holder(reg, lambda r, s, u: r.predict(s, u), entries), (x, a), {}
        if method == "predict.action.output_tensor":
            import torch

            return (_holder(reg, lambda r, s, u: r.predict(s, u, output_tensor=True), entries),
                    (_tstates(), torch.from_numpy(a)), {})
        if method == "diff":
            return _holder(reg, fit(lambda r, s, u: r.diff(s, u)), [QRegressor.diff]), (x[0], a[0]), {}
        if method == "fit.weights":
            return (_holder(reg, fit(lambda r, s, u, t, w: r.fit(s, u, t, weights=w)), [QRegressor.fit]),
                    (x, a, q, weights), {})
        return _holder(reg, fit(lambda r, s, u, t: r.fit(s, u, t)), [QRegressor.fit]), (x, a, q), {}
    if kind == "ActionRegressor":
        reg = _regressor("action")
        entries = [ActionRegressor.predict, TorchApproximator.predict]
        if method == "predict":
            return _holder(reg, lambda r, s: r.predict(s), entries), (x,), {}
        if method == "predict.action":
            return _holder(reg, lambda r, s, u: r.predict(s, u), entries), (x, a), {}
        return (_holder(reg, fit(lambda r, s, u, t: r.fit(s, u, t)), [ActionRegressor.fit]),
                (x, a, q[:, None]), {})
    reg = _regressor("ensemble")
    entries = [Ensemble.predict, TorchApproximator.predict]
    if method.startswith("predict."):
        how = method.split(".", 1)[1]
        if how in ("mean", "sum", "min", "max"):
            return _holder(reg, lambda r, s: r.predict(s, prediction=how), entries), (x,), {}
        if how == "idx":
            return _holder(reg, lambda r, s: r.predict(s, idx=1), entries), (x,), {}
        if how == "variance":
            return _holder(reg, lambda r, s: r.predict(s, compute_variance=True), entries), (x,), {}
        return _holder(reg, lambda r, s: r.predict(s, output_tensor=True), entries), (_tstates(),), {}
    if method == "fit.idx":
        return _holder(reg, fit(lambda r, s, t: r.fit(s, t, idx=2)), [Ensemble.fit]), (x, y), {}
    return _holder(reg, fit(lambda r, s, t: r.fit(s, t)), [Ensemble.fit]), (x, y), {}


# --- utils -------------------------------------------------------------------------------------------------------

def _utils(name: str) -> Built:
    import numpy as np
    import torch
    from mushroom_rl.utils import torch as mtorch
    from mushroom_rl.utils import value_functions

    from gt_calls import Call

    _, _, actor, _ = _nets()
    net = actor((OBS,), (ACT,), FEAT)
    function = name.rsplit(".", 1)[-1]
    if function == "get_weights":
        return _holder(net, lambda n: mtorch.get_weights(n.parameters()), [mtorch.get_weights]), (), {}
    if function == "set_weights":
        size = sum(p.numel() for p in net.parameters())
        return (_holder(net, lambda n, w: mtorch.set_weights(n.parameters(), w, False), [mtorch.set_weights]),
                (np.linspace(-0.3, 0.3, size).astype(np.float32),), {})
    if function in ("zero_grad", "get_gradient"):
        def step(n: Any, s: Any) -> Any:
            with torch.enable_grad():
                n(s).pow(2).mean().backward()
            if function == "zero_grad":
                mtorch.zero_grad(n.parameters())
                return None
            return mtorch.get_gradient(n.parameters())

        entry = mtorch.zero_grad if function == "zero_grad" else mtorch.get_gradient
        return _holder(net, step, [entry]), (_tstates(),), {}
    if function == "to_float_tensor":
        return Call(mtorch.to_float_tensor), (_states().astype(np.float64),), {}
    if function == "to_int_tensor":
        return Call(mtorch.to_int_tensor), (_actions(),), {}
    if name == "CategoricalWrapper.log_prob":
        def categorical(logits: Any, actions: Any) -> Any:
            return mtorch.CategoricalWrapper(logits).log_prob(actions)

        return (Call(categorical), (torch.randn(BATCH, N_ACTIONS), torch.from_numpy(_actions())), {})
    if name == "DiagonalMultivariateGaussian.log_prob":
        def gaussian(loc: Any, scale: Any, value: Any) -> Any:
            return mtorch.DiagonalMultivariateGaussian(loc, scale).log_prob(value)

        return Call(gaussian), (torch.randn(BATCH, ACT), torch.rand(BATCH, ACT) + 0.5, torch.randn(BATCH, ACT)), {}
    critic = _regressor("value")
    rng = np.random.default_rng(9)
    s, ss = _states(seed=3), _states(seed=4)
    r = rng.standard_normal(BATCH)
    absorbing = np.zeros(BATCH)
    absorbing[-1] = 1
    last = np.zeros(BATCH)
    last[[3, -1]] = 1
    if function == "compute_gae":
        return (_holder(critic, lambda v, *a: value_functions.compute_gae(v, *a, 0.99, 0.95),
                        [value_functions.compute_gae]), (s, ss, r, absorbing, last), {})
    entry = getattr(value_functions, function)
    return _holder(critic, lambda v, *a: entry(v, *a, 0.99), [entry]), (s, ss, r, absorbing), {}


# --- policies ----------------------------------------------------------------------------------------------------

def _policies(name: str) -> Built:
    import numpy as np
    import torch
    from mushroom_rl.algorithms.actor_critic.deep_actor_critic.sac import SACPolicy
    from mushroom_rl.policy import (Boltzmann, BoltzmannTorchPolicy, ClippedGaussianPolicy, EpsGreedy,
                                    GaussianTorchPolicy, OrnsteinUhlenbeckPolicy)
    from mushroom_rl.utils.parameters import Parameter

    _, _, actor, _ = _nets()
    kind, method = name.split(".", 1)
    s, st = _states(), _tstates()
    if kind in ("GaussianTorchPolicy", "BoltzmannTorchPolicy"):
        if kind == "GaussianTorchPolicy":
            policy: Any = GaussianTorchPolicy(actor, (OBS,), (ACT,), std_0=0.5, n_features=FEAT)
            actions = torch.randn(BATCH, ACT, generator=torch.Generator().manual_seed(5))
        else:
            policy = BoltzmannTorchPolicy(actor, (OBS,), (N_ACTIONS,), beta=Parameter(1.5), n_features=FEAT)
            actions = torch.from_numpy(_actions()).float()
        cls = type(policy)
        runs: dict[str, tuple[Any, tuple[Any, ...], Any]] = {
            "draw_action": (lambda p, x: p.draw_action(x), (s[0],), cls.draw_action),
            "draw_action_t": (lambda p, x: p.draw_action_t(x), (st,), cls.draw_action_t),
            "log_prob_t": (lambda p, x, u: p.log_prob_t(x, u), (st, actions), cls.log_prob_t),
            "entropy_t": (lambda p, x: p.entropy_t(x), (st,), cls.entropy_t),
            "distribution": (lambda p, x: p.distribution(x).log_prob(p.distribution(x).mean), (s,),
                             cls.distribution),
            "call": (lambda p, x, u: p(x, u), (s[0], actions[0].numpy()), cls.__call__),
        }
        run, args, entry = runs[method]
        return _holder(policy, run, [entry]), args, {}
    if kind == "SACPolicy":
        mu, sigma = _regressor("generic"), _regressor("generic")
        policy = SACPolicy(mu, sigma, -np.ones(ACT), np.ones(ACT), -20.0, 2.0)
        runs = {
            "compute_action_and_log_prob_t": (lambda p, x: p.compute_action_and_log_prob_t(x), (s,),
                                              SACPolicy.compute_action_and_log_prob_t),
            "draw_action": (lambda p, x: p.draw_action(x), (s[0],), SACPolicy.draw_action),
            "compute_action_and_log_prob": (lambda p, x: p.compute_action_and_log_prob(x), (s,),
                                            SACPolicy.compute_action_and_log_prob),
            "entropy": (lambda p, x: p.entropy(x), (s,), SACPolicy.entropy),
        }
        run, args, entry = runs[method]
        return _holder(policy, run, [entry]), args, {}
    if kind in ("EpsGreedy", "Boltzmann"):
        policy = EpsGreedy(Parameter(0.0 if method.endswith("greedy") else 0.2)) if kind == "EpsGreedy" \
            else Boltzmann(Parameter(2.0))
        policy.set_q(_regressor("q"))
        if method == "call":
            return _holder(policy, lambda p, x: p(x), [type(policy).__call__]), (s[0],), {}
        return _holder(policy, lambda p, x: p.draw_action(x), [type(policy).draw_action]), (s[0],), {}
    mu = _regressor("generic")
    if kind == "OrnsteinUhlenbeckPolicy":
        policy = OrnsteinUhlenbeckPolicy(mu, sigma=0.2 * np.ones(ACT), theta=0.15, dt=1e-2)
        policy.reset()
    else:
        policy = ClippedGaussianPolicy(mu, 0.1 * np.eye(ACT), -np.ones(ACT), np.ones(ACT))
    return _holder(policy, lambda p, x: p.draw_action(x), [type(policy).draw_action]), (s[0],), {}


# --- agents ------------------------------------------------------------------------------------------------------

def _mdp_info(continuous: bool) -> Any:
    import numpy as np
    from mushroom_rl.core import MDPInfo
    from mushroom_rl.utils.spaces import Box, Discrete

    action_space = Box(-np.ones(ACT), np.ones(ACT)) if continuous else Discrete(N_ACTIONS)
    return MDPInfo(Box(-np.ones(OBS), np.ones(OBS)), action_space, 0.99, 100)


def _dataset(continuous: bool, seed: int = 11) -> list[tuple[Any, ...]]:
    """``N_TRANSITIONS`` transitions of two episodes, as ``Core`` collects them; the absorbing and last flags are
    floats (Dynamo's tracing of NumPy turns a bool array into a bool tensor, and ``1 - absorbing`` then fails)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    states = rng.uniform(-1, 1, (N_TRANSITIONS + 1, OBS))
    dataset = []
    for i in range(N_TRANSITIONS):
        action = rng.uniform(-1, 1, ACT) if continuous else np.array([rng.integers(N_ACTIONS)])
        end = i in (N_TRANSITIONS // 2 - 1, N_TRANSITIONS - 1)
        dataset.append((states[i], action, float(rng.standard_normal()), states[i + 1],
                        float(i == N_TRANSITIONS - 1), float(end)))
    return dataset


def _dqn(kind: str) -> Any:
    import torch.nn.functional as F
    from mushroom_rl.algorithms.value import dqn
    from mushroom_rl.approximators.parametric import TorchApproximator
    from mushroom_rl.policy import EpsGreedy
    from mushroom_rl.utils.parameters import Parameter
    from mushroom_rl.utils.replay_memory import PrioritizedReplayMemory

    qnet, features, _, _ = _nets()
    policy = EpsGreedy(Parameter(0.1))
    params = {"input_shape": (OBS,), "output_shape": (N_ACTIONS,), "n_actions": N_ACTIONS, "n_features": FEAT,
              "optimizer": _adam(), "loss": F.smooth_l1_loss, "use_cuda": False}
    common: dict[str, Any] = {"batch_size": BATCH, "target_update_frequency": 1, "initial_replay_size": BATCH,
                              "max_replay_size": 64}
    info = _mdp_info(False)
    if kind in ("DQN", "DQN.prioritized", "DQN.clip_reward", "DoubleDQN"):
        if kind == "DQN.prioritized":
            common["replay_memory"] = PrioritizedReplayMemory(BATCH, 64, alpha=0.6, beta=Parameter(0.4))
        if kind == "DQN.clip_reward":
            common["clip_reward"] = True
        cls = dqn.DoubleDQN if kind == "DoubleDQN" else dqn.DQN
        return cls(info, policy, TorchApproximator, approximator_params=dict(params, network=qnet), **common)
    if kind in ("AveragedDQN", "MaxminDQN"):
        return getattr(dqn, kind)(info, policy, TorchApproximator, n_approximators=2,
                                  approximator_params=dict(params, network=qnet), **common)
    params["network"] = features
    if kind == "DuelingDQN":
        return dqn.DuelingDQN(info, policy, approximator_params=params, **common)
    if kind == "NoisyDQN":
        return dqn.NoisyDQN(info, policy, approximator_params=params, **common)
    if kind == "CategoricalDQN":
        return dqn.CategoricalDQN(info, policy, approximator_params=params, n_atoms=5, v_min=-2.0, v_max=2.0,
                                  **common)
    if kind == "QuantileDQN":
        return dqn.QuantileDQN(info, policy, approximator_params=params, n_quantiles=5, **common)
    return dqn.Rainbow(info, policy, approximator_params=params, n_atoms=5, v_min=-2.0, v_max=2.0,
                       n_steps_return=2, alpha_coeff=0.6, beta=Parameter(0.4), **common)


def _sac(info: Any = None) -> Any:
    import torch.nn.functional as F
    from mushroom_rl.algorithms.actor_critic import SAC

    _, _, actor, critic = _nets()
    info = info or _mdp_info(True)
    obs, act = info.observation_space.shape[0], info.action_space.shape[0]
    actor_params = {"network": actor, "input_shape": (obs,), "output_shape": (act,), "n_features": FEAT,
                    "use_cuda": False}
    critic_params = {"network": critic, "input_shape": (obs + act,), "output_shape": (1,), "n_features": FEAT,
                     "optimizer": _adam(), "loss": F.mse_loss}
    return SAC(info, actor_params, dict(actor_params), _adam(), critic_params, batch_size=BATCH,
               initial_replay_size=BATCH, max_replay_size=64, warmup_transitions=BATCH, tau=0.005, lr_alpha=3e-4)


def _ddpg(kind: str) -> Any:
    import numpy as np
    import torch.nn.functional as F
    from mushroom_rl.algorithms.actor_critic import DDPG, TD3
    from mushroom_rl.policy import ClippedGaussianPolicy, OrnsteinUhlenbeckPolicy

    _, _, actor, critic = _nets()
    info = _mdp_info(True)
    actor_params = {"network": actor, "input_shape": (OBS,), "output_shape": (ACT,), "n_features": FEAT,
                    "squash": True}
    critic_params = {"network": critic, "input_shape": (OBS + ACT,), "output_shape": (1,), "n_features": FEAT,
                     "optimizer": _adam(), "loss": F.mse_loss}
    common = {"batch_size": BATCH, "initial_replay_size": BATCH, "max_replay_size": 64, "tau": 0.005}
    if kind == "DDPG":
        return DDPG(info, OrnsteinUhlenbeckPolicy, {"sigma": 0.2 * np.ones(ACT), "theta": 0.15, "dt": 1e-2},
                    actor_params, _adam(), critic_params, **common)
    return TD3(info, ClippedGaussianPolicy, {"sigma": 0.1 * np.eye(ACT), "low": -np.ones(ACT), "high": np.ones(ACT)},
               actor_params, _adam(), critic_params, **common)


def _on_policy(kind: str, boltzmann: bool, info: Any = None) -> Any:
    import torch
    import torch.nn.functional as F
    from mushroom_rl.algorithms.actor_critic import A2C, PPO, TRPO
    from mushroom_rl.policy import BoltzmannTorchPolicy, GaussianTorchPolicy

    _, _, actor, _ = _nets()
    info = info or _mdp_info(not boltzmann)
    obs = info.observation_space.shape
    if boltzmann:
        policy: Any = BoltzmannTorchPolicy(actor, obs, (info.action_space.n,), beta=1.0, n_features=FEAT)
    else:
        policy = GaussianTorchPolicy(actor, obs, info.action_space.shape, std_0=0.5, n_features=FEAT)
    critic_params = {"network": actor, "input_shape": obs, "output_shape": (1,), "n_features": FEAT,
                     "optimizer": _adam(), "loss": F.mse_loss}
    fit_params = {"n_epochs": 1}
    if kind == "A2C":
        return A2C(info, policy, {"class": torch.optim.RMSprop, "params": {"lr": 7e-4}}, critic_params,
                   ent_coeff=0.01, max_grad_norm=0.5, critic_fit_params=fit_params)
    if kind == "PPO":
        return PPO(info, policy, _adam(), critic_params, n_epochs_policy=2, batch_size=BATCH, eps_ppo=0.2,
                   lam=0.95, ent_coeff=0.01, critic_fit_params=fit_params)
    return TRPO(info, policy, critic_params, ent_coeff=0.0, max_kl=0.01, lam=0.95, n_epochs_line_search=3,
                n_epochs_cg=3, critic_fit_params=fit_params)


def _core(name: str) -> Built:
    import torch.nn.functional as F
    from mushroom_rl.algorithms.value import DQN
    from mushroom_rl.approximators.parametric import TorchApproximator
    from mushroom_rl.core import Core
    from mushroom_rl.environments import LQR, CartPole
    from mushroom_rl.policy import EpsGreedy
    from mushroom_rl.utils.parameters import Parameter

    if name.endswith("LQR"):
        mdp = LQR.generate(dimensions=2, horizon=8)
        agent = _on_policy("PPO", False, mdp.info)
    elif ".A2C." in name:
        mdp = CartPole(horizon=8)
        agent = _on_policy("A2C", True, mdp.info)
    else:
        mdp = CartPole(horizon=8)
        qnet, _, _, _ = _nets()
        obs, n = mdp.info.observation_space.shape, mdp.info.action_space.n
        params = {"network": qnet, "input_shape": obs, "output_shape": (n,), "n_actions": n, "n_features": FEAT,
                  "optimizer": _adam(), "loss": F.smooth_l1_loss}
        agent = DQN(mdp.info, EpsGreedy(Parameter(0.1)), TorchApproximator, approximator_params=params,
                    batch_size=4, target_update_frequency=2, initial_replay_size=4, max_replay_size=32)
    core = Core(agent, mdp)
    if ".evaluate." in name:
        return (_holder(core, lambda c: c.evaluate(n_steps=8, quiet=True), [Core.evaluate], []), (), {})
    return (_holder(core, _with_grad(lambda c: c.learn(n_steps=8, n_steps_per_fit=8, quiet=True)), [Core.learn]),
            (), {})


def _agents(name: str) -> Built:
    import numpy as np
    import torch
    from mushroom_rl.algorithms.actor_critic import A2C, PPO, SAC, TRPO

    if name.startswith("Core."):
        return _core(name)
    kind, _, method = name.partition(".")
    fit = _with_grad
    if kind.endswith("DQN") or kind == "Rainbow":
        variant = f"DQN.{method.split('.', 1)[1]}" if method.startswith("fit.") else kind
        agent = _dqn(variant)
        if method == "draw_action":
            return _holder(agent, lambda g, s: g.draw_action(s), [type(agent).draw_action]), (_states()[0],), {}
        return _holder(agent, fit(lambda g, d: g.fit(d)), [type(agent).fit]), (_dataset(False),), {}
    continuous = not method.endswith("boltzmann")
    method = method.removesuffix(".boltzmann")
    if kind == "SAC":
        agent = _sac()
    elif kind in ("DDPG", "TD3"):
        agent = _ddpg(kind)
    else:
        agent = _on_policy(kind, not continuous)
    cls = type(agent)
    s = _states()
    if method.startswith("fit"):
        return _holder(agent, fit(lambda g, d: g.fit(d)), [cls.fit]), (_dataset(continuous),), {}
    if method == "draw_action":
        return _holder(agent, lambda g, x: g.draw_action(x), [cls.draw_action]), (s[0],), {}
    rng = np.random.default_rng(12)
    if kind == "SAC":
        def sac_loss(g: Any, x: Any) -> Any:
            with torch.enable_grad():
                action, log_prob = g.policy.compute_action_and_log_prob_t(x)
                loss = g._loss(x, action, log_prob)
                g._optimize_actor_parameters(loss)
                g._update_alpha(log_prob.detach())
            return loss

        return _holder(agent, sac_loss, [SAC._loss, SAC._update_alpha]), (s,), {}
    if kind in ("DDPG", "TD3"):
        def actor_step(g: Any, x: Any) -> Any:
            with torch.enable_grad():
                loss = g._loss(x)
                g._optimize_actor_parameters(loss)
            return loss

        return _holder(agent, actor_step, [cls._loss]), (s,), {}
    act = rng.uniform(-1, 1, (BATCH, ACT)).astype(np.float32) if continuous else _actions().astype(np.float32)
    adv = rng.standard_normal((BATCH, 1)).astype(np.float32)
    if kind == "A2C":
        def a2c_step(g: Any, x: Any, u: Any, a: Any) -> Any:
            with torch.enable_grad():
                loss = g._loss(x, u, a)
                g._optimize_actor_parameters(loss)
            return loss

        return _holder(agent, a2c_step, [A2C._loss]), (s, act, adv), {}
    obs, act_t, adv_t = torch.from_numpy(s), torch.from_numpy(act), torch.from_numpy(adv)
    old_log_p = agent.policy.log_prob_t(obs, act_t).detach()
    if kind == "PPO":
        return (_holder(agent, _with_grad(lambda g, *t: g._update_policy(*t)), [PPO._update_policy]),
                (obs, act_t, adv_t, old_log_p), {})
    if method == "compute_loss":
        return (_holder(agent, lambda g, *t: g._compute_loss(*t), [TRPO._compute_loss]),
                (obs, act_t, adv_t, old_log_p), {})
    with torch.no_grad():  # the old policy's distribution, a constant as in ``TRPO.fit`` (a deep copy's)
        old_dist = agent.policy.distribution_t(obs)
    size = sum(p.numel() for p in agent.policy.parameters())
    direction = torch.linspace(-1, 1, size)
    return (_holder(agent, _with_grad(lambda g, p, x: g._fisher_vector_product_t(p, x, old_dist)),
                    [TRPO._fisher_vector_product_t]), (direction, obs), {})


def build(name: str) -> Built:
    _seed()
    if name in NETWORKS:
        return _networks(name)
    if name in APPROXIMATORS:
        return _approximators(name)
    if name in UTILS:
        return _utils(name)
    if name in POLICIES:
        return _policies(name)
    if name in AGENTS:
        return _agents(name)
    raise KeyError(name)
