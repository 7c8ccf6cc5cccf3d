"""Ground-truth bench, norse: spiking neural network primitives and layers (``norse.torch``).

norse writes each neuron model as a functional step (``lif_feed_forward_step``, ``lsnn_step``, ...) on a
state ``NamedTuple`` and a parameters ``NamedTuple``, and wraps it in modules of three kinds: cells that
take one time step (``LIFCell``), layers that loop over the first dimension, time (``LIF``, with
``record_states``), and their recurrent versions with input and recurrent weights (``LIFRecurrentCell``,
``LIFRecurrent``, with or without autapses). The models of the tables are:

- ``CELLS``: a cell unrolled over 4 time steps by the bench's loop, the state ``None`` at the first step
  (the cell's fallback) then threaded, as users write it. Covered: ``LIFCell`` with each threshold
  method (the SuperSpike default, Heaviside, tanh, triangle, circ, erfc), learnable
  per-neuron parameters and another ``dt``, ``LIFBoxCell`` (reset to a value and by subtraction),
  ``LIFRefracCell``, ``LIFAdExCell``, ``LIFAdExRefracCell``, ``LIFExCell``, ``LSNNCell`` (with the
  adjoint), ``IAFCell``, ``LICell``, ``LIBoxCell``, ``IzhikevichCell`` in two spiking behaviours; the
  recurrent cells ``LIFRecurrentCell`` (autapses), ``LIFRefracRecurrentCell``,
  ``LIFAdExRecurrentCell``, ``LIFAdExRefracRecurrentCell``, ``LIFExRecurrentCell``,
  ``LSNNRecurrentCell`` (adjoint), ``IzhikevichRecurrentCell``, the multi-compartment
  ``LIFMCRecurrentCell`` and ``LIFMCRefracRecurrentCell``, ``CobaLIFCell`` and ``LILinearCell``;
- ``LAYERS``: the modules with time, called on a whole ``(time, batch, features)`` sequence: ``LIF``
  (recorded states, another threshold method, learnable parameters, continued from a
  given state), ``IAF``, ``LI``, ``LIFAdEx``, ``LIFEx``, ``LSNN``, ``Izhikevich``; ``LIFRecurrent``
  (recorded states, autapses, continued), ``LIFRefracRecurrent``, ``LIFAdExRecurrent``,
  ``LIFAdExRefracRecurrent``, ``LIFExRecurrent``, ``LSNNRecurrent`` and ``IzhikevichRecurrent``;
- ``BLOCKS``: the encoders (``ConstantCurrentLIFEncoder``, ``PoissonEncoder``, ``SignedPoissonEncoder``,
  ``PopulationEncoder``, ``SpikeLatencyEncoder``, ``SpikeLatencyLIFEncoder``), the containers
  (``SequentialState`` of cells unrolled, returning hidden outputs, with forward state hooks, of layers
  over a sequence; ``RecurrentSequential`` with one and with several output modules; ``Lift``;
  ``LConv2d``; ``RegularizationCell``), ``SpikesToTimesDecoder``, the receptive fields
  (``TemporalReceptiveField``, ``SpatialReceptiveField2d``, ``SampledSpatialReceptiveField2d``,
  ``ParameterizedSpatialReceptiveField2d``), the model zoo's ``ConvNet`` and ``ConvNet4``, and a train
  step (Poisson-encoded inputs, a ``SequentialState`` of linear layers, ``LIFCell`` and ``LILinearCell``
  unrolled, the maximum voltage's cross-entropy, an Adam step);
- ``FUNCTIONS``: functions users call directly: ``heaviside``, the logical operators on spikes,
  ``lift`` of a step function, ``regularize_step``, ``stdp_sensor_step``, ``correlation_sensor_step``,
  ``stp_step`` (Tsodyks-Markram), the encoders (``poisson_encode``, ``signed_poisson_encode``,
  ``population_encode``, ``spike_latency_encode``, ``spike_latency_lif_encode``,
  ``constant_current_lif_encode``, ``poisson_encode_step``), ``gaussian_rbf``, the surrogate threshold
  functions (``super_fn``, ``heavi_tanh_fn``, ``heavi_erfc_fn``, ``heavi_circ_fn``, ``circ_dist_fn``,
  ``triangle_fn``, ``logistic_fn``), the reset functions, the receptive field kernels
  (``spatial_receptive_field``, ``gaussian_kernel``) and ``sum_decode``.

Left out: the zoo's VGG models (their classifier is fixed at 4096 wide on 7 x 7 x 512 features, too large
for the bench) and ``MobileNetV2`` (its residual blocks add a tuple, what a ``LIF`` returns, to a tensor
and fail eagerly); ``LIFParameters(method="adjoint")`` (its cells then call the threshold
function with the method ``"adjoint"``, which it rejects eagerly; ``LSNN``'s ``adjoint=True`` is covered);
``LIFCorrelation`` (its correlation sensors broadcast spikes against the synapse array in a way its
cell's shapes do not meet). Sizes are tiny (batch 2, 4 time steps, widths 8 and 16, 8 x 8 images, 28 x 28
for the zoo's ``ConvNet``). Every model is compiled in eval and in train mode. Random weights, nothing
downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
STEPS, BATCH, DIM, HIDDEN, SIDE = 4, 2, 8, 16, 8

# Cell name -> (class in ``norse.torch``, parameters spec (``_parameters``; "" for the default), recurrent,
# other keywords).
CELLS: dict[str, tuple[str, str, bool, dict[str, Any]]] = {
    "LIFCell": ("LIFCell", "", False, {}),
    "LIFCell.heaviside": ("LIFCell", "lif.heaviside", False, {}),
    "LIFCell.tanh": ("LIFCell", "lif.tanh", False, {}),
    "LIFCell.triangle": ("LIFCell", "lif.triangle", False, {}),
    "LIFCell.circ": ("LIFCell", "lif.circ", False, {}),
    "LIFCell.heavi_erfc": ("LIFCell", "lif.heavi_erfc", False, {}),
    "LIFCell.learnable": ("LIFCell", "lif.learnable", False, {}),
    "LIFCell.dt": ("LIFCell", "", False, {"dt": 0.01}),
    "LIFBoxCell": ("LIFBoxCell", "", False, {}),
    "LIFBoxCell.reset_subtract": ("LIFBoxCell", "box.subtract", False, {}),
    "LIFRefracCell": ("LIFRefracCell", "", False, {}),
    "LIFAdExCell": ("LIFAdExCell", "", False, {}),
    "LIFAdExRefracCell": ("LIFAdExRefracCell", "", False, {}),
    "LIFExCell": ("LIFExCell", "", False, {}),
    "LSNNCell": ("LSNNCell", "", False, {}),
    "LSNNCell.adjoint": ("LSNNCell", "", False, {"adjoint": True}),
    "IAFCell": ("IAFCell", "", False, {}),
    "LICell": ("LICell", "", False, {}),
    "LIBoxCell": ("LIBoxCell", "", False, {}),
    "IzhikevichCell.tonic_spiking": ("IzhikevichCell", "izhikevich.tonic_spiking", False, {}),
    "IzhikevichCell.phasic_bursting": ("IzhikevichCell", "izhikevich.phasic_bursting", False, {}),
    "LIFRecurrentCell": ("LIFRecurrentCell", "", True, {}),
    "LIFRecurrentCell.autapses": ("LIFRecurrentCell", "", True, {"autapses": True}),
    "LIFRefracRecurrentCell": ("LIFRefracRecurrentCell", "", True, {}),
    "LIFAdExRecurrentCell": ("LIFAdExRecurrentCell", "", True, {}),
    "LIFAdExRefracRecurrentCell": ("LIFAdExRefracRecurrentCell", "", True, {}),
    "LIFExRecurrentCell": ("LIFExRecurrentCell", "", True, {}),
    "LSNNRecurrentCell": ("LSNNRecurrentCell", "", True, {}),
    "LSNNRecurrentCell.adjoint": ("LSNNRecurrentCell", "", True, {"adjoint": True}),
    "IzhikevichRecurrentCell": ("IzhikevichRecurrentCell", "izhikevich.tonic_spiking", True, {}),
    "LIFMCRecurrentCell": ("LIFMCRecurrentCell", "", True, {}),
    "LIFMCRefracRecurrentCell": ("LIFMCRefracRecurrentCell", "", True, {}),
    "CobaLIFCell": ("CobaLIFCell", "", True, {}),
    "LILinearCell": ("LILinearCell", "", True, {}),
}
# Layer name -> (class, parameters spec, recurrent, other keywords). "continue" in the keywords: the
# layer is called twice, the second time from the first call's final state.
LAYERS: dict[str, tuple[str, str, bool, dict[str, Any]]] = {
    "LIF": ("LIF", "", False, {}),
    "LIF.record_states": ("LIF", "", False, {"record_states": True}),
    "LIF.tanh": ("LIF", "lif.tanh", False, {}),
    "LIF.learnable": ("LIF", "lif.learnable", False, {}),
    "LIF.continue": ("LIF", "", False, {"continue": True}),
    "IAF": ("IAF", "", False, {}),
    "LI": ("LI", "", False, {}),
    "LI.record_states": ("LI", "", False, {"record_states": True}),
    "LIFAdEx": ("LIFAdEx", "", False, {}),
    "LIFEx": ("LIFEx", "", False, {}),
    "LSNN": ("LSNN", "", False, {}),
    "LSNN.adjoint": ("LSNN", "", False, {"adjoint": True}),
    "Izhikevich": ("Izhikevich", "izhikevich.tonic_spiking", False, {}),
    "LIFRecurrent": ("LIFRecurrent", "", True, {}),
    "LIFRecurrent.record_states": ("LIFRecurrent", "", True, {"record_states": True}),
    "LIFRecurrent.autapses": ("LIFRecurrent", "", True, {"autapses": True}),
    "LIFRecurrent.continue": ("LIFRecurrent", "", True, {"continue": True}),
    "LIFRefracRecurrent": ("LIFRefracRecurrent", "", True, {}),
    "LIFAdExRecurrent": ("LIFAdExRecurrent", "", True, {}),
    "LIFAdExRefracRecurrent": ("LIFAdExRefracRecurrent", "", True, {}),
    "LIFExRecurrent": ("LIFExRecurrent", "", True, {}),
    "LSNNRecurrent": ("LSNNRecurrent", "", True, {}),
    "IzhikevichRecurrent": ("IzhikevichRecurrent", "izhikevich.tonic_spiking", True, {}),
}
BLOCKS = (
    "ConstantCurrentLIFEncoder", "PoissonEncoder", "SignedPoissonEncoder", "PopulationEncoder",
    "SpikeLatencyEncoder", "SpikeLatencyLIFEncoder",
    "SequentialState.cells", "SequentialState.return_hidden", "SequentialState.forward_state_hooks",
    "SequentialState.layers", "RecurrentSequential", "RecurrentSequential.output_modules", "Lift", "LConv2d",
    "RegularizationCell", "SpikesToTimesDecoder", "TemporalReceptiveField", "SpatialReceptiveField2d",
    "SampledSpatialReceptiveField2d", "ParameterizedSpatialReceptiveField2d", "ConvNet", "ConvNet4",
    "train_step",
)
# Function name -> (attribute of ``norse.torch``, inputs kind, fixed keywords).
FUNCTIONS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "heaviside": ("heaviside", "current", {}),
    "logical_and": ("logical_and", "two_spikes", {}),
    "logical_or": ("logical_or", "two_spikes", {}),
    "logical_xor": ("logical_xor", "two_spikes", {}),
    "lift.lif_feed_forward_step": ("lift", "sequence", {}),
    "regularize_step": ("regularize_step", "spikes_state", {}),
    "regularize_step.voltage_accumulator": ("regularize_step", "spikes_state", {"accumulator": "voltage"}),
    "stdp_sensor_step": ("stdp_sensor_step", "pre_post", {}),
    "correlation_sensor_step": ("correlation_sensor_step", "pre_post", {}),
    "stp_step": ("stp_step", "spikes_stp", {}),
    "poisson_encode": ("poisson_encode", "values", {"seq_length": STEPS, "f_max": 500}),
    "signed_poisson_encode": ("signed_poisson_encode", "signed_values", {"seq_length": STEPS, "f_max": 500}),
    "poisson_encode_step": ("poisson_encode_step", "values", {"f_max": 500}),
    "population_encode": ("population_encode", "values_1d", {"out_features": 5}),
    "population_encode.scale": ("population_encode", "values_1d", {"out_features": 5, "scale": "tensor"}),
    "spike_latency_encode": ("spike_latency_encode", "spike_sequence", {}),
    "spike_latency_lif_encode": ("spike_latency_lif_encode", "current", {"seq_length": STEPS}),
    "constant_current_lif_encode": ("constant_current_lif_encode", "current", {"seq_length": STEPS}),
    "gaussian_rbf": ("gaussian_rbf", "current", {"sigma": 0.5}),
    "super_fn": ("super_fn", "current", {"alpha": 100.0}),
    "heavi_tanh_fn": ("heavi_tanh_fn", "current", {"k": 2.0}),
    "heavi_erfc_fn": ("heavi_erfc_fn", "current", {"k": 2.0}),
    "heavi_circ_fn": ("heavi_circ_fn", "current", {"k": 2.0}),
    "circ_dist_fn": ("circ_dist_fn", "current", {"k": 2.0}),
    "triangle_fn": ("triangle_fn", "current", {"alpha": 0.3}),
    "logistic_fn": ("logistic_fn", "current", {"k": 2.0}),
    "reset_value": ("reset_value", "reset", {}),
    "reset_subtract": ("reset_subtract", "reset", {}),
    "spatial_receptive_field": ("spatial_receptive_field", "field", {"size": 9}),
    "spatial_receptive_field.derivative": ("spatial_receptive_field", "field", {"size": 9, "dx": 1, "dy": 1}),
    "gaussian_kernel": ("gaussian_kernel", "covariance", {}),
    "sum_decode": ("sum_decode", "sequence", {}),
}


def names() -> list[str]:
    return list(CELLS) + list(LAYERS) + list(BLOCKS) + list(FUNCTIONS)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _parameters(spec: str, width: int) -> dict[str, Any]:
    """The ``p`` keyword (or ``spiking_method`` for Izhikevich neurons) that ``spec`` names."""
    import norse.torch as norse
    import torch
    from norse.torch.functional import izhikevich

    if not spec:
        return {}
    family, _, option = spec.partition(".")
    if family == "izhikevich":
        return {"spiking_method": getattr(izhikevich, option)}
    if family == "box":
        return {"p": norse.LIFBoxParameters(reset_method=norse.reset_subtract)}
    if option == "learnable":  # per-neuron time constants and thresholds, trained
        return {"p": norse.LIFParameters(tau_mem_inv=torch.nn.Parameter(torch.full((width,), 100.0)),
                                         v_th=torch.nn.Parameter(torch.full((width,), 0.5)))}
    return {"p": norse.LIFParameters(method=option)}


def _cells(name: str) -> Built:
    import norse.torch as norse
    import torch

    from gt_calls import Run

    cls_name, spec, recurrent, keywords = CELLS[name]
    cls = getattr(norse, cls_name)
    params = _parameters(spec, HIDDEN)
    if recurrent:
        cell = cls(DIM, HIDDEN, **params, **keywords)
        x = torch.rand(STEPS, BATCH, DIM, generator=_gen(1)) * 4
    else:
        cell = cls(**params, **keywords)
        x = torch.rand(STEPS, BATCH, HIDDEN, generator=_gen(1)) * 4
        if cls_name.startswith("Izhikevich"):
            x = x * 5

    def run(owner: Any, x_: Any) -> Any:
        """The cell over each time step, its state threaded from the fallback at the first step."""
        state, outputs = None, []
        for step in range(x_.shape[0]):
            out, state = owner(x_[step], state)
            outputs.append(out)
        return torch.stack(outputs), state

    return Run(cell, run, [cls]), (x,), {}


def _layers(name: str) -> Built:
    import norse.torch as norse
    import torch

    from gt_calls import Run

    cls_name, spec, recurrent, keywords = LAYERS[name]
    keywords = dict(keywords)
    continued = keywords.pop("continue", False)
    cls = getattr(norse, cls_name)
    params = _parameters(spec, HIDDEN)
    width = DIM if recurrent else HIDDEN
    x = torch.rand(STEPS, BATCH, width, generator=_gen(1)) * 4
    if cls_name.startswith("Izhikevich"):
        x = x * 5
    layer = cls(DIM, HIDDEN, **params, **keywords) if recurrent else cls(**params, **keywords)
    if not continued:
        return layer, (x,), {}

    def run(owner: Any, x_: Any) -> Any:
        """Two windows of a longer sequence: the second starts from the first's final state."""
        first, state = owner(x_)
        second, state = owner(x_, state)
        return torch.cat([first, second]), state

    return Run(layer, run, [cls]), (x,), {}


