"""Ground-truth bench, equiformer_pytorch: Equiformer, the SE(3)/E(3)-equivariant graph attention transformer.

equiformer_pytorch 0.5.4 (lucidrains) exports ``Equiformer``: features are dictionaries of tensors by degree (a
"fiber"); each forward finds every point's neighbours (nearest by distance within a radius, and or instead the
bonded ones of an adjacency matrix, whose higher adjacency degrees it derives), rotates each relative
position to the z axis (``get_D_to_from_z_axis``: Wigner D matrices from Euler angles) so that the equivariant
basis (``get_basis``, computed once at init and cached on disk) is sparse, projects in with a depthwise tensor
product (``DTP``, radial networks on distances and edge features), runs attention blocks (``L2DistAttention``,
dot products by negative distances, or the paper's ``MLPAttention``; optional Taylor-series linear attention
heads and head gates) and equivariant feed-forwards, sequentially or reversibly (``ReversibleSequence``, a custom
autograd function), and returns the type-0 and type-1 outputs, reduced or pooled on request. The tables cover,
at 2 clouds of 6 points, width (8, 4), 2 heads of 4, depth 1 (the layers repeat the same code):

- ``FULL``: ``Equiformer`` in the configurations that change its forward: degrees 1, 2 and 3, widths, heads and
  head widths per degree, token and position embeddings, the reduced output (linear or feed-forward), MLP
  attention, one-headed key-values, no head gates, linear attention heads, feed-forward gating by the norms of
  higher types, the reversible trunk, nearest neighbours within a radius, continuous edge features and edge
  tokens, sparse neighbours of an adjacency matrix (batched or shared, capped by ``max_sparse_neighbors``),
  adjacency degrees derived (with sparse neighbours or distance neighbours, with edge tokens), pooled outputs
  with and without a mask, a type-1 input and a dictionary input, a batch of one;
- ``TRAIN``: training steps (``backward`` and Adam) on a type-0 and type-1 loss, through the reversible trunk
  (its backward recomputes the blocks), MLP attention with edges, sparse neighbours; a coordinate denoiser on
  molecules (tokens, bonds, the reduced type-1 output against the noise), a pooled property regressor, and an
  equivariance check (the outputs for rotated coordinates against the rotated outputs);
- ``BLOCKS``: the building blocks on a neighbourhood prepared as the forward does: ``DTP`` (pooled, unpooled,
  without projections, with edges), ``Radial``, ``FeedForward``, ``Norm``, ``Gate``, ``Linear``, ``LayerNorm``,
  ``Residual``, ``L2DistAttention``, ``MLPAttention``, the global ``LinearAttention``, ``SequentialSequence``
  and ``ReversibleSequence``;
- ``FUNCTIONS``: the basis and rotation functions (``get_basis``, ``get_D_to_from_z_axis``,
  ``rot_x_to_y_direction``, ``rot_to_euler_angles``, ``irr_repr``, ``wigner_d_matrix``, ``z_rot_mat``, ``rot``
  and ``rot_z`` of a Python angle, ``get_matrix_kernel``, ``sylvester_submatrix``, ``kron``) and helpers
  (``masked_mean``, ``fast_split``, ``cdist``, ``residual_fn``, ``split_num_into_groups``).

Two options are left out because their forward raises in this version: ``attend_self=False`` (its tensor product
has no self-interaction yet still calls it: ``AttributeError``) and ``adj_dim`` (the adjacency-degree embedding
widens the radial networks' edge input, but the forward never adds the embedded degrees to the edges: a shape
mismatch). The training steps keep the model in train mode in both of the harness's modes (the reversible trunk
records the random state for its backward only while training). Random weights, nothing downloaded (the
basis matrices are computed on the first use and cached under ``~/.cache.equivariant_attention`` as the library
does); ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, NODES, DIM, EDGE_DIM, TOKENS = 2, 6, 8, 4, 10
BASE: dict[str, Any] = {"dim": (DIM, 4), "num_degrees": 2, "heads": 2, "dim_head": 4, "depth": 1,
                        "radial_hidden_dim": 8}
MLP: dict[str, Any] = {**BASE, "l2_dist_attention": False}
LINEAR_ATTN: dict[str, Any] = {"num_linear_attn_heads": 1, "linear_attn_dim_head": 4}
SPARSE: dict[str, Any] = {"attend_sparse_neighbors": True, "num_neighbors": 0}

# ``Equiformer`` name -> (constructor keywords over ``BASE``, call inputs). Inputs: "mask", "adj" (batched
# adjacency), "adj2d" (one for the batch), "edges" (continuous), "edge_tokens", "tokens" (ids instead of features),
# "pooled" (``return_pooled``), "degree1" (a type-1 input), "dict" (the type-0 input as a dictionary), "batch1".
FULL: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "Equiformer": ({}, ("mask",)),
    "Equiformer.no_mask": ({}, ()),
    "Equiformer.num_degrees3": ({"dim": (DIM, 4, 2), "num_degrees": 3}, ("mask",)),
    "Equiformer.num_degrees1": ({"dim": DIM, "num_degrees": 1}, ("mask",)),
    "Equiformer.per_degree_heads": ({"dim": DIM, "heads": (2, 1), "dim_head": (4, 2)}, ("mask",)),
    "Equiformer.tokens": ({"num_tokens": TOKENS}, ("tokens", "mask")),
    "Equiformer.tokens.positions": ({"num_tokens": TOKENS, "num_positions": 8}, ("tokens",)),
    "Equiformer.reduce_dim_out": ({"reduce_dim_out": True}, ("mask",)),
    "Equiformer.reduce_dim_out.feedforward": ({"reduce_dim_out": True, "linear_out": False}, ("mask",)),
    "Equiformer.single_headed_kv": ({"single_headed_kv": True}, ("mask",)),
    "Equiformer.no_head_gates": ({"gate_attn_head_outputs": False}, ("mask",)),
    "Equiformer.linear_attn": (LINEAR_ATTN, ("mask",)),
    "Equiformer.ff_htype_norms": ({"ff_include_htype_norms": True, "dim": (DIM, 4, 2), "num_degrees": 3},
                                  ("mask",)),
    "Equiformer.mlp_attention": ({"l2_dist_attention": False}, ("mask",)),
    "Equiformer.mlp_attention.single_headed_kv": ({"l2_dist_attention": False, "single_headed_kv": True},
                                                  ("mask",)),
    "Equiformer.mlp_attention.no_head_gates": ({"l2_dist_attention": False, "gate_attn_head_outputs": False},
                                               ("mask",)),
    "Equiformer.mlp_attention.linear_attn": ({"l2_dist_attention": False, **LINEAR_ATTN}, ("mask",)),
    "Equiformer.mlp_attention.degrees3.tokens.reduce": ({"l2_dist_attention": False, "dim": (DIM, 4, 2),
                                                         "num_degrees": 3, "num_tokens": TOKENS,
                                                         "reduce_dim_out": True}, ("tokens", "mask")),
    "Equiformer.reversible": ({"reversible": True}, ("mask",)),
    "Equiformer.reversible.mlp_attention": ({"reversible": True, "l2_dist_attention": False}, ()),
    "Equiformer.neighbors.radius": ({"num_neighbors": 3, "valid_radius": 1.5}, ("mask",)),
    "Equiformer.edges": ({"edge_dim": EDGE_DIM}, ("edges", "mask")),
    "Equiformer.edge_tokens": ({"num_edge_tokens": 3, "edge_dim": EDGE_DIM}, ("edge_tokens", "mask")),
    "Equiformer.sparse_neighbors": (SPARSE, ("adj",)),
    "Equiformer.sparse_neighbors.adj2d": (SPARSE, ("adj2d", "mask")),
    "Equiformer.sparse_neighbors.with_nearest": ({**SPARSE, "num_neighbors": 2}, ("adj", "mask")),
    "Equiformer.sparse_neighbors.max": ({**SPARSE, "num_neighbors": 2, "max_sparse_neighbors": 1}, ("adj",)),
    "Equiformer.sparse_neighbors.adj_degrees": ({**SPARSE, "num_adj_degrees_embed": 2}, ("adj", "mask")),
    "Equiformer.adj_degrees": ({"num_adj_degrees_embed": 3, "num_neighbors": 3}, ("adj2d",)),
    "Equiformer.molecule": ({**SPARSE, "num_tokens": TOKENS, "num_edge_tokens": 3, "edge_dim": EDGE_DIM,
                             "num_adj_degrees_embed": 2, "max_sparse_neighbors": 2, "reduce_dim_out": True},
                            ("tokens", "edge_tokens", "adj", "mask")),
    "Equiformer.pooled.mask": ({}, ("pooled", "mask")),
    "Equiformer.pooled.no_mask": ({}, ("pooled",)),
    "Equiformer.pooled.reduce_dim_out": ({"reduce_dim_out": True}, ("pooled", "mask")),
    "Equiformer.input_degrees2": ({"input_degrees": 2, "dim_in": (DIM, 2)}, ("degree1", "mask")),
    "Equiformer.input_dict": ({}, ("dict", "mask")),
    "Equiformer.batch1": ({}, ("batch1",)),
}
# Training and usage name -> (constructor keywords over ``BASE``, inputs as in ``FULL``, what runs: "step",
# "denoise", "property", "equivariance").
TRAIN: dict[str, tuple[dict[str, Any], tuple[str, ...], str]] = {
    "train.Equiformer": ({}, ("mask",), "step"),
    "train.Equiformer.reversible": ({"reversible": True}, ("mask",), "step"),
    "train.Equiformer.reversible.mlp_attention": ({"reversible": True, "l2_dist_attention": False}, (), "step"),
    "train.Equiformer.mlp_attention.edges": ({"l2_dist_attention": False, "edge_dim": EDGE_DIM}, ("edges", "mask"),
                                             "step"),
    "train.Equiformer.sparse_neighbors": ({**SPARSE, "num_neighbors": 1}, ("adj", "mask"), "step"),
    "train.Equiformer.denoise": ({"num_tokens": TOKENS, "num_edge_tokens": 3, "edge_dim": EDGE_DIM,
                                  "reduce_dim_out": True, "num_neighbors": 3}, ("tokens", "edge_tokens", "mask"),
                                 "denoise"),
    "train.Equiformer.property": ({"num_tokens": TOKENS}, ("tokens", "mask", "pooled"), "property"),
    "Equiformer.equivariance": ({}, ("mask",), "equivariance"),
    "Equiformer.equivariance.mlp_attention.degrees3": ({"l2_dist_attention": False, "dim": (DIM, 4, 2),
                                                        "num_degrees": 3}, (), "equivariance"),
}
BLOCKS = (
    "DTP", "DTP.unpooled", "DTP.no_projections", "DTP.bare", "DTP.edges", "Radial", "FeedForward",
    "FeedForward.htype_norms.fiber_out", "Norm", "Gate", "Linear", "LayerNorm", "Residual", "L2DistAttention",
    "L2DistAttention.single_headed_kv.linear_attn", "MLPAttention", "MLPAttention.single_headed_kv.no_gates",
    "LinearAttention", "LinearAttention.mask.degree_dim", "SequentialSequence", "ReversibleSequence",
)
FUNCTIONS = (
    "get_basis", "get_D_to_from_z_axis", "rot_x_to_y_direction", "rot_x_to_y_direction.aligned",
    "rot_to_euler_angles", "irr_repr", "wigner_d_matrix", "z_rot_mat", "rot", "rot_z.python_angle",
    "get_matrix_kernel", "sylvester_submatrix", "kron", "masked_mean", "masked_mean.no_mask", "fast_split", "cdist",
    "residual_fn", "split_num_into_groups",
)


def names() -> list[str]:
    return list(FULL) + list(TRAIN) + list(BLOCKS) + list(FUNCTIONS)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _mask(batch: int = BATCH) -> Any:
    import torch

    mask = torch.ones(batch, NODES, dtype=torch.bool)
    mask[-1, -1] = False
    return mask


def _inputs(given: tuple[str, ...], gen: Any) -> tuple[Any, Any, dict[str, Any]]:
    """Features (or token ids), coordinates and the forward's keywords for the inputs named in ``given``."""
    import torch

    from gt_point_clouds import chain_bonds

    batch = 1 if "batch1" in given else BATCH
    feats: Any = torch.randn(batch, NODES, DIM, generator=gen)
    coors = torch.randn(batch, NODES, 3, generator=gen)
    if "tokens" in given:
        feats = torch.randint(0, TOKENS, (batch, NODES), generator=gen)
    static: dict[str, Any] = {}
    if "mask" in given:
        static["mask"] = _mask(batch)
    if "adj" in given or "adj2d" in given:
        static["adj_mat"] = chain_bonds(NODES, batch if "adj" in given else None)
    if "edges" in given:
        static["edges"] = torch.randn(batch, NODES, NODES, EDGE_DIM, generator=gen)
    if "edge_tokens" in given:
        static["edges"] = torch.randint(0, 3, (batch, NODES, NODES), generator=gen)
    if "pooled" in given:
        static["return_pooled"] = True
    return feats, coors, static


