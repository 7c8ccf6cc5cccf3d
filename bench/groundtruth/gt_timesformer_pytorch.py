"""Ground-truth bench, timesformer_pytorch: TimeSformer (Bertasius 2021), divided space-time attention for video.

timesformer-pytorch 0.4.1 (lucidrains) is one model, ``TimeSformer``: a video ``(batch, frames, channels, height,
width)`` is cut into patches by einops, embedded linearly, given a classification token, and run through layers
of divided attention: a time attention (each patch attends to the same patch across frames), a space attention
(each patch attends to the patches of its frame), both through ``Attention``, which splices the classification
token out, lets it attend to every token, rearranges the rest with einops patterns it is given as strings and
concatenates the token's keys and values back in, then a GEGLU ``FeedForward``; each block a ``PreNorm``. Its
options: rotary embeddings (a ``RotaryEmbedding`` over frames, an ``AxialRotaryEmbedding`` over the patch grid,
applied by ``apply_rot_emb``), else a learned absolute ``nn.Embedding`` added in place; ``shift_tokens`` (each
block wrapped in ``PreTokenShift``: a third of the channels shifted back a frame and a third forward, by
``shift``); dropouts; and a frame ``mask`` for videos with fewer real frames than others (padded into the
attention masks of the time and classification attentions). The tables cover, at width 16, 8 x 8 frames in
patches of 4, 4 frames, 2 heads of 8:

- ``MODELS``: ``TimeSformer.forward`` with rotary or absolute positions, with and without token shift, with a
  frame mask (ragged, all true, with token shift), depth two, dropouts (active in train mode), one channel,
  rectangular frames, fewer frames than configured, one frame, patches of 2, one head, wider heads, a batch of
  one, one class;
- ``PARTS``: ``Attention`` over time and over space (with and without rotary embeddings and masks), the ``attn``
  function with and without a mask, ``apply_rot_emb`` and ``rotate_every_two``, ``RotaryEmbedding`` and
  ``AxialRotaryEmbedding`` (their forwards take sizes and a device), ``shift`` by -1, 0 and 1, ``PreTokenShift``
  around a feedforward, ``FeedForward``, ``GEGLU`` and ``PreNorm`` around an attention;
- ``TRAIN``: training steps (cross-entropy on the class logits, backward, an Adam or SGD step) through the
  rotary, absolute, token-shifted, masked and dropout models, and through one time-attention block.

Nothing was left out: every option of the constructor and of the forward is covered. Random weights and inputs
from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, FRAMES, SIDE, PATCH, DIM, HEADS, DIM_HEAD, CLASSES = 2, 4, 8, 4, 16, 2, 8, 5
BASE: dict[str, Any] = {"dim": DIM, "num_frames": FRAMES, "num_classes": CLASSES, "image_size": SIDE,
                        "patch_size": PATCH, "depth": 1, "heads": HEADS, "dim_head": DIM_HEAD}
VIDEO = (BATCH, FRAMES, 3, SIDE, SIDE)

# Model name -> (constructor keywords over BASE, video shape, mask: None, "ragged" or "full").
MODELS: dict[str, tuple[dict[str, Any], tuple[int, ...], str | None]] = {
    "TimeSformer": ({}, VIDEO, None),
    "TimeSformer.no_rotary": ({"rotary_emb": False}, VIDEO, None),
    "TimeSformer.shift_tokens": ({"shift_tokens": True}, VIDEO, None),
    "TimeSformer.shift_tokens.no_rotary": ({"shift_tokens": True, "rotary_emb": False}, VIDEO, None),
    "TimeSformer.mask": ({}, VIDEO, "ragged"),
    "TimeSformer.mask.full": ({}, VIDEO, "full"),
    "TimeSformer.mask.no_rotary": ({"rotary_emb": False}, VIDEO, "ragged"),
    "TimeSformer.mask.shift_tokens": ({"shift_tokens": True}, VIDEO, "ragged"),
    "TimeSformer.mask.shift_tokens.no_rotary.depth2": ({"shift_tokens": True, "rotary_emb": False, "depth": 2},
                                                       VIDEO, "ragged"),
    "TimeSformer.depth2": ({"depth": 2}, VIDEO, None),
    "TimeSformer.dropout": ({"attn_dropout": 0.1, "ff_dropout": 0.1}, VIDEO, None),
    "TimeSformer.dropout.no_rotary.mask": ({"attn_dropout": 0.1, "ff_dropout": 0.1, "rotary_emb": False}, VIDEO,
                                           "ragged"),
    "TimeSformer.channels1": ({"channels": 1}, (BATCH, FRAMES, 1, SIDE, SIDE), None),
    "TimeSformer.rectangular": ({}, (BATCH, FRAMES, 3, SIDE, 12), None),
    "TimeSformer.rectangular.no_rotary": ({"image_size": 12, "rotary_emb": False}, (BATCH, FRAMES, 3, SIDE, 12),
                                          None),
    "TimeSformer.fewer_frames": ({}, (BATCH, 2, 3, SIDE, SIDE), None),
    "TimeSformer.fewer_frames.no_rotary": ({"rotary_emb": False}, (BATCH, 2, 3, SIDE, SIDE), None),
    "TimeSformer.frames1": ({"num_frames": 1}, (BATCH, 1, 3, SIDE, SIDE), None),
    "TimeSformer.patch2": ({"patch_size": 2}, VIDEO, None),
    "TimeSformer.patch2.shift_tokens.mask": ({"patch_size": 2, "shift_tokens": True}, VIDEO, "ragged"),
    "TimeSformer.heads1": ({"heads": 1}, VIDEO, None),
    "TimeSformer.dim_head16": ({"dim_head": 16}, VIDEO, None),
    "TimeSformer.batch1": ({}, (1, FRAMES, 3, SIDE, SIDE), None),
    "TimeSformer.batch1.mask": ({}, (1, FRAMES, 3, SIDE, SIDE), "ragged"),
    "TimeSformer.classes1": ({"num_classes": 1}, VIDEO, None),
    "TimeSformer.wide.shift_tokens": ({"dim": 24, "shift_tokens": True}, VIDEO, None),
}
PARTS = ("Attention.time", "Attention.time.rotary", "Attention.time.mask", "Attention.space",
         "Attention.space.rotary", "Attention.space.cls_mask", "attn", "attn.mask", "apply_rot_emb",
         "apply_rot_emb.axial", "rotate_every_two", "RotaryEmbedding", "AxialRotaryEmbedding",
         "AxialRotaryEmbedding.rectangular", "shift.back", "shift.zero", "shift.forward", "PreTokenShift.FeedForward",
         "PreTokenShift.Attention", "FeedForward", "FeedForward.dropout", "GEGLU", "PreNorm.Attention")
# Train step name -> (model name in MODELS, optimizer).
TRAIN: dict[str, tuple[str, str]] = {
    "train.TimeSformer.adam": ("TimeSformer", "adam"),
    "train.TimeSformer.no_rotary.sgd": ("TimeSformer.no_rotary", "sgd"),
    "train.TimeSformer.shift_tokens.adam": ("TimeSformer.shift_tokens", "adam"),
    "train.TimeSformer.mask.adam": ("TimeSformer.mask", "adam"),
    "train.TimeSformer.dropout.sgd": ("TimeSformer.dropout", "sgd"),
    "train.TimeSformer.mask.no_rotary.adam": ("TimeSformer.mask.no_rotary", "adam"),
    "train.Attention.time.rotary.adam": ("", "adam"),
}


def names() -> list[str]:
    return [*MODELS, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(kind: str | None, batch: int, frames: int) -> Any:
    """A frame mask: the first video whole, the others with their last half of frames padded ("ragged")."""
    import torch

    if kind is None:
        return None
    mask = torch.ones(batch, frames, dtype=torch.bool)
    if kind == "ragged":
        mask[1:, frames // 2:] = False
        if batch == 1:
            mask[0, -1] = False
    return mask


def _model(name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    from timesformer_pytorch import TimeSformer

    keywords, shape, mask = MODELS[name]
    model = TimeSformer(**{**BASE, **keywords})
    kwargs = {} if mask is None else {"mask": _mask(mask, shape[0], shape[1])}
    return model, (_randn(*shape),), kwargs


def _tokens(frames: int = FRAMES, n: int = 4, dim: int = DIM, seed: int = 1) -> Any:
    """Tokens as the layers see them: a classification token, then ``frames * n`` patch tokens."""
    return _randn(BATCH, 1 + frames * n, dim, seed=seed)


def _part(name: str) -> Built:
    import torch

    from gt_calls import Call, Keywords, Run
    from timesformer_pytorch import rotary, timesformer_pytorch as ts

    n = 4  # a 2 x 2 patch grid
    tokens = _tokens()
    frame_rot = rotary.RotaryEmbedding(DIM_HEAD)(FRAMES, device=torch.device("cpu"))
    image_rot = rotary.AxialRotaryEmbedding(DIM_HEAD)(2, 2, device=torch.device("cpu"))
    frame_mask = torch.ones(BATCH * HEADS * n, 1, FRAMES + 1, dtype=torch.bool)
    frame_mask[HEADS * n:, :, -2:] = False
    cls_mask = torch.ones(BATCH * HEADS, 1, FRAMES * n + 1, dtype=torch.bool)
    cls_mask[HEADS:, :, -2 * n:] = False
    time = ("b (f n) d", "(b n) f d")
    space = ("b (f n) d", "(b f) n d")

    def attention(**static: Any) -> Any:
        return Keywords(ts.Attention(DIM, dim_head=DIM_HEAD, heads=HEADS), **static)

    if name == "Attention.time":
        return attention(n=n), (tokens, *time), {}
    if name == "Attention.time.rotary":
        return attention(n=n, rot_emb=frame_rot), (tokens, *time), {}
    if name == "Attention.time.mask":
        return attention(n=n, mask=frame_mask, cls_mask=cls_mask, rot_emb=frame_rot), (tokens, *time), {}
    if name == "Attention.space":
        return attention(f=FRAMES), (tokens, *space), {}
    if name == "Attention.space.rotary":
        return attention(f=FRAMES, rot_emb=image_rot), (tokens, *space), {}
    if name == "Attention.space.cls_mask":
        return attention(f=FRAMES, cls_mask=cls_mask, rot_emb=image_rot), (tokens, *space), {}
    q, k, v = (_randn(BATCH * HEADS, 5, DIM_HEAD, seed=s) for s in (1, 2, 3))
    if name == "attn":
        return Call(ts.attn), (q, k, v), {}
    if name == "attn.mask":
        mask = torch.ones(BATCH * HEADS, 1, 5, dtype=torch.bool)
        mask[-1, :, -2:] = False
        return Call(ts.attn, mask=mask), (q, k, v), {}
    if name == "apply_rot_emb":
        return Call(rotary.apply_rot_emb, rot_emb=frame_rot), (q[:, :FRAMES], k[:, :FRAMES]), {}
    if name == "apply_rot_emb.axial":
        return Call(rotary.apply_rot_emb, rot_emb=image_rot), (q[:, :4], k[:, :4]), {}
    if name == "rotate_every_two":
        return Call(rotary.rotate_every_two), (q,), {}
    if name == "RotaryEmbedding":
        def frames(owner: Any, video: Any) -> Any:
            return owner(video.shape[1], device=video.device)

        return Run(rotary.RotaryEmbedding(DIM_HEAD), frames, [rotary.RotaryEmbedding]), (_randn(*VIDEO),), {}
    if name.startswith("AxialRotaryEmbedding"):
        width = 12 if name.endswith("rectangular") else SIDE

        def grid(owner: Any, video: Any) -> Any:
            return owner(video.shape[-2] // PATCH, video.shape[-1] // PATCH, device=video.device)

        return (Run(rotary.AxialRotaryEmbedding(DIM_HEAD), grid, [rotary.AxialRotaryEmbedding]),
                (_randn(BATCH, FRAMES, 3, SIDE, width),), {})
    grid_tokens = _randn(BATCH, FRAMES, n, DIM)
    if name.startswith("shift."):
        amount = {"back": -1, "zero": 0, "forward": 1}[name.split(".")[1]]
        return Call(ts.shift, amt=amount), (grid_tokens,), {}
    if name == "PreTokenShift.FeedForward":
        return ts.PreTokenShift(FRAMES, ts.FeedForward(DIM)), (tokens,), {}
    if name == "PreTokenShift.Attention":
        block = ts.PreNorm(DIM, ts.PreTokenShift(FRAMES, ts.Attention(DIM, dim_head=DIM_HEAD, heads=HEADS)))
        return (Keywords(block, n=n, rot_emb=frame_rot, mask=frame_mask, cls_mask=cls_mask),
                (tokens, *time), {})
    if name == "FeedForward":
        return ts.FeedForward(DIM), (tokens,), {}
    if name == "FeedForward.dropout":
        return ts.FeedForward(DIM, mult=2, dropout=0.1), (tokens,), {}
    if name == "GEGLU":
        return ts.GEGLU(), (_randn(BATCH, 5, 2 * DIM),), {}
    if name == "PreNorm.Attention":
        block = ts.PreNorm(DIM, ts.Attention(DIM, dim_head=DIM_HEAD, heads=HEADS))
        return Keywords(block, f=FRAMES, rot_emb=image_rot), (tokens, *space), {}
    raise KeyError(name)


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from timesformer_pytorch import TimeSformer, rotary, timesformer_pytorch as ts

    model_name, optimizer_name = TRAIN[name]
    if model_name:
        keywords, shape, mask_kind = MODELS[model_name]
        model: Any = TimeSformer(**{**BASE, **keywords})
        inputs: tuple[Any, ...] = (_randn(*shape),)
        mask = _mask(mask_kind, shape[0], shape[1])
        target = torch.tensor([1, 3])
        entries: list[Any] = [TimeSformer]

        def loss_of(owner: Any, video: Any) -> Any:
            return F.cross_entropy(owner(video, mask=mask), target)
    else:
        model = ts.PreNorm(DIM, ts.Attention(DIM, dim_head=DIM_HEAD, heads=HEADS))
        inputs = (_tokens(),)
        target = _tokens(seed=5)
        entries = [ts.PreNorm, ts.Attention, rotary.RotaryEmbedding]
        frame_rot = rotary.RotaryEmbedding(DIM_HEAD)

        def loss_of(owner: Any, tokens: Any) -> Any:
            rot = frame_rot(FRAMES, device=tokens.device)
            out = owner(tokens, "b (f n) d", "(b n) f d", n=4, rot_emb=rot) + tokens
            return F.mse_loss(out, target)

    params = list(model.parameters())
    optimizer: Any = torch.optim.Adam(params, lr=1e-3) if optimizer_name == "adam" else torch.optim.SGD(params, lr=0.1)

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
