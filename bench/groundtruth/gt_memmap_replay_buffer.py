"""Ground-truth bench, memmap_replay_buffer: episode replay buffers on memory-mapped (or HDF5) arrays.

memmap-replay-buffer 0.2.3 stores reinforcement-learning episodes in fixed-size arrays on disk: ``ReplayBuffer``
(numpy ``open_memmap`` files, the episode and step counters in memory-mapped scalars) and ``ReplayBufferH5PY`` (the
same over one HDF5 file), declared by ``fields`` (per time step) and ``meta_fields`` (per episode), each a dtype
name, a shape and an optional default. What a user's compiled rollout or training step calls, all exercised here:

- writing one environment: ``store(**fields)`` per step (tensors converted to numpy, missing fields filled with
  their defaults, a named tuple returned, flushed every ``flush_every_store_step`` steps) inside the
  ``one_episode(**meta)`` context manager, or followed by ``advance_episode()``; ``store_episode(**fields)`` for a
  whole trajectory at once; ``store_meta_datapoint``;
- writing a batch of environments: ``store_batch(**fields)`` per step inside ``batched_episode(n, **meta)``,
  ``store_meta_batch``;
- rewriting: ``update(indices, **fields)`` with an episode index, a list, a slice or all stored episodes;
- reading for training: ``get_all_data(fields, meta_fields, device)`` (padded to the longest episode), also over
  several buffers with ``ConcatReplayBuffer``; ``len(buffer)``;
- ``EpisodeCollector`` (``buffer.create_collector(n)``): a group-batched rollout kept in memory: ``append`` per
  step (``(n, *shape)`` or ``(n, 1, *shape)`` values, meta values), ``extend`` with time-major trajectories,
  ``time_major`` / ``env_major`` / ``groups`` views (the layout advantage estimation expects), ``all_data`` for an
  in-memory training step, and ``store(**meta)`` to write one episode per group into the buffer, then ``clear``.

Each model is a bench module holding a small policy (an MLP from observations to actions, fixed seed) and a buffer
in a fresh temporary folder (a few kilobytes, circular where the four calls would overflow it); its forward runs a
short rollout (``STEPS`` steps, observations derived from the input) and writes it, or trains on what an eager
prefill stored. Under Dynamo a NumPy array made inside the library (a field's default, a Python scalar broadcast
with ``np.full``, every value of ``store_batch``) reaches ``to_numpy``'s ``is_tensor`` test as a traced tensor and
the compile fails there; the models that take those paths (defaults, a Python ``bool`` field, ``store_batch``)
record the breaks before that failure, and ``store_meta_batch`` after ``store_batch`` is left out (never reached).
The other writing models give every field as a tensor, as a rollout does. The options cover the two storage backends, flushing at every step, every other or never,
defaults for missing fields, boolean and integer fields, meta data given at the start or at the end of an episode.
Left out: the ``Dataset``/``DataLoader`` views (``dataset``, ``dataloader``: per-sample numpy indexing that data
loaders run, never compiled), ``save_video``/``trajectory_to_video`` and the HTTP replay viewer (``frontend``),
which write files or serve pages. Random weights, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

OBS, ACT, STEPS, GROUPS, MAX_T = 4, 2, 3, 2, 8

# Model name -> (scenario, backend "mm" (ReplayBuffer) or "h5" (ReplayBufferH5PY), options).
MODELS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "store.one_episode": ("store", "mm", {}),
    "store.one_episode.meta": ("store", "mm", {"meta_start": True}),
    "store.one_episode.meta_at_end": ("store", "mm", {"meta_end": True}),
    "store.one_episode.defaults": ("store", "mm", {"partial": True}),
    "store.one_episode.no_flush": ("store", "mm", {"flush": 0}),
    "store.one_episode.flush_every_2": ("store", "mm", {"flush": 2}),
    "store.one_episode.not_circular": ("store", "mm", {"circular": False}),
    "store.one_episode.named_tuple": ("store", "mm", {"use_tuple": True}),
    "store.one_episode.python_bool": ("store", "mm", {"python_bool": True}),
    "store.advance_episode": ("store", "mm", {"advance": True}),
    "store.advance_episode.meta_datapoint": ("store", "mm", {"advance": True, "meta_datapoint": True}),
    "store.h5.one_episode": ("store", "h5", {}),
    "store.h5.one_episode.meta": ("store", "h5", {"meta_start": True, "flush": 0}),
    "store.h5.defaults": ("store", "h5", {"partial": True, "advance": True}),
    "store_batch.batched_episode": ("store_batch", "mm", {}),
    "store_batch.batched_episode.meta": ("store_batch", "mm", {"meta_start": True, "flush": 0}),
    "store_batch.h5": ("store_batch", "h5", {"meta_start": True}),
    "store_episode": ("store_episode", "mm", {}),
    "store_episode.meta": ("store_episode", "mm", {"meta_start": True}),
    "store_episode.scalar_trailing": ("store_episode", "mm", {"trailing_one": True}),
    "store_episode.h5": ("store_episode", "h5", {"meta_start": True}),
    "update.index": ("update", "mm", {"indices": 0}),
    "update.list": ("update", "mm", {"indices": [0, 1]}),
    "update.slice": ("update", "mm", {"indices": slice(0, 2)}),
    "update.all": ("update", "mm", {"indices": None}),
    "update.meta": ("update", "mm", {"indices": [1], "meta": True}),
    "update.h5": ("update", "h5", {"indices": [0, 1]}),
    "get_all_data": ("get_all_data", "mm", {}),
    "get_all_data.fields": ("get_all_data", "mm", {"fields": ("state", "action")}),
    "get_all_data.meta_fields": ("get_all_data", "mm", {"fields": ("state", "action", "reward"),
                                                        "meta_fields": ("episode_lens", "task_id")}),
    "get_all_data.device": ("get_all_data", "mm", {"device": "cpu"}),
    "get_all_data.len": ("get_all_data", "mm", {"use_len": True}),
    "get_all_data.h5": ("get_all_data", "h5", {}),
    "concat.get_all_data": ("concat", "mm", {}),
    "concat.get_all_data.fields": ("concat", "mm", {"fields": ("state", "action")}),
    "collector.append": ("collector", "mm", {}),
    "collector.append.meta": ("collector", "mm", {"meta_append": True}),
    "collector.append.singleton_time": ("collector", "mm", {"singleton": True}),
    "collector.append.lists": ("collector", "mm", {"lists": True}),
    "collector.append.fieldnames": ("collector", "mm", {"fieldnames": ("state", "action")}),
    "collector.append.not_strict": ("collector", "mm", {"extra": True}),
    "collector.time_major": ("collector", "mm", {"read": "time_major"}),
    "collector.groups": ("collector", "mm", {"read": "groups"}),
    "collector.extend": ("collector", "mm", {"extend": True}),
    "collector.all_data": ("collector", "mm", {"read": "all_data"}),
    "collector.all_data.fields": ("collector", "mm", {"read": "all_data_fields"}),
    "collector.store": ("collector", "mm", {"store": True}),
    "collector.store.meta": ("collector", "mm", {"store": True, "meta_append": True, "store_meta": True}),
    "collector.store.h5": ("collector", "h5", {"store": True}),
}


def names() -> list[str]:
    return list(MODELS)


def _buffer(backend: str, options: dict[str, Any], prefix: str = "gt_memmap_") -> Any:
    import tempfile

    import memmap_replay_buffer as mrb

    folder = tempfile.mkdtemp(prefix=prefix)
    fields: dict[str, Any] = {"state": ("float", OBS), "action": ("float", ACT), "reward": "float",
                              "done": ("bool", (), False)}
    if options.get("partial"):
        fields["value"] = ("float", (), 0.5)
    meta_fields = {"task_id": "int", "success": ("bool", (), False)}
    cls = mrb.ReplayBuffer if backend == "mm" else mrb.ReplayBufferH5PY
    return cls(folder, max_episodes=8, max_timesteps=MAX_T, fields=fields, meta_fields=meta_fields,
               circular=options.get("circular", True), flush_every_store_step=options.get("flush", 1))


def _prefill(buffer: Any, episodes: int = 3) -> None:
    """Eager episodes of varied lengths, so that the reads pad."""
    import torch

    gen = torch.Generator().manual_seed(2)
    for e in range(episodes):
        length = 2 + e
        buffer.store_episode(state=torch.randn(length, OBS, generator=gen),
                             action=torch.randn(length, ACT, generator=gen),
                             reward=torch.randn(length, generator=gen),
                             done=torch.arange(length) == length - 1,
                             task_id=e)


def build(name: str) -> Built:
    import warnings

    import torch
    from torch import nn

    import memmap_replay_buffer as mrb
    from memmap_replay_buffer import episode_collector, replay_buffer, replay_buffer_h5py

    from gt_calls import Run

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    scenario, backend, options = MODELS[name]
    policy = nn.Sequential(nn.Linear(OBS, 16), nn.Tanh(), nn.Linear(16, ACT))
    base = replay_buffer.ReplayBufferBase
    buffer_cls = replay_buffer.ReplayBuffer if backend == "mm" else replay_buffer_h5py.ReplayBufferH5PY
    buffer = _buffer(backend, options)
    gen = torch.Generator().manual_seed(1)

    class _Owner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.policy = policy
            self.buffer = buffer

    owner = _Owner()

    def rollout(policy: Any, obs0: torch.Tensor) -> tuple[list[torch.Tensor], list[torch.Tensor], list[Any]]:
        observations, actions, rewards = [], [], []
        obs = obs0
        for _ in range(STEPS):
            action = policy(obs)
            reward = -(action ** 2).sum(-1)
            observations.append(obs)
            actions.append(action)
            rewards.append(reward)
            obs = torch.tanh(obs + action.sum(-1, keepdim=True))
        return observations, actions, rewards

    if scenario == "store":
        entries: list[Any] = [base.store, base.one_episode if not options.get("advance") else base.advance_episode]

        def run(o: Any, x: torch.Tensor) -> Any:
            buf = o.buffer
            observations, actions, rewards = rollout(o.policy, x[0])
            stored = []

            def store_all() -> None:
                for t in range(STEPS):
                    if options.get("partial"):
                        memory = buf.store(state=observations[t], action=actions[t])
                    else:
                        done = t == STEPS - 1
                        memory = buf.store(state=observations[t], action=actions[t], reward=rewards[t],
                                           done=done if options.get("python_bool") else torch.tensor(done))
                    stored.append(memory)

            if options.get("advance"):
                store_all()
                if options.get("meta_datapoint"):
                    buf.store_meta_datapoint(buf.episode_index, "task_id", 3)
                buf.advance_episode()
            else:
                meta = {"task_id": 1} if options.get("meta_start") else {}
                with buf.one_episode(**meta) as final_meta:
                    store_all()
                    if options.get("meta_end"):
                        final_meta["success"] = bool(rewards[-1] > -1.0)
            if options.get("use_tuple"):
                return torch.as_tensor(stored[-1].state)
            return torch.stack(actions)

        return Run(owner, run, entries), (torch.randn(1, OBS, generator=gen),), {}

    if scenario == "store_batch":
        entries = [base.store_batch, base.batched_episode]

        def run(o: Any, x: torch.Tensor) -> Any:
            buf = o.buffer
            observations, actions, rewards = rollout(o.policy, x)
            meta = {"task_id": torch.arange(GROUPS)} if options.get("meta_start") else {}
            with buf.batched_episode(GROUPS, **meta):
                for t in range(STEPS):
                    buf.store_batch(state=observations[t], action=actions[t], reward=rewards[t])
            return torch.stack(actions)

        return Run(owner, run, entries), (torch.randn(GROUPS, OBS, generator=gen),), {}

    if scenario == "store_episode":
        entries = [base.store_episode]

        def run(o: Any, x: torch.Tensor) -> Any:
            observations, actions, rewards = rollout(o.policy, x[0])
            reward = torch.stack(rewards)
            if options.get("trailing_one"):
                reward = reward[:, None]
            meta = {"task_id": 2} if options.get("meta_start") else {}
            o.buffer.store_episode(state=torch.stack(observations), action=torch.stack(actions), reward=reward,
                                   **meta)
            return torch.stack(actions)

        return Run(owner, run, entries), (torch.randn(1, OBS, generator=gen),), {}

    if scenario == "update":
        _prefill(buffer)
        entries = [base.update]
        indices = options["indices"]

        def run(o: Any, x: torch.Tensor) -> Any:
            value = o.policy(x).sum(-1)
            if options.get("meta"):
                o.buffer.update(indices, task_id=torch.tensor([7]))
            elif isinstance(indices, int):
                o.buffer.update(indices, reward=value[:2])
            else:
                o.buffer.update(indices, reward=value[:1, None].expand(-1, 2))
            return value

        return Run(owner, run, entries), (torch.randn(2, OBS, generator=gen),), {}

    if scenario in ("get_all_data", "concat"):
        _prefill(buffer)
        source: Any = buffer
        entries = [base.get_all_data]
        if scenario == "concat":
            other = _buffer(backend, options)
            _prefill(other, 2)
            buffer.flush()
            other.flush()
            source = mrb.ConcatReplayBuffer([buffer.folder, other.folder])
            entries = [mrb.ConcatReplayBuffer.get_all_data]
        owner.source = source
        keywords = {k: options[k] for k in ("fields", "meta_fields", "device") if k in options}

        def run(o: Any, x: torch.Tensor) -> Any:
            data = o.source.get_all_data(**keywords)
            states, actions = data["state"], data["action"]
            mask = (torch.arange(states.shape[1])[None, :] < torch.as_tensor(
                o.buffer.episode_lens[: states.shape[0]])[:, None]).float()
            loss = (((o.policy(states + x) - actions) ** 2).sum(-1) * mask).sum() / mask.sum()
            if options.get("use_len"):
                loss = loss * len(o.buffer)
            return loss

        return Run(owner, run, entries), (torch.zeros(1, 1, OBS),), {}

    # the episode collector
    collector = buffer.create_collector(GROUPS, fieldnames=options.get("fieldnames"),
                                        strict=not options.get("extra"))
    owner.collector = collector
    col = episode_collector.EpisodeCollector
    entries = [col.append, col.env_major]
    read = options.get("read", "env_major")

    def run(o: Any, x: torch.Tensor) -> Any:
        c = o.collector
        c.clear()
        observations, actions, rewards = rollout(o.policy, x)
        for t in range(STEPS):
            step: dict[str, Any] = {"state": observations[t], "action": actions[t], "reward": rewards[t]}
            if options.get("singleton"):
                step = {k: v.unsqueeze(1) for k, v in step.items()}
            if options.get("lists"):
                step["reward"] = list(rewards[t].unbind(0))
            if options.get("meta_append"):
                step["task_id"] = 4
            if options.get("extra"):
                step["log_prob"] = actions[t].sum(-1)
            if options.get("fieldnames"):
                step.pop("reward")
            c.append(**step)
        if options.get("extend"):
            returns = torch.stack(rewards).flip(0).cumsum(0).flip(0)
            c.extend(done=torch.zeros(STEPS, GROUPS, dtype=torch.bool) | (returns > 0))
        if options.get("store"):
            meta = {"success": torch.tensor([True, False])} if options.get("store_meta") else {}
            c.store(**meta)
            return torch.stack(actions)
        if read == "time_major":
            return c.time_major("action")
        if read == "groups":
            return torch.stack(c.groups("state"))
        if read in ("all_data", "all_data_fields"):
            data = c.all_data(fields=("state", "action") if read == "all_data_fields" else None)
            return ((o.policy(data["state"]) - data["action"]) ** 2).mean()
        field = "action" if options.get("fieldnames") else "reward"
        values = c.env_major(field)
        return values.flip(1).cumsum(1).flip(1)

    del buffer_cls
    return Run(owner, run, entries), (torch.randn(GROUPS, OBS, generator=gen),), {}
