"""Ground-truth bench, ema_pytorch (ema-pytorch): exponential moving averages of a model's weights.

ema-pytorch (lucidrains) keeps a shadow copy of a network whose weights follow the online model's:
``EMA`` (an inverse-decay warm-up, ``update_after_step`` / ``update_every``, ``beta``, ``inv_gamma`` /
``power`` / ``min_value``, names copied rather than averaged or ignored, ``foreach`` updates, updating
the online model back from the EMA), ``KarrasEMA`` (the power-function EMA of Karras et al., from
``sigma_rel`` or ``gamma``), ``PostHocEMA`` (several ``KarrasEMA``s and their checkpoints),
``EMAPytree`` / ``EMATensor`` (the same for a tree of tensors; ``EMA`` of a non-module returns one)
and ``EMAModuleWrapper`` (runs the EMA model and feeds its submodules' outputs to the online model's
submodules as keyword arguments, as in BYOL-like training). Users call the EMA as the model (its
``__call__`` runs the EMA copy) and call ``update()`` after each optimizer step, so each model of the
tables is one of:

- ``EMA_UPDATE``: a bench module (``_UpdateThenCall``) whose forward calls ``ema.update()`` then
  returns ``ema(x)``, for ``EMA`` in the configurations that change the update's code: the default
  schedule (first update, then skipped steps), updates every step, a warm-up with other decay
  hyperparameters, frozen (``beta=1``), the online model kept out of the module tree, foreach updates,
  copied and ignored names (exact and by prefix), different devices allowed with dtype coercion (plain
  and foreach), moving the EMA to the online device, updating the online model from the EMA (copy and
  lerp) and lazy initialisation;
- ``EMA_CALLS``: ``EMA`` called as the model, ``forward_eval``, a forwarded method
  (``forward_method_names``) and other public methods (``copy_params_from_ema_to_model``,
  ``update_model_with_ema`` with a decay, ``get_current_decay``, ``update_moving_average``) through
  ``gt_calls.Method``; two train steps: a mean-teacher loss against the EMA's output followed by
  ``update()``, and an SGD step whose post-step hook (``add_to_optimizer_post_step_hook``) updates the
  EMA;
- ``KARRAS``: ``KarrasEMA`` (``sigma_rel`` or ``gamma``, ``update_every``, frozen, copied and ignored
  names, devices), called and updated, its ``iter_all_ema_params_and_buffers``, and ``PostHocEMA``
  (called: one output per EMA; updated with manual checkpoints or with checkpoints every two steps,
  written with ``torch.save`` to a temporary folder under ``/tmp``);
- ``PYTREE``: ``EMATensor`` / ``EMAPytree`` of a tensor, a dict and a list of tensors, updated after an
  in-place change of the online tensors;
- ``WRAPPER``: ``EMAModuleWrapper`` without ``ema_module_kwargs`` and with its forms (a list of paths, a
  keyword name, a config dict and a tuple with a transform, other inputs for the EMA model through
  ``ema_args``), with ``only_online``, ``forward_online=False`` and ``update()``. It runs the online
  model with the EMA's outputs in train mode and the EMA model alone in eval mode.

Options that only change a number (``beta``, ``update_every`` beyond 1) are left out to keep the
library's run short. The online networks are tiny (an MLP of width 16, the same with batch norm, a small conv net) on a
batch of 2. Every model is compiled in eval and in train mode, and the EMA's step counter carries over
between the calls, so successive calls take the initialising, copying and averaging branches. Random
weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, OUT, BATCH = 8, 16, 4, 2
EVERY = {"update_after_step": 0, "update_every": 1}

# ``EMA`` update-step name -> (net: "mlp", "bn" or "conv", ``EMA`` keywords). "ema_model" stands for a
# callable returning a fresh copy of the net.
EMA_UPDATE: dict[str, tuple[str, dict[str, Any]]] = {
    "EMA.update": ("mlp", {}),
    "EMA.update.every_step": ("mlp", EVERY),
    "EMA.update.warmup": ("mlp", {"update_after_step": 1, "update_every": 1, "inv_gamma": 2.0, "power": 3 / 4,
                                  "min_value": 0.5}),
    "EMA.update.frozen": ("mlp", {**EVERY, "beta": 1.0}),
    "EMA.update.no_online_model": ("mlp", {**EVERY, "include_online_model": False}),
    "EMA.update.foreach": ("mlp", {**EVERY, "use_foreach": True}),
    "EMA.update.foreach.no_ema_names": ("bn", {**EVERY, "use_foreach": True,
                                               "param_or_buffer_names_no_ema": {"1.running_mean", "1.running_var"}}),
    "EMA.update.foreach.allow_different_devices.coerce_dtype": ("mlp", {**EVERY, "use_foreach": True,
                                                                        "allow_different_devices": True,
                                                                        "coerce_dtype": True}),
    "EMA.update.no_ema_names": ("bn", {**EVERY, "param_or_buffer_names_no_ema": {"1.running_mean", "1.running_var",
                                                                                 "0.bias"}}),
    "EMA.update.ignore_names": ("bn", {**EVERY, "ignore_names": {"0.weight"}, "ignore_startswith_names": {"1."}}),
    "EMA.update.allow_different_devices.coerce_dtype": ("mlp", {**EVERY, "allow_different_devices": True,
                                                                "coerce_dtype": True}),
    "EMA.update.move_ema_to_online_device": ("conv", {**EVERY, "move_ema_to_online_device": True}),
    "EMA.update.update_model_with_ema": ("mlp", {**EVERY, "update_model_with_ema_every": 2}),
    "EMA.update.update_model_with_ema.beta": ("mlp", {**EVERY, "update_model_with_ema_every": 2,
                                                      "update_model_with_ema_beta": 0.5}),
    "EMA.update.lazy_init_ema": ("mlp", {**EVERY, "lazy_init_ema": True}),
}
EMA_CALLS = (
    "EMA", "EMA.forward_eval", "EMA.forward_method_names", "EMA.copy_params_from_ema_to_model",
    "EMA.update_model_with_ema.decay", "EMA.get_current_decay", "EMA.update_moving_average",
    "train_step.EMA.mean_teacher", "train_step.EMA.optimizer_post_step_hook",
)
# ``KarrasEMA`` name -> (net, keywords, call: "update" (update then call) or "call").
KARRAS: dict[str, tuple[str, dict[str, Any], str]] = {
    "KarrasEMA": ("mlp", {"sigma_rel": 0.05}, "call"),
    "KarrasEMA.update.sigma_rel": ("mlp", {"sigma_rel": 0.05, "update_every": 1}, "update"),
    "KarrasEMA.update.gamma.default_every": ("mlp", {"gamma": 6.94}, "update"),
    "KarrasEMA.update.frozen": ("mlp", {"sigma_rel": 0.05, "update_every": 1, "frozen": True}, "update"),
    "KarrasEMA.update.no_ema_names.ignore_names": ("bn", {"sigma_rel": 0.05, "update_every": 1,
                                                          "param_or_buffer_names_no_ema": {"1.running_mean", "3.bias"},
                                                          "ignore_names": {"0.weight"},
                                                          "ignore_startswith_names": {"1.running_v"}}, "update"),
    "KarrasEMA.update.allow_different_devices": ("mlp", {"sigma_rel": 0.05, "update_every": 1,
                                                         "allow_different_devices": True,
                                                         "move_ema_to_online_device": True}, "update"),
}
KARRAS_METHODS = ("KarrasEMA.iter_all_ema_params_and_buffers", "PostHocEMA", "PostHocEMA.update.manual",
                  "PostHocEMA.update.checkpoint")
PYTREE = ("EMATensor.update.every_step", "EMAPytree.dict.update", "EMAPytree.list.update.every_step")
# ``EMAModuleWrapper`` name -> (``ema_module_kwargs`` spec, call keywords, what forward does: "call" or
# "update" (update then call)). "normalize" in a spec stands for an L2-normalising transform, "noisy" for
# other inputs of the EMA model.
WRAPPER: dict[str, tuple[Any, dict[str, Any], str]] = {
    "EMAModuleWrapper": (None, {}, "call"),
    "EMAModuleWrapper.list": (["head"], {}, "call"),
    "EMAModuleWrapper.kwarg_name": ({"head": "ema_target"}, {}, "call"),
    "EMAModuleWrapper.dict_config": ({"head": {"ema_module_path": "encoder", "ema_kwarg": "ema_output",
                                               "transform": "normalize"}}, {}, "call"),
    "EMAModuleWrapper.tuple_transform": ({"head": ("encoder", "ema_target", "normalize")}, {"ema_args": "noisy"},
                                         "call"),
    "EMAModuleWrapper.only_online": (["head"], {"only_online": True}, "call"),
    "EMAModuleWrapper.forward_online_false": (["head"], {"forward_online": False}, "call"),
    "EMAModuleWrapper.update": (["head"], {}, "update"),
}


def names() -> list[str]:
    return (list(EMA_UPDATE) + list(EMA_CALLS) + list(KARRAS) + list(KARRAS_METHODS) + list(PYTREE)
            + list(WRAPPER))


def _net(kind: str) -> Any:
    from torch import nn

    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    if kind == "bn":
        return nn.Sequential(nn.Linear(DIM, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.SiLU(), nn.Conv2d(8, 8, 3, padding=1),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, OUT))


def _input(kind: str, seed: int = 1) -> Any:
    import torch

    shape = (BATCH, 3, 8, 8) if kind == "conv" else (BATCH, DIM)
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _perturb(net: Any) -> None:
    """Move the online weights away from the EMA copy, as training steps would."""
    import torch

    with torch.no_grad():
        for p in net.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(p.numel())) * 0.1)


def _update_then_call(ema: Any, update: str = "update") -> Any:
    from torch import nn

    class _UpdateThenCall(nn.Module):
        """What a training loop runs after an optimizer step, then at evaluation: ``ema.update()`` and the
        EMA model's output."""

        def __init__(self) -> None:
            super().__init__()
            self.ema = ema

        def forward(self, *args: Any) -> Any:
            getattr(self.ema, update)()
            return self.ema(*args)

        def entry_points(self) -> list[Any]:
            return [getattr(type(self.ema), update), type(self.ema).__call__]

    return _UpdateThenCall()


