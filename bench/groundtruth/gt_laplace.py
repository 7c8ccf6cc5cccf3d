"""Ground-truth bench, laplace (laplace-torch 0.3): Laplace approximations of tiny networks, as users compile
their predictive, their marginal likelihood and their curvature.

laplace-torch is not a library of modules: users build an approximation around a trained network
(``la = Laplace(net, "classification", subset_of_weights="last_layer", hessian_structure="kron")``), fit it
on a ``DataLoader`` (``la.fit(train_loader)``: the curvature backend's ``diag`` / ``kron`` / ``full`` on
each batch), then call it: the posterior predictive (``la(x, pred_type="glm", link_approx="probit")``),
the log marginal likelihood while tuning the prior (``la.log_marginal_likelihood(prior_precision,
sigma_noise)``), posterior samples, the functional variance of given Jacobians. So each model here is a
bench module whose forward calls one of these on an approximation fitted in ``build`` (eagerly, not
compiled, on a tiny in-memory ``DataLoader``); the library's code is what gets traced:

- ``CONFIGS``: the fitted approximations, ``Laplace(...)`` with ``subset_of_weights`` all / last_layer /
  subnetwork and ``hessian_structure`` diag / kron / full (subnetwork: diag / full, all it allows) on a
  regression MLP (3 features, 2 outputs, observation noise 0.5) and a classification MLP (4 features,
  3 classes), with the default curvature backend (curvlinops' GGN); a few with another backend
  (BackPACK's GGN and empirical Fisher, ASDL's GGN and empirical Fisher), a damped Kronecker one, and
  one with a temperature, a per-parameter prior precision and a prior mean. The subnetwork's indices
  come from ``LargestMagnitudeSubnetMask``, as the docs choose them. The function-space ones too
  (``hessian_structure="gp"``: subset-of-data GP inference over all weights and over the last layer, on
  BackPACK's GGN, its default; the Nystrom ``ELLA`` and variational ``VaLLA`` estimators that
  ``functional_approximation`` selects). ``lowrank`` is left out: ``LowRankLaplace`` needs the old
  ``asdfghjkl`` package, and the installed distribution of that name installs ``asdl`` instead, so
  ``Laplace(..., hessian_structure="lowrank")`` raises ``ImportError`` (the Asdfghjkl backends fail the
  same way).
- ``POSTERIORS``: one call on a fitted approximation (``Posterior``): the predictive (``glm`` with each
  ``link_approx``: probit, mc, bridge, bridge_norm, spread over the approximations; joint and diagonal
  outputs for regression; ``nn`` sampling; ``gp`` for the function-space ones), ``predictive`` (its
  alias), ``log_marginal_likelihood`` with and without ``prior_precision`` / ``sigma_noise`` arguments
  (given as tensors, scalar or per layer), ``functional_variance`` / ``functional_covariance`` on
  Jacobians computed in ``build``, ``sample`` (with and without a generator), ``functional_samples`` /
  ``predictive_samples`` / ``predictive_moments``, ``log_prob``, the posterior-precision properties read
  through a method wrapper (``posterior_precision``, ``posterior_covariance`` / ``scale`` /
  ``variance``, the log determinants, ``scatter``, ``log_likelihood``, ``prior_precision_diag``,
  ``mean_subnet``), ``optimize_prior_precision`` (marglik with a few Adam steps, and a grid search on a
  validation loader) and ``fit`` itself. Fitting inside the compiled call (``Fit``) takes the batch
  tensors, wraps them in a ``DataLoader`` and calls ``fit``, then the marginal likelihood (the
  predictive for the function-space ones), including the online update (``override=False``), a last
  layer found on the first fit, and fits through BackPACK and ASDL.
- ``BACKENDS``: the curvature backends' functions called on one batch, as ``fit`` calls them (``diag``,
  ``kron``, ``full``, ``gradients``) and as the predictive does (``jacobians``,
  ``last_layer_jacobians``, ``selected_output_jacobians``): curvlinops (GGN, its Monte-Carlo Fisher,
  EF, Hessian), BackPACK (GGN, KFAC, EF) and ASDL (GGN, EF, Hessian), over all weights, the last layer
  (the network in a ``FeatureExtractor``) or a subnetwork.
- ``UTILITIES``: ``laplace.utils`` in plain torch: the ``Kron`` / ``KronDecomposed`` classes (sums,
  products, eigendecomposition, damping, ``bmm`` with exponents, ``inv_square_form``, log
  determinants, diagonals, dense matrices) on factors given as inputs, and ``Kron.init_from_model`` on a
  small CNN (a convolution's factors); ``FeatureExtractor`` (a named last layer, one found on the first
  call, the three feature reductions of a token-wise MLP); the subnetwork masks, each built and
  selected in the call (a mask selects once), the diagonal-Laplace and SWAG ones fitting inside it;
  ``RunningNLLMetric``; ``validate`` with an offline loss; ``fit_diagonal_swag_var``;
  ``marglik_training`` (two epochs, two hyperparameter steps each); the matrix helpers
  (``invsqrt_precision``, ``kron``, ``diagonal_add_scalar``, ``symeig``, ``block_diag``, the prior
  precision helpers, ``normal_samples``, ``get_nll``) and the function-space input helpers
  (``draw_gaussian`` on full-rank, singular and joint covariances, ``to_device``, ``split_batch``, the
  target converters, ``concatenate_rows``, ``select_rows``, ``batch_size``, ``same_configuration``,
  ``training_indices``).

Some raise under Dynamo, and are kept for what they trace until then: BackPACK's second-order
extensions (its GGN ``diag`` and ``kron``, and a fit through them) find no backpropagated quantity
("BackPACK extension expects a backpropagation quantity but it is None"), and ``draw_gaussian`` on a
singular covariance does not catch the compiled Cholesky's ``LinAlgError`` as eager code does.

Data: 16 training points in two batches of 8, and 4 test inputs; the networks keep their random initial
weights (the code paths are those of a trained network). Sample counts are small (4 to 6). The variants
are chosen so that each approximation, backend and option runs once or twice, not as a full product
(kept out to hold the library to about 190 models). Wrappers that fit, tune or call a backend enable
gradients whatever the harness's mode, as ``fit`` needs them (the predictive's Jacobians enable them
themselves). Nothing is downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N_TRAIN, BATCH, N_TEST = 16, 8, 4
REG_IN, REG_OUT, CLS_IN, CLASSES, HIDDEN = 3, 2, 4, 3, 8

# Fitted approximation -> (task, subset_of_weights, hessian_structure, backend, keywords of ``Laplace``).
# Tasks: "reg" (the regression MLP), "cls" (the classification MLP).
# Backends are names of ``laplace.curvature`` classes; None is the default (curvlinops' GGN; BackPACK's
# for "gp"). Keyword values "@indices" (subnetwork indices from ``LargestMagnitudeSubnetMask``), "@diag"
# (a per-parameter prior precision) and "@mean" (a prior mean) are built in ``_fitted``; "fit" options
# go to ``fit``.
CONFIGS: dict[str, tuple[str, str, str, str | None, dict[str, Any]]] = {
    "all.diag.reg": ("reg", "all", "diag", None, {"sigma_noise": 0.5}),
    "all.diag.cls": ("cls", "all", "diag", None, {}),
    "all.kron.reg": ("reg", "all", "kron", None, {"sigma_noise": 0.5}),
    "all.kron.cls": ("cls", "all", "kron", None, {}),
    "all.full.reg": ("reg", "all", "full", None, {"sigma_noise": 0.5}),
    "all.full.cls": ("cls", "all", "full", None, {}),
    "last_layer.diag.reg": ("reg", "last_layer", "diag", None, {"sigma_noise": 0.5}),
    "last_layer.diag.cls": ("cls", "last_layer", "diag", None, {}),
    "last_layer.kron.reg": ("reg", "last_layer", "kron", None, {"sigma_noise": 0.5}),
    "last_layer.kron.cls": ("cls", "last_layer", "kron", None, {}),
    "last_layer.full.reg": ("reg", "last_layer", "full", None, {"sigma_noise": 0.5}),
    "last_layer.full.cls": ("cls", "last_layer", "full", None, {}),
    "subnetwork.diag.reg": ("reg", "subnetwork", "diag", None, {"sigma_noise": 0.5,
                                                                 "subnetwork_indices": "@indices"}),
    "subnetwork.diag.cls": ("cls", "subnetwork", "diag", None, {"subnetwork_indices": "@indices"}),
    "subnetwork.full.reg": ("reg", "subnetwork", "full", None, {"sigma_noise": 0.5,
                                                                 "subnetwork_indices": "@indices"}),
    "subnetwork.full.cls": ("cls", "subnetwork", "full", None, {"subnetwork_indices": "@indices"}),
    # other backends and options
    "all.diag.cls.backpack": ("cls", "all", "diag", "BackPackGGN", {}),
    "all.diag.reg.backpack_ef": ("reg", "all", "diag", "BackPackEF", {"sigma_noise": 0.5}),
    "all.kron.cls.asdl": ("cls", "all", "kron", "AsdlGGN", {}),
    "all.full.reg.asdl_ef": ("reg", "all", "full", "AsdlEF", {"sigma_noise": 0.5}),
    "all.kron.cls.damping": ("cls", "all", "kron", None, {"damping": True, "prior_precision": 2.0}),
    "all.diag.cls.prior": ("cls", "all", "diag", None, {"prior_precision": "@diag", "prior_mean": "@mean",
                                                        "temperature": 0.5}),
    # function space
    "all.gp.reg": ("reg", "all", "gp", None, {"sigma_noise": 0.5, "n_subset": 8}),
    "all.gp.cls": ("cls", "all", "gp", None, {"n_subset": 8}),
    "last_layer.gp.cls": ("cls", "last_layer", "gp", None, {"n_subset": 8, "independent_outputs": True}),
    "all.nystrom.reg": ("reg", "all", "gp", None, {"sigma_noise": 0.5, "functional_approximation": "nystrom",
                                                   "subsample_size": 8, "n_eigenvalues": 4}),
    "all.nystrom.cls": ("cls", "all", "gp", None, {"functional_approximation": "nystrom", "subsample_size": 8,
                                                   "n_eigenvalues": 4}),
    "all.variational.reg": ("reg", "all", "gp", None, {"sigma_noise": 0.5, "functional_approximation": "variational",
                                                       "inducing_locations": "kmeans", "num_inducing": 4,
                                                       "fit": {"iterations": 3}}),
    "all.variational.cls": ("cls", "all", "gp", None, {"functional_approximation": "variational",
                                                       "inducing_locations": "kmeans", "num_inducing": 4,
                                                       "fit": {"iterations": 3}}),
}

# Model name -> (config, operation, keywords). Operations (``_posterior``):
#   "__call__", "predictive", "functional_samples", "predictive_samples", "predictive_moments": on the test
#       inputs x, with the keywords;
#   "log_marginal_likelihood": no inputs; "log_marginal_likelihood.hyper": the keywords name the hyper-
#       parameters passed as tensors ("layerwise" a prior precision per layer, else a scalar);
#   "functional_variance", "functional_covariance": on the Jacobians of the test inputs;
#   "sample": no inputs ("generator": True passes a seeded torch.Generator); "log_prob": on a parameter
#       vector near the mean;
#   "properties": the keyword "names" lists the properties read;
#   "optimize_prior_precision": the keywords, then the marginal likelihood is returned ("val_loader": True
#       passes a validation loader of the test points);
#   "fit": on the training tensors, wrapped in a DataLoader (keywords go to ``fit``), then the marginal
#       likelihood (the predictive for function-space ones).
_FULL = ("posterior_precision", "posterior_covariance", "posterior_scale", "log_det_posterior_precision",
         "log_det_ratio", "scatter", "log_likelihood", "prior_precision_diag")
_KRON = ("posterior_precision", "log_det_posterior_precision", "log_det_ratio", "scatter", "log_likelihood",
         "prior_precision_diag")
_DIAG = ("posterior_precision", "posterior_scale", "posterior_variance", "log_det_posterior_precision",
         "log_det_ratio", "scatter", "log_likelihood", "prior_precision_diag")
POSTERIORS: dict[str, tuple[str, str, dict[str, Any]]] = {
    # the predictive: one or two per approximation, the link approximations and output forms spread over them
    **{f"{config}.glm": (config, "__call__", {"pred_type": "glm"})
       for config in ("all.diag.cls", "all.kron.cls", "last_layer.full.cls", "subnetwork.diag.reg",
                      "subnetwork.diag.cls", "subnetwork.full.cls", "all.diag.cls.backpack", "all.kron.cls.asdl")},
    "all.full.cls.glm.bridge_norm": ("all.full.cls", "__call__", {"pred_type": "glm", "link_approx": "bridge_norm"}),
    "last_layer.diag.cls.glm.mc": ("last_layer.diag.cls", "__call__", {"pred_type": "glm", "link_approx": "mc",
                                                                       "n_samples": 6}),
    "last_layer.kron.cls.glm.bridge": ("last_layer.kron.cls", "__call__",
                                       {"pred_type": "glm", "link_approx": "bridge"}),
    "all.diag.cls.glm.mc.diagonal_output": ("all.diag.cls", "__call__", {"pred_type": "glm", "link_approx": "mc",
                                                                         "n_samples": 6, "diagonal_output": True}),
    "all.diag.cls.predictive": ("all.diag.cls", "predictive", {"pred_type": "glm", "link_approx": "probit",
                                                               "n_samples": 4}),
    # joint and diagonal regression outputs
    "all.full.reg.glm.joint": ("all.full.reg", "__call__", {"pred_type": "glm", "joint": True}),
    "last_layer.full.reg.glm.joint": ("last_layer.full.reg", "__call__", {"pred_type": "glm", "joint": True}),
    "all.diag.reg.glm.diagonal_output": ("all.diag.reg", "__call__", {"pred_type": "glm", "diagonal_output": True}),
    "last_layer.diag.reg.glm.diagonal_output": ("last_layer.diag.reg", "__call__",
                                                {"pred_type": "glm", "diagonal_output": True}),
    "last_layer.kron.reg.glm.diagonal_output": ("last_layer.kron.reg", "__call__",
                                                {"pred_type": "glm", "diagonal_output": True}),
    "last_layer.full.reg.glm.diagonal_output": ("last_layer.full.reg", "__call__",
                                                {"pred_type": "glm", "diagonal_output": True}),
    # the sampling (nn) predictive
    **{f"{config}.nn": (config, "__call__", {"pred_type": "nn", "link_approx": "mc", "n_samples": 4})
       for config in ("all.diag.reg", "all.diag.cls", "all.kron.cls", "last_layer.diag.reg", "last_layer.kron.cls",
                      "subnetwork.full.cls")},
    # the log marginal likelihood, as it is
    **{f"{config}.log_marginal_likelihood": (config, "log_marginal_likelihood", {})
       for config in ("all.diag.reg", "all.diag.cls", "all.kron.cls", "all.full.reg", "all.full.cls",
                      "last_layer.diag.reg", "last_layer.diag.cls", "last_layer.kron.cls", "last_layer.full.reg",
                      "last_layer.full.cls", "subnetwork.diag.cls", "all.diag.cls.prior", "all.gp.reg", "all.gp.cls",
                      "last_layer.gp.cls")},
    # ... and with hyperparameters, as ``optimize_prior_precision`` and ``marglik_training`` iterate it
    "all.diag.reg.log_marginal_likelihood.hyper": ("all.diag.reg", "log_marginal_likelihood.hyper",
                                                   {"prior_precision": "layerwise", "sigma_noise": "scalar"}),
    "all.kron.reg.log_marginal_likelihood.hyper": ("all.kron.reg", "log_marginal_likelihood.hyper",
                                                   {"prior_precision": "scalar", "sigma_noise": "scalar"}),
    "all.full.reg.log_marginal_likelihood.hyper": ("all.full.reg", "log_marginal_likelihood.hyper",
                                                   {"sigma_noise": "scalar"}),
    "all.kron.cls.log_marginal_likelihood.hyper": ("all.kron.cls", "log_marginal_likelihood.hyper",
                                                   {"prior_precision": "layerwise"}),
    "all.full.cls.log_marginal_likelihood.hyper": ("all.full.cls", "log_marginal_likelihood.hyper",
                                                   {"prior_precision": "scalar"}),
    "last_layer.diag.cls.log_marginal_likelihood.hyper": ("last_layer.diag.cls", "log_marginal_likelihood.hyper",
                                                          {"prior_precision": "scalar"}),
    "subnetwork.full.reg.log_marginal_likelihood.hyper": ("subnetwork.full.reg", "log_marginal_likelihood.hyper",
                                                          {"prior_precision": "scalar", "sigma_noise": "scalar"}),
    "all.gp.reg.log_marginal_likelihood.hyper": ("all.gp.reg", "log_marginal_likelihood.hyper",
                                                 {"prior_precision": "scalar", "sigma_noise": "scalar"}),
    # functional variance and covariance of given Jacobians
    **{f"{config}.functional_variance": (config, "functional_variance", {})
       for config in ("all.diag.cls", "all.kron.cls", "all.full.cls", "subnetwork.diag.cls", "all.gp.cls",
                      "all.nystrom.cls")},
    **{f"{config}.functional_covariance": (config, "functional_covariance", {})
       for config in ("all.diag.reg", "all.kron.reg", "all.full.reg", "all.gp.reg")},
    # posterior samples of the parameters
    **{f"{config}.sample": (config, "sample", {"n_samples": 4})
       for config in ("all.diag.cls", "all.kron.cls", "all.full.cls", "subnetwork.diag.cls", "subnetwork.full.cls",
                      "all.kron.cls.damping")},
    "all.diag.reg.sample.generator": ("all.diag.reg", "sample", {"n_samples": 4, "generator": True}),
    "all.diag.reg.functional_samples.diagonal_output": ("all.diag.reg", "functional_samples",
                                                        {"pred_type": "glm", "n_samples": 4,
                                                         "diagonal_output": True}),
    "all.full.cls.functional_samples.nn": ("all.full.cls", "functional_samples", {"pred_type": "nn", "n_samples": 4}),
    "all.kron.cls.predictive_samples": ("all.kron.cls", "predictive_samples", {"pred_type": "glm", "n_samples": 4}),
    "last_layer.diag.reg.predictive_samples.nn": ("last_layer.diag.reg", "predictive_samples",
                                                  {"pred_type": "nn", "n_samples": 4}),
    "all.diag.cls.log_prob": ("all.diag.cls", "log_prob", {}),
    "all.kron.cls.log_prob": ("all.kron.cls", "log_prob", {}),
    "all.full.reg.log_prob.unnormalized": ("all.full.reg", "log_prob", {"normalized": False}),
    # posterior-precision properties
    "all.full.reg.properties": ("all.full.reg", "properties", {"names": _FULL}),
    "all.kron.reg.properties": ("all.kron.reg", "properties", {"names": _KRON}),
    "all.diag.reg.properties": ("all.diag.reg", "properties", {"names": _DIAG}),
    "all.kron.cls.damping.properties": ("all.kron.cls.damping", "properties", {"names": _KRON}),
    "last_layer.full.cls.properties": ("last_layer.full.cls", "properties", {"names": _FULL}),
    "last_layer.kron.cls.properties": ("last_layer.kron.cls", "properties", {"names": _KRON}),
    "last_layer.diag.cls.properties": ("last_layer.diag.cls", "properties", {"names": _DIAG}),
    "subnetwork.full.cls.properties": ("subnetwork.full.cls", "properties", {"names": _FULL + ("mean_subnet",)}),
    "subnetwork.diag.cls.properties": ("subnetwork.diag.cls", "properties", {"names": _DIAG + ("mean_subnet",)}),
    # tuning the prior precision
    "all.diag.reg.optimize_prior_precision": ("all.diag.reg", "optimize_prior_precision",
                                              {"n_steps": 3, "prior_structure": "layerwise"}),
    "all.kron.cls.optimize_prior_precision": ("all.kron.cls", "optimize_prior_precision",
                                              {"n_steps": 3, "prior_structure": "scalar"}),
    "last_layer.full.cls.optimize_prior_precision.gridsearch": ("last_layer.full.cls", "optimize_prior_precision",
                                                                {"method": "gridsearch", "grid_size": 3,
                                                                 "val_loader": True}),
    # function space: predictive and samples
    "all.gp.reg.gp": ("all.gp.reg", "__call__", {"pred_type": "gp"}),
    "all.gp.cls.gp": ("all.gp.cls", "__call__", {"pred_type": "gp"}),
    "all.gp.cls.gp.mc": ("all.gp.cls", "__call__", {"pred_type": "gp", "link_approx": "mc", "n_samples": 6}),
    "last_layer.gp.cls.gp": ("last_layer.gp.cls", "__call__", {"pred_type": "gp"}),
    "all.nystrom.reg.gp": ("all.nystrom.reg", "__call__", {"pred_type": "gp"}),
    "all.variational.reg.gp": ("all.variational.reg", "__call__", {"pred_type": "gp"}),
    "all.gp.reg.functional_samples.joint": ("all.gp.reg", "functional_samples", {"n_samples": 4, "joint": True}),
    "all.nystrom.cls.predictive_samples": ("all.nystrom.cls", "predictive_samples", {"n_samples": 4}),
    "all.variational.reg.predictive_moments": ("all.variational.reg", "predictive_moments", {}),
    # fitting inside the compiled call, on the batch tensors
    **{f"{config}.fit": (config, "fit", {})
       for config in ("all.kron.cls", "all.full.cls", "last_layer.kron.cls", "subnetwork.diag.cls",
                      "all.diag.cls.backpack", "all.diag.reg.backpack_ef", "all.kron.cls.asdl",
                      "all.full.reg.asdl_ef", "all.gp.reg", "all.nystrom.cls", "all.variational.cls")},
    "all.kron.cls.fit.online": ("all.kron.cls", "fit", {"override": False}),
}

# Backend function -> (class of ``laplace.curvature``, task, method, options). Options: "last_layer" (the
# network in a ``FeatureExtractor``, curvature of its last layer), "subnetwork" (indices of a subnetwork),
# "stochastic" (the backend's Monte-Carlo Fisher). Methods take the batch (x, y) and ``N``, as ``fit``
# calls them; the Jacobian ones take x (and output indices).
BACKENDS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "CurvlinopsGGN.diag.cls": ("CurvlinopsGGN", "cls", "diag", {}),
    "CurvlinopsGGN.diag.reg.stochastic": ("CurvlinopsGGN", "reg", "diag", {"stochastic": True}),
    "CurvlinopsGGN.kron.cls.stochastic": ("CurvlinopsGGN", "cls", "kron", {"stochastic": True}),
    "CurvlinopsGGN.full.reg": ("CurvlinopsGGN", "reg", "full", {}),
    "CurvlinopsGGN.full.cls.subnetwork": ("CurvlinopsGGN", "cls", "full", {"subnetwork": True}),
    "CurvlinopsGGN.jacobians.cls": ("CurvlinopsGGN", "cls", "jacobians", {}),
    "CurvlinopsGGN.last_layer_jacobians.cls": ("CurvlinopsGGN", "cls", "last_layer_jacobians", {"last_layer": True}),
    "CurvlinopsGGN.selected_output_jacobians.cls": ("CurvlinopsGGN", "cls", "selected_output_jacobians", {}),
    "CurvlinopsEF.diag.reg": ("CurvlinopsEF", "reg", "diag", {}),
    "CurvlinopsEF.kron.cls": ("CurvlinopsEF", "cls", "kron", {}),
    "CurvlinopsEF.full.cls": ("CurvlinopsEF", "cls", "full", {}),
    "CurvlinopsEF.gradients.cls": ("CurvlinopsEF", "cls", "gradients", {}),
    "CurvlinopsHessian.full.cls": ("CurvlinopsHessian", "cls", "full", {}),
    "BackPackGGN.diag.cls": ("BackPackGGN", "cls", "diag", {}),
    "BackPackGGN.kron.cls.stochastic": ("BackPackGGN", "cls", "kron", {"stochastic": True}),
    "BackPackGGN.full.reg": ("BackPackGGN", "reg", "full", {}),
    "BackPackGGN.jacobians.cls": ("BackPackGGN", "cls", "jacobians", {}),
    "BackPackGGN.selected_output_jacobians.cls": ("BackPackGGN", "cls", "selected_output_jacobians", {}),
    "BackPackEF.diag.cls": ("BackPackEF", "cls", "diag", {}),
    "BackPackEF.full.reg": ("BackPackEF", "reg", "full", {}),
    "BackPackEF.gradients.cls": ("BackPackEF", "cls", "gradients", {}),
    "AsdlGGN.diag.cls.subnetwork": ("AsdlGGN", "cls", "diag", {"subnetwork": True}),
    "AsdlGGN.kron.cls.last_layer": ("AsdlGGN", "cls", "kron", {"last_layer": True}),
    "AsdlGGN.full.cls": ("AsdlGGN", "cls", "full", {}),
    "AsdlGGN.jacobians.cls": ("AsdlGGN", "cls", "jacobians", {}),
    "AsdlEF.diag.reg": ("AsdlEF", "reg", "diag", {}),
    "AsdlEF.kron.cls": ("AsdlEF", "cls", "kron", {}),
    "AsdlEF.gradients.cls": ("AsdlEF", "cls", "gradients", {}),
    "AsdlHessian.full.cls": ("AsdlHessian", "cls", "full", {}),
}

# ``laplace.utils`` and ``laplace.marglik_training``, built by ``_utility``.
UTILITIES: tuple[str, ...] = (
    "Kron.add_mul.diag", "Kron.bmm", "Kron.logdet", "Kron.to_matrix", "Kron.init_from_model",
    "KronDecomposed.logdet", "KronDecomposed.damping.logdet", "KronDecomposed.bmm.invsqrt",
    "KronDecomposed.inv_square_form", "KronDecomposed.diag", "KronDecomposed.to_matrix",
    "FeatureExtractor.forward_with_features", "FeatureExtractor.find_last_layer",
    "FeatureExtractor.pick_first", "FeatureExtractor.pick_last", "FeatureExtractor.average",
    "RandomSubnetMask", "LargestMagnitudeSubnetMask", "ParamNameSubnetMask", "ModuleNameSubnetMask",
    "LastLayerSubnetMask", "LargestVarianceDiagLaplaceSubnetMask", "LargestVarianceSWAGSubnetMask",
    "SubnetMask.convert_subnet_mask_to_indices",
    "RunningNLLMetric", "validate", "fit_diagonal_swag_var",
    "marglik_training.cls.kron", "marglik_training.reg.diag",
    "invsqrt_precision", "kron", "diagonal_add_scalar", "symeig", "block_diag", "expand_prior_precision",
    "expand_prior_precision.scalar", "fix_prior_prec_structure.layerwise", "fix_prior_prec_structure.diag",
    "normal_samples.diag", "normal_samples.full", "parameters_per_layer", "get_nll",
    "draw_gaussian", "draw_gaussian.singular", "draw_gaussian.joint", "to_device", "split_batch",
    "regression_targets", "classification_targets", "concatenate_rows", "select_rows", "batch_size",
    "same_configuration", "training_indices",
)


def names() -> list[str]:
    return list(POSTERIORS) + list(BACKENDS) + list(UTILITIES)


def _networks() -> dict[str, Any]:
    """The tiny networks (defined here so that ``names()`` needs no torch)."""
    from torch import nn

    def reg() -> nn.Module:
        return nn.Sequential(nn.Linear(REG_IN, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, REG_OUT))

    def cls() -> nn.Module:
        return nn.Sequential(nn.Linear(CLS_IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))

    def cnn() -> nn.Module:  # 1 x 6 x 6 -> 2 x 4 x 4 -> 3 classes
        return nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, CLASSES))

    def sequence() -> nn.Module:  # a token-wise MLP: its last layer's input is (batch, length, hidden)
        return nn.Sequential(nn.Linear(CLS_IN, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, CLASSES))

    return {"reg": reg, "cls": cls, "cnn": cnn, "sequence": sequence}


def _data(task: str) -> tuple[Any, Any, Any]:
    """(training inputs, training targets, test inputs) of a task, from a seeded generator."""
    import torch

    gen = torch.Generator().manual_seed(0)
    if task == "reg":
        X = torch.randn(N_TRAIN, REG_IN, generator=gen)
        y = torch.sin(X[:, :REG_OUT]) + 0.1 * torch.randn(N_TRAIN, REG_OUT, generator=gen)
        return X, y, torch.randn(N_TEST, REG_IN, generator=gen)
    X = torch.randn(N_TRAIN, CLS_IN, generator=gen)
    y = torch.arange(N_TRAIN) % CLASSES
    return X, y, torch.randn(N_TEST, CLS_IN, generator=gen)


def _loader(X: Any, y: Any, batch: int = BATCH) -> Any:
    from torch.utils.data import DataLoader, TensorDataset

    return DataLoader(TensorDataset(X, y), batch_size=batch)


def _likelihood(task: str) -> str:
    return "regression" if task == "reg" else "classification"


def _backend(name: str | None) -> Any:
    import laplace.curvature

    return None if name is None else getattr(laplace.curvature, name)


def _indices(network: Any) -> Any:
    """Subnetwork indices: the 12 largest-magnitude parameters, as the docs select a subnetwork."""
    from laplace.utils import LargestMagnitudeSubnetMask

    return LargestMagnitudeSubnetMask(network, n_params_subnet=12).select()


def _fitted(config: str) -> tuple[Any, Any, Any, Any]:
    """A fitted approximation of ``CONFIGS``, with the task's training and test data."""
    import torch
    from laplace import Laplace
    from torch.nn.utils import parameters_to_vector

    task, subset, structure, backend, keywords = CONFIGS[config]
    network = _networks()[task]()
    X, y, x = _data(task)
    options = dict(keywords)
    fit = options.pop("fit", {})
    n_params = len(parameters_to_vector(network.parameters()))
    for key, value in list(options.items()):
        if value == "@indices":
            options[key] = _indices(network)
        elif value == "@diag":
            options[key] = torch.linspace(0.5, 2.0, n_params)
        elif value == "@mean":
            options[key] = 0.01 * torch.ones(n_params)
    if backend is not None:
        options["backend"] = _backend(backend)
    la = Laplace(network, _likelihood(task), subset_of_weights=subset, hessian_structure=structure, **options)
    la.fit(_loader(X, y), **fit)
    return la, X, y, x


