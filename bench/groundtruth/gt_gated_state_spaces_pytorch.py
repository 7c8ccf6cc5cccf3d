"""Ground-truth bench, gated_state_spaces_pytorch: gated state-space layers, their FFT-convolution variants, and LMs.

gated-state-spaces-pytorch 0.1.0 (lucidrains) implements the Gated State Space layer: ``GSS`` gates a GELU branch
with a ``DSS`` diagonal state space (complex ``Lambda`` and ``C`` parameters build a length-dependent kernel,
applied by an ``rfft``/``irfft`` convolution, plus a learned residual), optionally over the reversed sequence.
Two variants swap the state space for other long convolutions through ``conv1d_fft`` (which pads to SciPy's
``next_fast_len``): ``GatedDsConv`` with ``EfficientDsConv`` (a kernel projected from the input per head) and
``GatedMHESA`` with ``MHESA`` (multi-head exponential smoothing with learned decay and damping, as in ETSFormer).
Each has a language model (``GatedStateSpacesLM``, ``GatedDsConvLM``, ``GatedExponentialSmoothingLM``: token
embedding, layers, logits, a cross-entropy when given labels), and ``AutoregressiveWrapper`` trains one on shifted
tokens and samples from it (``generate``: top-k filtering, temperature, multinomial sampling, a window of
``max_seq_len`` tokens, and an end token that stops all sequences). The tables cover, at width 16, kernels of
16 states and 16 channels, 32 tokens, sequences of 8, a batch of 2:

- ``LAYERS``: ``DSS`` (exponentiated or plain imaginary part), ``GSS`` (reversed, expansion factors, kernel
  sizes), ``EfficientDsConv``, ``GatedDsConv`` (reversed), ``MHESA`` (reversed), ``GatedMHESA``, a batch of one
  and a sequence of one;
- ``LMS``: the three language models: logits, a loss from labels, two layers, ``GatedDsConvLM``'s maximum length;
- ``FUNCTIONS``: both modules' ``conv1d_fft`` on the axes their layers use, and the wrapper's ``top_k``;
- ``WRAPPER``: ``AutoregressiveWrapper``'s training forward per language model, and ``generate`` per language
  model: defaults, temperature, a filter threshold, a window shorter than the sequence, an end token, a prime of
  one token;
- ``USER``: a GSS encoder for sequence classification, a bidirectional stack (forward and reversed layers), a
  time-series forecaster with exponential smoothing layers;
- ``TRAIN``: training steps: each language model under the wrapper with Adam, the classifier with SGD, the
  forecaster with AdamW, and under activation checkpointing (``torch.utils.checkpoint``, non-reentrant): the
  classifier's GSS layers one by one, the wrapped ``GatedDsConvLM`` whole.

The end-token branch of ``generate`` names an undefined variable once every sequence has ended, so the end
token used here is one the sampler does not reach in these seeds (the check itself runs at every step). Random
weights and inputs from fixed generators, nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs in
a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH, SEQ, DIM, KERNEL, VOCAB, HEADS, CLASSES = 2, 8, 16, 16, 32, 4, 3
GSS_BASE: dict[str, Any] = {"dim": DIM, "dss_kernel_N": KERNEL, "dss_kernel_H": KERNEL, "dim_expansion_factor": 2}
DSCONV_BASE: dict[str, Any] = {"dim": DIM, "heads": HEADS, "dim_dsconv": KERNEL, "dim_expansion_factor": 2}
MHESA_BASE: dict[str, Any] = {"dim": DIM, "heads": HEADS, "dim_mhesa": KERNEL, "dim_expansion_factor": 2}

# Name -> (``module:Class``, keywords, options: "batch1", "seq1").
LAYERS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "DSS": ("gss:DSS", {"dim": DIM, "kernel_N": KERNEL}, ()),
    "DSS.no_lambda_imag_exp": ("gss:DSS", {"dim": DIM, "kernel_N": KERNEL, "dss_kernel_lambda_imag_exp": False}, ()),
    "GSS": ("gss:GSS", GSS_BASE, ()),
    "GSS.reverse_seq": ("gss:GSS", {**GSS_BASE, "reverse_seq": True}, ()),
    "GSS.expansion4.kernel_sizes": ("gss:GSS", {"dim": DIM, "dim_expansion_factor": 4, "dss_kernel_N": 8,
                                                "dss_kernel_H": 24}, ()),
    "GSS.no_lambda_imag_exp": ("gss:GSS", {**GSS_BASE, "dss_kernel_lambda_imag_exp": False}, ()),
    "GSS.batch1": ("gss:GSS", GSS_BASE, ("batch1",)),
    "GSS.seq1": ("gss:GSS", GSS_BASE, ("seq1",)),
    "EfficientDsConv": ("dsconv:EfficientDsConv", {"dim": DIM, "heads": HEADS}, ()),
    "EfficientDsConv.heads1": ("dsconv:EfficientDsConv", {"dim": DIM, "heads": 1}, ()),
    "GatedDsConv": ("dsconv:GatedDsConv", DSCONV_BASE, ()),
    "GatedDsConv.reverse_seq": ("dsconv:GatedDsConv", {**DSCONV_BASE, "reverse_seq": True}, ()),
    "GatedDsConv.seq1": ("dsconv:GatedDsConv", DSCONV_BASE, ("seq1",)),
    "MHESA": ("mhesa:MHESA", {"dim": DIM, "heads": HEADS}, ()),
    "MHESA.reverse_seq": ("mhesa:MHESA", {"dim": DIM, "heads": HEADS, "reverse_seq": True}, ()),
    "GatedMHESA": ("mhesa:GatedMHESA", MHESA_BASE, ()),
    "GatedMHESA.batch1": ("mhesa:GatedMHESA", MHESA_BASE, ("batch1",)),
}
# Name -> (language model kind, depth, options: "labels", "max_seq_len").
LMS: dict[str, tuple[str, int, tuple[str, ...]]] = {
    "GatedStateSpacesLM": ("gss", 1, ()),
    "GatedStateSpacesLM.labels": ("gss", 1, ("labels",)),
    "GatedStateSpacesLM.depth2.labels": ("gss", 2, ("labels",)),
    "GatedStateSpacesLM.no_lambda_imag_exp": ("gss.plain", 1, ()),
    "GatedDsConvLM": ("dsconv", 1, ()),
    "GatedDsConvLM.labels": ("dsconv", 1, ("labels",)),
    "GatedDsConvLM.depth2.max_seq_len": ("dsconv", 2, ("max_seq_len",)),
    "GatedExponentialSmoothingLM": ("mhesa", 1, ()),
    "GatedExponentialSmoothingLM.labels": ("mhesa", 1, ("labels",)),
    "GatedExponentialSmoothingLM.depth2": ("mhesa", 2, ()),
}
FUNCTIONS = ("dsconv.conv1d_fft", "dsconv.conv1d_fft.last_axes", "mhesa.conv1d_fft", "autoregressive.top_k")
# Name -> (language model kind, generate keywords, prime length, wrapper max_seq_len).
GENERATE: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "AutoregressiveWrapper.generate.gss": ("gss", {}, 2, 4096),
    "AutoregressiveWrapper.generate.gss.temperature": ("gss", {"temperature": 0.7}, 2, 4096),
    "AutoregressiveWrapper.generate.gss.window": ("gss", {}, 3, 4),
    "AutoregressiveWrapper.generate.gss.eos": ("gss", {"eos_token": "eos"}, 2, 4096),
    "AutoregressiveWrapper.generate.gss.prime1": ("gss", {"filter_thres": 0.8}, 1, 4096),
    "AutoregressiveWrapper.generate.dsconv": ("dsconv", {}, 2, 4096),
    "AutoregressiveWrapper.generate.dsconv.filter_thres": ("dsconv", {"filter_thres": 0.5}, 2, 4096),
    "AutoregressiveWrapper.generate.dsconv.window": ("dsconv", {}, 3, 4),
    "AutoregressiveWrapper.generate.dsconv.eos": ("dsconv", {"eos_token": "eos"}, 2, 4096),
    "AutoregressiveWrapper.generate.mhesa": ("mhesa", {}, 2, 4096),
    "AutoregressiveWrapper.generate.mhesa.temperature.window": ("mhesa", {"temperature": 1.5}, 3, 4),
    "AutoregressiveWrapper.generate.mhesa.eos": ("mhesa", {"eos_token": "eos"}, 2, 4096),
}
WRAPPER = ("AutoregressiveWrapper.gss", "AutoregressiveWrapper.dsconv", "AutoregressiveWrapper.mhesa",
           "AutoregressiveWrapper.gss.depth2")
USER = ("GSSClassifier", "BidirectionalGSS", "BidirectionalDsConv", "MHESAForecaster")
TRAIN = ("train.AutoregressiveWrapper.gss.adam", "train.AutoregressiveWrapper.dsconv.adam",
         "train.AutoregressiveWrapper.mhesa.adam", "train.GSSClassifier.sgd", "train.MHESAForecaster.adamw",
         "train.GSSClassifier.checkpoint.adam", "train.AutoregressiveWrapper.dsconv.checkpoint.adam")
GEN_STEPS = 3


def names() -> list[str]:
    return [*LAYERS, *LMS, *FUNCTIONS, *GENERATE, *WRAPPER, *USER, *TRAIN]


def _randn(*shape: int, seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _tokens(*shape: int, seed: int = 2) -> Any:
    import gt_inputs

    return gt_inputs.tokens(VOCAB, *shape, seed=seed)


def _resolve(path: str) -> Any:
    import importlib

    module, name = path.split(":")
    return getattr(importlib.import_module(f"gated_state_spaces_pytorch.{module}"), name)


def _lm(kind: str, depth: int = 1, max_seq_len: int | None = None) -> Any:
    from gated_state_spaces_pytorch import GatedDsConvLM, GatedExponentialSmoothingLM, GatedStateSpacesLM

    if kind.startswith("gss"):
        keywords = {k: v for k, v in GSS_BASE.items() if k != "dim"}
        if kind == "gss.plain":
            keywords["dss_kernel_lambda_imag_exp"] = False
        return GatedStateSpacesLM(num_tokens=VOCAB, dim=DIM, depth=depth, **keywords)
    if kind == "dsconv":
        extra = {} if max_seq_len is None else {"max_seq_len": max_seq_len}
        return GatedDsConvLM(num_tokens=VOCAB, dim=DIM, depth=depth, heads=HEADS, dim_dsconv=KERNEL,
                             dim_expansion_factor=2, **extra)
    return GatedExponentialSmoothingLM(num_tokens=VOCAB, dim=DIM, depth=depth, heads=HEADS, dim_mhesa=KERNEL,
                                       dim_expansion_factor=2)


def _layer(name: str) -> Built:
    path, keywords, options = LAYERS[name]
    batch = 1 if "batch1" in options else BATCH
    seq = 1 if "seq1" in options else SEQ
    width = keywords.get("dss_kernel_H", DIM) if path == "gss:DSS" else DIM
    return _resolve(path)(**keywords), (_randn(batch, seq, width),), {}


def _lm_model(name: str) -> Built:
    kind, depth, options = LMS[name]
    model = _lm(kind, depth, max_seq_len=16 if "max_seq_len" in options else None)
    ids = _tokens(BATCH, SEQ)
    kwargs = {"labels": _tokens(BATCH, SEQ, seed=3)} if "labels" in options else {}
    return model, (ids,), kwargs


def _function(name: str) -> Built:
    from gated_state_spaces_pytorch import autoregressive_wrapper, dsconv, mhesa

    from gt_calls import Call

    if name == "dsconv.conv1d_fft":
        return Call(dsconv.conv1d_fft, dim=-3, weight_dim=-2), (_randn(BATCH, SEQ, HEADS, 4),
                                                                _randn(BATCH, SEQ, HEADS, seed=2)), {}
    if name == "dsconv.conv1d_fft.last_axes":
        return Call(dsconv.conv1d_fft), (_randn(BATCH, SEQ, 4), _randn(BATCH, 5, seed=2)), {}
    if name == "mhesa.conv1d_fft":
        return Call(mhesa.conv1d_fft, dim=-3, weight_dim=-2), (_randn(BATCH, SEQ, HEADS, 4),
                                                               _randn(SEQ, HEADS, seed=2)), {}
    return Call(autoregressive_wrapper.top_k, thres=0.75), (_randn(BATCH, VOCAB),), {}


def _generate(name: str) -> Built:
    from gated_state_spaces_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    from gt_calls import Method

    kind, keywords, prime, window = GENERATE[name]
    wrapper = AutoregressiveWrapper(_lm(kind), max_seq_len=window)
    keywords = dict(keywords)
    if keywords.get("eos_token") == "eos":
        keywords["eos_token"] = _unreached_token(wrapper, prime)
    return Method(wrapper, "generate", seq_len=GEN_STEPS, **keywords), (_tokens(BATCH, prime, seed=4),), {}


def _unreached_token(wrapper: Any, prime: int) -> int:
    """A vocabulary id that the seeded sampler does not produce in a few eager draws (the library's end-token
    branch fails with a NameError once every sequence has produced the end token)."""
    import torch

    seen: set[int] = set()
    state = torch.get_rng_state()
    for seed in range(6):
        torch.manual_seed(seed)
        seen.update(wrapper.generate(_tokens(BATCH, prime, seed=4), GEN_STEPS + 2).flatten().tolist())
    torch.set_rng_state(state)
    return next(t for t in range(VOCAB - 1, 0, -1) if t not in seen)


def _wrapper(name: str) -> Built:
    from gated_state_spaces_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    kind = name.split(".")[1]
    depth = 2 if name.endswith("depth2") else 1
    return AutoregressiveWrapper(_lm(kind, depth)), (_tokens(BATCH, SEQ + 1),), {}


def _classifier(checkpointed: bool = False) -> Any:
    from gated_state_spaces_pytorch import GSS
    from torch import nn
    from torch.utils.checkpoint import checkpoint

    class GSSClassifier(nn.Module):
        """Token embedding, two GSS layers, a masked mean and a linear head."""

        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(VOCAB, DIM)
            self.layers = nn.ModuleList([GSS(**GSS_BASE), GSS(**GSS_BASE)])
            self.head = nn.Linear(DIM, CLASSES)

        def forward(self, ids: Any, mask: Any) -> Any:
            x = self.emb(ids)
            for layer in self.layers:
                x = checkpoint(layer, x, use_reentrant=False) if checkpointed else layer(x)
            x = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
            return self.head(x)

    return GSSClassifier()


def _forecaster() -> Any:
    from gated_state_spaces_pytorch import GatedMHESA
    from gated_state_spaces_pytorch.mhesa import MHESA
    from torch import nn

    class MHESAForecaster(nn.Module):
        """A multivariate series projected in, exponential smoothing layers, the next step projected out."""

        def __init__(self) -> None:
            super().__init__()
            self.proj_in = nn.Linear(3, DIM)
            self.layers = nn.ModuleList([GatedMHESA(**MHESA_BASE), GatedMHESA(**MHESA_BASE)])
            self.smooth = MHESA(dim=DIM, heads=HEADS, reverse_seq=False)
            self.proj_out = nn.Linear(DIM, 3)

        def forward(self, series: Any) -> Any:
            x = self.proj_in(series)
            for layer in self.layers:
                x = layer(x)
            return self.proj_out(self.smooth(x)[:, -1])

    return MHESAForecaster()


def _user(name: str) -> Built:
    from torch import nn
    from gated_state_spaces_pytorch import GSS, GatedDsConv, GatedMHESA

    import gt_inputs
    from gt_calls import Run

    if name == "GSSClassifier":
        return (Run(_classifier(), lambda owner, i, m: owner(i, m), [GSS]),
                (_tokens(BATCH, SEQ), gt_inputs.padding_mask(BATCH, SEQ, 3)), {})
    if name == "MHESAForecaster":
        return Run(_forecaster(), lambda owner, s: owner(s), [GatedMHESA]), (_randn(BATCH, SEQ, 3),), {}
    cls, base = (GSS, GSS_BASE) if name == "BidirectionalGSS" else (GatedDsConv, DSCONV_BASE)
    layers = nn.ModuleList([cls(**base), cls(**base, reverse_seq=True)])

    def bidirectional(owner: Any, x: Any) -> Any:
        return owner[0](x) + owner[1](x)

    return Run(layers, bidirectional, [cls]), (_randn(BATCH, SEQ, DIM),), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from gated_state_spaces_pytorch import GSS, GatedMHESA
    from gated_state_spaces_pytorch.autoregressive_wrapper import AutoregressiveWrapper

    import gt_inputs
    from gt_calls import Run

    if name.startswith("train.AutoregressiveWrapper"):
        model: Any = AutoregressiveWrapper(_lm(name.split(".")[2]))
        optimizer: Any = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs: tuple[Any, ...] = (_tokens(BATCH, SEQ + 1),)
        entries: list[Any] = [AutoregressiveWrapper]

        def loss_fn(owner: Any, *t: Any) -> Any:
            if "checkpoint" in name:  # the whole wrapped model under activation checkpointing
                from torch.utils.checkpoint import checkpoint

                return checkpoint(owner, *t, use_reentrant=False)
            return owner(*t)
    elif name.startswith("train.GSSClassifier"):
        model = _classifier(checkpointed="checkpoint" in name)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05) if name.endswith("sgd") else torch.optim.Adam(
            model.parameters(), lr=1e-3)
        inputs = (_tokens(BATCH, SEQ), gt_inputs.padding_mask(BATCH, SEQ, 3))
        entries = [GSS]
        labels = torch.tensor([0, 2])

        def loss_fn(owner: Any, *t: Any) -> Any:
            return F.cross_entropy(owner(*t), labels)
    else:
        model = _forecaster()
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        inputs = (_randn(BATCH, SEQ, 3),)
        entries = [GatedMHESA]
        target = _randn(BATCH, 3, seed=5)

        def loss_fn(owner: Any, *t: Any) -> Any:
            return F.mse_loss(owner(*t), target)

    def step(owner: Any, *t: Any) -> Any:
        """The loss, its gradients and an optimizer step (only where gradients are on)."""
        loss = loss_fn(owner, *t)
        if torch.is_grad_enabled():
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss

    return Run(model, step, entries), inputs, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in LAYERS:
        return _layer(name)
    if name in LMS:
        return _lm_model(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in GENERATE:
        return _generate(name)
    if name in WRAPPER:
        return _wrapper(name)
    if name in USER:
        return _user(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
