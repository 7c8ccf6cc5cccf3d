"""Ground-truth bench, lie_transformer_pytorch (lie-transformer-pytorch): the LieTransformer (Hutchinson et al. 2021).

lie-transformer-pytorch 0.0.17 (lucidrains) exports ``LieTransformer``: point clouds (features or token ids,
3-d coordinates, a point mask, optional typed edges) lifted to SE(3) group elements (``liftsamples`` random
rotations per point, the pairwise ``log(g_b^-1 g_a)`` as the relative positions), then layers of
``LieSelfAttention`` (a Monte Carlo neighbourhood: the ``nbhd`` nearest samples within a ball whose radius is
adapted in training towards the ``fill`` fraction, a location-attention MLP over the pair embeddings and edges, an
optional farthest-point subsampling ``ds_frac`` with cached indices) and a pre-norm feedforward, run sequentially or
reversibly (a custom autograd function recomputing activations in the backward pass), and a logits head. Its
``se3.py`` holds the ``SO3`` and ``SE3`` groups (exponential and logarithm maps with Taylor expansions near zero,
lifting, pair embeddings, the distance) and ``reversible.py`` the reversible machinery. The tables cover, at 6
points of 16 features, 2 heads of 8, a batch of 2 (the second row's last two points masked out) and 2 lift samples:

- ``TRANSFORMER``: ``LieTransformer`` forward: one or two layers, heads, lift samples, neighbourhood sizes smaller
  and larger than the lifted cloud, fills, an output width, reversible layers, a full mask, token ids, typed edges
  (with tokens, reversibly), a batch of one;
- ``PARTS``: ``LieSelfAttention`` on a lifted cloud (with edges, farthest-point subsampling with and without its
  index cache, run twice so the cache is read), ``LieSelfAttentionWrapper``, ``FeedForward``, ``FPSsubsample``
  (subsampling or not), ``GlobalPool`` (mean or sum), ``SequentialSequence`` and ``ReversibleSequence`` over the
  library's layers;
- ``FUNCTIONS``: through ``gt_calls.Call``: ``FPSindices``, ``batched_index_select`` (indices of two and three
  dimensions, another dimension), the Taylor-guarded ``sinc``, ``sincc``, ``cosc``, ``coscc`` and ``sinc_inv``,
  ``cross_matrix`` and ``uncross_matrix``, and the group methods (``SO3``: ``exp``, ``log``, ``inv``,
  ``elems2pairs``; ``SE3``: ``exp``, ``log``, ``elems2pairs``, ``distance``, ``lifted_elems``, ``lift`` per point or
  shared, with edges);
- ``TRAIN``: training steps (bench code holding the library's modules): a regression loss backward with an Adam
  step, the reversible model's backward (its custom backward pass), tokens with edges, a masked-mean-pooled
  classifier with an SGD step, a subsampling attention layer's backward.

Left out, as broken in this version: ``return_pooled`` (``GlobalPool`` unpacks three of the four values the layers
pass), ``ds_frac`` below 1 in ``LieTransformer`` (the residual adds the subsampled cloud to the full one), a tuple
``fill`` (passed whole to every layer) and ``SO3`` in attention (it has no ``distance``). Random weights and
inputs, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, POINTS, DIM, HEADS, DIM_HEAD, LIFT, TOKENS, EDGE_TYPES, EDGE_DIM = 2, 6, 16, 2, 8, 2, 10, 3, 4
BASE: dict[str, Any] = {"heads": HEADS, "dim_head": DIM_HEAD, "depth": 1, "nbhd": 8, "liftsamples": LIFT}
REV: dict[str, Any] = {"reversible": True}
TOKEN: dict[str, Any] = {"num_tokens": TOKENS}
EDGES: dict[str, Any] = {"num_edge_types": EDGE_TYPES, "edge_dim": EDGE_DIM}
# ``LieTransformer`` name -> (keywords over ``BASE``, inputs: features or token ids, typed edges, a padded mask).
TRANSFORMER: dict[str, tuple[dict[str, Any], bool, bool, bool]] = {
    "LieTransformer": ({}, False, False, True),
    "LieTransformer.depth2": ({"depth": 2}, False, False, True),
    "LieTransformer.heads1": ({"heads": 1, "dim_head": 16}, False, False, True),
    "LieTransformer.liftsamples1": ({"liftsamples": 1}, False, False, True),
    "LieTransformer.liftsamples3": ({"liftsamples": 3}, False, False, True),
    "LieTransformer.nbhd4": ({"nbhd": 4}, False, False, True),
    "LieTransformer.nbhd64": ({"nbhd": 64}, False, False, True),
    "LieTransformer.fill_half": ({"fill": 0.5}, False, False, True),
    "LieTransformer.fill_over_one": ({"fill": 1.5}, False, False, True),
    "LieTransformer.dim_out": ({"dim_out": 4}, False, False, True),
    "LieTransformer.full_mask": ({}, False, False, False),
    "LieTransformer.reversible": (REV, False, False, True),
    "LieTransformer.reversible.depth2": ({**REV, "depth": 2}, False, False, True),
    "LieTransformer.tokens": (TOKEN, True, False, True),
    "LieTransformer.edges": (EDGES, False, True, True),
    "LieTransformer.tokens.edges": ({**TOKEN, **EDGES}, True, True, True),
    "LieTransformer.reversible.edges": ({**REV, **EDGES}, False, True, True),
    "LieTransformer.batch1": ({}, False, False, True),
}
PARTS = ("LieSelfAttention", "LieSelfAttention.edges", "LieSelfAttention.mc_samples4", "LieSelfAttention.ds_frac",
         "LieSelfAttention.ds_frac.cache", "LieSelfAttention.ds_frac.edges", "LieSelfAttentionWrapper",
         "LieSelfAttentionWrapper.ds_frac", "FeedForward", "FPSsubsample", "FPSsubsample.ds_frac",
         "FPSsubsample.ds_frac.edges", "GlobalPool.mean", "GlobalPool.sum", "SequentialSequence",
         "ReversibleSequence")
# Function name -> (a module-level function of ``lie_transformer_pytorch`` ("se3.<name>") or a group method
# ("SO3.<name>", "SE3.<name>"), input kinds, fixed keywords; a "mask" keyword names an input kind).
FUNCTIONS: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "FPSindices": ("FPSindices", ("dists",), {"frac": 0.5, "mask": "mask"}),
    "FPSindices.full_mask": ("FPSindices", ("dists",), {"frac": 0.34, "mask": "full_mask"}),
    "batched_index_select": ("batched_index_select", ("feats", "indices"), {}),
    "batched_index_select.3d": ("batched_index_select", ("feats", "indices3"), {}),
    "batched_index_select.dim2": ("batched_index_select", ("pairs", "indices3"), {"dim": 2}),
    "se3.sinc": ("se3.sinc", ("angles",), {}),
    "se3.sincc": ("se3.sincc", ("angles",), {}),
    "se3.cosc": ("se3.cosc", ("angles",), {}),
    "se3.coscc": ("se3.coscc", ("angles",), {}),
    "se3.sinc_inv": ("se3.sinc_inv", ("angles",), {}),
    "se3.cross_matrix": ("se3.cross_matrix", ("so3",), {}),
    "se3.uncross_matrix": ("se3.uncross_matrix", ("skew",), {}),
    "SO3.exp": ("SO3.exp", ("so3",), {}),
    "SO3.log": ("SO3.log", ("rotations",), {}),
    "SO3.inv": ("SO3.inv", ("rotations",), {}),
    "SO3.elems2pairs": ("SO3.elems2pairs", ("so3",), {}),
    "SE3.exp": ("SE3.exp", ("se3",), {}),
    "SE3.log": ("SE3.log", ("transforms",), {}),
    "SE3.elems2pairs": ("SE3.elems2pairs", ("se3",), {}),
    "SE3.distance": ("SE3.distance", ("pairs6",), {}),
    "SE3.lifted_elems": ("SE3.lifted_elems", ("coors",), {"nsamples": LIFT}),
    "SE3.lift": ("SE3.lift", ("cloud",), {"nsamples": LIFT}),
    "SE3.lift.shared": ("SE3.lift.shared", ("cloud",), {"nsamples": 3}),
    "SE3.lift.edges": ("SE3.lift", ("cloud_edges",), {"nsamples": LIFT}),
}
TRAIN = ("train.LieTransformer.adam", "train.LieTransformer.reversible", "train.LieTransformer.tokens.edges",
         "train.classifier.sgd", "train.LieSelfAttention.ds_frac")


def names() -> list[str]:
    return [*TRANSFORMER, *PARTS, *FUNCTIONS, *TRAIN]


def _randn(*shape: int, seed: int = 1, scale: float = 1.0) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) * scale


def _mask(batch: int = BATCH, padded: bool = True) -> Any:
    import torch

    mask = torch.ones(batch, POINTS, dtype=torch.bool)
    if padded:
        mask[-1, -2:] = False
    return mask


def _edges(batch: int = BATCH) -> Any:
    import torch

    return torch.randint(0, EDGE_TYPES, (batch, POINTS, POINTS), generator=torch.Generator().manual_seed(3))


def _cloud(batch: int = BATCH, tokens: bool = False) -> tuple[Any, Any]:
    """Features (or token ids) and coordinates of ``batch`` clouds of ``POINTS`` points."""
    import torch

    if tokens:
        feats = torch.randint(0, TOKENS, (batch, POINTS), generator=torch.Generator().manual_seed(4))
    else:
        feats = _randn(batch, POINTS, DIM)
    return feats, _randn(batch, POINTS, 3, seed=2)


def _lifted(edges: bool = False) -> tuple[Any, Any, Any, Any]:
    """A lifted cloud: pair embeddings (batch, n x lift, n x lift, 6), values, mask and optional edge features."""
    from lie_transformer_pytorch.se3 import SE3

    feats, coors = _cloud()
    edge_feats = _randn(BATCH, POINTS, POINTS, EDGE_DIM, seed=5) if edges else None
    return SE3().lift((coors, feats, _mask(), edge_feats), LIFT)


def _transformer(name: str) -> Built:
    from lie_transformer_pytorch import LieTransformer

    keywords, tokens, edges, padded = TRANSFORMER[name]
    batch = 1 if name.endswith("batch1") else BATCH
    model = LieTransformer(DIM, **{**BASE, **keywords})
    feats, coors = _cloud(batch, tokens)
    kwargs: dict[str, Any] = {"mask": _mask(batch, padded)}
    if edges:
        kwargs["edges"] = _edges(batch)
    return model, (feats, coors), kwargs


def _attention(ds_frac: float = 1.0, cache: bool = False, edges: bool = False, mc_samples: int = 8) -> Any:
    from lie_transformer_pytorch.lie_transformer_pytorch import LieSelfAttention

    return LieSelfAttention(DIM, edge_dim=EDGE_DIM if edges else None, mc_samples=mc_samples, ds_frac=ds_frac,
                            heads=HEADS, dim_head=DIM_HEAD, cache=cache)


def _part(name: str) -> Built:
    import torch
    from lie_transformer_pytorch import lie_transformer_pytorch as lt
    from lie_transformer_pytorch import reversible

    from gt_calls import Run

    if name.startswith("LieSelfAttention."):
        flags = name.split(".")[1:]
        edges = "edges" in flags
        attention = _attention(0.5 if "ds_frac" in flags else 1.0, "cache" in flags, edges,
                               4 if "mc_samples4" in flags else 8)
        if "cache" in flags:
            def twice(owner: Any, *inp: Any) -> Any:
                """Two passes: the second reads the farthest-point indices the first cached."""
                first = owner(inp)
                return first[1] + owner(inp)[1]

            return Run(attention, twice, [lt.LieSelfAttention]), _lifted(), {}
        return attention, (_lifted(edges),), {}
    if name == "LieSelfAttention":
        return _attention(), (_lifted(),), {}
    if name.startswith("LieSelfAttentionWrapper"):
        attention = _attention(0.5 if name.endswith("ds_frac") else 1.0)
        return lt.LieSelfAttentionWrapper(DIM, attention), (_lifted(),), {}
    if name == "FeedForward":
        return lt.FeedForward(DIM, mult=2), (_lifted(),), {}
    if name.startswith("FPSsubsample"):
        subsample = lt.FPSsubsample(0.5 if "ds_frac" in name else 1.0)
        return Run(subsample, lambda owner, *inp: owner(inp, withquery=True), [lt.FPSsubsample]), \
            _lifted(name.endswith("edges")), {}
    if name.startswith("GlobalPool"):
        feats, coors = _cloud()
        return Run(lt.GlobalPool(mean=name.endswith("mean")), lambda owner, c, v, m: owner((c, v.clone(), m)),
                   [lt.GlobalPool]), (coors, feats, _mask()), {}
    blocks = torch.nn.ModuleList([torch.nn.ModuleList([lt.LieSelfAttentionWrapper(DIM, _attention()),
                                                       lt.FeedForward(DIM, mult=2)])])
    if name == "SequentialSequence":
        return Run(reversible.SequentialSequence(blocks), lambda owner, *inp: owner(inp),
                   [reversible.SequentialSequence]), _lifted(), {}
    return Run(reversible.ReversibleSequence(blocks), lambda owner, *inp: owner(inp),
               [reversible.ReversibleSequence]), _lifted(), {}


def _function(name: str) -> Built:
    import torch
    from lie_transformer_pytorch import lie_transformer_pytorch as lt
    from lie_transformer_pytorch import se3

    from gt_calls import Call

    target, kinds, fixed = FUNCTIONS[name]
    generator = torch.Generator().manual_seed(6)
    feats, coors = _cloud()
    so3 = _randn(BATCH, POINTS, 3, scale=0.5)
    so3[0, 0] = 0.01  # near zero: the Taylor branch
    se3_elems = torch.cat([so3, _randn(BATCH, POINTS, 3, seed=3)], dim=-1)
    inputs: dict[str, Any] = {
        "dists": torch.cdist(coors, coors),
        "mask": _mask(),
        "full_mask": _mask(padded=False),
        "feats": feats,
        "pairs": _randn(BATCH, POINTS, POINTS, DIM),
        "indices": torch.randint(0, POINTS, (BATCH, 3), generator=generator),
        "indices3": torch.randint(0, POINTS, (BATCH, 3, 4), generator=generator),
        "angles": torch.linspace(-2.0, 2.0, 9),
        "so3": so3,
        "skew": se3.cross_matrix(so3),
        "rotations": se3.SO3().exp(so3),
        "se3": se3_elems,
        "transforms": se3.SE3().exp(se3_elems),
        "pairs6": se3.SE3().elems2pairs(se3_elems),
        "coors": coors,
        "cloud": (coors, feats, _mask(), None),
        "cloud_edges": (coors, feats, _mask(), _randn(BATCH, POINTS, POINTS, EDGE_DIM, seed=5)),
    }
    if target.startswith(("SO3.", "SE3.")):
        group_name, method = target.split(".")[:2]
        group = se3.SE3(per_point=False) if target.endswith("shared") else getattr(se3, group_name)()
        function = getattr(group, method)
    elif target.startswith("se3."):
        function = getattr(se3, target[4:])
    else:
        function = getattr(lt, target)
    if "mask" in fixed:
        fixed = {**fixed, "mask": inputs[fixed["mask"]]}
    return Call(function, **fixed), tuple(inputs[kind] for kind in kinds), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from lie_transformer_pytorch import LieTransformer
    from lie_transformer_pytorch.lie_transformer_pytorch import LieSelfAttention
    from torch import nn

    from gt_calls import Run

    def step_with(optimizer: Any | None) -> Any:
        def apply(loss: Any) -> Any:
            if torch.is_grad_enabled():
                if optimizer is not None:
                    optimizer.zero_grad()
                loss.backward()
                if optimizer is not None:
                    optimizer.step()
            return loss.detach()
        return apply

    mask = _mask()
    if name == "train.LieSelfAttention.ds_frac":
        attention = _attention(0.5)
        apply = step_with(None)
        lifted = _lifted()
        return Run(attention, lambda owner, *inp: apply(owner(inp)[1].pow(2).mean()), [LieSelfAttention]), lifted, {}
    if name == "train.classifier.sgd":
        classes = 3

        class Classifier(nn.Module):
            """The transformer's point features, mean-pooled over the valid lifted points, then a linear head."""

            def __init__(self) -> None:
                super().__init__()
                self.net = LieTransformer(DIM, **BASE)
                self.head = nn.Linear(DIM, classes)

            def forward(self, feats: Any, coors: Any, mask: Any) -> Any:
                out = self.net(feats, coors, mask=mask)
                lifted_mask = mask.repeat_interleave(LIFT, dim=1)[..., None].float()
                return self.head((out * lifted_mask).sum(1) / lifted_mask.sum(1))

        classifier = Classifier()
        apply = step_with(torch.optim.SGD(classifier.parameters(), lr=0.1, momentum=0.9))
        labels = torch.randint(0, classes, (BATCH,), generator=torch.Generator().manual_seed(7))
        feats, coors = _cloud()
        return Run(classifier, lambda owner, f, c, m, y: apply(F.cross_entropy(owner(f, c, m), y)),
                   [LieTransformer]), (feats, coors, mask, labels), {}
    tokens = name.endswith("edges")
    keywords = {**TOKEN, **EDGES} if tokens else REV if name.endswith("reversible") else {}
    model = LieTransformer(DIM, **{**BASE, **keywords})
    apply = step_with(torch.optim.Adam(model.parameters(), lr=1e-3) if name.endswith("adam") else None)
    feats, coors = _cloud(tokens=tokens)
    target = _randn(BATCH, POINTS * LIFT, DIM, seed=8)
    if tokens:
        return Run(model, lambda owner, f, c, e, m, t: apply(F.mse_loss(owner(f, c, edges=e, mask=m), t)),
                   [LieTransformer]), (feats, coors, _edges(), mask, target), {}
    return Run(model, lambda owner, f, c, m, t: apply(F.mse_loss(owner(f, c, mask=m), t)), [LieTransformer]), \
        (feats, coors, mask, target), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in TRANSFORMER:
        return _transformer(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
