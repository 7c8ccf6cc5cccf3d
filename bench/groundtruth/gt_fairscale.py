"""Ground-truth bench, fairscale: activation checkpointing, mixture of experts, sharded optimizers and wrappers.

fairscale (FAIR's scaling toolbox) wraps plain PyTorch modules and optimizers: ``checkpoint_wrapper`` replaces
a module's forward by a ``CheckpointFunction`` that packs keyword and non-tensor arguments, optionally
offloads the saved inputs to the CPU and recomputes in backward (patching batch norms); ``MOELayer`` with
``Top2Gate`` routes tokens to experts (gumbel top-2 gating, capacity, dispatch and combine einsums,
all-to-all); ``AdaScale`` wraps an optimizer and scales its learning rate by a gain computed from gradient
statistics gathered in backward hooks; ``OSS`` shards optimizer state over ranks; ``ShardedDataParallel`` and
``FullyShardedDataParallel`` wrap a model for sharded training; ``FlattenParamsWrapper`` flattens a module's
parameters into one; the model-parallel layers split linear and embedding layers over ranks; ``Pipe`` runs
micro-batches over partitions. Pieces that need torch.distributed run in one process on a gloo group of world
size 1 (a ``file://`` rendezvous in a temporary folder), initialized once per model by the builder. So the
tables cover, at tiny sizes:

- ``CHECKPOINT``: ``checkpoint_wrapper`` around an MLP (activations offloaded to the CPU or not), a block with
  keyword arguments and tensor masks (or positional non-tensors), one returning a tuple with non-tensors, a
  convolution with batch norm, nested wrapped blocks, a block run under ``disable_checkpointing``, and the
  experimental ``SyncBatchNorm`` wrapped;
- ``MOE``: ``Top2Gate``, the ``top2gating`` function, ``one_hot``, ``gumbel_rsample``, and ``MOELayer`` with
  one expert, two experts and feed-forward experts, returning the output alone or with the auxiliary loss;
- ``OPTIM``: ``AdaScale`` steps (gradient accumulation of two and three, smoothing, no debiasing, an Adam
  inner optimizer, two parameter groups, unscaled losses, ``gain`` per group, ``AdaScaleWrapper``), ``OSS``
  steps (SGD, Adam, two groups, fp16 broadcast, a closure, ``clip_grad_norm``), fairscale's ``GradScaler`` and
  ``ShardedGradScaler`` steps, ``LayerwiseGradientScaler`` and the experimental ``DynamicLossScaler``;
- ``WRAPPERS``: ``ShardedDataParallel`` forward passes (with batch-norm buffers broadcast),
  ``FlattenParamsWrapper`` (all parameters, two groups, under ``unflatten_params``), ``auto_wrap`` under
  ``enable_wrap``, the model-parallel region functions (copy, reduce, scatter,
  gather), the model-parallel ``ColumnParallelLinear`` / ``RowParallelLinear`` /
  ``VocabParallelEmbedding`` / ``ParallelEmbedding`` and ``vocab_parallel_cross_entropy``, ``Pipe`` over two
  CPU partitions (its checkpoint modes, skip connections, deferred batch norm), and ``SyncBatchNorm``;
- ``TRAIN``: train steps (loss.backward through the model, an SGD step) through checkpointed blocks (plain,
  offloaded, batch norm, keywords), ``MOELayer`` with its auxiliary loss, ``ShardedDataParallel`` with ``OSS``
  (with and without gradient buckets), ``FlattenParamsWrapper``, the model-parallel layers and
  ``SyncBatchNorm``.

``FullyShardedDataParallel`` (its forward enters CUDA streams even on the CPU), ``OffloadModel``, ``MEVO``,
fairscale's fused ``Adam`` and the layer memory tracker need CUDA, and ``PipeRPCWrapper`` needs RPC: they are
left out, and so is a train step through ``Pipe`` (Dynamo fails internally on its fork / join phony tensor
under a backward pass); on the CPU, ``GradScaler`` and ``ShardedGradScaler`` run disabled, as torch's does.
Random inputs and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 4
WIDTH = 8

CHECKPOINT = ("checkpoint_wrapper.mlp", "checkpoint_wrapper.mlp.offload", "checkpoint_wrapper.kwargs",
              "checkpoint_wrapper.kwargs.offload", "checkpoint_wrapper.tuple_output", "checkpoint_wrapper.batchnorm",
              "checkpoint_wrapper.positional_non_tensor", "checkpoint_wrapper.nested",
              "checkpoint_wrapper.disable_checkpointing", "checkpoint_wrapper.sync_batchnorm")
MOE = ("Top2Gate", "top2gating", "one_hot", "gumbel_rsample", "MOELayer.one_expert", "MOELayer.two_experts",
       "MOELayer.ffn_experts", "MOELayer.l_aux")
OPTIM = ("AdaScale.step.accumulate2", "AdaScale.step.accumulate3", "AdaScale.step.smoothing",
         "AdaScale.step.no_debias", "AdaScale.step.adam", "AdaScale.step.two_groups", "AdaScale.step.unscaled_loss",
         "AdaScale.gain", "AdaScaleWrapper.step", "OSS.step.sgd", "OSS.step.adam", "OSS.step.two_groups",
         "OSS.step.broadcast_fp16", "OSS.step.closure", "OSS.clip_grad_norm", "GradScaler.step",
         "ShardedGradScaler.step",
         "LayerwiseGradientScaler.step", "DynamicLossScaler.step")
WRAPPERS = ("ShardedDataParallel", "ShardedDataParallel.buffers", "FlattenParamsWrapper",
            "FlattenParamsWrapper.two_groups", "FlattenParamsWrapper.unflatten_params",
            "auto_wrap.FlattenParamsWrapper", "copy_to_model_parallel_region",
            "reduce_from_model_parallel_region", "scatter_to_model_parallel_region",
            "gather_from_model_parallel_region", "ColumnParallelLinear",
            "ColumnParallelLinear.scattered", "RowParallelLinear", "RowParallelLinear.parallel_input",
            "VocabParallelEmbedding", "ParallelEmbedding", "vocab_parallel_cross_entropy", "Pipe.never",
            "Pipe.except_last", "Pipe.always", "Pipe.skip", "Pipe.deferred_batch_norm", "SyncBatchNorm")
TRAIN = ("train_step.checkpoint_wrapper.mlp", "train_step.checkpoint_wrapper.offload",
         "train_step.checkpoint_wrapper.batchnorm", "train_step.checkpoint_wrapper.kwargs", "train_step.MOELayer",
         "train_step.ShardedDataParallel", "train_step.ShardedDataParallel.buckets", "train_step.FlattenParamsWrapper",
         "train_step.model_parallel",
         "train_step.SyncBatchNorm")


def names() -> list[str]:
    return list(CHECKPOINT) + list(MOE) + list(OPTIM) + list(WRAPPERS) + list(TRAIN)


def _input(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _distributed(model_parallel: bool = False) -> None:
    """A gloo process group of world size 1 (once per process), and fairscale's model-parallel groups."""
    import os
    import tempfile

    import torch.distributed as dist

    if not dist.is_initialized():
        folder = tempfile.mkdtemp(prefix="gt_fairscale_")
        dist.init_process_group("gloo", init_method=f"file://{os.path.join(folder, 'rendezvous')}", rank=0,
                                world_size=1)
    if model_parallel:
        from fairscale.nn.model_parallel import initialize as mpu

        if not mpu.model_parallel_is_initialized():
            mpu.initialize_model_parallel(1, model_parallel_backend="gloo", pipeline_backend="gloo",
                                          ddp_backend="gloo")