def _modules() -> dict[str, Any]:
    """The bench modules (defined here: torch is imported in a worker only)."""
    import contextlib

    import torch
    from torch import nn

    def grad(enabled: bool) -> Any:
        return torch.enable_grad() if enabled else contextlib.nullcontext()

    class Posterior(nn.Module):
        """One method of a fitted approximation on the forward's tensors (``method`` None: the properties
        ``names`` read, through this wrapper), then the method ``then`` if given. The approximation's network
        is a submodule, so the harness's mode reaches it; ``with_grad`` enables gradients whatever the mode
        (tuning the prior and the GP kernels need them)."""

        def __init__(self, la: Any, method: str | None, static: dict[str, Any], names: tuple[str, ...] = (),
                     with_grad: bool = False, then: str | None = None) -> None:
            super().__init__()
            self.network = la.model
            self.la = la
            self.method = method
            self.static = static
            self.names = names
            self.with_grad = with_grad
            self.then = then

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            if self.method is None:
                return tuple(getattr(self.la, name) for name in self.names)
            with grad(self.with_grad):
                out = getattr(self.la, self.method)(*args, **self.static, **kwargs)
                return out if self.then is None else getattr(self.la, self.then)()

        def entry_points(self) -> list[Any]:
            owner = type(self.la)
            if self.method is None:
                return [getattr(owner, name).fget for name in self.names]
            return [getattr(owner, self.method)] + ([getattr(owner, self.then)] if self.then else [])

    class Fit(nn.Module):
        """``fit`` on the batch tensors (a DataLoader made of them), then ``after`` on the test inputs (or with
        no inputs), with gradients enabled as fitting needs them."""

        def __init__(self, la: Any, static: dict[str, Any], after: str, after_static: dict[str, Any]) -> None:
            super().__init__()
            self.network = la.model
            self.la = la
            self.static = static
            self.after = after
            self.after_static = after_static

        def forward(self, X: torch.Tensor, y: torch.Tensor, x: torch.Tensor | None = None) -> Any:
            with torch.enable_grad():
                self.la.fit(_loader(X, y), **self.static)
                if x is None:
                    return getattr(self.la, self.after)(**self.after_static)
                return getattr(self.la, self.after)(x, **self.after_static)

        def entry_points(self) -> list[Any]:
            return [type(self.la).fit, getattr(type(self.la), self.after)]

    class Backend(nn.Module):
        """One function of a curvature backend on a batch, with gradients enabled, as ``fit`` calls it."""

        def __init__(self, network: nn.Module, backend: Any, method: str, static: dict[str, Any]) -> None:
            super().__init__()
            self.network = network
            self.backend = backend
            self.method = method
            self.static = static

        def forward(self, *tensors: torch.Tensor) -> Any:
            with torch.enable_grad():
                return getattr(self.backend, self.method)(*tensors, **self.static)

        def entry_points(self) -> list[Any]:
            return [getattr(type(self.backend), self.method)]

    class Run(nn.Module):
        """Bench glue around library code: ``run`` is the user's code, given the forward's tensors; ``entered``
        the library functions it calls; ``held`` the modules it uses (registered, so the mode reaches them)."""

        def __init__(self, run: Any, entered: list[Any], with_grad: bool = False, **held: nn.Module) -> None:
            super().__init__()
            self.held = nn.ModuleDict(held)
            self.run = run
            self.entered = entered
            self.with_grad = with_grad

        def forward(self, *tensors: Any) -> Any:
            with grad(self.with_grad):
                return self.run(*tensors)

        def entry_points(self) -> list[Any]:
            return self.entered

    return {"Posterior": Posterior, "Fit": Fit, "Backend": Backend, "Run": Run}


