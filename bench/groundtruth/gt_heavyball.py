"""Ground-truth bench, heavyball: HeavyBall's composable optimizers, stepped in a compiled training step.

heavyball 3.2.1 builds every optimizer as a chain of transforms (``chainable.BaseOpt``, a ``ChainOpt`` over
``utils.StatefulOptimizer``): ``step()`` handles the closure (and, for PSGD, a Hessian-vector product), then per
parameter group splits parameters and gradients into views (``merge_dims``, ``split``), keeps the step count as a
tensor, applies warm-up to the learning rate and runs the chain over all parameters at once (``multi_tensor``) or one
by one. The chain's building blocks in ``utils`` are wrapped by ``decorator_knowngood``, which calls the function as is
while Dynamo traces and compiles it with the library's Inductor backend otherwise; the builder sets
``heavyball.utils.compile_mode = None`` so that the eager steps taken at build time do not start Inductor (the code
Dynamo traces is the same either way). Users compile their training step with the optimizer's ``step()`` inside, as
the README's "compile-first" library is meant to be run.

Each model is a bench module holding a tiny network (an MLP 8 -> 16 -> 4, a small conv net with batch norm, whose
4-D kernels take the preconditioners' merged or split dimensions, or the MLP in bfloat16; batch 2) and its optimizer;
the harness calls it twice in eval and twice in train mode and the state carries over, so the first step (state
initialisation, run eagerly by ``compile_step``) and the later ones are both traced. Its forward is one of
(``gt_optimizer_bench``):

- ``train_step``: ``zero_grad()``, the loss, ``backward()`` (under ``enable_grad``), ``step()`` and the network's
  output, what a compiled training step runs;
- ``step``: one ``optimizer.step()`` alone, the gradients assigned (``gt_calls.OptimizerStep``); ``warm``: the same
  after two eager steps at build time, so the compiled code starts with a run's state (preconditioners set up);
- ``closure``: ``step(closure)``, the closure computing the loss and its gradients (required by ``SAMWrapper`` and
  by PSGD's Hessian approximation, which runs a double-backward or finite-difference Hessian-vector product);
- ``groups``: two parameter groups, the second with its own learning rate and weight decay, or with its own
  ``multi_tensor`` and caution settings (a training step); ``frozen``: a parameter that never gets a gradient.

``MODELS`` covers every public optimizer (``heavyball.__all__``): the first-order ones (SGD, AdamW, NAdam, AdEMAMix,
UnscaledAdamW, SUDSAdamW, Scion, AdamC, RMSprop, ADOPT, LaProp, SignLaProp), schedule-free AdamW and MSAMLaProp
(switched to ``train()`` once at build time, and one model switching ``eval()`` / ``train()`` inside the compiled
step), the orthogonal ones (Muon, MuonAdamW, MuonLaProp, HyperBallAdamW, OrthoLaProp, LaPropOrtho), the SOAP family
(SOAP, KLSOAP, KLShampoo, SOAPNAdam, SOAPAdEMAMix, SOLP and their ``Heavy*`` variants), PSGD (PSGDKron, LATHER,
PSGDPRO, QSGD, PSGDLRA), and the wrappers ``SplitOpt`` (Muon for matrices, AdamW for vectors, as the README splits
them) and ``SAMWrapper``. The flags that change the code path are benched on AdamW, LaProp, Muon, SOAP and PSGD:
``multi_tensor=False`` (the per-parameter chain), weight decay and cautious weight decay, ``caution``, ``mars``,
``palm``, ``warmup_steps``, ``promote``, ``storage_dtype="bfloat16"``, ``consume_grad=False``, the string gradient
and update clippings (which turn fused updates into scale-then-clip chains) and a user's callable one,
``compile_step``, Muon's momentum variants and its zeroth-power mode (``utils.zeroth_power_mode``, set by the
builder), SOAP's one-dimensional preconditioning, unmerged dimensions, splitting, gradient accumulation and bfloat16
state, and PSGD's delayed and cached preconditioners, memory-saving (diagonal) modes, bfloat16 factors, untriangled
storage, no momentum input, ``hessian_approx`` (double-backward and finite differences) and low-rank per-parameter
fits. Left out: ECC state compression (``ecc`` / ``param_ecc``), on which Dynamo stops
with an internal error, so no model of it completes; SOAP's ``use_precond_schedule``, which 3.2.1 hands a Python
step count and fails on eagerly. Random weights, nothing downloaded; ``names()`` needs no torch, ``build(name)``
runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

LR = {"lr": 1e-3}
WD = {"weight_decay": 1e-2}
# Keywords the builder reads itself: ``zeroth_power_mode`` (a global of ``heavyball.utils``), ``sam`` (the optimizer
# class ``SAMWrapper`` wraps), ``split`` (``SplitOpt``'s matrix and vector optimizers) and ``switch`` (the compiled
# step calls ``eval()`` and ``train()`` of a schedule-free optimizer around the network's output).
# The parameter groups: the last layer with its own learning rate and weight decay, or its own loop and caution.
GROUPS: dict[str, dict[str, Any]] = {"groups": {"lr": 1e-2, "weight_decay": 0.1},
                                     "groups_mixed": {"multi_tensor": False, "caution": True}}

# Model name -> (class exported by ``heavyball``, keywords, kind: "train_step", "step", "warm", "closure", "groups",
# "groups_mixed", "frozen"; net: "mlp", "conv" or "bf16").
MODELS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    # First-order optimizers.
    "SGD.train_step": ("SGD", LR, "train_step", "mlp"),
    "SGD.warm.wd_per_param": ("SGD", {**WD, "multi_tensor": False}, "warm", "mlp"),
    "SGD.train_step.caution_warmup": ("SGD", {**LR, "caution": True, "warmup_steps": 2}, "train_step", "mlp"),
    "AdamW.train_step": ("AdamW", LR, "train_step", "mlp"),
    "AdamW.step": ("AdamW", LR, "step", "mlp"),
    "AdamW.warm": ("AdamW", LR, "warm", "mlp"),
    "AdamW.closure": ("AdamW", LR, "closure", "mlp"),
    "AdamW.frozen": ("AdamW", LR, "frozen", "mlp"),
    "AdamW.groups": ("AdamW", LR, "groups", "mlp"),
    "AdamW.groups.mixed": ("AdamW", LR, "groups_mixed", "mlp"),
    "AdamW.train_step.conv": ("AdamW", {**LR, **WD}, "train_step", "conv"),
    "AdamW.train_step.bf16": ("AdamW", LR, "train_step", "bf16"),
    "AdamW.train_step.per_param": ("AdamW", {**LR, "multi_tensor": False}, "train_step", "mlp"),
    "AdamW.train_step.caution_mars": ("AdamW", {**LR, "caution": True, "mars": True}, "train_step", "mlp"),
    "AdamW.train_step.cautious_wd_palm": ("AdamW", {**LR, **WD, "cautious_weight_decay": True, "palm": True},
                                          "train_step", "mlp"),
    "AdamW.train_step.warmup": ("AdamW", {**LR, "warmup_steps": 3}, "train_step", "mlp"),
    "AdamW.train_step.storage_bf16_promote": ("AdamW", {**LR, "storage_dtype": "bfloat16", "promote": True},
                                              "train_step", "bf16"),
    "AdamW.train_step.grad_clip": ("AdamW", {**LR, "gradient_clipping": "l2_clip_"}, "train_step", "mlp"),
    "AdamW.train_step.update_clip": ("AdamW", {**LR, "update_clipping": "rmsnorm_clip_"}, "train_step", "mlp"),
    "AdamW.train_step.custom_clip": ("AdamW", {**LR, "gradient_clipping": "user"}, "train_step", "mlp"),
    "AdamW.train_step.keep_grad": ("AdamW", {**LR, "consume_grad": False}, "train_step", "mlp"),
    "AdamW.train_step.compile_step": ("AdamW", {**LR, "compile_step": True}, "train_step", "mlp"),
    "NAdam.train_step": ("NAdam", LR, "train_step", "mlp"),
    "NAdam.train_step.caution": ("NAdam", {**LR, "caution": True, **WD}, "train_step", "mlp"),
    "AdEMAMix.train_step": ("AdEMAMix", {**LR, "beta3_warmup": 4, "alpha_warmup": 4}, "train_step", "mlp"),
    "UnscaledAdamW.train_step": ("UnscaledAdamW", LR, "train_step", "mlp"),
    "SUDSAdamW.train_step": ("SUDSAdamW", LR, "train_step", "mlp"),
    "Scion.train_step.conv": ("Scion", LR, "train_step", "conv"),
    "AdamC.train_step": ("AdamC", {**LR, **WD, "max_lr": 1e-2}, "train_step", "mlp"),
    "RMSprop.train_step": ("RMSprop", LR, "train_step", "mlp"),
    "ADOPT.train_step": ("ADOPT", LR, "train_step", "mlp"),
    "ADOPT.warm.mars": ("ADOPT", {**LR, "mars": True}, "warm", "mlp"),
    "LaProp.train_step": ("LaProp", LR, "train_step", "mlp"),
    "LaProp.train_step.a_law_clip": ("LaProp", {**LR, "gradient_clipping": "a_law_compress",
                                                "update_clipping": "trust_region_clip_"}, "train_step", "mlp"),
    "LaProp.train_step.mu_law_softsign": ("LaProp", {**LR, "gradient_clipping": "mu_law_compress",
                                                     "update_clipping": "softsign_compress"}, "train_step", "mlp"),
    "LaProp.train_step.per_param_conv": ("LaProp", {**LR, "multi_tensor": False}, "train_step", "conv"),
    "SignLaProp.train_step": ("SignLaProp", LR, "train_step", "mlp"),
    # Schedule-free and momentum-SAM: switched to train() once at build time.
    "SFAdamW.train_step": ("SFAdamW", LR, "train_step", "mlp"),
    "SFAdamW.train_step.switch": ("SFAdamW", {**LR, **WD, "switch": True}, "train_step", "mlp"),
    "SFAdamW.warm": ("SFAdamW", LR, "warm", "mlp"),
    "MSAMLaProp.train_step": ("MSAMLaProp", LR, "train_step", "mlp"),
    # Orthogonal optimizers.
    "Muon.train_step": ("Muon", {"lr": 0.02}, "train_step", "mlp"),
    "Muon.warm.conv": ("Muon", {"lr": 0.02}, "warm", "conv"),
    "Muon.step": ("Muon", {"lr": 0.02}, "step", "mlp"),
    "Muon.groups": ("Muon", {"lr": 0.02}, "groups", "mlp"),
    "Muon.train_step.heavyball_momentum": ("Muon", {"lr": 0.02, "heavyball_momentum": True, "nesterov": False},
                                           "train_step", "mlp"),
    "Muon.train_step.mars_caution": ("Muon", {"lr": 0.02, "mars": True, "caution": True}, "train_step", "mlp"),
    "Muon.train_step.per_param_ema": ("Muon", {"lr": 0.02, "nesterov": False, "multi_tensor": False},
                                      "train_step", "mlp"),
    "Muon.train_step.qr": ("Muon", {"lr": 0.02, "zeroth_power_mode": "qr"}, "train_step", "mlp"),
    "Muon.train_step.polar_express": ("Muon", {"lr": 0.02, "zeroth_power_mode": "thinky_polar_express"},
                                      "train_step", "mlp"),
    "MuonAdamW.train_step": ("MuonAdamW", LR, "train_step", "mlp"),
    "MuonLaProp.train_step": ("MuonLaProp", LR, "train_step", "mlp"),
    "HyperBallAdamW.train_step": ("HyperBallAdamW", LR, "train_step", "mlp"),
    "HyperBallAdamW.train_step.conv": ("HyperBallAdamW", LR, "train_step", "conv"),
    "OrthoLaProp.train_step": ("OrthoLaProp", LR, "train_step", "mlp"),
    "LaPropOrtho.train_step": ("LaPropOrtho", LR, "train_step", "mlp"),
    # The SOAP family.
    "SOAP.train_step": ("SOAP", LR, "train_step", "mlp"),
    "SOAP.warm": ("SOAP", LR, "warm", "mlp"),
    "SOAP.closure": ("SOAP", LR, "closure", "mlp"),
    "SOAP.groups.mixed": ("SOAP", LR, "groups_mixed", "mlp"),
    "SOAP.train_step.storage_bf16": ("SOAP", {**LR, "storage_dtype": "bfloat16"}, "train_step", "mlp"),
    "SOAP.train_step.conv": ("SOAP", LR, "train_step", "conv"),
    "SOAP.train_step.conv_unmerged_split": ("SOAP", {**LR, "merge_dims": False, "split": True,
                                                     "max_precond_dim": 8}, "train_step", "conv"),
    "SOAP.train_step.precondition_1d": ("SOAP", {**LR, "precondition_1d": True, "precondition_frequency": 1},
                                        "train_step", "mlp"),
    "SOAP.train_step.grad_accum": ("SOAP", {**LR, "precond_grad_accum": True, "precondition_frequency": 3},
                                   "train_step", "mlp"),
    "SOAP.train_step.per_param": ("SOAP", {**LR, "multi_tensor": False}, "train_step", "mlp"),
    "KLSOAP.train_step": ("KLSOAP", LR, "train_step", "mlp"),
    "KLShampoo.train_step": ("KLShampoo", LR, "train_step", "mlp"),
    "SOAPNAdam.train_step": ("SOAPNAdam", LR, "train_step", "mlp"),
    "SOAPAdEMAMix.train_step": ("SOAPAdEMAMix", LR, "train_step", "mlp"),
    "SOLP.train_step": ("SOLP", LR, "train_step", "mlp"),
    "HeavySOAP.train_step": ("HeavySOAP", LR, "train_step", "mlp"),
    "HeavyKLSOAP.train_step": ("HeavyKLSOAP", LR, "train_step", "mlp"),
    "HeavyKLShampoo.train_step": ("HeavyKLShampoo", LR, "train_step", "mlp"),
    "HeavySOAPNAdam.train_step": ("HeavySOAPNAdam", LR, "train_step", "mlp"),
    "HeavySOAPAdEMAMix.train_step": ("HeavySOAPAdEMAMix", LR, "train_step", "mlp"),
    "HeavySOLP.train_step": ("HeavySOLP", LR, "train_step", "mlp"),
    # PSGD.
    "PSGDKron.train_step": ("PSGDKron", LR, "train_step", "mlp"),
    "PSGDKron.warm": ("PSGDKron", LR, "warm", "mlp"),
    "PSGDKron.frozen": ("PSGDKron", LR, "frozen", "mlp"),
    "PSGDKron.step.per_param": ("PSGDKron", {**LR, "multi_tensor": False}, "step", "mlp"),
    "PSGDKron.train_step.smart_one_diag_bf16": ("PSGDKron", {**LR, "memory_save_mode": "smart_one_diag",
                                                             "q_dtype": "bfloat16"}, "train_step", "mlp"),
    "PSGDKron.train_step.conv_merge": ("PSGDKron", {**LR, "merge_dims": True}, "train_step", "conv"),
    "PSGDKron.train_step.delayed_cached": ("PSGDKron", {**LR, "delayed": True, "cached": True}, "train_step", "mlp"),
    "PSGDKron.train_step.one_diag_line": ("PSGDKron", {**LR, "memory_save_mode": "one_diag",
                                                       "store_triu_as_line": False}, "train_step", "mlp"),
    "PSGDKron.train_step.all_diag_no_ema": ("PSGDKron", {**LR, "memory_save_mode": "all_diag",
                                                         "exp_avg_input": False,
                                                         "momentum_into_precond_update": False}, "train_step", "mlp"),
    "PSGDKron.closure.hessian": ("PSGDKron", {**LR, "hessian_approx": True}, "closure", "mlp"),
    "PSGDKron.closure.finite_differences": ("PSGDKron", {**LR, "hessian_approx": True, "finite_differences": True},
                                            "closure", "mlp"),
    "LATHER.train_step": ("LATHER", LR, "train_step", "mlp"),
    "LATHER.warm": ("LATHER", LR, "warm", "mlp"),
    "PSGDPRO.train_step": ("PSGDPRO", LR, "train_step", "mlp"),
    "PSGDPRO.train_step.cached": ("PSGDPRO", {**LR, "cached": True}, "train_step", "mlp"),
    "QSGD.train_step": ("QSGD", LR, "train_step", "mlp"),
    "PSGDLRA.train_step": ("PSGDLRA", {**LR, "rank": 4}, "train_step", "mlp"),
    "PSGDLRA.warm": ("PSGDLRA", {**LR, "rank": 4}, "warm", "mlp"),
    "PSGDLRA.train_step.per_param_delayed": ("PSGDLRA", {**LR, "rank": 2, "multi_tensor": False, "delayed": True},
                                             "train_step", "mlp"),
    # Wrappers.
    "SplitOpt.train_step": ("SplitOpt", {"split": ("Muon", "AdamW")}, "train_step", "mlp"),
    "SplitOpt.closure": ("SplitOpt", {"split": ("Muon", "AdamW")}, "closure", "mlp"),
    "SAMWrapper.closure": ("SAMWrapper", {"sam": "AdamW"}, "closure", "mlp"),
    "SAMWrapper.closure.laprop": ("SAMWrapper", {"sam": "LaProp", "ball": 0.05}, "closure", "mlp"),
}


def names() -> list[str]:
    return list(MODELS)


def _clip_elementwise(updates: list[Any]) -> list[Any]:
    """A user's gradient clipping: each element into [-0.1, 0.1], as a callable ``gradient_clipping``."""
    return [u.clamp(-0.1, 0.1) for u in updates]


