"""Ground-truth bench, shap: SHAP attributions of PyTorch models (Deep SHAP and expected gradients).

shap's PyTorch-facing code is ``DeepExplainer`` (``shap.explainers._deep.deep_pytorch.PyTorchDeep``: DeepLIFT
multipliers through forward hooks that keep each leaf module's input and output and full backward hooks that
rewrite its gradient, one handler per layer type: ``linear_1d``, ``nonlinear_1d``, ``maxpool``,
``passthrough``) and ``GradientExplainer`` (``_PyTorchGradient``: expected gradients, interpolating between
the explained samples and background samples, optionally smoothed). A user builds the explainer from a model
and a background batch, then calls ``shap_values`` on the samples to explain; each model here builds the
explainer in ``build`` and compiles that call (under ``enable_grad``: both explainers differentiate the
model). The families:

- ``DEEP``: ``DeepExplainer.shap_values`` on tiny networks that take each handler's path: an MLP (several
  outputs, one output), every supported activation, a softmax head, 1-, 2- and 3-D convolutions with max
  pooling, batch norm with dropout and average pooling, a module shap does not know (its warning path),
  two inputs, an interim layer (``(model, layer)``), ranked outputs (``max``, ``min``, ``max_abs``) and
  without the additivity check (which ranked outputs and the batch-norm network do not pass in shap itself);
- ``GRADIENT``: ``GradientExplainer.shap_values`` and ``__call__`` (an ``Explanation``) on the same kinds
  of networks, with small batches, local smoothing, ranked outputs, variances, two inputs and an interim
  layer (also smoothed);
- ``HELPERS``: the pieces of ``deep_pytorch`` and ``_PyTorchGradient`` called as shap calls them: the
  handlers (``nonlinear_1d``, ``maxpool`` in 1-D and 2-D, ``linear_1d``, ``passthrough``) on a layer
  whose forward hook (``add_interim_values``) stored its doubled batch, ``deeplift_grad`` as a layer's
  backward hook, ``get_target_input``, ``PyTorchDeep.add_handles`` then a forward and the DeepLIFT
  gradient (``PyTorchDeep.gradient``) then ``remove_attributes``, and ``_PyTorchGradient.gradient``.

Tiny sizes (6 features, 2 explained samples, 4 background samples, 8 gradient samples), random weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, BATCH, BACKGROUND, NSAMPLES = 6, 2, 4, 8

# ``DeepExplainer.shap_values`` name -> (network, ``shap_values`` keywords, interim layer or "").
DEEP: dict[str, tuple[str, dict[str, Any], str]] = {
    "DeepExplainer.mlp": ("mlp", {}, ""),
    "DeepExplainer.mlp.one_output": ("mlp1", {}, ""),
    "DeepExplainer.activations": ("acts", {}, ""),
    "DeepExplainer.softmax": ("softmax", {}, ""),
    "DeepExplainer.conv1d.maxpool": ("conv1d", {}, ""),
    "DeepExplainer.conv2d.maxpool": ("conv2d", {}, ""),
    "DeepExplainer.conv3d.maxpool": ("conv3d", {}, ""),
    "DeepExplainer.batchnorm.dropout.avgpool": ("pool", {"check_additivity": False}, ""),
    "DeepExplainer.unknown_module": ("silu", {"check_additivity": False}, ""),
    "DeepExplainer.two_inputs": ("two", {}, ""),
    "DeepExplainer.interim_layer": ("mlp", {"check_additivity": False}, "2"),
    "DeepExplainer.interim_layer.conv": ("conv2d", {"check_additivity": False}, "3"),
    "DeepExplainer.ranked_outputs.max": ("mlp", {"ranked_outputs": 2, "check_additivity": False}, ""),
    "DeepExplainer.ranked_outputs.min": ("conv2d", {"ranked_outputs": 1, "output_rank_order": "min",
                                                    "check_additivity": False}, ""),
    "DeepExplainer.ranked_outputs.max_abs": ("mlp", {"ranked_outputs": 1, "output_rank_order": "max_abs",
                                                     "check_additivity": False}, ""),
    "DeepExplainer.no_additivity_check": ("acts", {"check_additivity": False}, ""),
    "DeepExplainer.two_inputs.ranked_outputs": ("two", {"ranked_outputs": 1, "check_additivity": False}, ""),
    "DeepExplainer.two_inputs.interim_layer": ("two", {"check_additivity": False}, "head"),
}
# ``GradientExplainer`` name -> (network, explainer keywords, call keywords, interim layer or "", method:
# "shap_values" or "__call__").
GRADIENT: dict[str, tuple[str, dict[str, Any], dict[str, Any], str, str]] = {
    "GradientExplainer.mlp": ("mlp", {}, {}, "", "shap_values"),
    "GradientExplainer.mlp.one_output": ("mlp1", {}, {}, "", "shap_values"),
    "GradientExplainer.conv2d": ("conv2d", {}, {}, "", "shap_values"),
    "GradientExplainer.small_batches": ("acts", {"batch_size": 3}, {}, "", "shap_values"),
    "GradientExplainer.local_smoothing": ("mlp", {"local_smoothing": 0.1}, {}, "", "shap_values"),
    "GradientExplainer.ranked_outputs.max": ("mlp", {}, {"ranked_outputs": 2}, "", "shap_values"),
    "GradientExplainer.ranked_outputs.min.variances": ("mlp", {}, {"ranked_outputs": 1, "output_rank_order": "min",
                                                                   "return_variances": True}, "", "shap_values"),
    "GradientExplainer.ranked_outputs.max_abs": ("conv1d", {}, {"ranked_outputs": 1, "output_rank_order": "max_abs"},
                                                 "", "shap_values"),
    "GradientExplainer.variances": ("softmax", {}, {"return_variances": True}, "", "shap_values"),
    "GradientExplainer.two_inputs": ("two", {}, {}, "", "shap_values"),
    "GradientExplainer.interim_layer": ("mlp", {}, {}, "2", "shap_values"),
    "GradientExplainer.interim_layer.conv": ("conv2d", {}, {}, "3", "shap_values"),
    "GradientExplainer.call": ("mlp", {}, {}, "", "__call__"),
    "GradientExplainer.call.conv2d": ("conv2d", {"batch_size": 4}, {}, "", "__call__"),
    "GradientExplainer.two_inputs.ranked_outputs.variances": ("two", {}, {"ranked_outputs": 1,
                                                                          "return_variances": True}, "",
                                                              "shap_values"),
    "GradientExplainer.interim_layer.local_smoothing": ("mlp", {"local_smoothing": 0.1}, {}, "2", "shap_values"),
}
HELPERS = ("nonlinear_1d", "nonlinear_1d.tanh", "maxpool.2d", "maxpool.1d", "linear_1d", "passthrough",
           "add_interim_values", "add_interim_values.passthrough", "deeplift_grad.hooked_backward",
           "get_target_input", "PyTorchDeep.gradient.hooked", "PyTorchDeep.gradient.interim",
           "PyTorchDeep.add_handles.remove_attributes", "_PyTorchGradient.gradient",
           "_PyTorchGradient.gradient.interim")


def names() -> list[str]:
    return list(DEEP) + list(GRADIENT) + list(HELPERS)


def _generator(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _two_inputs() -> Any:
    import torch
    from torch import nn

    class TwoInputs(nn.Module):
        """A user's model of two inputs: a branch each, concatenated, then a head."""

        def __init__(self) -> None:
            super().__init__()
            self.left = nn.Sequential(nn.Linear(DIM, 4), nn.ReLU())
            self.right = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
            self.head = nn.Linear(8, 2)

        def forward(self, a: Any, b: Any) -> Any:
            return self.head(torch.cat([self.left(a), self.right(b)], dim=1))

    return TwoInputs()