def _posterior(name: str) -> Built:
    import torch

    config, op, keywords = POSTERIORS[name]
    la, X, y, x = _fitted(config)
    modules = _modules()
    Posterior = modules["Posterior"]
    static = dict(keywords)
    functional = CONFIGS[config][2] == "gp"
    if op == "fit":
        after, after_static = ("__call__", {"pred_type": "gp"}) if functional else ("log_marginal_likelihood", {})
        model = modules["Fit"](la, static, after, after_static)
        return model, (X, y) + ((x,) if functional else ()), {}
    if op in ("__call__", "predictive", "functional_samples", "predictive_samples", "predictive_moments"):
        return Posterior(la, op, static), (x,), {}
    if op == "log_marginal_likelihood":
        return Posterior(la, op, static), (), {}
    if op == "log_marginal_likelihood.hyper":
        tensors = {}
        if "prior_precision" in static:
            n_layers = la.n_layers if static["prior_precision"] == "layerwise" else 1
            tensors["prior_precision"] = torch.full((n_layers,), 2.0) if n_layers > 1 else torch.tensor(2.0)
        if "sigma_noise" in static:
            tensors["sigma_noise"] = torch.tensor(0.3)
        return Posterior(la, "log_marginal_likelihood", {}), (), tensors
    if op in ("functional_variance", "functional_covariance"):
        if CONFIGS[config][1] == "last_layer":
            Js, _ = la.backend.last_layer_jacobians(x)
        else:
            Js, _ = la.backend.jacobians(x)
        return Posterior(la, op, static, with_grad=functional), (Js,), {}  # the GP kernels differentiate
    if op == "sample":
        if static.pop("generator", False):
            static["generator"] = torch.Generator().manual_seed(0)
        return Posterior(la, op, static), (), {}
    if op == "log_prob":
        value = la.mean + 0.01 * torch.randn(la.n_params, generator=torch.Generator().manual_seed(1))
        return Posterior(la, op, static), (value,), {}
    if op == "properties":
        return Posterior(la, None, {}, names=tuple(static["names"])), (), {}
    if op == "optimize_prior_precision":
        if static.pop("val_loader", False):
            static["val_loader"] = _loader(x, y[:N_TEST], batch=2)
        return Posterior(la, op, static, with_grad=True, then="log_marginal_likelihood"), (), {}
    raise KeyError(name)


