"""Ground-truth bench, colt5_attention (CoLT5-attention): conditionally routed attention and feed-forwards.

CoLT5-attention (lucidrains) implements the conditional computation of CoLT5: every token goes through
a light branch (a small feed-forward, local windowed attention) and a router picks the few tokens that
also go through a heavy branch. The router is ``CoordinateDescentRouter`` (a differentiable top-k by
coordinate descent with epsilon scaling, ``coor_descent``; ``topk`` wraps it as a top-k with
straight-through gates). Its modules are ``ConditionalRoutedFeedForward``, ``ConditionalRoutedAttention``,
``ConditionalRoutedImageAttention``, ``ConditionalRoutedAutoregressiveAttention``,
``ConditionalRoutedCrossAttention``, ``ConditionalRoutedTransformerBlock`` and ``ConditionalRoutedViT``.
The triton kernel (``use_triton``, ``fused``) needs CUDA and is left out: every router runs the
triton-free ``coor_descent``. Also left out, as they fail in eager mode on 0.11.2:
``ConditionalRoutedCrossAttention`` (its forward reads an undefined name, whatever the inputs) and the
router's ``route_block_size`` over more than one block (it gathers from the blocked tokens with indices
offset into the whole sequence). So each model of the tables is one of:

- ``MODULES``: a module at dim 16 (two heads of 8, light windows of 8 tokens, a batch of 2 sequences of
  16 tokens, or 8 x 8 feature maps) in the configurations that change its code: fewer heavy tokens than
  the sequence (routing) or as many (no routing), a padding mask, heavy-token counts given at the call,
  no straight-through, router options (cosine-similarity routing, other coordinate-descent
  iterations and epsilons), several routed key / value sets, scores multiplied into keys and
  queries, no null query token, the flash (``scaled_dot_product_attention``) path, rotary
  embeddings, no light attention; channel-first images; the autoregressive attention's padding to its
  heavy window and its unrouted queries;
- ``ROUTERS``: ``CoordinateDescentRouter`` alone (with a mask, several and learned routing tokens,
  ``keep_one_route_dim``, ``random_route``, no routing) and its ``route_back``;
- ``FUNCTIONS``: ``coor_descent`` (a number or a tensor of ``k``, a mask) and ``topk`` (differentiable,
  masked, ``fused=True`` on CPU tensors, which falls back to ``coor_descent``, and
  ``non_differentiable``) through ``gt_calls.Call``;
- ``TRAIN``: bench train steps: a token classifier of a ``ConditionalRoutedTransformerBlock`` (with a
  padding mask), a causal language model of ``ConditionalRoutedAutoregressiveAttention`` and
  ``ConditionalRoutedFeedForward`` layers, and the ``ConditionalRoutedViT`` on a 16 x 16 image, each
  with a cross-entropy loss.

Options that only change a number are left out, and the routers of the attention modules, blocks and
ViT run 5 coordinate-descent iterations (20 by default, a loop Dynamo unrolls), to keep the library's
run short. Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker
only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, BATCH, SEQ, HEADS, DIM_HEAD, WINDOW, VOCAB, CLASSES = 16, 2, 16, 2, 8, 8, 32, 5
# The attention modules' routers run 5 coordinate-descent iterations (the default 20 only makes the
# unrolled loop longer).
ATTN: dict[str, Any] = {"light_dim_head": DIM_HEAD, "light_heads": HEADS, "light_window_size": WINDOW,
                        "heavy_dim_head": DIM_HEAD, "heavy_heads": HEADS, "router_kwargs": {"n_iters": 5}}
Q_KV: dict[str, Any] = {"num_heavy_tokens_q": 4, "num_heavy_tokens_kv": 4}
AR: dict[str, Any] = {**ATTN, "num_heavy_tokens_q": 2, "num_heavy_tokens_kv": 4}

# Model name -> (class of ``colt5_attention``, constructor keywords, call keywords, input kind). Input
# kinds: "seq" (2, 16, 16), "seq14" (2, 14, 16), "image" (2, 8, 8, 16), "image_cf" (2, 16, 8, 8). "mask" in
# the call keywords stands for a padding mask (the second sequence ends 4 tokens early).
MODULES: dict[str, tuple[str, dict[str, Any], dict[str, Any], str]] = {
    # feed-forward
    "ConditionalRoutedFeedForward": ("ConditionalRoutedFeedForward", {"num_heavy_tokens": 4}, {}, "seq"),
    "ConditionalRoutedFeedForward.mask": ("ConditionalRoutedFeedForward", {"num_heavy_tokens": 4}, {"mask": "mask"},
                                          "seq"),
    "ConditionalRoutedFeedForward.no_routing.mask": ("ConditionalRoutedFeedForward", {"num_heavy_tokens": 32},
                                                     {"mask": "mask"}, "seq"),
    "ConditionalRoutedFeedForward.call_num_heavy_tokens": ("ConditionalRoutedFeedForward", {"num_heavy_tokens": 4},
                                                           {"num_heavy_tokens": 8}, "seq"),
    "ConditionalRoutedFeedForward.no_straight_through": ("ConditionalRoutedFeedForward",
                                                         {"num_heavy_tokens": 4, "router_straight_through": False},
                                                         {"mask": "mask"}, "seq"),
    "ConditionalRoutedFeedForward.cosine_sim_routing": ("ConditionalRoutedFeedForward",
                                                        {"num_heavy_tokens": 4,
                                                         "router_kwargs": {"cosine_sim_routing": True}}, {}, "seq"),
    "ConditionalRoutedFeedForward.coor_descent_options": ("ConditionalRoutedFeedForward",
                                                          {"num_heavy_tokens": 4,
                                                           "router_kwargs": {"n_iters": 5, "eps": 0.1,
                                                                             "eps_init": None, "eps_decay": 1.0,
                                                                             "fetch_k_ratio": 1.0}}, {}, "seq"),
    # attention
    "ConditionalRoutedAttention": ("ConditionalRoutedAttention", {**ATTN, **Q_KV}, {}, "seq"),
    "ConditionalRoutedAttention.mask": ("ConditionalRoutedAttention", {**ATTN, **Q_KV}, {"mask": "mask"}, "seq"),
    "ConditionalRoutedAttention.no_routing": ("ConditionalRoutedAttention",
                                              {**ATTN, "num_heavy_tokens_q": SEQ, "num_heavy_tokens_kv": SEQ}, {},
                                              "seq"),
    "ConditionalRoutedAttention.num_routed_kv": ("ConditionalRoutedAttention",
                                                 {**ATTN, **Q_KV, "num_routed_kv": 2, "multiply_keys_by_score": True,
                                                  "multiply_queries_by_score": True}, {"mask": "mask"}, "seq"),
    "ConditionalRoutedAttention.flash": ("ConditionalRoutedAttention", {**ATTN, **Q_KV, "use_flash_attn": True},
                                         {"mask": "mask"}, "seq"),
    "ConditionalRoutedAttention.no_light_attn": ("ConditionalRoutedAttention",
                                                 {**ATTN, **Q_KV, "has_light_attn": False, "use_null_q_tokens": False},
                                                 {}, "seq"),
    # image attention
    "ConditionalRoutedImageAttention": ("ConditionalRoutedImageAttention", {**ATTN, **Q_KV, "light_window_size": 4},
                                        {}, "image"),
    "ConditionalRoutedImageAttention.channel_first": ("ConditionalRoutedImageAttention",
                                                      {**ATTN, **Q_KV, "light_window_size": 4, "channel_first": True},
                                                      {}, "image_cf"),
    # autoregressive attention
    "ConditionalRoutedAutoregressiveAttention": ("ConditionalRoutedAutoregressiveAttention", AR, {}, "seq"),
    "ConditionalRoutedAutoregressiveAttention.padded": ("ConditionalRoutedAutoregressiveAttention", AR, {}, "seq14"),
    "ConditionalRoutedAutoregressiveAttention.no_q_routing": ("ConditionalRoutedAutoregressiveAttention",
                                                              {**AR, "num_heavy_tokens_q": WINDOW}, {}, "seq"),
    "ConditionalRoutedAutoregressiveAttention.rotary_emb": ("ConditionalRoutedAutoregressiveAttention",
                                                            {**AR, "rotary_emb": True}, {}, "seq"),
    # block
    "ConditionalRoutedTransformerBlock.mask": ("ConditionalRoutedTransformerBlock",
                                               {**ATTN, "num_heavy_attn_tokens_q": 4, "num_heavy_attn_tokens_kv": 4,
                                                "num_heavy_ff_tokens": 4, "num_routed_kv": 2}, {"mask": "mask"}, "seq"),
}
# Router name -> (``CoordinateDescentRouter`` keywords, call keywords, input kind).
ROUTERS: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "CoordinateDescentRouter": ({}, {"num_tokens": 4}, "seq"),
    "CoordinateDescentRouter.mask": ({}, {"num_tokens": 4, "mask": "mask"}, "seq"),
    "CoordinateDescentRouter.num_routing_tokens": ({"num_routing_tokens": 3}, {"num_tokens": 4, "mask": "mask"},
                                                   "seq"),
    "CoordinateDescentRouter.learned_routing_tokens": ({"learned_routing_tokens": True},
                                                       {"num_tokens": 4, "routing_tokens": "routing_tokens"}, "seq"),
    "CoordinateDescentRouter.learned_routing_tokens.3d": ({"learned_routing_tokens": True, "num_routing_tokens": 2},
                                                          {"num_tokens": 4, "routing_tokens": "routing_tokens_3d"},
                                                          "seq"),
    "CoordinateDescentRouter.keep_one_route_dim": ({}, {"num_tokens": 4, "keep_one_route_dim": True}, "seq"),
    "CoordinateDescentRouter.random_route": ({}, {"num_tokens": 4, "mask": "mask", "random_route": True}, "seq"),
    "CoordinateDescentRouter.no_routing": ({}, {"num_tokens": SEQ, "mask": "mask"}, "seq"),
    "CoordinateDescentRouter.no_routing.keep_one_route_dim": ({}, {"num_tokens": 32, "mask": "mask",
                                                                   "keep_one_route_dim": True}, "seq"),
    "CoordinateDescentRouter.route_back": ({}, {"num_tokens": 4}, "seq"),
}
# Function name -> (function of ``colt5_attention``, fixed keywords, "mask" when masked, "tensor_k" when ``k``
# is a tensor).
FUNCTIONS: dict[str, tuple[str, dict[str, Any], str]] = {
    "coor_descent": ("coor_descent", {"n_iters": 20, "k": 4}, ""),
    "coor_descent.mask": ("coor_descent", {"n_iters": 20, "k": 4}, "mask"),
    "coor_descent.tensor_k": ("coor_descent", {"n_iters": 10}, "tensor_k"),
    "topk": ("topk", {"k": 4}, ""),
    "topk.mask": ("topk", {"k": 4}, "mask"),
    "topk.fused_on_cpu": ("topk", {"k": 4, "fused": True}, ""),
    "topk.non_differentiable": ("topk", {"k": 4, "non_differentiable": True}, ""),
}
TRAIN = ("train_step.ConditionalRoutedTransformerBlock", "train_step.ConditionalRoutedAutoregressiveAttention",
         "train_step.ConditionalRoutedViT")


def names() -> list[str]:
    return list(MODULES) + list(ROUTERS) + list(FUNCTIONS) + list(TRAIN)


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _mask(length: int, hidden: int = 4) -> Any:
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, -hidden:] = False
    return mask


def _inputs(kind: str, call: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    call = dict(call)
    shape = {"seq": (BATCH, SEQ, DIM), "seq14": (BATCH, 14, DIM), "image": (BATCH, 8, 8, DIM),
             "image_cf": (BATCH, DIM, 8, 8)}[kind]
    args = (_randn(*shape),)
    if call.get("mask") == "mask":
        call["mask"] = _mask(SEQ)
    if call.get("routing_tokens") == "routing_tokens":
        call["routing_tokens"] = _randn(BATCH, DIM, seed=3)
    elif call.get("routing_tokens") == "routing_tokens_3d":
        call["routing_tokens"] = _randn(BATCH, 2, DIM, seed=3)
    return args, call


def _router(name: str) -> Built:
    import torch
    from colt5_attention import CoordinateDescentRouter
    from gt_calls import Keywords
    from torch import nn

    keywords, call = ROUTERS[name][:2]
    router = CoordinateDescentRouter(DIM, **keywords)
    args, call = _inputs(ROUTERS[name][2], call)
    if name != "CoordinateDescentRouter.route_back":
        return Keywords(router, **call), args, {}

    class _RouteBack(nn.Module):
        """Route tokens, transform the routed ones, scatter them back (what the routed modules do)."""

        def __init__(self) -> None:
            super().__init__()
            self.router = router
            self.heavy = nn.Linear(DIM, DIM)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            indices, scores, routed, _ = self.router(x, **call)
            out = self.heavy(routed) * scores[..., None]
            return self.router.route_back(torch.zeros_like(x), out, indices)

        def entry_points(self) -> list[Any]:
            return [CoordinateDescentRouter, CoordinateDescentRouter.route_back]

    return _RouteBack(), args, {}


def _function(name: str) -> Built:
    import colt5_attention
    import torch

    from gt_calls import Call

    function, static, kind = FUNCTIONS[name]
    scores = _randn(BATCH, 3, SEQ)
    static = dict(static)
    if kind == "mask":
        static["mask"] = _mask(SEQ)[:, None, :].expand(BATCH, 3, SEQ)
    if kind == "tensor_k":
        static["k"] = torch.tensor([[2.0, 3.0, 4.0], [4.0, 5.0, 6.0]])
    return Call(getattr(colt5_attention, function), **static), (scores,), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from colt5_attention import (ConditionalRoutedAutoregressiveAttention, ConditionalRoutedFeedForward,
                                 ConditionalRoutedTransformerBlock, ConditionalRoutedViT)
    from torch import nn

    gen = torch.Generator().manual_seed(4)
    if "ViT" in name:
        vit = ConditionalRoutedViT(image_size=16, patch_size=4, num_classes=CLASSES, dim=DIM, depth=1,
                                   attn_num_heavy_tokens_q=2, attn_num_heavy_tokens_kv=2, attn_heavy_dim_head=DIM_HEAD,
                                   attn_heavy_heads=HEADS, attn_light_dim_head=DIM_HEAD, attn_light_heads=HEADS,
                                   attn_light_window_size=2, ff_num_heavy_tokens=4, ff_heavy_mult=2, ff_light_mult=1,
                                   router_kwargs={"n_iters": 5})
        img = torch.randn(BATCH, 3, 16, 16, generator=gen)
        model: nn.Module = vit
        inputs: tuple[Any, ...] = (img,)
        labels = torch.randint(0, CLASSES, (BATCH,), generator=gen)
    elif "TransformerBlock" in name:
        class TokenClassifier(nn.Module):
            """Embeddings, a routed transformer block with a padding mask, a per-token head."""

            def __init__(self) -> None:
                super().__init__()
                self.embed = nn.Embedding(VOCAB, DIM)
                self.blocks = nn.ModuleList([ConditionalRoutedTransformerBlock(
                    DIM, **ATTN, num_heavy_attn_tokens_q=4, num_heavy_attn_tokens_kv=4, num_heavy_ff_tokens=4)
                    for _ in range(1)])
                self.head = nn.Linear(DIM, CLASSES)

            def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
                x = self.embed(ids)
                for block in self.blocks:
                    x = block(x, mask=mask)
                return self.head(x)

        model = TokenClassifier()
        inputs = (torch.randint(0, VOCAB, (BATCH, SEQ), generator=gen), _mask(SEQ))
        labels = torch.randint(0, CLASSES, (BATCH, SEQ), generator=gen)
    else:
        class CausalLM(nn.Module):
            """Embeddings, a routed autoregressive attention and a routed feed-forward, a vocabulary head."""

            def __init__(self) -> None:
                super().__init__()
                self.embed = nn.Embedding(VOCAB, DIM)
                self.attn = ConditionalRoutedAutoregressiveAttention(DIM, **AR)
                self.ff = ConditionalRoutedFeedForward(DIM, num_heavy_tokens=4)
                self.head = nn.Linear(DIM, VOCAB)

            def forward(self, ids: torch.Tensor) -> torch.Tensor:
                x = self.embed(ids)
                x = self.attn(x) + x
                x = self.ff(x) + x
                return self.head(x)

        model = CausalLM()
        ids = torch.randint(0, VOCAB, (BATCH, SEQ + 1), generator=gen)
        inputs = (ids[:, :-1],)
        labels = ids[:, 1:]

    class _TrainStep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *args: Any) -> torch.Tensor:
            *inputs, labels = args
            logits = self.model(*inputs)
            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))

        def entry_points(self) -> list[Any]:
            return [type(self.model)] if isinstance(self.model, ConditionalRoutedViT) else [
                type(m) for m in self.model.modules() if type(m).__module__.startswith("colt5_attention")
                and type(m).__name__.startswith("ConditionalRouted")][:2]

    return _TrainStep(), (*inputs, labels), {}


def build(name: str) -> Built:
    import warnings

    import colt5_attention
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MODULES:
        cls, keywords, call, kind = MODULES[name]
        module = getattr(colt5_attention, cls)(DIM, **keywords)
        args, call = _inputs(kind, call)
        return module, args, call
    if name in ROUTERS:
        return _router(name)
    if name in FUNCTIONS:
        return _function(name)
    return _train(name)
