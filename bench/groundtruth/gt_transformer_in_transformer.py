"""Ground-truth bench, transformer_in_transformer: TNT (Han 2021), a vision transformer with a pixel-level inner transformer.

transformer-in-transformer 0.1.2 (lucidrains) has one model, ``TNT``: an image is cut into patches by einops,
each patch into "pixels" by ``nn.Unfold`` (its kernel, stride and padding set by ``unfold_args``, the pixel grid's
side computed by ``unfold_output_size``), and each layer runs an inner transformer over the pixels of every patch
(``PreNorm`` around ``Attention`` and ``FeedForward``), folds the pixels into a residual for their patch, then an
outer transformer over the patches and a classification token; learned patch tokens and position embeddings
are sliced to the number of patches the input has, so images smaller than configured work too.

Its forward adds the patch position embeddings in place (``patches += ...``) to a tensor that einops 0.8's
``repeat`` returns as an expanded view of the ``patch_tokens`` parameter. Eagerly, with the einops installed
here, that raises for any batch above one ("more than one element of the written-to tensor refers to a single
memory location"), and whenever gradients are enabled ("a view of a leaf Variable that requires grad is being
used in an in-place operation"). The forward therefore runs only as inference, one image at a time, under
``no_grad``; the whole-model models do exactly that (a holder enters ``torch.no_grad()`` around ``TNT.forward``,
so that train mode runs it too, with dropout active), and training is covered through the blocks TNT is built
from, which train normally. The tables cover, at patch width 16, pixel width 8, 8 x 8 images in patches of 4:

- ``MODELS``: ``TNT.forward`` under ``no_grad`` on one image: pixel sizes 2 and 1 (the latter 16 pixels a
  patch), overlapping unfolds (three arguments, and two with padding filled in), depth two, one head and wider
  heads, dropouts, one channel, images smaller than configured and rectangular ones, larger images of 16;
- ``PARTS``: ``Attention`` (several head counts, dropout), ``FeedForward`` (multipliers, dropout), ``PreNorm``
  around each, over pixel and over patch tokens;
- ``TRAIN``: training steps (a regression loss, backward, an Adam or SGD step) through an inner pixel block,
  an outer patch block, a pre-normed attention with dropout, and both blocks stacked as a layer runs them.

Left out: training the whole ``TNT`` and batches above one, which fail eagerly as said above. Random weights
and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SIDE, PATCH_DIM, PIXEL_DIM, CLASSES = 2, 8, 16, 8, 5
BASE: dict[str, Any] = {"image_size": SIDE, "patch_dim": PATCH_DIM, "pixel_dim": PIXEL_DIM, "patch_size": 4,
                        "pixel_size": 2, "depth": 1, "num_classes": CLASSES, "heads": 2, "dim_head": 8}
IMAGE = (1, 3, SIDE, SIDE)

# Model name -> (constructor keywords over BASE, image shape).
MODELS: dict[str, tuple[dict[str, Any], tuple[int, ...]]] = {
    "TNT": ({}, IMAGE),
    "TNT.depth2": ({"depth": 2}, IMAGE),
    "TNT.pixel1": ({"pixel_size": 1}, IMAGE),
    "TNT.pixel4": ({"pixel_size": 4}, IMAGE),
    "TNT.unfold_args.overlap": ({"unfold_args": (4, 2, 1)}, IMAGE),
    "TNT.unfold_args.two": ({"unfold_args": (2, 1)}, IMAGE),
    "TNT.unfold_args.stride2": ({"unfold_args": (3, 2, 1)}, IMAGE),
    "TNT.heads1": ({"heads": 1, "dim_head": 16}, IMAGE),
    "TNT.heads4": ({"heads": 4, "dim_head": 4}, IMAGE),
    "TNT.dropout": ({"ff_dropout": 0.1, "attn_dropout": 0.1}, IMAGE),
    "TNT.dropout.depth2": ({"ff_dropout": 0.2, "attn_dropout": 0.1, "depth": 2}, IMAGE),
    "TNT.channels1": ({"channels": 1}, (1, 1, SIDE, SIDE)),
    "TNT.smaller_image": ({"image_size": 16}, IMAGE),
    "TNT.rectangular": ({"image_size": 16}, (1, 3, SIDE, 16)),
    "TNT.image16": ({"image_size": 16}, (1, 3, 16, 16)),
    "TNT.image16.patch8": ({"image_size": 16, "patch_size": 8, "pixel_size": 4}, (1, 3, 16, 16)),
    "TNT.classes1": ({"num_classes": 1}, IMAGE),
    "TNT.wide": ({"patch_dim": 32, "pixel_dim": 16}, IMAGE),
}
PARTS = ("Attention.pixel", "Attention.patch", "Attention.heads1", "Attention.heads4.dropout", "FeedForward.pixel",
         "FeedForward.patch.mult2", "FeedForward.dropout", "PreNorm.Attention.pixel", "PreNorm.Attention.patch",
         "PreNorm.FeedForward.pixel", "PreNorm.FeedForward.patch.dropout")
TRAIN = ("train.pixel_block.adam", "train.patch_block.sgd", "train.PreNorm.Attention.dropout.adam",
         "train.layer.adam", "train.FeedForward.sgd")


def names() -> list[str]:
    return [*MODELS, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _infer(owner: Any, image: Any) -> Any:
    """``TNT.forward`` as inference: its in-place position add fails with gradients enabled (see the docstring)."""
    import torch

    with torch.no_grad():
        return owner(image)


def _model(name: str) -> Built:
    from gt_calls import Run
    from transformer_in_transformer import TNT

    keywords, shape = MODELS[name]
    return Run(TNT(**{**BASE, **keywords}), _infer, [TNT]), (_randn(*shape),), {}


def _part(name: str) -> Built:
    from transformer_in_transformer import tnt

    pixels = _randn(BATCH * 4, 4, PIXEL_DIM)  # 4 patches of 2 x 2 pixels each
    patches = _randn(BATCH, 5, PATCH_DIM)  # a classification token and 4 patches
    if name == "Attention.pixel":
        return tnt.Attention(dim=PIXEL_DIM, heads=2, dim_head=8), (pixels,), {}
    if name == "Attention.patch":
        return tnt.Attention(dim=PATCH_DIM, heads=2, dim_head=8), (patches,), {}
    if name == "Attention.heads1":
        return tnt.Attention(dim=PATCH_DIM, heads=1), (patches,), {}
    if name == "Attention.heads4.dropout":
        return tnt.Attention(dim=PATCH_DIM, heads=4, dim_head=4, dropout=0.1), (patches,), {}
    if name == "FeedForward.pixel":
        return tnt.FeedForward(dim=PIXEL_DIM), (pixels,), {}
    if name == "FeedForward.patch.mult2":
        return tnt.FeedForward(dim=PATCH_DIM, mult=2), (patches,), {}
    if name == "FeedForward.dropout":
        return tnt.FeedForward(dim=PATCH_DIM, dropout=0.1), (patches,), {}
    if name == "PreNorm.Attention.pixel":
        return tnt.PreNorm(PIXEL_DIM, tnt.Attention(dim=PIXEL_DIM, heads=2, dim_head=8)), (pixels,), {}
    if name == "PreNorm.Attention.patch":
        return tnt.PreNorm(PATCH_DIM, tnt.Attention(dim=PATCH_DIM, heads=2, dim_head=8)), (patches,), {}
    if name == "PreNorm.FeedForward.pixel":
        return tnt.PreNorm(PIXEL_DIM, tnt.FeedForward(dim=PIXEL_DIM)), (pixels,), {}
    if name == "PreNorm.FeedForward.patch.dropout":
        return tnt.PreNorm(PATCH_DIM, tnt.FeedForward(dim=PATCH_DIM, dropout=0.1)), (patches,), {}
    raise KeyError(name)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import Run
    from transformer_in_transformer import tnt

    def block(dim: int, dropout: float = 0.0) -> Any:
        return nn.ModuleList([tnt.PreNorm(dim, tnt.Attention(dim=dim, heads=2, dim_head=8, dropout=dropout)),
                              tnt.PreNorm(dim, tnt.FeedForward(dim=dim, dropout=dropout))])

    def run_block(layers: Any, x: Any) -> Any:
        for layer in layers:
            x = layer(x) + x
        return x

    entries: list[Any] = [tnt.PreNorm, tnt.Attention, tnt.FeedForward]
    if name == "train.pixel_block.adam":
        model: Any = block(PIXEL_DIM)
        inputs: tuple[Any, ...] = (_randn(BATCH * 4, 4, PIXEL_DIM),)
        forward = run_block
    elif name == "train.patch_block.sgd":
        model = block(PATCH_DIM, dropout=0.1)
        inputs = (_randn(BATCH, 5, PATCH_DIM),)
        forward = run_block
    elif name == "train.PreNorm.Attention.dropout.adam":
        model = tnt.PreNorm(PATCH_DIM, tnt.Attention(dim=PATCH_DIM, heads=2, dim_head=8, dropout=0.1))
        inputs = (_randn(BATCH, 5, PATCH_DIM),)
        entries = [tnt.PreNorm, tnt.Attention]

        def forward(owner: Any, x: Any) -> Any:
            return owner(x) + x
    elif name == "train.FeedForward.sgd":
        model = tnt.FeedForward(dim=PATCH_DIM, mult=2, dropout=0.1)
        inputs = (_randn(BATCH, 5, PATCH_DIM),)
        entries = [tnt.FeedForward]

        def forward(owner: Any, x: Any) -> Any:
            return owner(x) + x
    else:
        # One TNT layer as ``TNT.forward`` runs it: the pixel block, pixels folded into a patch residual, the
        # patch block (the bench holds the layer; the library's blocks do the work).
        model = nn.ModuleDict({"pixel": block(PIXEL_DIM), "patch": block(PATCH_DIM),
                               "fold": nn.Linear(PIXEL_DIM * 4, PATCH_DIM)})
        inputs = (_randn(BATCH * 4, 4, PIXEL_DIM), _randn(BATCH, 5, PATCH_DIM, seed=2))

        def forward(owner: Any, pixels: Any, patches: Any) -> Any:
            pixels = run_block(owner["pixel"], pixels)
            residual = owner["fold"](pixels.reshape(BATCH, 4, -1))
            patches = patches + F.pad(residual, (0, 0, 1, 0), value=0)
            return run_block(owner["patch"], patches)

    params = list(model.parameters())
    optimizer: Any = torch.optim.Adam(params, lr=1e-3) if name.endswith("adam") else torch.optim.SGD(params, lr=0.1)

    def step(owner: Any, *tensors: Any) -> Any:
        """A regression loss towards zero, its gradients and an optimizer step."""
        out = forward(owner, *tensors)
        loss = out.pow(2).mean()
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, entries), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        return _model(name)
    if name in PARTS:
        return _part(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
