"""Ground-truth bench, rwkv: the RWKV language-model runtime (``rwkv.model.RWKV``) and its ``PIPELINE``.

The ``rwkv`` package runs trained RWKV checkpoints for inference. ``rwkv.model.RWKV(path, strategy)``
loads a state dict from a ``.pth`` file, detects the model version from its keys (v4; v5 with
``ln_x``; v5.1 with a gate; v5.2 with per-head decays and ``time_faaaa``; v6 with the ``time_maa`` token
shift, optionally a trained ``time_state``), converts every tensor for the strategy (``cpu fp32``,
``cpu bf16``, the ``i8`` suffix storing the matrices as ``uint8`` with per-row and per-column scales,
layers split between strategies with ``->``) and keeps them in a dict. Its ``forward(tokens, state,
full_output)`` takes a list of token ids: one token runs the recurrent ``*_one`` kernels, several the
``*_seq`` ones (a parallel form for v5/v5.1, a loop over time for v5.2/v6); a ``None`` state is created
zeroed (or from ``time_state``). With ``RWKV_V7_ON=1`` the module defines ``RWKV_x070`` (v7 "Goose",
always TorchScript) instead, with its DeepEmbed variant under ``RWKV_DE_VERSION=1``. ``rwkv.utils``
holds ``PIPELINE`` (tokenizer, ``sample_logits`` with temperature, top-p and top-k on NumPy for CPU
tensors, ``generate`` with presence and frequency penalties) and ``PIPELINE_ARGS``.

The environment variables are read when ``rwkv.model`` is imported, so each model sets them in its own
worker before the import, as a CPU user would: ``RWKV_CUDA_ON=0``, and ``RWKV_JIT_ON=0`` (TorchScript off,
plain ``nn.Module`` methods, what one compiles with ``torch.compile``) except for the ``jit`` models,
which keep the package's default (``RWKV_JIT_ON=1``, a ``ScriptModule``). Each model writes a tiny random
state dict (2 layers, width 32, 2 heads of 16, vocabulary 64; the real 65,536-token vocabulary for the
``PIPELINE`` models so the bundled tokenizer applies) to a temporary ``.pth`` file and loads it. Tables:

- ``FORWARD``: ``RWKV.forward`` per version (v4, v5, v5.1, v5.2, v6, v6 with ``time_state``) on a
  sequence and on one token, with a state carried from an earlier call, with ``full_output``; the
  strategies ``cpu bf16``, ``cpu fp32i8`` and ``cpu bf16i8`` (sequence and one token, the ``mm8`` path),
  ``cpu fp16`` with ``RWKV_RESCALE_LAYER=1`` (the fp16 overflow guard) and a split ``cpu fp32 *1 -> cpu
  bf16``; a prefill then one decoding step; the JIT default on v4 and v5.2;
- ``V7``: ``RWKV_x070.forward`` on a sequence, one token, with state, ``full_output``, bf16, and the
  DeepEmbed variant;
- ``PIPELINE``: ``sample_logits`` (top-p, top-k, temperature, greedy), ``generate`` (penalties, banned
  and stop tokens, a chunked prompt), ``encode`` and ``decode`` with the bundled trie tokenizer.

Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
EMBD, HEADS, LAYERS, FFN, VOCAB, LORA = 32, 2, 2, 64, 64, 8
FULL_VOCAB = 65536
SEQ = [3, 14, 15, 9, 26, 5]

# Model name -> (version, strategy, call, JIT on). Versions: "4", "5", "5.1", "5.2", "6", "6.state" (v6 with
# a trained ``time_state``). Calls: "seq" (six tokens, no state), "one" (one token), "seq.state" and
# "one.state" (a state from an eager call on other tokens), "seq.full" (``full_output=True``), "decode" (a
# prefill then one more token from the state).
FORWARD: dict[str, tuple[str, str, str, bool]] = {
    "v4.seq": ("4", "cpu fp32", "seq", False),
    "v4.one": ("4", "cpu fp32", "one", False),
    "v4.seq.state": ("4", "cpu fp32", "seq.state", False),
    "v4.seq.full_output": ("4", "cpu fp32", "seq.full", False),
    "v4.seq.bf16": ("4", "cpu bf16", "seq", False),
    "v4.seq.fp32i8": ("4", "cpu fp32i8", "seq", False),
    "v4.one.fp32i8": ("4", "cpu fp32i8", "one.state", False),
    "v4.decode": ("4", "cpu fp32", "decode", False),
    "v4.seq.jit": ("4", "cpu fp32", "seq", True),
    "v4.seq.fp16.rescale": ("4", "cpu fp16", "seq", False),
    "v5.seq": ("5", "cpu fp32", "seq", False),
    "v5.one": ("5", "cpu fp32", "one", False),
    "v5.seq.state": ("5", "cpu fp32", "seq.state", False),
    "v5.seq.fp32i8": ("5", "cpu fp32i8", "seq", False),
    "v5.1.seq": ("5.1", "cpu fp32", "seq", False),
    "v5.1.one.state": ("5.1", "cpu fp32", "one.state", False),
    "v5.1.seq.full_output": ("5.1", "cpu fp32", "seq.full", False),
    "v5.1.seq.bf16": ("5.1", "cpu bf16", "seq", False),
    "v5.2.seq": ("5.2", "cpu fp32", "seq", False),
    "v5.2.one": ("5.2", "cpu fp32", "one", False),
    "v5.2.seq.state": ("5.2", "cpu fp32", "seq.state", False),
    "v5.2.seq.full_output": ("5.2", "cpu fp32", "seq.full", False),
    "v5.2.seq.bf16": ("5.2", "cpu bf16", "seq", False),
    "v5.2.one.fp32i8": ("5.2", "cpu fp32i8", "one", False),
    "v5.2.seq.split": ("5.2", "cpu fp32 *1 -> cpu bf16", "seq", False),
    "v5.2.decode": ("5.2", "cpu fp32", "decode", False),
    "v5.2.seq.jit": ("5.2", "cpu fp32", "seq", True),
    "v5.2.seq.fp16.rescale": ("5.2", "cpu fp16", "seq", False),
    "v5.2.one.fp16.rescale": ("5.2", "cpu fp16", "one", False),
    "v6.seq": ("6", "cpu fp32", "seq", False),
    "v6.one": ("6", "cpu fp32", "one", False),
    "v6.seq.state": ("6", "cpu fp32", "seq.state", False),
    "v6.one.state": ("6", "cpu fp32", "one.state", False),
    "v6.seq.full_output": ("6", "cpu fp32", "seq.full", False),
    "v6.seq.bf16": ("6", "cpu bf16", "seq", False),
    "v6.seq.fp32i8": ("6", "cpu fp32i8", "seq", False),
    "v6.one.bf16i8": ("6", "cpu bf16i8", "one", False),
    "v6.seq.split": ("6", "cpu fp32 *1 -> cpu bf16", "seq", False),
    "v6.decode": ("6", "cpu fp32", "decode", False),
    "v6.time_state.seq": ("6.state", "cpu fp32", "seq", False),
    "v6.time_state.one": ("6.state", "cpu fp32", "one", False),
}
# Models run with ``RWKV_RESCALE_LAYER=1`` (the fp16 overflow guard: weights scaled at load, ``x`` halved
# after every layer); the others leave it unset (0 outside fp16).
RESCALED = ("v4.seq.fp16.rescale", "v5.2.seq.fp16.rescale", "v5.2.one.fp16.rescale")
# v7 name -> (strategy, call, DeepEmbed).
V7: dict[str, tuple[str, str, bool]] = {
    "v7.seq": ("cpu fp32", "seq", False),
    "v7.one": ("cpu fp32", "one", False),
    "v7.seq.state": ("cpu fp32", "seq.state", False),
    "v7.seq.full_output": ("cpu fp32", "seq.full", False),
    "v7.seq.bf16": ("cpu bf16", "seq", False),
    "v7.decode": ("cpu fp32", "decode", False),
    "v7.deep_embed.seq": ("cpu fp32", "seq", True),
    "v7.deep_embed.one": ("cpu fp32", "one", True),
}
# ``PIPELINE`` name -> (what is compiled, keywords). ``sample_logits`` gets logits over the full vocabulary;
# ``generate`` runs a v5.2 model over the full vocabulary for three tokens.
PIPELINE: dict[str, tuple[str, dict[str, Any]]] = {
    "PIPELINE.sample_logits": ("sample_logits", {}),
    "PIPELINE.sample_logits.top_k": ("sample_logits", {"temperature": 1.0, "top_p": 0.9, "top_k": 20}),
    "PIPELINE.sample_logits.temperature": ("sample_logits", {"temperature": 0.7, "top_p": 0.5}),
    "PIPELINE.sample_logits.greedy": ("sample_logits", {"temperature": 0.0}),
    "PIPELINE.generate": ("generate", {}),
    "PIPELINE.generate.ban_stop.chunked": ("generate", {"token_ban": [0, 11], "token_stop": [261], "chunk_len": 2,
                                                        "top_k": 8}),
    "PIPELINE.generate.greedy.callback": ("generate", {"temperature": 0.0, "alpha_presence": 0.0}),
    "PIPELINE.encode": ("encode", {}),
    "PIPELINE.decode": ("decode", {}),
}


def names() -> list[str]:
    return list(FORWARD) + list(V7) + list(PIPELINE)


def _environment(jit: bool = False, v7: bool = False, deep_embed: bool = False, rescale: bool = False) -> Any:
    """Set the package's switches, then import ``rwkv.model`` (it reads them on import)."""
    import importlib
    import os

    os.environ["RWKV_CUDA_ON"] = "0"
    os.environ["RWKV_JIT_ON"] = "1" if jit else "0"
    for key, on in (("RWKV_V7_ON", v7), ("RWKV_DE_VERSION", deep_embed), ("RWKV_RESCALE_LAYER", rescale)):
        if on:
            os.environ[key] = "1"
        else:
            os.environ.pop(key, None)
    return importlib.import_module("rwkv.model")


