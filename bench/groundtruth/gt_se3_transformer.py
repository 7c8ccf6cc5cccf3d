"""Ground-truth bench, se3_transformer_pytorch (se3-transformer-pytorch): SE(3)-equivariant attention.

se3-transformer-pytorch (lucidrains) implements the SE(3)-Transformer of Fuchs et al.: features are
dictionaries of tensors by degree (a "fiber"), each node attends to its neighbours through convolutions
whose kernels combine a radial network with an equivariant basis of spherical harmonics (computed once
per forward by ``get_basis`` from the relative positions, with its Clebsch-Gordan-like matrices cached on
disk). The models of the tables are:

- ``TRANSFORMER``: ``SE3Transformer`` at depth 1 on 2 clouds of 6 points, in the configurations that
  change its forward: degrees 2 and 3, type-0 and type-1 outputs (``return_type``, ``output_degrees``),
  nearest neighbours with a valid radius, sparse neighbours of an adjacency matrix (all of them, or at
  most ``max_sparse_neighbors``, alone or with distance neighbours), adjacency degrees with their
  embedding, continuous edge features and edge tokens, token and position embeddings, global features,
  the reversible trunk, tied key-values, linearly projected keys, one-headed key-values (plain, tied,
  linear keys), null key-values, no self-attention, causal, differentiable coordinates, Fourier-encoded
  distances, rotary embeddings of positions and of distances, pre-convolutions, gated norms with a final
  norm, reduced output dimension, pooled outputs with a mask, a given neighbour mask, two input degrees,
  fibers given as dictionaries, the EGNN trunk (plain, with feed-forward blocks, edges and clamped
  weights) and a train step (a coordinate loss, ``backward``, Adam). Options that only change a number
  (``splits``, widths, depth) are left out: each model takes about a minute to compile here;
- ``BLOCKS``: the building blocks on a prepared neighbourhood (indices, mask, distances, basis):
  ``ConvSE3`` (pooled and not, with edges), ``LinearSE3``, ``NormSE3`` (scaled and gated),
  ``FeedForwardBlockSE3``, ``AttentionBlockSE3`` with ``AttentionSE3`` and ``OneHeadedKVAttentionSE3``,
  the EGNN layer of the module and ``ReversibleSequence``;
- ``FUNCTIONS``: ``get_basis`` (plain and differentiable, degrees 1 and 2),
  ``get_spherical_from_cartesian``, ``precompute_sh``, ``get_spherical_harmonics``, ``irr_repr``,
  ``wigner_d_matrix``, ``rot``, ``x_to_alpha_beta``, ``compose``, ``SinusoidalEmbeddings`` with
  ``apply_rotary_pos_emb``, and the helpers ``fourier_encode``, ``batched_index_select``,
  ``masked_mean``, ``fast_split`` and ``broadcat``.

Every model is compiled in eval and in train mode. Tiny sizes: width 8, 2 heads of 4, depth 1 (the
layers repeat the same code), 6 points; random weights, nothing downloaded (the basis matrices are
computed on the first use and cached under ``~/.cache.equivariant_attention`` as the library does).
``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, NODES, DIM, EDGE_DIM = 2, 6, 8, 4
BASE: dict[str, Any] = {"dim": DIM, "heads": 2, "dim_head": 4, "depth": 1, "num_degrees": 2}
TYPE1: dict[str, Any] = {**BASE, "output_degrees": 2}

# ``SE3Transformer`` name -> (constructor keywords over ``BASE``, call inputs). Inputs: "mask", "adj"
# (batched adjacency), "adj2d", "edges", "edge_tokens", "tokens" (token ids instead of features),
# "global", "neighbor_mask", "degree1" (a type-1 input), "type1" (``return_type=1``), "pooled".
TRANSFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "SE3Transformer": ({}, ("mask",)),
    "SE3Transformer.no_mask": ({}, ()),
    "SE3Transformer.return_type_1": ({"output_degrees": 2}, ("mask", "type1")),
    "SE3Transformer.return_all_degrees": ({"output_degrees": 2}, ("mask",)),
    "SE3Transformer.num_degrees_3": ({"num_degrees": 3, "output_degrees": 2}, ("mask", "type1")),
    "SE3Transformer.neighbors.valid_radius": ({"num_neighbors": 3, "valid_radius": 1.5}, ("mask",)),
    "SE3Transformer.sparse_neighbors": ({"attend_sparse_neighbors": True, "num_neighbors": 0}, ("adj",)),
    "SE3Transformer.sparse_neighbors.max.neighbors": ({"attend_sparse_neighbors": True, "num_neighbors": 2,
                                                       "max_sparse_neighbors": 1}, ("adj", "mask")),
    "SE3Transformer.adj_degrees": ({"num_adj_degrees": 2, "adj_dim": 4, "num_neighbors": 3}, ("adj2d", "mask")),
    "SE3Transformer.adj_degrees.sparse.edges": ({"num_adj_degrees": 3, "adj_dim": 2, "attend_sparse_neighbors": True,
                                                 "num_neighbors": 1, "edge_dim": EDGE_DIM}, ("adj", "edges")),
    "SE3Transformer.edges": ({"edge_dim": EDGE_DIM, "num_neighbors": 3}, ("edges", "mask")),
    "SE3Transformer.edge_tokens": ({"num_edge_tokens": 3, "edge_dim": EDGE_DIM}, ("edge_tokens",)),
    "SE3Transformer.tokens.positions": ({"num_tokens": 10, "num_positions": 8}, ("tokens", "mask")),
    "SE3Transformer.global_feats": ({"global_feats_dim": 4}, ("global", "mask")),
    "SE3Transformer.reversible": ({"reversible": True, "output_degrees": 2}, ("mask", "type1")),
    "SE3Transformer.tie_key_values": ({"tie_key_values": True}, ("mask",)),
    "SE3Transformer.linear_proj_keys": ({"linear_proj_keys": True}, ("mask",)),
    "SE3Transformer.one_headed_key_values": ({"one_headed_key_values": True}, ("mask",)),
    "SE3Transformer.one_headed_key_values.tie": ({"one_headed_key_values": True, "tie_key_values": True,
                                                  "use_null_kv": True}, ("mask",)),
    "SE3Transformer.one_headed_key_values.linear_keys.global": ({"one_headed_key_values": True,
                                                                 "linear_proj_keys": True, "global_feats_dim": 4,
                                                                 "rotary_position": True}, ("global",)),
    "SE3Transformer.null_kv": ({"use_null_kv": True}, ("mask",)),
    "SE3Transformer.no_attend_self": ({"attend_self": False}, ("mask",)),
    "SE3Transformer.causal": ({"causal": True}, ()),
    "SE3Transformer.differentiable_coors": ({"differentiable_coors": True, "output_degrees": 2}, ("type1",)),
    "SE3Transformer.fourier_encode_dist": ({"fourier_encode_dist": True, "rel_dist_num_fourier_features": 2},
                                           ("mask",)),
    "SE3Transformer.rotary_position.rel_dist": ({"rotary_position": True, "rotary_rel_dist": True}, ("mask",)),
    "SE3Transformer.conv_layers": ({"num_conv_layers": 1}, ("mask",)),
    "SE3Transformer.norm_gated_scale.norm_out": ({"norm_gated_scale": True, "norm_out": True, "output_degrees": 2},
                                                 ("mask", "type1")),
    "SE3Transformer.reduce_dim_out": ({"reduce_dim_out": True, "output_degrees": 2}, ("mask", "type1")),
    "SE3Transformer.pooled.mask": ({}, ("mask", "pooled")),
    "SE3Transformer.neighbor_mask": ({"num_neighbors": 2}, ("neighbor_mask",)),
    "SE3Transformer.input_degrees_2": ({"input_degrees": 2, "output_degrees": 2}, ("degree1", "mask", "type1")),
    "SE3Transformer.fiber_dicts": ({"num_degrees": None, "hidden_fiber_dict": {0: 8, 1: 4},
                                    "out_fiber_dict": {0: 4, 1: 2}}, ("mask",)),
    "SE3Transformer.egnn": ({"use_egnn": True, "egnn_hidden_dim": 8}, ("mask",)),
    "SE3Transformer.egnn.feedforward.clamp": ({"use_egnn": True, "egnn_hidden_dim": 8, "egnn_feedforward": True,
                                               "egnn_weights_clamp_value": 2.0, "num_neighbors": 3,
                                               "edge_dim": EDGE_DIM}, ("edges",)),
    "SE3Transformer.train_step": ({"output_degrees": 2, "num_neighbors": 3}, ("mask", "type1")),
}
BLOCKS = (
    "ConvSE3", "ConvSE3.unpooled.edges", "LinearSE3", "NormSE3", "NormSE3.gated", "FeedForwardBlockSE3",
    "AttentionBlockSE3", "AttentionBlockSE3.one_headed_kv", "EGNN", "ReversibleSequence",
)
FUNCTIONS = (
    "get_basis", "get_basis.differentiable", "get_basis.degree_2", "get_spherical_from_cartesian", "precompute_sh",
    "get_spherical_harmonics", "irr_repr", "wigner_d_matrix", "rot", "x_to_alpha_beta", "compose",
    "rotary", "fourier_encode", "batched_index_select", "masked_mean", "fast_split", "broadcat",
)


def names() -> list[str]:
    return list(TRANSFORMER) + list(BLOCKS) + list(FUNCTIONS)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _mask() -> Any:
    import torch

    mask = torch.ones(BATCH, NODES, dtype=torch.bool)
    mask[1, -1] = False
    return mask


def _adj(batched: bool = True) -> Any:
    """A chain of bonds (i, i + 1), symmetric; the second cloud has one more bond."""
    from gt_point_clouds import chain_bonds

    return chain_bonds(NODES, BATCH if batched else None)


def _transformer(name: str) -> Built:
    import torch
    from se3_transformer_pytorch import SE3Transformer
    
    from gt_calls import Keywords, Run

    keywords, given = TRANSFORMER[name]
    config = {**BASE, **keywords}
    if config["num_degrees"] is None:
        del config["num_degrees"]
    model = SE3Transformer(**config)
    gen = _gen(1)
    feats: Any = torch.randn(BATCH, NODES, DIM, generator=gen)
    coors = torch.randn(BATCH, NODES, 3, generator=gen)
    if "tokens" in given:
        feats = torch.randint(0, 10, (BATCH, NODES), generator=gen)
    if "degree1" in given:
        feats = {"0": feats[..., None], "1": torch.randn(BATCH, NODES, DIM, 3, generator=gen)}
    static: dict[str, Any] = {}
    if "mask" in given:
        static["mask"] = _mask()
    if "adj" in given or "adj2d" in given:
        static["adj_mat"] = _adj("adj" in given)
    if "edges" in given:
        static["edges"] = torch.randn(BATCH, NODES, NODES, EDGE_DIM, generator=gen)
    if "edge_tokens" in given:
        static["edges"] = torch.randint(0, 3, (BATCH, NODES, NODES), generator=gen)
    if "global" in given:
        static["global_feats"] = torch.randn(BATCH, 2, 4, generator=gen)
    if "neighbor_mask" in given:
        near = (torch.arange(NODES)[:, None] - torch.arange(NODES)[None, :]).abs() <= 1
        static["neighbor_mask"] = near[None].repeat(BATCH, 1, 1)
    if "type1" in given:
        static["return_type"] = 1
    if "pooled" in given:
        static["return_pooled"] = True
    if name.endswith("train_step"):
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        target = torch.randn(BATCH, NODES, 3, generator=gen)

        def step(owner: Any, feats_: Any, coors_: Any) -> Any:
            """Refined coordinates (the type-1 output added to the input) against a target."""
            with torch.enable_grad():
                optimizer.zero_grad()
                refined = coors_ + owner(feats_, coors_, **static).mean(dim=-2)
                loss = (refined - target).pow(2).mean()
                loss.backward()
                optimizer.step()
                return loss.detach()

        return Run(model, step, [SE3Transformer]), (feats, coors), {}
    return (Keywords(model, **static) if static else model), (feats, coors), {}


def _neighbourhood(max_degree: int = 1) -> tuple[Any, Any, Any, Any, Any]:
    """Features of degrees 0 and 1, and the neighbourhood ``SE3Transformer.forward`` prepares: the 3
    nearest other points of each point, their mask, distances and the basis."""
    import torch
    from se3_transformer_pytorch.basis import get_basis
    from se3_transformer_pytorch.utils import batched_index_select

    gen = _gen(2)
    coors = torch.randn(BATCH, NODES, 3, generator=gen)
    feats = {"0": torch.randn(BATCH, NODES, DIM, 1, generator=gen),
             "1": torch.randn(BATCH, NODES, DIM, 3, generator=gen)}
    rel_pos = coors[:, :, None] - coors[:, None, :]
    dist = rel_pos.norm(dim=-1) + torch.eye(NODES) * 1e5
    _, nearest = dist.topk(3, dim=-1, largest=False)
    neighbor_rel_pos = batched_index_select(rel_pos, nearest, dim=2)
    neighbor_rel_dist = neighbor_rel_pos.norm(dim=-1)
    neighbor_mask = torch.ones(BATCH, NODES, 3, dtype=torch.bool)
    neighbor_mask[1, -1, -1] = False
    basis = get_basis(neighbor_rel_pos, max_degree)
    return feats, nearest, neighbor_mask, neighbor_rel_dist, basis


def _blocks(name: str) -> Built:
    import torch
    from se3_transformer_pytorch import se3_transformer_pytorch as st
    from se3_transformer_pytorch.reversible import ReversibleSequence

    from gt_calls import Run

    fiber = st.Fiber.create(2, DIM)
    feats, nearest, neighbor_mask, rel_dist, basis = _neighbourhood()
    gen = _gen(3)
    edges = torch.randn(BATCH, NODES, 3, EDGE_DIM, generator=gen)
    if name == "LinearSE3":
        return st.LinearSE3(fiber, st.Fiber.create(2, 4)), (feats,), {}
    if name.startswith("NormSE3"):
        return st.NormSE3(fiber, gated_scale=name.endswith("gated")), (feats,), {}
    if name == "FeedForwardBlockSE3":
        return st.FeedForwardBlockSE3(fiber), (feats,), {}
    with_edges = name.endswith("edges")
    edge_info = (nearest, neighbor_mask, edges if with_edges else None)
    if name.startswith("ConvSE3"):
        conv = st.ConvSE3(fiber, st.Fiber.create(2, 4), pool=not with_edges, self_interaction=not with_edges,
                          edge_dim=EDGE_DIM if with_edges else 0)

        def convolve(owner: Any, feats_: Any, rel_dist_: Any, basis_: Any) -> Any:
            return owner(feats_, edge_info, rel_dist=rel_dist_, basis=basis_)

        return Run(conv, convolve, [st.ConvSE3]), (feats, rel_dist, basis), {}
    if name.startswith("AttentionBlockSE3"):
        klass = st.OneHeadedKVAttentionSE3 if name.endswith("one_headed_kv") else st.AttentionSE3
        block = st.AttentionBlockSE3(fiber, heads=2, dim_head=4, attend_self=True, edge_dim=0, global_feats_dim=None,
                                     attention_klass=klass)

        def attend(owner: Any, feats_: Any, rel_dist_: Any, basis_: Any) -> Any:
            return owner(feats_, edge_info, rel_dist_, basis_)

        return Run(block, attend, [st.AttentionBlockSE3, klass]), (feats, rel_dist, basis), {}
    if name == "EGNN":
        layer = st.EGNN(fiber, hidden_dim=8)
        self_first = torch.cat([torch.arange(NODES)[None, :, None].expand(BATCH, -1, 1), nearest], dim=-1)
        mask = torch.cat([torch.ones(BATCH, NODES, 1, dtype=torch.bool), neighbor_mask], dim=-1)
        padded = torch.nn.functional.pad(rel_dist, (1, 0))

        def egnn(owner: Any, feats_: Any, rel_dist_: Any) -> Any:
            return owner(dict(feats_), (self_first, mask, None), rel_dist_)

        return Run(layer, egnn, [st.EGNN]), (feats, padded), {}
    blocks = [(st.AttentionBlockSE3(fiber, heads=2, dim_head=4, attend_self=True, edge_dim=0,
                                      global_feats_dim=None), st.FeedForwardBlockSE3(fiber))]
    sequence = ReversibleSequence(blocks)

    def reversible(owner: Any, feats_: Any, rel_dist_: Any, basis_: Any) -> Any:
        return owner(feats_, edge_info=edge_info, rel_dist=rel_dist_, basis=basis_, global_feats=None, pos_emb=None,
                     mask=None)

    return Run(sequence, reversible, [ReversibleSequence]), (feats, rel_dist, basis), {}


def _functions(name: str) -> Built:
    import torch
    from se3_transformer_pytorch import basis, irr_repr, rotary, spherical_harmonics, utils

    from gt_calls import Call, Run

    gen = _gen(4)
    rel_pos = torch.randn(BATCH, NODES, 3, 3, generator=gen)
    identity = torch.nn.Identity()
    if name.startswith("get_basis"):
        static = {"max_degree": 2 if name.endswith("degree_2") else 1,
                  "differentiable": name.endswith("differentiable")}
        return Call(basis.get_basis, **static), (rel_pos,), {}
    if name == "get_spherical_from_cartesian":
        return Call(basis.get_spherical_from_cartesian), (rel_pos,), {}
    if name == "precompute_sh":
        spherical = basis.get_spherical_from_cartesian(rel_pos)
        return Call(basis.precompute_sh, max_J=2), (spherical,), {}
    if name == "get_spherical_harmonics":
        theta, phi = torch.rand(BATCH, 5, generator=gen) * 3.0, torch.rand(BATCH, 5, generator=gen) * 6.0
        return Run(identity, lambda owner, t, p: spherical_harmonics.get_spherical_harmonics(2, t, p),
                   [spherical_harmonics.get_spherical_harmonics]), (theta, phi), {}
    angles = torch.tensor([0.4, -0.7, 1.9])
    if name == "irr_repr":
        return Run(identity, lambda owner, a: irr_repr.irr_repr(1, *a.unbind(0)), [irr_repr.irr_repr]), (angles,), {}
    if name == "wigner_d_matrix":
        return Run(identity, lambda owner, a: irr_repr.wigner_d_matrix(2, *a.unbind(0), dtype=torch.float32),
                   [irr_repr.wigner_d_matrix]), (angles,), {}
    if name == "rot":
        return Run(identity, lambda owner, a: irr_repr.rot(*a.unbind(0)), [irr_repr.rot]), (angles,), {}
    if name == "x_to_alpha_beta":
        return Call(irr_repr.x_to_alpha_beta), (torch.tensor([0.3, -0.5, 0.8]),), {}
    if name == "compose":
        return Run(identity, lambda owner, a, b: irr_repr.compose(*a.unbind(0), *b.unbind(0)),
                   [irr_repr.compose]), (angles, angles.flip(0)), {}
    if name == "rotary":
        embeddings = rotary.SinusoidalEmbeddings(4)

        def rotate(owner: Any, t: Any) -> Any:
            freqs = owner(torch.arange(NODES))
            return rotary.apply_rotary_pos_emb(t, freqs[None, :, :, None])

        return Run(embeddings, rotate, [rotary.SinusoidalEmbeddings, rotary.apply_rotary_pos_emb]), \
            (torch.randn(BATCH, NODES, 8, 3, generator=gen),), {}
    values = torch.randn(BATCH, NODES, 4, generator=gen)
    if name == "fourier_encode":
        return Call(utils.fourier_encode, num_encodings=3), (torch.rand(BATCH, NODES, 3, 1, generator=gen),), {}
    if name == "batched_index_select":
        indices = torch.randint(0, NODES, (BATCH, NODES, 3), generator=gen)
        return Call(utils.batched_index_select, dim=1), (values, indices), {}
    if name == "masked_mean":
        return Call(utils.masked_mean, dim=1), (values, _mask()), {}
    if name == "fast_split":
        return Run(identity, lambda owner, t: torch.cat([c * (i + 1) for i, c in enumerate(utils.fast_split(t, 4, 1))],
                                                        dim=1), [utils.fast_split]), (values,), {}
    return Run(identity, lambda owner, a, b: utils.broadcat((a, b), dim=-1), [utils.broadcat]), \
        (values[:, :, None], torch.randn(BATCH, 1, 3, 2, generator=gen)), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in TRANSFORMER:
        return _transformer(name)
    if name in BLOCKS:
        return _blocks(name)
    if name in FUNCTIONS:
        return _functions(name)
    raise KeyError(name)
