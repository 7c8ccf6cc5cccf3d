"""Ground-truth bench, opacus: per-sample gradients, private optimizers and the privacy engine.

opacus (Meta's differential-privacy library for PyTorch) trains a network with DP-SGD. A grad-sample
module wraps the network and records, through forward and backward hooks, one gradient per sample of
the batch (``GradSampleModule`` in its ``hooks`` and ``functorch`` modes, the ExpandedWeights one
(``ew``), the no-op one, the ghost-clipping one that keeps only per-sample gradient norms, and the hooks
attached without a wrapper); a ``DPOptimizer`` then clips each sample's gradient, sums them, adds
Gaussian noise and steps the wrapped optimizer (flat, per-layer and adaptive clipping; gradient
accumulation and virtual steps); ``PrivacyEngine.make_private`` builds these (with a Poisson-sampling
data loader and a privacy accountant) from a plain network, optimizer and loader. Its own layers
(``DPLSTM``, ``DPGRU``, ``DPRNN``, their cells, ``DPMultiheadAttention``, ``SequenceBias``) replace the
torch ones whose per-sample gradients it cannot compute. At tiny sizes (a batch of 4, features of 8,
hidden width 16, 4 classes, sequences of 5 tokens of a vocabulary of 20), over the small nets of
``NETS`` (linear, conv 1d/2d/3d with groups, strides, ``"same"``/``"valid"`` padding and dilation,
layer/group/instance/RMS norms, embeddings and an embedding bag, the DP recurrent layers on padded and
packed sequences, DP attention with masks and bias/zero-attention keys batch first and second, a
transformer layer fixed by ``ModuleValidator``, PReLU (no grad sampler: functorch computes its
per-sample gradients), tied weights), the models are:

- ``FORWARD``: a grad-sample module's forward, as users compile the wrapped model: eval mode under
  ``no_grad`` (the hooks return early), train mode with the activation hooks recording. Only the wrapper,
  its hooks and opacus's layers are opacus code here, so nets of torch layers alone trace the same lines
  and ``mlp`` stands for them;
- ``TRAIN_STEP``: a whole step compiled, ``zero_grad``, forward, loss and ``backward`` with the
  per-sample-gradient hooks running inside the compiled region (measured on torch 2.13: the hooks'
  frames fail in the first layer's hook, ``promote_current_grad_sample``'s ``del`` of a parameter
  attribute, a ``TorchRuntimeError``; the ExpandedWeights and no-op modes have no such hooks); eval
  mode runs the private model's inference, as in every step below;
- ``OPTIMIZERS``: DP steps. With ``DPOptimizer``, ``DPPerLayerOptimizer`` and ``AdaClipDPOptimizer`` the
  backward is kept eager (``torch.compiler.disable``: the hooks' frames run uncompiled, as when users
  compile the model and step outside it) and the forward, ``zero_grad`` and the optimizer's ``step``
  are compiled: mean and sum reductions, no noise, secure-mode noise, a seeded generator over Adam,
  two accumulated batches, a skipped virtual step (``BatchMemoryManager``'s pattern), a closure, an
  accountant's step hook, ExpandedWeights, recurrent, packed, attention and tied nets (measured:
  ``AdaClipDPOptimizer``'s compiled step fails, its ``unclipped_num`` reaching ``add_noise`` as an int,
  an ``AttributeError`` the eager step does not raise). With ghost
  clipping (``DPOptimizerFastGradientClipping`` and its loss, ``DPLossFastGradientClipping``) the
  loss's double backward runs compiled, hooks included, so each layer kind's grad or norm sampler runs
  there: one net per layer kind, fast gradient clipping (``use_ghost_clipping=False``), a virtual step,
  arithmetic on the private loss and a sequence loss with ``ignore_index`` (measured: a layer without a
  norm sampler computes its per-sample gradients and then fails in ``promote_current_grad_sample`` as
  the train steps do; linear, embedding, recurrent and attention nets run through). ``STEP_ONLY``: each
  optimizer's ``step`` alone, on per-sample gradients prepared by an eager backward;
- ``MAKE_PRIVATE``: what ``PrivacyEngine.make_private`` returns (module, optimizer and, for ghost
  clipping, criterion) in the eager-backward step: its defaults (hooks, flat clipping, Poisson
  sampling, the PRV accountant), the RDP and Gaussian accountants, ExpandedWeights and ghost modes,
  per-layer and adaptive clipping, ``wrap_model=False``, noise and clipping schedulers stepped after
  the optimizer, ``make_private_with_epsilon``, an embedding-LSTM classifier, a transformer layer,
  ``PrivacyEngineAdaptiveClipping`` (adaptive ghost clipping) and a whole epoch over the private
  Poisson-sampling loader split into physical batches by ``BatchMemoryManager``; the loaders are
  in-memory ``TensorDataset``s;
- ``LAYERS``: opacus's layers alone, in the options that change their code;
- ``SAMPLERS`` (``grad_sample.*``): the per-layer grad and norm samplers called directly on activations
  and output gradients (linear, conv 1d/2d/3d and an empty batch, the conv-as-conv backward, embedding,
  embedding bag in sum and mean modes, embedding norms, the norms, the DP RNN's linear, the sequence
  bias, functorch's per-layer sampler);
- ``UTILS``: ``tensor_utils`` (per-sample norms, ``unfold2d`` / ``unfold3d`` with padding, strides and
  dilation), the packed-sequence helpers, opacus's own per-sample-gradient check
  (``check_per_sample_gradients_are_correct``; measured: Dynamo fails in it with a ``RecursionError``),
  the optimizer's noise (plain, secure, zero), the ghost module's clipping coefficients, the DP data
  loader's collate of a batch and of empty batches, and one batch drawn by its Poisson sampler
  (``UniformWithReplacementSampler``).

The distributed pieces (``DifferentiallyPrivateDistributedDataParallel``, the distributed and FSDP
optimizers, the FSDP/TP ghost modules) need a process group and are left out, and so is the Lightning
integration; the accountants' ``get_epsilon`` (NumPy and SciPy, outside training) are left out, their
``step`` runs in the optimizers' step hooks. Random weights, nothing downloaded. ``names()`` needs no
torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
B, D, H, C, T, V, N = 4, 8, 16, 4, 5, 20, 16  # batch, features, hidden, classes, time, vocabulary, dataset

NETS = (
    "mlp", "mlp.seq", "custom", "tied", "conv1d", "conv1d.same", "conv2d", "conv3d.dilated", "layernorm",
    "layernorm.seq", "groupnorm", "instancenorm", "rmsnorm", "embedding", "embeddingbag", "embedding.lstm", "lstm",
    "lstm.bidirectional", "gru", "rnn.relu", "lstm.packed", "mha", "mha.batch_second", "transformer",
)
# Nets whose grad-sample module takes the batch on the second dimension (``batch_first=False``).
BATCH_SECOND = ("mha.batch_second",)
# grad-sample mode -> the nets whose forward is a model (``GradSampleModule.<mode>.<net>``); ``hooks.unwrapped``
# is ``GradSampleHooks`` attached to the net itself (``GradSampleHooks.<net>``). A forward runs opacus's code
# only in the wrapper, its activation hooks and opacus's own layers: nets of torch layers alone all trace the
# same lines, so one of them (``mlp``) stands for them, and the others serve the steps below, whose
# compiled backward runs each layer's grad sampler.
FORWARD: dict[str, tuple[str, ...]] = {
    "hooks": ("mlp", "tied", "embeddingbag", "embedding.lstm", "lstm", "lstm.bidirectional", "gru", "rnn.relu",
              "lstm.packed", "mha", "mha.batch_second", "transformer"),
    "functorch": ("mlp",),
    "ew": ("mlp",),
    "no_op": ("mlp",),
    "hooks.unwrapped": ("mlp", "lstm"),
}
# A training step compiled whole, backward included (the per-sample-gradient hooks run compiled): name -> (net,
# grad-sample mode).
TRAIN_STEP: dict[str, tuple[str, str]] = {
    "train_step.hooks.mlp": ("mlp", "hooks"),
    "train_step.hooks.lstm": ("lstm", "hooks"),
    "train_step.hooks.mha": ("mha", "hooks"),
    "train_step.functorch.mlp": ("mlp", "functorch"),
    "train_step.ew.mlp": ("mlp", "ew"),
    "train_step.no_op.mlp": ("mlp", "no_op"),
}
# A DP step: name -> (net, grad-sample mode, optimizer class, its keywords, the step's variant). Keywords: "base"
# picks the wrapped torch optimizer, "step_hook" an accountant's hook. The backward stays eager (the hooks'
# frames uncompiled), except with ghost clipping ("ghost", "fgc": its loss's backward runs compiled, hooks
# and grad or norm samplers of every layer kind included).
OPTIMIZERS: dict[str, tuple[str, str, str, dict[str, Any], str]] = {
    "DPOptimizer": ("mlp", "hooks", "DPOptimizer", {}, "plain"),
    "DPOptimizer.loss_reduction_sum": ("mlp", "hooks", "DPOptimizer", {"loss_reduction": "sum"}, "plain"),
    "DPOptimizer.no_noise": ("mlp", "hooks", "DPOptimizer", {"noise_multiplier": 0.0}, "plain"),
    "DPOptimizer.secure_mode": ("mlp", "hooks", "DPOptimizer", {"secure_mode": True}, "plain"),
    "DPOptimizer.generator.Adam": ("mlp", "hooks", "DPOptimizer", {"generator": "seeded", "base": "Adam"}, "plain"),
    "DPOptimizer.accumulate": ("mlp", "hooks", "DPOptimizer", {}, "accumulate"),
    "DPOptimizer.virtual_step": ("mlp", "hooks", "DPOptimizer", {}, "virtual"),
    "DPOptimizer.closure": ("mlp", "hooks", "DPOptimizer", {}, "closure"),
    "DPOptimizer.accountant_hook": ("mlp", "hooks", "DPOptimizer", {"step_hook": "rdp"}, "plain"),
    "DPOptimizer.ew": ("conv2d", "ew", "DPOptimizer", {}, "plain"),
    "DPOptimizer.lstm": ("lstm", "hooks", "DPOptimizer", {}, "plain"),
    "DPOptimizer.lstm.packed": ("lstm.packed", "hooks", "DPOptimizer", {}, "plain"),
    "DPOptimizer.mha": ("mha", "hooks", "DPOptimizer", {}, "plain"),
    "DPOptimizer.tied": ("tied", "hooks", "DPOptimizer", {}, "plain"),
    "DPPerLayerOptimizer": ("mlp", "hooks", "DPPerLayerOptimizer", {}, "plain"),
    "DPPerLayerOptimizer.conv2d.virtual_step": ("conv2d", "hooks", "DPPerLayerOptimizer", {}, "virtual"),
    "AdaClipDPOptimizer": ("mlp", "hooks", "AdaClipDPOptimizer", {}, "plain"),
    "AdaClipDPOptimizer.accumulate": ("mlp", "hooks", "AdaClipDPOptimizer", {}, "accumulate"),
    **{f"DPOptimizerFastGradientClipping.{net}": (net, "ghost", "DPOptimizerFastGradientClipping", {}, "plain")
       for net in ("mlp", "mlp.seq", "conv1d", "conv1d.same", "conv2d", "conv3d.dilated", "layernorm",
                   "layernorm.seq", "groupnorm", "instancenorm", "rmsnorm", "embedding", "custom", "lstm", "mha")},
    "DPOptimizerFastGradientClipping.fast_gradient_clipping.mlp": ("mlp", "fgc", "DPOptimizerFastGradientClipping",
                                                                   {}, "plain"),
    "DPOptimizerFastGradientClipping.virtual_step": ("mlp", "ghost", "DPOptimizerFastGradientClipping", {},
                                                     "virtual"),
    "DPOptimizerFastGradientClipping.loss_arithmetic": ("mlp", "ghost", "DPOptimizerFastGradientClipping", {},
                                                        "arithmetic"),
    "DPOptimizerFastGradientClipping.sequence_loss": ("lm", "ghost", "DPOptimizerFastGradientClipping", {},
                                                      "sequence"),
}
STEP_ONLY = ("DPOptimizer.step", "DPPerLayerOptimizer.step", "AdaClipDPOptimizer.step",
             "DPOptimizerFastGradientClipping.step")
# ``make_private`` name -> (net, options). Options other than make_private's keywords: "accountant",
# "epsilon" (make_private_with_epsilon), "schedulers", "adaptive_ghost" (PrivacyEngineAdaptiveClipping),
# "memory_manager" (an epoch over the private loader through ``BatchMemoryManager``).
ADAPTIVE = {"target_unclipped_quantile": 0.5, "clipbound_learning_rate": 0.2, "max_clipbound": 10.0,
            "min_clipbound": 0.1, "unclipped_num_std": 1.0}
MAKE_PRIVATE: dict[str, tuple[str, dict[str, Any]]] = {
    "make_private": ("mlp", {}),
    "make_private.rdp": ("mlp", {"accountant": "rdp"}),
    "make_private.gdp": ("mlp", {"accountant": "gdp"}),
    "make_private.ew": ("conv2d", {"grad_sample_mode": "ew"}),
    "make_private.ghost": ("mlp", {"grad_sample_mode": "ghost"}),
    "make_private.per_layer": ("mlp", {"clipping": "per_layer"}),
    "make_private.adaptive": ("mlp", {"clipping": "adaptive", **ADAPTIVE}),
    "make_private.wrap_model_false": ("mlp", {"wrap_model": False}),
    "make_private.schedulers": ("mlp", {"schedulers": True}),
    "make_private_with_epsilon": ("mlp", {"epsilon": True, "accountant": "rdp"}),
    "make_private.embedding.lstm": ("embedding.lstm", {}),
    "make_private.transformer": ("transformer", {}),
    "PrivacyEngineAdaptiveClipping.ghost": ("mlp", {"adaptive_ghost": True}),
    "make_private.BatchMemoryManager.epoch": ("mlp", {"memory_manager": True}),
}
LAYERS = (
    "DPLSTM", "DPLSTM.batch_first.state", "DPLSTM.bidirectional.2layers.dropout", "DPLSTM.packed",
    "DPLSTM.packed.sorted", "DPGRU", "DPGRU.packed.bidirectional", "DPRNN", "DPRNN.relu.2layers", "DPLSTMCell",
    "DPGRUCell.state", "DPRNNCell.relu", "DPMultiheadAttention", "DPMultiheadAttention.batch_first",
    "DPMultiheadAttention.bias_kv.zero_attn.masks", "DPMultiheadAttention.attn_mask.float3d",
    "DPMultiheadAttention.masks.uint8", "DPMultiheadAttention.no_weights.dropout",
    "SequenceBias", "SequenceBias.batch_first", "TransformerEncoderLayer.DPMultiheadAttention",
)
# Grad samplers and norm samplers called directly: name -> (function, layer kind).
SAMPLERS: dict[str, tuple[str, str]] = {
    "compute_linear_grad_sample.seq": ("linear.compute_linear_grad_sample", "linear.seq"),
    "compute_linear_norm_sample": ("linear.compute_linear_norm_sample", "linear"),
    "compute_linear_norm_sample.seq": ("linear.compute_linear_norm_sample", "linear.seq"),
    "compute_conv_grad_sample.conv1d.same": ("conv.compute_conv_grad_sample", "conv1d.same"),
    "compute_conv_grad_sample.conv2d.groups": ("conv.compute_conv_grad_sample", "conv2d.groups"),
    "compute_conv_grad_sample.conv3d": ("conv.compute_conv_grad_sample", "conv3d"),
    "compute_conv_grad_sample.empty_batch": ("conv.compute_conv_grad_sample", "conv2d.empty"),
    "convolution2d_backward_as_a_convolution": ("conv.convolution2d_backward_as_a_convolution", "conv2d.groups"),
    "compute_embedding_grad_sample": ("embedding.compute_embedding_grad_sample", "embedding"),
    "compute_embeddingbag_gradsampler.sum": ("embedding.compute_embeddingbag_gradsampler", "embeddingbag.sum"),
    "compute_embeddingbag_gradsampler.mean": ("embedding.compute_embeddingbag_gradsampler", "embeddingbag.mean"),
    "compute_embedding_norm_sample": ("embedding_norm_sample.compute_embedding_norm_sample", "embedding"),
    "compute_layer_norm_grad_sample": ("layer_norm.compute_layer_norm_grad_sample", "layernorm"),
    "compute_group_norm_grad_sample": ("group_norm.compute_group_norm_grad_sample", "groupnorm"),
    "compute_instance_norm_grad_sample": ("instance_norm.compute_instance_norm_grad_sample", "instancenorm"),
    "compute_rms_norm_grad_sample": ("rms_norm.compute_rms_norm_grad_sample", "rmsnorm"),
    "compute_rnn_linear_grad_sample": ("dp_rnn.compute_rnn_linear_grad_sample", "rnnlinear"),
    "compute_sequence_bias_grad_sample": ("dp_multihead_attention.compute_sequence_bias_grad_sample",
                                          "sequencebias"),
    "ft_compute_per_sample_gradient": ("functorch.ft_compute_per_sample_gradient", "linear.functorch"),
}
UTILS = (
    "tensor_utils.calc_sample_norms", "tensor_utils.calc_sample_norms.per_layer",
    "tensor_utils.calc_sample_norms_one_layer", "tensor_utils.sum_over_all_but_batch_and_last_n",
    "tensor_utils.unfold2d", "tensor_utils.unfold2d.same", "tensor_utils.unfold2d.valid", "tensor_utils.unfold3d",
    "tensor_utils.unfold3d.dilated.same", "packed_sequences.compute_seq_lengths",
    "per_sample_gradients_utils.unpack_packedsequences",
    "per_sample_gradients_utils.check_per_sample_gradients_are_correct",
    "optimizer._generate_noise", "optimizer._generate_noise.secure_mode", "optimizer._generate_noise.zero_std",
    "GradSampleModuleFastGradientClipping.get_clipping_coef", "CollateFnWithEmpty", "CollateFnWithEmpty.empty",
    "CollateFnWithEmpty.empty.rand_on_empty", "UniformWithReplacementSampler",
)


def names() -> list[str]:
    forward = [f"GradSampleHooks.{net}" if mode == "hooks.unwrapped" else f"GradSampleModule.{mode}.{net}"
               for mode, nets in FORWARD.items() for net in nets]
    return (forward + list(TRAIN_STEP) + list(OPTIMIZERS) + list(STEP_ONLY) + list(MAKE_PRIVATE) + list(LAYERS)
            + [f"grad_sample.{n}" for n in SAMPLERS] + list(UTILS))


# --- the small networks ---------------------------------------------------------------------------------------


def _parts() -> Any:
    """The bench's glue modules (a recurrent or attention layer with a classification head), built once."""
    import types

    import torch
    from torch import nn

    class Recurrent(nn.Module):
        """A DP recurrent layer and a linear head on its last output ("last") or on its last layer's final
        state ("state", for packed sequences)."""

        def __init__(self, rnn: nn.Module, head: nn.Module, read: str = "last") -> None:
            super().__init__()
            self.rnn, self.head, self.read = rnn, head, read

        def forward(self, x: Any) -> torch.Tensor:
            out, hidden = self.rnn(x)
            if self.read == "state":
                h = hidden[0] if isinstance(hidden, tuple) else hidden
                return self.head(h[-1])
            return self.head(out[:, -1])

    class TextRNN(nn.Module):
        """Token embeddings read by a DP LSTM, classified from the last step."""

        def __init__(self, rnn: nn.Module) -> None:
            super().__init__()
            self.embed = nn.Embedding(V, D)
            self.rnn = rnn
            self.head = nn.Linear(H, C)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            out, _ = self.rnn(self.embed(tokens))
            return self.head(out[:, -1])

    class Attend(nn.Module):
        """Self-attention by a DP attention layer, then a head on the flattened sequence (batch first) or on
        every position averaged over time (batch second)."""

        def __init__(self, attn: nn.Module, head: nn.Module, batch_first: bool) -> None:
            super().__init__()
            self.attn, self.head, self.batch_first = attn, head, batch_first

        def forward(self, x: torch.Tensor, key_padding_mask: Any = None) -> torch.Tensor:
            out, _ = self.attn(x, x, x, key_padding_mask=key_padding_mask)
            if self.batch_first:
                return self.head(out.flatten(1))
            return self.head(out).mean(0)

    class Bag(nn.Module):
        """An embedding bag over flat indices and offsets, then a head."""

        def __init__(self) -> None:
            super().__init__()
            self.bag = nn.EmbeddingBag(V, D, mode="mean")
            self.head = nn.Linear(D, C)

        def forward(self, index: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
            return self.head(self.bag(index, offsets))

    class Tied(nn.Module):
        """A language-model-like net whose output projection shares the embedding's weight, averaged over time."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(V, D)
            self.mix = nn.Linear(D, D)
            self.out = nn.Linear(D, V, bias=False)
            self.out.weight = self.embed.weight

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return self.out(torch.tanh(self.mix(self.embed(tokens)))).mean(1)

    class TokenLM(nn.Module):
        """Next-token logits for every position (``[batch, time, vocabulary]``)."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(V, D)
            self.proj = nn.Linear(D, V)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return self.proj(torch.relu(self.embed(tokens)))

    return types.SimpleNamespace(Recurrent=Recurrent, TextRNN=TextRNN, Attend=Attend, Bag=Bag, Tied=Tied,
                                 TokenLM=TokenLM)


def _gen(seed: int = 1) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _tokens(n: int, g: Any) -> Any:
    import torch

    return torch.randint(1, V, (n, T), generator=g)


def _net(kind: str, n: int = B) -> tuple[Any, tuple[Any, ...], Any]:
    """``(network, its inputs for a batch of n, class labels)`` for one of ``NETS`` (and "lm")."""
    import torch
    from opacus.layers import DPGRU, DPLSTM, DPRNN, DPMultiheadAttention
    from torch import nn
    from torch.nn.utils.rnn import pack_padded_sequence

    parts = _parts()
    g = _gen()

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g)

    labels = torch.randint(0, C, (n,), generator=g)
    mlp = nn.Sequential(nn.Linear(D, H), nn.ReLU(), nn.Linear(H, C))
    if kind == "mlp":
        return mlp, (randn(n, D),), labels
    if kind == "mlp.seq":
        return nn.Sequential(nn.Linear(D, H), nn.ReLU(), nn.Flatten(), nn.Linear(T * H, C)), (randn(n, T, D),), labels
    if kind == "custom":  # PReLU has no grad sampler: functorch computes its per-sample gradients
        return nn.Sequential(nn.Linear(D, H), nn.PReLU(H), nn.Linear(H, C)), (randn(n, D),), labels
    if kind == "tied":
        return parts.Tied(), (_tokens(n, g),), torch.randint(0, V, (n,), generator=g)
    if kind == "lm":
        tokens = _tokens(n, g)
        targets = torch.roll(tokens, -1, dims=1)
        targets[:, -1] = 0  # the padding index, ignored by the loss
        return parts.TokenLM(), (tokens,), targets
    if kind == "conv1d":
        return (nn.Sequential(nn.Conv1d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv1d(8, 8, 3, stride=2, groups=2),
                              nn.Flatten(), nn.Linear(8 * 5, C)), (randn(n, 3, 12),), labels)
    if kind == "conv1d.same":
        return (nn.Sequential(nn.Conv1d(3, 8, 3, padding="same", dilation=2), nn.ReLU(),
                              nn.Conv1d(8, 4, 3, padding="valid"), nn.Flatten(), nn.Linear(4 * 10, C)),
                (randn(n, 3, 12),), labels)
    if kind == "conv2d":
        return (nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(),
                              nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                              nn.Linear(8, C)), (randn(n, 3, 8, 8),), labels)
    if kind == "conv3d.dilated":
        return (nn.Sequential(nn.Conv3d(2, 4, 3, padding="same", dilation=2), nn.ReLU(), nn.Flatten(),
                              nn.Linear(4 * 4 * 6 * 6, C)), (randn(n, 2, 4, 6, 6),), labels)
    if kind == "layernorm":
        return nn.Sequential(nn.Linear(D, H), nn.LayerNorm(H), nn.ReLU(), nn.Linear(H, C)), (randn(n, D),), labels
    if kind == "layernorm.seq":
        return (nn.Sequential(nn.Linear(D, H), nn.LayerNorm(H), nn.ReLU(), nn.Flatten(), nn.Linear(T * H, C)),
                (randn(n, T, D),), labels)
    if kind in ("groupnorm", "instancenorm"):
        norm = nn.GroupNorm(2, 8) if kind == "groupnorm" else nn.InstanceNorm2d(8, affine=True)
        return (nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), norm, nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                              nn.Linear(8, C)), (randn(n, 3, 8, 8),), labels)
    if kind == "rmsnorm":
        return nn.Sequential(nn.Linear(D, H), nn.RMSNorm(H), nn.ReLU(), nn.Linear(H, C)), (randn(n, D),), labels
    if kind == "embedding":
        return nn.Sequential(nn.Embedding(V, D), nn.Flatten(), nn.Linear(T * D, C)), (_tokens(n, g),), labels
    if kind == "embeddingbag":
        index = torch.randint(0, V, (3 * n,), generator=g)
        offsets = torch.tensor([0, 3, 5, 8] + [8 + 3 * i for i in range(1, n - 3)])[:n]
        return parts.Bag(), (index, offsets), labels
    if kind == "embedding.lstm":
        return parts.TextRNN(DPLSTM(D, H, batch_first=True)), (_tokens(n, g),), labels
    if kind == "lstm":
        return parts.Recurrent(DPLSTM(D, H, batch_first=True), nn.Linear(H, C)), (randn(n, T, D),), labels
    if kind == "lstm.bidirectional":
        rnn = DPLSTM(D, H, num_layers=2, bidirectional=True, batch_first=True, dropout=0.1)
        return parts.Recurrent(rnn, nn.Linear(2 * H, C)), (randn(n, T, D),), labels
    if kind == "gru":
        return parts.Recurrent(DPGRU(D, H, batch_first=True), nn.Linear(H, C)), (randn(n, T, D),), labels
    if kind == "rnn.relu":
        rnn = DPRNN(D, H, batch_first=True, nonlinearity="relu")
        return parts.Recurrent(rnn, nn.Linear(H, C)), (randn(n, T, D),), labels
    if kind == "lstm.packed":
        lengths = torch.tensor([T, 3, 4, 2] * (n // 4))
        packed = pack_padded_sequence(randn(n, T, D), lengths, batch_first=True, enforce_sorted=False)
        return parts.Recurrent(DPLSTM(D, H, batch_first=True), nn.Linear(H, C), "state"), (packed,), labels
    if kind == "mha":
        attn = DPMultiheadAttention(D, 2, batch_first=True)
        return parts.Attend(attn, nn.Linear(T * D, C), True), (randn(n, T, D),), labels
    if kind == "mha.batch_second":
        attn = DPMultiheadAttention(D, 2, add_bias_kv=True, add_zero_attn=True)
        mask = torch.zeros(n, T, dtype=torch.bool)
        mask[:2, -2:] = True
        return parts.Attend(attn, nn.Linear(D, C), False), (randn(T, n, D), mask), labels
    if kind == "transformer":
        from opacus.validators import ModuleValidator

        layer = nn.TransformerEncoderLayer(D, 2, H, dropout=0.0, batch_first=True)
        net = ModuleValidator.fix(nn.Sequential(layer, nn.Flatten(), nn.Linear(T * D, C)))
        return net, (randn(n, T, D),), labels
    raise KeyError(kind)


def _wrap(net: Any, mode: str, kind: str, loss_reduction: str = "mean") -> Any:
    """The grad-sample module (or, for "hooks.unwrapped", the hooks object) of ``mode`` around ``net``."""
    from opacus.grad_sample import prepare_module

    batch_first = kind not in BATCH_SECOND
    if mode == "hooks.unwrapped":
        return prepare_module(net, "hooks", wrap_model=False, batch_first=batch_first, loss_reduction=loss_reduction)
    if mode in ("ghost", "fgc"):
        from opacus.grad_sample import GradSampleModuleFastGradientClipping

        return GradSampleModuleFastGradientClipping(net, batch_first=batch_first, loss_reduction=loss_reduction,
                                                    max_grad_norm=1.0, use_ghost_clipping=mode == "ghost")
    return prepare_module(net, mode, batch_first=batch_first, loss_reduction=loss_reduction)


def _hook_entries(hooks: Any, backward: bool) -> list[Any]:
    """The hook methods a grad-sample module registers (Dynamo enters them from the module calls, and the
    backward ones from ``backward``)."""
    cls = type(hooks)
    if not hasattr(cls, "capture_activations_hook"):
        return []
    return [cls.capture_activations_hook] + ([cls.capture_backprops_hook] if backward else [])


class _Entered:
    """A mixin: the library code a bench wrapper enters, as ``gt_calls.entry_points`` reads it."""

    entered: list[Any]

    def entry_points(self) -> list[Any]:
        return list(self.entered)


def _forward(name: str) -> Built:
    from torch import nn

    if name.startswith("GradSampleHooks."):
        mode, kind = "hooks.unwrapped", name.split(".", 1)[1]
    else:
        mode, kind = name.split(".", 2)[1:]
    net, inputs, _ = _net(kind)
    wrapped = _wrap(net, mode, kind)
    if mode != "hooks.unwrapped":
        entered = [type(wrapped)] + _hook_entries(wrapped, backward=False)
        model: Any = wrapped
    else:
        entered = [type(net)] + _hook_entries(wrapped, backward=False)
        model = net

    class Forward(_Entered, nn.Module):
        """The wrapped model's forward (the hooks record activations in train mode, with gradients on)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.hooks = wrapped if mode == "hooks.unwrapped" else None
            self.entered = entered

        def forward(self, *inputs: Any) -> Any:
            return self.model(*inputs)

    return Forward(), inputs, {}


# --- training steps -------------------------------------------------------------------------------------------


def _dp_optimizer(cls_name: str, params: list[Any], keywords: dict[str, Any], loss_reduction: str = "mean",
                  noise: float = 1.0) -> Any:
    import torch
    from opacus import optimizers

    keywords = dict(keywords)
    base = keywords.pop("base", "SGD")
    step_hook = keywords.pop("step_hook", None)
    if keywords.get("generator") == "seeded":
        keywords["generator"] = _gen(7)
    inner = (torch.optim.Adam(params, lr=1e-3) if base == "Adam" else torch.optim.SGD(params, lr=0.05, momentum=0.9))
    extra: dict[str, Any] = {}
    if cls_name == "DPPerLayerOptimizer":
        extra["max_grad_norm"] = [1.0] * len(params)
    if cls_name == "AdaClipDPOptimizer":
        extra.update(ADAPTIVE)
    options = {"noise_multiplier": noise, "max_grad_norm": 1.0, "expected_batch_size": B,
               "loss_reduction": loss_reduction, **extra, **keywords}
    optimizer = getattr(optimizers, cls_name)(inner, **options)
    if step_hook == "rdp":
        from opacus.accountants import RDPAccountant

        optimizer.attach_step_hook(RDPAccountant().get_optimizer_hook_fn(sample_rate=B / N))
    return optimizer


def _private_step(model: Any, criterion: Any, optimizer: Any, *, variant: str = "plain", eager_backward: bool = True,
                  schedulers: tuple[Any, ...] = (), entered: tuple[Any, ...] | list[Any] = ()) -> Any:
    """A DP training step as the compiled forward. Train mode: ``zero_grad``, forward, loss, backward (kept
    eager unless ``eager_backward`` is false), the optimizer's step and the schedulers' steps; without an
    optimizer, the loss and the per-sample gradients. Eval mode: the private model's inference."""
    import torch
    from torch import nn

    class PrivateStep(_Entered, nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.criterion = criterion
            self.optimizer = optimizer
            self.entered = list(entered)

        def backward(self, loss: Any) -> None:
            if eager_backward:
                torch.compiler.disable(loss.backward)()
            else:
                loss.backward()

        def loss(self, inputs: list[Any], y: Any) -> Any:
            out = self.model(*inputs)
            if variant == "sequence":  # per-token logits, flattened, with the logits' shape for the per-sample loss
                return self.criterion(out.reshape(-1, out.shape[-1]), y.reshape(-1), shape=out.shape)
            if variant == "arithmetic":  # a weighted sum of two ghost-clipping losses
                return 0.5 * self.criterion(out, y) + self.criterion(out, torch.roll(y, 1, 0)) / 2 - 0.1
            return self.criterion(out, y)

        def forward(self, *batch: Any) -> Any:
            *inputs, y = batch
            if not self.training:
                return self.model(*inputs)
            with torch.enable_grad():
                if self.optimizer is None:
                    self.model.zero_grad()
                    loss = self.loss(inputs, y)
                    self.backward(loss)
                    grads = [p.grad_sample for p in self.model.parameters() if p.requires_grad]
                    return loss.detach(), grads
                self.optimizer.zero_grad()
                if variant == "closure":
                    losses = []

                    def closure() -> Any:
                        loss = self.loss(inputs, y)
                        self.backward(loss)
                        losses.append(loss.detach())
                        return loss

                    self.optimizer.step(closure)
                    return losses[-1]
                loss = self.loss(inputs, y)
                self.backward(loss)
                if variant == "accumulate":  # a second batch before the step: per-sample gradients pile up
                    self.backward(self.loss([torch.flip(i, [0]) for i in inputs], torch.flip(y, [0])))
                if variant == "virtual":  # two physical batches, one logical step (BatchMemoryManager's pattern)
                    self.optimizer.signal_skip_step(do_skip=True)
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                    loss = self.loss(inputs, y)
                    self.backward(loss)
                    self.optimizer.signal_skip_step(do_skip=False)
            self.optimizer.step()
            for scheduler in schedulers:
                scheduler.step()
            return loss.detach()

    return PrivateStep()


def _train_step(name: str) -> Built:
    from torch import nn

    kind, mode = TRAIN_STEP[name]
    net, inputs, labels = _net(kind)
    wrapped = _wrap(net, mode, kind)
    entered = [type(wrapped), type(wrapped).zero_grad] + _hook_entries(wrapped, backward=True)
    step = _private_step(wrapped, nn.CrossEntropyLoss(), None, eager_backward=False, entered=entered)
    return step, (*inputs, labels), {}


def _optimizer(name: str) -> Built:
    from torch import nn

    kind, mode, cls_name, keywords, variant = OPTIMIZERS[name]
    reduction = keywords.get("loss_reduction", "mean")
    net, inputs, labels = _net(kind)
    wrapped = _wrap(net, mode, kind, loss_reduction=reduction)
    optimizer = _dp_optimizer(cls_name, [p for p in wrapped.parameters() if p.requires_grad], keywords, reduction)
    criterion: Any = nn.CrossEntropyLoss(reduction=reduction)
    ghost = mode in ("ghost", "fgc")
    entered = [type(wrapped), type(optimizer).step, type(optimizer).zero_grad] + _hook_entries(wrapped, ghost)
    if ghost:
        from opacus.utils.fast_gradient_clipping_utils import DPLossFastGradientClipping, DPTensorFastGradientClipping

        if variant == "sequence":
            criterion = nn.CrossEntropyLoss(ignore_index=0)
        criterion = DPLossFastGradientClipping(wrapped, optimizer, criterion, reduction)
        entered += [DPLossFastGradientClipping.__call__, DPTensorFastGradientClipping.backward]
        if variant == "arithmetic":
            entered += [DPTensorFastGradientClipping.__mul__, DPTensorFastGradientClipping.__rmul__,
                        DPTensorFastGradientClipping.__add__, DPTensorFastGradientClipping.__truediv__,
                        DPTensorFastGradientClipping.__sub__]
    if variant in ("virtual", "accumulate"):
        entered.append(type(optimizer).signal_skip_step)
    step = _private_step(wrapped, criterion, optimizer, variant=variant, eager_backward=not ghost, entered=entered)
    return step, (*inputs, labels), {}


def _step_only(name: str) -> Built:
    """An optimizer's ``step`` alone (then ``zero_grad``), on per-sample gradients (or, for ghost clipping,
    clipped summed gradients) computed eagerly by a real backward pass and given as the inputs."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    cls_name = name.rsplit(".", 1)[0]
    mode = "ghost" if cls_name == "DPOptimizerFastGradientClipping" else "hooks"
    net, inputs, labels = _net("mlp")
    wrapped = _wrap(net, mode, "mlp")
    params = list(wrapped.parameters())
    optimizer = _dp_optimizer(cls_name, params, {})
    if mode == "ghost":
        from opacus.utils.fast_gradient_clipping_utils import DPLossFastGradientClipping

        loss = DPLossFastGradientClipping(wrapped, optimizer, nn.CrossEntropyLoss(), "mean")
        loss(wrapped(*inputs), labels).backward()
        grads = tuple(p.grad.detach().clone() for p in params)
    else:
        F.cross_entropy(wrapped(*inputs), labels).backward()
        grads = tuple(p.grad_sample.detach().clone() for p in params)
    optimizer.zero_grad()

    class Step(_Entered, nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = wrapped
            self.entered = [type(optimizer).step, type(optimizer).zero_grad]

        def forward(self, *tensors: torch.Tensor) -> Any:
            for p, g in zip(params, tensors):
                if mode == "ghost":
                    p.grad = g.clone()
                else:
                    p.grad_sample = g.clone()
            optimizer.step()
            optimizer.zero_grad()
            return [p.detach() for p in params]

    return Step(), grads, {}


def _make_private(name: str) -> Built:
    import torch
    from opacus import PrivacyEngine
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    kind, options = MAKE_PRIVATE[name]
    options = dict(options)
    accountant = options.pop("accountant", "prv")
    epsilon = options.pop("epsilon", False)
    with_schedulers = options.pop("schedulers", False)
    adaptive_ghost = options.pop("adaptive_ghost", False)
    memory_manager = options.pop("memory_manager", False)
    net, data, labels = _net(kind, n=N)
    if adaptive_ghost:
        from opacus.utils.adaptive_clipping import PrivacyEngineAdaptiveClipping

        engine: Any = PrivacyEngineAdaptiveClipping(accountant=accountant)
        options.update(grad_sample_mode="ghost", target_unclipped_quantile=0.5, min_clipbound=0.1,
                       max_clipbound=10.0, clipbound_learning_rate=0.2)
    else:
        engine = PrivacyEngine(accountant=accountant)
    loader = DataLoader(TensorDataset(*data, labels), batch_size=B)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    if options.get("clipping") == "per_layer":
        options["max_grad_norm"] = [1.0] * len(list(net.parameters()))
    options.setdefault("max_grad_norm", 1.0)
    ghost = options.get("grad_sample_mode") == "ghost"
    if ghost:
        options["criterion"] = nn.CrossEntropyLoss()
    if epsilon:
        made = engine.make_private_with_epsilon(module=net, optimizer=optimizer, data_loader=loader, target_epsilon=5.0,
                                                target_delta=1e-5, epochs=1, **options)
    else:
        noise = 0.3 if adaptive_ghost else 1.0  # adaptive ghost clipping wants batch > 10 x noise
        made = engine.make_private(module=net, optimizer=optimizer, data_loader=loader, noise_multiplier=noise,
                                   **options)
    if ghost:
        module, dp_optimizer, criterion, private_loader = made
    else:
        (module, dp_optimizer, private_loader), criterion = made, nn.CrossEntropyLoss()
    if memory_manager:
        return _epoch(module, dp_optimizer, private_loader, engine), (data[0][:B], labels[:B]), {}
    schedulers: tuple[Any, ...] = ()
    if with_schedulers:
        from opacus.schedulers import ExponentialNoise, StepGradClip

        schedulers = (ExponentialNoise(dp_optimizer, gamma=0.9), StepGradClip(dp_optimizer, step_size=1, gamma=0.9))
    model = net if options.get("wrap_model") is False else module
    entered = [type(model), type(dp_optimizer).step, type(dp_optimizer).zero_grad]
    entered += _hook_entries(module, backward=False)
    entered += [type(engine.accountant).step] + [type(s).step for s in schedulers]
    if ghost:
        entered.append(type(criterion).__call__)
    step = _private_step(model, criterion, dp_optimizer, schedulers=schedulers, entered=entered)
    return step, (*[d[:B] for d in data], labels[:B]), {}


def _epoch(module: Any, optimizer: Any, loader: Any, engine: Any) -> Any:
    """One epoch of DP training as opacus's tutorials write it: the private (Poisson-sampling) loader split
    into physical batches of 2 by ``BatchMemoryManager``, whose sampler tells the optimizer which steps to
    skip; each physical batch's backward kept eager. Eval mode: the private model's inference."""
    import torch
    import torch.nn.functional as F
    from opacus.data_loader import CollateFnWithEmpty
    from opacus.utils.batch_memory_manager import BatchMemoryManager, BatchSplittingSampler
    from opacus.utils.uniform_sampler import UniformWithReplacementSampler
    from torch import nn

    class Epoch(_Entered, nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = module
            self.entered = [BatchMemoryManager.__enter__, BatchSplittingSampler.__iter__,
                            UniformWithReplacementSampler.__iter__, CollateFnWithEmpty.__call__, type(module),
                            type(optimizer).step, type(optimizer).zero_grad, type(engine.accountant).step]
            self.entered += _hook_entries(module, backward=False)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            if not self.training:
                return self.model(x)
            losses = []
            with BatchMemoryManager(data_loader=loader, max_physical_batch_size=2, optimizer=optimizer) as batches:
                for xb, yb in batches:
                    optimizer.zero_grad()
                    with torch.enable_grad():
                        loss = F.cross_entropy(self.model(xb), yb)
                        torch.compiler.disable(loss.backward)()
                    optimizer.step()
                    losses.append(loss.detach())
            return losses

    return Epoch()


# --- opacus's layers alone ------------------------------------------------------------------------------------


def _layer(name: str) -> Built:
    import torch
    from opacus.layers import DPGRU, DPLSTM, DPRNN, DPMultiheadAttention, SequenceBias
    from opacus.layers.dp_rnn import DPGRUCell, DPLSTMCell, DPRNNCell
    from torch import nn
    from torch.nn.utils.rnn import pack_padded_sequence

    g = _gen(2)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g)

    x = randn(T, B, D)  # batch second, the layers' default
    lengths = torch.tensor([T, 3, 4, 2])
    if name == "DPLSTM":
        return DPLSTM(D, H), (x,), {}
    if name == "DPLSTM.batch_first.state":
        state = (randn(1, B, H), randn(1, B, H))
        return DPLSTM(D, H, batch_first=True), (x.transpose(0, 1).contiguous(), state), {}
    if name == "DPLSTM.bidirectional.2layers.dropout":
        return DPLSTM(D, H, num_layers=2, bidirectional=True, dropout=0.2), (x,), {}
    if name == "DPLSTM.packed":
        return DPLSTM(D, H), (pack_padded_sequence(x, lengths, enforce_sorted=False),), {}
    if name == "DPLSTM.packed.sorted":
        return DPLSTM(D, H), (pack_padded_sequence(x, torch.tensor([T, 4, 3, 2])),), {}
    if name == "DPGRU":
        return DPGRU(D, H), (x, randn(1, B, H)), {}
    if name == "DPGRU.packed.bidirectional":
        return DPGRU(D, H, bidirectional=True), (pack_padded_sequence(x, lengths, enforce_sorted=False),), {}
    if name == "DPRNN":
        return DPRNN(D, H), (x,), {}
    if name == "DPRNN.relu.2layers":
        return DPRNN(D, H, num_layers=2, nonlinearity="relu", batch_first=True), (x.transpose(0, 1),), {}
    if name == "DPLSTMCell":
        return DPLSTMCell(D, H, bias=True), (x[0],), {}
    if name == "DPGRUCell.state":
        return DPGRUCell(D, H, bias=True), (x[0], randn(B, H)), {}
    if name == "DPRNNCell.relu":
        return DPRNNCell(D, H, bias=False, nonlinearity="relu"), (x[0],), {}
    if name == "DPMultiheadAttention":
        return DPMultiheadAttention(D, 2), (x, x, x), {}
    if name == "DPMultiheadAttention.batch_first":
        xb = x.transpose(0, 1)
        return DPMultiheadAttention(D, 2, batch_first=True), (xb, xb, xb), {}
    if name == "DPMultiheadAttention.bias_kv.zero_attn.masks":
        padding = torch.zeros(B, T, dtype=torch.bool)
        padding[:2, -2:] = True
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        attn = DPMultiheadAttention(D, 2, add_bias_kv=True, add_zero_attn=True)
        return attn, (x, x, x), {"key_padding_mask": padding, "attn_mask": causal}
    if name == "DPMultiheadAttention.attn_mask.float3d":
        mask = randn(B * 2, T, T)
        return DPMultiheadAttention(D, 2), (x, x, x), {"attn_mask": mask}
    if name == "DPMultiheadAttention.masks.uint8":  # the deprecated byte masks, converted with a warning
        padding = torch.zeros(B, T, dtype=torch.uint8)
        padding[:, -1] = 1
        causal = torch.triu(torch.ones(T, T, dtype=torch.uint8), diagonal=1)
        return DPMultiheadAttention(D, 2), (x, x, x), {"key_padding_mask": padding, "attn_mask": causal}
    if name == "DPMultiheadAttention.no_weights.dropout":
        return DPMultiheadAttention(D, 2, dropout=0.1, bias=False), (x, x, x), {"need_weights": False}
    if name == "SequenceBias":
        return SequenceBias(D), (x,), {}
    if name == "SequenceBias.batch_first":
        return SequenceBias(D, batch_first=True), (x.transpose(0, 1),), {}
    if name == "TransformerEncoderLayer.DPMultiheadAttention":
        from opacus.validators import ModuleValidator

        layer = ModuleValidator.fix(nn.TransformerEncoderLayer(D, 2, H, dropout=0.1, batch_first=True))
        return layer, (x.transpose(0, 1),), {}
    raise KeyError(name)


# --- utilities ------------------------------------------------------------------------------------------------


def _sampler(name: str) -> Built:
    import importlib

    import torch
    from opacus.layers.dp_multihead_attention import SequenceBias
    from opacus.layers.dp_rnn import RNNLinear
    from torch import nn

    path, kind = SAMPLERS[name]
    module, function_name = path.rsplit(".", 1)
    function = getattr(importlib.import_module(f"opacus.grad_sample.{module}"), function_name)
    g = _gen(3)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g)

    tokens = torch.randint(0, V, (B, T), generator=g)
    tokens[:, 1] = tokens[:, 0]  # repeated tokens in a sample: the norm sampler sums their rows
    layers: dict[str, tuple[Any, tuple[Any, ...]]] = {
        "linear": (nn.Linear(D, H), (randn(B, D), randn(B, H))),
        "linear.seq": (nn.Linear(D, H), (randn(B, T, D), randn(B, T, H))),
        "linear.functorch": (nn.Linear(D, H), (randn(B, D), randn(B, H))),
        "conv1d.same": (nn.Conv1d(3, 8, 3, padding="same", dilation=2), (randn(B, 3, 12), randn(B, 8, 12))),
        "conv2d.groups": (nn.Conv2d(4, 8, 3, padding=1, groups=2), (randn(B, 4, 6, 6), randn(B, 8, 6, 6))),
        "conv2d.empty": (nn.Conv2d(3, 8, 3, padding=1), (randn(0, 3, 6, 6), randn(0, 8, 6, 6))),
        "conv3d": (nn.Conv3d(2, 4, 3, padding=1, stride=2), (randn(B, 2, 4, 6, 6), randn(B, 4, 2, 3, 3))),
        "embedding": (nn.Embedding(V, D), (tokens, randn(B, T, D))),
        "embeddingbag.sum": (nn.EmbeddingBag(V, D, mode="sum"),
                             (torch.randint(0, V, (10,), generator=g), torch.tensor([0, 3, 5, 8]), randn(B, D))),
        "embeddingbag.mean": (nn.EmbeddingBag(V, D, mode="mean"),
                              (torch.randint(0, V, (10,), generator=g), torch.tensor([0, 2, 6, 7]), randn(B, D))),
        "layernorm": (nn.LayerNorm(H), (randn(B, T, H), randn(B, T, H))),
        "groupnorm": (nn.GroupNorm(2, 8), (randn(B, 8, 4, 4), randn(B, 8, 4, 4))),
        "instancenorm": (nn.InstanceNorm2d(8, affine=True), (randn(B, 8, 4, 4), randn(B, 8, 4, 4))),
        "rmsnorm": (nn.RMSNorm(H), (randn(B, H), randn(B, H))),
        "rnnlinear": (RNNLinear(D, H), (randn(B, D), randn(B, H))),
        "sequencebias": (SequenceBias(D), (randn(B, T, D), randn(B, T + 1, D))),
    }
    layer, tensors = layers[kind]
    if kind == "linear.functorch":
        from opacus.grad_sample.functorch import prepare_layer

        prepare_layer(layer)  # as the hooks do when they are added
    n_activations = 2 if kind.startswith("embeddingbag") else 1

    class Sampler(_Entered, nn.Module):
        """One layer's per-sample gradients (or norms) from its activations and the gradients of its output."""

        def __init__(self) -> None:
            super().__init__()
            self.layer = layer
            self.entered = [function]

        def forward(self, *tensors: torch.Tensor) -> Any:
            activations, backprops = list(tensors[:n_activations]), tensors[n_activations]
            return function(self.layer, activations, backprops)

    return Sampler(), tensors, {}


def _util(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Call, Method

    g = _gen(4)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g)

    if name.startswith("tensor_utils."):
        from opacus.utils import tensor_utils as tu

        named = [("weight", randn(B, H, D)), ("bias", randn(B, H))]
        calls: dict[str, tuple[Any, tuple[Any, ...], dict[str, Any]]] = {
            "tensor_utils.calc_sample_norms": (tu.calc_sample_norms, (named,), {}),
            "tensor_utils.calc_sample_norms.per_layer": (tu.calc_sample_norms, (named,), {"flat": False}),
            "tensor_utils.calc_sample_norms_one_layer": (tu.calc_sample_norms_one_layer, (randn(B, H, D),), {}),
            "tensor_utils.sum_over_all_but_batch_and_last_n": (tu.sum_over_all_but_batch_and_last_n,
                                                               (randn(B, T, 3, H),), {"n_dims": 1}),
            "tensor_utils.unfold2d": (tu.unfold2d, (randn(B, 3, 8, 8),),
                                      {"kernel_size": (3, 3), "padding": (1, 1), "stride": (2, 2), "dilation": (1, 1)}),
            "tensor_utils.unfold2d.same": (tu.unfold2d, (randn(B, 3, 8, 8),),
                                           {"kernel_size": (3, 3), "padding": "same", "stride": (1, 1),
                                            "dilation": (2, 2)}),
            "tensor_utils.unfold2d.valid": (tu.unfold2d, (randn(B, 3, 8, 7),),
                                            {"kernel_size": (2, 3), "padding": "valid", "stride": (1, 2),
                                             "dilation": (1, 1)}),
            "tensor_utils.unfold3d": (tu.unfold3d, (randn(B, 2, 4, 6, 6),), {"kernel_size": 3, "padding": 1}),
            "tensor_utils.unfold3d.dilated.same": (tu.unfold3d, (randn(B, 2, 4, 6, 6),),
                                                   {"kernel_size": (3, 3, 3), "padding": "same", "stride": (1, 1, 1),
                                                    "dilation": (2, 2, 2)}),
        }
        function, args, static = calls[name]
        return Call(function, **static), args, {}
    if name.startswith(("packed_sequences.", "per_sample_gradients_utils.")):
        from opacus.utils import packed_sequences, per_sample_gradients_utils
        from torch.nn.utils.rnn import pack_padded_sequence

        packed = pack_padded_sequence(randn(T, B, D), torch.tensor([T, 3, 4, 2]), enforce_sorted=False)
        if name == "packed_sequences.compute_seq_lengths":
            return Call(packed_sequences.compute_seq_lengths), (packed.batch_sizes,), {}
        if name == "per_sample_gradients_utils.unpack_packedsequences":
            return Call(per_sample_gradients_utils.unpack_packedsequences), (packed,), {}
        net = nn.Sequential(nn.Linear(D, H), nn.Tanh(), nn.Linear(H, C))
        check = per_sample_gradients_utils.check_per_sample_gradients_are_correct

        class Check(_Entered, nn.Module):
            """opacus's own test of a network's per-sample gradients (micro-batches against the hooks), with
            gradients on whatever the mode."""

            def __init__(self) -> None:
                super().__init__()
                self.entered = [check]

            def forward(self, x: torch.Tensor) -> Any:
                with torch.enable_grad():
                    return check(x, net)

        return Check(), (randn(B, D),), {}
    if name.startswith("optimizer._generate_noise"):
        from opacus.optimizers.optimizer import _generate_noise

        std, secure = 0.0 if name.endswith("zero_std") else 1.5, name.endswith("secure_mode")

        class Noise(_Entered, nn.Module):
            """The Gaussian noise a DP optimizer adds to a summed gradient shaped like ``reference``."""

            def __init__(self) -> None:
                super().__init__()
                self.entered = [_generate_noise]

            def forward(self, reference: torch.Tensor) -> torch.Tensor:
                return _generate_noise(std, reference, secure_mode=secure)

        return Noise(), (randn(H, D),), {}
    if name == "GradSampleModuleFastGradientClipping.get_clipping_coef":
        import torch.nn.functional as F

        net, inputs, labels = _net("conv2d")
        ghost = _wrap(net, "ghost", "conv2d")
        F.cross_entropy(ghost(*inputs), labels).backward()  # per-sample norms recorded by the hooks
        return Method(ghost, "get_clipping_coef"), (), {}
    if name == "UniformWithReplacementSampler":
        from opacus.utils.uniform_sampler import UniformWithReplacementSampler

        sampler = UniformWithReplacementSampler(num_samples=N, sample_rate=B / N, generator=_gen(5))

        class Draw(_Entered, nn.Module):
            """One Poisson-sampled batch: the sampler's indices, then the rows they pick."""

            def __init__(self) -> None:
                super().__init__()
                self.entered = [UniformWithReplacementSampler.__iter__]

            def forward(self, data: torch.Tensor) -> torch.Tensor:
                return data[next(iter(sampler))]

        return Draw(), (randn(N, D),), {}
    # the DP data loader's collate function, on a batch of samples and on an empty (Poisson) batch
    from opacus.data_loader import CollateFnWithEmpty, DPDataLoader
    from torch.utils.data import TensorDataset

    dataset = TensorDataset(randn(N, D), torch.randint(0, C, (N,), generator=g))
    loader = DPDataLoader(dataset, sample_rate=B / N, rand_on_empty=name.endswith("rand_on_empty"))
    collate = loader.collate_fn
    samples = [dataset[i] for i in range(B)]
    if name != "CollateFnWithEmpty":
        collate(samples)  # the first batch, remembered to shape the empty ones

    class Collate(_Entered, nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.entered = [CollateFnWithEmpty.__call__]

        def forward(self, batch: list[Any]) -> Any:
            return collate(batch)

    return Collate(), ([] if name != "CollateFnWithEmpty" else samples,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name.startswith(("GradSampleModule.", "GradSampleHooks.")):
        return _forward(name)
    if name in TRAIN_STEP:
        return _train_step(name)
    if name in OPTIMIZERS:
        return _optimizer(name)
    if name in STEP_ONLY:
        return _step_only(name)
    if name in MAKE_PRIVATE:
        return _make_private(name)
    if name in LAYERS:
        return _layer(name)
    if name.startswith("grad_sample."):
        return _sampler(name.split(".", 1)[1])
    if name in UTILS:
        return _util(name)
    raise KeyError(name)