def _weights(version: str, vocab: int = VOCAB) -> dict[str, Any]:
    """A random state dict with the keys and shapes of a trained checkpoint of ``version`` (the order
    matters: the loader reads ``n_head`` from ``time_decay`` once ``ln_x`` has set the version to 5)."""
    import torch

    gen = torch.Generator().manual_seed(11)
    C, H, N = EMBD, HEADS, EMBD // HEADS

    def rand(*shape: int, scale: float = 0.2) -> torch.Tensor:
        return torch.randn(*shape, generator=gen) * scale

    def mix() -> torch.Tensor:
        return torch.rand(1, 1, C, generator=gen)

    w: dict[str, torch.Tensor] = {"emb.weight": rand(vocab, C, scale=1.0)}
    for i in range(LAYERS):
        b, att, ffn = f"blocks.{i}.", f"blocks.{i}.att.", f"blocks.{i}.ffn."
        if i == 0:
            w[b + "ln0.weight"], w[b + "ln0.bias"] = torch.ones(C), torch.zeros(C)
        for norm in ("ln1", "ln2"):
            w[f"{b}{norm}.weight"], w[f"{b}{norm}.bias"] = torch.ones(C) + rand(C, scale=0.05), rand(C, scale=0.05)
        if version != "4":
            w[att + "ln_x.weight"], w[att + "ln_x.bias"] = torch.ones(C), torch.zeros(C)
        if version in ("4", "5", "5.1", "5.2"):
            for name in ("k", "v", "r") + (("g",) if version != "4" and version != "5" else ()):
                w[f"{att}time_mix_{name}"] = mix()
        if version == "4":
            w[att + "time_decay"], w[att + "time_first"] = rand(C, scale=1.0), rand(C, scale=1.0)
        elif version in ("5", "5.1"):
            w[att + "time_decay"], w[att + "time_first"] = rand(H, scale=1.0), rand(H, scale=1.0)
        elif version == "5.2":
            w[att + "time_decay"], w[att + "time_faaaa"] = rand(H, N, scale=1.0), rand(H, N, scale=0.5)
        else:
            for name in ("x", "w", "k", "v", "r", "g"):
                w[f"{att}time_maa_{name}"] = mix()
            w[att + "time_maa_w1"], w[att + "time_maa_w2"] = rand(C, 5 * LORA), rand(5, LORA, C)
            w[att + "time_decay_w1"], w[att + "time_decay_w2"] = rand(C, LORA), rand(LORA, C)
            w[att + "time_decay"], w[att + "time_faaaa"] = rand(1, 1, C, scale=1.0), rand(H, N, scale=0.5)
            if version == "6.state":
                w[att + "time_state"] = rand(H, N, N)
        for name in ("key", "value", "receptance", "output") + (("gate",) if version not in ("4", "5") else ()):
            w[f"{att}{name}.weight"] = rand(C, C)
        if version.startswith("6"):
            w[ffn + "time_maa_k"], w[ffn + "time_maa_r"] = mix(), mix()
        else:
            w[ffn + "time_mix_k"], w[ffn + "time_mix_r"] = mix(), mix()
        w[ffn + "key.weight"], w[ffn + "value.weight"], w[ffn + "receptance.weight"] = (rand(FFN, C), rand(C, FFN),
                                                                                       rand(C, C))
    w["ln_out.weight"], w["ln_out.bias"] = torch.ones(C), torch.zeros(C)
    w["head.weight"] = rand(vocab, C)
    return w


