"""Ground-truth bench, pytorch_optimizer: one compiled ``step()`` of its optimizers, and its loss functions.

pytorch_optimizer 4.1.0's optimizers are ``torch.optim.Optimizer`` subclasses used as torch's own are
(``optimizer = pytorch_optimizer.AdamP(model.parameters()); loss.backward(); optimizer.step()``), and
their ``step()`` is what users compile, as PyTorch's compiled-optimizer tutorial compiles ``opt.step()``
after an eager backward pass (the library's own ``create_optimizer(..., compile=True)`` compiles ``step``
too where it cannot compile a batched update). So each model of ``OPTIMIZERS`` is a bench module
(``Step``) holding a small network with a 4-D (convolution), a 2-D (linear) and a 1-D (bias) parameter,
whose forward takes one gradient per parameter (computed eagerly beforehand, by a real backward pass on
a random batch), assigns them to the parameters' ``.grad`` and calls the optimizer's own ``step()``. The
harness calls it four times, so the first step (state initialisation) and the later ones are both
traced.

The optimizers are a broad sample of the 4.1.0 collection (Adam-like, sign-based, SGD-like,
learning-rate-free, factored, schedule-free, second-order and matrix-preconditioned ones), at their
defaults and, after a dot, with the options that take other code paths: ``foreach`` (``None``, the
default of most, picks the batched ``_step_foreach`` update on CPU; ``False``, and AdaNorm, cautious
updates or gradient centralisation, the per-parameter loop), weight decay, AMS bounds, rectification,
Nesterov momentum, gradient clipping, and a learning rate held in a tensor (what the library advises for
compiling). Parameter groups are built as the library documents them: ``prepare_muon_parameters`` for
Muon and AdaMuon (orthogonalised matrices, an AdamW group for the rest), GaLore's ``rank`` group for its
matrix. ``ScheduleFreeWrapper`` and ``TRAC`` wrap a base optimizer; ``CREATED`` are built by
``create_optimizer`` as its README does, with weight-decay groups, gradient centralisation and a
``Lookahead`` wrapper, or an ``OrthoGrad`` one. Schedule-free optimizers are switched to ``train()`` once,
before the steps. ``SophiaH`` takes externally estimated Hessian diagonals through ``step(hessian=...)``;
``AdaHessian`` runs the ``loss.backward(create_graph=True)`` its documentation asks for before ``step()``,
so its forward takes the batch. ``LOSSES`` are the library's loss modules, compiled on small segmentation
masks or class logits. Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
WD = {"weight_decay": 1e-2}
PER_PARAM = {"foreach": False}  # the per-parameter loop instead of the batched update

# Model name -> (class exported by ``pytorch_optimizer``, keywords). Keywords the builder reads itself:
# ``base`` and ``base_keywords`` (a wrapper's optimizer), ``groups`` (how parameter groups are made:
# ``muon`` or ``galore``) and ``tensor_lr`` (the learning rate as a 0-d tensor).
OPTIMIZERS: dict[str, tuple[str, dict[str, Any]]] = {
    "AdamP": ("AdamP", {}),
    "AdamP.foreach": ("AdamP", {"foreach": True, **WD}),
    "AdamP.adanorm_cautious_gc": ("AdamP", {"nesterov": True, "adanorm": True, "cautious": True, "use_gc": True,
                                            **WD}),
    "AdaBelief": ("AdaBelief", {}),
    "AdaBelief.rectify_ams": ("AdaBelief", {"rectify": True, "ams_bound": True, **PER_PARAM}),
    "AdaBound": ("AdaBound", {}),
    "AdaNorm": ("AdaNorm", {}),
    "AdaPNM": ("AdaPNM", {}),
    "AdaSmooth": ("AdaSmooth", {}),
    "AdamS": ("AdamS", {}),
    "Adan": ("Adan", {}),
    "Adan.clip_gc": ("Adan", {"max_grad_norm": 1.0, "use_gc": True, "weight_decouple": True, **WD}),
    "ADOPT": ("ADOPT", {}),
    "AdEMAMix": ("AdEMAMix", {"t_alpha_beta3": 4}),
    "ApolloDQN": ("ApolloDQN", {"warmup_steps": 2}),
    "CAME": ("CAME", {}),
    "AdaFactor": ("AdaFactor", {}),
    "AdaFactor.fixed_lr": ("AdaFactor", {"relative_step": False, "scale_parameter": False, "ams_bound": True,
                                         **PER_PARAM, **WD}),
    "DAdaptAdam": ("DAdaptAdam", {}),
    "DAdaptSGD": ("DAdaptSGD", {}),
    "Prodigy": ("Prodigy", {}),
    "DiffGrad": ("DiffGrad", {}),
    "Lamb": ("Lamb", {}),
    "Lamb.rectify_pre_norm": ("Lamb", {"rectify": True, "pre_norm": True, **PER_PARAM, **WD}),
    "LARS": ("LARS", {}),
    "LaProp": ("LaProp", {}),
    "Lion": ("Lion", {}),
    "Lion.cautious_gc": ("Lion", {"cautious": True, "use_gc": True, **WD}),
    "Lion.tensor_lr": ("Lion", {"tensor_lr": True}),
    "MADGRAD": ("MADGRAD", {}),
    "MSVAG": ("MSVAG", {}),
    "Nero": ("Nero", {}),
    "NovoGrad": ("NovoGrad", {"grad_averaging": True}),
    "PID": ("PID", {"momentum": 0.9}),
    "PNM": ("PNM", {}),
    "QHAdam": ("QHAdam", {"nus": (0.7, 1.0)}),
    "RAdam": ("RAdam", {}),
    "Ranger": ("Ranger", {"k": 2}),
    "Ranger21": ("Ranger21", {"num_iterations": 20, "lookahead_merge_time": 2}),
    "SGDP": ("SGDP", {"momentum": 0.9, "nesterov": True, **WD}),
    "SignSGD": ("SignSGD", {}),
    "SM3": ("SM3", {"momentum": 0.9, "beta": 0.9}),
    "SWATS": ("SWATS", {}),
    "Tiger": ("Tiger", {}),
    "Yogi": ("Yogi", {}),
    "ScheduleFreeAdamW": ("ScheduleFreeAdamW", {"warmup_steps": 2}),
    "ScheduleFreeSGD": ("ScheduleFreeSGD", {"warmup_steps": 2, **PER_PARAM}),
    "Muon": ("Muon", {"groups": "muon"}),
    "AdaMuon": ("AdaMuon", {"groups": "muon"}),
    "GaLore": ("GaLore", {"groups": "galore"}),
    "SOAP": ("SOAP", {"precondition_frequency": 2}),
    "Kron": ("Kron", {}),
    "Shampoo": ("Shampoo", {"momentum": 0.9}),
    "SophiaH": ("SophiaH", {}),
    "AdaHessian": ("AdaHessian", {}),
    "ScheduleFreeWrapper.SGDW": ("ScheduleFreeWrapper", {"base": "SGDW", "base_keywords": {"lr": 1e-2},
                                                         "momentum": 0.9}),
    "TRAC.Lion": ("TRAC", {"base": "Lion", "num_coefs": 8}),
}
# Model name -> keywords of ``create_optimizer(model, ...)``, as the README's quick start calls it.
CREATED: dict[str, dict[str, Any]] = {
    "create_optimizer.adamp_gc_lookahead": {"optimizer_name": "adamp", "lr": 1e-3, "weight_decay": 1e-3,
                                            "use_gc": True, "use_lookahead": True, "k": 2},
    "create_optimizer.laprop_orthograd": {"optimizer_name": "laprop", "lr": 1e-3, "use_orthograd": True},
}
# Loss name -> (class exported by ``pytorch_optimizer``, keywords, inputs): ``binary`` logits and masks of
# shape (4, 1, 8, 8), ``probabilities`` (the same, through a sigmoid), ``multiclass`` logits (4, 3, 8, 8)
# with class maps (4, 8, 8), ``multilabel`` logits and masks (4, 3, 8, 8), ``classes`` logits (8, 5) with
# class indices (8,).
LOSSES: dict[str, tuple[str, dict[str, Any], str]] = {
    "BCELoss": ("BCELoss", {"label_smooth": 0.1}, "probabilities"),
    "BCEFocalLoss": ("BCEFocalLoss", {}, "probabilities"),
    "SoftF1Loss": ("SoftF1Loss", {}, "probabilities"),
    "FocalLoss": ("FocalLoss", {}, "binary"),
    "FocalCosineLoss": ("FocalCosineLoss", {}, "classes"),
    "FocalTverskyLoss": ("FocalTverskyLoss", {"gamma": 2.0}, "binary"),
    "TverskyLoss": ("TverskyLoss", {"alpha": 0.3, "beta": 0.7}, "binary"),
    "DiceLoss.binary": ("DiceLoss", {"mode": "binary"}, "binary"),
    "DiceLoss.multiclass": ("DiceLoss", {"mode": "multiclass", "log_loss": True}, "multiclass"),
    "JaccardLoss.multilabel": ("JaccardLoss", {"mode": "multilabel"}, "multilabel"),
    "LovaszHingeLoss": ("LovaszHingeLoss", {}, "binary"),
    "LDAMLoss": ("LDAMLoss", {"num_class_list": [50, 20, 10, 5, 2]}, "classes"),
    "BiTemperedLogisticLoss": ("BiTemperedLogisticLoss", {"t1": 0.8, "t2": 1.4, "label_smooth": 0.1}, "classes"),
}


def names() -> list[str]:
    return list(OPTIMIZERS) + list(CREATED) + [f"loss.{n}" for n in LOSSES]


def _network() -> Any:
    import torch
    from torch import nn

    class Net(nn.Module):
        """A convolution (4-D weight), then a linear layer (2-D weight and 1-D bias)."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3, bias=False)
            self.linear = nn.Linear(12, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.linear(torch.tanh(self.conv(x)).flatten(1))

    return Net()


def _optimizer(name: str, net: Any) -> Any:
    """``OPTIMIZERS[name]`` (or ``CREATED[name]``) over ``net``'s parameters."""
    import pytorch_optimizer
    import torch
    from pytorch_optimizer.optimizer import prepare_muon_parameters

    if name in CREATED:
        keywords = dict(CREATED[name])
        return pytorch_optimizer.create_optimizer(net, keywords.pop("optimizer_name"), **keywords)
    cls, keywords = OPTIMIZERS[name]
    keywords = dict(keywords)
    if keywords.pop("tensor_lr", False):
        keywords["lr"] = torch.tensor(1e-3)
    if "base" in keywords:  # a wrapper around a base optimizer
        base = getattr(pytorch_optimizer, keywords.pop("base"))(net.parameters(), **keywords.pop("base_keywords", {}))
        return getattr(pytorch_optimizer, cls)(base, **keywords)
    groups = keywords.pop("groups", None)
    params: Any = net.parameters()
    if groups == "muon":
        return prepare_muon_parameters(net, cls, lr=2e-2, weight_decay=0.0, **keywords)
    if groups == "galore":  # the projection options on the group of matrices, as GaLore's documentation has it
        matrices = [p for p in net.parameters() if p.dim() == 2]
        others = [p for p in net.parameters() if p.dim() != 2]
        params = [{"params": others}, {"params": matrices, "rank": 2, "update_proj_gap": 2, "scale": 0.25,
                                       "projection_type": "std"}]
    return getattr(pytorch_optimizer, cls)(params, **keywords)


def _step(name: str) -> Built:
    import torch
    from gt_calls import OptimizerStep
    from torch import nn

    net = _network()
    optimizer = _optimizer(name, net)
    if "ScheduleFree" in type(optimizer).__name__:
        optimizer.train()  # schedule-free optimizers step in train mode, switched once before training
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(4, 2, 4, 4, generator=gen), torch.randn(4, 4, generator=gen)

    def loss(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return nn.functional.mse_loss(net(x), y)

    if name == "AdaHessian":
        return OptimizerStep(net, optimizer, loss), (x, y), {}

    grads = [g.detach() for g in torch.autograd.grad(loss(x, y), list(net.parameters()))]

    if name == "SophiaH":

        class HessianGiven(nn.Module):
            """Gradients, then ``step(hessian=...)`` with Hessian diagonals estimated outside the optimizer
            (here the squared gradients, a Gauss-Newton estimate), so no second backward pass is needed."""

            def __init__(self) -> None:
                super().__init__()
                self.net = net

            def forward(self, *tensors: torch.Tensor) -> Any:
                count = len(tensors) // 2
                for parameter, grad in zip(self.net.parameters(), tensors[:count]):
                    parameter.grad = grad.clone()
                return optimizer.step(hessian=list(tensors[count:]))

            def entry_points(self) -> list[Any]:
                return [type(optimizer).step]

        return HessianGiven(), tuple(grads) + tuple(g * g for g in grads), {}

    return OptimizerStep(net, optimizer), tuple(grads), {}


def _loss(name: str) -> Built:
    import pytorch_optimizer
    import torch

    cls, keywords, inputs = LOSSES[name]
    gen = torch.Generator().manual_seed(2)
    if inputs in ("binary", "probabilities"):
        logits = torch.randn(4, 1, 8, 8, generator=gen)
        target = (torch.rand(4, 1, 8, 8, generator=gen) > 0.5).float()
        args = (logits.sigmoid() if inputs == "probabilities" else logits, target)
    elif inputs == "multiclass":
        args = (torch.randn(4, 3, 8, 8, generator=gen), torch.randint(0, 3, (4, 8, 8), generator=gen))
    elif inputs == "multilabel":
        args = (torch.randn(4, 3, 8, 8, generator=gen), (torch.rand(4, 3, 8, 8, generator=gen) > 0.5).float())
    else:
        args = (torch.randn(8, 5, generator=gen), torch.randint(0, 5, (8,), generator=gen))
    return getattr(pytorch_optimizer, cls)(**keywords), args, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # notes on recommended settings
    torch.manual_seed(0)
    if name.startswith("loss."):
        return _loss(name.split(".", 1)[1])
    return _step(name)
