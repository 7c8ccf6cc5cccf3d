"""Ground-truth bench, graph_transformer_pytorch: the graph transformer with edge-aware attention (lucidrains).

graph-transformer-pytorch 0.1.1 exports ``GraphTransformer``: layers of pre-normed ``Attention`` whose keys and
values each receive the projected edge features of their node pair (optionally rotated by a rotary embedding of
the node index, ``rel_pos_emb``), with a padding mask over nodes, each followed by a ``GatedResidual`` (a sigmoid
gate over the output, the residual and their difference) and optionally a gated feedforward. Edges may be given as
features, as an adjacency matrix embedded by ``accept_adjacency_matrix`` (two learned edge types), or both, and
are layer-normed by ``norm_edges``. The tables cover, at 6 nodes of width 16, edges of 16 (8 where ``edge_dim``
differs), a batch of 2:

- ``GRAPH``: ``GraphTransformer`` forward: edges and a node mask, no mask, feedforwards, normed edges, rotary
  positions, an adjacency matrix alone or added to edge features, another edge width, one head, one layer, a batch
  of one, every option at once;
- ``PARTS``: ``Attention`` (with a mask, with rotary positions), ``PreNorm`` around it, ``GatedResidual``,
  ``Residual`` and the ``FeedForward`` factory's network;
- ``TRAIN``: training steps: a regression of node features with an Adam step (edges and a mask, an adjacency
  matrix with feedforwards and rotary positions), and a node classification through a linear head with SGD.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, NODES, DIM, EDGE, CLASSES = 2, 6, 16, 8, 4
BASE: dict[str, Any] = {"dim": DIM, "depth": 2, "dim_head": 8, "heads": 2}
# Model name -> (keywords over ``BASE``, inputs: any of "edges", "adj", "mask", batch).
GRAPH: dict[str, tuple[dict[str, Any], tuple[str, ...], int]] = {
    "GraphTransformer": ({}, ("edges", "mask"), BATCH),
    "GraphTransformer.no_mask": ({}, ("edges",), BATCH),
    "GraphTransformer.with_feedforwards": ({"with_feedforwards": True}, ("edges", "mask"), BATCH),
    "GraphTransformer.norm_edges": ({"norm_edges": True}, ("edges", "mask"), BATCH),
    "GraphTransformer.rel_pos_emb": ({"rel_pos_emb": True}, ("edges", "mask"), BATCH),
    "GraphTransformer.rel_pos_emb.no_mask": ({"rel_pos_emb": True, "with_feedforwards": True}, ("edges",), BATCH),
    "GraphTransformer.adjacency": ({"accept_adjacency_matrix": True}, ("adj",), BATCH),
    "GraphTransformer.adjacency.mask": ({"accept_adjacency_matrix": True}, ("adj", "mask"), BATCH),
    "GraphTransformer.adjacency.edges": ({"accept_adjacency_matrix": True, "norm_edges": True},
                                         ("edges", "adj", "mask"), BATCH),
    "GraphTransformer.edge_dim": ({"edge_dim": EDGE}, ("edges", "mask"), BATCH),
    "GraphTransformer.heads1": ({"heads": 1, "dim_head": 16}, ("edges",), BATCH),
    "GraphTransformer.depth1": ({"depth": 1}, ("edges", "mask"), BATCH),
    "GraphTransformer.batch1": ({}, ("edges", "mask"), 1),
    "GraphTransformer.gated_residual_false": ({"gated_residual": False}, ("edges",), BATCH),
    "GraphTransformer.everything": ({"edge_dim": EDGE, "with_feedforwards": True, "norm_edges": True,
                                     "rel_pos_emb": True, "accept_adjacency_matrix": True},
                                    ("edges", "adj", "mask"), BATCH),
}
PARTS = ("Attention", "Attention.mask", "Attention.rotary.mask", "Attention.edge_dim", "PreNorm.Attention",
         "GatedResidual", "Residual", "FeedForward")
TRAIN = ("train.GraphTransformer.adam", "train.GraphTransformer.adjacency.adam",
         "train.GraphTransformer.node_classification.sgd")


def names() -> list[str]:
    return [*GRAPH, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(batch: int = BATCH) -> Any:
    import torch

    mask = torch.ones(batch, NODES, dtype=torch.bool)
    mask[-1, -2:] = False
    return mask


def _adjacency(batch: int = BATCH) -> Any:
    import torch

    adj = torch.rand(batch, NODES, NODES, generator=torch.Generator().manual_seed(5)) > 0.5
    return (adj | adj.transpose(1, 2)).long()


def _inputs(keywords: dict[str, Any], inputs: tuple[str, ...], batch: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
    edge_dim = keywords.get("edge_dim", DIM)
    kwargs: dict[str, Any] = {}
    if "edges" in inputs:
        kwargs["edges"] = _randn(batch, NODES, NODES, edge_dim, seed=2)
    if "adj" in inputs:
        kwargs["adj_mat"] = _adjacency(batch)
    if "mask" in inputs:
        kwargs["mask"] = _mask(batch)
    return (_randn(batch, NODES, DIM),), kwargs


def _graph(name: str) -> Built:
    from graph_transformer_pytorch import GraphTransformer

    keywords, inputs, batch = GRAPH[name]
    args, kwargs = _inputs(keywords, inputs, batch)
    return GraphTransformer(**{**BASE, **keywords}), args, kwargs


def _part(name: str) -> Built:
    from graph_transformer_pytorch import graph_transformer_pytorch as g
    from rotary_embedding_torch import RotaryEmbedding

    from gt_calls import Keywords

    nodes = _randn(BATCH, NODES, DIM)
    edges = _randn(BATCH, NODES, NODES, DIM, seed=2)
    if name.startswith("Attention"):
        pos_emb = RotaryEmbedding(8) if ".rotary" in name else None
        edge_dim = EDGE if name.endswith("edge_dim") else None
        attention = g.Attention(DIM, pos_emb=pos_emb, dim_head=8, heads=2, edge_dim=edge_dim)
        if edge_dim is not None:
            edges = _randn(BATCH, NODES, NODES, EDGE, seed=2)
        if name.endswith("mask"):
            return Keywords(attention, mask=_mask()), (nodes, edges), {}
        return attention, (nodes, edges), {}
    if name == "PreNorm.Attention":
        return g.PreNorm(DIM, g.Attention(DIM, dim_head=8, heads=2)), (nodes, edges), {"mask": _mask()}
    if name == "GatedResidual":
        return g.GatedResidual(DIM), (nodes, _randn(BATCH, NODES, DIM, seed=3)), {}
    if name == "Residual":
        return g.Residual(), (nodes, _randn(BATCH, NODES, DIM, seed=3)), {}
    return g.FeedForward(DIM, ff_mult=2), (nodes,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from graph_transformer_pytorch import GraphTransformer
    from torch import nn

    from gt_calls import Run

    if name == "train.GraphTransformer.adjacency.adam":
        keywords: dict[str, Any] = {"accept_adjacency_matrix": True, "with_feedforwards": True, "rel_pos_emb": True}
        args, kwargs = _inputs(keywords, ("adj", "mask"), BATCH)
    else:
        keywords = {}
        args, kwargs = _inputs(keywords, ("edges", "mask"), BATCH)
    model = GraphTransformer(**{**BASE, **keywords})
    if name.endswith("sgd"):
        net: nn.Module = nn.ModuleDict({"graph": model, "head": nn.Linear(DIM, CLASSES)})
        optimizer: Any = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        target = torch.randint(0, CLASSES, (BATCH, NODES), generator=torch.Generator().manual_seed(4))
    else:
        net = nn.ModuleDict({"graph": model})
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        target = _randn(BATCH, NODES, DIM, seed=4)
    edges, adj_mat, mask = kwargs.get("edges"), kwargs.get("adj_mat"), kwargs["mask"]

    def step(owner: Any, nodes: torch.Tensor) -> torch.Tensor:
        """The masked loss of the nodes' outputs, its gradients and an optimizer step."""
        out, _ = owner["graph"](nodes, edges, adj_mat=adj_mat, mask=mask)
        if "head" in owner:
            losses = F.cross_entropy(owner["head"](out).transpose(1, 2), target, reduction="none")
        else:
            losses = F.mse_loss(out, target, reduction="none").mean(-1)
        loss = (losses * mask).sum() / mask.sum()
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(net, step, [GraphTransformer]), args, {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in GRAPH:
        return _graph(name)
    if name in PARTS:
        return _part(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