def _weights_v7(deep_embed: bool) -> dict[str, Any]:
    """A random RWKV-7 state dict (``RWKV_x070`` reads the head count and size from ``att.r_k``); the
    DeepEmbed variant adds the per-token ``s_emb`` tables and their projections (32 x 32 per token)."""
    import torch

    gen = torch.Generator().manual_seed(12)
    C, H, N = EMBD, HEADS, EMBD // HEADS

    def rand(*shape: int, scale: float = 0.2) -> torch.Tensor:
        return torch.randn(*shape, generator=gen) * scale

    w: dict[str, torch.Tensor] = {"emb.weight": rand(VOCAB, C, scale=1.0)}
    for i in range(LAYERS):
        b, att, ffn = f"blocks.{i}.", f"blocks.{i}.att.", f"blocks.{i}.ffn."
        if i == 0:
            w[b + "ln0.weight"], w[b + "ln0.bias"] = torch.ones(C), torch.zeros(C)
        for norm in ("ln1", "ln2"):
            w[f"{b}{norm}.weight"], w[f"{b}{norm}.bias"] = torch.ones(C), torch.zeros(C)
        for name in ("x_r", "x_w", "x_k", "x_v", "x_a", "x_g", "w0", "a0", "k_k", "k_a"):
            w[att + name] = torch.rand(1, 1, C, generator=gen)
        w[att + "w1"], w[att + "w2"] = rand(C, LORA), rand(LORA, C)
        w[att + "a1"], w[att + "a2"] = rand(C, LORA), rand(LORA, C)
        w[att + "g1"], w[att + "g2"] = rand(C, LORA), rand(LORA, C)
        if i > 0:
            w[att + "v0"] = torch.rand(1, 1, C, generator=gen)
            w[att + "v1"], w[att + "v2"] = rand(C, LORA), rand(LORA, C)
        w[att + "r_k"] = rand(H, N)
        for name in ("receptance", "key", "value", "output"):
            w[f"{att}{name}.weight"] = rand(C, C)
        w[att + "ln_x.weight"], w[att + "ln_x.bias"] = torch.ones(C), torch.zeros(C)
        w[ffn + "x_k"] = torch.rand(1, 1, C, generator=gen)
        w[ffn + "key.weight"], w[ffn + "value.weight"] = rand(FFN, C), rand(C, FFN)
        if deep_embed:
            w[ffn + "s_emb.weight"] = rand(VOCAB, 1024, scale=0.05)
            w[ffn + "s_emb_x.weight"] = rand(1024, C, scale=0.05)
            w[ffn + "s1"], w[ffn + "s2"], w[ffn + "s0"] = rand(C, 32), rand(32, FFN), rand(FFN)
    w["ln_out.weight"], w["ln_out.bias"] = torch.ones(C), torch.zeros(C)
    w["head.weight"] = rand(VOCAB, C)
    return w


