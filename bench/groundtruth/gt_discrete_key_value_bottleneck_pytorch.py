"""Ground-truth bench, discrete_key_value_bottleneck_pytorch: a frozen encoder's features through discrete keys
to learned values.

discrete-key-value-bottleneck-pytorch 0.1.1 (lucidrains) is one class, ``DiscreteKeyValueBottleneck``: an optional
(frozen: put in eval mode and run under ``no_grad``, its output detached in place) encoder turns the input into
``(batch, tokens, dim_embed)`` features, a fixed random projection maps them to one ``dim``-wide key per memory
codebook, a ``vector_quantize_pytorch.VectorQuantize`` with one codebook per head picks the nearest key (its EMA
updates the keys in train mode), and the key indices gather learned value vectors, averaged over the codebooks
unless asked not to; ``return_intermediates`` also returns the quantizer's output. Every other keyword of the
constructor is the quantizer's. The tables cover, at width 8, 16 memories, a batch of 2, 6 tokens:

- ``BOTTLENECK``: the forward without an encoder: one and several codebooks, ``dim_embed`` and ``dim_memory``
  other than ``dim``, ``average_pool_memories`` off (at construction or per call), ``return_intermediates``, a
  batch of one, one token;
- ``QUANTIZER``: the quantizer options users pass through: EMA ``decay``, k-means initialisation (run on the
  first training batch), cosine similarity, dead-code expiry, a ``codebook_dim`` (projections), commitment weight
  off, orthogonal regularisation, stochastic code sampling with a temperature, straight-through, the rotation
  trick off, a learnable codebook without EMA, a frozen codebook, affine parameters, a diversity loss, layer norm
  after the projection in, a cross-entropy commitment loss, directional reparameterisation (which the quantizer
  accepts only with dead-code expiry on), a manual EMA update;
- ``ENCODER``: with an encoder: a patch embedder over images, a token embedding with a keyword (a padding mask)
  passed through the bottleneck's ``**kwargs``, an MLP over sequences with ``dim_embed`` (ending in a layer norm:
  an encoder whose output is a view, as a final ``Linear`` on 3-d input gives, fails the library's in-place
  ``detach_`` eagerly), several codebooks;
- ``USER``: a classifier head on pooled memories (the continual-learning setup of the paper), memories per
  codebook fed to a head, the commitment loss read from the intermediates;
- ``TRAIN``: training steps: the classifier's cross-entropy with Adam (only the values and head learn), a
  regression with the commitment loss added under SGD, a learnable-codebook bottleneck under AdamW, and under
  activation checkpointing (``torch.utils.checkpoint``, non-reentrant).

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, TOKENS, DIM, MEMORIES, EMBED, MEMORY_DIM, CLASSES, VOCAB = 2, 6, 8, 16, 12, 10, 4, 30

# Name -> (constructor keywords, call keywords, options: "batch1", "token1").
BOTTLENECK: dict[str, tuple[dict[str, Any], dict[str, Any], tuple[str, ...]]] = {
    "DKVB": ({}, {}, ()),
    "DKVB.codebooks4": ({"num_memory_codebooks": 4}, {}, ()),
    "DKVB.dim_embed": ({"dim_embed": EMBED}, {}, ("embed",)),
    "DKVB.dim_memory": ({"dim_memory": MEMORY_DIM}, {}, ()),
    "DKVB.codebooks2.dim_memory.dim_embed": ({"num_memory_codebooks": 2, "dim_memory": MEMORY_DIM,
                                              "dim_embed": EMBED}, {}, ("embed",)),
    "DKVB.no_average_pool": ({"num_memory_codebooks": 2, "average_pool_memories": False}, {}, ()),
    "DKVB.no_average_pool.per_call": ({"num_memory_codebooks": 2}, {"average_pool_memories": False}, ()),
    "DKVB.average_pool.per_call": ({"num_memory_codebooks": 2, "average_pool_memories": False},
                                   {"average_pool_memories": True}, ()),
    "DKVB.return_intermediates": ({}, {"return_intermediates": True}, ()),
    "DKVB.codebooks2.return_intermediates": ({"num_memory_codebooks": 2}, {"return_intermediates": True}, ()),
    "DKVB.batch1": ({}, {}, ("batch1",)),
    "DKVB.token1.codebooks2": ({"num_memory_codebooks": 2}, {}, ("token1",)),
}
# Name -> quantizer keywords (with two codebooks where "codebooks2" is in the name).
QUANTIZER: dict[str, dict[str, Any]] = {
    "DKVB.vq.decay": {"decay": 0.9},
    "DKVB.vq.kmeans_init": {"kmeans_init": True, "kmeans_iters": 2},
    "DKVB.vq.kmeans_init.codebooks2": {"kmeans_init": True, "kmeans_iters": 2},
    "DKVB.vq.cosine_sim": {"use_cosine_sim": True},
    "DKVB.vq.cosine_sim.codebooks2": {"use_cosine_sim": True},
    "DKVB.vq.threshold_ema_dead_code": {"threshold_ema_dead_code": 2},
    "DKVB.vq.codebook_dim": {"codebook_dim": 4},
    "DKVB.vq.codebook_dim.codebooks2": {"codebook_dim": 4},
    "DKVB.vq.no_commitment": {"commitment_weight": 0.0},
    "DKVB.vq.orthogonal_reg": {"orthogonal_reg_weight": 0.1},
    "DKVB.vq.orthogonal_reg.active_codes": {"orthogonal_reg_weight": 0.1, "orthogonal_reg_active_codes_only": True,
                                            "orthogonal_reg_max_codes": 8},
    "DKVB.vq.stochastic_sample_codes": {"stochastic_sample_codes": True, "sample_codebook_temp": 0.5},
    "DKVB.vq.straight_through": {"straight_through": True, "rotation_trick": False},
    "DKVB.vq.no_rotation_trick": {"rotation_trick": False},
    "DKVB.vq.learnable_codebook": {"learnable_codebook": True, "ema_update": False},
    "DKVB.vq.freeze_codebook": {"freeze_codebook": True},
    "DKVB.vq.affine_param": {"affine_param": True},
    "DKVB.vq.diversity_loss": {"codebook_diversity_loss_weight": 0.1},
    "DKVB.vq.layernorm_after_project_in": {"codebook_dim": 4, "layernorm_after_project_in": True},
    "DKVB.vq.commitment_cross_entropy": {"commitment_use_cross_entropy_loss": True},
    "DKVB.vq.directional_reparam": {"directional_reparam": True, "threshold_ema_dead_code": 2},
    "DKVB.vq.manual_ema_update": {"manual_ema_update": True},
}
ENCODER = ("DKVB.encoder.patches", "DKVB.encoder.patches.codebooks4", "DKVB.encoder.tokens.mask_kwarg",
           "DKVB.encoder.mlp.dim_embed", "DKVB.encoder.patches.no_average_pool.return_intermediates")
USER = ("Classifier.pooled_memories", "Classifier.per_codebook_memories", "Regressor.commit_loss")
TRAIN = ("train.Classifier.adam", "train.Regressor.commit_loss.sgd", "train.learnable_codebook.adamw",
         "train.learnable_codebook.checkpoint.adam")


def names() -> list[str]:
    return [*BOTTLENECK, *QUANTIZER, *ENCODER, *USER, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _bottleneck(name: str) -> Built:
    from discrete_key_value_bottleneck_pytorch import DiscreteKeyValueBottleneck

    keywords, call, options = BOTTLENECK[name]
    batch = 1 if "batch1" in options else BATCH
    tokens = 1 if "token1" in options else TOKENS
    width = EMBED if "embed" in options else DIM
    model = DiscreteKeyValueBottleneck(DIM, num_memories=MEMORIES, **keywords)
    return model, (_randn(batch, tokens, width),), call


def _quantizer(name: str) -> Built:
    from discrete_key_value_bottleneck_pytorch import DiscreteKeyValueBottleneck

    codebooks = 2 if "codebooks2" in name else 1
    model = DiscreteKeyValueBottleneck(DIM, num_memories=MEMORIES, num_memory_codebooks=codebooks, **QUANTIZER[name])
    return model, (_randn(BATCH, TOKENS, DIM),), {"return_intermediates": True}


def _patch_encoder() -> Any:
    from torch import nn

    class PatchEncoder(nn.Module):
        """A small convolutional patch embedder standing in for a pretrained vision backbone."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(3, EMBED, 4, stride=4)
            self.norm = nn.LayerNorm(EMBED)

        def forward(self, images: Any) -> Any:
            return self.norm(self.conv(images).flatten(2).transpose(1, 2))

    return PatchEncoder()


