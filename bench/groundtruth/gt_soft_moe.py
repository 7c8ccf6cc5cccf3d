"""Ground-truth bench, soft_moe_pytorch (soft-moe-pytorch): Soft MoE layers, their experts, trained and run.

soft-moe-pytorch (lucidrains) exports ``SoftMoE`` (every token softly dispatched to the slots of a set of
feed-forward experts and softly combined back, the layer of "From Sparse to Soft Mixtures of Experts")
and ``DynamicSlotsSoftMoE`` (its slot embeddings projected from the mean of consecutive tokens, so the
number of slots follows the sequence length). ``SoftMoE`` routes its slots through ``Experts``, which
may move the experts it does not use to the CPU (``offload_unused_experts_to_cpu``) and, when
distributed, gathers across ranks. So each model is one of:

- ``SOFT_MOE``: ``SoftMoE`` at a tiny width (dim 16, 4 experts, a batch of 2 sequences of 16 tokens) in
  the configurations that change its code: slots from ``seq_len`` or given as ``num_slots``, GEGLU
  experts (``geglu``), ``LayerNorm`` instead of ``RMSNorm`` (``use_layernorm``), no offloading, dropout,
  ``is_distributed=False`` given; inputs as a sequence, a single token (2-D) or an image (4-D,
  channels first); a padding mask; Gumbel noise on the logits (``add_noise``, ``noise_mult``);
- ``DYNAMIC``: ``DynamicSlotsSoftMoE`` with a sequence a multiple of the number of experts or padded to
  one, a padding mask (or both), GEGLU experts, dropout, images (a square of 16 or 9 pixels);
- ``TRAIN``: bench train steps (``_TrainStep``) as the README uses the layers, in place of a
  transformer's feed-forward: a token classifier (embeddings, a residual ``SoftMoE`` or
  ``DynamicSlotsSoftMoE``, a head) whose cross-entropy is returned, with a padding mask or Gumbel noise,
  and an image classifier (a patch convolution, ``SoftMoE`` on the feature map, pooling, a head);
- ``PARTS``: ``Experts`` on slots batched by expert (offloading or not, GEGLU experts), the norms
  (``LayerNorm``, ``RMSNorm``), ``GEGLU``, ``FeedForward`` and ``GLUFeedForward``;
- ``FUNCTIONS``: ``cumsum_exclusive``, ``gumbel_noise``, ``l2norm``, ``pad_to_multiple`` (padded or not)
  and the ``distributed`` module's ``pad_dim_to`` and ``has_only_one_value``, through ``gt_calls.Call``.

Left out: the distributed paths (``is_distributed=True``, ``AllGather``, ``gather_sizes``,
``all_gather_variable_dim``, ``split_by_rank``), which need an initialised process group, and
``Experts.all_experts_to_cpu_besides`` given an ``int``, which fails in eager mode on 0.1.9 (it then
builds a set of the ``int``). Options that only change a number (more experts, other multipliers)
are left out to keep the library's run short.

Every model is compiled in train and in eval mode (dropout differs). Random weights, nothing
downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, EXPERTS, BATCH, SEQ, VOCAB, CLASSES = 16, 4, 2, 16, 32, 5

# ``SoftMoE`` name -> (constructor keywords, input, call keywords). The input is a "seq" (batch, 16, dim),
# a "token" (batch, dim) or an "image" (batch, dim, 4, 4); "MASK" in the call stands for a padding mask.
SOFT_MOE: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "SoftMoE": ({}, "seq", {}),
    "SoftMoE.num_slots": ({"num_slots": 2}, "seq", {}),
    "SoftMoE.geglu": ({"geglu": True}, "seq", {}),
    "SoftMoE.layernorm": ({"use_layernorm": True}, "seq", {}),
    "SoftMoE.no_offload": ({"offload_unused_experts_to_cpu": False}, "seq", {}),
    "SoftMoE.not_distributed": ({"is_distributed": False}, "seq", {}),
    "SoftMoE.dropout": ({"dropout": 0.1}, "seq", {}),
    "SoftMoE.mask": ({}, "seq", {"mask": "MASK"}),
    "SoftMoE.add_noise": ({}, "seq", {"add_noise": True}),
    "SoftMoE.add_noise.noise_mult": ({}, "seq", {"add_noise": True, "noise_mult": 0.5}),
    "SoftMoE.mask.add_noise": ({}, "seq", {"mask": "MASK", "add_noise": True}),
    "SoftMoE.single_token": ({"num_slots": 1}, "token", {}),
    "SoftMoE.image": ({}, "image", {}),
    "SoftMoE.image.geglu.layernorm": ({"geglu": True, "use_layernorm": True}, "image", {}),
    "SoftMoE.geglu.layernorm.mask": ({"geglu": True, "use_layernorm": True, "dropout": 0.1}, "seq", {"mask": "MASK"}),
    "SoftMoE.no_offload.mask.add_noise": ({"offload_unused_experts_to_cpu": False}, "seq",
                                          {"mask": "MASK", "add_noise": True}),
}
# ``DynamicSlotsSoftMoE`` name -> (constructor keywords, input, call keywords); "seq_pad" is a sequence
# of 14 tokens (padded to 16 inside), "image_pad" a 3 x 3 image (9 pixels, padded to 12).
DYNAMIC: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "DynamicSlotsSoftMoE": ({}, "seq", {}),
    "DynamicSlotsSoftMoE.geglu": ({"geglu": True}, "seq", {}),
    "DynamicSlotsSoftMoE.dropout": ({"dropout": 0.1}, "seq", {}),
    "DynamicSlotsSoftMoE.mask": ({}, "seq", {"mask": "MASK"}),
    "DynamicSlotsSoftMoE.padded": ({}, "seq_pad", {}),
    "DynamicSlotsSoftMoE.padded.mask": ({}, "seq_pad", {"mask": "MASK"}),
    "DynamicSlotsSoftMoE.image": ({}, "image", {}),
    "DynamicSlotsSoftMoE.image.padded.geglu": ({"geglu": True}, "image_pad", {}),
}
# Train step name -> (layer, layer keywords, with a padding mask, with Gumbel noise, on images).
TRAIN: dict[str, tuple[str, dict[str, Any], bool, bool, bool]] = {
    "train_step.SoftMoE": ("SoftMoE", {}, False, False, False),
    "train_step.SoftMoE.mask": ("SoftMoE", {"geglu": True}, True, False, False),
    "train_step.SoftMoE.add_noise": ("SoftMoE", {}, False, True, False),
    "train_step.SoftMoE.image": ("SoftMoE", {}, False, False, True),
    "train_step.DynamicSlotsSoftMoE": ("DynamicSlotsSoftMoE", {}, False, False, False),
    "train_step.DynamicSlotsSoftMoE.mask": ("DynamicSlotsSoftMoE", {"geglu": True}, True, False, False),
}
PARTS = ("Experts", "Experts.no_offload", "Experts.geglu", "LayerNorm", "RMSNorm", "GEGLU", "FeedForward",
         "GLUFeedForward", "DynamicSlots.RMSNorm")
FUNCTIONS = ("cumsum_exclusive", "gumbel_noise", "l2norm", "pad_to_multiple", "pad_to_multiple.padded",
             "pad_dim_to", "has_only_one_value")


def names() -> list[str]:
    return list(SOFT_MOE) + list(DYNAMIC) + list(TRAIN) + list(PARTS) + list(FUNCTIONS)


def _mask(length: int) -> Any:
    import torch

    return torch.arange(length).expand(BATCH, length) < torch.tensor([[length], [length - 5]])


def _input(kind: str) -> Any:
    import torch

    gen = torch.Generator().manual_seed(1)
    shape = {"seq": (BATCH, SEQ, DIM), "seq_pad": (BATCH, SEQ - 2, DIM), "token": (BATCH, DIM),
             "image": (BATCH, DIM, 4, 4), "image_pad": (BATCH, DIM, 3, 3)}[kind]
    return torch.randn(*shape, generator=gen)


def _call(call: dict[str, Any], x: Any) -> dict[str, Any]:
    return {k: _mask(x.shape[1]) if v == "MASK" else v for k, v in call.items()}


def _train_step(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from soft_moe_pytorch import DynamicSlotsSoftMoE, SoftMoE
    from torch import nn

    layer_name, keywords, masked, noised, image = TRAIN[name]

    class _TrainStep(nn.Module):
        """Embeddings (or a patch convolution), a residual soft MoE layer in place of a feed-forward, a
        head: the cross-entropy of the token (or image) labels, returned."""

        def __init__(self) -> None:
            super().__init__()
            if image:
                self.embed: nn.Module = nn.Conv2d(3, DIM, kernel_size=4, stride=4)
            else:
                self.embed = nn.Embedding(VOCAB, DIM)
            if layer_name == "SoftMoE":
                self.moe: nn.Module = SoftMoE(DIM, seq_len=SEQ, num_experts=EXPERTS, expert_mult=2, **keywords)
            else:
                self.moe = DynamicSlotsSoftMoE(DIM, num_experts=EXPERTS, expert_mult=2, **keywords)
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, inputs: torch.Tensor, labels: torch.Tensor, *mask: torch.Tensor) -> torch.Tensor:
            x = self.embed(inputs)
            call: dict[str, Any] = {"mask": mask[0]} if mask else {}
            if noised:
                call["add_noise"] = self.training
            x = self.moe(x, **call) + x
            if image:
                return F.cross_entropy(self.head(x.mean(dim=(-2, -1))), labels)
            return F.cross_entropy(self.head(x).reshape(-1, CLASSES), labels.reshape(-1))

        def entry_points(self) -> list[Any]:
            return [type(self.moe)]

    gen = torch.Generator().manual_seed(2)
    if image:
        inputs = torch.randn(BATCH, 3, 16, 16, generator=gen)
        labels = torch.randint(0, CLASSES, (BATCH,), generator=gen)
    else:
        inputs = torch.randint(0, VOCAB, (BATCH, SEQ), generator=gen)
        labels = torch.randint(0, CLASSES, (BATCH, SEQ), generator=gen)
    args: tuple[Any, ...] = (inputs, labels, _mask(SEQ)) if masked else (inputs, labels)
    return _TrainStep(), args, {}


def _part(name: str) -> Built:
    import torch
    from soft_moe_pytorch import soft_moe as S
    from soft_moe_pytorch import soft_moe_with_dynamic_slots as D

    x = _input("seq")
    if name.startswith("Experts"):
        klass = S.GLUFeedForward if name.endswith("geglu") else S.FeedForward
        experts = S.Experts([klass(dim=DIM, mult=2) for _ in range(EXPERTS)], is_distributed=False,
                            offload_unused_experts_to_cpu=not name.endswith("no_offload"))
        slots = torch.randn(BATCH, EXPERTS, 4, DIM, generator=torch.Generator().manual_seed(3))
        return experts, (slots,), {}
    modules = {"LayerNorm": lambda: S.LayerNorm(DIM), "RMSNorm": lambda: S.RMSNorm(DIM), "GEGLU": S.GEGLU,
               "FeedForward": lambda: S.FeedForward(DIM, mult=2, dropout=0.1),
               "GLUFeedForward": lambda: S.GLUFeedForward(DIM, mult=2, dropout=0.1),
               "DynamicSlots.RMSNorm": lambda: D.RMSNorm(DIM)}
    return modules[name](), (x,), {}


def _function(name: str) -> Built:
    import torch
    from gt_calls import Call
    from soft_moe_pytorch import distributed as T
    from soft_moe_pytorch import soft_moe as S
    from soft_moe_pytorch import soft_moe_with_dynamic_slots as D

    x = _input("seq")
    if name == "cumsum_exclusive":
        return Call(S.cumsum_exclusive, dim=-2), (x,), {}
    if name == "gumbel_noise":
        return Call(S.gumbel_noise), (x,), {}
    if name == "l2norm":
        return Call(S.l2norm), (x,), {}
    if name.startswith("pad_to_multiple"):
        return Call(D.pad_to_multiple, multiple=5 if name.endswith("padded") else 4, dim=-2), (x,), {}
    if name == "pad_dim_to":
        return Call(T.pad_dim_to, length=20, dim=1), (x,), {}
    return Call(T.has_only_one_value), (torch.tensor([3, 3, 3]),), {}


def build(name: str) -> Built:
    import torch
    from soft_moe_pytorch import DynamicSlotsSoftMoE, SoftMoE

    torch.manual_seed(0)
    if name in SOFT_MOE:
        keywords, kind, call = SOFT_MOE[name]
        if "num_slots" not in keywords:
            keywords = {"seq_len": SEQ, **keywords}
        x = _input(kind)
        return SoftMoE(DIM, num_experts=EXPERTS, expert_mult=2, **keywords), (x,), _call(call, x)
    if name in DYNAMIC:
        keywords, kind, call = DYNAMIC[name]
        x = _input(kind)
        return DynamicSlotsSoftMoE(DIM, num_experts=EXPERTS, expert_mult=2, **keywords), (x,), _call(call, x)
    if name in TRAIN:
        return _train_step(name)
    if name in PARTS:
        return _part(name)
    return _function(name)
