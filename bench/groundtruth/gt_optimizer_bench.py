"""Ground-truth bench: what the optimizer libraries' builders share (``gt_dadaptation``, ``gt_prodigyopt``,
``gt_madgrad``, ``gt_adabelief_pytorch``).

An optimizer is benched on a tiny network: an MLP (``DIM -> HIDDEN -> OUT``) or a small conv net with batch
norm, batch ``BATCH``. Its model is either one ``optimizer.step()`` with the gradients handed in
(``gt_calls.OptimizerStep``, ``step_model``, after two eager steps for a run under way), or a compiled
training step (``zero_grad()``, the loss, ``backward()``, ``step()``) or ``step(closure)`` (``train_step_model``). Imported by the workers
only: it imports torch.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from gt_calls import OptimizerStep

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, HIDDEN, OUT, BATCH = 8, 16, 4, 2
VOCAB = 12  # the embedding bag's token ids
# The kinds of model that are one ``optimizer.step()`` with gradients handed in; the others are training steps.
STEP_KINDS = frozenset({"step", "warm", "groups", "layer_scale", "frozen", "zeros"})


def tiny_net(kind: str) -> nn.Module:
    """``mlp``: ``DIM -> HIDDEN -> OUT``; ``conv``: a 3-channel conv net with batch norm down to ``OUT``."""
    if kind == "mlp":
        return nn.Sequential(nn.Linear(DIM, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(8, OUT))


def tiny_inputs(kind: str) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch for ``tiny_net(kind)`` and its regression targets, from a fixed generator."""
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, DIM, generator=gen) if kind == "mlp" else torch.randn(BATCH, 3, 8, 8, generator=gen)
    return x, torch.randn(BATCH, OUT, generator=gen)


def tiny_model(kind: str) -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    """``tiny_net(kind)`` and its batch; ``bf16``: the MLP and its batch in bfloat16."""
    if kind == "bf16":
        x, y = tiny_inputs("mlp")
        return tiny_net("mlp").to(torch.bfloat16), x.to(torch.bfloat16), y.to(torch.bfloat16)
    return (tiny_net(kind), *tiny_inputs(kind))


class _EmbeddingBag(nn.Module):
    """Token ids -> a sparse-gradient embedding, averaged, then a dense head."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HIDDEN, sparse=True)
        self.head = nn.Linear(HIDDEN, OUT)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.embedding(ids).mean(1))


def embedding_bag() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    """A network with sparse gradients (for the optimizers that take them), token ids and regression targets."""
    gen = torch.Generator().manual_seed(1)
    ids = torch.randint(0, VOCAB, (BATCH, 5), generator=gen)
    return _EmbeddingBag(), ids, torch.randn(BATCH, OUT, generator=gen)


def gradients_at(net: nn.Module, x: torch.Tensor, y: torch.Tensor) -> Callable[[int], tuple[torch.Tensor, ...]]:
    """The gradients of the MSE loss at inputs scaled by ``1 + 0.1 * seed``: a different step for each seed."""

    def gradients(seed: int) -> tuple[torch.Tensor, ...]:
        grads = torch.autograd.grad(F.mse_loss(net(x * (1.0 + 0.1 * seed)), y), list(net.parameters()))
        return tuple(g.detach() for g in grads)

    return gradients


def optimizer_model(cls: Any, keywords: dict[str, Any], kind: str, net: nn.Module, x: torch.Tensor, y: torch.Tensor,
                    groups: dict[str, dict[str, Any]]) -> Built:
    """``cls(parameters, **keywords)`` benched as ``kind``: a step (``STEP_KINDS``), ``restart`` (``restart_opt()``
    then a training step), ``closure`` or a training step. Its parameters: with ``kind`` in ``groups``, two groups
    (the first layer, and the last with ``groups[kind]``'s settings); ``frozen``: one more parameter that never
    gets a gradient; else the network's."""
    if kind in groups:
        parameters: Any = [{"params": list(net[0].parameters())}, {"params": list(net[2].parameters()), **groups[kind]}]
    elif kind == "frozen":
        parameters = [*net.parameters(), nn.Parameter(torch.zeros(OUT))]
    else:
        parameters = net.parameters()
    optimizer = cls(parameters, **keywords)
    if kind in STEP_KINDS:
        return step_model(net, optimizer, x, y, warm=kind == "warm")
    if kind == "restart":
        return train_step_model(net, optimizer, x, y, closure=False, before=lambda opt: opt.restart_opt(),
                                entry_points=[cls.restart_opt, cls.step])
    return train_step_model(net, optimizer, x, y, closure=kind == "closure")


def step_model(net: nn.Module, optimizer: Any, x: torch.Tensor, y: torch.Tensor, warm: bool,
               gradients: Callable[[int], tuple[torch.Tensor, ...]] | None = None) -> Built:
    """One ``optimizer.step()``; ``warm``: after two eager steps, so the compiled step starts with the state. The
    gradients of each step are ``gradients(seed)``, by default ``gradients_at(net, x, y)``."""
    gradients = gradients or gradients_at(net, x, y)
    if warm:
        for seed in range(2):
            for parameter, grad in zip(net.parameters(), gradients(seed)):
                parameter.grad = grad.clone()
            optimizer.step()
    return OptimizerStep(net, optimizer), gradients(3), {}


def train_step_model(net: nn.Module, optimizer: Any, x: torch.Tensor, y: torch.Tensor, closure: bool,
                     before: Callable[[Any], Any] | None = None, entry_points: list[Any] | None = None) -> Built:
    """A compiled training step: with ``closure``, ``optimizer.step(closure)``; else ``before(optimizer)`` (if
    given, such as ``restart_opt``), zero_grad, loss, backward (under ``enable_grad``), step, and the network's
    output. The optimizer is the step's closure variable, as in a user's training script."""
    entries = entry_points or [type(optimizer).step]

    class _TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            def loss_and_gradients() -> torch.Tensor:
                optimizer.zero_grad()
                with torch.enable_grad():
                    loss = F.mse_loss(self.net(x), y)
                    loss.backward()
                return loss

            if closure:
                return optimizer.step(loss_and_gradients)
            if before is not None:
                before(optimizer)
            loss = loss_and_gradients()
            optimizer.step()
            return self.net(x) + loss.detach()

        def entry_points(self) -> list[Any]:
            return entries

    return _TrainStep(), (x, y), {}