def _saved(weights: dict[str, Any]) -> str:
    """``weights`` saved to a fresh temporary ``.pth`` file; its path without the suffix (both loaders
    accept that form)."""
    import os
    import tempfile

    import torch

    folder = tempfile.mkdtemp(prefix="gt_rwkv_", dir="/tmp")
    path = os.path.join(folder, "model")
    torch.save(weights, path + ".pth")
    return path


def _run(model: Any, call: str, entries: list[Any]) -> Built:
    """The bench module running ``call`` on ``model`` and its inputs."""
    import torch

    from gt_calls import Run

    prompt, other = SEQ, [7, 30, 2, 41]
    if call.endswith(".state"):
        with torch.no_grad():
            _, state = model.forward(other, None)
        tokens = prompt if call.startswith("seq") else prompt[:1]

        def with_state(owner: Any, tokens_: list[int], state_: list[Any]) -> Any:
            return owner.forward(tokens_, [s.clone() for s in state_])

        return Run(model, with_state, entries), (tokens, state), {}
    if call == "decode":
        def decode(owner: Any, tokens_: list[int], following: int) -> Any:
            """The prompt, then one more token from the returned state, as a chat loop runs it."""
            out, state = owner.forward(tokens_, None)
            logits, state = owner.forward([following], state)
            return out + logits, state

        return Run(model, decode, entries), (prompt, 17), {}
    full = call == "seq.full"

    def forward(owner: Any, tokens_: list[int]) -> Any:
        return owner.forward(tokens_, None, full_output=full) if full else owner.forward(tokens_, None)

    return Run(model, forward, entries), (prompt if call.startswith("seq") else prompt[:1],), {}


