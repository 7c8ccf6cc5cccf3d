"""Ground-truth bench, torchao: quantization, quantization-aware and low-precision training, low-bit optimizers,
sparsity, NF4 and the library's own llama, all on the CPU.

torchao 0.10.0 is mostly tensor subclasses that a user puts into a model with ``quantize_`` (or ``sparsify_``,
``convert_to_float8_training``, a quantizer's ``prepare`` / ``convert``) and then compiles. The tables cover, on a
small MLP (64 -> 128 -> 64, a batch of 2; bfloat16 where a layout asks for it) and a two-layer llama of width 64:

- ``QUANT``: ``quantize_`` with the configs that run on a CPU: int8 weight-only (per channel and per group),
  int8 dynamic activation with int8 weights (symmetric and asymmetric activations, decode-only weights), int8
  dynamic activation with int4 weights, int4 weight-only in the CPU layout (with HQQ too), uintx weight-only (2, 4
  and 6 bits, with HQQ), float8 weight-only (float32 and bfloat16), AWQ's observed calibration
  and its 3-bit quantized linears, smoothquant before and after calibration, the GPTQ module's plain
  int8-dynamic-activation int4 quantizer and its linear, ``WeightOnlyInt8QuantLinear``, a weight made
  activation-quantized by hand, and ``autoquant`` left unfinalized; quantized MLPs and quantized llamas' prefill
  and decode;
- ``QAT``: ``intx_quantization_aware_training`` with fake-quantize configs (per-token int8 activations; int4
  weights per group of 32 or 64, symmetric or not, float zero points; int8 weights per group; embeddings), the
  legacy QAT quantizers (8da4w and int4 weight-only linears, int4 embeddings, composed), ``FakeQuantizer`` alone,
  ``from_intx_quantization_aware_training``, the quantizers' convert step, each as forwards and training steps
  (loss, backward, SGD);
- ``TRAIN``: low-precision training: float8 training linears (tensorwise, rowwise recipes, also in the llama), MX
  linears (emulated mxfp8 with a step, mxfp4 forward; MX inference linears), int8 weight-only quantized training,
  int8 mixed-precision training (also in the llama), BitNet training, a QLoRA layer over an NF4 weight,
  ``SupermaskLinear``; forwards and steps;
- ``OPTIM``: one ``optimizer.step()`` of the low-bit optimizers (Adam / AdamW in 8 bits, 4 bits and float8,
  ``_AdamW`` with bfloat16 stochastic rounding), PARQ's ``QuantOptimizer`` (hard-quant and PARQ prox maps, uniform
  and LSBQ quantizers);
- ``SPARSE``: the Wanda and weight-norm sparsifiers' parametrized forwards (calibration, a step, squashed
  masks), ``apply_fake_sparsity``;
- ``LLAMA``: ``torchao._models.llama``'s ``Transformer`` (training forward, cached prefill and one-token decode,
  grouped-query heads, quantized KV cache, linear causal mask), its blocks and pieces, the generate loop's
  ``prefill`` / ``decode_one_token`` / ``sample``, spinquant's rotated model;
- ``PRIMS``: the quantization primitives (``choose_qparams_affine``, ``quantize_affine`` / ``dequantize_affine``,
  ``fake_quantize_affine``, HQQ, floatx), NF4 conversions, ``int_scaled_matmul`` / ``safe_int_mm``,
  ``compute_error``, ``quantize_int8_rowwise``, MX tensors' casts.

Left out: what needs CUDA (tensor-core tiled int4, so AWQ's 4-bit path, Marlin, semi-structured and block-sparse
weights, cutlass, gemlite, fpx, float8 dynamic and static activation quantization, which assert a CUDA device of
compute capability 8.9, CPU offloading of optimizers, triton kernels: ``float8nocompile``, GaLore, int8 mm),
emulated mxfp4 training (its backward fails in eager on these shapes), codebook quantization (prototype; Dynamo
fails with internal errors inside it, on its weights and on its quantize-dequantize), autoquant's finalizing
(it benchmarks candidate kernels), SAM / SAM 2 (large image models, out of this builder's time), AutoRound
(its ``auto_round`` package is not installed), the module-swap and mixed-precision scripts (calibration on text
data), distributed float8 (FSDP, tensor parallel).

Random weights and inputs from fixed seeds, nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

DIM, HID, BATCH = 64, 128, 2

QUANT = (
    "int8_weight_only", "int8_weight_only.group32", "int8_weight_only.bf16",
    "int8_dyn_act_int8_weight", "int8_dyn_act_int8_weight.asymmetric", "int8_dyn_act_int8_weight.decode",
    "int8_dyn_act_int4_weight", "int8_dyn_act_int4_weight.asymmetric",
    "int4_weight_only.cpu_layout", "int4_weight_only.cpu_layout.hqq",
    "uintx_weight_only.uint4", "uintx_weight_only.uint2", "uintx_weight_only.uint6.hqq",
    "float8_weight_only", "float8_weight_only.bf16", "awq.calibrate", "awq.quantized",
    "smoothquant.calibrate", "smoothquant.inference",
    "Int8DynActInt4WeightQuantizer", "Int8DynActInt4WeightLinear", "WeightOnlyInt8QuantLinear",
    "autoquant.unfinalized", "to_linear_activation_quantized", "llama.int8_weight_only.prefill",
    "llama.int8_dyn_act_int8_weight.prefill", "llama.int8_dyn_act_int4_weight.decode",
)
QAT = (
    "qat.8da4w", "qat.8da4w.train", "qat.int4_weight.train", "qat.group64.asymmetric.train",
    "qat.float_zero_point.train", "qat.int8_weight.group16.train", "qat.embedding.int4.train",
    "qat.from_intx", "legacy.Int8DynActInt4WeightQATQuantizer", "legacy.Int8DynActInt4WeightQATQuantizer.train",
    "legacy.Int8DynActInt4WeightQATQuantizer.disabled", "legacy.Int8DynActInt4WeightQATQuantizer.convert",
    "legacy.Int4WeightOnlyQATQuantizer.train", "legacy.Int4WeightOnlyEmbeddingQATQuantizer.train",
    "legacy.ComposableQATQuantizer.train", "FakeQuantizer.per_token", "FakeQuantizer.per_group",
    "llama.qat.8da4w.train",
)
TRAIN = (
    "float8.tensorwise", "float8.tensorwise.train", "float8.rowwise.train", "float8.rowwise_with_gw_hp.train",
    "mx.mxfp8_emulated", "mx.mxfp8_emulated.train", "mx.mxfp4_emulated", "mx.inference.mxfp8", "mx.inference.mxfp4",
    "int8_quantized_training", "int8_quantized_training.train", "int8_mixed_precision", "int8_mixed_precision.train",
    "bitnet", "bitnet.train", "nf4.qlora", "nf4.qlora.train", "SupermaskLinear", "SupermaskLinear.train",
    "llama.float8.train", "llama.int8_mixed_precision.train",
)
OPTIM = (
    "AdamW8bit", "Adam8bit.block_size_128", "AdamW4bit", "Adam4bit", "AdamWFp8", "AdamFp8", "_AdamW.bf16_sr",
    "AdamW8bit.train", "AdamW4bit.train", "parq.ProxHardQuant.UnifQuantizer", "parq.ProxPARQ.LSBQuantizer",
    "parq.ProxBinaryRelax.per_channel",
)
SPARSE = (
    "WandaSparsifier.calibrate", "WandaSparsifier.squashed", "WeightNormSparsifier",
    "WeightNormSparsifier.train", "apply_fake_sparsity",
)
LLAMA = (
    "llama.train", "llama.prefill", "llama.decode", "llama.gqa.prefill", "llama.quantized_kv_cache.decode",
    "llama.linear_causal_mask.prefill", "llama.linear_causal_mask.decode", "llama.tied.scaled_rope.train",
    "llama.TransformerBlock", "llama.Attention", "llama.FeedForward", "llama.RMSNorm", "llama.KVCache.update",
    "llama.apply_rotary_emb", "llama.precompute_freqs_cis", "generate.prefill", "generate.decode_one_token",
    "generate.decode_n_tokens", "generate.sample.top_k", "generate.logits_to_probs", "llama.train_step.adamw",
    "spinquant.llama",
)
PRIMS = (
    "choose_qparams_affine", "quantize_affine", "dequantize_affine", "quantize_dequantize.asymmetric",
    "fake_quantize_affine", "fake_quantize_affine_cachemask", "choose_qparams_and_quantize_affine_hqq",
    "quantize_affine_floatx", "choose_qparams_affine_with_min_max",
    "to_nf4", "nf4.dequantize", "linear_nf4", "int_scaled_matmul", "safe_int_mm", "compute_error",
    "quantize_int8_rowwise", "MXTensor.mxfp8", "MXTensor.mxfp4", "to_affine_quantized_intx",
)


def names() -> list[str]:
    return [*QUANT, *QAT, *TRAIN, *OPTIM, *SPARSE, *LLAMA, *PRIMS]


def _randn(*shape: int, seed: int = 1, dtype: Any = None) -> Any:
    import torch

    t = torch.randn(*shape, generator=torch.Generator().manual_seed(seed))
    return t if dtype is None else t.to(dtype)


def _mlp(dtype: Any = None, bias: bool = True) -> Any:
    from torch import nn

    net = nn.Sequential(nn.Linear(DIM, HID, bias=bias), nn.ReLU(), nn.Linear(HID, DIM, bias=bias))
    return net if dtype is None else net.to(dtype)


def _llama_args(**changes: Any) -> Any:
    from torchao._models.llama.model import ModelArgs

    kwargs = {"block_size": 32, "vocab_size": 96, "n_layer": 2, "n_head": 4, "dim": DIM, "intermediate_size": HID}
    kwargs.update(changes)
    return ModelArgs(**kwargs)


def _llama(**changes: Any) -> Any:
    from torchao._models.llama.model import Transformer

    return Transformer(_llama_args(**changes))


def _tokens(length: int = 6, batch: int = 1, seed: int = 3) -> Any:
    import torch

    return torch.randint(0, 96, (batch, length), generator=torch.Generator().manual_seed(seed))


class _Steps:
    """A loss over ``net``'s output, its backward and an optimizer step, for the ``Run`` wrapper."""

    def __init__(self, optimizer: Any, target: Any = None, after: Any = None) -> None:
        self.optimizer, self.target, self.after = optimizer, target, after

    def __call__(self, owner: Any, *inputs: Any) -> Any:
        import torch
        import torch.nn.functional as F

        out = owner(*inputs)
        if self.target is None:
            loss = out.float().pow(2).mean()
        else:
            loss = F.cross_entropy(out.flatten(0, -2).float(), self.target.flatten())
        if torch.is_grad_enabled():
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if self.after is not None:
                self.after()
        return loss