def _net(kind: str) -> Any:
    """A tiny network of ``kind`` in eval mode (what shap explains)."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    net = {
        "mlp": lambda: nn.Sequential(nn.Linear(DIM, 8), nn.ReLU(), nn.Linear(8, 3)),
        "mlp1": lambda: nn.Sequential(nn.Linear(DIM, 8), nn.Tanh(), nn.Linear(8, 1)),
        "acts": lambda: nn.Sequential(nn.Linear(DIM, 6), nn.ELU(), nn.Linear(6, 6), nn.Softplus(), nn.Linear(6, 6),
                                      nn.LeakyReLU(0.1), nn.Linear(6, 6), nn.SELU(), nn.Linear(6, 6), nn.GELU(),
                                      nn.Linear(6, 2), nn.Sigmoid()),
        "softmax": lambda: nn.Sequential(nn.Linear(DIM, 8), nn.ReLU(), nn.Linear(8, 3), nn.Softmax(dim=1)),
        "conv1d": lambda: nn.Sequential(nn.Conv1d(2, 4, 3, padding=1), nn.ReLU(), nn.MaxPool1d(2), nn.Flatten(),
                                        nn.Linear(16, 2)),
        "conv2d": lambda: nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                        nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(64, 3)),
        "conv3d": lambda: nn.Sequential(nn.Conv3d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2), nn.Flatten(),
                                        nn.Linear(16, 2)),
        "pool": lambda: nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AvgPool2d(2),
                                      nn.ConvTranspose2d(4, 2, 2, stride=2), nn.AdaptiveAvgPool2d(2), nn.Dropout(0.1),
                                      nn.Flatten(), nn.Identity(), nn.Linear(8, 8), nn.BatchNorm1d(8), nn.ReLU(),
                                      nn.Linear(8, 2)),
        "silu": lambda: nn.Sequential(nn.Linear(DIM, 8), nn.SiLU(), nn.Linear(8, 2)),
        "two": _two_inputs,
    }[kind]()
    return net.eval()


def _data(kind: str, count: int, seed: int) -> Any:
    """``count`` inputs of the network ``kind`` (a list of two tensors for the two-input model)."""
    import torch

    gen = _generator(seed)
    if kind == "two":
        return [torch.randn(count, DIM, generator=gen), torch.randn(count, 3, generator=gen)]
    shape = {"conv1d": (2, 8), "conv2d": (1, 8, 8), "pool": (1, 8, 8), "conv3d": (1, 4, 4, 4)}.get(kind, (DIM,))
    return torch.randn(count, *shape, generator=gen)


def _layer(net: Any, index: str) -> Any:
    return getattr(net, index) if not index.isdigit() else net[int(index)]


def _wrap(owner: Any, run: Any, entries: list[Any]) -> Any:
    from gt_calls import Run

    return Run(owner, run, entries)


def _explained(explainer: Any, method: str, keywords: dict[str, Any]) -> Any:
    """A bench module holding the explainer's network whose forward calls ``explainer.method`` with gradients
    enabled, as a user does outside ``no_grad``."""
    import torch

    def explain(owner: Any, *inputs: Any) -> Any:
        with torch.enable_grad():
            return getattr(explainer, method)(*inputs, **keywords)

    inner = getattr(explainer, "explainer", explainer)
    entries = [getattr(type(explainer), method)] + ([getattr(type(inner), method)] if inner is not explainer
                                                     and hasattr(type(inner), method) else [])
    return _wrap(torch.nn.ModuleList([inner.model]), explain, entries)


def _deep(name: str) -> Built:
    import shap

    kind, keywords, layer = DEEP[name]
    net = _net(kind)
    model = (net, _layer(net, layer)) if layer else net
    explainer = shap.DeepExplainer(model, _data(kind, BACKGROUND, 1))
    return _explained(explainer, "shap_values", keywords), (_data(kind, BATCH, 2),), {}


def _gradient(name: str) -> Built:
    import shap

    kind, keywords, call, layer, method = GRADIENT[name]
    net = _net(kind)
    model = (net, _layer(net, layer)) if layer else net
    explainer = shap.GradientExplainer(model, _data(kind, BACKGROUND, 1), **keywords)
    call = {"nsamples": NSAMPLES, **call}
    if method == "shap_values":
        call = {"rseed": 0, **call}
    return _explained(explainer, method, call), (_data(kind, BATCH, 2),), {}


def _doubled(kind: str) -> Any:
    """A batch of explained samples followed by as many references, the layout shap's gradient pass uses."""
    return _data(kind, 2 * BATCH, 3)


