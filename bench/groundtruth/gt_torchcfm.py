"""Ground-truth bench, torchcfm: conditional flow matching training steps, its networks, OT plan sampling and sampling.

torchcfm 1.0.7's flow matchers are plain objects, not modules: users call ``sample_location_and_conditional_flow``
(or ``guided_sample_location_and_conditional_flow``) in each training step and regress a network on the
conditional flow, as its README and examples do. Each ``STEPS`` model is such a step (``_TrainStep``, bench
code: the matcher, the network and the flow-matching loss ``mean((vt - ut) ** 2)``) for one matcher
(``ConditionalFlowMatcher``, ``ExactOptimalTransportConditionalFlowMatcher``, ``TargetConditionalFlowMatcher``,
``SchrodingerBridgeConditionalFlowMatcher`` with an exact or a Sinkhorn plan, and
``VariancePreservingConditionalFlowMatcher``) and one network:

- ``mlp``: ``torchcfm.models.MLP`` (``time_varying=True``, width 16) on 8 points in 2-D, fed ``cat([xt, t])``;
  with ``return_noise`` (the Schrodinger bridge adds its score loss weighted by ``compute_lambda``, as in its
  example), with given times ``t``, and guided by labels (the label is fed to the MLP as a third input);
- ``unet``: ``torchcfm.models.unet.UNetModel`` at a tiny size (one channel of 8 x 8, 32 channels, one residual
  block per level, channel multipliers (1, 2), attention at 4 x 4) on 2 images, called ``net(t, xt)``, and
  class-conditional (``class_cond``) with the guided matcher's labels.

``NETWORKS`` are the UNet's forward in its options that change its code (scale-shift norm, up/down-sampling
residual blocks, the new attention order, head channels, learned sigma, dropout) and ``GradModel`` over an MLP.
``OT`` is ``OTPlanSampler`` on its own (exact, Sinkhorn, unbalanced and partial plans through ``sample_plan``,
``sample_plan_with_labels``, ``get_map``, ``sample_trajectory``) and ``wasserstein``. ``SAMPLING`` integrates a
trained-shape vector field from noise as the examples do: torchdyn's ``NeuralODE`` over ``torch_wrapper(MLP)``
and torchdiffeq's ``odeint`` over the UNet (both bench-side solvers; the vector fields are the library's).

Random weights, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
POINTS, DIM, WIDTH, IMAGES, CLASSES = 8, 2, 16, 2, 3
IMAGE = (1, 8, 8)
UNET = {"dim": IMAGE, "num_channels": 32, "num_res_blocks": 1, "channel_mult": (1, 2), "attention_resolutions": "4",
        "num_heads": 1}

# Matcher short name -> (class name, constructor keywords).
MATCHERS: dict[str, tuple[str, dict[str, Any]]] = {
    "CFM": ("ConditionalFlowMatcher", {"sigma": 0.1}),
    "CFM.sigma0": ("ConditionalFlowMatcher", {"sigma": 0.0}),
    "ExactOT": ("ExactOptimalTransportConditionalFlowMatcher", {"sigma": 0.1}),
    "Target": ("TargetConditionalFlowMatcher", {"sigma": 0.1}),
    "SB": ("SchrodingerBridgeConditionalFlowMatcher", {"sigma": 0.5}),
    "SB.sinkhorn": ("SchrodingerBridgeConditionalFlowMatcher", {"sigma": 0.5, "ot_method": "sinkhorn"}),
    "VP": ("VariancePreservingConditionalFlowMatcher", {"sigma": 0.1}),
}
# Step name -> (matcher, network "mlp" / "unet" / "unet.class_cond", options: "noise" (return_noise),
# "t" (given times), "guided" (``guided_sample_location_and_conditional_flow`` with target labels)).
STEPS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "ConditionalFlowMatcher.mlp": ("CFM", "mlp", ()),
    "ConditionalFlowMatcher.sigma0.mlp": ("CFM.sigma0", "mlp", ()),
    "ConditionalFlowMatcher.mlp.return_noise": ("CFM", "mlp", ("noise",)),
    "ConditionalFlowMatcher.mlp.given_t": ("CFM", "mlp", ("t",)),
    "ConditionalFlowMatcher.unet": ("CFM", "unet", ()),
    "ConditionalFlowMatcher.unet.class_cond": ("CFM", "unet.class_cond", ()),
    "ExactOptimalTransportConditionalFlowMatcher.mlp": ("ExactOT", "mlp", ()),
    "ExactOptimalTransportConditionalFlowMatcher.mlp.return_noise": ("ExactOT", "mlp", ("noise",)),
    "ExactOptimalTransportConditionalFlowMatcher.mlp.given_t": ("ExactOT", "mlp", ("t",)),
    "ExactOptimalTransportConditionalFlowMatcher.mlp.guided": ("ExactOT", "mlp", ("guided",)),
    "ExactOptimalTransportConditionalFlowMatcher.mlp.guided.return_noise": ("ExactOT", "mlp", ("guided", "noise")),
    "ExactOptimalTransportConditionalFlowMatcher.unet": ("ExactOT", "unet", ()),
    "ExactOptimalTransportConditionalFlowMatcher.unet.guided": ("ExactOT", "unet.class_cond", ("guided",)),
    "TargetConditionalFlowMatcher.mlp": ("Target", "mlp", ()),
    "TargetConditionalFlowMatcher.mlp.given_t": ("Target", "mlp", ("t",)),
    "TargetConditionalFlowMatcher.unet": ("Target", "unet", ()),
    "SchrodingerBridgeConditionalFlowMatcher.mlp": ("SB", "mlp", ()),
    "SchrodingerBridgeConditionalFlowMatcher.mlp.return_noise": ("SB", "mlp", ("noise",)),
    "SchrodingerBridgeConditionalFlowMatcher.mlp.guided": ("SB", "mlp", ("guided",)),
    "SchrodingerBridgeConditionalFlowMatcher.sinkhorn.mlp": ("SB.sinkhorn", "mlp", ()),
    "SchrodingerBridgeConditionalFlowMatcher.sinkhorn.mlp.return_noise": ("SB.sinkhorn", "mlp", ("noise",)),
    "VariancePreservingConditionalFlowMatcher.mlp": ("VP", "mlp", ()),
    "VariancePreservingConditionalFlowMatcher.mlp.return_noise": ("VP", "mlp", ("noise",)),
    "VariancePreservingConditionalFlowMatcher.unet": ("VP", "unet", ()),
}
# Network name -> ``UNetModel`` keywords over ``UNET`` (None: ``GradModel``).
NETWORKS: dict[str, dict[str, Any] | None] = {
    "UNetModel": {},
    "UNetModel.scale_shift_norm": {"use_scale_shift_norm": True},
    "UNetModel.resblock_updown": {"resblock_updown": True},
    "UNetModel.new_attention_order": {"use_new_attention_order": True},
    "UNetModel.num_head_channels": {"num_head_channels": 16},
    "UNetModel.learn_sigma.dropout": {"learn_sigma": True, "dropout": 0.1},
    "UNetModel.class_cond": {"class_cond": True, "num_classes": CLASSES},
    "GradModel": None,
}
# OT name -> (``OTPlanSampler`` keywords, method called).
OT: dict[str, tuple[dict[str, Any], str]] = {
    "OTPlanSampler.exact.sample_plan": ({"method": "exact"}, "sample_plan"),
    "OTPlanSampler.sinkhorn.sample_plan": ({"method": "sinkhorn", "reg": 0.5}, "sample_plan"),
    "OTPlanSampler.unbalanced.sample_plan": ({"method": "unbalanced", "reg": 0.5}, "sample_plan"),
    "OTPlanSampler.partial.sample_plan": ({"method": "partial", "reg": 0.5}, "sample_plan"),
    "OTPlanSampler.exact.sample_plan.no_replace": ({"method": "exact"}, "sample_plan.no_replace"),
    "OTPlanSampler.exact.sample_plan_with_labels": ({"method": "exact"}, "sample_plan_with_labels"),
    "OTPlanSampler.sinkhorn.sample_plan_with_labels": ({"method": "sinkhorn", "reg": 0.5},
                                                       "sample_plan_with_labels"),
    "OTPlanSampler.sinkhorn.normalize_cost.get_map": ({"method": "sinkhorn", "reg": 0.5, "normalize_cost": True},
                                                      "get_map"),
    "OTPlanSampler.exact.sample_trajectory": ({"method": "exact"}, "sample_trajectory"),
    "wasserstein.exact": ({}, "wasserstein"),
    "wasserstein.sinkhorn": ({"method": "sinkhorn", "reg": 0.5}, "wasserstein"),
}
SAMPLING = ("NeuralODE.torch_wrapper.mlp", "odeint.unet")


def names() -> list[str]:
    return list(STEPS) + list(NETWORKS) + list(OT) + list(SAMPLING)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _mlp(extra: int = 0) -> Any:
    from torchcfm.models import MLP

    return MLP(DIM + extra, out_dim=DIM, w=WIDTH, time_varying=True)


def _unet(**keywords: Any) -> Any:
    from torchcfm.models.unet import UNetModel

    return UNetModel(**{**UNET, **keywords})


def _step(name: str) -> Built:
    import torch
    import torchcfm
    from torch import nn

    short, network, options = STEPS[name]
    cls, keywords = MATCHERS[short]
    matcher = getattr(torchcfm, cls)(**keywords)
    guided = "guided" in options
    noise = "noise" in options
    image = network.startswith("unet")
    score = noise and cls == "SchrodingerBridgeConditionalFlowMatcher"

    class _TrainStep(nn.Module):
        """One flow-matching training step up to the backward pass: the matcher draws ``t, xt, ut`` (and the
        noise, and the coupled labels), the network predicts the flow, and the loss is its squared error
        (plus the Schrodinger bridge's score loss when it returns its noise)."""

        def __init__(self) -> None:
            super().__init__()
            if image:
                self.net = _unet(class_cond=True, num_classes=CLASSES) if "class_cond" in network else _unet()
            else:
                self.net = _mlp(1 if guided else 0)
            if score:
                self.score = _mlp()

        def _predict(self, t: torch.Tensor, xt: torch.Tensor, y: torch.Tensor | None) -> torch.Tensor:
            if image:
                return self.net(t, xt, y) if y is not None else self.net(t, xt)
            inputs = [xt, t[:, None]] + ([y[:, None].to(xt.dtype)] if y is not None else [])
            return self.net(torch.cat(inputs, dim=-1))

        def forward(self, x0: torch.Tensor, x1: torch.Tensor, *rest: torch.Tensor) -> torch.Tensor:
            t = rest[0] if "t" in options else None
            y1 = rest[-1] if (guided or "class_cond" in network) else None
            eps = None
            if guided:
                drawn = matcher.guided_sample_location_and_conditional_flow(x0, x1, y1=y1, t=t, return_noise=noise)
                t, xt, ut, _, y1 = drawn[:5]
                eps = drawn[5] if noise else None
            elif noise:
                t, xt, ut, eps = matcher.sample_location_and_conditional_flow(x0, x1, t=t, return_noise=True)
            else:
                t, xt, ut = matcher.sample_location_and_conditional_flow(x0, x1, t=t)
            vt = self._predict(t, xt, y1)
            loss = torch.mean((vt - ut) ** 2)
            if score:
                lambda_t = matcher.compute_lambda(t)
                st = self.score(torch.cat([xt, t[:, None]], dim=-1))
                loss = loss + torch.mean((lambda_t[:, None] * st + eps) ** 2)
            return loss

        def entry_points(self) -> list[Any]:
            method = "guided_sample_location_and_conditional_flow" if guided else "sample_location_and_conditional_flow"
            return [getattr(type(matcher), method), type(self.net)]

    shape = (IMAGES, *IMAGE) if image else (POINTS, DIM)
    x0 = torch.randn(*shape, generator=_gen(1))
    x1 = torch.randn(*shape, generator=_gen(2)) + 2.0
    args: tuple[Any, ...] = (x0, x1)
    if "t" in options:
        args += (torch.rand(shape[0], generator=_gen(3)),)
    if guided or "class_cond" in network:
        args += (torch.randint(0, CLASSES, (shape[0],), generator=_gen(4)),)
    return _TrainStep(), args, {}


def _network(name: str) -> Built:
    import torch
    from torchcfm.models.models import GradModel

    keywords = NETWORKS[name]
    if keywords is None:  # the gradient of a scalar action MLP over (x, t), as action matching uses it
        from torchcfm.models import MLP

        from torch import nn

        class _Grad(nn.Module):
            """``GradModel`` under ``enable_grad``: it differentiates its action, in eval mode too."""

            def __init__(self) -> None:
                super().__init__()
                self.model = GradModel(MLP(DIM + 1, out_dim=1, w=WIDTH))

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                with torch.enable_grad():
                    return self.model(x.clone())

            def entry_points(self) -> list[Any]:
                return [GradModel]

        return _Grad(), (torch.randn(POINTS, DIM + 1, generator=_gen(1)),), {}
    net = _unet(**keywords)
    x = torch.randn(IMAGES, *IMAGE, generator=_gen(1))
    t = torch.rand(IMAGES, generator=_gen(2))
    if keywords.get("class_cond"):
        return net, (t, x, torch.randint(0, CLASSES, (IMAGES,), generator=_gen(3))), {}
    return net, (t, x), {}


def _ot(name: str) -> Built:
    import torch
    from torchcfm.optimal_transport import OTPlanSampler, wasserstein

    from gt_calls import Call, Method

    keywords, method = OT[name]
    x0 = torch.randn(POINTS, DIM, generator=_gen(1))
    x1 = torch.randn(POINTS, DIM, generator=_gen(2)) + 2.0
    if method == "wasserstein":
        return Call(wasserstein, **keywords), (x0, x1), {}
    sampler = OTPlanSampler(**keywords)
    if method == "sample_plan.no_replace":
        return Method(sampler, "sample_plan", replace=False), (x0, x1), {}  # type: ignore[arg-type]
    if method == "sample_plan_with_labels":
        y0 = torch.randint(0, CLASSES, (POINTS,), generator=_gen(3))
        y1 = torch.randint(0, CLASSES, (POINTS,), generator=_gen(4))
        return Method(sampler, method), (x0, x1, y0, y1), {}  # type: ignore[arg-type]
    if method == "sample_trajectory":  # 8 points over 3 times
        return Method(sampler, method), (torch.randn(POINTS, 3, DIM, generator=_gen(5)),), {}  # type: ignore[arg-type]
    return Method(sampler, method), (x0, x1), {}  # type: ignore[arg-type]


def _sampling(name: str) -> Built:
    import torch
    from torch import nn

    t_span = torch.linspace(0, 1, 5)
    if name.startswith("NeuralODE"):
        from torchcfm.utils import torch_wrapper
        from torchdyn.core import NeuralODE

        node = NeuralODE(torch_wrapper(_mlp()), solver="euler", sensitivity="adjoint")

        class _Trajectory(nn.Module):
            """The examples' sampler: ``NeuralODE(torch_wrapper(model)).trajectory(x0, t_span)``."""

            def __init__(self) -> None:
                super().__init__()
                self.node = node

            def forward(self, x0: torch.Tensor, t_span: torch.Tensor) -> torch.Tensor:
                return self.node.trajectory(x0, t_span=t_span)

            def entry_points(self) -> list[Any]:
                from torchcfm.models import MLP

                return [torch_wrapper, MLP]

        return _Trajectory(), (torch.randn(POINTS, DIM, generator=_gen(1)), t_span), {}
    from torchcfm.models.unet import UNetModel
    from torchdiffeq import odeint

    net = _unet()

    class _Odeint(nn.Module):
        """The CIFAR example's sampler: ``odeint(net, x0, t_span, method="euler")`` over the UNet."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x0: torch.Tensor, t_span: torch.Tensor) -> torch.Tensor:
            return odeint(self.net, x0, t_span, rtol=1e-4, atol=1e-4, method="euler")

        def entry_points(self) -> list[Any]:
            return [UNetModel]

    return _Odeint(), (torch.randn(IMAGES, *IMAGE, generator=_gen(1)), t_span), {}


def build(name: str) -> Built:
    import warnings

    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    np.random.seed(0)  # the OT plan sampler draws its couplings with NumPy
    if name in STEPS:
        return _step(name)
    if name in NETWORKS:
        return _network(name)
    if name in OT:
        return _ot(name)
    return _sampling(name)