def _train(model: Any, inputs: tuple[Any, ...], entries: list[Any], optimizer: Any = None, target: Any = None,
           after: Any = None) -> Built:
    import torch

    from gt_calls import Run

    if optimizer is None:
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
    return Run(model, _Steps(optimizer, target, after), entries), inputs, {}


# ---------------------------------------------------------------------------------------------------- quantize_


def _config(key: str) -> Any:
    import torch
    import torchao.quantization as q
    from torchao.dtypes import Int4CPULayout
    from torchao.quantization.quant_primitives import MappingType

    if key == "int8_weight_only":
        return q.Int8WeightOnlyConfig()
    if key == "int8_weight_only.group32":
        return q.Int8WeightOnlyConfig(group_size=32)
    if key == "int8_dyn_act_int8_weight":
        return q.Int8DynamicActivationInt8WeightConfig()
    if key == "int8_dyn_act_int8_weight.asymmetric":
        return q.Int8DynamicActivationInt8WeightConfig(act_mapping_type=MappingType.ASYMMETRIC)
    if key == "int8_dyn_act_int8_weight.decode":
        return q.Int8DynamicActivationInt8WeightConfig(weight_only_decode=True)
    if key == "int8_dyn_act_int4_weight":
        return q.Int8DynamicActivationInt4WeightConfig(group_size=32)
    if key == "int8_dyn_act_int4_weight.asymmetric":
        return q.Int8DynamicActivationInt4WeightConfig(group_size=32, mapping_type=MappingType.ASYMMETRIC)
    if key == "int4_weight_only.cpu_layout":
        return q.Int4WeightOnlyConfig(group_size=32, layout=Int4CPULayout())
    if key == "int4_weight_only.cpu_layout.hqq":
        return q.Int4WeightOnlyConfig(group_size=32, layout=Int4CPULayout(), use_hqq=True)
    if key == "uintx_weight_only.uint4":
        return q.UIntXWeightOnlyConfig(torch.uint4, group_size=32)
    if key == "uintx_weight_only.uint2":
        return q.UIntXWeightOnlyConfig(torch.uint2, group_size=32)
    if key == "uintx_weight_only.uint6.hqq":
        return q.UIntXWeightOnlyConfig(torch.uint6, group_size=32, use_hqq=True)
    if key == "float8_weight_only":
        return q.Float8WeightOnlyConfig()
    raise KeyError(key)