def _full(name: str) -> Built:
    import torch
    from equiformer_pytorch import Equiformer

    from gt_calls import Run

    keywords, given = FULL[name]
    model = Equiformer(**{**BASE, **keywords})
    feats, coors, static = _inputs(given, _gen(1))
    if "degree1" in given:
        # A fresh dictionary per call: the forward writes the embedded type-0 features back into it.
        type1 = torch.randn(BATCH, NODES, 2, 3, generator=_gen(2))
        return Run(model, lambda owner, f0, f1, c: owner({0: f0, 1: f1}, c, **static), [Equiformer]), \
            (feats, type1, coors), {}
    if "dict" in given:
        return Run(model, lambda owner, f0, c: owner({0: f0[..., None]}, c, **static), [Equiformer]), \
            (feats, coors), {}
    return model, (feats, coors), static


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from equiformer_pytorch import Equiformer
    from equiformer_pytorch.irr_repr import rot

    from gt_calls import Run

    keywords, given, kind = TRAIN[name]
    model = Equiformer(**{**BASE, **keywords})
    gen = _gen(3)
    feats, coors, static = _inputs(given, gen)

    class TrainStep(Run):
        """A training step keeps the model in train mode whatever the harness's mode (the reversible trunk records
        the random state for its backward only when training)."""

        def train(self, mode: bool = True) -> TrainStep:
            super().train(mode)
            self.owner.train(True)
            return self

    if kind == "equivariance":
        rotation = rot(*torch.tensor([0.4, -1.1, 2.3]).unbind(0))

        def equivariance(owner: Any, feats_: Any, coors_: Any) -> Any:
            """The type-0 outputs for rotated coordinates against the outputs, the type-1 against the rotated ones."""
            out = owner(feats_, coors_, **static)
            rotated = owner(feats_, coors_ @ rotation, **static)
            return (rotated.type0 - out.type0).abs().amax(), (rotated.type1 - out.type1 @ rotation).abs().amax()

        return Run(model, equivariance, [Equiformer]), (feats, coors), {}
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if kind == "denoise":
        noise = torch.randn(coors.shape, generator=gen) * 0.1

        def denoise(owner: Any, atoms: Any, coors_: Any) -> Any:
            """The reduced type-1 output of the noised molecule predicts the noise, masked."""
            with torch.enable_grad():
                optimizer.zero_grad()
                predicted = owner(atoms, coors_ + noise, **static).type1
                loss = ((predicted - noise) ** 2).sum(-1)[static["mask"]].mean()
                loss.backward()
                optimizer.step()
            return loss.detach()

        return TrainStep(model, denoise, [Equiformer]), (feats, coors), {}
    if kind == "property":
        head = torch.nn.Linear(DIM, 1)
        optimizer.add_param_group({"params": head.parameters()})
        target = torch.randn(BATCH, 1, generator=gen)

        def regress(owner: Any, atoms: Any, coors_: Any) -> Any:
            """A molecular property from the masked mean of the type-0 outputs."""
            with torch.enable_grad():
                optimizer.zero_grad()
                loss = F.mse_loss(head(owner(atoms, coors_, **static).type0), target)
                loss.backward()
                optimizer.step()
            return loss.detach()

        return TrainStep(model, regress, [Equiformer]), (feats, coors), {}
    target0 = torch.randn(BATCH, NODES, DIM, generator=gen)
    target1 = torch.randn(BATCH, NODES, 4, 3, generator=gen)

    def step(owner: Any, feats_: Any, coors_: Any) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            out = owner(feats_, coors_, **static)
            loss = F.mse_loss(out.type0, target0) + F.mse_loss(out.type1, target1)
            loss.backward()
            optimizer.step()
        return loss.detach()

    return TrainStep(model, step, [Equiformer]), (feats, coors), {}


