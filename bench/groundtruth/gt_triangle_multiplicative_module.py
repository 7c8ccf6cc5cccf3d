"""Ground-truth bench, triangle_multiplicative_module: AlphaFold2's triangle multiplicative update on pair maps.

triangle-multiplicative-module 0.0.3 (lucidrains) is one class, ``TriangleMultiplicativeModule``: it layer-norms a
square pair representation ``(batch, n, n, dim)``, projects it to left and right edges (zeroed where an optional
``(batch, n, n)`` mask is false), gates both and the output with sigmoids initialised to identity, mixes the edges
with an einsum over the third node (``outgoing``: row with row, ``ingoing``: column with column), then layer-norms,
gates and projects back. The tables cover, at 8 channels, 5 x 5 pair maps, a batch of 2:

- ``TMM``: the module's forward: ``ingoing`` and ``outgoing`` mixing, a hidden width other than ``dim``, boolean
  and float pair masks (a padded second sequence, a random one), a batch of one, a one-node map, float64 and
  bfloat16 weights, an autocast region;
- ``STACK``: how users place it: an Evoformer-style pair stack (outgoing then ingoing, residual, with and without
  a mask), a pair map made from a sequence's outer sum before the update, a distogram head after it, two stacked
  blocks sharing one mask;
- ``TRAIN``: training steps: a residual pair block's regression loss with an Adam step, a masked distogram
  cross-entropy with SGD, both mixes with ``hidden_dim`` under AdamW, a masked two-block pair stack with each
  block under activation checkpointing (``torch.utils.checkpoint``, non-reentrant) and Adam.

A non-square map fails the module's own assertion eagerly, so no model passes one. Random weights and inputs
from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, NODES, DIM, HIDDEN, BINS = 2, 5, 8, 12, 6

# Name -> (mix, hidden_dim, mask kind: None | "bool" | "float" | "random", options: "batch1", "nodes1", "double",
# "bfloat16", "autocast").
TMM: dict[str, tuple[str, int | None, str | None, tuple[str, ...]]] = {
    "TMM.ingoing": ("ingoing", None, None, ()),
    "TMM.outgoing": ("outgoing", None, None, ()),
    "TMM.ingoing.hidden_dim": ("ingoing", HIDDEN, None, ()),
    "TMM.outgoing.hidden_dim": ("outgoing", HIDDEN, None, ()),
    "TMM.ingoing.mask": ("ingoing", None, "bool", ()),
    "TMM.outgoing.mask": ("outgoing", None, "bool", ()),
    "TMM.ingoing.float_mask": ("ingoing", None, "float", ()),
    "TMM.outgoing.float_mask.hidden_dim": ("outgoing", HIDDEN, "float", ()),
    "TMM.outgoing.random_mask": ("outgoing", None, "random", ()),
    "TMM.ingoing.hidden_dim.mask": ("ingoing", HIDDEN, "bool", ()),
    "TMM.ingoing.batch1": ("ingoing", None, None, ("batch1",)),
    "TMM.outgoing.batch1.mask": ("outgoing", None, "bool", ("batch1",)),
    "TMM.outgoing.nodes1": ("outgoing", None, None, ("nodes1",)),
    "TMM.ingoing.double": ("ingoing", None, None, ("double",)),
    "TMM.outgoing.double.mask": ("outgoing", None, "bool", ("double",)),
    "TMM.ingoing.bfloat16": ("ingoing", None, None, ("bfloat16",)),
    "TMM.outgoing.autocast": ("outgoing", None, None, ("autocast",)),
    "TMM.ingoing.autocast.mask": ("ingoing", HIDDEN, "bool", ("autocast",)),
}
STACK = ("PairStack", "PairStack.mask", "PairStack.hidden_dim.mask", "OuterSum.TMM", "OuterSum.TMM.mask",
         "TMM.distogram_head", "PairStack.depth2.shared_mask")
TRAIN = ("train.PairBlock.adam", "train.distogram.mask.sgd", "train.both_mixes.hidden_dim.adamw",
         "train.PairStack.checkpoint.adam")


def names() -> list[str]:
    return [*TMM, *STACK, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(kind: str | None, batch: int, nodes: int) -> Any:
    import torch

    if kind is None:
        return None
    keep = torch.ones(batch, nodes, dtype=torch.bool)
    if batch > 1 and nodes > 2:
        keep[-1, -2:] = False
    pair = keep[:, :, None] & keep[:, None, :]
    if kind == "float":
        return pair.float()
    if kind == "random":
        return torch.rand(batch, nodes, nodes, generator=torch.Generator().manual_seed(5)) > 0.3
    return pair


def _tmm(name: str) -> Built:
    import torch
    from triangle_multiplicative_module import TriangleMultiplicativeModule

    from gt_calls import Run

    mix, hidden, mask_kind, options = TMM[name]
    batch = 1 if "batch1" in options else BATCH
    nodes = 1 if "nodes1" in options else NODES
    model = TriangleMultiplicativeModule(dim=DIM, hidden_dim=hidden, mix=mix)
    x = _randn(batch, nodes, nodes, DIM)
    mask = _mask(mask_kind, batch, nodes)
    if "double" in options:
        model, x = model.double(), x.double()
        mask = mask.double() if mask is not None and mask.dtype != torch.bool else mask
    if "bfloat16" in options:
        model, x = model.to(torch.bfloat16), x.to(torch.bfloat16)
    kwargs = {} if mask is None else {"mask": mask}
    if "autocast" in options:
        def autocast(owner: Any, t: Any) -> Any:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return owner(t, **kwargs)

        return Run(model, autocast, [TriangleMultiplicativeModule]), (x,), {}
    return model, (x,), kwargs


class _PairBlock:
    """Factory of an Evoformer-style pair block (outgoing then ingoing update, residual) as users write one."""

    @staticmethod
    def make(hidden: int | None = None) -> Any:
        from torch import nn
        from triangle_multiplicative_module import TriangleMultiplicativeModule

        class PairBlock(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.outgoing = TriangleMultiplicativeModule(dim=DIM, hidden_dim=hidden, mix="outgoing")
                self.ingoing = TriangleMultiplicativeModule(dim=DIM, hidden_dim=hidden, mix="ingoing")
                self.transition = nn.Sequential(nn.LayerNorm(DIM), nn.Linear(DIM, 2 * DIM), nn.ReLU(),
                                                nn.Linear(2 * DIM, DIM))

            def forward(self, pair: Any, mask: Any = None) -> Any:
                pair = pair + self.outgoing(pair, mask=mask)
                pair = pair + self.ingoing(pair, mask=mask)
                return pair + self.transition(pair)

        return PairBlock()


def _stack(name: str) -> Built:
    import torch
    from torch import nn
    from triangle_multiplicative_module import TriangleMultiplicativeModule

    from gt_calls import Run

    entries = [TriangleMultiplicativeModule]
    pair = _randn(BATCH, NODES, NODES, DIM)
    mask = _mask("bool", BATCH, NODES)
    if name.startswith("PairStack"):
        depth = 2 if "depth2" in name else 1
        hidden = HIDDEN if "hidden_dim" in name else None
        blocks = nn.ModuleList([_PairBlock.make(hidden) for _ in range(depth)])
        use_mask = "mask" in name

        def stack(owner: Any, p: Any, m: Any) -> Any:
            for block in owner:
                p = block(p, m if use_mask else None)
            return p

        return Run(blocks, stack, entries), (pair, mask), {}
    if name.startswith("OuterSum"):
        seq = _randn(BATCH, NODES, DIM, seed=2)
        parts = nn.ModuleDict({"left": nn.Linear(DIM, DIM), "right": nn.Linear(DIM, DIM),
                               "tmm": TriangleMultiplicativeModule(dim=DIM, mix="outgoing")})
        use_mask = name.endswith("mask")

        def outer(owner: Any, s: Any, m: Any) -> Any:
            p = owner["left"](s)[:, :, None, :] + owner["right"](s)[:, None, :, :]
            return p + owner["tmm"](p, mask=m if use_mask else None)

        return Run(parts, outer, entries), (seq, mask), {}
    # distogram head
    parts = nn.ModuleDict({"tmm": TriangleMultiplicativeModule(dim=DIM, mix="ingoing"),
                           "head": nn.Linear(DIM, BINS)})

    def distogram(owner: Any, p: Any) -> Any:
        p = p + owner["tmm"](p)
        p = (p + p.transpose(1, 2)) * 0.5
        return torch.log_softmax(owner["head"](p), dim=-1)

    return Run(parts, distogram, entries), (pair,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from triangle_multiplicative_module import TriangleMultiplicativeModule

    from gt_calls import Run

    pair = _randn(BATCH, NODES, NODES, DIM)
    mask = _mask("bool", BATCH, NODES)
    if name == "train.PairBlock.adam":
        model: Any = _PairBlock.make()
        optimizer: Any = torch.optim.Adam(model.parameters(), lr=1e-3)
        target = _randn(BATCH, NODES, NODES, DIM, seed=3)

        def loss_fn(owner: Any, p: Any, m: Any) -> Any:
            return F.mse_loss(owner(p), target)
    elif name == "train.distogram.mask.sgd":
        model = nn.ModuleDict({"tmm": TriangleMultiplicativeModule(dim=DIM, mix="outgoing"),
                               "head": nn.Linear(DIM, BINS)})
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        bins = torch.randint(0, BINS, (BATCH, NODES, NODES), generator=torch.Generator().manual_seed(4))

        def loss_fn(owner: Any, p: Any, m: Any) -> Any:
            logits = owner["head"](p + owner["tmm"](p, mask=m))
            loss = F.cross_entropy(logits.permute(0, 3, 1, 2), bins, reduction="none")
            return (loss * m).sum() / m.sum()
    elif name == "train.PairStack.checkpoint.adam":
        from torch.utils.checkpoint import checkpoint

        model = nn.ModuleList([_PairBlock.make(), _PairBlock.make()])
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

        def loss_fn(owner: Any, p: Any, m: Any) -> Any:
            for block in owner:
                p = checkpoint(block, p, m, use_reentrant=False)
            return p.pow(2).mean()
    else:
        model = nn.ModuleList([TriangleMultiplicativeModule(dim=DIM, hidden_dim=HIDDEN, mix="outgoing"),
                               TriangleMultiplicativeModule(dim=DIM, hidden_dim=HIDDEN, mix="ingoing")])
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

        def loss_fn(owner: Any, p: Any, m: Any) -> Any:
            for layer in owner:
                p = p + layer(p, mask=m)
            return p.pow(2).mean()

    def step(owner: Any, p: Any, m: Any) -> Any:
        """The loss, its gradients and an optimizer step (only where gradients are on)."""
        loss = loss_fn(owner, p, m)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, [TriangleMultiplicativeModule]), (pair, mask), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in TMM:
        return _tmm(name)
    if name in STACK:
        return _stack(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
