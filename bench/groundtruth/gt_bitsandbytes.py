"""Ground-truth bench, bitsandbytes: quantized layers, the quantization functions and the 8-bit optimizers, on the CPU.

bitsandbytes 0.50.2 runs on the CPU through its ``torch.library`` operators (``bitsandbytes::quantize_4bit``,
``int8_vectorwise_quant``, the blockwise optimizer updates, ...), the default and CPU backends. What users compile
is a quantized model's forward, its QLoRA-style training step and the optimizer's ``step``. The tables cover, at
widths of 64 (blocks of 64), batches of 4 and sequences of 3:

- ``LAYERS``: ``Linear8bitLt`` (fp16 weights quantized on the fly or int8 weights quantized by ``.to``, outlier
  threshold, no bias, sequences, bfloat16 input, state initialized), ``Linear4bit`` (FP4 and NF4, with and without
  compressed statistics, compute dtypes, quant storages, no bias, sequences, bfloat16 and float16 inputs, a single
  row, an input requiring grad, the AVX512-BF16 packed CPU layout that eval mode takes), ``LinearFP4``,
  ``LinearNF4``, the embeddings (``Embedding``, ``StableEmbedding`` with padding and max norm,
  ``Embedding8bit``, ``Embedding4bit``, ``EmbeddingFP4``, ``EmbeddingNF4`` with a width the block divides and one it
  does not), ``OutlierAwareLinear`` subclassed as users must (with and without ``OutlierTracer``), and small models
  built of them: an int8 MLP, a QLoRA MLP (frozen NF4 base, trained low-rank adapter), a tiny transformer language
  model with NF4 (bias-free, as in LLMs) or int8 projections and a ``StableEmbedding``, a model converted by
  ``utils.replace_linear``, and weights quantized by parametrization (``nn.parametrize.replace_parameter_4bit``:
  expert weights of a small mixture of experts, a linear layer's weight);
- ``FUNCTIONS``: ``bitsandbytes.functional`` (blockwise 8-bit quantization with and without nesting and custom
  codes, 4-bit quantization and dequantization of both types, at block sizes, dtypes and quant storages, int8
  vectorwise quantization with and without threshold, int8 matmul and its dequantization, ``gemv_4bit``, the code
  maps ``create_dynamic_map``, ``create_normal_map``, ``create_linear_map``, ``create_fp8_map``, ``get_4bit_type``,
  ``QuantState.as_dict`` / ``from_dict``), ``bnb.matmul`` (inference state, threshold, training) and
  ``bnb.matmul_4bit``, ``utils.find_outlier_dims`` and ``pack_dict_to_tensor``;
- ``OPTIMIZERS``: ``step()`` of each optimizer class (32-bit, 8-bit blockwise, paged; Adam, AdamW, AdEMAMix, Lion,
  SGD, RMSprop, Adagrad, ``PytorchLARS``) on parameters large enough for 8-bit state, and options users
  pick (betas and eps, weight decay, ``optim_bits=8`` on the generic classes, small parameters kept in 32 bits, a
  ``GlobalOptimManager`` override, AdEMAMix's alpha and beta3 schedules, bfloat16 parameters);
- ``TRAIN``: training steps (forward, loss, backward, ``step``): QLoRA with ``PagedAdamW8bit``, a trainable
  ``Linear8bitLt`` with ``Adam8bit``, a ``StableEmbedding`` with ``Adam8bit``, NF4 with a LoRA adapter and
  ``Lion8bit``, the tiny transformer with ``AdamW8bit``, a frozen int8 layer with an adapter and ``SGD``, a
  parametrized 4-bit weight with its bias trained by ``AdamW``.

``Linear8bitLt`` with fp16 weights is kept in training mode in both of the harness's modes (a bench wrapper): its
inference path needs ``int8_double_quant``, which has no CPU kernel. Left out: CUDA-only paths (paged memory
prefetch, ``int8_double_quant``, ``dequantize_4bit`` into ``out``, the cuBLAS context); LAMB and LARS (``LAMB``,
``LARS`` and their 8- and 32-bit classes: Dynamo fails with an internal error running the library's
``optimizer_update_32bit`` operator on fake tensors, so those models cannot run; ``PytorchLARS`` is covered);
``AdEMAMix32bit`` (its CPU update fails on a shape mismatch, eager too); ``StableEmbedding(dtype=...)`` (it hands
``device`` and ``dtype`` to ``nn.Embedding`` in the wrong places); the diagnostics (``python -m bitsandbytes``,
subprocesses) and state-dict loading (not run in a forward).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM, OUT, VOCAB, RANK = 4, 3, 64, 32, 16, 4

LAYERS = (
    "Linear8bitLt.fp16_weights", "Linear8bitLt.int8", "Linear8bitLt.int8.threshold6",
    "Linear8bitLt.fp16_weights.threshold6", "Linear8bitLt.int8.no_bias.seq", "Linear8bitLt.int8.bfloat16_input",
    "Linear8bitLt.int8.init_8bit_state",
    "Linear4bit.fp4", "Linear4bit.nf4", "Linear4bit.nf4.no_compress", "Linear4bit.nf4.compute_bfloat16",
    "Linear4bit.nf4.compute_float32", "Linear4bit.fp4.quant_storage_float32", "Linear4bit.nf4.quant_storage_bfloat16",
    "Linear4bit.nf4.no_bias.seq", "Linear4bit.nf4.bfloat16_input", "Linear4bit.nf4.float16_input",
    "Linear4bit.nf4.single_row", "Linear4bit.nf4.input_requires_grad", "Linear4bit.nf4.cpu_packed",
    "LinearFP4", "LinearNF4",
    "Embedding", "Embedding.padding_idx", "Embedding.max_norm", "StableEmbedding", "StableEmbedding.padding_idx",
    "StableEmbedding.max_norm", "Embedding8bit", "Embedding4bit", "EmbeddingFP4", "EmbeddingNF4", "EmbeddingNF4.dim48",
    "OutlierAwareLinear", "OutlierAwareLinear.traced",
    "int8_mlp", "int8_mlp.threshold6", "qlora_mlp.nf4", "qlora_mlp.fp4.bfloat16", "tiny_lm.nf4", "tiny_lm.int8",
    "replace_linear.nf4", "replace_linear.int8", "replace_parameter_4bit.experts",
    "replace_parameter_4bit.fp4.compressed",
    "replace_parameter_4bit.linear",
)
FUNCTIONS = (
    "quantize_blockwise", "quantize_blockwise.nested", "quantize_blockwise.blocksize4096",
    "quantize_blockwise.unsigned_code", "dequantize_blockwise", "dequantize_blockwise.nested",
    "dequantize_blockwise.absmax_code", "quantize_4bit.fp4", "quantize_4bit.nf4", "quantize_4bit.nf4.compressed",
    "quantize_4bit.nf4.blocksize128", "quantize_4bit.bfloat16", "quantize_4bit.quant_storage_float32",
    "dequantize_4bit.fp4", "dequantize_4bit.nf4.compressed", "dequantize_4bit.nf4.blocksize128",
    "quantize_nf4", "quantize_fp4", "dequantize_nf4", "dequantize_fp4",
    "int8_vectorwise_quant", "int8_vectorwise_quant.threshold", "int8_vectorwise_dequant", "int8_linear_matmul",
    "int8_mm_dequant", "int8_mm_dequant.bias", "gemv_4bit",
    "create_dynamic_map", "create_dynamic_map.unsigned", "create_normal_map", "create_linear_map",
    "create_linear_map.no_zero", "create_fp8_map", "create_fp8_map.e4m3", "get_4bit_type.nf4", "get_4bit_type.fp4",
    "QuantState.as_dict", "QuantState.from_dict",
    "matmul.int8_state", "matmul.threshold", "matmul.training", "matmul_4bit", "matmul_4bit.bias",
    "find_outlier_dims", "find_outlier_dims.topk", "pack_dict_to_tensor",
)
OPTIMIZER_CLASSES = (
    "Adam", "Adam8bit", "Adam32bit", "PagedAdam", "PagedAdam8bit", "AdamW", "AdamW8bit", "AdamW32bit", "PagedAdamW",
    "PagedAdamW8bit", "AdEMAMix", "AdEMAMix8bit", "PagedAdEMAMix", "PagedAdEMAMix8bit", "Lion", "Lion8bit",
    "Lion32bit", "PagedLion", "PagedLion8bit", "SGD", "SGD8bit", "SGD32bit", "RMSprop", "RMSprop8bit", "RMSprop32bit",
    "Adagrad", "Adagrad8bit", "Adagrad32bit", "PytorchLARS",
)
# Optimizer option model name -> (class, keywords).
OPTIMIZER_OPTIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "Adam.optim_bits8": ("Adam", {"optim_bits": 8}),
    "Adam8bit.betas_eps": ("Adam8bit", {"betas": (0.8, 0.95), "eps": 1e-6}),
    "Adam32bit.weight_decay": ("Adam32bit", {"weight_decay": 0.01}),
    "SGD.optim_bits8": ("SGD", {"optim_bits": 8}),
    "AdamW8bit.weight_decay": ("AdamW8bit", {"weight_decay": 0.1}),
    "Adam8bit.small_parameters": ("Adam8bit", {}),
    "Adam8bit.GlobalOptimManager.override": ("Adam8bit", {}),
    "Lion8bit.weight_decay": ("Lion8bit", {"weight_decay": 0.01}),
    "AdEMAMix8bit.schedules": ("AdEMAMix8bit", {"t_alpha": 10, "t_beta3": 10}),
    "AdEMAMix.schedules": ("AdEMAMix", {"t_alpha": 10, "t_beta3": 10}),
    "SGD8bit.nesterov_free": ("SGD8bit", {"momentum": 0.5, "weight_decay": 0.01}),
    "Adam8bit.bfloat16_parameters": ("Adam8bit", {}),
    "Adam32bit.bfloat16_parameters": ("Adam32bit", {}),
}
TRAIN = (
    "train_step.qlora.PagedAdamW8bit", "train_step.Linear8bitLt.fp16_weights.Adam8bit",
    "train_step.StableEmbedding.Adam8bit", "train_step.nf4_lora.Lion8bit", "train_step.tiny_lm.nf4.AdamW8bit",
    "train_step.int8_frozen_lora.SGD", "train_step.replace_parameter_4bit.AdamW",
)


def names() -> list[str]:
    return (list(LAYERS) + [f"functional.{n}" if not n.startswith(("matmul", "find_", "pack_")) else n
                            for n in FUNCTIONS]
            + [f"optim.{n}" for n in OPTIMIZER_CLASSES] + [f"optim.{n}" for n in OPTIMIZER_OPTIONS] + list(TRAIN))


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _x(*shape: int, seed: int = 1, scale: float = 1.0) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed)) * scale


def _tokens(*shape: int, seed: int = 2) -> Any:
    import torch

    return torch.randint(0, VOCAB, shape, generator=_gen(seed))


def _lin8(fp16: bool = True, threshold: float = 0.0, bias: bool = True, din: int = DIM, dout: int = OUT) -> Any:
    import bitsandbytes as bnb

    return bnb.nn.Linear8bitLt(din, dout, bias=bias, has_fp16_weights=fp16, threshold=threshold).to("cpu")


def _lin4(quant_type: str = "nf4", din: int = DIM, dout: int = OUT, **kwargs: Any) -> Any:
    import bitsandbytes as bnb

    return bnb.nn.Linear4bit(din, dout, quant_type=quant_type, **kwargs).to("cpu")


def _always_training() -> Any:
    from torch import nn

    class AlwaysTraining(nn.Module):
        """A ``Linear8bitLt`` with fp16 weights kept in training mode: on the CPU its inference path needs
        ``int8_double_quant``, a CUDA-only operator, so such layers are trained, not served."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def train(self, mode: bool = True) -> Any:
            super().train(mode)
            self.inner.train(True)
            return self

        def forward(self, x: Any) -> Any:
            return self.inner(x)

        def entry_points(self) -> list[Any]:
            import bitsandbytes as bnb

            return [bnb.nn.Linear8bitLt]

    return AlwaysTraining


