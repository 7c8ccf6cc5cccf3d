"""Ground-truth bench, neuralop (neuraloperator): neural operators for PDEs, their layers, losses and data transforms.

Every model is built at a tiny size (hidden width 8, two layers, 4 to 8 Fourier modes, grids of 32 points in 1-d,
16 x 16 in 2-d, 8^3 in 3-d and 6^4 in 4-d, a batch of 2) with random weights. The families:

- ``FNO`` in 1 to 4 dimensions and ``TFNO`` (Tucker weights), over the flags that pick different code: domain
  padding, complex data, pre-activation, the tanh stabilizer, the norms (instance, group, batch), the skip types of
  the Fourier layers and of the channel MLPs (soft-gating, identity, none), no channel MLP, dropout, resolution
  scaling (down then up), an explicit ``output_shape``, separable weights with ``max_n_modes``; ``UQNO`` around an
  FNO;
- ``UNO`` (1-d with default soft-gating skips and no embedding, 2-d with domain padding), ``CODANO`` (positional
  encodings of the variables, static channels, a class token, horizontal skips), ``FNOGNO`` and ``GINO`` (the graph
  neural operator on point clouds with the native neighbour search: 2-d and 3-d, batched, the kernel transforms, no
  positional embedding, Ada-IN, weighting functions, latent features, a dict of output queries);
- the layers: ``SpectralConv`` (1-d to 3-d, the tensorly-torch factorizations Tucker, CP, TT and dense, contracted
  factorized or reconstructed, separable, complex, scaled, an output shape, fewer modes than the maximum) and the
  legacy ``SpectralConv`` (its 1-d/2-d/3-d classes, joint factorization through a sub-convolution, incremental
  modes), ``FNOBlocks`` (Ada-IN embeddings, a sub-block, batch norm), ``CODALayer``, ``ChannelMLP`` and
  ``LinearChannelMLP``, the skip connections, the grid, sinusoidal and rotary embeddings, ``AttentionKernelIntegral``,
  ``DomainPadding``, ``resample``, the norms, the complex wrappers, ``FiniteDifferenceConvolution``, the
  divergence-free spectral projection, ``FCLegendre`` (Fourier continuation), ``GNOBlock``, ``IntegralTransform``
  (given neighbourhoods), ``NeighborSearch``, ``segment_csr`` and the GNO weighting functions;
- the losses: ``LpLoss``, ``H1Loss``, ``HdivLoss`` (dimensions, reductions, measures, absolute and relative),
  ``PointwiseQuantileLoss``, ``MSELoss``, the Burgers, initial-condition and Poisson equation losses (the last
  differentiates a small network's output with autograd), ``WeightedSumLoss``, ``FieldwiseAggregatorLoss``, the
  ``SoftAdapt`` and ``Relobralo`` aggregators (first and later steps), ``FiniteDiff``, ``FourierDiff`` (periodic
  and with a Legendre continuation) and ``non_uniform_fd``;
- the data transforms and training: ``UnitGaussianNormalizer`` (transform, inverse, fit, incremental fit), the
  ``DefaultDataProcessor``, ``IncrementalDataProcessor``, ``MGPatchingDataProcessor`` (stitched or not) and
  ``TheWellDataProcessor`` in a training step as the ``Trainer`` runs it (preprocess, a model, postprocess, a loss),
  ``Trainer.train_one_batch``, ``eval_one_batch`` and ``eval_one_batch_autoreg`` (a two-step rollout through
  ``TheWellDataProcessor``) over an FNO, ``IncrementalFNOTrainer``'s update (the loss-gap rule, the accumulation of
  the explained-variance rule), neuralop's ``AdamW`` step over an FNO's complex weights (plain, and with a GaLore
  projection of the spectral weights), and the spectrum and rank utilities.

Networks contracting through tensorly are called once eagerly before they are returned (``_warmed``), so that the
opt_einsum path of each contraction is cached as after a user's first call. SFNO, ``LocalNO`` and the DISCO
convolutions need torch-harmonics, ``FCGram`` ships no matrices, open3d and torch-scatter are absent: those are left
out (the GNOs use the native search and reduction). ``DictUnitGaussianNormalizer`` is left out too: it never
initializes its ``nn.Module`` base, which Dynamo cannot trace. Random inputs from fixed generators, nothing
downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

BATCH = 2
WIDTH = 8  # hidden channels
GRID = {1: 32, 2: 16, 3: 8, 4: 6}  # points per side
MODES = {1: 8, 2: 4, 3: 4, 4: 4}  # Fourier modes per side

# FNO name -> (class, dimensions, keywords over ``_fno_model``'s defaults; "relu" stands for ``F.relu``).
FNOS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "FNO1d": ("FNO", 1, {}),
    "FNO2d": ("FNO", 2, {}),
    "FNO3d": ("FNO", 3, {}),
    "FNO4d.batch_norm": ("FNO", 4, {"norm": "batch_norm"}),
    "FNO2d.domain_padding": ("FNO", 2, {"domain_padding": 0.25}),
    "FNO2d.complex": ("FNO", 2, {"complex_data": True}),
    "FNO2d.complex.stabilizer.preactivation": ("FNO", 2, {"complex_data": True, "stabilizer": "tanh",
                                                          "preactivation": True}),
    "FNO2d.preactivation.instance_norm.stabilizer": ("FNO", 2, {"preactivation": True, "norm": "instance_norm",
                                                                "stabilizer": "tanh"}),
    "FNO2d.group_norm": ("FNO", 2, {"norm": "group_norm"}),
    "FNO2d.soft_gating.identity_skips": ("FNO", 2, {"fno_skip": "soft-gating", "channel_mlp_skip": "identity"}),
    "FNO2d.no_skips": ("FNO", 2, {"fno_skip": None, "channel_mlp_skip": None}),
    "FNO2d.no_channel_mlp": ("FNO", 2, {"use_channel_mlp": False}),
    "FNO2d.channel_mlp_dropout.relu": ("FNO", 2, {"channel_mlp_dropout": 0.1, "non_linearity": "relu"}),
    "FNO2d.down_up": ("FNO", 2, {"resolution_scaling_factor": [0.5, 2]}),
    "FNO2d.output_shape": ("FNO", 2, {}),
    "FNO2d.separable.max_n_modes": ("FNO", 2, {"separable": True, "max_n_modes": (6, 6)}),
    "TFNO2d": ("TFNO", 2, {}),
}
FNO_CALLS: dict[str, dict[str, Any]] = {"FNO2d.output_shape": {"output_shape": (20, 20)}}
# UQNO name -> its base model (FNOS); the residual model is a copy.
UQNOS: dict[str, str] = {"UQNO.FNO2d": "FNO2d"}
# UNO name -> (dimensions, keywords over ``_uno``'s defaults).
UNOS: dict[str, tuple[int, dict[str, Any]]] = {
    "UNO1d.default_skips.soft_gating.no_embedding": (1, {"horizontal_skips_map": None, "positional_embedding": None,
                                                         "horizontal_skip": "soft-gating"}),
    "UNO2d.domain_padding": (2, {"domain_padding": 0.25}),
}
# CODANO name -> (number of variables, keywords over ``_codano``'s defaults, static channels).
CODANOS: dict[str, tuple[int, dict[str, Any], int]] = {
    "CODANO.positional_encoding.static_channels.cls_token.horizontal_skips": (2, {
        "use_positional_encoding": True, "enable_cls_token": True, "use_horizontal_skip_connection": True,
        "horizontal_skips_map": {1: 0}}, 2),
}
# FNOGNO name -> (dimensions, keywords over ``_fnogno``'s defaults).
FNOGNOS: dict[str, tuple[int, dict[str, Any]]] = {
    "FNOGNO2d": (2, {}),
    "FNOGNO2d.batched.nonlinear": (2, {"gno_batched": True, "gno_transform_type": "nonlinear"}),
    "FNOGNO3d.no_pos_embed.ada_in": (3, {"gno_pos_embed_type": None, "fno_norm": "ada_in", "fno_ada_in_features": 4}),
    "FNOGNO2d.weighting.batched": (2, {"gno_weighting_function": "half_cos", "gno_batched": True}),
}
# GINO name -> (dimensions, keywords over ``_gino``'s defaults, inputs: "latent" features, "dict" queries).
GINOS: dict[str, tuple[int, dict[str, Any], tuple[str, ...]]] = {
    "GINO2d.latent_features": (2, {"latent_feature_channels": 2}, ("latent",)),
    "GINO2d.dict_queries.tanh": (2, {"out_gno_tanh": "both"}, ("dict",)),
    "GINO2d.no_pos_embed.nonlinear": (2, {"in_gno_pos_embed_type": None, "out_gno_pos_embed_type": None,
                                          "in_gno_transform_type": "nonlinear",
                                          "out_gno_transform_type": "nonlinear_kernelonly"}, ()),
    "GINO3d.weighting.ada_in": (3, {"gno_weighting_function": "bump", "fno_norm": "ada_in"}, ()),
}
# SpectralConv name -> (class in ``neuralop.layers.spectral_convolution`` or, prefixed "legacy.", in
# ``legacy_spectral_convolution``, dimensions, keywords, call keywords). Four channels in and out.
SPECTRAL: dict[str, tuple[str, int, dict[str, Any], dict[str, Any]]] = {
    "SpectralConv1d": ("SpectralConv", 1, {}, {}),
    "SpectralConv2d": ("SpectralConv", 2, {}, {}),
    "SpectralConv3d": ("SpectralConv", 3, {}, {}),
    "SpectralConv2d.cp": ("SpectralConv", 2, {"factorization": "cp", "implementation": "factorized"}, {}),
    "SpectralConv2d.tucker": ("SpectralConv", 2, {"factorization": "tucker", "implementation": "factorized"}, {}),
    "SpectralConv2d.tt": ("SpectralConv", 2, {"factorization": "tt", "implementation": "factorized"}, {}),
    "SpectralConv3d.tt.reconstructed": ("SpectralConv", 3, {"factorization": "tt"}, {}),
    "SpectralConv2d.dense.factorized": ("SpectralConv", 2, {"factorization": "dense", "implementation": "factorized"},
                                        {}),
    "SpectralConv2d.cp.separable": ("SpectralConv", 2, {"factorization": "cp", "separable": True,
                                                      "implementation": "factorized"}, {}),
    "SpectralConv2d.tucker.reconstructed": ("SpectralConv", 2, {"factorization": "tucker"}, {}),
    "SpectralConv2d.cp.separable.reconstructed": ("SpectralConv", 2, {"factorization": "cp", "separable": True}, {}),
    "SpectralConv1d.tucker.separable": ("SpectralConv", 1, {"factorization": "tucker", "separable": True,
                                                          "implementation": "factorized"}, {}),
    "SpectralConv2d.complex": ("SpectralConv", 2, {"complex_data": True}, {}),
    "SpectralConv3d.complex.cp": ("SpectralConv", 3, {"complex_data": True, "factorization": "cp",
                                                    "implementation": "factorized"}, {}),
    "SpectralConv2d.scaled": ("SpectralConv", 2, {"resolution_scaling_factor": 0.5}, {}),
    "SpectralConv2d.output_shape": ("SpectralConv", 2, {}, {"output_shape": (12, 20)}),
    "SpectralConv2d.max_n_modes.no_bias": ("SpectralConv", 2, {"max_n_modes": (8, 8), "bias": False}, {}),
    "legacy.SpectralConv1d": ("legacy.SpectralConv1d", 1, {}, {}),
    "legacy.SpectralConv2d": ("legacy.SpectralConv2d", 2, {}, {}),
    "legacy.SpectralConv3d": ("legacy.SpectralConv3d", 3, {}, {}),
    "legacy.SpectralConv2d.tucker": ("legacy.SpectralConv", 2, {"factorization": "tucker",
                                                              "implementation": "factorized"}, {}),
    "legacy.SpectralConv3d.cp.scaled": ("legacy.SpectralConv", 3, {"factorization": "cp",
                                                                 "resolution_scaling_factor": 2}, {}),
    "legacy.SpectralConv2d.joint.SubConv": ("legacy.SpectralConv", 2, {"n_layers": 2, "joint_factorization": True,
                                                                     "factorization": "tucker"}, {}),
    "legacy.SpectralConv2d.incremental": ("legacy.SpectralConv", 2, {"incremental_n_modes": (2, 2)}, {}),
}

# Layers: name -> builder key (a function below) and its setting.
LAYERS: dict[str, tuple[str, Any]] = {
    "FNOBlocks.ada_in": ("fno_blocks", "ada_in"),
    "FNOBlocks.get_block": ("fno_blocks", "get_block"),
    "FNOBlocks.3d.batch_norm.preactivation": ("fno_blocks", "batch_norm"),
    "CODALayer.per_channel.nonlinear.output_shape": ("coda", {"per_channel_attention": True,
                                                              "nonlinear_attention": True,
                                                              "output_shape": (24, 24)}),
    "ChannelMLP": ("module", ("channel_mlp", "ChannelMLP", {"in_channels": 4, "out_channels": 6,
                                                             "hidden_channels": 8}, "x2")),
    "ChannelMLP.1d.dropout": ("module", ("channel_mlp", "ChannelMLP", {"in_channels": 4, "n_dim": 1, "n_layers": 3,
                                                                        "dropout": 0.2}, "x1")),
    "LinearChannelMLP.dropout": ("module", ("channel_mlp", "LinearChannelMLP", {"layers": [4, 16, 16, 2],
                                                                                 "dropout": 0.1}, "points")),
    "SoftGating": ("module", ("skip_connections", "SoftGating", {"in_features": 4, "n_dim": 2}, "x2")),
    "SoftGating.bias.3d": ("module", ("skip_connections", "SoftGating", {"in_features": 4, "n_dim": 3,
                                                                          "bias": True}, "x3")),
    "Flattened1dConv": ("module", ("skip_connections", "Flattened1dConv", {"in_channels": 4, "out_channels": 6,
                                                                            "kernel_size": 1}, "x2")),
    "GridEmbedding2D": ("module", ("embeddings", "GridEmbedding2D", {"in_channels": 4}, "x2")),
    "GridEmbedding2D.unbatched": ("module", ("embeddings", "GridEmbedding2D", {"in_channels": 4}, "x2.unbatched")),
    "GridEmbeddingND.3d": ("module", ("embeddings", "GridEmbeddingND", {"in_channels": 4, "dim": 3,
                                                                         "grid_boundaries": [[0, 1]] * 3}, "x3")),
    "GridEmbeddingND.1d.unbatched": ("module", ("embeddings", "GridEmbeddingND", {
        "in_channels": 4, "dim": 1, "grid_boundaries": [[-1, 1]]}, "x1.unbatched")),
    "SinusoidalEmbedding.transformer": ("module", ("embeddings", "SinusoidalEmbedding", {
        "in_channels": 2, "num_frequencies": 4}, "coords")),
    "SinusoidalEmbedding.nerf.batched": ("module", ("embeddings", "SinusoidalEmbedding", {
        "in_channels": 2, "num_frequencies": 3, "embedding_type": "nerf"}, "coords.batched")),
    "RotaryEmbedding2D": ("module", ("embeddings", "RotaryEmbedding2D", {"dim": 4}, "coords.batched")),
    "AttentionKernelIntegral": ("attention", {}),
    "AttentionKernelIntegral.rope": ("attention", {"rope": True}),
    "AttentionKernelIntegral.cross.rope": ("attention", {"rope": True, "cross": True}),
    "AttentionKernelIntegral.kernel.weights": ("attention", {"associative": False, "return_kernel": True,
                                                             "weights": True}),
    "DomainPadding.2d": ("padding", (2, 0.25, None)),
    "DomainPadding.3d.list": ("padding", (3, [0.25, 0.0, 0.5], None)),
    "DomainPadding.1d.scaled": ("padding", (1, 0.125, 2)),
    "resample.1d": ("function", ("resample", "resample", "x1", {"res_scale": 2, "axis": -1})),
    "resample.2d": ("function", ("resample", "resample", "x2", {"res_scale": [2, 0.5], "axis": [-2, -1]})),
    "resample.3d": ("function", ("resample", "resample", "x3", {"res_scale": 1.5, "axis": [2, 3, 4]})),
    "resample.3d.output_shape": ("function", ("resample", "resample", "x3", {"res_scale": 1.0, "axis": [2, 3, 4],
                                                                             "output_shape": (6, 10, 12)})),
    "iterative_resample.axis": ("function", ("resample", "iterative_resample", "x3", {"res_scale": 0.5, "axis": 2})),
    "InstanceNorm": ("module", ("normalization_layers", "InstanceNorm", {}, "x2")),
    "BatchNorm.2d": ("module", ("normalization_layers", "BatchNorm", {"n_dim": 2, "num_features": 4}, "x2")),
    "BatchNorm.4d": ("module", ("normalization_layers", "BatchNorm", {"n_dim": 4, "num_features": 4}, "x4")),
    "AdaIN": ("ada_in", None),
    "ComplexValued.ChannelMLP": ("complex_mlp", None),
    "CGELU": ("function", ("complex", "CGELU", "z2", {})),
    "ctanh": ("function", ("complex", "ctanh", "z2", {})),
    "FiniteDifferenceConvolution.1d": ("module", ("differential_conv", "FiniteDifferenceConvolution", {
        "in_channels": 4, "out_channels": 2, "n_dim": 1}, "x1.width")),
    "FiniteDifferenceConvolution.2d.replicate": ("module", ("differential_conv", "FiniteDifferenceConvolution", {
        "in_channels": 4, "out_channels": 4, "n_dim": 2, "padding": "replicate", "groups": 4}, "x2.width")),
    "FiniteDifferenceConvolution.3d.zeros": ("module", ("differential_conv", "FiniteDifferenceConvolution", {
        "in_channels": 4, "out_channels": 2, "n_dim": 3, "kernel_size": 5, "padding": "zeros"}, "x3.width")),
    "spectral_projection_divergence_free": ("function", ("spectral_projection", "spectral_projection_divergence_free",
                                                         "velocity", {"domain_size": 1.0,
                                                                      "constraint_modes": (8, 8)})),
    "spectral_projection_divergence_free.rectangle": ("function", (
        "spectral_projection", "spectral_projection_divergence_free", "velocity",
        {"domain_size": (1.0, 2.0), "constraint_modes": (32, 4)})),
    "FCLegendre.1d": ("continuation", (1, 1)),
    "FCLegendre.2d": ("continuation", (2, 2)),
    "FCLegendre.3d.tuple_dims.restrict": ("continuation", (3, (1, -1))),
    "GNOBlock.linear": ("gno", {}),
    "GNOBlock.nonlinear.batched": ("gno", {"transform_type": "nonlinear", "f_y": "batched"}),
    "GNOBlock.nonlinear_kernelonly.nerf": ("gno", {"transform_type": "nonlinear_kernelonly", "f_y": "single",
                                                   "pos_embedding_type": "nerf"}),
    "GNOBlock.linear.f_y.mean.no_pos_embed": ("gno", {"f_y": "single", "reduction": "mean",
                                                      "pos_embedding_type": None}),
    "GNOBlock.weighting.quartic.batched": ("gno", {"f_y": "batched", "weighting": "quartic"}),
    "IntegralTransform.linear_kernelonly": ("integral", {"transform_type": "linear_kernelonly"}),
    "IntegralTransform.linear.batched": ("integral", {"transform_type": "linear", "f_y": "batched"}),
    "IntegralTransform.nonlinear.weights.batched": ("integral", {"transform_type": "nonlinear", "f_y": "batched",
                                                                 "weights": True}),
    "NeighborSearch": ("neighbors", False),
    "NeighborSearch.return_norm": ("neighbors", True),
    "segment_csr.sum": ("segment_csr", ("sum", False)),
    "segment_csr.mean.batched": ("segment_csr", ("mean", True)),
    "weighting.bump": ("weighting", "bump"),
    "weighting.octic": ("weighting", "octic"),
}

# Losses: name -> (class in ``neuralop.losses``, keywords, method called, inputs, call keywords).
LOSSES: dict[str, tuple[str, dict[str, Any], str, str, dict[str, Any]]] = {
    "LpLoss.1d": ("LpLoss", {"d": 1}, "__call__", "pair1", {}),
    "LpLoss.2d.mean": ("LpLoss", {"d": 2, "reduction": "mean"}, "__call__", "pair2", {}),
    "LpLoss.2d.p1.no_root": ("LpLoss", {"d": 2, "p": 1}, "rel", "pair2", {"take_root": False}),
    "LpLoss.3d.abs": ("LpLoss", {"d": 3, "measure": [1.0, 2.0, 0.5]}, "abs", "pair3", {}),
    "LpLoss.2d.abs.no_root": ("LpLoss", {"d": 2, "p": 3}, "abs", "pair2", {"take_root": False}),
    "LpLoss.2d.abs.quadrature": ("LpLoss", {"d": 2}, "abs", "pair2", {"quadrature": [0.5, 0.25]}),
    "H1Loss.1d": ("H1Loss", {"d": 1}, "__call__", "pair1", {}),
    "H1Loss.2d.mean": ("H1Loss", {"d": 2, "reduction": "mean"}, "__call__", "pair2", {}),
    "H1Loss.2d.nonperiodic.abs": ("H1Loss", {"d": 2, "periodic_in_x": False, "periodic_in_y": False}, "abs", "pair2",
                                  {}),
    "H1Loss.2d.rel.quadrature.no_root": ("H1Loss", {"d": 2}, "rel", "pair2", {"quadrature": [0.5, 0.25],
                                                                              "take_root": False}),
    "H1Loss.3d": ("H1Loss", {"d": 3, "measure": [1.0, 1.0, 2.0]}, "__call__", "pair3", {}),
    "HdivLoss.2d": ("HdivLoss", {"d": 2}, "__call__", "pair2", {}),
    "HdivLoss.3d.abs.mean": ("HdivLoss", {"d": 3, "reduction": "mean"}, "abs", "pair3", {}),
    "PointwiseQuantileLoss": ("PointwiseQuantileLoss", {"alpha": 0.1}, "__call__", "quantile", {}),
    "MSELoss": ("MSELoss", {}, "__call__", "pair2", {}),
    "BurgersEqnLoss": ("BurgersEqnLoss", {"visc": 0.01}, "__call__", "burgers", {}),
    "ICLoss": ("ICLoss", {}, "__call__", "pair2", {}),
}
# Loss pipelines written out below: name -> key.
LOSS_PIPELINES: dict[str, str] = {
    "PoissonEqnLoss": "poisson",
    "PoissonEqnLoss.dict_outputs": "poisson.dict",
    "WeightedSumLoss": "weighted_sum",
    "FieldwiseAggregatorLoss": "fieldwise",
    "SoftAdapt.first_step": "SoftAdapt.0",
    "SoftAdapt": "SoftAdapt.1",
    "Relobralo.first_step": "Relobralo.0",
    "Relobralo": "Relobralo.1",
    "SoftAdapt.static_weights": "SoftAdapt.1.weights",
}
# Derivatives: name -> (class, keywords, method, inputs "f{d}" a scalar field or "v{d}" a vector field, call
# keywords); "non_uniform_fd" is the function.
DERIVATIVES: dict[str, tuple[str, dict[str, Any], str, str, dict[str, Any]]] = {
    "FiniteDiff1d.dx": ("FiniteDiff", {"dim": 1, "h": 0.1}, "dx", "f1", {}),
    "FiniteDiff1d.dx2.nonperiodic": ("FiniteDiff", {"dim": 1, "h": 0.1, "periodic_in_x": False}, "dx", "f1",
                                     {"order": 2}),
    "FiniteDiff2d.laplacian": ("FiniteDiff", {"dim": 2, "h": (0.1, 0.2)}, "laplacian", "f2", {}),
    "FiniteDiff2d.gradient.nonperiodic": ("FiniteDiff", {"dim": 2, "periodic_in_y": False}, "gradient", "f2", {}),
    "FiniteDiff2d.divergence": ("FiniteDiff", {"dim": 2}, "divergence", "v2", {}),
    "FiniteDiff2d.curl": ("FiniteDiff", {"dim": 2, "periodic_in_x": False}, "curl", "v2", {}),
    "FiniteDiff3d.curl": ("FiniteDiff", {"dim": 3, "h": 0.5}, "curl", "v3", {}),
    "FiniteDiff3d.laplacian.nonperiodic": ("FiniteDiff", {"dim": 3, "periodic_in_x": False, "periodic_in_z": False},
                                           "laplacian", "f3", {}),
    "FourierDiff1d.dx": ("FourierDiff", {"dim": 1}, "dx", "f1", {}),
    "FourierDiff1d.multiple": ("FourierDiff", {"dim": 1, "L": 1.0}, "compute_multiple_derivatives", "f1",
                               {"derivatives": [1, 2, 3]}),
    "FourierDiff1d.legendre": ("FourierDiff", {"dim": 1, "use_fc": "Legendre", "fc_degree": 3,
                                               "fc_n_additional_pts": 10}, "dx", "f1", {"order": 2}),
    "FourierDiff2d.laplacian.low_pass": ("FourierDiff", {"dim": 2, "low_pass_filter_ratio": 0.5}, "laplacian", "f2",
                                         {}),
    "FourierDiff2d.gradient": ("FourierDiff", {"dim": 2, "L": (1.0, 2.0)}, "gradient", "f2", {}),
    "FourierDiff2d.curl.legendre": ("FourierDiff", {"dim": 2, "use_fc": "Legendre", "fc_degree": 3,
                                                    "fc_n_additional_pts": 8}, "curl", "v2", {}),
    "FourierDiff2d.multiple": ("FourierDiff", {"dim": 2}, "compute_multiple_derivatives", "f2",
                               {"derivatives": [(1, 0), (0, 2), (1, 1)]}),
    "FourierDiff3d.divergence": ("FourierDiff", {"dim": 3}, "divergence", "v3", {}),
    "non_uniform_fd.1d": ("non_uniform_fd", {}, "", "cloud1", {"num_neighbors": 3}),
    "non_uniform_fd.2d.regularized": ("non_uniform_fd", {}, "", "cloud2", {"num_neighbors": 5,
                                                                           "derivative_indices": [0, 1],
                                                                           "regularize_lstsq": True}),
    "non_uniform_fd.2d.radius": ("non_uniform_fd", {}, "", "cloud2", {"num_neighbors": 6, "radius": 0.3}),
}
# Data transforms and training: name -> key.
PIPELINES: dict[str, str] = {
    "UnitGaussianNormalizer.transform": "normalizer.transform",
    "UnitGaussianNormalizer.inverse_transform": "normalizer.inverse_transform",
    "UnitGaussianNormalizer.fit": "normalizer.fit",
    "UnitGaussianNormalizer.partial_fit": "normalizer.partial_fit",
    "DefaultDataProcessor.step": "processor.default",
    "IncrementalDataProcessor.step": "processor.incremental",
    "MGPatchingDataProcessor.step": "processor.patching",
    "MGPatchingDataProcessor.no_stitching.step": "processor.patching_unstitched",
    "TheWellDataProcessor.step": "the_well.step",
    "Trainer.train_one_batch": "trainer.train",
    "Trainer.eval_one_batch": "trainer.eval",
    "Trainer.eval_one_batch_autoreg.TheWellDataProcessor": "the_well.autoreg",
    "IncrementalFNOTrainer.loss_gap": "incremental.loss_gap",
    "IncrementalFNOTrainer.grad_accumulation": "incremental.grad",
    "AdamW.step": "adamw",
    "AdamW.galore.step": "adamw.galore",
    "spectrum_2d": "spectrum",
    "spectrum_2d.unnormalized": "spectrum.unnormalized",
    "compute_stable_rank": "rank",
}


def names() -> list[str]:
    return (list(FNOS) + list(UQNOS) + list(UNOS) + list(CODANOS) + list(FNOGNOS) + list(GINOS) + list(SPECTRAL)
            + list(LAYERS) + list(LOSSES) + list(LOSS_PIPELINES) + list(DERIVATIVES) + list(PIPELINES))


def _gen(seed: int = 0) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _field(n_dim: int, channels: int = 4, complex_data: bool = False, seed: int = 1, batch: int = BATCH) -> Any:
    """A batch of functions on the ``n_dim``-d grid, (batch, channels, *grid)."""
    import torch

    shape = (batch, channels, *[GRID[n_dim]] * n_dim)
    real = torch.randn(shape, generator=_gen(seed))
    return torch.complex(real, torch.randn(shape, generator=_gen(seed + 1))) if complex_data else real


def _fno_model(name: str, out_channels: int = 1) -> Any:
    import torch.nn.functional as F

    from neuralop import models

    cls, n_dim, keywords = FNOS[name]
    defaults = {"n_modes": (MODES[n_dim],) * n_dim, "in_channels": 3, "out_channels": out_channels,
                "hidden_channels": WIDTH, "n_layers": 2}
    if keywords.get("non_linearity") == "relu":
        keywords = {**keywords, "non_linearity": F.relu}
    return getattr(models, cls)(**defaults, **keywords)


def _fno(name: str) -> Built:
    _, n_dim, keywords = FNOS[name]
    return _fno_model(name), (_field(n_dim, 3, keywords.get("complex_data", False)),), FNO_CALLS.get(name, {})


def _uqno(name: str) -> Built:
    from neuralop.models import UQNO

    base = UQNOS[name]
    return UQNO(_fno_model(base)), (_field(FNOS[base][1], 3),), {}


def _uno(name: str) -> Built:
    from neuralop.models import UNO

    n_dim, keywords = UNOS[name]
    defaults = {"in_channels": 3, "out_channels": 2, "hidden_channels": WIDTH, "lifting_channels": 16,
                "projection_channels": 16, "n_layers": 3, "uno_out_channels": [8, 12, 8],
                "uno_n_modes": [[MODES[n_dim]] * n_dim] * 3,
                "uno_scalings": [[1] * n_dim, [0.5] * n_dim, [2] * n_dim], "horizontal_skips_map": {2: 0},
                "channel_mlp_skip": "linear"}
    return UNO(**{**defaults, **keywords}), (_field(n_dim, 3),), {}


def _codano(name: str) -> Built:
    from neuralop.models import CODANO

    n_variables, keywords, static = CODANOS[name]
    variable_ids = [f"v{i}" for i in range(n_variables)]
    defaults = {"output_variable_codimension": 1, "hidden_variable_codimension": 2, "lifting_channels": 4,
                "projection_channels": 4, "n_layers": 2, "n_heads": [2] * 2, "n_modes": [[4, 4]] * 2,
                "attention_scaling_factors": [0.5] * 2, "per_layer_scaling_factors": [[0.5, 0.5], [2, 2]],
                "positional_encoding_dim": 4, "positional_encoding_modes": [4, 4], "static_channel_dim": static,
                "variable_ids": variable_ids if keywords.get("use_positional_encoding") else None,
                "layer_kwargs": {"factorization": None}}
    model = CODANO(**{**defaults, **keywords})
    inputs = (_field(2, n_variables), _field(2, static, seed=5) if static else None,
              variable_ids if keywords.get("use_positional_encoding") else None)
    return model, inputs, {}


def _cloud(n: int, n_dim: int, seed: int) -> Any:
    import torch

    return torch.rand(n, n_dim, generator=_gen(seed))


def _latent_grid(n_dim: int, side: int) -> Any:
    """A regular grid on the unit cube, (side, ..., side, n_dim)."""
    import torch

    axes = torch.meshgrid([torch.linspace(0, 1, side)] * n_dim, indexing="ij")
    return torch.stack(axes, dim=-1)


def _fnogno(name: str) -> Built:
    import torch

    from neuralop.models import FNOGNO

    n_dim, keywords = FNOGNOS[name]
    defaults = {"in_channels": 3, "out_channels": 2, "projection_channel_ratio": 2, "gno_coord_dim": n_dim,
                "gno_radius": 0.25, "fno_n_modes": (MODES[n_dim],) * n_dim, "fno_hidden_channels": WIDTH,
                "fno_lifting_channel_ratio": 2, "fno_n_layers": 2, "gno_embed_channels": 4,
                "gno_channel_mlp_hidden_layers": [16], "gno_use_open3d": False, "gno_use_torch_scatter": False}
    model = FNOGNO(**{**defaults, **keywords})
    side = 8 if n_dim == 2 else 6
    in_p = _latent_grid(n_dim, side)
    f_shape = ([BATCH] if keywords.get("gno_batched") else []) + [side] * n_dim + [3]
    f = torch.randn(f_shape, generator=_gen(2))
    ada_in = torch.randn(1, generator=_gen(3)) if keywords.get("fno_norm") == "ada_in" else None
    return model, (in_p, _cloud(24, n_dim, 4), f, ada_in), {}


def _gino(name: str) -> Built:
    import torch

    from neuralop.models import GINO

    n_dim, keywords, inputs = GINOS[name]
    defaults = {"in_channels": 3, "out_channels": 2, "projection_channel_ratio": 2, "gno_coord_dim": n_dim,
                "in_gno_radius": 0.3, "out_gno_radius": 0.3, "fno_n_modes": (MODES[n_dim],) * n_dim,
                "fno_hidden_channels": WIDTH, "fno_lifting_channel_ratio": 2, "fno_n_layers": 2,
                "gno_embed_channels": 4, "in_gno_channel_mlp_hidden_layers": [16],
                "out_gno_channel_mlp_hidden_layers": [16], "gno_use_open3d": False, "gno_use_torch_scatter": False,
                "fno_ada_in_features": 4}
    model = GINO(**{**defaults, **keywords})
    side = 8 if n_dim == 2 else 6
    latent = _latent_grid(n_dim, side)
    queries = _cloud(20, n_dim, 5)
    call: dict[str, Any] = {"x": torch.randn(BATCH, 30, 3, generator=_gen(6))}
    if "dict" in inputs:
        queries = {"domain": queries, "boundary": _cloud(8, n_dim, 7)}
    if "latent" in inputs:
        call["latent_features"] = torch.randn(BATCH, *[side] * n_dim, 2, generator=_gen(8))
    if keywords.get("fno_norm") == "ada_in":
        call["ada_in"] = torch.randn(1, generator=_gen(9))
    return model, (_cloud(30, n_dim, 4), latent, queries), call


def _spectral(name: str) -> Built:
    import importlib

    cls, n_dim, keywords, call = SPECTRAL[name]
    module = "legacy_spectral_convolution" if cls.startswith("legacy.") else "spectral_convolution"
    conv_cls = getattr(importlib.import_module(f"neuralop.layers.{module}"), cls.removeprefix("legacy."))
    conv = conv_cls(4, 4, (MODES[n_dim],) * n_dim, **keywords)
    x = _field(n_dim, 4, keywords.get("complex_data", False))
    if name.endswith("SubConv"):
        return conv[1], (x,), call
    return conv, (x,), call


def _run(owner: Any, run: Any, entries: list[Any]) -> Any:
    from gt_calls import Run

    return Run(owner, run, entries)


def _fno_blocks(setting: str) -> Built:
    import torch

    from neuralop.layers.fno_block import FNOBlocks

    if setting == "batch_norm":
        blocks = FNOBlocks(4, 4, (4, 4, 4), n_layers=2, norm="batch_norm", preactivation=True)
        return _run(blocks, lambda owner, x: owner(owner(x, 0), 1), [FNOBlocks.forward]), (_field(3),), {}
    if setting == "get_block":
        blocks = FNOBlocks(4, 4, (4, 4), n_layers=2)
        return blocks.get_block(1), (_field(2),), {}
    blocks = FNOBlocks(4, 4, (4, 4), n_layers=2, norm="ada_in", ada_in_features=3)

    def forward(owner: Any, x: Any, embedding: Any) -> Any:
        owner.set_ada_in_embeddings(embedding)
        return owner(owner(x, 0), 1)

    return (_run(blocks, forward, [FNOBlocks.set_ada_in_embeddings, FNOBlocks.forward]),
            (_field(2), torch.randn(3, generator=_gen(2))), {})


def _coda(setting: dict[str, Any]) -> Built:
    from neuralop.layers.coda_layer import CODALayer

    setting = dict(setting)
    call = {"output_shape": setting.pop("output_shape")}
    layer = CODALayer(n_modes=[4, 4], n_heads=2, token_codimension=2, head_codimension=2, factorization=None,
                      **setting)
    return layer, (_field(2, 6),), call


def _inputs(kind: str) -> tuple[Any, ...]:
    """Named inputs: "x{d}" a field on the d-d grid (".unbatched": no batch dim, ".width": with a grid width),
    "z2" a complex field, "points" features (30, 4), "coords" coordinates (30, 2) (".batched": (2, 30, 2)),
    "velocity" a 2-d vector field (2, 2, 32, 32)."""
    import torch

    base, _, variant = kind.partition(".")
    if base.startswith("x"):
        x = _field(int(base[1]))
        if variant == "unbatched":
            return (x[0],)
        return (x, 1.0 / GRID[int(base[1])]) if variant == "width" else (x,)
    if base == "z2":
        return (_field(2, complex_data=True),)
    if base == "points":
        return (torch.randn(30, 4, generator=_gen(3)),)
    if base == "coords":
        return (torch.rand(BATCH, 30, 2, generator=_gen(3)) if variant else torch.rand(30, 2, generator=_gen(3)),)
    return (torch.randn(2, 2, 32, 32, generator=_gen(4)),)


def _module(setting: tuple[str, str, dict[str, Any], str]) -> Built:
    import importlib

    module, cls, keywords, kind = setting
    layer = getattr(importlib.import_module(f"neuralop.layers.{module}"), cls)(**keywords)
    call = {"batched": False} if kind.endswith("unbatched") else {}
    return layer, _inputs(kind), call


def _function(setting: tuple[str, str, str, dict[str, Any]]) -> Built:
    import importlib

    from gt_calls import Call

    module, function, kind, static = setting
    return Call(getattr(importlib.import_module(f"neuralop.layers.{module}"), function), **static), _inputs(kind), {}


def _attention(setting: dict[str, Any]) -> Built:
    import torch

    from neuralop.layers.attention_kernel_integral import AttentionKernelIntegral
    from neuralop.layers.embeddings import RotaryEmbedding2D

    layer = AttentionKernelIntegral(8, 8, n_heads=2, head_n_channels=4)
    rope = RotaryEmbedding2D(2) if setting.get("rope") else None
    u, pos = torch.randn(BATCH, 24, 8, generator=_gen(1)), torch.rand(BATCH, 24, 2, generator=_gen(2))
    inputs: tuple[Any, ...] = (u, pos)
    keywords = {k: v for k, v in setting.items() if k in ("associative", "return_kernel")}
    if setting.get("cross"):
        inputs += (torch.randn(BATCH, 24, 8, generator=_gen(3)), torch.rand(BATCH, 24, 2, generator=_gen(4)))
    if setting.get("weights"):
        keywords["weights"] = torch.full((BATCH, 24), 1 / 24)

    def forward(owner: Any, u: Any, pos: Any, *query: Any) -> Any:
        if query:
            return owner(u, pos, positional_embedding_module=rope, u_qry=query[0], pos_qry=query[1], **keywords)
        return owner(u, pos, positional_embedding_module=rope, **keywords)

    entries = [AttentionKernelIntegral.forward] + ([RotaryEmbedding2D.forward] if rope is not None else [])
    return _run(layer, forward, entries), inputs, {}


def _padding(setting: tuple[int, Any, Any]) -> Built:
    from neuralop.layers.padding import DomainPadding
    from neuralop.layers.resample import resample

    n_dim, fraction, scale = setting
    padding = DomainPadding(fraction, resolution_scaling_factor=scale)

    def pad_unpad(owner: Any, x: Any) -> Any:
        padded = owner.pad(x)
        if scale is not None:
            padded = resample(padded, scale, list(range(2, padded.ndim)))
        return owner.unpad(padded)

    return _run(padding, pad_unpad, [DomainPadding.pad, DomainPadding.unpad]), (_field(n_dim),), {}


def _ada_in(_: Any) -> Built:
    import torch

    from neuralop.layers.normalization_layers import AdaIN

    norm = AdaIN(3, 4)

    def forward(owner: Any, x: Any, embedding: Any) -> Any:
        owner.set_embedding(embedding)
        return owner(x)

    return _run(norm, forward, [AdaIN.set_embedding, AdaIN.forward]), (_field(2), torch.randn(3, generator=_gen(5))), {}


def _complex_mlp(_: Any) -> Built:
    from neuralop.layers.channel_mlp import ChannelMLP
    from neuralop.layers.complex import ComplexValued

    return ComplexValued(ChannelMLP(4, 4, 8, n_dim=2)), (_field(2, complex_data=True),), {}


def _continuation(setting: tuple[int, Any]) -> Built:
    import torch

    from neuralop.layers.fourier_continuation import FCLegendre

    n_dim, dim = setting
    extension = FCLegendre(d=3, n_additional_pts=6)
    x = torch.randn(BATCH, *[GRID[n_dim]] * n_dim, generator=_gen(1))
    if isinstance(dim, int):
        return _run(extension, lambda owner, f: owner(f, dim=dim), [FCLegendre.forward]), (x,), {}
    return (_run(extension, lambda owner, f: owner.restrict(owner(f, dim=dim), dim=dim),
                 [FCLegendre.forward, FCLegendre.restrict]), (x,), {})


def _features(kind: str | None, n: int, channels: int) -> Any:
    import torch

    if kind is None:
        return None
    return torch.randn(*([BATCH] if kind == "batched" else []), n, channels, generator=_gen(7))


def _gno(setting: dict[str, Any]) -> Built:
    from neuralop.layers.gno_block import GNOBlock
    from neuralop.layers.gno_weighting_functions import dispatch_weighting_fn

    setting = dict(setting)
    f_y = setting.pop("f_y", None)
    weighting = setting.pop("weighting", None)
    weighting_fn = dispatch_weighting_fn(weighting, sq_radius=0.09, scale=1.0) if weighting else None
    block = GNOBlock(in_channels=3, out_channels=3, coord_dim=2, radius=0.3, pos_embedding_channels=4,
                     channel_mlp_layers=[16], weighting_fn=weighting_fn, use_torch_scatter_reduce=False,
                     use_open3d_neighbor_search=False, **setting)
    return block, (_cloud(30, 2, 1), _cloud(20, 2, 2), _features(f_y, 30, 3)), {}


def _integral(setting: dict[str, Any]) -> Built:
    import torch

    from neuralop.layers.integral_transform import IntegralTransform
    from neuralop.layers.neighbor_search import native_neighbor_search

    y, x = _cloud(30, 2, 1), _cloud(20, 2, 2)
    neighbors = native_neighbor_search(y, x, 0.3)
    f_y = _features(setting.get("f_y"), 30, 3)
    nonlinear = setting["transform_type"].startswith("nonlinear")
    layers = [4 + (3 if nonlinear else 0), 16, 3]
    transform = IntegralTransform(channel_mlp_layers=layers, transform_type=setting["transform_type"],
                                  use_torch_scatter=False)
    weights = torch.rand(neighbors["neighbors_index"].shape[0], generator=_gen(3)) if setting.get("weights") else None

    def forward(owner: Any, y: Any, x: Any, index: Any, splits: Any, *f: Any) -> Any:
        return owner(y, {"neighbors_index": index, "neighbors_row_splits": splits}, x=x, f_y=f[0] if f else None,
                     weights=weights)

    inputs: tuple[Any, ...] = (y, x, neighbors["neighbors_index"], neighbors["neighbors_row_splits"])
    if f_y is not None:
        inputs += (f_y,)
    return _run(transform, forward, [IntegralTransform.forward]), inputs, {}


def _neighbors(return_norm: bool) -> Built:
    from neuralop.layers.neighbor_search import NeighborSearch

    return NeighborSearch(use_open3d=False, return_norm=return_norm), (_cloud(30, 2, 1), _cloud(20, 2, 2), 0.3), {}


def _segment_csr(setting: tuple[str, bool]) -> Built:
    import torch

    from gt_calls import Call
    from neuralop.layers.segment_csr import segment_csr

    reduction, batched = setting
    splits = torch.tensor([0, 3, 3, 8, 12, 20])
    src = torch.randn(*([BATCH] if batched else []), 20, 4, generator=_gen(1))
    if batched:
        splits = splits.repeat(BATCH, 1)
    return Call(segment_csr, reduction=reduction, use_scatter=False), (src, splits), {}


def _weighting(kind: str) -> Built:
    import torch

    from gt_calls import Call
    from neuralop.layers import gno_weighting_functions

    function = getattr(gno_weighting_functions, f"{kind}_cutoff")
    return Call(function, radius=0.09, scale=1.5), (torch.rand(40, generator=_gen(1)) * 0.1,), {}


def _layer(name: str) -> Built:
    key, setting = LAYERS[name]
    builders = {"fno_blocks": _fno_blocks, "coda": _coda, "module": _module, "function": _function,
                "attention": _attention, "padding": _padding, "ada_in": _ada_in, "complex_mlp": _complex_mlp,
                "continuation": _continuation, "gno": _gno, "integral": _integral, "neighbors": _neighbors,
                "segment_csr": _segment_csr, "weighting": _weighting}
    return builders[key](setting)


def _loss_inputs(kind: str) -> tuple[Any, ...]:
    """Loss inputs: "pair{d}" a prediction and a target on the d-d grid, one channel, "quantile" widths and
    residuals, "burgers" a space-time field."""
    import torch

    if kind == "quantile":
        return _field(2, 1, seed=1).abs(), _field(2, 1, seed=2)
    if kind == "burgers":
        return (torch.randn(BATCH, 1, 10, 16, generator=_gen(1)),)
    n_dim = int(kind[-1])
    return _field(n_dim, 1, seed=1), _field(n_dim, 1, seed=2)


def _loss(name: str) -> Built:
    from neuralop.losses import data_losses, equation_losses

    from gt_calls import Call

    cls, keywords, method, kind, call = LOSSES[name]
    module = equation_losses if cls.endswith("EqnLoss") or cls == "ICLoss" else data_losses
    return Call(getattr(getattr(module, cls)(**keywords), method), **call), _loss_inputs(kind), {}


def _loss_pipeline(name: str) -> Built:
    import torch

    from neuralop import losses
    from neuralop.losses import data_losses
    from neuralop.losses.meta_losses import Aggregator

    key = LOSS_PIPELINES[name]
    if key.startswith("poisson"):
        return _poisson(dict_outputs=key.endswith("dict"))
    if key == "weighted_sum":
        combined = losses.WeightedSumLoss([losses.LpLoss(d=2), losses.H1Loss(d=2)], weights=[1.0, 0.5])
        return _run(torch.nn.Identity(), lambda owner, a, b: combined(a, b), [losses.WeightedSumLoss.__call__]), \
            _loss_inputs("pair2"), {}
    if key == "fieldwise":
        fields = {"u": (slice(0, 64),), "p": (slice(64, 128),)}  # two fields stacked over 64 points each
        loss = losses.FieldwiseAggregatorLoss({"u": losses.LpLoss(d=1), "p": data_losses.MSELoss()}, fields)
        pred, truth = torch.randn(2, 128, 1, generator=_gen(1))
        return _run(torch.nn.Identity(), lambda owner, a, b: loss(a, b),
                    [losses.FieldwiseAggregatorLoss.__call__]), (pred, truth), {}
    cls, step, *weighted = key.split(".")
    net = torch.nn.Linear(3, 1)
    weights = {"data": 2.0, "physics": 0.5} if weighted else None
    aggregator: Aggregator = getattr(losses, cls)(list(net.parameters()), num_losses=2, weights=weights)
    terms = torch.rand(2, generator=_gen(1)) + 0.5
    if step == "1":
        aggregator({"data": terms[0] * 2, "physics": terms[1] * 2}, step=0)

    def aggregate(owner: Any, data: Any, physics: Any) -> Any:
        return owner({"data": data, "physics": physics}, step=int(step))

    return _run(aggregator, aggregate, [type(aggregator).forward]), (terms[0], terms[1]), {}


def _poisson(dict_outputs: bool) -> Built:
    """The Poisson equation loss on a small network's output over query points (its derivatives by autograd): one
    tensor of boundary then interior points, or a dict of the two sets (``dict_outputs``)."""
    import torch

    from neuralop.losses.equation_losses import PoissonEqnLoss

    net = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    loss = PoissonEqnLoss(boundary_weight=1.0, interior_weight=0.5)
    num_boundary = 6

    def forward(owner: Any, queries: Any, source: Any, y: Any) -> Any:
        with torch.enable_grad():
            queries = queries.detach().requires_grad_(True)
            if dict_outputs:
                domain = queries[:, num_boundary:].detach().requires_grad_(True)
                out = {"domain": owner(domain), "boundary": owner(queries[:, :num_boundary])}
                queries, y = {"domain": domain}, {"boundary": y[:, :num_boundary]}
            else:
                out = owner(queries)
            return loss(out, y, output_queries=queries, output_source_terms_domain=source,
                        num_boundary=torch.tensor(num_boundary), out_sub_level=1.0)

    queries = torch.rand(1, 30, 2, generator=_gen(1))
    return (_run(net, forward, [PoissonEqnLoss.__call__]),
            (queries, torch.randn(1, 30 - num_boundary, generator=_gen(2)), torch.randn(1, 30, 1, generator=_gen(3))),
            {})


def _derivative_field(kind: str) -> Any:
    import torch

    if kind.startswith("cloud"):
        n_dim = int(kind[-1])
        points = torch.rand(60, n_dim, generator=_gen(1))
        return points, torch.sin(3 * points).sum(-1)
    n_dim = int(kind[1])
    shape = [GRID[n_dim]] * n_dim
    return (torch.randn((BATCH, n_dim, *shape) if kind[0] == "v" else (BATCH, *shape), generator=_gen(2)),)


def _derivative(name: str) -> Built:
    from neuralop.losses import differentiation

    from gt_calls import Call

    cls, keywords, method, kind, call = DERIVATIVES[name]
    inputs = _derivative_field(kind)
    if cls == "non_uniform_fd":
        return Call(differentiation.non_uniform_fd, **call), inputs, {}
    return Call(getattr(getattr(differentiation, cls)(**keywords), method), **call), inputs, {}


def _normalizer_fitted(dim: list[int]) -> Any:
    from neuralop.data.transforms.normalizers import UnitGaussianNormalizer

    normalizer = UnitGaussianNormalizer(dim=dim)
    normalizer.fit(_field(2, 3, seed=11, batch=6))
    return normalizer


def _normalizer(method: str) -> Built:
    from neuralop.data.transforms.normalizers import UnitGaussianNormalizer

    if method in ("transform", "inverse_transform"):
        normalizer = _normalizer_fitted([0, 2, 3])
        return _run(normalizer, lambda owner, x: getattr(owner, method)(x),
                    [getattr(UnitGaussianNormalizer, method)]), (_field(2, 3),), {}
    if method == "fit":
        def fit(owner: Any, data: Any) -> Any:
            owner.fit(data)
            return owner.transform(data)

        return _run(UnitGaussianNormalizer(dim=[0, 2, 3]), fit, [UnitGaussianNormalizer.fit]), (_field(2, 3),), {}
    normalizer = _normalizer_fitted([0, 2, 3])

    def partial_fit(owner: Any, data: Any) -> Any:
        owner.partial_fit(data, batch_size=1)
        return owner.mean, owner.std

    return _run(normalizer, partial_fit, [UnitGaussianNormalizer.partial_fit]), (_field(2, 3),), {}


def _processor(kind: str) -> Built:
    """One training step as ``Trainer.train_one_batch`` runs it: preprocess the batch, call the model on it,
    postprocess, the loss. The model is a 1 x 1 convolution (the FNOs are benched on their own); multigrid patches
    carry the input's channels once per level."""
    import torch

    from neuralop import LpLoss
    from neuralop.data.transforms import data_processors

    model = torch.nn.Conv2d(3 if kind in ("default", "incremental") else 6, 3, 1)
    normalizers = (_normalizer_fitted([0, 2, 3]), _normalizer_fitted([0, 2, 3]))
    if kind == "default":
        processor = data_processors.DefaultDataProcessor(*normalizers)
    elif kind == "incremental":
        processor = data_processors.IncrementalDataProcessor(*normalizers, subsampling_rates=[2, 1],
                                                             dataset_resolution=GRID[2], dataset_indices=[2, 3])
    else:
        processor = data_processors.MGPatchingDataProcessor(model, levels=1, padding_fraction=0.25,
                                                            stitching=kind == "patching", in_normalizer=normalizers[0],
                                                            out_normalizer=normalizers[1])
    processor.model = model
    loss = LpLoss(d=2)

    def step(owner: Any, x: Any, y: Any) -> Any:
        sample = owner.preprocess({"x": x, "y": y})
        out = owner.model(sample["x"])
        out, sample = owner.postprocess(out, sample)
        return loss(out, sample["y"])

    cls = type(processor)
    return _run(processor, step, [cls.preprocess, cls.postprocess]), (_field(2, 3), _field(2, 3, seed=3)), {}


