"""Ground-truth bench, mambapy: Mamba in plain PyTorch, its parallel scan, language models, Jamba and Vision Mamba.

mambapy (mamba.py) implements Mamba without CUDA kernels: ``mamba.Mamba`` (a stack of
``ResidualBlock``s around ``MambaBlock``: in-projection, causal depthwise convolution, the selective
scan, gating) whose scan is ``pscan.pscan`` (a Blelloch parallel scan written as an
``autograd.Function``, padding sequences to a power of two) or, with ``pscan=False``, a sequential loop;
``step()`` is the recurrent inference path, one token at a time with per-layer caches ``(h, inputs)``.
``lm.LM`` wraps the backbone with an embedding and a head (``step``, ``generate``); ``jamba.JambaLM``
mixes Mamba and grouped-query attention layers with mixture-of-experts MLPs; ``vim.VMamba`` is the
bidirectional Vision Mamba; ``onnx.mamba_onnx`` / ``onnx.mamba_lm_onnx`` are the export-friendly
variants whose step takes stacked cache tensors. So the tables cover:

- ``MAMBA``: ``Mamba`` at d_model 16, two layers, on a batch of 2 sequences of 16 (a power of two), 12
  (padded by the scan), 4 and 64 steps, in the configurations that change its code: the sequential scan,
  ``inner_layernorms`` (Jamba's), ``mup`` (``RMSNorm`` without gain); and ``step()`` from empty caches
  (``h`` is ``None``), from warm caches, and a bench loop running ``step()`` over a sequence as
  inference does (configurations that only change sizes or initialisation are left out);
- ``BLOCKS``: ``MambaBlock`` (forward, ``step``, ``ssm``), ``ResidualBlock`` (forward, ``step``),
  ``RMSNorm``;
- ``PSCAN``: ``pscan`` itself on power-of-two, short and padded lengths, ``PScan.pscan`` / ``pscan_rev``
  (the in-place sweeps) and ``pad_npo2``;
- ``LMS``: ``lm.LM`` over ``Mamba`` (forward, muP, a padded vocabulary, the sequential scan, ``step``,
  ``generate`` sampling with top-k, and greedy without top-k for a batch of 2, through a bench character
  tokenizer, from a two-token prompt) and train steps (next-token cross-entropy, as the repository's
  training examples compute it, with the parallel and the sequential scan);
- ``JAMBA``: ``JambaLM`` at four layers (a dense Mamba layer, Mamba + MoE layers, an attention layer)
  with and without experts, attention + MoE, multi-head instead of grouped-query attention, attention
  dropout; its ``step`` with empty and warm caches, ``generate``, a train step adding
  ``load_balancing_loss``; the parts ``Jamba``, ``AttentionLayer`` with MoE, ``MambaLayer`` (dense, MoE,
  one cached step), ``AttentionSDPA`` (with a cache), ``SparseMoEBlock`` (routed and single expert),
  ``MLP``, and the functions ``load_balancing_loss`` and ``repeat_kv``;
- ``VIM``: ``VMamba`` bidirectional (dividing the output or not), one-directional, sequential, with
  inner layer norms, its ``step`` and a ``VMambaBlock``;
- ``ONNX``: the export variants' ``Mamba`` forward and ``step`` and ``MambaLM``'s one-token forward.

``lm.py`` imports ``mamba2.py``, which imports ``mamba_ssm``'s Triton kernels at module level; neither
is installable on this CPU machine, so the worker registers a stand-in ``mamba_ssm`` whose kernels raise
if called, only so that ``lm`` imports: the ``LM`` models use the ``Mamba`` backbone, which never calls
them. ``Mamba2`` itself is left out (its forward is those Triton kernels). Random weights, nothing
downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, BATCH, SEQ, VOCAB = 16, 2, 16, 64
BASE: dict[str, Any] = {"d_model": DIM, "n_layers": 2, "d_state": 8}

# ``Mamba`` name -> (``MambaConfig`` keywords, sequence length, how it is run: "forward", "step"
# (empty caches), "step.warm" (caches from a first step), "step.loop" (a bench loop of ``step`` over the
# sequence)).
MAMBA: dict[str, tuple[dict[str, Any], int, str]] = {
    "Mamba": ({}, SEQ, "forward"),
    "Mamba.padded_length": ({}, 12, "forward"),
    "Mamba.seq": ({"pscan": False}, SEQ, "forward"),
    "Mamba.inner_layernorms": ({"inner_layernorms": True}, SEQ, "forward"),
    "Mamba.mup": ({"mup": True, "mup_base_width": 8}, SEQ, "forward"),
    "Mamba.short": ({}, 4, "forward"),
    "Mamba.long": ({}, 64, "forward"),
    "Mamba.step": ({}, SEQ, "step"),
    "Mamba.step.warm": ({}, SEQ, "step.warm"),
    "Mamba.step.inner_layernorms": ({"inner_layernorms": True}, SEQ, "step"),
    "Mamba.step.loop": ({}, 8, "step.loop"),
}
BLOCKS = ("MambaBlock", "MambaBlock.step", "MambaBlock.ssm", "ResidualBlock", "ResidualBlock.step", "RMSNorm")
PSCAN = ("pscan", "pscan.padded", "pscan.short", "PScan.pscan", "PScan.pscan_rev", "pad_npo2")
# ``lm.LM`` name -> (``MambaConfig`` keywords, ``LM`` keywords, how it is run: "forward", "step",
# "generate" (with its keywords), "train").
LMS: dict[str, tuple[dict[str, Any], dict[str, Any], str, dict[str, Any]]] = {
    "LM": ({}, {}, "forward", {}),
    "LM.mup": ({"mup": True, "mup_base_width": 8}, {}, "forward", {}),
    "LM.pad_vocab": ({}, {"pad_vocab_size_multiple": 48}, "forward", {}),
    "LM.seq": ({"pscan": False}, {}, "forward", {}),
    "LM.step": ({}, {}, "step", {}),
    "LM.generate": ({}, {}, "generate", {"num_tokens": 3, "top_k": 8}),
    "LM.generate.greedy.no_top_k.batch2": ({}, {}, "generate", {"num_tokens": 3, "top_k": None, "batch_size": 2,
                                                                "sample": False, "temperature": 0.7}),
    "train_step.LM": ({}, {}, "train", {}),
    "train_step.LM.seq": ({"pscan": False}, {}, "train", {}),
}
JAMBA_BASE: dict[str, Any] = {"d_model": DIM, "n_layers": 4, "mlp_size": 32, "d_state": 8, "num_attention_heads": 4,
                              "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2,
                              "attn_layer_offset": 2, "attn_layer_period": 4, "expert_layer_offset": 1,
                              "expert_layer_period": 2, "vocab_size": VOCAB}
# ``JambaLM`` name -> (``JambaLMConfig`` keywords over ``JAMBA_BASE``, how it is run).
JAMBA: dict[str, tuple[dict[str, Any], str]] = {
    "JambaLM": ({}, "forward"),
    "JambaLM.no_experts": ({"num_experts": 1}, "forward"),
    "JambaLM.attention_moe": ({"expert_layer_offset": 0}, "forward"),
    "JambaLM.mha": ({"num_key_value_heads": 4}, "forward"),
    "JambaLM.attention_dropout": ({"attention_dropout": 0.1}, "forward"),
    "JambaLM.step": ({}, "step"),
    "JambaLM.step.warm": ({}, "step.warm"),
    "JambaLM.generate": ({}, "generate"),
    "train_step.JambaLM": ({}, "train"),
}
JAMBA_PARTS = ("Jamba", "AttentionLayer.moe", "MambaLayer", "MambaLayer.moe", "MambaLayer.step",
               "AttentionSDPA", "AttentionSDPA.cache", "SparseMoEBlock", "SparseMoEBlock.single_expert", "MLP",
               "load_balancing_loss", "repeat_kv")
# ``VMamba`` name -> (``vim.MambaConfig`` keywords, how it is run).
VIM: dict[str, tuple[dict[str, Any], str]] = {
    "VMamba": ({}, "forward"),
    "VMamba.no_divide_output": ({"divide_output": False}, "forward"),
    "VMamba.unidirectional": ({"bidirectional": False}, "forward"),
    "VMamba.seq": ({"pscan": False}, "forward"),
    "VMamba.inner_layernorms": ({"inner_layernorms": True}, "forward"),
    "VMamba.step": ({"bidirectional": False}, "step"),
    "VMambaBlock": ({}, "block"),
}
ONNX = ("onnx.Mamba", "onnx.Mamba.step", "onnx.MambaLM")


def names() -> list[str]:
    return (list(MAMBA) + [f"block.{n}" for n in BLOCKS] + list(PSCAN) + list(LMS) + list(JAMBA)
            + [f"jamba.{n}" for n in JAMBA_PARTS] + list(VIM) + list(ONNX))


def _sequence(length: int = SEQ, seed: int = 1) -> Any:
    import torch

    return torch.randn(BATCH, length, DIM, generator=torch.Generator().manual_seed(seed))


def _ids(length: int = SEQ, seed: int = 2, batch: int = BATCH) -> Any:
    import torch

    return torch.randint(1, VOCAB, (batch, length), generator=torch.Generator().manual_seed(seed))


def _stub_mamba_ssm() -> None:
    """Register a stand-in ``mamba_ssm`` (its Triton kernels raise when called) so that ``mambapy.lm``,
    which imports ``mambapy.mamba2`` and so ``mamba_ssm`` at module level, imports on a CPU machine."""
    import sys
    import types

    if "mamba_ssm" in sys.modules:
        return

    def missing(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("mamba_ssm's Triton kernels are not installed")

    names_ = ("mamba_ssm", "mamba_ssm.ops", "mamba_ssm.ops.triton", "mamba_ssm.ops.triton.ssd_combined")
    for name in names_:
        sys.modules[name] = types.ModuleType(name)
    kernels = sys.modules["mamba_ssm.ops.triton.ssd_combined"]
    kernels.mamba_chunk_scan_combined = missing  # type: ignore[attr-defined]
    kernels.mamba_split_conv1d_scan_combined = missing  # type: ignore[attr-defined]


def _caches(config: Any, warm: bool = False) -> list[Any]:
    """One ``(h, inputs)`` cache per layer, as ``LM.generate`` makes them (``h`` ``None``), or warm ones."""
    import torch

    gen = torch.Generator().manual_seed(4)
    return [(torch.randn(BATCH, config.d_inner, config.d_state, generator=gen) * 0.1 if warm else None,
             torch.randn(BATCH, config.d_inner, config.d_conv - 1, generator=gen) * (0.1 if warm else 0.0))
            for _ in range(config.n_layers)]


class _CharTokenizer:
    """A bench tokenizer with the interface ``generate`` uses (``__call__(prompt, return_tensors='pt')
    .input_ids``, ``decode``, ``eos_token_id``): one token per character, nothing downloaded."""

    eos_token_id = 0

    def __call__(self, text: str, return_tensors: str = "pt") -> Any:
        import types

        import torch

        return types.SimpleNamespace(input_ids=torch.tensor([[1 + ord(c) % (VOCAB - 1) for c in text]]))

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        return "".join(chr(96 + i % 26) for i in ids if not (skip_special_tokens and i == self.eos_token_id))


def _mamba(name: str) -> Built:
    import torch
    from mambapy.mamba import Mamba, MambaConfig
    from torch import nn

    from gt_calls import Method

    keywords, length, how = MAMBA[name]
    config = MambaConfig(**{**BASE, **keywords})
    model = Mamba(config)
    if how == "forward":
        return model, (_sequence(length),), {}
    x = _sequence(1)[:, 0]
    if how in ("step", "step.warm"):
        return Method(model, "step"), (x, _caches(config, warm=how == "step.warm")), {}

    class StepLoop(nn.Module):
        """Recurrent inference over a sequence: ``step()`` once per position from empty caches, the
        outputs stacked (what ``LM.generate`` does on a prompt)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, xs: torch.Tensor) -> torch.Tensor:
            caches = [(None, torch.zeros(xs.size(0), config.d_inner, config.d_conv - 1))
                      for _ in range(config.n_layers)]
            outputs = []
            for t in range(xs.size(1)):
                y, caches = self.model.step(xs[:, t], caches)
                outputs.append(y)
            return torch.stack(outputs, dim=1)

        def entry_points(self) -> list[Any]:
            return [Mamba.step]

    return StepLoop(), (_sequence(length),), {}


