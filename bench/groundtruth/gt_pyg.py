"""Ground-truth bench, torch_geometric models: layers, pooling, aggregations, norms and whole models.

Every builder in ``BUILDERS`` constructs one module with small dimensions and calls it on one random
graph of two components (12 nodes, 8 features, 40 edges, edge features, positions, relation types
and a ``batch`` vector), returning ``(module, args, kwargs)``. Imported inside a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch_geometric.nn as g
from gt_calls import library_call
from torch import nn

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, F, E, H = 12, 8, 40, 16


def _graph() -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    half = N // 2
    # Edges stay inside each of the two graphs of the batch.
    src = torch.randint(0, half, (E,), generator=gen)
    dst = torch.randint(0, half, (E,), generator=gen)
    offset = (torch.arange(E) >= E // 2).long() * half
    return {
        "x": torch.randn(N, F, generator=gen),
        "edge_index": torch.stack([src + offset, dst + offset]),
        "edge_attr": torch.randn(E, 4, generator=gen),
        "edge_weight": torch.rand(E, generator=gen),
        "pos": torch.randn(N, 3, generator=gen),
        "edge_type": torch.randint(0, 3, (E,), generator=gen),
        "batch": torch.cat([torch.zeros(half, dtype=torch.long), torch.ones(half, dtype=torch.long)]),
    }


G = _graph()
X, EI, EA, EW, POS, ET, B = (G[k] for k in ("x", "edge_index", "edge_attr", "edge_weight", "pos", "edge_type", "batch"))


def _mlp(i: int, o: int) -> nn.Module:
    return nn.Sequential(nn.Linear(i, H), nn.ReLU(), nn.Linear(H, o))


def _conv(module: nn.Module, *extra: Any, **kwargs: Any) -> Built:
    return module, (X, EI, *extra), kwargs


class _Pool(nn.Module):
    """A pooling layer's forward under a plain signature (what a model calls)."""

    def __init__(self, pool: nn.Module) -> None:
        super().__init__()
        self.pool = pool

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor) -> Any:
        return self.pool(x, edge_index, batch=batch)

    def entry_points(self) -> list[Callable[..., Any]]:
        return [type(self.pool)]