def _ema(net_kind: str, keywords: dict[str, Any]) -> Any:
    import copy

    from ema_pytorch import EMA

    net = _net(net_kind)
    keywords = dict(keywords)
    if keywords.get("ema_model") == "ema_model":
        keywords["ema_model"] = lambda: copy.deepcopy(net)
    return EMA(net, **keywords)


def _ema_calls(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from ema_pytorch import EMA
    from torch import nn

    from gt_calls import Method, OptimizerStep

    x = _input("mlp")
    if name == "EMA":
        ema = _ema("conv", EVERY)
        ema.update()
        return ema, (_input("conv"),), {}
    if name == "EMA.forward_eval":
        ema = _ema("bn", EVERY)
        return Method(ema, "forward_eval"), (x,), {}
    if name == "EMA.forward_method_names":
        class _Encoder(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = _net("mlp")

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.net(x)

            def embed(self, x: torch.Tensor) -> torch.Tensor:
                return self.net[1](self.net[0](x))

        ema = EMA(_Encoder(), forward_method_names=("embed",), **EVERY)

        class _Forwarded(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.ema = ema

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                self.ema.update()
                return self.ema.embed(x)

            def entry_points(self) -> list[Any]:
                return [EMA.update]

        return _Forwarded(), (x,), {}
    if name.startswith("EMA."):
        method = name.split(".")[1]
        ema = _ema("bn", {**EVERY, "update_model_with_ema_beta": 0.3} if method == "update_model_with_ema" else EVERY)
        ema.update()
        _perturb(ema.model)
        ema.step.fill_(5)
        if method == "update_moving_average":
            class _Moving(nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.ema = ema

                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    self.ema.update_moving_average(self.ema.ema_model, self.ema.model)
                    return self.ema(x)

                def entry_points(self) -> list[Any]:
                    return [EMA.update_moving_average]

            return _Moving(), (x,), {}
        if name.endswith(".decay"):
            return Method(ema, method, decay=0.5), (), {}
        return Method(ema, method), (), {}
    if name == "train_step.EMA.mean_teacher":
        ema = _ema("mlp", {"beta": 0.99, **EVERY})

        class _MeanTeacherStep(nn.Module):
            """A mean-teacher step: the student's loss on the labels plus its distance to the EMA teacher's
            output, then the teacher's update."""

            def __init__(self) -> None:
                super().__init__()
                self.ema = ema

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                pred = self.ema.model(x)
                with torch.no_grad():
                    teacher = self.ema(x + 0.1 * torch.randn_like(x))
                loss = F.mse_loss(pred, y) + F.mse_loss(pred, teacher)
                self.ema.update()
                return loss

            def entry_points(self) -> list[Any]:
                return [EMA.update, EMA.__call__]

        return _MeanTeacherStep(), (x, torch.randn(BATCH, OUT, generator=torch.Generator().manual_seed(2))), {}
    # an SGD step whose post-step hook updates the EMA
    net = _net("mlp")
    ema = EMA(net, **EVERY)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    ema.add_to_optimizer_post_step_hook(optimizer)

    class _HookedStep(OptimizerStep):
        def __init__(self) -> None:
            super().__init__(net, optimizer)
            self.ema = ema

        def entry_points(self) -> list[Any]:
            return [EMA.update]

    grads = tuple(torch.randn(p.shape, generator=torch.Generator().manual_seed(i)) * 0.01
                  for i, p in enumerate(net.parameters()))
    return _HookedStep(), grads, {}


def _karras(name: str) -> Built:
    import tempfile

    import torch
    from ema_pytorch import KarrasEMA, PostHocEMA
    from torch import nn

    if name in KARRAS:
        kind, keywords, call = KARRAS[name]
        ema = KarrasEMA(_net(kind), **keywords)
        if call == "call":
            return ema, (_input(kind),), {}
        return _update_then_call(ema), (_input(kind),), {}
    x = _input("mlp")
    if name == "KarrasEMA.iter_all_ema_params_and_buffers":
        ema = KarrasEMA(_net("bn"), sigma_rel=0.05, ignore_names={"0.bias"}, param_or_buffer_names_no_ema={"3.bias"})

        class _Norms(nn.Module):
            """The squared norm of the averaged tensors (what a post-hoc synthesis sums)."""

            def __init__(self) -> None:
                super().__init__()
                self.ema = ema

            def forward(self) -> torch.Tensor:
                return sum(t.pow(2).sum() for t in self.ema.iter_all_ema_params_and_buffers())

            def entry_points(self) -> list[Any]:
                return [KarrasEMA.iter_all_ema_params_and_buffers]

        return _Norms(), (), {}
    folder = tempfile.mkdtemp(prefix="gt_ema_post_hoc_", dir="/tmp")
    every: Any = 2 if name == "PostHocEMA.update.checkpoint" else "manual"
    ema = PostHocEMA(_net("mlp"), checkpoint_every_num_steps=every, checkpoint_folder=folder, update_every=1,
                     sigma_rels=(0.05, 0.28))
    if name == "PostHocEMA":
        return ema, (x,), {}
    return _update_then_call(ema), (x,), {}


def _pytree(name: str) -> Built:
    import torch
    from ema_pytorch import EMA, EMAPytree, EMATensor
    from torch import nn

    gen = torch.Generator().manual_seed(3)
    every = EVERY if "every_step" in name else {}
    if name.startswith("EMATensor"):
        tree: Any = torch.randn(4, 4, generator=gen)
        ema = EMATensor(tree, **every)
    elif ".dict" in name:
        tree = {"w": torch.randn(4, 4, generator=gen), "b": torch.randn(4, generator=gen), "step": 3}
        ema = EMA(tree, **every)  # ``EMA`` of a non-module is an ``EMAPytree``
    else:
        tree = [torch.randn(4, 4, generator=gen), (torch.randn(4, generator=gen), torch.randn(2, generator=gen))]
        ema = EMAPytree(tree, **every)
    online = [t for t in torch.utils._pytree.tree_flatten(tree)[0] if isinstance(t, torch.Tensor)]

    class _PytreeStep(nn.Module):
        """An in-place change of the online tensors (a training step), the EMA's update, the EMA tree."""

        def __init__(self) -> None:
            super().__init__()
            self.ema = ema

        def forward(self, delta: torch.Tensor) -> Any:
            for t in online:
                t.add_(delta.mean())
            self.ema.update()
            return self.ema()

        def entry_points(self) -> list[Any]:
            return [EMAPytree.update]

    return _PytreeStep(), (torch.randn(3, generator=gen),), {}


def _wrapper(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from ema_pytorch import EMAModuleWrapper
    from torch import nn

    spec, call, mode = WRAPPER[name]

    class Head(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(DIM, DIM)

        def forward(self, x: torch.Tensor, ema_output: Any = None, ema_target: Any = None) -> torch.Tensor:
            if ema_output is not None:
                x = x + ema_output
            if ema_target is not None:
                x = x - ema_target
            return self.proj(x)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(DIM, DIM), nn.ReLU())
            self.head = Head()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.encoder(x))

    def normalize(t: torch.Tensor) -> torch.Tensor:
        return F.normalize(t, dim=-1)

    if isinstance(spec, dict):
        spec = {k: (tuple(normalize if e == "normalize" else e for e in v) if isinstance(v, tuple)
                    else {**v, "transform": normalize} if isinstance(v, dict) else v) for k, v in spec.items()}
    forward_online_during_train = name != "EMAModuleWrapper.not_during_train"
    wrapper = EMAModuleWrapper(Net(), ema_module_kwargs=spec, forward_online_during_train=forward_online_during_train,
                               **EVERY)
    wrapper.update()
    _perturb(wrapper.model)
    x = _input("mlp")
    call = dict(call)
    if call.get("ema_args") == "noisy":
        call["ema_args"] = (x + 0.1,)
    elif call.get("ema_args") == "dict":
        call["ema_args"] = {"x": x * 0.5}

    class _Wrapped(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.wrapper = wrapper

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if mode == "update":
                self.wrapper.update()
            return self.wrapper(x, **call)

        def entry_points(self) -> list[Any]:
            entered = [EMAModuleWrapper]
            if mode == "update":
                entered.append(EMAModuleWrapper.update)
            return entered

    return _Wrapped(), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in EMA_UPDATE:
        kind, keywords = EMA_UPDATE[name]
        ema = _ema(kind, keywords)
        return _update_then_call(ema), (_input(kind),), {}
    if name in EMA_CALLS:
        return _ema_calls(name)
    if name in KARRAS or name in KARRAS_METHODS:
        return _karras(name)
    if name in PYTREE:
        return _pytree(name)
    return _wrapper(name)
