"""Ground-truth bench, torch_pruning (torch-pruning): structural pruning with a dependency graph.

Torch-Pruning traces a network once (``DependencyGraph.build_dependency``: a forward with hooks, then a
walk over the autograd graph) to learn which layers' channels must be removed together (a ``Group``),
scores each group's channels with an importance criterion and removes the weakest channels by slicing
the layers' parameters in place. A user's pruning loop builds a pruner once and then, between training
steps, calls ``pruner.step()`` (or iterates ``step(interactive=True)`` and prunes each group), sometimes
after a backward pass (gradient-based criteria) or with a sparsity regulariser added to the gradients
(``pruner.regularize``). So the models, on tiny networks (a residual CNN with batch norm, two concatenated
branches, a depthwise-separable CNN with group norm, an MLP with layer norm, a transformer block with a
fused-qkv attention, an ``nn.MultiheadAttention`` block and an LSTM; batch 2), are:

- ``IMPORTANCE``: the criteria evaluated on every group of a network, as the pruner does:
  ``MagnitudeImportance`` (p=1 / p=2, the group reductions mean, max, sum, prod, first and gate, the
  normalisers mean, max, sum, gaussian, standarization and lamp, with biases), ``BNScaleImportance``,
  ``LAMPImportance``, ``FPGMImportance``, ``RandomImportance``, ``GroupTaylorImportance`` (plain and
  multivariable, after a backward pass in the forward), ``GroupHessianImportance`` (per-sample
  gradients accumulated in the forward) and ``ActivationImportance`` (forward hooks recording the
  activations), on the CNN, the concatenation, the MLP, the attention block and the LSTM;
- ``PRUNER``: a forward that runs ``pruner.step()`` and then the pruned network: ``BasePruner`` with local
  and global pruning, isomorphic global pruning, ``round_to``, a per-layer ratio dictionary, a maximum
  ratio, several iterative steps, attention head-dimension and head pruning, the interactive step and
  the gradient-based criteria (not the LSTM: its output-channel pruning fails in eager too);
  ``BNScalePruner``, ``GroupNormPruner`` and ``GrowingRegPruner`` after a
  regularised backward (``regularize``, ``update_regularizer``);
- ``DEPGRAPH``: ``DependencyGraph.build_dependency`` in the compiled forward, ``get_pruning_group`` then
  ``Group.prune`` on chosen channels, ``get_all_groups``, and the low-level pruning functions
  (``prune_conv_out_channels``, ``prune_linear_in_channels``, batch, layer and group norms, embedding,
  multi-head attention, LSTM inputs, PReLU, a bare parameter) applied to a layer then the layer's forward;
- ``UTILS``: ``count_ops_and_params`` (plain and layer-wise, on the CNN, the attention blocks and the
  LSTM), ``utils.count_params``, ``estimate_importance`` and ``regularize`` of a pruner, and
  ``state_dict`` / ``load_state_dict`` of a pruned model.

Each compiled call prunes the network further (the harness calls it four times), so every network is
wide enough for four steps. Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in
a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, WIDTH, SEQ = 2, 32, 6

# Model name -> (importance class, keywords, net).
IMPORTANCE: dict[str, tuple[str, dict[str, Any], str]] = {
    "MagnitudeImportance.l2": ("MagnitudeImportance", {"p": 2}, "cnn"),
    "MagnitudeImportance.l1.sum.max": ("MagnitudeImportance", {"p": 1, "group_reduction": "sum",
                                                               "normalizer": "max"}, "cnn"),
    "MagnitudeImportance.max.gaussian": ("MagnitudeImportance", {"group_reduction": "max", "normalizer": "gaussian"},
                                         "cnn"),
    "MagnitudeImportance.prod.standarization": ("MagnitudeImportance", {"group_reduction": "prod",
                                                                        "normalizer": "standarization"}, "cnn"),
    "MagnitudeImportance.first.sum": ("MagnitudeImportance", {"group_reduction": "first", "normalizer": "sum"},
                                      "cnn"),
    "MagnitudeImportance.gate.lamp": ("MagnitudeImportance", {"group_reduction": "gate", "normalizer": "lamp"},
                                      "cnn"),
    "MagnitudeImportance.bias": ("MagnitudeImportance", {"bias": True}, "mlp"),
    "MagnitudeImportance.concat": ("MagnitudeImportance", {}, "concat"),
    "MagnitudeImportance.depthwise": ("MagnitudeImportance", {}, "depthwise"),
    "MagnitudeImportance.attention": ("MagnitudeImportance", {}, "attn"),
    "MagnitudeImportance.mha": ("MagnitudeImportance", {}, "mha"),
    "MagnitudeImportance.lstm": ("MagnitudeImportance", {}, "lstm"),
    "BNScaleImportance": ("BNScaleImportance", {}, "cnn"),
    "LAMPImportance": ("LAMPImportance", {}, "cnn"),
    "FPGMImportance": ("FPGMImportance", {}, "cnn"),
    "FPGMImportance.mlp": ("FPGMImportance", {"bias": True}, "mlp"),
    "RandomImportance": ("RandomImportance", {}, "cnn"),
    "GroupTaylorImportance": ("GroupTaylorImportance", {}, "cnn"),
    "GroupTaylorImportance.multivariable": ("GroupTaylorImportance", {"multivariable": True}, "cnn"),
    "GroupTaylorImportance.attention": ("GroupTaylorImportance", {}, "attn"),
    "GroupHessianImportance": ("GroupHessianImportance", {}, "cnn"),
    "GroupHessianImportance.mlp": ("GroupHessianImportance", {}, "mlp"),
    "ActivationImportance": ("ActivationImportance", {}, "cnn"),
}
# Model name -> (pruner class, net, importance class, pruner keywords). "heads" stands for the attention's
# head count, "ratio_dict" for a per-layer ratio of the net's first layer.
PRUNER: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "BasePruner.cnn": ("BasePruner", "cnn", "MagnitudeImportance", {}),
    "BasePruner.cnn.global": ("BasePruner", "cnn", "MagnitudeImportance", {"global_pruning": True}),
    "BasePruner.cnn.global.isomorphic": ("BasePruner", "cnn", "MagnitudeImportance", {"global_pruning": True,
                                                                                      "isomorphic": True}),
    "BasePruner.cnn.round_to": ("BasePruner", "cnn", "MagnitudeImportance", {"round_to": 4}),
    "BasePruner.cnn.ratio_dict.max_ratio": ("BasePruner", "cnn", "MagnitudeImportance",
                                            {"pruning_ratio_dict": "ratio_dict", "max_pruning_ratio": 0.6}),
    "BasePruner.cnn.bn_scale": ("BasePruner", "cnn", "BNScaleImportance", {}),
    "BasePruner.cnn.lamp.global": ("BasePruner", "cnn", "LAMPImportance", {"global_pruning": True}),
    "BasePruner.cnn.fpgm": ("BasePruner", "cnn", "FPGMImportance", {}),
    "BasePruner.cnn.random": ("BasePruner", "cnn", "RandomImportance", {}),
    "BasePruner.cnn.taylor": ("BasePruner", "cnn", "GroupTaylorImportance", {}),
    "BasePruner.cnn.hessian": ("BasePruner", "cnn", "GroupHessianImportance", {}),
    "BasePruner.cnn.interactive": ("BasePruner", "cnn", "MagnitudeImportance", {}),
    "BasePruner.concat": ("BasePruner", "concat", "MagnitudeImportance", {}),
    "BasePruner.depthwise.groupnorm": ("BasePruner", "depthwise", "MagnitudeImportance", {"round_to": 4}),
    "BasePruner.mlp": ("BasePruner", "mlp", "MagnitudeImportance", {}),
    "BasePruner.mlp.global": ("BasePruner", "mlp", "MagnitudeImportance", {"global_pruning": True}),
    "BasePruner.attention.head_dims": ("BasePruner", "attn", "MagnitudeImportance", {"num_heads": "heads"}),
    "BasePruner.attention.num_heads": ("BasePruner", "attn", "MagnitudeImportance",
                                       {"num_heads": "heads", "prune_num_heads": True, "prune_head_dims": False,
                                        "head_pruning_ratio": 0.25}),
    "BasePruner.mha": ("BasePruner", "mha", "MagnitudeImportance", {}),
    "BNScalePruner": ("BNScalePruner", "cnn", "BNScaleImportance", {}),
    "BNScalePruner.group_lasso": ("BNScalePruner", "cnn", "BNScaleImportance", {"group_lasso": True}),
    "GroupNormPruner": ("GroupNormPruner", "cnn", "MagnitudeImportance", {}),
    "GroupNormPruner.mlp": ("GroupNormPruner", "mlp", "MagnitudeImportance", {}),
    "GrowingRegPruner": ("GrowingRegPruner", "cnn", "MagnitudeImportance", {}),
}
DEPGRAPH = ("DependencyGraph.build_dependency.cnn", "DependencyGraph.build_dependency.attention",
            "DependencyGraph.build_dependency.lstm", "DependencyGraph.get_all_groups",
            "Group.prune.conv", "Group.prune.linear")
# Pruning function -> (layer kind, layer input kind).
FUNCTIONS: dict[str, tuple[str, str]] = {
    "prune_conv_out_channels": ("conv", "image"),
    "prune_conv_in_channels": ("conv", "image"),
    "prune_depthwise_conv_out_channels": ("depthwise", "image"),
    "prune_linear_out_channels": ("linear", "vector"),
    "prune_linear_in_channels": ("linear", "vector"),
    "prune_batchnorm_out_channels": ("bn", "image"),
    "prune_layernorm_out_channels": ("ln", "vector"),
    "prune_groupnorm_out_channels": ("gn", "image"),
    "prune_instancenorm_out_channels": ("in", "image"),
    "prune_prelu_out_channels": ("prelu", "image"),
    "prune_embedding_out_channels": ("embedding", "tokens"),
    "prune_multihead_attention_out_channels": ("mha", "sequence"),
    "prune_lstm_in_channels": ("lstm", "sequence"),
    "prune_parameter_out_channels": ("parameter", "vector"),
}
UTILS = ("count_ops_and_params.cnn", "count_ops_and_params.cnn.layer_wise", "count_ops_and_params.attention",
         "count_ops_and_params.mha", "count_ops_and_params.lstm", "count_params", "BasePruner.estimate_importance",
         "BasePruner.regularize", "state_dict.load_state_dict")


def names() -> list[str]:
    return (list(IMPORTANCE) + list(PRUNER) + list(DEPGRAPH) + [f"function.{n}" for n in FUNCTIONS]
            + list(UTILS))


def _nets() -> dict[str, Any]:
    """The network classes, defined in the worker (they need torch)."""
    import torch
    from torch import nn

    class ResidualCNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, WIDTH, 3, padding=1), nn.BatchNorm2d(WIDTH), nn.ReLU())
            self.block = nn.Sequential(nn.Conv2d(WIDTH, WIDTH, 3, padding=1), nn.BatchNorm2d(WIDTH), nn.ReLU(),
                                       nn.Conv2d(WIDTH, WIDTH, 3, padding=1), nn.BatchNorm2d(WIDTH))
            self.head = nn.Linear(WIDTH, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.stem(x)
            h = torch.relu(h + self.block(h))
            return self.head(h.mean((2, 3)))

    class Concat(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.left = nn.Sequential(nn.Conv2d(3, WIDTH, 3, padding=1), nn.BatchNorm2d(WIDTH), nn.ReLU())
            self.right = nn.Sequential(nn.Conv2d(3, WIDTH, 1), nn.BatchNorm2d(WIDTH), nn.ReLU())
            self.fuse = nn.Conv2d(2 * WIDTH, WIDTH, 1)
            self.head = nn.Linear(WIDTH, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.fuse(torch.cat([self.left(x), self.right(x)], dim=1))
            return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(h, 1), 1))

    class Depthwise(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, WIDTH, 3, padding=1), nn.GroupNorm(4, WIDTH), nn.PReLU(WIDTH),
                nn.Conv2d(WIDTH, WIDTH, 3, padding=1, groups=WIDTH), nn.BatchNorm2d(WIDTH), nn.ReLU(),
                nn.Conv2d(WIDTH, WIDTH, 1), nn.InstanceNorm2d(WIDTH, affine=True), nn.ReLU(),
                nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.head = nn.Linear(WIDTH, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.features(x))

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(8, WIDTH), nn.LayerNorm(WIDTH), nn.GELU(), nn.Linear(WIDTH, WIDTH),
                                      nn.ReLU())
            self.head = nn.Linear(WIDTH, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.body(x))

    class Attention(nn.Module):
        """A pre-norm transformer block with a fused qkv projection, as in ViTs."""

        def __init__(self, heads: int = 4) -> None:
            super().__init__()
            self.heads = heads
            self.embed = nn.Linear(8, WIDTH)
            self.norm1 = nn.LayerNorm(WIDTH)
            self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
            self.proj = nn.Linear(WIDTH, WIDTH)
            self.norm2 = nn.LayerNorm(WIDTH)
            self.fc1 = nn.Linear(WIDTH, 2 * WIDTH)
            self.fc2 = nn.Linear(2 * WIDTH, WIDTH)
            self.head = nn.Linear(WIDTH, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.embed(x)
            b, n, _ = x.shape
            q, k, v = self.qkv(self.norm1(x)).reshape(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
            attn = nn.functional.scaled_dot_product_attention(q, k, v)
            x = x + self.proj(attn.transpose(1, 2).reshape(b, n, -1))
            x = x + self.fc2(nn.functional.gelu(self.fc1(self.norm2(x))))
            return self.head(x.mean(1))

    class MHA(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Linear(8, WIDTH)
            self.attn = nn.MultiheadAttention(WIDTH, 4, batch_first=True)
            self.norm = nn.LayerNorm(WIDTH)
            self.head = nn.Linear(WIDTH, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.embed(x)
            h = self.norm(h + self.attn(h, h, h, need_weights=False)[0])
            return self.head(h.mean(1))

    class LSTM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Linear(8, WIDTH)
            self.lstm = nn.LSTM(WIDTH, WIDTH, batch_first=True)
            self.head = nn.Linear(WIDTH, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.lstm(self.embed(x))[0][:, -1])

    return {"cnn": ResidualCNN, "concat": Concat, "depthwise": Depthwise, "mlp": MLP, "attn": Attention,
            "mha": MHA, "lstm": LSTM}


def _input(kind: str) -> Any:
    import torch

    gen = torch.Generator().manual_seed(1)
    if kind in ("cnn", "concat", "depthwise"):
        return torch.randn(BATCH, 3, 8, 8, generator=gen)
    if kind == "mlp":
        return torch.randn(BATCH, 8, generator=gen)
    return torch.randn(BATCH, SEQ, 8, generator=gen)


def _groups(net: Any, x: Any) -> list[Any]:
    import torch_pruning as tp

    graph = tp.DependencyGraph().build_dependency(net, example_inputs=x)
    return list(graph.get_all_groups(ignored_layers=[net.head]))


def _backward(net: Any, x: Any, per_sample: Any = None) -> None:
    """A cross-entropy backward against fixed labels (per sample into ``per_sample``, a Hessian scorer)."""
    import torch
    import torch.nn.functional as F

    labels = torch.arange(x.shape[0]) % 4
    with torch.enable_grad():
        net.zero_grad()
        if per_sample is None:
            F.cross_entropy(net(x), labels).backward()
            return
        per_sample.zero_grad()
        for loss in F.cross_entropy(net(x), labels, reduction="none"):
            net.zero_grad()
            loss.backward(retain_graph=True)
            per_sample.accumulate_grad(net)


def _importance(name: str) -> Built:
    import torch
    import torch_pruning as tp
    from torch import nn

    cls, keywords, kind = IMPORTANCE[name]
    net = _nets()[kind]()
    x = _input(kind)
    groups = _groups(net, x)
    importance = getattr(tp.importance, cls)(**keywords)

    class _Scores(nn.Module):
        """The importance of every group's channels, after what the criterion needs (a backward pass,
        per-sample gradients, recorded activations)."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.importance = importance

        def forward(self, x: torch.Tensor) -> list[Any]:
            if cls == "GroupTaylorImportance":
                _backward(self.net, x)
            elif cls == "GroupHessianImportance":
                _backward(self.net, x, self.importance)
            elif cls == "ActivationImportance":
                with self.importance.compute_importance(self.net):
                    self.net(x)
            return [self.importance(group) for group in groups]

        def entry_points(self) -> list[Any]:
            return [type(self.importance).__call__]

    return _Scores(), (x,), {}