def _block(name: str) -> Built:
    import torch
    from mambapy.mamba import MambaBlock, MambaConfig, ResidualBlock, RMSNorm

    from gt_calls import Method

    config = MambaConfig(**BASE)
    x = _sequence()
    if name == "MambaBlock":
        return MambaBlock(config), (x,), {}
    if name == "RMSNorm":
        return RMSNorm(DIM), (x,), {}
    if name == "ResidualBlock":
        return ResidualBlock(config), (x,), {}
    cache = _caches(config, warm=True)[0]
    if name == "ResidualBlock.step":
        return Method(ResidualBlock(config), "step"), (x[:, 0], cache), {}
    block = MambaBlock(config)
    if name == "MambaBlock.step":
        return Method(block, "step"), (x[:, 0], cache), {}
    gen = torch.Generator().manual_seed(5)
    inner, z = (torch.randn(BATCH, SEQ, config.d_inner, generator=gen) for _ in range(2))
    return Method(block, "ssm"), (inner, z), {}


def _pscan(name: str) -> Built:
    import torch
    from mambapy import pscan as pscan_module
    from torch import nn

    from gt_calls import Call

    gen = torch.Generator().manual_seed(6)
    length = {"pscan": 16, "pscan.padded": 12, "pscan.short": 4}.get(name, 16)
    a = torch.rand(BATCH, length, 8, 4, generator=gen)
    x = torch.randn(BATCH, length, 8, 4, generator=gen)
    if name == "pad_npo2":
        return Call(pscan_module.pad_npo2), (x[:, :12],), {}
    if name.startswith("PScan."):  # the in-place sweeps on (B, D, L, N)
        return Call(getattr(pscan_module.PScan, name.split(".")[1])), (a.transpose(2, 1), x.transpose(2, 1)), {}

    class PScanCall(nn.Module):
        """``pscan(A, X)`` (``PScan.apply``), the scan ``MambaBlock.selective_scan`` runs."""

        def forward(self, a_: torch.Tensor, x_: torch.Tensor) -> torch.Tensor:
            return pscan_module.pscan(a_, x_)

        def entry_points(self) -> list[Any]:
            return [pscan_module.PScan.forward, pscan_module.PScan.backward]

    return PScanCall(), (a, x), {}


