"""Ground-truth bench, en_transformer (En-transformer): the E(n)-equivariant transformer and its attention.

En-transformer (lucidrains) is an E(n)-equivariant transformer for point clouds (molecules, proteins): each
``EquivariantAttention`` layer attends with negative squared query-key distances plus a dynamic bias of the
pairwise (and optionally sequence) distance, updates the coordinates along the normalised relative positions
weighted by a coordinate MLP, optionally restricted to the nearest neighbours, to the bonds of an adjacency
matrix, to a valid radius, with edge features, cross products of relative positions, talking heads, output
gates and a global Taylor-series linear attention beside it; ``EnTransformer`` stacks those with GEGLU
feed-forwards, token and edge-token embeddings, adjacency degrees with an embedding, and checkpointing. The
tables cover, at width 16, 2 heads of 32 (the network asserts at least 32), 2 clouds of 8 points:

- ``NETWORK``: ``EnTransformer`` forward (one layer, or two): continuous features or tokens, all pairs or
  nearest neighbours (with a mask, a valid radius), continuous edges (all pairs, and with neighbours and a mask)
  and edge tokens (all pairs and with neighbours), adjacency degrees (with and without the adjacency
  embedding, with a mask, with edges, batched and 2-D matrices), only the sparse neighbours of the adjacency
  (plain, with a mask and edges), sequence positions in the bias (all pairs on one cloud: over all pairs they
  broadcast over a batch of one only; with neighbours and a mask), cross products (with and without
  neighbours and a mask), talking heads, no normalised relative coordinates, no output gates, global linear
  attention heads (with and without a mask), dropout, checkpointing across blocks (train mode), the
  coordinate changes returned (the network held in eval mode, which that option requires), train steps
  (``backward`` and an Adam step; with neighbours and a mask, and with adjacency degrees and edges) and an
  equivariance check (a rotated and translated cloud through the network, the rotation built by
  ``utils.rot`` inside the compiled code);
- ``ATTENTION``: ``EquivariantAttention`` alone, at 2 heads of 8: all pairs, neighbours with a mask, edges,
  a 2-D adjacency matrix with neighbours, sparse neighbours with a mask, cross products with neighbours,
  sequence positions with neighbours, a linear attention head with a mask;
- ``PARTS``: ``DynamicPositionBias`` (one and two inputs), ``CoorsNorm``, ``LayerNorm``, ``FeedForward``,
  ``GEGLU``, ``Residual`` around a feed-forward, ``Block`` (attention and feed-forward over the tuple it
  passes on), and the rotations of ``utils`` (``rot``, ``rot_z``, ``rot_y``) through ``gt_calls.Call``.

Every model is compiled in eval and in train mode. Random weights, nothing downloaded. ``names()`` needs no
torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, NODES, DIM, HEADS, DIM_HEAD, EDGE_DIM, TOKENS, EDGE_TOKENS = 2, 8, 16, 2, 32, 4, 10, 3
BASE: dict[str, Any] = {"dim": DIM, "depth": 1, "heads": HEADS, "dim_head": DIM_HEAD, "coors_hidden_dim": 8}
NEAREST: dict[str, Any] = {"neighbors": 3}
ADJ: dict[str, Any] = {"num_adj_degrees": 2, "adj_dim": 4, "neighbors": 1}
SPARSE: dict[str, Any] = {"only_sparse_neighbors": True, "adj_dim": 2}

# ``EnTransformer`` name -> (keywords over ``BASE``, inputs given: a subset of "tokens" (token ids instead of
# features), "one_cloud" (a batch of one), "edges", "edge_tokens", "mask", "adj", "adj2d", "coor_changes").
NETWORK: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "EnTransformer": ({}, ()),
    "EnTransformer.depth2": ({"depth": 2}, ()),
    "EnTransformer.tokens": ({"num_tokens": TOKENS}, ("tokens",)),
    "EnTransformer.neighbors": (NEAREST, ()),
    "EnTransformer.neighbors.mask": (NEAREST, ("mask",)),
    "EnTransformer.neighbors.valid_radius.mask": ({**NEAREST, "valid_neighbor_radius": 1.5}, ("mask",)),
    "EnTransformer.edges": ({"edge_dim": EDGE_DIM}, ("edges",)),
    "EnTransformer.edges.neighbors.mask": ({**NEAREST, "edge_dim": EDGE_DIM}, ("edges", "mask")),
    "EnTransformer.edge_tokens": ({"num_edge_tokens": EDGE_TOKENS, "edge_dim": EDGE_DIM}, ("edge_tokens",)),
    "EnTransformer.edge_tokens.neighbors": ({**NEAREST, "num_edge_tokens": EDGE_TOKENS, "edge_dim": EDGE_DIM},
                                            ("edge_tokens",)),
    "EnTransformer.adj_degrees": (ADJ, ("adj",)),
    "EnTransformer.adj_degrees.mask": (ADJ, ("adj", "mask")),
    "EnTransformer.adj_degrees.adj_2d": (ADJ, ("adj2d",)),
    "EnTransformer.adj_degrees.no_adj_emb": ({"num_adj_degrees": 3, "neighbors": 1}, ("adj",)),
    "EnTransformer.adj_degrees.edges": ({**ADJ, "edge_dim": EDGE_DIM}, ("adj", "edges")),
    "EnTransformer.only_sparse_neighbors": (SPARSE, ("adj",)),
    "EnTransformer.only_sparse_neighbors.mask.edges": ({**SPARSE, "edge_dim": EDGE_DIM}, ("adj", "mask", "edges")),
    "EnTransformer.rel_pos_emb.one_cloud": ({"rel_pos_emb": True}, ("one_cloud",)),
    "EnTransformer.rel_pos_emb.neighbors.mask": ({**NEAREST, "rel_pos_emb": True}, ("mask",)),
    "EnTransformer.cross_product": ({"use_cross_product": True}, ()),
    "EnTransformer.cross_product.neighbors.mask": ({**NEAREST, "use_cross_product": True}, ("mask",)),
    "EnTransformer.talking_heads": ({"talking_heads": True}, ()),
    "EnTransformer.no_norm_rel_coors": ({"norm_rel_coors": False, "norm_coors_scale_init": 0.5}, ()),
    "EnTransformer.no_gate_outputs": ({"gate_outputs": False}, ()),
    "EnTransformer.linear_attn": ({"num_global_linear_attn_heads": 2}, ()),
    "EnTransformer.linear_attn.neighbors.mask": ({**NEAREST, "num_global_linear_attn_heads": 2}, ("mask",)),
    "EnTransformer.dropout": ({"attn_dropout": 0.1, "ff_dropout": 0.1}, ()),
    "EnTransformer.checkpoint": ({"depth": 2, "checkpoint": True}, ()),
    "EnTransformer.return_coor_changes": ({"depth": 2}, ("coor_changes",)),
    "EnTransformer.train_step": ({"depth": 2, **NEAREST}, ("mask",)),
    "EnTransformer.train_step.edges.adj": ({**ADJ, "edge_dim": EDGE_DIM}, ("adj", "edges")),
    "EnTransformer.equivariance": (NEAREST, ()),
}
# ``EquivariantAttention`` name -> (keywords, inputs given, as for ``NETWORK``).
ATTN_BASE: dict[str, Any] = {"dim": DIM, "heads": HEADS, "dim_head": 8, "coors_hidden_dim": 8}
ATTENTION: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "EquivariantAttention": ({}, ()),
    "EquivariantAttention.neighbors.mask": (NEAREST, ("mask",)),
    "EquivariantAttention.edges": ({"edge_dim": EDGE_DIM}, ("edges",)),
    "EquivariantAttention.adj_2d": ({"neighbors": 1}, ("adj2d",)),
    "EquivariantAttention.only_sparse_neighbors.mask": ({"only_sparse_neighbors": True}, ("adj", "mask")),
    "EquivariantAttention.cross_product.neighbors": ({**NEAREST, "use_cross_product": True}, ()),
    "EquivariantAttention.rel_pos_emb.neighbors": ({**NEAREST, "rel_pos_emb": True}, ()),
    "EquivariantAttention.linear_attn.mask": ({**NEAREST, "num_global_linear_attn_heads": 1}, ("mask",)),
}
PARTS = (
    "DynamicPositionBias", "DynamicPositionBias.two_inputs", "CoorsNorm", "LayerNorm", "FeedForward", "GEGLU",
    "Residual.FeedForward", "Block", "utils.rot", "utils.rot_z", "utils.rot_y",
)


def names() -> list[str]:
    return [*NETWORK, *ATTENTION, *PARTS]


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
    mask[1, -3:] = False
    return mask


def _inputs(given: tuple[str, ...]) -> dict[str, Any]:
    """The keyword inputs of a forward: edges (continuous or tokens), a mask, an adjacency matrix (a chain of
    bonds, batched or 2-D) and ``return_coor_changes``."""
    import torch
    from gt_point_clouds import chain_bonds

    static: dict[str, Any] = {}
    if "edges" in given:
        static["edges"] = torch.randn(BATCH, NODES, NODES, EDGE_DIM, generator=_gen(4))
    if "edge_tokens" in given:
        static["edges"] = torch.randint(0, EDGE_TOKENS, (BATCH, NODES, NODES), generator=_gen(4))
    if "mask" in given:
        static["mask"] = _mask()
    if "adj" in given or "adj2d" in given:
        static["adj_mat"] = chain_bonds(NODES, BATCH if "adj" in given else None)
    if "coor_changes" in given:
        static["return_coor_changes"] = True
    return static


def _held_in_eval(module: Any, **static: Any) -> Any:
    """``Keywords(module, **static)`` whose module stays in eval mode whatever the harness asks (gradients
    still follow the harness's mode): ``return_coor_changes`` asserts that the network is not training."""
    from gt_calls import Keywords

    class HeldInEval(Keywords):
        def train(self, mode: bool = True) -> Any:
            super().train(mode)
            self.function.train(False)
            return self

    return HeldInEval(module, **static)


def _network(name: str) -> Built:
    import torch
    from en_transformer import EnTransformer
    from en_transformer import utils

    from gt_calls import Keywords, Run

    keywords, given = NETWORK[name]
    net = EnTransformer(**{**BASE, **keywords})
    feats, coors = _cloud()
    if "tokens" in given:
        feats = torch.randint(0, TOKENS, (BATCH, NODES), generator=_gen(5))
    if "one_cloud" in given:  # sequence positions over all pairs broadcast over a batch of one only
        feats, coors = feats[:1], coors[:1]
    static = _inputs(given)
    if "coor_changes" in given:
        return _held_in_eval(net, **static), (feats, coors), {}
    if ".train_step" in name:
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

        return Run(net, step, [EnTransformer]), (feats, coors), {}
    if name.endswith("equivariance"):
        def equivariance(owner: Any, feats_: Any, coors_: Any, angles: Any) -> Any:
            """Features invariant and coordinates equivariant under a rotation and a translation."""
            rotation = utils.rot(*angles.unbind(0))
            shift = torch.ones(1, 1, 3)
            feats1, coors1 = owner(feats_, coors_ @ rotation + shift)
            feats2, coors2 = owner(feats_, coors_)
            return (feats1 - feats2).abs().max(), (coors1 - (coors2 @ rotation + shift)).abs().max()

        angles = torch.tensor([0.3, -1.1, 2.0])
        return Run(net, equivariance, [utils.rot, EnTransformer]), (feats, coors, angles), {}
    return (Keywords(net, **static) if static else net), (feats, coors), {}


def _attention(name: str) -> Built:
    from en_transformer import EquivariantAttention

    from gt_calls import Keywords

    keywords, given = ATTENTION[name]
    attention = EquivariantAttention(**{**ATTN_BASE, **keywords})
    static = _inputs(given)
    return (Keywords(attention, **static) if static else attention), _cloud(), {}


def _part(name: str) -> Built:
    import torch
    from en_transformer import en_transformer as en
    from en_transformer import utils

    from gt_calls import Call, Keywords

    gen = _gen(7)
    feats, coors = _cloud()
    if name.startswith("DynamicPositionBias"):
        inputs = 2 if name.endswith("two_inputs") else 1
        bias = en.DynamicPositionBias(dim=8, heads=HEADS, depth=2, dim_head=8, input_dim=inputs)
        return bias, (torch.randn(BATCH, 1, NODES, NODES, inputs, generator=gen),), {}
    if name == "CoorsNorm":
        return en.CoorsNorm(scale_init=0.5), (torch.randn(BATCH, NODES, NODES, 3, generator=gen),), {}
    if name == "LayerNorm":
        return en.LayerNorm(DIM), (feats,), {}
    if name == "FeedForward":
        return en.FeedForward(dim=DIM, mult=2, dropout=0.1), (feats, coors), {}
    if name == "GEGLU":
        return en.GEGLU(), (torch.randn(BATCH, NODES, 2 * DIM, generator=gen),), {}
    if name == "Residual.FeedForward":
        return en.Residual(en.FeedForward(dim=DIM, mult=2)), (feats, coors), {}
    if name == "Block":
        attention = en.Residual(en.EquivariantAttention(**ATTN_BASE, neighbors=3))
        block = en.Block(attention, en.Residual(en.FeedForward(dim=DIM, mult=2)))
        return Keywords(block), ((feats, coors, _mask(), None, None),), {}
    angles = torch.tensor([0.3, -1.1, 2.0])
    if name == "utils.rot":
        return Call(utils.rot), tuple(angles.unbind(0)), {}
    function = utils.rot_z if name == "utils.rot_z" else utils.rot_y
    return Call(function), (angles[0],), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in NETWORK:
        return _network(name)
    if name in ATTENTION:
        return _attention(name)
    if name in PARTS:
        return _part(name)
    raise KeyError(name)