_BF16 = ("int8_weight_only.bf16", "int4_weight_only.cpu_layout", "int4_weight_only.cpu_layout.hqq",
         "float8_weight_only.bf16", "uintx_weight_only.uint6.hqq")


def _quant(name: str) -> Built:
    import torch
    from torchao.quantization import quantize_

    from gt_calls import Run

    bf16 = name in _BF16
    dtype = torch.bfloat16 if bf16 else None
    x = _randn(BATCH, DIM, dtype=dtype)
    if name.startswith("llama."):
        key = name.split(".")[1]
        model = _llama()
        model.setup_caches(1, 16)
        quantize_(model, _config(key))
        if name.endswith("decode"):
            return model, (_tokens(1), torch.tensor([4])), {}
        return model, (_tokens(6), torch.arange(6)), {}
    if name == "awq.calibrate" or name == "awq.quantized":
        from torchao.prototype.awq import awq_uintx, insert_awq_observer_
        from torchao.prototype.awq.core import AWQObservedLinear

        model = _mlp()
        insert_awq_observer_(model, 2, 4, quant_dtype=torch.uint3, scale_search_space_size=4, group_size=32)
        calib = _randn(2, 4, DIM, seed=5)
        if name == "awq.calibrate":
            return Run(model, lambda owner, t: owner(t), [AWQObservedLinear]), (calib[:1],), {}
        with torch.no_grad():
            for example in calib:
                model(example[None])
        quantize_(model, awq_uintx(quant_dtype=torch.uint3, group_size=32, set_inductor_config=False),
                  lambda m, fqn: isinstance(m, AWQObservedLinear))
        return model, (x,), {}
    if name.startswith("smoothquant"):
        from torchao.quantization.smoothquant import (
            SmoothFakeDynamicallyQuantizedLinear,
            smooth_fq_linear_to_inference,
            swap_linear_with_smooth_fq_linear,
        )

        model = _mlp()
        swap_linear_with_smooth_fq_linear(model)
        if name == "smoothquant.calibrate":
            return Run(model, lambda owner, t: owner(t), [SmoothFakeDynamicallyQuantizedLinear]), (x,), {}
        with torch.no_grad():
            model(_randn(4, DIM, seed=6))
        smooth_fq_linear_to_inference(model)
        return Run(model, lambda owner, t: owner(t), [SmoothFakeDynamicallyQuantizedLinear]), (x,), {}
    if name == "Int8DynActInt4WeightQuantizer":
        from torchao.quantization.GPTQ import Int8DynActInt4WeightLinear, Int8DynActInt4WeightQuantizer

        model = Int8DynActInt4WeightQuantizer(groupsize=32).quantize(_mlp())
        return Run(model, lambda owner, t: owner(t), [Int8DynActInt4WeightLinear]), (x,), {}
    if name == "Int8DynActInt4WeightLinear":
        from torchao.quantization.GPTQ import Int8DynActInt4WeightLinear

        return Int8DynActInt4WeightLinear(DIM, HID, bias=False, groupsize=32), (x,), {}
    if name == "WeightOnlyInt8QuantLinear":
        from torchao.quantization.weight_only import WeightOnlyInt8QuantLinear

        w = torch.randint(-127, 127, (DIM, HID), dtype=torch.int8, generator=torch.Generator().manual_seed(2))
        scales = torch.rand(HID, generator=torch.Generator().manual_seed(3)) * 0.01
        return WeightOnlyInt8QuantLinear(DIM, HID, bias=True, w_int8=w, scales=scales), (x,), {}
    if name == "autoquant.unfinalized":
        from torchao.quantization.autoquant import AutoQuantizableLinearWeight, autoquant

        model = autoquant(_mlp(), manual=True, set_inductor_config=False)
        return Run(model, lambda owner, t: owner(t), [AutoQuantizableLinearWeight]), (x,), {}
    if name == "to_linear_activation_quantized":
        from torchao.dtypes import to_affine_quantized_intx
        from torchao.quantization import LinearActivationQuantizedTensor, to_linear_activation_quantized
        from torchao.quantization.quant_api import _int8_symm_per_token_quant
        from torchao.quantization.quant_primitives import MappingType

        linear = torch.nn.Linear(DIM, HID)
        weight = to_affine_quantized_intx(linear.weight.detach(), MappingType.SYMMETRIC, (1, DIM), torch.int8)
        linear.weight = torch.nn.Parameter(
            to_linear_activation_quantized(weight, _int8_symm_per_token_quant), requires_grad=False)
        return Run(linear, lambda owner, t: owner(t), [LinearActivationQuantizedTensor]), (x,), {}
    key = name.removesuffix(".bf16") if name in ("int8_weight_only.bf16", "float8_weight_only.bf16") else name
    model = _mlp(dtype)
    quantize_(model, _config(key))
    return model, (x,), {}


