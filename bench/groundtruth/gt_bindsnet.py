"""Ground-truth bench, bindsnet: spiking neural network simulation (nodes, connections, learning rules, networks).

BindsNET simulates spiking networks step by step in torch. A ``Network`` holds layers of ``Nodes`` (each a
module whose ``forward`` advances its voltages, refractory counters, spike traces and adaptive thresholds
by one time step, state kept in buffers), ``AbstractConnection`` subclasses between them (``compute`` turns
presynaptic spikes into postsynaptic input; ``update`` applies a ``LearningRule``, bounds, decays and masks
the weights; ``normalize`` rescales them) and monitors. ``Network.run`` loops over time steps: it gathers
each layer's input from the connections, steps the layers, applies clamps and injected voltages, updates
the connections (learning only in train mode: ``Network.train`` switches ``learning``), records the
monitors and finally normalizes the weights. So the tables cover, at batch 2 (1 where a rule needs it), 4
time steps and layers of 4 to 16 neurons:

- ``NODES``: each node type stepped over 4 time steps by the bench's loop after ``compute_decays`` and
  ``set_batch_size`` (what ``add_layer`` does): ``Input`` (spike traces, additive traces, summed input),
  ``McCullochPitts``, ``IFNodes`` (lower bound), ``LIFNodes`` (traces, lower bound, a 2-D shape, per-neuron
  thresholds, summed input), ``CurrentLIFNodes``, ``AdaptiveLIFNodes``, ``DiehlAndCookNodes`` (one spike per
  step or not), ``IzhikevichNodes`` (excitatory, inhibitory and mixed), ``SRM0Nodes`` and the conversion
  module's ``SubtractiveResetIFNodes`` and ``PassThroughNodes``; a ``reset_state_variables`` after stepping;
- ``CONNECTIONS``: ``compute`` of ``Connection``, ``Conv2dConnection`` (padding and stride),
  ``MaxPool2dConnection`` (its layers' shapes holding the batch, as ``ann_to_snn`` builds them),
  ``LocalConnection``, ``MeanFieldConnection`` and ``SparseConnection`` (sparse weights, one unbatched
  spike vector); ``normalize`` of ``Connection``, ``Conv2dConnection`` and ``LocalConnection``;
- ``RULES``: a step loop (source spikes, ``compute``, target step, ``update``) under each learning rule and
  connection it supports: ``PostPre`` (dense, convolutional, local; one learning rate zero; a summed
  reduction; weight decay), ``WeightDependentPostPre``, ``Hebbian``, ``MSTDP`` and ``MSTDPET`` (dense and
  convolutional, with a reward), ``Rmax`` (onto ``SRM0Nodes``) and ``NoOp`` with bounds and a mask;
- ``NETWORKS``: ``Network.run`` then the monitors' recordings and ``reset_state_variables``, as users loop:
  two layers, feed-forward one-step mode, clamped neurons (per neuron and per time step), injected voltage
  (per neuron and per time step), weight masks, a batch size set by the inputs, 2-D inputs without a
  batch, a recurrent layer, convolutional, max-pooling, locally connected and mean-field connections, a
  reward function (``MovingAvgRPE``) with ``MSTDP``, ``MSTDPET``, ``Rmax``, Izhikevich neurons,
  ``NetworkMonitor`` (growing and windowed), a windowed ``Monitor``, ``Network._get_inputs``; the model zoo
  (``TwoLayerNetwork``, ``DiehlAndCook2015``, ``DiehlAndCook2015v2``, ``IncreasingInhibitionNetwork``,
  ``LocallyConnectedNetwork``); ``ann_to_snn`` conversions of small ANNs (with and without data-based
  normalization) run as spiking networks; an unsupervised training step in the style of the library's
  examples (Poisson encoding of images, a run per image, label assignment and both voting schemes); an
  ``EnvironmentPipeline`` step on a toy environment with softmax and multinomial action selection;
- ``FUNCTIONS``: the encodings (``bernoulli`` with and without a time axis, ``poisson``, ``rank_order``,
  ``repeat``, ``single``), their ``Encoder`` classes and the Poisson / Bernoulli / rank-order loaders; the
  evaluation functions (``assign_labels`` fresh and with rates, ``all_activity``, ``proportion_weighting``,
  ``ngram``, ``update_ngram_scores``, ``logreg_predict`` unfitted and fitted); the ``utils`` helpers
  (``im2col_indices``, ``col2im_indices``, ``get_square_weights``, ``get_square_assignments``,
  ``reshape_locally_connected_weights``, ``reshape_conv2d_weights``); ``MovingAvgRPE.compute`` and
  ``update``; ``data_based_normalization`` and the conversion's ``FeatureExtractor`` and ``Permute``.

bindsnet 0.2.7 imports ``torch._six`` (gone from torch since 2.0) in its datasets and pipeline modules, so
``import bindsnet`` fails on torch 2.13 unless a stand-in module (``collections.abc`` and the builtin
string / int classes, what ``torch._six`` held) is in ``sys.modules`` first: ``provide_torch_six()`` puts
it there, and the worker must call it before it imports the library. Left out: the datasets (downloads),
the Gym environments (gym 0.26's five-value ``step`` does not match ``GymEnvironment``), the plotting
and analysis modules, and the conversion's ``PermuteConnection`` and ``ConstantPad2dConnection`` (they
leave ``update`` and ``reset_state_variables`` abstract, so they cannot be instantiated). Every model is
compiled in eval (``learning`` off) and in train mode. Random weights, nothing downloaded. ``names()``
needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import sys
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, STEPS, N_IN, N_OUT = 2, 4, 16, 6

# Node model name -> (class name, keywords, input scale: the current drawn per step is ``scale * rand``;
# 0 for spikes).
NODES: dict[str, tuple[str, dict[str, Any], float]] = {
    "Input": ("Input", {"n": N_IN}, 0.0),
    "Input.traces": ("Input", {"n": N_IN, "traces": True}, 0.0),
    "Input.traces_additive": ("Input", {"n": N_IN, "traces": True, "traces_additive": True}, 0.0),
    "Input.sum_input": ("Input", {"n": N_IN, "sum_input": True}, 0.0),
    "McCullochPitts": ("McCullochPitts", {"n": N_OUT, "thresh": 0.5}, 1.0),
    "McCullochPitts.traces": ("McCullochPitts", {"n": N_OUT, "traces": True}, 2.0),
    "IFNodes": ("IFNodes", {"n": N_OUT}, 20.0),
    "IFNodes.lbound": ("IFNodes", {"n": N_OUT, "lbound": -70.0, "traces": True}, 20.0),
    "LIFNodes": ("LIFNodes", {"n": N_OUT}, 20.0),
    "LIFNodes.traces": ("LIFNodes", {"n": N_OUT, "traces": True}, 20.0),
    "LIFNodes.lbound": ("LIFNodes", {"n": N_OUT, "lbound": -70.0}, 20.0),
    "LIFNodes.shape2d": ("LIFNodes", {"shape": [2, 3]}, 20.0),
    "LIFNodes.tensor_thresh": ("LIFNodes", {"n": N_OUT, "thresh": "tensor"}, 20.0),
    "LIFNodes.sum_input": ("LIFNodes", {"n": N_OUT, "sum_input": True, "traces": True,
                                        "traces_additive": True}, 20.0),
    "CurrentLIFNodes": ("CurrentLIFNodes", {"n": N_OUT}, 10.0),
    "CurrentLIFNodes.traces": ("CurrentLIFNodes", {"n": N_OUT, "traces": True, "lbound": -70.0}, 10.0),
    "AdaptiveLIFNodes": ("AdaptiveLIFNodes", {"n": N_OUT}, 20.0),
    "AdaptiveLIFNodes.traces_additive": ("AdaptiveLIFNodes", {"n": N_OUT, "traces": True,
                                                              "traces_additive": True, "lbound": -70.0}, 20.0),
    "DiehlAndCookNodes": ("DiehlAndCookNodes", {"n": N_OUT, "traces": True}, 20.0),
    "DiehlAndCookNodes.no_one_spike": ("DiehlAndCookNodes", {"n": N_OUT, "one_spike": False}, 20.0),
    "DiehlAndCookNodes.lbound": ("DiehlAndCookNodes", {"n": N_OUT, "lbound": -70.0}, 20.0),
    "IzhikevichNodes": ("IzhikevichNodes", {"n": N_OUT}, 20.0),
    "IzhikevichNodes.inhibitory": ("IzhikevichNodes", {"n": N_OUT, "excitatory": 0.0}, 20.0),
    "IzhikevichNodes.mixed": ("IzhikevichNodes", {"n": N_OUT, "excitatory": 0.5, "lbound": -80.0,
                                                  "traces": True}, 20.0),
    "SRM0Nodes": ("SRM0Nodes", {"n": N_OUT}, 20.0),
    "SRM0Nodes.traces_additive": ("SRM0Nodes", {"n": N_OUT, "traces": True, "traces_additive": True,
                                                "lbound": -75.0}, 20.0),
    "SubtractiveResetIFNodes": ("SubtractiveResetIFNodes", {"n": N_OUT, "thresh": 1.0, "reset": 0.0,
                                                            "refrac": 0}, 1.0),
    "SubtractiveResetIFNodes.lbound": ("SubtractiveResetIFNodes", {"n": N_OUT, "thresh": 1.0, "reset": 0.0,
                                                                   "lbound": -1.0, "sum_input": True}, 1.0),
    "PassThroughNodes": ("PassThroughNodes", {"n": N_OUT}, 1.0),
    "LIFNodes.reset_state_variables": ("LIFNodes", {"n": N_OUT, "traces": True, "sum_input": True}, 20.0),
    "DiehlAndCookNodes.reset_state_variables": ("DiehlAndCookNodes", {"n": N_OUT, "traces": True}, 20.0),
}
CONNECTIONS = ("Connection.compute", "Connection.compute.bias", "Conv2dConnection.compute",
               "Conv2dConnection.compute.padding_stride", "MaxPool2dConnection.compute", "LocalConnection.compute",
               "MeanFieldConnection.compute", "SparseConnection.compute", "Connection.normalize",
               "Conv2dConnection.normalize",
               "LocalConnection.normalize")
# Learning model name -> (rule, connection kind, keywords of the connection, batch).
RULES: dict[str, tuple[str, str, dict[str, Any], int]] = {
    "PostPre.Connection": ("PostPre", "dense", {"nu": (1e-2, 1e-2)}, BATCH),
    "PostPre.Connection.post_only": ("PostPre", "dense", {"nu": (0.0, 1e-2)}, BATCH),
    "PostPre.Connection.sum_reduction": ("PostPre", "dense", {"nu": 1e-2, "reduction": "sum"}, BATCH),
    "PostPre.Connection.weight_decay": ("PostPre", "dense", {"nu": 1e-2, "weight_decay": 1e-3, "wmin": 0.0,
                                                             "wmax": 1.0}, BATCH),
    "PostPre.Conv2dConnection": ("PostPre", "conv", {"nu": (1e-2, 1e-2)}, BATCH),
    "PostPre.LocalConnection": ("PostPre", "local", {"nu": (1e-2, 1e-2)}, BATCH),
    "WeightDependentPostPre.Connection": ("WeightDependentPostPre", "dense", {"nu": 1e-2, "wmin": 0.0,
                                                                              "wmax": 1.0}, BATCH),
    "WeightDependentPostPre.Conv2dConnection": ("WeightDependentPostPre", "conv", {"nu": 1e-2, "wmin": 0.0,
                                                                                   "wmax": 1.0}, BATCH),
    "Hebbian.Connection": ("Hebbian", "dense", {"nu": 1e-2}, BATCH),
    "Hebbian.Conv2dConnection": ("Hebbian", "conv", {"nu": 1e-2}, BATCH),
    "MSTDP.Connection": ("MSTDP", "dense", {"nu": 1e-2, "tc_plus": 10.0}, BATCH),
    "MSTDP.Conv2dConnection": ("MSTDP", "conv", {"nu": 1e-2}, 1),
    "MSTDPET.Connection": ("MSTDPET", "dense", {"nu": 1e-2, "tc_e_trace": 20.0}, 1),
    "MSTDPET.Conv2dConnection": ("MSTDPET", "conv", {"nu": 1e-2}, 1),
    "Rmax.Connection": ("Rmax", "rmax", {"nu": 1e-2}, 1),
    "NoOp.bounds_mask": ("NoOp", "dense", {"wmin": -0.5, "wmax": 0.5, "weight_decay": 1e-2, "mask": True}, BATCH),
    "NoOp.LocalConnection": ("NoOp", "local", {}, BATCH),
}
NETWORKS = ("run.two_layer", "run.one_step", "run.clamp", "run.clamp.per_step", "run.injects_v",
            "run.injects_v.per_step", "run.masks", "run.batch_from_inputs", "run.inputs_2d", "run.recurrent",
            "run.conv2d", "run.maxpool2d", "run.local", "run.mean_field", "run.reward_fn.MSTDP", "run.MSTDPET",
            "run.Rmax", "run.izhikevich", "run.network_monitor", "run.network_monitor.time", "run.monitor.time",
            "run.no_monitors", "Network._get_inputs", "Network.reset_state_variables",
            "TwoLayerNetwork", "DiehlAndCook2015", "DiehlAndCook2015v2", "IncreasingInhibitionNetwork",
            "LocallyConnectedNetwork", "ann_to_snn.mlp", "ann_to_snn.mlp.normalized", "ann_to_snn.lif_nodes",
            "train_step.diehl_and_cook", "EnvironmentPipeline.select_softmax",
            "EnvironmentPipeline.select_multinomial")
FUNCTIONS = ("bernoulli", "bernoulli.time", "poisson", "rank_order", "repeat", "single",
             "BernoulliEncoder", "PoissonEncoder", "RankOrderEncoder", "RepeatEncoder", "SingleEncoder",
             "NullEncoder", "poisson_loader", "bernoulli_loader", "rank_order_loader",
             "assign_labels", "assign_labels.rates", "all_activity", "proportion_weighting", "ngram",
             "update_ngram_scores", "logreg_predict.unfitted", "logreg_predict.fitted",
             "im2col_indices", "col2im_indices", "get_square_weights", "get_square_assignments",
             "reshape_locally_connected_weights", "reshape_conv2d_weights", "MovingAvgRPE.compute",
             "MovingAvgRPE.update", "data_based_normalization", "FeatureExtractor", "Permute")


def names() -> list[str]:
    return list(NODES) + list(CONNECTIONS) + list(RULES) + list(NETWORKS) + list(FUNCTIONS)


def provide_torch_six() -> None:
    """Put a stand-in ``torch._six`` (what bindsnet imports from it) in ``sys.modules``; needs no torch."""
    import collections.abc
    import types

    if "torch._six" in sys.modules:
        return
    six = types.ModuleType("torch._six")
    six.container_abcs = collections.abc  # type: ignore[attr-defined]
    six.string_classes = (str, bytes)  # type: ignore[attr-defined]
    six.int_classes = int  # type: ignore[attr-defined]
    sys.modules["torch._six"] = six


def _generator(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _rand(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.rand(*shape, generator=_generator(seed))


def _spikes(*shape: int, p: float = 0.4, seed: int = 1) -> Any:
    """Spike trains as the encoders give them (``uint8``)."""
    import torch

    return torch.bernoulli(p * torch.ones(*shape), generator=_generator(seed)).byte()


def _ready(layer: Any, batch: int = BATCH, dt: float = 1.0) -> Any:
    """What ``Network.add_layer`` does to a layer."""
    layer.compute_decays(dt)
    layer.set_batch_size(batch)
    return layer


# Nodes.


def _node_class(class_name: str) -> Any:
    from bindsnet.conversion import conversion
    from bindsnet.network import nodes

    return getattr(nodes, class_name, None) or getattr(conversion, class_name)


def _nodes(name: str) -> Built:
    import torch

    from gt_calls import Run

    class_name, keywords, scale = NODES[name]
    keywords = dict(keywords)
    if keywords.get("thresh") == "tensor":
        keywords["thresh"] = -52.0 - 2 * _rand(N_OUT, seed=5)
    cls = _node_class(class_name)
    layer = _ready(cls(**keywords))
    shape = tuple(layer.shape)
    inputs = _spikes(STEPS, BATCH, *shape) if scale == 0.0 else scale * _rand(STEPS, BATCH, *shape)
    reset = name.endswith("reset_state_variables")

    def step(layer: Any, x: torch.Tensor) -> Any:
        """Step the layer over the time axis of ``x``; its spikes (and voltages) per step."""
        spikes, voltages = [], []
        for t in range(x.shape[0]):
            layer(x[t])
            spikes.append(layer.s.float())
            if hasattr(layer, "v"):
                voltages.append(layer.v.clone())
        if reset:
            layer.reset_state_variables()
        return torch.stack(spikes), (torch.stack(voltages) if voltages else None)

    return Run(layer, step, [cls]), (inputs,), {}


# Connections.


def _connections(name: str) -> Built:
    import torch
    from bindsnet.conversion.conversion import PassThroughNodes
    from bindsnet.network import nodes, topology

    from gt_calls import Method, Run

    what = name.split(".")[1]
    kind = name.split(".")[0]
    if kind == "Connection":
        source, target = _ready(nodes.Input(N_IN)), _ready(nodes.LIFNodes(N_OUT))
        keywords: dict[str, Any] = {"w": _rand(N_IN, N_OUT)}
        if name.endswith("bias"):
            keywords.update(b=_rand(N_OUT, seed=2), wmin=0.0, wmax=0.8)
        if what == "normalize":
            keywords["norm"] = 4.0
        conn = topology.Connection(source, target, **keywords)
        spikes = _spikes(BATCH, N_IN)
    elif kind == "Conv2dConnection":
        padded = name.endswith("padding_stride")
        source = _ready(nodes.Input(shape=[1, 6, 6]))
        target = _ready(nodes.LIFNodes(shape=[2, 4, 4]))
        keywords = {"padding": 2, "stride": 2} if padded else {}
        if what == "normalize":
            keywords["norm"] = 2.0
        conn = topology.Conv2dConnection(source, target, kernel_size=3 if not padded else 4, **keywords)
        spikes = _spikes(BATCH, 1, 6, 6)
    elif kind == "MaxPool2dConnection":
        source = _ready(nodes.Input(shape=[1, 2, 4, 4]), batch=1)
        target = _ready(PassThroughNodes(shape=[1, 2, 2, 2]), batch=1)
        conn = topology.MaxPool2dConnection(source, target, kernel_size=2, stride=2, decay=0.5)
        spikes = _spikes(1, 2, 4, 4)
    elif kind == "LocalConnection":
        source, target = _ready(nodes.Input(N_IN)), _ready(nodes.LIFNodes(8))
        conn = topology.LocalConnection(source, target, kernel_size=2, stride=2, n_filters=2, wmin=0.0,
                                        wmax=1.0, norm=0.5 if what == "normalize" else None, input_shape=(4, 4))
        spikes = _spikes(BATCH, N_IN)
    elif kind == "MeanFieldConnection":
        source, target = _ready(nodes.Input(N_IN)), _ready(nodes.LIFNodes(N_OUT))
        conn = topology.MeanFieldConnection(source, target, w=_rand(N_OUT))
        spikes = _spikes(BATCH, N_IN)
    else:
        source, target = _ready(nodes.Input(N_OUT)), _ready(nodes.LIFNodes(N_OUT))
        dense = _rand(N_OUT, N_OUT) * _spikes(N_OUT, N_OUT, p=0.5, seed=3).float()
        conn = topology.SparseConnection(source, target, w=dense.to_sparse())
        spikes = _spikes(N_OUT)
    if what == "compute":
        return Method(conn, "compute"), (spikes,), {}

    def normalize(conn: Any, w: torch.Tensor) -> Any:
        """Set the weights, normalize them in place, return them."""
        with torch.no_grad():
            conn.w.copy_(w)
        conn.normalize()
        return conn.w.clone()

    return Run(conn, normalize, [type(conn).normalize]), (conn.w.detach().clone() + 0.1,), {}


# Learning rules.


def _rule_connection(rule: str, kind: str, keywords: dict[str, Any], batch: int) -> Any:
    import torch
    from bindsnet import learning
    from bindsnet.network import nodes, topology

    update_rule = getattr(learning, rule)
    keywords = dict(keywords)
    keywords.pop("mask", None)
    if keywords.get("reduction") == "sum":
        keywords["reduction"] = torch.sum
    if kind == "dense":
        source = _ready(nodes.Input(N_IN, traces=True), batch)
        target = _ready(nodes.LIFNodes(N_OUT, traces=True), batch)
        return topology.Connection(source, target, w=0.3 * _rand(N_IN, N_OUT), update_rule=update_rule, **keywords)
    if kind == "conv":
        source = _ready(nodes.Input(shape=[1, 6, 6], traces=True), batch)
        target = _ready(nodes.LIFNodes(shape=[2, 4, 4], traces=True), batch)
        return topology.Conv2dConnection(source, target, kernel_size=3, w=0.3 * _rand(2, 1, 3, 3),
                                         update_rule=update_rule, **keywords)
    if kind == "local":
        source = _ready(nodes.Input(N_IN, traces=True), batch)
        target = _ready(nodes.LIFNodes(8, traces=True), batch)
        return topology.LocalConnection(source, target, kernel_size=2, stride=2, n_filters=2, input_shape=(4, 4),
                                        wmin=0.0, wmax=1.0, update_rule=update_rule, **keywords)
    source = _ready(nodes.Input(N_IN, traces=True, traces_additive=True), batch)
    target = _ready(nodes.SRM0Nodes(N_OUT), batch)
    return topology.Connection(source, target, w=_rand(N_IN, N_OUT), update_rule=update_rule, **keywords)


def _rules(name: str) -> Built:
    import torch

    from gt_calls import Run

    rule, kind, keywords, batch = RULES[name]
    conn = _rule_connection(rule, kind, keywords, batch)
    conn.dt = 1.0
    mask = (_rand(*conn.w.shape, seed=7) < 0.2) if keywords.get("mask") else None
    rewarded = rule in ("MSTDP", "MSTDPET", "Rmax")
    pre = _spikes(STEPS, batch, *conn.source.shape, seed=2)
    reward = torch.tensor(0.5)

    def learn(conn: Any, pre: torch.Tensor, reward: torch.Tensor) -> Any:
        """Source spikes, ``compute`` into the target's step, then the rule's ``update``, per time step."""
        for t in range(pre.shape[0]):
            conn.source(pre[t])
            conn.target(60.0 * conn.compute(conn.source.s))
            extra = {"reward": reward} if rewarded else {}
            conn.update(mask=mask, learning=conn.training, **extra)
        conn.normalize()
        return conn.w.clone()

    entries = [type(conn).compute, type(conn).update, type(conn.update_rule)]
    return Run(conn, learn, entries), (pre, reward), {}


# Networks.


def _two_layer(batch: int = 1, **network: Any) -> Any:
    """``Input`` (16) -> ``LIFNodes`` (6) with traces, a ``PostPre`` connection and monitors of both layers."""
    from bindsnet.learning import PostPre
    from bindsnet.network import Network, nodes, topology
    from bindsnet.network.monitors import Monitor

    net = Network(dt=1.0, batch_size=batch, **network)
    net.add_layer(nodes.Input(N_IN, traces=True), name="X")
    net.add_layer(nodes.LIFNodes(N_OUT, traces=True, thresh=-60.0), name="Y")
    net.add_connection(topology.Connection(net.layers["X"], net.layers["Y"], w=2.0 * _rand(N_IN, N_OUT),
                                           update_rule=PostPre, nu=(1e-3, 1e-2), wmin=0.0, wmax=2.0, norm=8.0),
                       source="X", target="Y")
    net.add_monitor(Monitor(net.layers["X"], state_vars=["s"]), name="X")
    net.add_monitor(Monitor(net.layers["Y"], state_vars=["s", "v"]), name="Y")
    return net


def _simple(source: Any, target: Any, conn: Any, batch: int = 1, **network: Any) -> Any:
    from bindsnet.network import Network
    from bindsnet.network.monitors import Monitor

    net = Network(dt=1.0, batch_size=batch, **network)
    net.add_layer(source, name="X")
    net.add_layer(target, name="Y")
    net.add_connection(conn(net.layers["X"], net.layers["Y"]), source="X", target="Y")
    net.add_monitor(Monitor(net.layers["Y"], state_vars=["s"]), name="Y")
    return net


def _network(name: str) -> tuple[Any, Any, dict[str, Any]]:
    """(network, input spikes of the layer named ``X``, keywords of ``run``)."""
    import torch
    from bindsnet import learning
    from bindsnet.learning.reward import MovingAvgRPE
    from bindsnet.network import nodes, topology
    from bindsnet.network.monitors import Monitor, NetworkMonitor

    spikes = _spikes(STEPS, 1, N_IN)
    if name == "run.two_layer":
        return _two_layer(), spikes, {}
    if name == "run.one_step":
        return _two_layer(), spikes, {"one_step": True}
    if name == "run.clamp":
        return _two_layer(), spikes, {"clamp": {"Y": torch.tensor([True, False, True, False, False, False])}}
    if name == "run.clamp.per_step":
        return _two_layer(), spikes, {"clamp": {"Y": _rand(STEPS, N_OUT, seed=4) < 0.3}}
    if name == "run.injects_v":
        return _two_layer(), spikes, {"injects_v": {"Y": 5.0 * _rand(N_OUT, seed=4)}}
    if name == "run.injects_v.per_step":
        return _two_layer(), spikes, {"injects_v": {"Y": 5.0 * _rand(STEPS, N_OUT, seed=4)}}
    if name == "run.masks":
        return _two_layer(), spikes, {"masks": {("X", "Y"): _rand(N_IN, N_OUT, seed=4) < 0.3}}
    if name == "run.batch_from_inputs":
        return _two_layer(batch=1), _spikes(STEPS, BATCH, N_IN), {}
    if name == "run.inputs_2d":
        return _two_layer(), _spikes(STEPS, N_IN), {}
    if name == "run.no_monitors":
        net = _two_layer(batch=BATCH)
        net.monitors.clear()
        return net, _spikes(STEPS, BATCH, N_IN), {}
    if name == "run.recurrent":
        net = _two_layer(batch=BATCH)
        net.add_connection(topology.Connection(net.layers["Y"], net.layers["Y"],
                                               w=-5.0 * _rand(N_OUT, N_OUT, seed=3), wmin=-5.0, wmax=0.0),
                           source="Y", target="Y")
        return net, _spikes(STEPS, BATCH, N_IN), {}
    if name == "run.conv2d":
        net = _simple(nodes.Input(shape=[1, 6, 6], traces=True), nodes.LIFNodes(shape=[2, 4, 4], traces=True,
                                                                                 thresh=-60.0),
                      lambda s, t: topology.Conv2dConnection(s, t, kernel_size=3, w=3.0 * _rand(2, 1, 3, 3),
                                                             update_rule=learning.PostPre, nu=1e-2, norm=4.0),
                      batch=BATCH)
        return net, _spikes(STEPS, BATCH, 1, 6, 6), {}
    if name == "run.maxpool2d":
        from bindsnet.conversion.conversion import PassThroughNodes

        # As ``ann_to_snn`` builds it: the layers' shapes hold the batch, the layers are stepped in one-step mode.
        net = _simple(nodes.Input(shape=[1, 2, 4, 4]), PassThroughNodes(shape=[1, 2, 2, 2]),
                      lambda s, t: topology.MaxPool2dConnection(s, t, kernel_size=2, stride=2, decay=0.5))
        return net, _spikes(STEPS, 1, 2, 4, 4), {"one_step": True}
    if name == "run.local":
        net = _simple(nodes.Input(N_IN, traces=True), nodes.DiehlAndCookNodes(8, traces=True),
                      lambda s, t: topology.LocalConnection(s, t, kernel_size=2, stride=2, n_filters=2,
                                                            input_shape=(4, 4), wmin=0.0, wmax=1.0, norm=0.5,
                                                            update_rule=learning.PostPre, nu=1e-2))
        return net, spikes, {}
    if name == "run.mean_field":
        net = _simple(nodes.Input(N_IN), nodes.LIFNodes(N_OUT),
                      lambda s, t: topology.MeanFieldConnection(s, t, w=30.0 * _rand(N_OUT)), batch=BATCH)
        return net, _spikes(STEPS, BATCH, N_IN), {}
    if name == "run.reward_fn.MSTDP":
        net = _simple(nodes.Input(N_IN), nodes.LIFNodes(N_OUT, thresh=-60.0),
                      lambda s, t: topology.Connection(s, t, w=2.0 * _rand(N_IN, N_OUT), update_rule=learning.MSTDP,
                                                       nu=1e-2, wmin=0.0, wmax=2.0),
                      batch=BATCH, reward_fn=MovingAvgRPE)
        return net, _spikes(STEPS, BATCH, N_IN), {"reward": torch.tensor(1.0)}
    if name == "run.MSTDPET":
        net = _simple(nodes.Input(N_IN), nodes.LIFNodes(N_OUT, thresh=-60.0),
                      lambda s, t: topology.Connection(s, t, w=2.0 * _rand(N_IN, N_OUT),
                                                       update_rule=learning.MSTDPET, nu=1e-2))
        return net, spikes, {"reward": 0.5, "a_plus": 0.5, "a_minus": -0.5}
    if name == "run.Rmax":
        net = _simple(nodes.Input(N_IN, traces=True, traces_additive=True), nodes.SRM0Nodes(N_OUT),
                      lambda s, t: topology.Connection(s, t, w=5.0 * _rand(N_IN, N_OUT), update_rule=learning.Rmax,
                                                       nu=1e-2))
        return net, spikes, {"reward": torch.tensor(0.5)}
    if name == "run.izhikevich":
        net = _simple(nodes.Input(N_IN), nodes.IzhikevichNodes(N_OUT, excitatory=0.5),
                      lambda s, t: topology.Connection(s, t, w=20.0 * _rand(N_IN, N_OUT)), batch=BATCH)
        return net, _spikes(STEPS, BATCH, N_IN), {}
    if name.startswith("run.network_monitor"):
        net = _two_layer(batch=BATCH)
        net.monitors.clear()
        window = STEPS if name.endswith("time") else None
        # A windowed monitor of weights fails in its own reset (it looks connections up among the layers).
        state_vars = ("s", "v") if window else ("s", "v", "w")
        net.add_monitor(NetworkMonitor(net, state_vars=state_vars, time=window), name="all")
        return net, _spikes(STEPS, BATCH, N_IN), {}
    if name == "run.monitor.time":
        net = _two_layer(batch=BATCH)
        net.add_monitor(Monitor(net.layers["Y"], state_vars=["v"], time=2), name="window")
        return net, _spikes(STEPS, BATCH, N_IN), {}
    raise KeyError(name)


def _recorded(net: Any) -> dict[str, Any]:
    """What the monitors recorded, as users read it (``Monitor.get`` / ``NetworkMonitor.get``)."""
    from bindsnet.network.monitors import Monitor

    out: dict[str, Any] = {}
    for key, monitor in net.monitors.items():
        if isinstance(monitor, Monitor):
            out.update({f"{key}.{v}": monitor.get(v) for v in monitor.state_vars})
        else:
            out.update({f"{key}.{k}.{v}": t for k, d in monitor.get().items() for v, t in d.items()})
    return out


def _zoo(name: str) -> tuple[Any, Any]:
    from bindsnet import models
    from bindsnet.network.monitors import Monitor

    if name == "TwoLayerNetwork":
        net = models.TwoLayerNetwork(n_inpt=N_IN, n_neurons=N_OUT, norm=8.0)
        out = "Y"
    elif name == "DiehlAndCook2015":
        net, out = models.DiehlAndCook2015(n_inpt=N_IN, n_neurons=4, norm=8.0, inpt_shape=(1, 4, 4)), "Ae"
    elif name == "DiehlAndCook2015v2":
        net, out = models.DiehlAndCook2015v2(n_inpt=N_IN, n_neurons=4, norm=8.0), "Y"
    elif name == "IncreasingInhibitionNetwork":
        net, out = models.IncreasingInhibitionNetwork(n_input=N_IN, n_neurons=4, norm=8.0), "Y"
    else:
        net = models.LocallyConnectedNetwork(n_inpt=N_IN, input_shape=[4, 4], kernel_size=2, stride=2,
                                             n_filters=2, norm=0.5)
        out = "Y"
    net.add_monitor(Monitor(net.layers[out], state_vars=["s"]), name=out)
    shape = (1, 4, 4) if name == "DiehlAndCook2015" else (N_IN,)
    return net, 60.0 * _rand(STEPS, 1, *shape)


def _networks(name: str) -> Built:
    import torch
    from bindsnet.network import Network

    from gt_calls import Run

    if name in ("TwoLayerNetwork", "DiehlAndCook2015", "DiehlAndCook2015v2", "IncreasingInhibitionNetwork",
                "LocallyConnectedNetwork"):
        net, rates = _zoo(name)
        import bindsnet.encoding as encoding

        inputs = torch.stack([encoding.bernoulli(r, time=None, max_prob=0.5) for r in rates.clamp(0, 1)])

        def run_zoo(net: Any, x: torch.Tensor) -> Any:
            net.run(inputs={"X": x}, time=x.shape[0])
            out = _recorded(net)
            net.reset_state_variables()
            return out

        return Run(net, run_zoo, [Network.run, Network.reset_state_variables]), (inputs,), {}
    if name.startswith("ann_to_snn") or name == "train_step.diehl_and_cook" or name.startswith("EnvironmentPipeline"):
        return _programs(name)
    if name == "Network._get_inputs":
        net = _two_layer(batch=BATCH)
        net.add_connection(_recurrent(net), source="Y", target="Y")

        def get_inputs(net: Any, x: torch.Tensor) -> Any:
            net.layers["X"](x)
            return net._get_inputs()

        return Run(net, get_inputs, [Network._get_inputs]), (_spikes(BATCH, N_IN),), {}
    if name == "Network.reset_state_variables":
        net = _two_layer(batch=BATCH)
        net.run(inputs={"X": _spikes(STEPS, BATCH, N_IN)}, time=STEPS)

        def reset(net: Any, v: torch.Tensor) -> Any:
            net.layers["Y"].v += v
            net.reset_state_variables()
            return net.layers["Y"].v.clone(), net.layers["X"].x.clone()

        return Run(net, reset, [Network.reset_state_variables]), (_rand(BATCH, N_OUT),), {}
    net, spikes, keywords = _network(name)

    def run(net: Any, x: torch.Tensor) -> Any:
        """``Network.run`` over the spikes of ``X``, the recordings, then a reset before the next sample."""
        net.run(inputs={"X": x}, time=x.shape[0], **keywords)
        out = _recorded(net)
        out.update({f"w.{key}": conn.w.clone() for key, conn in net.connections.items() if hasattr(conn, "w")})
        net.reset_state_variables()
        return out

    return Run(net, run, [Network.run]), (spikes,), {}


def _recurrent(net: Any) -> Any:
    from bindsnet.network import topology

    return topology.Connection(net.layers["Y"], net.layers["Y"], w=-_rand(N_OUT, N_OUT, seed=3))


def _programs(name: str) -> Built:
    import torch
    from bindsnet.network import Network
    from torch import nn

    from gt_calls import Run

    if name.startswith("ann_to_snn"):
        from bindsnet.conversion import ann_to_snn
        from bindsnet.network import nodes

        ann = nn.Sequential(nn.Linear(N_IN, 12), nn.ReLU(), nn.Linear(12, 4), nn.ReLU())
        options: dict[str, Any] = {}
        if name.endswith("normalized"):
            options["data"] = _rand(8, N_IN, seed=3)
        if name.endswith("lif_nodes"):
            options["node_type"] = nodes.LIFNodes
        snn = ann_to_snn(ann, input_shape=(N_IN,), **options)
        last = list(snn.layers)[-1]

        def simulate(snn: Any, x: torch.Tensor) -> Any:
            """Constant input currents for ``STEPS`` steps; the summed input of the last layer (its readout)."""
            snn.run(inputs={"Input": x.unsqueeze(0).repeat(STEPS, 1, 1)}, time=STEPS)
            out = snn.layers[last].summed.clone() if hasattr(snn.layers[last], "summed") else snn.layers[last].s
            snn.reset_state_variables()
            return out

        return Run(snn, simulate, [Network.run]), (_rand(1, N_IN, seed=2),), {}
    if name == "train_step.diehl_and_cook":
        from bindsnet.encoding import PoissonEncoder
        from bindsnet.evaluation import all_activity, assign_labels, proportion_weighting
        from bindsnet.models import DiehlAndCook2015
        from bindsnet.network.monitors import Monitor

        net = DiehlAndCook2015(n_inpt=N_IN, n_neurons=4, norm=8.0, inpt_shape=(1, 4, 4))
        net.add_monitor(Monitor(net.layers["Ae"], state_vars=["s"], time=STEPS), name="Ae")
        encoder = PoissonEncoder(time=STEPS, dt=1.0)

        def train_step(net: Any, images: torch.Tensor, labels: torch.Tensor) -> Any:
            """The examples' loop: encode each image, run, record the spikes, reset; then assign and vote."""
            record = []
            for image in images:
                net.run(inputs={"X": encoder(image * 64.0).unsqueeze(1)}, time=STEPS)
                record.append(net.monitors["Ae"].get("s").squeeze(1))
                net.reset_state_variables()
            spikes = torch.stack(record)
            assignments, proportions, rates = assign_labels(spikes, labels, 2)
            return (all_activity(spikes, assignments, 2), proportion_weighting(spikes, assignments, proportions, 2),
                    rates)

        return (Run(net, train_step, [Network.run, assign_labels, all_activity, proportion_weighting]),
                (_rand(3, 1, 4, 4, seed=2), torch.tensor([0, 1, 0])), {})
    return _pipeline(name)