def _trainer(kind: str) -> Built:
    import torch

    from neuralop import H1Loss, LpLoss, Trainer
    from neuralop.data.transforms.data_processors import DefaultDataProcessor

    model = _fno_model("FNO2d")
    processor = DefaultDataProcessor(_normalizer_fitted([0, 2, 3]), _normalizer_fitted([0, 2, 3]))
    processor.wrap(model)
    trainer = Trainer(model=model, n_epochs=1, data_processor=processor)
    trainer.optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    trainer.regularizer, trainer.n_samples, trainer.epoch = None, 0, 1
    loss = LpLoss(d=2)
    holder = torch.nn.ModuleList([model, processor])

    if kind == "train":
        def run(owner: Any, x: Any, y: Any) -> Any:
            return trainer.train_one_batch(0, {"x": x, "y": y}, loss)

        return _run(holder, run, [Trainer.train_one_batch]), (_field(2, 3), _field(2, 1, seed=3)), {}

    def evaluate(owner: Any, x: Any, y: Any) -> Any:
        return trainer.eval_one_batch({"x": x, "y": y}, {"l2": loss, "h1": H1Loss(d=2)}, return_output=True)

    return _run(holder, evaluate, [Trainer.eval_one_batch]), (_field(2, 3), _field(2, 1, seed=3)), {}