class _GlobalPools(nn.Module):
    """The readout functions a graph classifier ends with."""

    def forward(self, x: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        return g.global_mean_pool(x, batch) + g.global_max_pool(x, batch) + g.global_add_pool(x, batch)

    def entry_points(self) -> list[Callable[..., Any]]:
        return [g.global_mean_pool, g.global_max_pool, g.global_add_pool]


def _pna_degree() -> torch.Tensor:
    from torch_geometric.utils import degree

    d = degree(EI[1], num_nodes=N, dtype=torch.long)
    return torch.bincount(d)


BUILDERS: dict[str, Callable[[], Built]] = {
    "GCNConv": lambda: _conv(g.GCNConv(F, H), EW),
    "GATConv": lambda: _conv(g.GATConv(F, H, heads=2, edge_dim=4), EA),
    "GATv2Conv": lambda: _conv(g.GATv2Conv(F, H, heads=2)),
    "SAGEConv": lambda: _conv(g.SAGEConv(F, H)),
    "GINConv": lambda: _conv(g.GINConv(_mlp(F, H))),
    "GINEConv": lambda: _conv(g.GINEConv(_mlp(F, H), edge_dim=4), EA),
    "GraphConv": lambda: _conv(g.GraphConv(F, H), EW),
    "ChebConv": lambda: _conv(g.ChebConv(F, H, K=3)),
    "TransformerConv": lambda: _conv(g.TransformerConv(F, H, heads=2, edge_dim=4), EA),
    "TAGConv": lambda: _conv(g.TAGConv(F, H)),
    "SGConv": lambda: _conv(g.SGConv(F, H, K=2)),
    "APPNP": lambda: _conv(g.APPNP(K=3, alpha=0.1)),
    "ARMAConv": lambda: _conv(g.ARMAConv(F, H, num_stacks=2, num_layers=2)),
    "EdgeConv": lambda: _conv(g.EdgeConv(_mlp(2 * F, H))),
    "GENConv": lambda: _conv(g.GENConv(F, H, aggr="softmax", learn_t=True)),
    "GeneralConv": lambda: _conv(g.GeneralConv(F, H, in_edge_channels=4, attention=True), EA),
    "ResGatedGraphConv": lambda: _conv(g.ResGatedGraphConv(F, H)),
    "LEConv": lambda: _conv(g.LEConv(F, H)),
    "ClusterGCNConv": lambda: _conv(g.ClusterGCNConv(F, H)),
    "FeaStConv": lambda: _conv(g.FeaStConv(F, H, heads=2)),
    "PointNetConv": lambda: (g.PointNetConv(_mlp(F + 3, H)), (X, POS, EI), {}),
    "GMMConv": lambda: _conv(g.GMMConv(F, H, dim=4, kernel_size=3), EA),
    "NNConv": lambda: _conv(g.NNConv(F, H, nn.Linear(4, F * H)), EA),
    "CGConv": lambda: _conv(g.CGConv(F, dim=4), EA),
    "FiLMConv": lambda: _conv(g.FiLMConv(F, H, num_relations=3), ET),
    "SuperGATConv": lambda: _conv(g.SuperGATConv(F, H, heads=2)),
    "FAConv": lambda: (g.FAConv(F), (X, X, EI), {}),
    "EGConv": lambda: _conv(g.EGConv(F, H, aggregators=["sum", "mean", "max"], num_heads=2, num_bases=2)),
    "PDNConv": lambda: _conv(g.PDNConv(F, H, edge_dim=4, hidden_channels=8), EA),
    "GatedGraphConv": lambda: _conv(g.GatedGraphConv(F, num_layers=2)),
    "MFConv": lambda: _conv(g.MFConv(F, H, max_degree=4)),
    "HypergraphConv": lambda: _conv(g.HypergraphConv(F, H)),
    "LGConv": lambda: _conv(g.LGConv()),
    "SSGConv": lambda: _conv(g.SSGConv(F, H, alpha=0.1, K=2)),
    "PointTransformerConv": lambda: (g.PointTransformerConv(F, H), (X, POS, EI), {}),
    "SimpleConv": lambda: _conv(g.SimpleConv(aggr="mean")),
    "AntiSymmetricConv": lambda: _conv(g.AntiSymmetricConv(F)),
    "MixHopConv": lambda: _conv(g.MixHopConv(F, H)),
    "RGCNConv": lambda: _conv(g.RGCNConv(F, H, num_relations=3), ET),
    "FastRGCNConv": lambda: _conv(g.FastRGCNConv(F, H, num_relations=3), ET),
    "RGATConv": lambda: _conv(g.RGATConv(F, H, num_relations=3), ET),
    "PNAConv": lambda: _conv(g.PNAConv(F, H, aggregators=["mean", "max", "std"], scalers=["identity", "amplification"],
                                       deg=_pna_degree())),
    "GCN2Conv": lambda: (g.GCN2Conv(F, alpha=0.1), (X, X, EI), {}),
    "AGNNConv": lambda: _conv(g.AGNNConv()),
    "DNAConv": lambda: (g.DNAConv(F, heads=2), (X.view(N, 1, F).repeat(1, 3, 1), EI), {}),
    "GPSConv": lambda: (g.GPSConv(F, g.GINConv(_mlp(F, F)), heads=2), (X, EI, B), {}),
    "WLConvContinuous": lambda: _conv(g.WLConvContinuous()),
    "SignedConv": lambda: (g.SignedConv(F, H, first_aggr=True), (X, EI[:, :20], EI[:, 20:]), {}),
    "GCN": lambda: _conv(g.GCN(F, H, num_layers=2)),
    "GraphSAGE": lambda: _conv(g.GraphSAGE(F, H, num_layers=2)),
    "GIN": lambda: _conv(g.GIN(F, H, num_layers=2)),
    "GAT": lambda: _conv(g.GAT(F, H, num_layers=2, heads=2)),
    "PNA": lambda: _conv(g.PNA(F, H, num_layers=2, aggregators=["mean", "max"], scalers=["identity"],
                               deg=_pna_degree())),
    "EdgeCNN": lambda: _conv(g.EdgeCNN(F, H, num_layers=2)),
    "GraphUNet": lambda: (g.GraphUNet(F, H, 4, depth=2), (X, EI, B), {}),
    "AttentiveFP": lambda: (g.AttentiveFP(F, H, 4, edge_dim=4, num_layers=2, num_timesteps=2), (X, EI, EA, B), {}),
    "LINKX": lambda: (g.LINKX(N, F, H, 4, num_layers=2), (X, EI), {}),
    "PMLP": lambda: (g.PMLP(F, H, 4, num_layers=2), (X, EI), {}),
    "LabelPropagation": lambda: (g.LabelPropagation(num_layers=2, alpha=0.9), (torch.randint(0, 3, (N,)), EI),
                                 {"mask": torch.arange(N) < 6}),
    "DeepGCNLayer": lambda: _conv(g.DeepGCNLayer(g.GENConv(F, F), nn.LayerNorm(F), nn.ReLU(), block="res+")),
    "JumpingKnowledge": lambda: (g.JumpingKnowledge("lstm", channels=F, num_layers=2), ([X, X, X],), {}),
    "GAE": lambda: (_GAE(), (X, EI), {}),
    "MLP": lambda: (g.MLP([F, H, 4], norm="batch_norm"), (X,), {"batch": B}),
    "RECT_L": lambda: _conv(g.RECT_L(F, H)),
    "LightGCN": lambda: (g.LightGCN(N, H, num_layers=2), (EI,), {}),
    "TopKPooling": lambda: (_Pool(g.TopKPooling(F, ratio=0.5)), (X, EI, B), {}),
    "SAGPooling": lambda: (_Pool(g.SAGPooling(F, ratio=0.5)), (X, EI, B), {}),
    "EdgePooling": lambda: (_Pool(g.EdgePooling(F)), (X, EI, B), {}),
    "ASAPooling": lambda: (_Pool(g.ASAPooling(F, ratio=0.5)), (X, EI, B), {}),
    "MemPooling": lambda: (g.MemPooling(F, H, heads=2, num_clusters=3), (X, B), {}),
    "global_pools": lambda: (_GlobalPools(), (X, B), {}),
    "SoftmaxAggregation": lambda: (g.aggr.SoftmaxAggregation(learn=True), (X, B), {}),
    "PowerMeanAggregation": lambda: (g.aggr.PowerMeanAggregation(learn=True), (X, B), {}),
    "MultiAggregation": lambda: (g.aggr.MultiAggregation(["mean", "max", "std"]), (X, B), {}),
    "Set2Set": lambda: (g.aggr.Set2Set(F, processing_steps=2), (X, B), {}),
    "AttentionalAggregation": lambda: (g.aggr.AttentionalAggregation(nn.Linear(F, 1)), (X, B), {}),
    "SortAggregation": lambda: (g.aggr.SortAggregation(k=4), (X, B), {}),
    "GRUAggregation": lambda: (g.aggr.GRUAggregation(F, H), (X, B), {}),
    "LSTMAggregation": lambda: (g.aggr.LSTMAggregation(F, H), (X, B), {}),
    "SetTransformerAggregation": lambda: (g.aggr.SetTransformerAggregation(F, heads=2), (X, B), {}),
    "GraphMultisetTransformer": lambda: (g.aggr.GraphMultisetTransformer(F, k=2, heads=2), (X, B), {}),
    "MLPAggregation": lambda: (g.aggr.MLPAggregation(F, H, max_num_elements=6, num_layers=1), (X, B), {}),
    "VarAggregation": lambda: (g.aggr.VarAggregation(), (X, B), {}),
    "BatchNorm": lambda: (g.BatchNorm(F), (X,), {}),
    "LayerNorm": lambda: (g.LayerNorm(F, mode="graph"), (X, B), {}),
    "GraphNorm": lambda: (g.GraphNorm(F), (X, B), {}),
    "InstanceNorm": lambda: (g.InstanceNorm(F), (X, B), {}),
    "PairNorm": lambda: (g.PairNorm(), (X, B), {}),
    "DiffGroupNorm": lambda: (g.DiffGroupNorm(F, groups=3), (X,), {}),
    "MessageNorm": lambda: (g.MessageNorm(learn_scale=True), (X, X), {}),
    "GraphSizeNorm": lambda: (g.GraphSizeNorm(), (X, B), {}),
    "MeanSubtractionNorm": lambda: (g.MeanSubtractionNorm(), (X, B), {}),
}


class _GAE(nn.Module):
    """A graph auto-encoder: GCN encoder, inner-product decoder over the edges."""

    def __init__(self) -> None:
        super().__init__()
        self.gae = g.GAE(g.GCN(F, H, num_layers=2))

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        z = self.gae.encode(x, edge_index)
        return self.gae.recon_loss(z, edge_index)

    def entry_points(self) -> list[Callable[..., Any]]:
        return [self.gae.encode, self.gae.recon_loss]



def _util(name: str, *args: Any, **static: Any) -> Callable[[], Built]:
    return library_call("torch_geometric.utils", name, *args, **static)


# Graph utilities a model's forward calls (the break-rich part of the library): each compiled alone.
UTILS: dict[str, Callable[[], Built]] = {
    "utils.to_dense_batch": _util("to_dense_batch", X, B),
    "utils.to_dense_adj": _util("to_dense_adj", EI, B),
    "utils.dense_to_sparse": _util("dense_to_sparse", torch.rand(2, 4, 4)),
    "utils.dropout_edge": _util("dropout_edge", EI, p=0.3),
    "utils.dropout_node": _util("dropout_node", EI, p=0.3),
    "utils.subgraph": _util("subgraph", torch.arange(6), EI),
    "utils.k_hop_subgraph": _util("k_hop_subgraph", torch.tensor([0]), 2, EI),
    "utils.remove_self_loops": _util("remove_self_loops", EI, EW),
    "utils.add_remaining_self_loops": _util("add_remaining_self_loops", EI, EW),
    "utils.segregate_self_loops": _util("segregate_self_loops", EI),
    "utils.coalesce": _util("coalesce", EI, EW),
    "utils.sort_edge_index": _util("sort_edge_index", EI),
    "utils.to_undirected": _util("to_undirected", EI),
    "utils.is_undirected": _util("is_undirected", EI),
    "utils.contains_isolated_nodes": _util("contains_isolated_nodes", EI),
    "utils.remove_isolated_nodes": _util("remove_isolated_nodes", EI),
    "utils.get_laplacian": _util("get_laplacian", EI, EW, normalization="sym"),
    "utils.softmax": _util("softmax", EW, EI[1]),
    "utils.degree": _util("degree", EI[0]),
    "utils.unbatch": _util("unbatch", X, B),
    "utils.unbatch_edge_index": _util("unbatch_edge_index", EI, B),
    "utils.one_hot": _util("one_hot", ET),
    "utils.homophily": _util("homophily", EI, ET[:N] if E >= N else ET),
    "utils.mask_feature": _util("mask_feature", X, p=0.3),
    "utils.add_random_edge": _util("add_random_edge", EI, p=0.3),
    "utils.negative_sampling": _util("negative_sampling", EI),
    "utils.batched_negative_sampling": _util("batched_negative_sampling", EI, B),
    "utils.structured_negative_sampling": _util("structured_negative_sampling", EI),
    "utils.shuffle_node": _util("shuffle_node", X, B),
    "utils.index_to_mask": _util("index_to_mask", torch.tensor([1, 3, 5])),
    "utils.mask_to_index": _util("mask_to_index", torch.arange(N) % 2 == 0),
    "utils.normalized_cut": _util("normalized_cut", EI, EW),
    "utils.scatter_max": _util("scatter", X, B, reduce="max"),
    "utils.group_argsort": _util("group_argsort", EW, EI[0]),
    "utils.cumsum": _util("cumsum", EW),
}
BUILDERS.update(UTILS)


def _dense() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The batch as dense node features, adjacency and node mask (what dense layers and pools take)."""
    from torch_geometric.utils import to_dense_adj, to_dense_batch

    dense, mask = to_dense_batch(X, B)
    return dense, to_dense_adj(EI, B), mask


def _dense_layer(module: nn.Module) -> Callable[[], Built]:
    def build() -> Built:
        dense, adj, mask = _dense()
        return module, (dense, adj, mask), {}
    return build


def _dense_pool(name: str) -> Callable[[], Built]:
    def build() -> Built:
        dense, adj, mask = _dense()
        return library_call("torch_geometric.nn", name, dense, adj, torch.randn(*dense.shape[:2], 3), mask)()
    return build


# More of the library (issue 22): utilities, dense layers and pools, aggregations, flags and models.
EXTRA: dict[str, Callable[[], Built]] = {
    "utils.add_self_loops": _util("add_self_loops", EI, EW),
    "utils.contains_self_loops": _util("contains_self_loops", EI),
    "utils.bipartite_subgraph": _util("bipartite_subgraph", (torch.arange(4), torch.arange(6)), EI, size=(N, N)),
    "utils.map_index": library_call("torch_geometric.utils.map", "map_index", torch.tensor([1, 3, 5]),
                                    torch.arange(0, N, 1)),
    "utils.index_sort": _util("index_sort", EI[0]),
    "utils.lexsort": _util("lexsort", [EI[0], EI[1]]),
    "utils.erdos_renyi_graph": _util("erdos_renyi_graph", N, 0.3),
    "utils.stochastic_blockmodel_graph": _util("stochastic_blockmodel_graph", torch.tensor([4, 4]),
                                               torch.tensor([[0.5, 0.1], [0.1, 0.5]])),
    "utils.barabasi_albert_graph": _util("barabasi_albert_graph", N, 2),
    "utils.grid": _util("grid", 3, 4),
    "utils.to_nested_tensor": _util("to_nested_tensor", X, B),
    "utils.select": _util("select", X, torch.arange(N) % 2 == 0, 0),
    "utils.narrow": _util("narrow", X, 0, 2, 4),
    "utils.to_torch_coo_tensor": _util("to_torch_coo_tensor", EI, EW),
    "utils.to_torch_csr_tensor": _util("to_torch_csr_tensor", EI, EW),
    "utils.get_self_loop_attr": _util("get_self_loop_attr", EI, EW),
    "utils.assortativity": _util("assortativity", EI),
    "utils.get_mesh_laplacian": _util("get_mesh_laplacian", POS, torch.tensor([[0, 1, 2], [1, 2, 3], [2, 3, 4]]).T),
    "DenseGCNConv": _dense_layer(g.DenseGCNConv(F, H)),
    "DenseSAGEConv": _dense_layer(g.DenseSAGEConv(F, H)),
    "DenseGINConv": _dense_layer(g.DenseGINConv(_mlp(F, H))),
    "DenseGraphConv": _dense_layer(g.DenseGraphConv(F, H)),
    "DenseGATConv": _dense_layer(g.DenseGATConv(F, H, heads=2)),
    "DMoNPooling": _dense_layer(g.DMoNPooling([F, H], k=3)),
    "dense_diff_pool": _dense_pool("dense_diff_pool"),
    "dense_mincut_pool": _dense_pool("dense_mincut_pool"),
    "MedianAggregation": lambda: (g.aggr.MedianAggregation(), (X, B), {}),
    "QuantileAggregation": lambda: (g.aggr.QuantileAggregation([0.25, 0.75]), (X, B), {}),
    "EquilibriumAggregation": lambda: (g.aggr.EquilibriumAggregation(F, H, num_layers=[8]), (X, B), {}),
    "LCMAggregation": lambda: (g.aggr.LCMAggregation(F, H), (X, B), {}),
    "VariancePreservingAggregation": lambda: (g.aggr.VariancePreservingAggregation(), (X, B), {}),
    "PatchTransformerAggregation": lambda: (g.aggr.PatchTransformerAggregation(F, H, patch_size=2,
                                                                               hidden_channels=8), (X, B), {}),
    "GATConv.return_attention_weights": lambda: _conv(g.GATConv(F, H, heads=2), return_attention_weights=True),
    "TransformerConv.return_attention_weights": lambda: _conv(g.TransformerConv(F, H, heads=2),
                                                              return_attention_weights=True),
    "DirGNNConv": lambda: _conv(g.DirGNNConv(g.GCNConv(F, H))),
    "WLConv": lambda: (g.WLConv(), (ET[:N], EI), {}),
    "PointGNNConv": lambda: (g.PointGNNConv(_mlp(F, 3), _mlp(3 + F, F), _mlp(F, F)), (X, POS, EI), {}),
    "MaskLabel": lambda: (g.MaskLabel(3, F), (X, ET[:N], torch.arange(N) % 2 == 0), {}),
    "CorrectAndSmooth": lambda: (_Method(g.CorrectAndSmooth(2, 0.5, 2, 0.5), "correct"),
                                 (torch.randn(N, 3).softmax(-1), ET[:6], torch.arange(6), EI), {}),
    "avg_pool_x": library_call("torch_geometric.nn", "avg_pool_x", B, X, B),
    "max_pool_x": library_call("torch_geometric.nn", "max_pool_x", B, X, B),
    "ClusterPooling": lambda: (_Pool(g.ClusterPooling(F)), (X, EI, B), {}),
}


class _Method(nn.Module):
    """One method of a parameter-free helper object as the forward (``CorrectAndSmooth.correct``)."""

    def __init__(self, owner: Any, name: str) -> None:
        super().__init__()
        self.owner, self.name = owner, name

    def forward(self, *args: Any) -> Any:
        return getattr(self.owner, self.name)(*args)

    def entry_points(self) -> list[Callable[..., Any]]:
        return [getattr(type(self.owner), self.name)]


BUILDERS.update(EXTRA)