def _mlp() -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(WIDTH, 16), nn.GELU(), nn.Linear(16, WIDTH))


def _blocks() -> dict[str, Any]:
    """Small user modules that checkpointing wraps: keywords with a tensor mask, a tuple output."""
    import torch
    from torch import nn

    class KeywordBlock(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(WIDTH, WIDTH)

        def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None, scale: float = 1.0) -> torch.Tensor:
            y = self.proj(x) * scale
            return y if mask is None else y.masked_fill(mask, 0.0)

    class TupleBlock(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(WIDTH, WIDTH)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
            y = self.proj(x)
            return torch.relu(y), y.mean(-1), None

    return {"kwargs": KeywordBlock, "tuple": TupleBlock}


def _checkpoint(name: str) -> Built:
    import torch
    from fairscale.nn import checkpoint_wrapper
    from fairscale.nn.checkpoint.checkpoint_activations import disable_checkpointing
    from torch import nn

    from gt_calls import Keywords, Run

    x = _input(BATCH, WIDTH)
    if name in ("checkpoint_wrapper.mlp", "checkpoint_wrapper.mlp.offload"):
        return checkpoint_wrapper(_mlp(), offload_to_cpu=name.endswith("offload")), (x,), {}
    if name.startswith("checkpoint_wrapper.kwargs"):
        block = checkpoint_wrapper(_blocks()["kwargs"](), offload_to_cpu=name.endswith("offload"))
        return Keywords(block, mask=_input(BATCH, WIDTH, seed=2) > 0, scale=0.5), (x,), {}
    if name == "checkpoint_wrapper.positional_non_tensor":
        def positional(owner: Any, x: torch.Tensor) -> torch.Tensor:
            return owner(x, None, 0.5)

        return Run(checkpoint_wrapper(_blocks()["kwargs"]()), positional, [checkpoint_wrapper]), (x,), {}
    if name == "checkpoint_wrapper.tuple_output":
        return checkpoint_wrapper(_blocks()["tuple"]()), (x,), {}
    if name == "checkpoint_wrapper.batchnorm":
        net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
        return checkpoint_wrapper(net), (_input(2, 3, 6, 6),), {}
    if name == "checkpoint_wrapper.nested":
        net = nn.Sequential(checkpoint_wrapper(_mlp()), nn.LayerNorm(WIDTH), checkpoint_wrapper(_mlp(), True))
        return net, (x,), {}
    if name == "checkpoint_wrapper.disable_checkpointing":
        def run(owner: Any, x: torch.Tensor) -> torch.Tensor:
            with disable_checkpointing():
                return owner(x)

        return Run(checkpoint_wrapper(_mlp()), run, [checkpoint_wrapper, disable_checkpointing]), (x,), {}
    _distributed()
    from fairscale.experimental.nn import SyncBatchNorm

    net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), SyncBatchNorm(4), nn.ReLU())
    return checkpoint_wrapper(net), (_input(2, 3, 6, 6),), {}