def _optimizer_class(heavyball: Any, name: str, keywords: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The class to build and its keywords: wrappers get their inner optimizers resolved here."""
    keywords = dict(keywords)
    if name == "SAMWrapper":
        inner = getattr(heavyball, keywords.pop("sam"))

        def sam(parameters: Any, **rest: Any) -> Any:
            parameters = list(parameters)
            return heavyball.SAMWrapper(parameters, wrapped_optimizer=inner(parameters, lr=1e-3), **rest)

        return sam, keywords
    if name == "SplitOpt":
        matrices, vectors = (getattr(heavyball, n) for n in keywords.pop("split"))

        def split(parameters: Any) -> Any:
            parameters = list(parameters)
            return heavyball.SplitOpt([
                {"params": [p for p in parameters if p.ndim >= 2], "optimizer": matrices, "lr": 0.02},
                {"params": [p for p in parameters if p.ndim < 2], "optimizer": vectors, "lr": 1e-3},
            ])

        return split, keywords
    return getattr(heavyball, name), keywords


def build(name: str) -> Built:
    import warnings

    import heavyball
    import heavyball.utils
    import torch
    import torch.nn.functional as F
    from torch import nn

    from gt_optimizer_bench import optimizer_model, tiny_model

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    heavyball.utils.compile_mode = None
    heavyball.utils.compile_mode_recommended_to_none = None
    class_name, keywords, kind, net_kind = MODELS[name]
    keywords = dict(keywords)
    if keywords.get("gradient_clipping") == "user":
        keywords["gradient_clipping"] = _clip_elementwise
    heavyball.utils.zeroth_power_mode = keywords.pop("zeroth_power_mode", "newtonschulz")
    switch = keywords.pop("switch", False)
    cls, keywords = _optimizer_class(heavyball, class_name, keywords)
    made: list[Any] = []

    def make(parameters: Any, **rest: Any) -> Any:
        made.append(cls(parameters, **rest))
        if class_name in ("SFAdamW", "MSAMLaProp"):
            made[-1].train()
        return made[-1]

    net, x, y = tiny_model(net_kind)
    model, args, kwargs = optimizer_model(make, keywords, kind, net, x, y, dict(GROUPS))
    optimizer = made[0]
    if not switch:
        return model, args, kwargs

    class _SwitchStep(nn.Module):
        """A training step, then the network's output at the evaluation point (``eval()``), back to ``train()``."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            optimizer.zero_grad()
            with torch.enable_grad():
                loss = F.mse_loss(self.net(x), y)
                loss.backward()
            optimizer.step()
            optimizer.eval()
            out = self.net(x)
            optimizer.train()
            return out + loss.detach()

        def entry_points(self) -> list[Any]:
            return [type(optimizer).step, type(optimizer).eval, type(optimizer).train]

    return _SwitchStep(), args, kwargs