def _pipeline(name: str) -> Built:
    import types

    import torch
    from bindsnet.environment import Environment
    from bindsnet.learning import MSTDP
    from bindsnet.network import nodes, topology
    from bindsnet.pipeline import EnvironmentPipeline
    from bindsnet.pipeline.action import select_multinomial, select_softmax

    from gt_calls import Run

    class _ToyEnvironment(Environment):
        """Two actions; the observation is a fixed rate image, the reward 1 for action 1."""

        def __init__(self) -> None:
            self.action_space = types.SimpleNamespace(n=2)
            self.obs = _spikes(1, N_IN, seed=9).float()

        def step(self, a: int) -> tuple[Any, float, bool, dict[str, Any]]:
            return self.obs, float(a == 1), False, {}

        def reset(self) -> Any:
            return self.obs

        def render(self) -> None:
            pass

        def close(self) -> None:
            pass

        def preprocess(self) -> None:
            pass

    net = _simple(nodes.Input(N_IN, traces=True), nodes.LIFNodes(2, traces=True, thresh=-60.0),
                  lambda s, t: topology.Connection(s, t, w=4.0 * _rand(N_IN, 2), update_rule=MSTDP, nu=1e-2,
                                                   wmin=0.0, wmax=4.0))
    net.monitors.clear()
    action = select_softmax if name.endswith("softmax") else select_multinomial
    pipeline = EnvironmentPipeline(net, _ToyEnvironment(), action_function=action, output="Y", time=STEPS,
                                   allow_gpu=False, plot_config={"data_step": None, "data_length": 10})
    pipeline.reset_state_variables()
    pipeline.action = 1

    def step(net: Any, seed: torch.Tensor) -> Any:
        """One environment step (the action picked from the last spikes) and one network step on it."""
        batch = pipeline.env_step()
        pipeline.step(batch)
        return pipeline.spike_record["Y"], batch[1]

    return Run(net, step, [EnvironmentPipeline.env_step, EnvironmentPipeline.step, action]), \
        (torch.zeros(1),), {}