def _pruner(name: str, cls: str, kind: str, importance: str, keywords: dict[str, Any]) -> Any:
    import torch_pruning as tp

    net = _nets()[kind]()
    x = _input(kind)
    keywords = dict(keywords)
    if keywords.get("num_heads") == "heads":
        keywords["num_heads"] = {net.qkv: net.heads}
    if keywords.get("pruning_ratio_dict") == "ratio_dict":
        first = next(m for m in net.modules() if isinstance(m, (tp.ops.TORCH_CONV, tp.ops.TORCH_LINEAR)))
        keywords["pruning_ratio_dict"] = {first: 0.25}
    iterative = 1 if ".interactive" in name else 4
    pruner = getattr(tp.pruner, cls)(net, x, importance=getattr(tp.importance, importance)(),
                                     pruning_ratio=0.5, iterative_steps=iterative, ignored_layers=[net.head],
                                     **keywords)
    return net, x, pruner


def _prune_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import torch_pruning as tp
    from torch import nn

    cls, kind, importance, keywords = PRUNER[name]
    net, x, pruner = _pruner(name, cls, kind, importance, keywords)
    regularised = cls != "BasePruner"

    class _Step(nn.Module):
        """One step of a pruning loop: what the criterion or the regulariser needs, ``pruner.step()``, the
        pruned network on the batch."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.pruner = pruner

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if importance == "GroupTaylorImportance":
                _backward(self.net, x)
            elif importance == "GroupHessianImportance":
                _backward(self.net, x, self.pruner.importance)
            elif regularised:
                with torch.enable_grad():
                    self.net.zero_grad()
                    F.cross_entropy(self.net(x), torch.arange(x.shape[0]) % 4).backward()
                    self.pruner.regularize(self.net)
            if name.endswith(".interactive"):
                for group in self.pruner.step(interactive=True):
                    group.prune()
            else:
                self.pruner.step()
            if regularised:
                self.pruner.update_regularizer()  # the regulariser's groups follow the pruned network
            return self.net(x)

        def entry_points(self) -> list[Any]:
            entered: list[Any] = [type(self.pruner).step]
            if regularised:
                entered.append(type(self.pruner).regularize)
            return entered

    return _Step(), (x,), {}


def _depgraph(name: str) -> Built:
    import torch
    import torch_pruning as tp
    from torch import nn

    kind = {"attention": "attn", "lstm": "lstm"}.get(name.rsplit(".", 1)[-1], "cnn")
    kind = "mlp" if name == "Group.prune.linear" else kind
    net = _nets()[kind]()
    x = _input(kind)

    class _Graph(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> Any:
            with torch.enable_grad():  # the graph is traced through autograd
                graph = tp.DependencyGraph().build_dependency(self.net, example_inputs=x)
            if name.startswith("DependencyGraph.build_dependency"):
                return self.net(x), len(graph.module2node)
            if name == "DependencyGraph.get_all_groups":
                return [len(group) for group in graph.get_all_groups(ignored_layers=[self.net.head])]
            if name == "Group.prune.conv":
                group = graph.get_pruning_group(self.net.stem[0], tp.prune_conv_out_channels, idxs=[0, 2, 3])
            else:
                group = graph.get_pruning_group(self.net.body[0], tp.prune_linear_out_channels, idxs=[1, 4])
            if graph.check_pruning_group(group):
                group.prune()
            return self.net(x)

        def entry_points(self) -> list[Any]:
            entered: list[Any] = [tp.DependencyGraph.build_dependency]
            if name.startswith("Group.prune"):
                entered += [tp.DependencyGraph.get_pruning_group, tp.dependency.Group.prune]
            elif name == "DependencyGraph.get_all_groups":
                entered.append(tp.DependencyGraph.get_all_groups)
            return entered

    return _Graph(), (x,), {}


def _function(name: str) -> Built:
    import torch
    import torch_pruning as tp
    from torch import nn

    layer_kind, input_kind = FUNCTIONS[name]
    gen = torch.Generator().manual_seed(2)
    layer: Any = {
        "conv": lambda: nn.Conv2d(WIDTH, WIDTH, 3, padding=1),
        "depthwise": lambda: nn.Conv2d(WIDTH, WIDTH, 3, padding=1, groups=WIDTH),
        "linear": lambda: nn.Linear(WIDTH, WIDTH),
        "bn": lambda: nn.BatchNorm2d(WIDTH),
        "ln": lambda: nn.LayerNorm(WIDTH),
        "gn": lambda: nn.GroupNorm(WIDTH // 2, WIDTH),
        "in": lambda: nn.InstanceNorm2d(WIDTH, affine=True),
        "prelu": lambda: nn.PReLU(WIDTH),
        "embedding": lambda: nn.Embedding(10, WIDTH),
        "mha": lambda: nn.MultiheadAttention(WIDTH, 4, batch_first=True),
        "lstm": lambda: nn.LSTM(WIDTH, WIDTH, batch_first=True),
        "parameter": lambda: nn.Parameter(torch.randn(WIDTH, WIDTH, generator=gen)),
    }[layer_kind]()
    x: Any = {"image": lambda: torch.randn(BATCH, WIDTH, 4, 4, generator=gen),
              "vector": lambda: torch.randn(BATCH, WIDTH, generator=gen),
              "tokens": lambda: torch.randint(0, 10, (BATCH, SEQ), generator=gen),
              "sequence": lambda: torch.randn(BATCH, SEQ, WIDTH, generator=gen)}[input_kind]()
    function = getattr(tp.pruner.function, name)
    # groups of 4 heads' dims for attention, group pairs for group norm
    idxs = [0, 1, 8, 9] if layer_kind == "mha" else [2, 3] if layer_kind == "gn" else [1, 5]
    holder = nn.ParameterList([layer]) if layer_kind == "parameter" else nn.ModuleList([layer])

    class _Prune(nn.Module):
        """A pruning function on the layer, then the layer's output (its width shrinks at each call)."""

        def __init__(self) -> None:
            super().__init__()
            self.holder = holder

        def forward(self, x: torch.Tensor) -> Any:
            pruned = function(self.holder[0], idxs)
            if layer_kind == "parameter":
                self.holder[0] = pruned
                return pruned.sum()
            pruned = self.holder[0]  # some functions return None
            if "in_channels" in name:
                return pruned.weight.sum() if layer_kind != "lstm" else pruned.weight_ih_l0.sum()
            if layer_kind == "mha":
                return pruned.in_proj_weight.sum()
            if layer_kind == "lstm":
                return pruned.weight_hh_l0.sum()
            if input_kind == "tokens":
                return pruned(x)
            return pruned.weight.sum()

        def entry_points(self) -> list[Any]:
            return [function]

    return _Prune(), (x,), {}


