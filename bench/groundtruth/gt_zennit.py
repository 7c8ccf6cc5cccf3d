"""Ground-truth bench, zennit: layer-wise relevance propagation (LRP) and other attributions of small networks.

zennit 0.5.1 explains a PyTorch model by rewriting its gradient: a *composite* maps each submodule (by type or by
name) to a *rule*, a ``Hook`` whose forward pre-hook puts an ``Identity`` autograd function on the input and whose
backward hook replaces the module's gradient with a relevance (``BasicHook.backward`` runs the module again under
modified inputs and parameters, ``ParamMod``, and takes ``torch.autograd.grad``); *canonizers* first rewrite the
model into a form the rules fit (batch norms merged into the preceding linear layer, ResNet blocks given a ``Sum``
module); an *attributor* registers the composite, runs the model and takes the gradient of a chosen output. Users
write ``with Gradient(model, composite) as attributor: output, relevance = attributor(x, one_hot)``. So each model
here is a bench module whose forward does that on a network built here from ``torch.nn`` at tiny sizes (random
weights; gradients enabled inside the forward, as a user's explanation code runs them, since the harness runs eval
mode under ``no_grad``):

- ``ATTRIBUTIONS``: an attributor (``Gradient``, ``SmoothGrad``, ``IntegratedGradients``, ``Occlusion``) with one
  composite on one network: every registered composite (``EpsilonGammaBox``, ``EpsilonPlus``,
  ``EpsilonAlpha2Beta1``, ``EpsilonPlusFlat``, ``DeconvNet``, ``GuidedBackprop``, ``ExcitationBackprop``,
  ``BetaSmooth``), each rule of ``zennit.rules`` in a ``LayerMapComposite`` on the MLP's linear layers
  (``Epsilon`` with a norm-scaled stabilizer and with ``zero_params``, ``Gamma``, ``ZPlus``, ``AlphaBeta``,
  ``ZBox``, ``WSquare``, ``Flat``, ``ReLUBetaSmooth``; ``Norm`` and ``Pass`` sit in every such map for pooling,
  batch norms and activations), the composite classes (``SpecialFirstLayerMapComposite``, ``NameMapComposite``,
  ``NameLayerMapComposite``, ``MixedComposite``), the canonizers (``SequentialMergeBatchNorm``,
  ``NamedMergeBatchNorm``, ``VGGCanonizer``, ``ResNetCanonizer`` on torchvision's ``ResNet`` with basic and
  bottleneck blocks, an ``AttributeCanonizer`` inside a ``CompositeCanonizer``), ``create_graph``, and the output
  attribution given as a one-hot tensor, a callable of the output, or left to the default (the output itself);
  ``SmoothGrad`` and ``IntegratedGradients`` take 3 or 4 steps, ``Occlusion`` an int or a tuple window (the
  default occlusion and an inverted one); the networks are an MLP, a CNN (convolutions, batch norm, max and
  average pooling), a 1-d CNN, a VGG-like stack with batch norms, a transposed-convolution decoder and
  torchvision ResNets of one block per stage on 16 x 16 images;
- ``WORKFLOWS``: what the tutorials do around them: ``composite.context(model)`` with ``torch.autograd.grad``,
  ``register``/``remove`` with ``output.backward()`` and ``input.grad``, one attributor entered once for several
  calls, a second-order gradient of the relevance under ``composite.inactive()`` (``create_graph=True``), a
  training step on a relevance penalty and one on an input-gradient penalty, a canonized ResNet's plain
  forward, and the helpers ``zennit.layer.Sum``, ``zennit.core.stabilize``, ``Stabilizer`` and ``expand``.

torchvision is the CUDA build on a CPU torch: ``gt_models.allow_torchvision_import`` makes its pure-Python parts
(``zennit.torchvision`` imports its ResNet blocks) importable. Nothing is downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, FEATURES, CLASSES, SIDE = 2, 8, 3, 8

# Model name -> (attributor, network, composite, canonizers, attributor keywords, output attribution). The composite
# is a key of ``_composite`` (None: no composite, the plain gradient); canonizers are keys of ``_canonizers``; the
# output attribution is "onehot" (a one-hot tensor of per-example targets, a forward argument), "fn" (a callable
# one-hot of the output's argmax), "fn_const" (the one-hot tensor fixed at construction) or None (the output).
ATTRIBUTIONS: dict[str, tuple[str, str, str | None, tuple[str, ...], dict[str, Any], str | None]] = {
    # registered composites on the CNN
    "Gradient.cnn.epsilon_gamma_box": ("Gradient", "cnn", "epsilon_gamma_box", (), {}, "onehot"),
    "Gradient.cnn.epsilon_plus": ("Gradient", "cnn", "epsilon_plus", (), {}, "onehot"),
    "Gradient.cnn.epsilon_alpha2_beta1": ("Gradient", "cnn", "epsilon_alpha2_beta1", (), {}, "onehot"),
    "Gradient.cnn.epsilon_plus_flat": ("Gradient", "cnn", "epsilon_plus_flat", (), {}, "onehot"),
    "Gradient.cnn.deconvnet": ("Gradient", "cnn", "deconvnet", (), {}, "onehot"),
    "Gradient.cnn.guided_backprop": ("Gradient", "cnn", "guided_backprop", (), {}, "onehot"),
    "Gradient.cnn.excitation_backprop": ("Gradient", "cnn", "excitation_backprop", (), {}, "onehot"),
    "Gradient.cnn.beta_smooth": ("Gradient", "cnn", "beta_smooth", (), {}, "onehot"),
    "Gradient.cnn.plain": ("Gradient", "cnn", None, (), {}, "onehot"),
    "Gradient.mlp.epsilon_plus_flat": ("Gradient", "mlp", "epsilon_plus_flat", (), {}, "onehot"),
    "Gradient.mlp.epsilon_plus.identity_output": ("Gradient", "mlp", "epsilon_plus", (), {}, None),
    "Gradient.mlp.epsilon_plus.callable_output": ("Gradient", "mlp", "epsilon_plus", (), {}, "fn"),
    "Gradient.cnn1d.epsilon_alpha2_beta1": ("Gradient", "cnn1d", "epsilon_alpha2_beta1", ("merge_bn",), {},
                                            "onehot"),
    # canonizers
    "Gradient.vgg.epsilon_gamma_box.SequentialMergeBatchNorm": ("Gradient", "vgg", "epsilon_gamma_box",
                                                                ("merge_bn",), {}, "onehot"),
    "Gradient.vgg.epsilon_plus.VGGCanonizer": ("Gradient", "vgg", "epsilon_plus", ("vgg",), {}, "onehot"),
    "Gradient.cnn.epsilon_plus.NamedMergeBatchNorm": ("Gradient", "cnn", "epsilon_plus", ("named_bn",), {},
                                                      "onehot"),
    "Gradient.decoder.epsilon_plus.SequentialMergeBatchNorm": ("Gradient", "decoder", "epsilon_plus",
                                                               ("merge_bn",), {}, "onehot"),
    "Gradient.resnet_basic.epsilon_plus_flat.ResNetCanonizer": ("Gradient", "resnet_basic", "epsilon_plus_flat",
                                                                ("resnet",), {}, "onehot"),
    "Gradient.resnet_bottleneck.epsilon_alpha2_beta1.ResNetCanonizer": (
        "Gradient", "resnet_bottleneck", "epsilon_alpha2_beta1", ("resnet",), {}, "onehot"),
    "Gradient.vgg.epsilon_plus.CompositeCanonizer": ("Gradient", "vgg", "epsilon_plus", ("composite_canonizer",),
                                                     {}, "onehot"),
    # each rule in a layer map
    "rule.Epsilon.zero_params": ("Gradient", "mlp", "rule.epsilon_zero", (), {}, "onehot"),
    "rule.Epsilon.norm_scale": ("Gradient", "mlp", "rule.epsilon_norm_scale", (), {}, "onehot"),
    "rule.Gamma": ("Gradient", "mlp", "rule.gamma", (), {}, "onehot"),
    "rule.ZPlus": ("Gradient", "mlp", "rule.zplus", (), {}, "onehot"),
    "rule.AlphaBeta.alpha1_beta0": ("Gradient", "mlp", "rule.alpha_beta", (), {}, "onehot"),
    "rule.ZBox.scalar": ("Gradient", "mlp", "rule.zbox", (), {}, "onehot"),
    "rule.WSquare": ("Gradient", "mlp", "rule.wsquare", (), {}, "onehot"),
    "rule.Flat": ("Gradient", "mlp", "rule.flat", (), {}, "onehot"),
    "rule.ReLUBetaSmooth": ("Gradient", "mlp", "rule.beta_smooth", (), {}, "onehot"),
    # composite classes
    "SpecialFirstLayerMapComposite.cnn": ("Gradient", "cnn", "special_first", (), {}, "onehot"),
    "NameMapComposite.mlp": ("Gradient", "mlp", "name_map", (), {}, "onehot"),
    "NameLayerMapComposite.cnn": ("Gradient", "cnn", "name_layer_map", (), {}, "onehot"),
    "MixedComposite.cnn": ("Gradient", "cnn", "mixed", (), {}, "onehot"),
    # other attributors
    "SmoothGrad.cnn.epsilon_plus": ("SmoothGrad", "cnn", "epsilon_plus", (), {"n_iter": 3, "noise_level": 0.1},
                                    "onehot"),
    "IntegratedGradients.mlp.epsilon_plus.baseline": ("IntegratedGradients", "mlp", "epsilon_plus", (),
                                                      {"n_iter": 4, "baseline_fn": "@ones"}, "onehot"),
    "Occlusion.cnn.window_tuple.invert": ("Occlusion", "cnn", None, (),
                                          {"window": (4, 4), "stride": (4, 4), "occlusion_fn": "@invert"}, "onehot"),
    "Occlusion.mlp.composite": ("Occlusion", "mlp", "epsilon_plus", (), {"window": 4, "stride": 2}, "fn"),
    "Gradient.cnn.epsilon_plus.create_graph": ("Gradient", "cnn", "epsilon_plus", (), {"create_graph": True},
                                               "onehot"),
}
WORKFLOWS = (
    "workflow.composite_context.autograd_grad",
    "workflow.register_remove.backward",
    "workflow.attributor_with_block",
    "workflow.second_order.inactive",
    "workflow.train_step.relevance_penalty",
    "workflow.train_step.gradient_attributor",
    "workflow.canonized_resnet_forward",
    "helper.layer.Sum",
    "helper.core.stabilize",
    "helper.core.Stabilizer.norm_scale",
    "helper.core.expand",
)


def names() -> list[str]:
    return list(ATTRIBUTIONS) + list(WORKFLOWS)


def _networks() -> dict[str, Any]:
    """The network builders, from ``torch.nn`` and torchvision's ``ResNet`` (defined here: torch in a worker only)."""
    import torch
    from torch import nn
    from torchvision.models.resnet import BasicBlock, Bottleneck, ResNet

    class MLP(nn.Module):
        """8 features -> 16 -> 12 -> 3 classes, one ReLU module per use."""

        def __init__(self) -> None:
            super().__init__()
            self.fc1, self.relu1 = nn.Linear(FEATURES, 16), nn.ReLU()
            self.fc2, self.relu2 = nn.Linear(16, 12), nn.ReLU()
            self.fc3 = nn.Linear(12, CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc3(self.relu2(self.fc2(self.relu1(self.fc1(x)))))

    class CNN(nn.Module):
        """Convolution, ReLU, max pool, convolution, batch norm, ReLU, average pool, flattened linear classifier."""

        def __init__(self) -> None:
            super().__init__()
            self.conv1, self.relu1, self.pool1 = nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)
            self.conv2, self.bn2, self.relu2 = nn.Conv2d(4, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU()
            self.pool2 = nn.AvgPool2d(2)
            self.flatten = nn.Flatten()
            self.fc = nn.Linear(6 * (SIDE // 4) ** 2, CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.pool1(self.relu1(self.conv1(x)))
            x = self.pool2(self.relu2(self.bn2(self.conv2(x))))
            return self.fc(self.flatten(x))

    def cnn1d() -> nn.Module:
        return nn.Sequential(nn.Conv1d(2, 4, 3, padding=1), nn.BatchNorm1d(4), nn.ReLU(),
                             nn.Conv1d(4, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool1d(2), nn.Flatten(),
                             nn.Linear(8, CLASSES))

    def vgg() -> nn.Module:
        return nn.Sequential(
            nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
            nn.Conv2d(4, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(4, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
            nn.Flatten(), nn.Linear(32, 16), nn.ReLU(), nn.Dropout(0.0), nn.Linear(16, CLASSES))

    def decoder() -> nn.Module:
        return nn.Sequential(
            nn.ConvTranspose2d(3, 4, 2, stride=2), nn.BatchNorm2d(4), nn.ReLU(),
            nn.Conv2d(4, 4, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
            nn.Linear(4, CLASSES))

    def resnet(block: Any) -> nn.Module:
        return ResNet(block, [1, 1, 1, 1], num_classes=CLASSES)

    return {"mlp": MLP, "cnn": CNN, "cnn1d": cnn1d, "vgg": vgg, "decoder": decoder,
            "resnet_basic": lambda: resnet(BasicBlock), "resnet_bottleneck": lambda: resnet(Bottleneck)}


def _input(network: str, seed: int = 0) -> Any:
    import torch

    gen = torch.Generator().manual_seed(seed)
    if network == "mlp":
        return torch.randn(BATCH, FEATURES, generator=gen)
    if network == "cnn1d":
        return torch.randn(BATCH, 2, 10, generator=gen)
    if network.startswith("resnet"):
        return torch.randn(BATCH, 3, 16, 16, generator=gen)
    return torch.randn(BATCH, 3, SIDE, SIDE, generator=gen)


def _composite(key: str | None, canonizers: list[Any]) -> Any:
    """The composite ``key`` names, with ``canonizers``."""
    import torch
    from zennit import composites, core, rules, types
    from zennit.layer import Sum

    if key is None:
        return None
    if key == "epsilon_gamma_box":
        low = torch.full((1, 3, 1, 1), -3.0)
        return composites.EpsilonGammaBox(low=low, high=-low, canonizers=canonizers)
    if key == "epsilon_plus.zero_bias":
        return composites.EpsilonPlus(epsilon=1e-3, zero_params="bias", canonizers=canonizers)
    registered = {"epsilon_plus": composites.EpsilonPlus, "epsilon_alpha2_beta1": composites.EpsilonAlpha2Beta1,
                  "epsilon_plus_flat": composites.EpsilonPlusFlat,
                  "epsilon_alpha2_beta1_flat": composites.EpsilonAlpha2Beta1Flat,
                  "deconvnet": composites.DeconvNet, "guided_backprop": composites.GuidedBackprop,
                  "excitation_backprop": composites.ExcitationBackprop, "beta_smooth": composites.BetaSmooth}
    if key in registered:
        return composites.COMPOSITES[key](canonizers=canonizers) if key in composites.COMPOSITES \
            else registered[key](canonizers=canonizers)
    base = [(types.Activation, rules.Pass()), (types.BatchNorm, rules.Pass()), (types.AvgPool, rules.Norm()),
            (Sum, rules.Norm())]
    linear_rules = {
        "rule.epsilon_zero": rules.Epsilon(epsilon=0.25, zero_params=["bias"]),
        "rule.epsilon_norm_scale": rules.Epsilon(epsilon=core.Stabilizer(epsilon=0.1, norm_scale=True)),
        "rule.gamma": rules.Gamma(gamma=0.5, stabilizer=1e-4),
        "rule.zplus": rules.ZPlus(zero_params="bias"),
        "rule.alpha_beta": rules.AlphaBeta(alpha=1.0, beta=0.0),
        "rule.zbox": rules.ZBox(low=-3.0, high=3.0),
        "rule.wsquare": rules.WSquare(),
    }
    if key in linear_rules:
        layer_map = base + [(types.Linear, linear_rules[key])]
        return composites.LayerMapComposite(layer_map, canonizers=canonizers)
    if key == "rule.flat":
        return composites.SpecialFirstLayerMapComposite(
            base + [(torch.nn.Linear, rules.Epsilon())], [(types.Linear, rules.Flat())], canonizers=canonizers)
    if key == "rule.beta_smooth":
        return composites.LayerMapComposite([(torch.nn.ReLU, rules.ReLUBetaSmooth(beta_smooth=5.0)),
                                             (torch.nn.Linear, rules.Epsilon())], canonizers=canonizers)
    if key == "special_first":
        return composites.SpecialFirstLayerMapComposite(
            base + [(types.Convolution, rules.ZPlus()), (torch.nn.Linear, rules.Epsilon())],
            [(types.Convolution, rules.WSquare())], canonizers=canonizers)
    if key == "name_map":
        return composites.NameMapComposite([(("fc1",), rules.Flat()), (("fc2", "fc3"), rules.Epsilon()),
                                            (("relu1", "relu2"), rules.Pass())], canonizers=canonizers)
    if key == "name_layer_map":
        return composites.NameLayerMapComposite(
            name_map=[(("conv1",), rules.ZBox(-3.0, 3.0)), (("fc",), rules.Epsilon(epsilon=1e-2))],
            layer_map=base + [(types.Convolution, rules.Gamma())], canonizers=canonizers)
    if key == "mixed":
        return composites.MixedComposite([
            composites.NameMapComposite([(("conv2",), rules.AlphaBeta())]),
            composites.SpecialFirstLayerMapComposite(base + [(types.Linear, rules.Epsilon())],
                                                     [(types.Convolution, rules.Flat())]),
        ], canonizers=canonizers)
    raise KeyError(key)


def _canonizers(keys: tuple[str, ...]) -> list[Any]:
    from zennit import canonizers
    from zennit import torchvision as zennit_torchvision
    from zennit.layer import Sum

    def attribute_map(name: str, module: Any) -> dict[str, Any] | None:
        """Give the CNN's ``conv1`` a ``Sum`` module as an attribute (a canonizer written as users write one)."""
        return {"canonizer_sum": Sum()} if name == "conv1" else None

    made = {
        "merge_bn": canonizers.SequentialMergeBatchNorm,
        "vgg": zennit_torchvision.VGGCanonizer,
        "named_bn": lambda: canonizers.NamedMergeBatchNorm([(("conv2",), "bn2")]),
        "resnet": zennit_torchvision.ResNetCanonizer,
        "attribute": lambda: canonizers.AttributeCanonizer(attribute_map),
        "composite_canonizer": lambda: canonizers.CompositeCanonizer(
            [canonizers.SequentialMergeBatchNorm(), canonizers.AttributeCanonizer(attribute_map)]),
    }
    return [made[key]() for key in keys]


def _modules() -> Any:
    """The bench module ``Explain`` (defined here: torch is imported in a worker only)."""
    import torch
    from torch import nn

    class Explain(nn.Module):
        """``attributor(x, attr_output)`` on the network with gradients enabled: the output and the relevance."""

        def __init__(self, network: nn.Module, attributor: Any, output: str | None) -> None:
            super().__init__()
            self.network = network
            self.attributor = attributor
            self.output = output

        def forward(self, x: torch.Tensor, one_hot: torch.Tensor) -> Any:
            with torch.enable_grad():
                if self.output == "onehot":
                    return self.attributor(x, one_hot)
                return self.attributor(x)

        def entry_points(self) -> list[Any]:
            return [type(self.attributor).__call__]

    return Explain


def _one_hot(seed: int = 0) -> Any:
    import torch

    return torch.eye(CLASSES)[torch.arange(BATCH) % CLASSES]


def _attribution(name: str) -> Built:
    import torch
    from zennit import attribution

    cls, net, composite_key, canonizer_keys, keywords, output = ATTRIBUTIONS[name]
    network = _networks()[net]()
    network.eval()
    composite = _composite(composite_key, _canonizers(canonizer_keys))
    keywords = dict(keywords)
    if keywords.get("baseline_fn") == "@ones":
        keywords["baseline_fn"] = lambda x: torch.ones_like(x) * 0.1
    if keywords.get("occlusion_fn") == "@invert":
        keywords["occlusion_fn"] = lambda x, mask: attribution.occlude_independent(x, mask, invert=True)
    if output == "fn":
        keywords["attr_output"] = lambda out: torch.eye(CLASSES)[out.argmax(1)]
    elif output == "fn_const":
        keywords["attr_output"] = _one_hot()
    attributor = getattr(attribution, cls)(network, composite, **keywords)
    return _modules()(network, attributor, output), (_input(net), _one_hot()), {}


def _workflow(name: str) -> Built:
    import torch
    from torch import nn
    from zennit import attribution, canonizers, composites, core, layer
    from zennit import torchvision as zennit_torchvision

    from gt_calls import Call, Run

    if name == "helper.layer.Sum":
        return layer.Sum(dim=-1), (torch.randn(BATCH, 4, 5, 2),), {}
    if name == "helper.core.stabilize":
        return Call(core.stabilize, epsilon=1e-3, clip=True), (torch.randn(BATCH, 6),), {}
    if name == "helper.core.Stabilizer.norm_scale":
        return Call(core.Stabilizer(epsilon=0.1, norm_scale=True, dim=(1, 2))), (torch.randn(BATCH, 3, 4),), {}
    if name == "helper.core.expand":
        return Call(core.expand, shape=(BATCH, 3, 4, 4), cut_batch_dim=True), (torch.randn(4, 3, 1, 1),), {}

    networks = _networks()
    x, one_hot = _input("cnn"), _one_hot()

    class Workflow(nn.Module):
        """Bench glue: ``run(x, one_hot)`` with gradients enabled is the tutorial's code; ``entered`` what it calls."""

        def __init__(self, network: nn.Module, run: Any, entered: list[Any]) -> None:
            super().__init__()
            self.network = network
            self.run = run
            self.entered = entered

        def forward(self, x: torch.Tensor, one_hot: torch.Tensor) -> Any:
            with torch.enable_grad():
                return self.run(x, one_hot)

        def entry_points(self) -> list[Any]:
            return self.entered

    if name == "workflow.canonized_resnet_forward":
        network = networks["resnet_basic"]()
        network.eval()
        canonizer = zennit_torchvision.ResNetCanonizer()

        def run(x: torch.Tensor, one_hot: torch.Tensor) -> Any:
            handles = core.RemovableHandleList(canonizer.apply(network))
            try:
                return network(x)
            finally:
                handles.remove()

        return Workflow(network, run, [zennit_torchvision.ResNetCanonizer.apply]), (_input("resnet"), one_hot), {}
    network = networks["cnn"]()
    network.eval()
    composite = composites.EpsilonPlusFlat(canonizers=[canonizers.SequentialMergeBatchNorm()])
    if name == "workflow.composite_context.autograd_grad":
        def run(x: torch.Tensor, one_hot: torch.Tensor) -> Any:
            x = x.detach().requires_grad_()
            with composite.context(network) as modified:
                output = modified(x)
                (relevance,) = torch.autograd.grad(output, x, one_hot)
            return output, relevance

        return Workflow(network, run, [core.Composite.context, core.CompositeContext.__enter__]), (x, one_hot), {}
    if name == "workflow.register_remove.backward":
        def run(x: torch.Tensor, one_hot: torch.Tensor) -> Any:
            x = x.detach().requires_grad_()
            composite.register(network)
            try:
                output = network(x)
                output.backward(one_hot)
            finally:
                composite.remove()
            return x.grad

        return Workflow(network, run, [core.Composite.register, core.Composite.remove]), (x, one_hot), {}
    if name == "workflow.attributor_with_block":
        attributor = attribution.Gradient(network, composite)

        def run(x: torch.Tensor, one_hot: torch.Tensor) -> Any:
            with attributor:
                _, first = attributor(x, one_hot)
                _, second = attributor(x, one_hot.flip(1))
            return first - second

        return Workflow(network, run, [attribution.Attributor.__enter__, attribution.Attributor.__call__]), \
            (x, one_hot), {}
    if name == "workflow.second_order.inactive":
        smooth = composites.BetaSmooth(beta_smooth=10.0)
        attributor = attribution.Gradient(network, smooth, create_graph=True)

        def run(x: torch.Tensor, one_hot: torch.Tensor) -> Any:
            x = x.detach().requires_grad_()
            with attributor:
                _, relevance = attributor(x, one_hot)
                with attributor.inactive():
                    (grad,) = torch.autograd.grad(relevance.abs().sum(), x)
            return grad

        return Workflow(network, run, [attribution.Attributor.__call__, core.Composite.inactive]), (x, one_hot), {}
    if name == "workflow.train_step.relevance_penalty":
        # "right for the right reasons": a cross-entropy plus a penalty on the relevance outside a mask, one step
        optimizer = torch.optim.SGD(network.parameters(), lr=0.01)
        attributor = attribution.Gradient(network, composites.EpsilonPlus(), create_graph=True)
        mask = torch.zeros(1, 1, SIDE, SIDE)
        mask[..., : SIDE // 2] = 1.0

        def run(x: torch.Tensor, one_hot: torch.Tensor) -> Any:
            optimizer.zero_grad()
            output, relevance = attributor(x, one_hot)
            loss = nn.functional.cross_entropy(output, one_hot.argmax(1)) + (relevance * mask).pow(2).mean()
            loss.backward()
            optimizer.step()
            return loss.detach()

        return Workflow(network, run, [attribution.Attributor.__call__]), (x, one_hot), {}
    # a training step through the plain gradient attributor (input-gradient regularisation)
    optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)
    attributor = attribution.Gradient(network, create_graph=True)

    def run(x: torch.Tensor, one_hot: torch.Tensor) -> Any:
        optimizer.zero_grad()
        output, gradient = attributor(x, one_hot)
        loss = nn.functional.cross_entropy(output, one_hot.argmax(1)) + gradient.pow(2).sum()
        loss.backward()
        optimizer.step()
        return loss.detach()

    return Workflow(network, run, [attribution.Gradient.forward]), (x, one_hot), {}


def build(name: str) -> Built:
    import warnings

    import torch

    import gt_models

    gt_models.allow_torchvision_import()
    warnings.filterwarnings("ignore")  # backward hooks on modules with several outputs
    torch.manual_seed(0)
    if name in ATTRIBUTIONS:
        return _attribution(name)
    return _workflow(name)
