"""Ground-truth bench, product_key_memory (product-key-memory): product-key memory layers and their transformer.

product-key-memory (lucidrains) implements the product-key memory of Lample et al.: ``PKM`` (alias
``ProductKeyMemory``) splits each query in two halves, finds the top-k of each half among its sub-keys,
combines the two top-k lists into the best of ``num_keys ** 2`` memory slots and sums their values
(an ``EmbeddingBag``, or per-head ``Embedding``s combined by a linear layer). It replaces a transformer's
feed-forward; the package ships a small causal ``Transformer`` (``product_key_memory.transformer``) with
PKM layers, its loss and a sampling loop, and helpers for fine-tuning the memory values at their own
learning rate (``fetch_pkm_value_parameters``, ``fetch_optimizer_parameters``). So each model of the
tables is one of:

- ``PKM``: a ``PKM`` at dim 16 (2 heads, 8 x 8 keys, top-4, heads of 8, a batch of 2 sequences of 16
  tokens) in the configurations that change its code: input, query, value and attention dropouts
  (train and eval differ), batch norm instead of layer norm (``use_layernorm=False``), an
  ``input_mask`` (ignored by the layer norm), ``pre_layernorm``, the differentiable top-k (coordinate
  descent from colt5-attention), ``concat_values_and_combine``, ``norm_output``,
  ``non_competitive_gates``, one head and a larger top-k, and at the call gumbel noise
  (``gumbel_noise_scale``) and a sparse fine-tuning mask (``mem_trainable_mask``, with
  ``concat_values_and_combine``);
- ``TRANSFORMER``: the package's ``Transformer`` (2 layers, the PKM at one, both or none, with PKM options)
  returning its next-token loss (what its training script optimises) or its logits, and its
  ``generate`` sampling loop (top-k filtered multinomial sampling of 4 tokens);
- ``TRAIN``: bench train steps: a PKM in a residual block with a classification head, the same with an
  L2 penalty on the memory values found by ``fetch_pkm_value_parameters`` (and on the parameter groups
  of ``fetch_optimizer_parameters``), and a sparse fine-tuning step with ``mem_trainable_mask``.

In 0.3.0 the batch norm normalises the queries' second axis, the sequence, with ``dim_head`` channels,
so it runs only when the two are equal: its models use heads of 16 for the 16 tokens. Left out, as they
fail in eager mode whatever the sizes: the batch norm with an ``input_mask`` (a (batch, length) mask
indexes the (batch x 2 x heads, length, dim) queries) and ``mem_trainable_mask`` with the summed
``EmbeddingBag`` values (the mask has one entry per head and slot, the sum one row per token). Random
weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, BATCH, SEQ, VOCAB, CLASSES = 16, 2, 16, 32, 5
BASE: dict[str, Any] = {"heads": 2, "num_keys": 8, "topk": 4, "dim_head": 8}

# ``PKM`` name -> (constructor keywords, call keywords). "input_mask" in the call keywords stands for a
# padding mask (the second sequence ends 4 tokens early), "mem_trainable_mask" for a boolean mask over the
# 64 memory slots.
PKM: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "PKM": ({}, {}),
    "PKM.input_dropout": ({"input_dropout": 0.1}, {}),
    "PKM.query_dropout": ({"query_dropout": 0.1}, {}),
    "PKM.value_dropout": ({"value_dropout": 0.1}, {}),
    "PKM.attn_dropout": ({"attn_dropout": 0.1}, {}),
    "PKM.all_dropouts": ({"input_dropout": 0.1, "query_dropout": 0.1, "value_dropout": 0.1, "attn_dropout": 0.1},
                         {}),
    "PKM.batchnorm": ({"use_layernorm": False, "dim_head": SEQ}, {}),
    "PKM.layernorm.input_mask": ({}, {"input_mask": "input_mask"}),
    "PKM.pre_layernorm": ({"pre_layernorm": True}, {}),
    "PKM.differentiable_topk": ({"differentiable_topk": True}, {}),
    "PKM.concat_values_and_combine": ({"concat_values_and_combine": True}, {}),
    "PKM.norm_output": ({"norm_output": True}, {}),
    "PKM.non_competitive_gates": ({"non_competitive_gates": True}, {}),
    "PKM.one_head": ({"heads": 1, "dim_head": 16}, {}),
    "PKM.topk8": ({"topk": 8}, {}),
    "PKM.gumbel_noise": ({}, {"gumbel_noise_scale": 0.5}),
    "PKM.concat_values_and_combine.mem_trainable_mask": ({"concat_values_and_combine": True},
                                                         {"mem_trainable_mask": "mem_trainable_mask"}),
    "PKM.differentiable_topk.concat_values_and_combine": ({"differentiable_topk": True,
                                                           "concat_values_and_combine": True,
                                                           "pre_layernorm": True}, {}),
    "PKM.batchnorm.gumbel_noise.norm_output": ({"use_layernorm": False, "dim_head": SEQ, "norm_output": True},
                                               {"gumbel_noise_scale": 1.0}),
    "PKM.pre_layernorm.norm_output.non_competitive_gates": ({"non_competitive_gates": True, "norm_output": True,
                                                             "pre_layernorm": True}, {}),
}
# ``Transformer`` name -> (``pkm_layers``, ``pkm_kwargs``, what runs: "loss", "logits" or "generate").
TRANSFORMER: dict[str, tuple[Any, dict[str, Any], str]] = {
    "Transformer.loss": (None, {}, "loss"),
    "Transformer.logits": (None, {}, "logits"),
    "Transformer.loss.pkm_layers": ((1, 2), {}, "loss"),
    "Transformer.loss.no_pkm": ((), {}, "loss"),
    "Transformer.loss.differentiable_topk": (None, {"differentiable_topk": True}, "loss"),
    "Transformer.loss.concat_values_and_combine": (None, {"concat_values_and_combine": True}, "loss"),
    "Transformer.loss.batchnorm": (None, {"use_layernorm": False, "dim_head": SEQ}, "loss"),
    "Transformer.loss.dropouts": (None, {"input_dropout": 0.1, "query_dropout": 0.1, "value_dropout": 0.1}, "loss"),
    "Transformer.generate": (None, {}, "generate"),
    "Transformer.generate.temperature": ((1, 2), {}, "generate.temperature"),
}
TRAIN = ("train_step.PKM", "train_step.PKM.fetch_pkm_value_parameters", "train_step.PKM.fetch_optimizer_parameters",
         "train_step.PKM.mem_trainable_mask")


def names() -> list[str]:
    return list(PKM) + list(TRANSFORMER) + list(TRAIN)


def _tokens(seed: int = 1) -> Any:
    import torch

    return torch.randn(BATCH, SEQ, DIM, generator=torch.Generator().manual_seed(seed))


def _mask() -> Any:
    import torch

    mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
    mask[1, -4:] = False
    return mask


def _mem_mask() -> Any:
    import torch

    return torch.rand(BASE["num_keys"] ** 2, generator=torch.Generator().manual_seed(2)) < 0.5


def _pkm(keywords: dict[str, Any]) -> Any:
    from product_key_memory import PKM as PKMClass

    return PKMClass(DIM, **{**BASE, **keywords})


def _call(call: dict[str, Any]) -> dict[str, Any]:
    call = dict(call)
    if call.get("input_mask") == "input_mask":
        call["input_mask"] = _mask()
    if call.get("mem_trainable_mask") == "mem_trainable_mask":
        call["mem_trainable_mask"] = _mem_mask()
    return call


def _transformer(name: str) -> Built:
    import contextlib
    import io

    import torch
    from product_key_memory.transformer import Transformer

    from gt_calls import Method

    layers, pkm_kwargs, run = TRANSFORMER[name]
    keywords: dict[str, Any] = {} if layers is None else {"pkm_layers": layers}
    with contextlib.redirect_stdout(io.StringIO()):  # the constructor prints its PKM configuration
        model = Transformer(dim=DIM, num_tokens=VOCAB, depth=2, seq_len=SEQ, dim_head=8, heads=2,
                            pkm_kwargs={**BASE, **pkm_kwargs}, **keywords)
    gen = torch.Generator().manual_seed(3)
    if run == "loss":
        return model, (torch.randint(0, VOCAB, (BATCH, SEQ + 1), generator=gen),), {}
    if run == "logits":
        return model, (torch.randint(0, VOCAB, (BATCH, SEQ), generator=gen),), {"return_loss": False}
    prompt = torch.randint(0, VOCAB, (BATCH, 4), generator=gen)
    static = {"temperature": 0.8, "filter_thres": 0.8} if run == "generate.temperature" else {}
    return Method(model, "generate", **static), (prompt, 4), {}


def _train_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from product_key_memory import PKM as PKMClass
    from product_key_memory import fetch_optimizer_parameters, fetch_pkm_value_parameters
    from torch import nn

    class Classifier(nn.Module):
        """A residual PKM block over the tokens, mean-pooled into a classification head."""

        def __init__(self) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(DIM)
            # per-head values (``concat_values_and_combine``) where the memories are masked: the mask is
            # applied per head and value
            extra = {"concat_values_and_combine": True} if name.endswith("mem_trainable_mask") else {}
            self.pkm = _pkm({"input_dropout": 0.1, "query_dropout": 0.1, "value_dropout": 0.1, **extra})
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, x: torch.Tensor, **kwargs: Any) -> torch.Tensor:
            x = x + self.pkm(self.norm(x), **kwargs)
            return self.head(x.mean(dim=1))

    model = Classifier()
    mem_mask = _mem_mask()

    class _TrainStep(nn.Module):
        """The classification loss, with an L2 penalty on the memory values where named, or with a
        sparse fine-tuning mask over the memories."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            if name.endswith("mem_trainable_mask"):
                return F.cross_entropy(self.model(x, mem_trainable_mask=mem_mask), labels)
            loss = F.cross_entropy(self.model(x), labels)
            if name.endswith("fetch_pkm_value_parameters"):
                pkm_params, _ = fetch_pkm_value_parameters(self.model)
                loss = loss + 1e-4 * sum(p.pow(2).sum() for p in pkm_params)
            elif name.endswith("fetch_optimizer_parameters"):
                groups = fetch_optimizer_parameters(self.model, pkm_learning_rate=1e-2)
                loss = loss + sum(group.get("lr", 1e-3) * sum(p.pow(2).sum() for p in group["params"])
                                  for group in groups)
            return loss

        def entry_points(self) -> list[Any]:
            entered: list[Any] = [PKMClass]
            if name.endswith("fetch_pkm_value_parameters"):
                entered.append(fetch_pkm_value_parameters)
            if name.endswith("fetch_optimizer_parameters"):
                entered.append(fetch_optimizer_parameters)
            return entered

    labels = torch.randint(0, CLASSES, (BATCH,), generator=torch.Generator().manual_seed(4))
    return _TrainStep(), (_tokens(), labels), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in PKM:
        keywords, call = PKM[name]
        return _pkm(keywords), (_tokens(),), _call(call)
    if name in TRANSFORMER:
        return _transformer(name)
    return _train_step(name)