def _moe_layer(name: str) -> Any:
    from fairscale.nn import MOELayer, Top2Gate
    from torch import nn

    _distributed()
    if name == "MOELayer.one_expert":
        return MOELayer(Top2Gate(WIDTH, 1), nn.Linear(WIDTH, WIDTH))
    if name == "MOELayer.ffn_experts":
        return MOELayer(Top2Gate(WIDTH, 2), nn.ModuleList([_mlp(), _mlp()]))
    return MOELayer(Top2Gate(WIDTH, 2), nn.ModuleList([nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, WIDTH)]))


def _moe(name: str) -> Built:
    import torch
    from fairscale.nn import MOELayer, Top2Gate
    from fairscale.nn.moe import top2gate

    from gt_calls import Call, Run

    tokens = _input(2, 4, WIDTH)
    if name == "Top2Gate":
        return Top2Gate(WIDTH, 4), (_input(8, WIDTH),), {}
    if name == "top2gating":
        return Call(top2gate.top2gating), (_input(8, 4),), {}
    if name == "gumbel_rsample":
        return Call(top2gate.gumbel_rsample), ((8, 4), torch.device("cpu")), {}
    if name == "one_hot":
        return Call(top2gate.one_hot, num_classes=5), (torch.tensor([0, 3, 1, 4, 2]),), {}
    if name == "MOELayer.l_aux":
        def run(owner: Any, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            out = owner(x)
            return out, owner.l_aux

        return Run(_moe_layer("MOELayer.two_experts"), run, [MOELayer]), (tokens,), {}
    return _moe_layer(name), (tokens,), {}


def _loss_step(net: Any, optimizer: Any, entries: list[Any], passes: int = 1, scaled: bool = True,
               gain: int | None = None, eager_backward: bool = False) -> Any:
    """A train step: ``passes`` backward passes of a squared-error loss (accumulated), then ``optimizer.step``;
    with ``gain``, the step also returns the optimizer's gain (for that group, or all when -1). With
    ``eager_backward``, the forward and backward passes run outside Dynamo (``torch._dynamo.disable``) and only
    the optimizer's calls are compiled, as users compile ``opt.step``: AdaScale's backward hooks set the
    attributes that its step reads, which a compiled frame around the backward pass loses."""
    import torch

    from gt_calls import Run

    def backward(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            for index in range(passes):
                loss = ((owner(x[index::passes]) - target[index::passes]) ** 2).mean()
                (loss / passes if scaled else loss).backward()
        return loss.detach()

    passes_backward = torch._dynamo.disable(backward) if eager_backward else backward

    def run(owner: Any, x: torch.Tensor, target: torch.Tensor) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = passes_backward(owner, x, target)
            result = None
            if gain is not None:
                result = optimizer.gain() if gain < 0 else optimizer.gain(gain)
            optimizer.step()
            return result, loss

    return Run(net, run, entries)


def _optim(name: str) -> Built:
    import torch
    from fairscale.optim import OSS, AdaScale, AdaScaleWrapper
    from torch import nn

    from gt_calls import Run

    net = _mlp()
    data = (_input(6, WIDTH), _input(6, WIDTH, seed=3))
    if name.startswith("AdaScale.") or name == "AdaScaleWrapper.step":
        passes = {"AdaScale.step.accumulate3": 3}.get(name, 2)
        if name == "AdaScale.step.adam":
            inner: Any = torch.optim.Adam(net.parameters(), lr=1e-3)
        elif name == "AdaScale.step.two_groups":
            inner = torch.optim.SGD([{"params": net[0].parameters()}, {"params": net[2].parameters(), "lr": 0.05}],
                                    lr=0.1)
        else:
            inner = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        keywords: dict[str, Any] = {"num_gradients_to_accumulate": passes}
        if name == "AdaScale.step.smoothing":
            keywords["smoothing"] = 0.9
        if name == "AdaScale.step.no_debias":
            keywords["debias_ewma"] = False
        if name == "AdaScale.step.unscaled_loss":
            keywords["is_scaled_loss"] = False
        if name == "AdaScaleWrapper.step":
            optimizer: Any = AdaScaleWrapper(net.parameters(), optim_cls=torch.optim.SGD, lr=0.1, **keywords)
        else:
            optimizer = AdaScale(inner, **keywords)
        gain = {"AdaScale.gain": 0, "AdaScale.step.two_groups": -1}.get(name)
        step = _loss_step(net, optimizer, [type(optimizer).step, AdaScale.gain], passes,
                          name != "AdaScale.step.unscaled_loss", gain, eager_backward=True)
        return step, data, {}
    if name.startswith("OSS."):
        _distributed()
        if name == "OSS.step.adam":
            optimizer = OSS(net.parameters(), optim=torch.optim.Adam, lr=1e-3)
        elif name == "OSS.step.two_groups":
            optimizer = OSS([{"params": net[0].parameters()}, {"params": net[2].parameters(), "lr": 0.01}],
                            optim=torch.optim.SGD, lr=0.1)
        else:
            optimizer = OSS(net.parameters(), optim=torch.optim.SGD, lr=0.1, momentum=0.9,
                            broadcast_fp16=name == "OSS.step.broadcast_fp16")
        if name == "OSS.step.closure":
            def closure_step(owner: Any, x: torch.Tensor, target: torch.Tensor) -> Any:
                def closure() -> torch.Tensor:
                    optimizer.zero_grad()
                    loss = ((owner(x) - target) ** 2).mean()
                    loss.backward()
                    return loss

                with torch.enable_grad():
                    return optimizer.step(closure)

            return Run(net, closure_step, [OSS.step]), data, {}
        if name == "OSS.clip_grad_norm":
            def clip(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
                with torch.enable_grad():
                    optimizer.zero_grad()
                    ((owner(x) - target) ** 2).mean().backward()
                    norm = optimizer.clip_grad_norm(0.5)
                    optimizer.step()
                    return norm

            return Run(net, clip, [OSS.clip_grad_norm, OSS.step]), data, {}
        return _loss_step(net, optimizer, [OSS.step]), data, {}
    if name in ("GradScaler.step", "ShardedGradScaler.step"):
        from fairscale.optim import grad_scaler

        if name == "GradScaler.step":
            scaler: Any = grad_scaler.GradScaler(init_scale=2.0 ** 8)
        else:
            _distributed()
            scaler = grad_scaler.ShardedGradScaler(init_scale=2.0 ** 8)
        sgd = torch.optim.SGD(net.parameters(), lr=0.1)
        kind = type(scaler)

        def scaled(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                sgd.zero_grad()
                loss = ((owner(x) - target) ** 2).mean()
                scaler.scale(loss).backward()
                scaler.unscale_(sgd)
                scaler.step(sgd)
                scaler.update()
                return loss.detach()

        return Run(net, scaled, [kind.scale, kind.unscale_, kind.step, kind.update]), data, {}
    if name == "LayerwiseGradientScaler.step":
        from fairscale.optim.layerwise_gradient_scaler import LayerwiseGradientScaler

        model = nn.Sequential()
        model.add_module("fc1", nn.Linear(WIDTH, 16))
        model.add_module("relu", nn.ReLU())
        model.add_module("fc2", nn.Linear(16, WIDTH))
        layer_scaler = LayerwiseGradientScaler(model, {"fc1": 2.0 ** 6, "fc2": 2.0 ** 4})
        sgd = torch.optim.SGD(model.parameters(), lr=0.1)

        def layerwise(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                sgd.zero_grad()
                layer_scaler.scale()
                loss = ((owner(x) - target) ** 2).mean()
                loss.backward()
                layer_scaler.unscale()
                layer_scaler.step(sgd)
                return loss.detach()

        entries = [LayerwiseGradientScaler.scale, LayerwiseGradientScaler.unscale, LayerwiseGradientScaler.step]
        return Run(model, layerwise, entries), data, {}
    from fairscale.experimental.optim import DynamicLossScaler

    loss_scaler = DynamicLossScaler(init_scale=2.0 ** 8, scale_window=2)
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)

    def dynamic(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            sgd.zero_grad()
            loss = ((owner(x) - target) ** 2).mean()
            loss_scaler.scale(loss).backward()
            loss_scaler.step(sgd)
            loss_scaler.update()
            return loss.detach()

    entries = [DynamicLossScaler.scale, DynamicLossScaler.step, DynamicLossScaler.update]
    return Run(net, dynamic, entries), data, {}


def _pipe(checkpoint: str = "never", skip: bool = False) -> Any:
    from fairscale.nn import Pipe
    from torch import nn

    if not skip:
        net = nn.Sequential(nn.Linear(WIDTH, 16), nn.ReLU(), nn.Linear(16, WIDTH))
        return Pipe(net, balance=[2, 1], devices=["cpu", "cpu"], chunks=2, checkpoint=checkpoint)
    import torch
    from fairscale.nn.pipe.skip import pop, skippable, stash

    @skippable(stash=["identity"])
    class Stash(nn.Module):
        def forward(self, x: torch.Tensor) -> Any:
            yield stash("identity", x)
            return x

    @skippable(pop=["identity"])
    class Pop(nn.Module):
        def forward(self, x: torch.Tensor) -> Any:
            identity = yield pop("identity")
            return x + identity

    net = nn.Sequential(Stash(), nn.Linear(WIDTH, WIDTH), nn.ReLU(), Pop())
    return Pipe(net, balance=[2, 2], devices=["cpu", "cpu"], chunks=2)


def _wrappers(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Call, Run

    x = _input(BATCH, WIDTH)
    if name == "ShardedDataParallel":
        from fairscale.nn.data_parallel import ShardedDataParallel
        from fairscale.optim import OSS

        _distributed()
        net = _mlp()
        return ShardedDataParallel(net, OSS(net.parameters(), lr=0.1)), (x,), {}
    if name == "ShardedDataParallel.buffers":
        from fairscale.nn.data_parallel import ShardedDataParallel
        from fairscale.optim import OSS

        _distributed()
        net = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.BatchNorm1d(WIDTH), nn.ReLU())
        wrapped = ShardedDataParallel(net, OSS(net.parameters(), lr=0.1), broadcast_buffers=True, reduce_buffer_size=0)
        return wrapped, (x,), {}
    if name == "FlattenParamsWrapper":
        from fairscale.nn import FlattenParamsWrapper

        return FlattenParamsWrapper(_mlp()), (x,), {}
    if name == "FlattenParamsWrapper.two_groups":
        from fairscale.nn import FlattenParamsWrapper

        net = _mlp()
        groups = [list(net[0].parameters()), list(net[2].parameters())]
        return FlattenParamsWrapper(net, param_list=groups, flat_param_names=["first", "last"]), (x,), {}
    if name == "FlattenParamsWrapper.unflatten_params":
        from fairscale.nn import FlattenParamsWrapper

        def unflattened(owner: Any, x: torch.Tensor) -> torch.Tensor:
            with owner.unflatten_params():
                return owner.module(x)

        return Run(FlattenParamsWrapper(_mlp()), unflattened, [FlattenParamsWrapper.unflatten_params]), (x,), {}
    if name == "auto_wrap.FlattenParamsWrapper":
        import functools

        from fairscale.nn import FlattenParamsWrapper, auto_wrap, default_auto_wrap_policy, enable_wrap

        policy = functools.partial(default_auto_wrap_policy, min_num_params=10)
        with enable_wrap(wrapper_cls=FlattenParamsWrapper):
            net = auto_wrap(nn.Sequential(_mlp(), nn.LayerNorm(WIDTH), _mlp()), auto_wrap_policy=policy)
        return net, (x,), {}
    if name.endswith("_model_parallel_region"):
        _distributed(model_parallel=True)
        from fairscale.nn.model_parallel import mappings

        # A non-leaf input that requires grad: the reduction all-reduces in place.
        return Call(getattr(mappings, name)), (_input(BATCH, WIDTH).requires_grad_() * 1.0,), {}
    if name.startswith(("ColumnParallelLinear", "RowParallelLinear", "VocabParallelEmbedding",
                        "ParallelEmbedding", "vocab_parallel_cross_entropy")):
        _distributed(model_parallel=True)
        from fairscale.nn.model_parallel import layers
        from fairscale.nn.model_parallel.cross_entropy import vocab_parallel_cross_entropy

        if name == "ColumnParallelLinear":
            return layers.ColumnParallelLinear(WIDTH, 12), (x,), {}
        if name == "ColumnParallelLinear.scattered":
            return layers.ColumnParallelLinear(WIDTH, 12, bias=False, gather_output=False), (x,), {}
        if name == "RowParallelLinear":
            return layers.RowParallelLinear(WIDTH, 12), (x,), {}
        if name == "RowParallelLinear.parallel_input":
            return layers.RowParallelLinear(WIDTH, 12, input_is_parallel=True), (x,), {}
        tokens = torch.tensor([[1, 5, 7, 2], [0, 3, 9, 4]])
        if name == "VocabParallelEmbedding":
            return layers.VocabParallelEmbedding(10, WIDTH), (tokens,), {}
        if name == "ParallelEmbedding":
            return layers.ParallelEmbedding(10, WIDTH), (tokens,), {}
        return Call(vocab_parallel_cross_entropy), (_input(2, 4, 10), tokens), {}
    if name == "Pipe.deferred_batch_norm":
        from fairscale.nn import Pipe

        net = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.BatchNorm1d(WIDTH), nn.ReLU(), nn.Linear(WIDTH, WIDTH))
        return Pipe(net, balance=[2, 2], devices=["cpu", "cpu"], chunks=2, deferred_batch_norm=True), (x,), {}
    if name.startswith("Pipe."):
        checkpoint = name.split(".", 1)[1]
        return _pipe(checkpoint if checkpoint != "skip" else "never", skip=checkpoint == "skip"), (x,), {}
    _distributed()
    from fairscale.experimental.nn import SyncBatchNorm

    return SyncBatchNorm(4), (_input(2, 4, 5, 5),), {}


def _train(name: str) -> Built:
    import torch
    from fairscale.nn import checkpoint_wrapper
    from torch import nn

    from gt_calls import Run

    what = name.split(".", 1)[1]
    x, target = _input(BATCH, WIDTH), _input(BATCH, WIDTH, seed=3)
    if what.startswith("checkpoint_wrapper"):
        if what == "checkpoint_wrapper.batchnorm":
            net: Any = checkpoint_wrapper(nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.BatchNorm1d(WIDTH), nn.ReLU()))
        elif what == "checkpoint_wrapper.kwargs":
            block = checkpoint_wrapper(_blocks()["kwargs"]())
            mask = _input(BATCH, WIDTH, seed=2) > 0
            net = nn.Sequential(nn.Linear(WIDTH, WIDTH))
            net.block = block

            def run(owner: Any, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
                with torch.enable_grad():
                    sgd.zero_grad()
                    loss = ((owner.block(owner[0](x), mask=mask, scale=0.5) - target) ** 2).mean()
                    loss.backward()
                    sgd.step()
                    return loss.detach()

            sgd = torch.optim.SGD(net.parameters(), lr=0.1)
            return Run(net, run, [checkpoint_wrapper]), (x, target), {}
        else:
            net = nn.Sequential(nn.Linear(WIDTH, WIDTH), checkpoint_wrapper(_mlp(), what.endswith("offload")))
        return _loss_step(net, torch.optim.SGD(net.parameters(), lr=0.1), [checkpoint_wrapper]), (x, target), {}
    if what == "MOELayer":
        from fairscale.nn import MOELayer

        moe = _moe_layer("MOELayer.two_experts")
        sgd = torch.optim.SGD(moe.parameters(), lr=0.1)

        def moe_step(owner: Any, tokens: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            with torch.enable_grad():
                sgd.zero_grad()
                loss = ((owner(tokens) - target) ** 2).mean() + 0.01 * owner.l_aux
                loss.backward()
                sgd.step()
                return loss.detach()

        return Run(moe, moe_step, [MOELayer]), (_input(2, 4, WIDTH), _input(2, 4, WIDTH, seed=3)), {}
    if what.startswith("ShardedDataParallel"):
        from fairscale.nn.data_parallel import ShardedDataParallel
        from fairscale.optim import OSS

        _distributed()
        net = _mlp()
        optimizer = OSS(net.parameters(), lr=0.1)
        wrapped = ShardedDataParallel(net, optimizer, reduce_buffer_size=2 ** 10 if what.endswith("buckets") else 0)
        return _loss_step(wrapped, optimizer, [ShardedDataParallel, OSS.step]), (x, target), {}
    if what == "FlattenParamsWrapper":
        from fairscale.nn import FlattenParamsWrapper

        net = FlattenParamsWrapper(_mlp())
        return _loss_step(net, torch.optim.SGD(net.parameters(), lr=0.1), [FlattenParamsWrapper]), (x, target), {}
    if what == "model_parallel":
        _distributed(model_parallel=True)
        from fairscale.nn.model_parallel import layers

        net = nn.Sequential(layers.ColumnParallelLinear(WIDTH, 16, gather_output=False), nn.ReLU(),
                            layers.RowParallelLinear(16, WIDTH, input_is_parallel=True))
        entries = [layers.ColumnParallelLinear, layers.RowParallelLinear]
        return _loss_step(net, torch.optim.SGD(net.parameters(), lr=0.1), entries), (x, target), {}
    _distributed()
    from fairscale.experimental.nn import SyncBatchNorm

    net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), SyncBatchNorm(4), nn.ReLU(), nn.Flatten())
    return _loss_step(net, torch.optim.SGD(net.parameters(), lr=0.1), [SyncBatchNorm]), \
        (_input(2, 3, 4, 4), _input(2, 64, seed=3)), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in CHECKPOINT:
        return _checkpoint(name)
    if name in MOE:
        return _moe(name)
    if name in OPTIM:
        return _optim(name)
    if name in WRAPPERS:
        return _wrappers(name)
    return _train(name)
