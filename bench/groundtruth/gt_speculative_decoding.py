"""Ground-truth bench, speculative_decoding (speculative-decoding): draft-model, early-exit and prophet decoding.

speculative-decoding 0.2.0 (lucidrains) explores speculative sampling (Leviathan et al. 2023) on a small
causal ``Decoder``: token embedding, rotary positions, ``CausalAttention`` blocks (RMS norm, fused qkv, a
key / value cache stacked per layer, an optional key padding mask) and GELU ``FeedForward`` blocks, logits or
the next-token loss, a ``Cache`` (the stacked keys / values and the last hiddens) on request, and an
early-exit head at a chosen layer (extra blocks above it, its hiddens detached or not) whose logits draft
tokens from the same network. The decoding loops (``base_decoding``, ``speculative_decoding`` with a large
and a small network, ``speculative_decoding_with_same_model`` through the early exit) sample with ``top_k``
and ``gumbel_sample``, verify the drafts with the large pass, accept a prefix per row
(``find_first_true_index``), resample from the adjusted distribution and realign the rows and caches to the
right. ``speculative_decoding_with_prophet.py`` has its own ``Decoder`` (start tokens prepended from another
model's hiddens, the loss returned with the cache), ``ModelWithProphetWrapper`` (the main model's loss plus a
prophet trained on windows started from the main model's embeddings, projected where the widths differ) and
``speculative_decoding_with_prophet_model``. The tables cover, at width 16, 2 heads of 8, a 32-token
vocabulary, a batch of 2 (1 where named), sequences of 10 and, decoding, 7 tokens from prompts of 4:

- ``DECODER``: ``Decoder`` forward: logits, the loss (with an ignored label), a returned cache, a prefix cache
  passed in, a start position per row, and the early exit: both losses (detached hiddens, an extra block
  above the exit), the early-exit logits only (with a cache), and the pass that starts
  from the early-exit cache (at the first or the second layer);
- ``PROPHET``: the prophet module's ``Decoder`` forward (logits, loss, caches, two- and three-dimensional
  start tokens, start positions) and ``ModelWithProphetWrapper`` forward (the same or a projected width, two
  leading start tokens, detached embeddings);
- ``DECODING``: ``base_decoding`` (both modules' copies), ``speculative_decoding``,
  ``speculative_decoding_with_same_model`` and ``speculative_decoding_with_prophet_model`` through
  ``gt_calls.Run``: batches of 2 and 1, gamma, temperature, filter threshold and lenience, a prompt already
  as long as the output, a prompt shorter than the prophet's start tokens;
- ``PARTS``: ``CausalAttention`` (a cache, a context mask, rotary positions; the prophet module's copy),
  ``FeedForward``, ``RotaryEmbedding``;
- ``FUNCTIONS``: the helpers through ``gt_calls.Call``: ``top_k``, ``gumbel_sample``, ``safe_div``,
  ``find_first_true_index``, ``apply_rotary_pos_emb`` of both modules;
- ``STEPS``: train steps (``backward`` and an Adam step) of ``Decoder`` (plain, both early-exit losses, the
  hiddens detached, an extra block), of the prophet ``Decoder`` with start tokens and of
  ``ModelWithProphetWrapper``.

``Decoder``'s constructor cannot build the early exit as installed (it names ``RMSNorm``, never imported, and
passes an undefined ``rotary_emb`` to its extra blocks), so the builder builds the decoder without it and
sets what that branch would: ``early_exit_layer``, the early-exit logits head and the extra blocks.
``speculative_decoding_with_same_model`` loses the early-exit embeddings after its first round (its draft
cache is rebuilt without them), so it is run for one round: one token past the prompt. Random weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TOKENS, DIM, HEADS, DIM_HEAD, BATCH, SEQ, PROMPT, OUT = 32, 16, 2, 8, 2, 10, 4, 7

# ``Decoder`` forward name -> (decoder: "depth", "exit" (the early-exit layer), "extra" (blocks above it),
# "detach"; inputs: "ignore" (the last label ignored), "cache" (a prefix cache passed in), "early_cache" (an
# early-exit cache of a prefix), "start" (a start position per row); fixed call keywords).
DECODER: dict[str, tuple[dict[str, Any], tuple[str, ...], dict[str, Any]]] = {
    "Decoder": ({}, (), {}),
    "Decoder.loss": ({}, (), {"return_loss": True}),
    "Decoder.loss.ignore_index": ({}, ("ignore",), {"return_loss": True}),
    "Decoder.return_cache.seq_start_pos": ({}, ("start",), {"return_cache": True}),
    "Decoder.cache": ({}, ("cache",), {"return_cache": True}),
    "Decoder.cache.seq_start_pos": ({}, ("cache", "start"), {"return_cache": True}),
    "Decoder.early_exit": ({"exit": 1}, (), {}),
    "Decoder.early_exit.loss": ({"exit": 1}, (), {"return_loss": True}),
    "Decoder.early_exit.detach.loss": ({"exit": 1, "detach": True}, (), {"return_loss": True}),
    "Decoder.early_exit.extra_block.loss": ({"exit": 1, "extra": 1}, (), {"return_loss": True}),
    "Decoder.early_exit.only": ({"exit": 1}, (), {"return_early_exit_only": True}),
    "Decoder.early_exit.only.return_cache": ({"exit": 1}, ("start",),
                                             {"return_early_exit_only": True, "return_cache": True}),
    "Decoder.early_exit.only.cache": ({"exit": 1}, ("cache",), {"return_early_exit_only": True,
                                                                "return_cache": True}),
    "Decoder.early_exit.extra_block.only.cache": ({"exit": 1, "extra": 1}, ("cache",),
                                                  {"return_early_exit_only": True, "return_cache": True}),
    "Decoder.early_exit.from_hiddens": ({"exit": 1}, ("early_cache", "start"),
                                        {"start_from_early_exit_hiddens": True, "return_cache": True}),
    "Decoder.early_exit.layer2.from_hiddens": ({"depth": 3, "exit": 2}, ("early_cache",),
                                               {"start_from_early_exit_hiddens": True}),
}
# The prophet module's ``Decoder`` name -> (inputs: "start2d" / "start3d" (start tokens of one / two
# positions), "cache" (a prefix cache, with the same start tokens), "start" (a start position per row);
# fixed call keywords).
PROPHET: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "prophet.Decoder": ((), {}),
    "prophet.Decoder.loss": ((), {"return_loss": True}),
    "prophet.Decoder.return_cache.seq_start_pos": (("start",), {"return_cache": True}),
    "prophet.Decoder.cache": (("cache",), {"return_cache": True}),
    "prophet.Decoder.start_tokens_2d": (("start2d",), {}),
    "prophet.Decoder.start_tokens_3d.loss": (("start3d",), {"return_loss": True}),
    "prophet.Decoder.start_tokens.cache": (("start2d", "cache"), {"return_cache": True}),
}
# ``ModelWithProphetWrapper`` name -> (prophet width, wrapper keywords).
WRAPPER: dict[str, tuple[int, dict[str, Any]]] = {
    "prophet.ModelWithProphetWrapper": (DIM, {"prophet_train_length": 4}),
    "prophet.ModelWithProphetWrapper.projected": (8, {"prophet_train_length": 4}),
    "prophet.ModelWithProphetWrapper.start_tokens2": (DIM, {"prophet_train_length": 4, "num_leading_start_tokens": 2}),
    "prophet.ModelWithProphetWrapper.detach": (DIM, {"prophet_train_length": 5,
                                                     "detach_model_embed_for_prophet": True}),
}
# Decoding name -> (function: "base", "prophet.base", "spec", "same" or "prophet"; batch; prompt length;
# output length; keywords of the function, "exit" / "extra" / "layer2" (the early-exit decoder),
# "width" (the prophet's), "start_tokens" (the wrapper's ``num_leading_start_tokens``)).
DECODING: dict[str, tuple[str, int, int, int, dict[str, Any]]] = {
    "base_decoding": ("base", BATCH, PROMPT, OUT, {}),
    "base_decoding.batch1.sampling": ("base", 1, PROMPT, OUT, {"temperature": 0.5, "filter_thres": 0.5}),
    "base_decoding.prompt_complete": ("base", BATCH, PROMPT, PROMPT, {}),
    "prophet.base_decoding": ("prophet.base", BATCH, PROMPT, OUT, {}),
    "speculative_decoding": ("spec", BATCH, PROMPT, OUT, {"gamma": 2}),
    "speculative_decoding.batch1": ("spec", 1, PROMPT, OUT, {"gamma": 2}),
    "speculative_decoding.gamma1.sampling": ("spec", BATCH, PROMPT, OUT, {"gamma": 1, "temperature": 0.7,
                                                                        "filter_thres": 0.5, "lenience": 0.5}),
    "speculative_decoding_with_same_model": ("same", BATCH, PROMPT, PROMPT + 1, {"gamma": 2}),
    "speculative_decoding_with_same_model.batch1": ("same", 1, PROMPT, PROMPT + 1, {"gamma": 2}),
    "speculative_decoding_with_same_model.layer2.extra_block.sampling": (
        "same", BATCH, PROMPT, PROMPT + 1, {"gamma": 2, "layer2": True, "extra": 1, "temperature": 0.7,
                                            "lenience": 0.5}),
    "speculative_decoding_with_prophet_model": ("prophet", BATCH, PROMPT, OUT, {"gamma": 2}),
    "speculative_decoding_with_prophet_model.batch1": ("prophet", 1, PROMPT, OUT, {"gamma": 2}),
    "speculative_decoding_with_prophet_model.projected.sampling": (
        "prophet", BATCH, PROMPT, OUT, {"gamma": 2, "width": 8, "temperature": 0.7, "filter_thres": 0.5,
                                        "lenience": 0.5}),
    "speculative_decoding_with_prophet_model.start_tokens3.short_prompt": ("prophet", BATCH, 1, 5,
                                                                          {"gamma": 2, "start_tokens": 3}),
    "speculative_decoding_with_prophet_model.prompt_complete": ("prophet", BATCH, PROMPT, PROMPT, {"gamma": 2}),
}
PARTS = ("CausalAttention", "CausalAttention.cache.rotary", "CausalAttention.context_mask.rotary",
         "prophet.CausalAttention.cache.context_mask.rotary", "FeedForward", "RotaryEmbedding")
# Function name -> (module: "sd" or "prophet", function, inputs (names of ``_tensors``), fixed keywords).
FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    "top_k": ("sd", "top_k", ("logits",), {}),
    "top_k.3d.thres": ("sd", "top_k", ("logits3",), {"thres": 0.5}),
    "gumbel_sample": ("sd", "gumbel_sample", ("logits",), {}),
    "gumbel_sample.temperature0": ("sd", "gumbel_sample", ("logits3",), {"temperature": 0.0}),
    "safe_div": ("sd", "safe_div", ("logits",), {"den": 0.7}),
    "find_first_true_index": ("sd", "find_first_true_index", ("flags",), {}),
    "apply_rotary_pos_emb": ("sd", "apply_rotary_pos_emb", ("freqs", "heads"), {}),
    "prophet.top_k": ("prophet", "top_k", ("logits3",), {}),
    "prophet.gumbel_sample": ("prophet", "gumbel_sample", ("logits3",), {"temperature": 0.5}),
    "prophet.safe_div": ("prophet", "safe_div", ("logits",), {"den": 0.0}),
    "prophet.find_first_true_index": ("prophet", "find_first_true_index", ("flags",), {}),
    "prophet.apply_rotary_pos_emb": ("prophet", "apply_rotary_pos_emb", ("freqs", "heads"), {}),
}
# Train step name -> (what, decoder keywords or the wrapper's prophet width and keywords).
STEPS: dict[str, tuple[str, dict[str, Any]]] = {
    "train_step.Decoder": ("decoder", {}),
    "train_step.Decoder.early_exit": ("decoder", {"exit": 1}),
    "train_step.Decoder.early_exit.detach": ("decoder", {"exit": 1, "detach": True}),
    "train_step.Decoder.early_exit.extra_block": ("decoder", {"exit": 1, "extra": 1}),
    "train_step.prophet.Decoder.start_tokens": ("prophet", {}),
    "train_step.prophet.ModelWithProphetWrapper": ("wrapper", {"width": DIM}),
    "train_step.prophet.ModelWithProphetWrapper.projected.detach": (
        "wrapper", {"width": 8, "detach_model_embed_for_prophet": True}),
}


def names() -> list[str]:
    return [*DECODER, *PROPHET, *WRAPPER, *DECODING, *PARTS, *FUNCTIONS, *STEPS]


def _modules() -> tuple[Any, Any]:
    """The two modules (``speculative_decoding.speculative_decoding`` is shadowed by the function of that name
    in the package's namespace, so it is taken from ``importlib``)."""
    import importlib

    return (importlib.import_module("speculative_decoding.speculative_decoding"),
            importlib.import_module("speculative_decoding.speculative_decoding_with_prophet"))


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _decoder(depth: int = 2, exit: int | None = None, extra: int = 0, detach: bool = False) -> Any:
    """A ``Decoder``; with ``exit``, the early exit its constructor's branch would set (see the docstring)."""
    from torch import nn

    sd, _ = _modules()
    model = sd.Decoder(num_tokens=TOKENS, dim=DIM, depth=depth, heads=HEADS, dim_head=DIM_HEAD, ff_mult=2,
                       detach_early_exit_hiddens=detach)
    if exit is not None:
        model.early_exit_layer = exit
        for _ in range(extra):
            model.early_exit_transformer_blocks.append(nn.ModuleList([
                sd.CausalAttention(DIM, dim_head=DIM_HEAD, heads=HEADS), sd.FeedForward(DIM, mult=2)]))
        model.to_early_exit_logits = nn.Sequential(nn.RMSNorm(DIM), nn.Linear(DIM, TOKENS, bias=False))
    return model


def _prophet_decoder(dim: int = DIM, depth: int = 2) -> Any:
    _, sp = _modules()
    return sp.Decoder(num_tokens=TOKENS, dim=dim, depth=depth, heads=HEADS, dim_head=DIM_HEAD, ff_mult=2)


def _wrapper(width: int = DIM, **keywords: Any) -> Any:
    _, sp = _modules()
    return sp.ModelWithProphetWrapper(_prophet_decoder(), _prophet_decoder(width, 1), **keywords)


def _ids(batch: int = BATCH, length: int = SEQ, seed: int = 1) -> Any:
    import torch

    return torch.randint(0, TOKENS, (batch, length), generator=_gen(seed))


def _start_pos(batch: int = BATCH) -> Any:
    """Left padding per row, as the decoding loops pass it (``out.shape[-1] - seq_lens``)."""
    import torch

    return torch.tensor([0, 1][:batch])


def _decoder_forward(name: str) -> Built:
    import torch

    config, inputs, call = DECODER[name]
    model = _decoder(**config)
    ids = _ids()
    kwargs = dict(call)
    if "ignore" in inputs:
        ids[:, -1] = -1  # only a label: the ignored index
    if "start" in inputs:
        kwargs["seq_start_pos"] = _start_pos()
    if "cache" in inputs or "early_cache" in inputs:
        early = "early_cache" in inputs or bool(call.get("return_early_exit_only"))
        prefix = ids[:, :-2] if "early_cache" in inputs else ids[:, :-1]
        with torch.no_grad():
            _, cache = model(prefix, return_cache=True, return_early_exit_only=early)
        kwargs["early_exit_cache" if "early_cache" in inputs else "cache"] = cache
    return model, (ids,), kwargs


def _prophet_forward(name: str) -> Built:
    import torch

    inputs, call = PROPHET[name]
    model = _prophet_decoder()
    ids = _ids()
    kwargs = dict(call)
    if "start2d" in inputs:
        kwargs["start_tokens"] = torch.randn(BATCH, DIM, generator=_gen(2))
    if "start3d" in inputs:
        kwargs["start_tokens"] = torch.randn(BATCH, 2, DIM, generator=_gen(2))
    if "start" in inputs:
        kwargs["seq_start_pos"] = _start_pos()
    if "cache" in inputs:
        with torch.no_grad():
            _, kwargs["cache"] = model(ids[:, :-1], start_tokens=kwargs.get("start_tokens"), return_cache=True)
    return model, (ids,), kwargs


def _wrapper_forward(name: str) -> Built:
    width, keywords = WRAPPER[name]
    return _wrapper(width, **keywords), (_ids(),), {}


def _decoding(name: str) -> Built:
    from torch import nn

    from gt_calls import Run

    sd, sp = _modules()
    kind, batch, prompt, out, keywords = DECODING[name]
    keywords = dict(keywords)
    exit_layer = keywords.pop("exit", None)
    extra, layer2 = keywords.pop("extra", 0), keywords.pop("layer2", False)
    width, start_tokens = keywords.pop("width", DIM), keywords.pop("start_tokens", 1)
    ids = _ids(batch, prompt, seed=3)
    if kind == "base":
        net = _decoder(exit=exit_layer)
        return Run(net, lambda owner, p: sd.base_decoding(owner, p, out, **keywords), [sd.base_decoding]), (ids,), {}
    if kind == "prophet.base":
        return Run(_prophet_decoder(), lambda owner, p: sp.base_decoding(owner, p, out, **keywords),
                   [sp.base_decoding]), (ids,), {}
    if kind == "spec":
        nets = nn.ModuleList([_decoder(depth=3), _decoder(depth=1)])
        return Run(nets, lambda owner, p: sd.speculative_decoding(owner[0], owner[1], p, out, **keywords),
                   [sd.speculative_decoding]), (ids,), {}
    if kind == "same":
        net = _decoder(depth=3, exit=2 if layer2 else 1, extra=extra)
        return Run(net, lambda owner, p: sd.speculative_decoding_with_same_model(owner, p, out, **keywords),
                   [sd.speculative_decoding_with_same_model]), (ids,), {}
    wrapper = _wrapper(width, num_leading_start_tokens=start_tokens)
    return Run(wrapper, lambda owner, p: sp.speculative_decoding_with_prophet_model(owner, p, out, **keywords),
               [sp.speculative_decoding_with_prophet_model]), (ids,), {}


def _part(name: str) -> Built:
    import torch

    sd, sp = _modules()
    gen = _gen(4)
    x = torch.randn(BATCH, SEQ, DIM, generator=gen)
    if name == "FeedForward":
        return sd.FeedForward(DIM, mult=2), (x,), {}
    if name == "RotaryEmbedding":
        return sd.RotaryEmbedding(DIM_HEAD), (SEQ,), {}
    module = sp if name.startswith("prophet.") else sd
    attend = module.CausalAttention(DIM, dim_head=DIM_HEAD, heads=HEADS)
    kwargs: dict[str, Any] = {}
    if ".cache" in name:
        # a cache of 6 positions, 4 new ones
        kwargs["cache"] = torch.randn(BATCH, 2, HEADS, SEQ - 4, DIM_HEAD, generator=gen)
        x = x[:, -4:]
    if ".context_mask" in name:
        kwargs["context_mask"] = torch.arange(SEQ).expand(BATCH, SEQ) >= _start_pos()[:, None]
    if ".rotary" in name:
        kwargs["rotary_emb"] = sd.RotaryEmbedding(DIM_HEAD)(SEQ)
    return attend, (x,), kwargs


def _tensors() -> dict[str, Any]:
    import torch

    gen = _gen(5)
    return {
        "logits": torch.randn(BATCH, TOKENS, generator=gen),
        "logits3": torch.randn(BATCH, 3, TOKENS, generator=gen),
        "flags": torch.rand(BATCH, 5, generator=gen) > 0.6,
        "freqs": torch.randn(SEQ, DIM_HEAD, generator=gen),
        "heads": torch.randn(BATCH, HEADS, 6, DIM_HEAD, generator=gen),
    }


def _function(name: str) -> Built:
    from gt_calls import Call

    sd, sp = _modules()
    module, function, inputs, static = FUNCTIONS[name]
    tensors = _tensors()
    return Call(getattr(sd if module == "sd" else sp, function), **static), tuple(tensors[i] for i in inputs), {}


def _step(name: str) -> Built:
    import torch

    from gt_calls import Run

    sd, sp = _modules()
    kind, keywords = STEPS[name]
    ids = _ids()
    if kind == "decoder":
        model = _decoder(**keywords)
        entries: list[Any] = [sd.Decoder]

        def loss_of(owner: Any, x: Any) -> Any:
            losses = owner(x, return_loss=True)
            return sum(losses) if isinstance(losses, tuple) else losses
    elif kind == "prophet":
        model = _prophet_decoder()
        entries = [sp.Decoder]
        start = torch.randn(BATCH, 1, DIM, generator=_gen(6))

        def loss_of(owner: Any, x: Any) -> Any:
            loss, _ = owner(x, start_tokens=start, return_loss=True)
            return loss
    else:
        keywords = dict(keywords)
        model = _wrapper(keywords.pop("width"), prophet_train_length=4, **keywords)
        entries = [sp.ModelWithProphetWrapper]

        def loss_of(owner: Any, x: Any) -> Any:
            total, _ = owner(x)
            return total

    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(owner: Any, x: Any) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = loss_of(owner, x)
            loss.backward()
            optimizer.step()
        return loss.detach()

    return Run(model, step, entries), (ids,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in DECODER:
        return _decoder_forward(name)
    if name in PROPHET:
        return _prophet_forward(name)
    if name in WRAPPER:
        return _wrapper_forward(name)
    if name in DECODING:
        return _decoding(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in STEPS:
        return _step(name)
    raise KeyError(name)
