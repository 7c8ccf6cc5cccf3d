"""Ground-truth bench, bottleneck_transformer_pytorch: BoTNet (Srinivas 2021), ResNet bottlenecks with self-attention.

bottleneck-transformer-pytorch 0.1.4 (lucidrains) exports ``BottleStack`` (a stack of ``BottleBlock`` s over a
feature map of a fixed size, the first one downsampling by default, with checks of the input's channels and
size) and ``BottleBlock`` (a shortcut: the identity, a 1 x 1 projection, or a strided 3 x 3 convolution where
it downsamples; then 1 x 1 down, batch norm, an activation, multi-head self-attention over the map, an
average pool where it downsamples, batch norm, 1 x 1 up). The attention (``Attention``) adds a position bias:
absolute (``AbsPosEmb``, height plus width embeddings) or relative (``RelPosEmb``: ``relative_logits_1d``
along width and height, each through ``rel_to_abs`` and ``expand_dim``). So the tables cover, at a batch of
2 and 8 x 8 maps of 16 channels:

- ``STACKS``: ``BottleStack`` with and without downsampling, absolute and relative position embeddings, one
  to three layers, a rectangular map, other activations (GELU, SiLU), one head and other head widths and
  projection factors, a batch of one, float64;
- ``BLOCKS``: ``BottleBlock`` with each shortcut (identity, projection, downsampling), each position
  embedding, a rectangular map;
- ``PARTS``: ``Attention``, ``AbsPosEmb`` and ``RelPosEmb`` alone, and the helpers ``rel_to_abs``,
  ``relative_logits_1d`` and ``expand_dim`` as functions;
- ``USAGES`` (bench modules holding the library stack, ``entry_points`` ``BottleStack``): BoTNet as the
  library's readme builds it, a convolutional stem (in place of ResNet's first stages) then the stack, a pooled
  linear head; with absolute and relative embeddings;
- ``TRAIN``: training steps (cross-entropy through BoTNet or a regression loss through a stack or block,
  ``backward``, an SGD or Adam step for some).

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch,
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
DIM = 16
SIDE = 8
CLASSES = 5
STACK: dict[str, Any] = {"dim": DIM, "fmap_size": SIDE, "dim_out": 32, "proj_factor": 4, "num_layers": 2,
                         "heads": 2, "dim_head": 8}
BLOCK: dict[str, Any] = {"dim": DIM, "fmap_size": (SIDE, SIDE), "dim_out": 32, "proj_factor": 4,
                         "downsample": False, "heads": 2, "dim_head": 8}
# Stack name -> (keywords, activation: None, "gelu" or "silu", input (batch, channels, height, width), dtype).
STACKS: dict[str, tuple[dict[str, Any], str | None, tuple[int, int, int, int], str]] = {
    "BottleStack": (STACK, None, (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.rel_pos_emb": ({**STACK, "rel_pos_emb": True}, None, (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.no_downsample": ({**STACK, "downsample": False}, None, (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.no_downsample.rel_pos_emb": ({**STACK, "downsample": False, "rel_pos_emb": True}, None,
                                              (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.layers1": ({**STACK, "num_layers": 1}, None, (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.layers3.rel_pos_emb": ({**STACK, "num_layers": 3, "rel_pos_emb": True}, None,
                                        (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.rectangular": ({**STACK, "fmap_size": (SIDE, 12)}, None, (BATCH, DIM, SIDE, 12), "float32"),
    "BottleStack.rectangular.rel_pos_emb": ({**STACK, "fmap_size": (SIDE, 12), "rel_pos_emb": True}, None,
                                            (BATCH, DIM, SIDE, 12), "float32"),
    "BottleStack.gelu": (STACK, "gelu", (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.silu.rel_pos_emb": ({**STACK, "rel_pos_emb": True}, "silu", (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.heads1": ({**STACK, "heads": 1, "dim_head": 16}, None, (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.proj_factor2.dim_head4": ({**STACK, "proj_factor": 2, "heads": 4, "dim_head": 4}, None,
                                           (BATCH, DIM, SIDE, SIDE), "float32"),
    "BottleStack.same_dim": ({**STACK, "dim_out": DIM, "downsample": False}, None, (BATCH, DIM, SIDE, SIDE),
                             "float32"),
    "BottleStack.batch1": ({**STACK, "rel_pos_emb": True}, None, (1, DIM, SIDE, SIDE), "float32"),
    "BottleStack.float64": ({**STACK, "rel_pos_emb": True}, None, (BATCH, DIM, SIDE, SIDE), "float64"),
}
# Block name -> (keywords, input (batch, channels, height, width)).
BLOCKS: dict[str, tuple[dict[str, Any], tuple[int, int, int, int]]] = {
    "BottleBlock.projection": (BLOCK, (BATCH, DIM, SIDE, SIDE)),
    "BottleBlock.projection.rel_pos_emb": ({**BLOCK, "rel_pos_emb": True}, (BATCH, DIM, SIDE, SIDE)),
    "BottleBlock.identity": ({**BLOCK, "dim_out": DIM}, (BATCH, DIM, SIDE, SIDE)),
    "BottleBlock.identity.rel_pos_emb": ({**BLOCK, "dim_out": DIM, "rel_pos_emb": True}, (BATCH, DIM, SIDE, SIDE)),
    "BottleBlock.downsample": ({**BLOCK, "downsample": True}, (BATCH, DIM, SIDE, SIDE)),
    "BottleBlock.downsample.rel_pos_emb": ({**BLOCK, "downsample": True, "rel_pos_emb": True},
                                           (BATCH, DIM, SIDE, SIDE)),
    "BottleBlock.rectangular.rel_pos_emb": ({**BLOCK, "fmap_size": (4, SIDE), "rel_pos_emb": True},
                                            (BATCH, DIM, 4, SIDE)),
}
PARTS = ("Attention.abs", "Attention.rel", "Attention.rel.rectangular", "AbsPosEmb", "RelPosEmb",
         "rel_to_abs", "relative_logits_1d", "expand_dim")
# Usage name -> (relative position embeddings or not, input side).
USAGES: dict[str, tuple[bool, int]] = {
    "BoTNet": (False, 2 * SIDE),
    "BoTNet.rel_pos_emb": (True, 2 * SIDE),
}
# Train step name -> (stack, block or usage name, optimizer: None, "sgd" or "adam").
TRAIN: dict[str, tuple[str, str | None]] = {
    "train.BoTNet": ("BoTNet", None),
    "train.BoTNet.rel_pos_emb.sgd": ("BoTNet.rel_pos_emb", "sgd"),
    "train.BoTNet.adam": ("BoTNet", "adam"),
    "train.BottleStack.rel_pos_emb": ("BottleStack.rel_pos_emb", None),
    "train.BottleStack.no_downsample.adam": ("BottleStack.no_downsample", "adam"),
    "train.BottleBlock.downsample.rel_pos_emb": ("BottleBlock.downsample.rel_pos_emb", "sgd"),
}


def names() -> list[str]:
    return [*STACKS, *BLOCKS, *PARTS, *USAGES, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: str = "float32") -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=getattr(torch, dtype))


def _stack(name: str) -> tuple[Any, tuple[int, ...], str]:
    from torch import nn

    from bottleneck_transformer_pytorch import BottleStack

    keywords, activation, shape, dtype = STACKS[name]
    keywords = dict(keywords)
    if activation == "gelu":
        keywords["activation"] = nn.GELU()
    elif activation == "silu":
        keywords["activation"] = nn.SiLU()
    stack = BottleStack(**keywords)
    if dtype == "float64":
        stack = stack.double()
    return stack, shape, dtype


def _block(name: str) -> tuple[Any, tuple[int, ...]]:
    from bottleneck_transformer_pytorch import BottleBlock

    keywords, shape = BLOCKS[name]
    return BottleBlock(**keywords), shape


def _part(name: str) -> Built:
    from bottleneck_transformer_pytorch import bottleneck_transformer_pytorch as bot
    from gt_calls import Call

    heads, dim_head = 2, 8
    if name.startswith("Attention"):
        fmap = (4, SIDE) if name.endswith("rectangular") else (SIDE, SIDE)
        attention = bot.Attention(dim=DIM, fmap_size=fmap, heads=heads, dim_head=dim_head,
                                  rel_pos_emb=name != "Attention.abs")
        return attention, (_randn(BATCH, DIM, *fmap),), {}
    queries = _randn(BATCH, heads, SIDE * SIDE, dim_head)
    if name == "AbsPosEmb":
        return bot.AbsPosEmb(SIDE, dim_head), (queries,), {}
    if name == "RelPosEmb":
        return bot.RelPosEmb((SIDE, SIDE), dim_head), (queries,), {}
    if name == "rel_to_abs":
        # (batch, heads x rows, width, 2 x width - 1) relative logits.
        return Call(bot.rel_to_abs), (_randn(BATCH, heads * 4, SIDE, 2 * SIDE - 1),), {}
    if name == "relative_logits_1d":
        return (Call(bot.relative_logits_1d),
                (_randn(BATCH, heads, 4, SIDE, dim_head), _randn(2 * SIDE - 1, dim_head, seed=2)), {})
    return Call(bot.expand_dim, dim=3, k=4), (_randn(BATCH, heads, 4, SIDE, SIDE),), {}


def _botnet(relative: bool) -> Any:
    import torch
    from torch import nn

    from bottleneck_transformer_pytorch import BottleStack

    class BoTNet(nn.Module):
        """A convolutional stem down to an 8 x 8 map of 16 channels, a ``BottleStack`` (downsampling to 4 x 4,
        32 channels), an average pool, a flatten and a linear head, as the library's readme composes it."""

        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, DIM, 3, 2, padding=1, bias=False), nn.BatchNorm2d(DIM),
                                      nn.ReLU())
            self.stack = BottleStack(**{**STACK, "rel_pos_emb": relative})
            self.head = nn.Sequential(nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(1), nn.Linear(32, CLASSES))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.stack(self.stem(x)))

        def entry_points(self) -> list[Any]:
            return [BottleStack]

    return BoTNet()


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from bottleneck_transformer_pytorch import BottleBlock, BottleStack
    from gt_calls import Run

    source, optimizer_name = TRAIN[name]
    generator = torch.Generator().manual_seed(3)
    classify = source in USAGES
    if classify:
        relative, side = USAGES[source]
        network, entry = _botnet(relative), BottleStack
        inputs = _randn(BATCH, 3, side, side)
        targets = torch.randint(0, CLASSES, (BATCH,), generator=generator)
    else:
        if source in STACKS:
            network, shape, _ = _stack(source)
            entry = BottleStack
        else:
            network, shape = _block(source)
            entry = BottleBlock
        inputs = _randn(*shape)
        with torch.no_grad():
            out_shape = network.eval()(inputs).shape
        targets = torch.randn(*out_shape, generator=generator)
    optimizer = None
    if optimizer_name == "sgd":
        optimizer = torch.optim.SGD(network.parameters(), lr=1e-2, momentum=0.9)
    elif optimizer_name == "adam":
        optimizer = torch.optim.Adam(network.parameters(), lr=1e-3)

    def step(owner: Any, x: Any, target: Any) -> Any:
        """The loss of the output, its gradients and (given an optimizer) one step."""
        out = owner(x)
        loss = F.cross_entropy(out, target) if classify else F.mse_loss(out, target)
        if torch.is_grad_enabled():
            loss.backward()
            if optimizer is not None:
                optimizer.step()
                optimizer.zero_grad()
        return loss.detach()

    return Run(network, step, [entry]), (inputs, targets), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in STACKS:
        stack, shape, dtype = _stack(name)
        return stack, (_randn(*shape, dtype=dtype),), {}
    if name in BLOCKS:
        block, shape = _block(name)
        return block, (_randn(*shape),), {}
    if name in PARTS:
        return _part(name)
    if name in USAGES:
        relative, side = USAGES[name]
        return _botnet(relative), (_randn(BATCH, 3, side, side),), {}
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
