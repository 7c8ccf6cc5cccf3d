"""Ground-truth bench, deepspeed: the training engine, ZeRO, mixture of experts, checkpointing and parallel layers.

DeepSpeed (Microsoft's training library) wraps a model with ``deepspeed.initialize`` into a
``DeepSpeedEngine`` driven by a JSON-like config: its forward, ``engine.backward(loss)`` (loss scaling,
gradient accumulation, reductions) and ``engine.step()`` (clipping, the optimizer, the LR scheduler), with ZeRO
stages 0 to 3 partitioning optimizer states, gradients and parameters (stage 3 gathers parameters in forward
hooks). ``deepspeed.moe`` routes tokens to experts (``TopKGate`` with top-1 / top-2 / top-k gating, capacity
factors, noisy gates, random token selection, dropped tokens, residual MoE); ``deepspeed.checkpointing`` is its
activation checkpointing (partitioned, CPU-offloaded or non-reentrant); ``deepspeed.sequence`` holds
Ulysses sequence-parallel attention and the vocab-parallel losses; ``module_inject`` ships the tensor-parallel
linear layers AutoTP swaps in; ``runtime.zero.tiling`` tiles linear layers and ``deepspeed.linear`` adds LoRA.
Here it runs on its CPU accelerator, with no compiled kernel (the shared-memory collective op, which the
accelerator would build on first use, is turned off), in one process on a gloo group of world size 1 (a
``file://`` rendezvous in a temporary folder, set up once per model by the builder). So the tables cover, at
tiny sizes:

- ``ENGINE``: train steps through the engine (forward, ``engine.backward``, ``engine.step``) at ZeRO stages 0,
  1, 2 and 3, with Adam and AdamW from the config, a client optimizer, a client LR scheduler and a config
  ``WarmupLR``, gradient accumulation, gradient clipping, bf16 mixed precision, stage 3's parameter gathering
  hooks with prefetch settings, a model built under ``deepspeed.zero.Init``, a model with an MoE layer (its
  expert parameters split into groups of their own), a model checkpointing its blocks under the config's
  ``activation_checkpointing``, a one-stage ``PipelineModule`` trained by ``train_batch``, and the engine's
  forward alone (stages 0 and 3);
- ``MOE``: the ``MoE`` layer with top-1 and top-2 gating, capacity factors, the ``RSample`` and ``Jitter`` noisy
  gate policies, without random token selection, without dropped tokens, without second-expert sampling, residual
  MoE, a used-token mask and more experts; ``TopKGate`` with k of 1, 2 and 3, and the gating functions
  ``top1gating``, ``top2gating``, ``topkgating``, ``multiplicative_jitter`` and ``gumbel_rsample``;
- ``CHECKPOINT``: ``deepspeed.checkpointing.checkpoint`` with its defaults, keyword tensors, a non-tensor
  argument, several outputs, partitioned and CPU activations, and ``non_reentrant_checkpoint``;
- ``PARALLEL``: ``DistributedAttention`` (Ulysses) around scaled dot-product attention (batch first, sequence
  first, with rotary tables), ``vocab_parallel_cross_entropy`` and ``vocab_sequence_parallel_cross_entropy``,
  ``chunked_cross_entropy``, the AutoTP layers ``LinearLayer``, ``LinearAllreduce``, ``LmHeadLinearAllreduce``,
  ``VocabParallelEmbedding``, ``Normalize`` and ``EmbeddingLayer``, ``TiledLinear``, ZeRO-3's
  ``LinearModuleForZeroStage3``, ``OptimizedLinear`` with LoRA, the MoE ``Experts`` and a ``PipelineModule``'s
  forward;
- ``TRAIN``: train steps (loss.backward through the model, an SGD step) through ``MoE`` (top-1, top-2 and
  residual, with the auxiliary loss), checkpointed blocks (reentrant, non-reentrant, CPU activations),
  ``DistributedAttention``, ``TiledLinear`` and the LoRA ``OptimizedLinear``.

``deepspeed.compression`` is now a deprecated re-export of two attribute helpers, and the inference kernels,
fused optimizers, CPU Adam and offloading need compiled ops: they are left out. Random inputs and weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 4
WIDTH = 8

ENGINE = ("engine.stage0.adam", "engine.stage0.adamw", "engine.stage1", "engine.stage2", "engine.stage3",
          "engine.client_optimizer", "engine.client_scheduler", "engine.warmup_lr", "engine.gradient_accumulation",
          "engine.gradient_clipping", "engine.bf16", "engine.bf16.stage1", "engine.stage2.clipping",
          "engine.stage3.prefetch", "engine.forward", "engine.stage3.forward", "engine.MoE",
          "engine.activation_checkpointing", "engine.zero_init", "engine.pipeline")
MOE = ("MoE.top1", "MoE.top2", "MoE.top1.capacity", "MoE.top1.rsample", "MoE.top1.jitter", "MoE.top1.no_rts",
       "MoE.top1.no_drop", "MoE.top2.no_drop", "MoE.top2.no_sampling", "MoE.residual", "MoE.used_token",
       "MoE.eight_experts", "TopKGate.k1", "TopKGate.k2", "TopKGate.k3", "top1gating", "top2gating", "topkgating",
       "multiplicative_jitter", "gumbel_rsample")
CHECKPOINT = ("checkpoint", "checkpoint.kwargs", "checkpoint.non_tensor", "checkpoint.tuple_output",
              "checkpoint.partition_activations", "checkpoint.cpu", "non_reentrant_checkpoint")
PARALLEL = ("DistributedAttention", "DistributedAttention.seq_first", "vocab_parallel_cross_entropy",
            "vocab_sequence_parallel_cross_entropy", "chunked_cross_entropy", "LinearLayer", "LinearAllreduce",
            "Normalize", "EmbeddingLayer", "TiledLinear", "OptimizedLinear.lora", "DistributedAttention.rotary",
            "LmHeadLinearAllreduce", "VocabParallelEmbedding", "LinearModuleForZeroStage3", "Experts",
            "PipelineModule")
TRAIN = ("train_step.MoE.top1", "train_step.MoE.top2", "train_step.MoE.residual", "train_step.checkpoint",
         "train_step.non_reentrant_checkpoint", "train_step.checkpoint.cpu", "train_step.DistributedAttention",
         "train_step.TiledLinear", "train_step.OptimizedLinear.lora")


def names() -> list[str]:
    return list(ENGINE) + list(MOE) + list(CHECKPOINT) + list(PARALLEL) + list(TRAIN)


def _input(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _distributed() -> None:
    """A gloo process group of world size 1 (once per process), handed to deepspeed.comm, without the
    shared-memory collective op that the CPU accelerator would otherwise compile."""
    import os
    import socket
    import tempfile

    import deepspeed
    import deepspeed.ops
    import torch.distributed as dist

    deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False
    if not dist.is_initialized():
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1",
                          LOCAL_RANK="0", LOCAL_SIZE="1")
        folder = tempfile.mkdtemp(prefix="gt_deepspeed_")
        dist.init_process_group("gloo", init_method=f"file://{os.path.join(folder, 'rendezvous')}", rank=0,
                                world_size=1)
    deepspeed.init_distributed(dist_backend="gloo")


def _mlp() -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(WIDTH, 16), nn.GELU(), nn.Linear(16, WIDTH))


def _engine_step(engine: Any, micro_steps: int = 1) -> Any:
    """A train step as DeepSpeed's users write it: ``loss = engine(x)...``, ``engine.backward(loss)``,
    ``engine.step()`` (``micro_steps`` micro-batches of a gradient accumulation)."""
    import torch
    from deepspeed.runtime.engine import DeepSpeedEngine

    from gt_calls import Run

    def run(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            for index in range(micro_steps):
                loss = ((owner(x[index::micro_steps]) - target[index::micro_steps]) ** 2).mean()
                owner.backward(loss)
                owner.step()
            return loss.detach()

    entries = [DeepSpeedEngine.forward, DeepSpeedEngine.backward, DeepSpeedEngine.step]
    return Run(engine, run, entries)


def _engine(name: str) -> Built:
    import deepspeed
    import torch

    _distributed()
    what = name.split(".", 1)[1]
    stage = {"stage1": 1, "bf16.stage1": 1, "stage2": 2, "stage2.clipping": 2, "stage3": 3,
             "stage3.prefetch": 3, "stage3.forward": 3}.get(what, 0)
    batch = 4
    config: dict[str, Any] = {"train_batch_size": batch, "steps_per_print": 10 ** 9,
                              "zero_optimization": {"stage": stage}}
    optimizer_type = "AdamW" if what == "stage0.adamw" else "Adam"
    config["optimizer"] = {"type": optimizer_type, "params": {"lr": 1e-3, "torch_adam": True}}
    if what in ("gradient_clipping", "stage2.clipping"):
        config["gradient_clipping"] = 0.5
    if what.startswith("bf16"):
        config["bf16"] = {"enabled": True}
    if what == "gradient_accumulation":
        config["gradient_accumulation_steps"] = 2
        config["train_micro_batch_size_per_gpu"] = 2
    if what == "warmup_lr":
        config["scheduler"] = {"type": "WarmupLR", "params": {"warmup_min_lr": 0.0, "warmup_max_lr": 1e-3,
                                                             "warmup_num_steps": 10}}
    if what == "stage3.prefetch":
        config["zero_optimization"].update(stage3_prefetch_bucket_size=64, stage3_param_persistence_threshold=0,
                                           stage3_max_live_parameters=128, stage3_max_reuse_distance=0)
    if what in ("MoE", "activation_checkpointing", "zero_init", "pipeline"):
        return _engine_model(what, config)
    net = _mlp()
    keywords: dict[str, Any] = {}
    if what in ("client_optimizer", "client_scheduler"):
        del config["optimizer"]
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        keywords["optimizer"] = optimizer
        if what == "client_scheduler":
            keywords["lr_scheduler"] = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.9)
    else:
        keywords["model_parameters"] = net.parameters()
    engine, _, _, _ = deepspeed.initialize(model=net, config=config, **keywords)
    dtype = torch.bfloat16 if what.startswith("bf16") else torch.float32
    x, target = _input(batch, WIDTH).to(dtype), _input(batch, WIDTH, seed=3).to(dtype)
    if what in ("forward", "stage3.forward"):
        return engine, (x,), {}
    micro_steps = 2 if what == "gradient_accumulation" else 1
    return _engine_step(engine, micro_steps), (x, target), {}


def _engine_model(what: str, config: dict[str, Any]) -> Built:
    """The engine over a model with an MoE layer (its expert parameters in groups of their own), over a model
    checkpointing its blocks under the config's ``activation_checkpointing``, at ZeRO stage 3 over a model built
    under ``deepspeed.zero.Init``, and a one-stage ``PipelineModule`` trained by ``train_batch``."""
    import deepspeed
    import torch
    from deepspeed import checkpointing
    from torch import nn

    from gt_calls import Run

    x, target = _input(4, WIDTH), _input(4, WIDTH, seed=3)
    if what == "MoE":
        from deepspeed.moe.layer import MoE
        from deepspeed.moe.utils import split_params_into_different_moe_groups_for_optimizer

        class MoEModel(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.inp = nn.Linear(WIDTH, WIDTH)
                self.moe = MoE(WIDTH, _mlp(), num_experts=2, k=1, min_capacity=2)

            def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
                out, l_aux, _ = self.moe(self.inp(x))
                return out, l_aux

        net: Any = MoEModel()
        groups = split_params_into_different_moe_groups_for_optimizer({"params": list(net.parameters()),
                                                                       "name": "parameters"})
        engine, _, _, _ = deepspeed.initialize(model=net, config=config, model_parameters=groups)

        def moe_step(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                out, l_aux = owner(x)
                loss = ((out - target) ** 2).mean() + 0.01 * l_aux
                owner.backward(loss)
                owner.step()
                return loss.detach()

        return Run(engine, moe_step, [type(engine).forward, type(engine).backward, MoE]), (x, target), {}
    if what == "activation_checkpointing":
        config["activation_checkpointing"] = {"partition_activations": False, "contiguous_memory_optimization": False,
                                              "cpu_checkpointing": False, "number_checkpoints": 2}

        class Checkpointed(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.inp = nn.Linear(WIDTH, WIDTH)
                self.blocks = nn.ModuleList([_mlp(), _mlp()])

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                x = self.inp(x)
                for block in self.blocks:
                    x = checkpointing.checkpoint(block, x)
                return x

        net = Checkpointed()
        engine, _, _, _ = deepspeed.initialize(model=net, config=config, model_parameters=net.parameters())
        checkpointing.configure(None, deepspeed_config=config)
        return _engine_step(engine), (x, target), {}
    if what == "zero_init":
        config["zero_optimization"] = {"stage": 3}
        with deepspeed.zero.Init(config_dict_or_path=config):
            net = _mlp()
        engine, _, _, _ = deepspeed.initialize(model=net, config=config, model_parameters=net.parameters())
        return _engine_step(engine), (x, target), {}
    from deepspeed.pipe import PipelineModule

    def mse(out: torch.Tensor, label: torch.Tensor) -> torch.Tensor:
        return ((out - label) ** 2).mean()

    config.update(train_micro_batch_size_per_gpu=2, gradient_accumulation_steps=2)
    pipe = PipelineModule(layers=[nn.Linear(WIDTH, 16), nn.GELU(), nn.Linear(16, WIDTH)], num_stages=1, loss_fn=mse)
    engine, _, _, _ = deepspeed.initialize(model=pipe, config=config, model_parameters=pipe.parameters())

    def pipeline_step(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            batches = iter([(x[:2], target[:2]), (x[2:], target[2:])])
            return owner.train_batch(data_iter=batches)

    return Run(engine, pipeline_step, [type(engine).train_batch]), (x, target), {}


def _moe_layer(name: str) -> Any:
    from deepspeed.moe.layer import MoE

    _distributed()
    what = name.split(".", 1)[1]
    keywords: dict[str, Any] = {"num_experts": 4, "k": 2 if what.startswith("top2") else 1, "min_capacity": 2}
    if what == "top1.capacity":
        keywords.update(capacity_factor=2.0, eval_capacity_factor=0.5)
    if what == "top1.rsample":
        keywords["noisy_gate_policy"] = "RSample"
    if what == "top1.jitter":
        keywords["noisy_gate_policy"] = "Jitter"
    if what == "top1.no_rts":
        keywords["use_rts"] = False
    if what.endswith("no_drop"):
        keywords["drop_tokens"] = False
    if what == "top2.no_sampling":
        keywords["top2_2nd_expert_sampling"] = False
    if what == "residual":
        keywords["use_residual"] = True
    if what == "eight_experts":
        keywords["num_experts"] = 8
    layer = MoE(WIDTH, _mlp(), **keywords)
    layer.set_deepspeed_parallelism()
    return layer


def _moe(name: str) -> Built:
    import torch
    from deepspeed.moe import sharded_moe

    from gt_calls import Call, Keywords

    tokens = _input(2, 6, WIDTH)
    if name.startswith("MoE."):
        layer = _moe_layer(name)
        if name == "MoE.used_token":
            used = (_input(12, seed=2) > -0.5).float()
            return layer, (tokens,), {"used_token": used}
        return layer, (tokens,), {}
    if name.startswith("TopKGate."):
        _distributed()
        k = int(name[-1])
        gate = sharded_moe.TopKGate(WIDTH, 4, k=k, min_capacity=2)
        return Keywords(gate, sparse_routes=True), (_input(12, WIDTH),), {}
    logits = _input(12, 4)
    if name == "top1gating":
        return Call(sharded_moe.top1gating, capacity_factor=1.0, min_capacity=2), (logits,), {}
    if name == "top2gating":
        return Call(sharded_moe.top2gating, capacity_factor=1.0, min_capacity=2), (logits,), {}
    if name == "topkgating":
        return Call(sharded_moe.topkgating, k=3, capacity_factor=1.0, min_capacity=2), (logits,), {}
    if name == "multiplicative_jitter":
        return Call(sharded_moe.multiplicative_jitter, device=torch.device("cpu")), (logits,), {}
    return Call(sharded_moe.gumbel_rsample), ((12, 4), torch.device("cpu")), {}


def _blocks() -> dict[str, Any]:
    """Small user functions that checkpointing wraps: keywords with a tensor mask, a tuple output."""
    import torch
    from torch import nn

    class KeywordBlock(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(WIDTH, WIDTH)

        def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
            y = self.proj(x)
            return y if mask is None else y.masked_fill(mask, 0.0)

    class TupleBlock(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(WIDTH, WIDTH)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            y = self.proj(x)
            return torch.relu(y), y.mean(-1)

    return {"kwargs": KeywordBlock, "tuple": TupleBlock}


def _configure_checkpointing(what: str) -> None:
    from deepspeed import checkpointing

    _distributed()
    checkpointing.configure(None, partition_activations=what in ("partition_activations", "cpu"),
                            checkpoint_in_cpu=what == "cpu")


def _checkpoint(name: str) -> Built:
    import torch
    from deepspeed import checkpointing

    from gt_calls import Run

    what = name.split(".", 1)[1] if "." in name else ""
    _configure_checkpointing(what)
    from torch import nn

    x = _input(BATCH, WIDTH)
    # The checkpointed input is an activation (partitioned and CPU checkpoints free its storage after use).
    if name == "non_reentrant_checkpoint":
        def non_reentrant(owner: Any, x: torch.Tensor) -> torch.Tensor:
            return checkpointing.non_reentrant_checkpoint(owner[1], owner[0](x))

        net = nn.Sequential(nn.Linear(WIDTH, WIDTH), _mlp())
        return Run(net, non_reentrant, [checkpointing.non_reentrant_checkpoint]), (x,), {}
    if what == "kwargs":
        mask = _input(BATCH, WIDTH, seed=2) > 0

        def keywords(owner: Any, x: torch.Tensor) -> torch.Tensor:
            return checkpointing.checkpoint(owner[1], owner[0](x), mask=mask)

        net = nn.Sequential(nn.Linear(WIDTH, WIDTH), _blocks()["kwargs"]())
        return Run(net, keywords, [checkpointing.checkpoint]), (x,), {}
    if what == "non_tensor":
        def non_tensor(owner: Any, x: torch.Tensor) -> torch.Tensor:
            return checkpointing.checkpoint(owner[1], owner[0](x), None)

        net = nn.Sequential(nn.Linear(WIDTH, WIDTH), _blocks()["kwargs"]())
        return Run(net, non_tensor, [checkpointing.checkpoint]), (x,), {}
    net = nn.Sequential(nn.Linear(WIDTH, WIDTH), _blocks()["tuple"]() if what == "tuple_output" else _mlp())

    def plain(owner: Any, x: torch.Tensor) -> Any:
        return checkpointing.checkpoint(owner[1], owner[0](x))

    return Run(net, plain, [checkpointing.checkpoint]), (x,), {}


def _parallel(name: str) -> Built:
    import torch
    import torch.distributed as dist
    from torch import nn

    from gt_calls import Call, Run

    _distributed()
    x = _input(BATCH, WIDTH)
    if name.startswith("DistributedAttention"):
        from deepspeed.sequence.layer import DistributedAttention

        def local_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *args: Any) -> torch.Tensor:
            # [batch, seq, heads, dim] in, attention over the sequence, same layout out
            out = nn.functional.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                             is_causal=True)
            return out.transpose(1, 2)

        def seq_first(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *args: Any) -> torch.Tensor:
            return local_attention(q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)).transpose(0, 1)

        if name.endswith("rotary"):
            # Megatron's layout: [seq, batch, heads, dim], rotary tables [1, seq, 1, dim] (cos, sin)
            attention = DistributedAttention(seq_first, dist.group.WORLD, scatter_idx=2, gather_idx=0)
            angles = torch.arange(6.0)[:, None] * torch.tensor([1.0, 0.1])
            freqs = torch.cat([angles, angles], dim=-1)[None, :, None, :]
            rotary = (freqs.cos(), freqs.sin())
            qkv = tuple(_input(6, 2, 4, 4, seed=s) for s in (1, 2, 3))

            def rotated(owner: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
                return owner(q, k, v, 1, rotary)

            return Run(attention, rotated, [DistributedAttention]), qkv, {}
        if name.endswith("seq_first"):
            attention = DistributedAttention(seq_first, dist.group.WORLD, scatter_idx=2, gather_idx=0)
            qkv = tuple(_input(6, 2, 4, 4, seed=s) for s in (1, 2, 3))
            return Run(attention, lambda owner, q, k, v: owner(q, k, v, 1), [DistributedAttention]), qkv, {}
        attention = DistributedAttention(local_attention, dist.group.WORLD, scatter_idx=2, gather_idx=1)
        qkv = tuple(_input(2, 6, 4, 4, seed=s) for s in (1, 2, 3))
        return Run(attention, lambda owner, q, k, v: owner(q, k, v, 0), [DistributedAttention]), qkv, {}
    if name == "vocab_parallel_cross_entropy":
        from deepspeed.sequence.cross_entropy import vocab_parallel_cross_entropy

        target = torch.tensor([[1, 5, 7, 2, 0, 9], [3, -100, 4, 8, 6, 1]])
        return Call(vocab_parallel_cross_entropy, tp_group=dist.group.WORLD), (_input(2, 6, 10), target), {}
    if name == "vocab_sequence_parallel_cross_entropy":
        from deepspeed.sequence.cross_entropy import vocab_sequence_parallel_cross_entropy

        target = torch.tensor([[1, 5], [7, 2], [3, 0], [4, 8]])
        return Call(vocab_sequence_parallel_cross_entropy, sp_group=dist.group.WORLD), \
            (_input(4, 2, 10), target), {}
    if name == "chunked_cross_entropy":
        from deepspeed.runtime.chunked_cross_entropy import chunked_cross_entropy

        target = torch.tensor([1, 5, 7, 2, -100, 9, 3, 0])
        return Call(chunked_cross_entropy, block_rows=4), (_input(8, 10), target), {}
    if name in ("LinearLayer", "LinearAllreduce"):
        from deepspeed.module_inject import layers

        cls = getattr(layers, name)
        return cls(nn.Linear(WIDTH, 12), dist.group.WORLD), (x,), {}
    if name == "LmHeadLinearAllreduce":
        from deepspeed.module_inject.layers import LmHeadLinearAllreduce

        return LmHeadLinearAllreduce(nn.Linear(WIDTH, 10), dist.group.WORLD), (_input(2, 3, WIDTH),), {}
    if name == "VocabParallelEmbedding":
        from deepspeed.module_inject.layers import VocabParallelEmbedding

        layer = VocabParallelEmbedding(nn.Embedding(10, WIDTH, padding_idx=0), dist.group.WORLD)
        return layer, (torch.tensor([[1, 5, 7], [0, 3, 9]]),), {}
    if name == "LinearModuleForZeroStage3":
        from deepspeed.runtime.zero.linear import LinearModuleForZeroStage3

        return LinearModuleForZeroStage3(WIDTH, 12), (x,), {}
    if name == "Experts":
        from deepspeed.moe.experts import Experts

        return Experts(_mlp(), num_local_experts=3), (_input(1, 3, 4, WIDTH),), {}
    if name == "PipelineModule":
        from deepspeed.pipe import PipelineModule

        return PipelineModule(layers=[nn.Linear(WIDTH, 16), nn.GELU(), nn.Linear(16, WIDTH)], num_stages=1), \
            (x,), {}
    if name == "Normalize":
        from deepspeed.module_inject.layers import Normalize

        return Normalize(WIDTH), (x,), {}
    if name == "EmbeddingLayer":
        from deepspeed.module_inject.layers import EmbeddingLayer

        return EmbeddingLayer((10, WIDTH), dtype=torch.float32), (torch.tensor([[1, 5, 7], [0, 3, 9]]),), {}
    if name.startswith("TiledLinear"):
        from deepspeed.runtime.zero import tiling

        cls = getattr(tiling, name)
        return cls(WIDTH, 12, in_splits=2, out_splits=3), (x,), {}
    from deepspeed.linear import LoRAConfig, OptimizedLinear

    layer = OptimizedLinear(WIDTH, 12, lora_config=LoRAConfig(lora_r=2, lora_alpha=4.0), dtype=torch.float32)
    return layer, (x,), {}


def _sgd_step(net: Any, loss: Any, entries: list[Any]) -> Any:
    """A train step: ``loss(net, *inputs).backward()`` and an SGD step over ``net``'s parameters."""
    import torch

    from gt_calls import Run

    sgd = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1)

    def run(owner: Any, *inputs: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            sgd.zero_grad()
            value = loss(owner, *inputs)
            value.backward()
            sgd.step()
            return value.detach()

    return Run(net, run, entries)


def _train(name: str) -> Built:
    import torch

    what = name.split(".", 1)[1]
    x, target = _input(BATCH, WIDTH), _input(BATCH, WIDTH, seed=3)
    if what.startswith("MoE."):
        from deepspeed.moe.layer import MoE

        def moe_loss(owner: Any, tokens: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            out, l_aux, _ = owner(tokens)
            return ((out - target) ** 2).mean() + 0.01 * l_aux

        return _sgd_step(_moe_layer(what), moe_loss, [MoE]), (_input(2, 6, WIDTH), _input(2, 6, WIDTH, seed=3)), {}
    if what.startswith(("checkpoint", "non_reentrant")):
        from deepspeed import checkpointing

        _configure_checkpointing("cpu" if what == "checkpoint.cpu" else "")
        function = checkpointing.non_reentrant_checkpoint if what.startswith("non") else checkpointing.checkpoint
        from torch import nn

        net = nn.Sequential(nn.Linear(WIDTH, WIDTH), _mlp())

        def checkpointed(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            hidden = owner[0](x)
            return ((function(owner[1], hidden) - target) ** 2).mean()

        return _sgd_step(net, checkpointed, [function]), (x, target), {}
    if what == "DistributedAttention":
        from deepspeed.sequence.layer import DistributedAttention

        attention, qkv, _ = _parallel("DistributedAttention")
        projection = torch.nn.Linear(4, 4)
        attention.proj = projection

        def attention_loss(owner: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
            return owner.owner(owner.proj(q), k, v, 0).pow(2).mean()

        return _sgd_step(attention, attention_loss, [DistributedAttention]), qkv, {}
    layer, _, _ = _parallel("TiledLinear" if what == "TiledLinear" else "OptimizedLinear.lora")

    def linear_loss(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return ((owner(x)[..., :WIDTH] - target) ** 2).mean()

    return _sgd_step(layer, linear_loss, [type(layer)]), (x, target), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in ENGINE:
        return _engine(name)
    if name in MOE:
        return _moe(name)
    if name in CHECKPOINT:
        return _checkpoint(name)
    if name in PARALLEL:
        return _parallel(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