def _lm(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_calls import Method

    _stub_mamba_ssm()
    from mambapy.lm import LM
    from mambapy.mamba import MambaConfig

    config_keywords, lm_keywords, how, call = LMS[name]
    config = MambaConfig(**{**BASE, **config_keywords})
    model = LM(config, VOCAB, **lm_keywords)
    if how == "forward":
        return model, (_ids(),), {}
    if how == "step":
        return Method(model, "step"), (_ids(1)[:, 0], _caches(config)), {}
    if how == "generate":
        return Method(model, "generate", tokenizer=_CharTokenizer(), prompt="ab", **call), (), {}

    class TrainStep(nn.Module):
        """Next-token cross-entropy over the logits, as the repository's training examples compute it."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            logits = self.model(ids[:, :-1])
            return F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))

        def entry_points(self) -> list[Any]:
            return [LM]

    return TrainStep(), (_ids(SEQ + 1),), {}


def _jamba_config(keywords: dict[str, Any]) -> Any:
    from mambapy.jamba import JambaLMConfig

    return JambaLMConfig(**{**JAMBA_BASE, **keywords})


def _jamba(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from mambapy.jamba import JambaLM, load_balancing_loss
    from torch import nn

    from gt_calls import Method

    keywords, how = JAMBA[name]
    config = _jamba_config(keywords)
    model = JambaLM(config)
    if how == "forward":
        return model, (_ids(),), {}
    if how.startswith("generate"):
        return Method(model, "generate", tokenizer=_CharTokenizer(), prompt="ab", max_tokens=3, top_k=8), (), {}
    caches = [layer.get_empty_cache(BATCH, torch.device("cpu")) for layer in model.jamba.layers]
    if how == "step.warm":  # caches after a first token: attention keys / values, Mamba states
        with torch.no_grad():
            _, caches = model.step(_ids(1, seed=7), caches)
    if how.startswith("step"):
        return Method(model, "step"), (_ids(1), caches), {}

    class TrainStep(nn.Module):
        """Next-token cross-entropy plus 0.01 x ``load_balancing_loss`` over the routers' logits."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            logits, router_logits = self.model(ids[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))
            aux = load_balancing_loss(router_logits, config.num_experts, config.num_experts_per_tok)
            return loss + 0.01 * aux

        def entry_points(self) -> list[Any]:
            return [JambaLM, load_balancing_loss]

    return TrainStep(), (_ids(SEQ + 1),), {}


def _jamba_part(name: str) -> Built:
    import torch
    from mambapy import jamba

    from gt_calls import Call

    config = _jamba_config({})
    x = _sequence()
    if name == "Jamba":
        return jamba.Jamba(config), (x,), {}
    if name == "AttentionLayer.moe":
        return jamba.AttentionLayer(config, num_experts=4), (x,), {}
    if name == "MambaLayer.step":
        layer = jamba.MambaLayer(config, num_experts=4)
        return layer, (x[:, :1], layer.get_empty_cache(BATCH, torch.device("cpu"))), {}
    if name.startswith("MambaLayer"):
        return jamba.MambaLayer(config, num_experts=4 if name.endswith("moe") else 1), (x,), {}
    if name == "AttentionSDPA":
        return jamba.AttentionSDPA(config), (x,), {}
    if name == "AttentionSDPA.cache":  # one new token over cached keys / values of 5 positions
        gen = torch.Generator().manual_seed(8)
        past = tuple(torch.randn(BATCH, 2, 5, DIM // 4, generator=gen) for _ in range(2))
        return jamba.AttentionSDPA(config), (x[:, :1], past), {}
    if name == "SparseMoEBlock":
        return jamba.SparseMoEBlock(config, num_experts=4, num_experts_per_tok=2), (x,), {}
    if name == "SparseMoEBlock.single_expert":
        return jamba.SparseMoEBlock(config, num_experts=1, num_experts_per_tok=1), (x,), {}
    if name == "MLP":
        return jamba.MLP(config), (x,), {}
    gen = torch.Generator().manual_seed(9)
    if name == "load_balancing_loss":  # one dense layer's (B*L, 1) logits among the routed ones, as forward returns
        logits = [torch.randn(BATCH * SEQ, 4, generator=gen), torch.ones(BATCH * SEQ, 1),
                  torch.randn(BATCH * SEQ, 4, generator=gen)]
        return Call(jamba.load_balancing_loss, num_experts=4, num_experts_per_tok=2), (logits,), {}
    return Call(jamba.repeat_kv, n_rep=2), (torch.randn(BATCH, 2, SEQ, 4, generator=gen),), {}


def _vim(name: str) -> Built:
    from mambapy import vim

    from gt_calls import Method

    keywords, how = VIM[name]
    config = vim.MambaConfig(**{**BASE, **keywords})
    if how == "block":
        return vim.VMambaBlock(config), (_sequence(),), {}
    model = vim.VMamba(config)
    if how == "step":
        return Method(model, "step"), (_sequence(1)[:, 0], _caches(config)), {}
    return model, (_sequence(),), {}


def _onnx(name: str) -> Built:
    import torch
    from mambapy.onnx.mamba_lm_onnx import MambaLM, MambaLMConfig
    from mambapy.onnx.mamba_onnx import Mamba, MambaConfig

    from gt_calls import Method

    gen = torch.Generator().manual_seed(10)
    if name == "onnx.MambaLM":
        model = MambaLM(MambaLMConfig(**BASE, vocab_size=60))
        hs, inputs = model.init_caches()
        return model, (_ids(1, batch=1)[:, 0], hs, inputs), {}
    config = MambaConfig(**BASE)
    model = Mamba(config)
    if name != "onnx.Mamba.step":
        return model, (_sequence(),), {}
    hs = torch.randn(config.n_layers, BATCH, config.d_inner, config.d_state, generator=gen) * 0.1
    inputs = torch.randn(config.n_layers, BATCH, config.d_inner, config.d_conv - 1, generator=gen) * 0.1
    return Method(model, "step"), (_sequence(1)[:, 0], hs, inputs), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in MAMBA:
        return _mamba(name)
    if name.startswith("block."):
        return _block(name.split(".", 1)[1])
    if name in PSCAN:
        return _pscan(name)
    if name in LMS:
        return _lm(name)
    if name in JAMBA:
        return _jamba(name)
    if name.startswith("jamba."):
        return _jamba_part(name.split(".", 1)[1])
    if name in VIM:
        return _vim(name)
    return _onnx(name)