# ---------------------------------------------------------------------------------------------------- QAT


def _qat(name: str) -> Built:
    import torch
    from torchao.quantization import quantize_
    from torchao.quantization.qat import (
        FakeQuantizeConfig,
        FromIntXQuantizationAwareTrainingConfig,
        IntXQuantizationAwareTrainingConfig,
    )
    from torchao.quantization.qat.embedding import FakeQuantizedEmbedding
    from torchao.quantization.qat.fake_quantizer import FakeQuantizer
    from torchao.quantization.qat.linear import FakeQuantizedLinear

    from gt_calls import Run

    x = _randn(BATCH, DIM)
    act = FakeQuantizeConfig(torch.int8, "per_token", is_symmetric=False)
    int4 = FakeQuantizeConfig(torch.int4, group_size=32)
    if name.startswith("FakeQuantizer"):
        if name == "FakeQuantizer.per_token":
            return FakeQuantizer(act), (_randn(BATCH, 3, DIM),), {}
        return FakeQuantizer(FakeQuantizeConfig(torch.int4, group_size=16)), (_randn(HID, DIM),), {}
    if name == "llama.qat.8da4w.train":
        model = _llama()
        model.setup_caches(1, 16, training=True)
        quantize_(model, IntXQuantizationAwareTrainingConfig(act, int4))
        tokens = _tokens(7, batch=2)
        return _train(model, (tokens[:, :-1],), [type(model), FakeQuantizedLinear], target=tokens[:, 1:])
    if name.startswith("qat.embedding"):
        model = torch.nn.Sequential(torch.nn.Embedding(96, DIM), torch.nn.Linear(DIM, 8))
        quantize_(model, IntXQuantizationAwareTrainingConfig(weight_config=int4),
                  lambda m, fqn: isinstance(m, torch.nn.Embedding))
        return _train(model, (_tokens(5, batch=2),), [FakeQuantizedEmbedding])
    if name.startswith("qat."):
        configs = {
            "qat.8da4w": (act, int4),
            "qat.int4_weight": (None, int4),
            "qat.group64.asymmetric": (act, FakeQuantizeConfig(torch.int4, group_size=64, is_symmetric=False)),
            "qat.float_zero_point": (None, FakeQuantizeConfig(
                torch.int4, group_size=32, is_symmetric=False,
                zero_point_domain=__import__("torchao").quantization.quant_primitives.ZeroPointDomain.FLOAT,
                scale_precision=torch.float32, zero_point_precision=torch.float32)),
            "qat.int8_weight.group16": (act, FakeQuantizeConfig(torch.int8, group_size=16)),
            "qat.from_intx": (act, int4),
        }
        activations, weights = configs[name.removesuffix(".train")]
        model = _mlp()
        quantize_(model, IntXQuantizationAwareTrainingConfig(activations, weights))
        if name == "qat.from_intx":
            quantize_(model, FromIntXQuantizationAwareTrainingConfig())
            return model, (x,), {}
        if name.endswith(".train"):
            return _train(model, (x,), [FakeQuantizedLinear])
        return Run(model, lambda owner, t: owner(t), [FakeQuantizedLinear]), (x,), {}
    from torchao.quantization.qat import (
        ComposableQATQuantizer,
        Int4WeightOnlyEmbeddingQATQuantizer,
        Int4WeightOnlyQATQuantizer,
        Int8DynActInt4WeightQATQuantizer,
    )
    from torchao.quantization.qat import linear as qat_linear

    if name.startswith("legacy.Int8DynActInt4WeightQATQuantizer"):
        quantizer = Int8DynActInt4WeightQATQuantizer(groupsize=32)
        model = quantizer.prepare(_mlp())
        if name.endswith("train"):
            return _train(model, (x,), [qat_linear.Int8DynActInt4WeightQATLinear])
        if name.endswith("disabled"):
            model.apply(qat_linear.disable_8da4w_fake_quant)
        if name.endswith("convert"):
            from torchao.quantization.GPTQ import Int8DynActInt4WeightLinear

            model = quantizer.convert(model)
            return Run(model, lambda owner, t: owner(t), [Int8DynActInt4WeightLinear]), (x,), {}
        return Run(model, lambda owner, t: owner(t), [qat_linear.Int8DynActInt4WeightQATLinear]), (x,), {}
    if name == "legacy.Int4WeightOnlyQATQuantizer.train":
        model = Int4WeightOnlyQATQuantizer(groupsize=32, inner_k_tiles=2).prepare(_mlp(bias=False))
        return _train(model, (x,), [qat_linear.Int4WeightOnlyQATLinear])
    from torchao.quantization.qat.embedding import Int4WeightOnlyQATEmbedding

    model = torch.nn.Sequential(torch.nn.Embedding(96, DIM), torch.nn.Linear(DIM, DIM, bias=False))
    if name == "legacy.Int4WeightOnlyEmbeddingQATQuantizer.train":
        model = Int4WeightOnlyEmbeddingQATQuantizer(group_size=32).prepare(model)
        return _train(model, (_tokens(5, batch=2),), [Int4WeightOnlyQATEmbedding])
    model = ComposableQATQuantizer([Int4WeightOnlyEmbeddingQATQuantizer(group_size=32),
                                    Int8DynActInt4WeightQATQuantizer(groupsize=32)]).prepare(model)
    return _train(model, (_tokens(5, batch=2),), [Int4WeightOnlyQATEmbedding, qat_linear.Int8DynActInt4WeightQATLinear])


