"""Ground-truth bench, torch_optimizer: one compiled ``step()`` of each optimizer of torch-optimizer 0.3.0.

torch-optimizer's optimizers are ``torch.optim.Optimizer`` subclasses used as torch's own are
(``optimizer = torch_optimizer.Yogi(model.parameters()); loss.backward(); optimizer.step()``), and their
``step()`` is what users compile, as PyTorch's compiled-optimizer tutorial compiles ``opt.step()`` after
an eager backward pass. So each model of ``OPTIMIZERS`` is a bench module (``Step``) holding a small
network with a 4-D (convolution), a 2-D (linear) and a 1-D (bias) parameter, whose forward takes one
gradient per parameter (computed eagerly beforehand, by a real backward pass on a random batch),
assigns them to the parameters' ``.grad`` and calls the optimizer's own ``step()``. The harness calls
it four times, so the first step (state initialisation) and the later ones are both traced.

Every optimizer 0.3.0 exports is covered (A2GradExp/Inc/Uni, AccSGD, AdaBelief, AdaBound, AdaMod,
Adafactor, Adahessian, AdamP, AggMo, Apollo, DiffGrad, LARS, Lamb, Lookahead, MADGRAD, NovoGrad, PID,
QHAdam, QHM, RAdam, Ranger, RangerQH, RangerVA, SGDP, SGDW, SWATS, Shampoo, Yogi; 0.3.0 has no Lion),
at its defaults and, after a dot, with the options that take other code paths (weight decay and its
decoupled forms, AMSGrad-like bounds, momentum, Nesterov, rectification, warm-up, relative steps).
``Lookahead`` wraps Yogi and RAdam with ``k=2``, so its slow-weight update runs within the four steps.
``Adahessian`` differentiates the gradients again, so its forward takes the batch instead and runs the
``loss.backward(create_graph=True)`` its documentation asks for before ``step()``. ``Ranger``,
``RangerQH`` and ``RangerVA`` are re-exported from ``pytorch_ranger``. Random weights, nothing
downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

# Model name -> (class exported by ``torch_optimizer``, keywords). ``Lookahead``'s keywords name the wrapped
# optimizer (``base``) and its own.
OPTIMIZERS: dict[str, tuple[str, dict[str, Any]]] = {
    "A2GradExp": ("A2GradExp", {}),
    "A2GradInc": ("A2GradInc", {}),
    "A2GradUni": ("A2GradUni", {}),
    "AccSGD": ("AccSGD", {}),
    "AccSGD.weight_decay": ("AccSGD", {"weight_decay": 1e-3}),
    "AdaBelief": ("AdaBelief", {}),
    "AdaBelief.amsgrad_decoupled": ("AdaBelief", {"amsgrad": True, "weight_decouple": True, "weight_decay": 1e-2}),
    "AdaBelief.rectify": ("AdaBelief", {"rectify": True, "weight_decouple": True, "fixed_decay": True,
                                        "weight_decay": 1e-2}),
    "AdaBelief.weight_decay": ("AdaBelief", {"weight_decay": 1e-2}),
    "AdaBound": ("AdaBound", {}),
    "AdaBound.amsbound": ("AdaBound", {"amsbound": True, "weight_decay": 1e-3}),
    "AdaMod": ("AdaMod", {}),
    "AdaMod.weight_decay": ("AdaMod", {"weight_decay": 1e-3}),
    "Adafactor": ("Adafactor", {}),
    "Adafactor.first_moment": ("Adafactor", {"lr": 1e-2, "relative_step": False, "scale_parameter": False,
                                             "beta1": 0.9, "weight_decay": 1e-3}),
    "Adafactor.warmup_init": ("Adafactor", {"warmup_init": True}),
    "Adahessian": ("Adahessian", {"seed": 0}),
    "AdamP": ("AdamP", {}),
    "AdamP.nesterov": ("AdamP", {"nesterov": True, "weight_decay": 1e-2}),
    "AggMo": ("AggMo", {}),
    "AggMo.weight_decay": ("AggMo", {"betas": (0.0, 0.5), "weight_decay": 1e-3}),
    "Apollo": ("Apollo", {}),
    "Apollo.warmup": ("Apollo", {"warmup": 2, "weight_decay": 1e-3}),
    "DiffGrad": ("DiffGrad", {}),
    "DiffGrad.weight_decay": ("DiffGrad", {"weight_decay": 1e-3}),
    "LARS": ("LARS", {}),
    "LARS.momentum": ("LARS", {"momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}),
    "Lamb": ("Lamb", {}),
    "Lamb.adam_debias": ("Lamb", {"adam": True, "debias": True, "weight_decay": 1e-3}),
    "Lookahead.Yogi": ("Lookahead", {"base": "Yogi", "k": 2, "alpha": 0.5}),
    "Lookahead.RAdam": ("Lookahead", {"base": "RAdam", "k": 2, "alpha": 0.8}),
    "MADGRAD": ("MADGRAD", {}),
    "MADGRAD.no_momentum": ("MADGRAD", {"momentum": 0.0, "weight_decay": 1e-3}),
    "NovoGrad": ("NovoGrad", {}),
    "NovoGrad.amsgrad": ("NovoGrad", {"amsgrad": True, "grad_averaging": True, "weight_decay": 1e-3}),
    "PID": ("PID", {}),
    "PID.momentum": ("PID", {"momentum": 0.9, "weight_decay": 1e-3}),
    "QHAdam": ("QHAdam", {}),
    "QHAdam.decoupled": ("QHAdam", {"nus": (0.7, 0.9), "weight_decay": 1e-3, "decouple_weight_decay": True}),
    "QHAdam.weight_decay": ("QHAdam", {"nus": (0.7, 1.0), "weight_decay": 1e-3}),
    "QHM": ("QHM", {}),
    "QHM.direct": ("QHM", {"momentum": 0.9, "weight_decay": 1e-3, "weight_decay_type": "direct"}),
    "QHM.grad_decay": ("QHM", {"momentum": 0.9, "weight_decay": 1e-3}),
    "RAdam": ("RAdam", {}),
    "RAdam.weight_decay": ("RAdam", {"weight_decay": 1e-3}),
    "Ranger": ("Ranger", {}),
    "RangerQH": ("RangerQH", {}),
    "RangerVA": ("RangerVA", {}),
    "SGDP": ("SGDP", {}),
    "SGDP.nesterov": ("SGDP", {"momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}),
    "SGDW": ("SGDW", {}),
    "SGDW.nesterov": ("SGDW", {"momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}),
    "SWATS": ("SWATS", {}),
    "SWATS.amsgrad": ("SWATS", {"amsgrad": True, "nesterov": True, "weight_decay": 1e-3}),
    "Shampoo": ("Shampoo", {}),
    "Shampoo.momentum": ("Shampoo", {"momentum": 0.9, "weight_decay": 1e-3, "update_freq": 2}),
    "Yogi": ("Yogi", {}),
    "Yogi.weight_decay": ("Yogi", {"weight_decay": 1e-3}),
}
# Adafactor factors the second moment of matrices only: 0.3.0's ``_approx_sq_grad`` fails on a 4-D weight
# (eagerly too), so it gets the network without its convolution, as the transformers it is made for.
LINEAR_ONLY = ("Adafactor",)


def names() -> list[str]:
    return list(OPTIMIZERS)


def build(name: str) -> Built:
    import warnings

    import torch
    import torch_optimizer
    from gt_calls import OptimizerStep
    from torch import nn

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    cls, keywords = OPTIMIZERS[name]
    keywords = dict(keywords)
    gen = torch.Generator().manual_seed(1)

    class Net(nn.Module):
        """A convolution (4-D weight), then a linear layer (2-D weight and 1-D bias); for ``LINEAR_ONLY``
        optimizers a second linear layer instead of the convolution."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Linear(32, 12, bias=False) if cls in LINEAR_ONLY else nn.Conv2d(2, 3, 3, bias=False)
            self.linear = nn.Linear(12, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.linear(torch.tanh(self.conv(x.flatten(1) if cls in LINEAR_ONLY else x)).flatten(1))

    net = Net()
    x, y = torch.randn(4, 2, 4, 4, generator=gen), torch.randn(4, 4, generator=gen)
    if cls == "Lookahead":
        base = getattr(torch_optimizer, keywords.pop("base"))(net.parameters())
        optimizer = torch_optimizer.Lookahead(base, **keywords)
    else:
        optimizer = getattr(torch_optimizer, cls)(net.parameters(), **keywords)

    def loss(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return nn.functional.mse_loss(net(x), y)

    if cls == "Adahessian":
        return OptimizerStep(net, optimizer, loss), (x, y), {}

    grads = torch.autograd.grad(loss(x, y), list(net.parameters()))
    return OptimizerStep(net, optimizer), tuple(g.detach() for g in grads), {}