# Functions.


def _functions(name: str) -> Built:
    import torch
    from bindsnet import encoding, evaluation

    from gt_calls import Call, Run

    data = 0.9 * _rand(3, 4, seed=2) + 0.05
    if name == "bernoulli":
        return Call(encoding.bernoulli, max_prob=0.5), (data,), {}
    if name == "bernoulli.time":
        return Call(encoding.bernoulli, time=STEPS, dt=1.0), (2.0 * data,), {}
    if name in ("poisson", "rank_order", "repeat", "single"):
        keywords: dict[str, Any] = {"time": STEPS, "dt": 1.0}
        if name == "poisson":
            data = 100.0 * data
        if name == "single":
            keywords["sparsity"] = 0.3
        return Call(getattr(encoding, name), **keywords), (data,), {}
    if name.endswith("Encoder"):
        cls = getattr(encoding, name)
        encoder = cls() if name == "NullEncoder" else cls(time=STEPS, dt=1.0)
        return Call(encoder), ((100.0 if name == "PoissonEncoder" else 1.0) * data,), {}
    if name.endswith("_loader"):
        loader = getattr(encoding, name)

        def load(owner: Any, batch: torch.Tensor) -> Any:
            """Every encoded item of the (lazy) loader, stacked."""
            return torch.stack(list(loader(batch, time=STEPS, dt=1.0)))

        return Run(None, load, [loader]), ((100.0 if name.startswith("poisson") else 1.0) * data,), {}
    spikes = _spikes(4, STEPS, N_OUT, p=0.3, seed=3).float()
    labels = torch.tensor([0, 1, 2, 1])
    if name == "assign_labels":
        return Call(evaluation.assign_labels, n_labels=3), (spikes, labels), {}
    if name == "assign_labels.rates":
        return Call(evaluation.assign_labels), (spikes, labels, 3, _rand(N_OUT, 3, seed=4), 0.5), {}
    assignments = torch.tensor([0, 1, 2, 0, 1, 2])
    if name == "all_activity":
        return Call(evaluation.all_activity, n_labels=3), (spikes, assignments), {}
    if name == "proportion_weighting":
        return Call(evaluation.proportion_weighting, n_labels=3), (spikes, assignments, _rand(N_OUT, 3)), {}
    if name == "ngram":
        scores = {(0, 1): _rand(3, seed=5), (1, 2): _rand(3, seed=6), (2, 2): _rand(3, seed=7)}
        return Call(evaluation.ngram, ngram_scores=scores, n_labels=3, n=2), (spikes,), {}
    if name == "update_ngram_scores":
        def update(owner: Any, spikes: torch.Tensor, labels: torch.Tensor) -> Any:
            return evaluation.update_ngram_scores(spikes, labels, 3, 2, {})

        return Run(None, update, [evaluation.update_ngram_scores]), (spikes, labels), {}
    if name.startswith("logreg_predict"):
        from sklearn.linear_model import LogisticRegression

        logreg = LogisticRegression()
        if name.endswith("fitted") and not name.endswith("unfitted"):
            evaluation.logreg_fit(spikes.sum(1).numpy(), labels.numpy(), logreg)
        return Call(evaluation.logreg_predict, logreg=logreg), (spikes.sum(1),), {}
    return _helpers(name)