# ---------------------------------------------------------------------------------------------------- training


def _low_precision(name: str) -> Built:
    import torch

    from gt_calls import Run

    x = _randn(BATCH, DIM)
    train = name.endswith(".train")
    base = name.removesuffix(".train")
    if base.startswith("llama."):
        model = _llama()
        model.setup_caches(2, 16, training=True)
        tokens = _tokens(7, batch=2)
        if base == "llama.float8":
            from torchao.float8 import convert_to_float8_training
            from torchao.float8.float8_linear import Float8Linear

            convert_to_float8_training(model, module_filter_fn=lambda m, fqn: fqn != "output")
            entry: Any = Float8Linear
        else:
            from torchao.prototype.quantized_training import (
                Int8MixedPrecisionTrainingLinearWeight,
                int8_mixed_precision_training,
            )
            from torchao.quantization import quantize_

            quantize_(model.layers, int8_mixed_precision_training())
            entry = Int8MixedPrecisionTrainingLinearWeight
        return _train(model, (tokens[:, :-1],), [type(model), entry], target=tokens[:, 1:])
    if base.startswith("float8"):
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training
        from torchao.float8.float8_linear import Float8Linear

        recipe = base.split(".")[1]
        config = Float8LinearConfig.from_recipe_name(recipe)
        model = _mlp(torch.bfloat16 if recipe != "tensorwise" else None)
        x = x.to(torch.bfloat16) if recipe != "tensorwise" else x
        convert_to_float8_training(model, config=config)
        entries: list[Any] = [Float8Linear]
    elif base.startswith("mx."):
        from torchao.prototype.mx_formats import MXInferenceLinearConfig, MXLinearConfig, MXLinearRecipeName
        from torchao.prototype.mx_formats.mx_linear import MXInferenceLinear, MXLinear
        from torchao.quantization import quantize_

        model = _mlp()
        if base.startswith("mx.inference"):
            from torchao.prototype.mx_formats.constants import DTYPE_FP4

            quantize_(model, MXInferenceLinearConfig(elem_dtype=DTYPE_FP4 if base.endswith("4") else
                                                     torch.float8_e4m3fn))
            entries = [MXInferenceLinear]
        else:
            recipe = MXLinearRecipeName.MXFP8_EMULATED if "mxfp8" in base else MXLinearRecipeName.MXFP4_EMULATED
            quantize_(model, MXLinearConfig.from_recipe_name(recipe))
            entries = [MXLinear]
    elif base.startswith("int8_quantized_training"):
        from torchao.prototype.quantized_training import (
            Int8QuantizedTrainingLinearWeight,
            int8_weight_only_quantized_training,
        )
        from torchao.quantization import quantize_

        model = _mlp()
        quantize_(model, int8_weight_only_quantized_training())
        entries = [Int8QuantizedTrainingLinearWeight]
    elif base.startswith("int8_mixed_precision"):
        from torchao.prototype.quantized_training import (
            Int8MixedPrecisionTrainingLinearWeight,
            int8_mixed_precision_training,
        )
        from torchao.quantization import quantize_

        model = _mlp()
        quantize_(model, int8_mixed_precision_training())
        entries = [Int8MixedPrecisionTrainingLinearWeight]
    elif base.startswith("bitnet"):
        from torchao.prototype.quantized_training import BitNetTrainingLinearWeight, bitnet_training
        from torchao.quantization import quantize_

        model = _mlp()
        quantize_(model, bitnet_training())
        entries = [BitNetTrainingLinearWeight]
    elif base.startswith("nf4"):
        from torchao.dtypes.nf4tensor import linear_nf4

        model = _QLoRA()
        entries = [linear_nf4]
    else:
        from torchao.sparsity.supermask import SupermaskLinear

        model = torch.nn.Sequential(
            SupermaskLinear(0.5, 8, False, False, DIM, HID), torch.nn.ReLU(),
            SupermaskLinear(0.25, 4, False, False, HID, DIM))
        entries = [SupermaskLinear]
    if train:
        return _train(model, (x,), entries)
    return Run(model, lambda owner, t: owner(t), entries), (x,), {}


