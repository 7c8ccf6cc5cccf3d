"""Ground-truth bench, slot_attention: Slot Attention (Locatello et al. 2020), its variants and wrappers.

slot-attention 1.5.2 (lucidrains) exports ``SlotAttention`` (slots sampled from a learned Gaussian, then
``iters`` rounds of attention normalized over the slots, a weighted mean of the values, a GRU cell and a
residual MLP), ``MultiHeadSlotAttention`` (the same over heads, packed for the GRU with einops),
``SlotAttentionExperimental`` (slots and inputs updating each other through gated residual attentions and
feedforwards), and three wrappers: ``AdaptiveSlotWrapper`` (a keep-or-drop decision per slot by a
straight-through Gumbel softmax), ``MetaSlotAttention`` (slots quantized against a shared
``vector_quantize_pytorch`` codebook, duplicates merged, masked and packed to the right) and ``OrthoSlotWrapper``
(an orthogonality loss over the centred slots, its off-diagonal mask built lazily in a buffer). The library has
no masks and no implicit differentiation. The tables cover, at width 16, 4 slots, a batch of 2 and 12 inputs:

- ``SLOTS``: ``SlotAttention``, ``MultiHeadSlotAttention`` and ``SlotAttentionExperimental`` forward: one, three
  and five iterations, a number of slots passed at call time, one, two and four heads, a batch of one,
  float64 inputs;
- ``WRAPPERS``: ``AdaptiveSlotWrapper`` (over the plain and the multi-head attention, a temperature, slots at
  call time), ``MetaSlotAttention`` (its k-means initialized codebook, cosine similarity, over the multi-head
  attention with slots at call time) and ``OrthoSlotWrapper`` (over the plain attention, with slots at call
  time, and over the tuple outputs of the adaptive wrapper, of the meta attention and of the experimental
  attention);
- ``PARTS``: the experimental attention's ``WeightedAttention`` (softmax over either side), ``GatedResidual`` and
  ``FeedForward``, and the functions ``l1norm`` (of two modules), ``gumbel_noise`` and ``gumbel_softmax`` through
  ``gt_calls.Call``;
- ``TRAIN``: train steps as users run them (bench code holding the library modules): a small CNN encoder with
  a position embedding into ``SlotAttention`` and a spatial-broadcast decoder (the paper's object discovery
  autoencoder, a reconstruction loss), set prediction with the multi-head attention, the adaptive wrapper's
  sparsity loss, the meta attention's quantizer loss, the orthogonality loss and the experimental attention's
  slots and inputs; each backward and an Adam step.

Random weights and inputs from fixed generators, nothing downloaded. ``names()`` needs no torch; ``build`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, NUM_SLOTS, BATCH, INPUTS, HIDDEN, SIDE = 16, 4, 2, 12, 32, 8

# Attention name -> (class, keywords over ``num_slots`` / ``dim`` / ``hidden_dim``, input (batch, inputs),
# dtype name, forward keywords).
SLOTS: dict[str, tuple[str, dict[str, Any], tuple[int, int], str, dict[str, Any]]] = {
    "SlotAttention": ("SlotAttention", {}, (BATCH, INPUTS), "float32", {}),
    "SlotAttention.iters1": ("SlotAttention", {"iters": 1}, (BATCH, INPUTS), "float32", {}),
    "SlotAttention.iters5": ("SlotAttention", {"iters": 5}, (BATCH, INPUTS), "float32", {}),
    "SlotAttention.num_slots6": ("SlotAttention", {}, (BATCH, INPUTS), "float32", {"num_slots": 6}),
    "SlotAttention.batch1": ("SlotAttention", {}, (1, INPUTS), "float32", {}),
    "SlotAttention.float64": ("SlotAttention", {"eps": 1e-6}, (BATCH, INPUTS), "float64", {}),
    "MultiHeadSlotAttention": ("MultiHeadSlotAttention", {"heads": 2, "dim_head": 8}, (BATCH, INPUTS), "float32",
                               {}),
    "MultiHeadSlotAttention.heads1": ("MultiHeadSlotAttention", {"heads": 1, "dim_head": 16}, (BATCH, INPUTS),
                                      "float32", {}),
    "MultiHeadSlotAttention.heads4.iters1": ("MultiHeadSlotAttention", {"heads": 4, "dim_head": 4, "iters": 1},
                                             (BATCH, INPUTS), "float32", {}),
    "MultiHeadSlotAttention.num_slots3": ("MultiHeadSlotAttention", {"heads": 2, "dim_head": 8}, (BATCH, INPUTS),
                                          "float32", {"num_slots": 3}),
    "SlotAttentionExperimental": ("SlotAttentionExperimental", {}, (BATCH, INPUTS), "float32", {}),
    "SlotAttentionExperimental.num_slots6": ("SlotAttentionExperimental", {}, (BATCH, INPUTS), "float32",
                                             {"num_slots": 6}),
}
# Wrapper name -> (wrapper, inner attention name of ``SLOTS`` or a wrapper name, wrapper keywords, forward keywords).
WRAPPERS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    "AdaptiveSlotWrapper": ("AdaptiveSlotWrapper", "SlotAttention", {}, {}),
    "AdaptiveSlotWrapper.temperature": ("AdaptiveSlotWrapper", "SlotAttention", {"temperature": 0.5}, {}),
    "AdaptiveSlotWrapper.num_slots6": ("AdaptiveSlotWrapper", "SlotAttention", {}, {"num_slots": 6}),
    "AdaptiveSlotWrapper.multi_head": ("AdaptiveSlotWrapper", "MultiHeadSlotAttention", {}, {}),
    "MetaSlotAttention": ("MetaSlotAttention", "SlotAttention", {"codebook_size": 8}, {}),
    "MetaSlotAttention.multi_head.num_slots6": ("MetaSlotAttention", "MultiHeadSlotAttention", {"codebook_size": 4},
                                                {"num_slots": 6}),
    "MetaSlotAttention.cosine": ("MetaSlotAttention", "SlotAttention",
                                 {"codebook_size": 8, "use_cosine_sim": True}, {}),
    "OrthoSlotWrapper": ("OrthoSlotWrapper", "SlotAttention", {}, {}),
    "OrthoSlotWrapper.num_slots6": ("OrthoSlotWrapper", "SlotAttention", {}, {"num_slots": 6}),
    "OrthoSlotWrapper.experimental": ("OrthoSlotWrapper", "SlotAttentionExperimental", {}, {}),
    "OrthoSlotWrapper.adaptive": ("OrthoSlotWrapper", "AdaptiveSlotWrapper", {}, {}),
    "OrthoSlotWrapper.meta": ("OrthoSlotWrapper", "MetaSlotAttention", {}, {}),
}
PARTS = ("WeightedAttention", "WeightedAttention.softmax_inputs", "GatedResidual", "FeedForward", "l1norm",
         "l1norm.multi_head.dim1", "gumbel_noise", "gumbel_softmax", "gumbel_softmax.temperature")
TRAIN = ("train.autoencoder", "train.set_prediction.multi_head", "train.adaptive.sparsity",
         "train.meta.vq_loss", "train.ortho_loss", "train.experimental")


def names() -> list[str]:
    return [*SLOTS, *WRAPPERS, *PARTS, *TRAIN]


def _randn(*shape: int, seed: int = 1, dtype: str = "float32") -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=getattr(torch, dtype))


def _attention(name: str) -> Any:
    import slot_attention

    cls, keywords, _, _, _ = SLOTS[name]
    return getattr(slot_attention, cls)(**{"num_slots": NUM_SLOTS, "dim": DIM, "hidden_dim": HIDDEN, **keywords})


def _wrapped(name: str) -> Any:
    """A wrapper of ``WRAPPERS`` (or an attention of ``SLOTS``), built around its inner module."""
    import slot_attention

    if name in SLOTS:
        return _attention(name)
    cls, inner, keywords, _ = WRAPPERS[name]
    return getattr(slot_attention, cls)(_wrapped(inner), **keywords)


def _part(name: str) -> Built:
    from slot_attention import adaptive_slot_wrapper as asw
    from slot_attention import multi_head_slot_attention as mh
    from slot_attention import slot_attention_experimental as sx

    from gt_calls import Call

    slots = _randn(BATCH, NUM_SLOTS, DIM)
    inputs = _randn(BATCH, INPUTS, DIM, seed=2)
    if name == "WeightedAttention":
        return sx.WeightedAttention(DIM), (slots, inputs), {}
    if name == "WeightedAttention.softmax_inputs":
        return sx.WeightedAttention(DIM, softmax_dim=2, weighted_mean_dim=1), (inputs, slots), {}
    if name == "GatedResidual":
        return sx.GatedResidual(DIM, sx.WeightedAttention(DIM)), (slots, inputs), {}
    if name == "FeedForward":
        return sx.FeedForward(DIM, HIDDEN), (slots,), {}
    if name == "l1norm.multi_head.dim1":
        return Call(mh.l1norm, dim=1), (slots.softmax(dim=-1),), {}
    if name == "gumbel_softmax":
        return Call(asw.gumbel_softmax), (_randn(BATCH, NUM_SLOTS, 2),), {}
    if name == "l1norm":
        return Call(sx.l1norm, eps=1e-6), (slots.abs(),), {}
    if name == "gumbel_noise":
        return Call(asw.gumbel_noise), (slots,), {}
    return Call(asw.gumbel_softmax, temperature=0.3), (_randn(BATCH, NUM_SLOTS, 5),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from slot_attention import (AdaptiveSlotWrapper, MetaSlotAttention, MultiHeadSlotAttention, OrthoSlotWrapper,
                                SlotAttention, SlotAttentionExperimental)
    from torch import nn

    from gt_calls import Run

    optimizers: list[Any] = []  # the one model's Adam, made at build

    def optimize(owner: Any, loss: Any) -> Any:
        """Backward and an Adam step over ``owner``'s parameters, when gradients are on."""
        if torch.is_grad_enabled():
            optimizer = optimizers[0]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    if name == "train.autoencoder":

        class SlotAutoencoder(nn.Module):
            """A CNN encoder with a learned position embedding, ``SlotAttention``, and a spatial-broadcast decoder
            whose per-slot RGB and alpha masks are mixed into the reconstruction."""

            def __init__(self) -> None:
                super().__init__()
                self.encoder = nn.Sequential(nn.Conv2d(3, DIM, 3, padding=1), nn.ReLU(),
                                             nn.Conv2d(DIM, DIM, 3, padding=1), nn.ReLU())
                self.position = nn.Parameter(torch.randn(1, SIDE * SIDE, DIM) * 0.02)
                self.mlp = nn.Sequential(nn.LayerNorm(DIM), nn.Linear(DIM, DIM), nn.ReLU(), nn.Linear(DIM, DIM))
                self.slots = SlotAttention(NUM_SLOTS, DIM, iters=3, hidden_dim=HIDDEN)
                self.decoder_position = nn.Parameter(torch.randn(1, DIM, SIDE, SIDE) * 0.02)
                self.decoder = nn.Sequential(nn.Conv2d(DIM, DIM, 3, padding=1), nn.ReLU(), nn.Conv2d(DIM, 4, 1))

            def forward(self, image: torch.Tensor) -> torch.Tensor:
                b = image.shape[0]
                features = self.encoder(image).flatten(2).transpose(1, 2) + self.position
                slots = self.slots(self.mlp(features))
                grid = slots.reshape(b * NUM_SLOTS, DIM, 1, 1).expand(-1, -1, SIDE, SIDE) + self.decoder_position
                decoded = self.decoder(grid).reshape(b, NUM_SLOTS, 4, SIDE, SIDE)
                rgb, alpha = decoded[:, :, :3], decoded[:, :, 3:].softmax(dim=1)
                return (rgb * alpha).sum(dim=1)

        model: nn.Module = SlotAutoencoder()
        image = _randn(BATCH, 3, SIDE, SIDE)
        optimizers.append(torch.optim.Adam(model.parameters(), lr=1e-3))
        return Run(model, lambda owner, x: optimize(owner, F.mse_loss(owner(x), x)), [SlotAttention]), (image,), {}

    inputs = _randn(BATCH, INPUTS, DIM)
    target = _randn(BATCH, NUM_SLOTS, DIM, seed=3)
    if name == "train.set_prediction.multi_head":
        net: nn.Module = nn.ModuleDict({"slots": MultiHeadSlotAttention(NUM_SLOTS, DIM, heads=2, dim_head=8,
                                                                       hidden_dim=HIDDEN),
                                        "head": nn.Linear(DIM, DIM)})

        def set_loss(owner: Any, x: Any, y: Any) -> Any:
            """A Hungarian-free set loss: each target matched to its nearest predicted slot."""
            predicted = owner["head"](owner["slots"](x))
            cost = torch.cdist(y, predicted)
            return optimize(owner, cost.min(dim=-1).values.mean())

        optimizers.append(torch.optim.Adam(net.parameters(), lr=1e-3))

        return Run(net, set_loss, [MultiHeadSlotAttention]), (inputs, target), {}
    if name == "train.adaptive.sparsity":
        wrapper: nn.Module = AdaptiveSlotWrapper(SlotAttention(NUM_SLOTS, DIM, hidden_dim=HIDDEN))

        def sparsity(owner: Any, x: Any, y: Any) -> Any:
            slots, keep = owner(x)
            loss = F.mse_loss(slots * keep[..., None], y) + keep.sum(dim=-1).mean() * 0.01
            return optimize(owner, loss)

        optimizers.append(torch.optim.Adam(wrapper.parameters(), lr=1e-3))

        return Run(wrapper, sparsity, [AdaptiveSlotWrapper]), (inputs, target), {}
    if name == "train.meta.vq_loss":
        meta: nn.Module = MetaSlotAttention(SlotAttention(NUM_SLOTS, DIM, hidden_dim=HIDDEN), codebook_size=8)

        def vq_step(owner: Any, x: Any, y: Any) -> Any:
            slots, mask, vq_loss = owner(x)
            loss = F.mse_loss(slots * mask[..., None], y) + vq_loss.sum()
            return optimize(owner, loss)

        optimizers.append(torch.optim.Adam(meta.parameters(), lr=1e-3))

        return Run(meta, vq_step, [MetaSlotAttention]), (inputs, target), {}
    if name == "train.ortho_loss":
        ortho: nn.Module = OrthoSlotWrapper(SlotAttention(NUM_SLOTS, DIM, hidden_dim=HIDDEN))

        def ortho_step(owner: Any, x: Any, y: Any) -> Any:
            slots, ortho_loss = owner(x)
            return optimize(owner, F.mse_loss(slots, y) + 0.1 * ortho_loss)

        optimizers.append(torch.optim.Adam(ortho.parameters(), lr=1e-3))

        return Run(ortho, ortho_step, [OrthoSlotWrapper]), (inputs, target), {}
    experimental: nn.Module = SlotAttentionExperimental(NUM_SLOTS, DIM, hidden_dim=HIDDEN)

    def experimental_step(owner: Any, x: Any, y: Any) -> Any:
        slots, updated = owner(x)
        return optimize(owner, F.mse_loss(slots, y) + updated.pow(2).mean() * 0.01)

    optimizers.append(torch.optim.Adam(experimental.parameters(), lr=1e-3))

    return Run(experimental, experimental_step, [SlotAttentionExperimental]), (inputs, target), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in SLOTS:
        _, _, (batch, length), dtype, call = SLOTS[name]
        model = _attention(name)
        if dtype == "float64":
            model = model.double()
        return model, (_randn(batch, length, DIM, dtype=dtype),), dict(call)
    if name in WRAPPERS:
        return _wrapped(name), (_randn(BATCH, INPUTS, DIM),), dict(WRAPPERS[name][3])
    if name in PARTS:
        return _part(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