def _neighbourhood(max_degree: int = 1, neighbors: int = 3) -> tuple[Any, ...]:
    """Features of degrees 0 to ``max_degree``, and what ``Equiformer.forward`` prepares: the nearest other
    points' indices and mask (one neighbour masked), their distances, the basis and the rotations ``D``."""
    import torch
    from equiformer_pytorch.basis import get_D_to_from_z_axis, get_basis

    gen = _gen(4)
    coors = torch.randn(BATCH, NODES, 3, generator=gen)
    dims = (DIM, 4, 2)
    feats = {d: torch.randn(BATCH, NODES, dims[d], 2 * d + 1, generator=gen) for d in range(max_degree + 1)}
    rel_pos = coors[:, :, None] - coors[:, None, :]
    dist = rel_pos.norm(dim=-1) + torch.eye(NODES) * 1e5
    _, nearest = dist.topk(neighbors, dim=-1, largest=False)
    neighbor_rel_pos = torch.gather(rel_pos, 2, nearest[..., None].expand(-1, -1, -1, 3))
    rel_dist = neighbor_rel_pos.norm(dim=-1, keepdim=True)
    neighbor_mask = torch.ones(BATCH, NODES, neighbors, dtype=torch.bool)
    neighbor_mask[1, -1, -1] = False
    basis = get_basis(max_degree)
    D = get_D_to_from_z_axis(neighbor_rel_pos, max_degree)
    return feats, nearest, neighbor_mask, rel_dist, basis, D


