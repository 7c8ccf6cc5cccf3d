"""Ground-truth bench, hyper_connections: hyper-connections, frac-connections and manifold-constrained residual streams.

hyper-connections 0.4.11 replaces a residual connection ``x + f(x)`` by several residual streams mixed by learned
static and input-dependent weights (Zhu et al. 2024): a "width connection" mixes the streams into the branch input
and the next streams, a "depth connection" spreads the branch output back over the streams. Its modules:

- ``hyper_connections.HyperConnections`` (streams folded into the batch, ``(batch * streams, ..., dim)``): a branch
  given at construction or used by hand (``forward`` then returns the branch input and an ``add_residual``
  function; ``decorate_branch`` wraps a callable), channel-first inputs, tanh or not, several input views,
  frac-connections (``num_fracs``), no depth connection, a custom depth residual function, dropout, branch outputs
  that are pytrees (the first leaf gets the residual); ``Residual`` for one stream; ``StreamEmbed``,
  ``AttentionPoolReduceStream`` and the ``get_init_and_expand_reduce_stream_functions`` factory;
- ``ManifoldConstrainedHyperConnections`` (``mHC``): the residual mix projected on doubly stochastic matrices by
  Sinkhorn-Knopp iterations (plain or log-domain, or any constraint function), a sigmoid on the pre and post mixes,
  several dynamic-alpha proposals averaged, a residual transform, forwarded branch methods;
- ``mHCv2`` (streams as their own axis, ``(..., streams, dim)``): the same with a 1 x 1 convolution mixing the
  streams before the norm, an attention-pool reduction, a Triton Sinkhorn request (falls back on the CPU), and the
  ``vit.ViT`` and ``vit.Transformer`` built on it;
- ``hyper_connections_channel_first.HyperConnections`` (1 x 1 convolutions over images),
  ``hyper_connections_with_multi_input_streams.HyperConnections`` (extra residual streams taken from a branch's
  positional or keyword arguments, of the same or another width), and
  ``hyper_connections_with_multi_branch_inputs.HyperConnections`` (several branch inputs, one or several branches);
- ``residuals``: ``GatedResidual``, ``GRUGatedResidual``, ``OrthogonalResidualUpdate`` and
  ``MVSplitResidualUpdate``, used as the depth residual function.

The tables cover, at width 8, 4 streams (2 too), a batch of 2, sequences of 5 (4 x 4 images for the channel-first
ones, 8 x 8 for the ViT), small bench branches (a feedforward, an attention block, a convolution, a branch taking a
mask keyword, a branch returning a tuple, a branch reading several views):

- ``MODELS``: each class's forward under its options, with the branch attached at construction;
- ``MANUAL``: the branch used by hand (``forward`` without a branch, then ``add_residual``) and ``decorate_branch``;
- ``STACKS``: small transformers and CNNs assembled with the factory (expand, layers, reduce), stream embeddings and
  attention-pool reduction, the library's ViT;
- ``TRAIN``: training steps: a loss backward and an Adam or SGD step through several of the stacks.

Left out: ``triton_sinkhorn`` itself (Triton is absent here; asking for it falls back, which ``MODELS`` covers), the
multi-branch-inputs module's own ``get_init_and_expand_reduce_stream_functions`` (declared with a ``cls`` argument
but bound as a static method, so it cannot be called as written), and mHC v1 with ``channel_first`` (its width
connection returns the streams channel-last while the depth connection adds them channel-first: it fails eagerly);
several input views in ``mHC`` and ``mHCv2`` (the alpha scale is repeated per view but the dynamic alpha is not: it
fails eagerly), frac-connections with ``channel_first`` in ``HyperConnections`` (the fractions are merged on the
wrong axis: it fails eagerly), and bfloat16 streams in ``mHC`` (a bench branch in float32 cannot take them).
Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, STREAMS, SEQ, DIM, HW = 2, 4, 5, 8, 4
HC = "hyper_connections.hyper_connections:HyperConnections"
MHC = "hyper_connections.manifold_constrained_hyper_connections:ManifoldConstrainedHyperConnections"
MHC2 = "hyper_connections.mHCv2:ManifoldConstrainedHyperConnections"
CF = "hyper_connections.hyper_connections_channel_first:HyperConnections"
MIS = "hyper_connections.hyper_connections_with_multi_input_streams:HyperConnections"
MBI = "hyper_connections.hyper_connections_with_multi_branch_inputs:HyperConnections"

# name -> (class path, streams, constructor keywords, branch, input): branch one of "ff", "attn", "conv", "tuple",
# "views", "mask", "ctx", "ctx_kw", "ctx_wide", "pair", "ff_list"; input one of "seq" ((batch * streams, seq, dim)),
# "vec" ((batch * streams, dim)), "image" ((batch * streams, dim, h, w)), "streams" ((batch, seq, streams, dim)),
# "streams_image" ((batch, streams, dim, h, w)), with "+mask" / "+ctx" / "+ctx_kw" / "+ctx_wide" for extra inputs.
MODELS: dict[str, tuple[str, int, dict[str, Any], str, str]] = {
    "HyperConnections": (HC, STREAMS, {}, "ff", "seq"),
    "HyperConnections.attn": (HC, STREAMS, {}, "attn", "seq"),
    "HyperConnections.vector": (HC, STREAMS, {}, "ff", "vec"),
    "HyperConnections.streams2.no_tanh": (HC, 2, {"tanh": False}, "ff", "seq"),
    "HyperConnections.random_layer_index": (HC, STREAMS, {"layer_index": None}, "ff", "seq"),
    "HyperConnections.channel_first": (HC, STREAMS, {"channel_first": True}, "conv", "image"),
    "HyperConnections.dropout": (HC, STREAMS, {"dropout": 0.1}, "ff", "seq"),
    "HyperConnections.no_depth_connection": (HC, STREAMS, {"add_branch_out_to_residual": False}, "ff", "seq"),
    "HyperConnections.input_views2": (HC, STREAMS, {"num_input_views": 2}, "views", "seq"),
    "HyperConnections.fracs2": (HC, STREAMS, {"num_fracs": 2}, "ff", "seq"),
    "HyperConnections.fracs4.streams1": (HC, 1, {"num_fracs": 4}, "ff", "seq"),
    "HyperConnections.fracs2.input_views2": (HC, 2, {"num_fracs": 2, "num_input_views": 2}, "views", "seq"),
    "HyperConnections.tuple_output": (HC, STREAMS, {}, "tuple", "seq"),
    "HyperConnections.branch_kwargs": (HC, STREAMS, {}, "mask", "seq+mask"),
    "HyperConnections.GatedResidual": (HC, STREAMS, {"depth_residual_fn": "GatedResidual"}, "ff", "seq"),
    "HyperConnections.GatedResidual.fine_gate": (HC, STREAMS, {"depth_residual_fn": "GatedResidual.fine"}, "ff",
                                                 "seq"),
    "HyperConnections.GRUGatedResidual": (HC, STREAMS, {"depth_residual_fn": "GRUGatedResidual"}, "ff", "seq"),
    "HyperConnections.OrthogonalResidualUpdate": (HC, STREAMS, {"depth_residual_fn": "Orthogonal"}, "ff", "seq"),
    "HyperConnections.OrthogonalResidualUpdate.single": (HC, STREAMS, {"depth_residual_fn": "Orthogonal.single"},
                                                         "ff", "seq"),
    "HyperConnections.MVSplitResidualUpdate": (HC, STREAMS, {"depth_residual_fn": "MVSplit"}, "ff", "seq"),
    "Residual": ("hyper_connections.hyper_connections:Residual", 1, {}, "ff", "seq"),
    "Residual.residual_transform": ("hyper_connections.hyper_connections:Residual", 1,
                                    {"residual_transform": "linear"}, "tuple", "seq"),
    "mHC": (MHC, STREAMS, {}, "ff", "seq"),
    "mHC.attn": (MHC, STREAMS, {}, "attn", "seq"),
    "mHC.log_domain_sinkhorn": (MHC, STREAMS, {"log_domain_sinkhorn": True, "sinkhorn_iters": 5}, "ff", "seq"),
    "mHC.sinkhorn_iters3.vector": (MHC, STREAMS, {"sinkhorn_iters": 3}, "ff", "vec"),
    "mHC.softmax_constraint": (MHC, STREAMS, {"residual_mix_constraint_fn": "softmax"}, "ff", "seq"),
    "mHC.proposals3": (MHC, STREAMS, {"num_dynamic_alpha_proposals": 3}, "ff", "seq"),
    "mHC.residual_transform": (MHC, STREAMS, {"residual_transform": "linear"}, "ff", "seq"),
    "mHC.fracs2": (MHC, STREAMS, {"num_fracs": 2}, "ff", "seq"),
    "mHC.no_depth_connection.dropout": (MHC, STREAMS, {"add_branch_out_to_residual": False, "dropout": 0.1}, "ff",
                                        "seq"),
    "mHC.tuple_output.branch_kwargs": (MHC, STREAMS, {}, "mask_tuple", "seq+mask"),
    "mHC.MVSplitResidualUpdate": (MHC, STREAMS, {"depth_residual_fn": "MVSplit"}, "ff", "seq"),
    "mHCv2": (MHC2, STREAMS, {}, "ff", "streams"),
    "mHCv2.attn": (MHC2, STREAMS, {}, "attn", "streams"),
    "mHCv2.mix_streams_before_norm": (MHC2, STREAMS, {"mix_streams_before_norm": True}, "ff", "streams"),
    "mHCv2.use_triton_sinkhorn": (MHC2, STREAMS, {"use_triton_sinkhorn": True}, "ff", "streams"),
    "mHCv2.log_domain_sinkhorn": (MHC2, STREAMS, {"log_domain_sinkhorn": True, "sinkhorn_iters": 4}, "ff",
                                  "streams"),
    "mHCv2.sinkhorn_iters0": (MHC2, STREAMS, {"sinkhorn_iters": 0}, "ff", "streams"),
    "mHCv2.fracs2": (MHC2, STREAMS, {"num_fracs": 2}, "ff", "streams"),
    "mHCv2.fracs2.mix_streams_before_norm": (MHC2, 2, {"num_fracs": 2, "mix_streams_before_norm": True}, "ff",
                                             "streams"),
    "mHCv2.proposals2.dropout": (MHC2, STREAMS, {"num_dynamic_alpha_proposals": 2, "dropout": 0.1}, "ff",
                                 "streams"),
    "mHCv2.no_depth_connection": (MHC2, STREAMS, {"add_branch_out_to_residual": False}, "ff", "streams"),
    "mHCv2.residual_transform": (MHC2, STREAMS, {"residual_transform": "linear"}, "ff", "streams"),
    "mHCv2.tuple_output": (MHC2, STREAMS, {}, "tuple", "streams"),
    "ChannelFirst": (CF, STREAMS, {}, "conv", "image"),
    "ChannelFirst.no_tanh.dropout": (CF, 2, {"tanh": False, "dropout": 0.1}, "conv", "image"),
    "MultiInputStreams.positional": (MIS, STREAMS, {"additional_input_paths": [1]}, "ctx", "seq+ctx"),
    "MultiInputStreams.keyword": (MIS, STREAMS, {"additional_input_paths": ["context"]}, "ctx_kw", "seq+ctx_kw"),
    "MultiInputStreams.other_width": (MIS, STREAMS, {"additional_input_paths": [(1, 6)]}, "ctx_wide",
                                      "seq+ctx_wide"),
    "MultiInputStreams.no_additional.no_tanh": (MIS, STREAMS, {"tanh": False}, "ff", "seq"),
    "MultiBranchInputs.one_branch": (MBI, STREAMS, {"num_branch_inputs": 2}, "ff", "seq"),
    "MultiBranchInputs.two_branches": (MBI, STREAMS, {"num_branch_inputs": 2}, "ff_list", "seq"),
    "MultiBranchInputs.single_input": (MBI, 2, {}, "ff", "seq"),
    "MultiBranchInputs.channel_first": (MBI, 2, {"num_branch_inputs": 2, "channel_first": True}, "conv", "image"),
}
MANUAL = ("HyperConnections.manual", "HyperConnections.decorate_branch", "HyperConnections.manual.tuple_output",
          "Residual.decorate_branch", "mHC.manual", "mHC.decorate_branch", "mHC.forward_method_names",
          "mHCv2.manual", "mHCv2.decorate_branch", "ChannelFirst.decorate_branch", "MultiInputStreams.manual",
          "MultiInputStreams.decorate_branch", "MultiBranchInputs.manual", "MultiBranchInputs.decorate_branch.list")
STACKS = ("Transformer.HyperConnections", "Transformer.HyperConnections.stream_embed",
          "Transformer.HyperConnections.fracs2", "Transformer.disabled", "Transformer.mHC",
          "Transformer.mHC.stream_embed.fracs2", "Transformer.mHCv2", "Transformer.mHCv2.attn_pool.stream_embed",
          "Transformer.HyperConnections.attention_pool", "CNN.ChannelFirst", "CNN.HyperConnections.channel_first",
          "StreamEmbed.channel_first", "vit.ViT.cls", "vit.ViT.mean.proposals2", "vit.Transformer")
TRAIN = ("train.Transformer.HyperConnections.adam", "train.Transformer.mHC.adam", "train.Transformer.mHCv2.adam",
         "train.vit.ViT.cls.adam", "train.CNN.ChannelFirst.sgd", "train.HyperConnections.fracs2.sgd",
         "train.MultiBranchInputs.two_branches.adam")


def names() -> list[str]:
    return [*MODELS, *MANUAL, *STACKS, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: Any = None) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _resolve(path: str) -> Any:
    import importlib

    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def _branches() -> dict[str, Any]:
    """Bench branch modules: what a transformer or a CNN puts behind a residual connection."""
    import torch
    from torch import nn

    class FeedForward(nn.Module):
        def __init__(self, dim: int = DIM) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

        def get_hidden_dim(self) -> int:
            return 2 * DIM

    class Attention(nn.Module):
        def __init__(self, dim: int = DIM, heads: int = 2) -> None:
            super().__init__()
            self.heads = heads
            self.norm = nn.LayerNorm(dim)
            self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
            self.to_out = nn.Linear(dim, dim)

        def forward(self, x: torch.Tensor, mask: Any = None) -> torch.Tensor:
            b, n, d = x.shape
            q, k, v = self.to_qkv(self.norm(x)).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            attn_mask = None if mask is None else mask[:, None, None, :]
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
            return self.to_out(out.transpose(1, 2).reshape(b, n, d))

    class MaskedFeedForward(FeedForward):
        def forward(self, x: torch.Tensor, mask: Any = None) -> torch.Tensor:  # type: ignore[override]
            out = self.net(x)
            return out if mask is None else out * mask[..., None]

    class TupleFeedForward(FeedForward):
        """A branch returning its output and an auxiliary loss."""

        def forward(self, x: torch.Tensor, mask: Any = None) -> Any:  # type: ignore[override]
            out = self.net(x)
            if mask is not None:
                out = out * mask[..., None]
            return out, out.pow(2).mean()

    class Views(nn.Module):
        """A branch reading several input views (placed before the batch), e.g. query and key/value inputs."""

        def __init__(self, dim: int = DIM) -> None:
            super().__init__()
            self.ff = FeedForward(dim)
            self.gate = nn.Linear(dim, dim)

        def forward(self, views: torch.Tensor) -> torch.Tensor:
            return self.ff(views[0]) * self.gate(views[1]).sigmoid()

    class Conv(nn.Module):
        def __init__(self, dim: int = DIM) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.GroupNorm(1, dim), nn.Conv2d(dim, dim, 3, padding=1), nn.SiLU(),
                                     nn.Conv2d(dim, dim, 1))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

    class CrossFeedForward(nn.Module):
        """A branch taking a second stream of context (positional or keyword), of width ``ctx_dim``."""

        def __init__(self, dim: int = DIM, ctx_dim: int = DIM) -> None:
            super().__init__()
            self.ff = FeedForward(dim)
            self.ctx = nn.Linear(ctx_dim, dim)

        def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
            return self.ff(x) + self.ctx(context)

    return {"ff": FeedForward, "attn": Attention, "mask": MaskedFeedForward, "tuple": TupleFeedForward,
            "mask_tuple": TupleFeedForward, "views": Views, "conv": Conv, "ctx": CrossFeedForward,
            "ctx_kw": CrossFeedForward, "ctx_wide": lambda: CrossFeedForward(ctx_dim=6)}


def _branch(kind: str) -> Any:
    table = _branches()
    if kind == "ff_list":
        return [table["ff"](), table["ff"]()]
    return table[kind]()


def _keyword(key: str, value: Any) -> Any:
    import torch
    from torch import nn

    from hyper_connections import residuals as r

    if key == "depth_residual_fn":
        return {"GatedResidual": lambda: r.GatedResidual(DIM), "GatedResidual.fine": lambda: r.GatedResidual(
                    DIM, fine_gate=True), "GRUGatedResidual": lambda: r.GRUGatedResidual(DIM),
                "Orthogonal": lambda: r.OrthogonalResidualUpdate(),
                "Orthogonal.single": lambda: r.OrthogonalResidualUpdate(double_precision=False),
                "MVSplit": lambda: r.MVSplitResidualUpdate(DIM)}[value]()
    if key == "residual_transform":
        return nn.Linear(DIM, DIM)
    if key == "residual_mix_constraint_fn":
        return lambda t: torch.softmax(t, dim=-1)
    return value


def _inputs(kind: str, streams: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
    import torch

    base, _, extra = kind.partition("+")
    dtype = torch.bfloat16 if base.endswith("bfloat16") else None
    base = base.split(".")[0]
    if base == "seq":
        x = _randn(BATCH * streams, SEQ, DIM, dtype=dtype)
    elif base == "vec":
        x = _randn(BATCH * streams, DIM)
    elif base == "image":
        x = _randn(BATCH * streams, DIM, HW, HW)
    else:
        x = _randn(BATCH, SEQ, streams, DIM)
    args: tuple[Any, ...] = (x,)
    kwargs: dict[str, Any] = {}
    if extra == "mask":
        mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
        mask[1, -2:] = False
        kwargs["mask"] = mask
    elif extra == "ctx":
        args = (x, _randn(BATCH * streams, SEQ, DIM, seed=2))
    elif extra == "ctx_kw":
        kwargs["context"] = _randn(BATCH * streams, SEQ, DIM, seed=2)
    elif extra == "ctx_wide":
        args = (x, _randn(BATCH * streams, SEQ, 6, seed=2))
    return args, kwargs


def _construct(path: str, streams: int, keywords: dict[str, Any], branch: Any) -> Any:
    keywords = {k: _keyword(k, v) for k, v in keywords.items()}
    keywords.setdefault("layer_index", 1)
    klass = _resolve(path)
    if path.endswith(":Residual"):
        keywords.pop("layer_index")
        return klass(streams, branch=branch, **keywords)
    if branch is None:
        return klass(streams, dim=DIM, **keywords)
    return klass(streams, dim=DIM, branch=branch, **keywords)


def _model(name: str) -> Built:
    from gt_calls import Run

    path, streams, keywords, branch_kind, input_kind = MODELS[name]
    module = _construct(path, streams, keywords, _branch(branch_kind))
    args, kwargs = _inputs(input_kind, streams)
    if not kwargs:
        return module, args, {}
    keys = tuple(kwargs)
    return Run(module, lambda owner, *inputs: owner(*inputs[:len(args)],
                                                    **dict(zip(keys, inputs[len(args):]))),
               [type(module)]), (*args, *kwargs.values()), {}


def _manual(name: str) -> Built:
    import torch

    from gt_calls import Run

    family, _, rest = name.partition(".")
    path = {"HyperConnections": HC, "Residual": "hyper_connections.hyper_connections:Residual", "mHC": MHC,
            "mHCv2": MHC2, "ChannelFirst": CF, "MultiInputStreams": MIS, "MultiBranchInputs": MBI}[family]
    streams = 1 if family == "Residual" else STREAMS
    keywords: dict[str, Any] = {"num_branch_inputs": 2} if family == "MultiBranchInputs" else {}
    if family == "MultiInputStreams":
        keywords = {"additional_input_paths": [1]}
    if rest == "forward_method_names":
        module = _construct(path, streams, {"forward_method_names": ("get_hidden_dim",)}, _branch("ff"))

        def forwarded(owner: Any, x: torch.Tensor) -> torch.Tensor:
            return owner(x) * owner.get_hidden_dim()

        return Run(module, forwarded, [type(module)]), _inputs("seq", streams)[0], {}
    hyper = _construct(path, streams, keywords, None)
    kind = "conv" if family == "ChannelFirst" else ("ctx" if family == "MultiInputStreams" else "ff")
    if rest.endswith("tuple_output"):
        kind = "tuple"
    branch = _branch("ff_list" if rest.endswith("list") else kind)
    owner = torch.nn.ModuleDict({"hyper": hyper, "branch": torch.nn.ModuleList(branch if isinstance(branch, list)
                                                                                else [branch])})
    input_kind = {"mHCv2": "streams", "ChannelFirst": "image", "MultiInputStreams": "seq+ctx"}.get(family, "seq")
    args, _ = _inputs(input_kind, streams)

    if rest.startswith("decorate_branch"):
        fns = list(owner["branch"])
        decorated = hyper.decorate_branch(fns if rest.endswith("list") else fns[0])

        def run_decorated(holder: Any, *inputs: Any) -> Any:
            return decorated(*inputs)

        return Run(owner, run_decorated, [type(hyper).decorate_branch, type(hyper)]), args, {}

    def run_manual(holder: Any, *inputs: Any) -> Any:
        """The width connection, the branch called by the user, then ``add_residual``."""
        fns = list(holder["branch"])
        if family == "MultiInputStreams":
            (branch_args, branch_kwargs), add_residual = holder["hyper"](*inputs)
            return add_residual(fns[0](*branch_args, **branch_kwargs))
        branch_input, add_residual = holder["hyper"](*inputs)
        if family == "MultiBranchInputs":
            return add_residual(torch.cat([fns[0](x) for x in branch_input.chunk(2, dim=0)]))
        return add_residual(fns[0](branch_input))

    return Run(owner, run_manual, [type(hyper)]), args, {}


def _stack(name: str) -> Any:
    """A network assembled with the library's factory, as its README shows, and its input."""
    import torch
    from torch import nn

    import hyper_connections as hc
    from hyper_connections import mHCv2
    from hyper_connections import hyper_connections_channel_first as cf

    table = _branches()
    if name.startswith("vit."):
        from hyper_connections import vit

        if name == "vit.Transformer":
            return vit.Transformer(DIM, 2, 2, 4, 16, num_residual_streams=STREAMS,
                                   mhc_kwargs={"sinkhorn_iters": 5}), _randn(BATCH, SEQ, DIM)
        pool = "mean" if ".mean" in name else "cls"
        kwargs = {"num_dynamic_alpha_proposals": 2} if "proposals2" in name else {"num_dynamic_alpha_proposals": 1}
        return vit.ViT(image_size=8, patch_size=4, num_classes=5, dim=DIM, depth=1, heads=2, mlp_dim=16,
                       pool=pool, dim_head=4, num_residual_streams=STREAMS, mhc_kwargs=kwargs), \
            _randn(BATCH, 3, 8, 8)
    if name == "StreamEmbed.channel_first":
        return nn.Sequential(hc.StreamEmbed(STREAMS, DIM, channel_first=True, expand_to_streams=True),
                             hc.AttentionPoolReduceStream(STREAMS, DIM, channel_first=True)), \
            _randn(BATCH, DIM, HW, HW)
    if name.startswith("CNN."):
        if name == "CNN.ChannelFirst":
            init, expand, reduce = cf.get_init_and_expand_reduce_stream_functions(STREAMS)
            layers = [init(dim=DIM, branch=table["conv"](), layer_index=i) for i in range(2)]
        else:
            init, expand, reduce = hc.get_init_and_expand_reduce_stream_functions(STREAMS)
            layers = [init(dim=DIM, branch=table["conv"](), layer_index=i, channel_first=True) for i in range(2)]

        class CNN(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.stem = nn.Conv2d(3, DIM, 3, padding=1)
                self.expand, self.reduce = expand, reduce
                self.layers = nn.ModuleList(layers)
                self.head = nn.Linear(DIM, 5)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                x = self.expand(self.stem(x))
                for layer in self.layers:
                    x = layer(x)
                return self.head(self.reduce(x).mean(dim=(2, 3)))

        return CNN(), _randn(BATCH, 3, HW, HW)
    variant = name.split(".", 1)[1]
    stream_embed = "stream_embed" in variant
    if variant.startswith("mHCv2"):
        init, expand, reduce = mHCv2.get_init_and_expand_reduce_stream_functions(
            STREAMS, dim=DIM, add_stream_embed=stream_embed, add_attn_pool_reduce_stream="attn_pool" in variant,
            sinkhorn_iters=4)
    elif variant.startswith("mHC"):
        init, expand, reduce = hc.mc_get_init_and_expand_reduce_stream_functions(
            STREAMS, num_fracs=2 if "fracs2" in variant else 1, dim=DIM, add_stream_embed=stream_embed,
            sinkhorn_iters=4)
    elif variant == "disabled":
        init, expand, reduce = hc.get_init_and_expand_reduce_stream_functions(1, dim=DIM)
    else:
        init, expand, reduce = hc.get_init_and_expand_reduce_stream_functions(
            STREAMS, num_fracs=2 if "fracs2" in variant else 1, dim=DIM, add_stream_embed=stream_embed)
        if "attention_pool" in variant:
            reduce = hc.AttentionPoolReduceStream(STREAMS, DIM)

    class Transformer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(11, DIM)
            self.expand, self.reduce = expand, reduce
            self.layers = nn.ModuleList([init(branch=table["attn"](), layer_index=0),
                                         init(branch=table["ff"](), layer_index=1)])
            self.norm = nn.LayerNorm(DIM)
            self.to_logits = nn.Linear(DIM, 11)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            x = self.expand(self.embed(tokens))
            for layer in self.layers:
                x = layer(x)
            return self.to_logits(self.norm(self.reduce(x)))

    tokens = torch.randint(0, 11, (BATCH, SEQ), generator=torch.Generator().manual_seed(3))
    return Transformer(), tokens


def _entries(model: Any) -> list[Any]:
    found = [type(m) for m in model.modules() if type(m).__module__.startswith("hyper_connections")]
    return list(dict.fromkeys(found))


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run

    kind = name.split(".", 1)[1].rsplit(".", 1)[0]
    if kind in MODELS:
        model, args, _ = _model(kind)
    else:
        model, x = _stack(kind)
        args = (x,)
    with torch.no_grad():
        out = model(*args)
    if isinstance(out, torch.Tensor) and out.dtype.is_floating_point and out.dim() == 3 and out.shape[-1] == 11:
        target: Any = torch.randint(0, 11, out.shape[:-1], generator=torch.Generator().manual_seed(5))
        classify = True
    else:
        target, classify = torch.zeros_like(out) + 0.1, False
    params = list(model.parameters())
    optimizer: Any = torch.optim.SGD(params, lr=0.1) if name.endswith("sgd") else torch.optim.Adam(params, lr=1e-3)

    def step(owner: Any, *inputs: Any) -> torch.Tensor:
        """The loss, its gradients and an optimizer step."""
        out = owner(*inputs)
        loss = F.cross_entropy(out.transpose(1, 2), target) if classify else F.mse_loss(out, target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, _entries(model)), args, {}


def build(name: str) -> Built:
    import random
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    random.seed(0)
    if name in MODELS:
        return _model(name)
    if name in MANUAL:
        return _manual(name)
    if name in STACKS:
        from gt_calls import Run

        model, x = _stack(name)
        return Run(model, lambda owner, t: owner(t), _entries(model)), (x,), {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
