"""Ground-truth bench, asdl (asdfghjkl 0.1a4): ASDL's curvature matrices, gradient makers and kernels on tiny
networks, as users compile a training or curvature step.

ASDL computes second-order quantities of a network through module hooks. ``asdl.extend(model, *op_names)`` (a
context manager) registers a forward hook and an old-style backward hook on each supported module (``Linear``,
``Conv2d``, ``BatchNorm1d`` / ``2d``, ``LayerNorm``, ``Embedding``, ASDL's ``Bias`` and ``Scale``) and an
``Operation`` per module that accumulates what the named operations ask for (per-example gradients, full /
layer-wise / Kronecker-factored / unit-wise / diagonal covariances and their inverses, Gram matrices, saved
inputs and output gradients) from the module's input and output gradient. Users rarely call it directly: the
``GradientMaker`` classes wrap a training step (``setup_model_call(model, x)``, ``setup_loss_call(F.cross_entropy,
dummy_y, t)``, then ``forward_and_backward()``), the ``FisherMaker`` / ``HessianMaker`` compute a matrix of a
chosen shape and store it on the modules (``module.fisher``, a ``SymMatrix``), the preconditioned gradient
makers (K-FAC, natural gradients of other shapes, Shampoo, PSGD, K-BFGS, SENG, Newton, SMW) precondition the
gradients before an optimizer step, and ``asdl.kernel`` computes empirical NTKs and natural gradients through
them. The hooks run as frames of their own, which Dynamo traces, as it traces the makers' code around them.
Each model is a bench module whose forward does what a user's compiled step does and returns its results
(gradients are enabled whatever the harness's mode, as every step differentiates). The tables cover:

- ``FISHER``: ``get_fisher_maker``'s ``forward_and_backward`` with each Fisher type (exact, Monte-Carlo,
  empirical) and the full, layer-wise, Kronecker-factored and diagonal shapes on an MLP with cross-entropy;
  the Kronecker eigenbasis and unit-wise shapes; MSE (exact, and Monte-Carlo with several samples, a variance
  and a seed); a conv net, a conv net with batch norm, a network with batch and layer norms (Kronecker factors
  with unit-wise rules for the norms, as K-FAC assigns them), one with ASDL's ``Bias`` / ``Scale`` modules;
  the options (accumulation over two calls, the loss gradient, the inverse with damping, the Fisher-vector
  product of a ``ParamVector`` read back with ``load_fvp``, ignored modules); then ``fisher_eig`` (exact,
  empirical, Monte-Carlo), ``fisher_free``, ``fisher_quadratic_form`` and ``fisher_esd``, with few iterations;
- ``HESSIAN``: ``HessianMaker`` of each shape (full, layer-wise, diagonal), with the loss gradient, accumulation
  with a scale, the Hessian-vector product, ``hessian_eig``, ``hessian_free`` and ``hessian_quadratic_form``;
- ``MAKERS``: a training step through each gradient maker: the plain ``GradientMaker`` (a loss function, a loss
  module, ``setup_loss_repr``, ``setup_logits_repr`` on a model returning a tuple), ``KfacGradientMaker``
  (each Fisher type, MSE with MC samples and a seed, ``swift``, conv nets with and without batch norm, batch
  and layer norms, an embedding network, update schedules from ``num_total_steps``, a curvature interval
  with warm-up, ignored modules), ``EkfacGradientMaker``, the full, unit-wise, diagonal and empirical (diagonal)
  natural gradients, ``ShampooGradientMaker`` (with blocks), ``PsgdGradientMaker`` (autograd and functorch
  Hessian-vector products), ``KronPsgdGradientMaker``, ``KronBfgsGradientMaker`` (with the minibatch Hessian
  action), ``SengGradientMaker``, ``NewtonGradientMaker`` (with ``absolute``), ``SmwEmpNaturalGradientMaker``
  (a loss function and a loss module);
- ``FUNCTORCH``: the ``GradientMaker``'s functorch methods (``loss_grad``, ``per_example_loss_grads`` with and
  without ``VmapInfo``, ``loss_hessian``, ``loss_hvp``, ``logit_jacobian``, ``logit_jvp``, ``fvp`` for
  cross-entropy and MSE, ``nvp``), ``delegate_forward_and_backward``, PSGD's ``criterion`` and K-FAC's
  ``precondition`` of given vectors;
- ``KERNELS``: ``asdl.kernel``: the implicit empirical NTK (one and two batches), the class-wise direct and
  Hadamard ones, the natural gradients through them (``natural_gradient_cross_entropy`` with a full and a
  class-wise kernel, ``efficient_natural_gradient_cross_entropy``, ``empirical_natural_gradient`` and
  ``empirical_natural_gradient2``), ``kernel_free_cross_entropy``, ``kernel_vector_product``,
  ``kernel_eigenvalues``, ``batch`` over a kernel function (one batch and two), the logit-Hessian helpers;
- ``CORE``: ``asdl.extend`` and its context's results as the makers read them (per-example gradients, saved
  inputs and output gradients, covariances of each shape and their ``SymMatrix``, the full covariance, Gram
  matrices, means of inputs, outputs and output gradients, the ReLU relative FIM, ignored modules),
  ``no_centered_cov``, ``save_inputs_outgrads``, ``save_outgrads``, ``batch_gradient``,
  ``save_batch_gradient``, ``data_loader_gradient``, ``set_counter`` (FLOP counters);
- ``MATRICES``: ``SymMatrix`` of each kind, ``Kron``, ``Diag``, ``UnitWise`` and ``KFE`` arithmetic, inverses,
  eigenvalues, traces and products with gradients, ``ParamVector`` arithmetic, ``power_method``,
  ``conjugate_gradient_method``, ``stochastic_lanczos_quadrature`` and ``quadratic_form`` on a given
  matrix-vector product, and ``asdl.utils`` (``cholesky_inv``, ``smw_inv``, ``im2col_2d``, ``skip_param_grad``,
  ``matrix_to_tril``).

Left out: everything distributed (``reduce_*``, ``sync_*``, ``module_partitions``: they need
``torch.distributed``), CUDA streams, ``SymMatrix.save`` / ``load`` (files), ``PseudoBatchLoaderGenerator`` (a
data-loader factory, nothing to compile); and what fails eagerly in this release: ``CurveBallGradientMaker``
(its ``forward_and_backward`` raises ``NotImplementedError``: it defines ``_precondition`` but the base class
calls ``precondition``), the natural-gradient makers' moving-average path (``ema_decay``, with
``update_preconditioner``) and ``OperationContext.calc_cov``, which enter ``torch.cuda.nvtx.range`` and raise
on a CPU build, the layer-wise natural gradients (``LayerWiseNaturalGradientMaker``, a layer-wise
``EmpNaturalGradientMaker``: ``SymMatrix`` has no ``has_inv``), the swift Kronecker Fisher on a network whose
hidden activations autograd saves (an in-place update of a layer input), ``empirical_direct_ntk`` and
``jacobian`` (they read ``module.operation`` and ``p.batch_grads``, which this release no longer sets) and
``OperationContext.calc_kernel`` (it multiplies lists). One model fails under Dynamo, not eagerly, and is kept for
what it traces until then: the layer-wise empirical Fisher-vector product (Dynamo cannot compare two parameters
of different shapes with ``==``, as a list lookup of a parameter does). Random weights from fixed seeds, batches
of 4 (a second batch of 2 for the kernels). Nothing downloaded; ``names()`` needs no torch, ``build(name)`` runs
in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

N = 4  # batch size

# model -> (fisher type, shapes, loss, net, forward_and_backward keywords, FisherConfig keywords, then)
# fisher types: exact, mc, emp; loss: ce, mse; then: None or a FisherMaker method run after the Fisher.
FISHER: dict[str, tuple[str, tuple[Any, ...], str, str, dict[str, Any], dict[str, Any], str | None]] = {
    **{f"{t}.{s}.mlp": (t, (s,), "ce", "mlp", {}, {}, None)
       for t in ("exact", "mc", "emp") for s in ("full", "layer_wise", "kron", "diag")},
    "emp.kfe.mlp": ("emp", ("kfe",), "ce", "mlp", {}, {}, None),
    "mc.unit_wise.norms": ("mc", ("unit_wise",), "ce", "norms", {}, {}, None),
    "exact.kron.mlp.mse": ("exact", ("kron",), "mse", "mlp_mse", {}, {}, None),
    "mc.diag.mlp.mse": ("mc", ("diag",), "mse", "mlp_mse", {}, {"n_mc_samples": 2, "var": 0.5}, None),
    "mc.full.mlp.mse": ("mc", ("full",), "mse", "mlp_mse", {}, {"seed": 1}, None),
    "exact.kron.cnn": ("exact", ("kron",), "ce", "cnn", {}, {}, None),
    "mc.diag.cnn": ("mc", ("diag",), "ce", "cnn", {}, {}, None),
    "emp.layer_wise.cnn": ("emp", ("layer_wise",), "ce", "cnn", {}, {}, None),
    "mc.kfe.cnn": ("mc", ("kfe",), "ce", "cnn", {}, {}, None),
    "exact.unit_wise.cnn_bn": ("exact", ("unit_wise",), "ce", "cnn_bn", {}, {}, None),
    "mc.kron.norms": ("mc", ("kron", ("BatchNorm1d", "unit_wise"), ("LayerNorm", "unit_wise")), "ce", "norms",
                      {}, {}, None),
    "emp.diag.bias_scale": ("emp", ("diag",), "ce", "bias_scale", {}, {}, None),
    "mc.kron.bias_scale": ("mc", ("kron",), "ce", "bias_scale", {}, {}, None),
    # forward_and_backward's options
    "mc.kron.mlp.accumulate": ("mc", ("kron",), "ce", "mlp", {"accumulate": True}, {}, None),
    "exact.diag.mlp.calc_loss_grad": ("exact", ("diag",), "ce", "mlp", {"calc_loss_grad": True}, {}, None),
    "emp.layer_wise.mlp.calc_loss_grad": ("emp", ("layer_wise",), "ce", "mlp", {"calc_loss_grad": True}, {}, None),
    "exact.kron.mlp.calc_inv": ("exact", ("kron",), "ce", "mlp", {"calc_inv": True, "damping": 1e-2}, {}, None),
    "emp.kron.mlp.calc_inv": ("emp", ("kron",), "ce", "mlp", {"calc_inv": True, "damping": 1e-2}, {}, None),
    "mc.layer_wise.mlp.calc_inv": ("mc", ("layer_wise",), "ce", "mlp", {"calc_inv": True, "damping": 1e-2}, {},
                                   None),
    "emp.unit_wise.norms.calc_inv": ("emp", ("unit_wise",), "ce", "norms", {"calc_inv": True, "damping": 1e-2}, {},
                                     None),
    "emp.diag.mlp.calc_inv": ("emp", ("diag",), "ce", "mlp", {"calc_inv": True, "damping": 1e-2}, {}, None),
    "exact.full.mlp.fvp": ("exact", ("full",), "ce", "mlp", {"fvp": True}, {}, None),
    "emp.layer_wise.mlp.fvp": ("emp", ("layer_wise",), "ce", "mlp", {"fvp": True}, {}, None),
    "mc.kron.mlp.ignore_modules": ("mc", ("kron",), "ce", "mlp", {}, {"ignore_modules": ["0"]}, None),
    # the Fisher's eigenvalues, linear solves and quadratic forms
    "exact.full.mlp.fisher_eig": ("exact", ("full",), "ce", "mlp", {}, {}, "fisher_eig"),
    "emp.layer_wise.mlp.fisher_eig": ("emp", ("layer_wise",), "ce", "mlp", {}, {}, "fisher_eig"),
    "mc.full.mlp.fisher_free": ("mc", ("full",), "ce", "mlp", {}, {"seed": 0}, "fisher_free"),
    "mc.layer_wise.mlp.fisher_eig": ("mc", ("layer_wise",), "ce", "mlp", {}, {}, "fisher_eig"),
    "exact.full.mlp.fisher_quadratic_form": ("exact", ("full",), "ce", "mlp", {}, {}, "fisher_quadratic_form"),
    "emp.full.mlp.fisher_esd": ("emp", ("full",), "ce", "mlp", {}, {}, "fisher_esd"),
}

# model -> (shapes, net, forward_and_backward keywords, then)
HESSIAN: dict[str, tuple[tuple[str, ...], str, dict[str, Any], str | None]] = {
    "full.mlp": (("full",), "mlp", {}, None),
    "layer_wise.mlp": (("layer_wise",), "mlp", {}, None),
    "diag.mlp": (("diag",), "mlp", {}, None),
    "diag.cnn.calc_loss_grad": (("diag",), "cnn", {"calc_loss_grad": True}, None),
    "full.mlp.accumulate": (("full",), "mlp", {"accumulate": True, "scale": 0.5}, None),
    "hvp.mlp": (("full",), "mlp", {"hvp": True}, None),
    "hvp.mlp.calc_loss_grad": (("full",), "mlp", {"hvp": True, "calc_loss_grad": True}, None),
    "hessian_eig.mlp": (("full",), "mlp", {}, "hessian_eig"),
    "hessian_free.mlp": (("full",), "mlp", {}, "hessian_free"),
    "hessian_quadratic_form.mlp": (("full",), "mlp", {}, "hessian_quadratic_form"),
}

# model -> (maker class, net, maker keywords, PreconditioningConfig keywords, loss style)
MAKERS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any], str]] = {
    "GradientMaker.mlp": ("GradientMaker", "mlp", {}, {}, "call"),
    "GradientMaker.loss_module": ("GradientMaker", "mlp", {}, {}, "module"),
    "GradientMaker.loss_repr": ("GradientMaker", "mlp", {}, {}, "repr"),
    "GradientMaker.logits_repr": ("GradientMaker", "tuple_out", {}, {}, "logits"),
    "KfacGradientMaker.mc.mlp": ("KfacGradientMaker", "mlp", {}, {}, "call"),
    "KfacGradientMaker.exact.mlp": ("KfacGradientMaker", "mlp", {"fisher_type": "fisher_exact"}, {}, "call"),
    "KfacGradientMaker.emp.mlp": ("KfacGradientMaker", "mlp", {"fisher_type": "fisher_emp"}, {}, "call"),
    "KfacGradientMaker.mse": ("KfacGradientMaker", "mlp_mse", {"loss_type": "mse", "n_mc_samples": 2, "seed": 0}, {},
                              "mse"),
    "KfacGradientMaker.swift": ("KfacGradientMaker", "cnn", {"swift": True}, {}, "call"),
    "KfacGradientMaker.cnn": ("KfacGradientMaker", "cnn", {"fisher_type": "fisher_emp"}, {}, "call"),
    "KfacGradientMaker.norms": ("KfacGradientMaker", "norms", {}, {}, "call"),
    "KfacGradientMaker.cnn_bn": ("KfacGradientMaker", "cnn_bn", {"fisher_type": "fisher_emp"}, {}, "call"),
    "KfacGradientMaker.schedule": ("KfacGradientMaker", "mlp", {}, {"num_total_steps": 4,
                                                                    "preconditioner_upd_ratio": 0.5}, "call"),
    "KfacGradientMaker.curvature_interval": ("KfacGradientMaker", "mlp", {"fisher_type": "fisher_emp"},
                                             {"curvature_upd_interval": 2, "preconditioner_warmup_steps": 1},
                                             "call"),
    "KfacGradientMaker.ignore_modules": ("KfacGradientMaker", "mlp", {}, {"ignore_modules": ["2"]}, "call"),
    "KfacGradientMaker.embedding": ("KfacGradientMaker", "embedding", {"fisher_type": "fisher_exact"}, {}, "call"),
    "EkfacGradientMaker.mlp": ("EkfacGradientMaker", "mlp", {"fisher_type": "fisher_emp"}, {}, "call"),
    "FullNaturalGradientMaker.mlp": ("FullNaturalGradientMaker", "mlp", {}, {}, "call"),
    "UnitWiseNaturalGradientMaker.norms": ("UnitWiseNaturalGradientMaker", "norms", {}, {}, "call"),
    "DiagNaturalGradientMaker.cnn": ("DiagNaturalGradientMaker", "cnn", {}, {}, "call"),
    "EmpNaturalGradientMaker.diag": ("EmpNaturalGradientMaker", "mlp", {"fisher_shape": "diag"}, {}, "call"),
    "ShampooGradientMaker.mlp": ("ShampooGradientMaker", "mlp", {}, {}, "call"),
    "ShampooGradientMaker.cnn.block": ("ShampooGradientMaker", "cnn", {"block_size": 4}, {}, "call"),
    "PsgdGradientMaker.mlp": ("PsgdGradientMaker", "mlp", {}, {}, "call"),
    "PsgdGradientMaker.functorch": ("PsgdGradientMaker", "mlp", {"use_functorch": True}, {}, "call"),
    "KronPsgdGradientMaker.mlp": ("KronPsgdGradientMaker", "mlp", {}, {}, "call"),
    "KronPsgdGradientMaker.cnn": ("KronPsgdGradientMaker", "cnn", {"precond_lr": 0.1}, {}, "call"),
    "KronBfgsGradientMaker.mlp": ("KronBfgsGradientMaker", "mlp", {}, {"ema_decay": 0.9}, "call"),
    "KronBfgsGradientMaker.cnn.minibatch_hessian_action": ("KronBfgsGradientMaker", "cnn",
                                                           {"minibatch_hessian_action": True}, {"ema_decay": 0.9},
                                                           "call"),
    "SengGradientMaker.mlp": ("SengGradientMaker", "mlp", {"sketching_size": 3}, {"data_size": N}, "call"),
    "SengGradientMaker.cnn": ("SengGradientMaker", "cnn", {"sketching_size": 2, "truncated_rank": 2},
                              {"data_size": N}, "call"),
    "NewtonGradientMaker.mlp": ("NewtonGradientMaker", "mlp", {}, {}, "call"),
    "NewtonGradientMaker.absolute": ("NewtonGradientMaker", "mlp_mse", {"absolute": True}, {}, "mse"),
    "SmwEmpNaturalGradientMaker.mlp": ("SmwEmpNaturalGradientMaker", "mlp", {}, {}, "call"),
    "SmwEmpNaturalGradientMaker.loss_module": ("SmwEmpNaturalGradientMaker", "mlp", {}, {}, "module"),
}

# GradientMaker methods (functorch) and delegation: model -> (net, method, keywords)
FUNCTORCH: dict[str, tuple[str, str, dict[str, Any]]] = {
    "loss_grad": ("mlp", "loss_grad", {}),
    "per_example_loss_grads": ("mlp", "per_example_loss_grads", {}),
    "loss_hessian": ("mlp", "loss_hessian", {}),
    "loss_hvp": ("mlp", "loss_hvp", {}),
    "logit_jacobian": ("mlp", "logit_jacobian", {}),
    "logit_jvp": ("mlp", "logit_jvp", {"return_model_output": True}),
    "fvp.cross_entropy": ("mlp", "fvp", {"loss_type": "cross_entropy"}),
    "fvp.mse": ("mlp_mse", "fvp", {"loss_type": "mse", "return_model_output": True}),
    "nvp": ("mlp", "nvp", {}),
    "per_example_loss_grads.vmap_info": ("mlp", "per_example_loss_grads", {"vmap_info": True}),
    "PsgdGradientMaker.criterion": ("mlp", "criterion", {"n_samples": 2}),
    "KfacGradientMaker.precondition_vectors": ("mlp", "precondition_vectors", {}),
    "delegate_forward_and_backward": ("mlp", "delegate", {}),
}

KERNELS = ("empirical_implicit_ntk",
           "empirical_implicit_ntk.two_batches", "empirical_class_wise_direct_ntk",
           "empirical_class_wise_hadamard_ntk",
           "natural_gradient_cross_entropy", "natural_gradient_cross_entropy.class_wise",
           "efficient_natural_gradient_cross_entropy", "empirical_natural_gradient",
           "kernel_free_cross_entropy",
           "kernel_vector_product", "kernel_eigenvalues.cross_entropy", "batch", "batch.two",
           "logits_hessian_cross_entropy", "logits_second_order_grad_cross_entropy")

CORE = ("extend.batch_grads.cnn", "extend.save_inputs_outgrads", "extend.cov_kron.cnn", "extend.cov_diag.norms",
        "extend.cov_unit_wise.norms", "extend.cov.layer_wise", "extend.full_cov", "extend.gram_direct",
        "extend.gram_hadamard", "extend.mean_outgrads", "extend.rfim_relu", "extend.ignore_modules",
        "no_centered_cov.kron", "no_centered_cov.diag.calc_inv", "save_inputs_outgrads", "save_outgrads",
        "batch_gradient", "batch_gradient.return_outputs", "save_batch_gradient", "data_loader_gradient",
        "set_counter")

MATRICES = ("SymMatrix.full", "SymMatrix.kron", "SymMatrix.diag", "SymMatrix.unit_wise", "SymMatrix.kfe",
            "SymMatrix.add", "Kron.update_inv.mvp", "Kron.eigenvalues", "Diag.update_inv.mvp",
            "UnitWise.update_inv.mvp", "ParamVector.ops", "power_method", "conjugate_gradient_method",
            "stochastic_lanczos_quadrature", "quadratic_form", "cholesky_inv", "smw_inv", "im2col_2d",
            "skip_param_grad", "matrix_to_tril")


def names() -> list[str]:
    return ([f"fisher.{n}" for n in FISHER] + [f"hessian.{n}" for n in HESSIAN] + [f"maker.{n}" for n in MAKERS]
            + [f"functorch.{n}" for n in FUNCTORCH] + [f"kernel.{n}" for n in KERNELS]
            + [f"core.{n}" for n in CORE] + [f"matrix.{n}" for n in MATRICES])


def _net(name: str) -> tuple[Any, Any, Any]:
    """(network, inputs, targets) of a network name, with fixed seeds."""
    import torch
    from torch import nn

    from asdl.operations import Bias, Scale

    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    classes = torch.arange(N) % 3
    if name == "mlp":
        return nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3)), torch.randn(N, 4, generator=gen), classes
    if name == "mlp_mse":
        return (nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2)), torch.randn(N, 4, generator=gen),
                torch.randn(N, 2, generator=gen))
    if name == "cnn":
        net = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                            nn.Linear(2 * 2 * 2, 3))
        return net, torch.randn(N, 1, 4, 4, generator=gen), classes
    if name == "cnn_bn":
        net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 2 * 2, 3))
        return net, torch.randn(N, 1, 4, 4, generator=gen), classes
    if name == "norms":
        net = nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 5), nn.LayerNorm(5),
                            nn.Linear(5, 3))
        return net, torch.randn(N, 4, generator=gen), classes
    if name == "embedding":
        net = nn.Sequential(nn.Embedding(7, 3), nn.Flatten(), nn.Linear(3 * 3, 3))
        return net, torch.randint(0, 7, (N, 3), generator=gen), classes
    if name == "bias_scale":
        net = nn.Sequential(nn.Linear(4, 5, bias=False), Bias(), Scale(), nn.ReLU(), nn.Linear(5, 3))
        return net, torch.randn(N, 4, generator=gen), classes
    if name == "tuple_out":
        class TwoHeads(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.body = nn.Linear(4, 5)
                self.head = nn.Linear(5, 3)

            def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
                h = torch.relu(self.body(x))
                return self.head(h), h

        return TwoHeads(), torch.randn(N, 4, generator=gen), classes
    raise KeyError(name)


def _modules() -> dict[str, Any]:
    import torch
    from torch import nn

    class Run(nn.Module):
        """Bench glue: ``run(*inputs)`` is the user's code (a training or curvature step); ``entered`` the library
        functions it calls; ``held`` the modules it uses (registered, so the mode reaches them). Gradients are
        enabled, as every step here differentiates."""

        def __init__(self, run: Any, entered: list[Any], **held: nn.Module) -> None:
            super().__init__()
            self.held = nn.ModuleDict(held)
            self.run = run
            self.entered = entered

        def forward(self, *inputs: Any) -> Any:
            with torch.enable_grad():
                return self.run(*inputs)

        def entry_points(self) -> list[Any]:
            return self.entered

    return {"Run": Run}


def _collect(net: Any, attr: str) -> list[Any]:
    """The tensors of the ``SymMatrix`` stored as ``attr`` on the network and its modules."""
    out: list[Any] = []
    for module in [net] + list(net.modules()):
        matrix = getattr(module, attr, None)
        if matrix is None:
            continue
        for name in ("data", "inv"):
            if getattr(matrix, name, None) is not None:
                out.append(getattr(matrix, name))
        kron = getattr(matrix, "kron", None)
        if kron is not None:
            out += [t for t in (kron.A, kron.B, kron.A_inv, kron.B_inv) if t is not None]
        diag = getattr(matrix, "diag", None)
        if diag is not None:
            out += [t for t in (diag.weight, diag.bias, diag.weight_inv, diag.bias_inv) if t is not None]
        unit = getattr(matrix, "unit", None)
        if unit is not None:
            out += [t for t in (unit.data, unit.inv) if t is not None]
        kfe = getattr(matrix, "kfe", None)
        if kfe is not None:
            out += [kfe.Ua, kfe.Ub]
    return out


def _shapes(shapes: tuple[Any, ...]) -> list[Any]:
    """Fisher shapes, with ``(module class name, shape)`` rules resolved."""
    from torch import nn

    return [s if isinstance(s, str) else (getattr(nn, s[0]), s[1]) for s in shapes]


def _fisher(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from asdl import FisherConfig, ParamVector, get_fisher_maker

    ftype, shapes, loss, net_name, fb_keywords, cfg_keywords, then = FISHER[name]
    net, X, y = _net(net_name)
    shape_list = _shapes(("full", "diag") if shapes == ("full_and_diag",) else shapes)
    config = FisherConfig(fisher_type=f"fisher_{ftype}", fisher_shapes=shape_list,
                          loss_type="cross_entropy" if loss == "ce" else "mse", data_size=N, **cfg_keywords)
    fm = get_fisher_maker(net, config)
    loss_fn = F.cross_entropy if loss == "ce" else F.mse_loss
    params = [p for p in net.parameters() if p.requires_grad]
    vec = ParamVector(params, [torch.ones_like(p) for p in params]) if fb_keywords.get("fvp") else None
    accumulate = fb_keywords.get("accumulate", False)

    def run(X: Any, y: Any) -> Any:
        dummy_y = fm.setup_model_call(net, X)
        fm.setup_loss_call(loss_fn, dummy_y, y)
        keywords = dict(fb_keywords)
        if vec is not None:
            keywords["vec"] = vec
        out, loss_value = fm.forward_and_backward(**keywords)
        if accumulate:
            fm.forward_and_backward(**keywords)
        if then == "fisher_eig":
            return fm.fisher_eig(top_n=1, max_iters=3, tol=1e-3)
        if then == "fisher_free":
            return fm.fisher_free(b=ParamVector(params, [torch.ones_like(p) for p in params]), max_iters=2)
        if then == "fisher_quadratic_form":
            return fm.fisher_quadratic_form(ParamVector(params, [torch.ones_like(p) for p in params]))
        if then == "fisher_esd":
            return fm.fisher_esd(n_v=1, num_iter=3, num_bins=20)
        attr = config.fvp_attr if vec is not None else config.fisher_attr
        if vec is not None:
            loaded = fm.load_fvp(shape_list[0])
            return out, loss_value, loaded.get_flatten_vector() if loaded is not None else None
        return out, loss_value, _collect(net, attr)

    entered = [get_fisher_maker, type(fm).forward_and_backward]
    if then is not None:
        entered.append(getattr(type(fm), then))
    return _modules()["Run"](run, entered, net=net), (X, y), {}


def _hessian(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    from asdl import HessianConfig, HessianMaker, ParamVector

    shapes, net_name, fb_keywords, then = HESSIAN[name]
    net, X, y = _net(net_name)
    hm = HessianMaker(net, HessianConfig(hessian_shapes=list(shapes)))
    loss_fn = F.mse_loss if net_name == "mlp_mse" else F.cross_entropy
    params = [p for p in net.parameters() if p.requires_grad]
    ones = ParamVector(params, [torch.ones_like(p) for p in params])

    def run(X: Any, y: Any) -> Any:
        dummy_y = hm.setup_model_call(net, X)
        hm.setup_loss_call(loss_fn, dummy_y, y)
        keywords = dict(fb_keywords)
        if keywords.get("hvp"):
            keywords["vec"] = ones
        accumulate = keywords.pop("accumulate", False)
        rst = hm.forward_and_backward(**keywords)
        if accumulate:
            hm.forward_and_backward(accumulate=True, **keywords)
        if then == "hessian_eig":
            return hm.hessian_eig(top_n=1, max_iters=3, tol=1e-3)
        if then == "hessian_free":
            return hm.hessian_free(b=ones.copy(), max_iters=2)
        if then == "hessian_quadratic_form":
            return hm.hessian_quadratic_form(ones)
        if keywords.get("hvp"):
            return rst, net.hvp.get_flatten_vector()
        return rst, _collect(net, "hessian")

    entered = [HessianMaker.forward_and_backward] + ([getattr(HessianMaker, then)] if then else [])
    return _modules()["Run"](run, entered, net=net), (X, y), {}


def _maker(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    import asdl

    cls_name, net_name, keywords, cfg_keywords, style = MAKERS[name]
    net, X, y = _net(net_name)
    cls = getattr(asdl, cls_name)
    if cls_name == "GradientMaker":
        gm = cls(net)
    elif cls_name == "NewtonGradientMaker":
        gm = cls(net, asdl.NewtonGradientConfig(**keywords))
    elif cls_name == "SmwEmpNaturalGradientMaker":
        gm = cls(net, asdl.SmwEmpNaturalGradientConfig(data_size=N, **keywords))
    else:
        gm = cls(net, asdl.PreconditioningConfig(**{"data_size": N, "damping": 1e-2, **cfg_keywords}), **keywords)
    loss_module = torch.nn.CrossEntropyLoss()

    def run(X: Any, y: Any) -> Any:
        net.zero_grad(set_to_none=True)
        dummy_y = gm.setup_model_call(net, X)
        if style == "call":
            gm.setup_loss_call(F.cross_entropy, dummy_y, y)
        elif style == "mse":
            gm.setup_loss_call(F.mse_loss, dummy_y, y)
        elif style == "module":
            gm.setup_loss_call(loss_module, dummy_y, y)
        elif style == "repr":
            gm.setup_loss_repr(dummy_y.log_softmax(dim=-1).mean().neg())
        elif style == "logits":
            gm.setup_logits_repr(dummy_y[0])
            gm.setup_loss_call(F.cross_entropy, dummy_y[0], y)
        out, loss_value = gm.forward_and_backward()
        return out, loss_value, [p.grad for p in net.parameters()], gm.model_output is out, gm.loss

    return _modules()["Run"](run, [type(gm).forward_and_backward], net=net), (X, y), {}


def _functorch(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    import asdl

    net_name, method, keywords = FUNCTORCH[name]
    net, X, y = _net(net_name)
    keywords = dict(keywords)
    vmap_info = keywords.pop("vmap_info", False)
    if method == "criterion":  # PSGD's preconditioner fit, estimated from random Hessian-vector products
        gm = asdl.PsgdGradientMaker(net, asdl.PreconditioningConfig(data_size=N))
    elif method == "precondition_vectors":  # K-FAC applied to given vectors after a step
        gm = asdl.KfacGradientMaker(net, asdl.PreconditioningConfig(data_size=N, damping=1e-2),
                                    fisher_type="fisher_emp")
    else:
        gm = asdl.GradientMaker(net)
    loss_fn = F.mse_loss if net_name == "mlp_mse" else F.cross_entropy
    other = asdl.GradientMaker(net)
    params = [p for p in net.parameters() if p.requires_grad]

    def run(X: Any, y: Any) -> Any:
        dummy_y = gm.setup_model_call(net, X)
        gm.setup_loss_call(loss_fn, dummy_y, y)
        if vmap_info:
            gm.setup_model_vmap_info(0)
            gm.setup_loss_vmap_info(None, 0)
        if method == "delegate":
            return gm.delegate_forward_and_backward(other)
        if method == "precondition_vectors":
            gm.forward_and_backward()
            vectors = asdl.ParamVector(params, [torch.ones_like(p) for p in params])
            gm.precondition(vectors=vectors)
            return vectors.get_flatten_vector()
        return getattr(gm, method)(**keywords)

    entered = [asdl.GradientMaker.delegate_forward_and_backward if method == "delegate"
               else type(gm).precondition if method == "precondition_vectors" else getattr(type(gm), method)]
    return _modules()["Run"](run, entered, net=net), (X, y), {}


def _kernel(name: str) -> Built:
    import torch

    from asdl import kernel

    Run = _modules()["Run"]
    net, X, y = _net("mlp")
    gen = torch.Generator().manual_seed(5)
    X2 = torch.randn(2, 4, generator=gen)
    base = name.split(".")[0]
    function = getattr(kernel, base)
    if base in ("empirical_direct_ntk", "empirical_implicit_ntk", "empirical_class_wise_direct_ntk",
                "empirical_class_wise_hadamard_ntk"):
        two = name.endswith("two_batches")

        def run(X: Any, X2: Any) -> Any:
            return function(net, X, X2) if two else function(net, X)
        return Run(run, [function], net=net), (X, X2), {}
    if base == "natural_gradient_cross_entropy":
        class_wise = name.endswith("class_wise")
        with torch.enable_grad():
            ntk = (kernel.empirical_class_wise_direct_ntk(net, X) if class_wise
                   else kernel.empirical_implicit_ntk(net, X)).detach()

        def run(X: Any, y: Any, ntk: Any) -> Any:
            net.zero_grad()
            loss = function(net, X, y, ntk)
            return loss, [p.grad for p in net.parameters()]
        return Run(run, [function], net=net), (X, y, ntk), {}
    if base == "efficient_natural_gradient_cross_entropy":
        with torch.enable_grad():
            ntk = kernel.empirical_class_wise_direct_ntk(net, X).detach().permute(2, 0, 1).contiguous()

        def run(X: Any, y: Any, ntk: Any) -> Any:
            function(net, X, y, ntk)
            return [p.grad for p in net.parameters()]
        return Run(run, [function], net=net), (X, y, ntk), {}
    if base in ("empirical_natural_gradient", "empirical_natural_gradient2"):
        def run(X: Any, y: Any) -> Any:
            net.zero_grad()
            loss = function(net, X, y)
            return loss, [p.grad for p in net.parameters()]
        return Run(run, [function], net=net), (X, y), {}
    if base == "kernel_free_cross_entropy":
        def run(X: Any, y: Any) -> Any:
            function(net, X, y, max_iters=3)
            return [p.grad for p in net.parameters()]
        return Run(run, [function], net=net), (X, y), {}
    if base == "kernel_vector_product":
        def run(X: Any, v: Any) -> Any:
            return function(net, X, v.clone())
        return Run(run, [function], net=net), (X, torch.randn(N, 3, generator=gen)), {}
    if base == "kernel_eigenvalues":
        cross_entropy = name.endswith("cross_entropy")

        def run(X: Any) -> Any:
            torch.manual_seed(0)
            return function(net, X, top_n=2, max_iters=3, eigenvectors=True, cross_entropy=cross_entropy)
        return Run(run, [function], net=net), (X,), {}
    if base == "batch":  # blocks of the class-wise NTK, 2 x 2 batches of 2 (or against a second batch)
        two = name.endswith("two")

        def run(X: Any, X2: Any) -> Any:
            return function(kernel.empirical_class_wise_direct_ntk, net, X, X2 if two else None, batch_size=2)
        return Run(run, [function, kernel.empirical_class_wise_direct_ntk], net=net), (X, X2), {}
    if base == "logits_hessian_cross_entropy":
        return Run(function, [function]), (torch.randn(N, 3, generator=gen),), {}
    if base == "logits_second_order_grad_cross_entropy":
        def run(logits: Any, y: Any) -> Any:
            return function(logits.clone().requires_grad_(True), y)
        return Run(run, [function]), (torch.randn(N, 3, generator=gen), y), {}
    raise KeyError(name)


def _core(name: str) -> Built:
    import torch.nn.functional as F
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    import asdl
    from asdl import operations as ops

    Run = _modules()["Run"]
    net_name = "cnn" if name.endswith(".cnn") else "norms" if "norms" in name else "mlp"
    net, X, y = _net(net_name)

    def loss_of(X: Any, y: Any) -> Any:
        return F.cross_entropy(net(X), y)

    if name.startswith("extend."):
        op = {
            "extend.batch_grads": ops.OP_BATCH_GRADS, "extend.batch_grads.cnn": ops.OP_BATCH_GRADS,
            "extend.save_inputs_outgrads": (ops.OP_SAVE_INPUTS, ops.OP_SAVE_OUTGRADS),
            "extend.cov_kron": ops.OP_COV_KRON, "extend.cov_kron.cnn": ops.OP_COV_KRON,
            "extend.cov_diag.norms": ops.OP_COV_DIAG, "extend.cov_unit_wise.norms": ops.OP_COV_UNIT_WISE,
            "extend.cov.layer_wise": ops.OP_COV, "extend.full_cov": ops.OP_BATCH_GRADS,
            "extend.gram_direct": ops.OP_GRAM_DIRECT, "extend.gram_hadamard": ops.OP_GRAM_HADAMARD,
            "extend.mean_outgrads": (ops.OP_MEAN_INPUTS, ops.OP_MEAN_OUTPUTS, ops.OP_MEAN_OUTGRADS),
            "extend.rfim_relu": ops.OP_RFIM_RELU, "extend.ignore_modules": ops.OP_COV_KRON,
        }[name]
        op_names = op if isinstance(op, tuple) else (op,)
        ignore = ["2"] if name == "extend.ignore_modules" else None

        def run(X: Any, y: Any) -> Any:
            with asdl.extend(net, *op_names, ignore_modules=ignore) as cxt:
                if "gram" in name:
                    asdl.kernel._zero_kernel(net, N, N)
                loss = loss_of(X, y)
                loss.backward()
                out = [loss]
                for module in net.modules():
                    if not cxt.is_operation_registered(module) or module is net:
                        continue
                    if name in ("extend.batch_grads", "extend.batch_grads.cnn"):
                        out.append(cxt.batch_grads(module, flatten=True))
                    elif name == "extend.save_inputs_outgrads":
                        out += [cxt.in_data(module), cxt.out_grads(module)]
                    elif name in ("extend.cov_kron", "extend.cov_kron.cnn", "extend.ignore_modules"):
                        out.append(cxt.cov_kron(module))
                        out.append(cxt.cov_symmatrix(module, pop=True))
                    elif name == "extend.cov_diag.norms":
                        out.append(cxt.cov_diag(module))
                    elif name == "extend.cov_unit_wise.norms":
                        out.append(cxt.cov_unit_wise(module))
                    elif name == "extend.cov.layer_wise":
                        out.append(cxt.cov(module))
                    elif name == "extend.mean_outgrads":
                        out += [cxt.mean_in_data(module), cxt.mean_out_data(module), cxt.mean_out_grads(module)]
                    elif name == "extend.rfim_relu":
                        out.append(cxt.rfim_relu(module))
                if name == "extend.full_cov":
                    cxt.calc_full_cov(net)
                    out.append(cxt.full_cov(net))
                if "gram" in name:
                    out.append(net.kernel)
                return out
        return Run(run, [asdl.extend], net=net), (X, y), {}
    if name.startswith("no_centered_cov."):
        shape = name.split(".")[1]
        calc_inv = name.endswith("calc_inv")

        def run(X: Any, y: Any) -> Any:
            with asdl.no_centered_cov(net, [shape], calc_inv=calc_inv) as cxt:
                loss_of(X, y).backward()
                return [cxt.cov_symmatrix(m) for m in net.modules() if isinstance(m, nn.Linear)]
        return Run(run, [asdl.no_centered_cov], net=net), (X, y), {}
    if name in ("save_inputs_outgrads", "save_inputs", "save_outgrads"):
        function = getattr(asdl, name)

        def run(X: Any, y: Any) -> Any:
            with function(net) as cxt:
                loss_of(X, y).backward()
                out = []
                for m in net.modules():
                    if isinstance(m, nn.Linear):
                        if name != "save_outgrads":
                            out.append(cxt.in_data(m))
                        if name != "save_inputs":
                            out.append(cxt.out_grads(m))
                return out
        return Run(run, [function], net=net), (X, y), {}
    if name.startswith("batch_gradient"):
        return_outputs = name.endswith("return_outputs")

        def run(X: Any, y: Any) -> Any:
            def closure() -> Any:
                loss = loss_of(X, y)
                loss.backward()
                return loss
            return asdl.batch_gradient(net, closure, return_outputs=return_outputs)
        return Run(run, [asdl.batch_gradient], net=net), (X, y), {}
    if name == "save_batch_gradient":
        def run(X: Any, y: Any) -> Any:
            def closure() -> Any:
                loss = loss_of(X, y)
                loss.backward()
                return loss
            asdl.save_batch_gradient(net, closure)
            return [p.batch_grad for p in net.parameters()]
        return Run(run, [asdl.save_batch_gradient], net=net), (X, y), {}
    if name == "data_loader_gradient":
        def run(X: Any, y: Any) -> Any:
            loader = DataLoader(TensorDataset(X, y), batch_size=2)
            return asdl.data_loader_gradient(net, nn.CrossEntropyLoss(reduction="sum"), loader)
        return Run(run, [asdl.data_loader_gradient], net=net), (X, y), {}
    if name == "set_counter":
        cnn, Xc, _ = _net("cnn")

        def run(X: Any) -> Any:
            counters = [asdl.Forward(), asdl.BackwardWeight(), asdl.KFACStats(), asdl.ShampooStats()]
            with asdl.set_counter(cnn, counters, batch_size=N) as counts:
                out = cnn(X)
            return out, counts["Forward"]["flop"], counts["params"]
        return Run(run, [asdl.set_counter], net=cnn), (Xc,), {}
    raise KeyError(name)


def _matrix(name: str) -> Built:
    import torch
    from torch import nn

    import asdl
    from asdl import symmatrix, utils
    from gt_calls import Call

    Run = _modules()["Run"]
    gen = torch.Generator().manual_seed(7)

    def spd(n: int) -> Any:
        A = torch.randn(n, n, generator=gen)
        return A @ A.T / n + 0.5 * torch.eye(n)

    layer = nn.Linear(3, 2)  # weight 2 x 3, bias 2
    gw, gb = torch.randn(2, 3, generator=gen), torch.randn(2, generator=gen)
    if name.startswith("SymMatrix."):
        kind = name.split(".")[1]

        def make(M8: Any, A: Any, B: Any, U: Any) -> Any:
            if kind in ("full", "add"):
                return asdl.SymMatrix(data=M8)
            if kind == "kron":
                return asdl.SymMatrix(kron=asdl.Kron(A, B))
            if kind == "diag":
                return asdl.SymMatrix(diag=asdl.Diag(weight=gw.abs() + 0.1, bias=gb.abs() + 0.1))
            if kind == "unit_wise":
                return asdl.SymMatrix(unit=asdl.UnitWise(data=U))
            Ua = torch.linalg.eigh(A)[1]
            Ub = torch.linalg.eigh(B)[1]
            return asdl.SymMatrix(kfe=asdl.KFE(Ua, Ub, (torch.ones(2, 3), torch.ones(2))))

        def run(M8: Any, A: Any, B: Any, U: Any) -> Any:
            m = make(M8, A, B, U)
            if kind == "add":
                m = m + make(M8 * 2, A, B, U)
                m += make(M8, A, B, U)
                m.mul_(0.5)
                return m.data, m.eigenvalues(), m.top_eigenvalue(), m.trace(), m.to_vector()
            if kind == "kfe":
                return m.kfe.mvp(gw.clone(), gb.clone())
            m.update_inv(damping=1e-2)
            if kind == "full":  # the full matrix multiplies a ParamVector, the others a layer's weight and bias
                v = asdl.ParamVector([layer.weight, layer.bias], torch.cat([gw.flatten(), gb]))
                return m.mvp(vectors=v, use_inv=True).get_flatten_vector(), m.to_vector()
            part = {"kron": m.kron, "diag": m.diag, "unit_wise": m.unit}[kind]
            return part.mvp(vec_weight=gw.clone(), vec_bias=gb.clone(), use_inv=True), m.to_vector(), m.has_kron
        args = (spd(8), spd(3), spd(2), torch.stack([spd(4), spd(4)]))
        return Run(run, [asdl.SymMatrix.update_inv, asdl.SymMatrix.mvp], layer=layer), args, {}
    if name.startswith("Kron."):
        def run(A: Any, B: Any) -> Any:
            k = asdl.Kron(A, B)
            if name == "Kron.eigenvalues":
                k.mul_(2.0)
                k2 = k + asdl.Kron(A, B)
                return k2.eigenvalues(), k2.top_eigenvalue(), k2.trace(), k2.data
            k.update_inv(1e-2)
            return k.mvp(gw.clone(), gb.clone(), use_inv=True), k.mvp(gw.clone(), gb.clone())
        return Run(run, [asdl.Kron.update_inv, asdl.Kron.mvp]), (spd(3), spd(2)), {}
    if name == "Diag.update_inv.mvp":
        def run(w: Any, b: Any) -> Any:
            d = asdl.Diag(weight=w, bias=b)
            d.update_inv(1e-2)
            d2 = d + asdl.Diag(weight=w, bias=b)
            return d.mvp(gw.clone(), gb.clone(), use_inv=True), d2.eigenvalues(), d2.trace(), d2.top_eigenvalue()
        return Run(run, [asdl.Diag.update_inv, asdl.Diag.mvp]), (gw.abs() + 0.1, gb.abs() + 0.1), {}
    if name == "UnitWise.update_inv.mvp":
        def run(U: Any) -> Any:
            u = asdl.UnitWise(data=U)
            u.update_inv(1e-2)
            return u.mvp(gw.clone(), gb.clone(), use_inv=True), u.eigenvalues(), u.trace()
        return Run(run, [asdl.UnitWise.update_inv, asdl.UnitWise.mvp]), (torch.stack([spd(4), spd(4)]),), {}
    if name == "ParamVector.ops":
        params = [layer.weight, layer.bias]

        def run(a: Any, b: Any) -> Any:
            v = asdl.ParamVector(params, [a, b])
            w = asdl.ParamVector(params, torch.cat([a.flatten(), b]) * 2)
            s = v + w
            s.add_(w, alpha=0.5)
            s.mul_(2.0)
            s = s.add(v, alpha=-1).mul(0.5)
            u = asdl.normalization(s)
            return (s.dot(v), s.norm(), u.get_flatten_vector(), s.get_vector_by_param(layer.bias),
                    s.get_vectors_by_module(layer).numel(), asdl.orthnormal(v, [u]).get_flatten_vector())
        return Run(run, [asdl.ParamVector.__add__, asdl.ParamVector.dot, asdl.normalization], layer=layer), \
            (gw.clone(), gb.clone()), {}
    if name in ("power_method", "conjugate_gradient_method", "stochastic_lanczos_quadrature", "quadratic_form"):
        from asdl import mvp

        net = nn.Sequential(nn.Linear(3, 2))
        params = list(net.parameters())

        def run(M: Any) -> Any:
            def mvp_fn(v: Any) -> Any:
                flat = M @ v.get_flatten_vector()
                return asdl.ParamVector(params, flat)
            if name == "power_method":
                torch.manual_seed(0)
                return mvp.power_method(mvp_fn, net, top_n=2, max_iters=4, tol=1e-4)
            if name == "stochastic_lanczos_quadrature":
                torch.manual_seed(0)
                return mvp.stochastic_lanczos_quadrature(mvp_fn, net, n_v=1, num_iter=3)
            b = asdl.ParamVector(params, torch.ones(8))
            if name == "quadratic_form":
                return mvp.quadratic_form(mvp_fn, b, damping=0.1)
            return mvp.conjugate_gradient_method(mvp_fn, b, damping=0.1, max_iters=4).get_flatten_vector()
        return Run(run, [getattr(mvp, name)], net=net), (spd(8),), {}
    if name == "cholesky_inv":
        return Call(utils.cholesky_inv, damping=1e-3), (spd(4),), {}
    if name == "cholesky_solve":
        return Call(lambda X, b: utils.cholesky_solve(X, b, damping=1e-3)), \
            (spd(4), torch.randn(4, 2, generator=gen)), {}
    if name == "smw_inv":
        return Call(utils.smw_inv, damping=1e-2), (torch.randn(3, 5, generator=gen),), {}
    if name in ("im2col_2d", "im2col_2d_slow"):
        conv = nn.Conv2d(2, 3, 3, padding=1, stride=2)
        function = getattr(utils, name)
        return Run(lambda x: function(x, conv), [function], conv=conv), (torch.randn(N, 2, 5, 5, generator=gen),), {}
    if name == "skip_param_grad":
        net, X, y = _net("mlp")

        def run(X: Any, y: Any) -> Any:
            import torch.nn.functional as F

            Xg = X.clone().requires_grad_(True)
            with utils.skip_param_grad(net):
                loss = F.cross_entropy(net(Xg), y)
            return torch.autograd.grad(loss, Xg), [p.requires_grad for p in net.parameters()]
        return Run(run, [utils.skip_param_grad], net=net), (X, y), {}
    if name == "matrix_to_tril":
        return Call(symmatrix.matrix_to_tril), (spd(4),), {}
    if name == "tril_to_matrix":
        return Call(symmatrix.tril_to_matrix), (torch.randn(10, generator=gen),), {}
    raise KeyError(name)


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # ASDL's notes on modules without operations, old backward hooks
    torch.manual_seed(0)
    family, rest = name.split(".", 1)
    builders = {"fisher": _fisher, "hessian": _hessian, "maker": _maker, "functorch": _functorch,
                "kernel": _kernel, "core": _core, "matrix": _matrix}
    if family not in builders:
        raise KeyError(name)
    return builders[family](rest)