def _QLoRA() -> Any:
    import torch
    from torchao.dtypes.nf4tensor import linear_nf4, to_nf4

    class QLoRALinear(torch.nn.Module):
        """A frozen NF4 base weight plus a trainable low-rank update, as torchtune's QLoRA does."""

        def __init__(self, d_in: int, d_out: int, rank: int = 4) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(to_nf4(_randn(d_out, d_in, seed=7), 64, 64), requires_grad=False)
            self.a = torch.nn.Linear(d_in, rank, bias=False)
            self.b = torch.nn.Linear(rank, d_out, bias=False)

        def forward(self, t: torch.Tensor) -> torch.Tensor:
            return linear_nf4(t, self.weight) + self.b(self.a(t))

    return torch.nn.Sequential(QLoRALinear(DIM, HID), torch.nn.ReLU(), QLoRALinear(HID, DIM))


# ---------------------------------------------------------------------------------------------------- optimizers


def _optim(name: str) -> Built:
    import torch

    from gt_calls import OptimizerStep

    base = name.removesuffix(".train")
    net = _mlp()
    params = list(net.parameters())
    if base.startswith("parq."):
        from torchao.prototype.parq import (
            LSBQuantizer,
            ProxBinaryRelax,
            ProxHardQuant,
            ProxPARQ,
            QuantOptimizer,
            UnifQuantizer,
        )

        weights = [p for p in params if p.dim() > 1]
        others = [p for p in params if p.dim() <= 1]
        groups = [{"params": weights, "quant_bits": 2}, {"params": others}]
        inner = torch.optim.SGD(groups, lr=0.01)
        if base == "parq.ProxHardQuant.UnifQuantizer":
            optimizer: Any = QuantOptimizer(inner, UnifQuantizer(), ProxHardQuant(), quant_period=1)
        elif base == "parq.ProxPARQ.LSBQuantizer":
            optimizer = QuantOptimizer(inner, LSBQuantizer(), ProxPARQ(anneal_start=0, anneal_end=10),
                                       quant_period=1)
        else:
            optimizer = QuantOptimizer(inner, UnifQuantizer(), ProxBinaryRelax(anneal_start=0, anneal_end=10),
                                       quant_period=1, quant_per_channel=True)
    else:
        import torchao.optim as optim

        if base == "Adam8bit.block_size_128":
            optimizer = optim.Adam8bit(params, lr=1e-3, block_size=128)
        elif base == "_AdamW.bf16_sr":
            net = net.to(torch.bfloat16)
            params = list(net.parameters())
            optimizer = optim._AdamW(params, lr=1e-3, bf16_stochastic_round=True)
        else:
            optimizer = getattr(optim, base)(params, lr=1e-3)
    if name.endswith(".train"):
        return _train(net, (_randn(BATCH, DIM),), [type(optimizer).step], optimizer=optimizer)
    grads = tuple(_randn(*p.shape, seed=20 + i, dtype=p.dtype) for i, p in enumerate(params))
    return OptimizerStep(net, optimizer), grads, {}


# ---------------------------------------------------------------------------------------------------- sparsity


def _sparse(name: str) -> Built:
    import torch

    from gt_calls import Run

    x = _randn(BATCH, DIM)
    model = _mlp()
    if name == "apply_fake_sparsity":
        from torchao.sparsity.sparse_api import apply_fake_sparsity

        apply_fake_sparsity(model)
        return model, (x,), {}
    config = [{"tensor_fqn": "0.weight"}, {"tensor_fqn": "2.weight"}]
    if name.startswith("WandaSparsifier"):
        from torchao.sparsity import WandaSparsifier

        sparsifier = WandaSparsifier(sparsity_level=0.5)
        sparsifier.prepare(model, config)
        if name == "WandaSparsifier.squashed":
            with torch.no_grad():
                model(_randn(4, DIM, seed=8))
            sparsifier.step()
            sparsifier.squash_mask()
            return model, (x,), {}
        return Run(model, lambda owner, t: owner(t), [WandaSparsifier]), (x,), {}
    from torchao.prototype.sparsity.sparsifier.weight_norm_sparsifier import WeightNormSparsifier

    sparsifier = WeightNormSparsifier(sparsity_level=0.5, sparse_block_shape=(1, 4), zeros_per_block=2)
    sparsifier.prepare(model, config)
    sparsifier.step()
    from torchao.prototype.sparsity.sparsifier.utils import FakeSparsity

    if name.endswith("train"):
        return _train(model, (x,), [FakeSparsity], after=sparsifier.step)
    return Run(model, lambda owner, t: owner(t), [FakeSparsity]), (x,), {}


# ---------------------------------------------------------------------------------------------------- llama


