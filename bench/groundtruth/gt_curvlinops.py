"""Ground-truth bench, curvlinops (curvlinops-for-pytorch 3.0.1): curvature matrices of tiny networks as linear
operators, with the products, inverses, traces, diagonals, norms and spectra users compute from them.

curvlinops wraps the curvature of an empirical risk (a network, a loss, the parameters, an iterable of
``(X, y)`` batches) in a ``PyTorchLinearOperator``: ``HessianLinearOperator``, ``GGNLinearOperator``,
``EFLinearOperator`` (empirical Fisher), ``FisherMCLinearOperator`` (Monte-Carlo Fisher),
``JacobianLinearOperator`` / ``TransposedJacobianLinearOperator``, the Kronecker-factored
``KFACLinearOperator`` and ``EKFACLinearOperator``, and the experimental ``ActivationHessianLinearOperator``.
Each multiplies onto a flat tensor (vector or matrix) or a list of parameter-shaped tensors (``op @ v``;
the products are ``torch.func`` transforms under ``vmap``), and composes (``+``, ``-``, scalar ``*``, ``@``
between operators, ``adjoint()``, ``to_scipy()``). On top of them sit inverses (CG through
``linear_operator``'s ``linear_cg``, SciPy's LSMR, a truncated Neumann series, KFAC's own damped inverse),
``SubmatrixLinearOperator``, the randomized estimators (``hutchinson_trace``, ``hutchpp_trace``, ``xtrace``,
``hutchinson_diag``, ``xdiag``, ``hutchinson_squared_fro``) and Papyan's Lanczos spectral densities. Users
call these in their training and analysis code: a second-order or natural-gradient step that builds the
operator for the batch it is given and solves or preconditions with it, a sharpness or spectrum probe, a
trace penalty. So each bench model is a module whose forward receives the batch (and a vector) and runs
such a step on a network it holds; the library's code is what gets traced. The tables cover:

- ``OPERATORS``: each curvature operator built inside the call on the batch, then one use: a matrix-vector
  product, a matrix-matrix product, a product on a list of parameter-shaped tensors (vectors and matrices),
  ``adjoint()``, ``gradient_and_loss()``, ``to_scipy()`` with a NumPy product. The networks: an MLP, a CNN, a
  CNN with ``padding="same"``, grouped convolution and pooling, a token-wise MLP (weight sharing; its
  classification head transposed to ``(batch, classes, tokens)``), an MLP with a ``LayerNorm`` left out of the
  curvature, and a network taking a dict (``batch_size_fn``); the losses ``MSELoss`` / ``CrossEntropyLoss`` /
  ``BCEWithLogitsLoss``, with mean and sum reductions; the options: the deterministic check on (the default)
  and off, one batch, two batches, a ``DataLoader``, a given ``num_data``, a progress bar, the last layer's
  parameters only, Hessian ``block_sizes``, MC-Fisher ``mc_samples`` and ``seed``;
  ``ActivationHessianLinearOperator`` on a layer's input and on a layer's output. KFAC and EKFAC add
  ``fisher_type`` (``mc``, ``type-2``, ``empirical``, ``forward-only``; as strings and as ``FisherType``),
  ``kfac_approx`` (``expand`` / ``reduce``, on the convolutions and the token-wise MLP),
  ``separate_weight_and_bias=False``, ``num_per_example_loss_terms``, the properties ``trace`` / ``det`` /
  ``logdet`` / ``frobenius_norm`` (EKFAC has its own), ``compute_kronecker_factors`` and
  ``compute_eigenvalue_correction`` called explicitly, and ``state_dict`` with ``from_state_dict`` or
  ``load_state_dict``;
- ``WARM``: operators built (and used once) at build time, as a training script holds them, with only the
  product or an estimator in the compiled call;
- ``INVERSES``: ``CGInverseLinearOperator`` of a damped GGN (the GGN plus a scaled ``IdentityLinearOperator``,
  and its adjoint) and of a damped KFAC with CG's hyperparameters, ``LSMRInverseLinearOperator`` of the damped
  GGN, ``NeumannInverseLinearOperator`` (of a KFAC whose factors are cached, with its NaN check; of a GGN
  without it; the adjoint of one of a scaled GGN), ``KFACInverseLinearOperator`` with a damping pair, heuristic
  damping (also of a CNN), exact damping (also with joint weight and bias), of EKFAC (exact damping, also
  joint), its ``state_dict`` / ``from_state_dict`` round trip, and built at build time with only the product
  in the call;
- ``COMPOSED``: sums, differences, scalings and chains of operators (``J.adjoint() @ J`` and a KFAC damped by an
  identity among them), the adjoint of a chain, and ``SubmatrixLinearOperator`` (product, adjoint,
  ``set_submatrix``);
- ``ESTIMATES``: each estimator on operators built in the call (Hessian, GGN, EF, KFAC, the transposed
  Jacobian, a submatrix) and on plain tensors given as inputs, with Rademacher and Gaussian vectors;
- ``SPECTRA``: ``lanczos_approximate_spectrum`` / ``lanczos_approximate_log_spectrum`` (boundaries estimated
  through SciPy's ``eigsh``, partly or wholly given), the cached Lanczos classes built in the call and built at
  build time with only the density (other settings, more repeats) in the call, ``fast_lanczos`` (with and
  without SciPy's ``eigh_tridiagonal``), ``approximate_boundaries`` (and ``_abs``), and the top eigenvalues
  through ``to_scipy()`` and ``eigsh`` as users compute a sharpness;
- ``HELPERS``: the documentation's example operators (``TensorLinearOperator``, ``OuterProductLinearOperator``,
  ``IdentityLinearOperator``) and ``torch.func`` references (``functorch_hessian`` / ``_ggn`` /
  ``_empirical_fisher`` / ``_jacobian`` / ``_gradient_and_loss``, a dict input with ``input_key``), EKFAC's
  ``compute_eigenvalue_correction_linear_weight_sharing`` (without and with weight sharing, weight and bias),
  the KFAC helpers (``loss_hessian_matrix_sqrt`` for the cross-entropy and the binary cross-entropy,
  ``extract_patches`` / ``extract_averaged_patches`` with ``padding="same"``), the batch product factories
  (``make_batch_ggn_matrix_product`` and the five others) called directly, ``make_functional_model_and_loss``,
  ``split_list``, ``allclose_report`` on tensors that differ (it prints them) and ``random_vector``.

One model fails under Dynamo though not eagerly, and is kept for what it traces until then: the LSMR inverse
(SciPy's ``lsmr`` gets a tensor where it multiplies NumPy arrays, from the compiled ``to_scipy`` product).
ARPACK's smallest-magnitude ``eigsh`` does not converge reliably on the singular GGN (it failed once, compiled),
so ``approximate_boundaries_abs`` and the log spectrum with no boundaries run on a positive definite matrix
(``TensorLinearOperator``) instead.

Left out: networks with ``BatchNorm`` in training mode (every operator fails eagerly there: the functional
forward updates the running statistics in place inside ``jvp``); EKFAC on outputs with more than two
dimensions and ``ActivationHessianLinearOperator`` on more than one batch (both refused eagerly by the
library); ``hutchinson_squared_fro`` on a wide operator (it transposes with ``.T``, which the operators do not
have: it fails eagerly, so the transposed Jacobian is used); the adjoint of a Neumann inverse of a
self-adjoint operator (it calls the operand's ``_adjoint``, which self-adjoint operators do not define: it
fails eagerly, so a scaled GGN is used); a Cholesky failure on purpose to reach KFAC's double-precision retry.
The variants were chosen so that each operator, option, loss and network kind runs once or twice, not as a
full product (about 150 models). Wrappers enable gradients whatever the harness's mode, since the
deterministic check, ``gradient_and_loss`` and the Kronecker factors call ``torch.autograd.grad``. Random
weights, inputs and targets from fixed seeds, 8 samples (4 sequences of 3 tokens), nothing downloaded.
``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

N, IN, HID, C = 8, 4, 5, 3  # samples, input features, hidden units, outputs / classes
SEQ_B, SEQ_T = 4, 3  # sequences and tokens of the token-wise MLP

NOCHECK = {"check_deterministic": False}

# Operator built in the call -> (operator, net, loss, action, keywords, data).
# Operators: H (Hessian), G (GGN), EF, F (Monte-Carlo Fisher), J / JT (Jacobian, transposed), AH (activation
# Hessian), K (KFAC), EK (EKFAC). Nets: mlp, cnn, cnn_same, seq, ln, dict. Losses: mse, mse_sum, ce, ce_sum,
# bce. Data: "one" batch, "two" batches, "loader" (a DataLoader of two batches). Keywords starting with "@"
# are options of the bench (``@last_layer``: the last layer's parameters only; ``@fisher_enum``: the
# ``fisher_type`` as a ``FisherType``).
# Actions: matvec, matmat, list, list_matrix, adjoint, gradient_and_loss, to_scipy, trace, det, logdet,
# frobenius_norm, compute_kronecker_factors, compute_eigenvalue_correction, state_dict, load_state_dict.
OPERATORS: dict[str, tuple[str, str, str, str, dict[str, Any], str]] = {
    # Hessian
    "hessian.mlp.mse.matvec": ("H", "mlp", "mse", "matvec", {}, "one"),
    "hessian.mlp.bce.list.nocheck": ("H", "mlp", "bce", "list", NOCHECK, "one"),
    "hessian.mlp.ce.block_per_param": ("H", "mlp", "ce", "matvec", {"block_sizes": [1, 1, 1, 1]}, "one"),
    "hessian.dict.mse.matvec": ("H", "dict", "mse", "matvec", {}, "one"),
    "hessian.mlp.mse.two_batches": ("H", "mlp", "mse", "matvec", {}, "two"),
    "hessian.mlp.ce.gradient_and_loss.nocheck": ("H", "mlp", "ce", "gradient_and_loss", NOCHECK, "one"),
    "hessian.mlp.ce.progressbar.nocheck": ("H", "mlp", "ce", "matvec", {**NOCHECK, "progressbar": True}, "one"),
    "hessian.mlp.ce.dataloader.nocheck": ("H", "mlp", "ce", "matvec", NOCHECK, "loader"),
    "hessian.mlp.ce.to_scipy.nocheck": ("H", "mlp", "ce", "to_scipy", NOCHECK, "one"),
    # GGN
    "ggn.mlp.mse.matvec": ("G", "mlp", "mse", "matvec", {}, "one"),
    "ggn.mlp.bce.matvec.nocheck": ("G", "mlp", "bce", "matvec", NOCHECK, "one"),
    "ggn.mlp.ce.last_layer.nocheck": ("G", "mlp", "ce", "matvec", {**NOCHECK, "@last_layer": True}, "one"),
    "ggn.seq.ce.matvec.nocheck": ("G", "seq", "ce", "matvec", NOCHECK, "one"),
    "ggn.ln.ce.matvec": ("G", "ln", "ce", "matvec", {"@linear_only": True}, "one"),
    "ggn.mlp.ce.gradient_and_loss": ("G", "mlp", "ce", "gradient_and_loss", {}, "one"),
    "ggn.mlp.ce.dataloader": ("G", "mlp", "ce", "matvec", {}, "loader"),
    "ggn.mlp.mse.adjoint.nocheck": ("G", "mlp", "mse", "adjoint", NOCHECK, "one"),
    # empirical Fisher
    "ef.mlp.ce.matvec": ("EF", "mlp", "ce", "matvec", {}, "one"),
    "ef.mlp.bce.matmat.nocheck": ("EF", "mlp", "bce", "matmat", NOCHECK, "one"),
    # Monte-Carlo Fisher
    "fisher_mc.mlp.ce.matvec": ("F", "mlp", "ce", "matvec", {}, "one"),
    "fisher_mc.mlp.bce.matvec.nocheck": ("F", "mlp", "bce", "matvec", NOCHECK, "one"),
    "fisher_mc.mlp.ce.mc_samples.nocheck": ("F", "mlp", "ce", "matvec", {**NOCHECK, "mc_samples": 3}, "one"),
    "fisher_mc.mlp.mse_sum.two_batches": ("F", "mlp", "mse_sum", "matvec", {"seed": 3}, "two"),
    # Jacobians
    "jacobian.mlp.matvec": ("J", "mlp", "mse", "matvec", {}, "one"),
    "jacobian.mlp.two_batches.nocheck": ("J", "mlp", "mse", "matvec", NOCHECK, "two"),
    "jacobian.mlp.adjoint.nocheck": ("J", "mlp", "mse", "adjoint", NOCHECK, "one"),
    "transposed_jacobian.mlp.matvec.nocheck": ("JT", "mlp", "mse", "matvec", NOCHECK, "one"),
    "transposed_jacobian.mlp.two_batches.matmat.nocheck": ("JT", "mlp", "mse", "matmat", NOCHECK, "two"),
    "transposed_jacobian.mlp.adjoint": ("JT", "mlp", "mse", "adjoint", {}, "one"),
    # activation Hessian (experimental)
    "activation_hessian.relu_input": ("AH", "mlp", "mse", "matvec", {"@activation": ("1", "input", 0)}, "one"),
    "activation_hessian.layer_output.matmat.nocheck": ("AH", "mlp", "ce", "matmat",
                                                       {**NOCHECK, "@activation": ("0", "output", 0)}, "one"),
    # KFAC
    "kfac.mlp.ce.mc": ("K", "mlp", "ce", "matvec", {}, "one"),
    "kfac.mlp.bce.type2.nocheck": ("K", "mlp", "bce", "matvec", {**NOCHECK, "@fisher_enum": "TYPE2"}, "one"),
    "kfac.mlp.ce.empirical.nocheck": ("K", "mlp", "ce", "matvec", {**NOCHECK, "fisher_type": "empirical"}, "one"),
    "kfac.mlp.mse.forward_only.nocheck": ("K", "mlp", "mse", "matvec", {**NOCHECK, "fisher_type": "forward-only"},
                                          "one"),
    "kfac.mlp.bce.mc.nocheck": ("K", "mlp", "bce", "matvec", NOCHECK, "one"),
    "kfac.mlp.ce.joint.nocheck": ("K", "mlp", "ce", "matvec", {**NOCHECK, "separate_weight_and_bias": False}, "one"),
    "kfac.cnn.ce.reduce.nocheck": ("K", "cnn", "ce", "matvec", {**NOCHECK, "kfac_approx": "reduce"}, "one"),
    "kfac.cnn_same.mse.expand.nocheck": ("K", "cnn_same", "mse", "matvec", {**NOCHECK, "fisher_type": "type-2"},
                                         "one"),
    "kfac.cnn_same.mse.reduce.nocheck": ("K", "cnn_same", "mse", "matvec", {**NOCHECK, "kfac_approx": "reduce"},
                                         "one"),
    "kfac.seq.ce.type2.nocheck": ("K", "seq", "ce", "matvec", {**NOCHECK, "fisher_type": "type-2"}, "one"),
    "kfac.seq.mse.loss_terms.nocheck": ("K", "seq", "mse", "matvec",
                                        {**NOCHECK, "num_per_example_loss_terms": SEQ_T, "num_data": SEQ_B}, "one"),
    "kfac.mlp.ce.two_batches": ("K", "mlp", "ce", "matvec", {}, "two"),
    "kfac.mlp.ce.list_matrix.nocheck": ("K", "mlp", "ce", "list_matrix", NOCHECK, "one"),
    "kfac.mlp.ce.trace.nocheck": ("K", "mlp", "ce", "trace", NOCHECK, "one"),
    "kfac.mlp.mse.det.nocheck": ("K", "mlp", "mse", "det", {**NOCHECK, "fisher_type": "type-2"}, "one"),
    "kfac.mlp.ce.logdet.nocheck": ("K", "mlp", "ce", "logdet", {**NOCHECK, "fisher_type": "type-2"}, "one"),
    "kfac.mlp.ce.frobenius_norm.nocheck": ("K", "mlp", "ce", "frobenius_norm", NOCHECK, "one"),
    "kfac.mlp.mse.joint.det_frobenius.nocheck": ("K", "mlp", "mse", "det_frobenius",
                                                 {**NOCHECK, "separate_weight_and_bias": False,
                                                  "fisher_type": "type-2"}, "one"),
    "kfac.mlp.ce.state_dict.nocheck": ("K", "mlp", "ce", "state_dict", NOCHECK, "one"),
    "kfac.mlp.mse.load_state_dict.nocheck": ("K", "mlp", "mse", "load_state_dict", NOCHECK, "one"),
    # EKFAC
    "ekfac.mlp.ce.mc": ("EK", "mlp", "ce", "matvec", {}, "one"),
    "ekfac.mlp.bce.type2.nocheck": ("EK", "mlp", "bce", "matvec", {**NOCHECK, "fisher_type": "type-2"}, "one"),
    "ekfac.mlp.ce.joint.nocheck": ("EK", "mlp", "ce", "matvec", {**NOCHECK, "separate_weight_and_bias": False},
                                   "one"),
    "ekfac.cnn.ce.mc.nocheck": ("EK", "cnn", "ce", "matvec", NOCHECK, "one"),
    "ekfac.mlp.ce.trace.nocheck": ("EK", "mlp", "ce", "trace", NOCHECK, "one"),
    "ekfac.mlp.mse.det_logdet.nocheck": ("EK", "mlp", "mse", "det_logdet", {**NOCHECK, "fisher_type": "type-2"},
                                         "one"),
    "ekfac.mlp.ce.logdet.nocheck": ("EK", "mlp", "ce", "logdet", {**NOCHECK, "fisher_type": "type-2"}, "one"),
    "ekfac.mlp.ce.frobenius_norm.nocheck": ("EK", "mlp", "ce", "frobenius_norm", NOCHECK, "one"),
    "ekfac.mlp.ce.state_dict.nocheck": ("EK", "mlp", "ce", "state_dict", NOCHECK, "one"),
    "ekfac.mlp.mse.load_state_dict.nocheck": ("EK", "mlp", "mse", "load_state_dict",
                                              {**NOCHECK, "fisher_type": "type-2"},
                                              "one"),
    "ekfac.mlp.ce.compute_eigenvalue_correction.nocheck": ("EK", "mlp", "ce", "compute_eigenvalue_correction",
                                                           NOCHECK, "one"),
}

# Operators built at build time (and used once), then in the call: (operator, net, loss, keywords, action).
# Actions: matvec, matmat, and the estimators hutchinson_trace, hutchinson_diag.
WARM: dict[str, tuple[str, str, str, dict[str, Any], str]] = {
    "warm.hessian.matvec": ("H", "mlp", "ce", {}, "matvec"),
    "warm.ef.matvec": ("EF", "mlp", "ce", {}, "matvec"),
    "warm.fisher_mc.matvec": ("F", "mlp", "ce", {}, "matvec"),
    "warm.jacobian.matvec": ("J", "mlp", "mse", {}, "matvec"),
    "warm.transposed_jacobian.matvec": ("JT", "mlp", "mse", {}, "matvec"),
    "warm.kfac.matvec": ("K", "mlp", "ce", {}, "matvec"),
    "warm.kfac.joint.matmat": ("K", "cnn", "ce", {"separate_weight_and_bias": False}, "matmat"),
    "warm.ekfac.matvec": ("EK", "mlp", "ce", {}, "matvec"),
    "warm.kfac.hutchinson_trace": ("K", "mlp", "mse", {}, "hutchinson_trace"),
    "warm.ggn.hutchinson_diag": ("G", "mlp", "ce", {}, "hutchinson_diag"),
    "warm.activation_hessian.matvec": ("AH", "mlp", "mse", {"@activation": ("2", "output", 0)}, "matvec"),
}

# The inverses, built in the call (``warm``: at build time) -> keywords of the recipe in ``_inverse``.
INVERSES: dict[str, dict[str, Any]] = {
    "inverse.cg.damped_ggn": {"kind": "cg"},
    "inverse.cg.kfac.hyperparameters": {"kind": "cg_kfac", "cg": {"max_iter": 5, "tolerance": 1e-3,
                                                                  "max_tridiag_iter": 4}},
    "inverse.lsmr.damped_ggn": {"kind": "lsmr", "lsmr": {"maxiter": 20}},
    "inverse.neumann.kfac.warm_factors": {"kind": "neumann_kfac", "neumann": {"num_terms": 4, "scale": 0.5}},
    "inverse.neumann.no_nan_check": {"kind": "neumann", "neumann": {"num_terms": 4, "scale": 0.5,
                                                                    "check_nan": False}},
    "inverse.neumann.scaled.adjoint": {"kind": "neumann", "neumann": {"num_terms": 3}, "scaled": True,
                                       "adjoint": True},
    "inverse.cg.adjoint": {"kind": "cg", "adjoint": True},
    "inverse.kfac.damping_pair": {"kind": "kfac", "inv": {"damping": (1e-2, 1e-3)}},
    "inverse.kfac.heuristic": {"kind": "kfac", "inv": {"damping": 1e-2, "use_heuristic_damping": True}},
    "inverse.kfac.exact": {"kind": "kfac", "inv": {"damping": 1e-2, "use_exact_damping": True}},
    "inverse.kfac.joint.exact": {"kind": "kfac", "kfac": {"separate_weight_and_bias": False},
                                 "inv": {"damping": 1e-2, "use_exact_damping": True}},
    "inverse.kfac.cnn.heuristic": {"kind": "kfac", "net": "cnn", "inv": {"damping": 1e-2,
                                                                         "use_heuristic_damping": True}},
    "inverse.kfac.state_dict": {"kind": "kfac", "inv": {"damping": 1e-2}, "state_dict": True},
    "inverse.ekfac.exact": {"kind": "ekfac", "inv": {"damping": 1e-2, "use_exact_damping": True}},
    "inverse.ekfac.joint.exact": {"kind": "ekfac", "kfac": {"separate_weight_and_bias": False},
                                  "inv": {"damping": 1e-2, "use_exact_damping": True}},
    "inverse.kfac.warm": {"kind": "kfac", "inv": {"damping": 1e-2}, "warm": True},
    "inverse.kfac.exact.warm": {"kind": "kfac", "inv": {"damping": 1e-2, "use_exact_damping": True}, "warm": True},
}

COMPOSED: tuple[str, ...] = (
    "compose.difference", "compose.chain", "compose.jacobian_gram", "compose.damped_kfac", "compose.chain.adjoint",
    "submatrix.hessian", "submatrix.adjoint", "submatrix.set_submatrix",
)

# Estimator -> (function, target, keywords). Targets: an operator built in the call ("hessian", "ggn", "ef",
# "kfac", "transposed_jacobian", "submatrix"), or a tensor input ("square", "wide", "tall").
ESTIMATES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "trace.hutchinson.hessian": ("hutchinson_trace", "hessian", {"num_matvecs": 4}),
    "trace.hutchpp.hessian": ("hutchpp_trace", "hessian", {"num_matvecs": 6}),
    "trace.hutchpp.normal.ef": ("hutchpp_trace", "ef", {"num_matvecs": 6, "distribution": "normal"}),
    "trace.xtrace.normal.kfac": ("xtrace", "kfac", {"num_matvecs": 4, "distribution": "normal"}),
    "diag.hutchinson.normal.ef": ("hutchinson_diag", "ef", {"num_matvecs": 4, "distribution": "normal"}),
    "diag.xdiag.submatrix": ("xdiag", "submatrix", {"num_matvecs": 4}),
    "norm.squared_fro.ggn": ("hutchinson_squared_fro", "ggn", {"num_matvecs": 4}),
    "norm.squared_fro.transposed_jacobian": ("hutchinson_squared_fro", "transposed_jacobian", {"num_matvecs": 4}),
    "trace.hutchinson.tensor": ("hutchinson_trace", "square", {"num_matvecs": 5}),
    "trace.hutchpp.tensor": ("hutchpp_trace", "square", {"num_matvecs": 6, "distribution": "normal"}),
    "trace.xtrace.tensor": ("xtrace", "square", {"num_matvecs": 4}),
    "diag.hutchinson.tensor": ("hutchinson_diag", "square", {"num_matvecs": 5, "distribution": "normal"}),
    "diag.xdiag.tensor": ("xdiag", "square", {"num_matvecs": 6}),
    "norm.squared_fro.tensor.wide": ("hutchinson_squared_fro", "wide", {"num_matvecs": 4}),
}

SPECTRA: tuple[str, ...] = (
    "spectrum.lanczos.hessian", "spectrum.lanczos.repeats.tensor",
    "spectrum.lanczos_log.tensor", "spectrum.lanczos_log.partial.ggn",
    "spectrum.cached.hessian", "spectrum.cached_log.ggn", "spectrum.cached.warm.hessian",
    "spectrum.cached_log.warm.tensor",
    "spectrum.fast_lanczos.ggn", "spectrum.fast_lanczos.eigh_tridiagonal.tensor",
    "spectrum.approximate_boundaries.hessian", "spectrum.approximate_boundaries.partial.ggn",
    "spectrum.approximate_boundaries_abs.tensor", "spectrum.eigsh.hessian",
)

HELPERS: tuple[str, ...] = (
    "examples.tensor_operator.adjoint", "examples.tensor_operator.list", "examples.outer_product",
    "examples.identity.sum", "examples.functorch_hessian", "examples.functorch_ggn",
    "examples.functorch_empirical_fisher", "examples.functorch_jacobian", "examples.functorch_gradient_and_loss",
    "examples.functorch_hessian.dict",
    "ekfac.eigenvalue_correction.no_sharing", "ekfac.eigenvalue_correction.weight_sharing",
    "kfac_utils.loss_hessian_matrix_sqrt.ce", "kfac_utils.loss_hessian_matrix_sqrt.bce",
    "kfac_utils.extract_patches.same", "kfac_utils.extract_averaged_patches.same",
    "products.make_batch_hessian_matrix_product", "products.make_batch_ggn_matrix_product",
    "products.make_batch_ef_matrix_product", "products.make_batch_fmc_matrix_product",
    "products.make_batch_jacobian_matrix_product", "products.make_batch_transposed_jacobian_matrix_product",
    "utils.make_functional_model_and_loss", "utils.split_list",
    "utils.allclose_report.mismatch", "sampling.random_vector.rademacher",
)


def names() -> list[str]:
    return (list(OPERATORS) + list(WARM) + list(INVERSES) + list(COMPOSED) + list(ESTIMATES) + list(SPECTRA)
            + list(HELPERS))


# ----------------------------------------------------------------------------------------------------------
# networks, losses and data (torch is imported in a worker only)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _modules() -> dict[str, Any]:
    import contextlib

    import torch
    from torch import nn

    class Transpose(nn.Module):
        """(batch, tokens, classes) -> (batch, classes, tokens): the layout ``CrossEntropyLoss`` expects."""

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x.transpose(1, 2)

    class DictNet(nn.Module):
        """A network that takes its input as a dict (as curvlinops' ``batch_size_fn`` is for)."""

        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(IN, HID), nn.Tanh(), nn.Linear(HID, C))

        def forward(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
            return self.body(batch["x"])

    class Step(nn.Module):
        """Bench glue around library code: ``run`` is the user's code, given the forward's inputs; ``entered``
        the library functions it calls; ``held`` the modules it uses (registered, so the harness's mode reaches
        them). Gradients are enabled whatever the mode unless ``grad`` is false (the deterministic check,
        ``gradient_and_loss`` and KFAC call ``torch.autograd.grad``)."""

        def __init__(self, run: Any, entered: list[Any], grad: bool = True, **held: nn.Module) -> None:
            super().__init__()
            self.held = nn.ModuleDict(held)
            self.run = run
            self.entered = entered
            self.grad = grad

        def forward(self, *inputs: Any) -> Any:
            with torch.enable_grad() if self.grad else contextlib.nullcontext():
                return self.run(*inputs)

        def entry_points(self) -> list[Any]:
            return self.entered

    return {"Transpose": Transpose, "DictNet": DictNet, "Step": Step}


def _net(name: str, loss: str = "mse") -> Any:
    """A tiny network with random weights from a fixed seed."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    mods = _modules()
    if name == "mlp":
        return nn.Sequential(nn.Linear(IN, HID), nn.Tanh(), nn.Linear(HID, C))
    if name == "relu":
        return nn.Sequential(nn.Linear(IN, HID), nn.ReLU(), nn.Linear(HID, C))
    if name == "ln":  # a LayerNorm between the layers, its parameters left out of the curvature
        return nn.Sequential(nn.Linear(IN, HID), nn.LayerNorm(HID), nn.Tanh(), nn.Linear(HID, C))
    if name == "cnn":  # 1 x 6 x 6 -> 2 x 6 x 6 -> 2 x 2 x 2 -> 3
        return nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.Conv2d(2, 2, 3, stride=2), nn.Flatten(),
                             nn.Linear(8, C))
    if name == "cnn_same":  # 2 x 4 x 4 -> 4 x 4 x 4 (same padding, two groups) -> 4 x 2 x 2 -> 3
        return nn.Sequential(nn.Conv2d(2, 4, 3, padding="same", groups=2), nn.Sigmoid(), nn.AvgPool2d(2),
                             nn.Flatten(), nn.Linear(16, C))
    if name == "seq":  # token-wise: (batch, tokens, features) -> (batch, tokens, outputs)
        layers = [nn.Linear(IN, HID), nn.Tanh(), nn.Linear(HID, C)]
        if loss.startswith("ce"):
            layers.append(mods["Transpose"]())
        return nn.Sequential(*layers)
    if name == "dict":
        return mods["DictNet"]()
    raise KeyError(name)


def _loss(name: str) -> Any:
    from torch import nn

    return {"mse": nn.MSELoss(), "mse_sum": nn.MSELoss(reduction="sum"), "ce": nn.CrossEntropyLoss(),
            "ce_sum": nn.CrossEntropyLoss(reduction="sum"), "bce": nn.BCEWithLogitsLoss()}[name]


def _batch(net: str, loss: str) -> tuple[Any, Any]:
    """Inputs and targets for a network and loss, from a fixed seed."""
    import torch

    gen = _gen(1)
    if net == "cnn":
        X = torch.randn(N, 1, 6, 6, generator=gen)
    elif net == "cnn_same":
        X = torch.randn(N, 2, 4, 4, generator=gen)
    elif net == "seq":
        X = torch.randn(SEQ_B, SEQ_T, IN, generator=gen)
    else:
        X = torch.randn(N, IN, generator=gen)
    lead = (SEQ_B, SEQ_T) if net == "seq" else (N,)
    if loss.startswith("ce"):
        y = torch.arange(lead[0] * (lead[1] if len(lead) > 1 else 1)).reshape(lead) % C
    elif loss == "bce":
        y = (torch.rand(*lead, C, generator=gen) < 0.5).float()
    else:
        y = torch.randn(*lead, C, generator=gen)
    return X, y


def _split(X: Any, y: Any, how: str) -> Any:
    """The data argument of an operator, as users pass it: one batch, a list of two, or a DataLoader."""
    if how == "one":
        return [(X, y)]
    half = X.shape[0] // 2
    if how == "two":
        return list(zip(X.split(half), y.split(half)))
    from torch.utils.data import DataLoader, TensorDataset

    return DataLoader(TensorDataset(X, y), batch_size=half)


def _classes() -> dict[str, Any]:
    import curvlinops
    from curvlinops.experimental import ActivationHessianLinearOperator

    return {"H": curvlinops.HessianLinearOperator, "G": curvlinops.GGNLinearOperator,
            "EF": curvlinops.EFLinearOperator, "F": curvlinops.FisherMCLinearOperator,
            "J": curvlinops.JacobianLinearOperator, "JT": curvlinops.TransposedJacobianLinearOperator,
            "AH": ActivationHessianLinearOperator, "K": curvlinops.KFACLinearOperator,
            "EK": curvlinops.EKFACLinearOperator}


def _params(net: Any, options: dict[str, Any]) -> list[Any]:
    """The parameters of the curvature: all, the last layer's, or the ``Linear`` layers' only."""
    from torch import nn

    if options.get("@last_layer"):
        return list(net[-1].parameters())
    if options.get("@linear_only"):
        return [p for m in net.modules() if isinstance(m, nn.Linear) for p in m.parameters()]
    return [p for p in net.parameters() if p.requires_grad]


def _maker(op: str, net_name: str, net: Any, loss_fn: Any, options: dict[str, Any]) -> Any:
    """A function ``(params, data) -> operator`` with the operator's keywords fixed."""
    from curvlinops import FisherType

    cls = _classes()[op]
    keywords = {k: v for k, v in options.items() if not k.startswith("@")}
    if "@fisher_enum" in options:
        keywords["fisher_type"] = getattr(FisherType, options["@fisher_enum"])
    if net_name == "dict":
        keywords["batch_size_fn"] = lambda X: X["x"].shape[0]

    def make(params: list[Any], data: Any) -> Any:
        if op in ("J", "JT"):
            return cls(net, params, data, **keywords)
        if op == "AH":
            return cls(net, loss_fn, options["@activation"], data, **keywords)
        return cls(net, loss_fn, params, data, **keywords)

    return make


def _wrap_input(net_name: str, X: Any) -> Any:
    return {"x": X} if net_name == "dict" else X


def _shapes(op: str, net: Any, params: list[Any], X: Any, net_name: str) -> tuple[int, int]:
    """(columns, rows) of an operator: the sizes of its input and output vectors."""
    import torch

    P = sum(p.numel() for p in params)
    with torch.no_grad():
        out = net(_wrap_input(net_name, X))
    NC = out.numel()
    if op == "J":
        return P, NC
    if op == "JT":
        return NC, P
    if op == "AH":
        return -1, -1  # set by the caller from the operator
    return P, P


def _act(action: str, op: Any, v: Any, w: Any, params: list[Any]) -> Any:
    """One use of an operator, as user code writes it (``v``: an input vector, ``w``: one for the adjoint)."""
    import torch

    if action == "matvec":
        return op @ v
    if action == "matmat":
        return op @ torch.stack([v, v.flip(0)], dim=1)
    if action in ("list", "list_matrix"):
        chunks = v.split([p.numel() for p in params])
        vs = [c.reshape(p.shape) for c, p in zip(chunks, params)]
        if action == "list_matrix":
            vs = [torch.stack([t, -t], dim=-1) for t in vs]
        return op @ vs
    if action == "adjoint":
        return op.adjoint() @ w
    if action == "gradient_and_loss":
        grads, loss = op.gradient_and_loss()
        return loss, [g.norm() for g in grads]
    if action == "to_scipy":
        A = op.to_scipy()
        return torch.as_tensor(A @ v.detach().cpu().numpy())
    if action in ("trace", "det", "logdet", "frobenius_norm"):
        return getattr(op, action)
    if action == "det_frobenius":
        return op.det, op.frobenius_norm
    if action == "det_logdet":
        return op.det, op.logdet
    if action == "compute_kronecker_factors":
        op.compute_kronecker_factors()
        return op @ v
    if action == "compute_eigenvalue_correction":
        op.compute_kronecker_factors()
        op.compute_eigenvalue_correction()
        return op @ v
    raise KeyError(action)


def _entries_for(op_cls: Any, action: str) -> list[Any]:
    from curvlinops._torch_base import PyTorchLinearOperator

    entered: list[Any] = [op_cls.__init__]
    if action in ("matvec", "matmat", "list", "list_matrix", "compute_kronecker_factors",
                  "compute_eigenvalue_correction", "state_dict", "load_state_dict"):
        entered.append(PyTorchLinearOperator.__matmul__)
    if action == "adjoint":
        entered += [op_cls.adjoint, PyTorchLinearOperator.__matmul__]
    if action == "gradient_and_loss":
        entered.append(op_cls.gradient_and_loss)
    if action == "to_scipy":
        entered.append(op_cls.to_scipy)
    if action in ("trace", "det", "logdet", "frobenius_norm"):
        entered.append(getattr(op_cls, action).fget)
    if action == "det_frobenius":
        entered += [op_cls.det.fget, op_cls.frobenius_norm.fget]
    if action == "det_logdet":
        entered += [op_cls.det.fget, op_cls.logdet.fget]
    if action == "compute_kronecker_factors":
        entered.append(op_cls.compute_kronecker_factors)
    if action == "compute_eigenvalue_correction":
        entered += [op_cls.compute_kronecker_factors, op_cls.compute_eigenvalue_correction]
    if action == "state_dict":
        entered += [op_cls.state_dict, op_cls.from_state_dict]
    if action == "load_state_dict":
        entered += [op_cls.state_dict, op_cls.load_state_dict]
    return entered


def _operator(name: str) -> Built:
    """An operator built in the call on the batch, then one use of it."""
    import torch

    op, net_name, loss_name, action, options, how = OPERATORS[name]
    net = _net(net_name, loss_name)
    loss_fn = _loss(loss_name)
    X, y = _batch(net_name, loss_name)
    make = _maker(op, net_name, net, loss_fn, options)
    params = _params(net, options)
    cols, rows = _shapes(op, net, params, X, net_name)
    if op == "AH":  # the activation's size, from an operator built here
        cols = rows = make(params, [(X, y)]).shape[1]
    v = torch.randn(cols, generator=_gen(2))
    w = torch.randn(rows, generator=_gen(3))
    cls = _classes()[op]

    def run(X: torch.Tensor, y: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> Any:
        params = _params(net, options)
        data = _split(_wrap_input(net_name, X), y, how) if net_name != "dict" else [({"x": X}, y)]
        A = make(params, data)
        if action == "state_dict":  # save the factors, restore them into a fresh operator, multiply
            A @ v
            B = cls.from_state_dict(A.state_dict(), net, params, data, check_deterministic=False)
            return B @ v
        if action == "load_state_dict":
            A @ v
            state = A.state_dict()
            B = make(params, data)
            B.load_state_dict(state)
            return B @ v
        return _act(action, A, v, w, params)

    Step = _modules()["Step"]
    return Step(run, _entries_for(cls, action), net=net, loss=loss_fn), (X, y, v, w), {}


def _warm(name: str) -> Built:
    """An operator built (and used once) at build time; the call multiplies, estimates or reads a property."""
    import curvlinops
    import torch
    from curvlinops._torch_base import PyTorchLinearOperator

    op, net_name, loss_name, options, action = WARM[name]
    net = _net(net_name, loss_name)
    loss_fn = _loss(loss_name)
    X, y = _batch(net_name, loss_name)
    params = _params(net, options)
    A = _maker(op, net_name, net, loss_fn, options)(params, [(X, y)])
    v = torch.randn(A.shape[1], generator=_gen(2))
    A @ v  # used once: the product function and the Kronecker factors are cached
    Step = _modules()["Step"]
    if action == "matvec":
        return Step(lambda v: A @ v, [PyTorchLinearOperator.__matmul__], net=net), (v,), {}
    if action == "matmat":
        return Step(lambda v: A @ torch.stack([v, 2 * v], 1), [PyTorchLinearOperator.__matmul__], net=net), (v,), {}
    function = getattr(curvlinops, action)
    return Step(lambda: function(A, num_matvecs=4), [function], net=net), (), {}


def _inverse(name: str) -> Built:
    import curvlinops
    import torch
    from curvlinops._torch_base import PyTorchLinearOperator
    from curvlinops.examples import IdentityLinearOperator

    spec = INVERSES[name]
    kind = spec["kind"]
    net_name = spec.get("net", "mlp")
    net = _net(net_name, "ce")
    loss_fn = _loss("ce")
    X, y = _batch(net_name, "ce")
    P = sum(p.numel() for p in net.parameters())
    v = torch.randn(P, generator=_gen(2))
    kfac_options = {"check_deterministic": False, **spec.get("kfac", {})}
    if kind == "neumann_kfac":  # KFAC's factors computed once; the Neumann inverse formed in the call
        K = curvlinops.KFACLinearOperator(net, loss_fn, list(net.parameters()), [(X, y)], **kfac_options)
        K @ v

        def neumann(v: torch.Tensor) -> Any:
            return curvlinops.NeumannInverseLinearOperator(K, **spec["neumann"]) @ v

        return _modules()["Step"](neumann, [curvlinops.NeumannInverseLinearOperator.__init__,
                                            PyTorchLinearOperator.__matmul__], net=net), (v,), {}
    inv_cls = {"cg": curvlinops.CGInverseLinearOperator, "cg_kfac": curvlinops.CGInverseLinearOperator,
               "lsmr": curvlinops.LSMRInverseLinearOperator, "neumann": curvlinops.NeumannInverseLinearOperator,
               "kfac": curvlinops.KFACInverseLinearOperator, "ekfac": curvlinops.KFACInverseLinearOperator}[kind]

    def inverse(X: torch.Tensor, y: torch.Tensor) -> Any:
        params = list(net.parameters())
        data = [(X, y)]
        if kind in ("cg", "lsmr", "neumann"):
            G = curvlinops.GGNLinearOperator(net, loss_fn, params, data, check_deterministic=False)
            if kind == "neumann":  # (the adjoint of the Neumann inverse needs an operator with ``_adjoint``)
                return curvlinops.NeumannInverseLinearOperator(0.5 * G if spec.get("scaled") else G,
                                                               **spec["neumann"])
            damped = G + 0.1 * IdentityLinearOperator([p.shape for p in params], G.device, G.dtype)
            if kind == "cg":
                return curvlinops.CGInverseLinearOperator(damped, **spec.get("cg", {}))
            return curvlinops.LSMRInverseLinearOperator(damped, **spec["lsmr"])
        if kind == "cg_kfac":
            K = curvlinops.KFACLinearOperator(net, loss_fn, params, data, **kfac_options)
            return curvlinops.CGInverseLinearOperator(K + 0.1 * IdentityLinearOperator(
                [p.shape for p in params], K.device, K.dtype), **spec["cg"])
        cls = curvlinops.EKFACLinearOperator if kind == "ekfac" else curvlinops.KFACLinearOperator
        K = cls(net, loss_fn, params, data, **kfac_options)
        Kinv = curvlinops.KFACInverseLinearOperator(K, **spec["inv"])
        if spec.get("state_dict"):
            Kinv @ v
            return curvlinops.KFACInverseLinearOperator.from_state_dict(Kinv.state_dict(), K)
        return Kinv

    Step = _modules()["Step"]
    if spec.get("warm"):
        Ainv = inverse(X, y)
        Ainv @ v
        return Step(lambda v: Ainv @ v, [PyTorchLinearOperator.__matmul__], net=net), (v,), {}

    def run(X: torch.Tensor, y: torch.Tensor, v: torch.Tensor) -> Any:
        Ainv = inverse(X, y)
        if spec.get("adjoint"):
            Ainv = Ainv.adjoint()
        return Ainv @ v

    entered = [inv_cls.__init__, PyTorchLinearOperator.__matmul__]
    if spec.get("adjoint"):
        entered.append(inv_cls.adjoint)
    if spec.get("state_dict"):
        entered += [inv_cls.state_dict, inv_cls.from_state_dict]
    return Step(run, entered, net=net, loss=loss_fn), (X, y, v), {}


def _curvature(kind: str, net: Any, loss_fn: Any, X: Any, y: Any) -> Any:
    """An operator of ``kind`` built on the batch, without the deterministic check, as in a training step."""
    import curvlinops

    params = list(net.parameters())
    data = [(X, y)]
    if kind == "hessian":
        return curvlinops.HessianLinearOperator(net, loss_fn, params, data, check_deterministic=False)
    if kind == "ggn":
        return curvlinops.GGNLinearOperator(net, loss_fn, params, data, check_deterministic=False)
    if kind == "ef":
        return curvlinops.EFLinearOperator(net, loss_fn, params, data, check_deterministic=False)
    if kind == "kfac":
        return curvlinops.KFACLinearOperator(net, loss_fn, params, data, check_deterministic=False)
    if kind == "jacobian":
        return curvlinops.JacobianLinearOperator(net, params, data, check_deterministic=False)
    if kind == "transposed_jacobian":
        return curvlinops.TransposedJacobianLinearOperator(net, params, data, check_deterministic=False)
    if kind == "submatrix":
        H = curvlinops.HessianLinearOperator(net, loss_fn, params, data, check_deterministic=False)
        return curvlinops.SubmatrixLinearOperator(H, list(range(0, 20)), list(range(0, 20)))
    raise KeyError(kind)


def _composed(name: str) -> Built:
    import curvlinops
    import torch
    from curvlinops._torch_base import PyTorchLinearOperator
    from curvlinops.examples import IdentityLinearOperator

    net = _net("mlp")
    loss_fn = _loss("mse")
    X, y = _batch("mlp", "mse")
    P = sum(p.numel() for p in net.parameters())
    v = torch.randn(P, generator=_gen(2))
    Sub = curvlinops.SubmatrixLinearOperator
    rows, cols = [0, 3, 5, 7, 11, 20, 42], [1, 2, 8, 13, 21, 30]

    def run(X: torch.Tensor, y: torch.Tensor, v: torch.Tensor) -> Any:
        def op(kind: str) -> Any:
            return _curvature(kind, net, loss_fn, X, y)

        if name == "compose.difference":
            return (op("hessian") - op("ggn")) @ v
        if name == "compose.chain":
            return (op("hessian") @ op("ggn")) @ v
        if name == "compose.jacobian_gram":  # J^T J: the GGN of the MSE up to a factor
            J = op("jacobian")
            return (J.adjoint() @ J) @ v
        if name == "compose.damped_kfac":
            K = op("kfac")
            return (K + 1e-2 * IdentityLinearOperator([p.shape for p in net.parameters()], K.device, K.dtype)) @ v
        if name == "compose.chain.adjoint":
            return (op("ggn") @ (2.0 * op("hessian"))).adjoint() @ v
        H = op("hessian")
        if name == "submatrix.hessian":
            return Sub(H, rows, cols) @ v[: len(cols)]
        if name == "submatrix.adjoint":
            return Sub(H, rows, cols).adjoint() @ v[: len(rows)]
        if name == "submatrix.set_submatrix":
            S = Sub(H, rows, cols)
            S.set_submatrix(cols, rows)
            return S @ v[: len(rows)]
        if name == "submatrix.kfac":
            return Sub(op("kfac"), rows, rows) @ torch.stack([v[: len(rows)], v[-len(rows):]], 1)
        raise KeyError(name)

    entered: list[Any] = [PyTorchLinearOperator.__matmul__]
    if name.startswith("compose."):
        entered += [PyTorchLinearOperator.__add__, PyTorchLinearOperator.__sub__, PyTorchLinearOperator.__rmul__,
                    PyTorchLinearOperator.adjoint]
    else:
        entered += [Sub.__init__, Sub.set_submatrix, Sub.adjoint]
    Step = _modules()["Step"]
    return Step(run, entered, net=net, loss=loss_fn), (X, y, v), {}


def _estimate(name: str) -> Built:
    import curvlinops
    import torch

    function_name, target, keywords = ESTIMATES[name]
    function = getattr(curvlinops, function_name)
    Step = _modules()["Step"]
    gen = _gen(4)
    if target in ("square", "wide", "tall"):
        shape = {"square": (12, 12), "wide": (6, 10), "tall": (10, 6)}[target]
        A = torch.randn(*shape, generator=gen)
        if target == "square":
            A = A @ A.T / 12 + torch.eye(12)
        return Step(lambda A: function(A, **keywords), [function], grad=False), (A,), {}
    net = _net("mlp")
    loss_fn = _loss("ce")
    X, y = _batch("mlp", "ce")

    def run(X: torch.Tensor, y: torch.Tensor) -> Any:
        return function(_curvature(target, net, loss_fn, X, y), **keywords)

    return Step(run, [function], net=net, loss=loss_fn), (X, y), {}


def _spectrum(name: str) -> Built:
    import curvlinops
    import torch
    from curvlinops.examples import TensorLinearOperator
    from curvlinops.papyan2020traces import spectrum as spec
    from scipy.sparse.linalg import eigsh

    Step = _modules()["Step"]
    on_tensor = name.endswith(".tensor")
    if on_tensor:
        A = torch.randn(12, 12, generator=_gen(5))
        A = A @ A.T / 12

        def operator(A: torch.Tensor) -> Any:
            return TensorLinearOperator(A)

        inputs: tuple[Any, ...] = (A,)
        held: dict[str, Any] = {}
        grad = False
    else:
        kind = name.rsplit(".", 1)[1]
        net = _net("mlp")
        loss_fn = _loss("ce")
        inputs = _batch("mlp", "ce")
        held = {"net": net, "loss": loss_fn}
        grad = True

        def operator(X: torch.Tensor, y: torch.Tensor) -> Any:
            return _curvature(kind, net, loss_fn, X, y)

    boundaries = (0.0, 2.0)
    if ".warm." in name:  # the cached Lanczos iterations built once; densities with other settings in the call
        log = name.startswith("spectrum.cached_log")
        cls = curvlinops.LanczosApproximateLogSpectrumCached if log else curvlinops.LanczosApproximateSpectrumCached
        torch.manual_seed(0)
        cached = cls(operator(*inputs), ncv=6, boundaries=None if log else boundaries)
        method = getattr(cls, "approximate_log_spectrum" if log else "approximate_spectrum")

        def density(kappa: torch.Tensor) -> Any:
            grid, values = method(cached, num_repeats=2, num_points=16, kappa=float(kappa), margin=0.1)
            return grid, values * kappa

        return Step(density, [method, cls._get_lanczos_iters], grad=grad, **held), (torch.tensor(2.5),), {}
    calls: dict[str, tuple[Any, list[Any]]] = {
        "spectrum.lanczos.hessian": (lambda A: curvlinops.lanczos_approximate_spectrum(A, ncv=6, num_points=16),
                                     [curvlinops.lanczos_approximate_spectrum]),
        "spectrum.lanczos.repeats.tensor": (
            lambda A: curvlinops.lanczos_approximate_spectrum(A, ncv=5, num_points=16, num_repeats=2, kappa=2.0,
                                                              boundaries=(None, 5.0)),
            [curvlinops.lanczos_approximate_spectrum]),
        "spectrum.lanczos_log.tensor": (
            lambda A: curvlinops.lanczos_approximate_log_spectrum(A, ncv=6, num_points=16),
            [curvlinops.lanczos_approximate_log_spectrum]),
        "spectrum.lanczos_log.partial.ggn": (  # the smallest |eigenvalue| given (the GGN is singular)
            lambda A: curvlinops.lanczos_approximate_log_spectrum(A, ncv=6, num_points=16, boundaries=(1e-3, None)),
            [curvlinops.lanczos_approximate_log_spectrum]),
        "spectrum.cached.hessian": (
            lambda A: curvlinops.LanczosApproximateSpectrumCached(A, ncv=6, boundaries=boundaries)
            .approximate_spectrum(num_repeats=2, num_points=16),
            [curvlinops.LanczosApproximateSpectrumCached.__init__,
             curvlinops.LanczosApproximateSpectrumCached.approximate_spectrum]),
        "spectrum.cached_log.ggn": (
            lambda A: curvlinops.LanczosApproximateLogSpectrumCached(A, ncv=6, boundaries=boundaries)
            .approximate_log_spectrum(num_points=16, epsilon=1e-4),
            [curvlinops.LanczosApproximateLogSpectrumCached.__init__,
             curvlinops.LanczosApproximateLogSpectrumCached.approximate_log_spectrum]),
        "spectrum.fast_lanczos.ggn": (lambda A: spec.fast_lanczos(A, 6), [spec.fast_lanczos]),
        "spectrum.fast_lanczos.eigh_tridiagonal.tensor": (
            lambda A: spec.fast_lanczos(A, 6, use_eigh_tridiagonal=True), [spec.fast_lanczos]),
        "spectrum.approximate_boundaries.hessian": (
            lambda A: torch.tensor(spec.approximate_boundaries(A)), [spec.approximate_boundaries]),
        "spectrum.approximate_boundaries.partial.ggn": (
            lambda A: torch.tensor(spec.approximate_boundaries(A, boundaries=(0.0, None))),
            [spec.approximate_boundaries]),
        "spectrum.approximate_boundaries_abs.tensor": (
            lambda A: torch.tensor(spec.approximate_boundaries_abs(A, tol=1e-1)), [spec.approximate_boundaries_abs]),
        "spectrum.eigsh.hessian": (  # the sharpness: top eigenvalues through SciPy
            lambda A: torch.as_tensor(eigsh(A.to_scipy(), k=2, which="LA", return_eigenvectors=False)),
            [curvlinops.HessianLinearOperator.to_scipy]),
    }
    call, entered = calls[name]

    def run(*inputs: Any) -> Any:
        torch.manual_seed(0)
        return call(operator(*inputs))

    return Step(run, entered, grad=grad, **held), inputs, {}


def _helper(name: str) -> Built:
    import torch
    from curvlinops import examples, kfac_utils, sampling, utils
    from curvlinops.examples import functorch as ft
    from gt_calls import Call

    Step = _modules()["Step"]
    gen = _gen(6)
    if name.startswith("examples.tensor_operator") or name in ("examples.outer_product", "examples.identity.sum"):
        A = torch.randn(6, 6, generator=gen)
        v = torch.randn(6, generator=gen)
        if name == "examples.tensor_operator.adjoint":
            def run(A: torch.Tensor, v: torch.Tensor) -> Any:
                return examples.TensorLinearOperator(A).adjoint() @ v
            entered = [examples.TensorLinearOperator.__init__, examples.TensorLinearOperator.adjoint]
        elif name == "examples.tensor_operator.list":
            def run(A: torch.Tensor, v: torch.Tensor) -> Any:
                return examples.TensorLinearOperator(A + A.T) @ [torch.stack([v, v * 2], 1)]
            entered = [examples.TensorLinearOperator.__init__, examples.TensorLinearOperator._matmat]
        elif name == "examples.outer_product":
            def run(A: torch.Tensor, v: torch.Tensor) -> Any:
                return examples.OuterProductLinearOperator(v[:3].abs(), A[:, :3]) @ v
            entered = [examples.OuterProductLinearOperator.__init__, examples.OuterProductLinearOperator._matmat]
        else:
            def run(A: torch.Tensor, v: torch.Tensor) -> Any:
                Id = examples.IdentityLinearOperator([(6,)], A.device, A.dtype)
                T = examples.TensorLinearOperator(A)
                return (T + 2.0 * Id) @ v
            entered = [examples.IdentityLinearOperator.__init__, examples.IdentityLinearOperator._matmat]
        return Step(run, entered, grad=False), (A, v), {}

    if name.startswith("examples.functorch"):
        function = getattr(ft, name.split(".")[1])
        loss_name = "bce" if name.endswith(".bce") else ("mse" if "jacobian" in name else "ce")
        net_name = "dict" if name.endswith(".dict") else "mlp"
        net = _net(net_name, loss_name)
        loss_fn = _loss(loss_name)
        X, y = _batch("mlp", loss_name)
        params = list(net.parameters())

        def run(X: torch.Tensor, y: torch.Tensor) -> Any:
            if net_name == "dict":
                return function(net, loss_fn, params, [({"x": X}, y)], input_key="x")
            if function is ft.functorch_jacobian:
                return function(net, params, [(X[:4], y[:4]), (X[4:], y[4:])])
            return function(net, loss_fn, params, [(X, y)])

        return Step(run, [function], net=net, loss=loss_fn), (X, y), {}

    if name.startswith("ekfac.eigenvalue_correction"):  # the function EKFAC's hooks call, on rotated activations
        from curvlinops.ekfac import compute_eigenvalue_correction_linear_weight_sharing as correction

        shared = 1 if name.endswith("no_sharing") else 6  # one position (the Gramian) or six (per-example)
        g = torch.randn(N, shared, C, generator=gen)
        a = torch.randn(N, shared, IN, generator=gen)
        Q1 = torch.linalg.qr(torch.randn(C, C, generator=gen)).Q
        Q2 = torch.linalg.qr(torch.randn(IN, IN, generator=gen)).Q

        def run(g: torch.Tensor, Q1: torch.Tensor, a: torch.Tensor, Q2: torch.Tensor) -> Any:
            return correction(g, Q1, a, Q2), correction(g, Q1, a, None)  # weight, then bias

        return Step(run, [correction], grad=False), (g, Q1, a, Q2), {}
    if name.startswith("kfac_utils.loss_hessian_matrix_sqrt"):
        loss_name = name.rsplit(".", 1)[1]
        out = torch.randn(1, C, generator=gen)
        target = {"mse": torch.randn(1, C, generator=gen), "ce": torch.tensor([1]),
                  "bce": torch.tensor([[0.0, 1.0, 1.0]])}[loss_name]
        return Call(kfac_utils.loss_hessian_matrix_sqrt, loss_func=_loss(loss_name)), (out, target), {}
    if name.startswith("kfac_utils.extract"):
        function = getattr(kfac_utils, name.split(".")[1])
        padding = "same" if name.endswith(".same") else 1
        x = torch.randn(2, 4, 5, 5, generator=gen)
        return Call(function, kernel_size=3, stride=1 if padding == "same" else 2, padding=padding, dilation=1,
                    groups=2), (x,), {}

    if name.startswith("products."):
        return _product(name.split(".")[1])

    if name == "utils.make_functional_model_and_loss":
        net = _net("mlp")
        loss_fn = _loss("ce")
        X, y = _batch("mlp", "ce")

        def run(X: torch.Tensor, y: torch.Tensor) -> Any:
            params = tuple(net.parameters())
            f, c = utils.make_functional_model_and_loss(net, loss_fn, params[2:])
            return c(f(*[2 * p for p in params[2:]], X), y)

        return Step(run, [utils.make_functional_model_and_loss], net=net, loss=loss_fn), (X, y), {}
    if name == "utils.split_list":
        x = torch.randn(10, generator=gen)

        def run(x: torch.Tensor) -> Any:
            return [sum(part) for part in utils.split_list(list(x.unbind()), [3, 3, 4])]

        return Step(run, [utils.split_list], grad=False), (x,), {}
    if name.startswith("utils.allclose_report"):
        a = torch.randn(5, generator=gen)
        b = a + (torch.tensor([0.0, 0.5, 0.0, 0.0, -0.2]) if name.endswith("mismatch") else 1e-9)
        return Call(utils.allclose_report, rtol=1e-5, atol=1e-6), (a, b), {}
    if name.startswith("sampling.random_vector"):
        distribution = name.rsplit(".", 1)[1]

        def run(x: torch.Tensor) -> Any:
            return x * sampling.random_vector(x.numel(), distribution, x.device, x.dtype)

        return Step(run, [sampling.random_vector], grad=False), (torch.randn(7, generator=gen),), {}
    raise KeyError(name)


def _product(factory: str) -> Built:
    """A batch product function of the library made and applied in the call (as custom operators do)."""
    import torch
    from curvlinops import fisher, ggn, gradient_moments, hessian, jacobian

    function = {"make_batch_hessian_matrix_product": hessian.make_batch_hessian_matrix_product,
                "make_batch_ggn_matrix_product": ggn.make_batch_ggn_matrix_product,
                "make_batch_ef_matrix_product": gradient_moments.make_batch_ef_matrix_product,
                "make_batch_fmc_matrix_product": fisher.make_batch_fmc_matrix_product,
                "make_batch_jacobian_matrix_product": jacobian.make_batch_jacobian_matrix_product,
                "make_batch_transposed_jacobian_matrix_product":
                    jacobian.make_batch_transposed_jacobian_matrix_product}[factory]
    net = _net("mlp")
    loss_fn = _loss("ce")
    X, y = _batch("mlp", "ce")
    gen = _gen(7)
    M = [torch.randn(*p.shape, 2, generator=gen) for p in net.parameters()]
    W = torch.randn(N, C, 2, generator=gen)

    def run(X: torch.Tensor, y: torch.Tensor, *M: torch.Tensor) -> Any:
        params = tuple(net.parameters())
        if factory == "make_batch_hessian_matrix_product":
            return function(net, loss_fn, params, block_sizes=[2, 2])(X, y, *M)
        if factory == "make_batch_fmc_matrix_product":
            return function(net, loss_fn, params)(X, y, 1, torch.Generator().manual_seed(0), *M)
        if factory == "make_batch_jacobian_matrix_product":
            return function(net, params)(X, *M)
        if factory == "make_batch_transposed_jacobian_matrix_product":
            return function(net, params)(X, W)
        return function(net, loss_fn, params)(X, y, *M)

    Step = _modules()["Step"]
    return Step(run, [function], grad=False, net=net, loss=loss_fn), (X, y, *M), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # load_state_dict's and the Cholesky retry's warnings
    torch.manual_seed(0)
    if name in OPERATORS:
        return _operator(name)
    if name in WARM:
        return _warm(name)
    if name in INVERSES:
        return _inverse(name)
    if name in COMPOSED:
        return _composed(name)
    if name in ESTIMATES:
        return _estimate(name)
    if name in SPECTRA:
        return _spectrum(name)
    if name in HELPERS:
        return _helper(name)
    raise KeyError(name)
