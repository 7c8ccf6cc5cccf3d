"""Ground-truth bench, torch_ppr (torch-ppr): page rank and personalized page rank by power iteration.

torch-ppr computes (personalized) page-rank vectors on a graph given as an edge list or as a sparse,
column-normalised adjacency matrix: ``page_rank`` and ``personalized_page_rank`` (its public API), built
from the helpers of ``torch_ppr.utils`` (``edge_index_to_sparse_matrix``, ``prepare_page_rank_adjacency``,
``validate_adjacency``, ``prepare_x0``, ``validate_x``, ``power_iteration`` and the memory-adaptive
``batched_personalized_page_rank``). Users call them inside a model's forward (PPR-weighted neighbour
aggregation, PPR features of a graph's nodes, APPNP-like propagation) or on their own. So each model of
the tables is one of:

- ``PAGE_RANK``: ``page_rank`` on an edge index (number of nodes given or inferred from the edges,
  ``add_identity``), on a prepared sparse COO or CSR adjacency, on a graph with isolated nodes (the
  validation's warning branch), a chain and a star, with ``alpha``, ``epsilon``, a small ``max_iter``
  that stops before convergence (the loop's ``else``), the default ``max_iter``, a start vector ``x0``
  (one vector or a batch of them) and ``device="cpu"``;
- ``PPR``: ``personalized_page_rank`` on all nodes or on ``indices`` (a tensor or a list), with a
  ``batch_size`` that splits them, ``add_identity``, a prepared adjacency (COO or CSR), isolated nodes
  and the power-iteration options passed through;
- ``UTILS``: the helpers of ``torch_ppr.utils`` on their own (``gt_calls.Call``);
- ``NETWORKS``: bench models that use PPR the way graph-learning code does: a node classifier on
  PPR features, a PPR-weighted aggregation of an MLP's node embeddings (with a train step on a
  cross-entropy loss), and an APPNP-like propagation through ``power_iteration``.

Graphs are small (8 to 10 nodes, up to 20 random edges); the API's functions take keyword arguments
only, so a bench wrapper (``_Keywords``) passes the tensors under their names and the options as fixed
keywords. ``use_tqdm`` stays ``False``, as in a compiled model. Random weights, nothing downloaded.
``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
NODES = 8

# Graph kinds: "random" (8 nodes, 20 random edges), "isolated" (10 nodes, the last two without edges),
# "chain" (a path over 8 nodes), "star" (node 0 joined to the 7 others).
# Input kinds: "edge_index", "adj" (prepared sparse COO adjacency), "csr" (the same as sparse CSR).
# Name -> (graph, input kind, keywords); ``num_nodes`` is given unless ``infer`` is in the name, ``x0``
# stands for a start vector ("uniform", or "batched": two one-hot columns) passed as a tensor.
PAGE_RANK: dict[str, tuple[str, str, dict[str, Any]]] = {
    "page_rank": ("random", "edge_index", {"max_iter": 50}),
    "page_rank.infer_num_nodes": ("random", "edge_index", {"max_iter": 50}),
    "page_rank.add_identity": ("random", "edge_index", {"add_identity": True, "max_iter": 50}),
    "page_rank.isolated": ("isolated", "edge_index", {"max_iter": 50}),
    "page_rank.isolated.add_identity": ("isolated", "edge_index", {"add_identity": True, "max_iter": 50}),
    "page_rank.chain": ("chain", "edge_index", {"max_iter": 50}),
    "page_rank.star": ("star", "edge_index", {"max_iter": 50}),
    "page_rank.max_iter5": ("random", "edge_index", {"max_iter": 5}),
    "page_rank.default_max_iter": ("random", "edge_index", {}),
    "page_rank.alpha": ("random", "edge_index", {"alpha": 0.15, "max_iter": 50}),
    "page_rank.epsilon": ("random", "edge_index", {"epsilon": 1e-6, "max_iter": 50}),
    "page_rank.x0": ("random", "edge_index", {"x0": "uniform", "max_iter": 50}),
    "page_rank.x0.batched": ("random", "edge_index", {"x0": "batched", "max_iter": 50}),
    "page_rank.adj": ("random", "adj", {"max_iter": 50}),
    "page_rank.adj.csr": ("random", "csr", {"max_iter": 50}),
    "page_rank.adj.x0": ("random", "adj", {"x0": "uniform", "max_iter": 50}),
    "page_rank.device": ("random", "edge_index", {"device": "cpu", "max_iter": 50}),
}
PPR: dict[str, tuple[str, str, dict[str, Any]]] = {
    "personalized_page_rank": ("random", "edge_index", {"max_iter": 50}),
    "personalized_page_rank.infer_num_nodes": ("random", "edge_index", {"max_iter": 50}),
    "personalized_page_rank.indices": ("random", "edge_index", {"indices": "tensor", "max_iter": 50}),
    "personalized_page_rank.indices_list": ("random", "edge_index", {"indices": [0, 3, 5], "max_iter": 50}),
    "personalized_page_rank.batch_size": ("random", "edge_index", {"batch_size": 3, "max_iter": 50}),
    "personalized_page_rank.indices.batch_size": ("random", "edge_index",
                                                  {"indices": "tensor", "batch_size": 2, "max_iter": 50}),
    "personalized_page_rank.add_identity": ("random", "edge_index", {"add_identity": True, "max_iter": 50}),
    "personalized_page_rank.isolated": ("isolated", "edge_index", {"max_iter": 50}),
    "personalized_page_rank.star": ("star", "edge_index", {"max_iter": 50}),
    "personalized_page_rank.adj": ("random", "adj", {"max_iter": 50}),
    "personalized_page_rank.adj.csr": ("random", "csr", {"max_iter": 50}),
    "personalized_page_rank.alpha_epsilon": ("random", "edge_index", {"alpha": 0.2, "epsilon": 1e-5, "max_iter": 50}),
    "personalized_page_rank.max_iter5": ("random", "edge_index", {"max_iter": 5}),
    "personalized_page_rank.default_max_iter": ("random", "edge_index", {}),
    "personalized_page_rank.device": ("random", "edge_index", {"device": "cpu", "max_iter": 50}),
}
UTILS = (
    "edge_index_to_sparse_matrix", "edge_index_to_sparse_matrix.infer_num_nodes", "prepare_num_nodes.infer",
    "prepare_page_rank_adjacency", "prepare_page_rank_adjacency.add_identity",
    "prepare_page_rank_adjacency.isolated", "prepare_page_rank_adjacency.adj", "sparse_diagonal",
    "validate_adjacency", "validate_adjacency.csr", "validate_adjacency.isolated", "validate_adjacency.n",
    "validate_x", "validate_x.batched", "prepare_x0.uniform", "prepare_x0.indices", "prepare_x0.x0",
    "power_iteration", "power_iteration.batched", "power_iteration.max_iter5", "power_iteration.csr",
    "batched_personalized_page_rank", "batched_personalized_page_rank.batch_size",
)
NETWORKS = ("PPRFeatureClassifier", "PPRAggregation", "train_step.PPRAggregation", "APPNPPropagation",
            "train_step.APPNPPropagation")


def names() -> list[str]:
    return list(PAGE_RANK) + list(PPR) + [f"utils.{n}" for n in UTILS] + [f"network.{n}" for n in NETWORKS]


def edge_index(graph: str) -> Any:
    import torch

    if graph == "random":
        return torch.randint(0, NODES, (2, 20), generator=torch.Generator().manual_seed(3))
    if graph == "isolated":
        return torch.randint(0, NODES, (2, 20), generator=torch.Generator().manual_seed(4))
    if graph == "chain":
        nodes = torch.arange(NODES - 1)
        return torch.stack([nodes, nodes + 1])
    leaves = torch.arange(1, NODES)
    return torch.stack([torch.zeros_like(leaves), leaves])


def nodes_of(graph: str) -> int:
    return NODES + 2 if graph == "isolated" else NODES


def adjacency(graph: str, layout: str = "adj", add_identity: bool = False) -> Any:
    from torch_ppr.utils import prepare_page_rank_adjacency

    adj = prepare_page_rank_adjacency(edge_index=edge_index(graph), num_nodes=nodes_of(graph),
                                      add_identity=add_identity)
    return adj.to_sparse_csr() if layout == "csr" else adj.coalesce()


def _keywords_module(function: Any, tensor_names: tuple[str, ...], static: dict[str, Any]) -> Any:
    from torch import nn

    class _Keywords(nn.Module):
        """A keyword-only library function under a module's interface: the inputs are passed under
        ``tensor_names``, the options as fixed keywords."""

        def __init__(self) -> None:
            super().__init__()
            self.function = function
            self.tensor_names = tensor_names
            self.static = static

        def forward(self, *tensors: Any) -> Any:
            return self.function(**dict(zip(self.tensor_names, tensors)), **self.static)

        def entry_points(self) -> list[Any]:
            return [self.function]

    return _Keywords()


def _api(name: str) -> Built:
    import torch
    import torch_ppr

    graph, kind, keywords = PAGE_RANK[name] if name in PAGE_RANK else PPR[name]
    function = torch_ppr.page_rank if name in PAGE_RANK else torch_ppr.personalized_page_rank
    static = dict(keywords)
    n = nodes_of(graph)
    tensor_names: list[str] = []
    tensors: list[Any] = []
    if kind == "edge_index":
        tensor_names.append("edge_index")
        tensors.append(edge_index(graph))
        if "infer" not in name:
            static["num_nodes"] = n
    else:
        tensor_names.append("adj")
        tensors.append(adjacency(graph, kind))
    if static.get("x0") == "uniform":
        del static["x0"]
        tensor_names.append("x0")
        tensors.append(torch.full((n,), 1.0 / n))
    elif static.get("x0") == "batched":
        del static["x0"]
        x0 = torch.zeros(n, 2)
        x0[0, 0] = x0[3, 1] = 1.0
        tensor_names.append("x0")
        tensors.append(x0)
    if static.get("indices") == "tensor":
        del static["indices"]
        tensor_names.append("indices")
        tensors.append(torch.tensor([1, 2, 4, 6]))
    return _keywords_module(function, tuple(tensor_names), static), tuple(tensors), {}


def _utils(name: str) -> Built:
    import torch
    from torch_ppr import utils

    from gt_calls import Call

    ei = edge_index("random")
    if name == "edge_index_to_sparse_matrix":
        return Call(utils.edge_index_to_sparse_matrix, num_nodes=NODES), (ei,), {}
    if name == "edge_index_to_sparse_matrix.infer_num_nodes":
        return Call(utils.edge_index_to_sparse_matrix), (ei,), {}
    if name == "prepare_num_nodes.infer":
        return Call(utils.prepare_num_nodes), (ei,), {}
    if name.startswith("prepare_page_rank_adjacency"):
        if name.endswith(".adj"):
            return _keywords_module(utils.prepare_page_rank_adjacency, ("adj",), {}), (adjacency("random"),), {}
        graph = "isolated" if name.endswith(".isolated") else "random"
        static = {"num_nodes": nodes_of(graph), "add_identity": name.endswith(".add_identity")}
        return _keywords_module(utils.prepare_page_rank_adjacency, ("edge_index",), static), (edge_index(graph),), {}
    if name == "sparse_diagonal":
        return Call(utils.sparse_diagonal), (torch.rand(NODES, generator=torch.Generator().manual_seed(5)),), {}
    if name.startswith("validate_adjacency"):
        if name.endswith(".csr"):
            return Call(utils.validate_adjacency), (adjacency("random", "csr"),), {}
        if name.endswith(".isolated"):
            return Call(utils.validate_adjacency), (adjacency("isolated"),), {}
        if name.endswith(".n"):
            return Call(utils.validate_adjacency, n=NODES, rtol=1e-3), (adjacency("random"),), {}
        return Call(utils.validate_adjacency), (adjacency("random"),), {}
    if name.startswith("validate_x"):
        if name.endswith(".batched"):
            x = torch.softmax(torch.randn(NODES, 3, generator=torch.Generator().manual_seed(6)), dim=0)
        else:
            x = torch.full((NODES,), 1.0 / NODES)
        return Call(utils.validate_x, n=NODES), (x,), {}
    if name == "prepare_x0.uniform":
        return Call(utils.prepare_x0, n=NODES), (), {}
    if name == "prepare_x0.indices":
        return Call(utils.prepare_x0, n=NODES), (None, torch.tensor([0, 2, 5])), {}
    if name == "prepare_x0.x0":
        return Call(utils.prepare_x0), (torch.full((NODES,), 1.0 / NODES),), {}
    if name.startswith("power_iteration"):
        adj = adjacency("random", "csr" if name.endswith(".csr") else "adj")
        if name.endswith(".batched"):
            x0 = utils.prepare_x0(indices=[0, 1, 5], n=NODES)
        else:
            x0 = torch.full((NODES,), 1.0 / NODES)
        max_iter = 5 if name.endswith(".max_iter5") else 50
        return Call(utils.power_iteration, max_iter=max_iter, alpha=0.1), (adj, x0), {}
    batch_size = 3 if name.endswith(".batch_size") else NODES
    return (_keywords_module(utils.batched_personalized_page_rank, ("adj", "indices"),
                             {"batch_size": batch_size, "max_iter": 50, "device": "cpu"}),
            (adjacency("random"), torch.arange(NODES)), {})


def _network(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torch_ppr
    from torch import nn
    from torch_ppr import utils

    features, hidden, classes = 6, 16, 3
    x = torch.randn(NODES, features, generator=torch.Generator().manual_seed(7))
    labels = torch.randint(0, classes, (NODES,), generator=torch.Generator().manual_seed(8))
    ei = edge_index("random")
    train = name.startswith("train_step.")
    base = name.removeprefix("train_step.")

    if base == "PPRFeatureClassifier":
        class PPRFeatureClassifier(nn.Module):
            """Each node is classified from its personalized page-rank vector (a structural feature)."""

            def __init__(self) -> None:
                super().__init__()
                self.mlp = nn.Sequential(nn.Linear(NODES, hidden), nn.ReLU(), nn.Linear(hidden, classes))

            def forward(self, edges: torch.Tensor) -> torch.Tensor:
                ppr = torch_ppr.personalized_page_rank(edge_index=edges, num_nodes=NODES, max_iter=30)
                return self.mlp(ppr)

            def entry_points(self) -> list[Any]:
                return [torch_ppr.personalized_page_rank]

        return PPRFeatureClassifier(), (ei,), {}

    if base == "PPRAggregation":
        class PPRAggregation(nn.Module):
            """Node embeddings by an MLP, aggregated with the graph's PPR matrix (PPRGo-like)."""

            def __init__(self) -> None:
                super().__init__()
                self.mlp = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, classes))

            def forward(self, feats: torch.Tensor, edges: torch.Tensor) -> torch.Tensor:
                ppr = torch_ppr.personalized_page_rank(edge_index=edges, num_nodes=NODES, add_identity=True,
                                                       max_iter=30, batch_size=4)
                return ppr @ self.mlp(feats)

            def entry_points(self) -> list[Any]:
                return [torch_ppr.personalized_page_rank]

        model: nn.Module = PPRAggregation()
    else:
        adj = adjacency("random", add_identity=True)

        class APPNPPropagation(nn.Module):
            """An MLP's class scores propagated with teleport ``alpha`` by ``power_iteration`` (APPNP)."""

            def __init__(self) -> None:
                super().__init__()
                self.mlp = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, classes))

            def forward(self, feats: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
                h = self.mlp(feats).softmax(dim=0)
                return utils.power_iteration(adj=adj, x0=h, alpha=0.1, max_iter=10, epsilon=1e-4)

            def entry_points(self) -> list[Any]:
                return [utils.power_iteration]

        model = APPNPPropagation()
        ei = adj
    if not train:
        return model, (x, ei), {}

    class _TrainStep(nn.Module):
        """The node-classification loss: cross-entropy of the model's scores against the labels."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, feats: torch.Tensor, graph: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return F.cross_entropy(self.model(feats, graph), y)

        def entry_points(self) -> list[Any]:
            return self.model.entry_points()

    return _TrainStep(), (x, ei, labels), {}


def build(name: str) -> Built:
    import logging
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    logging.getLogger("torch_max_mem").setLevel(logging.ERROR)
    torch.manual_seed(0)
    if name in PAGE_RANK or name in PPR:
        return _api(name)
    kind, rest = name.split(".", 1)
    return _utils(rest) if kind == "utils" else _network(rest)