def _the_well(kind: str) -> Built:
    """``TheWellDataProcessor`` on a trajectory of a 2-component field with one constant field: one training step
    (preprocess, a 1 x 1 convolution, postprocess, a loss) or ``Trainer.eval_one_batch_autoreg`` rolling an FNO out
    over two steps."""
    import torch

    from neuralop import LpLoss, Trainer
    from neuralop.data.transforms.normalizers import UnitGaussianNormalizer
    from neuralop.data.transforms.the_well_data_processors import TheWellDataProcessor

    data = UnitGaussianNormalizer(mean=torch.full((1, 2, 1, 1, 1), 0.1), std=torch.full((1, 2, 1, 1, 1), 1.5))
    constants = UnitGaussianNormalizer(mean=torch.zeros(1, 1, 1, 1), std=torch.full((1, 1, 1, 1), 2.0))
    processor = TheWellDataProcessor(data, const_normalizer=constants)
    side = GRID[2]
    steps = 1 if kind == "step" else 3
    inputs = (torch.randn(BATCH, 1, side, side, 2, generator=_gen(1)),
              torch.randn(BATCH, steps, side, side, 2, generator=_gen(2)),
              torch.randn(BATCH, side, side, 1, generator=_gen(3)))
    loss = LpLoss(d=2)

    def sample(fields: tuple[Any, ...]) -> dict[str, Any]:
        return dict(zip(("input_fields", "output_fields", "constant_fields"), fields))

    if kind == "step":
        def step(owner: Any, *fields: Any) -> Any:
            batch = owner.preprocess(sample(fields))
            out, batch = owner.postprocess(owner.model(batch["x"]), batch)
            return loss(out, batch["y"])

        processor.model = torch.nn.Conv2d(3, 2, 1)
        return _run(processor, step, [TheWellDataProcessor.preprocess, TheWellDataProcessor.postprocess]), inputs, {}
    model = _fno_model("FNO2d", out_channels=2)
    trainer = Trainer(model=model, n_epochs=1, data_processor=processor)
    trainer.n_samples = 0

    def rollout(owner: Any, *fields: Any) -> Any:
        return trainer.eval_one_batch_autoreg(sample(fields), {"l2": loss}, max_steps=2)

    return _run(torch.nn.ModuleList([model, processor]), rollout, [Trainer.eval_one_batch_autoreg]), inputs, {}