def _token_encoder() -> Any:
    from torch import nn

    class TokenEncoder(nn.Module):
        """A token embedding and a transformer layer, taking a padding mask as a keyword."""

        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(VOCAB, DIM)
            self.layer = nn.TransformerEncoderLayer(DIM, 2, 16, dropout=0.0, batch_first=True)

        def forward(self, tokens: Any, mask: Any = None) -> Any:
            return self.layer(self.emb(tokens), src_key_padding_mask=None if mask is None else ~mask)

    return TokenEncoder()


def _encoder(name: str) -> Built:
    from torch import nn
    from discrete_key_value_bottleneck_pytorch import DiscreteKeyValueBottleneck

    import gt_inputs

    images = _randn(BATCH, 3, 8, 8)
    if name.startswith("DKVB.encoder.patches"):
        codebooks = 4 if "codebooks4" in name else 1
        pool = "no_average_pool" not in name
        model = DiscreteKeyValueBottleneck(DIM, num_memories=MEMORIES, dim_embed=EMBED, encoder=_patch_encoder(),
                                           num_memory_codebooks=codebooks, average_pool_memories=pool)
        call = {"return_intermediates": True} if "return_intermediates" in name else {}
        return model, (images,), call
    if name == "DKVB.encoder.tokens.mask_kwarg":
        model = DiscreteKeyValueBottleneck(DIM, num_memories=MEMORIES, encoder=_token_encoder(),
                                           num_memory_codebooks=2)
        return (model, (gt_inputs.tokens(VOCAB, BATCH, TOKENS, seed=2),),
                {"mask": gt_inputs.padding_mask(BATCH, TOKENS, 2)})
    encoder = nn.Sequential(nn.Linear(DIM, 16), nn.GELU(), nn.Linear(16, EMBED), nn.LayerNorm(EMBED))
    model = DiscreteKeyValueBottleneck(DIM, num_memories=MEMORIES, dim_embed=EMBED, encoder=encoder)
    return model, (_randn(BATCH, TOKENS, DIM),), {}


