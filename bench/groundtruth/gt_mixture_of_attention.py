"""Ground-truth bench, mixture_of_attention (mixture-of-attention): attention whose queries and keys / values are
routed to experts.

mixture-of-attention 0.0.25 (lucidrains) exports ``MixtureOfAttention``: two CoLT5 coordinate-descent routers (one for
queries, one for keys / values, one routing token per expert) pick the top tokens per expert, a grouped ``Attention``
(grouped 1 x 1 convolutions, one group per expert, a null key / value, optional RMS prenorm and rotary embeddings,
``Attend``'s einsum or ``scaled_dot_product_attention`` path) attends among them, and the outputs are scattered back
(summed or averaged, a learned null token where nothing was routed, an optional local attention branch beside it).
``MixtureOfAutoregressiveAttention`` does it causally: causal local attention within windows, then each window's
queries routed against the keys / values of all the windows before it. ``transformer.py`` stacks the autoregressive
one into a language model (``Transformer``, with rotary embeddings and an RMS-normed feedforward) and
``autoregressive_wrapper.py`` gives it a next-token loss and a sampling loop. The tables cover, at width 16, 2 heads of
8, 2 experts, a batch of 2 and sequences of 16 (windows of 4):

- ``MOA``: ``MixtureOfAttention`` forward: the default (flash attention and prenorm), the einsum attention with a key
  padding mask, cross attention over a context of its own width and mask, a local attention branch with a mask, rotary
  embeddings, averaging, cosine-similarity routing, nothing routed (routed counts as long as the sequence) beside the
  local branch;
- ``AUTOREGRESSIVE``: ``MixtureOfAutoregressiveAttention`` forward: rotary embeddings, a length that is no multiple
  of the window, a sequence within one window (the early return);
- ``ATTENTION``: the exported grouped ``Attention`` and its ``Attend``: one expert and two (four-dimensional inputs,
  a mask per expert), einsum or flash, a padding mask, causal flash, cross attention, the four scales with rotary
  embeddings per expert; ``Attend`` with a mask (einsum) and causal (flash);
- ``LM``: ``AutoregressiveWrapper``'s next-token loss over the language model ``Transformer`` (rotary embeddings,
  cosine routing), and the parts ``RotaryEmbedding`` and the grouped ``RMSNorm``;
- ``FUNCTIONS``: ``apply_rotary_pos_emb``, ``pad_to_multiple`` and the wrapper's ``top_k`` through
  ``gt_calls.Call``;
- ``TRAIN``: a training step (a loss, ``backward()`` when gradients are on, an Adam step) through
  ``MixtureOfAttention`` with its local branch and a mask.

Left out: routing in blocks (``route_block_size``) and the autoregressive layer with nothing routed, which fail
as installed (an index past the block, a concatenation of mismatched batches), the non-flash causal ``Attend``
(it calls ``get_mask`` with one argument too few), and, for time (a Dynamo trace of the routers' loops takes a minute
or more here), ``generate`` and the language model's training step. The routers run without Triton (not
installed; ``use_triton=False`` everywhere) and with five coordinate-descent iterations instead of twenty. Random
weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, DIM_HEAD, HEADS, EXPERTS, BATCH, SEQ, WINDOW, TOKENS = 16, 8, 2, 2, 2, 16, 4, 32
ROUTER: dict[str, Any] = {"use_triton": False, "n_iters": 5}
MOA_BASE: dict[str, Any] = {"num_routed_queries": 6, "num_routed_key_values": 6, "num_experts": EXPERTS,
                            "dim_head": DIM_HEAD, "heads": HEADS, **ROUTER}
NO_FLASH: dict[str, Any] = {"flash_attn": False}
LOCAL: dict[str, Any] = {"local_attn": True, "local_attn_window_size": WINDOW}
UNROUTED: dict[str, Any] = {"num_routed_queries": SEQ, "num_routed_key_values": SEQ}

# ``MixtureOfAttention`` name -> (keywords over ``MOA_BASE``, inputs of its forward: "mask", "context",
# "context_mask", "rotary", "counts" (routed counts given per call)).
MOA: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "MixtureOfAttention": ({}, ()),
    "MixtureOfAttention.no_flash.mask": (NO_FLASH, ("mask",)),
    "MixtureOfAttention.cross_attn.context_mask": ({"dim_context": 12}, ("context", "context_mask")),
    "MixtureOfAttention.local_attn.mask": (LOCAL, ("mask",)),
    "MixtureOfAttention.rotary": ({}, ("rotary",)),
    "MixtureOfAttention.average_routed": ({"average_routed": True}, ()),
    "MixtureOfAttention.cosine_sim_routing": ({"cosine_sim_routing": True}, ()),
    "MixtureOfAttention.unrouted.local_attn": ({**UNROUTED, **LOCAL}, ()),
}
AR_BASE: dict[str, Any] = {"num_routed_queries": 2, "num_routed_key_values": 4, "local_attn_window_size": WINDOW,
                           "num_experts": EXPERTS, "dim_head": DIM_HEAD, "heads": HEADS, **ROUTER}
# ``MixtureOfAutoregressiveAttention`` name -> (keywords over ``AR_BASE``, sequence length, inputs: "rotary",
# "counts").
AUTOREGRESSIVE: dict[str, tuple[dict[str, Any], int, tuple[str, ...]]] = {
    "MixtureOfAutoregressiveAttention.rotary": ({}, SEQ, ("rotary",)),
    "MixtureOfAutoregressiveAttention.seq14": ({}, 14, ()),
    "MixtureOfAutoregressiveAttention.one_window": ({}, WINDOW, ()),
}
# ``Attention`` name -> (keywords, experts (1: three-dimensional input), inputs: "context", "mask" (per batch row),
# "mask3" (per expert), "scales", "rotary" (shared), "rotary_experts" (per expert)).
ATTENTION: dict[str, tuple[dict[str, Any], int, tuple[str, ...]]] = {
    "Attention": ({}, 1, ()),
    "Attention.causal.flash": ({"causal": True, "flash": True}, 1, ()),
    "Attention.flash.mask": ({"flash": True}, 1, ("mask",)),
    "Attention.context": ({"dim_context": 12}, 1, ("context",)),
    "Attention.groups2.mask3": ({"groups": 2}, 2, ("mask3",)),
    "Attention.groups2.rotary_experts.scales": ({"groups": 2}, 2, ("rotary_experts", "scales")),
}
ATTEND = ("Attend.mask", "Attend.flash.causal")
LM_BASE: dict[str, Any] = {"dim": DIM, "num_tokens": TOKENS, "depth": 1, "seq_len": SEQ,
                           "local_attn_window_size": WINDOW, "num_routed_queries": 2, "num_routed_key_values": 4,
                           "num_experts": EXPERTS, "dim_head": DIM_HEAD, "heads": HEADS, "ff_mult": 2,
                           "use_triton": False}
# Language model name -> (keywords over ``LM_BASE``, what runs: "logits", "loss" (the wrapper's forward) or
# "generate" (the wrapper's ``generate``, with its fixed keywords)).
LM: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "AutoregressiveWrapper.loss": ({}, "loss", {}),
}
PARTS = ("RotaryEmbedding", "RMSNorm.groups2")
# Function name -> (module under ``mixture_of_attention``, function, inputs (names of ``_tensors``), fixed keywords).
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    "apply_rotary_pos_emb": ("rotary_emb", "apply_rotary_pos_emb", ("freqs", "heads"), {}),
    "pad_to_multiple": ("mixture_of_attention", "pad_to_multiple", ("seq14",), {"multiple": WINDOW, "dim": -2}),
    "top_k": ("autoregressive_wrapper", "top_k", ("logits",), {"thres": 0.8}),
}
TRAIN = ("train.MixtureOfAttention.local_attn.mask",)


def names() -> list[str]:
    return [*MOA, *AUTOREGRESSIVE, *ATTENTION, *ATTEND, *LM, *PARTS, *FUNCTIONS, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(length: int = SEQ, seed: int = 2) -> Any:
    """A key padding mask (batch x ``length``): the second row ends in five padded positions."""
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, -5:] = False
    return mask


def _rotary(length: int = SEQ) -> Any:
    from mixture_of_attention.rotary_emb import RotaryEmbedding

    return RotaryEmbedding(DIM_HEAD)(length)


def _ids(length: int = SEQ, seed: int = 3) -> Any:
    import torch

    return torch.randint(0, TOKENS, (BATCH, length), generator=torch.Generator().manual_seed(seed))


def _moa(name: str) -> Built:
    from mixture_of_attention import MixtureOfAttention

    keywords, inputs = MOA[name]
    model = MixtureOfAttention(DIM, **{**MOA_BASE, **keywords})
    x = _randn(BATCH, SEQ, DIM)
    call: dict[str, Any] = {}
    if "mask" in inputs:
        call["mask"] = _mask()
    if "context" in inputs:
        call["context"] = _randn(BATCH, 12, 12, seed=4)
    if "context_mask" in inputs:
        call["context_mask"] = _mask(12)
    if "rotary" in inputs:
        call["rotary_emb"] = _rotary()
    if "counts" in inputs:
        call.update(num_routed_queries=4, num_routed_key_values=8)
    return model, (x,), call


def _autoregressive(name: str) -> Built:
    from mixture_of_attention import MixtureOfAutoregressiveAttention

    keywords, length, inputs = AUTOREGRESSIVE[name]
    model = MixtureOfAutoregressiveAttention(DIM, **{**AR_BASE, **keywords})
    call: dict[str, Any] = {}
    if "rotary" in inputs:
        call["rotary_emb"] = _rotary(length)
    if "counts" in inputs:
        call.update(num_routed_queries=3, num_routed_key_values=6)
    return model, (_randn(BATCH, length, DIM),), call


def _attention(name: str) -> Built:
    import torch

    from gt_calls import Keywords
    from mixture_of_attention import Attention

    keywords, experts, inputs = ATTENTION[name]
    model = Attention(DIM, dim_head=DIM_HEAD, heads=HEADS, **keywords)
    shape = (BATCH, SEQ, DIM) if experts == 1 else (BATCH, experts, SEQ, DIM)
    call: dict[str, Any] = {}
    if "context" in inputs:
        width = keywords.get("dim_context", DIM)
        call["context"] = _randn(*shape[:-2], 10, width, seed=4)
    if "mask" in inputs:
        call["mask"] = _mask(10 if "context" in inputs else SEQ)
    if "mask3" in inputs:
        mask = torch.ones(BATCH, experts, SEQ, dtype=torch.bool)
        mask[1, 0, -3:] = False
        call["mask"] = mask
    if "scales" in inputs:
        call["queries_scale"] = _randn(*shape[:-2], 1, SEQ, 1, seed=5).sigmoid() if experts > 1 else 0.5
        call["keys_scale"] = 2.0
        call["values_scale"] = _randn(BATCH, experts, 1, SEQ, 1, seed=6).sigmoid()
        call["output_scale"] = _randn(*shape[:-1], 1, seed=7).sigmoid()
    if "rotary" in inputs:
        freqs = _rotary()
        call["rotary_emb"] = (freqs, freqs)
    if "rotary_experts" in inputs:
        freqs = _rotary()
        index = torch.stack([torch.randperm(SEQ, generator=torch.Generator().manual_seed(s)) for s in range(4)])
        per_expert = freqs[index.view(BATCH, experts, SEQ)]
        call["rotary_emb"] = (per_expert, per_expert)
    if not call:
        return model, (_randn(*shape),), {}
    return Keywords(model, **call), (_randn(*shape),), {}


def _attend(name: str) -> Built:
    from mixture_of_attention.attend import Attend

    model = Attend(dropout=0.1 if name.endswith("dropout") else 0.0, causal=name.endswith("causal"),
                   flash=".flash" in name)
    q = _randn(BATCH * EXPERTS, HEADS, SEQ, DIM_HEAD)
    k = _randn(BATCH * EXPERTS, HEADS, SEQ + 1, DIM_HEAD, seed=2)
    v = _randn(BATCH * EXPERTS, HEADS, SEQ + 1, DIM_HEAD, seed=3)
    if name.endswith("mask"):
        import torch

        mask = torch.ones(BATCH * EXPERTS, SEQ + 1, dtype=torch.bool)
        mask[1, -4:] = False
        return model, (q, k, v), {"mask": mask}
    if name.endswith("causal"):
        k, v = k[..., 1:, :], v[..., 1:, :]
    return model, (q, k, v), {}


def _lm(name: str) -> Built:
    from gt_calls import Method
    from mixture_of_attention.autoregressive_wrapper import AutoregressiveWrapper
    from mixture_of_attention.transformer import Transformer

    keywords, kind, static = LM[name]
    net = Transformer(**{**LM_BASE, **keywords})
    if kind == "logits":
        return net, (_ids(),), {}
    wrapper = AutoregressiveWrapper(net)
    if kind == "loss":
        return wrapper, (_ids(SEQ + 1),), {}
    return Method(wrapper, "generate", **static), (_ids(6),), {}


def _part(name: str) -> Built:
    from mixture_of_attention import mixture_of_attention as moa
    from mixture_of_attention import transformer
    from mixture_of_attention.rotary_emb import RotaryEmbedding

    if name == "RotaryEmbedding":
        return RotaryEmbedding(DIM_HEAD), (SEQ,), {}
    if name == "RMSNorm":
        return moa.RMSNorm(DIM), (_randn(BATCH, 1, DIM, SEQ),), {}
    if name == "RMSNorm.groups2":
        return moa.RMSNorm(DIM, groups=2), (_randn(BATCH, 2, DIM, SEQ),), {}
    if name == "transformer.RMSNorm":
        return transformer.RMSNorm(DIM), (_randn(BATCH, SEQ, DIM),), {}
    return transformer.FeedForward(DIM, mult=2), (_randn(BATCH, SEQ, DIM),), {}


def _tensors() -> dict[str, Any]:
    return {
        "freqs": _rotary(),
        "heads": _randn(BATCH, HEADS, SEQ, DIM_HEAD),
        "seq14": _randn(BATCH, 14, DIM),
        "seq16": _randn(BATCH, SEQ, DIM),
        "logits": _randn(BATCH, TOKENS),
    }


def _function(name: str) -> Built:
    import importlib

    from gt_calls import Call

    module, function, inputs, static = FUNCTIONS[name]
    tensors = _tensors()
    fn = getattr(importlib.import_module(f"mixture_of_attention.{module}"), function)
    return Call(fn, **static), tuple(tensors[i] for i in inputs), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from mixture_of_attention import MixtureOfAttention, MixtureOfAutoregressiveAttention
    from mixture_of_attention.autoregressive_wrapper import AutoregressiveWrapper
    from mixture_of_attention.transformer import Transformer

    inputs: tuple[Any, ...]
    if name == "train.AutoregressiveWrapper":
        model: Any = AutoregressiveWrapper(Transformer(**LM_BASE))
        entries: list[Any] = [AutoregressiveWrapper, Transformer]
        inputs = (_ids(SEQ + 1),)

        def loss_of(owner: Any, ids: Any) -> Any:
            return owner(ids)
    elif name.startswith("train.MixtureOfAutoregressiveAttention"):
        model = MixtureOfAutoregressiveAttention(DIM, **AR_BASE)
        entries = [MixtureOfAutoregressiveAttention]
        inputs = (_randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, DIM, seed=9))
        freqs = _rotary()

        def loss_of(owner: Any, x: Any, target: Any) -> Any:
            return F.mse_loss(owner(x, rotary_emb=freqs), target)
    else:
        keywords = {**MOA_BASE, **(LOCAL if "local_attn" in name else {}), **(NO_FLASH if "no_flash" in name else {})}
        model = MixtureOfAttention(DIM, **keywords)
        entries = [MixtureOfAttention]
        inputs = (_randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, DIM, seed=9))
        mask = _mask() if name.endswith("mask") else None

        def loss_of(owner: Any, x: Any, target: Any) -> Any:
            return F.mse_loss(owner(x, mask=mask), target)

    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(owner: Any, *tensors: Any) -> Any:
        """The loss, its gradients and an Adam step (when gradients are on)."""
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
    if name in MOA:
        return _moa(name)
    if name in AUTOREGRESSIVE:
        return _autoregressive(name)
    if name in ATTENTION:
        return _attention(name)
    if name in ATTEND:
        return _attend(name)
    if name in LM:
        return _lm(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
