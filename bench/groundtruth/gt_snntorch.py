"""Ground-truth bench, snntorch: spiking neural networks (leaky integrate-and-fire neurons, surrogate gradients).

snntorch builds spiking networks from ``torch.nn`` layers and its neurons, run one time step per call and
unrolled over the time steps by the user's forward. The models of the tables are:

- ``NEURONS``: a two-layer spiking network (``Linear`` 8 -> 16, a neuron, ``Linear`` 16 -> 4, a neuron;
  a ``Conv2d`` first layer for the convolutional neurons) unrolled over 4 time steps, as the tutorials
  write it. With ``init_hidden=False`` the forward takes the states from ``reset_mem()`` and threads
  them through each call; with ``init_hidden=True`` the network is an ``nn.Sequential`` whose neurons
  keep their states, ``utils.reset`` clears them first, and the last neuron has ``output=True``.
  Covered: ``Leaky`` (the three reset mechanisms, ``reset_delay=False``, inhibition, learnable beta,
  threshold and graded spikes factor, a per-neuron beta, ``state_quant`` with the uniform and the
  non-uniform quantiser, ``surrogate_disable``, hidden states with and without ``output``), every
  surrogate gradient of ``snntorch.surrogate`` (ATan is the default; fast sigmoid, sigmoid, triangular,
  straight-through, Heaviside, spike-rate escape, the stochastic and the sparse fast sigmoid operators, a
  custom surrogate; not ``LSO``, whose function passes the stochastic operator one argument too few and
  fails eagerly), ``Synaptic``, ``Alpha``, ``Lapicque`` (from beta, or from R and C),
  ``RLeaky`` and ``RSynaptic`` (all-to-all linear and convolutional recurrence, one-to-one, frozen
  recurrent weights), ``SLSTM``, ``SConv2dLSTM`` (max and average pooling), ``DeltaLeaky``, each also
  with hidden states where it has them;
- ``SEQUENCE``: the neurons that take the whole sequence ``(time, batch, features)`` at once:
  ``LeakyParallel`` (learnable beta and threshold, ``weight_hh_enable``, dropout, surrogate disabled),
  ``StateLeaky`` (spikes or membrane only, a per-channel beta, a truncated kernel), ``LinearLeaky`` and
  ``AssociativeLeaky`` (with and without the query readout, and ``from_num_spiking_neurons``), and the
  layers ``BatchNormTT1d`` / ``BatchNormTT2d`` (batch norm through time, one per step, in a network)
  and ``GradedSpikes``;
- ``FUNCTIONAL``: ``snntorch.functional``'s losses on recorded spikes or membranes (``ce_rate_loss``,
  ``ce_count_loss`` and ``mse_count_loss``, each also with a population code, ``ce_rate_loss``'s with the
  class weights it requires; ``ce_max_membrane_loss``, ``mse_membrane_loss`` with its targets' levels and
  a sum, ``mse_temporal_loss`` with spike-time targets,
  tolerance and multiple spikes, ``ce_temporal_loss`` with both inverses, weighted and unreduced losses,
  ``l1_rate_sparsity``), the accuracies (``accuracy_rate`` with a population code, ``accuracy_temporal``),
  and ``snntorch.spikegen``'s encoders (``rate``, ``latency`` in its options, ``delta``, ``rate_conv``,
  ``targets_convert`` to rate and latency codes, ``to_one_hot`` / ``from_one_hot``);
- ``TRAINING``: what users compile around a network: a train step (rate-coded inputs, the unrolled
  network, ``ce_rate_loss``, ``backward``, an Adam step), a convolutional network over latency-coded
  images, truncated BPTT with ``Leaky.detach_hidden``, an ``OutputMonitor`` recording the spikes and
  ``backprop.BPTT`` over a list of two batches.

Sizes are tiny (batch 2, 4 time steps, widths 8 and 16, 8 x 8 single-channel images). Every model is
compiled in eval and in train mode. Random weights, nothing downloaded. ``names()`` needs no torch;
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
STEPS, BATCH, DIM, HIDDEN, OUT, SIDE = 4, 2, 8, 16, 4, 8

BETA = {"beta": 0.9}
SYN = {"alpha": 0.8, "beta": 0.9}
ALPHA = {"alpha": 0.9, "beta": 0.8}
# Neuron network name -> (class, keywords, net: "linear" or "conv", states: "hidden" (``init_hidden``)
# or "explicit"). Keywords may name a surrogate ("spike_grad": name in ``snntorch.surrogate``, with
# "custom" for ``custom_surrogate``) or a quantiser ("state_quant": "uniform" / "nonuniform").
NEURONS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "Leaky": ("Leaky", BETA, "linear", "explicit"),
    "Leaky.reset_zero": ("Leaky", {**BETA, "reset_mechanism": "zero"}, "linear", "explicit"),
    "Leaky.reset_none": ("Leaky", {**BETA, "reset_mechanism": "none"}, "linear", "explicit"),
    "Leaky.no_reset_delay": ("Leaky", {**BETA, "reset_delay": False}, "linear", "explicit"),
    "Leaky.no_reset_delay.reset_zero": ("Leaky", {**BETA, "reset_delay": False, "reset_mechanism": "zero"}, "linear",
                                        "explicit"),
    "Leaky.inhibition": ("Leaky", {**BETA, "inhibition": True}, "linear", "explicit"),
    "Leaky.learnable": ("Leaky", {**BETA, "learn_beta": True, "learn_threshold": True, "graded_spikes_factor": 0.5,
                                  "learn_graded_spikes_factor": True}, "linear", "explicit"),
    "Leaky.beta_per_neuron": ("Leaky", {"beta": "per_neuron", "learn_beta": True}, "linear", "explicit"),
    "Leaky.state_quant": ("Leaky", {**BETA, "state_quant": "uniform"}, "linear", "explicit"),
    "Leaky.state_quant.nonuniform": ("Leaky", {**BETA, "state_quant": "nonuniform"}, "linear", "explicit"),
    "Leaky.surrogate_disable": ("Leaky", {**BETA, "surrogate_disable": True}, "linear", "explicit"),
    "Leaky.init_hidden": ("Leaky", BETA, "linear", "hidden"),
    "Leaky.init_hidden.reset_zero.no_reset_delay": ("Leaky", {**BETA, "reset_mechanism": "zero",
                                                              "reset_delay": False}, "linear", "hidden"),
    "Leaky.init_hidden.conv": ("Leaky", BETA, "conv", "hidden"),
    "Leaky.fast_sigmoid": ("Leaky", {**BETA, "spike_grad": "fast_sigmoid"}, "linear", "explicit"),
    "Leaky.sigmoid": ("Leaky", {**BETA, "spike_grad": "sigmoid"}, "linear", "explicit"),
    "Leaky.triangular": ("Leaky", {**BETA, "spike_grad": "triangular"}, "linear", "explicit"),
    "Leaky.straight_through_estimator": ("Leaky", {**BETA, "spike_grad": "straight_through_estimator"}, "linear",
                                         "explicit"),
    "Leaky.heaviside": ("Leaky", {**BETA, "spike_grad": "heaviside"}, "linear", "explicit"),
    "Leaky.spike_rate_escape": ("Leaky", {**BETA, "spike_grad": "spike_rate_escape"}, "linear", "explicit"),
    "Leaky.SSO": ("Leaky", {**BETA, "spike_grad": "SSO"}, "linear", "explicit"),
    "Leaky.SFS": ("Leaky", {**BETA, "spike_grad": "SFS"}, "linear", "explicit"),
    "Leaky.custom_surrogate": ("Leaky", {**BETA, "spike_grad": "custom"}, "linear", "explicit"),
    "Synaptic": ("Synaptic", SYN, "linear", "explicit"),
    "Synaptic.reset_zero.no_reset_delay": ("Synaptic", {**SYN, "reset_mechanism": "zero", "reset_delay": False},
                                           "linear", "explicit"),
    "Synaptic.learnable.inhibition": ("Synaptic", {**SYN, "learn_alpha": True, "learn_beta": True,
                                                   "inhibition": True}, "linear", "explicit"),
    "Synaptic.init_hidden": ("Synaptic", SYN, "linear", "hidden"),
    "Alpha": ("Alpha", ALPHA, "linear", "explicit"),
    "Alpha.reset_subtract": ("Alpha", {**ALPHA, "reset_mechanism": "subtract", "learn_beta": True}, "linear",
                             "explicit"),
    "Alpha.init_hidden": ("Alpha", ALPHA, "linear", "hidden"),
    "Lapicque": ("Lapicque", BETA, "linear", "explicit"),
    "Lapicque.RC.reset_zero": ("Lapicque", {"R": 5.0, "C": 0.1, "time_step": 0.05, "reset_mechanism": "zero"},
                               "linear", "explicit"),
    "Lapicque.init_hidden": ("Lapicque", BETA, "linear", "hidden"),
    "RLeaky.linear": ("RLeaky", {**BETA, "linear_features": HIDDEN}, "linear", "explicit"),
    "RLeaky.one_to_one": ("RLeaky", {**BETA, "all_to_all": False, "V": 0.5}, "linear", "explicit"),
    "RLeaky.conv2d": ("RLeaky", {**BETA, "conv2d_channels": 4, "kernel_size": 3}, "conv", "explicit"),
    "RLeaky.frozen_recurrent.no_reset_delay": ("RLeaky", {**BETA, "linear_features": HIDDEN,
                                                          "learn_recurrent": False, "reset_delay": False},
                                               "linear", "explicit"),
    "RLeaky.init_hidden": ("RLeaky", {**BETA, "linear_features": HIDDEN}, "linear", "hidden"),
    "RSynaptic.linear": ("RSynaptic", {**SYN, "linear_features": HIDDEN}, "linear", "explicit"),
    "RSynaptic.one_to_one.reset_zero": ("RSynaptic", {**SYN, "all_to_all": False, "V": 0.5,
                                                      "reset_mechanism": "zero"}, "linear", "explicit"),
    "RSynaptic.conv2d": ("RSynaptic", {**SYN, "conv2d_channels": 4, "kernel_size": 3}, "conv", "explicit"),
    "RSynaptic.init_hidden": ("RSynaptic", {**SYN, "linear_features": HIDDEN}, "linear", "hidden"),
    "SLSTM": ("SLSTM", {}, "linear", "explicit"),
    "SLSTM.reset_subtract": ("SLSTM", {"reset_mechanism": "subtract"}, "linear", "explicit"),
    "SLSTM.init_hidden": ("SLSTM", {}, "linear", "hidden"),
    "SConv2dLSTM": ("SConv2dLSTM", {}, "conv", "explicit"),
    "SConv2dLSTM.max_pool": ("SConv2dLSTM", {"max_pool": 2}, "conv", "explicit"),
    "SConv2dLSTM.avg_pool.reset_zero": ("SConv2dLSTM", {"avg_pool": 2, "reset_mechanism": "zero"}, "conv",
                                        "explicit"),
    "SConv2dLSTM.init_hidden": ("SConv2dLSTM", {}, "conv", "hidden"),
    "DeltaLeaky": ("DeltaLeaky", {"delta_threshold": 0.1, **BETA}, "linear", "explicit"),
}
# Sequence layer name -> (class, keywords).
SEQUENCE: dict[str, tuple[str, dict[str, Any]]] = {
    "LeakyParallel": ("LeakyParallel", {"beta": 0.9}),
    "LeakyParallel.learnable.weight_hh": ("LeakyParallel", {"beta": 0.9, "learn_beta": True, "learn_threshold": True,
                                                            "weight_hh_enable": True}),
    "LeakyParallel.no_beta.dropout.surrogate_disable": ("LeakyParallel", {"dropout": 0.2, "surrogate_disable": True}),
    "StateLeaky": ("StateLeaky", {"beta": 0.9}),
    "StateLeaky.membrane_only": ("StateLeaky", {"beta": 0.9, "output": False}),
    "StateLeaky.channel_beta.truncated.learnable": ("StateLeaky", {"beta": "per_channel", "learn_beta": True,
                                                                   "kernel_truncation_steps": 2}),
    "LinearLeaky": ("LinearLeaky", {"beta": 0.9}),
    "LinearLeaky.membrane_only.learnable": ("LinearLeaky", {"beta": 0.9, "output": False, "learn_beta": True}),
    "AssociativeLeaky": ("AssociativeLeaky", {"d_value": 4, "d_key": 4, "num_spiking_neurons": 16}),
    "AssociativeLeaky.no_q_projection": ("AssociativeLeaky", {"d_value": 4, "d_key": 4, "num_spiking_neurons": 16,
                                                              "use_q_projection": False}),
    "AssociativeLeaky.from_num_spiking_neurons": ("AssociativeLeaky", {"num_spiking_neurons": 9}),
    "BatchNormTT1d": ("BatchNormTT1d", {}),
    "BatchNormTT2d": ("BatchNormTT2d", {}),
    "GradedSpikes": ("GradedSpikes", {"constant_factor": 2.0}),
    "GradedSpikes.random": ("GradedSpikes", {"constant_factor": 0}),
}
# Functional name -> (function or class in its module, constructor keywords for a class (None for a
# function), inputs kind, call keywords). Modules: "loss", "acc", "reg" (snntorch.functional) and
# "spikegen".
FUNCTIONAL: dict[str, tuple[str, str, dict[str, Any] | None, str, dict[str, Any]]] = {
    "ce_rate_loss": ("loss", "ce_rate_loss", {}, "spikes", {}),
    "ce_rate_loss.population_code": ("loss", "ce_rate_loss", {"population_code": True, "num_classes": 2,
                                                               "weight": "halves"}, "spikes", {}),
    "ce_rate_loss.weight.no_reduction": ("loss", "ce_rate_loss", {"weight": "classes", "reduction": "none"},
                                         "spikes", {}),
    "ce_count_loss": ("loss", "ce_count_loss", {}, "spikes", {}),
    "ce_count_loss.population_code": ("loss", "ce_count_loss", {"population_code": True, "num_classes": 2}, "spikes",
                                      {}),
    "ce_max_membrane_loss": ("loss", "ce_max_membrane_loss", {}, "membrane", {}),
    "mse_count_loss": ("loss", "mse_count_loss", {"correct_rate": 0.8, "incorrect_rate": 0.2}, "spikes", {}),
    "mse_count_loss.population_code": ("loss", "mse_count_loss", {"population_code": True, "num_classes": 2},
                                       "spikes", {}),
    "mse_membrane_loss": ("loss", "mse_membrane_loss", {}, "membrane", {}),
    "mse_membrane_loss.on_off_target.sum": ("loss", "mse_membrane_loss", {"on_target": 1.2, "off_target": -0.5,
                                                                          "reduction": "sum"}, "membrane", {}),
    "mse_temporal_loss": ("loss", "mse_temporal_loss", {}, "spikes", {}),
    "mse_temporal_loss.target_is_time.tolerance": ("loss", "mse_temporal_loss", {"target_is_time": True,
                                                                                 "tolerance": 1}, "spike_times", {}),
    "mse_temporal_loss.multi_spike": ("loss", "mse_temporal_loss", {"multi_spike": True, "on_target": [0, 2],
                                                                    "off_target": [3, 3]}, "spikes", {}),
    "ce_temporal_loss": ("loss", "ce_temporal_loss", {}, "spikes", {}),
    "ce_temporal_loss.reciprocal": ("loss", "ce_temporal_loss", {"inverse": "reciprocal"}, "spikes", {}),
    "l1_rate_sparsity": ("reg", "l1_rate_sparsity", {"Lambda": 1e-3}, "spikes_only", {}),
    "accuracy_rate": ("acc", "accuracy_rate", None, "spikes", {}),
    "accuracy_rate.population_code": ("acc", "accuracy_rate", None, "spikes", {"population_code": True,
                                                                               "num_classes": 2}),
    "accuracy_temporal": ("acc", "accuracy_temporal", None, "spikes", {}),
    "spikegen.rate": ("spikegen", "rate", None, "image", {"num_steps": STEPS}),
    "spikegen.rate.time_var_input": ("spikegen", "rate", None, "sequence", {"time_var_input": True, "gain": 0.5}),
    "spikegen.latency": ("spikegen", "latency", None, "image", {"num_steps": STEPS}),
    "spikegen.latency.linear.normalize.clip": ("spikegen", "latency", None, "image",
                                               {"num_steps": STEPS, "linear": True, "normalize": True, "clip": True,
                                                "tau": 5}),
    "spikegen.latency.interpolate": ("spikegen", "latency", None, "image",
                                     {"num_steps": STEPS, "normalize": True, "interpolate": True}),
    "spikegen.latency.bypass": ("spikegen", "latency", None, "image",
                                {"num_steps": STEPS, "bypass": True, "normalize": True, "linear": True}),
    "spikegen.delta": ("spikegen", "delta", None, "sequence", {"threshold": 0.1}),
    "spikegen.delta.padding.off_spike": ("spikegen", "delta", None, "sequence",
                                         {"threshold": 0.1, "padding": True, "off_spike": True}),
    "spikegen.rate_conv": ("spikegen", "rate_conv", None, "image", {}),
    "spikegen.targets_convert.rate": ("spikegen", "targets_convert", None, "labels",
                                      {"num_classes": OUT, "code": "rate", "num_steps": STEPS}),
    "spikegen.targets_convert.rate.time_to_first_spike": ("spikegen", "targets_convert", None, "labels",
                                                          {"num_classes": OUT, "code": "rate", "num_steps": STEPS,
                                                           "correct_rate": 0.5, "firing_pattern": "uniform",
                                                           "first_spike_time": 1}),
    "spikegen.targets_convert.latency": ("spikegen", "targets_convert", None, "labels",
                                         {"num_classes": OUT, "code": "latency", "num_steps": STEPS, "normalize": True,
                                          "linear": True}),
    "spikegen.to_one_hot": ("spikegen", "to_one_hot", None, "labels", {"num_classes": OUT}),
    "spikegen.from_one_hot": ("spikegen", "from_one_hot", None, "one_hot", {}),
}
TRAINING = ("train_step", "train_step.init_hidden.mse_count_loss", "conv_net.latency", "tbptt.detach_hidden",
            "OutputMonitor", "backprop.BPTT")


def names() -> list[str]:
    return list(NEURONS) + list(SEQUENCE) + list(FUNCTIONAL) + list(TRAINING)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _surrogate(name: str) -> Any:
    from snntorch import surrogate

    if name == "custom":
        def fast_sigmoid_grad(input_: Any, grad_input: Any, spikes: Any) -> Any:
            return grad_input / (25 * input_.abs() + 1.0) ** 2

        return surrogate.custom_surrogate(fast_sigmoid_grad)
    return getattr(surrogate, name)()


def _neuron(cls_name: str, keywords: dict[str, Any], features: int, hidden: bool, output: bool = False) -> Any:
    """One snntorch neuron; ``features`` is the width of its input (for per-neuron parameters and the
    recurrent and LSTM layers' sizes)."""
    import snntorch as snn
    import torch
    from snntorch.functional import quant

    keywords = dict(keywords)
    if "spike_grad" in keywords:
        keywords["spike_grad"] = _surrogate(keywords["spike_grad"])
    if keywords.get("state_quant") == "uniform":
        keywords["state_quant"] = quant.state_quant(num_bits=4, uniform=True)
    elif keywords.get("state_quant") == "nonuniform":
        keywords["state_quant"] = quant.state_quant(num_bits=4, uniform=False, thr_centered=False)
    if keywords.get("beta") == "per_neuron":
        keywords["beta"] = torch.rand(features, generator=_gen(3)) * 0.5 + 0.4
    if "linear_features" in keywords:  # ``RLeaky`` / ``RSynaptic``: the recurrent layer's width
        keywords["linear_features"] = features
    if hidden:
        keywords["init_hidden"] = True
        keywords["output"] = output
    if cls_name == "SLSTM":
        return snn.SLSTM(features, features, **keywords)
    return getattr(snn, cls_name)(**keywords)


def _neurons(name: str) -> Built:
    import snntorch as snn
    import torch
    from snntorch import utils
    from torch import nn

    from gt_calls import Run

    cls_name, keywords, net, states = NEURONS[name]
    hidden = states == "hidden"
    cls = getattr(snn, cls_name)
    if net == "conv":
        x = (torch.rand(STEPS, BATCH, 1, SIDE, SIDE, generator=_gen(1)) > 0.5).float()
        if cls_name == "SConv2dLSTM":
            first: nn.Module = nn.Identity()
            side = SIDE // max(keywords.get("max_pool", 1), keywords.get("avg_pool", 1))
            lif1 = snn.SConv2dLSTM(1, 4, 3, **keywords, **({"init_hidden": True} if hidden else {}))
        else:
            first = nn.Conv2d(1, 4, 3, padding=1)
            side = SIDE
            lif1 = _neuron(cls_name, keywords, 4, hidden)
        second: nn.Module = nn.Sequential(nn.Flatten(), nn.Linear(4 * side * side, OUT))
        lif2 = snn.Leaky(beta=0.9, init_hidden=hidden, output=hidden)
    else:
        x = torch.rand(STEPS, BATCH, DIM, generator=_gen(1))
        first, second = nn.Linear(DIM, HIDDEN), nn.Linear(HIDDEN, OUT)
        lif1 = _neuron(cls_name, keywords, HIDDEN, hidden)
        lif2 = _neuron(cls_name, keywords, OUT, hidden, output=True)
    layers = nn.Sequential(first, lif1, second, lif2)

    if hidden:
        def run_hidden(owner: Any, x_: Any) -> Any:
            """The tutorials' loop over a ``Sequential`` with hidden states: reset, then one call a step."""
            utils.reset(owner)
            spikes, membranes = [], []
            for step in range(x_.shape[0]):
                spk, *rest = owner(x_[step])
                spikes.append(spk)
                membranes.append(rest[-1])
            return torch.stack(spikes), torch.stack(membranes)

        return Run(layers, run_hidden, [cls, utils.reset]), (x,), {}

    recurrent = (snn.RLeaky, snn.RSynaptic)  # their states include the spikes

    def initial(neuron: Any) -> tuple[Any, ...]:
        state = neuron.reset_mem()
        if isinstance(neuron, snn.DeltaLeaky):
            return (state,)
        return state if isinstance(state, tuple) else (state,)

    def run_explicit(owner: Any, x_: Any) -> Any:
        """States from ``reset_mem()`` threaded through each time step's call, spikes and membranes recorded."""
        first_, lif1_, second_, lif2_ = owner
        states1, states2 = initial(lif1_), initial(lif2_)
        spikes, membranes = [], []
        for step in range(x_.shape[0]):
            out1 = lif1_(first_(x_[step]), *states1)
            out2 = lif2_(second_(out1[0]), *states2)
            states1 = out1 if isinstance(lif1_, recurrent) else out1[1:]
            states2 = out2 if isinstance(lif2_, recurrent) else out2[1:]
            spikes.append(out2[0])
            membranes.append(out2[-1] if not isinstance(out2[-1], tuple) else out2[-1][0])
        return torch.stack(spikes), torch.stack(membranes)

    return Run(layers, run_explicit, [cls]), (x,), {}


def _sequence(name: str) -> Built:
    import snntorch as snn
    import torch
    from torch import nn

    from gt_calls import Run

    cls_name, keywords = SEQUENCE[name]
    keywords = dict(keywords)
    x = torch.rand(STEPS, BATCH, DIM, generator=_gen(1))
    if cls_name == "LeakyParallel":
        return snn.LeakyParallel(DIM, HIDDEN, **keywords), (x,), {}
    if cls_name == "StateLeaky":
        if keywords.get("beta") == "per_channel":
            keywords["beta"] = torch.rand(DIM, generator=_gen(3)) * 0.5 + 0.4
        return snn.StateLeaky(channels=DIM, **keywords), (x,), {}
    if cls_name == "LinearLeaky":
        return snn.LinearLeaky(in_features=DIM, out_features=HIDDEN, **keywords), (x,), {}
    if cls_name == "AssociativeLeaky":
        if "d_value" not in keywords:
            return snn.AssociativeLeaky.from_num_spiking_neurons(DIM, **keywords), (x,), {}
        return snn.AssociativeLeaky(DIM, **keywords), (x,), {}
    if cls_name == "GradedSpikes":
        spikes = (torch.rand(HIDDEN, BATCH, generator=_gen(2)) > 0.5).float()
        return snn.GradedSpikes(HIDDEN, **keywords), (spikes,), {}
    conv = cls_name == "BatchNormTT2d"
    if conv:
        x = torch.rand(STEPS, BATCH, 1, SIDE, SIDE, generator=_gen(1))
        layer: nn.Module = nn.Conv2d(1, 4, 3, padding=1)
        norms = snn.BatchNormTT2d(4, STEPS)
        head: nn.Module = nn.Sequential(nn.Flatten(), nn.Linear(4 * SIDE * SIDE, OUT))
    else:
        layer, norms, head = nn.Linear(DIM, HIDDEN), snn.BatchNormTT1d(HIDDEN, STEPS), nn.Linear(HIDDEN, OUT)
    owner = nn.ModuleDict({"layer": layer, "norms": norms, "lif": snn.Leaky(beta=0.9), "head": head})

    def run(owner_: Any, x_: Any) -> Any:
        """Batch norm through time: the step's own norm between the layer and the neuron."""
        mem = owner_["lif"].reset_mem()
        outputs = []
        for step in range(x_.shape[0]):
            spk, mem = owner_["lif"](owner_["norms"][step](owner_["layer"](x_[step])), mem)
            outputs.append(owner_["head"](spk))
        return torch.stack(outputs)

    return Run(owner, run, [getattr(snn, cls_name)]), (x,), {}


def _functional(name: str) -> Built:
    import importlib

    import torch

    from gt_calls import Call, Run

    module_name, attr, ctor, kind, call_keywords = FUNCTIONAL[name]
    module = importlib.import_module("snntorch.spikegen" if module_name == "spikegen" else
                                     f"snntorch.functional.{module_name}")
    target = getattr(module, attr)
    classes = OUT * 2 if (ctor or call_keywords).get("population_code") else OUT
    labels = torch.tensor([1, 0]) if classes > OUT else torch.tensor([1, 3])  # population codes: 2 classes
    spikes = (torch.rand(STEPS, BATCH, classes, generator=_gen(2)) > 0.6).float()
    inputs: tuple[Any, ...] = {
        "spikes": (spikes, labels), "spikes_only": (spikes,),
        "membrane": (torch.randn(STEPS, BATCH, OUT, generator=_gen(3)), labels),
        "spike_times": (spikes, torch.tensor([[0.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 1.0]])),
        "image": (torch.rand(BATCH, 1, SIDE, SIDE, generator=_gen(5)),),
        "sequence": (torch.rand(STEPS, BATCH, DIM, generator=_gen(6)),),
        "labels": (labels,),
        "one_hot": (torch.nn.functional.one_hot(labels, OUT),),
    }[kind]
    if ctor is None:
        return Call(target, **call_keywords), inputs, {}
    ctor = dict(ctor)
    if ctor.get("weight") == "classes":
        ctor["weight"] = torch.tensor([1.0, 2.0, 0.5, 1.0])
    elif ctor.get("weight") == "halves":  # one weight per class of the population code
        ctor["weight"] = torch.tensor([1.0, 2.0])
    loss = target(**ctor)
    return Run(torch.nn.Identity(), lambda owner, *a: loss(*a), [target]), inputs, {}


def _training(name: str) -> Built:
    import snntorch as snn
    import snntorch.functional as SF
    import torch
    from snntorch import backprop, spikegen, utils
    from torch import nn

    from gt_calls import Run

    gen = _gen(1)
    images = torch.rand(BATCH, 1, SIDE, SIDE, generator=gen)
    labels = torch.tensor([0, 2])
    if name == "train_step":
        net = nn.ModuleDict({"fc1": nn.Linear(SIDE * SIDE, HIDDEN), "lif1": snn.Leaky(beta=0.9),
                             "fc2": nn.Linear(HIDDEN, OUT), "lif2": snn.Leaky(beta=0.9)})
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        loss_fn = SF.ce_rate_loss()

        def train_step(owner: Any, images_: Any, labels_: Any) -> Any:
            """Rate-coded images through the unrolled network, the rate loss, backward and an Adam step."""
            with torch.enable_grad():
                data = spikegen.rate(images_.flatten(1), num_steps=STEPS)
                mem1, mem2 = owner["lif1"].reset_mem(), owner["lif2"].reset_mem()
                spikes = []
                for step in range(STEPS):
                    spk1, mem1 = owner["lif1"](owner["fc1"](data[step]), mem1)
                    spk2, mem2 = owner["lif2"](owner["fc2"](spk1), mem2)
                    spikes.append(spk2)
                spk_rec = torch.stack(spikes)
                loss = loss_fn(spk_rec, labels_)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            return loss.detach(), SF.accuracy_rate(spk_rec.detach(), labels_)

        return Run(net, train_step, [snn.Leaky, SF.ce_rate_loss, spikegen.rate]), (images, labels), {}
    if name == "train_step.init_hidden.mse_count_loss":
        net = nn.Sequential(nn.Flatten(), nn.Linear(SIDE * SIDE, HIDDEN), snn.Leaky(beta=0.9, init_hidden=True),
                            nn.Linear(HIDDEN, OUT), snn.Leaky(beta=0.9, init_hidden=True, output=True))
        optimizer = torch.optim.SGD(net.parameters(), lr=1e-2)
        loss_fn, reg_fn = SF.mse_count_loss(correct_rate=0.8, incorrect_rate=0.2), SF.l1_rate_sparsity()

        def train_step_hidden(owner: Any, images_: Any, labels_: Any) -> Any:
            with torch.enable_grad():
                utils.reset(owner)
                spikes = torch.stack([owner(images_)[0] for _ in range(STEPS)])
                loss = loss_fn(spikes, labels_) + reg_fn(spikes)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(net, train_step_hidden, [snn.Leaky, utils.reset, SF.mse_count_loss]), (images, labels), {}
    if name == "conv_net.latency":
        net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.MaxPool2d(2),
                            snn.Leaky(beta=0.9, init_hidden=True, spike_grad=_surrogate("fast_sigmoid")),
                            nn.Flatten(), nn.Linear(4 * (SIDE // 2) ** 2, OUT),
                            snn.Leaky(beta=0.9, init_hidden=True, output=True))

        def conv_latency(owner: Any, images_: Any) -> Any:
            data = spikegen.latency(images_, num_steps=STEPS, normalize=True, linear=True)
            utils.reset(owner)
            spikes, membranes = [], []
            for step in range(STEPS):
                spk, mem = owner(data[step])
                spikes.append(spk)
                membranes.append(mem)
            return torch.stack(spikes), torch.stack(membranes)

        return Run(net, conv_latency, [snn.Leaky, spikegen.latency, utils.reset]), (images,), {}
    if name == "tbptt.detach_hidden":
        net = nn.Sequential(nn.Flatten(), nn.Linear(SIDE * SIDE, HIDDEN), snn.Leaky(beta=0.9, init_hidden=True),
                            nn.Linear(HIDDEN, OUT), snn.Leaky(beta=0.9, init_hidden=True, output=True))

        def tbptt(owner: Any, images_: Any) -> Any:
            """Truncated BPTT: the hidden states detached every two steps."""
            utils.reset(owner)
            spikes = []
            for step in range(STEPS):
                if step % 2 == 0:
                    snn.Leaky.detach_hidden()
                spikes.append(owner(images_)[0])
            snn.Leaky.reset_hidden()
            return torch.stack(spikes)

        return Run(net, tbptt, [snn.Leaky.detach_hidden, snn.Leaky.reset_hidden]), (images,), {}
    if name == "OutputMonitor":
        from snntorch.functional.probe import OutputMonitor

        net = nn.Sequential(nn.Flatten(), nn.Linear(SIDE * SIDE, HIDDEN), snn.Leaky(beta=0.9, init_hidden=True),
                            nn.Linear(HIDDEN, OUT), snn.Leaky(beta=0.9, init_hidden=True, output=True))
        monitor = OutputMonitor(net, instance=snn.Leaky)

        def monitored(owner: Any, images_: Any) -> Any:
            utils.reset(owner)
            monitor.clear_recorded_data()
            for _ in range(STEPS):
                owner(images_)
            return len(monitor.records), monitor[0]

        return Run(net, monitored, [OutputMonitor]), (images,), {}
    net = nn.Sequential(nn.Flatten(), nn.Linear(SIDE * SIDE, HIDDEN), snn.Leaky(beta=0.9, init_hidden=True),
                        nn.Linear(HIDDEN, OUT), snn.Leaky(beta=0.9, init_hidden=True, output=True))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    loader = [(images, labels), (images.flip(0), labels.flip(0))]

    def bptt(owner: Any, images_: Any) -> Any:
        with torch.enable_grad():
            return backprop.BPTT(owner, loader, optimizer=optimizer, criterion=SF.mse_count_loss(), num_steps=STEPS,
                                 time_var=False)

    return Run(net, bptt, [backprop.BPTT]), (images,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in NEURONS:
        return _neurons(name)
    if name in SEQUENCE:
        return _sequence(name)
    if name in FUNCTIONAL:
        return _functional(name)
    return _training(name)
