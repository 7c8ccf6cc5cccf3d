"""Ground-truth bench, flash_pytorch: lucidrains' FLASH (gated attention units, "Transformer Quality in Linear Time").

FLASH-pytorch 0.1.9 is one module and a wrapper: ``GAU`` (a gated attention unit: squared-ReLU or Laplacian
attention, a T5 relative position bias, masks, causal masks), ``FLASH`` (grouped quadratic attention inside groups
and linear attention across them, causal by cumulative sums, token shift, partial rotary embeddings from
``rotary_embedding_torch``, padding to a multiple of the group size), ``FLASHTransformer`` (embeddings, scaled
sinusoidal positions, a stack of ``FLASH`` layers, logits) and ``AutoregressiveWrapper`` (a next-token loss and
top-k sampling by ``generate``). The tables cover, at width 16 (query-key width 8), a batch of 2, 8 tokens
(7 where the padding to the group size is exercised), groups of 4:

- ``MODELS``: each class's forward under its options (causal, Laplacian attention function, dropout, expansion
  factors, residual or not, norm classes, masks, an external relative position bias, token shift, rotary
  embeddings, reduced or per-group non-causal linear attention, groups larger than the sequence, padding), and
  the building blocks (``ScaleNorm``, ``ScaledSinuEmbedding``, ``T5RelativePositionBias``, ``OffsetScale``,
  ``ReLUSquared``, ``LaplacianAttnFn``);
- ``FUNCTIONS``: ``AutoregressiveWrapper.generate`` (greedy-ish and sampled top-k, an end token, a mask passed
  through) and the ``top_k`` filter;
- ``TRAIN``: training steps (loss, backward, optimizer step) through a gated attention unit, a FLASH layer and
  language models through ``AutoregressiveWrapper``.

Left out: nothing the package exports; ``generate`` with an end token that every row reaches is left out because
the library's own branch then names an undefined variable (a bug, not a compile question), so the end token given
is one the model never samples. Random weights and inputs from fixed generators, nothing downloaded; ``names()``
needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, ODD, DIM, QK, TOKENS, GROUP = 2, 8, 7, 16, 8, 20, 4

# Model name -> (class, keywords (``norm`` and ``rotary`` resolved by ``_keyword``), input kind, call keywords).
# Input kinds: "x" (BATCH, SEQ, DIM), "x7" (BATCH, ODD, DIM), "tokens" (BATCH, SEQ), "tokens7", "square" (BATCH, SEQ,
# SEQ). Call keywords: "mask" / "mask7" (a boolean padding mask), "bias" (a (SEQ, SEQ) bias).
GAU = {"dim": DIM, "query_key_dim": QK}
FL = {"dim": DIM, "query_key_dim": QK, "group_size": GROUP}
TR = {"dim": DIM, "num_tokens": TOKENS, "depth": 2, "query_key_dim": QK, "group_size": GROUP}
MODELS: dict[str, tuple[str, dict[str, Any], str, dict[str, str]]] = {
    "GAU": ("GAU", GAU, "x", {}),
    "GAU.causal": ("GAU", {**GAU, "causal": True}, "x", {}),
    "GAU.laplace_attn_fn": ("GAU", {**GAU, "laplace_attn_fn": True}, "x", {}),
    "GAU.causal.laplace_attn_fn": ("GAU", {**GAU, "causal": True, "laplace_attn_fn": True}, "x", {}),
    "GAU.no_residual": ("GAU", {**GAU, "add_residual": False}, "x", {}),
    "GAU.expansion1": ("GAU", {**GAU, "expansion_factor": 1.0}, "x", {}),
    "GAU.dropout": ("GAU", {**GAU, "dropout": 0.1}, "x", {}),
    "GAU.rel_pos_bias_flag": ("GAU", {**GAU, "rel_pos_bias": True}, "x", {}),
    "GAU.mask": ("GAU", GAU, "x", {"mask": "mask"}),
    "GAU.causal.mask": ("GAU", {**GAU, "causal": True}, "x", {"mask": "mask"}),
    "GAU.external_bias": ("GAU", GAU, "x", {"rel_pos_bias": "bias"}),
    "GAU.ScaleNorm": ("GAU", {**GAU, "norm_klass": "ScaleNorm"}, "x", {}),
    "GAU.ScaleNorm.causal": ("GAU", {**GAU, "norm_klass": "ScaleNorm", "causal": True}, "x", {}),
    "GAU.odd_length": ("GAU", GAU, "x7", {}),
    "FLASH": ("FLASH", FL, "x", {}),
    "FLASH.causal": ("FLASH", {**FL, "causal": True}, "x", {}),
    "FLASH.padding": ("FLASH", FL, "x7", {}),
    "FLASH.causal.padding": ("FLASH", {**FL, "causal": True}, "x7", {}),
    "FLASH.mask": ("FLASH", FL, "x", {"mask": "mask"}),
    "FLASH.mask.padding": ("FLASH", FL, "x7", {"mask": "mask7"}),
    "FLASH.causal.mask": ("FLASH", {**FL, "causal": True}, "x", {"mask": "mask"}),
    "FLASH.shift_tokens": ("FLASH", {**FL, "shift_tokens": True}, "x", {}),
    "FLASH.shift_tokens.causal": ("FLASH", {**FL, "shift_tokens": True, "causal": True}, "x", {}),
    "FLASH.laplace_attn_fn": ("FLASH", {**FL, "laplace_attn_fn": True}, "x", {}),
    "FLASH.per_group_linear": ("FLASH", {**FL, "reduce_group_non_causal_attn": False}, "x", {}),
    "FLASH.rotary": ("FLASH", {**FL, "rotary_pos_emb": "rotary"}, "x", {}),
    "FLASH.rotary.causal.padding": ("FLASH", {**FL, "rotary_pos_emb": "rotary", "causal": True}, "x7", {}),
    "FLASH.group_over_length": ("FLASH", {**FL, "group_size": 16}, "x", {}),
    "FLASH.ScaleNorm.dropout": ("FLASH", {**FL, "norm_klass": "ScaleNorm", "dropout": 0.1}, "x", {}),
    "FLASH.expansion1": ("FLASH", {**FL, "expansion_factor": 1.0}, "x", {}),
    "FLASHTransformer": ("FLASHTransformer", TR, "tokens", {}),
    "FLASHTransformer.causal": ("FLASHTransformer", {**TR, "causal": True}, "tokens", {}),
    "FLASHTransformer.layernorm": ("FLASHTransformer", {**TR, "norm_type": "layernorm"}, "tokens", {}),
    "FLASHTransformer.no_shift": ("FLASHTransformer", {**TR, "shift_tokens": False}, "tokens", {}),
    "FLASHTransformer.laplace_attn_fn": ("FLASHTransformer", {**TR, "laplace_attn_fn": True}, "tokens", {}),
    "FLASHTransformer.per_group_linear": ("FLASHTransformer", {**TR, "reduce_group_non_causal_attn": False},
                                          "tokens", {}),
    "FLASHTransformer.padding": ("FLASHTransformer", TR, "tokens7", {}),
    "FLASHTransformer.causal.padding": ("FLASHTransformer", {**TR, "causal": True}, "tokens7", {}),
    "FLASHTransformer.mask": ("FLASHTransformer", TR, "tokens", {"mask": "mask"}),
    "FLASHTransformer.depth3.expansion1": ("FLASHTransformer", {**TR, "depth": 3, "expansion_factor": 1.0},
                                           "tokens", {}),
    "FLASHTransformer.attn_dropout": ("FLASHTransformer", {**TR, "attn_dropout": 0.1}, "tokens", {}),
    "FLASHTransformer.wide_qk": ("FLASHTransformer", {**TR, "query_key_dim": 64}, "tokens", {}),
    "AutoregressiveWrapper": ("AutoregressiveWrapper", {**TR, "causal": True}, "tokens", {}),
    "AutoregressiveWrapper.noncausal.layernorm": ("AutoregressiveWrapper", {**TR, "norm_type": "layernorm"},
                                                  "tokens", {}),
    "AutoregressiveWrapper.mask": ("AutoregressiveWrapper", {**TR, "causal": True}, "tokens", {"mask": "mask7"}),
    "ScaleNorm": ("ScaleNorm", {"dim": DIM}, "x", {}),
    "ScaledSinuEmbedding": ("ScaledSinuEmbedding", {"dim": DIM}, "x", {}),
    "T5RelativePositionBias": ("T5RelativePositionBias", {"scale": 2.0}, "square", {}),
    "T5RelativePositionBias.causal": ("T5RelativePositionBias", {"scale": 2.0, "causal": True}, "square", {}),
    "T5RelativePositionBias.buckets8.distance16": ("T5RelativePositionBias",
                                                   {"scale": 2.0, "num_buckets": 8, "max_distance": 16},
                                                   "square", {}),
    "OffsetScale.heads2": ("OffsetScale", {"dim": DIM, "heads": 2}, "x", {}),
    "OffsetScale.heads4": ("OffsetScale", {"dim": DIM, "heads": 4}, "x", {}),
    "ReLUSquared": ("ReLUSquared", {}, "x", {}),
    "LaplacianAttnFn": ("LaplacianAttnFn", {}, "x", {}),
}
FUNCTIONS = ("generate", "generate.sampled", "generate.end_token", "generate.noncausal.mask", "generate.padding",
             "top_k", "top_k.thres05")
TRAIN = ("train.GAU.adam", "train.GAU.causal.mask.adam", "train.FLASH.causal.adamw", "train.FLASH.rotary.sgd",
         "train.FLASHTransformer.classifier.adam", "train.AutoregressiveWrapper.adam",
         "train.AutoregressiveWrapper.layernorm.padding.sgd")


def names() -> list[str]:
    return [*MODELS, *FUNCTIONS, *TRAIN]


def _generator(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _input(kind: str, seed: int) -> Any:
    import torch

    g = _generator(seed)
    if kind == "x":
        return torch.randn(BATCH, SEQ, DIM, generator=g)
    if kind == "x7":
        return torch.randn(BATCH, ODD, DIM, generator=g)
    if kind == "tokens":
        return torch.randint(0, TOKENS, (BATCH, SEQ), generator=g)
    if kind == "tokens7":
        return torch.randint(0, TOKENS, (BATCH, ODD), generator=g)
    if kind == "square":
        return torch.randn(BATCH, SEQ, SEQ, generator=g)
    if kind in ("mask", "mask7"):
        length = SEQ if kind == "mask" else ODD
        mask = torch.ones(BATCH, length, dtype=torch.bool)
        mask[1, length - 3:] = False
        return mask
    return torch.randn(SEQ, SEQ, generator=g) * 0.1  # "bias"


def _keyword(key: str, value: Any) -> Any:
    from flash_pytorch.flash_pytorch import ScaleNorm

    if key == "norm_klass" and value == "ScaleNorm":
        return ScaleNorm
    if key == "rotary_pos_emb" and value == "rotary":
        from rotary_embedding_torch import RotaryEmbedding

        return RotaryEmbedding(dim=QK // 2)
    return value


def _construct(cls: str, keywords: dict[str, Any]) -> Any:
    from flash_pytorch import flash_pytorch as fp
    from flash_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    keywords = {k: _keyword(k, v) for k, v in keywords.items()}
    if cls == "AutoregressiveWrapper":
        return AutoregressiveWrapper(fp.FLASHTransformer(**keywords))
    if cls == "T5RelativePositionBias":
        return fp.T5RelativePositionBias(keywords.pop("scale"), **keywords)
    return getattr(fp, cls)(**keywords)


def _model(name: str) -> Built:
    cls, keywords, kind, call = MODELS[name]
    model = _construct(cls, keywords)
    x = _input(kind, 1)
    if cls == "AutoregressiveWrapper" and "mask" in call:
        x = _input("tokens", 1)  # the wrapper drops the last token: the mask covers SEQ - 1 positions
    kwargs = {k: _input(v, 2 + i) for i, (k, v) in enumerate(call.items())}
    if cls == "T5RelativePositionBias":
        return model, (x,), {}
    return model, (x,), kwargs


def _function(name: str) -> Built:
    import torch

    from flash_pytorch.autoregressive_wrapper import AutoregressiveWrapper, top_k
    from gt_calls import Call, Method

    if name.startswith("top_k"):
        logits = torch.randn(BATCH, TOKENS, generator=_generator(3))
        return Call(top_k, thres=0.5 if name.endswith("05") else 0.9), (logits,), {}
    causal = "noncausal" not in name
    wrapper = AutoregressiveWrapper(_construct("FLASHTransformer", {**TR, "causal": causal}))
    length = 2 if name.endswith("padding") else 3
    start = torch.randint(0, TOKENS, (BATCH, length), generator=_generator(4))
    static: dict[str, Any] = {"seq_len": 3}
    if name == "generate.sampled":
        static.update(temperature=0.8, filter_thres=0.5)
    elif name == "generate.end_token":
        static.update(eos_token=TOKENS + 5)  # never sampled: see the docstring
    elif name == "generate.noncausal.mask":
        static.update(seq_len=1)
        return Method(wrapper, "generate", **static), (start,), {"mask": torch.ones(BATCH, length, dtype=torch.bool)}
    return Method(wrapper, "generate", **static), (start,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from flash_pytorch import flash_pytorch as fp
    from flash_pytorch.autoregressive_wrapper import AutoregressiveWrapper
    from gt_calls import Run

    kwargs: dict[str, Any] = {}
    x = _input("x", 1)
    target: Any = torch.randn(BATCH, SEQ, DIM, generator=_generator(5))
    loss_of: Any = F.mse_loss
    if name == "train.GAU.adam":
        model: Any = fp.GAU(**GAU)
    elif name == "train.GAU.causal.mask.adam":
        model = fp.GAU(**GAU, causal=True)
        kwargs = {"mask": _input("mask", 2)}
    elif name == "train.FLASH.causal.adamw":
        model = fp.FLASH(**FL, causal=True, shift_tokens=True)
    elif name == "train.FLASH.rotary.sgd":
        model = fp.FLASH(**{**FL, "rotary_pos_emb": _keyword("rotary_pos_emb", "rotary")})
    elif name == "train.FLASHTransformer.classifier.adam":
        model = fp.FLASHTransformer(**TR)
        x = _input("tokens", 1)
        target = torch.randint(0, TOKENS, (BATCH,), generator=_generator(6))
        loss_of = lambda logits, t: F.cross_entropy(logits.mean(dim=1), t)  # noqa: E731
    else:
        layernorm = "layernorm" in name
        model = AutoregressiveWrapper(fp.FLASHTransformer(**TR, causal=True,
                                                          norm_type="layernorm" if layernorm else "scalenorm"))
        x = _input("tokens7" if layernorm else "tokens", 1)
        loss_of = None
    params = list(model.parameters())
    if name.endswith("sgd"):
        optimizer: Any = torch.optim.SGD(params, lr=0.1, momentum=0.9)
    elif name.endswith("adamw"):
        optimizer = torch.optim.AdamW(params, lr=1e-3)
    else:
        optimizer = torch.optim.Adam(params, lr=1e-3)

    def step(owner: Any, t: torch.Tensor) -> torch.Tensor:
        """The model's loss, its gradients and an optimizer step (the loss alone under ``no_grad``)."""
        out = owner(t, **kwargs)
        loss = out if loss_of is None else loss_of(out, target)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, [type(model)]), (x,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODELS:
        return _model(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