def _AlwaysTraining(inner: Any) -> Any:  # noqa: N802
    return _always_training()(inner)


def _lora_model(base: Any, din: int = DIM, dout: int = OUT) -> Any:
    """A frozen quantized base layer plus a trained low-rank adapter (QLoRA)."""
    from torch import nn

    class _LoRA(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.base = base
            self.down = nn.Linear(din, RANK, bias=False)
            self.up = nn.Linear(RANK, dout, bias=False)
            nn.init.normal_(self.up.weight, std=0.02)

        def forward(self, x: Any) -> Any:
            return self.base(x) + self.up(self.down(x)) * 2.0

        def entry_points(self) -> list[Any]:
            return [type(base)]

    return _LoRA()


def _mlp(kind: str, **kwargs: Any) -> Any:
    from torch import nn

    make = _lin8 if kind == "int8" else _lin4
    if kind == "int8":
        kwargs.setdefault("fp16", False)
    first, second = make(din=DIM, dout=DIM, **kwargs), make(din=DIM, dout=OUT, **kwargs)

    class _MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(first, nn.GELU(), second)

        def forward(self, x: Any) -> Any:
            return self.net(x)

        def entry_points(self) -> list[Any]:
            return [type(first)]

    return _MLP()


def _tiny_lm(kind: str) -> Any:
    """Token ``StableEmbedding``, one pre-norm attention block and MLP with quantized projections, a head."""
    import torch
    import bitsandbytes as bnb
    from torch import nn

    def proj(din: int, dout: int) -> Any:
        return _lin4("nf4", din, dout, bias=False) if kind == "nf4" else _lin8(False, 0.0, True, din, dout)

    class _TinyLM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = bnb.nn.StableEmbedding(VOCAB, DIM)
            self.norm1, self.norm2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
            self.qkv = proj(DIM, 3 * DIM)
            self.out = proj(DIM, DIM)
            self.up, self.down = proj(DIM, 2 * DIM), proj(2 * DIM, DIM)
            self.head = nn.Linear(DIM, VOCAB)

        def forward(self, tokens: Any) -> Any:
            h = self.embed(tokens)
            b, s, _ = h.shape
            q, k, v = self.qkv(self.norm1(h)).view(b, s, 3, 4, DIM // 4).unbind(2)
            att = torch.nn.functional.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                                                   v.transpose(1, 2), is_causal=True)
            h = h + self.out(att.transpose(1, 2).reshape(b, s, DIM))
            h = h + self.down(torch.nn.functional.gelu(self.up(self.norm2(h))))
            return self.head(h)

        def entry_points(self) -> list[Any]:
            return [bnb.nn.StableEmbedding, type(self.qkv)]

    return _TinyLM()


def _outlier_linear(traced: bool) -> Any:
    import torch
    import bitsandbytes as bnb
    from bitsandbytes.nn import OutlierAwareLinear
    from torch import nn

    class _RoundedOutliers(OutlierAwareLinear):
        """Weights rounded to a grid except the outlier input columns, which stay exact (a user's subclass)."""

        def quantize_weight(self, w: Any, outlier_idx: Any) -> Any:
            q = torch.round(w * 16) / 16
            if outlier_idx is not None and outlier_idx.numel() > 0:
                q[:, outlier_idx] = w[:, outlier_idx]
            return q

        def forward_with_outliers(self, x: Any, outlier_idx: Any) -> Any:
            return nn.functional.linear(x, self.weight, self.bias)

    layer = _RoundedOutliers(DIM, OUT)
    if not traced:
        return layer

    class _Traced(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.first = nn.Linear(DIM, DIM)
            self.second = layer

        def forward(self, x: Any) -> Any:
            return self.second(torch.relu(self.first(x)))

        def entry_points(self) -> list[Any]:
            return [OutlierAwareLinear, bnb.utils.outlier_hook]

    model = _Traced()
    bnb.utils.OutlierTracer.get_instance().initialize(model)
    return model


def _replace_linear(kind: str) -> Any:
    import bitsandbytes as bnb
    from torch import nn

    bias = kind != "nf4"
    model = nn.Sequential(nn.Linear(DIM, DIM, bias=bias), nn.ReLU(), nn.Linear(DIM, OUT, bias=bias))
    if kind == "nf4":
        model = bnb.utils.replace_linear(model, bnb.nn.LinearNF4)
    else:
        model = bnb.utils.replace_linear(model, lambda i, o, b: bnb.nn.Linear8bitLt(i, o, b, has_fp16_weights=False))
    return model.to("cpu")


def _param4bit(name: str) -> Any:
    import torch
    from bitsandbytes.nn.parametrize import Bnb4bitParametrization, replace_parameter_4bit
    from torch import nn

    if name.endswith("linear"):
        layer = nn.Linear(DIM, OUT)
        replace_parameter_4bit(layer, "weight")
        return layer

    class _Experts(nn.Module):
        """Two expert MLP weights as 3-D parameters, a router choosing by softmax weight."""

        def __init__(self) -> None:
            super().__init__()
            self.router = nn.Linear(DIM, 2)
            self.w_in = nn.Parameter(torch.randn(2, DIM, 2 * DIM) * 0.05)
            self.w_out = nn.Parameter(torch.randn(2, 2 * DIM, DIM) * 0.05)

        def forward(self, x: Any) -> Any:
            gates = self.router(x).softmax(-1)
            h = torch.relu(torch.einsum("bd,edh->beh", x, self.w_in))
            return torch.einsum("beh,ehd,be->bd", h, self.w_out, gates)

        def entry_points(self) -> list[Any]:
            return [Bnb4bitParametrization]

    experts = _Experts()
    compressed = name.endswith("compressed")
    for param in ("w_in", "w_out"):
        replace_parameter_4bit(experts, param, compress_statistics=compressed,
                               quant_type="fp4" if compressed else "nf4")
    return experts


def _layer(name: str) -> Built:
    import torch
    import bitsandbytes as bnb

    x = _x(BATCH, DIM)
    if name.startswith("Linear8bitLt"):
        fp16 = "fp16_weights" in name
        layer = _lin8(fp16, 6.0 if "threshold6" in name else 0.0, "no_bias" not in name)
        if "threshold6" in name:
            x = x.clone()
            x[:, 3] *= 20
        if name.endswith("seq"):
            x = _x(2, SEQ, DIM)
        if name.endswith("bfloat16_input"):
            x = x.to(torch.bfloat16)
        if name.endswith("init_8bit_state"):
            layer.init_8bit_state()
        if fp16:
            return _AlwaysTraining(layer), (x,), {}
        return layer, (x,), {}
    if name.startswith(("Linear4bit", "LinearFP4", "LinearNF4")):
        if name in ("LinearFP4", "LinearNF4"):
            layer = getattr(bnb.nn, name)(DIM, OUT).to("cpu")
            return layer, (x,), {}
        kwargs: dict[str, Any] = {}
        if "no_compress" in name:
            kwargs["compress_statistics"] = False
        if "compute_bfloat16" in name:
            kwargs["compute_dtype"] = torch.bfloat16
        if "compute_float32" in name:
            kwargs["compute_dtype"] = torch.float32
        if "quant_storage_float32" in name:
            kwargs["quant_storage"] = torch.float32
        if "quant_storage_bfloat16" in name:
            kwargs["quant_storage"] = torch.bfloat16
        if "no_bias" in name:
            kwargs["bias"] = False
        layer = _lin4(name.split(".")[1], **kwargs)
        if name.endswith("seq"):
            x = _x(2, SEQ, DIM)
        if name.endswith("bfloat16_input"):
            x = x.to(torch.bfloat16)
        if name.endswith("float16_input"):
            x = x.to(torch.float16)
        if name.endswith("single_row"):
            x = _x(1, DIM)
        if name.endswith("input_requires_grad"):
            x = x.requires_grad_()
        if name.endswith("cpu_packed"):
            layer.eval()
            with torch.no_grad():
                layer(x)  # eval mode on an AVX512-BF16 CPU packs the weight for the CPU kernel
        return layer, (x,), {}
    if name.startswith(("Embedding", "StableEmbedding")):
        tokens = _tokens(2, SEQ)
        base = name.split(".")[0]
        if base in ("Embedding", "StableEmbedding"):
            kwargs = {}
            if name.endswith("padding_idx"):
                kwargs["padding_idx"] = 0
                tokens[0, 0] = 0
            if name.endswith("max_norm"):
                kwargs["max_norm"] = 1.0
            return getattr(bnb.nn, base)(VOCAB, 8, **kwargs), (tokens,), {}
        dim = 48 if name.endswith("dim48") else DIM
        return getattr(bnb.nn, base)(VOCAB, dim).to("cpu"), (tokens,), {}
    if name.startswith("OutlierAwareLinear"):
        return _outlier_linear(name.endswith("traced")), (x,), {}
    if name.startswith("int8_mlp"):
        return _mlp("int8", threshold=6.0 if name.endswith("threshold6") else 0.0), (x,), {}
    if name.startswith("qlora_mlp"):
        quant = name.split(".")[1]
        model = _lora_model(_lin4(quant, compute_dtype=torch.bfloat16 if "bfloat16" in name else None))
        return model, (x,), {}
    if name.startswith("tiny_lm"):
        return _tiny_lm(name.split(".")[1]), (_tokens(2, SEQ),), {}
    if name.startswith("replace_linear"):
        return _replace_linear(name.split(".")[1]), (x,), {}
    return _param4bit(name), (x,), {}


def _function(name: str) -> Built:
    import torch
    import bitsandbytes as bnb
    from bitsandbytes import functional as F

    from gt_calls import Call, Run

    x = _x(BATCH, DIM)
    w = _x(OUT, DIM, seed=3)
    if name.startswith("functional."):
        name = name[len("functional."):]
    if name.startswith("quantize_blockwise"):
        if name.endswith("nested"):
            return Call(F.quantize_blockwise, blocksize=64, nested=True), (_x(16, DIM),), {}
        if name.endswith("blocksize4096"):
            return Call(F.quantize_blockwise), (_x(64, DIM),), {}
        if name.endswith("unsigned_code"):
            return Call(F.quantize_blockwise, code=F.create_dynamic_map(signed=False), blocksize=64), \
                (torch.rand(8, DIM, generator=_gen(4)),), {}
        return Call(F.quantize_blockwise, blocksize=64), (x,), {}
    if name.startswith("dequantize_blockwise"):
        if name.endswith("absmax_code"):
            q, state = F.quantize_blockwise(x, blocksize=64)
            return Call(F.dequantize_blockwise, absmax=state.absmax, code=state.code, blocksize=64), (q,), {}
        nested = name.endswith("nested")
        return Run(F.dequantize_blockwise,
                   lambda f, t: f(*F.quantize_blockwise(t, blocksize=64, nested=nested)),
                   [F.quantize_blockwise, F.dequantize_blockwise]), (_x(16, DIM),), {}
    if name.startswith("quantize_4bit"):
        kwargs: dict[str, Any] = {"quant_type": "nf4" if ".nf4" in name else "fp4"}
        if "compressed" in name:
            kwargs["compress_statistics"] = True
        if "blocksize128" in name:
            kwargs["blocksize"] = 128
        if "quant_storage_float32" in name:
            kwargs["quant_storage"] = torch.float32
        inp = w.to(torch.bfloat16) if name.endswith("bfloat16") else w
        return Call(F.quantize_4bit, **kwargs), (inp,), {}
    if name.startswith("dequantize_4bit"):
        if name.endswith("blocksize128"):
            q, state = F.quantize_4bit(w, blocksize=128, quant_type="nf4")
            return Call(F.dequantize_4bit), (q, state), {}
        quant = name.split(".")[1]
        compressed = name.endswith("compressed")
        return Run(F.dequantize_4bit,
                   lambda f, t: f(*F.quantize_4bit(t, compress_statistics=compressed, quant_type=quant)),
                   [F.quantize_4bit, F.dequantize_4bit]), (w,), {}
    if name in ("quantize_nf4", "quantize_fp4"):
        return Call(getattr(F, name), blocksize=64), (w,), {}
    if name in ("dequantize_nf4", "dequantize_fp4"):
        quant = getattr(F, name.replace("de", "", 1))
        return Run(getattr(F, name), lambda f, t: f(*quant(t, blocksize=64)), [quant, getattr(F, name)]), (w,), {}
    if name.startswith("int8_vectorwise_quant"):
        if name.endswith("threshold"):
            xo = x.clone()
            xo[:, 5] *= 20
            return Call(F.int8_vectorwise_quant, threshold=6.0), (xo,), {}
        return Call(F.int8_vectorwise_quant), (x,), {}
    if name == "int8_vectorwise_dequant":
        q, stats, _ = F.int8_vectorwise_quant(x)
        return Call(F.int8_vectorwise_dequant), (q, stats), {}
    qa, sa, _ = F.int8_vectorwise_quant(x)
    qb, sb, _ = F.int8_vectorwise_quant(w)
    if name == "int8_linear_matmul":
        return Call(F.int8_linear_matmul), (qa, qb), {}
    if name.startswith("int8_mm_dequant"):
        acc = F.int8_linear_matmul(qa, qb)
        if name.endswith("bias"):
            return Call(F.int8_mm_dequant), (acc, sa, sb, None, _x(OUT, seed=5)), {}
        return Call(F.int8_mm_dequant), (acc, sa, sb), {}
    if name == "gemv_4bit":
        q, state = F.quantize_4bit(w, quant_type="nf4", blocksize=64)
        return Run(F.gemv_4bit, lambda f, a, b: f(a, b.t(), state=state), [F.gemv_4bit]), (_x(1, DIM), q), {}
    if name.startswith("create_dynamic_map"):
        return Call(F.create_dynamic_map, signed=not name.endswith("unsigned")), (), {}
    if name == "create_normal_map":
        return Call(F.create_normal_map), (), {}
    if name.startswith("create_linear_map"):
        return Call(F.create_linear_map, add_zero=not name.endswith("no_zero"), total_bits=4), (), {}
    if name.startswith("create_fp8_map"):
        if name.endswith("e4m3"):
            return Call(F.create_fp8_map, exponent_bits=4, precision_bits=3), (), {}
        return Call(F.create_fp8_map), (), {}
    if name.startswith("get_4bit_type"):
        return Run(F.get_4bit_type, lambda f, t: t * f(name.split(".")[1], device="cpu"), [F.get_4bit_type]), \
            (torch.ones(16),), {}
    if name == "QuantState.as_dict":
        _, state = F.quantize_4bit(w, compress_statistics=True, quant_type="nf4")
        return Run(state, lambda s, t: (t + 1, s.as_dict(packed=True)), [F.QuantState.as_dict]), (x,), {}
    if name == "QuantState.from_dict":
        _, state = F.quantize_4bit(w, quant_type="nf4")
        packed = {k: v for k, v in state.as_dict(packed=True).items()}

        def rebuild(cls: Any, absmax: Any) -> Any:
            qs = dict(packed, absmax=absmax)
            return cls.from_dict(qs, torch.device("cpu")).absmax * 2

        return Run(F.QuantState, rebuild, [F.QuantState.from_dict]), (state.absmax,), {}
    if name.startswith("matmul_4bit"):
        q, state = F.quantize_4bit(w, quant_type="nf4")
        bias = _x(OUT, seed=6) if name.endswith("bias") else None
        return Run(bnb.matmul_4bit, lambda f, a, b: f(a, b.t(), quant_state=state, bias=bias), [bnb.matmul_4bit]), \
            (x, q), {}
    if name.startswith("matmul"):
        state = bnb.MatmulLtState()
        if name.endswith("training"):
            state.is_training = True
            return Run(bnb.matmul, lambda f, a, b: f(a, b, state=state), [bnb.matmul]), \
                (x.requires_grad_(), w.requires_grad_()), {}
        if name.endswith("threshold"):
            xo = x.clone()
            xo[:, 7] *= 20
            return Run(bnb.matmul, lambda f, a, b: f(a, b, threshold=6.0), [bnb.matmul]), (xo, w.half()), {}
        state.has_fp16_weights = False
        state.CB, state.SCB = qb, sb
        return Run(bnb.matmul, lambda f, a, b: f(a, b, state=state), [bnb.matmul]), (x, qb), {}
    if name.startswith("find_outlier_dims"):
        weight = _x(DIM, DIM, seed=8)
        weight[:, 9] *= 30
        if name.endswith("topk"):
            return Call(bnb.utils.find_outlier_dims, topk=3), (weight,), {}
        return Call(bnb.utils.find_outlier_dims), (weight,), {}
    return Run(bnb.utils.pack_dict_to_tensor, lambda f, t: (t * 2, f({"quant_type": "nf4", "blocksize": 64})),
               [bnb.utils.pack_dict_to_tensor]), (x,), {}


def _optimizer(name: str) -> Built:
    import torch
    import bitsandbytes as bnb
    from torch import nn

    from gt_calls import OptimizerStep

    cls_name, kwargs = OPTIMIZER_OPTIONS.get(name, (name, {}))
    kwargs = dict(kwargs)
    if cls_name.startswith(("SGD", "LARS", "PytorchLARS")):
        kwargs.setdefault("momentum", 0.9)
    small = name.endswith("small_parameters")
    net = nn.Linear(16, 8) if small else nn.Linear(DIM, 80)  # 5,120 weights: above the 4,096 of 8-bit state
    if name.endswith("bfloat16_parameters"):
        net = net.to(torch.bfloat16)
    if name.endswith("GlobalOptimManager.override"):
        manager = bnb.optim.GlobalOptimManager.get_instance()
        manager.register_parameters(net.parameters())
        manager.override_config(net.weight, "optim_bits", 32)
    optimizer = getattr(bnb.optim, cls_name)(net.parameters(), lr=1e-3, **kwargs)
    grads = tuple(torch.randn(p.shape, generator=_gen(10 + i)).to(p.dtype) for i, p in enumerate(net.parameters()))
    return OptimizerStep(net, optimizer), grads, {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    import bitsandbytes as bnb
    from torch import nn

    from gt_calls import OptimizerStep

    x = _x(BATCH, DIM)
    target = _x(BATCH, OUT, seed=9)
    tokens = _tokens(2, SEQ)
    if name == "train_step.qlora.PagedAdamW8bit":
        model = _mlp("nf4")
        lora = _lora_model(model, OUT, OUT)
        lora.down, lora.up = nn.Linear(DIM, RANK, bias=False), nn.Linear(RANK, OUT, bias=False)
        net = nn.ModuleDict({"base": model, "down": lora.down, "up": lora.up})
        optimizer = bnb.optim.PagedAdamW8bit([lora.down.weight, lora.up.weight], lr=1e-3)

        def loss(inp: Any) -> Any:
            return F.mse_loss(model(inp) + lora.up(lora.down(inp)), target)
    elif name == "train_step.Linear8bitLt.fp16_weights.Adam8bit":
        net = _AlwaysTraining(nn.Sequential(_lin8(True, 0.0, True, DIM, 80), nn.ReLU(),
                                            _lin8(True, 0.0, True, 80, OUT)))
        optimizer = bnb.optim.Adam8bit(net.parameters(), lr=1e-3)

        def loss(inp: Any) -> Any:
            return F.mse_loss(net(inp), target)
    elif name == "train_step.StableEmbedding.Adam8bit":
        net = nn.Sequential(bnb.nn.StableEmbedding(512, 16), nn.Linear(16, VOCAB))
        optimizer = bnb.optim.Adam8bit(net.parameters(), lr=1e-3)
        labels = _tokens(2, SEQ, seed=4)

        def loss(inp: Any) -> Any:
            return F.cross_entropy(net(inp).flatten(0, 1), labels.flatten())

        step = OptimizerStep(net, optimizer, loss)
        step.entry_points = lambda: [bnb.nn.StableEmbedding, type(optimizer).step]  # type: ignore[method-assign]
        return step, (tokens,), {}
    elif name == "train_step.nf4_lora.Lion8bit":
        net = _lora_model(_lin4("nf4", DIM, 96), DIM, 96)
        net.down = nn.Linear(DIM, 96, bias=False)
        net.up = nn.Linear(96, 96, bias=False)
        optimizer = bnb.optim.Lion8bit([p for p in net.parameters() if p.requires_grad], lr=1e-4)
        target = _x(BATCH, 96, seed=9)

        def loss(inp: Any) -> Any:
            return F.mse_loss(net(inp), target)
    elif name == "train_step.tiny_lm.nf4.AdamW8bit":
        net = _tiny_lm("nf4")
        optimizer = bnb.optim.AdamW8bit([p for p in net.parameters() if p.requires_grad], lr=1e-3)
        labels = _tokens(2, SEQ, seed=4)

        def loss(inp: Any) -> Any:
            return F.cross_entropy(net(inp).flatten(0, 1), labels.flatten())

        step = OptimizerStep(net, optimizer, loss)
        step.entry_points = lambda: net.entry_points() + [type(optimizer).step]  # type: ignore[method-assign]
        return step, (tokens,), {}
    elif name == "train_step.int8_frozen_lora.SGD":
        net = _lora_model(_lin8(False))
        optimizer = bnb.optim.SGD([p for n, p in net.named_parameters() if not n.startswith("base.")], lr=1e-2,
                                  momentum=0.9)

        def loss(inp: Any) -> Any:
            return F.mse_loss(net(inp), target)
    else:
        net = _param4bit("replace_parameter_4bit.linear")
        optimizer = bnb.optim.AdamW([net.bias], lr=1e-3)

        def loss(inp: Any) -> Any:
            return F.mse_loss(net(inp), target)

    step = OptimizerStep(net, optimizer, loss)
    entered = net.entry_points() if hasattr(net, "entry_points") else [type(net)]
    step.entry_points = lambda: entered + [type(optimizer).step]  # type: ignore[method-assign]
    return step, (x,), {}


def build(name: str) -> Built:
    import logging
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    logging.getLogger("bitsandbytes").setLevel(logging.ERROR)
    torch.manual_seed(0)
    if name in LAYERS:
        return _layer(name)
    if name.startswith("optim."):
        return _optimizer(name[len("optim."):])
    if name in TRAIN:
        return _train(name)
    if name in names():
        return _function(name)
    raise KeyError(name)