def _helpers(name: str) -> Built:
    import torch
    from bindsnet import utils
    from bindsnet.conversion import conversion
    from bindsnet.learning.reward import MovingAvgRPE
    from torch import nn

    from gt_calls import Call, Run

    if name == "im2col_indices":
        return Call(utils.im2col_indices, kernel_height=3, kernel_width=3, padding=(1, 1), stride=(1, 1)), \
            (_rand(BATCH, 2, 5, 5),), {}
    if name == "col2im_indices":
        return Call(utils.col2im_indices, x_shape=(5, 5), kernel_height=3, kernel_width=3, padding=(1, 1)), \
            (_rand(BATCH, 18, 25),), {}
    if name == "get_square_weights":
        return Call(utils.get_square_weights, n_sqrt=2, side=(4, 4)), (_rand(N_IN, 3),), {}
    if name == "get_square_assignments":
        return Call(utils.get_square_assignments, n_sqrt=3), (torch.tensor([0, 2, 1, 1, 0, 2, 1]),), {}
    if name == "reshape_locally_connected_weights":
        from bindsnet.network import nodes, topology

        conn = topology.LocalConnection(nodes.Input(N_IN), nodes.LIFNodes(8), kernel_size=2, stride=2, n_filters=2,
                                        input_shape=(4, 4), wmin=0.0, wmax=1.0)
        return Call(utils.reshape_locally_connected_weights, n_filters=2, kernel_size=2, conv_size=2,
                    locations=conn.locations, input_sqrt=4), (conn.w.detach().clone(),), {}
    if name == "reshape_conv2d_weights":
        return Call(utils.reshape_conv2d_weights), (_rand(3, 2, 3, 3),), {}
    if name.startswith("MovingAvgRPE"):
        rpe = MovingAvgRPE()
        if name.endswith("compute"):
            return Run(rpe, lambda rpe, reward: rpe.compute(reward=reward), [MovingAvgRPE.compute]), \
                (torch.tensor(0.7),), {}

        def update(rpe: Any, accumulated: torch.Tensor) -> Any:
            rpe.update(accumulated_reward=accumulated, steps=5, ema_window=4.0)
            return rpe.reward_predict, rpe.reward_predict_episode

        return Run(rpe, update, [MovingAvgRPE.update]), (torch.tensor(3.0),), {}
    # A nested ``Sequential`` first: ``data_based_normalization`` feeds the raw data to each nested one.
    ann = nn.Sequential(nn.Sequential(nn.Linear(N_IN, 12), nn.ReLU()), nn.Linear(12, 6), nn.ReLU(), nn.Linear(6, 3))
    if name == "data_based_normalization":
        def normalize(owner: Any, data: torch.Tensor) -> Any:
            import copy

            scaled = conversion.data_based_normalization(copy.deepcopy(owner), data, percentile=99.0)
            return scaled(data)

        return Run(ann, normalize, [conversion.data_based_normalization]), (_rand(8, N_IN, seed=3),), {}
    if name == "FeatureExtractor":
        flat = nn.Sequential(nn.Linear(N_IN, 12), nn.ReLU(), nn.Linear(12, 3))
        return conversion.FeatureExtractor(flat), (_rand(2, 4, 4),), {}
    return conversion.Permute((0, 2, 3, 1)), (_rand(BATCH, 3, 4, 5),), {}


def build(name: str) -> Built:
    import torch

    provide_torch_six()
    torch.manual_seed(0)
    if name in NODES:
        return _nodes(name)
    if name in CONNECTIONS:
        return _connections(name)
    if name in RULES:
        return _rules(name)
    if name in NETWORKS:
        return _networks(name)
    if name in FUNCTIONS:
        return _functions(name)
    raise KeyError(name)


# The harness calls it before it imports bindsnet (``gt_models.prepare_import``).
before_import = provide_torch_six
