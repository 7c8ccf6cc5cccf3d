"""Ground-truth bench, captum: captum 0.9.0's attribution methods on small networks, as users explain a model.

captum's methods are not modules: users construct one around a model (``ig = IntegratedGradients(model)``)
and call ``ig.attribute(inputs, baselines=..., target=...)``, which runs the model's forward (often many
times, on scaled, perturbed or ablated copies of the inputs) and its gradients. So each model here is a bench
module (``Attribute``) that holds the network and one method object and whose forward calls the method's own
``attribute``: the library's code is what gets traced. The networks are built here from ``torch.nn`` at tiny
sizes with random weights (``_networks``): an MLP on 4 rows of 8 features, a small CNN on 2 RGB images of
8 x 8 (convolutions, ReLU and pooling modules, as DeepLift, GuidedBackprop and LRP need), an embedding + LSTM
text classifier and an embedding + self-attention one on 2 sequences of 6 token ids, and a two-input MLP
(a tuple of inputs and an additional forward argument). Each classifies into 3 classes.

- ``ATTRIBUTIONS``: the methods of ``captum.attr`` that take a model: the primary methods
  (IntegratedGradients with and without baselines, with ``internal_batch_size``, Riemann steps and a
  convergence delta, on tuple inputs with an additional forward argument; Saliency, InputXGradient,
  DeepLift, DeepLiftShap, GradientShap, GuidedBackprop, Deconvolution, GuidedGradCam, LRP; FeatureAblation
  with a feature mask and on token ids, FeaturePermutation, Occlusion, ShapleyValueSampling, ShapleyValues,
  Lime and KernelShap at their default interpretable models with few samples), ``NoiseTunnel`` around IG
  and Saliency, the layer methods (LayerIntegratedGradients on the attention model's embeddings,
  LayerConductance, LayerGradCam, LayerActivation on two layers, LayerGradientXActivation, LayerDeepLift)
  and the neuron methods (NeuronGradient, NeuronIntegratedGradients, NeuronConductance). Targets are given
  as users give them: one class index, or a tensor of one per example. Steps and samples are few, and
  each method appears on one or two networks only (DeepLift's hooks make each of its models cost 10 s or
  more to compile), so that the library compiles in about four minutes; the other layer and neuron
  methods (LayerGradientShap, LayerFeatureAblation, InternalInfluence, LayerLRP, NeuronDeepLift, ...)
  were left out for that budget.
- ``WORKFLOWS``: what tutorials do around a method: Grad-CAM upsampled with
  ``LayerAttribution.interpolate``, IG on the embeddings of ``configure_interpretable_embedding_layer``,
  LayerIntegratedGradients on the LSTM model against a ``TokenReferenceBase`` reference, the metrics
  ``infidelity`` (with a noise perturbation as the docs define it) and ``sensitivity_max`` of IG and
  Saliency explanations, and the ``captum.robust`` attack ``FGSM``.

The harness runs each in eval mode under ``no_grad`` and in train mode; captum enables gradients itself
where it needs them. Nothing is downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
ROWS, FEATURES, CLASSES = 4, 8, 3
IMAGES, SIDE = 2, 8
SEQUENCES, LENGTH, VOCAB = 2, 6, 20

# Model name -> (class of ``captum.attr``, network, constructor keywords, ``attribute`` keywords). A class
# "NoiseTunnel/X" is ``NoiseTunnel(X(network))``. In constructor keywords "@name" stands for the network's
# submodule ``name`` (a list of them for several layers). In ``attribute`` keywords the values "@targets"
# (one class per example), "@zeros", "@random" and "@distribution" (baselines: zeros, random inputs, a set
# of 5 random references), "@groups" and "@groups3" (a feature mask of 4 or 3 groups of features, or of the
# 4 image quadrants), "@pad" (all-padding token ids) and "@scale" (the two-input MLP's additional forward
# argument) are tensors built in ``_tensor`` and passed to the bench module's forward as keywords.
ATTRIBUTIONS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    # gradient methods
    "IntegratedGradients.mlp": ("IntegratedGradients", "mlp", {}, {"target": 1, "n_steps": 8}),
    "IntegratedGradients.mlp.baselines": ("IntegratedGradients", "mlp", {},
                                          {"baselines": "@random", "target": "@targets", "n_steps": 8}),
    "IntegratedGradients.mlp.internal_batch_size": ("IntegratedGradients", "mlp", {},
                                                    {"target": 0, "n_steps": 8, "internal_batch_size": 8}),
    "IntegratedGradients.mlp.riemann_delta": ("IntegratedGradients", "mlp", {},
                                              {"baselines": "@zeros", "target": 2, "n_steps": 8,
                                               "method": "riemann_trapezoid", "return_convergence_delta": True}),
    "IntegratedGradients.cnn": ("IntegratedGradients", "cnn", {}, {"baselines": 0.0, "target": "@targets",
                                                                   "n_steps": 6}),
    "IntegratedGradients.pair": ("IntegratedGradients", "pair", {},
                                 {"baselines": "@zeros", "target": 0, "n_steps": 6,
                                  "additional_forward_args": "@scale"}),
    "Saliency.cnn.signed": ("Saliency", "cnn", {}, {"target": "@targets", "abs": False}),
    "InputXGradient.cnn": ("InputXGradient", "cnn", {}, {"target": 1}),
    "DeepLift.cnn": ("DeepLift", "cnn", {}, {"baselines": "@random", "target": "@targets",
                                             "return_convergence_delta": True}),
    "DeepLiftShap.mlp": ("DeepLiftShap", "mlp", {}, {"baselines": "@distribution", "target": 0}),
    "GradientShap.cnn.delta": ("GradientShap", "cnn", {}, {"baselines": "@distribution", "target": "@targets",
                                                           "n_samples": 4, "return_convergence_delta": True}),
    "GuidedBackprop.cnn": ("GuidedBackprop", "cnn", {}, {"target": "@targets"}),
    "Deconvolution.cnn": ("Deconvolution", "cnn", {}, {"target": 2}),
    "GuidedGradCam.cnn": ("GuidedGradCam", "cnn", {"layer": "@conv2"}, {"target": "@targets"}),
    "LRP.mlp": ("LRP", "mlp", {}, {"target": 1}),
    # perturbation methods
    "FeatureAblation.mlp.groups": ("FeatureAblation", "mlp", {},
                                   {"target": "@targets", "feature_mask": "@groups", "baselines": 0.5,
                                    "perturbations_per_eval": 2}),
    "FeatureAblation.lstm": ("FeatureAblation", "lstm", {}, {"target": 1, "baselines": 0}),
    "FeaturePermutation.mlp": ("FeaturePermutation", "mlp", {}, {"target": "@targets", "feature_mask": "@groups"}),
    "Occlusion.cnn": ("Occlusion", "cnn", {}, {"target": "@targets", "sliding_window_shapes": (3, 4, 4),
                                               "strides": (3, 4, 4), "baselines": 0}),
    "ShapleyValueSampling.mlp": ("ShapleyValueSampling", "mlp", {},
                                 {"target": "@targets", "feature_mask": "@groups", "n_samples": 2}),
    "ShapleyValues.mlp": ("ShapleyValues", "mlp", {}, {"target": 1, "feature_mask": "@groups3"}),
    "Lime.cnn": ("Lime", "cnn", {}, {"target": 0, "feature_mask": "@groups", "n_samples": 10}),
    "KernelShap.mlp": ("KernelShap", "mlp", {}, {"target": 2, "feature_mask": "@groups", "n_samples": 10}),
    # noise tunnel
    "NoiseTunnel.IntegratedGradients.mlp": ("NoiseTunnel/IntegratedGradients", "mlp", {},
                                            {"nt_type": "smoothgrad", "nt_samples": 3, "stdevs": 0.1,
                                             "target": 1, "n_steps": 4}),
    "NoiseTunnel.Saliency.cnn": ("NoiseTunnel/Saliency", "cnn", {},
                                 {"nt_type": "smoothgrad_sq", "nt_samples": 3, "target": "@targets"}),
    # layer methods
    "LayerIntegratedGradients.attention": ("LayerIntegratedGradients", "attention", {"layer": "@embedding"},
                                           {"baselines": "@pad", "target": "@targets", "n_steps": 6,
                                            "return_convergence_delta": True}),
    "LayerConductance.mlp": ("LayerConductance", "mlp", {"layer": "@fc1"}, {"target": 1, "n_steps": 8}),
    "LayerGradCam.cnn": ("LayerGradCam", "cnn", {"layer": "@conv2"}, {"target": "@targets"}),
    "LayerActivation.cnn.layers": ("LayerActivation", "cnn", {"layer": ["@conv1", "@conv2"]},
                                   {"attribute_to_layer_input": True}),
    "LayerGradientXActivation.mlp": ("LayerGradientXActivation", "mlp", {"layer": "@fc1"}, {"target": 2}),
    "LayerDeepLift.mlp": ("LayerDeepLift", "mlp", {"layer": "@fc2"}, {"baselines": "@zeros", "target": 1}),
    # neuron methods
    "NeuronGradient.mlp": ("NeuronGradient", "mlp", {"layer": "@fc1"}, {"neuron_selector": 3}),
    "NeuronIntegratedGradients.mlp": ("NeuronIntegratedGradients", "mlp", {"layer": "@fc1"},
                                      {"neuron_selector": 3, "n_steps": 8}),
    "NeuronConductance.mlp": ("NeuronConductance", "mlp", {"layer": "@fc1"},
                              {"neuron_selector": 3, "target": 1, "n_steps": 8}),
}
# Workflows around a method, each built by ``_workflow``: name -> network.
WORKFLOWS: dict[str, str] = {
    "LayerGradCam.cnn.interpolate": "cnn",
    "IntegratedGradients.lstm.interpretable_embedding": "lstm",
    "LayerIntegratedGradients.lstm.token_reference": "lstm",
    "infidelity.IntegratedGradients.mlp": "mlp",
    "infidelity.Saliency.cnn.normalize": "cnn",
    "sensitivity_max.Saliency.mlp": "mlp",
    "sensitivity_max.IntegratedGradients.mlp": "mlp",
    "FGSM.mlp": "mlp",
}


def names() -> list[str]:
    return list(ATTRIBUTIONS) + list(WORKFLOWS)


def _networks() -> dict[str, Any]:
    """The network classes, built from ``torch.nn`` (defined here so that ``names()`` needs no torch)."""
    import torch
    from torch import nn

    class MLP(nn.Module):
        """8 features -> 16 -> 12 -> 3 classes, with ReLU modules (one per use, as DeepLift needs)."""

        def __init__(self) -> None:
            super().__init__()
            self.fc1, self.relu1 = nn.Linear(FEATURES, 16), nn.ReLU()
            self.fc2, self.relu2 = nn.Linear(16, 12), nn.ReLU()
            self.fc3 = nn.Linear(12, CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc3(self.relu2(self.fc2(self.relu1(self.fc1(x)))))

    class CNN(nn.Module):
        """Two convolutions with ReLU and pooling modules, then a linear classifier (the CIFAR tutorial's net,
        smaller)."""

        def __init__(self) -> None:
            super().__init__()
            self.conv1, self.relu1, self.pool1 = nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)
            self.conv2, self.relu2, self.pool2 = nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2)
            self.fc = nn.Linear(24, CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.pool1(self.relu1(self.conv1(x)))
            x = self.pool2(self.relu2(self.conv2(x)))
            return self.fc(torch.flatten(x, 1))

    class LSTMClassifier(nn.Module):
        """Token ids -> embedding -> LSTM -> the last hidden state classified."""

        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, 8, padding_idx=0)
            self.lstm = nn.LSTM(8, 8, batch_first=True)
            self.fc = nn.Linear(8, CLASSES)

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            _, (hidden, _) = self.lstm(self.embedding(ids))
            return self.fc(hidden[-1])

    class AttentionClassifier(nn.Module):
        """Token ids -> token and position embeddings -> one self-attention encoder layer -> mean pooled and
        classified."""

        def __init__(self) -> None:
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, 8, padding_idx=0)
            self.position = nn.Embedding(LENGTH, 8)
            self.encoder = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
            self.fc = nn.Linear(8, CLASSES)

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            positions = torch.arange(ids.shape[1], device=ids.device).expand_as(ids)  # position ids, as BERT's
            return self.fc(self.encoder(self.embedding(ids) + self.position(positions)).mean(1))

    class Pair(nn.Module):
        """Two inputs (8 and 4 features) and a scale as an additional forward argument."""

        def __init__(self) -> None:
            super().__init__()
            self.fc1, self.relu = nn.Linear(FEATURES + 4, 16), nn.ReLU()
            self.fc2 = nn.Linear(16, CLASSES)

        def forward(self, x: torch.Tensor, z: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
            return self.fc2(self.relu(self.fc1(torch.cat([x, z * scale], 1))))

    return {"mlp": MLP, "cnn": CNN, "lstm": LSTMClassifier, "attention": AttentionClassifier, "pair": Pair}


def _inputs(network: str) -> tuple[Any, ...]:
    """The network's example inputs, from a seeded generator."""
    import torch

    gen = torch.Generator().manual_seed(0)
    if network == "mlp":
        return (torch.randn(ROWS, FEATURES, generator=gen),)
    if network == "cnn":
        return (torch.rand(IMAGES, 3, SIDE, SIDE, generator=gen),)
    if network == "pair":
        return torch.randn(ROWS, FEATURES, generator=gen), torch.randn(ROWS, 4, generator=gen)
    return (torch.randint(1, VOCAB, (SEQUENCES, LENGTH), generator=gen),)