def _llama_model(name: str) -> Built:
    import torch
    from torchao._models.llama import generate as gen
    from torchao._models.llama import model as lm

    from gt_calls import Call, Run

    if name == "llama.train":
        model = _llama()
        model.setup_caches(2, 16, training=True)
        return model, (_tokens(6, batch=2),), {}
    if name in ("llama.prefill", "llama.gqa.prefill", "llama.linear_causal_mask.prefill"):
        model = _llama(n_local_heads=2) if "gqa" in name else _llama()
        if "linear" in name:
            model.setup_caches(1, 16, linear_causal_mask=True, prompt_length=6)
        else:
            model.setup_caches(1, 16)
        return model, (_tokens(6), torch.arange(6)), {}
    if name in ("llama.decode", "llama.quantized_kv_cache.decode", "llama.linear_causal_mask.decode"):
        model = _llama()
        if "quantized" in name:
            model.setup_caches(1, 16, kv_cache_quantization=True)
        elif "linear" in name:
            model.setup_caches(1, 16, linear_causal_mask=True, prompt_length=6)
        else:
            model.setup_caches(1, 16)
        with torch.no_grad():
            model(_tokens(6), torch.arange(6))
        return model, (_tokens(1, seed=9), torch.tensor([6])), {}
    if name == "llama.tied.scaled_rope.train":
        model = _llama(tie_word_embeddings=True, use_scaled_rope=True)
        model.setup_caches(2, 16, training=True)
        tokens = _tokens(7, batch=2)
        return _train(model, (tokens[:, :-1],), [lm.Transformer], target=tokens[:, 1:])
    if name == "llama.train_step.adamw":
        model = _llama()
        model.setup_caches(2, 16, training=True)
        tokens = _tokens(7, batch=2)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        return _train(model, (tokens[:, :-1],), [lm.Transformer], optimizer=optimizer, target=tokens[:, 1:])
    args = _llama_args()
    freqs = lm.precompute_freqs_cis(args.block_size, args.head_dim, args.rope_base)
    h = _randn(2, 6, DIM)
    if name == "llama.TransformerBlock":
        return lm.TransformerBlock(args), (h, None, freqs[:6], None), {}
    if name == "llama.Attention":
        return lm.Attention(args), (h, freqs[:6], None), {}
    if name == "llama.FeedForward":
        return lm.FeedForward(args), (h,), {}
    if name == "llama.RMSNorm":
        return lm.RMSNorm(DIM), (h,), {}
    if name == "llama.KVCache.update":
        from gt_calls import Method

        cache = lm.KVCache(1, 16, 4, 16, dtype=torch.float32)
        return Method(cache, "update"), (torch.arange(3), _randn(1, 4, 3, 16), _randn(1, 4, 3, 16, seed=2)), {}
    if name == "llama.apply_rotary_emb":
        return Call(lm.apply_rotary_emb), (_randn(2, 6, 4, 16), freqs[:6]), {}
    if name == "llama.precompute_freqs_cis":
        return Call(lm.precompute_freqs_cis, seq_len=16, n_elem=16, use_scaled=True), (), {}
    if name == "generate.sample.top_k":
        return Call(gen.sample, temperature=0.8, top_k=5), (_randn(1, 6, 96),), {}
    if name == "generate.logits_to_probs":
        return Call(gen.logits_to_probs, temperature=0.7), (_randn(1, 96),), {}
    if name == "spinquant.llama":
        from torchao.prototype.spinquant import apply_spinquant

        model = _llama(intermediate_size=192)
        model.setup_caches(1, 16)
        apply_spinquant(model, use_r1=True, use_r2=True, use_r4=True)
        return model, (_tokens(6), torch.arange(6)), {}
    model = _llama()
    model.setup_caches(1, 16)
    if name == "generate.prefill":
        return (Run(model, lambda owner, t, pos: gen.prefill(owner, t, pos, temperature=0.8, top_k=5),
                    [gen.prefill]), (_tokens(6), torch.arange(6)), {})
    with torch.no_grad():
        model(_tokens(6), torch.arange(6))
    if name == "generate.decode_one_token":
        return (Run(model, lambda owner, t, pos: gen.decode_one_token(owner, t, pos, temperature=0.8, top_k=5),
                    [gen.decode_one_token]), (_tokens(1, seed=9), torch.tensor([6])), {})

    def decode(owner: Any, t: Any, pos: Any) -> Any:
        tokens, probs = gen.decode_n_tokens(owner, t, pos.clone(), 3, temperature=0.8, top_k=5)
        return torch.cat(tokens, -1)

    return Run(model, decode, [gen.decode_n_tokens]), (_tokens(1, seed=9).view(1, 1), torch.tensor([6])), {}


# ---------------------------------------------------------------------------------------------------- primitives


