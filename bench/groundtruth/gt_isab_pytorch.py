"""Ground-truth bench, isab_pytorch: the Induced Set Attention Block of the Set Transformer (Lee 2019).

isab-pytorch 0.3.0 (lucidrains) has ``ISAB``: a few latents (inducing points) attend to the set (``attn1``), and
the set attends back to the updated latents (``attn2``), so attention costs O(mn). The latents are learned by
the block (``num_latents``) or passed in, unbatched or batched (a memory carried through several blocks, as
the README shows); the forward returns the set's output and the updated latents. Options: ``latent_self_attend``
(the latents attend to themselves and the set together, the mask padded for them), ``inverted_attention``
(softmax over the queries, slot-attention style, masked and renormalized by ``l1norm``), and a key padding
``mask`` over the set. Both are ``Attention``, which the tables drive alone too. At width 16, 2 heads (each of
the default head width 64), sets of 10, 4 latents, a batch of 2:

- ``MODELS``: ``ISAB.forward`` with learned latents, every combination of ``latent_self_attend`` and
  ``inverted_attention``, with and without a ragged mask (and an all-true one), latents passed in unbatched
  and batched, with a mask, one head, a batch of one, a single latent;
- ``PARTS``: ``Attention`` (cross attention, with a mask, attending to itself as well, inverted, inverted with
  a mask, both), ``l1norm``;
- ``TRAIN``: training steps (backward, an Adam or SGD step): a set classifier (ISAB, mean pooling, a linear
  head) with and without mask and inverted attention, two ISABs sharing a latent memory passed from one to the
  next, a slot-style inverted block.

Nothing was left out. Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no
torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SET, DIM, LATENTS, HEADS = 2, 10, 16, 4, 2

# Model name -> (constructor keywords (``num_latents`` None: latents passed in), set shape, call: "mask"
# ("ragged" | "full"), "latents" ("flat" | "batched")).
MODELS: dict[str, tuple[dict[str, Any], tuple[int, ...], dict[str, str]]] = {}
for _self in (False, True):
    for _inverted in (False, True):
        for _mask in (None, "ragged"):
            _name = "ISAB" + (".latent_self_attend" if _self else "") + (".inverted" if _inverted else "") + (
                ".mask" if _mask else "")
            MODELS[_name] = ({"num_latents": LATENTS, "latent_self_attend": _self, "inverted_attention": _inverted},
                             (BATCH, SET, DIM), {"mask": _mask} if _mask else {})
MODELS.update({
    "ISAB.mask.full": ({"num_latents": LATENTS}, (BATCH, SET, DIM), {"mask": "full"}),
    "ISAB.inverted.mask.full": ({"num_latents": LATENTS, "inverted_attention": True}, (BATCH, SET, DIM),
                                {"mask": "full"}),
    "ISAB.latents.flat": ({}, (BATCH, SET, DIM), {"latents": "flat"}),
    "ISAB.latents.batched": ({}, (BATCH, SET, DIM), {"latents": "batched"}),
    "ISAB.latents.flat.mask": ({}, (BATCH, SET, DIM), {"latents": "flat", "mask": "ragged"}),
    "ISAB.latents.batched.latent_self_attend.mask": ({"latent_self_attend": True}, (BATCH, SET, DIM),
                                                     {"latents": "batched", "mask": "ragged"}),
    "ISAB.latents.flat.inverted": ({"inverted_attention": True}, (BATCH, SET, DIM), {"latents": "flat"}),
    "ISAB.latents.batched.inverted.mask": ({"inverted_attention": True}, (BATCH, SET, DIM),
                                           {"latents": "batched", "mask": "ragged"}),
    "ISAB.heads1": ({"num_latents": LATENTS, "heads": 1}, (BATCH, SET, DIM), {}),
    "ISAB.heads4.latent_self_attend": ({"num_latents": LATENTS, "heads": 4, "latent_self_attend": True},
                                       (BATCH, SET, DIM), {}),
    "ISAB.batch1.mask": ({"num_latents": LATENTS}, (1, SET, DIM), {"mask": "ragged"}),
    "ISAB.latents1": ({"num_latents": 1}, (BATCH, SET, DIM), {}),
    "ISAB.latents1.inverted": ({"num_latents": 1, "inverted_attention": True}, (BATCH, SET, DIM), {}),
    "ISAB.more_latents_than_set": ({"num_latents": 12}, (BATCH, 6, DIM), {}),
})
PARTS = ("Attention", "Attention.mask", "Attention.and_self_attend", "Attention.and_self_attend.mask",
         "Attention.inverted", "Attention.inverted.mask", "Attention.inverted.and_self_attend.mask",
         "Attention.heads1.dim_head8", "l1norm", "l1norm.dim")
TRAIN = ("train.ISAB.classifier.adam", "train.ISAB.classifier.mask.sgd", "train.ISAB.classifier.inverted.adam",
         "train.ISAB.latent_self_attend.mask.adam", "train.ISAB.stack.memory.adam", "train.ISAB.stack.memory.mask.sgd",
         "train.Attention.inverted.slots.adam")


def names() -> list[str]:
    return [*MODELS, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(kind: str | None, batch: int, length: int) -> Any:
    """A key padding mask: every element kept ("full"), or the last rows' second half padded ("ragged")."""
    import torch

    if kind is None:
        return None
    mask = torch.ones(batch, length, dtype=torch.bool)
    if kind == "ragged":
        mask[-1, length // 2:] = False
    return mask


def _model(name: str) -> Built:
    from gt_calls import Keywords
    from isab_pytorch import ISAB

    keywords, shape, call = MODELS[name]
    model = ISAB(dim=DIM, **{"heads": HEADS, **keywords})
    static: dict[str, Any] = {}
    if call.get("mask"):
        static["mask"] = _mask(call["mask"], shape[0], shape[1])
    if call.get("latents") == "flat":
        static["latents"] = _randn(LATENTS, DIM, seed=5)
    elif call.get("latents") == "batched":
        static["latents"] = _randn(shape[0], LATENTS, DIM, seed=5)
    return Keywords(model, **static), (_randn(*shape),), {}


def _part(name: str) -> Built:
    from gt_calls import Call, Keywords
    from isab_pytorch import isab_pytorch as ip

    x, context = _randn(BATCH, LATENTS, DIM), _randn(BATCH, SET, DIM, seed=2)
    if name.startswith("l1norm"):
        if name == "l1norm":
            return Call(ip.l1norm), (_randn(BATCH, HEADS, LATENTS, SET).softmax(dim=-2),), {}
        return Call(ip.l1norm, dim=-2, eps=1e-6), (_randn(BATCH, SET, DIM).abs(),), {}
    keywords: dict[str, Any] = {"heads": HEADS}
    if ".and_self_attend" in name:
        keywords["and_self_attend"] = True
    if ".inverted" in name:
        keywords["inverted_attention"] = True
    if name == "Attention.heads1.dim_head8":
        keywords.update(heads=1, dim_head=8)
    attention = ip.Attention(DIM, **keywords)
    if name.endswith(".mask"):
        return Keywords(attention, mask=_mask("ragged", BATCH, SET)), (x, context), {}
    return attention, (x, context), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import Run
    from isab_pytorch import ISAB, isab_pytorch as ip

    x = _randn(BATCH, SET, DIM)
    labels = torch.tensor([1, 2])
    mask = _mask("ragged", BATCH, SET) if ".mask" in name else None
    entries: list[Any] = [ISAB]
    inputs: tuple[Any, ...] = (x,)
    if name.startswith("train.ISAB.stack"):
        model: Any = nn.ModuleDict({"first": ISAB(dim=DIM, heads=HEADS), "second": ISAB(dim=DIM, heads=HEADS),
                                    "head": nn.Linear(DIM, 3)})
        memory = nn.Parameter(_randn(LATENTS, DIM, seed=5))
        model.register_parameter("memory", memory)

        def loss_of(owner: Any, s: Any) -> Any:
            out, latents = owner["first"](s, owner.memory, mask=mask)
            out, latents = owner["second"](out, latents)
            return F.cross_entropy(owner["head"](out.mean(dim=1) + latents.mean(dim=1)), labels)
    elif name == "train.Attention.inverted.slots.adam":
        model = nn.ModuleDict({"attn": ip.Attention(DIM, heads=1, dim_head=16, inverted_attention=True),
                               "head": nn.Linear(DIM, 3)})
        slots = nn.Parameter(_randn(LATENTS, DIM, seed=6))
        model.register_parameter("slots", slots)
        entries = [ip.Attention]

        def loss_of(owner: Any, s: Any) -> Any:
            queries = owner.slots.expand(s.shape[0], -1, -1)
            return F.cross_entropy(owner["head"](owner["attn"](queries, s).amax(dim=1)), labels)
    else:
        model = nn.ModuleDict({"isab": ISAB(dim=DIM, heads=HEADS, num_latents=LATENTS,
                                            inverted_attention=".inverted" in name,
                                            latent_self_attend="latent_self_attend" in name),
                               "head": nn.Linear(DIM, 3)})

        def loss_of(owner: Any, s: Any) -> Any:
            out, _ = owner["isab"](s, mask=mask)
            return F.cross_entropy(owner["head"](out.mean(dim=1)), labels)

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