def _blocks(name: str) -> Built:
    import torch
    from equiformer_pytorch import equiformer_pytorch as eq
    from equiformer_pytorch.reversible import ReversibleSequence, SequentialSequence

    from gt_calls import Run

    fiber = (DIM, 4)
    feats, nearest, neighbor_mask, rel_dist, basis, D = _neighbourhood()
    gen = _gen(5)
    edges = torch.randn(BATCH, NODES, 3, EDGE_DIM, generator=gen)
    edge_info = eq.EdgeInfo(nearest, neighbor_mask, None)
    if name.startswith("DTP"):
        options: dict[str, Any] = {
            "DTP": {},
            "DTP.unpooled": {"pool": False},
            "DTP.no_projections": {"project_xi_xj": False, "project_out": False},
            "DTP.bare": {"self_interaction": False, "project_out": False, "pool": False},
            "DTP.edges": {"edge_dim": EDGE_DIM},
        }[name]
        dtp = eq.DTP(fiber, (4, 2), radial_hidden_dim=8, **options)
        info = eq.EdgeInfo(nearest, neighbor_mask, edges) if name == "DTP.edges" else edge_info

        def product(owner: Any, feats_: Any, rel_dist_: Any) -> Any:
            return owner(feats_, basis, D, info, rel_dist=rel_dist_)

        return Run(dtp, product, [eq.DTP]), (feats, rel_dist), {}
    if name == "Radial":
        return eq.Radial(1, 4, 1, 2, edge_dim=EDGE_DIM, radial_hidden_dim=8), \
            (torch.cat([rel_dist, edges], dim=-1),), {}
    if name == "FeedForward":
        return eq.FeedForward(fiber), (feats,), {}
    if name == "FeedForward.htype_norms.fiber_out":
        return eq.FeedForward(fiber, fiber_out=(4, 2), mult=2, include_htype_norms=True, init_out_zero=False), \
            (feats,), {}
    if name == "Norm":
        return eq.Norm(fiber), (feats,), {}
    if name == "Gate":
        return eq.Gate((DIM + 4, 4)), ({0: torch.randn(BATCH, NODES, DIM + 4, 1, generator=gen), 1: feats[1]},), {}
    if name == "Linear":
        return eq.Linear(fiber, (4, 4)), (feats,), {}
    if name == "LayerNorm":
        return eq.LayerNorm(DIM), (feats[0][..., 0],), {}
    if name == "Residual":
        return eq.Residual(torch.nn.Linear(DIM, DIM)), (feats[0][..., 0],), {}
    if name.startswith("LinearAttention"):
        attention = eq.LinearAttention(DIM, dim_head=4, heads=2)
        if name.endswith("degree_dim"):
            return attention, (feats[0],), {"mask": _mask()}
        return attention, (feats[0][..., 0],), {}
    mask = _mask()
    if name.startswith("L2DistAttention") or name.startswith("MLPAttention"):
        klass = eq.L2DistAttention if name.startswith("L2") else eq.MLPAttention
        extra: dict[str, Any] = {}
        if "single_headed_kv" in name:
            extra["single_headed_kv"] = True
        if "linear_attn" in name:
            extra.update(LINEAR_ATTN)
        if "no_gates" in name:
            extra["gate_attn_head_outputs"] = False
        attention = klass(fiber, dim_head=4, heads=2, attend_self=True, radial_hidden_dim=8, init_out_zero=False,
                          **extra)

        def attend(owner: Any, feats_: Any, rel_dist_: Any, mask_: Any) -> Any:
            return owner(feats_, edge_info, rel_dist_, basis, D, mask=mask_)

        return Run(attention, attend, [klass]), (feats, rel_dist, mask), {}
    blocks = [(eq.L2DistAttention(fiber, dim_head=4, heads=2, attend_self=True, radial_hidden_dim=8,
                                  init_out_zero=False), eq.FeedForward(fiber, init_out_zero=False))]
    klass = SequentialSequence if name == "SequentialSequence" else ReversibleSequence
    sequence = klass(blocks)

    def run(owner: Any, feats_: Any, rel_dist_: Any) -> Any:
        return owner(feats_, edge_info=edge_info, rel_dist=rel_dist_, basis=basis, D=D, mask=None)

    return Run(sequence, run, [klass]), (feats, rel_dist), {}