def _incremental(kind: str) -> Built:
    """``IncrementalFNOTrainer.incremental_update`` after an epoch: the loss-gap rule (given the epoch's loss, one
    earlier loss recorded) or the accumulation of the spectral weights for the explained-variance rule (its
    decision step builds a tensor from a list of tensors, which Dynamo fails on: left out)."""
    import torch

    from neuralop.training import IncrementalFNOTrainer

    model = _fno_model("FNO2d.separable.max_n_modes")
    if kind == "loss_gap":
        trainer = IncrementalFNOTrainer(model=model, n_epochs=1, incremental_loss_gap=True, incremental_loss_eps=0.1)
        trainer.loss_list.append(torch.tensor(0.5))

        def gap(owner: Any, loss: Any) -> Any:
            trainer.incremental_update(loss)
            return loss * 2

        return _run(model, gap, [IncrementalFNOTrainer.incremental_update]), (torch.tensor(0.45),), {}
    trainer = IncrementalFNOTrainer(model=model, n_epochs=1, incremental_grad=True)

    def accumulate(owner: Any) -> Any:
        trainer.incremental_update()
        return trainer.accumulated_grad

    return _run(model, accumulate, [IncrementalFNOTrainer.incremental_update]), (), {}


def _adamw(kind: str) -> Built:
    import torch

    from gt_calls import OptimizerStep
    from neuralop.training import AdamW

    model = _fno_model("FNO2d")
    if kind == "galore":
        spectral = [p for n, p in model.named_parameters() if "convs" in n and p.ndim == 4]
        others = [p for n, p in model.named_parameters() if not ("convs" in n and p.ndim == 4)]
        optimizer = AdamW(others, lr=1e-3, galore_params=spectral, galore_rank=0.5, galore_update_proj_gap=1,
                          correct_bias=False)
    else:
        optimizer = AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    grads = tuple(torch.randn_like(p) * 0.01 for p in model.parameters())
    return OptimizerStep(model, optimizer), grads, {}