def _helper(name: str) -> Built:
    import torch
    from shap.explainers._deep import deep_pytorch as dp
    from shap.explainers._gradient import _PyTorchGradient
    from torch import nn

    gen = _generator(4)
    if name.startswith(("nonlinear_1d", "maxpool", "linear_1d", "passthrough")):
        handler = getattr(dp, name.split(".")[0])
        layer = {"nonlinear_1d": nn.ReLU(), "nonlinear_1d.tanh": nn.Tanh(), "maxpool.2d": nn.MaxPool2d(2),
                 "maxpool.1d": nn.MaxPool1d(2), "linear_1d": nn.Linear(DIM, 3), "passthrough": nn.Dropout()}[name]
        x = {"maxpool.2d": _data("conv2d", 2 * BATCH, 3)[:, :, :4, :4].repeat(1, 2, 1, 1),
             "maxpool.1d": torch.randn(2 * BATCH, 3, 8, generator=gen)}.get(name, _doubled("mlp"))
        with torch.no_grad():
            y = layer(x)
        dp.add_interim_values(layer, (x,), y)
        grad_input, grad_output = (torch.randn(x.shape, generator=gen),), (torch.randn(y.shape, generator=gen),)
        return _wrap(layer, lambda owner, gi, go: handler(owner, gi, go), [handler]), (grad_input, grad_output), {}
    if name.startswith("add_interim_values"):
        layer = nn.Dropout() if name.endswith("passthrough") else nn.Sigmoid()
        x = _doubled("mlp")

        def store(owner: Any, inputs: Any) -> Any:
            output = owner(inputs)
            dp.add_interim_values(owner, (inputs,), output)
            return output, getattr(owner, "x", None), getattr(owner, "y", None)

        return _wrap(layer, store, [dp.add_interim_values]), (x,), {}
    if name == "deeplift_grad.hooked_backward":
        net = _net("mlp")
        handles = [m.register_forward_hook(dp.add_interim_values) for m in net] + \
            [m.register_full_backward_hook(dp.deeplift_grad) for m in net]
        del handles

        def hooked(owner: Any, inputs: Any) -> Any:
            with torch.enable_grad():
                inputs = inputs.clone().requires_grad_()
                out = owner(inputs)[:, 0].sum()
                return torch.autograd.grad(out, inputs)[0]

        return _wrap(net, hooked, [dp.deeplift_grad, dp.add_interim_values]), (_doubled("mlp"),), {}
    if name == "get_target_input":
        layer = nn.Linear(DIM, 3)

        def target(owner: Any, inputs: Any) -> Any:
            output = owner(inputs)
            dp.get_target_input(owner, (inputs,), output)
            return owner.target_input[0] * 2, output

        return _wrap(layer, target, [dp.get_target_input]), (_data("mlp", BATCH, 5),), {}
    if name.startswith("PyTorchDeep"):
        kind = "conv2d" if name.endswith("interim") else "mlp"
        net = _net(kind)
        model = (net, net[3]) if name.endswith("interim") else net
        deep = dp.PyTorchDeep(model, _data(kind, BACKGROUND, 1))
        if name == "PyTorchDeep.add_handles.remove_attributes":
            def handles(owner: Any, inputs: Any) -> Any:
                hooks = deep.add_handles(deep.model, dp.add_interim_values, dp.deeplift_grad)
                with torch.no_grad():
                    out = deep.model(inputs)
                for hook in hooks:
                    hook.remove()
                deep.remove_attributes(deep.model)
                return out

            return _wrap(net, handles, [dp.PyTorchDeep.add_handles, dp.PyTorchDeep.remove_attributes]), \
                (_doubled(kind),), {}

        def gradient(owner: Any, inputs: Any) -> Any:
            """What ``shap_values`` does for one sample and output: hooks on, the DeepLIFT gradient, hooks off."""
            hooks = deep.add_handles(deep.model, dp.add_interim_values, dp.deeplift_grad)
            if deep.interim:
                deep.add_target_handle(deep.layer)
            try:
                with torch.enable_grad():
                    return deep.gradient(1, [inputs.clone()])
            finally:
                for hook in hooks:
                    hook.remove()
                if deep.interim:
                    deep.target_handle.remove()
                deep.remove_attributes(deep.model)

        return _wrap(net, gradient, [dp.PyTorchDeep.gradient]), (_doubled(kind),), {}
    kind = "conv2d" if name.endswith("interim") else "mlp"
    net = _net(kind)
    explainer = _PyTorchGradient((net, net[3]) if name.endswith("interim") else net, _data(kind, BACKGROUND, 1))

    def expected_gradient(owner: Any, inputs: Any) -> Any:
        with torch.enable_grad():
            return explainer.gradient(1, [inputs.clone()])

    return _wrap(net, expected_gradient, [_PyTorchGradient.gradient]), (_data(kind, NSAMPLES, 6),), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in DEEP:
        return _deep(name)
    if name in GRADIENT:
        return _gradient(name)
    return _helper(name)
