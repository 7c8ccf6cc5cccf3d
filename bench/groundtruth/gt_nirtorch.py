"""Ground-truth bench, nirtorch: NIR (neuromorphic intermediate representation) graphs run as torch modules.

nirtorch 2.6 turns a ``nir.NIRGraph`` (nodes such as ``Affine``, ``Linear``, ``Conv1d``, ``Conv2d``, ``Flatten``,
``AvgPool2d``, ``SumPool2d``, neurons ``LIF``, ``CubaLIF``, ``LI``, ``IF``, ``Threshold``, ``Scale``, subgraphs, and
edges that may form cycles) into an executable torch module, in two ways that users compile as the network of a
simulation loop:

- ``nir_to_torch(graph, node_map)``: each node mapped to a module (the user's ``node_map`` over the library's
  defaults for ``Input``/``Output``, ``Affine``, ``Linear``, ``Conv1d``, ``Conv2d``, ``Flatten``, ``AvgPool2d`` and
  ``SumPool2d``), wired into a ``torch.fx.GraphModule`` whose ``forward(input, state=None)`` returns
  ``(output, state)``: a ``state`` dict made on the first call by the library's ``ternary_operator``, stateful
  modules (those whose ``forward`` takes ``state``) fed their entry, several inputs summed, recurrent edges read
  from the previous step's output kept in the state;
- ``load(graph, model_map, return_state)`` (deprecated, still what norse's ``from_nir`` calls): a
  ``GraphExecutor`` that walks its execution order in Python on each call, finds each node's sources by comparing
  ``Node`` objects, keeps hidden states and cached outputs in a ``GraphExecutorState`` dataclass, checks module
  class names for snnTorch's special cases, and returns ``(output, state)`` or only the output.

Each model builds a small graph with random weights from a fixed seed, converts it once (outside the compiled
region, as users do) and compiles a forward that runs the converted module over ``STEPS`` time steps, threading
the state through (or one step with a fresh state). The node maps are the users': small leaky-integrate-and-fire
style modules written here (LIF, LI, IF, current-based LIF, a threshold, a scale; their ``forward(x, state=None)``
returns ``(spikes, state)``) or, for ``GraphExecutor``, ``model_map`` functions that return ``None`` for the
``Input`` and ``Output`` nodes (the library's identity defaults). A few models use the real importers built on
nirtorch: norse's ``from_nir`` (norse's box cells, ``load``) and snnTorch's ``import_from_nir`` (``nir_to_torch``).
The graphs cover feed-forward spiking MLPs, a convolutional network with pooling and flattening, a 1-d
convolution, a skip connection whose inputs are summed, a recurrent layer (a cycle through an affine map), a
self-loop, a nested subgraph, and node names that are Python keywords or hold dots (sanitized). The export side
(``torch_to_nir``, ``extract_nir_graph``) traces a model once with ``torch.fx`` or patched ``Module.__call__``
hooks to write a graph file; nobody compiles it, so it is left out. Nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

STEPS, BATCH, IN, HID, OUT = 3, 2, 6, 8, 4
GRAPHS = ("mlp", "mlp2", "linear_if", "cuba", "li_out", "threshold_scale", "conv", "conv_sumpool", "conv1d",
          "skip", "recurrent", "self_loop", "subgraph", "keyword_names")
# Model name -> (executor, graph, run): executor "fx" (nir_to_torch), "exec" (load, return_state=True),
# "exec_nostate" (load, return_state=False), "norse" (norse.from_nir), "snntorch" (snntorch.import_from_nir);
# run "loop" (STEPS steps, the state threaded) or "once" (one step, a fresh state).
MODELS: dict[str, tuple[str, str, str]] = {}
for _graph in GRAPHS:
    MODELS[f"fx.{_graph}.loop"] = ("fx", _graph, "loop")
    MODELS[f"exec.{_graph}.loop"] = ("exec", _graph, "loop")
for _graph in ("mlp", "conv", "skip", "recurrent", "subgraph"):
    MODELS[f"fx.{_graph}.once"] = ("fx", _graph, "once")
for _graph in ("mlp", "mlp2", "conv", "skip", "recurrent"):
    MODELS[f"exec_nostate.{_graph}.once"] = ("exec_nostate", _graph, "once")
for _graph in ("mlp", "linear_if", "cuba", "conv_sumpool", "recurrent"):
    MODELS[f"norse.{_graph}.loop"] = ("norse", _graph, "loop")
for _graph in ("mlp", "mlp2", "conv"):
    MODELS[f"snntorch.{_graph}.loop"] = ("snntorch", _graph, "loop")


def names() -> list[str]:
    return list(MODELS)


def _modules() -> dict[str, Any]:
    """The users' neuron modules for the node maps (stateful: ``forward(x, state=None) -> (out, state)``)."""
    import torch
    from torch import nn

    def spike(v: torch.Tensor, threshold: torch.Tensor) -> torch.Tensor:
        return (v - threshold > 0).to(v.dtype)

    class LIF(nn.Module):
        def __init__(self, node: Any, dt: float = 1e-3) -> None:
            super().__init__()
            self.register_buffer("tau", torch.as_tensor(node.tau, dtype=torch.float32))
            self.register_buffer("r", torch.as_tensor(node.r, dtype=torch.float32))
            self.register_buffer("v_leak", torch.as_tensor(node.v_leak, dtype=torch.float32))
            self.register_buffer("v_threshold", torch.as_tensor(node.v_threshold, dtype=torch.float32))
            self.dt = dt

        def forward(self, x: torch.Tensor, state: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
            v = torch.zeros_like(x) if state is None else state
            v = v + self.dt / self.tau * (self.v_leak - v + self.r * x)
            z = spike(v, self.v_threshold)
            return z, v * (1 - z)

    class LI(nn.Module):
        def __init__(self, node: Any, dt: float = 1e-3) -> None:
            super().__init__()
            self.register_buffer("tau", torch.as_tensor(node.tau, dtype=torch.float32))
            self.register_buffer("r", torch.as_tensor(node.r, dtype=torch.float32))
            self.register_buffer("v_leak", torch.as_tensor(node.v_leak, dtype=torch.float32))
            self.dt = dt

        def forward(self, x: torch.Tensor, state: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
            v = torch.zeros_like(x) if state is None else state
            v = v + self.dt / self.tau * (self.v_leak - v + self.r * x)
            return v, v

    class IF(nn.Module):
        def __init__(self, node: Any) -> None:
            super().__init__()
            self.register_buffer("r", torch.as_tensor(node.r, dtype=torch.float32))
            self.register_buffer("v_threshold", torch.as_tensor(node.v_threshold, dtype=torch.float32))

        def forward(self, x: torch.Tensor, state: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
            v = (torch.zeros_like(x) if state is None else state) + self.r * x
            z = spike(v, self.v_threshold)
            return z, v * (1 - z)

    class CubaLIF(nn.Module):
        def __init__(self, node: Any, dt: float = 1e-3) -> None:
            super().__init__()
            self.register_buffer("tau_syn", torch.as_tensor(node.tau_syn, dtype=torch.float32))
            self.register_buffer("tau_mem", torch.as_tensor(node.tau_mem, dtype=torch.float32))
            self.register_buffer("r", torch.as_tensor(node.r, dtype=torch.float32))
            self.register_buffer("v_leak", torch.as_tensor(node.v_leak, dtype=torch.float32))
            self.register_buffer("v_threshold", torch.as_tensor(node.v_threshold, dtype=torch.float32))
            self.dt = dt

        def forward(self, x: torch.Tensor, state: Any = None) -> tuple[torch.Tensor, Any]:
            i, v = (torch.zeros_like(x), torch.zeros_like(x)) if state is None else state
            i = i + self.dt / self.tau_syn * (-i + x)
            v = v + self.dt / self.tau_mem * (self.v_leak - v + self.r * i)
            z = spike(v, self.v_threshold)
            return z, (i, v * (1 - z))

    class Threshold(nn.Module):
        def __init__(self, node: Any) -> None:
            super().__init__()
            self.register_buffer("threshold", torch.as_tensor(node.threshold, dtype=torch.float32))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return spike(x, self.threshold)

    class Scale(nn.Module):
        def __init__(self, node: Any) -> None:
            super().__init__()
            self.register_buffer("scale", torch.as_tensor(node.scale, dtype=torch.float32))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * self.scale

    return {"LIF": LIF, "LI": LI, "IF": IF, "CubaLIF": CubaLIF, "Threshold": Threshold, "Scale": Scale}


def _graph(kind: str) -> tuple[Any, tuple[int, ...]]:
    """A NIR graph of ``kind`` and the shape of one time step's input."""
    import nir
    import numpy as np

    rng = np.random.default_rng(0)

    def w(*shape: int) -> np.ndarray:
        return rng.normal(0.0, 0.5, size=shape).astype(np.float32)

    def ones(n: Any, value: float = 1.0) -> np.ndarray:
        return np.full(n, value, dtype=np.float32)

    def lif(n: Any) -> Any:
        return nir.LIF(tau=ones(n, 0.02), r=ones(n), v_leak=ones(n, 0.0), v_threshold=ones(n, 0.1))

    def io(shape_in: Any, shape_out: Any) -> dict[str, Any]:
        return {"input": nir.Input(input_type={"input": np.array(shape_in)}),
                "output": nir.Output(output_type={"output": np.array(shape_out)})}

    def chain(nodes: dict[str, Any], shape_in: Any, shape_out: Any) -> Any:
        names_ = ["input", *nodes, "output"]
        return nir.NIRGraph({**io(shape_in, shape_out), **nodes}, list(zip(names_, names_[1:])), type_check=False)

    if kind == "mlp":
        return chain({"affine": nir.Affine(w(HID, IN), w(HID)), "lif": lif(HID)}, [IN], [HID]), (BATCH, IN)
    if kind == "mlp2":
        return chain({"fc1": nir.Affine(w(HID, IN), w(HID)), "lif1": lif(HID),
                      "fc2": nir.Affine(w(OUT, HID), w(OUT)), "lif2": lif(OUT)}, [IN], [OUT]), (BATCH, IN)
    if kind == "linear_if":
        return chain({"linear": nir.Linear(w(HID, IN)),
                      "if": nir.IF(r=ones(HID), v_threshold=ones(HID, 0.5))}, [IN], [HID]), (BATCH, IN)
    if kind == "cuba":
        return chain({"affine": nir.Affine(w(HID, IN), w(HID)),
                      "cuba": nir.CubaLIF(tau_syn=ones(HID, 0.01), tau_mem=ones(HID, 0.02), r=ones(HID),
                                          v_leak=ones(HID, 0.0), v_threshold=ones(HID, 0.1))},
                     [IN], [HID]), (BATCH, IN)
    if kind == "li_out":
        return chain({"fc1": nir.Affine(w(HID, IN), w(HID)), "lif1": lif(HID), "fc2": nir.Linear(w(OUT, HID)),
                      "li": nir.LI(tau=ones(OUT, 0.02), r=ones(OUT), v_leak=ones(OUT, 0.0))},
                     [IN], [OUT]), (BATCH, IN)
    if kind == "threshold_scale":
        return chain({"scale": nir.Scale(ones(IN, 2.0)), "fc": nir.Affine(w(HID, IN), w(HID)),
                      "threshold": nir.Threshold(ones(HID, 0.2))}, [IN], [HID]), (BATCH, IN)
    if kind in ("conv", "conv_sumpool"):
        pool = (nir.SumPool2d(kernel_size=np.array([2, 2]), stride=np.array([2, 2]), padding=np.array([0, 0]))
                if kind == "conv_sumpool" else
                nir.AvgPool2d(kernel_size=np.array([2, 2]), stride=np.array([2, 2]), padding=np.array([0, 0])))
        nodes = {"conv": nir.Conv2d(input_shape=(8, 8), weight=w(4, 2, 3, 3), stride=1, padding=1, dilation=1,
                                    groups=1, bias=w(4)),
                 "lif1": lif((4, 8, 8)), "pool": pool,
                 "flat": nir.Flatten(input_type={"input": np.array([4, 4, 4])}, start_dim=1, end_dim=-1),
                 "fc": nir.Affine(w(OUT, 64), w(OUT)), "lif2": lif(OUT)}
        return chain(nodes, [2, 8, 8], [OUT]), (BATCH, 2, 8, 8)
    if kind == "conv1d":
        nodes = {"conv": nir.Conv1d(input_shape=10, weight=w(3, 2, 3), stride=1, padding=1, dilation=1, groups=1,
                                    bias=w(3)),
                 "if": nir.IF(r=ones((3, 10)), v_threshold=ones((3, 10), 0.5)),
                 "flat": nir.Flatten(input_type={"input": np.array([3, 10])}, start_dim=1, end_dim=-1),
                 "fc": nir.Linear(w(OUT, 30))}
        return chain(nodes, [2, 10], [OUT]), (BATCH, 2, 10)
    if kind == "skip":
        nodes = {**io([IN], [HID]), "fc1": nir.Affine(w(HID, IN), w(HID)), "lif1": lif(HID),
                 "fc2": nir.Affine(w(HID, HID), w(HID)), "skip": nir.Affine(w(HID, IN), w(HID)),
                 "lif2": lif(HID)}
        edges = [("input", "fc1"), ("fc1", "lif1"), ("lif1", "fc2"), ("fc2", "lif2"), ("input", "skip"),
                 ("skip", "lif2"), ("lif2", "output")]
        return nir.NIRGraph(nodes, edges, type_check=False), (BATCH, IN)
    if kind == "recurrent":
        nodes = {**io([IN], [HID]), "fc": nir.Affine(w(HID, IN), w(HID)), "lif": lif(HID),
                 "rec": nir.Linear(w(HID, HID))}
        edges = [("input", "fc"), ("fc", "lif"), ("lif", "rec"), ("rec", "lif"), ("lif", "output")]
        return nir.NIRGraph(nodes, edges, type_check=False), (BATCH, IN)
    if kind == "self_loop":
        nodes = {**io([IN], [HID]), "fc": nir.Affine(w(HID, IN), w(HID)), "lif": lif(HID)}
        edges = [("input", "fc"), ("fc", "lif"), ("lif", "lif"), ("lif", "output")]
        return nir.NIRGraph(nodes, edges, type_check=False), (BATCH, IN)
    if kind == "subgraph":
        inner = chain({"fc": nir.Affine(w(HID, HID), w(HID)), "lif": lif(HID)}, [HID], [HID])
        nodes = {"fc0": nir.Affine(w(HID, IN), w(HID)), "block": inner, "out_fc": nir.Linear(w(OUT, HID))}
        return chain(nodes, [IN], [OUT]), (BATCH, IN)
    if kind == "keyword_names":
        return chain({"layer.0": nir.Affine(w(HID, IN), w(HID)), "lambda": lif(HID),
                      "layer.1": nir.Linear(w(OUT, HID)), "return": lif(OUT)}, [IN], [OUT]), (BATCH, IN)
    raise KeyError(kind)


def _node_map(modules: dict[str, Any]) -> dict[Any, Any]:
    """``nir_to_torch``'s node map for the neuron nodes (the library's defaults do the rest)."""
    import nir

    return {nir.LIF: modules["LIF"], nir.LI: modules["LI"], nir.IF: modules["IF"], nir.CubaLIF: modules["CubaLIF"],
            nir.Threshold: modules["Threshold"], nir.Scale: modules["Scale"]}


def _model_map(modules: dict[str, Any]) -> Any:
    """``load``'s model map: the library's default mappings where it has them, ``None`` for ``Input``/``Output``
    (its identities), the users' modules for neurons."""
    import nir

    from nirtorch.nir_interpreter import DEFAULT_MAP

    neurons = _node_map(modules)

    def model_map(node: Any) -> Any:
        if isinstance(node, (nir.Input, nir.Output)):
            return None
        if type(node) in neurons:
            return neurons[type(node)](node)
        if type(node) in DEFAULT_MAP:
            return DEFAULT_MAP[type(node)](node)
        return None

    return model_map


def _convert(executor: str, graph: Any) -> Any:
    import nirtorch

    modules = _modules()
    if executor == "fx":
        return nirtorch.nir_to_torch(graph, _node_map(modules))
    if executor in ("exec", "exec_nostate"):
        return nirtorch.load(graph, _model_map(modules), return_state=executor == "exec")
    if executor == "norse":
        import norse.torch

        return norse.torch.from_nir(graph)
    from snntorch.import_nir import import_from_nir

    return import_from_nir(graph)


def build(name: str) -> Built:
    import warnings

    import torch

    from gt_calls import Run

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    executor, kind, run = MODELS[name]
    graph, shape = _graph(kind)
    module = _convert(executor, graph)
    returns_state = executor != "exec_nostate"
    if executor == "snntorch":
        # snnTorch's neurons keep their hidden state inside (init_hidden=True); reset it as its docs ask.
        import snntorch.utils

        snntorch.utils.reset(module)

    def forward(owner: Any, x: torch.Tensor) -> Any:
        if run == "once":
            return owner(x[0])
        state = None
        outputs = []
        for t in range(x.shape[0]):
            if returns_state:
                out, state = owner(x[t]) if state is None else owner(x[t], state)
            else:
                out = owner(x[t])
            outputs.append(out)
        return torch.stack(outputs)

    gen = torch.Generator().manual_seed(1)
    x = torch.rand(STEPS, *shape, generator=gen) * 2.0
    from nirtorch.graph_executor import GraphExecutor

    entries: list[Any] = [GraphExecutor] if executor in ("exec", "exec_nostate", "norse") else [type(module)]
    return Run(module, forward, entries), (x,), {}
