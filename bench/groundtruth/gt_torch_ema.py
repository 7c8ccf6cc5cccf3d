"""Ground-truth bench, torch_ema (torch-ema): an exponential moving average of a model's parameters.

torch-ema has one class, ``ExponentialMovingAverage(parameters, decay, use_num_updates=True)``: it keeps
shadow copies of the parameters (and weak references to them) and offers ``update()`` (after each
optimizer step; with ``use_num_updates`` the decay warms up with the number of updates), ``copy_to()``,
``store()`` / ``restore()``, the ``average_parameters()`` context manager (for validation with the
averaged weights), ``to()`` and ``state_dict()`` / ``load_state_dict()``; each method takes the
parameters explicitly or uses the ones it was built with. Each model is a bench module holding a tiny
network (an MLP 8 -> 16 -> 4, the same with batch norm and a frozen layer, or a small conv net, batch 2)
and its EMA, whose forward runs a sequence of those calls as a training loop does and returns the
network's output (or the loss):

- ``update``: an in-place change of the online weights (an optimizer step's stand-in), then
  ``update()``, with and without ``use_num_updates``, with the parameters given or not, on the
  trainable parameters only;
- ``copy_to``, ``store`` / ``copy_to`` / ``restore`` and ``average_parameters()``, each with the
  parameters given or not, after an update;
- ``state_dict`` and a ``state_dict`` / ``load_state_dict`` round trip (with stored parameters too),
  ``to()`` a device and a dtype (the round trip with stored parameters stores them under ``no_grad``:
  ``load_state_dict`` deep-copies them, which fails eagerly for clones that carry a graph);
- training steps: the loss, ``backward()``, a ``torch.optim`` step and ``update()``, followed by an
  evaluation under ``average_parameters()``, and a mean-teacher loss against the averaged network.

The harness calls each model twice in eval and twice in train mode; the EMA's state (its update count)
carries over between calls. Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, OUT, BATCH = 8, 16, 4, 2

# Model name -> (net: "mlp", "bn" (batch norm, first layer frozen) or "conv", use_num_updates, the calls its
# forward makes in order). A call ending in ".params" passes the parameters explicitly. "perturb" changes
# the online weights in place; "forward" runs the network (its output is returned, else the last one).
MODELS: dict[str, tuple[str, bool, tuple[str, ...]]] = {
    "update": ("mlp", False, ("perturb", "update", "forward")),
    "update.num_updates": ("mlp", True, ("perturb", "update", "forward")),
    "update.params": ("mlp", False, ("perturb", "update.params", "forward")),
    "update.num_updates.params": ("mlp", True, ("perturb", "update.params", "forward")),
    "update.trainable_only": ("bn", True, ("perturb", "update.params", "forward")),
    "update.conv": ("conv", True, ("perturb", "update", "forward")),
    "copy_to": ("mlp", False, ("perturb", "update", "copy_to", "forward")),
    "copy_to.params": ("mlp", True, ("perturb", "update", "copy_to.params", "forward")),
    "store_restore": ("mlp", True, ("perturb", "update", "store", "copy_to", "forward", "restore")),
    "store_restore.params": ("bn", False, ("perturb", "update.params", "store.params", "copy_to.params", "forward",
                                           "restore.params")),
    "average_parameters": ("mlp", True, ("perturb", "update", "average")),
    "average_parameters.params": ("bn", True, ("perturb", "update.params", "average.params")),
    "average_parameters.conv": ("conv", False, ("perturb", "update", "average")),
    "state_dict": ("mlp", True, ("perturb", "update", "state_dict", "forward")),
    "state_dict.load_state_dict": ("mlp", True, ("perturb", "update", "load_state_dict", "forward")),
    "state_dict.load_state_dict.stored": ("mlp", False, ("perturb", "update", "store.no_grad", "load_state_dict", "restore",
                                                         "forward")),
    "to.device": ("mlp", True, ("to.device", "perturb", "update", "forward")),
    "to.dtype.copy_to": ("mlp", False, ("perturb", "update", "store", "to.dtype", "copy_to", "forward", "restore")),
    "train_step.sgd": ("mlp", False, ("train_step.sgd",)),
    "train_step.adam.num_updates": ("mlp", True, ("train_step.adam",)),
    "train_step.sgd.then_average": ("bn", True, ("train_step.sgd", "average.params")),
    "train_step.conv.then_average": ("conv", True, ("train_step.adam", "average")),
    "mean_teacher": ("mlp", True, ("mean_teacher",)),
}


def names() -> list[str]:
    return list(MODELS)


def _net(kind: str) -> Any:
    from torch import nn

    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    if kind == "bn":
        net = nn.Sequential(nn.Linear(DIM, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
        net[0].requires_grad_(False)  # a frozen layer: the EMA follows the trainable parameters only
        return net
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.SiLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(8, OUT))


def build(name: str) -> Built:
    import warnings

    import torch
    import torch.nn.functional as F
    from torch import nn
    from torch_ema import ExponentialMovingAverage

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    kind, use_num_updates, calls = MODELS[name]
    net = _net(kind)
    trainable = [p for p in net.parameters() if p.requires_grad]
    ema = ExponentialMovingAverage(trainable, decay=0.9, use_num_updates=use_num_updates)
    optimizers = {"sgd": torch.optim.SGD(trainable, lr=0.1), "adam": torch.optim.Adam(trainable, lr=1e-2)}
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, 3, 8, 8, generator=gen) if kind == "conv" else torch.randn(BATCH, DIM, generator=gen)
    y = torch.randn(BATCH, OUT, generator=gen)
    entered = {"update": ExponentialMovingAverage.update, "copy_to": ExponentialMovingAverage.copy_to,
               "store": ExponentialMovingAverage.store, "restore": ExponentialMovingAverage.restore,
               "average": ExponentialMovingAverage.average_parameters,
               "state_dict": ExponentialMovingAverage.state_dict,
               "load_state_dict": ExponentialMovingAverage.load_state_dict, "to": ExponentialMovingAverage.to,
               "train_step": ExponentialMovingAverage.update, "mean_teacher": ExponentialMovingAverage.update}

    class _WithEMA(nn.Module):
        """A network holding its EMA; forward makes the calls of a training or evaluation loop."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.ema = ema

        def parameters_of(self) -> list[torch.Tensor]:
            return [p for p in self.net.parameters() if p.requires_grad]

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            out = x
            for call in calls:
                params = self.parameters_of() if call.endswith(".params") else None
                base = call.split(".")[0]
                if call == "perturb":
                    with torch.no_grad():
                        for p in self.parameters_of():
                            p.mul_(0.99).add_(0.01)
                elif call == "forward":
                    out = self.net(x)
                elif base == "update":
                    self.ema.update(params)
                elif base == "copy_to":
                    self.ema.copy_to(params)
                elif call == "store.no_grad":
                    with torch.no_grad():  # as in a validation loop; a stored clone with a graph cannot be deep-copied
                        self.ema.store()
                elif base == "store":
                    self.ema.store(params)
                elif base == "restore":
                    self.ema.restore(params)
                elif base == "average":
                    with self.ema.average_parameters(params):
                        out = self.net(x)
                elif call == "state_dict":
                    state = self.ema.state_dict()
                    out = self.net(x) + sum(s.sum() for s in state["shadow_params"])
                elif call == "load_state_dict":
                    self.ema.load_state_dict(self.ema.state_dict())
                elif call == "to.device":
                    self.ema.to(device=x.device)
                elif call == "to.dtype":
                    self.ema.to(dtype=torch.float64)
                elif base == "train_step":
                    optimizer = optimizers[call.split(".")[1]]
                    optimizer.zero_grad()
                    with torch.enable_grad():
                        loss = F.mse_loss(self.net(x), y)
                        loss.backward()
                    optimizer.step()
                    self.ema.update()
                    out = loss.detach()
                elif call == "mean_teacher":
                    optimizer = optimizers["sgd"]
                    optimizer.zero_grad()
                    with torch.no_grad(), self.ema.average_parameters():
                        teacher = self.net(x + 0.1)
                    with torch.enable_grad():
                        pred = self.net(x)
                        loss = F.mse_loss(pred, y) + F.mse_loss(pred, teacher)
                        loss.backward()
                    optimizer.step()
                    self.ema.update()
                    out = loss.detach()
            return out

        def entry_points(self) -> list[Any]:
            return list(dict.fromkeys(entered[c.split(".")[0]] for c in calls if c.split(".")[0] in entered))

    return _WithEMA(), (x, y), {}
