"""Ground-truth bench, PEER_pytorch (PEER-pytorch): parameter-efficient expert retrieval layers and their options.

PEER-pytorch (lucidrains) implements the "mixture of a million experts" of He (2024): ``PEER`` replaces a
transformer's feed-forward with a product-key retrieval over ``num_experts`` single-neuron experts (two
embeddings hold their down and up projections): per head, the queries split in two halves, each half scores
its sub-keys, the top-k of each half combine into ``product_key_topk ** 2`` candidates (``einx`` additions),
the best ones are gathered and their scores activated (ReLU for non-competing scores, else softmax), with
optional per-head expert sets, a pre-RMSNorm, dropout and a sparse fine-tuning mask over the experts
(``train_mem_mask``). ``PEERLora`` retrieves LoRA factors that add to a usual feed-forward's two weight
matrices; ``ChunkedPEER`` runs either over chunks of the sequence, under ``torch.utils.checkpoint`` when
training on inputs that need gradients; ``PK`` is the bare product-key top-k (any number of product keys,
optional softmax of the scores) and ``PKAttention`` an attention whose keys and values are retrieved by
``PK`` from ``EmbeddingBag`` memories (causal, or with a padding mask). So each model of the tables is one
of:

- ``PEER``: a ``PEER`` at dim 16 (2 heads, 16 experts as 4 x 4 product keys, 2 experts per head, a batch of
  2 sequences of 8 tokens) in the configurations that change its code: more heads and experts per head, a
  wider product-key top-k, competing (softmax) scores, separate embeddings per head, the pre-RMSNorm, dropout
  (train and eval differ), other activations, a key width of its own, one token, and the call's
  ``train_mem_mask``;
- ``PEER_LORA``: a ``PEERLora`` in the same configurations (its expansion factor among them);
- ``CHUNKED``: ``ChunkedPEER`` around a ``PEER`` or a ``PEERLora``, over chunks that do not divide the
  sequence, on inputs with and without gradients (the checkpointed path is taken in train mode);
- ``PK``: ``PK`` with two and three product keys, softmax scores, a product-key top-k of its own, one head and
  a key width of its own;
- ``PK_ATTENTION``: ``PKAttention`` (8 heads) causal, not causal (with and without a padding mask), with the
  pre-RMSNorm, dropout and a smaller key / value top-k;
- ``TRAIN``: bench train steps (loss, ``backward()`` and an Adam step): a PEER and a PEERLora feed-forward in a
  residual classifier, the same with a sparse fine-tuning mask, a checkpointed ``ChunkedPEER``, a
  ``PKAttention`` block, and a small causal language model of ``PKAttention`` and ``PEER`` blocks.

Left out: ``PKAttention`` with three product keys and ``train_mem_mask`` with separate embeddings per head,
which index past their memories in eager mode whatever the sizes (the retrieved indices range over more slots
than the memory holds per head), and ``PKAttention`` at other than 8 heads (its ``PK`` keeps PK's default of 8
heads, and the per-head offsets then fail to broadcast). Random weights, nothing downloaded. ``names()`` needs
no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

import gt_inputs

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, BATCH, SEQ, VOCAB, CLASSES = 16, 2, 8, 32, 5
BASE: dict[str, Any] = {"heads": 2, "num_experts": 16, "num_experts_per_head": 2}
LORA_BASE: dict[str, Any] = {"heads": 2, "num_experts": 16, "num_experts_per_head": 2}
PK_BASE: dict[str, Any] = {"heads": 2, "num_keys": 4, "final_topk": 4}
# ``PKAttention`` builds its ``PK`` at PK's default of 8 heads whatever its own ``heads``, and adds one offset per
# attention head to PK's indices: the two agree only at 8 heads.
ATTN_BASE: dict[str, Any] = {"heads": 8, "num_key_values": 16, "key_value_pk_topk": 4}

# ``PEER`` name -> (constructor keywords, call options). Options: "mask" (a boolean ``train_mem_mask`` over the
# experts), "one_token" (sequences of one token), "batch1" (one sequence). The activation is named and built
# in ``build``.
PEER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "PEER": ({}, ()),
    "PEER.heads4": ({"heads": 4}, ()),
    "PEER.num_experts_per_head4": ({"num_experts_per_head": 4}, ()),
    "PEER.product_key_topk": ({"product_key_topk": 3}, ()),
    "PEER.competing_scores": ({"non_competing_scores": False}, ()),
    "PEER.competing_scores.num_experts_per_head4": ({"non_competing_scores": False, "num_experts_per_head": 4}, ()),
    "PEER.separate_embed_per_head": ({"separate_embed_per_head": True}, ()),
    "PEER.pre_rmsnorm": ({"pre_rmsnorm": True}, ()),
    "PEER.dropout": ({"dropout": 0.1}, ()),
    "PEER.activation_relu": ({"activation": "ReLU"}, ()),
    "PEER.activation_silu": ({"activation": "SiLU"}, ()),
    "PEER.dim_key": ({"dim_key": 4}, ()),
    "PEER.num_experts64": ({"num_experts": 64, "num_experts_per_head": 4}, ()),
    "PEER.train_mem_mask": ({}, ("mask",)),
    "PEER.train_mem_mask.competing_scores": ({"non_competing_scores": False}, ("mask",)),
    "PEER.one_token": ({}, ("one_token",)),
    "PEER.batch1": ({"pre_rmsnorm": True}, ("batch1",)),
    "PEER.separate_embed_per_head.competing.pre_rmsnorm.dropout": ({"separate_embed_per_head": True,
                                                                     "non_competing_scores": False,
                                                                     "pre_rmsnorm": True, "dropout": 0.1}, ()),
}
PEER_LORA: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "PEERLora": ({}, ()),
    "PEERLora.heads4": ({"heads": 4}, ()),
    "PEERLora.num_experts_per_head4": ({"num_experts_per_head": 4}, ()),
    "PEERLora.product_key_topk": ({"product_key_topk": 3}, ()),
    "PEERLora.competing_scores": ({"non_competing_scores": False}, ()),
    "PEERLora.pre_rmsnorm": ({"pre_rmsnorm": True}, ()),
    "PEERLora.dropout": ({"dropout": 0.1}, ()),
    "PEERLora.expansion_factor": ({"expansion_factor": 4.0}, ()),
    "PEERLora.dim_key": ({"dim_key": 4}, ()),
    "PEERLora.activation_silu": ({"activation": "SiLU"}, ()),
    "PEERLora.one_token": ({}, ("one_token",)),
    "PEERLora.competing.pre_rmsnorm.dropout": ({"non_competing_scores": False, "pre_rmsnorm": True,
                                                "dropout": 0.1}, ()),
}
# ``ChunkedPEER`` name -> (inner layer: "PEER" or "PEERLora", inner keywords, chunk size, input needs gradients).
CHUNKED: dict[str, tuple[str, dict[str, Any], int, bool]] = {
    "ChunkedPEER.PEER": ("PEER", {}, 3, False),
    "ChunkedPEER.PEER.requires_grad": ("PEER", {}, 3, True),
    "ChunkedPEER.PEER.one_chunk": ("PEER", {"pre_rmsnorm": True}, 128, False),
    "ChunkedPEER.PEER.competing.requires_grad": ("PEER", {"non_competing_scores": False, "dropout": 0.1}, 4, True),
    "ChunkedPEER.PEERLora": ("PEERLora", {}, 3, False),
    "ChunkedPEER.PEERLora.requires_grad": ("PEERLora", {"pre_rmsnorm": True}, 5, True),
}
# ``PK`` name -> (constructor keywords, ``softmax_scores``).
PK: dict[str, tuple[dict[str, Any], bool]] = {
    "PK": ({}, False),
    "PK.softmax_scores": ({}, True),
    "PK.product_keys3": ({"product_keys": 3, "product_key_topk": 2}, False),
    "PK.product_keys3.softmax_scores": ({"product_keys": 3, "product_key_topk": 2, "final_topk": 8}, True),
    "PK.product_key_topk": ({"product_key_topk": 3, "final_topk": 6}, False),
    "PK.one_head": ({"heads": 1}, True),
    "PK.dim_key": ({"dim_key": 4}, False),
}
# ``PKAttention`` name -> (constructor keywords, call options: "mask" for a padding mask).
PK_ATTENTION: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "PKAttention": ({}, ()),
    "PKAttention.non_causal": ({"causal": False}, ()),
    "PKAttention.non_causal.mask": ({"causal": False}, ("mask",)),
    "PKAttention.pre_rmsnorm": ({"pre_rmsnorm": True}, ()),
    "PKAttention.dropout": ({"dropout": 0.1}, ()),
    "PKAttention.key_value_pk_topk2": ({"key_value_pk_topk": 2}, ()),
    "PKAttention.non_causal.mask.pre_rmsnorm.dropout": ({"causal": False, "pre_rmsnorm": True, "dropout": 0.1},
                                                        ("mask",)),
}
TRAIN = ("train.PEER", "train.PEER.train_mem_mask", "train.PEERLora", "train.ChunkedPEER", "train.PKAttention",
         "train.language_model")


def names() -> list[str]:
    return list(PEER) + list(PEER_LORA) + list(CHUNKED) + list(PK) + list(PK_ATTENTION) + list(TRAIN)


def _keywords(keywords: dict[str, Any]) -> dict[str, Any]:
    """The constructor keywords with a named activation replaced by its ``torch.nn`` class."""
    from torch import nn

    keywords = dict(keywords)
    if isinstance(keywords.get("activation"), str):
        keywords["activation"] = getattr(nn, keywords["activation"])
    return keywords


def _layer(kind: str, keywords: dict[str, Any]) -> Any:
    from PEER_pytorch import PEER as PEERClass
    from PEER_pytorch import PEERLora

    if kind == "PEER":
        return PEERClass(DIM, **{**BASE, **_keywords(keywords)})
    return PEERLora(DIM, **{**LORA_BASE, **_keywords(keywords)})


def _tokens(options: tuple[str, ...] = (), seed: int = 1) -> Any:
    batch = 1 if "batch1" in options else BATCH
    length = 1 if "one_token" in options else SEQ
    return gt_inputs.randn(batch, length, DIM, seed=seed)


def _mem_mask(experts: int) -> Any:
    import torch

    return torch.rand(experts, generator=torch.Generator().manual_seed(2)) < 0.5


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from PEER_pytorch import PEER as PEERClass
    from PEER_pytorch import ChunkedPEER, PEERLora, PKAttention
    from torch import nn

    from gt_calls import Run

    if name == "train.language_model":
        class LanguageModel(nn.Module):
            """Token embeddings, two blocks of a causal ``PKAttention`` and a ``PEER`` feed-forward, logits."""

            def __init__(self) -> None:
                super().__init__()
                self.embed = nn.Embedding(VOCAB, DIM)
                self.layers = nn.ModuleList([
                    nn.ModuleList([PKAttention(DIM, pre_rmsnorm=True, **ATTN_BASE),
                                   PEERClass(DIM, pre_rmsnorm=True, **BASE)])
                    for _ in range(2)
                ])
                self.to_logits = nn.Linear(DIM, VOCAB)

            def forward(self, ids: Any) -> Any:
                x = self.embed(ids)
                for attn, ff in self.layers:
                    x = attn(x) + x
                    x = ff(x) + x
                return self.to_logits(x)

        model: nn.Module = LanguageModel()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

        def lm_step(owner: Any, ids: Any) -> Any:
            logits = owner(ids[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), ids[:, 1:])
            if torch.is_grad_enabled():
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            return loss.detach()

        return Run(model, lm_step, [PKAttention, PEERClass]), (gt_inputs.tokens(VOCAB, BATCH, SEQ + 1, seed=3),), {}

    masked = name.endswith("train_mem_mask")
    if name.startswith("train.PEERLora"):
        block: nn.Module = PEERLora(DIM, dropout=0.1, **LORA_BASE)
        entries: list[Any] = [PEERLora]
    elif name == "train.ChunkedPEER":
        block = ChunkedPEER(PEERClass(DIM, pre_rmsnorm=True, **BASE), seq_chunk_size=3)
        entries = [ChunkedPEER]
    elif name == "train.PKAttention":
        block = PKAttention(DIM, causal=False, dropout=0.1, **ATTN_BASE)
        entries = [PKAttention]
    else:
        block = PEERClass(DIM, dropout=0.1, pre_rmsnorm=True, **BASE)
        entries = [PEERClass]
    mem_mask = _mem_mask(BASE["num_experts"])

    class Classifier(nn.Module):
        """A residual block of the layer over the tokens, mean-pooled into a classification head."""

        def __init__(self) -> None:
            super().__init__()
            self.block = block
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, x: Any) -> Any:
            if masked:
                x = x + self.block(x, train_mem_mask=mem_mask)
            else:
                x = x + self.block(x)
            return self.head(x.mean(dim=1))

    classifier = Classifier()
    optimizer = torch.optim.Adam(classifier.parameters(), lr=1e-3)

    def step(owner: Any, x: Any, labels: Any) -> Any:
        loss = F.cross_entropy(owner(x), labels)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.detach()

    labels = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(4))
    inputs = _tokens()
    if name == "train.ChunkedPEER":
        inputs = inputs.requires_grad_()
    return Run(classifier, step, entries), (inputs, labels), {}


def build(name: str) -> Built:
    import warnings

    import torch
    from PEER_pytorch import PK as PKClass
    from PEER_pytorch import ChunkedPEER, PKAttention

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in PEER:
        keywords, options = PEER[name]
        layer = _layer("PEER", keywords)
        call: dict[str, Any] = {}
        if "mask" in options:
            call["train_mem_mask"] = _mem_mask(layer.num_experts)
        return layer, (_tokens(options),), call
    if name in PEER_LORA:
        keywords, options = PEER_LORA[name]
        return _layer("PEERLora", keywords), (_tokens(options),), {}
    if name in CHUNKED:
        kind, keywords, chunk, requires_grad = CHUNKED[name]
        x = _tokens()
        return ChunkedPEER(_layer(kind, keywords), seq_chunk_size=chunk), \
            (x.requires_grad_() if requires_grad else x,), {}
    if name in PK:
        keywords, softmax = PK[name]
        return PKClass(DIM, **{**PK_BASE, **keywords}), (_tokens(),), {"softmax_scores": softmax}
    if name in PK_ATTENTION:
        keywords, options = PK_ATTENTION[name]
        call = {"mask": gt_inputs.padding_mask(BATCH, SEQ, hidden=3)} if "mask" in options else {}
        return PKAttention(DIM, **{**ATTN_BASE, **keywords}), (_tokens(),), call
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
