"""Ground-truth bench, nGPT_pytorch (nGPT-pytorch): the normalized transformer (nGPT) and its pieces.

nGPT-pytorch 0.2.16 (lucidrains) implements nGPT (Loshchilov 2024), a transformer on the hypersphere: every
weight matrix a ``NormLinear`` whose rows (or columns) are kept at unit norm, by a ``register_parametrization``
of an ``L2Norm`` or, with ``manual_norm_weights``, by calling ``norm_weights_`` after each optimizer step;
learned ``Scale`` vectors; a ``Residual`` that moves along the sphere (``lerp`` then ``l2norm``); attention with
normalized queries and keys, rotary embeddings, a value residual from the first layer, SDPA under an
``sdpa_kernel`` choice of backends, and, when not causal, a key padding mask whose fully masked rows are zeroed
(a branch on ``mask.any``); a SwiGLU feedforward; ``l2norm`` with a norm band (``norm_eps``) and per-group
hyperspheres (``num_hyperspheres``); tied or separate logits, hiddens, and the next-token loss. The package also
ships ``nTransformer`` (the same layers over continuous tokens, no embedding), ``nGPTExperimental.nGPT`` (a loss
with orthogonality penalties and its breakdown) and ``evo`` (crossing two parents' weights into a child).

0.2.16 defines ``__eq__`` on ``Scale``, ``NormLinear``, ``Attention``, ``FeedForward`` and ``nGPT`` without
``__hash__``, which makes them unhashable and breaks ``nn.Module.named_modules`` (so ``parameters()``, optimizers,
``norm_weights_``): ``build`` gives those classes back ``nn.Module.__hash__`` (identity), nothing else. The tables
cover, at width 16, 2 heads of 8, feedforwards of expansion 2, a 32-token vocabulary, a batch of 2 and sequences
of 8:

- ``GPT``: ``nGPT`` forward: logits, the loss (with ignored padding), the loss with hiddens over two layers, tied
  embeddings, manual norm weights, two hyperspheres with a norm band, no qk norm, no value residual, a
  bidirectional model with a padding mask (and a fully masked row), per-layer scale hyperparameters;
- ``METHODS``: ``norm_weights_`` (parametrized and manual) through ``gt_calls.Method``, and a sampling loop as
  users write them around the model (Gumbel noise at a temperature, then the argmax);
- ``PARTS``: ``Attention`` (a value residual with the values returned, rotary embeddings, a padding mask with a
  fully masked row, manual weights), ``FeedForward`` (hyperspheres with a norm band), ``Residual`` (of attention
  returning a tuple), ``NormLinear``'s ``norm_weights_`` (parametrized or not), ``Scale`` and ``l2norm`` (groups,
  through ``gt_calls.Call``);
- ``TRANSFORMER``: ``nTransformer`` forward (normalized input, rotary embeddings over two layers, a padding mask)
  and its manual ``norm_weights_``;
- ``EXPERIMENTAL``: ``nGPTExperimental.nGPT`` forward (the loss, its breakdown, a padding mask);
- ``EVO``: ``evo``'s ``cross_over_linear`` (over columns), ``cross_over_attention`` and ``cross_over_ngpt`` (into
  a given child or a deep copy);
- ``TRAIN``: train steps (bench code holding the library model; ``entry_points`` its class): the loss,
  ``backward``, an Adam step and, where the weights are manual, ``norm_weights_`` (called after the step,
  or run by the hook of ``register_step_post_hook``); for ``nGPT``, a bidirectional ``nGPT`` (a token loss on its
  logits), ``nTransformer`` (a regression loss) and the experimental ``nGPT``.

Random weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

TOKENS, DIM, HEADS, DIM_HEAD, BATCH, SEQ = 32, 16, 2, 8, 2, 8
BASE: dict[str, Any] = {"dim": DIM, "depth": 1, "heads": HEADS, "dim_head": DIM_HEAD, "ff_expand_factor": 2.0}
LOSS: dict[str, Any] = {"return_loss": True}
MASK: dict[str, Any] = {"mask": "mask"}
EMPTY_ROW: dict[str, Any] = {"mask": "empty_row"}
NONCAUSAL: dict[str, Any] = {"causal": False}
BAND: dict[str, Any] = {"num_hyperspheres": 2, "norm_eps": 0.1}
SCALES: dict[str, Any] = {"depth": 2, "alpha_init": 0.2, "alpha_attn_init": (0.05, 0.1), "alpha_ff_scale": (0.2, 0.3),
                          "s_qk_init": (1.0, 2.0), "s_ff_gate_init": 0.5, "s_ff_hidden_scale": (1.0, 0.5)}

# ``nGPT`` name -> (keywords over ``BASE``, ids: "ids" (batch x 8), "loss" (batch x 9), "padded" (batch x 9, the
# ignore index -1 at the second row's end) or "single" (one row of 9), call keywords; "mask" resolves to a key
# padding mask, "empty_row" to one with a fully masked row).
GPT: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "nGPT": ({}, "ids", {}),
    "nGPT.loss": ({}, "loss", LOSS),
    "nGPT.loss.padded": ({}, "padded", LOSS),
    "nGPT.depth2.loss.hiddens": ({"depth": 2}, "loss", {**LOSS, "return_hiddens": True}),
    "nGPT.tied_embedding.loss": ({"tied_embedding": True}, "loss", LOSS),
    "nGPT.manual_norm_weights.loss": ({"manual_norm_weights": True}, "loss", LOSS),
    "nGPT.hyperspheres2.norm_eps": (BAND, "ids", {}),
    "nGPT.no_norm_qk.loss": ({"attn_norm_qk": False}, "loss", LOSS),
    "nGPT.no_value_residual.depth2": ({"add_value_residual": False, "depth": 2}, "ids", {}),
    "nGPT.noncausal.mask": (NONCAUSAL, "ids", MASK),
    "nGPT.noncausal.mask.empty_row": (NONCAUSAL, "ids", EMPTY_ROW),
    "nGPT.scales.depth2.loss": ({**SCALES, "s_logit_init": 2.0, "s_logit_scale": 0.5}, "loss", LOSS),
}
METHODS = ("nGPT.norm_weights_", "nGPT.manual_norm_weights.norm_weights_", "nGPT.sample.gumbel")
PARTS = ("Attention.value_residual.return_values", "Attention.rotary", "Attention.noncausal.mask.empty_row",
         "Attention.manual_norm_weights", "FeedForward.hyperspheres2.norm_eps", "Residual.Attention.tuple",
         "NormLinear.norm_weights_", "NormLinear.no_parametrize.norm_weights_", "Scale", "l2norm.groups2")
# ``nTransformer`` name -> (keywords over ``BASE``, call keywords; "mask" resolves to a key padding mask).
TRANSFORMER: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "nTransformer.norm_input": ({}, {"norm_input": True}),
    "nTransformer.rotary.depth2": ({"rotary_embed": True, "depth": 2}, {"norm_input": True}),
    "nTransformer.noncausal.mask": ({**NONCAUSAL, "rotary_embed": True}, {**MASK, "norm_input": True}),
    "nTransformer.norm_weights_": ({"manual_norm_weights": True}, {}),
}
# ``nGPTExperimental.nGPT`` name -> (keywords over ``BASE``, ids as in ``GPT``, call keywords).
EXPERIMENTAL: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "experimental.nGPT.loss": ({}, "loss", LOSS),
    "experimental.nGPT.depth2.loss.breakdown": ({"depth": 2}, "loss", {**LOSS, "return_breakdown": True}),
    "experimental.nGPT.noncausal.mask": (NONCAUSAL, "ids", MASK),
}
EVO = ("evo.cross_over_linear.dim1", "evo.cross_over_attention", "evo.cross_over_ngpt",
       "evo.cross_over_ngpt.new_child")
# Train step name -> (model: "gpt", "gpt.noncausal", "transformer" or "experimental", keywords over ``BASE``,
# optimizer ("adam", "sgd" or None), after the step: None, "norm_weights_" or "hook").
TRAIN: dict[str, tuple[str, dict[str, Any], str | None, str | None]] = {
    "train.nGPT.adam": ("gpt", {}, "adam", None),
    "train.nGPT.manual_norm_weights.adam": ("gpt", {"manual_norm_weights": True}, "adam", "norm_weights_"),
    "train.nGPT.adam.step_post_hook": ("gpt", {"manual_norm_weights": True}, "adam", "hook"),
    "train.nGPT.noncausal.mask.adam": ("gpt.noncausal", NONCAUSAL, "adam", None),
    "train.nTransformer.adam": ("transformer", {"rotary_embed": True}, "adam", None),
    "train.experimental.nGPT.adam": ("experimental", {}, "adam", None),
}


def names() -> list[str]:
    return [*GPT, *METHODS, *PARTS, *TRANSFORMER, *EXPERIMENTAL, *EVO, *TRAIN]


def _library() -> Any:
    """``nGPT_pytorch.nGPT``, the module (the package's attribute of that name is the class), its classes made
    hashable again."""
    import importlib
    import sys

    from torch import nn

    importlib.import_module("nGPT_pytorch")
    library = sys.modules["nGPT_pytorch.nGPT"]
    for cls in (library.Scale, library.NormLinear, library.Attention, library.FeedForward, library.nGPT):
        if cls.__hash__ is None:
            cls.__hash__ = nn.Module.__hash__  # type: ignore[method-assign]
    return library


def _ids(kind: str) -> Any:
    import torch

    generator = torch.Generator().manual_seed(1)
    if kind == "single":
        return torch.randint(0, TOKENS, (1, SEQ + 1), generator=generator)
    ids = torch.randint(0, TOKENS, (BATCH, SEQ if kind == "ids" else SEQ + 1), generator=generator)
    if kind == "padded":
        ids[1, -3:] = -1
    return ids


def _mask(kind: str = "mask") -> Any:
    """A key padding mask (batch x 8): the second row's last three keys out, or the whole second row."""
    import torch

    mask = torch.ones(BATCH, SEQ, dtype=torch.bool)
    if kind == "empty_row":
        mask[1] = False
    else:
        mask[1, -3:] = False
    return mask


def _resolve(call: dict[str, Any]) -> dict[str, Any]:
    out = dict(call)
    if "mask" in out:
        out["mask"] = _mask(out["mask"])
    return out


def _randn(*shape: int, seed: int = 2) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _gpt(**keywords: Any) -> Any:
    return _library().nGPT(**{**BASE, "num_tokens": TOKENS, **keywords})


def _wrap(model: Any, call: dict[str, Any]) -> Any:
    from gt_calls import Keywords

    return Keywords(model, **call) if call else model


def _method(name: str) -> Built:
    import torch

    from gt_calls import Method, Run

    library = _library()
    if name.endswith("norm_weights_"):
        model = _gpt(manual_norm_weights="manual_norm_weights" in name)
        return Method(model, "norm_weights_"), (), {}
    model = _gpt()
    gumbel = name.endswith("gumbel")

    def sample(owner: Any, prompt: Any) -> Any:
        """Four tokens appended one at a time: the argmax of the last logits (with Gumbel noise at 0.7)."""
        out = prompt
        for _ in range(4):
            logits = owner(out)[:, -1]
            if gumbel:
                noise = -torch.log(-torch.log(torch.rand_like(logits).clamp(1e-20, 1.0)).clamp(1e-20))
                logits = logits / 0.7 + noise
            out = torch.cat((out, logits.argmax(dim=-1, keepdim=True)), dim=-1)
        return out[:, prompt.shape[-1]:]

    return Run(model, sample, [library.nGPT]), (_ids("ids")[:, :4],), {}


def _part(name: str) -> Built:
    from rotary_embedding_torch import RotaryEmbedding

    from gt_calls import Call, Keywords

    library = _library()
    options = name.split(".")[1:]
    x = _randn(BATCH, SEQ, DIM)
    band = {"num_hyperspheres": 2, "norm_eps": 0.1} if "hyperspheres2" in options else {}
    manual = {"manual_norm_weights": True} if "manual_norm_weights" in options else {}
    if name.startswith("Attention"):
        keywords: dict[str, Any] = {"dim_head": DIM_HEAD, "heads": HEADS, **band, **manual}
        if "noncausal" in options:
            keywords["causal"] = False
        attention = library.Attention(DIM, **keywords)
        static: dict[str, Any] = {}
        if "return_values" in options:
            static["return_values"] = True
        if "value_residual" in options:
            static["value_residual"] = _randn(BATCH, HEADS, SEQ, DIM_HEAD, seed=3)
        if "rotary" in options:
            static["rotary_embed"] = RotaryEmbedding(DIM_HEAD)
        if "mask" in options:
            static["mask"] = _mask("empty_row" if "empty_row" in options else "mask")
        return _wrap(attention, static), (x,), {}
    if name.startswith("FeedForward"):
        return library.FeedForward(DIM, expand_factor=2.0, **band, **manual), (x,), {}
    if name.startswith("Residual"):
        if "Attention" in options:
            attention = library.Attention(DIM, dim_head=DIM_HEAD, heads=HEADS)
            residual = library.Residual(attention, DIM, 0.1)
            return Keywords(residual, rotary_embed=RotaryEmbedding(DIM_HEAD), return_values=True), (x,), {}
        residual_keywords: dict[str, Any] = {}
        if "groups2" in options:
            residual_keywords = {"scale": 0.5, "groups": 2, "norm_eps": 0.1}
        return library.Residual(library.FeedForward(DIM, expand_factor=2.0), DIM, 0.1, **residual_keywords), (x,), {}
    if name.startswith("NormLinear"):
        linear_keywords: dict[str, Any] = {}
        if "no_parametrize" in options:
            linear_keywords["parametrize"] = False
        if "norm_dim_out" in options:
            linear_keywords["norm_dim_in"] = False
        if "groups2" in options:
            linear_keywords.update(groups=2, norm_eps=0.1)
        linear = library.NormLinear(DIM, 12, **linear_keywords)
        if "norm_weights_" in options:
            from gt_calls import Method

            return Method(linear, "norm_weights_"), (), {}
        return linear, (x,), {}
    if name == "Scale":
        return library.Scale(DIM, 2.0, 0.5), (), {}
    function_keywords: dict[str, Any] = {}
    if "dim0" in options:
        function_keywords["dim"] = 0
    if "norm_eps" in options:
        function_keywords["norm_eps"] = 0.1
    if "groups2" in options:
        function_keywords["groups"] = 2
    return Call(library.l2norm, **function_keywords), (x,), {}


def _transformer(name: str) -> Built:
    from gt_calls import Method
    from nGPT_pytorch import nTransformer

    keywords, call = TRANSFORMER[name]
    model = nTransformer(**{**BASE, **keywords})
    if name.endswith("norm_weights_"):
        return Method(model, "norm_weights_"), (), {}
    return _wrap(model, _resolve(call)), (_randn(BATCH, SEQ, DIM),), {}


def _experimental(name: str) -> Built:
    from nGPT_pytorch.nGPTExperimental import nGPT

    keywords, ids, call = EXPERIMENTAL[name]
    model = nGPT(**{**BASE, "num_tokens": TOKENS, **keywords})
    return _wrap(model, _resolve(call)), (_ids(ids),), {}


def _evo(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Run
    from nGPT_pytorch import evo

    library = _library()
    generator = torch.Generator().manual_seed(4)
    if name.startswith("evo.cross_over_linear") or name == "evo.cross_over_scale":
        if name == "evo.cross_over_scale":
            parents = nn.ModuleList([library.Scale(12, 1.0, 0.5) for _ in range(3)])
            size, function, dim = 12, evo.cross_over_scale, 0
        else:
            parents = nn.ModuleList([library.NormLinear(DIM, 12) for _ in range(3)])
            dim = 1 if name.endswith("dim1") else 0
            size, function = (DIM if dim else 12), evo.cross_over_linear
        order = torch.randperm(size, generator=generator)
        first, second = order[: size // 2], order[size // 2:]

        def cross(owner: Any, first: Any, second: Any) -> Any:
            child = function(owner[0], owner[1], first, second, child=owner[2], dim=dim)
            return child.scale if isinstance(child, library.Scale) else child.linear.weight

        return Run(parents, cross, [function]), (first, second), {}
    if name == "evo.cross_over_attention":
        parents = nn.ModuleList([library.Attention(DIM, dim_head=DIM_HEAD, heads=HEADS) for _ in range(3)])
        entry, parts = evo.cross_over_attention, lambda child: child.to_q.linear.weight
    else:
        parents = nn.ModuleList([_gpt(depth=2) for _ in range(3)])
        entry, parts = evo.cross_over_ngpt, lambda child: child.logit_scale.scale
    new_child = name.endswith("new_child")

    def breed(owner: Any, x: Any) -> Any:
        child = entry(owner[0], owner[1]) if new_child else entry(owner[0], owner[1], child=owner[2])
        return parts(child) + x

    return Run(parents, breed, [entry]), (_randn(1, seed=5),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from gt_calls import Run
    from nGPT_pytorch import nTransformer
    from nGPT_pytorch.nGPTExperimental import nGPT as ExperimentalGPT

    library = _library()
    kind, keywords, optimizer_name, after = TRAIN[name]
    mask = None
    if kind.startswith("gpt"):
        model: Any = _gpt(**keywords)
        entries: list[Any] = [library.nGPT]
    elif kind == "transformer":
        model = nTransformer(**{**BASE, **keywords})
        entries = [nTransformer]
    else:
        model = ExperimentalGPT(**{**BASE, "num_tokens": TOKENS, **keywords})
        entries = [ExperimentalGPT]
    optimizer = None
    if optimizer_name == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    elif optimizer_name == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    if after == "hook" and optimizer is not None:
        model.register_step_post_hook(optimizer)
    if kind == "transformer":
        inputs: tuple[Any, ...] = (_randn(BATCH, SEQ, DIM), _randn(BATCH, SEQ, DIM, seed=3))
    elif kind == "gpt.noncausal":
        mask = _mask()
        inputs = (_ids("ids"),)
    else:
        inputs = (_ids("loss"),)

    def loss_of(owner: Any, *tensors: Any) -> Any:
        if kind == "transformer":
            return F.mse_loss(owner(tensors[0], norm_input=True), tensors[1])
        if kind == "gpt.noncausal":
            logits = owner(tensors[0], mask=mask)
            return F.cross_entropy(logits.transpose(1, 2), tensors[0])
        return owner(tensors[0], return_loss=True)

    def step(owner: Any, *tensors: Any) -> Any:
        """The loss, its gradients and (given an optimizer) one step, then the weights renormalized."""
        loss = loss_of(owner, *tensors)
        if torch.is_grad_enabled():
            loss.backward()
            if optimizer is not None:
                optimizer.step()
                optimizer.zero_grad()
                if after == "norm_weights_":
                    owner.norm_weights_()
        return loss.detach()

    return Run(model, step, entries), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    _library()
    if name in GPT:
        keywords, ids, call = GPT[name]
        return _wrap(_gpt(**keywords), _resolve(call)), (_ids(ids),), {}
    if name in METHODS:
        return _method(name)
    if name in PARTS:
        return _part(name)
    if name in TRANSFORMER:
        return _transformer(name)
    if name in EXPERIMENTAL:
        return _experimental(name)
    if name in EVO:
        return _evo(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