def _tensor(token: str, network: str, inputs: tuple[Any, ...]) -> Any:
    """The tensor an ``attribute`` keyword's token stands for (see the comment above ``ATTRIBUTIONS``)."""
    import torch

    gen = torch.Generator().manual_seed(1)
    batch = inputs[0].shape[0]
    if token == "@targets":
        return torch.arange(batch) % CLASSES
    if token == "@scale":
        return torch.tensor(0.5)
    if token == "@pad":
        return torch.zeros_like(inputs[0])
    if token in ("@zeros", "@random", "@distribution"):
        def one(x: Any) -> Any:
            if token == "@zeros":
                return torch.zeros_like(x)
            shape = (5, *x.shape[1:]) if token == "@distribution" else x.shape
            return torch.rand(shape, generator=gen) if network == "cnn" else torch.randn(shape, generator=gen)
        baselines = tuple(one(x) for x in inputs)
        return baselines[0] if len(baselines) == 1 else baselines
    if token in ("@groups", "@groups3"):
        if network == "cnn":  # the four quadrants of the image, shared by the channels and the batch
            rows = torch.arange(SIDE).unsqueeze(1) // (SIDE // 2)
            cols = torch.arange(SIDE).unsqueeze(0) // (SIDE // 2)
            return (rows * 2 + cols).reshape(1, 1, SIDE, SIDE)
        groups = 3 if token == "@groups3" else 4
        return (torch.arange(FEATURES) * groups // FEATURES).unsqueeze(0)
    raise KeyError(token)


def _modules() -> Any:
    """The bench module ``Attribute`` (defined here: torch is imported in a worker only)."""
    from torch import nn

    class Attribute(nn.Module):
        """A captum method's ``attribute`` on the network: the inputs are the forward's positional arguments,
        the keyword tensors (baselines, targets, masks) its keywords, and the rest fixed."""

        def __init__(self, network: nn.Module, attribution: Any, /, **static: Any) -> None:
            super().__init__()
            self.network = network
            self.attribution = attribution
            self.static = static

        def forward(self, *inputs: Any, **tensors: Any) -> Any:
            return self.attribution.attribute(inputs[0] if len(inputs) == 1 else inputs, **self.static, **tensors)

        def entry_points(self) -> list[Any]:
            return [type(self.attribution).attribute]

    return Attribute


def _method(cls: str, network: Any, keywords: dict[str, Any]) -> Any:
    """The attribution object ``cls`` around ``network``, its "@name" keywords resolved to submodules."""
    import captum.attr

    def module(value: Any) -> Any:
        if isinstance(value, list):
            return [module(v) for v in value]
        return getattr(network, value[1:]) if isinstance(value, str) and value.startswith("@") else value

    if "/" in cls:  # NoiseTunnel/X
        outer, inner = cls.split("/")
        return getattr(captum.attr, outer)(_method(inner, network, keywords))
    return getattr(captum.attr, cls)(network, **{k: module(v) for k, v in keywords.items()})


def _attribution(name: str) -> Built:
    cls, net, constructor, attribute = ATTRIBUTIONS[name]
    network = _networks()[net]()
    network.eval()
    inputs = _inputs(net)
    static = {k: v for k, v in attribute.items() if not (isinstance(v, str) and v.startswith("@"))}
    tensors = {k: _tensor(v, net, inputs) for k, v in attribute.items() if k not in static}
    return _modules()(network, _method(cls, network, constructor), **static), inputs, tensors


def _workflow(name: str) -> Built:
    import captum.attr
    import torch
    from captum import metrics, robust
    from torch import nn

    net = WORKFLOWS[name]
    network = _networks()[net]()
    network.eval()
    inputs = _inputs(net)
    targets = _tensor("@targets", net, inputs)

    class Workflow(nn.Module):
        """Bench glue around one method: ``run`` is the tutorial's code, given the network's inputs and
        per-example targets; ``entered`` the library functions it calls."""

        def __init__(self, run: Any, entered: list[Any]) -> None:
            super().__init__()
            self.network = network
            self.run = run
            self.entered = entered

        def forward(self, x: torch.Tensor, target: torch.Tensor) -> Any:
            return self.run(x, target)

        def entry_points(self) -> list[Any]:
            return self.entered

    if name == "LayerGradCam.cnn.interpolate":  # Grad-CAM upsampled to the image, as the tutorials show it
        gradcam = captum.attr.LayerGradCam(network, network.conv2)

        def run(x: torch.Tensor, target: torch.Tensor) -> Any:
            cam = gradcam.attribute(x, target=target, relu_attributions=True)
            return captum.attr.LayerAttribution.interpolate(cam, (SIDE, SIDE), "bilinear")

        return Workflow(run, [captum.attr.LayerGradCam.attribute, captum.attr.LayerAttribution.interpolate]), \
            (inputs[0], targets), {}
    if name == "IntegratedGradients.lstm.interpretable_embedding":
        # the embedding layer swapped for an interpretable one, IG on the embeddings, the layer restored after
        embedding = captum.attr.configure_interpretable_embedding_layer(network, "embedding")
        ig = captum.attr.IntegratedGradients(network)

        def run(ids: torch.Tensor, target: torch.Tensor) -> Any:
            embedded = embedding.indices_to_embeddings(ids)
            reference = embedding.indices_to_embeddings(torch.zeros_like(ids))
            return ig.attribute(embedded, baselines=reference, target=target, n_steps=6)

        return Workflow(run, [captum.attr.InterpretableEmbeddingBase.indices_to_embeddings,
                              captum.attr.IntegratedGradients.attribute]), (inputs[0], targets), {}
    if name == "LayerIntegratedGradients.lstm.token_reference":  # the text tutorials' all-padding reference
        reference = captum.attr.TokenReferenceBase(reference_token_idx=0)
        lig = captum.attr.LayerIntegratedGradients(network, network.embedding)

        def run(ids: torch.Tensor, target: torch.Tensor) -> Any:
            baseline = reference.generate_reference(ids.shape[1], device=ids.device).unsqueeze(0)
            return lig.attribute(ids, baseline.expand_as(ids), target=target, n_steps=6).sum(dim=2)

        return Workflow(run, [captum.attr.TokenReferenceBase.generate_reference,
                              captum.attr.LayerIntegratedGradients.attribute]), (inputs[0], targets), {}
    if name.startswith("infidelity."):
        method = captum.attr.IntegratedGradients(network) if "IntegratedGradients" in name \
            else captum.attr.Saliency(network)
        normalize = name.endswith(".normalize")
        options = {"n_steps": 8} if "IntegratedGradients" in name else {}

        def perturb(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            noise = torch.randn_like(x) * 0.03  # the docs' noise perturbation
            return noise, x - noise

        def run(x: torch.Tensor, target: torch.Tensor) -> Any:
            attributions = method.attribute(x, target=target, **options)
            return metrics.infidelity(network, perturb, x, attributions, target=target, n_perturb_samples=4,
                                      normalize=normalize)

        return Workflow(run, [type(method).attribute, metrics.infidelity]), (inputs[0], targets), {}
    if name.startswith("sensitivity_max."):
        method = captum.attr.IntegratedGradients(network) if "IntegratedGradients" in name \
            else captum.attr.Saliency(network)
        options = {"n_steps": 4} if "IntegratedGradients" in name else {}

        def run(x: torch.Tensor, target: torch.Tensor) -> Any:
            return metrics.sensitivity_max(method.attribute, x, target=target, n_perturb_samples=4,
                                           perturb_radius=0.05, **options)

        return Workflow(run, [type(method).attribute, metrics.sensitivity_max]), (inputs[0], targets), {}
    fgsm = robust.FGSM(network, lower_bound=-3.0, upper_bound=3.0)

    def run(x: torch.Tensor, target: torch.Tensor) -> Any:
        return fgsm.perturb(x, epsilon=0.1, target=target)

    return Workflow(run, [robust.FGSM.perturb]), (inputs[0], targets), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # captum's notes on hooks, train mode and setting requires_grad
    torch.manual_seed(0)
    if name in ATTRIBUTIONS:
        return _attribution(name)
    return _workflow(name)
