"""Ground-truth bench, memformer: the Memformer encoder-decoder with memory slots, its parts and its training loops.

memformer 0.3.1 (lucidrains) exports ``Memformer`` and ``memory_replay_backprop``. ``Memformer`` embeds a source
segment and encodes it (self-attention with a bucketed relative position bias, cross-attention to the memory
slots, a feedforward), decodes an optional target through an ``AutoregressiveWrapper`` (its next-token loss,
the source as context), and updates the memory: an attention from the slots over slots and encoder output
(each slot masked to itself and the unmasked source), a GRU cell and a residual feedforward, ``num_mem_updates``
times. It returns ``(enc_out, mem, dec_out)``, or ``(enc_out, mem)`` when ``encoder_only``. The tables cover,
at width 16, one layer, 4 heads, a 24-token vocabulary, 4 memory slots, a batch of 2 and segments of 8:

- ``MEMFORMER``: ``Memformer`` forward: the source alone (the decoder's zero loss), with a target (the loss),
  with memory passed in, with a source mask, a target mask or both, two memory updates, two layers, other head
  counts, encoder only (with and without memory), a target given as a list of ragged sequences (padded);
- ``RECURRENT``: the recurrence users run over segments (bench code holding the library model): memory carried
  from segment to segment with a loss summed over them, with and without masks, with the memory detached
  between segments;
- ``MRBP``: ``memory_replay_backprop`` (memory replay back-propagation, a backward per segment inside it):
  two and three segments, with masks, and followed by an Adam step;
- ``WRAPPER``: ``AutoregressiveWrapper`` forward over the decoder (logits, the loss, a mask as long as the
  sequence, ragged sequences) and its ``generate`` through ``gt_calls.Method`` over a bench
  adapter that hands its ``input_mask`` to the decoder (the decoder takes no such keyword): ``top_k`` or
  ``top_p`` filtering, an end token every row has, a one-dimensional prompt, a prompt longer than the window,
  an input mask;
- ``PARTS``: ``Encoder`` and ``Decoder`` (masks, context), ``TransformerWrapper``, ``Attention`` (causal,
  attending to itself and a context under a 3-d mask, query and key masks, the position bias),
  ``RelativePositionBias`` (queries and keys of other lengths), ``Memformer.get_initial_mem``;
- ``FUNCTIONS``: ``top_k``, ``top_p`` and ``RelativePositionBias._relative_position_bucket`` through
  ``gt_calls.Call``;
- ``TRAIN``: train steps: the loss of ``Memformer`` (with masks) backward and an Adam step, over two segments
  (memory carried through), encoder only with a loss on the memory.

Random weights and inputs from fixed generators, nothing downloaded. ``names()`` needs no torch; ``build`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TOKENS, DIM, HEADS, SLOTS, BATCH, SEQ, TGT = 24, 16, 4, 4, 2, 8, 6
BASE: dict[str, Any] = {
    "dim": DIM, "num_memory_slots": SLOTS, "mem_update_attn_heads": HEADS,
    "enc_num_tokens": TOKENS, "enc_max_seq_len": SEQ, "enc_depth": 1, "enc_heads": HEADS,
    "dec_num_tokens": TOKENS, "dec_max_seq_len": SEQ, "dec_depth": 1, "dec_heads": HEADS,
}
# ``Memformer`` forward name -> (keywords over ``BASE``, inputs: "tgt", "tgt_list", "mems", "src_mask", "tgt_mask").
MEMFORMER: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "Memformer.src_only": ({}, ()),
    "Memformer.tgt": ({}, ("tgt",)),
    "Memformer.tgt.mems": ({}, ("tgt", "mems")),
    "Memformer.src_mask": ({}, ("src_mask",)),
    "Memformer.tgt.src_mask": ({}, ("tgt", "src_mask")),
    "Memformer.tgt.tgt_mask": ({}, ("tgt", "tgt_mask")),
    "Memformer.tgt.masks.mems": ({}, ("tgt", "src_mask", "tgt_mask", "mems")),
    "Memformer.mem_updates2": ({"num_mem_updates": 2}, ("tgt",)),
    "Memformer.depth2": ({"enc_depth": 2, "dec_depth": 2}, ("tgt", "src_mask")),
    "Memformer.heads": ({"enc_heads": 2, "dec_heads": 8, "mem_update_attn_heads": 1}, ("tgt",)),
    "Memformer.encoder_only": ({"encoder_only": True}, ()),
    "Memformer.encoder_only.mems.src_mask": ({"encoder_only": True}, ("mems", "src_mask")),
    "Memformer.tgt_list": ({}, ("tgt_list",)),
}
# Recurrence over segments name -> (masks, detach the memory between segments).
RECURRENT: dict[str, tuple[bool, bool]] = {
    "recurrent.segments3": (False, False),
    "recurrent.segments3.masks": (True, False),
    "recurrent.segments3.detach": (False, True),
}
# ``memory_replay_backprop`` name -> (segments, masks, an Adam step after).
MRBP: dict[str, tuple[int, bool, bool]] = {
    "memory_replay_backprop.segments2": (2, False, False),
    "memory_replay_backprop.segments3": (3, False, False),
    "memory_replay_backprop.segments2.masks": (2, True, False),
    "memory_replay_backprop.segments3.masks.adam": (3, True, True),
}
# ``AutoregressiveWrapper`` name -> (method: "forward" or "generate", keywords).
WRAPPER: dict[str, tuple[str, dict[str, Any]]] = {
    "AutoregressiveWrapper.logits": ("forward", {}),
    "AutoregressiveWrapper.loss": ("forward", {"return_loss": True}),
    "AutoregressiveWrapper.loss.full_mask": ("forward", {"return_loss": True, "mask": "full"}),
    "AutoregressiveWrapper.loss.ragged": ("forward", {"return_loss": True, "ragged": True}),
    "AutoregressiveWrapper.generate": ("generate", {}),
    "AutoregressiveWrapper.generate.top_p": ("generate", {"filter": "top_p", "filter_thres": 0.8}),
    "AutoregressiveWrapper.generate.eos": ("generate", {"eos": True}),
    "AutoregressiveWrapper.generate.prompt_1d": ("generate", {"prompt_1d": True}),
    "AutoregressiveWrapper.generate.long": ("generate", {"long": True}),
    "AutoregressiveWrapper.generate.input_mask": ("generate", {"input_mask": True}),
}
PARTS = (
    "Encoder.src_mask", "Decoder.masks", "TransformerWrapper.encoder", "Attention.causal",
    "Attention.attend_self.mask", "Attention.context.kv_mask", "Attention.pos_emb",
    "Attention.causal.pos_emb.query_mask",
    "RelativePositionBias.rectangular", "Memformer.get_initial_mem",
)
FUNCTIONS = ("top_k", "top_p", "relative_position_bucket.causal")
TRAIN = ("train.Memformer.masks.adam", "train.Memformer.segments2.adam",
         "train.Memformer.encoder_only.sgd")


def names() -> list[str]:
    return [*MEMFORMER, *RECURRENT, *MRBP, *WRAPPER, *PARTS, *FUNCTIONS, *TRAIN]


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _ids(length: int = SEQ, seed: int = 1, batch: int = BATCH) -> Any:
    import torch

    return torch.randint(1, TOKENS, (batch, length), generator=_gen(seed))


def _mask(length: int = SEQ, keep: int = SEQ - 2) -> Any:
    """A padding mask: the first row whole, the second with ``keep`` leading positions."""
    import torch

    mask = torch.ones(BATCH, length, dtype=torch.bool)
    mask[1, keep:] = False
    return mask


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _memformer(**keywords: Any) -> Any:
    from memformer import Memformer

    return Memformer(**{**BASE, **keywords})


def _forward(name: str) -> Built:
    from gt_calls import Keywords

    keywords, inputs = MEMFORMER[name]
    model = _memformer(**keywords)
    call: dict[str, Any] = {}
    if "tgt" in inputs:
        call["tgt"] = _ids(TGT, seed=2)
    if "tgt_list" in inputs:
        call["tgt"] = [_ids(TGT, seed=2, batch=1)[0], _ids(TGT - 2, seed=3, batch=1)[0]]
    if "mems" in inputs:
        call["mems"] = _randn(BATCH, SLOTS, DIM, seed=4)
    if "src_mask" in inputs:
        call["src_mask"] = _mask()
    if "tgt_mask" in inputs:
        call["tgt_mask"] = _mask(TGT, TGT - 1)
    if "tgt_list" in inputs:
        # A list is no tensor input: keep it a fixed keyword.
        return Keywords(model, **call), (_ids(),), {}
    return model, (_ids(),), call


def _recurrent(name: str) -> Built:
    from memformer import Memformer

    from gt_calls import Run

    masks, detach = RECURRENT[name]
    model = _memformer()

    def run(owner: Any, src: Any, tgt: Any, src_mask: Any, tgt_mask: Any) -> Any:
        """Carry the memory across three source segments, a target per segment, the losses summed."""
        mems = None
        total = 0.
        for i, segment in enumerate(src.split(SEQ, dim=1)):
            keywords: dict[str, Any] = {"mems": mems}
            if masks:
                keywords.update(src_mask=src_mask.split(SEQ, dim=1)[i], tgt_mask=tgt_mask)
            _, mems, loss = owner(segment, tgt[:, i], **keywords)
            if detach:
                mems = mems.detach()
            total = total + loss
        return total, mems

    src = _ids(3 * SEQ)
    tgt = _ids(TGT, seed=2, batch=BATCH * 3).reshape(BATCH, 3, TGT)
    return Run(model, run, [Memformer]), (src, tgt, _mask(3 * SEQ, 2 * SEQ + 3), _mask(TGT, TGT - 2)), {}


def _mrbp(name: str) -> Built:
    import torch
    from memformer import memory_replay_backprop

    from gt_calls import Run

    segments, masks, adam = MRBP[name]
    model = _memformer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3) if adam else None

    def run(owner: Any, src: Any, tgt: Any, src_mask: Any, tgt_mask: Any) -> Any:
        """Memory replay back-propagation (it needs gradients: on in both modes), then an optional step."""
        with torch.enable_grad():
            if optimizer is not None:
                optimizer.zero_grad()
            keywords = {"src_mask": src_mask, "tgt_mask": tgt_mask} if masks else {}
            memory_replay_backprop(owner, src, tgt, **keywords)
            if optimizer is not None:
                optimizer.step()
        return owner.memory_slots.grad

    src = _ids(segments * SEQ)
    inputs = (src, _ids(TGT, seed=2), _mask(segments * SEQ, segments * SEQ - 3), _mask(TGT, TGT - 2))
    return Run(model, run, [memory_replay_backprop]), inputs, {}


def _wrapper(name: str) -> Built:
    import torch
    from memformer.autoregressive_wrapper import AutoregressiveWrapper, top_k, top_p
    from torch import nn

    from gt_calls import Keywords, Method

    method, keywords = WRAPPER[name]
    keywords = dict(keywords)
    model = _memformer()
    context = _randn(BATCH, SEQ, DIM, seed=5)
    if method == "forward":
        wrapper: Any = model.decoder
        ragged = keywords.pop("ragged", False)
        mask = keywords.pop("mask", None)
        if mask == "full":
            keywords["src_mask"] = _mask(TGT, TGT - 1)
        if ragged:
            sequences = [_ids(TGT, seed=2, batch=1)[0], _ids(TGT - 2, seed=3, batch=1)[0]]
            return Keywords(wrapper, context=context, **keywords), (sequences,), {}
        return wrapper, (_ids(TGT, seed=2),), {"context": context, **keywords}

    decoder_net = model.decoder.net

    class DecoderWithContext(nn.Module):
        """The Memformer decoder's network with a fixed context; ``generate``'s ``input_mask`` becomes its mask."""

        def __init__(self) -> None:
            super().__init__()
            self.net = decoder_net
            self.max_seq_len = decoder_net.max_seq_len
            self.register_buffer("context", context)

        def forward(self, x: torch.Tensor, input_mask: torch.Tensor | None = None) -> torch.Tensor:
            return self.net(x, context=self.context[: x.shape[0]], src_mask=input_mask)

    wrapper = AutoregressiveWrapper(DecoderWithContext())
    static: dict[str, Any] = {"seq_len": 5}
    if keywords.get("filter") == "top_p":
        static["filter_logits_fn"] = top_p
    else:
        static["filter_logits_fn"] = top_k
    for key in ("temperature", "filter_thres"):
        if key in keywords:
            static[key] = keywords[key]
    prompt = _ids(3, seed=6)
    if keywords.get("eos"):
        static["eos_token"] = 0
        # Every logit but the end token's pushed down: each row samples it at once, the loop stops early.
        with torch.no_grad():
            decoder_net.to_logits.bias.fill_(-30.)
            decoder_net.to_logits.bias[0] = 30.
    if keywords.get("prompt_1d"):
        prompt = prompt[0]
    if keywords.get("long"):
        prompt = _ids(SEQ + 2, seed=6)
    kwargs: dict[str, Any] = {}
    if keywords.get("input_mask"):
        kwargs["input_mask"] = _mask(3, 2)
    return Method(wrapper, "generate", **static), (prompt,), kwargs


def _part(name: str) -> Built:
    from memformer import memformer as mf

    from gt_calls import Method

    x = _randn(BATCH, SEQ, DIM)
    context = _randn(BATCH, SLOTS, DIM, seed=2)
    if name.startswith("Encoder"):
        encoder = mf.Encoder(DIM, depth=2, heads=HEADS)
        return encoder, (x,), {"context": context, **({"src_mask": _mask()} if name.endswith("src_mask") else {})}
    if name.startswith("Decoder"):
        decoder = mf.Decoder(DIM, depth=2, heads=HEADS)
        keywords: dict[str, Any] = {"context": context}
        if name.endswith("masks"):
            keywords.update(src_mask=_mask(), tgt_mask=_mask(SLOTS, SLOTS - 1))
        return decoder, (x,), keywords
    if name == "TransformerWrapper.encoder":
        wrapper = mf.TransformerWrapper(num_tokens=TOKENS, max_seq_len=SEQ, dim=DIM, return_logits=False,
                                        layer_blocks=mf.Encoder(DIM, depth=1, heads=HEADS))
        return wrapper, (_ids(),), {"context": context, "src_mask": _mask()}
    if name.startswith("Attention"):
        causal = ".causal" in name
        attention = mf.Attention(DIM, heads=HEADS, causal=causal)
        keywords = {}
        if ".context" in name:
            keywords["context"] = context
        if "kv_mask" in name:
            keywords["kv_mask"] = _mask(SLOTS, SLOTS - 1)
        if "query_mask" in name:
            keywords["query_mask"] = _mask()
        if "pos_emb" in name:
            keywords["pos_emb"] = mf.RelativePositionBias(causal=causal, heads=HEADS)
        if "attend_self" in name:
            import torch
            import torch.nn.functional as F

            mask = torch.eye(SEQ, dtype=torch.bool).expand(BATCH, SEQ, SEQ)
            keywords.update(context=context, attend_self=True,
                            mask=F.pad(mask, (0, SLOTS), value=True))
        return attention, (x,), keywords
    if name.startswith("RelativePositionBias"):
        from gt_calls import Run

        bias = mf.RelativePositionBias(causal=name.endswith("causal"), heads=HEADS)
        qlen, klen = (SEQ, SEQ + SLOTS) if name.endswith("rectangular") else (SEQ, SEQ)
        # Lengths are Python ints: a bench wrapper passes them, and scales the tensor so the output is used.
        return Run(bias, lambda owner, scale: owner(qlen, klen) * scale, [mf.RelativePositionBias]), \
            (_randn(1),), {}
    if name == "Memformer.get_initial_mem":
        return Method(_memformer(), "get_initial_mem", batch_size=BATCH), (), {}
    raise KeyError(name)


def _function(name: str) -> Built:
    import torch
    from memformer import memformer as mf
    from memformer.autoregressive_wrapper import top_k, top_p

    from gt_calls import Call

    logits = _randn(BATCH, TOKENS)
    if name == "top_k":
        return Call(top_k, thres=0.8), (logits,), {}
    if name == "top_p":
        return Call(top_p, thres=0.8), (logits,), {}
    positions = torch.arange(SEQ)
    relative = positions[None, :] - positions[:, None]
    bucket = mf.RelativePositionBias._relative_position_bucket
    return Call(bucket, causal=name.endswith("causal"), num_buckets=16, max_distance=32), (relative * 5,), {}


def _train(name: str) -> Built:
    import torch
    from memformer import Memformer

    from gt_calls import Run

    encoder_only = "encoder_only" in name
    model = _memformer(encoder_only=encoder_only)
    if encoder_only:
        optimizer: Any = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    masks = ".masks" in name
    segments = 2 if "segments2" in name else 1

    def step(owner: Any, src: Any, tgt: Any, src_mask: Any, tgt_mask: Any) -> Any:
        """The loss (summed over segments, memory carried), backward and an optimizer step when gradients are on."""
        mems = None
        total = 0.
        for segment in src.split(SEQ, dim=1):
            keywords: dict[str, Any] = {"mems": mems}
            if masks:
                keywords.update(src_mask=src_mask, tgt_mask=tgt_mask)
            if encoder_only:
                enc, mems = owner(segment, **keywords)
                total = total + enc.pow(2).mean() + mems.pow(2).mean()
            else:
                _, mems, loss = owner(segment, tgt, **keywords)
                total = total + loss
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            total.backward()
            optimizer.step()
        return total

    inputs = (_ids(segments * SEQ), _ids(TGT, seed=2), _mask(), _mask(TGT, TGT - 2))
    return Run(model, step, [Memformer]), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in MEMFORMER:
        return _forward(name)
    if name in RECURRENT:
        return _recurrent(name)
    if name in MRBP:
        return _mrbp(name)
    if name in WRAPPER:
        return _wrapper(name)
    if name in PARTS:
        return _part(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