def _backend_call(name: str) -> Built:
    from laplace.utils import FeatureExtractor

    cls, task, method, options = BACKENDS[name]
    network = _networks()[task]()
    X, y, x = _data(task)
    X, y = X[:BATCH], y[:BATCH]
    keywords: dict[str, Any] = {}
    if options.get("stochastic"):
        keywords["stochastic"] = True
    if options.get("subnetwork"):
        keywords["subnetwork_indices"] = _indices(network)
    model = network
    if options.get("last_layer"):  # as LLLaplace wraps it, with its last layer named
        model = FeatureExtractor(network, last_layer_name=str(len(network) - 1))
        keywords["last_layer"] = True
    backend = _backend(cls)(model, _likelihood(task), **keywords)
    model.output_size = REG_OUT if task == "reg" else CLASSES  # set by ``fit``, read by BackPACK's and ASDL's
    Backend = _modules()["Backend"]
    if method in ("diag", "kron", "full"):
        return Backend(model, backend, method, {"N": N_TRAIN}), (X, y), {}
    if method == "gradients":
        return Backend(model, backend, method, {}), (X, y), {}
    if method == "selected_output_jacobians":
        return Backend(model, backend, method, {}), (X, y[:, None] if y.ndim == 1 else y[:, :1]), {}
    return Backend(model, backend, method, {}), (X,), {}


