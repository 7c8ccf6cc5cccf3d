"""Ground-truth bench, higher: differentiable inner loops (MAML) over functional models and optimizers.

higher turns an ``nn.Module`` into a "monkey-patched" functional copy (``patch.monkeypatch`` /
``make_functional``: a dynamically created subclass per module whose forward takes ``params=`` or reads
its fast weights, with buffers synced from the original) and a ``torch.optim`` optimizer into a
``DifferentiableOptimizer`` (``optim.get_diff_optim``, ``create_diff_optim``) whose ``step(loss)`` takes
``torch.autograd.grad`` of the loss, runs the optimizer's update out of place and hands the new fast
weights to the functional model. ``innerloop_ctx`` yields both; users write the MAML step as "a few inner
steps on the support set, then the loss on the query set", optionally backpropagating into the initial
weights and into learned hyperparameters (``override``). So the tables cover, on tiny networks (a
two-layer MLP of width 16 over 8 features and 3 classes, a conv net with batch norm, an LSTM, a GRU, tied
weights, a frozen weight, a bias-free layer):

- ``INNER``: the whole adaptation inside the compiled forward (``innerloop_ctx`` then two inner steps and
  the query loss) for each differentiable optimizer (SGD plain, momentum, Nesterov with weight decay,
  dampening, two parameter groups; Adam plain, AMSGrad, warm state copied from a stepped optimizer;
  Adadelta, Adagrad (plain and with lr decay), Adamax, ASGD, RMSprop
  (plain, centered with momentum), Rprop), for each network kind, and for the options that change the
  code path. Adam, Adagrad and RMSprop register a gradient hook on their state while tracking higher
  gradients, whose closure registers the same hook again, and Dynamo recurses on it until it fails: their
  plain models keep that error, and their variants run with ``track_higher_grads=False`` and no weight
  decay (which would tie the state to the weights again) so that their update code is traced. The options:
  ``copy_initial_weights`` off (MAML), ``track_higher_grads`` off (test mode), an explicit ``device``,
  ``override`` with learned tensors (a learning rate for all groups, one per group, Adamax's betas) and a
  ``grad_callback`` (gradient clipping) given at construction or per step;
- ``TRAIN``: whole meta-training steps: MAML (query loss backward through the inner loop, then an outer
  Adam step), Meta-SGD (learned learning rates via ``get_trainable_opt_params``), first-order MAML
  (``track_higher_grads=False``), and the meta-test adaptation loop;
- ``PARTS``: the pieces on their own: a patched model's forward with explicit ``params`` and with its fast
  weights, ``monkeypatch`` and ``make_functional`` inside the compiled code, a direct call of a patched
  submodule, assigning a fast weight by attribute, ``parameters(time=0)`` and ``init_fast_params``,
  ``buffer_sync``, one ``DifferentiableOptimizer.step`` on a prebuilt optimizer (SGD, Adam without
  tracking, explicit ``params``), ``create_diff_optim`` with ``params`` and with a functional model,
  ``get_trainable_opt_params`` and ``apply_trainable_opt_params``, ``utils.get_func_params``.

In eval mode the worker runs under ``no_grad``; the inner loop needs gradients whatever the mode (meta-test
adaptation does too), so the forwards that step a differentiable optimizer enable them. Random weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 4
FEATURES = 8
HIDDEN = 16
CLASSES = 3
STEPS = 2

# Inner-loop model name -> (network kind, ``torch.optim`` class, its keywords, ``innerloop_ctx`` options).
# Option keys besides ``innerloop_ctx``'s own: "groups" (two parameter groups), "warm" (the optimizer
# stepped once before, so its state is copied), "lr_override" ("all": one learned learning rate, "each": one
# per group, "betas": learned betas), "callback" ("init": ``grad_callback`` given to ``get_diff_optim``, with
# ``monkeypatch`` in place of ``innerloop_ctx``, which takes none; "step": given to each step).
SGD = {"lr": 0.1}
NO_TRACKING = {"track_higher_grads": False}
INNER: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    "innerloop_ctx.SGD": ("mlp", "SGD", SGD, {}),
    "innerloop_ctx.SGD.momentum": ("mlp", "SGD", {"lr": 0.1, "momentum": 0.9}, {}),
    "innerloop_ctx.SGD.nesterov.weight_decay": ("mlp", "SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True,
                                                               "weight_decay": 1e-3}, {}),
    "innerloop_ctx.SGD.dampening": ("mlp", "SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.1}, {}),
    "innerloop_ctx.SGD.param_groups": ("mlp", "SGD", SGD, {"groups": True}),
    "innerloop_ctx.Adam": ("mlp", "Adam", {"lr": 0.01}, {}),
    "innerloop_ctx.Adam.amsgrad.no_tracking": ("mlp", "Adam", {"lr": 0.01, "amsgrad": True}, NO_TRACKING),
    "innerloop_ctx.Adam.warm_state.no_tracking": ("mlp", "Adam", {"lr": 0.01}, {"warm": True, **NO_TRACKING}),
    "innerloop_ctx.Adadelta": ("mlp", "Adadelta", {"lr": 1.0, "weight_decay": 1e-3}, {}),
    "innerloop_ctx.Adagrad": ("mlp", "Adagrad", {"lr": 0.1}, {}),
    "innerloop_ctx.Adagrad.lr_decay.no_tracking": ("mlp", "Adagrad", {"lr": 0.1, "lr_decay": 0.01}, NO_TRACKING),
    "innerloop_ctx.Adamax": ("mlp", "Adamax", {"lr": 0.01, "weight_decay": 1e-3}, {}),
    "innerloop_ctx.ASGD": ("mlp", "ASGD", {"lr": 0.1, "weight_decay": 1e-3}, {}),
    "innerloop_ctx.RMSprop": ("mlp", "RMSprop", {"lr": 0.01}, {}),
    "innerloop_ctx.RMSprop.centered.momentum.no_tracking": ("mlp", "RMSprop", {"lr": 0.01, "centered": True,
                                                                               "momentum": 0.9}, NO_TRACKING),
    "innerloop_ctx.Rprop": ("mlp", "Rprop", {"lr": 0.01}, {}),
    "innerloop_ctx.conv_bn": ("conv_bn", "SGD", SGD, {"copy_initial_weights": False}),
    "innerloop_ctx.lstm": ("lstm", "SGD", SGD, {}),
    "innerloop_ctx.gru.Adamax": ("gru", "Adamax", {"lr": 0.01}, {}),
    "innerloop_ctx.tied_weights": ("tied", "SGD", SGD, {}),
    "innerloop_ctx.frozen_weight": ("frozen", "SGD", SGD, {}),
    "innerloop_ctx.no_bias": ("no_bias", "SGD", {"lr": 0.1, "momentum": 0.9}, {}),
    "innerloop_ctx.copy_initial_weights_false": ("mlp", "SGD", SGD, {"copy_initial_weights": False}),
    "innerloop_ctx.track_higher_grads_false": ("mlp", "SGD", SGD, {"track_higher_grads": False}),
    "innerloop_ctx.device": ("mlp", "SGD", SGD, {"device": "cpu"}),
    "innerloop_ctx.override.lr": ("mlp", "SGD", SGD, {"lr_override": "all"}),
    "innerloop_ctx.override.lr_per_group": ("mlp", "SGD", SGD, {"groups": True, "lr_override": "each"}),
    "innerloop_ctx.override.Adamax_betas": ("mlp", "Adamax", {"lr": 0.01}, {"lr_override": "betas"}),
    "innerloop_ctx.grad_callback": ("mlp", "SGD", SGD, {"callback": "init"}),
    "innerloop_ctx.grad_callback.step": ("mlp", "Adadelta", {"lr": 1.0}, {"callback": "step"}),
}
TRAIN = ("train_step.maml", "train_step.maml.conv_bn", "train_step.meta_sgd", "train_step.first_order",
         "meta_test.adapt")
PARTS = (
    "monkeypatch.forward.params", "monkeypatch.forward.fast_weights", "monkeypatch.inside", "make_functional",
    "monkeypatch.submodule_call", "monkeypatch.setattr_fast_weight", "monkeypatch.parameters_time",
    "monkeypatch.lstm.params", "buffer_sync", "DifferentiableSGD.step", "DifferentiableAdam.step",
    "DifferentiableSGD.step.params", "create_diff_optim.params", "create_diff_optim.fmodel",
    "get_trainable_opt_params", "apply_trainable_opt_params", "utils.get_func_params",
)


def names() -> list[str]:
    return list(INNER) + list(TRAIN) + list(PARTS)


def _net(kind: str) -> Any:
    import torch
    from torch import nn

    class _Recurrent(nn.Module):
        """A recurrent encoder over the features as a sequence of 2-feature steps, and a linear head."""

        def __init__(self, cell: type[nn.Module]) -> None:
            super().__init__()
            self.rnn = cell(2, HIDDEN, batch_first=True)
            self.head = nn.Linear(HIDDEN, CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out, _ = self.rnn(x.reshape(x.shape[0], -1, 2))
            return self.head(out[:, -1])

    class _Tied(nn.Module):
        """One linear layer applied twice (its parameters appear once in the patched model's mapping), and a
        parameter of the root module itself."""

        def __init__(self) -> None:
            super().__init__()
            self.shared = nn.Linear(FEATURES, FEATURES)
            self.twice = nn.Sequential(self.shared, nn.Tanh(), self.shared)
            self.head = nn.Linear(FEATURES, CLASSES)
            self.scale = nn.Parameter(torch.ones(CLASSES))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(torch.relu(self.twice(x))) * self.scale

    if kind == "conv_bn":
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                             nn.Flatten(), nn.Linear(4, CLASSES))
    if kind in ("lstm", "gru"):
        return _Recurrent(nn.LSTM if kind == "lstm" else nn.GRU)
    if kind == "tied":
        return _Tied()
    if kind == "no_bias":
        return nn.Sequential(nn.Linear(FEATURES, HIDDEN, bias=False), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    net = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))
    if kind == "frozen":
        net[0].bias.requires_grad_(False)
    return net


def _task(kind: str = "mlp", seed: int = 1) -> tuple[Any, ...]:
    """A support set and a query set: inputs and class labels."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    shape = (BATCH, 1, 6, 6) if kind == "conv_bn" else (BATCH, FEATURES)
    return (torch.randn(*shape, generator=gen), torch.randint(0, CLASSES, (BATCH,), generator=gen),
            torch.randn(*shape, generator=gen), torch.randint(0, CLASSES, (BATCH,), generator=gen))


def _optimizer(net: Any, name: str, keywords: dict[str, Any], groups: bool = False) -> Any:
    import torch

    cls = getattr(torch.optim, name)
    if not groups:
        return cls(net.parameters(), **keywords)
    params = list(net.parameters())
    half = len(params) // 2
    return cls([{"params": params[:half]}, {"params": params[half:], "lr": keywords["lr"] * 0.5}], **keywords)


def _warm(net: Any, opt: Any, task: tuple[Any, ...]) -> None:
    """One ordinary optimizer step, so the optimizer holds state that the differentiable one copies."""
    import torch.nn.functional as F

    opt.zero_grad()
    F.cross_entropy(net(task[0]), task[1]).backward()
    opt.step()
    opt.zero_grad()


def _clip(grads: Any) -> Any:
    import torch

    return [None if g is None else torch.clamp(g, -0.5, 0.5) for g in grads]


def _diff_class(opt: Any) -> Any:
    from higher import optim

    return optim._opt_mapping[type(opt)]


def _inner(name: str) -> Built:
    import higher
    import torch
    import torch.nn.functional as F
    from higher import optim
    from torch import nn

    kind, opt_name, keywords, options = INNER[name]
    options = dict(options)
    net = _net(kind)
    task = _task(kind)
    groups = options.pop("groups", False)
    opt = _optimizer(net, opt_name, keywords, groups)
    if options.pop("warm", False):
        _warm(net, opt, task)
    lr_override = options.pop("lr_override", None)
    callback = options.pop("callback", None)
    if "device" in options:
        options["device"] = torch.device(options["device"])
    override: dict[str, list[Any]] | None = None
    if lr_override == "all":
        override = {"lr": [torch.tensor(0.1, requires_grad=True)]}
    elif lr_override == "each":
        override = {"lr": [torch.tensor(0.1, requires_grad=True), torch.tensor(0.05, requires_grad=True)]}
    elif lr_override == "betas":
        override = {"betas": [(torch.tensor(0.8, requires_grad=True), torch.tensor(0.99, requires_grad=True))]}
    diff_class = _diff_class(opt)

    class _Adapt(nn.Module):
        """``innerloop_ctx``, ``STEPS`` inner steps on the support set, the query loss."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, xs: torch.Tensor, ys: torch.Tensor, xq: torch.Tensor, yq: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                if callback == "init":
                    fnet = higher.monkeypatch(self.net, **options)
                    diffopt = optim.get_diff_optim(opt, self.net.parameters(), fmodel=fnet, override=override,
                                                   grad_callback=_clip)
                    return self.adapt(fnet, diffopt, xs, ys, xq, yq)
                with higher.innerloop_ctx(self.net, opt, override=override, **options) as (fnet, diffopt):
                    return self.adapt(fnet, diffopt, xs, ys, xq, yq)

        def adapt(self, fnet: Any, diffopt: Any, xs: torch.Tensor, ys: torch.Tensor, xq: torch.Tensor,
                  yq: torch.Tensor) -> torch.Tensor:
            for _ in range(STEPS):
                loss = F.cross_entropy(fnet(xs), ys)
                if callback == "step":
                    diffopt.step(loss, grad_callback=_clip)
                else:
                    diffopt.step(loss)
            return F.cross_entropy(fnet(xq), yq)

        def entry_points(self) -> list[Any]:
            entered = [optim.DifferentiableOptimizer.step, diff_class._update]
            if callback == "init":
                return [higher.monkeypatch, optim.get_diff_optim, *entered]
            return [higher.innerloop_ctx, *entered]

    return _Adapt(), task, {}


def _train(name: str) -> Built:
    import higher
    import torch
    import torch.nn.functional as F
    from higher import optim
    from torch import nn

    kind = "conv_bn" if name.endswith("conv_bn") else "mlp"
    net = _net(kind)
    task = _task(kind)
    inner_opt = torch.optim.SGD(net.parameters(), lr=0.1)
    if name == "train_step.meta_sgd":
        override = optim.get_trainable_opt_params(inner_opt)
        meta_params = list(net.parameters()) + [t for values in override.values() for t in optim._utils.flatten(values)
                                                if isinstance(t, torch.Tensor)]
    else:
        override = None
        meta_params = list(net.parameters())
    meta_opt = torch.optim.Adam(meta_params, lr=1e-3)
    first_order = name == "train_step.first_order"
    test = name == "meta_test.adapt"

    class _MetaStep(nn.Module):
        """One meta-training step: adapt on the support set, query loss, backward, outer step (or, at meta
        test, adaptation without higher-order tracking and the query accuracy)."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, xs: torch.Tensor, ys: torch.Tensor, xq: torch.Tensor, yq: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                if not test:
                    meta_opt.zero_grad()
                with higher.innerloop_ctx(self.net, inner_opt, copy_initial_weights=False, override=override,
                                          track_higher_grads=not (first_order or test)) as (fnet, diffopt):
                    for _ in range(STEPS):
                        diffopt.step(F.cross_entropy(fnet(xs), ys))
                    logits = fnet(xq)
                    if test:
                        return (logits.detach().argmax(dim=1) == yq).float().mean()
                    loss = F.cross_entropy(logits, yq)
                    if first_order:
                        grads = torch.autograd.grad(loss, list(fnet.parameters()))
                        for p, g in zip(self.net.parameters(), grads):
                            p.grad = g
                    else:
                        loss.backward()
                meta_opt.step()
                return loss.detach()

        def entry_points(self) -> list[Any]:
            return [higher.innerloop_ctx, optim.DifferentiableOptimizer.step, optim.DifferentiableSGD._update]

    return _MetaStep(), task, {}


def _parts(name: str) -> Built:
    import higher
    import torch
    import torch.nn.functional as F
    from higher import optim, patch, utils

    from gt_calls import Run

    # a patched submodule finds its root through a weak reference taken only when the root is truthy: an empty
    # ``Sequential`` root is not, so the direct submodule call and the attribute assignment use a plain module
    kind = ("lstm" if ".lstm" in name else "conv_bn" if name == "buffer_sync"
            else "tied" if name in ("monkeypatch.submodule_call", "monkeypatch.setattr_fast_weight") else "mlp")
    net = _net(kind)
    xs, ys, xq, yq = _task(kind)
    params = [p.detach().clone().requires_grad_() for p in net.parameters()]

    def wrap(owner: Any, run: Any, entries: list[Any], *inputs: Any) -> Built:
        return Run(owner, run, entries), inputs, {}

    if name in ("monkeypatch.forward.params", "monkeypatch.lstm.params"):
        fnet = higher.monkeypatch(net)

        def forward_params(owner: Any, x: Any, *weights: Any) -> Any:
            return owner(x, params=list(weights))

        return wrap(fnet, forward_params, [type(fnet).forward], xs, *params)
    if name == "monkeypatch.forward.fast_weights":
        fnet = higher.monkeypatch(net, copy_initial_weights=False)
        return fnet, (xs,), {}
    if name in ("monkeypatch.inside", "make_functional"):
        def patch_then_call(owner: Any, x: Any) -> Any:
            if name == "make_functional":
                return patch.make_functional(owner)(x, params=list(owner.parameters()))
            return higher.monkeypatch(owner, copy_initial_weights=False)(x)

        entry = patch.make_functional if name == "make_functional" else higher.monkeypatch
        return wrap(net, patch_then_call, [entry], xs)
    if name == "monkeypatch.submodule_call":
        fnet = higher.monkeypatch(net)
        return wrap(fnet, lambda owner, x: owner.head(torch.relu(owner.shared(x))), [type(fnet.head).forward], xs)
    if name == "monkeypatch.setattr_fast_weight":
        fnet = higher.monkeypatch(net)

        def assign(owner: Any, x: Any, delta: Any) -> Any:
            owner.scale = owner.scale + delta  # on the root: a patched submodule has no ``update_params``
            return owner(x)

        return wrap(fnet, assign, [type(fnet).__setattr__, type(fnet).forward], xs, torch.full((CLASSES,), 0.01))
    if name == "monkeypatch.parameters_time":
        fnet = higher.monkeypatch(net, copy_initial_weights=False)
        diffopt = optim.get_diff_optim(torch.optim.SGD(net.parameters(), lr=0.1), net.parameters(), fmodel=fnet)

        def drift(owner: Any, x: Any, y: Any) -> Any:
            with torch.enable_grad():
                diffopt.step(F.cross_entropy(owner(x), y))
                now = list(owner.parameters())
                first = list(owner.parameters(time=0))
                start = owner.init_fast_params
                return sum((a - b).pow(2).sum() + (b - c).abs().sum() for a, b, c in zip(now, first, start))

        return wrap(fnet, drift, [patch._patched_parameters, type(fnet).init_fast_params.fget,
                                  optim.DifferentiableOptimizer.step], xs, ys)
    if name == "buffer_sync":
        fnet = higher.monkeypatch(net)

        def sync_then_call(owner: Any, x: Any) -> Any:
            patch.buffer_sync(net, owner)
            return owner(x)

        return wrap(fnet, sync_then_call, [patch.buffer_sync, type(fnet).forward], xs)
    if name in ("DifferentiableSGD.step", "DifferentiableAdam.step"):
        tracking = "SGD" in name  # Adam masks its state with a gradient hook while tracking, which Dynamo cannot
        fnet = higher.monkeypatch(net, copy_initial_weights=False, track_higher_grads=tracking)
        opt = (torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9) if "SGD" in name
               else torch.optim.Adam(net.parameters(), lr=0.01))
        diffopt = optim.get_diff_optim(opt, net.parameters(), fmodel=fnet, track_higher_grads=tracking)
        with torch.enable_grad():
            diffopt.step(F.cross_entropy(fnet(xs), ys))  # state filled as after a first inner step

        def one_step(owner: Any, x: Any, y: Any) -> Any:
            with torch.enable_grad():
                new = diffopt.step(F.cross_entropy(owner(x), y))
                return sum(p.sum() for p in new)

        return wrap(fnet, one_step, [optim.DifferentiableOptimizer.step, type(diffopt)._update], xs, ys)
    if name in ("DifferentiableSGD.step.params", "create_diff_optim.params"):
        fnet = patch.make_functional(net)
        prebuilt = None
        if name == "DifferentiableSGD.step.params":
            prebuilt = optim.get_diff_optim(torch.optim.SGD(net.parameters(), lr=0.1), net.parameters())

        def explicit(owner: Any, x: Any, y: Any, *weights: Any) -> Any:
            """Inner steps on explicit fast weights (the bench holds the original module: a functional model
            without fast weights has only placeholders for parameters)."""
            with torch.enable_grad():
                weights_ = list(weights)
                diffopt = prebuilt or optim.create_diff_optim(torch.optim.SGD, {"lr": 0.1}, params=weights_)
                for _ in range(STEPS):
                    weights_ = diffopt.step(F.cross_entropy(fnet(x, params=weights_), y), params=weights_)
                return F.cross_entropy(fnet(x, params=weights_), y)

        entries = [optim.DifferentiableOptimizer.step, optim.DifferentiableSGD._update]
        if prebuilt is None:
            entries.append(optim.create_diff_optim)
        return wrap(net, explicit, entries, xs, ys, *params)
    if name == "create_diff_optim.fmodel":
        fnet = higher.monkeypatch(net)

        def created(owner: Any, x: Any, y: Any) -> Any:
            with torch.enable_grad():
                diffopt = optim.create_diff_optim(torch.optim.Adamax, {"lr": 0.01}, fmodel=owner)
                diffopt.step(F.cross_entropy(owner(x), y))
                return F.cross_entropy(owner(x), y)

        return wrap(fnet, created, [optim.create_diff_optim, optim.DifferentiableOptimizer.step,
                                    optim.DifferentiableAdamax._update], xs, ys)
    if name == "get_trainable_opt_params":
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.5)
        return wrap(net, lambda owner, x: sum(sum(t.sum() for t in utils.flatten(v) if isinstance(t, torch.Tensor))
                                              for v in optim.get_trainable_opt_params(opt).values()) * x.sum(),
                    [optim.get_trainable_opt_params], xs)
    if name == "apply_trainable_opt_params":
        opt = torch.optim.Adam(net.parameters(), lr=0.01)

        def apply_learned(owner: Any, lr: Any) -> Any:
            optim.apply_trainable_opt_params(opt, {"lr": [lr * 2], "betas": [(lr + 0.8, lr + 0.9)]})
            return lr * opt.param_groups[0]["lr"]

        return wrap(net, apply_learned, [optim.apply_trainable_opt_params], torch.tensor(0.05))
    return wrap(net, lambda owner, x: sum(p.sum() for p in utils.get_func_params(owner)) + x.sum(),
                [utils.get_func_params], xs)


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in INNER:
        return _inner(name)
    if name in TRAIN:
        return _train(name)
    return _parts(name)
