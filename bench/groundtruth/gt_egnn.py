"""Ground-truth bench, egnn_pytorch (egnn-pytorch): E(n)-equivariant graph networks, dense and sparse.

egnn-pytorch (lucidrains) implements the E(n)-equivariant GNN of Satorras et al.: each layer builds
messages from pairs of node features and their squared distance, updates the coordinates along the
relative positions and the features from the pooled messages. The models of the tables are:

- ``LAYER``: the dense ``EGNN`` layer on a batch of point clouds (features, coordinates, optional edge
  features, node mask and adjacency matrix) in the configurations that change its code path: all pairs,
  with a mask and with edge features; nearest neighbours (plain, masked, with edges, with an adjacency
  matrix that ranks bonded nodes first, with a valid radius); only the sparse neighbours of an
  adjacency matrix (batched or 2-D, masked), whose neighbour count is read from the matrix; Fourier
  features of the distance; feature and coordinate normalisation; features or coordinates not updated;
  mean pooling of the messages (plain and masked); soft edges; clamped coordinate weights; dropout;
- ``NETWORK``: ``EGNN_Network`` (stacked layers with normalised features): continuous features, token and
  position embeddings, edge tokens and continuous edges, adjacency degrees with and without an
  adjacency embedding, global linear attention every layer or every other one (with a mask), nearest and
  sparse neighbours passed through to the layers, the coordinate changes returned, and a train step
  (a loss on the features and coordinates, ``backward``, an Adam step);
- ``PARTS``: the helpers users call on their own: ``GlobalLinearAttention`` (with and without a mask),
  ``CoorsNorm``, ``fourier_encode_dist``, ``batched_index_select``, ``embedd_token``, the rotation
  ``utils.rot`` and an equivariance check (a rotated and translated cloud through the network);
- ``SPARSE``: the PyTorch Geometric variant, ``EGNN_Sparse`` (a ``MessagePassing`` layer on ``[coors,
  feats]`` rows and an edge index: edge attributes, Fourier features, soft edges, normalised features
  per graph of a batch, normalised coordinates, features or coordinates not updated, mean and max
  aggregation) and ``EGNN_Sparse_Network`` (plain, with node and edge token embeddings, with soft edges
  and Fourier features, without feature normalisation). Its global attention needs a name the module
  never defines, so it is left out.

Every model is compiled in eval and in train mode. Tiny sizes: 2 clouds of 6 nodes, width 8, messages
of width 8; random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker
only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, NODES, DIM, M_DIM, EDGE_DIM = 2, 6, 8, 8, 4

# ``EGNN`` layer name -> (constructor keywords, inputs given: a subset of "edges", "mask", "adj", "adj2d").
LAYER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "EGNN": ({}, ()),
    "EGNN.mask": ({}, ("mask",)),
    "EGNN.edges": ({"edge_dim": EDGE_DIM}, ("edges",)),
    "EGNN.nearest": ({"num_nearest_neighbors": 3}, ()),
    "EGNN.nearest.mask": ({"num_nearest_neighbors": 3}, ("mask",)),
    "EGNN.nearest.edges": ({"num_nearest_neighbors": 3, "edge_dim": EDGE_DIM}, ("edges",)),
    "EGNN.nearest.adj_mat": ({"num_nearest_neighbors": 3}, ("adj",)),
    "EGNN.nearest.valid_radius": ({"num_nearest_neighbors": 3, "valid_radius": 1.0}, ("mask",)),
    "EGNN.only_sparse_neighbors": ({"only_sparse_neighbors": True}, ("adj",)),
    "EGNN.only_sparse_neighbors.adj_2d": ({"only_sparse_neighbors": True}, ("adj2d",)),
    "EGNN.only_sparse_neighbors.mask.edges": ({"only_sparse_neighbors": True, "edge_dim": EDGE_DIM},
                                              ("adj", "mask", "edges")),
    "EGNN.fourier_features": ({"fourier_features": 2}, ()),
    "EGNN.nearest.fourier_features": ({"num_nearest_neighbors": 3, "fourier_features": 2}, ()),
    "EGNN.norm_feats.norm_coors": ({"norm_feats": True, "norm_coors": True}, ()),
    "EGNN.no_update_feats": ({"update_feats": False}, ("mask",)),
    "EGNN.no_update_coors": ({"update_coors": False}, ("mask",)),
    "EGNN.mean_pool": ({"m_pool_method": "mean"}, ()),
    "EGNN.mean_pool.mask": ({"m_pool_method": "mean"}, ("mask",)),
    "EGNN.soft_edges": ({"soft_edges": True}, ()),
    "EGNN.coor_weights_clamp": ({"coor_weights_clamp_value": 2.0}, ("mask",)),
    "EGNN.dropout": ({"dropout": 0.1}, ()),
}
# ``EGNN_Network`` name -> (constructor keywords, inputs given: "tokens" for token ids instead of features,
# "edge_tokens", "edges", "mask", "adj", "adj2d", "coor_changes").
NETWORK: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "EGNN_Network": ({}, ()),
    "EGNN_Network.tokens.positions": ({"num_tokens": 10, "num_positions": 8}, ("tokens",)),
    "EGNN_Network.edge_tokens": ({"num_edge_tokens": 3, "edge_dim": EDGE_DIM}, ("edge_tokens",)),
    "EGNN_Network.edges.mask": ({"edge_dim": EDGE_DIM}, ("edges", "mask")),
    "EGNN_Network.adj_degrees": ({"num_adj_degrees": 2, "num_nearest_neighbors": 3}, ("adj",)),
    "EGNN_Network.adj_degrees.adj_dim": ({"num_adj_degrees": 3, "adj_dim": 4, "num_nearest_neighbors": 3},
                                         ("adj",)),
    "EGNN_Network.adj_degrees.adj_dim.edges.adj_2d": ({"num_adj_degrees": 2, "adj_dim": 4, "edge_dim": EDGE_DIM,
                                                       "num_nearest_neighbors": 3}, ("adj2d", "edges")),
    "EGNN_Network.only_sparse_neighbors": ({"only_sparse_neighbors": True, "num_adj_degrees": 2, "adj_dim": 2},
                                           ("adj",)),
    "EGNN_Network.global_linear_attn": ({"global_linear_attn_every": 1, "global_linear_attn_heads": 2,
                                         "global_linear_attn_dim_head": 4, "num_global_tokens": 2}, ()),
    "EGNN_Network.global_linear_attn.every_2.mask": ({"global_linear_attn_every": 2, "global_linear_attn_heads": 2,
                                                      "global_linear_attn_dim_head": 4}, ("mask",)),
    "EGNN_Network.nearest.mask": ({"num_nearest_neighbors": 3}, ("mask",)),
    "EGNN_Network.fourier.soft_edges.mean_pool": ({"fourier_features": 2, "soft_edges": True,
                                                   "m_pool_method": "mean"}, ("mask",)),
    "EGNN_Network.return_coor_changes": ({"norm_coors": True}, ("coor_changes",)),
    "EGNN_Network.train_step": ({"num_nearest_neighbors": 3}, ("mask",)),
}
PARTS = (
    "GlobalLinearAttention", "GlobalLinearAttention.mask", "CoorsNorm", "fourier_encode_dist",
    "batched_index_select", "embedd_token", "utils.rot", "equivariance",
)
# ``EGNN_Sparse`` / ``EGNN_Sparse_Network`` name -> (constructor keywords, inputs: "edge_attr", "batch").
SPARSE: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "EGNN_Sparse": ({}, ()),
    "EGNN_Sparse.edge_attr": ({"edge_attr_dim": EDGE_DIM}, ("edge_attr",)),
    "EGNN_Sparse.fourier.soft_edge": ({"fourier_features": 2, "soft_edge": 1}, ()),
    "EGNN_Sparse.norm_feats.batch": ({"norm_feats": True}, ("batch",)),
    "EGNN_Sparse.norm_coors": ({"norm_coors": True}, ()),
    "EGNN_Sparse.no_update_coors": ({"update_coors": False}, ()),
    "EGNN_Sparse.no_update_feats": ({"update_feats": False}, ()),
    "EGNN_Sparse.aggr_mean": ({"aggr": "mean"}, ()),
    "EGNN_Sparse.aggr_max.dropout": ({"aggr": "max", "dropout": 0.1}, ()),
    "EGNN_Sparse_Network": ({"n_layers": 2, "edge_attr_dim": EDGE_DIM}, ("edge_attr", "batch")),
    "EGNN_Sparse_Network.embeddings": ({"n_layers": 2, "edge_attr_dim": 1, "embedding_nums": [5],
                                        "embedding_dims": [4], "edge_embedding_nums": [3],
                                        "edge_embedding_dims": [2]}, ("edge_tokens", "batch", "node_tokens")),
    "EGNN_Sparse_Network.soft_edge.fourier": ({"n_layers": 2, "edge_attr_dim": EDGE_DIM, "soft_edge": 1,
                                               "fourier_features": 2, "aggr": "mean"}, ("edge_attr", "batch")),
    "EGNN_Sparse_Network.no_norm_feats": ({"n_layers": 2, "edge_attr_dim": EDGE_DIM, "norm_feats": False,
                                           "norm_coors": True}, ("edge_attr", "batch")),
}


def names() -> list[str]:
    return list(LAYER) + list(NETWORK) + list(PARTS) + list(SPARSE)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _cloud(seed: int = 1) -> tuple[Any, Any]:
    import torch

    gen = _gen(seed)
    return torch.randn(BATCH, NODES, DIM, generator=gen), torch.randn(BATCH, NODES, 3, generator=gen)


def _mask() -> Any:
    import torch

    mask = torch.ones(BATCH, NODES, dtype=torch.bool)
    mask[1, -2:] = False
    return mask


def _adj(batched: bool = True) -> Any:
    """A chain of bonds (i, i + 1), symmetric; the second cloud has one more bond."""
    from gt_point_clouds import chain_bonds

    return chain_bonds(NODES, BATCH if batched else None)


def _edges(kind: str) -> Any:
    import torch

    gen = _gen(4)
    if kind == "edge_tokens":
        return torch.randint(0, 3, (BATCH, NODES, NODES), generator=gen)
    return torch.randn(BATCH, NODES, NODES, EDGE_DIM, generator=gen)


def _layer(name: str) -> Built:
    from egnn_pytorch import EGNN

    from gt_calls import Keywords

    keywords, given = LAYER[name]
    layer = EGNN(dim=DIM, m_dim=M_DIM, **keywords)
    feats, coors = _cloud()
    static: dict[str, Any] = {}
    if "edges" in given:
        static["edges"] = _edges("edges")
    if "mask" in given:
        static["mask"] = _mask()
    if "adj" in given or "adj2d" in given:
        static["adj_mat"] = _adj("adj" in given)
    return (Keywords(layer, **static) if static else layer), (feats, coors), {}


def _network(name: str) -> Built:
    import torch
    from egnn_pytorch import EGNN_Network

    from gt_calls import Keywords, Run

    keywords, given = NETWORK[name]
    net = EGNN_Network(depth=2, dim=DIM, m_dim=M_DIM, **keywords)
    feats, coors = _cloud()
    if "tokens" in given:
        feats = torch.randint(0, 10, (BATCH, NODES), generator=_gen(5))
    static: dict[str, Any] = {}
    for kind in ("edges", "edge_tokens"):
        if kind in given:
            static["edges"] = _edges(kind)
    if "mask" in given:
        static["mask"] = _mask()
    if "adj" in given or "adj2d" in given:
        static["adj_mat"] = _adj("adj" in given)
    if "coor_changes" in given:
        static["return_coor_changes"] = True
    if name.endswith("train_step"):
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        target = torch.randn(BATCH, NODES, 3, generator=_gen(6))

        def step(owner: Any, feats_: Any, coors_: Any) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                out_feats, out_coors = owner(feats_, coors_, **static)
                loss = (out_coors - target).pow(2).mean() + out_feats.pow(2).mean() * 1e-3
                loss.backward()
                optimizer.step()
                return loss.detach()

        return Run(net, step, [EGNN_Network]), (feats, coors), {}
    return (Keywords(net, **static) if static else net), (feats, coors), {}


def _parts(name: str) -> Built:
    import torch
    from egnn_pytorch import EGNN_Network, egnn_pytorch as ep
    from egnn_pytorch import utils

    from gt_calls import Call, Keywords, Run

    gen = _gen(7)
    feats, coors = _cloud()
    if name.startswith("GlobalLinearAttention"):
        attention = ep.GlobalLinearAttention(dim=DIM, heads=2, dim_head=4)
        queries = torch.randn(BATCH, 3, DIM, generator=gen)
        if name.endswith("mask"):
            return Keywords(attention, mask=_mask()), (feats, queries), {}
        return attention, (feats, queries), {}
    if name == "CoorsNorm":
        return ep.CoorsNorm(scale_init=0.5), (torch.randn(BATCH, NODES, NODES, 3, generator=gen),), {}
    if name == "fourier_encode_dist":
        return Call(ep.fourier_encode_dist, num_encodings=3), (torch.rand(BATCH, NODES, NODES, 1, generator=gen),), {}
    if name == "batched_index_select":
        indices = torch.randint(0, NODES, (BATCH, NODES, 3), generator=gen)
        return Call(ep.batched_index_select, dim=1), (feats, indices), {}
    if name == "embedd_token":
        layers = torch.nn.ModuleList([torch.nn.Embedding(5, 3), torch.nn.Embedding(4, 2)])
        x = torch.cat([torch.randn(NODES, 4, generator=gen), torch.randint(0, 4, (NODES, 2), generator=gen).float()],
                      dim=-1)
        return Run(layers, lambda owner, x_: ep.embedd_token(x_, [3, 2], owner), [ep.embedd_token]), (x,), {}
    angles = torch.tensor([0.3, -1.1, 2.0])
    if name == "utils.rot":
        return Run(torch.nn.Identity(), lambda owner, a: utils.rot(*a.unbind(0)), [utils.rot]), (angles,), {}
    net = EGNN_Network(depth=2, dim=DIM, m_dim=M_DIM, num_nearest_neighbors=3)

    def equivariance(owner: Any, feats_: Any, coors_: Any, angles_: Any) -> Any:
        """Features invariant and coordinates equivariant under a rotation and a translation."""
        rotation = utils.rot(*angles_.unbind(0))
        shift = torch.ones(1, 1, 3)
        feats1, coors1 = owner(feats_, coors_ @ rotation + shift)
        feats2, coors2 = owner(feats_, coors_)
        return (feats1 - feats2).abs().max(), (coors1 - (coors2 @ rotation + shift)).abs().max()

    return Run(net, equivariance, [utils.rot, EGNN_Network]), (feats, coors, angles), {}


def _sparse(name: str) -> Built:
    import torch
    from egnn_pytorch import EGNN_Sparse, EGNN_Sparse_Network

    from gt_calls import Keywords

    keywords, given = SPARSE[name]
    gen = _gen(8)
    nodes = BATCH * NODES
    x = torch.cat([torch.randn(nodes, 3, generator=gen), torch.randn(nodes, DIM, generator=gen)], dim=-1)
    src = torch.arange(nodes)
    dst = torch.where(src % NODES == NODES - 1, src - NODES + 1, src + 1)  # a ring in each graph
    edge_index = torch.cat([torch.stack([src, dst]), torch.stack([dst, src])], dim=1)
    edges = edge_index.shape[1]
    batch = torch.arange(BATCH).repeat_interleave(NODES)
    edge_attr = torch.randn(edges, EDGE_DIM, generator=gen)
    if name.startswith("EGNN_Sparse_Network"):
        net = EGNN_Sparse_Network(feats_dim=DIM, m_dim=M_DIM, **keywords)
        if "node_tokens" in given:
            x = torch.cat([x[:, :-1], torch.randint(0, 5, (nodes, 1), generator=gen).float()], dim=-1)
        if "edge_tokens" in given:
            edge_attr = torch.randint(0, 3, (edges, 1), generator=gen).float()
        return net, (x, edge_index, batch, edge_attr), {}
    layer = EGNN_Sparse(feats_dim=DIM, m_dim=M_DIM, **keywords)
    static: dict[str, Any] = {}
    if "edge_attr" in given:
        static["edge_attr"] = edge_attr
    if "batch" in given:
        static["batch"] = batch
    return (Keywords(layer, **static) if static else layer), (x, edge_index), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in LAYER:
        return _layer(name)
    if name in NETWORK:
        return _network(name)
    if name in PARTS:
        return _parts(name)
    if name in SPARSE:
        return _sparse(name)
    raise KeyError(name)