def _spd(n: int, seed: int) -> Any:
    """A symmetric positive definite n x n matrix."""
    import torch

    A = torch.randn(n, n, generator=torch.Generator().manual_seed(seed))
    return A @ A.T / n + 0.5 * torch.eye(n)


def _utility(name: str) -> Built:
    import torch
    from laplace import utils
    from laplace.utils import matrix, subnetmask
    from laplace.utils.feature_extractor import FeatureExtractor

    modules = _modules()
    Run = modules["Run"]
    gen = torch.Generator().manual_seed(2)
    network = _networks()["cls"]()

    if name.startswith(("Kron.", "KronDecomposed.")):
        # the factors of a Linear(4 -> 3) layer with its bias, as ``Kron.init_from_model`` lays them out
        factors = (_spd(CLASSES, 1), _spd(CLS_IN, 2), _spd(CLASSES, 3))
        W = torch.randn(2, CLASSES, CLASSES * CLS_IN + CLASSES, generator=gen)
        Kron, KronDecomposed = matrix.Kron, matrix.KronDecomposed

        def make(Q: torch.Tensor, H: torch.Tensor, B: torch.Tensor) -> Any:
            return Kron([[Q, H], [B]])

        op = name.split(".", 1)[1]
        if name == "Kron.add_mul.diag":
            def run(Q: Any, H: Any, B: Any) -> Any:
                return ((make(Q, H, B) + make(H[:CLASSES, :CLASSES], H, B)) * 0.5).diag()
            entered = [Kron.__add__, Kron.__mul__, Kron.diag]
        elif name == "Kron.bmm":
            def run(Q: Any, H: Any, B: Any) -> Any:
                return make(Q, H, B).bmm(W)
            entered = [Kron.bmm]
        elif name == "Kron.init_from_model":  # the zero factors of the CNN: a convolution's, then linear ones
            cnn = _networks()["cnn"]()

            def run() -> Any:
                layers = Kron.init_from_model(cnn, torch.device("cpu"), torch.float32)
                return (layers + layers).to_matrix()
            return Run(run, [Kron.init_from_model, Kron.__add__, Kron.to_matrix], network=cnn), (), {}
        elif name.startswith("Kron."):
            def run(Q: Any, H: Any, B: Any) -> Any:
                return getattr(make(Q, H, B), op)()
            entered = [getattr(Kron, op)]
        else:
            damping = "damping" in name
            delta = torch.tensor([0.5, 1.0])

            def decomposed(Q: Any, H: Any, B: Any) -> Any:
                return make(Q, H, B).decompose(damping=damping) * 2.0 + delta

            calls = {
                "logdet": lambda kd: kd.logdet(),
                "damping.logdet": lambda kd: kd.logdet(),
                "bmm.invsqrt": lambda kd: kd.bmm(W, exponent=-0.5),
                "inv_square_form": lambda kd: kd.inv_square_form(W),
                "diag": lambda kd: kd.diag(exponent=-1),
                "to_matrix": lambda kd: kd.to_matrix(exponent=-1),
            }
            method = {"damping.logdet": "logdet", "bmm.invsqrt": "bmm"}.get(op, op)

            def run(Q: Any, H: Any, B: Any) -> Any:
                return calls[op](decomposed(Q, H, B))
            entered = [Kron.decompose, KronDecomposed.__mul__, KronDecomposed.__add__, getattr(KronDecomposed, method)]
        return Run(run, entered, network=network), factors, {}

    if name.startswith("FeatureExtractor."):
        variant = name.split(".", 1)[1]
        if variant in ("pick_first", "pick_last", "average"):
            extractor = FeatureExtractor(_networks()["sequence"](), last_layer_name="2", feature_reduction=variant)
            x = torch.randn(2, 5, CLS_IN, generator=gen)
        else:
            extractor = FeatureExtractor(network, last_layer_name="2" if variant == "forward_with_features" else None)
            x = torch.randn(N_TEST, CLS_IN, generator=gen)
        if variant == "find_last_layer":  # unknown last layer: the first call finds it
            return extractor, (x,), {}
        return Run(extractor.forward_with_features, [FeatureExtractor.forward_with_features],
                   extractor=extractor), (x,), {}

    X, y, _ = _data("cls")
    if name.endswith("SubnetMask") or name.startswith("SubnetMask."):
        # a mask selects once: each call builds its own, as users do before building SubnetLaplace
        if name == "SubnetMask.convert_subnet_mask_to_indices":
            mask = subnetmask.RandomSubnetMask(network, n_params_subnet=10)
            n_params = mask.parameter_vector.numel()
            chosen = torch.zeros(n_params, dtype=torch.bool)
            chosen[torch.randperm(n_params, generator=gen)[:10]] = True
            return Run(mask.convert_subnet_mask_to_indices, [subnetmask.SubnetMask.convert_subnet_mask_to_indices],
                       network=network), (chosen,), {}
        cls = getattr(subnetmask, name)
        if name in ("RandomSubnetMask", "LargestMagnitudeSubnetMask"):
            args, loader = {"n_params_subnet": 10}, False
        elif name == "ParamNameSubnetMask":
            args, loader = {"parameter_names": ["0.bias", "2.weight"]}, False
        elif name == "ModuleNameSubnetMask":
            args, loader = {"module_names": ["2"]}, False
        elif name == "LastLayerSubnetMask":
            args, loader = {}, True
        elif name == "LargestVarianceDiagLaplaceSubnetMask":
            from laplace import DiagLaplace

            args, loader = {"n_params_subnet": 10, "diag_laplace_model": DiagLaplace(network, "classification")}, True
        else:
            args, loader = {"n_params_subnet": 10, "likelihood": "classification", "swag_n_snapshots": 2}, True

        def select(X: torch.Tensor, y: torch.Tensor) -> Any:
            return cls(network, **args).select(_loader(X, y) if loader else None)

        return Run(select, [cls.select], with_grad=loader, network=network), (X, y), {}

    if name == "RunningNLLMetric":
        metric = utils.RunningNLLMetric()
        probs = torch.softmax(torch.randn(N_TEST, CLASSES, generator=gen), -1)

        def update(p: torch.Tensor, t: torch.Tensor) -> Any:
            metric.update(p, t)
            return metric.compute()

        return Run(update, [utils.RunningNLLMetric.update, utils.RunningNLLMetric.compute], metric=metric), \
            (probs, y[:N_TEST]), {}
    if name == "validate":  # with a loss computed offline (the grid search's running metric is the other way)
        la, _, _, x = _fitted("all.diag.cls")

        def validate(x: torch.Tensor, t: torch.Tensor) -> Any:
            return utils.validate(la, _loader(x, t, batch=2), utils.get_nll, pred_type="glm", link_approx="probit")

        return Run(validate, [utils.validate], network=la.model), (x, y[:N_TEST]), {}
    if name == "fit_diagonal_swag_var":
        def swag(X: torch.Tensor, y: torch.Tensor) -> Any:
            return utils.fit_diagonal_swag_var(network, _loader(X, y), torch.nn.CrossEntropyLoss(),
                                               n_snapshots_total=2)

        return Run(swag, [utils.fit_diagonal_swag_var], with_grad=True, network=network), (X, y), {}
    if name.startswith("marglik_training."):
        from laplace import marglik_training

        task, structure = name.split(".")[1:]
        net = _networks()[task]()
        Xt, yt, _ = _data(task)
        options: dict[str, Any] = {"likelihood": _likelihood(task), "hessian_structure": structure,
                                   "n_epochs": 2, "n_hypersteps": 2, "marglik_frequency": 1}
        if task == "reg":
            options["backend"] = _backend("CurvlinopsGGN")
            options["prior_structure"] = "scalar"

        def train(X: torch.Tensor, y: torch.Tensor) -> Any:
            la, _, margliks, losses = marglik_training(net, _loader(X, y), **options)
            return la.prior_precision, margliks, losses

        return Run(train, [marglik_training], with_grad=True, network=net), (Xt, yt), {}
    return _function(name)


