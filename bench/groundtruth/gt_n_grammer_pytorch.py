"""Ground-truth bench, n_grammer_pytorch: N-Grammer layers, latent bigram embeddings from clustered token states.

n-grammer-pytorch 0.0.14 (lucidrains, after lingvo's JAX layer) augments a sequence of embeddings with bigram
embeddings of discrete latent ids. ``VectorQuantization`` assigns each head's slice of every token to the nearest
of its k-means centroids (a buffer, moved by an exponential moving average of the assigned inputs in train mode,
written through ``.data``). ``Ngrammer`` forms bigram ids of consecutive cluster ids (reset at segment starts when
``segment_pos`` is given), hashes them per head into an n-gram vocabulary with multi-way hashing (primes drawn
with sympy at construction), embeds and multi-head layer-norms them, and concatenates them onto (or adds them to)
the layer-normed unigram embeddings, masked when asked. ``VQNgrammer`` chains the two, and
``get_ngrammer_param_groups`` gives the n-gram parameters their own learning rate. The tables cover, at 2 heads
of 8 (4 n-gram dimensions), 16 clusters, an n-gram vocabulary of 64, a batch of 2, 6 tokens:

- ``VQNGRAMMER``: ``VQNgrammer`` forward: defaults, one head and four, added instead of concatenated n-grams, a
  mask, segment positions, both, a decay and epsilon, a larger n-gram embedding, the library's default n-gram
  vocabulary (with 512 clusters), a batch of one, one token;
- ``NGRAMMER``: ``Ngrammer`` forward given cluster ids per token (shared by the heads) or per head, with a mask
  and segment positions, added n-grams;
- ``PARTS``: ``VectorQuantization`` (eval, and train mode's EMA update), ``MultiheadLayerNorm``,
  ``get_bigram_ids`` with and without segments, ``multi_way_hash_ids``, ``sum_squares``;
- ``USER``: how users place it: a language model whose first layer output passes through a ``VQNgrammer``
  (as in the paper), an encoder with segment positions from packed sequences, a token embedding augmented
  directly with the n-grams of given cluster ids;
- ``TRAIN``: training steps: the language model with the library's parameter groups (the n-gram learning rate)
  under Adam, the packed encoder with SGD, an ``Ngrammer`` with a mask under AdamW, the language model with its
  ``VQNgrammer`` under activation checkpointing (``torch.utils.checkpoint``, non-reentrant).

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, HEADS, DIM_HEAD, CLUSTERS, NGRAM_VOCAB, NGRAM_DIM, VOCAB = 2, 6, 2, 8, 16, 64, 4, 40
BASE: dict[str, Any] = {"num_clusters": CLUSTERS, "num_heads": HEADS, "dim_per_head": DIM_HEAD,
                        "ngram_vocab_size": NGRAM_VOCAB, "ngram_emb_dim": NGRAM_DIM}

# Name -> (keywords, call options: "mask", "segment_pos", "batch1", "seq1").
VQNGRAMMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "VQNgrammer": ({}, ()),
    "VQNgrammer.heads1": ({"num_heads": 1}, ()),
    "VQNgrammer.heads4": ({"num_heads": 4}, ()),
    "VQNgrammer.add_ngrams": ({"concat_ngrams": False, "ngram_emb_dim": DIM_HEAD}, ()),
    "VQNgrammer.mask": ({}, ("mask",)),
    "VQNgrammer.segment_pos": ({}, ("segment_pos",)),
    "VQNgrammer.mask.segment_pos": ({}, ("mask", "segment_pos")),
    "VQNgrammer.add_ngrams.mask.segment_pos": ({"concat_ngrams": False, "ngram_emb_dim": DIM_HEAD},
                                               ("mask", "segment_pos")),
    "VQNgrammer.decay.epsilon": ({"decay": 0.9, "epsilon": 1e-4}, ()),
    "VQNgrammer.ngram_emb_dim6": ({"ngram_emb_dim": 6}, ()),
    "VQNgrammer.default_vocab": ({"num_clusters": 512, "ngram_vocab_size": 768 * 256}, ()),
    "VQNgrammer.batch1": ({}, ("batch1",)),
    "VQNgrammer.seq1": ({}, ("seq1",)),
}
# Name -> (keywords, cluster ids "token" | "head", call options as above).
NGRAMMER: dict[str, tuple[dict[str, Any], str, tuple[str, ...]]] = {
    "Ngrammer.token_ids": ({}, "token", ()),
    "Ngrammer.head_ids": ({}, "head", ()),
    "Ngrammer.head_ids.mask": ({}, "head", ("mask",)),
    "Ngrammer.token_ids.segment_pos": ({}, "token", ("segment_pos",)),
    "Ngrammer.add_ngrams.head_ids.mask.segment_pos": ({"concat_ngrams": False, "ngram_emb_dim": DIM_HEAD}, "head",
                                                      ("mask", "segment_pos")),
    "Ngrammer.heads1.token_ids": ({"num_heads": 1}, "token", ()),
}
PARTS = ("VectorQuantization", "VectorQuantization.heads4", "MultiheadLayerNorm", "MultiheadLayerNorm.heads1",
         "get_bigram_ids", "get_bigram_ids.segment_pos", "multi_way_hash_ids", "sum_squares")
USER = ("NgrammerLM", "NgrammerLM.mask", "PackedEncoder.segment_pos", "TokenNgramEmbedding")
TRAIN = ("train.NgrammerLM.param_groups.adam", "train.PackedEncoder.sgd", "train.Ngrammer.mask.adamw",
         "train.NgrammerLM.checkpoint.adam")


def names() -> list[str]:
    return [*VQNGRAMMER, *NGRAMMER, *PARTS, *USER, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _segment_pos(batch: int, seq: int) -> Any:
    """Positions within packed segments: the first sequence holds one segment, the second two."""
    import torch

    positions = torch.arange(seq).repeat(batch, 1)
    if batch > 1:
        cut = seq // 2
        positions[1, cut:] = torch.arange(seq - cut)
    return positions


def _call(options: tuple[str, ...], batch: int, seq: int) -> dict[str, Any]:
    import torch

    kwargs: dict[str, Any] = {}
    if "mask" in options:
        mask = torch.ones(batch, seq, dtype=torch.bool)
        if batch > 1 and seq > 2:
            mask[-1, -2:] = False
        kwargs["mask"] = mask
    if "segment_pos" in options:
        kwargs["segment_pos"] = _segment_pos(batch, seq)
    return kwargs


def _vqngrammer(name: str) -> Built:
    from n_grammer_pytorch import VQNgrammer

    keywords, options = VQNGRAMMER[name]
    config = {**BASE, **keywords}
    batch = 1 if "batch1" in options else BATCH
    seq = 1 if "seq1" in options else SEQ
    model = VQNgrammer(**config)
    x = _randn(batch, seq, config["num_heads"] * DIM_HEAD)
    return model, (x,), _call(options, batch, seq)


def _ngrammer(name: str) -> Built:
    import torch
    from n_grammer_pytorch import Ngrammer

    keywords, ids, options = NGRAMMER[name]
    config = {"unigram_vocab_size": CLUSTERS, "dim_per_head": DIM_HEAD, "num_heads": HEADS,
              "ngram_emb_dim": NGRAM_DIM, "ngram_vocab_size": NGRAM_VOCAB, **keywords}
    model = Ngrammer(**config)
    heads = config["num_heads"]
    shape = (BATCH, SEQ) if ids == "token" else (BATCH, SEQ, heads)
    cluster_ids = torch.randint(0, CLUSTERS, shape, generator=torch.Generator().manual_seed(3))
    embeds = _randn(BATCH, SEQ, heads * DIM_HEAD)
    return model, (embeds, cluster_ids), _call(options, BATCH, SEQ)


def _part(name: str) -> Built:
    import torch
    from n_grammer_pytorch import n_grammer_pytorch as ng

    from gt_calls import Call

    if name.startswith("VectorQuantization"):
        heads = 4 if name.endswith("heads4") else HEADS
        model = ng.VectorQuantization(num_clusters=CLUSTERS, num_heads=heads, dim_per_head=DIM_HEAD)
        return model, (_randn(BATCH, SEQ, heads * DIM_HEAD),), {}
    if name.startswith("MultiheadLayerNorm"):
        heads = 1 if name.endswith("heads1") else HEADS
        return ng.MultiheadLayerNorm(DIM_HEAD, heads=heads), (_randn(BATCH, SEQ, heads, DIM_HEAD),), {}
    ids = torch.randint(0, CLUSTERS, (BATCH, SEQ, HEADS), generator=torch.Generator().manual_seed(3))
    if name == "get_bigram_ids":
        return Call(ng.get_bigram_ids, vocab_size=CLUSTERS), (ids,), {}
    if name == "get_bigram_ids.segment_pos":
        return Call(ng.get_bigram_ids, vocab_size=CLUSTERS, segment_pos=_segment_pos(BATCH, SEQ)), (ids,), {}
    if name == "multi_way_hash_ids":
        heads = torch.arange(HEADS).view(1, 1, HEADS)
        primes = torch.tensor([67, 71]).view(1, 1, HEADS)
        return Call(ng.multi_way_hash_ids, buckets=NGRAM_VOCAB), (ids * CLUSTERS, heads + 1, heads + 1, primes), {}
    return Call(ng.sum_squares, dim=-1), (_randn(BATCH, SEQ, DIM_HEAD),), {}


def _lm(masked: bool = False, checkpointed: bool = False) -> Any:
    from n_grammer_pytorch import VQNgrammer
    from torch import nn
    from torch.utils.checkpoint import checkpoint

    width = HEADS * DIM_HEAD

    class NgrammerLM(nn.Module):
        """Token embedding, a transformer layer, the N-Grammer on its output, a second layer and logits."""

        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(VOCAB, width)
            self.layer1 = nn.TransformerEncoderLayer(width, 2, 32, dropout=0.0, batch_first=True)
            self.ngrammer = VQNgrammer(**BASE)
            self.layer2 = nn.TransformerEncoderLayer(width, 2, 32, dropout=0.0, batch_first=True)
            self.to_logits = nn.Linear(width, VOCAB)

        def forward(self, ids: Any, mask: Any = None) -> Any:
            x = self.layer1(self.emb(ids))
            if checkpointed:
                x = checkpoint(self.ngrammer, x, use_reentrant=False)
            else:
                x = self.ngrammer(x, mask=mask if masked else None)
            return self.to_logits(self.layer2(x))

    return NgrammerLM()


def _packed() -> Any:
    from n_grammer_pytorch import VQNgrammer
    from torch import nn

    width = HEADS * DIM_HEAD

    class PackedEncoder(nn.Module):
        """Packed sequences: the N-Grammer resets bigrams at segment starts, then a pooled classifier head."""

        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(VOCAB, width)
            self.ngrammer = VQNgrammer(**{**BASE, "concat_ngrams": False, "ngram_emb_dim": DIM_HEAD})
            self.head = nn.Linear(width, 3)

        def forward(self, ids: Any, segment_pos: Any) -> Any:
            x = self.ngrammer(self.emb(ids), segment_pos=segment_pos)
            return self.head(x.mean(1))

    return PackedEncoder()


def _user(name: str) -> Built:
    from n_grammer_pytorch import Ngrammer, VQNgrammer
    from torch import nn

    import gt_inputs
    from gt_calls import Run

    ids = gt_inputs.tokens(VOCAB, BATCH, SEQ, seed=4)
    if name.startswith("NgrammerLM"):
        masked = name.endswith("mask")
        mask = gt_inputs.padding_mask(BATCH, SEQ, 2)
        return Run(_lm(masked), lambda owner, i, m: owner(i, m), [VQNgrammer]), (ids, mask), {}
    if name == "PackedEncoder.segment_pos":
        return (Run(_packed(), lambda owner, i, s: owner(i, s), [VQNgrammer]), (ids, _segment_pos(BATCH, SEQ)),
                {})
    parts = nn.ModuleDict({"emb": nn.Embedding(VOCAB, HEADS * DIM_HEAD),
                           "ngram": Ngrammer(unigram_vocab_size=VOCAB, dim_per_head=DIM_HEAD, num_heads=HEADS,
                                             ngram_emb_dim=NGRAM_DIM, ngram_vocab_size=NGRAM_VOCAB)})

    def embed(owner: Any, i: Any) -> Any:
        return owner["ngram"](owner["emb"](i), cluster_ids=i)

    return Run(parts, embed, [Ngrammer]), (ids,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from n_grammer_pytorch import Ngrammer, VQNgrammer, get_ngrammer_param_groups

    import gt_inputs
    from gt_calls import Run

    ids = gt_inputs.tokens(VOCAB, BATCH, SEQ, seed=4)
    if name.startswith("train.NgrammerLM"):
        model: Any = _lm(checkpointed="checkpoint" in name)
        optimizer: Any = torch.optim.Adam(get_ngrammer_param_groups(model, ngrammer_learning_rate=1e-2), lr=1e-3)
        inputs: tuple[Any, ...] = (ids,)
        entries: list[Any] = [VQNgrammer]
        targets = gt_inputs.tokens(VOCAB, BATCH, SEQ, seed=5)

        def loss_fn(owner: Any, *t: Any) -> Any:
            return F.cross_entropy(owner(*t).transpose(1, 2), targets)
    elif name == "train.PackedEncoder.sgd":
        model = _packed()
        optimizer = torch.optim.SGD(get_ngrammer_param_groups(model), lr=0.05)
        inputs = (ids, _segment_pos(BATCH, SEQ))
        entries = [VQNgrammer]
        labels = torch.tensor([0, 2])

        def loss_fn(owner: Any, *t: Any) -> Any:
            return F.cross_entropy(owner(*t), labels)
    else:
        model = Ngrammer(unigram_vocab_size=CLUSTERS, dim_per_head=DIM_HEAD, num_heads=HEADS, ngram_emb_dim=NGRAM_DIM,
                         ngram_vocab_size=NGRAM_VOCAB)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        cluster_ids = torch.randint(0, CLUSTERS, (BATCH, SEQ, HEADS), generator=torch.Generator().manual_seed(3))
        inputs = (_randn(BATCH, SEQ, HEADS * DIM_HEAD), cluster_ids, gt_inputs.padding_mask(BATCH, SEQ, 2))
        entries = [Ngrammer]

        def loss_fn(owner: Any, *t: Any) -> Any:
            return owner(t[0], t[1], mask=t[2]).pow(2).mean()

    def step(owner: Any, *t: Any) -> Any:
        """The loss, its gradients and an optimizer step (only where gradients are on)."""
        loss = loss_fn(owner, *t)
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
    if name in VQNGRAMMER:
        return _vqngrammer(name)
    if name in NGRAMMER:
        return _ngrammer(name)
    if name in PARTS:
        return _part(name)
    if name in USER:
        return _user(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