def _functions(name: str) -> Built:
    import torch
    from equiformer_pytorch import basis, irr_repr, utils
    from equiformer_pytorch import equiformer_pytorch as eq

    from gt_calls import Call, Run

    gen = _gen(6)
    identity = torch.nn.Identity()
    rel_pos = torch.randn(BATCH, NODES, 3, 3, generator=gen)
    angles = torch.tensor([[0.4, -0.7, 1.9], [2.1, 0.3, -0.5]])
    if name == "get_basis":
        return Run(identity, lambda owner, t: {k: v * t for k, v in basis.get_basis(2).items()},
                   [basis.get_basis]), (torch.tensor(2.0),), {}
    if name == "get_D_to_from_z_axis":
        return Call(basis.get_D_to_from_z_axis, max_degree=2), (rel_pos,), {}
    if name == "rot_x_to_y_direction":
        return Run(identity, lambda owner, x: basis.rot_x_to_y_direction(x, x.new_tensor([0.0, 1.0, 0.0])),
                   [basis.rot_x_to_y_direction]), (rel_pos,), {}
    if name == "rot_x_to_y_direction.aligned":
        return Call(basis.rot_x_to_y_direction), (torch.tensor([0.0, 2.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])), {}
    if name == "rot_to_euler_angles":
        return Call(irr_repr.rot_to_euler_angles), (irr_repr.rot(*angles.unbind(-1)),), {}
    if name == "irr_repr":
        return Run(identity, lambda owner, a: irr_repr.irr_repr(2, a), [irr_repr.irr_repr]), (angles,), {}
    if name == "wigner_d_matrix":
        return Run(identity, lambda owner, a: irr_repr.wigner_d_matrix(1, *a.unbind(-1), dtype=a.dtype),
                   [irr_repr.wigner_d_matrix]), (angles,), {}
    if name == "z_rot_mat":
        return Run(identity, lambda owner, a: irr_repr.z_rot_mat(a, 2), [irr_repr.z_rot_mat]), (angles[:, 0],), {}
    if name == "rot":
        return Run(identity, lambda owner, a: irr_repr.rot(*a.unbind(-1)), [irr_repr.rot]), (angles,), {}
    if name == "rot_z.python_angle":
        return Run(identity, lambda owner, t: irr_repr.rot_z(0.3) @ t, [irr_repr.rot_z]), \
            (torch.randn(3, 2, generator=gen),), {}
    if name == "get_matrix_kernel":
        # The kernel of a rank-2 matrix of size 4: the null space of the Sylvester equations, as the basis uses it.
        a = torch.randn(4, 2, generator=gen, dtype=torch.float64)
        return Call(basis.get_matrix_kernel), (a @ a.t(),), {}
    if name == "sylvester_submatrix":
        return Run(identity, lambda owner, a: basis.sylvester_submatrix(1, 1, 1, *a.unbind(-1)),
                   [basis.sylvester_submatrix]), (angles,), {}
    if name == "kron":
        return Call(basis.kron), (torch.randn(2, 3, 3, generator=gen), torch.randn(2, 2, 2, generator=gen)), {}
    values = torch.randn(BATCH, NODES, 4, generator=gen)
    if name == "masked_mean":
        return Run(identity, lambda owner, t, m: utils.masked_mean(t.clone(), m, dim=1), [utils.masked_mean]), \
            (values, _mask()), {}
    if name == "masked_mean.no_mask":
        return Call(utils.masked_mean, mask=None, dim=1), (values,), {}
    if name == "fast_split":
        return Run(identity, lambda owner, t: torch.cat([c * (i + 1) for i, c in enumerate(utils.fast_split(t, 4, 1))],
                                                        dim=1), [utils.fast_split]), (values,), {}
    if name == "cdist":
        return Call(eq.cdist), (values[:, :1], values), {}
    if name == "residual_fn":
        feats = _neighbourhood()[0]

        def residual(owner: Any, feats_: Any) -> Any:
            # ``residual_fn`` adds in place where nothing needs a gradient: each call gets copies.
            return eq.residual_fn({k: v.clone() for k, v in feats_.items()}, {0: feats_[0] * 2})

        return Run(identity, residual, [eq.residual_fn]), (feats,), {}
    return Run(identity, lambda owner, t: t.split(eq.split_num_into_groups(t.shape[-1], 3), dim=-1),
               [eq.split_num_into_groups]), (torch.randn(BATCH, 10, generator=gen),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in FULL:
        return _full(name)
    if name in TRAIN:
        return _train(name)
    if name in BLOCKS:
        return _blocks(name)
    if name in FUNCTIONS:
        return _functions(name)
    raise KeyError(name)