def _forward(name: str) -> Built:
    version, strategy, call, jit = FORWARD[name]
    rwkv_model = _environment(jit=jit, rescale=name in RESCALED)
    model = rwkv_model.RWKV(_saved(_weights(version)), strategy, verbose=False)
    return _run(model, call, [rwkv_model.RWKV.forward])


def _v7(name: str) -> Built:
    strategy, call, deep_embed = V7[name]
    rwkv_model = _environment(v7=True, deep_embed=deep_embed)
    model = rwkv_model.RWKV_x070(_saved(_weights_v7(deep_embed)), strategy)
    return _run(model, call, [rwkv_model.RWKV_x070.forward])


def _pipeline(name: str) -> Built:
    import torch

    from gt_calls import Run

    what, keywords = PIPELINE[name]
    rwkv_model = _environment()
    from rwkv import utils

    gen = torch.Generator().manual_seed(13)
    if what == "sample_logits":
        pipeline = utils.PIPELINE(None, "rwkv_vocab_v20230424")

        def sample(owner: Any, logits: Any) -> Any:
            return pipeline.sample_logits(logits, **keywords)

        return Run(torch.nn.Identity(), sample, [utils.PIPELINE.sample_logits]), \
            (torch.randn(FULL_VOCAB, generator=gen) * 3,), {}
    if what in ("encode", "decode"):
        pipeline = utils.PIPELINE(None, "rwkv_vocab_v20230424")
        if what == "encode":
            return Run(torch.nn.Identity(), lambda owner, text: pipeline.encode(text), [utils.PIPELINE.encode]), \
                ("\nUser: hello there\n\nAssistant:",), {}
        return Run(torch.nn.Identity(), lambda owner, ids: pipeline.decode(ids), [utils.PIPELINE.decode]), \
            ([33155, 45, 5034, 3330, 11],), {}
    model = rwkv_model.RWKV(_saved(_weights("5.2", FULL_VOCAB)), "cpu fp32", verbose=False)
    pipeline = utils.PIPELINE(model, "rwkv_vocab_v20230424")
    args = utils.PIPELINE_ARGS(**keywords)
    pieces: list[str] = []
    callback = pieces.append if name.endswith("callback") else None

    def generate(owner: Any, context: str) -> Any:
        return pipeline.generate(context, token_count=3, args=args, callback=callback)

    return Run(model, generate, [utils.PIPELINE.generate]), ("The quick brown fox",), {}


def build(name: str) -> Built:
    import warnings

    import numpy as np
    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    np.random.seed(0)
    if name in FORWARD:
        return _forward(name)
    if name in V7:
        return _v7(name)
    return _pipeline(name)
