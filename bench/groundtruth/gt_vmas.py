"""Ground-truth bench, vmas: vectorized multi-agent environments, their physics, sensors, controllers and policies.

VMAS simulates batches of 2-D multi-agent worlds in torch. ``make_env`` wraps a ``BaseScenario`` in an
``Environment`` whose ``step`` turns each agent's actions (continuous, discrete or multi-discrete) into
forces, lets the scenario process them, advances the ``World`` (action, friction, gravity, drag,
vectorized collision and joint forces, integration) and then gathers the scenario's observations,
rewards, dones and infos. Scenarios add ``Lidar`` sensors, ``VelocityController`` PIDs, non-holonomic
dynamics (differential drive, kinematic bicycle, drone) and joints. So the tables cover, with two
environments in a batch and few agents:

- ``STEP``: ``Environment.step`` on a spread of the built-in scenarios (navigation, transport, balance,
  wheel, dispersion, flocking, discovery, give_way, passage, dropout, sampling, reverse_transport,
  ball_passage, ball_trajectory, buzz_wire, joint_passage, multi_give_way, wind_flocking, football,
  road_traffic), the MPE ports (simple, spread, tag, adversary, crypto, push, reference,
  speaker_listener, world_comm) and the debug scenarios (diff_drive, drone, kinematic_bicycle,
  vel_control, waterfall, asym_joint, goal, het_mass, line / circle trajectories, pollock), and the
  environment options that change the path: discrete and multi-discrete actions, dict spaces,
  terminated / truncated flags with a horizon, clamped actions, gradients kept through the simulator,
  and a scenario named by string (loaded by ``scenarios.load`` into a module without a name);
- ``ENV_CALLS``: ``reset`` (with infos and dones), ``reset_at``, ``done``, ``get_random_actions``
  (continuous and discrete), ``get_from_scenario``, the gym wrapper's ``step`` and ``reset``;
- ``POLICIES``: the heuristic policies of transport, balance, wheel, flocking and discovery on the
  scenario's observations, alone and driving a step (a scripted rollout), and ``RandomPolicy``
  (navigation's CLF-QP policy needs cvxpy, which is not installed);
- ``PHYSICS``: ``World.step`` after actions are set, ``Lidar.measure`` vectorized and ray by ray,
  ``World.cast_ray`` / ``cast_rays``, ``World.get_distance`` and ``is_overlapping`` between shapes,
  ``VelocityController.process_force``, the ``process_action`` of the ``DiffDrive``, ``Drone`` and
  ``KinematicBicycle`` dynamics, ``TorchUtils`` helpers and ``ScenarioUtils.spawn_entities_randomly``;
- ``TRAIN``: a differentiable rollout step (a linear policy's actions through a ``grad_enabled`` step, the
  negative summed reward as loss).

Nothing is rendered (no pyglet window is opened). Scenarios are imported from ``vmas.scenarios`` and
given to ``make_env`` as instances, as users can; one model passes the name instead. Random actions come
from a fixed seed. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
NUM_ENVS = 2

# Scenario key -> (module under ``vmas.scenarios``, scenario keywords that keep it small).
SCENARIOS: dict[str, tuple[str, dict[str, Any]]] = {
    "navigation": ("navigation", {"n_agents": 2}),
    "transport": ("transport", {"n_agents": 2}),
    "balance": ("balance", {"n_agents": 2}),
    "wheel": ("wheel", {"n_agents": 2}),
    "dispersion": ("dispersion", {"n_agents": 2, "share_reward": True, "penalise_by_time": True}),
    "flocking": ("flocking", {"n_agents": 2, "n_obstacles": 2}),
    "discovery": ("discovery", {"n_agents": 2, "n_targets": 3, "use_agent_lidar": True}),
    "give_way": ("give_way", {}),
    "passage": ("passage", {}),
    "dropout": ("dropout", {"n_agents": 2}),
    "sampling": ("sampling", {"n_agents": 2}),
    "reverse_transport": ("reverse_transport", {"n_agents": 2}),
    "ball_passage": ("ball_passage", {}),
    "ball_trajectory": ("ball_trajectory", {}),
    "buzz_wire": ("buzz_wire", {}),
    "joint_passage": ("joint_passage", {}),
    "joint_passage_size": ("joint_passage_size", {}),
    "multi_give_way": ("multi_give_way", {}),
    "wind_flocking": ("wind_flocking", {}),
    "football": ("football", {"n_blue_agents": 2, "n_red_agents": 2}),
    "road_traffic": ("road_traffic", {"n_agents": 3, "n_nearing_agents_observed": 1}),
    "simple": ("mpe.simple", {}),
    "simple_spread": ("mpe.simple_spread", {"n_agents": 2}),
    "simple_tag": ("mpe.simple_tag", {"num_adversaries": 2}),
    "simple_adversary": ("mpe.simple_adversary", {}),
    "simple_crypto": ("mpe.simple_crypto", {}),
    "simple_push": ("mpe.simple_push", {}),
    "simple_reference": ("mpe.simple_reference", {}),
    "simple_speaker_listener": ("mpe.simple_speaker_listener", {}),
    "simple_world_comm": ("mpe.simple_world_comm", {"num_good_agents": 1, "num_adversaries": 2}),
    "diff_drive": ("debug.diff_drive", {}),
    "drone": ("debug.drone", {}),
    "kinematic_bicycle": ("debug.kinematic_bicycle", {}),
    "vel_control": ("debug.vel_control", {}),
    "waterfall": ("debug.waterfall", {"n_agents": 2}),
    "asym_joint": ("debug.asym_joint", {}),
    "goal": ("debug.goal", {}),
    "het_mass": ("debug.het_mass", {}),
    "line_trajectory": ("debug.line_trajectory", {}),
    "circle_trajectory": ("debug.circle_trajectory", {}),
    "pollock": ("debug.pollock", {"n_agents": 2, "n_lines": 2, "n_boxes": 2, "lidar": True}),
}
# ``Environment.step`` model name -> (scenario key, ``make_env`` keywords, extra scenario keywords).
STEP: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    **{f"step.{key}": (key, {}, {}) for key in SCENARIOS},
    "step.navigation.discrete": ("navigation", {"continuous_actions": False}, {}),
    "step.navigation.multidiscrete": ("navigation", {"continuous_actions": False, "multidiscrete_actions": True},
                                      {}),
    "step.navigation.dict_spaces": ("navigation", {"dict_spaces": True}, {}),
    "step.navigation.terminated_truncated": ("navigation", {"terminated_truncated": True, "max_steps": 5}, {}),
    "step.navigation.max_steps": ("navigation", {"max_steps": 5}, {}),
    "step.navigation.clamp_actions": ("navigation", {"clamp_actions": True}, {}),
    "step.navigation.comms_goals": ("navigation", {}, {"comms_range": 0.5, "observe_all_goals": True,
                                                       "split_goals": True, "shared_rew": False}),
    "step.navigation.scenario_name": ("navigation", {"by_name": True}, {}),
    "step.give_way.box_agents": ("give_way", {}, {"box_agents": True, "use_velocity_controller": False,
                                                  "observe_rel_pos": True, "dt_delay": 1}),
    "step.simple_crypto.discrete": ("simple_crypto", {"continuous_actions": False}, {}),
    "step.simple_world_comm.discrete": ("simple_world_comm", {"continuous_actions": False}, {}),
    "step.football.discrete": ("football", {"continuous_actions": False}, {}),
    "step.waterfall.no_joints": ("waterfall", {}, {"joints": False}),
}
ENV_CALLS = ("reset.navigation", "reset.navigation.info_dones", "reset.football", "reset.flocking",
             "reset.road_traffic", "reset_at.navigation", "reset_at.transport", "done.navigation",
             "done.terminated_truncated", "get_random_actions.navigation", "get_random_actions.discrete",
             "get_from_scenario.navigation", "GymWrapper.step", "GymWrapper.reset")
POLICIES = ("HeuristicPolicy.transport", "HeuristicPolicy.balance",
            "HeuristicPolicy.wheel", "HeuristicPolicy.flocking", "HeuristicPolicy.discovery",
            "rollout.transport", "rollout.flocking", "RandomPolicy")
PHYSICS = ("World.step.navigation", "World.step.waterfall", "Lidar.measure", "Lidar.measure.ray_by_ray",
           "World.cast_ray", "World.cast_rays", "World.get_distance", "World.is_overlapping",
           "VelocityController.process_force", "DiffDrive.process_action", "Drone.process_action",
           "KinematicBicycle.process_action", "TorchUtils", "ScenarioUtils.spawn_entities_randomly")
TRAIN = ("train_step.navigation.grad_enabled", "train_step.transport.grad_enabled")


def names() -> list[str]:
    return list(STEP) + list(ENV_CALLS) + list(POLICIES) + list(PHYSICS) + list(TRAIN)


def _scenario(key: str) -> Any:
    import importlib

    module, _ = SCENARIOS[key]
    return importlib.import_module(f"vmas.scenarios.{module}")


def _env(key: str, by_name: bool = False, extra: dict[str, Any] | None = None, **options: Any) -> Any:
    import vmas

    module, keywords = SCENARIOS[key]
    scenario = module.rsplit(".", 1)[-1] if by_name else _scenario(key).Scenario()
    return vmas.make_env(scenario, num_envs=NUM_ENVS, device="cpu", seed=0, **options, **keywords, **(extra or {}))


def _actions(env: Any) -> list[Any]:
    import torch

    torch.manual_seed(1)
    return [a.clone() for a in env.get_random_actions()]


def _step(name: str) -> Built:
    from gt_calls import Method

    key, options, extra = STEP[name]
    options = dict(options)
    by_name = options.pop("by_name", False)
    env = _env(key, by_name=by_name, extra=extra, **options)
    actions = _actions(env)
    if options.get("dict_spaces"):
        return Method(env, "step"), ({agent.name: a for agent, a in zip(env.agents, actions)},), {}
    return Method(env, "step"), (actions,), {}


def _env_calls(name: str) -> Built:
    import torch

    from gt_calls import Method, Run

    call, key = name.split(".", 1)
    if call == "reset":
        scenario = key.split(".")[0]
        env = _env(scenario)
        if key.endswith("info_dones"):
            return Method(env, "reset", return_info=True, return_dones=True), (), {}
        return Method(env, "reset"), (), {}
    if call == "reset_at":
        env = _env(key)
        env.step(_actions(env))
        return Method(env, "reset_at", index=1), (), {}
    if call == "done":
        options = {"terminated_truncated": True, "max_steps": 3} if key == "terminated_truncated" else {}
        env = _env("navigation", **options)
        env.step(_actions(env))
        return Method(env, "done"), (), {}
    if call == "get_random_actions":
        env = _env("navigation", continuous_actions=key != "discrete")
        return Method(env, "get_random_actions"), (), {}
    if call == "get_from_scenario":
        env = _env("navigation")
        return Method(env, "get_from_scenario", get_observations=True, get_rewards=True, get_infos=True,
                      get_dones=True), (), {}
    from vmas.simulator.environment import Wrapper
    from vmas.simulator.environment.gym import GymWrapper

    import vmas

    env = vmas.make_env(_scenario("navigation").Scenario(), num_envs=1, device="cpu", seed=0,
                        wrapper=Wrapper.GYM, wrapper_kwargs={"return_numpy": False}, n_agents=2)
    if key == "reset":
        return Method(env, "reset"), (), {}
    torch.manual_seed(1)
    actions = [a.clone() for a in env.unwrapped.get_random_actions()] if hasattr(env, "unwrapped") \
        else [a.clone() for a in env.env.get_random_actions()]

    def gym_step(owner: Any, actions_: list[Any]) -> Any:
        return owner.step([a[0] for a in actions_])

    return Run(env, gym_step, [GymWrapper.step]), (actions,), {}


def _observations(env: Any) -> list[Any]:
    return env.reset()


def _policies(name: str) -> Built:
    import torch

    from gt_calls import Run

    if name == "RandomPolicy":
        from vmas.simulator.heuristic_policy import RandomPolicy

        policy = RandomPolicy(continuous_action=True)
        obs = torch.randn(NUM_ENVS, 6, generator=torch.Generator().manual_seed(2))
        return Run(torch.nn.Identity(), lambda owner, o: policy.compute_action(o, u_range=1.0),
                   [RandomPolicy.compute_action]), (obs,), {}
    kind, key = name.split(".")
    module = _scenario(key)
    env = _env(key)
    obs = _observations(env)
    policy = module.HeuristicPolicy(continuous_action=True)
    u_range = env.agents[0].u_range
    if kind == "HeuristicPolicy":
        return Run(torch.nn.Identity(), lambda owner, o: policy.compute_action(o, u_range=u_range),
                   [module.HeuristicPolicy.compute_action]), (obs[0],), {}

    def rollout(owner: Any, observations: list[Any]) -> Any:
        """A scripted rollout step: every agent's heuristic action from its observation, then the step."""
        actions = [policy.compute_action(o, u_range=u_range) for o in observations]
        return owner.step(actions)

    return Run(env, rollout, [module.HeuristicPolicy.compute_action, type(env).step]), (obs,), {}