def _utility(kind: str) -> Built:
    import torch

    from gt_calls import Call
    from neuralop import utils

    if kind.startswith("spectrum"):
        signal = torch.randn(3, 16, 16, generator=_gen(1))
        return Call(utils.spectrum_2d, n_observations=16, normalize=kind == "spectrum"), (signal,), {}
    return Call(utils.compute_stable_rank), (torch.randn(12, 8, generator=_gen(1)),), {}


def _pipeline(name: str) -> Built:
    key = PIPELINES[name]
    family, _, setting = key.partition(".")
    builders = {"normalizer": _normalizer, "processor": _processor, "the_well": _the_well,
                "incremental": _incremental, "trainer": _trainer, "adamw": _adamw, "spectrum": _utility,
                "rank": _utility}
    return builders[family](setting if family not in ("spectrum", "rank") else key)


def _warmed(built: Built) -> Built:
    """``built`` after one eager call in eval mode without gradients, as a user's first call: tensorly caches the
    opt_einsum path of each spectral contraction by its shapes (neuralop sets ``use_opt_einsum("optimal")``), and
    tracing the path search itself instead costs Dynamo minutes per factorized model."""
    import torch

    model, args, kwargs = built
    model.eval()
    with torch.no_grad():
        model(*args, **kwargs)
    return built


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    networks = ((FNOS, _fno), (UQNOS, _uqno), (UNOS, _uno), (CODANOS, _codano), (FNOGNOS, _fnogno),
                (GINOS, _gino), (SPECTRAL, _spectral))
    for table, builder in networks:
        if name in table:
            return _warmed(builder(name))
    if name in LAYERS and LAYERS[name][0] in ("fno_blocks", "coda"):
        return _warmed(_layer(name))
    others = ((LAYERS, _layer), (LOSSES, _loss), (LOSS_PIPELINES, _loss_pipeline), (DERIVATIVES, _derivative),
              (PIPELINES, _pipeline))
    for table, builder in others:
        if name in table:
            return builder(name)
    raise KeyError(name)
