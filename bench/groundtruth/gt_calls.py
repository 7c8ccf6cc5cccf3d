"""Ground-truth bench, library functions as models: a function compiled under a module's interface.

``library_call("torch_geometric.utils", "k_hop_subgraph", *args, **static)`` is a builder: it imports
the function, wraps it in ``Call`` (an ``nn.Module`` without parameters, so the worker can switch it
between ``train`` and ``eval``) and returns ``(module, args, kwargs)``. The wrapper lives in the bench,
outside the library: static dynalint cannot see that the function is compiled, so the worker records
what the model enters (``entry_points``) and the static side declares it (``compiled`` in
``[tool.dynalint]``). Imported inside a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from torch import nn

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]


class Call(nn.Module):
    """A library function under a module's interface (``train`` / ``eval``, no parameters)."""

    def __init__(self, function: Callable[..., Any], **static: Any) -> None:
        super().__init__()
        self.function = function
        self.static = static

    def forward(self, *args: Any) -> Any:
        return self.function(*args, **self.static)

    def entry_points(self) -> list[Callable[..., Any]]:
        return [self.function]


class Keywords(Call):
    """A library module called with fixed keywords (tensors among them: masks, histories, residuals);
    what it enters is the module's class."""

    def entry_points(self) -> list[Any]:
        return [type(self.function)]


class Run(nn.Module):
    """A bench module holding ``owner`` (a model, a part of one, any object) whose forward is ``run(owner, *inputs)``;
    ``entries`` are the library functions it enters."""

    def __init__(self, owner: Any, run: Callable[..., Any], entries: list[Any]) -> None:
        super().__init__()
        self.owner = owner
        self.run = run
        self.entries = entries

    def forward(self, *inputs: Any) -> Any:
        return self.run(self.owner, *inputs)

    def entry_points(self) -> list[Any]:
        return self.entries


class Method(nn.Module):
    """One method of a library module (``generate``, ``sample``, ``integrate``) as the compiled forward."""

    def __init__(self, owner: nn.Module, name: str, **static: Any) -> None:
        super().__init__()
        self.owner = owner
        self.name = name
        self.static = static

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(self.owner, self.name)(*args, **self.static, **kwargs)

    def entry_points(self) -> list[Callable[..., Any]]:
        return [getattr(type(self.owner), self.name)]


class OptimizerStep(nn.Module):
    """One ``optimizer.step()`` over ``net``'s parameters as the compiled forward (users compile
    ``opt.step``). Given one gradient per parameter, it assigns fresh copies (some optimizers write into
    ``.grad``) and steps. Given ``loss`` instead, it takes ``loss``'s inputs and runs
    ``loss(...).backward(create_graph=True)`` first, with gradients enabled whatever the mode: the step
    then differentiates the gradients again (AdaHessian's estimate of the Hessian's diagonal)."""

    def __init__(self, net: nn.Module, optimizer: Any, loss: Callable[..., Any] | None = None) -> None:
        super().__init__()
        self.net = net
        self.optimizer = optimizer
        self.loss = loss

    def forward(self, *tensors: Any) -> Any:
        import torch

        if self.loss is not None:
            with torch.enable_grad():
                self.optimizer.zero_grad()
                self.loss(*tensors).backward(create_graph=True)
                return self.optimizer.step()
        for parameter, grad in zip(self.net.parameters(), tensors):
            parameter.grad = grad.clone()
        return self.optimizer.step()

    def entry_points(self) -> list[Callable[..., Any]]:
        return [type(self.optimizer).step]


def entry_points(model: Any) -> list[str]:
    """The library code a compiled ``model`` enters, as ``module:qualname``: what a bench wrapper says it
    calls (``entry_points()``), else the model's own class (its ``forward``)."""
    entered = model.entry_points() if hasattr(model, "entry_points") else [type(model)]
    return [f"{getattr(e, '__module__', '?')}:{getattr(e, '__qualname__', '?')}" for e in map(_named, entered)]


def _named(entered: Any) -> Any:
    """What an entry point runs, as something with a qualified name: the function a ``functools.partial``
    wraps, the function of a bound method, and the class of an instance (calling it runs the class's
    ``__call__``). Until 2026-11-28 these were written ``functools:?`` or ``pkg.mod:?``, which the static side
    cannot declare."""
    while isinstance(entered, functools.partial):
        entered = entered.func
    entered = getattr(entered, "__func__", entered)
    return entered if hasattr(entered, "__qualname__") else type(entered)


def library_call(module: str, name: str, *args: Any, **static: Any) -> Callable[[], Built]:
    """A builder of ``Call(module.name)`` with ``args`` as inputs and ``static`` as fixed keywords."""
    def build() -> Built:
        return Call(getattr(importlib.import_module(module), name), **static), args, {}
    return build