def _utils(name: str) -> Built:
    import torch
    import torch_pruning as tp
    from torch import nn

    if name.startswith("count_ops_and_params") or name == "count_params":
        kind = {"attention": "attn", "mha": "mha", "lstm": "lstm"}.get(name.split(".")[1] if "." in name else "",
                                                                      "cnn")
        net = _nets()[kind]()
        x = _input(kind)
        layer_wise = name.endswith("layer_wise")

        class _Count(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = net

            def forward(self, x: torch.Tensor) -> Any:
                if name == "count_params":
                    return tp.utils.count_params(self.net)
                return tp.utils.count_ops_and_params(self.net, x, layer_wise=layer_wise)

            def entry_points(self) -> list[Any]:
                return [tp.utils.count_params if name == "count_params" else tp.utils.count_ops_and_params]

        return _Count(), (x,), {}
    if name == "state_dict.load_state_dict":
        net = _nets()["cnn"]()
        x = _input("cnn")
        tp.DependencyGraph().build_dependency(net, example_inputs=x).get_pruning_group(
            net.stem[0], tp.prune_conv_out_channels, idxs=[0, 1, 2]).prune()
        fresh = _nets()["cnn"]()

        class _Reload(nn.Module):
            """A pruned model's state saved with ``tp.state_dict`` and loaded into an unpruned copy."""

            def __init__(self) -> None:
                super().__init__()
                self.net = net
                self.fresh = fresh

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                tp.load_state_dict(self.fresh, tp.state_dict(self.net))
                return self.fresh(x)

            def entry_points(self) -> list[Any]:
                return [tp.state_dict, tp.load_state_dict]

        return _Reload(), (x,), {}
    cls = "GroupNormPruner" if name == "BasePruner.regularize" else "BasePruner"
    net, x, pruner = _pruner(name, cls, "cnn", "MagnitudeImportance", {})
    groups = _groups(net, x)

    class _Pruner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net
            self.pruner = pruner

        def forward(self, x: torch.Tensor) -> Any:
            if name == "BasePruner.estimate_importance":
                return [self.pruner.estimate_importance(group) for group in groups]
            with torch.enable_grad():
                self.net.zero_grad()
                self.net(x).square().mean().backward()
                self.pruner.regularize(self.net)
            return [p.grad for p in self.net.parameters()]

        def entry_points(self) -> list[Any]:
            return [type(self.pruner).estimate_importance if name.endswith("estimate_importance")
                    else type(self.pruner).regularize]

    return _Pruner(), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in IMPORTANCE:
        return _importance(name)
    if name in PRUNER:
        return _prune_step(name)
    if name in DEPGRAPH:
        return _depgraph(name)
    if name.startswith("function."):
        return _function(name.split(".", 1)[1])
    return _utils(name)