def _function(name: str) -> Built:
    """A helper function of ``laplace.utils`` on tensors (``gt_calls.Call``, with fixed keywords)."""
    import torch
    from gt_calls import Call
    from laplace import utils
    from laplace.utils import functional_utils as fu

    gen = torch.Generator().manual_seed(3)
    network = _networks()["cls"]()
    mean, M = torch.randn(N_TEST, CLASSES, generator=gen), _spd(CLASSES, 4)
    cov = torch.stack([_spd(CLASSES, 5 + i) for i in range(N_TEST)])
    table: dict[str, tuple[Any, tuple[Any, ...], dict[str, Any]]] = {
        "invsqrt_precision": (utils.invsqrt_precision, (_spd(5, 6),), {}),
        "kron": (utils.kron, (torch.randn(2, 3, generator=gen), torch.randn(3, 2, generator=gen)), {}),
        "diagonal_add_scalar": (utils.diagonal_add_scalar, (M, torch.tensor(0.5)), {}),
        "symeig": (utils.symeig, (_spd(5, 7),), {}),
        "block_diag": (utils.block_diag, ([M, _spd(2, 8)],), {}),
        "expand_prior_precision": (utils.expand_prior_precision, (torch.tensor([1.0, 2.0, 3.0, 4.0]),),
                                   {"model": network}),
        "expand_prior_precision.scalar": (utils.expand_prior_precision, (torch.tensor([2.0]),), {"model": network}),
        "fix_prior_prec_structure.layerwise": (utils.fix_prior_prec_structure, (),
                                               {"prior_prec_init": 1.5, "prior_structure": "layerwise", "n_layers": 4,
                                                "n_params": 67, "device": torch.device("cpu"),
                                                "dtype": torch.float32}),
        "fix_prior_prec_structure.diag": (utils.fix_prior_prec_structure, (),
                                          {"prior_prec_init": 1.5, "prior_structure": "diag", "n_layers": 4,
                                           "n_params": 67, "device": torch.device("cpu"), "dtype": torch.float32}),
        "normal_samples.diag": (utils.normal_samples, (mean, torch.rand(N_TEST, CLASSES, generator=gen)),
                                {"n_samples": 5}),
        "normal_samples.full": (utils.normal_samples, (mean, cov), {"n_samples": 5}),
        "parameters_per_layer": (utils.parameters_per_layer, (), {"model": network}),
        "get_nll": (utils.get_nll, (torch.softmax(mean, -1), torch.arange(N_TEST) % CLASSES), {}),
        "draw_gaussian": (fu.draw_gaussian, (mean, cov), {"n_samples": 5, "generator": None}),
        "draw_gaussian.singular": (fu.draw_gaussian, (mean, torch.ones(N_TEST, CLASSES, CLASSES)),
                                   {"n_samples": 5, "generator": None}),
        "draw_gaussian.joint": (fu.draw_gaussian, (mean.flatten(), _spd(N_TEST * CLASSES, 9)),
                                {"n_samples": 5, "generator": None}),
        "to_device": (fu.to_device, ({"input_ids": torch.arange(6).reshape(2, 3), "x": mean, "meta": ["a", "b"]},),
                      {"device": torch.device("cpu"), "dtype": torch.float64}),
        "split_batch": (fu.split_batch, ({"input_ids": torch.arange(6).reshape(2, 3), "labels": torch.ones(2)},),
                        {"dict_key_y": "labels"}),
        "regression_targets": (fu.regression_targets, (torch.randn(N_TEST, generator=gen),
                                                       torch.randn(N_TEST, 1, generator=gen)), {}),
        "classification_targets": (fu.classification_targets, (torch.softmax(mean, -1),), {}),
        "concatenate_rows": (fu.concatenate_rows,
                             ([{"input_ids": torch.ones(2, 3), "tags": ["a", "b"], "task": "x"},
                               {"input_ids": torch.zeros(1, 3), "tags": ["c"], "task": "x"}],), {}),
        "select_rows": (fu.select_rows, ({"input_ids": torch.arange(12).reshape(4, 3), "scale": torch.tensor(2.0),
                                          "tags": ["a", "b", "c", "d"]}, torch.tensor([0, 2])),
                        {"batch_size": N_TEST}),
        "batch_size": (fu.batch_size, ({"input_ids": torch.ones(5, 2)},), {"dict_key_x": "input_ids"}),
        "same_configuration": (fu.same_configuration, ({"prior": torch.ones(3), "sizes": [1, 2], "name": "kron"},
                                                       {"prior": torch.ones(3), "sizes": [1, 2], "name": "kron"}), {}),
        "training_indices": (fu.training_indices,
                             (_loader(torch.randn(N_TRAIN, CLS_IN, generator=gen), torch.arange(N_TRAIN)),), {}),
    }
    function, args, static = table[name]
    return Call(function, **static), args, {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # laplace's notes on link approximations and the ASDL fallback
    torch.manual_seed(0)
    if name in POSTERIORS:
        return _posterior(name)
    if name in BACKENDS:
        return _backend_call(name)
    return _utility(name)