def _set_actions(env: Any) -> None:
    for agent, action in zip(env.agents, _actions(env)):
        env._set_action(action, agent)
    for agent in env.world.agents:
        env.scenario.env_process_action(agent)


def _physics(name: str) -> Built:
    import torch
    from vmas.simulator import core
    from vmas.simulator.utils import ScenarioUtils, TorchUtils

    from gt_calls import Method, Run

    gen = torch.Generator().manual_seed(3)
    if name.startswith("World.step"):
        env = _env(name.rsplit(".", 1)[1])
        _set_actions(env)
        return Method(env.world, "step"), (), {}
    if name.startswith("Lidar.measure"):
        env = _env("pollock")
        lidar = env.agents[0].sensors[0]
        return Method(lidar, "measure", vectorized=not name.endswith("ray_by_ray")), (), {}
    if name.startswith("World.cast_ray"):
        env = _env("pollock")
        world, agent = env.world, env.agents[0]
        if name == "World.cast_ray":
            angles = torch.rand(NUM_ENVS, generator=gen) * 6.28
        else:
            angles = torch.rand(NUM_ENVS, 5, generator=gen) * 6.28
        return Run(world, lambda owner, a: getattr(owner, name.split(".")[1])(agent, a, max_range=0.8,
                                                                              entity_filter=lambda e: True),
                   [getattr(core.World, name.split(".")[1])]), (angles,), {}
    if name in ("World.get_distance", "World.is_overlapping"):
        env = _env("pollock")
        world = env.world
        method = name.split(".")[1]
        boxes = [e for e in world.landmarks if isinstance(e.shape, core.Box)]
        lines = [e for e in world.landmarks if isinstance(e.shape, core.Line)]
        pairs = [(env.agents[0], env.agents[1]), (env.agents[0], boxes[0]), (env.agents[0], lines[0]),
                 (boxes[0], boxes[1]), (lines[0], lines[1]), (boxes[0], lines[0])]

        def measure(owner: Any) -> Any:
            return torch.stack([getattr(owner, method)(a, b).float() for a, b in pairs], dim=-1)

        return Run(world, measure, [getattr(core.World, method)]), (), {}
    if name == "VelocityController.process_force":
        from vmas.simulator.controllers.velocity_controller import VelocityController

        env = _env("vel_control")
        for agent, action in zip(env.agents, _actions(env)):
            env._set_action(action, agent)
        agents = env.agents

        def control(owner: Any) -> Any:
            for agent in agents:
                agent.controller.process_force()
            return torch.stack([agent.action.u for agent in agents])

        return Run(env.world, control, [VelocityController.process_force]), (), {}
    if name.endswith(".process_action"):
        dynamics_name = name.split(".")[0]
        key = {"DiffDrive": "diff_drive", "Drone": "drone", "KinematicBicycle": "kinematic_bicycle"}[dynamics_name]
        env = _env(key)
        for agent, action in zip(env.agents, _actions(env)):
            env._set_action(action, agent)
        agent = env.agents[0]

        def process(owner: Any) -> Any:
            env.scenario.env_process_action(agent)  # the scenario's action hook, then the dynamics
            return agent.state.force, agent.state.torque

        return Run(env.world, process, [type(agent.dynamics).process_action]), (), {}
    if name == "TorchUtils":
        def utilities(owner: Any, vectors: Any, angles: Any) -> Any:
            rotated = TorchUtils.rotate_vector(vectors, angles)
            clamped = TorchUtils.clamp_with_norm(rotated, 0.5)
            torque = TorchUtils.compute_torque(clamped, vectors)
            return TorchUtils.where_from_index(1, torque, TorchUtils.cross(vectors, rotated))

        return Run(torch.nn.Identity(), utilities, [TorchUtils.rotate_vector, TorchUtils.clamp_with_norm,
                                                     TorchUtils.compute_torque, TorchUtils.where_from_index]), \
            (torch.randn(NUM_ENVS, 2, generator=gen), torch.rand(NUM_ENVS, 1, generator=gen)), {}
    env = _env("dispersion")
    world = env.world

    def spawn(owner: Any) -> Any:
        ScenarioUtils.spawn_entities_randomly(world.agents + world.landmarks, world, env_index=None,
                                              min_dist_between_entities=0.05, x_bounds=(-1, 1), y_bounds=(-1, 1))
        return torch.stack([e.state.pos for e in world.agents])

    return Run(world, spawn, [ScenarioUtils.spawn_entities_randomly]), (), {}


def _train(name: str) -> Built:
    import torch
    from torch import nn

    key = name.split(".")[1]
    env = _env(key, grad_enabled=True)
    obs = env.reset()
    u_range = env.agents[0].u_range

    class _Rollout(nn.Module):
        """A linear policy per agent whose bounded actions go through a differentiable step; the loss is the
        negative summed reward."""

        def __init__(self) -> None:
            super().__init__()
            self.env = env
            self.policies = nn.ModuleList(nn.Linear(o.shape[-1], 2) for o in obs)

        def forward(self, observations: list[torch.Tensor]) -> torch.Tensor:
            actions = [torch.tanh(p(o)) * u_range * 0.9 for p, o in zip(self.policies, observations)]
            _, rewards, _, _ = self.env.step(actions)
            return -torch.stack(rewards).sum()

        def entry_points(self) -> list[Any]:
            return [type(self.env).step]

    return _Rollout(), (obs,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in STEP:
        return _step(name)
    if name in ENV_CALLS:
        return _env_calls(name)
    if name in POLICIES:
        return _policies(name)
    if name in PHYSICS:
        return _physics(name)
    return _train(name)