def _classifier(per_codebook: bool = False, **vq: Any) -> Any:
    from torch import nn
    from discrete_key_value_bottleneck_pytorch import DiscreteKeyValueBottleneck

    class Classifier(nn.Module):
        """A frozen patch encoder, the bottleneck, and a linear head on the pooled memories."""

        def __init__(self) -> None:
            super().__init__()
            self.bottleneck = DiscreteKeyValueBottleneck(DIM, num_memories=MEMORIES, dim_embed=EMBED,
                                                         num_memory_codebooks=2, encoder=_patch_encoder(),
                                                         average_pool_memories=not per_codebook, **vq)
            self.head = nn.Linear(2 * DIM if per_codebook else DIM, CLASSES)

        def forward(self, images: Any) -> Any:
            memories = self.bottleneck(images)
            if per_codebook:
                memories = memories.permute(0, 2, 1, 3).flatten(2)
            return self.head(memories.mean(1))

    return Classifier()


def _regressor() -> Any:
    from torch import nn
    from discrete_key_value_bottleneck_pytorch import DiscreteKeyValueBottleneck

    class Regressor(nn.Module):
        """The bottleneck over sequences, its commitment loss returned beside a head's prediction."""

        def __init__(self) -> None:
            super().__init__()
            self.bottleneck = DiscreteKeyValueBottleneck(DIM, num_memories=MEMORIES, num_memory_codebooks=2,
                                                         dim_memory=MEMORY_DIM)
            self.head = nn.Linear(MEMORY_DIM, 1)

        def forward(self, x: Any) -> Any:
            memories, (_, indices, commit_loss) = self.bottleneck(x, return_intermediates=True)
            return self.head(memories).squeeze(-1), commit_loss.sum()

    return Regressor()


def _user(name: str) -> Built:
    from discrete_key_value_bottleneck_pytorch import DiscreteKeyValueBottleneck

    from gt_calls import Run

    entries = [DiscreteKeyValueBottleneck]
    if name.startswith("Classifier"):
        model = _classifier(per_codebook=name.endswith("per_codebook_memories"))
        return Run(model, lambda owner, x: owner(x), entries), (_randn(BATCH, 3, 8, 8),), {}
    return Run(_regressor(), lambda owner, x: owner(x), entries), (_randn(BATCH, TOKENS, DIM),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from discrete_key_value_bottleneck_pytorch import DiscreteKeyValueBottleneck

    from gt_calls import Run

    labels = torch.tensor([0, 2])
    if name == "train.Classifier.adam":
        model: Any = _classifier()
        optimizer: Any = torch.optim.Adam([model.bottleneck.values, *model.head.parameters()], lr=1e-3)
        inputs: tuple[Any, ...] = (_randn(BATCH, 3, 8, 8),)

        def loss_fn(owner: Any, x: Any) -> Any:
            return F.cross_entropy(owner(x), labels)
    elif name == "train.Regressor.commit_loss.sgd":
        model = _regressor()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        inputs = (_randn(BATCH, TOKENS, DIM),)
        target = _randn(BATCH, TOKENS, seed=3)

        def loss_fn(owner: Any, x: Any) -> Any:
            pred, commit = owner(x)
            return F.mse_loss(pred, target) + commit
    else:
        model = DiscreteKeyValueBottleneck(DIM, num_memories=MEMORIES, num_memory_codebooks=2,
                                           learnable_codebook=True, ema_update=False)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        inputs = (_randn(BATCH, TOKENS, DIM),)
        checkpointed = "checkpoint" in name

        def loss_fn(owner: Any, x: Any) -> Any:
            if checkpointed:  # the bottleneck under activation checkpointing
                from torch.utils.checkpoint import checkpoint

                memories, (_, _, commit) = checkpoint(owner, x, return_intermediates=True, use_reentrant=False)
            else:
                memories, (_, _, commit) = owner(x, return_intermediates=True)
            return memories.pow(2).mean() + commit.sum()

    def step(owner: Any, x: Any) -> Any:
        """The loss, its gradients and an optimizer step (only where gradients are on)."""
        loss = loss_fn(owner, x)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, [DiscreteKeyValueBottleneck]), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in BOTTLENECK:
        return _bottleneck(name)
    if name in QUANTIZER:
        return _quantizer(name)
    if name in ENCODER:
        return _encoder(name)
    if name in USER:
        return _user(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
