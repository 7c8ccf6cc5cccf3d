"""Ground-truth bench, glom_pytorch: GLOM (Hinton 2021), columns of part-whole levels settling into islands of agreement.

glom-pytorch 0.0.14 (lucidrains) has one model, ``Glom``: an image is cut into patches (a column each), embedded,
and every column holds ``levels`` embeddings. For ``iters`` iterations (twice the levels unless given) each level
becomes the mean of its previous value, a bottom-up prediction from the level below (a ``GroupedFeedForward``:
grouped 1-d convolutions, one group a level), a top-down prediction from the level above given the position
embeddings, and a ``ConsensusAttention`` over the same level of every column (keys normalized; a column may be
kept from attending to itself, and attention may be limited to a local radius by a mask made at
construction). The forward takes the number of iterations, the levels to start from (the previous frame's, as
the README does for video) and ``return_all`` (every iteration's levels, stacked). The tables cover, at width
8, 3 levels, 8 x 8 images in patches of 4 (2 x 2 columns) or 2:

- ``MODELS``: ``Glom.forward`` with default and given iterations (one, three), self-attending consensus, local
  consensus radii (with and without self-attention), ``return_all``, levels passed in (from a first frame,
  within the compiled call, and as an input), two or four levels, patches of 2, larger images, a batch of one,
  a wider width;
- ``PARTS``: ``ConsensusAttention`` (not attending self, attending self, local radius, both), and
  ``GroupedFeedForward`` as bottom-up and top-down network;
- ``TRAIN``: training steps (backward and an Adam or SGD step): the README's denoising objective (the top level
  after a given iteration decoded back to patches, a reconstruction loss on the clean image), a loss on the
  final levels, with local consensus, and a consensus attention block alone.

Nothing was left out. Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no
torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SIDE, DIM, LEVELS = 2, 8, 8, 3
BASE: dict[str, Any] = {"dim": DIM, "levels": LEVELS, "image_size": SIDE, "patch_size": 4}
IMAGE = (BATCH, 3, SIDE, SIDE)

# Model name -> (constructor keywords over BASE, image shape, forward keywords: "iters", "return_all" and
# "levels" ("previous": the levels of a first frame run in the same call; "input": a tensor passed in)).
MODELS: dict[str, tuple[dict[str, Any], tuple[int, ...], dict[str, Any]]] = {
    "Glom": ({}, IMAGE, {}),
    "Glom.iters1": ({}, IMAGE, {"iters": 1}),
    "Glom.iters3": ({}, IMAGE, {"iters": 3}),
    "Glom.consensus_self": ({"consensus_self": True}, IMAGE, {"iters": 2}),
    "Glom.local_consensus": ({"local_consensus_radius": 1}, IMAGE, {"iters": 2}),
    "Glom.local_consensus.self": ({"local_consensus_radius": 1, "consensus_self": True}, IMAGE, {"iters": 2}),
    "Glom.local_consensus.patch2": ({"local_consensus_radius": 2, "patch_size": 2}, IMAGE, {"iters": 2}),
    "Glom.return_all": ({}, IMAGE, {"iters": 2, "return_all": True}),
    "Glom.return_all.default_iters": ({}, IMAGE, {"return_all": True}),
    "Glom.return_all.local_consensus": ({"local_consensus_radius": 1}, IMAGE, {"iters": 2, "return_all": True}),
    "Glom.levels.previous_frame": ({}, IMAGE, {"iters": 2, "levels": "previous"}),
    "Glom.levels.input": ({}, IMAGE, {"iters": 2, "levels": "input"}),
    "Glom.levels.input.return_all": ({}, IMAGE, {"iters": 1, "levels": "input", "return_all": True}),
    "Glom.levels2": ({"levels": 2}, IMAGE, {}),
    "Glom.levels4": ({"levels": 4}, IMAGE, {"iters": 3}),
    "Glom.patch2": ({"patch_size": 2}, IMAGE, {"iters": 2}),
    "Glom.image16": ({"image_size": 16}, (BATCH, 3, 16, 16), {"iters": 2}),
    "Glom.batch1": ({}, (1, 3, SIDE, SIDE), {"iters": 2}),
    "Glom.dim16.consensus_self": ({"dim": 16, "consensus_self": True}, IMAGE, {}),
}
PARTS = ("ConsensusAttention", "ConsensusAttention.attend_self", "ConsensusAttention.local",
         "ConsensusAttention.local.attend_self", "GroupedFeedForward.bottom_up", "GroupedFeedForward.top_down.mult2")
TRAIN = ("train.Glom.denoise.adam", "train.Glom.levels.sgd", "train.Glom.local_consensus.adam",
         "train.Glom.video.adam", "train.ConsensusAttention.adam")


def names() -> list[str]:
    return [*MODELS, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _model(name: str) -> Built:
    from gt_calls import Keywords, Run
    from glom_pytorch import Glom

    keywords, shape, call = MODELS[name]
    config = {**BASE, **keywords}
    model = Glom(**config)
    image = _randn(*shape)
    start = call.get("levels")
    static = {k: v for k, v in call.items() if k != "levels"}
    if start == "previous":
        def two_frames(owner: Any, first: Any, second: Any) -> Any:
            levels = owner(first, iters=static["iters"])
            return owner(second, levels=levels, **static)

        return Run(model, two_frames, [Glom]), (image, _randn(*shape, seed=2)), {}
    if start == "input":
        columns = (config["image_size"] // config["patch_size"]) ** 2
        levels = _randn(shape[0], columns, config["levels"], config["dim"], seed=3)
        return Keywords(model, levels=levels, **static), (image,), {}
    return Keywords(model, **static), (image,), {}


def _part(name: str) -> Built:
    from glom_pytorch import glom_pytorch as gp

    levels = _randn(BATCH, 4, LEVELS, DIM)  # 2 x 2 columns
    if name.startswith("ConsensusAttention"):
        radius = 1 if ".local" in name else 0
        return gp.ConsensusAttention(2, attend_self=name.endswith("attend_self"),
                                     local_consensus_radius=radius), (levels,), {}
    if name == "GroupedFeedForward.bottom_up":
        return gp.GroupedFeedForward(dim=DIM, groups=LEVELS), (levels,), {}
    if name == "GroupedFeedForward.top_down.mult2":
        return gp.GroupedFeedForward(dim=DIM, groups=LEVELS - 1, mult=2), (levels[..., 1:, :],), {}
    raise KeyError(name)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from einops.layers.torch import Rearrange
    from torch import nn

    from gt_calls import Run
    from glom_pytorch import Glom, glom_pytorch as gp

    image = _randn(*IMAGE)
    entries: list[Any] = [Glom]
    if name == "train.ConsensusAttention.adam":
        model: Any = nn.Sequential(nn.Linear(DIM, DIM), gp.ConsensusAttention(2, local_consensus_radius=1))
        inputs: tuple[Any, ...] = (_randn(BATCH, 4, LEVELS, DIM),)
        entries = [gp.ConsensusAttention]

        def loss_of(owner: Any, levels: Any) -> Any:
            return F.mse_loss(owner(levels), levels)
    elif name == "train.Glom.denoise.adam":
        # The README's self-supervised objective: denoise, decode the top level after iteration 2 into patches.
        model = nn.ModuleDict({
            "glom": Glom(**BASE),
            "decode": nn.Sequential(nn.Linear(DIM, 4 * 4 * 3),
                                    Rearrange("b (h w) (p1 p2 c) -> b c (h p1) (w p2)", p1=4, p2=4, h=2)),
        })
        noise = _randn(*IMAGE, seed=4)
        inputs = (image,)

        def loss_of(owner: Any, img: Any) -> Any:
            all_levels = owner["glom"](img + noise, iters=3, return_all=True)
            top_level = all_levels[2, :, :, -1]
            return F.mse_loss(owner["decode"](top_level), img)
    elif name == "train.Glom.video.adam":
        model = Glom(**BASE)
        inputs = (image, _randn(*IMAGE, seed=2))

        def loss_of(owner: Any, first: Any, second: Any) -> Any:
            levels = owner(first, iters=2)
            return owner(second, levels=levels, iters=1).pow(2).mean()
    else:
        config = {**BASE, "local_consensus_radius": 1} if "local" in name else BASE
        model = Glom(**config)
        inputs = (image,)

        def loss_of(owner: Any, img: Any) -> Any:
            return owner(img, iters=2).pow(2).mean()

    params = list(model.parameters())
    optimizer: Any = torch.optim.Adam(params, lr=1e-3) if name.endswith("adam") else torch.optim.SGD(params, lr=0.1)

    def step(owner: Any, *tensors: Any) -> Any:
        """The loss, its gradients and an optimizer step."""
        loss = loss_of(owner, *tensors)
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