def _prims(name: str) -> Built:
    import torch
    from torchao.quantization import quant_primitives as qp

    from gt_calls import Call, Run

    w = _randn(HID, DIM, seed=4)
    block = (1, 32)
    if name == "choose_qparams_affine":
        return Call(qp.choose_qparams_affine, mapping_type=qp.MappingType.SYMMETRIC, block_size=block,
                    target_dtype=torch.int8), (w,), {}
    if name in ("quantize_affine", "dequantize_affine", "quantize_dequantize.asymmetric"):
        mapping = qp.MappingType.ASYMMETRIC if "asymmetric" in name else qp.MappingType.SYMMETRIC

        def qdq(owner: Any, t: Any) -> Any:
            scale, zero = qp.choose_qparams_affine(t, mapping, block, torch.int8)
            q = qp.quantize_affine(t, block, scale, zero, torch.int8)
            if name == "quantize_affine":
                return q
            return qp.dequantize_affine(q, block, scale, zero, torch.int8, output_dtype=torch.float32)

        entries = {"quantize_affine": [qp.quantize_affine], "dequantize_affine": [qp.dequantize_affine]}
        return Run(torch.nn.Identity(), qdq, entries.get(name, [qp.choose_qparams_affine, qp.quantize_affine,
                                                                qp.dequantize_affine])), (w,), {}
    if name == "fake_quantize_affine":
        def fq(owner: Any, t: Any) -> Any:
            scale, zero = qp.choose_qparams_affine(t, qp.MappingType.ASYMMETRIC, block, torch.uint8)
            return qp.fake_quantize_affine(t, block, scale, zero, torch.uint8)

        return Run(torch.nn.Identity(), fq, [qp.fake_quantize_affine]), (w,), {}
    if name == "fake_quantize_affine_cachemask":
        def fqm(owner: Any, t: Any) -> Any:
            scale, zero = qp.choose_qparams_affine(t, qp.MappingType.SYMMETRIC, block, torch.int8)
            return qp.fake_quantize_affine_cachemask(t, block, scale, zero, torch.int8, -128, 127)

        return Run(torch.nn.Identity(), fqm, [qp.fake_quantize_affine_cachemask]), (w,), {}
    if name == "choose_qparams_and_quantize_affine_hqq":
        return Call(qp.choose_qparams_and_quantize_affine_hqq, nbits=4, group_size=32, axis=1,
                    compute_dtype=torch.float32, device="cpu", raw_output=True), (w,), {}
    if name == "quantize_affine_floatx":
        def fx(owner: Any, t: Any) -> Any:
            scale = qp.choose_qparams_affine_floatx(t, 3, 2)
            return qp.dequantize_affine_floatx(qp.quantize_affine_floatx(t, scale, 3, 2), scale, 3, 2)

        return Run(torch.nn.Identity(), fx, [qp.quantize_affine_floatx, qp.dequantize_affine_floatx]), (w,), {}
    if name == "choose_qparams_affine_with_min_max":
        return Call(qp.choose_qparams_affine_with_min_max, mapping_type=qp.MappingType.ASYMMETRIC,
                    block_size=(1, DIM), target_dtype=torch.uint8), (w.amin(1), w.amax(1)), {}
    if name in ("to_nf4", "nf4.dequantize", "linear_nf4"):
        from torchao.dtypes import nf4tensor as nf

        if name == "to_nf4":
            return (Run(torch.nn.Identity(), lambda owner, t: nf.to_nf4(t, 64, 64).get_original_weight(),
                        [nf.to_nf4]), (w,), {})
        weight = nf.to_nf4(w, 64, 64)
        if name == "nf4.dequantize":
            return Run(torch.nn.Identity(), lambda owner, t: weight.to(torch.float32) + t, [nf.NF4Tensor]), (w,), {}
        return Run(torch.nn.Identity(), lambda owner, t: nf.linear_nf4(t, weight), [nf.linear_nf4]), (
            _randn(BATCH, DIM),), {}
    if name == "int_scaled_matmul":
        from torchao.kernel import int_scaled_matmul

        a = torch.randint(-128, 127, (32, DIM), dtype=torch.int8, generator=torch.Generator().manual_seed(1))
        b = torch.randint(-128, 127, (DIM, 32), dtype=torch.int8, generator=torch.Generator().manual_seed(2))
        return Call(int_scaled_matmul), (a, b, torch.rand(32, 1, generator=torch.Generator().manual_seed(3))), {}
    if name == "safe_int_mm":
        from torchao.kernel import safe_int_mm

        a = torch.randint(-128, 127, (32, DIM), dtype=torch.int8, generator=torch.Generator().manual_seed(1))
        b = torch.randint(-128, 127, (DIM, 32), dtype=torch.int8, generator=torch.Generator().manual_seed(2))
        return Call(safe_int_mm), (a, b), {}
    if name == "compute_error":
        from torchao.quantization.utils import compute_error

        return Call(compute_error), (w, w + 0.01 * _randn(HID, DIM, seed=5)), {}
    if name == "quantize_int8_rowwise":
        from torchao.prototype.quantized_training import quantize_int8_rowwise

        return Call(quantize_int8_rowwise, stochastic_rounding=True), (w,), {}
    if name.startswith("MXTensor"):
        from torchao.prototype.mx_formats.constants import DTYPE_FP4
        from torchao.prototype.mx_formats.mx_tensor import MXTensor

        elem = torch.float8_e4m3fn if name.endswith("mxfp8") else DTYPE_FP4
        return (Run(torch.nn.Identity(), lambda owner, t: MXTensor.to_mx(t, elem, 32).to_dtype(torch.float32),
                    [MXTensor.to_mx, MXTensor.to_dtype]), (w,), {})
    from torchao.dtypes import to_affine_quantized_intx

    def aqt(owner: Any, t: Any) -> Any:
        return to_affine_quantized_intx(t, qp.MappingType.ASYMMETRIC, block, torch.uint8).dequantize()

    return Run(torch.nn.Identity(), aqt, [to_affine_quantized_intx]), (w,), {}


def build(name: str) -> Built:
    import logging
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    logging.getLogger("torchao").setLevel(logging.ERROR)
    torch.manual_seed(0)
    if name in QUANT:
        return _quant(name)
    if name in QAT:
        return _qat(name)
    if name in TRAIN:
        return _low_precision(name)
    if name in OPTIM:
        return _optim(name)
    if name in SPARSE:
        return _sparse(name)
    if name in LLAMA:
        return _llama_model(name)
    if name in PRIMS:
        return _prims(name)
    raise KeyError(name)