def _blocks(name: str) -> Built:
    import norse.torch as norse
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import Run

    x = torch.rand(STEPS, BATCH, DIM, generator=_gen(1))
    if name in ("ConstantCurrentLIFEncoder", "SpikeLatencyLIFEncoder"):
        return getattr(norse, name)(STEPS), (torch.rand(BATCH, DIM, generator=_gen(2)) * 4,), {}
    if name in ("PoissonEncoder", "SignedPoissonEncoder"):
        return getattr(norse, name)(STEPS, f_max=500), (torch.rand(BATCH, DIM, generator=_gen(2)) * 2 - 1,), {}
    if name == "PopulationEncoder":
        return norse.PopulationEncoder(5), (torch.rand(BATCH, DIM, generator=_gen(2)),), {}
    if name == "SpikeLatencyEncoder":
        return norse.SpikeLatencyEncoder(), ((x > 0.5).float(),), {}
    if name.startswith("SequentialState"):
        if name == "SequentialState.layers":
            model = norse.SequentialState(norse.Lift(nn.Linear(DIM, HIDDEN)), norse.LIF(),
                                          norse.Lift(nn.Linear(HIDDEN, 4)), norse.LI())
            return model, (x * 4,), {}
        model = norse.SequentialState(nn.Linear(DIM, HIDDEN), norse.LIFCell(), nn.Linear(HIDDEN, 4), norse.LICell(),
                                      return_hidden=name == "SequentialState.return_hidden")
        recorded: list[Any] = []
        if name == "SequentialState.forward_state_hooks":
            model.register_forward_state_hooks(lambda module, input_, output: recorded.append(output[1]))

        def unrolled(owner: Any, x_: Any) -> Any:
            """The container over each time step, its list of states threaded."""
            state, outputs = None, []
            for step in range(x_.shape[0]):
                out, state = owner(x_[step], state)
                outputs.append(out[-1] if isinstance(out, list) else out)
            if recorded:
                recorded.clear()
            return torch.stack(outputs)

        return Run(model, unrolled, [norse.SequentialState]), (x * 4,), {}
    if name.startswith("RecurrentSequential"):
        several = name.endswith("output_modules")
        model = norse.RecurrentSequential(nn.Linear(DIM, DIM), norse.LIFCell(), nn.Linear(DIM, DIM), norse.LIFCell(),
                                          output_modules=[1, 3] if several else -1)

        def recurrent(owner: Any, x_: Any) -> Any:
            """The module's outputs fed back as the next step's input (the listed ones, summed)."""
            state, outputs = None, []
            for step in range(x_.shape[0]):
                out, state = owner(x_[step], state)
                if several:
                    state = state._replace(cache=torch.stack(out).sum(0))
                    out = out[-1]
                outputs.append(out)
            return torch.stack(outputs)

        return Run(model, recurrent, [norse.RecurrentSequential]), (x * 4,), {}
    images = torch.rand(STEPS, BATCH, 1, SIDE, SIDE, generator=_gen(3))
    if name == "Lift":
        return norse.Lift(nn.Conv2d(1, 4, 3, padding=1)), (images,), {}
    if name == "LConv2d":
        return norse.LConv2d(1, 4, 3, padding=1), (images,), {}
    if name == "RegularizationCell":
        model = nn.ModuleDict({"linear": nn.Linear(DIM, HIDDEN), "lif": norse.LIFCell(),
                               "regularization": norse.RegularizationCell()})

        def regularized(owner: Any, x_: Any) -> Any:
            """A spike-count regulariser accumulated over the steps, added to the loss."""
            state, count, outputs = None, None, []
            for step in range(x_.shape[0]):
                z, state = owner["lif"](owner["linear"](x_[step]), state)
                z, count = owner["regularization"](z, state)
                outputs.append(z)
            return torch.stack(outputs).sum() * 0.0 + 1e-3 * count

        return Run(model, regularized, [norse.RegularizationCell]), (x * 4,), {}
    if name == "SpikesToTimesDecoder":
        spikes = (torch.rand(STEPS, BATCH, DIM, generator=_gen(4)) > 0.5).float()
        return norse.SpikesToTimesDecoder(spike_count=torch.tensor(2)), (spikes,), {}
    if name == "TemporalReceptiveField":
        return norse.TemporalReceptiveField((1, SIDE, SIDE), n_scales=3), (images,), {}
    if name == "SpatialReceptiveField2d":
        parameters = torch.tensor([[1.0, 0.0, 1.0, 0.0, 0.0], [2.0, 0.5, 0.5, 1.0, 0.0]])
        return norse.SpatialReceptiveField2d(1, 5, parameters), (images[0],), {}
    if name in ("SampledSpatialReceptiveField2d", "ParameterizedSpatialReceptiveField2d"):
        scales, angles, ratios = torch.tensor([1.0, 2.0]), torch.tensor([0.0, 1.0]), torch.tensor([0.5, 1.0])
        last: Any = [(0, 0), (1, 0)] if name.startswith("Sampled") else 1
        module = getattr(norse, name)(1, 5, scales, angles, ratios, last, optimize_scales=False)
        return module, (images[0],), {}
    if name in ("ConvNet", "ConvNet4"):
        return getattr(norse, name)(), (torch.rand(2, BATCH, 1, 28, 28, generator=_gen(5)),), {}
    model = norse.SequentialState(nn.Linear(DIM, HIDDEN), norse.LIFCell(), norse.LILinearCell(HIDDEN, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    encoder = norse.PoissonEncoder(STEPS, f_max=500)

    def train_step(owner: Any, values: Any, labels: Any) -> Any:
        """Poisson spikes through the unrolled network, the maximum readout voltage's cross-entropy, Adam."""
        with torch.enable_grad():
            spikes = encoder(values)
            state, voltages = None, []
            for step in range(spikes.shape[0]):
                v, state = owner(spikes[step], state)
                voltages.append(v)
            loss = F.cross_entropy(torch.stack(voltages).max(0).values, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.detach()

    return Run(model, train_step, [norse.SequentialState, norse.PoissonEncoder]), \
        (torch.rand(BATCH, DIM, generator=_gen(2)), torch.tensor([1, 3])), {}


def _functions(name: str) -> Built:
    import norse.torch as norse
    import torch

    from gt_calls import Call, Run

    attr, kind, keywords = FUNCTIONS[name]
    if attr == "sum_decode":
        from norse.torch.functional.decode import sum_decode as function
    else:
        function = getattr(norse, attr)
    keywords = dict(keywords)
    current = torch.randn(BATCH, DIM, generator=_gen(1))
    spikes = (torch.rand(BATCH, DIM, generator=_gen(2)) > 0.5).float()
    if name == "lift.lif_feed_forward_step":
        lifted = norse.lift(norse.lif_feed_forward_step, p=norse.LIFParameters())
        state = norse.LIFFeedForwardState(v=torch.zeros(BATCH, DIM), i=torch.zeros(BATCH, DIM))
        return Run(torch.nn.Identity(), lambda owner, x: lifted(x, state=state), [norse.lift]), \
            (torch.rand(STEPS, BATCH, DIM, generator=_gen(3)) * 4,), {}
    if kind == "spikes_state":
        if keywords.pop("accumulator", None) == "voltage":
            keywords["accumulator"] = norse.voltage_accumulator
        lif_state = norse.LIFFeedForwardState(v=torch.rand(BATCH, DIM, generator=_gen(3)), i=torch.zeros(BATCH, DIM))
        return Run(torch.nn.Identity(), lambda owner, z: function(z, lif_state, **keywords), [function]), \
            (spikes,), {}
    if kind == "pre_post":
        cls = norse.STDPSensorState if attr == "stdp_sensor_step" else norse.CorrelationSensorState
        if attr == "stdp_sensor_step":
            state = cls(a_pre=torch.zeros(BATCH, DIM), a_post=torch.zeros(BATCH, HIDDEN))
        else:
            state = cls(post_pre=torch.zeros(BATCH, DIM, HIDDEN), correlation_trace=torch.zeros(BATCH, DIM, HIDDEN),
                        anti_correlation_trace=torch.zeros(BATCH, DIM, HIDDEN))
        post = (torch.rand(BATCH, HIDDEN, generator=_gen(4)) > 0.5).float()
        if attr == "correlation_sensor_step":  # spikes broadcast over the (pre, post) synapse array
            spikes, post = spikes[:, None], post[:, None]
        return Run(torch.nn.Identity(), lambda owner, pre, post_: function(pre, post_, state), [function]), \
            (spikes, post), {}
    if kind == "spikes_stp":
        state = norse.TsodyksMakramState(x=torch.ones(BATCH, DIM), u=torch.zeros(BATCH, DIM))
        params = norse.TsodyksMakramParameters()
        return Run(torch.nn.Identity(), lambda owner, z: function(z, state, params), [function]), (spikes,), {}
    if keywords.get("scale") == "tensor":
        keywords["scale"] = torch.tensor(0.5)
    inputs: tuple[Any, ...] = {
        "current": lambda: (current * 2,),
        "two_spikes": lambda: (spikes, (torch.rand(BATCH, DIM, generator=_gen(5)) > 0.5).float()),
        "sequence": lambda: (torch.rand(STEPS, BATCH, DIM, generator=_gen(3)),),
        "values": lambda: (torch.rand(BATCH, DIM, generator=_gen(6)),),
        "signed_values": lambda: (torch.rand(BATCH, DIM, generator=_gen(6)) * 2 - 1,),
        "values_1d": lambda: (torch.rand(BATCH, DIM, generator=_gen(6)),),
        "spike_sequence": lambda: ((torch.rand(STEPS, BATCH, DIM, generator=_gen(3)) > 0.5).float(),),
        "reset": lambda: (spikes, current, torch.zeros(BATCH, DIM), torch.ones(BATCH, DIM)),
        "field": lambda: (torch.tensor(1.5), torch.tensor(0.3), torch.tensor(0.7)),
        "covariance": lambda: (9, torch.tensor([[1.0, 0.2], [0.2, 0.5]])),
    }[kind]()
    return Call(function, **keywords), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in CELLS:
        return _cells(name)
    if name in LAYERS:
        return _layers(name)
    if name in BLOCKS:
        return _blocks(name)
    return _functions(name)
